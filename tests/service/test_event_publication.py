"""Events built where the moves are made (canasta_env.bots.events.Recording, published by the
request or the bot worker that stored them) are the events a replay of the move log builds;
bot workers in processes (--bot-processes, canasta_env.bots.service.workers) play, die and are
replaced; the pieces that keep a stream cheap (encodings, header cache, store reads)."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
httpx = pytest.importorskip("httpx")

from canasta_env.bots.events import NDJSON, SSE, Event, EventHub, Feed, Recording  # noqa: E402
from canasta_env.bots.service import Service, ServiceError  # noqa: E402
from canasta_env.bots.store import GameStore  # noqa: E402
from tests.helpers.service import free_port, start_server, stop  # noqa: E402


def read_all(base: str, game_id: str, headers: dict | None = None) -> list[dict]:
    with httpx.stream("GET", f"{base}/games/{game_id}/events",
                      headers={"Accept": NDJSON, **(headers or {})}, timeout=120) as r:
        assert r.status_code == 200, r.read()
        return [json.loads(line) for line in r.iter_lines() if line.strip()]


@pytest.mark.parametrize("processes", ["0", "1"])
@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_live_events_are_the_replay_of_the_log(tmp_path, processes, variant):
    """A four-bot game streamed while it is played (its events published by the bots
    that stored each chunk), then the same game streamed by a server started afresh on
    the database (its events replayed from the move log): the same events, byte for
    byte once parsed."""
    db = str(tmp_path / "games.sqlite3")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port, "--bot-processes", processes)
    try:
        # a first stream makes the server one that serves streams: the game below gets
        # its feed when it is created, so every event of it is published, none replayed
        warm = httpx.post(f"{base}/games", json={"seats": ["human", "bot", "bot", "bot"],
                                                 "seed": 1}).json()
        with httpx.stream("GET", f"{base}/games/{warm['game_id']}/events", timeout=30) as r:
            assert r.status_code == 200
        game = httpx.post(f"{base}/games", json={"seats": ["bot"] * 4, "seed": 17,
                                                 "auto_deal": True, "variant": variant}).json()
        live = read_all(base, game["game_id"])
    finally:
        stop(proc)
    assert live[-1]["event"] == "game_over"
    assert [e["data"]["seq"] for e in live if e["event"] == "move"] == \
        list(range(1, sum(e["event"] == "move" for e in live) + 1))
    port = free_port()
    proc = start_server(db, port)
    try:
        replayed = read_all(f"http://127.0.0.1:{port}", game["game_id"])
    finally:
        stop(proc)
    assert replayed == live


def test_a_human_game_s_published_events_are_its_replay(tmp_path):
    """Moves of a human seat, the bots' answers and next_hand's deal, published by the
    requests that stored them; each seat's own stream too."""
    db = str(tmp_path / "games.sqlite3")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    try:
        game = httpx.post(f"{base}/games", json={"seats": ["human", "bot", "bot", "bot"],
                                                 "seed": 2}).json()
        gid, token = game["game_id"], game["tokens"][0]
        auth = {"Authorization": f"Bearer {token}"}
        with httpx.stream("GET", f"{base}/games/{gid}/events", timeout=30) as r:
            assert r.status_code == 200  # the game has a feed from here on
        view = game["view"]
        for _ in range(400):
            if view["hand_over"]:
                break
            view = httpx.post(f"{base}/games/{gid}/actions", headers=auth,
                              json={"action": view["legal_actions"][0]["action"]}).json()["view"]
        assert view["hand_over"]
        assert httpx.post(f"{base}/games/{gid}/next_hand", headers=auth).status_code == 200
        live_public = read_until_second_deal(base, gid)
        live_own = read_until_second_deal(base, gid, auth)
    finally:
        stop(proc)
    port = free_port()
    proc = start_server(db, port)
    try:
        base = f"http://127.0.0.1:{port}"
        assert read_until_second_deal(base, gid) == live_public
        assert read_until_second_deal(base, gid, auth) == live_own
    finally:
        stop(proc)
    drawn = [e["data"]["drawn"] for e in live_own if e["event"] == "move"
             and e["data"]["seat"] == 0 and e["data"]["action"] == 0]
    assert drawn and all(d for d in drawn)  # the seat's own draws, on its own stream


def read_until_second_deal(base: str, gid: str, headers: dict | None = None) -> list[dict]:
    out = []
    with httpx.stream("GET", f"{base}/games/{gid}/events",
                      headers={"Accept": NDJSON, **(headers or {})}, timeout=30) as r:
        for line in r.iter_lines():
            if line.strip():
                out.append(json.loads(line))
                if sum(e["event"] == "deal" for e in out) == 2:
                    return out
    raise AssertionError("the stream ended before the second deal")


# ---------------------------------------------------------------------- bot workers
def wait_for(predicate, seconds: float = 60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("not within time")


def test_a_bot_worker_that_dies_is_replaced_and_its_game_resumes(tmp_path):
    service = Service("heuristic", db=str(tmp_path / "g.sqlite3"), bot_processes=1)
    try:
        (first,) = service._workers.pids
        os.kill(first, signal.SIGSTOP)  # it cannot play until it is killed
        gid = service.create(["bot"] * 4, seed=5, auto_deal=True)["game_id"]
        os.kill(first, signal.SIGKILL)
        (second,) = wait_for(lambda: [p for p in service._workers.pids if p != first])
        assert service.view(gid)["status"] in ("running", "over")  # resubmitted here
        view = wait_for(lambda: (v := service.view(gid))["status"] == "over" and v)
        assert view["decisions"] > 100 and view["winner"] in (-1, 0, 1)
        assert service._workers.pids == [second]
    finally:
        service.close()
    assert wait_for(lambda: _gone(second), 20)  # close() ends the workers


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie waits for its parent only
        return f.read().split()[2] == "Z"


def test_a_bot_worker_that_cannot_start_is_one_error(tmp_path, monkeypatch):
    import canasta_env.bots.service.workers as workers

    monkeypatch.setattr(workers, "_ENTRY", "import sys; sys.exit(3)")
    with pytest.raises(ServiceError) as e:
        Service("heuristic", db=str(tmp_path / "g.sqlite3"), bot_processes=1)
    assert e.value.status == 400
    assert "a bot worker could not start: it exited with code 3" in e.value.message


@pytest.mark.parametrize("value", [-1, 17, True, 1.0, "1"])
def test_bot_processes_out_of_range_are_refused(tmp_path, value):
    with pytest.raises(ServiceError) as e:
        Service("heuristic", db=str(tmp_path / "g.sqlite3"), bot_processes=value)
    assert e.value.status == 400 and "bot_processes must be an int in 0..16" in e.value.message
    assert not (tmp_path / "g.sqlite3").exists()  # refused before the database is made


# ---------------------------------------------------------------------- the pieces
def test_publish_needs_the_feed_at_the_version_it_follows():
    """Events are appended only to a feed exactly at the state they follow; otherwise
    the pump is poked to read the log (nothing repeated, nothing skipped)."""
    from canasta_env.engine import Game, preset

    hub = EventHub(store=None)
    poked = []
    hub.poke = poked.append
    feed = hub._feeds["g"] = Feed("g")
    feed.ready, feed.version, feed.seq = True, 4, 10
    game = Game(preset("classic"), seed=1)
    rec = Recording(10)
    snap = rec.before(game, game.to_move)
    move = {"seat": game.to_move, "action": 0, "description": "draw from stock",
            "hand_number": 0}
    game.apply(0)
    rec.moved(game, move, snap)
    move["at"] = 123.5  # what the store gives it
    hub.publish("g", rec, 6, {})  # the feed is at version 4, the save made 6
    assert poked == ["g"] and feed.events == []
    hub.publish("g", rec, 5, {"position": 1})
    assert poked == ["g"] and feed.seq == 11 and feed.version == 5
    assert [(e.kind, e.seq, e.k) for e in feed.events][:1] == [("move", 11, 0)]
    assert feed.events[0].public["at"] == 123.5 and feed.game is None
    assert feed.position == {"position": 1}  # the replica, when needed, starts here
    hub.publish("g", None, 6, {})  # no recording: the log is read
    assert poked == ["g", "g"]


def test_an_event_is_encoded_once_per_format_and_per_own_seat():
    e = Event("move", {"seq": 3, "drawn": None}, 3, 0, {1: {"drawn": ["7"]}})
    public = e.encode(None, NDJSON)
    assert json.loads(public) == {"id": "3", "event": "move",
                                  "data": {"seq": 3, "drawn": None}}
    assert e.encode(0, NDJSON) is public and e.encode(2, NDJSON) is public
    own = e.encode(1, NDJSON)
    assert json.loads(own)["data"]["drawn"] == ["7"] and e.encode(1, NDJSON) is own
    assert e.encode(None, SSE) == b'id: 3\nevent: move\ndata: {"seq":3,"drawn":null}\n\n'
    feed = Feed("g")
    feed.events = [e, Event("turn", {"seat": 1}, 3, 1)]
    chunk = feed.chunk(0, 2, None, NDJSON)
    assert feed.chunk(0, 2, None, NDJSON) is chunk and chunk.count(b"\n") == 2


def test_a_row_without_its_position(tmp_path):
    service = Service("heuristic", db=str(tmp_path / "g.sqlite3"))
    try:
        gid = service.create(["human", "bot", "human", "bot"], seed=3)["game_id"]
        store: GameStore = service.store
        full, light = store.load(gid), store.load(gid, position=False)
        assert light.position == {} and full.position["seed"] == 3
        assert {**vars(light), "position": None} == {**vars(full), "position": None}
        assert store.load("nope", position=False) is None
    finally:
        service.close()


def _bot_moves(tmp_path, processes: int, policy: str) -> list[int]:
    """The first 300 actions of a four-bot Hand and Foot game (seed 9) played by
    ``policy`` with ``processes`` bot worker processes."""
    service = Service("heuristic", db=str(tmp_path / f"{processes}{policy}.sqlite3"),
                      bot_processes=processes)
    try:
        gid = service.create(["bot"] * 4, variant="hand_and_foot", seed=9, auto_deal=True,
                             bot_policy=policy)["game_id"]
        wait_for(lambda: service.view(gid)["decisions"] >= 300, 120)
        return [m["action"] for m in service.moves(gid, limit=300)["moves"]]
    finally:
        service.close()


def test_bot_workers_play_the_policy_of_the_game_s_variant(tmp_path):
    """A bot worker process plays a game of Hand and Foot with that variant's policy of
    the level (``hard``: Hand and Foot's apprentice network, Classic's reference): the same
    moves as the server's own threads, and not the heuristic's."""
    in_process = _bot_moves(tmp_path, 0, "hard")
    assert _bot_moves(tmp_path, 1, "hard") == in_process
    assert _bot_moves(tmp_path, 1, "heuristic") != in_process
