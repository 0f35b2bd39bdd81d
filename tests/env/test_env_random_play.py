"""Random-play invariants through ``raw_env``'s AEC API over 1,000 seeded hands
(docs/RULES.md §6 and §7: masks, rewards, illegal actions).

Every step: the agent on turn has a non-empty mask equal to the engine's legal actions,
its observation is a finite, non-negative float32 vector in the observation space, and
``infos`` carry the phase. On a sample of steps (and at every ``PICKUP`` / ``ANSWER``
position): every allowed action is accepted on a clone and leaves a decision or a
finished hand (no dead end), a random sample of forbidden actions is refused with an
:class:`IllegalActionError` naming the action and leaving the clone unchanged, the
other agents' masks are all zeros; now and then a forbidden action goes through
``raw_env.step`` itself and must leave the environment untouched. Every hand must end
by termination within ``max_decisions`` with rewards and score sheets that agree.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

import canasta_env
from canasta_env import AGENTS, OBS_SIZE
from canasta_env.engine import NUM_ACTIONS, SHEET_ROWS, IllegalActionError, describe, to_position
from canasta_env.engine.game import Phase

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend

#: name -> (raw_env options, hands); the hands add up to 1,000
CONFIGS = {
    "default": ({}, 550),
    "sampled starting scores": ({"starting_scores": "sample"}, 150),
    "rules options": ({"black_three_freezes": True, "one_card_pile_restriction": False,
                       "red_three_last_card_may_meld": True, "reward_scale": 0.01}, 150),
    "ask required, win/loss": ({"ask_partner_required": True, "reward": "win_loss"}, 150),
}
assert sum(n for _, n in CONFIGS.values()) == 1000

CHECK_RATE = 1 / 12  # share of ordinary steps that get the clone checks
ALL_ALLOWED_RATE = 1 / 50  # share of ordinary steps whose every allowed action is tried
FORBIDDEN_PER_CHECK = 4
DIRECT_STEP_RATE = 1 / 25  # share of checked steps that try raw_env.step(forbidden)


def _fingerprint(g) -> tuple:
    """The mutable state of a game, cheaper than a full :func:`to_position`."""
    return (g.phase, g.current, tuple(map(tuple, g.hands)), tuple(map(tuple, g.known)),
            tuple(g.stock), tuple(g.pile), tuple(g.pending), tuple(g.red3),
            tuple(map(tuple, g.nat + g.jok + g.two)), tuple(g.opened), g.pile_frozen,
            g.turn_points, g.laid, g.drew_stock, g.asked, g.must_out, g.no_discard,
            g.decisions, len(g.log))


def _check_forbidden_on_clone(raw, legal: set[int], rng: random.Random, stats) -> None:
    before = _fingerprint(raw.game)
    clone = raw.game.clone()
    assert _fingerprint(clone) == before
    forbidden = [a for a in range(NUM_ACTIONS) if a not in legal]
    for a in rng.sample(forbidden, min(FORBIDDEN_PER_CHECK, len(forbidden))):
        with pytest.raises(IllegalActionError) as err:
            clone.apply(a)
        msg = str(err.value)
        assert f"illegal action {a} " in msg and describe(a) in msg, msg
        assert re.search(r" in phase [A-Z_]+: \w", msg), f"no reason given: {msg}"
        stats["forbidden"] += 1
    assert _fingerprint(clone) == before


def _check_allowed_on_clones(raw, legal: set[int], stats) -> None:
    for a in sorted(legal):
        clone = raw.game.clone()
        clone.apply(a)  # must not raise
        assert clone.hand_over or clone.legal_actions(), \
            f"{describe(a)!r} leads into a dead end (no legal action, hand not over)"
        stats["allowed"] += 1


def _check_direct_step_refused(raw, legal: set[int], rng: random.Random, stats) -> None:
    """A forbidden action through raw_env.step raises and changes nothing."""
    a = rng.choice([x for x in range(NUM_ACTIONS) if x not in legal])
    agent = raw.agent_selection
    snap = (to_position(raw.game), agent, dict(raw._cumulative_rewards), dict(raw.rewards),
            dict(raw.terminations), dict(raw.truncations), raw.num_decisions)
    obs = raw.observe(agent)
    with pytest.raises(IllegalActionError, match=f"illegal action {a} "):
        raw.step(a)
    assert (to_position(raw.game), raw.agent_selection, dict(raw._cumulative_rewards),
            dict(raw.rewards), dict(raw.terminations), dict(raw.truncations),
            raw.num_decisions) == snap
    after = raw.observe(agent)
    np.testing.assert_array_equal(after["observation"], obs["observation"])
    np.testing.assert_array_equal(after["action_mask"], obs["action_mask"])
    stats["direct"] += 1


def _check_other_masks(raw, agent: str) -> None:
    for other in AGENTS:
        if other != agent:
            m = raw.observe(other)["action_mask"]
            assert m.dtype == np.int8 and m.shape == (NUM_ACTIONS,) and not m.any(), other


def _check_hand_end(raw, reward_mode: str, scale: float, start_scores) -> None:
    g = raw.game
    assert all(raw.terminations.values()) and not any(raw.truncations.values())
    assert raw.num_decisions <= raw.max_decisions
    assert g.hand_over
    sheets = raw.infos["player_0"]["score_sheets"]
    hand_scores = raw.infos["player_0"]["hand_scores"]
    assert len(sheets) == 2
    for a in AGENTS:
        assert raw.infos[a]["score_sheets"] == sheets
        assert raw.infos[a]["hand_scores"] == hand_scores
        assert raw.infos[a]["phase"] == g.phase.name
    assert sheets == [s.as_dict() for s in g.sheets]
    for t, s in enumerate(sheets):
        assert list(s) == list(SHEET_ROWS)
        assert s["hand_score"] == sum(s[k] for k in SHEET_ROWS[:5])
        assert s["total"] == s["previous"] + s["hand_score"]
        assert s["previous"] == start_scores[t]
        assert g.scores[t] == s["total"]
    assert hand_scores == [sheets[0]["hand_score"], sheets[1]["hand_score"]]
    diff = hand_scores[0] - hand_scores[1]
    if reward_mode == "score_diff":
        r0 = diff * scale
    else:
        r0 = float(np.sign(diff))
    r = dict(raw.rewards)
    assert r["player_0"] == r["player_2"] and r["player_1"] == r["player_3"]
    assert r["player_0"] + r["player_1"] == 0
    assert r["player_0"] == pytest.approx(r0, abs=1e-12)
    # every agent sees its reward through last() while being stepped out
    seen = {}
    for agent in raw.agent_iter():
        _, rew, term, trunc, info = raw.last()
        assert term and not trunc
        seen[agent] = rew
        raw.step(None)
    assert seen == {a: r[a] for a in AGENTS}
    assert raw.agents == []


def _play_hand(raw, seed: int, rng: random.Random, stats, reward_mode: str) -> None:
    raw.reset(seed=seed)
    start_scores = tuple(raw.game.scores)
    space = raw.observation_space("player_0")
    while not all(raw.terminations.values()):
        assert not any(raw.truncations.values()), f"seed {seed} truncated"
        agent = raw.agent_selection
        g = raw.game
        assert agent == AGENTS[g.to_move]
        obs, _, term, trunc, info = raw.last()
        assert not term and not trunc
        v, mask = obs["observation"], obs["action_mask"]
        assert v.dtype == np.float32 and v.shape == (OBS_SIZE,)
        assert np.isfinite(v).all() and (v >= 0).all(), f"seed {seed}: {v[v < 0]}"
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        legal = set(np.flatnonzero(mask).tolist())
        assert legal, f"seed {seed}: {agent} on turn in {g.phase.name} has an empty mask"
        assert legal == set(g.legal_actions())
        assert info["phase"] == g.phase.name
        rare = g.phase in (Phase.PICKUP, Phase.ANSWER)
        stats["phase_" + g.phase.name] += 1
        if rare or rng.random() < CHECK_RATE:
            assert space.contains(obs), f"seed {seed}: observation outside its space"
            _check_other_masks(raw, agent)
            _check_forbidden_on_clone(raw, legal, rng, stats)
            if rng.random() < DIRECT_STEP_RATE:
                _check_direct_step_refused(raw, legal, rng, stats)
        if rare or rng.random() < ALL_ALLOWED_RATE:
            _check_allowed_on_clones(raw, legal, stats)
        raw.step(rng.choice(sorted(legal)))
        stats["steps"] += 1
        if not all(raw.terminations.values()):
            assert all(raw.infos[a]["phase"] == raw.game.phase.name for a in AGENTS)
            assert all(x == 0 for x in raw.rewards.values())
    stats["went_out"] += raw.game.went_out is not None
    _check_hand_end(raw, reward_mode, raw.reward_scale, start_scores)
    stats["hands"] += 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_hands_through_the_aec_api(name):
    options, hands = CONFIGS[name]
    raw = canasta_env.raw_env(**options)
    stats = dict.fromkeys(["hands", "steps", "forbidden", "allowed", "direct", "went_out"]
                          + ["phase_" + p.name for p in Phase], 0)
    base = 1000 * list(CONFIGS).index(name)
    for seed in range(base, base + hands):
        _play_hand(raw, seed, random.Random(seed), stats, raw.reward_mode)
    assert stats["hands"] == hands
    # the checks ran, and the rarer parts of a turn were reached
    assert stats["steps"] > 100 * hands
    assert stats["forbidden"] > stats["steps"] * CHECK_RATE
    assert stats["allowed"] > stats["steps"] * ALL_ALLOWED_RATE
    assert stats["direct"] > 10
    assert stats["phase_PICKUP"] > 0 and stats["phase_ANSWER"] > 0
    assert stats["went_out"] > hands // 3


def test_sampled_starting_scores_cover_every_opening_minimum():
    raw = canasta_env.raw_env(starting_scores="sample")
    minimums = set()
    for seed in range(200):
        raw.reset(seed=seed)
        g = raw.game
        for t in (0, 1):
            assert g.scores[t] % 5 == 0 and -1000 <= g.scores[t] <= 4995
            assert g.minimum[t] == g.options.opening_minimum(g.scores[t])
            minimums.add(g.minimum[t])
    assert minimums == {15, 50, 90, 120}
