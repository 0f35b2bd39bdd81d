"""Decision-time search: a policy improved by determinised rollouts on the native core.

The search (:func:`canasta_env.native.search_values`, core/search.c) tries every legal
action of the seat on turn on the same ``determinisations`` deals of the cards that seat
cannot see (the other hands less their known cards, the stock, the feet not yet picked up;
a red 3 never in a hand) and plays each hand out with the heuristic for all four seats.
:func:`improve` keeps the base policy's action (the heuristic's, or a network's) unless
another action's outcome, paired over the same deals, is better by more than ``z`` standard
errors: with a hand's score spread, plain argmax over 16-64 deals is mostly noise and plays
worse than the heuristic.

:class:`SearchPolicy` is the search as a player: the policy name ``search`` (the heuristic
as base) and ``search_reference`` (the variant's shipped reference network as base) of the
bots, the service, terminal play and ``training.evaluate``. It needs the game, not only an
observation: it reads the true state only to find the cards the seat cannot see, deals
them again at random, and never looks at where they really are (a test gives it two
states that differ only in hidden cards and checks that it searches them identically).
Cost: each decision plays ``determinisations`` heuristic rollouts to the end of the hand
per legal action (a decision with one legal action plays none); measured figures are in
docs/results/search.md.

Rules: docs/RULES.md §2.15 and §3.9 (the hand's score, the outcome of a rollout).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CRITERIA = ("win", "diff")

#: the settings of the policy name ``search_reference`` per variant (keyword arguments of
#: :class:`SearchPolicy` besides the base): Classic's 256 determinisations were chosen by
#: the rule in docs/results/search.md ("The network as a prior, and more deals"); Hand
#: and Foot keeps the default 64, the settings it was measured with
REFERENCE_SEARCH = {"classic": {"determinisations": 256}, "hand_and_foot": {}}


@dataclass(frozen=True)
class SearchSettings:
    """How the search decides.

    Attributes:
        determinisations: deals of the unseen cards per legal action (2..4,096).
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
        def is_int(x):
            return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

        if not is_int(self.determinisations) or not 2 <= self.determinisations <= 4096:
            raise ValueError(f"determinisations must be an int in 2..4096 (the paired test "
                             f"needs two deals), got {self.determinisations!r}")
        if not isinstance(self.z, (int, float, np.integer, np.floating)) or \
                isinstance(self.z, bool) or not (math.isfinite(self.z) and self.z >= 0):
            raise ValueError(f"z must be a finite number >= 0, got {self.z!r}")
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}")
        if not is_int(self.max_decisions) or self.max_decisions < 1:
            raise ValueError(f"max_decisions must be an int >= 1, got {self.max_decisions!r}")


def candidate_mask(logits: np.ndarray, masks: np.ndarray, base: np.ndarray,
                   k: int) -> np.ndarray:
    """The actions the search may play per row when the base network is a prior: the
    ``k`` legal actions of largest logit, and the base's own action.

    Args:
        logits: float (n, num_actions): the base network's logits (any value at illegal
            actions: they are never chosen).
        masks: (n, num_actions), nonzero = legal.
        base: int (n,): the base's action per row (legal).
        k: int >= 1.

    Returns:
        bool (n, num_actions): True at the candidates; equal logits rank the lower action
        id first.

    Raises:
        ValueError: shapes that do not fit together, logits that are not numbers or not
            finite at a legal action, a ``base`` that is not a legal action of its row, or
            ``k`` < 1.
        TypeError: ``k`` is not an int.
    """
    if not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)):
        raise TypeError(f"k must be an int, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    try:
        logits = np.asarray(logits, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"logits must be numbers ({e})") from None
    legal = np.asarray(masks) != 0
    base = np.asarray(base)
    if logits.ndim != 2 or logits.shape != legal.shape or base.shape != (len(logits),):
        raise ValueError(f"logits {logits.shape}, masks {legal.shape} and base {base.shape} "
                         f"do not fit: (n, num_actions), (n, num_actions), (n,)")
    rows = np.arange(len(logits))
    if base.dtype.kind not in "iu" or ((base < 0) | (base >= legal.shape[1])).any() or \
            not legal[rows, base.clip(0, legal.shape[1] - 1)].all():
        raise ValueError(f"base must hold a legal action id per row, got {base.tolist()}")
    if not np.isfinite(logits[legal]).all():
        raise ValueError("the logits are not finite at a legal action (NaN or inf)")
    ranked = np.where(legal, logits, -np.inf)
    order = np.argsort(-ranked, axis=1, kind="stable")[:, :k]
    out = np.zeros(legal.shape, bool)
    out[rows[:, None], order] = True
    out &= legal
    out[rows, base] = True
    return out


def improve(values: np.ndarray, base: np.ndarray, settings: SearchSettings):
    """The search's action per row from rollout outcomes.

    Args:
        values: float64 (n, num_actions, D): hand score differences (points) per legal
            action and determinisation, NaN at illegal actions or dropped rollouts
            (:func:`canasta_env.native.search_values`), and at actions left out (outside
            the :func:`candidate_mask`).
        base: int (n,): the base policy's action per row (legal): the heuristic's, or a
            network's.

    Returns:
        ``(actions int64 (n,), better bool (n, num_actions), advantage float32 (n,
        num_actions))``: ``advantage`` is each action's mean outcome paired with ``base``
        over the same determinisations (-inf at illegal or left-out actions); ``better`` marks the
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


class SearchPolicy:
    """A base policy improved by decision-time search, as a player.

    The base policy proposes the move (the heuristic by default; a network such as the
    shipped reference with ``base=``: the policy name ``search_reference``); the search
    keeps it unless another legal action's rollout outcome beats it by ``z`` standard
    errors over the same deals. The rollouts are always the heuristic's. With
    ``candidates=K`` the network is also a prior: the search may switch only to one of
    the network's ``K`` highest-logit legal actions (the base's own action is always
    kept), so an action the network rates low cannot win on the noise of a few deals.

    Args:
        determinisations, z, criterion: :class:`SearchSettings` (defaults 64, 1.5, win).
        candidates: ``None`` (every legal action may replace the base's) or an int >= 1:
            only the base network's ``candidates`` legal actions of largest logit
            (:func:`candidate_mask`; equal logits rank the lower action id first) may
            replace it. Needs a ``base`` with ``logits(observation, action_mask)``,
            float ``(num_actions,)``, as the ONNX and checkpoint policies have. Every
            legal action is still played out (the rollouts of the others are then left
            out), so it saves no time.
        seed: int; the deals of a decision come from ``(seed, the game's decision
            count)``, so the same game and seed always give the same move.
        base: ``None`` (the heuristic) or a policy with ``act(observation, action_mask)
            -> int`` (observation float32 ``(obs_size,)``, mask int8 ``(num_actions,)``)
            that must not keep state between calls; its ``obs_size`` / ``num_actions``
            (a network's variant) become this policy's.

    Raises:
        ValueError: bad settings (see :class:`SearchSettings`); ``candidates`` < 1.
        TypeError: ``base`` is a class, has no ``act`` method, or needs the game (has
            ``act_game``); ``seed`` is not an int; ``candidates`` is not an int or has
            no ``base`` with ``logits``.
        RuntimeError: the native core is not built (the search has no Python version).
    """

    #: plays every variant (its rollouts are the heuristic's), like the heuristic; with a
    #: network as ``base``, that network's variant only (its ``obs_size``, ``num_actions``)
    stateless = True

    def __init__(self, determinisations: int = 64, z: float = 1.5, criterion: str = "win",
                 seed: int = 0, base=None, candidates: int | None = None) -> None:
        from .native import available
        from .policies import HeuristicPolicy

        self.settings = SearchSettings(determinisations, z, criterion)
        if base is not None and (isinstance(base, type) or
                                 not callable(getattr(base, "act", None))):
            raise TypeError(f"base must be None (the heuristic) or a policy object with an "
                            f"act() method (an instance, not a class), got {base!r}")
        if base is not None and getattr(base, "act_game", None) is not None:
            raise TypeError(f"base must decide from the observation alone (act); a policy "
                            f"that needs the game, such as a search, cannot be a base: {base!r}")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise TypeError(f"seed must be an int, got {seed!r}")
        if candidates is not None:
            if not isinstance(candidates, (int, np.integer)) or \
                    isinstance(candidates, (bool, np.bool_)):
                raise TypeError(f"candidates must be None or an int, got {candidates!r}")
            if candidates < 1:
                raise ValueError(f"candidates must be >= 1 (the base's own action is always "
                                 f"one), got {candidates}")
            if base is None or not callable(getattr(base, "logits", None)):
                raise TypeError(f"candidates needs a base network with logits(observation, "
                                f"action_mask) to rank the actions by; base is {base!r}")
        self.candidates = None if candidates is None else int(candidates)
        if not available:
            raise RuntimeError("SearchPolicy needs the compiled native core "
                               "(reinstall with a C compiler: pip install -e .)")
        self.heuristic = HeuristicPolicy(backend="native")
        self.base = base
        self.seed = int(seed)
        if base is not None:  # a network plays one variant: the bots check these sizes
            self.obs_size = getattr(base, "obs_size", None)
            self.num_actions = getattr(base, "num_actions", None)
            if getattr(base, "model", None) is not None and self.obs_size is None:
                self.model = base.model  # an SB3 checkpoint's spaces give its variant

    def __repr__(self) -> str:
        s = self.settings
        base = "" if self.base is None else f", base={self.base!r}"
        if self.candidates is not None:
            base += f", candidates={self.candidates}"
        return (f"SearchPolicy(determinisations={s.determinisations}, z={s.z}, "
                f"criterion={s.criterion!r}, seed={self.seed}{base})")

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the deals of a decision depend only on the constructor's
        ``seed`` and the game, so one instance may play many games side by side."""

    def act(self, observation, action_mask) -> int:
        """Refused: the search needs the game (:meth:`act_game`).

        Raises:
            ValueError: always, saying where the search can be used.
        """
        raise ValueError("the search policy needs the game, not only an observation: use "
                         "it through canasta_env.bots.Bot, the service, terminal play or "
                         "training.evaluate (SearchPolicy.act_game)")

    def act_game(self, game, seat: int | None = None) -> int:
        """The action for the seat on turn in ``game`` (a :class:`canasta_env.engine.Game`
        or :class:`canasta_env.native.NativeGame`; not modified).

        Raises:
            ValueError: nobody is on turn, or ``seat`` is not the seat on turn.
            RuntimeError: the base policy answered something that is not a legal action id
                (an int or numpy integer, not a bool), or (with ``candidates``) logits
                not of shape ``(num_actions,)``, not numbers, or not finite at a legal
                action.
        """
        from .native import NativeGame, search_game_values
        from .observation import encode

        native = game if isinstance(game, NativeGame) else NativeGame.from_game(game)
        to_move = native.to_move
        if to_move is None:
            raise ValueError("nobody is on turn: the hand is over")
        if seat is not None and (not isinstance(seat, (int, np.integer)) or
                                 isinstance(seat, bool) or not 0 <= seat <= 3):
            raise ValueError(f"seat must be an int in 0..3, got {seat!r}")
        if seat is not None and seat != to_move:
            raise ValueError(f"seat {seat} is not on turn; seat {to_move} is to move")
        legal = native.legal_actions()
        mask = np.zeros(native.num_actions, np.int8)
        mask[legal] = 1
        obs = native.encode(to_move) if isinstance(game, NativeGame) else encode(game, to_move)
        base = (self.heuristic if self.base is None else self.base).act(obs, mask)
        if not isinstance(base, (int, np.integer)) or isinstance(base, (bool, np.bool_)) or \
                int(base) not in legal:  # a base policy's bug, never the caller's fault
            raise RuntimeError(f"the base policy {self.base!r} chose {base!r}, not a legal "
                               f"action id (legal: {legal})")
        base = int(base)
        keep = None
        if self.candidates is not None and self.candidates < len(legal):
            logits = np.asarray(self.base.logits(obs, mask))
            if logits.shape != (native.num_actions,):  # a base policy's bug
                raise RuntimeError(f"the base policy {self.base!r} gave logits of shape "
                                   f"{logits.shape}, not ({native.num_actions},)")
            try:
                keep = candidate_mask(logits[None], mask[None], np.array([base]),
                                      self.candidates)[0]
            except ValueError as e:  # logits not numbers, or not finite: the base's bug
                raise RuntimeError(f"the base policy {self.base!r} gave unusable logits: "
                                   f"{e}") from None
        if len(legal) == 1 or (keep is not None and keep.sum() == 1):
            return base
        s = self.settings
        seed = (self.seed * 1_000_003 + int(native.decisions)) & 0xFFFFFFFFFFFFFFFF
        values = search_game_values(native, self.heuristic._core, s.determinisations, seed,
                                    s.max_decisions)
        if keep is not None:  # the prior: actions outside the network's top candidates
            values[~keep] = np.nan
        action, _, _ = improve(values[None], np.array([base]), s)
        return int(action[0])
