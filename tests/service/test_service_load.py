"""The service under load (slow): ``python -m canasta_env.bots.loadtest`` runs locust
against a fresh server on 127.0.0.1 with 32 players, each playing whole games against
three heuristic bots; once straight (no failed request), once with the server killed
(SIGKILL) and restarted in the middle (no accepted move lost). Every stored game must
conserve its cards and hold every move it logged. The latency figures are printed (the
README gives them for a quiet 2-core machine); they are not asserted here, because CI
machines are shared."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tests.helpers.opponent import ROOT

pytest.importorskip("sqlalchemy", reason="the service extra is part of the test install")

# not imported here: importing locust patches the standard library (gevent)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(importlib.util.find_spec("locust") is None,
                                 reason="locust (the dev extra) is part of the test install")]


def loadtest(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.loadtest", "--json", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    result = json.loads(r.stdout)
    s = result["stats"]["all"]
    print(f"\nloadtest {' '.join(args)}: {s['requests']} requests, {s['failures']} failed, "
          f"p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, p99 {s['p99_ms']} ms; "
          f"{result['accepted_moves']} accepted moves, {result['lost_moves']} lost; "
          f"restart {result['restart']}")
    return result


def test_32_players_no_failed_request():
    result = loadtest("--users", "32", "--seconds", "20")
    assert result["stats"]["all"]["failures"] == 0
    assert result["accepted_moves"] > 200 and result["lost_moves"] == 0
    assert result["games"] >= 32 and result["games_broken"] == 0


def test_32_players_and_a_kill_9_lose_no_accepted_move():
    result = loadtest("--users", "32", "--seconds", "30", "--kill-at", "12")
    assert result["restart"]["down_s"] > 0
    assert result["accepted_moves"] > 200 and result["lost_moves"] == 0, result["lost"]
    assert result["games"] >= 32 and result["games_broken"] == 0, result["broken_games"]
