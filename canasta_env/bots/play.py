"""Play Canasta in the terminal against bots.

    python -m canasta_env.bots.play [--seat 0] [--policy heuristic] [--seed S] [--game]
                                    [--variant classic|hand_and_foot]
    python -m training.play ...    # the same, with .zip checkpoints loadable (canasta-play)

You hold one seat (partner: the seat opposite, played by a bot like the opponents).
Each time you are on turn the table is shown from your seat and your legal moves are
listed with numbers; answer with the number or the move's description (e.g.
``draw from stock``, ``discard 7``). The bots' moves are printed as they happen.
``quit`` (or end of input, Ctrl-D) stops at once; ``table`` shows the table again.
One hand by default; ``--game`` plays hands until a partnership reaches 5,000 (Hand and
Foot: the four rounds).
"""

from __future__ import annotations

import argparse
import sys

from canasta_env.engine import Game, preset
from canasta_env.render import render_text

from .bot import Bot

RELATIVE = ("you", "left", "partner", "right")
QUIT = {"quit", "q", "exit"}


class Quit(Exception):
    """The player stopped (``quit`` or end of input)."""


def _who(seat: int, me: int) -> str:
    return f"{RELATIVE[(seat - me) % 4]} (seat {seat})"


def _ask(game: Game, me: int, read, out) -> int:
    """The player's legal action, read until a valid answer."""
    legal = game.legal_actions()
    out("")
    out(render_text(game, me))
    out("Your moves:")
    for i, a in enumerate(legal, 1):
        out(f"  {i:2d}. {game.table.describe(a)}")
    while True:
        try:
            line = read("Your move (number or description; 'quit' stops): ")
        except EOFError:
            raise Quit from None
        text = line.strip()
        if not text:
            continue
        if text.lower() in QUIT:
            raise Quit
        if text.lower() in ("table", "t", "?", "help"):
            return _ask(game, me, read, out)
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(legal):
                return legal[k - 1]
            out(f"  no move {k}: choose 1..{len(legal)}")
            continue
        try:
            action = game.table.parse(text)
        except ValueError:
            out(f"  {text!r} is neither a number from the list nor a move description")
            continue
        if action not in legal:
            out(f"  {game.table.describe(action)!r} is not legal now")
            continue
        return action


def _hand_summary(game: Game, me: int, out) -> None:
    us = me % 2
    out("")
    out("=" * 60)
    out(f"Hand {game.hand_number + 1} is over.")
    out(render_text(game, me))
    a, b = (s.hand_score for s in game.sheets)
    mine, theirs = (a, b) if us == 0 else (b, a)
    out(f"This hand: us {mine}, them {theirs}. Totals: us {game.scores[us]}, "
        f"them {game.scores[1 - us]}.")
    if game.game_over:
        result = "tie" if game.winner == -1 else ("you win" if game.winner == us else "you lose")
        out(f"Game over: {result}.")
    out("=" * 60)


def play(seat: int, bot: Bot, seed: int | None, whole_game: bool, read=input,
         out=print, variant: str = "classic") -> int:
    """Play one hand (or a game) of ``variant`` with a person at ``seat`` and ``bot`` at
    the other seats; ``read(prompt)`` gives the person's lines (``EOFError`` stops),
    ``out`` prints. Returns the exit code (0)."""
    game = Game(preset(variant), seed=seed)
    name = "Hand and Foot" if variant == "hand_and_foot" else "Canasta"
    out(f"{name}: you are seat {seat} (partnership {'AB'[seat % 2]}, partner seat "
        f"{(seat + 2) % 4}); bots: {bot.name}; seed {game.seed}. Type 'quit' to stop.")
    try:
        while True:
            if game.hand_over:
                _hand_summary(game, seat, out)
                if game.game_over or not whole_game:
                    return 0
                game.next_hand()
                out(f"\nDealing hand {game.hand_number + 1} (dealer seat {game.dealer}).")
                continue
            s = game.to_move
            if s == seat:
                action = _ask(game, seat, read, out)
                game.apply(action)
                out(f"  you: {game.table.describe(action)}")
            else:
                for m in bot.play_seat_turn(game, s):
                    out(f"  {_who(m['seat'], seat)}: {m['description']}")
    except Quit:
        out("\nStopped. Bye.")
        return 0


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Play from the command line (``argv``: the arguments, default ``sys.argv[1:]``;
    ``prog``: the command name in ``--help``). Returns the exit code: 0, or 2 for a
    ``--policy`` that cannot be loaded (message on stderr)."""
    p = argparse.ArgumentParser(prog=prog,
                                description="Play Canasta in the terminal against bots.")
    p.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat 0..3")
    p.add_argument("--policy", default="heuristic",
                   help="bots: heuristic, random, reference, or a .onnx path (.zip "
                        "checkpoints: through python -m training.play)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (random if omitted)")
    p.add_argument("--game", action="store_true",
                   help="play a whole game (to 5,000; Hand and Foot: four rounds), not one hand")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    args = p.parse_args(argv)
    try:
        bot = Bot(args.policy)
    except ValueError as e:  # PolicySpecError / CheckpointError: a bad --policy
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        return play(args.seat, bot, args.seed, args.game, variant=args.variant)
    except KeyboardInterrupt:
        print("\nStopped. Bye.")
        return 0


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.play"))
