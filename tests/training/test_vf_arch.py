"""``ppo.vf_arch``: the value network sized apart from the policy network."""

from pathlib import Path

import pytest
import torch

from training.sb3.config import ConfigError, load_config
from training.sb3.train import network_mismatch, policy_kwargs

ROOT = Path(__file__).resolve().parents[2]


def _smoke(tmp_path, **ppo):
    cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                      tensorboard_dir=str(tmp_path / "tb"), total_timesteps=256,
                      pretrain={"decisions": 0})
    return cfg.model_copy(update={"ppo": cfg.ppo.model_copy(update=ppo)})


def _widths(seq: torch.nn.Sequential) -> list[int]:
    return [m.out_features for m in seq if isinstance(m, torch.nn.Linear)]


def test_the_value_network_takes_its_own_sizes_and_a_resume_checks_them(tmp_path):
    from training.sb3.checkpoint import load_model
    from training.train import train

    cfg = _smoke(tmp_path, vf_arch=[16])
    assert policy_kwargs(cfg)["net_arch"] == {"pi": [64, 64], "vf": [16]}
    assert policy_kwargs(_smoke(tmp_path))["net_arch"] == [64, 64]  # default: one list
    final = train(cfg)
    model = load_model(final)
    assert _widths(model.policy.mlp_extractor.policy_net) == [64, 64]
    assert _widths(model.policy.mlp_extractor.value_net) == [16]
    assert network_mismatch(model, cfg) == ""
    same_sizes = _smoke(tmp_path, vf_arch=[64, 64])  # the default network: not this one
    assert network_mismatch(model, same_sizes).startswith("net_arch ")
    assert network_mismatch(load_model(final), _smoke(tmp_path, vf_arch=[16, 16])) != ""
    steps = model.num_timesteps
    other = _smoke(tmp_path, vf_arch=[32]).model_copy(update={"total_timesteps": steps + 1024})
    with pytest.raises(ConfigError, match="network differs"):
        train(other, resume=str(final))
    assert load_model(final).num_timesteps == steps  # nothing saved was touched


def test_a_plain_list_and_equal_pi_vf_sizes_are_the_same_network(tmp_path):
    """A checkpoint saved with one list matches a config whose vf_arch equals net_arch."""
    from types import SimpleNamespace

    model = SimpleNamespace(policy_kwargs=policy_kwargs(_smoke(tmp_path)))
    assert network_mismatch(model, _smoke(tmp_path, vf_arch=[64, 64])) == ""
    assert "net_arch" in network_mismatch(model, _smoke(tmp_path, vf_arch=[64]))


@pytest.mark.parametrize("value", ["[]", "[0]", "[128, 9000]", "wide"])
def test_a_bad_vf_arch_is_a_clear_error(tmp_path, value):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"ppo:\n  vf_arch: {value}\n")
    with pytest.raises(ConfigError, match="vf_arch"):
        load_config(bad)
