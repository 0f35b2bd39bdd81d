"""The event stream of a stored game: what ``GET /games/{id}/events`` sends, computed from
the move log, fanned out to every stream of the game held by this server process.

Model. A game's events are a pure function of what the service stores: the deal (seed,
rules options, starting scores of the stored position), the append-only move log
(``seq`` 1, 2, ...) and, for a hand dealt by ``next_hand`` before anyone moved, the stored
position's hand number. Each server process keeps one :class:`~.feeds.Feed` per game
with open streams (and, once the server has served a stream, per game it creates, so
that its first stream replays nothing): the game's events in order, for the feed's
lifetime. Every stream of the game reads the same list with its own cursor and its seat's
encodings, so a slow stream costs the server no copy of the events.

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

Where the events come from: a request or bot worker of this server that stores moves
has built their events as it made them (:class:`~.feeds.Recording`) and publishes them
once they are committed (:meth:`EventHub.publish`): no replay, no read of the log. Any
other moves -- stored by another process sharing a PostgreSQL database, or before the
feed existed -- are read from the move log and replayed on the feed's replica game: at
once after a save by this process (:meth:`EventHub.poke`), and by polling the ``games``
table every ``poll`` seconds (one query for all the games with open streams). Both paths
make the same events with the same ids (a test holds a live stream against a replay).

Limits: at most ``max_streams`` streams per server and ``max_game_streams`` per game
(:class:`StreamLimit`, a 429); a keep-alive every ``keepalive`` seconds on an idle
stream (an SSE comment, an empty NDJSON line); a send that does not complete within
``send_timeout`` seconds (a client that stopped reading: the socket buffers are full)
closes the stream, so no client holds server memory beyond its socket buffers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import threading
import time
from typing import AsyncIterator

from canasta_env.engine import Game

from .feeds import NDJSON, SSE, Event, Feed, Recording, deal_events, move_events

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
#: seconds the feed of a finished (or deleted) game is kept once its last stream closed
CLOSED_GRACE = 2.0
#: moves read from the log per query
PAGE = 1000
#: events sent at most in one send (one chunk of the response body)
BATCH = 256

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

    def recording_new(self, game: Game) -> Recording | None:
        """A :class:`Recording` of a game being created (from its deal), when this server
        serves event streams (one was opened since it started): the game's feed is then
        made from it (:meth:`adopt`), so its first stream replays nothing. ``None`` while
        no stream was ever opened, or with :data:`MAX_STREAMS` feeds held."""
        if self._loop is None or self._closed or len(self._feeds) >= self.max_streams:
            return None
        rec = Recording(0)
        rec.dealt(game)
        return rec

    def adopt(self, row, recording: Recording | None) -> None:
        """The game of ``row`` (a :class:`~canasta_env.bots.store.GameRow`) was stored
        by this process, with the moves of ``recording`` (from :meth:`recording_new`):
        its feed, ready, kept :data:`FEED_GRACE` seconds for a first stream."""
        if recording is None:
            return
        with self._lock:
            if row.game_id in self._feeds or self._closed:
                return
            feed = self._feeds[row.game_id] = Feed(row.game_id)
            feed.publish(recording, row.position)
            feed.version = row.version
            feed.header = dataclasses.replace(row, position={})
            feed.ready = True

    def header(self, game_id: str, after: int | None):
        """The stored row of ``game_id`` without its position (seats, token hashes), when
        this server's feed of the game is live and has the moves up to ``after``: the
        checks of a new stream then read no database. ``None``: read it."""
        feed = self._feeds.get(game_id)
        if feed is None or not feed.ready or feed.closed or feed.header is None or \
                (after is not None and after > feed.seq):
            return None
        return feed.header

    def recording(self, game_id: str, seq: int) -> Recording | None:
        """A :class:`Recording` for the moves a request is about to make on ``game_id``
        after its move ``seq``, when the game has a feed on this server (else ``None``:
        nothing to build)."""
        feed = self._feeds.get(game_id)
        if feed is None or feed.closed:
            return None
        return Recording(seq)

    def publish(self, game_id: str, recording: Recording | None, version: int,
                position: dict) -> None:
        """The moves of ``recording`` were stored, taking the game from ``version - 1``
        to ``version`` (``position`` after them): append their events to the game's feed
        and wake its streams, or, when the feed is not exactly at the state they follow
        (or there is no recording), :meth:`poke` the pump, which reads them from the
        move log. Callable from any thread."""
        feed = self._feeds.get(game_id)
        if feed is None:
            return
        if recording is not None:
            with feed.lock:
                follows = feed.ready and not feed.closed and feed.version == version - 1 \
                    and feed.seq == recording.start_seq
                if follows:
                    feed.publish(recording, position)
                    feed.version = version
            if follows:
                loop = self._loop
                if loop is not None:
                    try:
                        loop.call_soon_threadsafe(feed.wake)
                    except RuntimeError:  # the loop is closed
                        pass
                return
        self.poke(game_id)

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
                feed.header = dataclasses.replace(row, position={})
            feed.ready = True

    def _advance(self, feed: Feed, progress: tuple[int, int, str] | None | bool = False) -> bool:
        """Apply the moves stored after ``feed.seq``; returns whether events were added.
        ``progress``: ``(decisions, version, status)`` when already read, ``None`` for a
        game that is gone. Called with ``feed.lock`` held."""
        if feed.closed or (feed.game is None and feed.position is None):
            return False
        before = len(feed.events)
        if progress is False:
            progress = self.progress([feed.game_id]).get(feed.game_id)
        if progress is None:
            feed.gone("the game was deleted or expired")
            return True
        decisions, version, _status = progress
        if version <= feed.version:  # read before events this feed has were published
            return False
        try:
            while feed.seq < decisions and not feed.closed:
                page = self.moves(feed.game_id, feed.seq, PAGE)
                if not page:
                    break
                for m in page:
                    feed.apply(m)
            g = feed._replica()
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
            if self._loop is not loop:  # e.g. another test client: waiters of the old loop
                with self._lock:
                    for feed in self._feeds.values():
                        feed._waiters = set()
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
                    grace = CLOSED_GRACE if feed.closed else FEED_GRACE
                    if feed.streams == 0 and now - feed.idle_since > grace:
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
                     media_type: str, release=None,
                     keepalive: bytes | None = None) -> AsyncIterator[bytes]:
        """The encoded events of ``feed`` for ``seat`` after ``after`` (``None``: from
        the start), until the game ends or is gone; then ``release()`` (default: this
        hub's :meth:`release` of ``feed``). ``keepalive``: yielded after
        :attr:`keepalive` seconds without events (``None``: nothing)."""
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
                    if (feed.events[cursor].seq, feed.events[cursor].k) > floor:
                        chunk = feed.chunk(cursor, end, seat, media_type)
                    else:  # a resumed stream's first events, partly the client's already
                        chunk = b"".join(e.encode(seat, media_type)
                                         for e in feed.events[cursor:end]
                                         if (e.seq, e.k) > floor)
                    cursor = end
                    if chunk:
                        yield chunk
                if feed.closed:
                    return
                if not await feed.wait(None if keepalive is None else self.keepalive):
                    yield keepalive
        finally:
            if release is None:
                self.release(feed)
            else:
                release()


__all__ = ["EventHub", "Event", "Feed", "Recording", "deal_events", "move_events",
           "StreamLimit", "BadEventId", "parse_event_id", "MAX_STREAMS", "MAX_GAME_STREAMS",
           "KEEPALIVE", "SEND_TIMEOUT", "POLL", "FEED_GRACE", "CLOSED_GRACE", "SSE", "NDJSON"]
