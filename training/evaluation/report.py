"""``python -m training.evaluate`` (``canasta-evaluate``): the command line of a
duplicate evaluation and its table (:func:`format_table`). What it plays and reports is
:mod:`training.evaluation.duplicate`'s docstring.
"""

from __future__ import annotations

import json

from canasta_env.bots.loader import PolicySpecError, spec_names, variant_hint
from canasta_env.cli import ArgumentParser, fail, interrupted, positive_int, require_extra

from .duplicate import EvaluationInterrupted, evaluate_policies
from .episodes import DEFAULT_BATCH


def format_table(r: dict) -> str:
    """The figures as a plain-text table."""
    unit = r["unit"]
    lo, hi = r["win_rate_ci"]
    dlo, dhi = r["score_diff_ci"]
    rows = [
        (f"{unit}s played", f"{r['episodes']} ({r['deals']} deals x 2 seatings)"
         + (f", {r['hands']} hands" if unit == "game" else "")),
        ("A / B", f"{r['a']} / {r['b']}"),
        ("A wins / ties / losses", f"{r['wins']} / {r['ties']} / {r['losses']}"),
        ("win rate of A (tie = 1/2)", f"{r['win_rate']:.3f}  95% CI [{lo:.3f}, {hi:.3f}]"),
        (f"mean score diff A-B per {unit}",
         f"{r['mean_score_diff']:+.1f}  95% CI [{dlo:+.1f}, {dhi:+.1f}]"),
        ("mean hand score A / B", f"{r['mean_hand_score_a']:.1f} / {r['mean_hand_score_b']:.1f}"),
        ("went out A / B", f"{r['went_out_a']:.3f} / {r['went_out_b']:.3f}"),
    ]
    for side in ("a", "b"):
        parts = []
        for lv, rate in r[f"opening_success_{side}"].items():
            n = r[f"opening_hands_{side}"][lv]
            parts.append(f"{lv}: " + ("  n/a" if rate is None else f"{rate:.3f}") + f" (n={n})")
        rows.append((f"opening success {side.upper()} by minimum", ", ".join(parts)))
    rows.append(("decisions per hand", f"{r['decisions_per_hand']:.1f}"))
    if r["truncated"]:
        rows.append(("truncated / stuck (left out)", f"{r['truncated']} / {r['stuck']}"))
    rows.append(("time", f"{r['seconds']:.1f} s, {r['workers']} worker(s), seed {r['seed']}"))
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.evaluate`` (``canasta-evaluate``); ``argv`` defaults to
    ``sys.argv[1:]``. Returns the exit code: 0, 2 for a bad policy or count (one line on
    stderr), 130 after Ctrl-C (the table of the deals finished is printed).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    require_extra("python -m training.evaluate", "training", modules=("tqdm",))
    p = ArgumentParser(prog="python -m training.evaluate",
                       description="Duplicate-deal evaluation of policy A against B.")
    p.add_argument("--a", required=True,
                   help=f"policy A: {spec_names()}, a checkpoint path "
                        "or module:attribute (a policy class or object of your own)")
    p.add_argument("--b", required=True,
                   help=f"policy B: {spec_names()}, a checkpoint path "
                        "or module:attribute (a policy class or object of your own)")
    p.add_argument("--hands", type=positive_int, default=None,
                   help="hands to play (2 per deal; default 1000)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="play this many whole games instead of single hands (Classic: to "
                        "5,000; Hand and Foot: four rounds)")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH,
                   help=f"deals played side by side per worker, one policy call per step for "
                        f"all of them (default {DEFAULT_BATCH}; the figures do not depend on it)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.hands is not None and args.games is not None:
        p.error("give --hands or --games, not both")
    try:
        r = evaluate_policies(args.a, args.b, 1000 if args.hands is None else args.hands,
                              games=args.games, variant=args.variant, seed=args.seed,
                              workers=args.workers, progress=not args.no_progress,
                              batch=args.batch)
    except EvaluationInterrupted as stop:
        r, played = stop.result, len(stop.episodes) // 2
        if args.json:
            print(json.dumps(r))
        else:
            print(f"interrupted: {played} of {stop.deals} deals played (both seatings); "
                  f"the figures of those deals:")
            print(format_table(r))
        return interrupted(p.prog, f"{played} of {stop.deals} deals finished")
    except KeyboardInterrupt:  # while the policies load, before any deal
        return interrupted(p.prog, "before the first deal")
    except (PolicySpecError, ValueError) as e:
        return fail(p.prog, variant_hint(e, specs=(args.a, args.b)))
    print(json.dumps(r) if args.json else format_table(r))
    return 0
