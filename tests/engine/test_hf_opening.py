"""Hand and Foot opening minimums by round (docs/RULES.md §3.2, from the going-down guide):
60 / 90 / 120 / 150; face values of the cards laid in the opening turn, wild cards at full
value, several melds combined, red 3s never count; after opening, later melds in the round
have no minimum. The guide's four worked examples and its other round examples (the table
of docs/RULES.md §3.2), literally."""

import pytest

from tests.helpers.hand_and_foot import HF, build_hf, legal_names, play

OTHERS = ("5 6 7 8 9 10 J Q K A 4", "5 6 7 8 9 10 J Q K A 4", "5 6 7 8 9 10 J Q K A 4")


def melding(hand: str, round_no: int, **kw):
    """Seat 0 has drawn (phase MELD) in ``round_no`` with ``hand``; nobody opened."""
    return build_hf(hands=(hand, *OTHERS), phase="MELD", round_no=round_no, pile="9", **kw)


def can_meld(g) -> bool:
    return any(n.startswith(("meld ", "add ")) for n in legal_names(g))


def table_points(g, team: int = 0) -> int:
    return g.sheets[team].table if g.sheets else sum(
        n * v for n, v in zip(g.nat[team], (50, 20, 5, 0, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20))
    ) + 50 * (sum(g.jok[team]) + g.wild_meld[team][0]) + 20 * (sum(g.two[team]) +
                                                                 g.wild_meld[team][1])


@pytest.mark.parametrize("round_no,minimum", [(1, 60), (2, 90), (3, 120), (4, 150)])
def test_minimum_by_round(round_no, minimum):
    assert HF.minimum_for(0, round_no - 1) == minimum
    assert HF.minimum_for(-500, round_no - 1) == minimum  # the score never matters
    assert melding("A A A 4 6 8 10 Q", round_no).minimum == [minimum, minimum]


def test_seed_round_1_three_aces_open():
    g = melding("A A A 4 6 8 10 Q", 1)
    assert "meld A: 3 naturals" in legal_names(g)
    play(g, "meld A: 3 naturals")
    assert g.turn_points == 60 and g.opened[0]
    # anything melded later this round has no minimum: discards are free again
    assert "discard 4" in legal_names(g)


def test_seed_round_2_three_aces_and_a_red_three_rejected():
    # the red 3 is laid face up at once (exposed): it pays at scoring, never opens
    g = melding("A A A 4 6 8 10 Q", 2, red_threes=(1, 0, 0, 0))
    assert g.minimum[0] == 90
    assert not can_meld(g)  # 60 < 90: the play is rejected
    assert all(n.startswith("discard") for n in legal_names(g))
    assert g.turn_points == 0 and not g.opened[0]


def test_seed_round_3_aces_and_kings_rejected():
    g = melding("A A A K K K 4 6 8 10", 3)
    assert g.minimum[0] == 120
    assert not can_meld(g)  # 60 + 30 = 90 < 120; book bonuses never help
    assert all(n.startswith("discard") for n in legal_names(g))


def test_seed_round_4_aces_and_four_jokers_open_then_three_fours_later():
    hand = "A A A Joker Joker Joker Joker 4 4 4 6 8"
    g = build_hf(hands=(hand, *OTHERS), phase="MELD", round_no=4, pile="9",
                 stock_top="5 5 6 6 7 7 8 8")
    assert g.minimum[0] == 150
    names = legal_names(g)
    assert "meld A: 3 naturals" in names and "meld wild cards: 3 Jokers" in names
    play(g, "meld A: 3 naturals", "meld wild cards: 3 Jokers", "add Joker to wild meld")
    assert g.opened[0] and g.wild_meld[0] == [4, 0]
    assert table_points(g) == 60 + 200 == 260
    play(g, "discard 6")
    for seat in (1, 2, 3):  # the others draw two and discard
        assert g.current == seat
        play(g, "draw from stock", "discard 4")
    assert g.current == 0 and g.opened[0]
    play(g, "draw from stock")
    assert "meld 4: 3 naturals" in legal_names(g)  # 15 points: legal after opening
    play(g, "meld 4: 3 naturals")
    assert g.nat[0][4] == 3


def test_seed_round_1_four_kings_and_a_wild_open():
    g = melding("K K K K 2 5 6 8 9", 1)
    play(g, "meld K: 3 naturals", "add natural to K meld")
    assert g.turn_points == 40 and not g.opened[0]
    assert legal_names(g) == ["add 2 to K meld"]  # the only way on to 60
    play(g, "add 2 to K meld")
    assert g.turn_points == 60 and g.opened[0]


def test_four_kings_without_a_wild_do_not_open_round_1():
    assert not can_meld(melding("K K K K 5 6 8 9", 1))  # 40 < 60


def test_seed_round_3_aces_tens_kings_exactly_120():
    g = melding("A A A 10 10 10 K K K 5 7", 3)
    play(g, "meld A: 3 naturals", "meld 10: 3 naturals")
    assert g.turn_points == 90 and not g.opened[0]
    assert "discard 5" not in legal_names(g)  # no discard before the minimum is met
    play(g, "meld K: 3 naturals")
    assert g.turn_points == 120 and g.opened[0]
    # one card short of the Kings: 90 < 120, no meld offered at all
    assert not can_meld(melding("A A A 10 10 10 K K 5 7", 3))


@pytest.mark.parametrize("hand,round_no", [
    ("A A A 10 10 10 5 6", 2),  # 60 + 30 = 90
    ("A A A 8 8 8 8 5", 2),  # 60 + 40 = 100
    ("A A A Joker Joker Joker 10 10 10 5", 4),  # 60 + 150 + 30 = 240
])
def test_seed_other_round_examples_open(hand, round_no):
    g = melding(hand, round_no)
    assert can_meld(g)
    while not g.opened[0]:
        # any offered meld keeps the opening reachable: take the first one
        g.apply(next(a for a in g.legal_actions() if not legal_names(g)[
            g.legal_actions().index(a)].startswith("discard")))
    assert g.opened[0] and g.turn_points >= g.minimum[0]


def test_opening_by_pickup_counts_top_card_and_hand_cards_only():
    # round 2 (90): the pair of Aces + the top Ace = 60; the six cards below the top
    # (Kings) do not count: the pile waits (PICKUP) until hand cards reach 90
    g = build_hf(hands=("A A Q Q Q 5 6", *OTHERS), pile="K K K K K K A", round_no=2)
    play(g, "take pile with a natural pair")
    assert g.phase.name == "PICKUP" and g.turn_points == 60 and len(g.pending) == 6
    assert legal_names(g) == ["meld Q: 3 naturals"]
    play(g, "meld Q: 3 naturals")
    assert g.phase.name == "MELD" and g.opened[0] and g.hands[0][13] == 6
    # without the Queens the take is not offered: 60 < 90 and the Kings cannot help
    g = build_hf(hands=("A A Q Q 5 6 7", *OTHERS), pile="K K K K K K A", round_no=2)
    assert "take pile with a natural pair" not in legal_names(g)
