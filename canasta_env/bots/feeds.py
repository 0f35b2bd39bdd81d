"""A game's events, built from its moves: :class:`Event` (one event, encoded once per
format), :func:`deal_events` and :func:`move_events` (what a deal and a move emit),
:class:`Recording` (the events of moves made by a request or a bot worker, built as they
are made) and :class:`Feed` (every event of one game for one server, from a replay of the
move log or from recordings). The events, their ids and the streams that read them are
described in :mod:`canasta_env.bots.events`, which serves them.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from canasta_env.engine import Game, RulesOptions, to_position
from canasta_env.engine.cards import CLASS_NAMES

from .table import plain_words, starting_scores

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
#: encoded chunks a feed keeps for its other streams (see Feed.chunk)
CHUNKS_KEPT = 16


class Event:
    """One event of a game: ``public`` data for everyone, ``private`` extra fields per
    seat (e.g. the drawn cards), ``id`` ``(seq, k)`` (``None``: not resumable).

    A feed holds every event of its game while it has streams, hundreds of thousands on
    a busy server: the encodings are kept in slots, without a dict per event, so that the
    garbage collector has few containers to scan."""

    __slots__ = ("kind", "public", "seq", "k", "private", "resumable", "_ndjson", "_sse",
                 "_encoded")

    def __init__(self, kind: str, public: dict[str, Any], seq: int, k: int,
                 private: dict[int, dict[str, Any]] | None = None,
                 resumable: bool = True) -> None:
        self.kind, self.public, self.seq, self.k = kind, public, seq, k
        self.private = private or None  # seat -> extra fields
        self.resumable = resumable
        self._ndjson: bytes | None = None  # the public encodings
        self._sse: bytes | None = None
        self._encoded: dict[tuple[int, str], bytes] | None = None  # a seat's own

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, {self.public!r}, {self.seq}, {self.k})"

    @property
    def id(self) -> str | None:
        if not self.resumable:
            return None
        return str(self.seq) if self.k == 0 else f"{self.seq}.{self.k}"

    def data(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: the public) may see of this event."""
        extra = self.private.get(seat) if self.private and seat is not None else None
        return {**self.public, **extra} if extra else self.public

    def encode(self, seat: int | None, media_type: str) -> bytes:
        """The event as one SSE message or one NDJSON line (``{"id", "event", "data"}``)
        for ``seat``'s stream (encoded once per format, and per seat for a seat's own)."""
        own = self.private is not None and seat in self.private
        if not own:
            out = self._ndjson if media_type == NDJSON else self._sse
            if out is None:
                out = self._encode(None, media_type)
                if media_type == NDJSON:
                    self._ndjson = out
                else:
                    self._sse = out
            return out
        key = (seat, media_type)
        if self._encoded is None:
            self._encoded = {}
        out = self._encoded.get(key)
        if out is None:
            out = self._encoded[key] = self._encode(seat, media_type)
        return out

    def _encode(self, seat: int | None, media_type: str) -> bytes:
        data = json.dumps(self.data(seat), separators=(",", ":"))
        if media_type == NDJSON:
            return (json.dumps({"id": self.id, "event": self.kind}, separators=(",", ":"))
                    [:-1] + ',"data":' + data + "}\n").encode()
        head = "" if self.id is None else f"id: {self.id}\n"
        return f"{head}event: {self.kind}\ndata: {data}\n\n".encode()


def _words(description: str, cache: dict[str, str] = {}) -> str:  # noqa: B006 - a cache
    words = cache.get(description)
    if words is None:
        words = cache[description] = plain_words(description)
    return words


def deal_events(game: Game) -> list[tuple[str, dict, dict]]:
    """The events of a hand just dealt in ``game``: ``(kind, public, private)``."""
    return [("deal", {"hand_number": game.hand_number, "dealer": game.dealer,
                      "to_move": game.to_move, "stock_size": len(game.stock), "hand": None},
             {s: {"hand": _names(game.hands[s])} for s in range(4)})]


def move_events(game: Game, move: dict, hand_before: list[int], red_before: int,
                hand_number: int) -> list[tuple[str, dict, dict]]:
    """The events of one move just applied to ``game``: ``(kind, public, private)``.

    ``move``: the logged move (``seq``, ``seat``, ``action``, ``description``, ``at``; ``at``
    may be filled in later, see :class:`Recording`); ``hand_before`` / ``red_before``: the
    mover's hand counts and red 3s before the move; ``hand_number``: the hand it was made in.
    """
    seat, action = move["seat"], move["action"]
    private = {}
    if action == 0:
        after = game.hands[seat]
        drawn = ["red 3"] * max(0, game.red3[seat] - red_before)
        for c in range(len(after)):
            extra = after[c] - (hand_before[c] if c < len(hand_before) else 0)
            if extra > 0:
                drawn += [CLASS_NAMES[c]] * extra
        private = {seat: {"drawn": drawn}}
    out = [("move", {"seq": move["seq"], "hand_number": hand_number, "seat": seat,
                     "action": action, "description": move["description"],
                     "words": _words(move["description"]), "to_move": game.to_move,
                     "at": move.get("at"), "drawn": None}, private)]
    if game.hand_over:
        pos = to_position(game)
        variant = pos["options"]["variant"]
        out.append(("hand_over", {
            "hand_number": hand_number, "went_out": pos["went_out"],
            "score_sheets": pos["sheets"], "scores": pos["scores"],
            "revealed": {"hands": pos["hands"],
                         "feet": [list(f) for f in pos["feet"]]
                         if variant != "classic" and "feet" in pos else None}}, {}))
        if game.game_over:
            out.append(("game_over", {"winner": game.winner, "scores": list(game.scores)}, {}))
    elif game.to_move != seat:
        out.append(("turn", {"seat": game.to_move, "hand_number": game.hand_number}, {}))
    return out


class Recording:
    """The events of the moves (and deals) one request makes on its own copy of a game, to
    be published to the game's feed once they are stored (:meth:`EventHub.publish`): the
    same events the feed would build by replaying the stored moves, built without the
    replay. Made by :meth:`EventHub.recording` only while the game has a feed.

    Use: :meth:`dealt` after ``game.next_hand()``; ``snap = before(game, seat)`` then
    ``game.apply(action)`` then :meth:`moved` with the move's log record.
    """

    def __init__(self, start_seq: int) -> None:
        self.start_seq = start_seq
        self.seq = start_seq
        self.items: list[tuple[int, str, dict, dict, dict | None]] = []

    def dealt(self, game: Game) -> None:
        for kind, public, private in deal_events(game):
            self.items.append((self.seq, kind, public, private, None))

    @staticmethod
    def before(game: Game, seat: int) -> tuple[list[int], int, int]:
        return list(game.hands[seat]), game.red3[seat], game.hand_number

    def moved(self, game: Game, move: dict, snap: tuple[list[int], int, int]) -> None:
        """``move``: the dict stored in the move log (its ``at`` is read by :meth:`finish`)."""
        self.seq += 1
        record = {**move, "seq": self.seq}
        for kind, public, private in move_events(game, record, *snap):
            self.items.append((self.seq, kind, public, private, move if kind == "move" else None))

    def finish(self) -> Recording:
        """Once the moves are stored: each move event takes its move's ``at`` (the time
        the store gave it), and the recording no longer refers to the move records (it
        can be pickled to another process). Returns itself."""
        for i, (seq, kind, public, private, move) in enumerate(self.items):
            if move is not None:
                public["at"] = move.get("at")
                self.items[i] = (seq, kind, public, private, None)
        return self


class Feed:
    """The events of one game for this server: a replica game replayed from the deal,
    advanced by the hub from the move log, or events published by a request of this
    process that stored the moves (:class:`Recording`). ``events`` only grows; ``closed``
    once the game is over or gone."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.lock = threading.Lock()  # the replica and the events are changed under it
        self.events: list[Event] = []
        self.game: Game | None = None
        self.position: dict | None = None  # the stored position at ``seq``: builds the
        # replica when it is needed (after published events, ``game`` is None)
        self.seq = 0  # moves applied
        self.version = -1  # the stored version last looked at
        self.closed = False
        self.streams = 0
        self.idle_since = time.monotonic()
        self.ready = False
        self._waiters: set[asyncio.Future] = set()  # streams waiting for events
        self._chunks: dict[tuple, bytes] = {}  # see chunk()
        self.header = None  # the game's stored row without its position (EventHub.header)

    # ------------------------------------------------------------ building (threads)
    def _emit(self, kind: str, public: dict, private: dict | None = None,
              resumable: bool = True, seq: int | None = None) -> None:
        seq = self.seq if seq is None else seq
        k = 0 if kind == "move" else (self.events[-1].k + 1 if self.events and
                                       self.events[-1].seq == seq else 1)
        self.events.append(Event(kind, public, seq, k, private, resumable))

    def _emit_all(self, items) -> None:
        for kind, public, private in items:
            self._emit(kind, public, private)
            if kind == "game_over":
                self.closed = True

    def _replica(self) -> Game:
        if self.game is None:
            from canasta_env.engine import from_position

            self.game = from_position(self.position, check_moves=False)
        return self.game

    def start(self, position: dict) -> None:
        """The replica at the deal of the stored game (``position``: its stored JSON)."""
        self.game = Game(RulesOptions.from_dict(position["options"]), seed=position["seed"],
                         scores=starting_scores(position))
        self._emit_all(deal_events(self.game))

    def apply(self, move: dict) -> None:
        """Apply one logged move (``seq``, ``hand_number``, ``seat``, ``action``,
        ``description``, ``at``) and emit its events.

        Raises:
            ValueError: the move does not follow (another seq, not that seat's turn).
        """
        g = self._replica()
        if move["seq"] != self.seq + 1:
            raise ValueError(f"move {move['seq']} follows move {self.seq}")
        while g.hand_number < move["hand_number"] and g.hand_over and not g.game_over:
            g.next_hand()
            self._emit_all(deal_events(g))
        if g.to_move != move["seat"]:
            raise ValueError(f"move {move['seq']}: seat {move['seat']} is not on turn")
        snap = Recording.before(g, move["seat"])
        g.apply(move["action"])
        self.seq = move["seq"]
        self._emit_all(move_events(g, move, *snap))

    def dealt(self, hand_number: int) -> None:
        """The stored game dealt hand ``hand_number`` (``next_hand``) before any move."""
        g = self._replica()
        while g.hand_number < hand_number and g.hand_over and not g.game_over:
            g.next_hand()
            self._emit_all(deal_events(g))

    def publish(self, recording: Recording, position: dict) -> None:
        """Append the events of ``recording`` (stored moves ``recording.start_seq + 1`` ..
        ``recording.seq``); ``position``: the stored position after them."""
        for seq, kind, public, private, _ in recording.finish().items:
            self._emit(kind, public, private, seq=seq)
            if kind == "game_over":
                self.closed = True
        self.seq = recording.seq
        self.game, self.position = None, position

    def gone(self, reason: str) -> None:
        if not self.closed:
            self._emit("closed", {"reason": reason}, resumable=False)
            self.closed = True

    # ------------------------------------------------------------ reading (event loop)
    async def wait(self, timeout: float | None) -> bool:
        """Wait for :meth:`wake` (``True``) at most ``timeout`` seconds (``False``; ``None``:
        no limit). In the event loop; a future and a timer per wait, no task."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiters.add(waiter)
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            return await waiter
        finally:
            self._waiters.discard(waiter)
            if timer is not None:
                timer.cancel()

    def wake(self) -> None:
        """Wake the streams waiting for events (in the event loop)."""
        waiters, self._waiters = self._waiters, set()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)

    def chunk(self, start: int, end: int, seat: int | None, media_type: str) -> bytes:
        """``events[start:end]`` encoded for ``seat``'s stream, joined: made once for all
        the streams of the game that read the same events (the last few are kept)."""
        key = (start, end, seat, media_type)
        out = self._chunks.get(key)
        if out is None:
            out = b"".join(e.encode(seat, media_type) for e in self.events[start:end])
            self._chunks[key] = out
            if len(self._chunks) > CHUNKS_KEPT:
                del self._chunks[next(iter(self._chunks))]
        return out

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


def _expire(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(False)


def _names(counts) -> list[str]:
    return [CLASS_NAMES[c] for c, n in enumerate(counts) for _ in range(n)]


__all__ = ["Event", "Recording", "Feed", "deal_events", "move_events", "SSE", "NDJSON",
           "CHUNKS_KEPT"]
