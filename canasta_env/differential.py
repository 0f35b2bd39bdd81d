"""Differential checker: the native core against the Python engine, decision by decision.

    python -m canasta_env.differential --decisions N --seed S [--variant V] [--json]

Plays random legal games in both engines and compares after every decision: the legal
action sets, the observations of every seat (bit-identical float32), and the resulting
positions: after every decision every field that :func:`canasta_env.engine.to_position`
writes (score sheets included; the event log by its length and latest entries), and the
whole JSON position (options, history and event log included) every 16 decisions and at
the end of every hand. Each hand is dealt by the Python engine and loaded into
the native core (native seeds deal differently), so both play the same cards.

Games use the variant's preset or, half of the time, a random option set (decks,
jokers, hand and foot sizes, the Hoyle options, Hand and Foot's book rules, pile rules,
draw count...). ``--variant`` is ``classic``, ``hand_and_foot`` or ``all`` (both, game
by game). Prints ``{"decisions": ..., "mismatches": ..., "variant": ...}`` (and more
counts) and exits 1 on a mismatch, printing the first mismatching position as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from .engine import Game, OptionsError, preset
from .engine.position import to_position
from .observation import encode

MAX_HAND_DECISIONS = 4000  # a hand of random play longer than this starts a new game
MAX_GAME_HANDS = 12  # then a new game (new options): more option sets per run


def random_options(rng: random.Random, variant: str):
    """A random valid option set around ``variant``'s preset (retries until valid)."""
    while True:
        ch: dict = {}
        if variant == "classic":
            ch["decks"] = rng.choice((1, 2, 2, 3, 4))
            ch["jokers"] = rng.choice((0, 2, 4, 4, 6))
            ch["hand_size"] = rng.choice((7, 9, 11, 11, 13, 15))
            ch["canastas_to_go_out"] = rng.choice((0, 1, 1, 2))
            ch["max_wilds_per_meld"] = rng.choice((0, 2, 3, 3, 4))
            ch["canasta_size"] = rng.choice((5, 6, 7, 7, 8))
            ch["draw_count"] = rng.choice((1, 1, 1, 2))
            ch["pile_take_limit"] = rng.choice((0, 0, 0, 5, 9))
            ch["pile_pair_only"] = rng.random() < 0.2
            ch["black_three_meld_max"] = rng.choice((3, 4, 4, 6))
            ch["target_score"] = rng.choice((500, 2000, 5000))
            if rng.random() < 0.25:  # Hand and Foot rules on a Classic base
                ch["max_meld_size"] = rng.choice((0, 7, 8))
                ch["wilds_at_most_half_naturals"] = rng.random() < 0.5
                ch["foot_size"] = rng.choice((0, 0, 5, 7))
        else:
            ch["decks"] = rng.choice((3, 4, 5, 5, 6))
            ch["jokers"] = rng.choice((4, 8, 10, 12))
            ch["hand_size"] = rng.choice((7, 9, 11, 11, 13))
            ch["foot_size"] = rng.choice((0, 7, 11, 11, 13))
            ch["rounds"] = rng.choice((1, 2, 4))
            ch["draw_count"] = rng.choice((1, 2, 2, 3))
            m = rng.choice((0, 6, 7, 7, 8))
            ch["max_meld_size"] = m
            ch["canasta_size"] = rng.choice((5, 6, 7)) if m == 0 else min(m, rng.choice((5, 6, 7)))
            ch["clean_books_to_go_out"] = rng.choice((0, 1, 2, 2, 3))
            ch["dirty_books_to_go_out"] = rng.choice((0, 1, 2, 2))
            ch["wilds_at_most_half_naturals"] = rng.random() < 0.7
            ch["pile_take_limit"] = rng.choice((0, 5, 7, 7))
            ch["pile_pair_only"] = rng.random() < 0.7
            ch["max_wilds_per_meld"] = rng.choice((2, 3, 3, 4))
            ch["red_three_hand_penalty"] = rng.choice((0, 100))
            ch["round_minimums"] = rng.choice(((60, 90, 120, 150), (50,), (0, 30)))
            ch["black_three_melds"] = rng.random() < 0.5
        ch["black_three_freezes"] = rng.random() < 0.3
        ch["red_three_last_card_may_meld"] = rng.random() < 0.3
        ch["one_card_pile_restriction"] = rng.random() < 0.5
        ch["ask_partner_required"] = rng.random() < 0.4
        try:
            return preset(variant, **ch)
        except OptionsError:
            continue


#: every State field that to_position writes, but the options (fixed for a game), the
#: event log and the history (compared in full with the whole position, see run)
_FIELDS = ("hand_number", "dealer", "scores", "winner", "phase", "current", "hands", "known",
           "feet", "red3", "in_foot", "seat_melded", "stock", "pile", "pile_frozen", "nat",
           "jok", "two", "books", "wild_meld", "opened", "minimum", "went_out", "concealed",
           "decisions", "drew_stock", "turn_points", "laid", "added_old", "new_ranks",
           "pending", "asked", "must_out", "no_discard")
FULL_EVERY = 16  # the whole JSON position every this many decisions and at every hand end


def _raw(g) -> dict:
    d = {f: getattr(g, f) for f in _FIELDS}
    d["sheets"] = None if g.sheets is None else [s.as_dict() for s in g.sheets]
    d["log_tail"] = g.log[-6:]
    d["log_len"] = len(g.log)
    d["history_len"] = len(g.history)
    return d


def _first_diff(a, b, path="") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k, "<missing>") != b.get(k, "<missing>"):
                return _first_diff(a.get(k, "<missing>"), b.get(k, "<missing>"), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_diff(x, y, f"{path}[{i}]")
    return f"{path}: python {a!r} != native {b!r}"


def run(decisions: int, seed: int, variant: str = "all", random_share: float = 0.5) -> dict:
    """Play ``decisions`` random decisions in both engines; the counts, and the first
    mismatch (``"first_mismatch"``) when there is one."""
    from .native import NativeGame, available

    if not available:
        raise RuntimeError("the native core is not built (pip install -e . with a C compiler)")
    rng = random.Random(seed)
    variants = ("classic", "hand_and_foot") if variant == "all" else (variant,)
    done = mismatches = games = hands = deal_errors = dead_ends = 0
    first_dead_end = None
    first = None
    t0 = time.perf_counter()
    while done < decisions:
        v = variants[games % len(variants)]
        opts = random_options(rng, v) if rng.random() < random_share else preset(v)
        try:
            g = Game(opts, seed=rng.randrange(2**62))
        except IndexError:  # the Python deal runs out of cards (tiny packs): skip the game
            deal_errors += 1
            continue
        games += 1
        first_hand = g.hand_number
        bad = None
        hand_decisions = 0
        while done < decisions and bad is None:
            if g.hand_over:
                hands += 1
                if g.game_over or g.hand_number + 1 - first_hand >= MAX_GAME_HANDS:
                    break
                try:
                    g.next_hand()
                except IndexError:  # the Python deal runs out of cards (tiny packs)
                    deal_errors += 1
                    break
                hand_decisions = 0
            if hand_decisions == 0:
                ng = NativeGame.from_game(g)
                pa, pb = to_position(g), ng.to_position()
                if pa != pb:
                    bad = {"kind": "load", "detail": _first_diff(pa, pb), "position": pa}
                    break
            if hand_decisions >= MAX_HAND_DECISIONS:
                break
            la, lb = g.legal_actions(), ng.legal_actions()
            if la != lb:
                bad = {"kind": "legal actions", "python": la, "native": lb,
                       "position": to_position(g)}
                break
            if not la:  # a dead end in both engines: a rules-engine bug, reported apart
                dead_ends += 1
                if first_dead_end is None:
                    first_dead_end = to_position(g)
                break
            for seat in range(4):
                oa, ob = encode(g, seat), ng.encode(seat)
                if oa.tobytes() != ob.tobytes():
                    bad = {"kind": "observation", "seat": seat,
                           "entries": [int(i) for i in (oa != ob).nonzero()[0]],
                           "position": to_position(g)}
                    break
            if bad:
                break
            a = la[rng.randrange(len(la))]
            prev = ng.copy()  # equal to the Python state (checked); cheap to keep
            g.apply(a)
            ng.apply(a)
            done += 1
            hand_decisions += 1
            if g.hand_over or hand_decisions % FULL_EVERY == 0:
                pa, pb = to_position(g), ng.to_position()
            else:
                pa, pb = _raw(g), _raw(ng.to_game(copy=False))
            if pa != pb:
                bad = {"kind": "position", "action": a, "detail": _first_diff(pa, pb),
                       "position": prev.to_position()}
        if bad is not None:
            mismatches += 1
            done += 1
            if first is None:
                first = bad
    out = {"decisions": done, "mismatches": mismatches, "variant": variant, "games": games,
           "hands": hands, "python_deal_errors": deal_errors, "dead_ends": dead_ends, "seed": seed,
           "seconds": round(time.perf_counter() - t0, 2)}
    if first is not None:
        out["first_mismatch"] = first
    if first_dead_end is not None:
        out["first_dead_end"] = first_dead_end
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m canasta_env.differential", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--decisions", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", choices=("classic", "hand_and_foot", "all"), default="all")
    p.add_argument("--random-share", type=float, default=0.5,
                   help="share of games played with a random option set (0..1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dead-end-file", default=None,
                   help="write the first position where both engines offer no action here")
    args = p.parse_args(argv)
    res = run(args.decisions, args.seed, args.variant, args.random_share)
    first = res.pop("first_mismatch", None)
    dead = res.pop("first_dead_end", None)
    if dead is not None and args.dead_end_file:
        with open(args.dead_end_file, "w") as f:
            json.dump(dead, f)
    if args.json:
        print(json.dumps(res))
    else:
        print(" ".join(f"{k}={v}" for k, v in res.items()))
    if first is not None:
        print(json.dumps(first), file=sys.stderr if args.json else sys.stdout)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
