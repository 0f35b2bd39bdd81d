"""The request and response bodies of the HTTP API (pydantic models): the schema at
``/openapi.json`` is generated from them."""

from __future__ import annotations

import dataclasses
import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
)

from canasta_env.engine import limits as engine_limits
from canasta_env.engine.actions import NUM_ACTIONS_HAND_AND_FOOT
from canasta_env.engine.options import OPTION_BOUNDS, PRESETS, RulesOptions

from ..levels import LEVEL_NAMES
from .limits import BUILTIN_POLICIES, MAX_SCORE, RULES_BOUNDS, SEAT_KINDS, SEED_MAX, SEED_MIN


def integral(value: Any) -> Any:
    """A float with an integral value (JSON's ``2.0``, an integer to JSON Schema) as an int;
    anything else as it is (for the strict check after it)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: an int as JSON Schema's "integer" means it: 2 and 2.0, never "2" or true
JsonInt = Annotated[StrictInt, BeforeValidator(integral)]


# ---------------------------------------------------------------------- errors
class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where: 'body', 'query' or 'path', then the "
                                             "field names and list indices")
    msg: str


class ErrorBody(BaseModel):
    """The body of every refused request (4xx) and of a failure (5xx)."""

    detail: str = Field(description="what is wrong, in one message",
                        examples=["not seat 0's turn: seat 1 (bot) is to move, phase DRAW"])
    errors: list[FieldError] | None = Field(
        None, description="422 only: each field of the request that has the wrong shape")


# ---------------------------------------------------------------------- rules
def _option_docs() -> dict[str, str]:
    """Each option's text in :class:`RulesOptions`' docstring: lines ``name: text``,
    ``a / b: text`` (both), and ``a: text; b: text`` (each its own)."""
    docs: dict[str, str] = {}
    names: list[str] = []
    for line in (RulesOptions.__doc__ or "").splitlines():
        m = re.match(r"^ {8}(\w+(?: / \w+)*): (.*)$", line)
        if m:
            names = m.group(1).split(" / ")
            for name in names:
                docs[name] = m.group(2).strip()
        elif names and re.match(r"^ {12}\S", line):
            for name in names:
                docs[name] += " " + line.strip()
        else:
            names = []
    for name, text in list(docs.items()):  # "a: text; b: text" on one line
        parts = re.split(r"; (\w+): ", text)
        docs[name] = parts[0]
        for other, more in zip(parts[1::2], parts[2::2]):
            docs[other] = more
    return docs


def rules_schema() -> dict:
    """The JSON schema of ``POST /games``'s ``rules``: every rules option but ``variant``
    (the request's own field), with the bounds :class:`RulesOptions` enforces
    (:data:`canasta_env.engine.options.OPTION_BOUNDS`, :mod:`canasta_env.engine.limits`),
    tightened where this service bounds them more (:data:`~.limits.RULES_BOUNDS`)."""
    docs = _option_docs()
    props: dict[str, dict] = {}
    minimum = {"type": "integer", "minimum": 0, "maximum": engine_limits.POINTS_MAX}
    for f in dataclasses.fields(RulesOptions):
        if f.name == "variant":
            continue
        if f.name in OPTION_BOUNDS:
            lo, hi = RULES_BOUNDS.get(f.name, OPTION_BOUNDS[f.name])
            prop: dict[str, Any] = {"type": "integer", "minimum": lo, "maximum": hi}
        elif f.type in ("bool", bool):
            prop = {"type": "boolean"}
        elif f.name == "opening_minimums":
            prop = {"type": "array", "minItems": 1, "maxItems": engine_limits.MINIMUMS_CAPACITY,
                    "items": {"type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [
                        {"type": "integer", "minimum": -engine_limits.SCORE_LIMIT,
                         "maximum": engine_limits.SCORE_LIMIT}, minimum]}}
        elif f.name == "round_minimums":
            prop = {"type": "array", "maxItems": engine_limits.MINIMUMS_CAPACITY,
                    "items": minimum}
        else:  # pragma: no cover - a new kind of option must be described here
            raise TypeError(f"rules option {f.name} has no schema")
        if f.name == "foot_size":  # 0: no foot, else 3..30
            prop["not"] = {"enum": [1, 2]}
        if f.name == "max_meld_size":  # 0: no maximum, else 4..20
            prop["not"] = {"enum": [1, 2, 3]}
        prop["description"] = docs.get(f.name, f.name)
        props[f.name] = prop
    props["target_score"]["description"] += (
        " Classic only: unused in Hand and Foot, which ends after its `rounds`.")
    return {"type": "object", "additionalProperties": False, "properties": props,
            "description": "rules options changed from the variant's preset; each within its "
                           "bounds. Options that do not fit together (e.g. a hand_size the "
                           "pack cannot deal in the worst case) are a 400 naming them.",
            "examples": [{"black_three_freezes": True}, {"target_score": 3000}]}


#: the shape of a position (``canasta_env.engine.to_position``); the engine checks the rest
#: (a position is refused with a 400 unless it is reachable under its rules)
POSITION_SCHEMA = {
    "type": "object",
    "description": "a canasta_env position: the JSON of canasta_env.engine.to_position "
                   "(format 'canasta_env/position', version 1); docs/POSITION.md",
    "required": ["format", "version", "options", "seed", "hand_number", "dealer", "scores",
                 "history", "phase", "current", "hands", "known", "red_threes", "stock",
                 "pile", "pile_frozen", "melds", "opened", "minimum", "seat_melded", "turn"],
    "properties": {
        "format": {"type": "string", "enum": ["canasta_env/position"]},
        "version": {"type": "integer", "enum": [1]},
        "options": {"type": "object"},
        "seed": {"type": "integer"},
        "hand_number": {"type": "integer", "minimum": 0,
                        "maximum": engine_limits.MAX_HANDS - 1},
        "dealer": {"type": "integer", "minimum": 0, "maximum": 3},
        "current": {"type": "integer", "minimum": 0, "maximum": 3},
        "scores": {"type": "array", "minItems": 2, "maxItems": 2,
                   "items": {"type": "integer", "minimum": -engine_limits.SCORE_LIMIT,
                             "maximum": engine_limits.SCORE_LIMIT}},
        "phase": {"type": "string", "maxLength": engine_limits.POSITION_MAX_STRING},
        **{k: {"type": "array", "minItems": 4, "maxItems": 4}
           for k in ("hands", "known", "red_threes", "seat_melded")},
        **{k: {"type": "array", "minItems": 2, "maxItems": 2}
           for k in ("melds", "opened", "minimum")},
        "stock": {"type": "array", "items": {"type": "string"},
                  "maxItems": engine_limits.CARD_CAPACITY},
        "pile": {"type": "array", "items": {"type": "string"},
                 "maxItems": engine_limits.CARD_CAPACITY},
        "pile_frozen": {"type": "boolean"},
        "history": {"type": "array", "maxItems": engine_limits.HISTORY_MAX},
        "turn": {"type": "object"},
        "log": {"type": "array", "maxItems": engine_limits.LOG_MAX},
    },
}


#: a seat 0..3 (partners 0+2 and 1+3)
Seat = Annotated[StrictInt, Field(ge=0, le=3), BeforeValidator(integral)]
SEAT_DOC = "seat 0..3 (partners 0+2 and 1+3)"
#: the policy names in the schema: the built-in policies and the difficulty levels
POLICY_DOC = ("one of " + ", ".join(f"'{p}'" for p in BUILTIN_POLICIES) + " (the levels "
              + ", ".join(f"'{n}'" for n in LEVEL_NAMES) + " play the game's variant's "
              "policy of that level; GET /api lists them per variant)")


class NewGame(BaseModel):
    """Body of ``POST /games``. The limits in this schema are checked by the service,
    which answers a request outside them with a 400 naming the field."""

    model_config = ConfigDict(extra="forbid")
    seats: Annotated[list[StrictStr], WithJsonSchema({
        "type": "array", "minItems": 4, "maxItems": 4,
        "items": {"type": "string", "enum": list(SEAT_KINDS)},
        "description": "4 entries, seat 0..3 (partners 0+2 and 1+3): 'human' or 'bot'",
        "examples": [["human", "bot", "bot", "bot"]]})]
    variant: Annotated[StrictStr, WithJsonSchema({
        "type": "string", "enum": sorted(PRESETS), "default": "classic",
        "description": "rules preset"})] = "classic"
    seed: Annotated[JsonInt | None, WithJsonSchema({
        "anyOf": [{"type": "integer", "minimum": SEED_MIN, "maximum": SEED_MAX},
                  {"type": "null"}],
        "description": "deal seed (random if omitted or null)"})] = None
    bot_policy: StrictStr | None = Field(
        None, max_length=1000, examples=list(BUILTIN_POLICIES),
        description=POLICY_DOC + " or the server's --policy (default)")
    # strict: 0 / 1 / "true" are not the schema's boolean (schemathesis found 0 accepted)
    auto_deal: StrictBool = Field(False, description="deal the next hand as soon as one ends")
    rules: Annotated[dict[str, Any] | None, WithJsonSchema(
        {"anyOf": [rules_schema(), {"type": "null"}]})] = None
    starting_scores: Annotated[list[JsonInt] | None, WithJsonSchema({
        "anyOf": [{"type": "array", "minItems": 2, "maxItems": 2,
                   "items": {"type": "integer", "minimum": -MAX_SCORE, "maximum": MAX_SCORE}},
                  {"type": "null"}],
        "description": "cumulative scores of partnerships 0 and 1 at the start; in Classic "
                       "each below the target_score (a game is not over before it starts)"})
    ] = None


class Action(BaseModel):
    """Body of ``POST /games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    seat: Seat | None = Field(None, description=SEAT_DOC + "; default: the token's")
    action: Annotated[JsonInt | StrictStr, WithJsonSchema({
        "anyOf": [{"type": "integer", "minimum": 0, "maximum": NUM_ACTIONS_HAND_AND_FOOT - 1},
                  {"type": "string", "minLength": 1, "maxLength": 200}],
        "description": "an action id (or its ASCII digits), or its description from the "
                       "view's legal_actions (e.g. 'draw from stock'); an action that is not "
                       "legal now is a 400 listing the legal ones",
        "examples": [0, "draw from stock"]})]


class PositionRequest(BaseModel):
    """Body of the stateless ``POST /move`` and ``POST /turn``."""

    model_config = ConfigDict(extra="forbid")
    position: Annotated[dict[str, Any], WithJsonSchema(POSITION_SCHEMA)]
    seat: Seat = Field(description=SEAT_DOC + ": the seat on turn in the position")
    policy: StrictStr | None = Field(None, max_length=1000, examples=list(BUILTIN_POLICIES),
                                     description="bot policy: " + POLICY_DOC +
                                                 " or the server's --policy (default)")


# ---------------------------------------------------------------------- responses
class Move(BaseModel):
    seat: int
    action: int
    description: str
    words: str = Field(description="the move in plain words, to follow the player's name "
                                   "('discards a 7')")


#: what ``hand_number`` means wherever the service shows it
HAND_NUMBER = ("hands dealt before this one in the game: 0 for the first hand (people are "
               "shown this plus 1: 'hand 1'); in Hand and Foot the round minus 1 (0 to the "
               "game's rounds minus 1)")


class LoggedMove(Move):
    seq: int = Field(description="1, 2, ... in the game's move log")
    hand_number: int = Field(description=HAND_NUMBER)


class LegalAction(BaseModel):
    action: int
    description: str


class Player(BaseModel):
    seat: int
    partnership: int
    hand_size: int
    red_threes: int
    known_cards: list[str] = Field(description="cards known to be in the hand (pile pickups)")


class Meld(BaseModel):
    naturals: int
    jokers: int
    twos: int
    cards: int
    canasta: str | None = Field(description="'natural', 'mixed' or null")


class Pile(BaseModel):
    size: int
    top: str | None
    cards: list[str]
    frozen: bool
    frozen_for: list[bool] = Field(description="per partnership")
    stop_card: bool
    set_aside: list[str] = Field(description="a pile taken for an opening, set aside (public)")


class TurnInfo(BaseModel):
    seat: int
    opening_points: int
    pile_set_aside: int
    asked_partner: str | None


class HandAndFootView(BaseModel):
    in_foot: list[bool] = Field(description="per seat: playing from the foot")
    rounds: int = Field(description="the rounds of the game (hand_number counts them from 0)")
    foot_sizes: list[int] = Field(description="per seat: cards of the foot not yet picked up")
    books: list[list[Any]] = Field(description="per partnership: closed books")
    wild_melds: list[dict[str, int]] = Field(description="per partnership: the open wild "
                                                         "meld (jokers, twos)")


class View(BaseModel):
    """What one seat (or, with ``seat`` null, anyone) may see of a game."""

    game_id: str
    status: str = Field(description="'waiting', 'running' (bots playing in the background) "
                                    "or 'over'")
    decisions: int = Field(description="moves in the game's log so far")
    seats: list[str]
    bot_policy: str | None
    auto_deal: bool
    seat: int | None = Field(description="the seat whose view this is; null: public")
    partnership: int | None
    variant: str
    hand_number: int = Field(description=HAND_NUMBER)
    dealer: int
    phase: str
    to_move: int | None
    current: int
    hand_over: bool
    game_over: bool
    winner: int | None
    scores: list[int]
    target_score: int | None = Field(description="Classic: the cumulative score that ends the "
                                                 "game; null in Hand and Foot (see rounds)")
    rounds: int | None = Field(None, description="Hand and Foot: the rounds the game lasts "
                                                 "(hand_number + 1 of them is being played); "
                                                 "null in Classic")
    hand: list[str] | None = Field(description="the seat's own cards; null in the public view")
    players: list[Player]
    melds: list[dict[str, Meld]] = Field(description="per partnership: rank -> meld")
    opened: list[bool]
    opening_minimum: list[int]
    pile: Pile
    stock_size: int
    turn: TurnInfo
    legal_actions: list[LegalAction] = Field(description="when the seat is on turn")
    moves: list[Move] = Field(description="this hand's moves")
    score_sheets: list[dict[str, Any]] | None
    went_out: int | None
    history: list[dict[str, Any]] = Field(description="finished hands' score sheets")
    sheet_rows: list[str] = Field(description="the score sheet's rows in counting order")
    revealed: Revealed | None = Field(description="once the hand is over: every hand (and "
                                                  "foot) left, as laid down for counting")
    hand_and_foot: HandAndFootView | None = Field(
        None, description="Hand and Foot only: feet, books, wild melds; null in Classic")
    text: str | None = Field(None, description="the seat's view as text; null in the public "
                                               "view")
    drawn: list[str] | None = Field(
        None, description="the cards the seat drew from the stock on its turn now under way "
                          "('red 3' for each red 3 laid out); null when it is not the seat's "
                          "turn or it has not drawn from the stock")


class GameCreated(BaseModel):
    game_id: str
    seats: list[str]
    bot_policy: str | None
    auto_deal: bool
    tokens: list[str | None] = Field(description="per seat: the secret bearer token of a "
                                                 "human seat, null for a bot; shown only here")
    moves: list[Move]
    view: View


class ActionResult(BaseModel):
    moves: list[Move] = Field(description="the request's moves: the human's first, then the bots'")
    view: View
    drawn: list[str] | None = Field(None, description="after 'draw from stock': the cards the "
                                                      "seat drew ('red 3' for each red 3 laid "
                                                      "out); null otherwise")


class Revealed(BaseModel):
    hands: list[list[str]] = Field(description="per seat: the cards left in the hand")
    feet: list[list[str]] | None = Field(description="Hand and Foot: per seat, the foot if "
                                                     "not picked up; null in Classic")


class Replay(BaseModel):
    """A game replayed from its deal as one seat saw it; also the page's game log file."""

    format: str = Field(description="'canasta_env.replay'")
    version: int
    game_id: str
    variant: str
    seats: list[str]
    seat: int | None = Field(description="whose views the frames are; null: public")
    moves: list[LoggedMove] = Field(description="the whole move log")
    frames: list[dict[str, Any]] = Field(
        description="frame i: the seat's view after i moves (as GET /games/{id}, without "
                    "'moves' and 'text'), with 'step', 'last_move' and the cards 'drawn' by "
                    "the seat's own draw; a last frame for a hand dealt after the last move")


class MovesPage(BaseModel):
    game_id: str
    decisions: int
    moves: list[LoggedMove]


class MoveResult(BaseModel):
    action: int
    description: str
    policy: str


class TurnResult(BaseModel):
    position: dict[str, Any]
    moves: list[Move]
    policy: str


class Deleted(BaseModel):
    deleted: str


class LevelInfo(BaseModel):
    level: str = Field(description="the level's name, a policy name (e.g. 'hard')")
    policy: str | None = Field(description="the policy the level plays in this variant, "
                                           "null when the variant has no such level")
    description: str


class Index(BaseModel):
    service: str
    docs: str
    openapi: str
    default_policy: str
    policies: list[str]
    levels: dict[str, list[LevelInfo]] = Field(
        description="the difficulty levels per variant, weakest first (policy names; "
                    "policy null: the level is missing for that variant)")
    games: int
    table: str = Field(description="the card table page (HTML, for a browser)")
    static: str = Field(description="the page's static files")
