"""The run folder of an SB3 training run and resuming it: what a run may write, what a
resumed run sets aside, and the checkpoints' saved data (read without building a model).

A run writes into ``checkpoints/<run>/`` (:attr:`training.sb3.config.TrainConfig.run_dir`)
and never over an earlier run's files. A resumed run (:func:`check_resume`, then
:func:`record_resume`) keeps the folder's earlier ``config.yaml`` as
``config_<steps>.yaml`` and its ``final.zip`` as ``final_<steps>.zip``, moves snapshots
saved after the resume point into ``snapshots/after_<steps>/`` (out of the opponent pool)
and appends the checkpoint, its steps and the target to ``resumes.yaml``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from .checkpoint import CheckpointError
from .config import ConfigError, TrainConfig


@dataclass(frozen=True)
class ResumePoint:
    """Where a resumed run starts: the ``checkpoint`` given, its ``steps``, and the
    snapshots of the run folder saved after them (``stale``, set aside by
    :func:`record_resume`)."""

    checkpoint: Path
    steps: int
    stale: list[Path] = field(default_factory=list)


def check_resume(cfg: TrainConfig, resume: str | Path | None) -> ResumePoint | None:
    """Refuse a run before anything is built or written: a new run (``resume`` is
    ``None``) into a folder that holds files, or a resume that would write over a later
    part of its run. Returns the resume point (``None`` for a new run).

    Raises:
        CheckpointError: the ``resume`` checkpoint is missing, a directory, of another
            variant (:func:`check_checkpoint_variant`), or the folder's opponent pool
            holds a snapshot that is not a checkpoint.
        ConfigError: the run folder already holds a run (new run); it holds another
            run's files and ``resume`` is not inside it; it holds checkpoints or a
            ``final.zip`` saved after the checkpoint's steps; or the checkpoint has
            reached ``total_timesteps`` already.
    """
    run_dir = cfg.run_dir
    if resume is None:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise ConfigError(f"{run_dir} already holds files of a run; choose another run "
                              f"name (--run-name NAME), or resume that run (python -m "
                              f"training.train --resume <one of its .zip files>)")
        return None
    resume_path = Path(resume)
    if not resume_path.is_file():
        what = "is a directory, not a .zip file" if resume_path.is_dir() else "does not exist"
        raise CheckpointError(f"checkpoint {resume} {what}")
    check_checkpoint_variant(resume, cfg.variant)
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
    if later:  # never write over a later part of the run: branch off instead
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
        raise CheckpointError(
            f"snapshot {broken[0]} of the opponent pool is not a MaskablePPO .zip "
            f"(corrupt or wrong file): move it out of {run_dir / 'snapshots'} and "
            f"resume again")
    return ResumePoint(resume_path, start, stale)


def record_resume(run_dir: Path, point: ResumePoint, total_timesteps: int) -> None:
    """Set aside what the resumed run would write again (the earlier ``final.zip``, the
    snapshots past the resume point, ``config.yaml``) and append the resume to
    ``resumes.yaml``, the run's history (one entry per resume)."""
    logged = str(point.checkpoint)
    final = run_dir / "final.zip"
    if final.exists():  # the earlier final model is kept under its steps
        kept = _keep_final(final)
        if point.checkpoint.resolve() == final.resolve():
            logged = str(kept)
    if point.stale:
        folder = _free_name(run_dir / "snapshots", f"after_{point.steps:09d}{{k}}")
        folder.mkdir()
        for p in point.stale:
            p.replace(folder / p.name)
    _keep_config(run_dir / "config.yaml", point.steps)
    with open(run_dir / "resumes.yaml", "a") as log:
        log.write(f"- checkpoint: {json.dumps(logged)}\n  steps: {point.steps}\n"
                  f"  total_timesteps: {total_timesteps}\n"
                  f"  time: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n")


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


def save_atomic(model, path: Path) -> None:
    """Save to ``path`` via a temporary file, so a crash never leaves a broken zip. The
    temporary file (``.<name>.partial``) matches no ``*.zip`` pattern: a leftover one is
    never taken for a checkpoint or a snapshot."""
    tmp = path.with_name(f".{path.name}.partial")
    model.save(tmp)
    tmp.replace(path)
