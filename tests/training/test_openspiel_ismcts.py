"""``python -m training.openspiel_ismcts``: OpenSpiel's ISMCTS against a policy on
duplicate deals, the table of training.evaluate, deterministic, bad input exit 2."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel: pip install -e '.[interop]'")
from training.openspiel_ismcts import evaluate_ismcts, main  # noqa: E402


def test_a_duplicate_deal_against_the_heuristic_is_deterministic():
    r = evaluate_ismcts("heuristic", hands=2, seed=3, simulations=3)
    assert r["episodes"] == 2 and r["deals"] == 1 and r["b"] == "heuristic"
    assert r["wins"] + r["ties"] + r["losses"] == 2
    assert r["win_rate"] == (r["wins"] + r["ties"] / 2) / 2
    again = evaluate_ismcts("heuristic", hands=2, seed=3, simulations=3)
    for key in ("win_rate", "mean_score_diff", "decisions_per_hand"):
        assert r[key] == again[key]


def test_the_command_prints_the_table(capsys):
    assert main(["--b", "search", "--hands", "2", "--simulations", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "openspiel ismcts (2 simulations, 1 random rollout) / search" in out
    assert "hands played                  2 (1 deals x 2 seatings)" in out


@pytest.mark.parametrize("argv, message", [
    (["--b", "nope"], "unknown policy 'nope'"),
    (["--b", "no_such_module_xyz:Bot"], "module 'no_such_module_xyz' does not import"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main([*argv, "--hands", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
