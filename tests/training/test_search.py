"""Decision-time search on the native core (core/search.c, training/search.py).

The determinisation must keep everything the searching seat sees and deal only what it
cannot see; the search's outcomes must be the hands the heuristic plays from those
deals (checked against the Python engine and the Python heuristic); and two states the
seat cannot tell apart must get the same search.
"""

from __future__ import annotations

import numpy as np
import pytest

from canasta_env.engine import preset
from canasta_env.engine.cards import deck_counts
from canasta_env.native import NativeGame, VectorGames, available, determinised, search_seed, search_values
from canasta_env.policies import HeuristicPolicy

pytestmark = pytest.mark.skipif(not available, reason="needs the compiled native core")

R3 = 3


def _positions(variant: str, games: int, steps: int, seed: int):
    """NativeGames after ``steps`` heuristic decisions in each of ``games`` hands (those
    still running)."""
    h = HeuristicPolicy()
    vg = VectorGames(games, preset(variant), seed=seed, starting_scores="sample",
                     starting_round="sample" if variant == "hand_and_foot" else 1)
    out = []
    for k in range(steps):
        vg.step(h.act_batch(vg.observations, vg.masks))
        if k % 17 == 16:
            out += [NativeGame.from_position(vg.position(i)) for i in range(games)]
    return out


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_determinisation_keeps_what_the_seat_sees(variant):
    rules = preset(variant)
    pack = deck_counts(rules.decks, rules.jokers)
    checked = changed = 0
    for g in _positions(variant, 6, 120, seed=11):
        seat = g.to_move
        for d in range(3):
            x = determinised(g, seat, seed=1234, d=d)
            # the seat's own observation is bit-identical: nothing it sees moved
            assert np.array_equal(x.encode(seat), g.encode(seat))
            assert x.legal_actions() == g.legal_actions()
            st_a, st_b = g.to_game(), x.to_game()
            assert len(st_b.stock) == len(st_a.stock)
            assert st_b.pile == st_a.pile
            unseen_a = np.zeros(15, int)
            unseen_b = np.zeros(15, int)
            for o in range(4):
                ha = np.asarray(st_a.hands[o])
                hb = np.asarray(st_b.hands[o])
                assert ha.sum() == hb.sum()                      # hand sizes are public
                assert (hb >= np.asarray(st_a.known[o])).all()    # known cards stay put
                assert hb[R3] == 0                                # never a red 3 in a hand
                if o == seat:
                    assert np.array_equal(ha, hb)
                else:
                    unseen_a += ha - np.asarray(st_a.known[o])
                    unseen_b += hb - np.asarray(st_b.known[o])
                fa, fb = np.asarray(st_a.feet[o]), np.asarray(st_b.feet[o])
                assert fa.sum() == fb.sum()
                if st_a.in_foot[o] or not rules.foot_size:
                    assert fa.sum() == 0
                unseen_a += fa
                unseen_b += fb
            for c in st_a.stock:
                unseen_a[c] += 1
            for c in st_b.stock:
                unseen_b[c] += 1
            assert np.array_equal(unseen_a, unseen_b)             # the same unseen cards
            assert unseen_a.sum() <= sum(pack)
            checked += 1
            changed += not np.array_equal(
                np.concatenate([x.encode(o) for o in range(4)]),
                np.concatenate([g.encode(o) for o in range(4)]))
            # the same seed and d deal the same cards
            y = determinised(g, seat, seed=1234, d=d)
            assert y.to_position() == x.to_position()
    assert checked >= 40
    assert changed >= checked * 0.9  # the other seats' cards really were dealt again


def _python_rollout(game, seat, action):
    """The hand played out by the Python engine and the Python heuristic after
    ``action``: the seat's partnership's hand score minus the other's (points)."""
    h = HeuristicPolicy(backend="python")
    from canasta_env.observation import encode

    g = game.to_game()
    g.apply(action)
    while not g.hand_over:
        mask = np.zeros(g.num_actions, np.int8)
        mask[g.legal_actions()] = 1
        g.apply(h.act(encode(g, g.to_move), mask))
    team = seat & 1
    sheets = g.sheets
    return sheets[team].hand_score - sheets[1 - team].hand_score


@pytest.mark.parametrize("variant,steps", [("classic", 40), ("classic", 75),
                                           ("hand_and_foot", 60)])
def test_search_values_are_the_heuristics_hands_from_each_deal(variant, steps):
    h = HeuristicPolicy()
    vg = VectorGames(4, preset(variant), seed=21, starting_scores="sample",
                     starting_round="sample" if variant == "hand_and_foot" else 1)
    for _ in range(steps):
        vg.step(h.act_batch(vg.observations, vg.masks))
    gi = int(np.argmax(vg.masks.sum(1)))      # the game with the most choices
    vals = search_values(vg, [gi], h._core, determinisations=2, seed=77)
    g = NativeGame.from_position(vg.position(gi))
    seat = g.to_move
    legal = g.legal_actions()
    assert len(legal) >= 2
    assert np.isnan(np.delete(vals[0], legal, axis=0)).all()   # NaN at illegal actions
    for d in range(2):
        x = determinised(g, seat, search_seed(77, gi), d)
        for a in legal:
            assert vals[0, a, d] == _python_rollout(x, seat, a), (d, a)


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_search_cannot_see_hidden_cards(variant):
    """Two states that differ only in cards the seat cannot see get the same search."""
    h = HeuristicPolicy()
    done = 0
    for g in _positions(variant, 4, 60, seed=5)[:6]:
        seat = g.to_move
        other = determinised(g, seat, seed=99, d=0)   # the same from the seat's view
        assert other.to_position() != g.to_position()
        res = []
        for game in (g, other):
            vg = VectorGames(1, preset(variant))
            vg.set_position(0, game.to_position())
            res.append(search_values(vg, [0], h._core, determinisations=3, seed=4))
        np.testing.assert_array_equal(res[0], res[1])
        done += 1
    assert done == 6


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_search_reference_cannot_see_hidden_cards(variant):
    """The network-guided search as a player: two states that differ only in cards the
    seat on turn cannot see get the same move (the network reads the seat's observation,
    the search deals the unseen cards again)."""
    from canasta_env.bots.loader import load_policy

    pol = load_policy("search_reference", variant=variant)
    pol.settings = type(pol.settings)(8)  # 8 determinisations: the test stays quick
    searched = 0
    for g in _positions(variant, 4, 120, seed=5):
        if g.to_move is None or len(g.legal_actions()) < 2:
            continue  # one legal move: nothing to search
        other = determinised(g, g.to_move, seed=99, d=0)
        assert other.to_position() != g.to_position()
        assert pol.act_game(g) == pol.act_game(other)
        searched += 1
        if searched == 4:
            break
    assert searched == 4



def test_search_releases_the_gil_and_threads_agree():
    """The rollouts run without the GIL: another Python thread keeps running during a
    search (with the GIL held it would stop for the whole call), and two threads searching
    at once get exactly the values of one search alone."""
    import threading
    import time

    from canasta_env.native import search_game_values
    h = HeuristicPolicy()
    g = max(_positions("classic", 4, 40, seed=8), key=lambda x: len(x.legal_actions()))
    alone = search_game_values(g, h._core, 32, seed=3)
    t0 = time.perf_counter()
    search_game_values(g, h._core, 32, seed=3)
    one = time.perf_counter() - t0
    reps = max(2, int(1.0 / max(one, 1e-3)))   # about a second of searching per thread
    results: list = []

    def work():
        for _ in range(reps):
            results.append(search_game_values(g, h._core, 32, seed=3))

    threads = [threading.Thread(target=work) for _ in range(2)]
    beats = [time.perf_counter()]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        beats.append(time.perf_counter())
    span = beats[-1] - beats[0]
    assert len(results) == 2 * reps
    for r in results:
        np.testing.assert_array_equal(r, alone)
    # the main thread ran all along: no pause near the length of a search call
    assert max(np.diff(beats)) < max(0.5 * one, 0.05), (max(np.diff(beats)), one, span)


def test_search_values_reads_its_own_copy_of_the_indices():
    """The GIL is released between games: another thread rewriting the caller's index
    array after the check must change nothing (it used to be read again per game: an
    index far outside the batch crashed the process)."""
    import threading
    import time

    h = HeuristicPolicy()
    vg = VectorGames(2, preset("classic"), seed=5)
    games = np.zeros(200, dtype=np.int64)
    want = search_values(vg, [0], h._core, 4, seed=1)[0]

    def other():
        time.sleep(0.02)
        games[:] = 50_000_000

    t = threading.Thread(target=other)
    t.start()
    vals = search_values(vg, games, h._core, 4, seed=1)
    t.join()
    assert (games == 50_000_000).all()          # the other thread did rewrite it
    for row in vals:                            # every search was of game 0
        np.testing.assert_array_equal(row, want)


def test_search_game_values_searches_the_state_it_checked(monkeypatch):
    """Python code can run (and another thread take over) while the result arrays are
    made; the legal actions and the state searched are taken after that, together: a
    move made at that moment is searched with the new state's own legal actions."""
    from canasta_env.native import search_game_values

    h = HeuristicPolicy()
    g = NativeGame(preset("classic"), seed=2, dealer=0)
    assert g.legal_actions()[:2] == [0, 1]
    real_full = np.full
    fired = []

    def full(*a, **k):
        if not fired:
            fired.append(1)
            g.apply(0)                          # "another thread": draw from the stock
        return real_full(*a, **k)

    monkeypatch.setattr(np, "full", full)
    v = search_game_values(g, h._core, 4, seed=9)
    monkeypatch.setattr(np, "full", real_full)
    assert fired
    valued = np.flatnonzero(~np.isnan(v).all(1)).tolist()
    assert valued == g.legal_actions() and 0 not in valued
    np.testing.assert_array_equal(v, search_game_values(g, h._core, 4, seed=9))


def test_hand_and_foot_searches_with_different_rules_in_threads_agree():
    """Hand and Foot legality uses memo tables shared by the process (core/exact.c), one
    per set of meld rules; searches without the GIL reach them from several threads at
    once, so they are locked: each thread gets exactly its single-threaded values."""
    import dataclasses
    import threading

    from canasta_env.native import search_game_values
    h = HeuristicPolicy()
    games = []
    for k, cap in enumerate((3, 2, 4)):
        rules = dataclasses.replace(preset("hand_and_foot"), max_wilds_per_meld=cap)
        vg = VectorGames(1, rules, seed=11 + k)
        for _ in range(30):
            vg.step(h.act_batch(vg.observations, vg.masks))
        games.append(NativeGame.from_position(vg.position(0)))
    alone = [search_game_values(g, h._core, 6, seed=2) for g in games]
    bad = []

    def work(i):
        for _ in range(4):
            v = search_game_values(games[i], h._core, 6, seed=2)
            if not np.array_equal(v, alone[i], equal_nan=True):
                bad.append(i)

    threads = [threading.Thread(target=work, args=(i % 3,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []


def test_vector_games_refuses_a_second_init():
    """``__init__`` again (another size or rules) would write past the arrays sized once
    by ``__cinit__``: refused, and the batch is unchanged."""
    vg = VectorGames(2, preset("classic"), seed=1)
    before = vg.observations.copy()
    with pytest.raises(RuntimeError, match="already called"):
        vg.__init__(200_000)
    with pytest.raises(RuntimeError, match="already called"):
        vg.__init__(2, preset("hand_and_foot"))
    np.testing.assert_array_equal(vg.observations, before)

def test_search_values_refuses_bad_arguments():
    h = HeuristicPolicy()
    vg = VectorGames(2, preset("classic"))
    with pytest.raises(IndexError, match="game index 2 is outside 0..1"):
        search_values(vg, [2], h._core)
    with pytest.raises(TypeError, match="integer indices"):
        search_values(vg, [0.5], h._core)
    with pytest.raises(ValueError, match="determinisations must be in 1..4096"):
        search_values(vg, [0], h._core, determinisations=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        search_values(vg, [0], h._core, seed="x")
    with pytest.raises(ValueError, match="max_decisions must be in 1..2,147,483,647, got 0"):
        search_values(vg, [0], h._core, max_decisions=0)
    with pytest.raises(ValueError, match="seat must be in 0..3"):
        determinised(NativeGame.from_position(vg.position(0)), 4, 0)
    # None in place of the batch, the game or the heuristic: refused, never read
    from canasta_env.native import search_game_values
    with pytest.raises(TypeError):
        search_game_values(None, h._core, 2)
    with pytest.raises(TypeError):
        search_values(vg, [0], None, 2)
    with pytest.raises(TypeError):
        search_values(None, [], h._core, 2)
    with pytest.raises(TypeError, match="seed must be an int"):
        determinised(NativeGame.from_position(vg.position(0)), 0, "12")
    # counts that are not ints (bools and floats were once truncated silently)
    game = NativeGame.from_position(vg.position(0))
    for kw, name in (({"determinisations": 1.5}, "determinisations"),
                     ({"determinisations": True}, "determinisations"),
                     ({"max_decisions": True}, "max_decisions"),
                     ({"max_decisions": 10.0}, "max_decisions")):
        with pytest.raises(TypeError, match=f"{name} must be an int, got"):
            search_values(vg, [0], h._core, **kw)
        with pytest.raises(TypeError, match=f"{name} must be an int, got"):
            search_game_values(game, h._core, **kw)
    with pytest.raises(TypeError, match="seat must be an int, got True"):
        determinised(game, True, 0)
    with pytest.raises(TypeError, match="d must be an int, got 1.0"):
        determinised(game, 0, 0, 1.0)
    with pytest.raises(ValueError, match="d must be in 0..2147483647"):
        determinised(game, 0, 0, 2 ** 31)


def test_positions_with_huge_counters_are_refused():
    """A position whose decision count or hand number would overflow the core is refused
    by the reader (the service's /move answered 500 with the search bot before)."""
    from canasta_env.engine import Game as PyGame
    from canasta_env.engine import PositionError, from_position, to_position

    pos = to_position(PyGame(preset("classic"), seed=1))
    for key, value, msg in (("decisions", 2**63, "decisions an int in 0..1,000,000,000,000,000"),
                            ("hand_number", 2**31, "hand_number must be in 0..99,999, got "
                                                   "2,147,483,648")):
        bad = dict(pos, **{key: value})
        with pytest.raises(PositionError, match=msg):
            from_position(bad)


def test_improve_keeps_the_heuristic_unless_clearly_beaten():
    from training.search import SearchSettings, improve

    nan = np.nan
    # row 0: action 2 wins every deal where base 1 loses -> clearly better
    # row 1: action 2 a little better on average but noisy -> base kept at z = 1.5
    # row 2: action 0 better by more in points, but the criterion is the sign
    vals = np.full((3, 4, 4), nan)
    vals[0, 1] = [-10, -20, -30, -5]
    vals[0, 2] = [10, 20, 30, 5]
    vals[1, 1] = [10, -10, 10, -10]
    vals[1, 2] = [20, -20, -10, 30]
    vals[2, 0] = [900, 900, 900, 900]
    vals[2, 3] = [100, 100, 100, 100]
    base = np.array([1, 1, 3])
    acts, better, adv = improve(vals, base, SearchSettings(4, 1.5, "win"))
    assert acts.tolist() == [2, 1, 3]
    assert better.tolist() == [[False, False, True, False], [False] * 4, [False] * 4]
    assert adv[0].tolist() == [-np.inf, 0.0, 2.0, -np.inf]
    assert adv[1, 2] == 0.0                                   # signs +1 -1 -1 +1 vs +1 -1 +1 -1
    acts, better, adv = improve(vals, base, SearchSettings(4, 1.5, "diff"))
    assert acts.tolist() == [2, 1, 0]
    assert adv[2, 0] == 800.0
    # z = 0: any positive paired mean
    acts, _, _ = improve(vals, base, SearchSettings(4, 0.0, "diff"))
    assert acts.tolist() == [2, 2, 0]


def test_settings_refuse_bad_values():
    from training.search import SearchSettings

    with pytest.raises(ValueError, match="determinisations must be an int in 2..4096"):
        SearchSettings(determinisations=1)
    with pytest.raises(ValueError, match="determinisations must be an int in 2..4096"):
        SearchSettings(determinisations=2.5)
    with pytest.raises(ValueError, match="max_decisions must be an int >= 1"):
        SearchSettings(max_decisions=0)
    with pytest.raises(ValueError, match="z must be a finite number >= 0"):
        SearchSettings(z="1")
    with pytest.raises(ValueError, match="z must be a finite number >= 0"):
        SearchSettings(z=-1)
    with pytest.raises(ValueError, match="criterion must be one of"):
        SearchSettings(criterion="best")


def test_play_is_reproducible_and_records(tmp_path):
    from training.search import RECORD_KEYS, SearchSettings, play

    s = SearchSettings(determinisations=4, z=1.0)
    a = play("classic", 3, seed=3, settings=s, record=True, progress=False)
    b = play("classic", 3, seed=3, settings=s, record=True, progress=False)
    assert a["hands"] == 6
    assert a["win_rate"] == b["win_rate"] and a["mean_diff"] == b["mean_diff"]
    for k in RECORD_KEYS:
        np.testing.assert_array_equal(a[k], b[k])
    n = len(a["actions"])
    assert a["obs"].shape == (n, 202) and a["masks"].shape == (n, 91)
    assert a["masks"][np.arange(n), a["actions"]].all()        # every label legal
    dev = a["actions"] != a["base"]
    assert (a["better"][dev].any(1)).all() and not a["better"][~dev].any()
    assert 0 < a["deviation_rate"] < 1


def test_play_with_the_actor_as_base_labels_around_the_networks_moves():
    """``play(actor_base=True)``: the network plays the side and the search improves the
    network's action, as search_reference does: ``base`` is the network's own move,
    every label is it or a better action, and with ``candidates=1`` the search never
    leaves the network's move (one candidate is its own)."""
    from training.checkpoint import load_policy_checkpoint
    from training.search import SearchSettings, play

    ref = "checkpoints/reference/classic.zip"
    s = SearchSettings(determinisations=6, z=0.5)
    a = play("classic", 3, seed=5, settings=s, actor=ref, record=True, progress=False,
             actor_base=True)
    net = load_policy_checkpoint(ref)
    own = net.act_batch(a["obs"], a["masks"].astype(np.int8))
    np.testing.assert_array_equal(a["base"], own)
    dev = a["actions"] != a["base"]
    assert dev.any() and (a["better"][dev].any(1)).all() and not a["better"][~dev].any()
    assert a["agreement"] == pytest.approx(1 - dev.mean())
    heur = play("classic", 3, seed=5, settings=s, actor=ref, record=True, progress=False)
    assert not np.array_equal(heur["base"], a["base"])   # there: the heuristic's moves
    one = play("classic", 3, seed=5, settings=s, actor=ref, record=True, progress=False,
               actor_base=True, candidates=1)
    assert one["deviation_rate"] == 0 and one["agreement"] == 1.0
    two = play("classic", 3, seed=5, settings=s, actor=ref, record=True, progress=False,
               actor_base=True, candidates=2)
    logits = net.logits_batch(two["obs"], two["masks"].astype(np.int8))
    top2 = np.argsort(-logits, axis=1, kind="stable")[:, :2]
    assert (top2 == two["actions"][:, None]).any(1).all()
    assert two["deviation_rate"] < a["deviation_rate"]
    for kw, msg in (({"actor_base": True}, "needs an actor"),
                    ({"actor": ref, "candidates": 3}, "need the actor as the search's base"),
                    ({"actor": ref, "actor_base": True, "candidates": 0},
                     "candidates must be >= 1")):
        with pytest.raises(ValueError, match=msg):
            play("classic", 1, seed=5, settings=s, progress=False, **kw)
    with pytest.raises(TypeError, match="candidates must be None or an int"):
        play("classic", 1, seed=5, settings=s, progress=False, actor=ref, actor_base=True,
             candidates=2.5)


def test_cli_refuses_overwriting(tmp_path, capsys):
    from training.search import main

    out = tmp_path / "data.npz"
    out.write_bytes(b"keep")
    with pytest.raises(SystemExit) as e:
        main(["play", "--deals", "1", "--record", str(out)])
    assert e.value.code == 2
    assert "exists; never overwritten" in capsys.readouterr().err
    assert out.read_bytes() == b"keep"
    ck = tmp_path / "model.zip"
    ck.write_bytes(b"keep")
    with pytest.raises(SystemExit) as e:
        main(["distill", "--init", "checkpoints/reference/classic.zip", "--data", str(out),
              "--out", str(ck)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"python -m training.search distill: error: argument --out: {ck} "
                           f"exists; never overwritten")
    assert ck.read_bytes() == b"keep"


@pytest.mark.parametrize("args,message", [
    (["play", "--deals", "0"], "argument --deals: must be a positive int, got '0'"),
    (["play", "--z", "nan"], "argument --z: must be a finite number >= 0, got 'nan'"),
    (["play", "--record", "/nonexistent/x.npz"],
     "argument --record: the folder of /nonexistent/x.npz does not exist"),
    (["play", "--record", "rec"], "argument --record: 'rec' must end in .npz"),
    (["distill", "--init", "checkpoints/reference/classic.zip", "--data", "README.md",
      "--out", "model"], "argument --out: 'model' must end in .zip"),
    (["distill", "--init", "checkpoints/reference/classic.zip", "--data", "README.md",
      "--out", "OUT", "--holdout", "1"], "argument --holdout: must be in [0, 1), got '1'"),
])
def test_cli_refuses_bad_flags_in_one_line(args, message, capsys, tmp_path):
    from training.search import main

    args = [str(tmp_path / "o.zip") if a == "OUT" else a for a in args]
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(message), err


def test_distill_refuses_foreign_data(tmp_path, capsys):
    """A file that is not recorded data, or data of the other variant: one line, exit 2,
    nothing written."""
    from training.search import main

    out = tmp_path / "o.zip"
    assert main(["distill", "--init", "checkpoints/reference/classic.zip", "--data",
                 "README.md", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (
        "python -m training.search distill: error: README.md is not an .npz file recorded "
        "by `python -m training.search play --record` (ValueError)")
    hf = tmp_path / "hf.npz"
    n = 3
    np.savez_compressed(hf, obs=np.zeros((n, 245), np.float32),
                        masks=np.ones((n, 98), bool), actions=np.zeros(n, np.int64),
                        base=np.zeros(n, np.int64), better=np.zeros((n, 98), bool),
                        advantage=np.zeros((n, 98), np.float32),
                        returns=np.zeros(n, np.float32))
    assert main(["distill", "--init", "checkpoints/reference/classic.zip", "--data",
                 str(hf), "--out", str(out)]) == 2
    assert "do not fit checkpoints/reference/classic.zip (202 and 91): another variant" in \
        capsys.readouterr().err
    assert not out.exists()


def test_distill_teaches_the_search_set(tmp_path):
    """distill fits the reference to recorded search choices: the set loss falls, the
    saved checkpoint loads and plays legal moves, and the data's targets are the sets."""
    from training.checkpoint import load_policy_checkpoint
    from training.search import RECORD_KEYS, SearchSettings, distill, distill_targets, play

    rec = play("classic", 4, seed=8, settings=SearchSettings(determinisations=6, z=0.5),
               record=True, progress=False)
    data = tmp_path / "d.npz"
    np.savez_compressed(data, **{k: rec[k] for k in RECORD_KEYS})
    t = distill_targets(rec["masks"], rec["base"], rec["better"])
    dev = rec["better"].any(1)
    assert dev.any()
    assert np.array_equal(t[dev], rec["better"][dev])
    assert (t[~dev].sum(1) == 1).all() and t[~dev][np.arange((~dev).sum()),
                                                    rec["base"][~dev]].all()
    out = tmp_path / "m.zip"
    st = distill("checkpoints/reference/classic.zip", [str(data)], str(out), epochs=3,
                 batch_size=64, learning_rate=3e-4, seed=0, holdout=0.2, progress=False)
    assert st["decisions"] == int((rec["masks"].sum(1) > 1).sum())
    losses = [h["train_loss"] for h in st["epochs"][1:]]
    assert losses[-1] < losses[0]
    pol = load_policy_checkpoint(out)
    acts = pol.act_batch(rec["obs"], rec["masks"].astype(np.int8))
    # with its progress lines (the command's way) every epoch is measured and the model
    # saved: the line once took the name of the held-out rows and broke epoch 2
    shown = distill("checkpoints/reference/classic.zip", [str(data)], str(tmp_path / "p.zip"),
                    epochs=2, batch_size=64, learning_rate=3e-4, seed=0, holdout=0.2,
                    progress=True)
    assert [h["held_set_accuracy"] for h in shown["epochs"][1:]] == \
        [h["held_set_accuracy"] for h in st["epochs"][1:3]]
    assert (tmp_path / "p.zip").is_file()
    assert rec["masks"][np.arange(len(acts)), acts].all()
    bad = tmp_path / "bad.npz"
    np.savez_compressed(bad, obs=rec["obs"])
    with pytest.raises(KeyError, match="has no masks"):
        distill("checkpoints/reference/classic.zip", [str(bad)], str(tmp_path / "n.zip"),
                epochs=1, batch_size=64, learning_rate=1e-4, seed=0, progress=False)


def test_search_policy_plays_through_bot_and_evaluate():
    """``search`` is a policy name: the bot plays legal, reproducible moves with it, the
    same on the Python and the native form of a game, and training.evaluate plays it
    (one move per decision from the episode's game) with the same records as
    play_episode."""
    from canasta_env.bots import Bot
    from canasta_env.bots.loader import BUILTIN, load_policy
    from canasta_env.engine import Game
    from canasta_env.search import SearchPolicy
    from training.evaluate import make_env, play_episode, play_match

    assert "search" in BUILTIN
    pol = load_policy("search", variant="hand_and_foot")
    assert isinstance(pol, SearchPolicy)
    with pytest.raises(ValueError, match="needs the game, not only an observation"):
        pol.act(np.zeros(202, np.float32), np.ones(91, np.int8))
    bot = Bot("search")
    g = Game(preset("classic"), seed=4)
    moves = 0
    while not g.hand_over and moves < 60:
        if g.to_move % 2 == 0:
            a = bot.act(g)
            assert a in g.legal_actions()
            assert bot.act(g) == a                               # reproducible
            assert pol.act_game(NativeGame.from_game(g)) == a    # either form of the game
        else:
            mask = np.zeros(g.num_actions, np.int8)
            mask[g.legal_actions()] = 1
            from canasta_env.observation import encode
            a = HeuristicPolicy().act(encode(g, g.to_move), mask)
        g.apply(a)
        moves += 1
    recs = play_match("search", "heuristic", 2, seed=3)
    assert len(recs) == 4 and not any(r.truncated for r in recs)
    env = make_env("classic")
    from training.evaluate import deal_seed
    one = play_episode(env, [pol, HeuristicPolicy(), pol, HeuristicPolicy()],
                       deal_seed(3, 0), 0, 0)
    assert one == recs[0]


class _HighestLegal:
    """A deterministic base policy unlike the heuristic: the highest legal action id."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])


class _Illegal:
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask == 0)[0])


def _native_legal_mask(game):
    mask = np.zeros(game.num_actions, np.int8)
    mask[game.legal_actions()] = 1
    return mask


def test_search_with_the_heuristic_as_base_is_the_search():
    from canasta_env.search import SearchPolicy

    plain, based = SearchPolicy(determinisations=16, seed=5), \
        SearchPolicy(determinisations=16, seed=5, base=HeuristicPolicy())
    games = _positions("classic", 3, 51, seed=21)
    assert len(games) >= 6
    for g in games:
        if g.to_move is not None:
            assert based.act_game(g) == plain.act_game(g)


def test_search_keeps_the_base_policys_move_unless_another_is_clearly_better():
    """With a base policy of its own, the search's move is :func:`improve` of the rollout
    outcomes around the base's move: the base's move itself at an unreachable ``z``, and
    at z = 1.5 the clearly better move where the weak base errs (here it often does)."""
    from canasta_env.native import search_game_values
    from canasta_env.search import SearchPolicy, SearchSettings, improve

    base = _HighestLegal()
    strict = SearchPolicy(determinisations=16, z=1e9, seed=2, base=base)
    search = SearchPolicy(determinisations=16, z=1.5, seed=2, base=base)
    deviated = 0
    for g in _positions("classic", 6, 120, seed=22):  # 42 positions on turn
        if g.to_move is None:
            continue
        mask = _native_legal_mask(g)
        proposed = base.act(g.encode(g.to_move), mask)
        assert strict.act_game(g) == proposed
        seed = (2 * 1_000_003 + int(g.decisions)) & 0xFFFFFFFFFFFFFFFF
        values = search_game_values(g, search.heuristic._core, 16, seed, 5000)
        want, _, _ = improve(values[None], np.array([proposed]), SearchSettings(16, 1.5))
        got = search.act_game(g)
        assert got == int(want[0]) and mask[got] == 1
        deviated += got != proposed
    assert deviated >= 3


def test_search_refuses_a_bad_base_policy():
    from canasta_env.search import SearchPolicy

    with pytest.raises(TypeError, match="base must be None .* or a policy object with an act"):
        SearchPolicy(base=object())
    with pytest.raises(TypeError, match="an instance, not a class"):
        SearchPolicy(base=HeuristicPolicy)
    with pytest.raises(TypeError, match="a policy that needs the game, such as a search"):
        SearchPolicy(base=SearchPolicy())
    for seed in (1.7, float("nan"), None, "abc", True):
        with pytest.raises(TypeError, match="seed must be an int"):
            SearchPolicy(seed=seed)
    g = next(g for g in _positions("classic", 2, 51, seed=3) if len(g.legal_actions()) > 1)
    with pytest.raises(RuntimeError, match="the base policy .* chose .*, not a legal action id"):
        SearchPolicy(base=_Illegal()).act_game(g)
    legal = g.legal_actions()

    class Answer:
        def __init__(self, value):
            self.value = value

        def act(self, observation, action_mask):
            return self.value

    for value in (float(legal[0]) + 0.7, True, str(legal[0]), np.float32(legal[0])):
        with pytest.raises(RuntimeError, match="not a legal action id"):
            SearchPolicy(base=Answer(value)).act_game(g)
    assert SearchPolicy(base=Answer(np.int64(legal[0])), z=1e9).act_game(g) == legal[0]


def test_search_reference_plays_each_variant_with_that_variants_reference():
    """``search_reference``: the search with the variant's reference network as base; a
    variant's network never plays the other variant, and the bot plays both."""
    from canasta_env.bots import Bot
    from canasta_env.bots.loader import BUILTIN, load_policy
    from canasta_env.bots.variants import PolicyVariantError, check_policy_variant, policy_sizes
    from canasta_env.engine import Game
    from canasta_env.search import SearchPolicy

    assert "search_reference" in BUILTIN
    classic = load_policy("search_reference", variant="classic")
    hf = load_policy("search_reference", variant="hand_and_foot")
    assert isinstance(classic, SearchPolicy) and isinstance(hf, SearchPolicy)
    assert policy_sizes(classic) == (202, 91)  # Classic's observation size, actions
    assert policy_sizes(hf) != policy_sizes(classic)
    # Classic's search_reference searches 256 deals (chosen by its rule), Hand and Foot's 64
    assert classic.settings.determinisations == 256 and hf.settings.determinisations == 64
    with pytest.raises(PolicyVariantError, match="is a Classic policy"):
        check_policy_variant(classic, "hand_and_foot", "search_reference")
    bot = Bot("search_reference")
    for variant in ("classic", "hand_and_foot"):
        g = Game(preset(variant), seed=8)
        for _ in range(12):
            if g.hand_over:
                break
            a = bot.act(g)
            assert a in g.legal_actions()
            g.apply(a)
        assert policy_sizes(bot.policy_for(variant)) == policy_sizes(
            load_policy("reference", variant=variant))


class _LogitBase(_HighestLegal):
    """A base with logits: it ranks the legal actions by id, highest first (its move)."""

    def logits(self, observation, action_mask):
        return np.where(np.asarray(action_mask) != 0,
                        np.arange(len(action_mask), dtype=np.float32), -np.inf)


def test_candidates_limit_the_search_to_the_bases_top_actions():
    """With ``candidates=K`` the search's move is :func:`improve` of the rollout outcomes
    with every action outside the base's K highest-logit legal actions left out; K = 1
    never deviates, and a large K is the plain search."""
    from canasta_env.native import search_game_values
    from canasta_env.search import SearchPolicy, SearchSettings, improve

    base = _LogitBase()
    top2 = SearchPolicy(determinisations=16, seed=2, base=base, candidates=2)
    only = SearchPolicy(determinisations=16, seed=2, base=base, candidates=1)
    plain = SearchPolicy(determinisations=16, seed=2, base=base)
    wide = SearchPolicy(determinisations=16, seed=2, base=base, candidates=91)
    limited = differed = 0
    for g in _positions("classic", 6, 120, seed=22):
        if g.to_move is None:
            continue
        legal = g.legal_actions()
        proposed = max(legal)
        assert only.act_game(g) == proposed
        assert wide.act_game(g) == plain.act_game(g)
        seed = (2 * 1_000_003 + int(g.decisions)) & 0xFFFFFFFFFFFFFFFF
        values = search_game_values(g, top2.heuristic._core, 16, seed, 5000)
        top = sorted(legal)[-2:]
        values[[a for a in legal if a not in top]] = np.nan
        want, _, _ = improve(values[None], np.array([proposed]), SearchSettings(16, 1.5))
        got = top2.act_game(g)
        assert got == int(want[0]) and got in top
        limited += len(legal) > 2
        differed += got != plain.act_game(g)
    assert limited >= 20 and differed >= 1  # the limit is reached and changes moves


class _LowBase(_LogitBase):
    """A base whose move is its lowest legal action while its logits rank the highest
    first: its own move is outside its top candidates."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_candidate_mask_keeps_the_top_legal_actions_and_the_base():
    from canasta_env.search import candidate_mask

    logits = np.array([[5.0, 9.0, 9.0, 1.0, 7.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    masks = np.array([[1, 0, 1, 1, 1], [1, 1, 0, 1, 1]], np.int8)
    got = candidate_mask(logits, masks, np.array([3, 4]), 2)
    # row 0: action 1 is illegal though its logit is the largest; 2 and 4 are the top two,
    # 3 the base. Row 1: equal logits rank the lower ids first (0, 1), and 4 is the base
    np.testing.assert_array_equal(got, [[False, False, True, True, True],
                                        [True, True, False, False, True]])
    assert candidate_mask(logits, masks, np.array([3, 4]), 9).tolist() == \
        (masks != 0).tolist()                                  # k >= legal: every legal one
    with pytest.raises(ValueError, match="do not fit"):
        candidate_mask(logits, masks[:1], np.array([3, 4]), 2)
    with pytest.raises(ValueError, match="k must be >= 1"):
        candidate_mask(logits, masks, np.array([3, 4]), 0)
    for k in (True, 1.5, None):
        with pytest.raises(TypeError, match="k must be an int"):
            candidate_mask(logits, masks, np.array([3, 4]), k)
    for base in ([-1, 4], [1, 4], [1.7, 4], [3, 5]):    # out of range, illegal, not an id
        with pytest.raises(ValueError, match="base must hold a legal action id per row"):
            candidate_mask(logits, masks, np.array(base), 2)
    for bad in (np.nan, np.inf, -np.inf):                # at a legal action: refused
        odd = logits.copy()
        odd[0, 2] = bad
        with pytest.raises(ValueError, match="not finite at a legal action"):
            candidate_mask(odd, masks, np.array([3, 4]), 2)
    odd = logits.copy()
    odd[0, 1] = np.nan                                   # at an illegal action: ignored
    np.testing.assert_array_equal(candidate_mask(odd, masks, np.array([3, 4]), 2)[0],
                                  [False, False, True, True, True])
    with pytest.raises(ValueError, match="logits must be numbers"):
        candidate_mask([["a"] * 5] * 2, masks, np.array([3, 4]), 2)


def test_a_base_outside_its_top_candidates_keeps_its_move_in_the_search():
    """The base's own move is always a candidate, also when its logits rank it last: each
    move is the base's or one of the top K, and the search does switch to the top ones."""
    from canasta_env.search import SearchPolicy

    base = _LowBase()
    top2 = SearchPolicy(determinisations=16, seed=2, base=base, candidates=2)
    positions = switched = 0
    for g in _positions("classic", 6, 120, seed=22):
        if g.to_move is None or len(g.legal_actions()) < 4:
            continue
        legal = sorted(g.legal_actions())
        got = top2.act_game(g)
        assert got in (legal[0], legal[-1], legal[-2])
        positions += 1
        switched += got != legal[0]
    assert positions >= 10 and switched >= 1


def test_candidates_are_refused_without_a_ranking_base_or_as_a_bad_count():
    from canasta_env.search import SearchPolicy

    with pytest.raises(TypeError, match="candidates needs a base network with logits"):
        SearchPolicy(candidates=3)
    with pytest.raises(TypeError, match="candidates needs a base network with logits"):
        SearchPolicy(base=_HighestLegal(), candidates=3)
    for bad in (2.0, True, "3"):
        with pytest.raises(TypeError, match="candidates must be None or an int"):
            SearchPolicy(base=_LogitBase(), candidates=bad)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="candidates must be >= 1"):
            SearchPolicy(base=_LogitBase(), candidates=bad)
    assert "candidates=3" in repr(SearchPolicy(base=_LogitBase(), candidates=np.int64(3)))

    class Flat(_LogitBase):  # logits of a batch of one: a base policy's bug, named
        def logits(self, observation, action_mask):
            return super().logits(observation, action_mask)[None]

    g = next(g for g in _positions("classic", 2, 51, seed=3) if len(g.legal_actions()) > 3)
    with pytest.raises(RuntimeError, match=r"gave logits of shape \(1, 91\), not \(91,\)"):
        SearchPolicy(base=Flat(), candidates=2).act_game(g)

    class Nan(_LogitBase):  # NaN logits would silently turn the search off: refused
        def logits(self, observation, action_mask):
            return np.full(len(action_mask), np.nan, np.float32)

    with pytest.raises(RuntimeError, match="gave unusable logits: .*not finite"):
        SearchPolicy(base=Nan(), candidates=2).act_game(g)


def test_expert_candidates_are_search_reference_with_their_settings():
    from canasta_env.bots import load_policy
    from canasta_env.search import SearchPolicy
    from training.search import expert

    d64 = load_policy("training.search.expert:D64", variant="classic")
    top3 = load_policy("training.search.expert:D256_TOP3", variant="classic")
    assert isinstance(d64, SearchPolicy) and d64.settings.determinisations == 64
    assert d64.candidates is None
    assert (top3.settings.determinisations, top3.candidates) == (256, 3)
    ref = load_policy("search_reference", variant="classic")
    d256 = expert.candidate("D256")
    assert (ref.settings, ref.candidates) == (d256.settings, None)  # the chosen candidate
    games = [g for g in _positions("classic", 4, 120, seed=23) if g.to_move is not None
             and len(g.legal_actions()) > 2][:12]
    assert len(games) == 12
    moves = [ref.act_game(g) for g in games]
    assert [d256.act_game(g) for g in games] == moves
    own = [ref.base.act(g.encode(g.to_move), _native_legal_mask(g)) for g in games]
    assert moves != own   # the search leaves the network's move somewhere among them
    with pytest.raises(KeyError, match="no expert candidate 'D1'"):
        expert.candidate("D1")
