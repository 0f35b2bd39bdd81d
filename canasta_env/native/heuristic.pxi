# The heuristic policy on the native core (core/heuristic.c; included by _core.pyx).

cdef extern from "core/state.h":
    ctypedef struct cn_heur_params:
        int cap, size, needed, stop_stock, start_meld_hand
        int pack[15]
        int take_wild_pile, keep_cards, wild_slack, pair_wild_hand, out_margin, close_hand
        int freeze_pile
        double danger_weight, keep_pair, keep_triple, keep_melded, value_weight, freeze_cost
    enum:
        CN_O_HAND, CN_O_KNOWN_LEFT, CN_O_KNOWN_PARTNER, CN_O_KNOWN_RIGHT, CN_O_HAND_SIZES
        CN_O_RED_THREES, CN_O_MELDS_US, CN_O_MELDS_THEM, CN_O_PILE_CONTENTS, CN_O_PILE_SIZE
        CN_O_PILE_FROZEN, CN_O_STOCK_SIZE, CN_O_OPENED, CN_O_PHASE, CN_O_TURN_STATE
        CN_O_BOOKS_US, CN_OBS_CLASSIC, CN_OBS_HF
    int cn_heuristic_action(const float *obs, int obs_size, const int8_t *mask,
                            int num_actions, const cn_heur_params *p) nogil
    double cn_p_at_least(int k, int population, int successes, int draws) nogil

from ..observation import SLICES_HAND_AND_FOOT as _S

# the C offsets must be the observation layout's
assert (CN_O_HAND, CN_O_KNOWN_LEFT, CN_O_KNOWN_PARTNER, CN_O_KNOWN_RIGHT, CN_O_HAND_SIZES,
        CN_O_RED_THREES, CN_O_MELDS_US, CN_O_MELDS_THEM, CN_O_PILE_CONTENTS, CN_O_PILE_SIZE,
        CN_O_PILE_FROZEN, CN_O_STOCK_SIZE, CN_O_OPENED, CN_O_PHASE, CN_O_TURN_STATE,
        CN_O_BOOKS_US, CN_OBS_CLASSIC, CN_OBS_HF) == \
    tuple(_S[k].start for k in (
        "hand", "known_left", "known_partner", "known_right", "hand_sizes", "red_threes",
        "melds_us_naturals", "melds_them_naturals", "pile_contents", "pile_size",
        "pile_frozen", "stock_size", "opened", "phase", "turn_state", "books_us")) + \
    (_S["turn_state"].stop, _S["wild_melds"].stop), "native heuristic layout out of date"

#: the largest observation entry the heuristic accepts (canasta_env.policies.OBS_MAX)
HEURISTIC_OBS_MAX = 10_000
#: bound on the integer parameters (|x|), so the C arithmetic never overflows
HEURISTIC_PARAM_LIMIT = 1_000_000
#: the most cards the pack may hold (p_at_least's big integers are sized for it)
HEURISTIC_MAX_PACK = CN_MAXCARDS
_LAYOUT = {CN_OBS_CLASSIC: 91, CN_OBS_HF: 98}


cdef int _row_error(const float *o, const int8_t *m, int n, int na, int *where) noexcept nogil:
    """0 for a valid row; 1 an observation entry not finite or outside 0..OBS_MAX,
    2 a mask entry not 0 / 1, 3 no legal action (``where``: the entry)."""
    cdef int j, any_legal = 0
    for j in range(n):
        if not (o[j] >= 0 and o[j] <= 10000):  # NaN fails both
            where[0] = j
            return 1
    for j in range(na):
        if m[j] != 0 and m[j] != 1:
            where[0] = j
            return 2
        any_legal |= m[j]
    if not any_legal:
        return 3
    return 0


cdef _raise_row(int kind, int where, int row, obs_row, mask_row):
    pre = f"heuristic: row {row}: " if row >= 0 else "heuristic: "
    if kind == 1:
        raise ValueError(f"{pre}observation entry {where} is {obs_row[where].item()!r}, not a "
                         f"finite value in 0..{HEURISTIC_OBS_MAX:,}")
    if kind == 2:
        raise ValueError(f"{pre}action_mask entry {where} is {mask_row[where].item()}, not 0 or 1")
    raise ValueError(f"{pre}action_mask has no legal action (all zeros)")


cdef class NativeHeuristic:
    """:class:`canasta_env.policies.HeuristicPolicy` on the native core (core/heuristic.c):
    the same decisions from the same inputs, the parameters validated once here.

    Args:
        max_wilds_per_meld, canasta_size, canastas_to_go_out, stop_stock,
        start_meld_hand: ints with ``|x| <= HEURISTIC_PARAM_LIMIT`` (1,000,000).
        pack: 15 non-negative ints (cards per class, ``deck_counts(decks, jokers)``)
            summing to at most ``HEURISTIC_MAX_PACK`` (480).
        **style: style parameters (keyword only), checked against
            :data:`canasta_env.policies.styles.STYLE_PARAMS` (type and range) with
            :func:`~canasta_env.policies.styles.check_style_param`, all of them before
            any is copied into C; an omitted one is its default. :attr:`style` reads
            them back (every one).

    Raises:
        ValueError: a parameter outside those bounds, an unknown style parameter or a
            value outside its type or range (the message names it).
    """

    cdef cn_heur_params p

    def __init__(self, max_wilds_per_meld=3, canasta_size=7, canastas_to_go_out=1,
                 stop_stock=8, start_meld_hand=12, pack=None, **style):
        for name, x in (("max_wilds_per_meld", max_wilds_per_meld),
                        ("canasta_size", canasta_size),
                        ("canastas_to_go_out", canastas_to_go_out), ("stop_stock", stop_stock),
                        ("start_meld_hand", start_meld_hand)):
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or \
                    abs(int(x)) > HEURISTIC_PARAM_LIMIT:
                raise ValueError(f"NativeHeuristic: {name} must be an int in "
                                 f"-{HEURISTIC_PARAM_LIMIT:,}..{HEURISTIC_PARAM_LIMIT:,}, "
                                 f"got {x!r}")
        if pack is None:
            pack = [4, 8, 4, 4] + [8] * 11  # deck_counts(2, 4)
        pack = list(pack)
        if len(pack) != CN_NC or not all(
                isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0
                for x in pack) or sum(pack) > HEURISTIC_MAX_PACK:
            raise ValueError(f"NativeHeuristic: pack must be {CN_NC} non-negative ints summing "
                             f"to at most {HEURISTIC_MAX_PACK}, got {pack!r}")
        self._set_style(style)
        self.p.cap = max_wilds_per_meld
        self.p.size = canasta_size
        self.p.needed = canastas_to_go_out
        self.p.stop_stock = stop_stock
        self.p.start_meld_hand = start_meld_hand
        for c in range(CN_NC):
            self.p.pack[c] = pack[c]

    def _set_style(self, style):
        """Check every style parameter of ``style`` (a dict; omitted: the default), then
        copy them all into C."""
        from ..policies.styles import check_style  # the shared ranges (lazy: no import cycle)

        st = check_style(style, "NativeHeuristic")  # every value checked before any copy
        self.p.take_wild_pile = st["take_wild_pile"]
        self.p.keep_cards = st["keep_cards"]
        self.p.wild_slack = st["wild_slack"]
        self.p.pair_wild_hand = st["pair_wild_hand"]
        self.p.out_margin = st["out_margin"]
        self.p.close_hand = st["close_hand"]
        self.p.freeze_pile = st["freeze_pile"]
        self.p.danger_weight = st["danger_weight"]
        self.p.keep_pair = st["keep_pair"]
        self.p.keep_triple = st["keep_triple"]
        self.p.keep_melded = st["keep_melded"]
        self.p.value_weight = st["value_weight"]
        self.p.freeze_cost = st["freeze_cost"]

    @property
    def style(self):
        """Every style parameter as C holds it: name -> int or float."""
        return {"take_wild_pile": self.p.take_wild_pile, "keep_cards": self.p.keep_cards,
                "wild_slack": self.p.wild_slack, "pair_wild_hand": self.p.pair_wild_hand,
                "out_margin": self.p.out_margin, "close_hand": self.p.close_hand,
                "freeze_pile": self.p.freeze_pile, "danger_weight": self.p.danger_weight,
                "keep_pair": self.p.keep_pair, "keep_triple": self.p.keep_triple,
                "keep_melded": self.p.keep_melded, "value_weight": self.p.value_weight,
                "freeze_cost": self.p.freeze_cost}

    def __reduce__(self):
        # the constructor's arguments, then the style as the state (__setstate__)
        return (NativeHeuristic, (self.p.cap, self.p.size, self.p.needed, self.p.stop_stock,
                                  self.p.start_meld_hand, [self.p.pack[c] for c in range(CN_NC)]),
                self.style)

    def __setstate__(self, style):
        self._set_style(style)

    def action(self, observation, action_mask):
        """The heuristic's action for one seat: ``observation`` float32 ``(202,)``
        (Classic) or ``(245,)`` (Hand and Foot), C-contiguous; ``action_mask`` int8
        ``(91,)`` / ``(98,)``, entries 0 / 1, at least one 1.

        Raises:
            ValueError: another dtype, shape or layout, an observation entry not finite
                or outside 0..10,000, a mask entry not 0 / 1, no legal action.

        Read-only arrays are read in place; arrays that are not C-contiguous are copied.
        """
        observation, action_mask = _contiguous(observation), _contiguous(action_mask)
        if not (isinstance(observation, np.ndarray) and observation.dtype == np.float32
                and observation.ndim == 1 and observation.flags.c_contiguous):
            raise ValueError(f"heuristic: observation must be a C-contiguous float32 1-D array, "
                             f"got {_describe(observation)}")
        if not (isinstance(action_mask, np.ndarray) and action_mask.dtype == np.int8
                and action_mask.ndim == 1 and action_mask.flags.c_contiguous):
            raise ValueError(f"heuristic: action_mask must be a C-contiguous int8 1-D array, "
                             f"got {_describe(action_mask)}")
        cdef int n = observation.shape[0], na = action_mask.shape[0]
        if _LAYOUT.get(n) != na:
            raise ValueError(f"heuristic: observation {n} and action_mask {na} entries are not "
                             f"a layout (202 and 91 Classic, 245 and 98 Hand and Foot)")
        cdef const float[::1] o = observation
        cdef const int8_t[::1] m = action_mask
        cdef int where = 0
        cdef int kind = _row_error(&o[0], &m[0], n, na, &where)
        if kind:
            _raise_row(kind, where, -1, observation, action_mask)
        return cn_heuristic_action(&o[0], n, &m[0], na, &self.p)

    def actions(self, observations, masks, out=None):
        """The heuristic's action for each row: ``observations`` float32 ``(B, 202)`` or
        ``(B, 245)``, ``masks`` int8 ``(B, 91)`` / ``(B, 98)`` (both C-contiguous, same
        B), ``out`` int64 ``(B,)`` C-contiguous (allocated when None). Returns ``out``.

        Raises:
            ValueError: another dtype, shape, layout or contiguity; a row with an
                observation entry not finite or outside 0..10,000, a mask entry not 0 / 1
                or no legal action (the message names the row). Nothing is written then.

        Read-only inputs are read in place; inputs that are not C-contiguous are copied.
        """
        observations, masks = _contiguous(observations), _contiguous(masks)
        if not (isinstance(observations, np.ndarray) and observations.dtype == np.float32
                and observations.ndim == 2 and observations.flags.c_contiguous):
            raise ValueError(f"heuristic: observations must be a C-contiguous float32 2-D "
                             f"array, got {_describe(observations)}")
        if not (isinstance(masks, np.ndarray) and masks.dtype == np.int8
                and masks.ndim == 2 and masks.flags.c_contiguous):
            raise ValueError(f"heuristic: masks must be a C-contiguous int8 2-D array, got "
                             f"{_describe(masks)}")
        cdef Py_ssize_t b = observations.shape[0], i
        cdef int n = observations.shape[1], na = masks.shape[1]
        if masks.shape[0] != b:
            raise ValueError(f"heuristic: observations has {b} rows and masks "
                             f"{masks.shape[0]}; they must match")
        if _LAYOUT.get(n) != na:
            raise ValueError(f"heuristic: observations {n} and masks {na} columns are not a "
                             f"layout (202 and 91 Classic, 245 and 98 Hand and Foot)")
        if out is None:
            out = np.empty(b, dtype=np.int64)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.int64 and out.shape == (b,)
                  and out.flags.c_contiguous and out.flags.writeable):
            raise ValueError(f"heuristic: out must be a writeable C-contiguous int64 array of "
                             f"shape ({b},), got {_describe(out)}")
        if b == 0:
            return out
        cdef const float[:, ::1] o = observations
        cdef const int8_t[:, ::1] m = masks
        cdef long long[::1] r = out
        cdef int where = 0, kind = 0
        cdef Py_ssize_t bad = -1
        with nogil:
            for i in range(b):
                kind = _row_error(&o[i, 0], &m[i, 0], n, na, &where)
                if kind:
                    bad = i
                    break
        if bad >= 0:
            _raise_row(kind, where, bad, observations[bad], masks[bad])
        with nogil:
            for i in range(b):
                r[i] = cn_heuristic_action(&o[i, 0], n, &m[i, 0], na, &self.p)
        return out


cdef str _describe(x):
    if isinstance(x, np.ndarray):
        order = "C-contiguous" if x.flags.c_contiguous else "not C-contiguous"
        return f"{x.dtype} array of shape {x.shape}, {order}"
    return type(x).__name__


def heuristic_p_at_least(k, population, successes, draws):
    """:func:`canasta_env.policies.p_at_least` computed by the native core (the same
    double, bit for bit), for ``population <= HEURISTIC_MAX_PACK``.

    Raises:
        ValueError: ``successes > population`` or ``population > HEURISTIC_MAX_PACK``.
    """
    k = _int_in("k", k, -HEURISTIC_PARAM_LIMIT, HEURISTIC_PARAM_LIMIT)
    population = _int_in("population", population, 0, HEURISTIC_PARAM_LIMIT)
    successes = _int_in("successes", successes, 0, HEURISTIC_PARAM_LIMIT)
    draws = _int_in("draws", draws, -HEURISTIC_PARAM_LIMIT, HEURISTIC_PARAM_LIMIT)
    if successes > population:
        raise ValueError(f"p_at_least: {successes} cards of the class cannot be among "
                         f"{population} unseen cards")
    if population > HEURISTIC_MAX_PACK:
        raise ValueError(f"heuristic_p_at_least: population {population} is over "
                         f"{HEURISTIC_MAX_PACK}")
    return cn_p_at_least(k, population, successes, draws)
