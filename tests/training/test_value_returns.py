"""The warm start's value targets: the hand's score difference (as recorded) or the
reward PPO trains on (``pretrain.value_returns: reward``), from the one reward function
the batched env uses too (:func:`training.sb3.batched.hand_reward`)."""

from pathlib import Path

import numpy as np
import pytest

from training.sb3.batched import REWARDS, hand_reward
from training.sb3.config import ConfigError, TrainConfig, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_hand_reward_values():
    diff = np.array([-300.0, 0.0, 250.0], np.float32)
    assert hand_reward(diff, "win_loss", 0.001).tolist() == [-1.0, 0.0, 1.0]
    assert hand_reward(diff, "score_diff", 0.001) == pytest.approx([-0.3, 0.0, 0.25])
    assert hand_reward(diff, "win_loss_score", 0.0005) == pytest.approx([-1.15, 0.0, 1.125])
    assert hand_reward(diff, "win_loss", 0.001).dtype == np.float32
    assert hand_reward(diff, "win_loss_score", 0.0005).dtype == np.float32
    with pytest.raises(ValueError, match="reward must be one of score_diff, win_loss"):
        hand_reward(diff, "points", 0.001)
    assert set(REWARDS) == {"score_diff", "win_loss", "win_loss_score"}


def test_heuristic_data_returns_in_each_reward():
    """The same deals and moves whatever the returns; with gamma 1 every decision's return
    is its partnership's hand reward: the sign of the scaled difference for win_loss, the
    sign plus half of it for win_loss_score at half the scale."""
    from training.sb3.pretrain import collect

    kw = {"variant": "classic", "reward_scale": 0.001, "max_decisions": 2000,
          "starting_scores": "sample"}
    base = collect(400, seed=5, gamma=1.0, **kw)
    wl = collect(400, seed=5, gamma=1.0, returns="win_loss", **kw)
    for a, b in zip(base[:3], wl[:3]):
        np.testing.assert_array_equal(a, b)
    diff = base[3]
    assert np.any(diff > 0) and np.any(diff < 0)
    np.testing.assert_array_equal(wl[3], np.sign(diff))
    mixed = collect(400, seed=5, gamma=1.0, returns="win_loss_score",
                    **{**kw, "reward_scale": 0.0005})
    np.testing.assert_allclose(mixed[3], np.sign(diff) + diff / 2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="reward must be one of score_diff, win_loss"):
        collect(10, seed=5, gamma=1.0, returns="points", **kw)


def test_dagger_returns_follow_the_named_reward():
    """DAgger's positions carry the named hand reward: win/loss returns are +1 / -1 / 0
    at gamma 1."""
    from sb3_contrib import MaskablePPO

    from canasta_env.policies import RandomPolicy
    from training.adapter import PartnershipEnv
    from training.pretrain import collect_on_policy

    env = PartnershipEnv([(1.0, lambda rng: RandomPolicy(seed=0))])
    model = MaskablePPO("MlpPolicy", env, seed=0, policy_kwargs={"net_arch": [32]},
                        device="cpu")
    *_, rets, _ = collect_on_policy(model, 300, seed=4, gamma=1.0, returns="win_loss")
    *_, diffs, _ = collect_on_policy(model, 300, seed=4, gamma=1.0)  # the same hands
    assert np.any(diffs > 0) and np.any(diffs < 0)
    assert np.any(np.abs(diffs[diffs != 0]) != 1.0)  # the default: score differences
    np.testing.assert_array_equal(rets, np.sign(diffs))


def test_value_returns_in_a_config(tmp_path):
    assert TrainConfig().pretrain.value_returns == "score_diff"
    bad = tmp_path / "bad.yaml"
    bad.write_text("pretrain:\n  value_returns: points\n")
    with pytest.raises(ConfigError, match="value_returns"):
        load_config(bad)


def test_the_warm_start_passes_the_configs_reward(tmp_path, monkeypatch):
    """With ``value_returns: reward`` the warm start asks for the config's reward, with the
    default for the score difference: the heuristic's data and every DAgger round."""
    import training.sb3.pretrain as pre
    import training.train as tt

    asked = []
    real_collect = pre.collect

    def collect(*a, returns="score_diff", **k):
        asked.append(("heuristic", returns))
        return real_collect(*a, returns=returns, **k)

    def on_policy(*a, returns="score_diff", **k):
        asked.append(("dagger", returns))
        raise KeyboardInterrupt  # the first DAgger round: enough

    monkeypatch.setattr(pre, "collect", collect)
    monkeypatch.setattr(pre, "collect_on_policy", on_policy)
    for value_returns, expected in (("reward", "win_loss"), ("score_diff", "score_diff")):
        asked.clear()
        cfg = load_config(ROOT / "configs" / "smoke.yaml", checkpoint_dir=str(tmp_path / "ck"),
                          tensorboard_dir=str(tmp_path / "tb"))
        cfg = cfg.model_copy(update={"reward": "win_loss", "pretrain": cfg.pretrain.model_copy(
            update={"value_returns": value_returns})})
        assert cfg.pretrain.dagger_rounds >= 1
        with pytest.raises(tt.TrainingInterrupted):
            tt.train(cfg)
        assert asked == [("heuristic", expected), ("dagger", expected)]
