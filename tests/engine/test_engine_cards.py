"""Card values (docs/RULES.md §1.1), deck composition (docs/RULES.md §2.2), the action
table (docs/RULES.md §5) and the engine's independence from PettingZoo / Gymnasium / torch."""

import subprocess
import sys

import pytest

from canasta_env.engine import Game, IllegalActionError, actions
from canasta_env.engine import cards as C
from tests.helpers.engine import build, total_cards


def test_card_values_match_spec_table():
    expected = {"Joker": 50, "2": 20, "A": 20, "K": 10, "Q": 10, "J": 10, "10": 10,
                "9": 10, "8": 10, "7": 5, "6": 5, "5": 5, "4": 5, "black 3": 5, "red 3": 0}
    assert {C.CLASS_NAMES[c]: C.CARD_POINTS[c] for c in range(C.NUM_CLASSES)} == expected


def test_wild_and_natural_classes():
    assert [C.CLASS_NAMES[c] for c in range(C.NUM_CLASSES) if C.is_wild(c)] == ["Joker", "2"]
    assert C.is_natural(C.BLACK_THREE) and C.is_natural(C.RED_THREE)
    assert C.is_natural(C.ACE) and not C.is_wild(C.ACE)
    assert [C.CLASS_NAMES[r] for r in C.MELD_RANKS] == \
        ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert C.RED_THREE not in C.DISCARDABLE and len(C.DISCARDABLE) == 14


def test_hand_points():
    counts = C.names_to_counts(["Joker", "2", "A", "K", "7", "black 3", "red 3"])
    assert C.hand_points(counts) == 50 + 20 + 20 + 10 + 5 + 5 + 0
    with pytest.raises(ValueError, match="unknown card 'Z'"):
        C.names_to_counts(["Z"])


def test_deck_composition_108_cards():
    pack = C.deck_counts(2, 4)
    assert sum(pack) == 108
    assert pack[C.JOKER] == 4
    assert pack[C.TWO] == 8
    assert pack[C.BLACK_THREE] == 4
    assert pack[C.RED_THREE] == 4
    for r in C.MELD_RANKS:
        assert pack[r] == 8


@pytest.mark.parametrize("seed", [0, 1, 7, 2024])
def test_fresh_deal_holds_the_whole_pack(seed):
    g = Game(seed=seed)
    assert total_cards(g) == C.deck_counts(2, 4)
    assert sum(total_cards(g)) == 108


def test_every_description_parses_back_to_its_id():
    seen = set()
    for a in range(actions.NUM_ACTIONS):
        d = actions.describe(a)
        assert actions.parse(d) == a
        assert actions.parse("  " + d.upper() + " ") == a
        seen.add(d)
    assert len(seen) == actions.NUM_ACTIONS


def test_action_table_layout():
    assert actions.NUM_ACTIONS == 6 + 33 + 33 + 1 + 2 + 1 + 1 + 14 == 91
    assert actions.describe(actions.DRAW_STOCK) == "draw from stock"
    assert actions.describe(actions.start_meld(C.KING, 0)) == "meld K: 3 naturals"
    assert actions.describe(actions.start_meld(C.FOUR, 1)) == "meld 4: 2 naturals + Joker"
    assert actions.describe(actions.start_meld(C.ACE, 2)) == "meld A: 2 naturals + 2"
    assert actions.describe(actions.add_to_meld(C.TEN, 0)) == "add natural to 10 meld"
    assert actions.describe(actions.add_to_meld(C.TEN, 1)) == "add Joker to 10 meld"
    assert actions.describe(actions.add_to_meld(C.TEN, 2)) == "add 2 to 10 meld"
    assert actions.describe(actions.discard(C.JOKER)) == "discard Joker"
    assert actions.describe(actions.discard(C.BLACK_THREE)) == "discard black 3"
    assert actions.parse("take pile with a natural pair") == actions.TAKE_PAIR
    assert actions.parse("ask partner: may I go out?") == actions.ASK_PARTNER


def test_describe_and_parse_reject_unknowns():
    with pytest.raises(ValueError, match="outside 0..90"):
        actions.describe(91)
    with pytest.raises(ValueError, match="outside"):
        actions.describe(-1)
    with pytest.raises(ValueError, match="no action is described as 'fly away'"):
        actions.parse("fly away")


def test_describe_takes_numpy_ids_and_refuses_what_is_not_an_int():
    """Ids from ``np.flatnonzero(mask)`` are numpy integers: described like ints (they
    were refused as "outside 0..90", found by a review); bools, floats and strings are
    not ids, in both the Classic and the Hand and Foot table."""
    import numpy as np

    from canasta_env.engine import preset
    from canasta_env.engine.actions import table

    mask = np.zeros(actions.NUM_ACTIONS, np.int8)
    mask[actions.add_to_meld(C.TEN, 0)] = 1
    assert actions.describe(np.flatnonzero(mask)[0]) == "add natural to 10 meld"
    hf = table(preset("hand_and_foot"))
    assert hf.describe(np.int32(hf.num_actions - 1)) == hf.descriptions[-1]
    for bad in (True, np.True_, 57.0, np.float32(3), "3", None):
        for describe in (actions.describe, hf.describe):
            with pytest.raises(ValueError, match="action id must be an int, got"):
                describe(bad)
    with pytest.raises(ValueError, match=r"action id np.int64\(91\) is outside 0..90"):
        actions.describe(np.int64(91))


def test_illegal_action_error_names_the_action():
    g = build(hands=("K K K 5 6 7 8 9 10 J Q", "4 4 4 5 5 5 6 6 6 7 7",
                     "8 8 8 9 9 9 10 10 10 J J", "Q Q Q A A A 4 4 5 6 7"),
              pile="9", current=0)
    meld_k = actions.start_meld(C.KING, 0)
    with pytest.raises(IllegalActionError) as e:
        g.apply(meld_k)
    msg = str(e.value)
    assert f"illegal action {meld_k} ('meld K: 3 naturals')" in msg
    assert "seat 0" in msg and "phase DRAW" in msg
    assert "must first draw" in msg
    with pytest.raises(IllegalActionError, match=r"'take pile with a natural pair'"):
        g.apply(actions.TAKE_PAIR)
    with pytest.raises(IllegalActionError, match="outside 0..90"):
        g.apply(500)
    with pytest.raises(IllegalActionError, match="must be an int id"):
        g.apply("draw")
    g.apply(actions.DRAW_STOCK)
    with pytest.raises(IllegalActionError, match="'draw from stock'.*already drawn"):
        g.apply(actions.DRAW_STOCK)


def test_engine_imports_no_rl_frameworks():
    code = ("import canasta_env.engine, sys; assert not any(m.split('.')[0] in "
            "('pettingzoo','gymnasium','torch') for m in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
