"""Positions accepted that no game can reach (docs/RULES.md §7; the boundaries issue, kind
2): ``from_position`` refuses a position unless its rules could reach it -- meld and book
compositions, black-3 melds, derived flags (frozen pile, opening minimum, opened, the turn
record, the outcome fields) -- for both variants. The issue's example, one test per rule,
and generated cases: every position reached by random play loads, and every one of a list
of unreachable edits of such a position is refused."""

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canasta_env.engine import Game, PositionError, from_position, preset, to_position
from tests.helpers.engine import build, meld
from tests.helpers.hand_and_foot import book, build_hf

OTHERS = ("5 5 5 6 6 6 7 7 7 8 8", "8 8 9 9 9 10 10 10 J J J", "10 J 5 6 7 9 9 9 A A A")


def classic_meld_position():
    """Seat 0 of partnership A (opened, a K canasta) in phase MELD after a stock draw."""
    return to_position(build(hands=("Q Q Q 5", *OTHERS), melds=({"K": meld(7)}, {}),
                             pile="J", phase="MELD", turn={"drew_stock": True}))


def refused(pos, message):
    with pytest.raises(PositionError, match=message):
        from_position(pos)


def test_the_issue_example_a_black_three_meld_with_jokers_is_refused():
    # 4 black 3s + 3 Jokers counted as a canasta and scored a 300 bonus
    pos = classic_meld_position()
    pos["melds"][0]["black 3"] = {"naturals": 4, "jokers": 3, "twos": 0}
    pos["hands"][0] = ["5"]
    pos["stock"] = [c for c in pos["stock"] if c != "black 3"]
    for _ in range(3):
        pos["stock"].remove("Joker")
    pos["stock"] += ["Q", "Q", "Q"]
    refused(pos, "a black-3 meld is 3 to 4 black 3s and no wild card, got 4 black 3s, 3 jokers")


def test_a_black_three_meld_only_in_the_going_out_turn():
    pos = classic_meld_position()
    pos["melds"][0]["black 3"] = {"naturals": 3, "jokers": 0, "twos": 0}
    pos["stock"] = [c for c in pos["stock"]]
    for _ in range(3):
        pos["stock"].remove("black 3")
    pos["turn"]["laid"] = True
    refused(pos, "black 3s are melded only by a player going out this turn")
    pos["turn"]["must_out"] = True  # the same position in the going-out turn loads
    g = from_position(pos, check_moves=False)
    assert g.must_out and g.nat[0][2] == 3
    pos["options"]["black_three_melds"] = False
    refused(pos, "these rules never meld")


def test_wild_card_limits_of_melds_and_books():
    pos = classic_meld_position()
    pos["melds"][0]["K"] = {"naturals": 3, "jokers": 2, "twos": 2}  # 4 wild cards > 3
    refused(pos, "not a legal meld")
    # Hand and Foot: a book of 4 naturals + 3 wild cards breaks "wild cards at most half"
    g = build_hf(hands=("9 9 5", "4", "4", "4"), books=([book("K", 7)], []), phase="MELD")
    pos = to_position(g)
    pos["books"][0][0] = {"rank": "K", "naturals": 4, "jokers": 1, "twos": 2}
    pos["stock"] += ["K", "K", "K"]
    pos["stock"].remove("Joker")
    pos["stock"].remove("2")
    pos["stock"].remove("2")
    refused(pos, "breaks the meld rules")
    # a Classic position with closed books
    pos = classic_meld_position()
    pos["books"] = [[{"rank": "4", "naturals": 7, "jokers": 0, "twos": 0}], []]
    for _ in range(7):
        pos["stock"].remove("4")
    refused(pos, "not a book|no closed books")


def test_a_wild_book_needs_wild_melds():
    g = build_hf(hands=("9 9 5", "4", "4", "4"), books=([book("wild", 0, 7, 0)], []),
                 phase="MELD")
    pos = to_position(g)
    pos["options"]["wild_melds"] = False
    pos["options"]["pile_wild_pair"] = False
    refused(pos, "a wild book needs the wild_melds rule")


def test_the_frozen_flag_follows_the_pile():
    pos = classic_meld_position()
    pos["pile_frozen"] = True
    refused(pos, "pile_frozen is true but the pile holds no wild card or red 3")
    pos = classic_meld_position()
    pos["pile"].append("2")
    pos["stock"].remove("2")
    refused(pos, "pile_frozen is false but the pile holds a wild card or a red 3")
    pos["pile_frozen"] = True
    assert from_position(pos).pile_frozen


def test_the_minimum_follows_the_score_and_the_round():
    pos = classic_meld_position()
    pos["minimum"] = [50, 90]
    refused(pos, r"minimum\[1\] is 90, but a partnership with 0 points in deal 0 needs 50")
    pos = to_position(build_hf(hands=("9 9 5", "4", "4", "4"), phase="MELD", round_no=3))
    pos["minimum"] = [60, 120]
    refused(pos, r"minimum\[0\] is 60, .* needs 120")


def test_opened_follows_the_melds():
    pos = classic_meld_position()
    pos["opened"] = [True, True]
    refused(pos, r"opened\[1\] is true but partnership 1 has no meld")
    pos = classic_meld_position()
    pos["opened"] = [False, False]  # melds of an earlier turn, yet not opened
    refused(pos, "partnership 0 has melds but has not opened")
    pos["seat_melded"] = [False, False, False, False]
    pos["turn"].update(laid=True, new_ranks=["K"], turn_points=70)
    refused(pos, r"turn_points \(70\) must equal the points on the table \(70\) and stay "
                 r"below the minimum \(50\)")
    pos = classic_meld_position()
    pos["seat_melded"] = [True, True, True, True]
    refused(pos, r"seat_melded\[1\] is true but partnership 1 has no meld")


def test_the_turn_record():
    pos = to_position(build(hands=("Q Q Q 5", *OTHERS), melds=({"K": meld(7)}, {}),
                            pile="J"))
    assert pos["phase"] == "DRAW"
    for field, value in (("drew_stock", True), ("laid", True), ("asked", 1),
                         ("new_ranks", ["K"]), ("no_discard", True)):
        bad = copy.deepcopy(pos)
        bad["turn"][field] = value
        refused(bad, "phase DRAW needs an empty turn record")
    pos = classic_meld_position()
    pos["turn"]["pending"] = ["7"]
    pos["stock"].remove("7")
    refused(pos, "turn.pending holds a set-aside pile outside phase PICKUP")
    pos = classic_meld_position()
    pos["turn"]["must_out"] = True
    refused(pos, "turn.must_out is set but partnership on turn melded no black 3s")
    pos = classic_meld_position()
    pos["turn"]["no_discard"] = True
    refused(pos, "turn.no_discard arises only when the last stock card drawn was a red 3")
    pos = classic_meld_position()
    pos["turn"]["new_ranks"] = ["A"]
    pos["turn"]["laid"] = True
    refused(pos, "turn.new_ranks lists a meld partnership 0 does not hold")


def test_the_outcome_fields_follow_the_phase():
    g = build(hands=("Q Q Q 5", *OTHERS), melds=({"K": meld(7)}, {}), pile="J",
              phase="MELD", turn={"drew_stock": True})
    g.apply(g.table.parse("meld Q: 3 naturals"))
    g.apply(g.table.parse("discard 5"))
    over = to_position(g)
    assert over["phase"] == "HAND_OVER" and from_position(over).went_out == 0
    bad = copy.deepcopy(over)
    bad["sheets"] = None
    refused(bad, "sheets must be present exactly when the hand is over")
    bad = copy.deepcopy(over)
    bad["winner"] = 0
    refused(bad, "winner must be set exactly when the game is over")
    bad = copy.deepcopy(over)
    bad["scores"] = [0, 0]
    refused(bad, "totals must equal scores")
    pos = classic_meld_position()
    pos["concealed"] = True
    refused(pos, "concealed is true but nobody went out")


# ---------------------------------------------------------------------- generated cases
def played_position(variant: str, seed: int, decisions: int) -> dict:
    """The position after ``decisions`` random legal decisions of a seeded hand."""
    g = Game(preset(variant), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if g.hand_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return to_position(g)


def _flip_frozen(p):
    p["pile_frozen"] = not p["pile_frozen"]


def _raise_minimum(p):
    p["minimum"][1] += 5


def _open_empty_side(p):
    empty = [t for t in (0, 1) if not p["melds"][t] and not p["books"][t]
             and not (p["wild_melds"][t]["jokers"] + p["wild_melds"][t]["twos"])]
    if not empty:
        return False
    p["opened"][empty[0]] = True


def _concealed_while_running(p):
    if p["went_out"] is not None:
        return False
    p["concealed"] = True


def _winner_while_running(p):
    if p["phase"] == "GAME_OVER":
        return False
    p["winner"] = 1


def _must_out_without_black_threes(p):
    team = p["current"] % 2
    if p["phase"] in ("HAND_OVER", "GAME_OVER") or "black 3" in p["melds"][team]:
        return False
    p["turn"]["must_out"] = True


MUTATIONS = [_flip_frozen, _raise_minimum, _open_empty_side, _concealed_while_running,
             _winner_while_running, _must_out_without_black_threes]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["classic", "hand_and_foot"]),
       seed=st.integers(0, 10**6), decisions=st.integers(0, 400))
def test_every_position_reached_by_play_loads(variant, seed, decisions):
    pos = played_position(variant, seed, decisions)
    assert to_position(from_position(pos)) == pos


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["classic", "hand_and_foot"]),
       seed=st.integers(0, 10**6), decisions=st.integers(0, 300),
       mutation=st.sampled_from(MUTATIONS))
def test_unreachable_edits_of_a_played_position_are_refused(variant, seed, decisions,
                                                            mutation):
    pos = played_position(variant, seed, decisions)
    if mutation(pos) is False:
        return
    if mutation is _raise_minimum and pos["phase"] in ("HAND_OVER", "GAME_OVER"):
        return  # the minimum is checked only while the hand runs
    with pytest.raises(PositionError, match="unreachable position"):
        from_position(pos)


def test_a_hand_and_foot_seat_without_its_foot_plays_the_foot():
    # found by an adversarial review: feet emptied into the stock loaded, and play from
    # there reached a seat on turn with nothing to play (a 500 from the service)
    pos = to_position(Game(preset("hand_and_foot"), seed=1))
    for s in range(4):
        pos["stock"] += pos["feet"][s]
        pos["feet"][s] = []
    refused(pos, "seat 0 has no foot but is not playing its foot")


def test_hand_and_foot_rounds_bound_the_hand_number():
    pos = to_position(Game(preset("hand_and_foot"), seed=1))
    pos["hand_number"] = 50
    refused(pos, "hand_number 50 is outside these rules' 4 rounds")
