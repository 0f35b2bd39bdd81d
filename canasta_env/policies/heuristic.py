"""The rule-based heuristic player (:class:`HeuristicPolicy`): it reads only (observation,
mask), is deterministic, has ``act_batch`` for ``[B, N]`` observations and ``[B, A]``
masks, and runs compiled (native core, core/heuristic.c) when the core is built, this
module's code (the reference) otherwise or with ``backend="python"``: the same decisions.
It reads the observation through :class:`canasta_env.policies.table.TableView`.

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

Style parameters (:data:`canasta_env.policies.styles.STYLE_PARAMS`) replace the constants
of these rules (the pile size that pays a wild card, the cards kept in hand, the score
margin for going out, the discard costs, freezing the pile); their defaults are the rules
above. Named styles: :data:`canasta_env.policies.styles.STYLES`.
"""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..engine.cards import BLACK_THREE, DISCARDABLE, JOKER, MELD_RANKS, RED_THREE, TWO, deck_counts
from ..engine.feasibility import can_go_out as _engine_can_go_out
from ..engine.game import Phase
from .protocol import check_policy_batch, check_policy_inputs
from .styles import check_style
from .table import _V, TableView, hand_value, p_at_least


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
        from ..native._core import NativeHeuristic
    except ImportError as e:  # the core is not built
        return None, f"the native core is not built ({e})"
    try:
        return NativeHeuristic(policy.cap, policy.size, policy.needed, policy.stop_stock,
                               policy.start_meld_hand, policy.pack, **policy.style), None
    except ValueError as e:
        return None, str(e)
    except TypeError as e:  # a compiled core older than this module (new parameters)
        return None, f"the compiled core is older than this code ({e}); pip install -e ."


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
        **style: style parameters (keyword only), each named in
            :data:`canasta_env.policies.styles.STYLE_PARAMS` with its type, range and the
            decision it changes (the pile take, the meld thresholds, going out, the
            discard costs); an omitted one keeps its default, and all defaults are the
            heuristic as it always played. They change Classic decisions only.
            :attr:`style` holds every one; named styles: ``styles.STYLES``.
        backend: ``"auto"`` (default): the native core's port of this policy
            (:class:`canasta_env.native._core.NativeHeuristic`, core/heuristic.c) when
            the core is built and the parameters fit it (ints within +-1,000,000, a
            pack of at most 480 cards), else this module's Python code; ``"native"``:
            the port or an error; ``"python"``: the Python code, the reference the
            port is tested against (tests/native/test_fast_heuristic.py). Both make the same
            decisions; :attr:`backend` tells which one runs.

    Raises:
        ValueError: an option is not a non-negative int (``decks`` at least 1); an
            unknown style parameter or a value outside its type or range (the message
            names it, :func:`canasta_env.policies.styles.check_style_param`); an
            unknown ``backend``; ``backend="native"`` without the core or with
            parameters it cannot hold (the message says which).
    """

    name = "heuristic"

    def __init__(self, max_wilds_per_meld: int = 3, canasta_size: int = 7,
                 canastas_to_go_out: int = 1, stop_stock: int = 8,
                 start_meld_hand: int = 12, decks: int = 2, jokers: int = 4,
                 backend: str = "auto", **style: int | float) -> None:
        for name, value, low in (
                ("max_wilds_per_meld", max_wilds_per_meld, 0), ("canasta_size", canasta_size, 1),
                ("canastas_to_go_out", canastas_to_go_out, 0), ("stop_stock", stop_stock, 0),
                ("start_meld_hand", start_meld_hand, 0), ("decks", decks, 1), ("jokers", jokers, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"HeuristicPolicy: {name} must be an int >= {low}, "
                                 f"got {value!r}")
        self.pack = deck_counts(decks, jokers)
        self.cap = max_wilds_per_meld
        self.size = canasta_size
        self.needed = canastas_to_go_out
        self.stop_stock = stop_stock
        self.start_meld_hand = start_meld_hand
        #: every style parameter (name -> value): the defaults updated with ``style``
        self.style = check_style(style)
        for name, value in self.style.items():
            setattr(self, name, value)
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
        core = self._core
        if core is not None and type(observations) is np.ndarray and \
                type(masks) is np.ndarray and observations.dtype == np.float32 and \
                masks.dtype in (np.int8, np.bool_):
            # fast path: the core checks every row itself (the same rules); anything it
            # refuses goes through the check below, for its message
            try:
                return core.actions(observations, masks.view(np.int8) if
                                    masks.dtype == np.bool_ else masks)
            except ValueError:
                pass
        obs, mask = check_policy_batch(observations, masks)
        if core is not None:
            return core.actions(obs, mask)
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
            if v.pile_size >= self.take_wild_pile:  # a wild card only on a pile worth it
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
        return v.canastas(1, self.size) >= self.needed and \
            min(v.sizes[1], v.sizes[3]) <= self.close_hand

    def _answer(self, v: TableView, legal: set[int]) -> int:
        if A.ANSWER_NO not in legal:
            return A.ANSWER_YES
        # the asker (partner) goes out: my own hand counts against us
        diff = self._estimate(v, 0.0, 100, hand_value(v.hand))
        yes = (diff > self.out_margin or self._opponents_close(v) or v.stock <= self.stop_stock
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
        return diff > self.out_margin

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
            if size - used < self.keep_cards or (what == "start" and size < self.start_meld_hand):
                continue
            if k == 0:
                key = (0 if what == "add" else 1, -_V[r])
            elif what == "add":
                cur = nat[r] + wild[r]
                need = self.size - cur
                room = self.cap - wild[r]
                if cur >= self.size or need > min(wilds_in_hand, room) + self.wild_slack:
                    continue
                # joker first: more table points, bigger risk if left in hand
                key = (2, need, 0 if k == 1 else 1)
            else:
                # a pair + wild only with spare wild cards and a long hand
                if wilds_in_hand < 2 or size < self.pair_wild_hand:
                    continue
                key = (3, -_V[r], 0 if k == 2 else 1)
            key = (*key, a)
            if best_key is None or key < best_key:
                best, best_key = a, key
        return best

    # ------------------------------------------------------------------ discard
    def _discard(self, v: TableView, legal: list[int]) -> int | None:
        """The discard with the lowest cost: ``P(the left-hand opponent can take the pile
        with it) * danger_weight * (1 + pile size / 5) + (value of keeping it: keep_pair,
        keep_triple, keep_melded) + value_weight * card value`` (defaults 300, 40, 80, 30,
        1/2).
        The take probability: 1 for a rank the opponents melded while the pile is not
        frozen for them; otherwise the chance that their hidden cards (hypergeometric over
        the unseen cards) hold the natural pair -- or, the pile not frozen for them, a
        natural and a wild card -- that the take needs, counting cards known in their hand.
        Black 3s (stop cards) go first, wild cards only when nothing else is left -- or,
        with ``freeze_pile`` set, at cost ``freeze_cost + value`` while the pile holds at
        least ``freeze_pile`` cards and is not frozen for the opponents (freezing it)."""
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
        freeze = 0 < self.freeze_pile <= v.pile_size and not v.frozen_them
        best, best_key = None, None
        for a in options:
            c = DISCARDABLE[a - A.DISCARD]
            if c == BLACK_THREE:
                score = -1000.0
            elif c == JOKER or c == TWO:
                score = (self.freeze_cost if freeze else 5000.0) + _V[c]
            else:
                if v.nat[1][c] and not v.frozen_them:
                    p_take = 1.0
                else:
                    p_take = p_at_least(2 - left[c], pool, unseen[c], hidden)
                    if not v.frozen_them:  # a natural and a wild card also take it
                        p_one = p_at_least(1 - left[c], pool, unseen[c], hidden)
                        p_take += (p_one - p_take) * p_wild
                keep = (0.0, 0.0, self.keep_pair, self.keep_triple)[min(hand[c], 3)]
                if v.nat[0][c]:
                    keep += self.keep_melded
                score = self.danger_weight * p_take * weight + keep + self.value_weight * _V[c]
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
