"""The request and response bodies of the HTTP API (pydantic models): the schema at
``/openapi.json`` is generated from them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from .limits import MAX_SCORE


def _seat_field(default: Any = ...):
    return Field(default, ge=0, le=3, description="seat 0..3 (partners 0+2 and 1+3)")


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
        None, description="'heuristic', 'random', 'reference', 'search' or the server's --policy "
                          "(default)")
    auto_deal: bool = Field(False, description="deal the next hand as soon as one ends")
    rules: dict[str, Any] | None = Field(
        None, description="rules options changed from the preset, e.g. "
                          f"{{'black_three_freezes': true}}; target_score <= {MAX_SCORE}")
    starting_scores: list[StrictInt] | None = Field(
        None, description="cumulative scores of partnerships 0 and 1 at the start")


class Action(BaseModel):
    """Body of ``POST /games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    seat: StrictInt | None = _seat_field(None)
    action: StrictInt | StrictStr = Field(
        ..., description="an action id (or its ASCII digits), or its description (e.g. "
                         "'draw from stock')")


class PositionRequest(BaseModel):
    """Body of the stateless ``POST /move`` and ``POST /turn``."""

    model_config = ConfigDict(extra="forbid")
    position: dict[str, Any] = Field(..., description="a canasta_env position (JSON)")
    seat: StrictInt = _seat_field()
    policy: StrictStr | None = Field(None, description="bot policy (default: the server's)")


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
    target_score: int
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


class Index(BaseModel):
    service: str
    docs: str
    openapi: str
    default_policy: str
    policies: list[str]
    games: int
    table: str = Field(description="the card table page (HTML, for a browser)")
    static: str = Field(description="the page's static files")
