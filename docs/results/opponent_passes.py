"""What the stacked pass of the network opponents saves in a training run.

Runs :func:`training.benchmark.measure_ppo` (real MaskablePPO training on the config, with
the pool's ``max_snapshots`` snapshots playing) twice in one process: the snapshots waiting
decided together in one stacked pass (``BatchedPartnershipVecEnv.stack_networks``, the
default; :mod:`training.sb3.stacked`), then one pass per network. docs/results/benchmarks.md
gives the figures.

    python docs/results/opponent_passes.py [--config configs/classic.yaml] [--seconds 20] [--json]

Prints, per mode, ``ppo_env_steps_per_s``, ``ppo_env_share`` and ``ppo_opponent_net_share``,
then the ratio of the two rates. Exit codes: 0 done, 2 a bad option or config. Needs the
training extra and the native core.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
KEYS = ("ppo_env_steps_per_s", "ppo_env_share", "ppo_opponent_net_share", "ppo_snapshots")


def measure(config: str, seconds: float) -> dict:
    """``{"stacked": {...}, "per_network": {...}, "ratio": stacked / per-network rate}``."""
    from training.benchmark import measure_ppo
    from training.sb3.batched import BatchedPartnershipVecEnv
    from training.sb3.config import ConfigError, load_config

    cfg = load_config(config)
    if cfg.vec_env != "batched":
        raise ConfigError(f"{config}: the stacked pass is the batched env's (vec_env: batched)")
    out: dict = {}
    try:
        for mode, stack in (("stacked", True), ("per_network", False)):
            BatchedPartnershipVecEnv.stack_networks = stack
            r = measure_ppo(cfg, seconds)
            out[mode] = {k: r[k] for k in KEYS}
            print(mode, " ".join(f"{k}={r[k]:,.3f}" for k in KEYS), file=sys.stderr, flush=True)
    finally:
        BatchedPartnershipVecEnv.stack_networks = True
    out["ratio"] = out["stacked"]["ppo_env_steps_per_s"] / out["per_network"]["ppo_env_steps_per_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/results/opponent_passes.py",
                                description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/classic.yaml")
    p.add_argument("--seconds", type=float, default=20.0, help="seconds of PPO per mode")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    if not args.seconds > 0:
        p.error(f"--seconds must be > 0, got {args.seconds}")
    if not Path(args.config).is_file():
        p.error(f"--config {args.config}: no such file")
    from training.sb3.config import ConfigError

    try:
        out = measure(args.config, args.seconds)
    except ConfigError as e:
        p.error(str(e))
    print(json.dumps(out, indent=2) if args.json else f"ratio {out['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
