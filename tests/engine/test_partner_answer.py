"""The partner's answer to "may I go out?" is a free choice (docs/RULES.md §2.12, §6):
asking is offered only while both answers leave the asker a legal way to finish the
turn, so a "no" is never removed from the partner's mask. The two examples of the issue
that found the bug, with their right outcomes, and a random-play sweep of both variants
that asks whenever the mask allows it."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canasta_env.engine import Game, preset
from canasta_env.engine import actions as A
from tests.helpers.engine import build, meld
from tests.helpers.engine import legal_names as classic_names
from tests.helpers.engine import play as classic_play
from tests.helpers.hand_and_foot import book, build_hf, legal_names, play

OTHERS = ("5 6 7 8 9 10 J Q K A 4",) * 3
# partnership A's books: K (7 natural), Q (7 natural), J (5 natural + 2 twos),
# 10 (6 natural + 1 Joker): 2 clean + 2 dirty, enough to go out
BOOKS = [book("K", 7), book("Q", 7), book("J", 5, 0, 2), book("10", 6, 1)]


def hand_and_foot_example():
    """Round 1, seat 0 in its foot (foot empty), hand 9 9 9 5, after a stock draw."""
    return build_hf(hands=("9 9 9 5", *OTHERS), books=(BOOKS, []),
                    in_foot=(True, False, False, False), opened=(True, False),
                    phase="MELD", turn={"drew_stock": True})


def test_hand_and_foot_example_melding_down_to_one_card_needs_the_question_first():
    g = hand_and_foot_example()
    # melding the 9s would leave the 5, playable only after a yes, and a no would
    # strand it: not legal before asking
    assert legal_names(g) == ["ask partner: may I go out?", "discard 5", "discard 9"]
    play(g, "ask partner: may I go out?")
    assert g.to_move == 2
    assert legal_names(g) == ["answer yes", "answer no"]
    play(g, "answer yes")
    assert legal_names(g) == ["meld 9: 3 naturals"]
    play(g, "meld 9: 3 naturals", "discard 5")
    assert g.hand_over and g.went_out == 0 and g.sheets[0].going_out == 100


def test_hand_and_foot_example_after_a_no_the_player_discards():
    g = hand_and_foot_example()
    play(g, "ask partner: may I go out?", "answer no")
    assert legal_names(g) == ["discard 5", "discard 9"]
    play(g, "discard 5")
    assert not g.hand_over and g.current == 1


def test_classic_example_meld_the_queens_then_no_question():
    # a K canasta, hand Q Q Q 9: after melding the Qs the player goes out by discarding
    # the 9; asking is not offered, since a no would leave the one card nothing legal
    g = build(hands=("Q Q Q 9", "5 5 5 6 6 6 7 7 7 8 8", "8 8 9 9 9 10 10 10 J J J",
                     "10 J 5 6 7 9 9 9 A A A"),
              melds=({"K": meld(7)}, {}), pile="J", phase="MELD", turn={"drew_stock": True})
    assert classic_names(g) == ["meld Q: 3 naturals", "ask partner: may I go out?",
                                "discard 9", "discard Q"]
    classic_play(g, "meld Q: 3 naturals")
    assert classic_names(g) == ["discard 9"]
    classic_play(g, "discard 9")
    assert g.went_out == 0 and g.sheets[0].going_out == 100


@pytest.mark.parametrize("variant,hands", [("classic", 150), ("hand_and_foot", 100)])
def test_random_play_the_answer_is_always_free(variant, hands):
    """Meld eagerly (to reach the books going out needs), ask whenever allowed, answer at
    random: both answers are always offered, and after either the asker can finish the
    turn (no dead end)."""
    asks = {A.ANSWER_YES: 0, A.ANSWER_NO: 0}
    for seed in range(hands):
        g = Game(preset(variant), seed=seed)
        rng = random.Random(seed)
        while not g.hand_over:
            legal = g.legal_actions()
            assert legal, "a seat on turn always has a legal action"
            if A.ASK_PARTNER in legal and rng.random() < 0.7:
                g.apply(A.ASK_PARTNER)
                assert g.legal_actions() == [A.ANSWER_YES, A.ANSWER_NO]
                answer = rng.choice([A.ANSWER_YES, A.ANSWER_NO])
                asks[answer] += 1
                g.apply(answer)
                assert g.legal_actions(), "either answer leaves the asker a legal move"
                continue
            melds = [a for a in legal if A.START_MELD <= a < A.MELD_BLACK_THREES
                     or A.START_WILD_MELD <= a < A.TAKE_WILD_PAIR]
            g.apply(rng.choice(melds if melds and rng.random() < 0.9 else legal))
    assert asks[A.ANSWER_YES] >= 3 and asks[A.ANSWER_NO] >= 3, asks


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(["classic", "hand_and_foot"]), seed=st.integers(0, 10**9),
       required=st.booleans())
def test_generated_hands_never_force_the_answer(variant, seed, required):
    """Generated hands (asking optional or required): whenever asking is offered, both
    answers are offered, and each leaves the asker a legal move."""
    options = preset(variant).with_changes(ask_partner_required=required or
                                           variant == "hand_and_foot")
    g = Game(options, seed=seed)
    rng = random.Random(seed)
    while not g.hand_over:
        legal = g.legal_actions()
        if A.ASK_PARTNER in legal:
            for answer in (A.ANSWER_YES, A.ANSWER_NO):
                h = g.clone()
                h.apply(A.ASK_PARTNER)
                assert h.legal_actions() == [A.ANSWER_YES, A.ANSWER_NO]
                h.apply(answer)
                assert h.legal_actions()
        melds = [a for a in legal if A.START_MELD <= a < A.MELD_BLACK_THREES
                 or A.START_WILD_MELD <= a < A.TAKE_WILD_PAIR]
        g.apply(rng.choice(melds if melds and rng.random() < 0.9 else legal))
