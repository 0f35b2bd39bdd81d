"""Builds a table of training-speed runs taken in turns (a config against the default on
the same instance) from ``python -m training.benchmark --json`` outputs kept in
``benchmark_runs/``, with each pair's ratio and the ratio of the configs' means.

    python -m training.benchmark --json > docs/results/benchmark_runs/NAME_1.json
    python -m training.benchmark --json --config configs/OTHER.yaml > docs/results/benchmark_runs/NAME_2.json
    ...   # in turns, the same number of each
    python docs/results/speed_pairs.py --data experiments.json --table TABLE FILE...
    python docs/results/tables.py

One row per file in the order given (the order they ran): its config,
``ppo_env_steps_per_s``, ``update_samples_per_s``, ``ppo_update_share`` and the plain
MLP's update in the run's precision (a plain MLP of the config's own widths: it moves with
the instance's speed, and with the config when the config changes the widths), the command
that wrote the file, and for every second file its ratio to the file before it; then one
row per config with its mean steps per second and its ratio to the first config's. Each
file is checked as ``training_speed.py`` checks it (the same function), and must be kept in
``benchmark_runs/`` and given once. Exit codes: 0 written, 2 a bad argument or file (one
line on stderr).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from training_speed import RUNS, RecordError, read_run, run_command, write_atomic  # noqa: E402

from canasta_env.cli import ArgumentParser  # noqa: E402 - errors as one line (training_speed puts the repo on the path)

COLUMNS = ["run", "config", "learner steps/s (`ppo_env_steps_per_s`)",
           "ratio to the run before", "update samples/s", "update share of the wall time",
           "plain MLP's update, same precision and widths (samples/s)"]


def read_kept(files: list[Path], runs_dir: Path) -> list[tuple[Path, dict]]:
    """Each of ``files`` with its figures (:func:`read_run`), in the order given.

    Raises:
        RecordError: a file is outside ``runs_dir`` (the outputs are kept in the
            repository), is given twice, or fails :func:`read_run`.
    """
    seen = set()
    for f in files:
        if f.resolve().parent != runs_dir.resolve():
            raise RecordError(f"{f}: keep the benchmark outputs in docs/results/benchmark_runs/")
        if f.resolve() in seen:
            raise RecordError(f"{f}: given twice (each run once)")
        seen.add(f.resolve())
    return [(f, read_run(f)) for f in files]


def kept_source(f: Path) -> str:
    """A kept benchmark output's path as a table names it: relative to the repository, or
    as given when it lies outside."""
    try:
        return f.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(f)


def table(files: list[Path], runs_dir: Path | None = None) -> dict:
    """The table's data from the benchmark outputs ``files`` (in the order they ran), each
    kept in ``runs_dir`` (default ``benchmark_runs/``).

    Raises:
        RecordError: :func:`read_kept` refuses a file, or the files hold fewer than two
            configs.
    """
    runs = read_kept(files, runs_dir or RUNS)
    configs = list(dict.fromkeys(r["config"] for _, r in runs))
    if len(configs) < 2:
        raise RecordError("the files hold one config only: nothing to compare")
    rows = []
    for i, (f, r) in enumerate(runs):
        plain = r.get("plain_mlp_same_precision_samples_per_s", r["peer_update_samples_per_s"])
        ratio = ""
        if i % 2 == 1:
            ratio = f"{r['ppo_env_steps_per_s'] / runs[i - 1][1]['ppo_env_steps_per_s']:.3f}x"
        cells = [str(i + 1), f"`{r['config']}`", f"{r['ppo_env_steps_per_s']:,.0f}", ratio,
                 f"{r['update_samples_per_s']:,.0f} ({r['precision']})",
                 f"{r['ppo_update_share']:.3f}", f"{plain:,.0f}"]
        rows.append({"cells": cells, "command": run_command(r, kept_source(f))})
    means = {c: sum(r["ppo_env_steps_per_s"] for _, r in runs if r["config"] == c)
             / sum(1 for _, r in runs if r["config"] == c) for c in configs}
    for c in configs:
        n = sum(1 for _, r in runs if r["config"] == c)
        rows.append({"cells": [f"mean of {n}", f"`{c}`", f"{means[c]:,.0f}",
                               f"{means[c] / means[configs[0]]:.3f}x the first config's mean",
                               "", "", ""],
                     "command": "python docs/results/speed_pairs.py (above)"})
    return {"columns": COLUMNS, "rows": rows}


def save_table(prog: str, data_name: str, table_name: str, make, folder: Path = HERE) -> int:
    """Write the table ``make()`` returns as ``table_name`` of the data file ``data_name``
    beside this script (in ``folder``), keeping its other tables; 0 when written, 2 with
    one line on stderr when the name, the data file or ``make()`` (a :class:`RecordError`)
    is wrong, nothing written then. Shared by the scripts that table benchmark outputs."""
    data_path = folder / data_name
    try:
        if not re.fullmatch(r"[\w-]+", table_name):
            raise RecordError(f"--table: letters, digits, '_' or '-', got {table_name!r}")
        if data_path.parent != folder or not data_path.is_file():
            raise RecordError(f"--data {data_name}: no such data file beside this script")
        spec = make()
        try:
            data = json.loads(data_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RecordError(f"--data {data_name}: not a readable JSON file ({e})") from None
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise RecordError(f"--data {data_name}: not a results data file (no \"tables\")")
    except RecordError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    data["tables"][table_name] = spec
    write_atomic(data_path, data)
    print(f"{data_name}: table {table_name} written; now: python docs/results/tables.py")
    return 0


def cli(prog: str, description: str, make_table, argv: list[str] | None,
        folder: Path = HERE) -> int:
    """The command line shared by the scripts that table benchmark outputs: ``--data FILE
    --table NAME FILE...``; ``make_table(files)`` gives the table (:func:`save_table`)."""
    p = ArgumentParser(prog=prog, description=description)
    p.add_argument("--data", required=True, help="a JSON data file beside this script")
    p.add_argument("--table", required=True, help="the table's name in it")
    p.add_argument("files", nargs="+", type=Path, help="benchmark outputs, in the order run")
    args = p.parse_args(argv)
    return save_table(prog, args.data, args.table, lambda: make_table(args.files), folder)


def main(argv: list[str] | None = None, folder: Path = HERE) -> int:
    return cli("python docs/results/speed_pairs.py", __doc__.split("\n")[0], table, argv,
               folder)


if __name__ == "__main__":
    sys.exit(main())
