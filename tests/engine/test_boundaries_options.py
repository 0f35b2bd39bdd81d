"""Options are refused at construction unless every seed deals and plays with them
(docs/RULES.md §2.2 Deal, §3.1 Pack hand and foot,
§7 environment contract & boundaries).

The deal bound (:attr:`RulesOptions.deal_worst_case`): the worst-case deal and first draw
take ``4 * (hand_size + foot_size) + (jokers + 4 * decks) + 2 * decks + 1 + draw_count``
cards, so the options fit exactly when ``4 * (hand_size + foot_size) + 1 + draw_count <=
46 * decks``. Tests: the two reported examples with their literal messages, the worst-case
shuffle at the bound (forced through ``random.Random.shuffle``), the black-3 dead end a pack
of more than two decks could reach, and a hypothesis sweep of random option sets: each
accepted set plays seeded random games without an exception, each refused set is refused
with :class:`OptionsError` when the environment is constructed.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import canasta_env
from canasta_env.engine import Game, OptionsError, from_position, preset, to_position
from canasta_env.engine import actions as A
from canasta_env.engine.cards import JOKER, RED_THREE, TWO, deck_counts
from tests.helpers.hand_and_foot import book, build_hf, play


# ---------------------------------------------------------------------- the two examples
def test_hand_size_26_is_refused_when_the_env_is_made():
    with pytest.raises(OptionsError) as e:
        canasta_env.env(hand_size=26)
    assert str(e.value) == (
        "hand_size 26 does not fit a pack of 108 cards for 4 players: the worst-case deal "
        "needs 122 cards (4 x 26 dealt, 12 wild cards and 4 red 3s turned up or replaced, "
        "1 natural upcard, 1 to draw); 4 * (hand_size + foot_size) + 1 + draw_count must be "
        "<= 46 * decks = 92; at most hand_size 22 fits")


def test_one_deck_four_jokers_thirteen_cards_is_refused():
    with pytest.raises(OptionsError) as e:
        canasta_env.raw_env(decks=1, jokers=4, hand_size=13)
    assert str(e.value) == (
        "hand_size 13 does not fit a pack of 56 cards for 4 players: the worst-case deal "
        "needs 64 cards (4 x 13 dealt, 8 wild cards and 2 red 3s turned up or replaced, "
        "1 natural upcard, 1 to draw); 4 * (hand_size + foot_size) + 1 + draw_count must be "
        "<= 46 * decks = 46; at most hand_size 11 fits")


def test_the_largest_accepted_hands_deal_every_seed():
    """hand_size 22 (Classic) and 11 (one deck, four jokers) are the largest accepted;
    23 and 12 are refused; the accepted ones deal and play 500 seeds each."""
    assert preset("classic", hand_size=22).deal_worst_case == 106
    assert preset("classic", decks=1, jokers=4, hand_size=11).deal_worst_case == 56
    for kw in ({"hand_size": 23}, {"decks": 1, "jokers": 4, "hand_size": 12}):
        with pytest.raises(OptionsError, match="does not fit a pack"):
            preset("classic", **kw)
    for kw in ({"hand_size": 22}, {"decks": 1, "jokers": 4, "hand_size": 11}):
        o = preset("classic", **kw)
        for seed in range(500):
            g = Game(o, seed=seed)
            assert len(g.stock) >= o.draw_count
            g.apply(A.DRAW_STOCK)


def test_hand_and_foot_bound_counts_the_feet_and_the_draw():
    # 5 decks: 4 * (hand + foot) + 1 + 2 <= 230, so hand + foot <= 56
    assert preset("hand_and_foot", hand_size=30, foot_size=26).deal_worst_case == 224 + 30 + 10 + 1 + 2
    with pytest.raises(OptionsError) as e:
        preset("hand_and_foot", hand_size=31, foot_size=26)
    assert "hand_size 31 + foot_size 26 does not fit a pack of 270 cards" in str(e.value)
    assert "2 to draw" in str(e.value) and "at most hand_size 30 fits" in str(e.value)
    with pytest.raises(OptionsError, match="no hand_size fits"):
        preset("hand_and_foot", decks=1, jokers=2, foot_size=11, hand_size=1)


# ---------------------------------------------------------------------- worst-case shuffle
def _worst_case_shuffle(self, x):
    """Arrange the pack so the deal takes the most cards: every red 3 dealt into a hand
    (each one replaced later), the other dealt cards naturals, then every wild card
    turned onto the pile before a natural upcard. The stock's top is the list's end."""
    reds = [c for c in x if c == RED_THREE]
    wilds = [c for c in x if c in (JOKER, TWO)]
    naturals = [c for c in x if c not in (JOKER, TWO, RED_THREE)]
    n_dealt = _worst_case_shuffle.dealt
    order = reds + naturals[:n_dealt - len(reds)] + wilds + naturals[n_dealt - len(reds):]
    x[:] = order[::-1]


@pytest.mark.parametrize("variant,kw", [
    ("classic", {"decks": 1, "jokers": 4, "hand_size": 11}),             # 44 + 1 + 1 = 46
    ("classic", {"hand_size": 22}),                                       # 88 + 1 + 1 <= 92
    ("hand_and_foot", {"decks": 1, "jokers": 2, "hand_size": 5, "foot_size": 5,
                       "draw_count": 5}),                                # 40 + 1 + 5 = 46
])
def test_the_worst_case_deal_leaves_the_first_draw(monkeypatch, variant, kw):
    o = preset(variant, **kw)
    _worst_case_shuffle.dealt = 4 * (o.hand_size + o.foot_size)
    monkeypatch.setattr(random.Random, "shuffle", _worst_case_shuffle)
    g = Game(o, seed=0, dealer=0)
    monkeypatch.undo()
    pack = sum(deck_counts(o.decks, o.jokers))
    assert len(g.pile) == o.jokers + 4 * o.decks + 1  # every wild card, then a natural
    assert sum(g.red3) == 2 * o.decks  # every red 3 dealt and replaced
    assert len(g.stock) == pack - (o.deal_worst_case - o.draw_count)
    assert len(g.stock) == 46 * o.decks - 4 * (o.hand_size + o.foot_size) - 1
    assert len(g.stock) >= o.draw_count
    if o.deal_worst_case == pack:
        assert len(g.stock) == o.draw_count  # the bound is tight
    _play(g, random.Random(0), 400)


# ---------------------------------------------------------------------- black 3s of big packs
def test_five_black_threes_in_hand_and_foot_can_still_go_out():
    """The Hand and Foot pack has 10 black 3s but a black-3 meld holds at most 4: with
    five in hand after the partner's yes, the meld takes four and the fifth is the
    discard (before: "ask partner" was offered, then no legal action after "yes")."""
    g = build_hf(hands=("b3 b3 b3 b3 b3", "4 5 6", "4 5 6", "4 5 6"),
                 in_foot=(True, False, False, False), phase="MELD",
                 books=([book("K", 7), book("Q", 7), book("J", 5, 2), book("10", 6, 0, 1)], []))
    play(g, "ask partner: may I go out?", "answer yes", "meld black 3s")
    assert g.hands[0][2] == 1 and g.nat[0][2] == 4
    play(g, "discard black 3")
    assert g.hand_over and g.went_out == 0


def test_six_black_threes_never_promise_going_out():
    """With six black 3s (and at most 4 in a meld) going out is impossible: asking
    partner is not offered, discarding is."""
    g = build_hf(hands=("b3 b3 b3 b3 b3 b3", "4 5 6", "4 5 6", "4 5 6"),
                 in_foot=(True, False, False, False), phase="MELD",
                 books=([book("K", 7), book("Q", 7), book("J", 5, 2), book("10", 6, 0, 1)], []))
    legal = g.legal_actions()
    assert A.ASK_PARTNER not in legal and A.MELD_BLACK_THREES not in legal
    assert legal == [A.DISCARD_ACTION[2]]


def test_classic_with_three_decks_melds_four_black_threes_of_five():
    """Classic rules with three decks (6 black 3s), the partner said yes; the hand is
    five black 3s: meld four (black_three_meld_max), discard the fifth."""
    o = preset("classic", decks=3, ask_partner_required=True)
    pos = to_position(Game(o, seed=1, dealer=3))
    names = {"K": 7, "black 3": 5}
    stock = list(pos["stock"])
    for seat in range(4):
        stock += pos["hands"][seat]
        pos["hands"][seat] = []
    for name, n in names.items():
        for _ in range(n):
            stock.remove(name)
    pos["hands"][0] = ["black 3"] * 5
    for seat in (1, 2, 3):
        pos["hands"][seat] = [stock.pop(next(i for i in range(len(stock))
                                             if stock[i] not in ("red 3", "Joker", "2")))
                              for _ in range(5)]
    pos["stock"] = stock
    pos["melds"] = [{"K": {"naturals": 7, "jokers": 0, "twos": 0}}, {}]
    pos["opened"] = [True, False]
    pos["seat_melded"] = [True, False, True, False]
    pos["phase"] = "MELD"
    pos["current"] = 0
    pos["turn"].update(drew_stock=True, asked=1)
    pos["log"] = []
    g = from_position(pos)
    assert g.legal_actions() == [A.MELD_BLACK_THREES]
    g.apply(A.MELD_BLACK_THREES)
    assert g.nat[0][2] == 4 and g.hands[0][2] == 1
    assert g.legal_actions() == [A.DISCARD_ACTION[2]]
    g.apply(A.DISCARD_ACTION[2])
    assert g.hand_over and g.went_out == 0


# ---------------------------------------------------------------------- random option sets
def _play(g: Game, rng: random.Random, max_decisions: int) -> None:
    """Random legal play: every position has a legal action until the hand (or game)
    ends, or ``max_decisions`` decisions were made."""
    for _ in range(max_decisions):
        if g.game_over:
            return
        if g.hand_over:
            g.next_hand()
            continue
        legal = g.legal_actions()
        assert legal, f"no legal action in phase {g.phase.name}: {g.to_json()}"
        g.apply(rng.choice(legal))


BOOLS = ("pile_pair_only", "wild_melds", "wilds_at_most_half_naturals", "black_three_freezes",
         "red_three_last_card_may_meld", "one_card_pile_restriction", "ask_partner_required",
         "black_three_melds", "pile_wild_pair", "red_three_negative_unmelded")


@st.composite
def option_sets(draw):
    """(variant, rules changes): the pack, hand, foot and draw sizes near and across the
    deal bound, and a random subset of the other rules options (Hand and Foot fields
    included, on either preset)."""
    variant = draw(st.sampled_from(["classic", "hand_and_foot"]))
    kw = {"decks": draw(st.integers(1, 8)), "jokers": draw(st.integers(0, 40))}
    if draw(st.booleans()):
        kw["foot_size"] = draw(st.sampled_from([0, 3, 5, 11, 13, 20, 30]))
    if draw(st.booleans()):
        kw["draw_count"] = draw(st.integers(1, 5))
    foot = kw.get("foot_size", 11 if variant == "hand_and_foot" else 0)
    drawn = kw.get("draw_count", 2 if variant == "hand_and_foot" else 1)
    limit = (46 * kw["decks"] - 1 - drawn) // 4 - foot  # largest hand that fits
    kw["hand_size"] = draw(st.one_of(st.integers(1, 60), st.integers(limit - 2, limit + 2)))
    optional = {
        "pile_take_limit": st.integers(0, 10),
        "max_wilds_per_meld": st.integers(0, 5),
        "black_three_meld_max": st.integers(3, 8),
        "canastas_to_go_out": st.integers(0, 3),
        "clean_books_to_go_out": st.integers(0, 3),
        "dirty_books_to_go_out": st.integers(0, 3),
        "rounds": st.integers(0, 5),
        "round_minimums": st.lists(st.integers(0, 300), max_size=4).map(tuple),
        "target_score": st.sampled_from([1, 500, 5000]),
        "opening_minimums": st.tuples(st.integers(0, 200), st.integers(0, 300)).map(
            lambda m: ((-(10**9), m[0]), (0, m[1]))),
        **{b: st.booleans() for b in BOOLS},
    }
    for name in draw(st.lists(st.sampled_from(sorted(optional)), unique=True, max_size=6)):
        kw[name] = draw(optional[name])
    if draw(st.booleans()):
        kw["max_meld_size"] = draw(st.sampled_from([0, 4, 7, 10]))
        if kw["max_meld_size"]:
            kw["canasta_size"] = draw(st.integers(3, kw["max_meld_size"]))
    return variant, kw


def _check_option_set(variant: str, kw: dict, games: int, max_decisions: int) -> None:
    try:
        o = preset(variant, **kw)
    except OptionsError as e:
        event("refused")
        # refused at construction, by the env too; a deal refusal breaks the bound
        with pytest.raises(OptionsError):
            canasta_env.raw_env(variant=variant, **kw)
        if "does not fit a pack" in str(e):
            base = preset(variant)
            foot = kw.get("foot_size", base.foot_size)
            drawn = kw.get("draw_count", base.draw_count)
            assert 4 * (kw["hand_size"] + foot) + 1 + drawn > 46 * kw["decks"], str(e)
        return
    event("accepted")
    assert o.deal_worst_case <= 52 * o.decks + o.jokers
    env = canasta_env.raw_env(variant=variant, max_decisions=max_decisions, **kw)
    env.reset(seed=0)
    for _ in range(max_decisions):  # the env's observation and mask on every step
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        assert np.isfinite(obs["observation"]).all() and obs["action_mask"].any()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    big = o.hand_size + o.foot_size > 24  # big hands: each decision costs more
    for seed in range(games):
        g = Game(o, seed=seed)
        if big and seed % 4:
            g.apply(A.DRAW_STOCK)  # every seed deals and draws; one in four plays on
        else:
            _play(g, random.Random(seed), max_decisions)


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(option_sets())
def test_every_accepted_option_set_deals_and_plays(case):
    variant, kw = case
    _check_option_set(variant, kw, games=20, max_decisions=60)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(option_sets())
def test_every_accepted_option_set_deals_and_plays_sweep(case):
    variant, kw = case
    _check_option_set(variant, kw, games=20, max_decisions=200)


def test_no_option_set_deals_more_cards_than_the_pack():
    """Exhaustive over the pack and size fields: accepted exactly when the bound holds."""
    for decks in range(1, 9):
        for draw_count in (1, 2, 5):
            for foot in (0, 11):
                for hand in range(1, 100, 7):
                    fits = 4 * (hand + foot) + 1 + draw_count <= 46 * decks
                    try:
                        preset("classic", decks=decks, jokers=decks, hand_size=hand,
                               foot_size=foot, draw_count=draw_count)
                    except OptionsError:
                        assert not fits, (decks, draw_count, foot, hand)
                    else:
                        assert fits, (decks, draw_count, foot, hand)
