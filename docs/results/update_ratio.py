"""Builds a table of the PPO update's speed against its plain-MLP peer over repeated
``python -m training.benchmark --json`` runs kept in ``benchmark_runs/``: the figure of the
issue's target ``update_samples_per_s >= 0.9x the plain MLP of the same widths``.

    python -m training.benchmark --json --config configs/X.yaml > docs/results/benchmark_runs/NAME_1.json
    python -m training.benchmark --json --config configs/X.yaml > docs/results/benchmark_runs/NAME_2.json
    python docs/results/update_ratio.py --data experiments.json --table TABLE FILE...
    python docs/results/tables.py

One row per file in the order given: its config, ``update_samples_per_s`` (in the run's
precision), ``peer_update_samples_per_s`` (a plain MLP of the same widths on the same
rollout buffer, fp32), their ratio ``ratio_update_samples_per_s`` and the learner's
``ppo_env_steps_per_s``; then one row per config with the mean of its runs' ratios. Each
file is checked as ``training_speed.py`` checks it (which wants the peer: a card-class
config), and must be kept in ``benchmark_runs/`` and given once. Exit codes: 0 written, 2 a
bad argument or file (one line on stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from speed_pairs import cli, kept_source, read_kept  # noqa: E402

# RecordError: what table() raises, for callers of this script's functions
from training_speed import RUNS, RecordError, run_command  # noqa: E402, F401

COLUMNS = ["run", "config", "update samples/s (`update_samples_per_s`)",
           "plain MLP of the same widths, fp32 (`peer_update_samples_per_s`)",
           "ratio (`ratio_update_samples_per_s`)", "learner steps/s (`ppo_env_steps_per_s`)"]


def table(files: list[Path], runs_dir: Path | None = None) -> dict:
    """The table's data from the benchmark outputs ``files`` (in the order they ran), each
    kept in ``runs_dir`` (default ``benchmark_runs/``).

    Raises:
        RecordError: :func:`speed_pairs.read_kept` refuses a file (among its checks,
            :func:`read_run` refuses a run without the plain-MLP peer: a ``features: mlp``
            config).
    """
    rows, ratios = [], {}
    for i, (f, r) in enumerate(read_kept(files, runs_dir or RUNS)):
        ratio = r["update_samples_per_s"] / r["peer_update_samples_per_s"]
        ratios.setdefault(r["config"], []).append(ratio)
        cells = [str(i + 1), f"`{r['config']}`",
                 f"{r['update_samples_per_s']:,.0f} ({r['precision']})",
                 f"{r['peer_update_samples_per_s']:,.0f}", f"{ratio:.3f}x",
                 f"{r['ppo_env_steps_per_s']:,.0f}"]
        rows.append({"cells": cells, "command": run_command(r, kept_source(f))})
    for config, rs in ratios.items():
        rows.append({"cells": [f"mean of {len(rs)}", f"`{config}`", "", "",
                               f"{sum(rs) / len(rs):.3f}x", ""],
                     "command": "python docs/results/update_ratio.py (above)"})
    return {"columns": COLUMNS, "rows": rows}


def main(argv: list[str] | None = None, folder: Path = HERE) -> int:
    return cli("python docs/results/update_ratio.py", __doc__.split("\n")[0],
               table, argv, folder)


if __name__ == "__main__":
    sys.exit(main())
