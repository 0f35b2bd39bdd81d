"""The heuristic's playing styles (canasta_env/policies/styles.py) in both backends.

- Parity: for every style of ``STYLES`` (and random parameter sets drawn from the ranges
  of ``STYLE_PARAMS``), the native port (core/heuristic.c) makes the Python reference's
  decision on the 6,000 recorded Classic positions (tests/data/heuristic_decisions.npz),
  on random observations and masks, and on every decision of whole hands the styles
  play against each other.
- Legality: over those whole hands every style plays only legal actions.
- Difference: each style's decision differs from the default heuristic's on a measured
  share of the recorded Classic positions (lower bounds below, under the measured share).
- The defaults are the heuristic: a policy built with every default spelled out makes
  the recorded decisions.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import canasta_env.native
from canasta_env.engine import Game, preset
from canasta_env.observation import encode
from canasta_env.policies import HeuristicPolicy
from canasta_env.policies.styles import DEFAULTS, STYLE_PARAMS, STYLES, style_policy
from tests.helpers.heuristic_positions import DATA, SETTINGS, replay
from tests.native.test_fast_heuristic import batches

NATIVE = canasta_env.native.available
needs_native = pytest.mark.skipif(not NATIVE, reason="the native core is not built")

#: lower bounds on the share of recorded Classic positions (settings 0-2) where the
#: style's decision is not the default heuristic's, about 2/3 of the measured shares
#: (6,000 positions of settings 0-2, each style with that setting's rules; the comments)
MIN_DIFFERENT = {
    "fast_opener": 0.08,      # measured 708 / 6,000 = 0.118
    "pile_hoarder": 0.06,     # 523 / 6,000 = 0.087
    "freezer": 0.03,          # 291 / 6,000 = 0.049
    "canasta_builder": 0.09,  # 793 / 6,000 = 0.132
    "fast_go_out": 0.12,      # 1,067 / 6,000 = 0.178
    "defensive": 0.08,        # 752 / 6,000 = 0.125
}


@pytest.fixture(scope="module")
def classic_positions():
    """[(observations [n, 202], masks [n, 91], the setting's HeuristicPolicy kwargs)] of the
    recorded Classic settings (0, 1, 2), replayed."""
    data = np.load(Path(__file__).parents[1] / "data" / DATA)
    actions = data["actions"].astype(np.int64)
    per: dict[int, tuple[list, list]] = {}
    k = 0
    for row, count in zip(data["games"], data["counts"]):
        count = int(count)
        mine = actions[k:k + count]
        k += count
        if int(row[0]) == 3:  # Hand and Foot
            continue
        obs_l, mask_l = per.setdefault(int(row[0]), ([], []))
        it = iter(mine.tolist())
        for obs, mask in replay(row, lambda o, m, it=it: next(it), count):
            obs_l.append(obs)
            mask_l.append(mask)
    return [(np.array(o), np.array(m), SETTINGS[s][2]) for s, (o, m) in sorted(per.items())]


def _rules_kwargs(kw: dict) -> dict:
    """The setting's rules options and pack only (its stop_stock / start_meld_hand are
    the heuristic's parameters, which a style sets itself)."""
    return {k: v for k, v in kw.items() if k not in ("stop_stock", "start_meld_hand")}


def test_every_default_spelled_out_is_the_heuristic(classic_positions):
    obs, masks, kw = classic_positions[0]
    plain = HeuristicPolicy(**kw).act_batch(obs, masks)
    spelled = HeuristicPolicy(**kw, **DEFAULTS)
    assert (spelled.act_batch(obs, masks) == plain).all()
    ref = HeuristicPolicy(backend="python", **kw, **DEFAULTS)
    assert [ref.act(o, m) for o, m in zip(obs[:500], masks[:500])] == plain[:500].tolist()


@needs_native
@pytest.mark.parametrize("name", list(STYLES))
def test_style_native_is_the_python_reference_on_recorded_positions(classic_positions, name):
    for obs, masks, kw in classic_positions:
        fast = style_policy(name, **_rules_kwargs(kw))
        ref = style_policy(name, backend="python", **_rules_kwargs(kw))
        assert fast.backend == "native" and ref.backend == "python"
        got = fast.act_batch(obs, masks)
        want = np.array([ref.act(o, m) for o, m in zip(obs, masks)])
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, f"{name}: {bad.size} decisions differ, first at {bad[:1]}"


@needs_native
@pytest.mark.parametrize("name", list(STYLES))
def test_style_differs_from_the_heuristic_on_a_measured_share(classic_positions, name):
    differ = total = 0
    for obs, masks, kw in classic_positions:
        base = HeuristicPolicy(**kw).act_batch(obs, masks)
        mine = style_policy(name, **_rules_kwargs(kw)).act_batch(obs, masks)
        differ += int((base != mine).sum())
        total += len(obs)
    assert total == 6000
    share = differ / total
    assert share >= MIN_DIFFERENT[name], f"{name}: {share:.4f} of decisions differ"


def _random_style(rng: np.random.Generator) -> dict:
    """Random values for a random subset of the style parameters, across their ranges
    (often near the defaults, sometimes at the bounds)."""
    out = {}
    for name, p in STYLE_PARAMS.items():
        if rng.random() < 0.5:
            continue
        u = rng.random()
        if u < 0.15:
            x = p.low
        elif u < 0.3:
            x = p.high
        elif p.kind == "int":
            x = int(np.clip(p.default + rng.integers(-10, 11), p.low, p.high))
        else:
            x = float(np.clip(p.default * rng.uniform(0, 3) + rng.normal(0, 50), p.low, p.high))
        out[name] = int(x) if p.kind == "int" else float(x)
    return out


@needs_native
@settings(max_examples=150, deadline=None)
@given(batches(), st.sampled_from(list(STYLES) + ["random"]), st.integers(0, 2**32 - 1))
def test_style_act_batch_is_the_python_reference_on_random_inputs(batch, name, seed):
    obs, masks = batch
    if name == "random":
        style = _random_style(np.random.default_rng(seed))
        pol, ref = HeuristicPolicy(**style), HeuristicPolicy(backend="python", **style)
    else:
        pol, ref = style_policy(name), style_policy(name, backend="python")
    got = pol.act_batch(obs, masks)
    assert got.tolist() == [pol.act(o, m) for o, m in zip(obs, masks)]
    assert got.tolist() == [ref.act(o, m) for o, m in zip(obs, masks)]


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_random_style_parameters_native_is_python_on_recorded_positions(classic_positions,
                                                                        seed):
    rng = np.random.default_rng(100 + seed)
    obs, masks, kw = classic_positions[0]
    pick = rng.choice(len(obs), 600, replace=False)
    for _ in range(3):
        style = _random_style(rng)
        fast = HeuristicPolicy(**kw, **style)
        ref = HeuristicPolicy(backend="python", **kw, **style)
        got = fast.act_batch(obs[pick], masks[pick])
        want = [ref.act(obs[i], masks[i]) for i in pick]
        assert got.tolist() == want, style


def _play_hand(seed: int, team_a: str, team_b: str, check):
    """One Classic hand from ``seed``: seats 0, 2 play style ``team_a``, 1, 3 ``team_b``
    (Python reference); ``check(style, observation, mask, action)`` sees every decision
    with two legal actions or more. Returns the number of decisions and the hand's
    scores."""
    pols = {n: style_policy(n, backend="python") for n in (team_a, team_b)}
    g = Game(preset("classic"), seed=seed)
    n = 0
    while not g.hand_over:
        legal = g.legal_actions()
        if len(legal) == 1:
            g.apply(legal[0])
            continue
        name = team_a if g.to_move % 2 == 0 else team_b
        obs = encode(g, g.to_move)
        mask = np.zeros(g.num_actions, dtype=np.int8)
        mask[legal] = 1
        a = pols[name].act(obs, mask)
        assert a in legal, f"{name} played {a}, not legal ({legal})"
        check(name, obs, mask, a)
        g.apply(a)
        n += 1
    return n


@pytest.mark.parametrize("name", list(STYLES))
def test_style_plays_only_legal_actions_over_whole_hands_and_native_agrees(name):
    natives = {n: style_policy(n) for n in STYLES}
    seen = []

    def check(style, obs, mask, a):
        seen.append(style)
        if NATIVE:
            assert natives[style].act(obs, mask) == a, f"{style}: native differs"

    others = [n for n in STYLES if n != name]
    decisions = sum(_play_hand(7000 + i, name, others[i % len(others)], check)
                    for i in range(3))
    assert decisions == len(seen) and seen.count(name) > 50


@needs_native
def test_style_pickles_with_its_parameters(classic_positions):
    obs, masks, _ = classic_positions[0]
    for name in STYLES:
        pol = style_policy(name)
        clone = pickle.loads(pickle.dumps(pol))
        assert clone.backend == "native" and clone.style == pol.style and clone.name == pol.name
        assert (clone.act_batch(obs[:800], masks[:800]) == pol.act_batch(obs[:800], masks[:800])).all()
        core = pickle.loads(pickle.dumps(pol._core))
        assert core.style == pol.style
