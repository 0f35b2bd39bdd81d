"""Loading trained MaskablePPO checkpoints, with clear errors, as opponent policies.

A checkpoint is the ``.zip`` that sb3-contrib's ``MaskablePPO.save`` writes. It must
have been trained on an environment with the same observation size and number of
actions as the installed ``canasta_env``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from canasta_env.engine import preset
from canasta_env.engine.actions import num_actions
from canasta_env.observation import obs_size
from canasta_env.policies import check_policy_inputs

#: variant -> (observation shape, number of actions) a checkpoint may have
VARIANT_SIZES = {v: ((obs_size(preset(v)),), num_actions(preset(v)))
                 for v in ("classic", "hand_and_foot")}


class CheckpointError(ValueError):
    """A checkpoint is missing, corrupt, or made for other observation / action sizes."""


def load_model(path: str | Path, env=None, device: str = "cpu",
               custom_objects: dict | None = None):
    """Load a MaskablePPO model from ``path`` (a ``.zip``).

    Args:
        env: optional vectorised env to attach (for resuming training).
        custom_objects: saved attributes to replace before the model is set up
            (SB3's ``custom_objects``), e.g. ``{"learning_rate": 3e-4}`` when resuming
            with other PPO settings.

    Raises:
        CheckpointError: no such file, not a valid SB3 zip, or spaces that do not match
            ``canasta_env`` (observation size ``OBS_SIZE``, ``NUM_ACTIONS`` actions).
    """
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if not path.is_file():
        what = "is a directory, not a .zip file" if path.is_dir() else "does not exist"
        raise CheckpointError(f"checkpoint {path} {what}")
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"checkpoint {path} is not a MaskablePPO .zip (corrupt or wrong file)")
    try:
        model = MaskablePPO.load(path, env=env, device=device, custom_objects=custom_objects)
    except ValueError as e:  # SB3: spaces of env and checkpoint differ
        raise CheckpointError(f"checkpoint {path} does not match this environment: {e}") from None
    except Exception as e:  # noqa: BLE001 - any unpickling / zip error means a bad file
        raise CheckpointError(f"checkpoint {path} could not be loaded ({type(e).__name__}: {e})") \
            from None
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    if (obs_shape, n_actions) not in VARIANT_SIZES.values():
        known = ", ".join(f"{v}: ({o[0]},) and {n}" for v, (o, n) in VARIANT_SIZES.items())
        raise CheckpointError(
            f"checkpoint {path} was trained for observation shape {obs_shape} and {n_actions} "
            f"actions; this canasta_env has {known}")
    return model


def weights_digest(path: str | Path) -> str:
    """SHA-256 (64 hex digits) of the policy weights in checkpoint ``path``: every tensor of
    the saved ``policy.pth`` in name order (its name, dtype, shape and bytes). Two runs that
    trained the same weights have the same digest; the ``.zip`` bytes themselves differ
    (times and versions are saved with them).

    Raises:
        CheckpointError: no such file, not a MaskablePPO ``.zip``, or its ``policy.pth``
            missing, unreadable or not a state dict of dense tensors.
    """
    import hashlib
    import io

    import torch

    path = Path(path)
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise CheckpointError(f"checkpoint {path} is not a MaskablePPO .zip (no such file, "
                              f"corrupt or wrong file)")
    try:
        with zipfile.ZipFile(path) as z:
            state = torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu",
                               weights_only=True)
    except Exception as e:  # noqa: BLE001 - a missing member or unpickling error: a bad file
        first = (str(e).strip().splitlines() or [""])[0]
        raise CheckpointError(f"checkpoint {path}: no readable policy.pth "
                              f"({type(e).__name__}: {first})") from None
    if not isinstance(state, dict) or not state or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) and v.layout == torch.strided
            for k, v in state.items()):
        raise CheckpointError(f"checkpoint {path}: policy.pth is not a state dict (a non-empty "
                              f"mapping of names to dense tensors)")
    h = hashlib.sha256()
    for name in sorted(state):
        shape = tuple(state[name].shape)  # before flattening: [2, 3] and [3, 2] differ
        t = state[name].detach().contiguous().cpu().reshape(-1)
        h.update(f"{name}|{t.dtype}|{shape}|".encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


class CheckpointPolicy:
    """A trained policy as a :class:`canasta_env.policies.Policy`: maps (observation,
    action_mask) to an action id.

    Args:
        model: a path to a checkpoint or a loaded MaskablePPO model.
        deterministic: take the most likely legal action (default) or sample.
        seed: seed of the sampling generator (``reset(seed)`` reseeds it).

    Batches: :meth:`act_batch` answers ``B`` decisions with one forward. In deterministic
    mode the policy is :attr:`stateless` (one instance may serve many episodes at once);
    in sampling mode each running episode needs its own instance (:meth:`fork`).
    """

    def __init__(self, model, deterministic: bool = True, seed: int | None = None) -> None:
        import torch

        if isinstance(model, (str, Path)):
            self.name = str(model)
            model = load_model(model)
        else:
            self.name = "model"
        self.model = model
        self.policy = model.policy
        self.deterministic = deterministic
        self._torch = torch
        self._gen = torch.Generator().manual_seed(seed or 0)

    @property
    def stateless(self) -> bool:
        """True in deterministic mode: the action depends only on the inputs, so one
        instance may play many episodes side by side (:mod:`canasta_env.batching`)."""
        return self.deterministic

    def fork(self) -> "CheckpointPolicy":
        """A policy sharing this one's network (no copy of the weights) with a generator of
        its own, for another episode played side by side (sampling mode)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._gen = self._torch.Generator()
        other._gen.set_state(self._gen.get_state())
        return other

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode: ``seed`` (if given) reseeds the sampling generator."""
        if seed is not None:
            self._gen.manual_seed(seed)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """Masked action logits, float32 ``(NUM_ACTIONS,)`` (illegal actions -1e8).

        Raises:
            ValueError: inputs this checkpoint cannot play (another variant's sizes, not
                1-D, not finite floats, a mask with no legal action ...), with the
                message of :func:`canasta_env.policies.check_policy_inputs`.
        """
        torch = self._torch
        observation, action_mask = check_policy_inputs(
            observation, action_mask, obs_size=self.model.observation_space.shape[0],
            num_actions=self.model.action_space.n)
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32).reshape(1, -1)
            dist = self.policy.get_distribution(obs, action_masks=action_mask.astype(bool)[None])
            return dist.distribution.logits[0].numpy()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Action id for one observation (float32 ``(OBS_SIZE,)``) and mask (int8 or bool
        ``(NUM_ACTIONS,)``); always a legal action.

        Raises:
            ValueError: see :meth:`logits`.
        """
        logits = self.logits(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        return self._sample(logits)

    def _sample(self, logits: np.ndarray) -> int:
        torch = self._torch
        probs = torch.softmax(torch.as_tensor(logits), dim=0)
        return int(torch.multinomial(probs, 1, generator=self._gen).item())

    def logits_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked action logits of a batch with one forward (under ``no_grad``), float32
        ``[B, NUM_ACTIONS]`` (illegal actions -1e8); row ``i`` equals
        ``logits(observations[i], masks[i])`` up to float rounding of the batched
        matrix products.

        Args:
            observations: float32 ``[B, OBS_SIZE]``, ``B >= 1``.
            masks: int8 or bool ``[B, NUM_ACTIONS]``, every row with a legal action.

        Raises:
            ValueError: a batch this checkpoint cannot play, with the message of
                :func:`canasta_env.batching.check_policy_batch` (``row I: ...``).
        """
        from canasta_env.batching import check_policy_batch

        torch = self._torch
        obs, masks = check_policy_batch(observations, masks,
                                        obs_size=self.model.observation_space.shape[0],
                                        num_actions=self.model.action_space.n)
        with torch.no_grad():
            dist = self.policy.get_distribution(torch.as_tensor(obs),
                                                action_masks=masks.astype(bool))
            return dist.distribution.logits.numpy()

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions of a batch of decisions with one forward: int64 ``[B]``, row ``i`` a
        legal action of ``masks[i]``. Deterministic mode: the argmax of each row's masked
        logits (:meth:`logits_batch`). Sampling mode: each row sampled in row order from
        this policy's one generator, as ``act`` called row by row would.

        Args:
            observations: float32 ``[B, OBS_SIZE]``, ``B >= 1``.
            masks: int8 or bool ``[B, NUM_ACTIONS]``.

        Raises:
            ValueError: see :meth:`logits_batch`.
        """
        logits = self.logits_batch(observations, masks)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        return np.array([self._sample(row) for row in logits], dtype=np.int64)


def load_policy_checkpoint(path: str | Path, deterministic: bool = True) -> CheckpointPolicy:
    """A checkpoint as a policy (see :class:`CheckpointPolicy`).

    Raises:
        CheckpointError: see :func:`load_model`.
    """
    return CheckpointPolicy(path, deterministic=deterministic)
