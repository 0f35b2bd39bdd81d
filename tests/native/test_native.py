"""The native core (canasta_env.native) against the Python engine: positions round trip,
native deal invariants, the differential checker (a short sweep per variant; the
1,000,000-decision sweep is slow-marked and opt-in), and the batched API's contract."""

import os

import numpy as np
import pytest

from canasta_env.engine import Game, IllegalActionError, classic, from_position, hand_and_foot
from canasta_env.engine.cards import RED_THREE
from canasta_env.engine.position import to_position
from canasta_env.observation import encode

native = pytest.importorskip("canasta_env.native")
pytestmark = pytest.mark.skipif(not native.available, reason="native core not built")

OPTIONS = {"classic": classic(), "hand_and_foot": hand_and_foot()}


def _play(g, n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if g.hand_over:
            break
        la = g.legal_actions()
        g.apply(la[rng.integers(len(la))])
    return g


@pytest.mark.parametrize("variant", sorted(OPTIONS))
def test_position_round_trip(variant):
    """Python dict -> C -> dict is the identity, mid-turn and at the end of a hand."""
    for seed in range(6):
        g = _play(Game(OPTIONS[variant], seed=seed), 10 * seed + 3, seed)
        pos = to_position(g)
        ng = native.NativeGame.from_position(pos)
        assert ng.to_position() == pos
        assert ng.legal_actions() == g.legal_actions()


@pytest.mark.parametrize("variant", sorted(OPTIONS))
def test_native_deal_invariants(variant):
    """Native deals: the cards add up to the pack and no red 3 is held (the Python reader
    checks both), the upcard is a natural other than a red 3 (the pile frozen when more
    cards were turned), red 3s laid and replaced."""
    for seed in range(40):
        ng = native.NativeGame(OPTIONS[variant], seed=seed)
        g = from_position(ng.to_position())  # validates conservation, red 3s, the turn
        assert g.pile[-1] not in (0, 1, RED_THREE)
        assert g.pile_frozen == (len(g.pile) > 1)
        assert all(h[RED_THREE] == 0 for h in g.hands)
        laid = sum(1 for e in ng.log if e.get("event") == "red3")
        assert laid == sum(g.red3)
        o = OPTIONS[variant]
        held = sum(sum(h) for h in g.hands)
        assert held == 4 * o.hand_size
        assert sum(sum(f) for f in g.feet) == 4 * o.foot_size
    # the same seed deals the same cards; another seed other cards
    a = native.NativeGame(classic(), seed=7).to_position()
    assert a == native.NativeGame(classic(), seed=7).to_position()
    assert a["stock"] != native.NativeGame(classic(), seed=8).to_position()["stock"]


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_differential_short_sweep(variant):
    from canasta_env.differential import run

    res = run(1500, seed=11, variant=variant)
    assert res["mismatches"] == 0, res.get("first_mismatch")
    assert res["decisions"] >= 1500


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CANASTA_LONG_DIFFERENTIAL") != "1",
                    reason="set CANASTA_LONG_DIFFERENTIAL=1 (about 10 minutes per variant)")
@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_differential_million(variant):
    from canasta_env.differential import run

    res = run(1_000_000, seed=2024, variant=variant)
    assert res["mismatches"] == 0, res.get("first_mismatch")


def test_native_game_play_and_errors():
    g = Game(classic(), seed=5)
    ng = native.NativeGame.from_game(g)
    mask = ng.action_mask()
    assert mask.dtype == np.int8 and mask.shape == (91,)
    assert list(np.flatnonzero(mask)) == g.legal_actions()
    assert encode(g, 2).tobytes() == ng.encode(2).tobytes()
    with pytest.raises(IllegalActionError):
        ng.apply(90)
    with pytest.raises(IllegalActionError):
        ng.apply(500)
    with pytest.raises(IllegalActionError):
        ng.apply(True)
    assert ng.to_position() == to_position(g)  # refused actions change nothing


@pytest.mark.parametrize("variant", sorted(OPTIONS))
def test_vector_games_contract(variant):
    o = OPTIONS[variant]
    v = native.VectorGames(16, o, seed=3)
    assert v.observations.shape == (16, v.obs_size) and v.observations.dtype == np.float32
    assert v.masks.shape == (16, v.num_actions) and v.masks.dtype == np.int8
    assert v.rewards.shape == (16, 4) and v.dones.dtype == np.bool_
    obs_id = id(v.observations)
    dones = 0
    for step in range(3000):
        acts = v.sample_actions()
        assert all(v.masks[i, a] == 1 for i, a in enumerate(acts))
        v.step(acts)
        dones += int(v.dones.sum())
        if step % 500 == 0:  # every array agrees with the position of its game
            for i in range(16):
                g = from_position(v.position(i))
                seat = g.to_move
                assert seat == v.to_move[i]
                assert encode(g, seat).tobytes() == v.observations[i].tobytes()
                assert list(np.flatnonzero(v.masks[i])) == g.legal_actions()
        assert np.all(v.rewards[:, 0] == -v.rewards[:, 1])
        assert np.all(v.rewards[~v.dones] == 0)
    assert id(v.observations) == obs_id and dones > 0


def test_vector_games_seeding_is_per_game():
    a = native.VectorGames(4, classic(), seed=[10, 11, 12, 13])
    b = native.VectorGames(2, classic(), seed=[12, 13])
    assert a.observations[2:].tobytes() == b.observations.tobytes()
    assert a.position(3) == b.position(1)


def test_vector_games_bad_input_changes_nothing():
    v = native.VectorGames(4, classic(), seed=0)
    before = [v.position(i) for i in range(4)]
    obs = v.observations.copy()
    good = v.sample_actions()
    illegal = good.copy()
    bad_action = next(a for a in range(91) if not v.masks[2, a])
    illegal[2] = bad_action
    with pytest.raises(IllegalActionError, match=rf"game 2: illegal action {bad_action}"):
        v.step(illegal)
    out = good.copy()
    out[1] = 91
    with pytest.raises(ValueError, match="game 1: action 91"):
        v.step(out)
    with pytest.raises(ValueError, match="shape"):
        v.step(good[:3])
    with pytest.raises(TypeError, match="integers"):
        v.step(good.astype(np.float32))
    assert [v.position(i) for i in range(4)] == before
    assert v.observations.tobytes() == obs.tobytes()
    v.step(good)  # and the batch still plays


def test_readme_vector_games_example_runs(capsys):
    from tests.docs.test_docs import readme_example

    exec(compile(readme_example("vector-games"), "README.md", "exec"), {"__name__": "readme"})
    assert "(64, 202) (64, 91)" in capsys.readouterr().out


def test_differential_reports_a_mismatch(monkeypatch, capsys):
    """A perturbed observation is caught: exit 1, the counts, the position as JSON."""
    import json

    from canasta_env import differential

    def bad_encode(game, seat):
        out = encode(game, seat)
        if game.decisions == 5 and seat == 1:
            out[3] += 1
        return out

    monkeypatch.setattr(differential, "encode", bad_encode)
    assert differential.main(["--decisions", "40", "--seed", "1", "--variant", "classic",
                              "--json"]) == 1
    out, err = capsys.readouterr()
    res = json.loads(out)
    assert res["mismatches"] >= 1 and res["variant"] == "classic"
    first = json.loads(err)
    assert first["kind"] == "observation" and first["seat"] == 1 and first["entries"] == [3]
    assert from_position(first["position"]).decisions == 5


def test_vector_games_set_position_plays_like_the_engine():
    """A Python-dealt hand put into a batch plays on exactly as the engine plays it."""
    o = hand_and_foot()
    v = native.VectorGames(3, o, seed=0)
    g = Game(o, seed=99)
    v.set_position(1, to_position(g))
    rng = np.random.default_rng(1)
    for _ in range(400):
        acts = v.sample_actions()
        la = g.legal_actions()
        assert list(np.flatnonzero(v.masks[1])) == la
        assert v.observations[1].tobytes() == encode(g, g.to_move).tobytes()
        acts[1] = la[rng.integers(len(la))]
        v.step(acts)
        g.apply(int(acts[1]))
        if g.hand_over:
            assert v.dones[1]
            sheets = g.sheets
            diff = sheets[0].hand_score - sheets[1].hand_score
            assert v.rewards[1, 0] == np.float32(diff * 0.001)
            # every seat's view of the finished hand, before the next deal
            assert [v.final_observations[1, s].tobytes() for s in range(4)] == \
                [encode(g, s).tobytes() for s in range(4)]
            break
        assert not v.dones[1]
        assert v.position(1)["hands"] == to_position(g)["hands"]
    with pytest.raises(ValueError, match="options differ"):
        v.set_position(0, to_position(Game(classic(), seed=1)))


def test_vector_games_redeal_keeps_the_truncated_views():
    v = native.VectorGames(3, classic(), seed=5)
    for _ in range(20):
        v.step(v.sample_actions())
    g = from_position(v.position(2))
    v.redeal([2])
    assert [v.final_observations[2, s].tobytes() for s in range(4)] == \
        [encode(g, s).tobytes() for s in range(4)]
    assert not v.final_observations[:2].any()  # the other games ended no hand


def test_python_fallback_has_the_same_api():
    """The fallback served without a compiler: same arrays, same errors."""
    from canasta_env.native.fallback import PyNativeGame, PyVectorGames

    v = PyVectorGames(3, hand_and_foot(), seed=1)
    assert v.observations.shape == (3, 245) and v.masks.shape == (3, 98)
    assert v.final_observations.shape == (3, 4, 245)
    for _ in range(30):
        v.step(v.sample_actions())
    before = [v.position(i) for i in range(3)]
    acts = v.sample_actions()
    acts[1] = next(a for a in range(98) if not v.masks[1, a])
    with pytest.raises(IllegalActionError, match="game 1: illegal action"):
        v.step(acts)
    assert [v.position(i) for i in range(3)] == before
    g = Game(classic(), seed=4)
    pg = PyNativeGame.from_game(g)
    assert pg.to_position() == to_position(g)
    assert pg.encode(0).tobytes() == native.NativeGame.from_game(g).encode(0).tobytes()
