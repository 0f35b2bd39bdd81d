"""Background bot play in worker processes (``--bot-processes N``).

A game whose bots play on in the background (``status: running``: a four-bot game, or a
request that reached ``--max-decisions``) is played :data:`~.limits.CHUNK` decisions at a
time, each chunk stored (position and moves) in one transaction. With bot processes the
chunks are played in ``N`` worker processes (:func:`main`, started by the server) at a
lower CPU priority (``nice`` :data:`NICE`) instead of threads of the server: the server's
event loop, which answers requests and feeds the event streams, then never waits for a
bot's decision -- the interpreter lock is per process -- and gets the CPU first.

A worker takes turns between the games it is given, one chunk each: it reads the game
from the database, plays a chunk, stores it and sends the server the chunk's events
(:class:`~canasta_env.bots.feeds.Recording`, with the position stored), which the server
publishes to the game's streams (:meth:`~canasta_env.bots.events.EventHub.publish`); a
chunk whose events cannot be used (no feed yet) is read from the move log by the event hub
as any other stored move. The database is the only shared state: a request that changes a
running game is refused (409) as with threads, a game deleted meanwhile ends its play (the
next store is a conflict), and a worker that dies leaves its games stored as ``running``:
the server starts another, and each game resumes at its next request, as after a failed
chunk.

The pipes: the server writes one JSON line of settings, then one game id per line, to a
worker's stdin; the worker writes length-prefixed pickles to its stdout (``ready``,
``stored``, ``done``); its log goes to the server's stderr.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
from typing import Callable

from .limits import CHUNK

log = logging.getLogger("canasta_env.bots.service")

#: the workers' niceness (CPU priority below the server's)
NICE = 10
#: seconds a new worker may take to load its policies before the server gives up
START_TIMEOUT = 120.0
_HEAD = struct.Struct("!I")
#: a worker's command (``-c``: this module is imported by the package, so ``-m`` would
#: run a second copy of it)
_ENTRY = "from canasta_env.bots.service.workers import main; raise SystemExit(main())"


class WorkerError(RuntimeError):
    """A bot worker could not start (its message says why)."""


class _Worker:
    """One worker process and the games it plays (server side)."""

    def __init__(self, settings: dict) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _ENTRY], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, close_fds=True)
        self.games: set[str] = set()
        self.lock = threading.Lock()  # the writes to its stdin
        self.send(json.dumps(settings))

    def send(self, line: str) -> bool:
        with self.lock:
            try:
                self.proc.stdin.write(line.encode() + b"\n")
                self.proc.stdin.flush()
                return True
            except (BrokenPipeError, OSError, ValueError):  # it died (or was closed)
                return False

    def read(self):
        """The next message, or ``None`` once the worker's stdout is closed."""
        head = self.proc.stdout.read(_HEAD.size)
        if len(head) < _HEAD.size:
            return None
        body = self.proc.stdout.read(_HEAD.unpack(head)[0])
        return pickle.loads(body)


class BotProcesses:
    """``n`` worker processes playing the background chunks of running games (see the
    module docstring).

    Args:
        n: worker processes (>= 1).
        db: the database URL of the server's store.
        policy: the server's default policy spec (``--policy``).
        on_stored: ``on_stored(game_id, recording, version, position)`` after each
            stored chunk (called in a thread of the server; the arguments of
            :meth:`~canasta_env.bots.events.EventHub.publish`).
        on_done: ``on_done(game_id)`` when a worker stops playing a game (its status is
            no longer ``running``, it was deleted, it failed, or its worker died).

    Raises:
        WorkerError: ``db`` is SQLite in memory (each worker would open a new, empty
            database); a worker exited or did not start within :data:`START_TIMEOUT`
            seconds (the message has the reason it gave).
    """

    def __init__(self, n: int, db: str, policy: str,
                 on_stored: Callable[[str, object, int, dict], None],
                 on_done: Callable[[str], None]) -> None:
        from ..store import sqlite_in_memory

        if sqlite_in_memory(db):
            raise WorkerError("bot_processes needs a database the worker processes can open "
                              "too (an SQLite file or PostgreSQL), not SQLite in memory")
        self._settings = {"db": db, "policy": policy}
        self._on_stored, self._on_done = on_stored, on_done
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._workers = [_Worker(self._settings) for _ in range(n)]
        for w in self._workers:
            msg = self._first(w)
            if msg is None or msg[0] != "ready":
                self._stop()
                why = msg[1] if msg is not None and msg[0] == "failed" else \
                    f"it exited with code {w.proc.poll()}"
                raise WorkerError(f"a bot worker could not start: {why}")
        for w in self._workers:
            self._listen(w)

    @staticmethod
    def _first(w: _Worker):
        result: list = []
        reader = threading.Thread(target=lambda: result.append(w.read()), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        return result[0] if result else None

    def _listen(self, w: _Worker) -> None:
        threading.Thread(target=self._run_listener, args=(w,), name="canasta-bot-worker",
                         daemon=True).start()

    @property
    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [w.proc.pid for w in self._workers]

    def submit(self, game_id: str) -> None:
        """Have the least busy worker play ``game_id`` while its status is ``running``."""
        with self._lock:
            w = min(self._workers, key=lambda w: len(w.games))
            w.games.add(game_id)
        if not w.send(game_id):
            self._lost(w)

    def _run_listener(self, w: _Worker) -> None:
        while True:
            try:
                msg = w.read()
            except Exception:  # noqa: BLE001 - a damaged message: treat as the worker's end
                log.exception("bot worker %s sent a damaged message", w.proc.pid)
                msg = None
            if msg is None:
                self._lost(w)
                return
            try:
                if msg[0] == "stored":
                    self._on_stored(*msg[1:])
                elif msg[0] == "done":
                    with self._lock:
                        w.games.discard(msg[1])
                    self._on_done(msg[1])
            except Exception:  # noqa: BLE001 - the listener must keep listening
                log.exception("a bot worker's message %r failed", msg[:2])

    def _lost(self, w: _Worker) -> None:
        """``w`` ended: unless the server is closing, start another in its place."""
        with self._lock:
            if w not in self._workers:
                return
            games, w.games = set(w.games), set()
            replace = not self._closed.is_set()
            if replace:
                i = self._workers.index(w)
                try:
                    self._workers[i] = _Worker(self._settings)
                    self._listen(self._workers[i])
                except OSError as e:
                    log.error("cannot start a bot worker: %s", e)
                    self._workers.pop(i)
        if replace:
            log.error("bot worker %s exited (code %s); started another%s", w.proc.pid,
                      w.proc.wait(), f"; {len(games)} game(s) resume at their next request"
                      if games else "")
        for game_id in games:
            self._on_done(game_id)

    def _stop(self) -> None:
        for w in self._workers:
            try:
                w.proc.stdin.close()  # end of input: the worker finishes its chunk and exits
            except OSError:
                pass
        for w in self._workers:
            try:
                w.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait(timeout=5)

    def close(self) -> None:
        """Stop the workers (a game in play stays stored as ``running``: the next start
        resumes it)."""
        self._closed.set()
        self._stop()


# ---------------------------------------------------------------------------- the worker
def _write(out, lock: threading.Lock, msg: tuple) -> None:
    body = pickle.dumps(msg, protocol=pickle.HIGHEST_PROTOCOL)
    with lock:
        out.write(_HEAD.pack(len(body)) + body)
        out.flush()


def main() -> int:
    """A worker process (see the module docstring); exits when its stdin closes."""
    import collections
    import gc
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    # the message pipe on a descriptor of its own; anything else written to stdout (Python
    # or C) goes to stderr, never into the pipe
    sys.stdout.flush()
    out, lock = os.fdopen(os.dup(1), "wb"), threading.Lock()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, format="bot worker: %(levelname)s %(message)s")
    try:
        os.nice(NICE)
    except (OSError, AttributeError):  # not allowed (or no nice here): the same priority
        pass
    try:
        settings = json.loads(sys.stdin.readline())
        from canasta_env.engine import from_position, to_position

        from ..bot import Bot
        from ..events import Recording
        from ..store import Conflict, GameStore
        from .playing import decide, play_bots

        store = GameStore(settings["db"], checked=False)
        fallback = Bot("heuristic")
        policy = settings["policy"]
    except Exception as e:  # noqa: BLE001 - reported to the server, which refuses to start
        _write(out, lock, ("failed", f"{type(e).__name__}: {e}"))
        return 2
    bots: dict[tuple[str, str], Bot] = {}
    gc.collect()
    gc.freeze()  # start-up's objects: out of the collector's way (see the service's cli)
    _write(out, lock, ("ready", os.getpid()))

    games: collections.deque[str] = collections.deque()
    given = threading.Condition()
    ended = []

    def read_ids() -> None:
        for line in sys.stdin:
            with given:
                if line.strip() and line.strip() not in games:
                    games.append(line.strip())
                given.notify()
        with given:
            ended.append(True)
            given.notify()

    threading.Thread(target=read_ids, daemon=True).start()

    def bot_for(row) -> Bot:
        name = policy if row.bot_policy in (None, "default") else row.bot_policy
        bot = bots.get((name, row.variant))
        if bot is None:
            try:
                bot = Bot(name, variant=row.variant)  # the game's variant's policy
            except Exception as e:  # noqa: BLE001 - as the server: the heuristic plays
                logging.warning("game %s: bot policy %r cannot be used (%s); its bots play "
                                "the heuristic", row.game_id, name, e)
                bot = fallback
            bots[(name, row.variant)] = bot
        return bot

    def chunk(game_id: str) -> bool:
        """Play one chunk of ``game_id``; whether it is still running."""
        row = store.load(game_id)
        if row is None or row.status != "running":
            return False
        game = from_position(row.position, check_moves=False)
        bot = bot_for(row)
        rec = Recording(row.decisions)
        moves, status = play_bots(game, row, lambda g, seat: decide(bot, fallback, g, seat),
                                  CHUNK, rec)
        position = to_position(game)
        store.save(row, position, moves, status)
        _write(out, lock, ("stored", game_id, rec.finish(), row.version, position))
        return status == "running"

    while True:
        with given:
            while not games and not ended:
                given.wait()
            if ended:  # the server is closing: its games stay stored as running
                return 0
            game_id = games.popleft()
        try:
            running = chunk(game_id)
        except Conflict:  # deleted, or another process plays it
            running = False
        except Exception:  # noqa: BLE001 - stays stored as running; its next request retries
            logging.exception("background play of game %s failed", game_id)
            running = False
        if running:
            with given:
                games.append(game_id)  # the others' turn first
        else:
            _write(out, lock, ("done", game_id))


__all__ = ["BotProcesses", "WorkerError", "NICE", "main"]
