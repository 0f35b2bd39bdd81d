"""canasta_env.bots.service: the HTTP JSON service, in process (FastAPI TestClient) and as a real
uvicorn process on 127.0.0.1 driven with httpx. Every bad request must be a 4xx with a
clear JSON message and leave the game exactly as it was."""

from __future__ import annotations

import copy
import subprocess
import sys
import time
import warnings

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
httpx = pytest.importorskip("httpx")

from canasta_env.bots import Bot, loader  # noqa: E402
from canasta_env.bots.service import create_app, seat_view  # noqa: E402
from canasta_env.bots.table import plain_words  # noqa: E402
from canasta_env.engine import (  # noqa: E402
    Game,
    describe,
    from_position,
    to_position,
)
from tests.helpers.opponent import ROOT, heuristic_positions, smoke_checkpoint  # noqa: E402
from tests.helpers.service import served  # noqa: E402

with warnings.catch_warnings():
    # starlette >= 1.x suggests httpx2 for its test client; httpx still works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    app = create_app("heuristic", db=str(tmp_path_factory.mktemp("db") / "games.sqlite3"))
    yield app
    app.state.service.close()


@pytest.fixture(scope="module")
def client(app):
    return TestClient(app)


def position_of(app, game_id: str) -> dict:
    return app.state.service.position(game_id)


def auth(body: dict, seat: int) -> dict:
    """The Authorization header of ``seat`` in the game ``body`` (from POST /games)."""
    return {"Authorization": f"Bearer {body['tokens'][seat]}"}


def new_game(client, seats, **kw) -> dict:
    r = client.post("/games", json={"seats": seats, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def finished(client, game_id: str, timeout: float = 120) -> dict:
    """The public view once the background bots have stopped playing."""
    deadline = time.time() + timeout
    while True:
        view = client.get(f"/games/{game_id}").json()
        if view["status"] != "running":
            return view
        assert time.time() < deadline, "the bots did not finish"
        time.sleep(0.05)


def play_human_seats(client, body: dict, humans, by_description=False, limit=2000) -> int:
    """Humans always pick the first legal action until the hand ends; returns how many
    actions they sent. Alternates ids and descriptions when ``by_description``."""
    game_id = body["game_id"]
    sent = 0
    while sent < limit:
        view = client.get(f"/games/{game_id}").json()
        if view["hand_over"]:
            return sent
        seat = view["to_move"]
        assert seat in humans, "the service must play the bots' turns by itself"
        mine = client.get(f"/games/{game_id}", headers=auth(body, seat)).json()
        assert mine["seat"] == seat
        first = mine["legal_actions"][0]
        action = first["description"] if by_description and sent % 2 else first["action"]
        r = client.post(f"/games/{game_id}/actions", json={"seat": seat, "action": action},
                        headers=auth(body, seat))
        assert r.status_code == 200, r.text
        moves = r.json()["moves"]
        assert moves[0] == {"seat": seat, **first, "words": plain_words(first["description"])}
        assert all(m["seat"] not in humans for m in moves[1:])
        sent += 1
    raise AssertionError("hand did not end")


# ----------------------------------------------------------------------------- bots only
def log_of(client, game_id: str) -> list[dict]:
    moves: list[dict] = []
    while True:
        page = client.get(f"/games/{game_id}/moves",
                          params={"after": len(moves), "limit": 1000}).json()
        if not page["moves"]:
            return moves
        moves += page["moves"]


def test_a_move_log_page_after_a_seq_past_int64_is_empty_not_a_500(client):
    body = new_game(client, ["human", "bot", "bot", "bot"], seed=3)
    for after in (2**63, 2**70):
        r = client.get(f"/games/{body['game_id']}/moves", params={"after": after})
        assert r.status_code == 200, r.text
        assert r.json()["moves"] == []


def test_four_bots_play_a_whole_game_in_the_background(client):
    body = new_game(client, ["bot"] * 4, seed=7, auto_deal=True)
    assert body["tokens"] == [None] * 4 and body["view"]["status"] == "running"
    view = finished(client, body["game_id"])
    assert view["seat"] is None and view["hand"] is None  # no human: the public view
    assert view["phase"] == "GAME_OVER" and view["game_over"] and view["status"] == "over"
    assert max(view["scores"]) >= 5000 and view["winner"] in (0, 1, -1)
    assert len(view["history"]) == view["hand_number"] + 1 >= 2
    moves = log_of(client, body["game_id"])
    assert len(moves) == view["decisions"] > 100
    assert [m["seq"] for m in moves] == list(range(1, len(moves) + 1))
    # the same seed and policy give the same game
    again = new_game(client, ["bot"] * 4, seed=7, auto_deal=True)
    assert finished(client, again["game_id"])["scores"] == view["scores"]
    assert log_of(client, again["game_id"]) == moves


def test_four_bots_hand_by_hand_with_next_hand(client):
    body = new_game(client, ["bot"] * 4, seed=8)
    gid = body["game_id"]
    assert body["view"]["phase"] == "HAND_OVER" and body["view"]["score_sheets"] is not None
    hands = 1
    while True:
        # four bots: no seat tokens, so no seat's view, only the public one
        assert client.post(f"/games/{gid}/next_hand", params={"seat": 2}).status_code == 401
        r = client.post(f"/games/{gid}/next_hand")
        if r.status_code == 409:
            assert "game is over" in r.json()["detail"]
            break
        assert r.status_code == 200, r.text
        hands += 1
        view = r.json()["view"]
        assert view["hand_over"] and view["seat"] is None and view["hand"] is None
        assert hands < 40
    final = client.get(f"/games/{gid}").json()
    assert final["game_over"] and len(final["history"]) == hands


# ----------------------------------------------------------------------------- humans
def test_human_seat_by_id_and_description(client, app):
    body = new_game(client, ["human", "bot", "bot", "bot"], seed=3)
    gid = body["game_id"]
    view = body["view"]
    assert view["seat"] == 0 and view["to_move"] == 0  # bots already played up to seat 0
    assert [m["seat"] for m in body["moves"]] and all(m["seat"] != 0 for m in body["moves"])
    assert view["legal_actions"] and view["hand"] == position_of(app, gid)["hands"][0]
    sent = play_human_seats(client, body, humans=[0], by_description=True)
    assert sent >= 5
    end = client.get(f"/games/{gid}", params={"seat": 0}, headers=auth(body, 0)).json()
    assert end["hand_over"] and end["legal_actions"] == [] and end["score_sheets"]
    assert "Score sheet us" in end["text"]


def test_two_humans_and_auto_deal(client):
    body = new_game(client, ["human", "bot", "human", "bot"], seed=4, auto_deal=True,
                    bot_policy="random", starting_scores=[4900, 4950])
    gid = body["game_id"]
    assert body["bot_policy"] == "random" and body["view"]["opening_minimum"] == [120, 120]
    assert body["tokens"][1] is None and body["tokens"][3] is None
    assert len({body["tokens"][0], body["tokens"][2]}) == 2
    play_human_seats(client, body, humans=[0, 2])
    assert client.get(f"/games/{gid}").json()["game_over"]  # one hand reaches 5,000


def test_view_shows_only_the_seats_own_cards(client, app):
    body = new_game(client, ["human", "human", "human", "human"], seed=9)
    gid = body["game_id"]
    pos = position_of(app, gid)
    for seat in range(4):
        v = client.get(f"/games/{gid}", headers=auth(body, seat)).json()
        assert v["seat"] == seat and v["hand"] == pos["hands"][seat]
        # another seat's view: never with this token, never without one
        other = (seat + 1) % 4
        r = client.get(f"/games/{gid}", params={"seat": other}, headers=auth(body, seat))
        assert r.status_code == 403 and f"seat {seat}'s" in r.json()["detail"]
        r = client.get(f"/games/{gid}", params={"seat": other})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert [p["hand_size"] for p in v["players"]] == [len(h) for h in pos["hands"]]
        assert v["stock_size"] == len(pos["stock"]) and "stock" not in v
        assert bool(v["legal_actions"]) == (seat == pos["current"])
    public = client.get(f"/games/{gid}").json()
    assert public["hand"] is None and public["legal_actions"] == [] and public["text"] is None
    # a token of another game, or a made-up one, is refused
    other = new_game(client, ["human", "bot", "bot", "bot"], seed=9)
    for headers in (auth(other, 0), {"Authorization": "Bearer made-up"}):
        r = client.get(f"/games/{gid}", headers=headers)
        assert r.status_code == 401 and "not a seat token" in r.json()["detail"]


def _hidden_swaps(pos: dict, seat: int):
    """Positions that differ from ``pos`` only in cards ``seat`` cannot see: a card
    swapped between another seat's hand (not a card known from the pile) and the stock,
    and the stock reversed."""
    p = copy.deepcopy(pos)
    p["stock"] = p["stock"][::-1]
    yield p
    for other in range(4):
        if other == seat:
            continue
        known = list(pos["known"][other])
        hand = list(pos["hands"][other])
        for k in known:
            hand.remove(k)
        for card in set(hand):
            for j, s in enumerate(pos["stock"]):
                if s != card and s != "red 3":
                    p = copy.deepcopy(pos)
                    p["hands"][other].remove(card)
                    p["hands"][other].append(s)
                    p["stock"][j] = card
                    yield p
                    break
            break


def test_seat_view_never_depends_on_hidden_cards():
    checked = 0
    for pos in heuristic_positions(seed=31, every=9, limit=12):
        for seat in range(4):
            want = seat_view(from_position(pos), seat)
            for other in _hidden_swaps(pos, seat):
                got = seat_view(from_position(other), seat)
                assert got == want
                checked += 1
    assert checked > 50


# ----------------------------------------------------------------------------- bad requests
def _unchanged(client, app, gid, request, status, needle):
    before = position_of(app, gid)
    r = request()
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and needle.lower() in detail.lower(), detail
    assert position_of(app, gid) == before


def test_bad_actions_leave_the_game_unchanged(client, app):
    body = new_game(client, ["human", "human", "bot", "bot"], seed=5)
    gid = body["game_id"]
    view = client.get(f"/games/{gid}", headers=auth(body, 0)).json()
    on_turn = view["to_move"]
    other = 1 - on_turn
    legal = {a["action"] for a in view["legal_actions"]} if on_turn == 0 else \
        {a["action"] for a in client.get(f"/games/{gid}", headers=auth(body, 1)).json()[
            "legal_actions"]}
    illegal = next(a for a in range(91) if a not in legal)
    url = f"/games/{gid}/actions"

    def post(path, json=None, seat=None, **kw):
        """As the seat in the body (or ``seat``): with its token."""
        who = seat if seat is not None else (json or {}).get("seat", 0)
        headers = {**(auth(body, who) if who in (0, 1) else auth(body, 0)),
                   **kw.pop("headers", {})}
        return client.post(path, json=json, headers=headers, **kw)

    cases = [
        (lambda: post(url, json={"seat": on_turn, "action": "²"}), 400, "ascii digits"),
        (lambda: post(url, json={"seat": on_turn, "action": "１"}), 400, "described as"),
        (lambda: client.post(url, json={"seat": on_turn, "action": 0}), 401, "token"),
        (lambda: post(url, json={"seat": other, "action": 0}, seat=on_turn), 403,
         f"seat {on_turn}'s"),
        (lambda: post(url, json={"seat": on_turn, "action": illegal}), 400,
         f"illegal action {illegal}"),
        (lambda: post(url, json={"seat": on_turn, "action": 999}), 400, "outside 0..90"),
        # more digits than int() reads (4,300): a 400, not a 500
        (lambda: post(url, json={"seat": on_turn, "action": "9" * 5000}), 400,
         "action id 999999999999... (5000 digits) is outside 0..90"),
        (lambda: post(url, json={"seat": on_turn, "action": "0" * 4999 + str(illegal)}),
         400, f"illegal action {illegal}"),
        (lambda: post(url, json={"seat": on_turn, "action": "dance a jig"}), 400,
         "action is described as"),
        (lambda: post(url, json={"seat": on_turn, "action": describe(illegal)}), 400, "illegal"),
        (lambda: post(url, json={"seat": other, "action": 0}), 409, f"not seat {other}'s turn"),
        (lambda: post(url, json={"seat": 2, "action": 0}), 403, "seat 0's"),
        (lambda: post(url, json={"seat": 7, "action": 0}), 422, "seat"),
        (lambda: post(url, json={"seat": "0", "action": 0}), 422, "seat"),
        (lambda: post(url, json={"seat": 0, "action": True}), 422, "action"),
        (lambda: post(url, json={"seat": 0}), 422, "action"),
        (lambda: post(url, json={"seat": 0, "action": 0, "extra": 1}), 422, "extra"),
        (lambda: post(url, content=b"not json", headers={"content-type": "application/json"}),
         422, "invalid request"),
        (lambda: post(f"/games/{gid}/next_hand"), 409, "still being played"),
        (lambda: client.get(f"/games/{gid}", params={"seat": 4}), 422, "seat"),
    ]
    for request, status, needle in cases:
        _unchanged(client, app, gid, request, status, needle)
    # after the hand is over, actions are refused and say how to go on
    play_human_seats(client, body, humans=[0, 1])
    _unchanged(client, app, gid, lambda: post(url, json={"seat": 0, "action": 0}), 409,
               "next_hand")


def test_unknown_game_is_404(client):
    for r in (client.get("/games/nope", params={"seat": 0}),
              client.post("/games/nope/actions", json={"seat": 0, "action": 0}),
              client.post("/games/nope/next_hand"),
              client.delete("/games/nope")):
        assert r.status_code == 404 and "no game 'nope'" in r.json()["detail"]


@pytest.mark.parametrize("body, status, needle", [
    ({"seats": ["human", "bot", "bot"]}, 400, "4 entries"),
    ({"seats": ["human", "bot", "bot", "bot", "bot"]}, 400, "4 entries"),
    ({"seats": ["human", "bot", "bot", "robot"]}, 400, "seats[3]"),
    ({"seats": "human,bot,bot,bot"}, 422, "seats"),
    ({}, 422, "seats"),
    ({"seats": ["bot"] * 4, "variant": "hand_and_foot_deluxe"}, 400, "unknown variant"),
    ({"seats": ["bot"] * 4, "rules": {"no_such_rule": 1}}, 400, "no_such_rule"),
    ({"seats": ["bot"] * 4, "seed": "abc"}, 422, "seed"),
    ({"seats": ["bot"] * 4, "starting_scores": [1]}, 400, "two ints"),
    ({"seats": ["bot"] * 4, "bot_policy": "/tmp/evil.zip"}, 400, "not offered"),
    ({"seats": ["bot"] * 4, "bot_policy": "reference"}, 400, "reference policy is not available"),
])
def test_bad_new_game_requests(client, app, monkeypatch, tmp_path, body, status, needle):
    monkeypatch.setattr(loader, "REFERENCE_ONNX", tmp_path / "missing.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", tmp_path / "missing.zip")
    n = app.state.service.count()
    r = client.post("/games", json=body)
    assert r.status_code == status, r.text
    assert needle.lower() in r.json()["detail"].lower()
    assert app.state.service.count() == n


def test_delete_forgets_a_game(client):
    body = new_game(client, ["human"] * 4, seed=1)
    gid = body["game_id"]
    assert client.delete(f"/games/{gid}").status_code == 401  # only its players
    assert client.delete(f"/games/{gid}", headers=auth(body, 3)).json() == {"deleted": gid}
    assert client.get(f"/games/{gid}").status_code == 404


# ----------------------------------------------------------------------------- stateless
def test_stateless_move_and_turn(client):
    bot = Bot("heuristic")
    for pos in heuristic_positions(seed=41, every=11, limit=8):
        seat = from_position(pos).to_move
        r = client.post("/move", json={"position": pos, "seat": seat})
        assert r.status_code == 200, r.text
        assert {k: r.json()[k] for k in ("action", "description")} == bot.choose(pos, seat)
        r = client.post("/turn", json={"position": pos, "seat": seat, "policy": "heuristic"})
        assert r.status_code == 200, r.text
        new, moves = bot.play_turn(pos, seat)
        assert r.json()["position"] == new
        assert r.json()["moves"] == [{**m, "words": plain_words(m["description"])} for m in moves]


def test_stateless_move_with_the_search_bot(client):
    """``policy: "search"`` is offered: the service's move is the search bot's move."""
    bot = Bot("search")
    for pos in heuristic_positions(seed=43, every=13, limit=4):
        seat = from_position(pos).to_move
        r = client.post("/move", json={"position": pos, "seat": seat, "policy": "search"})
        assert r.status_code == 200, r.text
        assert {k: r.json()[k] for k in ("action", "description")} == bot.choose(pos, seat)
    assert "search" in client.get("/api").json()["policies"]


def test_stateless_move_with_the_network_guided_search(client):
    """``policy: "search_reference"``: the service's move is that bot's move, in Classic
    and in Hand and Foot (each with its own reference as the search's base)."""
    bot = Bot("search_reference")
    for variant in ("classic", "hand_and_foot"):
        positions = [p for p in heuristic_positions(seed=44, every=5, limit=40, variant=variant)
                     if len(from_position(p).legal_actions()) > 1][:2]  # the search runs
        assert len(positions) == 2
        for pos in positions:
            seat = from_position(pos).to_move
            r = client.post("/move", json={"position": pos, "seat": seat,
                                           "policy": "search_reference"})
            assert r.status_code == 200, r.text
            assert {k: r.json()[k] for k in ("action", "description")} == bot.choose(pos, seat)
    assert "search_reference" in client.get("/api").json()["policies"]


def test_stateless_bad_requests(client):
    pos = to_position(Game(seed=2))
    seat = from_position(pos).to_move
    broken = copy.deepcopy(pos)
    broken["hands"][0].append("A")
    cases = [
        ({"position": broken, "seat": seat}, 400, "cards do not add up"),
        ({"position": {"format": "chess"}, "seat": seat}, 400, "malformed position"),
        ({"position": pos, "seat": (seat + 1) % 4}, 409, "not on turn"),
        ({"position": "pos", "seat": seat}, 422, "position"),
        ({"position": pos, "seat": 9}, 422, "seat"),
        ({"position": pos, "seat": seat, "policy": "nope"}, 400, "not offered"),
    ]
    for body, status, needle in cases:
        for path in ("/move", "/turn"):
            r = client.post(path, json=body)
            assert r.status_code == status, (path, r.text)
            assert needle in r.json()["detail"]
    assert body["position"] == to_position(Game(seed=2))  # the request's position untouched


def test_openapi_docs(client):
    spec = client.get("/openapi.json").json()
    for path in ("/games", "/games/{game_id}", "/games/{game_id}/actions",
                 "/games/{game_id}/next_hand", "/move", "/turn"):
        assert path in spec["paths"]
    assert client.get("/docs").status_code == 200
    assert client.get("/").json()["docs"] == "/docs"
    schemas = spec["components"]["schemas"]
    for model in ("LoggedMove", "View"):  # 0 for the first hand: said in the schema
        assert schemas[model]["properties"]["hand_number"]["description"].startswith(
            "hands dealt before this one in the game: 0 for the first hand")


def test_hand_number_counts_from_zero_in_views_and_the_move_log(client):
    body = client.post("/games", json={"seats": ["bot"] * 4, "seed": 2}).json()
    assert body["view"]["hand_number"] == 0 and body["view"]["hand_over"]
    log = client.get(f"/games/{body['game_id']}/moves").json()
    assert log and {m["hand_number"] for m in log["moves"]} == {0}


def test_service_with_a_checkpoint_policy(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    ck = str(smoke_checkpoint(tmp_path_factory))
    c = TestClient(create_app(ck, db=str(tmp_path_factory.mktemp("db") / "g.sqlite3")))
    body = c.post("/games", json={"seats": ["bot"] * 4, "seed": 2}).json()
    assert body["bot_policy"] == ck and body["view"]["hand_over"]
    pos = to_position(Game(seed=2))
    r = c.post("/move", json={"position": pos, "seat": from_position(pos).to_move})
    assert r.json()["action"] == Bot(ck).choose(pos, from_position(pos).to_move)["action"]
    # the server's own checkpoint is allowed by name; the built-ins too
    assert c.post("/games", json={"seats": ["bot"] * 4, "seed": 2,
                                  "bot_policy": "heuristic"}).status_code == 201


# ----------------------------------------------------------------------------- real server
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory)


def test_real_server_bot_game_human_game_and_errors(server):
    with httpx.Client(base_url=server, timeout=30) as http:
        t0 = time.perf_counter()
        r = http.post("/games", json={"seats": ["bot"] * 4, "seed": 12, "auto_deal": True})
        assert r.status_code == 201
        bots_id = r.json()["game_id"]
        assert time.perf_counter() - t0 < 5  # the game is played in the background
        while (view := http.get(f"/games/{bots_id}").json())["status"] == "running":
            assert time.perf_counter() - t0 < 120
            time.sleep(0.05)
        elapsed = time.perf_counter() - t0
        assert view["game_over"]
        per_move_ms = 1000 * elapsed / view["decisions"]
        print(f"\nbot-vs-bot game over HTTP: {view['decisions']} bot decisions in "
              f"{elapsed:.2f} s ({per_move_ms:.2f} ms per decision)")
        assert per_move_ms < 50

        body = http.post("/games", json={"seats": ["bot", "human", "bot", "bot"], "seed": 13}).json()
        gid = body["game_id"]
        assert body["view"]["seat"] == 1 and body["view"]["to_move"] == 1
        http.headers["Authorization"] = f"Bearer {body['tokens'][1]}"  # seat 1 from now on

        def views():
            return [http.get(f"/games/{gid}", params={"seat": s}).json() for s in range(4)]

        before = views()
        for bad, status in (({"seat": 1, "action": 90 if 90 not in {
                a["action"] for a in before[1]["legal_actions"]} else 5}, 400),
                ({"seat": 0, "action": 0}, 403), ({"seat": 1, "action": "fly"}, 400),
                ({"seat": "one", "action": 0}, 422)):
            r = http.post(f"/games/{gid}/actions", json=bad)
            assert r.status_code == status and r.json()["detail"]
        assert http.get("/games/zzz").status_code == 404
        assert views() == before
        # by description, then by id: the bots answer in the same response
        r = http.post(f"/games/{gid}/actions", json={"seat": 1, "action": "draw from stock"})
        assert r.status_code == 200 and r.json()["moves"][0]["action"] == 0
        first = r.json()["view"]["legal_actions"][-1]["action"]  # a discard
        r = http.post(f"/games/{gid}/actions", json={"seat": 1, "action": first})
        assert r.status_code == 200
        moves = r.json()["moves"]
        assert moves[0]["seat"] == 1 and {m["seat"] for m in moves[1:]} <= {0, 2, 3}
        view = r.json()["view"]
        assert view["hand_over"] or view["to_move"] == 1
        pos = to_position(Game(seed=14))
        r = http.post("/move", json={"position": pos, "seat": from_position(pos).to_move})
        assert r.status_code == 200 and set(r.json()) >= {"action", "description"}
        assert http.get("/docs").status_code == 200
        assert "/move" in http.get("/openapi.json").json()["paths"]


def test_serve_refuses_an_unknown_policy_at_start():
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.service", "--policy",
                        "missing/model.zip"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "missing/model.zip" in r.stderr and "error:" in r.stderr
