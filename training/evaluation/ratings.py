"""Ratings for a pool of policies: a round robin of duplicate-deal matches rated with
openskill (Plackett-Luce).

    python -m training.ratings --policies random heuristic checkpoints/run/model.zip --hands 400
    python -m training.ratings --policies heuristic mybots:MyPolicy --hands 400

A policy is any spec of :func:`canasta_env.bots.load_policy`, ``module:attribute`` (a
policy of your own, :mod:`canasta_env.bots.outside`) included.

Every pair of policies plays ``--hands`` hands on duplicate deals
(:func:`training.evaluation.play_match`, the same deals for every pair). Each hand is one
openskill match between the two policies (each a one-member team; both partners of a
partnership are the same policy): the higher hand score ranks first, equal scores tie.
The hands of all pairs are rated interleaved (hand 1 of every pair, then hand 2, ...) so
that no pair is rated entirely before another; the result depends only on ``--seed``.

The table lists mu, sigma and the ordinal (mu - 3 sigma, the conservative skill) per
policy, best ordinal first, and each pair's win rate and mean score difference.

Every policy is loaded and checked against ``--variant`` before the first deal
(:func:`canasta_env.bots.loader.check_policy_variant`; ``reference`` is the variant's
reference policy). Exit codes: 0 done,
2 a bad option or policy (one line on stderr), 130 interrupted (Ctrl-C; nothing is rated).
"""

from __future__ import annotations

import itertools
import json
import sys

from canasta_env.bots.loader import PolicySpecError, load_policy, spec_names, variant_hint
from canasta_env.cli import ArgumentParser, fail, interrupted, positive_int, require_extra

from .duplicate import play_match
from .episodes import DEFAULT_BATCH, check_batch
from .stats import opening_levels, summarize


def round_robin(policies: list[str], hands: int, *, seed: int = 0, variant: str = "classic",
                workers: int = 1, progress: bool = False, batch: int = DEFAULT_BATCH) -> dict:
    """Play every pair of ``policies`` (specs) and rate them.

    Returns:
        ``{"ratings": [{"policy", "mu", "sigma", "ordinal"}, ...] (best first),
        "pairs": [{"a", "b", "win_rate", "win_rate_ci", "mean_score_diff",
        "score_diff_ci", "hands"}, ...], "hands_per_pair": int, "seed": int}``

    Args:
        batch: deals played side by side per process (:func:`training.evaluation.play_deals`;
            the ratings do not depend on it).

    Raises:
        ValueError: fewer than two policies, a repeated policy, a bad count or
            ``batch``; an unknown variant (``canasta_env.engine.OptionsError``).
        PolicySpecError: a spec names no policy.
        PolicyVariantError: a policy was built for another variant (a
            ``PolicySpecError``); raised before the first deal.
        training.evaluation.EvaluationInterrupted: Ctrl-C (a ``KeyboardInterrupt``).
    """
    from openskill.models import PlackettLuce

    if len(policies) < 2:
        raise ValueError("ratings need at least two policies")
    if len(set(policies)) != len(policies):
        raise ValueError(f"each policy may appear once, got {policies}")
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
        raise ValueError(f"hands must be a positive int, got {hands!r}")
    check_batch(batch)
    for spec in policies:  # fail before playing anything, a policy of another variant too
        load_policy(spec, variant=variant)
    deals = (hands + 1) // 2
    pairs = list(itertools.combinations(policies, 2))
    results = {}
    for a, b in pairs:
        results[a, b] = play_match(a, b, deals, seed=seed, variant=variant, workers=workers,
                                   progress=progress, batch=batch)
    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in policies}
    for k in range(2 * deals):
        for a, b in pairs:
            e = results[a, b][k]
            if e.truncated:
                continue
            ranks = [0, 0] if e.diff == 0 else [0, 1] if e.diff > 0 else [1, 0]
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    table = sorted(({"policy": p, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}
                    for p, r in ratings.items()), key=lambda d: -d["ordinal"])
    levels = opening_levels(variant)
    pair_rows = []
    for a, b in pairs:
        s = summarize(results[a, b], levels)
        pair_rows.append({"a": a, "b": b, "win_rate": s["win_rate"],
                          "win_rate_ci": s["win_rate_ci"], "mean_score_diff": s["mean_score_diff"],
                          "score_diff_ci": s["score_diff_ci"], "hands": s["hands"]})
    return {"ratings": table, "pairs": pair_rows, "hands_per_pair": 2 * deals, "seed": seed}


def format_table(r: dict) -> str:
    lines = []
    w = max(len("policy"), *(len(x["policy"]) for x in r["ratings"]))
    lines.append(f"{'policy':<{w}}  {'mu':>7}  {'sigma':>6}  {'ordinal':>7}")
    for x in r["ratings"]:
        lines.append(f"{x['policy']:<{w}}  {x['mu']:7.2f}  {x['sigma']:6.2f}  {x['ordinal']:7.2f}")
    lines.append("")
    lines.append(f"pairs ({r['hands_per_pair']} hands each, seed {r['seed']}): win rate of A "
                 "(tie = 1/2), mean score diff A-B per hand, 95% CIs")
    for p in r["pairs"]:
        lo, hi = p["win_rate_ci"]
        dlo, dhi = p["score_diff_ci"]
        lines.append(f"  {p['a']} vs {p['b']}: {p['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
                     f"{p['mean_score_diff']:+.1f} [{dlo:+.1f}, {dhi:+.1f}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.ratings``; ``argv`` defaults to ``sys.argv[1:]``. Returns the
    exit code: 0, 2 for a bad policy or count (one line on stderr), 130 after Ctrl-C.

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    require_extra("python -m training.ratings", "training", modules=("tqdm", "openskill"))
    p = ArgumentParser(prog="python -m training.ratings",
                       description="Round-robin openskill ratings of a policy pool.")
    p.add_argument("--policies", nargs="+", required=True,
                   help=f"two or more of: {spec_names()}, policy file paths, "
                        "module:attribute (a policy class or object of your own)")
    p.add_argument("--hands", type=positive_int, default=200, help="hands per pair (2 per deal; default 200)")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=positive_int, default=1)
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH,
                   help=f"deals played side by side per worker (default {DEFAULT_BATCH}; the "
                        f"ratings do not depend on it)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        r = round_robin(args.policies, args.hands, seed=args.seed, variant=args.variant,
                        workers=args.workers, progress=not args.no_progress,
                        batch=args.batch)
    except KeyboardInterrupt:
        return interrupted(p.prog, "no ratings (a round robin is rated only when complete)")
    except (PolicySpecError, ValueError) as e:
        return fail(p.prog, variant_hint(e, specs=args.policies))
    print(json.dumps(r) if args.json else format_table(r), file=sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
