"""The service core: games in a database, bots by policy spec, and the rules of each request.

:class:`Service` needs no FastAPI: the HTTP layer (:mod:`.app`, :mod:`.routes`) only maps its
methods and :class:`ServiceError` onto routes and status codes.

Durability: every game and every accepted move is stored before the method returns (see
:mod:`canasta_env.bots.store`); after a crash or ``kill -9`` and a restart every game
continues from its last accepted move, and games whose bots were playing in the background
carry on. Bots of different games play concurrently, each game under its own lock; a bot
whose policy fails (or is no longer offered after a restart) is replaced for that decision by
the heuristic, so every stored game can always advance or is finished. Nothing is stored for
a request that fails. Seat tokens are stored only as SHA-256 hashes; a view never contains
another seat's hidden cards or the stock order. Checkpoint paths other than the server's
``--policy`` are refused, because loading a checkpoint unpickles it.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from canasta_env.engine import (
    Game,
    IllegalActionError,
    PositionError,
    from_position,
    to_position,
)

from ..bot import Bot, position_game
from ..events import EventHub, Recording
from ..loader import PolicySpecError
from ..store import Conflict, GameRow, GameStore, StoreError, hash_token
from ..table import drawn_cards, replay_document, turn_drawn, with_words
from .auth import any_human, authorize
from .errors import ServiceError, unauthorized
from .limits import (
    BUILTIN_POLICIES,
    CHUNK,
    GAMES_KEPT,
    IDLE_EXPIRY,
    MAX_BOT_PROCESSES,
    MAX_DECISIONS,
    MAX_LOG_PAGE,
    MAX_REPLAY,
    SEAT_KINDS,
    SEED_MAX,
    SEED_MIN,
    TOUCH_EVERY,
)
from .playing import apply_move, decide, play_bots
from .rules import bots_can_play, game_options, starting
from .view import seat_view
from .workers import BotProcesses, WorkerError

log = logging.getLogger("canasta_env.bots.service")


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
        bot_threads: threads playing bots in the background (without ``bot_processes``).
        bot_processes: worker processes playing bots in the background instead of
            threads (:mod:`.workers`; 0: threads).
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
                 stream_limits: dict | None = None, bot_processes: int = 0) -> None:
        for name, value in (("max_games", max_games), ("idle_expiry", idle_expiry),
                            ("max_decisions", max_decisions), ("bot_threads", bot_threads)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ServiceError(400, f"{name} must be a positive number, got {value!r}")
        if type(bot_processes) is not int or not 0 <= bot_processes <= MAX_BOT_PROCESSES:
            raise ServiceError(400, f"bot_processes must be an int in 0..{MAX_BOT_PROCESSES}, "
                                    f"got {bot_processes!r}")
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
        # the game event streams (canasta_env.bots.events), woken by each save; their
        # limits are checked before anything is loaded or opened
        self.events = EventHub(None, **(stream_limits or {}))
        self.bot(None)  # load the default now: a missing policy file fails at start-up
        if before_store is not None:  # the command line binds its port here: a port in use
            before_store()            # is refused before a database file is created
        try:  # checked (a damaged or read-only SQLite file is refused) and migrated
            self.store = GameStore(db)
            running = self.store.ids_with_status("running")  # interrupted by a restart
        except StoreError as e:
            raise ServiceError(400, str(e)) from None
        self.events.store = self.store
        # the Game of each recently saved game at its stored version: a request that finds
        # the same version in the database takes it instead of parsing the position
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        self._executor = ThreadPoolExecutor(int(bot_threads), thread_name_prefix="canasta-bots")
        self._workers = None
        if bot_processes:
            try:
                self._workers = BotProcesses(bot_processes, self.store.url, policy,
                                             self.events.publish, self._done)
            except WorkerError as e:
                self.store.close()
                raise ServiceError(400, str(e)) from None
        for game_id in running:
            self._submit(game_id)
        self._sweeper = threading.Thread(target=self._sweep_loop, name="canasta-expiry",
                                         daemon=True)
        self._sweeper.start()

    def close(self) -> None:
        """Stop the background work (games in play stay stored as ``running`` and are
        resumed by the next start) and the database connections."""
        self._closed.set()
        self.events.close()
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self._workers is not None:
            self._workers.close()
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
                    try:  # for the request's variant: a name may have no Classic policy
                        bot = Bot(name, variant=variant)  # PolicySpecError says why
                    except (PolicySpecError, ValueError) as e:
                        what = "cannot be used" if variant is None else "cannot play this game"
                        raise ServiceError(400, f"bot policy {name!r} {what}: {e}") from None
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
        return decide(bot, self._fallback, game, seat)

    # --------------------------------------------------------------- games
    def _game_lock(self, game_id: str) -> threading.Lock:
        with self._lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                lock = self._game_locks[game_id] = threading.Lock()
            return lock

    def _row(self, game_id: str, position: bool = True) -> GameRow:
        row = self.store.load(game_id) if position else self.store.load(game_id, position=False)
        if row is None:
            raise ServiceError(404, f"no game {game_id!r} (unknown id, expired or forgotten)")
        return row

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
        options = game_options(variant, rules)
        scores = starting(starting_scores, options)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not SEED_MIN <= seed <= SEED_MAX):
            raise ServiceError(400, f"seed must be an int in {SEED_MIN}..{SEED_MAX} or null, "
                                    f"got {seed!r}"[:200])
        # the bots' policy must fit the variant: refused here, before the deal and the store
        if "bot" in seats:
            bots_can_play(options)
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
        rec = self.events.recording_new(game)
        if "human" not in seats and auto_deal:
            moves, status = [], "running"  # a whole game of bots: in the background
        else:
            moves, status = self._play(game, row, bot, rec=rec)
        row.position, row.status = to_position(game), status
        self.store.insert(row, moves)
        self.events.adopt(row, rec)
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

    def _play(self, game: Game, row: GameRow, bot: Bot | None, limit: int | None = None,
              rec: Recording | None = None) -> tuple[list[dict], str]:
        """Bots play (see :func:`.playing.play_bots`), at most ``limit`` decisions
        (default ``max_decisions``)."""
        return play_bots(game, row, lambda g, seat: self._decide(bot, g, seat),
                         self.max_decisions if limit is None else limit, rec)

    def _save(self, row: GameRow, game: Game, moves: list[dict], status: str,
              rec: Recording | None = None) -> None:
        position = to_position(game)
        try:
            self.store.save(row, position, moves, status)
        except Conflict:
            raise ServiceError(409, f"game {row.game_id!r} was changed by another request "
                                    f"meanwhile (or forgotten); GET it and try again") from None
        self.events.publish(row.game_id, rec, row.version, position)
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
        seat = authorize(row, token, seat, "the view")
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
        seat = authorize(row, token, seat, "the replay")
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
        # the card table's "you drew" mark, kept across reloads (a replay of this hand)
        v["drawn"] = turn_drawn(row.position, seat)
        v.update(game_id=row.game_id, seats=row.seats, bot_policy=row.bot_policy,
                 auto_deal=row.auto_deal, status=row.status, decisions=row.decisions)
        return v

    def act(self, game_id: str, token: str | None, seat: int | None, action: int | str) -> dict:
        with self._game_lock(game_id):
            row = self._row(game_id)
            seat = authorize(row, token, seat, "an action")
            if seat is None:
                raise unauthorized("an action needs a seat token (Authorization: Bearer "
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
            rec = self.events.recording(game_id, row.decisions)
            try:
                moves = [apply_move(game, seat, action_id, rec)]
            except IllegalActionError as e:
                legal = ", ".join(f"{a} {game.table.describe(a)!r}" for a in game.legal_actions())
                raise ServiceError(400, f"{e}. Legal now: {legal}") from None
            # the cards the seat drew (its own to see), before the bots move on
            drawn = drawn_cards(row.position, to_position(game), seat) if action_id == 0 else None
            more, status = self._play(game, row, self._row_bot(row) if "bot" in row.seats
                                      else None, rec=rec)
            moves += more
            self._save(row, game, moves, status, rec)
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
            mine = any_human(row, token, "next_hand")
            seat = authorize(row, token, seat, "the view") if seat is not None else mine
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
            rec = self.events.recording(game_id, row.decisions)
            if rec is not None:
                rec.dealt(game)
            moves, status = self._play(game, row, self._row_bot(row) if "bot" in row.seats
                                       else None, rec=rec)
            self._save(row, game, moves, status, rec)
            self._keep(row, game)
            return {"moves": _public_moves(moves), "view": self._view(row, game, seat)}

    def delete(self, game_id: str, token: str | None = None) -> None:
        with self._game_lock(game_id):
            row = self._row(game_id)
            any_human(row, token, "deleting a game")
            self.store.delete([game_id])
        self.events.poke(game_id)
        with self._lock:
            self._game_locks.pop(game_id, None)
            self._games.pop(game_id, None)

    # --------------------------------------------------------------- background
    def _submit(self, game_id: str) -> None:
        with self._lock:
            if game_id in self._running or self._closed.is_set():
                return
            self._running.add(game_id)
        if self._workers is not None:
            self._workers.submit(game_id)
            return
        try:
            self._executor.submit(self._background, game_id)
        except RuntimeError:  # shut down meanwhile
            with self._lock:
                self._running.discard(game_id)

    def _done(self, game_id: str) -> None:
        """A bot worker stopped playing ``game_id``."""
        with self._lock:
            self._running.discard(game_id)
            self._games.pop(game_id, None)  # the worker changed it

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
                    rec = self.events.recording(game_id, row.decisions)
                    moves, status = self._play(game, row, self._row_bot(row), CHUNK, rec)
                    position = to_position(game)
                    self.store.save(row, position, moves, status)
                    self.events.publish(game_id, rec, row.version, position)
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
            except StoreError as e:  # e.g. the database is away for a moment: one line
                log.warning("expiry sweep failed: %s", e)
            except Exception:  # noqa: BLE001 - keeps sweeping
                log.exception("expiry sweep failed")

    # --------------------------------------------------------------- stateless
    def _position_game(self, position: Any, seat: int) -> Game:
        try:
            game = position_game(position)
        except PositionError as e:
            raise ServiceError(400, f"malformed position: {e}") from None
        bots_can_play(game.options)
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


__all__ = ["Service", "ServiceError"]
