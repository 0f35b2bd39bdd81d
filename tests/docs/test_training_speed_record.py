"""docs/results/training_speed.py: the training-speed table is made from the benchmark's
raw output kept in the repository, and a file that is not such an output is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


def _mod():
    return load_script("docs/results/training_speed.py")


def _committed() -> tuple[dict, Path]:
    """The table in benchmarks.json and the raw output it names."""
    spec = json.loads((RESULTS / "benchmarks.json").read_text())["tables"]["training_speed"]
    return spec, ROOT / spec["source"]


def test_the_committed_table_is_the_script_s_output_of_the_committed_run(tmp_path):
    spec, source = _committed()
    assert source.is_file() and source.parent == RESULTS / "benchmark_runs"
    data = tmp_path / "benchmarks.json"
    data.write_text(json.dumps({"tables": {}}))
    made = _mod().record(source, spec["where"], data)
    assert made == spec
    run = json.loads(source.read_text())
    # the first row's figure and ratio are the run's, as printed
    first = spec["rows"][0]["cells"]
    assert first[1] == f"{run['ppo_env_steps_per_s']:,.0f}"
    assert first[3] == f"{run['ppo_env_steps_per_s'] / run['peer_ppo_env_steps_per_s']:.2f}x"
    update = next(r["cells"] for r in spec["rows"] if r["cells"][0].startswith("`update"))
    assert update[3] == f"{run['update_samples_per_s'] / run['peer_update_samples_per_s']:.2f}x"


def test_the_page_shows_the_table_and_its_source():
    from tests.helpers.scripts import load_script as load

    tables = load("docs/results/tables.py")
    spec, source = _committed()
    text = tables.render(spec)
    link = source.relative_to(RESULTS).as_posix()
    assert f"[{link}]({link})" in text and spec["where"] in text
    assert "training_speed" in tables.tables(RESULTS / "benchmarks.md")


#: a run's output as training.benchmark --json prints it (the figures of one run)
SAMPLE = {
    "config": "configs/classic.yaml", "seconds": 20.0, "torch_threads": 2,
    "ppo_env_steps_per_s": 12143.7, "ppo_env_share": 0.111, "ppo_opponent_net_share": 0.129,
    "ppo_learner_rollout_share": 0.16, "ppo_update_share": 0.6, "ppo_games": 128,
    "ppo_snapshots": 5, "ppo_seconds": 21.6, "update_samples_per_s": 85804.6,
    "precision": "bf16", "peer_update_samples_per_s": 78556.2,
    "plain_mlp_same_precision_samples_per_s": 135881.9, "peer_ppo_env_steps_per_s": 765.5,
    "eval_hands_per_s": 256.5, "peer_eval_hands_per_s": 135.4,
    "heuristic_us_per_decision": 3.32, "heuristic_batch_us_per_decision": 1.08,
    "peer_heuristic_us_per_decision": 110.0}


def _run(tmp_path, **change) -> Path:
    run = dict(SAMPLE)
    for k, v in change.items():
        if v is None:
            run.pop(k)
        else:
            run[k] = v
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    return path


def test_a_sample_run_makes_its_rows():
    spec = _mod().table(SAMPLE, "docs/results/benchmark_runs/x.json", "somewhere")
    rows = {r["cells"][0].split("`")[1]: r["cells"] for r in spec["rows"]
            if r["cells"][0].startswith("`")}
    assert rows["ppo_env_steps_per_s"][1:] == [
        "12,144", "2 `PartnershipEnv` subprocesses, same network and pool: 766", "15.86x"]
    assert rows["update_samples_per_s"][1] == "85,805"
    assert rows["update_samples_per_s"][3] == "1.09x"
    assert rows["ppo_update_share"][1] == "0.600"
    assert rows["heuristic_us_per_decision"][3] == "33x faster"
    assert spec["rows"][0]["command"] == ("python -m training.benchmark --config "
                                          "configs/classic.yaml --seconds 20 --json > "
                                          "docs/results/benchmark_runs/x.json")


@pytest.mark.parametrize("change, message", [
    ({"ppo_env_steps_per_s": None}, "missing ppo_env_steps_per_s"),
    ({"seconds": None}, "missing seconds"),
    ({"ppo_env_steps_per_s": -5.0}, "ppo_env_steps_per_s must be a finite number > 0, got -5.0"),
    ({"update_samples_per_s": float("nan")}, "update_samples_per_s must be a finite number > 0"),
    ({"peer_ppo_env_steps_per_s": 0}, "peer_ppo_env_steps_per_s must be a finite number > 0"),
    ({"ppo_env_share": 1.5}, "ppo_env_share must be a finite share in [0, 1], got 1.5"),
    ({"ppo_update_share": 0.9}, "the four shares"),
    ({"ppo_games": True}, "ppo_games must be a whole number >= 1, got True"),
    ({"ppo_games": 0.5}, "ppo_games must be a whole number >= 1, got 0.5"),
    ({"torch_threads": 1.5}, "torch_threads must be a whole number >= 1, got 1.5"),
    ({"ppo_snapshots": -1}, "ppo_snapshots must be a whole number >= 0, got -1"),
    ({"precision": "fp16"}, "precision must be fp32 or bf16, got 'fp16'"),
    ({"config": "configs/classic.yaml\n| x | y |"}, "config must be a configs/*.yaml path"),
    ({"config": "/etc/passwd"}, "config must be a configs/*.yaml path"),
    ({"peer_update_samples_per_s": None}, "without the card-class extractor"),
])
def test_a_garbled_run_is_refused(tmp_path, change, message):
    mod = _mod()
    with pytest.raises(mod.RecordError) as e:
        mod.read_run(_run(tmp_path, **change))
    assert message in str(e.value)


def test_what_is_not_a_run_is_refused_and_nothing_is_written(tmp_path, capsys):
    mod = _mod()
    assert mod.read_run(_run(tmp_path)) == SAMPLE
    for text, message in (("[1, 2]", "not one JSON object"), ("{", "not a readable JSON file"),
                          ('{"config": "x"}', "not a training.benchmark --json output")):
        bad = tmp_path / "bad.json"
        bad.write_text(text)
        with pytest.raises(mod.RecordError, match=message.split(" (")[0]):
            mod.read_run(bad)
    # through main: a file outside benchmark_runs/, a bad --where; benchmarks.json unchanged
    data = tmp_path / "benchmarks.json"
    shutil.copy(RESULTS / "benchmarks.json", data)
    before = data.read_bytes()
    inside = RESULTS / "benchmarks.json"  # in the repository, not a benchmark run
    for args, message in (
            ([str(_run(tmp_path)), "--where", "x"], "is not a .json file in docs/results/benchmark_runs/"),
            ([str(inside), "--where", "x"], "is not a .json file in docs/results/benchmark_runs/"),
            ([str(_run(tmp_path)), "--where", "a | b"], "--where: a short line"),
            ([str(_run(tmp_path)), "--where", " "], "--where: a short line")):
        assert mod.main([*args, "--data", str(data)]) == 2
        assert message in capsys.readouterr().err
        assert data.read_bytes() == before


def test_a_table_whose_source_is_elsewhere_is_a_table_error():
    tables = load_script("docs/results/tables.py")
    spec = _mod().table(SAMPLE, "runs/x.json", "somewhere")
    with pytest.raises(tables.TableError, match="not under docs/results/"):
        tables.render(spec)
