"""An experiment that was NOT adopted: the PPO update with ``torch.compile``.

Measures minibatch samples per second through one epoch of the config's MaskablePPO update
(:func:`training.benchmark` 's ``update_samples_per_s``: ``model.train()`` with one epoch on
a full rollout buffer, best of ``--rounds``) for the config's network and for a plain MLP of
the same widths (``features: mlp``), each eager and with its features extractor and hidden
layers compiled in place (``Module.compile()``: TorchInductor, C++ kernels built with the
machine's compiler), all on the same rollout buffer in one process. The first compiled
epoch, which compiles, is timed apart (``compile_s``). docs/results/experiments.md gives
the figures.

    python docs/results/compile_check.py [--config configs/classic.yaml] [--rounds 5] [--json]

Prints one line per (network, mode). Exit codes: 0 done, 2 a bad option or config.
Needs the training extra and a working C++ compiler (TorchInductor's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def measure(config: str, rounds: int) -> list[dict]:
    """One row per (network, mode): ``network`` (``card_classes`` / ``mlp``), ``mode``
    (``eager`` / ``compiled``), ``samples_per_s``, ``compile_s`` (compiled rows)."""
    import torch
    from stable_baselines3.common.logger import configure

    from training.benchmark import _model, _update_rate
    from training.sb3.config import load_config
    from training.sb3.train import make_vec_env

    cfg = load_config(config)
    torch.set_num_threads(cfg.torch_threads)
    vec = make_vec_env(cfg)
    first = _model(cfg, vec)
    vec.env_method("set_learner", first.policy, indices=[0])
    first.learn(first.n_steps * first.n_envs)  # one rollout: the buffer every row trains on
    rows = []
    for features in dict.fromkeys((cfg.ppo.features, "mlp")):
        for mode in ("eager", "compiled"):
            c = cfg.model_copy(update={"ppo": cfg.ppo.model_copy(update={"features": features})})
            model = _model(c, vec)
            model.set_logger(configure(None, []))
            model.rollout_buffer = first.rollout_buffer
            row = {"network": features, "mode": mode}
            if mode == "compiled":
                model.policy.features_extractor.compile()
                model.policy.mlp_extractor.compile()
                epochs, model.n_epochs = model.n_epochs, 1
                t0 = time.perf_counter()
                model.train()  # compiles forward and backward
                row["compile_s"] = time.perf_counter() - t0
                model.n_epochs = epochs
            row["samples_per_s"] = _update_rate(model, rounds)
            rows.append(row)
            print(" ".join(f"{k}={v:,.1f}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()), file=sys.stderr, flush=True)
    vec.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/results/compile_check.py",
                                description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/classic.yaml")
    p.add_argument("--rounds", type=int, default=5, help="timed epochs per row (best taken)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error(f"--rounds must be >= 1, got {args.rounds}")
    if not Path(args.config).is_file():
        p.error(f"--config {args.config}: no such file")
    from training.sb3.config import ConfigError

    try:
        rows = measure(args.config, args.rounds)
    except ConfigError as e:
        p.error(str(e))
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
