"""Exactness of Hand and Foot's "no dead ends" legality (docs/RULES.md §3 and §6): in phase
MELD the engine lists a meld, ask or discard iff the raw Hand and Foot rules allow it *and*
the turn can still be finished legally (closed books at 7, wilds at most half the naturals,
wild melds, 2 clean + 2 dirty books and the foot to go out, asking partner first -- whose
answer is the partner's free choice, so asking must leave a way to finish after either
answer --, the opening minimum of the round). Checked against an independent brute-force
search over the raw rules in many random positions."""

import random
from functools import lru_cache

from canasta_env.engine import Phase, to_position
from canasta_env.engine import actions as A
from canasta_env.engine.cards import (
    BLACK_THREE,
    CARD_POINTS,
    CLASS_NAMES,
    DISCARDABLE,
    JOKER,
    MELD_RANKS,
    TWO,
)
from tests.helpers.hand_and_foot import TABLE, book, build_hf, meld

V = CARD_POINTS
MAX = 7


def oracle(in_foot, opened, minimum, drew_stock):
    """The raw rules of one turn: (moves, completable) over states (hand, open melds
    (naturals, wilds per rank), wild meld size, (clean, dirty) books, opening points,
    laid, must_out, asked)."""

    def limit(n):
        return min(3, n // 2)

    def close(n, w, r, books):
        """Close the meld of rank r if it reached 7 cards."""
        if n[r] + w[r] >= MAX:
            c, d = books
            books = (c + (w[r] == 0), d + (w[r] > 0))
            n[r] = w[r] = 0
        return books

    def can_go_out(books, opened_now, asked):
        return books[0] >= 2 and books[1] >= 2 and asked == 1 and (opened_now or drew_stock)

    def moves(hand, nat, wild, wm, books, tp, laid, must_out, asked):
        out = []
        opened_now = opened or (laid and tp >= minimum)

        def add(action, h, n, w, wm2, books2, pts, must=must_out):
            out.append((action, (tuple(h), tuple(n), tuple(w), wm2, books2, tp + pts, True,
                                 must, asked)))

        for i, r in enumerate(MELD_RANKS):
            if nat[r]:
                for k, c in ((0, r), (1, JOKER), (2, TWO)):
                    if hand[c] and (k == 0 or wild[r] + 1 <= limit(nat[r])):
                        h, n, w = list(hand), list(nat), list(wild)
                        h[c] -= 1
                        if k == 0:
                            n[r] += 1
                        else:
                            w[r] += 1
                        b2 = close(n, w, r, books)
                        add(A.ADD_TO_MELD + 3 * i + k, h, n, w, wm, b2, V[c])
            else:
                for k, (nn, j, t) in enumerate(((3, 0, 0), (2, 1, 0), (2, 0, 1))):
                    if hand[r] >= nn and hand[JOKER] >= j and hand[TWO] >= t:
                        h, n, w = list(hand), list(nat), list(wild)
                        h[r] -= nn
                        h[JOKER] -= j
                        h[TWO] -= t
                        n[r] += nn
                        w[r] += j + t
                        add(A.START_MELD + 3 * i + k, h, n, w, wm, books,
                            nn * V[r] + 50 * j + 20 * t)
        if wm:
            for k, c in ((0, JOKER), (1, TWO)):
                if hand[c]:
                    h = list(hand)
                    h[c] -= 1
                    wm2, b2 = wm + 1, books
                    if wm2 == MAX:
                        wm2, b2 = 0, (books[0] + 1, books[1])
                    add(A.ADD_TO_WILD_MELD + k, h, nat, wild, wm2, b2, V[c])
        else:
            for k, (j, t) in enumerate(A.WILD_START_KINDS):
                if hand[JOKER] >= j and hand[TWO] >= t:
                    h = list(hand)
                    h[JOKER] -= j
                    h[TWO] -= t
                    add(A.START_WILD_MELD + k, h, nat, wild, 3, books, 50 * j + 20 * t)
        if 3 <= hand[BLACK_THREE] <= 4:
            h = list(hand)
            b3 = h[BLACK_THREE]
            h[BLACK_THREE] = 0
            n = list(nat)
            n[BLACK_THREE] += b3
            add(A.MELD_BLACK_THREES, h, n, wild, wm, books, 5 * b3, True)
        if in_foot and asked == 0 and not must_out:  # the partner answers yes or no
            out.append((A.ASK_PARTNER, ("ask", (hand, nat, wild, wm, books, tp, laid, must_out, 1),
                                        (hand, nat, wild, wm, books, tp, laid, must_out, 2))))
        size = sum(hand)
        for c in DISCARDABLE:
            if hand[c]:
                free = not must_out and asked != 1 and (opened_now or not laid)
                if size - 1 >= 1 or not in_foot:
                    if free:
                        out.append((A.discard(c), None))
                elif can_go_out(books, opened_now, asked):
                    out.append((A.discard(c), None))
        return out

    @lru_cache(maxsize=None)
    def completable(hand, nat, wild, wm, books, tp, laid, must_out, asked):
        if not any(hand):
            opened_now = opened or (laid and tp >= minimum)
            if not in_foot:
                return opened_now  # melded out: the foot is picked up, play on
            return can_go_out(books, opened_now, asked)
        return any(ok(nxt) for _, nxt in moves(hand, nat, wild, wm, books, tp, laid,
                                                 must_out, asked))

    def ok(nxt):
        """Can the turn be finished after a move? After asking, whatever the partner
        answers (the answer is the partner's free choice)."""
        if nxt is None:
            return True
        if nxt[0] == "ask":
            return completable(*nxt[1]) and completable(*nxt[2])
        return completable(*nxt)

    return moves, completable, ok


def oracle_legal(hand, nat, wild, wm, books, in_foot, opened, minimum, tp, laid, drew_stock):
    """Legal action ids of phase MELD by brute force."""
    moves, _, ok = oracle(in_foot, opened, minimum, drew_stock)
    legal = []
    for a, nxt in moves(tuple(hand), tuple(nat), tuple(wild), wm, books, tp, laid, False, 0):
        if ok(nxt):
            legal.append(a)
    return sorted(legal)


def oracle_takes(g):
    """Legal take ids of phase DRAW by brute force: a natural pair matching a natural
    top card (not a 3), or a wild pair of the top wild card; the meld must stay within 7
    cards; the top 7 cards come along; an unopened partnership first reaches its minimum
    with the top card and hand cards (phase PICKUP, melds only), then collects."""
    (hand, nat, wild, wm, books, in_foot, opened, minimum, tp, laid,
     _) = engine_view(g)
    moves, completable, _ = oracle(in_foot, opened, minimum, False)
    top = g.pile[-1]
    rest = [c for c in g.pile[-7:-1] if c != 3]
    out = []
    h = list(hand)
    if top in (JOKER, TWO):
        if hand[top] < 2 or wm + 3 > MAX:
            return out
        h[top] -= 2
        wm2, b2 = wm + 3, books
        if wm2 == MAX:
            wm2, b2 = 0, (books[0] + 1, books[1])
        n, w, action = list(nat), list(wild), A.TAKE_WILD_PAIR
    elif top in MELD_RANKS and hand[top] >= 2 and nat[top] + wild[top] + 3 <= MAX:
        h[top] -= 2
        n, w = list(nat), list(wild)
        n[top] += 3
        wm2, b2 = wm, books
        if n[top] + w[top] >= MAX:
            b2 = (books[0] + (w[top] == 0), books[1] + (w[top] > 0))
            n[top] = w[top] = 0
        action = A.TAKE_PAIR
    else:
        return out
    tp2 = 3 * V[top]

    @lru_cache(maxsize=None)
    def pickup(hand, nat, wild, wm, books, tp):
        if opened or tp >= minimum:
            full = list(hand)
            for c in rest:
                full[c] += 1
            if not any(full):
                return opened or tp >= minimum if not in_foot else False
            return completable(tuple(full), nat, wild, wm, books, tp, True, False, 0)
        for a, nxt in moves(hand, nat, wild, wm, books, tp, True, False, 0):
            if nxt is not None and a not in (A.ASK_PARTNER, A.MELD_BLACK_THREES) and \
                    pickup(*nxt[:6]):
                return True
        return False

    if pickup(tuple(h), tuple(n), tuple(w), wm2, b2, tp2 if not opened else 0):
        out.append(action)
    return out


def engine_view(g):
    team = 0
    wild = [a + b for a, b in zip(g.jok[team], g.two[team])]
    clean = sum(1 for b in g.books[0] if b[0] == JOKER or b[2] + b[3] == 0)
    return (list(g.hands[0]), list(g.nat[team]), wild, sum(g.wild_meld[0]),
            (clean, len(g.books[0]) - clean), g.in_foot[0], g.opened[team], g.minimum[team],
            g.turn_points, g.laid, g.drew_stock)


def random_position(rng: random.Random):
    """Seat 0 in phase MELD after a stock draw, in the hand or the foot, with some books."""
    avail = {r: 19 for r in MELD_RANKS}  # one of each rank is in the default foot
    jokers, twos = 10, 20
    melds, books = {}, []
    opened = rng.random() < 0.7
    wm = (0, 0)
    if opened:
        for r in rng.sample(MELD_RANKS, rng.randint(0, 3)):
            n = rng.randint(2, 6)
            w = rng.randint(0 if n >= 3 else 1, min(n // 2, 6 - n))
            if n + w < 3:
                continue
            j = rng.randint(0, w)
            jokers -= j
            twos -= w - j
            avail[r] -= n
            melds[CLASS_NAMES[r]] = meld(n, j, w - j)
        for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 4])):
            r = rng.choice(MELD_RANKS)
            w = rng.choice([0, 0, 1, 2])
            if avail[r] < 7 - w or twos < w:
                continue
            avail[r] -= 7 - w
            twos -= w
            books.append(book(CLASS_NAMES[r], 7 - w, 0, w))
        if rng.random() < 0.3:
            s = rng.randint(3, 6)
            j = min(jokers, rng.randint(0, s))
            wm = (j, s - j)
            jokers -= j
            twos -= s - j
    opened = opened and bool(melds or books or sum(wm))  # an opened side has a meld
    ranks = rng.sample(MELD_RANKS, rng.randint(1, 4))
    hand = []
    for _ in range(rng.randint(1, 9)):
        x = rng.random()
        if x < 0.15 and jokers:
            jokers -= 1
            hand.append("Joker")
        elif x < 0.3 and twos:
            twos -= 1
            hand.append("2")
        elif x < 0.38:
            hand.append("b3")
        else:
            r = rng.choice(ranks)
            if avail[r]:
                avail[r] -= 1
                hand.append(CLASS_NAMES[r])
    while len(hand) < 2:  # a player on turn after drawing holds two cards at least
        r = max(MELD_RANKS, key=lambda r: avail[r])
        avail[r] -= 1
        hand.append(CLASS_NAMES[r])
    in_foot = rng.random() < 0.6
    return build_hf(hands=(" ".join(hand), "", "", ""), melds=(melds, {}),
                    books=(books, []), wild_melds=(wm, (0, 0)),
                    in_foot=(in_foot, True, True, True), feet=(
                        "" if in_foot else "4 5 6 7 8 9 10 J Q K A", "", "", ""),
                    phase="MELD", round_no=rng.randint(1, 4), opened=[opened, False])


def test_meld_phase_legality_matches_brute_force():
    rng = random.Random(2025)
    compared = restricted = outs = foot = 0
    for _ in range(900):
        g = random_position(rng)
        while g.phase == Phase.MELD and g.current == 0:
            eng = g.legal_actions()
            want = oracle_legal(*engine_view(g))
            assert eng == want, (g.to_json(), [TABLE.describe(a) for a in eng],
                                 [TABLE.describe(a) for a in want])
            compared += 1
            if eng and len(eng) < 3:
                restricted += 1
            if A.ASK_PARTNER in eng:
                outs += 1
            choices = [a for a in eng if a != A.ASK_PARTNER]
            if not choices:
                break
            was_foot = g.in_foot[0]
            g.apply(rng.choice(choices))
            if g.in_foot[0] and not was_foot:
                foot += 1
                break  # the foot picked up mid-turn: a new hand the oracle never saw
    assert compared > 1000 and restricted > 50 and outs > 20 and foot > 5


def random_draw_position(rng: random.Random):
    """Seat 0 to draw, a pile of 1 to 9 cards whose top often matches a pair in hand."""
    g = random_position(rng)
    hand = g.hands[0]
    pairs = [c for c in (*MELD_RANKS, JOKER, TWO) if hand[c] >= 2]
    top = rng.choice(pairs) if pairs and rng.random() < 0.85 else rng.choice(MELD_RANKS)
    below = [rng.choice(["5", "6", "7", "8", "10", "J", "Q", "b3", "2"])
             for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 5, 6, 8]))]
    pos = to_position(g)
    return build_hf(hands=(" ".join(_tok(pos["hands"][0])), "", "", ""),
                    melds=(pos["melds"][0], {}), books=(pos["books"][0], []),
                    wild_melds=((pos["wild_melds"][0]["jokers"], pos["wild_melds"][0]["twos"]),
                                (0, 0)),
                    in_foot=(g.in_foot[0], True, True, True),
                    feet=(" ".join(_tok(pos["feet"][0])), "", "", ""),
                    pile=" ".join(below + [_tok([CLASS_NAMES[top]])[0]]),
                    round_no=g.hand_number + 1, opened=list(g.opened))


def _tok(names):
    return ["b3" if n == "black 3" else "r3" if n == "red 3" else n for n in names]


def test_takes_and_pickup_legality_match_brute_force():
    rng = random.Random(77)
    compared = takes = pickups = 0
    for _ in range(700):
        try:
            g = random_draw_position(rng)
        except ValueError:  # the random description ran out of some card
            continue
        eng = [a for a in g.legal_actions() if a in (A.TAKE_PAIR, A.TAKE_WILD_PAIR)]
        assert eng == oracle_takes(g), (g.to_json(), eng)
        compared += 1
        takes += bool(eng)
        if eng:
            g.apply(eng[0])
            pickups += g.phase == Phase.PICKUP
            while g.phase == Phase.PICKUP:  # every offered meld keeps the take completable
                g.apply(rng.choice(g.legal_actions()))
            assert g.hand_over or g.legal_actions()
    assert compared > 500 and takes > 100 and pickups > 10
