"""Train a Canasta partnership with sb3-contrib MaskablePPO.

    python -m training.train --config configs/classic.yaml [--resume CHECKPOINT] [--run-name NAME]
        [--torch-threads N]

Reads top to bottom: load the config, build the vectorised partnership envs (opponents
from a pool of random, heuristic and frozen snapshots of the learner), build or resume
the model, train with callbacks (snapshots, checkpoints, evaluation on duplicate deals
logged to TensorBoard), save the final model.

Outputs (never overwriting an earlier run's files): ``checkpoints/<run>/config.yaml``
(the resolved config), ``pretrained.zip`` (the warm start, when the config pretrains),
``model_<steps>.zip`` every ``checkpoint_every`` steps,
``final.zip``; ``checkpoints/<run>/snapshots/``; TensorBoard logs in ``runs/<run>/``.
A resumed run trains on with its config's seed and PPO settings, keeps the earlier
``config.yaml`` as ``config_<steps>.yaml`` and refuses to write over files saved after
its checkpoint (:func:`train`).

``--resume`` is checked against the config's variant before anything is built: a
checkpoint of another variant is one line, e.g. ``checkpoint x.zip is a Classic policy
(observation 202, 91 actions); this game is Hand and Foot (observation 245, 98
actions)``. Exit codes: 0 trained, 2 refused input (a bad option, config or checkpoint,
an unwritable folder: one line on stderr), 130 interrupted (Ctrl-C or SIGTERM: during
PPO it first saves ``model_<steps>.zip``, the weights of the last update that finished,
and prints the command that resumes it; see :class:`TrainingInterrupted`).
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import numpy as np

from canasta_env.cli import (
    ArgumentParser,
    existing_file,
    fail,
    held_signals,
    ignore_signals_while_exiting,
    interrupted,
    positive_int,
    require_extra,
    sigterm_as_interrupt,
)

require_extra("python -m training.train", "training")  # before .config imports yaml
from .config import ConfigError, TrainConfig, add_torch_threads_flag, dump_config, load_config  # noqa: E402


def check_checkpoint_variant(path: str | Path, variant: str) -> None:
    """Refuse the checkpoint at ``path`` for training ``variant`` unless its observation
    and action spaces are that variant's (read from the checkpoint's data, without
    building the model). A file that is not a readable checkpoint passes: loading it
    reports that.

    Raises:
        CheckpointError: the checkpoint was trained for another variant; the message
            is :func:`canasta_env.bots.loader.check_policy_variant`'s.
    """
    from canasta_env.bots.loader import PolicyVariantError, check_variant_sizes

    from .checkpoint import CheckpointError

    data = _checkpoint_data(path)
    try:
        sizes = (int(data["observation_space"].shape[0]), int(data["action_space"].n))
    except Exception:  # noqa: BLE001 - load_model gives the clear error for a bad file
        return
    try:
        check_variant_sizes(sizes, variant, f"checkpoint {path}")
    except PolicyVariantError as e:
        hint = (f"; resume it with a config of that variant (variant: {e.policy_variant})"
                if e.policy_variant else "")
        raise CheckpointError(f"{e}{hint}") from None


def _checkpoint_data(path: str | Path) -> dict | None:
    """The saved attributes of the checkpoint at ``path`` (its ``data``, without building
    the model), or ``None`` for a file that is not a readable checkpoint."""
    try:
        from stable_baselines3.common.save_util import load_from_zip_file

        data, _, _ = load_from_zip_file(path, load_data=True, device="cpu",
                                        print_system_info=False)
        return data
    except Exception:  # noqa: BLE001 - load_model gives the clear error for a bad file
        return None


def checkpoint_steps(path: str | Path) -> int | None:
    """The step count saved in the checkpoint at ``path`` (read from its data, without
    building the model), or ``None`` for a file that is not a readable checkpoint."""
    try:
        return int(_checkpoint_data(path)["num_timesteps"])
    except Exception:  # noqa: BLE001 - load_model gives the clear error for a bad file
        return None


def files_past(run_dir: Path, steps: int) -> tuple[list[Path], list[Path]]:
    """The files of the run in ``run_dir`` that a run resumed at ``steps`` would write
    again, as ``(checkpoints, snapshots)``: periodic checkpoints of later steps and a
    ``final.zip`` saved after ``steps``; snapshots of later steps (an interrupted run
    saves them more often than checkpoints)."""
    def step_of(p: Path) -> int:
        digits = p.stem.rpartition("_")[2]
        return int(digits) if digits.isdigit() else -1

    later = [p for p in sorted(run_dir.glob("model_*.zip")) if step_of(p) > steps]
    final = run_dir / "final.zip"
    if final.is_file() and (checkpoint_steps(final) or 0) > steps:
        later.append(final)
    snapshots = [p for p in sorted((run_dir / "snapshots").glob("snapshot_*.zip"))
                 if step_of(p) > steps]
    return later, snapshots


def newest_checkpoint(run_dir: Path) -> tuple[Path, int] | None:
    """The checkpoint of the run in ``run_dir`` with the most steps (its periodic
    ``model_*.zip`` files, kept ``final_*.zip`` files and ``final.zip``; a later file wins
    a tie) and its steps, or ``None`` if it has none that loads."""
    best = None
    for p in [*sorted(run_dir.glob("model_*.zip")), *sorted(run_dir.glob("final_*.zip")),
              run_dir / "final.zip"]:
        steps = checkpoint_steps(p) if p.is_file() else None
        if steps is not None and (best is None or steps >= best[1]):
            best = (p, steps)
    return best


def _free_name(folder: Path, name: str) -> Path:
    """``folder / name`` with ``{k}`` in ``name`` filled with ``""``, ``"_1"``, ``"_2"``,
    ... : the first such path that does not exist."""
    target, k = folder / name.format(k=""), 1
    while target.exists():
        target, k = folder / name.format(k=f"_{k}"), k + 1
    return target


def _set_aside(path: Path, name: str) -> Path:
    """Rename ``path`` to ``name`` in its folder (see :func:`_free_name`): never over an
    existing file. Returns the new path."""
    target = _free_name(path.parent, name)
    path.replace(target)
    return target


def _keep_final(final: Path) -> Path:
    """Move a run's earlier ``final.zip`` aside as ``final_<steps>.zip``
    (``final_unreadable.zip`` if it is not a checkpoint) before a resumed run trains."""
    steps = checkpoint_steps(final)
    return _set_aside(final, f"final_{steps:09d}{{k}}.zip" if steps is not None
                      else "final_unreadable{k}.zip")


def _keep_config(cfg_path: Path, steps: int) -> None:
    """Move a resumed run's earlier ``config.yaml`` aside as ``config_<steps>.yaml`` (the
    config that ran up to ``steps``), never over an existing file."""
    if cfg_path.is_file():
        _set_aside(cfg_path, f"config_{steps:09d}{{k}}.yaml")


def make_pool(cfg: TrainConfig):
    """Opponent pool entries ``[(weight, factory)]`` for random and heuristic play."""
    from canasta_env.policies import HeuristicPolicy, RandomPolicy

    pool = []
    if cfg.opponents.random > 0:
        pool.append((cfg.opponents.random, lambda rng: RandomPolicy(seed=int(rng.integers(2**31)))))
    if cfg.opponents.heuristic > 0:
        pool.append((cfg.opponents.heuristic, lambda rng: HeuristicPolicy()))
    return pool


def env_kwargs(cfg: TrainConfig) -> dict:
    kw = {"variant": cfg.variant, "reward": cfg.reward, "reward_scale": cfg.reward_scale,
          "max_decisions": cfg.max_decisions}
    if cfg.variant == "hand_and_foot":  # the minimum comes from the round
        kw["starting_round"] = "sample" if cfg.starting_scores == "sample" else 1
    else:
        kw["starting_scores"] = "sample" if cfg.starting_scores == "sample" else (0, 0)
    return kw


def policy_kwargs(cfg: TrainConfig) -> dict:
    """MaskablePPO ``policy_kwargs`` of a config: ``net_arch`` and, with
    ``ppo.features: card_classes``, the :class:`training.features.CardClassFeatures`
    extractor."""
    kw: dict = {"net_arch": list(cfg.ppo.net_arch)}
    if cfg.ppo.features == "card_classes":
        from .features import CardClassFeatures

        kw["features_extractor_class"] = CardClassFeatures
        kw["features_extractor_kwargs"] = {"hidden": cfg.ppo.class_hidden,
                                           "channels": cfg.ppo.class_channels}
    return kw


def network_mismatch(model, cfg: TrainConfig) -> str:
    """How ``model``'s network differs from the one ``cfg`` builds (``net_arch``, the
    features extractor and its kwargs); ``""`` when it does not."""
    have = model.policy_kwargs or {}
    want = policy_kwargs(cfg)
    diffs = []
    if list(have.get("net_arch", [])) != want["net_arch"]:
        diffs.append(f"net_arch {list(have.get('net_arch', []))} vs {want['net_arch']}")
    have_ext = getattr(have.get("features_extractor_class"), "__name__", "FlattenExtractor")
    want_ext = getattr(want.get("features_extractor_class"), "__name__", "FlattenExtractor")
    if have_ext != want_ext:
        diffs.append(f"features extractor {have_ext} vs {want_ext}")
    elif have.get("features_extractor_kwargs", {}) != want.get("features_extractor_kwargs", {}):
        diffs.append(f"extractor settings {have.get('features_extractor_kwargs')} vs "
                     f"{want.get('features_extractor_kwargs')}")
    return "; ".join(diffs)


def _make_env(cfg: TrainConfig, rank: int):
    def thunk():
        from .adapter import PartnershipEnv

        e = PartnershipEnv(make_pool(cfg), **env_kwargs(cfg))
        e.reset(seed=cfg.seed * 1000 + rank)
        return e

    return thunk


def make_vec_env(cfg: TrainConfig):
    """The training ``VecEnv`` of a config, under SB3's ``VecMonitor``:
    :class:`training.batched.BatchedPartnershipVecEnv` of ``n_envs`` games with
    ``vec_env: batched``, else ``n_envs`` :class:`training.adapter.PartnershipEnv` in
    subprocesses or in this process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "batched":
        from .batched import make_batched_env

        pool = {"random": cfg.opponents.random, "heuristic": cfg.opponents.heuristic,
                "self": cfg.opponents.self_play}
        return VecMonitor(make_batched_env(cfg.n_envs, cfg.variant, pool, cfg.seed * 1000,
                                           env_kwargs(cfg)))
    fns = [_make_env(cfg, i) for i in range(cfg.n_envs)]
    vec = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    return VecMonitor(vec)


def build_callbacks(cfg: TrainConfig, run_dir: Path, pretrain: dict | None = None):
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    from canasta_env.bots.loader import load_policy

    from .evaluate import evaluate_policies

    class Hparams(BaseCallback):
        """Writes the resolved config to TensorBoard as a text table, once."""

        def _on_training_start(self) -> None:
            from stable_baselines3.common.logger import TensorBoardOutputFormat

            rows = ["| option | value |", "|---|---|"]
            flat = _flatten(cfg.model_dump())
            rows += [f"| {k} | {v} |" for k, v in flat.items()]
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
            log_evaluation(self.logger, self.model, cfg.eval.hands, cfg.eval.seed,
                           evaluate_policies, load_policy, cfg.variant)
            self.logger.dump(self.num_timesteps)
            return True

    return CallbackList([Hparams(), Snapshots(), Checkpoints(), Throughput(), Evaluate()])


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


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM, under :func:`canasta_env.cli.sigterm_as_interrupt`) during a
    training run.

    Attributes:
        checkpoint: the file saved at the interruption, or ``None`` (stopped before PPO
            played a step; a new run's ``pretrained.zip`` then, when it has one: the warm
            start to resume from). During PPO it is ``model_<steps>.zip``: the weights (and
            optimiser state) of the last PPO update that finished, with the steps played
            so far, like every periodic checkpoint; a stop in the middle of an update
            saves the weights from before it (``model_<steps>_stopped.zip`` if a periodic
            checkpoint of the same steps holds other weights). After the last update (the
            run had reached its target) it is ``final.zip``.
        steps: the checkpoint's steps (0 without one).
        target: the run's ``total_timesteps``.
        rollout: steps per PPO update (``n_steps * n_envs``).
        warm_start: a new run stopped during its warm start, or before PPO's first
            step without one: nothing saved, the folder left for the same command.
    """

    def __init__(self, checkpoint: Path | None, steps: int = 0, target: int = 0,
                 rollout: int = 0, warm_start: bool = False) -> None:
        super().__init__(str(checkpoint) if checkpoint else "")
        self.checkpoint, self.steps, self.target = checkpoint, steps, target
        self.rollout, self.warm_start = rollout, warm_start


def resume_command(config: str, run_name: str | None = None,
                   total_timesteps: int | None = None, torch_threads: int | None = None,
                   resume: str | Path | None = None) -> str:
    """The ``python -m training.train`` command line with these flags, shell-quoted."""
    import shlex

    words = ["python", "-m", "training.train", "--config", str(config)]
    for flag, value in (("--run-name", run_name), ("--total-timesteps", total_timesteps),
                        ("--torch-threads", torch_threads), ("--resume", resume)):
        if value is not None:
            words += [flag, str(value)]
    return shlex.join(words)


def stopped_message(stop: KeyboardInterrupt, config: str = "", run_name: str | None = None,
                    total_timesteps: int | None = None,
                    torch_threads: int | None = None) -> str:
    """What an interrupted training command says after ``PROG: interrupted: ``: what was
    saved and the command that continues the run (the flags are the command's own)."""
    saved = getattr(stop, "checkpoint", None)
    if getattr(stop, "warm_start", False):
        return "stopped before PPO's first step: nothing saved; run the same command " \
               "again to start over"
    if saved is None:
        return "checkpoints saved so far are kept (--resume one)"
    if saved.name == "final.zip":
        return f"the run had reached its target: saved {saved}"
    if saved.name == "pretrained.zip":
        again = resume_command(config, run_name, total_timesteps, torch_threads, saved)
        return f"stopped before PPO's first step: the warm start is in {saved}; continue " \
               f"with {again}"
    target = total_timesteps
    note = ""
    if stop.steps >= stop.target:  # stopped in the last update: resuming needs a new target
        target = stop.steps + stop.rollout
        note = " (its last update was cut short: the target is raised by one rollout)"
    again = resume_command(config, run_name, target, torch_threads, saved)
    return f"saved {saved}; continue with {again}{note}"


def save_atomic(model, path: Path) -> None:
    """Save to ``path`` via a temporary file, so a crash never leaves a broken zip. The
    temporary file (``.<name>.partial``) matches no ``*.zip`` pattern: a leftover one is
    never taken for a checkpoint or a snapshot."""
    tmp = path.with_name(f".{path.name}.partial")
    model.save(tmp)
    tmp.replace(path)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def ppo_settings(cfg: TrainConfig) -> dict:
    """The MaskablePPO settings of ``cfg`` other than the network (``net_arch`` and the
    features), and its seed, as MaskablePPO's keyword (and attribute) names: a new run is
    built with them, and a resumed run takes them from its config instead of from the
    checkpoint."""
    p = cfg.ppo
    return {"seed": cfg.seed, "learning_rate": cfg.learning_rate(), "n_steps": p.n_steps,
            "batch_size": p.batch_size, "n_epochs": p.n_epochs, "gamma": p.gamma,
            "gae_lambda": p.gae_lambda, "clip_range": p.clip_range, "ent_coef": p.ent_coef,
            "vf_coef": p.vf_coef, "max_grad_norm": p.max_grad_norm}


def _warm_start(cfg: TrainConfig, model, resume: str | None) -> dict | None:
    """Behaviour cloning of the heuristic and DAgger rounds, when the config pretrains and
    this is not a resume; returns their figures (``None`` without a warm start)."""
    if resume or cfg.pretrain.decisions <= 0:
        return None
    from .pretrain import behaviour_clone, collect

    t0 = time.perf_counter()
    data = collect(cfg.pretrain.decisions, cfg.seed, cfg.ppo.gamma,
                   progress=cfg.progress_bar, **env_kwargs(cfg))
    print(f"warm start: {len(data[2])} heuristic decisions recorded in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    t0 = time.perf_counter()
    pretrain = behaviour_clone(model, data, cfg.pretrain.epochs, cfg.pretrain.batch_size,
                               cfg.pretrain.learning_rate, seed=cfg.seed,
                               progress=cfg.progress_bar)
    print(f"behaviour cloning of the heuristic on {len(data[2])} decisions: "
          f"accuracy {pretrain['accuracy']:.3f} ({time.perf_counter() - t0:.0f} s)",
          flush=True)
    if cfg.pretrain.dagger_rounds:
        from .pretrain import dagger

        pretrain.update(dagger(
            model, data, cfg.pretrain.dagger_rounds, cfg.pretrain.dagger_decisions,
            cfg.pretrain.dagger_epochs, cfg.pretrain.batch_size,
            cfg.pretrain.dagger_learning_rate, cfg.seed, cfg.ppo.gamma,
            final_learning_rate=cfg.pretrain.dagger_final_learning_rate,
            progress=cfg.progress_bar, **env_kwargs(cfg)))
    return pretrain


class _UpdateGuard:
    """Keeps the policy's and optimiser's state from before each PPO update (copied when
    a rollout ends, just before SB3 updates on it), so that a stop in the middle of an
    update can save the weights of the last update that finished. ``updating`` is true
    from the end of a rollout until the next one starts or training ends."""

    def __init__(self) -> None:
        self.updating = False
        self.before: tuple[dict, dict] | None = None
        self.rollout_end = -1  # steps at the end of the last rollout
        self.trained_through = -1  # steps of the last rollout whose update has finished

    def _update_done(self) -> None:
        if self.updating:
            self.trained_through = self.rollout_end
        self.updating = False

    def callback(self):
        """The SB3 callback that keeps the guard up to date; put it first in the list."""
        from stable_baselines3.common.callbacks import BaseCallback

        guard = self

        class Guard(BaseCallback):
            def _on_rollout_start(self) -> None:
                guard._update_done()

            def _on_rollout_end(self) -> None:
                import copy

                policy = self.model.policy
                guard.before = (copy.deepcopy(policy.state_dict()),
                                copy.deepcopy(policy.optimizer.state_dict()))
                guard.rollout_end = self.num_timesteps
                guard.updating = True

            def _on_training_end(self) -> None:
                guard._update_done()

            def _on_step(self) -> bool:
                return True

        return Guard()

    def restore(self, model) -> None:
        """Put back the state from before the update under way, if one is."""
        if self.updating and self.before is not None:
            model.policy.load_state_dict(self.before[0])
            model.policy.optimizer.load_state_dict(self.before[1])


def _save_on_interrupt(model, guard: _UpdateGuard, run_dir: Path, before: int,
                       cfg: TrainConfig, fresh: bool) -> TrainingInterrupted:
    """Save what a stopped PPO run has (see :class:`TrainingInterrupted`) and return the
    exception that says so. Never writes over a file with other weights: a periodic
    checkpoint of the same steps is kept when it holds the same weights (no update has
    finished since it was saved), else the stop is saved beside it as
    ``model_<steps>_stopped.zip``. ``fresh``: a new run (not a resume)."""
    rollout = cfg.ppo.n_steps * cfg.n_envs
    steps = model.num_timesteps
    common = {"steps": steps, "target": cfg.total_timesteps, "rollout": rollout}
    if steps <= before:  # PPO played no step
        warm = run_dir / "pretrained.zip"
        if fresh and warm.is_file():  # the warm start is kept: go on from it
            return TrainingInterrupted(warm, **{**common, "steps": 0})
        if fresh:  # only this run's config.yaml is there: the same command starts over
            for p in (run_dir / "config.yaml", run_dir / "resumes.yaml"):
                p.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                run_dir.rmdir()
            return TrainingInterrupted(None, warm_start=True, **common)
        return TrainingInterrupted(None, **common)
    if guard.trained_through >= cfg.total_timesteps:  # the last update has finished
        final = run_dir / "final.zip"
        if not final.exists():
            save_atomic(model, final)
            return TrainingInterrupted(final, **common)
    guard.restore(model)  # a stop in an update: the weights from before it
    path = run_dir / f"model_{steps:09d}.zip"
    if path.exists() and guard.trained_through == steps:  # saved before that update
        path = _free_name(run_dir, f"model_{steps:09d}_stopped{{k}}.zip")
    if not path.exists():  # else: the periodic one of these steps holds these weights
        save_atomic(model, path)
    return TrainingInterrupted(path, **common)


def subproc_of(vec):
    """The ``SubprocVecEnv`` under ``vec``'s wrappers, or ``None`` (SB3's
    ``unwrap_vec_wrapper`` finds wrappers only, not the env they wrap)."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = vec
    while not isinstance(env, SubprocVecEnv) and hasattr(env, "venv"):
        env = env.venv
    return env if isinstance(env, SubprocVecEnv) else None


def _close_after_stop(vec) -> None:
    """Close the envs of a stopped run without waiting on them: ``subproc`` workers may
    have died of the same Ctrl-C, or may owe a reply to a step the stop cut short (their
    ``close`` would then wait for ever), so they are terminated instead."""
    env = subproc_of(vec)
    if env is not None:
        for proc in env.processes:
            with contextlib.suppress(Exception):
                proc.terminate()
        for proc in env.processes:
            with contextlib.suppress(Exception):
                proc.join(5)
        env.closed = True
        return
    with contextlib.suppress(Exception):
        vec.close()


def train(cfg: TrainConfig, resume: str | None = None) -> Path:
    """Run one training (warm start when the config pretrains and this is not a resume,
    then MaskablePPO); returns the path of the final model. A resumed run keeps the
    checkpoint's weights, optimiser state and step count, and trains on with the
    config's PPO settings (:func:`ppo_settings`: learning rate, rollout size,
    clipping, ...); its network must be the config's.

    A resumed run writes into the config's run folder: it never writes over files saved
    after the resume point (refused, see below), it keeps the folder's earlier
    ``config.yaml`` as ``config_<steps>.yaml`` (the config that ran up to there) and its
    earlier ``final.zip`` as ``final_<steps>.zip``, it moves snapshots saved after the
    resume point (an interrupted run's) into ``snapshots/after_<steps>/``, out of the
    opponent pool, and it appends the checkpoint, its steps and the target to
    ``resumes.yaml``.

    Raises:
        ConfigError: the run directory already holds a run (without ``resume``); it holds
            another run's files and ``resume`` is not inside it (branch off under a new
            ``run_name``); it holds checkpoints or a ``final.zip`` saved after the
            ``resume`` checkpoint's steps (resume from the newest, or branch off under
            another ``run_name``); the ``resume`` checkpoint has reached
            ``total_timesteps`` already; or its network differs from the config's ``ppo``
            network.
        CheckpointError: the ``resume`` checkpoint is missing, corrupt or for other spaces
            (another variant: :func:`check_checkpoint_variant`), checked before the run
            folder or the envs are made.
    """
    import torch
    from sb3_contrib import MaskablePPO

    from .checkpoint import CheckpointError, load_model

    if resume is not None:
        resume_path = Path(resume)
        if not resume_path.is_file():
            what = "is a directory, not a .zip file" if resume_path.is_dir() else "does not exist"
            raise CheckpointError(f"checkpoint {resume} {what}")
        check_checkpoint_variant(resume, cfg.variant)

    torch.set_num_threads(cfg.torch_threads)
    run_dir = cfg.run_dir
    cfg_path = run_dir / "config.yaml"
    if resume is None and run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"{run_dir} already holds files of a run; choose another run "
                          f"name (--run-name NAME), or resume that run (python -m "
                          f"training.train --resume <one of its .zip files>)")
    start, stale = 0, []  # stale: snapshots past the checkpoint, set aside (kept)
    if resume is not None:  # never write over a later part of the run: branch off instead
        start = checkpoint_steps(resume) or 0
        if cfg.total_timesteps <= start:
            raise ConfigError(f"{resume} has trained {start:,} steps already, and the target "
                              f"(total_timesteps) is {cfg.total_timesteps:,}: nothing to "
                              f"train; set a higher target (--total-timesteps N)")
        if run_dir.is_dir() and any(run_dir.iterdir()) and \
                not resume_path.resolve().is_relative_to(run_dir.resolve()):
            raise ConfigError(
                f"{run_dir} holds files of another run, and {resume} is not one of its "
                f"checkpoints: branch off under a run name no run uses (--run-name NAME)")
        later, stale = files_past(run_dir, start) if run_dir.is_dir() else ([], [])
        if later:
            names = ", ".join(p.relative_to(run_dir).as_posix() for p in later[:3])
            more = f" and {len(later) - 3} more" if len(later) > 3 else ""
            newest = newest_checkpoint(run_dir)
            ok = newest is not None and newest[1] > start and not files_past(run_dir,
                                                                            newest[1])[0]
            which = (f"resume from the run's newest checkpoint ({newest[0]}, "
                     f"{newest[1]:,} steps), or " if ok else "")
            raise ConfigError(
                f"{run_dir} holds files saved after the {start:,} steps of {resume} ({names}"
                f"{more}); resuming from it would overwrite them: {which}branch off under "
                f"another run name (--run-name NAME)")
        pool = sorted((run_dir / "snapshots").glob("*.zip")) if run_dir.is_dir() else []
        broken = [p for p in pool if p not in stale and checkpoint_steps(p) is None]
        if broken:  # refused before anything in the folder changes
            from .checkpoint import CheckpointError

            raise CheckpointError(
                f"snapshot {broken[0]} of the opponent pool is not a MaskablePPO .zip "
                f"(corrupt or wrong file): move it out of {run_dir / 'snapshots'} and "
                f"resume again")
    run_dir.mkdir(parents=True, exist_ok=True)
    vec = make_vec_env(cfg)
    if resume:  # the config's PPO settings apply from here on (config.yaml says so)
        settings = ppo_settings(cfg)  # lr_schedule is rebuilt from learning_rate when the
        model = load_model(resume, env=vec, custom_objects={  # model is set up: never unpickled
            **settings, "lr_schedule": settings["learning_rate"]})
        model.tensorboard_log = cfg.tensorboard_dir
        mismatch = network_mismatch(model, cfg)
        if mismatch:
            vec.close()
            raise ConfigError(f"--resume {resume}: the checkpoint's network differs from the "
                              f"config's ({mismatch}); resume with the config it was trained "
                              f"with (config.yaml beside it)")
    else:
        model = MaskablePPO("MlpPolicy", vec, verbose=0, tensorboard_log=cfg.tensorboard_dir,
                            policy_kwargs=policy_kwargs(cfg), device="cpu",
                            **ppo_settings(cfg))
    if cfg.vec_env == "batched":  # the learner's network also plays "self" opponents
        vec.env_method("set_learner", model.policy, indices=[0])
    pretrain = None
    try:
        pretrain = _warm_start(cfg, model, resume)
    except KeyboardInterrupt:
        with held_signals():
            _close_after_stop(vec)
        raise TrainingInterrupted(None, warm_start=True) from None
    if pretrain is not None:  # the warm start, to compare PPO against
        save_atomic(model, run_dir / "pretrained.zip")
    if resume:
        logged = str(resume)
        final = run_dir / "final.zip"
        if final.exists():  # the earlier final model is kept under its steps
            kept = _keep_final(final)
            if Path(resume).resolve() == final.resolve():
                logged = str(kept)
        if stale:
            folder = _free_name(run_dir / "snapshots", f"after_{start:09d}{{k}}")
            folder.mkdir()
            for p in stale:
                p.replace(folder / p.name)
        _keep_config(cfg_path, start)
        with open(run_dir / "resumes.yaml", "a") as log:  # the run's history, one entry each
            log.write(f"- checkpoint: {json.dumps(logged)}\n  steps: {start}\n"
                      f"  total_timesteps: {cfg.total_timesteps}\n"
                      f"  time: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")
    dump_config(cfg, cfg_path)
    remaining = cfg.total_timesteps - (model.num_timesteps if resume else 0)
    if remaining > 0:
        before = model.num_timesteps
        guard = _UpdateGuard()
        try:
            model.learn(total_timesteps=remaining,
                        callback=[guard.callback(), build_callbacks(cfg, run_dir, pretrain)],
                        tb_log_name=cfg.run_name, reset_num_timesteps=resume is None,
                        progress_bar=cfg.progress_bar)
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM under sigterm_as_interrupt
            with held_signals():  # a second Ctrl-C must not cut the save short
                stop = _save_on_interrupt(model, guard, run_dir, before, cfg, resume is None)
                _close_after_stop(vec)
            raise stop from None
    final = run_dir / "final.zip"
    if final.exists():  # never expected (set aside above); never written over either
        _keep_final(final)
    save_atomic(model, final)
    vec.close()
    return final


def main(argv: list[str] | None = None) -> int:
    """``python -m training.train``; ``argv`` defaults to ``sys.argv[1:]``. Returns the
    exit code (see the module docstring).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog="python -m training.train",
                       description="Train a Canasta agent with MaskablePPO.")
    p.add_argument("--config", required=True, type=existing_file,
                   help="YAML config (see configs/)")
    p.add_argument("--resume", default=None, type=existing_file,
                   help="checkpoint .zip to continue from")
    p.add_argument("--total-timesteps", type=positive_int, default=None,
                   help="override the config")
    p.add_argument("--run-name", default=None,
                   help="override the config's run_name (the run's folders): e.g. to branch "
                        "a resumed run off into a new folder")
    add_torch_threads_flag(p)
    args = p.parse_args(argv)
    from .checkpoint import CheckpointError

    try:
        with sigterm_as_interrupt():
            cfg = load_config(args.config, total_timesteps=args.total_timesteps,
                              run_name=args.run_name, torch_threads=args.torch_threads)
            final = train(cfg, args.resume)
    except (ConfigError, CheckpointError) as e:
        return fail(p.prog, e)
    except OSError as e:  # e.g. an unwritable checkpoint_dir
        return fail(p.prog, f"{e.strerror or e}: {e.filename or ''}")
    except KeyboardInterrupt as stop:
        ignore_signals_while_exiting()  # saved: a second Ctrl-C must not cut the exit short
        return interrupted(p.prog, stopped_message(stop, args.config, args.run_name,
                                                   args.total_timesteps, args.torch_threads))
    print(f"saved {final}")
    return 0


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    raise SystemExit(main())
