# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The binding of the native core (canasta_env/native/core/*.c): thin by design.

:class:`NativeGame` is one game (load / save the JSON position through the Python
engine's own reader and writer, legal actions, apply, observation and mask);
:class:`VectorGames` steps a batch of games in one call, writing observations, masks,
rewards, seats on turn and done flags into numpy arrays it owns; :class:`NativeHeuristic`
(heuristic.pxi) is the heuristic policy from observations and masks. Validation (positions,
options, actions) happens here in Python before the C state is touched.
"""

from libc.stdint cimport uint8_t, int8_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

import copy as _copy
import operator as _operator
from dataclasses import fields as _dataclass_fields

import numpy as np

from ..engine import actions as A
from ..engine.cards import JOKER, NUM_CLASSES, CLASS_NAMES
from ..engine.game import Game, from_position as _py_from_position
from ..engine.legality import refusal as _refusal_of
from ..engine import limits as _L
from ..engine.options import OptionsError, RulesOptions, classic
from ..engine.position import to_position as _py_to_position, written_position as _written_position
from ..engine.scoring import ScoreSheet
from ..engine.state import IllegalActionError, Phase
from ..observation import SCALE_HAND_AND_FOOT, obs_size

cdef extern from "core/state.h":
    ctypedef long long cn_score
    enum: CN_OBSERVED_SCORE_LIMIT
    enum: CN_NC
    enum: CN_MAXCARDS
    enum: CN_MAXBOOKS
    enum: CN_MAXMINS
    enum: CN_MAXACTIONS
    enum: CN_MAXEVENTS
    # the fields of CN_OPTION_INTS are set through CN_OPTION_FIELDS (by name); only those
    # the binding reads are declared here
    ctypedef struct cn_options:
        int decks, jokers, rounds
        int n_opening
        cn_score opening_lo[32]
        int opening_min[32]
        int n_round_min
        int round_min[32]
        int exact, num_actions
    ctypedef struct cn_option_field:
        const char *name
        int offset
    const cn_option_field CN_OPTION_FIELDS[]
    const int CN_NUM_OPTION_FIELDS
    ctypedef struct cn_event:
        int8_t type, a, b
    ctypedef struct cn_state:
        cn_options o
        int hand_number, dealer, winner
        cn_score scores[2]
        int phase, current
        int hands[4][15]
        int known[4][15]
        int feet[4][15]
        int red3[4]
        int in_foot[4]
        int seat_melded[4]
        int nstock, npile, pile_frozen
        uint8_t stock[480]
        uint8_t pile[480]
        int nat[2][15]
        int jok[2][15]
        int two[2][15]
        int nbooks[2]
        uint8_t books[2][128][4]
        int wild_meld[2][2]
        int opened[2]
        int minimum[2]
        int went_out, concealed
        long long decisions
        int has_sheets
        cn_score sheets[2][6]
        int drew_stock, turn_points, laid, added_old, n_new_ranks
        int new_ranks[15]
        int npending
        uint8_t pending[480]
        int asked, must_out, no_discard
        int nevents
        cn_event events[128]
        uint64_t rng
    void cn_options_derive(cn_options *o) nogil
    void cn_new_game(cn_state *s, uint64_t seed, int dealer) nogil
    void cn_new_game_at(cn_state *s, uint64_t seed, int dealer, cn_score score0,
                        cn_score score1, int first_round) nogil
    int cn_next_hand(cn_state *s) nogil
    int cn_legal_actions(const cn_state *s, int *out) nogil
    void cn_apply(cn_state *s, int action) nogil
    int cn_obs_size(const cn_options *o) nogil
    void cn_encode(const cn_state *s, int seat, const float *scale, float *out) nogil
    int cn_to_move(const cn_state *s) nogil

# the C action ids and sizes must be Python's
assert (A.ADD_TO_MELD, A.MELD_BLACK_THREES, A.DISCARD, A.NUM_ACTIONS, A.START_WILD_MELD,
        A.ADD_TO_WILD_MELD, A.TAKE_WILD_PAIR, A.NUM_ACTIONS_HAND_AND_FOOT) == \
    (39, 72, 77, 91, 91, 95, 97, 98), "native action ids out of date"

# the C capacities must be canasta_env/engine/limits.py's (the one source of both)
assert (CN_NC, CN_MAXCARDS, CN_MAXBOOKS, CN_MAXMINS, CN_OBSERVED_SCORE_LIMIT) == \
    (NUM_CLASSES, _L.CARD_CAPACITY, _L.BOOK_CAPACITY, _L.MINIMUMS_CAPACITY,
     _L.OBSERVED_SCORE_LIMIT), "native capacities differ from canasta_env/engine/limits.py"
assert sizeof(cn_score) == 8 and _L.SCORE_LIMIT < 2**63, "native scores are not 64-bit"

cdef float[::1] _SCALE = np.ascontiguousarray(SCALE_HAND_AND_FOOT, dtype=np.float32)
assert _SCALE.shape[0] == 245, "native observation layout out of date"

_EV_RED3, _EV_DECLINED, _EV_BOOK, _EV_FOOT, _EV_OUT, _EV_HAND_OVER = 1, 2, 3, 4, 5, 6
_SHEET_KEYS = ("table", "canasta_bonus", "red_threes", "going_out", "hand_penalty", "previous")


def _option_fields():
    """(name, byte offset) of every int / bool field of cn_options (CN_OPTION_FIELDS)."""
    return [(CN_OPTION_FIELDS[i].name.decode(), CN_OPTION_FIELDS[i].offset)
            for i in range(CN_NUM_OPTION_FIELDS)]


_OPTION_FIELDS = _option_fields()
assert all(0 <= off <= <int>sizeof(cn_options) - <int>sizeof(int) for _, off in _OPTION_FIELDS)
_TABLES = {"variant", "opening_minimums", "round_minimums"}
# one list of fields in C (state.h CN_OPTION_INTS), checked against RulesOptions here
assert {n for n, _ in _OPTION_FIELDS} == \
    {f.name for f in _dataclass_fields(RulesOptions)} - _TABLES, \
    "cn_options (CN_OPTION_INTS in core/state.h) and RulesOptions have different fields"


cdef dict _CHECKED_OPTIONS = {}  # the bytes of a filled cn_options -> RulesOptions accepted them
_BOOL_OPTIONS = frozenset(f.name for f in _dataclass_fields(RulesOptions) if f.type in ("bool", bool))


cdef int _fill_options(cn_options *o, object opts) except -1:
    """Every RulesOptions field into the C struct: the int and bool fields by name through
    CN_OPTION_FIELDS, then the two tables (raises when a table is too long).

    The values the struct holds are then checked by RulesOptions itself (rebuilt from
    them): an options object is only trusted as far as its values, since a pickle, a
    subclass or ``object.__setattr__`` gives RulesOptions that its ``__post_init__``
    never saw (a deal of 50 decks would write past the 480-card stock). The check runs
    once per distinct struct (a cache keyed by its bytes).

    Raises:
        TypeError: not a RulesOptions, or a field of the wrong type.
        OptionsError: values RulesOptions refuses (ValueError when a table is too long).
    """
    if not isinstance(opts, RulesOptions):
        raise TypeError(f"options must be RulesOptions, got {type(opts).__name__}")
    _fits("opening_minimums", len(opts.opening_minimums), CN_MAXMINS)
    _fits("round_minimums", len(opts.round_minimums), CN_MAXMINS)
    memset(o, 0, sizeof(cn_options))  # padding and unused table entries: the cache key
    cdef char *base = <char *>o
    cdef int off
    try:
        for name, off in _OPTION_FIELDS:
            (<int *>(base + off))[0] = getattr(opts, name)
        o.n_opening = len(opts.opening_minimums)
        for i, (lo, m) in enumerate(opts.opening_minimums):
            o.opening_lo[i] = lo
            o.opening_min[i] = m
        o.n_round_min = len(opts.round_minimums)
        for i, m in enumerate(opts.round_minimums):
            o.round_min[i] = m
    except OverflowError:
        raise OptionsError(f"an option does not fit the native core: {opts!r}"[:300]) from None
    cn_options_derive(o)
    key = (<char *>o)[:sizeof(cn_options)]
    if key not in _CHECKED_OPTIONS:
        _check_struct_options(o)
        if len(_CHECKED_OPTIONS) >= 4096:
            _CHECKED_OPTIONS.clear()
        _CHECKED_OPTIONS[key] = True
    return 0


cdef _check_struct_options(const cn_options *o):
    """RulesOptions rebuilt from the values the C struct holds (its checks raise
    OptionsError), and the derived fields compared with it."""
    cdef const char *base = <const char *>o
    cdef int off, v
    values = {}
    for name, off in _OPTION_FIELDS:
        v = (<const int *>(base + off))[0]
        if name in _BOOL_OPTIONS:
            if v not in (0, 1):
                raise OptionsError(f"option {name} must be a bool, got {v}")
            values[name] = bool(v)
        else:
            values[name] = v
    values["opening_minimums"] = tuple((o.opening_lo[i], o.opening_min[i])
                                       for i in range(o.n_opening))
    values["round_minimums"] = tuple(o.round_min[i] for i in range(o.n_round_min))
    checked = RulesOptions(**values)
    if o.exact != int(checked.exact_melds):
        raise AssertionError("native exact_melds differs from RulesOptions.exact_melds")


#: the most games one VectorGames holds
MAX_GAMES = 1 << 24


cdef object _int_in(str name, object x, object lo, object hi):
    """``x`` as a Python int within ``lo..hi``, checked before any C conversion.

    Raises:
        TypeError: not an int (bools, floats and strings included).
        ValueError: outside ``lo..hi`` (the message names the argument and the bounds).
    """
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {x!r}"[:200])
    v = _operator.index(x)  # the exact int (an int subclass's __int__ is not trusted)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be in {lo:,}..{hi:,}, got {v:,}"[:200])
    return v


cdef object _contiguous(object a):
    """``a`` as a C-contiguous array (a copy only when it is not one already); read-only
    arrays are read through const views, so they need no copy."""
    if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
        return np.ascontiguousarray(a)
    return a


cdef inline int _fits(str what, Py_ssize_t n, Py_ssize_t cap) except -1:
    """Refuse (ValueError) a list of ``n`` entries bound for a C array of ``cap``."""
    if not 0 <= n <= cap:
        raise ValueError(f"{what} has {n:,} entries; the native core holds at most {cap:,}")
    return 0


cdef _check_capacities(object g):
    """Every length and range of the Python engine state ``g`` that a C array or integer
    of cn_state bounds, checked before :func:`_load_game` copies anything (the position
    reader refuses all of these already, canasta_env/engine/limits.py; this guard keeps
    the copy safe whatever the caller)."""
    for name in ("hands", "known", "feet", "red3", "in_foot", "seat_melded"):
        _fits(name, len(getattr(g, name)), 4)
    for name in ("hands", "known", "feet"):
        for row in getattr(g, name):
            _fits(name + "[seat]", len(row), CN_NC)
    for name in ("nat", "jok", "two", "books", "wild_meld", "opened", "minimum", "scores"):
        _fits(name, len(getattr(g, name)), 2)
    for t in range(2):
        for name in ("nat", "jok", "two"):
            _fits(name + "[partnership]", len(getattr(g, name)[t]), CN_NC)
        _fits("books[partnership]", len(g.books[t]), CN_MAXBOOKS)
        for b in g.books[t]:
            _fits("a book", len(b), 4)
            if not all(0 <= x <= 255 for x in b):
                raise ValueError(f"a book's entries must be in 0..255, got {b!r}")
        _fits("wild_meld[partnership]", len(g.wild_meld[t]), 2)
    _fits("stock", len(g.stock), CN_MAXCARDS)
    _fits("pile", len(g.pile), CN_MAXCARDS)
    _fits("pending", len(g.pending), CN_MAXCARDS)
    _fits("new_ranks", len(g.new_ranks), CN_NC)
    for name in ("stock", "pile", "pending", "new_ranks"):
        if not all(0 <= c < CN_NC for c in getattr(g, name)):
            raise ValueError(f"{name} holds a value that is not a card class 0..{CN_NC - 1}")
    if not all(-_L.SCORE_LIMIT <= x <= _L.SCORE_LIMIT for x in g.scores):
        raise ValueError(f"scores must be within +-{_L.SCORE_LIMIT:,}, got {g.scores!r}")
    if g.sheets is not None:
        _fits("sheets", len(g.sheets), 2)


cdef _load_game(cn_state *s, object g):
    """Copy a (validated) Python engine state into the C struct: every length is checked
    first (:func:`_check_capacities`), so no loop below can write past an array; an int
    too large for its C field raises ValueError before it is stored; then every value
    the C code indexes or counts with is checked as the struct holds it
    (:func:`_check_loaded`)."""
    _check_capacities(g)
    try:
        _copy_game(s, g)
    except OverflowError as e:
        raise ValueError(f"a field of the game does not fit the native core: {e}") from None
    _check_loaded(s)


cdef _check_loaded(const cn_state *s):
    """Refuse (ValueError) a loaded C state whose seats, phase, turn record or counts are
    out of range, or whose cards are not the pack (so every card array and count the core
    walks stays inside its bounds): the exact values C holds, whatever objects the Python
    state was made of (an int subclass's comparisons cannot pass a bad value here)."""
    cdef int c, t, i, k
    cdef long long total[15]
    cdef long long pack
    bad = None
    if not 0 <= s.current <= 3 or not 0 <= s.dealer <= 3:
        bad = f"current {s.current} and dealer {s.dealer} must be seats 0..3"
    elif not 0 <= s.phase <= 5:
        bad = f"phase {s.phase} is not a Phase"
    elif not -2 <= s.winner <= 1 or not -1 <= s.went_out <= 3 or not 0 <= s.asked <= 2:
        bad = f"winner {s.winner}, went_out {s.went_out} or turn.asked {s.asked} out of range"
    elif not 0 <= s.hand_number < _L.MAX_HANDS:
        bad = f"hand_number {s.hand_number} is outside 0..{_L.MAX_HANDS - 1:,}"
    elif not 0 <= s.turn_points <= _L.POINTS_MAX or not 0 <= s.decisions <= _L.DECISIONS_MAX:
        bad = f"turn.turn_points {s.turn_points} or decisions {s.decisions} out of range"
    for t in range(2):
        if not 0 <= s.minimum[t] <= _L.POINTS_MAX:
            bad = f"minimum[{t}] {s.minimum[t]} is outside 0..{_L.POINTS_MAX:,}"
        for k in range(6 if s.has_sheets else 0):
            lim = _L.SCORE_LIMIT if k == 5 else _L.HAND_POINTS_LIMIT
            if not -lim <= s.sheets[t][k] <= lim:
                bad = f"sheets[{t}].{_SHEET_KEYS[k]} {s.sheets[t][k]} is outside +-{lim:,}"
    if bad is not None:
        raise ValueError(f"the game does not fit the native core: {bad}")
    for c in range(CN_NC):
        total[c] = 0
    for i in range(4):
        if s.red3[i] < 0:
            raise ValueError(f"the game does not fit the native core: red_threes[{i}] < 0")
        total[3] += s.red3[i]
        for c in range(CN_NC):
            if s.hands[i][c] < 0 or s.feet[i][c] < 0 or s.known[i][c] < 0:
                raise ValueError(f"the game does not fit the native core: a negative card "
                                 f"count in seat {i}")
            total[c] += s.hands[i][c] + s.feet[i][c]
    for i in range(s.nstock):
        total[s.stock[i]] += 1
    for i in range(s.npile):
        total[s.pile[i]] += 1
    for i in range(s.npending):
        total[s.pending[i]] += 1
    for t in range(2):
        if s.wild_meld[t][0] < 0 or s.wild_meld[t][1] < 0:
            raise ValueError("the game does not fit the native core: a negative wild meld")
        total[0] += s.wild_meld[t][0]
        total[1] += s.wild_meld[t][1]
        for c in range(CN_NC):
            if s.nat[t][c] < 0 or s.jok[t][c] < 0 or s.two[t][c] < 0:
                raise ValueError("the game does not fit the native core: a negative meld count")
            total[c] += s.nat[t][c]
            total[0] += s.jok[t][c]
            total[1] += s.two[t][c]
        for i in range(s.nbooks[t]):
            if s.books[t][i][0] >= CN_NC:
                raise ValueError("the game does not fit the native core: a book's rank")
            total[s.books[t][i][0]] += s.books[t][i][1]
            total[0] += s.books[t][i][2]
            total[1] += s.books[t][i][3]
    for c in range(CN_NC):
        pack = s.o.jokers if c == 0 else (2 * s.o.decks if c == 2 or c == 3 else 4 * s.o.decks)
        if total[c] != pack:
            raise ValueError(f"the game does not fit the native core: {total[c]} cards of "
                             f"class {CLASS_NAMES[c]}, the pack holds {pack}")


cdef _copy_game(cn_state *s, object g):
    _fill_options(&s.o, g.options)
    s.hand_number = g.hand_number
    s.dealer = g.dealer
    s.winner = -2 if g.winner is None else g.winner
    s.scores[0], s.scores[1] = g.scores
    s.phase = int(g.phase)
    s.current = g.current
    for seat in range(4):
        for c in range(CN_NC):
            s.hands[seat][c] = g.hands[seat][c]
            s.known[seat][c] = g.known[seat][c]
            s.feet[seat][c] = g.feet[seat][c]
        s.red3[seat] = g.red3[seat]
        s.in_foot[seat] = bool(g.in_foot[seat])
        s.seat_melded[seat] = bool(g.seat_melded[seat])
    s.nstock = len(g.stock)
    for i, c in enumerate(g.stock):
        s.stock[i] = c
    s.npile = len(g.pile)
    for i, c in enumerate(g.pile):
        s.pile[i] = c
    s.pile_frozen = bool(g.pile_frozen)
    for t in range(2):
        for c in range(CN_NC):
            s.nat[t][c] = g.nat[t][c]
            s.jok[t][c] = g.jok[t][c]
            s.two[t][c] = g.two[t][c]
        s.nbooks[t] = len(g.books[t])
        for i, b in enumerate(g.books[t]):
            for k in range(4):
                s.books[t][i][k] = b[k]
        s.wild_meld[t][0], s.wild_meld[t][1] = g.wild_meld[t]
        s.opened[t] = bool(g.opened[t])
        s.minimum[t] = g.minimum[t]
    s.went_out = -1 if g.went_out is None else g.went_out
    s.concealed = bool(g.concealed)
    s.decisions = g.decisions
    s.has_sheets = g.sheets is not None
    if g.sheets is not None:
        for t in range(2):
            for k, key in enumerate(_SHEET_KEYS):
                s.sheets[t][k] = getattr(g.sheets[t], key)
    s.drew_stock = bool(g.drew_stock)
    s.turn_points = g.turn_points
    s.laid = bool(g.laid)
    s.added_old = bool(g.added_old)
    s.n_new_ranks = len(g.new_ranks)
    for i, r in enumerate(g.new_ranks):
        s.new_ranks[i] = r
    s.npending = len(g.pending)
    for i, c in enumerate(g.pending):
        s.pending[i] = c
    s.asked = g.asked
    s.must_out = bool(g.must_out)
    s.no_discard = bool(g.no_discard)
    s.nevents = 0


cdef object _mirror(const cn_state *s, object options, object seed, list history, list log):
    """A Python engine State holding the C state's fields (for to_position)."""
    g = Game.__new__(Game)
    g.options = options
    g.init_rules()
    g.seed = seed
    g.hand_number = s.hand_number
    g.dealer = s.dealer
    g.scores = [s.scores[0], s.scores[1]]
    g.winner = None if s.winner == -2 else s.winner
    g.history = history
    g.phase = Phase(s.phase)
    g.current = s.current
    g.hands = [[s.hands[i][c] for c in range(CN_NC)] for i in range(4)]
    g.known = [[s.known[i][c] for c in range(CN_NC)] for i in range(4)]
    g.feet = [[s.feet[i][c] for c in range(CN_NC)] for i in range(4)]
    g.red3 = [s.red3[i] for i in range(4)]
    g.in_foot = [bool(s.in_foot[i]) for i in range(4)]
    g.seat_melded = [bool(s.seat_melded[i]) for i in range(4)]
    g.stock = [s.stock[i] for i in range(s.nstock)]
    g.pile = [s.pile[i] for i in range(s.npile)]
    g.pile_frozen = bool(s.pile_frozen)
    g.nat = [[s.nat[t][c] for c in range(CN_NC)] for t in range(2)]
    g.jok = [[s.jok[t][c] for c in range(CN_NC)] for t in range(2)]
    g.two = [[s.two[t][c] for c in range(CN_NC)] for t in range(2)]
    g.books = [[[s.books[t][i][k] for k in range(4)] for i in range(s.nbooks[t])]
               for t in range(2)]
    g.wild_meld = [[s.wild_meld[t][0], s.wild_meld[t][1]] for t in range(2)]
    g.opened = [bool(s.opened[0]), bool(s.opened[1])]
    g.minimum = [s.minimum[0], s.minimum[1]]
    g.went_out = None if s.went_out < 0 else s.went_out
    g.concealed = bool(s.concealed)
    g.decisions = s.decisions
    g.sheets = _sheets(s)
    g.log = log
    g.drew_stock = bool(s.drew_stock)
    g.turn_points = s.turn_points
    g.laid = bool(s.laid)
    g.added_old = bool(s.added_old)
    g.new_ranks = [s.new_ranks[i] for i in range(s.n_new_ranks)]
    g.pending = [s.pending[i] for i in range(s.npending)]
    g.asked = s.asked
    g.must_out = bool(s.must_out)
    g.no_discard = bool(s.no_discard)
    return g


cdef object _sheets(const cn_state *s):
    if not s.has_sheets:
        return None
    return [ScoreSheet(*[s.sheets[t][k] for k in range(6)]) for t in range(2)]


cdef class NativeGame:
    """One game on the native core, played like :class:`canasta_env.engine.Game`.

    ``NativeGame(options, seed, dealer)`` deals with the native generator (its deals
    differ from the Python engine's for the same seed); :meth:`from_position` loads a
    JSON position (validated by the Python engine's reader), :meth:`to_position` writes
    one in the same format. The event log and the history of score sheets are kept on
    the Python side, in the engine's format.
    """

    cdef cn_state *s
    cdef readonly object options
    cdef public object seed
    cdef public list history
    cdef public list log
    cdef int legal[98]
    cdef int nlegal
    cdef bint legal_ok

    def __cinit__(self):
        self.s = <cn_state *>calloc(1, sizeof(cn_state))
        if self.s == NULL:
            raise MemoryError()
        self.legal_ok = False

    def __dealloc__(self):
        free(self.s)

    def __init__(self, options=None, seed=0, dealer=None, scores=(0, 0), first_round=0):
        if options is None:
            options = classic()
        _fill_options(&self.s.o, options)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        if seed.bit_length() > _L.SEED_BITS_MAX:
            raise ValueError(f"seed has {seed.bit_length():,} bits; at most "
                             f"{_L.SEED_BITS_MAX:,} (limits.SEED_BITS_MAX)")
        # every int as the exact int C will read (operator.index: an int subclass's own
        # comparisons are not trusted) and the rounds as the checked struct holds them
        if dealer is not None:
            try:
                d = _operator.index(dealer)
            except TypeError:
                d = None
            if d not in (0, 1, 2, 3):
                raise ValueError(f"dealer must be a seat 0..3 or None, got {dealer!r}")
            dealer = d
        lim = _L.SCORE_LIMIT // 2
        if len(scores) != 2 or not all(isinstance(x, int) and not isinstance(x, bool)
                                       and -lim <= _operator.index(x) <= lim for x in scores):
            raise ValueError(f"scores must be two ints within +-{lim:,}, got {scores!r}"[:200])
        scores = [_operator.index(x) for x in scores]
        cdef int n_rounds = max(self.s.o.rounds, 1)
        if isinstance(first_round, bool) or not isinstance(first_round, int) or \
                not 0 <= _operator.index(first_round) < n_rounds:
            raise ValueError(f"first_round must be in 0..{n_rounds - 1} for these "
                             f"rules, got {first_round!r}")
        first_round = _operator.index(first_round)
        self.options = options
        self.seed = seed
        self.history = []
        cn_new_game_at(self.s, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF),
                       -1 if dealer is None else dealer, scores[0], scores[1], first_round)
        self._deal_log()

    cdef _deal_log(self):
        self.log = [{"event": "deal", "hand": self.s.hand_number, "dealer": self.s.dealer,
                     "upcards": [self.s.pile[i] for i in range(self.s.npile)]}]
        self._events()
        self.legal_ok = False

    cdef _events(self):
        cdef int i
        cdef cn_state *s = self.s
        for i in range(s.nevents):
            t, a, b = s.events[i].type, s.events[i].a, s.events[i].b
            if t == _EV_RED3:
                self.log.append({"event": "red3", "seat": a})
            elif t == _EV_DECLINED:
                self.log.append({"event": "declined", "seat": a})
            elif t == _EV_BOOK:
                self.log.append({"event": "book", "team": a, "rank": b})
            elif t == _EV_FOOT:
                self.log.append({"event": "foot", "seat": a})
            elif t == _EV_OUT:
                self.log.append({"event": "out", "seat": a, "concealed": bool(b)})
            elif t == _EV_HAND_OVER:
                sheets = _sheets(s)
                self.history.append({"hand": s.hand_number,
                                     "went_out": None if s.went_out < 0 else s.went_out,
                                     "concealed": bool(s.concealed),
                                     "sheets": [x.as_dict() for x in sheets]})
                self.log.append({"event": "hand_over", "scores": [s.scores[0], s.scores[1]]})
        s.nevents = 0

    @staticmethod
    def from_game(game):
        """A native copy of a Python engine :class:`~canasta_env.engine.Game`."""
        cdef NativeGame ng = NativeGame.__new__(NativeGame)
        # checked by the position reader first, as PythonGame.from_game does: a hand-built
        # Game (seat 1000, a hand of 1000 jokers) is refused the same way on both backends
        game = _py_from_position(_written_position(game), check_moves=False)
        _load_game(ng.s, game)
        ng.options = game.options
        ng.seed = game.seed
        ng.history = [dict(h) for h in game.history]
        ng.log = [dict(e) for e in game.log]
        return ng

    @staticmethod
    def from_position(pos, check_moves=True):
        """Load a JSON position dict (checked by the Python engine's reader).

        Raises:
            PositionError: a malformed or inconsistent position.
        """
        return NativeGame.from_game(_py_from_position(pos, check_moves=check_moves))

    def copy(self):
        """An independent copy: the C state (the deal generator's state included) copied
        in one block, the log and history lists copied shallowly (their entries are never
        modified by the game). The copy plays on exactly as this game would."""
        self._ready()
        cdef NativeGame ng = NativeGame.__new__(NativeGame)
        memcpy(ng.s, self.s, sizeof(cn_state))
        ng.options = self.options
        ng.seed = self.seed
        ng.history = list(self.history)
        ng.log = list(self.log)
        return ng

    def __copy__(self):
        """:meth:`copy` (a game's state is never shared between two objects)."""
        return self.copy()

    def __deepcopy__(self, memo):
        ng = self.copy()
        ng.history = _copy.deepcopy(self.history, memo)
        ng.log = _copy.deepcopy(self.log, memo)
        return ng

    def __reduce__(self):
        """Pickled as its JSON position and the deal generator's state; unpickling checks
        the position with the engine's reader (a tampered pickle raises PositionError)."""
        return (_restore_game, (self.to_position(), int(self.s.rng)))

    def to_game(self, copy=True):
        """A Python engine :class:`~canasta_env.engine.Game` with this state (with
        ``copy=False`` it shares this game's event log and history lists: read only)."""
        self._ready()
        if not copy:
            return _mirror(self.s, self.options, self.seed, self.history, self.log)
        return _mirror(self.s, self.options, self.seed, [dict(h) for h in self.history],
                       [dict(e) for e in self.log])

    def to_position(self):
        """The state in the JSON position format (:func:`canasta_env.engine.to_position`)."""
        self._ready()
        return _py_to_position(_mirror(self.s, self.options, self.seed, self.history, self.log))

    @property
    def phase(self):
        return Phase(self.s.phase)

    @property
    def to_move(self):
        t = cn_to_move(self.s)
        return None if t < 0 else t

    @property
    def hand_over(self):
        return self.s.phase >= 4

    @property
    def game_over(self):
        return self.s.phase == 5

    @property
    def num_actions(self):
        return self.s.o.num_actions

    @property
    def obs_size(self):
        return cn_obs_size(&self.s.o)

    @property
    def scores(self):
        return [self.s.scores[0], self.s.scores[1]]

    @property
    def sheets(self):
        return _sheets(self.s)

    @property
    def winner(self):
        """0 / 1 partnership, -1 tie, None while the game runs."""
        return None if self.s.winner == -2 else self.s.winner

    @property
    def decisions(self):
        return self.s.decisions

    @property
    def hand_number(self):
        """The deal's number in the game (0-based)."""
        return self.s.hand_number

    @property
    def minimum(self):
        """Opening minimum of each partnership this hand (points)."""
        return [self.s.minimum[0], self.s.minimum[1]]

    @property
    def opened(self):
        """Whether each partnership has opened this hand."""
        return [bool(self.s.opened[0]), bool(self.s.opened[1])]

    cdef int _ready(self) except -1:
        """Refuse a game made by ``NativeGame.__new__`` alone (no options, a zeroed C
        state: its legal ids are not its action count's, and the search wrote past its
        arrays); every constructor sets ``options``."""
        if self.options is None:
            raise RuntimeError("this NativeGame was never set up (NativeGame.__new__ without "
                               "__init__): use NativeGame(...), from_position or from_game")
        return 0

    cdef _refresh(self):
        self._ready()
        if not self.legal_ok:
            self.nlegal = cn_legal_actions(self.s, self.legal)
            self.legal_ok = True

    def legal_actions(self):
        """Sorted legal action ids of the seat on turn (empty when the hand is over)."""
        self._refresh()
        return [self.legal[i] for i in range(self.nlegal)]

    def action_mask(self, out=None):
        """int8 mask of shape (num_actions,), written into ``out`` when given."""
        self._refresh()
        if out is None:
            out = np.zeros(self.s.o.num_actions, dtype=np.int8)
        else:
            out[:] = 0
        for i in range(self.nlegal):
            out[self.legal[i]] = 1
        return out

    def apply(self, action):
        """Apply a legal action of the seat on turn.

        Raises:
            IllegalActionError: not an int id, out of range, or not legal here.
        """
        self._ready()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an int id, got {action!r}")
        a = int(action)
        n = self.s.o.num_actions
        if not 0 <= a < n:
            raise IllegalActionError(f"action id {a} is outside 0..{n - 1}")
        self._refresh()
        cdef int i
        for i in range(self.nlegal):
            if self.legal[i] == a:
                break
        else:
            raise IllegalActionError(_refusal(self.s, self.options, a, ""))
        self.log.append({"seat": cn_to_move(self.s), "action": a})
        cn_apply(self.s, a)
        self.legal_ok = False
        self._events()

    def encode(self, seat, out=None):
        """Observation of ``seat`` (0..3): float32 of shape (obs_size,), bit-identical to
        observation.encode; written into ``out`` (a writeable C-contiguous float32 array
        of that shape) when given.

        Raises:
            TypeError / ValueError: ``seat`` not an int in 0..3, or a bad ``out``.
        """
        self._ready()
        cdef int st = _int_in("seat", seat, 0, 3)
        cdef int n = cn_obs_size(&self.s.o)
        if out is None:
            out = np.empty(n, dtype=np.float32)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (n,)
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError(f"out must be a writeable C-contiguous float32 array of shape "
                             f"({n},), got {_describe(out)}")
        cdef float[::1] buf = out
        cn_encode(self.s, st, &_SCALE[0], &buf[0])
        return out

    def next_hand(self):
        """Deal the next hand with the native generator.

        Raises:
            RuntimeError: the hand is not over, or the game already lasted
                ``limits.MAX_HANDS`` hands.
        """
        self._ready()
        if self.s.phase != 4:
            raise RuntimeError(f"next_hand() needs a finished hand; phase is {self.phase.name}")
        if self.s.hand_number + 1 >= _L.MAX_HANDS:
            raise RuntimeError(f"a game lasts at most {_L.MAX_HANDS:,} hands")
        cn_next_hand(self.s)
        self._deal_log()


cdef str _refusal(const cn_state *s, object options, int a, str prefix):
    """The message of an illegal action ``a``: the Python engine's words (the action, the
    seat, the phase and :func:`~canasta_env.engine.legality.why_illegal`, from a mirror of
    the state), so both backends refuse in the same sentence."""
    return prefix + _refusal_of(_mirror(s, options, None, [], []), a)


def _native_options(NativeGame game not None):
    """The options as the C struct holds them (the CN_OPTION_INTS fields by name, the two
    tables): for tests that every RulesOptions field reaches the core."""
    cdef char *base = <char *>&game.s.o
    cdef int off
    out = {}
    for name, off in _OPTION_FIELDS:
        out[name] = (<int *>(base + off))[0]
    out["opening_minimums"] = [(game.s.o.opening_lo[i], game.s.o.opening_min[i])
                               for i in range(game.s.o.n_opening)]
    out["round_minimums"] = [game.s.o.round_min[i] for i in range(game.s.o.n_round_min)]
    return out


def _restore_game(pos, rng):
    """A :class:`NativeGame` from ``NativeGame.__reduce__``'s position and generator state."""
    if isinstance(rng, bool) or not isinstance(rng, int) or not 0 <= rng < 2**64:
        raise ValueError(f"the generator state must be an int in 0..2**64-1, got {rng!r}"[:200])
    cdef NativeGame ng = NativeGame.from_position(pos, check_moves=False)
    ng.s.rng = <uint64_t>rng
    return ng


include "vector.pxi"
include "heuristic.pxi"
include "search.pxi"
