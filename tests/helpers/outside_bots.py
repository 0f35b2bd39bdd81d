"""Policies written outside the package, named ``outside_bots:<Name>`` by the tests of
``module:attribute`` specs (tests/policies/test_outside_policies.py). Not a test module."""

from __future__ import annotations

import numpy as np

#: (instance id, seed) of every reset of a :class:`Recorder`, in order
RESETS: list[tuple[int, int | None]] = []
#: instance id of every ``act`` of a :class:`Recorder`, in order
ACTS: list[int] = []


class FirstLegal:
    """Plays the lowest legal action id; any variant."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Recorder(FirstLegal):
    """Logs its resets and acts (module globals) and refuses to act before a reset."""

    def __init__(self):
        self.seed = "never reset"

    def reset(self, seed):
        self.seed = seed
        RESETS.append((id(self), seed))

    def act(self, observation, action_mask):
        assert self.seed != "never reset", "act before reset"
        ACTS.append(id(self))
        return super().act(observation, action_mask)


class Memory:
    """Per-seat memory: remembers its own last observation and plays the highest legal
    id when its hand (the first 15 entries: own cards per class) grew since then."""

    def __init__(self):
        self.last = None

    def reset(self, seed):
        self.last = None

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        grew = self.last is not None and observation[:15].sum() > self.last[:15].sum()
        self.last = np.array(observation)
        return int(legal[-1] if grew else legal[0])


class HandAndFootOnly(FirstLegal):
    variant = "hand_and_foot"


class NeedsArgs:
    def __init__(self, depth):
        self.depth = depth

    def act(self, observation, action_mask):
        return 0


class NoAct:
    pass


FIRST_LEGAL = FirstLegal()  # an instance: used as it is
NOT_A_POLICY = 42
