"""The dense action table, built from named constants.

Every action id has a readable description that :func:`parse` turns back into the id.
The total :data:`NUM_ACTIONS` is derived from the ranges, never typed by hand.

==============================  =====  =============================================
range                           size   meaning
==============================  =====  =============================================
DRAW_STOCK                      1      draw the top card of the stock
TAKE_PAIR .. TAKE_ONTO_MELD     4      take the discard pile, melding the upcard with
                                       a natural pair / a natural + joker / a natural
                                       + 2 from hand / onto our meld of its rank
DECLINE_PILE                    1      stock empty: refuse the discard pile; the hand
                                       ends
START_MELD + 3*i + k            33     start a meld of rank MELD_RANKS[i]: k=0 three
                                       naturals, k=1 two naturals + joker, k=2 two
                                       naturals + 2
ADD_TO_MELD + 3*i + k           33     add to our meld of rank MELD_RANKS[i]: k=0 a
                                       natural, k=1 a joker, k=2 a 2
MELD_BLACK_THREES               1      meld the black 3s in hand (3 or 4, at most
                                       black_three_meld_max; only when going out)
ASK_PARTNER                     1      "Partner, may I go out?"
ANSWER_YES, ANSWER_NO           2      partner's binding answer
FINISH_TURN                     1      end the turn without a discard (only after a
                                       red 3 was the last stock card, with
                                       ``red_three_last_card_may_meld``)
DISCARD + j                     14     discard one card of class DISCARDABLE[j]; this
                                       also ends the melding of the turn
==============================  =====  =============================================

Discarding ends the turn directly (there is no separate "finish melding" step before a
discard): one decision fewer per turn, with the same set of reachable plays.

Hand and Foot (options with ``wild_melds``) uses a table that EXTENDS this one: ids
0 .. 90 keep their Classic meaning (``DRAW_STOCK`` draws ``draw_count`` cards; the
take kinds other than ``TAKE_PAIR`` are never legal there) and these are appended:

==============================  =====  =============================================
range                           size   meaning
==============================  =====  =============================================
START_WILD_MELD + k             4      start the wild-card meld: k=0 three Jokers,
                                       1 two Jokers + a 2, 2 a Joker + two 2s,
                                       3 three 2s
ADD_TO_WILD_MELD + k            2      add a Joker (k=0) / a 2 (k=1) to our wild meld
TAKE_WILD_PAIR                  1      take the pile (a wild card on top) with a pair
                                       of the same wild card, melded into the wild
                                       meld
==============================  =====  =============================================

:func:`table` gives the table of a set of rules options; the module-level names
(:data:`NUM_ACTIONS`, :func:`describe`, :func:`parse`) are the Classic table.
"""

from __future__ import annotations

import operator

from .cards import CLASS_NAMES, DISCARDABLE, MELD_RANKS

DRAW_STOCK = 0
TAKE_PAIR = 1
TAKE_NAT_JOKER = 2
TAKE_NAT_TWO = 3
TAKE_ONTO_MELD = 4
DECLINE_PILE = 5
START_MELD = 6
START_KINDS = ("3 naturals", "2 naturals + Joker", "2 naturals + 2")
ADD_TO_MELD = START_MELD + 3 * len(MELD_RANKS)
ADD_KINDS = ("natural", "Joker", "2")
MELD_BLACK_THREES = ADD_TO_MELD + 3 * len(MELD_RANKS)
ASK_PARTNER = MELD_BLACK_THREES + 1
ANSWER_YES = ASK_PARTNER + 1
ANSWER_NO = ANSWER_YES + 1
FINISH_TURN = ANSWER_NO + 1
DISCARD = FINISH_TURN + 1
NUM_ACTIONS = DISCARD + len(DISCARDABLE)

#: rank class -> index into MELD_RANKS
RANK_INDEX = {r: i for i, r in enumerate(MELD_RANKS)}
#: card class -> discard action id
DISCARD_ACTION = {c: DISCARD + j for j, c in enumerate(DISCARDABLE)}
#: cards from hand each Classic pile take melds with the upcard: (naturals, jokers, twos)
#: (docs/RULES.md §2.10)
TAKE_USE = {TAKE_PAIR: (2, 0, 0), TAKE_NAT_JOKER: (1, 1, 0), TAKE_NAT_TWO: (1, 0, 1),
            TAKE_ONTO_MELD: (0, 0, 0)}


def start_meld(rank: int, kind: int) -> int:
    """Action id: start a meld of card class ``rank`` (4..A) with composition ``kind``
    (0 three naturals, 1 two naturals + joker, 2 two naturals + 2)."""
    return START_MELD + 3 * RANK_INDEX[rank] + kind


def add_to_meld(rank: int, kind: int) -> int:
    """Action id: add one card (``kind`` 0 natural, 1 joker, 2 a 2) to our meld of
    ``rank``."""
    return ADD_TO_MELD + 3 * RANK_INDEX[rank] + kind


def discard(card_class: int) -> int:
    """Action id: discard one card of ``card_class`` (not a red 3)."""
    return DISCARD_ACTION[card_class]


def _build() -> list[str]:
    d = [""] * NUM_ACTIONS
    d[DRAW_STOCK] = "draw from stock"
    d[TAKE_PAIR] = "take pile with a natural pair"
    d[TAKE_NAT_JOKER] = "take pile with a natural + Joker"
    d[TAKE_NAT_TWO] = "take pile with a natural + 2"
    d[TAKE_ONTO_MELD] = "take pile onto our meld"
    d[DECLINE_PILE] = "decline the pile (end the hand)"
    for i, r in enumerate(MELD_RANKS):
        for k in range(3):
            d[START_MELD + 3 * i + k] = f"meld {CLASS_NAMES[r]}: {START_KINDS[k]}"
            d[ADD_TO_MELD + 3 * i + k] = f"add {ADD_KINDS[k]} to {CLASS_NAMES[r]} meld"
    d[MELD_BLACK_THREES] = "meld black 3s"
    d[ASK_PARTNER] = "ask partner: may I go out?"
    d[ANSWER_YES] = "answer yes"
    d[ANSWER_NO] = "answer no"
    d[FINISH_TURN] = "finish turn without discard"
    for j, c in enumerate(DISCARDABLE):
        d[DISCARD + j] = f"discard {CLASS_NAMES[c]}"
    return d


DESCRIPTIONS: tuple[str, ...] = tuple(_build())
_BY_DESCRIPTION = {s.lower(): i for i, s in enumerate(DESCRIPTIONS)}
assert len(_BY_DESCRIPTION) == NUM_ACTIONS, "action descriptions must be unique"


# ---------------------------------------------------------------- Hand and Foot extension
START_WILD_MELD = NUM_ACTIONS
#: (jokers, twos) of each wild-meld start kind
WILD_START_KINDS = ((3, 0), (2, 1), (1, 2), (0, 3))
ADD_TO_WILD_MELD = START_WILD_MELD + len(WILD_START_KINDS)
TAKE_WILD_PAIR = ADD_TO_WILD_MELD + 2
NUM_ACTIONS_HAND_AND_FOOT = TAKE_WILD_PAIR + 1


def _build_hand_and_foot() -> list[str]:
    d = list(DESCRIPTIONS)
    for j, t in WILD_START_KINDS:
        parts = [f"{j} Joker{'s' if j > 1 else ''}" if j else "", f"{t} 2{'s' if t > 1 else ''}"
                 if t else ""]
        d.append("meld wild cards: " + " + ".join(p for p in parts if p))
    d.append("add Joker to wild meld")
    d.append("add 2 to wild meld")
    d.append("take pile with a wild pair")
    assert len(d) == NUM_ACTIONS_HAND_AND_FOOT
    return d


def _action_id(action: object, num_actions: int) -> int:
    """``action`` as a Python int id in ``0 .. num_actions - 1``: an int or a numpy integer
    (e.g. from ``np.flatnonzero(mask)``), never a bool or a float.

    Raises:
        ValueError: not an integer, or outside the range (the message says which).
    """
    try:
        if isinstance(action, bool):
            raise TypeError
        i = operator.index(action)  # ints and numpy integers; not floats, numpy bools
    except TypeError:
        raise ValueError(f"action id must be an int, got {action!r}") from None
    if not 0 <= i < num_actions:
        raise ValueError(f"action id {action!r} is outside 0..{num_actions - 1}")
    return i


class ActionTable:
    """The action table of one variant: its size, descriptions, :meth:`describe` and
    :meth:`parse`."""

    def __init__(self, name: str, descriptions) -> None:
        self.name = name
        self.descriptions: tuple[str, ...] = tuple(descriptions)
        self.num_actions = len(self.descriptions)
        self._by_description = {s.lower(): i for i, s in enumerate(self.descriptions)}
        assert len(self._by_description) == self.num_actions, "descriptions must be unique"

    def describe(self, action: int) -> str:
        """Readable description of an action id.

        Raises:
            ValueError: the id is outside ``0 .. num_actions - 1``.
        """
        return self.descriptions[_action_id(action, self.num_actions)]

    def parse(self, text: str) -> int:
        """Action id of a description (case and surrounding spaces ignored).

        Raises:
            ValueError: no action has this description.
        """
        try:
            return self._by_description[" ".join(str(text).split()).lower()]
        except KeyError:
            raise ValueError(f"no {self.name} action is described as {text!r}") from None

    def __repr__(self) -> str:
        return f"ActionTable({self.name!r}, {self.num_actions} actions)"


CLASSIC = ActionTable("classic", DESCRIPTIONS)
HAND_AND_FOOT = ActionTable("hand_and_foot", _build_hand_and_foot())


def table(options=None) -> ActionTable:
    """The action table for rules ``options`` (Classic when ``None``): the Hand and
    Foot table when wild melds are allowed, else the Classic one."""
    if options is not None and getattr(options, "wild_melds", False):
        return HAND_AND_FOOT
    return CLASSIC


def num_actions(options=None) -> int:
    """Size of the action space for rules ``options``."""
    return table(options).num_actions


def describe(action: int) -> str:
    """Readable description of an action id.

    Raises:
        ValueError: the id is outside ``0 .. NUM_ACTIONS - 1``.
    """
    return DESCRIPTIONS[_action_id(action, NUM_ACTIONS)]


def parse(text: str) -> int:
    """Action id of a description (case and surrounding spaces ignored).

    Raises:
        ValueError: no action has this description.
    """
    try:
        return _BY_DESCRIPTION[" ".join(text.split()).lower()]
    except KeyError:
        raise ValueError(f"no action is described as {text!r}") from None
