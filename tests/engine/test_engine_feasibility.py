"""Exactness of the "no dead ends" legality (docs/RULES.md §6: opening minimum §2.8, taking
the pile §2.10, going out and keeping two cards §2.11): the engine lists a take, meld or
discard iff the rules allow it *and* the turn can still be finished legally. Checked
against an independent brute-force search over the raw rules in many random positions
(phases DRAW, PICKUP and MELD)."""

import random
from functools import lru_cache

from canasta_env.engine import Phase, actions, to_position
from canasta_env.engine.cards import (
    BLACK_THREE,
    CARD_POINTS,
    CLASS_NAMES,
    DISCARDABLE,
    JOKER,
    MELD_RANKS,
    RED_THREE,
    TWO,
)
from tests.helpers.engine import build, legal_names, meld, play

CAP = 3  # wild cards per meld
SIZE = 7  # canasta


def oracle_legal(hand, nat, wild, opened, minimum, tp, laid, must_out, drew_stock):
    """Action ids that are legal by the raw rules and leave the turn completable."""

    def ok_end(nat, wild, opened_now):
        # the hand just became empty: going out
        canastas = sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= SIZE)
        return canastas >= 1 and (opened_now or drew_stock)

    def moves(hand, nat, wild, tp, laid, must_out):
        """(action, next state or None if the move ends the turn legally) for raw-legal
        moves; moves that end the turn illegally are left out."""
        out = []
        opened_now = opened or (laid and tp >= minimum)
        for i, r in enumerate(MELD_RANKS):
            if nat[r]:
                for k, c in ((0, r), (1, JOKER), (2, TWO)):
                    if hand[c] and (k == 0 or wild[r] < CAP):
                        h = list(hand)
                        h[c] -= 1
                        n, w = list(nat), list(wild)
                        if k == 0:
                            n[r] += 1
                        else:
                            w[r] += 1
                        out.append((actions.ADD_TO_MELD + 3 * i + k,
                                    (tuple(h), tuple(n), tuple(w),
                                     tp + CARD_POINTS[c], True, must_out)))
            else:
                for k, need in ((0, (3, 0, 0)), (1, (2, 1, 0)), (2, (2, 0, 1))):
                    if hand[r] >= need[0] and hand[JOKER] >= need[1] and hand[TWO] >= need[2]:
                        h = list(hand)
                        h[r] -= need[0]
                        h[JOKER] -= need[1]
                        h[TWO] -= need[2]
                        n, w = list(nat), list(wild)
                        n[r] += need[0]
                        w[r] += need[1] + need[2]
                        pts = need[0] * CARD_POINTS[r] + 50 * need[1] + 20 * need[2]
                        out.append((actions.START_MELD + 3 * i + k,
                                    (tuple(h), tuple(n), tuple(w), tp + pts, True, must_out)))
        if hand[BLACK_THREE] >= 3:
            h = list(hand)
            b3 = h[BLACK_THREE]
            h[BLACK_THREE] = 0
            n = list(nat)
            n[BLACK_THREE] += b3
            out.append((actions.MELD_BLACK_THREES,
                        (tuple(h), tuple(n), wild, tp + 5 * b3, True, True)))
        size = sum(hand)
        for c in DISCARDABLE:
            if hand[c]:
                if size - 1 >= 1:
                    if not must_out and (opened_now or not laid):
                        out.append((actions.discard(c), None))
                elif ok_end(nat, wild, opened_now):
                    out.append((actions.discard(c), None))
        return out

    @lru_cache(maxsize=None)
    def completable(hand, nat, wild, tp, laid, must_out):
        if not any(hand):
            return ok_end(nat, wild, opened or (laid and tp >= minimum))
        for _, nxt in moves(hand, nat, wild, tp, laid, must_out):
            if nxt is None or completable(*nxt):
                return True
        return False

    legal = []
    for a, nxt in moves(tuple(hand), tuple(nat), tuple(wild), tp, laid, must_out):
        if nxt is None or completable(*nxt):
            legal.append(a)
    return sorted(legal)


def engine_view(g):
    team = g.current % 2
    wild = [a + b for a, b in zip(g.jok[team], g.two[team])]
    return (list(g.hands[g.current]), list(g.nat[team]), wild, g.opened[team],
            g.minimum[team], g.turn_points, g.laid, g.must_out, g.drew_stock)


def random_position(rng: random.Random):
    """Seat 0 in phase MELD after a stock draw; partnership A opened (with melds) or not."""
    avail = {r: 8 for r in MELD_RANKS}
    jokers, twos, b3 = 4, 8, 4
    melds = {}
    opened = rng.random() < 0.6
    if opened:
        for r in rng.sample(MELD_RANKS, rng.randint(1, 3)):
            n = rng.randint(2, 7)
            w = rng.randint(0 if n >= 3 else 1, min(3, 9 - n))
            j = min(jokers, rng.randint(0, w))
            t = min(twos, w - j)
            if n + j + t < 3:
                continue
            jokers -= j
            twos -= t
            avail[r] -= n
            melds[CLASS_NAMES[r]] = meld(n, j, t)
    ranks = rng.sample(MELD_RANKS, rng.randint(1, 4))
    hand = []
    for _ in range(rng.randint(2, 9)):
        x = rng.random()
        if x < 0.15 and jokers:
            jokers -= 1
            hand.append("Joker")
        elif x < 0.3 and twos:
            twos -= 1
            hand.append("2")
        elif x < 0.38 and b3:
            b3 -= 1
            hand.append("black 3")
        else:
            r = rng.choice(ranks)
            if avail[r]:
                avail[r] -= 1
                hand.append(CLASS_NAMES[r])
    hand_text = " ".join("b3" if c == "black 3" else c for c in hand)
    score = rng.choice([-100, 0, 1500, 3000])
    return build(hands=(hand_text, "", "", ""), melds=(melds, {}), pile="",
                 phase="MELD", turn={"drew_stock": True}, scores=(score, 0),
                 opened=[opened, False])


def meld_plays(hand, nat, wild):
    """(action, hand, nat, wild, points) for every raw-legal start / add."""
    for i, r in enumerate(MELD_RANKS):
        if nat[r]:
            for k, c in ((0, r), (1, JOKER), (2, TWO)):
                if hand[c] and (k == 0 or wild[r] < CAP):
                    h, n, w = list(hand), list(nat), list(wild)
                    h[c] -= 1
                    if k == 0:
                        n[r] += 1
                    else:
                        w[r] += 1
                    yield actions.ADD_TO_MELD + 3 * i + k, h, n, w, CARD_POINTS[c]
        else:
            for k, (a, j, t) in enumerate(((3, 0, 0), (2, 1, 0), (2, 0, 1))):
                if hand[r] >= a and hand[JOKER] >= j and hand[TWO] >= t:
                    h, n, w = list(hand), list(nat), list(wild)
                    h[r] -= a
                    h[JOKER] -= j
                    h[TWO] -= t
                    n[r] += a
                    w[r] += j + t
                    yield (actions.START_MELD + 3 * i + k, h, n, w,
                           a * CARD_POINTS[r] + 50 * j + 20 * t)


def collected_ok(hand, nat, wild, tp, minimum, pending):
    """The minimum is met: the pile joins the hand; can the turn be finished?"""
    h = list(hand)
    for c in pending:
        if c != RED_THREE:
            h[c] += 1
    if not any(h):  # every card melded: going out
        return sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= SIZE) >= 1
    return bool(oracle_legal(h, nat, wild, False, minimum, tp, True, False, False))


def pickup_ok(hand, nat, wild, tp, minimum, pending):
    for _, h, n, w, p in meld_plays(hand, nat, wild):
        if tp + p >= minimum:
            if collected_ok(h, n, w, tp + p, minimum, pending):
                return True
        elif pickup_ok(h, n, w, tp + p, minimum, pending):
            return True
    return False


def oracle_pickup(g):
    team = g.current % 2
    hand = list(g.hands[g.current])
    wild = [a + b for a, b in zip(g.jok[team], g.two[team])]
    minimum, tp = g.minimum[team], g.turn_points
    out = []
    for a, h, n, w, p in meld_plays(hand, list(g.nat[team]), wild):
        if tp + p >= minimum:
            ok = collected_ok(h, n, w, tp + p, minimum, g.pending)
        else:
            ok = pickup_ok(h, n, w, tp + p, minimum, g.pending)
        if ok:
            out.append(a)
    return sorted(out)


def oracle_takes(g):
    seat, team = g.current, g.current % 2
    hand = list(g.hands[seat])
    nat = list(g.nat[team])
    wild = [a + b for a, b in zip(g.jok[team], g.two[team])]
    top = g.pile[-1]
    if top in (JOKER, TWO, BLACK_THREE) or (sum(hand) == 1 and len(g.pile) == 1):
        return []
    frozen = g.pile_frozen or not g.opened[team]
    minimum = g.minimum[team]
    out = []
    for kind, (n, j, t) in ((actions.TAKE_PAIR, (2, 0, 0)), (actions.TAKE_NAT_JOKER, (1, 1, 0)),
                            (actions.TAKE_NAT_TWO, (1, 0, 1)), (actions.TAKE_ONTO_MELD, (0, 0, 0))):
        if kind != actions.TAKE_PAIR and frozen:
            continue
        if hand[top] < n or hand[JOKER] < j or hand[TWO] < t:
            continue
        if kind == actions.TAKE_ONTO_MELD and not nat[top]:
            continue
        if (j or t) and wild[top] >= CAP:
            continue
        h, nn, ww = list(hand), list(nat), list(wild)
        h[top] -= n
        h[JOKER] -= j
        h[TWO] -= t
        nn[top] += n + 1
        ww[top] += j + t
        tp = (n + 1) * CARD_POINTS[top] + 50 * j + 20 * t
        if g.opened[team]:
            ok = collected_ok(h, nn, ww, 0, 0, g.pile[:-1])
        elif tp >= minimum:
            ok = collected_ok(h, nn, ww, tp, minimum, g.pile[:-1])
        else:
            ok = pickup_ok(h, nn, ww, tp, minimum, g.pile[:-1])
        if ok:
            out.append(kind)
    return out


def random_draw_position(rng: random.Random):
    """Seat 0 to draw, a pile of 1 to 6 cards whose top often matches the hand."""
    d = to_position(random_position(rng))
    hand = d["hands"][0]
    naturals = [c for c in hand if c not in ("Joker", "2", "black 3")]
    top = rng.choice(naturals) if naturals and rng.random() < 0.85 else \
        rng.choice(["4", "9", "K", "A"])
    below = [rng.choice(["5", "6", "7", "8", "10", "J", "Q", "b3"])
             for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 5]))]
    return build(hands=(" ".join("b3" if c == "black 3" else c for c in hand), "", "", ""),
                 melds=(d["melds"][0], {}), pile=" ".join(below + [top]),
                 scores=tuple(d["scores"]), opened=d["opened"])


def test_meld_phase_legality_matches_brute_force():
    rng = random.Random(2024)
    compared = 0
    nonempty_restricted = 0
    for _ in range(700):
        g = random_position(rng)
        # walk a random path through the turn, comparing at every decision
        while g.phase == Phase.MELD:
            eng = [a for a in g.legal_actions() if a != actions.ASK_PARTNER]
            want = oracle_legal(*engine_view(g))
            assert eng == want, (g.to_json(), [actions.describe(a) for a in eng],
                                 [actions.describe(a) for a in want])
            compared += 1
            if not g.opened[0] and eng and len(eng) < 3:
                nonempty_restricted += 1
            if not eng:
                break
            g.apply(rng.choice(eng))
    assert compared > 1000
    assert nonempty_restricted > 0


def test_takes_and_pickup_legality_match_brute_force():
    rng = random.Random(77)
    takes_compared = pickups_compared = 0
    for _ in range(1200):
        try:
            g = random_draw_position(rng)
        except ValueError:  # the random cards overflowed the pack
            continue
        eng = [a for a in g.legal_actions() if actions.TAKE_PAIR <= a <= actions.TAKE_ONTO_MELD]
        assert eng == oracle_takes(g), g.to_json()
        takes_compared += 1
        if not eng:
            continue
        g.apply(rng.choice(eng))
        while g.phase == Phase.PICKUP:
            legal = g.legal_actions()
            assert legal == oracle_pickup(g), g.to_json()
            pickups_compared += 1
            g.apply(rng.choice(legal))
    assert takes_compared > 800 and pickups_compared > 50


def test_pile_opening_that_goes_out_with_the_whole_hand():
    # engine bug found by the brute-force comparison: the minimum (120) needs every card
    # of the hand, so nothing is left to discard -- but the J meld becomes a canasta and
    # the player goes out; the take used to be refused
    g = build(hands=("2 2 2 J J J J J", "", "", ""), pile="J", scores=(3000, 0))
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.PICKUP
    assert legal_names(g) == ["add natural to J meld", "add 2 to J meld"]
    play(g, *["add natural to J meld"] * 3, "add 2 to J meld", "add 2 to J meld")
    assert g.turn_points == 100 and g.phase == Phase.PICKUP
    play(g, "add 2 to J meld")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0 and g.concealed is True
    assert (g.sheets[0].table, g.sheets[0].canasta_bonus, g.sheets[0].going_out) == \
        (120, 300, 200)


def test_pickup_with_one_pending_card_then_going_out():
    # minimum 50: K K + top K = 30, two more Ks collect the buried 9; the last two Ks
    # complete a canasta and the 9 is discarded to go out
    g = build(hands=("K K K K K K", "", "", ""), pile="9 K", scores=(0, 0))
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.PICKUP
    play(g, *["add natural to K meld"] * 3)
    assert g.phase == Phase.MELD and g.opened == [True, False]
    play(g, "add natural to K meld")
    # no asking: a "no" would leave the one-card hand nothing legal (docs/RULES.md §2.12)
    assert legal_names(g) == ["discard 9"]
    play(g, "discard 9")
    assert g.went_out == 0 and g.sheets[0].canasta_bonus == 500
