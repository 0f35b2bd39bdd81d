"""Seat tokens: which seat a request acts or looks as.

``POST /games`` returns one secret per human seat; only their SHA-256 hashes are stored. A
seat's private view and its actions need ``Authorization: Bearer <token>``; without a token a
request gets the public view. A token of another game is a 401, asking for another seat than
the token's a 403. ``next_hand`` and ``DELETE`` need a token of any human seat of the game
(games of four bots have no tokens: anyone may move them on or delete them).
"""

from __future__ import annotations

import hmac

from ..store import GameRow, hash_token
from .errors import ServiceError, unauthorized


def token_seat(row: GameRow, token: str | None) -> int | None:
    """The seat ``token`` belongs to (``None`` without a token).

    Raises:
        ServiceError: 401, the token is not one of this game's.
    """
    if token is None:
        return None
    digest = hash_token(token)
    for seat, stored in enumerate(row.token_hashes):
        if stored is not None and hmac.compare_digest(stored, digest):
            return seat
    raise unauthorized(f"the bearer token is not a seat token of game {row.game_id!r}")


def authorize(row: GameRow, token: str | None, seat: int | None, what: str) -> int | None:
    """The seat a request acts or looks as: the token's (``None``: public); a ``seat``
    asked for must be the token's.

    Raises:
        ServiceError: 401 a bad token, or ``seat`` asked for without a token; 403 ``seat``
            is not the token's.
    """
    mine = token_seat(row, token)
    if seat is not None:
        if mine is None:
            raise unauthorized(f"{what} of seat {seat} needs that seat's token "
                               f"(Authorization: Bearer <token from POST /games>)")
        if seat != mine:
            raise ServiceError(403, f"the token is seat {mine}'s; it cannot be used for "
                                    f"seat {seat}")
    return mine


def any_human(row: GameRow, token: str | None, what: str) -> int | None:
    """The token's seat, required when the game has a human seat.

    Raises:
        ServiceError: 401 a bad token, or none while the game has a human seat.
    """
    mine = token_seat(row, token)
    if mine is None and "human" in row.seats:
        raise unauthorized(f"{what} needs the token of a human seat of the game")
    return mine


__all__ = ["token_seat", "authorize", "any_human"]
