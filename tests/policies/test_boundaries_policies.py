"""Policies refuse what they cannot play (a policy asked to act on an all-zero mask, or on
another variant's observation, raises; docs/RULES.md §7 environment contract & boundaries).

One validation function, :func:`canasta_env.policies.check_policy_inputs`, is used by
:class:`RandomPolicy`, :class:`HeuristicPolicy`, :class:`training.checkpoint.
CheckpointPolicy` and :class:`canasta_env.bots.onnx_policy.OnnxPolicy`: each refuses
all-zero masks, wrong lengths, 2-D inputs, non-finite
observations and another variant's observation with the same ``ValueError`` message, and
accepts int8 and bool masks (and other 0 / 1 numbers). A hypothesis test corrupts real
observations and masks at random: every policy raises exactly when the validation
function does, with its message, and otherwise returns a legal action.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import canasta_env
from canasta_env.policies import HeuristicPolicy, RandomPolicy, check_policy_inputs

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")

from training.checkpoint import CheckpointPolicy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "checkpoints" / "reference" / "classic.zip"


def _views(variant: str, n: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, action mask) of the seat on turn at ``n`` positions of random play."""
    raw = canasta_env.raw_env(variant=variant)
    rng = random.Random(seed)
    out = []
    episode = 0
    while len(out) < n:
        raw.reset(seed=seed + episode)
        episode += 1
        for _ in range(rng.randrange(1, 120)):
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                break
            raw.step(rng.choice(raw.game.legal_actions()))
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            o = raw.observe(agent)
            out.append((o["observation"].copy(), o["action_mask"].copy()))
    return out


@pytest.fixture(scope="module")
def classic_views():
    return _views("classic", 12)


@pytest.fixture(scope="module")
def hf_views():
    return _views("hand_and_foot", 12)


def _untrained(variant: str):
    from sb3_contrib import MaskablePPO

    from training.adapter import PartnershipEnv

    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(0))], variant=variant)
    return MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, n_steps=64,
                       batch_size=32, seed=0, device="cpu")


@pytest.fixture(scope="module")
def classic_policies():
    """Every kind of policy, the checkpoint being the shipped Classic reference."""
    from canasta_env.bots.onnx_policy import OnnxPolicy

    return [RandomPolicy(0), HeuristicPolicy(), CheckpointPolicy(str(REFERENCE)),
            OnnxPolicy(REFERENCE.with_suffix(".onnx"))]


@pytest.fixture(scope="module")
def hf_policies():
    return [RandomPolicy(0), HeuristicPolicy(), CheckpointPolicy(_untrained("hand_and_foot"))]


def _refusals(policies, obs, mask) -> set[str]:
    """The messages with which ``policies`` refuse (obs, mask); each must refuse."""
    out = set()
    for p in policies:
        with pytest.raises(ValueError) as e:
            p.act(obs, mask)
        out.add(str(e.value))
    return out


# ---------------------------------------------------------------------- the example
def test_the_reference_checkpoint_refuses_an_all_zero_mask(classic_views):
    obs, _ = classic_views[0]
    with pytest.raises(ValueError) as e:
        CheckpointPolicy(str(REFERENCE)).act(obs, np.zeros(91, np.int8))
    assert str(e.value) == "action_mask has no legal action (all zeros)"


# ---------------------------------------------------------------------- every kind of refusal
def _classic_cases(obs, mask, hf_obs) -> list[tuple[str, object, object]]:
    nan = obs.copy()
    nan[5] = np.nan
    inf = obs.copy()
    inf[7] = np.inf
    two = mask.astype(np.int64)
    two[3] = 2
    half = mask.astype(np.float32)
    half[3] = 0.5
    nan_mask = mask.astype(np.float64)
    nan_mask[3] = np.nan
    return [
        ("action_mask has no legal action (all zeros)", obs, np.zeros(91, np.int8)),
        ("action_mask has no legal action (all zeros)", obs, np.zeros(91, bool)),
        ("action_mask has 90 entries, this Classic policy expects 91", obs, mask[:90]),
        ("action_mask has 92 entries, this Classic policy expects 91", obs,
         np.append(mask, np.int8(1))),
        ("observation has 201 entries, this Classic policy expects 202", obs[:201], mask),
        ("observation has 512 entries, this Classic policy expects 202",
         np.zeros(512, np.float32), mask),
        ("observation must be 1-D (one seat's vector), got shape (1, 202)", obs[None], mask),
        ("action_mask must be 1-D (one seat's mask), got shape (1, 91)", obs, mask[None]),
        ("observation must be 1-D (one seat's vector), got shape ()", np.float32(1.0), mask),
        ("observation has 1 non-finite value(s) (NaN or inf), first at index 5", nan, mask),
        ("observation has 1 non-finite value(s) (NaN or inf), first at index 7", inf, mask),
        ("observation has 245 entries, this Classic policy expects 202 (a Hand and Foot "
         "observation: another variant)", hf_obs, mask),
        ("observation must be floats (float32), got dtype int64", np.zeros(202, np.int64),
         mask),
        ("action_mask must be int8, bool or numbers 0 / 1, got dtype <U1", obs,
         np.array(["1"] * 91)),
        ("action_mask entries must be 0 or 1, got 2 at index 3", obs, two),
        ("action_mask entries must be 0 or 1, got 0.5 at index 3", obs, half),
        ("action_mask entries must be 0 or 1, got nan at index 3", obs, nan_mask),
    ]


def test_classic_policies_refuse_with_the_same_message(classic_views, hf_views,
                                                       classic_policies):
    obs, mask = classic_views[0]
    for want, o, m in _classic_cases(obs, mask, hf_views[0][0]):
        assert _refusals(classic_policies, o, m) == {want}, want


def test_hand_and_foot_policies_refuse_with_the_same_message(classic_views, hf_views,
                                                             hf_policies):
    obs, mask = hf_views[0]
    cases = {
        "action_mask has no legal action (all zeros)": (obs, np.zeros(98, np.int8)),
        "action_mask has 97 entries, this Hand and Foot policy expects 98": (obs, mask[:97]),
        "observation has 202 entries, this Hand and Foot policy expects 245 (a Classic "
        "observation: another variant)": (classic_views[0][0], mask),
        "observation must be 1-D (one seat's vector), got shape (2, 245)":
            (np.stack([obs, obs]), mask),
    }
    nan = obs.copy()
    nan[0] = np.nan
    cases["observation has 1 non-finite value(s) (NaN or inf), first at index 0"] = (nan, mask)
    for want, (o, m) in cases.items():
        assert _refusals(hf_policies, o, m) == {want}, want


def test_a_checkpoint_refuses_a_whole_other_variant(hf_views, classic_views, classic_policies,
                                                    hf_policies):
    """Random and heuristic play either variant; a checkpoint only its own, even when
    observation and mask agree with each other."""
    ck_classic, ck_hf = classic_policies[-1], hf_policies[-1]
    with pytest.raises(ValueError) as e:
        ck_classic.act(*hf_views[0])
    assert str(e.value) == ("observation has 245 entries, this Classic policy expects 202 "
                            "(a Hand and Foot observation: another variant)")
    with pytest.raises(ValueError) as e:
        ck_hf.act(*classic_views[0])
    assert str(e.value) == ("observation has 202 entries, this Hand and Foot policy expects "
                            "245 (a Classic observation: another variant)")
    for p in classic_policies[:2]:
        obs, mask = hf_views[0]
        assert mask[p.act(obs, mask)] == 1


# ---------------------------------------------------------------------- what is accepted
@pytest.mark.parametrize("convert", [
    lambda m: m.astype(np.int8), lambda m: m.astype(bool), lambda m: m.astype(np.int64),
    lambda m: m.astype(np.uint8), lambda m: m.tolist(), lambda m: m.astype(np.float32)])
def test_int8_bool_and_0_1_masks_are_accepted(classic_views, hf_views,
                                                      classic_policies, hf_policies, convert):
    for views, policies in ((classic_views, classic_policies), (hf_views, hf_policies)):
        for obs, mask in views[:4]:
            for p in policies:
                p.reset(3)
                a = p.act(obs, convert(mask))
                p.reset(3)
                assert a == p.act(obs.astype(np.float64), mask)  # same answer as int8
                assert mask[a] == 1


def test_check_policy_inputs_returns_float32_and_int8(classic_views):
    obs, mask = classic_views[0]
    o, m = check_policy_inputs(obs.astype(np.float64), mask.astype(bool))
    assert o.dtype == np.float32 and m.dtype == np.int8
    np.testing.assert_array_equal(o, obs)
    np.testing.assert_array_equal(m, mask)
    o, m = check_policy_inputs(obs, mask, obs_size=202, num_actions=91)
    assert o is obs and m is mask  # no copies when nothing is converted


# ---------------------------------------------------------------------- property
CORRUPTIONS = ("none", "zero_mask", "truncate_obs", "extend_obs", "truncate_mask", "nan",
               "inf", "two_d_obs", "two_d_mask", "int_obs", "float_mask", "mask_value",
               "other_variant_obs", "negative_mask")


def _corrupt(kind: str, obs, mask, other_obs, i: int):
    obs, mask = obs.copy(), mask.copy()
    if kind == "zero_mask":
        mask[:] = 0
    elif kind == "truncate_obs":
        obs = obs[:i % len(obs)]
    elif kind == "extend_obs":
        obs = np.concatenate([obs, np.zeros(1 + i % 50, np.float32)])
    elif kind == "truncate_mask":
        mask = mask[:i % len(mask)]
    elif kind == "nan":
        obs[i % len(obs)] = np.nan
    elif kind == "inf":
        obs[i % len(obs)] = -np.inf
    elif kind == "two_d_obs":
        obs = obs.reshape(1, -1)
    elif kind == "two_d_mask":
        mask = mask.reshape(-1, 1)
    elif kind == "int_obs":
        obs = obs.astype(np.int32)
    elif kind == "float_mask":
        mask = mask.astype(np.float64)
        mask[i % len(mask)] = 0.25 if i % 2 else mask[i % len(mask)]
    elif kind == "mask_value":
        mask = mask.astype(np.int16)
        mask[i % len(mask)] = 3
    elif kind == "negative_mask":
        mask = mask.astype(np.int32)
        mask[i % len(mask)] = -1
    elif kind == "other_variant_obs":
        obs = other_obs
    return obs, mask


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hf=st.booleans(), k=st.integers(0, 11), kind=st.sampled_from(CORRUPTIONS),
       i=st.integers(0, 10_000), as_bool=st.booleans())
def test_policies_refuse_exactly_what_the_validation_refuses(
        classic_views, hf_views, classic_policies, hf_policies, hf, k, kind, i, as_bool):
    views, other, policies = ((hf_views, classic_views, hf_policies) if hf else
                              (classic_views, hf_views, classic_policies))
    obs, mask = views[k]
    if as_bool:
        mask = mask.astype(bool)
    obs, mask = _corrupt(kind, obs, mask, other[k][0], i)
    sizes = {p.name: (p.obs_size, p.num_actions) if hasattr(p, "obs_size") else
             (p.model.observation_space.shape[0], p.model.action_space.n)
             for p in policies if hasattr(p, "model") or hasattr(p, "obs_size")}
    for p in policies:
        try:
            check_policy_inputs(obs, mask, *sizes.get(p.name, (None, None)))
        except ValueError as e:
            with pytest.raises(ValueError) as got:
                p.act(obs, mask)
            assert str(got.value) == str(e)
        else:
            assert np.asarray(mask)[p.act(obs, mask)] == 1


def test_the_onnx_model_takes_the_envs_int8_mask_as_it_is(classic_views):
    """The exported model's mask input is int8, the env's own dtype: onnxruntime runs it
    on ``obs["action_mask"]`` without a cast, and the move is the checkpoint's."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(REFERENCE.with_suffix(".onnx")),
                                   providers=["CPUExecutionProvider"])
    types = {i.name: i.type for i in session.get_inputs()}
    assert types == {"observation": "tensor(float)", "action_mask": "tensor(int8)"}
    torch_policy = CheckpointPolicy(str(REFERENCE))
    for obs, mask in classic_views:
        assert mask.dtype == np.int8
        logits = session.run(["logits"], {"observation": obs[None], "action_mask": mask[None]})[0]
        assert int(logits.argmax()) == torch_policy.act(obs, mask)


def test_observation_values_outside_the_encoders_range_are_refused(classic_views,
                                                                   classic_policies):
    """Found by an adversarial review: a huge finite observation made the ONNX model's
    logits NaN (action 0, illegal), a negative count crashed the heuristic with an
    IndexError, 1e300 overflowed float32. Every policy now refuses them alike."""
    obs, mask = classic_views[0]
    for i, value, dtype in ((5, 3.4e38, np.float32), (5, -1.0, np.float32),
                            (0, 1e300, np.float64)):
        bad = obs.astype(dtype)
        bad[i] = value
        with pytest.raises(ValueError) as want:
            check_policy_inputs(bad, mask)
        assert f"observation entry {i} is" in str(want.value)
        assert "outside the encoder's range 0..10,000" in str(want.value)
        for p in classic_policies:
            with pytest.raises(ValueError) as got:
                p.act(bad, mask)
            assert str(got.value) == str(want.value)
