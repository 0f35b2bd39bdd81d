"""Can the turn on the table still be completed? The check behind "no dead ends".

The engine lists an action as legal only if, after it, some sequence of legal actions
finishes the turn (``docs/RULES.md`` §6): an opening under way can still reach its
minimum (§2.8), a pile taken for the opening can still be collected (§2.10), a player who
must go out (partner said yes, §2.12, or black 3s were melded, §2.6) still can, and a
player who may not go out keeps two cards (§2.11). The partner's answer to "may I go
out?" is the partner's free choice (§2.12): asking is offered only while both answers
leave a way to finish, so when asking is required before going out
(``ask_partner_required``), a turn not yet answered "yes" is completable exactly when it
can be finished without going out. :func:`turn_feasible` answers that
for a hypothetical state of the current player's turn: with Classic's exact formulas of
:mod:`.feasibility`, or, under Hand and Foot's meld rules (closed books, the half-naturals
wild limit, wild-card melds, the foot; §3.4-§3.8), with the exact searches of
:mod:`.exact`. Both fall back to an exhaustive search over melds only in the rare
position where an opening by pile take needs (nearly) the whole hand.

Inputs are count vectors of length 15 indexed by card class (:mod:`.cards`): ``hand``;
``nat`` / ``wild``: naturals / wild cards of the partnership's open melds per rank;
``tp``: opening points laid this turn; ``pending``: in phase ``PICKUP``, the set-aside
pile (red 3s excluded); ``wm``: cards in the open wild-card meld (exact rules only).
"""

from __future__ import annotations

from . import actions as A
from .cards import BLACK_THREE, CARD_POINTS, JOKER, MELD_RANKS, NUM_CLASSES, RED_THREE, TWO
from .exact import can_meld_all, max_points
from .feasibility import best_points, can_go_out
from .state import ASKED_NO, ASKED_YES, NOT_ASKED, WILDS, State

_V = CARD_POINTS


def turn_feasible(s: State, hand, nat, wild, tp: int, laid: bool, pending: list[int] | None,
                  must_out: bool, asked: int, drew_stock: bool, wm: int | None = None) -> bool:
    """Can the current player's turn be completed from this (hypothetical) state?

    Args:
        hand, nat, wild: count vectors (see the module docstring); not modified.
        tp: opening points laid this turn (points).
        laid: whether any card was laid this turn.
        pending: the set-aside pile in phase ``PICKUP``, else ``None``.
        must_out: the player must go out this turn (black 3s melded).
        asked: :data:`~.state.NOT_ASKED`, :data:`~.state.ASKED_YES` or
            :data:`~.state.ASKED_NO`.
        drew_stock: the turn began with a stock draw (a concealed going out then needs
            no opening minimum, §2.13).
        wm: cards in the open wild meld (exact rules only; ``None``: as on the table).
    """
    if s.exact:
        return turn_feasible_exact(s, hand, nat, wild, tp, laid, pending, must_out, asked,
                                   drew_stock, wm)
    o = s.options
    team = s.current & 1
    cap = o.max_wilds_per_meld
    minimum = s.minimum[team]
    opened = s.opened[team] or (laid and tp >= minimum)
    need = 0 if opened else minimum - tp
    if pending is not None:
        full = list(hand)
        for c in pending:
            full[c] += 1
        if opened:  # the minimum is met: the pile joins the hand at once
            return turn_feasible(s, full, nat, wild, tp, True, None, False, NOT_ASKED, False)
        # keep 2 cards (counting the pile) after the minimum is met ...
        if best_points(hand, nat, wild, cap, max(0, 2 - len(pending))) >= need:
            return True
        # ... or else the minimum takes (nearly) every card in hand and only going out
        # can finish the turn: rare, so check a necessary condition, then search
        if len(pending) >= 2:
            return False
        have = sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= o.canasta_size)
        if not can_go_out(full, nat, wild, cap, o.canasta_size, have,
                          o.canastas_to_go_out, 0,
                          black_three_melds=o.black_three_melds and not nat[BLACK_THREE],
                          black_three_max=o.black_three_meld_max):
            return False
        return _pickup_search(s, list(hand), list(nat), list(wild), tp, pending, set())
    size = sum(hand)
    if not must_out and asked != ASKED_YES:
        keep = 1 if s.no_discard else 2
        if size >= keep and (opened or not laid or
                             best_points(hand, nat, wild, cap, keep) >= need):
            return True
    if s.no_discard or asked == ASKED_NO:
        return False
    if o.ask_partner_required and asked != ASKED_YES:
        return False  # going out needs a yes, asked only while a no could be obeyed
    have = 0
    csize = o.canasta_size
    for r in MELD_RANKS:
        if nat[r] and nat[r] + wild[r] >= csize:
            have += 1
    if size == 0:
        return have >= o.canastas_to_go_out and (opened or drew_stock)
    # going out concealed after a stock draw needs no opening minimum
    need_b = 0 if (opened or drew_stock) else need
    # black 3s meld once, in one meld: none more once it is on the table (§2.6)
    return can_go_out(hand, nat, wild, cap, csize, have, o.canastas_to_go_out, need_b,
                      black_three_melds=o.black_three_melds and not nat[BLACK_THREE],
                      black_three_max=o.black_three_meld_max)


def _pickup_search(s: State, hand, nat, wild, tp: int, pending: list[int], seen: set) -> bool:
    """Phase PICKUP: can melds from ``hand`` reach the opening minimum so that, with
    the ``pending`` cards collected, the turn can be finished? Exhaustive search over
    the melds (used only when the hand cannot keep cards back, see :func:`turn_feasible`)."""
    key = (tuple(hand), tuple(nat), tuple(wild))
    if key in seen:
        return False
    seen.add(key)
    cap = s.options.max_wilds_per_meld
    minimum = s.minimum[s.current & 1]
    for r in MELD_RANKS:
        if nat[r]:  # add one card: a natural, or a wild card while there is room
            plays = [(1, None)] + [(0, w) for w in WILDS if wild[r] < cap]
        else:  # start a meld: three naturals, or two naturals and a wild card
            plays = [(3, None)] + [(2, w) for w in WILDS if cap > 0]
        for n_nat, w in plays:
            if hand[r] < n_nat or (w is not None and not hand[w]):
                continue
            pts = n_nat * _V[r]
            hand[r] -= n_nat
            nat[r] += n_nat
            if w is not None:
                pts += _V[w]
                hand[w] -= 1
                wild[r] += 1
            if tp + pts >= minimum:
                ok = turn_feasible(s, hand, nat, wild, tp + pts, True, pending, False,
                                   NOT_ASKED, False)
            else:
                ok = _pickup_search(s, hand, nat, wild, tp + pts, pending, seen)
            hand[r] += n_nat
            nat[r] -= n_nat
            if w is not None:
                hand[w] += 1
                wild[r] -= 1
            if ok:
                return True
    return False


# ---------------------------------------------------------------------- exact meld rules
def close_melds(s: State, team: int, nat, wild, wm: int,
                extra=(0, 0)) -> tuple[list, list, int, int, int]:
    """Copies of hypothetical open melds with those at ``max_meld_size`` closed:
    (nat, wild, wild meld size, clean books, dirty books), books on the table and
    ``extra`` (clean, dirty) books closed earlier in a search included (§3.4)."""
    m = s.options.max_meld_size
    clean, dirty = s.closed_books(team)
    clean += extra[0]
    dirty += extra[1]
    nat, wild = list(nat), list(wild)
    if m:
        for r in MELD_RANKS:
            if nat[r] and nat[r] + wild[r] >= m:
                if wild[r]:
                    dirty += 1
                else:
                    clean += 1
                nat[r] = wild[r] = 0
        if wm >= m:
            clean += 1
            wm = 0
    return nat, wild, wm, clean, dirty


def turn_feasible_exact(s: State, hand, nat, wild, tp: int, laid: bool, pending,
                        must_out: bool, asked: int, drew_stock: bool, wm: int | None,
                        extra=(0, 0)) -> bool:
    """:func:`turn_feasible` for the exact meld rules (Hand and Foot): the same
    questions answered with :func:`.exact.max_points` / :func:`.exact.can_meld_all`.
    A player who still has a foot may empty the hand (melding out picks the foot up
    at once, once the opening minimum is met; discarding the last card is allowed);
    only a player in the foot (or in a game without feet) may go out (§3.7, §3.8)."""
    o = s.options
    seat = s.current
    team = seat & 1
    rules = s.meld_rules
    if wm is None:
        wm = sum(s.wild_meld[team])
    nat, wild, wm, have_c, have_d = close_melds(s, team, nat, wild, wm, extra)
    minimum = s.minimum[team]
    opened = s.opened[team] or (laid and tp >= minimum)
    need = 0 if opened else minimum - tp
    foot = s.foot_pending(seat)
    if pending is not None:
        full = list(hand)
        for c in pending:
            full[c] += 1
        base = s.closed_books(team)
        if opened:
            extra = (have_c - base[0], have_d - base[1])
            return turn_feasible_exact(s, full, nat, wild, tp, True, None, False, NOT_ASKED,
                                       False, wm, extra)
        keep = 0 if foot else max(0, 2 - len(pending))
        if max_points(hand, nat, wild, wm, rules, keep) >= need:
            return True
        if foot or len(pending) >= 2:
            return False
        extra = (have_c - base[0], have_d - base[1])
        return _pickup_search_exact(s, list(hand), nat, wild, wm, tp, pending, extra, set())
    size = sum(hand)
    if foot:  # melding out picks the foot up; the last card may be discarded
        if must_out or asked == ASKED_YES:
            return False
        if opened:
            return True
        if not laid:
            return size >= 1
        return max_points(hand, nat, wild, wm, rules, 0) >= need
    if not must_out and asked != ASKED_YES:
        keep = 1 if s.no_discard else 2
        if size >= keep and (opened or not laid or
                             max_points(hand, nat, wild, wm, rules, keep) >= need):
            return True
    if s.no_discard or asked == ASKED_NO:
        return False
    if o.ask_partner_required and asked != ASKED_YES:
        return False  # going out needs a yes, asked only while a no could be obeyed
    args = (have_c, have_d, o.clean_books_to_go_out, o.dirty_books_to_go_out,
            o.canastas_to_go_out)
    if size == 0:
        for r in MELD_RANKS:  # open melds that count as canastas (no closing size)
            if nat[r] and nat[r] + wild[r] >= o.canasta_size:
                if wild[r]:
                    have_d += 1
                else:
                    have_c += 1
        return (have_c >= args[2] and have_d >= args[3] and have_c + have_d >= args[4]
                and (opened or drew_stock))
    need_b = 0 if (opened or drew_stock) else need
    b3 = o.black_three_melds and not nat[BLACK_THREE]  # one black-3 meld (§2.6)
    if can_meld_all(hand, nat, wild, wm, rules, *args, need_b, b3):
        return True
    for c in range(NUM_CLASSES):
        if hand[c] and c != RED_THREE:
            hand[c] -= 1
            ok = can_meld_all(hand, nat, wild, wm, rules, *args, need_b, b3)
            hand[c] += 1
            if ok:
                return True
    return False


def meld_moves(s: State, hand, nat, wild, wm: int):
    """Every single meld action's effect on (hand, open melds, wild meld), for the
    exact searches: tuples (rank or -1 for the wild meld, naturals, jokers, twos)."""
    rules = s.meld_rules
    m = rules.max_size
    out = []
    for r in MELD_RANKS:
        n, w = nat[r], wild[r]
        if n:
            if hand[r]:
                out.append((r, 1, 0, 0))
            if w + 1 <= (min(rules.cap, n // 2) if rules.half else rules.cap):
                if hand[JOKER]:
                    out.append((r, 0, 1, 0))
                if hand[TWO]:
                    out.append((r, 0, 0, 1))
        elif hand[r] >= 2:
            if hand[r] >= 3:
                out.append((r, 3, 0, 0))
            if rules.cap > 0:
                if hand[JOKER]:
                    out.append((r, 2, 1, 0))
                if hand[TWO]:
                    out.append((r, 2, 0, 1))
    if rules.wild_melds:
        if wm:
            if not m or wm < m:
                if hand[JOKER]:
                    out.append((-1, 0, 1, 0))
                if hand[TWO]:
                    out.append((-1, 0, 0, 1))
        else:
            for j, t in A.WILD_START_KINDS:
                if hand[JOKER] >= j and hand[TWO] >= t:
                    out.append((-1, 0, j, t))
    return out


def _pickup_search_exact(s: State, hand, nat, wild, wm: int, tp: int, pending, extra,
                         seen: set) -> bool:
    """Phase PICKUP under the exact rules, a player in the foot whose opening needs
    (nearly) the whole hand: can melds from ``hand`` reach the minimum so that the
    turn can still be finished (going out)? Exhaustive search over the meld actions."""
    key = (tuple(hand), tuple(nat), tuple(wild), wm, extra)
    if key in seen:
        return False
    seen.add(key)
    team = s.current & 1
    base = s.closed_books(team)
    minimum = s.minimum[team]
    for r, n, j, t in meld_moves(s, hand, nat, wild, wm):
        h2 = list(hand)
        h2[JOKER] -= j
        h2[TWO] -= t
        pts = j * _V[JOKER] + t * _V[TWO]
        nat2, wild2, wm2 = list(nat), list(wild), wm
        if r < 0:
            wm2 += j + t
        else:
            h2[r] -= n
            nat2[r] += n
            wild2[r] += j + t
            pts += n * _V[r]
        nat2, wild2, wm2, c, d = close_melds(s, team, nat2, wild2, wm2, extra)
        extra2 = (c - base[0], d - base[1])
        if tp + pts >= minimum:
            ok = turn_feasible_exact(s, h2, nat2, wild2, tp + pts, True, pending, False,
                                     NOT_ASKED, False, wm2, extra2)
        else:
            ok = _pickup_search_exact(s, h2, nat2, wild2, wm2, tp + pts, pending, extra2,
                                      seen)
        if ok:
            return True
    return False
