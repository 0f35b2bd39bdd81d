"""Train on Ray RLlib (PPO, env runners spread over a Ray cluster); needs the ``distributed``
extra (``pip install -e '.[training,service,distributed]'``).

    python -m training.rllib --config configs/rllib_classic.yaml [--address HOST:PORT]

Without ``--address`` a local Ray instance starts on this machine (stopped at the end);
with one, the driver joins that cluster and the env runners are placed on its nodes.

Reads top to bottom: the validated config (:class:`RLlibConfig`), the AEC env through
RLlib's PettingZoo wrapper (:class:`CanastaRLlibEnv`), per-partnership metrics
(``CanastaMetrics``), the PPO config (:func:`ppo_config`), the training loop
(:func:`train`).

Two envs, by ``env`` in the config, with the same agents' view of the game (observations,
masks, rewards, final observations; the tests compare them decision by decision):
``aec`` steps one game and one seat per env step (:class:`CanastaRLlibEnv`, agents
``player_0..3``, one RLlib episode per hand); ``vector`` steps
``env_runners.games_per_env`` games of the native batched core per env step, so the env
runner's module decides for all of them in one forward
(:class:`training.rllib_vector_env.CanastaVectorEnv`, agents ``g<game>h<hand>_p<seat>``,
several hands per game in one RLlib episode, each played whole; PPO counts agent steps).

Self-play: all four seats are learners. ``policies: shared`` maps every seat to one
masked module (``shared``); ``per_partnership`` gives each partnership its own
(``team_0``: seats 0 and 2, ``team_1``: seats 1 and 3). The module is
:class:`training.rllib_module.MaskedActorCritic`.

Outputs (a run directory that holds files is never written to again):
``checkpoints/<run>/config.yaml`` (the resolved config), ``iter_<n>/`` every
``checkpoint_every`` iterations and ``final/`` (RLlib algorithm checkpoints),
``final.onnx`` (``shared``) or ``final_team_0.onnx`` / ``final_team_1.onnx``
(``per_partnership``): the trained actor in the project's ONNX format, so
``python -m training.evaluate --a checkpoints/<run>/final.onnx`` and the bots load it like
any exported checkpoint (either variant, with its own sizes; the RLlib checkpoint itself
loads with :class:`training.rllib_module.RLlibPolicy`). TensorBoard logs in ``runs/<run>/``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Literal

from canasta_env.cli import require_extra

require_extra("python -m training.rllib", "training", "distributed")  # before pydantic, yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator  # noqa: E402

from canasta_env import AGENTS  # noqa: E402

from .config import ConfigError, RunName, dump_config, load_yaml_model  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------- config
class RLlibPPOConfig(BaseModel):
    """PPO hyperparameters (the project's names where sb3 has one)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    learning_rate: float = Field(3e-4, gt=0, description="Adam learning rate")
    train_batch_size: int = Field(8000, ge=8, description="env steps per training iteration")
    minibatch_size: int = Field(512, ge=8, description="SGD minibatch size")
    n_epochs: int = Field(4, ge=1, description="passes over each train batch")
    gamma: float = Field(0.995, gt=0, le=1, description="discount")
    gae_lambda: float = Field(0.95, gt=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    vf_clip: float = Field(10.0, gt=0, description="clip of the value loss (RLlib vf_clip_param)")
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field([256, 256], min_length=1,
                                description="hidden layer sizes (actor and critic, tanh)")

    @model_validator(mode="after")
    def _sizes(self) -> "RLlibPPOConfig":
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"minibatch_size {self.minibatch_size} exceeds train_batch_size "
                             f"{self.train_batch_size}")
        if any(h < 1 or h > 8192 for h in self.net_arch):
            raise ValueError(f"net_arch sizes must be 1..8192, got {self.net_arch}")
        return self


class EnvRunnersConfig(BaseModel):
    """Where and how games are played (RLlib env runners)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    num_env_runners: int = Field(2, ge=0, le=1024,
                                 description="remote env runner actors (0: play in the driver)")
    num_envs_per_env_runner: int = Field(16, ge=1, le=256,
                                         description="envs each runner steps as one batch "
                                         "(env: aec, one game each; env: vector, 1 is enough)")
    games_per_env: int = Field(64, ge=1, le=4096,
                               description="env: vector only: games in one env, stepped by "
                               "one call of the native core")
    episode_steps: int = Field(512, ge=0, le=10**6,
                               description="env: vector only: env steps of an RLlib episode "
                               "during which a game whose hand ends deals the next one; then "
                               "the running hands are played out and the episode ends")
    rollout_fragment_length: int | Literal["auto"] = Field(
        "auto", description="steps per env per sample call ('auto': the train batch split "
        "over the runners and their envs; env: vector counts agent steps)")
    num_cpus_per_env_runner: int = Field(1, ge=0)
    torch_threads: int = Field(1, ge=1, le=256, description="torch threads of each env "
                               "runner (its OMP_NUM_THREADS; remote learners get it too)")
    custom_resources: dict[str, float] = Field(
        {}, description="Ray custom resources each runner needs, e.g. {worker_node: 1} to "
        "place runners only on nodes started with --resources '{\"worker_node\": N}'")
    sample_timeout_s: float = Field(300.0, gt=0)


class RLlibEvalConfig(BaseModel):
    """Evaluation on duplicate deals against random and heuristic (training.evaluate)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    every: int = Field(10, ge=0, description="iterations between evaluations (0: none)")
    hands: int = Field(40, ge=2, description="duplicate hands per opponent per evaluation")
    final_hands: int = Field(200, ge=0, description="hands per opponent at the end (0: none)")
    seed: int = Field(12345)


class RayConfig(BaseModel):
    """The local Ray instance started without ``--address`` (ignored when joining)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    num_cpus: int | None = Field(None, ge=1, description="CPUs Ray may schedule on "
                                 "(default: the machine's, at least one per env runner)")
    object_store_memory_mb: int = Field(512, ge=100)


class RLlibConfig(BaseModel):
    """One RLlib training run."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    run_name: RunName = Field("rllib_classic", description="checkpoints/<run_name>/ and runs/<run_name>/")
    variant: Literal["classic", "hand_and_foot"] = "classic"
    seed: int = Field(0, ge=0)
    env: Literal["aec", "vector"] = Field(
        "aec", description="aec: the PettingZoo AEC env through RLlib's wrapper, one game "
        "and one seat per env step (CanastaRLlibEnv); vector: env_runners.games_per_env "
        "games on the native batched core, one env step for all of them "
        "(training.rllib_vector_env.CanastaVectorEnv; needs the compiled core)")
    # the env, as training.config.TrainConfig
    starting_scores: Literal["sample", "zero"] = "sample"
    reward: Literal["score_diff", "win_loss"] = "score_diff"
    reward_scale: float = Field(0.001, gt=0)
    max_decisions: int = Field(2000, ge=10)
    policies: Literal["shared", "per_partnership"] = Field(
        "shared", description="shared: one module for all four seats; per_partnership: "
        "team_0 (seats 0, 2) and team_1 (seats 1, 3)")
    total_timesteps: int = Field(1_000_000, ge=1, description="env steps (decisions of all "
                                 "seats) to sample; training stops at the first iteration "
                                 "that reaches it")
    max_minutes: float | None = Field(None, gt=0, description="also stop after this wall time")
    num_learners: int = Field(0, ge=0, description="0: the learner runs in the driver")
    torch_threads: int = Field(1, ge=1, description="torch threads of the driver (and of the "
                               "learner with num_learners: 0; PPO updates while the env "
                               "runners wait, so it may use every core)")
    checkpoint_dir: str = "checkpoints"
    tensorboard_dir: str = "runs"
    checkpoint_every: int = Field(20, ge=1, description="iterations between checkpoints")
    export_onnx: bool = Field(True, description="write final.onnx (the variant's sizes)")
    progress: bool = Field(True, description="one progress line per iteration")
    env_runners: EnvRunnersConfig = EnvRunnersConfig()
    ppo: RLlibPPOConfig = RLlibPPOConfig()
    eval: RLlibEvalConfig = RLlibEvalConfig()
    ray: RayConfig = RayConfig()

    @property
    def run_dir(self) -> Path:
        return Path(self.checkpoint_dir) / self.run_name

    @property
    def module_ids(self) -> tuple[str, ...]:
        return ("shared",) if self.policies == "shared" else ("team_0", "team_1")


def load_rllib_config(path: str | Path, **overrides) -> RLlibConfig:
    """Read and validate an RLlib YAML config.

    Raises:
        ConfigError: file missing, not YAML, or values invalid (message lists each).
    """
    return load_yaml_model(path, RLlibConfig, **overrides)


def env_config(cfg: RLlibConfig) -> dict:
    """RLlib's ``env_config`` of a config: the keyword arguments of
    :class:`canasta_env.raw_env`, plus ``games`` with ``env: vector``."""
    from .train import env_kwargs

    kw = env_kwargs(cfg)
    if cfg.env == "vector":
        kw["games"] = cfg.env_runners.games_per_env
        kw["episode_steps"] = cfg.env_runners.episode_steps
    return kw


def env_class(cfg: RLlibConfig) -> type:
    """The ``MultiAgentEnv`` class of ``cfg.env``."""
    if cfg.env == "vector":
        from .rllib_vector_env import CanastaVectorEnv

        return CanastaVectorEnv
    return CanastaRLlibEnv


# ---------------------------------------------------------------------------- env
def _wrapper_base():
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv


class CanastaRLlibEnv(_wrapper_base()):
    """``canasta_env.raw_env`` through RLlib's ``PettingZooEnv``, with the observation
    key ``"observation"`` renamed ``"observations"`` (the masked module's key) in the
    spaces and in every observation.

    Rewards come from PettingZoo's ``last()``: the reward an agent collected since its
    own last action, so rewards of seats that did not act are handed over at their next
    turn; when the hand ends every seat gets its final observation (all-zero mask) and
    reward, with ``terminated`` (or ``truncated`` at ``max_decisions``) for all four.
    An illegal action raises (``IllegalActionError``): the masks make it a bug.

    Args:
        config: keyword arguments of :class:`canasta_env.raw_env` (RLlib's
            ``env_config``).
    """

    def __init__(self, config: dict | None = None) -> None:
        import gymnasium as gym

        from canasta_env import raw_env

        from .rllib_module import MASK_KEY, OBS_KEY

        super().__init__(raw_env(**dict(config or {})))
        self.agents = list(AGENTS)
        self.possible_agents = list(AGENTS)
        inner = self.env.observation_space(AGENTS[0])
        space = gym.spaces.Dict({OBS_KEY: inner["observation"], MASK_KEY: inner["action_mask"]})
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    @staticmethod
    def _rename(obs: dict) -> dict:
        return {a: {"observations": o["observation"], "action_mask": o["action_mask"]}
                for a, o in obs.items()}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        self.agents = list(AGENTS)
        return self._rename(obs), info

    def step(self, action):
        obs, rew, term, trunc, info = super().step(action)
        return self._rename(obs), rew, term, trunc, info


def _env_runner_class(cfg: RLlibConfig):
    """RLlib's env runner (``aec``), or :class:`training.rllib_vector_env.
    CanastaVectorEnvRunner` (``vector``)."""
    if cfg.env == "vector":
        from .rllib_vector_env import CanastaVectorEnvRunner

        return CanastaVectorEnvRunner
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    return MultiAgentEnvRunner


def _env_to_module(cfg: RLlibConfig) -> dict:
    """``env: vector``: its own env-to-module connector in place of RLlib's default pieces
    (:class:`training.rllib_vector_env.VectorEnvToModule`); ``aec``: RLlib's."""
    if cfg.env != "vector":
        return {}
    from functools import partial

    from .rllib_vector_env import env_to_module_connector

    return {"env_to_module_connector": partial(env_to_module_connector,
                                               module_ids=cfg.module_ids),
            "add_default_connectors_to_env_to_module_pipeline": False}


def _callbacks_class(env: str = "aec"):
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class CanastaMetrics(RLlibCallback):
        """Per hand: the returns of each partnership (the mean over all agents is always
        zero in this zero-sum game), the hand length in decisions, and hands counted per
        Ray node (``hands_by_node``). ``env: aec``: one hand per RLlib episode."""

        _node: str | None = None

        def _log_hand(self, metrics_logger, team0: float, length: int) -> None:
            metrics_logger.log_value("team_0_return", team0, window=200)
            metrics_logger.log_value("team_1_return", -team0, window=200)
            metrics_logger.log_value("team_0_win", float(team0 > 0) + 0.5 * (team0 == 0),
                                     window=200)
            metrics_logger.log_value("abs_return", abs(team0), window=200)
            metrics_logger.log_value("hand_length", length, window=200)
            if self._node is None:
                import ray

                try:
                    self._node = ray.get_runtime_context().get_node_id()
                except Exception:  # noqa: BLE001 - not inside Ray (a local runner)
                    self._node = "driver"
            metrics_logger.log_value(("hands_by_node", self._node), 1, reduce="lifetime_sum")

        def on_episode_end(self, *, episode, metrics_logger=None, prev_episode_chunks=(),
                           **kwargs) -> None:
            if metrics_logger is None:
                return
            # the hand's reward comes at its end: in the last chunk of the episode
            rets = {a: float(e.get_return()) for a, e in episode.agent_episodes.items()}
            length = len(episode) + sum(len(c) for c in prev_episode_chunks or ())
            self._log_hand(metrics_logger, rets.get("player_0", 0.0), length)

    class CanastaVectorMetrics(CanastaMetrics):
        """:class:`CanastaMetrics` for ``env: vector`` (an RLlib episode holds one hand of
        each game): the hands are logged as they finish, from
        :meth:`~training.rllib_vector_env.CanastaVectorEnv.pop_finished_hands`; and the
        decisions of all seats (``num_decisions_lifetime``, the env steps of
        ``total_timesteps``)."""

        def on_episode_step(self, *, env=None, env_index=0, metrics_logger=None,
                            **kwargs) -> None:
            if metrics_logger is None or env is None:
                return
            decisions, hands = env.envs[env_index].unwrapped.pop_stats()
            metrics_logger.log_value("num_decisions_lifetime", decisions,
                                     reduce="lifetime_sum")
            for team0, length, _truncated in hands:
                self._log_hand(metrics_logger, team0, length)

        def on_episode_end(self, **kwargs) -> None:
            pass

    return CanastaVectorMetrics if env == "vector" else CanastaMetrics


# ---------------------------------------------------------------------------- PPO
def ppo_config(cfg: RLlibConfig):
    """The RLlib ``PPOConfig`` of a run (new API stack)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_module import MaskedActorCritic

    er = cfg.env_runners
    shared = cfg.policies == "shared"

    def mapping(agent_id, episode=None, **kwargs):
        return "shared" if shared else f"team_{int(str(agent_id)[-1]) % 2}"

    spec = RLModuleSpec(module_class=MaskedActorCritic,
                        model_config={"net_arch": list(cfg.ppo.net_arch)})
    p = cfg.ppo
    return (
        PPOConfig()
        .environment(env_class(cfg), env_config=env_config(cfg), disable_env_checking=True,
                     # Discrete actions: nothing to unsquash or clip (and env: vector's
                     # agent ids, which that step looks up, are not all known in advance)
                     normalize_actions=False, clip_actions=False)
        .framework("torch")
        .env_runners(num_env_runners=er.num_env_runners,
                     num_envs_per_env_runner=er.num_envs_per_env_runner,
                     rollout_fragment_length=er.rollout_fragment_length,
                     num_cpus_per_env_runner=er.num_cpus_per_env_runner,
                     custom_resources_per_env_runner=dict(er.custom_resources),
                     sample_timeout_s=er.sample_timeout_s)
        .learners(num_learners=cfg.num_learners)
        .multi_agent(policies=set(cfg.module_ids), policy_mapping_fn=mapping,
                     policies_to_train=list(cfg.module_ids),
                     # vector: one env step is a decision in every game
                     count_steps_by="agent_steps" if cfg.env == "vector" else "env_steps")
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={m: spec for m in cfg.module_ids}))
        .training(lr=p.learning_rate, train_batch_size_per_learner=p.train_batch_size,
                  minibatch_size=p.minibatch_size, num_epochs=p.n_epochs, gamma=p.gamma,
                  lambda_=p.gae_lambda, clip_param=p.clip_range, entropy_coeff=p.ent_coef,
                  vf_loss_coeff=p.vf_coef, vf_clip_param=p.vf_clip, grad_clip=p.max_grad_norm,
                  grad_clip_by="global_norm")
        .callbacks(_callbacks_class(cfg.env))
        .env_runners(env_runner_cls=_env_runner_class(cfg), **_env_to_module(cfg))
        .debugging(seed=cfg.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=200)
    )


def runtime_env(cfg: RLlibConfig) -> dict:
    """The Ray job's runtime env: this checkout first on ``PYTHONPATH`` (so the runners
    import the same ``canasta_env`` / ``training`` as the driver even when another
    checkout is pip-installed) and ``env_runners.torch_threads`` threads per runner."""
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    threads = str(cfg.env_runners.torch_threads)
    return {"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": threads,
                         "MKL_NUM_THREADS": threads}}


def keep_on_loopback() -> None:
    """Make a Ray instance on this one machine listen and connect on 127.0.0.1 only. Ray
    advertises the machine's network address by default, even when given 127.0.0.1;
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` makes it use the loopback address. Ray reads it
    when it is imported, so call this before ``import ray`` (and never when joining a
    cluster of several machines)."""
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"


def init_ray(cfg: RLlibConfig, address: str | None = None,
             node_ip_address: str | None = None) -> None:
    """Join the cluster at ``address`` (from this machine's ``node_ip_address`` when
    given: the address its Ray node advertises, if not the one Ray would find), or start
    a local Ray instance (on 127.0.0.1 when :func:`keep_on_loopback` ran before ``ray``
    was imported, as ``main`` does)."""
    if not address:
        keep_on_loopback()
    import ray

    kw = {"runtime_env": runtime_env(cfg), "include_dashboard": False,
          "log_to_driver": True, "logging_level": "ERROR"}
    if address:
        if node_ip_address:
            kw["_node_ip_address"] = node_ip_address
        ray.init(address=address, **kw)
        return
    need = cfg.env_runners.num_env_runners * cfg.env_runners.num_cpus_per_env_runner
    cpus = cfg.ray.num_cpus or max(os.cpu_count() or 1, need, 1)
    ray.init(num_cpus=cpus, object_store_memory=cfg.ray.object_store_memory_mb * 2**20, **kw)


# ---------------------------------------------------------------------------- training
def _get(d: dict, *keys, default=None):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def _scalars(result: dict, module_ids: tuple[str, ...]) -> dict[str, float]:
    """The figures of one iteration worth logging (per partnership, not the zero mean)."""
    er = result.get("env_runners", {})
    out = {}
    for key in ("team_0_return", "team_1_return", "team_0_win", "abs_return", "hand_length",
                "episode_len_mean", "num_episodes", "num_env_steps_sampled_lifetime",
                "num_env_steps_sampled", "num_decisions_lifetime"):
        v = er.get(key)
        if isinstance(v, (int, float)) and math.isfinite(v):
            out[f"env_runners/{key}"] = float(v)
    for mid in module_ids:
        stats = _get(result, "learners", mid, default={}) or {}
        for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "curr_kl_coeff",
                    "vf_explained_var", "total_loss", "gradients_adam_global_norm"):
            v = stats.get(key)
            if isinstance(v, (int, float)) and math.isfinite(v):
                out[f"learner_{mid}/{key}"] = float(v)
    return out


def _check_run_dir(cfg: RLlibConfig) -> Path:
    run_dir = cfg.run_dir.resolve()
    if run_dir.exists() and any(run_dir.iterdir()):
        raise ConfigError(f"{cfg.run_dir} already holds files of a run; choose another run_name")
    return run_dir


def evaluate_module(module, hands: int, seed: int, variant: str) -> dict[str, dict]:
    """Duplicate-deal results of ``module`` (as :class:`~training.rllib_module.RLlibPolicy`)
    against random and heuristic (``training.evaluate.evaluate_policies``)."""
    from canasta_env.bots.loader import load_policy

    from .evaluate import evaluate_policies
    from .rllib_module import RLlibPolicy

    pol = RLlibPolicy(module)
    return {name: evaluate_policies(pol, load_policy(name), hands=hands, seed=seed,
                                    variant=variant)
            for name in ("random", "heuristic")}


def _runner_info(runner) -> dict:
    """Where an env runner lives (runs inside the runner)."""
    import socket

    import ray

    import canasta_env

    return {"worker_index": runner.worker_index, "node_id": ray.get_runtime_context().get_node_id(),
            "hostname": socket.gethostname(), "pid": os.getpid(),
            "canasta_env": str(Path(canasta_env.__file__).parent)}


def progress_line(it: int, steps: int, scal: dict, elapsed: float) -> str:
    """One progress line of :func:`train`: iteration, env steps, steps/s, the mean return
    of team 0 and the mean hand length (decisions) over the finished hands, elapsed minutes
    (``elapsed`` in seconds). Before any hand finished the run has no returns yet, and the
    line says so instead of printing NaN."""
    ret = scal.get("env_runners/team_0_return")
    length = scal.get("env_runners/hand_length")
    if ret is None or length is None or not (math.isfinite(ret) and math.isfinite(length)):
        hands = "no hand finished yet"
    else:
        hands = f"team_0 return {ret:+.3f}  hand length {length:.0f}"
    return (f"iter {it:4d}  steps {steps:9,d}  {scal['time/env_steps_per_s']:7.0f} steps/s  "
            f"{hands}  {elapsed / 60:.1f} min")


def train(cfg: RLlibConfig, address: str | None = None, report: dict | None = None) -> Path:
    """Run one RLlib training; returns the final checkpoint directory. ``report``, when
    given, receives ``runners`` (:func:`_runner_info` of each remote env runner),
    ``hands_by_node`` (finished hands per Ray node id), ``env_steps`` (decisions of all
    seats),
    ``iterations`` and ``seconds``.

    Raises:
        ConfigError: the run directory already holds a run.
    """
    import torch

    torch.set_num_threads(cfg.torch_threads)
    os.environ["OMP_NUM_THREADS"] = str(cfg.torch_threads)
    run_dir = _check_run_dir(cfg)

    import ray
    from torch.utils.tensorboard import SummaryWriter

    from .rllib_module import load_module

    started = not ray.is_initialized()
    if started:  # before writing anything: a cluster that cannot be joined leaves no run
        init_ray(cfg, address)
    run_dir.mkdir(parents=True, exist_ok=True)
    dump_config(cfg, run_dir / "config.yaml")
    writer = SummaryWriter(str(Path(cfg.tensorboard_dir) / cfg.run_name))
    writer.add_text("config", "\n".join(f"    {line}" for line in
                                        (run_dir / "config.yaml").read_text().splitlines()))
    algo = None
    # the decisions of all seats: one per env step (aec), or counted by the callback
    steps_key = ("env_runners/num_decisions_lifetime" if cfg.env == "vector"
                 else "env_runners/num_env_steps_sampled_lifetime")
    try:
        algo = ppo_config(cfg).build_algo()
        t0 = time.time()
        it, steps = 0, 0
        while True:
            result = algo.train()
            it += 1
            scal = _scalars(result, cfg.module_ids)
            steps = int(scal.get(steps_key, steps))
            elapsed = time.time() - t0
            scal["time/env_steps_per_s"] = steps / max(elapsed, 1e-9)
            for k, v in scal.items():
                writer.add_scalar(k, v, steps)
            if cfg.progress:
                print(progress_line(it, steps, scal, elapsed), flush=True)
            done = steps >= cfg.total_timesteps or \
                (cfg.max_minutes is not None and elapsed >= cfg.max_minutes * 60)
            if it % cfg.checkpoint_every == 0 and not done:
                algo.save_to_path(str(run_dir / f"iter_{it:06d}"))
            if cfg.eval.every and it % cfg.eval.every == 0 and not done:
                for mid in cfg.module_ids:
                    res = evaluate_module(algo.get_module(mid), cfg.eval.hands, cfg.eval.seed,
                                          cfg.variant)
                    for name, r in res.items():
                        writer.add_scalar(f"eval_{mid}_{name}/win_rate", r["win_rate"], steps)
                        writer.add_scalar(f"eval_{mid}_{name}/mean_score_diff",
                                          r["mean_score_diff"], steps)
            if done:
                break
        seconds = time.time() - t0
        final = run_dir / "final"
        algo.save_to_path(str(final))
        nodes = dict(_get(result, "env_runners", "hands_by_node", default={}) or {})
        runners = algo.env_runner_group.foreach_env_runner(_runner_info, local_env_runner=False)
        print(f"trained {steps:,} env steps in {it} iterations, {seconds / 60:.1f} min "
              f"({steps / max(seconds, 1e-9):.0f} steps/s); saved {final}", flush=True)
        for r in runners:
            print(f"env runner {r['worker_index']}: node {r['node_id'][:12]} host {r['hostname']} "
                  f"pid {r['pid']}", flush=True)
        print(f"finished hands by node: { {k[:12]: int(v) for k, v in nodes.items()} }",
              flush=True)
        if report is not None:
            report.update(runners=runners, hands_by_node=nodes, env_steps=steps,
                          iterations=it, seconds=seconds)
    finally:
        if algo is not None:
            algo.stop()
        writer.flush()
        if started:
            ray.shutdown()

    from .evaluate import format_table

    for mid in cfg.module_ids:
        module = load_module(final / "learner_group" / "learner" / "rl_module" / mid)
        if cfg.export_onnx:
            out = run_dir / ("final.onnx" if mid == "shared" else f"final_{mid}.onnx")
            export_and_check(module, out, source=f"{final.name}/{mid}")
        if cfg.eval.final_hands:
            res = evaluate_module(module, cfg.eval.final_hands, cfg.eval.seed, cfg.variant)
            for name, r in res.items():
                print(f"\n== {cfg.run_name} {mid} vs {name} ({cfg.eval.final_hands} hands) ==")
                print(format_table(r))
                writer.add_scalar(f"final_{mid}_{name}/win_rate", r["win_rate"], steps)
                writer.add_scalar(f"final_{mid}_{name}/mean_score_diff", r["mean_score_diff"],
                                  steps)
    writer.close()
    return final


def export_and_check(module, out: Path, source: str) -> Path:
    """Export ``module`` to ONNX and check that onnxruntime and torch pick the same moves
    on random masked inputs.

    Raises:
        RuntimeError: they disagree.
    """
    import numpy as np

    from canasta_env.bots.onnx_policy import OnnxPolicy

    from .rllib_module import RLlibPolicy, export_onnx

    export_onnx(module, out, source=source)
    torch_pol, onnx_pol = RLlibPolicy(module), OnnxPolicy(out)
    rng = np.random.default_rng(0)
    obs = rng.random((64, torch_pol.obs_size), dtype=np.float32)
    mask = (rng.random((64, torch_pol.num_actions)) < 0.2).astype(np.int8)
    mask[:, 0] = 1
    agree = int((torch_pol.logits(obs, mask).argmax(1) ==
                 onnx_pol.logits(obs, mask).argmax(1)).sum())
    if agree != 64:
        raise RuntimeError(f"{out}: ONNX and torch agree on {agree}/64 random inputs only")
    print(f"exported {out} (argmax agrees with the RLlib module on 64/64 random masked inputs)",
          flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.rllib",
                                description="Train a Canasta agent with Ray RLlib PPO.")
    p.add_argument("--config", required=True, help="YAML config (configs/rllib_*.yaml)")
    p.add_argument("--address", default=None,
                   help="join the Ray cluster at HOST:PORT (default: start a local Ray)")
    p.add_argument("--total-timesteps", type=int, default=None, help="override the config")
    p.add_argument("--run-name", default=None, help="override the config")
    args = p.parse_args(argv)
    if not args.address:
        keep_on_loopback()  # before anything imports ray
    try:
        cfg = load_rllib_config(args.config, total_timesteps=args.total_timesteps,
                                run_name=args.run_name)
        train(cfg, args.address)
    except ConfigError as e:
        print("error: " + "; ".join(line.strip() for line in str(e).splitlines()),
              file=sys.stderr)
        return 2
    except ConnectionError as e:  # --address: no cluster there (before OSError: a subclass)
        print(f"error: cannot join the Ray cluster at {args.address}: "
              f"{str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. an unwritable checkpoint_dir
        print(f"error: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
