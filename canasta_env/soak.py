"""Soak test of the native core: many random decisions, invariants checked as they go.

    python -m canasta_env.soak [--decisions N] [--seed S] [--games G] [--json]

Plays ``N`` (default 10,000,000) uniformly random legal decisions on the batched native
core (:class:`canasta_env.native.VectorGames`, ``G`` games per batch, 128 by default),
in segments of about 200,000 decisions (a tenth of a shorter run): each segment takes
the next variant (Classic, Hand and Foot, in turn) with its preset or, half of the time,
a random option set (the differential checker's sampler,
:func:`canasta_env.differential.random_options`).
Invariants, checked on the arrays the core writes:

- every step: each game has a seat on turn (0..3) whose mask is non-empty;
- every step: rewards are zero-sum between the partnerships (seat 0 = seat 2 = -seat 1
  = -seat 3) and zero for the games whose hand did not end;
- card conservation: every 16 steps one game (in turn) is read back as a JSON position
  and loaded by the Python engine's reader (which checks the position), and its cards
  (hands, feet, stock, pile, pending pile, red 3s, melds, wild melds, books) must be
  the pack of its options, class by class; so each game is checked every ``16 * G``
  of its decisions.

Prints the counts (one JSON object with ``--json``). Exit codes: 0 no break and no
exception; 1 an invariant break or an exception (the first one stops the run, and the
game's position is printed as JSON); 2 a bad option; 130 interrupted.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback

import numpy as np

from .cli import ArgumentParser, interrupted
from .engine import preset
from .engine.cards import deck_counts
from .engine.game import from_position

SEGMENT = 200_000  # decisions per option set
CARD_EVERY = 16  # steps between two card-conservation checks (one game each)
VARIANTS = ("classic", "hand_and_foot")


class Break(Exception):
    """An invariant does not hold: ``game`` is the index in the batch."""

    def __init__(self, what: str, game: int) -> None:
        super().__init__(what)
        self.what = what
        self.game = game


def card_counts(g) -> list[int]:
    """Count vector of every card of a game state (:meth:`canasta_env.engine.state.State.
    card_counts`)."""
    return g.card_counts()


def _check_arrays(vg, stepped: bool) -> None:
    to_move, masks = vg.to_move, vg.masks
    if not ((to_move >= 0) & (to_move <= 3)).all():
        i = int(np.flatnonzero((to_move < 0) | (to_move > 3))[0])
        raise Break(f"game {i}: nobody on turn (to_move {int(to_move[i])})", i)
    empty = ~masks.any(axis=1)
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise Break(f"game {i}: empty mask for seat {int(to_move[i])} on turn", i)
    if stepped:
        r = vg.rewards
        bad = (r[:, 0] != -r[:, 1]) | (r[:, 0] != r[:, 2]) | (r[:, 1] != r[:, 3])
        bad |= ~vg.dones & r.any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise Break(f"game {i}: rewards {r[i].tolist()} (done {bool(vg.dones[i])}) are not "
                        f"zero-sum between the partnerships", i)


def _check_cards(vg, i: int, pack: list[int]) -> None:
    g = from_position(vg.position(i), check_moves=False)
    got = card_counts(g)
    if got != pack:
        raise Break(f"game {i}: cards {got} differ from the pack {pack}", i)


def run(decisions: int, seed: int = 0, num_games: int = 128, segment: int | None = None) -> dict:
    """Play ``decisions`` random decisions; returns the counts. Raises :class:`Break`
    (with ``.position``, the game's JSON position) on the first broken invariant.
    ``segment``: decisions per option set (default :data:`SEGMENT`, or a tenth of a
    shorter run, so that it still sees both variants and several option sets)."""
    if segment is None:
        segment = min(SEGMENT, max(decisions // 10, 1))
    from .differential import random_options
    from .native import VectorGames, available

    rng = random.Random(seed)
    out = {"decisions": 0, "exceptions": 0, "invariant_breaks": 0, "hands": 0,
           "option_sets": 0, "card_checks": 0, "mask_checks": 0, "reward_checks": 0,
           "native": available, "seed": seed, "games": num_games,
           "by_variant": dict.fromkeys(VARIANTS, 0)}
    t0 = time.perf_counter()
    seg = 0
    while out["decisions"] < decisions:
        variant = VARIANTS[seg % 2]
        seg += 1
        opts = random_options(rng, variant) if rng.random() < 0.5 else preset(variant)
        pack = deck_counts(opts.decks, opts.jokers)
        n = min(segment, decisions - out["decisions"])
        steps = max(1, n // num_games)
        vg = VectorGames(num_games, opts, seed=rng.getrandbits(48))
        out["option_sets"] += 1
        acts = np.empty(num_games, dtype=np.int64)
        try:
            _check_arrays(vg, False)
            for k in range(steps):
                vg.sample_actions(acts)
                vg.step(acts)
                _check_arrays(vg, True)
                out["hands"] += int(vg.dones.sum())
                if k % CARD_EVERY == 0:
                    _check_cards(vg, (k // CARD_EVERY) % num_games, pack)
                    out["card_checks"] += 1
        except Break as b:
            out["invariant_breaks"] += 1
            b.position = vg.position(b.game)
            b.counts = out
            raise
        except Exception as e:
            out["exceptions"] += 1
            b = Break(f"exception: {type(e).__name__}: {e}", 0)
            b.traceback = traceback.format_exc()
            b.position = vg.position(0)
            b.counts = out
            raise b from e
        done = steps * num_games
        out["decisions"] += done
        out["by_variant"][variant] += done
        out["mask_checks"] += (steps + 1) * num_games
        out["reward_checks"] += steps * num_games
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["decisions_per_s"] = round(out["decisions"] / max(out["seconds"], 1e-9))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m canasta_env.soak``; ``argv`` defaults to ``sys.argv[1:]``."""
    p = ArgumentParser(prog="python -m canasta_env.soak",
                       description="random play on the native core, invariants checked")
    p.add_argument("--decisions", type=int, default=10_000_000, help="decisions to play")
    p.add_argument("--seed", type=int, default=0, help="seed of the option sets and deals")
    p.add_argument("--games", type=int, default=128, help="games per batch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.decisions < 1 or args.games < 1:
        p.error("--decisions and --games must be >= 1")
    try:
        res = run(args.decisions, args.seed, args.games)
    except KeyboardInterrupt:
        return interrupted(p.prog, "no counts are printed")
    except Break as b:
        res = b.counts
        res["break"] = b.what
        print(json.dumps(res) if args.json else f"BREAK: {b.what}\n{res}")
        if getattr(b, "traceback", None):
            print(b.traceback, file=sys.stderr)
        print(json.dumps(b.position))
        return 1
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{res['decisions']:,} decisions ({res['by_variant']}), {res['hands']:,} hands, "
              f"{res['option_sets']} option sets in {res['seconds']} s "
              f"({res['decisions_per_s']:,}/s): {res['exceptions']} exceptions, "
              f"{res['invariant_breaks']} invariant breaks; checks: {res['mask_checks']:,} "
              f"masks, {res['reward_checks']:,} rewards, {res['card_checks']:,} card counts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
