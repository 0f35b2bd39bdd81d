"""Public information stays in the observation and the render (docs/RULES.md §2.10 Taking
the pile, §2.8 Opening minimum, §7 environment contract & boundaries).

After "take pile with a natural pair" by a partnership that has not opened, the turn is in
phase ``PICKUP``: the rest of the pile is set aside until the opening minimum is met. Its
cards were all seen face up and stay public: ``pile_contents`` counts them with the cards
still in the pile (the layout and ``OBS_SIZE`` are unchanged), the render lists them, and
:func:`canasta_env.public.public_pile` gives them to the service's views.

Tests: the reported example (hand K K Q Q Q 7 9, pile A A A K vs 4 6 J K) with the literal
counts, the Hand and Foot take of the top 7 cards (part of the pile stays), and properties
over random play: the pile slices of every seat's observation equal the counts of the
public pile cards of the JSON position, and changing a set-aside card changes every seat's
observation and render.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import canasta_env
from canasta_env import AGENTS
from canasta_env.engine import Game, Phase, from_position, preset, to_position
from canasta_env.engine.cards import NAME_TO_CLASS, NUM_CLASSES
from canasta_env.observation import OBS_SIZE, SLICES, encode, slices
from canasta_env.public import public_pile
from canasta_env.render import render_text
from tests.helpers.engine import build, play
from tests.helpers.hand_and_foot import build_hf
from tests.helpers.hand_and_foot import play as play_hf

HAND = "K K Q Q Q 7 9"
OTHERS = ("4 5 6", "4 5 6", "4 5 6")


def _taken(pile: str) -> Game:
    """Seat 0 (partnership A, not opened, minimum 50) holds K K Q Q Q 7 9 and takes
    ``pile`` (top K) with the pair of kings: 30 points, so the rest waits set aside."""
    g = build(hands=(HAND, *OTHERS), pile=pile, current=0, phase="DRAW")
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.PICKUP and g.nat[0][NAME_TO_CLASS["K"]] == 3 and not g.pile
    return g


def _counts(*names: str) -> list[float]:
    out = [0.0] * NUM_CLASSES
    for n in names:
        out[NAME_TO_CLASS[n]] += 1
    return out


def test_set_aside_aces_and_low_cards_are_observed_as_themselves():
    aces, low = _taken("A A A K"), _taken("4 6 J K")
    assert OBS_SIZE == 202  # the layout a shipped checkpoint depends on
    pc, size, turn = SLICES["pile_contents"], SLICES["pile_size"], SLICES["turn_state"]
    for seat in range(4):
        a, b = encode(aces, seat), encode(low, seat)
        assert not np.array_equal(a, b)
        assert (a[pc] * 8).tolist() == _counts("A", "A", "A")
        assert (b[pc] * 8).tolist() == _counts("4", "6", "J")
        assert a[size][0] == b[size][0] == 0.0  # nothing left in the pile itself
        assert round(a[turn][-1] * 50) == round(b[turn][-1] * 50) == 3  # set aside
        diff = np.flatnonzero(a != b)
        assert pc.start <= diff.min() and diff.max() < pc.stop  # only the pile contents


def test_set_aside_cards_survive_the_json_position():
    for pile, want in (("A A A K", ["A", "A", "A"]), ("4 6 J K", ["4", "6", "J"])):
        g = _taken(pile)
        pos = to_position(g)
        assert pos["turn"]["pending"] == want
        h = from_position(pos)
        for seat in range(4):
            np.testing.assert_array_equal(encode(h, seat), encode(g, seat))
        assert public_pile(h).names() == {"pile": [], "set_aside": want}


def test_render_and_env_show_the_set_aside_cards():
    for pile, listed in (("A A A K", "A A A"), ("4 6 J K", "4 6 J")):
        g = _taken(pile)
        for seat in range(4):
            text = render_text(g, seat)
            assert f"Pile set aside for the opening: 3 cards: {listed}; " \
                   "opening points so far 30" in text, text
        raw = canasta_env.raw_env(render_mode="ansi")
        raw.reset(options={"position": to_position(g)})
        assert f"3 cards: {listed};" in raw.render()
        for agent in AGENTS:
            obs = raw.observe(agent)["observation"]
            assert (obs[SLICES["pile_contents"]] * 8).tolist() == \
                _counts(*listed.split())
    assert render_text(_taken("A A A K"), 1) != render_text(_taken("4 6 J K"), 1)


def test_the_service_views_show_the_set_aside_cards():
    from canasta_env.bots.service import seat_view

    for pile, want in (("A A A K", ["A", "A", "A"]), ("4 6 J K", ["4", "6", "J"])):
        g = _taken(pile)
        for seat in (None, 0, 1, 2, 3):  # the public view and every seat's
            view = seat_view(g, seat)
            assert view["pile"]["set_aside"] == want
            assert view["pile"]["cards"] == [] and view["turn"]["pile_set_aside"] == 3


def test_render_lists_the_discard_pile():
    g = build(hands=("K K 5 9", "4 4 10", "8 10", "5 6 7"), pile="7 4 J", current=0)
    assert "Discard pile: 3 cards, top J (frozen for us); cards, bottom to top: 7 4 J" \
        in render_text(g, 2)


def test_hand_and_foot_take_of_seven_keeps_both_parts_public():
    """Hand and Foot takes the top 7 cards: 3 of 10 stay in the pile, 6 are set aside
    under the melded K; pile_contents counts all 9, pile_size and turn_state tell the
    parts' sizes."""
    g = build_hf(hands=(HAND, *OTHERS), pile="5 5 4 6 7 8 9 10 J K", current=0)
    play_hf(g, "take pile with a natural pair")
    assert g.phase == Phase.PICKUP
    assert public_pile(g).names() == {"pile": ["5", "5", "4"],
                                      "set_aside": ["6", "7", "8", "9", "10", "J"]}
    sl = slices(g.options)
    for seat in range(4):
        o = encode(g, seat)
        assert (o[sl["pile_contents"]] * 8).tolist() == \
            _counts("5", "5", "4", "6", "7", "8", "9", "10", "J")
        assert round(o[sl["pile_size"]][0] * 50) == 3
        assert round(o[sl["turn_state"]][-1] * 50) == 6
        assert "Pile set aside for the opening: 6 cards: 6 7 8 9 10 J" in render_text(g, seat)


# ---------------------------------------------------------------------- properties
def _check_public_pile(g: Game) -> None:
    """Every seat's pile slices equal the counts of the JSON position's public pile."""
    pos = to_position(g)
    public = pos["pile"] + pos["turn"]["pending"]
    want = _counts(*public)
    sl = slices(g.options)
    for seat in range(4):
        o = encode(g, seat)
        assert (np.rint(o[sl["pile_contents"]] * 8)).tolist() == want
        assert round(o[sl["pile_size"]][0] * 50) == len(pos["pile"])
        assert round(o[sl["turn_state"]][-1] * 50) == len(pos["turn"]["pending"])
        top = o[sl["pile_top"]]
        if pos["pile"]:
            assert top.tolist() == [float(i == NAME_TO_CLASS[pos["pile"][-1]])
                                    for i in range(NUM_CLASSES)]
        else:
            assert not top.any()


def _random_hand(variant: str, seed: int, visit) -> int:
    """Random legal play of one hand; ``visit(g)`` at every position. Returns how many
    positions were in PICKUP with cards set aside."""
    g = Game(preset(variant), seed=seed)
    rng = random.Random(seed)
    pickups = 0
    for _ in range(1500):
        if g.hand_over:
            break
        visit(g)
        pickups += g.phase == Phase.PICKUP and bool(g.pending)
        g.apply(rng.choice(g.legal_actions()))
    return pickups


@settings(max_examples=25, deadline=None, database=None)
@given(variant=st.sampled_from(["classic", "hand_and_foot"]), seed=st.integers(0, 2**32))
def test_pile_slices_always_count_the_public_pile(variant, seed):
    _random_hand(variant, seed, _check_public_pile)


def test_random_play_reaches_set_aside_piles():
    """The property above meets PICKUP positions with cards set aside."""
    assert sum(_random_hand("classic", seed, _check_public_pile) for seed in range(40)) >= 5


def _swap_set_aside_card(pos: dict, rng: random.Random) -> dict | None:
    """``pos`` with one set-aside natural exchanged for a stock natural of another
    class; None if that is not a valid position."""
    pending, stock = pos["turn"]["pending"], pos["stock"]
    wild_or_red = ("Joker", "2", "red 3", "black 3")
    mine = [i for i, c in enumerate(pending) if c not in wild_or_red]
    if not mine:
        return None
    i = rng.choice(mine)
    others = [j for j, c in enumerate(stock) if c != pending[i] and c not in wild_or_red]
    for j in rng.sample(others, min(3, len(others))):
        new = copy.deepcopy(pos)
        new["turn"]["pending"][i], new["stock"][j] = stock[j], pending[i]
        try:
            from_position(new)
        except canasta_env.engine.PositionError:
            continue
        return new
    return None


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_a_set_aside_card_changes_every_seats_view(variant):
    """The dual of tests/env/test_env_information.py: public cards must show. Exchanging one
    set-aside card for another class changes every seat's observation and render."""
    rng = random.Random(7)
    found = []

    def visit(g):
        if g.phase == Phase.PICKUP and g.pending and len(found) < 6:
            found.append(to_position(g))

    for seed in range(80):
        _random_hand(variant, seed, visit)
        if len(found) >= 6:
            break
    swaps = 0
    for pos in found:
        new = _swap_set_aside_card(pos, rng)
        if new is None:
            continue
        a, b = from_position(pos), from_position(new)
        swaps += 1
        for seat in range(4):
            assert not np.array_equal(encode(a, seat), encode(b, seat))
            assert render_text(a, seat) != render_text(b, seat)
    assert swaps >= 2
