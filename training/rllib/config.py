"""The RLlib training configuration (:class:`RLlibConfig`): validated pydantic sections
filled from YAML (:func:`load_rllib_config`), on the same base, run names, reader and
shared PPO settings as the SB3 config (:mod:`training.common.config`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from training.common.config import PPOSettings, RunName, _Config, load_yaml_model


class RLlibPPOConfig(PPOSettings):
    """PPO hyperparameters: the shared :class:`training.common.config.PPOSettings`
    (sb3-contrib's names), RLlib's batch sizes and the clip of the value loss."""

    train_batch_size: int = Field(8000, ge=8, description="env steps per training iteration")
    minibatch_size: int = Field(512, ge=8, description="SGD minibatch size")
    n_epochs: int = Field(4, ge=1, description="passes over each train batch")
    vf_clip: float = Field(10.0, gt=0, description="clip of the value loss (RLlib vf_clip_param)")
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


class EnvRunnersConfig(_Config):
    """Where and how games are played (RLlib env runners)."""

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


class RLlibEvalConfig(_Config):
    """Evaluation on duplicate deals against random and heuristic (training.evaluation)."""

    every: int = Field(10, ge=0, description="iterations between evaluations (0: none)")
    hands: int = Field(40, ge=2, description="duplicate hands per opponent per evaluation")
    final_hands: int = Field(200, ge=0, description="hands per opponent at the end (0: none)")
    seed: int = Field(12345)


class RayConfig(_Config):
    """The local Ray instance started without ``--address`` (ignored when joining)."""

    num_cpus: int | None = Field(None, ge=1, description="CPUs Ray may schedule on "
                                 "(default: the machine's, at least one per env runner)")
    object_store_memory_mb: int = Field(512, ge=100)


class RLlibConfig(_Config):
    """One RLlib training run."""

    run_name: RunName = Field("rllib_classic", description="checkpoints/<run_name>/ and runs/<run_name>/")
    variant: Literal["classic", "hand_and_foot"] = "classic"
    seed: int = Field(0, ge=0)
    env: Literal["aec", "vector"] = Field(
        "aec", description="aec: the PettingZoo AEC env through RLlib's wrapper, one game "
        "and one seat per env step (CanastaRLlibEnv); vector: env_runners.games_per_env "
        "games on the native batched core, one env step for all of them "
        "(training.rllib.vector_env.CanastaVectorEnv; needs the compiled core)")
    # the env, as training.sb3.config.TrainConfig
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
