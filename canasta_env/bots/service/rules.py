"""The rules and starting scores of a new game, checked before anything is dealt or stored.

Every ``rules`` option has bounds (:func:`canasta_env.bots.service.schemas.rules_schema`, from
:class:`canasta_env.engine.RulesOptions`, whose checks keep every observation finite and
every reachable position loadable: ``docs/RULES.md`` §7); this service also bounds
the options of :data:`~.limits.RULES_BOUNDS` (``target_score`` at most
:data:`~.limits.MAX_SCORE`) and the starting scores within +-:data:`~.limits.MAX_SCORE`.
"""

from __future__ import annotations

from typing import Any

from canasta_env.engine import OptionsError, PositionError, RulesOptions, preset

from .errors import ServiceError
from .limits import MAX_SCORE, RULES_BOUNDS


def _integral(value: Any) -> Any:
    """JSON's integral floats (``2.0``, an integer to JSON Schema) as ints, in lists too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(v) for v in value]
    return value


def game_options(variant: Any, rules: Any) -> RulesOptions:
    """The options of ``variant`` (a preset name) with ``rules`` (a dict, or ``None``)
    changed.

    Raises:
        ServiceError: 400 an unknown variant or option, a value of the wrong type or out of
            its bounds, options that do not fit together, an option outside this
            service's :data:`~.limits.RULES_BOUNDS` in any variant; the message names
            the option.
    """
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise ServiceError(400, f"rules must be an object of rules options, got {rules!r}"[:200])
    if "variant" in rules:
        raise ServiceError(400, "rules may not set 'variant': the request's own 'variant' field "
                                "chooses the preset ('classic' or 'hand_and_foot')")
    try:
        options = preset(variant, **{k: _integral(v) for k, v in rules.items()})
    except (OptionsError, PositionError, TypeError, ValueError, OverflowError) as e:
        raise ServiceError(400, f"bad variant or rules: {e}"[:500]) from None
    for name, (lo, hi) in RULES_BOUNDS.items():  # every variant, as the schema says
        value = getattr(options, name)
        if value > hi:
            raise ServiceError(400, f"{name} {value} is over this server's limit of {hi}")
        if value < lo:
            raise ServiceError(400, f"{name} {value} is under this server's limit of {lo}")
    return options


def bots_can_play(options: RulesOptions) -> None:
    """Refuse rules whose observation layout is not their variant's: the bots (every policy
    of this service, the heuristic included) are built for the layout of the variant's
    preset, e.g. Classic rules with Hand and Foot's books or foot turned on.

    Raises:
        ServiceError: 400 naming the variant and the layouts.
    """
    from canasta_env.observation import obs_size

    base = preset(options.variant)
    if obs_size(options) != obs_size(base):
        which = "Hand and Foot's" if options.exact_melds else "Classic's"
        raise ServiceError(400, f"these {options.variant} rules have {which} meld rules "
                                f"(observation {obs_size(options)}, the variant's is "
                                f"{obs_size(base)}): the bots cannot play them; choose the "
                                f"variant whose meld rules they are, or only human seats")


def starting(scores: Any, options: RulesOptions) -> tuple[int, int]:
    """The starting scores of partnerships 0 and 1 (``None``: 0 and 0).

    Raises:
        ServiceError: 400 not two ints, outside +-:data:`MAX_SCORE`, or (Classic) one at or
            past the ``target_score``: that game would be over before its first hand.
    """
    if scores is None:
        return 0, 0
    if not isinstance(scores, (list, tuple)) or len(scores) != 2 or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in scores):
        raise ServiceError(400, f"starting_scores must be two ints (partnerships 0 and 1), "
                                f"got {scores!r}"[:200])
    if any(abs(s) > MAX_SCORE for s in scores):
        raise ServiceError(400, f"starting_scores must be within -{MAX_SCORE}..{MAX_SCORE}, "
                                f"got {list(scores)!r}")
    if options.rounds == 0 and max(scores) >= options.target_score:
        raise ServiceError(400, f"starting_scores {list(scores)!r} must be below the "
                                f"target_score {options.target_score}: the game would be over "
                                f"before its first hand")
    return int(scores[0]), int(scores[1])


__all__ = ["game_options", "starting", "bots_can_play"]
