"""The service's limits and fixed settings (one place; the schema and the checks read them)."""

from __future__ import annotations

from pathlib import Path

from ..levels import LEVEL_NAMES

#: the policy names every server offers: the built-in policies, then the difficulty levels
#: (``easy`` .. ``expert``, each the game's variant's policy; canasta_env.bots.levels)
BUILTIN_POLICIES = ("heuristic", "random", "reference", "search", "search_reference",
                    *LEVEL_NAMES)
SEAT_KINDS = ("human", "bot")
#: the largest ``target_score`` and ``starting_scores`` a game may have (10 x Classic's)
MAX_SCORE = 50_000
#: rules options this service bounds more tightly than the engine, ``(lowest, highest)``:
#: the ``POST /games`` schema states them and :func:`.rules.game_options` refuses the rest,
#: in every variant (Hand and Foot does not use ``target_score``, but a game's rules are
#: kept and shown as asked for)
RULES_BOUNDS = {"target_score": (1, MAX_SCORE)}
#: the range of ``seed`` in ``POST /games`` (a signed 64-bit integer)
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
#: bot decisions one request plays at most before the rest goes to the background
MAX_DECISIONS = 1000
#: bot decisions the background plays per turn of holding a game's lock
CHUNK = 200
#: the most worker processes playing bots in the background (``--bot-processes``)
MAX_BOT_PROCESSES = 16
#: the largest request body (bytes); a position is about 4 KB
MAX_BODY = 256 * 1024
#: moves per page of ``GET /games/{id}/moves``
MAX_LOG_PAGE = 1000
#: the card table's files (HTML, CSS, JS), shipped as package data
STATIC = Path(__file__).resolve().parent.parent / "static"
#: the page loads only its own files and talks only to this service
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                          "frame-ancestors 'none'",
                "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}
#: the longest move log ``GET /games/{id}/replay`` replays (a whole game is ~1,000 moves)
MAX_REPLAY = 20_000
#: a game not used for this long (seconds) is forgotten
IDLE_EXPIRY = 7 * 24 * 3600.0
#: games kept parsed in memory (the least recently saved are dropped first)
GAMES_KEPT = 2000
#: last use is written at most this often by reads (seconds)
TOUCH_EVERY = 10.0

__all__ = ["BUILTIN_POLICIES", "SEAT_KINDS", "MAX_SCORE", "RULES_BOUNDS", "SEED_MIN", "SEED_MAX",
           "MAX_DECISIONS", "CHUNK", "MAX_BOT_PROCESSES", "MAX_BODY", "MAX_LOG_PAGE", "STATIC",
           "PAGE_HEADERS", "MAX_REPLAY", "IDLE_EXPIRY", "GAMES_KEPT", "TOUCH_EVERY"]
