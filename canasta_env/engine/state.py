"""The state of a game and the queries every rule reads.

This module is the bottom of the engine: the rule modules (:mod:`.deal`, :mod:`.legality`,
:mod:`.feasibility` / :mod:`.exact`, :mod:`.transitions`, :mod:`.scoring`,
:mod:`.position`) import it and never each other's internals; :class:`~.game.Game` is the
public facade over it.

Conventions: seats 0..3 clockwise, partnership ``seat % 2`` (0 = partnership A: seats 0
and 2; 1 = partnership B: seats 1 and 3; rules document ``docs/RULES.md`` §2.1). Hands,
melds and red threes are count vectors over the 15 card classes of :mod:`.cards`; the
stock and the discard pile are lists of card classes, top card last.
"""

from __future__ import annotations

import enum

from . import actions as A
from .cards import JOKER, NUM_CLASSES, RED_THREE, TWO
from .exact import MeldRules
from .options import RulesOptions


class IllegalActionError(ValueError):
    """An action is not legal in the current position; the message names the action and
    the reason."""


class Phase(enum.IntEnum):
    """Where the turn stands (``docs/RULES.md`` §5). ``DRAW``: draw or take the pile.
    ``PICKUP``: the pile was taken for the opening and waits, set aside, until the opening
    minimum is met. ``MELD``: meld, ask partner, or discard. ``ANSWER``: the partner
    answers "may I go out?". ``HAND_OVER`` / ``GAME_OVER``: nothing to decide."""

    DRAW = 0
    PICKUP = 1
    MELD = 2
    ANSWER = 3
    HAND_OVER = 4
    GAME_OVER = 5


#: Asking partner, per turn (``docs/RULES.md`` §2.12): not asked, asked and answered yes,
#: asked and answered no.
NOT_ASKED, ASKED_YES, ASKED_NO = 0, 1, 2

#: The wild cards (``docs/RULES.md`` §1.2).
WILDS = (JOKER, TWO)


class State:
    """The whole state of a game: the data every rule reads and writes, and the queries
    derived from it. :class:`~.game.Game` adds the public API on top.

    The game: ``options`` (:class:`~.options.RulesOptions`), ``seed``, ``hand_number``
    (0-based), ``dealer`` (seat), ``scores`` (cumulative per partnership before this hand,
    points), ``history`` (score sheets of finished hands), ``winner`` (0 / 1, -1 a tie,
    ``None`` while running).

    The hand: ``phase`` (:class:`Phase`), ``current`` (seat whose turn it is), ``stock``
    and ``pile`` (card classes, top last), ``pile_frozen`` (frozen for all: a wild card or
    red 3 in it), ``hands`` / ``known`` / ``feet`` (per seat, count vectors: the hand, the
    cards known to the others from pile takes, the foot not yet picked up), ``in_foot``,
    ``red3`` (red 3s laid per seat), ``nat`` / ``jok`` / ``two`` (per partnership, open
    melds per rank: naturals, jokers, twos), ``books`` (closed books ``[rank, nat, jok,
    two]``, rank ``JOKER`` for a wild book), ``wild_meld`` (open wild-card meld: jokers,
    twos), ``opened`` / ``minimum`` (per partnership: opened this hand, opening minimum in
    points), ``seat_melded`` (per seat: laid cards in an earlier turn), ``went_out``,
    ``concealed``, ``sheets`` (this hand's score sheets once over), ``decisions``, ``log``.

    The turn (reset by :meth:`start_turn`): ``drew_stock``, ``turn_points`` (opening points
    laid this turn), ``laid``, ``added_old`` (added to a meld older than this turn),
    ``new_ranks`` (melds started this turn), ``pending`` (the pile set aside in
    ``PICKUP``), ``asked`` (:data:`NOT_ASKED` / :data:`ASKED_YES` / :data:`ASKED_NO`),
    ``must_out`` (black 3s melded: the player must go out), ``no_discard`` (a red 3 was the
    last stock card, ``red_three_last_card_may_meld``).
    """

    options: RulesOptions
    phase: Phase
    current: int

    def init_rules(self) -> None:
        """Derive the per-options constants: the action table (``table``,
        ``num_actions``), the exact-search meld rules (``meld_rules``) and whether turn
        feasibility uses the exact search (``exact``: Hand and Foot's rules)."""
        o = self.options
        self.table = A.table(o)
        self.num_actions = self.table.num_actions
        self.meld_rules = MeldRules.of(o)
        self.exact = o.exact_melds
        self._legal: list[int] | None = None

    def start_turn(self) -> None:
        """Reset the turn record for the seat :attr:`current` (``docs/RULES.md`` §2.7)."""
        self.drew_stock = False
        self.turn_points = 0
        self.laid = False
        self.added_old = False
        self.new_ranks: list[int] = []
        self.pending: list[int] = []
        self.asked = NOT_ASKED
        self.must_out = False
        self.no_discard = False
        self._legal = None

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
        included) of a partnership (``docs/RULES.md`` §2.4, §3.4)."""
        return sum(self.book_counts(team))

    def book_counts(self, team: int) -> tuple[int, int]:
        """(clean, dirty) canastas / books of a partnership, closed books included; a
        wild book counts as clean (``docs/RULES.md`` §2.4, §3.4)."""
        size = self.options.canasta_size
        n, j, t = self.nat[team], self.jok[team], self.two[team]
        clean = dirty = 0
        for r in range(NUM_CLASSES):
            if n[r] and n[r] + j[r] + t[r] >= size:
                if j[r] + t[r]:
                    dirty += 1
                else:
                    clean += 1
        c, d = self.closed_books(team)
        return clean + c, dirty + d

    def closed_books(self, team: int) -> tuple[int, int]:
        """(clean, dirty) closed books of a partnership (a wild book counts as clean;
        ``docs/RULES.md`` §3.4)."""
        clean = dirty = 0
        for r, _, bj, bt in self.books[team]:
            if r != JOKER and bj + bt:
                dirty += 1
            else:
                clean += 1
        return clean, dirty

    def foot_pending(self, seat: int) -> bool:
        """True while ``seat`` still has a foot to pick up (``docs/RULES.md`` §3.7)."""
        return self.options.foot_size > 0 and not self.in_foot[seat]

    def pile_frozen_for(self, team: int) -> bool:
        """Frozen against a partnership that has not opened, or for all while the pile
        holds a wild card or a red 3 (or a black 3 with ``black_three_freezes``;
        ``docs/RULES.md`` §2.9)."""
        return self.pile_frozen or not self.opened[team]

    def wild(self, team: int) -> list[int]:
        """Wild cards (jokers + twos) in each of a partnership's open melds, per rank."""
        j, t = self.jok[team], self.two[team]
        return [a + b for a, b in zip(j, t)]

    def wild_ok(self, n: int, w: int) -> bool:
        """May a meld with ``n`` naturals hold ``w`` wild cards? (``docs/RULES.md`` §2.3:
        at most ``max_wilds_per_meld``; §3.4: at most half the naturals.)"""
        o = self.options
        return w <= o.max_wilds_per_meld and (not o.wilds_at_most_half_naturals or 2 * w <= n)

    def card_counts(self) -> list[int]:
        """Every card of the game per card class (length 15): hands, feet, stock, pile,
        set-aside pile, red 3s laid, open melds, books and wild melds. Equal to the pack
        (:func:`.cards.deck_counts`) in every reachable state (card conservation)."""
        total = [0] * NUM_CLASSES
        for h in self.hands + self.feet:
            for c in range(NUM_CLASSES):
                total[c] += h[c]
        for c in self.stock + self.pile + self.pending:
            total[c] += 1
        total[RED_THREE] += sum(self.red3)
        for t in (0, 1):
            for r in range(NUM_CLASSES):
                total[r] += self.nat[t][r]
                total[JOKER] += self.jok[t][r]
                total[TWO] += self.two[t][r]
            total[JOKER] += self.wild_meld[t][0]
            total[TWO] += self.wild_meld[t][1]
            for r, n, j, w in self.books[t]:
                total[r] += n
                total[JOKER] += j
                total[TWO] += w
        return total

    def pile_rest(self) -> list[int]:
        """The cards a pile take brings besides the top card (bottom to top): the whole
        pile, or its top ``pile_take_limit`` cards (``docs/RULES.md`` §2.10, §3.6)."""
        k = self.options.pile_take_limit
        if not k:
            return self.pile[:-1]
        return self.pile[max(0, len(self.pile) - k):-1]
