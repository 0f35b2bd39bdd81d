"""Exact turn feasibility for meld rules beyond Classic's (Hand and Foot).

Classic's greedy formulas (:mod:`.feasibility`) rely on melds without a maximum size and a
flat wild-card cap. With closed books (``max_meld_size``), the half-naturals wild limit,
wild-card melds and book requirements for going out they no longer hold, so these
functions answer the same questions by exact search over count vectors:

- :func:`max_points`: the most card points a hand can lay this turn while keeping at
  least ``keep`` cards (the opening minimum is reachable iff this is >= the minimum);
- :func:`can_meld_all`: can every card be melded so the partnership ends with the books
  it needs to go out.

The search is per rank: the naturals and wild cards a rank's melds will hold are
decomposed into closed books plus at most one open meld (one open meld per rank; a new
meld of a rank can be started only once the previous one closed), memoized on the
counts; a small dynamic programme over the ranks shares the wild cards out, and what is
left goes to the wild-card meld. Jokers and 2s are interchangeable for legality, so only
their total matters (points put jokers first).

Inputs are count vectors of length 15 indexed by card class (see :mod:`.cards`):
``hand``; ``nat`` / ``wild``: naturals / wild cards of the partnership's *open* melds per
rank (closed books are not included: nothing joins them); ``wm``: cards in the open wild
meld. Rules source: ``docs/RULES.md`` §3.4 (pagat.com Hand and Foot).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from .cards import BLACK_THREE, CARD_POINTS, JOKER, MELD_RANKS, TWO

_V = CARD_POINTS


class MeldRules(NamedTuple):
    """The meld rules the search needs, taken from :class:`~.options.RulesOptions`."""

    max_size: int  # 0: no maximum (no closing)
    cap: int  # max_wilds_per_meld
    half: bool  # wilds at most half the naturals
    canasta: int  # cards that make a book / canasta
    wild_melds: bool
    b3_max: int

    @staticmethod
    def of(o) -> MeldRules:
        return MeldRules(o.max_meld_size, o.max_wilds_per_meld, o.wilds_at_most_half_naturals,
                         o.canasta_size, o.wild_melds, o.black_three_meld_max)


def wild_limit(n: int, rules: MeldRules) -> int:
    """Most wild cards a meld with ``n`` naturals may hold."""
    return min(rules.cap, n // 2) if rules.half else rules.cap


def _meld_types(rules: MeldRules) -> tuple[tuple, tuple]:
    """(book types, open types) as (naturals, wilds) pairs."""
    m = rules.max_size
    books = tuple((n, m - n) for n in range(2, m + 1) if m - n <= wild_limit(n, rules))
    opens = tuple((n, w) for n in range(2, m) for w in range(0, m - n)
                  if 3 <= n + w < m and w <= wild_limit(n, rules))
    return books, opens


@lru_cache(maxsize=None)
def _books_only(n: int, w: int, rules: MeldRules) -> frozenset:
    """(clean, dirty) book counts of the ways to split ``n`` naturals and ``w`` wilds into
    closed books only."""
    if n == 0 and w == 0:
        return frozenset({(0, 0)})
    out = set()
    books, _ = _meld_types(rules)
    for bn, bw in books:
        if bn <= n and bw <= w:
            for c, d in _books_only(n - bn, w - bw, rules):
                out.add((c + (bw == 0), d + (bw > 0)))
    return frozenset(out)


def _open_counts(n: int, w: int, rules: MeldRules) -> tuple[int, int]:
    """(clean, dirty) canasta count of an open meld (one of ``canasta`` cards or more)."""
    if n + w >= rules.canasta:
        return (0, 1) if w else (1, 0)
    return 0, 0


@lru_cache(maxsize=None)
def _free(n: int, w: int, rules: MeldRules) -> frozenset:
    """Splits of ``n`` naturals and ``w`` wilds into new melds of one rank: closed books
    and at most one open meld; (clean, dirty) books made."""
    if rules.max_size == 0:  # one meld per rank, no maximum
        if n == 0 and w == 0:
            return frozenset({(0, 0)})
        if n >= 2 and n + w >= 3 and w <= wild_limit(n, rules):
            return frozenset({_open_counts(n, w, rules)})
        return frozenset()
    out = set(_books_only(n, w, rules))
    _, opens = _meld_types(rules)
    for on, ow in opens:
        if on <= n and ow <= w:
            oc, od = _open_counts(on, ow, rules)
            for c, d in _books_only(n - on, w - ow, rules):
                out.add((c + oc, d + od))
    return frozenset(out)


@lru_cache(maxsize=None)
def rank_outcomes(n: int, w: int, n0: int, w0: int, rules: MeldRules) -> frozenset:
    """Ways the melds of one rank can end this turn holding ``n`` naturals and ``w``
    wilds in all (those on the table included), when the open meld of that rank holds
    ``n0`` / ``w0`` now (``n0 == 0``: none): a set of (clean, dirty) books made this turn
    (empty set: impossible)."""
    if n0 == 0:
        return _free(n, w, rules)
    if n < n0 or w < w0:
        return frozenset()
    if rules.max_size == 0:
        return _free(n, w, rules)
    out = set()
    books, _ = _meld_types(rules)
    for bn, bw in books:  # the open meld grows into a book, then new melds follow
        if n0 <= bn <= n and w0 <= bw <= w:
            for c, d in _free(n - bn, w - bw, rules):
                out.add((c + (bw == 0), d + (bw > 0)))
    if n + w < rules.max_size and w <= wild_limit(n, rules):  # it stays open
        out.add(_open_counts(n, w, rules))
    return frozenset(out)


def wild_meld_books(s0: int, x: int, rules: MeldRules) -> int:
    """Wild books made by adding ``x`` wild cards to the wild meld holding ``s0`` (0:
    none); -1 when impossible."""
    if x == 0:
        return 0
    if not rules.wild_melds:
        return -1
    t = s0 + x
    m = rules.max_size
    if m == 0:
        return 0 if t >= 3 else -1
    if s0 and t < m:
        return 0
    rem = t % m
    if rem == 0 or rem >= 3:
        return t // m
    return -1


def _wild_values(n_wild: int, jokers: int) -> int:
    """Points of ``n_wild`` wild cards laid, jokers first."""
    pj = min(n_wild, jokers)
    return pj * _V[JOKER] + (n_wild - pj) * _V[TWO]


def max_points(hand, nat, wild, wm: int, rules: MeldRules, keep: int) -> int:
    """Maximum card points ``hand`` can lay this turn (black 3s excluded) while keeping
    at least ``keep`` cards; -1 if no play keeps that many (fewer cards than ``keep``)."""
    size = sum(hand)
    if size < keep:
        return -1
    nwild = hand[JOKER] + hand[TWO]
    # state (wilds laid on ranks, naturals laid) -> best natural points
    states = {(0, 0): 0}
    for r in MELD_RANKS:
        h, n0, w0 = hand[r], nat[r], wild[r]
        if not h and not n0:
            continue
        opts = []
        for a in range(h + 1):
            for b in range(nwild + 1):
                if (a or b) and rank_outcomes(n0 + a, w0 + b, n0, w0, rules):
                    opts.append((a, b, a * _V[r]))
        if not opts:
            continue
        new = dict(states)
        for (u, lay), pts in states.items():
            for a, b, p in opts:
                if u + b > nwild:
                    continue
                k = (u + b, lay + a)
                if new.get(k, -1) < pts + p:
                    new[k] = pts + p
        states = new
    best = -1
    for (u, lay), pts in states.items():
        for x in range(nwild - u + 1):
            if wild_meld_books(wm, x, rules) < 0:
                continue
            placed = u + x
            if size - lay - placed < keep:
                break
            v = pts + _wild_values(placed, hand[JOKER])
            if v > best:
                best = v
    return best


def can_meld_all(hand, nat, wild, wm: int, rules: MeldRules, have_clean: int,
                 have_dirty: int, need_clean: int, need_dirty: int, need_books: int,
                 need_pts: int, black_three_melds: bool = True) -> bool:
    """Can every card of ``hand`` be melded this turn so that the partnership ends with
    at least ``need_clean`` clean and ``need_dirty`` dirty books and ``need_books`` books
    in all (it has ``have_clean`` / ``have_dirty`` closed ones; a wild book counts as
    clean), the cards laid totalling at least ``need_pts`` points?"""
    b3 = hand[BLACK_THREE]
    if b3 and (not black_three_melds or not 3 <= b3 <= rules.b3_max):
        return False
    pts = sum(n * v for n, v in zip(hand, _V))
    if pts < need_pts:
        return False
    nwild = hand[JOKER] + hand[TWO]
    cc = max(0, need_clean - have_clean)
    cd = max(0, need_dirty - have_dirty)
    ct = max(0, need_books - have_clean - have_dirty)

    states = {(0, 0, 0, 0)}  # (wilds used, clean, dirty, total) capped
    for r in MELD_RANKS:
        h, n0, w0 = hand[r], nat[r], wild[r]
        if not h and not n0:
            continue
        opts = []
        for b in range(nwild + 1):
            for c, d in rank_outcomes(n0 + h, w0 + b, n0, w0, rules):
                opts.append((b, c, d))
        if not opts:
            return False
        new = set()
        for u, c, d, t in states:
            for b, oc, od in opts:
                if u + b <= nwild:
                    new.add((u + b, min(c + oc, cc), min(d + od, cd), min(t + oc + od, ct)))
        states = new
        if not states:
            return False
    for u, c, d, t in states:
        wb = wild_meld_books(wm, nwild - u, rules)
        if wb < 0:
            continue
        if min(c + wb, cc) >= cc and d >= cd and min(t + wb, ct) >= ct:
            return True
    return False
