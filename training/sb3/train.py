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
its checkpoint (:func:`train`; the run folder's bookkeeping is
:mod:`training.sb3.runs`, a stop's :mod:`training.sb3.interrupt`).

``--resume`` is checked against the config's variant before anything is built: a
checkpoint of another variant is one line, e.g. ``checkpoint x.zip is a Classic policy
(observation 202, 91 actions); this game is Hand and Foot (observation 245, 98
actions)``. Exit codes: 0 trained, 2 refused input (a bad option, config or checkpoint,
an unwritable folder: one line on stderr), 130 interrupted (Ctrl-C or SIGTERM: during
PPO it first saves ``model_<steps>.zip``, the weights of the last update that finished,
and prints the command that resumes it; see :class:`TrainingInterrupted`).
"""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import numpy as np

from canasta_env.cli import (
    ArgumentParser,
    fail,
    held_signals,
    ignore_signals_while_exiting,
    interrupted,
    sigterm_as_interrupt,
)
from training.common.cli import add_run_flags, add_torch_threads_flag, refuse

from .callbacks import build_callbacks
from .checkpoint import CheckpointError
from .config import ConfigError, TrainConfig, dump_config, load_config
from .interrupt import TrainingInterrupted, _close_after_stop, learn, stopped_message
from .runs import _keep_final, check_resume, record_resume, save_atomic


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
    """MaskablePPO ``policy_kwargs`` of a config: ``net_arch`` (SB3's ``{"pi": [...], "vf":
    [...]}`` when ``ppo.vf_arch`` sizes the value network apart) and, with
    ``ppo.features: card_classes``, the :class:`training.sb3.features.CardClassFeatures`
    extractor."""
    arch: list | dict = list(cfg.ppo.net_arch)
    if cfg.ppo.vf_arch is not None:
        arch = {"pi": list(cfg.ppo.net_arch), "vf": list(cfg.ppo.vf_arch)}
    kw: dict = {"net_arch": arch}
    if cfg.ppo.features == "card_classes":
        from .features import CardClassFeatures

        kw["features_extractor_class"] = CardClassFeatures
        kw["features_extractor_kwargs"] = {"hidden": cfg.ppo.class_hidden,
                                           "channels": cfg.ppo.class_channels,
                                           "layers": cfg.ppo.class_layers}
    return kw


def _arch(net_arch) -> tuple[list[int], list[int]]:
    """SB3's ``net_arch`` (a list for both networks, or ``{"pi": ..., "vf": ...}``) as the
    policy's and the value network's hidden sizes."""
    if isinstance(net_arch, dict):
        return list(net_arch.get("pi", [])), list(net_arch.get("vf", []))
    return list(net_arch), list(net_arch)


def _extractor_settings(kwargs: dict) -> dict:
    """A policy's features-extractor kwargs with the extractor's defaults filled in (so a
    setting left out and the same setting written out compare equal)."""
    cls = kwargs.get("features_extractor_class")
    given = dict(kwargs.get("features_extractor_kwargs") or {})
    if cls is None:
        return given
    defaults = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
                if p.default is not inspect.Parameter.empty}
    return defaults | given


def network_mismatch(model, cfg: TrainConfig) -> str:
    """How ``model``'s network differs from the one ``cfg`` builds (``net_arch``, the
    features extractor and its kwargs); ``""`` when it does not."""
    have = model.policy_kwargs or {}
    want = policy_kwargs(cfg)
    diffs = []
    if _arch(have.get("net_arch", [])) != _arch(want["net_arch"]):
        diffs.append(f"net_arch {have.get('net_arch', [])} vs {want['net_arch']}")
    have_ext = getattr(have.get("features_extractor_class"), "__name__", "FlattenExtractor")
    want_ext = getattr(want.get("features_extractor_class"), "__name__", "FlattenExtractor")
    if have_ext != want_ext:
        diffs.append(f"features extractor {have_ext} vs {want_ext}")
    elif _extractor_settings(have) != _extractor_settings(want):
        diffs.append(f"extractor settings {_extractor_settings(have)} vs "
                     f"{_extractor_settings(want)}")
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
    :class:`training.sb3.batched.BatchedPartnershipVecEnv` of ``n_envs`` games with
    ``vec_env: batched``, else ``n_envs`` :class:`training.sb3.adapter.PartnershipEnv` in
    subprocesses or in this process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "batched":
        from .batched import make_batched_env

        pool = {"random": cfg.opponents.random, "heuristic": cfg.opponents.heuristic,
                "styles": cfg.opponents.styles, "self": cfg.opponents.self_play}
        env = make_batched_env(cfg.n_envs, cfg.variant, pool, cfg.seed * 1000, env_kwargs(cfg))
        if cfg.opponents.fixed:
            env.set_fixed(dict(cfg.opponents.fixed))
        return VecMonitor(env)
    fns = [_make_env(cfg, i) for i in range(cfg.n_envs)]
    vec = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    return VecMonitor(vec)


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
    returns = cfg.reward if cfg.pretrain.value_returns == "reward" else "score_diff"
    data = collect(cfg.pretrain.decisions, cfg.seed, cfg.ppo.gamma,
                   progress=cfg.progress_bar, returns=returns, **env_kwargs(cfg))
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
            progress=cfg.progress_bar, returns=returns, **env_kwargs(cfg)))
    return pretrain


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
    ``resumes.yaml`` (:mod:`training.sb3.runs`).

    Raises:
        ConfigError: the run directory already holds a run (without ``resume``); it holds
            another run's files and ``resume`` is not inside it (branch off under a new
            ``run_name``); it holds checkpoints or a ``final.zip`` saved after the
            ``resume`` checkpoint's steps (resume from the newest, or branch off under
            another ``run_name``); the ``resume`` checkpoint has reached
            ``total_timesteps`` already; or its network differs from the config's ``ppo``
            network.
        CheckpointError: the ``resume`` checkpoint is missing, corrupt or for other spaces
            (another variant: :func:`training.sb3.runs.check_checkpoint_variant`), checked
            before the run
            folder or the envs are made.
        TrainingInterrupted: Ctrl-C (or SIGTERM under
            :func:`canasta_env.cli.sigterm_as_interrupt`); it says what was saved.
    """
    import torch

    point = check_resume(cfg, resume)  # every refusal comes before anything is built
    torch.set_num_threads(cfg.torch_threads)
    run_dir = cfg.run_dir
    cfg = _recorded_precision(cfg, point)
    run_dir.mkdir(parents=True, exist_ok=True)
    vec = make_vec_env(cfg)
    model = new_model(cfg, vec) if point is None else _resumed_model(cfg, resume, vec)
    if cfg.vec_env == "batched":  # the learner's network also plays "self" opponents
        vec.env_method("set_learner", model.policy, indices=[0])
    print(precision_line(cfg.ppo.precision, model.policy.precision), flush=True)
    try:
        pretrain = _warm_start(cfg, model, resume)
    except KeyboardInterrupt:
        with held_signals():
            _close_after_stop(vec)
        raise TrainingInterrupted(None, warm_start=True) from None
    if pretrain is not None:  # the warm start, to compare PPO against
        save_atomic(model, run_dir / "pretrained.zip")
    if point is not None:
        record_resume(run_dir, point, cfg.total_timesteps)
    # the resolved config: ppo.precision as this run computes (auto resolved)
    dump_config(cfg.model_copy(update={"ppo": cfg.ppo.model_copy(
        update={"precision": model.policy.precision})}), run_dir / "config.yaml")
    remaining = cfg.total_timesteps - (model.num_timesteps if point else 0)
    if remaining > 0:
        learn(model, vec, cfg, run_dir, remaining, build_callbacks(cfg, run_dir, pretrain),
              fresh=point is None)
    final = run_dir / "final.zip"
    if final.exists():  # never expected (set aside by record_resume); never written over
        _keep_final(final)
    save_atomic(model, final)
    vec.close()
    return final


def precision_line(requested: str, used: str) -> str:
    """The line a run prints about its network's arithmetic, e.g. ``network arithmetic:
    bf16 (ppo.precision: auto; bf16 products measured 2.1x faster than fp32 here)``."""
    line = f"network arithmetic: {used} (ppo.precision: {requested}"
    if requested == "auto":
        from .precision import _amx, bf16_available, bf16_speedup

        if not bf16_available():
            line += "; this CPU has no bfloat16 products"
        elif _amx():
            line += "; AMX tiles"
        else:
            line += f"; bf16 products measured {bf16_speedup():.1f}x as fast as fp32 here"
    return line + ")"


def _recorded_precision(cfg: TrainConfig, point) -> TrainConfig:
    """``cfg``, with ``ppo.precision: auto`` replaced on a resume into the same run folder
    by the arithmetic the run recorded in its ``config.yaml`` (so a resumed run does not
    measure again and switch halfway); ``cfg`` itself otherwise."""
    if point is None or cfg.ppo.precision != "auto":
        return cfg
    try:
        precision = load_config(cfg.run_dir / "config.yaml").ppo.precision
    except ConfigError:  # none there, or not a config: measure as a new run does
        return cfg
    if precision == "auto":
        return cfg
    return cfg.model_copy(update={"ppo": cfg.ppo.model_copy(update={"precision": precision})})


def new_model(cfg: TrainConfig, vec, tensorboard: bool = True):
    """A new MaskablePPO of the config's network, precision and PPO settings on ``vec``
    (TensorBoard logs in ``cfg.tensorboard_dir`` with ``tensorboard``)."""
    from sb3_contrib import MaskablePPO

    from .precision import MixedPrecisionPolicy, resolve_precision, set_precision

    model = MaskablePPO(MixedPrecisionPolicy, vec, verbose=0, device="cpu",
                        tensorboard_log=cfg.tensorboard_dir if tensorboard else None,
                        policy_kwargs=policy_kwargs(cfg), **ppo_settings(cfg))
    set_precision(model.policy, resolve_precision(cfg.ppo.precision))
    return model



def _resumed_model(cfg: TrainConfig, resume: str, vec):
    """The checkpoint ``resume`` on ``vec``, with the config's PPO settings from here on
    (``config.yaml`` says so; ``lr_schedule`` is rebuilt from ``learning_rate``, never
    unpickled).

    Raises:
        CheckpointError: the checkpoint does not load.
        ConfigError: its network differs from the config's (``vec`` is closed).
    """
    from .checkpoint import load_model
    from .precision import MixedPrecisionPolicy, fuse_adam, resolve_precision, set_precision

    settings = ppo_settings(cfg)
    model = load_model(resume, env=vec, custom_objects={
        **settings, "lr_schedule": settings["learning_rate"],
        "policy_class": MixedPrecisionPolicy})
    fuse_adam(model.policy.optimizer)
    set_precision(model.policy, resolve_precision(cfg.ppo.precision))
    model.tensorboard_log = cfg.tensorboard_dir
    mismatch = network_mismatch(model, cfg)
    if mismatch:
        vec.close()
        raise ConfigError(f"--resume {resume}: the checkpoint's network differs from the "
                          f"config's ({mismatch}); resume with the config it was trained "
                          f"with (config.yaml beside it)")
    return model


def main(argv: list[str] | None = None) -> int:
    """``python -m training.train``; ``argv`` defaults to ``sys.argv[1:]``. Returns the
    exit code (see the module docstring).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    from canasta_env.cli import existing_file

    p = ArgumentParser(prog="python -m training.train",
                       description="Train a Canasta agent with MaskablePPO.")
    add_run_flags(p, config_help="YAML config (see configs/)",
                  run_name_help="override the config's run_name (the run's folders): e.g. to "
                                "branch a resumed run off into a new folder")
    p.add_argument("--resume", default=None, type=existing_file,
                   help="checkpoint .zip to continue from")
    add_torch_threads_flag(p)
    args = p.parse_args(argv)
    from training.common.progress import interval

    try:  # a bad progress interval is refused now, not when the first phase starts
        interval()
    except ValueError as e:
        return fail(p.prog, e)
    try:
        with sigterm_as_interrupt():
            cfg = load_config(args.config, total_timesteps=args.total_timesteps,
                              run_name=args.run_name, torch_threads=args.torch_threads,
                              seed=args.seed)
            final = train(cfg, args.resume)
    except (ConfigError, CheckpointError, OSError) as e:  # OSError: an unwritable folder
        return refuse(p.prog, e)
    except KeyboardInterrupt as stop:
        ignore_signals_while_exiting()  # saved: a second Ctrl-C must not cut the exit short
        return interrupted(p.prog, stopped_message(stop, args.config, args.run_name,
                                                   args.total_timesteps, args.torch_threads,
                                                   args.seed))
    print(f"saved {final}")
    return 0


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    raise SystemExit(main())
