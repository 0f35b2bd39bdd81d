"""Baseline policies: legality over many random positions, determinism, the decoded view,
the going-out planner, and the heuristic's choices in literal positions."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import canasta_env
from canasta_env.engine import actions as A
from canasta_env.engine.cards import JOKER, NAME_TO_CLASS, TWO
from canasta_env.observation import OBS_SIZE, encode
from canasta_env.policies import (
    HeuristicPolicy,
    Policy,
    RandomPolicy,
    TableView,
    can_go_out,
    p_at_least,
)
from tests.helpers.engine import build, meld


def view_of(g, seat=None):
    """(observation, mask) of the seat to move in an engine position."""
    seat = g.to_move if seat is None else seat
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[g.legal_actions()] = 1
    return encode(g, seat), mask


def counts(text: str) -> list[int]:
    v = [0] * 15
    for tok in text.split():
        v[NAME_TO_CLASS[{"b3": "black 3"}.get(tok, tok)]] += 1
    return v


def test_protocol():
    assert isinstance(RandomPolicy(0), Policy)
    assert isinstance(HeuristicPolicy(), Policy)


def test_policies_always_legal_over_random_positions():
    """Random and heuristic moves over mixed play (each step taken by one of them at
    random), every phase reached, both policies asked at every position."""
    env = canasta_env.raw_env(starting_scores="sample")
    heur, rand = HeuristicPolicy(), RandomPolicy(1)
    pick = np.random.default_rng(0)
    phases = collections.Counter()
    for seed in range(40):
        env.reset(seed=seed)
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            agent = env.agent_selection
            obs = env.observe(agent)
            mask = obs["action_mask"]
            if not mask.any():  # an engine dead end is not the policies' business
                break
            phases[env.game.phase.name] += 1
            a_h = heur.act(obs["observation"], mask)
            a_r = rand.act(obs["observation"], mask)
            assert isinstance(a_h, int) and isinstance(a_r, int)
            assert mask[a_h] == 1, (A.describe(a_h), env.game.to_json())
            assert mask[a_r] == 1
            env.step(a_h if pick.random() < 0.6 else a_r)
    assert {"DRAW", "MELD", "PICKUP", "ANSWER"} <= set(phases), phases


def test_empty_mask_is_an_error():
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    for p in (RandomPolicy(0), HeuristicPolicy()):
        with pytest.raises(ValueError, match="no legal action"):
            p.act(obs, mask)


def test_random_policy_reset_replays():
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.ones(A.NUM_ACTIONS, dtype=np.int8)
    p = RandomPolicy(5)
    first = [p.act(obs, mask) for _ in range(20)]
    p.reset(5)
    assert [p.act(obs, mask) for _ in range(20)] == first
    assert len(set(first)) > 5  # uses the whole mask


def test_heuristic_is_a_function_of_observation_and_mask():
    env = canasta_env.raw_env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    h1, h2 = HeuristicPolicy(), HeuristicPolicy()
    h2.reset(123)
    assert h1.act(obs["observation"], obs["action_mask"]) == \
        h2.act(obs["observation"].copy(), obs["action_mask"].copy())


def test_table_view_decodes_the_observation():
    g = build(hands=("K K Q b3 Joker 5", "4 4", "9 9 10", "5 6 7"),
              melds=({"A": meld(5, 1, 1)}, {"8": meld(3)}), pile="7 J", opened=(True, True),
              red_threes=(1, 0, 0, 2), scores=(-100, 3200), current=0, phase="MELD",
              turn={"drew_stock": True})
    v = TableView(encode(g, 0))
    assert v.hand == g.hands[0]
    assert v.sizes == [6, 2, 3, 3]
    assert v.red3 == [1, 0, 0, 2]
    ace = NAME_TO_CLASS["A"]
    assert (v.nat[0][ace], v.jok[0][ace], v.two[0][ace]) == (5, 1, 1)
    assert v.nat[1][NAME_TO_CLASS["8"]] == 3
    assert v.top == NAME_TO_CLASS["J"] and v.pile_size == 2
    assert v.minimum == [15, 120] and v.opened == [True, True]
    assert v.scores == [-100, 3200]
    assert v.drew_stock and not v.must_out
    # seen from the left opponent the sides swap
    w = TableView(encode(g, 1))
    assert w.nat[1][ace] == 5 and w.sizes == [2, 3, 3, 6]


def test_can_go_out_planner():
    none = [0] * 15
    k7 = counts("K K K K K K K")  # a natural canasta on the table
    # no canasta anywhere: a six-card meld plus a wild card makes one
    assert can_go_out(counts("Q Joker"), counts("Q Q Q Q Q"), none)
    assert not can_go_out(counts("Q 9"), counts("Q Q Q Q"), none)
    assert can_go_out(counts("9 9 9 5"), k7, none)  # meld 9s, discard the 5
    assert not can_go_out(counts("9 9 5 4"), k7, none)  # a pair needs a wild card
    assert can_go_out(counts("9 9 2 4"), k7, none)
    assert can_go_out(counts("b3 b3 b3 4"), k7, none)  # black 3s meld going out
    assert not can_go_out(counts("b3 b3 4"), k7, none)
    # at most three wild cards per meld
    full = counts("K K K K K K K 9 9 9"), counts("K K K 9 9 9")  # both melds hold 3 wilds
    assert not can_go_out(counts("Joker 2"), *full)
    assert can_go_out(counts("Joker"), *full)  # discarded


def test_heuristic_discards_black_three_first_and_never_a_wild():
    g = build(hands=("b3 K 9 Joker 2 5 5", "", "", ""), melds=({"A": meld(7)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    obs, mask = view_of(g)
    assert HeuristicPolicy().act(obs, mask) == A.discard(NAME_TO_CLASS["black 3"])
    g = build(hands=("K 9 Joker 2 5 5", "", "", ""), melds=({"A": meld(7)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(g))
    assert a not in (A.discard(JOKER), A.discard(TWO))
    assert A.DISCARD <= a


def test_heuristic_avoids_feeding_opponents_melds():
    # opponents melded 9s and the pile is not frozen for them: keep the 9
    g = build(hands=("9 K 4 4 J J", "Q Q", "", ""), melds=({"A": meld(7)}, {"9": meld(4)}),
              pile="5", opened=(True, True), current=0, phase="MELD",
              turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(g))
    assert a == A.discard(NAME_TO_CLASS["K"]), A.describe(a)


def test_heuristic_opens_when_it_can():
    g = build(hands=("K K K Q Q Q 5 6 9 4 8", "", "", ""), current=0, phase="MELD",
              turn={"drew_stock": True}, scores=(0, 0))
    a = HeuristicPolicy().act(*view_of(g))
    assert A.START_MELD <= a < A.ADD_TO_MELD, A.describe(a)
    assert a % 3 == A.START_MELD % 3  # three naturals, no wild card


def test_heuristic_takes_a_good_pile():
    g = build(hands=("8 8 5 6 K", "", "", ""), melds=({"A": meld(7)}, {}),
              pile="4 9 Q J 8", opened=(True, False), current=0, phase="DRAW")
    assert HeuristicPolicy().act(*view_of(g)) == A.TAKE_PAIR


def test_heuristic_adds_naturals_and_goes_out_when_ahead():
    # a canasta on the table, the hand melds out: add the 9, then discard the 5
    g = build(hands=("9 5", "4 5 6 7 8 9 10 J Q", "", "Q J 10 9 8 7 6 5 4"),
              melds=({"A": meld(7), "9": meld(3)}, {}), opened=(True, False), current=0,
              phase="MELD", turn={"drew_stock": True})
    h = HeuristicPolicy()
    a = h.act(*view_of(g))
    assert a == A.add_to_meld(NAME_TO_CLASS["9"], 0), A.describe(a)
    g.apply(a)
    g.apply(h.act(*view_of(g)))
    assert g.hand_over and g.went_out == 0


def test_heuristic_keeps_two_cards_without_a_canasta():
    # three aces go onto the ace meld one by one, the last two cards stay: then a discard
    g = build(hands=("A A A 5 K", "", "", ""), melds=({"A": meld(3)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    h = HeuristicPolicy()
    while g.current == 0 and not g.hand_over:
        g.apply(h.act(*view_of(g)))
    assert not g.hand_over and g.hands[0][NAME_TO_CLASS["A"]] == 0  # melded aces, discarded
    assert sum(g.hands[0]) == 1


def test_heuristic_starts_melds_only_from_a_long_hand():
    # 5 cards (< start_meld_hand = 12): the triple of 9s stays in hand to take the pile with
    g = build(hands=("9 9 9 5 K", "", "", ""), melds=({"A": meld(3)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(g))
    assert a in (A.discard(NAME_TO_CLASS["5"]), A.discard(NAME_TO_CLASS["K"])), A.describe(a)
    # 12 cards: the 9s are melded first
    g = build(hands=("9 9 9 4 5 6 7 8 10 J Q K", "", "", ""), melds=({"A": meld(3)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(g))
    assert a == A.START_MELD + 3 * (NAME_TO_CLASS["9"] - NAME_TO_CLASS["4"]), A.describe(a)
    # the threshold is an option
    g = build(hands=("9 9 9 5 K", "", "", ""), melds=({"A": meld(3)}, {}),
              opened=(True, False), current=0, phase="MELD", turn={"drew_stock": True})
    a = HeuristicPolicy(start_meld_hand=0).act(*view_of(g))
    assert a == A.START_MELD + 3 * (NAME_TO_CLASS["9"] - NAME_TO_CLASS["4"]), A.describe(a)


def test_p_at_least_is_the_hypergeometric_tail():
    # 4 of 10 unseen cards, 3 of them of the class: P(X >= 2) = (3*21 + 1*7) / 210 = 1/3
    assert p_at_least(2, 10, 3, 4) == pytest.approx(1 / 3)
    assert p_at_least(1, 10, 3, 4) == pytest.approx(1 - 35 / 210)  # 1 - C(7,4)/C(10,4)
    assert p_at_least(0, 10, 0, 4) == 1.0
    assert p_at_least(1, 10, 0, 4) == 0.0
    assert p_at_least(1, 5, 5, 3) == 1.0
    assert p_at_least(4, 10, 3, 4) == 0.0  # more than there are
    assert p_at_least(1, 10, 3, 0) == 0.0  # no hidden cards
    assert p_at_least(1, 3, 3, 9) == 1.0  # more draws than cards: all of them
    with pytest.raises(ValueError, match="cannot be among"):
        p_at_least(1, 5, 8, 3)


@pytest.mark.parametrize("kw", [{"start_meld_hand": "12"}, {"start_meld_hand": -1},
                                {"decks": 0}, {"jokers": True}])
def test_heuristic_bad_options_are_clear_errors(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        HeuristicPolicy(**kw)


def test_table_view_unseen_counts():
    g = build(hands=("K K 9 Joker", "Q", "", ""), melds=({"A": meld(5, 1, 1)}, {"K": meld(3)}),
              pile="K 2 5", opened=(True, True), red_threes=(1, 0, 0, 2), current=0,
              phase="MELD", turn={"drew_stock": True})
    g.known[1][NAME_TO_CLASS["K"]] = 1  # the left opponent took a K with the pile
    u = TableView(encode(g, 0)).unseen()
    k, a, j, two = NAME_TO_CLASS["K"], NAME_TO_CLASS["A"], JOKER, TWO
    assert u[k] == 8 - 2 - 3 - 1 - 1  # my hand, their meld, the pile, known in left's hand
    assert u[a] == 8 - 5
    assert u[j] == 4 - 1 - 1  # mine, on our ace meld
    assert u[two] == 8 - 1 - 1  # on our ace meld, in the pile
    assert u[NAME_TO_CLASS["red 3"]] == 4 - 3
    assert u[NAME_TO_CLASS["Q"]] == 8  # the left opponent's Q is hidden from me
    assert sum(u) == 108 - 4 - 7 - 3 - 3 - 3 - 1  # hand, melds, pile, red 3s, known K
    # another pack (three decks, six jokers: 162 cards) is passed in
    from canasta_env.engine.cards import deck_counts
    u3 = TableView(encode(g, 0)).unseen(deck_counts(3, 6))
    assert u3[k] == 12 - 2 - 3 - 1 - 1 and u3[j] == 6 - 2
    assert sum(u3) == 162 - 21


def test_heuristic_discards_the_card_the_left_opponent_cannot_take():
    # K and 9 are both singletons worth 10; all eight Ks are accounted for (mine and
    # seven in the pile), so nobody can hold a pair of them: the K goes, not the 9
    g = build(hands=("K 9 4 4 J J", "5 6 7 10 Q Q", "", ""), melds=({"A": meld(7)}, {"8": meld(3)}),
              pile="K K K K K K K", opened=(True, True), current=0, phase="MELD",
              turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(g))
    assert a == A.discard(NAME_TO_CLASS["K"]), A.describe(a)
    # 9 and K: same value, same number of unseen copies -- the tie goes to the lower
    # action id, the 9; once the left opponent is known to hold a 9 (taken with the pile),
    # one more 9 or a wild card lets them take the pile, so the K goes instead
    def position():
        return build(hands=("9 K 4 4 J J", "9 6 7 10 5 5", "", ""),
                     melds=({"A": meld(7)}, {"8": meld(3)}), pile="Q", opened=(True, True),
                     current=0, phase="MELD", turn={"drew_stock": True})
    a = HeuristicPolicy().act(*view_of(position()))
    assert a == A.discard(NAME_TO_CLASS["9"]), A.describe(a)
    g = position()
    g.known[1][NAME_TO_CLASS["9"]] = 1
    a = HeuristicPolicy().act(*view_of(g))
    assert a == A.discard(NAME_TO_CLASS["K"]), A.describe(a)


@pytest.mark.parametrize("my_hand, expected", [
    ("4", A.ANSWER_YES),  # my hand is small: yes
    ("Joker Joker A A 2 2 10 10 9 9 7 7 6 6", A.ANSWER_NO),  # behind, heavy hand: no
])
def test_heuristic_answers_partner(my_hand, expected):
    # seat 0 asked; seat 2 (partner) answers; the opponents lead on the table
    g = build(hands=("K K K 5", "4 5 6 4 5", my_hand, "4 5 6 4 5"),
              melds=({"K": meld(4, 0, 3)}, {"J": meld(7), "Q": meld(7), "8": meld(5)}),
              opened=(True, True), current=0, phase="MELD", turn={"drew_stock": True})
    g.apply(A.ASK_PARTNER)
    assert g.to_move == 2
    obs, mask = view_of(g)
    assert mask[A.ANSWER_YES] and mask[A.ANSWER_NO]
    assert HeuristicPolicy().act(obs, mask) == expected
