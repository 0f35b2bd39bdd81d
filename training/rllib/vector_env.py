"""Many Canasta games as one RLlib ``MultiAgentEnv`` on the native batched core
(:class:`canasta_env.native.VectorGames`): one ``step`` call advances every game, and the
env runner's module decides for all of them in one forward (``env: vector`` in
:class:`training.rllib.RLlibConfig`).

Agents are the seats of the ``games`` games, one set per hand: agent ``"g{i}h{k}_p{s}"``
is seat ``s`` (0..3) of game ``i`` in the game's ``k``-th hand since the env was made. Its
last character is the seat, so :func:`training.rllib.ppo_config`'s policy mapping (one
shared module, or ``team_{seat % 2}``) is the AEC path's.

- :meth:`CanastaVectorEnv.reset` returns the observation of the seat on turn in each game;
  each :meth:`~CanastaVectorEnv.step` takes one action per playing game (from the agent
  whose observation came last there) and returns each playing game's next observation
  (the seat on turn, with its action mask).
- Rewards are those of :class:`training.rllib.CanastaRLlibEnv` (PettingZoo's ``last()``):
  an agent receives, with its next observation, the reward its seat collected since its
  own last action. When a game's hand ends, all four seats' agents get their final
  observation (the position with the hand over, ``VectorGames.final_observations``) with
  an all-zero mask, their reward (hand score difference times ``reward_scale``, + for
  seats 0 / 2 and - for 1 / 3, or +-1 / 0 with ``reward="win_loss"``) and ``terminated``;
  after ``max_decisions`` decisions of a hand, ``truncated`` instead (the truncated
  position as final observation, for bootstrapping).
- For the first ``episode_steps`` env steps of an RLlib episode, a game whose hand ends
  starts its next hand (dealt by ``VectorGames``) in the same step, under four new agent
  ids. After that the running hands are played out, finished games wait, and when the
  last hand has ended ``"__all__"`` is done (terminated; truncated when the last hands
  to end were cut at ``max_decisions``). So every hand is played whole inside one
  episode, and every seat that acted gets its final observation and reward, as on the
  AEC path.

Why this shape: RLlib never lets a done agent act again in an episode, so a game's next
hand needs new agent ids; RLlib keeps every sampled chunk of an unfinished episode for
its episode metrics until the episode ends, so an episode that never ends would hold all
the data ever sampled; and cutting running hands at an episode's end would lose the
final reward of a seat that does not act again before its hand ends (RLlib drops the
reward of an agent without an action). The wait at the end costs env calls with fewer
games in them (the longest hands set the pace), not samples. With ``episode_steps: 0``
all hands of an episode start together (one hand per game per episode): each train batch
then holds one phase of the hands.

Deals: ``reset(seed=x)`` deals game ``i`` from the ``VectorGames`` seed ``x * games + i``
(so consecutive seeds, which RLlib gives its env runners, never share a deal); native
deals differ from the Python engine's. Finished hands are recorded for the metrics
callback (:meth:`CanastaVectorEnv.pop_stats`).

Needs the compiled core (as ``vec_env: batched`` of the sb3 trainer). Its RLlib parts:
:class:`CanastaVectorEnvRunner` (the env runner) and :class:`VectorEnvToModule` (the
env-to-module connector, the only piece that imports torch, when called).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.utils.metrics import (
    NUM_AGENT_STEPS_SAMPLED,
    NUM_AGENT_STEPS_SAMPLED_LIFETIME,
    NUM_ENV_STEPS_SAMPLED,
    NUM_ENV_STEPS_SAMPLED_LIFETIME,
    NUM_EPISODES,
    NUM_EPISODES_LIFETIME,
    NUM_MODULE_STEPS_SAMPLED,
    NUM_MODULE_STEPS_SAMPLED_LIFETIME,
)

#: games per env when the config does not say
DEFAULT_GAMES = 64


#: env steps in which finished games deal their next hand, when the config does not say
DEFAULT_EPISODE_STEPS = 512


class CanastaVectorEnv(MultiAgentEnv):
    """``games`` Canasta games stepped together (see the module docstring).

    Args:
        config: RLlib's ``env_config``: ``games`` (default :data:`DEFAULT_GAMES`),
            ``episode_steps`` (default :data:`DEFAULT_EPISODE_STEPS`, >= 0) and the keyword
            arguments of :class:`canasta_env.raw_env` that a training config sets
            (``variant``, ``reward``, ``reward_scale``, ``max_decisions``,
            ``starting_scores`` / ``starting_round``), validated by ``raw_env``.

    Raises:
        ValueError: the native core is not built, ``games`` is not an int >= 1 or
            ``episode_steps`` not an int >= 0.
        canasta_env.engine.OptionsError: a bad env option.
    """

    def __init__(self, config: dict | None = None) -> None:
        import gymnasium as gym

        from canasta_env import raw_env
        from canasta_env.native import VectorGames, available

        from .module import MASK_KEY, OBS_KEY

        super().__init__()
        kw = dict(config or {})
        games = kw.pop("games", DEFAULT_GAMES)
        episode_steps = kw.pop("episode_steps", DEFAULT_EPISODE_STEPS)
        if not available:
            raise ValueError("env: vector needs the native core, which is not built here "
                             "(reinstall with a C compiler: pip install -e .); use env: aec")
        for name, v, low in (("games", games, 1), ("episode_steps", episode_steps, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"{name} must be an int >= {low}, got {v!r}")
        ref = raw_env(**kw)  # validates the options; its spaces are the AEC path's
        inner = ref.observation_space("player_0")
        self._space = gym.spaces.Dict({OBS_KEY: inner["observation"],
                                       MASK_KEY: inner["action_mask"]})
        self._action_space = gym.spaces.Discrete(ref.num_actions)
        self.num_games = games
        self.episode_steps = episode_steps
        self.variant = ref.variant
        self.max_decisions = ref.max_decisions
        self.win_loss = ref.reward_mode == "win_loss"
        self.reward_scale = ref.reward_scale
        # the core's rewards are the score differences (reward_scale 1: exact in float32);
        # scaled here in float64 as raw_env does, or their sign with win_loss
        self.vg = VectorGames(games, ref.rules, seed=0, reward_scale=1.0,
                              starting_scores=ref.starting_scores,
                              starting_round=ref.starting_round)
        self._hand = np.zeros(games, np.int64)  # k of the agent ids "g{i}h{k}_p{s}"
        self._ids = [[""] * 4 for _ in range(games)]
        self._where: dict[str, tuple[int, int]] = {}
        self._new_ids(np.arange(games))
        # RLlib reads the spaces of these (every agent's are the same)
        self.possible_agents = [a for ids in self._ids for a in ids]
        self._hand[:] = 0  # reset() deals these ids out again: the first hands are h0
        self.agents = list(self.possible_agents)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._pending = np.zeros((games, 4), np.float64)  # reward since each seat's last action
        self._decisions = np.zeros(games, np.int64)  # decisions of the running hand
        self._t = 0  # env steps of this episode
        self._waiting = np.zeros(games, bool)  # hand over, no new one until the next episode
        self._finished: list[tuple[float, int, bool]] = []
        self._decisions_taken = 0
        self._needs_reset = True

    # -- RLlib MultiAgentEnv API -----------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode: every game plays the hand dealt when its last one ended (a
        reset in mid-episode lets the running hands go on). ``seed`` re-deals every game
        (game ``i`` from ``seed * games + i``);
        ``options={"positions": {game: position}}`` (or a list, one per game from game 0)
        then puts JSON positions (running hands, e.g. ``raw_env.position()``) into those
        games. Returns the observations of the seats on turn (one per game) and empty
        infos.

        Raises:
            ValueError / IndexError / canasta_env.engine.PositionError: a bad position or
                game index (``VectorGames.set_position``'s errors).
        """
        if seed is not None:
            self.vg.reset([int(seed) * self.num_games + i for i in range(self.num_games)])
            self._pending[:] = 0.0
            self._decisions[:] = 0
        positions = (options or {}).get("positions")
        if positions is not None:
            items = positions.items() if isinstance(positions, dict) else enumerate(positions)
            for g, pos in items:
                self.vg.set_position(int(g), pos)
                self._pending[int(g)] = 0.0
                self._decisions[int(g)] = 0
        games = np.arange(self.num_games)
        self._new_ids(games)
        self._t = 0
        self._waiting[:] = False
        self._needs_reset = False
        return self._on_turn(games), {}

    def step(self, action_dict: dict):
        """Apply one action per playing game (keyed by the agent on turn there).

        Raises:
            ValueError: an unknown agent, an agent not on turn, a playing game without an
                action, or a step after ``"__all__"`` was done without :meth:`reset`.
            canasta_env.engine.IllegalActionError: an action that is not legal (the masks
                make it a bug); no game was changed.
        """
        if self._needs_reset:
            raise ValueError("call reset() first: the episode is over")
        vg = self.vg
        n = len(action_dict)
        games = np.empty(n, np.int64)
        seats = np.empty(n, np.int64)
        acts = np.empty(n, np.int64)
        try:
            for k, (aid, a) in enumerate(action_dict.items()):
                games[k], seats[k] = self._where[aid]
                acts[k] = a
        except KeyError as e:
            raise ValueError(f"unknown agent {e.args[0]!r}: the agents on turn are "
                             f"{sorted(self.agents_on_turn())}"[:2000]) from None
        active = ~self._waiting
        if n != int(active.sum()) or not active[games].all() or len(np.unique(games)) != n \
                or (vg.to_move[games] != seats).any():
            raise ValueError(f"step takes one action per playing game, from the agent on turn "
                             f"there: expected {sorted(self.agents_on_turn())}, got "
                             f"{sorted(action_dict)}"[:2000])
        actions = np.zeros(self.num_games, np.int64)
        actions[games] = acts
        vg.step(actions, active)
        self._decisions[games] += 1
        self._decisions_taken += n
        self._t += 1
        done = vg.dones  # False where not active
        ended = np.flatnonzero(done)
        truncated = np.flatnonzero(active & ~done & (self._decisions >= self.max_decisions))
        if len(truncated):
            vg.redeal(truncated)  # writes their final_observations first
        obs: dict = {}
        rew: dict = {}
        term: dict = {}
        trunc: dict = {}
        if len(ended):
            diff = vg.rewards[ended].astype(np.float64)
            self._pending[ended] += np.sign(diff) if self.win_loss else diff * self.reward_scale
            self._final(ended, obs, rew, term)
        if len(truncated):
            self._final(truncated, obs, rew, trunc, truncated=True)
        over = np.union1d(ended, truncated)
        if len(over):
            if self._t < self.episode_steps:  # their next hands, under new ids
                self._new_ids(over)
            else:
                self._waiting[over] = True
        playing = np.flatnonzero(~self._waiting)
        live = self._on_turn(playing)
        for a in live:
            g, s = self._where[a]
            rew[a] = float(self._pending[g, s])
            self._pending[g, s] = 0.0
        obs.update(live)
        all_over = not len(playing)
        term["__all__"] = all_over and not len(truncated)
        trunc["__all__"] = all_over and bool(len(truncated))
        self._needs_reset = all_over
        return obs, rew, term, trunc, {}

    def get_observation_space(self, agent_id):
        return self._space

    def get_action_space(self, agent_id):
        return self._action_space

    # -- helpers ------------------------------------------------------------------------
    def agent(self, game: int, seat: int) -> str:
        """The current agent id of ``seat`` in ``game``."""
        return self._ids[game][seat]

    def agents_on_turn(self) -> list[str]:
        """The agent on turn in each playing game (the keys :meth:`step` expects)."""
        return [self._ids[g][s] for g, s in enumerate(self.vg.to_move.tolist())
                if not self._waiting[g]]

    def _new_ids(self, games: np.ndarray) -> None:
        """New agent ids for the four seats of ``games`` (a new hand)."""
        for g in games.tolist():
            for a in self._ids[g]:
                self._where.pop(a, None)
            k = int(self._hand[g])
            self._hand[g] = k + 1
            self._ids[g] = ids = [f"g{g}h{k}_p{s}" for s in range(4)]
            for s, a in enumerate(ids):
                self._where[a] = (g, s)

    def _on_turn(self, games: np.ndarray) -> dict:
        """Observation and mask of the seat on turn in each of ``games`` (copies)."""
        vg = self.vg
        o = vg.observations[games]
        m = vg.masks[games]
        seats = vg.to_move[games]
        ids = self._ids
        return {ids[g][s]: {"observations": o[k], "action_mask": m[k]}
                for k, (g, s) in enumerate(zip(games.tolist(), seats.tolist()))}

    def _final(self, games: np.ndarray, obs: dict, rew: dict, flags: dict,
               truncated: bool = False) -> None:
        """The end of the hand in ``games``: all four seats' final observations (zero
        masks), pending rewards and done flags (``flags``: terminateds, or truncateds at
        ``max_decisions``); the hands are recorded for the metrics."""
        fin = self.vg.final_observations[games]
        pend = self._pending[games]
        zero = np.zeros(self.vg.num_actions, np.int8)
        for k, g in enumerate(games.tolist()):
            for s in range(4):
                a = self._ids[g][s]
                obs[a] = {"observations": fin[k, s], "action_mask": zero.copy()}
                rew[a] = float(pend[k, s])
                flags[a] = True
            self._finished.append((float(pend[k, 0]), int(self._decisions[g]), truncated))
        self._pending[games] = 0.0
        self._decisions[games] = 0

    def pop_stats(self) -> tuple[int, list[tuple[float, int, bool]]]:
        """What happened since the last call (for the metrics callback of
        :func:`training.rllib.ppo_config`): the number of decisions taken (all seats,
        all games), and the hands finished, each ``(reward of seats 0 and 2 for the hand,
        its decisions, truncated at max_decisions)``."""
        out = (self._decisions_taken, self._finished)
        self._decisions_taken, self._finished = 0, []
        return out


#: the key of the agent steps :class:`CanastaVectorEnvRunner` logs (all agents together)
ALL_AGENTS = "__all__"


class CanastaVectorEnvRunner(MultiAgentEnvRunner):
    """RLlib's ``MultiAgentEnvRunner`` for :class:`CanastaVectorEnv` (``env: vector``),
    with two differences, both about bookkeeping (the sampling is RLlib's):

    - agent and module steps are logged once per env step, as totals (agent steps under
      the key :data:`ALL_AGENTS`, as RLlib's single-agent runner logs its one agent),
      not four metric updates per agent: a step of this env returns up to ``4 * games``
      observations. It also keeps PPO's sample loop (``count_steps_by: agent_steps``,
      which sums the per-agent counts of each runner) away from the agents that did not
      step during a whole sample call (a game waiting for the slowest one), whose
      empty per-agent sums RLlib reports as NaN.
    - the vector env around the envs does not deep-copy their observations (RLlib's
      default): :class:`CanastaVectorEnv` returns new arrays at every call.

    - per-agent episode metrics (``agent_episode_returns_mean``, ``agent_steps``, keyed by
      agent id) are not logged; the per-module ones are. RLlib's ``MetricsLogger`` keeps a
      stats entry for every key it was ever given, on the runner and merged into the
      algorithm's, and this env's agent ids are new for every hand (``g<game>h<hand>_p<seat>``):
      each finished episode added about ``2 * 4 * games * hands`` keys for good, and the
      reduce / merge of the metrics walks all of them at every iteration, so each training
      iteration would be slower than the last. The hands' returns are logged by the
      metrics callback instead.

    Written against ray 2.60 (the version the ``distributed`` extra pins): it overrides
    ``MultiAgentEnvRunner._increase_sampled_metrics`` and ``_log_episode_metrics`` and
    extends ``make_env``.
    """

    def make_env(self) -> None:
        super().make_env()
        self.env.copy = False

    def _increase_sampled_metrics(self, num_steps, next_obs, episode):
        log = self.metrics.log_value
        log(NUM_ENV_STEPS_SAMPLED, num_steps, reduce="sum")
        log(NUM_ENV_STEPS_SAMPLED_LIFETIME, num_steps, reduce="lifetime_sum",
            with_throughput=True)
        if episode.is_done:
            log(NUM_EPISODES, 1, reduce="sum")
            log(NUM_EPISODES_LIFETIME, 1, reduce="lifetime_sum")
        n = len(next_obs)
        log((NUM_AGENT_STEPS_SAMPLED, ALL_AGENTS), n, reduce="sum")
        log((NUM_AGENT_STEPS_SAMPLED_LIFETIME, ALL_AGENTS), n, reduce="lifetime_sum")
        for mid, k in Counter(episode.module_for(a) for a in next_obs).items():
            log((NUM_MODULE_STEPS_SAMPLED, mid), k, reduce="sum")
            log((NUM_MODULE_STEPS_SAMPLED_LIFETIME, mid), k, reduce="lifetime_sum")
        return num_steps


    def _log_episode_metrics(self, length, ret, sec, agents=None, modules=None,
                             agent_steps=None):
        # no per-agent keys: agent ids are per hand (see the class docstring)
        super()._log_episode_metrics(length, ret, sec,
                                     agents=None if agents is None else {},
                                     modules=modules,
                                     agent_steps=None if agent_steps is None else {})


class VectorEnvToModule(ConnectorV2):
    """The env-to-module connector of ``env: vector``, in place of RLlib's default pieces
    (``AddObservationsFromEpisodesToBatch``, ``AgentToModuleMapping``,
    ``BatchIndividualItems``, ``NumpyToTensor``; the module has no state and no time
    axis): the observations the env has just returned, of the agents that are not done,
    stacked into one tensor batch per module. RLlib's default pieces find the same agents
    by looking back through every agent's episode data at each step, which with
    ``4 * games`` agents per episode costs about a fifth of the env runner's time.

    Produces ``{module_id: {"obs": {"observations": float32 [B, obs],
    "action_mask": int8 [B, actions]}}}`` and, as ``AgentToModuleMapping`` does,
    ``shared_data["memorized_map_structure"]`` (``{module_id: [(episode id, agent id),
    ...]}``, row order) for RLlib's module-to-env pieces.

    Args:
        module_ids: the module ids (the output spaces are the agents' space per module).
    """

    def __init__(self, input_observation_space=None, input_action_space=None, *,
                 module_ids=(), **kwargs) -> None:
        self._module_ids = tuple(module_ids)
        super().__init__(input_observation_space, input_action_space, **kwargs)

    def _per_module(self, space):
        import gymnasium as gym

        if not isinstance(space, gym.spaces.Dict) or not self._module_ids:
            return space
        single = next(iter(space.spaces.values()))  # every agent's space is the same
        return gym.spaces.Dict(dict.fromkeys(self._module_ids, single))

    def recompute_output_observation_space(self, input_observation_space,
                                           input_action_space):
        return self._per_module(input_observation_space)

    def recompute_output_action_space(self, input_observation_space, input_action_space):
        return self._per_module(input_action_space)

    def __call__(self, *, rl_module, batch, episodes, explore=None, shared_data=None,
                 **kwargs):
        import torch

        from .module import MASK_KEY, OBS_KEY

        observations = kwargs.get(Columns.OBS)
        # the runner's extra pass over the episodes that just ended: nothing acts
        if observations is None or len(observations) != len(episodes):
            return batch
        terms = kwargs.get(Columns.TERMINATEDS)
        truncs = kwargs.get(Columns.TRUNCATEDS)
        obs_rows: dict = {}
        mask_rows: dict = {}
        keys: dict = {}
        for i, (episode, obs) in enumerate(zip(episodes, observations)):
            if episode.is_done:
                continue
            term = terms[i] if terms is not None else {}
            trunc = truncs[i] if truncs is not None else {}
            for aid, o in obs.items():
                if term.get(aid) or trunc.get(aid):
                    continue
                mid = episode.module_for(aid)
                if mid not in keys:
                    obs_rows[mid], mask_rows[mid], keys[mid] = [], [], []
                obs_rows[mid].append(o[OBS_KEY])
                mask_rows[mid].append(o[MASK_KEY])
                keys[mid].append((episode.id_, aid))
        if shared_data is not None:
            shared_data["memorized_map_structure"] = keys
        return {mid: {Columns.OBS: {OBS_KEY: torch.from_numpy(np.stack(obs_rows[mid])),
                                    MASK_KEY: torch.from_numpy(np.stack(mask_rows[mid]))}}
                for mid in keys}


def env_to_module_connector(env=None, spaces=None, device=None, *, module_ids=()):
    """``env_runners(env_to_module_connector=...)`` for ``env: vector`` (bind
    ``module_ids`` with ``functools.partial``)."""
    return VectorEnvToModule(module_ids=module_ids)
