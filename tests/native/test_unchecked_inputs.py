"""Inputs that reach the native core without passing the position reader or RulesOptions'
checks (issue 32 review): options changed after validation (a tampered pickle,
``object.__setattr__``, a subclass that skips ``__post_init__``) and hand-built Python
games handed to ``NativeGame.from_game``. Each was copied into the C state unchecked and
let the core write or read past its arrays (a deal of 50 decks into the 480-card stock, a
seat 1000 read as ``hands[1000]``); each must now be refused with a Python exception,
the same way on both backends."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import pytest

from canasta_env.engine import Game
from canasta_env.engine.options import OptionsError, RulesOptions, classic, hand_and_foot
from canasta_env.engine.position import PositionError
from canasta_env.native import available as NATIVE
from canasta_env.native.fallback import PyNativeGame

pytestmark = pytest.mark.skipif(not NATIVE, reason="the compiled core is not built")

if NATIVE:
    from canasta_env.native._core import _restore_vector

    from canasta_env.native import NativeGame, VectorGames


def _tampered(base: RulesOptions | None = None, **changes) -> RulesOptions:
    """``base`` with fields changed past RulesOptions' checks, as an unpickled tampered
    pickle gives them (pickle restores a dataclass's fields without __post_init__)."""
    o = pickle.loads(pickle.dumps(base or classic()))
    for k, v in changes.items():
        object.__setattr__(o, k, v)
    return pickle.loads(pickle.dumps(o))


@dataclass(frozen=True)
class _Unchecked(RulesOptions):
    def __post_init__(self) -> None:  # skips every check
        pass


class _LyingInt(int):
    """An int whose comparisons always pass (its value is what C reads)."""

    def __le__(self, other):
        return True

    def __ge__(self, other):
        return True

    def __lt__(self, other):
        return True

    def __gt__(self, other):
        return True


BAD_OPTIONS = {
    "decks past the pack's capacity": lambda: _tampered(decks=50),
    "hand_size past the pack": lambda: _tampered(hand_size=400),
    "draw_count past its bound": lambda: _tampered(draw_count=10**6),
    "a bool field that is not 0 / 1": lambda: _tampered(black_three_melds=7),
    "opening_minimums past 32 entries": lambda: _tampered(
        opening_minimums=tuple((i, 50) for i in range(40))),
    "a subclass that skips the checks": lambda: _Unchecked(decks=50),
    "an int whose comparisons lie": lambda: classic(decks=_LyingInt(50)),
    "foot_size past its bound (Hand and Foot)": lambda: _tampered(hand_and_foot(),
                                                                  foot_size=200),
}


@pytest.mark.parametrize("make", BAD_OPTIONS.values(), ids=BAD_OPTIONS.keys())
def test_options_changed_after_validation_are_refused_by_every_native_entry(make):
    opts = make()
    with pytest.raises((OptionsError, ValueError, TypeError)):
        NativeGame(opts, seed=1)
    with pytest.raises((OptionsError, ValueError, TypeError)):
        VectorGames(2, opts, 0)
    vg = VectorGames(2, classic(), 0)
    state = vg.__reduce__()[1][3]
    with pytest.raises((OptionsError, ValueError, TypeError)):
        _restore_vector(2, opts, (0.001, (0, 0), 1), state)
    g = Game(classic(), seed=1)
    g.options = opts
    with pytest.raises((OptionsError, ValueError, TypeError)):
        NativeGame.from_game(g)


def test_a_pickled_batch_with_tampered_options_is_refused():
    vg = VectorGames(2, classic(), 0)
    fn, (n, _opts, init, state) = vg.__reduce__()
    data = pickle.dumps((fn, n, _tampered(decks=50), init, state))
    fn, n, opts, init, state = pickle.loads(data)
    with pytest.raises((OptionsError, ValueError)):
        fn(n, opts, init, state)


def test_valid_options_still_load_and_a_changed_object_is_checked_again():
    o = classic()
    NativeGame(o, seed=1)
    object.__setattr__(o, "decks", 50)  # the same object, changed after its first use
    with pytest.raises((OptionsError, ValueError)):
        NativeGame(o, seed=1)


def _game(**changes):
    g = Game(classic(), seed=1)
    for k, v in changes.items():
        if "." in k:
            name, i = k.split(".")
            getattr(g, name)[int(i)] = v
        else:
            setattr(g, k, v)
    return g


BAD_GAMES = {
    "current seat 1000": dict(current=1000),
    "current seat -5": dict(current=-5),
    "dealer 99": dict(dealer=99),
    "phase 99": dict(phase=99),
    "asked 1000": dict(asked=1000),
    "went_out 50": dict(went_out=50),
    "winner 7": dict(winner=7),
    "hand_number 2**31 - 1": dict(hand_number=2**31 - 1),
    "red 3s 10**9": {"red3.0": 10**9},
    "minimum -10**9": {"minimum.0": -10**9},
    "a hand of 1000 jokers": {"hands.1": [1000] + [0] * 14},
    "a negative card count": {"hands.1": [-3] + [0] * 14},
    "a wild meld of 10**6 jokers": {"wild_meld.0": [10**6, 0]},
}


@pytest.mark.parametrize("changes", BAD_GAMES.values(), ids=BAD_GAMES.keys())
def test_a_hand_built_game_is_checked_like_a_position_on_both_backends(changes):
    with pytest.raises((PositionError, IndexError)):
        PyNativeGame.from_game(_game(**changes))
    with pytest.raises((PositionError, IndexError)):
        NativeGame.from_game(_game(**changes))


def test_from_game_keeps_a_valid_game_whole():
    g = Game(hand_and_foot(), seed=3)
    for _ in range(30):
        g.apply(g.legal_actions()[0])
    ng = NativeGame.from_game(g)
    assert ng.to_position() == PyNativeGame.from_game(g).to_position()


class _LyingEq(_LyingInt):
    """An int that is equal to everything (``x in range(4)`` passes)."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


LYING_POSITIONS = {
    "turn_points": lambda p: p["turn"].__setitem__("turn_points", _LyingInt(2**31 - 1)),
    "turn.asked": lambda p: p["turn"].__setitem__("asked", _LyingInt(1000)),
    "minimum": lambda p: p["minimum"].__setitem__(0, _LyingInt(-10**9)),
    "decisions": lambda p: p.__setitem__("decisions", _LyingInt(2**62)),
    "hand_number": lambda p: p.__setitem__("hand_number", _LyingInt(2**31 - 1)),
    "current": lambda p: p.__setitem__("current", _LyingEq(1000)),
    "dealer": lambda p: p.__setitem__("dealer", _LyingEq(1000)),
    "winner": lambda p: p.__setitem__("winner", _LyingEq(7)),
}


@pytest.mark.parametrize("tamper", LYING_POSITIONS.values(), ids=LYING_POSITIONS.keys())
def test_int_subclasses_in_a_position_are_checked_by_their_value_on_both_backends(tamper):
    from canasta_env.engine import to_position

    for cls in (NativeGame, PyNativeGame):
        pos = to_position(Game(classic(), seed=1))
        tamper(pos)
        with pytest.raises(PositionError):
            cls.from_position(pos)


def test_a_pickled_batch_claiming_more_games_than_it_holds_is_refused_before_allocating():
    from canasta_env.native._core import MAX_GAMES

    vg = VectorGames(2, classic(), 0)
    fn, (n, opts, init, state) = vg.__reduce__()
    # 2**24 games would be tens of GB of C states (MemoryError, or the machine's memory
    # dealt full) before the two positions were found to be too few
    with pytest.raises(ValueError, match="must hold as many positions"):
        fn(MAX_GAMES, opts, init, state)
    with pytest.raises(ValueError):
        fn(3, opts, init, state)
    assert fn(n, opts, init, state).position(1) == vg.position(1)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_env_reset_seed_is_an_int_numpy_ints_included(backend):
    import numpy as np

    import canasta_env

    e = canasta_env.env(backend=backend)
    e.reset(seed=3)
    first = e.observe(e.agent_selection)["observation"].copy()
    e.reset(seed=np.int64(3))  # random.seed refused numpy ints
    np.testing.assert_array_equal(e.observe(e.agent_selection)["observation"], first)
    e.reset(seed=np.uint64(2**64 - 1))
    for bad in (True, 3.0, "3", np.float32(3)):  # random.seed took these silently
        with pytest.raises(TypeError, match="seed must be an int or None"):
            e.reset(seed=bad)


def test_objects_made_by_new_alone_are_refused_not_run():
    """``NativeGame.__new__`` / ``VectorGames.__new__`` without ``__init__`` left a zeroed
    C state: search_game_values wrote past its value array (ASan heap-buffer-overflow),
    VectorGames.sample_actions divided by zero (SIGFPE)."""
    from canasta_env.native._core import NativeHeuristic, determinised, search_game_values, search_values

    h = NativeHeuristic()
    g = NativeGame.__new__(NativeGame)
    for call in (lambda: search_game_values(g, h, 4, 0, 100), g.legal_actions, g.copy,
                 lambda: g.encode(0), g.to_position, g.next_hand, lambda: g.apply(5),
                 lambda: determinised(g, 1, 0), lambda: pickle.dumps(g)):
        with pytest.raises(RuntimeError, match="never set up"):
            call()
    vg = VectorGames.__new__(VectorGames, 2)
    for call in (vg.sample_actions, lambda: vg.step([0, 0]), lambda: vg.redeal([0]),
                 lambda: vg.position(0), lambda: vg.reset(1), lambda: pickle.dumps(vg),
                 lambda: search_values(vg, [0, 1], h, 2)):
        with pytest.raises(RuntimeError, match="never set up"):
            call()


@pytest.mark.parametrize("where, value", [
    ("generator", "5"), ("generator", 2.5), ("generator", -1), ("seed", 2**64),
    ("episode", "0"), ("rng", -3), ("rng", 1.0)])
def test_a_pickled_batch_refuses_generator_states_that_are_not_uint64(where, value):
    """_restore took int(x) & mask of anything: '5', 2.5 and -1 were silently accepted
    (NativeGame's _restore_game refuses them)."""
    vg = VectorGames(2, classic(), 0)
    fn, (n, opts, init, state) = vg.__reduce__()
    games, seeds, episodes, rng, *arrays = state
    games = [list(x) for x in games]
    if where == "generator":
        games[1][1] = value
    elif where == "seed":
        seeds = [0, value]
    elif where == "episode":
        episodes = [value, 0]
    else:
        rng = value
    with pytest.raises((TypeError, ValueError)):
        fn(n, opts, init, (games, seeds, episodes, rng, *arrays))


_BIG_REQUIREMENTS = r"""
import random, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, 3_000_000_000))
from canasta_env.engine import Game
from canasta_env.engine.options import hand_and_foot
from canasta_env.native import NativeGame
k = 1000  # limits.REQUIREMENT_MAX
o = hand_and_foot(clean_books_to_go_out=k, dirty_books_to_go_out=k, canastas_to_go_out=k)
rng, check = random.Random(1), random.Random(2)
g = NativeGame(o, seed=1)
for _ in range(1500):
    if g.hand_over:
        g = NativeGame(o, seed=rng.randrange(10**6))
    la = g.legal_actions()
    if len(la) > 1 and check.random() < 0.1:  # the Python engine's legal actions agree
        assert g.to_game().legal_actions() == la
    g.apply(rng.choice(la))
# this process's peak resident memory (VmHWM is reset by exec; ru_maxrss keeps the
# forking parent's peak, here pytest's)
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(int(peak.split()[1]) // 1024)
"""


def test_going_out_requirements_at_their_bound_need_no_memory_of_their_size():
    """can_meld_all sized its tables by the requirements (clean, dirty and total books to
    go out, each up to 1,000): W * 1001**3 bytes per call, gigabytes of memory per legal
    check (and a silently wrong answer where the allocation failed). The requirements now
    stop at the books the cards could make."""
    import os
    import subprocess
    import sys

    if "asan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("AddressSanitizer's shadow memory does not fit an address-space limit")
    out = subprocess.run([sys.executable, "-c", _BIG_REQUIREMENTS], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) < 400  # MB: the process, not the tables


def test_a_seed_too_long_for_the_python_deal_is_refused_on_both_backends():
    """A position's seed of 10**5000 loaded on both backends, then the Python backend's
    next deal raised ValueError (Python converts at most 4,300 digits to text) from inside
    env.step while the native backend played on: the seed is now bounded
    (limits.SEED_BITS_MAX) by the reader and by both games' constructors."""
    from canasta_env.engine import from_position, to_position
    from canasta_env.engine import limits as L

    pos = to_position(Game(seed=1))
    pos["seed"] = 10**5000
    for load in (from_position, NativeGame.from_position, PyNativeGame.from_position):
        with pytest.raises(PositionError, match="seed has"):
            load(pos)
    for make in (Game, NativeGame, PyNativeGame):
        with pytest.raises(ValueError, match="seed has"):
            make(classic(), seed=-(2**L.SEED_BITS_MAX))
    pos["seed"] = 2**L.SEED_BITS_MAX - 1  # at the bound: read, dealt, written
    g = from_position(pos)
    g.apply(g.legal_actions()[0])
    assert from_position(to_position(g))
    assert Game(classic(), seed=-(2**L.SEED_BITS_MAX - 1)).legal_actions()
