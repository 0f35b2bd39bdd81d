"""What the service adds for its card table page (``/``): the page itself, moves in plain
words, the cards a seat drew, hands revealed at the end of a hand, and the replay of a
game as one seat saw it; always only what that seat may see, bad requests a clear 4xx."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")

from canasta_env.bots.service import STATIC  # noqa: E402
from canasta_env.bots.table import drawn_cards, plain_words  # noqa: E402
from canasta_env.engine import SHEET_ROWS, Game, preset, to_position  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def auth(body: dict, seat: int = 0) -> dict:
    return {"Authorization": f"Bearer {body['tokens'][seat]}"}


def play_first_legal(client, body: dict) -> list[dict]:
    """Seat 0 plays its first legal move until the hand ends; returns the action results."""
    out = []
    view = body["view"]
    while not view["hand_over"]:
        action = view["legal_actions"][0]["action"]
        r = client.post(f"/games/{body['game_id']}/actions", json={"action": action},
                        headers=auth(body))
        assert r.status_code == 200, r.text
        out.append(r.json())
        view = r.json()["view"]
    return out


def test_the_page_is_served_at_the_root_for_a_browser(client):
    r = client.get("/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert '<script src="/static/app.js"' in r.text
    # JSON clients still get the index there, and at /api
    assert client.get("/").json()["docs"] == "/docs"
    assert client.get("/api").json()["table"] == "/"
    for name in ("app.js", "style.css", "index.html"):
        assert client.get(f"/static/{name}").status_code == 200
        assert (STATIC / name).is_file()
    for path in ("/static/../service.py", "/static/%2e%2e/service.py", "/static/nope.js",
                 "/static/..%2fservice.py"):
        r = client.get(path)
        assert r.status_code == 404, path


@pytest.mark.parametrize("description, words", [
    ("draw from stock", "draws from the stock"),
    ("meld 7: 2 naturals + Joker", "melds 7s: two natural 7s and a Joker"),
    ("meld A: 3 naturals", "melds As: three natural As"),
    ("add natural to 8 meld", "adds an 8 to the 8s"),
    ("add 2 to K meld", "adds a 2 to the Ks"),
    ("discard black 3", "discards a black 3"),
    ("take pile with a natural pair", "takes the discard pile with a natural pair"),
    ("meld wild cards: 2 Jokers + 1 2", "melds wild cards: 2 Jokers and a 2"),
    ("ask partner: may I go out?", "asks the partner: may I go out?"),
    ("decline the pile (end the hand)", "declines the pile: the hand ends"),
])
def test_moves_in_plain_words(description, words):
    assert plain_words(description) == words


def test_every_action_has_plain_words():
    for variant in ("classic", "hand_and_foot"):
        table = Game(preset(variant), seed=0).table
        for a in range(table.num_actions):
            d = table.describe(a)
            w = plain_words(d)
            assert w != d and w.split()[0].endswith("s"), (d, w)


def test_drawn_cards_counts_red_threes_and_duplicates():
    before = {"hands": [["5", "7"]], "red_threes": [0]}
    after = {"hands": [["5", "5", "7", "K"]], "red_threes": [1]}
    assert drawn_cards(before, after, 0) == ["red 3", "5", "K"]


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_a_hand_by_a_human_shows_drawn_cards_words_sheet_and_revealed_hands(client, variant):
    body = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 9,
                                       "variant": variant}).json()
    assert body["view"]["sheet_rows"] == list(SHEET_ROWS) and body["view"]["revealed"] is None
    assert all(m["words"] for m in body["moves"])
    results = play_first_legal(client, body)
    draws = [r for r in results if r["moves"][0]["description"] == "draw from stock"]
    assert draws and all(r["drawn"] for r in draws)
    assert all(r["drawn"] is None for r in results if r not in draws)
    # the drawn cards are in the hand right after the draw (before any meld)
    for r in draws:
        if r["view"]["current"] == 0:
            hand = list(r["view"]["hand"])
            for c in r["drawn"]:
                if c != "red 3":
                    hand.remove(c)
    view = results[-1]["view"]
    assert view["hand_over"] and view["revealed"]["hands"] == to_position_hands(client, body)
    if variant == "classic":
        assert view["revealed"]["feet"] is None
    else:
        assert len(view["revealed"]["feet"]) == 4
    log = client.get(f"/games/{body['game_id']}/moves?limit=1000").json()["moves"]
    assert all(m["words"] for m in log)


def to_position_hands(client, body):
    return client.app.state.service.position(body["game_id"])["hands"]


def test_replay_is_the_game_as_the_seat_saw_it(client):
    body = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "seed": 5}).json()
    play_first_legal(client, body)
    game_id = body["game_id"]
    client.post(f"/games/{game_id}/next_hand", headers=auth(body))
    doc = client.get(f"/games/{game_id}/replay", headers=auth(body)).json()
    assert doc["format"] == "canasta_env.replay" and doc["seat"] == 0
    log = client.get(f"/games/{game_id}/moves?limit=1000").json()["moves"]
    assert doc["moves"] == log
    assert len(doc["frames"]) == len(log) + 2  # the deal, each move, the next hand's deal
    stored = client.app.state.service.position(game_id)
    last = doc["frames"][-1]
    assert last["hand"] == stored["hands"][0] and last["hand_number"] == 1
    for i, frame in enumerate(doc["frames"][1:-1], 1):
        assert frame["step"] == i and frame["last_move"]["seq"] == i
        assert frame["moves"] == [] and "text" not in frame
        assert frame["revealed"] is None or frame["hand_over"]
        if frame["drawn"] is not None:
            assert frame["last_move"]["seat"] == 0 and frame["last_move"]["action"] == 0
    assert any(f["drawn"] for f in doc["frames"])
    assert doc["frames"][len(log)]["score_sheets"] is not None
    # the public replay: no hand, no drawn cards
    public = client.get(f"/games/{game_id}/replay").json()
    assert public["seat"] is None
    assert all(f["hand"] is None and f["drawn"] is None and f["legal_actions"] == []
               for f in public["frames"])


def test_replay_of_a_four_bot_game_matches_the_stored_game(client):
    body = client.post("/games", json={"seats": ["bot"] * 4, "seed": 8, "auto_deal": True}).json()
    deadline = time.time() + 120
    while client.get(f"/games/{body['game_id']}").json()["status"] == "running":
        assert time.time() < deadline
        time.sleep(0.05)
    doc = client.get(f"/games/{body['game_id']}/replay").json()
    stored = client.app.state.service.position(body["game_id"])
    assert doc["frames"][-1]["scores"] == stored["scores"] and doc["frames"][-1]["game_over"]
    assert len(doc["moves"]) > 100


def test_replay_bad_requests_are_clear_4xx(client):
    body = client.post("/games", json={"seats": ["human", "bot", "human", "bot"], "seed": 1}).json()
    game_id = body["game_id"]
    for path, headers, status, needle in [
            (f"/games/{game_id}/replay", {"Authorization": "Bearer forged"}, 401, "not a seat token"),
            (f"/games/{game_id}/replay?seat=2", auth(body), 403, "seat 0's"),
            (f"/games/{game_id}/replay?seat=2", {}, 401, "needs that seat's token"),
            (f"/games/{game_id}/replay?seat=7", auth(body), 422, "seat"),
            (f"/games/{game_id}/replay?seat=x", auth(body), 422, "seat"),
            ("/games/unknown/replay", {}, 404, "no game"),
    ]:
        r = client.get(path, headers=headers)
        assert r.status_code == status, (path, r.text)
        assert needle in r.json()["detail"], (path, r.json())
    # a seat's replay shows its own hand, never its partner's
    mine = client.get(f"/games/{game_id}/replay", headers=auth(body)).json()
    partner = client.get(f"/games/{game_id}/replay", headers=auth(body, 2)).json()
    stored = client.app.state.service.position(game_id)
    assert mine["frames"][-1]["hand"] == stored["hands"][0]
    assert partner["frames"][-1]["hand"] == stored["hands"][2]
    assert stored["hands"][2] != stored["hands"][0]
    assert all(f["revealed"] is None for f in mine["frames"])


def test_a_running_game_is_not_replayed(client, monkeypatch):
    body = client.post("/games", json={"seats": ["bot"] * 4, "seed": 2}).json()
    service = client.app.state.service
    row = service.store.load(body["game_id"])
    monkeypatch.setattr(service.store, "load", lambda gid: row if gid == body["game_id"] else None)
    row.status = "running"
    monkeypatch.setattr(service, "_submit", lambda gid: None)
    r = client.get(f"/games/{body['game_id']}/replay")
    assert r.status_code == 409 and "bots are playing" in r.json()["detail"]


def test_positions_replay_identically_from_the_seed():
    # the replay relies on a game being its seed, options and moves
    a, b = Game(seed=4), Game(seed=4)
    assert to_position(a) == to_position(b)
