"""Policies by name: a policy spec string becomes a :class:`canasta_env.policies.Policy`.

===================  ================================================================
spec                 policy
===================  ================================================================
``random``           :class:`~canasta_env.policies.RandomPolicy` (seed 0; evaluation
                     reseeds it per episode)
``heuristic``        :class:`~canasta_env.policies.HeuristicPolicy`
``style:<name>``     the heuristic in one of the named playing styles of
                     :data:`canasta_env.policies.styles.STYLES` (``style:freezer``,
                     ``style:defensive``...; Classic only: refused for Hand and Foot,
                     whose heuristic play has no style parameters)
``search``           :class:`~canasta_env.search.SearchPolicy`: the heuristic improved by
                     decision-time search on the native core (64 determinised rollouts
                     per legal action; about 10 ms a decision); it needs the game, so it
                     plays through the bots, the service, terminal play and
                     ``training.evaluate``, not through a bare ``act(observation, mask)``
``search_reference`` the same search with the game's variant's reference network as the
                     base policy proposing the moves (``SearchPolicy(base=...)``; in
                     Classic with 256 determinisations,
                     :data:`canasta_env.search.REFERENCE_SEARCH`)
``reference``        the shipped reference policy of the game's variant, the file
                     :func:`reference_path` names (below): Classic's and Hand and
                     Foot's networks; a variant without one plays the heuristic
``apprentice``       the game's variant's apprentice network, the ONNX model
                     :func:`apprentice_file` names: a network between the heuristic and
                     the reference (Hand and Foot's level ``hard``; it needs onnxruntime,
                     the ``bots`` extra); a variant without one refuses it
a ``.onnx`` path     :class:`~canasta_env.bots.onnx_policy.OnnxPolicy` (needs
                     onnxruntime only: the ``bots`` extra)
a ``.zip`` path      a MaskablePPO checkpoint, loaded by the loader that the
                     ``training`` package registers when it is imported (needs the
                     ``training`` extra: torch, sb3-contrib)
any other path       the loader registered for its suffix with :func:`register_loader`
``easy``, ``medium``, the difficulty levels of the game's variant
``hard``, ``expert`` (:data:`canasta_env.bots.levels.LEVELS`, the one table of them):
                     each resolves to that variant's spec (without a variant: Classic's);
                     a level missing for the variant is a :class:`PolicySpecError`
``epsilon-heuristic  :class:`~canasta_env.policies.epsilon.EpsilonHeuristicPolicy`: the
:P``                 heuristic, with a uniformly random legal move with probability ``P``
                     in [0, 1] (seed 0; evaluation reseeds it per episode)
``module:attr``      a policy written outside this package, ``module:attribute``: a
                     class (one instance per seat and per episode) or a policy
                     object, imported by name (:mod:`canasta_env.bots.outside`)
===================  ================================================================

Specs are stripped; the built-in names and file suffixes are matched case-insensitively.

Policies and variants. A Classic network cannot play Hand and Foot (its observation has
202 entries and 91 actions, Hand and Foot's 245 and 98), so every entry point checks a
policy against the game's variant before the first deal, with one function,
:func:`check_policy_variant`; ``load_policy(spec, variant=...)`` calls it. What a policy
was built for is :func:`policy_sizes`: its ``obs_size`` and ``num_actions`` attributes
(:class:`~canasta_env.bots.onnx_policy.OnnxPolicy` reads them from the model's inputs),
else the observation and action spaces of its ``model`` (a MaskablePPO model, as
``training.sb3.checkpoint.CheckpointPolicy`` holds), else nothing: a policy without them
(:class:`~canasta_env.policies.RandomPolicy`, :class:`~canasta_env.policies.HeuristicPolicy`,
which has Hand and Foot play of its own) plays any variant. A mismatch is a
:class:`PolicyVariantError` (a :class:`PolicySpecError`) such as ``policy 'reference' is a
Classic policy (observation 202, 91 actions); this game is Hand and Foot (observation 245,
98 actions)``.

Loaders by suffix. This package never imports ``training`` (nor torch): ``.onnx`` is
built in, and ``import training`` calls ``register_loader(".zip", ...)`` with a
function that imports ``training.sb3.checkpoint`` only when a ``.zip`` is loaded. So
``python -m training.serve`` / ``training.play`` (and the ``canasta-serve`` /
``canasta-play`` commands) load ``.zip`` checkpoints, while the bots alone
(``python -m canasta_env.bots.service`` / ``canasta_env.bots.play``) load ONNX models,
``heuristic`` and ``random``, and refuse a ``.zip`` with a message saying to install the
``training`` extra and run through ``training``.

The reference policy is one network per variant, shipped twice in
``checkpoints/reference/`` as ``<variant>.onnx`` and ``<variant>.zip``: for Classic
:data:`REFERENCE_ONNX` (``classic.onnx``, exported from the checkpoint with
``python -m training.export_onnx``) and :data:`REFERENCE_CHECKPOINT` (``classic.zip``);
for Hand and Foot ``hand_and_foot.onnx`` and ``hand_and_foot.zip``.
``reference`` is the ``.onnx`` when it exists and onnxruntime is installed, else the
``.zip`` when it exists and a ``.zip`` loader is registered. The choice depends only on
what is installed and imported, never on chance; both give the same deterministic
(argmax) moves (``tests/bots/test_reference_policy.py`` checks them on real observations).
A variant other than Classic with neither file (Hand and Foot if its files are removed)
plays ``reference`` with the heuristic: ``load_policy("reference", variant=...)`` is then
a :class:`~canasta_env.policies.HeuristicPolicy` (:func:`reference_note` says so in
words). Without a variant, ``reference`` is Classic's.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canasta_env.policies import HeuristicPolicy, Policy, RandomPolicy
from canasta_env.policies.epsilon import EpsilonHeuristicPolicy

from .levels import LEVEL_NAMES, is_level, level_spec
from .variants import (  # noqa: F401 (re-exported: their old home)
    KNOWN_SIZES,
    VARIANT_NAMES,
    PolicySpecError,
    PolicyVariantError,
    _describe_sizes,
    _sizes,
    check_policy_variant,
    check_variant_sizes,
    policy_sizes,
    rules_options,
)

BUILTIN = ("random", "heuristic", "search", "search_reference", "reference", "apprentice")
#: the built-in names whose policy is the game's variant's own (as are the levels')
PER_VARIANT = ("reference", "search_reference", "apprentice")
#: a variant's apprentice network is ``checkpoints/reference/<variant>`` + this
APPRENTICE_SUFFIX = "_apprentice.onnx"
#: ``epsilon-heuristic:P``: the heuristic with a random move with probability ``P``
EPSILON_PREFIX = "epsilon-heuristic:"
#: ``style:NAME``: the heuristic in one of its playing styles (Classic)
STYLE_PREFIX = "style:"
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


def spec_names() -> str:
    """The policy names a command line accepts, for its ``--help``: every name of
    :data:`BUILTIN`, a level (:data:`~canasta_env.bots.levels.LEVEL_NAMES`),
    ``epsilon-heuristic:P`` and ``style:NAME``."""
    return (f"{', '.join(BUILTIN)}, a level ({', '.join(LEVEL_NAMES)}), {EPSILON_PREFIX}P, "
            f"{STYLE_PREFIX}NAME (Classic)")


def variant_hint(error: BaseException, option: str = "--variant",
                 specs: tuple[str, ...] | list[str] = ()) -> str:
    """The message of ``error`` for a command line that chooses the variant with
    ``option``. A :class:`PolicyVariantError` of a policy that plays another variant of
    this package gets ``; pass --variant hand_and_foot to play it`` appended, unless one
    of the command's other policies (``specs``, loaded here) cannot play that variant:
    then ``; the policies given play different variants, so they cannot play each
    other``. Any other error: its message as is."""
    kind = getattr(error, "policy_variant", None)
    if not isinstance(error, PolicyVariantError) or not kind:
        return str(error)
    for spec in specs:
        try:
            load_policy(spec, variant=kind)
        except PolicyVariantError:
            return (f"{error}; the policies given play different variants, so they cannot "
                    f"play each other")
        except Exception:  # noqa: BLE001 - another fault of that spec: reported when it is met
            pass
    return f"{error}; pass {option} {kind} to play it"


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
    bad file (passed on as it is, e.g. ``training.sb3.checkpoint.CheckpointError``).

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


def reference_files(variant: Any = "classic") -> tuple[Path, Path]:
    """The reference files of ``variant`` (a name or rules options): ``(.onnx, .zip)``,
    :data:`REFERENCE_ONNX` and :data:`REFERENCE_CHECKPOINT` for Classic, else
    ``checkpoints/reference/<variant>.onnx`` / ``.zip`` (which may not exist).

    Raises:
        canasta_env.engine.OptionsError, TypeError: as :func:`rules_options`.
    """
    name = rules_options(variant).variant
    if name == "classic":
        return REFERENCE_ONNX, REFERENCE_CHECKPOINT
    return REFERENCE_DIR / f"{name}.onnx", REFERENCE_DIR / f"{name}.zip"


def has_reference(variant: Any = "classic") -> bool:
    """Whether ``variant`` has a reference file of its own (either of
    :func:`reference_files` exists); without one ``reference`` is the heuristic there.

    Raises:
        canasta_env.engine.OptionsError, TypeError: as :func:`rules_options`.
    """
    return any(f.is_file() for f in reference_files(variant))


def reference_note(variant: Any = "classic") -> str | None:
    """``None`` when ``reference`` plays ``variant`` with a reference policy of its own
    (always for Classic, whose reference is shipped: a missing Classic file is an error
    of :func:`reference_path`, not a fallback); else a sentence for players saying that
    ``reference`` plays the heuristic there (a variant without reference files).

    Raises:
        canasta_env.engine.OptionsError, TypeError: as :func:`rules_options`.
    """
    name = rules_options(variant).variant
    if name == "classic" or has_reference(variant):
        return None
    name = VARIANT_NAMES.get(name, name)
    return f"no {name} reference policy yet: 'reference' plays the heuristic"


def apprentice_file(variant: Any = "classic") -> Path:
    """The apprentice network of ``variant`` (a name or rules options), which the policy
    ``apprentice`` plays: ``checkpoints/reference/<variant>_apprentice.onnx`` (which may
    not exist; Hand and Foot's is shipped, docs/results/ladder.md says how it was made).

    Raises:
        canasta_env.engine.OptionsError, TypeError: as :func:`rules_options`.
    """
    return REFERENCE_DIR / f"{rules_options(variant).variant}{APPRENTICE_SUFFIX}"


def _apprentice(variant: Any) -> Path:
    """The file ``apprentice`` loads for ``variant``.

    Raises:
        PolicySpecError: the variant has no apprentice network (the message names the
            variants that have one).
    """
    path = apprentice_file(variant)
    if not path.is_file():
        name = rules_options(variant).variant
        have = sorted(VARIANT_NAMES.get(f.name[:-len(APPRENTICE_SUFFIX)], f.name)
                      for f in REFERENCE_DIR.glob(f"*{APPRENTICE_SUFFIX}"))
        plays = f"plays {', '.join(have)} only" if have else "has no network here"
        raise PolicySpecError(f"policy 'apprentice' {plays}: {VARIANT_NAMES.get(name, name)} "
                              f"has no apprentice network (no file {path})")
    return path


def reference_path(variant: Any = "classic") -> Path:
    """The file ``reference`` loads now for ``variant`` (see the module docstring): its
    ``.onnx`` (:data:`REFERENCE_ONNX` for Classic) if it exists and onnxruntime is
    installed, else its ``.zip`` (:data:`REFERENCE_CHECKPOINT`) if it exists and a
    ``.zip`` loader is registered.

    Raises:
        PolicySpecError: neither is usable; the message says why for each.
        canasta_env.engine.OptionsError, TypeError: as :func:`rules_options`.
    """
    onnx_file, zip_file = reference_files(variant)
    onnx_ok = onnx_file.is_file() and importlib.util.find_spec("onnxruntime") is not None
    if onnx_ok:
        return onnx_file
    if zip_file.is_file() and ".zip" in _LOADERS:
        return zip_file
    why = []
    if not onnx_file.is_file():
        why.append(f"{onnx_file} does not exist")
    else:
        why.append(f"{onnx_file} needs onnxruntime, which is not installed ({ONNX_HINT})")
    if not zip_file.is_file():
        why.append(f"{zip_file} does not exist")
    else:
        why.append(f"{zip_file} needs the .zip loader, which is not registered "
                   f"({ZIP_HINT})")
    raise PolicySpecError(f"the reference policy is not available: {'; '.join(why)}. Use "
                          f"policy 'heuristic', 'random' or a policy file path instead.")


def load_policy(spec: str, variant: Any = None) -> Policy:
    """The policy named by ``spec`` (see the module table): ``act(observation,
    action_mask) -> action id`` with ``observation`` float32 ``(obs_size,)`` and
    ``action_mask`` int8 ``(num_actions,)`` of the env.

    Args:
        variant: the game it will play (a variant name or rules options, see
            :func:`rules_options`), or ``None`` (Classic's ``reference``, no check). When
            given, ``reference`` is that variant's reference (the heuristic while it has
            none), a level name is that variant's level, and the policy is checked with
            :func:`check_policy_variant`.

    Raises:
        PolicySpecError: ``spec`` is not a non-empty string; ``style:<name>`` with an
            unknown style name (the message lists the known ones) or for a variant other
            than Classic; names no built-in policy and
            no existing file; a file with no registered loader (a ``.zip`` before
            ``training`` is imported); a loader whose extra is missing (``ImportError``);
            ``reference`` while neither reference file of the variant is usable;
            ``apprentice`` for a variant without an apprentice network; a
            level missing for the variant; ``epsilon-heuristic:P`` with ``P`` not a
            number in [0, 1].
        PolicyVariantError: the policy was built for another variant than ``variant``.
        ValueError: the loader's own error for a file it cannot read (``OnnxPolicy``:
            not an ONNX model of this package's sizes; ``training.checkpoint.
            CheckpointError``: a bad checkpoint); ``canasta_env.engine.OptionsError``: an
            unknown variant name.
        TypeError: ``variant`` is neither a name nor rules options.
    """
    if variant is None:
        return _load(spec, "classic")
    options = rules_options(variant)
    policy = _load(spec, options)
    check_policy_variant(policy, options, spec.strip())
    return policy


def _load_epsilon(key: str) -> Policy:
    text = key[len(EPSILON_PREFIX):].strip()
    try:
        p = float(text)
    except ValueError:
        p = None
    if p is None or not 0.0 <= p <= 1.0:  # NaN fails the range too
        raise PolicySpecError(f"policy {key!r}: after {EPSILON_PREFIX!r} give the probability "
                              f"of a random move, a number in [0, 1] (e.g. "
                              f"{EPSILON_PREFIX}0.3), got {text!r}")
    return EpsilonHeuristicPolicy(p, seed=0)


def _load_style(key: str, variant: Any) -> Policy:
    """``style:<name>``: the heuristic in style ``name`` (Classic only)."""
    from canasta_env.policies.styles import STYLES, style_policy

    name = key.split(":", 1)[1].strip().lower()
    if name not in STYLES:
        raise PolicySpecError(f"unknown style {name!r} in policy {key!r}; known styles: "
                              f"{', '.join(STYLES)}")
    kind = rules_options(variant).variant
    if kind != "classic":
        raise PolicySpecError(f"policy {key!r}: styles play Classic only; "
                              f"{VARIANT_NAMES.get(kind, kind)} has no heuristic styles "
                              f"(use 'heuristic')")
    return style_policy(name)


def _load(spec: str, variant: Any) -> Policy:
    if not isinstance(spec, str) or not spec.strip():
        raise PolicySpecError(f"a policy spec must be one of {', '.join(BUILTIN)}, "
                              f"'{STYLE_PREFIX}<name>', '{EPSILON_PREFIX}P', a level "
                              f"({', '.join(LEVEL_NAMES)}), a policy file path (.onnx, .zip) "
                              f"or module:attribute, got {spec!r}")
    key = spec.strip()
    if is_level(key):  # a difficulty level: the variant's policy for it (canasta_env.bots.levels)
        return _load(level_spec(key, variant), variant)
    if key.lower().startswith(STYLE_PREFIX) and not Path(key).exists():
        return _load_style(key, variant)
    from .outside import is_outside_spec, load_outside

    if is_outside_spec(key) and not Path(key).exists():
        return load_outside(key)
    if key.lower() == "random":
        return RandomPolicy(seed=0)
    if key.lower() == "heuristic":
        return HeuristicPolicy()
    if key.lower().startswith(EPSILON_PREFIX):
        return _load_epsilon(key)
    if key.lower() == "search":
        from ..search import SearchPolicy

        try:
            return SearchPolicy()
        except RuntimeError as e:  # no compiled core
            raise PolicySpecError(f"cannot load policy 'search': {e}") from e
    if key.lower() == "search_reference":  # the search with the variant's reference as base
        from ..search import REFERENCE_SEARCH, SearchPolicy

        settings = REFERENCE_SEARCH.get(rules_options(variant).variant, {})
        try:
            return SearchPolicy(base=_load("reference", variant), **settings)
        except RuntimeError as e:  # no compiled core
            raise PolicySpecError(f"cannot load policy 'search_reference': {e}") from e
    if key.lower() == "reference" and reference_note(variant) is not None:
        return HeuristicPolicy()  # the variant has no reference files
    if key.lower() == "reference":
        path = reference_path(variant)
    elif key.lower() == "apprentice":
        path = _apprentice(variant)
    else:
        path = Path(key)
    if not path.is_file():
        what = "a directory, not a policy file" if path.is_dir() else "no policy file"
        raise PolicySpecError(f"unknown policy {spec!r}: not one of {', '.join(BUILTIN)}, "
                              f"a level ({', '.join(LEVEL_NAMES)}) and {what} at {path}")
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
