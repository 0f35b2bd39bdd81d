"""The main job's record over training seeds: evaluates each run's ``final.zip`` and writes
the tables' data into ``main-job.json`` (then ``python docs/results/tables.py`` writes the
page's tables from it).

    python -m training.main --config configs/classic.yaml --seed S --run-name main_seedS
    ...   # once per training seed; each prints "main job wall time: M min" at its end
    python docs/results/main_job_seeds.py --runs checkpoints/main_seed0 checkpoints/main_seed1 \\
        checkpoints/main_seed2 --minutes M0 M1 M2 [--hands 1000] [--workers 2] \\
        [--config configs/classic.yaml] [--data main-job.json] [--prefix ""]

For each run: ``--hands`` duplicate hands of its ``final.zip`` against the heuristic on
evaluation seeds 7 and 8 and against random on seed 7 (``training.evaluate``'s figures,
the same function). Tables written:

- ``main_job_seeds``: one row per training seed (win rates with their 95% intervals, the
  mean score difference against the heuristic, the main job's wall time);
- ``main_job_summary``: over the training seeds, the mean and the range (lowest, highest)
  of each figure, and how many runs reach 0.55 against the heuristic on both seeds;
- ``main_job``: the evaluation rows of the first run (opening success per level).

``--config`` is the config the runs trained (named in the tables' commands), ``--data`` the
JSON file beside this script the tables go into and ``--prefix`` starts their names (an
experiment's variant of the main job: ``--config configs/classic_epochs2.yaml --data
experiments.json --prefix epochs2_``).

The training seed of a run is read from its ``config.yaml`` (written by every run).
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
DATA = HERE / "main-job.json"
#: (opponent, evaluation seed) of every run's evaluations
EVALUATIONS = (("heuristic", 7), ("heuristic", 8), ("random", 7))
TARGET = 0.55


def training_seed(run: Path) -> int:
    """The training seed in the run's config.yaml.

    Raises:
        ValueError: the file cannot be read as YAML or has no int ``seed``.
    """
    import yaml

    try:
        cfg = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"{run / 'config.yaml'} cannot be read ({str(e).splitlines()[0]})") \
            from None
    seed = cfg.get("seed") if isinstance(cfg, dict) else None
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"{run / 'config.yaml'} has no int seed, got {seed!r}")
    return seed


def evaluate(run: Path, hands: int, workers: int) -> tuple[int, dict]:
    """(the run's training seed, {(opponent, seed): evaluate's JSON record})."""
    from training.evaluation import evaluate_policies

    seed = training_seed(run)
    final = run / "final.zip"
    out = {}
    for opponent, eval_seed in EVALUATIONS:
        res = evaluate_policies(str(final), opponent, hands, seed=eval_seed,
                                variant="classic", workers=workers, progress=True)
        out[(opponent, eval_seed)] = res
    return seed, out


#: settings a run may differ in from the config it names (set by its command line)
_RUN_SETTINGS = ("run_name", "seed", "checkpoint_dir", "tensorboard_dir", "torch_threads")


def _config_mismatch(config: str, runs: list[Path]) -> str | None:
    """Why a run did not train ``config`` (a setting other than :data:`_RUN_SETTINGS`
    differs from its ``config.yaml``), or None."""
    from training.sb3.config import ConfigError, load_config

    def flat(d: dict, at: str = "") -> dict:
        out = {}
        for k, v in d.items():
            out.update(flat(v, f"{at}{k}.") if isinstance(v, dict) else {f"{at}{k}": v})
        return out

    def settings(path: Path) -> dict:
        return {k: v for k, v in flat(load_config(path).model_dump()).items()
                if k not in _RUN_SETTINGS}

    try:
        want = settings(ROOT / config)
    except ConfigError as e:
        return f"--config {config} is not a valid config ({str(e).splitlines()[0]})"
    for run in runs:
        try:
            got = settings(run / "config.yaml")
        except ConfigError as e:
            return f"{run / 'config.yaml'} is not a valid config ({str(e).splitlines()[0]})"
        if want.get("ppo.precision") == "auto" and got.get("ppo.precision") in ("fp32", "bf16"):
            got["ppo.precision"] = "auto"  # a run records what auto resolved to
        if got != want:
            keys = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
            return (f"{run} did not train {config}: they differ in {', '.join(keys)} "
                    f"(pass the config it trained with --config)")
    return None


def ci(r: dict) -> str:
    lo, hi = r["win_rate_ci"]
    return f"{r['win_rate']:.3f} ({lo:.3f}-{hi:.3f})"


def command(run: Path, opponent: str, seed: int, hands: int) -> str:
    return (f"python -m training.evaluate --a {run.as_posix()}/final.zip --b {opponent} "
            f"--hands {hands} --seed {seed} --json")


def tables(runs: list[tuple[Path, int, float, dict]], hands: int,
           config: str = "configs/classic.yaml", prefix: str = "") -> dict:
    seeds_rows, summary_rows = [], []
    for run, seed, minutes, ev in runs:
        h7, h8, r7 = (ev[k] for k in EVALUATIONS)
        seeds_rows.append({
            "cells": [str(seed), ci(h7), ci(h8),
                      f"{h7['mean_score_diff']:+.0f} / {h8['mean_score_diff']:+.0f}",
                      ci(r7), f"{minutes:.1f}"],
            "command": (f"python -m training.main --config {config} --seed {seed} "
                        f"--run-name {run.name}; then " + command(run, "heuristic", 7, hands)
                        + " (and --seed 8, --b random)")})
    for label, key, field in (("win rate vs heuristic, seed 7", EVALUATIONS[0], "win_rate"),
                              ("win rate vs heuristic, seed 8", EVALUATIONS[1], "win_rate"),
                              ("mean score diff vs heuristic, seed 7", EVALUATIONS[0],
                               "mean_score_diff"),
                              ("win rate vs random, seed 7", EVALUATIONS[2], "win_rate")):
        xs = [ev[key][field] for _, _, _, ev in runs]
        fmt = "{:+.0f}" if field == "mean_score_diff" else "{:.3f}"
        summary_rows.append({"cells": [label, fmt.format(sum(xs) / len(xs)),
                                       f"{fmt.format(min(xs))} to {fmt.format(max(xs))}"],
                             "command": "python docs/results/main_job_seeds.py (above)"})
    minutes = [m for _, _, m, _ in runs]
    summary_rows.append({"cells": ["main job wall time (min)", f"{sum(minutes) / len(minutes):.1f}",
                                   f"{min(minutes):.1f} to {max(minutes):.1f}"],
                         "command": f"python -m training.main --config {config} "
                                    "--seed S (its last line)"})
    met = sum(ev[EVALUATIONS[0]]["win_rate"] >= TARGET and ev[EVALUATIONS[1]]["win_rate"] >= TARGET
              for _, _, _, ev in runs)
    summary_rows.append({"cells": [f"runs at >= {TARGET} vs heuristic on seeds 7 and 8",
                                   f"{met} of {len(runs)}", ""],
                         "command": "python docs/results/main_job_seeds.py (above)"})
    run0, _, _, ev0 = runs[0]
    levels = [15, 50, 90, 120]
    main_rows = []
    for opponent, eval_seed in EVALUATIONS:
        r = ev0[(opponent, eval_seed)]
        main_rows.append({
            "opponent": opponent, "seed": eval_seed, "win_rate": round(r["win_rate"], 4),
            "win_rate_ci": [round(x, 3) for x in r["win_rate_ci"]],
            "mean_score_diff": round(r["mean_score_diff"]),
            "score_diff_ci": [round(x) for x in r["score_diff_ci"]],
            "opening_success": [None if r["opening_success_a"][str(lv)] is None
                                else round(r["opening_success_a"][str(lv)], 3) for lv in levels],
            "command": command(run0, opponent, eval_seed, hands)})
    return {
        prefix + "main_job_seeds": {
            "columns": ["training seed", "vs heuristic, seed 7 (95% CI)",
                        "vs heuristic, seed 8 (95% CI)", "mean score diff vs heuristic, 7 / 8",
                        "vs random, seed 7", "wall time (min)"],
            "rows": seeds_rows},
        prefix + "main_job_summary": {"columns": ["figure", "mean over the seeds", "range"],
                             "rows": summary_rows},
        prefix + "main_job": {"kind": "evaluation", "levels": levels, "rows": main_rows},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/results/main_job_seeds.py",
                                description=__doc__.split("\n")[0])
    p.add_argument("--runs", nargs="+", required=True, type=Path,
                   help="the runs' folders (each with config.yaml and final.zip)")
    p.add_argument("--minutes", nargs="+", required=True, type=float,
                   help="each run's main job wall time in minutes, in the order of --runs")
    p.add_argument("--hands", type=int, default=1000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--config", default="configs/classic.yaml",
                   help="the config the runs trained (named in the commands)")
    p.add_argument("--data", default=DATA.name,
                   help="the JSON file beside this script that the tables go into")
    p.add_argument("--prefix", default="", help="the tables' names start with it")
    args = p.parse_args(argv)
    if len(args.minutes) != len(args.runs):
        p.error(f"--minutes: one per run ({len(args.runs)}), got {len(args.minutes)}")
    bad = [m for m in args.minutes if not (math.isfinite(m) and m > 0)]
    if bad:
        p.error(f"--minutes: each a finite number of minutes > 0, got {bad[0]!r}")
    config = (ROOT / args.config).resolve()
    if not (config.is_file() and config.suffix == ".yaml"
            and config.parent == (ROOT / "configs").resolve()):
        p.error(f"--config: a .yaml file in configs/ (a path from the repository root), "
                f"got {args.config!r}")
    if not re.fullmatch(r"[\w-][\w.-]*\.json", args.data) or not (HERE / args.data).is_file():
        p.error(f"--data: the name of a .json file beside this script, got {args.data!r}")
    try:  # read and checked before any hand is played
        data = json.loads((HERE / args.data).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise ValueError('not {"tables": {...}}')
    except (OSError, ValueError) as e:
        p.error(f"--data: {args.data} cannot be used ({str(e).splitlines()[0]})")
    if not isinstance(args.prefix, str) or (args.prefix and
                                            not re.fullmatch(r"[\w-]+", args.prefix)):
        p.error(f"--prefix: letters, digits, '_' or '-', got {args.prefix!r}")
    if args.hands < 2:
        p.error(f"--hands: at least 2 (one duplicate deal), got {args.hands}")
    sys.path.insert(0, str(ROOT))
    from training.evaluation.duplicate import MAX_WORKERS

    if not 1 <= args.workers <= MAX_WORKERS:
        p.error(f"--workers: 1 to {MAX_WORKERS}, got {args.workers}")
    seen = set()
    for run in args.runs:
        if run.resolve() in seen:
            p.error(f"--runs: {run} is given twice (each training seed once)")
        seen.add(run.resolve())
    for run in args.runs:
        for name in ("config.yaml", "final.zip"):
            if not (run / name).is_file():
                p.error(f"--runs: {run / name} does not exist")
    seeds = {}
    for run in args.runs:  # every run's config is read before the first hand is played
        try:
            seed = training_seed(run)
        except ValueError as e:
            p.error(f"--runs: {e}")
        if seed in seeds:
            p.error(f"--runs: {seeds[seed]} and {run} have the same training seed {seed}")
        seeds[seed] = run
    mismatch = _config_mismatch(args.config, list(seeds.values()))
    if mismatch:
        p.error(f"--runs: {mismatch}")
    runs = []
    for run, minutes in zip(args.runs, args.minutes):
        seed, ev = evaluate(run, args.hands, args.workers)
        runs.append((run, seed, minutes, ev))
    out = HERE / args.data
    data["tables"].update(tables(runs, args.hands, args.config, args.prefix))
    out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}; now: python docs/results/tables.py")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
