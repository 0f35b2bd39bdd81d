"""The benchmark command runs and reports every key (figures are not asserted: speed is
measured by the benchmark itself, never by timed unit tests)."""

import json

from canasta_env.benchmark import main


def test_benchmark_json_has_every_key(capsys):
    assert main(["--seconds", "0.05", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("engine_decisions_per_s", "env_agent_steps_per_s", "raw_env_agent_steps_per_s",
                "engine_hands_per_s", "env_peak_memory_kib",
                "hand_and_foot_engine_decisions_per_s", "hand_and_foot_env_agent_steps_per_s",
                "heuristic_us_per_decision", "hand_and_foot_heuristic_us_per_decision"):
        assert out[key] > 0, key


def test_training_benchmark_reports_each_figure_beside_its_peer():
    """``python -m training.benchmark`` on the smoke config for a second: every figure
    is there, positive, and each ratio is the figure over its peer of the same run."""
    from training.benchmark import run

    out = run("configs/smoke.yaml", 1.0)
    for k in ("ppo_env_steps_per_s", "peer_ppo_env_steps_per_s", "update_samples_per_s",
              "peer_update_samples_per_s", "heuristic_us_per_decision", "eval_hands_per_s",
              "peer_eval_hands_per_s"):
        assert out[k] > 0, k
    assert 0.0 < out["ppo_env_share"] < 1.0
    assert out["ppo_games"] == 8
    # the smoke pool's snapshots (weight 0.5, max_snapshots: the default 5) play in the
    # measured rollouts
    assert out["ppo_snapshots"] == 5
    assert 0.0 < out["ppo_opponent_net_share"] < 1.0
    # where the wall time goes: the rollout's three parts and the update add up to it
    parts = ("ppo_env_share", "ppo_opponent_net_share", "ppo_learner_rollout_share",
             "ppo_update_share")
    assert all(0.0 < out[k] < 1.0 for k in parts), {k: out[k] for k in parts}
    assert abs(sum(out[k] for k in parts) - 1.0) < 1e-9
    assert out["ratio_ppo_env_steps_per_s"] == out["ppo_env_steps_per_s"] / \
        out["peer_ppo_env_steps_per_s"]
    assert out["ratio_update_samples_per_s"] == out["update_samples_per_s"] / \
        out["peer_update_samples_per_s"]
