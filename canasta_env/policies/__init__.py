"""Baseline policies: the :class:`Policy` protocol, a uniform random player and a
rule-based heuristic player.

A policy maps one seat's view -- the observation vector (float32, ``(OBS_SIZE,)``, layout
in :mod:`canasta_env.observation`) and the action mask (int8, ``(NUM_ACTIONS,)``) -- to a
legal action id. It knows nothing else about the game, so the same object can play any
seat, and the mask guarantees that every action it picks keeps the turn completable.
``reset(seed)`` is called at the start of an episode; a policy with randomness draws it
only from its own generator, so a seeded evaluation replays exactly. No torch import
here: learned policies live in :mod:`training.sb3.checkpoint`.

=================================  ==================================================
module                             what it holds
=================================  ==================================================
:mod:`~.protocol`                  :class:`Policy`, :func:`check_policy_inputs`,
                                   :func:`check_policy_batch` (docs/RULES.md §7)
:mod:`~.random_policy`             :class:`RandomPolicy`: uniform over the legal actions
:mod:`~.table`                     :class:`TableView`: one seat's observation decoded;
                                   table points from the engine's score sheet
:mod:`~.heuristic`                 :class:`HeuristicPolicy` (rule-based, deterministic;
                                   compiled in core/heuristic.c when the core is built)
                                   and its going-out planner :func:`can_go_out`
=================================  ==================================================
"""

# the private names too: importable from here as before the split
from .heuristic import (  # noqa: F401
    _HF_DISCARDS,
    _MELD_HI,
    _MELD_LO,
    _TAKE_USES,
    _TAKES,
    HeuristicPolicy,
    _apply_meld,
    _hand_and_foot_action,
    _hf_discard,
    _hf_key,
    _hf_meld_info,
    _hf_melds,
    _meld_kind,
    _native_heuristic,
    can_go_out,
)
from .protocol import _BY_ACTIONS, LAYOUTS, OBS_MAX, Policy, check_policy_batch, check_policy_inputs  # noqa: F401
from .random_policy import RandomPolicy
from .table import (  # noqa: F401
    _PACK,
    _PHASES,
    _V,
    _WILD_VALUE,
    HIDDEN_CARD_VALUE,
    TableView,
    _ints,
    _per_class,
    hand_value,
    p_at_least,
)

__all__ = ["Policy", "RandomPolicy", "HeuristicPolicy", "TableView", "can_go_out",
           "check_policy_batch", "check_policy_inputs", "p_at_least"]

