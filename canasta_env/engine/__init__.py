"""Pure rules engine for partnership Canasta and Hand and Foot (no PettingZoo, Gymnasium or
torch). :class:`Game` is the facade; the rules live one module per rule area (the table
in :mod:`.game`), each citing its section of the rules document, ``docs/RULES.md``."""

from . import actions
from .actions import NUM_ACTIONS, describe, parse
from .cards import CARD_POINTS, CLASS_NAMES, NUM_CLASSES
from .game import Game, from_position
from .options import OptionsError, RulesOptions, classic, hand_and_foot, preset
from .position import PositionError, to_position
from .scoring import SHEET_ROWS, ScoreSheet, score_partnership
from .state import IllegalActionError, Phase

__all__ = [
    "CARD_POINTS",
    "CLASS_NAMES",
    "NUM_ACTIONS",
    "NUM_CLASSES",
    "SHEET_ROWS",
    "Game",
    "IllegalActionError",
    "OptionsError",
    "Phase",
    "PositionError",
    "RulesOptions",
    "ScoreSheet",
    "actions",
    "classic",
    "describe",
    "from_position",
    "hand_and_foot",
    "parse",
    "preset",
    "score_partnership",
    "to_position",
]
