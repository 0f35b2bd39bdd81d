"""The difficulty ladder: ``easy``, ``medium``, ``hard``, ``expert`` as policy names.

:data:`LEVELS` is the one table of the levels, per variant; every frontend reads it
(:func:`canasta_env.bots.loader.load_policy`, :class:`canasta_env.bots.Bot`, the service's
policy names and its OpenAPI schema, the browser table's choice of opponents, terminal
play) and none copies it. A level name is a policy name like ``heuristic``: it resolves
to the spec of the game's variant (Classic's without a variant).

The rule of the ladder: each level beats the level below by at least
:data:`MIN_GAP` win rate per hand (duplicate hands, ``python -m training.evaluate``);
shown on 1,000 hands for every rung but Classic's ``expert`` (``search_reference`` beats
``hard`` on 1,000 hands, 0.5795, but the lower end of its 95% interval is 0.549). Hand and Foot's
``hard`` is its ``apprentice`` network and its ``expert`` the reference network.
The figures, and the command that regenerates them (``python -m training.ladder``), are
in docs/results/ladder.md. A level with spec ``None`` would be missing for that variant (no policy
here meeting the rule above the level below it; none is missing now): :func:`level_spec`
refuses it with the reason.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .variants import VARIANT_NAMES, PolicySpecError, rules_options


class Level(NamedTuple):
    """One level of one variant.

    Attributes:
        spec: the policy spec it plays (:func:`canasta_env.bots.loader.load_policy`), or
            ``None`` when the variant has no policy for the level.
        description: one line for players (what the level is, or why it is missing).
    """

    spec: str | None
    description: str


#: level names, weakest first
LEVEL_NAMES = ("easy", "medium", "hard", "expert")
#: the least win rate per hand of a level against the level below it
MIN_GAP = 0.55
#: the random-move probability of ``easy`` (``epsilon-heuristic:0.35``)
EASY_EPSILON = 0.35

_EASY = Level(f"epsilon-heuristic:{EASY_EPSILON:g}",
              f"the heuristic, but {EASY_EPSILON:.0%} of its moves are random legal moves")
_MEDIUM = Level("heuristic", "the rule-based heuristic")

#: variant -> level name -> :class:`Level`; the one table of the ladder
LEVELS: dict[str, dict[str, Level]] = {
    "classic": {
        "easy": _EASY,
        "medium": _MEDIUM,
        "hard": Level("reference", "the shipped reference network (checkpoints/reference/)"),
        "expert": Level("search_reference", "the reference network improved by decision-time "
                                            "search (determinised rollouts; slower, about "
                                            "40 ms a move)"),
    },
    "hand_and_foot": {
        "easy": _EASY,
        "medium": _MEDIUM,
        "hard": Level("apprentice", "a Hand and Foot network trained 1M PPO steps, between "
                                    "the heuristic and the reference "
                                    "(checkpoints/reference/hand_and_foot_apprentice.onnx)"),
        "expert": Level("reference", "the shipped Hand and Foot reference network "
                                     "(checkpoints/reference/)"),
    },
}


def is_level(name: Any) -> bool:
    """Whether ``name`` (a string; stripped, any case) is a level name."""
    return isinstance(name, str) and name.strip().lower() in LEVEL_NAMES


def level_spec(name: str, variant: Any = "classic") -> str:
    """The policy spec the level ``name`` plays in ``variant`` (a variant name or rules
    options; its preset's table).

    Raises:
        PolicySpecError: ``name`` is not a level; the level is missing for the variant
            (the message says why and names the levels there are).
        canasta_env.engine.OptionsError, TypeError: ``variant`` is not a variant.
    """
    if not is_level(name):
        raise PolicySpecError(f"unknown level {name!r}: the levels are "
                              f"{', '.join(LEVEL_NAMES)}")
    key = rules_options(variant).variant
    table = LEVELS.get(key)
    if table is None:  # a preset with no ladder of its own
        raise PolicySpecError(f"no difficulty levels for variant {key!r}; the levels exist "
                              f"for {', '.join(LEVELS)}")
    level = table[name.strip().lower()]
    if level.spec is None:
        there = [n for n in LEVEL_NAMES if table[n].spec is not None]
        raise PolicySpecError(f"level {name.strip().lower()!r} is {level.description}; "
                              f"{VARIANT_NAMES.get(key, key)} has the levels "
                              f"{', '.join(there)}")
    return level.spec


def levels_of(variant: Any = "classic") -> list[dict]:
    """The levels of ``variant`` for frontends, weakest first: ``[{"level", "policy",
    "description"}, ...]``, ``policy`` ``None`` for a missing level.

    Raises:
        canasta_env.engine.OptionsError, TypeError: ``variant`` is not a variant.
    """
    table = LEVELS.get(rules_options(variant).variant, {})
    return [{"level": n, "policy": table[n].spec, "description": table[n].description}
            for n in LEVEL_NAMES if n in table]
