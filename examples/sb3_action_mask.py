"""MaskablePPO (sb3-contrib) on Canasta through PettingZoo's SB3 action-mask tutorial
wrapper, used as the tutorial writes it ("Training agents with action masking",
pettingzoo.farama.org/tutorials/sb3/connect_four/): one network plays every seat.

    python examples/sb3_action_mask.py --steps 2048

The tutorial wrapper hands each seat the reward of its own last step; for a learner that
plays one partnership against fixed opponents with transitions that never mix seats,
use ``training.adapter.PartnershipEnv`` (what ``python -m training.main`` trains with).
Needs the training extra: ``pip install -e '.[training]'``.
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

import canasta_env


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """The tutorial's wrapper: PettingZoo AEC to a Gymnasium env for SB3 masking."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        # Strip the action mask out from the observation space
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (
            self.observe(next_agent),
            self._cumulative_rewards[current_agent],
            self.terminations[current_agent],
            self.truncations[current_agent],
            self.infos[current_agent],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env):
    return env.action_mask()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_480, help="environment steps to train")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    env = SB3ActionMaskWrapper(canasta_env.env())
    env.reset(seed=args.seed)
    env = ActionMasker(env, mask_fn)
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=min(2048, args.steps),
                        batch_size=64, verbose=0, seed=args.seed)
    model.learn(total_timesteps=args.steps)

    # one hand played by the trained network at every seat, masks passed to predict
    env = SB3ActionMaskWrapper(canasta_env.env())
    obs, _ = env.reset(seed=args.seed + 1)
    decisions = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        action, _ = model.predict(obs, action_masks=env.action_mask(), deterministic=True)
        obs, *_ = env.step(int(action))
        decisions += 1
    hand = env.infos["player_0"].get("hand_scores")
    print(f"trained {args.steps} steps; one hand: {decisions} decisions, hand scores {hand}")


if __name__ == "__main__":
    main()
