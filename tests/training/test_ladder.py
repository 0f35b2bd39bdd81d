"""python -m training.ladder: the difficulty ladder's evidence (each level against the
level below, ratings), its option errors, and the tables it writes for
docs/results/tables.py."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openskill")

from training.evaluation import evaluate_policies  # noqa: E402
from training.evaluation.ladder import (  # noqa: E402
    chain,
    gap_verdict,
    main,
    run_ladder,
    tables_of,
    write,
)


def fake_result(a: str, b: str, variant: str = "classic", seed: int = 7, hands: int = 40,
                win_rate: float = 0.6) -> dict:
    return {"a": a, "b": b, "variant": variant, "seed": seed, "hands": hands,
            "win_rate": win_rate, "win_rate_ci": [0.45, 0.74], "mean_score_diff": 120.0,
            "score_diff_ci": [-10.0, 250.0]}


def test_the_chain_of_each_variant():
    assert chain("classic") == [("random", "random"), ("easy", "epsilon-heuristic:0.35"),
                                ("medium", "heuristic"), ("hard", "reference"),
                                ("expert", "search_reference")]
    assert chain("hand_and_foot") == [("random", "random"), ("easy", "epsilon-heuristic:0.35"),
                                      ("medium", "heuristic"), ("hard", "apprentice"),
                                      ("expert", "reference")]
    with pytest.raises(ValueError, match="no ladder for variant 'x'"):
        chain("x")


def test_a_small_ladder_is_the_evaluations_of_its_pairs(tmp_path):
    """4 hands per pair; the search pair from a measured result (not replayed): each
    played row is exactly what training.evaluate gives for that pair."""
    measured = fake_result("search_reference", "reference", seed=3)
    r = run_ladder("classic", 4, seed=3, measured=[measured], rating_hands=2,
                   rating_exclude=("expert",))
    assert [(p["upper"], p["lower"]) for p in r["pairs"]] == [
        ("easy", "random"), ("medium", "easy"), ("hard", "medium"), ("expert", "hard")]
    for p in r["pairs"][:3]:
        e = evaluate_policies(p["a"], p["b"], 4, seed=3)
        assert (p["win_rate"], p["hands"], p["mean_score_diff"]) == \
            (e["win_rate"], 4, e["mean_score_diff"])
        assert p["meets_gap"] == gap_verdict(e["win_rate"], e["win_rate_ci"])
        assert not p["measured"]
        assert p["command"] == (f"python -m training.evaluate --variant classic --a {p['a']} "
                                f"--b {p['b']} --hands 4 --seed 3 --json")
    last = r["pairs"][3]
    assert last["measured"] and last["win_rate"] == 0.6 and last["hands"] == 40
    assert last["command"].endswith("--a search_reference --b reference --hands 40 --seed 3 --json")
    rated = {x["policy"]: x["levels"] for x in r["ratings"]["ratings"]}
    assert rated == {"random": [], "epsilon-heuristic:0.35": ["easy"],
                     "heuristic": ["medium"], "reference": ["hard"]}
    assert r["ratings"]["hands_per_pair"] == 2 and len(r["ratings"]["pairs"]) == 6

    out = tmp_path / "ladder.json"
    out.write_text(json.dumps({"variants": {"hand_and_foot": {"keep": 1}},
                               "tables": {"ladder-hand_and_foot": {"keep": 2}}}))
    write(r, out)
    data = json.loads(out.read_text())
    assert data["variants"]["hand_and_foot"] == {"keep": 1}
    assert data["variants"]["classic"]["pairs"] == r["pairs"]
    assert sorted(data["tables"]) == ["ladder-classic", "ladder-classic-ratings",
                                      "ladder-hand_and_foot"]
    row = data["tables"]["ladder-classic"]["rows"][3]
    assert row["cells"] == ["expert (search_reference)", "hard (reference)", "40",
                            "0.600 (0.450-0.740)", "+120 (-10 to +250)", "not shown"]


def test_a_pair_meets_the_rule_only_with_its_whole_interval():
    assert gap_verdict(0.6185, (0.588, 0.648)) == "yes"
    assert gap_verdict(0.600, (0.387, 0.781)) == "not shown"  # 20 hands: too few to tell
    assert gap_verdict(0.54, (0.51, 0.57)) == "not shown"
    assert gap_verdict(0.0, (0.0, 0.658)) == "not shown"  # 2 hands: nothing shown either way
    assert gap_verdict(0.50, (0.47, 0.53)) == "no"
    assert gap_verdict(0.55, (0.55, 0.58)) == "yes"


def test_tables_of_a_pair_below_the_rule():
    r = {"variant": "hand_and_foot", "min_gap": 0.55, "ratings": None,
         "pairs": [{**fake_result("reference", "heuristic", win_rate=0.5), "upper": "hard",
                    "lower": "medium", "meets_gap": "no", "command": "c"}]}
    t = tables_of(r)
    assert list(t) == ["ladder-hand_and_foot"]
    assert t["ladder-hand_and_foot"]["rows"][0]["cells"][-1] == "no"
    assert t["ladder-hand_and_foot"]["columns"][-1] == "at least 0.55"


@pytest.mark.parametrize("args, message", [
    (["--pair-hands", "legendary=3"], "expected LEVEL=HANDS with LEVEL one of easy, medium, "
                                      "hard, expert, got 'legendary=3'"),
    (["--pair-hands", "hard=0"], "--pair-hands: must be a positive int"),
    (["--pair-hands", "hard=3", "--pair-hands", "hard=4"], "each level at most once"),
    (["--rating-hands", "-1"], "--rating-hands: must be 0 (no ratings) or a positive int"),
    (["--rating-exclude", "random"], "--rating-exclude random: not a level of the classic "
                                     "ladder"),
    (["--hands", "0"], "--hands"),
    (["--variant", "deluxe"], "invalid choice: 'deluxe'"),
    (["--measured", "/no/such/file.json"], "--measured /no/such/file.json: No such file"),
    (["--seed", "-1"], "--seed: must be an int >= 0"),
    # --out is checked before a hand is played
    (["--out", "/no/such/folder/ladder.json"], "--out: the folder /no/such/folder does not "
                                               "exist"),
    (["--out", "docs"], "--out: docs is a directory"),
])
def test_option_errors_are_one_line(capsys, args, message):
    try:
        code = main(["--out", "-", *args, "--no-progress"])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("python -m training.ladder: error: ") and err.count("\n") == 1, err
    assert message in err


def test_pair_hands_of_a_missing_level_is_refused(capsys, hf_expert_missing):
    """A level missing for the variant (none is now) has no pair to give hands to."""
    assert main(["--out", "-", "--variant", "hand_and_foot", "--pair-hands", "expert=3",
                 "--no-progress"]) == 2
    assert ("--pair-hands expert: not a level with a level below it in hand_and_foot; use one "
            "of easy, medium, hard") in capsys.readouterr().err


def test_a_measured_file_of_no_pair_is_refused(tmp_path, capsys):
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps(fake_result("heuristic", "random")))
    assert main(["--measured", str(bad), "--out", "-"]) == 2
    assert ("a --measured result (heuristic vs random, classic, seed 7) is no pair of the "
            "classic ladder at seed 7") in capsys.readouterr().err
    bad.write_text("{}")
    assert main(["--measured", str(bad), "--out", "-"]) == 2
    assert "not the JSON of python -m training.evaluate --json" in capsys.readouterr().err


def test_the_record_is_written_only_when_asked(tmp_path, monkeypatch, capsys):
    """By default the ladder is printed, never written over docs/results/ladder.json;
    with --out it is printed first, so a file that cannot be written loses nothing."""
    import training.evaluation.ladder as ladder

    monkeypatch.setattr(ladder, "DEFAULT_OUT", tmp_path / "record.json")
    assert main(["--variant", "hand_and_foot", "--hands", "2", "--rating-hands", "0",
                 "--no-progress", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [p["upper"] for p in printed["pairs"]] == ["easy", "medium", "hard", "expert"]
    assert not (tmp_path / "record.json").exists()
    out = tmp_path / "ladder.json"
    out.write_text("[1, 2]")  # not a ladder file: refused after printing, kept as it was
    assert main(["--variant", "hand_and_foot", "--hands", "2", "--rating-hands", "0",
                 "--no-progress", "--json", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["pairs"] == printed["pairs"]
    assert "(the result is printed above)" in captured.err and out.read_text() == "[1, 2]"
