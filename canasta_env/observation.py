"""Seat-relative observation vector, built from named pieces.

Relative seats: 0 = me, 1 = left (next to play after me), 2 = partner, 3 = right.
"us" = my partnership, "them" = the other. Card-class vectors have 15 entries in the
order of :data:`canasta_env.engine.cards.CLASS_NAMES` (Joker, 2, black 3, red 3, 4 .. A).
Meld vectors have 12 entries: the ranks 4 .. A, then black 3.

Every entry is a non-negative float32; counts are divided by the scale in the table so values stay
near [0, 1]. Only information the observing seat may know is included: the contents of
the discard pile are public (each card in it was seen face up) and so are cards a player
took with the pile and still holds ("known"). While a taken pile is set aside (phase
``PICKUP``: the opening must be completed before the rest of the pile joins the hand,
docs/RULES.md §2.10, §2.8) its cards stay public: ``pile_contents`` counts them with the
cards still in the pile (docs/RULES.md §7; :func:`canasta_env.public.public_pile`).
With ``pile_take_limit`` (Hand and Foot takes the top 7 cards) part of the pile can stay
while the rest is set aside; the two parts are then told apart by their sizes
(``pile_size``, the last entry of ``turn_state``), not card by card: the layout is
fixed (a shipped checkpoint depends on it).

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
pile_contents          15    1/8     cards per class in the discard pile and, in
                                     phase PICKUP, set aside from it (taken for
                                     an opening not yet complete; their count
                                     is the last entry of turn_state)
pile_size              1     1/50    cards in the discard pile (set-aside cards
                                     not included)
pile_frozen            3     1       frozen for all / frozen against us / them
stop_card              1     1       a black 3 is on top
stock_size             1     1/100   cards in the stock
scores                 2     1/5000  cumulative scores before this hand: us, them
                                     (0 when negative; at most 10,000,000 points
                                     are shown, ``limits.OBSERVED_SCORE_LIMIT``)
scores_below_zero      2     1/5000  minus the cumulative scores below zero: us,
                                     them (score = scores - scores_below_zero)
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

Hand and Foot (rules with ``exact_melds``, e.g. ``variant="hand_and_foot"``) appends
these pieces to the Classic layout above (:func:`obs_size` gives 245; the Classic
pieces keep their place and meaning: ``melds_*`` are the *open* melds, ``hand_sizes``
the cards held now):

=====================  ====  ======  ==========================================
piece                  size  scale   meaning
=====================  ====  ======  ==========================================
in_foot                4     1       relative seat is playing its foot
foot_sizes             4     1/11    cards in each relative seat's foot not yet
                                     picked up
round                  1     1/4     deal number, 1 for the first round
books_us               3     1/4     our closed books: clean, dirty, wild
books_them             3     1/4     same for the opponents
books_us_ranks         12    1/4     our closed books per rank 4 .. A, then wild
books_them_ranks       12    1/4     same for the opponents
wild_melds             4     1/4     open wild meld: our jokers, our 2s, their
                                     jokers, their 2s
=====================  ====  ======  ==========================================
"""

from __future__ import annotations

import numpy as np

from .engine.cards import BLACK_THREE, JOKER, MELD_RANKS, NUM_CLASSES
from .engine.game import ASKED_NO, ASKED_YES, Game, Phase
from .engine.limits import OBSERVED_SCORE_LIMIT

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
    ("scores_below_zero", 2),
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


_SCALES = {
    "hand": 1 / 8, "known_left": 1 / 8, "known_partner": 1 / 8, "known_right": 1 / 8,
    "hand_sizes": 1 / 30, "red_threes": 1 / 4,
    "melds_us_naturals": 1 / 8, "melds_us_jokers": 1 / 4, "melds_us_twos": 1 / 4,
    "melds_them_naturals": 1 / 8, "melds_them_jokers": 1 / 4, "melds_them_twos": 1 / 4,
    "pile_top": 1, "pile_contents": 1 / 8, "pile_size": 1 / 50, "pile_frozen": 1,
    "stop_card": 1, "stock_size": 1 / 100, "scores": 1 / 5000, "scores_below_zero": 1 / 5000,
    "opening_minimums": 1 / 120,
    "opened": 1, "phase": 1, "on_turn": 1,
}
#: per-entry multiplier applied to the raw counts (float32, shape (OBS_SIZE,))
SCALE = np.ones(OBS_SIZE, dtype=np.float32)
for _name, _s in _SCALES.items():
    SCALE[SLICES[_name]] = _s
SCALE[SLICES["turn_state"]] = (1 / 120, 1, 1, 1, 1, 1, 1, 1 / 50)
del _name, _s
_NPHASE = len(Phase)


HAND_AND_FOOT_PIECES: tuple[tuple[str, int], ...] = (
    ("in_foot", 4),
    ("foot_sizes", 4),
    ("round", 1),
    ("books_us", 3),
    ("books_them", 3),
    ("books_us_ranks", len(MELD_RANKS) + 1),
    ("books_them_ranks", len(MELD_RANKS) + 1),
    ("wild_melds", 4),
)
_HF_SCALES = {"in_foot": 1, "foot_sizes": 1 / 11, "round": 1 / 4, "books_us": 1 / 4,
              "books_them": 1 / 4, "books_us_ranks": 1 / 4, "books_them_ranks": 1 / 4,
              "wild_melds": 1 / 4}
#: name -> slice of the Hand and Foot layout (the Classic slices, then the appended ones)
SLICES_HAND_AND_FOOT: dict[str, slice] = dict(SLICES)
_o = OBS_SIZE
for _name, _size in HAND_AND_FOOT_PIECES:
    SLICES_HAND_AND_FOOT[_name] = slice(_o, _o + _size)
    _o += _size
OBS_SIZE_HAND_AND_FOOT: int = _o
SCALE_HAND_AND_FOOT = np.ones(OBS_SIZE_HAND_AND_FOOT, dtype=np.float32)
SCALE_HAND_AND_FOOT[:OBS_SIZE] = SCALE
for _name, _s in _HF_SCALES.items():
    SCALE_HAND_AND_FOOT[SLICES_HAND_AND_FOOT[_name]] = _s
del _o, _name, _size, _s
_BOOK_SLOT = {r: i for i, r in enumerate((*MELD_RANKS, JOKER))}


def obs_size(options=None) -> int:
    """Observation size for rules ``options`` (Classic: :data:`OBS_SIZE`)."""
    return OBS_SIZE_HAND_AND_FOOT if options is not None and options.exact_melds else OBS_SIZE


def slices(options=None) -> dict[str, slice]:
    """Name -> slice of the observation layout for rules ``options``."""
    return SLICES_HAND_AND_FOOT if options is not None and options.exact_melds else SLICES


def encode(game: Game, seat: int) -> np.ndarray:
    """Observation of ``seat`` (0..3) as a float32 vector of shape ``(OBS_SIZE,)``
    (``(obs_size(game.options),)`` for Hand and Foot rules).

    Built as one list of raw counts, converted once and multiplied by :data:`SCALE`.
    """
    rel = [(seat + k) % 4 for k in range(4)]
    us, them = seat & 1, (seat + 1) & 1
    hands, red3 = game.hands, game.red3
    known = game.known
    v = list(hands[seat])
    v += known[rel[1]]
    v += known[rel[2]]
    v += known[rel[3]]
    v += [sum(hands[s]) for s in rel]
    v += [red3[s] for s in rel]
    for t in (us, them):
        nat, jok, two = game.nat[t], game.jok[t], game.two[t]
        v += [nat[r] for r in MELD_SLOTS]
        v += [jok[r] for r in MELD_SLOTS]
        v += [two[r] for r in MELD_SLOTS]
    pile = game.pile
    top = [0] * NUM_CLASSES
    contents = [0] * NUM_CLASSES
    for c in pile:
        contents[c] += 1
    for c in game.pending:  # a pile set aside for the opening (PICKUP) stays public
        contents[c] += 1
    if pile:
        top[pile[-1]] = 1
    v += top
    v += contents
    v.append(len(pile))
    v.append(game.pile_frozen)
    v.append(game.pile_frozen or not game.opened[us])
    v.append(game.pile_frozen or not game.opened[them])
    v.append(bool(pile) and pile[-1] == BLACK_THREE)
    v.append(len(game.stock))
    lim = OBSERVED_SCORE_LIMIT
    su = max(min(game.scores[us], lim), -lim)
    st = max(min(game.scores[them], lim), -lim)
    v += (max(su, 0), max(st, 0), max(-su, 0), max(-st, 0), game.minimum[us], game.minimum[them],
          game.opened[us], game.opened[them])
    phase = [0] * _NPHASE
    phase[game.phase] = 1
    v += phase
    turn = [0, 0, 0, 0]
    turn[(game.current - seat) % 4] = 1
    v += turn
    v += (game.turn_points, game.laid, game.drew_stock, game.asked == ASKED_YES,
          game.asked == ASKED_NO, game.must_out, game.no_discard, len(game.pending))
    if not game.options.exact_melds:
        out = np.fromiter(v, dtype=np.float32, count=OBS_SIZE)
        out *= SCALE
        return out
    v += [game.in_foot[s] for s in rel]
    v += [sum(game.feet[s]) for s in rel]
    v.append(game.hand_number + 1)
    ranks = []
    for t in (us, them):
        clean = dirty = wild = 0
        per = [0] * len(_BOOK_SLOT)
        for r, _, j, w in game.books[t]:
            per[_BOOK_SLOT[r]] += 1
            if r == JOKER:
                wild += 1
            elif j + w:
                dirty += 1
            else:
                clean += 1
        v += (clean, dirty, wild)
        ranks.append(per)
    v += ranks[0]
    v += ranks[1]
    v += game.wild_meld[us]
    v += game.wild_meld[them]
    out = np.fromiter(v, dtype=np.float32, count=OBS_SIZE_HAND_AND_FOOT)
    out *= SCALE_HAND_AND_FOOT
    return out


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector (either layout, told apart by its size) into its
    named pieces (views, scaled values)."""
    sl = SLICES_HAND_AND_FOOT if len(obs) == OBS_SIZE_HAND_AND_FOOT else SLICES
    return {name: obs[s] for name, s in sl.items()}
