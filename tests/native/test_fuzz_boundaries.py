"""Nothing a caller sends can corrupt the native core (issue 32).

* Every capacity of the C state (``canasta_env/engine/limits.py``) is tried at and one
  past its limit: at the limit the field is read (or refused for another, named reason),
  past it the position is refused with a PositionError naming the field and the limit,
  on every loader (the engine, ``NativeGame``, ``VectorGames.set_position``, both env
  backends). The first of these (``turn.new_ranks`` longer than the C array) corrupted
  the heap of the process before.
* Hypothesis fuzzes the position format (lists past every capacity, duplicates, wrong
  types, deep nesting, extreme numbers), ``RulesOptions`` and the action arrays of
  ``VectorGames.step``, on both backends: every refusal is one of the documented Python
  exceptions, and whatever is accepted plays on. ``.ci/sanitize`` runs this module under
  AddressSanitizer and UndefinedBehaviorSanitizer; ``CANASTA_FUZZ_EXAMPLES`` sets the
  examples per fuzz test (default 400).
"""

from __future__ import annotations

import copy
import os
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import canasta_env
from canasta_env.engine import Game, IllegalActionError, from_position, to_position
from canasta_env.engine import limits as L
from canasta_env.engine.options import OPTION_BOUNDS, OptionsError, RulesOptions, preset
from canasta_env.engine.position import PositionError
from canasta_env.engine.state import Phase
from canasta_env.native import available as NATIVE
from canasta_env.native.fallback import PyNativeGame, PyVectorGames

if NATIVE:
    from canasta_env.native import NativeGame, VectorGames

EXAMPLES = int(os.environ.get("CANASTA_FUZZ_EXAMPLES", "400"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
#: what a refused load may raise (issue 32: never a signal, a hang or another exception)
REFUSALS = (PositionError, OptionsError, ValueError, TypeError)
BACKENDS = ["native", "python"] if NATIVE else ["python"]


def _collect(variant: str, seed: int, want: int = 14) -> list[dict]:
    """Positions of random play, one per phase reached, mid-turn records included."""
    rng = random.Random(seed)
    out: dict[tuple, dict] = {}
    g = Game(preset(variant), seed=seed)
    for _ in range(40_000):
        if g.phase >= Phase.HAND_OVER:
            out.setdefault(("over",), to_position(g))
            if g.phase == Phase.GAME_OVER or len(out) >= want:
                g = Game(preset(variant), seed=rng.randrange(10**6))
            else:
                g.next_hand()
            continue
        key = (g.phase.name, bool(g.new_ranks), bool(g.pending), bool(any(g.books)),
               g.hand_number > 0)
        if key not in out and rng.random() < 0.3:
            out[key] = to_position(g)
        g.apply(rng.choice(g.legal_actions()))
        if len(out) >= want:
            break
    return list(out.values())


BASES = {v: _collect(v, s) for v, s in (("classic", 1), ("hand_and_foot", 2))}
RUNNING = {v: [p for p in ps if p["phase"] not in ("HAND_OVER", "GAME_OVER")]
           for v, ps in BASES.items()}


def _loaders(variant: str):
    """(name, load(pos)) for every way a position reaches a game."""
    opts = preset(variant)
    yield "engine", lambda p: from_position(p)
    yield "fallback", lambda p: PyNativeGame.from_position(p)
    yield "fallback-vector", lambda p: PyVectorGames(2, opts, seed=0).set_position(1, p)
    if NATIVE:
        yield "native", lambda p: NativeGame.from_position(p)
        yield "native-vector", lambda p: VectorGames(2, opts, seed=0).set_position(1, p)
    for backend in BACKENDS:
        yield f"env-{backend}", lambda p, b=backend: canasta_env.env(
            variant=variant, backend=b).reset(options={"position": p})


def _play_on(game, steps: int = 30) -> None:
    rng = random.Random(0)
    for _ in range(steps):
        if game.hand_over:
            return
        game.apply(rng.choice(game.legal_actions()))


# ---------------------------------------------------------------- capacities

def _with(pos: dict, path: tuple, value) -> dict:
    p = copy.deepcopy(pos)
    node = p
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return p


def _meld_base(variant: str, need: str) -> dict:
    for p in RUNNING[variant]:
        if need == "new_ranks" and p["turn"]["new_ranks"]:
            return p
        if need == "pending" and p["turn"]["pending"]:
            return p
        if need == "books" and any(p["books"]):
            return p
        if need == "any":
            return p
    raise AssertionError(f"no {variant} base position with {need}")


def _past_capacity_cases():
    c = _meld_base("classic", "any")
    nr = _meld_base("classic", "new_ranks")
    hf = _meld_base("hand_and_foot", "any")
    rank = nr["turn"]["new_ranks"][0]
    yield "stock", _with(c, ("stock",), ["4"] * (L.CARD_CAPACITY + 1)), "stock has 481 entries"
    yield "pile", _with(c, ("pile",), ["5"] * (L.CARD_CAPACITY + 1)), "pile has 481 entries"
    yield ("pending", _with(nr, ("turn", "pending"), ["6"] * (L.CARD_CAPACITY + 1)),
           "turn.pending has 481 entries")
    yield ("new_ranks", _with(nr, ("turn", "new_ranks"), [rank] * (L.NEW_RANKS_CAPACITY + 1)),
           "turn.new_ranks has 16 entries; at most 15 fit")
    yield ("new_ranks-duplicate", _with(nr, ("turn", "new_ranks"), [rank, rank]),
           "turn.new_ranks lists a rank twice")
    yield ("new_ranks-huge", _with(nr, ("turn", "new_ranks"), [rank] * 100_000),
           "turn.new_ranks has 100,000 entries")
    yield ("hands", _with(c, ("hands", 0), ["7"] * (L.MAX_PACK + 1)),
           "hands[0] has 457 entries; at most 456 fit")
    book = {"rank": "4", "naturals": 7, "jokers": 0, "twos": 0}
    yield ("books", _with(hf, ("books", 0), [book] * (L.BOOK_CAPACITY + 1)),
           "books[0] has 129 entries; at most 128 fit")
    yield ("book-card-count", _with(hf, ("books", 0), [dict(book, naturals=300)]),
           "books[0].naturals must be in 0..7, got 300")
    yield "log", _with(c, ("log",), [{"event": "x"}] * (L.LOG_MAX + 1)), "log has 100,001 entries"
    yield ("history", _with(c, ("history",), [{}] * (L.HISTORY_MAX + 1)),
           "history has 100,001 entries")
    yield ("scores", _with(c, ("scores",), [L.SCORE_LIMIT + 1, 0]),
           "scores[0] must be in -1,000,000,000,000,000..1,000,000,000,000,000")
    yield ("scores-float", _with(c, ("scores",), [1e300, 0]), "scores[0] must be an int")
    yield ("hand_number", _with(c, ("hand_number",), L.MAX_HANDS),
           "hand_number must be in 0..99,999, got 100,000")
    yield ("opening_minimums", _with(c, ("options", "opening_minimums"),
                                     [[i, 50] for i in range(L.MINIMUMS_CAPACITY + 1)]),
           "opening_minimums must hold at most 32 entries")
    yield ("round_minimums", _with(hf, ("options", "round_minimums"),
                                   [60] * (L.MINIMUMS_CAPACITY + 1)),
           "round_minimums must hold at most 32 entries")
    yield ("red_three_bonus", _with(c, ("options", "red_three_bonus"), 10**9),
           "red_three_bonus must be in 0..100,000")
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    yield "deep-log", _with(c, ("log",), [{"event": "deal", "upcards": deep}]), "nested deeper than 8"
    yield ("long-string", _with(c, ("phase",), "M" * 10_000),
           "a string of 10,000 characters")
    yield ("turn-points", _with(nr, ("turn", "turn_points"), 2**63),
           "turn.turn_points must be in 0..100,000")
    yield ("asked", _with(nr, ("turn", "asked"), 2**64), "turn.asked must be in 0..2")
    yield ("wild-meld", _with(hf, ("wild_melds", 0, "jokers"), 2**40),
           "wild_melds[0].jokers must be in 0..456")
    yield ("meld-count", _with(c, ("melds", 0), {"4": {"naturals": 2**70, "jokers": 0, "twos": 0}}),
           "melds[0]['4'].naturals must be in 0..456")


PAST_CAPACITY = list(_past_capacity_cases())


@pytest.mark.parametrize("name,pos,message", PAST_CAPACITY, ids=[c[0] for c in PAST_CAPACITY])
def test_past_every_capacity_every_loader_refuses_with_the_field_named(name, pos, message):
    variant = pos["options"]["variant"]
    for loader, load in _loaders(variant):
        with pytest.raises(PositionError) as e:
            load(pos)
        assert message in str(e.value), (loader, str(e.value))


def test_at_capacity_the_lists_are_accepted_by_the_shape_check():
    """The limits are not off by one: a log of exactly LOG_MAX entries and a history of
    HISTORY_MAX entries pass the shape and length checks (the game loads)."""
    c = _meld_base("classic", "any")
    log = [{"event": "x"}] * L.LOG_MAX
    g = from_position(_with(c, ("log",), log), check_moves=False)
    assert len(g.log) == L.LOG_MAX
    if NATIVE:
        ng = NativeGame.from_position(_with(c, ("log",), log), check_moves=False)
        assert len(ng.log) == L.LOG_MAX


def test_a_game_with_the_largest_bonuses_keeps_scores_64_bit_and_loadable():
    """Scores past 32 bits: the engines agree (the native core wrapped to
    -2,147,482,073 before), the observation stays finite and within the heuristic's
    range, and the position loads again."""
    opts = preset("classic", red_three_bonus=L.POINTS_MAX, red_three_all_bonus=L.POINTS_MAX,
                  natural_canasta_bonus=L.POINTS_MAX, mixed_canasta_bonus=L.POINTS_MAX,
                  target_score=L.TARGET_SCORE_MAX)
    start = 2**31 + 12_345
    games = [Game(opts, seed=4, scores=(start, -start))]
    if NATIVE:
        games.append(NativeGame(opts, seed=4, scores=(start, -start)))
    for g in games:
        pos = to_position(g) if isinstance(g, Game) else g.to_position()
        assert pos["scores"] == [start, -start]
        _play_on(g, 5000)
        again = from_position(g.to_position() if not isinstance(g, Game) else to_position(g))
        assert again.scores == list(g.scores)
        obs = g.encode(0) if not isinstance(g, Game) else canasta_env.observation.encode(g, 0)
        assert np.isfinite(obs).all() and obs.max() <= 10_000
        if g.hand_over:
            total = [s.total for s in g.sheets]
            assert list(g.scores) == total
            assert abs(g.scores[0] - start) < L.HAND_POINTS_LIMIT * 5


def test_observed_scores_are_clipped_the_same_on_both_engines():
    big = L.OBSERVED_SCORE_LIMIT * 7
    py = Game(preset("classic"), seed=2, scores=(big, -big))
    pos = to_position(py)
    want = canasta_env.observation.encode(from_position(pos), 0)
    s = canasta_env.observation.SLICES["scores"]
    b = canasta_env.observation.SLICES["scores_below_zero"]
    assert want[s][0] * 5000 == pytest.approx(L.OBSERVED_SCORE_LIMIT)
    assert want[b][1] * 5000 == pytest.approx(L.OBSERVED_SCORE_LIMIT)
    if NATIVE:
        np.testing.assert_array_equal(NativeGame.from_position(pos).encode(0), want)


# ---------------------------------------------------------------- fuzz: positions

_NASTY_INTS = st.sampled_from([-1, 0, 1, 3, 15, 16, 127, 128, 129, 255, 256, 455, 456, 457,
                               479, 480, 481, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63,
                               2**64 - 1, 2**64, -2**31, -2**63 - 1, 10**15 + 1, 10**30])
_NASTY = st.one_of(
    _NASTY_INTS,
    st.sampled_from([None, True, False, float("nan"), float("inf"), -1e308, 1.5, "", "A",
                     "Joker", "wild", "MELD", "x" * 65, {}, [], [[]], {"a": 1}]),
    st.integers(min_value=-2**70, max_value=2**70),
)


@st.composite
def _mutated_position(draw):
    variant = draw(st.sampled_from(sorted(BASES)))
    pos = copy.deepcopy(draw(st.sampled_from(BASES[variant])))
    for _ in range(draw(st.integers(1, 3))):
        node, path = pos, []
        # walk down to a random container
        for _ in range(draw(st.integers(0, 4))):
            if isinstance(node, dict) and node:
                k = draw(st.sampled_from(sorted(node)))
            elif isinstance(node, list) and node:
                k = draw(st.integers(0, len(node) - 1))
            else:
                break
            if not isinstance(node[k], (dict, list)):
                break
            node, path = node[k], path + [k]
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = draw(st.integers(0, len(node) - 1))
        else:
            continue
        kind = draw(st.sampled_from(["value", "grow", "duplicate", "deep", "drop"]))
        old = node[key]
        if kind == "value":
            node[key] = draw(_NASTY)
        elif kind == "grow" and isinstance(old, list):
            fill = old[0] if old else draw(st.sampled_from(["4", "Joker", 7, {"event": "x"}]))
            node[key] = old + [fill] * draw(st.sampled_from([1, 14, 15, 16, 127, 128, 129,
                                                             456, 480, 481, 5000]))
        elif kind == "duplicate" and isinstance(old, list) and old:
            node[key] = old + old
        elif kind == "deep":
            v: object = old
            for _ in range(draw(st.sampled_from([5, 9, 40, 3000]))):
                v = [v]
            node[key] = v
        elif kind == "drop" and isinstance(node, dict):
            del node[key]
    return variant, pos


@pytest.mark.slow
@FUZZ
@given(_mutated_position())
def test_fuzz_positions_every_loader_refuses_cleanly_or_plays_on(case):
    variant, pos = case
    verdicts = {}
    for name, load in _loaders(variant):
        try:
            out = load(pos)
        except REFUSALS:
            verdicts[name] = "refused"
            continue
        verdicts[name] = "accepted"
        if name in ("native", "fallback", "engine") and out is not None:
            _play_on(out)
    # the engine and the native core accept exactly the same positions
    assert verdicts["engine"] == verdicts["fallback"], verdicts
    if NATIVE:
        assert verdicts["engine"] == verdicts["native"], verdicts


# ---------------------------------------------------------------- fuzz: options

_INT_FIELDS = sorted(OPTION_BOUNDS)


@st.composite
def _options(draw):
    base = dict(preset(draw(st.sampled_from(["classic", "hand_and_foot"]))).to_dict())
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(_INT_FIELDS + ["opening_minimums", "round_minimums"]))
        if name in OPTION_BOUNDS:
            lo, hi = OPTION_BOUNDS[name]
            base[name] = draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1]),
                                        _NASTY))
        elif name == "opening_minimums":
            n = draw(st.sampled_from([0, 1, 4, 32, 33]))
            base[name] = [[i * 100 - 10**9 * (i == 0), draw(_NASTY_INTS)] for i in range(n)]
        else:
            base[name] = [draw(_NASTY_INTS) for _ in range(draw(st.sampled_from([0, 1, 4, 33])))]
    return base


@pytest.mark.slow
@FUZZ
@given(_options())
def test_fuzz_rules_options_refused_cleanly_or_playable_on_both_engines(d):
    try:
        opts = RulesOptions.from_dict(d)
    except OptionsError:
        return
    for backend in BACKENDS:
        e = canasta_env.raw_env(variant=opts.variant, backend=backend,
                                **{k: v for k, v in opts.to_dict().items() if k != "variant"})
        e.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(60):
            if not e.agents:
                break
            obs, _, term, trunc, _ = e.last()
            assert np.isfinite(obs["observation"]).all()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ---------------------------------------------------------------- fuzz: actions

_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
           np.float32, np.float64, np.bool_, object]


@pytest.mark.slow
@FUZZ
@given(st.sampled_from(_DTYPES), st.sampled_from(["legal", "random", "huge"]),
       st.sampled_from(["plain", "readonly", "strided", "2d", "short"]), st.booleans())
def test_fuzz_action_arrays_refused_cleanly_or_stepped(dtype, values, layout, python):
    vg = (PyVectorGames if python or not NATIVE else VectorGames)(4, preset("classic"), seed=3)
    before = vg.observations.copy()
    legal = vg.sample_actions()
    rng = np.random.default_rng(1)
    if values == "legal":
        raw = legal.astype(np.int64)
    elif values == "random":
        raw = rng.integers(-5, 100, size=4)
    else:
        raw = np.array([2**40, -2**40, 2**62, 7])
    try:
        arr = raw.astype(dtype)
    except (OverflowError, ValueError):
        return
    if layout == "readonly":
        arr.setflags(write=False)
    elif layout == "strided":
        arr = np.repeat(arr, 2)[::2]
    elif layout == "2d":
        arr = arr.reshape(2, 2)
    elif layout == "short":
        arr = arr[:3]
    try:
        vg.step(arr)
    except (TypeError, ValueError, IllegalActionError):
        np.testing.assert_array_equal(vg.observations, before)  # nothing changed
        return
    assert values == "legal" and layout in ("plain", "readonly", "strided")


# ---------------------------------------------------------------- copies

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("wrapped", [True, False])
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_env_copies_play_on_identically_and_independently(backend, wrapped, how):
    make = canasta_env.env if wrapped else canasta_env.raw_env
    e = make(backend=backend, episode="game")
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    c = {"copy": copy.copy, "deepcopy": copy.deepcopy,
         "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](e)
    assert c.unwrapped._g is not e.unwrapped._g
    # stepping the copy alone leaves the original where it was
    mark = e.unwrapped.position()
    probe = copy.deepcopy(c)
    obs, *_ = probe.last()
    probe.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.unwrapped.position() == mark
    steps = hands = 0
    r = np.random.default_rng(1)
    while e.agents and steps < 3000:
        a1, a2 = e.last(), c.last()
        np.testing.assert_array_equal(a1[0]["observation"], a2[0]["observation"])
        np.testing.assert_array_equal(a1[0]["action_mask"], a2[0]["action_mask"])
        assert a1[1:4] == a2[1:4] and e.agent_selection == c.agent_selection
        if a1[2] or a1[3]:
            e.step(None)
            c.step(None)
            continue
        a = int(r.choice(np.flatnonzero(a1[0]["action_mask"])))
        e.step(a)
        c.step(a)
        steps += 1
        hands = e.unwrapped.openings()[0]
    assert hands >= 1  # the next deal (the game's generator) came out the same too


@pytest.mark.skipif(not NATIVE, reason="the compiled core is not built")
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_native_game_and_vector_copies_are_real_copies(how):
    dup = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how]
    g = NativeGame(preset("classic"), seed=11)
    _play_on(g, 25)
    c = dup(g)
    assert c.to_position() == g.to_position()
    rng = random.Random(2)
    for _ in range(5000):  # to the end of the hand, then the next deal
        if g.hand_over:
            if g.game_over:
                break
            g.next_hand()
            c.next_hand()
            continue
        a = rng.choice(g.legal_actions())
        g.apply(a)
        c.apply(a)
        np.testing.assert_array_equal(c.encode(1), g.encode(1))
    assert c.to_position() == g.to_position() and g.hand_number >= 1

    vg = VectorGames(6, preset("hand_and_foot"), seed=4, starting_scores="sample")
    for _ in range(30):
        vg.step(vg.sample_actions())
    vc = dup(vg)
    for name in ("observations", "masks", "rewards", "dones", "to_move", "final_observations"):
        np.testing.assert_array_equal(getattr(vc, name), getattr(vg, name))
    hands_over = 0
    for _ in range(1500):
        a = vg.sample_actions()
        assert np.array_equal(vc.sample_actions(), a)  # the batch generator was copied
        vg.step(a)
        vc.step(a)
        np.testing.assert_array_equal(vc.observations, vg.observations)
        np.testing.assert_array_equal(vc.rewards, vg.rewards)
        hands_over += int(vg.dones.sum())
    assert hands_over >= 1  # new deals (seeds and episode counters) came out the same


def test_a_tampered_pickle_is_refused_by_the_reader():
    if not NATIVE:
        pytest.skip("the compiled core is not built")
    from canasta_env.native._core import _restore_game

    pos = NativeGame(preset("classic"), seed=1).to_position()
    pos["turn"]["new_ranks"] = ["4"] * 200
    with pytest.raises(PositionError, match="turn.new_ranks has 200 entries"):
        _restore_game(pos, 5)
    with pytest.raises(ValueError, match="generator state"):
        _restore_game(NativeGame(seed=1).to_position(), -1)
