"""The masked policy network RLlib trains, and its way back to the project's interfaces.

:class:`MaskedActorCritic` is an RLlib ``TorchRLModule`` of the project's own (not the
example module under ``ray.rllib.examples``, which is not a stable API). Its observation
is the ``Dict`` that :class:`training.rllib.CanastaRLlibEnv` produces:

==============  ===============================  ==========================================
key             space                            meaning
==============  ===============================  ==========================================
observations    Box float32 ``(obs_size,)``      the env's ``obs["observation"]``
action_mask     Box int8 ``(num_actions,)``      the env's ``obs["action_mask"]`` (1 legal)
==============  ===============================  ==========================================

The actor (an MLP ``net_arch`` wide, tanh, as sb3's ``MlpPolicy``) gives logits; illegal
actions get :data:`~canasta_env.bots.onnx_policy.MASKED_LOGIT` (-1e8) in every forward
mode, inference, exploration and training, so no mode can sample or learn an illegal
action. The critic is a separate MLP of the same shape (``ValueFunctionAPI``, for PPO).

From a trained module: :class:`RLlibPolicy` (``act(observation, action_mask)``, argmax of
the masked logits, inputs validated) and :func:`export_onnx` (the ONNX format of
:mod:`canasta_env.bots.onnx_policy`, so ``training.evaluate``, the bots and the service
load the ``.onnx`` like any exported checkpoint). :func:`load_module` reads a module from
an RLlib checkpoint without a Ray cluster.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule

from canasta_env.bots.onnx_policy import MASKED_LOGIT

#: the observation keys the module reads (RLlib's convention: "observations")
OBS_KEY = "observations"
MASK_KEY = "action_mask"


def _mlp(sizes: list[int], out: int) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.Tanh()]
    layers.append(torch.nn.Linear(sizes[-1], out))
    return torch.nn.Sequential(*layers)


def mask_logits(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """``logits`` where ``action_mask`` is nonzero, :data:`MASKED_LOGIT` elsewhere (an
    all-zero mask, the final observation of a hand, gives finite, uniform logits)."""
    return torch.where(action_mask > 0, logits, torch.full_like(logits, MASKED_LOGIT))


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Masked actor and critic MLPs; ``model_config``: ``{"net_arch": [256, 256]}``."""

    def setup(self) -> None:
        space = self.observation_space
        if not hasattr(space, "spaces") or set(space.spaces) != {OBS_KEY, MASK_KEY}:
            raise ValueError(f"MaskedActorCritic needs a Dict observation space with keys "
                             f"{OBS_KEY!r} and {MASK_KEY!r}, got {space}")
        n_obs = int(space[OBS_KEY].shape[0])
        n_act = int(self.action_space.n)
        if space[MASK_KEY].shape != (n_act,):
            raise ValueError(f"action_mask shape {space[MASK_KEY].shape} does not match "
                             f"{n_act} actions")
        arch = [int(h) for h in (self.model_config or {}).get("net_arch", [256, 256])]
        self.pi = _mlp([n_obs, *arch], n_act)
        # built on env runners too (inference_only): the learner's state then loads as it is
        self.vf = _mlp([n_obs, *arch], 1)

    def _logits(self, batch: dict[str, Any]) -> torch.Tensor:
        obs = batch[Columns.OBS]
        return mask_logits(self.pi(obs[OBS_KEY]), obs[MASK_KEY])

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        """Inference and exploration (the base class runs them without gradients)."""
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS][OBS_KEY]).squeeze(-1)


def load_module(path: str | Path):
    """The RLModule saved under ``path``: an RLlib checkpoint directory (a module
    directory ``.../learner_group/learner/rl_module/<module_id>``; or an algorithm
    checkpoint holding exactly one module). No Ray cluster is started.

    Raises:
        ValueError: nothing loadable at ``path``, or an algorithm checkpoint with several
            modules (name one of them).
    """
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"RLlib checkpoint {path} is not a directory")
    modules = path / "learner_group" / "learner" / "rl_module"
    if modules.is_dir():
        ids = sorted(p.name for p in modules.iterdir() if p.is_dir())
        if len(ids) != 1:
            raise ValueError(f"RLlib checkpoint {path} holds modules {ids}; pass one module "
                             f"directory, e.g. {modules / (ids[0] if ids else '<id>')}")
        path = modules / ids[0]
    try:
        module = RLModule.from_checkpoint(path)
    except Exception as e:  # noqa: BLE001 - any unpickling / missing-file error
        raise ValueError(f"cannot load an RLlib module from {path} ({type(e).__name__}: {e})") \
            from None
    module.eval()
    return module


class RLlibPolicy:
    """A trained RLlib module as a :class:`canasta_env.policies.Policy`: ``act`` is the
    legal action with the largest logit (deterministic).

    Args:
        module: a :class:`MaskedActorCritic` (or any module with its observation Dict),
            or the path of a checkpoint (see :func:`load_module`).
    """

    def __init__(self, module, name: str | None = None) -> None:
        if isinstance(module, (str, Path)):
            name = name or str(module)
            module = load_module(module)
        self.module = module
        self.name = name or "rllib"
        space = module.observation_space
        self.obs_size = int(space[OBS_KEY].shape[0])
        self.num_actions = int(module.action_space.n)

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the policy is deterministic."""

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked logits, float32: ``(num_actions,)`` for one observation, ``[N,
        num_actions]`` for a batch.

        Raises:
            ValueError: wrong sizes (another variant), a non-finite observation, or a
                mask with no legal action.
        """
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if obs.shape[-1:] != (self.obs_size,) or mask.shape[-1:] != (self.num_actions,) or \
                obs.shape[:-1] != mask.shape[:-1] or obs.ndim not in (1, 2):
            raise ValueError(f"RLlib policy {self.name} takes an observation ({self.obs_size},) "
                             f"and a mask ({self.num_actions},) (or batches of them); got "
                             f"shapes {obs.shape} and {mask.shape} (another variant?)")
        if not np.isfinite(obs).all():
            raise ValueError(f"RLlib policy {self.name}: the observation is not finite")
        if not (mask.reshape(-1, self.num_actions) != 0).any(axis=1).all():
            raise ValueError(f"RLlib policy {self.name}: a mask with no legal action")
        single = obs.ndim == 1
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs.reshape(-1, self.obs_size)),
                               MASK_KEY: torch.as_tensor(mask.reshape(-1, self.num_actions))}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        out = torch.log_softmax(out, dim=-1).numpy()
        return out[0] if single else out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Action id for one observation and mask (always a legal action).

        Raises:
            ValueError: as :meth:`logits`.
        """
        return int(np.argmax(self.logits(observation, action_mask)))


class _OnnxActor(torch.nn.Module):
    def __init__(self, pi: torch.nn.Module) -> None:
        super().__init__()
        self.pi = pi

    def forward(self, observation, action_mask):
        return torch.log_softmax(mask_logits(self.pi(observation), action_mask), dim=-1)


def export_onnx(module, out: str | Path, source: str = "rllib", opset: int = 17) -> Path:
    """Write the actor of ``module`` (a :class:`MaskedActorCritic`) as an ONNX model in
    the format of :mod:`canasta_env.bots.onnx_policy` (inputs ``observation``,
    ``action_mask`` int8, the env's own; output ``logits``, masked log-probabilities);
    check it with ``onnx``; return ``out``. Either variant, with its sizes (as
    :class:`~canasta_env.bots.onnx_policy.OnnxPolicy` reads them).

    Raises:
        ValueError: the module is not a :class:`MaskedActorCritic` with a variant's sizes;
            ``training.export_onnx.ExportError`` (a ``ValueError``): an opset outside
            9 .. the newest this torch writes, or not an int.
    """
    from canasta_env.bots.loader import KNOWN_SIZES
    from training.export.onnx import write_onnx

    pol = RLlibPolicy(module)
    if not isinstance(getattr(module, "pi", None), torch.nn.Module):
        raise ValueError("the ONNX export needs a MaskedActorCritic module")
    sizes = (pol.obs_size, pol.num_actions)
    if sizes not in KNOWN_SIZES:
        raise ValueError(f"the module has observation size {pol.obs_size} and {pol.num_actions} "
                         f"actions, no variant's ({sorted(KNOWN_SIZES)})")
    actor = _OnnxActor(module.pi).eval()
    return write_onnx(actor, Path(out), opset, {"checkpoint": source,
                                                "trainer": "ray rllib PPO (training.rllib)"},
                      sizes=sizes)
