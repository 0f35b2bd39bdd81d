"""Bots and terminal play in Hand and Foot: canasta_env.bots.Bot plays Hand and Foot
positions with the 98-action table; ``python -m canasta_env.bots.play --variant
hand_and_foot`` plays a hand against the heuristic bots."""

from __future__ import annotations

import json
import subprocess
import sys

from canasta_env.bots import Bot
from canasta_env.bots.play import play
from canasta_env.engine import Game, preset, to_position
from tests.helpers.opponent import ROOT


def test_bot_plays_hand_and_foot_positions():
    bot = Bot("heuristic")
    game = Game(preset("hand_and_foot"), seed=4)
    pos = to_position(game)
    choice = bot.choose(pos, game.to_move)
    assert choice["description"] == game.table.describe(choice["action"])
    for _ in range(60):  # whole turns from positions, past the end of the hand if need be
        if game.hand_over:
            break
        new, moves = bot.play_turn(to_position(game), game.to_move)
        assert moves and all(m["description"] == game.table.describe(m["action"])
                             for m in moves)
        game = Game.from_json(json.dumps(new))
    assert game.decisions > 60


def test_play_a_hand_and_foot_game_in_process():
    out: list[str] = []
    answers = iter(["1"] * 20000)
    assert play(2, Bot("heuristic"), 8, True, read=lambda p: next(answers), out=out.append,
                variant="hand_and_foot") == 0
    text = "\n".join(out)
    assert text.startswith("Hand and Foot: you are seat 2")
    assert "Hand and Foot round 1 of 4" in text and "+ foot of" in text
    assert text.count(" is over.") == 4 and "Game over: " in text


def test_cli_variant_option():
    r = subprocess.run([sys.executable, "-m", "canasta_env.bots.play", "--variant", "hand_and_foot",
                        "--seed", "3"], input="take pile with a wild pair\nquit\n", cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Hand and Foot: you are seat 0" in r.stdout and "Stopped. Bye." in r.stdout
    assert "'take pile with a wild pair' is not legal now" in r.stdout


def test_service_plays_hand_and_foot_with_four_bots_and_describes_its_moves(tmp_path):
    from fastapi.testclient import TestClient

    from canasta_env.bots.service import create_app

    client = TestClient(create_app(policy="heuristic", db=str(tmp_path / "games.sqlite3")))
    r = client.post("/games", json={"seats": ["bot"] * 4, "variant": "hand_and_foot", "seed": 3})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    view = client.get(f"/games/{game_id}").json()  # the moves are public
    descriptions = [m["description"] for m in view["moves"]]
    assert len(descriptions) > 20
    # Hand and Foot draws two cards; its own moves are described from its own table
    assert "draw from stock" in descriptions


def test_repr_shows_the_variant_a_bot_was_made_for():
    """Two bots of one name for two variants play different policies; repr tells them apart."""
    assert repr(Bot("heuristic")) == "Bot('heuristic')"
    assert repr(Bot("hard", variant="hand_and_foot")) == "Bot('hard', variant='hand_and_foot')"
    assert repr(Bot("hard", variant=preset("classic"))) == "Bot('hard', variant='classic')"
