"""The env's backends (``backend="native" | "python"``): the option, the default, and the
same behaviour step by step from the same position (the deals differ per seed)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import canasta_env.native
from canasta_env import AGENTS, raw_env
from canasta_env.aec import default_backend
from canasta_env.engine import OptionsError

needs_native = pytest.mark.skipif(not canasta_env.native.available,
                                  reason="the compiled core is not built")


def test_bad_backend_is_refused():
    with pytest.raises(OptionsError, match="backend"):
        raw_env(backend="rust")


def test_default_backend_follows_the_core_and_the_variable(monkeypatch):
    monkeypatch.delenv("CANASTA_BACKEND", raising=False)
    assert default_backend() == ("native" if canasta_env.native.available else "python")
    monkeypatch.setenv("CANASTA_BACKEND", "python")
    assert default_backend() == "python" and raw_env().backend == "python"
    monkeypatch.setenv("CANASTA_BACKEND", "cobol")
    with pytest.raises(OptionsError, match="CANASTA_BACKEND"):
        raw_env()


def _trace(e, rng: random.Random, first=None):
    """Random play to the end of the episode: per step the observations and masks of
    every agent, rewards, terminations and infos."""
    out = []
    while not all(e.terminations.values()) and not all(e.truncations.values()):
        obs = {a: e.observe(a) for a in AGENTS}
        out.append(([o["observation"].tobytes() for o in obs.values()],
                    [o["action_mask"].tobytes() for o in obs.values()],
                    dict(e.rewards), dict(e.terminations), {a: dict(i) for a, i in e.infos.items()},
                    e.agent_selection))
        e.step(rng.choice(np.flatnonzero(obs[e.agent_selection]["action_mask"]).tolist()))
    out.append((dict(e.rewards), {a: dict(i) for a, i in e.infos.items()}, e.position()))
    return out


@needs_native
@pytest.mark.parametrize("kw", [{}, {"variant": "hand_and_foot"},
                                {"episode": "game", "starting_scores": (4000, 4500),
                                 "reward": "win_loss"}])
def test_backends_play_the_same_from_the_same_position(kw):
    for seed in range(3):
        py = raw_env(backend="python", **kw)
        py.reset(seed=seed)
        nat = raw_env(backend="native", **kw)
        nat.reset(options={"position": py.position()})
        assert nat.position() == py.position()
        # an episode="game" continues with new deals, which differ: compare one hand
        a = _trace(py, random.Random(seed))
        b = _trace(nat, random.Random(seed))
        n = next((i for i, s in enumerate(a[:-1]) if "score_sheets" in s[4]["player_0"]),
                 len(a) - 1)
        assert a[:n] == b[:n]


@needs_native
def test_seeds_replay_per_backend_and_deal_differently_across():
    pos = {}
    for backend in ("native", "python"):
        e = raw_env(backend=backend)
        e.reset(seed=11)
        first = e.position()
        e.reset(seed=12)
        e.reset(seed=11)
        assert e.position() == first
        pos[backend] = first
    assert pos["native"]["hands"] != pos["python"]["hands"]
