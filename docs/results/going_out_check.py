"""An experiment that was NOT adopted: the Classic reference with a going-out check.

The check (Classic only): when the network's choice commits its player to going out
this turn (:func:`commits`: a meld after which at most one card is left, melding black
3s, or a take of the pile that leaves at most one card) and the public estimate of this
hand's score (:func:`estimate`: the best way to finish going out) says its partnership
would then lose the hand, it plays the network's best other legal action that neither
commits nor asks partner -- unless the player must go out (partner answered "yes", or
black 3s were melded). The estimate counts both sides' melds, canasta bonuses and red 3s
as the rules do (docs/RULES.md §2.15), the going-out bonus as 200 for a side that opens
this turn and 100 otherwise (a concealed going out after partner opened is counted 100),
and the hidden hands at their known cards plus 11.3 points per other card
(``canasta_env.policies.TableView``). It judges the hand only: it never looks at the
game's scores, so in a whole game it refuses a going out that loses the hand even when
the game would be won.

It raises the win rate per hand -- the figure ``training.evaluate`` reports for hand
episodes -- and costs points: the mean score difference per hand falls. In whole games
to 5,000 (``--games``), where points carry over, it plays far worse. docs/results/experiments.md
gives the figures.

    python docs/results/going_out_check.py [--seeds 100 101] [--hands 1000] [--games 400]

Prints one line per (opponent, seed, unit) for the network alone and with the check: the
hands or games played (two per deal), the win rate, the mean score difference (per hand
or per game) and how many decisions the check changed. About 2 minutes with the
defaults. Needs the training extra (it loads ``checkpoints/reference/classic.zip``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from canasta_env.cli import ArgumentParser, positive_int  # noqa: E402
from canasta_env.engine import actions as A  # noqa: E402
from canasta_env.engine.cards import CARD_POINTS, JOKER, MELD_RANKS, NUM_CLASSES, RED_THREE, TWO  # noqa: E402
from canasta_env.engine.state import Phase  # noqa: E402
from canasta_env.observation import OBS_SIZE  # noqa: E402
from canasta_env.policies import TableView, _apply_meld, hand_value  # noqa: E402

CANASTA, MAX_WILDS = 7, 3
#: takes of the discard pile: (cards of the upcard's rank used from hand, wild card used)
_TAKES = {A.TAKE_PAIR: (2, None), A.TAKE_NAT_JOKER: (1, JOKER), A.TAKE_NAT_TWO: (1, TWO),
          A.TAKE_ONTO_MELD: (0, None)}


def _is_meld(a: int) -> bool:
    return A.START_MELD <= a <= A.MELD_BLACK_THREES


def _bonus(nat: list[int], wild: list[int]) -> int:
    return sum(300 if wild[r] else 500 for r in range(NUM_CLASSES)
               if nat[r] and nat[r] + wild[r] >= CANASTA)


def _after(v: TableView, a: int):
    """(hand, nat, wild, melded card points) of our side after action ``a`` (a meld or a
    take of the pile), or ``None`` for any other action."""
    hand, nat, wild = list(v.hand), list(v.nat[0]), list(v.wild[0])
    if _is_meld(a):
        _apply_meld(a, hand, nat, wild)
        used = hand_value(v.hand) - hand_value(hand)
    elif a in _TAKES and v.top >= 0:
        naturals, w = _TAKES[a]
        hand[v.top] -= naturals
        nat[v.top] += naturals + 1
        used = (naturals + 1) * CARD_POINTS[v.top]
        if w is not None:
            hand[w] -= 1
            wild[v.top] += 1
            used += CARD_POINTS[w]
        for c in range(NUM_CLASSES):  # the rest of the pile joins the hand
            if c != RED_THREE:
                hand[c] += v.pile[c] - (c == v.top)
    else:
        return None
    return hand, nat, wild, used


def commits(v: TableView, a: int) -> bool:
    """Action ``a`` commits the player to going out this turn: a meld that leaves at most
    one card in hand, melding black 3s (allowed only when going out), or a take of the
    pile after which at most one card is left. Not in phase PICKUP (a meld there can
    collect the set-aside pile) and not for a side that has not opened (a take then opens
    first). Classic observations only."""
    if v.phase == Phase.PICKUP:
        return False
    if a == A.MELD_BLACK_THREES:
        return True
    if a in _TAKES and not v.opened[0]:
        return False
    after = _after(v, a)
    return after is not None and sum(after[0]) <= 1


def going_out_loses(v: TableView, a: int) -> bool:
    """``a`` commits to going out, the player is free not to, and :func:`estimate` says
    the partnership then loses the hand (a tie is not a loss)."""
    if not commits(v, a) or v.must_out or v.asked_yes:
        return False
    ours, theirs = estimate(v, a)
    return ours < theirs


def estimate(v: TableView, a: int) -> tuple[float, float]:
    """Estimated hand scores (points: ours, theirs) if the committing action ``a`` is
    played and the player then goes out in the way that scores most for us: a last card
    is discarded or melded (a natural onto our meld of its rank, a wild card onto a meld
    with fewer than 3), whichever gives the more points; after black 3s the other cards
    left count at their value, melded without new canastas. Going-out bonus 200 while our
    side has not opened or opened this turn (then the player goes out concealed), else
    100: a concealed going out after partner opened is counted as 100. Classic only."""
    hand, nat, wild, used = _after(v, a)
    base = v.table_points(0) - _bonus(v.nat[0], v.wild[0]) + used
    finishes = [(base, nat, wild)]
    left = sum(hand)
    if a == A.MELD_BLACK_THREES and left > 1:
        low = min(CARD_POINTS[c] for c in range(NUM_CLASSES) if hand[c])
        finishes = [(base + hand_value(hand) - low, nat, wild)]
    elif left == 1:
        c = hand.index(1)
        targets = [c] if c in MELD_RANKS and nat[c] else \
            [r for r in MELD_RANKS if nat[r] and wild[r] < MAX_WILDS] if c in (JOKER, TWO) \
            else []
        for r in targets:
            n2, w2 = list(nat), list(wild)
            if c == r:
                n2[r] += 1
            else:
                w2[r] += 1
            finishes.append((base + CARD_POINTS[c], n2, w2))
    table = max(pts + _bonus(n, w) for pts, n, w in finishes)
    concealed = not v.opened[0] or v.turn_points > 0
    ours = table + abs(v.red_three_points(0)) + (200 if concealed else 100) \
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
        """Raises ``ValueError`` for observations that are not Classic ones."""
        if np.ndim(observations) != 2 or np.shape(observations)[1] != OBS_SIZE:
            raise ValueError(f"the going-out check reads Classic observations [B, {OBS_SIZE}], "
                             f"got shape {np.shape(observations)}")
        logits = self.net.logits_batch(observations, masks)
        out = []
        for obs, mask, lg in zip(observations, masks, logits):
            a = int(np.argmax(lg))
            if _is_meld(a) or a in _TAKES:
                v = TableView(obs)
                if going_out_loses(v, a):  # asking partner could bind it to go out too
                    others = [int(b) for b in np.flatnonzero(mask)
                              if not commits(v, int(b)) and b != A.ASK_PARTNER]
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

    path = Path(__file__).resolve().parents[2] / "checkpoints" / "reference" / "classic.zip"
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
