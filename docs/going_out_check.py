"""An experiment that was NOT adopted: the Classic reference with a going-out check.

The check: when the network's choice is a meld after which its hand holds at most one
card (a commitment to go out: the last card, if any, is then discarded) and the public
estimate of this hand's score (:func:`estimate`) says its partnership would then lose the
hand, it plays the network's best other legal action that does not commit to going out
-- unless the player must go out (partner answered "yes", or the turn state says so).
The estimate counts both sides' melds, canasta bonuses and red 3s as the rules do
(docs/RULES.md §2.15), the going-out bonus as 100, or 200 while the partnership has not
opened (the engine's concealed bonus is the player's own: a concealed going out after
partner opened is undercounted by 100), and the hidden hands at their known cards plus
11.3 points per other card (``canasta_env.policies.TableView``).

It raises the win rate per hand -- the figure ``training.evaluate`` reports for hand
episodes -- and costs points: the mean score difference per hand falls. In whole games
to 5,000 (``--games``), where points carry over, it plays far worse. README, Reference
policies, Classic, gives the figures.

    python docs/going_out_check.py [--seeds 100 101] [--hands 1000] [--games 400]

Prints one line per (opponent, seed, unit) for the network alone and with the check: the
hands or games played (two per deal), the win rate, the mean score difference (per hand
or per game) and how many decisions the check changed. About 2 minutes with the
defaults. Needs the training extra (it loads ``checkpoints/reference/classic.zip``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from canasta_env.cli import ArgumentParser, positive_int  # noqa: E402
from canasta_env.engine import actions as A  # noqa: E402
from canasta_env.engine.cards import NUM_CLASSES  # noqa: E402
from canasta_env.policies import TableView, _apply_meld, hand_value  # noqa: E402

CANASTA = 7


def _is_meld(a: int) -> bool:
    return A.START_MELD <= a <= A.MELD_BLACK_THREES


def _after(v: TableView, a: int) -> tuple[list[int], list[int], list[int]]:
    hand, nat, wild = list(v.hand), list(v.nat[0]), list(v.wild[0])
    _apply_meld(a, hand, nat, wild)
    return hand, nat, wild


def commits(v: TableView, a: int) -> bool:
    """Meld ``a`` leaves at most one card in hand: the player then goes out."""
    return _is_meld(a) and sum(_after(v, a)[0]) <= 1


def going_out_loses(v: TableView, a: int) -> bool:
    """``a`` commits to going out, the player is free not to, and :func:`estimate` says
    the partnership then loses the hand."""
    if not commits(v, a) or v.must_out or v.asked_yes:
        return False
    ours, theirs = estimate(v, a)
    return ours < theirs


def estimate(v: TableView, a: int) -> tuple[float, float]:
    """Estimated hand scores (points: ours, theirs) if meld ``a`` is made and the player
    then goes out (its last card, if any, discarded)."""
    hand, nat, wild = _after(v, a)
    ours = v.table_points(0) + hand_value(v.hand) - hand_value(hand)
    for r in range(NUM_CLASSES):  # canasta bonuses the meld completes or turns mixed
        n0, w0, n1, w1 = v.nat[0][r], v.wild[0][r], nat[r], wild[r]
        had = n0 and n0 + w0 >= CANASTA
        if n1 and n1 + w1 >= CANASTA and not had:
            ours += 300 if w1 else 500
        elif had and w0 == 0 and w1 > 0:
            ours -= 200
    ours += abs(v.red_three_points(0)) + (100 if v.opened[0] else 200) \
        - v.hidden_hand_value(2)
    theirs = v.table_points(1) + v.red_three_points(1) - v.hidden_hand_value(1) \
        - v.hidden_hand_value(3)
    return ours, theirs


class GoingOutCheck:
    """A network policy (``logits_batch``) with the check; stateless, deterministic."""

    stateless = True

    def __init__(self, net) -> None:
        self.net = net
        self.changed = 0

    def reset(self, seed: int | None = None) -> None:
        self.net.reset(seed)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations, masks) -> np.ndarray:
        logits = self.net.logits_batch(observations, masks)
        out = []
        for obs, mask, lg in zip(observations, masks, logits):
            a = int(np.argmax(lg))
            if _is_meld(a):
                v = TableView(obs)
                if going_out_loses(v, a):
                    others = [int(b) for b in np.flatnonzero(mask) if not commits(v, int(b))]
                    if others:
                        a = max(others, key=lambda b: lg[b])
                        self.changed += 1
            out.append(a)
        return np.array(out, dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[100, 101],
                    help="evaluation seeds (default: the validation seeds 100 101)")
    ap.add_argument("--hands", type=positive_int, default=1000,
                    help="duplicate hands per row, rounded up to even (default 1000)")
    ap.add_argument("--games", type=positive_int, default=400,
                    help="duplicate whole games per row, rounded up to even (default 400)")
    args = ap.parse_args(argv)
    from training.checkpoint import load_policy_checkpoint
    from training.evaluate import evaluate_policies

    path = Path(__file__).resolve().parents[1] / "checkpoints" / "reference" / "classic.zip"
    print("policy          opponent   seed unit   n     win rate  mean score diff  changed")
    for opp in ("random", "heuristic"):
        for seed in args.seeds:
            for unit, n in (("hand", args.hands), ("game", args.games)):
                for name in ("network", "with check"):
                    net = load_policy_checkpoint(path)
                    pol = net if name == "network" else GoingOutCheck(net)
                    kw = {"games": n} if unit == "game" else {"hands": n}
                    r = evaluate_policies(pol, opp, seed=seed, **kw)
                    print(f"{name:15s} {opp:10s} {seed:4d} {unit:6s} {r['episodes']:5d} "
                          f"{r['win_rate']:8.4f}  {r['mean_score_diff']:+15.1f}  "
                          f"{getattr(pol, 'changed', 0):7d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
