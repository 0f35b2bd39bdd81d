"""The Classic Canasta game state, legal actions and transitions.

A :class:`Game` is a whole game (hands to the target score); the current hand's state
lives in it. Seats 0..3 clockwise, partnership ``seat % 2`` (0 = team A: seats 0 and 2,
1 = team B: seats 1 and 3). A :class:`Phase` drives both :meth:`Game.legal_actions` and
:meth:`Game.apply`, each dispatching to one small function per phase.

Hands, melds and red threes are count vectors over card classes (:mod:`.cards`); the
stock and the discard pile are lists of card classes, top card last.

Rules source: ../shared/SPEC.md section 2 (pagat.com Classic Canasta, Hoyle options,
seeds/001 deal and opening minimums, seeds/002 scoring) and section 3 (Hand and Foot:
pagat.com, seeds/000). Hand and Foot is the same engine driven by rules options
(:func:`.options.hand_and_foot`): each player also holds a foot (``feet``, ``in_foot``),
melds close into ``books`` at ``max_meld_size`` cards, a partnership may hold one open
wild-card meld (``wild_meld``), and turn feasibility uses the exact search of
:mod:`.exact` instead of Classic's greedy formulas (:mod:`.feasibility`).
"""

from __future__ import annotations

import copy
import enum
import random
import secrets
from dataclasses import dataclass

from . import actions as A
from .cards import (
    BLACK_THREE,
    CARD_POINTS,
    DISCARDABLE,
    JOKER,
    MELD_RANKS,
    NUM_CLASSES,
    RED_THREE,
    TWO,
    deck_counts,
)
from .exact import MeldRules, can_meld_all, max_points, wild_meld_books
from .feasibility import best_points, can_go_out
from .options import RulesOptions, classic


class IllegalActionError(ValueError):
    """An action is not legal in the current position; the message names the action and
    the reason."""


class Phase(enum.IntEnum):
    """Where the turn stands. ``DRAW``: draw or take the pile. ``PICKUP``: the pile was
    taken for the opening and waits, set aside, until the opening minimum is met.
    ``MELD``: meld, ask partner, or discard. ``ANSWER``: the partner answers "may I go
    out?". ``HAND_OVER`` / ``GAME_OVER``: nothing to decide."""

    DRAW = 0
    PICKUP = 1
    MELD = 2
    ANSWER = 3
    HAND_OVER = 4
    GAME_OVER = 5


# asking partner, per turn
NOT_ASKED, ASKED_YES, ASKED_NO = 0, 1, 2

SHEET_ROWS = ("table", "canasta_bonus", "red_threes", "going_out", "hand_penalty",
              "hand_score", "previous", "total")
"""Score-sheet rows in the fixed order of seeds/002: table card values, canasta bonuses,
red threes, going out, cards remaining in hand (negative), hand score, previous total,
new running total."""

_V = CARD_POINTS
#: cards a Classic pile take uses from hand: (naturals, jokers, twos)
_TAKE_USE = {A.TAKE_PAIR: (2, 0, 0), A.TAKE_NAT_JOKER: (1, 1, 0), A.TAKE_NAT_TWO: (1, 0, 1),
             A.TAKE_ONTO_MELD: (0, 0, 0)}
_WILDS = (JOKER, TWO)


@dataclass(frozen=True)
class ScoreSheet:
    """One partnership's score for one hand (points), rows in seeds/002 order."""

    table: int
    canasta_bonus: int
    red_threes: int
    going_out: int
    hand_penalty: int
    previous: int

    @property
    def hand_score(self) -> int:
        return self.table + self.canasta_bonus + self.red_threes + self.going_out + \
            self.hand_penalty

    @property
    def total(self) -> int:
        return self.previous + self.hand_score

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in SHEET_ROWS}


def score_partnership(opts: RulesOptions, nat, jokers, twos, red_threes: int, melded: bool,
                      going_out: int, hand_cards, previous: int, books=(),
                      wild_meld=(0, 0)) -> ScoreSheet:
    """Score one partnership's hand (seeds/002 order).

    Args:
        nat, jokers, twos: open meld contents per card class (length-15 count vectors).
        red_threes: red threes the partnership exposed.
        melded: whether the partnership made any meld this hand (red 3 sign).
        going_out: 0, or the going-out bonus earned (100, or 200 concealed).
        hand_cards: iterable of the count vectors left in the partners' hands (and feet).
        previous: cumulative score before the hand.
        books: closed books ``(rank, naturals, jokers, twos)``, rank ``JOKER`` for a
            wild book (Hand and Foot).
        wild_meld: (jokers, twos) of the open wild-card meld (Hand and Foot).
    """
    table = 0
    bonus = 0
    for r in range(NUM_CLASSES):
        n = nat[r]
        if not n:
            continue
        w = jokers[r] + twos[r]
        table += n * _V[r] + jokers[r] * _V[JOKER] + twos[r] * _V[TWO]
        if n + w >= opts.canasta_size:
            bonus += opts.mixed_canasta_bonus if w else opts.natural_canasta_bonus
    for r, n, j, t in books:
        table += n * _V[r] + j * _V[JOKER] + t * _V[TWO]
        if r == JOKER:
            bonus += opts.wild_book_bonus
        else:
            bonus += opts.mixed_canasta_bonus if j + t else opts.natural_canasta_bonus
    table += wild_meld[0] * _V[JOKER] + wild_meld[1] * _V[TWO]
    if red_threes >= 2 * opts.decks:
        r3 = opts.red_three_all_bonus
    else:
        r3 = opts.red_three_bonus * red_threes
    if not melded and opts.red_three_negative_unmelded:
        r3 = -r3
    penalty = -sum(sum(n * v for n, v in zip(h, _V)) + h[RED_THREE] * opts.red_three_hand_penalty
                   for h in hand_cards)
    return ScoreSheet(table, bonus, r3, going_out, penalty, previous)


class Game:
    """A game of Classic Canasta to the target score (default 5,000), or of Hand and
    Foot (``options=preset("hand_and_foot")``: four rounds).

    Args:
        options: :class:`RulesOptions` (default: the ``classic`` preset).
        seed: int seed for every shuffle; ``None`` picks one at random. The same seed
            and options replay the same game given the same actions.
        scores: cumulative starting scores of the two partnerships (points).
        dealer: first dealer's seat; ``None`` draws it from the seed.
        first_round: index (0-based) of the first deal, for games of a fixed number of
            ``rounds`` (Hand and Foot: 0..3; the round sets the opening minimum); 0 for
            Classic.

    Raises:
        OptionsError: bad options.
    """

    def __init__(self, options: RulesOptions | None = None, seed: int | None = None,
                 scores: tuple[int, int] = (0, 0), dealer: int | None = None,
                 first_round: int = 0) -> None:
        self.options = options if options is not None else classic()
        self._init_rules()
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        self.seed = seed
        if len(scores) != 2 or not all(isinstance(s, int) for s in scores):
            raise ValueError(f"scores must be two ints, got {scores!r}")
        self.scores = [int(scores[0]), int(scores[1])]
        if dealer is None:
            dealer = random.Random(f"{seed}/dealer").randrange(4)
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        rounds = self.options.rounds
        if isinstance(first_round, bool) or not isinstance(first_round, int) or \
                not 0 <= first_round < max(rounds, 1):
            raise ValueError(f"first_round must be in 0..{max(rounds, 1) - 1} for these rules, "
                             f"got {first_round!r}")
        self.hand_number = first_round
        self.dealer = dealer
        self.history: list[dict] = []  # score sheets of finished hands
        self.winner: int | None = None  # 0 / 1 partnership, -1 tie, None while running
        self._deal()

    def _init_rules(self) -> None:
        """Derived per-options constants (the action table, the exact-search rules)."""
        o = self.options
        self.table = A.table(o)
        self.num_actions = self.table.num_actions
        self._rules = MeldRules.of(o)
        self._exact = o.exact_melds

    # ------------------------------------------------------------------ dealing
    def _deal(self) -> None:
        o = self.options
        pack = deck_counts(o.decks, o.jokers)
        cards = [c for c in range(NUM_CLASSES) for _ in range(pack[c])]
        rng = random.Random(f"{self.seed}/hand/{self.hand_number}")
        rng.shuffle(cards)
        self.stock: list[int] = cards  # top card = last element
        self.pile: list[int] = []
        self.hands = [[0] * NUM_CLASSES for _ in range(4)]
        self.known = [[0] * NUM_CLASSES for _ in range(4)]
        self.red3 = [0, 0, 0, 0]
        self.nat = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
        self.jok = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
        self.two = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
        self.opened = [False, False]
        self.minimum = [o.minimum_for(self.scores[0], self.hand_number),
                        o.minimum_for(self.scores[1], self.hand_number)]
        self.feet = [[0] * NUM_CLASSES for _ in range(4)]
        self.in_foot = [False] * 4
        self.books: list[list[list[int]]] = [[], []]  # closed books [rank, nat, jok, two]
        self.wild_meld = [[0, 0], [0, 0]]  # open wild-card meld: jokers, twos
        self.seat_melded = [False] * 4
        self.pile_frozen = False
        self.log: list[dict] = []
        self.went_out: int | None = None
        self.concealed = False
        self.sheets: list[ScoreSheet] | None = None
        self.decisions = 0
        first = (self.dealer + 1) % 4
        for i in range(o.hand_size * 4):
            self.hands[(first + i) % 4][self.stock.pop()] += 1
        for i in range(o.foot_size * 4):
            self.feet[(first + i) % 4][self.stock.pop()] += 1
        # upcard: turn cards until a natural that is not a red 3 shows
        while True:
            c = self.stock.pop()
            self.pile.append(c)
            if c in _WILDS or c == RED_THREE:
                self.pile_frozen = True
                continue
            break
        self.log.append({"event": "deal", "hand": self.hand_number, "dealer": self.dealer,
                         "upcards": list(self.pile)})
        for k in range(4):
            s = (first + k) % 4
            h = self.hands[s]
            while h[RED_THREE]:
                h[RED_THREE] -= 1
                self.red3[s] += 1
                self.log.append({"event": "red3", "seat": s})
                h[self.stock.pop()] += 1
        self.current = first
        self._start_turn()
        self.phase = Phase.DRAW

    def _start_turn(self) -> None:
        self.drew_stock = False
        self.turn_points = 0  # opening points laid this turn (card values)
        self.laid = False  # any card laid this turn
        self.added_old = False  # added to a meld that existed before this turn
        self.new_ranks: list[int] = []  # melds started this turn
        self.pending: list[int] = []  # pile set aside until the opening minimum is met
        self.asked = NOT_ASKED
        self.must_out = False  # black 3s melded: the player must go out
        self.no_discard = False  # red 3 was the last stock card (may-meld option)
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def to_move(self) -> int | None:
        """Seat whose decision it is (the partner in ``ANSWER``), ``None`` when the hand
        or game is over."""
        if self.phase == Phase.ANSWER:
            return (self.current + 2) % 4
        if self.phase >= Phase.HAND_OVER:
            return None
        return self.current

    @property
    def hand_over(self) -> bool:
        return self.phase >= Phase.HAND_OVER

    @property
    def game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def canastas(self, team: int) -> int:
        """Number of canastas / books (melds of ``canasta_size``+ cards, closed books
        included) of a partnership."""
        return sum(self.book_counts(team))

    def book_counts(self, team: int) -> tuple[int, int]:
        """(clean, dirty) canastas / books of a partnership, closed books included; a
        wild book counts as clean."""
        size = self.options.canasta_size
        n, j, t = self.nat[team], self.jok[team], self.two[team]
        clean = dirty = 0
        for r in range(NUM_CLASSES):
            if n[r] and n[r] + j[r] + t[r] >= size:
                if j[r] + t[r]:
                    dirty += 1
                else:
                    clean += 1
        c, d = self._closed_books(team)
        return clean + c, dirty + d

    def _closed_books(self, team: int) -> tuple[int, int]:
        """(clean, dirty) closed books of a partnership (a wild book counts as clean)."""
        clean = dirty = 0
        for r, _, bj, bt in self.books[team]:
            if r != JOKER and bj + bt:
                dirty += 1
            else:
                clean += 1
        return clean, dirty

    def foot_pending(self, seat: int) -> bool:
        """True while ``seat`` still has a foot to pick up."""
        return self.options.foot_size > 0 and not self.in_foot[seat]

    def pile_frozen_for(self, team: int) -> bool:
        """Frozen against a partnership that has not opened, or for all while the pile
        holds a wild card or a red 3 (or a black 3 with ``black_three_freezes``)."""
        return self.pile_frozen or not self.opened[team]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for the seat :attr:`to_move` (empty when the hand is
        over). Computed once per position and cached."""
        if self._legal is None:
            ph = self.phase
            if ph == Phase.DRAW:
                self._legal = self._legal_draw()
            elif ph == Phase.MELD or ph == Phase.PICKUP:
                self._legal = self._legal_meld()
            elif ph == Phase.ANSWER:
                self._legal = self._legal_answer()
            else:
                self._legal = []
        return self._legal

    # ------------------------------------------------------------------ feasibility
    def _feasible(self, hand, nat, wild, tp: int, laid: bool, pending: list[int] | None,
                  must_out: bool, asked: int, drew_stock: bool, wm: int | None = None) -> bool:
        """Can the current player's turn be completed from this (hypothetical) state?
        ``pending``: in phase PICKUP, the pile cards (red 3s excluded) set aside;
        ``wm``: cards in the open wild meld (exact rules only; None: as on the table)."""
        if self._exact:
            return self._feasible_exact(hand, nat, wild, tp, laid, pending, must_out, asked,
                                        drew_stock, wm)
        o = self.options
        team = self.current & 1
        cap = o.max_wilds_per_meld
        minimum = self.minimum[team]
        opened = self.opened[team] or (laid and tp >= minimum)
        need = 0 if opened else minimum - tp
        if pending is not None:
            full = list(hand)
            for c in pending:
                full[c] += 1
            if opened:  # the minimum is met: the pile joins the hand at once
                return self._feasible(full, nat, wild, tp, True, None, False, NOT_ASKED, False)
            # keep 2 cards (counting the pile) after the minimum is met ...
            if best_points(hand, nat, wild, cap, max(0, 2 - len(pending))) >= need:
                return True
            # ... or else the minimum takes (nearly) every card in hand and only going out
            # can finish the turn: rare, so check a necessary condition, then search
            if len(pending) >= 2:
                return False
            have = sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= o.canasta_size)
            if not can_go_out(full, nat, wild, cap, o.canasta_size, have,
                              o.canastas_to_go_out, 0):
                return False
            return self._pickup_search(list(hand), list(nat), list(wild), tp, pending, set())
        size = sum(hand)
        if not must_out and asked != ASKED_YES:
            keep = 1 if self.no_discard else 2
            if size >= keep and (opened or not laid or
                                 best_points(hand, nat, wild, cap, keep) >= need):
                return True
        if self.no_discard or asked == ASKED_NO:
            return False
        # going out needs a "yes" first when asking is required; once committed to going
        # out (black 3s melded) the player can no longer ask
        if o.ask_partner_required and asked != ASKED_YES and (size == 0 or must_out):
            return False
        have = 0
        csize = o.canasta_size
        for r in MELD_RANKS:
            if nat[r] and nat[r] + wild[r] >= csize:
                have += 1
        if size == 0:
            return have >= o.canastas_to_go_out and (opened or drew_stock)
        # going out concealed after a stock draw needs no opening minimum
        need_b = 0 if (opened or drew_stock) else need
        return can_go_out(hand, nat, wild, cap, csize, have, o.canastas_to_go_out, need_b,
                          black_three_melds=o.black_three_melds,
                          black_three_max=o.black_three_meld_max)

    def _pickup_search(self, hand, nat, wild, tp: int, pending: list[int], seen: set) -> bool:
        """Phase PICKUP: can melds from ``hand`` reach the opening minimum so that, with
        the ``pending`` cards collected, the turn can be finished? Exhaustive search over
        the melds (used only when the hand cannot keep cards back, see :meth:`_feasible`)."""
        key = (tuple(hand), tuple(nat), tuple(wild))
        if key in seen:
            return False
        seen.add(key)
        cap = self.options.max_wilds_per_meld
        minimum = self.minimum[self.current & 1]
        for r in MELD_RANKS:
            if nat[r]:  # add one card: a natural, or a wild card while there is room
                plays = [(1, None)] + [(0, w) for w in _WILDS if wild[r] < cap]
            else:  # start a meld: three naturals, or two naturals and a wild card
                plays = [(3, None)] + [(2, w) for w in _WILDS if cap > 0]
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
                    ok = self._feasible(hand, nat, wild, tp + pts, True, pending, False,
                                        NOT_ASKED, False)
                else:
                    ok = self._pickup_search(hand, nat, wild, tp + pts, pending, seen)
                hand[r] += n_nat
                nat[r] -= n_nat
                if w is not None:
                    hand[w] += 1
                    wild[r] -= 1
                if ok:
                    return True
        return False

    # ------------------------------------------------------------------ exact feasibility
    def _close(self, team: int, nat, wild, wm: int, extra=(0, 0)) -> tuple[list, list, int,
                                                                            int, int]:
        """Copies of hypothetical open melds with those at ``max_meld_size`` closed:
        (nat, wild, wild meld size, clean books, dirty books), books on the table and
        ``extra`` (clean, dirty) books closed earlier in a search included."""
        m = self.options.max_meld_size
        clean, dirty = self._closed_books(team)
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

    def _feasible_exact(self, hand, nat, wild, tp: int, laid: bool, pending, must_out: bool,
                        asked: int, drew_stock: bool, wm: int | None,
                        extra=(0, 0)) -> bool:
        """:meth:`_feasible` for the exact meld rules (Hand and Foot): the same
        questions answered with :func:`.exact.max_points` / :func:`.exact.can_meld_all`.
        A player who still has a foot may empty the hand (melding out picks the foot up
        at once, once the opening minimum is met; discarding the last card is allowed);
        only a player in the foot (or in a game without feet) may go out."""
        o = self.options
        seat = self.current
        team = seat & 1
        rules = self._rules
        if wm is None:
            wm = sum(self.wild_meld[team])
        nat, wild, wm, have_c, have_d = self._close(team, nat, wild, wm, extra)
        minimum = self.minimum[team]
        opened = self.opened[team] or (laid and tp >= minimum)
        need = 0 if opened else minimum - tp
        foot = self.foot_pending(seat)
        if pending is not None:
            full = list(hand)
            for c in pending:
                full[c] += 1
            if opened:
                extra = (have_c - self._closed_books(team)[0], have_d - self._closed_books(team)[1])
                return self._feasible_exact(full, nat, wild, tp, True, None, False, NOT_ASKED,
                                            False, wm, extra)
            keep = 0 if foot else max(0, 2 - len(pending))
            if max_points(hand, nat, wild, wm, rules, keep) >= need:
                return True
            if foot or len(pending) >= 2:
                return False
            extra = (have_c - self._closed_books(team)[0], have_d - self._closed_books(team)[1])
            return self._pickup_search_exact(list(hand), nat, wild, wm, tp, pending, extra,
                                             set())
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
            keep = 1 if self.no_discard else 2
            if size >= keep and (opened or not laid or
                                 max_points(hand, nat, wild, wm, rules, keep) >= need):
                return True
        if self.no_discard or asked == ASKED_NO:
            return False
        if o.ask_partner_required and asked != ASKED_YES and (size == 0 or must_out):
            return False
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
        b3 = o.black_three_melds
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

    def _meld_moves(self, hand, nat, wild, wm: int):
        """Every single meld action's effect on (hand, open melds, wild meld), for the
        exact searches: tuples (rank or -1 for the wild meld, naturals, jokers, twos)."""
        rules = self._rules
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

    def _pickup_search_exact(self, hand, nat, wild, wm: int, tp: int, pending, extra,
                             seen: set) -> bool:
        """Phase PICKUP under the exact rules, a player in the foot whose opening needs
        (nearly) the whole hand: can melds from ``hand`` reach the minimum so that the
        turn can still be finished (going out)? Exhaustive search over the meld actions."""
        key = (tuple(hand), tuple(nat), tuple(wild), wm, extra)
        if key in seen:
            return False
        seen.add(key)
        team = self.current & 1
        base = self._closed_books(team)
        minimum = self.minimum[team]
        for r, n, j, t in self._meld_moves(hand, nat, wild, wm):
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
            nat2, wild2, wm2, c, d = self._close(team, nat2, wild2, wm2, extra)
            extra2 = (c - base[0], d - base[1])
            if tp + pts >= minimum:
                ok = self._feasible_exact(h2, nat2, wild2, tp + pts, True, pending, False,
                                          NOT_ASKED, False, wm2, extra2)
            else:
                ok = self._pickup_search_exact(h2, nat2, wild2, wm2, tp + pts, pending, extra2,
                                               seen)
            if ok:
                return True
        return False

    def _wild(self, team: int) -> list[int]:
        j, t = self.jok[team], self.two[team]
        return [a + b for a, b in zip(j, t)]

    # ------------------------------------------------------------------ legal: draw
    def _legal_draw(self) -> list[int]:
        seat = self.current
        team = seat & 1
        legal: list[int] = []
        if self.stock:
            legal.append(A.DRAW_STOCK)
        takes = self._legal_takes(seat)
        legal.extend(takes)
        if not self.stock:
            top = self.pile[-1] if self.pile else None
            forced = (bool(takes) and top is not None and not self.pile_frozen_for(team)
                      and self.nat[team][top] > 0)
            if not forced:
                legal.append(A.DECLINE_PILE)
        return sorted(legal)

    def _legal_takes(self, seat: int) -> list[int]:
        if not self.pile:
            return []
        top = self.pile[-1]
        o = self.options
        team = seat & 1
        hand = self.hands[seat]
        if top in _WILDS and o.pile_wild_pair:
            if hand[top] >= 2 and wild_meld_books(sum(self.wild_meld[team]), 3, self._rules) >= 0 \
                    and self._take_feasible(seat, top, 2, 0, 0, wild_pair=True):
                return [A.TAKE_WILD_PAIR]
            return []
        if top in _WILDS or top == BLACK_THREE or top == RED_THREE:
            return []
        if o.one_card_pile_restriction and sum(hand) == 1 and len(self.pile) == 1:
            return []
        frozen = self.pile_frozen_for(team)
        nat, wild = self.nat[team], self._wild(team)
        out = []
        m = o.max_meld_size
        for kind in (A.TAKE_PAIR, A.TAKE_NAT_JOKER, A.TAKE_NAT_TWO, A.TAKE_ONTO_MELD):
            if kind != A.TAKE_PAIR and (frozen or o.pile_pair_only):
                continue
            n, j, t = _TAKE_USE[kind]
            if hand[top] < n or hand[JOKER] < j or hand[TWO] < t:
                continue
            if kind == A.TAKE_ONTO_MELD and not nat[top]:
                continue
            if (j or t) and not self._wild_ok(nat[top] + n + 1, wild[top] + 1):
                continue
            if m and nat[top] + wild[top] + n + j + t + 1 > m:
                continue
            if self._take_feasible(seat, top, n, j, t):
                out.append(kind)
        return out

    def _wild_ok(self, n: int, w: int) -> bool:
        """May a meld with ``n`` naturals hold ``w`` wild cards?"""
        o = self.options
        return w <= o.max_wilds_per_meld and (not o.wilds_at_most_half_naturals or 2 * w <= n)

    def _pile_rest(self) -> list[int]:
        """The cards a pile take brings besides the top card (bottom to top): the whole
        pile, or its top ``pile_take_limit`` cards."""
        k = self.options.pile_take_limit
        if not k:
            return self.pile[:-1]
        return self.pile[max(0, len(self.pile) - k):-1]

    def _take_feasible(self, seat: int, top: int, n: int, j: int, t: int,
                       wild_pair: bool = False) -> bool:
        team = seat & 1
        hand = list(self.hands[seat])
        nat = list(self.nat[team])
        wild = self._wild(team)
        wm = sum(self.wild_meld[team])
        hand[top] -= n
        hand[JOKER] -= j
        hand[TWO] -= t
        if wild_pair:
            wm += n + 1
        else:
            nat[top] += n + 1
            wild[top] += j + t
        rest = self._pile_rest()
        tp = (n + 1) * _V[top] + j * _V[JOKER] + t * _V[TWO]
        if self.opened[team] or tp >= self.minimum[team]:
            for c in rest:
                if c != RED_THREE:
                    hand[c] += 1
            return self._feasible(hand, nat, wild, 0 if self.opened[team] else tp, True, None,
                                  False, NOT_ASKED, False, wm)
        pending = [c for c in rest if c != RED_THREE]
        return self._feasible(hand, nat, wild, tp, True, pending, False, NOT_ASKED, False, wm)

    # ------------------------------------------------------------------ legal: meld
    def _legal_meld(self) -> list[int]:
        o = self.options
        seat = self.current
        team = seat & 1
        hand = self.hands[seat]
        nat = self.nat[team]
        wild = self._wild(team)
        cap = o.max_wilds_per_meld
        pickup = self.phase == Phase.PICKUP
        pending = [c for c in self.pending if c != RED_THREE] if pickup else None
        minimum = self.minimum[team]
        opened = self.opened[team]
        size = sum(hand)
        legal: list[int] = []
        tp0 = self.turn_points
        feas = self._feasible
        free_ok = not self.must_out and self.asked != ASKED_YES and not pickup
        free_keep = 0 if self.foot_pending(seat) else 2

        def check(delta_pts: int, used: int, wm: int | None = None) -> bool:
            tp = tp0 + (0 if opened else delta_pts)
            if free_ok and size - used >= free_keep and (opened or tp >= minimum):
                return True
            return feas(hand, nat, wild, tp, True, pending, self.must_out, self.asked,
                        self.drew_stock, wm)

        nj, nt = hand[JOKER], hand[TWO]
        for i, r in enumerate(MELD_RANKS):
            n = hand[r]
            v = _V[r]
            if nat[r]:
                base = A.ADD_TO_MELD + 3 * i
                room = self._wild_ok(nat[r], wild[r] + 1)
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
            wm = sum(self.wild_meld[team])
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
        # black 3s: only as part of going out
        # (at most black_three_meld_max of them; one more can still be the discard)
        b3 = hand[BLACK_THREE]
        b3_meld = min(b3, o.black_three_meld_max)
        if o.black_three_melds and b3 >= 3 and \
                self.asked != ASKED_NO and not self.no_discard:
            hand[BLACK_THREE] = b3 - b3_meld
            if feas(hand, nat, wild, tp0 + (0 if opened else 5 * b3_meld), True, None, True,
                    self.asked, self.drew_stock):
                legal.append(A.MELD_BLACK_THREES)
            hand[BLACK_THREE] = b3
        if self.asked == NOT_ASKED and not self.no_discard and not self.must_out:
            if feas(hand, nat, wild, tp0, self.laid, None, True, ASKED_YES, self.drew_stock):
                legal.append(A.ASK_PARTNER)
        if self.no_discard:
            if opened or not self.laid:
                legal.append(A.FINISH_TURN)
            legal.sort()
            return legal
        # discards
        opening_ok = opened or not self.laid
        if size >= 2:
            if opening_ok and not self.must_out and self.asked != ASKED_YES:
                for c in DISCARDABLE:
                    if hand[c]:
                        legal.append(A.DISCARD_ACTION[c])
        elif size == 1 and self.foot_pending(seat):
            # discarding the last hand card: the foot is picked up next turn
            if opening_ok and not self.must_out and self.asked != ASKED_YES:
                for c in DISCARDABLE:
                    if hand[c]:
                        legal.append(A.DISCARD_ACTION[c])
        elif size == 1 and self._may_go_out_now(team):
            if opening_ok or self.drew_stock:
                for c in DISCARDABLE:
                    if hand[c]:
                        legal.append(A.DISCARD_ACTION[c])
        legal.sort()
        return legal

    def _may_go_out_now(self, team: int) -> bool:
        o = self.options
        if self.asked == ASKED_NO or self.no_discard:
            return False
        if o.ask_partner_required and self.asked != ASKED_YES:
            return False
        if self.foot_pending(self.current):
            return False
        clean, dirty = self.book_counts(team)
        return (clean + dirty >= o.canastas_to_go_out and clean >= o.clean_books_to_go_out
                and dirty >= o.dirty_books_to_go_out)

    def _legal_answer(self) -> list[int]:
        seat = self.current
        team = seat & 1
        hand = self.hands[seat]
        nat = self.nat[team]
        wild = self._wild(team)
        legal = [A.ANSWER_YES]  # ASK was listed only if going out is feasible
        if self._feasible(hand, nat, wild, self.turn_points, self.laid, None, self.must_out,
                          ASKED_NO, self.drew_stock):
            legal.append(A.ANSWER_NO)
        return legal

    # ------------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        """Apply a legal action for the seat :attr:`to_move`.

        Raises:
            IllegalActionError: the action is not legal here (message names the action
                and why).
        """
        if isinstance(action, bool):
            raise IllegalActionError(f"action must be an int id, got the bool {action!r}")
        if not isinstance(action, int):
            try:
                if int(action) != action:
                    raise ValueError
                action = int(action)
            except (TypeError, ValueError, OverflowError):
                raise IllegalActionError(f"action must be an int id, got {action!r}") from None
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action id {action} is outside 0..{self.num_actions - 1}")
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"illegal action {action} ({self.table.descriptions[action]!r}) for seat "
                f"{self.to_move} "
                f"in phase {self.phase.name}: {self._why_illegal(action)}")
        seat = self.to_move
        self.log.append({"seat": seat, "action": action})
        self.decisions += 1
        self._legal = None
        if self.phase == Phase.DRAW:
            self._apply_draw(action)
        elif self.phase == Phase.ANSWER:
            self.asked = ASKED_YES if action == A.ANSWER_YES else ASKED_NO
            self.phase = Phase.MELD
        else:
            self._apply_meld(action)

    def _why_illegal(self, action: int) -> str:
        ph = self.phase
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
        if action == A.DECLINE_PILE and self.stock:
            return "the pile may be declined only when the stock is empty"
        if A.TAKE_PAIR <= action <= A.TAKE_ONTO_MELD or action == A.TAKE_WILD_PAIR:
            return "the pile cannot be taken that way (stop card, wild on top, frozen, a " \
                   "natural pair needed, a full meld, or the cards are not in hand)"
        if action == A.ASK_PARTNER and self.foot_pending(self.current):
            return "only a player in the foot may ask to go out"
        if wild_meld:
            return "the wild cards are not in hand, the wild meld is full or already started " \
                   "(or not yet), or it would leave the turn impossible to complete"
        if A.DISCARD <= action < A.NUM_ACTIONS:
            if self.asked == ASKED_YES or self.must_out:
                return "the player must go out this turn"
            return "the card is not in hand, the opening minimum is not met, or the " \
                   "discard would empty the hand of a player who may not go out"
        return "the cards are not in hand, the meld rules forbid it, or it would leave " \
               "the turn impossible to complete (opening minimum, going out)"

    def _expose_red3(self, seat: int) -> None:
        self.red3[seat] += 1
        self.log.append({"event": "red3", "seat": seat})

    def _apply_draw(self, action: int) -> None:
        seat = self.current
        hand = self.hands[seat]
        if action == A.DRAW_STOCK:
            self.drew_stock = True
            for _ in range(self.options.draw_count):
                if not self.stock:
                    break
                while True:
                    c = self.stock.pop()
                    if c != RED_THREE:
                        hand[c] += 1
                        break
                    self._expose_red3(seat)
                    if not self.stock:
                        # red 3 as the last stock card: the hand ends (pagat)
                        if self.options.red_three_last_card_may_meld:
                            self.no_discard = True
                            self.phase = Phase.MELD
                            return
                        self._end_hand()
                        return
            self.phase = Phase.MELD
            return
        if action == A.DECLINE_PILE:
            self.log.append({"event": "declined", "seat": seat})
            self._end_hand()
            return
        team = seat & 1
        before = list(hand)
        rest = self._pile_rest()
        top = self.pile.pop()
        if action == A.TAKE_WILD_PAIR:
            n, j, t = 2, 0, 0
            hand[top] -= 2
            self._lay_wild(team, 3 if top == JOKER else 0, 3 if top == TWO else 0)
        else:
            n, j, t = _TAKE_USE[action]
            hand[top] -= n
            hand[JOKER] -= j
            hand[TWO] -= t
            self._lay(team, top, n + 1, j, t)
        self._forget_played(seat, before)
        self.laid = True
        if not self.opened[team]:
            self.turn_points += (n + 1) * _V[top] + j * _V[JOKER] + t * _V[TWO]
        self.pending = rest
        del self.pile[len(self.pile) - len(rest):]
        # what stays of the pile (pile_take_limit) keeps its frozen state
        self.pile_frozen = any(c in _WILDS or c == RED_THREE for c in self.pile)
        if self.opened[team] or self.turn_points >= self.minimum[team]:
            self._collect_pile()
            if not any(hand):
                # the take melded the last cards (a one-card pile): the player is out
                self._hand_emptied(seat)
        else:
            self.phase = Phase.PICKUP

    def _collect_pile(self) -> None:
        seat = self.current
        team = seat & 1
        self.opened[team] = True
        hand = self.hands[seat]
        known = self.known[seat]
        for c in self.pending:
            if c == RED_THREE:
                self._expose_red3(seat)  # not replaced
            else:
                hand[c] += 1
                known[c] += 1
        self.pending = []
        self.phase = Phase.MELD

    def _lay(self, team: int, rank: int, n: int, j: int, t: int) -> None:
        if not self.nat[team][rank]:
            self.new_ranks.append(rank)
        elif rank not in self.new_ranks:
            self.added_old = True
        nat, jok, two = self.nat[team], self.jok[team], self.two[team]
        nat[rank] += n
        jok[rank] += j
        two[rank] += t
        m = self.options.max_meld_size
        if m and nat[rank] + jok[rank] + two[rank] >= m:  # a closed book
            self.books[team].append([rank, nat[rank], jok[rank], two[rank]])
            self.log.append({"event": "book", "team": team, "rank": rank})
            nat[rank] = jok[rank] = two[rank] = 0

    def _lay_wild(self, team: int, j: int, t: int) -> None:
        wm = self.wild_meld[team]
        wm[0] += j
        wm[1] += t
        m = self.options.max_meld_size
        if m and wm[0] + wm[1] >= m:  # a wild book
            self.books[team].append([JOKER, 0, wm[0], wm[1]])
            self.log.append({"event": "book", "team": team, "rank": JOKER})
            wm[0] = wm[1] = 0

    def _take_foot(self, seat: int) -> None:
        """The foot becomes the hand; red 3s in it are laid and replaced."""
        hand, foot = self.hands[seat], self.feet[seat]
        for c in range(NUM_CLASSES):
            hand[c] += foot[c]
            foot[c] = 0
        self.in_foot[seat] = True
        self.log.append({"event": "foot", "seat": seat})
        while hand[RED_THREE]:
            hand[RED_THREE] -= 1
            self._expose_red3(seat)
            if self.stock:
                hand[self.stock.pop()] += 1

    def _hand_emptied(self, seat: int) -> None:
        """The hand was melded out: pick up the foot and play on, or go out."""
        if self.foot_pending(seat):
            self._take_foot(seat)
            self._legal = None
        else:
            self._go_out(seat)

    def _forget_played(self, seat: int, before: list[int]) -> None:
        """Public knowledge after ``seat`` played cards from hand (``before`` = the hand
        before): each card played of a class uses up one known card of that class, since
        the other players cannot tell a known card from a hidden one of the same class."""
        k = self.known[seat]
        if not any(k):  # the common case: nothing known about this hand
            return
        h = self.hands[seat]
        for c in range(NUM_CLASSES):
            played = before[c] - h[c]
            if played > 0 and k[c]:
                k[c] = max(0, k[c] - played)

    def _apply_meld(self, action: int) -> None:
        seat = self.current
        team = seat & 1
        hand = self.hands[seat]
        before = list(hand)
        if A.DISCARD <= action < A.NUM_ACTIONS:
            c = DISCARDABLE[action - A.DISCARD]
            hand[c] -= 1
            self._forget_played(seat, before)
            self.pile.append(c)
            if c in _WILDS or (c == BLACK_THREE and self.options.black_three_freezes):
                self.pile_frozen = True
            if not any(hand) and not self.foot_pending(seat):
                self._go_out(seat)
            else:
                if self.laid:
                    self.seat_melded[seat] = True
                nxt = (seat + 1) % 4
                self.current = nxt
                self._start_turn()
                self.phase = Phase.DRAW
                if self.foot_pending(nxt) and not any(self.hands[nxt]):
                    # the last hand card was discarded: the foot, at the next turn's start
                    self._take_foot(nxt)
            return
        if action == A.ASK_PARTNER:
            self.phase = Phase.ANSWER
            return
        if action == A.FINISH_TURN:
            self._end_hand()
            return
        if action >= A.START_WILD_MELD:
            if action < A.ADD_TO_WILD_MELD:
                j, t = A.WILD_START_KINDS[action - A.START_WILD_MELD]
            else:
                j, t = (1, 0) if action == A.ADD_TO_WILD_MELD else (0, 1)
            hand[JOKER] -= j
            hand[TWO] -= t
            self._lay_wild(team, j, t)
            pts = j * _V[JOKER] + t * _V[TWO]
        elif action == A.MELD_BLACK_THREES:
            b3 = min(hand[BLACK_THREE], self.options.black_three_meld_max)
            hand[BLACK_THREE] -= b3
            self._lay(team, BLACK_THREE, b3, 0, 0)
            pts = 5 * b3
            self.must_out = True
        elif action >= A.ADD_TO_MELD:
            i, k = divmod(action - A.ADD_TO_MELD, 3)
            r = MELD_RANKS[i]
            c = (r, JOKER, TWO)[k]
            hand[c] -= 1
            self._lay(team, r, int(k == 0), int(k == 1), int(k == 2))
            pts = _V[c]
        else:
            i, k = divmod(action - A.START_MELD, 3)
            r = MELD_RANKS[i]
            if k == 0:
                hand[r] -= 3
                self._lay(team, r, 3, 0, 0)
                pts = 3 * _V[r]
            else:
                w = JOKER if k == 1 else TWO
                hand[r] -= 2
                hand[w] -= 1
                self._lay(team, r, 2, int(k == 1), int(k == 2))
                pts = 2 * _V[r] + _V[w]
        self._forget_played(seat, before)
        self.laid = True
        if not self.opened[team]:
            self.turn_points += pts
            if self.turn_points >= self.minimum[team]:
                if self.phase == Phase.PICKUP:
                    self._collect_pile()
                else:
                    self.opened[team] = True
        if self.phase == Phase.MELD and not any(hand):
            self._hand_emptied(seat)

    def _go_out(self, seat: int) -> None:
        team = seat & 1
        o = self.options
        size = o.canasta_size
        # concealed: nothing laid before this turn by this player, nothing added to
        # melds from earlier turns, and a canasta among the melds started this turn
        self.opened[team] = True
        concealed = (not self.seat_melded[seat] and not self.added_old and any(
            self.nat[team][r] + self.jok[team][r] + self.two[team][r] >= size
            for r in self.new_ranks))
        self.went_out = seat
        self.concealed = concealed
        self.seat_melded[seat] = True
        self.log.append({"event": "out", "seat": seat, "concealed": concealed})
        self._end_hand()

    # ------------------------------------------------------------------ scoring
    def _end_hand(self) -> None:
        o = self.options
        sheets = []
        for team in (0, 1):
            melded = any(self.nat[team]) or bool(self.books[team]) or any(self.wild_meld[team])
            bonus = 0
            if self.went_out is not None and self.went_out & 1 == team:
                bonus = o.concealed_going_out_bonus if self.concealed else o.going_out_bonus
            sheets.append(score_partnership(
                o, self.nat[team], self.jok[team], self.two[team],
                self.red3[team] + self.red3[team + 2], melded, bonus,
                (self.hands[team], self.hands[team + 2], self.feet[team], self.feet[team + 2]),
                self.scores[team], self.books[team], self.wild_meld[team]))
        self.sheets = sheets
        self.scores = [sheets[0].total, sheets[1].total]
        self.history.append({"hand": self.hand_number, "went_out": self.went_out,
                             "concealed": self.concealed,
                             "sheets": [s.as_dict() for s in sheets]})
        self.log.append({"event": "hand_over", "scores": list(self.scores)})
        self._legal = None
        if (self.hand_number + 1 >= o.rounds) if o.rounds else max(self.scores) >= o.target_score:
            a, b = self.scores
            self.winner = 0 if a > b else 1 if b > a else -1
            self.phase = Phase.GAME_OVER
        else:
            self.phase = Phase.HAND_OVER

    def to_json(self, indent: int | None = None) -> str:
        """This state in the JSON position format (see :func:`to_position`)."""
        return game_to_json(self, indent)

    @staticmethod
    def from_json(text: str) -> Game:
        """A game from the JSON position format.

        Raises:
            PositionError: malformed or inconsistent position.
        """
        return game_from_json(text)

    def clone(self) -> Game:
        """An independent copy of this state."""
        return from_position(to_position(self), check_moves=False)

    def next_hand(self) -> None:
        """Deal the next hand (the deal passes clockwise).

        Raises:
            RuntimeError: the hand is not over, or the game is over.
        """
        if self.phase != Phase.HAND_OVER:
            raise RuntimeError(f"next_hand() needs a finished hand; phase is {self.phase.name}")
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % 4
        self._deal()


# ---------------------------------------------------------------------- positions
POSITION_FORMAT = "canasta_env/position"
POSITION_VERSION = 1


class PositionError(ValueError):
    """A JSON position is malformed or inconsistent; the message says what is wrong."""


def _names(cards) -> list[str]:
    from .cards import CLASS_NAMES
    return [CLASS_NAMES[c] for c in cards]


def _classes(names, what: str) -> list[int]:
    from .cards import NAME_TO_CLASS
    if not isinstance(names, list):
        raise PositionError(f"{what} must be a list of card names, got {type(names).__name__}")
    out = []
    for n in names:
        if n not in NAME_TO_CLASS:
            raise PositionError(f"{what}: unknown card {n!r}")
        out.append(NAME_TO_CLASS[n])
    return out


def _counts(names, what: str) -> list[int]:
    v = [0] * NUM_CLASSES
    for c in _classes(names, what):
        v[c] += 1
    return v


def _melds_to_json(nat, jok, two) -> dict:
    from .cards import CLASS_NAMES
    return {CLASS_NAMES[r]: {"naturals": nat[r], "jokers": jok[r], "twos": two[r]}
            for r in range(NUM_CLASSES) if nat[r]}


def to_position(game: Game) -> dict:
    """The whole state of ``game`` as a JSON-serialisable dict (the position format).

    Layout (card lists use the names of :data:`cards.CLASS_NAMES`; lists of the stock
    and pile have the top card last; per-seat lists are indexed by seat 0..3 and
    per-partnership lists by partnership 0 (seats 0+2) and 1 (seats 1+3)):

    ``format``, ``version``; ``options`` (every rules option); ``seed``,
    ``hand_number``, ``dealer``, ``scores`` (cumulative before this hand), ``winner``,
    ``history`` (score sheets of finished hands); ``phase`` (a :class:`Phase` name),
    ``current`` (seat whose turn it is); ``hands``, ``known`` (cards each seat is known
    to hold from pile pickups), ``red_threes`` (count per seat), ``stock``, ``pile``,
    ``pile_frozen``; ``melds`` (per partnership: rank -> naturals / jokers / twos);
    ``opened``, ``minimum`` (opening minimum per partnership, points),
    ``seat_melded``; ``turn`` (drew_stock, turn_points, laid, added_old, new_ranks,
    pending, asked, must_out, no_discard); ``went_out``, ``concealed``, ``decisions``,
    ``sheets`` (this hand's score sheets once it is over), ``log`` (event log);
    Hand and Foot: ``feet`` (per seat, the foot not yet picked up), ``in_foot`` (per
    seat), ``books`` (per partnership, closed books: rank name or ``"wild"``,
    naturals, jokers, twos), ``wild_melds`` (per partnership, the open wild meld:
    jokers, twos). These four are optional on load (Classic positions without them).
    """
    from .cards import CLASS_NAMES
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "options": game.options.to_dict(),
        "seed": game.seed,
        "hand_number": game.hand_number,
        "dealer": game.dealer,
        "scores": list(game.scores),
        "winner": game.winner,
        "history": [dict(h) for h in game.history],
        "phase": game.phase.name,
        "current": game.current,
        "hands": [_names_from_counts(h) for h in game.hands],
        "known": [_names_from_counts(h) for h in game.known],
        "red_threes": list(game.red3),
        "stock": _names(game.stock),
        "pile": _names(game.pile),
        "pile_frozen": game.pile_frozen,
        "melds": [_melds_to_json(game.nat[t], game.jok[t], game.two[t]) for t in (0, 1)],
        "opened": list(game.opened),
        "minimum": list(game.minimum),
        "seat_melded": list(game.seat_melded),
        "turn": {
            "drew_stock": game.drew_stock,
            "turn_points": game.turn_points,
            "laid": game.laid,
            "added_old": game.added_old,
            "new_ranks": [CLASS_NAMES[r] for r in game.new_ranks],
            "pending": _names(game.pending),
            "asked": game.asked,
            "must_out": game.must_out,
            "no_discard": game.no_discard,
        },
        "went_out": game.went_out,
        "concealed": game.concealed,
        "decisions": game.decisions,
        "sheets": None if game.sheets is None else [s.as_dict() for s in game.sheets],
        "log": [dict(e) for e in game.log],
        "feet": [_names_from_counts(f) for f in game.feet],
        "in_foot": list(game.in_foot),
        "books": [[{"rank": "wild" if b[0] == JOKER else CLASS_NAMES[b[0]], "naturals": b[1],
                    "jokers": b[2], "twos": b[3]} for b in game.books[t]] for t in (0, 1)],
        "wild_melds": [{"jokers": w[0], "twos": w[1]} for w in game.wild_meld],
    }


def _names_from_counts(counts) -> list[str]:
    from .cards import counts_to_names
    return counts_to_names(counts)


def from_position(pos: dict, check_moves: bool = True) -> Game:
    """Rebuild a :class:`Game` from :func:`to_position` output.

    Args:
        check_moves: also check that every legal action leads to a position with a legal
            action or to the end of the hand (catches hand-edited turn records that
            would dead-end one move later); :meth:`Game.clone` skips it.

    Raises:
        PositionError: missing or malformed fields (wrong JSON types included), unknown
            cards, cards that do not add up to the pack, a red 3 in a hand, numbers out
            of range, an impossible phase, seat or turn record.
    """
    try:
        g = _from_position(pos)
    except PositionError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError,
            RecursionError) as e:
        raise PositionError(f"malformed position: {type(e).__name__}: {e}") from None
    if check_moves and g.phase < Phase.HAND_OVER:
        for a in g.legal_actions():
            h = copy.deepcopy(g)
            h.apply(a)
            if h.phase < Phase.HAND_OVER and not h.legal_actions():
                raise PositionError(
                    f"inconsistent turn record: action {a} ({g.table.describe(a)!r}) would "
                    f"leave seat {h.to_move} with no legal action in phase {h.phase.name}")
    return g


def _from_position(pos: dict) -> Game:
    from .cards import NAME_TO_CLASS
    from .options import OptionsError, RulesOptions
    if not isinstance(pos, dict):
        raise PositionError(f"a position must be a JSON object, got {type(pos).__name__}")
    if pos.get("format") != POSITION_FORMAT or pos.get("version") != POSITION_VERSION:
        raise PositionError(f"not a {POSITION_FORMAT} v{POSITION_VERSION} position "
                            f"(format={pos.get('format')!r}, version={pos.get('version')!r})")

    def get(key, typ):
        if key not in pos:
            raise PositionError(f"position is missing {key!r}")
        v = pos[key]
        if typ is not None and not isinstance(v, typ) or isinstance(v, bool) and typ is int:
            raise PositionError(f"position field {key!r} must be {typ}, got {v!r}")
        return v

    try:
        opts = RulesOptions.from_dict(get("options", dict))
    except (OptionsError, TypeError) as e:
        raise PositionError(f"bad options: {e}") from None
    g = Game.__new__(Game)
    g.options = opts
    g.seed = get("seed", int)
    g.hand_number = get("hand_number", int)
    g.dealer = get("dealer", int)
    scores = get("scores", list)
    if len(scores) != 2 or not all(isinstance(s, int) for s in scores):
        raise PositionError(f"scores must be two ints, got {scores!r}")
    g.scores = list(scores)
    g.winner = pos.get("winner")
    g.history = list(get("history", list))
    try:
        g.phase = Phase[get("phase", str)]
    except KeyError:
        raise PositionError(f"unknown phase {pos['phase']!r}; one of {[p.name for p in Phase]}") \
            from None
    g.current = get("current", int)
    if g.current not in range(4) or g.dealer not in range(4):
        raise PositionError("current and dealer must be seats 0..3")

    def seats(key):
        v = get(key, list)
        if len(v) != 4:
            raise PositionError(f"{key} must have 4 entries (one per seat)")
        return v

    g.hands = [_counts(h, f"hands[{i}]") for i, h in enumerate(seats("hands"))]
    g.known = [_counts(h, f"known[{i}]") for i, h in enumerate(seats("known"))]
    g.red3 = seats("red_threes")
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in g.red3):
        raise PositionError(f"red_threes must be 4 counts >= 0, got {g.red3!r}")
    g.red3 = list(g.red3)
    g.stock = _classes(get("stock", list), "stock")
    g.pile = _classes(get("pile", list), "pile")
    g.pile_frozen = bool(get("pile_frozen", bool))
    melds = get("melds", list)
    if len(melds) != 2:
        raise PositionError("melds must have 2 entries (one per partnership)")
    g.nat = [[0] * NUM_CLASSES for _ in range(2)]
    g.jok = [[0] * NUM_CLASSES for _ in range(2)]
    g.two = [[0] * NUM_CLASSES for _ in range(2)]
    for t, m in enumerate(melds):
        if not isinstance(m, dict):
            raise PositionError(f"melds[{t}] must be an object rank -> counts")
        for name, d in m.items():
            r = NAME_TO_CLASS.get(name)
            if r is None or (r not in MELD_RANKS and r != BLACK_THREE):
                raise PositionError(f"melds[{t}]: {name!r} is not a meld rank")
            try:
                n, j, w = int(d["naturals"]), int(d["jokers"]), int(d["twos"])
            except (KeyError, TypeError, ValueError):
                raise PositionError(f"melds[{t}][{name!r}] needs naturals, jokers, twos") \
                    from None
            bad_size = opts.max_meld_size and n + j + w >= opts.max_meld_size
            bad_half = opts.wilds_at_most_half_naturals and 2 * (j + w) > n
            if n < 2 or j < 0 or w < 0 or j + w > opts.max_wilds_per_meld or n + j + w < 3 \
                    or bad_size or bad_half:
                raise PositionError(f"melds[{t}][{name!r}] is not a legal meld: "
                                    f"{n} naturals, {j} jokers, {w} twos")
            g.nat[t][r], g.jok[t][r], g.two[t][r] = n, j, w
    g.opened = get("opened", list)
    g.minimum = get("minimum", list)
    if len(g.opened) != 2 or not all(isinstance(x, bool) for x in g.opened):
        raise PositionError(f"opened must be 2 bools (one per partnership), got {g.opened!r}")
    if len(g.minimum) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                      for x in g.minimum):
        raise PositionError(f"minimum must be 2 ints (one per partnership), got {g.minimum!r}")
    g.opened, g.minimum = list(g.opened), list(g.minimum)
    g.seat_melded = [bool(x) for x in seats("seat_melded")]
    turn = get("turn", dict)
    try:
        g.drew_stock = bool(turn["drew_stock"])
        g.turn_points = int(turn["turn_points"])
        g.laid = bool(turn["laid"])
        g.added_old = bool(turn["added_old"])
        g.new_ranks = [NAME_TO_CLASS[n] for n in turn["new_ranks"]]
        g.pending = _classes(turn["pending"], "turn.pending")
        g.asked = int(turn["asked"])
        g.must_out = bool(turn["must_out"])
        g.no_discard = bool(turn["no_discard"])
    except (KeyError, TypeError, ValueError) as e:
        raise PositionError(f"bad turn record: {e!r}") from None
    g.went_out = pos.get("went_out")
    if g.went_out is not None and (g.went_out not in range(4) or isinstance(g.went_out, bool)
                                   or g.phase < Phase.HAND_OVER):
        raise PositionError(f"went_out must be null while the hand runs, else a seat 0..3; "
                            f"got {g.went_out!r} in phase {g.phase.name}")
    g.concealed = pos.get("concealed", False)
    g.decisions = pos.get("decisions", 0)
    if not isinstance(g.concealed, bool) or not isinstance(g.decisions, int) or \
            isinstance(g.decisions, bool) or g.decisions < 0:
        raise PositionError("concealed must be a bool and decisions an int >= 0")
    if g.winner not in (None, -1, 0, 1) or isinstance(g.winner, bool):
        raise PositionError(f"winner must be null, -1 (tie), 0 or 1, got {g.winner!r}")
    if not all(isinstance(h, dict) for h in g.history):
        raise PositionError("history must be a list of objects (score sheets of past hands)")
    if any(abs(x) > 10**7 for x in g.scores) or g.hand_number < 0 or \
            any(not 0 <= m <= 10**5 for m in g.minimum) or not 0 <= g.turn_points <= 10**5:
        raise PositionError("scores must be within +-10,000,000 and hand_number, minimum "
                            "and turn_points within 0..100,000")
    sheets = pos.get("sheets")
    try:
        g.sheets = None if sheets is None else [
            ScoreSheet(**{k: int(s[k]) for k in ("table", "canasta_bonus", "red_threes",
                                                  "going_out", "hand_penalty", "previous")})
            for s in sheets]
    except (KeyError, TypeError, ValueError) as e:
        raise PositionError(f"bad score sheets (need table, canasta_bonus, red_threes, "
                            f"going_out, hand_penalty, previous): {e!r}") from None
    g.log = pos.get("log", [])
    if not isinstance(g.log, list) or not all(isinstance(e, dict) for e in g.log):
        raise PositionError("log must be a list of event objects")
    g.log = list(g.log)
    _load_hand_and_foot(g, pos, opts)
    g._init_rules()
    g._legal = None
    # consistency: the cards add up to the pack
    total = [0] * NUM_CLASSES
    for h in g.hands:
        for c in range(NUM_CLASSES):
            total[c] += h[c]
    for f in g.feet:
        for c in range(NUM_CLASSES):
            total[c] += f[c]
    for t in (0, 1):
        total[JOKER] += g.wild_meld[t][0]
        total[TWO] += g.wild_meld[t][1]
        for r, n, j, w in g.books[t]:
            total[r] += n
            total[JOKER] += j
            total[TWO] += w
    for c in g.stock + g.pile + g.pending:
        total[c] += 1
    total[RED_THREE] += sum(g.red3)
    for t in (0, 1):
        for r in range(NUM_CLASSES):
            total[r] += g.nat[t][r]
            total[JOKER] += g.jok[t][r]
            total[TWO] += g.two[t][r]
    pack = deck_counts(opts.decks, opts.jokers)
    if total != pack:
        from .cards import CLASS_NAMES
        diff = {CLASS_NAMES[c]: total[c] - pack[c] for c in range(NUM_CLASSES)
                if total[c] != pack[c]}
        raise PositionError(f"cards do not add up to the pack (extra +, missing -): {diff}")
    if any(h[RED_THREE] for h in g.hands):
        raise PositionError("a red 3 may never be held in a hand")
    for s in range(4):
        if any(k > h for k, h in zip(g.known[s], g.hands[s])):
            raise PositionError(f"known[{s}] lists cards seat {s} does not hold")
    if g.phase == Phase.PICKUP and not g.laid:
        raise PositionError("phase PICKUP needs the pile-take meld laid this turn")
    if g.phase < Phase.HAND_OVER and g.asked not in (NOT_ASKED, ASKED_YES, ASKED_NO):
        raise PositionError(f"turn.asked must be 0, 1 or 2, got {g.asked}")
    if g.phase < Phase.HAND_OVER and not g.legal_actions():
        raise PositionError("the position leaves the player on turn with no legal action")
    return g


def _load_hand_and_foot(g: Game, pos: dict, opts: RulesOptions) -> None:
    """The optional Hand and Foot fields of a position (feet, in_foot, books,
    wild_melds); defaults when absent."""
    from .cards import NAME_TO_CLASS
    try:
        feet = pos.get("feet", [[]] * 4)
        in_foot = pos.get("in_foot", [False] * 4)
        if not isinstance(feet, list) or len(feet) != 4 or not isinstance(in_foot, list) \
                or len(in_foot) != 4 or not all(isinstance(x, bool) for x in in_foot):
            raise PositionError("feet and in_foot must have 4 entries (one per seat)")
        g.feet = [_counts(f, f"feet[{i}]") for i, f in enumerate(feet)]
        g.in_foot = list(in_foot)
        g.books = [[], []]
        books = pos.get("books", [[], []])
        if not isinstance(books, list) or len(books) != 2:
            raise PositionError("books must have 2 entries (one per partnership)")
        m = opts.max_meld_size
        for t, bl in enumerate(books):
            for b in bl:
                name = b["rank"]
                r = JOKER if name == "wild" else NAME_TO_CLASS.get(name)
                n, j, w = int(b["naturals"]), int(b["jokers"]), int(b["twos"])
                if r is None or (r != JOKER and r not in MELD_RANKS) or min(n, j, w) < 0 \
                        or (r == JOKER and n) or (m and n + j + w != m):
                    raise PositionError(f"books[{t}]: not a book: {b!r}")
                g.books[t].append([r, n, j, w])
        wms = pos.get("wild_melds", [{"jokers": 0, "twos": 0}] * 2)
        if not isinstance(wms, list) or len(wms) != 2:
            raise PositionError("wild_melds must have 2 entries (one per partnership)")
        g.wild_meld = [[int(x["jokers"]), int(x["twos"])] for x in wms]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        if isinstance(e, PositionError):
            raise
        raise PositionError(f"bad Hand and Foot fields (feet, in_foot, books, wild_melds): "
                            f"{e!r}") from None
    for t in (0, 1):
        s = sum(g.wild_meld[t])
        if min(g.wild_meld[t]) < 0 or (s and (not opts.wild_melds or s < 3 or
                                               (m and s >= m))):
            raise PositionError(f"wild_melds[{t}] is not a legal open wild meld")
    if any(any(f) for f in g.feet) and not opts.foot_size:
        raise PositionError("feet hold cards but the rules have no foot (foot_size 0)")
    for s in range(4):
        if g.in_foot[s] and any(g.feet[s]):
            raise PositionError(f"seat {s} is in the foot but still has a foot")


def game_to_json(game: Game, indent: int | None = None) -> str:
    """:func:`to_position` as a JSON string."""
    import json
    return json.dumps(to_position(game), indent=indent)


def game_from_json(text: str) -> Game:
    """Inverse of :func:`game_to_json`.

    Raises:
        PositionError: not JSON, or a bad position.
    """
    import json
    if not isinstance(text, (str, bytes, bytearray)):
        raise PositionError(f"a JSON position must be text, got {type(text).__name__}")
    try:
        pos = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as e:
        raise PositionError(f"position is not valid JSON: {e}") from None
    return from_position(pos)

