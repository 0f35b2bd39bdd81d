"""python -m canasta_env.bots.play: a person plays against bots through stdin / stdout."""

from __future__ import annotations

import re
import subprocess
import sys

from canasta_env.bots import Bot
from canasta_env.bots.play import play
from tests.helpers.opponent import ROOT


def run_cli(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "canasta_env.bots.play", *args], input=stdin,
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_plays_a_hand_by_number_and_description():
    # description, then junk, an out-of-range number, an illegal move, a blank line, then
    # always the first listed move until the hand ends
    lines = ["draw from stock", "dance", "99", "draw from stock", ""] + ["1"] * 400
    r = run_cli(["--seat", "1", "--seed", "3"], "\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "you are seat 1" in out and "bots: heuristic" in out
    assert "Your moves:" in out and re.search(r"^\s+1\. ", out, re.M)
    assert "My hand:" in out and "Our melds:" in out  # the table from the player's seat
    assert "  you: draw from stock" in out
    assert re.search(r"  you: draw from stock\n  you drew \S", out)
    assert "'dance' is neither a number from the list nor a move description" in out
    assert "no move 99" in out
    assert "'draw from stock' is not legal now" in out
    assert re.search(r"^  (left|partner|right) \(seat \d\): ", out, re.M)  # bots' moves
    assert "Hand 1 is over." in out and "This hand: us" in out
    assert "Stopped" not in out  # the hand ended before the input did


def test_cli_quit_and_end_of_input_exit_cleanly():
    r = run_cli(["--seed", "5"], "quit\n")
    assert r.returncode == 0 and "Stopped. Bye." in r.stdout and not r.stderr
    r = run_cli(["--seed", "5", "--seat", "2", "--game"], "")
    assert r.returncode == 0 and "Stopped. Bye." in r.stdout and not r.stderr


def test_cli_bad_policy_is_a_clear_error():
    r = run_cli(["--policy", "missing/model.zip"], "")
    assert r.returncode == 2 and "error:" in r.stderr and "missing/model.zip" in r.stderr
    assert "Traceback" not in r.stderr


def test_whole_game_in_process():
    """--game: hands are dealt until a partnership reaches 5,000 (in process, fast)."""
    out: list[str] = []
    answers = iter(["1"] * 5000)

    def read(prompt: str) -> str:
        return next(answers)

    assert play(0, Bot("heuristic"), 6, True, read=read, out=out.append) == 0
    text = "\n".join(out)
    assert "Game over: you " in text or "Game over: tie" in text
    hands = text.count(" is over.")
    assert hands >= 2 and text.count("Dealing hand") == hands - 1


def test_non_ascii_digits_and_huge_numbers_are_bad_lines_not_a_crash():
    from canasta_env.bots.play import _ask
    from canasta_env.engine import Game

    game = Game(seed=3)
    answers = iter(["²", "9" * 5000, "1"])
    said: list[str] = []
    action = _ask(game, game.to_move, lambda prompt: next(answers), said.append)
    assert action == game.legal_actions()[0]
    assert "  '²' is neither a number from the list nor a move description" in said
    assert f"  no move {'9' * 12}... (5000 digits): choose 1..{len(game.legal_actions())}" in said


def test_the_player_is_told_the_card_drawn():
    """After ``draw from stock`` the player reads which card came (and any red 3 laid down
    on the way, with its replacement): the cards are the stock's top ones."""
    from canasta_env.bots.play import _drawn
    from canasta_env.engine import Game
    from canasta_env.engine.actions import DRAW_STOCK
    from canasta_env.engine.cards import CLASS_NAMES, RED_THREE

    plain = red = None
    for seed in range(400):
        g = Game(seed=seed)
        if DRAW_STOCK not in g.legal_actions():
            continue
        if g.stock[-1] == RED_THREE and g.stock[-2] != RED_THREE and red is None:
            red = g
        elif g.stock[-1] != RED_THREE and plain is None:
            plain = g
    assert plain is not None and red is not None
    for g, laid in ((plain, 0), (red, 1)):
        seat = g.to_move
        top = list(g.stock)
        before = (list(g.hands[seat]), g.red3[seat])
        g.apply(DRAW_STOCK)
        said = _drawn(g, seat, *before)
        if laid:
            assert said == f"{CLASS_NAMES[top[-2]]} (and 1 red 3, laid down and replaced)"
        else:
            assert said == CLASS_NAMES[top[-1]]


def test_the_draw_message_when_the_stock_ends():
    """A red 3 as the last card of the stock is laid down and not replaced (the hand
    ends), and a Hand and Foot draw of two from a one-card stock says the stock ran out."""
    from canasta_env.bots.play import _drawn
    from canasta_env.engine import Game, preset
    from canasta_env.engine.actions import DRAW_STOCK
    from canasta_env.engine.cards import CLASS_NAMES, RED_THREE

    g = Game(seed=0)
    while DRAW_STOCK not in g.legal_actions():
        g.apply(g.legal_actions()[0])
    seat = g.to_move
    g.stock[:] = [RED_THREE]
    before = (list(g.hands[seat]), g.red3[seat])
    g.apply(DRAW_STOCK)
    assert g.hand_over
    assert _drawn(g, seat, *before) == ("nothing into your hand (and 1 red 3, laid down; it "
                                        "was the last card of the stock, so the hand ends)")

    hf = Game(preset("hand_and_foot"), seed=0)
    while DRAW_STOCK not in hf.legal_actions():
        hf.apply(hf.legal_actions()[0])
    seat = hf.to_move
    last = next(c for c in hf.stock if c != RED_THREE)
    hf.stock[:] = [last]
    before = (list(hf.hands[seat]), hf.red3[seat])
    hf.apply(DRAW_STOCK)
    assert not hf.hand_over  # the player goes on with the one card drawn
    assert _drawn(hf, seat, *before) == f"{CLASS_NAMES[last]} (the stock ran out)"


def test_help_says_where_zip_checkpoints_load():
    """``--policy``'s help names .zip paths exactly when the command has the .zip loader
    (``canasta-play`` is ``python -m training.play``, which imports training)."""
    def help_text(module):
        r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return " ".join(r.stdout.split())

    assert "a .onnx path (.zip checkpoints: through python -m training.play)" in \
        help_text("canasta_env.bots.play")
    assert "a .onnx or .zip path" in help_text("training.play")
    assert "a .onnx or .zip path" in help_text("training.serve")
