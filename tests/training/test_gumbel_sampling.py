"""Gumbel-max sampling of the networks' masked actions never picks a masked action, even
when a uniform draw is exactly 0 (torch's CPU float32 draws are multiples of 2^-24: 0 comes
once in about 16.8 million). Before the floor, such a draw on a row's only legal action
made a masked action win; the batched env refused it and a training run stopped with
IllegalActionError (training seed 0 of configs/classic_vf128.yaml, after 1.7M steps)."""

import gymnasium as gym
import numpy as np
import pytest
import torch

from training.sb3.precision import GUMBEL_FLOOR, MixedPrecisionPolicy, gumbel_noise, sample_masked
from training.sb3.stacked import StackedActors

N_OBS, N_ACT, LEGAL = 12, 9, 5


def _policy(seed: int) -> MixedPrecisionPolicy:
    torch.manual_seed(seed)
    return MixedPrecisionPolicy(gym.spaces.Box(-1.0, 1.0, (N_OBS,), np.float32),
                                gym.spaces.Discrete(N_ACT), lambda _: 1e-3, net_arch=[16])


@pytest.fixture
def zero_on_the_legal_action(monkeypatch):
    """Every uniform draw is 0.5 but the legal action's, which is exactly 0."""

    def fake(like, *a, **k):
        u = torch.full_like(like, 0.5, dtype=torch.float32)
        u[..., LEGAL] = 0.0
        return u

    monkeypatch.setattr(torch, "rand_like", fake)


def _batch(rows: int = 6):
    obs = torch.as_tensor(np.random.default_rng(0).uniform(-1, 1, (rows, N_OBS)),
                          dtype=torch.float32)
    masks = torch.zeros(rows, N_ACT, dtype=torch.bool)
    masks[:, LEGAL] = True
    return obs, masks


def test_the_noise_of_a_zero_draw_is_the_floor(zero_on_the_legal_action):
    g = gumbel_noise(torch.zeros(3, N_ACT))
    assert torch.all(g[:, LEGAL] == GUMBEL_FLOOR)
    assert torch.allclose(g[:, 0], torch.full((3,), -float(np.log(np.log(2.0)))))


def test_other_draws_are_the_plain_formula():
    torch.manual_seed(3)
    g = gumbel_noise(torch.zeros(1000, N_ACT))
    torch.manual_seed(3)
    u = torch.rand(1000, N_ACT)
    assert torch.equal(g, -torch.log(-torch.log(u)))


def test_the_learners_sample_is_the_only_legal_action(zero_on_the_legal_action):
    policy = _policy(0)
    obs, masks = _batch()
    with torch.no_grad():
        actions, _, log_prob = policy.forward(obs, action_masks=masks.numpy())
    assert actions.tolist() == [LEGAL] * len(obs)
    assert torch.allclose(log_prob, torch.zeros(len(obs)))


def test_an_opponents_sample_is_the_only_legal_action(zero_on_the_legal_action):
    obs, masks = _batch()
    with torch.no_grad():
        assert sample_masked(_policy(1), obs, masks).tolist() == [LEGAL] * len(obs)


def test_stacked_opponents_sample_the_only_legal_action(zero_on_the_legal_action):
    obs, masks = _batch()
    stacked = StackedActors([_policy(2), _policy(3)])
    acts = stacked.sample([np.arange(0, 4), np.arange(4, 6)], obs.numpy(), masks.numpy())
    assert [a.tolist() for a in acts] == [[LEGAL] * 4, [LEGAL] * 2]
