"""The service's games are durable and its seats private, on SQLite and on PostgreSQL
(a throw-away server from tests/helpers/postgres.py): every accepted move is stored before the
response, ``kill -9`` and a restart lose none, seat tokens are stored only as hashes,
bots of different games decide concurrently, a failing policy never leaves a game stuck,
and the caps, expiry, eviction and options refuse with clear messages."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
httpx = pytest.importorskip("httpx")
sqlalchemy = pytest.importorskip("sqlalchemy", reason="the service extra is part of the test install")

from canasta_env.bots import Bot  # noqa: E402
from canasta_env.bots.service import Service, ServiceError, create_app  # noqa: E402
from canasta_env.bots.store import Conflict, GameStore  # noqa: E402
from canasta_env.engine import from_position  # noqa: E402
from canasta_env.policies import HeuristicPolicy  # noqa: E402
from tests.helpers.opponent import ROOT  # noqa: E402
from tests.helpers.postgres import fresh_database, postgres_server  # noqa: E402
from tests.helpers.service import free_port, start_server, stop  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def pg_server():
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """A fresh database: an SQLite file, or a new database on the test PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return fresh_database(request.getfixturevalue("pg_server"))


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def all_moves(http, game_id: str) -> list[dict]:
    moves: list[dict] = []
    while True:
        page = http.get(f"/games/{game_id}/moves", params={"after": len(moves), "limit": 1000})
        assert page.status_code == 200, page.text
        if not page.json()["moves"]:
            return moves
        moves += page.json()["moves"]


def conserves_cards(position: dict) -> None:
    """from_position refuses positions whose cards do not add up to the pack (and any
    other unreachable state)."""
    from_position(position)


# ----------------------------------------------------------------------------- a real server
def test_kill_9_and_restart_lose_no_accepted_move(db):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            body = http.post("/games", json={"seats": ["human", "bot", "human", "bot"],
                                             "seed": 21}).json()
            gid, tokens = body["game_id"], body["tokens"]
            view = body["view"]
            accepted = []  # (seq, move) of every accepted human move
            for _ in range(12):
                seat = view["to_move"]
                if seat is None:
                    break
                mine = http.get(f"/games/{gid}", headers=auth(tokens[seat])).json()
                action = mine["legal_actions"][-1]["action"]
                r = http.post(f"/games/{gid}/actions", json={"action": action},
                              headers=auth(tokens[seat]))
                assert r.status_code == 200, r.text
                view, moves = r.json()["view"], r.json()["moves"]
                accepted.append((view["decisions"] - len(moves) + 1, moves[0]))
                view = http.get(f"/games/{gid}").json()
            last = http.get(f"/games/{gid}").json()
            # a game of four bots, killed while its bots play in the background
            bots = http.post("/games", json={"seats": ["bot"] * 4, "seed": 22,
                                             "auto_deal": True}).json()["game_id"]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = start_server(db, port)
        with httpx.Client(base_url=base, timeout=30) as http:
            assert http.get(f"/games/{gid}").json() == last
            log = all_moves(http, gid)
            assert len(log) == last["decisions"]
            assert [m["seq"] for m in log] == list(range(1, len(log) + 1))
            for seq, move in accepted:
                keys = ("seat", "action", "description", "words")
                assert {k: log[seq - 1][k] for k in keys} == {k: move[k] for k in keys}
            # the game goes on with the same tokens
            seat = last["to_move"]
            if seat is not None:
                mine = http.get(f"/games/{gid}", headers=auth(tokens[seat])).json()
                r = http.post(f"/games/{gid}/actions",
                              json={"action": mine["legal_actions"][0]["action"]},
                              headers=auth(tokens[seat]))
                assert r.status_code == 200, r.text
            # the bots' game is carried on by the new process and finishes
            deadline = time.time() + 120
            while (v := http.get(f"/games/{bots}").json())["status"] == "running":
                assert time.time() < deadline
                time.sleep(0.1)
            assert v["game_over"] and len(all_moves(http, bots)) == v["decisions"]
        store = GameStore(db)
        for game_id in (gid, bots):
            conserves_cards(store.load(game_id).position)
        store.close()
    finally:
        stop(proc)


def test_cli_refuses_bad_options(tmp_path):
    cases = [
        (["--max-games", "0"], "--max-games"),
        (["--idle-expiry", "-5"], "--idle-expiry"),
        (["--idle-expiry", "nan"], "--idle-expiry"),
        (["--max-decisions", "x"], "--max-decisions"),
        (["--max-body", "0"], "--max-body"),
        (["--bot-threads", "0"], "--bot-threads"),
        (["--db", ""], "--db"),
        (["--db", str(tmp_path / "missing" / "dir" / "g.sqlite3")], "cannot open database"),
        (["--db", "postgresql://nobody@127.0.0.1:1/none"], "cannot open database"),
        (["--db", "mysql+nodriver://x/y"], "cannot use database"),
    ]
    for args, needle in cases:
        r = subprocess.run([sys.executable, "-m", "canasta_env.bots.service", "--policy",
                            "heuristic", *args], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "error:" in lines[0] and needle in lines[0], (args, r.stderr)


# ----------------------------------------------------------------------------- in process
@pytest.fixture
def make_app(db):
    apps = []

    def make(**kw):
        app = create_app(kw.pop("policy", "heuristic"), db=db, **kw)
        apps.append(app)
        return app, TestClient(app)

    yield make
    for app in apps:
        app.state.service.close()


def test_a_restarted_service_continues_every_game(make_app, db):
    app, c = make_app(max_decisions=20)
    body = c.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 5}).json()
    gid, token = body["game_id"], body["tokens"][0]
    for _ in range(3):
        view = c.get(f"/games/{gid}", headers=auth(token)).json()
        if view["status"] == "running":
            time.sleep(0.05)
            continue
        r = c.post(f"/games/{gid}/actions", json={"action": view["legal_actions"][0]["action"]},
                   headers=auth(token))
        assert r.status_code == 200, r.text
    before = c.get(f"/games/{gid}", headers=auth(token)).json()
    app.state.service.close()
    app2, c2 = make_app()
    assert c2.get(f"/games/{gid}", headers=auth(token)).json()["hand"] == before["hand"]
    log = c2.get(f"/games/{gid}/moves", params={"limit": 1000}).json()
    assert log["decisions"] >= before["decisions"]


def test_tokens_are_stored_only_as_hashes(make_app, db):
    app, c = make_app()
    body = c.post("/games", json={"seats": ["human", "human", "bot", "bot"], "seed": 3}).json()
    store = app.state.service.store
    with store.engine.connect() as conn:
        stored = json.dumps([list(map(str, r)) for t in (store.games, store.moves)
                             for r in conn.execute(sqlalchemy.select(t))])
    for token in body["tokens"][:2]:
        assert len(token) >= 32 and token not in stored


def test_two_services_share_one_database_and_never_overwrite(make_app, db):
    a, ca = make_app()
    b, cb = make_app()
    body = ca.post("/games", json={"seats": ["human"] * 4, "seed": 8}).json()
    gid, tokens = body["game_id"], body["tokens"]
    seat = body["view"]["to_move"]
    r = cb.post(f"/games/{gid}/actions", json={"action": 0}, headers=auth(tokens[seat]))
    assert r.status_code == 200, r.text
    assert ca.get(f"/games/{gid}").json()["decisions"] == 1
    # two writers from the same version: the second is refused, nothing overwritten
    store = a.state.service.store
    r1, r2 = store.load(gid), store.load(gid)
    store.save(r1, r1.position, [], "waiting")
    with pytest.raises(Conflict):
        store.save(r2, r2.position, [], "waiting")


class SlowHeuristic(HeuristicPolicy):
    """The heuristic, 20 ms per decision (sleeping: other threads run meanwhile),
    counting how many decide at the same time."""

    name = "slow"

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.now = self.most = self.calls = 0

    def act(self, observation, action_mask) -> int:
        with self.lock:
            self.now += 1
            self.calls += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        try:
            return super().act(observation, action_mask)
        finally:
            with self.lock:
                self.now -= 1


def test_bots_of_different_games_decide_concurrently(tmp_path):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    service: Service = app.state.service
    slow = SlowHeuristic()
    service._bots["heuristic"] = Bot(slow)
    c = TestClient(app)
    try:
        games = [c.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": s}).json()
                 for s in range(4)]
        # a game of four slow bots plays in the background meanwhile
        t0 = time.perf_counter()
        bots = c.post("/games", json={"seats": ["bot"] * 4, "seed": 1, "auto_deal": True})
        # returns at once (the game takes about 12 s of slow decisions); generous bounds
        # for shared CI machines
        assert bots.status_code == 201 and time.perf_counter() - t0 < 3.0
        slow.most = 0
        times = []

        def move(body):
            """Seat 0 plays until its turn ends and the bots answer."""
            token = body["tokens"][0]
            view = c.get(f"/games/{body['game_id']}", headers=auth(token)).json()
            t = time.perf_counter()
            for _ in range(20):
                r = c.post(f"/games/{body['game_id']}/actions",
                           json={"action": view["legal_actions"][-1]["action"]},
                           headers=auth(token))
                assert r.status_code == 200, r.text
                view = r.json()["view"]
                if len(r.json()["moves"]) > 1:
                    break
            times.append(time.perf_counter() - t)

        threads = [threading.Thread(target=move, args=(g,)) for g in games]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(times) == 4
        assert slow.most >= 2, "bots of different games never decided at the same time"
        # reading a game whose bots are playing never waits for them
        t = time.perf_counter()
        assert c.get(f"/games/{bots.json()['game_id']}").json()["status"] == "running"
        assert time.perf_counter() - t < 3.0
    finally:
        service.close()


class Broken(HeuristicPolicy):
    name = "broken"

    def act(self, observation, action_mask) -> int:
        raise RuntimeError("the model file is corrupt")


def test_a_failing_policy_never_breaks_a_game(tmp_path):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    service: Service = app.state.service
    service._bots["heuristic"] = Bot(Broken())
    c = TestClient(app)
    try:
        body = c.post("/games", json={"seats": ["bot", "human", "bot", "bot"], "seed": 4})
        assert body.status_code == 201, body.text
        body = body.json()
        view = body["view"]
        assert view["to_move"] == 1 and body["moves"]  # the heuristic played seat 0
        r = c.post(f"/games/{body['game_id']}/actions",
                   json={"action": view["legal_actions"][0]["action"]},
                   headers=auth(body["tokens"][1]))
        assert r.status_code == 200, r.text
        conserves_cards(service.position(body["game_id"]))
    finally:
        service.close()


def test_caps_are_clear_4xx(make_app, db):
    app, c = make_app(max_decisions=10, max_body=10_000)
    # at most max_decisions bot moves per request; the rest in the background
    body = c.post("/games", json={"seats": ["bot"] * 4, "seed": 2}).json()
    assert len(body["moves"]) == 10 and body["view"]["status"] == "running"
    deadline = time.time() + 60
    while (v := c.get(f"/games/{body['game_id']}").json())["status"] == "running":
        assert time.time() < deadline
        time.sleep(0.05)
    assert v["hand_over"] and v["status"] == "waiting" and v["decisions"] > 10
    cases = [
        (lambda: c.post("/games", json={"seats": ["bot"] * 4,
                                        "rules": {"target_score": 10**9}}), 400, "target_score"),
        (lambda: c.post("/games", json={"seats": ["bot"] * 4,
                                        "starting_scores": [0, 10**9]}), 400, "starting_scores"),
        (lambda: c.post("/games", content=b" " * 20_000,
                        headers={"content-type": "application/json"}), 413, "over this server's"),
        (lambda: c.post("/games", content=iter([b" " * 6000, b" " * 6000]),
                        headers={"content-type": "application/json"}), 413, "over this server's"),
        (lambda: c.get(f"/games/{body['game_id']}/moves", params={"limit": 5000}), 400,
         "limit must be"),
    ]
    n = app.state.service.count()
    for request, status, needle in cases:
        r = request()
        assert r.status_code == status, r.text
        assert needle in r.json()["detail"]
    assert app.state.service.count() == n


def test_idle_games_expire_and_eviction_is_by_last_use(make_app, db):
    app, c = make_app(max_games=2, idle_expiry=3600)
    service = app.state.service
    first, second = (c.post("/games", json={"seats": ["human"] * 4, "seed": s}).json()
                     for s in (1, 2))
    time.sleep(0.01)
    seat = first["view"]["to_move"]
    assert c.post(f"/games/{first['game_id']}/actions", json={"action": 0},
                  headers=auth(first["tokens"][seat])).status_code == 200  # first used last
    third = c.post("/games", json={"seats": ["human"] * 4, "seed": 3}).json()
    assert c.get(f"/games/{second['game_id']}").status_code == 404
    assert c.get(f"/games/{first['game_id']}").status_code == 200
    assert service.sweep(now=time.time() + 1800) == 0
    assert service.sweep(now=time.time() + 7200) == 2
    r = c.get(f"/games/{third['game_id']}")
    assert r.status_code == 404 and "expired" in r.json()["detail"]


def test_service_arguments_are_checked(tmp_path):
    for kw in ({"max_games": 0}, {"idle_expiry": -1}, {"max_decisions": True}):
        with pytest.raises(ServiceError, match=next(iter(kw))):
            Service("heuristic", db=str(tmp_path / "g.sqlite3"), **kw)


def test_hand_and_foot_games_get_hand_and_foot_bots(make_app, db):
    app, c = make_app(policy="reference")
    body = c.post("/games", json={"seats": ["human", "bot", "bot", "bot"],
                                  "variant": "hand_and_foot", "seed": 6})
    assert body.status_code == 201, body.text
    body = body.json()
    token = body["tokens"][0]
    for _ in range(6):
        view = c.get(f"/games/{body['game_id']}", headers=auth(token)).json()
        assert view["variant"] == "hand_and_foot"
        hf = view["hand_and_foot"]
        assert len(hf["foot_sizes"]) == 4 and len(hf["books"]) == 2 and "feet" not in hf
        if view["to_move"] != 0:
            break
        r = c.post(f"/games/{body['game_id']}/actions",
                   json={"action": view["legal_actions"][0]["description"]}, headers=auth(token))
        assert r.status_code == 200, r.text
    conserves_cards(app.state.service.position(body["game_id"]))


def test_a_request_whose_bots_cannot_move_stores_nothing(tmp_path):
    """When even the heuristic fails, the request is a 500 and the stored game stays as
    it was before it (the human's move is not accepted either)."""
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    service: Service = app.state.service
    c = TestClient(app, raise_server_exceptions=False)
    try:
        body = c.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 4}).json()
        gid, token = body["game_id"], body["tokens"][0]
        service._bots["heuristic"] = service._fallback = Bot(Broken())
        n = service.count()
        assert c.post("/games", json={"seats": ["bot", "human", "bot", "bot"],
                                      "seed": 4}).status_code == 500
        assert service.count() == n
        before = service.position(gid)
        for _ in range(10):  # seat 0 plays until its turn would pass to the bots
            view = c.get(f"/games/{gid}", headers=auth(token)).json()
            r = c.post(f"/games/{gid}/actions",
                       json={"action": view["legal_actions"][-1]["action"]}, headers=auth(token))
            if r.status_code == 500:
                break
            assert r.status_code == 200, r.text
            before = service.position(gid)
        assert r.status_code == 500
        assert service.position(gid) == before
        assert c.get(f"/games/{gid}/moves").json()["decisions"] == \
            len(c.get(f"/games/{gid}/moves", params={"limit": 1000}).json()["moves"])
    finally:
        service.close()
