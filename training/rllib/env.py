"""The env side of RLlib training: the AEC env through RLlib's PettingZoo wrapper
(:class:`CanastaRLlibEnv`) or the native batched env (``env: vector``,
:mod:`training.rllib.vector_env`), the per-partnership metrics (``CanastaMetrics``) and
the PPO config of a run (:func:`ppo_config`).
"""

from __future__ import annotations

from canasta_env import AGENTS

from .config import RLlibConfig


def env_config(cfg: RLlibConfig) -> dict:
    """RLlib's ``env_config`` of a config: the keyword arguments of
    :class:`canasta_env.raw_env`, plus ``games`` with ``env: vector``."""
    from training.sb3.train import env_kwargs

    kw = env_kwargs(cfg)
    if cfg.env == "vector":
        kw["games"] = cfg.env_runners.games_per_env
        kw["episode_steps"] = cfg.env_runners.episode_steps
    return kw


def env_class(cfg: RLlibConfig) -> type:
    """The ``MultiAgentEnv`` class of ``cfg.env``."""
    if cfg.env == "vector":
        from .vector_env import CanastaVectorEnv

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

        from .module import MASK_KEY, OBS_KEY

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
    """RLlib's env runner (``aec``), or :class:`training.rllib.vector_env.
    CanastaVectorEnvRunner` (``vector``)."""
    if cfg.env == "vector":
        from .vector_env import CanastaVectorEnvRunner

        return CanastaVectorEnvRunner
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    return MultiAgentEnvRunner


def _env_to_module(cfg: RLlibConfig) -> dict:
    """``env: vector``: its own env-to-module connector in place of RLlib's default pieces
    (:class:`training.rllib.vector_env.VectorEnvToModule`); ``aec``: RLlib's."""
    if cfg.env != "vector":
        return {}
    from functools import partial

    from .vector_env import env_to_module_connector

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
        :meth:`~training.rllib.vector_env.CanastaVectorEnv.pop_finished_hands`; and the
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

    from .module import MaskedActorCritic

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
