"""training.evaluation.panel: a policy against a baseline across a panel of opponents,
paired on the same deals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from training.evaluation import play_match  # noqa: E402
from training.evaluation.panel import compare  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_paired_difference_is_per_deal_over_the_same_deals():
    res = compare("heuristic", "random", ["random", "heuristic"], 20, seed=3)
    assert res["hands"] == 20 and [r["opponent"] for r in res["opponents"]] == ["random", "heuristic"]
    for row in res["opponents"]:
        per = {}
        for name, spec in (("a", "heuristic"), ("baseline", "random")):
            eps = play_match(spec, row["opponent"], 10, seed=3)
            diff = np.zeros(10)
            for e in eps:
                diff[e.deal] += e.diff / 2
            per[name] = diff
        d = per["a"] - per["baseline"]
        assert row["paired_diff"] == pytest.approx(d.mean())
        half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(10)
        assert row["paired_diff_ci"] == pytest.approx([d.mean() - half, d.mean() + half])
        assert row["a_mean_score_diff"] == pytest.approx(per["a"].mean())
        assert row["better"] == (row["paired_diff_ci"][0] > 0)
    # the heuristic is far better than random against either opponent
    assert res["better_against_all"] and all(r["paired_diff"] > 500 for r in res["opponents"])


def test_the_command_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "training.evaluation.panel", "--a", "heuristic",
                        "--baseline", "random", "--opponents", "random", "--hands", "4",
                        "--json", "--no-progress"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["a"] == "heuristic" and out["opponents"][0]["opponent"] == "random"
    bad = subprocess.run([sys.executable, "-m", "training.evaluation.panel", "--a", "nope",
                          "--opponents", "random", "--hands", "4"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "nope" in bad.stderr


def test_one_deal_gives_no_verdict():
    """Two hands are one deal: a paired interval of width 0 said "better" from one deal."""
    from training.evaluation.panel import main

    with pytest.raises(ValueError, match=r"--hands 2: at least 3 hands \(two deals\)"):
        compare("heuristic", "random", ["random"], 2)
    assert main(["--a", "heuristic", "--baseline", "random", "--opponents", "random",
                 "--hands", "2", "--no-progress"]) == 2
