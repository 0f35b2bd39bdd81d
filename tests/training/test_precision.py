"""The network in bfloat16 (training.sb3.precision): the policy's own passes are
sb3-contrib's masked categorical, bf16 stays close to fp32 and is the same whatever the
batch, sampling follows the distribution, the setting is not saved with a checkpoint, and
a CPU without bfloat16 products trains in fp32 with one warning."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from training.sb3.checkpoint import load_model  # noqa: E402
from training.sb3.config import ConfigError, load_config  # noqa: E402
from training.sb3.precision import (  # noqa: E402
    MixedPrecisionPolicy,
    _autocast,
    bf16_available,
    resolve_precision,
    set_precision,
)

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "checkpoints" / "reference" / "classic.zip"


@pytest.fixture(scope="module")
def positions():
    """Observations, masks and the heuristic's actions of 1,024 Classic positions (the
    heuristic playing 64 games on the native core, seed 5)."""
    from canasta_env.engine import preset
    from canasta_env.native import VectorGames
    from canasta_env.policies import HeuristicPolicy

    games, heuristic = VectorGames(64, preset("classic"), seed=5), HeuristicPolicy()
    games.reset()
    obs, masks, acts = [], [], []
    while len(acts) < 16:  # 16 decisions of each game (a finished hand is dealt anew)
        o, m = games.observations.copy(), games.masks.copy()
        a = heuristic.act_batch(o, m)
        obs.append(o), masks.append(m), acts.append(a)
        games.step(a)
    return (torch.as_tensor(np.concatenate(obs)), torch.as_tensor(np.concatenate(masks)).bool(),
            torch.as_tensor(np.concatenate(acts)).long())


@pytest.fixture(scope="module")
def policy():
    """The shipped Classic reference's weights in a MixedPrecisionPolicy."""
    model = load_model(REFERENCE, custom_objects={"policy_class": MixedPrecisionPolicy})
    assert type(model.policy) is MixedPrecisionPolicy and model.policy.precision == "fp32"
    return model.policy


def test_the_policy_s_passes_are_sb3_contrib_s(policy, positions):
    obs, masks, acts = positions
    with torch.no_grad():
        ours = policy.evaluate_actions(obs, acts, masks)
        theirs = MaskableActorCriticPolicy.evaluate_actions(policy, obs, acts, masks)
        # the same layers, the first as two products (MixedMlpExtractor.forward_split)
        torch.testing.assert_close(ours[0], theirs[0], rtol=0, atol=1e-5)  # values
        assert torch.allclose(ours[1], theirs[1], atol=1e-5)  # log-probabilities
        assert torch.allclose(ours[2], theirs[2], atol=1e-5)  # entropies
        best, values, log_prob = policy(obs, deterministic=True, action_masks=masks)
        want = MaskableActorCriticPolicy.forward(policy, obs, True, masks)
        every = MaskableActorCriticPolicy.get_distribution(policy, obs, masks.numpy())
        top2 = every.distribution.logits.topk(2, dim=1).values
    clear = (top2[:, 0] - top2[:, 1]) > 1e-4  # no near-tie that rounding could flip
    assert clear.float().mean() > 0.9
    assert torch.equal(best[clear], want[0][clear])
    torch.testing.assert_close(values, want[1], rtol=0, atol=1e-5)
    assert torch.allclose(log_prob, want[2], atol=1e-5)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_every_pass_takes_the_two_products_never_the_concatenated_features(
        policy, positions, monkeypatch, precision):
    if precision == "bf16" and not bf16_available():
        pytest.skip("this CPU has no bfloat16 products")
    from training.sb3.features import CardClassFeatures

    obs, masks, acts = positions

    def refused(self, observations):
        raise AssertionError("the concatenated features were formed")

    monkeypatch.setattr(CardClassFeatures, "forward", refused)
    set_precision(policy, precision)
    try:
        with torch.no_grad():
            policy.evaluate_actions(obs[:8], acts[:8], masks[:8])
            policy(obs[:8], action_masks=masks[:8])
            policy.get_distribution(obs[:8], action_masks=masks[:8].numpy())
            policy.predict_values(obs[:8])
    finally:
        set_precision(policy, "fp32")


def _grads(policy, evaluate, positions) -> dict:
    obs, masks, acts = positions
    policy.zero_grad()
    values, log_prob, entropy = evaluate(obs, acts, masks)
    (values.square().mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
    out = {k: p.grad.clone() for k, p in policy.named_parameters()}
    policy.zero_grad()
    return out


def _theirs(policy):
    """sb3-contrib's pass over the concatenated features, in the policy's precision."""
    def evaluate(*args):
        with _autocast(policy.precision):
            return MaskableActorCriticPolicy.evaluate_actions(policy, *args)
    return evaluate


def test_the_split_first_layer_has_the_gradients_of_the_whole_one(policy, positions):
    """The update's pass (the card-class numbers and the observation entering the hidden
    layers side by side) gives every parameter the gradient of sb3-contrib's pass over
    the concatenated features, in float32 to rounding."""
    ours = _grads(policy, policy.evaluate_actions, positions)
    theirs = _grads(policy, _theirs(policy), positions)
    assert ours.keys() == theirs.keys()
    assert any(k.startswith("features_extractor.shared") for k in ours)
    for k in ours:
        scale = theirs[k].abs().max().item()
        assert scale > 0, k  # every parameter takes part
        torch.testing.assert_close(ours[k], theirs[k], rtol=0, atol=1e-4 * scale, msg=k)


@pytest.mark.skipif(not bf16_available(), reason="this CPU has no bfloat16 products")
def test_in_bf16_the_split_first_layer_points_every_gradient_the_same_way(policy, positions):
    """In bf16 both passes round, each its own way: every parameter's gradient from the
    update's pass points where sb3-contrib's does (cosine above 0.99) at the same size."""
    set_precision(policy, "bf16")
    try:
        ours = _grads(policy, policy.evaluate_actions, positions)
        theirs = _grads(policy, _theirs(policy), positions)
    finally:
        set_precision(policy, "fp32")
    for k in ours:
        a, b = ours[k].flatten(), theirs[k].flatten()
        assert torch.nn.functional.cosine_similarity(a, b, dim=0) > 0.99, k
        assert 0.95 < (a.norm() / b.norm()).item() < 1.05, k


def test_without_a_shared_extractor_every_pass_takes_the_same_arithmetic(positions):
    """Each network's own card-class extractor: the rollout's, the update's, the
    evaluation's and the bootstrap's passes agree exactly, in either precision."""
    import gymnasium as gym

    from training.sb3.features import CardClassFeatures

    obs, masks, acts = positions
    torch.manual_seed(0)
    own = MixedPrecisionPolicy(gym.spaces.Box(0.0, 1.0, (obs.shape[1],), np.float32),
                               gym.spaces.Discrete(91), lambda _: 1e-3, net_arch=[32],
                               features_extractor_class=CardClassFeatures,
                               features_extractor_kwargs={"hidden": 16, "channels": 4},
                               share_features_extractor=False)
    assert own.pi_features_extractor is not own.vf_features_extractor
    for precision in ["fp32", "bf16"] if bf16_available() else ["fp32"]:
        set_precision(own, precision)
        with torch.no_grad():
            values, log_prob, _ = own.evaluate_actions(obs, acts, masks)
            dist = own.get_distribution(obs, action_masks=masks.numpy())
            _, rollout_values, _ = own(obs, action_masks=masks)
            torch.testing.assert_close(dist.log_prob(acts), log_prob, rtol=1e-5, atol=2e-5)
            assert torch.equal(own.predict_values(obs), values)
            assert torch.equal(rollout_values, values)


def test_the_split_first_layer_without_hidden_layers_is_the_features():
    from training.sb3.precision import _first_layer_split

    obs, extra = torch.rand(3, 4), torch.rand(3, 2)
    assert torch.equal(_first_layer_split(torch.nn.Sequential(), obs, extra),
                       torch.cat([obs, extra], dim=1))
    with torch.autocast("cpu", dtype=torch.bfloat16):  # the observation is not rounded
        out = _first_layer_split(torch.nn.Sequential(), obs, extra.bfloat16())
    assert out.dtype == torch.float32 and torch.equal(out[:, :4], obs)
    with pytest.raises(ValueError, match="a Linear of 4 \\+ 2 inputs"):
        _first_layer_split(torch.nn.Sequential(torch.nn.Linear(5, 3)), obs, extra)
    net = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    torch.testing.assert_close(_first_layer_split(net, obs, extra),
                               net(torch.cat([obs, extra], dim=1)))


def test_a_sample_follows_the_masked_distribution(policy, positions):
    obs, masks, acts = positions
    legal = masks.sum(1)
    row = int(torch.nonzero(legal >= 5)[0])  # a position with several legal actions
    n = 200_000
    torch.manual_seed(0)
    with torch.no_grad():
        drawn, _, log_prob = policy(obs[row:row + 1].expand(n, -1),
                                    action_masks=masks[row:row + 1].expand(n, -1))
        _, every, _ = policy.evaluate_actions(obs[row:row + 1].expand(91, -1), torch.arange(91),
                                              masks[row:row + 1].expand(91, -1))
    p = every.exp().numpy()
    seen = np.bincount(drawn.numpy(), minlength=91) / n
    assert masks[row][drawn].all()  # never an illegal action
    assert np.abs(seen - p).max() < 4 * np.sqrt(p.max() / n) + 1e-3
    assert torch.allclose(log_prob, every[drawn])


@pytest.mark.skipif(not bf16_available(), reason="this CPU has no bfloat16 products")
def test_bf16_is_close_to_fp32_and_the_same_for_any_batch(policy, positions):
    obs, masks, acts = positions
    with torch.no_grad():
        fp32 = policy.evaluate_actions(obs, acts, masks)
        set_precision(policy, "bf16")
        try:
            whole = policy.evaluate_actions(obs, acts, masks)
            parts = [policy.evaluate_actions(obs[i:i + 64], acts[i:i + 64], masks[i:i + 64])
                     for i in range(0, 1024, 64)]
        finally:
            set_precision(policy, "fp32")
    assert all(t.dtype == torch.float32 for t in whole)  # float32 heads and losses
    # the rollout (small batches) and the update (minibatches) give the same numbers
    for k in range(3):
        assert torch.equal(whole[k], torch.cat([p[k] for p in parts]))
    ratio = (whole[1] - fp32[1]).exp()
    assert (ratio - 1).abs().mean() < 0.05 and (ratio - 1).abs().max() < 0.5
    assert (whole[0] - fp32[0]).abs().max() < 0.1


@pytest.mark.skipif(not bf16_available(), reason="this CPU has no bfloat16 products")
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_every_pass_of_the_policy_takes_the_same_arithmetic(policy, positions, precision):
    """get_distribution (evaluation, DAgger) and predict_values (SB3's bootstrap of a
    rollout's last step) equal the update's evaluate_actions in either precision: the
    features extractor runs in the policy's precision on every path (sb3-contrib's own
    methods skipped the autocast)."""
    obs, masks, acts = positions
    set_precision(policy, precision)
    try:
        with torch.no_grad():
            values, log_prob, _ = policy.evaluate_actions(obs, acts, masks)
            dist = policy.get_distribution(obs, action_masks=masks.numpy())
            alone = policy.predict_values(obs)
    finally:
        set_precision(policy, "fp32")
    # the same logits; sb3-contrib's distribution normalises them its own way (float
    # rounding), where the extractor in fp32 against bf16 moved a log-probability by 0.17
    torch.testing.assert_close(dist.log_prob(acts), log_prob, rtol=1e-5, atol=2e-5)
    assert torch.equal(alone, values)


def test_the_precision_is_not_saved(tmp_path, policy):
    from sb3_contrib import MaskablePPO

    model = load_model(REFERENCE, custom_objects={"policy_class": MixedPrecisionPolicy})
    set_precision(model.policy, "bf16")
    model.save(tmp_path / "m.zip")
    again = MaskablePPO.load(tmp_path / "m.zip")
    assert type(again.policy) is MixedPrecisionPolicy and again.policy.precision == "fp32"
    assert again.policy.mlp_extractor.precision == "fp32"


def test_set_precision_refuses_what_it_cannot_do():
    plain = load_model(REFERENCE).policy  # saved with sb3-contrib's own class
    with pytest.raises(TypeError, match="bf16 needs MixedPrecisionPolicy"):
        set_precision(plain, "bf16")
    set_precision(plain, "fp32")  # nothing to do
    with pytest.raises(ValueError, match="'fp32' or 'bf16'"):
        set_precision(plain, "fp16")


def test_no_bf16_products_falls_back_to_fp32_with_one_warning(monkeypatch):
    import training.sb3.precision as precision

    monkeypatch.setattr(precision, "bf16_available", lambda: False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert resolve_precision("bf16") == "fp32"
        assert resolve_precision("fp32") == "fp32"
    assert len(caught) == 1 and "training in fp32" in str(caught[0].message)


def test_auto_is_bf16_only_where_it_is_faster(monkeypatch):
    import training.sb3.precision as precision

    for fast, expected in ((True, "bf16"), (False, "fp32")):
        monkeypatch.setattr(precision, "bf16_fast", lambda fast=fast: fast)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # auto never warns
            assert resolve_precision("auto") == expected
    with pytest.raises(ValueError, match="'fp32', 'bf16' or 'auto', got 'fp16'"):
        resolve_precision("fp16")


def test_bf16_is_fast_with_amx_or_by_measurement(monkeypatch):
    import training.sb3.precision as precision

    cases = [  # (bf16 products, AMX, measured speedup) -> fast
        ((True, True, 0.5), True), ((True, False, 2.0), True),
        ((True, False, precision.AUTO_MIN_SPEEDUP), True),
        ((True, False, precision.AUTO_MIN_SPEEDUP - 0.01), False), ((True, False, 0.8), False),
        ((False, True, 3.0), False), ((False, False, 3.0), False)]
    for (products, amx, speedup), fast in cases:
        monkeypatch.setattr(precision, "bf16_available", lambda v=products: v)
        monkeypatch.setattr(precision, "_amx", lambda v=amx: v)
        monkeypatch.setattr(precision, "bf16_speedup", lambda v=speedup: v)
        assert precision.bf16_fast() is fast, (products, amx, speedup)


def test_the_measured_speedup_is_a_real_timing_cached_per_process(monkeypatch):
    import training.sb3.precision as precision

    precision.bf16_speedup.cache_clear()
    try:
        first = precision.bf16_speedup()
        assert precision.bf16_speedup() == first  # measured once
        assert precision.bf16_speedup.cache_info().hits >= 1
        if bf16_available():
            assert 0.05 < first < 50.0  # two timings of the same work, not a constant
        else:
            assert first == 0.0
        # measured on one thread, under no_grad too, leaving the process as it was
        precision.bf16_speedup.cache_clear()
        threads, state = torch.get_num_threads(), torch.get_rng_state()
        with torch.no_grad():
            precision.bf16_speedup()
            assert not torch.is_grad_enabled()
        assert torch.get_num_threads() == threads
        assert torch.equal(torch.get_rng_state(), state)
    finally:
        precision.bf16_speedup.cache_clear()
    monkeypatch.setattr(precision, "bf16_available", lambda: False)
    assert precision.bf16_speedup() == 0.0 and not precision.bf16_fast()
    precision.bf16_speedup.cache_clear()


def test_the_policy_s_optimiser_is_sb3_s_adam_in_the_fused_kernel(policy):
    from stable_baselines3.common.utils import ConstantSchedule

    from training.sb3.precision import fuse_adam

    fresh = MixedPrecisionPolicy(policy.observation_space, policy.action_space,
                                 ConstantSchedule(1e-4))
    assert type(fresh.optimizer) is torch.optim.Adam
    group = fresh.optimizer.param_groups[0]
    assert group["eps"] == 1e-5 and group["fused"] is True
    # an explicit choice is kept
    other = MixedPrecisionPolicy(policy.observation_space, policy.action_space,
                                 ConstantSchedule(1e-4), optimizer_kwargs={"eps": 1e-3})
    assert other.optimizer.param_groups[0]["eps"] == 1e-3
    assert not other.optimizer.param_groups[0]["fused"]
    # a checkpoint saved before: its loaded state says not fused; fuse_adam sets it, and
    # the fused step equals the default loop's (the reference's own moments and step)
    import copy

    assert not policy.optimizer.param_groups[0]["fused"]
    a, b = copy.deepcopy(policy), copy.deepcopy(policy)
    fuse_adam(b.optimizer)
    assert b.optimizer.param_groups[0]["fused"] is True
    gen = torch.Generator().manual_seed(3)
    for pa, pb in zip(a.parameters(), b.parameters()):
        pa.grad = torch.randn(pa.shape, generator=gen)
        pb.grad = pa.grad.clone()
    a.optimizer.step()
    b.optimizer.step()
    moved = 0
    for (name, pa), pb, p0 in zip(a.named_parameters(), b.parameters(), policy.parameters()):
        torch.testing.assert_close(pb, pa, rtol=1e-5, atol=1e-7, msg=name)
        moved += int(not torch.equal(pa, p0))
    assert moved == len(list(policy.parameters()))


def test_entropy_is_exact_with_masked_actions(policy, positions):
    """The entropy of the masked distribution (a masked action's log-probability is
    about -1e8 and is clamped before exp) equals sb3-contrib's."""
    obs, masks, acts = positions
    with torch.no_grad():
        _, _, ent = policy.evaluate_actions(obs, acts, action_masks=masks)
        dist = MaskableActorCriticPolicy.get_distribution(policy, obs, action_masks=masks)
        want = dist.entropy()
    assert masks.sum(1).min() >= 1 and (masks.sum(1) > 1).any()
    torch.testing.assert_close(ent, want, rtol=1e-5, atol=1e-6)


def test_a_precision_that_is_not_offered_is_a_config_error(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text((ROOT / "configs" / "smoke.yaml").read_text().replace(
        "  features: card_classes", "  features: card_classes\n  precision: fp16"))
    with pytest.raises(ConfigError, match="ppo.precision"):
        load_config(path)
