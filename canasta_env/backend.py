"""The one interface the environment plays a game through, and its Python implementation.

:class:`GameBackend` is what :class:`canasta_env.raw_env`, the bots and the batched
trainers need of a game; both backends satisfy it: :class:`canasta_env.native.NativeGame`
(the compiled core) and :class:`PythonGame` (the Python engine, with numpy views added).
The rules live in :mod:`canasta_env.engine` (legality in ``engine/legality.py``, effects in
``engine/transitions.py``, scoring in ``engine/scoring.py``; ``docs/RULES.md`` gives the
rule each function cites); the native core mirrors them file for file in
``canasta_env/native/core/`` and the differential checker (:mod:`canasta_env.differential`)
holds the two to the same decisions.

Errors are the same on both: :class:`~canasta_env.engine.IllegalActionError` from
``apply`` (the message names the action, the seat, the phase and why the action is
illegal, from :func:`canasta_env.engine.legality.why_illegal`), PositionError from
``from_position``.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from .engine import Game
from .engine.game import Phase, from_position
from .engine.position import to_position, written_position
from .observation import encode, obs_size


@runtime_checkable
class GameBackend(Protocol):
    """A game of Classic Canasta or Hand and Foot as the environment plays it.

    Attributes (read only): ``options`` (RulesOptions), ``phase`` (Phase), ``to_move``
    (seat 0..3 on turn, None when the hand is over), ``hand_over``, ``game_over``,
    ``scores`` (two ints, points, cumulative before this hand's sheet), ``sheets`` (this
    hand's two ScoreSheets once it is over, else None), ``winner`` (0 / 1 / -1 tie /
    None), ``hand_number`` (0-based), ``minimum`` (opening minimum per partnership,
    points), ``opened`` (per partnership), ``num_actions``, ``obs_size``, ``log`` and
    ``history`` (the event log of the hand and the finished hands' sheets, lists of dicts).
    """

    options: Any
    log: list
    history: list

    @property
    def phase(self) -> Phase: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def hand_over(self) -> bool: ...
    @property
    def game_over(self) -> bool: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def obs_size(self) -> int: ...

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the seat on turn (empty when the hand is over)."""

    def action_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """int8 ``(num_actions,)``: 1 at the legal actions."""

    def apply(self, action: int) -> None:
        """Play a legal action of the seat on turn. Raises IllegalActionError."""

    def encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """float32 ``(obs_size,)``: the observation of ``seat`` (canasta_env.observation)."""

    def next_hand(self) -> None:
        """Deal the next hand. Raises RuntimeError unless the hand is over."""

    def to_position(self) -> dict:
        """The JSON position (canasta_env.engine.position.to_position)."""

    def to_game(self, copy: bool = True) -> Game:
        """The state as a Python engine :class:`~canasta_env.engine.Game`."""

    def copy(self) -> GameBackend:
        """An independent copy that plays on exactly as this game would."""


class PythonGame(Game):
    """The Python engine (:class:`canasta_env.engine.Game`) with the numpy-facing part of
    :class:`GameBackend` (``action_mask``, ``encode``, ``to_position``, ``copy``): the
    game the env plays on ``backend="python"``, and what :mod:`canasta_env.native` serves
    as ``NativeGame`` when the compiled core is not built."""

    @staticmethod
    def from_game(game: Game) -> PythonGame:
        g = PythonGame.__new__(PythonGame)
        g.__dict__.update(from_position(written_position(game), check_moves=False).__dict__)
        return g

    @staticmethod
    def adopt(game: Game) -> PythonGame:
        """``game`` itself as a PythonGame (its state moved, not copied: drop ``game``)."""
        g = PythonGame.__new__(PythonGame)
        g.__dict__.update(game.__dict__)
        return g

    @staticmethod
    def from_position(pos: dict, check_moves: bool = True) -> PythonGame:
        return PythonGame.from_game(from_position(pos, check_moves=check_moves))

    def to_position(self) -> dict:
        return to_position(self)

    def to_game(self, copy: bool = True) -> Game:
        return from_position(to_position(self), check_moves=False)

    def copy(self) -> PythonGame:
        return PythonGame.from_game(self)

    @property
    def obs_size(self) -> int:
        return obs_size(self.options)

    def action_mask(self, out=None):
        if out is None:
            out = np.zeros(self.num_actions, dtype=np.int8)
        else:
            out[:] = 0
        out[self.legal_actions()] = 1
        return out

    def encode(self, seat: int, out=None):
        if not 0 <= seat < 4:
            raise ValueError(f"seat must be 0..3, got {seat}")
        v = encode(self, seat)
        if out is None:
            return v
        out[:] = v
        return out
