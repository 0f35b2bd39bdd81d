"""OpenSpiel: OpenSpiel's own ISMCTS bot plays a hand of Canasta for partnership 0
against the package's heuristic, through ``pyspiel`` and ``open_spiel.python.algorithms``.

    python examples/openspiel_ismcts.py --simulations 20

``import canasta_env.openspiel`` registers ``python_canasta`` and
``python_hand_and_foot``; the first node is the deal (a chance node), the observation
tensor is the env's observation. For a table over many duplicate deals:
``python -m training.openspiel_ismcts --b heuristic --hands 100``. Needs the interop
extra: ``pip install -e '.[interop]'``.
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import canasta_env.openspiel  # noqa: F401  (registers the games)
from canasta_env.policies import HeuristicPolicy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--simulations", type=int, default=50, help="ISMCTS simulations per decision")
    p.add_argument("--game", default="python_canasta",
                   choices=["python_canasta", "python_hand_and_foot"])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    game = pyspiel.load_game(args.game)
    rng = np.random.RandomState(args.seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                           uct_c=2.0, max_simulations=args.simulations, random_state=rng)
    heuristic = HeuristicPolicy()

    state = game.new_initial_state()
    outcomes, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probs)))  # the deal
    while not state.is_terminal():
        player = state.current_player()
        if player % 2 == 0:
            action = bot.step(state)
        else:
            mask = np.zeros(game.num_distinct_actions(), np.int8)
            mask[state.legal_actions()] = 1
            obs = np.asarray(state.observation_tensor(player), np.float32)
            action = heuristic.act(obs, mask)
        state.apply_action(int(action))
    print(f"{state.move_number()} moves; returns (ISMCTS seats 0 and 2 first): "
          f"{[round(r, 3) for r in state.returns()]}")
    print(state)


if __name__ == "__main__":
    main()
