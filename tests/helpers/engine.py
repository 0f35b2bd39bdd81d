"""Shared helpers for the engine tests: build positions from compact descriptions,
count cards, play random legal actions."""

from __future__ import annotations

import random

from canasta_env.engine import actions as A
from canasta_env.engine import game as G
from canasta_env.engine.cards import (
    CLASS_NAMES,
    JOKER,
    NAME_TO_CLASS,
    NUM_CLASSES,
    RED_THREE,
    TWO,
    deck_counts,
)

PACK = deck_counts(2, 4)


def cards(text: str) -> list[str]:
    """'K K Q Joker 2 b3 r3' -> list of card names ('b3' / 'r3' abbreviate the threes)."""
    out = []
    for tok in text.split():
        if tok == "b3":
            out.append("black 3")
        elif tok == "r3":
            out.append("red 3")
        elif tok in NAME_TO_CLASS:
            out.append(tok)
        else:
            raise ValueError(f"unknown card token {tok!r}")
    return out


def meld(naturals: int, jokers: int = 0, twos: int = 0) -> dict:
    return {"naturals": naturals, "jokers": jokers, "twos": twos}


def build(hands=("", "", "", ""), melds=({}, {}), pile: str = "", stock_top: str = "",
          *, current: int = 0, phase: str = "DRAW", dealer: int | None = None,
          scores=(0, 0), opened=None, minimum=None, red_threes=(0, 0, 0, 0),
          pile_frozen: bool | None = None, turn: dict | None = None, exact_stock: bool = False,
          seat_melded=None, options: dict | None = None, pending: str = "") -> G.Game:
    """A :class:`Game` from a compact description (validated by ``from_position``).

    ``hands``: four strings of card tokens (see :func:`cards`); ``melds``: per
    partnership, rank name -> :func:`meld`; ``pile``: bottom to top; ``stock_top``: the
    next stock cards in the order they will be drawn. The rest of the 108-card pack
    goes into the stock below ``stock_top``; with ``exact_stock`` the stock is exactly
    ``stock_top`` and the rest goes to the bottom of the discard pile instead (it must
    then hold no wild card and no red 3, so the pile's frozen state stays honest).
    """
    pos = G.to_position(G.Game(seed=12345, dealer=0))
    if options:
        pos["options"].update(options)
    pos["hands"] = [cards(h) for h in hands]
    pos["known"] = [[], [], [], []]
    pos["melds"] = [dict(m) for m in melds]
    pos["red_threes"] = list(red_threes)
    pos["current"] = current
    pos["dealer"] = (current + 3) % 4 if dealer is None else dealer
    pos["phase"] = phase
    pos["scores"] = list(scores)
    opts = G.RulesOptions.from_dict(pos["options"])
    pos["minimum"] = list(minimum) if minimum is not None else [
        opts.opening_minimum(scores[0]), opts.opening_minimum(scores[1])]
    pos["opened"] = list(opened) if opened is not None else [bool(melds[0]), bool(melds[1])]
    pos["seat_melded"] = list(seat_melded) if seat_melded is not None else [
        bool(melds[s % 2]) for s in range(4)]
    t = {"drew_stock": False, "turn_points": 0, "laid": False, "added_old": False,
         "new_ranks": [], "pending": cards(pending), "asked": 0, "must_out": False,
         "no_discard": False}
    if turn:
        t.update(turn)
    pos["turn"] = t
    pos["log"] = []
    used = [0] * NUM_CLASSES
    for n in sum(pos["hands"], []) + cards(pile) + cards(stock_top) + t["pending"]:
        used[NAME_TO_CLASS[n]] += 1
    used[NAME_TO_CLASS["red 3"]] += sum(red_threes)
    for m in pos["melds"]:
        for name, d in m.items():
            used[NAME_TO_CLASS[name]] += d["naturals"]
            used[NAME_TO_CLASS["Joker"]] += d["jokers"]
            used[NAME_TO_CLASS["2"]] += d["twos"]
    rest = []
    for c in range(NUM_CLASSES):
        left = PACK[c] - used[c]
        if left < 0:
            raise ValueError(f"description uses {-left} too many {CLASS_NAMES[c]!r}")
        rest.extend([CLASS_NAMES[c]] * left)
    top = list(reversed(cards(stock_top)))
    if exact_stock:
        bad = {n for n in rest if n in ("Joker", "2", "red 3")}
        if bad:
            raise ValueError(f"surplus {sorted(bad)} cannot be parked under the pile")
        pos["stock"] = top
        pos["pile"] = rest + cards(pile)
    else:
        pos["stock"] = rest + top
        pos["pile"] = cards(pile)
    # frozen by default exactly when the pile holds a wild card or a red 3 (reachable)
    pos["pile_frozen"] = any(n in ("Joker", "2", "red 3") for n in pos["pile"]) \
        if pile_frozen is None else pile_frozen
    return G.from_position(pos)


# All 4 jokers and 8 twos sit in melds so the rest of the pack (naturals and black 3s)
# can be parked under the discard pile: partnership A has two mixed canastas (K, 10),
# partnership B two (A, Q).
MA = {"K": meld(4, 0, 3), "10": meld(4, 0, 3)}
MB = {"A": meld(4, 2, 1), "Q": meld(4, 2, 1)}


def exhausted(hands, pile, stock="", red_threes=(1, 1, 1, 1), **kw) -> G.Game:
    """A position with the stock exhausted (or holding exactly ``stock``), partnership A
    holding melds :data:`MA`, B :data:`MB`, the rest of the pack under ``pile``."""
    return build(hands=hands, melds=(MA, MB), pile=pile, stock_top=stock, exact_stock=True,
                 red_threes=red_threes, **kw)


def total_cards(g: G.Game) -> list[int]:
    """Count vector of every card in the game (hands, stock, pile, pending pile, red 3s,
    melds)."""
    tot = [a + b + c + d for a, b, c, d in zip(*g.hands)]
    for c in g.stock:
        tot[c] += 1
    for c in g.pile:
        tot[c] += 1
    for c in g.pending:
        tot[c] += 1
    tot[RED_THREE] += sum(g.red3)
    for t in (0, 1):
        tot = [x + n for x, n in zip(tot, g.nat[t])]
        tot[JOKER] += sum(g.jok[t])
        tot[TWO] += sum(g.two[t])
    return tot


def play(g: G.Game, *descriptions: str) -> None:
    """Apply actions given by their descriptions, asserting each is legal first."""
    for d in descriptions:
        a = A.parse(d)
        assert a in g.legal_actions(), (d, [A.describe(x) for x in g.legal_actions()])
        g.apply(a)


def legal_names(g: G.Game) -> list[str]:
    return [A.describe(a) for a in g.legal_actions()]


def random_hand(g: G.Game, rng: random.Random, check=None) -> int:
    """Play random legal actions until the hand ends; ``check(g)`` after every step.
    Returns the number of decisions."""
    n = 0
    while not g.hand_over:
        legal = g.legal_actions()
        g.apply(rng.choice(legal))
        n += 1
        if check is not None:
            check(g)
    return n
