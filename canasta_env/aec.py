"""PettingZoo AEC environment for partnership Canasta.

=====================  ==========================================================
Import                 ``from canasta_env import env, raw_env``
Actions                Discrete(``NUM_ACTIONS``) (91 for Classic, 98 for
                       Hand and Foot: the Classic ids plus 7 appended), see
                       :mod:`canasta_env.engine.actions`
Agents                 ``player_0`` .. ``player_3``; partners 0+2 and 1+3
Parallel API           no (turn-based)
Observation            Dict(observation: Box(0, inf, (OBS_SIZE,), float32),
                       action_mask: Box(0, 1, (NUM_ACTIONS,), int8)), layout in
                       :mod:`canasta_env.observation` (OBS_SIZE 202 for Classic,
                       245 for Hand and Foot: the Classic layout plus appended
                       pieces: feet, round, books, wild melds)
Action mask            exactly the legal actions of the agent on turn; all
                       zeros for agents not on turn
Rewards                at the end of each hand both partners of a partnership
                       get the same reward and the partnerships' rewards sum to
                       zero. ``reward="score_diff"`` (default): (our hand score -
                       their hand score) * ``reward_scale`` (1/1000 by default:
                       points / 1000). ``reward="win_loss"``: +1 / -1 / 0 for the
                       game (``episode="game"``) or for the hand's score
                       difference (``episode="hand"``)
Episode                ``episode="hand"`` (default): one hand; ``"game"``: hands
                       until a partnership reaches the target score (5,000), or
                       Hand and Foot's four rounds
Truncation             ``max_decisions`` decisions (default 2,000) truncate the
                       episode for all agents
=====================  ==========================================================

Turn structure: one decision per step. The agent on turn is the player whose turn
it is, except after "ask partner: may I go out?", when the partner answers.

Infos (``numeric_infos=False``, the default): ``infos[agent]["phase"]`` is the engine
:class:`Phase` name (a str); at the end of a hand every agent's info holds
``"score_sheets"`` (both partnerships' score sheets as dicts of :data:`SHEET_ROWS`,
partnership 0 = seats 0+2 first) and ``"hand_scores"`` (``[int, int]``), on that step only.

Numeric infos (``numeric_infos=True``), for libraries that turn every info into a tensor
and fix the info keys at reset (TorchRL's ``PettingZooWrapper``): every agent's info has
the same four keys at every step, from ``reset`` on, all numbers:

=================  ===========================  =========================================
key                value                        meaning
=================  ===========================  =========================================
``phase``          int                          :class:`Phase` value (DRAW 0, PICKUP 1,
                                                MELD 2, ANSWER 3, HAND_OVER 4,
                                                GAME_OVER 5)
``hand_over``      int, 0 or 1                  1 on the step that ended a hand
``hand_scores``    int64 ``(2,)``               the hand score per partnership
                                                (partnership 0 first); zeros when
                                                ``hand_over`` is 0
``score_sheets``   int64 ``(2, 8)``             both score sheets, rows in
                                                :data:`SHEET_ROWS` order (points);
                                                zeros when ``hand_over`` is 0
=================  ===========================  =========================================

An illegal action raises :class:`~canasta_env.engine.IllegalActionError` in
``raw_env``; ``env()`` wraps with PettingZoo's ``TerminateIllegalWrapper`` (the
offender gets ``illegal_reward``, the episode ends).

Variants: ``variant="classic"`` (default) or ``variant="hand_and_foot"`` (docs/RULES.md §3;
every rules option of :class:`~canasta_env.engine.RulesOptions` can still be changed).
The environment contract: docs/RULES.md §7.

Backends: ``backend="native"`` (the default when the compiled core is built,
:data:`canasta_env.native.available`) plays on :class:`canasta_env.native.NativeGame`;
``backend="python"`` (the default otherwise) on the Python engine. Both follow the same
rules and give the same observations, masks, rewards and infos, but **they deal
differently**: the native core has its own card generator, so the same seed gives a
different deal on each backend. The backend is part of what a seed means:
``reset(seed=...)`` is reproducible per backend. Positions loaded with
``reset(options={"position": ...})`` play the same on both. The environment variable
``CANASTA_BACKEND`` (``native`` / ``python``) changes the default.

Version history: v0 — first release; Hand and Foot variant added (Classic unchanged);
native backend (default when built).
"""

from __future__ import annotations

import copy
import math
import os
import random
from operator import attrgetter
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import native
from .backend import GameBackend, PythonGame
from .engine import actions as A
from .engine.game import SHEET_ROWS, Game, Phase, PositionError, from_position
from .engine.options import OptionsError, RulesOptions, preset
from .observation import obs_size
from .render import render_text

AGENTS = tuple(f"player_{i}" for i in range(4))
SCORE_BANDS = ((-1000, -5), (0, 1495), (1500, 2995), (3000, 4995))
"""Cumulative-score bands (points, inclusive) that select the four Classic opening
minimums 15 / 50 / 90 / 120; ``starting_scores="sample"`` draws a band uniformly, then a
multiple of 5 in it, per partnership."""

BACKENDS = ("native", "python")


def default_backend() -> str:
    """``$CANASTA_BACKEND`` when set, else ``"native"`` if the compiled core is built,
    else ``"python"`` (a ``"native"`` default without the core falls back to Python)."""
    name = os.environ.get("CANASTA_BACKEND", "").strip().lower() or "native"
    if name not in BACKENDS:
        raise OptionsError(f"CANASTA_BACKEND must be one of {BACKENDS}, got {name!r}")
    return "native" if name == "native" and native.available else "python"


def env(**kwargs: Any) -> AECEnv:
    """The Canasta AEC environment wrapped like PettingZoo's classic environments
    (``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``:
    PettingZoo's, subclassed here only to read the per-step attributes straight from the
    raw env, see :class:`TerminateIllegalWrapper`).

    Keyword arguments are those of :class:`raw_env`, plus ``illegal_reward`` (-1.0).
    """
    illegal_reward = kwargs.pop("illegal_reward", -1.0)
    e: AECEnv = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection",
                           "num_agents", "agents"})
_FORWARDED = ("agents", "rewards", "terminations", "truncations", "infos", "agent_selection",
              "_cumulative_rewards")


def _forward(name: str, checked: bool) -> property:
    """A property reading / writing ``name`` on the raw env (``checked``: refused before
    ``reset``, like ``OrderEnforcingWrapper``)."""

    def set_(self, value):
        setattr(self._raw, name, value)

    if not checked:
        return property(attrgetter(f"_raw.{name}"), set_, doc=f"``{name}`` of the raw env")

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, set_, doc=f"``{name}`` of the raw env")


class _Raw:
    """Keeps the raw env (``_raw``) of the wrapped chain for the forwarding properties."""

    def __init__(self, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        super().__init__(env, *args, **kwargs)
        self._raw = env.unwrapped

    def __copy__(self):
        """An independent copy of the whole wrapped env (as ``copy.deepcopy``): a live
        game is never shared between two envs (search and planning code copies envs)."""
        return copy.deepcopy(self)


class TerminateIllegalWrapper(_Raw, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper``; the env's per-step attributes
    (``agent_selection``, ``rewards``, ``terminations``...) read straight from the raw env.

    PettingZoo's wrappers forward a missing attribute one level down at a time
    (``BaseWrapper.__getattr__``): through :func:`env`'s three wrappers, every read of
    those attributes was three ``__getattr__`` calls, the largest cost left in ``env()``
    after the native core. The wrappers define none of them, so the values are the same.
    """


class AssertOutOfBoundsWrapper(_Raw, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` (per-step attributes read from the raw
    env, see :class:`TerminateIllegalWrapper`)."""


class OrderEnforcingWrapper(_Raw, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (per-step attributes read from the raw env,
    see :class:`TerminateIllegalWrapper`, still refused before ``reset``)."""


for _name in _FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _forward(_name, False))
    setattr(AssertOutOfBoundsWrapper, _name, _forward(_name, False))
    setattr(OrderEnforcingWrapper, _name, _forward(_name, _name in _BEFORE_RESET))


class raw_env(AECEnv):  # noqa: N801  (PettingZoo naming convention)
    """Unwrapped Canasta AEC environment.

    Args:
        variant: ``"classic"`` (default) or ``"hand_and_foot"``.
        episode: ``"hand"`` or ``"game"``.
        reward: ``"score_diff"`` or ``"win_loss"``.
        reward_scale: multiplier of the score difference (default 0.001 / point).
        starting_round: the round (1-based) a Hand and Foot episode starts in (default
            1), or ``"sample"`` (uniform over the rounds, so every round's opening
            minimum occurs); Classic has no rounds and takes only 1.
        starting_scores: ``(us, them)`` cumulative scores of partnerships 0 and 1 at
            reset, or ``"sample"`` (see :data:`SCORE_BANDS`); default (0, 0).
        max_decisions: decisions after which the episode is truncated (default 2,000).
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        backend: ``"native"`` (compiled core) or ``"python"`` (Python engine); default
            :func:`default_backend`. Same behaviour, different deals for a seed (see the
            module docstring).
        numeric_infos: ``False`` (default): PettingZoo-style infos (the phase name; score
            sheets only at the end of a hand); ``True``: the same keys with numbers at
            every step (see the module docstring), e.g. for TorchRL.
        **rules: any field of :class:`~canasta_env.engine.RulesOptions`, e.g.
            ``black_three_freezes=True``.

    Raises:
        OptionsError: unknown or bad option, at construction: among them rules whose
            pack is too small for the worst-case deal (``4 * (hand_size + foot_size) +
            1 + draw_count <= 46 * decks``, see ``RulesOptions.deal_worst_case``).
    """

    metadata = {"name": "canasta_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, variant: str = "classic", episode: str = "hand",
                 reward: str = "score_diff", reward_scale: float = 0.001,
                 starting_scores: tuple[int, int] | str = (0, 0), max_decisions: int = 2000,
                 render_mode: str | None = None, starting_round: int | str = 1,
                 backend: str | None = None, numeric_infos: bool = False,
                 **rules: Any) -> None:
        super().__init__()
        self.rules: RulesOptions = preset(variant, **rules)
        if backend is None:
            backend = default_backend()
        elif backend not in BACKENDS:
            raise OptionsError(f"backend must be one of {BACKENDS}, got {backend!r}")
        elif backend == "native" and not native.available:
            raise OptionsError("backend='native': the compiled core is not built (reinstall "
                               "with a C compiler: pip install -e .); use backend='python'")
        if backend == "native":
            try:  # options the native core cannot hold (e.g. > 32 opening minimums)
                native.NativeGame(self.rules, seed=0)
            except ValueError as e:
                raise OptionsError(f"backend='native': {e}") from None
        self.backend = backend
        self._game_cls = native.NativeGame if backend == "native" else PythonGame
        if episode not in ("hand", "game"):
            raise OptionsError(f"episode must be 'hand' or 'game', got {episode!r}")
        if reward not in ("score_diff", "win_loss"):
            raise OptionsError(f"reward must be 'score_diff' or 'win_loss', got {reward!r}")
        if not isinstance(reward_scale, (int, float)) or isinstance(reward_scale, bool) or \
                not math.isfinite(reward_scale) or reward_scale <= 0:
            raise OptionsError(f"reward_scale must be a positive number, got {reward_scale!r}")
        if starting_scores != "sample":
            ok = (isinstance(starting_scores, (tuple, list)) and len(starting_scores) == 2
                  and all(isinstance(s, int) and not isinstance(s, bool) for s in starting_scores))
            if not ok:
                raise OptionsError("starting_scores must be 'sample' or two ints, got "
                                   f"{starting_scores!r}")
            starting_scores = (int(starting_scores[0]), int(starting_scores[1]))
        n_rounds = max(self.rules.rounds, 1)
        if starting_round != "sample" and (isinstance(starting_round, bool) or not isinstance(
                starting_round, int) or not 1 <= starting_round <= n_rounds):
            raise OptionsError(f"starting_round must be 'sample' or a round 1..{n_rounds}, got "
                               f"{starting_round!r}")
        if not isinstance(max_decisions, int) or isinstance(max_decisions, bool) or \
                max_decisions < 1:
            raise OptionsError(f"max_decisions must be a positive int, got {max_decisions!r}")
        if not isinstance(numeric_infos, bool):
            raise OptionsError(f"numeric_infos must be True or False, got {numeric_infos!r}")
        if render_mode not in (None, "ansi", "human"):
            raise OptionsError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.variant = variant
        self.episode = episode
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)
        self.starting_scores = starting_scores
        self.starting_round = starting_round
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.numeric_infos = numeric_infos
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.num_actions = n_act = A.num_actions(self.rules)
        self.obs_size = n_obs = obs_size(self.rules)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=np.inf, shape=(n_obs,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(n_act,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(n_act) for a in AGENTS}
        self._np_random_seed: int | None = None
        self._rng = random.Random()
        # the game, through the one interface of canasta_env.backend: NativeGame (the
        # compiled core) or PythonGame (the Python engine)
        self._g: GameBackend | None = None
        self._mirror: Game | None = None
        self._zero_mask = np.zeros(n_act, dtype=np.int8)

    def __copy__(self) -> raw_env:
        """An independent copy (as ``copy.deepcopy``): the game (its deal generator
        included), the env's generator and every per-step attribute, so the copy plays
        on exactly as this env would, and stepping one never moves the other. Planning
        code (MCTS, OpenSpiel-style search) copies live envs; a shallow copy sharing the
        game would corrupt the original. ``pickle`` works the same way (the native game
        is pickled as its JSON position and generator state)."""
        return copy.deepcopy(self)

    @property
    def game(self) -> Game | None:
        """The current game as a Python engine :class:`~canasta_env.engine.Game`, to read.

        On ``backend="python"`` it is the live game. On ``backend="native"`` it is a
        snapshot of the native state taken when read: a reference kept across
        :meth:`step` keeps showing the position it was read at, so read ``env.game``
        again after each step (the env rebuilds it at most once per step). Never play
        through it: :meth:`step` is the only way that keeps the env's rewards, masks and
        infos right (changes made to a snapshot are not seen by the env)."""
        g = self._g
        if g is None or self.backend == "python":
            return g
        if self._mirror is None:
            self._mirror = g.to_game(copy=True)  # a whole snapshot: its log never grows
        return self._mirror

    def openings(self) -> tuple[int, list[int], list[bool]]:
        """(hand number, opening minimum per partnership in points, opened per
        partnership) of the current hand, read from the game on either backend without
        building :attr:`game` (for per-step bookkeeping such as evaluation)."""
        g = self._g
        return g.hand_number, list(g.minimum), list(g.opened)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode. ``seed`` fixes the deal (and every later shuffle and
        sampled starting score); ``options={"position": dict}`` starts from a saved
        JSON position instead."""
        if seed is not None:
            # an int, numpy's included (gymnasium passes them); not a bool, float or str
            # (random.seed would take those silently, or refuse numpy's ints)
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
                raise TypeError(f"seed must be an int or None, got {seed!r}"[:200])
            self._rng.seed(int(seed))
        game_seed = self._rng.getrandbits(63)
        if options and "position" in options:
            game = from_position(options["position"])
            if game.to_move is None:
                raise PositionError(f"the position has nobody on turn (phase "
                                    f"{game.phase.name}); deal the next hand first "
                                    f"(Game.next_hand) or pass a position of a running hand")
            if A.num_actions(game.options) != self.num_actions or \
                    obs_size(game.options) != self.obs_size:
                raise OptionsError(
                    f"the position is a {game.options.variant!r} game; this env plays "
                    f"{self.variant!r} (action and observation sizes differ)")
            if self.backend == "native":
                try:
                    game = native.NativeGame.from_game(game)
                except ValueError as e:
                    raise PositionError(f"backend='native': {e}") from None
            else:
                game = PythonGame.adopt(game)
        else:
            scores = self._sample_scores() if self.starting_scores == "sample" \
                else self.starting_scores
            if self.starting_round == "sample":
                first = self._rng.randrange(max(self.rules.rounds, 1))
            else:
                first = self.starting_round - 1
            game = self._game_cls(self.rules, seed=game_seed, scores=scores, first_round=first)
        self._g = game
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: self._neutral_info() if self.numeric_infos else {} for a in AGENTS}
        self.num_decisions = 0
        self._sheets_shown = False
        self._refresh()

    def _sample_scores(self) -> tuple[int, int]:
        out = []
        for _ in range(2):
            lo, hi = self._rng.choice(SCORE_BANDS)
            out.append(5 * self._rng.randint(lo // 5, hi // 5))
        return out[0], out[1]

    def _refresh(self) -> None:
        """Recompute what depends on the position: agent on turn, mask, infos."""
        g = self._g
        self._mirror = None
        seat = g.to_move
        self._obs_cache: dict[tuple[str, bool], dict] = {}
        if seat is not None:
            self.agent_selection = AGENTS[seat]
            self._mask = g.action_mask()
        else:
            self._mask = self._zero_mask
        phase = int(g.phase) if self.numeric_infos else g.phase.name
        for a in AGENTS:
            self.infos[a]["phase"] = phase

    @staticmethod
    def _neutral_info() -> dict[str, Any]:
        """A numeric info before / between the ends of hands (see the module docstring)."""
        return {"phase": 0, "hand_over": 0, "hand_scores": np.zeros(2, dtype=np.int64),
                "score_sheets": np.zeros((2, len(SHEET_ROWS)), dtype=np.int64)}

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 (OBS_SIZE,), "action_mask": int8 (NUM_ACTIONS,)}``
        for ``agent``; computed once per step and agent (and again if the agent is
        terminated from outside, e.g. by ``TerminateIllegalWrapper``: its mask is zeros)."""
        if self._g is None:
            raise RuntimeError("call reset() before observe()")
        dead = self.terminations.get(agent, True) or self.truncations.get(agent, True)
        cached = self._obs_cache.get((agent, dead))
        if cached is not None:
            return cached
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; agents are {list(AGENTS)}")
        seat = AGENTS.index(agent)
        on_turn = self._g.to_move == seat and not dead
        obs = {
            "observation": self._g.encode(seat),
            "action_mask": self._mask.copy() if on_turn else self._zero_mask.copy(),
        }
        self._obs_cache[(agent, dead)] = obs
        return obs

    def action_mask(self) -> np.ndarray:
        """Mask (int8, ``(NUM_ACTIONS,)``) of the agent on turn (zeros once it is
        terminated or truncated)."""
        a = self.agent_selection
        if self.terminations.get(a, True) or self.truncations.get(a, True):
            return self._zero_mask
        return self._mask

    # ------------------------------------------------------------------ step
    def step(self, action: int | None) -> None:
        """Apply ``action`` for :attr:`agent_selection`.

        Raises:
            IllegalActionError: ``action`` is not legal for the agent on turn.
        """
        if self._g is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self._g
        g.apply(int(action) if isinstance(action, (np.integer,)) else action)
        # only after the engine accepted the action: a refused one changes nothing
        self._cumulative_rewards[agent] = 0.0
        self.num_decisions += 1
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if self._sheets_shown:  # score sheets belong to the step that ended a hand
            if self.numeric_infos:
                self.infos = {a: self._neutral_info() for a in AGENTS}
            else:
                for info in self.infos.values():
                    info.pop("score_sheets", None)
                    info.pop("hand_scores", None)
            self._sheets_shown = False
        if g.hand_over:
            self._hand_over()
        elif self.num_decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(AGENTS, True)
        self._refresh()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_over(self) -> None:
        g = self._g
        sheets = g.sheets
        diff = sheets[0].hand_score - sheets[1].hand_score
        game_end = g.game_over or self.episode == "hand"
        if self.reward_mode == "score_diff":
            r0 = diff * self.reward_scale
        elif self.episode == "game":
            r0 = 0.0 if not g.game_over else float((g.winner == 0) - (g.winner == 1))
        else:
            r0 = float(np.sign(diff))
        for i, a in enumerate(AGENTS):
            self.rewards[a] = r0 if i % 2 == 0 else -r0
            if self.numeric_infos:
                self.infos[a] = {
                    "phase": 0, "hand_over": 1,
                    "hand_scores": np.array([s.hand_score for s in sheets], dtype=np.int64),
                    "score_sheets": np.array([[getattr(s, k) for k in SHEET_ROWS]
                                              for s in sheets], dtype=np.int64)}
            else:
                self.infos[a]["score_sheets"] = [s.as_dict() for s in sheets]
                self.infos[a]["hand_scores"] = [sheets[0].hand_score, sheets[1].hand_score]
        self._sheets_shown = True
        if game_end:
            self.terminations = dict.fromkeys(AGENTS, True)
        else:
            g.next_hand()

    # ------------------------------------------------------------------ misc
    def position(self) -> dict:
        """The current JSON position (see :func:`canasta_env.engine.to_position`)."""
        return self._g.to_position()

    def render(self) -> str | None:
        """``"ansi"``: return the table as text; ``"human"``: print it."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        seat = AGENTS.index(self.agent_selection)
        text = render_text(self.game, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "AGENTS", "SCORE_BANDS", "SHEET_ROWS", "Phase"]


def _register() -> None:
    """Register ``canasta_v0`` in PettingZoo's registry when it has one."""
    try:
        from pettingzoo.env_registry import registration
    except ImportError:  # older PettingZoo: no registry
        return
    if "canasta_v0" not in registration.aec_registry:
        registration.register("aec", "canasta_v0", entry_point="canasta_env.aec:env")


_register()
