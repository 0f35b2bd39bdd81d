"""The fast heuristic (core/heuristic.c through ``HeuristicPolicy``'s native backend)
makes the decisions of the Python reference (``HeuristicPolicy(backend="python")``).

- 10,000 recorded positions (tests/helpers/heuristic_positions.py, tests/data/heuristic_decisions.npz):
  6,000 Classic under three option sets with the heuristic's matching parameters, all
  four opening minimums; 4,000 Hand and Foot, all four rounds, feet picked up. Each
  position replays bit for bit (CRC), and the fast heuristic's action -- ``act`` and
  ``act_batch`` -- is the recorded one, as is the live Python reference's.
- Random observations (any values the input check accepts) and masks: ``act_batch`` row
  by row equals ``act`` and the Python reference; ``p_at_least`` is the same double.
- Bad inputs: the batch check's and the native binding's exact messages.
"""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import canasta_env.native
from canasta_env.engine import actions as A
from canasta_env.engine.game import Phase
from canasta_env.observation import SCALE_HAND_AND_FOOT, SLICES_HAND_AND_FOOT
from canasta_env.policies import OBS_MAX, HeuristicPolicy, check_policy_inputs, p_at_least
from tests.helpers.heuristic_positions import DATA, SETTINGS, crc, replay

NATIVE = canasta_env.native.available
needs_native = pytest.mark.skipif(not NATIVE, reason="the native core is not built")
S = SLICES_HAND_AND_FOOT


@pytest.fixture(scope="module")
def recorded():
    """({setting: (observations [n, N], masks [n, A], recorded actions [n])}, the
    recorded CRC of every position, the replayed CRC of every position)."""
    data = np.load(Path(__file__).parents[1] / "data" / DATA)
    actions = data["actions"].astype(np.int64)
    per: dict[int, tuple[list, list, list]] = {}
    replayed = []
    k = 0
    for row, count in zip(data["games"], data["counts"]):
        count = int(count)
        mine = actions[k:k + count]
        k += count
        obs_l, mask_l, act_l = per.setdefault(int(row[0]), ([], [], []))
        it = iter(mine.tolist())
        for obs, mask in replay(row, lambda o, m, it=it: next(it), count):
            obs_l.append(obs)
            mask_l.append(mask)
            replayed.append(crc(obs, mask))
        act_l.append(mine)
    by_setting = {s: (np.array(o), np.array(m), np.concatenate(a))
                  for s, (o, m, a) in sorted(per.items())}
    return by_setting, data["crcs"].tolist(), replayed


def test_recorded_positions_replay_bit_for_bit(recorded):
    by_setting, crcs, replayed = recorded
    first = next((i for i, (a, b) in enumerate(zip(crcs, replayed)) if a != b), None)
    assert first is None, (f"position {first} no longer replays (the engine's deal or rules "
                           f"changed): regenerate with python tests/data/make_heuristic_decisions.py")
    sizes = {s: len(v[2]) for s, v in by_setting.items()}
    assert sizes == {0: 3000, 1: 1500, 2: 1500, 3: 4000}


def test_recorded_positions_cover_every_phase_minimum_round_and_the_foot(recorded):
    by_setting, _, _ = recorded
    classic = np.concatenate([by_setting[s][0] for s in (0, 1, 2)])
    hf = by_setting[3][0]
    for obs in (classic, hf):
        phases = set(np.argmax(obs[:, S["phase"]], axis=1).tolist())
        assert {Phase.DRAW, Phase.PICKUP, Phase.MELD, Phase.ANSWER} <= phases
    unopened = classic[:, S["opened"].start] < 0.5
    minimums = np.rint(classic[:, S["opening_minimums"].start] * 120)
    melding = np.argmax(classic[:, S["phase"]], axis=1) == Phase.MELD
    assert set(minimums[unopened & melding].tolist()) == {15, 50, 90, 120}
    assert set(np.rint(hf[:, S["round"].start] * 4).tolist()) == {1, 2, 3, 4}
    assert (hf[:, S["in_foot"].start] > 0.5).sum() > 100  # the seat on turn plays its foot
    acts = np.concatenate([by_setting[s][2] for s in (0, 1, 2)])
    for kind in (A.DRAW_STOCK, A.TAKE_PAIR, A.TAKE_ONTO_MELD, A.ANSWER_YES, A.ANSWER_NO,
                 A.MELD_BLACK_THREES):
        assert (acts == kind).any(), A.DESCRIPTIONS[kind]
    assert ((acts >= A.START_MELD) & (acts < A.ADD_TO_MELD)).any()
    assert ((acts >= A.ADD_TO_MELD) & (acts < A.MELD_BLACK_THREES)).any()
    assert (acts >= A.DISCARD).sum() > 1000
    hf_acts = by_setting[3][2]
    for kind in (A.TAKE_PAIR, A.ASK_PARTNER, A.ANSWER_YES, A.TAKE_WILD_PAIR):
        assert (hf_acts == kind).any(), kind
    assert (hf_acts >= A.START_WILD_MELD).any()


@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_fast_heuristic_makes_the_recorded_decisions(recorded, setting):
    obs, masks, expected = recorded[0][setting]
    pol = HeuristicPolicy(**SETTINGS[setting][2])
    assert pol.backend == ("native" if NATIVE else "python")
    batch = pol.act_batch(obs, masks)
    assert batch.dtype == np.int64 and batch.shape == expected.shape
    bad = np.flatnonzero(batch != expected)
    assert bad.size == 0, f"{bad.size} act_batch decisions differ, first at position {bad[:1]}"
    single = np.array([pol.act(o, m) for o, m in zip(obs, masks)])
    assert (single == expected).all()
    bool_masks = masks.astype(bool)  # bool masks take the same path
    assert (pol.act_batch(obs, bool_masks) == expected).all()
    assert [pol.act(o, m) for o, m in zip(obs[:200], bool_masks[:200])] == \
        expected[:200].tolist()


@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_python_reference_still_makes_the_recorded_decisions(recorded, setting):
    obs, masks, expected = recorded[0][setting]
    ref = HeuristicPolicy(backend="python", **SETTINGS[setting][2])
    assert ref.backend == "python"
    assert [ref.act(o, m) for o, m in zip(obs, masks)] == expected.tolist()
    # the Python path of act_batch (row by row)
    assert (ref.act_batch(obs[:300], masks[:300]) == expected[:300]).all()


# ------------------------------------------------------------------ random inputs
@st.composite
def batches(draw):
    """A batch of observations any policy accepts (scaled counts, half-way values,
    arbitrary floats up to OBS_MAX, a phase one-hot or not) and masks with a legal
    action."""
    hf = draw(st.booleans())
    n, na = (245, 98) if hf else (202, 91)
    b = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scale = SCALE_HAND_AND_FOOT[:n]
    kind = draw(st.sampled_from(["counts", "halves", "floats", "large"]))
    if kind == "counts":
        obs = rng.integers(0, 8, (b, n)) * scale
    elif kind == "halves":  # ties of the rounding: half to even
        obs = (rng.integers(0, 30, (b, n)) + 0.5) * scale
    elif kind == "floats":
        obs = rng.random((b, n)) * 3
    else:
        obs = rng.integers(0, 4, (b, n)) * scale
        obs[rng.random((b, n)) < 0.05] = rng.random() * OBS_MAX
    obs = obs.astype(np.float32)
    if draw(st.booleans()):
        obs[:, S["phase"]] = 0
        obs[np.arange(b), S["phase"].start + rng.integers(0, 6, b)] = 1
    masks = (rng.random((b, na)) < draw(st.sampled_from([0.03, 0.2, 0.7]))).astype(np.int8)
    masks[np.arange(b), rng.integers(0, na, b)] = 1
    return obs, masks


@settings(max_examples=300, deadline=None)
@given(batches(), st.integers(0, 2))
def test_act_batch_is_act_row_by_row_and_the_python_reference(batch, setting):
    obs, masks = batch
    kw = SETTINGS[setting][2]
    pol, ref = HeuristicPolicy(**kw), HeuristicPolicy(backend="python", **kw)
    got = pol.act_batch(obs, masks)
    assert got.tolist() == [pol.act(o, m) for o, m in zip(obs, masks)]
    assert got.tolist() == [ref.act(o, m) for o, m in zip(obs, masks)]
    assert all(masks[i, a] == 1 for i, a in enumerate(got))


@needs_native
def test_p_at_least_is_the_python_double_bit_for_bit():
    from canasta_env.native._core import heuristic_p_at_least

    rng = np.random.default_rng(0)
    cases = [(2, 108, 8, 30), (1, 70, 12, 54), (3, 480, 40, 240), (1, 5, 5, 3), (0, 10, 0, 4),
             (1, 10, 0, 4), (4, 10, 3, 4), (1, 10, 3, 0), (1, 3, 3, 9), (1, 0, 0, 5),
             (2, 100, 8, -1), (-1, 100, 8, 5)]
    for _ in range(3000):
        pop = int(rng.integers(0, 481))
        cases.append((int(rng.integers(-1, 6)), pop, int(rng.integers(0, min(pop, 40) + 1)),
                      int(rng.integers(0, pop + 10))))
    for k, pop, s, d in cases:
        assert heuristic_p_at_least(k, pop, s, d) == p_at_least(k, pop, s, d), (k, pop, s, d)
    with pytest.raises(ValueError, match="cannot be among"):
        heuristic_p_at_least(1, 5, 8, 3)
    with pytest.raises(ValueError, match="population 481 is over 480"):
        heuristic_p_at_least(1, 481, 8, 3)


# ------------------------------------------------------------------ bad inputs
def _position(hf=False):
    n, na = (245, 98) if hf else (202, 91)
    obs = np.zeros(n, dtype=np.float32)
    obs[S["phase"].start] = 1
    mask = np.zeros(na, dtype=np.int8)
    mask[[A.DRAW_STOCK, A.TAKE_PAIR]] = 1
    return obs, mask


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_act_batch_bad_inputs_have_exact_messages(backend):
    pol = HeuristicPolicy(backend=backend)
    obs, mask = _position()
    bobs, bmask = np.stack([obs, obs, obs]), np.stack([mask, mask, mask])
    cases = [
        ((obs, bmask), "observations must be 2-D (one row per seat), got shape (202,)"),
        ((bobs, mask), "masks must be 2-D (one row per seat), got shape (91,)"),
        ((bobs, bmask[:2]), "observations has 3 rows and masks 2; they must match"),
        ((bobs.astype(np.int64), bmask), "observation must be floats (float32), got dtype int64"),
        ((bobs, bmask.astype("U1")), "action_mask must be int8, bool or numbers 0 / 1, got dtype <U1"),
        ((bobs[:, :200], bmask), "observation has 200 entries, this Classic policy expects 202"),
        ((np.zeros((3, 245), np.float32), bmask),
         "observation has 245 entries, this Classic policy expects 202 (a Hand and Foot "
         "observation: another variant)"),
    ]
    M0 = bmask.copy()
    M0[1] = 0
    cases.append(((bobs, M0), "row 1: action_mask has no legal action (all zeros)"))
    M2 = bmask.copy()
    M2[2, 5] = 2
    cases.append(((bobs, M2), "row 2: action_mask entries must be 0 or 1, got 2 at index 5"))
    On = bobs.copy()
    On[0, 3] = np.nan
    cases.append(((On, bmask), "row 0: observation has 1 non-finite value(s) (NaN or inf), first "
                           "at index 3"))
    Ob = bobs.copy()
    Ob[1, 7] = -1
    cases.append(((Ob, bmask), "row 1: observation entry 7 is -1.0, outside the encoder's range "
                           "0..10,000 (entries are scaled counts and flags)"))
    for (o, m), message in cases:
        with pytest.raises(ValueError) as e:
            pol.act_batch(o, m)
        assert str(e.value) == message
    # the row messages are check_policy_inputs' for that row
    with pytest.raises(ValueError) as e:
        check_policy_inputs(bobs[1], M0[1])
    assert f"row 1: {e.value}" == "row 1: action_mask has no legal action (all zeros)"
    # an empty batch is no error
    assert pol.act_batch(np.zeros((0, 245), np.float32), np.zeros((0, 98), np.int8)).shape == (0,)


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_act_bad_inputs_keep_check_policy_inputs_messages(backend):
    """The native fast path refuses what check_policy_inputs refuses, with its message."""
    pol = HeuristicPolicy(backend=backend)
    obs, mask = _position()
    hf_obs, hf_mask = _position(hf=True)
    bad = [(obs, np.zeros_like(mask)), (obs, hf_mask), (hf_obs, mask), (obs[None], mask),
           (obs.astype(np.float64) * np.nan, mask), (obs + 20_000, mask), (obs, mask * 3)]
    for o, m in bad:
        with pytest.raises(ValueError) as e:
            check_policy_inputs(o, m)
        with pytest.raises(ValueError) as e2:
            pol.act(o, m)
        assert str(e2.value) == str(e.value)
    # accepted conversions: float64, a strided view, a list mask
    wide = np.zeros((202, 2), np.float32)
    wide[:, 0] = obs
    assert pol.act(obs.astype(np.float64), mask) == pol.act(wide[:, 0], mask.tolist()) == \
        HeuristicPolicy(backend="python").act(obs, mask)


@needs_native
def test_native_binding_reads_read_only_and_strided_arrays():
    """Read-only arrays (a frozen buffer, np.broadcast_to) and arrays that are not
    C-contiguous (Fortran order, a column of a wider array) give the same actions as
    their C-contiguous copies (issue 32: they were refused)."""
    from canasta_env.native._core import NativeHeuristic

    h = NativeHeuristic()
    obs, mask = _position()
    bobs, bmask = np.stack([obs, obs]), np.stack([mask, mask])
    want = h.actions(bobs, bmask).tolist()
    ro_obs, ro_mask = bobs.copy(), bmask.copy()
    ro_obs.setflags(write=False)
    ro_mask.setflags(write=False)
    assert h.actions(ro_obs, ro_mask).tolist() == want
    assert h.actions(np.asfortranarray(bobs), np.asfortranarray(bmask)).tolist() == want
    wide = np.zeros((2, 2 * obs.size), np.float32)
    wide[:, ::2] = bobs
    assert h.actions(wide[:, ::2], bmask).tolist() == want
    assert h.action(np.broadcast_to(obs, obs.shape), mask) == want[0]
    assert h.action(wide[0, ::2], mask) == want[0]


@needs_native
def test_native_binding_checks_before_c():
    from canasta_env.native._core import NativeHeuristic

    h = NativeHeuristic()
    obs, mask = _position()
    bobs, bmask = np.stack([obs, obs]), np.stack([mask, mask])
    cases = [
        (lambda: h.actions(bobs.astype(np.float64), bmask),
         "heuristic: observations must be a C-contiguous float32 2-D array, got float64 array "
         "of shape (2, 202), C-contiguous"),
        (lambda: h.actions(bobs, bmask.astype(bool)),
         "heuristic: masks must be a C-contiguous int8 2-D array, got bool array of shape "
         "(2, 91), C-contiguous"),
        (lambda: h.actions(bobs, bmask[:1]), "heuristic: observations has 2 rows and masks 1; they "
                                      "must match"),
        (lambda: h.actions(bobs, np.zeros((2, 98), np.int8)),
         "heuristic: observations 202 and masks 98 columns are not a layout (202 and 91 "
         "Classic, 245 and 98 Hand and Foot)"),
        (lambda: h.actions(bobs, np.stack([mask, 0 * mask])),
         "heuristic: row 1: action_mask has no legal action (all zeros)"),
        (lambda: h.actions(bobs, bmask, out=np.zeros(2, np.int32)),
         "heuristic: out must be a writeable C-contiguous int64 array of shape (2,), got int32 "
         "array of shape (2,), C-contiguous"),
        (lambda: h.action(obs, 0 * mask), "heuristic: action_mask has no legal action (all zeros)"),
        (lambda: h.action(obs, mask * 2), "heuristic: action_mask entry 0 is 2, not 0 or 1"),
        (lambda: h.action(obs - 1, mask),
         "heuristic: observation entry 0 is -1.0, not a finite value in 0..10,000"),
        (lambda: h.action(list(obs), mask),
         "heuristic: observation must be a C-contiguous float32 1-D array, got list"),
        (lambda: NativeHeuristic(canasta_size=7.0),
         "NativeHeuristic: canasta_size must be an int in -1,000,000..1,000,000, got 7.0"),
        (lambda: NativeHeuristic(pack=[40] * 15),
         f"NativeHeuristic: pack must be 15 non-negative ints summing to at most 480, got "
         f"{[40] * 15!r}"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message
    out = np.full(2, -1, np.int64)
    assert h.actions(bobs, bmask, out=out) is out and out.tolist() == [A.TAKE_PAIR] * 2


def test_backend_option():
    assert HeuristicPolicy(backend="python").backend == "python"
    with pytest.raises(ValueError, match="backend must be 'auto', 'native' or 'python', got 'c'"):
        HeuristicPolicy(backend="c")
    # parameters the native core cannot hold: the Python code decides ("auto") ...
    assert HeuristicPolicy(decks=10).backend == "python"
    # a rules option that is not an int is refused by both (it was taken by the Python code)
    with pytest.raises(ValueError, match="canasta_size must be an int >= 1, got 7.5"):
        HeuristicPolicy(canasta_size=7.5)
    if NATIVE:
        assert HeuristicPolicy().backend == "native"
        # ... or an error when the native core is asked for
        with pytest.raises(ValueError, match="backend='native' is not available: "
                                             "NativeHeuristic: pack must be"):
            HeuristicPolicy(decks=10, backend="native")
    else:
        with pytest.raises(ValueError, match="the native core is not built"):
            HeuristicPolicy(backend="native")


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_heuristic_pickles_and_copies_with_its_backend(recorded, backend):
    obs, masks, expected = recorded[0][1]
    pol = HeuristicPolicy(backend=backend, **SETTINGS[1][2])
    for clone in (pickle.loads(pickle.dumps(pol)), copy.deepcopy(pol), copy.copy(pol)):
        assert clone.backend == pol.backend
        assert (clone.act_batch(obs[:500], masks[:500]) == expected[:500]).all()
    if NATIVE:
        from canasta_env.native._core import NativeHeuristic

        core = pickle.loads(pickle.dumps(NativeHeuristic(4, 6, 2, 3, 1, [1] * 15)))
        assert core.__reduce__()[1] == (4, 6, 2, 3, 1, [1] * 15)
