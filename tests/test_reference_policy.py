"""The shipped reference policy (checkpoints/reference/classic.zip) loads everywhere a
policy is named and plays clearly better than random."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")

from training.checkpoint import CheckpointPolicy, load_model  # noqa: E402
from training.evaluate import evaluate_policies  # noqa: E402
from training.policy_loader import REFERENCE_CHECKPOINT, load_policy  # noqa: E402


def test_reference_checkpoint_is_shipped_small_and_classic():
    assert REFERENCE_CHECKPOINT.is_file()
    assert REFERENCE_CHECKPOINT.stat().st_size < 5_000_000
    model = load_model(REFERENCE_CHECKPOINT)
    assert model.observation_space.shape == (202,)
    assert model.action_space.n == 91
    # trained by configs/classic.yaml: the card-class extractor in front of 256x256 MLPs
    assert type(model.policy.features_extractor).__name__ == "CardClassFeatures"


def test_reference_loads_by_name_and_beats_random():
    pol = load_policy("reference")
    assert isinstance(pol, CheckpointPolicy)
    res = evaluate_policies("reference", "random", hands=60, seed=7)
    # measured on 1,000 duplicate hands: 0.958 (seed 12345), 0.963 (seed 0), 0.960 (seed 1);
    # 60 hands leave room for chance
    assert res["win_rate"] >= 0.8
    assert res["mean_score_diff"] > 400
    rates = res["opening_success_a"]  # measured: 1.000 / 1.000 / 0.996 / 0.976
    assert all(rates[level] is None or rates[level] >= 0.9 for level in ("15", "50", "90"))
