"""The SB3 training configuration (:class:`TrainConfig`): a validated pydantic model,
filled from YAML (:func:`load_config`).

Every field has a docstring-like description; unknown keys are errors, so a typo in a
config file fails loudly at start-up instead of silently using a default. The section base,
the run names, the YAML reader and the PPO settings shared with RLlib are
:mod:`training.common.config`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from training.common.cli import add_torch_threads_flag  # noqa: F401 (re-exported)
from training.common.config import (  # noqa: F401 (re-exported)
    CLASS_LAYERS,
    RUN_NAME_MAX,
    ConfigError,
    PPOSettings,
    RunName,
    _Config,
    dump_config,
    load_yaml_model,
)


class PPOConfig(PPOSettings):
    """MaskablePPO hyperparameters (sb3-contrib names): the shared
    :class:`training.common.config.PPOSettings`, the rollout and minibatch sizes, the
    learning-rate anneal and the features extractor."""

    learning_rate: float = Field(3e-4, gt=0, description="Adam learning rate: constant, or "
                                 "the rate an anneal starts from (learning_rate_final)")
    learning_rate_final: float | None = Field(
        None, ge=0, description="anneal the learning rate: from anneal_from steps "
        "on it falls linearly from learning_rate to this (at most learning_rate) at "
        "total_timesteps; default null: no anneal")
    anneal_from: int = Field(0, ge=0, description="learner decisions (steps) of "
                             "the run, counted from 0 also in a resumed run, after which the "
                             "learning rate starts to fall (needs learning_rate_final)")
    n_steps: int = Field(1024, ge=8, description="rollout steps per environment")
    batch_size: int = Field(256, ge=8, description="minibatch size")
    vf_arch: list[Annotated[int, Field(ge=1, le=8192)]] | None = Field(
        None, min_length=1, description="hidden layer sizes of the value network (net_arch "
        "then sizes the policy network alone); default null: the same as net_arch")
    features: Literal["mlp", "card_classes"] = Field(
        "mlp", description="mlp: the networks read the observation as it is; card_classes: "
        "a small MLP shared by the 15 card classes adds features per class first "
        "(training.sb3.features.CardClassFeatures)")
    class_hidden: int = Field(64, ge=1, le=1024, strict=True,
                              description="card_classes: width of the shared MLP")
    class_channels: int = Field(8, ge=1, le=64, strict=True,
                                description="card_classes: features per card class")
    class_layers: int = Field(CLASS_LAYERS, ge=1, le=4, strict=True,
                              description="card_classes: hidden layers of the shared MLP")
    precision: Literal["fp32", "bf16", "auto"] = Field(
        "fp32", description="the network's arithmetic (training.sb3.precision): fp32; bf16 "
        "(the features extractor and hidden layers in bfloat16 autocast, float32 weights, "
        "heads and losses; fp32 with one warning on a CPU without bfloat16 products); auto: "
        "bf16 where it is faster than fp32, decided when a run starts (AMX tiles, or the "
        "policy's products timed at least 1.25x as fast in bf16 on one core), else fp32; "
        "the run's config.yaml records the choice and a resume keeps it")


@dataclass(frozen=True)
class LinearAnneal:
    """A PPO learning-rate schedule in SB3's form (``schedule(progress_remaining)``):
    ``start`` until ``anneal_from`` steps, then linear to ``final`` at ``total`` steps.

    SB3 computes ``progress_remaining = 1 - num_timesteps / total`` over the whole run
    (a resumed run included: :func:`training.sb3.train.train` learns up to the config's
    ``total_timesteps``), so the rate is a function of the run's step count alone and a
    resumed run continues the same schedule.
    """

    start: float
    final: float
    anneal_from: int
    total: int

    def __post_init__(self) -> None:
        if not 0 <= self.anneal_from < self.total:
            raise ValueError(f"LinearAnneal: need 0 <= anneal_from < total, got anneal_from "
                             f"{self.anneal_from} and total {self.total}")

    def at(self, steps: float) -> float:
        """The learning rate after ``steps`` learner decisions of the run."""
        if steps <= self.anneal_from:
            return self.start
        frac = min(1.0, (steps - self.anneal_from) / (self.total - self.anneal_from))
        return self.start + (self.final - self.start) * frac

    def __call__(self, progress_remaining: float) -> float:
        return self.at((1.0 - progress_remaining) * self.total)


class OpponentConfig(_Config):
    """Opponent pool: sampling weights per kind at each episode start."""

    model_config = ConfigDict(populate_by_name=True)
    random: float = Field(0.2, ge=0, description="weight of the uniform random policy")
    heuristic: float = Field(0.5, ge=0, description="weight of the rule-based heuristic")
    styles: float = Field(0.0, ge=0, description="weight of the heuristic's six playing styles "
                          "(canasta_env.policies.styles; spread evenly; Classic, vec_env: "
                          "batched only)")
    snapshots: float = Field(0.3, ge=0, description="weight of frozen snapshots of the learner")
    self_play: float = Field(0.0, ge=0, alias="self", description="weight of self-play: the "
                             "learner's current network plays the other partnership too "
                             "(vec_env: batched only)")
    snapshot_every: int = Field(50_000, ge=1, description="timesteps between snapshots")
    max_snapshots: int = Field(5, ge=1, description="most recent snapshots kept in the pool")
    fixed: dict[str, Annotated[float, Field(ge=0, allow_inf_nan=False, strict=True)]] = Field(
        {}, description="fixed opponents: checkpoint .zip paths, each with its weight, in "
        "the pool from the first hand on (vec_env: batched only), e.g. a frozen reference "
        "to train a best response against")

    @model_validator(mode="after")
    def _some_weight(self) -> "OpponentConfig":
        fixed = sum(self.fixed.values())
        total = self.random + self.heuristic + self.styles + self.snapshots + self.self_play + \
            fixed
        if total <= 0:
            raise ValueError("opponent weights must not all be zero")
        if not math.isfinite(total):
            raise ValueError(f"opponent weights must have a finite sum (they are relative: "
                             f"e.g. 0.6 and 0.4), got {total}")
        for path in self.fixed:
            if not Path(path).is_file():
                raise ValueError(f"@fixed: {path} is not a checkpoint file")
        if self.random + self.heuristic + self.styles + self.self_play + fixed <= 0:
            # the envs draw the first hands' opponents before any snapshot is saved
            raise ValueError("opponents.snapshots cannot be the only opponent: no snapshot "
                             "exists when the first hands are dealt; give random, heuristic, "
                             "styles or self a weight too")
        return self


class EvalConfig(_Config):
    """Periodic and final evaluation on duplicate deals."""

    every: int = Field(50_000, ge=1, description="timesteps between evaluations")
    hands: int = Field(100, ge=2, description="duplicate hands per opponent per evaluation")
    final_hands: int = Field(500, ge=2, description="hands per opponent in the final evaluation")
    seed: int = Field(12345, description="seed of the evaluation deals")


class PretrainConfig(_Config):
    """Warm start before PPO: behaviour cloning of the heuristic, then ``dagger_rounds``
    DAgger rounds (``decisions: 0`` turns the warm start off)."""

    decisions: int = Field(0, ge=0, description="heuristic self-play decisions to imitate")
    epochs: int = Field(3, ge=1)
    batch_size: int = Field(512, ge=8)
    learning_rate: float = Field(1e-3, gt=0)
    dagger_rounds: int = Field(0, ge=0, description="DAgger rounds after cloning: the clone "
                               "plays, the heuristic labels its positions, refit on all data")
    dagger_decisions: int = Field(100_000, ge=1, description="clone decisions per DAgger round")
    dagger_epochs: int = Field(2, ge=1, description="refit epochs per DAgger round")
    dagger_learning_rate: float = Field(3e-4, gt=0, description="refit learning rate of the "
                                        "first DAgger round")
    dagger_final_learning_rate: float | None = Field(
        None, gt=0, description="refit learning rate of the last round (geometric steps in "
        "between); default: the same as dagger_learning_rate (a single round uses "
        "dagger_learning_rate)")
    value_returns: Literal["score_diff", "reward"] = Field(
        "score_diff", description="what the value head is fitted to in the warm start: "
        "score_diff, the hand's score difference * reward_scale; reward, the hand reward PPO "
        "trains on (the config's reward)")


class TrainConfig(_Config):
    """One training run (Classic Canasta unless ``variant`` says otherwise)."""

    run_name: RunName = Field("classic_default", description="checkpoints/<run_name>/ and runs/<run_name>/")
    variant: Literal["classic", "hand_and_foot"] = "classic"
    seed: int = Field(0, ge=0, le=2**32 - 1,
                      description="the run's seed (deals, opponents, initial weights)")
    total_timesteps: int = Field(500_000, ge=1, description="learner decisions to train for")
    n_envs: int = Field(2, ge=1, le=65_536, description="environments; with vec_env: "
                        "batched, the games played side by side in one process (at most 64 "
                        "otherwise)")
    vec_env: Literal["dummy", "subproc", "batched"] = Field(
        "batched", description="batched: all games in one process on the native core's "
        "batched API, opponents decided in batches (training.sb3.batched); subproc / dummy: one "
        "PartnershipEnv per process / all in this process")
    starting_scores: Literal["sample", "zero"] = Field(
        "sample", description="Classic: sample cumulative scores so all four opening minimums "
        "occur; Hand and Foot: sample the starting round (minimums 60/90/120/150)")
    reward: Literal["score_diff", "win_loss", "win_loss_score"] = Field(
        "score_diff", description="score_diff: hand score difference * reward_scale; "
        "win_loss: +1 / -1 / 0 for the hand; win_loss_score: both added, +1 / -1 / 0 plus "
        "the score difference * reward_scale (vec_env: batched only)")
    reward_scale: float = Field(0.001, gt=0, description="reward per point of score difference")
    max_decisions: int = Field(2000, ge=10)
    torch_threads: int = Field(1, ge=1, le=256, description="torch.set_num_threads: 1 when "
                               "another job shares the cores")
    checkpoint_dir: str = "checkpoints"
    tensorboard_dir: str = "runs"
    checkpoint_every: int = Field(100_000, ge=1)
    ppo: PPOConfig = PPOConfig()
    pretrain: PretrainConfig = PretrainConfig()
    opponents: OpponentConfig = OpponentConfig()
    eval: EvalConfig = EvalConfig()
    progress_bar: bool = True

    @model_validator(mode="after")
    def _dagger_needs_cloning(self) -> "TrainConfig":
        if self.pretrain.dagger_rounds and not self.pretrain.decisions:
            raise ValueError("pretrain.dagger_rounds needs pretrain.decisions > 0 (DAgger "
                             "refines a behaviour-cloned network; decisions: 0 turns the "
                             "whole warm start off)")
        return self

    @model_validator(mode="after")
    def _anneal_fits(self) -> "TrainConfig":
        p = self.ppo
        if p.learning_rate_final is None:
            if p.anneal_from:
                raise ValueError("ppo.anneal_from is set but ppo.learning_rate_final is not "
                                 "(the rate to anneal to)")
        elif p.anneal_from >= self.total_timesteps:
            raise ValueError(f"ppo.anneal_from ({p.anneal_from:,} steps) must be below "
                             f"total_timesteps ({self.total_timesteps:,}), where the anneal "
                             f"ends")
        elif p.learning_rate_final > p.learning_rate:
            raise ValueError(f"ppo.learning_rate_final ({p.learning_rate_final:g}) is above "
                             f"ppo.learning_rate ({p.learning_rate:g}): an anneal only lowers "
                             f"the learning rate")
        return self

    def learning_rate(self) -> "float | LinearAnneal":
        """MaskablePPO's ``learning_rate``: the constant ``ppo.learning_rate``, or a
        :class:`LinearAnneal` when ``ppo.learning_rate_final`` is set."""
        p = self.ppo
        if p.learning_rate_final is None:
            return p.learning_rate
        return LinearAnneal(p.learning_rate, p.learning_rate_final, p.anneal_from,
                            self.total_timesteps)

    @model_validator(mode="after")
    def _batch_fits(self) -> "TrainConfig":
        if self.ppo.batch_size > self.ppo.n_steps * self.n_envs:
            raise ValueError(f"ppo.batch_size {self.ppo.batch_size} exceeds the rollout size "
                             f"n_steps*n_envs = {self.ppo.n_steps * self.n_envs}")
        if self.opponents.styles > 0 and self.variant != "classic":
            raise ValueError(f"opponents.styles: the heuristic's styles play Classic only, "
                             f"this config's variant is {self.variant}")
        if self.vec_env != "batched":
            if self.n_envs > 64:
                raise ValueError(f"n_envs {self.n_envs}: at most 64 processes or envs with "
                                 f"vec_env: {self.vec_env} (vec_env: batched plays more games)")
            if self.opponents.self_play > 0:
                raise ValueError("opponents.self needs vec_env: batched")
            if self.opponents.fixed:
                raise ValueError("opponents.fixed needs vec_env: batched")
            if self.opponents.styles > 0:
                raise ValueError("opponents.styles needs vec_env: batched")
            if self.reward == "win_loss_score":
                raise ValueError("reward: win_loss_score needs vec_env: batched (the "
                                 "PettingZoo env's rewards are score_diff or win_loss)")
        else:
            from .batched import check_batched

            check_batched(self.variant, self.n_envs, self.ppo.n_steps, self.ppo.batch_size)
        return self

    @property
    def run_dir(self) -> Path:
        return Path(self.checkpoint_dir) / self.run_name


def load_config(path: str | Path, **overrides) -> TrainConfig:
    """Read and validate a YAML config.

    Raises:
        ConfigError: file missing, not YAML, or values invalid (message lists each).
    """
    return load_yaml_model(path, TrainConfig, **overrides)
