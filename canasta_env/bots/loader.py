"""Turn a policy spec string into a :class:`canasta_env.policies.Policy`.

=================  ==================================================================
spec               policy
=================  ==================================================================
``random``         :class:`~canasta_env.policies.RandomPolicy` (seeded per episode)
``heuristic``      :class:`~canasta_env.policies.HeuristicPolicy`
``reference``      the shipped reference policy, :data:`REFERENCE_CHECKPOINT`
any other string   a checkpoint path, loaded by
                   ``training.checkpoint.load_policy_checkpoint(path)`` (needs the
                   ``training`` extra: torch, sb3-contrib)
=================  ==================================================================
"""

from __future__ import annotations

import importlib
from pathlib import Path

from canasta_env.policies import HeuristicPolicy, Policy, RandomPolicy

BUILTIN = ("random", "heuristic", "reference")
REPO_ROOT = Path(__file__).resolve().parents[1]
#: The shipped reference policy (MaskablePPO, Classic), loadable as ``"reference"``.
REFERENCE_CHECKPOINT = REPO_ROOT / "checkpoints" / "reference" / "classic.zip"


class PolicySpecError(ValueError):
    """A policy spec names no built-in policy and no loadable checkpoint."""


def load_policy(spec: str) -> Policy:
    """The policy named by ``spec`` (see the module table).

    Raises:
        PolicySpecError: empty spec, a path that does not exist, or a checkpoint while
            the checkpoint module / training extra is missing.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PolicySpecError(f"a policy spec must be 'random', 'heuristic' or a checkpoint "
                              f"path, got {spec!r}")
    key = spec.strip()
    if key.lower() == "random":
        return RandomPolicy(seed=0)
    if key.lower() == "heuristic":
        return HeuristicPolicy()
    path = REFERENCE_CHECKPOINT if key.lower() == "reference" else Path(key)
    if not path.exists():
        raise PolicySpecError(f"unknown policy {spec!r}: not one of {', '.join(BUILTIN)} and "
                              f"no checkpoint file at {path}")
    hint = ("checkpoint policies need the training extra / module (pip install -e "
            "'.[training]'; training.checkpoint.load_policy_checkpoint)")
    try:
        loader = importlib.import_module("training.checkpoint").load_policy_checkpoint
    except (ImportError, AttributeError) as e:
        raise PolicySpecError(f"cannot load checkpoint {spec!r}: {hint}: {e}") from e
    try:
        return loader(str(path))
    except ImportError as e:  # torch / sb3-contrib missing
        raise PolicySpecError(f"cannot load checkpoint {spec!r}: {hint}: {e}") from e
