"""canasta_env.bots stands apart from training: importing it (and its service and
terminal play) pulls in neither torch nor ``training``; the bots alone load random,
heuristic and the reference (ONNX) policy and refuse a ``.zip`` with a clear error until
``training`` is imported and registers the ``.zip`` loader; the loader registry; the
``training.serve`` / ``training.play`` aliases and the console scripts."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib

import numpy as np
import pytest

from canasta_env import OBS_SIZE
from canasta_env.bots import PolicySpecError, load_policy, loader, register_loader
from canasta_env.engine import NUM_ACTIONS
from canasta_env.policies import HeuristicPolicy, RandomPolicy
from tests.helpers.opponent import ROOT

HEAVY = ("torch", "training", "stable_baselines3", "sb3_contrib")


def run_python(code: str, timeout: int = 120) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter started in the repository root."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def last_json(r: subprocess.CompletedProcess):
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- no torch
def test_bots_import_neither_torch_nor_training():
    pytest.importorskip("fastapi", reason="the service extra is part of the test install")
    r = run_python(f"""
import json, sys
import canasta_env.bots, canasta_env.bots.bot, canasta_env.bots.loader
import canasta_env.bots.onnx_policy, canasta_env.bots.service, canasta_env.bots.play
assert canasta_env.bots.__file__.startswith({str(ROOT)!r}), canasta_env.bots.__file__
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {list(HEAVY)!r})))
""")
    assert last_json(r) == []


def test_bots_alone_play_the_reference_onnx_without_torch():
    pytest.importorskip("onnxruntime", reason="the service extra is part of the test install")
    r = run_python(f"""
import json, sys
from canasta_env.bots import Bot, reference_path, REFERENCE_ONNX, registered_suffixes
from canasta_env.engine import Game, to_position
bot = Bot("reference")
game = Game(seed=3)
move = bot.choose(to_position(game), game.to_move)
print(json.dumps({{"path_is_onnx": reference_path() == REFERENCE_ONNX,
                  "policy": type(bot.policy).__name__, "legal": move["action"] in game.legal_actions(),
                  "suffixes": registered_suffixes(),
                  "heavy": sorted(m for m in sys.modules if m.split(".")[0] in {list(HEAVY)!r})}}))
""")
    assert last_json(r) == {"path_is_onnx": True, "policy": "OnnxPolicy", "legal": True,
                            "suffixes": [".onnx"], "heavy": []}


def test_a_zip_needs_training_imported_then_loads():
    pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")
    r = run_python("""
import json, sys
from canasta_env.bots import PolicySpecError, load_policy, REFERENCE_CHECKPOINT
out = {"builtins": [type(load_policy(s)).__name__ for s in ("random", "heuristic")]}
try:
    load_policy(str(REFERENCE_CHECKPOINT))
    out["before"] = "loaded"
except PolicySpecError as e:
    out["before"] = str(e)
out["torch_before"] = "torch" in sys.modules
import training
out["after"] = type(load_policy(str(REFERENCE_CHECKPOINT))).__name__
print(json.dumps(out))
""", timeout=180)
    out = last_json(r)
    assert out["builtins"] == ["RandomPolicy", "HeuristicPolicy"]
    assert "training extra" in out["before"] and "import training" in out["before"]
    assert "python -m training.serve" in out["before"] and "classic.zip" in out["before"]
    assert out["torch_before"] is False
    assert out["after"] == "CheckpointPolicy"


def test_bots_service_alone_refuses_a_zip_at_start():
    pytest.importorskip("fastapi", reason="the service extra is part of the test install")
    zip_path = str(loader.REFERENCE_CHECKPOINT)
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.service", "--policy", zip_path],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "error:" in r.stderr and "training extra" in r.stderr


# ----------------------------------------------------------------------------- the registry
def test_builtin_and_reference_specs():
    assert isinstance(load_policy("random"), RandomPolicy)
    assert isinstance(load_policy(" HEURISTIC "), HeuristicPolicy)
    assert ".onnx" in loader.registered_suffixes()


def test_reference_missing_names_both_files(monkeypatch, tmp_path):
    monkeypatch.setattr(loader, "REFERENCE_ONNX", tmp_path / "classic.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", tmp_path / "classic.zip")
    with pytest.raises(PolicySpecError, match=r"classic\.onnx does not exist; .*classic\.zip "
                                              r"does not exist\. Use policy 'heuristic'"):
        load_policy("reference")


def test_reference_zip_without_a_zip_loader_says_so(monkeypatch, tmp_path):
    (tmp_path / "classic.zip").write_bytes(b"zip")
    monkeypatch.setattr(loader, "REFERENCE_ONNX", tmp_path / "classic.onnx")
    monkeypatch.setattr(loader, "REFERENCE_CHECKPOINT", tmp_path / "classic.zip")
    monkeypatch.delitem(loader._LOADERS, ".zip", raising=False)
    with pytest.raises(PolicySpecError, match=r"classic\.zip needs the \.zip loader"):
        load_policy("reference")


def test_registered_loader_by_suffix(monkeypatch, tmp_path):
    monkeypatch.setattr(loader, "_LOADERS", dict(loader._LOADERS))
    seen = []

    def load_txt(path: str):
        seen.append(path)
        return RandomPolicy(seed=1)

    register_loader(".TXT", load_txt)  # suffixes match case-insensitively
    f = tmp_path / "policy.Txt"
    f.write_text("x")
    assert isinstance(load_policy(f" {f} "), RandomPolicy) and seen == [str(f)]
    assert ".txt" in loader.registered_suffixes()

    def needs_missing_extra(path: str):
        raise ImportError("No module named 'fancy_runtime'")

    register_loader(".txt", needs_missing_extra)  # replaces the earlier loader
    with pytest.raises(PolicySpecError, match="fancy_runtime"):
        load_policy(str(f))


def test_unknown_suffix_and_bad_registrations(tmp_path):
    f = tmp_path / "policy.pkl"
    f.write_bytes(b"x")
    with pytest.raises(PolicySpecError, match=r"no policy loader for \.pkl; known: .*\.onnx"):
        load_policy(str(f))
    with pytest.raises(PolicySpecError, match="a directory"):
        load_policy(str(tmp_path))
    for bad in ("zip", ".", "", None):
        with pytest.raises(ValueError, match="suffix"):
            register_loader(bad, load_policy)
    with pytest.raises(TypeError, match="callable"):
        register_loader(".zip", "training.checkpoint")


def test_training_registers_the_zip_loader():
    importlib.import_module("training")
    assert ".zip" in loader.registered_suffixes()


def test_onnx_policy_rejects_observations_of_another_size():
    ort = pytest.importorskip("onnxruntime")  # noqa: F841
    pol = load_policy(str(loader.REFERENCE_ONNX))
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[0] = 1
    assert pol.act(obs, mask) == 0
    assert pol.logits(np.stack([obs, obs]), np.stack([mask, mask])).shape == (2, NUM_ACTIONS)
    with pytest.raises(ValueError, match="observation has 203 entries, this Classic policy "
                                         "expects 202"):
        pol.act(np.zeros(OBS_SIZE + 1, dtype=np.float32), mask)
    with pytest.raises(ValueError, match="action_mask has 98 entries"):
        pol.act(obs, np.ones(98, dtype=np.int8))  # a Hand and Foot mask
    with pytest.raises(ValueError, match="plays Classic"):  # the batched logits check
        pol.logits(np.zeros((2, OBS_SIZE + 1), np.float32), np.ones((2, NUM_ACTIONS), np.int8))


# ----------------------------------------------------------------------------- commands
@pytest.mark.parametrize("module", ["training.serve", "training.play", "canasta_env.bots.service",
                                    "canasta_env.bots.play"])
def test_module_help(module):
    r = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: python -m {module} ") and "--policy" in r.stdout


def test_training_play_alias_plays_a_zip_checkpoint():
    pytest.importorskip("sb3_contrib", reason="the training extra is part of the test install")
    zip_path = str(loader.REFERENCE_CHECKPOINT)
    r = subprocess.run([sys.executable, "-m", "training.play", "--policy", zip_path, "--seed", "4",
                        "--seat", "1"], input="quit\n", cwd=ROOT, capture_output=True, text=True,
                       timeout=180)
    assert r.returncode == 0, r.stderr
    assert f"bots: {zip_path}" in r.stdout and "Stopped. Bye." in r.stdout


def test_console_scripts_resolve():
    """The ``[project.scripts]`` targets of pyproject.toml import and are callables; the
    bots' commands go through training, so that their .zip loader is registered."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"canasta-train": "training.main:main",
                       "canasta-evaluate": "training.evaluate:main",
                       "canasta-play": "training.play:main",
                       "canasta-serve": "training.serve:main"}
    for target in scripts.values():
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), target
    from canasta_env.bots import play, service

    assert importlib.import_module("training.play").main is play.main
    assert importlib.import_module("training.serve").main is service.main
    assert ".zip" in loader.registered_suffixes()
