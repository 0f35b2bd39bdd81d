"""Decision-time search on the native core, and the data it teaches a network with.

    python -m training.search play --variant classic --deals 100 --seed 7
    python -m training.search play --deals 2000 --actor checkpoints/reference/classic.zip \\
        --record /tmp/search_a.npz --workers 2
    python -m training.search distill --init checkpoints/reference/classic.zip \\
        --data /tmp/search_a.npz --out /tmp/distilled.zip

**The search** (:func:`canasta_env.native.search_values`, core/search.c): for the seat on
turn, every legal action is tried on the same ``determinisations`` deals of the cards that
seat cannot see (the other hands less their known cards, the stock, the feet not yet
picked up; a red 3 never in a hand), and each hand is played out by the heuristic for all
four seats. :func:`improve` then keeps the heuristic's own action unless another action's
mean outcome, paired over the same deals, is better by more than ``z`` standard errors
(``criterion="win"``: the sign of the hand score difference, the unit of duplicate
evaluation; ``"diff"``: the difference in points). Plain argmax over the means (``z=0``)
plays worse than the heuristic, because with a hand's score spread the noise of 16-64
deals outweighs the differences between actions; the paired test keeps only clear
improvements.

**play**: duplicate deals as :mod:`training.evaluate` (each deal twice, the searching side
at seats 0+2, then 1+3, ``starting_scores="sample"``, Hand and Foot ``starting_round=
"sample"``) against the heuristic. ``--actor`` makes a network play the side instead and
the search only labels its positions (DAgger with the search as the teacher).
``--record`` saves the side's decisions with the search's actions.

**distill**: fits a MaskablePPO checkpoint to recorded data (masked cross-entropy and the
value head, :func:`training.pretrain.behaviour_clone`) and saves it, never over an
existing file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CRITERIA = ("win", "diff")
#: the arrays ``play --record`` saves
RECORD_KEYS = ("obs", "masks", "actions", "base", "better", "advantage", "returns")


@dataclass(frozen=True)
class SearchSettings:
    """How the search decides.

    Attributes:
        determinisations: deals of the unseen cards per legal action (1..4,096).
        z: standard errors by which an action's paired mean must beat the heuristic's
            action (>= 0).
        criterion: ``"win"`` (sign of the hand score difference) or ``"diff"`` (points).
        max_decisions: rollouts longer than this many decisions are left out.
    """

    determinisations: int = 64
    z: float = 1.5
    criterion: str = "win"
    max_decisions: int = 5000

    def __post_init__(self) -> None:
        if not 1 <= self.determinisations <= 4096:
            raise ValueError(f"determinisations must be in 1..4096, got {self.determinisations}")
        if not (self.z >= 0 and math.isfinite(self.z)):
            raise ValueError(f"z must be a finite number >= 0, got {self.z}")
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")


def improve(values: np.ndarray, base: np.ndarray, settings: SearchSettings):
    """The search's action per row from rollout outcomes.

    Args:
        values: float64 (n, num_actions, D): hand score differences (points) per legal
            action and determinisation, NaN at illegal actions or dropped rollouts
            (:func:`canasta_env.native.search_values`).
        base: int (n,): the heuristic's action per row (legal).

    Returns:
        ``(actions int64 (n,), better bool (n, num_actions), advantage float32 (n,
        num_actions))``: ``advantage`` is each action's mean outcome paired with ``base``
        over the same determinisations (-inf at illegal actions); ``better`` marks the
        actions whose advantage exceeds 0 and ``settings.z`` standard errors; the action
        is ``base`` where no action is better, else the better action with the largest
        advantage.
    """
    n = len(base)
    base = np.asarray(base, dtype=np.int64)
    x = np.sign(values) if settings.criterion == "win" else values
    b = x[np.arange(n), base]                       # (n, D)
    d = x - b[:, None, :]
    ok_d = ~np.isnan(d)
    cnt = ok_d.sum(2)
    d0 = np.where(ok_d, d, 0.0)
    mean = d0.sum(2) / np.maximum(cnt, 1)
    var = (np.where(ok_d, (d0 - mean[:, :, None]) ** 2, 0.0).sum(2)
           / np.maximum(cnt - 1, 1))
    se = np.sqrt(var / np.maximum(cnt, 1))
    ok = (cnt >= 2) & (mean > 0) & (mean > settings.z * se)
    score = np.where(ok, mean, -np.inf)
    best = score.argmax(1)
    deviated = ok.any(1)
    legal = ~np.isnan(values).all(2)
    adv = np.where(legal, mean, -np.inf).astype(np.float32)
    return np.where(deviated, best, base), ok, adv


def _env_kwargs(variant: str) -> dict:
    return dict(starting_scores="sample",
                starting_round="sample" if variant == "hand_and_foot" else 1)


def _returns(reward: float, n: int, gamma: float) -> list[float]:
    return [reward * gamma ** (n - 1 - k) for k in range(n)]


def play_chunk(variant: str, seeds: list[int], side: int, settings: SearchSettings,
               actor: str | None, record: bool, search_seed: int, gamma: float = 0.995):
    """One hand of each deal in ``seeds`` (native seeds, ``VectorGames(seed=seeds)``), the
    searching side at partnership ``side`` against the heuristic.

    With ``actor`` (a checkpoint path) the network plays the side (its most likely legal
    action) and the search labels its decisions; else the search plays.

    Returns:
        dict with ``results`` float64 (len(seeds),): the side's hand score difference
        (points) per deal (NaN for a hand cut at ``settings.max_decisions``);
        ``searched`` and ``deviated`` counts; ``agree`` (actor only: decisions where the
        network chose the search's action); with ``record`` the arrays ``obs`` float32,
        ``masks`` bool, ``actions`` int64 (the search's), ``base`` int64 (the
        heuristic's), ``returns`` float32 (the side's hand reward x 0.001 discounted by
        ``gamma`` per decision).
    """
    from canasta_env.engine import preset
    from canasta_env.native import VectorGames, search_values
    from canasta_env.policies import HeuristicPolicy

    core = HeuristicPolicy(backend="native")._core
    g = len(seeds)
    vg = VectorGames(g, preset(variant), seed=list(seeds), **_env_kwargs(variant))
    net = None
    if actor is not None:
        import torch

        torch.set_num_threads(1)
        from .checkpoint import load_policy_checkpoint

        net = load_policy_checkpoint(actor)
    finished = np.zeros(g, bool)
    results = np.full(g, np.nan)
    keys = ("obs", "masks", "actions", "base", "better", "advantage")
    rec = [{k: [] for k in keys} for _ in range(g)]
    out = {k: [] for k in keys + ("returns",)}
    no_better = np.zeros(vg.num_actions, bool)
    searched = deviated = agree = decided = steps = calls = 0
    while not finished.all():
        tm = vg.to_move.astype(np.int64)
        acts = core.actions(vg.observations, vg.masks)
        mine = np.flatnonzero(((tm & 1) == side) & ~finished)
        labels = acts[mine].copy()
        multi = vg.masks[mine].sum(1) > 1
        rows = mine[multi]
        if len(rows):
            vals = search_values(vg, rows, core, settings.determinisations,
                                 seed=search_seed * 1_000_003 + calls,
                                 max_decisions=settings.max_decisions)
            calls += 1
            lab, better, adv = improve(vals, acts[rows], settings)
            labels[multi] = lab
            searched += len(rows)
            deviated += int(better.any(1).sum())
            row_better = dict(zip(rows.tolist(), better))
            row_adv = dict(zip(rows.tolist(), adv))
        else:
            row_better, row_adv = {}, {}
        if len(mine):
            if net is not None:
                chosen = net.act_batch(vg.observations[mine], vg.masks[mine])
                agree += int((chosen == labels).sum())
                decided += len(mine)
            else:
                chosen = labels
            if record:
                for j, i in enumerate(mine):
                    rec[i]["obs"].append(vg.observations[i].copy())
                    rec[i]["masks"].append(vg.masks[i].astype(bool))
                    rec[i]["actions"].append(int(labels[j]))
                    rec[i]["base"].append(int(acts[i]))
                    rec[i]["better"].append(row_better.get(i, no_better))
                    rec[i]["advantage"].append(row_adv.get(
                        i, np.where(vg.masks[i] > 0, 0.0, -np.inf).astype(np.float32)))
            acts[mine] = chosen
        active = ~finished
        vg.step(acts, active=active)
        steps += 1
        for i in np.flatnonzero(vg.dones & active):
            r = float(vg.rewards[i, side])
            results[i] = r / 0.001
            finished[i] = True
            if record:
                n = len(rec[i]["actions"])
                for k in keys:
                    out[k].extend(rec[i][k])
                out["returns"].extend(_returns(r, n, gamma))
        if steps > settings.max_decisions:
            finished[:] = True  # the rest are cut: NaN results, nothing recorded
    res = dict(results=results, searched=searched, deviated=deviated, agree=agree,
               decided=decided)
    if record:
        res.update(obs=np.asarray(out["obs"], np.float32).reshape(len(out["actions"]), -1),
                   masks=np.asarray(out["masks"], bool).reshape(len(out["actions"]), -1),
                   actions=np.asarray(out["actions"], np.int64),
                   base=np.asarray(out["base"], np.int64),
                   better=np.asarray(out["better"], bool).reshape(len(out["actions"]), -1),
                   advantage=np.asarray(out["advantage"], np.float32).reshape(
                       len(out["actions"]), -1),
                   returns=np.asarray(out["returns"], np.float32))
    return res


def _deal_seeds(seed: int, deals: int) -> list[int]:
    return [seed * 1_000_003 + i for i in range(deals)]


def play(variant: str, deals: int, seed: int, settings: SearchSettings,
         actor: str | None = None, record: bool = False, workers: int = 1,
         chunk: int = 32, progress: bool = True) -> dict:
    """Duplicate deals of the search (or ``actor`` labelled by it) against the heuristic.

    Returns:
        ``{"hands", "win_rate", "win_rate_ci", "mean_diff", "deviation_rate",
        "agreement" (actor only), "seconds"}`` plus the recorded arrays with ``record``.
    """
    from tqdm import tqdm

    from .evaluate import wilson

    seeds = _deal_seeds(seed, deals)
    jobs = []
    for side in (0, 1):
        for k in range(0, deals, chunk):
            jobs.append((variant, seeds[k:k + chunk], side, settings, actor, record,
                         seed * 7 + side * 100_000 + k))
    t0 = time.time()
    parts = []
    bar = tqdm(total=2 * deals, desc="search vs heuristic", unit="hand", file=sys.stderr,
               disable=not progress, dynamic_ncols=True, leave=False)
    if workers > 1:
        with ProcessPoolExecutor(workers) as ex:
            futs = [ex.submit(play_chunk, *j) for j in jobs]
            for f in futs:
                parts.append(f.result())
                bar.update(len(parts[-1]["results"]))
    else:
        for j in jobs:
            parts.append(play_chunk(*j))
            bar.update(len(parts[-1]["results"]))
    bar.close()
    res = np.concatenate([p["results"] for p in parts])
    res = res[~np.isnan(res)]
    n = len(res)
    wins, ties = int((res > 0).sum()), int((res == 0).sum())
    wr = (wins + 0.5 * ties) / n if n else 0.0
    searched = sum(p["searched"] for p in parts)
    out = {"hands": n, "win_rate": wr, "win_rate_ci": list(wilson(wr, n)),
           "mean_diff": float(res.mean()) if n else 0.0,
           "deviation_rate": sum(p["deviated"] for p in parts) / max(1, searched),
           "searched_decisions": searched, "seconds": time.time() - t0}
    if actor is not None:
        out["agreement"] = sum(p["agree"] for p in parts) / max(1, sum(p["decided"] for p in parts))
    if record:
        for k in RECORD_KEYS:
            out[k] = np.concatenate([p[k] for p in parts])
    return out


def distill(init: str, data: list[str], out: str, epochs: int, batch_size: int,
            learning_rate: float, seed: int, progress: bool = True) -> dict:
    """Fit the checkpoint ``init`` to the search's actions in ``data`` (.npz files from
    ``play --record``) and save it to ``out`` (refused if it exists)."""
    from .checkpoint import load_model
    from .pretrain import behaviour_clone

    if Path(out).exists():
        raise FileExistsError(f"{out} exists; distill never overwrites a checkpoint")
    parts = [np.load(p) for p in data]
    arrays = tuple(np.concatenate([p[k] for p in parts])
                   for k in ("obs", "masks", "actions", "returns"))
    model = load_model(init)
    stats = behaviour_clone(model, arrays, epochs, batch_size, learning_rate, seed=seed,
                            progress=progress)
    base = np.concatenate([p["base"] for p in parts])
    stats["deviations"] = int((base != arrays[2]).sum())
    stats["decisions"] = len(arrays[2])
    model.save(out)
    return stats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.search",
                                description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser("play", help="duplicate deals against the heuristic")
    pl.add_argument("--variant", choices=("classic", "hand_and_foot"), default="classic")
    pl.add_argument("--deals", type=int, default=100)
    pl.add_argument("--seed", type=int, default=7)
    pl.add_argument("--determinisations", type=int, default=64)
    pl.add_argument("--z", type=float, default=1.5)
    pl.add_argument("--criterion", choices=CRITERIA, default="win")
    pl.add_argument("--actor", default=None, help="a checkpoint that plays; the search labels")
    pl.add_argument("--record", default=None, help=".npz to save the side's decisions to")
    pl.add_argument("--workers", type=int, default=1)
    pl.add_argument("--chunk", type=int, default=32)
    d = sub.add_parser("distill", help="fit a checkpoint to recorded search actions")
    d.add_argument("--init", required=True)
    d.add_argument("--data", nargs="+", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--epochs", type=int, default=4)
    d.add_argument("--batch-size", type=int, default=1024)
    d.add_argument("--learning-rate", type=float, default=1e-4)
    d.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        if args.cmd == "play":
            if args.deals < 1 or args.workers < 1 or args.chunk < 1:
                p.error("--deals, --workers and --chunk must be >= 1")
            if args.record and Path(args.record).exists():
                p.error(f"--record {args.record} exists; never overwritten")
            settings = SearchSettings(args.determinisations, args.z, args.criterion)
            r = play(args.variant, args.deals, args.seed, settings, args.actor,
                     bool(args.record), args.workers, args.chunk)
            if args.record:
                np.savez_compressed(args.record, **{k: r.pop(k) for k in RECORD_KEYS})
            lo, hi = r["win_rate_ci"]
            print(f"{'actor' if args.actor else 'search'} vs heuristic ({args.variant}, "
                  f"{r['hands']} hands, D={args.determinisations}, z={args.z}, "
                  f"{args.criterion}): win rate {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
                  f"mean diff {r['mean_diff']:+.0f}, deviation {r['deviation_rate']:.3f} of "
                  f"{r['searched_decisions']} searched decisions"
                  + (f", agreement {r['agreement']:.3f}" if args.actor else "")
                  + f", {r['seconds']:.0f} s", flush=True)
        else:
            st = distill(args.init, args.data, args.out, args.epochs, args.batch_size,
                         args.learning_rate, args.seed)
            print(f"distilled {st['decisions']} decisions ({st['deviations']} where the "
                  f"search left the heuristic): accuracy {st['accuracy']:.3f}; saved "
                  f"{args.out}", flush=True)
    except (ValueError, FileExistsError) as e:
        print(f"training.search: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
