"""A stopped SB3 training run (Ctrl-C, or SIGTERM under
:func:`canasta_env.cli.sigterm_as_interrupt`): what it saves
(:class:`TrainingInterrupted`), the command that continues it (:func:`stopped_message`),
and closing its envs without waiting on them.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from canasta_env.cli import held_signals
from training.common.progress import is_terminal

from .config import TrainConfig
from .runs import _free_name, save_atomic


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
                   resume: str | Path | None = None, seed: int | None = None) -> str:
    """The ``python -m training.train`` command line with these flags, shell-quoted."""
    import shlex

    words = ["python", "-m", "training.train", "--config", str(config)]
    for flag, value in (("--run-name", run_name), ("--total-timesteps", total_timesteps),
                        ("--seed", seed), ("--torch-threads", torch_threads),
                        ("--resume", resume)):
        if value is not None:
            words += [flag, str(value)]
    return shlex.join(words)


def stopped_message(stop: KeyboardInterrupt, config: str = "", run_name: str | None = None,
                    total_timesteps: int | None = None,
                    torch_threads: int | None = None, seed: int | None = None) -> str:
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
        again = resume_command(config, run_name, total_timesteps, torch_threads, saved, seed)
        return f"stopped before PPO's first step: the warm start is in {saved}; continue " \
               f"with {again}"
    target = total_timesteps
    note = ""
    if stop.steps >= stop.target:  # stopped in the last update: resuming needs a new target
        target = stop.steps + stop.rollout
        note = " (its last update was cut short: the target is raised by one rollout)"
    again = resume_command(config, run_name, target, torch_threads, saved, seed)
    return f"saved {saved}; continue with {again}{note}"


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


def learn(model, vec, cfg: TrainConfig, run_dir: Path, remaining: int, callbacks,
          fresh: bool) -> None:
    """``model.learn`` for ``remaining`` steps with ``callbacks``; a stop (Ctrl-C, or
    SIGTERM under :func:`canasta_env.cli.sigterm_as_interrupt`) saves what the run has
    and closes ``vec``. ``fresh``: a new run (not a resume).

    Raises:
        TrainingInterrupted: the run was stopped; it says what was saved.
    """
    before = model.num_timesteps
    guard = _UpdateGuard()
    try:
        model.learn(total_timesteps=remaining, callback=[guard.callback(), callbacks],
                    tb_log_name=cfg.run_name, reset_num_timesteps=fresh,
                    # rich's bar on a terminal; elsewhere the run's progress lines
                    progress_bar=cfg.progress_bar and is_terminal(sys.stdout))
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM under sigterm_as_interrupt
        with held_signals():  # a second Ctrl-C must not cut the save short
            stop = _save_on_interrupt(model, guard, run_dir, before, cfg, fresh)
            _close_after_stop(vec)
        raise stop from None


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
