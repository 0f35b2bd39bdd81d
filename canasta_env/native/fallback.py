"""The Python engine behind the native API: what :mod:`canasta_env.native` serves when
the compiled core is not built (no C compiler at install time).

:class:`PyNativeGame` (:class:`canasta_env.backend.PythonGame`) and :class:`PyVectorGames`
have the methods, arrays and errors of ``NativeGame`` and ``VectorGames``, on
:class:`canasta_env.engine.Game` (so deals follow the Python engine's seeding), at the
Python engine's speed.
"""

from __future__ import annotations

import random

import numpy as np

from ..backend import PythonGame
from ..engine import Game, IllegalActionError, classic
from ..engine import actions as A
from ..engine.game import from_position
from ..engine.legality import refusal
from ..engine.position import to_position
from ..observation import encode, obs_size

#: ``NativeGame``'s API on the Python engine (the env's Python backend, canasta_env.backend)
PyNativeGame = PythonGame


class PyVectorGames:
    """``VectorGames``'s API on the Python engine (game ``i``'s episode ``k`` is the
    Python deal of seed ``seeds[i] * 1_000_003 + k``)."""

    def __init__(self, num_games: int, options=None, seed=0, reward_scale: float = 0.001):
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        self.options = options if options is not None else classic()
        self.num_games = num_games
        self.num_actions = A.num_actions(self.options)
        self.obs_size = obs_size(self.options)
        self.reward_scale = reward_scale
        self.observations = np.zeros((num_games, self.obs_size), dtype=np.float32)
        self.masks = np.zeros((num_games, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((num_games, 4), dtype=np.float32)
        self.to_move = np.zeros(num_games, dtype=np.int8)
        self.dones = np.zeros(num_games, dtype=np.bool_)
        self.final_observations = np.zeros((num_games, 4, self.obs_size), dtype=np.float32)
        self.reset(seed)

    @property
    def num_envs(self) -> int:
        return self.num_games

    def reset(self, seed=0):
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_games)]
        else:
            seeds = [int(x) for x in seed]
            if len(seeds) != self.num_games:
                raise ValueError(f"reset needs {self.num_games} seeds, got {len(seeds)}")
        self._seeds = seeds
        self._episodes = [0] * self.num_games
        self._rng = random.Random(seeds[0])
        self.games = [None] * self.num_games
        for i in range(self.num_games):
            self._deal(i)
            self._write(i)
        self.rewards[:] = 0
        self.dones[:] = False
        return self.observations

    def _deal(self, i: int) -> None:
        self.games[i] = Game(self.options, seed=self._seeds[i] * 1_000_003 + self._episodes[i])
        self._episodes[i] += 1

    def _write(self, i: int) -> None:
        g = self.games[i]
        self.masks[i] = 0
        self.masks[i, g.legal_actions()] = 1
        self.to_move[i] = g.to_move
        self.observations[i] = encode(g, g.to_move)

    def step(self, actions):
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {arr.dtype}")
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {arr.shape}")
        for i, a in enumerate(arr.tolist()):
            if not 0 <= a < self.num_actions:
                raise ValueError(f"game {i}: action {a} is outside 0..{self.num_actions - 1}; "
                                 f"no game was changed")
            if not self.masks[i, a]:
                g = self.games[i]
                raise IllegalActionError(f"game {i}: {refusal(g, a)}; no game was changed")
        for i, a in enumerate(arr.tolist()):
            g = self.games[i]
            g.apply(a)
            self.rewards[i] = 0
            self.dones[i] = g.hand_over
            if g.hand_over:
                diff = g.sheets[0].hand_score - g.sheets[1].hand_score
                r = np.float32(diff * self.reward_scale)
                self.rewards[i] = (r, -r, r, -r)
                for seat in range(4):
                    self.final_observations[i, seat] = encode(g, seat)
                self._deal(i)
            self._write(i)
        return self.observations, self.rewards, self.dones, self.to_move, self.masks

    def sample_actions(self, out=None):
        if out is None:
            out = np.empty(self.num_games, dtype=np.int64)
        for i, g in enumerate(self.games):
            la = g.legal_actions()
            out[i] = la[self._rng.randrange(len(la))]
        return out

    def position(self, i: int) -> dict:
        return to_position(self.games[i])

    def set_position(self, i: int, pos: dict) -> None:
        g = from_position(pos)
        if g.options != self.options:
            raise ValueError(f"game {i}: the position's options differ from this batch's")
        if g.to_move is None:
            raise ValueError(f"game {i}: the position has nobody on turn (phase {g.phase.name})")
        self.games[i] = g
        self._write(i)
        self.rewards[i] = 0
        self.dones[i] = False

    def close(self) -> None:
        pass
