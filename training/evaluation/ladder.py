"""The evidence of the difficulty ladder (:mod:`canasta_env.bots.levels`): each level
against the level below it, and openskill ratings of every policy of the ladder.

    python -m training.ladder --variant classic --hands 1000 --seed 7 --json \\
        --out docs/results/ladder.json
    python -m training.ladder --variant hand_and_foot --hands 1000 --seed 7 --rating-hands 200
    python -m training.ladder --variant classic --hands 1000 --seed 7 \\
        --measured /tmp/search_vs_reference.json      # a pair measured before, not replayed

The chain is ``random`` (the floor: ``easy`` must beat it), then the variant's levels
that have a policy, weakest first. Each adjacent pair plays ``--hands`` duplicate hands
(:func:`training.evaluation.evaluate_policies`, the same figures as ``python -m
training.evaluate --a UPPER --b LOWER --hands N --seed S --variant V --json``, whose
command each row records) unless ``--pair-hands LEVEL=N`` gives the pair whose upper
level is ``LEVEL`` its own count (the search is slow), or a ``--measured`` file (the JSON
of such a ``training.evaluate`` run, possibly interrupted with Ctrl-C: the deals finished
are the first ones, so ``--hands`` of its hand count replays it exactly) holds that pair
(same policies, variant and seed). A pair meets the ladder's rule when its win rate is at
least :data:`canasta_env.bots.levels.MIN_GAP` (0.55) with its whole 95% CI
(:func:`gap_verdict`: ``yes``, ``no`` or ``not shown``).

Then, unless ``--rating-hands 0``, a round robin (:func:`training.evaluation.ratings.
round_robin`) of every distinct policy of the chain (a level plays its spec, so ``hard``
and ``reference`` are one player), ``--rating-hands`` hands per pair.

The result is printed, and with ``--out FILE`` (e.g. ``docs/results/ladder.json``, the
record of the docs) written into that file (checked before the first hand is played):
``{"variants": {VARIANT: result}, "tables": {...}}``, this variant's entries
replaced and the other variant's kept; ``python docs/results/tables.py`` then writes the
tables of docs/results/ladder.md from it. Exit codes: 0 done, 2 a bad option, policy or
file (one line on stderr), 130 interrupted (nothing written).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from canasta_env.bots.levels import LEVEL_NAMES, LEVELS, MIN_GAP, levels_of
from canasta_env.bots.loader import PolicySpecError, variant_hint
from canasta_env.cli import (
    ArgumentParser,
    fail,
    interrupted,
    nonnegative_int,
    positive_int,
    require_extra,
)

from .duplicate import evaluate_policies
from .ratings import round_robin

ROOT = Path(__file__).resolve().parents[2]
#: where the ladder's figures are kept (the data of docs/results/ladder.md)
DEFAULT_OUT = ROOT / "docs" / "results" / "ladder.json"
PROG = "python -m training.ladder"


def evaluate_command(a: str, b: str, hands: int, seed: int, variant: str) -> str:
    """The ``training.evaluate`` command that gives a pair's figures."""
    return (f"python -m training.evaluate --variant {variant} --a {a} --b {b} --hands {hands} "
            f"--seed {seed} --json")


def chain(variant: str) -> list[tuple[str, str]]:
    """``[(name, spec), ...]`` weakest first: ``("random", "random")``, then each level of
    ``variant`` that has a policy.

    Raises:
        ValueError: ``variant`` has no ladder (not a key of :data:`LEVELS`).
    """
    if variant not in LEVELS:
        raise ValueError(f"no ladder for variant {variant!r}; variants: {', '.join(LEVELS)}")
    return [("random", "random")] + [(d["level"], d["policy"]) for d in levels_of(variant)
                                     if d["policy"] is not None]


def read_measured(path: str) -> dict:
    """A ``training.evaluate --json`` result from ``path``.

    Raises:
        ValueError: the file cannot be read, is not JSON, or lacks the keys of an
            evaluation (``a``, ``b``, ``variant``, ``seed``, ``hands``, ``win_rate``, ...).
    """
    try:
        r = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"--measured {path}: {getattr(e, 'strerror', None) or e}") from None
    need = ("a", "b", "variant", "seed", "hands", "win_rate", "win_rate_ci",
            "mean_score_diff", "score_diff_ci")
    if not isinstance(r, dict) or any(k not in r for k in need):
        raise ValueError(f"--measured {path}: not the JSON of python -m training.evaluate "
                         f"--json (it needs the keys {', '.join(need)})")
    return r


def run_ladder(variant: str, hands: int, *, seed: int = 7, rating_hands: int = 0,
               pair_hands: dict[str, int] | None = None, measured: list[dict] = (),
               rating_exclude: tuple[str, ...] = (), workers: int = 1,
               progress: bool = False) -> dict:
    """Play (or take from ``measured``) each adjacent pair of :func:`chain` and rate the
    chain's policies.

    Args:
        hands: hands per pair (2 per deal), unless ``pair_hands[upper level]`` is given.
        rating_hands: hands per pair of the round robin; 0: no ratings.
        rating_exclude: levels whose policy the round robin leaves out (the search is
            slow: each of its pairs plays ``rating_hands`` hands).
        measured: ``training.evaluate --json`` results (:func:`read_measured`); one whose
            ``a``, ``b``, ``variant`` and ``seed`` are a pair's is used instead of
            playing it.

    Returns:
        ``{"variant", "seed", "min_gap", "levels": [{"level", "policy", "description"}],
        "pairs": [{"upper", "lower", "a", "b", "hands", "win_rate", "win_rate_ci",
        "mean_score_diff", "score_diff_ci", "meets_gap", "measured", "command"}],
        "ratings": None | {"ratings": [{"policy", "levels", "mu", "sigma", "ordinal"}],
        "pairs": [...], "hands_per_pair", "seed", "command"}}``

    Raises:
        ValueError: a bad count, a ``pair_hands`` or ``rating_exclude`` level that is
            no level of the chain, fewer than two policies left to rate, a
            ``measured`` result matching no pair; an unknown variant.
        PolicySpecError: a level's policy cannot be loaded (e.g. no onnxruntime).
        KeyboardInterrupt: Ctrl-C.
    """
    links = chain(variant)
    pair_hands = dict(pair_hands or {})
    uppers = [name for name, _ in links[1:]]
    for level, n in pair_hands.items():
        if level not in uppers:
            raise ValueError(f"--pair-hands {level}: not a level with a level below it in "
                             f"{variant}; use one of {', '.join(uppers)}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"--pair-hands {level}: hands must be a positive int, got {n!r}")
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
        raise ValueError(f"hands must be a positive int, got {hands!r}")
    for level in rating_exclude:
        if level not in uppers:
            raise ValueError(f"--rating-exclude {level}: not a level of the {variant} "
                             f"ladder; use one of {', '.join(uppers)}")
    specs = {(a, b) for (_, b), (_, a) in zip(links, links[1:])}
    for r in measured:
        if (r["a"], r["b"]) not in specs or r["variant"] != variant or r["seed"] != seed:
            raise ValueError(f"a --measured result ({r['a']} vs {r['b']}, {r['variant']}, "
                             f"seed {r['seed']}) is no pair of the {variant} ladder at seed "
                             f"{seed}; the pairs: "
                             + ", ".join(f"{a} vs {b}" for a, b in sorted(specs)))
    pairs = []
    for (lower, b), (upper, a) in zip(links, links[1:]):
        found = [r for r in measured if (r["a"], r["b"]) == (a, b)]
        if found:
            r = found[-1]
        else:
            r = evaluate_policies(a, b, pair_hands.get(upper, hands), variant=variant,
                                  seed=seed, workers=workers, progress=progress)
        n = int(r["hands"])
        pairs.append({"upper": upper, "lower": lower, "a": a, "b": b, "hands": n,
                      "win_rate": r["win_rate"], "win_rate_ci": list(r["win_rate_ci"]),
                      "mean_score_diff": r["mean_score_diff"],
                      "score_diff_ci": list(r["score_diff_ci"]),
                      "meets_gap": gap_verdict(r["win_rate"], r["win_rate_ci"]),
                      "measured": bool(found),
                      "command": evaluate_command(a, b, n, seed, variant)})
    ratings = None
    if rating_hands:
        left_out = {spec for name, spec in links if name in rating_exclude}
        players = list(dict.fromkeys(spec for _, spec in links if spec not in left_out))
        rr = round_robin(players, rating_hands, seed=seed, variant=variant, workers=workers,
                         progress=progress)
        for row in rr["ratings"]:
            row["levels"] = [name for name, spec in links[1:] if spec == row["policy"]]
        rr["command"] = (f"python -m training.ratings --variant {variant} --policies "
                         f"{' '.join(players)} --hands {rating_hands} --seed {seed} --json")
        ratings = rr
    return {"variant": variant, "seed": seed, "min_gap": MIN_GAP,
            "levels": levels_of(variant), "pairs": pairs, "ratings": ratings}


def gap_verdict(win_rate: float, ci: tuple[float, float] | list[float]) -> str:
    """Whether a pair meets the ladder's rule (win rate of the upper level at least
    :data:`MIN_GAP`): ``"yes"`` when the whole 95% interval ``ci`` is at or above it,
    ``"no"`` when the whole interval is below it, else ``"not shown"`` (the interval
    reaches both sides: too few hands to tell; ``win_rate`` is not needed for that)."""
    if ci[0] >= MIN_GAP:
        return "yes"
    return "no" if ci[1] < MIN_GAP else "not shown"


def tables_of(result: dict) -> dict:
    """The entries of ``ladder.json``'s ``"tables"`` for one variant's result: the pairs
    (``ladder-VARIANT``) and, when rated, the ratings (``ladder-VARIANT-ratings``), in the
    form docs/results/tables.py renders."""
    v = result["variant"]
    rows = []
    for p in result["pairs"]:
        lo, hi = p["win_rate_ci"]
        dlo, dhi = p["score_diff_ci"]
        rows.append({"cells": [f"{p['upper']} ({p['a']})", f"{p['lower']} ({p['b']})",
                               f"{p['hands']:,}", f"{p['win_rate']:.3f} ({lo:.3f}-{hi:.3f})",
                               f"{p['mean_score_diff']:+,.0f} ({dlo:+,.0f} to {dhi:+,.0f})",
                               p["meets_gap"]],
                     "command": p["command"]})
    out = {f"ladder-{v}": {"columns": ["level (policy)", "against the level below",
                                       "hands", "win rate (95% CI)",
                                       "mean score diff per hand (95% CI)",
                                       f"at least {result['min_gap']}"], "rows": rows}}
    rr = result.get("ratings")
    if rr:
        out[f"ladder-{v}-ratings"] = {
            "columns": ["policy", "levels", "mu", "sigma", "ordinal"],
            "rows": [{"cells": [x["policy"], ", ".join(x["levels"]) or "-", f"{x['mu']:.2f}",
                                f"{x['sigma']:.2f}", f"{x['ordinal']:.2f}"],
                      "command": rr["command"]} for x in rr["ratings"]]}
    return out


def write(result: dict, path: Path) -> None:
    """Put ``result`` into the ladder file at ``path`` (created if missing): this
    variant's result and tables replaced, the rest kept.

    Raises:
        ValueError: the file exists but is not a JSON object.
        OSError: it cannot be written.
    """
    data: dict = {"variants": {}, "tables": {}}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"--out {path}: not JSON ({e})") from None
        if not isinstance(data, dict):
            raise ValueError(f"--out {path}: not a JSON object")
    v = result["variant"]
    data.setdefault("variants", {})[v] = result
    tables = {k: t for k, t in data.setdefault("tables", {}).items()
              if not k.startswith(f"ladder-{v}")}
    tables.update(tables_of(result))
    data["tables"] = dict(sorted(tables.items()))
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _pair_hands(text: str) -> tuple[str, int]:
    import argparse

    level, sep, n = text.partition("=")
    level = level.strip().lower()
    if not sep or level not in LEVEL_NAMES:
        raise argparse.ArgumentTypeError(f"expected LEVEL=HANDS with LEVEL one of "
                                         f"{', '.join(LEVEL_NAMES)}, got {text!r}")
    return level, positive_int(n)


def format_table(r: dict) -> str:
    """The figures as plain text."""
    lines = [f"{r['variant']} ladder, seed {r['seed']}: win rate of the upper level per hand "
             f"(tie = 1/2), 95% CI; the rule: at least {r['min_gap']}"]
    for p in r["pairs"]:
        lo, hi = p["win_rate_ci"]
        lines.append(f"  {p['upper']} ({p['a']}) vs {p['lower']} ({p['b']}): "
                     f"{p['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] on {p['hands']} hands"
                     f"{'' if p['meets_gap'] == 'yes' else '  RULE ' + p['meets_gap'].upper()}")
    for d in r["levels"]:
        if d["policy"] is None:
            lines.append(f"  {d['level']}: {d['description']}")
    if r["ratings"]:
        lines.append(f"ratings ({r['ratings']['hands_per_pair']} hands per pair):")
        for x in r["ratings"]["ratings"]:
            lines.append(f"  {x['policy']:<24} {', '.join(x['levels']) or '-':<8} "
                         f"mu {x['mu']:6.2f}  sigma {x['sigma']:5.2f}  ordinal {x['ordinal']:6.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.ladder``; ``argv`` defaults to ``sys.argv[1:]``. Returns the
    exit code (see the module docstring).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    require_extra(PROG, "training", modules=("tqdm", "openskill"))
    p = ArgumentParser(prog=PROG, description="The difficulty ladder's evidence: each level "
                                              "against the one below, and ratings.")
    p.add_argument("--variant", default="classic", choices=sorted(LEVELS))
    p.add_argument("--hands", type=positive_int, default=1000,
                   help="hands per adjacent pair (2 per deal; default 1000)")
    p.add_argument("--seed", type=nonnegative_int, default=7)
    p.add_argument("--pair-hands", type=_pair_hands, action="append", default=[],
                   metavar="LEVEL=HANDS",
                   help="hands for the pair whose upper level is LEVEL (e.g. expert=200)")
    p.add_argument("--measured", action="append", default=[], metavar="FILE",
                   help="a python -m training.evaluate --json result to use for its pair "
                        "instead of playing it")
    p.add_argument("--rating-hands", type=int, default=200,
                   help="hands per pair of the openskill round robin (0: no ratings)")
    p.add_argument("--rating-exclude", action="append", default=[], metavar="LEVEL",
                   help="leave this level's policy out of the ratings (e.g. expert: the "
                        "search is slow)")
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--out", default=None,
                   help=f"also put the result into this ladder file (the docs' record: "
                        f"{DEFAULT_OUT.relative_to(DEFAULT_OUT.parents[2]).as_posix()}); by "
                        f"default only printed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.rating_hands < 0:
        p.error(f"argument --rating-hands: must be 0 (no ratings) or a positive int, got "
                f"{args.rating_hands}")
    levels = [lv for lv, _ in args.pair_hands]
    if len(set(levels)) != len(levels):
        p.error("argument --pair-hands: each level at most once")
    out = None if args.out in (None, "-") else Path(args.out)
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        p.error(f"argument --out: {out} is a directory" if out.is_dir() else
                f"argument --out: the folder {out.parent} does not exist")
    try:
        measured = [read_measured(f) for f in args.measured]
        r = run_ladder(args.variant, args.hands, seed=args.seed,
                       rating_hands=args.rating_hands, pair_hands=dict(args.pair_hands),
                       measured=measured, rating_exclude=tuple(args.rating_exclude),
                       workers=args.workers,
                       progress=not args.no_progress)
    except KeyboardInterrupt:
        return interrupted(p.prog, "nothing written")
    except (PolicySpecError, ValueError, OSError) as e:
        return fail(p.prog, variant_hint(e) if isinstance(e, ValueError) else e)
    # printed first: a file that cannot be written then loses nothing that was played
    print(json.dumps(r) if args.json else format_table(r), file=sys.stdout, flush=True)
    if out is not None:
        try:
            write(r, out)
        except (ValueError, OSError) as e:
            return fail(p.prog, f"--out {out}: {getattr(e, 'strerror', None) or e} (the "
                                f"result is printed above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
