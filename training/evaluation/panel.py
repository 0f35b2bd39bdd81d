"""Is a policy better than a baseline against every opponent of a panel? Paired on the
same deals.

    python -m training.evaluation.panel --a reference --baseline heuristic \\
        --opponents style:fast_opener style:pile_hoarder ... --hands 1000 --seed 7 [--json]

For each opponent ``S`` of the panel, ``A`` and the baseline ``B`` each play the same
duplicate deals against ``S`` (:func:`training.evaluation.play_match`, the same seed:
deal ``d`` is the same cards for both, each deal played twice with the partnerships'
seats swapped). Per deal, each side's score difference against ``S`` is the mean of its
two seatings (points per hand); the paired difference ``A - B`` per deal then has its
mean and 95% confidence interval over the deals. ``A`` is better than ``B`` against
``S`` when that interval lies above 0. Win rates against ``S`` are reported beside it.

This is the figure by which the issue of robust opponents judges a trained policy: a
network that only learned to beat its teacher (the heuristic) is no better than the
heuristic against opponents it never met.

Exit codes: 0 done, 2 a bad option or policy (one line on stderr), 130 interrupted.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from canasta_env.bots.loader import PolicySpecError
from canasta_env.cli import (
    ArgumentParser,
    fail,
    interrupted,
    nonnegative_int,
    positive_int,
    require_extra,
)

from .duplicate import EvaluationInterrupted, play_match
from .episodes import DEFAULT_BATCH
from .stats import mean_ci, wilson


def _per_deal(episodes, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(score difference of A per deal, mean of the two seatings; hands won by A per deal,
    ties 1/2) from ``play_match``'s records (two per deal)."""
    diff = np.zeros(deals)
    won = np.zeros(deals)
    for e in episodes:
        diff[e.deal] += e.diff / 2
        won[e.deal] += (e.diff > 0) + 0.5 * (e.diff == 0)
    return diff, won


def compare(a: str, baseline: str, opponents: list[str], hands: int, *, seed: int = 0,
            variant: str = "classic", workers: int = 1, progress: bool = False,
            batch: int = DEFAULT_BATCH) -> dict:
    """``a`` against ``baseline`` across ``opponents`` (see the module docstring).

    Args:
        a, baseline: policy specs (:func:`canasta_env.bots.load_policy`).
        opponents: the panel's specs.
        hands: hands against each opponent, per side (rounded up to whole deals: two
            hands each).

    Returns:
        ``{"a", "baseline", "hands", "seed", "variant", "opponents": [{"opponent",
        "a_win_rate", "a_win_rate_ci", "baseline_win_rate", "baseline_win_rate_ci",
        "a_mean_score_diff", "baseline_mean_score_diff", "paired_diff",
        "paired_diff_ci", "better"}, ...], "better_against_all": bool}``: score
        differences in points per hand; ``better`` when the paired interval is above 0.

    Raises:
        ValueError: bad counts; PolicySpecError: a spec names no policy or another
        variant's; EvaluationInterrupted: Ctrl-C.
    """
    if not opponents:
        raise ValueError("the panel needs at least one opponent")
    deals = (hands + 1) // 2
    if deals < 2:  # one deal: an interval of width 0, "better" from a single deal
        raise ValueError(f"--hands {hands}: at least 3 hands (two deals) for a paired "
                         f"interval per opponent")
    rows = []
    for opp in opponents:
        per = {}
        for name, spec in (("a", a), ("baseline", baseline)):
            episodes = play_match(spec, opp, deals, seed=seed, variant=variant,
                                  workers=workers, progress=progress, batch=batch)
            per[name] = _per_deal(episodes, deals)
        paired, (lo, hi) = mean_ci(per["a"][0] - per["baseline"][0])
        row = {"opponent": opp}
        for name in ("a", "baseline"):
            diff, won = per[name]
            rate = float(won.sum() / (2 * deals))
            row[f"{name}_win_rate"] = rate
            row[f"{name}_win_rate_ci"] = list(wilson(rate, 2 * deals))
            row[f"{name}_mean_score_diff"] = float(diff.mean())
        row.update(paired_diff=float(paired), paired_diff_ci=[float(lo), float(hi)],
                   better=bool(lo > 0))
        rows.append(row)
    return {"a": a, "baseline": baseline, "hands": 2 * deals, "seed": seed,
            "variant": variant, "opponents": rows,
            "better_against_all": all(r["better"] for r in rows)}


def format_table(res: dict) -> str:
    """The comparison as text, one line per opponent."""
    lines = [f"{res['a']} vs {res['baseline']} against each opponent, {res['hands']} hands "
             f"each (seed {res['seed']}); paired score difference per hand, 95% CI:"]
    for r in res["opponents"]:
        lo, hi = r["paired_diff_ci"]
        lines.append(f"  {r['opponent']:<28} A {r['a_win_rate']:.3f} ({r['a_mean_score_diff']:+.0f})"
                     f"  B {r['baseline_win_rate']:.3f} ({r['baseline_mean_score_diff']:+.0f})"
                     f"  A-B {r['paired_diff']:+.0f} [{lo:+.0f}, {hi:+.0f}]"
                     f"{'  better' if r['better'] else ''}")
    lines.append("better against every opponent" if res["better_against_all"] else
                 "not better against every opponent")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.evaluation.panel``; returns the exit code."""
    require_extra("python -m training.evaluation.panel", "training", modules=("tqdm",))
    p = ArgumentParser(prog="python -m training.evaluation.panel",
                       description="Is a policy better than a baseline against every opponent "
                                   "of a panel? "
                                  "Paired on the same deals.")
    p.add_argument("--a", required=True, help="the policy to judge")
    p.add_argument("--baseline", default="heuristic", help="what it must beat (heuristic)")
    p.add_argument("--opponents", nargs="+", required=True, help="the panel's policy specs")
    p.add_argument("--hands", type=positive_int, default=1000,
                   help="hands per opponent and side (1000)")
    p.add_argument("--seed", type=nonnegative_int, default=0)
    p.add_argument("--variant", default="classic")
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        res = compare(args.a, args.baseline, args.opponents, args.hands, seed=args.seed,
                      variant=args.variant, workers=args.workers,
                      progress=not args.no_progress)
    except EvaluationInterrupted:
        return interrupted(p.prog, "no comparison (each opponent's deals must all be played)")
    except (PolicySpecError, ValueError) as e:
        return fail(p.prog, e)
    print(json.dumps(res, indent=1) if args.json else format_table(res))
    return 0


__all__ = ["compare", "format_table", "main"]

if __name__ == "__main__":
    sys.exit(main())
