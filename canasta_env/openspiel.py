"""OpenSpiel games: Canasta and Hand and Foot as Python games registered with pyspiel.

    import canasta_env.openspiel  # registers the games (needs open_spiel: the interop extra)
    import pyspiel

    game = pyspiel.load_game("python_canasta")          # or "python_hand_and_foot"
    state = game.new_initial_state()                    # a chance node: the deal
    state.apply_action(7)                               # deal 7 (env.reset(seed=7))

================================  ==========================================================
short name                        ``python_canasta`` (Classic), ``python_hand_and_foot``
players                           4; player ``p`` is seat ``p`` (``player_p`` of the env);
                                  partners 0+2 and 1+3
dynamics / information            sequential, imperfect information, explicit chance
chance                            the first node: the deal, ``num_deals`` equally likely
                                  outcomes; outcome ``i`` is the deal of
                                  ``canasta_env.raw_env(...).reset(seed=i)`` on the chosen
                                  backend (the deal, the first dealer and, with
                                  ``sample_scores=True``, the cumulative scores). The
                                  stock's order is fixed by the deal: no later chance node
episode                           one hand (Hand and Foot: the first round)
actions                           the env's action ids (``Discrete`` 91 Classic, 98 Hand and
                                  Foot; :mod:`canasta_env.engine.actions`), legal actions
                                  exactly the env's mask, sorted
observation / information-state   float32 ``(202,)`` Classic / ``(245,)`` Hand and Foot:
tensor                            the env's ``observe(agent)["observation"]`` for that seat
                                  (layout in :mod:`canasta_env.observation`), the same for
                                  both tensors
information-state string          the player, the public history of decisions (every
                                  decision is public; the cards drawn from the stock are
                                  in the observation), then the observation: equal for two
                                  states the player cannot tell apart
returns                           at the end of the hand, the env's rewards: (our hand score
                                  - theirs) * ``reward_scale``; partners equal, zero-sum. A
                                  hand cut at ``max_decisions`` ends with returns 0 (the
                                  env's truncation)
utility                           zero-sum, terminal rewards only
================================  ==========================================================

Parameters (``pyspiel.load_game("python_canasta(num_deals=1000)")``): ``num_deals``
(65,536), ``max_decisions`` (2,000), ``reward_scale`` (0.001), ``score_0`` / ``score_1``
(the partnerships' cumulative scores before the hand, 0 / 0; they set the opening
minimums), ``sample_scores`` (``False``; ``True``: the env's ``starting_scores="sample"``,
drawn from the deal's seed), ``backend`` (``""``: the env's default, ``"native"``,
``"python"``).

Determinisation for ISMCTS and other sampling algorithms:
:meth:`CanastaState.resample_from_infostate` deals the cards a player cannot see (the
other hands less the cards known from pile pickups, the stock, the feet not yet picked
up) again at random, with red 3s never in a hand, as the project's search does
(``core/search.c``); the player's information-state string is unchanged. While a partner
answers "may I go out?" the asker's hand is kept as well (see :func:`determinise`).

The rules engine never imports this module; it imports ``pyspiel`` at import time and
raises ``ImportError`` with the install line when open_spiel is missing.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("canasta_env.openspiel needs open_spiel: pip install -e '.[interop]' "
                      f"({e})") from e

from . import native as _native
from .aec import raw_env
from .engine import actions as A
from .engine.cards import RED_THREE
from .engine.state import Phase
from .native import NativeGame

__all__ = ["GAMES", "CanastaGame", "CanastaState", "HandAndFootGame", "determinise", "register"]

#: short name -> variant
GAMES = {"python_canasta": "classic", "python_hand_and_foot": "hand_and_foot"}
_DEFAULTS = {"num_deals": 1 << 16, "max_decisions": 2000, "reward_scale": 0.001,
             "score_0": 0, "score_1": 0, "sample_scores": False, "backend": ""}
#: bound on |return| per point of reward_scale (a hand's score difference, points)
_MAX_POINTS = 50_000


def _game_type(short_name: str) -> pyspiel.GameType:
    long = {"classic": "Python Canasta", "hand_and_foot": "Python Hand and Foot"}
    return pyspiel.GameType(
        short_name=short_name, long_name=long[GAMES[short_name]],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4, min_num_players=4,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS))


class _Box:
    """Holds the native (or Python-engine) game; ``copy.deepcopy`` copies it with the
    game's own ``copy()`` (what OpenSpiel's ``State.clone`` calls)."""

    __slots__ = ("g",)

    def __init__(self, g: Any) -> None:
        self.g = g

    def __deepcopy__(self, memo: dict) -> _Box:
        return _Box(None if self.g is None else self.g.copy())

    def __reduce__(self):
        """Pickled as the JSON position (lossless) and the game's class."""
        if self.g is None:
            return _Box, (None,)
        return _unpickle_box, (type(self.g), self.g.to_position())


def _unpickle_box(cls: type, position: dict) -> _Box:
    return _Box(cls.from_position(position, check_moves=False))


class CanastaGame(pyspiel.Game):
    """One hand of Canasta (or of Hand and Foot) as an OpenSpiel game (see the module
    docstring). Build it with ``pyspiel.load_game("python_canasta")``.

    Raises:
        ValueError: a bad parameter (``num_deals`` < 1, ``max_decisions`` < 1, a
            non-positive ``reward_scale``, an unknown ``backend``:
            :class:`~canasta_env.engine.OptionsError` is a ``ValueError``).
    """

    def __init__(self, params: dict | None = None, short_name: str = "python_canasta") -> None:
        p = {**_DEFAULTS, **(params or {})}
        self.variant = GAMES[short_name]
        if int(p["num_deals"]) < 1:
            raise ValueError(f"num_deals must be >= 1, got {p['num_deals']}")
        scores = "sample" if p["sample_scores"] else (int(p["score_0"]), int(p["score_1"]))
        self.num_deals = int(p["num_deals"])
        self.reward_scale = float(p["reward_scale"])
        self.env = raw_env(variant=self.variant, max_decisions=int(p["max_decisions"]),
                           reward_scale=self.reward_scale, starting_scores=scores,
                           backend=p["backend"] or None)
        self.max_decisions = self.env.max_decisions
        self.table = A.table(self.env.rules)
        bound = _MAX_POINTS * self.reward_scale
        info = pyspiel.GameInfo(
            num_distinct_actions=self.env.num_actions, max_chance_outcomes=self.num_deals,
            num_players=4, min_utility=-bound, max_utility=bound, utility_sum=0.0,
            max_game_length=self.max_decisions + 1)
        super().__init__(_game_type(short_name), info, {**p})

    def new_initial_state(self) -> CanastaState:
        """The chance node of the deal."""
        return CanastaState(self)

    def deal(self, outcome: int) -> Any:
        """The game (``NativeGame``, or the Python engine's) of deal ``outcome``: the one
        ``raw_env.reset(seed=outcome)`` starts with these parameters."""
        self.env.reset(seed=int(outcome))
        return self.env._g  # noqa: SLF001 - the env's game for that seed, a new object per reset

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        """The observer of both tensors and strings: the env's observation."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return _Observer(self.env.obs_size)


class CanastaState(pyspiel.State):
    """A state of :class:`CanastaGame`: the deal's chance node, then the hand."""

    def __init__(self, game: CanastaGame) -> None:
        super().__init__(game)
        self._box = _Box(None)
        self._decisions: list[int] = []  # public history of decisions (no chance outcome)

    # ---------------------------------------------------------------- the game inside
    @property
    def native(self) -> Any:
        """The game being played (``NativeGame`` or the Python engine's ``PyNativeGame``;
        ``None`` before the deal): read it, never change it."""
        return self._box.g

    def _g(self) -> Any:
        return self._box.g

    def _truncated(self) -> bool:
        return len(self._decisions) >= self.get_game().max_decisions

    # ---------------------------------------------------------------- OpenSpiel API
    def current_player(self) -> int:
        g = self._box.g
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if g.hand_over or self._truncated():
            return pyspiel.PlayerId.TERMINAL
        return int(g.to_move)

    def is_terminal(self) -> bool:
        g = self._box.g
        return g is not None and (g.hand_over or self._truncated())

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(int(a) for a in self._box.g.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self.get_game().num_deals
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action: int) -> None:
        if self._box.g is None:
            self._box = _Box(self.get_game().deal(action))
            return
        self._box.g.apply(int(action))
        self._decisions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self.get_game().table.describe(int(action))

    def returns(self) -> list[float]:
        g = self._box.g
        if g is None or not g.hand_over:
            return [0.0] * 4
        sheets = g.sheets
        r0 = (sheets[0].hand_score - sheets[1].hand_score) * self.get_game().reward_scale
        return [r0, -r0, r0, -r0]

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return self._obs(self._player(player)).tolist()

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self._obs(self._player(player)).tolist()

    def observation_string(self, player: int | None = None) -> str:
        return f"p{self._player(player)} " + _obs_text(self._obs(self._player(player)))

    def information_state_string(self, player: int | None = None) -> str:
        p = self._player(player)
        return f"p{p} [{','.join(map(str, self._decisions))}] " + _obs_text(self._obs(p))

    def _player(self, player: int | None) -> int:
        if player is None:
            player = self.current_player()
        if not 0 <= int(player) < 4:
            raise ValueError(f"player must be 0..3, got {player}")
        return int(player)

    def _obs(self, player: int) -> np.ndarray:
        g = self._box.g
        if g is None:
            return np.zeros(self.get_game().env.obs_size, dtype=np.float32)
        return g.encode(player)

    def __str__(self) -> str:
        g = self._box.g
        if g is None:
            return "(chance: the deal)"
        from .render import render_text

        seat = g.to_move if g.to_move is not None else 0
        return render_text(g.to_game(), seat)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CanastaState:
        """A state ``player_id`` cannot tell from this one: the cards it cannot see dealt
        again at random (:func:`determinise`), with a seed drawn from
        ``probability_sampler()`` (a float in [0, 1), e.g.
        ``pyspiel.UniformProbabilitySampler(0., 1.)``).

        Raises:
            ValueError: ``player_id`` is not 0..3; the state is the deal's chance node.
        """
        if self._box.g is None:
            raise ValueError("resample_from_infostate: the deal has not been made")
        p = self._player(player_id)
        state = self.clone()
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        state._box = _Box(determinise(self._box.g, p, rng))
        return state


def _obs_text(obs: np.ndarray) -> str:
    return " ".join(f"{x:.6g}" for x in obs)


class _Observer:
    """OpenSpiel's PyObserver: ``tensor`` (float32, the env's observation) and ``dict``."""

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CanastaState, player: int) -> None:
        self.tensor[:] = state._obs(int(player))  # noqa: SLF001

    def string_from(self, state: CanastaState, player: int) -> str:
        return state.observation_string(player)


def determinise(game: Any, seat: int, rng: random.Random) -> Any:
    """A copy of ``game`` (``NativeGame`` or ``PyNativeGame``) where the cards ``seat``
    cannot see are dealt again: the other seats' hands less their known cards, the feet
    not yet picked up and the stock are pooled and shuffled; each hand gets back as many
    cards as it hid (never a red 3: a red 3 is laid down at once, docs/RULES.md §2.5),
    then the feet and the stock from the rest. Everything ``seat`` may know (its own
    hand, the known cards, the table, the pile, the sizes) is unchanged, so its
    observation is the same. One exception keeps the game playable: while ``seat``
    answers its partner's "may I go out?" (phase ANSWER), the asker's hand is kept too
    (the asker's commitment was made on it; in that one decision the sampled worlds
    know the asker's hand).

    Raises:
        ValueError: ``seat`` is not 0..3.
    """
    if not 0 <= seat < 4:
        raise ValueError(f"seat must be 0..3, got {seat}")
    g = game.to_game()
    # while the partner answers "may I go out?", the asker's hand is kept: the asker's
    # commitment (go out after yes, docs/RULES.md §2.12) was made on that hand, and
    # another hand could leave it no legal way to finish the turn
    keep = {seat, g.current} if g.phase == Phase.ANSWER else {seat}
    if keep == {seat} and _native.available and isinstance(game, NativeGame):
        return _native.determinised(game, seat, rng.getrandbits(63))  # the same, in C
    pool: list[int] = []
    hidden = [0] * 4
    for o in range(4):
        if o not in keep:
            for c in range(len(g.hands[o])):
                k = g.hands[o][c] - g.known[o][c]
                if k > 0:
                    pool += [c] * k
                    hidden[o] += k
    feet = [0] * 4
    for o in range(4):
        if g.feet and g.foot_pending(o):
            feet[o] = sum(g.feet[o])
            for c, k in enumerate(g.feet[o]):
                pool += [c] * k
    pool += list(g.stock)
    pool.sort()  # a multiset: where the cards really lie never matters
    rng.shuffle(pool)
    rest: list[int] = []
    k = 0
    for o in range(4):
        if o in keep or not hidden[o]:
            continue
        g.hands[o] = [min(g.known[o][c], g.hands[o][c]) for c in range(len(g.hands[o]))]
        got = 0
        while got < hidden[o]:
            c = pool[k]
            k += 1
            if c == RED_THREE:
                rest.append(c)
            else:
                g.hands[o][c] += 1
                got += 1
    rest += pool[k:]
    rng.shuffle(rest)
    k = 0
    for o in range(4):
        if feet[o]:
            foot = [0] * len(g.feet[o])
            for c in rest[k:k + feet[o]]:
                foot[c] += 1
            g.feet[o] = foot
            k += feet[o]
    g.stock = rest[k:k + len(g.stock)]
    return type(game).from_game(g)


class HandAndFootGame(CanastaGame):
    """One hand (a round) of Hand and Foot: :class:`CanastaGame` with
    ``variant="hand_and_foot"``; ``pyspiel.load_game("python_hand_and_foot")``."""

    def __init__(self, params: dict | None = None) -> None:
        super().__init__(params, "python_hand_and_foot")


def register() -> None:
    """Register ``python_canasta`` and ``python_hand_and_foot`` with pyspiel (once; done
    when this module is imported). Classes, not closures: pyspiel keeps the creator
    until the interpreter exits, and a Python closure released then aborts the process."""
    registered = set(pyspiel.registered_names())
    for name, cls in (("python_canasta", CanastaGame), ("python_hand_and_foot", HandAndFootGame)):
        if name not in registered:
            pyspiel.register_game(_game_type(name), cls)


register()
