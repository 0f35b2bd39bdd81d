"""The event stream of a stored game: what ``GET /games/{id}/events`` sends, computed from
the move log, fanned out to every stream of the game held by this server process.

Model. A game's events are a pure function of what the service stores: the deal (seed,
rules options, starting scores of the stored position), the append-only move log
(``seq`` 1, 2, ...) and, for a hand dealt by ``next_hand`` before anyone moved, the stored
position's hand number. Each server process keeps one :class:`Feed` per game with open
streams: a replica :class:`~canasta_env.engine.Game` replayed from the deal that applies
each logged move once and turns it into events, kept in order for the feed's lifetime.
Every stream of the game reads the same list with its own cursor and filters each event
for its seat, so a slow stream costs the server no copy of the events.

Events, in order (``event`` name, then ``data``); their ``id`` is ``SEQ`` for the move
with that sequence number and ``SEQ.K`` for the K-th event that follows move ``SEQ``
before the next move (``0.K`` before the first move):

==============  ===========================================================================
``deal``        a hand was dealt: ``hand_number``, ``dealer``, ``to_move``, ``stock_size``;
                ``hand``: the stream's seat's own cards (``null`` for other seats and the
                public stream)
``move``        ``seq``, ``hand_number``, ``seat``, ``action``, ``description``, ``words``
                (plain words), ``to_move`` (the seat on turn after it, ``null`` once the
                hand is over), ``at`` (when it was stored, Unix seconds); ``drawn``: after
                ``draw from stock``, the cards drawn (``"red 3"`` for each red 3 laid out),
                for the drawing seat's stream only, ``null`` otherwise
``turn``        the turn passed: ``seat`` (now on turn), ``hand_number``
``hand_over``   ``hand_number``, ``went_out`` (seat or ``null``), ``score_sheets`` (the
                two partnerships' sheets), ``scores`` (cumulative), ``revealed`` (every
                hand, and in Hand and Foot every foot, left: public once the hand is over)
``game_over``   ``winner`` (partnership 0 / 1, -1 a tie), ``scores``; the stream ends
``closed``      no id: the game was deleted or expired, or the log cannot be replayed
                (``reason``); the stream ends
==============  ===========================================================================

Resuming: a stream opened with ``Last-Event-ID: ID`` (or ``?after=ID``; the header wins)
starts with the event after ``ID``, so a client that reconnects after a dropped
connection or a server restart (``kill -9`` included: events are made only from
committed moves) gets every event once, in order. Without either it starts at the deal
of the first hand.

Waking: a save by this process pokes :meth:`EventHub.poke` (no delay beyond one read of
the move log); moves stored by another process sharing a PostgreSQL database are found
by polling the ``games`` table every ``poll`` seconds (one query for all the games with
open streams).

Limits: at most ``max_streams`` streams per server and ``max_game_streams`` per game
(:class:`StreamLimit`, a 429); a keep-alive every ``keepalive`` seconds on an idle
stream (an SSE comment, an empty NDJSON line); a send that does not complete within
``send_timeout`` seconds (a client that stopped reading: the socket buffers are full)
closes the stream, so no client holds server memory beyond its socket buffers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from canasta_env.engine import Game, RulesOptions, to_position
from canasta_env.engine.cards import CLASS_NAMES

from .table import plain_words, starting_scores

log = logging.getLogger("canasta_env.bots.events")

#: streams one server holds at most (all games)
MAX_STREAMS = 1000
#: streams of one game one server holds at most
MAX_GAME_STREAMS = 32
#: seconds between keep-alives on an idle stream
KEEPALIVE = 15.0
#: seconds one send may take before the stream is closed (a client that stopped reading)
SEND_TIMEOUT = 30.0
#: seconds between polls of the database for moves stored by other processes
POLL = 0.1
#: seconds a feed without streams is kept (a reconnecting client finds it ready)
FEED_GRACE = 30.0
#: moves read from the log per query
PAGE = 1000
#: events sent at most in one send (one chunk of the response body)
BATCH = 256

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
_EVENT_ID = re.compile(r"(\d{1,12})(?:\.(\d{1,4}))?")


class StreamLimit(Exception):
    """Too many open streams (of the server or of the game): refuse with a 429."""


class BadEventId(ValueError):
    """A ``Last-Event-ID`` / ``after`` that is not ``SEQ`` or ``SEQ.K`` (ASCII digits)."""


def parse_event_id(text: str) -> tuple[int, int]:
    """``"SEQ"`` -> ``(SEQ, 0)``; ``"SEQ.K"`` -> ``(SEQ, K)``: the position after which a
    stream resumes.

    Raises:
        BadEventId: anything else (a sign, spaces inside, other characters, too long).
    """
    m = _EVENT_ID.fullmatch(text.strip()) if text.strip().isascii() else None
    if m is None:
        raise BadEventId(f"event id {text[:40]!r} is not SEQ or SEQ.K (a move number from the "
                         f"move log, optionally '.' and the number of the event after it)")
    return int(m.group(1)), int(m.group(2) or 0)


@dataclass
class Event:
    """One event of a game: ``public`` data for everyone, ``private`` extra fields per
    seat (e.g. the drawn cards), ``id`` ``(seq, k)`` (``None``: not resumable)."""

    kind: str
    public: dict[str, Any]
    seq: int
    k: int
    private: dict[int, dict[str, Any]] = field(default_factory=dict)
    resumable: bool = True
    _encoded: dict[tuple[int | None, str], bytes] = field(default_factory=dict, repr=False)

    @property
    def id(self) -> str | None:
        if not self.resumable:
            return None
        return str(self.seq) if self.k == 0 else f"{self.seq}.{self.k}"

    def data(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: the public) may see of this event."""
        extra = self.private.get(seat) if seat is not None else None
        return {**self.public, **extra} if extra else self.public

    def encode(self, seat: int | None, media_type: str) -> bytes:
        """The event as one SSE message or one NDJSON line (``{"id", "event", "data"}``)
        for ``seat``'s stream (encoded once per seat and format)."""
        key = (seat, media_type)
        out = self._encoded.get(key)
        if out is None:
            data = json.dumps(self.data(seat), separators=(",", ":"))
            if media_type == NDJSON:
                out = (json.dumps({"id": self.id, "event": self.kind}, separators=(",", ":"))
                       [:-1] + ',"data":' + data + "}\n").encode()
            else:
                head = "" if self.id is None else f"id: {self.id}\n"
                out = f"{head}event: {self.kind}\ndata: {data}\n\n".encode()
            self._encoded[key] = out
        return out


class Feed:
    """The events of one game for this server: a replica game replayed from the deal,
    advanced by the hub from the move log. ``events`` only grows; ``closed`` once the
    game is over or gone."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.lock = threading.Lock()  # the replica and the events are changed under it
        self.events: list[Event] = []
        self.game: Game | None = None
        self.seq = 0  # moves applied
        self.version = -1  # the stored version last looked at
        self.closed = False
        self.streams = 0
        self.idle_since = time.monotonic()
        self.ready = False
        self._signal: asyncio.Event | None = None

    # ------------------------------------------------------------ building (threads)
    def _emit(self, kind: str, public: dict, private: dict | None = None,
              resumable: bool = True) -> None:
        k = 0 if kind == "move" else (self.events[-1].k + 1 if self.events and
                                       self.events[-1].seq == self.seq else 1)
        self.events.append(Event(kind, public, self.seq, k, private or {}, resumable))

    def _deal(self) -> None:
        g = self.game
        self._emit("deal", {"hand_number": g.hand_number, "dealer": g.dealer,
                            "to_move": g.to_move, "stock_size": len(g.stock), "hand": None},
                   {s: {"hand": _names(g.hands[s])} for s in range(4)})

    def start(self, position: dict) -> None:
        """The replica at the deal of the stored game (``position``: its stored JSON)."""
        self.game = Game(RulesOptions.from_dict(position["options"]), seed=position["seed"],
                         scores=starting_scores(position))
        self._deal()

    def apply(self, move: dict) -> None:
        """Apply one logged move (``seq``, ``hand_number``, ``seat``, ``action``,
        ``description``, ``at``) and emit its events.

        Raises:
            ValueError: the move does not follow (another seq, not that seat's turn).
        """
        g = self.game
        if move["seq"] != self.seq + 1:
            raise ValueError(f"move {move['seq']} follows move {self.seq}")
        while g.hand_number < move["hand_number"] and g.hand_over and not g.game_over:
            g.next_hand()
            self._deal()
        if g.to_move != move["seat"]:
            raise ValueError(f"move {move['seq']}: seat {move['seat']} is not on turn")
        seat = move["seat"]
        hand_before, red_before = list(g.hands[seat]), g.red3[seat]
        hand = g.hand_number
        g.apply(move["action"])
        self.seq = move["seq"]
        private = {}
        drawn = None
        if move["action"] == 0:
            gained = Counter({c: n for c, n in enumerate(g.hands[seat])}) - \
                Counter({c: n for c, n in enumerate(hand_before)})
            drawn = ["red 3"] * max(0, g.red3[seat] - red_before) + _names(
                [gained.get(c, 0) for c in range(len(g.hands[seat]))])
            private = {seat: {"drawn": drawn}}
        self._emit("move", {"seq": self.seq, "hand_number": hand, "seat": seat,
                            "action": move["action"], "description": move["description"],
                            "words": plain_words(move["description"]), "to_move": g.to_move,
                            "at": move.get("at"), "drawn": None}, private)
        if g.hand_over:
            pos = to_position(g)
            variant = pos["options"]["variant"]
            self._emit("hand_over", {
                "hand_number": hand, "went_out": pos["went_out"],
                "score_sheets": pos["sheets"], "scores": pos["scores"],
                "revealed": {"hands": pos["hands"],
                             "feet": [list(f) for f in pos["feet"]]
                             if variant != "classic" and "feet" in pos else None}})
            if g.game_over:
                self._emit("game_over", {"winner": g.winner, "scores": list(g.scores)})
                self.closed = True
        elif g.to_move != seat:
            self._emit("turn", {"seat": g.to_move, "hand_number": g.hand_number})

    def dealt(self, hand_number: int) -> None:
        """The stored game dealt hand ``hand_number`` (``next_hand``) before any move."""
        g = self.game
        while g.hand_number < hand_number and g.hand_over and not g.game_over:
            g.next_hand()
            self._deal()

    def gone(self, reason: str) -> None:
        if not self.closed:
            self._emit("closed", {"reason": reason}, resumable=False)
            self.closed = True

    # ------------------------------------------------------------ reading (event loop)
    def signal(self) -> asyncio.Event:
        if self._signal is None:
            self._signal = asyncio.Event()
        return self._signal

    def wake(self) -> None:
        """Wake the streams waiting for events (in the event loop)."""
        old, self._signal = self._signal, None
        if old is not None:
            old.set()

    def index_after(self, seq: int, k: int) -> int:
        """The index of the first event after id ``(seq, k)``."""
        lo, hi = 0, len(self.events)
        while lo < hi:
            mid = (lo + hi) // 2
            e = self.events[mid]
            if (e.seq, e.k) <= (seq, k):
                lo = mid + 1
            else:
                hi = mid
        return lo


def _names(counts) -> list[str]:
    return [CLASS_NAMES[c] for c, n in enumerate(counts) for _ in range(n)]


class EventHub:
    """The feeds of one server process and the limits on its streams (see the module
    docstring).

    Args:
        store: the service's :class:`~canasta_env.bots.store.GameStore` (may be set
            later, before the first stream).
        max_streams: streams the server holds at most.
        max_game_streams: streams of one game at most.
        keepalive: seconds between keep-alives on an idle stream.
        send_timeout: seconds a send may take before the stream is closed.
        poll: seconds between polls of the database (moves stored by other processes).

    Raises:
        ValueError: a limit that is not a positive number.
    """

    def __init__(self, store, max_streams: int = MAX_STREAMS,
                 max_game_streams: int = MAX_GAME_STREAMS, keepalive: float = KEEPALIVE,
                 send_timeout: float = SEND_TIMEOUT, poll: float = POLL) -> None:
        for name, value in (("max_streams", max_streams), ("max_game_streams", max_game_streams),
                            ("keepalive", keepalive), ("send_timeout", send_timeout),
                            ("poll", poll)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        self.store = store
        self.max_streams = int(max_streams)
        self.max_game_streams = int(max_game_streams)
        self.keepalive = float(keepalive)
        self.send_timeout = float(send_timeout)
        self.poll = float(poll)
        self._lock = threading.Lock()
        self._feeds: dict[str, Feed] = {}
        self._open = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poke: asyncio.Event | None = None
        self._pump: asyncio.Task | None = None
        self._closed = False

    @property
    def open_streams(self) -> int:
        """Streams open now."""
        return self._open

    def game_streams(self, game_id: str) -> int:
        feed = self._feeds.get(game_id)
        return 0 if feed is None else feed.streams

    # ------------------------------------------------------------ admission
    def acquire(self, game_id: str) -> Feed:
        """Count a new stream of ``game_id`` and return the game's feed.

        Raises:
            StreamLimit: the server or the game has its most streams open.
        """
        with self._lock:
            if self._closed:
                raise StreamLimit("the server is shutting down")
            if self._open >= self.max_streams:
                raise StreamLimit(f"this server holds its limit of {self.max_streams} open "
                                  f"event streams; try again later")
            feed = self._feeds.get(game_id)
            if feed is not None and feed.streams >= self.max_game_streams:
                raise StreamLimit(f"game {game_id!r} has its limit of {self.max_game_streams} "
                                  f"open event streams on this server")
            if feed is None:
                feed = self._feeds[game_id] = Feed(game_id)
            feed.streams += 1
            self._open += 1
            return feed

    def release(self, feed: Feed) -> None:
        with self._lock:
            feed.streams -= 1
            self._open -= 1
            if feed.streams == 0:
                feed.idle_since = time.monotonic()

    def poke(self, game_id: str) -> None:
        """A move (or deal, or deletion) of ``game_id`` was stored by this process: wake
        the pump (callable from any thread)."""
        loop, poke = self._loop, self._poke
        if loop is None or poke is None or game_id not in self._feeds:
            return
        try:
            loop.call_soon_threadsafe(poke.set)
        except RuntimeError:  # the loop is closed
            pass

    def close(self) -> None:
        """Refuse new streams and stop the pump (streams end with the server)."""
        with self._lock:
            self._closed = True
        if self._pump is not None and self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(self._pump.cancel)
            except RuntimeError:
                pass

    # ------------------------------------------------------------ feeding (threads)
    def _start(self, feed: Feed) -> None:
        """Replay the stored game into ``feed`` (first stream of the game)."""
        with feed.lock:
            if feed.ready:
                return
            row = self.store.load(feed.game_id)
            if row is None:
                feed.gone("the game was deleted or expired")
            else:
                feed.start(row.position)
                feed.version = -1
                self._advance(feed)
            feed.ready = True

    def _advance(self, feed: Feed, progress: tuple[int, int, str] | None | bool = False) -> bool:
        """Apply the moves stored after ``feed.seq``; returns whether events were added.
        ``progress``: ``(decisions, version, status)`` when already read, ``None`` for a
        game that is gone. Called with ``feed.lock`` held."""
        if feed.closed or feed.game is None:
            return False
        before = len(feed.events)
        if progress is False:
            progress = self.progress([feed.game_id]).get(feed.game_id)
        if progress is None:
            feed.gone("the game was deleted or expired")
            return True
        decisions, version, _status = progress
        try:
            while feed.seq < decisions and not feed.closed:
                page = self.moves(feed.game_id, feed.seq, PAGE)
                if not page:
                    break
                for m in page:
                    feed.apply(m)
            g = feed.game
            if version != feed.version and g.hand_over and not g.game_over \
                    and feed.seq >= decisions:
                row = self.store.load(feed.game_id)
                if row is None:
                    feed.gone("the game was deleted or expired")
                elif row.position["hand_number"] > g.hand_number and row.decisions == feed.seq:
                    feed.dealt(row.position["hand_number"])
            feed.version = version
        except ValueError as e:
            log.warning("game %s: the event stream cannot follow the move log: %s",
                        feed.game_id, e)
            feed.gone(f"the move log cannot be replayed: {e}")
        return len(feed.events) > before

    def progress(self, game_ids: list[str]) -> dict[str, tuple[int, int, str]]:
        """``(decisions, version, status)`` of each stored game of ``game_ids``."""
        sa, g = self.store.sa, self.store.games.c
        out = {}
        with self.store.engine.connect() as c:
            for i in range(0, len(game_ids), 500):
                for r in c.execute(sa.select(g.game_id, g.decisions, g.version, g.status)
                                   .where(g.game_id.in_(game_ids[i:i + 500]))):
                    out[r[0]] = (r[1], r[2], r[3])
        return out

    def moves(self, game_id: str, after: int, limit: int) -> list[dict]:
        """The logged moves after ``after`` with the time each was stored (``at``)."""
        sa, m = self.store.sa, self.store.moves.c
        with self.store.engine.connect() as c:
            rows = c.execute(sa.select(m.seq, m.hand_number, m.seat, m.action, m.description,
                                       m.at)
                             .where(m.game_id == game_id, m.seq > after)
                             .order_by(m.seq).limit(limit)).mappings().all()
        return [dict(r) for r in rows]

    def _advance_all(self, feeds: list[Feed]) -> list[Feed]:
        progress = self.progress([f.game_id for f in feeds])
        changed = []
        for feed in feeds:
            p = progress.get(feed.game_id)
            if p is not None and p[0] == feed.seq and p[1] == feed.version:
                continue
            with feed.lock:
                if feed.ready and self._advance(feed, p):
                    changed.append(feed)
        return changed

    # ------------------------------------------------------------ the event loop
    def _ensure_pump(self) -> None:
        loop = asyncio.get_running_loop()
        if self._pump is None or self._pump.done() or self._loop is not loop:
            if self._loop is not loop:  # e.g. another test client: signals of the old loop
                with self._lock:
                    for feed in self._feeds.values():
                        feed._signal = None
            self._loop = loop
            self._poke = asyncio.Event()
            self._pump = loop.create_task(self._run_pump(), name="canasta-events")

    async def _run_pump(self) -> None:
        poke = self._poke
        while True:
            try:
                await asyncio.wait_for(poke.wait(), self.poll)
            except asyncio.TimeoutError:
                pass
            poke.clear()
            now = time.monotonic()
            with self._lock:
                for game_id, feed in list(self._feeds.items()):
                    if feed.streams == 0 and now - feed.idle_since > FEED_GRACE:
                        del self._feeds[game_id]
                feeds = [f for f in self._feeds.values() if f.streams and not f.closed
                         and f.ready]
            if not feeds:
                continue
            try:
                changed = await asyncio.to_thread(self._advance_all, feeds)
            except Exception:  # noqa: BLE001 - e.g. the database is away for a moment
                log.exception("reading the move log for the event streams failed")
                continue
            for feed in changed:
                feed.wake()

    async def stream(self, feed: Feed, seat: int | None, after: tuple[int, int] | None,
                     media_type: str, release=None) -> AsyncIterator[bytes]:
        """The encoded events of ``feed`` for ``seat`` after ``after`` (``None``: from
        the start), until the game ends or is gone; then ``release()`` (default: this
        hub's :meth:`release` of ``feed``)."""
        try:
            self._ensure_pump()
            if not feed.ready:
                await asyncio.to_thread(self._start, feed)
            cursor = 0 if after is None else feed.index_after(*after)
            # a feed behind the log (its pump still reading) catches up past ``after``
            # later: those events were the client's already
            floor = (-1, -1) if after is None else after
            while True:
                while cursor < len(feed.events):
                    # the events ready now in one send (a bot chunk stores 200 moves at once)
                    end = min(len(feed.events), cursor + BATCH)
                    batch = [e for e in feed.events[cursor:end] if (e.seq, e.k) > floor]
                    cursor = end
                    if batch:
                        yield b"".join(e.encode(seat, media_type) for e in batch)
                if feed.closed:
                    return
                await feed.signal().wait()
        finally:
            if release is None:
                self.release(feed)
            else:
                release()


__all__ = ["EventHub", "Event", "Feed", "StreamLimit", "BadEventId", "parse_event_id",
           "MAX_STREAMS", "MAX_GAME_STREAMS", "KEEPALIVE", "SEND_TIMEOUT", "POLL", "SSE",
           "NDJSON"]
