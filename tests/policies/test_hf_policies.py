"""Baseline policies and evaluation in Hand and Foot: RandomPolicy and HeuristicPolicy
play only legal actions from (observation, mask) of the 245 / 98 layouts, the heuristic
beats random clearly, and ``python -m training.evaluate --variant hand_and_foot`` runs."""

import json

import numpy as np

import canasta_env
from canasta_env.policies import HeuristicPolicy, RandomPolicy, TableView
from training.evaluate import evaluate_policies, main, opening_levels


def _play(policies, seed: int, episode: str = "hand") -> canasta_env.raw_env:
    raw = canasta_env.raw_env(variant="hand_and_foot", episode=episode, max_decisions=100_000)
    raw.reset(seed=seed)
    for p in policies:
        p.reset(seed)
    while not all(raw.terminations.values()):
        assert not any(raw.truncations.values())
        agent = raw.agent_selection
        obs = raw.observe(agent)
        a = policies[int(agent[-1])].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        raw.step(a)
    return raw


def test_policies_play_legal_hand_and_foot_hands():
    h, r = HeuristicPolicy(), RandomPolicy(0)
    outs = 0
    for seed in range(12):
        raw = _play([h, r, h, r] if seed % 2 else [r, h, r, h], seed)
        outs += raw.game.went_out is not None
    assert outs >= 6  # the heuristic reaches its foot and goes out


def test_heuristic_decodes_the_foot_and_books():
    raw = canasta_env.raw_env(variant="hand_and_foot")
    raw.reset(seed=1)
    v = TableView(raw.observe(raw.agent_selection)["observation"])
    assert v.foot_sizes == [11, 11, 11, 11] and v.in_foot == [False] * 4
    assert v.books == [[0, 0, 0], [0, 0, 0]] and v.minimum[0] == 60


def test_a_whole_game_between_the_baselines():
    h = HeuristicPolicy()
    raw = _play([h, RandomPolicy(1), h, RandomPolicy(2)], 3, episode="game")
    g = raw.game
    assert g.game_over and len(g.history) == 4


def test_heuristic_beats_random():
    r = evaluate_policies("heuristic", "random", 40, variant="hand_and_foot")
    assert r["truncated"] == 0 and r["stuck"] == 0
    assert r["win_rate"] > 0.8 and r["mean_score_diff"] > 0
    assert opening_levels("hand_and_foot") == [60, 90, 120, 150]
    assert sum(r["opening_hands_a"].values()) == 40
    assert all(n > 0 for n in r["opening_hands_a"].values())  # every round's minimum


def test_evaluate_cli_variant(capsys):
    assert main(["--a", "random", "--b", "heuristic", "--hands", "4", "--variant",
                 "hand_and_foot", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["variant"] == "hand_and_foot" and out["episodes"] == 4
    assert np.isfinite(out["mean_score_diff"])
