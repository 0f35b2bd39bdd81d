"""Play Canasta in the terminal against bots.

    python -m canasta_env.bots.play [--seat 0] [--policy easy|medium|hard|expert|heuristic|...]
                                    [--seed S] [--game] [--variant classic|hand_and_foot]
    python -m training.play ...    # the same, with .zip checkpoints loadable (canasta-play)

You hold one seat (partner: the seat opposite, played by a bot like the opponents).
Each time you are on turn the table is shown from your seat and your legal moves are
listed with numbers; answer with the number or the move's description (e.g.
``draw from stock``, ``discard 7``). The bots' moves are printed as they happen.
``quit`` (or end of input, Ctrl-D, or Ctrl-C) stops at once; ``table`` shows the table
again. One hand by default; ``--game`` plays hands until a partnership reaches 5,000
(Hand and Foot: the four rounds).

The bots' policy is checked against the variant before the first deal: a network of
another variant is refused with one line (e.g. ``policy 'model.onnx' is a Classic policy
(observation 202, 91 actions); this game is Hand and Foot (observation 245, 98
actions)``). ``--policy reference`` plays the variant's reference policy (a network for
Classic and for Hand and Foot; a variant without one plays the heuristic, and the first
line says so). ``--policy easy`` (``medium``, ``hard``, ``expert``) plays the variant's
policy of that difficulty level (:mod:`canasta_env.bots.levels`; the first line names it);
a level the variant lacks is refused with one line.

Exit codes: 0 (the hand or game ended, the player stopped, or the output was closed),
2 (a bad option or a policy that cannot play the variant: one line on stderr).
"""

from __future__ import annotations

import os
import sys

from canasta_env.cli import ArgumentParser, fail
from canasta_env.engine import Game, preset
from canasta_env.engine.actions import DRAW_STOCK
from canasta_env.engine.cards import CLASS_NAMES
from canasta_env.render import render_text

from .bot import Bot
from .levels import LEVEL_NAMES, is_level, level_spec
from .loader import EPSILON_PREFIX, STYLE_PREFIX, reference_note, registered_suffixes, variant_hint

RELATIVE = ("you", "left", "partner", "right")
QUIT = {"quit", "q", "exit"}


class Quit(Exception):
    """The player stopped (``quit`` or end of input)."""


def _who(seat: int, me: int) -> str:
    return f"{RELATIVE[(seat - me) % 4]} (seat {seat})"


def _show(game: Game, me: int, legal: list[int], out) -> None:
    out("")
    out(render_text(game, me))
    out("Your moves:")
    for i, a in enumerate(legal, 1):
        out(f"  {i:2d}. {game.table.describe(a)}")


def _ask(game: Game, me: int, read, out) -> int:
    """The player's legal action, read line by line until a valid answer (a loop: any
    number of ``table`` requests or bad lines).

    Raises:
        Quit: ``quit``, or the end of input (``read`` raised ``EOFError``).
    """
    legal = game.legal_actions()
    _show(game, me, legal, out)
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
            _show(game, me, legal, out)
            continue
        if text.isascii() and text.isdigit():  # int() refuses '²' and over 4,300 digits
            digits = text.lstrip("0") or "0"
            if len(digits) > 12:
                out(f"  no move {digits[:12]}... ({len(digits)} digits): choose 1..{len(legal)}")
                continue
            k = int(digits)
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


def _drawn(game: Game, seat: int, hand: list[int], red3: int) -> str:
    """What a draw from the stock gave ``seat`` (``hand``, ``red3``: before it), in
    words: the cards now in the hand that were not, and the red 3s laid down on the way
    (each replaced by another card: docs/RULES.md §2.5)."""
    got = [CLASS_NAMES[c] for c, (a, b) in enumerate(zip(hand, game.hands[seat]))
           for _ in range(b - a)]
    laid = game.red3[seat] - red3
    words = ", ".join(got) if got else "nothing into your hand"
    if laid:
        threes = f"{laid} red 3{'s' if laid > 1 else ''}"
        if game.hand_over:  # the last card was a red 3: nothing replaces it
            words += f" (and {threes}, laid down; it was the last card of the stock, so " \
                     f"the hand ends)"
        else:
            words += f" (and {threes}, laid down and replaced)"
    short = game.options.draw_count - len(got) - laid
    if short > 0 and not game.stock and not game.hand_over:
        words += " (the stock ran out)"
    return words

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
    ``out`` prints. Returns the exit code (0).

    Raises:
        canasta_env.bots.PolicyVariantError, canasta_env.bots.PolicySpecError: ``bot``
            cannot play ``variant``; raised before anything is dealt or printed.
        canasta_env.engine.OptionsError: an unknown variant.
    """
    options = preset(variant)
    bot.check_variant(options)
    game = Game(options, seed=seed)
    name = "Hand and Foot" if variant == "hand_and_foot" else "Canasta"
    bots = bot.name
    if is_level(bot.name):  # a difficulty level: say which policy it is in this variant
        bots += f" ({level_spec(bot.name, options)})"
    note = reference_note(options) if bot.name.lower() == "reference" else None
    if note:
        bots += f" ({note})"
    out(f"{name}: you are seat {seat} (partnership {'AB'[seat % 2]}, partner seat "
        f"{(seat + 2) % 4}); bots: {bots}; seed {game.seed}. Type 'quit' to stop.")
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
                before = (list(game.hands[seat]), game.red3[seat])
                game.apply(action)
                out(f"  you: {game.table.describe(action)}")
                if action == DRAW_STOCK:
                    out(f"  you drew {_drawn(game, seat, *before)}")
            else:
                for m in bot.play_seat_turn(game, s):
                    out(f"  {_who(m['seat'], seat)}: {m['description']}")
    except Quit:
        out("\nStopped. Bye.")
        return 0


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Play from the command line (``argv``: the arguments, default ``sys.argv[1:]``;
    ``prog``: the command name in ``--help``). Returns the exit code: 0, or 2 for a bad
    option or a ``--policy`` that cannot be loaded or cannot play ``--variant`` (one line
    on stderr).

    Raises:
        SystemExit: ``--help`` (0) or a bad option (2, one line on stderr).
    """
    p = ArgumentParser(prog=prog, description="Play Canasta in the terminal against bots.")
    p.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat 0..3")
    # canasta-play and python -m training.play import training, which registers .zip
    zip_note = ("a .onnx or .zip path" if ".zip" in registered_suffixes() else
                "a .onnx path (.zip checkpoints: through python -m training.play)")
    p.add_argument("--policy", default="heuristic",
                   help=f"bots (default: heuristic): a difficulty level ("
                        f"{', '.join(LEVEL_NAMES)}: the variant's policy of that level), "
                        f"heuristic, search, search_reference (the strongest in Classic), "
                        f"apprentice (Hand and Foot: between the heuristic and the reference), "
                        f"random, reference "
                        f"(the variant's network), {EPSILON_PREFIX}P, {STYLE_PREFIX}NAME (a Classic "
                        f"playing style), {zip_note}, or module:attribute (a policy of your "
                        f"own)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (random if omitted)")
    p.add_argument("--game", action="store_true",
                   help="play a whole game (to 5,000; Hand and Foot: four rounds), not one hand")
    p.add_argument("--variant", default="classic", choices=["classic", "hand_and_foot"])
    args = p.parse_args(argv)
    try:
        # before the first deal: the policy loads and fits the variant, or one line
        bot = Bot(args.policy, variant=args.variant)
    except ValueError as e:  # PolicySpecError / PolicyVariantError / CheckpointError
        return fail(p.prog, variant_hint(e))
    try:
        return play(args.seat, bot, args.seed, args.game, variant=args.variant)
    except KeyboardInterrupt:
        print("\nStopped. Bye.")
        return 0
    except BrokenPipeError:  # the output was closed (e.g. piped into head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m canasta_env.bots.play"))
