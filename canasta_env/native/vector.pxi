# VectorGames: a batch of games stepped in one call (included by _core.pyx).

cdef inline uint64_t _mix(uint64_t a, uint64_t b) noexcept nogil:
    cdef uint64_t z = a ^ (b * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


# Classic score bands (points, inclusive) of the four opening minimums: the same as
# canasta_env.aec.SCORE_BANDS (a test checks they agree)
cdef int[4] _BAND_LO = [-1000, 0, 1500, 3000]
cdef int[4] _BAND_HI = [-5, 1495, 2995, 4995]


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
        final_observations: float32 (num_games, 4, obs_size): the observation of each
            seat of game i's last position before its last new deal: written when a
            hand ends (the position with the hand over, as ``canasta_env.raw_env``
            shows it to every seat at the end) and by :meth:`redeal` (the truncated
            position); read it on the step that reports ``dones[i]`` or right after
            :meth:`redeal` (zeros until then).

    The GIL stays held while the core steps a batch: a batch belongs to one thread at a
    time (the search, :func:`search_values`, releases it and works on private copies).

    Seeding: game ``i``'s episode ``k`` is dealt from ``(seeds[i], k)`` with the native
    generator, whatever the batch: the same seeds replay the same deals (native deals
    differ from the Python engine's for the same seed).

    Starting point of each episode (as :class:`canasta_env.raw_env`'s options of the same
    names): ``starting_scores`` ``(us, them)`` cumulative points of partnerships 0 and 1,
    or ``"sample"`` (per partnership a band of ``canasta_env.aec.SCORE_BANDS`` drawn
    uniformly, then a multiple of 5 in it, from the episode's seed; docs/RULES.md §2.3 for
    the minimums they select); ``starting_round`` the Hand and Foot round (1-based) or
    ``"sample"`` (uniform over the rounds). Defaults: scores (0, 0), round 1.
    """

    cdef cn_state *games
    cdef int *nlegal
    cdef int *legal
    cdef uint64_t *seeds
    cdef uint64_t *episodes
    cdef uint64_t rng
    cdef readonly int num_games, num_actions, obs_size
    cdef readonly object options, observations, masks, rewards, to_move, dones
    cdef readonly object final_observations
    cdef readonly double reward_scale
    cdef float[:, ::1] obs_v
    cdef float[:, :, ::1] fin_v
    cdef int8_t[:, ::1] mask_v
    cdef float[:, ::1] rew_v
    cdef int8_t[::1] tm_v
    cdef uint8_t[::1] done_v
    cdef int start_scores[2]
    cdef int start_round
    cdef bint sample_scores, sample_round
    cdef bint initialised
    cdef int n_rounds
    cdef object _init_args  # (reward_scale, starting_scores, starting_round), for copies

    def __cinit__(self, num_games, *args, **kwargs):
        num_games = _int_in("num_games", num_games, 1, MAX_GAMES)
        self.games = <cn_state *>calloc(num_games, sizeof(cn_state))
        self.nlegal = <int *>calloc(num_games, sizeof(int))
        self.legal = <int *>calloc(num_games * 98, sizeof(int))
        self.seeds = <uint64_t *>calloc(num_games, sizeof(uint64_t))
        self.episodes = <uint64_t *>calloc(num_games, sizeof(uint64_t))
        if not (self.games and self.nlegal and self.legal and self.seeds and self.episodes):
            raise MemoryError(f"no memory for {num_games:,} games "
                              f"({num_games * sizeof(cn_state) / 1e9:.1f} GB)")
        self.num_games = num_games

    def __dealloc__(self):
        free(self.games)
        free(self.nlegal)
        free(self.legal)
        free(self.seeds)
        free(self.episodes)

    def __init__(self, num_games, options=None, seed=0, double reward_scale=0.001,
                 starting_scores=(0, 0), starting_round=1):
        if self.initialised:
            # the arrays were sized for this batch once, by __cinit__: a second __init__
            # (another num_games or other options) would write past them
            raise RuntimeError("VectorGames.__init__ was already called: build a new "
                               "VectorGames instead")
        if num_games != self.num_games:
            raise ValueError(f"num_games {num_games} differs from the {self.num_games} games "
                             f"allocated")
        if options is None:
            options = classic()
        if not (0 < reward_scale < float("inf")):  # NaN fails too
            raise ValueError(f"reward_scale must be a positive finite number, got {reward_scale!r}")
        cdef cn_options o
        _fill_options(&o, options)
        self.n_rounds = max(o.rounds, 1)  # as the checked struct holds it
        if isinstance(starting_scores, str) and starting_scores == "sample":
            self.sample_scores = True
            self.start_scores[0] = self.start_scores[1] = 0
        elif (isinstance(starting_scores, (tuple, list)) and len(starting_scores) == 2 and
              all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                  and -1_000_000 <= _operator.index(x) <= 1_000_000 for x in starting_scores)):
            self.sample_scores = False
            self.start_scores[0] = _operator.index(starting_scores[0])
            self.start_scores[1] = _operator.index(starting_scores[1])
        else:
            raise ValueError(f"starting_scores must be 'sample' or two ints within "
                             f"+-1,000,000, got {starting_scores!r}")
        if isinstance(starting_round, str) and starting_round == "sample":
            self.sample_round = True
            self.start_round = 0
        elif (isinstance(starting_round, (int, np.integer)) and not isinstance(starting_round, bool)
              and 1 <= _operator.index(starting_round) <= self.n_rounds):
            self.sample_round = False
            self.start_round = _operator.index(starting_round) - 1
        else:
            raise ValueError(f"starting_round must be 'sample' or a round 1..{self.n_rounds}, "
                             f"got {starting_round!r}")
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
        self.final_observations = np.zeros((num_games, 4, self.obs_size), dtype=np.float32)
        self.obs_v = self.observations
        self.fin_v = self.final_observations
        self._init_args = (reward_scale, starting_scores, starting_round)
        self.mask_v = self.masks
        self.rew_v = self.rewards
        self.tm_v = self.to_move
        self.done_v = self.dones.view(np.uint8)
        self.initialised = True
        self.reset(seed)

    cdef int _ready(self) except -1:
        """Refuse a batch made by ``VectorGames.__new__`` alone (zeroed games with no legal
        action: sample_actions divided by zero); ``__init__`` sets it up."""
        if not self.initialised:
            raise RuntimeError("this VectorGames was never set up (VectorGames.__new__ "
                               "without __init__): use VectorGames(...)")
        return 0

    def reset(self, seed=0):
        """Deal every game afresh: ``seed`` an int (game i gets ``seed + i``) or a
        sequence of ``num_games`` ints (one seed per game). Returns ``observations``.

        Raises:
            TypeError: a seed that is not an int (bools, floats and strings included).
            ValueError: a sequence of the wrong length. Nothing was changed.
        """
        self._ready()
        def is_int(x):
            return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

        if is_int(seed):
            seeds = [int(seed) + i for i in range(self.num_games)]
        else:
            if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__") or \
                    not all(is_int(x) for x in seed):
                raise TypeError(f"seed must be an int or a sequence of {self.num_games} ints, "
                                f"got {seed!r}"[:200])
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
        cdef uint64_t z = _mix(self.seeds[i], self.episodes[i])
        cdef int sc[2]
        cdef int rnd = self.start_round
        cdef int t, band
        cdef uint64_t x, width
        cdef uint64_t lo32 = 4294967295ULL
        sc[0] = self.start_scores[0]
        sc[1] = self.start_scores[1]
        if self.sample_scores:
            for t in range(2):
                x = _mix(z, 0x5C0E + t)
                band = <int>((x >> 32) & 3)
                width = <uint64_t>((_BAND_HI[band] - _BAND_LO[band]) / 5 + 1)
                sc[t] = _BAND_LO[band] + 5 * <int>((x & lo32) % width)
        if self.sample_round:
            rnd = <int>((_mix(z, 0x7011D) >> 32) % <uint64_t>self.n_rounds)
        if self.sample_scores or self.sample_round or sc[0] != 0 or sc[1] != 0 or rnd != 0:
            cn_new_game_at(&self.games[i], z, -1, sc[0], sc[1], rnd)
        else:
            cn_new_game(&self.games[i], z, -1)
        self.episodes[i] += 1

    cdef void _write_final(self, int i) noexcept nogil:
        cdef int seat
        for seat in range(4):
            cn_encode(&self.games[i], seat, &_SCALE[0], &self.fin_v[i, seat, 0])

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

    def step(self, actions, active=None):
        """Apply one action per game (``actions``: integers, shape (num_games,)), reset
        finished games, and write every array in place. Returns ``(observations,
        rewards, dones, to_move, masks)``.

        ``active`` (optional, bool, shape (num_games,)): step only the games where it is
        True; the others keep their position and arrays, except that their ``rewards``
        row is zeroed and ``dones`` is False (the arrays describe this call), and their
        entries of ``actions`` are not read.

        Raises:
            TypeError / ValueError: actions or ``active`` of the wrong type or shape, or
                an action out of range.
            IllegalActionError: an action not legal in its game.
            In every case no game was changed; the messages name the game and the action.
        """
        self._ready()
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {arr.dtype}")
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {arr.shape}")
        if active is None:
            act_arr = np.ones(self.num_games, dtype=np.uint8)
        else:
            act_np = np.asarray(active)
            if act_np.dtype != np.bool_ or act_np.shape != (self.num_games,):
                raise ValueError(f"active must be a bool array of shape ({self.num_games},), "
                                 f"got {act_np.dtype} {act_np.shape}")
            act_arr = np.ascontiguousarray(act_np).view(np.uint8)
        bad = np.flatnonzero(((arr < 0) | (arr >= self.num_actions)) & (act_arr != 0))
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"game {i}: action {int(arr[i])} is outside 0..{self.num_actions - 1}; "
                             f"no game was changed")
        cdef const long long[::1] acts = np.ascontiguousarray(arr, dtype=np.int64)
        cdef const uint8_t[::1] on = act_arr
        cdef int i2, k, ok, a, n = self.num_games
        cdef int bad_i = -1
        for i2 in range(n):
            if not on[i2]:
                continue
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
            raise IllegalActionError(
                _refusal(&self.games[bad_i], self.options, a, f"game {bad_i}: ")
                + "; no game was changed")
        for i2 in range(n):
            if on[i2]:
                self._step_one(i2, <int>acts[i2])
            else:
                self.rew_v[i2, 0] = 0
                self.rew_v[i2, 1] = 0
                self.rew_v[i2, 2] = 0
                self.rew_v[i2, 3] = 0
                self.done_v[i2] = 0
        return self.observations, self.rewards, self.dones, self.to_move, self.masks

    def redeal(self, games):
        """End the episodes of ``games`` (indices) without scoring them -- a truncation --
        and deal each one's next episode (the same seeding as after a finished hand);
        their ``rewards`` rows are zeroed, ``dones`` False, the other arrays rewritten
        (``final_observations`` first: the four seats' views of the truncated hand).

        Raises:
            TypeError: ``games`` not integers (a bool mask: pass ``np.flatnonzero(mask)``).
            IndexError: an index outside ``0..num_games-1``.
            In both cases nothing was changed.
        """
        self._ready()
        arr = np.asarray(games).reshape(-1)
        if arr.size and arr.dtype.kind not in "iu":
            raise TypeError(f"games must be integer indices, got dtype {arr.dtype} (for a bool "
                            f"mask pass np.flatnonzero(mask))")
        idx = sorted({int(g) for g in arr})  # a game listed twice is dealt once
        for g in idx:
            if not 0 <= g < self.num_games:
                raise IndexError(f"game index {g} is outside 0..{self.num_games - 1}")
        cdef int j
        for g in idx:
            j = g
            self._write_final(j)
            self._deal(j)
            self._write(j)
            self.rewards[j] = 0
            self.dones[j] = False

    cdef void _step_one(self, int i, int a) noexcept nogil:
        cdef cn_state *s = &self.games[i]
        cdef cn_score sc0, sc1
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
            self._write_final(i)
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
        self._ready()
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

    def position(self, i):
        """Game ``i`` in the JSON position format (event log and history not kept).

        Raises:
            TypeError: ``i`` not an int. IndexError: outside 0..num_games-1.
        """
        self._ready()
        i = self._index(i)
        return _py_to_position(_mirror(&self.games[i], self.options, int(self.seeds[i]), [], []))

    cdef int _index(self, i) except -1:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"game index must be an int, got {i!r}"[:200])
        if not 0 <= int(i) < self.num_games:
            raise IndexError(f"game index {int(i)} is outside 0..{self.num_games - 1}")
        return int(i)

    def set_position(self, i, pos):
        """Put the JSON position ``pos`` (a running hand under this batch's options;
        checked by the Python engine's reader) into game ``i`` and write its arrays.

        Raises:
            TypeError / IndexError: a bad index. PositionError: a malformed position.
            ValueError: other options than the batch's, or nobody on turn. In every case
            the batch is unchanged.
        """
        self._ready()
        i = self._index(i)
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

    def __copy__(self):
        """An independent copy (:meth:`__deepcopy__`): a batch's games are never shared."""
        return self.__deepcopy__({})

    def __deepcopy__(self, memo):
        """An independent copy that steps on exactly as this batch would: every game's C
        state (its generator included), the seeds, episode counters, the batch generator
        and every array copied."""
        self._ready()
        reward_scale, starting_scores, starting_round = self._init_args
        cdef VectorGames vg = VectorGames(self.num_games, self.options, 0, reward_scale,
                                          starting_scores, starting_round)
        memcpy(vg.games, self.games, self.num_games * sizeof(cn_state))
        memcpy(vg.nlegal, self.nlegal, self.num_games * sizeof(int))
        memcpy(vg.legal, self.legal, self.num_games * 98 * sizeof(int))
        memcpy(vg.seeds, self.seeds, self.num_games * sizeof(uint64_t))
        memcpy(vg.episodes, self.episodes, self.num_games * sizeof(uint64_t))
        vg.rng = self.rng
        for name in ("observations", "masks", "rewards", "to_move", "dones",
                     "final_observations"):
            getattr(vg, name)[...] = getattr(self, name)
        return vg

    def __reduce__(self):
        """Pickled as each game's JSON position and generator state, the seeds and
        episode counters, the batch generator and the arrays of the last step; unpickling
        checks every position with the engine's reader."""
        self._ready()
        cdef int i
        games = [(self.position(i), int(self.games[i].rng)) for i in range(self.num_games)]
        state = (games, [int(self.seeds[i]) for i in range(self.num_games)],
                 [int(self.episodes[i]) for i in range(self.num_games)], int(self.rng),
                 self.rewards.copy(), self.dones.copy(), self.final_observations.copy())
        return (_restore_vector, (self.num_games, self.options, self._init_args, state))

    cdef _restore(self, state):
        games, seeds, episodes, rng, rewards, dones, final = state
        _fits("games", len(games), self.num_games)
        _fits("seeds", len(seeds), self.num_games)
        _fits("episodes", len(episodes), self.num_games)
        if not len(games) == len(seeds) == len(episodes) == self.num_games:
            raise ValueError(f"a pickled VectorGames of {self.num_games} games holds "
                             f"{len(games)} positions")
        cdef int i
        cdef cn_state tmp
        for i in range(self.num_games):
            pos, grng = games[i]
            g = _py_from_position(pos, check_moves=False)
            if g.options != self.options or g.to_move is None:
                raise ValueError(f"game {i}: the pickled position does not fit this batch")
            _load_game(&tmp, g)
            tmp.rng = <uint64_t>_int_in(f"game {i}'s generator state", grng, 0, 2**64 - 1)
            self.games[i] = tmp
            self.seeds[i] = <uint64_t>_int_in(f"seeds[{i}]", seeds[i], 0, 2**64 - 1)
            self.episodes[i] = <uint64_t>_int_in(f"episodes[{i}]", episodes[i], 0, 2**64 - 1)
            self._write(i)
        self.rng = <uint64_t>_int_in("the batch generator state", rng, 0, 2**64 - 1)
        self.rewards[...] = rewards
        self.dones[...] = dones
        self.final_observations[...] = final

    @property
    def num_envs(self):
        """``num_games`` under the gymnasium vector-env name."""
        return self.num_games

    def close(self):
        pass


def _restore_vector(num_games, options, init_args, state):
    """A :class:`VectorGames` from ``VectorGames.__reduce__``'s state (its number of
    positions checked against ``num_games`` first: a tampered pickle cannot make a
    batch larger than the positions it holds)."""
    reward_scale, starting_scores, starting_round = init_args
    if not isinstance(state, tuple) or len(state) != 7 or not hasattr(state[0], "__len__") \
            or len(state[0]) != num_games:
        raise ValueError(f"a pickled VectorGames of {num_games!r} games must hold as many "
                         f"positions"[:200])
    cdef VectorGames vg = VectorGames(num_games, options, 0, reward_scale, starting_scores,
                                      starting_round)
    vg._restore(state)
    return vg
