"""The single-agent adapter under the env checkers users run first
(``gymnasium.utils.env_checker.check_env``, SB3's ``check_env``): they step unmasked
samples of the action space, which ``illegal_action="terminate"`` answers by ending the
episode with ``illegal_reward`` (training/adapter.py module docstring)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env

from canasta_env.engine import IllegalActionError, OptionsError
from canasta_env.policies import RandomPolicy
from training.adapter import PartnershipEnv

POOL = [(1.0, lambda rng: RandomPolicy(int(rng.integers(2**31))))]


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_gymnasium_check_env_passes_with_terminate(variant):
    gym_check_env(PartnershipEnv(POOL, illegal_action="terminate", variant=variant),
                  skip_render_check=True)


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_sb3_check_env_passes_with_terminate(variant):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(PartnershipEnv(POOL, illegal_action="terminate", variant=variant), warn=True)


def _illegal(env: PartnershipEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_terminate_ends_the_episode_with_the_illegal_reward_and_changes_nothing():
    env = PartnershipEnv(POOL, illegal_action="terminate", illegal_reward=-2.5)
    obs, _ = env.reset(seed=4)
    before = env.raw.position()
    bad = _illegal(env)
    obs2, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] is True and f"illegal action {bad}" in info["reason"]
    np.testing.assert_array_equal(obs, obs2)
    assert env.raw.position() == before  # the refused action changed nothing
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    env.reset(seed=5)  # a new episode plays on
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_raise_is_the_default():
    env = PartnershipEnv(POOL)
    env.reset(seed=4)
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(_illegal(env))


def test_a_legal_hand_is_the_same_under_both_options():
    a, b = PartnershipEnv(POOL), PartnershipEnv(POOL, illegal_action="terminate")
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    done = False
    while not done:
        np.testing.assert_array_equal(oa, ob)
        act = int(np.flatnonzero(a.action_masks())[-1])
        oa, ra, ta, ua, _ = a.step(act)
        ob, rb, tb, ub, _ = b.step(act)
        assert (ra, ta, ua) == (rb, tb, ub)
        done = ta or ua


@pytest.mark.parametrize("kwargs, message", [
    ({"illegal_action": "ignore"}, "illegal_action must be one of ('raise', 'terminate'), "
                                   "got 'ignore'"),
    ({"illegal_reward": float("nan")}, "illegal_reward must be a finite number, got nan"),
    ({"illegal_reward": True}, "illegal_reward must be a finite number, got True"),
])
def test_bad_illegal_options_are_refused(kwargs, message):
    with pytest.raises(OptionsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        PartnershipEnv(POOL, **kwargs)
