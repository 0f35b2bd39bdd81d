"""The OpenSpiel games (canasta_env/openspiel.py): pyspiel's random_sim_test, the same
legal actions, observation tensors and returns as the env on the same deal, the
determinisation ISMCTS uses, and OpenSpiel's own ISMCTS bot playing a whole hand."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel: pip install -e '.[interop]'")
import canasta_env.native  # noqa: E402
import canasta_env.openspiel  # noqa: E402, F401  (registers the games)
from canasta_env import AGENTS, raw_env  # noqa: E402
from canasta_env.engine.cards import NUM_CLASSES  # noqa: E402

BACKENDS = ["native", "python"] if canasta_env.native.available else ["python"]
GAMES = {"python_canasta": "classic", "python_hand_and_foot": "hand_and_foot"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_random_sim_test(name, backend):
    game = pyspiel.load_game(f"{name}(backend={backend})")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_same_actions_tensors_and_returns_as_the_env(name, backend):
    game = pyspiel.load_game(f"{name}(backend={backend})")
    env = raw_env(variant=GAMES[name], backend=backend)
    rng = np.random.default_rng(0)
    for deal in (3, 40):
        state = game.new_initial_state()
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == game.max_chance_outcomes() == 1 << 16
        state.apply_action(deal)
        env.reset(seed=deal)
        while not state.is_terminal():
            agent = env.agent_selection
            assert state.current_player() == AGENTS.index(agent)
            mask = env.observe(agent)["action_mask"]
            assert state.legal_actions() == np.flatnonzero(mask).tolist()
            for p, a in enumerate(AGENTS):
                obs = env.observe(a)["observation"]
                np.testing.assert_array_equal(np.asarray(state.observation_tensor(p),
                                                         np.float32), obs)
                np.testing.assert_array_equal(
                    np.asarray(state.information_state_tensor(p), np.float32), obs)
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            env.step(action)
        assert all(env.terminations.values())
        assert state.returns() == pytest.approx([env.rewards[a] for a in AGENTS])
        assert sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(GAMES))
def test_resample_keeps_what_the_player_knows_and_deals_the_rest(name, backend):
    game = pyspiel.load_game(f"{name}(backend={backend})")
    state = game.new_initial_state()
    state.apply_action(11)
    rng = np.random.default_rng(1)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for _ in range(5):
        other = state.resample_from_infostate(p, sampler)
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.observation_tensor(p) == state.observation_tensor(p)
        assert other.legal_actions() == state.legal_actions()
        a, b = state.native.to_game(), other.native.to_game()
        assert a.hands[p] == b.hands[p]
        for o in range(4):
            assert sum(a.hands[o]) == sum(b.hands[o])
            assert all(b.hands[o][c] >= a.known[o][c] for c in range(NUM_CLASSES))
        assert len(a.stock) == len(b.stock)
        total = [0] * NUM_CLASSES
        for g in (a, b):
            hidden = [sum(g.hands[o][c] for o in range(4) if o != p) + g.stock.count(c)
                      + sum(g.feet[o][c] for o in range(4) if g.foot_pending(o))
                      for c in range(NUM_CLASSES)]
            total = [t - h for t, h in zip(total, hidden)] if g is b else hidden
        assert total == [0] * NUM_CLASSES  # the same cards, dealt again
        changed += [a.hands[o] for o in range(4)] != [b.hands[o] for o in range(4)]
    assert changed >= 4


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="num_deals must be >= 1, got 0"):
        pyspiel.load_game("python_canasta(num_deals=0)")
    with pytest.raises(ValueError, match="backend must be one of"):
        pyspiel.load_game("python_canasta(backend=gpu)")


def test_openspiel_ismcts_plays_a_whole_hand():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_canasta")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                           max_simulations=2, random_state=rng)
    state = game.new_initial_state()
    state.apply_action(5)
    decisions = 0
    while not state.is_terminal():
        if state.current_player() % 2 == 0:
            action = bot.step(state)
        else:
            action = state.legal_actions()[0]
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions > 20
    r = state.returns()
    assert r[0] == r[2] == -r[1] == -r[3]


def _playout(state, rng) -> int:
    """Random legal play to the end of the hand; the number of decisions."""
    n = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.native.phase}"  # never a dead end
        state.apply_action(int(rng.choice(legal)))
        n += 1
    return n


@pytest.mark.parametrize("backend", BACKENDS)
def test_resampled_worlds_play_out_and_answers_keep_the_askers_hand(backend):
    """Found by the ISMCTS evaluation: a world resampled for the partner answering "may I
    go out?" dealt the asker a hand that could not go out, and a rollout met a state
    with no legal action. The asker's hand is now kept in that phase."""
    from canasta_env.engine.state import Phase

    game = pyspiel.load_game(f"python_canasta(backend={backend})")
    rng = np.random.default_rng(2)
    answers = 0
    for deal in range(40):
        state = game.new_initial_state()
        state.apply_action(deal)
        while not state.is_terminal() and answers < 3:
            if state.native.phase == Phase.ANSWER:
                p = state.current_player()
                asker = (p + 2) % 4
                for _ in range(4):
                    other = state.resample_from_infostate(p, lambda: rng.uniform())
                    assert other.native.to_game().hands[asker] == state.native.to_game().hands[asker]
                    _playout(other, rng)
                answers += 1
            elif rng.uniform() < 0.05:
                _playout(state.resample_from_infostate(state.current_player(),
                                                       lambda: rng.uniform()), rng)
            state.apply_action(int(rng.choice(state.legal_actions())))
        if answers >= 3:
            break
    assert answers >= 3
