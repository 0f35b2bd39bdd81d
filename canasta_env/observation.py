"""Seat-relative observation vector, built from named pieces.

Relative seats: 0 = me, 1 = left (next to play after me), 2 = partner, 3 = right.
"us" = my partnership, "them" = the other. Card-class vectors have 15 entries in the
order of :data:`canasta_env.engine.cards.CLASS_NAMES` (Joker, 2, black 3, red 3, 4 .. A).
Meld vectors have 12 entries: the ranks 4 .. A, then black 3.

Every entry is a float32; counts are divided by the scale in the table so values stay
near [0, 1]. Only information the observing seat may know is included: the contents of
the discard pile are public (each card in it was seen face up) and so are cards a player
took with the pile and still holds ("known").

=====================  ====  ======  ==========================================
piece                  size  scale   meaning
=====================  ====  ======  ==========================================
hand                   15    1/8     my hand, cards per class
known_left             15    1/8     cards left is known to hold (pile pickups)
known_partner          15    1/8     same for partner
known_right            15    1/8     same for right
hand_sizes             4     1/30    cards in hand per relative seat
red_threes             4     1/4     red 3s exposed per relative seat
melds_us_naturals      12    1/8     naturals in our melds per meld rank
melds_us_jokers        12    1/4     jokers in our melds
melds_us_twos          12    1/4     2s in our melds
melds_them_naturals    12    1/8     same for the opponents
melds_them_jokers      12    1/4
melds_them_twos        12    1/4
pile_top               15    1       one-hot class of the upcard (zeros if empty)
pile_contents          15    1/8     cards per class in the discard pile
pile_size              1     1/50    cards in the discard pile
pile_frozen            3     1       frozen for all / frozen against us / them
stop_card              1     1       a black 3 is on top
stock_size             1     1/100   cards in the stock
scores                 2     1/5000  cumulative scores before this hand: us, them
opening_minimums       2     1/120   opening minimum: us, them (points)
opened                 2     1       partnership has opened: us, them
phase                  6     1       one-hot engine Phase
on_turn                4     1       relative seat whose turn it is (the asker
                                     while partner answers)
turn_state             8     varies  opening points laid this turn (/120), laid
                                     this turn, drew from stock, asked-yes,
                                     asked-no, must go out, no discard allowed,
                                     cards of the pile set aside (/50)
=====================  ====  ======  ==========================================
"""

from __future__ import annotations

import numpy as np

from .engine.cards import BLACK_THREE, MELD_RANKS, NUM_CLASSES
from .engine.game import ASKED_NO, ASKED_YES, Game, Phase

MELD_SLOTS = (*MELD_RANKS, BLACK_THREE)

PIECES: tuple[tuple[str, int], ...] = (
    ("hand", NUM_CLASSES),
    ("known_left", NUM_CLASSES),
    ("known_partner", NUM_CLASSES),
    ("known_right", NUM_CLASSES),
    ("hand_sizes", 4),
    ("red_threes", 4),
    ("melds_us_naturals", len(MELD_SLOTS)),
    ("melds_us_jokers", len(MELD_SLOTS)),
    ("melds_us_twos", len(MELD_SLOTS)),
    ("melds_them_naturals", len(MELD_SLOTS)),
    ("melds_them_jokers", len(MELD_SLOTS)),
    ("melds_them_twos", len(MELD_SLOTS)),
    ("pile_top", NUM_CLASSES),
    ("pile_contents", NUM_CLASSES),
    ("pile_size", 1),
    ("pile_frozen", 3),
    ("stop_card", 1),
    ("stock_size", 1),
    ("scores", 2),
    ("opening_minimums", 2),
    ("opened", 2),
    ("phase", len(Phase)),
    ("on_turn", 4),
    ("turn_state", 8),
)

#: name -> slice into the observation vector
SLICES: dict[str, slice] = {}
_o = 0
for _name, _size in PIECES:
    SLICES[_name] = slice(_o, _o + _size)
    _o += _size
OBS_SIZE: int = _o
del _o, _name, _size


def encode(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """Observation of ``seat`` (0..3) as a float32 vector of shape ``(OBS_SIZE,)``.

    Args:
        out: optional preallocated float32 array to fill (avoids an allocation).
    """
    v = out if out is not None else np.zeros(OBS_SIZE, dtype=np.float32)
    if out is not None:
        v.fill(0.0)
    rel = [(seat + k) % 4 for k in range(4)]
    us, them = seat & 1, (seat + 1) & 1
    S = SLICES
    v[S["hand"]] = game.hands[seat]
    v[S["hand"]] *= 0.125
    for name, k in (("known_left", 1), ("known_partner", 2), ("known_right", 3)):
        v[S[name]] = game.known[rel[k]]
        v[S[name]] *= 0.125
    v[S["hand_sizes"]] = [sum(game.hands[s]) / 30.0 for s in rel]
    v[S["red_threes"]] = [game.red3[s] / 4.0 for s in rel]
    for side, t in (("us", us), ("them", them)):
        nat, jok, two = game.nat[t], game.jok[t], game.two[t]
        v[S[f"melds_{side}_naturals"]] = [nat[r] / 8.0 for r in MELD_SLOTS]
        v[S[f"melds_{side}_jokers"]] = [jok[r] / 4.0 for r in MELD_SLOTS]
        v[S[f"melds_{side}_twos"]] = [two[r] / 4.0 for r in MELD_SLOTS]
    pile = game.pile
    base = S["pile_contents"].start
    for c in pile:
        v[base + c] += 0.125
    if pile:
        top = pile[-1]
        v[S["pile_top"].start + top] = 1.0
        v[S["stop_card"].start] = float(top == BLACK_THREE)
    v[S["pile_size"].start] = len(pile) / 50.0
    f = S["pile_frozen"].start
    v[f] = float(game.pile_frozen)
    v[f + 1] = float(game.pile_frozen_for(us))
    v[f + 2] = float(game.pile_frozen_for(them))
    v[S["stock_size"].start] = len(game.stock) / 100.0
    v[S["scores"]] = (game.scores[us] / 5000.0, game.scores[them] / 5000.0)
    v[S["opening_minimums"]] = (game.minimum[us] / 120.0, game.minimum[them] / 120.0)
    v[S["opened"]] = (float(game.opened[us]), float(game.opened[them]))
    v[S["phase"].start + int(game.phase)] = 1.0
    v[S["on_turn"].start + (game.current - seat) % 4] = 1.0
    t = S["turn_state"].start
    v[t:t + 8] = (
        game.turn_points / 120.0,
        float(game.laid),
        float(game.drew_stock),
        float(game.asked == ASKED_YES),
        float(game.asked == ASKED_NO),
        float(game.must_out),
        float(game.no_discard),
        len(game.pending) / 50.0,
    )
    return v


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named pieces (views, scaled values)."""
    return {name: obs[s] for name, s in SLICES.items()}
