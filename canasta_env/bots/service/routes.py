"""The HTTP routes (a FastAPI ``APIRouter``): each maps one :class:`~.core.Service` method
onto a path; their summaries, descriptions and models are the API documentation at
``/docs``, ``/redoc`` and ``/openapi.json``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse
from fastapi.security import HTTPBearer

from ..levels import LEVELS, levels_of
from .core import Service
from .errors import unauthorized
from .limits import BUILTIN_POLICIES, MAX_DECISIONS, MAX_LOG_PAGE, MAX_REPLAY, PAGE_HEADERS, STATIC
from .schemas import (
    Action,
    ActionResult,
    Deleted,
    ErrorBody,
    GameCreated,
    Index,
    MoveResult,
    MovesPage,
    NewGame,
    PositionRequest,
    Replay,
    TurnResult,
    View,
)

bearer = HTTPBearer(auto_error=False, description="a seat token from POST /games")
#: the routes that take a seat token: with it, a seat's view; without it, the public one
OPTIONAL_TOKEN = {"security": [{}]}  # added to the bearer scheme FastAPI lists
#: what each error status means (the body is always :class:`ErrorBody`)
ERRORS = {
    400: "refused: an illegal action, a malformed position, rules or values out of their "
         "bounds or not fitting together, a bot policy that is not offered or cannot play "
         "the variant",
    401: "a malformed Authorization header, a token that is not one of this game's, or a "
         "seat's view or action without its token",
    403: "the token is another seat's",
    404: "no such game (unknown id, expired or forgotten)",
    409: "not now: not that seat's turn, bots playing, the hand or game over, the game "
         "changed by another request meanwhile",
    413: "the request body is over the server's --max-body",
    429: "too many event streams open (--max-streams, --max-game-streams); Retry-After says "
         "when to try again",
    422: "the request has the wrong shape: 'detail' names each field, 'errors' lists them",
    503: "the database failed or is damaged (nothing was stored)",
}


def errors(*codes: int) -> dict:
    """The ``responses`` of a route: each of ``codes`` with the one error body."""
    return {code: {"model": ErrorBody, "description": ERRORS[code]} for code in codes}


def get_service(request: Request) -> Service:
    """The application's :class:`Service` (``app.state.service``)."""
    return request.app.state.service


def seat_token(request: Request, _=Depends(bearer)) -> str | None:  # noqa: B008
    """The bearer token of the request (``None`` without an Authorization header).

    Raises:
        ServiceError: 401, an Authorization header that is not ``Bearer <token>``.
    """
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or " " in token.strip():
        raise unauthorized("malformed Authorization header: send 'Authorization: Bearer "
                           "<seat token from POST /games>', or none for the public view")
    return token.strip()


SEAT = Query(None, ge=0, le=3, description="the seat to look as: must be the token's seat")
router = APIRouter()


def service_index(service: Service) -> Index:
    return Index(service="canasta_env bots", docs="/docs", openapi="/openapi.json",
                 default_policy=service.default_policy,
                 policies=sorted({*BUILTIN_POLICIES, service.default_policy}),
                 levels={v: levels_of(v) for v in LEVELS},
                 games=service.count(), table="/", static="/static/")


@router.get("/", summary="The card table (a browser asking for HTML) or the service index",
            description="With `Accept: text/html`: the card table page (its files under "
                        "`/static/`). Otherwise the service index, as at `GET /api`.",
            responses={200: {"content": {"text/html": {"schema": {"type": "string"}}},
                             "description": "the page (HTML) or the index (JSON)"},
                       **errors(503)})
def index(request: Request, service: Service = Depends(get_service)) -> Index:  # noqa: B008
    if "text/html" in request.headers.get("accept", ""):
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)
    return service_index(service)


@router.get("/api", summary="Service index", responses=errors(503),
            description="The service's name, its documentation, its bot policies and the "
                        "number of stored games.")
def api_index(service: Service = Depends(get_service)) -> Index:  # noqa: B008
    return service_index(service)


@router.post(
    "/games", status_code=201, responses=errors(400, 413, 422, 503),
    summary="Start a game; bots move until a human is on turn. Returns the seat tokens",
    description=f"Bots move at once until a human is on turn or the hand (the game, with "
                f"`auto_deal`) ends, at most `--max-decisions` (default {MAX_DECISIONS}) "
                f"decisions in the request: the rest, and all of a four-bot `auto_deal` game, "
                f"is played in the background (the view's `status` is `running`). Returns the "
                f"`game_id`, one secret `tokens` entry per human seat (shown only here; only "
                f"its SHA-256 hash is stored), the bots' `moves` and the view of the lowest "
                f"human seat (the public view when every seat is a bot). The bot policy is "
                f"checked against the variant before anything is dealt or stored.")
def new_game(req: NewGame, service: Service = Depends(get_service)) -> GameCreated:  # noqa: B008
    return service.create(req.seats, req.variant, req.seed, req.bot_policy, req.auto_deal,
                          req.rules, req.starting_scores)


@router.get("/games/{game_id}", summary="The token's seat's view (public view without a token)",
            responses=errors(401, 403, 404, 422, 503), openapi_extra=OPTIONAL_TOKEN,
            description="The seat's own hand and legal actions with its token; the public "
                        "view (no hand, no legal actions) without one. A view never contains "
                        "another seat's hidden cards or the stock order. Reads the stored game "
                        "without waiting for bots playing it.")
def get_game(game_id: str, seat: int | None = SEAT,
             token: str | None = Depends(seat_token),  # noqa: B008
             service: Service = Depends(get_service)) -> View:  # noqa: B008
    return service.view(game_id, token, seat)


@router.get("/games/{game_id}/moves", summary="The game's move log (public)",
            responses=errors(400, 404, 422, 503),
            description="A page of the append-only move log, oldest first: the moves with "
                        "`seq` after `after`, at most `limit` of them.")
def get_moves(game_id: str, after: int = Query(0, ge=0, description="moves after this seq"),
              limit: int = Query(100, description=f"moves per page, 1..{MAX_LOG_PAGE} (a 400 "
                                                  f"outside)",
                                 json_schema_extra={"minimum": 1, "maximum": MAX_LOG_PAGE}),
              service: Service = Depends(get_service)) -> MovesPage:  # noqa: B008
    return service.moves(game_id, after, limit)


@router.get("/games/{game_id}/replay",
            summary="The game replayed from its deal as the token's seat saw it (public "
                    "without a token): the page's replay view and game log file",
            responses=errors(401, 403, 404, 409, 422, 503), openapi_extra=OPTIONAL_TOKEN,
            description=f"`moves` and one `frames` entry (a view) per move. 409 while the bots "
                        f"play the game, or for a log over {MAX_REPLAY} moves.")
def get_replay(game_id: str, seat: int | None = SEAT,
               token: str | None = Depends(seat_token),  # noqa: B008
               service: Service = Depends(get_service)) -> Replay:  # noqa: B008
    return service.replay(game_id, token, seat)


@router.post("/games/{game_id}/actions", summary="The token's seat's decision; then the bots move",
             responses=errors(400, 401, 403, 404, 409, 413, 422, 503),
             description="`action`: an action id, its ASCII digits, or its description from "
                         "`legal_actions`; `seat` (optional) must be the token's. Then the bots "
                         "move as at creation. Returns `moves` (the human's first), the seat's "
                         "`view` and, after a draw from the stock, the cards `drawn`.")
def post_action(game_id: str, req: Action, token: str | None = Depends(seat_token),  # noqa: B008
                service: Service = Depends(get_service)) -> ActionResult:  # noqa: B008
    return service.act(game_id, token, req.seat, req.action)


@router.post("/games/{game_id}/next_hand", summary="Deal the next hand after a finished hand",
             responses=errors(401, 403, 404, 409, 422, 503), openapi_extra=OPTIONAL_TOKEN,
             description="Once a hand is over and the game is not (phase `HAND_OVER`, the view "
                         "shows the hand's `score_sheets`); then the bots move. Needs the token "
                         "of any human seat of the game (none for a game of four bots).")
def post_next_hand(game_id: str, seat: int | None = SEAT,
                   token: str | None = Depends(seat_token),  # noqa: B008
                   service: Service = Depends(get_service)) -> ActionResult:  # noqa: B008
    return service.next_hand(game_id, token, seat)


@router.delete("/games/{game_id}", summary="Forget a game",
               responses=errors(401, 404, 422, 503), openapi_extra=OPTIONAL_TOKEN,
               description="Needs the token of any human seat of the game (none for a game of "
                           "four bots).")
def delete_game(game_id: str, token: str | None = Depends(seat_token),  # noqa: B008
                service: Service = Depends(get_service)) -> Deleted:  # noqa: B008
    service.delete(game_id, token)
    return Deleted(deleted=game_id)


@router.post("/move", summary="Stateless: the bot's next decision in a position",
             responses=errors(400, 409, 413, 422),
             description="`position`: the JSON of `canasta_env.engine.to_position`; `seat` must "
                         "be on turn in it. The policy is checked against the position's "
                         "variant.")
def post_move(req: PositionRequest,
              service: Service = Depends(get_service)) -> MoveResult:  # noqa: B008
    return service.move(req.position, req.seat, req.policy)


@router.post("/turn", summary="Stateless: the bot plays its whole turn from a position",
             responses=errors(400, 409, 413, 422),
             description="As `POST /move`, for the seat's whole turn: returns the position "
                         "after it and the moves.")
def post_turn(req: PositionRequest,
              service: Service = Depends(get_service)) -> TurnResult:  # noqa: B008
    return service.turn(req.position, req.seat, req.policy)


__all__ = ["router", "get_service", "seat_token", "bearer"]
