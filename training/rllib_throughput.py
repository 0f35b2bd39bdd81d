"""Env steps per second: Ray RLlib PPO against the project's batched MaskablePPO loop, one run.

    python -m training.rllib_throughput [--steps 40000] [--out /tmp/throughput]
                                        [--rllib-env config|aec|vector]

Trains both for about ``--steps`` steps on this machine, one after the other, with the
same network (an MLP [256, 256]) and PPO settings (4096 steps per update, 4 epochs,
minibatch 1024, 2 torch threads for the update): MaskablePPO from ``configs/classic.yaml``
(its batched env: :mod:`training.batched`, 64 games in one process) without the warm
start, with the plain MLP (``features: mlp``), 64-step rollouts per game and a constant
learning rate, RLlib from ``configs/rllib_classic.yaml``
with the env it configures (``env: vector``: 64 games on the native core per env step,
:mod:`training.rllib_vector_env`; ``--rllib-env aec`` measures the PettingZoo path
instead, with 16 games per env runner). Prints the steps/s of each (training time only:
imports, Ray start-up and env creation excluded as far as each trainer allows) and the
ratio.

What a step is differs: MaskablePPO counts the decisions of its learner seats (2 of the
4; opponents from the pool play the others, outside the count), RLlib the decisions of
all four seats (all of them learners, all of them trained on). Both are "env steps that
become training samples".
"""

from __future__ import annotations

import time
from pathlib import Path

from canasta_env.cli import ArgumentParser, positive_int, require_extra

ROOT = Path(__file__).resolve().parents[1]


def run_sb3(steps: int, out: Path) -> tuple[int, float]:
    from .config import load_config
    from .train import train

    cfg = load_config(ROOT / "configs" / "classic.yaml")
    data = cfg.model_dump()
    data.update(run_name=f"sb3_{int(time.time())}", total_timesteps=steps,
                checkpoint_dir=str(out), tensorboard_dir=str(out / "runs"), progress_bar=False,
                checkpoint_every=10**9)
    data["pretrain"]["decisions"] = 0
    data["pretrain"]["dagger_rounds"] = 0
    data["ppo"].update(features="mlp", n_steps=64, learning_rate_final=None, anneal_from=0)
    data["eval"]["every"] = 10**9
    cfg = type(cfg)(**data)
    t0 = time.time()
    train(cfg)
    return steps, time.time() - t0


def rllib_config(steps: int, out: Path, env: str = "config"):
    """``configs/rllib_classic.yaml`` for a throughput run: ``steps`` env steps, no
    checkpoints, ONNX export or evaluation; ``env`` ``aec`` or ``vector`` overrides the
    config's env (``aec`` with 16 games per env runner, as before ``env: vector``)."""
    from .rllib import load_rllib_config

    cfg = load_rllib_config(ROOT / "configs" / "rllib_classic.yaml")
    data = cfg.model_dump()
    data.update(run_name=f"rllib_{int(time.time())}", total_timesteps=steps, max_minutes=None,
                checkpoint_dir=str(out), tensorboard_dir=str(out / "runs"),
                checkpoint_every=10**6, export_onnx=False)
    data["eval"].update(every=0, final_hands=0)
    if env == "aec" and data["env"] != "aec":
        data["env"] = "aec"
        data["env_runners"]["num_envs_per_env_runner"] = 16
    elif env == "vector":
        data["env"] = "vector"
    return type(cfg)(**data)


def run_rllib(steps: int, out: Path, env: str = "config") -> tuple[int, float]:
    from .rllib import train

    report: dict = {}
    train(rllib_config(steps, out, env), report=report)
    return report["env_steps"], report["seconds"]


def main(argv: list[str] | None = None) -> int:
    require_extra("python -m training.rllib_throughput", "training", "distributed")
    p = ArgumentParser(prog="python -m training.rllib_throughput",
                       description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=positive_int, default=40_000,
                   help="env steps for each trainer (default 40,000)")
    p.add_argument("--out", default="/tmp/canasta_throughput")
    p.add_argument("--rllib-env", choices=("config", "aec", "vector"), default="config",
                   help="RLlib's env: the config's (default), or aec / vector")
    args = p.parse_args(argv)
    out = Path(args.out)
    rcfg = rllib_config(args.steps, out, args.rllib_env)
    what = (f"env: vector, {rcfg.env_runners.games_per_env} games per env" if rcfg.env == "vector"
            else f"env: aec, {rcfg.env_runners.num_envs_per_env_runner} envs per runner")
    n_sb3, s_sb3 = run_sb3(args.steps, out)
    n_rl, s_rl = run_rllib(args.steps, out, args.rllib_env)
    sb3, rl = n_sb3 / s_sb3, n_rl / s_rl
    print(f"MaskablePPO (training.train): {n_sb3:,} learner steps in {s_sb3:.1f} s = "
          f"{sb3:.0f} steps/s")
    print(f"RLlib PPO (training.rllib, {what}, {rcfg.env_runners.num_env_runners} env "
          f"runners): {n_rl:,} env steps in {s_rl:.1f} s = {rl:.0f} steps/s")
    print(f"ratio RLlib / MaskablePPO: {rl / sb3:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
