"""Network opponents decided together (training/sb3/stacked.py): the stacked pass gives
each policy's own logits, refuses what it cannot stack, samples only legal actions, and the
batched env uses it for its snapshots, deterministically under a seed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from canasta_env.native import available  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from training.sb3.features import CardClassFeatures  # noqa: E402
from training.sb3.precision import MixedPrecisionPolicy, sample_masked  # noqa: E402
from training.sb3.stacked import StackedActors, stackable  # noqa: E402

gym = pytest.importorskip("gymnasium")
A = 91


def _policy(seed: int, classes: bool = True, net_arch=(32, 32), hidden: int = 16,
            activation=torch.nn.Tanh, layers: int = 2):
    torch.manual_seed(seed)
    kw = {"net_arch": list(net_arch), "activation_fn": activation}
    if classes:
        kw |= {"features_extractor_class": CardClassFeatures,
               "features_extractor_kwargs": {"hidden": hidden, "channels": 4,
                                             "layers": layers}}
    return MixedPrecisionPolicy(gym.spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                                gym.spaces.Discrete(A), lambda _: 1e-3, **kw)


def _saved_checkpoints(folder, n: int) -> list[str]:
    """``n`` small Classic MaskablePPO checkpoints (seeds 0..n-1) saved in ``folder``."""
    from sb3_contrib import MaskablePPO

    from training.sb3.batched import BatchedPartnershipVecEnv

    paths = []
    for s in range(n):
        env = BatchedPartnershipVecEnv(2, "classic", {"random": 1.0})
        MaskablePPO(MixedPrecisionPolicy, env, n_steps=8, batch_size=16, device="cpu", seed=s,
                    policy_kwargs={"net_arch": [16]}).save(folder / f"net{s}.zip")
        paths.append(str(folder / f"net{s}.zip"))
    return paths


def _own_logits(policy, obs):
    with torch.no_grad():
        f = policy.extract_features(obs, policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(f))


@pytest.mark.parametrize("classes, activation, layers", [
    (True, torch.nn.Tanh, 2), (False, torch.nn.Tanh, 2), (True, torch.nn.ReLU, 2),
    (True, torch.nn.Tanh, 1)])
def test_the_stacked_pass_gives_each_policy_its_own_logits(classes, activation, layers):
    policies = [_policy(s, classes, activation=activation, layers=layers) for s in range(3)]
    stacked = StackedActors(policies)
    obs = (torch.rand(3, 5, OBS_SIZE) > 0.6).float()
    with torch.no_grad():
        got = stacked.logits(obs)
    assert got.shape == (3, 5, A) and got.dtype == torch.float32
    for s, p in enumerate(policies):
        assert torch.allclose(got[s], _own_logits(p, obs[s]), atol=1e-5, rtol=1e-5)
    # three different networks: their logits differ
    assert not torch.allclose(got[0], got[1], atol=1e-3)


def test_what_cannot_be_stacked_is_refused():
    assert not stackable([])
    assert not stackable([_policy(0), _policy(1, net_arch=(32, 16))])
    assert not stackable([_policy(0), _policy(1, classes=False)])
    assert not stackable([_policy(0), _policy(1, hidden=8)])
    assert not stackable([_policy(0), _policy(1, layers=1)])
    assert not stackable([_policy(0), _policy(1, activation=torch.nn.ReLU)])
    bf16 = _policy(2)
    bf16.precision = "bf16"
    assert not stackable([_policy(0), bf16])
    with pytest.raises(ValueError, match="decide them one at a time"):
        StackedActors([_policy(0), _policy(1, net_arch=(16,))])


def test_sample_plays_only_legal_actions_row_by_group():
    policies = [_policy(s) for s in range(3)]
    stacked = StackedActors(policies)
    rng = np.random.default_rng(0)
    obs = (rng.random((10, OBS_SIZE)) > 0.6).astype(np.float32)
    masks = np.zeros((10, A), np.int8)
    only = rng.integers(0, A, 10)
    masks[np.arange(10), only] = 1  # one legal action per row: it must be the one played
    masks[9, :] = 1  # and a row where all are legal
    groups = [np.array([3, 0, 7]), np.array([], dtype=np.int64), np.array([9, 5])]
    out = stacked.sample(groups, obs, masks)
    assert [len(a) for a in out] == [3, 0, 2]
    assert out[0].tolist() == only[[3, 0, 7]].tolist()
    assert out[2][1] == only[5] and 0 <= out[2][0] < A


def test_sample_draws_as_the_policys_own_distribution():
    """The stacked sampler and sample_masked draw from the same distribution: over many
    draws at one position the frequencies agree with the policy's softmax."""
    policies = [_policy(0), _policy(1)]
    stacked = StackedActors(policies)
    obs = (np.random.default_rng(1).random((1, OBS_SIZE)) > 0.6).astype(np.float32)
    masks = np.zeros((1, A), np.int8)
    masks[0, [2, 40, 77]] = 1
    with torch.no_grad():
        logits = _own_logits(policies[1], torch.as_tensor(obs))[0, [2, 40, 77]]
    p = torch.softmax(logits, -1).numpy()
    torch.manual_seed(3)
    n = 4000
    draws = stacked.sample([np.array([], np.int64), np.zeros(n, np.int64)], obs, masks)[1]
    freq = np.array([(draws == a).mean() for a in (2, 40, 77)])
    assert np.abs(freq - p).max() < 0.03
    with torch.no_grad():
        own = sample_masked(policies[1], torch.as_tensor(np.repeat(obs, n, 0)),
                            torch.as_tensor(np.repeat(masks, n, 0)).bool()).numpy()
    assert np.abs(np.array([(own == a).mean() for a in (2, 40, 77)]) - p).max() < 0.03


@pytest.mark.skipif(not available, reason="the native core is not built")
def test_the_batched_env_decides_its_snapshots_together_and_repeats_under_a_seed(tmp_path):
    from training.sb3.batched import SNAPSHOT, BatchedPartnershipVecEnv

    paths = _saved_checkpoints(tmp_path, 3)

    def run():
        torch.manual_seed(5)
        env = BatchedPartnershipVecEnv(24, "classic", {"random": 0.0, "heuristic": 0.0},
                                       seed=4)
        env.set_snapshots(paths, 1.0)
        obs = [env.reset()]
        assert set(env.opponent_kind.tolist()) == {SNAPSHOT, SNAPSHOT + 1, SNAPSHOT + 2}
        for _ in range(60):
            env.step_async(env.action_masks().argmax(axis=1))
            obs.append(env.step_wait()[0])
            assert ((env.vg.to_move % 2) == env.team).all()
        assert isinstance(env._stacked, StackedActors) and env._stacked.size == 3
        return np.stack(obs)

    a, b = run(), run()
    assert np.array_equal(a, b)


def test_sample_masked_reads_an_unshared_features_extractor():
    """A policy whose actor and critic have their own extractors (a checkpoint from
    elsewhere): sample_masked takes the actor's, as the policy's own distribution does."""
    p = _policy(0, classes=False)
    q = MixedPrecisionPolicy(p.observation_space, p.action_space, lambda _: 1e-3,
                             net_arch=[16], share_features_extractor=False)
    obs = (torch.rand(4, OBS_SIZE) > 0.6).float()
    masks = torch.zeros(4, A, dtype=torch.bool)
    masks[torch.arange(4), torch.tensor([5, 17, 60, 90])] = True
    with torch.no_grad():
        assert sample_masked(q, obs, masks).tolist() == [5, 17, 60, 90]
    assert stackable([q, q])
    with torch.no_grad():
        f = q.pi_features_extractor(obs)
        own = q.action_net(q.mlp_extractor.forward_actor(f))
        assert torch.allclose(StackedActors([q]).logits(obs.unsqueeze(0))[0], own, atol=1e-5)


def test_bias_less_layers_and_activation_subclasses_are_not_stacked():
    p = _policy(0)
    p.action_net = torch.nn.Linear(32, A, bias=False)
    assert not stackable([p])

    class Tanh2(torch.nn.Tanh):
        pass

    q = _policy(1)
    q.mlp_extractor.policy_net[1] = Tanh2()
    assert not stackable([q])


def test_sample_with_every_group_empty():
    out = StackedActors([_policy(0), _policy(1)]).sample(
        [np.zeros(0, np.int64), np.zeros(0, np.int64)], np.zeros((2, OBS_SIZE), np.float32),
        np.ones((2, A), np.int8))
    assert [a.tolist() for a in out] == [[], []]


@pytest.mark.skipif(not available, reason="the native core is not built")
def test_a_dropped_fixed_opponent_plays_on_until_the_next_hand(tmp_path):
    """set_fixed without a checkpoint that games are playing: they keep it (legal moves, as
    the docstring says), both with the stacked pass and one pass per network."""
    from training.sb3.batched import BatchedPartnershipVecEnv

    paths = _saved_checkpoints(tmp_path, 2)
    for stack in (True, False):
        env = BatchedPartnershipVecEnv(12, "classic", {"random": 0.0, "heuristic": 0.0}, seed=3)
        env.stack_networks = stack
        env.set_fixed({paths[0]: 1.0, paths[1]: 1.0})
        env.reset()
        assert paths[1] in {env._game_snapshot[g] for g in range(12)}
        env.set_fixed({paths[0]: 1.0})
        for _ in range(40):  # illegal opponent moves would raise in the core
            env.step_async(env.action_masks().argmax(axis=1))
            env.step_wait()
