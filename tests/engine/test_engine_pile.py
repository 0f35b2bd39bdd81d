"""The discard pile (docs/RULES.md §2.6 black 3s, §2.9 frozen pile, §2.10 taking the pile,
§2.5 red 3s): stop cards, freezing, the three ways to take, red 3 upcards taken with the
pile, the one-card-pile restriction."""

from canasta_env.engine import Phase, to_position
from canasta_env.engine.cards import deck_counts
from tests.helpers.engine import build, cards, legal_names, meld, play, total_cards

S1 = "4 4 4 5 5 5 6 6 6 7 7"
S2 = "8 8 8 9 9 9 10 10 10 J J"
S3 = "Q A A A 4 4 5 6 7 8 8"
DRAW_ONLY = ["draw from stock"]
ALL_TAKES = ["draw from stock", "take pile with a natural pair",
             "take pile with a natural + Joker", "take pile with a natural + 2",
             "take pile onto our meld"]


def at_draw(hand0: str, pile: str, melds0=None, **kw):
    """Seat 0 to draw; partnership A opened with ``melds0`` (default a K meld)."""
    melds0 = {"K": meld(3)} if melds0 is None else melds0
    return build(hands=(hand0, S1, S2, S3), melds=(melds0, {}), pile=pile, current=0, **kw)


def test_three_ways_to_take_an_unfrozen_pile():
    g = at_draw("K K Joker 2 5 6 7 8 9 10 J", "5 K")
    assert legal_names(g) == ALL_TAKES
    g = at_draw("K Joker 5 6 7 8 9 10 J", "5 K")  # one K: no pair
    assert legal_names(g) == ["draw from stock", "take pile with a natural + Joker",
                              "take pile onto our meld"]
    g = at_draw("K Joker 5 6 7 8 9 10 J", "5 K", melds0={"A": meld(3)})  # no K meld
    assert legal_names(g) == ["draw from stock", "take pile with a natural + Joker"]


def test_take_with_a_natural_pair_melds_the_top_and_collects_the_rest():
    g = at_draw("Q Q 5 6 7 8 9 10 J A A", "4 b3 5 Q", melds0={"K": meld(3)})
    play(g, "take pile with a natural pair")
    pos = to_position(g)
    assert g.phase == Phase.MELD
    assert pos["melds"][0] == {"K": meld(3), "Q": meld(3)}
    assert pos["hands"][0] == cards("b3 4 5 5 6 7 8 9 10 J A A")
    assert pos["known"][0] == cards("b3 4 5")  # pile cards the table saw
    assert pos["pile"] == [] and pos["pile_frozen"] is False
    assert total_cards(g) == deck_counts(2, 4)


def test_take_onto_a_completed_canasta():
    g = at_draw("5 6 7 8 9 10 J", "4 K", melds0={"K": meld(7)})
    assert legal_names(g) == ["draw from stock", "take pile onto our meld"]
    play(g, "take pile onto our meld")
    assert to_position(g)["melds"][0]["K"] == meld(8)
    assert to_position(g)["hands"][0] == cards("4 5 6 7 8 9 10 J")


def test_never_with_a_wild_card_or_black_three_on_top():
    assert legal_names(at_draw("2 2 K K 5 6 7 8", "K 2")) == DRAW_ONLY
    assert legal_names(at_draw("Joker Joker K K 5 6 7 8", "K Joker", pile_frozen=True)) == \
        DRAW_ONLY
    assert legal_names(at_draw("b3 b3 K K 5 6 7 8 9 10 J", "K b3")) == DRAW_ONLY


def _black_three_then_k(options):
    """Seat 1 discards a black 3 onto a K; seat 2 is stopped, draws a 9 and throws it;
    seat 3 draws a K and throws it; seat 0 (K K Joker, a K meld) is to move."""
    g = build(hands=("K K Joker 5 6 7 8 9 10 J", "b3 4 4 5 5 5 6 6 6 7 7", S2, S3),
              melds=({"K": meld(3)}, {"A": meld(3)}), pile="5 K", stock_top="9 K",
              current=1, phase="MELD", turn={"drew_stock": True}, options=options)
    play(g, "discard black 3")
    frozen = g.pile_frozen
    stopped = legal_names(g)
    play(g, "draw from stock", "discard 9", "draw from stock", "discard K")
    assert g.current == 0 and to_position(g)["pile"] == cards("5 K b3 9 K")
    return g, frozen, stopped


def test_black_three_is_a_stop_card_and_does_not_freeze_by_default():
    g, frozen, stopped = _black_three_then_k({})
    # the stop card lets seat 2 only draw
    assert stopped == DRAW_ONLY and frozen is False
    assert g.pile_frozen is False
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair",
                              "take pile with a natural + Joker", "take pile onto our meld"]


def test_black_three_freezes_with_the_bicycle_option():
    g, frozen, stopped = _black_three_then_k({"black_three_freezes": True})
    assert stopped == DRAW_ONLY and frozen is True
    assert g.pile_frozen is True
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]


def test_pile_frozen_against_an_unopened_partnership():
    g = at_draw("K K Joker 2 5 6 7 8 9 10 J", "5 K", melds0={})
    assert g.pile_frozen is False and g.pile_frozen_for(0) is True
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]
    g = at_draw("K Joker 2 5 6 7 8 9 10 J A", "5 K", melds0={})
    assert legal_names(g) == DRAW_ONLY


def test_pile_frozen_for_everyone_while_it_holds_a_wild_card():
    g = at_draw("K K Joker 2 5 6 7 8 9 10 J", "5 2 7 K", pile_frozen=True)
    assert g.pile_frozen_for(0) is True and g.pile_frozen_for(1) is True
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]


def test_discarded_wild_freezes_and_taking_unfreezes():
    # seat 3 discards a 2 (crosswise); seat 0 may not take (wild on top); later, with a
    # natural on top, only a natural pair takes it; taking it unfreezes the pile
    g = build(hands=("K K Joker 6 7 8 9 10 J A A", "5 5 5 5 6 6 6 6 7 7 7", S2,
                     "2 A 4 4 4 5 6 7 8 8 8"),
              melds=({"K": meld(3)}, {"A": meld(3)}), pile="9", stock_top="Q 4 K",
              current=3, phase="MELD", turn={"drew_stock": True})
    play(g, "discard 2")
    assert g.pile_frozen is True and legal_names(g) == DRAW_ONLY
    play(g, "draw from stock", "discard 6")  # seat 0 draws Q
    play(g, "draw from stock", "discard 7")  # seat 1 draws 4
    play(g, "draw from stock", "discard K")  # seat 2 draws K and throws it
    play(g, "draw from stock", "discard 4")  # seat 3
    # seat 0: top is 4 -- no 4s in hand
    assert legal_names(g) == DRAW_ONLY
    g = build(hands=("K K Joker 6 7 8 9 10 J A A", S1, S2, S3),
              melds=({"K": meld(3)}, {}), pile="9 2 6 K", pile_frozen=True, current=0)
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]
    play(g, "take pile with a natural pair")
    assert g.pile_frozen is False and g.pile == []
    assert to_position(g)["hands"][0] == cards("Joker 2 6 6 7 8 9 9 10 J A A")


def test_red_three_upcard_taken_with_the_pile_is_exposed_not_replaced():
    g = at_draw("K K 5 6 7 8 9 10 J A A", "r3 Joker K", pile_frozen=True,
                red_threes=(1, 0, 0, 0))
    stock_before = len(g.stock)
    play(g, "take pile with a natural pair")
    pos = to_position(g)
    assert pos["red_threes"] == [2, 0, 0, 0]
    assert pos["hands"][0] == cards("Joker 5 6 7 8 9 10 J A A")
    assert len(g.stock) == stock_before
    assert "red 3" not in pos["hands"][0]


def test_one_card_pile_restriction():
    # seat 0 holds a single 9; the pile is a single K; partnership A has a K canasta
    for restrict, legal in ((True, DRAW_ONLY),
                            (False, ["draw from stock", "take pile onto our meld"])):
        g = at_draw("9", "K", melds0={"K": meld(7)},
                    options={"one_card_pile_restriction": restrict})
        assert legal_names(g) == legal
    # a two-card pile may be taken
    g = at_draw("9", "5 K", melds0={"K": meld(7)})
    assert legal_names(g) == ["draw from stock", "take pile onto our meld"]
    # the restriction is about one card in hand: two cards may take a one-card pile
    g = at_draw("9 8", "K", melds0={"K": meld(7)})
    assert legal_names(g) == ["draw from stock", "take pile onto our meld"]


def test_red_three_upcard_keeps_the_pile_frozen_for_everyone():
    # a red 3 turned up at the deal sits in the pile: an opened partnership with a K
    # meld may take only with a natural pair
    g = at_draw("K K Joker 5 6 7 8 9 10 J", "r3 7 K", pile_frozen=True)
    assert g.pile_frozen_for(0) is True
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]
    g = at_draw("K Joker 5 6 7 8 9 10 J", "r3 7 K", pile_frozen=True)
    assert legal_names(g) == DRAW_ONLY
