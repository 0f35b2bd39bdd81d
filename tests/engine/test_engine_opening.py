"""Opening minimum (docs/RULES.md §2.8: the deal sheet's table by score, and the score
sheet's "opening points are not your score"; pile openings §2.10): thresholds by cumulative
score, several melds add up, only cards laid that turn, red 3s never count, pile openings
count the top card and hand cards only and the pile waits (phase PICKUP) until the minimum
is met, and an opening that cannot be completed is never offered."""

import pytest

from canasta_env.engine import Game, Phase, classic, to_position
from tests.helpers.engine import build, cards, legal_names, meld, play

S1 = "5 5 5 6 6 6 7 7 7 8 8"
S2 = "8 8 9 9 9 10 10 10 J J J"
S3 = "Q Q Q A A 5 6 7 9 9 9"


@pytest.mark.parametrize("score,minimum", [
    (-5000, 15), (-5, 15), (0, 50), (5, 50), (1495, 50), (1500, 90), (2995, 90),
    (3000, 120), (4995, 120)])
def test_minimum_by_cumulative_score(score, minimum):
    assert classic().opening_minimum(score) == minimum
    g = Game(seed=3, scores=(score, 0))
    assert g.minimum == [minimum, 50]
    g = Game(seed=3, scores=(0, score))
    assert g.minimum == [50, minimum]


# (hand whose best opening is exactly `points`, points); singles cannot meld
EXACT = {
    15: "5 5 5 9 10 J Q K 8 A 4",
    45: "K K K 4 4 4 9 J Q A 6",
    50: "K K K 4 4 4 4 9 J Q A",
    85: "A A A 4 4 4 4 4 9 J Q",
    90: "A A A K K K 5 6 7 8 9",
    115: "A A A A A 4 4 4 9 J Q",
    120: "A A A A A A 5 6 7 8 9",
}


def _melding(hand: str, score: int):
    return build(hands=(hand, "4 4 6 6 7 7 8 8 9 9 10", "5 5 6 6 7 7 8 8 9 9 10",
                        "J J Q Q 10 10 5 6 7 8 9"),
                 pile="Q", phase="MELD", scores=(score, 0), turn={"drew_stock": True})


def _can_meld(g) -> bool:
    return any(n.startswith("meld ") for n in legal_names(g))


@pytest.mark.parametrize("score,exact,short", [
    (-5, 15, None), (0, 50, 45), (1495, 50, 45), (1500, 90, 85), (2995, 90, 85),
    (3000, 120, 115)])
def test_threshold_reached_exactly_opens_five_short_does_not(score, exact, short):
    g = _melding(EXACT[exact], score)
    assert g.minimum[0] == exact
    assert _can_meld(g)
    if short is not None:
        g = _melding(EXACT[short], score)
        assert not _can_meld(g)
        # only discards are left: no meld that could not complete the opening
        assert all(n.startswith("discard") for n in legal_names(g))


def test_fifteen_is_enough_below_zero_but_not_at_zero():
    assert _can_meld(_melding(EXACT[15], -5))
    assert not _can_meld(_melding(EXACT[15], 0))


def test_several_melds_add_up_and_discard_waits_for_the_minimum():
    g = _melding(EXACT[50], 0)
    assert legal_names(g) == ["meld 4: 3 naturals", "meld K: 3 naturals", "discard 4",
                              "discard 9", "discard J", "discard Q", "discard K",
                              "discard A"]
    play(g, "meld K: 3 naturals")
    assert g.turn_points == 30 and g.opened == [False, False]
    # 30 < 50: no discard until the opening is complete
    assert legal_names(g) == ["meld 4: 3 naturals"]
    play(g, "meld 4: 3 naturals")
    assert g.turn_points == 45 and legal_names(g) == ["add natural to 4 meld"]
    play(g, "add natural to 4 meld")
    assert g.turn_points == 50 and g.opened == [True, False]
    assert legal_names(g) == ["discard 9", "discard J", "discard Q", "discard A"]
    play(g, "discard 9")
    assert g.current == 1
    assert to_position(g)["melds"][0] == {"4": meld(4), "K": meld(3)}


def test_red_threes_never_count_toward_the_minimum():
    # four red 3s exposed (400 / 800 bonus value) do not help a 45-point hand
    g = build(hands=(EXACT[45], "4 6 6 7 7 8 8 9 9 10 10", "5 5 6 6 7 7 8 8 9 9 10",
                     "J J Q Q 10 5 6 7 8 9 A"),
              pile="Q", phase="MELD", red_threes=(4, 0, 0, 0), turn={"drew_stock": True})
    assert not _can_meld(g)


def test_only_cards_laid_this_turn_count_and_later_additions_need_no_minimum():
    # partnership A opened on an earlier turn: later melds have no minimum
    g = build(hands=(EXACT[15], S1, S2, S3), melds=({"K": meld(3)}, {}), pile="Q",
              phase="MELD", turn={"drew_stock": True})
    play(g, "meld 5: 3 naturals")
    assert legal_names(g)[0] == "add natural to K meld"
    assert "discard 9" in legal_names(g)
    # an unopened partnership's turn starts from zero: nothing carries over
    g = _melding(EXACT[45], 0)
    assert g.turn_points == 0 and not _can_meld(g)


def test_pile_opening_counts_top_card_and_hand_cards_only():
    # the pile holds A A 8 (50 points) under a K; hand K K + 4 4 4 = 30 + 15 = 45 with
    # the top card: the buried Aces do not help, so the take is not offered
    g = build(hands=("K K 4 4 4 9 10 J Q 5 6", S1, S2, S3), pile="A A 8 K")
    assert legal_names(g) == ["draw from stock"]
    # K K K (top card included) + 4 4 4 4 = 50: the take is offered
    g = build(hands=("K K 4 4 4 4 9 10 J Q 5", S1, S2, S3), pile="A A 8 K")
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]


def test_pile_waits_in_pickup_until_the_minimum_is_met():
    g = build(hands=("K K 4 4 4 4 9 10 J Q 5", S1, S2, S3), pile="A A 8 K")
    play(g, "take pile with a natural pair")
    pos = to_position(g)
    assert g.phase == Phase.PICKUP and pos["phase"] == "PICKUP"
    assert pos["turn"]["pending"] == cards("A A 8") and pos["pile"] == []
    assert pos["hands"][0] == cards("4 4 4 4 5 9 10 J Q")
    assert g.turn_points == 30
    # only melds that work toward the minimum; no discard, no ask
    assert legal_names(g) == ["meld 4: 3 naturals"]
    play(g, "meld 4: 3 naturals")
    assert g.phase == Phase.PICKUP and legal_names(g) == ["add natural to 4 meld"]
    play(g, "add natural to 4 meld")
    pos = to_position(g)
    assert g.phase == Phase.MELD and g.opened == [True, False]
    assert pos["turn"]["pending"] == [] and pos["known"][0] == cards("8 A A")
    assert pos["hands"][0] == cards("5 8 9 10 J Q A A")
    assert legal_names(g) == ["discard 5", "discard 8", "discard 9", "discard 10",
                              "discard J", "discard Q", "discard A"]


def test_pile_opening_reaching_the_minimum_at_once_collects_immediately():
    # A A + top A = 60 >= 50
    g = build(hands=("A A 4 5 6 7 9 10 J Q K", S1, S2, "Q Q Q 5 6 7 9 9 9 J K"),
              pile="8 8 A")
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.MELD and g.opened == [True, False]
    assert to_position(g)["hands"][0] == cards("4 5 6 7 8 8 9 10 J Q K")


def test_opened_partnership_takes_the_pile_without_minimum():
    g = build(hands=("5 5 9 10 J Q K 4 6 7 8", S1, S2, S3),
              melds=({"A": meld(3)}, {}), pile="8 K 5")
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.MELD
    assert to_position(g)["melds"][0] == {"A": meld(3), "5": meld(3)}


def test_opening_that_would_leave_one_card_is_not_offered():
    # K K K + 4 4 4 4 = 50 would leave only the 9: no canasta, so the 9 could not be
    # discarded (the hand may not be emptied) and the opening cannot be completed
    g = _melding("K K K 4 4 4 4 9", 0)
    assert legal_names(g) == ["discard 4", "discard 9", "discard K"]
    g = _melding("K K K 4 4 4 4 9 J", 0)
    play(g, "meld K: 3 naturals", "meld 4: 3 naturals", "add natural to 4 meld")
    assert g.opened == [True, False]
    assert legal_names(g) == ["discard 9", "discard J"]


def test_pickup_legal_actions_are_sorted():
    # engine bug found by random play: in PICKUP the ids came out unsorted (add to the 4
    # meld listed before starting the K meld)
    g = build(hands=("4 4 4 K K K Q J 9 8 6", S1, S2, "Q Q 5 6 7 9 10 10 A A A"),
              pile="A 4")
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.PICKUP and g.turn_points == 15
    assert legal_names(g) == ["meld K: 3 naturals", "add natural to 4 meld"]
    assert g.legal_actions() == sorted(g.legal_actions())
    play(g, "add natural to 4 meld", "meld K: 3 naturals")
    assert g.phase == Phase.MELD and g.opened == [True, False]
