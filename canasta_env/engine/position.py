"""The JSON position format: any reachable state, mid-turn included, saved and loaded.

:func:`to_position` writes a state as a JSON-serialisable dict (its docstring is the
format's reference); :func:`read_position` reads one into a blank state and checks it;
:func:`.game.from_position` is the public entry that builds a :class:`~.game.Game`.
:func:`position_json` and :func:`parse_position_json` convert to and from JSON text.
Rules source for the checks: ``docs/RULES.md`` §7 (what a loaded position must satisfy),
with the card and meld rules of §1-§3.
"""

from __future__ import annotations

import copy
import json
import operator

from . import limits as L
from .cards import (
    BLACK_THREE,
    CLASS_NAMES,
    JOKER,
    MELD_RANKS,
    NAME_TO_CLASS,
    NUM_CLASSES,
    RED_THREE,
    counts_to_names,
    deck_counts,
)
from .legality import legal_actions
from .options import OptionsError, RulesOptions
from .reachable import UnreachableError, check_reachable
from .scoring import ScoreSheet
from .state import ASKED_NO, ASKED_YES, NOT_ASKED, Phase, State
from .transitions import apply

POSITION_FORMAT = "canasta_env/position"
POSITION_VERSION = 1


class PositionError(ValueError):
    """A JSON position is malformed or inconsistent; the message says what is wrong."""


def _names(cards) -> list[str]:
    return [CLASS_NAMES[c] for c in cards]


def _classes(names, what: str) -> list[int]:
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
    return {CLASS_NAMES[r]: {"naturals": nat[r], "jokers": jok[r], "twos": two[r]}
            for r in range(NUM_CLASSES) if nat[r]}


def to_position(game: State) -> dict:
    """The whole state of ``game`` (a :class:`~.game.Game`) as a JSON-serialisable dict:
    the position format.

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
        "hands": [counts_to_names(h) for h in game.hands],
        "known": [counts_to_names(h) for h in game.known],
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
        "feet": [counts_to_names(f) for f in game.feet],
        "in_foot": list(game.in_foot),
        "books": [[{"rank": "wild" if b[0] == JOKER else CLASS_NAMES[b[0]], "naturals": b[1],
                    "jokers": b[2], "twos": b[3]} for b in game.books[t]] for t in (0, 1)],
        "wild_melds": [{"jokers": w[0], "twos": w[1]} for w in game.wild_meld],
    }


def written_position(game) -> dict:
    """:func:`to_position` of a game that may have been built or changed by hand (not by
    the reader): PositionError instead of whatever a field of the wrong type or shape
    raises while it is written. The loaders of a game object (``NativeGame.from_game``,
    ``PythonGame.from_game``) read this back with :func:`read_position`.

    Raises:
        PositionError: the game cannot be written as a position.
    """
    try:
        return to_position(game)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as e:
        raise PositionError(f"not a game the position format can hold: "
                            f"{type(e).__name__}: {e}"[:300]) from None


def read_position(g: State, pos: dict, check_moves: bool = True) -> State:
    """Fill the blank state ``g`` (made with ``Game.__new__``) from :func:`to_position`
    output, and check it; :func:`.game.from_position` is the public entry.

    Args:
        check_moves: also check that every legal action leads to a position with a legal
            action or to the end of the hand (catches hand-edited turn records that
            would dead-end one move later); :meth:`.game.Game.clone` skips it.

    Returns:
        ``g``.

    Raises:
        PositionError: missing or malformed fields (wrong JSON types included), unknown
            cards, cards that do not add up to the pack, a red 3 in a hand, numbers out
            of range, an impossible phase, seat or turn record.
    """
    try:
        _read(g, pos)
    except PositionError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError,
            RecursionError) as e:
        raise PositionError(f"malformed position: {type(e).__name__}: {e}") from None
    if check_moves and g.phase < Phase.HAND_OVER:
        log, history = g.log, g.history
        g.log, g.history = [], []  # the check copies the state, never the (long) logs
        try:
            base = copy.deepcopy(g)
        finally:
            g.log, g.history = log, history
        for a in legal_actions(g):
            h = copy.deepcopy(base)
            apply(h, a)
            if h.phase < Phase.HAND_OVER and not legal_actions(h):
                raise PositionError(
                    f"inconsistent turn record: action {a} ({g.table.describe(a)!r}) would "
                    f"leave seat {h.to_move} with no legal action in phase {h.phase.name}")
    return g


def check_shape(pos) -> None:
    """Refuse a position too deep or too large to read, in time and memory bounded by
    the limits (without recursion): nesting deeper than ``limits.POSITION_MAX_DEPTH``,
    more than ``limits.POSITION_MAX_NODES`` values, a string longer than
    ``limits.POSITION_MAX_STRING``, a float that is not finite, or a value that is not
    JSON (null, bool, int, float, str, list, dict with str keys).

    Raises:
        PositionError: naming the limit and where it was passed.
    """
    stack = [(pos, 1, "position")]
    nodes = 0
    while stack:
        v, depth, where = stack.pop()
        nodes += 1
        if nodes > L.POSITION_MAX_NODES:
            raise PositionError(f"position has more than {L.POSITION_MAX_NODES:,} values")
        if isinstance(v, dict):
            if depth >= L.POSITION_MAX_DEPTH and v:
                raise PositionError(f"{where} is nested deeper than {L.POSITION_MAX_DEPTH} levels")
            for k, x in v.items():
                if not isinstance(k, str) or len(k) > L.POSITION_MAX_STRING:
                    raise PositionError(f"{where} has a key that is not a short string: "
                                        f"{k!r}"[:200])
                if isinstance(x, (dict, list)):
                    stack.append((x, depth + 1, f"{where}.{k}"))
                else:
                    _check_scalar(x, f"{where}.{k}")
                    nodes += 1
        elif isinstance(v, list):
            if depth >= L.POSITION_MAX_DEPTH and v:
                raise PositionError(f"{where} is nested deeper than {L.POSITION_MAX_DEPTH} levels")
            if len(v) > L.POSITION_MAX_NODES:
                raise PositionError(f"{where} has {len(v):,} entries, more than "
                                    f"{L.POSITION_MAX_NODES:,}")
            for i, x in enumerate(v):
                if isinstance(x, (dict, list)):
                    stack.append((x, depth + 1, f"{where}[{i}]"))
                else:
                    _check_scalar(x, f"{where}[{i}]")
            nodes += len(v)
        else:
            _check_scalar(v, where)


def _check_scalar(x, where: str) -> None:
    if x is None or isinstance(x, (bool, int)):
        return
    if isinstance(x, str):
        if len(x) > L.POSITION_MAX_STRING:
            raise PositionError(f"{where}: a string of {len(x):,} characters (at most "
                                f"{L.POSITION_MAX_STRING})")
        return
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            raise PositionError(f"{where}: {x!r} is not a finite number")
        return
    raise PositionError(f"{where}: {type(x).__name__} is not a JSON value")


def _exact(v):
    """An int (an int subclass included) as the exact int it holds, anything else as it
    is: the checks below compare exact ints, never a subclass's own comparisons."""
    return operator.index(v) if isinstance(v, int) and not isinstance(v, bool) else v


def _bounded(what: str, v, lo: int, hi: int) -> int:
    """``v`` (as an exact int) if it is an int (not a bool) in ``lo..hi``, else
    PositionError."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise PositionError(f"{what} must be an int, got {v!r}"[:200])
    v = operator.index(v)
    if not lo <= v <= hi:
        raise PositionError(f"{what} must be in {lo:,}..{hi:,}, got {v:,}"[:200])
    return v


def _at_most(what: str, v: list, cap: int) -> list:
    if len(v) > cap:
        raise PositionError(f"{what} has {len(v):,} entries; at most {cap:,} fit")
    return v


def _read(g: State, pos: dict) -> None:
    if not isinstance(pos, dict):
        raise PositionError(f"a position must be a JSON object, got {type(pos).__name__}")
    check_shape(pos)
    if pos.get("format") != POSITION_FORMAT or pos.get("version") != POSITION_VERSION:
        raise PositionError(f"not a {POSITION_FORMAT} v{POSITION_VERSION} position "
                            f"(format={pos.get('format')!r}, version={pos.get('version')!r})")

    def get(key, typ):
        if key not in pos:
            raise PositionError(f"position is missing {key!r}")
        v = pos[key]
        if typ is not None and not isinstance(v, typ) or isinstance(v, bool) and typ is int:
            raise PositionError(f"position field {key!r} must be {typ}, got {v!r}")
        return _exact(v)

    try:
        opts = RulesOptions.from_dict(get("options", dict))
    except (OptionsError, TypeError) as e:
        raise PositionError(f"bad options: {e}") from None
    g.options = opts
    g.seed = get("seed", int)
    if g.seed.bit_length() > L.SEED_BITS_MAX:
        raise PositionError(f"seed has {g.seed.bit_length():,} bits; at most "
                            f"{L.SEED_BITS_MAX:,} (limits.SEED_BITS_MAX)")
    g.hand_number = _bounded("hand_number", get("hand_number", int), 0, L.MAX_HANDS - 1)
    g.dealer = get("dealer", int)
    scores = get("scores", list)
    if len(scores) != 2:
        raise PositionError(f"scores must be two ints, got {scores!r}"[:200])
    g.scores = [_bounded(f"scores[{t}]", x, -L.SCORE_LIMIT, L.SCORE_LIMIT)
                for t, x in enumerate(scores)]
    g.winner = _exact(pos.get("winner"))
    g.history = list(_at_most("history", get("history", list), L.HISTORY_MAX))
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

    g.hands = [_counts(_at_most(f"hands[{i}]", h, L.MAX_PACK), f"hands[{i}]")
               for i, h in enumerate(seats("hands"))]
    g.known = [_counts(_at_most(f"known[{i}]", h, L.MAX_PACK), f"known[{i}]")
               for i, h in enumerate(seats("known"))]
    g.red3 = seats("red_threes")
    if not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= L.MAX_PACK
               for x in g.red3):
        raise PositionError(f"red_threes must be 4 counts in 0..{L.MAX_PACK}, got "
                            f"{g.red3!r}"[:200])
    g.red3 = [_exact(x) for x in g.red3]
    g.stock = _classes(_at_most("stock", get("stock", list), L.CARD_CAPACITY), "stock")
    g.pile = _classes(_at_most("pile", get("pile", list), L.CARD_CAPACITY), "pile")
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
            if not isinstance(d, dict):
                raise PositionError(f"melds[{t}][{name!r}] needs naturals, jokers, twos")
            try:
                n, j, w = (_bounded(f"melds[{t}][{name!r}].{k}", d[k], 0, L.MAX_PACK)
                           for k in ("naturals", "jokers", "twos"))
            except KeyError:
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
    g.opened, g.minimum = list(g.opened), [_exact(x) for x in g.minimum]
    g.seat_melded = [bool(x) for x in seats("seat_melded")]
    turn = get("turn", dict)
    try:
        g.drew_stock = bool(turn["drew_stock"])
        g.turn_points = _bounded("turn.turn_points", turn["turn_points"], 0, 10**5)
        g.laid = bool(turn["laid"])
        g.added_old = bool(turn["added_old"])
        new_ranks = turn["new_ranks"]
        if not isinstance(new_ranks, list):
            raise PositionError("turn.new_ranks must be a list of rank names")
        g.new_ranks = _classes(_at_most("turn.new_ranks", new_ranks, L.NEW_RANKS_CAPACITY),
                               "turn.new_ranks")
        if len(set(g.new_ranks)) != len(g.new_ranks):
            raise PositionError(f"turn.new_ranks lists a rank twice: {new_ranks!r}")
        g.pending = _classes(_at_most("turn.pending", turn["pending"], L.CARD_CAPACITY)
                             if isinstance(turn["pending"], list) else turn["pending"],
                             "turn.pending")
        g.asked = _bounded("turn.asked", turn["asked"], 0, 2)
        g.must_out = bool(turn["must_out"])
        g.no_discard = bool(turn["no_discard"])
    except PositionError:
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise PositionError(f"bad turn record: {e!r}") from None
    g.went_out = _exact(pos.get("went_out"))
    if g.went_out is not None and (g.went_out not in range(4) or isinstance(g.went_out, bool)
                                   or g.phase < Phase.HAND_OVER):
        raise PositionError(f"went_out must be null while the hand runs, else a seat 0..3; "
                            f"got {g.went_out!r} in phase {g.phase.name}")
    g.concealed = pos.get("concealed", False)
    g.decisions = _exact(pos.get("decisions", 0))
    if not isinstance(g.concealed, bool) or not isinstance(g.decisions, int) or \
            isinstance(g.decisions, bool) or not 0 <= g.decisions <= L.DECISIONS_MAX:
        raise PositionError("concealed must be a bool and decisions an int in "
                            "0..1,000,000,000,000,000")
    if g.winner not in (None, -1, 0, 1) or isinstance(g.winner, bool):
        raise PositionError(f"winner must be null, -1 (tie), 0 or 1, got {g.winner!r}")
    if not all(isinstance(h, dict) for h in g.history):
        raise PositionError("history must be a list of objects (score sheets of past hands)")
    if any(not 0 <= m <= L.POINTS_MAX for m in g.minimum):
        raise PositionError(f"minimum must be within 0..{L.POINTS_MAX:,}, got {g.minimum!r}")
    sheets = pos.get("sheets")
    try:
        if sheets is not None and (not isinstance(sheets, list) or len(sheets) != 2):
            raise ValueError("sheets must be null or 2 score sheets")
        g.sheets = None if sheets is None else [
            ScoreSheet(**{k: _bounded(f"sheets[{t}].{k}", s[k],
                                      -L.SCORE_LIMIT if k == "previous" else -L.HAND_POINTS_LIMIT,
                                      L.SCORE_LIMIT if k == "previous" else L.HAND_POINTS_LIMIT)
                          for k in ("table", "canasta_bonus", "red_threes", "going_out",
                                    "hand_penalty", "previous")})
            for t, s in enumerate(sheets)]
    except (KeyError, TypeError, ValueError) as e:
        raise PositionError(f"bad score sheets (need table, canasta_bonus, red_threes, "
                            f"going_out, hand_penalty, previous): {e!r}") from None
    g.log = pos.get("log", [])
    if not isinstance(g.log, list) or not all(isinstance(e, dict) for e in g.log):
        raise PositionError("log must be a list of event objects")
    _at_most("log", g.log, L.LOG_MAX)
    g.log = list(g.log)
    _load_hand_and_foot(g, pos, opts)
    g.init_rules()
    # consistency: the cards add up to the pack
    total = g.card_counts()
    pack = deck_counts(opts.decks, opts.jokers)
    if total != pack:
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
    try:
        check_reachable(g)
    except UnreachableError as e:
        raise PositionError(f"unreachable position: {e}") from None
    if g.phase < Phase.HAND_OVER and not legal_actions(g):
        raise PositionError("the position leaves the player on turn with no legal action")


def _load_hand_and_foot(g: State, pos: dict, opts: RulesOptions) -> None:
    """The optional Hand and Foot fields of a position (feet, in_foot, books,
    wild_melds); defaults when absent."""
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
            if not isinstance(bl, list):
                raise PositionError(f"books[{t}] must be a list of books")
            if bl and not m:
                raise PositionError(f"books[{t}]: these rules have no closed books (no "
                                    f"max_meld_size)")
            _at_most(f"books[{t}]", bl, L.BOOK_CAPACITY)
            for b in bl:
                name = b["rank"]
                r = JOKER if name == "wild" else NAME_TO_CLASS.get(name)
                n, j, w = (_bounded(f"books[{t}].{k}", b[k], 0, m)
                           for k in ("naturals", "jokers", "twos"))
                if r is None or (r != JOKER and r not in MELD_RANKS) \
                        or (r == JOKER and n) or n + j + w != m:
                    raise PositionError(f"books[{t}]: not a book: {b!r}")
                g.books[t].append([r, n, j, w])
        wms = pos.get("wild_melds", [{"jokers": 0, "twos": 0}] * 2)
        if not isinstance(wms, list) or len(wms) != 2:
            raise PositionError("wild_melds must have 2 entries (one per partnership)")
        g.wild_meld = [[_bounded(f"wild_melds[{t}].{k}", x[k], 0, L.MAX_PACK)
                        for k in ("jokers", "twos")] for t, x in enumerate(wms)]
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


def position_json(game: State, indent: int | None = None) -> str:
    """:func:`to_position` as JSON text."""
    return json.dumps(to_position(game), indent=indent)


def parse_position_json(text) -> dict:
    """The position dict in JSON text (checked by :func:`read_position`, not here).

    Raises:
        PositionError: not text, or not valid JSON.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise PositionError(f"a JSON position must be text, got {type(text).__name__}")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError) as e:
        raise PositionError(f"position is not valid JSON: {e}") from None
