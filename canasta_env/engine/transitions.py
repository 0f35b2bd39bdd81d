"""Applying an action: the transitions of each phase.

:func:`apply` dispatches by phase to one function each: :func:`apply_draw` (phase
``DRAW``: stock draw with red 3s laid and replaced, pile takes, declining the pile),
the partner's answer (phase ``ANSWER``), and :func:`apply_meld` (phases ``MELD`` and
``PICKUP``: melds, black 3s, asking, finishing, discards). Legality is checked before,
by :class:`~.game.Game`; these functions assume a legal action.

Rules source: ``docs/RULES.md`` §2.5 (red 3s), §2.7 (the turn), §2.10 (taking the pile,
the pile set aside for an opening), §2.11-§2.14 (going out, asking, concealed, stock
exhausted) and §3.3-§3.8 (Hand and Foot: drawing two, books, the wild-card meld, the
foot).
"""

from __future__ import annotations

from . import actions as A
from .cards import BLACK_THREE, CARD_POINTS, DISCARDABLE, JOKER, MELD_RANKS, NUM_CLASSES, RED_THREE, TWO
from .scoring import end_hand
from .state import ASKED_NO, ASKED_YES, WILDS, Phase, State

_V = CARD_POINTS


def apply(s: State, action: int) -> None:
    """Apply the legal ``action`` of the seat ``s.to_move`` and log it."""
    s.log.append({"seat": s.to_move, "action": action})
    s.decisions += 1
    if s.phase == Phase.DRAW:
        apply_draw(s, action)
    elif s.phase == Phase.ANSWER:
        s.asked = ASKED_YES if action == A.ANSWER_YES else ASKED_NO
        s.phase = Phase.MELD
    else:
        apply_meld(s, action)


def expose_red3(s: State, seat: int) -> None:
    """``seat`` lays a red 3 face up (``docs/RULES.md`` §2.5)."""
    s.red3[seat] += 1
    s.log.append({"event": "red3", "seat": seat})


# ---------------------------------------------------------------------- phase DRAW
def apply_draw(s: State, action: int) -> None:
    """Draw ``draw_count`` stock cards (each red 3 laid and replaced; a red 3 as the last
    stock card ends the hand, §2.14), decline the pile (the hand ends), or take the pile:
    the upcard melded with cards from hand, the rest collected at once when the
    partnership has opened or the take reaches the opening minimum, else set aside
    (phase ``PICKUP``) until melds reach it (§2.10)."""
    seat = s.current
    hand = s.hands[seat]
    if action == A.DRAW_STOCK:
        s.drew_stock = True
        for _ in range(s.options.draw_count):
            if not s.stock:
                break
            while True:
                c = s.stock.pop()
                if c != RED_THREE:
                    hand[c] += 1
                    break
                expose_red3(s, seat)
                if not s.stock:
                    # red 3 as the last stock card: the hand ends (pagat)
                    if s.options.red_three_last_card_may_meld:
                        s.no_discard = True
                        s.phase = Phase.MELD
                        return
                    end_hand(s)
                    return
        s.phase = Phase.MELD
        return
    if action == A.DECLINE_PILE:
        s.log.append({"event": "declined", "seat": seat})
        end_hand(s)
        return
    team = seat & 1
    before = list(hand)
    rest = s.pile_rest()
    top = s.pile.pop()
    if action == A.TAKE_WILD_PAIR:
        n, j, t = 2, 0, 0
        hand[top] -= 2
        lay_wild(s, team, 3 if top == JOKER else 0, 3 if top == TWO else 0)
    else:
        n, j, t = A.TAKE_USE[action]
        hand[top] -= n
        hand[JOKER] -= j
        hand[TWO] -= t
        lay(s, team, top, n + 1, j, t)
    forget_played(s, seat, before)
    s.laid = True
    if not s.opened[team]:
        s.turn_points += (n + 1) * _V[top] + j * _V[JOKER] + t * _V[TWO]
    s.pending = rest
    del s.pile[len(s.pile) - len(rest):]
    # what stays of the pile (pile_take_limit) keeps its frozen state
    s.pile_frozen = any(c in WILDS or c == RED_THREE for c in s.pile)
    if s.opened[team] or s.turn_points >= s.minimum[team]:
        collect_pile(s)
        if not any(hand):
            # the take melded the last cards (a one-card pile): the player is out
            hand_emptied(s, seat)
    else:
        s.phase = Phase.PICKUP


def collect_pile(s: State) -> None:
    """The opening is met: the set-aside pile joins the hand, its cards known to all; a
    red 3 in it is laid and not replaced (§2.5, §2.10)."""
    seat = s.current
    team = seat & 1
    s.opened[team] = True
    hand = s.hands[seat]
    known = s.known[seat]
    for c in s.pending:
        if c == RED_THREE:
            expose_red3(s, seat)  # not replaced
        else:
            hand[c] += 1
            known[c] += 1
    s.pending = []
    s.phase = Phase.MELD


# ---------------------------------------------------------------------- melds
def lay(s: State, team: int, rank: int, n: int, j: int, t: int) -> None:
    """Lay ``n`` naturals, ``j`` jokers and ``t`` twos on the partnership's meld of
    ``rank`` (started if new); it closes into a book at ``max_meld_size`` (§2.3, §3.4)."""
    if not s.nat[team][rank]:
        s.new_ranks.append(rank)
    elif rank not in s.new_ranks:
        s.added_old = True
    nat, jok, two = s.nat[team], s.jok[team], s.two[team]
    nat[rank] += n
    jok[rank] += j
    two[rank] += t
    m = s.options.max_meld_size
    if m and nat[rank] + jok[rank] + two[rank] >= m:  # a closed book
        s.books[team].append([rank, nat[rank], jok[rank], two[rank]])
        s.log.append({"event": "book", "team": team, "rank": rank})
        nat[rank] = jok[rank] = two[rank] = 0


def lay_wild(s: State, team: int, j: int, t: int) -> None:
    """Lay jokers and twos on the partnership's wild-card meld; it closes into a wild
    book at ``max_meld_size`` (Hand and Foot, §3.4)."""
    wm = s.wild_meld[team]
    wm[0] += j
    wm[1] += t
    m = s.options.max_meld_size
    if m and wm[0] + wm[1] >= m:  # a wild book
        s.books[team].append([JOKER, 0, wm[0], wm[1]])
        s.log.append({"event": "book", "team": team, "rank": JOKER})
        wm[0] = wm[1] = 0


def take_foot(s: State, seat: int) -> None:
    """The foot becomes the hand; red 3s in it are laid and replaced (§3.7)."""
    hand, foot = s.hands[seat], s.feet[seat]
    for c in range(NUM_CLASSES):
        hand[c] += foot[c]
        foot[c] = 0
    s.in_foot[seat] = True
    s.log.append({"event": "foot", "seat": seat})
    while hand[RED_THREE]:
        hand[RED_THREE] -= 1
        expose_red3(s, seat)
        if s.stock:
            hand[s.stock.pop()] += 1


def hand_emptied(s: State, seat: int) -> None:
    """The hand was melded out: pick up the foot and play on (§3.7), or go out (§2.11)."""
    if s.foot_pending(seat):
        take_foot(s, seat)
    else:
        go_out(s, seat)


def forget_played(s: State, seat: int, before: list[int]) -> None:
    """Public knowledge after ``seat`` played cards from hand (``before`` = the hand
    before): each card played of a class uses up one known card of that class, since
    the other players cannot tell a known card from a hidden one of the same class."""
    k = s.known[seat]
    if not any(k):  # the common case: nothing known about this hand
        return
    h = s.hands[seat]
    for c in range(NUM_CLASSES):
        played = before[c] - h[c]
        if played > 0 and k[c]:
            k[c] = max(0, k[c] - played)


# ---------------------------------------------------------------------- phases MELD, PICKUP
def apply_meld(s: State, action: int) -> None:
    """A discard (the turn passes left; the foot is picked up at the next turn's start
    after discarding the last hand card), asking partner, finishing without discard (the
    hand ends), or one meld action; the opening completes once the turn's points reach
    the minimum (a set-aside pile is then collected), and a hand melded out goes to the
    foot or out."""
    seat = s.current
    team = seat & 1
    hand = s.hands[seat]
    before = list(hand)
    if A.DISCARD <= action < A.NUM_ACTIONS:
        c = DISCARDABLE[action - A.DISCARD]
        hand[c] -= 1
        forget_played(s, seat, before)
        s.pile.append(c)
        if c in WILDS or (c == BLACK_THREE and s.options.black_three_freezes):
            s.pile_frozen = True
        if not any(hand) and not s.foot_pending(seat):
            go_out(s, seat)
        else:
            if s.laid:
                s.seat_melded[seat] = True
            nxt = (seat + 1) % 4
            s.current = nxt
            s.start_turn()
            s.phase = Phase.DRAW
            if s.foot_pending(nxt) and not any(s.hands[nxt]):
                # the last hand card was discarded: the foot, at the next turn's start
                take_foot(s, nxt)
        return
    if action == A.ASK_PARTNER:
        s.phase = Phase.ANSWER
        return
    if action == A.FINISH_TURN:
        end_hand(s)
        return
    if action >= A.START_WILD_MELD:
        if action < A.ADD_TO_WILD_MELD:
            j, t = A.WILD_START_KINDS[action - A.START_WILD_MELD]
        else:
            j, t = (1, 0) if action == A.ADD_TO_WILD_MELD else (0, 1)
        hand[JOKER] -= j
        hand[TWO] -= t
        lay_wild(s, team, j, t)
        pts = j * _V[JOKER] + t * _V[TWO]
    elif action == A.MELD_BLACK_THREES:
        b3 = min(hand[BLACK_THREE], s.options.black_three_meld_max)
        hand[BLACK_THREE] -= b3
        lay(s, team, BLACK_THREE, b3, 0, 0)
        pts = 5 * b3
        s.must_out = True
    elif action >= A.ADD_TO_MELD:
        i, k = divmod(action - A.ADD_TO_MELD, 3)
        r = MELD_RANKS[i]
        c = (r, JOKER, TWO)[k]
        hand[c] -= 1
        lay(s, team, r, int(k == 0), int(k == 1), int(k == 2))
        pts = _V[c]
    else:
        i, k = divmod(action - A.START_MELD, 3)
        r = MELD_RANKS[i]
        if k == 0:
            hand[r] -= 3
            lay(s, team, r, 3, 0, 0)
            pts = 3 * _V[r]
        else:
            w = JOKER if k == 1 else TWO
            hand[r] -= 2
            hand[w] -= 1
            lay(s, team, r, 2, int(k == 1), int(k == 2))
            pts = 2 * _V[r] + _V[w]
    forget_played(s, seat, before)
    s.laid = True
    if not s.opened[team]:
        s.turn_points += pts
        if s.turn_points >= s.minimum[team]:
            if s.phase == Phase.PICKUP:
                collect_pile(s)
            else:
                s.opened[team] = True
    if s.phase == Phase.MELD and not any(hand):
        hand_emptied(s, seat)


def go_out(s: State, seat: int) -> None:
    """``seat`` goes out and the hand ends (§2.11). Concealed (§2.13): nothing laid by the
    player before this turn, nothing added to melds from earlier turns, and a canasta
    among the melds started this turn."""
    team = seat & 1
    size = s.options.canasta_size
    s.opened[team] = True
    concealed = (not s.seat_melded[seat] and not s.added_old and any(
        s.nat[team][r] + s.jok[team][r] + s.two[team][r] >= size
        for r in s.new_ranks))
    s.went_out = seat
    s.concealed = concealed
    s.seat_melded[seat] = True
    s.log.append({"event": "out", "seat": seat, "concealed": concealed})
    end_hand(s)
