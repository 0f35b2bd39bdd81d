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


def load_model(path: str | Path, env=None, device: str = "cpu"):
    """Load a MaskablePPO model from ``path`` (a ``.zip``).

    Args:
        env: optional vectorised env to attach (for resuming training).

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
        model = MaskablePPO.load(path, env=env, device=device)
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


class CheckpointPolicy:
    """A trained policy as a :class:`canasta_env.policies.Policy`: maps (observation,
    action_mask) to an action id.

    Args:
        model: a path to a checkpoint or a loaded MaskablePPO model.
        deterministic: take the most likely legal action (default) or sample.
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

    def reset(self, seed: int | None = None) -> None:
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
        torch = self._torch
        probs = torch.softmax(torch.as_tensor(logits), dim=0)
        return int(torch.multinomial(probs, 1, generator=self._gen).item())


def load_policy_checkpoint(path: str | Path, deterministic: bool = True) -> CheckpointPolicy:
    """A checkpoint as a policy (see :class:`CheckpointPolicy`).

    Raises:
        CheckpointError: see :func:`load_model`.
    """
    return CheckpointPolicy(path, deterministic=deterministic)
