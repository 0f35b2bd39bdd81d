"""The training-speed scripts of docs/results: compile_check.py (experiments.md: torch.compile
of the update) and opponent_passes.py (benchmarks.md: the stacked pass of the network
opponents), on the smoke config, and their bad options refused before any training."""

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


@pytest.mark.parametrize("script, args, message", [
    ("compile_check.py", ["--rounds", "0"], "--rounds must be >= 1, got 0"),
    ("compile_check.py", ["--config", "no/such.yaml"], "--config no/such.yaml: no such file"),
    ("opponent_passes.py", ["--seconds", "0"], "--seconds must be > 0, got 0.0"),
    ("opponent_passes.py", ["--config", "no/such.yaml"], "--config no/such.yaml: no such file"),
])
def test_bad_options_are_refused(script, args, message):
    r = subprocess.run([sys.executable, f"docs/results/{script}", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and message in r.stderr, r.stderr
