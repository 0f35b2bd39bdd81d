"""Every capacity and range the engine guarantees, in one place.

The native core keeps a game in fixed-size C arrays and fixed-width integers
(``canasta_env/native/core/state.h``); the Python engine has no such limits, but it refuses
what the native core could not hold, so that the two backends accept exactly the same
options and positions. :class:`~.options.RulesOptions` bounds every option with these
numbers, the position reader (:mod:`.position`) bounds every field, and the native binding
checks each length against them again before it copies into a C array (its build asserts
that the C capacities are these). Units: cards, points, hands, entries.

What follows from them (``docs/RULES.md`` §7):

* every score a game can reach within :data:`MAX_HANDS` hands lies within
  ``+-SCORE_LIMIT`` (``SCORE_LIMIT`` is well inside a signed 64-bit integer, and inside
  the 2**53 that a float64 holds exactly), and every hand's score sheet row within
  ``+-HAND_POINTS_LIMIT`` (inside a signed 32-bit integer);
* every position the engine writes within those bounds loads again;
* a position is read in time and memory bounded by :data:`POSITION_MAX_NODES`.
"""

from __future__ import annotations

from .cards import NUM_CLASSES

#: 52-card decks in a pack, at most (``RulesOptions.decks``).
MAX_DECKS = 8
#: jokers in a pack, at most (``RulesOptions.jokers``).
MAX_JOKERS = 40
#: cards in the largest pack (8 decks and 40 jokers).
MAX_PACK = 52 * MAX_DECKS + MAX_JOKERS
#: the native core's capacity of the stock, the discard pile and a set-aside pile (cards).
CARD_CAPACITY = 480
#: the native core's capacity of closed books per partnership (Hand and Foot).
BOOK_CAPACITY = 128
#: the native core's capacity of ``opening_minimums`` and ``round_minimums`` entries.
MINIMUMS_CAPACITY = 32
#: ranks that can be started in one turn (``turn.new_ranks``): one per card class.
NEW_RANKS_CAPACITY = NUM_CLASSES

#: the largest value of any point-valued option (bonuses, penalties, opening minimums).
POINTS_MAX = 100_000
#: the largest ``target_score`` (points).
TARGET_SCORE_MAX = 100_000_000
#: the largest count-valued going-out requirement (canastas or books to go out).
REQUIREMENT_MAX = 1_000
#: hands a game may last: ``next_hand`` refuses to deal hand number ``MAX_HANDS``.
MAX_HANDS = 100_000
#: the most points one row of one hand's score sheet can hold, in absolute value: every
#: card of the largest pack melded at 50 points, a canasta or book bonus for every 3
#: cards, every red 3 at the largest bonus or penalty, both going-out bonuses.
HAND_POINTS_LIMIT = (MAX_PACK * 50 + (MAX_PACK // 3 + 1) * POINTS_MAX
                     + (2 * MAX_DECKS + 1) * POINTS_MAX + 2 * POINTS_MAX)
#: the largest cumulative score (absolute value) a position may hold: a start at
#: ``+-SCORE_LIMIT // 2`` and ``MAX_HANDS`` hands of the largest sheet fit inside it.
SCORE_LIMIT = 10**15
#: the cumulative score an observation shows at most (absolute value); larger scores are
#: shown as this (``canasta_env.observation``: the entries stay finite and small).
OBSERVED_SCORE_LIMIT = 10_000_000
#: bits of a game's ``seed`` (absolute value), at most: the Python deal seeds its generator
#: with the seed's decimal digits, which Python converts only up to 4,300 digits.
SEED_BITS_MAX = 4096
#: the largest ``decisions`` count of a position.
DECISIONS_MAX = 10**15

#: entries of a position's event log (one hand's log), at most.
LOG_MAX = 100_000
#: entries of a position's ``history`` (score sheets of finished hands), at most.
HISTORY_MAX = MAX_HANDS
#: nesting depth of a position's JSON, at most (the format itself needs 5).
POSITION_MAX_DEPTH = 8
#: JSON values (objects, arrays, numbers, strings...) in one position, at most.
POSITION_MAX_NODES = 4_000_000
#: characters of one string in a position, at most (card names, phase, event names).
POSITION_MAX_STRING = 64

_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1

assert MAX_PACK <= CARD_CAPACITY
assert MAX_PACK // 4 <= BOOK_CAPACITY  # a book holds max_meld_size >= 4 cards
assert HAND_POINTS_LIMIT < _INT32_MAX // 8
assert SCORE_LIMIT // 2 + MAX_HANDS * 6 * HAND_POINTS_LIMIT <= SCORE_LIMIT < 2**53 < _INT64_MAX

