"""The difficulty ladder (canasta_env/bots/levels.py): level names resolve to each
variant's policy everywhere a policy name does, and the easy level's weakened heuristic
(canasta_env/policies/epsilon.py) is seeded and random at its rate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from canasta_env.bots import Bot, PolicySpecError
from canasta_env.bots.levels import EASY_EPSILON, LEVEL_NAMES, LEVELS, level_spec, levels_of
from canasta_env.bots.loader import apprentice_file, load_policy, reference_path
from canasta_env.bots.onnx_policy import OnnxPolicy
from canasta_env.engine import Game, preset
from canasta_env.policies import HeuristicPolicy
from canasta_env.policies.epsilon import EpsilonHeuristicPolicy
from canasta_env.search import SearchPolicy
from tests.helpers.opponent import observations_from_play

VARIANTS = ("classic", "hand_and_foot")


def test_the_table_of_levels():
    assert LEVEL_NAMES == ("easy", "medium", "hard", "expert")
    assert {v: [lv.spec for lv in LEVELS[v].values()] for v in VARIANTS} == {
        "classic": ["epsilon-heuristic:0.35", "heuristic", "reference", "search_reference"],
        "hand_and_foot": ["epsilon-heuristic:0.35", "heuristic", "apprentice", "reference"]}
    assert [d["level"] for d in levels_of("hand_and_foot")] == list(LEVEL_NAMES)
    assert all(lv.description for v in VARIANTS for lv in LEVELS[v].values())


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_level_resolves_to_the_variants_policy(variant):
    easy = load_policy("easy", variant=variant)
    assert type(easy) is EpsilonHeuristicPolicy and easy.p == EASY_EPSILON == 0.35
    assert type(load_policy(" Medium ", variant=variant)) is HeuristicPolicy
    hard = load_policy("HARD", variant=variant)
    assert type(hard) is OnnxPolicy
    assert hard.obs_size == (202 if variant == "classic" else 245)
    assert reference_path(variant).name == f"{variant}.onnx"
    expert = load_policy("expert", variant=variant)
    if variant == "classic":
        assert Path(hard.name) == reference_path(variant)
        assert type(expert) is SearchPolicy and type(expert.base) is OnnxPolicy
        assert expert.base.obs_size == 202  # the Classic reference proposes its moves
    else:  # Hand and Foot: hard is the apprentice network, expert the reference
        assert Path(hard.name) == apprentice_file(variant)
        assert type(expert) is OnnxPolicy and Path(expert.name) == reference_path(variant)
    assert level_spec("hard") == "reference"  # no variant: Classic's
    with pytest.raises(PolicySpecError, match="unknown level 'legendary'"):
        level_spec("legendary")


@pytest.mark.parametrize("variant, level", [(v, lv) for v in VARIANTS
                                            for lv in ("easy", "medium", "hard")]
                         + [("hand_and_foot", "expert")])
def test_each_level_plays_a_whole_hand_legally(variant, level):
    """Bot(level) at all four seats plays a hand to its end; Bot.act refuses any illegal
    action with a RuntimeError, so finishing the hand is the check."""
    bot = Bot(level, variant=variant)
    game = Game(preset(variant), seed=11)
    moves = 0
    while not game.hand_over:
        legal = game.legal_actions()
        action = bot.act(game)
        assert action in legal
        game.apply(action)
        moves += 1
    assert moves > 20


def test_expert_plays_legal_moves_in_classic():
    """The search is slow: a few decisions of a Classic hand, each legal, each the move of
    ``search_reference``."""
    bot = Bot("expert", variant="classic")
    assert isinstance(bot.policy, SearchPolicy) and bot.policy.base is not None
    same = Bot("search_reference")
    game = Game(seed=5)
    for _ in range(6):
        assert not game.hand_over
        action = bot.act(game)
        assert action in game.legal_actions() and action == same.act(game)
        game.apply(action)


def test_bot_levels_play_the_variants_policy_of_the_level():
    """``Bot("hard")`` plays Classic's reference and, met with a Hand and Foot game, Hand and
    Foot's apprentice; ``Bot("expert")`` there is Hand and Foot's reference."""
    bot = Bot("hard")
    assert bot.name == "hard" and type(bot.policy) is OnnxPolicy
    for variant, same in (("classic", "reference"), ("hand_and_foot", "apprentice")):
        game = Game(preset(variant), seed=4)
        ref = Bot(same, variant=variant)
        for _ in range(15):
            assert bot.act(game) == ref.act(game)
            game.apply(bot.act(game))
        assert bot.policy_for(variant).obs_size == (202 if variant == "classic" else 245)
    expert, ref = Bot("expert", variant="hand_and_foot"), Bot("reference")
    game = Game(preset("hand_and_foot"), seed=6)
    for _ in range(15):
        assert expert.act(game) == ref.act(game)
        game.apply(expert.act(game))


def test_a_missing_level_is_refused_with_its_reason(hf_expert_missing):
    """A level with no policy for a variant (spec ``None``; none is missing now) is one line
    saying why and naming the levels there are, from every entry point."""
    message = (rf"level 'expert' is {hf_expert_missing}; Hand and Foot has the levels easy, "
               rf"medium, hard")
    with pytest.raises(PolicySpecError, match=message):
        load_policy("expert", variant="hand_and_foot")
    with pytest.raises(PolicySpecError, match=message):
        Bot("expert").check_variant("hand_and_foot")
    with pytest.raises(PolicySpecError, match=message):
        Bot("expert", variant="hand_and_foot")
    assert levels_of("hand_and_foot")[-1]["policy"] is None


# ---------------------------------------------------------------- the easy level's policy
OBS, MASKS = observations_from_play(600)


def _actions(policy, n=600):
    return [policy.act(OBS[i], MASKS[i]) for i in range(n)]


def test_epsilon_heuristic_is_deterministic_under_a_seed():
    a, b = EpsilonHeuristicPolicy(0.35, seed=3), EpsilonHeuristicPolicy(0.35, seed=3)
    first = _actions(a)
    assert first == _actions(b)
    assert first != _actions(EpsilonHeuristicPolicy(0.35, seed=4))
    a.reset(3)  # reseeding replays the same moves
    assert _actions(a) == first
    assert all(MASKS[i][x] == 1 for i, x in enumerate(first))
    heuristic = HeuristicPolicy()
    assert _actions(EpsilonHeuristicPolicy(0.0, seed=3)) == _actions(heuristic)


def test_epsilon_heuristic_plays_random_moves_at_its_rate():
    pol = EpsilonHeuristicPolicy(0.35, seed=0)
    for _ in range(5):
        _actions(pol)
    assert pol.decisions == 3000
    # binomial(3000, 0.35): mean 1050, sd 26; the count of seed 0, measured
    assert pol.random_moves == 1041
    assert abs(pol.random_moves / pol.decisions - 0.35) < 4 * (0.35 * 0.65 / 3000) ** 0.5
    # a random move may coincide with the heuristic's; the moves that differ are fewer
    heuristic = np.array(_actions(HeuristicPolicy()))
    pol.reset(0)
    differ = int((np.array(_actions(pol)) != heuristic).sum())
    assert 0 < differ <= pol.random_moves <= 600
    pol.reset()
    assert pol.decisions == pol.random_moves == 0


def test_epsilon_heuristic_spec_and_bad_probabilities():
    pol = load_policy("epsilon-heuristic:0.5")
    assert type(pol) is EpsilonHeuristicPolicy and pol.p == 0.5 and pol.name == \
        "epsilon-heuristic:0.5"
    for bad in ("epsilon-heuristic:", "epsilon-heuristic:1.5", "epsilon-heuristic:nan",
                "epsilon-heuristic:x"):
        with pytest.raises(PolicySpecError, match=r"give the probability of a random move, "
                                                  r"a number in \[0, 1\]"):
            load_policy(bad)
    for bad in (-0.1, float("inf"), True, "0.3"):
        with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\]"):
            EpsilonHeuristicPolicy(bad)
