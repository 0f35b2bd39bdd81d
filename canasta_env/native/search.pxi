# Decision-time search on the native core (core/search.c; included by _core.pyx).

cdef extern from "core/state.h":
    void cn_search_determinisation(cn_state *s, int seat, uint64_t seed, int d) nogil
    enum: CN_SEARCH_NONE
    int cn_search_values(const cn_state *root, const int *legal, int n, int determinisations,
                         uint64_t seed, const float *scale, const cn_heur_params *p,
                         int max_decisions, int *out) nogil

#: the most determinisations one call accepts
SEARCH_MAX_DETERMINISATIONS = 4096


cdef _check_seed(seed):
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"seed must be an int, got {seed!r}")


#: the longest rollout one search accepts (decisions)
SEARCH_MAX_DECISIONS = 2**31 - 1


cdef _int_arg(name, x):
    """``x`` as an int, refusing bools, floats and other non-integers."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {x!r}")
    return int(x)


cdef _check_search(seed, determinisations, max_decisions):
    _check_seed(seed)
    if not 1 <= determinisations <= SEARCH_MAX_DETERMINISATIONS:
        raise ValueError(f"determinisations must be in 1..{SEARCH_MAX_DETERMINISATIONS}, "
                         f"got {determinisations}")
    if not 1 <= max_decisions <= SEARCH_MAX_DECISIONS:
        raise ValueError(f"max_decisions must be in 1..{SEARCH_MAX_DECISIONS:,}, got "
                         f"{max_decisions:,}"[:200])


cdef _search_into(const cn_state *root, const int *legal, int n, int determinisations,
                  uint64_t seed, NativeHeuristic heuristic, int max_decisions, int *scratch,
                  double *vals, int stride, int num_actions):
    """Search a private copy of ``root`` with the GIL released (another thread may change
    the game meanwhile: the search never sees it), then write the outcomes of legal
    action k into ``vals[legal[k] * stride + d]``; ``vals`` holds ``num_actions`` rows
    (a game whose rules changed to another action count since is refused)."""
    cdef cn_state *copy
    cdef int lg[98]
    cdef int k, d, x, done
    if root.o.num_actions != num_actions or not 0 <= n <= 98:
        raise RuntimeError("search: the game changed variant while it was being searched")
    for k in range(n):  # each legal id a row of vals
        if not 0 <= legal[k] < num_actions:
            raise RuntimeError(f"search: legal action {legal[k]} is outside 0..{num_actions - 1}")
    copy = <cn_state *>calloc(1, sizeof(cn_state))
    if copy == NULL:
        raise MemoryError("search: no memory for the root state")
    memcpy(copy, root, sizeof(cn_state))
    memcpy(lg, legal, n * sizeof(int))
    with nogil:
        done = cn_search_values(copy, lg, n, determinisations, seed, &_SCALE[0], &heuristic.p,
                                max_decisions, scratch)
    free(copy)
    if done < 0:
        raise MemoryError("search: no memory for the rollout states")
    for k in range(n):
        for d in range(determinisations):
            x = scratch[k * determinisations + d]
            if x != CN_SEARCH_NONE:
                vals[lg[k] * stride + d] = x


def search_seed(seed, int game):
    """The seed :func:`search_values` gives the search of game ``game`` under ``seed``.

    Raises:
        TypeError: a seed that is not an int.
    """
    _check_seed(seed)
    return int(_mix(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), <uint64_t>game))


def determinised(NativeGame game not None, seat, seed, d=0):
    """A copy of ``game`` with the cards ``seat`` cannot see dealt at random (core/search.c:
    the other hands less their known cards, the stock, the feet not yet picked up; a red 3
    never in a hand): determinisation ``d`` of a search seeded with ``seed`` (an int;
    :func:`search_seed` gives the one :func:`search_values` uses for a game).

    Raises:
        TypeError: ``seat``, ``d`` or ``seed`` not an int (bools and floats included).
        ValueError: ``seat`` outside 0..3 or ``d`` outside 0..2**31 - 1.
    """
    _check_seed(seed)
    seat = _int_arg("seat", seat)
    d = _int_arg("d", d)
    if not 0 <= seat <= 3:
        raise ValueError(f"seat must be in 0..3, got {seat}")
    if not 0 <= d < 2 ** 31:
        raise ValueError(f"d must be in 0..{2 ** 31 - 1}, got {d}")
    cdef NativeGame out = game.copy()
    cn_search_determinisation(out.s, seat, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), d)
    out.legal_ok = False
    return out


def search_values(VectorGames vg not None, games, NativeHeuristic heuristic not None,
                  determinisations=16, seed=0, max_decisions=5000):
    """Determinised rollouts of the heuristic for the seat on turn in each of ``games``
    (indices into ``vg``), every legal action tried on the same ``determinisations``
    deals of the cards that seat cannot see (core/search.c).

    Args:
        vg: the batch; its games are read, never changed.
        games: int indices, shape (G,).
        heuristic: the rollout policy of all four seats (``HeuristicPolicy()._core``,
            as :class:`canasta_env.search.SearchPolicy` uses).
        determinisations: 1..SEARCH_MAX_DETERMINISATIONS (4,096) deals per action.
        seed: int; the deals of game g use ``(seed, g)``, nothing hidden.
        max_decisions: a rollout longer than this (decisions) is dropped from the mean.

    Returns:
        float64 array of shape (G, num_actions, determinisations): the hand score
        difference (points; the seat's partnership minus the other, docs/RULES.md §2.15 /
        §3.9) after each legal action in each determinisation; NaN at illegal actions
        and at rollouts longer than ``max_decisions``.

    The rollouts run with the GIL released, each on a private copy of its game, so other
    Python threads (a service's other requests) go on meanwhile.

    Raises:
        TypeError / IndexError / ValueError: games not integer indices, an index out of
            range, determinisations or max_decisions out of range, a seed not an int.
        MemoryError: no memory for the rollout states.
    """
    vg._ready()
    arr = np.asarray(games).reshape(-1)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"games must be integer indices, got dtype {arr.dtype}")
    # the indices checked as Python ints (2**64 - 1 is not -1), then a private copy:
    # another thread may change the caller's array while the GIL is released between
    # games, after the indices were checked
    checked = [int(g) for g in arr]
    for g in checked:
        if not 0 <= g < vg.num_games:
            raise IndexError(f"game index {g} is outside 0..{vg.num_games - 1}")
    idx = np.array(checked, dtype=np.int64)
    determinisations = _int_arg("determinisations", determinisations)
    max_decisions = _int_arg("max_decisions", max_decisions)
    _check_search(seed, determinisations, max_decisions)
    cdef int n_games = vg.num_games, num_actions = vg.num_actions
    for g in idx:
        if not 0 <= g < n_games:
            raise IndexError(f"game index {int(g)} is outside 0..{n_games - 1}")
    seeds = [search_seed(seed, int(g)) for g in idx]
    cdef Py_ssize_t G = idx.size, j
    vals = np.full((G, num_actions, determinisations), np.nan)
    buf = np.empty(98 * determinisations, dtype=np.intc)
    cdef int[::1] bv = buf
    cdef int[::1] iv = idx.astype(np.intc)  # every index checked within 0..n_games - 1
    cdef int g2
    cdef double[:, :, ::1] vv = vals
    for j in range(G):
        g2 = <int>iv[j]
        _search_into(&vg.games[g2], vg.legal + g2 * 98, vg.nlegal[g2], determinisations,
                     seeds[j], heuristic, max_decisions, &bv[0], &vv[j, 0, 0],
                     determinisations, num_actions)
    return vals


def search_game_values(NativeGame game not None, NativeHeuristic heuristic not None,
                       determinisations=16, seed=0, max_decisions=5000):
    """:func:`search_values` for one :class:`NativeGame` (read, never changed): float64
    array of shape (num_actions, determinisations), NaN at illegal actions and dropped
    rollouts. The deals use ``seed`` itself (an int), not :func:`search_seed`. The GIL is
    released during the rollouts, as there.

    Raises:
        ValueError: determinisations or max_decisions out of range, or nobody on turn.
        TypeError: a seed that is not an int.
        MemoryError: no memory for the rollout states.
    """
    determinisations = _int_arg("determinisations", determinisations)
    max_decisions = _int_arg("max_decisions", max_decisions)
    _check_search(seed, determinisations, max_decisions)
    cdef uint64_t s0 = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int num_actions = game.s.o.num_actions
    vals = np.full((num_actions, determinisations), np.nan)
    buf = np.empty(98 * determinisations, dtype=np.intc)
    cdef int[::1] bv = buf
    cdef double[:, ::1] vv = vals
    # from here to the copy in _search_into no Python code runs, so no other thread can
    # change the game between the check, its legal actions and the copy searched
    if cn_to_move(game.s) < 0:
        raise ValueError("nobody is on turn: the hand is over")
    game._refresh()
    _search_into(game.s, game.legal, game.nlegal, determinisations, s0, heuristic,
                 max_decisions, &bv[0], &vv[0, 0], determinisations, num_actions)
    return vals
