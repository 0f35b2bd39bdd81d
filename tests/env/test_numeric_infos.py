"""``numeric_infos=True`` (canasta_env/aec.py module docstring): the same four keys with
numbers at every step, and the end-of-hand values equal to the default infos' score
sheets, on both variants."""

from __future__ import annotations

import numpy as np
import pytest

import canasta_env
from canasta_env.aec import SHEET_ROWS, Phase
from canasta_env.engine import OptionsError

KEYS = {"phase", "hand_over", "hand_scores", "score_sheets"}


def _play(env, seed: int, max_steps: int = 5000):
    """Random legal play from ``reset(seed)``; yields the infos after reset and each step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    yield env.infos
    for _ in range(max_steps):
        a = env.agent_selection
        if env.terminations[a] or env.truncations[a]:
            return
        mask = env.observe(a)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        yield env.infos


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_numeric_infos_have_stable_keys_and_match_the_default_infos(variant):
    num = canasta_env.raw_env(variant=variant, numeric_infos=True)
    ref = canasta_env.raw_env(variant=variant)
    ends = 0
    for infos, ref_infos in zip(_play(num, 11), _play(ref, 11), strict=True):
        assert set(infos) == set(canasta_env.AGENTS)
        for agent, info in infos.items():
            assert set(info) == KEYS
            assert isinstance(info["phase"], int)
            assert info["phase"] == Phase[ref_infos[agent]["phase"]].value
            assert info["hand_scores"].dtype == np.int64 and info["hand_scores"].shape == (2,)
            assert info["score_sheets"].shape == (2, len(SHEET_ROWS))
            if "score_sheets" in ref_infos[agent]:
                assert info["hand_over"] == 1
                want = [[s[k] for k in SHEET_ROWS] for s in ref_infos[agent]["score_sheets"]]
                assert info["score_sheets"].tolist() == want
                assert info["hand_scores"].tolist() == ref_infos[agent]["hand_scores"]
                ends += 1
            else:
                assert info["hand_over"] == 0
                assert not info["hand_scores"].any() and not info["score_sheets"].any()
    assert ends == 4  # one hand, seen by all four agents on its last step


def test_numeric_infos_over_a_whole_game_reset_to_zero_after_each_hand():
    env = canasta_env.raw_env(numeric_infos=True, episode="game", max_decisions=100_000)
    hand_overs, after = 0, []
    prev_over = False
    for infos in _play(env, 3, max_steps=100_000):
        over = infos["player_0"]["hand_over"] == 1
        if prev_over:
            after.append(infos["player_0"]["hand_scores"].tolist())
        hand_overs += over
        prev_over = over
    assert hand_overs >= 2
    assert all(v == [0, 0] for v in after)


def test_numeric_infos_option_is_checked():
    with pytest.raises(OptionsError, match="numeric_infos must be True or False, got 'yes'"):
        canasta_env.raw_env(numeric_infos="yes")


def test_pettingzoo_api_and_seed_tests_pass_with_numeric_infos():
    import functools

    from pettingzoo.test import api_test, seed_test

    api_test(canasta_env.env(numeric_infos=True), num_cycles=300)
    seed_test(functools.partial(canasta_env.env, numeric_infos=True), num_cycles=300)
