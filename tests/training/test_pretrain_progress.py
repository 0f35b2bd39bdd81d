"""The warm start shows its progress (the main command used to run 15 silent minutes):
heuristic play and the fit each draw a progress bar on stderr with its rate and time left,
and nothing when progress is off."""

import pytest

pytest.importorskip("torch")

from training.pretrain import collect  # noqa: E402


def test_heuristic_play_draws_a_progress_bar(capsys):
    data = collect(200, seed=3, gamma=0.99, progress=True)
    err = capsys.readouterr().err
    assert "warm start: heuristic play" in err and "decision/s" in err
    assert len(data[2]) >= 200
    quiet = collect(200, seed=3, gamma=0.99)
    assert capsys.readouterr().err == ""
    # the bar does not change what is recorded
    assert all((a == b).all() for a, b in zip(data, quiet))
