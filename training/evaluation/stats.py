"""The figures of a duplicate evaluation from its records: win rates with Wilson
intervals, mean score differences with normal intervals over deals, opening success per
opening minimum (:func:`summarize`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from canasta_env.engine import preset

from .episodes import EpisodeRecord

Z95 = 1.959963984540054


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` over ``n`` trials."""
    if n == 0:
        return (0.0, 1.0)
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = 0.0 if p <= 0 else max(0.0, mid - half)
    hi = 1.0 if p >= 1 else min(1.0, mid + half)
    return (lo, hi)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, tuple[float, float]]:
    """Mean and normal-approximation interval (``z`` standard errors)."""
    n = len(values)
    if n == 0:
        return 0.0, (0.0, 0.0)
    m = math.fsum(values) / n
    if n < 2:
        return m, (m, m)
    var = math.fsum((x - m) ** 2 for x in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return m, (m - half, m + half)


def summarize(episodes: Sequence[EpisodeRecord], levels: Sequence[int],
              unit: str = "hand") -> dict:
    """The evaluation figures (see :mod:`training.evaluation.duplicate`) of played episodes, in the
    order played."""
    done = [e for e in episodes if not e.truncated]
    n = len(done)
    wins = sum(1 for e in done if e.diff > 0)
    ties = sum(1 for e in done if e.diff == 0)
    losses = n - wins - ties
    win_rate = (wins + 0.5 * ties) / n if n else 0.0
    by_deal: dict[int, list[int]] = {}
    for e in done:
        by_deal.setdefault(e.deal, []).append(e.diff)
    mean_diff = math.fsum(e.diff for e in done) / n if n else 0.0
    _, deal_ci = mean_ci([sum(v) / len(v) for v in by_deal.values()])
    hands = [h for e in done for h in e.hands]
    opening: dict[str, dict[str, float | None]] = {}
    counts: dict[str, dict[str, int]] = {}
    for side in ("a", "b"):
        rates: dict[str, float | None] = {}
        cnt: dict[str, int] = {}
        for lv in levels:
            sel = [getattr(h, f"opened_{side}") for h in hands if getattr(h, f"minimum_{side}") == lv]
            cnt[str(lv)] = len(sel)
            rates[str(lv)] = (sum(sel) / len(sel)) if sel else None
        opening[side], counts[side] = rates, cnt
    nh = len(hands)
    out = {
        "unit": unit,
        "hands": nh,
        "deals": len(by_deal),
        "episodes": n,
        "truncated": len(episodes) - n,
        "stuck": sum(1 for e in episodes if e.stuck),
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": win_rate,
        "win_rate_ci": list(wilson(win_rate, n)),
        "mean_score_diff": mean_diff,
        "score_diff_ci": list(deal_ci),
        "mean_hand_score_a": math.fsum(h.score_a for h in hands) / nh if nh else 0.0,
        "mean_hand_score_b": math.fsum(h.score_b for h in hands) / nh if nh else 0.0,
        "went_out_a": sum(h.went_out == "A" for h in hands) / nh if nh else 0.0,
        "went_out_b": sum(h.went_out == "B" for h in hands) / nh if nh else 0.0,
        "opening_success_a": opening["a"],
        "opening_success_b": opening["b"],
        "opening_hands_a": counts["a"],
        "opening_hands_b": counts["b"],
        "decisions_per_hand": math.fsum(h.decisions for h in hands) / nh if nh else 0.0,
    }
    if unit == "game":
        out["games"] = n
        out["hand_mean_score_diff"] = math.fsum(h.diff for h in hands) / nh if nh else 0.0
    return out


def opening_levels(variant: str = "classic") -> list[int]:
    """The opening minimums (points) of a variant, lowest first (Hand and Foot: by
    round)."""
    o = preset(variant)
    return sorted(set(o.round_minimums)) if o.round_minimums else \
        [m for _, m in o.opening_minimums]
