"""The uniform random player (:class:`RandomPolicy`): its own numpy ``Generator``, so a
seeded evaluation replays exactly."""

from __future__ import annotations

import numpy as np

from .protocol import check_policy_inputs


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
