"""The project's main job: train the default agent on a config, then evaluate it.

Until training lands this plays and scores one seeded random game of Classic Canasta.
"""

from __future__ import annotations

import argparse
import random

from canasta_env.engine import Game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/classic.yaml")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    g = Game(seed=args.seed)
    rng = random.Random(args.seed)
    while not g.game_over:
        if g.hand_over:
            g.next_hand()
        g.apply(rng.choice(g.legal_actions()))
    print(f"seeded random game (seed {args.seed}): {g.hand_number + 1} hands, scores {g.scores}, "
          f"winner {'AB'[g.winner] if g.winner >= 0 else 'tie'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
