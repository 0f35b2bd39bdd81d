"""Stock exhausted (docs/RULES.md §2.14): declining the pile ends the hand, forced take
when the top matches a meld of the partnership and the pile is not frozen, a red 3 as the
last stock card ends the hand (option: may meld), no going-out bonus; the opening minimum
is never charged on the score."""

from canasta_env.engine import Phase, to_position
from tests.helpers.engine import MA, MB, build, cards, exhausted, legal_names, meld, play


def test_forced_take_when_top_matches_our_meld_and_pile_not_frozen():
    g = exhausted(("K K 9", "4 4", "8 8 J", "6 7"), "5 K")
    assert g.stock == []
    assert legal_names(g) == ["take pile with a natural pair", "take pile onto our meld"]
    g = exhausted(("K 9", "4 4", "8 8 J", "6 7"), "5 K")
    assert legal_names(g) == ["take pile onto our meld"]


def test_take_is_voluntary_when_frozen_or_not_matching_a_meld():
    # frozen by a 2 in the pile (taken out of A's K meld so the pack still adds up)
    g = build(hands=("K K 9", "4 4", "8 8 J", "6 7"), melds=(dict(MA, K=meld(4, 0, 2)), MB),
              pile="2 5 K", exact_stock=True, red_threes=(1, 1, 1, 1))
    assert g.pile_frozen
    assert legal_names(g) == ["take pile with a natural pair", "decline the pile (end the hand)"]
    g = exhausted(("9 9 5", "4 4", "8 8 J", "6 7"), "5 9")
    assert legal_names(g) == ["take pile with a natural pair", "decline the pile (end the hand)"]
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 9")
    assert legal_names(g) == ["decline the pile (end the hand)"]
    # the opponents' Q meld does not force partnership A
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 Q")
    assert legal_names(g) == ["decline the pile (end the hand)"]


def _declined_sheets(scores):
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 9", scores=scores)
    play(g, "decline the pile (end the hand)")
    assert g.phase == Phase.HAND_OVER and g.went_out is None
    return [s.as_dict() for s in g.sheets]


def test_declining_ends_the_hand_without_going_out_bonus():
    a, b = _declined_sheets((0, 0))
    assert a == {"table": 200, "canasta_bonus": 600, "red_threes": 200, "going_out": 0,
                 "hand_penalty": -(15 + 30), "hand_score": 955, "previous": 0, "total": 955}
    assert b == {"table": 360, "canasta_bonus": 600, "red_threes": 200, "going_out": 0,
                 "hand_penalty": -(10 + 10), "hand_score": 1140, "previous": 0, "total": 1140}


def test_opening_minimum_is_never_charged_on_the_score():
    # same hand with previous totals in the 90- and 120-minimum bands: same hand score
    a, b = _declined_sheets((1500, 3000))
    assert (a["hand_score"], a["previous"], a["total"]) == (955, 1500, 2455)
    assert (b["hand_score"], b["previous"], b["total"]) == (1140, 3000, 4140)


def test_play_continues_after_a_forced_take_until_someone_declines():
    g = exhausted(("K 9 5", "4 4", "8 8 J", "6 7"), "5 K")
    n_pile = len(g.pile)
    play(g, "take pile onto our meld")
    assert to_position(g)["melds"][0]["K"] == meld(5, 0, 3)
    assert sum(g.hands[0]) == 3 + n_pile - 1  # the K went onto the meld
    play(g, "discard 9")
    # seat 1: stock empty, top 9, partnership B has no 9 meld and no 9s: decline only
    assert g.current == 1 and legal_names(g) == ["decline the pile (end the hand)"]
    play(g, "decline the pile (end the hand)")
    assert g.hand_over and g.went_out is None and g.sheets[0].going_out == 0


def test_drawing_the_last_stock_card_play_goes_on():
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 J", stock="7")
    play(g, "draw from stock", "discard 7")
    assert g.stock == [] and g.current == 1 and g.phase == Phase.DRAW
    assert legal_names(g) == ["decline the pile (end the hand)"]


def test_red_three_as_last_stock_card_ends_the_hand():
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 J", stock="r3", red_threes=(1, 1, 1, 0))
    play(g, "draw from stock")
    pos = to_position(g)
    assert g.phase == Phase.HAND_OVER and g.went_out is None
    assert pos["red_threes"] == [2, 1, 1, 0] and pos["stock"] == []
    assert pos["hands"][0] == cards("5 9")
    # partnership A: three red 3s, +300; B: one, +100
    assert (g.sheets[0].red_threes, g.sheets[1].red_threes) == (300, 100)
    assert g.sheets[0].hand_penalty == -(15 + 30)


def test_red_three_last_card_may_meld_option():
    g = exhausted(("K 9 9 9 5", "4 4", "8 8 J", "6 7"), "5 J", stock="r3",
                  red_threes=(1, 1, 0, 1), options={"red_three_last_card_may_meld": True})
    play(g, "draw from stock")
    assert g.phase == Phase.MELD and g.no_discard is True
    assert legal_names(g) == ["meld 9: 3 naturals", "add natural to K meld",
                              "finish turn without discard"]
    play(g, "meld 9: 3 naturals", "add natural to K meld")
    # at least one card stays: no discard, no going out
    assert legal_names(g) == ["finish turn without discard"]
    play(g, "finish turn without discard")
    assert g.phase == Phase.HAND_OVER and g.went_out is None
    assert g.sheets[0].table == 200 + 30 + 10
    assert g.sheets[0].hand_penalty == -(5 + 30)


def test_red_three_drawn_from_the_stock_is_exposed_and_replaced():
    g = build(hands=("9 5 6", "4 4 5 5 6 6 7 7 8 8 Q", "8 8 J 9 10 10 10 J J J Q",
                     "6 7 9 9 9 K K K A A A"), pile="Q", stock_top="r3 r3 K 7")
    play(g, "draw from stock")
    pos = to_position(g)
    assert pos["red_threes"] == [2, 0, 0, 0]
    assert pos["hands"][0] == cards("5 6 9 K")
    assert len(pos["stock"]) == 108 - 3 - 11 - 11 - 11 - 1 - 3
    assert g.phase == Phase.MELD and g.drew_stock is True
