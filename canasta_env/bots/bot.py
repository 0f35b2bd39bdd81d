"""Computer opponents for other frontends: a :class:`Bot` that plays from a JSON position.

    from canasta_env.bots import Bot

    bot = Bot("heuristic")                    # or "reference", "random", a .onnx / .zip file
    move = bot.choose(position, seat=1)       # {"action": 6, "description": "meld 4: 3 naturals"}
    position, moves = bot.play_turn(position, seat=1)   # the bot's whole turn

Positions are the engine's JSON position format (``canasta_env.engine.to_position``;
layout in the docstring of :func:`canasta_env.engine.game.to_position`). The bot sees
only what ``seat`` may know: it acts on ``canasta_env.observation.encode(game, seat)``
and the legal-action mask, exactly like the policies in training and evaluation.

==================  =================================================================
policy              meaning
==================  =================================================================
``"reference"``     the shipped reference policy (``checkpoints/reference/``: the
                    ``.onnx`` with onnxruntime, else the ``.zip`` with the training
                    extra; see :func:`canasta_env.bots.loader.reference_path`)
``"heuristic"``     :class:`canasta_env.policies.HeuristicPolicy` (rule-based, fast)
``"random"``        :class:`canasta_env.policies.RandomPolicy` (uniform legal moves)
a ``.onnx`` path    a policy exported by ``python -m training.export_onnx``
                    (:class:`~canasta_env.bots.onnx_policy.OnnxPolicy`; onnxruntime only)
a ``.zip`` path     a MaskablePPO checkpoint: needs the training extra, and ``training``
                    imported (it registers the loader; see :mod:`canasta_env.bots.loader`)
==================  =================================================================

Errors are ``ValueError`` subclasses with a message saying what is wrong:
:class:`~canasta_env.engine.PositionError` (malformed position),
:class:`NotOnTurnError` (the seat is not to move, or the hand is over),
:class:`~canasta_env.bots.loader.PolicySpecError` (unknown policy, missing file, a
``.zip`` without the training package) and the loaders' own errors for a bad file
(``training.checkpoint.CheckpointError``, ``ValueError`` from ``OnnxPolicy``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from canasta_env.engine import (
    Game,
    PositionError,
    describe,
    from_position,
    to_position,
)
from canasta_env.observation import encode

from .loader import PolicySpecError, load_policy

__all__ = ["Bot", "NotOnTurnError", "PositionError", "PolicySpecError", "move_record",
           "position_game"]


class NotOnTurnError(ValueError):
    """The seat asked to move is not the seat on turn (or nobody is: the hand is over)."""


def _check_seat(seat: Any) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat <= 3:
        raise ValueError(f"seat must be an int 0..3, got {seat!r}")
    return int(seat)


def position_game(position: Any) -> Game:
    """A new :class:`Game` from a JSON position (or a copy of a Game).

    Raises:
        PositionError: anything malformed, whatever the engine's own error.
    """
    if isinstance(position, Game):
        return position.clone()
    if not isinstance(position, dict):
        raise PositionError(f"a position must be a JSON object (dict), got {type(position).__name__}")
    try:
        return from_position(position)
    except PositionError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
        # a field of the wrong JSON type that from_position does not check itself
        raise PositionError(f"malformed position ({type(e).__name__}: {e})") from None


def move_record(seat: int, action: int, game: Game | None = None) -> dict:
    """``{"seat", "action", "description"}`` for one decision (described with the action
    table of ``game``'s variant; Classic when ``None``)."""
    text = game.table.describe(action) if game is not None else describe(action)
    return {"seat": seat, "action": action, "description": text}


class Bot:
    """A computer player for any seat of a position.

    Args:
        policy: ``"reference"`` (default), ``"heuristic"``, ``"random"`` or a policy
            file path (``.onnx``, ``.zip``); or an object with
            ``act(observation, action_mask) -> int``.

    Raises:
        PolicySpecError: unknown spec, a missing file, a ``.zip`` while ``training`` is
            not imported, or ``"reference"`` while no reference file is usable (the
            message says so).
        ValueError: a file its loader cannot read (``OnnxPolicy``'s error,
            ``training.checkpoint.CheckpointError``).
    """

    def __init__(self, policy: Any = "reference") -> None:
        if isinstance(policy, str):
            self.name = policy.strip()
            self.policy = load_policy(policy)
        elif callable(getattr(policy, "act", None)):
            self.name = getattr(policy, "name", type(policy).__name__)
            self.policy = policy
        else:
            raise PolicySpecError(f"policy must be a spec string or an object with act(), "
                                  f"got {policy!r}")

    def __repr__(self) -> str:
        return f"Bot({self.name!r})"

    # ------------------------------------------------------------------ on a Game
    def act(self, game: Game, seat: int | None = None) -> int:
        """Action id the bot picks for the seat on turn in ``game`` (not modified).

        Raises:
            NotOnTurnError: ``seat`` is given and is not :attr:`Game.to_move`, or the
                hand is over.
        """
        to_move = game.to_move
        if to_move is None:
            raise NotOnTurnError(f"nobody is on turn: the {'game' if game.game_over else 'hand'} "
                                 f"is over (phase {game.phase.name})")
        if seat is not None and _check_seat(seat) != to_move:
            raise NotOnTurnError(f"seat {seat} is not on turn; seat {to_move} is to move "
                                 f"(phase {game.phase.name})")
        legal = game.legal_actions()
        mask = np.zeros(game.num_actions, dtype=np.int8)  # Classic: NUM_ACTIONS
        mask[legal] = 1
        action = int(self.policy.act(encode(game, to_move), mask))
        if action not in legal:  # a policy bug, never the caller's fault
            text = game.table.describe(action) if 0 <= action < game.num_actions else "?"
            raise RuntimeError(f"policy {self.name!r} chose illegal action {action} "
                               f"({text!r}); legal: {legal}")
        return action

    def play_seat_turn(self, game: Game, seat: int) -> list[dict]:
        """Play ``seat``'s decisions in ``game`` (modified in place) until another seat is
        to move or the hand ends; returns the moves (``seat``, ``action``,
        ``description``). After "ask partner" the partner is to move, so the turn
        pauses there.

        Raises:
            NotOnTurnError: ``seat`` is not on turn.
        """
        seat = _check_seat(seat)
        moves = [move_record(seat, self._apply(game, seat), game)]
        while game.to_move == seat:
            moves.append(move_record(seat, self._apply(game, seat), game))
        return moves

    def _apply(self, game: Game, seat: int) -> int:
        action = self.act(game, seat)
        game.apply(action)
        return action

    # ------------------------------------------------------------------ on positions
    def choose(self, position: dict, seat: int) -> dict:
        """The bot's next decision for ``seat`` in ``position`` (not modified):
        ``{"action": id, "description": text}``.

        Raises:
            ValueError: ``seat`` is not an int 0..3.
            PositionError: ``position`` is malformed.
            NotOnTurnError: ``seat`` is not on turn, or the hand is over.
        """
        seat = _check_seat(seat)
        game = position_game(position)
        action = self.act(game, seat)
        return {"action": action, "description": game.table.describe(action)}

    def play_turn(self, position: dict, seat: int) -> tuple[dict, list[dict]]:
        """Play ``seat``'s whole turn from ``position`` (not modified): every decision
        until another seat is to move (the next player, or the partner asked "may I go
        out?") or the hand ends. Returns ``(new_position, moves)``, each move
        ``{"seat", "action", "description"}``.

        Raises:
            ValueError, PositionError, NotOnTurnError: as :meth:`choose`.
        """
        seat = _check_seat(seat)
        game = position_game(position)
        moves = self.play_seat_turn(game, seat)
        return to_position(game), moves
