"""The JSON position format (docs/RULES.md §7 "Positions": any position can be saved to and
loaded from a documented JSON format): round trips mid-turn, and clear PositionErrors for
malformed positions."""

import copy
import json

import pytest
from engine_helpers import build, meld, play

from canasta_env.engine import Game, Phase, PositionError, from_position, to_position

BASE = to_position(Game(seed=1, dealer=0))


def broken(change):
    d = copy.deepcopy(BASE)
    change(d)
    return d


def test_base_position_is_valid_and_round_trips():
    g = from_position(copy.deepcopy(BASE))
    assert to_position(g) == BASE
    assert json.loads(g.to_json()) == BASE
    assert BASE["format"] == "canasta_env/position" and BASE["version"] == 1


def _move_red_three_to_hand(d):
    d["stock"].remove("red 3")
    d["hands"][2].append("red 3")


@pytest.mark.parametrize("change,message", [
    (lambda d: d.pop("hands"), "position is missing 'hands'"),
    (lambda d: d.pop("stock"), "position is missing 'stock'"),
    (lambda d: d.pop("options"), "position is missing 'options'"),
    (lambda d: d["hands"][0].append("Z"), "hands[0]: unknown card 'Z'"),
    (lambda d: d["pile"].append("11"), "pile: unknown card '11'"),
    (lambda d: d["stock"].remove("K"),
     "cards do not add up to the pack (extra +, missing -): {'K': -1}"),
    (lambda d: d["hands"][1].append("Joker"),
     "cards do not add up to the pack (extra +, missing -): {'Joker': 1}"),
    (_move_red_three_to_hand, "a red 3 may never be held in a hand"),
    (lambda d: d.update(version=2), "not a canasta_env/position v1 position"),
    (lambda d: d.update(phase="LUNCH"), "unknown phase 'LUNCH'"),
    (lambda d: d.update(current=4), "current and dealer must be seats 0..3"),
    (lambda d: d["options"].update(colour="red"), "bad options: unknown rules option(s) ['colour']"),
    (lambda d: d["options"].update(decks=0), "bad options: decks must be in 1..8"),
    (lambda d: d["turn"].pop("asked"), "bad turn record: KeyError('asked')"),
    (lambda d: d["melds"][0].update(K={"naturals": 1, "jokers": 2, "twos": 0}),
     "melds[0]['K'] is not a legal meld: 1 naturals, 2 jokers, 0 twos"),
    (lambda d: d["melds"][0].update(K={"naturals": 3, "jokers": 2, "twos": 2}),
     "melds[0]['K'] is not a legal meld: 3 naturals, 2 jokers, 2 twos"),
    (lambda d: d["melds"][1].update(Joker={"naturals": 3, "jokers": 0, "twos": 0}),
     "melds[1]: 'Joker' is not a meld rank"),
    (lambda d: d["known"][0].append("Q"), "known[0] lists cards seat 0 does not hold"),
    (lambda d: d.update(hands="x"), "position field 'hands' must be"),
    (lambda d: d.update(scores=[1]), "scores must be two ints, got [1]"),
    (lambda d: d.update(red_threes=[0, 0, 0]), "red_threes must have 4 entries"),
    (lambda d: d.update(red_threes=["a", 0, 0, 0]), "red_threes must be 4 counts in 0..456"),
    (lambda d: d.update(opened=[True]), "opened must be 2 bools"),
    (lambda d: d.update(minimum=[50]), "minimum must be 2 ints"),
    (lambda d: d.update(sheets=[{}]), "bad score sheets"),
    (lambda d: d.update(phase="PICKUP"), "phase PICKUP needs the pile-take meld"),
])
def test_malformed_positions_raise_clear_errors(change, message):
    with pytest.raises(PositionError) as e:
        from_position(broken(change))
    assert message in str(e.value)


def test_not_json_and_not_an_object():
    with pytest.raises(PositionError, match="position is not valid JSON"):
        Game.from_json("{nope")
    with pytest.raises(PositionError, match="a position must be a JSON object, got list"):
        Game.from_json("[1, 2]")


def test_position_with_no_legal_action_is_rejected():
    # seat 1 (on turn) in phase MELD with an empty hand: nothing to meld or discard
    d = broken(lambda d: None)
    assert d["current"] == 1
    d["stock"].extend(d["hands"][1])
    d["hands"][1] = []
    d["phase"] = "MELD"
    with pytest.raises(PositionError, match="seat 1 is on turn with an empty hand"):
        from_position(d)


def test_mid_turn_positions_round_trip_in_every_phase():
    # PICKUP
    g = build(hands=("K K 4 4 4 4 9 10 J Q 5", "5 5 5 6 6 6 7 7 7 8 8",
                     "8 8 9 9 9 10 10 10 J J J", "Q Q Q A A 5 6 7 9 9 9"), pile="A A 8 K")
    play(g, "take pile with a natural pair")
    # ANSWER
    h = build(hands=("Q Q Q 5", "5 5 6 6 6 7 7 7 8 8", "8 8 9 9 9 10 10 10 J J J",
                     "10 J 5 6 7 9 9 9 A A A"), melds=({"K": meld(7)}, {}), pile="J",
              phase="MELD", turn={"drew_stock": True})
    play(h, "ask partner: may I go out?")
    for game, phase in ((g, Phase.PICKUP), (h, Phase.ANSWER)):
        assert game.phase == phase
        back = Game.from_json(game.to_json())
        assert to_position(back) == to_position(game)
        assert back.legal_actions() == game.legal_actions()
        assert back.to_move == game.to_move
        c = game.clone()
        c.apply(c.legal_actions()[0])
        assert to_position(game) != to_position(c)  # the clone is independent
    assert Game.from_json(h.to_json()).to_move == 2
