"""A seat's view carries ``drawn``: the cards it drew from the stock on the turn under way,
the same as the action result gave, in every hand of a Classic game and every round of Hand
and Foot, and null once the turn passed (canasta_env.bots.table.turn_drawn)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")

from canasta_env.bots.service import create_app  # noqa: E402
from canasta_env.bots.table import turn_drawn  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _play(client, variant: str, seed: int, hands: int) -> int:
    """Seat 0 (human) plays its first legal action each time, for ``hands`` hands;
    returns how many of its stock draws were checked."""
    r = client.post("/games", json={"seats": ["human", "bot", "bot", "bot"], "variant": variant,
                                    "seed": seed, "bot_policy": "heuristic"})
    assert r.status_code == 201, r.text
    gid, token = r.json()["game_id"], r.json()["tokens"][0]
    auth = {"Authorization": f"Bearer {token}"}
    checked = played = 0
    view = client.get(f"/games/{gid}", headers=auth).json()
    while played < hands and not view["game_over"]:
        if view["hand_over"]:
            played += 1
            view = client.post(f"/games/{gid}/next_hand", headers=auth).json()["view"]
            continue
        assert view["drawn"] is None  # a new turn of seat 0: nothing drawn yet
        drawn = None
        while view["to_move"] == 0 and not view["hand_over"]:
            action = view["legal_actions"][0]["action"]
            res = client.post(f"/games/{gid}/actions", json={"action": action}, headers=auth).json()
            if res["drawn"] is not None:
                drawn = res["drawn"]
            if any(m["seat"] != 0 for m in res["moves"]):
                drawn = None  # the turn passed (the bots moved); seat 0 may be on turn again
            view = res["view"]
            if view["to_move"] == 0 and not view["hand_over"]:
                again = client.get(f"/games/{gid}", headers=auth).json()  # a reload
                assert again["drawn"] == view["drawn"] == drawn
                if drawn is not None:
                    checked += 1
        assert view["drawn"] is None  # the turn passed
        public = client.get(f"/games/{gid}").json()
        assert public["drawn"] is None
    return checked


@pytest.mark.parametrize("variant,seed,hands", [("classic", 2, 2), ("hand_and_foot", 5, 2)])
def test_view_keeps_the_drawn_cards_for_the_turn(tmp_path, variant, seed, hands):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    try:
        with TestClient(app) as client:
            assert _play(client, variant, seed, hands) >= 5
    finally:
        app.state.service.close()


def test_turn_drawn_refuses_a_hand_that_does_not_replay(tmp_path):
    app = create_app("heuristic", db=str(tmp_path / "g.sqlite3"))
    try:
        service = app.state.service
        created = service.create(["human", "bot", "bot", "bot"], seed=2)
        gid, token = created["game_id"], created["tokens"][0]
        while service.view(gid, token)["to_move"] != 0:
            raise AssertionError("seed 2 gives seat 0 the first turn after the bots")
        service.act(gid, token, None, 0)
        pos = service.position(gid)
        assert turn_drawn(pos, 0) == service.view(gid, token)["drawn"] != []
        assert turn_drawn(pos, 1) is None and turn_drawn(pos, None) is None
        pos["hands"][0] = list(reversed(pos["hands"][0]))[:-1]  # not what the deal gives
        assert turn_drawn(pos, 0) is None
    finally:
        service.close()
