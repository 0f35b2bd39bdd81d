"""The observation (docs/RULES.md §7 "Observation"): float32 vector built from named pieces
whose sizes add up, finite and non-negative (inside the declared ``Box(0, inf)``), int8
masks, seat-relative (me, left, partner, right)."""

from __future__ import annotations

import numpy as np
import pytest

import canasta_env
from canasta_env import AGENTS, OBS_SIZE
from canasta_env.engine import NUM_ACTIONS, to_position
from canasta_env.engine.cards import NAME_TO_CLASS
from canasta_env.observation import MELD_SLOTS, PIECES, SLICES, decode, encode
from tests.helpers.engine import build, meld

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend


def _env_at(game, **options):
    raw = canasta_env.raw_env(**options)
    raw.reset(options={"position": to_position(game)})
    return raw


def test_pieces_add_up_to_obs_size():
    assert sum(size for _, size in PIECES) == OBS_SIZE
    assert len({name for name, _ in PIECES}) == len(PIECES)
    start = 0
    for name, size in PIECES:
        assert SLICES[name] == slice(start, start + size), name
        start += size
    assert start == OBS_SIZE == canasta_env.OBS_SIZE
    space = canasta_env.raw_env().observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,)
    assert space["action_mask"].shape == (NUM_ACTIONS,)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fresh_observations_have_the_declared_types(seed):
    raw = canasta_env.raw_env()
    raw.reset(seed=seed)
    for agent in AGENTS:
        obs = raw.observe(agent)
        v, m = obs["observation"], obs["action_mask"]
        assert v.dtype == np.float32 and v.shape == (OBS_SIZE,)
        assert np.isfinite(v).all() and (v >= 0).all()
        assert m.dtype == np.int8 and m.shape == (NUM_ACTIONS,)
        assert set(np.unique(m)) <= {0, 1}
        assert raw.observation_space(agent).contains(obs)
        assert m.any() == (agent == raw.agent_selection)


def test_negative_scores_stay_non_negative_and_lossless():
    # partnership A below zero (opening minimum 15), B at 3,200 (120)
    g = build(hands=("K K Q 5 6", "4 4 9", "9 10 J", "5 6 7"), scores=(-500, 3200),
              current=0, phase="DRAW")
    raw = _env_at(g)
    for seat, expected in ((0, (-500, 3200)), (1, (3200, -500)), (2, (-500, 3200))):
        obs = raw.observe(AGENTS[seat])
        v = obs["observation"]
        assert (v >= 0).all() and np.isfinite(v).all()
        assert raw.observation_space(AGENTS[seat]).contains(obs)
        d = decode(v)
        scores = np.rint((d["scores"] - d["scores_below_zero"]) * 5000).astype(int)
        assert tuple(scores.tolist()) == expected
        assert tuple(np.rint(d["opening_minimums"] * 120).astype(int).tolist()) == \
            ((15, 120) if seat % 2 == 0 else (120, 15))


def test_observation_is_seat_relative():
    g = build(hands=("K K Q b3 Joker 5", "4 4 9 9 9", "8 10", "5 6 7"),
              melds=({"A": meld(5, 1, 1)}, {"8": meld(3)}), pile="7 J", opened=(True, True),
              red_threes=(1, 0, 0, 2), scores=(100, 2000), current=0, phase="MELD",
              turn={"drew_stock": True})
    pos = to_position(g)
    pos["known"][1] = ["9", "9"]  # seat 1 took a pile holding two 9s
    raw = canasta_env.raw_env()
    raw.reset(options={"position": pos})
    ace, eight = NAME_TO_CLASS["A"], NAME_TO_CLASS["8"]
    for seat in range(4):
        d = decode(raw.observe(AGENTS[seat])["observation"])
        rel = [(seat + k) % 4 for k in range(4)]
        assert np.rint(d["hand"] * 8).astype(int).tolist() == raw.game.hands[seat]
        assert np.rint(d["hand_sizes"] * 30).astype(int).tolist() == \
            [sum(raw.game.hands[s]) for s in rel]
        assert np.rint(d["red_threes"] * 4).astype(int).tolist() == [g.red3[s] for s in rel]
        for k, name in ((1, "known_left"), (2, "known_partner"), (3, "known_right")):
            assert np.rint(d[name] * 8).astype(int).tolist() == raw.game.known[rel[k]]
        us_nat = np.rint(d["melds_us_naturals"] * 8).astype(int).tolist()
        them_nat = np.rint(d["melds_them_naturals"] * 8).astype(int).tolist()
        a_idx, e_idx = MELD_SLOTS.index(ace), MELD_SLOTS.index(eight)
        if seat % 2 == 0:
            assert (us_nat[a_idx], them_nat[e_idx], us_nat[e_idx]) == (5, 3, 0)
            assert d["melds_us_jokers"][a_idx] == 0.25 and d["melds_us_twos"][a_idx] == 0.25
        else:
            assert (them_nat[a_idx], us_nat[e_idx], us_nat[a_idx]) == (5, 3, 0)
            assert d["melds_them_jokers"][a_idx] == 0.25 and d["melds_them_twos"][a_idx] == 0.25
        assert d["on_turn"].tolist() == [1.0 if (0 - seat) % 4 == k else 0.0 for k in range(4)]
        assert d["pile_top"][NAME_TO_CLASS["J"]] == 1 and d["pile_top"].sum() == 1
        assert d["pile_size"][0] == pytest.approx(2 / 50)
    # seat 1's own pickup is visible to everyone as "known", seat 1 sees its hand
    left_of_0 = decode(raw.observe("player_0")["observation"])["known_left"]
    assert left_of_0[NAME_TO_CLASS["9"]] == pytest.approx(2 / 8)
    right_of_2 = decode(raw.observe("player_2")["observation"])["known_right"]
    assert right_of_2[NAME_TO_CLASS["9"]] == pytest.approx(2 / 8)


def test_encode_matches_observe():
    raw = canasta_env.raw_env()
    raw.reset(seed=5)
    for seat, agent in enumerate(AGENTS):
        np.testing.assert_array_equal(raw.observe(agent)["observation"], encode(raw.game, seat))
