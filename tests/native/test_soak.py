"""The soak (python -m canasta_env.soak): a short run holds every invariant, and a
broken invariant stops the run with exit 1 and the game's position."""

from __future__ import annotations

import json

import pytest

from canasta_env import soak
from canasta_env.engine.game import from_position


def test_short_soak_holds_every_invariant(capsys):
    assert soak.main(["--decisions", "60000", "--games", "32", "--seed", "3", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["decisions"] >= 59_000 and res["exceptions"] == res["invariant_breaks"] == 0
    assert res["by_variant"]["classic"] > 0 and res["by_variant"]["hand_and_foot"] > 0
    assert res["hands"] > 0 and res["card_checks"] > 0
    assert res["mask_checks"] >= res["decisions"]


def test_a_break_exits_1_with_the_position(monkeypatch, capsys):
    monkeypatch.setattr(soak, "deck_counts", lambda decks, jokers: [0] * 15)  # a wrong pack
    assert soak.main(["--decisions", "5000", "--games", "8", "--json"]) == 1
    lines = capsys.readouterr().out.splitlines()
    res = json.loads(lines[0])
    assert res["invariant_breaks"] == 1 and "differ from the pack" in res["break"]
    from_position(json.loads(lines[1]))  # a loadable position


def test_card_counts_of_a_fresh_game_are_the_pack():
    from canasta_env.engine import Game, preset
    from canasta_env.engine.cards import deck_counts

    for variant in ("classic", "hand_and_foot"):
        o = preset(variant)
        assert soak.card_counts(Game(o, seed=1)) == deck_counts(o.decks, o.jokers)


def test_bad_options_exit_2():
    with pytest.raises(SystemExit) as e:
        soak.main(["--decisions", "0"])
    assert e.value.code == 2
