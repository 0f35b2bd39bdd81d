"""Every script in examples/ runs with a tiny budget, in its library's idiom. A missing
library skips with the install line (CI installs the extras: nothing skips there)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

#: script -> (modules it needs, install line, arguments, regex its output must match)
CASES = {
    "sb3_action_mask.py": (("sb3_contrib",), "pip install -e '.[training]'", ["--steps", "256"],
                           r"trained 256 steps; one hand: \d+ decisions, hand scores \[-?\d+, -?\d+\]"),
    "tianshou_dqn.py": (("tianshou",), "pip install -e '.[training,interop]'",
                        ["--epochs", "1", "--steps-per-epoch", "60", "--envs", "2"],
                        r"best test return of player_0: [+-]\d+\.\d{3}"),
    "torchrl_collector.py": (("torchrl",), "pip install -e '.[training,interop]'",
                             ["--frames", "512"],
                             r"collected 512 frames, [1-9]\d* hands finished, 0 illegal actions"),
    "openspiel_ismcts.py": (("pyspiel",), "pip install -e '.[interop]'", ["--simulations", "3"],
                            r"\d+ moves; returns \(ISMCTS seats 0 and 2 first\): "
                            r"\[(-?[\d.]+), (-?[\d.]+), \1, \2\]"),
    "rllib_ppo.py": (("ray",), "pip install -e '.[training,distributed]'",
                     ["--iterations", "1", "--batch", "128"],
                     r"iteration 1: 128 env steps, \d+ hands finished"),
}


def test_every_example_is_tested():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(CASES)


@pytest.mark.parametrize("script", sorted(CASES))
def test_example_runs(script):
    modules, install, args, expected = CASES[script]
    for m in modules:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"{script} needs {m}: {install}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p), PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True,
                         text=True, cwd=REPO, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert re.search(expected, out.stdout), out.stdout[-2000:]
