"""Card classes and card values.

Suits never matter in Canasta or Hand and Foot except to tell red threes from black
threes, so the engine works with *card classes* and holds hands as count vectors.

Rules source: ``docs/RULES.md`` §1 (pagat.com Classic Canasta, the score sheet's card
values).

==========  ====  ======  =====================================
class id    name  points  notes
==========  ====  ======  =====================================
0           JOKER 50      wild
1           TWO   20      wild
2           B3    5       black three: stop card, melds only going out
3           R3    0       red three: bonus / penalty, never held
4 .. 14     4..A  5/10/20 naturals 4-7 = 5, 8-K = 10, A = 20
==========  ====  ======  =====================================
"""

from __future__ import annotations

JOKER = 0
TWO = 1
BLACK_THREE = 2
RED_THREE = 3
FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(4, 15)

NUM_CLASSES = 15

#: Short names, used in action descriptions, renders and the JSON position format.
CLASS_NAMES: tuple[str, ...] = (
    "Joker", "2", "black 3", "red 3",
    "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
)
NAME_TO_CLASS: dict[str, int] = {n: i for i, n in enumerate(CLASS_NAMES)}

#: Card values in points (``docs/RULES.md`` §1.1). Red threes have no card value.
CARD_POINTS: tuple[int, ...] = (50, 20, 5, 0, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20)

WILD_CLASSES: tuple[int, ...] = (JOKER, TWO)
#: Ranks that form ordinary melds (4 through A).
MELD_RANKS: tuple[int, ...] = tuple(range(FOUR, ACE + 1))
#: Card classes a player may hold and discard (everything but the red three).
DISCARDABLE: tuple[int, ...] = tuple(c for c in range(NUM_CLASSES) if c != RED_THREE)


def is_wild(c: int) -> bool:
    """True for jokers and 2s."""
    return c == JOKER or c == TWO


def is_natural(c: int) -> bool:
    """True for every card class that is not wild (threes included)."""
    return c > TWO


def deck_counts(decks: int, jokers: int) -> list[int]:
    """Count vector (length :data:`NUM_CLASSES`) of a pack of ``decks`` 52-card decks
    plus ``jokers`` jokers. Each deck holds four of a rank, two red and two black
    threes."""
    counts = [4 * decks] * NUM_CLASSES
    counts[JOKER] = jokers
    counts[BLACK_THREE] = 2 * decks
    counts[RED_THREE] = 2 * decks
    return counts


def hand_points(counts) -> int:
    """Card value (points) of a count vector; red threes count 0."""
    return sum(n * p for n, p in zip(counts, CARD_POINTS))


def counts_to_names(counts) -> list[str]:
    """Expand a count vector into a sorted list of class names (for JSON / display)."""
    out: list[str] = []
    for c, n in enumerate(counts):
        out.extend([CLASS_NAMES[c]] * n)
    return out


def names_to_counts(names) -> list[int]:
    """Inverse of :func:`counts_to_names`.

    Raises:
        ValueError: on an unknown card name.
    """
    counts = [0] * NUM_CLASSES
    for n in names:
        try:
            counts[NAME_TO_CLASS[n]] += 1
        except KeyError:
            raise ValueError(f"unknown card {n!r}; expected one of {list(CLASS_NAMES)}") from None
    return counts
