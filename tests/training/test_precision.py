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
        # values: the same layers, the first as two products (the card-class numbers and
        # the observation side by side: MixedMlpExtractor.forward_actor_parts)
        torch.testing.assert_close(ours[0], theirs[0], rtol=0, atol=1e-5)
        assert not torch.equal(ours[0], theirs[0])  # that path, not sb3-contrib's
        assert torch.allclose(ours[1], theirs[1], atol=1e-5)  # log-probabilities
        assert torch.allclose(ours[2], theirs[2], atol=1e-5)  # entropies
        best, values, log_prob = policy(obs, deterministic=True, action_masks=masks)
        want = MaskableActorCriticPolicy.forward(policy, obs, True, masks)
        assert torch.equal(best, want[0])
        torch.testing.assert_close(values, want[1], rtol=0, atol=1e-5)
        assert torch.allclose(log_prob, want[2], atol=1e-5)


def test_the_split_first_layer_has_the_gradients_of_the_whole_one(policy, positions):
    """The update's pass (the card-class numbers and the observation entering the hidden
    layers side by side) gives every parameter the gradient of sb3-contrib's pass over
    the concatenated features, in float32 to rounding."""
    obs, masks, acts = positions
    grads = []
    for evaluate in (policy.evaluate_actions,
                     lambda *a: MaskableActorCriticPolicy.evaluate_actions(policy, *a)):
        policy.zero_grad()
        values, log_prob, entropy = evaluate(obs, acts, masks)
        (values.square().mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
        grads.append({k: p.grad.clone() for k, p in policy.named_parameters()})
    policy.zero_grad()
    ours, theirs = grads
    assert ours.keys() == theirs.keys()
    assert any(k.startswith("features_extractor.shared") for k in ours)
    for k in ours:
        scale = theirs[k].abs().max().item()
        assert scale > 0, k  # every parameter takes part
        torch.testing.assert_close(ours[k], theirs[k], rtol=0, atol=1e-4 * scale, msg=k)


def test_the_split_first_layer_without_hidden_layers_is_the_features():
    from training.sb3.precision import _first_layer_split

    obs, extra = torch.rand(3, 4), torch.rand(3, 2)
    assert torch.equal(_first_layer_split(torch.nn.Sequential(), obs, extra),
                       torch.cat([obs, extra], dim=1))
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
