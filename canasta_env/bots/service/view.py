"""The seat view: what one seat (or anyone, for the public view) may see of a game."""

from __future__ import annotations

from typing import Any

from canasta_env.engine import SHEET_ROWS, Game, to_position
from canasta_env.public import public_pile
from canasta_env.render import render_text

from ..bot import move_record
from ..table import with_words


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


def seat_view(game: Game, seat: int | None, position: dict | None = None) -> dict:
    """What ``seat`` (0..3) may see of ``game``; ``seat=None`` gives the public view.

    Built from the JSON position and :meth:`Game.legal_actions`: the seat's own hand,
    both partnerships' melds, each player's hand size, red 3s and the cards they are
    known to hold from pile pickups, the discard pile and a pile set aside for an opening
    (public: every card in them was seen face up), stock size, scores, opening minimums,
    phase, who is to move, this hand's moves, finished hands' score sheets, the legal
    actions with descriptions when ``seat`` is on turn, and in Hand and Foot who plays
    from the foot, each foot's size, the books and the wild melds. Never another seat's
    hidden cards (nor any foot's), never the stock order. ``position``: ``to_position(game)`` when the caller
    has it already.
    """
    pos = to_position(game) if position is None else position
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
        # Hand and Foot ends after its rounds: its target_score is not used
        "target_score": None if opts["rounds"] else opts["target_score"],
        "rounds": opts["rounds"] or None,
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
        "moves": [with_words(move_record(e["seat"], e["action"], game))
                  for e in pos["log"] if "action" in e],
        "score_sheets": pos["sheets"],
        "sheet_rows": list(SHEET_ROWS),
        # once a hand is over every hand is laid down to be counted (and, in Hand and
        # Foot, every foot not picked up): public from then on
        "revealed": None if not game.hand_over else {
            "hands": pos["hands"],
            "feet": [list(f) for f in pos["feet"]] if opts["variant"] != "classic"
            and "feet" in pos else None},
        "went_out": pos["went_out"],
        "history": pos["history"],
        # Hand and Foot: who plays from the foot, the size of each foot still face down
        # (its cards are nobody's to see), closed books and the open wild meld
        "hand_and_foot": None if "feet" not in pos or opts["variant"] == "classic" else {
            "in_foot": pos["in_foot"], "foot_sizes": [len(f) for f in pos["feet"]],
            "rounds": opts["rounds"],
            "books": pos["books"], "wild_melds": pos["wild_melds"]},
    }
    if seat is not None:
        if to_move == seat:
            view["legal_actions"] = [{"action": a, "description": game.table.describe(a)}
                                     for a in game.legal_actions()]
        view["text"] = render_text(game, seat)
    return view



__all__ = ["seat_view"]
