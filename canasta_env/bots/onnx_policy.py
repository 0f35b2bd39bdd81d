"""Run an exported policy with onnxruntime: :class:`OnnxPolicy` (no torch needed).

The model (written by ``python -m training.export_onnx``, Classic only) is the policy
network of a MaskablePPO checkpoint with the action mask applied inside:

============  ==========================  ===============================================
name          type, shape                 meaning
============  ==========================  ===============================================
observation   float32 [N, OBS_SIZE]       ``canasta_env.observation.encode(game, seat)``
                                          (the env's ``obs["observation"]``)
action_mask   float32 [N, NUM_ACTIONS]    1 = legal, 0 = illegal (the env's int8
                                          ``obs["action_mask"]`` cast to float32)
logits        float32 [N, NUM_ACTIONS]    masked action logits, normalised as log
                                          probabilities over the legal actions; illegal
                                          actions about -1e8 (:data:`MASKED_LOGIT`)
============  ==========================  ===============================================

``argmax(logits)`` is the policy's deterministic move; ``softmax(logits)`` its action
probabilities. These are the same numbers as the checkpoint's
``training.checkpoint.CheckpointPolicy.logits`` (sb3-contrib's masked distribution).
The batch size N is dynamic. The model's metadata records ``obs_size``,
``num_actions``, the checkpoint and the package version.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from canasta_env import OBS_SIZE
from canasta_env.engine import NUM_ACTIONS

#: value given to illegal actions before normalisation (as sb3-contrib's masking)
MASKED_LOGIT = -1e8
#: the model's input names, in order
INPUTS = ("observation", "action_mask")
#: the model's output name
OUTPUT = "logits"


class OnnxPolicy:
    """An exported model as a :class:`canasta_env.policies.Policy`: ``act(observation,
    action_mask)`` is the argmax of the masked logits (always a legal action).

    Args:
        path: the ``.onnx`` file.

    Raises:
        ImportError: onnxruntime is not installed (the ``bots`` or ``service`` extra).
        ValueError: the file is not a model with this package's inputs and sizes.
    """

    def __init__(self, path: str | Path) -> None:
        import onnxruntime as ort

        self.name = str(path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
            raise ValueError(f"cannot load ONNX model {path}: {e}") from None
        shapes = {i.name: i.shape for i in self.session.get_inputs()}
        if set(shapes) != set(INPUTS) or shapes["observation"][1] != OBS_SIZE or \
                shapes["action_mask"][1] != NUM_ACTIONS:
            raise ValueError(f"ONNX model {path} has inputs {shapes}; this canasta_env needs "
                             f"observation [N, {OBS_SIZE}] and action_mask [N, {NUM_ACTIONS}]")

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the policy is deterministic."""

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked logits, float32: ``(NUM_ACTIONS,)`` for one observation ``(OBS_SIZE,)``
        and mask ``(NUM_ACTIONS,)``; ``[N, NUM_ACTIONS]`` for a batch ``[N, OBS_SIZE]``
        and ``[N, NUM_ACTIONS]``. The mask may be any numeric dtype (nonzero = legal).

        Raises:
            ValueError: the last dimensions are not ``OBS_SIZE`` / ``NUM_ACTIONS`` (an
                observation of another variant).
        """
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask, dtype=np.float32)
        if obs.shape[-1:] != (OBS_SIZE,) or mask.shape[-1:] != (NUM_ACTIONS,):
            raise ValueError(f"ONNX policy {self.name} plays Classic (observation {OBS_SIZE}, "
                             f"{NUM_ACTIONS} actions); got an observation of shape {obs.shape} "
                             f"and a mask of shape {mask.shape}")
        single = obs.ndim == 1
        out = self.session.run([OUTPUT], {"observation": obs.reshape(-1, OBS_SIZE),
                                          "action_mask": mask.reshape(-1, NUM_ACTIONS)})[0]
        return out[0] if single else out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Action id for one observation (float32 ``(OBS_SIZE,)``) and mask (int8
        ``(NUM_ACTIONS,)``): the legal action with the largest logit.

        Raises:
            ValueError: as :meth:`logits`.
        """
        return int(np.argmax(self.logits(observation, action_mask)))
