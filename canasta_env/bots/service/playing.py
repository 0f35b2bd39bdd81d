"""Bots playing a stored game: the loop shared by requests (:class:`~.core.Service`) and
the background workers (:mod:`.workers`)."""

from __future__ import annotations

import logging
from typing import Callable

from canasta_env.engine import Game

from ..bot import Bot, move_record
from ..events import Recording
from ..store import GameRow

log = logging.getLogger("canasta_env.bots.service")


def decide(bot: Bot, fallback: Bot, game: Game, seat: int) -> int:
    """``bot``'s action for ``seat``; ``fallback``'s when the policy fails (logged): a
    policy failure never stalls a game."""
    try:
        return bot.act(game, seat)
    except Exception:  # noqa: BLE001 - a policy failure must not stall the game
        log.exception("policy %r failed; the heuristic decides this move", bot.name)
        return fallback.act(game, seat)


def apply_move(game: Game, seat: int, action: int, rec: Recording | None) -> dict:
    """Apply ``seat``'s ``action`` to ``game``; its move record (with ``hand_number``);
    ``rec`` records its events.

    Raises:
        IllegalActionError: the action is not legal (``game`` unchanged).
    """
    snap = Recording.before(game, seat) if rec is not None else None
    hand = game.hand_number
    game.apply(action)
    move = {**move_record(seat, action, game), "hand_number": hand}
    if rec is not None:
        rec.moved(game, move, snap)
    return move


def play_bots(game: Game, row: GameRow, decide_for: Callable[[Game, int], int], limit: int,
              rec: Recording | None = None) -> tuple[list[dict], str]:
    """Bots play ``game`` (stored as ``row``) until a human is on turn or the hand (the
    game, with ``row.auto_deal``) ends, at most ``limit`` decisions; ``decide_for(game,
    seat)`` gives each action, ``rec`` records the deals' and moves' events. Returns the
    moves (with ``hand_number``) and the game's status (``running``: bots still to play,
    ``waiting``, ``over``)."""
    moves: list[dict] = []
    while not game.game_over:
        if game.hand_over:
            if not row.auto_deal:
                break
            game.next_hand()
            if rec is not None:
                rec.dealt(game)
            continue
        seat = game.to_move
        if row.seats[seat] != "bot":
            break
        if len(moves) >= limit:
            return moves, "running"
        moves.append(apply_move(game, seat, decide_for(game, seat), rec))
    return moves, "over" if game.game_over else "waiting"


__all__ = ["decide", "apply_move", "play_bots"]
