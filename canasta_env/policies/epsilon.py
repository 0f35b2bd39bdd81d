"""A weakened heuristic (:class:`EpsilonHeuristicPolicy`): with probability ``p`` a
uniformly random legal action, else the heuristic's. The ``easy`` level of the difficulty
ladder (:mod:`canasta_env.bots.levels`); its own numpy ``Generator``, so a seeded
evaluation replays exactly."""

from __future__ import annotations

import math

import numpy as np

from .heuristic import HeuristicPolicy
from .protocol import check_policy_inputs


def check_epsilon(p: object) -> float:
    """``p`` as a float in [0, 1].

    Raises:
        ValueError: ``p`` is not a finite number in [0, 1] (a bool is refused).
    """
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or \
            not math.isfinite(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"the random-move probability p must be a number in [0, 1], got {p!r}")
    return float(p)


class EpsilonHeuristicPolicy:
    """The heuristic, except that each decision is, with probability ``p``, a uniformly
    random legal action instead.

    Every decision draws one uniform number from the policy's generator (whether or not
    the seat has a choice), then, for a random move, one index among the legal actions;
    so the moves depend only on the seed and the inputs. Plays any variant (the
    heuristic's and the random player's play does).

    Args:
        p: probability of a random move per decision, in [0, 1] (0: the heuristic; 1:
            :class:`~canasta_env.policies.RandomPolicy`'s play).
        seed: seed of the policy's own ``numpy.random.Generator``; :meth:`reset` reseeds.

    Attributes:
        decisions: decisions made since construction or the last :meth:`reset`.
        random_moves: how many of them were random moves (``random_moves / decisions``
            tends to ``p``).

    Raises:
        ValueError: ``p`` is not a number in [0, 1].
    """

    def __init__(self, p: float, seed: int | None = None) -> None:
        self.p = check_epsilon(p)
        self.name = f"epsilon-heuristic:{self.p:g}"
        self.heuristic = HeuristicPolicy()
        self._rng = np.random.default_rng(seed)
        self.decisions = 0
        self.random_moves = 0

    def __repr__(self) -> str:
        return f"EpsilonHeuristicPolicy(p={self.p:g})"

    def reset(self, seed: int | None = None) -> None:
        """A new episode: the counters restart; ``seed`` (when given) reseeds the
        generator."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.decisions = 0
        self.random_moves = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action for ``observation`` (float32 ``(202,)`` Classic or ``(245,)``
        Hand and Foot) and ``action_mask`` (int8 or bool ``(91,)`` / ``(98,)``, 1 =
        legal): uniformly random with probability :attr:`p`, else the heuristic's.

        Raises:
            ValueError: bad inputs, see :func:`check_policy_inputs`.
        """
        observation, mask = check_policy_inputs(observation, action_mask)
        self.decisions += 1
        if self._rng.random() < self.p:
            self.random_moves += 1
            legal = np.flatnonzero(mask)
            return int(legal[self._rng.integers(legal.size)])
        return int(self.heuristic.act(observation, mask))
