"""Hand and Foot through the PettingZoo AEC API (docs/RULES.md §3 and §7): ``env(variant=
"hand_and_foot")`` passes PettingZoo's api_test and seed_test; 1,000 seeded random hands
(random legal actions, biased toward melding so hands reach the foot and go out) keep the
mask exactly the legal set (every allowed action accepted, forbidden ones refused with
IllegalActionError, never an empty mask, the 270 cards conserved, no dead end); rewards and
score sheets agree; a whole four-round game plays to the end deterministically; JSON
positions round-trip; the render shows the foot."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import canasta_env
from canasta_env import AGENTS
from canasta_env.engine import SHEET_ROWS, IllegalActionError, actions, from_position
from canasta_env.engine.game import Phase
from canasta_env.observation import OBS_SIZE, OBS_SIZE_HAND_AND_FOOT, decode
from tests.helpers.hand_and_foot import PACK, total_cards

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend

N_ACT = actions.NUM_ACTIONS_HAND_AND_FOOT
HANDS = 1000
CHECK_RATE = 1 / 40  # share of ordinary steps that get the clone checks
ALL_ALLOWED_RATE = 1 / 150  # share of ordinary steps whose every allowed action is tried
FORBIDDEN_PER_CHECK = 4
MELD_BIAS = 0.7  # chance of choosing among the non-discard actions when there are some


def random_action(legal: list[int], rng: random.Random) -> int:
    """A random legal action, biased toward melding (uniform play discards so often that
    it seldom reaches the foot or goes out)."""
    melds = [a for a in legal if not actions.DISCARD <= a < actions.NUM_ACTIONS]
    return rng.choice(melds if melds and rng.random() < MELD_BIAS else legal)


def hf_env(**kw):
    return canasta_env.env(variant="hand_and_foot", **kw)


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_pettingzoo_api_test(episode):
    api_test(hf_env(episode=episode), num_cycles=400)


def test_pettingzoo_seed_test():
    seed_test(lambda: hf_env(), num_cycles=300)


def test_spaces_extend_classic():
    raw = canasta_env.raw_env(variant="hand_and_foot")
    assert raw.action_space("player_0").n == N_ACT == actions.NUM_ACTIONS + 7 == 98
    assert raw.observation_space("player_0")["observation"].shape == (OBS_SIZE_HAND_AND_FOOT,)
    assert OBS_SIZE_HAND_AND_FOOT == OBS_SIZE + 43 == 245
    classic = canasta_env.raw_env()
    assert classic.action_space("player_0").n == 91 and classic.obs_size == 202
    # the Classic ids keep their descriptions
    t = actions.table(raw.rules)
    assert t.descriptions[:91] == actions.DESCRIPTIONS
    for a in range(N_ACT):
        assert t.parse(t.describe(a)) == a
    with pytest.raises(ValueError):
        actions.parse("take pile with a wild pair")  # not a Classic action


def test_observation_pieces_and_render_show_the_foot():
    raw = canasta_env.raw_env(variant="hand_and_foot", render_mode="ansi")
    raw.reset(seed=3)
    d = decode(raw.observe(raw.agent_selection)["observation"])
    assert np.allclose(d["foot_sizes"] * 11, 11) and not d["in_foot"].any()
    assert d["round"][0] * 4 == pytest.approx(1)
    assert d["opening_minimums"][0] * 120 == pytest.approx(60)
    text = raw.render()
    assert "Hand and Foot round 1 of 4" in text and "+ foot of 11" in text
    g = raw.game
    g.in_foot[g.current] = True  # a seat in its foot (render reads state only)
    g.hands[g.current] = [a + b for a, b in zip(g.hands[g.current], g.feet[g.current])]
    g.feet[g.current] = [0] * 15
    assert "me: 22 cards (in foot)" in raw.render()
    g.hands[g.current] = [0] * 15
    g.hands[g.current][5] = 1  # one card left, and one red 3 down
    g.red3[g.current] = 1
    assert "me: 1 card (in foot), 1 red 3 |" in raw.render()


V = (50, 20, 5, 0, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)


def expected_sheets(g) -> list[tuple]:
    """Score-sheet rows 1-5 recomputed from the final state, independently of the
    engine: table values of open melds, wild melds and books; books 500 clean / 300
    dirty / 1,500 wild; red 3s +100 each; going out 100; hand and foot cards at their
    values, red 3s -100, subtracted."""
    out = []
    for t in (0, 1):
        table = sum(g.nat[t][r] * V[r] + 50 * g.jok[t][r] + 20 * g.two[t][r] for r in range(15))
        table += 50 * g.wild_meld[t][0] + 20 * g.wild_meld[t][1]
        bonus = 0
        for r, n, j, w in g.books[t]:
            table += n * V[r] + 50 * j + 20 * w
            bonus += 1500 if r == 0 else 300 if j + w else 500
        red3 = 100 * (g.red3[t] + g.red3[t + 2])
        out_bonus = 100 if g.went_out is not None and g.went_out % 2 == t else 0
        left = [g.hands[t], g.hands[t + 2], g.feet[t], g.feet[t + 2]]
        pen = -sum(sum(n * v for n, v in zip(h, V)) + 100 * h[3] for h in left)
        out.append((table, bonus, red3, out_bonus, pen))
    return out


def check_melds(g) -> None:
    """Open melds: 2+ naturals, wilds at most half of them, 3-6 cards (7 closes); books of
    7; wild melds 0 or 3-6 cards; black 3s only in a going-out meld."""
    for t in (0, 1):
        for r in range(15):
            n, w = g.nat[t][r], g.jok[t][r] + g.two[t][r]
            if n:
                assert n >= 2 and 2 * w <= n and 3 <= n + w <= 6, (r, n, w)
            else:
                assert w == 0
        assert sum(g.wild_meld[t]) in (0, 3, 4, 5, 6)
        for r, n, j, w in g.books[t]:
            assert n + j + w == 7 and (r == 0 or 2 * (j + w) <= n)
        if g.nat[t][2]:
            assert g.went_out is not None and g.went_out % 2 == t


def _check_hand_end(raw) -> None:
    g = raw.game
    check_melds(g)
    assert [(s.table, s.canasta_bonus, s.red_threes, s.going_out, s.hand_penalty)
            for s in g.sheets] == expected_sheets(g)
    assert all(raw.terminations.values()) and not any(raw.truncations.values())
    sheets = raw.infos["player_0"]["score_sheets"]
    assert sheets == [s.as_dict() for s in g.sheets]
    for s in sheets:
        assert list(s) == list(SHEET_ROWS)
        assert s["hand_score"] == sum(s[k] for k in SHEET_ROWS[:5])
    diff = sheets[0]["hand_score"] - sheets[1]["hand_score"]
    r = dict(raw.rewards)
    assert r["player_0"] == r["player_2"] == pytest.approx(diff * raw.reward_scale)
    assert r["player_1"] == r["player_3"] == -r["player_0"]
    if g.went_out is not None:
        clean, dirty = g.book_counts(g.went_out % 2)
        assert clean >= 2 and dirty >= 2 and g.in_foot[g.went_out]
        assert sum(g.hands[g.went_out]) == 0


@pytest.mark.slow
def test_random_hands_mask_is_exactly_the_legal_set():
    raw = canasta_env.raw_env(variant="hand_and_foot")
    stats = dict(steps=0, forbidden=0, allowed=0, went_out=0, foot=0, pickup=0, answer=0,
                 wild=0)
    for seed in range(HANDS):
        rng = random.Random(seed)
        raw.reset(seed=seed)
        while not all(raw.terminations.values()):
            assert not any(raw.truncations.values()), f"seed {seed} truncated"
            agent = raw.agent_selection
            g = raw.game
            obs = raw.observe(agent)
            v, mask = obs["observation"], obs["action_mask"]
            assert v.shape == (OBS_SIZE_HAND_AND_FOOT,) and mask.shape == (N_ACT,)
            legal = np.flatnonzero(mask).tolist()
            assert legal, f"seed {seed}: empty mask in {g.phase.name}"
            assert legal == g.legal_actions()
            rare = g.phase in (Phase.PICKUP, Phase.ANSWER)
            stats["pickup"] += g.phase == Phase.PICKUP
            stats["answer"] += g.phase == Phase.ANSWER
            if rare or rng.random() < CHECK_RATE:
                assert (v >= 0).all() and np.isfinite(v).all()
                assert total_cards(g) == PACK
                clone = g.clone()
                forbidden = [a for a in range(N_ACT) if a not in legal]
                for a in rng.sample(forbidden, min(FORBIDDEN_PER_CHECK, len(forbidden))):
                    with pytest.raises(IllegalActionError, match=f"illegal action {a} "):
                        clone.apply(a)
                    stats["forbidden"] += 1
                for other in AGENTS:
                    if other != agent:
                        assert not raw.observe(other)["action_mask"].any()
            if rare or rng.random() < ALL_ALLOWED_RATE:
                for a in legal:
                    c = g.clone()
                    c.apply(a)
                    assert c.hand_over or c.legal_actions(), f"seed {seed}: dead end"
                    assert total_cards(c) == PACK
                    stats["allowed"] += 1
            a = random_action(legal, rng)
            stats["wild"] += a >= actions.START_WILD_MELD
            raw.step(a)
            stats["steps"] += 1
        stats["went_out"] += raw.game.went_out is not None
        stats["foot"] += sum(raw.game.in_foot)
        assert total_cards(raw.game) == PACK
        _check_hand_end(raw)
    assert stats["steps"] > 100 * HANDS
    assert stats["forbidden"] > stats["steps"] * CHECK_RATE
    assert stats["allowed"] > stats["steps"] * ALL_ALLOWED_RATE
    assert stats["pickup"] > 0 and stats["answer"] > 0 and stats["wild"] > 0
    assert stats["foot"] > HANDS and stats["went_out"] > HANDS // 20


def _play_game(seed: int) -> list:
    raw = canasta_env.raw_env(variant="hand_and_foot", episode="game", max_decisions=100_000)
    raw.reset(seed=seed)
    rng = random.Random(seed)
    minimums = []
    hand_no = -1
    while not all(raw.terminations.values()):
        assert not any(raw.truncations.values())
        g = raw.game
        if g.hand_number != hand_no:
            hand_no = g.hand_number
            minimums.append(list(g.minimum))
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(random_action(np.flatnonzero(mask).tolist(), rng))
    g = raw.game
    assert g.game_over and g.hand_number == 3 and len(g.history) == 4
    assert minimums == [[60, 60], [90, 90], [120, 120], [150, 150]]
    a, b = g.scores
    assert g.winner == (0 if a > b else 1 if b > a else -1)
    assert [sum(h["sheets"][t]["hand_score"] for h in g.history) for t in (0, 1)] == [a, b]
    return [h["sheets"] for h in g.history] + [g.winner]


def test_full_four_round_game_is_deterministic():
    first = _play_game(11)
    assert _play_game(11) == first
    assert _play_game(12) != first


def test_positions_round_trip_mid_turn():
    raw = canasta_env.raw_env(variant="hand_and_foot")
    rng = random.Random(5)
    seen = set()
    for seed in range(6):
        raw.reset(seed=seed)
        while not all(raw.terminations.values()):
            g = raw.game
            if rng.random() < 0.1 or g.phase in (Phase.PICKUP, Phase.ANSWER) or any(g.in_foot):
                pos = raw.position()
                back = from_position(pos)
                assert back.legal_actions() == g.legal_actions()
                assert canasta_env.engine.to_position(back) == pos
                other = canasta_env.raw_env(variant="hand_and_foot")
                other.reset(options={"position": pos})
                a = raw.agent_selection
                np.testing.assert_array_equal(other.observe(a)["observation"],
                                              raw.observe(a)["observation"])
                seen.add(g.phase.name)
                seen.add("foot" if any(g.in_foot) else "hand")
            mask = raw.observe(raw.agent_selection)["action_mask"]
            raw.step(random_action(np.flatnonzero(mask).tolist(), rng))
    assert {"DRAW", "MELD", "foot"} <= seen


def test_a_position_of_the_other_variant_is_refused():
    hf = canasta_env.raw_env(variant="hand_and_foot")
    hf.reset(seed=1)
    classic = canasta_env.raw_env()
    with pytest.raises(canasta_env.engine.OptionsError, match="'hand_and_foot' game"):
        classic.reset(options={"position": hf.position()})
    classic.reset(seed=1)
    with pytest.raises(canasta_env.engine.OptionsError, match="'classic' game"):
        hf.reset(options={"position": classic.position()})


def test_no_leak_of_any_foot():
    """Exchanging a card of a foot not yet picked up with a stock card of another class
    (same sizes) leaves every seat's observation, mask and rendering unchanged, the
    foot's owner included: nobody has seen a foot."""
    raw = canasta_env.raw_env(variant="hand_and_foot", render_mode="ansi")
    rng = random.Random(9)
    checked = 0
    for seed in range(8):
        raw.reset(seed=seed)
        while not all(raw.terminations.values()):
            g = raw.game
            if rng.random() < 0.05 and g.stock:
                seats = [s for s in range(4) if g.foot_pending(s)]
                if seats:
                    s = rng.choice(seats)
                    pos = raw.position()
                    foot = pos["feet"][s]
                    i = rng.randrange(len(foot))
                    j = next((k for k, c in enumerate(pos["stock"]) if c != foot[i]
                              and c != "red 3" and foot[i] != "red 3"), None)
                    if j is not None:
                        foot[i], pos["stock"][j] = pos["stock"][j], foot[i]
                        other = canasta_env.raw_env(variant="hand_and_foot",
                                                    render_mode="ansi")
                        other.reset(options={"position": pos})
                        for a in AGENTS:
                            x, y = raw.observe(a), other.observe(a)
                            np.testing.assert_array_equal(x["observation"], y["observation"])
                            np.testing.assert_array_equal(x["action_mask"], y["action_mask"])
                        assert raw.render() == other.render()
                        checked += 1
            mask = raw.observe(raw.agent_selection)["action_mask"]
            raw.step(random_action(np.flatnonzero(mask).tolist(), rng))
    assert checked > 50


def test_starting_round_sets_the_minimum_and_the_rounds_left():
    minimums = set()
    raw = canasta_env.raw_env(variant="hand_and_foot", starting_round="sample")
    for seed in range(60):
        raw.reset(seed=seed)
        g = raw.game
        assert g.minimum[0] == g.minimum[1] == (60, 90, 120, 150)[g.hand_number]
        minimums.add(g.minimum[0])
    assert minimums == {60, 90, 120, 150}
    raw = canasta_env.raw_env(variant="hand_and_foot", starting_round=4, episode="game")
    raw.reset(seed=2)
    assert raw.game.minimum == [150, 150]
    rng = random.Random(2)
    while not all(raw.terminations.values()):
        mask = raw.observe(raw.agent_selection)["action_mask"]
        raw.step(random_action(np.flatnonzero(mask).tolist(), rng))
    assert raw.game.game_over and len(raw.game.history) == 1  # round 4 was the last
    for bad in (0, 5, "first"):
        with pytest.raises(canasta_env.engine.OptionsError, match="starting_round"):
            canasta_env.raw_env(variant="hand_and_foot", starting_round=bad)
    with pytest.raises(canasta_env.engine.OptionsError, match="starting_round"):
        canasta_env.raw_env(starting_round=2)  # Classic has no rounds
    canasta_env.raw_env(starting_round="sample").reset(seed=1)  # Classic: round 1 only
