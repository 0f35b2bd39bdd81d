"""Ray RLlib training (training.rllib, training.rllib_module): masks in every forward mode,
rewards through the PettingZoo wrapper and RLlib's own episodes, the smoke config end to
end (train, checkpoint, ONNX export, training.evaluate), bad configs, and (slow) the
two-node loopback cluster. The vector env (env: vector): tests/training/test_rllib_vector.py.
Needs the ``distributed`` extra (CI installs it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# Ray on this one machine stays on 127.0.0.1 (set before ray is imported; inherited by
# the subprocesses below): see training.rllib.keep_on_loopback
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="the distributed extra (ray[rllib]) is not installed")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402

import canasta_env  # noqa: E402
from canasta_env.bots.onnx_policy import MASKED_LOGIT  # noqa: E402
from tests.helpers.opponent import observations_from_play  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.rllib import (  # noqa: E402
    AGENTS,
    CanastaRLlibEnv,
    RLlibConfig,
    load_rllib_config,
    main,
    ppo_config,
)
from training.rllib_module import MaskedActorCritic, RLlibPolicy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "configs" / "rllib_smoke.yaml"


def _module(net_arch=(32, 32), seed=0):
    torch.manual_seed(seed)
    env = CanastaRLlibEnv()
    return MaskedActorCritic(observation_space=env.observation_space["player_0"],
                             action_space=env.action_space["player_0"],
                             model_config={"net_arch": list(net_arch)})


def _batch(obs, masks):
    return {Columns.OBS: {"observations": torch.as_tensor(obs),
                          "action_mask": torch.as_tensor(masks)}}


@pytest.fixture(scope="module")
def real_batch():
    obs, masks = observations_from_play(300)
    masks = masks.copy()
    masks[-1] = 0  # the final observation of a hand: all-zero mask
    return obs, masks


@pytest.mark.parametrize("mode", ["forward_exploration", "forward_inference", "forward_train"])
def test_masks_respected_in_every_forward_mode(real_batch, mode):
    obs, masks = real_batch
    module = _module()
    out = getattr(module, mode)(_batch(obs, masks))
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert logits.shape == masks.shape and torch.isfinite(logits).all()
    legal = torch.as_tensor(masks) > 0
    assert (logits[~legal] == MASKED_LOGIT).all()
    assert (logits[legal] > MASKED_LOGIT / 2).all()
    rows = legal.any(dim=1)
    # sampled (exploration / training) and greedy (inference) actions are legal
    dist_cls = {"forward_exploration": module.get_exploration_action_dist_cls(),
                "forward_inference": module.get_inference_action_dist_cls(),
                "forward_train": module.get_train_action_dist_cls()}[mode]
    dist = dist_cls.from_logits(logits[rows])
    for _ in range(20):
        acts = dist.sample()
        assert legal[rows].gather(1, acts.long()[:, None]).all()
    greedy = dist.to_deterministic().sample()
    assert legal[rows].gather(1, greedy.long()[:, None]).all()
    if mode == "forward_train":  # gradients flow, finite, nothing through masked entries
        logp = dist.logp(dist.sample()).sum() + module.compute_values(_batch(obs, masks)).sum()
        logp.backward()
        assert all(torch.isfinite(p.grad).all() for p in module.parameters() if p.grad is not None)


def test_module_refuses_an_observation_without_mask():
    import gymnasium as gym

    with pytest.raises(ValueError, match="Dict observation space"):
        MaskedActorCritic(observation_space=gym.spaces.Box(0, 1, (202,)),
                          action_space=gym.spaces.Discrete(91), model_config={})


def test_rllib_policy_validates_and_plays_legal(real_batch):
    obs, masks = real_batch
    pol = RLlibPolicy(_module())
    for o, m in zip(obs[:50], masks[:50]):
        assert m[pol.act(o, m)] == 1
    with pytest.raises(ValueError, match="no legal action"):
        pol.act(obs[0], np.zeros_like(masks[0]))
    with pytest.raises(ValueError, match="another variant"):
        pol.act(obs[0][:-1], masks[0])
    with pytest.raises(ValueError, match="not finite"):
        pol.act(np.full_like(obs[0], np.nan), masks[0])


def _play(env, rng, seed):
    obs, _ = env.reset(seed=seed)
    totals = dict.fromkeys(AGENTS, 0.0)
    while True:
        assert len(obs) == 1
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"}
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, info = env.step({agent: action})
        assert set(rew) <= set(obs)  # a reward only comes with that agent's observation
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            return obs, rew, term, trunc, info, totals


@pytest.mark.parametrize("variant, scale, hands", [("classic", 0.001, 6), ("hand_and_foot", 0.0002, 2)])
def test_rewards_reach_all_four_seats_and_are_zero_sum(variant, scale, hands):
    env = CanastaRLlibEnv({"variant": variant, "reward_scale": scale})
    rng = np.random.default_rng(0)
    for seed in range(hands):
        obs, rew, term, trunc, info, totals = _play(env, rng, seed)
        assert set(obs) == set(AGENTS) and set(rew) == set(AGENTS)  # final obs to every seat
        assert all(term[a] for a in AGENTS) and not any(trunc[a] for a in AGENTS)
        assert all(not o["action_mask"].any() for o in obs.values())
        assert totals["player_0"] == totals["player_2"] and totals["player_1"] == totals["player_3"]
        assert totals["player_0"] == pytest.approx(-totals["player_1"])
        scores = info["player_0"]["hand_scores"]
        assert totals["player_0"] == pytest.approx((scores[0] - scores[1]) * scale)
        assert totals["player_0"] != 0


def test_truncation_reaches_all_four_seats():
    env = CanastaRLlibEnv({"max_decisions": 10})
    obs, rew, term, trunc, info, totals = _play(env, np.random.default_rng(1), 3)
    assert set(obs) == set(AGENTS) and all(trunc[a] for a in AGENTS) and trunc["__all__"]
    assert not term["__all__"] and all(v == 0 for v in totals.values())


@pytest.mark.parametrize("policies", ["shared", "per_partnership"])
def test_rllib_episodes_credit_every_seat(tmp_path, policies):
    """RLlib's own env runner (local, no cluster) samples whole hands: every seat has its
    final reward, partners equal, partnerships zero-sum; only legal actions."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    cfg = RLlibConfig(policies=policies, ppo={"net_arch": [16], "train_batch_size": 64,
                                              "minibatch_size": 64},
                      env_runners={"num_env_runners": 0, "num_envs_per_env_runner": 2})
    runner = MultiAgentEnvRunner(config=ppo_config(cfg))
    episodes = runner.sample(num_episodes=4, random_actions=False)
    done = [e for e in episodes if e.is_done]
    assert len(done) >= 4
    for ep in done:
        rets = {a: e.get_return() for a, e in ep.agent_episodes.items()}
        assert set(rets) == set(AGENTS)
        assert rets["player_0"] == rets["player_2"] and rets["player_1"] == rets["player_3"]
        assert rets["player_0"] == pytest.approx(-rets["player_1"])
        for e in ep.agent_episodes.values():
            masks = np.asarray(e.get_observations()["action_mask"])
            acts = np.asarray(e.get_actions())
            assert (masks[np.arange(len(acts)), acts] == 1).all()  # every action legal
            assert not masks[-1].any()  # the final observation reached this seat
    mids = set(runner.module.keys())
    assert mids == ({"shared"} if policies == "shared" else {"team_0", "team_1"})
    runner.stop()


def _bad(tmp_path, text):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, match", [
    ("policies: everyone\n", "policies"),
    ("env: gym\n", "env"),
    ("env_runners:\n  games_per_env: 0\n", "games_per_env"),
    ("ppo:\n  learning_rate: -1\n", "ppo.learning_rate"),
    ("ppo:\n  minibatch_size: 9000\n  train_batch_size: 4000\n", "minibatch_size"),
    ("env_runners:\n  num_env_runners: -1\n", "num_env_runners"),
    ("env_runners:\n  rollout_fragment_length: sometimes\n", "rollout_fragment_length"),
    ("run_name: ../escape\n", "run_name"),
    ("lr: 0.1\n", "lr"),
    ("- a list\n", "mapping"),
    ("ppo: [\n", "not valid YAML"),
])
def test_bad_configs_refused(tmp_path, text, match):
    with pytest.raises(ConfigError, match=match):
        load_rllib_config(_bad(tmp_path, text))


def test_bad_config_cli_one_line_exit_2(tmp_path, capsys):
    assert main(["--config", str(_bad(tmp_path, "ppo:\n  n_epochs: 0\n  gamma: 2\n"))]) == 2
    err = capsys.readouterr().err.strip()
    # one line in the form of every command (canasta_env.cli.fail)
    assert err.startswith("python -m training.rllib: error: invalid config") and "\n" not in err
    assert "ppo.n_epochs" in err and "ppo.gamma" in err
    assert main(["--config", str(tmp_path / "missing.yaml")]) == 2


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                OMP_NUM_THREADS="1")


def test_smoke_config_end_to_end(tmp_path):
    """python -m training.rllib --config configs/rllib_smoke.yaml (env: vector): one
    iteration, a checkpoint, final.onnx; the export plays through training.evaluate;
    the run directory is not written again."""
    cfg = load_rllib_config(SMOKE)
    assert cfg.env == "vector"
    assert cfg.total_timesteps <= cfg.ppo.train_batch_size  # one iteration
    text = SMOKE.read_text() + f"checkpoint_dir: {tmp_path / 'ck'}\ntensorboard_dir: {tmp_path / 'tb'}\n"
    conf = tmp_path / "smoke.yaml"
    conf.write_text(text)
    r = subprocess.run([sys.executable, "-m", "training.rllib", "--config", str(conf)], cwd=ROOT,
                       env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    run = tmp_path / "ck" / "rllib_smoke"
    assert (run / "config.yaml").is_file() and (run / "final.onnx").is_file()
    assert (run / "final" / "learner_group" / "learner" / "rl_module" / "shared").is_dir()
    assert "64/64" in r.stdout
    trained = re.search(r"trained ([\d,]+) env steps in 1 iterations", r.stdout)
    assert trained and int(trained.group(1).replace(",", "")) >= 600, r.stdout[-2000:]
    assert any((tmp_path / "tb" / "rllib_smoke").iterdir())  # TensorBoard events

    # the RLlib checkpoint as a policy and its ONNX export choose the same moves
    from canasta_env.bots.loader import load_policy

    torch_pol = RLlibPolicy(run / "final")
    onnx_pol = load_policy(str(run / "final.onnx"))
    obs, masks = observations_from_play(200)
    assert [torch_pol.act(o, m) for o, m in zip(obs, masks)] == \
        [onnx_pol.act(o, m) for o, m in zip(obs, masks)]

    r = subprocess.run([sys.executable, "-m", "training.evaluate", "--a", str(run / "final.onnx"),
                        "--b", "random", "--hands", "4", "--json", "--no-progress", "--workers", "1"],
                       cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["hands"] == 4

    r = subprocess.run([sys.executable, "-m", "training.rllib", "--config", str(conf)], cwd=ROOT,
                       env=_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "already holds files of a run" in r.stderr


@pytest.mark.slow
def test_two_node_loopback_cluster(tmp_path):
    """training.rllib_cluster_demo: two Ray nodes on this machine, both on the loopback
    address 127.0.0.2; the env runners on the second node play the games (about 30 s)."""
    r = subprocess.run([sys.executable, "-m", "training.rllib_cluster_demo", "--iterations", "2",
                        "--checkpoint-dir", str(tmp_path)], cwd=ROOT, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (ev_path,) = tmp_path.glob("*/cluster_demo.json")
    ev = json.loads(ev_path.read_text())
    assert ev["ok"] and len(ev["runners"]) == 2
    assert ev["loopback"] and ev["addresses"] == ["127.0.0.2"] and len(ev["nodes"]) == 2
    assert all(x["node_id"] == ev["second_node"] for x in ev["runners"])
    assert ev["hands_by_node"][ev["second_node"]] > 0
    assert all(x["canasta_env"] == str(Path(canasta_env.__file__).parent) for x in ev["runners"])
    assert "stopped node 2" in r.stdout and "stopped node 1" in r.stdout


def test_progress_line_says_when_no_hand_finished():
    """Before the first hand ends RLlib reports no returns (absent or NaN): the line says
    so instead of printing ``+nan`` (found in the smoke run)."""
    from training.rllib import progress_line
    base = {"time/env_steps_per_s": 4121.4}
    assert progress_line(1, 600, base, 30.0) == \
        "iter    1  steps       600     4121 steps/s  no hand finished yet  0.5 min"
    nan = dict(base, **{"env_runners/team_0_return": float("nan"),
                        "env_runners/hand_length": float("nan")})
    assert "no hand finished yet" in progress_line(2, 1200, nan, 60.0)
    done = dict(base, **{"env_runners/team_0_return": -0.125,
                         "env_runners/hand_length": 181.6})
    assert progress_line(3, 12_345, done, 90.0) == \
        "iter    3  steps    12,345     4121 steps/s  team_0 return -0.125  hand length 182  1.5 min"


def test_hand_and_foot_module_exports_to_onnx_and_bad_opsets_are_refused(tmp_path):
    """The RLlib export writes either variant with its own sizes (a Hand and Foot run now
    writes final.onnx too) and refuses the opsets the MaskablePPO export refuses."""
    from canasta_env.bots.onnx_policy import OnnxPolicy
    from training.export_onnx import ExportError, max_opset
    from training.rllib import export_and_check

    torch.manual_seed(0)
    env = CanastaRLlibEnv({"variant": "hand_and_foot"})
    module = MaskedActorCritic(observation_space=env.observation_space["player_0"],
                               action_space=env.action_space["player_0"],
                               model_config={"net_arch": [32, 32]})
    out = export_and_check(module, tmp_path / "hf.onnx", source="test")
    onnx = OnnxPolicy(out)
    assert (onnx.obs_size, onnx.num_actions, onnx.variant) == (245, 98, "hand_and_foot")
    obs, masks = observations_from_play(60, variant="hand_and_foot")
    torch_pol = RLlibPolicy(module)
    assert [onnx.act(o, m) for o, m in zip(obs, masks)] == \
        [torch_pol.act(o, m) for o, m in zip(obs, masks)]
    from training.rllib_module import export_onnx
    for opset in (8, max_opset() + 1, True, 9.5):
        with pytest.raises(ExportError, match="opset must be an int from 9 to"):
            export_onnx(module, tmp_path / "bad.onnx", opset=opset)
    assert not (tmp_path / "bad.onnx").exists()
