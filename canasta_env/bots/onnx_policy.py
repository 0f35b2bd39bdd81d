"""Run an exported policy with onnxruntime: :class:`OnnxPolicy` (no torch needed).

The model (written by ``python -m training.export_onnx``) is the policy network of a
MaskablePPO checkpoint with the action mask applied inside; ``OBS_SIZE`` and
``NUM_ACTIONS`` are the sizes of the variant it was trained for (Classic 202 and 91,
Hand and Foot 245 and 98), read from the model's inputs into the policy's
:attr:`OnnxPolicy.obs_size` and :attr:`OnnxPolicy.num_actions`:

============  ==========================  ===============================================
name          type, shape                 meaning
============  ==========================  ===============================================
observation   float32 [N, OBS_SIZE]       ``canasta_env.observation.encode(game, seat)``
                                          (the env's ``obs["observation"]``)
action_mask   int8 [N, NUM_ACTIONS]       1 = legal, 0 = illegal (the env's
                                          ``obs["action_mask"]`` as it is;
                                          :class:`OnnxPolicy` also feeds a model
                                          whose ``action_mask`` input is float32)
logits        float32 [N, NUM_ACTIONS]    masked action logits, normalised as log
                                          probabilities over the legal actions; illegal
                                          actions about -1e8 (:data:`MASKED_LOGIT`)
============  ==========================  ===============================================

``argmax(logits)`` is the policy's deterministic move; ``softmax(logits)`` its action
probabilities. These are the same numbers as the checkpoint's
``training.sb3.checkpoint.CheckpointPolicy.logits`` (sb3-contrib's masked distribution).
The batch size N is dynamic: :meth:`OnnxPolicy.act_batch` answers N decisions with one
``session.run`` (batched evaluation, :mod:`canasta_env.batching`). The model's metadata
records ``obs_size``, ``num_actions``, the checkpoint and the package version.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .variants import KNOWN_SIZES as VARIANT_SIZES
from .variants import VARIANT_NAMES as _NAMES

#: value given to illegal actions before normalisation (as sb3-contrib's masking)
MASKED_LOGIT = -1e8
#: the model's input names, in order
INPUTS = ("observation", "action_mask")
#: the model's output name
OUTPUT = "logits"


class OnnxPolicy:
    """An exported model as a :class:`canasta_env.policies.Policy`: ``act(observation,
    action_mask)`` is the argmax of the masked logits (always a legal action).

    Attributes:
        obs_size, num_actions: the sizes of the variant the model was built for (read
            from its inputs; see :func:`canasta_env.bots.loader.check_policy_variant`).
        variant: that variant's name (``"classic"`` or ``"hand_and_foot"``).

    Args:
        path: the ``.onnx`` file.

    Raises:
        ImportError: onnxruntime is not installed (the ``bots`` or ``service`` extra).
        ValueError: the file is not a model with this package's inputs and the sizes of
            one of its variants.
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
        sizes = None
        if set(shapes) == set(INPUTS) and all(len(shapes[n]) == 2 for n in INPUTS):
            sizes = (shapes["observation"][1], shapes["action_mask"][1])
        if sizes not in VARIANT_SIZES:
            known = "; ".join(f"{_NAMES[v]}: observation [N, {o}] and action_mask [N, {n}]"
                              for (o, n), v in VARIANT_SIZES.items())
            raise ValueError(f"ONNX model {path} has inputs {shapes}; this canasta_env needs "
                             f"{known}")
        self.obs_size, self.num_actions = sizes
        self.variant = VARIANT_SIZES[sizes]
        mask_type = {i.name: i.type for i in self.session.get_inputs()}["action_mask"]
        self._mask_dtype = np.int8 if mask_type == "tensor(int8)" else np.float32

    #: deterministic and without memory: one instance may play many episodes side by
    #: side (:mod:`canasta_env.batching`)
    stateless = True

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the policy is deterministic."""

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked logits, float32: ``(num_actions,)`` for one observation ``(obs_size,)``
        and mask ``(num_actions,)``; ``[N, num_actions]`` for a batch ``[N, obs_size]``
        and ``[N, num_actions]``. The mask may be any numeric dtype (nonzero = legal).

        Raises:
            ValueError: the last dimensions are not :attr:`obs_size` / :attr:`num_actions`
                (an observation of another variant).
        """
        obs = np.asarray(observation, dtype=np.float32)
        mask = (np.asarray(action_mask) != 0).astype(self._mask_dtype)
        n_obs, n_act = self.obs_size, self.num_actions
        if obs.shape[-1:] != (n_obs,) or mask.shape[-1:] != (n_act,):
            raise ValueError(f"ONNX policy {self.name} plays {_NAMES[self.variant]} (observation "
                             f"{n_obs}, {n_act} actions); got an observation of shape "
                             f"{obs.shape} and a mask of shape {mask.shape}")
        single = obs.ndim == 1
        out = self.session.run([OUTPUT], {"observation": obs.reshape(-1, n_obs),
                                          "action_mask": mask.reshape(-1, n_act)})[0]
        return out[0] if single else out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Action id for one observation (float32 ``(obs_size,)``) and mask (int8 or bool
        ``(num_actions,)``): the legal action with the largest logit.

        Raises:
            ValueError: the inputs fail :func:`canasta_env.policies.check_policy_inputs`
                (the same check and message as every policy: wrong size or variant, not
                1-D, non-finite, a mask with no legal action).
        """
        from ..policies import check_policy_inputs

        obs, mask = check_policy_inputs(observation, action_mask, self.obs_size,
                                        self.num_actions)
        return int(np.argmax(self.logits(obs, mask)))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions of a batch of decisions with one ``session.run``: int64 ``[B]``, the
        argmax of each row's masked logits (row ``i`` as ``act(observations[i],
        masks[i])``, up to float rounding of the batched matrix products).

        Args:
            observations: float32 ``[B, obs_size]``, ``B >= 1``.
            masks: int8 or bool ``[B, num_actions]``, every row with a legal action.

        Raises:
            ValueError: the rows fail :func:`canasta_env.batching.check_policy_batch`
                (``row I: <the message of check_policy_inputs>``), or the batch is not
                2-D.
        """
        from ..batching import check_policy_batch

        obs, mask = check_policy_batch(observations, masks, self.obs_size, self.num_actions)
        return np.argmax(self.logits(obs, mask), axis=1).astype(np.int64)
