"""Records ``python -m training.evaluate ... --json`` results as rows of an evaluation table.

    python -m training.evaluate --a search_reference --b heuristic --hands 1000 --seed 7 \\
        --json > /tmp/sr_heuristic_7.json
    python docs/results/record.py search.json search_reference /tmp/sr_heuristic_7.json
    python docs/results/tables.py

Each EVALUATION file (evaluate's JSON, one object) becomes one row of table TABLE in the
data file DATA (a ``*.json`` beside this script): ``opponent`` (evaluate's ``b``),
``seed``, the win rate and score difference with their 95% intervals, the opening success
of side A at each opening minimum of the variant, and the ``training.evaluate`` command
that gives exactly these figures (built from the file's own ``a``, ``b``, ``hands``,
``seed`` and ``variant``). A row with the same command (``--workers`` aside) is replaced,
others are kept; every row of a table has the same side A; a missing table is created
(kind ``evaluation``, see docs/results/tables.py). ``--note``
adds a short note after the opponent. ``--by-policy`` records a comparison of policies
instead: side A may differ from row to row and is shown in a first column, while every
row has the same opponent, seed, hands and variant (the same deals); a table is one kind
or the other for good.

Every file is read and checked before DATA is written; DATA is replaced in one step.
Exit codes: 0 written, 2 a bad argument or file (one line on stderr).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repo, installed or not
from canasta_env.cli import ArgumentParser  # noqa: E402 - errors as one line

#: the fields of evaluate's JSON a row needs
NEEDED = ("a", "b", "hands", "seed", "variant", "unit", "win_rate", "win_rate_ci",
          "mean_score_diff", "score_diff_ci", "opening_success_a")


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _same(command_a: str, command_b: str) -> bool:
    """Whether two evaluate commands give the same figures (``--workers`` does not
    change them)."""
    strip = re.compile(r" --workers \d+")
    return strip.sub("", command_a) == strip.sub("", command_b)


def _flag(command_text: str, name: str, default: str | None = None) -> str | None:
    """The value of ``--name`` in an evaluate command, or ``default``."""
    m = re.search(rf" --{name} (\S+)", command_text)
    return m[1] if m else default


def _a_of(command_text: str) -> str | None:
    return _flag(command_text, "a")


def _deals(r: dict) -> tuple:
    """What makes two rows' deals the same: opponent, seed, hands, variant."""
    return (r["opponent"], r["seed"], _flag(r["command"], "hands"),
            _flag(r["command"], "variant", "classic"))


def command(ev: dict) -> str:
    """The ``training.evaluate`` command whose output ``ev`` is (hand units)."""
    variant = "" if ev["variant"] == "classic" else f" --variant {ev['variant']}"
    return (f"python -m training.evaluate{variant} --a {ev['a']} --b {ev['b']} "
            f"--hands {ev['hands']} --seed {ev['seed']} --json")


def row(ev: dict, note: str | None = None) -> tuple[list[int], dict]:
    """(the opening minimums, the table row) of one evaluation.

    Raises:
        ValueError: a field is missing, or the evaluation is of whole games.
    """
    if not isinstance(ev, dict):
        raise ValueError(f"not the JSON of python -m training.evaluate --json: a "
                         f"{type(ev).__name__}, not an object")
    missing = [k for k in NEEDED if k not in ev]
    if missing:
        raise ValueError(f"not the JSON of python -m training.evaluate --json: no "
                         f"{', '.join(missing)}")
    if ev["unit"] != "hand":
        raise ValueError(f"only hand evaluations are recorded here, got unit {ev['unit']!r}")
    for key in ("hands", "seed"):
        if not isinstance(ev[key], int) or isinstance(ev[key], bool) or ev[key] < 0 or \
                (key == "hands" and ev[key] < 1):
            raise ValueError(f"{key} must be a {'positive' if key == 'hands' else 'non-negative'}"
                             f" int, got {ev[key]!r}")
    numbers = [ev["win_rate"], ev["mean_score_diff"], *ev["win_rate_ci"], *ev["score_diff_ci"]]
    if not all(_finite(x) for x in numbers) or len(numbers) != 6:
        raise ValueError("win_rate, mean_score_diff and their two-number intervals must be "
                         "finite numbers")
    rates = ev["opening_success_a"]
    if not isinstance(rates, dict) or not all(x is None or _finite(x) for x in rates.values()):
        raise ValueError("opening_success_a must map each opening minimum to a rate or null")
    levels = sorted(int(k) for k in ev["opening_success_a"])
    out = {"opponent": ev["b"], "seed": ev["seed"], "win_rate": round(ev["win_rate"], 4),
           "win_rate_ci": [round(x, 3) for x in ev["win_rate_ci"]],
           "mean_score_diff": round(ev["mean_score_diff"]),
           "score_diff_ci": [round(x) for x in ev["score_diff_ci"]],
           # null: no hand of side A met that opening minimum
           "opening_success": [None if rates[str(lv)] is None else round(rates[str(lv)], 3)
                               for lv in levels],
           "command": command(ev)}
    if note:
        out["note"] = note
    return levels, out


def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="python docs/results/record.py",
                       description=__doc__.split("\n")[0])
    p.add_argument("data", help="the data file beside this script, e.g. search.json")
    p.add_argument("table", help="the table's name in it, e.g. search_reference")
    p.add_argument("evaluations", nargs="+", type=Path, metavar="EVALUATION",
                   help="files of python -m training.evaluate ... --json output")
    p.add_argument("--note", default=None, help="a short note after each row's opponent")
    p.add_argument("--by-policy", action="store_true",
                   help="a comparison: side A may differ between rows (a first column)")
    args = p.parse_args(argv)
    if args.note is not None and (not args.note.strip() or
                                  any(c in args.note for c in "\n\r|`")):
        p.error("--note: one line of text without | or ` characters")
    data_path = HERE / args.data
    if data_path.parent != HERE or data_path.suffix != ".json":
        p.error(f"data: a .json file name beside this script, got {args.data!r}")
    if not args.table.replace("_", "").replace("-", "").isalnum():
        p.error(f"table: letters, digits, _ and - only, got {args.table!r}")
    try:
        data = json.loads(data_path.read_text(encoding="utf-8")) if data_path.exists() \
            else {"tables": {}}
    except (OSError, json.JSONDecodeError) as e:
        p.error(f"{data_path.name}: cannot be read ({e})")
    table = data.setdefault("tables", {}).get(args.table)
    if table is not None and table.get("kind") != "evaluation":
        p.error(f"{args.data}: table {args.table!r} is not an evaluation table")
    if table is not None and table.get("by_policy", False) not in (True, False):
        p.error(f"{args.data}: table {args.table!r} has by_policy "
                f"{table.get('by_policy')!r}, not true or false")
    if table is not None and table.get("by_policy", False) != args.by_policy:
        p.error(f"{args.data}: table {args.table!r} is "
                f"{'' if table.get('by_policy') else 'not '}a comparison of policies: "
                f"{'add' if table.get('by_policy') else 'leave out'} --by-policy")
    rows = []
    levels = table["levels"] if table else None
    for path in args.evaluations:
        try:
            ev = json.loads(path.read_text(encoding="utf-8"))
            lv, r = row(ev, args.note)
            ev_a = ev["a"]
            if not isinstance(ev_a, str) or not re.fullmatch(r"[^\s`|]+", ev_a):
                raise ValueError(f"side A must be a policy spec without spaces, ` or |, "
                                 f"got {ev_a!r}")
        except (OSError, json.JSONDecodeError, ValueError, TypeError, KeyError) as e:
            p.error(f"{path}: {e}")
        if levels is not None and lv != levels:
            p.error(f"{path}: opening minimums {lv}, the table has {levels} (another variant?)")
        levels = lv
        if any(_same(r["command"], x["command"]) for x in rows):
            p.error(f"{path}: the same evaluation as another file given ({r['command']})")
        if args.by_policy:
            r["a"] = ev_a
            others = (table["rows"] if table else []) + rows
            if any(_deals(x) != _deals(r) for x in others):
                p.error(f"{path}: a comparison plays every policy on the same deals: the "
                        f"same opponent, seed, hands and variant as the table's rows "
                        f"({others[0]['command']})")
        sides = {_a_of(x["command"]) for x in (table["rows"] if table else [])} | \
            {_a_of(x["command"]) for x in rows}
        if not args.by_policy and len(sides | {_a_of(r["command"])}) > 1:
            p.error(f"{path}: side A is {_a_of(r['command'])}; the table {args.table!r} "
                    f"records {', '.join(sorted(s for s in sides if s))}")
        rows.append(r)
    table = table or {"kind": "evaluation", "levels": levels, "rows": [],
                      **({"by_policy": True} if args.by_policy else {})}
    table["rows"] = [x for x in table["rows"]
                     if not any(_same(x["command"], r["command"]) for r in rows)] + rows
    data["tables"][args.table] = table
    fd, tmp = tempfile.mkstemp(dir=HERE, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=1, allow_nan=False) + "\n")
    os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the records are for everyone to read
    os.replace(tmp, data_path)
    print(f"{data_path.name}: table {args.table}, {len(rows)} row(s) recorded; now: "
          f"python docs/results/tables.py", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
