"""Write tests/data/heuristic_decisions.npz: 10,000 positions of seeded games and the
action the Python reference heuristic (``HeuristicPolicy(backend="python")``) takes in
each, for tests/native/test_fast_heuristic.py.

    python tests/data/make_heuristic_decisions.py

Positions (tests/helpers/heuristic_positions.py): 6,000 Classic (3,000 with the default options
and heuristic, 1,500 each under two other option sets with the heuristic's matching
parameters, all four opening minimums) and 4,000 Hand and Foot (all four rounds), at
most 80 per hand. The file holds the game table, the number of positions per game, and
per position the expected action (uint8) and the CRC-32 of the observation and mask.
Run it again only when the heuristic's behaviour is meant to change (or the Python
engine's deal): the file is what the native port is held to.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository (canasta_env, tests.helpers)

from canasta_env.policies import HeuristicPolicy  # noqa: E402
from tests.helpers.heuristic_positions import DATA, SETTINGS, crc, game_table, replay  # noqa: E402

#: setting -> positions
TARGETS = {0: 3000, 1: 1500, 2: 1500, 3: 4000}
PER_GAME = 80


def main() -> None:
    table = game_table({0: 100, 1: 60, 2: 60}, 120)
    policies = {s: HeuristicPolicy(backend="python", **SETTINGS[s][2]) for s in TARGETS}
    left = dict(TARGETS)
    games, counts, actions, crcs = [], [], [], []
    for row in table:
        setting = int(row[0])
        if left[setting] == 0:
            continue
        pol = policies[setting]
        n = 0

        def expected(obs, mask, pol=pol):
            a = pol.act(obs, mask)
            actions.append(a)
            return a

        for obs, mask in replay(row, expected, min(PER_GAME, left[setting])):
            crcs.append(crc(obs, mask))
            n += 1
        if n:
            games.append(row)
            counts.append(n)
            left[setting] -= n
    assert not any(left.values()), f"not enough games for {left}"
    out = HERE / DATA
    np.savez_compressed(out, games=np.array(games, dtype=np.int64),
                        counts=np.array(counts, dtype=np.int64),
                        actions=np.array(actions, dtype=np.uint8),
                        crcs=np.array(crcs, dtype=np.uint32))
    print(f"{out}: {len(games)} games, {len(actions)} positions, {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
