"""Decision-time search on the native core, and the data it teaches a network with.

    python -m training.search play --variant classic --deals 100 --seed 7
    python -m training.search play --deals 2000 --actor checkpoints/reference/classic.zip \\
        --record /tmp/search_a.npz --workers 2
    python -m training.search distill --init checkpoints/reference/classic.zip \\
        --data /tmp/search_a.npz --out /tmp/distilled.zip

**The search**: :mod:`canasta_env.search` (determinised rollouts of the heuristic, and
:func:`~canasta_env.search.improve`, the paired test that keeps the base action, the
heuristic's or with ``--base actor`` the network's, unless another is clearly better).

**play**: duplicate deals as :mod:`training.evaluation` (each deal twice, the searching side
at seats 0+2, then 1+3, ``starting_scores="sample"``, Hand and Foot ``starting_round=
"sample"``) against the heuristic. ``--actor`` makes a network play the side instead and
the search only labels its positions (DAgger with the search as the teacher).
``--record`` saves the side's decisions with the search's actions.

**distill**: fits a MaskablePPO checkpoint to recorded data (masked cross-entropy and the
value head, :func:`training.sb3.pretrain.behaviour_clone`) and saves it, never over an
existing file.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from canasta_env.bots.loader import variant_hint
from canasta_env.cli import ArgumentParser, existing_file, fail, interrupted, positive_float, positive_int
from canasta_env.search import CRITERIA, SearchSettings, candidate_mask, improve  # noqa: F401 (re-exported)
from training.sb3.pretrain import _returns

#: the arrays ``play --record`` saves
RECORD_KEYS = ("obs", "masks", "actions", "base", "better", "advantage", "returns")


def _env_kwargs(variant: str) -> dict:
    return dict(starting_scores="sample",
                starting_round="sample" if variant == "hand_and_foot" else 1)


def play_chunk(variant: str, seeds: list[int], side: int, settings: SearchSettings,
               actor: str | None, record: bool, search_seed: int, gamma: float = 0.995,
               actor_base: bool = False, candidates: int | None = None):
    """One hand of each deal in ``seeds`` (native seeds, ``VectorGames(seed=seeds)``), the
    searching side at partnership ``side`` against the heuristic.

    With ``actor`` (a checkpoint path) the network plays the side (its most likely legal
    action) and the search labels its decisions; else the search plays. With
    ``actor_base`` the search improves the network's action instead of the heuristic's
    (as ``search_reference`` does), and ``candidates`` (an int, actor_base only) limits
    the actions that may replace it to the network's ``candidates`` highest-logit legal
    ones (``SearchPolicy(candidates=...)``); ``base`` then records the network's action.

    Returns:
        dict with ``results`` float64 (len(seeds),): the side's hand score difference
        (points) per deal (NaN for a hand cut at ``settings.max_decisions``);
        ``searched`` and ``deviated`` counts; ``agree`` (actor only: decisions where the
        network chose the search's action); with ``record`` the arrays ``obs`` float32,
        ``masks`` bool, ``actions`` int64 (the search's), ``base`` int64 (the
        heuristic's, or the network's with ``actor_base``), ``better`` bool and
        ``advantage`` float32 (``improve``'s, -inf at illegal actions and at those the
        candidates leave out), ``returns`` float32 (the side's hand reward x 0.001
        discounted by ``gamma`` per decision).

    Raises:
        ValueError: ``actor_base`` or ``candidates`` without an ``actor``.
    """
    if (actor_base or candidates is not None) and actor is None:
        raise ValueError("actor_base and candidates need an actor network")
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
        from training.sb3.checkpoint import load_policy_checkpoint

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
        if net is not None and len(mine):
            chosen = net.act_batch(vg.observations[mine], vg.masks[mine])
            if actor_base:  # the network's move is the one the search must beat
                acts[mine] = chosen
                labels = chosen.copy()
        if len(rows):
            vals = search_values(vg, rows, core, settings.determinisations,
                                 seed=search_seed * 1_000_003 + calls,
                                 max_decisions=settings.max_decisions)
            calls += 1
            if candidates is not None:  # the network as a prior: only its top actions
                logits = net.logits_batch(vg.observations[rows], vg.masks[rows])
                vals[~candidate_mask(logits, vg.masks[rows], acts[rows], candidates)] = np.nan
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
         chunk: int = 32, progress: bool = True, actor_base: bool = False,
         candidates: int | None = None) -> dict:
    """Duplicate deals of the search (or ``actor`` labelled by it) against the heuristic.

    ``actor_base`` and ``candidates``: as :func:`play_chunk` (both need ``actor``).

    Raises:
        ValueError: ``actor_base`` or ``candidates`` without what they need, or
            ``candidates`` < 1.
        TypeError: ``candidates`` is not an int.

    Returns:
        ``{"hands", "win_rate", "win_rate_ci", "mean_diff", "deviation_rate",
        "agreement" (actor only), "seconds"}`` plus the recorded arrays with ``record``.
    """
    from tqdm import tqdm

    from training.evaluation.stats import wilson

    if actor_base and actor is None:
        raise ValueError("the actor as the search's base needs an actor (--actor)")
    if candidates is not None and not actor_base:
        raise ValueError("candidates rank the actor's actions: they need the actor as the "
                         "search's base (--base actor)")
    if candidates is not None and (isinstance(candidates, bool) or
                                   not isinstance(candidates, (int, np.integer))):
        raise TypeError(f"candidates must be None or an int, got {candidates!r}")
    if candidates is not None and candidates < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates}")
    if actor is not None:  # a network of another variant is refused before the first deal
        from canasta_env.bots.loader import check_policy_variant
        from training.sb3.checkpoint import load_policy_checkpoint

        check_policy_variant(load_policy_checkpoint(actor), variant, actor)
    seeds = _deal_seeds(seed, deals)
    jobs = []
    for side in (0, 1):
        for k in range(0, deals, chunk):
            jobs.append((variant, seeds[k:k + chunk], side, settings, actor, record,
                         seed * 7 + side * 100_000 + k, 0.995, actor_base, candidates))
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
        out["recorded"] = len(out["actions"])
    return out


def distill_targets(masks: np.ndarray, base: np.ndarray, better: np.ndarray) -> np.ndarray:
    """The set of actions each recorded decision is taught: the actions the search found
    better than the recorded base action (the heuristic's, or the actor's when recorded
    with ``--base actor``) where there are any, else the base action.
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
    the search found several actions better than the base action, the network may put
    its mass on any of them (which one the search ranks first is mostly noise), and
    where it found none, it is taught the recorded base action (the heuristic's, or the
    network's own with ``play --base actor``). The value head is not trained.

    Returns:
        ``{"decisions", "deviations", "held_out", "epochs": [{"train_loss",
        "held_set_accuracy", "held_deviation_accuracy", "held_kept_accuracy"}, ...]}``:
        set accuracy = the network's most likely action is in ``S``, on the held-out
        fraction ``holdout`` of decisions, all / where the search deviated / where it
        kept the base action.

    Raises:
        FileExistsError: ``out`` exists.
        FileNotFoundError: a data file is missing.
        KeyError: a data file lacks the recorded arrays.
    """
    import torch

    from training.sb3.checkpoint import load_model
    from training.sb3.pretrain import _bar, minibatch_epoch

    if Path(out).exists():
        raise FileExistsError(f"{out} exists; distill never overwrites a checkpoint")
    if not Path(out).parent.is_dir():
        raise FileNotFoundError(f"the folder of {out} does not exist")
    if not (isinstance(epochs, int) and epochs >= 1):
        raise ValueError(f"epochs must be an int >= 1, got {epochs!r}")
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout must be in [0, 1), got {holdout!r}")
    parts = []
    for p in data:
        try:
            parts.append(np.load(p))
        except (ValueError, OSError, zipfile.BadZipFile) as e:
            raise ValueError(f"{p} is not an .npz file recorded by `python -m training.search "
                             f"play --record` ({type(e).__name__})") from None
    for p, part in zip(data, parts):
        missing = [k for k in RECORD_KEYS if k not in part]
        if missing:
            raise KeyError(f"{p} has no {', '.join(missing)}: record it with "
                           f"`python -m training.search play --record`")
    try:
        cat = {k: np.concatenate([p[k] for p in parts]) for k in RECORD_KEYS}
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise ValueError(f"the recorded arrays cannot be read or joined ({type(e).__name__}: "
                         f"{e})") from None
    n_all = len(cat["actions"])
    shapes_ok = (cat["obs"].ndim == 2 and cat["masks"].ndim == 2 and cat["better"].ndim == 2
                 and cat["masks"].shape == cat["better"].shape
                 and all(len(cat[k]) == n_all for k in RECORD_KEYS))
    if not shapes_ok:
        raise ValueError("the recorded arrays do not fit together (rows or action columns "
                         "differ)")
    na = cat["masks"].shape[1]
    for k in ("actions", "base"):
        if n_all and (cat[k].min() < 0 or cat[k].max() >= na
                      or not cat["masks"][np.arange(n_all), cat[k]].all()):
            raise ValueError(f"the recorded {k} are not legal actions of their masks")
    multi = cat["masks"].sum(1) > 1
    if not multi.any():
        raise ValueError("the data holds no decision with two or more legal actions: "
                         "nothing to learn")
    obs, masks = cat["obs"][multi], cat["masks"][multi]
    target = distill_targets(masks, cat["base"][multi], cat["better"][multi])
    dev = cat["better"][multi].any(1)
    n = len(obs)
    gen = np.random.default_rng(seed)
    order = gen.permutation(n)
    n_held = int(n * holdout)
    held, train = order[:n_held], order[n_held:]
    model = load_model(init)
    width = model.observation_space.shape[0]
    if obs.shape[1] != width or masks.shape[1] != model.action_space.n:
        raise ValueError(f"the data's observations ({obs.shape[1]}) and actions "
                         f"({masks.shape[1]}) do not fit {init} ({width} and "
                         f"{model.action_space.n}): another variant")
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
                "held_deviation_accuracy": float(ok[d].mean()) if d.any() else None,
                "held_kept_accuracy": float(ok[~d].mean()) if (~d).any() else None}

    history = [{"epoch": 0, **held_out()}]
    bar = _bar(epochs * -(-len(train) // batch_size), "distilling the search", "batch",
               progress)
    for ep in range(epochs):
        total = minibatch_epoch(policy, opt, gen.permutation(train), batch_size,
                                lambda idx: (set_loss(idx),) * 2, bar)
        history.append({"epoch": ep + 1, "train_loss": total / max(1, len(train)),
                        **held_out()})
        if progress:
            h = history[-1]
            line = (f", held-out set accuracy {h['held_set_accuracy']:.3f} (deviations "
                    f"{_or_na(h, 'held_deviation_accuracy')}, kept "
                    f"{_or_na(h, 'held_kept_accuracy')})" if "held_set_accuracy" in h else "")
            print(f"epoch {ep + 1}/{epochs}: loss {h['train_loss']:.4f}{line}",
                  file=sys.stderr, flush=True)
    bar.close()
    model.save(out)
    return {"decisions": n, "deviations": int(dev.sum()), "held_out": len(held),
            "epochs": history}


def _nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def _fraction(text: str) -> float:
    value = _nonnegative_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text!r}")
    return value


def _new_file(text: str, suffix: str) -> str:
    """A path to write once: it ends in ``suffix`` (numpy and SB3 would add it), it does
    not exist, and its folder exists and is writable."""
    if not text.endswith(suffix):
        raise argparse.ArgumentTypeError(f"{text!r} must end in {suffix}")
    path = Path(text)
    if path.exists():
        raise argparse.ArgumentTypeError(f"{text} exists; never overwritten")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder of {text} does not exist")
    if not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"the folder of {text} is not writable")
    return text


def main(argv: list[str] | None = None) -> int:
    prog = "python -m training.search"
    p = ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pl = sub.add_parser(
        "play", help="the search (or a network it labels) against the heuristic",
        description="Duplicate deals against the heuristic: each deal twice, the searching "
                    "side at seats 0+2, then 1+3. Prints the side's win rate (ties 1/2) "
                    "with its 95%% interval, the mean score difference per hand, and the "
                    "share of searched decisions (those with two or more legal actions) "
                    "where the search left the base action (the heuristic's, or the actor's with "
                    "--base actor).")
    pl.add_argument("--variant", choices=("classic", "hand_and_foot"), default="classic",
                    help="(default: %(default)s)")
    pl.add_argument("--deals", type=positive_int, default=100,
                    help="deals, each played twice (default: %(default)s)")
    pl.add_argument("--seed", type=int, default=7, help="deals and search (default: %(default)s)")
    pl.add_argument("--determinisations", type=positive_int, default=64,
                    help="deals of the unseen cards per legal action, 1..4096 "
                         "(default: %(default)s)")
    pl.add_argument("--z", type=_nonnegative_float, default=1.5,
                    help="standard errors by which an action must beat the base action, "
                         "paired over the same deals (default: %(default)s)")
    pl.add_argument("--criterion", choices=CRITERIA, default="win",
                    help="win: the sign of the hand score difference; diff: the points "
                         "(default: %(default)s)")
    pl.add_argument("--actor", type=existing_file, default=None,
                    help="a .zip checkpoint that plays the side; the search only labels its "
                         "decisions (then 'agreement' is printed)")
    pl.add_argument("--base", choices=("heuristic", "actor"), default="heuristic",
                    help="the action the search must beat: the heuristic's, or the "
                         "actor's (as search_reference; needs --actor) "
                         "(default: %(default)s)")
    pl.add_argument("--candidates", type=positive_int, default=None,
                    help="with --base actor: only the actor's K highest-logit legal "
                         "actions may replace its move (the network as a prior)")
    pl.add_argument("--record", type=lambda s: _new_file(s, ".npz"), default=None,
                    help=".npz to save the side's decisions to (every decision, single "
                         "legal actions included): obs, masks, actions (the search's), "
                         "base (the heuristic's, or the actor's with --base actor), "
                         "better, advantage, returns")
    pl.add_argument("--workers", type=positive_int, default=1,
                    help="processes (default: %(default)s)")
    pl.add_argument("--chunk", type=positive_int, default=32,
                    help="deals per job of a process (default: %(default)s)")
    d = sub.add_parser(
        "distill", help="fit a checkpoint to recorded search decisions",
        description="Fit a MaskablePPO checkpoint to the decisions of `play --record` files "
                    "(those with two or more legal actions) with the set loss: where the "
                    "search found better actions the network may choose any of them, "
                    "elsewhere the recorded base action (the heuristic's, or the actor's "
                    "with play --base actor). Prints per epoch the held-out set accuracy, "
                    "on the decisions the search changed ('deviations') and on those it "
                    "kept ('kept').")
    d.add_argument("--init", type=existing_file, required=True,
                   help="the .zip checkpoint to start from")
    d.add_argument("--data", type=existing_file, nargs="+", required=True,
                   help="one or more .npz files from play --record")
    d.add_argument("--out", type=lambda s: _new_file(s, ".zip"), required=True,
                   help="the .zip to write (never overwritten)")
    d.add_argument("--epochs", type=positive_int, default=4, help="(default: %(default)s)")
    d.add_argument("--batch-size", type=positive_int, default=1024, help="(default: %(default)s)")
    d.add_argument("--learning-rate", type=positive_float, default=1e-4,
                   help="Adam (default: %(default)s)")
    d.add_argument("--seed", type=int, default=0, help="(default: %(default)s)")
    d.add_argument("--holdout", type=_fraction, default=0.1,
                   help="fraction of decisions held out to measure, in [0, 1) "
                        "(default: %(default)s)")
    args = p.parse_args(argv)
    prog = f"{prog} {args.cmd}"
    try:
        if args.cmd == "play":
            settings = SearchSettings(args.determinisations, args.z, args.criterion)
            r = play(args.variant, args.deals, args.seed, settings, args.actor,
                     bool(args.record), args.workers, args.chunk,
                     actor_base=args.base == "actor", candidates=args.candidates)
            if args.record:
                np.savez_compressed(args.record, **{k: r.pop(k) for k in RECORD_KEYS})
            lo, hi = r["win_rate_ci"]
            print(f"{'actor' if args.actor else 'search'} vs heuristic ({args.variant}, "
                  f"{r['hands']} hands, D={args.determinisations}, z={args.z}, "
                  f"{args.criterion}): win rate {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], "
                  f"mean diff {r['mean_diff']:+.0f}, deviation {r['deviation_rate']:.3f} of "
                  f"{r['searched_decisions']} searched decisions"
                  + (f", agreement {r['agreement']:.3f}" if args.actor else "")
                  + f", {r['seconds']:.0f} s"
                  + (f"; recorded {r['recorded']} decisions to {args.record}"
                     if args.record else ""), flush=True)
        else:
            st = distill(args.init, args.data, args.out, args.epochs, args.batch_size,
                         args.learning_rate, args.seed, args.holdout)
            h = st["epochs"][-1]
            held = (f"held-out set accuracy {h['held_set_accuracy']:.3f} (deviations "
                    f"{_or_na(h, 'held_deviation_accuracy')}, kept "
                    f"{_or_na(h, 'held_kept_accuracy')})" if "held_set_accuracy" in h
                    else "nothing held out")
            print(f"distilled {st['decisions']} decisions ({st['deviations']} where the "
                  f"search left the base action); {held}; saved {args.out}", flush=True)
    except KeyboardInterrupt:
        return interrupted(prog)
    except (ValueError, KeyError, OSError, RuntimeError) as e:
        return fail(prog, variant_hint(e))
    return 0


def _or_na(h: dict, key: str) -> str:
    return f"{h[key]:.3f}" if h.get(key) is not None else "n/a"


if __name__ == "__main__":
    raise SystemExit(main())
