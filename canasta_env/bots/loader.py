"""Policies by name: a policy spec string becomes a :class:`canasta_env.policies.Policy`.

===================  ================================================================
spec                 policy
===================  ================================================================
``random``           :class:`~canasta_env.policies.RandomPolicy` (seed 0; evaluation
                     reseeds it per episode)
``heuristic``        :class:`~canasta_env.policies.HeuristicPolicy`
``reference``        the shipped reference policy, the file :func:`reference_path`
                     names (below)
a ``.onnx`` path     :class:`~canasta_env.bots.onnx_policy.OnnxPolicy` (needs
                     onnxruntime only: the ``bots`` extra)
a ``.zip`` path      a MaskablePPO checkpoint, loaded by the loader that the
                     ``training`` package registers when it is imported (needs the
                     ``training`` extra: torch, sb3-contrib)
any other path       the loader registered for its suffix with :func:`register_loader`
===================  ================================================================

Specs are stripped; the built-in names and file suffixes are matched case-insensitively.

Loaders by suffix. This package never imports ``training`` (nor torch): ``.onnx`` is
built in, and ``import training`` calls ``register_loader(".zip", ...)`` with a
function that imports ``training.checkpoint`` only when a ``.zip`` is loaded. So
``python -m training.serve`` / ``training.play`` (and the ``canasta-serve`` /
``canasta-play`` commands) load ``.zip`` checkpoints, while the bots alone
(``python -m canasta_env.bots.service`` / ``canasta_env.bots.play``) load ONNX models,
``heuristic`` and ``random``, and refuse a ``.zip`` with a message saying to install the
``training`` extra and run through ``training``.

The reference policy is one network shipped twice in ``checkpoints/reference/``:
:data:`REFERENCE_ONNX` (``classic.onnx``, exported from the checkpoint with
``python -m training.export_onnx``) and :data:`REFERENCE_CHECKPOINT` (``classic.zip``).
``reference`` is the ``.onnx`` when it exists and onnxruntime is installed, else the
``.zip`` when it exists and a ``.zip`` loader is registered. The choice depends only on
what is installed and imported, never on chance; both give the same deterministic
(argmax) moves (``tests/test_reference_policy.py`` checks them on real observations).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

from canasta_env.policies import HeuristicPolicy, Policy, RandomPolicy

BUILTIN = ("random", "heuristic", "reference")
REPO_ROOT = Path(__file__).resolve().parents[2]
#: The folder of the shipped reference policy.
REFERENCE_DIR = REPO_ROOT / "checkpoints" / "reference"
#: The reference policy as an ONNX model (onnxruntime, no torch): ``reference`` when usable.
REFERENCE_ONNX = REFERENCE_DIR / "classic.onnx"
#: The reference policy as a MaskablePPO checkpoint (Classic; needs the training extra).
REFERENCE_CHECKPOINT = REFERENCE_DIR / "classic.zip"

#: ``load(path) -> Policy`` for a policy file
Loader = Callable[[str], Policy]

ONNX_HINT = "ONNX policies need onnxruntime: pip install -e '.[bots]'"
ZIP_HINT = ("MaskablePPO checkpoints (.zip) load through the training package: install the "
            "training extra (pip install -e '.[training]') and import training first, or run "
            "python -m training.serve / python -m training.play (canasta-serve / canasta-play); "
            "without torch use the checkpoint's ONNX export (python -m training.export_onnx)")
_HINTS = {".onnx": ONNX_HINT, ".zip": ZIP_HINT}


class PolicySpecError(ValueError):
    """A policy spec names no built-in policy and no loadable policy file."""


def _load_onnx(path: str) -> Policy:
    from .onnx_policy import OnnxPolicy

    return OnnxPolicy(path)


_LOADERS: dict[str, Loader] = {".onnx": _load_onnx}


def register_loader(suffix: str, load: Loader) -> None:
    """Make ``load(path) -> Policy`` the loader of policy files whose name ends in
    ``suffix`` (e.g. ``".zip"``), replacing an earlier loader for that suffix.

    ``load`` is called with the path as a string, only for a file that exists. It may
    raise ``ImportError`` (a missing extra: :func:`load_policy` turns it into a
    :class:`PolicySpecError` with an install hint) or a ``ValueError`` of its own for a
    bad file (passed on as it is, e.g. ``training.checkpoint.CheckpointError``).

    Raises:
        ValueError: ``suffix`` is not a dot and at least one more character.
        TypeError: ``load`` is not callable.
    """
    if not isinstance(suffix, str) or not suffix.startswith(".") or len(suffix) < 2:
        raise ValueError(f"a loader suffix must look like '.zip', got {suffix!r}")
    if not callable(load):
        raise TypeError(f"load must be a callable load(path) -> Policy, got {load!r}")
    _LOADERS[suffix.lower()] = load


def registered_suffixes() -> tuple[str, ...]:
    """The file suffixes :func:`load_policy` can load now (``".onnx"`` always; ``".zip"``
    once ``training`` is imported), sorted."""
    return tuple(sorted(_LOADERS))


def reference_path() -> Path:
    """The file ``reference`` loads now (see the module docstring): :data:`REFERENCE_ONNX`
    if it exists and onnxruntime is installed, else :data:`REFERENCE_CHECKPOINT` if it
    exists and a ``.zip`` loader is registered.

    Raises:
        PolicySpecError: neither is usable; the message says why for each.
    """
    onnx_ok = REFERENCE_ONNX.is_file() and importlib.util.find_spec("onnxruntime") is not None
    if onnx_ok:
        return REFERENCE_ONNX
    if REFERENCE_CHECKPOINT.is_file() and ".zip" in _LOADERS:
        return REFERENCE_CHECKPOINT
    why = []
    if not REFERENCE_ONNX.is_file():
        why.append(f"{REFERENCE_ONNX} does not exist")
    else:
        why.append(f"{REFERENCE_ONNX} needs onnxruntime, which is not installed ({ONNX_HINT})")
    if not REFERENCE_CHECKPOINT.is_file():
        why.append(f"{REFERENCE_CHECKPOINT} does not exist")
    else:
        why.append(f"{REFERENCE_CHECKPOINT} needs the .zip loader, which is not registered "
                   f"({ZIP_HINT})")
    raise PolicySpecError(f"the reference policy is not available: {'; '.join(why)}. Use "
                          f"policy 'heuristic', 'random' or a policy file path instead.")


def load_policy(spec: str) -> Policy:
    """The policy named by ``spec`` (see the module table): ``act(observation,
    action_mask) -> action id`` with ``observation`` float32 ``(obs_size,)`` and
    ``action_mask`` int8 ``(num_actions,)`` of the env.

    Raises:
        PolicySpecError: ``spec`` is not a non-empty string; names no built-in policy and
            no existing file; a file with no registered loader (a ``.zip`` before
            ``training`` is imported); a loader whose extra is missing (``ImportError``);
            ``reference`` while neither reference file is usable.
        ValueError: the loader's own error for a file it cannot read (``OnnxPolicy``:
            not an ONNX model of this package's sizes; ``training.checkpoint.
            CheckpointError``: a bad checkpoint).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PolicySpecError(f"a policy spec must be 'random', 'heuristic', 'reference' or a "
                              f"policy file path (.onnx, .zip), got {spec!r}")
    key = spec.strip()
    if key.lower() == "random":
        return RandomPolicy(seed=0)
    if key.lower() == "heuristic":
        return HeuristicPolicy()
    path = reference_path() if key.lower() == "reference" else Path(key)
    if not path.is_file():
        what = "a directory, not a policy file" if path.is_dir() else "no policy file"
        raise PolicySpecError(f"unknown policy {spec!r}: not one of {', '.join(BUILTIN)} and "
                              f"{what} at {path}")
    suffix = path.suffix.lower()
    load = _LOADERS.get(suffix)
    if load is None:
        hint = _HINTS.get(suffix) or (f"no policy loader for {suffix or 'a file without suffix'}; "
                                      f"known: {', '.join(registered_suffixes())}")
        raise PolicySpecError(f"cannot load policy {spec!r}: {hint}")
    try:
        return load(str(path))
    except ImportError as e:  # the loader's extra (onnxruntime, torch, sb3-contrib) is missing
        hint = _HINTS.get(suffix, "a module this loader needs is missing")
        raise PolicySpecError(f"cannot load policy {spec!r}: {hint} ({e})") from e
