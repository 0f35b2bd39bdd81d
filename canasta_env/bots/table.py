"""What the browser table (``/`` of the service) needs beyond the seat view: moves in plain
words, the cards a seat drew, and a finished game replayed move by move as one seat saw it.

Everything here is built from what the service already stores (the game's seed, options
and move log) and shown only through :func:`canasta_env.bots.service.seat_view`, so a
replay frame never holds more than that seat could see at that moment.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from canasta_env.engine import Game, RulesOptions, to_position

#: the format name and version of a replay (``GET /games/{id}/replay``, a saved log file)
REPLAY_FORMAT = "canasta_env.replay"
REPLAY_VERSION = 1

_NUMBER = {"1": "one", "2": "two", "3": "three", "4": "four"}


def _plural(rank: str) -> str:
    return f"{rank}s" if rank not in ("Joker",) else "Jokers"


def _a(card: str) -> str:
    return ("an " if card[0] in "8A" else "a ") + card


def plain_words(description: str) -> str:
    """A move's description (``"meld 7: 2 naturals + Joker"``) as a phrase in plain words
    (``"melds 7s: two natural 7s and a Joker"``), to follow a player's name."""
    d = description.strip()
    m = re.fullmatch(r"meld (\w+): (\d) naturals(?: \+ (Joker|2))?", d)
    if m:
        rank, n, wild = m.groups()
        words = f"melds {_plural(rank)}: {_NUMBER[n]} natural {_plural(rank)}"
        return words + (f" and {_a(wild)}" if wild else "")
    m = re.fullmatch(r"add (natural|Joker|2) to (\w+) meld", d)
    if m:
        card, rank = m.groups()
        card = rank if card == "natural" else card
        return f"adds {_a(card)} to the {_plural(rank)}"
    m = re.fullmatch(r"discard (.+)", d)
    if m:
        return f"discards {_a(m.group(1))}"
    m = re.fullmatch(r"meld wild cards: (.+)", d)
    if m:
        parts = [p.strip() for p in m.group(1).split("+")]
        return "melds wild cards: " + " and ".join(
            p.replace("1 Joker", "a Joker").replace("1 2", "a 2") for p in parts)
    m = re.fullmatch(r"add (Joker|2) to wild meld", d)
    if m:
        return f"adds {_a(m.group(1))} to the wild cards"
    fixed = {
        "draw from stock": "draws from the stock",
        "take pile with a natural pair": "takes the discard pile with a natural pair",
        "take pile with a natural + Joker": "takes the discard pile with a natural and a Joker",
        "take pile with a natural + 2": "takes the discard pile with a natural and a 2",
        "take pile with a wild pair": "takes the discard pile with a pair of wild cards",
        "take pile onto our meld": "takes the discard pile, its top card onto a meld",
        "decline the pile (end the hand)": "declines the pile: the hand ends",
        "meld black 3s": "melds black 3s",
        "ask partner: may I go out?": "asks the partner: may I go out?",
        "answer yes": "answers yes: go out",
        "answer no": "answers no: do not go out",
        "finish turn without discard": "ends the turn without a discard",
    }
    return fixed.get(d, d)


def with_words(move: dict) -> dict:
    """``move`` (a dict with ``description``) with its ``words`` added."""
    return {**move, "words": plain_words(move["description"])}


def drawn_cards(before: dict, after: dict, seat: int) -> list[str]:
    """The cards ``seat`` drew between two positions: new cards in the hand, red 3s laid
    out (``"red 3"``), and the foot picked up in Hand and Foot, in hand order."""
    gained = Counter(after["hands"][seat]) - Counter(before["hands"][seat])
    out = []
    for card in after["hands"][seat]:
        if gained[card] > 0:
            gained[card] -= 1
            out.append(card)
    return ["red 3"] * max(0, after["red_threes"][seat] - before["red_threes"][seat]) + out


def turn_drawn(position: dict, seat: int | None) -> list[str] | None:
    """The cards ``seat`` drew from the stock on its turn now under way (as
    :func:`drawn_cards`: red 3s laid out first, then the cards in hand order), found by
    replaying the current hand from its deal; ``None`` when ``seat`` is not on turn or
    has not drawn from the stock this turn (or the hand does not replay to
    ``position``)."""
    if seat is None or position["phase"] == "HAND_OVER" or position["current"] != seat \
            or not position["turn"]["drew_stock"]:
        return None
    from canasta_env.engine.deal import deal

    options = RulesOptions.from_dict(position["options"])
    hand = position["hand_number"]
    game = Game(options, seed=position["seed"], scores=tuple(position["scores"]),
                dealer=position["dealer"], first_round=hand if options.rounds else 0)
    if not options.rounds and hand:
        game.hand_number = hand  # Classic: the deal of hand ``hand`` by the same dealer
        deal(game)
    drawn: list[str] | None = None
    try:
        for entry in position["log"]:
            if "action" not in entry:
                continue
            mover = game.to_move
            if mover != entry["seat"]:
                return None
            if mover == seat and entry["action"] == 0:
                before = to_position(game)
                game.apply(0)
                drawn = drawn_cards(before, to_position(game), seat)
            else:
                if mover != seat:
                    drawn = None  # an earlier turn's draw
                game.apply(entry["action"])
    except (ValueError, KeyError):
        return None
    if to_position(game)["hands"] != position["hands"]:
        return None
    return drawn


def starting_scores(position: dict) -> tuple[int, int]:
    """The partnerships' scores when the game began (from the first finished hand's
    ``previous`` row, else the current scores)."""
    sheets = position["history"][0]["sheets"] if position["history"] else position["sheets"]
    if sheets:
        return sheets[0]["previous"], sheets[1]["previous"]
    return tuple(position["scores"])


def replay(position: dict, moves: list[dict], seat: int | None, view=None) -> list[dict]:
    """The frames of a game replayed from its deal: frame ``i`` is ``seat``'s view after
    ``i`` moves (``seat`` None: the public view), with ``step``, the ``last_move`` (with
    ``words``) and, when it was the seat's own draw, the cards ``drawn``. ``position``:
    the game's stored position (its seed, options and starting scores); ``moves``: its
    whole move log (``seq``, ``hand_number``, ``seat``, ``action``, ``description``).
    ``view``: the seat view function (``seat_view``).

    Raises:
        ValueError: the log does not replay to ``position`` (a game changed by hand).
    """
    game = Game(RulesOptions.from_dict(position["options"]), seed=position["seed"],
                scores=starting_scores(position))

    def frame(step: int, pos: dict, last: dict | None, drawn: list[str] | None) -> dict:
        v = view(game, seat, pos)
        v.pop("text", None)
        v["moves"] = []  # the replay's move list is the file's
        v.update(step=step, last_move=last, drawn=drawn)
        return v

    pos = to_position(game)
    frames = [frame(0, pos, None, None)]
    for i, m in enumerate(moves, 1):
        while game.hand_number < m["hand_number"] and game.hand_over and not game.game_over:
            game.next_hand()
        if game.to_move != m["seat"]:
            raise ValueError(f"move {i}: seat {m['seat']} is not on turn")
        game.apply(m["action"])
        new = to_position(game)
        drawn = drawn_cards(pos, new, seat) if seat == m["seat"] and m["action"] == 0 else None
        pos = new
        frames.append(frame(i, pos, with_words(m), drawn))
    if game.hand_number < position["hand_number"] and game.hand_over:
        game.next_hand()  # the next hand dealt, nobody moved yet
        pos = to_position(game)
        frames.append(frame(len(moves), pos, None, None))
    if pos["hands"] != position["hands"] or pos["scores"] != position["scores"]:
        raise ValueError("the move log does not replay to the stored game")
    return frames


def replay_document(game_id: str, seats: list[str], seat: int | None, position: dict,
                    moves: list[dict], view) -> dict[str, Any]:
    """The replay of a stored game as one JSON document (what ``GET /games/{id}/replay``
    returns and what the page saves and opens as a game log file)."""
    return {"format": REPLAY_FORMAT, "version": REPLAY_VERSION, "game_id": game_id,
            "variant": position["options"]["variant"], "seats": seats, "seat": seat,
            "moves": [with_words(m) for m in moves],
            "frames": replay(position, moves, seat, view)}


__all__ = ["plain_words", "with_words", "drawn_cards", "turn_drawn", "replay", "replay_document",
           "REPLAY_FORMAT", "REPLAY_VERSION"]
