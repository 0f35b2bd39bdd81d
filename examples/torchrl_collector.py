"""TorchRL: the AEC env through ``PettingZooWrapper`` as TorchRL documents it
(``check_env_specs``, a rollout, a collector), with the env's numeric infos
(``numeric_infos=True``: the same info keys with numbers at every step, which TorchRL
turns into tensors fixed at reset).

    python examples/torchrl_collector.py --frames 512

Each seat is its own group (``player_0`` .. ``player_3``); the action mask of the seat
on turn is ``("player_i", "action_mask")`` and ``("player_i", "mask")`` says which seat
acted. The policy is TorchRL's idiom for masked discrete actions: one MLP (shared by
the four seats) whose logits feed a ``ProbabilisticActor`` with ``MaskedCategorical``
reading each seat's ``action_mask``, so every sampled action is legal. Needs the interop
extra: ``pip install -e '.[training,interop]'``.
"""

from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

import canasta_env


def masked_policy(env: PettingZooWrapper) -> TensorDictSequential:
    """One MLP for every seat, sampling only legal actions (``MaskedCategorical``)."""
    spec = env.full_action_spec["player_0", "action"]
    n_obs = env.observation_spec["player_0", "observation", "observation"].shape[-1]
    net = MLP(in_features=n_obs, out_features=spec.space.n, num_cells=[64])
    actors = []
    for agent in canasta_env.AGENTS:
        logits = TensorDictModule(net, in_keys=[(agent, "observation", "observation")],
                                  out_keys=[(agent, "logits")])
        actors.append(ProbabilisticActor(
            TensorDictSequential(logits), in_keys={"logits": (agent, "logits"),
                                                   "mask": (agent, "action_mask")},
            out_keys=[(agent, "action")], distribution_class=MaskedCategorical,
            return_log_prob=True, log_prob_key=(agent, "log_prob")))
    return TensorDictSequential(*actors)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=4096, help="frames to collect")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    env = PettingZooWrapper(env=canasta_env.env(variant=args.variant, numeric_infos=True),
                            use_mask=True, seed=args.seed)
    check_env_specs(env)

    hand = env.rollout(5000, break_when_any_done=True)  # random masked play, one hand
    last = hand[-1]["next"]
    print(f"one hand: {hand.batch_size[0]} decisions, hand scores "
          f"{last['player_0', 'info', 'hand_scores'].reshape(-1).int().tolist()}, rewards "
          f"{[round(last[a, 'reward'].item(), 3) for a in canasta_env.AGENTS]}")

    collector = Collector(env, policy=masked_policy(env), frames_per_batch=min(256, args.frames),
                          total_frames=args.frames)
    frames = hands = illegal = 0
    for batch in collector:
        frames += batch.numel()
        hands += int(batch["next", "done"].sum())
        for agent in canasta_env.AGENTS:  # the acting seat's action is always legal
            acted = batch[agent, "mask"].reshape(-1)
            action = batch[agent, "action"].reshape(-1)[acted]
            mask = batch[agent, "action_mask"].reshape(acted.shape[0], -1)[acted]
            illegal += int((~mask[torch.arange(action.shape[0]), action]).sum())
    collector.shutdown()
    print(f"collected {frames} frames, {hands} hands finished, {illegal} illegal actions "
          f"(torch {torch.__version__})")


if __name__ == "__main__":
    main()
