"""Builds a table of training-speed runs taken in turns (a config against the default on
the same instance) from ``python -m training.benchmark --json`` outputs kept in
``benchmark_runs/``, with the ratio of the configs' mean learner steps per second.

    python -m training.benchmark --json > docs/results/benchmark_runs/NAME_1.json
    python -m training.benchmark --json --config configs/OTHER.yaml > docs/results/benchmark_runs/NAME_2.json
    ...   # in turns, the same number of each
    python docs/results/speed_pairs.py --data experiments.json --table TABLE FILE...
    python docs/results/tables.py

One row per file in the order given (the order they ran): its config,
``ppo_env_steps_per_s``, ``update_samples_per_s``, ``ppo_update_share`` and the plain
MLP's update in the run's precision (how fast the instance itself was), the command that
wrote the file; then one row per config with its mean steps per second and its ratio to the
first config's. Exit codes: 0 written, 2 a bad argument or file (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NEEDED = ("config", "ppo_env_steps_per_s", "update_samples_per_s", "ppo_update_share",
          "precision")
COLUMNS = ["run", "config", "learner steps/s (`ppo_env_steps_per_s`)",
           "update samples/s", "update share of the wall time",
           "plain MLP's update, same precision (samples/s)"]


def _read(path: Path) -> dict:
    try:
        out = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a benchmark's JSON output ({e})") from e
    for k in NEEDED:
        if k not in out:
            raise ValueError(f"{path}: no field {k!r} (not a training.benchmark --json output)")
    for k in NEEDED[1:4]:
        if not (isinstance(out[k], (int, float)) and math.isfinite(out[k]) and out[k] > 0):
            raise ValueError(f"{path}: {k} is not a positive number: {out[k]!r}")
    return out


RUNS = HERE / "benchmark_runs"


def table(files: list[Path]) -> dict:
    """The table's data from the benchmark outputs ``files`` (in the order they ran), each
    kept in ``benchmark_runs/``.

    Raises:
        ValueError: a file is outside ``benchmark_runs/`` or not a benchmark output, or the
            files hold fewer than two configs.
    """
    for f in files:
        if f.resolve().parent != RUNS:
            raise ValueError(f"{f}: keep the benchmark outputs in docs/results/benchmark_runs/")
    runs = [(f, _read(f)) for f in files]
    configs = list(dict.fromkeys(r["config"] for _, r in runs))
    if len(configs) < 2:
        raise ValueError("the files hold one config only: nothing to compare")
    rows = []
    for i, (f, r) in enumerate(runs, 1):
        plain = r.get("plain_mlp_same_precision_samples_per_s", r.get("peer_update_samples_per_s"))
        cells = [str(i), f"`{r['config']}`", f"{r['ppo_env_steps_per_s']:,.0f}",
                 f"{r['update_samples_per_s']:,.0f} ({r['precision']})",
                 f"{r['ppo_update_share']:.3f}", "-" if plain is None else f"{plain:,.0f}"]
        rel = f.resolve().relative_to(ROOT)
        rows.append({"cells": cells, "command": f"python -m training.benchmark --json "
                     f"--config {r['config']} > {rel}"})
    means = {c: sum(r["ppo_env_steps_per_s"] for _, r in runs if r["config"] == c)
             / sum(1 for _, r in runs if r["config"] == c) for c in configs}
    for c in configs:
        n = sum(1 for _, r in runs if r["config"] == c)
        rows.append({"cells": [f"mean of {n}", f"`{c}`", f"{means[c]:,.0f}",
                               f"{means[c] / means[configs[0]]:.2f}x the first config's",
                               "", ""],
                     "command": "python docs/results/speed_pairs.py (above)"})
    return {"columns": COLUMNS, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/results/speed_pairs.py",
                                description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="a JSON data file beside this script")
    p.add_argument("--table", required=True, help="the table's name in it")
    p.add_argument("files", nargs="+", type=Path, help="benchmark outputs, in the order run")
    args = p.parse_args(argv)
    data_path = HERE / args.data
    try:
        if not re.fullmatch(r"[\w-]+", args.table):
            raise ValueError(f"--table: letters, digits, '_' or '-', got {args.table!r}")
        if data_path.parent != HERE or not data_path.is_file():
            raise ValueError(f"--data {args.data}: no such data file beside this script")
        spec = table(args.files)
        data = json.loads(data_path.read_text())
    except ValueError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    data["tables"][args.table] = spec
    tmp = data_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    tmp.replace(data_path)
    print(f"{args.data}: table {args.table} written; now: python docs/results/tables.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
