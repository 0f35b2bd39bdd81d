"""The card-class features extractor (training/features.py): shapes, which observation
entries each class reads, and that the shared MLP sees each class through its own
entries only."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gym = pytest.importorskip("gymnasium")

from canasta_env.engine.cards import NAME_TO_CLASS, RED_THREE  # noqa: E402
from canasta_env.observation import MELD_SLOTS, OBS_SIZE, OBS_SIZE_HAND_AND_FOOT, SLICES  # noqa: E402
from training.features import CardClassFeatures, class_indices  # noqa: E402


def _space(n: int):
    return gym.spaces.Box(0.0, 1.0, (n,), np.float32)


def test_class_indices_read_each_class_own_entries():
    rows, glob = class_indices(OBS_SIZE)
    assert len(rows) == 15 and all(len(r) == 12 for r in rows)
    k = NAME_TO_CLASS["K"]
    assert rows[k][0] == SLICES["hand"].start + k
    assert rows[k][4] == SLICES["pile_contents"].start + k
    assert rows[k][5] == SLICES["pile_top"].start + k
    assert rows[k][6] == SLICES["melds_us_naturals"].start + MELD_SLOTS.index(k)
    assert rows[k][11] == SLICES["melds_them_twos"].start + MELD_SLOTS.index(k)
    # red 3s are never melded: their meld entries read the constant zero
    assert rows[RED_THREE][6:] == [OBS_SIZE] * 6
    assert SLICES["pile_size"].start in glob and SLICES["hand"].start not in glob
    assert len(glob) == len(set(glob)) == 4 + 4 + 1 + 3 + 1 + 1 + 2 + 2 + 6 + 8


@pytest.mark.parametrize("n", [OBS_SIZE, OBS_SIZE_HAND_AND_FOOT])
def test_output_is_the_observation_then_channels_per_class(n):
    torch.manual_seed(0)
    ext = CardClassFeatures(_space(n), hidden=16, channels=5)
    assert ext.features_dim == n + 15 * 5
    obs = torch.rand(3, n)
    out = ext(obs)
    assert out.shape == (3, n + 75) and out.dtype == torch.float32
    assert torch.equal(out[:, :n], obs)


def test_a_class_entry_changes_only_that_class_channels():
    torch.manual_seed(0)
    ext = CardClassFeatures(_space(OBS_SIZE), hidden=16, channels=4)
    obs = torch.rand(1, OBS_SIZE)
    k = NAME_TO_CLASS["K"]
    changed = obs.clone()
    changed[0, SLICES["hand"].start + k] += 0.5
    d = (ext(changed) - ext(obs))[0, OBS_SIZE:].reshape(15, 4).abs().sum(dim=1)
    assert d[k] > 0
    assert torch.count_nonzero(d) == 1
    # a global entry (the pile size) reaches every class
    changed = obs.clone()
    changed[0, SLICES["pile_size"].start] += 0.5
    d = (ext(changed) - ext(obs))[0, OBS_SIZE:].reshape(15, 4).abs().sum(dim=1)
    assert torch.count_nonzero(d) == 15


@pytest.mark.parametrize("layers", [1, 2, 3, np.int64(2)])
def test_the_shared_mlp_has_the_hidden_layers_asked_for(layers):
    ext = CardClassFeatures(_space(OBS_SIZE), hidden=16, channels=4, layers=layers)
    kinds = [type(m).__name__ for m in ext.shared]
    assert kinds == ["Linear", "ReLU"] * layers + ["Linear"]
    assert [m.out_features for m in ext.shared if hasattr(m, "out_features")] == [16] * layers + [4]
    assert ext(torch.rand(2, OBS_SIZE)).shape == (2, OBS_SIZE + 60)


def test_the_default_keeps_the_parameter_names_of_saved_checkpoints():
    names = [k for k, _ in CardClassFeatures(_space(OBS_SIZE)).named_parameters()]
    assert names == [f"shared.{i}.{w}" for i in (0, 2, 4) for w in ("weight", "bias")]


@pytest.mark.parametrize("layers", [0, -1, True, 1.0, np.int64(0)])
def test_a_bad_layer_count_is_a_clear_error(layers):
    with pytest.raises(ValueError, match="a whole number of hidden layers, at least 1, got"):
        CardClassFeatures(_space(OBS_SIZE), layers=layers)


def test_bad_observation_space_is_a_clear_error():
    with pytest.raises(ValueError, match="at least 202"):
        CardClassFeatures(_space(50))
    with pytest.raises(ValueError, match="1-D"):
        CardClassFeatures(gym.spaces.Box(0.0, 1.0, (4, 202), np.float32))


def test_the_config_s_layer_count_reaches_the_extractor():
    from pathlib import Path

    from training.sb3.config import load_config
    from training.sb3.train import policy_kwargs

    root = Path(__file__).resolve().parents[2]
    default = policy_kwargs(load_config(root / "configs" / "classic.yaml"))
    assert default["features_extractor_kwargs"] == {"hidden": 64, "channels": 8, "layers": 2}
    one = policy_kwargs(load_config(root / "configs" / "classic_c1.yaml"))
    assert one["features_extractor_kwargs"] == {"hidden": 64, "channels": 8, "layers": 1}


def test_a_checkpoint_saved_before_the_layer_setting_is_the_default_network():
    from pathlib import Path
    from types import SimpleNamespace

    from training.sb3.config import load_config
    from training.sb3.train import network_mismatch, policy_kwargs

    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "classic.yaml")
    saved = policy_kwargs(cfg)
    # checkpoints saved before ppo.class_layers have no "layers": the default, the same network
    before = saved | {"features_extractor_kwargs": {"hidden": 64, "channels": 8}}
    assert network_mismatch(SimpleNamespace(policy_kwargs=before), cfg) == ""
    other = saved | {"features_extractor_kwargs": {"hidden": 64, "channels": 8, "layers": 1}}
    assert network_mismatch(SimpleNamespace(policy_kwargs=other), cfg) == (
        "extractor settings {'hidden': 64, 'channels': 8, 'layers': 1} vs "
        "{'hidden': 64, 'channels': 8, 'layers': 2}")
