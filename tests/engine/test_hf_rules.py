"""One scenario per Hand and Foot rule (docs/RULES.md §3.1-§3.9), written as literal
positions and action sequences with the expected result."""

import pytest

from canasta_env.engine import Game, IllegalActionError, score_partnership
from canasta_env.engine.cards import BLACK_THREE, JOKER, KING, RED_THREE
from tests.helpers.hand_and_foot import HF, PACK, book, build_hf, legal_names, meld, play, total_cards

OTHERS = ("5 6 7 8 9 10 J Q K A 4", "5 6 7 8 9 10 J Q K A 4", "5 6 7 8 9 10 J Q K A 4")
#: two clean and two dirty books: what partnership A needs to go out
FOUR_BOOKS = [book("K", 7), book("Q", 7), book("J", 6, 1), book("10", 5, 0, 2)]


def test_row_decks_five_decks_and_ten_jokers():
    assert (HF.decks, HF.jokers) == (5, 10) and sum(PACK) == 270
    g = Game(HF, seed=7)
    assert total_cards(g) == PACK
    assert PACK[JOKER] == 10 and PACK[KING] == 20 and PACK[RED_THREE] == 10


def test_row_hand_and_foot_eleven_plus_eleven():
    g = Game(HF, seed=7)
    for s in range(4):
        assert sum(g.hands[s]) == 11 and sum(g.feet[s]) == 11 and not g.in_foot[s]
        assert g.hands[s][RED_THREE] == 0  # red 3s in the hand are laid and replaced
    assert len(g.stock) == 270 - 88 - len(g.pile) - sum(g.red3)


def test_row_rounds_four_deals_then_the_game_ends():
    assert HF.rounds == 4
    g = build_hf(hands=("4", *OTHERS), melds=({"4": meld(4)}, {}), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD", round_no=4,
                 scores=(1000, 2000), turn={"asked": 1})
    play(g, "add natural to 4 meld")  # out: round 4 was the last
    assert g.game_over and g.winner in (0, 1, -1)
    a, b = g.scores
    assert g.winner == (0 if a > b else 1 if b > a else -1)
    # round 1 of 4: the hand is over but not the game
    g = build_hf(hands=("4", *OTHERS), melds=({"4": meld(4)}, {}), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD", round_no=1,
                 turn={"asked": 1})
    play(g, "add natural to 4 meld")
    assert g.hand_over and not g.game_over
    g.next_hand()
    assert g.hand_number == 1 and g.minimum == [90, 90]


def test_row_draw_two_cards_from_the_stock():
    g = build_hf(hands=("4 5 6 7 8", *OTHERS), pile="9", stock_top="J Q K")
    play(g, "draw from stock")
    assert sum(g.hands[0]) == 7 and g.hands[0][11] == 1 and g.hands[0][12] == 1
    # a red 3 drawn is laid and replaced: still two cards in hand
    g = build_hf(hands=("4 5 6 7 8", *OTHERS), pile="9", stock_top="r3 J Q")
    play(g, "draw from stock")
    assert sum(g.hands[0]) == 7 and g.red3[0] == 1


def test_row_melds_three_to_seven_and_a_book_is_closed():
    g = build_hf(hands=("K K 5 6 8 9", *OTHERS), melds=({"K": meld(5)}, {}), phase="MELD")
    play(g, "add natural to K meld")
    assert "add natural to K meld" in legal_names(g)
    play(g, "add natural to K meld")  # seven Kings: a closed clean book
    assert g.nat[0][KING] == 0 and g.books[0] == [[KING, 7, 0, 0]]
    assert not any(n.endswith("to K meld") for n in legal_names(g))
    # a new King meld may be started later
    g = build_hf(hands=("K K K 5 6 8", *OTHERS), books=([book("K", 7)], []), phase="MELD")
    assert "meld K: 3 naturals" in legal_names(g)


def test_row_wild_cards_at_least_two_naturals_at_most_half():
    g = build_hf(hands=("Q Q Joker 2 2 5 6 8", *OTHERS), melds=({"K": meld(4, 1)}, {}),
                 phase="MELD")
    names = legal_names(g)
    assert "add 2 to K meld" in names  # 4 naturals may hold 2 wilds
    assert "meld Q: 2 naturals + Joker" in names  # 2 naturals + 1 wild
    play(g, "add 2 to K meld")
    assert "add 2 to K meld" not in legal_names(g)  # 3 wilds > 4 / 2
    g = build_hf(hands=("Q Q 2 2 5 6 8 9", *OTHERS), melds=({"K": meld(3, 1)}, {}),
                 phase="MELD")
    assert "add 2 to K meld" not in legal_names(g)  # 2 wilds > 3 / 2
    with pytest.raises(IllegalActionError, match="add 2 to K meld"):
        g.apply(g.table.parse("add 2 to K meld"))
    with pytest.raises(IllegalActionError, match="outside 0..97"):
        g.apply(98)


def test_row_wild_card_melds_and_the_wild_book():
    g = build_hf(hands=("Joker Joker 2 5 6 8 9", *OTHERS), wild_melds=((2, 2), (0, 0)),
                 phase="MELD")
    play(g, "add Joker to wild meld", "add Joker to wild meld")
    assert g.wild_meld[0] == [4, 2]
    play(g, "add 2 to wild meld")  # seven wild cards: a wild book
    assert g.wild_meld[0] == [0, 0] and g.books[0] == [[JOKER, 0, 4, 3]]
    s = score_partnership(HF, [0] * 15, [0] * 15, [0] * 15, 0, True, 0, (), 0,
                          books=[[JOKER, 0, 4, 3]])
    assert s.canasta_bonus == 1500 and s.table == 4 * 50 + 3 * 20


def test_row_books_clean_500_dirty_300():
    s = score_partnership(HF, [0] * 15, [0] * 15, [0] * 15, 0, True, 0, (), 0,
                          books=[[KING, 7, 0, 0], [KING, 5, 1, 1]])
    assert s.canasta_bonus == 500 + 300
    assert s.table == 70 + 50 + 50 + 20


def test_row_red_threes_plus_100_and_minus_100_left_in_hand_or_foot():
    # partnership B exposed two red 3s and never melded: still +100 each (no sign flip);
    # partnership A goes out; a red 3 in B's unplayed foot costs 100
    g = build_hf(hands=("4", "5 5", "6", "7"), feet=("", "r3 8 8", "9", "J"),
                 melds=({"4": meld(4)}, {}), books=(FOUR_BOOKS, []), red_threes=(0, 2, 0, 0),
                 in_foot=(True, False, False, False), phase="MELD", turn={"asked": 1})
    play(g, "add natural to 4 meld")
    b = g.sheets[1]
    assert b.red_threes == 200
    assert b.hand_penalty == -(10 + 100 + 20 + 5 + 10)  # hands 5 5 / 7, feet r3 8 8 / J


def test_row_black_threes_stop_card_and_only_going_out():
    g = build_hf(hands=("8 8 5 6", *OTHERS), pile="8 b3", melds=({"9": meld(3)}, {}))
    assert "take pile with a natural pair" not in legal_names(g)  # stop card
    g = build_hf(hands=("b3 b3 b3 5 6 8", *OTHERS), melds=({"9": meld(3)}, {}), phase="MELD")
    assert "meld black 3s" not in legal_names(g)  # not going out (in the hand)
    g = build_hf(hands=("b3 b3 b3", *OTHERS), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD", turn={"asked": 1})
    play(g, "meld black 3s")  # going out with them
    assert g.hand_over and g.went_out == 0
    assert g.nat[0][BLACK_THREE] == 3 and g.sheets[0].table >= 15
    # option: black 3s never melded - then they can only be discarded
    g = build_hf(hands=("b3 b3 b3", *OTHERS), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD",
                 options={"black_three_melds": False})
    assert legal_names(g) == ["discard black 3"]
    g = build_hf(hands=("b3 b3 b3 4 4 4", *OTHERS), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD",
                 options={"black_three_melds": False})
    assert "ask partner: may I go out?" not in legal_names(g)
    g = build_hf(hands=("b3 b3 b3 4 4 4", *OTHERS), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD")
    assert "ask partner: may I go out?" in legal_names(g)  # default: 4s and black 3s


def test_row_taking_the_pile_pair_only_top_seven():
    pile = "4 5 6 7 8 9 10 J Q K"
    g = build_hf(hands=("K K 5 Joker", *OTHERS), pile=pile, melds=({"K": meld(3)}, {}))
    names = legal_names(g)
    assert "take pile with a natural pair" in names
    assert "take pile onto our meld" not in names
    assert "take pile with a natural + Joker" not in names
    play(g, "take pile with a natural pair")
    assert g.nat[0][KING] == 6
    assert len(g.pile) == 3  # 10 cards: the top 7 were taken, 3 stay
    assert sum(g.hands[0]) == 2 + 6
    # a wild card on top: a matching wild pair takes it into the wild meld
    g = build_hf(hands=("2 2 5 6", *OTHERS), pile="9 2", melds=({"K": meld(3)}, {}))
    assert legal_names(g) == ["draw from stock", "take pile with a wild pair"]
    play(g, "take pile with a wild pair")
    assert g.wild_meld[0] == [0, 3] and sum(g.hands[0]) == 3
    # never a 3 (black 3 on top, above) and never a natural + wild with a single natural
    g = build_hf(hands=("K Joker 5 6", *OTHERS), pile="9 K", melds=({"K": meld(3)}, {}))
    assert legal_names(g) == ["draw from stock"]


def test_row_foot_meld_out_picks_it_up_at_once():
    g = build_hf(hands=("K K", *OTHERS), melds=({"K": meld(3)}, {}), phase="MELD",
                 feet=("4 4 4 5 6 7 8 9 10 J Q", "", "", ""),
                 in_foot=(False, True, True, True))  # the others play their feet
    play(g, "add natural to K meld", "add natural to K meld")
    assert g.in_foot[0] and sum(g.hands[0]) == 11 and sum(g.feet[0]) == 0
    assert g.current == 0 and g.phase.name == "MELD"  # plays on from the foot
    assert "meld 4: 3 naturals" in legal_names(g)


def test_row_foot_discard_last_card_picks_it_up_next_turn():
    g = build_hf(hands=("K", *OTHERS), melds=({"K": meld(3)}, {}), phase="MELD",
                 feet=("4 4 4 5 6 7 8 9 10 J Q", "", "", ""),
                 in_foot=(False, True, True, True))  # the others play their feet
    play(g, "discard K")
    assert sum(g.hands[0]) == 0 and not g.in_foot[0] and sum(g.feet[0]) == 11
    for _ in range(3):
        play(g, "draw from stock")
        play(g, legal_names(g)[-1])
    assert g.current == 0 and g.in_foot[0] and sum(g.hands[0]) == 11
    assert g.phase.name == "DRAW"


def test_row_going_out_needs_four_books_the_foot_and_partner():
    def pos(books, in_foot=True):
        return build_hf(hands=("4 4 9", *OTHERS), melds=({"4": meld(3)}, {}),
                        books=(books, []), in_foot=(in_foot, False, False, False),
                        phase="MELD")
    assert "ask partner: may I go out?" in legal_names(pos(FOUR_BOOKS))
    assert "ask partner: may I go out?" not in legal_names(pos(FOUR_BOOKS[:3]))  # 2 + 1
    three_clean = [book("K", 7), book("Q", 7), book("5", 7), book("10", 5, 0, 2)]
    assert "ask partner: may I go out?" not in legal_names(pos(three_clean))
    assert "ask partner: may I go out?" not in legal_names(pos(FOUR_BOOKS, in_foot=False))
    g = pos(FOUR_BOOKS)
    play(g, "add natural to 4 meld")
    # the second 4 would leave one card that only a yes could play, and a no would
    # strand it: the player must ask before melding down to one card
    assert legal_names(g) == ["ask partner: may I go out?", "discard 4", "discard 9"]
    play(g, "ask partner: may I go out?")
    assert g.to_move == 2 and legal_names(g) == ["answer yes", "answer no"]
    play(g, "answer yes", "add natural to 4 meld", "discard 9")
    assert g.hand_over and g.went_out == 0


def test_row_going_out_bonus_100():
    g = build_hf(hands=("4", *OTHERS), melds=({"4": meld(4)}, {}), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD", turn={"asked": 1})
    play(g, "add natural to 4 meld")
    assert [s.going_out for s in g.sheets] == [100, 0]


def test_row_end_of_round_hand_and_foot_cards_subtracted():
    g = build_hf(hands=("4", "b3 Joker", "A", "K 2"), feet=("", "r3 b3 5", "Q", "J J"),
                 melds=({"4": meld(4)}, {}), books=(FOUR_BOOKS, []),
                 in_foot=(True, False, False, False), phase="MELD", turn={"asked": 1})
    play(g, "add natural to 4 meld")
    a, b = g.sheets
    assert a.hand_penalty == -(20 + 10)  # partner: hand A, foot Q
    assert b.hand_penalty == -(5 + 50 + 100 + 5 + 5 + 10 + 20 + 10 + 10)
    assert a.table == 5 * 5 + 70 + 70 + 60 + 50 + 50 + 40 and a.canasta_bonus == 1600
