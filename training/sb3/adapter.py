"""Single-agent Gymnasium view of the four-seat game for sb3-contrib MaskablePPO.

The learner is one partnership: it decides for both of its seats with shared weights,
and opponents drawn from a pool play the other two seats. Every learner step is a
decision of one of the learner's seats: the observation and the action mask returned
with it are that seat's, and the reward is the partnership's (partners always share
rewards), so a transition never mixes an opponent's observation with the learner's
reward (the PettingZoo issue 1147 trap).

``action_masks()`` is the one-method masking contract of sb3-contrib, so the env works
inside ``DummyVecEnv`` and ``SubprocVecEnv`` alike.

Illegal actions. ``illegal_action="raise"`` (the default, what training uses: a masked
learner never chooses one) raises :class:`~canasta_env.engine.IllegalActionError`;
``illegal_action="terminate"`` ends the episode instead, as ``canasta_env.env()`` does
through PettingZoo's ``TerminateIllegalWrapper``: the step returns the learner seat's
unchanged observation, reward ``illegal_reward`` (default -1.0), ``terminated=True`` and
``info["illegal_action"] = True`` with ``info["reason"]`` (why the engine refuses it).
Env checkers that step unmasked samples of the action space
(``gymnasium.utils.env_checker.check_env``, SB3's ``check_env``) need ``"terminate"``::

    from gymnasium.utils.env_checker import check_env
    check_env(PartnershipEnv([(1.0, lambda rng: RandomPolicy(int(rng.integers(2**31))))],
                             illegal_action="terminate"))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np

from canasta_env import raw_env
from canasta_env.engine import IllegalActionError, OptionsError

#: What a single-agent adapter does with an illegal action (see the module docstring).
ILLEGAL_ACTIONS = ("raise", "terminate")


def check_illegal_action(illegal_action: object, illegal_reward: object) -> float:
    """``illegal_reward`` as a float once both options are valid.

    Raises:
        canasta_env.engine.OptionsError: ``illegal_action`` is not one of
            :data:`ILLEGAL_ACTIONS`, or ``illegal_reward`` is not a finite number.
    """
    if illegal_action not in ILLEGAL_ACTIONS:
        raise OptionsError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got "
                           f"{illegal_action!r}")
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or \
            not np.isfinite(illegal_reward):
        raise OptionsError(f"illegal_reward must be a finite number, got {illegal_reward!r}")
    return float(illegal_reward)

OpponentFactory = Callable[[np.random.Generator], object]


class PartnershipEnv(gym.Env):
    """The learner plays partnership ``team`` (drawn at each reset) against an opponent
    policy (drawn from the pool at each reset).

    Observation: float32 ``(obs size of the variant,)`` of the learner seat on turn;
    action: ``Discrete(number of actions of the variant)``; reward: the partnership's
    hand-score difference times ``reward_scale`` at the end of the hand (with the env
    option ``reward="win_loss"``: +1 / -1 / 0), 0 before.

    Args:
        pool: ``[(weight, factory)]``; a factory maps a numpy Generator to a policy with
            ``act(observation, action_mask) -> int``.
        illegal_action: ``"raise"`` (default) or ``"terminate"`` (see the module
            docstring).
        illegal_reward: the reward of an illegal action under ``"terminate"`` (-1.0).
        env_kwargs: keyword arguments of :class:`canasta_env.raw_env`.

    Raises:
        canasta_env.engine.OptionsError: a bad ``illegal_action`` / ``illegal_reward``,
            or a bad env option.
    """

    metadata = {"render_modes": []}

    def __init__(self, pool: Sequence[tuple[float, OpponentFactory]], *,
                 illegal_action: str = "raise", illegal_reward: float = -1.0,
                 **env_kwargs) -> None:
        super().__init__()
        self.illegal_reward = check_illegal_action(illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self._over = True  # no episode running until reset
        self.raw = raw_env(**env_kwargs)
        self.observation_space = gym.spaces.Box(0.0, np.inf, (self.raw.obs_size,), np.float32)
        self.action_space = gym.spaces.Discrete(self.raw.num_actions)
        self._pool = list(pool)
        self._snapshots: list[str] = []
        self._loaded: dict[str, object] = {}  # snapshot path -> loaded policy
        self._snapshot_weight = 0.0
        self.team = 0
        self.opponent = None
        self.opponent_name = ""
        self.decisions = 0

    # -- pool management (called through VecEnv.env_method) ---------------------------
    def set_snapshots(self, paths: list[str], weight: float) -> None:
        """Frozen snapshots of the learner to draw opponents from (checkpoint paths)."""
        self._snapshots = list(paths)
        self._snapshot_weight = float(weight)

    def _draw_opponent(self):
        rng = self.np_random
        entries = list(self._pool)
        if self._snapshots and self._snapshot_weight > 0:
            path = self._snapshots[int(rng.integers(len(self._snapshots)))]
            entries.append((self._snapshot_weight, lambda r, p=path: self._snapshot(p, r)))
        weights = np.array([w for w, _ in entries], dtype=float)
        k = int(rng.choice(len(entries), p=weights / weights.sum()))
        return entries[k][1](rng)

    def _snapshot(self, path: str, rng: np.random.Generator):
        """The snapshot at ``path`` as a sampling policy, loaded once and kept while it is
        in the pool (loading a checkpoint every hand would dominate the step time).

        Raises:
            canasta_env.bots.PolicyVariantError: the snapshot was trained for another
                variant than this env's (checked once, when it is loaded, before it
                plays).
            training.sb3.checkpoint.CheckpointError: the file cannot be loaded.
        """
        from canasta_env.bots.loader import check_variant_sizes, policy_sizes

        from .checkpoint import CheckpointPolicy

        pol = self._loaded.get(path)
        if pol is None:
            self._loaded = {p: q for p, q in self._loaded.items() if p in self._snapshots}
            pol = CheckpointPolicy(path, deterministic=False)
            check_variant_sizes(policy_sizes(pol), self.raw.rules, f"snapshot {path}")
            self._loaded[path] = pol
        pol.reset(int(rng.integers(2**31)))
        return pol

    # -- gym API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.team = int(self.np_random.integers(2))
        self.opponent = self._draw_opponent()
        self.raw.reset(seed=int(self.np_random.integers(2**62)))
        self.decisions = 0
        reward, done, trunc = self._advance()
        assert not (done or trunc), "a hand cannot end before the learner's first decision"
        self._over = False
        return self._obs(), {}

    def _seat(self) -> int:
        return int(self.raw.agent_selection[-1])

    def _obs(self) -> np.ndarray:
        return self.raw.observe(self.raw.agent_selection)["observation"]

    def action_masks(self) -> np.ndarray:
        """Bool mask ``(NUM_ACTIONS,)`` of the learner seat on turn."""
        return self.raw.action_mask().astype(bool)

    def _advance(self) -> tuple[float, bool, bool]:
        """Let opponents play until a learner seat is on turn or the hand ends."""
        raw = self.raw
        me = f"player_{self.team}"
        reward = 0.0
        while True:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                return reward, bool(raw.terminations[agent]), bool(raw.truncations[agent])
            if self._seat() % 2 == self.team:
                return reward, False, False
            o = raw.observe(agent)
            raw.step(self.opponent.act(o["observation"], o["action_mask"]))
            reward += raw.rewards[me]

    def step(self, action):
        """One decision of the learner seat on turn.

        Returns:
            ``(observation float32 (obs size,), reward float, terminated, truncated,
            info)``; ``info["hand_scores"]`` at the end of the hand; under
            ``illegal_action="terminate"`` an illegal action ends the episode (see the
            module docstring).

        Raises:
            IllegalActionError: ``action`` is illegal (``illegal_action="raise"``).
            RuntimeError: no episode is running (before ``reset`` or after its end).
        """
        if self._over:
            raise RuntimeError("the episode is over (or never started): call reset()")
        raw = self.raw
        me = f"player_{self.team}"
        try:
            raw.step(int(action))
        except IllegalActionError as e:  # the engine refused it and changed nothing
            if self.illegal_action == "raise":
                raise
            self._over = True
            return self._obs(), self.illegal_reward, True, False, {
                "illegal_action": True, "reason": str(e)}
        self.decisions += 1
        reward = raw.rewards[me]
        more, done, trunc = self._advance()
        reward += more
        info = {}
        if done or trunc:
            self._over = True
            info["hand_scores"] = raw.infos[me].get("hand_scores")
            obs = raw.observe(me)["observation"]
        else:
            obs = self._obs()
        return obs, float(reward), done, trunc, info
