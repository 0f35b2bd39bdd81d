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
                          ("hard", "apprentice"), ("expert", "reference")]}
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
    """``/move`` with a level plays the variant's policy of it: Classic's ``hard`` is the
    reference; in Hand and Foot, at a position where the two networks differ, ``hard`` is
    the apprentice's move and ``expert`` the reference's."""
    game = Game(preset("classic"), seed=8)
    for _ in range(5):
        game.apply(game.legal_actions()[0])
    pos = to_position(game)
    seat = from_position(pos).to_move
    r = client.post("/move", json={"position": pos, "seat": seat, "policy": "hard"})
    assert r.status_code == 200, r.text
    assert r.json()["action"] == Bot("reference").choose(pos, seat)["action"]
    apprentice = Bot("apprentice", variant="hand_and_foot")
    reference = Bot("reference", variant="hand_and_foot")
    game = Game(preset("hand_and_foot"), seed=4)
    while apprentice.act(game) == reference.act(game):  # the reference's moves till they part
        game.apply(reference.act(game))
    pos = to_position(game)
    seat = from_position(pos).to_move
    moves = {level: client.post("/move", json={"position": pos, "seat": seat,
                                               "policy": level}).json()["action"]
             for level in ("hard", "expert")}
    assert moves == {"hard": apprentice.choose(pos, seat)["action"],
                     "expert": reference.choose(pos, seat)["action"]}
    assert moves["hard"] != moves["expert"]


@pytest.mark.parametrize("body, needle", [
    ({"seats": ["human", "bot", "bot", "bot"], "bot_policy": "legendary"},
     "bot policy 'legendary' is not offered by this server: use one of heuristic, random, "
     "reference, search, search_reference, easy, medium, hard, expert"),
    # Hand and Foot's apprentice plays as its level "hard", not by a name of its own here
    ({"seats": ["human", "bot", "bot", "bot"], "bot_policy": "apprentice",
      "variant": "hand_and_foot"}, "bot policy 'apprentice' is not offered by this server"),
])
def test_unknown_levels_and_policies_are_clear_400s(client, body, needle):
    r = client.post("/games", json=body)
    assert r.status_code == 400, r.text
    assert needle in r.json()["detail"]


def test_a_missing_level_is_a_clear_400(tmp_path, hf_expert_missing):
    """A level with no policy for the variant (none is missing now) is refused naming it
    (a server of its own: the module's server keeps the bots it has loaded)."""
    from canasta_env.bots.service import Service, ServiceError

    service = Service("heuristic", db=str(tmp_path / "g.sqlite3"))
    try:
        with pytest.raises(ServiceError) as e:
            service.create(["human", "bot", "bot", "bot"], variant="hand_and_foot",
                           bot_policy="expert")
    finally:
        service.close()
    assert e.value.status == 400
    assert e.value.message.startswith(f"bot policy 'expert' cannot play this game: level "
                                      f"'expert' is {hf_expert_missing}")
