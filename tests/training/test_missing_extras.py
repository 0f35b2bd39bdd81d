"""A command run without the extra it needs prints one line naming the extra and exits 2
(``canasta_env.cli.require_extra``), never a ``ModuleNotFoundError`` traceback. Each
command runs in a subprocess of this worktree in which the modules of the missing extras
are blocked (``sys.modules[name] = None``, so ``import name`` fails as if it were not
installed): the machine of a user who installed only the ``bots`` extra."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from canasta_env import cli

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))

#: what a ``pip install -e ".[bots]"`` lacks: every module of the other extras
BOTS_ONLY = tuple(m for extra in ("training", "distributed", "dev")
                  for m in cli.EXTRA_MODULES[extra])

#: import name -> distribution name in pyproject.toml, where they differ
DIST = {"yaml": "pyyaml", "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib"}

RUNNER = ("import runpy, sys\n"
          "for m in sys.argv[1].split(','): sys.modules[m] = None\n"
          "module = sys.argv[2]\n"
          "sys.argv = [module, *sys.argv[3:]]\n"
          "runpy.run_module(module, run_name='__main__', alter_sys=True)\n")


def run_without(blocked: tuple[str, ...], module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUNNER, ",".join(blocked), module, *args],
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("module", "args", "extras", "missing"), [
    ("training.main", (), "'training' extra", "torch, stable_baselines3, sb3_contrib"),
    ("training.train", ("--config", "configs/smoke.yaml"), "'training' extra", "torch"),
    ("training.benchmark", (), "'training' extra", "torch"),
    ("training.evaluate", ("--a", "heuristic", "--b", "random", "--hands", "2"),
     "'training' extra", "tqdm"),
    ("training.ratings", ("--policies", "random", "heuristic"), "'training' extra",
     "tqdm, openskill"),
    ("training.export_onnx", ("checkpoints/reference/classic.zip", "out.onnx"),
     "'training' and 'bots' extras", "torch, sb3_contrib, onnx"),
    ("training.search", ("play", "--deals", "1"), "'training' extra", "tqdm"),
    ("training.rllib", ("--config", "configs/rllib_smoke.yaml"),
     "'training' and 'distributed' extras", "torch"),
    ("training.rllib_throughput", (), "'training' and 'distributed' extras", "torch"),
    ("training.rllib_cluster_demo", (), "'training' and 'distributed' extras", "torch"),
    ("canasta_env.bots.loadtest", ("--seconds", "1"), "'bots' and 'dev' extras", "locust"),
])
def test_a_command_without_its_extra_says_which_and_exits_2(module, args, extras, missing):
    r = run_without(BOTS_ONLY, module, *args)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"python -m {module}: error: needs the {extras} (missing: "
                               f"{missing}"), r.stderr
    wanted = extras.split(" extra")[0].replace("'", "").replace(" and ", ",")
    assert r.stderr.endswith(f'): pip install -e ".[{wanted}]"\n'), r.stderr
    assert not (ROOT / "out.onnx").exists()


def test_the_console_script_import_path_says_so_too():
    """``canasta-train`` imports ``training.main`` (not as ``__main__``): the check runs
    before the module's own import of the config (PyYAML)."""
    code = ("import sys\nfor m in sys.argv[1].split(','): sys.modules[m] = None\n"
            "from training.main import main\nraise SystemExit(main([]))\n")
    r = subprocess.run([sys.executable, "-c", code, ",".join(BOTS_ONLY)], cwd=ROOT, env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("python -m training.main: error: needs the 'training' extra")


def test_require_extra_passes_when_installed_and_names_only_the_missing(capsys):
    pytest.importorskip("sb3_contrib")
    assert cli.require_extra("prog", "training") is None
    assert capsys.readouterr().err == ""
    with pytest.raises(SystemExit) as e:
        cli.require_extra("prog", "training", modules=("numpy", "no_such_module_xyz"))
    assert e.value.code == cli.EXIT_USAGE == 2
    assert capsys.readouterr().err == ("prog: error: needs the 'training' extra (missing: "
                                       "no_such_module_xyz): pip install -e \".[training]\"\n")
    with pytest.raises(KeyError):
        cli.require_extra("prog", "no_such_extra")


def test_blocked_modules_count_as_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy_blocked_for_test", None)
    assert not cli._importable("numpy_blocked_for_test")
    assert cli._importable("numpy") and not cli._importable("no_such_module_xyz")


def test_each_module_of_an_extra_is_installed_by_that_extra():
    """``EXTRA_MODULES`` names what ``pyproject.toml`` installs: every module's distribution
    is a requirement of its extra (so the printed ``pip install`` line fixes the error)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, modules in cli.EXTRA_MODULES.items():
        names = {req.split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower()
                 for req in extras[extra]}
        for m in modules:
            assert DIST.get(m, m).lower() in names, f"{m} is not installed by the {extra} extra"
