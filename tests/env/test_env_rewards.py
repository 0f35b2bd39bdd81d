"""Rewards and episodes (docs/RULES.md §7 "Rewards"; §2.16 game end): partners share
rewards, the partnerships' rewards sum to zero, score-difference rewards match the score
sheets in ``infos``, win / loss rewards follow the sign, and ``episode="game"`` plays hands
until a partnership reaches 5,000 with every hand's reward delivered through ``last()``."""

from __future__ import annotations

import random

import pytest

import canasta_env
from canasta_env import AGENTS
from canasta_env.aec import default_backend
from canasta_env.engine import SHEET_ROWS, IllegalActionError
from canasta_env.engine.game import Phase

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend

# From (4,900, 4,900) most hands end the game: these seeds include games that need a
# second hand (the backends deal differently: Python seeds 8, 9 and 15; native 55 and 76)
GAME_SEEDS = {"python": range(20), "native": (*range(18), 55, 76)}


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _play_game(raw, seed: int):
    """Random play to the end of the episode. Returns (per-hand records, summed step
    rewards per agent, rewards seen through last() per agent)."""
    raw.reset(seed=seed)
    rng = random.Random(seed)
    summed = dict.fromkeys(AGENTS, 0.0)
    seen = dict.fromkeys(AGENTS, 0.0)
    hands = []
    while not all(raw.terminations.values()):
        agent = raw.agent_selection
        _, rew, term, trunc, info = raw.last()
        assert not term and not trunc
        assert info["phase"] == raw.game.phase.name
        seen[agent] += rew
        raw.step(rng.choice(raw.game.legal_actions()))
        for a in AGENTS:
            summed[a] += raw.rewards[a]
        if len(raw.game.history) > len(hands):  # this step ended a hand
            hands.append({"sheets": raw.game.history[-1]["sheets"],
                          "rewards": dict(raw.rewards),
                          "infos": {a: dict(raw.infos[a]) for a in AGENTS},
                          "terminated": all(raw.terminations.values()),
                          "next": (raw.game.hand_number, raw.game.phase, list(raw.game.scores),
                                   list(raw.game.minimum))})
        else:
            assert all(r == 0 for r in raw.rewards.values())
    for agent in raw.agent_iter():
        _, rew, term, _, _ = raw.last()
        assert term
        seen[agent] += rew
        raw.step(None)
    return hands, summed, seen


def _check_sheets(sheets, previous):
    assert [s["previous"] for s in sheets] == list(previous)
    for s in sheets:
        assert list(s) == list(SHEET_ROWS)
        assert s["hand_score"] == sum(s[k] for k in SHEET_ROWS[:5])
        assert s["total"] == s["previous"] + s["hand_score"]


@pytest.mark.parametrize("reward", ["score_diff", "win_loss"])
def test_game_episode_runs_hands_until_5000(reward):
    multi_hand_games = 0
    for seed in GAME_SEEDS[default_backend()]:
        raw = canasta_env.raw_env(episode="game", reward=reward, starting_scores=(4900, 4900))
        hands, summed, seen = _play_game(raw, seed)
        assert hands, seed
        multi_hand_games += len(hands) > 1
        previous = (4900, 4900)
        diffs = 0
        for i, h in enumerate(hands):
            sheets = h["sheets"]
            _check_sheets(sheets, previous)
            totals = [s["total"] for s in sheets]
            hs = [s["hand_score"] for s in sheets]
            last = i == len(hands) - 1
            # the game ends exactly at the first hand that reaches the target
            assert (max(totals) >= 5000) == last == h["terminated"]
            for a in AGENTS:
                assert h["infos"][a]["score_sheets"] == sheets
                assert h["infos"][a]["hand_scores"] == hs
            r = h["rewards"]
            assert r["player_0"] == r["player_2"] and r["player_1"] == r["player_3"]
            assert r["player_0"] + r["player_1"] == 0
            if reward == "score_diff":
                assert r["player_0"] == pytest.approx((hs[0] - hs[1]) * 0.001)
            elif last:
                assert r["player_0"] == _sign(totals[0] - totals[1])
            else:
                assert r["player_0"] == 0
            if not last:  # the next hand was dealt: new dealer, minimums from the totals
                hand_number, phase, scores, minimum = h["next"]
                assert (hand_number, phase, scores) == (i + 1, Phase.DRAW, totals)
                assert minimum == [raw.rules.opening_minimum(t) for t in totals]
            diffs += hs[0] - hs[1]
            previous = totals
        final = [s["total"] for s in hands[-1]["sheets"]]
        winner = _sign(final[0] - final[1])
        assert raw.game.winner == {1: 0, -1: 1, 0: -1}[winner]
        expected = diffs * 0.001 if reward == "score_diff" else winner
        for a, exp in zip(AGENTS, (expected, -expected, expected, -expected)):
            assert summed[a] == pytest.approx(exp)
            assert seen[a] == pytest.approx(exp)  # every hand's reward reached every agent
    assert multi_hand_games >= 2


def test_hand_episode_rewards_match_score_sheets():
    for seed in range(10):
        for reward, scale in (("score_diff", 0.001), ("score_diff", 1.0), ("win_loss", 1.0)):
            raw = canasta_env.raw_env(reward=reward, reward_scale=scale,
                                      starting_scores=(-300, 2000))
            hands, summed, seen = _play_game(raw, seed)
            assert len(hands) == 1 and hands[0]["terminated"]
            sheets = hands[0]["sheets"]
            _check_sheets(sheets, (-300, 2000))
            diff = sheets[0]["hand_score"] - sheets[1]["hand_score"]
            r0 = diff * scale if reward == "score_diff" else _sign(diff)
            assert summed == seen == {"player_0": pytest.approx(r0), "player_1": pytest.approx(-r0),
                                      "player_2": pytest.approx(r0), "player_3": pytest.approx(-r0)}


def test_refused_action_keeps_the_reward_owed_to_the_agent():
    """In a game, the first agent of the next hand still holds the last hand's reward; an
    illegal action it tries must not swallow that reward."""
    raw = canasta_env.raw_env(episode="game", starting_scores=(4900, 4900))
    seed = {"python": 8, "native": 76}[default_backend()]
    raw.reset(seed=seed)  # the first hand ends below 5,000 for both partnerships
    rng = random.Random(seed)
    while not raw.game.history:
        raw.step(rng.choice(raw.game.legal_actions()))
    assert not any(raw.terminations.values())
    agent = raw.agent_selection
    owed = raw.last()[1]
    assert owed != 0
    bad = next(a for a in range(canasta_env.engine.NUM_ACTIONS)
               if a not in raw.game.legal_actions())
    with pytest.raises(IllegalActionError):
        raw.step(bad)
    assert raw.agent_selection == agent
    assert raw.last()[1] == owed


def test_score_sheets_appear_only_on_the_step_that_ends_a_hand():
    import numpy as np

    from canasta_env import raw_env

    e = raw_env(episode="game", starting_scores=(0, 0))
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    hands_seen = 0
    steps_with_sheets = 0
    while not (e.terminations["player_0"] or e.truncations["player_0"]) and hands_seen < 2:
        legal = np.flatnonzero(e.action_mask())
        e.step(int(rng.choice(legal)))
        if "score_sheets" in e.infos["player_0"]:
            steps_with_sheets += 1
            hands_seen += 1
            sheets = e.infos["player_0"]["score_sheets"]
            assert [s["hand_score"] for s in sheets] == e.infos["player_1"]["hand_scores"]
    assert hands_seen == 2 and steps_with_sheets == 2
