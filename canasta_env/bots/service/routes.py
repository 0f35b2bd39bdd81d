"""The HTTP routes (a FastAPI ``APIRouter``): each maps one :class:`~.core.Service` method
onto a path; their summaries, descriptions and models are the API documentation at
``/docs``, ``/redoc`` and ``/openapi.json``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import FileResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .core import Service
from .limits import BUILTIN_POLICIES, MAX_DECISIONS, MAX_LOG_PAGE, MAX_REPLAY, PAGE_HEADERS, STATIC
from .schemas import (
    Action,
    ActionResult,
    Deleted,
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


def get_service(request: Request) -> Service:
    """The application's :class:`Service` (``app.state.service``)."""
    return request.app.state.service


def seat_token(creds: HTTPAuthorizationCredentials | None = Depends(bearer),  # noqa: B008
               ) -> str | None:
    """The bearer token of the request, if any (checked against the game)."""
    return None if creds is None else creds.credentials


SEAT = Query(None, ge=0, le=3, description="the seat to look as: must be the token's seat")
router = APIRouter()


def service_index(service: Service) -> Index:
    return Index(service="canasta_env bots", docs="/docs", openapi="/openapi.json",
                 default_policy=service.default_policy,
                 policies=sorted({*BUILTIN_POLICIES, service.default_policy}),
                 games=service.count(), table="/", static="/static/")


@router.get("/", summary="The card table (a browser asking for HTML) or the service index",
            description="With `Accept: text/html`: the card table page (its files under "
                        "`/static/`). Otherwise the service index, as at `GET /api`.",
            responses={200: {"content": {"text/html": {}}}})
def index(accept: str = Header("", include_in_schema=False),
          service: Service = Depends(get_service)) -> Index:  # noqa: B008
    if "text/html" in accept:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)
    return service_index(service)


@router.get("/api", summary="Service index",
            description="The service's name, its documentation, its bot policies and the "
                        "number of stored games.")
def api_index(service: Service = Depends(get_service)) -> Index:  # noqa: B008
    return service_index(service)


@router.post(
    "/games", status_code=201,
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
            description="The seat's own hand and legal actions with its token; the public "
                        "view (no hand, no legal actions) without one. A view never contains "
                        "another seat's hidden cards or the stock order. Reads the stored game "
                        "without waiting for bots playing it.")
def get_game(game_id: str, seat: int | None = SEAT,
             token: str | None = Depends(seat_token),  # noqa: B008
             service: Service = Depends(get_service)) -> View:  # noqa: B008
    return service.view(game_id, token, seat)


@router.get("/games/{game_id}/moves", summary="The game's move log (public)",
            description="A page of the append-only move log, oldest first: the moves with "
                        "`seq` after `after`, at most `limit` of them.")
def get_moves(game_id: str, after: int = Query(0, ge=0, description="moves after this seq"),
              limit: int = Query(100, description=f"1..{MAX_LOG_PAGE}"),
              service: Service = Depends(get_service)) -> MovesPage:  # noqa: B008
    return service.moves(game_id, after, limit)


@router.get("/games/{game_id}/replay",
            summary="The game replayed from its deal as the token's seat saw it (public "
                    "without a token): the page's replay view and game log file",
            description=f"`moves` and one `frames` entry (a view) per move. 409 while the bots "
                        f"play the game, or for a log over {MAX_REPLAY} moves.")
def get_replay(game_id: str, seat: int | None = SEAT,
               token: str | None = Depends(seat_token),  # noqa: B008
               service: Service = Depends(get_service)) -> Replay:  # noqa: B008
    return service.replay(game_id, token, seat)


@router.post("/games/{game_id}/actions", summary="The token's seat's decision; then the bots move",
             description="`action`: an action id, its ASCII digits, or its description from "
                         "`legal_actions`; `seat` (optional) must be the token's. Then the bots "
                         "move as at creation. Returns `moves` (the human's first), the seat's "
                         "`view` and, after a draw from the stock, the cards `drawn`.")
def post_action(game_id: str, req: Action, token: str | None = Depends(seat_token),  # noqa: B008
                service: Service = Depends(get_service)) -> ActionResult:  # noqa: B008
    return service.act(game_id, token, req.seat, req.action)


@router.post("/games/{game_id}/next_hand", summary="Deal the next hand after a finished hand",
             description="Once a hand is over and the game is not (phase `HAND_OVER`, the view "
                         "shows the hand's `score_sheets`); then the bots move. Needs the token "
                         "of any human seat of the game (none for a game of four bots).")
def post_next_hand(game_id: str, seat: int | None = SEAT,
                   token: str | None = Depends(seat_token),  # noqa: B008
                   service: Service = Depends(get_service)) -> ActionResult:  # noqa: B008
    return service.next_hand(game_id, token, seat)


@router.delete("/games/{game_id}", summary="Forget a game",
               description="Needs the token of any human seat of the game (none for a game of "
                           "four bots).")
def delete_game(game_id: str, token: str | None = Depends(seat_token),  # noqa: B008
                service: Service = Depends(get_service)) -> Deleted:  # noqa: B008
    service.delete(game_id, token)
    return Deleted(deleted=game_id)


@router.post("/move", summary="Stateless: the bot's next decision in a position",
             description="`position`: the JSON of `canasta_env.engine.to_position`; `seat` must "
                         "be on turn in it. The policy is checked against the position's "
                         "variant.")
def post_move(req: PositionRequest,
              service: Service = Depends(get_service)) -> MoveResult:  # noqa: B008
    return service.move(req.position, req.seat, req.policy)


@router.post("/turn", summary="Stateless: the bot plays its whole turn from a position",
             description="As `POST /move`, for the seat's whole turn: returns the position "
                         "after it and the moves.")
def post_turn(req: PositionRequest,
              service: Service = Depends(get_service)) -> TurnResult:  # noqa: B008
    return service.turn(req.position, req.seat, req.policy)


__all__ = ["router", "get_service", "seat_token", "bearer"]
