"""Decision-time search on the native core, and the data it teaches a network with.

    python -m training.search play --variant classic --deals 100 --seed 7
    python -m training.search play --deals 2000 --actor checkpoints/reference/classic.zip \\
        --record /tmp/search_a.npz --workers 2
    python -m training.search distill --init checkpoints/reference/classic.zip \\
        --data /tmp/search_a.npz --out /tmp/distilled.zip

**The search**: :mod:`canasta_env.search` (determinised rollouts of the heuristic, and
:func:`~canasta_env.search.improve`, the paired test that keeps the heuristic's action
unless another is clearly better).

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
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from canasta_env.search import CRITERIA, SearchSettings, improve  # noqa: F401 (re-exported)

#: the arrays ``play --record`` saves
RECORD_KEYS = ("obs", "masks", "actions", "base", "better", "advantage", "returns")


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


def distill_targets(masks: np.ndarray, base: np.ndarray, better: np.ndarray) -> np.ndarray:
    """The set of actions each recorded decision is taught: the actions the search found
    better than the heuristic's where there are any, else the heuristic's action.
    bool (n, num_actions)."""
    n = len(base)
    keep = np.zeros_like(masks, dtype=bool)
    keep[np.arange(n), base] = True
    return np.where(better.any(1)[:, None], better, keep)


def distill(init: str, data: list[str], out: str, epochs: int, batch_size: int,
            learning_rate: float, seed: int, holdout: float = 0.1,
            progress: bool = True) -> dict:
    """Fit the checkpoint ``init`` to the search's choices in ``data`` (.npz files from
    ``play --record``) and save it to ``out`` (refused if it exists).

    Only decisions with two or more legal actions are used. The loss is the set
    likelihood ``-log sum_{a in S} p(a)`` with ``S`` from :func:`distill_targets`: where
    the search found several actions better than the heuristic's, the network may put
    its mass on any of them (which one the search ranks first is mostly noise), and
    where it found none, it is taught the heuristic's action. The value head is not
    trained.

    Returns:
        ``{"decisions", "deviations", "held_out", "epochs": [{"train_loss",
        "held_set_accuracy", "held_deviation_accuracy", "held_kept_accuracy"}, ...]}``:
        set accuracy = the network's most likely action is in ``S``, on the held-out
        fraction ``holdout`` of decisions, all / where the search deviated / where it
        kept the heuristic's action.

    Raises:
        FileExistsError: ``out`` exists. FileNotFoundError / KeyError: a data file
        missing or without the recorded arrays.
    """
    import torch

    from .checkpoint import load_model
    from .pretrain import _bar

    if Path(out).exists():
        raise FileExistsError(f"{out} exists; distill never overwrites a checkpoint")
    parts = [np.load(p) for p in data]
    for p, part in zip(data, parts):
        missing = [k for k in RECORD_KEYS if k not in part]
        if missing:
            raise KeyError(f"{p} has no {', '.join(missing)}: record it with "
                           f"`python -m training.search play --record`")
    cat = {k: np.concatenate([p[k] for p in parts]) for k in RECORD_KEYS}
    multi = cat["masks"].sum(1) > 1
    obs, masks = cat["obs"][multi], cat["masks"][multi]
    target = distill_targets(masks, cat["base"][multi], cat["better"][multi])
    dev = cat["better"][multi].any(1)
    n = len(obs)
    gen = np.random.default_rng(seed)
    order = gen.permutation(n)
    n_held = int(n * holdout)
    held, train = order[:n_held], order[n_held:]
    model = load_model(init)
    policy = model.policy
    torch.manual_seed(seed)
    obs_t, tgt_t = torch.as_tensor(obs), torch.as_tensor(target)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def set_loss(idx):
        logp = policy.get_distribution(obs_t[idx], action_masks=masks[idx]).distribution.logits
        return -torch.logsumexp(logp.masked_fill(~tgt_t[idx], float("-inf")), dim=1).mean()

    def held_out() -> dict:
        if not len(held):
            return {}
        with torch.no_grad():
            pred = np.concatenate([
                policy.get_distribution(obs_t[held[i:i + 4096]],
                                        action_masks=masks[held[i:i + 4096]])
                .distribution.logits.argmax(1).numpy() for i in range(0, len(held), 4096)])
        ok = target[held, pred]
        d = dev[held]
        return {"held_set_accuracy": float(ok.mean()),
                "held_deviation_accuracy": float(ok[d].mean()) if d.any() else 0.0,
                "held_kept_accuracy": float(ok[~d].mean()) if (~d).any() else 0.0}

    history = [{"epoch": 0, **held_out()}]
    bar = _bar(epochs * -(-len(train) // batch_size), "distilling the search", "batch",
               progress)
    for ep in range(epochs):
        perm = gen.permutation(train)
        total = 0.0
        for i in range(0, len(perm), batch_size):
            idx = perm[i:i + batch_size]
            loss = set_loss(idx)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            total += float(loss.detach()) * len(idx)
            bar.update(1)
        history.append({"epoch": ep + 1, "train_loss": total / max(1, len(train)),
                        **held_out()})
        if progress:
            h = history[-1]
            print(f"epoch {ep + 1}/{epochs}: loss {h['train_loss']:.4f}, held-out set "
                  f"accuracy {h.get('held_set_accuracy', 0):.3f} (deviations "
                  f"{h.get('held_deviation_accuracy', 0):.3f}, kept "
                  f"{h.get('held_kept_accuracy', 0):.3f})", file=sys.stderr, flush=True)
    bar.close()
    model.save(out)
    return {"decisions": n, "deviations": int(dev.sum()), "held_out": len(held),
            "epochs": history}


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
    d.add_argument("--holdout", type=float, default=0.1)
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
                         args.learning_rate, args.seed, args.holdout)
            h = st["epochs"][-1]
            print(f"distilled {st['decisions']} decisions ({st['deviations']} where the "
                  f"search left the heuristic); held-out set accuracy "
                  f"{h.get('held_set_accuracy', 0):.3f} (deviations "
                  f"{h.get('held_deviation_accuracy', 0):.3f}); saved {args.out}", flush=True)
    except (ValueError, KeyError, FileExistsError, FileNotFoundError) as e:
        print(f"training.search: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
