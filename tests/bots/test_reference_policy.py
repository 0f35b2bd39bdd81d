"""The shipped reference policies (checkpoints/reference/classic.zip and
hand_and_foot.zip, each with its ONNX export beside it) load everywhere a policy is named,
both files of a variant play the same moves, and each plays clearly better than random."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")
pytest.importorskip("onnxruntime", reason="the service extra is part of the test install")

from canasta_env.bots import (  # noqa: E402
    REFERENCE_CHECKPOINT,
    REFERENCE_ONNX,
    load_policy,
    reference_path,
)
from canasta_env.bots.loader import reference_files  # noqa: E402
from canasta_env.bots.onnx_policy import OnnxPolicy  # noqa: E402
from tests.helpers.opponent import observations_from_play  # noqa: E402
from training.checkpoint import CheckpointPolicy, load_model  # noqa: E402
from training.evaluate import evaluate_policies  # noqa: E402


def test_reference_checkpoint_is_shipped_small_and_classic():
    assert REFERENCE_CHECKPOINT.is_file()
    assert REFERENCE_CHECKPOINT.stat().st_size < 5_000_000
    model = load_model(REFERENCE_CHECKPOINT)
    assert model.observation_space.shape == (202,)
    assert model.action_space.n == 91
    # configs/classic_reference.yaml: the card-class extractor in front of 256x256 MLPs
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
    # measured on 1,000 duplicate hands (README): 0.969 (seed 7), 0.969 (seed 8); 60 hands
    # leave room for chance
    assert res["win_rate"] >= 0.8
    assert res["mean_score_diff"] > 400
    rates = res["opening_success_a"]  # measured (seed 7): 1.000 / 1.000 / 1.000 / 0.989
    assert all(rates[level] is None or rates[level] >= 0.9 for level in ("15", "50", "90"))


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_each_reference_config_is_the_one_in_configs(variant):
    """The config beside each reference is what its run resolved; it is the repo's config
    of the last leg of the run that saved it (Classic:
    ``configs/classic_reference_random.yaml``; Hand and Foot:
    ``configs/hand_and_foot_long.yaml``) but for the run's name (which only names its
    folders) and, where the repo's config asks for ``ppo.precision: auto``, the precision
    it resolved to on the machine that trained it."""
    from training.config import load_config

    root = REFERENCE_CHECKPOINT.parents[2]
    shipped = load_config(REFERENCE_CHECKPOINT.parent / f"{variant}.config.yaml")
    name = {"classic": "classic_reference_random", "hand_and_foot": "hand_and_foot_long"}
    repo = load_config(root / "configs" / f"{name[variant]}.yaml")
    assert shipped.variant == variant and shipped.reward == "win_loss"
    assert shipped.ppo.precision in ("fp32", "bf16")
    ppo = repo.ppo
    if ppo.precision == "auto":
        ppo = ppo.model_copy(update={"precision": shipped.ppo.precision})
    assert repo.model_copy(update={"run_name": shipped.run_name, "ppo": ppo}) == shipped


def test_the_apprentice_config_is_the_one_in_configs():
    """The config beside Hand and Foot's apprentice is what configs/hand_and_foot_apprentice.yaml
    resolved to (the run that saved the shipped checkpoint), and the file is small."""
    from canasta_env.bots.loader import apprentice_file
    from training.config import load_config

    onnx = apprentice_file("hand_and_foot")
    assert onnx.is_file() and onnx.stat().st_size < 1_000_000
    shipped = load_config(onnx.with_suffix(".config.yaml"))
    repo = load_config(onnx.parents[2] / "configs" / "hand_and_foot_apprentice.yaml")
    assert repo == shipped and shipped.total_timesteps == 1_500_000


# ----------------------------------------------------------------------------- Hand and Foot
HF_ONNX, HF_ZIP = reference_files("hand_and_foot")


def test_hand_and_foot_reference_is_shipped_small_with_its_config():
    import yaml

    assert HF_ZIP.is_file() and HF_ZIP.stat().st_size < 5_000_000
    model = load_model(HF_ZIP)
    assert model.observation_space.shape == (245,) and model.action_space.n == 98
    assert type(model.policy.features_extractor).__name__ == "CardClassFeatures"
    import onnx

    assert HF_ONNX.is_file() and HF_ONNX.stat().st_size < 2_000_000
    meta = {p.key: p.value for p in onnx.load(str(HF_ONNX)).metadata_props}
    assert meta["checkpoint"] == HF_ZIP.name
    assert (meta["obs_size"], meta["num_actions"], meta["variant"]) == \
        ("245", "98", "hand_and_foot")
    cfg = yaml.safe_load((HF_ZIP.parent / "hand_and_foot.config.yaml").read_text())
    assert cfg["variant"] == "hand_and_foot" and cfg["reward"] == "win_loss"


def test_hand_and_foot_onnx_and_checkpoint_play_the_same_moves():
    obs, masks = observations_from_play(300, variant="hand_and_foot")
    onnx_policy = OnnxPolicy(HF_ONNX)
    torch_policy = CheckpointPolicy(HF_ZIP, deterministic=True)
    got = onnx_policy.logits(obs, masks)
    want = np.stack([torch_policy.logits(o, m) for o, m in zip(obs, masks)])
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all()
    legal = masks.astype(bool)
    assert np.abs(got[legal] - want[legal]).max() < 1e-4


def test_hand_and_foot_reference_loads_by_name_and_beats_random():
    assert reference_path("hand_and_foot") == HF_ONNX
    policy = load_policy("reference", variant="hand_and_foot")
    assert isinstance(policy, OnnxPolicy) and policy.variant == "hand_and_foot"
    res = evaluate_policies("reference", "random", hands=40, seed=7, variant="hand_and_foot")
    # measured on 1,000 duplicate hands (README): 1.000 at seeds 7 and 8
    assert res["win_rate"] >= 0.9
    assert res["mean_score_diff"] > 1000
