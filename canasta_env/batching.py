"""Policies on batches of decisions: the optional ``act_batch`` method, its input check,
and which policies may play many episodes side by side.

Batch protocol. A policy may have, beside ``act(observation, action_mask) -> int``::

    act_batch(observations, masks) -> np.ndarray

with ``observations`` float32 ``[B, OBS_SIZE]`` and ``masks`` int8 (or bool) ``[B,
NUM_ACTIONS]``, one row per decision (``B >= 1``), returning int64 ``[B]``: row ``i``'s
action, the action ``act`` would give for that row. Networks answer a batch with one
forward (``training.sb3.checkpoint.CheckpointPolicy``, :class:`canasta_env.bots.onnx_policy.
OnnxPolicy`); :func:`act_rows` calls ``act_batch`` when a policy has it and ``act`` row by
row otherwise. A batched forward may differ from a batch-1 forward in the last bits of a
float, so an argmax may differ only where two logits are within rounding of each other.

Episodes side by side (``training.evaluate``). A policy is reset with a seed at the start
of every episode; one that draws random numbers (:class:`~canasta_env.policies.
RandomPolicy`, a checkpoint in sampling mode) or keeps any other per-episode state needs
its own instance per running episode (:func:`fork`), while a stateless one
(:func:`is_stateless`: deterministic, nothing remembered between calls) is shared by all
of them and asked once per batch.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .policies import HeuristicPolicy
from .policies import check_policy_batch as _check_rows

__all__ = ["act_rows", "check_policy_batch", "fork", "is_stateless"]


def check_policy_batch(observations, masks, obs_size: int | None = None,
                       num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch of decisions before a policy acts on it:
    :func:`canasta_env.policies.check_policy_batch` (every row passes
    :func:`~canasta_env.policies.check_policy_inputs`), and at least one row.

    Args:
        observations: float ``[B, OBS_SIZE]`` (float32 from the env), ``B >= 1``.
        masks: ``[B, NUM_ACTIONS]``, int8 / bool / numbers 0 or 1; 1 = legal.
        obs_size, num_actions: the sizes the policy expects (None: by the layout, as
            :func:`~canasta_env.policies.check_policy_inputs`).

    Returns:
        (observations as float32, masks as int8), both 2-D (copies only when converted).

    Raises:
        ValueError: :func:`canasta_env.policies.check_policy_batch`'s messages (not 2-D,
            different row counts, ``row I: <the message of check_policy_inputs>``), or an
            empty batch.
    """
    obs, mask = _check_rows(observations, masks, obs_size, num_actions)
    if obs.shape[0] == 0:
        raise ValueError("an empty batch (0 rows); a batch needs at least one decision")
    return obs, mask


def act_rows(policy: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The actions of ``policy`` for a batch: one ``policy.act_batch(observations,
    masks)`` call when it has that method, else ``policy.act`` row by row in row order.

    Args:
        observations: float32 ``[B, OBS_SIZE]``.
        masks: int8 ``[B, NUM_ACTIONS]``.

    Returns:
        int64 ``[B]``.

    Raises:
        ValueError: what the policy raises for bad inputs; ``act_batch`` returning
            anything but ``B`` action ids.
    """
    batch = getattr(policy, "act_batch", None)
    if batch is None:
        return np.array([policy.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)
    out = np.asarray(batch(observations, masks))
    if out.shape != (len(observations),) or out.dtype.kind not in "iu":
        raise ValueError(f"{getattr(policy, 'name', type(policy).__name__)}.act_batch returned "
                         f"{out.dtype} {out.shape}; it must return {len(observations)} "
                         f"action ids (int64 [B])")
    return out.astype(np.int64, copy=False)


def is_stateless(policy: Any) -> bool:
    """Whether one instance of ``policy`` may play many episodes side by side: its
    ``stateless`` attribute when it has one (``CheckpointPolicy``: in deterministic mode;
    ``OnnxPolicy``: always), else ``True`` only for
    :class:`~canasta_env.policies.HeuristicPolicy` (deterministic, reads only its
    inputs). Any other policy is assumed to keep per-episode state (a random generator
    reseeded by ``reset``): it gets one instance per running episode (:func:`fork`)."""
    flag = getattr(policy, "stateless", None)
    if flag is not None:
        return bool(flag)
    return isinstance(policy, HeuristicPolicy)


def fork(policy: Any) -> Any:
    """A new instance of ``policy`` for another running episode: ``policy.fork()`` when it
    has that method (``CheckpointPolicy``: shares the network, own generator), else
    ``copy.deepcopy(policy)``. The evaluation resets it with the episode's seed before
    use, so it must not share state that ``reset(seed)`` does not reset.

    Raises:
        TypeError: the policy can be neither forked nor deep-copied (give it a ``fork``
            method, or a ``stateless = True`` attribute if it has no per-episode state).
    """
    make = getattr(policy, "fork", None)
    if make is not None:
        return make()
    try:
        return copy.deepcopy(policy)
    except Exception as e:  # noqa: BLE001 - any object may refuse to be copied
        name = getattr(policy, "name", type(policy).__name__)
        raise TypeError(f"policy {name!r} keeps per-episode state and cannot be copied for "
                        f"episodes played side by side ({type(e).__name__}: {e}); give it a "
                        f"fork() method, or stateless = True if it keeps no state") from None
