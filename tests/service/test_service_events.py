"""GET /games/{id}/events: the event stream of a game (canasta_env.bots.events), against a real
uvicorn process on 127.0.0.1 (and, for the limits of a stream that is never read, the ASGI
app called directly). Every event in order, each seat's private part only on its own
stream, resume by Last-Event-ID / ?after= with nothing lost or repeated (across a kill -9
too), 4xx before the stream opens, 429 past the caps, keep-alives, a stream closed when its
client stops reading, and moves stored by another process on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import warnings

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
httpx = pytest.importorskip("httpx")

from canasta_env.bots.events import BadEventId, parse_event_id  # noqa: E402
from canasta_env.bots.service import create_app  # noqa: E402
from tests.helpers.postgres import fresh_database, postgres_server  # noqa: E402
from tests.helpers.service import free_port, start_server, stop  # noqa: E402

NDJSON = {"Accept": "application/x-ndjson"}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def read_events(base: str, game_id: str, headers: dict | None = None, until=None,
                params: dict | None = None, timeout: float = 60) -> list[dict]:
    """NDJSON events of the stream until it ends or ``until(event)`` is true."""
    out = []
    with httpx.stream("GET", f"{base}/games/{game_id}/events", headers={**NDJSON, **(headers or {})},
                      params=params, timeout=timeout) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("application/x-ndjson")
        for line in r.iter_lines():
            if not line.strip():
                continue  # keep-alive
            out.append(json.loads(line))
            if until is not None and until(out[-1]):
                break
    return out


def full_log(base: str, game_id: str) -> list[dict]:
    moves, after = [], 0
    while True:
        page = httpx.get(f"{base}/games/{game_id}/moves", params={"after": after,
                                                                   "limit": 1000}).json()
        if not page["moves"]:
            return moves
        moves += page["moves"]
        after = moves[-1]["seq"]


def wait_over(base: str, game_id: str, seconds: float = 120) -> dict:
    deadline = time.time() + seconds
    while time.time() < deadline:
        view = httpx.get(f"{base}/games/{game_id}").json()
        if view["status"] == "over":
            return view
        time.sleep(0.2)
    raise AssertionError(f"game {game_id} not over within {seconds} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    proc = start_server(str(tmp_path_factory.mktemp("db") / "games.sqlite3"), port,
                        "--max-game-streams", "3")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def bot_game(base: str, seed: int = 11) -> dict:
    r = httpx.post(f"{base}/games", json={"seats": ["bot"] * 4, "seed": seed,
                                          "auto_deal": True})
    assert r.status_code == 201, r.text
    return r.json()


def check_against_log(events: list[dict], log: list[dict]) -> None:
    """The stream's moves are the move log, each once, in order, with the same words."""
    moves = [e["data"] for e in events if e["event"] == "move"]
    assert [m["seq"] for m in moves] == list(range(1, len(log) + 1))
    for m, logged in zip(moves, log):
        assert (m["seat"], m["action"], m["description"], m["words"], m["hand_number"]) == \
            (logged["seat"], logged["action"], logged["description"], logged["words"],
             logged["hand_number"])
    ids = [e["id"] for e in events if e["id"] is not None]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------- the events
def test_whole_bot_game_every_event_in_order_and_resume_loses_nothing(server):
    game = bot_game(server)
    events = read_events(server, game["game_id"])
    view = wait_over(server, game["game_id"])
    log = full_log(server, game["game_id"])
    assert view["decisions"] == len(log) > 100
    check_against_log(events, log)
    assert events[0]["event"] == "deal" and events[0]["id"] == "0.1"
    assert events[0]["data"]["hand"] is None  # the public stream sees no hand
    assert events[-1]["event"] == "game_over"
    assert events[-1]["data"] == {"winner": view["winner"], "scores": view["scores"]}
    hands = [e for e in events if e["event"] == "hand_over"]
    assert [h["data"]["score_sheets"] for h in hands] == \
        [h["sheets"] for h in view["history"]]
    deals = [e["data"]["hand_number"] for e in events if e["event"] == "deal"]
    assert deals == list(range(len(hands)))
    # every public move: no drawn cards
    assert all(e["data"]["drawn"] is None for e in events if e["event"] == "move")
    # a turn event each time the seat on turn changes within a hand
    for prev, e in zip(events, events[1:]):
        if e["event"] == "turn":
            assert prev["event"] == "move" and prev["data"]["to_move"] == e["data"]["seat"] \
                != prev["data"]["seat"]
    # resuming after any id gives exactly the rest (Last-Event-ID and ?after=)
    ids = [e["id"] for e in events]
    for i in (0, 1, len(events) // 3, len(events) - 3):
        rest = read_events(server, game["game_id"], {"Last-Event-ID": ids[i]})
        assert rest == events[i + 1:]
    rest = read_events(server, game["game_id"], params={"after": ids[len(events) // 2]})
    assert rest == events[len(events) // 2 + 1:]
    # the header wins over the query
    rest = read_events(server, game["game_id"], {"Last-Event-ID": ids[-2]},
                       params={"after": "0"})
    assert rest == events[-1:]


def test_seat_streams_see_their_own_cards_only(server):
    r = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "human", "bot"],
                                            "seed": 3})
    game = r.json()
    gid, tokens = game["game_id"], game["tokens"]
    on_turn = game["view"]["to_move"]
    other = 2 - on_turn if on_turn in (0, 2) else None
    assert other is not None, "seed 3 starts with a human seat on turn"
    first = read_events(server, gid, bearer(tokens[on_turn]), until=lambda e: True)
    assert first[0]["event"] == "deal"
    own_view = httpx.get(f"{server}/games/{gid}", headers=bearer(tokens[on_turn])).json()
    assert first[0]["data"]["hand"] == own_view["hand"]
    act = httpx.post(f"{server}/games/{gid}/actions", json={"action": 0},
                     headers=bearer(tokens[on_turn])).json()
    assert act["drawn"]
    mine = read_events(server, gid, bearer(tokens[on_turn]), params={"after": "0.1"},
                       until=lambda e: e["event"] == "move")
    theirs = read_events(server, gid, bearer(tokens[other]), params={"after": "0.1"},
                         until=lambda e: e["event"] == "move")
    public = read_events(server, gid, params={"after": "0.1"},
                         until=lambda e: e["event"] == "move")
    assert mine[-1]["data"]["drawn"] == act["drawn"]
    assert theirs[-1]["data"]["drawn"] is None and public[-1]["data"]["drawn"] is None
    assert {**mine[-1]["data"], "drawn": None} == theirs[-1]["data"] == public[-1]["data"]
    other_deal = read_events(server, gid, bearer(tokens[other]), until=lambda e: True)
    other_view = httpx.get(f"{server}/games/{gid}", headers=bearer(tokens[other])).json()
    assert other_deal[0]["data"]["hand"] == other_view["hand"] != own_view["hand"]


def test_sse_format_and_keepalive_comments(server):
    game = bot_game(server, seed=5)
    with httpx.stream("GET", f"{server}/games/{game['game_id']}/events", timeout=60) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-cache"
        text = r.read().decode()
    messages = [m for m in text.split("\r\n\r\n" if "\r\n\r\n" in text else "\n\n") if m.strip()]
    parsed = []
    for m in messages:
        fields = dict(line.split(": ", 1) for line in m.splitlines() if not line.startswith(":"))
        if fields:
            parsed.append(fields)
    assert parsed[0]["id"] == "0.1" and parsed[0]["event"] == "deal"
    assert parsed[-1]["event"] == "game_over"
    nd = read_events(server, game["game_id"])
    assert [(p["id"], p["event"], json.loads(p["data"])) for p in parsed] == \
        [(e["id"], e["event"], e["data"]) for e in nd]


# ---------------------------------------------------------------------- refusals
def test_bad_requests_are_json_4xx_before_the_stream(server):
    a = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "human", "bot"],
                                            "seed": 3}).json()
    b = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "bot", "bot"],
                                            "seed": 4}).json()
    url = f"{server}/games/{a['game_id']}/events"
    cases = [
        (f"{server}/games/nope/events", {}, None, 404, "no game 'nope'"),
        (url, {"Last-Event-ID": "x1"}, None, 400, "is not SEQ or SEQ.K"),
        (url, {"Last-Event-ID": "-1"}, None, 400, "is not SEQ or SEQ.K"),
        (url, {}, {"after": "1.2.3"}, 400, "is not SEQ or SEQ.K"),
        (url, {}, {"after": "99"}, 400, "past game"),
        (url, bearer(b["tokens"][0]), None, 401, "not a seat token of game"),
        (url, bearer(a["tokens"][0]), {"seat": 2}, 403, "the token is seat 0's"),
        (url, {}, {"seat": 0}, 401, "needs that seat's token"),
    ]
    for where, headers, params, status, words in cases:
        r = httpx.get(where, headers=headers, params=params, timeout=10)
        assert r.status_code == status, (headers, params, r.text)
        assert r.headers["content-type"] == "application/json"
        assert words in r.json()["detail"], r.json()


def test_stream_cap_per_game_is_a_429(server):
    game = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "human", "bot"],
                                               "seed": 3}).json()
    url = f"{server}/games/{game['game_id']}/events"
    with httpx.Client(timeout=30) as client:
        held, lines = [], []  # a dropped line iterator would close its connection
        try:
            for _ in range(3):  # --max-game-streams 3
                s = client.stream("GET", url, headers=NDJSON)
                r = s.__enter__()
                held.append(s)
                assert r.status_code == 200
                lines.append(r.iter_lines())
                assert json.loads(next(lines[-1]))["event"] == "deal"
            r = httpx.get(url, timeout=10)
            assert r.status_code == 429
            assert r.headers["retry-after"] == "5"
            assert "limit of 3 open event streams" in r.json()["detail"]
        finally:
            for s in held:
                s.__exit__(None, None, None)
    deadline = time.time() + 10
    while time.time() < deadline:  # the closed streams' places are free again
        try:
            with httpx.stream("GET", url, headers=NDJSON, timeout=5) as s:
                if s.status_code == 200:
                    break
        except httpx.TimeoutException:
            pass
        time.sleep(0.2)
    else:
        raise AssertionError("closed streams still count toward the cap")


# ---------------------------------------------------------------------- kill -9
def test_resume_after_kill_9_and_restart_loses_nothing(tmp_path):
    db, port = str(tmp_path / "games.sqlite3"), free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    try:
        game = bot_game(base, seed=21)
        gid = game["game_id"]
        seen = read_events(base, gid, until=lambda e: e["event"] == "move"
                           and e["data"]["seq"] >= 40)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = start_server(db, port)
        seen += read_events(base, gid, {"Last-Event-ID": seen[-1]["id"]})
        wait_over(base, gid)
        check_against_log(seen, full_log(base, gid))
        assert seen[-1]["event"] == "game_over"
        assert seen == read_events(base, gid)  # the same as one unbroken stream
    finally:
        stop(proc)


# ---------------------------------------------------------------------- PostgreSQL
def test_move_stored_by_another_process_reaches_the_stream():
    with postgres_server() as server_url:
        url = fresh_database(server_url)
        pa, pb = free_port(), free_port()
        a = start_server(url, pa)
        b = start_server(url, pb, "--events-poll", "0.05")
        try:
            base_a, base_b = f"http://127.0.0.1:{pa}", f"http://127.0.0.1:{pb}"
            game = httpx.post(f"{base_a}/games", json={"seats": ["human", "bot", "human", "bot"],
                                                       "seed": 3}).json()
            gid, seat = game["game_id"], game["view"]["to_move"]
            token = game["tokens"][seat]
            got: list = []
            with httpx.stream("GET", f"{base_b}/games/{gid}/events", headers=NDJSON,
                              timeout=30) as r:
                lines = r.iter_lines()
                got.append(json.loads(next(lines)))  # the deal
                sent = time.time()
                assert httpx.post(f"{base_a}/games/{gid}/actions", json={"action": 0},
                                  headers=bearer(token)).status_code == 200
                for line in lines:
                    if line.strip():
                        got.append(json.loads(line))
                        break
                delay = time.time() - sent
            assert got[1]["event"] == "move" and got[1]["data"]["seq"] == 1
            assert got[1]["data"]["seat"] == seat and got[1]["data"]["drawn"] is None
            assert delay < 2.0  # polled every 0.05 s; generous on a busy machine
        finally:
            stop(a)
            stop(b)


# ---------------------------------------------------------------------- in process
def test_event_ids_parse():
    assert parse_event_id("12") == (12, 0)
    assert parse_event_id(" 3.2 ") == (3, 2)
    for bad in ("", "a", "-1", "1.", ".1", "1.2.3", "١٢", "1" * 13, "+4"):
        with pytest.raises(BadEventId):
            parse_event_id(bad)


def _asgi_stream(app, path: str, stall_after: int | None, seconds: float,
                 headers: list | None = None, during=None):
    """Call ``app`` for ``GET path`` directly; after ``stall_after`` body messages every
    send blocks forever (a client that stopped reading). Returns the messages sent and
    whether the response ended by itself within ``seconds``."""
    sent: list[dict] = []

    async def main():
        disconnect = asyncio.Event()

        async def receive():
            await disconnect.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if stall_after is not None and message["type"] == "http.response.body" and \
                    sum(m["type"] == "http.response.body" for m in sent) >= stall_after:
                await asyncio.Event().wait()
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "root_path": "", "query_string": b"",
                 "headers": [(b"host", b"test"), *(headers or [])],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
        task = asyncio.create_task(app(scope, receive, send))
        if during is not None:
            await asyncio.sleep(0.5)
            await asyncio.to_thread(during)
        done, _ = await asyncio.wait({task}, timeout=seconds)
        ended = bool(done)
        if not ended:
            disconnect.set()
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        return ended

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ended = asyncio.run(main())
    return sent, ended


def test_a_client_that_stops_reading_is_closed_and_keepalives_flow(tmp_path):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"),
                     stream_limits={"send_timeout": 0.5, "keepalive": 0.2})
    service = app.state.service
    try:
        created = service.create(["human", "bot", "human", "bot"], seed=3)
        gid = created["game_id"]
        # an idle stream (a human to move): the deal, then keep-alive comments
        sent, ended = _asgi_stream(app, f"/games/{gid}/events", None, 1.5)
        bodies = [m.get("body", b"") for m in sent if m["type"] == "http.response.body"]
        assert sent[0]["status"] == 200 and not ended
        assert bodies[0].startswith(b"id: 0.1\r\nevent: deal\r\n") or \
            bodies[0].startswith(b"id: 0.1\nevent: deal\n")
        assert sum(b.startswith(b": ping") for b in bodies) >= 3
        assert service.events.open_streams == 0  # released on disconnect
        # a stream whose sends block: closed after send_timeout, its place released
        t0 = time.monotonic()
        sent, ended = _asgi_stream(app, f"/games/{gid}/events", 1, 10)
        assert ended and time.monotonic() - t0 < 5
        assert service.events.open_streams == 0
        assert service.events.game_streams(gid) == 0
        # NDJSON keep-alives are empty lines
        sent, ended = _asgi_stream(app, f"/games/{gid}/events", None, 1.5,
                                   [(b"accept", b"application/x-ndjson")])
        bodies = [m.get("body", b"") for m in sent if m["type"] == "http.response.body"]
        assert json.loads(bodies[0])["event"] == "deal"
        assert bodies.count(b"\n") >= 3 and not ended
        # a game forgotten by the expiry sweep: its stream ends with 'closed'
        sent, ended = _asgi_stream(app, f"/games/{gid}/events", None, 5,
                                   [(b"accept", b"application/x-ndjson")],
                                   during=lambda: service.sweep(time.time() + 10**9))
        lines = [json.loads(b) for m in sent if m["type"] == "http.response.body"
                 for b in m.get("body", b"").split(b"\n") if b.strip()]
        assert ended and lines[-1] == {"id": None, "event": "closed",
                                       "data": {"reason": "the game was deleted or expired"}}
        assert service.events.open_streams == 0
    finally:
        service.close()


def test_openapi_documents_the_stream(tmp_path):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    try:
        schema = app.openapi()
        op = schema["paths"]["/games/{game_id}/events"]["get"]
        content = op["responses"]["200"]["content"]
        assert set(content) == {"text/event-stream", "application/x-ndjson"}
        assert content["application/x-ndjson"]["schema"] == \
            {"$ref": "#/components/schemas/StreamEvent"}
        comps = schema["components"]["schemas"]
        event = comps["StreamEvent"]
        assert event["properties"]["event"]["enum"] == \
            ["deal", "move", "turn", "hand_over", "game_over", "closed"]
        for name in ("DealEvent", "MoveEvent", "TurnEvent", "HandOverEvent", "GameOverEvent",
                     "ClosedEvent"):
            assert name in comps
        assert {"400", "401", "403", "404", "429"} <= set(op["responses"])
        names = {p["name"] for p in op["parameters"]}
        assert {"seat", "after", "Last-Event-ID"} <= names
    finally:
        app.state.service.close()


def test_stream_of_a_deleted_game_ends_with_closed(server):
    game = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "human", "bot"],
                                               "seed": 3}).json()
    gid, token = game["game_id"], game["tokens"][0]
    events = []
    with httpx.stream("GET", f"{server}/games/{gid}/events", headers=NDJSON, timeout=30) as r:
        lines = r.iter_lines()
        events.append(json.loads(next(lines)))
        assert httpx.delete(f"{server}/games/{gid}", headers=bearer(token)).status_code == 200
        events += [json.loads(line) for line in lines if line.strip()]  # ends by itself
    assert [e["event"] for e in events] == ["deal", "closed"]
    assert events[1] == {"id": None, "event": "closed",
                         "data": {"reason": "the game was deleted or expired"}}
    assert httpx.get(f"{server}/games/{gid}/events").status_code == 404


def test_hand_and_foot_game_stream_matches_its_log(server):
    r = httpx.post(f"{server}/games", json={"seats": ["bot"] * 4, "seed": 8, "auto_deal": True,
                                            "variant": "hand_and_foot"})
    gid = r.json()["game_id"]
    events = read_events(server, gid)
    view = wait_over(server, gid)
    check_against_log(events, full_log(server, gid))
    hands = [e for e in events if e["event"] == "hand_over"]
    assert len(hands) == 4 == len(view["history"])  # four rounds
    assert all(len(h["data"]["revealed"]["feet"]) == 4 for h in hands)
    assert [e["data"]["hand_number"] for e in events if e["event"] == "deal"] == [0, 1, 2, 3]


def test_next_hand_with_a_human_first_is_a_deal_event(server):
    # seed 2: dealer seat 2, so the second hand's first player is seat 0, the human
    game = httpx.post(f"{server}/games", json={"seats": ["human", "bot", "bot", "bot"],
                                               "seed": 2}).json()
    gid, token = game["game_id"], game["tokens"][0]
    view = game["view"]
    for _ in range(400):
        if view["hand_over"]:
            break
        action = view["legal_actions"][0]["action"]
        view = httpx.post(f"{server}/games/{gid}/actions", json={"action": action},
                          headers=bearer(token)).json()["view"]
    assert view["hand_over"] and not view["game_over"]
    seen = read_events(server, gid, bearer(token), until=lambda e: e["event"] == "hand_over")
    assert seen[-1]["data"]["score_sheets"] == view["score_sheets"]
    with httpx.stream("GET", f"{server}/games/{gid}/events",
                      headers={**NDJSON, **bearer(token), "Last-Event-ID": seen[-1]["id"]},
                      timeout=30) as r:
        lines = (line for line in r.iter_lines() if line.strip())
        nxt = httpx.post(f"{server}/games/{gid}/next_hand", headers=bearer(token)).json()
        deal = json.loads(next(lines))
    assert nxt["view"]["to_move"] == 0 and nxt["moves"] == []
    # after the hand's last move: its hand_over (K=1), then this deal (K=2)
    assert seen[-1]["id"] == f"{view['decisions']}.1"
    assert deal["event"] == "deal" and deal["id"] == f"{view['decisions']}.2"
    assert deal["data"]["hand_number"] == 1 and deal["data"]["to_move"] == 0
    assert deal["data"]["hand"] == nxt["view"]["hand"]


def test_a_stream_resumed_ahead_of_its_feed_repeats_nothing():
    """A client resuming after move 5 on a feed whose pump has applied only 3 moves so
    far gets move 6 and what follows, never 4 or 5 again."""
    from canasta_env.bots.events import NDJSON as ND
    from canasta_env.bots.events import Event, EventHub, Feed

    hub = EventHub(store=None)
    feed = Feed("g")
    feed.ready = True
    feed.events = [Event("move", {"seq": s}, s, 0) for s in (1, 2, 3)]
    hub._feeds["g"] = feed

    async def main():
        hub._loop, hub._pump = asyncio.get_running_loop(), asyncio.get_running_loop().create_future()
        hub.acquire("g")
        got = []

        async def read():
            async for chunk in hub.stream(feed, None, (5, 0), ND):
                got.extend(json.loads(line)["id"] for line in chunk.splitlines())
                if got and got[-1] == "6.1":
                    return

        task = asyncio.create_task(read())
        await asyncio.sleep(0.05)
        feed.events += [Event("move", {"seq": s}, s, 0) for s in (4, 5, 6)]
        feed.events.append(Event("turn", {"seat": 1}, 6, 1))
        feed.wake()
        await asyncio.wait_for(task, 5)
        hub._pump.cancel()
        return got

    assert asyncio.run(main()) == ["6", "6.1"]
    assert hub.open_streams == 0


def test_websocket_carries_the_events_and_takes_moves(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import WebSocketDenialResponse

    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    service = app.state.service
    try:
        from fastapi.testclient import TestClient

        with TestClient(app) as client:
            game = client.post("/games", json={"seats": ["human", "bot", "human", "bot"],
                                               "seed": 3}).json()
            gid, tokens = game["game_id"], game["tokens"]
            auth = {"Authorization": f"Bearer {tokens[2]}"}  # seat 2 is on turn
            with client.websocket_connect(f"/games/{gid}/ws", headers=auth) as ws:
                deal = ws.receive_json()
                assert deal["event"] == "deal" and deal["id"] == "0.1"
                assert deal["data"]["hand"] == service.view(gid, tokens[2])["hand"]
                ws.send_text("not json")
                assert ws.receive_json()["event"] == "error"
                ws.send_json({"action": "meld 7: 3 naturals"})
                bad = ws.receive_json()
                assert bad["event"] == "error" and bad["data"]["status"] == 400
                ws.send_json({"action": "draw from stock"})
                got = [ws.receive_json(), ws.receive_json()]
                result = next(m for m in got if m["event"] == "result")
                move = next(m for m in got if m["event"] == "move")
                assert result["data"]["drawn"] == move["data"]["drawn"] != []
                assert move["id"] == "1" and move["data"]["seat"] == 2
            assert service.events.open_streams == 0
            # resumed after move 1: nothing before it again
            with client.websocket_connect(f"/games/{gid}/ws?after=1", headers=auth) as ws:
                ws.send_json({"action": service.view(gid, tokens[2])["legal_actions"][-1][
                    "action"]})
                got = [ws.receive_json() for _ in range(2)]
                assert {m["event"] for m in got} <= {"result", "move", "turn"}
                assert all(m["id"] is None or int(m["id"].split(".")[0]) >= 2 for m in got)
            for path, headers, status in (
                    ("/games/nope/ws", {}, 404),
                    (f"/games/{gid}/ws?after=x", {}, 400),
                    (f"/games/{gid}/ws", {"Authorization": "Basic abc"}, 401),
                    (f"/games/{gid}/ws?seat=0", auth, 403)):
                with pytest.raises(WebSocketDenialResponse) as refused:
                    with client.websocket_connect(path, headers=headers):
                        pass
                assert refused.value.status_code == status
                assert "detail" in refused.value.json()
    finally:
        service.close()


@pytest.mark.parametrize("limits,words", [
    ({"max_streams": 0}, "max_streams must be a positive number, got 0"),
    ({"keepalive": -1.0}, "keepalive must be a positive number"),
    ({"max_game_streams": True}, "max_game_streams must be a positive number, got True"),
])
def test_bad_stream_limits_are_refused_before_the_database_is_opened(tmp_path, limits, words):
    from canasta_env.bots.service import ServiceError

    with pytest.raises(ServiceError, match=words):
        create_app("heuristic", db=str(tmp_path / "g.sqlite3"), stream_limits=limits)
    assert not (tmp_path / "g.sqlite3").exists()


def test_bad_stream_options_on_the_command_line(tmp_path):
    import subprocess
    import sys

    for flag in ("--max-streams", "--max-game-streams", "--events-poll"):
        r = subprocess.run([sys.executable, "-m", "canasta_env.bots.service", flag, "0",
                            "--db", str(tmp_path / "g.sqlite3")], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 2 and flag in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) <= 2, r.stderr  # usage + one line
