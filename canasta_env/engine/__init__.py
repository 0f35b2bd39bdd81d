"""Pure rules engine for partnership Canasta and Hand and Foot (no PettingZoo, Gymnasium or
torch)."""

from . import actions
from .actions import NUM_ACTIONS, describe, parse
from .cards import CARD_POINTS, CLASS_NAMES, NUM_CLASSES
from .game import (
    SHEET_ROWS,
    Game,
    IllegalActionError,
    Phase,
    PositionError,
    ScoreSheet,
    from_position,
    score_partnership,
    to_position,
)
from .options import OptionsError, RulesOptions, classic, hand_and_foot, preset

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
