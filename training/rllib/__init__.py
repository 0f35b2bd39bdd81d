"""Training on Ray RLlib (``python -m training.rllib``; needs the ``distributed`` extra).

- :mod:`training.rllib.config`: the run's config (:class:`RLlibConfig`), on the PPO
  settings shared with SB3 (:class:`training.common.config.PPOSettings`).
- :mod:`training.rllib.env`: the AEC env through RLlib's wrapper, the metrics, the PPO
  config of a run.
- :mod:`training.rllib.loop`: Ray start-up, :func:`train` and the command.
- :mod:`training.rllib.module`: the masked actor-critic module, its policy and ONNX export.
- :mod:`training.rllib.vector_env`: ``env: vector``, many games on the native core.
- :mod:`training.rllib.throughput`, :mod:`training.rllib.cluster_demo`: the speed
  comparison with SB3 and the two-node loopback demo (``python -m training.rllib_*``).

Importing this package imports Ray (the env class derives from RLlib's PettingZoo wrapper).
"""

from canasta_env.cli import require_extra

require_extra("python -m training.rllib", "training", "distributed")  # before the imports that need it

from training.common.moved import forward  # noqa: E402

from .config import (
    EnvRunnersConfig,
    RayConfig,
    RLlibConfig,
    RLlibEvalConfig,
    RLlibPPOConfig,
    load_rllib_config,
)
from .env import CanastaRLlibEnv, env_class, env_config, ppo_config  # noqa: E402
from .loop import (
    REPO_ROOT,
    evaluate_module,
    export_and_check,
    init_ray,
    keep_on_loopback,
    main,
    progress_line,
    runtime_env,
    train,
)

__all__ = ["CanastaRLlibEnv", "EnvRunnersConfig", "REPO_ROOT", "RLlibConfig", "RLlibEvalConfig",
           "RLlibPPOConfig", "RayConfig", "env_class", "env_config", "evaluate_module",
           "export_and_check", "init_ray", "keep_on_loopback", "load_rllib_config", "main",
           "ppo_config", "progress_line", "runtime_env", "train"]

# the other names the single module training/rllib.py had (e.g. AGENTS) stay reachable
__getattr__ = forward(__name__, "training.rllib.loop", "training.rllib.env",
                      "training.rllib.config")
