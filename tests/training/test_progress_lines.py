"""Progress in a log (training.common.progress): off a terminal every phase of the main
job prints plain lines -- the count, the rate, the time left, for PPO the last
evaluation -- at most every EVERY seconds and at its end; on a terminal, bars."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

from training.common.progress import (  # noqa: E402
    ENV_VAR,
    EVERY,
    LineProgress,
    duration,
    interval,
    progress_bar,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_line_every_interval_and_one_at_the_end():
    out = io.StringIO()
    bar = LineProgress(1000, "PPO", "step", out, every=0.05)
    for _ in range(10):
        bar.update(50)
        time.sleep(0.02)
    printed = out.getvalue().splitlines()
    assert 2 <= len(printed) <= 5  # 0.2 s of updates: every 0.05 s at most
    bar.set_postfix_str("last evaluation at 500: win rate 0.550 vs heuristic")
    bar.update(500)
    bar.close()
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("PPO: 1,000 / 1,000 steps (100.0%), ")
    assert "step/s, done in " in last and last.endswith("win rate 0.550 vs heuristic")
    bar.close()  # nothing new: no second end line
    assert out.getvalue().splitlines()[-1] == last


def test_a_line_says_the_rate_and_the_time_left():
    bar = LineProgress(300, "warm start: heuristic play", "decision", io.StringIO(), start=0)
    bar.t0 -= 10.0  # ten seconds in
    bar.n = 100
    assert bar.line() == ("warm start: heuristic play: 100 / 300 decisions (33.3%), "
                          "10 decision/s, 20 s left")
    resumed = LineProgress(1000, "PPO", "step", io.StringIO(), start=3000)
    resumed.t0 -= 5.0
    resumed.n = 500
    assert resumed.line() == "PPO: 3,500 / 4,000 steps (87.5%), 100 step/s, 5 s left"
    assert (duration(42), duration(425), duration(3725)) == ("42 s", "7 min 05 s", "1 h 02 min")
    assert EVERY <= 60  # at least once a minute


def test_the_interval_comes_from_the_environment_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert interval() == EVERY == 30.0
    monkeypatch.setenv(ENV_VAR, "2.5")
    assert interval() == 2.5 and LineProgress(10, "x", "hand", io.StringIO()).every == 2.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv(ENV_VAR, bad)
        with pytest.raises(ValueError, match=rf"{ENV_VAR}='{bad}': expected a positive number"):
            interval()


def test_a_terminal_gets_a_bar_and_a_log_gets_lines():
    from tqdm import tqdm

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert isinstance(progress_bar(10, "x", "hand", True, Tty()), tqdm)
    assert isinstance(progress_bar(10, "x", "hand", True, io.StringIO()), LineProgress)
    silent = progress_bar(10, "x", "hand", False, io.StringIO())
    assert isinstance(silent, tqdm) and silent.disable


def test_the_main_job_logs_every_phase_to_a_file(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text((ROOT / "configs" / "smoke.yaml").read_text()
                      .replace("progress_bar: false", "progress_bar: true")
                      + f"\ncheckpoint_dir: {tmp_path / 'ck'}\ntensorboard_dir: {tmp_path / 'tb'}\n")
    r = subprocess.run([sys.executable, "-m", "training.main", "--config", str(config),
                        "--eval-hands", "8"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    for phase in ("warm start: heuristic play: 300 / 300 decisions (100.0%)",
                  "fitting the heuristic's moves: ", "DAgger: the clone plays: ",
                  " vs random: 8 / 8 hands (100.0%)", " vs heuristic: 8 / 8 hands (100.0%)"):
        assert phase in r.stderr, phase
    ppo = [line for line in r.stdout.splitlines() if line.startswith("PPO: ")]
    assert ppo and ppo[-1].startswith("PPO: 2,048 / 2,048 steps (100.0%)")
    assert "last evaluation at 2,048: win rate " in ppo[-1]  # eval.every 1,024
    assert "━" not in r.stdout and "\r" not in r.stdout + r.stderr  # no bar drawn into a file
    from training.sb3.checkpoint import weights_digest

    (final,) = (tmp_path / "ck").rglob("final.zip")
    assert f"final weights sha256: {weights_digest(final)}\n" in r.stdout
