"""The deal: shuffle, hands (and feet), the upcard, red 3s replaced, the first turn.

Rules source: ``docs/RULES.md`` §2.2 (deal, upcard, red 3 replacement, the player left of
the dealer starts) and §3.1 (Hand and Foot: a hand and a foot per player).
"""

from __future__ import annotations

import random

from .cards import NUM_CLASSES, RED_THREE, deck_counts
from .state import WILDS, Phase, State


def deal(s: State) -> None:
    """Deal hand ``s.hand_number`` by ``s.dealer`` from a pack shuffled by the seed: every
    field of the hand is set anew and the first turn (left of the dealer) begins in phase
    ``DRAW``.

    The shuffle is ``random.Random(f"{seed}/hand/{hand_number}")``: the same seed, options
    and hand number give the same deal. Cards are dealt one at a time clockwise from the
    dealer's left (hands, then feet); the upcard is turned, and more cards onto it while a
    wild card or red 3 shows (the pile is then frozen); then each player from the
    dealer's left lays every red 3 and draws a replacement.
    """
    o = s.options
    pack = deck_counts(o.decks, o.jokers)
    cards = [c for c in range(NUM_CLASSES) for _ in range(pack[c])]
    rng = random.Random(f"{s.seed}/hand/{s.hand_number}")
    rng.shuffle(cards)
    s.stock = cards  # top card = last element
    s.pile = []
    s.hands = [[0] * NUM_CLASSES for _ in range(4)]
    s.known = [[0] * NUM_CLASSES for _ in range(4)]
    s.red3 = [0, 0, 0, 0]
    s.nat = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
    s.jok = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
    s.two = [[0] * NUM_CLASSES, [0] * NUM_CLASSES]
    s.opened = [False, False]
    s.minimum = [o.minimum_for(s.scores[0], s.hand_number),
                 o.minimum_for(s.scores[1], s.hand_number)]
    s.feet = [[0] * NUM_CLASSES for _ in range(4)]
    s.in_foot = [False] * 4
    s.books = [[], []]
    s.wild_meld = [[0, 0], [0, 0]]
    s.seat_melded = [False] * 4
    s.pile_frozen = False
    s.log = []
    s.went_out = None
    s.concealed = False
    s.sheets = None
    s.decisions = 0
    first = (s.dealer + 1) % 4
    for i in range(o.hand_size * 4):
        s.hands[(first + i) % 4][s.stock.pop()] += 1
    for i in range(o.foot_size * 4):
        s.feet[(first + i) % 4][s.stock.pop()] += 1
    # upcard: turn cards until a natural that is not a red 3 shows
    while True:
        c = s.stock.pop()
        s.pile.append(c)
        if c in WILDS or c == RED_THREE:
            s.pile_frozen = True
            continue
        break
    s.log.append({"event": "deal", "hand": s.hand_number, "dealer": s.dealer,
                  "upcards": list(s.pile)})
    for k in range(4):
        seat = (first + k) % 4
        h = s.hands[seat]
        while h[RED_THREE]:
            h[RED_THREE] -= 1
            s.red3[seat] += 1
            s.log.append({"event": "red3", "seat": seat})
            h[s.stock.pop()] += 1
    s.current = first
    s.start_turn()
    s.phase = Phase.DRAW
