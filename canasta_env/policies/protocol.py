"""The :class:`Policy` protocol and the checks of a policy's inputs.

A policy maps one seat's view -- the observation vector (float32, ``(OBS_SIZE,)``, layout
in :mod:`canasta_env.observation`) and the action mask (int8, ``(NUM_ACTIONS,)``) -- to a
legal action id. Every policy checks its inputs with :func:`check_policy_inputs` (one row)
or :func:`check_policy_batch` (``[B, N]`` rows) before acting and raises ``ValueError``
with one message per kind of bad input (not 1-D, another variant's size, not finite
floats, a mask that is not 0 / 1 or has no legal action); docs/RULES.md §7.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..engine import actions as A
from ..observation import OBS_SIZE, OBS_SIZE_HAND_AND_FOOT

#: observation size -> (variant name, number of actions) of the two layouts
LAYOUTS: dict[int, tuple[str, int]] = {
    OBS_SIZE: ("Classic", A.NUM_ACTIONS),
    OBS_SIZE_HAND_AND_FOOT: ("Hand and Foot", A.NUM_ACTIONS_HAND_AND_FOOT),
}
_BY_ACTIONS = {n: (name, size) for size, (name, n) in LAYOUTS.items()}


#: Largest value any observation entry can take (the encoder writes scaled counts and flags,
#: all >= 0; the largest are scores / 5,000 under the position format's +-10,000,000 bound).
OBS_MAX = 10_000


def check_policy_inputs(observation, action_mask, obs_size: int | None = None,
                        num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate one seat's (observation, action mask) before a policy acts on it
    (docs/RULES.md §7 environment contract & boundaries: a policy asked to act on an
    all-zero mask or on another variant's observation raises).

    The sizes a policy expects: ``obs_size`` / ``num_actions`` when given (a policy bound
    to one variant, e.g. a checkpoint); otherwise the variant whose layout the mask's
    length (else the observation's) names: Classic :data:`OBS_SIZE` entries and
    ``NUM_ACTIONS`` (91) actions, Hand and Foot :data:`OBS_SIZE_HAND_AND_FOOT` and 98.

    Args:
        observation: one seat's observation, a 1-D float vector (float32 from the env).
        action_mask: its action mask, 1-D: int8 (as the env gives it), bool, or other
            integers (or floats) that are all exactly 0 or 1; 1 = legal.
        obs_size, num_actions: the sizes the policy expects (None: by the layout).

    Returns:
        (observation as float32, mask as int8), both 1-D (copies only when converted).

    Raises:
        ValueError: the message says exactly what is wrong -- not 1-D, not floats,
            non-finite values, values outside ``0..OBS_MAX``, another size (naming the
            variant the policy expects and the one the input belongs to), mask values
            other than 0 / 1, or a mask with no legal action (all zeros).
    """
    try:
        obs = np.asarray(observation)
        mask = np.asarray(action_mask)
    except (TypeError, ValueError) as e:
        raise ValueError(f"observation and action_mask must be numeric arrays ({e})") from None
    if obs.ndim != 1:
        raise ValueError(f"observation must be 1-D (one seat's vector), got shape {obs.shape}")
    if mask.ndim != 1:
        raise ValueError(f"action_mask must be 1-D (one seat's mask), got shape {mask.shape}")
    # the sizes this policy plays
    if obs_size is None and num_actions is None:
        if len(mask) in _BY_ACTIONS:
            obs_size = _BY_ACTIONS[len(mask)][1]
        elif len(obs) in LAYOUTS:
            obs_size = len(obs)
        else:
            raise ValueError(
                f"action_mask has {len(mask)} entries and observation {len(obs)}; a policy "
                f"expects {A.NUM_ACTIONS} and {OBS_SIZE} (Classic) or "
                f"{A.NUM_ACTIONS_HAND_AND_FOOT} and {OBS_SIZE_HAND_AND_FOOT} (Hand and Foot)")
    if obs_size is None:
        obs_size = _BY_ACTIONS.get(num_actions, (None, None))[1]
    if num_actions is None:
        num_actions = LAYOUTS.get(obs_size, (None, None))[1]
    name = LAYOUTS.get(obs_size, (None,))[0]
    this = f"this {name} policy" if name else "this policy"
    if obs_size is not None and len(obs) != obs_size:
        other = LAYOUTS.get(len(obs), (None,))[0]
        why = f" (a {other} observation: another variant)" if other else ""
        raise ValueError(f"observation has {len(obs)} entries, {this} expects {obs_size}{why}")
    if obs.dtype.kind != "f":
        raise ValueError(f"observation must be floats (float32), got dtype {obs.dtype}")
    finite = np.isfinite(obs)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raise ValueError(f"observation has {bad.size} non-finite value(s) (NaN or inf), first "
                         f"at index {int(bad[0])}")
    out_of_range = (obs < 0) | (obs > OBS_MAX)
    if out_of_range.any():
        i = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(f"observation entry {i} is {obs[i].item()!r}, outside the encoder's "
                         f"range 0..{OBS_MAX:,} (entries are scaled counts and flags)")
    if num_actions is not None and len(mask) != num_actions:
        other = _BY_ACTIONS.get(len(mask), (None,))[0]
        why = f" (a {other} mask: another variant)" if other else ""
        raise ValueError(f"action_mask has {len(mask)} entries, {this} expects "
                         f"{num_actions}{why}")
    if mask.dtype != np.bool_:
        if mask.dtype.kind not in "iuf":
            raise ValueError(f"action_mask must be int8, bool or numbers 0 / 1, got dtype "
                             f"{mask.dtype}")
        bad = ~((mask == 0) | (mask == 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"action_mask entries must be 0 or 1, got {mask[i].item()} at "
                             f"index {i}")
    if not mask.any():
        raise ValueError("action_mask has no legal action (all zeros)")
    return obs.astype(np.float32, copy=False), mask.astype(np.int8, copy=False)


def check_policy_batch(observations, masks, obs_size: int | None = None,
                       num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch of (observation, action mask) rows, row by row with the rules of
    :func:`check_policy_inputs` (docs/RULES.md §7).

    Args:
        observations: ``[B, N]`` floats (float32 from the env), one seat's view per row.
        masks: ``[B, A]`` int8, bool or numbers 0 / 1, the same ``B``.
        obs_size, num_actions: as for :func:`check_policy_inputs`.

    Returns:
        (observations as C-contiguous float32 ``[B, N]``, masks as C-contiguous int8
        ``[B, A]``); ``B`` may be 0.

    Raises:
        ValueError: not 2-D (``observations must be 2-D (one row per seat), got shape
            (202,)``), different numbers of rows (``observations has 3 rows and masks 2;
            they must match``), columns or dtypes another policy's (the message of
            :func:`check_policy_inputs` for them), or a bad row: the message of
            :func:`check_policy_inputs` for the first bad row ``i``, prefixed with
            ``row i: `` (e.g. ``row 3: action_mask has no legal action (all zeros)``).
    """
    try:
        obs = np.asarray(observations)
        mask = np.asarray(masks)
    except (TypeError, ValueError) as e:
        raise ValueError(f"observations and masks must be numeric arrays ({e})") from None
    if obs.ndim != 2:
        raise ValueError(f"observations must be 2-D (one row per seat), got shape {obs.shape}")
    if mask.ndim != 2:
        raise ValueError(f"masks must be 2-D (one row per seat), got shape {mask.shape}")
    if obs.shape[0] != mask.shape[0]:
        raise ValueError(f"observations has {obs.shape[0]} rows and masks {mask.shape[0]}; "
                         f"they must match")
    # sizes and dtypes, shared by every row: a harmless row of those columns and dtypes
    check_policy_inputs(np.zeros(obs.shape[1], dtype=obs.dtype),
                        np.ones(mask.shape[1], dtype=mask.dtype), obs_size, num_actions)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(obs).all(axis=1) | ((obs < 0) | (obs > OBS_MAX)).any(axis=1)
    if mask.dtype != np.bool_:
        bad |= ~((mask == 0) | (mask == 1)).all(axis=1)
    bad |= ~mask.any(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        try:
            check_policy_inputs(obs[i], mask[i], obs_size, num_actions)
        except ValueError as e:
            raise ValueError(f"row {i}: {e}") from None
        raise AssertionError(f"row {i} of the batch was refused but passes the row check")
    return (np.ascontiguousarray(obs, dtype=np.float32),
            np.ascontiguousarray(mask, dtype=np.int8))


@runtime_checkable
class Policy(Protocol):
    """Anything that picks a legal action from one seat's observation and mask.

    A policy may also have ``act_batch(observations, masks) -> np.ndarray``: float32
    ``[B, N]`` observations and int8 or bool ``[B, A]`` masks to int64 ``[B]`` actions,
    row ``i`` the action ``act`` gives for row ``i`` (:meth:`HeuristicPolicy.act_batch`;
    inputs checked by :func:`check_policy_batch`)."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode; ``seed`` (if given) re-seeds any randomness."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for ``observation`` (float32 ``(OBS_SIZE,)``) and
        ``action_mask`` (int8 or bool ``(NUM_ACTIONS,)``, 1 = legal). Raises
        ``ValueError`` for inputs :func:`check_policy_inputs` refuses."""
