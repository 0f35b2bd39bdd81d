"""Records a ``python -m training.benchmark --json`` output as the training-speed table.

    python -m training.benchmark --seconds 20 --json > docs/results/benchmark_runs/NAME.json
    python docs/results/training_speed.py docs/results/benchmark_runs/NAME.json \\
        --where "commit abc1234, quiet, AMD EPYC with AVX512-BF16"
    python docs/results/tables.py

The benchmark's own output is kept in the repository (``benchmark_runs/``, one file per
run, as the benchmark printed it), and the table ``training_speed`` of ``benchmarks.json``
is made from it: the learner's PPO decisions per second beside the pre-batched recipe's,
the update's samples per second beside the plain MLP's of the same widths (fp32, and in
the run's precision when that is bf16), the shares of the wall time, evaluation and
heuristic speed, each with its ratio to the peer of the same run, and the file it came from.
``--where`` says on what and when it ran (it goes into the table's caption row).

Every figure is checked before ``benchmarks.json`` is written (in one step).
Exit codes: 0 written, 2 a bad argument or file (one line on stderr).
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repo, installed or not
from canasta_env.cli import ArgumentParser  # noqa: E402 - errors as one line

DATA = HERE / "benchmarks.json"
TABLE = "training_speed"
#: the benchmark's fields a table needs
NEEDED = ("config", "seconds", "torch_threads", "ppo_env_steps_per_s", "ppo_env_share",
          "ppo_opponent_net_share", "ppo_learner_rollout_share", "ppo_update_share",
          "ppo_games", "ppo_snapshots", "ppo_seconds",
          "update_samples_per_s", "precision", "peer_update_samples_per_s",
          "peer_ppo_env_steps_per_s", "eval_hands_per_s", "peer_eval_hands_per_s",
          "heuristic_us_per_decision")


#: the shares of the PPO wall time, which add up to 1
SHARES = ("ppo_env_share", "ppo_opponent_net_share", "ppo_learner_rollout_share",
          "ppo_update_share")
#: where the raw outputs live (the table names its file, so it must be committed there)
RUNS = HERE / "benchmark_runs"


class RecordError(ValueError):
    """A file or argument that cannot be recorded (the message says why)."""


def _positive(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def read_run(path: Path) -> dict:
    """The benchmark output in ``path``, checked.

    Raises:
        RecordError: unreadable, not one JSON object, a field missing, a figure that is
            not a finite positive number (a share: in [0, 1], the four adding up to 1;
            threads, games, snapshots: whole numbers), a ``config`` that is not a
            ``configs/*.yaml`` path on one line, or another precision than ``fp32`` /
            ``bf16``.
    """
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RecordError(f"{path}: not a readable JSON file ({e})") from None
    if not isinstance(run, dict):
        raise RecordError(f"{path}: not one JSON object (the output of "
                          f"python -m training.benchmark --json)")
    if "update_samples_per_s" in run and "peer_update_samples_per_s" not in run:
        raise RecordError(f"{path}: a run of a config without the card-class extractor (its "
                          f"update has no plain-MLP peer); this table records the default "
                          f"config's kind")
    missing = [k for k in NEEDED if k not in run]
    if missing:
        raise RecordError(f"{path}: not a training.benchmark --json output (missing "
                          f"{', '.join(missing)})")
    config = run["config"]
    if (not isinstance(config, str) or not config.startswith("configs/")
            or not config.endswith(".yaml") or any(c in config for c in "|`\n\r ")):
        raise RecordError(f"{path}: config must be a configs/*.yaml path on one line, got "
                          f"{config!r}")
    for k in ("torch_threads", "ppo_games", "ppo_snapshots"):
        v = run[k]
        if not isinstance(v, int) or isinstance(v, bool) or v < (k == "ppo_snapshots" and 0 or 1):
            raise RecordError(f"{path}: {k} must be a whole number "
                              f"{'>= 0' if k == 'ppo_snapshots' else '>= 1'}, got {v!r}")
    for k in NEEDED:
        if k in ("config", "precision", "torch_threads", "ppo_games", "ppo_snapshots"):
            continue
        v = run[k]
        share = k.endswith("_share")
        if share:
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                  and 0.0 <= v <= 1.0)
        else:
            ok = _positive(v) or (k == "ppo_snapshots" and v == 0)
        if not ok:
            raise RecordError(f"{path}: {k} must be a finite "
                              f"{'share in [0, 1]' if share else 'number > 0'}, got {v!r}")
    if run["precision"] not in ("fp32", "bf16"):
        raise RecordError(f"{path}: precision must be fp32 or bf16, got {run['precision']!r}")
    total = sum(run[k] for k in SHARES)
    if abs(total - 1.0) > 1e-6:
        raise RecordError(f"{path}: the four shares ({', '.join(SHARES)}) must add up to 1, "
                          f"got {total:.6f}")
    return run


def _n(x: float) -> str:
    return f"{x:,.0f}"


def run_command(run: dict, source: str) -> str:
    """The command that wrote the benchmark output ``source`` (its path as the table names
    it), from the run's own ``config`` and ``seconds``: the one form every benchmark
    table's command cell takes."""
    return (f"python -m training.benchmark --config {run['config']} "
            f"--seconds {run['seconds']:g} --json > {source}")


def table(run: dict, source: str, where: str) -> dict:
    """The ``training_speed`` table of one benchmark run (``source``: its file, relative to
    the repository)."""
    cmd = run_command(run, source)
    prec = run["precision"]
    rows = [{"cells": [
        f"`ppo_env_steps_per_s`: MaskablePPO learner decisions/s, `{run['config']}` "
        f"({run['ppo_games']} batched games, {run['torch_threads']} torch threads, "
        f"precision {prec}; the pool's {run['ppo_snapshots']} snapshots playing, as in a "
        f"long run), {run['ppo_seconds']:.1f} s of training",
        _n(run["ppo_env_steps_per_s"]),
        f"2 `PartnershipEnv` subprocesses, same network and pool: "
        f"{_n(run['peer_ppo_env_steps_per_s'])}",
        f"{run['ppo_env_steps_per_s'] / run['peer_ppo_env_steps_per_s']:.2f}x"],
        "command": cmd}]
    rows.append({"cells": [
        "`ppo_env_share`: share of training wall time outside network passes and the "
        "optimiser", f"{run['ppo_env_share']:.3f}", "", ""], "command": cmd})
    rows.append({"cells": [
        "`ppo_opponent_net_share`: share of training wall time in the opponents' network "
        "forwards (the snapshots, in one stacked pass)", f"{run['ppo_opponent_net_share']:.3f}",
        "", ""], "command": cmd})
    rows.append({"cells": [
        "`ppo_learner_rollout_share`: the rest of the rollouts (the learner's forwards, "
        "SB3's collection loop)", f"{run['ppo_learner_rollout_share']:.3f}", "", ""],
        "command": cmd})
    rows.append({"cells": [
        "`ppo_update_share`: the updates (epochs of minibatch passes, optimiser steps) and "
        "SB3's logging between rollouts",
        f"{run['ppo_update_share']:.3f}", "", ""], "command": cmd})
    rows.append({"cells": [
        f"`update_samples_per_s`: minibatch samples/s through one epoch of the update (best "
        f"of 10), {prec}", _n(run["update_samples_per_s"]),
        f"plain MLP of the same widths, same buffer, fp32: "
        f"{_n(run['peer_update_samples_per_s'])}",
        f"{run['update_samples_per_s'] / run['peer_update_samples_per_s']:.2f}x"],
        "command": cmd})
    same = run.get("plain_mlp_same_precision_samples_per_s")
    if prec != "fp32" and _positive(same):
        rows.append({"cells": [
            f"the same update beside the plain MLP in {prec} too (not the peer: the plain "
            f"MLP does fewer multiply-adds)", _n(run["update_samples_per_s"]),
            f"plain MLP, {prec}: {_n(same)}", f"{run['update_samples_per_s'] / same:.2f}x"],
            "command": cmd})
    rows.append({"cells": [
        "`eval_hands_per_s`: `reference` vs `random`, duplicate hands, one process",
        _n(run["eval_hands_per_s"]), f"one deal at a time: {_n(run['peer_eval_hands_per_s'])}",
        f"{run['eval_hands_per_s'] / run['peer_eval_hands_per_s']:.2f}x"], "command": cmd})
    if _positive(run.get("peer_heuristic_us_per_decision")):
        batch = run.get("heuristic_batch_us_per_decision")
        rows.append({"cells": [
            "`heuristic_us_per_decision`: native heuristic, one call per decision"
            + (f" (batch of 256: {batch:.2f})" if _positive(batch) else ""),
            f"{run['heuristic_us_per_decision']:.2f}",
            f"Python heuristic: {run['peer_heuristic_us_per_decision']:.1f}",
            f"{run['peer_heuristic_us_per_decision'] / run['heuristic_us_per_decision']:.0f}x "
            f"faster"], "command": cmd})
    return {"columns": ["figure", "value", "peer (same run)", "ratio"], "rows": rows,
            "source": source, "where": where}


def write_atomic(path: Path, data: dict) -> None:
    """``data`` as JSON into ``path``, replaced in one step (mode 0644)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False, allow_nan=False)
            f.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def record(run_file: Path, where: str, data: Path = DATA) -> dict:
    """Read and check ``run_file``, put its table into ``data``; returns the table.

    Raises:
        RecordError: see :func:`read_run`; ``run_file`` is not a ``.json`` file in
            ``docs/results/benchmark_runs/`` (the table names it, so it must be committed
            there); ``data`` is not a results file with a
            ``tables`` object; ``where`` is empty or has a ``|`` or a line break.
    """
    if not where.strip() or "|" in where or "\n" in where:
        raise RecordError(f"--where: a short line without '|', got {where!r}")
    root = HERE.parents[1]
    where_file = run_file.resolve()
    if where_file.parent != RUNS or where_file.suffix != ".json":
        raise RecordError(f"{run_file} is not a .json file in docs/results/benchmark_runs/: "
                          f"keep the benchmark's output there, so the table's source is "
                          f"committed with it")
    source = where_file.relative_to(root).as_posix()
    run = read_run(run_file)
    try:
        doc = json.loads(data.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise RecordError(f"{data}: not a readable results file ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("tables"), dict):
        raise RecordError(f"{data}: has no 'tables' object")
    spec = table(run, source, where)
    doc["tables"][TABLE] = spec
    write_atomic(data, doc)
    return spec


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python docs/results/training_speed.py",
                       description=__doc__.split("\n")[0])
    p.add_argument("run", type=Path, help="a python -m training.benchmark --json output")
    p.add_argument("--where", required=True,
                   help="on what and when it ran (commit, quiet or not, CPU)")
    p.add_argument("--data", type=Path, default=DATA, help="the results file (benchmarks.json)")
    args = p.parse_args(argv)
    try:
        record(args.run, args.where, args.data)
    except RecordError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
