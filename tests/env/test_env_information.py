"""No hidden information leaks into an observation (docs/RULES.md §7 "Observation": another
seat's hidden cards must never change it).

Positions reached by random play (all phases, pile pickups included) are edited through
the JSON position format: one card of a seat's hidden hand is exchanged with a stock card
of another class, keeping hand sizes, the cards known from pickups and the public
history. Every other seat must observe exactly the same vector (and mask and text
rendering); the seat whose hand changed must not (sanity: the edit is real).
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import canasta_env
from canasta_env import AGENTS
from canasta_env.engine import PositionError, to_position
from canasta_env.engine.game import Phase
from canasta_env.render import render_text

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend


def _positions(n_seeds: int) -> list[dict]:
    """Mid-hand positions from random play: a random stopping point per seed, plus the
    first PICKUP and ANSWER positions met, plus one late position holding known cards."""
    raw = canasta_env.raw_env()
    out = []
    for seed in range(n_seeds):
        raw.reset(seed=seed)
        rng = random.Random(seed)
        stop = rng.randrange(1, 150)
        got_rare = set()
        got_known = False
        step = 0
        while not all(raw.terminations.values()):
            g = raw.game
            if step == stop:
                out.append(to_position(g))
            elif g.phase in (Phase.PICKUP, Phase.ANSWER) and g.phase not in got_rare:
                got_rare.add(g.phase)
                out.append(to_position(g))
            elif not got_known and step > stop and sum(map(sum, g.known)) >= 3:
                got_known = True
                out.append(to_position(g))
            raw.step(rng.choice(g.legal_actions()))
            step += 1
    return out


def _swap_hidden_card(pos: dict, seat: int, rng: random.Random) -> dict | None:
    """``pos`` with one hidden card of ``seat`` exchanged for a stock card of another
    class (hand size and known cards unchanged); None if no such exchange is valid."""
    hand, known, stock = pos["hands"][seat], pos["known"][seat], pos["stock"]
    hidden = [c for c in set(hand) if hand.count(c) > known.count(c)]
    rng.shuffle(hidden)
    for c in hidden:
        choices = [i for i, d in enumerate(stock) if d != c and d != "red 3"]
        rng.shuffle(choices)
        for i in choices[:3]:
            new = copy.deepcopy(pos)
            new["hands"][seat].remove(c)
            new["hands"][seat].append(stock[i])
            new["stock"][i] = c
            try:
                canasta_env.engine.from_position(new)
            except PositionError:  # e.g. the seat on turn would be left without a move
                continue
            return new
    return None


def _observations(pos: dict):
    raw = canasta_env.raw_env()
    raw.reset(options={"position": pos})
    return raw, {a: raw.observe(a) for a in AGENTS}


@pytest.fixture(scope="module")
def positions():
    ps = _positions(60)
    phases = {p["phase"] for p in ps}
    assert {"DRAW", "MELD", "PICKUP", "ANSWER"} <= phases
    assert sum(1 for p in ps if any(p["known"])) >= 20
    return ps


def test_another_seats_hidden_cards_never_change_an_observation(positions):
    rng = random.Random(0)
    swaps = 0
    for pos in positions:
        raw_a, obs_a = _observations(pos)
        for seat in range(4):
            new = _swap_hidden_card(pos, seat, rng)
            if new is None:
                continue
            raw_b, obs_b = _observations(new)
            swaps += 1
            for other in range(4):
                a, b = obs_a[AGENTS[other]], obs_b[AGENTS[other]]
                if other == seat:
                    assert not np.array_equal(a["observation"], b["observation"])
                    continue
                np.testing.assert_array_equal(a["observation"], b["observation"],
                                              err_msg=f"seat {other} sees seat {seat}'s hand")
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
                assert render_text(raw_a.game, other) == render_text(raw_b.game, other)
    assert swaps >= 3 * len(positions)


def test_stock_order_never_changes_an_observation(positions):
    rng = random.Random(1)
    for pos in positions[::3]:
        shuffled = copy.deepcopy(pos)
        rng.shuffle(shuffled["stock"])
        if shuffled["stock"] == pos["stock"]:
            continue
        raw_a, obs_a = _observations(pos)
        raw_b, obs_b = _observations(shuffled)
        for seat, agent in enumerate(AGENTS):
            np.testing.assert_array_equal(obs_a[agent]["observation"], obs_b[agent]["observation"])
            np.testing.assert_array_equal(obs_a[agent]["action_mask"], obs_b[agent]["action_mask"])
            assert render_text(raw_a.game, seat) == render_text(raw_b.game, seat)


def test_known_cards_are_public_and_do_change_observations(positions):
    """Cards a seat took with the pile are public: un-marking them as known changes what
    the other seats observe (the known pieces carry real information)."""
    checked = 0
    for pos in positions:
        for seat in range(4):
            if not pos["known"][seat]:
                continue
            new = copy.deepcopy(pos)
            new["known"][seat] = []
            _, obs_a = _observations(pos)
            _, obs_b = _observations(new)
            for other in range(4):
                if other != seat:
                    assert not np.array_equal(obs_a[AGENTS[other]]["observation"],
                                              obs_b[AGENTS[other]]["observation"])
            checked += 1
            break
    assert checked >= 20


def test_swap_helper_really_keeps_hand_sizes_and_known_cards(positions):
    rng = random.Random(2)
    pairs = [(p, _swap_hidden_card(p, 1, rng)) for p in positions if p["known"][1]]
    pos, new = next((p, n) for p, n in pairs if n is not None)
    assert len(new["hands"][1]) == len(pos["hands"][1])
    assert new["known"] == pos["known"]
    assert sorted(new["hands"][1]) != sorted(pos["hands"][1])
    for c in set(new["known"][1]):
        assert new["hands"][1].count(c) >= new["known"][1].count(c)
