"""The service offers the difficulty levels (canasta_env/bots/levels.py) as policy names:
the index lists them per variant, the OpenAPI schema names them, a game's bots play the
variant's policy of the level, and an unknown or missing level is a clear 400."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the service extra is part of the test install")
pytest.importorskip("httpx")

from canasta_env.bots import Bot  # noqa: E402
from canasta_env.bots.levels import LEVEL_NAMES  # noqa: E402
from canasta_env.bots.service import BUILTIN_POLICIES  # noqa: E402
from canasta_env.engine import Game, from_position, preset, to_position  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_index_and_schema_list_the_levels(client):
    assert BUILTIN_POLICIES == ("heuristic", "random", "reference", "search",
                                "search_reference", "easy", "medium", "hard", "expert")
    index = client.get("/api").json()
    assert index["policies"] == sorted(BUILTIN_POLICIES)
    assert {v: [(d["level"], d["policy"]) for d in rows]
            for v, rows in index["levels"].items()} == {
        "classic": [("easy", "epsilon-heuristic:0.35"), ("medium", "heuristic"),
                    ("hard", "reference"), ("expert", "search_reference")],
        "hand_and_foot": [("easy", "epsilon-heuristic:0.35"), ("medium", "heuristic"),
                          ("hard", "reference"), ("expert", None)]}
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for model, field in (("NewGame", "bot_policy"), ("PositionRequest", "policy")):
        prop = schemas[model]["properties"][field]
        assert prop["examples"] == list(BUILTIN_POLICIES)
        assert all(f"'{n}'" in prop["description"] for n in LEVEL_NAMES)
    assert {"level", "policy", "description"} <= set(schemas["LevelInfo"]["properties"])


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_a_game_against_a_level(client, variant):
    r = client.post("/games", json={"seats": ["human", "bot", "human", "bot"],
                                    "variant": variant, "bot_policy": "Hard", "seed": 3})
    assert r.status_code == 201, r.text
    assert r.json()["bot_policy"] == "hard"


def test_stateless_move_with_a_level_is_that_levels_move(client):
    for variant in ("classic", "hand_and_foot"):
        game = Game(preset(variant), seed=8)
        for _ in range(5):
            game.apply(game.legal_actions()[0])
        pos = to_position(game)
        seat = from_position(pos).to_move
        r = client.post("/move", json={"position": pos, "seat": seat, "policy": "hard"})
        assert r.status_code == 200, r.text
        assert r.json()["action"] == Bot("reference").choose(pos, seat)["action"]


@pytest.mark.parametrize("body, needle", [
    ({"seats": ["human", "bot", "bot", "bot"], "bot_policy": "legendary"},
     "bot policy 'legendary' is not offered by this server: use one of heuristic, random, "
     "reference, search, search_reference, easy, medium, hard, expert"),
    ({"seats": ["human", "bot", "bot", "bot"], "bot_policy": "expert",
      "variant": "hand_and_foot"},
     "bot policy 'expert' cannot play this game: level 'expert' is missing"),
])
def test_unknown_or_missing_levels_are_clear_400s(client, body, needle):
    r = client.post("/games", json=body)
    assert r.status_code == 400, r.text
    assert needle in r.json()["detail"]
