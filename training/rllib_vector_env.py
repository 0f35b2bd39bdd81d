"""Many Canasta games as one RLlib ``MultiAgentEnv`` on the native batched core
(:class:`canasta_env.native.VectorGames`): one ``step`` call advances every game, and the
env runner's module decides for all of them in one forward (``env: vector`` in
:class:`training.rllib.RLlibConfig`).

The agents are the seats of ``games`` games: ``"g{i}_p{s}"`` is seat ``s`` (0..3) of game
``i``; its last character is the seat, so :func:`training.rllib.ppo_config`'s policy
mapping (one shared module, or ``team_{seat % 2}``) is the AEC path's. One RLlib episode
is one hand of every game of the batch:

- :meth:`CanastaVectorEnv.reset` returns the observation of the seat on turn in each game;
  each :meth:`~CanastaVectorEnv.step` takes one action per game that is still playing
  (the agent whose observation came last) and returns the next observation of each of
  those games (the seat on turn, with its action mask).
- Rewards are those of :class:`training.rllib.CanastaRLlibEnv` (PettingZoo's ``last()``):
  an agent receives, with its next observation, the reward its seat collected since its
  own last action. When a game's hand ends, all four seats of that game get their final
  observation (the position with the hand over, ``VectorGames.final_observations``) with
  an all-zero mask, their reward (hand score difference times ``reward_scale``, + for
  seats 0 / 2 and - for 1 / 3, or +-1 / 0 with ``reward="win_loss"``) and
  ``terminated``; after ``max_decisions`` decisions of a hand, ``truncated`` instead (the
  truncated position as final observation, for bootstrapping). That game then waits.
- When every game of the batch has finished its hand, ``"__all__"`` is done (terminated;
  truncated when the last games to finish were truncated) and RLlib resets the env; the
  next hands were already dealt by ``VectorGames`` when the previous ones ended.

Ending the episode only when the whole batch is done keeps the agent ids fixed (RLlib's
episodes never revive a done agent, and new ids per hand would grow RLlib's per-agent
metrics without bound); the games that finished early wait for the slowest, which costs
env calls with fewer games in them, not samples.

Deals: ``reset(seed=x)`` deals game ``i`` from the ``VectorGames`` seed ``x * games + i``
(so consecutive seeds, which RLlib gives its env runners, never share a deal); native
deals differ from the Python engine's. Finished hands are recorded for the metrics
callback (:meth:`CanastaVectorEnv.pop_stats`).

Needs the compiled core (as ``vec_env: batched`` of the sb3 trainer); imports no Ray
module outside the ``MultiAgentEnv`` base class and no torch.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
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


def agent_id(game: int, seat: int) -> str:
    """The agent id of ``seat`` in ``game``: ``"g{game}_p{seat}"``."""
    return f"g{game}_p{seat}"


class CanastaVectorEnv(MultiAgentEnv):
    """``games`` Canasta games stepped together (see the module docstring).

    Args:
        config: RLlib's ``env_config``: ``games`` (default :data:`DEFAULT_GAMES`) and the
            keyword arguments of :class:`canasta_env.raw_env` that a training config sets
            (``variant``, ``reward``, ``reward_scale``, ``max_decisions``,
            ``starting_scores`` / ``starting_round``), validated by ``raw_env``.

    Raises:
        ValueError: the native core is not built, or ``games`` is not an int >= 1.
        canasta_env.engine.OptionsError: a bad env option.
    """

    def __init__(self, config: dict | None = None) -> None:
        import gymnasium as gym

        from canasta_env import raw_env
        from canasta_env.native import VectorGames, available

        from .rllib_module import MASK_KEY, OBS_KEY

        super().__init__()
        kw = dict(config or {})
        games = kw.pop("games", DEFAULT_GAMES)
        if not available:
            raise ValueError("env: vector needs the native core, which is not built here "
                             "(reinstall with a C compiler: pip install -e .); use env: aec")
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise ValueError(f"games must be an int >= 1, got {games!r}")
        ref = raw_env(**kw)  # validates the options; its spaces are the AEC path's
        inner = ref.observation_space("player_0")
        space = gym.spaces.Dict({OBS_KEY: inner["observation"], MASK_KEY: inner["action_mask"]})
        self.num_games = games
        self.variant = ref.variant
        self.max_decisions = ref.max_decisions
        self.win_loss = ref.reward_mode == "win_loss"
        self.reward_scale = ref.reward_scale
        # the core's rewards are the score differences (reward_scale 1: exact in float32);
        # scaled here in float64 as raw_env does, or their sign with win_loss
        self.vg = VectorGames(games, ref.rules, seed=0, reward_scale=1.0,
                              starting_scores=ref.starting_scores,
                              starting_round=ref.starting_round)
        self._ids = [[agent_id(g, s) for s in range(4)] for g in range(games)]
        self._where = {a: (g, s) for g in range(games) for s, a in enumerate(self._ids[g])}
        self.possible_agents = [a for ids in self._ids for a in ids]
        self.agents = list(self.possible_agents)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents,
                                           gym.spaces.Discrete(self.vg.num_actions))
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._zero_mask = np.zeros(self.vg.num_actions, np.int8)
        self._pending = np.zeros((games, 4), np.float64)  # reward since each seat's last action
        self._over = np.zeros(games, bool)  # the game's hand ended in this episode
        self._decisions = np.zeros(games, np.int64)  # decisions of the running hand
        self._actions = np.zeros(games, np.int64)
        self._active = np.zeros(games, bool)
        self._finished: list[tuple[float, int, bool]] = []
        self._decisions_taken = 0
        self._needs_reset = True

    # -- RLlib MultiAgentEnv API -----------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode: one hand in every game. ``seed`` re-deals every game (game
        ``i`` from ``seed * games + i``); without it the games play the hands already
        dealt when their previous hands ended. ``options={"positions": {game: position}}``
        (or a list, one per game from game 0) then puts JSON positions (running hands,
        e.g. ``raw_env.position()``) into those games. Returns the observations of the
        seats on turn (one per game) and empty infos.

        Raises:
            ValueError / IndexError / canasta_env.engine.PositionError: a bad position or game
                index (``VectorGames.set_position``'s errors).
        """
        if seed is not None:
            self.vg.reset([int(seed) * self.num_games + i for i in range(self.num_games)])
        positions = (options or {}).get("positions")
        if positions is not None:
            items = positions.items() if isinstance(positions, dict) else enumerate(positions)
            for g, pos in items:
                self.vg.set_position(int(g), pos)
        self._pending[:] = 0.0
        self._over[:] = False
        self._decisions[:] = 0
        self._needs_reset = False
        games = np.arange(self.num_games)
        return self._on_turn(games), {}

    def step(self, action_dict: dict):
        """Apply one action per playing game (keyed by the agent on turn there).

        Raises:
            ValueError: an unknown agent, an agent not on turn, a game without an action,
                or a step after ``"__all__"`` was done without :meth:`reset`.
            canasta_env.engine.IllegalActionError: an action that is not legal (the masks make it
                a bug); no game was changed.
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
            raise ValueError(f"unknown agent {e.args[0]!r}; agents are g<game>_p<seat> for "
                             f"{self.num_games} games") from None
        playing = np.flatnonzero(~self._over)
        if n != len(playing) or not np.array_equal(np.sort(games), playing) or \
                (vg.to_move[games] != seats).any():
            raise ValueError(f"step takes one action per playing game, from the agent on turn "
                             f"there: expected {sorted(self._agents_on_turn())}, got "
                             f"{sorted(action_dict)}"[:2000])
        active = self._active
        active[:] = False
        active[games] = True
        self._actions[games] = acts
        vg.step(self._actions, active)
        self._decisions[games] += 1
        self._decisions_taken += n
        done = vg.dones[games]
        ended = games[done]
        going = games[~done]
        truncated = going[self._decisions[going] >= self.max_decisions]
        if len(truncated):
            vg.redeal(truncated)  # writes their final_observations first
            going = going[self._decisions[going] < self.max_decisions]
        obs = self._on_turn(going)
        rew = {a: 0.0 for a in obs}
        self._take_rewards(going, rew)
        term: dict = {}
        trunc: dict = {}
        if len(ended):
            diff = vg.rewards[ended].astype(np.float64)
            self._pending[ended] += np.sign(diff) if self.win_loss else diff * self.reward_scale
            self._final(ended, obs, rew, term, truncated=False)
        if len(truncated):
            self._final(truncated, obs, rew, trunc, truncated=True)
        all_over = bool(self._over.all())
        term["__all__"] = all_over and not len(truncated)
        trunc["__all__"] = all_over and bool(len(truncated))
        self._needs_reset = all_over
        return obs, rew, term, trunc, {}

    def get_observation_space(self, agent_id):
        return self.observation_spaces[agent_id]

    def get_action_space(self, agent_id):
        return self.action_spaces[agent_id]

    # -- helpers ------------------------------------------------------------------------
    def _agents_on_turn(self) -> list[str]:
        return [self._ids[g][self.vg.to_move[g]] for g in np.flatnonzero(~self._over)]

    def _on_turn(self, games: np.ndarray) -> dict:
        """Observation and mask of the seat on turn in each of ``games`` (copies)."""
        vg = self.vg
        o = vg.observations[games]
        m = vg.masks[games]
        seats = vg.to_move[games]
        ids = self._ids
        return {ids[g][s]: {"observations": o[k], "action_mask": m[k]}
                for k, (g, s) in enumerate(zip(games.tolist(), seats.tolist()))}

    def _take_rewards(self, games: np.ndarray, rew: dict) -> None:
        """Hand the pending reward of the seat on turn in ``games`` to its agent."""
        if not len(games):
            return
        seats = self.vg.to_move[games].astype(np.int64)
        r = self._pending[games, seats]
        if r.any():
            for g, s, x in zip(games.tolist(), seats.tolist(), r.tolist()):
                rew[self._ids[g][s]] = x
            self._pending[games, seats] = 0.0

    def _final(self, games: np.ndarray, obs: dict, rew: dict, flags: dict,
               truncated: bool) -> None:
        """The end of the hand in ``games``: all four seats' final observations (zero
        masks), pending rewards and done flags; the games wait for the episode's end."""
        fin = self.vg.final_observations[games]
        pend = self._pending[games]
        for k, g in enumerate(games.tolist()):
            for s in range(4):
                a = self._ids[g][s]
                obs[a] = {"observations": fin[k, s], "action_mask": self._zero_mask.copy()}
                rew[a] = float(pend[k, s])
                flags[a] = True
            self._finished.append((float(pend[k, 0]), int(self._decisions[g]), truncated))
        self._pending[games] = 0.0
        self._over[games] = True

    def pop_stats(self) -> tuple[int, list[tuple[float, int, bool]]]:
        """What happened since the last call (for the metrics callback of
        :func:`training.rllib.ppo_config`): the number of decisions taken (all seats,
        all games), and the hands finished, each ``(reward of seats 0 and 2 for the hand,
        its decisions, truncated)``."""
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

    Written against ray 2.60 (the version the ``distributed`` extra pins): it overrides
    ``MultiAgentEnvRunner._increase_sampled_metrics`` and extends ``make_env``.
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
