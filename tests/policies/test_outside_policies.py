"""Outside policies by name, ``module:attribute`` (canasta_env/bots/outside.py): the
evaluation (in process and in workers), ratings, terminal play and ``Bot`` accept them; a
policy class gets one instance per seat and per episode with its reset hook called first;
bad specs are one line and exit 2 before the first deal."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import canasta_env
from canasta_env.bots import Bot, PolicySpecError, PolicyVariantError, load_policy
from canasta_env.bots.outside import PolicyClass
from canasta_env.engine import Game, to_position
from tests.helpers import outside_bots
from training.evaluate import evaluate_policies, main, make_env, play_episode, play_match

BOTS = "tests.helpers.outside_bots"  # the module the outside policies of these tests live in
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


class _LoggingEnv(canasta_env.raw_env):
    """Records the agent of every observation the evaluation asks for."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log: list[str] = []

    def observe(self, agent):
        self.log.append(agent)
        return super().observe(agent)


@pytest.fixture
def recorder():
    outside_bots.RESETS.clear()
    outside_bots.ACTS.clear()
    yield load_policy(BOTS + ":Recorder", variant="classic")
    outside_bots.RESETS.clear()
    outside_bots.ACTS.clear()


def test_a_class_gets_one_instance_per_seat_reset_before_its_first_act(recorder):
    assert isinstance(recorder, PolicyClass)
    env = _LoggingEnv(starting_scores="sample")
    seats_of = collections.defaultdict(set)
    for episode in range(2):
        outside_bots.RESETS.clear()
        outside_bots.ACTS.clear()
        env.log.clear()
        heuristic = load_policy("heuristic")
        record = play_episode(env, [recorder, heuristic, recorder, heuristic], seed=episode)
        assert not record.truncated
        # the recorder's decisions, in order, are the observations of seats 0 and 2
        agents = [a for a in env.log if a in ("player_0", "player_2")]
        assert len(agents) == len(outside_bots.ACTS) > 0
        for inst, agent in zip(outside_bots.ACTS, agents):
            seats_of[(episode, inst)].add(agent)
        instances = {inst for _, inst in seats_of if _ == episode}
        reset = [i for i, _ in outside_bots.RESETS]
        assert len(reset) == 2 and set(reset) == {i for (e, i) in seats_of if e == episode}
        assert len({seed for _, seed in outside_bots.RESETS}) == 2  # one seed per seat
        assert len(instances) == 2
    assert all(len(seats) == 1 for seats in seats_of.values())  # never both partners


def test_memory_per_seat_survives_side_by_side_episodes_and_workers():
    one = evaluate_policies(BOTS + ":Memory", "heuristic", hands=8, seed=3, batch=1)
    batched = evaluate_policies(BOTS + ":Memory", "heuristic", hands=8, seed=3, batch=4)
    workers = evaluate_policies(BOTS + ":Memory", "heuristic", hands=8, seed=3,
                                batch=2, workers=2)
    for key in ("win_rate", "mean_score_diff", "wins", "ties", "losses"):
        assert one[key] == batched[key] == workers[key], key
    assert one["a"] == BOTS + ":Memory" and one["episodes"] == 8


def test_a_policy_object_is_used_as_it_is():
    pol = load_policy(BOTS + ":FIRST_LEGAL", variant="classic")
    assert pol is outside_bots.FIRST_LEGAL
    records = play_match(pol, "random", 1, seed=1)
    assert len(records) == 2


def test_ratings_and_bot_accept_module_attribute():
    from training.ratings import round_robin

    r = round_robin([BOTS + ":FirstLegal", "random"], hands=2, seed=0)
    assert {x["policy"] for x in r["ratings"]} == {BOTS + ":FirstLegal", "random"}
    game = Game(seed=5)
    move = Bot(BOTS + ":FirstLegal", variant="classic").choose(to_position(game),
                                                                     game.to_move)
    assert move["action"] == game.legal_actions()[0]


def test_bot_keeps_one_instance_per_seat_and_renews_it_each_hand(recorder):
    bot = Bot(BOTS + ":Recorder")
    game = Game(seed=8)
    for _ in range(12):
        bot._apply(game, game.to_move)
    by_seat = collections.defaultdict(set)
    # every instance that acted was reset once, and belongs to one seat
    assert len(outside_bots.RESETS) == len(set(outside_bots.ACTS))
    seats = {id(handle.policy): key[3] for key, handle in bot._seats.items()}
    for inst in outside_bots.ACTS:
        by_seat[seats.get(inst)].add(inst)
    assert None not in by_seat and all(len(v) == 1 for v in by_seat.values())
    assert len(by_seat) >= 2
    game2 = Game(seed=9)
    bot._apply(game2, game2.to_move)  # a new deal: a new instance for that seat
    assert len(outside_bots.RESETS) == len(seats) + 1
    bot._apply(game, game.to_move)  # the first game again: its seat keeps its instance
    assert len(outside_bots.RESETS) == len(seats) + 1 + (game.to_move not in by_seat)


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=300)


def test_evaluate_command_line_with_workers():
    out = _run("training.evaluate", "--a", BOTS + ":Memory", "--b", "random",
               "--hands", "4", "--workers", "2", "--json", "--no-progress")
    assert out.returncode == 0, out.stderr
    assert f'"a": "{BOTS}:Memory"' in out.stdout


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:Bot", "policy 'no_such_module_xyz:Bot': module 'no_such_module_xyz' "
                               "does not import (ModuleNotFoundError: No module named "
                               "'no_such_module_xyz')"),
    (BOTS + ":Missing", "policy 'tests.helpers.outside_bots:Missing': '" + BOTS + "' has no attribute "
                             "'Missing'"),
    (BOTS + ":NOT_A_POLICY", "policy 'tests.helpers.outside_bots:NOT_A_POLICY' is not a policy: it "
                                  "names a int, not a class or an object with an "
                                  "act(observation, action_mask) method"),
    (BOTS + ":NoAct", "policy 'tests.helpers.outside_bots:NoAct' is not a policy: NoAct has no "
                           "act(observation, action_mask) method"),
    (BOTS + ":NeedsArgs", "policy 'tests.helpers.outside_bots:NeedsArgs': NeedsArgs() failed "
                               "(TypeError: "),
])
def test_bad_specs_are_one_line_and_exit_2(spec, message, capsys):
    with pytest.raises(PolicySpecError) as err:
        load_policy(spec, variant="classic")
    assert str(err.value).startswith(message)
    assert main(["--a", spec, "--b", "random", "--hands", "2", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_another_variant_is_refused_before_the_first_deal(capsys, monkeypatch):
    with pytest.raises(PolicyVariantError, match="policy 'tests.helpers.outside_bots:HandAndFootOnly' is a "
                                                 "Hand and Foot policy"):
        load_policy(BOTS + ":HandAndFootOnly", variant="classic")
    dealt = []
    monkeypatch.setattr(canasta_env.raw_env, "reset",
                        lambda self, *a, **k: dealt.append(1))
    assert main(["--a", BOTS + ":HandAndFootOnly", "--b", "random", "--hands", "2",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pass --variant hand_and_foot to play it" in err[0]
    assert dealt == []
    monkeypatch.undo()
    # and it plays its own variant
    r = evaluate_policies(BOTS + ":HandAndFootOnly", "random", hands=2,
                          variant="hand_and_foot")
    assert r["episodes"] == 2


def test_terminal_play_accepts_module_attribute():
    out = subprocess.run(
        [sys.executable, "-m", "canasta_env.bots.play", "--policy", BOTS + ":FirstLegal",
         "--seed", "3"], input="quit\n", capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(REPO)])), cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert "bots: tests.helpers.outside_bots:FirstLegal" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "canasta_env.bots.play", "--policy", BOTS + ":NOT_A_POLICY"],
        input="quit\n", capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(REPO)])), cwd=REPO)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "is not a policy" in bad.stderr


def test_make_env_is_unchanged_for_outside_policies():
    # the evaluation plays the same env and deals whoever plays
    assert make_env().max_decisions == canasta_env.raw_env().max_decisions
    assert np.array_equal(make_env().observation_space("player_0")["observation"].high,
                          canasta_env.raw_env().observation_space("player_0")["observation"].high)


def test_the_guide_example_policy_plays(tmp_path, monkeypatch):
    """docs/guide/writing_a_policy.md: its policy class, saved as mybots.py, plays through
    ``training.evaluate`` by name (in process and from the command line, with workers)."""
    text = (REPO / "docs" / "guide" / "writing_a_policy.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "mybots.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    r = evaluate_policies("mybots:DiscardHighest", "heuristic", hands=4, seed=1)
    assert r["episodes"] == 4 and r["truncated"] == 0
    with pytest.raises(PolicyVariantError, match="this game is Hand and Foot"):
        load_policy("mybots:DiscardHighest", variant="hand_and_foot")
    line = next(ln for ln in text.splitlines() if ln.startswith("python -m training.evaluate"))
    argv = line.split()[2:]
    argv[argv.index("--hands") + 1] = "4"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    out = subprocess.run([sys.executable, "-m", *argv, "--no-progress"], capture_output=True,
                         text=True, env=env, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "mybots:DiscardHighest / heuristic" in out.stdout
