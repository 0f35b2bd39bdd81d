"""An experiment that was NOT adopted: overlapping the rollout with the update.

Times the two halves of real MaskablePPO iterations of the config (``model.learn`` of one
rollout each, the pool's snapshots playing as in a long run, as ``training.benchmark``
does) with the config's torch threads and with one thread, all in one process:
``rollout_s`` (collecting one rollout: the games, the opponents, the learner's forwards)
and ``update_s`` (the config's epochs over it), each the best of ``--rounds``. Today's loop
runs them one after the other on both cores: ``rollout_s + update_s`` at the config's
threads. A pipeline that collects the next rollout on one core while the other core
updates on the last one cannot take less than ``max(rollout_s, update_s)`` at one thread
each (a lower bound: it ignores the two halves' contention for caches and memory and the
policy lag it adds); ``bound_speedup`` is the first over the second. docs/results/
experiments.md gives the figures.

    python docs/results/overlap_check.py [--config configs/classic.yaml] [--rounds 3] [--json]

Prints one line per thread count, then the bound. Exit codes: 0 done, 2 a bad option or
config. Needs the training extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _timed(model, name: str, spent: list[float]) -> None:
    """Wrap ``model.<name>`` so that each call appends its wall seconds to ``spent``."""
    inner = getattr(model, name)

    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t0)

    setattr(model, name, wrapper)


def measure(config: str, rounds: int) -> dict:
    """``rows`` (the config's torch threads, then one: ``threads``, ``rollout_s``,
    ``update_s``), ``sequential_s`` (both halves at the config's threads),
    ``pipelined_bound_s`` and ``bound_speedup``.

    Raises:
        ConfigError: a bad config, one that is not ``vec_env: batched``, or one with fewer
            than 2 torch threads.
    """
    import torch

    from training.benchmark import _fill_snapshots, _model
    from training.sb3.config import ConfigError, load_config
    from training.sb3.train import make_vec_env

    cfg = load_config(config)
    if cfg.vec_env != "batched":
        raise ConfigError(f"{config}: the check times the batched env (vec_env: batched), "
                          f"got vec_env: {cfg.vec_env}")
    if cfg.torch_threads < 2:
        raise ConfigError(f"{config}: the check compares both cores in sequence with one each "
                          f"(torch_threads >= 2), got torch_threads: {cfg.torch_threads}")
    vec = make_vec_env(cfg)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        torch.set_num_threads(cfg.torch_threads)
        model = _model(cfg, vec)
        vec.env_method("set_learner", model.policy, indices=[0])
        snapshots = _fill_snapshots(cfg, model, vec, folder)
        per = model.n_steps * model.n_envs
        model.learn(per)  # warm-up: the first rollout and update
        rollout, update = [], []
        _timed(model, "collect_rollouts", rollout)
        _timed(model, "train", update)
        for threads in (cfg.torch_threads, 1):
            torch.set_num_threads(threads)
            rollout.clear()
            update.clear()
            for _ in range(rounds):
                model.learn(per, reset_num_timesteps=False)
            row = {"threads": threads, "rollout_s": min(rollout), "update_s": min(update)}
            rows.append(row)
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()), file=sys.stderr, flush=True)
    vec.close()
    first, one = rows
    sequential = first["rollout_s"] + first["update_s"]
    bound = max(one["rollout_s"], one["update_s"])
    out = {"rows": rows, "snapshots": snapshots, "steps_per_rollout": per,
           "n_epochs": cfg.ppo.n_epochs, "sequential_s": sequential,
           "pipelined_bound_s": bound, "bound_speedup": sequential / bound}
    print(f"sequential {sequential:.3f} s, pipelined at best {bound:.3f} s: "
          f"{out['bound_speedup']:.2f}x", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/results/overlap_check.py",
                                description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/classic.yaml")
    p.add_argument("--rounds", type=int, default=3, help="timed iterations per thread count "
                   "(best taken)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be >= 1, got {args.rounds}")
    if not Path(args.config).is_file():
        p.error(f"--config {args.config}: no such file")
    from training.sb3.config import ConfigError

    try:
        out = measure(args.config, args.rounds)
    except (ConfigError, ValueError) as e:  # ValueError: e.g. no native core to batch on
        p.error(" ".join(str(e).split()))
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
