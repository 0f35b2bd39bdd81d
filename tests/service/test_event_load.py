"""python -m canasta_env.bots.eventload: the bounded load test of the event streams (a short run
with a kill -9 and restart on 127.0.0.1), its checker on made-up records, and its refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("httpx")

from canasta_env.bots.eventload import Followed, check, targets  # noqa: E402
from tests.helpers.service import ROOT  # noqa: E402


def test_short_run_with_a_kill_9_loses_nothing():
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.eventload", "--streams", "10",
                        "--games", "2", "--idle", "2", "--seconds", "8", "--kill-at", "3",
                        "--p99", "100000", "--json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    result = json.loads(r.stdout)
    assert result["restart"] is not None and result["restart"]["killed_at_s"] >= 3
    assert result["lost"] == result["repeated"] == result["out_of_order"] == 0
    assert result["not_in_log"] == 0 and result["stream_opens_refused"] == 0
    assert result["games_finished"] >= 1 and result["moves_delivered"] > 100
    assert result["reconnects"] >= 8  # every bot stream reconnected after the kill
    assert result["delay_ms"]["live_moves"] > 0
    assert result["targets_met"] is True and result["missed"] == []


def _rec(moves, ids=None, over=False):
    rec = Followed("g", "bots", over=over)
    rec.moves = [(s, 0, 1) for s in moves]
    rec.ids = ids if ids is not None else [str(s) for s in moves]
    return rec


def test_check_counts_lost_repeated_and_out_of_order():
    log = {"g": {s: (0, 1) for s in range(1, 6)}}
    assert check([_rec([1, 2, 3, 4, 5], over=True)], log) == {
        "events": 5, "moves_delivered": 5, "lost": 0, "repeated": 0, "out_of_order": 0,
        "not_in_log": 0}
    got = check([_rec([1, 2, 4], over=True)], log)
    assert got["lost"] == 2  # 3, and 5 of a finished game
    got = check([_rec([1, 2, 2, 3], ids=["1", "2", "2", "3"])], log)
    assert got["repeated"] == 1 and got["out_of_order"] == 1 and got["lost"] == 0
    got = check([_rec([1, 2], ids=["0.1", "1", "1.1", "2"])], {"g": {1: (0, 1), 2: (3, 4)}})
    assert got["out_of_order"] == 0 and got["not_in_log"] == 1
    result = {**got, "stream_opens_refused": 0, "delay_ms": {"p99": 150.0}}
    assert targets(result, 100.0) == ["1 not in log", "p99 delay 150 ms > 100 ms"]


@pytest.mark.parametrize("args,words", [
    (["--streams", "5", "--idle", "5"], "--idle must be 0..4"),
    (["--seconds", "5", "--kill-at", "6"], "must be less than --seconds"),
    (["--servers", "2"], "needs a PostgreSQL --db URL"),
])
def test_bad_options_are_one_line_and_exit_2(args, words):
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.eventload", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
