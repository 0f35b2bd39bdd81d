"""Variants and policy sizes: which variant a policy plays, read from its observation
size and number of actions, and the one check every entry point makes before the first
deal (:func:`check_policy_variant`). Both the loader (:mod:`canasta_env.bots.loader`) and
the ONNX policy (:mod:`canasta_env.bots.onnx_policy`) import it; it imports neither.
"""

from __future__ import annotations

from typing import Any

from canasta_env.engine.actions import num_actions
from canasta_env.engine.options import PRESETS, RulesOptions, preset
from canasta_env.observation import obs_size


class PolicySpecError(ValueError):
    """A policy spec names no built-in policy and no loadable policy file."""


class PolicyVariantError(PolicySpecError):
    """A policy was built for another variant (observation size, number of actions) than
    the game it is asked to play.

    Attributes:
        policy_variant: the variant the policy plays (``"classic"``, ``"hand_and_foot"``),
            or ``None`` when its sizes are no variant's of this package.
    """

    def __init__(self, message: str, policy_variant: str | None = None) -> None:
        super().__init__(message)
        self.policy_variant = policy_variant


#: variant name -> its name in messages
VARIANT_NAMES = {"classic": "Classic", "hand_and_foot": "Hand and Foot"}


def _sizes(options: RulesOptions) -> tuple[int, int]:
    return obs_size(options), num_actions(options)


#: (observation size, number of actions) -> variant name, for every preset
KNOWN_SIZES = {_sizes(preset(v)): v for v in PRESETS}


def rules_options(variant: Any) -> RulesOptions:
    """The rules options of ``variant``: a variant name (``"classic"``,
    ``"hand_and_foot"``), a :class:`~canasta_env.engine.RulesOptions`, or anything with
    an ``options`` attribute holding one (a :class:`~canasta_env.engine.Game`).

    Raises:
        canasta_env.engine.OptionsError: an unknown variant name (a ``ValueError``).
        TypeError: ``variant`` is none of these.
    """
    if isinstance(variant, RulesOptions):
        return variant
    if isinstance(variant, str):
        return preset(variant.strip().lower())
    options = getattr(variant, "options", None)
    if isinstance(options, RulesOptions):
        return options
    raise TypeError(f"a variant must be a variant name ({', '.join(PRESETS)}) or rules "
                    f"options, got {variant!r}")


def policy_sizes(policy: Any) -> tuple[int, int] | None:
    """``(observation size, number of actions)`` that ``policy`` was built for, or
    ``None`` for a policy that plays any variant.

    Read from the policy's ``obs_size`` and ``num_actions`` attributes (``None`` or
    absent: any variant), else from the observation and action spaces of its ``model``
    attribute (an SB3 model, as in ``training.sb3.checkpoint.CheckpointPolicy``), else from
    its ``variant`` attribute when that is a variant name (``"classic"``,
    ``"hand_and_foot"``: that preset's sizes; an outside policy's declaration)."""
    obs, n = getattr(policy, "obs_size", None), getattr(policy, "num_actions", None)
    if obs is not None and n is not None:
        return int(obs), int(n)
    model = getattr(policy, "model", None)
    shape = getattr(getattr(model, "observation_space", None), "shape", None)
    n = getattr(getattr(model, "action_space", None), "n", None)
    if shape and len(shape) == 1 and n is not None:
        return int(shape[0]), int(n)
    declared = getattr(policy, "variant", None)
    if isinstance(declared, str) and declared in PRESETS:
        return _sizes(preset(declared))
    return None


def _describe_sizes(sizes: tuple[int, int]) -> str:
    return f"observation {sizes[0]}, {sizes[1]} actions"


def check_policy_variant(policy: Any, variant: Any, name: str | None = None) -> None:
    """Refuse ``policy`` for a game of ``variant`` (a variant name or rules options, see
    :func:`rules_options`) unless it was built for that game's observation size and
    number of actions (:func:`policy_sizes`; a policy without sizes plays any variant).
    ``name`` is the policy's name in the message (default: its ``name`` attribute). Every
    entry point (the :class:`~canasta_env.bots.Bot`, the service, terminal play,
    ``training.evaluate`` and ``training.ratings``) calls this before the first deal.

    Raises:
        PolicyVariantError: the sizes differ; one line, e.g. ``policy 'reference' is a
            Classic policy (observation 202, 91 actions); this game is Hand and Foot
            (observation 245, 98 actions)``.
        canasta_env.engine.OptionsError, TypeError: ``variant`` is not a variant (see
            :func:`rules_options`).
    """
    label = name if name is not None else getattr(policy, "name", type(policy).__name__)
    check_variant_sizes(policy_sizes(policy), variant, f"policy {label!r}")


def check_variant_sizes(sizes: tuple[int, int] | None, variant: Any, subject: str) -> None:
    """Refuse ``sizes`` (observation size, number of actions; ``None``: any variant) for
    a game of ``variant``: the test of :func:`check_policy_variant`, for callers that know
    the sizes without a policy object (e.g. a checkpoint's saved spaces). ``subject``
    starts the message (``"policy 'x'"``, ``"checkpoint x.zip"``).

    Raises:
        PolicyVariantError: the sizes are not the game's, e.g. ``checkpoint x.zip is a
            Classic policy (observation 202, 91 actions); this game is Hand and Foot
            (observation 245, 98 actions)``.
        canasta_env.engine.OptionsError, TypeError: ``variant`` is not a variant.
    """
    options = rules_options(variant)
    want = _sizes(options)
    if sizes is None or tuple(sizes) == want:
        return
    kind = KNOWN_SIZES.get(tuple(sizes))
    what = f"a {VARIANT_NAMES[kind]} policy" if kind else "a policy for no variant of this package"
    game = VARIANT_NAMES.get(options.variant, options.variant)
    if KNOWN_SIZES.get(want) != options.variant:
        game += " with these rules"
    raise PolicyVariantError(f"{subject} is {what} ({_describe_sizes(tuple(sizes))}); this game "
                             f"is {game} ({_describe_sizes(want)})",
                             kind if kind != options.variant else None)
