"""PettingZoo conformance and the environment's surface (docs/RULES.md §7): api_test and
seed_test for several option sets, registration, metadata, rendering, option errors, the
illegal-move convention of ``env()``, truncation, determinism independent of global RNGs,
and the README's quick start."""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import canasta_env
from canasta_env import AGENTS
from canasta_env.engine import IllegalActionError, OptionsError, to_position
from tests.helpers.engine import build, meld

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend

OPTION_SETS = {
    "default": {},
    "game": {"episode": "game"},
    "sampled scores": {"starting_scores": "sample"},
}


# ---------------------------------------------------------------------- PettingZoo tests
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_pettingzoo_api_test(name):
    api_test(canasta_env.env(**OPTION_SETS[name]), num_cycles=300)


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_pettingzoo_seed_test(name):
    seed_test(functools.partial(canasta_env.env, **OPTION_SETS[name]), num_cycles=300)


def test_registered_in_pettingzoo_registry():
    from pettingzoo.env_registry import registration

    e = registration.make("aec", "canasta_v0")
    assert isinstance(e.unwrapped, canasta_env.raw_env)
    e.reset(seed=0)
    assert e.agents == list(AGENTS)
    g = registration.make("aec", "canasta_v0", episode="game")
    assert g.unwrapped.episode == "game"


def test_metadata_and_agents():
    raw = canasta_env.raw_env()
    assert raw.metadata["name"] == "canasta_v0"
    assert canasta_env.env().metadata["name"] == "canasta_v0"
    assert {"ansi", "human"} <= set(raw.metadata["render_modes"])
    assert raw.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    for a in raw.possible_agents:
        assert raw.action_space(a).n == canasta_env.engine.NUM_ACTIONS


# ---------------------------------------------------------------------- rendering
def _table():
    """Seat 0 to meld: our natural canasta of Qs, their 8s with a joker, a frozen pile."""
    return build(hands=("K K K 5 9", "4 4 10 10 10", "8 10", "5 6 7"),
                 melds=({"Q": meld(7)}, {"8": meld(3, 1)}), pile="7 Joker J",
                 pile_frozen=True, opened=(True, True), red_threes=(1, 0, 0, 2),
                 scores=(1200, 3100), current=0, phase="MELD", turn={"drew_stock": True})


def _env_at(game, **options):
    raw = canasta_env.raw_env(**options)
    raw.reset(options={"position": to_position(game)})
    return raw


def test_ansi_render_shows_the_table():
    raw = _env_at(_table(), render_mode="ansi")
    text = raw.render()
    assert isinstance(text, str)
    stock = len(raw.game.stock)
    for part in ("phase MELD", "Scores: us 1200  them 3100",
                 "opening minimum: us 50 (opened)  them 120 (opened)",
                 "Our melds:   Qx7*natural canasta*", "Their melds: 8x3+Jk",
                 "me: 5 cards, 1 red 3", "left: 5 cards, 0 red 3s", "partner: 2 cards",
                 "right: 3 cards, 2 red 3s", "Discard pile: 3 cards, top J (frozen)",
                 f"Stock: {stock} cards", "My hand: 5 9 K K K", "On turn: me"):
        assert part in text, (part, text)
    # from the left opponent's chair the sides swap and its own hand shows
    raw.step(canasta_env.engine.actions.discard(canasta_env.engine.cards.NINE))
    text = raw.render()
    assert raw.agent_selection == "player_1"
    assert "Our melds:   8x3+Jk" in text and "Their melds: Qx7*natural canasta*" in text
    assert "My hand: 4 4 10 10 10" in text and "phase DRAW" in text
    assert "Discard pile: 4 cards, top 9 (frozen)" in text


def test_ansi_render_flags_frozen_for_us_and_stop_card():
    g = build(hands=("K K 5 9", "4 4 10", "8 10", "5 6 7"), melds=({}, {"8": meld(3)}),
              pile="7 b3", opened=(False, True), current=0, phase="DRAW")
    text = _env_at(g, render_mode="ansi").render()
    assert "Discard pile: 2 cards, top black 3 (frozen for us, stop card)" in text
    assert "Our melds:   (none)" in text
    assert "opening minimum: us 50  them 50 (opened)" in text


def test_ansi_render_at_hand_end_shows_score_sheets():
    raw = canasta_env.raw_env(render_mode="ansi")
    raw.reset(seed=3)
    rng = random.Random(3)
    while not all(raw.terminations.values()):
        raw.step(rng.choice(raw.game.legal_actions()))
    text = raw.render()
    sheets = raw.infos["player_0"]["score_sheets"]
    seat = AGENTS.index(raw.agent_selection)
    us = sheets[seat % 2]
    assert f"Score sheet us: table {us['table']}, canastas {us['canasta_bonus']}" in text
    assert f"= {us['hand_score']}; total {us['total']}" in text
    assert "Score sheet them:" in text and "phase HAND_OVER" in text


def test_human_render_prints_the_same_text(capsys):
    ansi = _env_at(_table(), render_mode="ansi").render()
    raw = _env_at(_table(), render_mode="human")
    capsys.readouterr()
    assert raw.render() is None
    assert capsys.readouterr().out == ansi + "\n"
    # human mode also prints after every step
    raw.step(canasta_env.engine.actions.discard(canasta_env.engine.cards.NINE))
    out = capsys.readouterr().out
    assert "phase DRAW" in out and "On turn: me" in out and "My hand: 4 4 10 10 10" in out


def test_render_through_the_wrapped_env():
    e = canasta_env.env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text.startswith("Canasta hand 1  phase DRAW")
    assert "My hand: " in text


def test_render_without_mode_returns_none():
    raw = canasta_env.raw_env()
    raw.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert raw.render() is None


# ---------------------------------------------------------------------- options
BAD_OPTIONS = [
    ({"no_such_rule": 1}, "no_such_rule"),
    ({"episode": "season"}, "episode"),
    ({"reward": "elo"}, "reward"),
    ({"reward_scale": 0}, "reward_scale"),
    ({"reward_scale": "big"}, "reward_scale"),
    ({"starting_scores": "random"}, "starting_scores"),
    ({"starting_scores": (100,)}, "starting_scores"),
    ({"starting_scores": (1.5, 0)}, "starting_scores"),
    ({"starting_scores": (True, 0)}, "starting_scores"),
    ({"variant": "bogus"}, "variant"),
    ({"max_decisions": 0}, "max_decisions"),
    ({"render_mode": "rgb_array"}, "render_mode"),
    ({"decks": 0}, "decks"),
    ({"black_three_freezes": "yes"}, "black_three_freezes"),
    ({"opening_minimums": ((0, 50), (-5, 15))}, "opening_minimums"),
]


@pytest.mark.parametrize("options,name", BAD_OPTIONS, ids=[n for _, n in BAD_OPTIONS])
def test_bad_options_raise_at_construction(options, name):
    with pytest.raises(OptionsError, match=re.escape(name)):
        canasta_env.raw_env(**options)
    with pytest.raises(OptionsError, match=re.escape(name)):
        canasta_env.env(**options)


def test_good_options_are_applied():
    raw = canasta_env.raw_env(episode="game", reward="win_loss", reward_scale=0.5,
                              starting_scores=(1500, -20), max_decisions=50,
                              black_three_freezes=True)
    raw.reset(seed=0)
    assert (raw.episode, raw.reward_mode, raw.reward_scale, raw.max_decisions) == \
        ("game", "win_loss", 0.5, 50)
    assert raw.game.options.black_three_freezes is True
    assert raw.game.scores == [1500, -20] and raw.game.minimum == [90, 15]


# ---------------------------------------------------------------------- illegal actions
def test_illegal_action_through_env_terminates_with_penalty():
    e = canasta_env.env()
    e.reset(seed=0)
    offender = e.agent_selection
    mask = e.observe(offender)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    e.step(bad)  # no exception: PettingZoo's illegal-move convention
    assert all(e.terminations[a] for a in AGENTS)
    assert e.rewards[offender] == -1
    assert all(e.rewards[a] == 0 for a in AGENTS if a != offender)
    # nobody is on turn any more: every mask is zeros, the offender's included
    for a in AGENTS:
        assert not e.observe(a)["action_mask"].any(), a
    assert not e.unwrapped.action_mask().any()
    seen = {}
    for agent in e.agent_iter():
        _, rew, term, _, _ = e.last()
        assert term
        seen[agent] = rew
        e.step(None)
    assert seen[offender] == -1 and set(seen) == set(AGENTS)
    assert sum(seen.values()) == -1
    assert e.agents == []


def test_illegal_action_reward_is_configurable():
    e = canasta_env.env(illegal_reward=-5.0)
    e.reset(seed=1)
    offender = e.agent_selection
    bad = int(np.flatnonzero(e.observe(offender)["action_mask"] == 0)[0])
    e.step(bad)
    assert e.rewards[offender] == -5.0


def test_raw_env_raises_naming_the_action():
    raw = canasta_env.raw_env()
    raw.reset(seed=0)
    # drawing is the only way to start a turn: discarding now is illegal
    a = canasta_env.engine.actions.discard(canasta_env.engine.cards.FOUR)
    with pytest.raises(IllegalActionError, match=rf"illegal action {a} \('discard 4'\)") as err:
        raw.step(a)
    assert "phase DRAW" in str(err.value)
    with pytest.raises(IllegalActionError, match="outside"):
        raw.step(canasta_env.engine.NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="int id"):
        raw.step(None)
    raw.step(np.int64(canasta_env.engine.actions.DRAW_STOCK))  # numpy ints are accepted
    assert raw.game.phase.name == "MELD"


# ---------------------------------------------------------------------- episode length
def test_max_decisions_truncates_for_all_agents():
    raw = canasta_env.raw_env(max_decisions=10)
    raw.reset(seed=4)
    rng = random.Random(4)
    steps = 0
    for _agent in raw.agent_iter():
        _, rew, term, trunc, _ = raw.last()
        if term or trunc:
            assert trunc and not term and rew == 0
            raw.step(None)
            continue
        raw.step(rng.choice(raw.game.legal_actions()))
        steps += 1
    assert steps == 10 and raw.num_decisions == 10
    assert raw.agents == []


# ---------------------------------------------------------------------- determinism
def _trajectory(seed: int, disturb: bool) -> list:
    e = canasta_env.env()
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for agent in e.agent_iter(400):
        obs, rew, term, trunc, _ = e.last()
        if disturb:  # global generators must not influence the environment
            random.seed(len(out))
            random.random()
            np.random.seed(len(out) + 1)
            np.random.random(3)
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew))
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_same_seed_same_game_regardless_of_global_rngs():
    a = _trajectory(11, disturb=False)
    b = _trajectory(11, disturb=True)
    assert len(a) == len(b) > 100
    assert a == b
    assert _trajectory(12, disturb=False)[0] != a[0]


def test_reset_seeds_and_reseeding():
    raw = canasta_env.raw_env()
    raw.reset(seed=7)
    first = to_position(raw.game)
    raw.reset()  # continues the env's own generator: a new deal
    second = to_position(raw.game)
    raw.reset(seed=7)
    assert to_position(raw.game) == first
    assert second["stock"] != first["stock"]
    other = canasta_env.raw_env()
    other.reset(seed=7)
    assert to_position(other.game) == first


# ---------------------------------------------------------------------- README
def test_readme_quick_start_runs(capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    m = re.search(r"```python\n(.*?)\n```", readme, re.S)
    assert m, "README has no python block"
    namespace: dict = {}
    exec(compile(m.group(1), "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Canasta hand 1" in out and "hand_score" in out
    sheets = namespace["info"]["score_sheets"]
    assert len(sheets) == 2 and all("total" in s for s in sheets)
    assert namespace["env"].agents == []


def test_importing_the_aec_module_registers_canasta_v0():
    import subprocess
    import sys

    code = ("import canasta_env.aec\n"
            "from pettingzoo.env_registry import registration\n"
            "e = registration.make('aec', 'canasta_v0')\n"
            "print(type(e.unwrapped).__name__, e.metadata['name'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["raw_env", "canasta_v0"]


@pytest.mark.parametrize("action", [True, False, float("inf"), 3.5, "x", None])
def test_raw_env_refuses_non_integer_actions_unchanged(action):
    from canasta_env.engine import IllegalActionError, to_position

    e = canasta_env.raw_env()
    e.reset(seed=4)
    before = to_position(e.game)
    with pytest.raises(IllegalActionError, match="action"):
        e.step(action)
    assert to_position(e.game) == before


@pytest.mark.parametrize("kwargs", [{"reward_scale": float("nan")}, {"reward_scale": float("inf")},
                                    {"reward_scale": True}, {"max_decisions": True},
                                    {"variant": ["classic"]}])
def test_more_bad_options_are_options_errors(kwargs):
    from canasta_env.engine import OptionsError

    with pytest.raises(OptionsError):
        canasta_env.raw_env(**kwargs)


def test_use_before_reset_and_unknown_agents_are_clear_errors():
    e = canasta_env.raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        e.observe("player_0")
    e.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        e.observe("player_9")


def test_a_finished_hand_position_is_refused_by_reset():
    import random

    from canasta_env.engine import Game, PositionError, to_position

    g = Game(seed=2)
    rng = random.Random(2)
    while not g.hand_over:
        g.apply(rng.choice(g.legal_actions()))
    e = canasta_env.raw_env()
    with pytest.raises(PositionError, match="nobody on turn"):
        e.reset(options={"position": to_position(g)})
