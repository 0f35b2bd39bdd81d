"""RLlib over the native batched core (training.rllib_vector_env, ``env: vector``): the same
transitions as the AEC path (observations, masks, rewards and done flags per seat, decision
by decision, for hands dealt by the AEC env), legal actions and zero-sum rewards that reach
all four seats through RLlib's own env runner, and the env's errors. The smoke config
(which uses this env) runs end to end in tests/test_rllib.py."""

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
)

pytestmark = pytest.mark.skipif(not native.available,
                                reason="env: vector needs the compiled core")


def _vid(game: int, agent: str) -> str:
    """The vector env's id of AEC agent ``player_<s>`` in ``game``."""
    return f"g{game}_p{agent[-1]}"


@pytest.mark.parametrize("variant, max_decisions", [("classic", 2000), ("hand_and_foot", 2000),
                                                    ("classic", 25)])
def test_transitions_match_the_aec_env(variant, max_decisions):
    """Three games at once, each dealt by its own AEC env (CanastaRLlibEnv) and put into
    the vector env; the same random legal actions: every agent receives the same
    observation, mask, reward and done flags from both, at every step, up to the final
    observation of each seat (terminated; truncated at ``max_decisions``)."""
    kw = {"variant": variant, "max_decisions": max_decisions, "starting_scores": "sample"}
    if variant == "hand_and_foot":
        kw.pop("starting_scores")
    games = 3
    aecs = [CanastaRLlibEnv(kw) for _ in range(games)]
    vec = CanastaVectorEnv({**kw, "games": games})
    rng = np.random.default_rng(0)
    for hand in range(2):
        a_obs = [e.reset(seed=100 * hand + g)[0] for g, e in enumerate(aecs)]
        v_obs, _ = vec.reset(options={"positions": [e.env.position() for e in aecs]})
        playing = set(range(games))
        totals: dict[str, float] = {}
        for _step in range(3000):
            # the playing games' agents on turn (the others' final observations came last)
            assert {k for k in v_obs if int(k[1:k.index("_")]) in playing} == \
                {_vid(g, a) for g in playing for a in a_obs[g]}
            actions, v_actions = {}, {}
            for g in playing:
                (agent, o), = a_obs[g].items()
                v = v_obs[_vid(g, agent)]
                assert o["observations"].tobytes() == v["observations"].tobytes()
                assert o["action_mask"].tobytes() == v["action_mask"].tobytes()
                actions[g] = int(rng.choice(np.flatnonzero(o["action_mask"])))
                v_actions[_vid(g, agent)] = actions[g]
            v_obs, v_rew, v_term, v_trunc, _ = vec.step(v_actions)
            assert set(v_rew) <= set(v_obs)  # a reward only with that agent's observation
            for g in sorted(playing):
                (agent,) = a_obs[g]
                obs, rew, term, trunc, _ = aecs[g].step({agent: actions[g]})
                assert {k for k in v_obs if k.startswith(f"g{g}_")} == {_vid(g, a) for a in obs}
                for a, o in obs.items():
                    v = v_obs[_vid(g, a)]
                    assert o["observations"].tobytes() == v["observations"].tobytes()
                    assert o["action_mask"].tobytes() == v["action_mask"].tobytes()
                    assert v_rew.get(_vid(g, a), 0.0) == rew.get(a, 0.0)
                    assert v_term.get(_vid(g, a), False) == term.get(a, False)
                    assert v_trunc.get(_vid(g, a), False) == trunc.get(a, False)
                    totals[_vid(g, a)] = totals.get(_vid(g, a), 0.0) + rew.get(a, 0.0)
                if term["__all__"] or trunc["__all__"]:
                    assert len(obs) == 4 and not any(o["action_mask"].any() for o in obs.values())
                    playing.discard(g)
                else:
                    a_obs[g] = obs
            if not playing:
                break
        else:
            pytest.fail("the hands did not end")
        assert v_term["__all__"] != v_trunc["__all__"]  # the episode ended, one way
        assert v_trunc["__all__"] == (max_decisions == 25)
        for g in range(games):
            t = [totals[f"g{g}_p{s}"] for s in range(4)]
            assert t[0] == t[2] == -t[1] == -t[3]
            assert (t[0] != 0) == (max_decisions == 2000)
        with pytest.raises(ValueError, match="reset"):  # the episode is over
            vec.step({})


def test_random_play_credits_every_seat_zero_sum():
    """16 games, five episodes (hands) from their own deals: the final observation (zero
    mask) and reward reach all four seats of every game, partners get the same return,
    the partnerships opposite ones; the decisions and finished hands are reported."""
    vec = CanastaVectorEnv({"games": 16, "starting_scores": "sample", "reward_scale": 0.001})
    rng = np.random.default_rng(1)
    decisions = 0
    for episode in range(5):
        obs, _ = vec.reset(seed=episode if episode < 2 else None)
        assert len(obs) == 16
        totals: dict[str, float] = {}
        final: set[str] = set()
        while True:
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()
                    if a not in final}
            decisions += len(acts)
            obs, rew, term, trunc, _ = vec.step(acts)
            for a, r in rew.items():
                totals[a] = totals.get(a, 0.0) + r
            for a in obs:
                if term.get(a) or trunc.get(a):
                    assert not obs[a]["action_mask"].any() and a not in final
                    final.add(a)
                else:
                    assert obs[a]["action_mask"].any()
            obs = {a: o for a, o in obs.items() if a not in final}
            if term["__all__"]:
                break
        assert final == set(vec.possible_agents)
        rets = np.array([[totals[f"g{g}_p{s}"] for s in range(4)] for g in range(16)])
        assert (rets[:, 0] == rets[:, 2]).all() and (rets[:, 1] == rets[:, 3]).all()
        assert np.allclose(rets[:, 0], -rets[:, 1]) and (rets[:, 0] != 0).all()
        taken, hands = vec.pop_stats()
        assert taken == decisions and len(hands) == 16
        assert sorted(h[0] for h in hands) == sorted(rets[:, 0].tolist())
        assert not any(h[2] for h in hands) and all(h[1] > 0 for h in hands)
        decisions = 0


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
    wrong_seat = {("g0_p1" if a == "g0_p0" else "g0_p0") if a.startswith("g0_") else a: x
                  for a, x in good.items()}
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
    with pytest.raises(ValueError, match="games must be an int"):
        CanastaVectorEnv({"games": 0})


@pytest.mark.parametrize("policies", ["shared", "per_partnership"])
def test_rllib_runner_samples_whole_hands(policies):
    """RLlib's env runner (CanastaVectorEnvRunner, local) on the vector env: two episodes
    of 6 games; in each, every game's four seats have their final reward, partners equal,
    partnerships zero-sum; every action is legal under its mask; the modules are mapped
    per config; agent steps and decisions are counted."""
    cfg = RLlibConfig(env="vector", policies=policies,
                      ppo={"net_arch": [16], "train_batch_size": 64, "minibatch_size": 64},
                      env_runners={"num_env_runners": 0, "num_envs_per_env_runner": 1,
                                   "games_per_env": 6})
    assert env_config(cfg)["games"] == 6
    config = ppo_config(cfg)
    assert config.env_runner_cls is CanastaVectorEnvRunner
    runner = config.env_runner_cls(config=config)
    episodes = runner.sample(num_episodes=2, random_actions=False)
    done = [e for e in episodes if e.is_done]
    assert len(done) >= 2
    for ep in done:
        rets = {a: e.get_return() for a, e in ep.agent_episodes.items()}
        assert set(rets) == {f"g{g}_p{s}" for g in range(6) for s in range(4)}
        for g in range(6):
            r = [rets[f"g{g}_p{s}"] for s in range(4)]
            assert r[0] == r[2] and r[1] == r[3] and r[0] == pytest.approx(-r[1])
        for aid, e in ep.agent_episodes.items():
            assert e.module_id == ("shared" if policies == "shared"
                                   else f"team_{int(aid[-1]) % 2}")
            masks = np.asarray(e.get_observations()["action_mask"])
            acts = np.asarray(e.get_actions())
            assert (masks[np.arange(len(acts)), acts] == 1).all()  # every action legal
            assert not masks[-1].any() and e.is_terminated  # the final observation
    metrics = runner.get_metrics()
    decisions = sum(len(e) for ep in done for e in ep.agent_episodes.values())
    assert metrics["num_decisions_lifetime"].peek() == decisions
    # agent steps (observations, RLlib's count) as one total, not one entry per agent
    assert set(metrics["num_agent_steps_sampled_lifetime"]) == {ALL_AGENTS}
    assert metrics["num_agent_steps_sampled_lifetime"][ALL_AGENTS].peek() >= decisions
    assert metrics["hand_length"].peek() > 0
    mids = set(runner.module.keys())
    assert mids == ({"shared"} if policies == "shared" else {"team_0", "team_1"})
    runner.stop()
