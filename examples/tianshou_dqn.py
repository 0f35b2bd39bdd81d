"""Tianshou 2: a DQN seat learning against three masked random seats, as Tianshou's own
multi-agent example does it (test/pettingzoo/tic_tac_toe.py: ``PettingZooEnv``,
``MultiAgentOffPolicyAlgorithm``, ``MARLRandomDiscreteMaskedOffPolicyAlgorithm``),
with subprocess vector envs.

    python examples/tianshou_dqn.py --epochs 1 --steps-per-epoch 200

Tianshou's ``PettingZooEnv`` hands the masked random seats the mask in ``obs.mask``
and DQN masks its Q-values with it. Needs the interop extra (tianshou):
``pip install -e '.[training,interop]'``.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, SubprocVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import canasta_env


def get_env() -> PettingZooEnv:
    return PettingZooEnv(canasta_env.env())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--steps-per-epoch", type=int, default=2000)
    p.add_argument("--envs", type=int, default=2, help="training envs (subprocesses)")
    p.add_argument("--dummy", action="store_true", help="DummyVectorEnv instead of subprocesses")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    env = get_env()
    obs_space = env.observation_space.spaces["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n),
              hidden_sizes=[128, 128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                       eps_training=0.1, eps_inference=0.05),
        optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=3,
        target_update_freq=320)
    seats = [learner] + [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
                         for _ in range(3)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)

    venv = DummyVectorEnv if args.dummy else SubprocVectorEnv
    train_envs = venv([get_env for _ in range(args.envs)])
    test_envs = venv([get_env for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1000)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(20_000, len(train_envs)), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.envs)

    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector,
        max_epochs=args.epochs, epoch_num_steps=args.steps_per_epoch,
        collection_step_num_env_steps=10, test_step_num_episodes=args.envs, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1, test_in_training=False,
        show_progress=False, verbose=False,
        # the learner is player_0: its partnership's reward (partners share it)
        multi_agent_return_reduction=lambda rews: rews[:, 0]))
    train_envs.close()
    test_envs.close()
    print(f"trained {result.timing.total_time:.1f} s; best test return of player_0: "
          f"{result.best_reward:+.3f}")


if __name__ == "__main__":
    main()
