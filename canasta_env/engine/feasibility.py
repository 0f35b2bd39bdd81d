"""Can the current turn still be completed legally?

The engine lists an action as legal only if, after it, some sequence of legal actions
finishes the turn: an opening under way can still reach its minimum, a pile taken for
the opening can still be collected, a player who must go out (partner said yes, or
black 3s were melded) still can, and a player who may not go out keeps two cards (one to
discard and one to hold). These functions answer that question exactly from count
vectors, without search, so the action mask never leads into a dead end.

Inputs are count vectors of length 15 indexed by card class (see :mod:`.cards`):
``hand`` is the player's hand, ``nat`` / ``wild`` are the partnership's meld contents
(naturals / wild cards per rank; a meld of rank r exists iff ``nat[r] > 0``).
Rules source: ``docs/RULES.md`` §2.8-§2.11 and §6 (pagat.com Classic Canasta).
"""

from __future__ import annotations

from .cards import BLACK_THREE, CARD_POINTS, JOKER, MELD_RANKS, TWO

_V = CARD_POINTS
_JV = CARD_POINTS[JOKER]
_TV = CARD_POINTS[TWO]


def allin_points(hand, nat, wild, cap: int) -> tuple[int, int]:
    """Greedy maximum of card points that ``hand`` can lay this turn onto existing melds
    and new melds (black 3s excluded), and the number of cards it then leaves in hand.

    Exact: every natural of a rank with a meld or with 3+ naturals is laid; pairs each
    need one wild card, and using a pair never lowers the total; wild cards fill the
    remaining capacity (``cap`` wilds per meld), jokers first.

    Returns:
        (points, cards left in hand).
    """
    pts = 0
    left = hand[BLACK_THREE]
    capacity = 0
    pairs: list[int] = []
    for r in MELD_RANKS:
        n = hand[r]
        if nat[r]:
            capacity += cap - wild[r]
            pts += n * _V[r]
        elif n >= 3:
            pts += n * _V[r]
            capacity += cap
        elif n == 2:
            pairs.append(2 * _V[r])
        elif n == 1:
            left += 1
    nj = hand[JOKER]
    nw = nj + hand[TWO]
    k = min(len(pairs), nw) if cap > 0 else 0
    if k:
        if k < len(pairs):
            pairs.sort(reverse=True)
        pts += sum(pairs[:k])
    left += 2 * (len(pairs) - k)
    placed = k + min(nw - k, capacity + k * (cap - 1))
    pj = min(nj, placed)
    pts += _JV * pj + _TV * (placed - pj)
    left += nw - placed
    return pts, left


def best_points(hand, nat, wild, cap: int, keep: int) -> int:
    """Maximum card points ``hand`` can lay this turn while keeping at least ``keep``
    cards in hand; -1 if the hand holds fewer than ``keep`` cards."""
    pts, left = allin_points(hand, nat, wild, cap)
    if left >= keep:
        return pts
    best = -1
    for c in range(len(hand)):
        if hand[c]:
            hand[c] -= 1
            b = best_points(hand, nat, wild, cap, keep - 1)
            hand[c] += 1
            best = max(best, b)
    return best


def _meld_all(rest, nat, wild, cap: int, size: int, have: int, needed: int, need_pts: int,
              black_three_melds: bool, black_three_max: int = 4) -> bool:
    """Can every card of ``rest`` be melded (no card left) so the partnership ends with
    at least ``needed`` canastas (it has ``have``) and the cards laid total at least
    ``need_pts`` points? Black 3s meld as one meld of 3 to ``black_three_max``."""
    b3 = rest[BLACK_THREE]
    if b3 and (b3 < 3 or b3 > black_three_max or not black_three_melds):
        return False
    pts = 5 * b3
    pairs = 0
    capacity = 0
    # per candidate rank: (cards it will hold before extra wilds, extra wild room)
    cand: list[tuple[int, int]] = []
    for r in MELD_RANKS:
        n = rest[r]
        if nat[r]:
            room = cap - wild[r]
            base = nat[r] + wild[r] + n
        elif n >= 3:
            room = cap
            base = n
        elif n == 2:
            if cap == 0:
                return False
            pairs += 1
            room = cap - 1
            base = 3
        elif n == 1:
            return False
        else:
            continue
        pts += n * _V[r]
        capacity += room
        if have < needed and not (nat[r] and nat[r] + wild[r] >= size):
            cand.append((base, room))  # melds that could become a new canasta
    nw = rest[JOKER] + rest[TWO]
    if pairs > nw or nw - pairs > capacity:
        return False
    pts += _JV * rest[JOKER] + _TV * rest[TWO]
    if pts < need_pts:
        return False
    if have >= needed:
        return True
    free = nw - pairs
    deficits = sorted(max(0, size - base) for base, room in cand if size - base <= room)
    made = have
    for d in deficits:
        if d > free:
            break
        free -= d
        made += 1
        if made >= needed:
            return True
    return made >= needed


def can_go_out(hand, nat, wild, cap: int, size: int, have: int, needed: int, need_pts: int,
               may_discard: bool = True, black_three_melds: bool = True,
               black_three_max: int = 4) -> bool:
    """Can the player meld all of ``hand`` (or all but one card, then discarded) so that
    the partnership has ``needed`` canastas and the cards laid reach ``need_pts``?
    ``black_three_max``: most black 3s in their one going-out meld (a pack of more than
    two decks holds more black 3s than that; one more can be the discard)."""
    # cards no meld can take (a lone natural of a rank we have not melded, one or two
    # black 3s): at most one of them, and then it is the discard
    stranded = 0
    last = -1
    b3 = hand[BLACK_THREE]
    if b3 and (b3 < 3 or not black_three_melds):
        stranded += b3
        last = BLACK_THREE
    for r in MELD_RANKS:
        if hand[r] == 1 and not nat[r]:
            stranded += 1
            last = r
    if stranded > (1 if may_discard else 0):
        return False
    if stranded == 1:
        hand[last] -= 1
        ok = _meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                       black_three_max)
        hand[last] += 1
        return ok
    if _meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                 black_three_max):
        return True
    if not may_discard:
        return False
    for c in range(len(hand)):
        if hand[c] and c != 3:
            hand[c] -= 1
            ok = _meld_all(hand, nat, wild, cap, size, have, needed, need_pts, black_three_melds,
                           black_three_max)
            hand[c] += 1
            if ok:
                return True
    return False
