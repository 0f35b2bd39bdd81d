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


def _fake_models(durations):
    """Fake models whose k-th epoch lasts ``durations[name][k]`` seconds of a fake clock
    (``now["t"]``), recording the order of their epochs in ``calls``."""
    from types import SimpleNamespace

    calls, now = [], {"t": 0.0}
    left = {name: iter(d) for name, d in durations.items()}

    class Model:
        def __init__(self, name, n_epochs):
            self.name, self.n_epochs = name, n_epochs
            self.rollout_buffer = SimpleNamespace(buffer_size=256, n_envs=8)

        def train(self):
            assert self.n_epochs == 1
            calls.append(self.name)
            step = next(left[self.name])
            if step is None:
                raise RuntimeError("epoch failed")
            now["t"] += step

    return [Model(n, 4 + 2 * i) for i, n in enumerate(durations)], calls, now


def test_update_rates_take_their_rounds_in_turns_and_restore_the_epochs(monkeypatch):
    """The update and its peers take their timed epochs in turns, each round starting one
    model later (neither the instance's drift nor a place in the turn favours one, and no
    model follows itself), each figure is its best round, in the models' order, and every
    model gets its own ``n_epochs`` back."""
    import training.benchmark as bench

    (a, b, c), calls, now = _fake_models({"a": [2.0, 1.0, 3.0, 9.0], "b": [4.0, 8.0, 5.0, 9.0],
                                          "c": [7.0, 6.0, 6.5, 9.0]})
    monkeypatch.setattr(bench.time, "perf_counter", lambda: now["t"])
    rates = bench._update_rates([a, b, c], rounds=4)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c"]
    assert all(x != y for x, y in zip(calls, calls[1:]))
    assert rates == [2048 / 1.0, 2048 / 4.0, 2048 / 6.0]
    assert (a.n_epochs, b.n_epochs, c.n_epochs) == (4, 6, 8)


def test_update_rates_restore_the_epochs_when_an_epoch_fails_and_refuse_no_rounds(monkeypatch):
    import pytest

    import training.benchmark as bench

    (a, b), calls, now = _fake_models({"a": [1.0], "b": [None]})
    monkeypatch.setattr(bench.time, "perf_counter", lambda: now["t"])
    with pytest.raises(RuntimeError, match="epoch failed"):
        bench._update_rates([a, b], rounds=2)
    assert (a.n_epochs, b.n_epochs) == (4, 6)
    with pytest.raises(ValueError, match="got 2 models and 0 rounds"):
        bench._update_rates([a, b], rounds=0)
    with pytest.raises(ValueError, match="got 0 models"):
        bench._update_rates([], rounds=3)
