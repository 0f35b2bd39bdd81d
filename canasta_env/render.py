"""Text rendering of a position from one seat's point of view (reads state only)."""

from __future__ import annotations

from .engine.cards import CLASS_NAMES, JOKER, NUM_CLASSES, counts_to_names
from .engine.game import Game, Phase
from .public import public_pile

_SEAT_NAMES = ("me", "left", "partner", "right")


def _count(n: int, word: str) -> str:
    """``1 card``, ``2 cards``, ``0 red 3s``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _melds(game: Game, team: int) -> str:
    parts = []
    size = game.options.canasta_size
    for r in range(NUM_CLASSES):
        n = game.nat[team][r]
        if not n:
            continue
        j, t = game.jok[team][r], game.two[team][r]
        tag = ""
        if n + j + t >= size:
            tag = "*natural canasta*" if j + t == 0 else "*mixed canasta*"
        wild = "".join(["+Jk"] * j + ["+2"] * t)
        parts.append(f"{CLASS_NAMES[r]}x{n}{wild}{tag}")
    wj, wt = game.wild_meld[team]
    if wj + wt:
        parts.append("wild:" + "".join(["+Jk"] * wj + ["+2"] * wt))
    return "  ".join(parts) or "(none)"


def _books(game: Game, team: int) -> str:
    parts = []
    for r, _, j, t in game.books[team]:
        if r == JOKER:
            parts.append(f"wild book ({j} Jk, {t} 2)")
        else:
            kind = "dirty" if j + t else "clean"
            parts.append(f"{CLASS_NAMES[r]} {kind}")
    return ", ".join(parts) or "(none)"


def render_text(game: Game, seat: int) -> str:
    """A readable table for ``seat``: own hand, both partnerships' melds, red 3s, the
    pile (top, size, frozen / stop, its cards bottom to top, and the cards set aside
    while an opening by pile take is completed), hand sizes, scores, opening minimums
    and the phase. Never shows another seat's hidden cards; the pile's cards are public
    (docs/RULES.md §2.10, §7)."""
    us, them = seat & 1, (seat + 1) & 1
    foot = game.options.foot_size > 0
    title = (f"Hand and Foot round {game.hand_number + 1} of {game.options.rounds}" if foot
             and game.options.rounds else f"Canasta hand {game.hand_number + 1}")
    lines = [f"{title}  phase {game.phase.name}  seat {seat} (partnership {'AB'[us]})"]
    lines.append(f"Scores: us {game.scores[us]}  them {game.scores[them]}   "
                 f"opening minimum: us {game.minimum[us]}{' (opened)' if game.opened[us] else ''}"
                 f"  them {game.minimum[them]}{' (opened)' if game.opened[them] else ''}")
    lines.append("Our melds:   " + _melds(game, us))
    lines.append("Their melds: " + _melds(game, them))
    if game.books[0] or game.books[1] or game.options.max_meld_size:
        lines.append("Our books:   " + _books(game, us))
        lines.append("Their books: " + _books(game, them))
    sizes = []
    for k in range(4):
        s = (seat + k) % 4
        known = counts_to_names(game.known[s]) if k else []
        extra = f" known {' '.join(known)}" if known else ""
        where = ""
        if foot:
            where = " (in foot)" if game.in_foot[s] else f" + foot of {sum(game.feet[s])}"
        sizes.append(f"{_SEAT_NAMES[k]}: {_count(sum(game.hands[s]), 'card')}{where}, "
                     f"{_count(game.red3[s], 'red 3')}{extra}")
    lines.append("Players: " + " | ".join(sizes))
    piles = public_pile(game)
    if game.pile:
        top = CLASS_NAMES[game.pile[-1]]
        flags = []
        if game.pile_frozen:
            flags.append("frozen")
        elif game.pile_frozen_for(us):
            flags.append("frozen for us")
        if game.pile[-1] == 2:
            flags.append("stop card")
        n = len(game.pile)
        lines.append(f"Discard pile: {_count(n, 'card')}, top {top}"
                     + (f" ({', '.join(flags)})" if flags else "")
                     + f"; cards, bottom to top: {' '.join(piles.names()['pile'])}")
    else:
        lines.append("Discard pile: empty")
    lines.append(f"Stock: {_count(len(game.stock), 'card')}")
    if game.phase == Phase.PICKUP:
        aside = piles.names()["set_aside"]
        listed = f": {' '.join(aside)}" if aside else ""
        lines.append(f"Pile set aside for the opening: {_count(len(aside), 'card')}{listed}; "
                     f"opening points so far {game.turn_points}")
    lines.append("My hand: " + " ".join(counts_to_names(game.hands[seat])))
    if game.to_move is not None:
        lines.append(f"On turn: {_SEAT_NAMES[(game.to_move - seat) % 4]}")
    if game.sheets is not None:
        for t, name in ((us, "us"), (them, "them")):
            s = game.sheets[t]
            lines.append(f"Score sheet {name}: table {s.table}, canastas {s.canasta_bonus}, "
                         f"red 3s {s.red_threes}, going out {s.going_out}, "
                         f"hands {s.hand_penalty} = {s.hand_score}; total {s.total}")
    return "\n".join(lines)
