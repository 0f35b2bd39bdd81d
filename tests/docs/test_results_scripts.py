"""The scripts that make the results records refuse bad arguments before any work."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def _main_job_seeds():
    return load_script("docs/results/main_job_seeds.py")


@pytest.mark.parametrize("args, message", [
    (["--minutes", "nan"], "--minutes: each a finite number of minutes > 0, got nan"),
    (["--minutes", "-3"], "--minutes: each a finite number of minutes > 0, got -3.0"),
    (["--minutes", "30", "31"], "--minutes: one per run (1), got 2"),
    (["--minutes", "30", "--hands", "1"], "--hands: at least 2 (one duplicate deal), got 1"),
    (["--minutes", "30", "--workers", "0"], "--workers: 1 to 64, got 0"),
    (["--minutes", "30", "--workers", "99999"], "--workers: 1 to 64, got 99999"),
    (["--minutes", "30", "--config", "configs/nope.yaml"],
     "--config: a .yaml file in configs/ (a path from the repository root), got "
     "'configs/nope.yaml'"),
    (["--minutes", "30", "--config", "/etc/hostname"], "--config: a .yaml file in configs/"),
    (["--minutes", "30", "--config", "configs/../.ci/run"], "--config: a .yaml file in configs/"),
    (["--minutes", "30", "--config", "docs/results/main-job.json"],
     "--config: a .yaml file in configs/"),
    (["--minutes", "30", "--data", "../main-job.json"],
     "--data: the name of a .json file beside this script, got '../main-job.json'"),
    (["--minutes", "30", "--data", "main-job.md"], "--data: the name of a .json file beside"),
    (["--minutes", "30", "--data", ".json"], "--data: the name of a .json file beside"),
    (["--minutes", "30", "--data", "a b.json"], "--data: the name of a .json file beside"),
    (["--minutes", "30", "--data", "nope.json"], "--data: the name of a .json file beside"),
    (["--minutes", "30", "--prefix", "a b"], "--prefix: letters, digits, '_' or '-', got 'a b'"),
    (["--minutes", "30", "--prefix=--"], "--prefix: letters, digits, '_' or '-', got"),
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
    # every run's config is checked before any evaluation: a seed missing, a seed twice
    (run / "final.zip").write_bytes(b"")
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "final.zip").write_bytes(b"")
    for text, message in (("seed: 0\n", f"{run} and {twin} have the same training seed 0"),
                          ("lr: 1\n", f"{twin / 'config.yaml'} has no int seed, got None"),
                          ("seed: [\n", f"{twin / 'config.yaml'} cannot be read")):
        (twin / "config.yaml").write_text(text)
        with pytest.raises(SystemExit):
            mod.main(["--runs", str(run), str(twin), "--minutes", "30", "30"])
        assert message in capsys.readouterr().err
    assert data.read_bytes() == before  # the record is untouched by a refusal


@pytest.mark.parametrize("text, message", [
    ("{", "--data: bad.json cannot be used (Expecting property name"),
    ("[]", '--data: bad.json cannot be used (not {"tables": {...}})'),
    ('{"tables": []}', '--data: bad.json cannot be used (not {"tables": {...}})'),
])
def test_main_job_seeds_refuses_a_data_file_it_cannot_extend(tmp_path, capsys, monkeypatch,
                                                             text, message):
    mod = _main_job_seeds()
    monkeypatch.setattr(mod, "HERE", tmp_path)
    (tmp_path / "bad.json").write_text(text)
    with pytest.raises(SystemExit) as e:
        mod.main(["--runs", str(tmp_path / "run"), "--minutes", "30", "--data", "bad.json"])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert (tmp_path / "bad.json").read_text() == text


def test_main_job_seeds_refuses_runs_of_another_config(tmp_path, capsys):
    """A run whose config.yaml differs from --config in a training setting (not its seed,
    name, folders or threads) is refused before any hand is played."""
    import yaml

    cfg = yaml.safe_load((ROOT / "configs" / "classic.yaml").read_text())
    runs = []
    for seed, epochs in ((0, 4), (1, 2)):
        run = tmp_path / f"run{seed}"
        run.mkdir()
        (run / "final.zip").write_bytes(b"")
        c = {**cfg, "seed": seed, "run_name": run.name, "torch_threads": 1,
             "ppo": {**cfg["ppo"], "n_epochs": epochs}}
        (run / "config.yaml").write_text(yaml.safe_dump(c))
        runs.append(str(run))
    data = ROOT / "docs" / "results" / "main-job.json"
    before = data.read_bytes()
    with pytest.raises(SystemExit) as e:
        _main_job_seeds().main(["--runs", *runs, "--minutes", "30", "30"])
    assert e.value.code == 2
    assert (f"--runs: {runs[1]} did not train configs/classic.yaml: they differ in "
            f"ppo.n_epochs (pass the config it trained with --config)") in capsys.readouterr().err
    assert data.read_bytes() == before


def _evaluation(win_rate: float, diff: float) -> dict:
    return {"win_rate": win_rate, "win_rate_ci": [win_rate - 0.03, win_rate + 0.03],
            "mean_score_diff": diff, "score_diff_ci": [diff - 40, diff + 40],
            "opening_success_a": {"15": 1.0, "50": 1.0, "90": 0.95, "120": 0.9}}


def test_main_job_seeds_names_its_config_and_prefixes_its_tables():
    mod = _main_job_seeds()
    runs = [(Path("checkpoints/e2_seed0"), 0, 20.1,
             dict(zip(mod.EVALUATIONS, (_evaluation(0.56, 60), _evaluation(0.552, 40),
                                        _evaluation(0.95, 990))))),
            (Path("checkpoints/e2_seed1"), 1, 21.0,
             dict(zip(mod.EVALUATIONS, (_evaluation(0.52, 10), _evaluation(0.56, 50),
                                        _evaluation(0.96, 1000)))))]
    out = mod.tables(runs, 1000, "configs/classic_epochs2.yaml", "epochs2_")
    assert sorted(out) == ["epochs2_main_job", "epochs2_main_job_seeds", "epochs2_main_job_summary"]
    seeds = out["epochs2_main_job_seeds"]["rows"]
    assert seeds[1]["cells"] == ["1", "0.520 (0.490-0.550)", "0.560 (0.530-0.590)", "+10 / +50",
                                 "0.960 (0.930-0.990)", "21.0"]
    assert seeds[0]["command"].startswith(
        "python -m training.main --config configs/classic_epochs2.yaml --seed 0 "
        "--run-name e2_seed0; then python -m training.evaluate --a checkpoints/e2_seed0/final.zip")
    summary = {r["cells"][0]: r["cells"][1:] for r in out["epochs2_main_job_summary"]["rows"]}
    assert summary["win rate vs heuristic, seed 7"] == ["0.540", "0.520 to 0.560"]
    assert summary["main job wall time (min)"] == ["20.6", "20.1 to 21.0"]
    assert summary["runs at >= 0.55 vs heuristic on seeds 7 and 8"] == ["1 of 2", ""]
    assert sorted(mod.tables(runs, 1000)) == ["main_job", "main_job_seeds", "main_job_summary"]


def _record():
    return load_script("docs/results/record.py")


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
        "opening_success": [1.0, 0.9, 0.857, None], "note": "quiet",
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
    assert (tmp_path / "x.json").stat().st_mode & 0o777 == 0o644  # readable by everyone
    # the same figures with --workers in an older row's command replace that row
    data = json.loads((tmp_path / "x.json").read_text())
    data["tables"]["t"]["rows"][0]["command"] += " --workers 1"
    data["tables"]["t"]["rows"][0]["command"] = data["tables"]["t"]["rows"][0]["command"].replace(
        " --json --workers 1", " --workers 1 --json")
    (tmp_path / "x.json").write_text(json.dumps(data))
    assert mod.main(["x.json", "t", str(ev)]) == 0
    rows = json.loads((tmp_path / "x.json").read_text())["tables"]["t"]["rows"]
    assert [r["command"] for r in rows] == [
        "python -m training.evaluate --a search_reference --b heuristic --hands 20 --seed 7 --json"]
    # another side A, the same evaluation twice, a note that would break the table: refused
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**EVALUATION, "a": "search"}))
    for args, message in ((["x.json", "t", str(other)], "side A is search; the table 't' "
                                                         "records search_reference"),
                          (["y.json", "t", str(ev), str(ev)], "the same evaluation as another"),
                          (["y.json", "t", str(ev), "--note", "a|b"], "--note: one line")):
        with pytest.raises(SystemExit):
            mod.main(args)
        assert message in capsys.readouterr().err
    assert not (tmp_path / "y.json").exists()


def test_record_by_policy_compares_policies_in_a_first_column(tmp_path, monkeypatch, capsys):
    mod = _record()
    tables = load_script("docs/results/tables.py")
    monkeypatch.setattr(mod, "HERE", tmp_path)
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps(EVALUATION))
    two.write_text(json.dumps({**EVALUATION, "a": "search", "win_rate": 0.55}))
    assert mod.main(["x.json", "t", str(one), str(two), "--by-policy"]) == 0
    spec = json.loads((tmp_path / "x.json").read_text())["tables"]["t"]
    assert spec["by_policy"] is True
    assert [(r["a"], r["win_rate"]) for r in spec["rows"]] == [("search_reference", 0.6123),
                                                                ("search", 0.55)]
    lines = tables.render(spec).splitlines()
    assert lines[0].startswith("| policy | opponent, seed | win rate (95% CI) |")
    assert lines[2].startswith("| `search_reference` | heuristic, 7 | 0.6123 (0.500-0.712) |")
    assert lines[3].startswith("| `search` | heuristic, 7 | 0.550 (0.500-0.712) |")
    # a table is a comparison or not for good: mixing the two forms is refused, unchanged;
    # so is a policy on other deals (another seed, opponent or hand count)
    before = (tmp_path / "x.json").read_bytes()
    for change in ({"seed": 8}, {"b": "random"}, {"hands": 40}):
        other = tmp_path / "other.json"
        other.write_text(json.dumps({**EVALUATION, "a": "reference", **change}))
        with pytest.raises(SystemExit):
            mod.main(["x.json", "t", str(other), "--by-policy"])
        assert "a comparison plays every policy on the same deals" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["x.json", "t", str(one)])
    assert "table 't' is a comparison of policies: add --by-policy" in capsys.readouterr().err
    assert mod.main(["x.json", "u", str(one)]) == 0
    with pytest.raises(SystemExit):
        mod.main(["x.json", "u", str(two), "--by-policy"])
    assert "table 'u' is not a comparison of policies: leave out --by-policy" in \
        capsys.readouterr().err
    assert json.loads((tmp_path / "x.json").read_text())["tables"]["t"] == json.loads(before)[
        "tables"]["t"]
    # side A must be a policy spec; a garbled comparison is a TableError, not a traceback
    for a in (None, 5, "", "x y", "x`y"):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**EVALUATION, "a": a}))
        with pytest.raises(SystemExit):
            mod.main(["x.json", "v", str(bad), "--by-policy"])
        assert "side A must be a policy spec" in capsys.readouterr().err
    for flag in (None, "yes", 2):
        with pytest.raises(tables.TableError, match="by_policy must be true or false"):
            tables.render({**spec, "by_policy": flag})
    with pytest.raises(tables.TableError, match="has no side A"):
        tables.render({**spec, "rows": [{k: v for k, v in spec["rows"][0].items() if k != "a"}]})
    data = json.loads((tmp_path / "x.json").read_text())
    data["tables"]["t"]["by_policy"] = None
    (tmp_path / "x.json").write_text(json.dumps(data))
    with pytest.raises(SystemExit):
        mod.main(["x.json", "t", str(one)])
    assert "has by_policy None, not true or false" in capsys.readouterr().err


@pytest.mark.parametrize("script, args", [
    ("docs/results/record.py", ["x.json", "t", "missing.json"]),
    ("docs/results/record.py", ["../x.json", "t", "missing.json"]),
    ("docs/results/training_speed.py", ["missing.json"]),
])
def test_results_scripts_refuse_in_one_line(script, args, capsys):
    """Scripts whose docstring promises one line on stderr print no usage block first."""
    mod = load_script(script)
    with pytest.raises(SystemExit) as e:
        mod.main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1, err
    assert err[0].startswith(f"python {script}: error: ")


@pytest.mark.parametrize("content, message", [
    ("{", "Expecting property name"),
    ('{"a": "x"}', "not the JSON of python -m training.evaluate --json: no b, hands"),
    (None, "only hand evaluations are recorded here, got unit 'game'"),
    ('"text"', "a str, not an object"),
    (json.dumps({**EVALUATION, "win_rate": float("nan")}), "must be finite numbers"),
    (json.dumps({**EVALUATION, "hands": -5}), "hands must be a positive int, got -5"),
    (json.dumps({**EVALUATION, "seed": "abc"}), "seed must be a non-negative int, got 'abc'"),
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


def test_rule_validation_rebuilds_the_committed_table_and_reads_each_rule(tmp_path,
                                                                          monkeypatch):
    """docs/results/rule_validation.py, run on a copy of robustness.json, writes exactly the
    committed ``reference_rule_validation`` (made from the recorded runs, not typed in);
    its verdicts follow the rule; a missing run is refused with exit code 2."""
    mod = load_script("docs/results/rule_validation.py")
    committed = json.loads(mod.DATA.read_text())
    data = tmp_path / "robustness.json"
    data.write_text(mod.DATA.read_text())
    monkeypatch.setattr(mod, "DATA", data)
    assert mod.main() == 0
    table = json.loads(data.read_text())["tables"]["reference_rule_validation"]
    assert table == committed["tables"]["reference_rule_validation"]
    verdicts = {row["cells"][0]: row["cells"][-1] for row in table["rows"]}
    assert list(verdicts.values()) == ["-", "met / met / missed", "met / met / missed",
                                       "met / met / missed"]
    # clause (3) is the one: the points run's mean win rate against random is 0.96875
    points = [r["win_rate"] for r in committed["tables"]["validation_points"]["rows"]
              if r["opponent"] == "random"]
    assert sum(points) / 2 == pytest.approx(0.96875)
    broken = json.loads(data.read_text())
    del broken["tables"]["validation_panel_mixed"]
    data.write_text(json.dumps(broken))
    assert mod.main() == 2


VF_RUNS = ["2026-12-05_vf_default_1.json", "2026-12-05_vf_vf128_1.json",
           "2026-12-05_vf_default_2.json", "2026-12-05_vf_vf128_2.json"]


def test_speed_pairs_rebuilds_the_committed_table():
    """docs/results/speed_pairs.py makes the committed ``vf128_speed`` table from the kept
    benchmark outputs: each run's figures, each pair's ratio, the configs' mean ratio."""
    mod = load_script("docs/results/speed_pairs.py")
    runs = [mod.RUNS / name for name in VF_RUNS]
    committed = json.loads((mod.HERE / "experiments.json").read_text())["tables"]["vf128_speed"]
    assert mod.table(runs) == committed
    rates = [json.loads(f.read_text())["ppo_env_steps_per_s"] for f in runs]
    rows = committed["rows"]
    assert rows[0]["cells"][2] == f"{rates[0]:,.0f}" and rows[0]["cells"][3] == ""
    assert rows[1]["cells"][3] == f"{rates[1] / rates[0]:.3f}x"
    assert rows[3]["cells"][3] == f"{rates[3] / rates[2]:.3f}x"
    ratio = (rates[1] + rates[3]) / (rates[0] + rates[2])
    assert rows[-1]["cells"][3] == f"{ratio:.3f}x the first config's mean"


H32_RUNS = ["2026-12-05_h32_1.json", "2026-12-05_h32_2.json",
            "2026-12-05_h64_1.json", "2026-12-05_h64_2.json"]


def test_update_ratio_rebuilds_the_committed_table():
    """docs/results/update_ratio.py makes the committed ``h32_update_ratio`` table from the
    kept benchmark outputs: each run's update beside its plain-MLP peer, each config's mean
    ratio."""
    mod = load_script("docs/results/update_ratio.py")
    runs = [mod.RUNS / name for name in H32_RUNS]
    committed = json.loads((mod.HERE / "experiments.json").read_text())["tables"]
    assert mod.table(runs) == committed["h32_update_ratio"]
    outs = [json.loads(f.read_text()) for f in runs]
    ratios = [o["update_samples_per_s"] / o["peer_update_samples_per_s"] for o in outs]
    rows = committed["h32_update_ratio"]["rows"]
    for row, out, ratio in zip(rows, outs, ratios):
        assert row["cells"][2] == f"{out['update_samples_per_s']:,.0f} ({out['precision']})"
        assert row["cells"][4] == f"{ratio:.3f}x" == f"{out['ratio_update_samples_per_s']:.3f}x"
    assert rows[4]["cells"][:2] == ["mean of 2", "`configs/classic_h32.yaml`"]
    assert rows[4]["cells"][4] == f"{(ratios[0] + ratios[1]) / 2:.3f}x"
    assert rows[5]["cells"][:2] == ["mean of 2", "`configs/classic.yaml`"]
    assert rows[5]["cells"][4] == f"{(ratios[2] + ratios[3]) / 2:.3f}x"


def test_update_ratio_rebuilds_the_committed_minibatch_table():
    mod = load_script("docs/results/update_ratio.py")
    runs = [mod.RUNS / "2026-12-05_bs2048_1.json", mod.RUNS / "2026-12-05_bs2048_2.json"]
    committed = json.loads((mod.HERE / "experiments.json").read_text())["tables"]
    assert mod.table(runs) == committed["bs2048_update_ratio"]
    assert committed["bs2048_update_ratio"]["rows"][-1]["cells"][4] == "0.866x"


def test_update_ratio_refuses_a_run_without_its_peer_and_writes_nothing(tmp_path, capsys,
                                                                       monkeypatch):
    mod = load_script("docs/results/update_ratio.py")
    good = json.loads((mod.RUNS / H32_RUNS[2]).read_text())
    plain = {k: v for k, v in good.items() if k not in ("peer_update_samples_per_s",
                                                         "ratio_update_samples_per_s")}
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.json").write_text(json.dumps(plain))
    monkeypatch.setattr(mod, "RUNS", runs)
    data = _data_copy(mod, tmp_path)
    before = data.read_text()
    assert mod.main(["--data", "experiments.json", "--table", "t", str(runs / "a.json")],
                    folder=tmp_path) == 2
    assert "a.json: a run of a config without the card-class extractor" in \
        capsys.readouterr().err
    assert data.read_text() == before


@pytest.mark.parametrize("case, message", [
    ("twice", "given twice (each run once)"),
    ("outside", "keep the benchmark outputs in docs/results/benchmark_runs/"),
])
def test_update_ratio_refuses_a_repeated_or_unkept_file(tmp_path, case, message):
    mod = load_script("docs/results/update_ratio.py")
    kept = mod.RUNS / H32_RUNS[0]
    outside = tmp_path / "x.json"
    outside.write_text(kept.read_text())
    files = {"twice": [kept, kept], "outside": [outside]}[case]
    with pytest.raises(mod.RecordError, match=re.escape(message)):
        mod.table(files)


def test_benchmark_tables_name_each_run_by_one_command_form():
    """Every benchmark table names a kept run by the same command, its own ``--seconds``
    included, and the file relative to the repository."""
    pairs = load_script("docs/results/speed_pairs.py")
    ratio = load_script("docs/results/update_ratio.py")
    k = pairs.RUNS / "2026-12-05_k.json"
    run = json.loads(k.read_text())
    want = ("python -m training.benchmark --config configs/classic.yaml --seconds 20 --json > "
            "docs/results/benchmark_runs/2026-12-05_k.json")
    assert pairs.run_command(run, pairs.kept_source(k)) == want
    assert ratio.table([k])["rows"][0]["command"] == want
    committed = json.loads((pairs.HERE / "benchmarks.json").read_text())["tables"]
    table = committed["training_speed"]  # the run it shows, by the same command
    shown = pairs.ROOT / table["source"]
    assert {r["command"] for r in table["rows"]} == {
        pairs.run_command(json.loads(shown.read_text()), pairs.kept_source(shown))}
    assert pairs.run_command({**run, "seconds": 5.0}, "x.json") == (
        "python -m training.benchmark --config configs/classic.yaml --seconds 5 --json > x.json")


def _data_copy(mod, tmp_path):
    (tmp_path / "experiments.json").write_text((mod.HERE / "experiments.json").read_text())
    return tmp_path / "experiments.json"


@pytest.mark.parametrize("case, message", [
    ("one_config", "the files hold one config only"),
    ("outside", "keep the benchmark outputs in docs/results/benchmark_runs/"),
    ("table", "--table: letters, digits, '_' or '-', got 'a b'"),
    ("data", "--data nope.json: no such data file beside this script"),
    ("not_results", "--data experiments.json: not a results data file"),
])
def test_speed_pairs_refuses_what_it_cannot_compare(tmp_path, capsys, case, message):
    mod = load_script("docs/results/speed_pairs.py")
    runs = [str(mod.RUNS / name) for name in VF_RUNS]
    data = _data_copy(mod, tmp_path)
    if case == "not_results":
        data.write_text("[1, 2]")
    outside = tmp_path / "x.json"
    outside.write_text((mod.RUNS / VF_RUNS[0]).read_text())
    args = {"one_config": ["--data", "experiments.json", "--table", "t", runs[0], runs[2]],
            "outside": ["--data", "experiments.json", "--table", "t", str(outside), runs[1]],
            "table": ["--data", "experiments.json", "--table", "a b", *runs],
            "data": ["--data", "nope.json", "--table", "t", *runs],
            "not_results": ["--data", "experiments.json", "--table", "t", *runs]}[case]
    before = data.read_text()
    assert mod.main(args, folder=tmp_path) == 2
    assert message in capsys.readouterr().err
    assert data.read_text() == before


@pytest.mark.parametrize("script, runs, committed", [
    ("speed_pairs", VF_RUNS, "vf128_speed"),
    ("update_ratio", H32_RUNS, "h32_update_ratio"),
])
def test_benchmark_table_scripts_write_their_table_and_keep_the_others(tmp_path, script, runs,
                                                                       committed):
    mod = load_script(f"docs/results/{script}.py")
    data = _data_copy(mod, tmp_path)
    before = json.loads(data.read_text())["tables"]
    assert mod.main(["--data", "experiments.json", "--table", "t2",
                     *[str(mod.RUNS / n) for n in runs]], folder=tmp_path) == 0
    after = json.loads(data.read_text())["tables"]
    assert after.pop("t2") == before[committed] and after == before


def test_speed_pairs_checks_each_file_as_training_speed_does(tmp_path):
    mod = load_script("docs/results/speed_pairs.py")
    good = json.loads((mod.RUNS / VF_RUNS[0]).read_text())
    (tmp_path / "a.json").write_text(json.dumps(good))
    (tmp_path / "b.json").write_text(json.dumps({**good, "config": "configs/x.yaml",
                                                 "ppo_env_steps_per_s": float("nan")}))
    (tmp_path / "c.json").write_text("{")
    (tmp_path / "d.json").write_text("3")
    for bad, message in (("b", "ppo_env_steps_per_s must be a finite number > 0, got nan"),
                         ("c", "not a readable JSON file"), ("d", "not one JSON object")):
        with pytest.raises(mod.RecordError, match=message):
            mod.table([tmp_path / "a.json", tmp_path / f"{bad}.json"], runs_dir=tmp_path)


_WHOLE = ("<!-- table: t (generated by docs/results/tables.py from x.json; do not edit) -->\n"
          "old\n<!-- end of table -->\n")


@pytest.mark.parametrize("tail, line, message", [
    ("<!-- table: t -->\n<!-- end of table -->\n", 8, "a table marker not in the form"),
    ("<!--table: t (generated by docs/results/tables.py from x.json; do not edit) -->\n"
     "<!-- end of table -->\n", 8, "a table marker not in the form"),
    ("<!-- table: t (generated by tables.py from x.json; do not edit) -->\n"
     "<!-- end of table -->\n", 8, "a table marker not in the form"),
    ("<!-- table: t (generated by docs/results/tables.py from x.json; do not edit) -->\n",
     8, "table 't' has no '<!-- end of table -->' after it"),  # no end, last in the page
    ("<!-- table: t (generated by docs/results/tables.py from x.json; do not edit) -->\n"
     "<!-- End of table-->\n", 8, "table 't' has no '<!-- end of table -->' after it"),
    ("<!-- Table: t -->\n| stale |\n", 8, "a table marker not in the form"),
    ("<!--- table: t (generated by docs/results/tables.py from x.json; do not edit) -->\n"
     "<!-- end of table -->\n", 8, "a table marker not in the form"),
    ("<!-- end of table -->\n", 8, "an end of table that closes no table marker"),
    ("<!-- end  of table-->\n", 8, "an end of table that closes no table marker"),
])
def test_a_malformed_table_marker_is_an_error_not_skipped(tmp_path, tail, line, message):
    tables = load_script("docs/results/tables.py")
    (tmp_path / "x.json").write_text(json.dumps({"tables": {"t": {
        "kind": "plain", "columns": ["a"], "rows": [{"cells": ["1"], "command": "c"}]}}}))
    page = tmp_path / "p.md"
    page.write_text("# P\n\n" + _WHOLE + "\ntext\n" + tail)
    assert tables.pages(tmp_path) == [page]
    with pytest.raises(tables.TableError, match=rf"p\.md, line {line}: {message}"):
        tables.generate(page)
    page.write_text("# P\n\n" + _WHOLE)  # the whole marker alone: made again from its data
    assert "| a | command |\n|---|---|\n| 1 | `c` |\n" in tables.generate(page)


def test_an_opening_without_its_end_before_a_whole_marker_names_its_own_line(tmp_path):
    tables = load_script("docs/results/tables.py")
    (tmp_path / "x.json").write_text(json.dumps({"tables": {"t": {
        "kind": "plain", "columns": ["a"], "rows": [{"cells": ["1"], "command": "c"}]}}}))
    page = tmp_path / "p.md"
    opening = _WHOLE.split("\n")[0] + "\n"
    page.write_text(opening + "text\n" + _WHOLE)
    with pytest.raises(tables.TableError, match=r"p\.md, line 1: table 't' has no "
                                                r"'<!-- end of table -->' before the next "
                                                r"table marker \(line 3\)"):
        tables.generate(page)


def test_other_comments_about_a_table_are_not_markers(tmp_path):
    tables = load_script("docs/results/tables.py")
    (tmp_path / "x.json").write_text(json.dumps({"tables": {"t": {
        "kind": "plain", "columns": ["a"], "rows": [{"cells": ["1"], "command": "c"}]}}}))
    page = tmp_path / "p.md"
    page.write_text("<!-- table below is hand-written, keep it -->\n<!-- table of contents -->\n"
                    "<!-- tables are generated -->\nthe table: below\n| a |\n" + _WHOLE)
    assert "| a | command |\n|---|---|\n| 1 | `c` |\n" in tables.generate(page)
