"""The scripts that make the results records refuse bad arguments before any work."""

from __future__ import annotations

import importlib.util
import json
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


def _record():
    spec = importlib.util.spec_from_file_location(
        "record", ROOT / "docs" / "results" / "record.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EVALUATION = {
    "unit": "hand", "hands": 20, "a": "search_reference", "b": "heuristic", "seed": 7,
    "variant": "classic", "win_rate": 0.61234, "win_rate_ci": [0.5, 0.7123],
    "mean_score_diff": 101.6, "score_diff_ci": [-3.2, 206.4],
    "opening_success_a": {"15": 1.0, "50": 0.9, "90": 0.8571, "120": None},
}


def test_record_writes_an_evaluation_row_with_the_command_that_replays_it(tmp_path, monkeypatch,
                                                                         capsys):
    mod = _record()
    monkeypatch.setattr(mod, "HERE", tmp_path)
    ev = tmp_path / "ev.json"
    ev.write_text(json.dumps(EVALUATION))
    assert mod.main(["x.json", "t", str(ev), "--note", "quiet"]) == 0
    data = json.loads((tmp_path / "x.json").read_text())
    assert data == {"tables": {"t": {"kind": "evaluation", "levels": [15, 50, 90, 120], "rows": [{
        "opponent": "heuristic", "seed": 7, "win_rate": 0.6123, "win_rate_ci": [0.5, 0.712],
        "mean_score_diff": 102, "score_diff_ci": [-3, 206],
        "opening_success": [1.0, 0.9, 0.857, 0.0], "note": "quiet",
        "command": "python -m training.evaluate --a search_reference --b heuristic "
                   "--hands 20 --seed 7 --json"}]}}}
    # the same command again replaces its row; a Hand and Foot row is refused in this table
    assert mod.main(["x.json", "t", str(ev)]) == 0
    assert len(json.loads((tmp_path / "x.json").read_text())["tables"]["t"]["rows"]) == 1
    hf = tmp_path / "hf.json"
    hf.write_text(json.dumps({**EVALUATION, "variant": "hand_and_foot",
                                            "opening_success_a": {"60": 1.0, "90": 1.0}}))
    before = (tmp_path / "x.json").read_bytes()
    with pytest.raises(SystemExit):
        mod.main(["x.json", "t", str(hf)])
    assert "opening minimums [60, 90], the table has [15, 50, 90, 120]" in capsys.readouterr().err
    assert (tmp_path / "x.json").read_bytes() == before


@pytest.mark.parametrize("content, message", [
    ("{", "Expecting property name"),
    ('{"a": "x"}', "not the JSON of python -m training.evaluate --json: no b, hands"),
    (None, "only hand evaluations are recorded here, got unit 'game'"),
])
def test_record_refuses_what_is_not_an_evaluation(tmp_path, monkeypatch, capsys, content,
                                                  message):
    mod = _record()
    monkeypatch.setattr(mod, "HERE", tmp_path)
    ev = tmp_path / "ev.json"
    ev.write_text(content if content is not None
                  else json.dumps({**EVALUATION, "unit": "game"}))
    with pytest.raises(SystemExit) as e:
        mod.main(["x.json", "t", str(ev)])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
