"""Helpers for the Hand and Foot tests: build positions from compact descriptions, count
the 270 cards, play actions by their Hand and Foot descriptions."""

from __future__ import annotations

from canasta_env.engine import game as G
from canasta_env.engine import preset
from canasta_env.engine.actions import HAND_AND_FOOT as TABLE
from canasta_env.engine.cards import (
    CLASS_NAMES,
    JOKER,
    NAME_TO_CLASS,
    NUM_CLASSES,
    RED_THREE,
    TWO,
    deck_counts,
)
from tests.helpers.engine import cards, meld

HF = preset("hand_and_foot")
PACK = deck_counts(HF.decks, HF.jokers)

__all__ = ["HF", "PACK", "TABLE", "book", "build_hf", "cards", "legal_names", "meld", "play",
           "total_cards"]


def book(rank: str, naturals: int, jokers: int = 0, twos: int = 0) -> dict:
    return {"rank": rank, "naturals": naturals, "jokers": jokers, "twos": twos}


def build_hf(hands=("", "", "", ""), melds=({}, {}), pile: str = "", stock_top: str = "",
             *, feet=None, in_foot=(False, False, False, False), books=([], []),
             wild_melds=((0, 0), (0, 0)), current: int = 0, phase: str = "DRAW",
             round_no: int = 1, opened=None, red_threes=(0, 0, 0, 0), turn: dict | None = None,
             pending: str = "", pile_frozen: bool | None = None, options: dict | None = None,
             scores=(0, 0)) -> G.Game:
    """A Hand and Foot :class:`Game` (validated by ``from_position``).

    ``hands`` / ``feet``: four strings of card tokens (``feet`` default: 11 cards
    "4 5 6 7 8 9 10 J Q K A" for every seat not ``in_foot``); ``melds``: open melds
    per partnership (rank name -> :func:`meld`); ``books``: per partnership, lists of
    :func:`book`; ``wild_melds``: (jokers, twos) per partnership; ``pile`` bottom to
    top; ``stock_top``: the next stock cards in drawing order (the rest of the pack is
    below them); ``round_no``: 1..4 (sets the opening minimum).
    """
    opts = HF.with_changes(**options) if options else HF
    pos = G.to_position(G.Game(opts, seed=12345, dealer=0))
    if feet is None:
        feet = tuple("" if f else "4 5 6 7 8 9 10 J Q K A" for f in in_foot)
    pos["hands"] = [cards(h) for h in hands]
    pos["feet"] = [cards(f) for f in feet]
    pos["in_foot"] = list(in_foot)
    pos["known"] = [[], [], [], []]
    pos["melds"] = [dict(m) for m in melds]
    pos["books"] = [list(b) for b in books]
    pos["wild_melds"] = [{"jokers": j, "twos": t} for j, t in wild_melds]
    pos["red_threes"] = list(red_threes)
    # frozen by default exactly when the pile holds a wild card or a red 3 (reachable)
    pos["pile_frozen"] = any(n in ("Joker", "2", "red 3") for n in cards(pile)) \
        if pile_frozen is None else pile_frozen
    pos["current"] = current
    pos["dealer"] = (current + 3) % 4
    pos["phase"] = phase
    pos["hand_number"] = round_no - 1
    pos["scores"] = list(scores)
    m = opts.minimum_for(0, round_no - 1)
    pos["minimum"] = [m, m]
    if opened is None:
        opened = [bool(melds[t] or books[t] or sum(wild_melds[t])) for t in (0, 1)]
    pos["opened"] = list(opened)
    pos["seat_melded"] = [opened[s % 2] for s in range(4)]
    t = {"drew_stock": phase != "DRAW", "turn_points": 0, "laid": False, "added_old": False,
         "new_ranks": [], "pending": cards(pending), "asked": 0, "must_out": False,
         "no_discard": False}
    if turn:
        t.update(turn)
    pos["turn"] = t
    pos["log"] = []
    used = [0] * NUM_CLASSES
    for n in sum(pos["hands"] + pos["feet"], []) + cards(pile) + cards(stock_top) + t["pending"]:
        used[NAME_TO_CLASS[n]] += 1
    used[RED_THREE] += sum(red_threes)
    for mm in pos["melds"]:
        for name, d in mm.items():
            used[NAME_TO_CLASS[name]] += d["naturals"]
            used[JOKER] += d["jokers"]
            used[TWO] += d["twos"]
    for bl in pos["books"]:
        for b in bl:
            if b["rank"] != "wild":
                used[NAME_TO_CLASS[b["rank"]]] += b["naturals"]
            used[JOKER] += b["jokers"]
            used[TWO] += b["twos"]
    for j, w in wild_melds:
        used[JOKER] += j
        used[TWO] += w
    rest = []
    for c in range(NUM_CLASSES):
        left = PACK[c] - used[c]
        if left < 0:
            raise ValueError(f"description uses {-left} too many {CLASS_NAMES[c]!r}")
        rest.extend([CLASS_NAMES[c]] * left)
    pos["stock"] = rest + list(reversed(cards(stock_top)))
    pos["pile"] = cards(pile)
    return G.from_position(pos)


def total_cards(g: G.Game) -> list[int]:
    """Count vector of every card: hands, feet, stock, pile, pending pile, red 3s, open
    melds, wild melds, books."""
    tot = [0] * NUM_CLASSES
    for h in g.hands + g.feet:
        tot = [a + b for a, b in zip(tot, h)]
    for c in g.stock + g.pile + g.pending:
        tot[c] += 1
    tot[RED_THREE] += sum(g.red3)
    for t in (0, 1):
        tot = [x + n for x, n in zip(tot, g.nat[t])]
        tot[JOKER] += sum(g.jok[t]) + g.wild_meld[t][0]
        tot[TWO] += sum(g.two[t]) + g.wild_meld[t][1]
        for r, n, j, w in g.books[t]:
            tot[r] += n
            tot[JOKER] += j
            tot[TWO] += w
    return tot


def legal_names(g: G.Game) -> list[str]:
    return [TABLE.describe(a) for a in g.legal_actions()]


def play(g: G.Game, *descriptions: str) -> None:
    """Apply actions by their descriptions, asserting each is legal first."""
    for d in descriptions:
        a = TABLE.parse(d)
        assert a in g.legal_actions(), (d, legal_names(g))
        g.apply(a)
