"""Baseline policies: the :class:`Policy` protocol, a uniform random player and a
rule-based heuristic player.

A policy maps one seat's view -- the observation vector (float32, ``(OBS_SIZE,)``, layout
in :mod:`canasta_env.observation`) and the action mask (int8, ``(NUM_ACTIONS,)``) -- to a
legal action id. It knows nothing else about the game, so the same object can play any
seat, and the mask guarantees that every action it picks keeps the turn completable.
``reset(seed)`` is called at the start of an episode; a policy with randomness draws it
only from its own generator, so a seeded evaluation replays exactly.

No torch import here: learned policies live in :mod:`training.checkpoint`.

Every policy checks its inputs with :func:`check_policy_inputs` before acting and raises
``ValueError`` with one message per kind of bad input (not 1-D, another variant's size,
not finite floats, a mask that is not 0 / 1 or has no legal action); docs/RULES.md §7.

=======================  ============================================================
policy                   behaviour
=======================  ============================================================
:class:`RandomPolicy`    uniform over the legal actions (own numpy ``Generator``)
:class:`HeuristicPolicy` rule-based, reads only (observation, mask); deterministic;
                         ``act_batch`` for ``[B, N]`` observations and ``[B, A]``
                         masks; compiled (native core, core/heuristic.c) when the
                         core is built, this module's code (the reference) otherwise
                         or with ``backend="python"``: the same decisions
=======================  ============================================================

The heuristic, by phase:

- draw: take the pile whenever a take is legal and pays (onto our meld or with a natural
  pair always; spending a wild card only for a pile of 3+ cards); otherwise draw.
  With the stock empty, take only onto a meld or with a pair, else decline.
- opening: as soon as the mask offers a meld while the partnership has not opened, lay
  the opening (naturals first, wild cards only when the minimum needs them). The mask
  only offers melds from which the minimum stays reachable, so this never strands.
- melding: add naturals to our melds, start melds of three naturals while the hand holds
  12 cards or more (a smaller hand keeps its pairs and triples to take the pile with),
  put wild cards on a meld only when they complete a canasta (or when going out); keep
  two cards so there is always a discard and a card left.
- going out: when a local planner (the same counting argument the engine uses) finds
  that the whole hand can be melded but at most one card, with a canasta, and our
  estimated hand score then beats the opponents' (or they are close to going out / the
  stock is nearly gone), meld down greedily, keeping the plan feasible at every step.
- discard: black 3s first (stop card), never a wild card unless forced; otherwise the
  natural least useful to us and least likely to let the left-hand opponent take the
  pile: a rank the opponents melded (pile not frozen for them) is a sure take; otherwise
  the chance that their hidden cards hold the pair (or natural + wild card) the take
  needs, from the unseen cards (hypergeometric, :func:`p_at_least`) and the cards known
  in their hand, weighted by the pile's size; singletons before pairs, low values.
- answering "may I go out?": yes when our side is ahead on this hand's estimated score,
  the opponents are close to going out, the stock is nearly gone or the answerer's own
  hand is small; otherwise no.
- never asks the partner (asking is optional in Classic).
"""

from __future__ import annotations

from math import comb
from typing import Protocol, runtime_checkable

import numpy as np

from .engine import actions as A
from .engine.cards import (
    BLACK_THREE,
    CARD_POINTS,
    DISCARDABLE,
    JOKER,
    MELD_RANKS,
    NUM_CLASSES,
    RED_THREE,
    TWO,
    deck_counts,
)
from .engine.feasibility import can_go_out as _engine_can_go_out
from .engine.game import Phase
from .observation import MELD_SLOTS, OBS_SIZE, OBS_SIZE_HAND_AND_FOOT, SLICES, SLICES_HAND_AND_FOOT

__all__ = ["Policy", "RandomPolicy", "HeuristicPolicy", "TableView", "can_go_out",
           "check_policy_batch", "check_policy_inputs", "p_at_least"]

#: observation size -> (variant name, number of actions) of the two layouts
LAYOUTS: dict[int, tuple[str, int]] = {
    OBS_SIZE: ("Classic", A.NUM_ACTIONS),
    OBS_SIZE_HAND_AND_FOOT: ("Hand and Foot", A.NUM_ACTIONS_HAND_AND_FOOT),
}
_BY_ACTIONS = {n: (name, size) for size, (name, n) in LAYOUTS.items()}


#: Largest value any observation entry can take (the encoder writes scaled counts and flags,
#: all >= 0; the largest are scores / 5,000 under the position format's +-10,000,000 bound).
OBS_MAX = 10_000


def check_policy_inputs(observation, action_mask, obs_size: int | None = None,
                        num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate one seat's (observation, action mask) before a policy acts on it
    (docs/RULES.md §7 environment contract & boundaries: a policy asked to act on an
    all-zero mask or on another variant's observation raises).

    The sizes a policy expects: ``obs_size`` / ``num_actions`` when given (a policy bound
    to one variant, e.g. a checkpoint); otherwise the variant whose layout the mask's
    length (else the observation's) names: Classic :data:`OBS_SIZE` entries and
    ``NUM_ACTIONS`` (91) actions, Hand and Foot :data:`OBS_SIZE_HAND_AND_FOOT` and 98.

    Args:
        observation: one seat's observation, a 1-D float vector (float32 from the env).
        action_mask: its action mask, 1-D: int8 (as the env gives it), bool, or other
            integers (or floats) that are all exactly 0 or 1; 1 = legal.
        obs_size, num_actions: the sizes the policy expects (None: by the layout).

    Returns:
        (observation as float32, mask as int8), both 1-D (copies only when converted).

    Raises:
        ValueError: the message says exactly what is wrong -- not 1-D, not floats,
            non-finite values, values outside ``0..OBS_MAX``, another size (naming the
            variant the policy expects and the one the input belongs to), mask values
            other than 0 / 1, or a mask with no legal action (all zeros).
    """
    try:
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
    except (TypeError, ValueError) as e:
        raise ValueError(f"observation and action_mask must be numeric arrays ({e})") from None
    if obs.ndim != 1:
        raise ValueError(f"observation must be 1-D (one seat's vector), got shape {obs.shape}")
    if mask.ndim != 1:
        raise ValueError(f"action_mask must be 1-D (one seat's mask), got shape {mask.shape}")
    # the sizes this policy plays
    if obs_size is None and num_actions is None:
        if len(mask) in _BY_ACTIONS:
            obs_size = _BY_ACTIONS[len(mask)][1]
        elif len(obs) in LAYOUTS:
            obs_size = len(obs)
        else:
            raise ValueError(
                f"action_mask has {len(mask)} entries and observation {len(obs)}; a policy "
                f"expects {A.NUM_ACTIONS} and {OBS_SIZE} (Classic) or "
                f"{A.NUM_ACTIONS_HAND_AND_FOOT} and {OBS_SIZE_HAND_AND_FOOT} (Hand and Foot)")
    if obs_size is None:
        obs_size = _BY_ACTIONS.get(num_actions, (None, None))[1]
    if num_actions is None:
        num_actions = LAYOUTS.get(obs_size, (None, None))[1]
    name = LAYOUTS.get(obs_size, (None,))[0]
    this = f"this {name} policy" if name else "this policy"
    if obs_size is not None and len(obs) != obs_size:
        other = LAYOUTS.get(len(obs), (None,))[0]
        why = f" (a {other} observation: another variant)" if other else ""
        raise ValueError(f"observation has {len(obs)} entries, {this} expects {obs_size}{why}")
    if obs.dtype.kind != "f":
        raise ValueError(f"observation must be floats (float32), got dtype {obs.dtype}")
    finite = np.isfinite(obs)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise ValueError(f"observation has {bad.size} non-finite value(s) (NaN or inf), first "
                         f"at index {int(bad[0])}")
    out_of_range = (obs < 0) | (obs > OBS_MAX)
    if out_of_range.any():
        i = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(f"observation entry {i} is {obs[i].item()!r}, outside the encoder's "
                         f"range 0..{OBS_MAX:,} (entries are scaled counts and flags)")
    if num_actions is not None and len(mask) != num_actions:
        other = _BY_ACTIONS.get(len(mask), (None,))[0]
        why = f" (a {other} mask: another variant)" if other else ""
        raise ValueError(f"action_mask has {len(mask)} entries, {this} expects "
                         f"{num_actions}{why}")
    if mask.dtype != np.bool_:
        if mask.dtype.kind not in "iuf":
            raise ValueError(f"action_mask must be int8, bool or numbers 0 / 1, got dtype "
                             f"{mask.dtype}")
        bad = ~((mask == 0) | (mask == 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"action_mask entries must be 0 or 1, got {mask[i].item()} at "
                             f"index {i}")
    if not mask.any():
        raise ValueError("action_mask has no legal action (all zeros)")
    return obs.astype(np.float32, copy=False), mask.astype(np.int8, copy=False)


def check_policy_batch(observations, masks, obs_size: int | None = None,
                       num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch of (observation, action mask) rows, row by row with the rules of
    :func:`check_policy_inputs` (docs/RULES.md §7).

    Args:
        observations: ``[B, N]`` floats (float32 from the env), one seat's view per row.
        masks: ``[B, A]`` int8, bool or numbers 0 / 1, the same ``B``.
        obs_size, num_actions: as for :func:`check_policy_inputs`.

    Returns:
        (observations as C-contiguous float32 ``[B, N]``, masks as C-contiguous int8
        ``[B, A]``); ``B`` may be 0.

    Raises:
        ValueError: not 2-D (``observations must be 2-D (one row per seat), got shape
            (202,)``), different numbers of rows (``observations has 3 rows and masks 2;
            they must match``), columns or dtypes another policy's (the message of
            :func:`check_policy_inputs` for them), or a bad row: the message of
            :func:`check_policy_inputs` for the first bad row ``i``, prefixed with
            ``row i: `` (e.g. ``row 3: action_mask has no legal action (all zeros)``).
    """
    try:
        obs = np.asarray(observations)
        mask = np.asarray(masks)
    except (TypeError, ValueError) as e:
        raise ValueError(f"observations and masks must be numeric arrays ({e})") from None
    if obs.ndim != 2:
        raise ValueError(f"observations must be 2-D (one row per seat), got shape {obs.shape}")
    if mask.ndim != 2:
        raise ValueError(f"masks must be 2-D (one row per seat), got shape {mask.shape}")
    if obs.shape[0] != mask.shape[0]:
        raise ValueError(f"observations has {obs.shape[0]} rows and masks {mask.shape[0]}; "
                         f"they must match")
    # sizes and dtypes, shared by every row: a harmless row of those columns and dtypes
    check_policy_inputs(np.zeros(obs.shape[1], dtype=obs.dtype),
                        np.ones(mask.shape[1], dtype=mask.dtype), obs_size, num_actions)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(obs).all(axis=1) | ((obs < 0) | (obs > OBS_MAX)).any(axis=1)
    if mask.dtype != np.bool_:
        bad |= ~((mask == 0) | (mask == 1)).all(axis=1)
    bad |= ~mask.any(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        try:
            check_policy_inputs(obs[i], mask[i], obs_size, num_actions)
        except ValueError as e:
            raise ValueError(f"row {i}: {e}") from None
        raise AssertionError(f"row {i} of the batch was refused but passes the row check")
    return (np.ascontiguousarray(obs, dtype=np.float32),
            np.ascontiguousarray(mask, dtype=np.int8))


@runtime_checkable
class Policy(Protocol):
    """Anything that picks a legal action from one seat's observation and mask.

    A policy may also have ``act_batch(observations, masks) -> np.ndarray``: float32
    ``[B, N]`` observations and int8 or bool ``[B, A]`` masks to int64 ``[B]`` actions,
    row ``i`` the action ``act`` gives for row ``i`` (:meth:`HeuristicPolicy.act_batch`;
    inputs checked by :func:`check_policy_batch`)."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode; ``seed`` (if given) re-seeds any randomness."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for ``observation`` (float32 ``(OBS_SIZE,)``) and
        ``action_mask`` (int8 or bool ``(NUM_ACTIONS,)``, 1 = legal). Raises
        ``ValueError`` for inputs :func:`check_policy_inputs` refuses."""


class RandomPolicy:
    """Uniformly random over the legal actions.

    Args:
        seed: seed of the policy's own ``numpy.random.Generator``.
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniformly random legal action.

        Raises:
            ValueError: bad inputs, see :func:`check_policy_inputs`.
        """
        _, mask = check_policy_inputs(observation, action_mask)
        legal = np.flatnonzero(mask)
        return int(legal[self._rng.integers(legal.size)])


# ---------------------------------------------------------------------------- decoding
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
        """Card values plus canasta bonuses of a partnership's melds."""
        nat, jok, two = self.nat[team], self.jok[team], self.two[team]
        pts = 0
        for r in range(NUM_CLASSES):
            n = nat[r]
            if not n:
                continue
            w = jok[r] + two[r]
            pts += n * _V[r] + jok[r] * _V[JOKER] + two[r] * _V[TWO]
            if n + w >= canasta_size:
                pts += 300 if w else 500
        return pts

    def canastas(self, team: int, canasta_size: int = 7) -> int:
        nat, wild = self.nat[team], self.wild[team]
        return sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= canasta_size)

    def red_three_points(self, team: int) -> int:
        seats = (0, 2) if team == 0 else (1, 3)
        n = self.red3[seats[0]] + self.red3[seats[1]]
        pts = 800 if n >= 4 else 100 * n
        return pts if any(self.nat[team]) else -pts

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


# ---------------------------------------------------------------------------- planner
def can_go_out(hand, nat, wild, cap: int = 3, size: int = 7, needed: int = 1) -> bool:
    """Can ``hand`` be melded onto our melds (``nat`` naturals / ``wild`` wild cards per
    card class) completely, or but one card that is then discarded, leaving the
    partnership ``needed`` canastas? Count vectors of length 15 (card classes). The
    engine's own exact check (:func:`canasta_env.engine.feasibility.can_go_out`) on
    public information."""
    have = sum(1 for r in MELD_RANKS if nat[r] and nat[r] + wild[r] >= size)
    return _engine_can_go_out(list(hand), nat, wild, cap, size, have, needed, 0)


def _apply_meld(action: int, hand: list[int], nat: list[int], wild: list[int]) -> int:
    """Apply a meld action to copies of (hand, nat, wild) in place; cards used."""
    if action == A.MELD_BLACK_THREES:
        n = hand[BLACK_THREE]
        hand[BLACK_THREE] = 0
        nat[BLACK_THREE] += n
        return n
    if A.ADD_TO_MELD <= action < A.MELD_BLACK_THREES:
        i, k = divmod(action - A.ADD_TO_MELD, 3)
        r = MELD_RANKS[i]
        c = (r, JOKER, TWO)[k]
        hand[c] -= 1
        if k == 0:
            nat[r] += 1
        else:
            wild[r] += 1
        return 1
    i, k = divmod(action - A.START_MELD, 3)
    r = MELD_RANKS[i]
    if k == 0:
        hand[r] -= 3
        nat[r] += 3
    else:
        hand[r] -= 2
        hand[JOKER if k == 1 else TWO] -= 1
        nat[r] += 2
        wild[r] += 1
    return 3


def _meld_kind(action: int) -> tuple[str, int, int]:
    """('start' | 'add' | 'b3', rank class, kind 0 natural / 1 joker / 2 two)."""
    if action == A.MELD_BLACK_THREES:
        return "b3", BLACK_THREE, 0
    if action >= A.ADD_TO_MELD:
        i, k = divmod(action - A.ADD_TO_MELD, 3)
        return "add", MELD_RANKS[i], k
    i, k = divmod(action - A.START_MELD, 3)
    return "start", MELD_RANKS[i], k


_TAKES = (A.TAKE_ONTO_MELD, A.TAKE_PAIR, A.TAKE_NAT_TWO, A.TAKE_NAT_JOKER)
_TAKE_USES = {A.TAKE_ONTO_MELD: 0, A.TAKE_PAIR: 2, A.TAKE_NAT_TWO: 2, A.TAKE_NAT_JOKER: 2}
_MELD_LO, _MELD_HI = A.START_MELD, A.MELD_BLACK_THREES  # [lo, hi) start/add ids; b3 apart


def _native_heuristic(policy: HeuristicPolicy):
    """(``NativeHeuristic`` with ``policy``'s parameters, None) or (None, why not)."""
    try:
        from .native._core import NativeHeuristic
    except ImportError as e:  # the core is not built
        return None, f"the native core is not built ({e})"
    try:
        return NativeHeuristic(policy.cap, policy.size, policy.needed, policy.stop_stock,
                               policy.start_meld_hand, policy.pack), None
    except ValueError as e:
        return None, str(e)


class HeuristicPolicy:
    """Rule-based player working only from (observation, action mask); deterministic.

    Args:
        max_wilds_per_meld, canasta_size, canastas_to_go_out: the rules options the
            observation does not carry (Classic defaults).
        stop_stock: with this many stock cards or fewer, go out whenever possible.
        start_meld_hand: start a new meld (after opening, when not going out) only with
            at least this many cards in hand; a smaller hand keeps its pairs and triples
            to take the discard pile with. Classic only.
        decks, jokers: the pack (Classic: 2 and 4), for counting unseen cards.
        backend: ``"auto"`` (default): the native core's port of this policy
            (:class:`canasta_env.native._core.NativeHeuristic`, core/heuristic.c) when
            the core is built and the parameters fit it (ints within +-1,000,000, a
            pack of at most 480 cards), else this module's Python code; ``"native"``:
            the port or an error; ``"python"``: the Python code, the reference the
            port is tested against (tests/native/test_fast_heuristic.py). Both make the same
            decisions; :attr:`backend` tells which one runs.

    Raises:
        ValueError: an option is not a non-negative int (``decks`` at least 1); an
            unknown ``backend``; ``backend="native"`` without the core or with
            parameters it cannot hold (the message says which).
    """

    name = "heuristic"

    def __init__(self, max_wilds_per_meld: int = 3, canasta_size: int = 7,
                 canastas_to_go_out: int = 1, stop_stock: int = 8,
                 start_meld_hand: int = 12, decks: int = 2, jokers: int = 4,
                 backend: str = "auto") -> None:
        for name, value, low in (("start_meld_hand", start_meld_hand, 0), ("decks", decks, 1),
                                 ("jokers", jokers, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"HeuristicPolicy: {name} must be an int >= {low}, "
                                 f"got {value!r}")
        self.pack = deck_counts(decks, jokers)
        self.cap = max_wilds_per_meld
        self.size = canasta_size
        self.needed = canastas_to_go_out
        self.stop_stock = stop_stock
        self.start_meld_hand = start_meld_hand
        if backend not in ("auto", "native", "python"):
            raise ValueError(f"HeuristicPolicy: backend must be 'auto', 'native' or 'python', "
                             f"got {backend!r}")
        self._requested = backend
        self._bind_backend()

    def _bind_backend(self) -> None:
        self._core = None
        if self._requested != "python":
            self._core, why = _native_heuristic(self)
            if self._core is None and self._requested == "native":
                raise ValueError(f"HeuristicPolicy: backend='native' is not available: {why}")
        #: ``"native"`` (core/heuristic.c) or ``"python"`` (this module): which one decides
        self.backend = "python" if self._core is None else "native"

    def __getstate__(self) -> dict:
        """Pickled without the native object: unpickling binds the backend again (in
        another process: its own core, or the Python code if ``"auto"``)."""
        state = self.__dict__.copy()
        state["_core"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_backend()

    def reset(self, seed: int | None = None) -> None:  # deterministic: nothing to reset
        pass

    # ------------------------------------------------------------------ entry
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The heuristic's legal action (see the module docstring) for one seat's
        ``observation`` (float32 ``(202,)`` Classic or ``(245,)`` Hand and Foot) and
        ``action_mask`` (int8 or bool ``(91,)`` / ``(98,)``, 1 = legal); the variant is
        the mask's. Native when :attr:`backend` is ``"native"``, with the same result.

        Raises:
            ValueError: bad inputs, see :func:`check_policy_inputs`.
        """
        core = self._core
        if core is not None and type(observation) is np.ndarray and \
                type(action_mask) is np.ndarray:
            # fast path: the core accepts exactly the float32 / int8 inputs that
            # check_policy_inputs accepts; anything else goes through the check below,
            # for its message (and its conversions)
            try:
                if action_mask.dtype == np.bool_:
                    return core.action(observation, action_mask.view(np.int8))
                return core.action(observation, action_mask)
            except ValueError:
                pass
        observation, action_mask = check_policy_inputs(observation, action_mask)
        if core is not None:
            return core.action(np.ascontiguousarray(observation),
                               np.ascontiguousarray(action_mask))
        return self._act_python(observation, action_mask)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`act` for each row: ``observations`` float32 ``[B, N]``, ``masks`` int8
        or bool ``[B, A]`` (N, A: 202, 91 Classic or 245, 98 Hand and Foot); returns
        int64 ``[B]``, row ``i`` equal to ``act(observations[i], masks[i])``. One call
        into the native core for the whole batch when :attr:`backend` is ``"native"``.

        Raises:
            ValueError: bad inputs, see :func:`check_policy_batch` (a row's message is
                :func:`check_policy_inputs`' prefixed with ``row i:``).
        """
        obs, mask = check_policy_batch(observations, masks)
        if self._core is not None:
            return self._core.actions(obs, mask)
        return np.fromiter((self._act_python(o, m) for o, m in zip(obs, mask)),
                           dtype=np.int64, count=len(obs))

    def _act_python(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The Python implementation (the reference) on checked inputs."""
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        v = TableView(observation)
        if len(action_mask) == A.NUM_ACTIONS_HAND_AND_FOOT:
            a = _hand_and_foot_action(v, legal)
            return a if a in legal else legal[0]
        legal_set = set(legal)
        if v.phase == Phase.DRAW:
            a = self._draw(v, legal_set)
        elif v.phase == Phase.ANSWER:
            a = self._answer(v, legal_set)
        elif v.phase == Phase.PICKUP:
            a = self._opening(v, legal)
        else:
            a = self._meld_phase(v, legal, legal_set)
        if a is None or a not in legal_set:  # defensive: never return an illegal id
            a = legal[0]
        return a

    # ------------------------------------------------------------------ draw
    def _draw(self, v: TableView, legal: set[int]) -> int:
        # a take that melds the last cards (a one-card pile taken with the last two) goes
        # out: only when going out is wanted
        size = sum(v.hand)
        gained = v.pile_size - 1 - v.pile[RED_THREE]
        takes = [k for k in _TAKES if k in legal]
        if any(size - _TAKE_USES[k] + gained <= 0 for k in takes) and not self._want_out(v):
            takes = [k for k in takes if size - _TAKE_USES[k] + gained > 0]
        if v.stock == 0 or A.DRAW_STOCK not in legal:
            # stock exhausted: every take is voluntary unless forced (then no decline)
            for k in (A.TAKE_ONTO_MELD, A.TAKE_PAIR):
                if k in takes:
                    return k
            if A.DECLINE_PILE in legal:
                return A.DECLINE_PILE
            return takes[0] if takes else min(legal)
        for k in takes:
            if k in (A.TAKE_ONTO_MELD, A.TAKE_PAIR):
                return k
            if v.pile_size >= 3:  # spend a wild card only on a pile worth it
                return k
        return A.DRAW_STOCK

    # ------------------------------------------------------------------ answer
    def _estimate(self, v: TableView, out_hand_value: float, out_bonus: int,
                  our_hidden: float) -> int:
        """Estimated (us - them) hand score if our side goes out now."""
        us = (v.table_points(0, self.size) + out_hand_value + out_bonus + v.red_three_points(0)
              - our_hidden)
        if not any(v.nat[0]):  # going out opens us: red 3s count positive
            us += 2 * abs(v.red_three_points(0))
        them = (v.table_points(1, self.size) + v.red_three_points(1)
                - v.hidden_hand_value(1) - v.hidden_hand_value(3))
        return int(us - them)

    def _opponents_close(self, v: TableView) -> bool:
        return v.canastas(1, self.size) >= self.needed and min(v.sizes[1], v.sizes[3]) <= 3

    def _answer(self, v: TableView, legal: set[int]) -> int:
        if A.ANSWER_NO not in legal:
            return A.ANSWER_YES
        # the asker (partner) goes out: my own hand counts against us
        diff = self._estimate(v, 0.0, 100, hand_value(v.hand))
        yes = (diff > 0 or self._opponents_close(v) or v.stock <= self.stop_stock
               or sum(v.hand) <= 3)
        return A.ANSWER_YES if yes else A.ANSWER_NO

    # ------------------------------------------------------------------ opening
    def _opening(self, v: TableView, legal: list[int]) -> int | None:
        """Lay the opening: naturals first, the cheapest wild card last."""
        best, best_key = None, None
        for a in legal:
            if not (_MELD_LO <= a < _MELD_HI):
                continue
            what, r, k = _meld_kind(a)
            pts = _V[r] * (3 if what == "start" and k == 0 else 2 if what == "start" else
                           1 if k == 0 else 0)
            wild_cost = 0 if k == 0 else _V[JOKER if k == 1 else TWO]
            key = (k != 0, -pts if k == 0 else wild_cost, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best

    # ------------------------------------------------------------------ meld phase
    def _meld_phase(self, v: TableView, legal: list[int], legal_set: set[int]) -> int | None:
        melds = [a for a in legal if _MELD_LO <= a < _MELD_HI or a == A.MELD_BLACK_THREES]
        if not v.opened[0]:
            # the mask offers a meld to an unopened partnership only if the minimum stays
            # reachable this turn: open as soon as it does
            opening = self._opening(v, melds)
            return opening if opening is not None else self._discard(v, legal)
        hand = v.hand
        size = sum(hand)
        nat, wild = v.nat[0], v.wild[0]
        must_out = v.must_out or v.asked_yes
        if must_out or (not v.asked_no and not v.no_discard
                        and can_go_out(hand, nat, wild, self.cap, self.size, self.needed)
                        and self._want_out(v)):
            a = self._go_out_step(v, melds)
            if a is not None:
                return a
            if size == 1 or must_out:
                return self._discard(v, legal)
        a = self._build_step(v, melds, size)
        if a is not None:
            return a
        if any(a >= A.DISCARD for a in legal):
            return self._discard(v, legal)
        if A.FINISH_TURN in legal_set:
            return A.FINISH_TURN
        return melds[0] if melds else None

    def _want_out(self, v: TableView) -> bool:
        if v.stock <= self.stop_stock or self._opponents_close(v):
            return True
        hv = hand_value(v.hand)
        diff = self._estimate(v, hv, 100, v.hidden_hand_value(2))
        return diff > 0

    def _go_out_step(self, v: TableView, melds: list[int]) -> int | None:
        """A meld action after which going out stays feasible, best first; None when no
        meld is left to make (the last card is then discarded)."""
        best, best_key = None, None
        for a in melds:
            hand, nat, wild = list(v.hand), list(v.nat[0]), list(v.wild[0])
            _apply_meld(a, hand, nat, wild)
            if sum(hand) > 0 and not can_go_out(hand, nat, wild, self.cap, self.size,
                                                self.needed):
                continue
            what, r, k = _meld_kind(a)
            before = v.nat[0][r] + v.wild[0][r]
            after = nat[r] + wild[r]
            completes = r != BLACK_THREE and before < self.size <= after
            if what == "add" and k == 0:
                key = 0
            elif what == "start" and k == 0:
                key = 1
            elif what == "b3":
                key = 2
            elif completes:
                key = 3
            elif what == "start":
                key = 4
            else:
                key = 5
            key2 = (key, -after if k else 0, a)
            if best_key is None or key2 < best_key:
                best, best_key = a, key2
        return best

    def _build_step(self, v: TableView, melds: list[int], size: int) -> int | None:
        """A meld that builds toward canastas while keeping two cards in hand."""
        hand = v.hand
        nat, wild = v.nat[0], v.wild[0]
        wilds_in_hand = hand[JOKER] + hand[TWO]
        best, best_key = None, None
        for a in melds:
            if a == A.MELD_BLACK_THREES:
                continue
            what, r, k = _meld_kind(a)
            used = 3 if what == "start" else 1
            if size - used < 2 or (what == "start" and size < self.start_meld_hand):
                continue
            if k == 0:
                key = (0 if what == "add" else 1, -_V[r])
            elif what == "add":
                cur = nat[r] + wild[r]
                need = self.size - cur
                room = self.cap - wild[r]
                if cur >= self.size or need > min(wilds_in_hand, room):
                    continue
                # joker first: more table points, bigger risk if left in hand
                key = (2, need, 0 if k == 1 else 1)
            else:
                # a pair + wild only with spare wild cards and a long hand
                if wilds_in_hand < 2 or size < 8:
                    continue
                key = (3, -_V[r], 0 if k == 2 else 1)
            key = (*key, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best

    # ------------------------------------------------------------------ discard
    def _discard(self, v: TableView, legal: list[int]) -> int | None:
        """The discard with the lowest cost: ``P(the left-hand opponent can take the pile
        with it) * 300 * (1 + pile size / 5) + (value of keeping it) + card value / 2``.
        The take probability: 1 for a rank the opponents melded while the pile is not
        frozen for them; otherwise the chance that their hidden cards (hypergeometric over
        the unseen cards) hold the natural pair -- or, the pile not frozen for them, a
        natural and a wild card -- that the take needs, counting cards known in their hand.
        Black 3s (stop cards) go first, wild cards only when nothing else is left."""
        options = [a for a in legal if a >= A.DISCARD]
        if not options:
            return None
        hand = v.hand
        left = v.known[1]
        unseen = v.unseen(self.pack)
        pool = sum(unseen)
        hidden = max(0, v.sizes[1] - sum(left))  # the left opponent's unknown cards
        p_wild = 1.0 if left[JOKER] + left[TWO] else \
            p_at_least(1, pool, unseen[JOKER] + unseen[TWO], hidden)
        weight = 1.0 + v.pile_size / 5.0
        best, best_key = None, None
        for a in options:
            c = DISCARDABLE[a - A.DISCARD]
            if c == BLACK_THREE:
                score = -1000.0
            elif c == JOKER or c == TWO:
                score = 5000.0 + _V[c]
            else:
                if v.nat[1][c] and not v.frozen_them:
                    p_take = 1.0
                else:
                    p_take = p_at_least(2 - left[c], pool, unseen[c], hidden)
                    if not v.frozen_them:  # a natural and a wild card also take it
                        p_one = p_at_least(1 - left[c], pool, unseen[c], hidden)
                        p_take += (p_one - p_take) * p_wild
                keep = (0.0, 0.0, 40.0, 80.0)[min(hand[c], 3)]
                if v.nat[0][c]:
                    keep += 30.0
                score = 300.0 * p_take * weight + keep + 0.5 * _V[c]
            key = (score, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best


# ---------------------------------------------------------------------------- Hand and Foot
_HF_DISCARDS = range(A.DISCARD, A.NUM_ACTIONS)


def _hf_melds(legal: list[int]) -> list[int]:
    return [a for a in legal if a not in _HF_DISCARDS and a not in (
        A.ASK_PARTNER, A.ANSWER_YES, A.ANSWER_NO, A.FINISH_TURN, A.DRAW_STOCK, A.DECLINE_PILE)
        and not A.TAKE_PAIR <= a <= A.TAKE_ONTO_MELD and a != A.TAKE_WILD_PAIR]


def _hf_meld_info(a: int) -> tuple[str, int, int, int]:
    """(kind, rank class or -1 for the wild meld, naturals used, wild cards used)."""
    if a >= A.START_WILD_MELD:
        if a < A.ADD_TO_WILD_MELD:
            j, t = A.WILD_START_KINDS[a - A.START_WILD_MELD]
            return "wild_start", -1, 0, j + t
        return "wild_add", -1, 0, 1
    if a == A.MELD_BLACK_THREES:
        return "b3", BLACK_THREE, 0, 0
    what, r, k = _meld_kind(a)
    if what == "start":
        return "start", r, 3 if k == 0 else 2, 0 if k == 0 else 1
    return "add", r, int(k == 0), int(k != 0)


def _hf_key(v: TableView, a: int) -> tuple:
    """Preference among meld actions (lower first): naturals onto our melds, new natural
    melds, wild cards where a dirty book is wanted, the wild meld, other wild plays."""
    kind, r, n, w = _hf_meld_info(a)
    wild_card = JOKER if (a - A.ADD_TO_MELD) % 3 == 1 or a in (A.ADD_TO_WILD_MELD,) else TWO
    clean_b, dirty_b, wild_b = v.books[0]
    nat, wild = v.nat[0], v.wild[0]
    dirty_open = sum(1 for r2 in MELD_RANKS if nat[r2] and wild[r2])
    clean_open = sum(1 for r2 in MELD_RANKS if nat[r2] and not wild[r2])
    want_dirty = dirty_b + dirty_open < 2
    want_clean = clean_b + wild_b + clean_open < 3
    if kind == "b3":
        return (0, 0)
    if w == 0:
        return (1, 0 if kind == "add" else 1, -_V[r] if r >= 0 else 0)
    if kind == "add" and r >= 0:
        size = nat[r] + wild[r]
        if wild[r]:  # already dirty: grow it toward a dirty book
            return (2, -size, wild_card != JOKER)
        if want_dirty and not want_clean:
            return (3, -size, wild_card != JOKER)
        return (9, -size)
    if kind == "start":  # a pair and a wild card: three cards down
        return (4 if want_dirty or sum(v.hand) > 6 else 8, -_V[r])
    if kind == "wild_add":
        return (5, wild_card != JOKER)
    return (6 if v.hand[JOKER] + v.hand[TWO] >= 4 else 7, a)


def _hf_discard(v: TableView, legal: list[int]) -> int | None:
    options = [a for a in legal if a in _HF_DISCARDS]
    if not options:
        return None
    hand = v.hand
    best, best_key = None, None
    for a in options:
        c = DISCARDABLE[a - A.DISCARD]
        if c == BLACK_THREE:
            key = (0, 0)
        elif c in (JOKER, TWO):
            key = (3, _V[c])
        else:
            danger = 2 * (v.known[1][c] >= 2) + (v.nat[1][c] > 0)
            key = (1 if hand[c] == 1 else 2, danger, hand[c], _V[c])
        if best_key is None or (key, a) < best_key:
            best, best_key = a, (key, a)
    return best


def _hand_and_foot_action(v: TableView, legal: list[int]) -> int | None:
    """The heuristic's choice in Hand and Foot: take the pile whenever a pair allows,
    open as soon as the mask offers a meld, meld everything it can (naturals first,
    wild cards toward dirty books and the wild meld), ask to go out as soon as the engine
    offers it, always answer yes, discard black 3s and lone low cards."""
    legal_set = set(legal)
    if v.phase == Phase.DRAW:
        for a in (A.TAKE_PAIR, A.TAKE_WILD_PAIR):
            if a in legal_set:
                return a
        if A.DRAW_STOCK in legal_set:
            return A.DRAW_STOCK
        return A.DECLINE_PILE if A.DECLINE_PILE in legal_set else legal[0]
    if v.phase == Phase.ANSWER:
        return A.ANSWER_YES
    if A.ASK_PARTNER in legal_set:
        return A.ASK_PARTNER
    melds = _hf_melds(legal)
    if melds:
        return min(melds, key=lambda a: (_hf_key(v, a), a))
    a = _hf_discard(v, legal)
    if a is not None:
        return a
    return A.FINISH_TURN if A.FINISH_TURN in legal_set else legal[0]
