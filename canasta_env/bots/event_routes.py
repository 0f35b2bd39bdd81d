"""``GET /games/{id}/events``: the route of a game's event stream (see
:mod:`canasta_env.bots.events` for the events, resuming and limits).

The request is checked completely before the stream opens, each refusal a 4xx with
``{"detail": "<message>"}``: 400 a malformed ``Last-Event-ID`` / ``after`` or one past the
game's last move, 401 a token that is not one of the game's (or ``seat`` without a
token), 403 a token of another seat than ``seat``, 404 an unknown (or expired) game,
429 too many open streams (of the server or of the game; ``Retry-After`` says when to
try again). Then ``200`` with ``text/event-stream`` (Server-Sent Events: ``id``,
``event``, ``data`` lines) or, with ``Accept: application/x-ndjson``, one JSON object
``{"id", "event", "data"}`` per line.

``/games/{id}/ws``: the same events over a WebSocket (one text message per event, the
NDJSON object), and the seat's moves sent back on it: a message ``{"action": id or
description}`` is played as ``POST /games/{id}/actions`` would, answered with
``{"id": null, "event": "result", "data": {"moves", "drawn"}}`` or ``{"id": null,
"event": "error", "data": {"status", "detail"}}`` (the events of the move follow on the
stream). The same checks, limits and resuming (``Authorization``, ``seat``, ``after``,
``Last-Event-ID``); a refusal before the upgrade is the same JSON 4xx (a WebSocket
denial response) or, where the server cannot send one, a close with code 4000 + status.
"""

import json
from typing import Any, Literal

from pydantic import BaseModel, Field
from starlette.responses import Response

from .events import NDJSON, SSE, BadEventId, EventHub, StreamLimit, parse_event_id
from .service.auth import authorize
from .service.routes import errors

#: seconds a client refused with 429 is told to wait
RETRY_AFTER = 5


class DealEvent(BaseModel):
    hand_number: int
    dealer: int
    to_move: int | None
    stock_size: int
    hand: list[str] | None = Field(description="the stream's seat's own cards; null for the "
                                               "public stream")


class MoveEvent(BaseModel):
    seq: int = Field(description="the move's number in the move log (its event id)")
    hand_number: int
    seat: int
    action: int
    description: str
    words: str = Field(description="the move in plain words")
    to_move: int | None = Field(description="the seat on turn after the move; null once the "
                                            "hand is over")
    at: float | None = Field(description="when the move was stored (Unix seconds)")
    drawn: list[str] | None = Field(description="after 'draw from stock', the cards drawn, "
                                                "on the drawing seat's stream only")


class TurnEvent(BaseModel):
    seat: int = Field(description="the seat now on turn")
    hand_number: int


class HandOverEvent(BaseModel):
    hand_number: int
    went_out: int | None
    score_sheets: list[dict[str, Any]]
    scores: list[int]
    revealed: dict[str, Any] = Field(description="'hands' (and in Hand and Foot 'feet'): "
                                                 "every card left, public once the hand ends")


class GameOverEvent(BaseModel):
    winner: int = Field(description="partnership 0 or 1; -1 a tie")
    scores: list[int]


class ClosedEvent(BaseModel):
    reason: str


class StreamEvent(BaseModel):
    """One event of ``GET /games/{id}/events`` (one NDJSON line; in SSE the ``id``,
    ``event`` and ``data`` fields of a message)."""

    id: str | None = Field(description="'SEQ' (a move) or 'SEQ.K' (the K-th event after "
                                       "move SEQ); resume with Last-Event-ID or ?after=; "
                                       "null for 'closed'")
    event: Literal["deal", "move", "turn", "hand_over", "game_over", "closed"]
    data: DealEvent | MoveEvent | TurnEvent | HandOverEvent | GameOverEvent | ClosedEvent


class EventStream(Response):
    """The HTTP response of an event stream: ``body`` (an async iterator of encoded
    events and keep-alives, :meth:`EventHub.stream`) sent chunk by chunk, until it ends,
    the client disconnects, or one send does not complete within ``send_timeout``
    seconds (a client that stopped reading); ``release()`` then frees the stream's place,
    whether or not the body was ever sent.

    A plain ASGI loop: per stream one task watching for the disconnect, per send one
    timer, nothing per event -- a server holds hundreds of these."""

    # no class-level media_type: the OpenAPI schema takes the errors' (JSON) from it

    def __init__(self, body=None, media_type: str = SSE, send_timeout: float = 30.0,
                 release=None, status_code: int = 200) -> None:
        # not Response.__init__: the body is sent as it comes, not rendered once
        self.body, self.media_type, self.status_code = body, media_type, status_code
        self.send_timeout, self.release = send_timeout, release
        self.background = None

    async def __call__(self, scope, receive, send) -> None:
        import asyncio

        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        stopped: list[str] = []  # why this stream was cut short: "gone" / "stuck"

        def stop(why: str) -> None:
            if not stopped:
                stopped.append(why)
                task.cancel()

        async def watch() -> None:  # the client's disconnect ends the stream at once
            while (await receive())["type"] != "http.disconnect":
                pass
            stop("gone")

        watcher = loop.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", self.media_type.encode() + (
                    b"; charset=utf-8" if self.media_type == SSE else b"")),
                (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]})
            async for chunk in self.body:
                timer = loop.call_later(self.send_timeout, stop, "stuck")
                try:
                    await send({"type": "http.response.body", "body": chunk,
                                "more_body": True})
                finally:
                    timer.cancel()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not stopped:  # the server is stopping: not ours to swallow
                raise
        except OSError:  # the connection broke
            pass
        finally:
            watcher.cancel()
            await self.body.aclose()
            self.release()


def add_event_routes(app, service, seat_token, service_error) -> None:
    """Add ``GET /games/{game_id}/events`` to ``app`` for ``service`` (its
    ``service.events`` hub); ``seat_token``: the dependency giving the bearer token;
    ``service_error``: the app's error class (``ServiceError(status, message,
    headers)``, answered as JSON by the app's handler)."""
    from fastapi import Depends, Header, Query, WebSocket, WebSocketDisconnect
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import JSONResponse

    ServiceError = service_error  # noqa: N806

    hub: EventHub = service.events

    def check(game_id: str, token: str | None, seat: int | None,
              resume: tuple[int, int] | None) -> int | None:
        row = service._row(game_id, position=False)
        seat = authorize(row, token, seat, "the event stream")
        if resume is not None and resume[0] > row.decisions:
            raise ServiceError(400, f"event id {resume[0]} is past game {game_id!r}'s last move "
                                    f"({row.decisions})")
        return seat

    event_ref = {"$ref": "#/components/schemas/StreamEvent"}

    async def open_feed(game_id: str, token: str | None, seat: int | None,
                        given: str | None):
        """(seat, resume point, feed) of a stream about to open, for both the HTTP stream
        and the WebSocket. Raises ServiceError: a bad event id (400), the checks of
        :func:`check`, too many streams (429)."""
        try:
            resume = None if given is None else parse_event_id(given)
        except BadEventId as e:
            raise ServiceError(400, str(e)) from None
        header = hub.header(game_id, None if resume is None else resume[0])
        if header is not None:  # a live feed of this server: no database read
            seat = authorize(header, token, seat, "the event stream")
        else:
            seat = await run_in_threadpool(check, game_id, token, seat, resume)
        try:
            feed = hub.acquire(game_id)
        except StreamLimit as e:
            raise ServiceError(429, str(e), {"Retry-After": str(RETRY_AFTER)}) from None
        return seat, resume, feed

    @app.get("/games/{game_id}/events",
             summary="The game's events as they happen (Server-Sent Events or NDJSON)",
             response_class=EventStream,
             responses={200: {"description": "the stream: SSE messages (id, event, data: a "
                                              "StreamEvent's fields) or NDJSON lines",
                              "content": {SSE: {"schema": {"type": "string"}},
                                          NDJSON: {"schema": event_ref}}},
                        # refused before the stream opens, with the service's one error body
                        **errors(400, 401, 403, 404, 422, 429, 503)})
    async def get_events(
        game_id: str,
        seat: int | None = Query(None, ge=0, le=3, description="must be the token's seat"),
        after: str | None = Query(None, description="resume after this event id (SEQ or "
                                                    "SEQ.K); Last-Event-ID wins"),
        last_event_id: str | None = Header(None, alias="Last-Event-ID"),
        accept: str = Header(""),
        token: str | None = Depends(seat_token),
    ):
        given = last_event_id if last_event_id is not None else after
        seat, resume, feed = await open_feed(game_id, token, seat, given)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                hub.release(feed)

        media = NDJSON if NDJSON in accept else SSE
        body = hub.stream(feed, seat, resume, media, release,
                          keepalive=b"\n" if media == NDJSON else b": ping\r\n\r\n")
        return EventStream(body, media, hub.send_timeout, release)

    @app.websocket("/games/{game_id}/ws")
    async def game_socket(websocket: WebSocket, game_id: str, seat: int | None = None,
                          after: str | None = None):
        auth = websocket.headers.get("authorization")
        token = None
        if auth is not None:
            scheme, _, credentials = auth.partition(" ")
            token = credentials.strip() if scheme.lower() == "bearer" else ""
        given = websocket.headers.get("last-event-id", after)
        try:
            if token == "":
                raise ServiceError(401, "Authorization must be 'Bearer <token from POST /games>'")
            if seat is not None and not 0 <= seat <= 3:
                raise ServiceError(400, f"seat must be 0..3, got {seat}")
            seat, resume, feed = await open_feed(game_id, token, seat, given)
        except ServiceError as e:
            await _deny(websocket, e)
            return
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                hub.release(feed)

        try:
            await websocket.accept()
            import asyncio

            async def send_events() -> None:
                async for chunk in hub.stream(feed, seat, resume, NDJSON, release):
                    for line in chunk.splitlines():
                        await asyncio.wait_for(websocket.send_text(line.decode()),
                                               hub.send_timeout)

            async def take_moves() -> None:
                while True:
                    text = await websocket.receive_text()
                    try:
                        message = json.loads(text)
                    except ValueError:
                        message = None
                    action = message.get("action") if isinstance(message, dict) else None
                    if isinstance(action, bool) or not isinstance(action, (int, str)):
                        await websocket.send_json({"id": None, "event": "error", "data": {
                            "status": 422, "detail": "a message is {\"action\": an action "
                                                     "id or its description}"}})
                        continue
                    try:
                        res = await run_in_threadpool(service.act, game_id, token, None, action)
                        reply = {"id": None, "event": "result",
                                 "data": {"moves": res["moves"], "drawn": res["drawn"]}}
                    except ServiceError as e:
                        reply = {"id": None, "event": "error",
                                 "data": {"status": e.status, "detail": e.message}}
                    await websocket.send_json(reply)

            tasks = [asyncio.ensure_future(send_events()), asyncio.ensure_future(take_moves())]
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in pending:
                t.cancel()
            for t in done:
                if not t.cancelled() and t.exception() is not None and not isinstance(
                        t.exception(), (WebSocketDisconnect, asyncio.TimeoutError, ValueError)):
                    raise t.exception()
            if tasks[0] in done:  # the game ended or is gone: close cleanly
                await websocket.close(1000)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            release()

    async def _deny(websocket, e) -> None:
        body = JSONResponse({"detail": e.message}, status_code=e.status, headers=e.headers)
        if "websocket.http.response" in websocket.scope.get("extensions", {}):
            await websocket.send_denial_response(body)
        else:
            await websocket.close(4000 + e.status, e.message[:120])

    original = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = original()
            defs = StreamEvent.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(defs.pop("$defs", {}))
            components["StreamEvent"] = defs
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi


__all__ = ["add_event_routes", "StreamEvent"]
