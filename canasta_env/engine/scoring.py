"""Scoring a hand: the score sheet and the end of a hand.

Rules source: ``docs/RULES.md`` §2.15 (the score sheet, in the row order of a published
Classic score sheet), §2.16 (game end), §3.9 (Hand and Foot rounds: books, cards left in
hand and foot).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARD_POINTS, JOKER, NUM_CLASSES, RED_THREE, TWO
from .options import RulesOptions
from .state import Phase, State

SHEET_ROWS = ("table", "canasta_bonus", "red_threes", "going_out", "hand_penalty",
              "hand_score", "previous", "total")
"""Score-sheet rows in the fixed order of ``docs/RULES.md`` §2.15: table card values,
canasta bonuses, red threes, going out, cards remaining in hand (negative), hand score,
previous total, new running total."""

_V = CARD_POINTS


@dataclass(frozen=True)
class ScoreSheet:
    """One partnership's score for one hand (points), rows in ``docs/RULES.md`` §2.15
    order."""

    table: int
    canasta_bonus: int
    red_threes: int
    going_out: int
    hand_penalty: int
    previous: int

    @property
    def hand_score(self) -> int:
        return self.table + self.canasta_bonus + self.red_threes + self.going_out + \
            self.hand_penalty

    @property
    def total(self) -> int:
        return self.previous + self.hand_score

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in SHEET_ROWS}


def score_partnership(opts: RulesOptions, nat, jokers, twos, red_threes: int, melded: bool,
                      going_out: int, hand_cards, previous: int, books=(),
                      wild_meld=(0, 0)) -> ScoreSheet:
    """Score one partnership's hand (``docs/RULES.md`` §2.15 rows, §3.9).

    Args:
        nat, jokers, twos: open meld contents per card class (length-15 count vectors).
        red_threes: red threes the partnership exposed.
        melded: whether the partnership made any meld this hand (red 3 sign, §2.5).
        going_out: 0, or the going-out bonus earned (100, or 200 concealed; §2.11, §2.13).
        hand_cards: iterable of the count vectors left in the partners' hands (and feet).
        previous: cumulative score before the hand (points).
        books: closed books ``(rank, naturals, jokers, twos)``, rank ``JOKER`` for a
            wild book (Hand and Foot, §3.4).
        wild_meld: (jokers, twos) of the open wild-card meld (Hand and Foot).

    Returns:
        The partnership's :class:`ScoreSheet` (points).
    """
    table = 0
    bonus = 0
    for r in range(NUM_CLASSES):
        n = nat[r]
        if not n:
            continue
        w = jokers[r] + twos[r]
        table += n * _V[r] + jokers[r] * _V[JOKER] + twos[r] * _V[TWO]
        if n + w >= opts.canasta_size:
            bonus += opts.mixed_canasta_bonus if w else opts.natural_canasta_bonus
    for r, n, j, t in books:
        table += n * _V[r] + j * _V[JOKER] + t * _V[TWO]
        if r == JOKER:
            bonus += opts.wild_book_bonus
        else:
            bonus += opts.mixed_canasta_bonus if j + t else opts.natural_canasta_bonus
    table += wild_meld[0] * _V[JOKER] + wild_meld[1] * _V[TWO]
    if red_threes >= 2 * opts.decks:
        r3 = opts.red_three_all_bonus
    else:
        r3 = opts.red_three_bonus * red_threes
    if not melded and opts.red_three_negative_unmelded:
        r3 = -r3
    penalty = -sum(sum(n * v for n, v in zip(h, _V)) + h[RED_THREE] * opts.red_three_hand_penalty
                   for h in hand_cards)
    return ScoreSheet(table, bonus, r3, going_out, penalty, previous)


def end_hand(s: State) -> None:
    """Score the hand for both partnerships, add it to the running totals and the
    history, and end the hand, or the game when it is over (``docs/RULES.md`` §2.15,
    §2.16; Hand and Foot: after the last round, §3.2)."""
    o = s.options
    sheets = []
    for team in (0, 1):
        melded = any(s.nat[team]) or bool(s.books[team]) or any(s.wild_meld[team])
        bonus = 0
        if s.went_out is not None and s.went_out & 1 == team:
            bonus = o.concealed_going_out_bonus if s.concealed else o.going_out_bonus
        sheets.append(score_partnership(
            o, s.nat[team], s.jok[team], s.two[team],
            s.red3[team] + s.red3[team + 2], melded, bonus,
            (s.hands[team], s.hands[team + 2], s.feet[team], s.feet[team + 2]),
            s.scores[team], s.books[team], s.wild_meld[team]))
    s.sheets = sheets
    s.scores = [sheets[0].total, sheets[1].total]
    s.history.append({"hand": s.hand_number, "went_out": s.went_out,
                      "concealed": s.concealed,
                      "sheets": [x.as_dict() for x in sheets]})
    s.log.append({"event": "hand_over", "scores": list(s.scores)})
    if (s.hand_number + 1 >= o.rounds) if o.rounds else max(s.scores) >= o.target_score:
        a, b = s.scores
        s.winner = 0 if a > b else 1 if b > a else -1
        s.phase = Phase.GAME_OVER
    else:
        s.phase = Phase.HAND_OVER
