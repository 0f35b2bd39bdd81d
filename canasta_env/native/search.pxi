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


def search_seed(seed, int game):
    """The seed :func:`search_values` gives the search of game ``game`` under ``seed``.

    Raises:
        TypeError: a seed that is not an int.
    """
    _check_seed(seed)
    return int(_mix(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), <uint64_t>game))


def determinised(NativeGame game not None, int seat, seed, int d=0):
    """A copy of ``game`` with the cards ``seat`` cannot see dealt at random (core/search.c:
    the other hands less their known cards, the stock, the feet not yet picked up; a red 3
    never in a hand): determinisation ``d`` of a search seeded with ``seed`` (an int;
    :func:`search_seed` gives the one :func:`search_values` uses for a game).

    Raises:
        ValueError: ``seat`` outside 0..3 or ``d`` < 0.
    """
    _check_seed(seed)
    if not 0 <= seat <= 3:
        raise ValueError(f"seat must be in 0..3, got {seat}")
    if d < 0:
        raise ValueError(f"d must be >= 0, got {d}")
    cdef NativeGame out = game.copy()
    cn_search_determinisation(out.s, seat, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), d)
    out.legal_ok = False
    return out


def search_values(VectorGames vg not None, games, NativeHeuristic heuristic not None,
                  int determinisations=16,
                  seed=0, int max_decisions=5000):
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

    Raises:
        TypeError / IndexError / ValueError: games not integer indices, an index out of
            range, determinisations or max_decisions out of range, a seed not an int.
    """
    arr = np.asarray(games).reshape(-1)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"games must be integer indices, got dtype {arr.dtype}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not 1 <= determinisations <= SEARCH_MAX_DETERMINISATIONS:
        raise ValueError(f"determinisations must be in 1..{SEARCH_MAX_DETERMINISATIONS}, "
                         f"got {determinisations}")
    if max_decisions < 1:
        raise ValueError(f"max_decisions must be >= 1, got {max_decisions}")
    for g in arr:
        if not 0 <= int(g) < vg.num_games:
            raise IndexError(f"game index {int(g)} is outside 0..{vg.num_games - 1}")
    cdef Py_ssize_t G = arr.size, j
    vals = np.full((G, vg.num_actions, determinisations), np.nan)
    buf = np.empty(98 * determinisations, dtype=np.intc)
    cdef int[::1] bv = buf
    cdef int g2, k, n, d, x
    cdef int *lg
    cdef uint64_t s0 = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef double[:, :, ::1] vv = vals
    for j in range(G):
        g2 = int(arr[j])
        n = vg.nlegal[g2]
        lg = vg.legal + g2 * 98
        cn_search_values(&vg.games[g2], lg, n, determinisations, search_seed(seed, g2),
                         &_SCALE[0], &heuristic.p, max_decisions, &bv[0])
        for k in range(n):
            for d in range(determinisations):
                x = bv[k * determinisations + d]
                if x != CN_SEARCH_NONE:
                    vv[j, lg[k], d] = x
    return vals


def search_game_values(NativeGame game not None, NativeHeuristic heuristic not None,
                       int determinisations=16,
                       seed=0, int max_decisions=5000):
    """:func:`search_values` for one :class:`NativeGame` (read, never changed): float64
    array of shape (num_actions, determinisations), NaN at illegal actions and dropped
    rollouts. The deals use ``seed`` itself (an int), not :func:`search_seed`.

    Raises:
        ValueError: determinisations or max_decisions out of range, or nobody on turn.
        TypeError: a seed that is not an int.
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {seed!r}")
    if not 1 <= determinisations <= SEARCH_MAX_DETERMINISATIONS:
        raise ValueError(f"determinisations must be in 1..{SEARCH_MAX_DETERMINISATIONS}, "
                         f"got {determinisations}")
    if max_decisions < 1:
        raise ValueError(f"max_decisions must be >= 1, got {max_decisions}")
    if cn_to_move(game.s) < 0:
        raise ValueError("nobody is on turn: the hand is over")
    game._refresh()
    cdef int n = game.nlegal, k, d, x
    vals = np.full((game.s.o.num_actions, determinisations), np.nan)
    buf = np.empty(98 * determinisations, dtype=np.intc)
    cdef int[::1] bv = buf
    cdef double[:, ::1] vv = vals
    cn_search_values(game.s, game.legal, n, determinisations,
                     <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF), &_SCALE[0], &heuristic.p,
                     max_decisions, &bv[0])
    for k in range(n):
        for d in range(determinisations):
            x = bv[k * determinisations + d]
            if x != CN_SEARCH_NONE:
                vv[game.legal[k], d] = x
    return vals
