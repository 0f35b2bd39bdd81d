"""One seat's observation decoded into integer counts (:class:`TableView`) and the
estimates the heuristic draws from it: table points (scored by the engine's score sheet,
:func:`canasta_env.engine.scoring.score_partnership`, docs/RULES.md §2.15), red 3s,
unseen cards, the value of hidden hands, and the hypergeometric chance
:func:`p_at_least`.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from math import comb

import numpy as np

from ..engine.cards import CARD_POINTS, JOKER, MELD_RANKS, NUM_CLASSES, RED_THREE, TWO, deck_counts
from ..engine.game import Phase
from ..engine.options import RulesOptions
from ..engine.scoring import score_partnership
from ..observation import MELD_SLOTS, OBS_SIZE, OBS_SIZE_HAND_AND_FOOT, SLICES, SLICES_HAND_AND_FOOT

_V = CARD_POINTS
_WILD_VALUE = {JOKER: _V[JOKER], TWO: _V[TWO]}
#: average card value of the pack without red 3s (1,180 points / 104 cards), used for
#: hidden cards
HIDDEN_CARD_VALUE = 11.3
_PHASES = tuple(Phase)
#: the Classic pack: two decks and four jokers (108 cards), per card class
_PACK = deck_counts(2, 4)


def p_at_least(k: int, population: int, successes: int, draws: int) -> float:
    """P(X >= k) for X hypergeometric: ``draws`` cards dealt without replacement from
    ``population`` unseen cards of which ``successes`` are of the class asked about
    (card counts). ``k <= 0`` gives 1.0; impossible cases give 0.0.

    Raises:
        ValueError: ``successes > population``."""
    if successes > population:
        raise ValueError(f"p_at_least: {successes} cards of the class cannot be among "
                         f"{population} unseen cards")
    if k <= 0:
        return 1.0
    draws = min(draws, population)
    if draws <= 0 or successes <= 0:
        return 0.0
    total = comb(population, draws)
    return sum(comb(successes, x) * comb(population - successes, draws - x)
               for x in range(k, min(successes, draws) + 1)) / total


def _ints(x: np.ndarray, scale: float) -> list[int]:
    return np.rint(x * scale).astype(np.int64).tolist()


def _per_class(slots: list[int]) -> list[int]:
    out = [0] * NUM_CLASSES
    for c, n in zip(MELD_SLOTS, slots):
        out[c] = n
    return out


@lru_cache(maxsize=None)
def _classic_rules(canasta_size: int) -> RulesOptions:
    """The Classic rules with ``canasta_size`` (the score sheet's bonuses and red 3s)."""
    return dataclasses.replace(RulesOptions(), canasta_size=canasta_size)


class TableView:
    """One seat's observation decoded into integer counts (cards, points).

    Seat-relative: index 0 = me, 1 = left, 2 = partner, 3 = right; ``us`` / ``them``
    are partnerships. Meld vectors are indexed by card class (length 15).
    """

    __slots__ = ("hand", "known", "sizes", "red3", "nat", "jok", "two", "wild", "top",
                 "pile", "pile_size", "frozen_all", "frozen_us", "frozen_them", "stop",
                 "stock", "scores", "minimum", "opened", "phase", "turn_points", "laid",
                 "drew_stock", "asked_yes", "asked_no", "must_out", "no_discard", "in_foot",
                 "foot_sizes", "books", "wild_meld")

    def __init__(self, obs: np.ndarray) -> None:
        obs = np.asarray(obs, dtype=np.float32)
        if obs.shape not in ((OBS_SIZE,), (OBS_SIZE_HAND_AND_FOOT,)):
            raise ValueError(f"observation must have shape ({OBS_SIZE},) or "
                             f"({OBS_SIZE_HAND_AND_FOOT},), got {obs.shape}")
        S = SLICES
        self.hand = _ints(obs[S["hand"]], 8)
        self.known = [None, _ints(obs[S["known_left"]], 8), _ints(obs[S["known_partner"]], 8),
                      _ints(obs[S["known_right"]], 8)]
        self.sizes = _ints(obs[S["hand_sizes"]], 30)
        self.red3 = _ints(obs[S["red_threes"]], 4)
        self.nat = [_per_class(_ints(obs[S[f"melds_{s}_naturals"]], 8)) for s in ("us", "them")]
        self.jok = [_per_class(_ints(obs[S[f"melds_{s}_jokers"]], 4)) for s in ("us", "them")]
        self.two = [_per_class(_ints(obs[S[f"melds_{s}_twos"]], 4)) for s in ("us", "them")]
        self.wild = [[a + b for a, b in zip(self.jok[t], self.two[t])] for t in (0, 1)]
        top = obs[S["pile_top"]]
        self.top = int(np.argmax(top)) if top.max() > 0.5 else -1
        self.pile = _ints(obs[S["pile_contents"]], 8)
        self.pile_size = int(round(float(obs[S["pile_size"]][0]) * 50))
        fr = obs[S["pile_frozen"]]
        self.frozen_all, self.frozen_us, self.frozen_them = (bool(x > 0.5) for x in fr)
        self.stop = bool(obs[S["stop_card"]][0] > 0.5)
        self.stock = int(round(float(obs[S["stock_size"]][0]) * 100))
        self.scores = [a - b for a, b in zip(_ints(obs[S["scores"]], 5000),
                                             _ints(obs[S["scores_below_zero"]], 5000))]
        self.minimum = _ints(obs[S["opening_minimums"]], 120)
        self.opened = [bool(x > 0.5) for x in obs[S["opened"]]]
        self.phase = _PHASES[int(np.argmax(obs[S["phase"]]))]
        ts = obs[S["turn_state"]]
        self.turn_points = int(round(float(ts[0]) * 120))
        self.laid, self.drew_stock, self.asked_yes, self.asked_no, self.must_out, \
            self.no_discard = (bool(x > 0.5) for x in ts[1:7])
        # Hand and Foot pieces (zeros for Classic): in foot / foot size per relative
        # seat, (clean, dirty, wild) books and (jokers, twos) of the wild meld per side
        if obs.shape == (OBS_SIZE_HAND_AND_FOOT,):
            H = SLICES_HAND_AND_FOOT
            self.in_foot = [bool(x > 0.5) for x in obs[H["in_foot"]]]
            self.foot_sizes = _ints(obs[H["foot_sizes"]], 11)
            self.books = [_ints(obs[H["books_us"]], 4), _ints(obs[H["books_them"]], 4)]
            wm = _ints(obs[H["wild_melds"]], 4)
            self.wild_meld = [wm[0:2], wm[2:4]]
        else:
            self.in_foot = [False] * 4
            self.foot_sizes = [0] * 4
            self.books = [[0, 0, 0], [0, 0, 0]]
            self.wild_meld = [[0, 0], [0, 0]]

    # --------------------------------------------------------------- estimates
    def table_points(self, team: int, canasta_size: int = 7) -> int:
        """Card values plus canasta bonuses of a partnership's melds: the ``table`` and
        ``canasta_bonus`` rows of the engine's score sheet (docs/RULES.md §2.15) under the
        Classic rules with ``canasta_size``."""
        sheet = score_partnership(_classic_rules(canasta_size), self.nat[team], self.jok[team],
                                  self.two[team], 0, True, 0, (), 0)
        return sheet.table + sheet.canasta_bonus

    def canastas(self, team: int, canasta_size: int = 7) -> int:
        nat, wild = self.nat[team], self.wild[team]
        return sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= canasta_size)

    def red_three_points(self, team: int) -> int:
        """The ``red_threes`` row of the partnership's score sheet under the Classic rules
        (docs/RULES.md §2.5: 100 each, 800 for all four, negative before it melds)."""
        seats = (0, 2) if team == 0 else (1, 3)
        sheet = score_partnership(_classic_rules(7), [0] * NUM_CLASSES, [0] * NUM_CLASSES,
                                  [0] * NUM_CLASSES, self.red3[seats[0]] + self.red3[seats[1]],
                                  any(self.nat[team]), 0, (), 0)
        return sheet.red_threes

    def unseen(self, pack: list[int] | None = None) -> list[int]:
        """Cards of each class (length 15) this seat has not seen: ``pack`` (count vector
        of the cards in play, default the Classic pack of two decks and four jokers,
        :func:`canasta_env.engine.cards.deck_counts`) less its own hand, both sides'
        melds, the discard pile, red 3s on the table and the cards known to be in the
        other hands. They are in the stock or hidden in hands. Pass the pack of the game
        for other packs (e.g. Hand and Foot's); the observation does not carry it."""
        pack = _PACK if pack is None else pack
        seen = [self.hand[c] + self.pile[c] + self.nat[0][c] + self.nat[1][c]
                + self.known[1][c] + self.known[2][c] + self.known[3][c]
                for c in range(NUM_CLASSES)]
        seen[JOKER] += sum(self.jok[0]) + sum(self.jok[1])
        seen[TWO] += sum(self.two[0]) + sum(self.two[1])
        seen[RED_THREE] += sum(self.red3)
        return [max(0, n - k) for n, k in zip(pack, seen)]

    def hidden_hand_value(self, rel_seat: int) -> float:
        """Estimated card value of another seat's hand: known cards exactly, the rest at
        the average card value."""
        known = self.known[rel_seat]
        kn = sum(known)
        return sum(n * v for n, v in zip(known, _V)) + max(0, self.sizes[rel_seat] - kn) * \
            HIDDEN_CARD_VALUE


def hand_value(hand) -> int:
    return sum(n * v for n, v in zip(hand, _V))
