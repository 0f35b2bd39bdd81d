"""Playing a batched training env (training.sb3.batched) forward in the tests."""

from __future__ import annotations


def end_rewards(env, steps: int) -> list[float]:
    """Resets ``env`` (a ``BatchedPartnershipVecEnv``), plays ``steps`` steps with each
    game's first legal action for the learner, and returns the rewards of the steps that
    ended a hand, in order (game by game within a step)."""
    env.reset()
    ends: list[float] = []
    for _ in range(steps):
        env.step_async(env.action_masks().argmax(axis=1))
        _, rew, done, _ = env.step_wait()
        ends += rew[done].tolist()
    return ends
