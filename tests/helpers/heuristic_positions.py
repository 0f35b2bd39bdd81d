"""The recorded positions of tests/native/test_fast_heuristic.py: seeded games on the Python
engine, played by a mix of heuristic and random moves, replayed decision by decision.

A game is one hand under one of :data:`SETTINGS` (rules options and the heuristic's
parameters for them), dealt from ``seed`` at the starting ``scores`` (Classic: every
opening minimum, docs/RULES.md §2.8) or in ``first_round`` (Hand and Foot: every
round, §3.2). Every decision with two legal actions or more is a recorded position;
its move is the heuristic's expected action (``expected``: the recorded one on a replay,
the Python reference's when generating), except that with probability ``noise`` -- and
always for the seats ``random_seats`` -- a uniformly random legal action is played
instead (the draws come from one ``numpy`` generator per game seeded from ``seed``, one
``random()`` and one ``integers()`` per recorded position, so the replay is exact).

The recorded file (``tests/data/heuristic_decisions.npz``) holds the games and, per
position, the heuristic's action and a CRC-32 of the observation and mask: a replay
that drifts (the engine's deal or rules changed) is caught position by position.
``python tests/data/make_heuristic_decisions.py`` writes it again with the Python
reference heuristic.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

import numpy as np

from canasta_env.engine import Game, preset
from canasta_env.observation import encode

DATA = "heuristic_decisions.npz"

#: (variant, rules option changes, HeuristicPolicy kwargs); index = the game's setting
SETTINGS: tuple[tuple[str, dict, dict], ...] = (
    ("classic", {}, {}),
    ("classic", {"max_wilds_per_meld": 2, "canastas_to_go_out": 2, "decks": 3, "jokers": 6},
     {"max_wilds_per_meld": 2, "canastas_to_go_out": 2, "decks": 3, "jokers": 6,
      "stop_stock": 4, "start_meld_hand": 9}),
    ("classic", {"canasta_size": 6, "max_wilds_per_meld": 4},
     {"canasta_size": 6, "max_wilds_per_meld": 4, "stop_stock": 12, "start_meld_hand": 0}),
    ("hand_and_foot", {}, {}),
)

#: Classic starting scores: opening minimums 15 / 50 / 90 / 120 for one side or both
CLASSIC_SCORES = ((0, 0), (-200, 1600), (1700, 3100), (3300, -50), (2000, 2200),
                  (-400, 0), (3500, 3600), (100, 1500))


def game_table(classic_games: dict[int, int], hand_and_foot_games: int) -> np.ndarray:
    """Rows (setting, seed, score_a, score_b, first_round, random_seats bitmask,
    noise in percent) of the recorded games: ``classic_games`` {setting: games}, then
    ``hand_and_foot_games`` of setting 3."""
    rows = []
    seed = 1000
    for setting, n in classic_games.items():
        for i in range(n):
            a, b = CLASSIC_SCORES[i % len(CLASSIC_SCORES)]
            random_seats = (0b0000, 0b1010, 0b0101, 0b0001)[i % 4]
            rows.append((setting, seed, a, b, 0, random_seats, (10, 25, 40)[i % 3]))
            seed += 1
    for i in range(hand_and_foot_games):
        random_seats = (0b0000, 0b1010, 0b0101, 0b0100)[i % 4]
        rows.append((3, seed, 0, 0, i % 4, random_seats, (10, 25, 40)[i % 3]))
        seed += 1
    return np.array(rows, dtype=np.int64)


def replay(row, expected: Callable[[np.ndarray, np.ndarray], int], limit: int
           ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Play game ``row`` of :func:`game_table`, yielding (observation, mask) of each
    recorded position (at most ``limit``); ``expected(observation, mask)`` gives the
    heuristic's action there (it is played unless the noise or a random seat says
    otherwise)."""
    setting, seed, a, b, first_round, random_seats, noise = (int(x) for x in row)
    variant, changes, _ = SETTINGS[setting]
    g = Game(preset(variant, **changes), seed=seed, scores=(a, b), first_round=first_round)
    rng = np.random.default_rng(seed)
    n = 0
    while not g.hand_over and n < limit:
        legal = g.legal_actions()
        seat = g.to_move
        if len(legal) == 1:
            g.apply(legal[0])
            continue
        obs = encode(g, seat)
        mask = np.zeros(g.num_actions, dtype=np.int8)
        mask[legal] = 1
        want = expected(obs, mask)
        n += 1
        u, pick = rng.random(), int(rng.integers(len(legal)))
        yield obs, mask
        g.apply(legal[pick] if (random_seats >> seat) & 1 or u < noise / 100 else want)


def crc(obs: np.ndarray, mask: np.ndarray) -> int:
    """CRC-32 of a position's observation and mask bytes."""
    return zlib.crc32(mask.tobytes(), zlib.crc32(obs.tobytes()))
