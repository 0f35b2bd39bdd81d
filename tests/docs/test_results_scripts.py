"""The scripts that make the results records refuse bad arguments before any work."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _main_job_seeds():
    spec = importlib.util.spec_from_file_location(
        "main_job_seeds", ROOT / "docs" / "results" / "main_job_seeds.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("args, message", [
    (["--minutes", "nan"], "--minutes: each a finite number of minutes > 0, got nan"),
    (["--minutes", "-3"], "--minutes: each a finite number of minutes > 0, got -3.0"),
    (["--minutes", "30", "31"], "--minutes: one per run (1), got 2"),
    (["--minutes", "30", "--hands", "1"], "--hands: at least 2 (one duplicate deal), got 1"),
    (["--minutes", "30", "--workers", "0"], "--workers: at least 1, got 0"),
])
def test_main_job_seeds_refuses_bad_arguments(tmp_path, capsys, args, message):
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as e:
        _main_job_seeds().main(["--runs", str(run), *args])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_main_job_seeds_refuses_a_run_twice_and_a_run_without_its_files(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("seed: 0\n")
    mod = _main_job_seeds()
    data = ROOT / "docs" / "results" / "main-job.json"
    before = data.read_bytes()
    with pytest.raises(SystemExit):
        mod.main(["--runs", str(run), str(run), "--minutes", "30", "30"])
    assert "is given twice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--runs", str(run), "--minutes", "30"])
    assert f"--runs: {run / 'final.zip'} does not exist" in capsys.readouterr().err
    assert data.read_bytes() == before  # the record is untouched by a refusal
