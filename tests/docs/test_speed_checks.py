"""The training-speed scripts of docs/results: compile_check.py (experiments.md: torch.compile
of the update), overlap_check.py (experiments.md: the rollout beside the update) and
opponent_passes.py (benchmarks.md: the stacked pass of the network opponents), on the smoke
config, and their bad options refused before any training."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_rows_for_each_network_eager_and_compiled():
    from tests.helpers.scripts import load_script

    rows = load_script("docs/results/compile_check.py").measure("configs/smoke.yaml", 1)
    assert [(r["network"], r["mode"]) for r in rows] == [
        ("card_classes", "eager"), ("card_classes", "compiled"), ("mlp", "eager"),
        ("mlp", "compiled")]
    assert all(r["samples_per_s"] > 0 for r in rows)
    assert all(r["compile_s"] > 0 for r in rows if r["mode"] == "compiled")
    assert all("compile_s" not in r for r in rows if r["mode"] == "eager")


def test_opponent_passes_measures_both_modes_and_restores_the_default():
    from tests.helpers.scripts import load_script
    from training.sb3.batched import BatchedPartnershipVecEnv

    out = load_script("docs/results/opponent_passes.py").measure("configs/smoke.yaml", 0.5)
    assert set(out) == {"stacked", "per_network", "ratio"}
    for mode in ("stacked", "per_network"):
        assert out[mode]["ppo_snapshots"] == 5  # smoke: snapshots 0.5, max_snapshots 5
        assert out[mode]["ppo_env_steps_per_s"] > 0
        assert 0.0 < out[mode]["ppo_opponent_net_share"] < 1.0
    assert out["ratio"] == out["stacked"]["ppo_env_steps_per_s"] / \
        out["per_network"]["ppo_env_steps_per_s"]
    assert BatchedPartnershipVecEnv.stack_networks is True


def test_overlap_check_times_both_halves_at_each_thread_count(tmp_path):
    from tests.helpers.scripts import load_script

    cfg = tmp_path / "smoke2.yaml"  # the smoke config on two torch threads: two rows
    cfg.write_text((ROOT / "configs" / "smoke.yaml").read_text() + "torch_threads: 2\n")
    out = load_script("docs/results/overlap_check.py").measure(str(cfg), 1)
    assert [r["threads"] for r in out["rows"]] == [2, 1]
    assert all(r["rollout_s"] > 0 and r["update_s"] > 0 for r in out["rows"])
    two, one = out["rows"]
    assert out["sequential_s"] == two["rollout_s"] + two["update_s"]
    assert out["pipelined_bound_s"] == max(one["rollout_s"], one["update_s"])
    assert out["bound_speedup"] == out["sequential_s"] / out["pipelined_bound_s"]
    assert (out["snapshots"], out["steps_per_rollout"], out["n_epochs"]) == (5, 8 * 128, 2)


@pytest.mark.parametrize("script, args, message", [
    ("compile_check.py", ["--rounds", "0"], "--rounds must be >= 1, got 0"),
    ("compile_check.py", ["--config", "no/such.yaml"], "--config no/such.yaml: no such file"),
    ("overlap_check.py", ["--rounds", "0"], "--rounds must be >= 1, got 0"),
    ("overlap_check.py", ["--config", "no/such.yaml"], "--config no/such.yaml: no such file"),
    ("overlap_check.py", ["--config", "configs/smoke.yaml"],
     "configs/smoke.yaml: the check compares both cores in sequence with one each "
     "(torch_threads >= 2), got torch_threads: 1"),
    ("overlap_check.py", ["--config", "{subproc}"],
     "the check times the batched env (vec_env: batched), got vec_env: subproc"),
    ("overlap_check.py", ["--config", "{bad}"], "bad.yaml"),
    ("opponent_passes.py", ["--seconds", "0"], "--seconds must be > 0, got 0.0"),
    ("opponent_passes.py", ["--config", "no/such.yaml"], "--config no/such.yaml: no such file"),
])
def test_bad_options_are_refused(tmp_path, script, args, message):
    smoke = (ROOT / "configs" / "smoke.yaml").read_text()
    (tmp_path / "subproc.yaml").write_text(smoke.replace("vec_env: batched", "vec_env: subproc")
                                           + "torch_threads: 2\n")
    (tmp_path / "bad.yaml").write_text(smoke + "n_steps: [\n")
    args = [a.format(subproc=tmp_path / "subproc.yaml", bad=tmp_path / "bad.yaml") for a in args]
    r = subprocess.run([sys.executable, f"docs/results/{script}", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert r.stderr.count("\n") <= 3 and "Traceback" not in r.stderr  # usage + one line
