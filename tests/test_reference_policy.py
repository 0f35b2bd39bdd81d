"""The shipped reference policy (checkpoints/reference/classic.zip and its ONNX export
classic.onnx) loads everywhere a policy is named, both files play the same moves, and it
plays clearly better than random."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")
pytest.importorskip("onnxruntime", reason="the service extra is part of the test install")

from opponent_helpers import observations_from_play  # noqa: E402

from canasta_env.bots import (  # noqa: E402
    REFERENCE_CHECKPOINT,
    REFERENCE_ONNX,
    load_policy,
    reference_path,
)
from canasta_env.bots.onnx_policy import OnnxPolicy  # noqa: E402
from training.checkpoint import CheckpointPolicy, load_model  # noqa: E402
from training.evaluate import evaluate_policies  # noqa: E402


def test_reference_checkpoint_is_shipped_small_and_classic():
    assert REFERENCE_CHECKPOINT.is_file()
    assert REFERENCE_CHECKPOINT.stat().st_size < 5_000_000
    model = load_model(REFERENCE_CHECKPOINT)
    assert model.observation_space.shape == (202,)
    assert model.action_space.n == 91
    # trained by configs/classic.yaml: the card-class extractor in front of 256x256 MLPs
    assert type(model.policy.features_extractor).__name__ == "CardClassFeatures"


def test_reference_onnx_is_shipped_small_and_from_the_checkpoint():
    import onnx

    assert REFERENCE_ONNX.is_file()
    assert REFERENCE_ONNX.stat().st_size < 2_000_000
    meta = {p.key: p.value for p in onnx.load(str(REFERENCE_ONNX)).metadata_props}
    assert meta["checkpoint"] == REFERENCE_CHECKPOINT.name
    assert (meta["obs_size"], meta["num_actions"]) == ("202", "91")


def test_reference_onnx_and_checkpoint_play_the_same_moves():
    """The two shipped files are one policy: the same argmax (deterministic) action on 400
    observations from real play, and logits equal to 1e-4 on the legal actions."""
    obs, masks = observations_from_play(400)
    onnx_policy = OnnxPolicy(REFERENCE_ONNX)
    torch_policy = CheckpointPolicy(REFERENCE_CHECKPOINT, deterministic=True)
    got = onnx_policy.logits(obs, masks)
    want = np.stack([torch_policy.logits(o, m) for o, m in zip(obs, masks)])
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all(), \
        f"{int((got.argmax(axis=1) != want.argmax(axis=1)).sum())} of 400 disagree"
    legal = masks.astype(bool)
    assert np.abs(got[legal] - want[legal]).max() < 1e-4
    assert [onnx_policy.act(o, m) for o, m in zip(obs, masks)] == \
        [torch_policy.act(o, m) for o, m in zip(obs, masks)]


def test_reference_loads_by_name_and_beats_random():
    # onnxruntime is installed: "reference" is the ONNX model; the checkpoint by its path
    assert reference_path() == REFERENCE_ONNX
    assert isinstance(load_policy("reference"), OnnxPolicy)
    assert isinstance(load_policy(str(REFERENCE_CHECKPOINT)), CheckpointPolicy)
    res = evaluate_policies("reference", "random", hands=60, seed=7)
    # measured on 1,000 duplicate hands: 0.958 (seed 12345), 0.963 (seed 0), 0.960 (seed 1);
    # 60 hands leave room for chance
    assert res["win_rate"] >= 0.8
    assert res["mean_score_diff"] > 400
    rates = res["opening_success_a"]  # measured: 1.000 / 1.000 / 0.996 / 0.976
    assert all(rates[level] is None or rates[level] >= 0.9 for level in ("15", "50", "90"))
