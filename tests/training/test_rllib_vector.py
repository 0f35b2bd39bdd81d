"""RLlib over the native batched core (training.rllib_vector_env, ``env: vector``): the same
transitions as the AEC path (observations, masks, rewards and done flags per seat, decision
by decision, for hands dealt by the AEC env), every hand played out inside its episode,
legal actions and zero-sum rewards that reach all four seats through RLlib's own env
runner, and the env's errors. The smoke config
(which uses this env) runs end to end in tests/training/test_rllib.py."""

from __future__ import annotations

import os

import numpy as np
import pytest

# Ray on this one machine stays on 127.0.0.1 (see training.rllib.keep_on_loopback)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="the distributed extra (ray[rllib]) is not installed")
torch = pytest.importorskip("torch")

from canasta_env import native  # noqa: E402
from canasta_env.engine import IllegalActionError  # noqa: E402
from training.rllib import CanastaRLlibEnv, RLlibConfig, env_config, ppo_config  # noqa: E402
from training.rllib_vector_env import (  # noqa: E402
    ALL_AGENTS,
    CanastaVectorEnv,
    CanastaVectorEnvRunner,
    VectorEnvToModule,
)

pytestmark = pytest.mark.skipif(not native.available,
                                reason="env: vector needs the compiled core")


def _game(agent_id: str) -> int:
    """The game of a vector env agent id ``g<game>h<stretch>_p<seat>``."""
    return int(agent_id[1:agent_id.index("h")])


def _stretch(agent_id: str) -> str:
    return agent_id[:agent_id.index("_")]


@pytest.mark.parametrize("variant, max_decisions", [("classic", 2000), ("hand_and_foot", 2000),
                                                    ("classic", 25)])
def test_transitions_match_the_aec_env(variant, max_decisions):
    """Three games at once, each dealt by its own AEC env (CanastaRLlibEnv) and put into
    the vector env; the same random legal actions: every seat receives the same
    observation, mask, reward and done flags from both, at every step, up to the final
    observation of each seat (terminated; truncated at ``max_decisions``). Then the
    vector env's game goes on with a new hand under new agent ids."""
    kw = {"variant": variant, "max_decisions": max_decisions, "starting_scores": "sample"}
    if variant == "hand_and_foot":
        kw.pop("starting_scores")
    games = 3
    aecs = [CanastaRLlibEnv(kw) for _ in range(games)]
    vec = CanastaVectorEnv({**kw, "games": games, "episode_steps": 10**6})
    rng = np.random.default_rng(0)
    for hand in range(2):
        a_obs = [e.reset(seed=100 * hand + g)[0] for g, e in enumerate(aecs)]
        v_obs, _ = vec.reset(options={"positions": [e.env.position() for e in aecs]})
        ids = [[vec.agent(g, s) for s in range(4)] for g in range(games)]
        playing = set(range(games))
        totals: dict[str, float] = {}
        for _step in range(3000):
            assert set(v_obs) >= {ids[g][int(a[-1])] for g in playing for a in a_obs[g]}
            actions, v_actions = {}, {}
            for g in range(games):
                if g in playing:
                    (agent, o), = a_obs[g].items()
                    v = v_obs[ids[g][int(agent[-1])]]
                    assert o["observations"].tobytes() == v["observations"].tobytes()
                    assert o["action_mask"].tobytes() == v["action_mask"].tobytes()
                    actions[g] = int(rng.choice(np.flatnonzero(o["action_mask"])))
                    v_actions[ids[g][int(agent[-1])]] = actions[g]
                else:  # the vector env's next hand in this game: any legal action
                    a = vec.agents_on_turn()[g]
                    v_actions[a] = int(rng.choice(np.flatnonzero(v_obs[a]["action_mask"])))
            v_obs, v_rew, v_term, v_trunc, _ = vec.step(v_actions)
            assert set(v_rew) <= set(v_obs)  # a reward only with that agent's observation
            assert not v_term["__all__"] and not v_trunc["__all__"]
            for g in sorted(playing):
                (agent,) = a_obs[g]
                obs, rew, term, trunc, _ = aecs[g].step({agent: actions[g]})
                mine = {k for k in v_obs if k in ids[g]}
                assert mine == {ids[g][int(a[-1])] for a in obs}
                for a, o in obs.items():
                    v = ids[g][int(a[-1])]
                    assert o["observations"].tobytes() == v_obs[v]["observations"].tobytes()
                    assert o["action_mask"].tobytes() == v_obs[v]["action_mask"].tobytes()
                    assert v_rew.get(v, 0.0) == rew.get(a, 0.0)
                    assert v_term.get(v, False) == term.get(a, False)
                    assert v_trunc.get(v, False) == trunc.get(a, False)
                    totals[v] = totals.get(v, 0.0) + rew.get(a, 0.0)
                if term["__all__"] or trunc["__all__"]:
                    assert len(obs) == 4 and not any(o["action_mask"].any() for o in obs.values())
                    playing.discard(g)
                    # the next hand: new ids, the seat on turn has its observation
                    new = vec.agents_on_turn()[g]
                    assert new not in ids[g] and _game(new) == g and new in v_obs
                    assert v_obs[new]["action_mask"].any()
                else:
                    a_obs[g] = obs
            if not playing:
                break
        else:
            pytest.fail("the hands did not end")
        for g in range(games):
            t = [totals[ids[g][s]] for s in range(4)]
            assert t[0] == t[2] == -t[1] == -t[3]
            assert (t[0] != 0) == (max_decisions == 2000)


def _play_episode(vec, rng, seed=None):
    """One episode of random legal play; returns (decisions, returns per agent, final
    flag per agent: "term" / "trunc", env steps)."""
    obs, _ = vec.reset(seed=seed)
    assert len(obs) == vec.num_games
    decisions, steps = 0, 0
    totals: dict[str, float] = {}
    final: dict[str, str] = {}
    while True:
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()
                if a not in final}
        assert set(acts) == set(vec.agents_on_turn())
        decisions += len(acts)
        obs, rew, term, trunc, _ = vec.step(acts)
        steps += 1
        assert set(rew) == set(obs)
        for a, r in rew.items():
            totals[a] = totals.get(a, 0.0) + r
        for a in obs:
            if term.get(a) or trunc.get(a):
                assert not obs[a]["action_mask"].any() and a not in final
                final[a] = "term" if term.get(a) else "trunc"
            else:
                assert obs[a]["action_mask"].any()
        if term["__all__"] or trunc["__all__"]:
            return decisions, totals, final, steps


def test_episodes_play_every_hand_out():
    """16 games, episodes whose games deal new hands for 150 env steps: games that finish
    a hand early play the next under new ids; afterwards the running hands are played out
    and the episode ends when the last one has. Every hand of the episode is whole: its
    four seats' final observation (zero mask) and reward, partners the same, the
    partnerships opposite ones; the decisions and finished hands are reported; the next
    episode starts on the hands dealt when the last ones ended, under new ids."""
    vec = CanastaVectorEnv({"games": 16, "starting_scores": "sample", "reward_scale": 0.001,
                            "episode_steps": 150})
    rng = np.random.default_rng(1)
    seen: set[str] = set()
    for episode in range(3):
        decisions, totals, final, steps = _play_episode(vec, rng,
                                                        seed=0 if episode == 0 else None)
        assert steps > 150
        hands: dict[str, list[float]] = {}
        for a, r in totals.items():
            hands.setdefault(_stretch(a), [0.0] * 4)[int(a[-1])] = r
        assert set(final) == {f"{k}_p{s}" for k in hands for s in range(4)}
        assert all(v == "term" for v in final.values())
        assert len({_game(k) for k in hands}) == 16 and len(hands) > 16  # some games: 2+
        assert not set(hands) & seen
        seen |= set(hands)
        for t in hands.values():
            assert t[0] == t[2] and t[1] == t[3] and t[0] == pytest.approx(-t[1])
        assert sum(t[0] != 0 for t in hands.values()) >= len(hands) - 2  # a tie is rare
        taken, done = vec.pop_stats()
        assert taken == decisions and len(done) == len(hands)
        assert sorted(h[0] for h in done) == sorted(t[0] for t in hands.values())
        assert sum(h[1] for h in done) == decisions and not any(h[2] for h in done)


def test_one_hand_per_game_and_truncation_at_max_decisions():
    """``episode_steps: 0``: one hand per game per episode; ``max_decisions`` cuts a hand
    (all four seats ``truncated``, reward 0) and the episode ends truncated when the last
    hands were cut."""
    vec = CanastaVectorEnv({"games": 5, "episode_steps": 0, "max_decisions": 30})
    rng = np.random.default_rng(4)
    decisions, totals, final, steps = _play_episode(vec, rng, seed=2)
    assert steps == 30 and decisions == 5 * 30
    assert len(final) == 20 and all(v == "trunc" for v in final.values())
    assert all(r == 0.0 for r in totals.values())
    _, done = vec.pop_stats()
    assert len(done) == 5 and all(h[2] and h[1] == 30 for h in done)
    vec2 = CanastaVectorEnv({"games": 5, "episode_steps": 0})
    decisions, totals, final, steps = _play_episode(vec2, rng, seed=2)
    assert len(final) == 20 and all(v == "term" for v in final.values())


def test_seeds_deal_each_game_apart():
    a, b = CanastaVectorEnv({"games": 4}), CanastaVectorEnv({"games": 4})
    a.reset(seed=0)
    b.reset(seed=1)  # games 4..7 of the seed sequence: no deal in common with a's
    pa = [a.vg.position(i)["hands"] for i in range(4)]
    pb = [b.vg.position(i)["hands"] for i in range(4)]
    assert all(x != y for x in pa for y in pb)
    c = CanastaVectorEnv({"games": 4})
    c.reset(seed=1)
    assert pb == [c.vg.position(i)["hands"] for i in range(4)]


def test_step_refuses_bad_actions_and_changes_nothing():
    vec = CanastaVectorEnv({"games": 3})
    obs, _ = vec.reset(seed=3)
    before = [vec.vg.position(i) for i in range(3)]
    good = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    with pytest.raises(ValueError, match="one action per playing game"):
        vec.step(dict(list(good.items())[:2]))
    with pytest.raises(ValueError, match="unknown agent 'player_0'"):
        vec.step({**good, "player_0": 0})
    g0 = next(a for a in good if _game(a) == 0)
    other = f"{_stretch(g0)}_p{(int(g0[-1]) + 1) % 4}"
    wrong_seat = {(other if a == g0 else a): x for a, x in good.items()}
    with pytest.raises(ValueError, match="agent on turn"):
        vec.step(wrong_seat)
    agent, o = next(iter(obs.items()))
    illegal = dict(good)
    illegal[agent] = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        vec.step(illegal)
    assert [vec.vg.position(i) for i in range(3)] == before
    obs2, *_ = vec.step(good)  # and the batch still plays
    assert len(obs2) == 3
    for bad in ({"games": 0}, {"episode_steps": -1}, {"games": True}):
        with pytest.raises(ValueError, match="must be an int"):
            CanastaVectorEnv(bad)


def test_env_to_module_batches_the_agents_on_turn_per_module():
    """VectorEnvToModule: the agents on turn, one row each, under their module (rows in
    the order of memorized_map_structure); done agents (final observations) never."""
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    vec = CanastaVectorEnv({"games": 5, "episode_steps": 0, "max_decisions": 2})
    conn = VectorEnvToModule(vec.observation_space, vec.action_space,
                             module_ids=("team_0", "team_1"))
    assert set(conn.observation_space.spaces) == {"team_0", "team_1"}
    assert conn.observation_space["team_0"] == vec.get_observation_space("g0h0_p0")
    episode = MultiAgentEpisode(
        agent_to_module_mapping_fn=lambda aid, ep: f"team_{int(aid[-1]) % 2}")
    obs, _ = vec.reset(seed=1)
    episode.add_env_reset(observations=obs)
    shared: dict = {}
    out = conn(rl_module=None, batch={}, episodes=[episode], shared_data=shared,
               **{Columns.OBS: [obs]})
    rows = shared["memorized_map_structure"]
    assert sorted(a for m in rows for _, a in rows[m]) == sorted(obs)
    for mid, keys in rows.items():
        batch = out[mid][Columns.OBS]
        assert all(mid == f"team_{int(a[-1]) % 2}" and e == episode.id_ for e, a in keys)
        for k, (_, a) in enumerate(keys):
            assert batch["observations"][k].numpy().tobytes() == obs[a]["observations"].tobytes()
            assert batch["action_mask"][k].numpy().tobytes() == obs[a]["action_mask"].tobytes()
    for _ in range(2):  # max_decisions: every hand truncated, nobody on turn any more
        acts = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
        obs, rew, term, trunc, _ = vec.step(acts)
    assert trunc["__all__"] and len(obs) == 20
    out = conn(rl_module=None, batch={}, episodes=[episode], shared_data=shared,
               **{Columns.OBS: [obs], Columns.TERMINATEDS: [term], Columns.TRUNCATEDS: [trunc]})
    assert out == {} and shared["memorized_map_structure"] == {}


@pytest.mark.parametrize("policies", ["shared", "per_partnership"])
def test_rllib_runner_samples_the_vector_env(policies):
    """RLlib's env runner (CanastaVectorEnvRunner, local) on the vector env, 6 games,
    new hands for 60 env steps per episode: in every hand the four seats' returns are
    equal for partners and opposite between partnerships; every action is legal under
    its mask; every seat's last observation has a zero mask; the modules are mapped per
    config; agent steps, decisions and finished hands are counted."""
    cfg = RLlibConfig(env="vector", policies=policies,
                      ppo={"net_arch": [16], "train_batch_size": 64, "minibatch_size": 64},
                      env_runners={"num_env_runners": 0, "num_envs_per_env_runner": 1,
                                   "games_per_env": 6, "episode_steps": 60})
    assert env_config(cfg)["games"] == 6 and env_config(cfg)["episode_steps"] == 60
    config = ppo_config(cfg)
    assert config.env_runner_cls is CanastaVectorEnvRunner
    runner = config.env_runner_cls(config=config)
    episodes = runner.sample(num_episodes=2, random_actions=False)
    done = [e for e in episodes if e.is_done]
    assert len(done) >= 2
    n_hands = 0
    for ep in done:
        rets: dict[str, list[float]] = {}
        for aid, e in ep.agent_episodes.items():
            rets.setdefault(_stretch(aid), [0.0] * 4)[int(aid[-1])] = e.get_return()
            assert e.module_id == ("shared" if policies == "shared"
                                   else f"team_{int(aid[-1]) % 2}")
            masks = np.asarray(e.get_observations()["action_mask"])
            acts = np.asarray(e.get_actions())
            assert (masks[np.arange(len(acts)), acts] == 1).all()  # every action legal
            assert not masks[-1].any() and e.is_terminated  # the final observation
        assert len(rets) >= 6
        for r in rets.values():
            assert r[0] == r[2] and r[1] == r[3] and r[0] == pytest.approx(-r[1])
        n_hands += len(rets)
    metrics = runner.get_metrics()
    decisions = sum(len(e) for ep in done for e in ep.agent_episodes.values())
    assert metrics["num_decisions_lifetime"].peek() == decisions
    # agent steps (observations, RLlib's count) as one total, not one entry per agent
    assert set(metrics["num_agent_steps_sampled_lifetime"]) == {ALL_AGENTS}
    assert metrics["num_agent_steps_sampled_lifetime"][ALL_AGENTS].peek() >= decisions
    assert metrics["hand_length"].peek() == pytest.approx(decisions / n_hands)
    mids = set(runner.module.keys())
    assert mids == ({"shared"} if policies == "shared" else {"team_0", "team_1"})
    runner.stop()


def _metric_keys(d, prefix=()) -> set[tuple]:
    if isinstance(d, dict):
        return set().union(*(_metric_keys(v, prefix + (str(k),)) for k, v in d.items())) \
            if d else {prefix}
    return {prefix}


def test_runner_metric_keys_do_not_grow_with_the_hands_played():
    """The vector env's agent ids are new for every hand; RLlib's per-agent episode
    metrics would add keys for each of them to the runner's (and the algorithm's)
    MetricsLogger for good, slowing every later iteration. CanastaVectorEnvRunner logs
    none: the metric keys after many episodes are those after the first ones, and none
    is an agent id."""
    import re

    cfg = RLlibConfig(env="vector", max_decisions=12,
                      ppo={"net_arch": [16], "train_batch_size": 64, "minibatch_size": 64},
                      env_runners={"num_env_runners": 0, "num_envs_per_env_runner": 1,
                                   "games_per_env": 4, "episode_steps": 30})
    config = ppo_config(cfg)
    runner = config.env_runner_cls(config=config)
    for _ in range(2):  # the second sample call adds time_between_sampling
        runner.sample(num_episodes=2, random_actions=False)
        first = _metric_keys(runner.get_metrics())
    for _ in range(3):
        runner.sample(num_episodes=2, random_actions=False)
        keys = _metric_keys(runner.get_metrics())
    assert keys == first
    agent_id = re.compile(r"^g\d+h\d+_p\d$")
    assert not [k for k in keys if any(agent_id.match(p) for p in k)]
    assert any(k[0] == "module_episode_returns_mean" for k in keys)  # per module: kept
    runner.stop()
