"""Could the rules have reached this state? The checks behind loading a position.

:func:`check_reachable` is run by :func:`.position.read_position` after the fields are
parsed and the cards are found to add up to the pack. Every field that follows from others
is checked against them, and every stored composition against the meld rules, so that a
position from a client (the bot service's stateless ``/move`` and ``/turn``) cannot load
a game no deal and sequence of legal actions could produce (``docs/RULES.md`` §7). The
checks are necessary conditions, one rule each, named in the message.
"""

from __future__ import annotations

from .cards import BLACK_THREE, CARD_POINTS, JOKER, MELD_RANKS, NUM_CLASSES, RED_THREE, TWO
from .state import NOT_ASKED, WILDS, Phase, State

_V = CARD_POINTS


class UnreachableError(ValueError):
    """The state breaks a rule no play could break; :mod:`.position` re-raises it as a
    ``PositionError``."""


def check_reachable(g: State) -> None:
    """Raise :class:`UnreachableError` naming the first rule the state ``g`` breaks."""
    _check_melds(g)
    _check_pile(g)
    _check_openings(g)
    _check_turn(g)
    _check_hands(g)
    _check_outcome(g)


def _meld_cards(g: State, team: int) -> int:
    """Cards a partnership has on the table: open melds, books and the wild meld."""
    return (sum(g.nat[team]) + sum(g.jok[team]) + sum(g.two[team])
            + sum(n + j + t for _, n, j, t in g.books[team]) + sum(g.wild_meld[team]))


def _check_melds(g: State) -> None:
    """Meld compositions (§2.3, §2.6, §3.4): black 3s only as a going-out meld of 3 to
    ``black_three_meld_max`` with no wild card, laid in the turn that goes out; books only
    under a ``max_meld_size`` rule, within the wild limits; a wild book only with wild
    melds."""
    o = g.options
    running = g.phase < Phase.HAND_OVER
    for t in (0, 1):
        n, j, w = g.nat[t][BLACK_THREE], g.jok[t][BLACK_THREE], g.two[t][BLACK_THREE]
        if n or j or w:
            if not o.black_three_melds:
                raise UnreachableError(f"melds[{t}] holds black 3s, which these rules never "
                                       f"meld (black_three_melds is false)")
            if j or w or not 3 <= n <= o.black_three_meld_max:
                raise UnreachableError(
                    f"melds[{t}]['black 3']: a black-3 meld is 3 to {o.black_three_meld_max} "
                    f"black 3s and no wild card, got {n} black 3s, {j} jokers, {w} twos")
            if running and not (g.must_out and g.current & 1 == t):
                raise UnreachableError(
                    f"melds[{t}] holds black 3s while the hand runs, but black 3s are melded "
                    f"only by a player going out this turn (turn.must_out)")
        for r in MELD_RANKS:
            if g.nat[t][r] and not g.wild_ok(g.nat[t][r], g.jok[t][r] + g.two[t][r]):
                raise UnreachableError(f"melds[{t}]: the {r} meld breaks the wild-card limit")
        for r, n, j, w in g.books[t]:
            if not o.max_meld_size:
                raise UnreachableError(f"books[{t}]: these rules have no closed books "
                                       f"(max_meld_size 0)")
            if r == JOKER:
                if not o.wild_melds:
                    raise UnreachableError(f"books[{t}]: a wild book needs the wild_melds rule")
            elif n < 2 or not g.wild_ok(n, j + w):
                raise UnreachableError(
                    f"books[{t}]: a book of {n} naturals, {j} jokers, {w} twos breaks the "
                    f"meld rules (at least 2 naturals, the wild-card limit)")


def _check_pile(g: State) -> None:
    """The pile's frozen flag follows from its cards (§2.9): frozen while it holds a wild
    card or a red 3; otherwise not frozen, except by a discarded black 3 under
    ``black_three_freezes`` (a black 3 upcard does not freeze it, so that case is only
    bounded: a frozen pile then holds a black 3)."""
    hard = any(c in WILDS or c == RED_THREE for c in g.pile)
    if hard and not g.pile_frozen:
        raise UnreachableError("pile_frozen is false but the pile holds a wild card or a red 3")
    if g.pile_frozen and not hard and not (g.options.black_three_freezes
                                           and BLACK_THREE in g.pile):
        raise UnreachableError("pile_frozen is true but the pile holds no wild card or red 3"
                               + (" (nor a black 3)" if g.options.black_three_freezes else ""))


def _check_openings(g: State) -> None:
    """Openings (§2.8, §3.2): the minimum follows from the score before the hand (or the
    round); a partnership with cards on the table has opened, except the one on turn while
    its opening is under way (every meld laid this turn, below the minimum); an opened
    partnership has cards on the table."""
    o = g.options
    running = g.phase < Phase.HAND_OVER
    if o.rounds and not 0 <= g.hand_number < o.rounds:
        raise UnreachableError(f"hand_number {g.hand_number} is outside these rules' "
                               f"{o.rounds} rounds (0..{o.rounds - 1})")
    for t in (0, 1):
        if running:
            want = o.minimum_for(g.scores[t], g.hand_number)
            if g.minimum[t] != want:
                raise UnreachableError(
                    f"minimum[{t}] is {g.minimum[t]}, but a partnership with {g.scores[t]} "
                    f"points in deal {g.hand_number} needs {want}")
        on_table = _meld_cards(g, t)
        if g.opened[t] and not on_table:
            raise UnreachableError(f"opened[{t}] is true but partnership {t} has no meld")
        if not g.opened[t] and on_table:
            under_way = (running and g.current & 1 == t and g.laid
                         and g.phase != Phase.DRAW
                         and all(r in g.new_ranks for r in range(NUM_CLASSES) if g.nat[t][r]))
            if not under_way:
                raise UnreachableError(
                    f"partnership {t} has melds but has not opened (only the partnership on "
                    f"turn may hold the melds of an opening under way)")
            laid = sum(g.nat[t][r] * _V[r] + g.jok[t][r] * _V[JOKER] + g.two[t][r] * _V[TWO]
                       for r in range(NUM_CLASSES)) + \
                sum(n * _V[r] + j * _V[JOKER] + w * _V[TWO] for r, n, j, w in g.books[t]) + \
                g.wild_meld[t][0] * _V[JOKER] + g.wild_meld[t][1] * _V[TWO]
            if g.turn_points != laid or laid >= g.minimum[t]:
                raise UnreachableError(
                    f"an opening under way: turn.turn_points ({g.turn_points}) must equal the "
                    f"points on the table ({laid}) and stay below the minimum ({g.minimum[t]})")
    for s in range(4):
        if g.seat_melded[s] and not _meld_cards(g, s & 1):
            raise UnreachableError(f"seat_melded[{s}] is true but partnership {s & 1} has "
                                   f"no meld")


def _check_turn(g: State) -> None:
    """The turn record (§2.7, §2.10, §2.12, §2.14): nothing happened yet in phase ``DRAW``;
    a pile set aside only in ``PICKUP``; melds started this turn exist; black 3s melded
    (``must_out``) and the red-3 stop (``no_discard``) only where they can arise."""
    if g.phase >= Phase.HAND_OVER:
        return
    o = g.options
    team = g.current & 1
    if g.phase == Phase.DRAW:
        if g.drew_stock or g.laid or g.turn_points or g.new_ranks or g.pending or \
                g.asked != NOT_ASKED or g.must_out or g.no_discard or g.added_old:
            raise UnreachableError("phase DRAW needs an empty turn record (nothing drawn, "
                                   "laid, asked or set aside yet)")
        return
    if g.pending and g.phase != Phase.PICKUP:
        raise UnreachableError(f"turn.pending holds a set-aside pile outside phase PICKUP "
                               f"(phase {g.phase.name})")
    if g.phase == Phase.PICKUP and (g.drew_stock or g.opened[team]):
        raise UnreachableError("phase PICKUP follows a pile take by an unopened partnership")
    if g.phase == Phase.PICKUP and g.asked != NOT_ASKED:
        raise UnreachableError("phase PICKUP: the player cannot have asked partner yet")
    for r in g.new_ranks:
        if not (g.nat[team][r] or any(b[0] == r for b in g.books[team])):
            raise UnreachableError(f"turn.new_ranks lists a meld partnership {team} does "
                                   f"not hold")
    if (g.added_old or g.new_ranks or g.turn_points) and not g.laid:
        raise UnreachableError("the turn record shows melds laid but turn.laid is false")
    if g.must_out and not g.nat[team][BLACK_THREE]:
        raise UnreachableError("turn.must_out is set but partnership on turn melded no "
                               "black 3s")
    if g.no_discard and (not o.red_three_last_card_may_meld or g.stock or not g.drew_stock):
        raise UnreachableError("turn.no_discard arises only when the last stock card drawn "
                               "was a red 3 under red_three_last_card_may_meld")


def _check_hands(g: State) -> None:
    """The seat on turn holds cards while the hand runs (§2.11, §3.7): a hand melded or
    discarded out ends the hand or, with a foot still to pick up, is replaced by the foot
    at once (or at the start of the player's next turn). (Other seats' empty hands are
    not refused: test and teaching positions leave them out.)"""
    if g.phase < Phase.HAND_OVER and not any(g.hands[g.current]):
        raise UnreachableError(f"seat {g.current} is on turn with an empty hand")
    if g.options.foot_size:
        for s in range(4):
            if not g.in_foot[s] and not any(g.feet[s]):
                raise UnreachableError(f"seat {s} has no foot but is not playing its foot "
                                       f"(a foot leaves only by being picked up)")


def _check_outcome(g: State) -> None:
    """The outcome fields follow the phase (§2.11, §2.15, §2.16): score sheets once the hand
    is over, a winner exactly when the game is over, concealed only for a player who went
    out."""
    over = g.phase >= Phase.HAND_OVER
    if over != (g.sheets is not None):
        raise UnreachableError("sheets must be present exactly when the hand is over")
    if (g.phase == Phase.GAME_OVER) != (g.winner is not None):
        raise UnreachableError("winner must be set exactly when the game is over")
    if g.concealed and g.went_out is None:
        raise UnreachableError("concealed is true but nobody went out")
    if g.sheets is not None and [s.total for s in g.sheets] != list(g.scores):
        raise UnreachableError("the score sheets' totals must equal scores once the hand is "
                               "over")
