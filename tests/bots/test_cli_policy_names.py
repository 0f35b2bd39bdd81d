"""Every command line that takes a policy name lists every name the loader accepts."""
import os
import re
import subprocess
import sys

import pytest

from canasta_env.bots.levels import LEVEL_NAMES
from canasta_env.bots.loader import BUILTIN
from tests.helpers.opponent import ROOT


@pytest.mark.parametrize("module", ["training.evaluate", "training.ratings",
                                    "canasta_env.bots.play", "training.play"])
def test_help_names_every_builtin_policy_and_level(module):
    r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "COLUMNS": "1000"})  # no wrapping inside a name
    assert r.returncode == 0, r.stderr
    words = {w.rstrip(":") for w in re.findall(r"[\w:.-]+", r.stdout)}
    missing = [n for n in (*BUILTIN, *LEVEL_NAMES, "epsilon-heuristic:P", "style:NAME")
               if n not in words]
    assert missing == [], f"{module} --help does not name {missing}"
