"""Ray RLlib: PPO self-play on Canasta, the four seats sharing one masked module, in
RLlib's own idiom (``PPOConfig`` -> ``build_algo()`` -> ``train()``), with the package's
RLlib pieces: the env through RLlib's ``PettingZooEnv`` (``training.rllib.CanastaRLlibEnv``)
and the masked actor-critic module (``training.rllib_module.MaskedActorCritic``).

    python examples/rllib_ppo.py --iterations 1 --batch 256

The full command with configs, checkpoints, ONNX export and metrics per partnership is
``python -m training.rllib --config configs/rllib_classic.yaml``. Needs the distributed
extra: ``pip install -e '.[training,distributed]'``.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray on 127.0.0.1

import ray  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402

from training.rllib import CanastaRLlibEnv  # noqa: E402
from training.rllib_module import MaskedActorCritic  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--batch", type=int, default=2000, help="env steps per training batch")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    config = (
        PPOConfig()
        .environment(CanastaRLlibEnv, env_config={"variant": "classic"},
                     disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=0, rollout_fragment_length=args.batch)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=MaskedActorCritic, model_config={"net_arch": [64, 64]})}))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(128, args.batch),
                  num_epochs=1, lr=3e-4)
        .debugging(seed=args.seed, log_level="ERROR")
    )
    ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR")
    try:
        algo = config.build_algo()
        for it in range(1, args.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            print(f"iteration {it}: {runners.get('num_env_steps_sampled_lifetime', 0):.0f} env "
                  f"steps, {runners.get('num_episodes_lifetime', 0):.0f} hands finished")
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
