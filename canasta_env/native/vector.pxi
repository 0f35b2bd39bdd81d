# VectorGames: a batch of games stepped in one call (included by _core.pyx).

cdef inline uint64_t _mix(uint64_t a, uint64_t b) noexcept nogil:
    cdef uint64_t z = a ^ (b * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef class VectorGames:
    """``num_games`` games on the native core, stepped together (after PufferLib /
    EnvPool / gymnasium vector envs: arrays owned here, written in place each call).

    An episode is one hand of a fresh game (scores 0); when it ends, :meth:`step` puts
    the rewards and ``dones[i] = True`` in the arrays and deals game ``i``'s next episode
    in the same call, so ``observations[i]`` / ``masks[i]`` / ``to_move[i]`` always
    describe a decision to take (the first of the new hand after a done).

    Arrays (numpy, updated in place by :meth:`reset` and :meth:`step`):
        observations: float32 (num_games, obs_size): the observation of the seat on turn
            (bit-identical to ``canasta_env.observation.encode``).
        masks: int8 (num_games, num_actions): its legal actions.
        rewards: float32 (num_games, 4): per seat, on the step that ends a hand
            (hand score difference * reward_scale, + for seats 0 and 2, - for 1 and 3);
            else 0.
        to_move: int8 (num_games,): the seat on turn (the partner while answering).
        dones: bool (num_games,): the step ended game i's hand (it was reset).

    The GIL stays held while the core runs: the exact search's memo tables (exact.c)
    are shared by every game of the process.

    Seeding: game ``i``'s episode ``k`` is dealt from ``(seeds[i], k)`` with the native
    generator, whatever the batch: the same seeds replay the same deals (native deals
    differ from the Python engine's for the same seed).
    """

    cdef cn_state *games
    cdef int *nlegal
    cdef int *legal
    cdef uint64_t *seeds
    cdef uint64_t *episodes
    cdef uint64_t rng
    cdef readonly int num_games, num_actions, obs_size
    cdef readonly object options, observations, masks, rewards, to_move, dones
    cdef readonly double reward_scale
    cdef float[:, ::1] obs_v
    cdef int8_t[:, ::1] mask_v
    cdef float[:, ::1] rew_v
    cdef int8_t[::1] tm_v
    cdef uint8_t[::1] done_v

    def __cinit__(self, int num_games, *args, **kwargs):
        if num_games < 1:
            raise ValueError(f"num_games must be >= 1, got {num_games}")
        self.games = <cn_state *>calloc(num_games, sizeof(cn_state))
        self.nlegal = <int *>calloc(num_games, sizeof(int))
        self.legal = <int *>calloc(num_games * 98, sizeof(int))
        self.seeds = <uint64_t *>calloc(num_games, sizeof(uint64_t))
        self.episodes = <uint64_t *>calloc(num_games, sizeof(uint64_t))
        if not (self.games and self.nlegal and self.legal and self.seeds and self.episodes):
            raise MemoryError()
        self.num_games = num_games

    def __dealloc__(self):
        free(self.games)
        free(self.nlegal)
        free(self.legal)
        free(self.seeds)
        free(self.episodes)

    def __init__(self, int num_games, options=None, seed=0, double reward_scale=0.001):
        if options is None:
            options = classic()
        cdef cn_options o
        _fill_options(&o, options)
        for i in range(num_games):
            self.games[i].o = o
        self.options = options
        self.num_actions = o.num_actions
        self.obs_size = cn_obs_size(&o)
        self.reward_scale = reward_scale
        self.observations = np.zeros((num_games, self.obs_size), dtype=np.float32)
        self.masks = np.zeros((num_games, self.num_actions), dtype=np.int8)
        self.rewards = np.zeros((num_games, 4), dtype=np.float32)
        self.to_move = np.zeros(num_games, dtype=np.int8)
        self.dones = np.zeros(num_games, dtype=np.bool_)
        self.obs_v = self.observations
        self.mask_v = self.masks
        self.rew_v = self.rewards
        self.tm_v = self.to_move
        self.done_v = self.dones.view(np.uint8)
        self.reset(seed)

    def reset(self, seed=0):
        """Deal every game afresh: ``seed`` an int (game i gets ``seed + i``) or a
        sequence of ``num_games`` ints (one seed per game). Returns ``observations``."""
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(self.num_games)]
        else:
            seeds = [int(x) for x in seed]
            if len(seeds) != self.num_games:
                raise ValueError(f"reset needs {self.num_games} seeds, got {len(seeds)}")
        for i, x in enumerate(seeds):
            self.seeds[i] = <uint64_t>(x & 0xFFFFFFFFFFFFFFFF)
            self.episodes[i] = 0
        self.rng = _mix(self.seeds[0], 0xABCDEF)
        cdef int i2
        for i2 in range(self.num_games):
            self._deal(i2)
            self._write(i2)
        self.rewards[:] = 0
        self.dones[:] = False
        return self.observations

    cdef void _deal(self, int i) noexcept nogil:
        cn_new_game(&self.games[i], _mix(self.seeds[i], self.episodes[i]), -1)
        self.episodes[i] += 1

    cdef void _write(self, int i) noexcept nogil:
        cdef cn_state *s = &self.games[i]
        cdef int *lg = self.legal + i * 98
        cdef int k, n
        cdef int8_t *mrow = &self.mask_v[i, 0]
        n = cn_legal_actions(s, lg)
        self.nlegal[i] = n
        memset(mrow, 0, self.num_actions)
        for k in range(n):
            mrow[lg[k]] = 1
        k = cn_to_move(s)
        self.tm_v[i] = <int8_t>k
        cn_encode(s, k, &_SCALE[0], &self.obs_v[i, 0])

    def step(self, actions):
        """Apply one action per game (``actions``: integers, shape (num_games,)), reset
        finished games, and write every array in place. Returns ``(observations,
        rewards, dones, to_move, masks)``.

        Raises:
            TypeError / ValueError: actions of the wrong type or shape, or out of range.
            IllegalActionError: an action not legal in its game.
            In every case no game was changed; the messages name the game and the action.
        """
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {arr.dtype}")
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {arr.shape}")
        bad = np.flatnonzero((arr < 0) | (arr >= self.num_actions))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"game {i}: action {int(arr[i])} is outside 0..{self.num_actions - 1}; "
                             f"no game was changed")
        cdef long long[::1] acts = np.ascontiguousarray(arr, dtype=np.int64)
        cdef int i2, k, ok, a, n = self.num_games
        cdef int bad_i = -1
        for i2 in range(n):
            a = <int>acts[i2]
            ok = 0
            for k in range(self.nlegal[i2]):
                if self.legal[i2 * 98 + k] == a:
                    ok = 1
                    break
            if not ok:
                bad_i = i2
                break
        if bad_i >= 0:
            a = acts[bad_i]
            s = &self.games[bad_i]
            raise IllegalActionError(
                f"game {bad_i}: illegal action {a} ({A.table(self.options).descriptions[a]!r}) "
                f"for seat {cn_to_move(s)} in phase {Phase(s.phase).name}; no game was changed")
        for i2 in range(n):
            self._step_one(i2, <int>acts[i2])
        return self.observations, self.rewards, self.dones, self.to_move, self.masks

    cdef void _step_one(self, int i, int a) noexcept nogil:
        cdef cn_state *s = &self.games[i]
        cdef int sc0, sc1
        cdef float r
        cn_apply(s, a)
        if s.phase >= 4:
            sc0 = s.sheets[0][0] + s.sheets[0][1] + s.sheets[0][2] + s.sheets[0][3] + s.sheets[0][4]
            sc1 = s.sheets[1][0] + s.sheets[1][1] + s.sheets[1][2] + s.sheets[1][3] + s.sheets[1][4]
            r = <float>((sc0 - sc1) * self.reward_scale)
            self.rew_v[i, 0] = r
            self.rew_v[i, 1] = -r
            self.rew_v[i, 2] = r
            self.rew_v[i, 3] = -r
            self.done_v[i] = 1
            self._deal(i)
        else:
            self.rew_v[i, 0] = 0
            self.rew_v[i, 1] = 0
            self.rew_v[i, 2] = 0
            self.rew_v[i, 3] = 0
            self.done_v[i] = 0
        self._write(i)

    def sample_actions(self, out=None):
        """A uniformly random legal action per game (native generator), into ``out``
        (int64, shape (num_games,)) when given; for random play and benchmarks."""
        if out is None:
            out = np.empty(self.num_games, dtype=np.int64)
        cdef long long[::1] o = out
        if o.shape[0] != self.num_games:
            raise ValueError(f"out must have shape ({self.num_games},)")
        cdef int i
        cdef uint64_t x
        for i in range(self.num_games):
            self.rng = _mix(self.rng, 1)
            x = self.rng
            o[i] = self.legal[i * 98 + <int>((x >> 32) % <uint64_t>self.nlegal[i])]
        return out

    def position(self, int i):
        """Game ``i`` in the JSON position format (event log and history not kept)."""
        if not 0 <= i < self.num_games:
            raise IndexError(f"game index {i} is outside 0..{self.num_games - 1}")
        return _py_to_position(_mirror(&self.games[i], self.options, int(self.seeds[i]), [], []))

    def set_position(self, int i, pos):
        """Put the JSON position ``pos`` (a running hand under this batch's options;
        checked by the Python engine's reader) into game ``i`` and write its arrays."""
        if not 0 <= i < self.num_games:
            raise IndexError(f"game index {i} is outside 0..{self.num_games - 1}")
        g = _py_from_position(pos)
        if g.options != self.options:
            raise ValueError(f"game {i}: the position's options differ from this batch's")
        if g.to_move is None:
            raise ValueError(f"game {i}: the position has nobody on turn (phase {g.phase.name})")
        cdef cn_state tmp
        _load_game(&tmp, g)
        tmp.rng = self.games[i].rng
        self.games[i] = tmp
        self._write(i)
        self.rewards[i] = 0
        self.dones[i] = False

    @property
    def num_envs(self):
        """``num_games`` under the gymnasium vector-env name."""
        return self.num_games

    def close(self):
        pass
