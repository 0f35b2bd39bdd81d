"""Scoring (docs/RULES.md §2.5 red 3s, §2.15 scoring a hand with the score sheet's worked
examples, §2.16 game end): the score-sheet rows and their order, red 3 bonuses and
penalties, the Team A / Team B example played to the end, the 570 and 1,430 examples, game
end at 5,000 with ties, the deal passing clockwise."""

import pytest

from canasta_env.engine import SHEET_ROWS, Phase, classic, score_partnership, to_position
from canasta_env.engine.cards import NAME_TO_CLASS, NUM_CLASSES, names_to_counts
from tests.helpers.engine import build, cards, exhausted, meld, play


def vectors(melds: dict[str, tuple[int, int, int]]):
    nat = [0] * NUM_CLASSES
    jok = [0] * NUM_CLASSES
    two = [0] * NUM_CLASSES
    for name, (n, j, t) in melds.items():
        r = NAME_TO_CLASS[name]
        nat[r], jok[r], two[r] = n, j, t
    return nat, jok, two


def hand(text: str):
    return names_to_counts(cards(text))


# the score sheet's complete Classic example (docs/RULES.md §2.15), melds built to give its rows
TEAM_A = {"A": (7, 0, 0), "K": (5, 2, 0), "Q": (4, 1, 0), "9": (3, 0, 1), "5": (4, 0, 0)}
TEAM_B = {"10": (5, 0, 2), "J": (3, 1, 0), "Q": (3, 0, 1), "8": (6, 0, 0), "4": (4, 0, 0)}


def test_sheet_row_order():
    assert SHEET_ROWS == ("table", "canasta_bonus", "red_threes", "going_out", "hand_penalty",
                          "hand_score", "previous", "total")
    s = score_partnership(classic(), *vectors(TEAM_A), 1, True, 100, [hand("A 2 2 8 8")], -200)
    assert list(s.as_dict()) == list(SHEET_ROWS)


def test_seed_002_team_a_and_team_b_with_score_partnership():
    a = score_partnership(classic(), *vectors(TEAM_A), 1, True, 100,
                          [hand(""), hand("A 2 2 8 8")], -200)
    assert [a.as_dict()[k] for k in SHEET_ROWS] == [450, 800, 100, 100, -80, 1370, -200, 1170]
    b = score_partnership(classic(), *vectors(TEAM_B), 2, True, 0,
                          [hand("K K K 9 9 9 9 9"),
                           hand("J J J J J 10 10 10 6 6 b3 b3 b3 b3 7 7 4 4")], 650)
    assert [b.as_dict()[k] for k in SHEET_ROWS] == [300, 300, 200, 0, -210, 590, 650, 1240]


def test_seed_002_example_played_to_the_end():
    # seat 0 adds its 5 to the 5 meld and goes out by discarding the 6; the final table,
    # red 3s and hands are exactly those of the score sheet's example (docs/RULES.md §2.15)
    melds_a = {k: meld(*v) for k, v in TEAM_A.items()}
    melds_a["5"] = meld(3)  # the fourth 5 is still in seat 0's hand
    g = build(hands=("5 6", "K K K 9 9 9 9 9", "A 2 2 8 8",
                     "J J J J J 10 10 10 6 6 b3 b3 b3 b3 7 7 4 4"),
              melds=(melds_a, {k: meld(*v) for k, v in TEAM_B.items()}), pile="7",
              red_threes=(0, 1, 1, 1), scores=(-200, 650), phase="MELD",
              turn={"drew_stock": True}, seat_melded=[True, True, True, True])
    play(g, "add natural to 5 meld", "discard 6")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0 and g.concealed is False
    assert [g.sheets[0].as_dict()[k] for k in SHEET_ROWS] == \
        [450, 800, 100, 100, -80, 1370, -200, 1170]
    assert [g.sheets[1].as_dict()[k] for k in SHEET_ROWS] == \
        [300, 300, 200, 0, -210, 590, 650, 1240]
    assert g.scores == [1170, 1240]
    # Team B still leads the match; nobody reached 5,000: the game goes on
    assert g.winner is None
    assert g.history[-1]["sheets"][0]["total"] == 1170
    assert g.history[-1]["went_out"] == 0


def test_seven_natural_kings_contribute_570():
    s = score_partnership(classic(), *vectors({"K": (7, 0, 0)}), 0, True, 0, [], 0)
    assert (s.table, s.canasta_bonus, s.table + s.canasta_bonus) == (70, 500, 570)


def test_750_plus_800_minus_120_is_1430():
    melds = {"A": (8, 0, 0), "K": (5, 2, 0), "Q": (4, 1, 0), "J": (4, 1, 0),
             "10": (3, 0, 3), "9": (4, 0, 2), "8": (6, 0, 0), "7": (6, 0, 0)}
    s = score_partnership(classic(), *vectors(melds), 0, True, 0,
                          [hand("K K K Q Q Q"), hand("9 9 9 J J J")], 0)
    assert (s.table, s.canasta_bonus, s.hand_penalty) == (750, 800, -120)
    assert (s.hand_score, s.total) == (1430, 1430)
    s = score_partnership(classic(), *vectors(melds), 0, True, 0,
                          [hand("K K K Q Q Q"), hand("9 9 9 J J J")], 2000)
    assert s.total == 3430  # added to the earlier rounds


@pytest.mark.parametrize("n,melded,row", [
    (0, True, 0), (1, True, 100), (2, True, 200), (3, True, 300), (4, True, 800),
    (1, False, -100), (3, False, -300), (4, False, -800)])
def test_red_three_row(n, melded, row):
    melds = {"K": (3, 0, 0)} if melded else {}
    s = score_partnership(classic(), *vectors(melds), n, melded, 0, [], 0)
    assert s.red_threes == row


def test_four_red_threes_on_an_unmelded_side_cost_800_in_play():
    # partnership B never melded and holds all four red 3s; partnership A goes out
    g = build(hands=("Q", "4 4", "8 8 J", "6 7"), melds=({"K": meld(7)}, {}), pile="9",
              red_threes=(0, 2, 0, 2), phase="MELD", turn={"drew_stock": True})
    play(g, "discard Q")
    b = g.sheets[1].as_dict()
    assert b == {"table": 0, "canasta_bonus": 0, "red_threes": -800, "going_out": 0,
                 "hand_penalty": -20, "hand_score": -820, "previous": 0, "total": -820}
    assert g.sheets[0].red_threes == 0


def test_black_threes_left_in_hand_cost_five_each():
    s = score_partnership(classic(), *vectors({"K": (3, 0, 0)}), 0, True, 0,
                          [hand("b3 b3"), hand("b3 Joker")], 0)
    assert s.hand_penalty == -65


def test_concealed_going_out_is_200_in_the_going_out_row():
    g = build(hands=("Q Q Q Q Q Q 9", "4 4", "8 8 J", "6 7"), pile="5", stock_top="Q")
    play(g, "draw from stock", "meld Q: 3 naturals", *["add natural to Q meld"] * 4,
         "discard 9")
    s = g.sheets[0].as_dict()
    assert s == {"table": 70, "canasta_bonus": 500, "red_threes": 0, "going_out": 200,
                 "hand_penalty": -30, "hand_score": 740, "previous": 0, "total": 740}


def _end_by_decline(scores):
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 9", scores=scores)
    play(g, "decline the pile (end the hand)")
    return g  # hand scores: A 955, B 1140


def test_game_continues_below_5000_and_next_hand_passes_the_deal():
    g = _end_by_decline((1000, 2000))
    assert g.phase == Phase.HAND_OVER and g.winner is None
    assert g.scores == [1955, 3140]
    dealer = g.dealer
    g.next_hand()
    assert g.hand_number == 1 and g.dealer == (dealer + 1) % 4
    assert g.current == (dealer + 2) % 4 and g.phase == Phase.DRAW
    assert g.minimum == [90, 120] and g.opened == [False, False]
    assert g.scores == [1955, 3140] and len(g.history) == 1
    pos = to_position(g)
    assert all(len(h) == 11 for h in pos["hands"]) and pos["melds"] == [{}, {}]


@pytest.mark.parametrize("scores,totals,winner", [
    ((4185, 4000), [5140, 5140], -1),  # equal totals: a tie
    ((4100, 4000), [5055, 5140], 1),  # both past 5,000: the higher total wins
    ((4100, 0), [5055, 1140], 0),
    ((0, 3860), [955, 5000], 1),  # exactly 5,000 ends the game
    ((4044, 3859), [4999, 4999], None),  # 4,999 does not
])
def test_game_end_at_5000(scores, totals, winner):
    g = _end_by_decline(scores)
    assert g.scores == totals
    assert g.winner == winner
    assert g.phase == (Phase.HAND_OVER if winner is None else Phase.GAME_OVER)
    assert g.game_over is (winner is not None)


def test_next_hand_refuses_when_hand_running_or_game_over():
    g = _end_by_decline((4185, 4000))
    with pytest.raises(RuntimeError, match="phase is GAME_OVER"):
        g.next_hand()
    g = exhausted(("9 5", "4 4", "8 8 J", "6 7"), "5 9")
    with pytest.raises(RuntimeError, match="phase is DRAW"):
        g.next_hand()
