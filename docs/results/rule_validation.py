"""Builds the table ``reference_rule_validation`` of robustness.json (page robustness.md,
"Points, not only hands") from the validation runs recorded beside it, and says whether
each candidate meets the rule its config states.

    python docs/results/rule_validation.py     # then: python docs/results/tables.py

For each NAME of :data:`RUNS`, robustness.json holds ``validation_NAME`` (the
``training.evaluate --json`` rows against the heuristic and random on seeds 100 / 101,
recorded with record.py) and ``validation_panel_NAME`` (``training.evaluation.panel
--json`` on seed 100, the six styles, baseline heuristic). The rule, from each
candidate's config (configs/classic_reference_points.yaml, configs/classic_reference_mixed.yaml,
configs/classic_reference_points_random.yaml):
it replaces the shipped reference if (1) it is better than the heuristic against at least
as many styles and its smallest paired difference is larger, (2) its mean win rate against
the heuristic is at least the shipped's minus 0.01, (3) its mean win rate against random is
at least 0.97 or at least the shipped's. Exit codes: 0 written, 2 a missing table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "robustness.json"
#: name in the data -> the row's label; the first, "shipped", is what each rule compares with
RUNS = {
    "shipped": "shipped reference (58.3M steps, win/loss)",
    "points": "score_diff run (66.3M)",
    "mixed": "win_loss_score run (66.3M)",
    "points_random": "score_diff run, then random-heavy (70.3M)",
}
COLUMNS = ["policy", "styles where better than the heuristic (seed 100)",
           "smallest paired difference (95% CI), style", "vs heuristic, seeds 100 / 101 (mean)",
           "mean score diff vs heuristic, 100 / 101", "vs random, seeds 100 / 101 (mean)",
           "mean score diff vs random, 100 / 101", "rule (1) / (2) / (3)"]


def _rate(x: float) -> str:
    return f"{x:.5f}".rstrip("0").rstrip(".")


def _points(x: float) -> str:
    return f"{x:+,.0f}"


def summary(tables: dict, name: str) -> dict:
    """The figures the rule reads for run ``name``."""
    rows = {(r["opponent"], r["seed"]): r for r in tables[f"validation_{name}"]["rows"]}
    panel = tables[f"validation_panel_{name}"]
    worst = min(panel["result"]["opponents"], key=lambda o: o["paired_diff"])
    return {
        "better": sum(o["better"] for o in panel["result"]["opponents"]),
        "worst": worst,
        "heuristic": [rows["heuristic", s] for s in (100, 101)],
        "random": [rows["random", s] for s in (100, 101)],
        "commands": [panel["command"], rows["heuristic", 100]["command"]],
    }


def mean(rows: list[dict]) -> float:
    return sum(r["win_rate"] for r in rows) / len(rows)


def main() -> int:
    data = json.loads(DATA.read_text())
    tables = data["tables"]
    try:
        runs = {name: summary(tables, name) for name in RUNS}
    except KeyError as e:
        print(f"rule_validation: {DATA.name} has no table or row {e}", file=sys.stderr)
        return 2
    base = runs["shipped"]
    out = []
    for name, s in runs.items():
        lo, hi = s["worst"]["paired_diff_ci"]
        if name == "shipped":
            verdict = "-"
        else:
            one = s["better"] >= base["better"] and \
                s["worst"]["paired_diff"] > base["worst"]["paired_diff"]
            two = mean(s["heuristic"]) >= mean(base["heuristic"]) - 0.01
            three = mean(s["random"]) >= 0.97 or mean(s["random"]) >= mean(base["random"])
            verdict = " / ".join("met" if c else "missed" for c in (one, two, three))
        h, r = s["heuristic"], s["random"]
        cells = [RUNS[name], f"{s['better']} of 6",
                 f"{_points(s['worst']['paired_diff'])} ({_points(lo)} to {_points(hi)}), "
                 f"{s['worst']['opponent'].removeprefix('style:')}",
                 f"{_rate(h[0]['win_rate'])} / {_rate(h[1]['win_rate'])} ({_rate(mean(h))})",
                 f"{_points(h[0]['mean_score_diff'])} / {_points(h[1]['mean_score_diff'])}",
                 f"{_rate(r[0]['win_rate'])} / {_rate(r[1]['win_rate'])} ({_rate(mean(r))})",
                 f"{_points(r[0]['mean_score_diff'])} / {_points(r[1]['mean_score_diff'])}",
                 verdict]
        out.append({"cells": cells, "command": "; ".join(s["commands"]) +
                    " (and --seed 101, --b random)"})
    for row in out[1:]:
        print(f"{row['cells'][0]}: rule (1) / (2) / (3) {row['cells'][-1]}")
    tables["reference_rule_validation"] = {"columns": COLUMNS, "rows": out}
    DATA.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{DATA.name}: reference_rule_validation written; now: python docs/results/tables.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
