"""The FastAPI application factory: the :class:`~.core.Service`, the routes of
:mod:`.routes`, the error handlers and the body limit put together."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from typing import Callable

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..event_routes import add_event_routes
from ..store import StoreError
from .core import Service, log
from .docs import add_docs
from .errors import ServiceError
from .limits import IDLE_EXPIRY, MAX_BODY, MAX_DECISIONS, MAX_LOG_PAGE, MAX_SCORE, STATIC
from .routes import router, seat_token

#: the API's documentation page (Markdown), shown at the top of /docs and /redoc
DESCRIPTION = f"""
Canasta (Classic, Hand and Foot) games against trained or rule-based bots, for any
frontend, stored durably: every game and every accepted move is stored before the response,
and after a crash or a restart every game continues from its last accepted move. Positions
use the JSON format of `canasta_env.engine.to_position`.

**Seat tokens.** `POST /games` returns `tokens`, one secret per human seat (`null` for bot
seats). A seat's private view and its actions need `Authorization: Bearer <token>`. Without
a token a request gets the public view (no hand, no legal actions); a token of another game
is a 401, asking for another seat than the token's a 403. `next_hand` and `DELETE` need a
token of any human seat of the game (games of four bots have no tokens).

**Status.** A view carries `status`: `waiting` (a human is on turn, or a hand is over and
waits for `next_hand`), `running` (bots are playing in the background; `decisions`,
`hand_number` and `scores` show the progress; actions are a 409 until it is done) or
`over`; and `decisions`, the number of moves in the game's log.

**Several hands.** A Classic game runs to its `target_score` (5,000) over several hands, a
Hand and Foot game over its rounds. When a hand ends and the game is not over, the game waits
in phase `HAND_OVER` (the view shows the hand's `score_sheets`) until
`POST /games/{{id}}/next_hand`; with `"auto_deal": true` the next hand is dealt at once.

**For a card table.** Every move carries `words`, the move in plain words ("discards a 7");
an action result carries `drawn`, the cards the seat drew from the stock; a view carries
`sheet_rows` (the score sheet's rows in counting order) and, once a hand is over,
`revealed`: every hand (and foot) left, as laid down for counting.

**Errors.** Every refused request leaves the game unchanged and is answered with a JSON
body `{{"detail": "<message>"}}`: 400 illegal action, unknown action description, malformed
position, unknown variant or rules option, a score over {MAX_SCORE}, bad seats, a bot policy
that is not offered or cannot play the game's variant; 401 / 403 tokens as above; 404 unknown
(or expired) game; 409 not that seat's turn, bots playing, hand or game over, the game
changed by another request meanwhile; 413 a body over the server's `--max-body` (default
{MAX_BODY} bytes); 422 a body of the wrong shape (`detail` names each field, `errors` lists
them).

**Bots.** `bot_policy` / `policy` may name `heuristic`, `random`, `reference` (each
variant's reference network), `search` (the heuristic improved by decision-time search,
about 10 ms of one core per decision in Classic), `search_reference` (the same search
over the reference network's moves: the strongest Classic bot, about 40 ms), the difficulty levels `easy` ..
`expert` or the server's `--policy`;
other checkpoint paths are refused, because loading a checkpoint unpickles it. Responses
stay small: at most `--max-decisions` (default {MAX_DECISIONS}) moves per response, move log
pages of at most {MAX_LOG_PAGE} moves. A game not used for `--idle-expiry` seconds is
forgotten; beyond `--max-games` stored games the least recently used are.
"""


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


def allowed_methods(app: FastAPI, path: str) -> list[str]:
    """The methods the OpenAPI schema of ``app`` documents for ``path`` (sorted)."""
    methods: set[str] = set()
    for template, ops in app.openapi()["paths"].items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            methods |= {m.upper() for m in ops}
    return sorted(methods)


def create_app(policy: str = "reference", max_games: int = 1000, db: str | None = None,
               idle_expiry: float = IDLE_EXPIRY, max_decisions: int = MAX_DECISIONS,
               max_body: int = MAX_BODY, bot_threads: int = 2,
               before_store: Callable[[], None] | None = None,
               stream_limits: dict | None = None, bot_processes: int = 0) -> FastAPI:
    """The FastAPI application; its :class:`Service` is ``app.state.service`` (the
    arguments are :class:`Service`'s, and ``max_body``: the largest request body in bytes;
    ``stream_limits``: the event streams' limits, see
    :class:`~canasta_env.bots.events.EventHub`).

    Raises:
        ServiceError: the default ``policy`` cannot be loaded (e.g. no reference file is
            usable, or a ``.zip`` while ``training`` is not imported), the database
            cannot be opened, or an option is out of range.
    """
    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body <= 0:
        raise ServiceError(400, f"max_body must be a positive int, got {max_body!r}")
    try:
        service = Service(policy, max_games, db, idle_expiry, max_decisions, bot_threads,
                          before_store, stream_limits, bot_processes)
    except ValueError as e:  # a stream limit out of range
        raise ServiceError(400, str(e)) from None

    @asynccontextmanager
    async def lifespan(app):
        yield
        service.close()

    app = FastAPI(title="canasta_env bots", version="0.2.0", description=DESCRIPTION,
                  lifespan=lifespan, docs_url=None, redoc_url=None)
    add_docs(app)  # /docs and /redoc offline, /favicon.ico
    app.state.service = service
    app.add_middleware(BodyLimit, max_body=max_body)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        return JSONResponse(status_code=exc.status, content={"detail": exc.message},
                            headers=exc.headers)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError):
        # the database failed (or is known to be damaged): a JSON 503, logged once
        log.error("%s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(status_code=503, content={"detail": str(exc)})

    @app.exception_handler(Exception)
    async def _internal_error(request: Request, exc: Exception):
        # never a plain-text page (uvicorn logs the traceback once)
        return JSONResponse(status_code=500, content={
            "detail": f"internal error ({type(exc).__name__}); see the server's log"})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only its first route's
            headers["Allow"] = ", ".join(allowed_methods(app, request.url.path))
        return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail},
                            headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        parts = [f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in exc.errors()]
        return JSONResponse(status_code=422, content={
            "detail": "invalid request: " + "; ".join(parts),
            "errors": [{"loc": list(err["loc"]), "msg": err["msg"]} for err in exc.errors()]})

    app.include_router(router)
    # GET /games/{game_id}/events and the WebSocket (canasta_env.bots.event_routes)
    add_event_routes(app, service, seat_token, ServiceError)
    app.mount("/static", StaticFiles(directory=STATIC, follow_symlink=False), name="static")

    return app


__all__ = ["create_app", "BodyLimit", "DESCRIPTION"]
