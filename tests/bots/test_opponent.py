"""canasta_env.bots.Bot: decisions from JSON positions, whole turns, validation of seats
and positions, the reference / heuristic / random / checkpoint policies."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from canasta_env.bots import Bot, NotOnTurnError, PolicySpecError, loader
from canasta_env.engine import (
    NUM_ACTIONS,
    Game,
    Phase,
    PositionError,
    actions,
    describe,
    from_position,
    to_position,
)
from canasta_env.observation import encode
from canasta_env.policies import HeuristicPolicy
from tests.helpers.opponent import heuristic_positions, smoke_checkpoint


@pytest.fixture(scope="module")
def positions():
    return heuristic_positions(seed=11) + heuristic_positions(seed=12, every=5)


@pytest.fixture(scope="module")
def heuristic():
    return Bot("heuristic")


def answer_position() -> dict:
    """A position where the partner must answer "may I go out?" (found by seeded random
    play: the first time asking is legal, the player asks)."""
    rng = np.random.default_rng(0)
    for seed in range(100):
        g = Game(seed=seed)
        while not g.hand_over:
            legal = g.legal_actions()
            if actions.ASK_PARTNER in legal:
                g.apply(actions.ASK_PARTNER)
                assert g.phase == Phase.ANSWER
                return to_position(g)
            g.apply(int(rng.choice(legal)))
    raise AssertionError("no position with a legal ASK_PARTNER in 100 random hands")


# ----------------------------------------------------------------------------- choose
def test_choose_is_the_policy_move_and_leaves_the_position_alone(heuristic, positions):
    pol = HeuristicPolicy()
    for pos in positions:
        before = copy.deepcopy(pos)
        game = from_position(pos)
        seat = game.to_move
        move = heuristic.choose(pos, seat)
        assert pos == before
        assert set(move) == {"action", "description"}
        assert move["action"] in game.legal_actions()
        assert move["description"] == describe(move["action"])
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        assert move["action"] == pol.act(encode(game, seat), mask)


def test_random_bot_picks_legal_moves(positions):
    bot = Bot("random")
    for pos in positions:
        game = from_position(pos)
        assert bot.choose(pos, game.to_move)["action"] in game.legal_actions()


def test_choose_rejects_a_seat_not_on_turn(heuristic, positions):
    pos = positions[3]
    on_turn = from_position(pos).to_move
    for seat in range(4):
        if seat == on_turn:
            continue
        with pytest.raises(NotOnTurnError, match=f"seat {seat} is not on turn; seat {on_turn}"):
            heuristic.choose(pos, seat)
    assert issubclass(NotOnTurnError, ValueError)


@pytest.mark.parametrize("seat", [4, -1, "1", 1.0, True, None])
def test_choose_rejects_a_bad_seat(heuristic, positions, seat):
    with pytest.raises(ValueError, match="seat must be an int 0..3"):
        heuristic.choose(positions[0], seat)


def _broken(pos: dict, how: str):
    p = copy.deepcopy(pos)
    if how == "not a dict":
        return "position"
    if how == "missing hands":
        del p["hands"]
    elif how == "unknown card":
        p["hands"][0][0] = "11"
    elif how == "extra card":
        p["hands"][0].append("A")
    elif how == "bad phase":
        p["phase"] = "SHUFFLE"
    elif how == "wrong format":
        p["format"] = "chess"
    elif how == "list as a card":
        p["hands"][0][0] = ["A"]
    elif how == "object as a card":
        p["stock"][0] = {"card": "A"}
    elif how == "turn of the wrong type":
        p["turn"]["pending"] = True
    return p


@pytest.mark.parametrize("how", ["not a dict", "missing hands", "unknown card", "extra card",
                                 "bad phase", "wrong format", "list as a card",
                                 "object as a card", "turn of the wrong type"])
def test_choose_rejects_a_malformed_position(heuristic, positions, how):
    pos = positions[2]
    with pytest.raises(PositionError):
        heuristic.choose(_broken(pos, how), from_position(pos).to_move)
    assert issubclass(PositionError, ValueError)


def test_choose_after_the_hand_is_over(heuristic):
    game = Game(seed=5)
    pol = HeuristicPolicy()
    while not game.hand_over:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        game.apply(pol.act(encode(game, game.to_move), mask))
    with pytest.raises(NotOnTurnError, match="hand is over"):
        heuristic.choose(to_position(game), 0)


# ----------------------------------------------------------------------------- play_turn
def test_play_turn_plays_the_whole_turn(heuristic, positions):
    for pos in positions:
        seat = from_position(pos).to_move
        new, moves = heuristic.play_turn(pos, seat)
        assert moves and all(m["seat"] == seat for m in moves)
        assert all(m["description"] == describe(m["action"]) for m in moves)
        after = from_position(new)
        assert after.hand_over or after.to_move != seat
        # the moves replayed on the old position give the new one
        replay = from_position(pos)
        for m in moves:
            replay.apply(m["action"])
        assert to_position(replay) == new
        if not after.hand_over and after.phase != Phase.ANSWER:
            assert moves[-1]["description"].startswith("discard")


def test_bots_play_a_hand_turn_by_turn(heuristic):
    pos = to_position(Game(seed=21))
    turns = 0
    while from_position(pos).to_move is not None:
        seat = from_position(pos).to_move
        pos, moves = heuristic.play_turn(pos, seat)
        turns += 1
        assert turns < 500
    assert pos["phase"] in ("HAND_OVER", "GAME_OVER") and pos["sheets"] is not None


def test_partner_answers_and_asker_continues(heuristic):
    pos = answer_position()
    game = from_position(pos)
    asker = game.current
    partner = (asker + 2) % 4
    assert game.to_move == partner
    with pytest.raises(NotOnTurnError):
        heuristic.choose(pos, asker)
    new, moves = heuristic.play_turn(pos, partner)
    assert len(moves) == 1 and moves[0]["description"] in ("answer yes", "answer no")
    assert from_position(new).to_move == asker
    # the asker's turn then runs to its end
    new2, moves2 = heuristic.play_turn(new, asker)
    after = from_position(new2)
    assert after.hand_over or after.to_move == (asker + 1) % 4


# ----------------------------------------------------------------------------- policies
def test_reference_policy_missing_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(loader, "REFERENCE_ONNX", tmp_path / "reference" / "classic.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", tmp_path / "reference" / "classic.zip")
    with pytest.raises(PolicySpecError, match=r"reference policy is not available.*does not "
                                              r"exist.*heuristic"):
        Bot("reference")
    with pytest.raises(PolicySpecError, match="reference"):
        Bot()  # the default policy is the reference policy


@pytest.mark.parametrize("spec", ["", "  ", "no_such_policy", "missing/model.zip",
                                  "missing/model.onnx"])
def test_unknown_policy_spec(spec):
    with pytest.raises(PolicySpecError):
        Bot(spec)


def test_any_object_with_act_is_a_policy(positions):
    class First:
        name = "first"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    bot = Bot(First())
    pos = positions[1]
    assert bot.choose(pos, from_position(pos).to_move)["action"] == \
        from_position(pos).legal_actions()[0]
    with pytest.raises(PolicySpecError):
        Bot(42)


def test_checkpoint_and_reference_policies(tmp_path_factory, monkeypatch, positions):
    pytest.importorskip("sb3_contrib")
    from training.checkpoint import CheckpointPolicy

    ck = smoke_checkpoint(tmp_path_factory)
    bot = Bot(str(ck))
    torch_policy = CheckpointPolicy(ck)
    for pos in positions[:20]:
        game = from_position(pos)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        want = torch_policy.act(encode(game, game.to_move), mask)
        assert bot.choose(pos, game.to_move)["action"] == want
    # without a usable .onnx, "reference" loads whatever sits at REFERENCE_CHECKPOINT
    monkeypatch.setattr(loader, "REFERENCE_ONNX", ck.parent / "missing.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", ck)
    ref = Bot("reference")
    pos = positions[0]
    assert ref.choose(pos, from_position(pos).to_move) == bot.choose(pos, from_position(pos).to_move)
    new, moves = ref.play_turn(pos, from_position(pos).to_move)
    assert moves and from_position(new)
