"""HTTP JSON service: Canasta games against trained or rule-based bots, for any frontend.

    python -m canasta_env.bots.service [--host 127.0.0.1] [--port 8000]
                                       [--policy reference|heuristic|random|PATH]
    python -m training.serve ...    # the same, with .zip checkpoints loadable (canasta-serve)

Listens on localhost by default. Interactive OpenAPI docs at ``/docs`` (schema at
``/openapi.json``). Needs the ``bots`` extra (FastAPI, uvicorn, onnxruntime); a ``.zip``
checkpoint policy also needs the ``training`` extra and is served through
``python -m training.serve`` (importing ``training`` registers the ``.zip`` loader, see
:mod:`canasta_env.bots.loader`). ``reference``, ``heuristic``, ``random`` and ``.onnx``
models need no torch.

=================================  ===================================================
endpoint                           what it does
=================================  ===================================================
``POST /games``                    new game: ``seats`` (4 x ``"human"`` / ``"bot"``),
                                   ``variant`` (``"classic"`` or
                                   ``"hand_and_foot"``), optional ``seed``,
                                   ``bot_policy``, ``auto_deal``, ``rules``,
                                   ``starting_scores``. Bots move at once until a human
                                   is on turn or the hand (game, with ``auto_deal``)
                                   ends. Returns ``game_id``, the bots' ``moves`` and a
                                   ``view`` (of the lowest human seat; public view when
                                   every seat is a bot)
``GET /games/{id}?seat=N``         seat N's view (see :func:`seat_view`); without
                                   ``seat`` the public view (no hand, no legal actions)
``POST /games/{id}/actions``       ``{"seat": N, "action": id or description}``: a human
                                   seat's decision; then the bots move until a human
                                   is on turn or the hand / game ends. Returns
                                   ``moves`` (the human's first) and seat N's ``view``
``POST /games/{id}/next_hand``     deal the next hand once a hand is over and the game
                                   is not (``?seat=N`` for the view returned); bots move
``DELETE /games/{id}``             forget a game
``POST /move``                     stateless: ``{"position", "seat", "policy"?}`` ->
                                   the bot's next decision ``{"action", "description"}``
``POST /turn``                     stateless: the bot's whole turn -> ``{"position",
                                   "moves"}``
=================================  ===================================================

Several hands: a game runs to 5,000 points over several hands. When a hand ends and the
game is not over, the game waits in phase ``HAND_OVER`` (the view shows the hand's
``score_sheets``) until ``POST /games/{id}/next_hand``; with ``"auto_deal": true`` at
creation the next hand is dealt at once and play goes on (a game of four bots then plays
to the end of the game inside the creating request).

Errors: every bad request is answered with a 4xx status and ``{"detail": "<message>"}``
and leaves the game unchanged: 404 unknown game; 409 not that seat's turn, a bot's seat,
the hand or game over, no finished hand to move on from; 400 illegal action, unknown
action description, malformed position, unknown variant or rules option, bad seat list,
unknown or unavailable bot policy, a bot policy built for another variant than the
game's (checked before anything is dealt or stored: ``bot policy 'model.onnx' cannot play
this game: policy 'model.onnx' is a Classic policy (observation 202, 91 actions); this
game is Hand and Foot (observation 245, 98 actions)``); 422 a request body of the wrong
shape (``detail`` names each field).

Variants: ``reference`` plays each game with its variant's reference policy; Hand and
Foot has none yet, so there it plays the heuristic. The stateless ``/move`` and ``/turn``
check the policy against the position's variant the same way.

Command line: a bad option, a ``--policy`` that cannot be loaded, or a ``--host`` /
``--port`` that cannot be bound (in use, not an address of this machine, no permission)
is one line on stderr and exit code 2; Ctrl-C stops the server (exit 0).

Trust model: a local service for one frontend. There is no authentication: any client
may ask for any seat's view, so a frontend shows each person only their own seat. A
view never contains another seat's hidden cards or the stock order. ``bot_policy`` /
``policy`` in requests may name ``"heuristic"``, ``"random"``, ``"reference"`` or the
server's ``--policy``; other checkpoint paths are refused, because loading a checkpoint
unpickles it.
"""

from __future__ import annotations

import socket
import sys
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from canasta_env.cli import ArgumentParser, fail, host, port, positive_int
from canasta_env.engine import (
    Game,
    IllegalActionError,
    OptionsError,
    PositionError,
    preset,
    to_position,
)
from canasta_env.public import public_pile
from canasta_env.render import render_text

from .bot import Bot, move_record, position_game
from .loader import PolicySpecError

BUILTIN_POLICIES = ("heuristic", "random", "reference")
SEAT_KINDS = ("human", "bot")
#: bot decisions one request may play before it returns (a guard against endless hands)
MAX_BOT_MOVES = 50_000


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


def seat_view(game: Game, seat: int | None) -> dict:
    """What ``seat`` (0..3) may see of ``game``; ``seat=None`` gives the public view.

    Built from the JSON position and :meth:`Game.legal_actions`: the seat's own hand,
    both partnerships' melds, each player's hand size, red 3s and the cards they are
    known to hold from pile pickups, the discard pile and a pile set aside for an opening
    (public: every card in them was seen face up), stock size, scores, opening minimums,
    phase, who is to move, this hand's moves, finished hands' score sheets, and the legal
    actions with descriptions when ``seat`` is on turn. Never another seat's hidden
    cards, never the stock order.
    """
    pos = to_position(game)
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
        "moves": [move_record(e["seat"], e["action"], game) for e in pos["log"] if "action" in e],
        "score_sheets": pos["sheets"],
        "went_out": pos["went_out"],
        "history": pos["history"],
    }
    if seat is not None:
        if to_move == seat:
            view["legal_actions"] = [{"action": a, "description": game.table.describe(a)}
                                     for a in game.legal_actions()]
        view["text"] = render_text(game, seat)
    return view


# ---------------------------------------------------------------------- game store
class ServiceError(Exception):
    """A bad request: HTTP ``status`` and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class GameRecord:
    game_id: str
    game: Game
    seats: list[str]
    bot: Bot
    bot_policy: str
    auto_deal: bool
    lock: threading.Lock = field(default_factory=threading.Lock)


class Service:
    """Games in memory, bots by policy spec, and the rules of each request. Every
    method validates completely before it changes a game.

    Args:
        policy: the default bot policy spec (``--policy``).
        max_games: games kept; the oldest is forgotten beyond this.
    """

    def __init__(self, policy: str = "reference", max_games: int = 1000) -> None:
        self.default_policy = policy
        self.max_games = max_games
        self.games: OrderedDict[str, GameRecord] = OrderedDict()
        self._bots: dict[str, Bot] = {}
        self._lock = threading.Lock()
        self._policy_lock = threading.Lock()  # policies keep RNG state: one caller at a time
        self.bot(None)  # load the default now: a missing policy file fails at start-up

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
            try:
                bot = Bot(name)  # PolicySpecError says why, e.g. "reference" unavailable
            except (PolicySpecError, ValueError) as e:
                raise ServiceError(400, f"bot policy {name!r} cannot be used: {e}") from None
            with self._lock:
                bot = self._bots.setdefault(name, bot)
        if variant is not None:
            try:
                with self._policy_lock:  # may load the variant's reference once
                    bot.check_variant(variant)
            except ValueError as e:  # PolicyVariantError, PolicySpecError, a bad file
                raise ServiceError(400, f"bot policy {name!r} cannot play this game: {e}") \
                    from None
        return name, bot

    # --------------------------------------------------------------- games
    def record(self, game_id: str) -> GameRecord:
        with self._lock:
            rec = self.games.get(game_id)
        if rec is None:
            raise ServiceError(404, f"no game {game_id!r} (unknown id, or forgotten)")
        return rec

    def create(self, seats: list[str], variant: str = "classic", seed: int | None = None,
               bot_policy: str | None = None, auto_deal: bool = False,
               rules: dict | None = None, starting_scores: list[int] | None = None) -> dict:
        """A new game (see ``POST /games``); stored only once everything is checked.

        Raises:
            ServiceError: 400 for bad seats, variant, rules, starting scores, an
                unavailable bot policy or one that cannot play the variant.
        """
        seats = self._check_seats(seats)
        try:
            options = preset(variant, **(rules or {}))
        except (OptionsError, TypeError) as e:
            raise ServiceError(400, f"bad variant or rules: {e}") from None
        scores = (0, 0)
        if starting_scores is not None:
            if len(starting_scores) != 2:
                raise ServiceError(400, f"starting_scores must be two ints (partnerships 0 and "
                                        f"1), got {starting_scores!r}")
            scores = (int(starting_scores[0]), int(starting_scores[1]))
        # the bots' policy must fit the variant: refused here, before the deal and the store
        policy, bot = self.bot(bot_policy, options) if "bot" in seats else (None, None)
        try:
            game = Game(options, seed=seed, scores=scores)
        except ValueError as e:
            raise ServiceError(400, f"cannot start the game: {e}") from None
        rec = GameRecord(uuid.uuid4().hex[:12], game, seats, bot, policy, auto_deal)
        with self._lock:
            self.games[rec.game_id] = rec
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
        with rec.lock:
            moves = self._run_bots(rec)
            humans = [s for s in range(4) if seats[s] == "human"]
            return {"game_id": rec.game_id, "seats": seats, "bot_policy": policy,
                    "auto_deal": auto_deal, "moves": moves,
                    "view": self._view(rec, humans[0] if humans else None)}

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

    def view(self, game_id: str, seat: int | None) -> dict:
        rec = self.record(game_id)
        with rec.lock:
            return self._view(rec, seat)

    def _view(self, rec: GameRecord, seat: int | None) -> dict:
        v = seat_view(rec.game, seat)
        v.update(game_id=rec.game_id, seats=rec.seats, bot_policy=rec.bot_policy,
                 auto_deal=rec.auto_deal)
        return v

    def act(self, game_id: str, seat: int, action: int | str) -> dict:
        rec = self.record(game_id)
        with rec.lock:
            game = rec.game
            if rec.seats[seat] != "human":
                raise ServiceError(409, f"seat {seat} is played by the bot; only human seats "
                                        f"({self._humans(rec)}) submit actions")
            if game.to_move is None:
                what = "game" if game.game_over else "hand"
                hint = "" if game.game_over else f"; POST /games/{game_id}/next_hand deals the next"
                raise ServiceError(409, f"the {what} is over, nobody is on turn{hint}")
            if game.to_move != seat:
                raise ServiceError(409, f"not seat {seat}'s turn: seat {game.to_move} "
                                        f"({rec.seats[game.to_move]}) is to move, phase "
                                        f"{game.phase.name}")
            action_id = self._action_id(action, game)
            try:
                game.apply(action_id)
            except IllegalActionError as e:
                legal = ", ".join(f"{a} {game.table.describe(a)!r}" for a in game.legal_actions())
                raise ServiceError(400, f"{e}. Legal now: {legal}") from None
            moves = [move_record(seat, action_id, game)]
            moves += self._run_bots(rec)
            return {"moves": moves, "view": self._view(rec, seat)}

    @staticmethod
    def _action_id(action: int | str, game) -> int:
        if isinstance(action, str):
            text = action.strip()
            if text.isdigit():
                return int(text)
            try:
                return game.table.parse(text)
            except ValueError as e:
                raise ServiceError(400, f"{e}; send an action id or a description from "
                                        f"legal_actions") from None
        return action

    @staticmethod
    def _humans(rec: GameRecord) -> list[int]:
        return [s for s in range(4) if rec.seats[s] == "human"]

    def next_hand(self, game_id: str, seat: int | None) -> dict:
        rec = self.record(game_id)
        with rec.lock:
            game = rec.game
            if game.game_over:
                raise ServiceError(409, f"the game is over (scores {game.scores}); start a new "
                                        f"game with POST /games")
            if not game.hand_over:
                raise ServiceError(409, f"hand {game.hand_number + 1} is still being played "
                                        f"(phase {game.phase.name}); next_hand needs a finished "
                                        f"hand")
            game.next_hand()
            moves = self._run_bots(rec)
            return {"moves": moves, "view": self._view(rec, seat)}

    def delete(self, game_id: str) -> None:
        self.record(game_id)
        with self._lock:
            self.games.pop(game_id, None)

    def _run_bots(self, rec: GameRecord) -> list[dict]:
        """Bots play until a human is on turn or the hand (the game, with auto_deal) ends."""
        game = rec.game
        moves: list[dict] = []
        with self._policy_lock:
            while len(moves) < MAX_BOT_MOVES and not game.game_over:
                if game.hand_over:
                    if not rec.auto_deal:
                        break
                    game.next_hand()
                    continue
                seat = game.to_move
                if rec.seats[seat] != "bot":
                    break
                moves += rec.bot.play_seat_turn(game, seat)
        return moves

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
        with self._policy_lock:
            action = bot.act(game, seat)
        return {"action": action, "description": game.table.describe(action), "policy": name}

    def turn(self, position: Any, seat: int, policy: str | None) -> dict:
        """The bot's whole turn from ``position`` (``POST /turn``).

        Raises:
            ServiceError: as :meth:`move`.
        """
        game = self._position_game(position, seat)
        name, bot = self.bot(policy, game.options)
        with self._policy_lock:
            moves = bot.play_seat_turn(game, seat)
        return {"position": to_position(game), "moves": moves, "policy": name}


# ---------------------------------------------------------------------- request bodies
def _seat_field():
    return Field(..., ge=0, le=3, description="seat 0..3 (partners 0+2 and 1+3)")


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
        None, description="'heuristic', 'random', 'reference' or the server's --policy "
                          "(default)")
    auto_deal: bool = Field(False, description="deal the next hand as soon as one ends")
    rules: dict[str, Any] | None = Field(
        None, description="rules options changed from the preset, e.g. "
                          "{'black_three_freezes': true}")
    starting_scores: list[StrictInt] | None = Field(
        None, description="cumulative scores of partnerships 0 and 1 at the start")


class Action(BaseModel):
    """Body of ``POST /games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    seat: StrictInt = _seat_field()
    action: StrictInt | StrictStr = Field(
        ..., description="an action id, or its description (e.g. 'draw from stock')")


class PositionRequest(BaseModel):
    """Body of the stateless ``POST /move`` and ``POST /turn``."""

    model_config = ConfigDict(extra="forbid")
    position: dict[str, Any] = Field(..., description="a canasta_env position (JSON)")
    seat: StrictInt = _seat_field()
    policy: StrictStr | None = Field(None, description="bot policy (default: the server's)")


# ---------------------------------------------------------------------- the FastAPI app
def create_app(policy: str = "reference", max_games: int = 1000):
    """The FastAPI application (see the module docstring).

    Raises:
        ServiceError: the default ``policy`` cannot be loaded (e.g. no reference file is
            usable, or a ``.zip`` while ``training`` is not imported).
    """
    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse

    service = Service(policy, max_games)
    app = FastAPI(
        title="canasta_env bots",
        version="0.1.0",
        description="Canasta (Classic, Hand and Foot) games against trained or rule-based "
                    "bots. Positions use the JSON format of canasta_env.engine.to_position.",
    )
    app.state.service = service

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        return JSONResponse(status_code=exc.status, content={"detail": exc.message})

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        parts = [f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in exc.errors()]
        return JSONResponse(status_code=422, content={
            "detail": "invalid request: " + "; ".join(parts),
            "errors": [{"loc": list(err["loc"]), "msg": err["msg"]} for err in exc.errors()]})

    @app.get("/", summary="Service index")
    def index() -> dict:
        return {"service": "canasta_env bots", "docs": "/docs", "openapi": "/openapi.json",
                "default_policy": service.default_policy,
                "policies": sorted({*BUILTIN_POLICIES, service.default_policy}),
                "games": len(service.games)}

    @app.post("/games", status_code=201, summary="Start a game; bots move until a human is on turn")
    def new_game(req: NewGame) -> dict:
        return service.create(req.seats, req.variant, req.seed, req.bot_policy, req.auto_deal,
                              req.rules, req.starting_scores)

    @app.get("/games/{game_id}", summary="A seat's view (public view without seat)")
    def get_game(game_id: str, seat: int | None = Query(None, ge=0, le=3)) -> dict:
        return service.view(game_id, seat)

    @app.post("/games/{game_id}/actions",
              summary="A human seat's decision; then the bots move")
    def post_action(game_id: str, req: Action) -> dict:
        return service.act(game_id, req.seat, req.action)

    @app.post("/games/{game_id}/next_hand", summary="Deal the next hand after a finished hand")
    def post_next_hand(game_id: str, seat: int | None = Query(None, ge=0, le=3)) -> dict:
        return service.next_hand(game_id, seat)

    @app.delete("/games/{game_id}", summary="Forget a game")
    def delete_game(game_id: str) -> dict:
        service.delete(game_id)
        return {"deleted": game_id}

    @app.post("/move", summary="Stateless: the bot's next decision in a position")
    def post_move(req: PositionRequest) -> dict:
        return service.move(req.position, req.seat, req.policy)

    @app.post("/turn", summary="Stateless: the bot plays its whole turn from a position")
    def post_turn(req: PositionRequest) -> dict:
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
    stops, or 2 when the default ``--policy`` cannot be loaded or ``--host`` /
    ``--port`` cannot be bound (one line on stderr).

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
                        "with onnxruntime), heuristic, random, or a .onnx path (.zip "
                        "checkpoints: through python -m training.serve)")
    p.add_argument("--max-games", type=positive_int, default=1000, help="games kept in memory")
    p.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug", "trace"])
    args = p.parse_args(argv)
    try:
        app = create_app(args.policy, args.max_games)
    except ServiceError as e:
        return fail(p.prog, e.message)
    try:
        sock = bind(args.host, args.port)
    except OSError as e:
        return fail(p.prog, f"cannot listen on {args.host}:{args.port}: "
                            f"{e.strerror or e}")
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


__all__ = ["Service", "ServiceError", "seat_view", "create_app", "main"]

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.service"))
