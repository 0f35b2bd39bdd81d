"""The project's main job: train the default agent on a config, then evaluate it.

    python -m training.main --config configs/classic.yaml [--total-timesteps N]

Trains with :mod:`training.train` (a run that already finished is not retrained: its
``final.zip`` is evaluated again), then plays ``eval.final_hands`` duplicate hands of the
trained policy against the random and the heuristic baselines and prints both tables.
"""

from __future__ import annotations

import argparse
import sys
import time

from .config import ConfigError, load_config


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.main", description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/classic.yaml",
                   help="YAML training config (default: configs/classic.yaml)")
    p.add_argument("--total-timesteps", type=int, default=None, help="override the config")
    p.add_argument("--eval-hands", type=int, default=None, help="override eval.final_hands")
    p.add_argument("--workers", type=int, default=2, help="evaluation processes")
    args = p.parse_args(argv)
    from .checkpoint import CheckpointError
    from .evaluate import evaluate_policies, format_table
    from .train import train

    t0 = time.time()
    try:
        cfg = load_config(args.config, total_timesteps=args.total_timesteps)
        final = cfg.run_dir / "final.zip"
        if final.exists():
            print(f"{final} exists: evaluating it (delete it or change run_name to retrain)")
        else:
            final = train(cfg)
    except (ConfigError, CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t_train = time.time() - t0
    hands = args.eval_hands or cfg.eval.final_hands
    print(f"\ntrained {final} in {t_train / 60:.1f} min; evaluating on {hands} duplicate hands")
    for opponent in ("random", "heuristic"):
        res = evaluate_policies(str(final), opponent, hands, seed=cfg.eval.seed,
                                variant=cfg.variant, workers=args.workers, progress=True)
        print(f"\n== {final} vs {opponent} ==")
        print(format_table(res))
    print(f"\nmain job wall time: {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
