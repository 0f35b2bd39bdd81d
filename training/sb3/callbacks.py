"""The callbacks of an SB3 training run: the config as a TensorBoard table, snapshots of
the learner for the opponent pool, periodic checkpoints, throughput, and evaluation on
duplicate deals against random and heuristic (:func:`build_callbacks`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from training.common.progress import LineProgress, is_terminal

from .config import TrainConfig
from .runs import save_atomic


def build_callbacks(cfg: TrainConfig, run_dir: Path, pretrain: dict | None = None):
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    from canasta_env.bots.loader import load_policy
    from training.evaluation import evaluate_policies

    class Hparams(BaseCallback):
        """Writes the resolved config to TensorBoard as a text table, once."""

        def _on_training_start(self) -> None:
            from stable_baselines3.common.logger import TensorBoardOutputFormat

            rows = ["| option | value |", "|---|---|"]
            flat = _flatten(cfg.model_dump())
            rows += [f"| {k} | {v} |" for k, v in flat.items()]
            rows.append(f"| (resolved) ppo.precision | {self.model.policy.precision} |")
            for fmt in self.logger.output_formats:
                if isinstance(fmt, TensorBoardOutputFormat):
                    fmt.writer.add_text("hyperparameters", "\n".join(rows), self.num_timesteps)
                    if pretrain is not None:
                        for k, v in pretrain.items():
                            fmt.writer.add_scalar(f"pretrain/{k}", v, self.num_timesteps)
                    fmt.writer.flush()

        def _on_step(self) -> bool:
            return True

    class Snapshots(BaseCallback):
        """Adds a frozen copy of the learner to the opponent pool every so often."""

        def __init__(self) -> None:
            super().__init__()
            self.paths: list[str] = sorted(str(p) for p in (run_dir / "snapshots").glob("*.zip"))
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.num_timesteps
            self._push()

        def _push(self) -> None:
            keep = self.paths[-cfg.opponents.max_snapshots:]
            self.training_env.env_method("set_snapshots", keep, cfg.opponents.snapshots)

        def _on_step(self) -> bool:
            if cfg.opponents.snapshots > 0 and \
                    self.num_timesteps - self.last >= cfg.opponents.snapshot_every:
                self.last = self.num_timesteps
                path = run_dir / "snapshots" / f"snapshot_{self.num_timesteps:09d}.zip"
                path.parent.mkdir(parents=True, exist_ok=True)
                save_atomic(self.model, path)
                self.paths.append(str(path))
                self._push()
            return True

    class Checkpoints(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.num_timesteps

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= cfg.checkpoint_every:
                self.last = self.num_timesteps
                save_atomic(self.model, run_dir / f"model_{self.num_timesteps:09d}.zip")
            return True

    class Throughput(BaseCallback):
        """Per rollout + update cycle: ``time/env_steps_per_s`` (learner decisions per
        second of wall time) and, with the batched env, ``time/ppo_env_share`` (the
        fraction of that wall time spent stepping games and opponents outside any
        network forward, backward or optimiser step)."""

        def __init__(self) -> None:
            super().__init__()
            self.t0 = 0.0
            self.steps0 = 0
            self.env0 = None

        def _env_seconds(self):
            if cfg.vec_env != "batched":  # PartnershipEnv processes do not time themselves
                return None  # (asking a subprocess for a missing attribute kills it)
            env_s = self.training_env.get_attr("env_seconds", indices=[0])[0]
            net_s = self.training_env.get_attr("opponent_net_seconds", indices=[0])[0]
            return env_s - net_s

        def _on_training_start(self) -> None:
            self.t0 = time.perf_counter()
            self.steps0 = self.num_timesteps
            self.env0 = self._env_seconds()

        def _on_rollout_start(self) -> None:
            if self.num_timesteps == self.steps0:
                return
            now = time.perf_counter()
            wall = max(1e-9, now - self.t0)
            self.logger.record("time/env_steps_per_s", (self.num_timesteps - self.steps0) / wall)
            env_s = self._env_seconds()
            if env_s is not None and self.env0 is not None:
                self.logger.record("time/ppo_env_share", (env_s - self.env0) / wall)
            self.t0, self.steps0, self.env0 = now, self.num_timesteps, env_s

        def _on_step(self) -> bool:
            return True

    last_eval: dict = {}  # the latest evaluation, for the progress lines

    class Evaluate(BaseCallback):
        """Every ``eval.every`` steps: duplicate deals against random and heuristic."""

        def __init__(self) -> None:
            super().__init__()
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.num_timesteps

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last < cfg.eval.every:
                return True
            self.last = self.num_timesteps
            res = log_evaluation(self.logger, self.model, cfg.eval.hands, cfg.eval.seed,
                                 evaluate_policies, load_policy, cfg.variant)
            last_eval.update(steps=self.num_timesteps, **{
                name: r["win_rate"] for name, r in res.items()})
            self.logger.dump(self.num_timesteps)
            return True

    class ProgressLines(BaseCallback):
        """Off a terminal (stdout to a file or a pipe, where the progress bar draws
        nothing): a plain line every :data:`~training.common.progress.EVERY` seconds and
        at the end of the phase, with the steps, the rate, the time left and the last
        evaluation."""

        def _on_training_start(self) -> None:
            # SB3's total_timesteps here is the run's target, a resumed run's included
            self.lines = LineProgress(self.locals["total_timesteps"] - self.num_timesteps,
                                      "PPO", "step", sys.stdout, start=self.num_timesteps)
            self.lines.printed_at = 0

        def _on_step(self) -> bool:
            if last_eval:
                self.lines.set_postfix_str(
                    f"last evaluation at {last_eval['steps']:,}: win rate "
                    f"{last_eval['heuristic']:.3f} vs heuristic, "
                    f"{last_eval['random']:.3f} vs random")
            self.lines.update(self.num_timesteps - self.lines.start - self.lines.n)
            return True

        def _on_training_end(self) -> None:
            self.lines.close()

    callbacks = [Hparams(), Snapshots(), Checkpoints(), Throughput(), Evaluate()]
    if cfg.progress_bar and not is_terminal(sys.stdout):
        callbacks.append(ProgressLines())
    return CallbackList(callbacks)


def log_evaluation(logger, model, hands, seed, evaluate_policies, load_policy,
                   variant: str = "classic") -> dict:
    """Evaluate ``model`` against random and heuristic; record the figures."""
    from .checkpoint import CheckpointPolicy

    out = {}
    learner = CheckpointPolicy(model, deterministic=True)
    for name in ("random", "heuristic"):
        res = evaluate_policies(learner, load_policy(name), hands=hands, seed=seed,
                                variant=variant)
        out[name] = res
        logger.record(f"eval_{name}/win_rate", res["win_rate"])
        logger.record(f"eval_{name}/mean_score_diff", res["mean_score_diff"])
        logger.record(f"eval_{name}/decisions_per_hand", res.get("decisions_per_hand", 0.0))
        for level, rate in (res.get("opening_success_a") or {}).items():
            if rate is not None:
                logger.record(f"eval_{name}/opening_success_{level}", rate)
    return out


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out
