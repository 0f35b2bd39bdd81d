"""The legal actions of the seat on turn, dispatched by phase.

One small function per phase (after OpenSpiel's gin_rummy): :func:`legal_draw` (phase
``DRAW``: draw from the stock, take the pile in one of its ways, decline the pile when
the stock is empty), :func:`legal_meld` (phases ``MELD`` and ``PICKUP``: start or add to a
meld, meld black 3s, ask partner, discard, finish), :func:`legal_answer` (phase
``ANSWER``: the partner's yes / no). Every action listed leaves the turn completable
(:func:`.completion.turn_feasible`), so the mask never leads into a dead end
(``docs/RULES.md`` §6). :func:`why_illegal` explains a refused action in words.

The action ids are those of :mod:`.actions`; the rules behind each id range are in
``docs/RULES.md`` §5.
"""

from __future__ import annotations

from . import actions as A
from .cards import BLACK_THREE, CARD_POINTS, DISCARDABLE, JOKER, MELD_RANKS, RED_THREE, TWO
from .completion import turn_feasible
from .exact import wild_meld_books
from .state import ASKED_NO, ASKED_YES, NOT_ASKED, WILDS, Phase, State

_V = CARD_POINTS


def legal_actions(s: State) -> list[int]:
    """Sorted legal action ids for the seat ``s.to_move`` (empty when the hand is over)."""
    ph = s.phase
    if ph == Phase.DRAW:
        return legal_draw(s)
    if ph == Phase.MELD or ph == Phase.PICKUP:
        return legal_meld(s)
    if ph == Phase.ANSWER:
        return legal_answer(s)
    return []


# ---------------------------------------------------------------------- phase DRAW
def legal_draw(s: State) -> list[int]:
    """Phase ``DRAW`` (``docs/RULES.md`` §2.7, §2.10, §2.14): draw from the stock while it
    has cards; each legal pile take; decline the pile once the stock is empty, unless the
    take is forced (the top card matches one of the partnership's melds and the pile is
    not frozen for it)."""
    seat = s.current
    team = seat & 1
    legal: list[int] = []
    if s.stock:
        legal.append(A.DRAW_STOCK)
    takes = legal_takes(s, seat)
    legal.extend(takes)
    if not s.stock:
        top = s.pile[-1] if s.pile else None
        forced = (bool(takes) and top is not None and not s.pile_frozen_for(team)
                  and s.nat[team][top] > 0)
        if not forced:
            legal.append(A.DECLINE_PILE)
    return sorted(legal)


def legal_takes(s: State, seat: int) -> list[int]:
    """The legal ways for ``seat`` to take the discard pile (``docs/RULES.md`` §2.10;
    Hand and Foot §3.6): never with a black 3, red 3 or (Classic) wild card on top; with a
    natural pair always; with a natural and a wild card, or onto the partnership's meld,
    only when the pile is not frozen for the partnership; a wild pair onto the wild meld
    when a wild card is on top (``pile_wild_pair``); each only if the turn can then be
    completed (the opening minimum, §2.8)."""
    if not s.pile:
        return []
    top = s.pile[-1]
    o = s.options
    team = seat & 1
    hand = s.hands[seat]
    if top in WILDS and o.pile_wild_pair:
        if hand[top] >= 2 and wild_meld_books(sum(s.wild_meld[team]), 3, s.meld_rules) >= 0 \
                and _take_feasible(s, seat, top, 2, 0, 0, wild_pair=True):
            return [A.TAKE_WILD_PAIR]
        return []
    if top in WILDS or top == BLACK_THREE or top == RED_THREE:
        return []
    if o.one_card_pile_restriction and sum(hand) == 1 and len(s.pile) == 1:
        return []
    frozen = s.pile_frozen_for(team)
    nat, wild = s.nat[team], s.wild(team)
    out = []
    m = o.max_meld_size
    for kind in (A.TAKE_PAIR, A.TAKE_NAT_JOKER, A.TAKE_NAT_TWO, A.TAKE_ONTO_MELD):
        if kind != A.TAKE_PAIR and (frozen or o.pile_pair_only):
            continue
        n, j, t = A.TAKE_USE[kind]
        if hand[top] < n or hand[JOKER] < j or hand[TWO] < t:
            continue
        if kind == A.TAKE_ONTO_MELD and not nat[top]:
            continue
        if (j or t) and not s.wild_ok(nat[top] + n + 1, wild[top] + 1):
            continue
        if m and nat[top] + wild[top] + n + j + t + 1 > m:
            continue
        if _take_feasible(s, seat, top, n, j, t):
            out.append(kind)
    return out


def _take_feasible(s: State, seat: int, top: int, n: int, j: int, t: int,
                   wild_pair: bool = False) -> bool:
    """After melding the upcard with ``n`` naturals, ``j`` jokers and ``t`` twos from the
    hand (or a wild pair onto the wild meld), can the turn be completed? Below the
    opening minimum the rest of the pile waits, set aside (phase ``PICKUP``, §2.10)."""
    team = seat & 1
    hand = list(s.hands[seat])
    nat = list(s.nat[team])
    wild = s.wild(team)
    wm = sum(s.wild_meld[team])
    hand[top] -= n
    hand[JOKER] -= j
    hand[TWO] -= t
    if wild_pair:
        wm += n + 1
    else:
        nat[top] += n + 1
        wild[top] += j + t
    rest = s.pile_rest()
    tp = (n + 1) * _V[top] + j * _V[JOKER] + t * _V[TWO]
    if s.opened[team] or tp >= s.minimum[team]:
        for c in rest:
            if c != RED_THREE:
                hand[c] += 1
        return turn_feasible(s, hand, nat, wild, 0 if s.opened[team] else tp, True, None,
                             False, NOT_ASKED, False, wm)
    pending = [c for c in rest if c != RED_THREE]
    return turn_feasible(s, hand, nat, wild, tp, True, pending, False, NOT_ASKED, False, wm)


# ---------------------------------------------------------------------- phases MELD, PICKUP
def legal_meld(s: State) -> list[int]:
    """Phases ``MELD`` and ``PICKUP`` (``docs/RULES.md`` §2.3-§2.13, §3.4-§3.8): start a
    meld (three naturals, or two and a wild card), add a natural or a wild card within the
    wild limit, the wild-card meld (Hand and Foot), each only if the turn stays
    completable; in ``MELD`` also black 3s (only when going out), asking partner (only if
    both answers leave a way to finish), finishing without discard (a red 3 was the last
    stock card), and the discards (the opening met, and never emptying the hand of a
    player who may not go out)."""
    o = s.options
    seat = s.current
    team = seat & 1
    hand = s.hands[seat]
    nat = s.nat[team]
    wild = s.wild(team)
    cap = o.max_wilds_per_meld
    pickup = s.phase == Phase.PICKUP
    pending = [c for c in s.pending if c != RED_THREE] if pickup else None
    minimum = s.minimum[team]
    opened = s.opened[team]
    size = sum(hand)
    legal: list[int] = []
    tp0 = s.turn_points
    free_ok = not s.must_out and s.asked != ASKED_YES and not pickup
    free_keep = 0 if s.foot_pending(seat) else 2

    def check(delta_pts: int, used: int, wm: int | None = None) -> bool:
        tp = tp0 + (0 if opened else delta_pts)
        if free_ok and size - used >= free_keep and (opened or tp >= minimum):
            return True
        return turn_feasible(s, hand, nat, wild, tp, True, pending, s.must_out, s.asked,
                             s.drew_stock, wm)

    nj, nt = hand[JOKER], hand[TWO]
    for i, r in enumerate(MELD_RANKS):
        n = hand[r]
        v = _V[r]
        if nat[r]:
            base = A.ADD_TO_MELD + 3 * i
            room = s.wild_ok(nat[r], wild[r] + 1)
            if n:
                hand[r] -= 1
                nat[r] += 1
                if check(v, 1):
                    legal.append(base)
                hand[r] += 1
                nat[r] -= 1
            if room:
                for k, c in ((1, JOKER), (2, TWO)):
                    if hand[c]:
                        hand[c] -= 1
                        wild[r] += 1
                        if check(_V[c], 1):
                            legal.append(base + k)
                        hand[c] += 1
                        wild[r] -= 1
        elif n >= 2:
            base = A.START_MELD + 3 * i
            if n >= 3:
                hand[r] -= 3
                nat[r] += 3
                if check(3 * v, 3):
                    legal.append(base)
                hand[r] += 3
                nat[r] -= 3
            if cap > 0:
                for k, c, cnt in ((1, JOKER, nj), (2, TWO, nt)):
                    if cnt:
                        hand[r] -= 2
                        hand[c] -= 1
                        nat[r] += 2
                        wild[r] += 1
                        if check(2 * v + _V[c], 3):
                            legal.append(base + k)
                        hand[r] += 2
                        hand[c] += 1
                        nat[r] -= 2
                        wild[r] -= 1
    if o.wild_melds:
        wm = sum(s.wild_meld[team])
        if wm:
            if not o.max_meld_size or wm < o.max_meld_size:
                for k, c in ((0, JOKER), (1, TWO)):
                    if hand[c]:
                        hand[c] -= 1
                        if check(_V[c], 1, wm + 1):
                            legal.append(A.ADD_TO_WILD_MELD + k)
                        hand[c] += 1
        else:
            for k, (j, t) in enumerate(A.WILD_START_KINDS):
                if hand[JOKER] >= j and hand[TWO] >= t:
                    hand[JOKER] -= j
                    hand[TWO] -= t
                    if check(j * _V[JOKER] + t * _V[TWO], j + t, j + t):
                        legal.append(A.START_WILD_MELD + k)
                    hand[JOKER] += j
                    hand[TWO] += t
    if pickup:
        legal.sort()
        return legal
    # black 3s: only as part of going out, at most black_three_meld_max of them (with more
    # in a pack of 3+ decks, one more can still be the discard)
    b3 = hand[BLACK_THREE]
    b3_meld = min(b3, o.black_three_meld_max)
    if o.black_three_melds and b3 >= 3 and s.asked != ASKED_NO and not s.no_discard and \
            not s.must_out and not s.nat[team][BLACK_THREE]:  # one black-3 meld, once
        hand[BLACK_THREE] = b3 - b3_meld
        nat[BLACK_THREE] += b3_meld  # the meld on the table: no second one (completion)
        if turn_feasible(s, hand, nat, wild, tp0 + (0 if opened else 5 * b3_meld), True, None,
                         True, s.asked, s.drew_stock):
            legal.append(A.MELD_BLACK_THREES)
        nat[BLACK_THREE] -= b3_meld
        hand[BLACK_THREE] = b3
    # asking partner: only while both answers leave a way to finish the turn (§2.12)
    if s.asked == NOT_ASKED and not s.no_discard and not s.must_out:
        if turn_feasible(s, hand, nat, wild, tp0, s.laid, None, False, ASKED_NO,
                         s.drew_stock) and \
                turn_feasible(s, hand, nat, wild, tp0, s.laid, None, True, ASKED_YES,
                              s.drew_stock):
            legal.append(A.ASK_PARTNER)
    if s.no_discard:
        if opened or not s.laid:
            legal.append(A.FINISH_TURN)
        legal.sort()
        return legal
    # discards
    opening_ok = opened or not s.laid
    if size >= 2:
        if opening_ok and not s.must_out and s.asked != ASKED_YES:
            for c in DISCARDABLE:
                if hand[c]:
                    legal.append(A.DISCARD_ACTION[c])
    elif size == 1 and s.foot_pending(seat):
        # discarding the last hand card: the foot is picked up next turn
        if opening_ok and not s.must_out and s.asked != ASKED_YES:
            for c in DISCARDABLE:
                if hand[c]:
                    legal.append(A.DISCARD_ACTION[c])
    elif size == 1 and may_go_out_now(s, team):
        if opening_ok or s.drew_stock:
            for c in DISCARDABLE:
                if hand[c]:
                    legal.append(A.DISCARD_ACTION[c])
    legal.sort()
    return legal


def may_go_out_now(s: State, team: int) -> bool:
    """May the player on turn go out now (``docs/RULES.md`` §2.11, §2.12, §3.8): not told
    "no", asked when asking is required, in the foot, and the partnership holds the
    canastas / books going out needs."""
    o = s.options
    if s.asked == ASKED_NO or s.no_discard:
        return False
    if o.ask_partner_required and s.asked != ASKED_YES:
        return False
    if s.foot_pending(s.current):
        return False
    clean, dirty = s.book_counts(team)
    return (clean + dirty >= o.canastas_to_go_out and clean >= o.clean_books_to_go_out
            and dirty >= o.dirty_books_to_go_out)


# ---------------------------------------------------------------------- phase ANSWER
def legal_answer(s: State) -> list[int]:
    """Phase ``ANSWER`` (``docs/RULES.md`` §2.12): "yes" and "no", always both: the answer
    is the partner's free choice, and asking was offered only while the asker could obey
    either (:func:`legal_meld`)."""
    return [A.ANSWER_YES, A.ANSWER_NO]


# ---------------------------------------------------------------------- explanations
def refusal(s: State, action: int) -> str:
    """The message of every refusal of ``action`` (a valid id that is not legal here), on
    either backend: the action id and its description, the seat on turn, the phase and
    :func:`why_illegal`. (``Game.apply``, ``NativeGame.apply`` and both batches' ``step``
    raise IllegalActionError with it.)"""
    return (f"illegal action {action} ({s.table.descriptions[action]!r}) for seat "
            f"{s.to_move} in phase {s.phase.name}: {why_illegal(s, action)}")


def why_illegal(s: State, action: int) -> str:
    """In words, why ``action`` (a valid id that is not legal here) is refused."""
    ph = s.phase
    if ph >= Phase.HAND_OVER:
        return "the hand is over"
    draws = A.DRAW_STOCK <= action <= A.DECLINE_PILE or action == A.TAKE_WILD_PAIR
    wild_meld = A.START_WILD_MELD <= action < A.TAKE_WILD_PAIR
    if ph == Phase.DRAW and not draws:
        return "the player must first draw from the stock or take the pile"
    if ph == Phase.ANSWER and action not in (A.ANSWER_YES, A.ANSWER_NO):
        return "the partner must answer yes or no"
    if ph == Phase.PICKUP and not (A.START_MELD <= action < A.MELD_BLACK_THREES or wild_meld):
        return "the opening minimum must be met with melds before the pile is collected"
    if ph == Phase.MELD and draws:
        return "the player has already drawn this turn"
    if action == A.DECLINE_PILE and s.stock:
        return "the pile may be declined only when the stock is empty"
    if A.TAKE_PAIR <= action <= A.TAKE_ONTO_MELD or action == A.TAKE_WILD_PAIR:
        return "the pile cannot be taken that way (stop card, wild on top, frozen, a " \
               "natural pair needed, a full meld, or the cards are not in hand)"
    if action == A.ASK_PARTNER and s.foot_pending(s.current):
        return "only a player in the foot may ask to go out"
    if wild_meld:
        return "the wild cards are not in hand, the wild meld is full or already started " \
               "(or not yet), or it would leave the turn impossible to complete"
    if A.DISCARD <= action < A.NUM_ACTIONS:
        if s.asked == ASKED_YES or s.must_out:
            return "the player must go out this turn"
        return "the card is not in hand, the opening minimum is not met, or the " \
               "discard would empty the hand of a player who may not go out"
    return "the cards are not in hand, the meld rules forbid it, or it would leave " \
           "the turn impossible to complete (opening minimum, going out)"
