"""The public facade of the rules engine: :class:`Game`.

A :class:`Game` is a whole game (hands to the target score, or Hand and Foot's rounds);
the current hand's state lives in it (:class:`~.state.State`, whose docstring lists every
field). A :class:`~.state.Phase` drives both :meth:`Game.legal_actions` and
:meth:`Game.apply`, each dispatching to one small function per phase. The rules live in
one module per rule area, each naming its section of the repository's rules document,
``docs/RULES.md``:

=====================  ==========================================================
module                 rule area
=====================  ==========================================================
:mod:`.cards`          card classes, points, the pack (§1)
:mod:`.options`        every rules option, the Classic and Hand and Foot presets (§4)
:mod:`.actions`        the action ids and their descriptions (§5)
:mod:`.state`          the state, :class:`~.state.Phase`, the queries every rule reads
:mod:`.deal`           the deal, upcard, red 3 replacement (§2.2, §3.1)
:mod:`.legality`       the legal actions by phase (§2.3-§2.14, §3.3-§3.8)
:mod:`.completion`     can the turn still be completed? (no dead ends, §6)
:mod:`.feasibility`    Classic's exact formulas behind it
:mod:`.exact`          the exact meld search behind it under Hand and Foot's rules
:mod:`.transitions`    applying an action, by phase
:mod:`.scoring`        score sheets, the end of a hand and of the game (§2.15, §2.16, §3.9)
:mod:`.position`       the JSON position format (§7)
=====================  ==========================================================

Hand and Foot is the same engine driven by rules options (:func:`.options.hand_and_foot`):
each player also holds a foot (``feet``, ``in_foot``), melds close into ``books`` at
``max_meld_size`` cards, a partnership may hold one open wild-card meld (``wild_meld``),
and turn feasibility uses the exact search of :mod:`.exact` instead of Classic's formulas.
"""

from __future__ import annotations

import random
import secrets

from . import deal as _deal
from . import legality, transitions
from .limits import MAX_HANDS, SEED_BITS_MAX
from .options import RulesOptions, classic
from .position import (
    POSITION_FORMAT,
    POSITION_VERSION,
    PositionError,
    parse_position_json,
    position_json,
    read_position,
    to_position,
)
from .scoring import SHEET_ROWS, ScoreSheet, score_partnership
from .state import ASKED_NO, ASKED_YES, NOT_ASKED, IllegalActionError, Phase, State

__all__ = [
    "ASKED_NO", "ASKED_YES", "NOT_ASKED", "POSITION_FORMAT", "POSITION_VERSION", "SHEET_ROWS",
    "Game", "IllegalActionError", "Phase", "PositionError", "ScoreSheet", "from_position",
    "game_from_json", "game_to_json", "score_partnership", "to_position",
]


class Game(State):
    """A game of Classic Canasta to the target score (default 5,000), or of Hand and
    Foot (``options=preset("hand_and_foot")``: four rounds).

    Args:
        options: :class:`RulesOptions` (default: the ``classic`` preset).
        seed: int seed for every shuffle; ``None`` picks one at random. The same seed
            and options replay the same game given the same actions.
        scores: cumulative starting scores of the two partnerships (points).
        dealer: first dealer's seat; ``None`` draws it from the seed.
        first_round: index (0-based) of the first deal, for games of a fixed number of
            ``rounds`` (Hand and Foot: 0..3; the round sets the opening minimum); 0 for
            Classic.

    Raises:
        OptionsError: bad options.
        ValueError: a bad seed, scores, dealer or first round.
    """

    def __init__(self, options: RulesOptions | None = None, seed: int | None = None,
                 scores: tuple[int, int] = (0, 0), dealer: int | None = None,
                 first_round: int = 0) -> None:
        self.options = options if options is not None else classic()
        self.init_rules()
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        if seed.bit_length() > SEED_BITS_MAX:
            raise ValueError(f"seed has {seed.bit_length():,} bits; at most {SEED_BITS_MAX:,} "
                             f"(limits.SEED_BITS_MAX)")
        self.seed = seed
        if len(scores) != 2 or not all(isinstance(s, int) for s in scores):
            raise ValueError(f"scores must be two ints, got {scores!r}")
        self.scores = [int(scores[0]), int(scores[1])]
        if dealer is None:
            dealer = random.Random(f"{seed}/dealer").randrange(4)
        if dealer not in (0, 1, 2, 3):
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        rounds = self.options.rounds
        if isinstance(first_round, bool) or not isinstance(first_round, int) or \
                not 0 <= first_round < max(rounds, 1):
            raise ValueError(f"first_round must be in 0..{max(rounds, 1) - 1} for these rules, "
                             f"got {first_round!r}")
        self.hand_number = first_round
        self.dealer = dealer
        self.history: list[dict] = []  # score sheets of finished hands
        self.winner: int | None = None  # 0 / 1 partnership, -1 tie, None while running
        _deal.deal(self)

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids for the seat :attr:`to_move` (empty when the hand is
        over). Computed once per position and cached; rules in :mod:`.legality`."""
        if self._legal is None:
            self._legal = legality.legal_actions(self)
        return self._legal

    def apply(self, action: int) -> None:
        """Apply a legal action for the seat :attr:`to_move` (:mod:`.transitions`).

        Raises:
            IllegalActionError: the action is not legal here (message names the action
                and why).
        """
        if isinstance(action, bool):
            raise IllegalActionError(f"action must be an int id, got the bool {action!r}")
        if not isinstance(action, int):
            try:
                if int(action) != action:
                    raise ValueError
                action = int(action)
            except (TypeError, ValueError, OverflowError):
                raise IllegalActionError(f"action must be an int id, got {action!r}") from None
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(f"action id {action} is outside 0..{self.num_actions - 1}")
        if action not in self.legal_actions():
            raise IllegalActionError(legality.refusal(self, action))
        self._legal = None
        transitions.apply(self, action)
        self._legal = None

    def to_json(self, indent: int | None = None) -> str:
        """This state in the JSON position format (see :func:`.position.to_position`)."""
        return position_json(self, indent)

    @staticmethod
    def from_json(text: str) -> Game:
        """A game from the JSON position format.

        Raises:
            PositionError: malformed or inconsistent position.
        """
        return game_from_json(text)

    def clone(self) -> Game:
        """An independent copy of this state."""
        return from_position(to_position(self), check_moves=False)

    def next_hand(self) -> None:
        """Deal the next hand (the deal passes clockwise, ``docs/RULES.md`` §2.2).

        Raises:
            RuntimeError: the hand is not over, the game is over, or it already lasted
                ``limits.MAX_HANDS`` hands (positions hold at most that many).
        """
        if self.phase != Phase.HAND_OVER:
            raise RuntimeError(f"next_hand() needs a finished hand; phase is {self.phase.name}")
        if self.hand_number + 1 >= MAX_HANDS:
            raise RuntimeError(f"a game lasts at most {MAX_HANDS:,} hands")
        self.hand_number += 1
        self.dealer = (self.dealer + 1) % 4
        _deal.deal(self)


def from_position(pos: dict, check_moves: bool = True) -> Game:
    """Rebuild a :class:`Game` from :func:`.position.to_position` output (the format is
    in that function's docstring).

    Args:
        pos: the position dict.
        check_moves: also check that every legal action leads to a position with a legal
            action or to the end of the hand; :meth:`Game.clone` skips it.

    Raises:
        PositionError: missing, malformed or inconsistent fields (see
            :func:`.position.read_position`).
    """
    g = Game.__new__(Game)
    read_position(g, pos, check_moves)
    return g


def game_to_json(game: Game, indent: int | None = None) -> str:
    """:func:`.position.to_position` as a JSON string."""
    return position_json(game, indent)


def game_from_json(text: str) -> Game:
    """Inverse of :func:`game_to_json`.

    Raises:
        PositionError: not JSON, or a bad position.
    """
    return from_position(parse_position_json(text))
