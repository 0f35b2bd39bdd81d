"""HTTP JSON service: Canasta games against trained or rule-based bots, for any frontend.

    python -m canasta_env.bots.service [--host 127.0.0.1] [--port 8000]
                                       [--policy reference|heuristic|search|random|PATH]
                                       [--db canasta_games.sqlite3 | URL] [--max-games N]
                                       [--idle-expiry SECONDS] [--max-decisions N]
                                       [--max-body BYTES] [--bot-threads N]
                                       [--max-streams N] [--max-game-streams N]
                                       [--events-poll SECONDS]
    python -m training.serve ...    # the same, with .zip checkpoints loadable (canasta-serve)

Listens on localhost by default. Interactive OpenAPI docs at ``/docs`` (schema at
``/openapi.json``). Needs the ``bots`` extra (FastAPI, uvicorn, onnxruntime,
SQLAlchemy); a ``.zip`` checkpoint policy also needs the ``training`` extra and is served
through ``python -m training.serve`` (importing ``training`` registers the ``.zip``
loader, see :mod:`canasta_env.bots.loader`). ``reference``, ``heuristic``, ``random``
and ``.onnx`` models need no torch.

Durable games: every game and every accepted move is stored before the response (see
:mod:`canasta_env.bots.store`): ``--db`` names an SQLite file (default
``canasta_games.sqlite3`` in the working directory) or a database URL
(``postgresql://user:password@host:5432/db``, with the psycopg 3 driver; several
service processes may share one PostgreSQL database). After a crash or ``kill -9`` and a
restart every game continues from its last accepted move; games whose bots were playing
in the background carry on.

Seat tokens: ``POST /games`` returns ``tokens``, one secret per human seat (``null`` for
bot seats); only their SHA-256 hashes are stored. A seat's private view and its actions
need ``Authorization: Bearer <token>``. Without a token a request gets the public view
(no hand, no legal actions); a token of another game is a 401, asking for another seat
than the token's a 403. ``next_hand`` and ``DELETE`` need a token of any human seat of
the game (games of four bots have no tokens: anyone may move them on or delete them).

=================================  ===================================================
endpoint                           what it does
=================================  ===================================================
``POST /games``                    new game: ``seats`` (4 x ``"human"`` / ``"bot"``),
                                   ``variant`` (``"classic"`` or
                                   ``"hand_and_foot"``), optional ``seed``,
                                   ``bot_policy``, ``auto_deal``, ``rules``,
                                   ``starting_scores``. Bots move at once until a human
                                   is on turn or the hand (game, with ``auto_deal``)
                                   ends, at most ``--max-decisions`` in the request: the
                                   rest (and all of a four-bot ``auto_deal`` game) is
                                   played in the background (``status`` ``running``).
                                   Returns ``game_id``, ``tokens``, the bots' ``moves``
                                   and a ``view`` (of the lowest human seat; the public
                                   view when every seat is a bot)
``GET /games/{id}``                the view of the token's seat (public view without a
                                   token); ``?seat=N`` must be the token's seat
``GET /games/{id}/moves``          the move log: ``?after=SEQ&limit=N`` (N <= 1000),
                                   each ``{seq, hand_number, seat, action,
                                   description, words}``; public
``GET /games/{id}/events``         the game's events as they happen (Server-Sent
                                   Events; NDJSON with ``Accept:
                                   application/x-ndjson``): deals, moves (the token's
                                   seat's drawn cards on its own stream), turns, hands
                                   and the game over; resume with ``Last-Event-ID`` or
                                   ``?after=``; see :mod:`canasta_env.bots.events`
                                   (``--max-streams``, ``--max-game-streams``: 429
                                   beyond them)
``/games/{id}/ws``                 WebSocket: the same events, and the seat's moves
                                   sent back (``{"action": ...}``); see
                                   :mod:`canasta_env.bots.event_routes`
``GET /games/{id}/replay``         the game replayed from its deal as the token's seat
                                   saw it (public frames without a token): ``moves`` and
                                   one ``frames`` entry (a view) per move; 409 while
                                   the bots play it
``POST /games/{id}/actions``       ``{"action": id or description}`` (``seat``
                                   optional: the token's): the seat's decision; then
                                   the bots move as at creation. Returns ``moves`` (the
                                   human's first) and the seat's ``view``
``POST /games/{id}/next_hand``     deal the next hand once a hand is over and the game
                                   is not; bots move
``DELETE /games/{id}``             forget a game
``GET /``                          the card table page for a browser (``Accept:
                                   text/html``; files under ``/static/``); the service
                                   index as JSON otherwise (also at ``GET /api``)
``POST /move``                     stateless: ``{"position", "seat", "policy"?}`` ->
                                   the bot's next decision ``{"action", "description"}``
``POST /turn``                     stateless: the bot's whole turn -> ``{"position",
                                   "moves"}``
=================================  ===================================================

A view carries ``status``: ``waiting`` (a human is on turn, or a hand is over and waits
for ``next_hand``), ``running`` (bots are playing in the background; ``decisions``,
``hand_number`` and ``scores`` show the progress; actions are a 409 until it is done) or
``over``; and ``decisions``, the number of moves in the game's log.

For the card table (:mod:`canasta_env.bots.table`): every move carries ``words``, the
move in plain words ("discards a 7"); an action result carries ``drawn``, the cards the
seat drew from the stock (its own to see), and so does a seat's view while that turn
lasts (so a reloaded page keeps the mark); a view carries ``sheet_rows`` (the score
sheet's rows in counting order) and, once a hand is over, ``revealed``: every hand (and
foot) left, as laid down for counting.

Several hands: a game runs to 5,000 points over several hands. When a hand ends and the
game is not over, the game waits in phase ``HAND_OVER`` (the view shows the hand's
``score_sheets``) until ``POST /games/{id}/next_hand``; with ``"auto_deal": true`` at
creation the next hand is dealt at once and play goes on.

Errors: every bad request is answered with a 4xx status and ``{"detail": "<message>"}``
and leaves the game unchanged: 401 a seat's view or action without a valid token of the
game; 403 a token of another seat; 404 unknown (or expired) game; 409 not that seat's
turn, bots playing, the hand or game over, no finished hand to move on from, the game
changed by another request meanwhile; 400 illegal action, unknown action description
(an action is ASCII digits or a description), malformed position, unknown variant or
rules option, a ``target_score`` or ``starting_scores`` over :data:`MAX_SCORE`, bad
seat list, unknown or unavailable bot policy, a bot policy built for another variant
than the game's (checked before anything is dealt or stored: ``bot policy 'model.onnx'
cannot play this game: policy 'model.onnx' is a Classic policy (observation 202, 91
actions); this game is Hand and Foot (observation 245, 98 actions)``); 413 a request
body over ``--max-body``; 422 a request body of the wrong shape (``detail`` names each
field). Responses stay small: at most ``--max-decisions`` moves per response, move log
pages of at most 1,000 moves.

Bots: every game's bots decide under that game's own lock, so bots of different games
play concurrently and no request waits for another game (a ``search`` bot's rollouts,
30-150 ms per decision, run without the interpreter lock). A bot whose
policy fails (or is no longer offered after a restart) is replaced for that decision by
the heuristic, so every stored game can always advance or is finished; nothing is stored
for a request that fails.

Variants: ``reference`` plays each game with its variant's reference policy (the Classic
or the Hand and Foot network). The stateless ``/move`` and ``/turn`` check the policy
against the position's variant the same way.

Housekeeping: a game not used for ``--idle-expiry`` seconds (default 7 days) is
forgotten; beyond ``--max-games`` stored games the least recently used are forgotten.

Command line: a bad option, a ``--policy`` that cannot be loaded, a ``--db`` that cannot
be opened, or a ``--host`` / ``--port`` that cannot be bound (in use, not an address of
this machine, no permission) is one line on stderr and exit code 2; Ctrl-C stops the
server (exit 0).

Trust model: seat tokens keep each seat's hidden cards to its player. A view never
contains another seat's hidden cards or the stock order. ``bot_policy`` / ``policy`` in
requests may name ``"heuristic"``, ``"random"``, ``"reference"``, ``"search"`` (the
heuristic improved by decision-time search, :class:`canasta_env.search.SearchPolicy`:
the strongest Classic bot, about 30 ms of one core per decision; in Hand and Foot
``"reference"`` is stronger) or the server's ``--policy``;
other checkpoint paths are refused, because loading a checkpoint unpickles it.
"""

from __future__ import annotations

import hmac
import importlib.util
import logging
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from canasta_env.cli import ArgumentParser, fail, host, port, positive_float, positive_int
from canasta_env.engine import (
    SHEET_ROWS,
    Game,
    IllegalActionError,
    OptionsError,
    PositionError,
    from_position,
    preset,
    to_position,
)
from canasta_env.public import public_pile
from canasta_env.render import render_text

from .bot import Bot, move_record, position_game
from .events import MAX_GAME_STREAMS, MAX_STREAMS, POLL, EventHub  # events hook
from .loader import PolicySpecError
from .store import Conflict, GameRow, GameStore, StoreError, hash_token
from .table import drawn_cards, replay_document, turn_drawn, with_words

log = logging.getLogger("canasta_env.bots.service")

BUILTIN_POLICIES = ("heuristic", "random", "reference", "search")
SEAT_KINDS = ("human", "bot")
#: the largest ``target_score`` and ``starting_scores`` a game may have (10 x Classic's)
MAX_SCORE = 50_000
#: bot decisions one request plays at most before the rest goes to the background
MAX_DECISIONS = 1000
#: bot decisions the background plays per turn of holding a game's lock
CHUNK = 200
#: the largest request body (bytes); a position is about 4 KB
MAX_BODY = 256 * 1024
#: moves per page of ``GET /games/{id}/moves``
MAX_LOG_PAGE = 1000
#: the card table's files (HTML, CSS, JS), shipped as package data
STATIC = Path(__file__).resolve().parent / "static"
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


# ---------------------------------------------------------------------- the seat view
def _melds_view(melds: dict, canasta_size: int) -> dict:
    out = {}
    for rank, m in melds.items():
        n, j, t = m["naturals"], m["jokers"], m["twos"]
        canasta = None
        if n + j + t >= canasta_size:
            canasta = "mixed" if j + t else "natural"
        out[rank] = {"naturals": n, "jokers": j, "twos": t, "cards": n + j + t,
                     "canasta": canasta}
    return out


def seat_view(game: Game, seat: int | None, position: dict | None = None) -> dict:
    """What ``seat`` (0..3) may see of ``game``; ``seat=None`` gives the public view.

    Built from the JSON position and :meth:`Game.legal_actions`: the seat's own hand,
    both partnerships' melds, each player's hand size, red 3s and the cards they are
    known to hold from pile pickups, the discard pile and a pile set aside for an opening
    (public: every card in them was seen face up), stock size, scores, opening minimums,
    phase, who is to move, this hand's moves, finished hands' score sheets, the legal
    actions with descriptions when ``seat`` is on turn, and in Hand and Foot who plays
    from the foot, each foot's size, the books and the wild melds. Never another seat's
    hidden cards (nor any foot's), never the stock order. ``position``: ``to_position(game)`` when the caller
    has it already.
    """
    pos = to_position(game) if position is None else position
    opts = pos["options"]
    pile = pos["pile"]
    to_move = game.to_move
    frozen = pos["pile_frozen"]
    view: dict[str, Any] = {
        "seat": seat,
        "partnership": None if seat is None else seat % 2,
        "variant": opts["variant"],
        "hand_number": pos["hand_number"],
        "dealer": pos["dealer"],
        "phase": pos["phase"],
        "to_move": to_move,
        "current": pos["current"],
        "hand_over": game.hand_over,
        "game_over": game.game_over,
        "winner": pos["winner"],
        "scores": pos["scores"],
        "target_score": opts["target_score"],
        "hand": None if seat is None else pos["hands"][seat],
        "players": [{"seat": s, "partnership": s % 2, "hand_size": len(pos["hands"][s]),
                     "red_threes": pos["red_threes"][s], "known_cards": pos["known"][s]}
                    for s in range(4)],
        "melds": [_melds_view(m, opts["canasta_size"]) for m in pos["melds"]],
        "opened": pos["opened"],
        "opening_minimum": pos["minimum"],
        "pile": {
            "size": len(pile),
            "top": pile[-1] if pile else None,
            "cards": pile,
            "frozen": frozen,
            "frozen_for": [frozen or not o for o in pos["opened"]],
            "stop_card": bool(pile) and pile[-1] == "black 3",
            # a pile taken for an opening waits, set aside, until the minimum is met:
            # its cards stay public (docs/RULES.md §2.10, §7)
            "set_aside": public_pile(game).names()["set_aside"],
        },
        "stock_size": len(pos["stock"]),
        "turn": {
            "seat": pos["current"],
            "opening_points": pos["turn"]["turn_points"],
            "pile_set_aside": len(pos["turn"]["pending"]),
            "asked_partner": {0: None, 1: "yes", 2: "no"}.get(pos["turn"]["asked"]),
        },
        "legal_actions": [],
        "moves": [with_words(move_record(e["seat"], e["action"], game))
                  for e in pos["log"] if "action" in e],
        "score_sheets": pos["sheets"],
        "sheet_rows": list(SHEET_ROWS),
        # once a hand is over every hand is laid down to be counted (and, in Hand and
        # Foot, every foot not picked up): public from then on
        "revealed": None if not game.hand_over else {
            "hands": pos["hands"],
            "feet": [list(f) for f in pos["feet"]] if opts["variant"] != "classic"
            and "feet" in pos else None},
        "went_out": pos["went_out"],
        "history": pos["history"],
        # Hand and Foot: who plays from the foot, the size of each foot still face down
        # (its cards are nobody's to see), closed books and the open wild meld
        "hand_and_foot": None if "feet" not in pos or opts["variant"] == "classic" else {
            "in_foot": pos["in_foot"], "foot_sizes": [len(f) for f in pos["feet"]],
            "rounds": opts["rounds"],
            "books": pos["books"], "wild_melds": pos["wild_melds"]},
    }
    if seat is not None:
        if to_move == seat:
            view["legal_actions"] = [{"action": a, "description": game.table.describe(a)}
                                     for a in game.legal_actions()]
        view["text"] = render_text(game, seat)
    return view


# ---------------------------------------------------------------------- the service
class ServiceError(Exception):
    """A bad request: HTTP ``status`` and a message for the client."""

    def __init__(self, status: int, message: str, headers: dict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


def _unauthorized(message: str) -> ServiceError:
    return ServiceError(401, message, {"WWW-Authenticate": "Bearer"})


class Service:
    """Games in a database, bots by policy spec, and the rules of each request. Every
    method validates completely before it changes a game, and stores the game (position
    and moves) before it returns.

    Args:
        policy: the default bot policy spec (``--policy``).
        max_games: games kept; beyond it the least recently used are forgotten.
        db: database URL or SQLite file path (see :mod:`canasta_env.bots.store`).
        idle_expiry: seconds after its last use a game is forgotten.
        max_decisions: bot decisions one request plays at most (the rest: background).
        bot_threads: threads playing bots in the background.
        before_store: called once the default policy is loaded, before the database is
            opened (its exceptions propagate).
        stream_limits: keyword arguments of :class:`~canasta_env.bots.events.EventHub`
            (``max_streams``, ``max_game_streams``, ``keepalive``, ``send_timeout``,
            ``poll``) for the event streams.

    Raises:
        ServiceError: the default policy cannot be loaded, the database cannot be
            opened, or an argument is out of range (status 400).
    """

    def __init__(self, policy: str = "reference", max_games: int = 1000, db: str | None = None,
                 idle_expiry: float = IDLE_EXPIRY, max_decisions: int = MAX_DECISIONS,
                 bot_threads: int = 2, before_store: Callable[[], None] | None = None,
                 stream_limits: dict | None = None) -> None:
        for name, value in (("max_games", max_games), ("idle_expiry", idle_expiry),
                            ("max_decisions", max_decisions), ("bot_threads", bot_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ServiceError(400, f"{name} must be a positive number, got {value!r}")
        self.default_policy = policy
        self.max_games = int(max_games)
        self.idle_expiry = float(idle_expiry)
        self.max_decisions = int(max_decisions)
        self._bots: dict[str, Bot] = {}
        self._lock = threading.Lock()  # guards the dicts below, never held while playing
        self._load_lock = threading.Lock()  # loading a policy file (once per spec/variant)
        self._game_locks: dict[str, threading.Lock] = {}
        self._running: set[str] = set()
        self._closed = threading.Event()
        self._fallback = Bot("heuristic")
        # events hook: the game event streams (canasta_env.bots.events), woken by each save;
        # their limits are checked before anything is loaded or opened
        self.events = EventHub(None, **(stream_limits or {}))
        self.bot(None)  # load the default now: a missing policy file fails at start-up
        if before_store is not None:  # the command line binds its port here: a port in use
            before_store()            # is refused before a database file is created
        try:
            self.store = GameStore(db)
        except StoreError as e:
            raise ServiceError(400, str(e)) from None
        self.events.store = self.store  # events hook
        # the Game of each recently saved game at its stored version: a request that finds
        # the same version in the database takes it instead of parsing the position
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        self._executor = ThreadPoolExecutor(int(bot_threads), thread_name_prefix="canasta-bots")
        for game_id in self.store.ids_with_status("running"):  # interrupted by a restart
            self._submit(game_id)
        self._sweeper = threading.Thread(target=self._sweep_loop, name="canasta-expiry",
                                         daemon=True)
        self._sweeper.start()

    def close(self) -> None:
        """Stop the background work (games in play stay stored as ``running`` and are
        resumed by the next start) and the database connections."""
        self._closed.set()
        self.events.close()  # events hook
        self._executor.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    # --------------------------------------------------------------- policies
    def bot(self, spec: str | None, variant: Any = None) -> tuple[str, Bot]:
        """The bot for a request's policy spec (``None``: the default), checked against
        ``variant`` (rules options or a variant name) when given.

        Raises:
            ServiceError: 400, the spec is not offered by this server, cannot be loaded,
                or cannot play ``variant`` (a policy of another variant; ``reference``
                whose file for the variant is not usable).
        """
        name = self.default_policy if spec is None or spec.strip().lower() == "default" \
            else spec.strip()
        if name.lower() in BUILTIN_POLICIES:
            name = name.lower()
        elif name != self.default_policy:
            raise ServiceError(400, f"bot policy {name!r} is not offered by this server: use "
                                    f"one of {', '.join(BUILTIN_POLICIES)} or the server's "
                                    f"--policy {self.default_policy!r}")
        with self._lock:
            bot = self._bots.get(name)
        if bot is None:
            with self._load_lock:
                bot = self._bots.get(name)
                if bot is None:
                    try:
                        bot = Bot(name)  # PolicySpecError says why, e.g. "reference" unavailable
                    except (PolicySpecError, ValueError) as e:
                        raise ServiceError(400, f"bot policy {name!r} cannot be used: {e}") \
                            from None
                    with self._lock:
                        self._bots[name] = bot
        if variant is not None:
            try:
                with self._load_lock:  # may load the variant's reference once
                    bot.check_variant(variant)
            except ValueError as e:  # PolicyVariantError, PolicySpecError, a bad file
                raise ServiceError(400, f"bot policy {name!r} cannot play this game: {e}") \
                    from None
        return name, bot

    def _row_bot(self, row: GameRow) -> Bot:
        """The bot of a stored game; the heuristic when its policy is no longer usable
        (e.g. the server restarted with another ``--policy``)."""
        try:
            return self.bot(row.bot_policy, row.variant)[1]
        except ServiceError as e:
            log.warning("game %s: %s; its bots play the heuristic", row.game_id, e.message)
            return self._fallback

    def _decide(self, bot: Bot, game: Game, seat: int) -> int:
        try:
            return bot.act(game, seat)
        except Exception:  # noqa: BLE001 - a policy failure must not stall the game
            log.exception("policy %r failed; the heuristic decides this move", bot.name)
            return self._fallback.act(game, seat)

    # --------------------------------------------------------------- games
    def _game_lock(self, game_id: str) -> threading.Lock:
        with self._lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                lock = self._game_locks[game_id] = threading.Lock()
            return lock

    def _row(self, game_id: str) -> GameRow:
        row = self.store.load(game_id)
        if row is None:
            raise ServiceError(404, f"no game {game_id!r} (unknown id, expired or forgotten)")
        return row

    @staticmethod
    def _token_seat(row: GameRow, token: str | None) -> int | None:
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
        raise _unauthorized(f"the bearer token is not a seat token of game {row.game_id!r}")

    def _auth(self, row: GameRow, token: str | None, seat: int | None, what: str) -> int | None:
        """The seat a request acts or looks as: the token's; ``seat`` must agree."""
        mine = self._token_seat(row, token)
        if seat is not None:
            if mine is None:
                raise _unauthorized(f"{what} of seat {seat} needs that seat's token "
                                    f"(Authorization: Bearer <token from POST /games>)")
            if seat != mine:
                raise ServiceError(403, f"the token is seat {mine}'s; it cannot be used for "
                                        f"seat {seat}")
        return mine

    def _any_human(self, row: GameRow, token: str | None, what: str) -> int | None:
        mine = self._token_seat(row, token)
        if mine is None and "human" in row.seats:
            raise _unauthorized(f"{what} needs the token of a human seat of the game")
        return mine

    def count(self) -> int:
        """Games stored."""
        return self.store.count()

    def position(self, game_id: str) -> dict:
        """The stored position of a game (for tests and tools)."""
        return self._row(game_id).position

    def create(self, seats: list[str], variant: str = "classic", seed: int | None = None,
               bot_policy: str | None = None, auto_deal: bool = False,
               rules: dict | None = None, starting_scores: list[int] | None = None) -> dict:
        """A new game (see ``POST /games``); stored only once everything is checked.

        Raises:
            ServiceError: 400 for bad seats, variant, rules, starting scores, a target
                score over :data:`MAX_SCORE`, an unavailable bot policy or one that
                cannot play the variant.
        """
        seats = self._check_seats(seats)
        try:
            options = preset(variant, **(rules or {}))
        except (OptionsError, TypeError) as e:
            raise ServiceError(400, f"bad variant or rules: {e}") from None
        if options.rounds == 0 and options.target_score > MAX_SCORE:
            raise ServiceError(400, f"target_score {options.target_score} is over this server's "
                                    f"limit of {MAX_SCORE}")
        scores = (0, 0)
        if starting_scores is not None:
            if len(starting_scores) != 2:
                raise ServiceError(400, f"starting_scores must be two ints (partnerships 0 and "
                                        f"1), got {starting_scores!r}")
            if any(abs(s) > MAX_SCORE for s in starting_scores):
                raise ServiceError(400, f"starting_scores must be within -{MAX_SCORE}.."
                                        f"{MAX_SCORE}, got {starting_scores!r}")
            scores = (int(starting_scores[0]), int(starting_scores[1]))
        # the bots' policy must fit the variant: refused here, before the deal and the store
        policy, bot = self.bot(bot_policy, options) if "bot" in seats else (None, None)
        if seed is None:
            seed = secrets.randbelow(2**31)  # stored: later deals are the same after a restart
        try:
            game = Game(options, seed=seed, scores=scores)
        except ValueError as e:
            raise ServiceError(400, f"cannot start the game: {e}") from None
        tokens = [secrets.token_urlsafe(24) if kind == "human" else None for kind in seats]
        now = time.time()
        row = GameRow(secrets.token_hex(8), options.variant, seats, policy, auto_deal,
                      [None if t is None else hash_token(t) for t in tokens], {}, 0, 0,
                      "waiting", now, now)
        if "human" not in seats and auto_deal:
            moves, status = [], "running"  # a whole game of bots: in the background
        else:
            moves, status = self._play(game, row, bot)
        row.position, row.status = to_position(game), status
        self.store.insert(row, moves)
        self.events.poke(row.game_id)  # events hook
        if status == "running":
            self._submit(row.game_id)
        self._keep(row, game)
        self._evict()
        humans = [s for s in range(4) if seats[s] == "human"]
        return {"game_id": row.game_id, "seats": seats, "bot_policy": policy,
                "auto_deal": auto_deal, "tokens": tokens, "moves": _public_moves(moves),
                "view": self._view(row, game, humans[0] if humans else None)}

    @staticmethod
    def _check_seats(seats) -> list[str]:
        if not isinstance(seats, list) or len(seats) != 4:
            raise ServiceError(400, f"seats must list 4 entries (seats 0..3), each 'human' or "
                                    f"'bot'; got {seats!r}")
        out = []
        for i, s in enumerate(seats):
            kind = s.strip().lower() if isinstance(s, str) else s
            if kind not in SEAT_KINDS:
                raise ServiceError(400, f"seats[{i}] must be 'human' or 'bot', got {s!r}")
            out.append(kind)
        return out

    def _play(self, game: Game, row: GameRow, bot: Bot | None,
              limit: int | None = None) -> tuple[list[dict], str]:
        """Bots play until a human is on turn or the hand (the game, with auto_deal)
        ends, at most ``limit`` decisions (default ``max_decisions``). Returns the moves
        (with ``hand_number``) and the game's status (``running``: bots still to play)."""
        limit = self.max_decisions if limit is None else limit
        moves: list[dict] = []
        while not game.game_over:
            if game.hand_over:
                if not row.auto_deal:
                    break
                game.next_hand()
                continue
            seat = game.to_move
            if row.seats[seat] != "bot":
                break
            if len(moves) >= limit:
                return moves, "running"
            action = self._decide(bot, game, seat)
            hand = game.hand_number
            game.apply(action)
            moves.append({**move_record(seat, action, game), "hand_number": hand})
        return moves, "over" if game.game_over else "waiting"

    def _save(self, row: GameRow, game: Game, moves: list[dict], status: str) -> None:
        try:
            self.store.save(row, to_position(game), moves, status)
        except Conflict:
            raise ServiceError(409, f"game {row.game_id!r} was changed by another request "
                                    f"meanwhile (or forgotten); GET it and try again") from None
        self.events.poke(row.game_id)  # events hook
        if status == "running":
            self._submit(row.game_id)

    def _take(self, row: GameRow) -> Game:
        """The game of ``row`` for a request holding its lock, to change: the kept Game
        when it is at the stored version, else parsed from the stored position. The
        caller gives it back with :meth:`_keep` once its changes are stored (a request
        that fails never does: the next one parses the stored position)."""
        with self._lock:
            kept = self._games.pop(row.game_id, None)
        if kept is not None and kept[0] == row.version:
            return kept[1]
        return self._load_game(row)

    def _keep(self, row: GameRow, game: Game) -> None:
        with self._lock:
            self._games[row.game_id] = (row.version, game)
            while len(self._games) > GAMES_KEPT:
                self._games.popitem(last=False)

    @staticmethod
    def _load_game(row: GameRow) -> Game:
        # a position this service stored: every check but the (slow) look-ahead one that
        # catches hand-edited turn records (Game.clone skips it too)
        return from_position(row.position, check_moves=False)

    def view(self, game_id: str, token: str | None = None, seat: int | None = None) -> dict:
        """The view of the token's seat (public without a token). Reads the stored game
        without waiting for bots playing it."""
        row = self._row(game_id)
        seat = self._auth(row, token, seat, "the view")
        now = time.time()
        if now - row.last_used > TOUCH_EVERY:
            self.store.touch(game_id, now)
        if row.status == "running":
            self._submit(game_id)  # e.g. its process died: this one carries on
        return self._view(row, self._load_game(row), seat)

    def moves(self, game_id: str, after: int = 0, limit: int = 100) -> dict:
        row = self._row(game_id)
        if not 1 <= limit <= MAX_LOG_PAGE:
            raise ServiceError(400, f"limit must be 1..{MAX_LOG_PAGE}, got {limit}")
        return {"game_id": game_id, "decisions": row.decisions,
                "moves": [with_words(m) for m in
                          # no seq comes near 2**62: a larger ``after`` (even past the
                          # database's 64-bit ints) is an empty page, not an overflow
                          self.store.move_log(game_id, min(max(0, after), 2**62),
                                              limit)]}

    def replay(self, game_id: str, token: str | None = None, seat: int | None = None) -> dict:
        """The game replayed from its deal as the token's seat saw it (the public view
        without a token): one frame per move, see :func:`canasta_env.bots.table.replay`.

        Raises:
            ServiceError: 401 / 403 as for the view; 404 unknown game; 409 the bots are
                playing it, or its log is longer than :data:`MAX_REPLAY`.
        """
        row = self._row(game_id)
        seat = self._auth(row, token, seat, "the replay")
        if row.status == "running":
            raise ServiceError(409, f"the bots are playing (decisions so far: {row.decisions}); "
                                    f"replay it once GET /games/{game_id} is not 'running'")
        if row.decisions > MAX_REPLAY:
            raise ServiceError(409, f"the game has {row.decisions} moves; a replay is offered "
                                    f"for at most {MAX_REPLAY}")
        moves: list[dict] = []
        while len(moves) < row.decisions:
            page = self.store.move_log(game_id, len(moves), MAX_LOG_PAGE)
            if not page:
                break
            moves += page
        try:
            return replay_document(game_id, row.seats, seat, row.position, moves, seat_view)
        except ValueError as e:
            raise ServiceError(409, f"game {game_id!r} cannot be replayed: {e}") from None

    def _view(self, row: GameRow, game: Game, seat: int | None) -> dict:
        v = seat_view(game, seat, row.position)  # the stored position is the game's
        v.update(game_id=row.game_id, seats=row.seats, bot_policy=row.bot_policy,
                 auto_deal=row.auto_deal, status=row.status, decisions=row.decisions)
        # the card table's "you drew" mark, kept across reloads (a replay of this hand)
        v["drawn"] = turn_drawn(row.position, seat)
        return v

    def act(self, game_id: str, token: str | None, seat: int | None, action: int | str) -> dict:
        with self._game_lock(game_id):
            row = self._row(game_id)
            seat = self._auth(row, token, seat, "an action")
            if seat is None:
                raise _unauthorized("an action needs a seat token (Authorization: Bearer "
                                    "<token from POST /games>)")
            if row.status == "running":
                raise ServiceError(409, f"the bots are playing (decisions so far: "
                                        f"{row.decisions}); GET /games/{game_id} shows when a "
                                        f"human is on turn")
            game = self._take(row)
            if game.to_move is None:
                what = "game" if game.game_over else "hand"
                hint = "" if game.game_over else f"; POST /games/{game_id}/next_hand deals the next"
                raise ServiceError(409, f"the {what} is over, nobody is on turn{hint}")
            if game.to_move != seat:
                raise ServiceError(409, f"not seat {seat}'s turn: seat {game.to_move} "
                                        f"({row.seats[game.to_move]}) is to move, phase "
                                        f"{game.phase.name}")
            action_id = self._action_id(action, game)
            hand = game.hand_number
            try:
                game.apply(action_id)
            except IllegalActionError as e:
                legal = ", ".join(f"{a} {game.table.describe(a)!r}" for a in game.legal_actions())
                raise ServiceError(400, f"{e}. Legal now: {legal}") from None
            # the cards the seat drew (its own to see), before the bots move on
            drawn = drawn_cards(row.position, to_position(game), seat) if action_id == 0 else None
            moves = [{**move_record(seat, action_id, game), "hand_number": hand}]
            more, status = self._play(game, row, self._row_bot(row) if "bot" in row.seats else None)
            moves += more
            self._save(row, game, moves, status)
            self._keep(row, game)
            return {"moves": _public_moves(moves), "view": self._view(row, game, seat),
                    "drawn": drawn}

    @staticmethod
    def _action_id(action: int | str, game) -> int:
        if isinstance(action, str):
            text = action.strip()
            if text.isascii() and text.isdigit():
                digits = text.lstrip("0") or "0"
                if len(digits) > 12:  # no id is that long; int() refuses over 4,300 digits
                    raise ServiceError(400, f"action id {digits[:12]}... ({len(digits)} digits) "
                                            f"is outside 0..{game.table.num_actions - 1}")
                return int(digits)
            try:
                return game.table.parse(text)
            except ValueError as e:
                raise ServiceError(400, f"{e}; send an action id (ASCII digits) or a "
                                        f"description from legal_actions") from None
        return action

    def next_hand(self, game_id: str, token: str | None, seat: int | None = None) -> dict:
        with self._game_lock(game_id):
            row = self._row(game_id)
            mine = self._any_human(row, token, "next_hand")
            seat = self._auth(row, token, seat, "the view") if seat is not None else mine
            if row.status == "running":
                raise ServiceError(409, f"the bots are playing (decisions so far: "
                                        f"{row.decisions}); GET /games/{game_id} shows progress")
            game = self._take(row)
            if game.game_over:
                raise ServiceError(409, f"the game is over (scores {game.scores}); start a new "
                                        f"game with POST /games")
            if not game.hand_over:
                raise ServiceError(409, f"hand {game.hand_number + 1} is still being played "
                                        f"(phase {game.phase.name}); next_hand needs a finished "
                                        f"hand")
            game.next_hand()
            moves, status = self._play(game, row, self._row_bot(row) if "bot" in row.seats else None)
            self._save(row, game, moves, status)
            self._keep(row, game)
            return {"moves": _public_moves(moves), "view": self._view(row, game, seat)}

    def delete(self, game_id: str, token: str | None = None) -> None:
        with self._game_lock(game_id):
            row = self._row(game_id)
            self._any_human(row, token, "deleting a game")
            self.store.delete([game_id])
        self.events.poke(game_id)  # events hook
        with self._lock:
            self._game_locks.pop(game_id, None)
            self._games.pop(game_id, None)

    # --------------------------------------------------------------- background
    def _submit(self, game_id: str) -> None:
        with self._lock:
            if game_id in self._running or self._closed.is_set():
                return
            self._running.add(game_id)
        try:
            self._executor.submit(self._background, game_id)
        except RuntimeError:  # shut down meanwhile
            with self._lock:
                self._running.discard(game_id)

    def _background(self, game_id: str) -> None:
        """Bots play a ``running`` game, :data:`CHUNK` decisions at a time (each chunk
        stored), until a human is on turn or the hand / game ends."""
        try:
            while not self._closed.is_set():
                with self._game_lock(game_id):
                    row = self.store.load(game_id)
                    if row is None or row.status != "running":
                        return
                    game = self._take(row)
                    moves, status = self._play(game, row, self._row_bot(row), CHUNK)
                    self.store.save(row, to_position(game), moves, status)
                    self.events.poke(game_id)  # events hook
                    self._keep(row, game)
                if status != "running":
                    return
                time.sleep(0.001)  # let requests for this game in
        except Conflict:  # another process plays it, or it was forgotten
            return
        except Exception:  # noqa: BLE001 - stays stored as running; the next GET retries
            log.exception("background play of game %s failed", game_id)
        finally:
            with self._lock:
                self._running.discard(game_id)

    # --------------------------------------------------------------- housekeeping
    def sweep(self, now: float | None = None) -> int:
        """Forget the games idle for longer than ``idle_expiry``; returns how many."""
        now = time.time() if now is None else now
        ids = self.store.expired(now - self.idle_expiry)
        n = self.store.delete(ids)
        with self._lock:
            for game_id in ids:
                self._game_locks.pop(game_id, None)
                self._games.pop(game_id, None)
        return n

    def _evict(self) -> None:
        over = self.store.count() - self.max_games
        if over > 0:
            ids = self.store.least_recently_used(over)
            self.store.delete(ids)
            with self._lock:
                for game_id in ids:
                    self._game_locks.pop(game_id, None)
                    self._games.pop(game_id, None)

    def _sweep_loop(self) -> None:
        interval = min(60.0, max(0.5, self.idle_expiry / 4))
        while not self._closed.wait(interval):
            try:
                self.sweep()
            except Exception:  # noqa: BLE001 - e.g. the database is away for a moment
                log.exception("expiry sweep failed")

    # --------------------------------------------------------------- stateless
    def _position_game(self, position: Any, seat: int) -> Game:
        try:
            game = position_game(position)
        except PositionError as e:
            raise ServiceError(400, f"malformed position: {e}") from None
        if game.to_move is None:
            raise ServiceError(409, f"nobody is on turn in this position (phase {game.phase.name})")
        if game.to_move != seat:
            raise ServiceError(409, f"seat {seat} is not on turn in this position; seat "
                                    f"{game.to_move} is to move (phase {game.phase.name})")
        return game

    def move(self, position: Any, seat: int, policy: str | None) -> dict:
        """The bot's next decision in ``position`` (``POST /move``).

        Raises:
            ServiceError: 400 malformed position or a policy that cannot play its
                variant; 409 ``seat`` is not on turn.
        """
        game = self._position_game(position, seat)
        name, bot = self.bot(policy, game.options)
        action = bot.act(game, seat)
        return {"action": action, "description": game.table.describe(action), "policy": name}

    def turn(self, position: Any, seat: int, policy: str | None) -> dict:
        """The bot's whole turn from ``position`` (``POST /turn``).

        Raises:
            ServiceError: as :meth:`move`.
        """
        game = self._position_game(position, seat)
        name, bot = self.bot(policy, game.options)
        moves = [with_words(m) for m in bot.play_seat_turn(game, seat)]
        return {"position": to_position(game), "moves": moves, "policy": name}


def _public_moves(moves: list[dict]) -> list[dict]:
    return [with_words({"seat": m["seat"], "action": m["action"],
                        "description": m["description"]}) for m in moves]


# ---------------------------------------------------------------------- request bodies
def _seat_field(default: Any = ...):
    return Field(default, ge=0, le=3, description="seat 0..3 (partners 0+2 and 1+3)")


class NewGame(BaseModel):
    """Body of ``POST /games``."""

    model_config = ConfigDict(extra="forbid")
    seats: list[StrictStr] = Field(
        ..., description="4 entries, seat 0..3: 'human' or 'bot'",
        examples=[["human", "bot", "bot", "bot"]])
    variant: StrictStr = Field("classic", description="rules preset: 'classic' or "
                                                      "'hand_and_foot'")
    seed: StrictInt | None = Field(None, description="deal seed (random if omitted)")
    bot_policy: StrictStr | None = Field(
        None, description="'heuristic', 'random', 'reference', 'search' or the server's --policy "
                          "(default)")
    auto_deal: bool = Field(False, description="deal the next hand as soon as one ends")
    rules: dict[str, Any] | None = Field(
        None, description="rules options changed from the preset, e.g. "
                          f"{{'black_three_freezes': true}}; target_score <= {MAX_SCORE}")
    starting_scores: list[StrictInt] | None = Field(
        None, description="cumulative scores of partnerships 0 and 1 at the start")


class Action(BaseModel):
    """Body of ``POST /games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    seat: StrictInt | None = _seat_field(None)
    action: StrictInt | StrictStr = Field(
        ..., description="an action id (or its ASCII digits), or its description (e.g. "
                         "'draw from stock')")


class PositionRequest(BaseModel):
    """Body of the stateless ``POST /move`` and ``POST /turn``."""

    model_config = ConfigDict(extra="forbid")
    position: dict[str, Any] = Field(..., description="a canasta_env position (JSON)")
    seat: StrictInt = _seat_field()
    policy: StrictStr | None = Field(None, description="bot policy (default: the server's)")


# ---------------------------------------------------------------------- responses
class Move(BaseModel):
    seat: int
    action: int
    description: str
    words: str = Field(description="the move in plain words, to follow the player's name "
                                   "('discards a 7')")


#: what ``hand_number`` means wherever the service shows it
HAND_NUMBER = ("hands dealt before this one in the game: 0 for the first hand (people are "
               "shown this plus 1: 'hand 1'); in Hand and Foot the round minus 1 (0 to the "
               "game's rounds minus 1)")


class LoggedMove(Move):
    seq: int = Field(description="1, 2, ... in the game's move log")
    hand_number: int = Field(description=HAND_NUMBER)


class LegalAction(BaseModel):
    action: int
    description: str


class Player(BaseModel):
    seat: int
    partnership: int
    hand_size: int
    red_threes: int
    known_cards: list[str] = Field(description="cards known to be in the hand (pile pickups)")


class Meld(BaseModel):
    naturals: int
    jokers: int
    twos: int
    cards: int
    canasta: str | None = Field(description="'natural', 'mixed' or null")


class Pile(BaseModel):
    size: int
    top: str | None
    cards: list[str]
    frozen: bool
    frozen_for: list[bool] = Field(description="per partnership")
    stop_card: bool
    set_aside: list[str] = Field(description="a pile taken for an opening, set aside (public)")


class TurnInfo(BaseModel):
    seat: int
    opening_points: int
    pile_set_aside: int
    asked_partner: str | None


class HandAndFootView(BaseModel):
    in_foot: list[bool] = Field(description="per seat: playing from the foot")
    rounds: int = Field(description="the rounds of the game (hand_number counts them from 0)")
    foot_sizes: list[int] = Field(description="per seat: cards of the foot not yet picked up")
    books: list[list[Any]] = Field(description="per partnership: closed books")
    wild_melds: list[dict[str, int]] = Field(description="per partnership: the open wild "
                                                         "meld (jokers, twos)")


class View(BaseModel):
    """What one seat (or, with ``seat`` null, anyone) may see of a game."""

    game_id: str
    status: str = Field(description="'waiting', 'running' (bots playing in the background) "
                                    "or 'over'")
    decisions: int = Field(description="moves in the game's log so far")
    seats: list[str]
    bot_policy: str | None
    auto_deal: bool
    seat: int | None = Field(description="the seat whose view this is; null: public")
    partnership: int | None
    variant: str
    hand_number: int = Field(description=HAND_NUMBER)
    dealer: int
    phase: str
    to_move: int | None
    current: int
    hand_over: bool
    game_over: bool
    winner: int | None
    scores: list[int]
    target_score: int
    hand: list[str] | None = Field(description="the seat's own cards; null in the public view")
    players: list[Player]
    melds: list[dict[str, Meld]] = Field(description="per partnership: rank -> meld")
    opened: list[bool]
    opening_minimum: list[int]
    pile: Pile
    stock_size: int
    turn: TurnInfo
    legal_actions: list[LegalAction] = Field(description="when the seat is on turn")
    moves: list[Move] = Field(description="this hand's moves")
    score_sheets: list[dict[str, Any]] | None
    went_out: int | None
    history: list[dict[str, Any]] = Field(description="finished hands' score sheets")
    sheet_rows: list[str] = Field(description="the score sheet's rows in counting order")
    revealed: Revealed | None = Field(description="once the hand is over: every hand (and "
                                                  "foot) left, as laid down for counting")
    hand_and_foot: HandAndFootView | None = Field(
        None, description="Hand and Foot only: feet, books, wild melds; null in Classic")
    text: str | None = Field(None, description="the seat's view as text; null in the public "
                                               "view")
    drawn: list[str] | None = Field(
        None, description="the cards the seat drew from the stock on its turn now under way "
                          "('red 3' for each red 3 laid out); null when it is not the seat's "
                          "turn or it has not drawn from the stock")


class GameCreated(BaseModel):
    game_id: str
    seats: list[str]
    bot_policy: str | None
    auto_deal: bool
    tokens: list[str | None] = Field(description="per seat: the secret bearer token of a "
                                                 "human seat, null for a bot; shown only here")
    moves: list[Move]
    view: View


class ActionResult(BaseModel):
    moves: list[Move] = Field(description="the request's moves: the human's first, then the bots'")
    view: View
    drawn: list[str] | None = Field(None, description="after 'draw from stock': the cards the "
                                                      "seat drew ('red 3' for each red 3 laid "
                                                      "out); null otherwise")


class Revealed(BaseModel):
    hands: list[list[str]] = Field(description="per seat: the cards left in the hand")
    feet: list[list[str]] | None = Field(description="Hand and Foot: per seat, the foot if "
                                                     "not picked up; null in Classic")


class Replay(BaseModel):
    """A game replayed from its deal as one seat saw it; also the page's game log file."""

    format: str = Field(description="'canasta_env.replay'")
    version: int
    game_id: str
    variant: str
    seats: list[str]
    seat: int | None = Field(description="whose views the frames are; null: public")
    moves: list[LoggedMove] = Field(description="the whole move log")
    frames: list[dict[str, Any]] = Field(
        description="frame i: the seat's view after i moves (as GET /games/{id}, without "
                    "'moves' and 'text'), with 'step', 'last_move' and the cards 'drawn' by "
                    "the seat's own draw; a last frame for a hand dealt after the last move")


class MovesPage(BaseModel):
    game_id: str
    decisions: int
    moves: list[LoggedMove]


class MoveResult(BaseModel):
    action: int
    description: str
    policy: str


class TurnResult(BaseModel):
    position: dict[str, Any]
    moves: list[Move]
    policy: str


class Deleted(BaseModel):
    deleted: str


class Index(BaseModel):
    service: str
    docs: str
    openapi: str
    default_policy: str
    policies: list[str]
    games: int
    table: str = Field(description="the card table page (HTML, for a browser)")
    static: str = Field(description="the page's static files")


class BodyLimit:
    """ASGI middleware: a request body over ``max_body`` bytes is a 413."""

    def __init__(self, app, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    def _message(self, size: str) -> str:
        return f"request body of {size} bytes is over this server's limit of {self.max_body}"

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        from fastapi import HTTPException
        from fastapi.responses import JSONResponse

        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.max_body:
            response = JSONResponse({"detail": self._message(length.decode())}, status_code=413)
            return await response(scope, receive, send)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise HTTPException(413, self._message(f"over {self.max_body}"))
            return message

        await self.app(scope, limited, send)


# ---------------------------------------------------------------------- the FastAPI app
def create_app(policy: str = "reference", max_games: int = 1000, db: str | None = None,
               idle_expiry: float = IDLE_EXPIRY, max_decisions: int = MAX_DECISIONS,
               max_body: int = MAX_BODY, bot_threads: int = 2,
               before_store: Callable[[], None] | None = None,
               stream_limits: dict | None = None):
    """The FastAPI application (see the module docstring); its :class:`Service` is
    ``app.state.service``. ``stream_limits``: the event streams' limits (see
    :class:`~canasta_env.bots.events.EventHub`).

    Raises:
        ServiceError: the default ``policy`` cannot be loaded (e.g. no reference file is
            usable, or a ``.zip`` while ``training`` is not imported), the database
            cannot be opened, or an option is out of range.
    """
    from contextlib import asynccontextmanager

    from fastapi import Depends, FastAPI, Header, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import FileResponse, JSONResponse
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
    from fastapi.staticfiles import StaticFiles

    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body <= 0:
        raise ServiceError(400, f"max_body must be a positive int, got {max_body!r}")
    try:
        service = Service(policy, max_games, db, idle_expiry, max_decisions, bot_threads,
                          before_store, stream_limits)
    except ValueError as e:  # a stream limit out of range
        raise ServiceError(400, str(e)) from None

    @asynccontextmanager
    async def lifespan(app):
        yield
        service.close()

    app = FastAPI(
        title="canasta_env bots",
        version="0.2.0",
        description="Canasta (Classic, Hand and Foot) games against trained or rule-based "
                    "bots, stored durably; each human seat acts with its bearer token. "
                    "Positions use the JSON format of canasta_env.engine.to_position.",
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(BodyLimit, max_body=max_body)
    bearer = HTTPBearer(auto_error=False, description="a seat token from POST /games")

    def seat_token(creds: HTTPAuthorizationCredentials | None = Depends(bearer),  # noqa: B008
                   ) -> str | None:
        """The bearer token of the request, if any (checked against the game)."""
        return None if creds is None else creds.credentials

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        return JSONResponse(status_code=exc.status, content={"detail": exc.message},
                            headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        parts = [f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in exc.errors()]
        return JSONResponse(status_code=422, content={
            "detail": "invalid request: " + "; ".join(parts),
            "errors": [{"loc": list(err["loc"]), "msg": err["msg"]} for err in exc.errors()]})

    def service_index() -> Index:
        return Index(service="canasta_env bots", docs="/docs", openapi="/openapi.json",
                     default_policy=service.default_policy,
                     policies=sorted({*BUILTIN_POLICIES, service.default_policy}),
                     games=service.count(), table="/", static="/static/")

    @app.get("/", summary="The card table (a browser asking for HTML) or the service index",
             responses={200: {"content": {"text/html": {}}}})
    def index(accept: str = Header("", include_in_schema=False)) -> Index:
        if "text/html" in accept:
            return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)
        return service_index()

    @app.get("/api", summary="Service index")
    def api_index() -> Index:
        return service_index()

    app.mount("/static", StaticFiles(directory=STATIC, follow_symlink=False), name="static")

    @app.post("/games", status_code=201,
              summary="Start a game; bots move until a human is on turn. Returns the seat tokens")
    def new_game(req: NewGame) -> GameCreated:
        return service.create(req.seats, req.variant, req.seed, req.bot_policy, req.auto_deal,
                              req.rules, req.starting_scores)

    @app.get("/games/{game_id}", summary="The token's seat's view (public view without a token)")
    def get_game(game_id: str, seat: int | None = Query(None, ge=0, le=3),
                 token: str | None = Depends(seat_token)) -> View:
        return service.view(game_id, token, seat)

    @app.get("/games/{game_id}/moves", summary="The game's move log (public)")
    def get_moves(game_id: str, after: int = Query(0, ge=0, description="moves after this seq"),
                  limit: int = Query(100, description=f"1..{MAX_LOG_PAGE}")) -> MovesPage:
        return service.moves(game_id, after, limit)

    @app.get("/games/{game_id}/replay",
             summary="The game replayed from its deal as the token's seat saw it (public "
                     "without a token): the page's replay view and game log file")
    def get_replay(game_id: str, seat: int | None = Query(None, ge=0, le=3),
                   token: str | None = Depends(seat_token)) -> Replay:
        return service.replay(game_id, token, seat)

    @app.post("/games/{game_id}/actions",
              summary="The token's seat's decision; then the bots move")
    def post_action(game_id: str, req: Action,
                    token: str | None = Depends(seat_token)) -> ActionResult:
        return service.act(game_id, token, req.seat, req.action)

    @app.post("/games/{game_id}/next_hand", summary="Deal the next hand after a finished hand")
    def post_next_hand(game_id: str, seat: int | None = Query(None, ge=0, le=3),
                       token: str | None = Depends(seat_token)) -> ActionResult:
        return service.next_hand(game_id, token, seat)

    @app.delete("/games/{game_id}", summary="Forget a game")
    def delete_game(game_id: str, token: str | None = Depends(seat_token)) -> Deleted:
        service.delete(game_id, token)
        return Deleted(deleted=game_id)

    # events hook: GET /games/{game_id}/events (canasta_env.bots.event_routes)
    from .event_routes import add_event_routes

    add_event_routes(app, service, seat_token, ServiceError)

    @app.post("/move", summary="Stateless: the bot's next decision in a position")
    def post_move(req: PositionRequest) -> MoveResult:
        return service.move(req.position, req.seat, req.policy)

    @app.post("/turn", summary="Stateless: the bot plays its whole turn from a position")
    def post_turn(req: PositionRequest) -> TurnResult:
        return service.turn(req.position, req.seat, req.policy)

    return app


def bind(host_name: str, port_number: int) -> socket.socket:
    """A TCP socket bound to ``(host_name, port_number)`` (not listening yet), for
    uvicorn: binding here turns every bind failure into one clear error.

    Raises:
        OSError: the host name does not resolve (``socket.gaierror``), the port is in
            use, the address is not one of this machine's, or no permission.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host_name, port_number, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the service (``argv``: the command-line arguments, default ``sys.argv[1:]``;
    ``prog``: the command name in ``--help``). Returns the exit code: 0 after the server
    stops, or 2 when the default ``--policy`` cannot be loaded, ``--db`` cannot be
    opened or ``--host`` / ``--port`` cannot be bound (one line on stderr).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog=prog,
                       description="Canasta bots as an HTTP JSON service (docs at /docs).")
    p.add_argument("--host", type=host, default="127.0.0.1",
                   help="interface (default: localhost only)")
    p.add_argument("--port", type=port, default=8000, help="TCP port 1..65535 (default 8000)")
    p.add_argument("--policy", default="reference",
                   help="default bot policy: reference (checkpoints/reference/, the .onnx "
                        "with onnxruntime), heuristic, search, random, or a .onnx path (.zip "
                        "checkpoints: through python -m training.serve)")
    p.add_argument("--db", default=None,
                   help="where games are stored: an SQLite file (default "
                        "canasta_games.sqlite3 in the working directory) or a database URL "
                        "(sqlite:///PATH, postgresql://USER:PASSWORD@HOST:PORT/DB)")
    p.add_argument("--max-games", type=positive_int, default=1000,
                   help="games stored; beyond it the least recently used are forgotten "
                        "(default 1000)")
    p.add_argument("--idle-expiry", type=positive_float, default=IDLE_EXPIRY,
                   help=f"seconds after its last use a game is forgotten (default "
                        f"{IDLE_EXPIRY:.0f}: 7 days)")
    p.add_argument("--max-decisions", type=positive_int, default=MAX_DECISIONS,
                   help=f"bot decisions one request plays at most; the rest are played in "
                        f"the background (default {MAX_DECISIONS})")
    p.add_argument("--max-body", type=positive_int, default=MAX_BODY,
                   help=f"largest request body in bytes (default {MAX_BODY})")
    p.add_argument("--bot-threads", type=positive_int, default=2,
                   help="threads playing bot-only games in the background (default 2)")
    # events hook: the event streams' limits
    p.add_argument("--max-streams", type=positive_int, default=MAX_STREAMS,
                   help=f"event streams (GET /games/ID/events) open at most; more are a 429 "
                        f"(default {MAX_STREAMS})")
    p.add_argument("--max-game-streams", type=positive_int, default=MAX_GAME_STREAMS,
                   help=f"event streams of one game open at most (default {MAX_GAME_STREAMS})")
    p.add_argument("--events-poll", type=positive_float, default=POLL,
                   help=f"seconds between polls of the database for moves stored by other "
                        f"processes (default {POLL})")
    p.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug", "trace"])
    args = p.parse_args(argv)
    missing = [m for m in ("fastapi", "uvicorn", "sqlalchemy", "sse_starlette")
               if importlib.util.find_spec(m) is None]
    if missing:
        return fail(p.prog, f"the service needs {', '.join(missing)}: install the bots extra "
                            f"(pip install -e \".[bots]\")")
    bound: list[socket.socket] = []
    try:
        # the policy is loaded first, then the port bound, then the database opened
        app = create_app(args.policy, args.max_games, args.db, args.idle_expiry,
                         args.max_decisions, args.max_body, args.bot_threads,
                         before_store=lambda: bound.append(bind(args.host, args.port)),
                         stream_limits={"max_streams": args.max_streams,
                                        "max_game_streams": args.max_game_streams,
                                        "poll": args.events_poll})
    except ServiceError as e:
        for sock in bound:
            sock.close()
        return fail(p.prog, e.message)
    except OSError as e:
        return fail(p.prog, f"cannot listen on {args.host}:{args.port}: "
                            f"{e.strerror or e}")
    sock = bound[0]
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port,
                                           log_level=args.log_level))
    if args.log_level in ("info", "debug", "trace"):  # uvicorn says nothing of given sockets
        shown = f"[{args.host}]" if ":" in args.host else args.host
        print(f"serving on http://{shown}:{args.port} (docs at /docs; Ctrl-C stops)",
              file=sys.stderr, flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it stopped on: a normal stop
        pass
    finally:
        sock.close()
    return 0


__all__ = ["Service", "ServiceError", "seat_view", "create_app", "main", "MAX_SCORE",
           "MAX_DECISIONS", "MAX_BODY"]

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.service"))
