"""Deal (docs/RULES.md §2.2, from the deal sheet: shuffle and deal, red 3s in the initial
hands): 108 cards, 11 each dealt one at a time clockwise from the dealer's left, the
upcard, the frozen start, red 3s in the initial hands, first player, dealer rotation."""

import random

import pytest

from canasta_env.engine import Game, Phase, to_position
from canasta_env.engine import game as G
from canasta_env.engine.cards import NAME_TO_CLASS, deck_counts
from tests.helpers.engine import cards, total_cards


def rig_shuffle(monkeypatch, deal_order: list[str]) -> None:
    """Make the engine's shuffle produce a stock whose cards come off the top in
    ``deal_order`` (the remaining pack cards follow in class order)."""
    pack = deck_counts(2, 4)
    want = [NAME_TO_CLASS[n] for n in deal_order]
    left = list(pack)
    for c in want:
        left[c] -= 1
        assert left[c] >= 0
    rest = [c for c in range(len(pack)) for _ in range(left[c])]
    order = want + rest  # first drawn first
    real = random.Random

    class Rigged(real):
        def shuffle(self, x):
            assert sorted(x) == sorted(order)
            x[:] = list(reversed(order))  # top of the stock = last element

    monkeypatch.setattr(G.random, "Random", Rigged)


def interleave(hands_in_deal_order):
    """Cards in dealing order when the k-th hand listed gets every 4th card."""
    seq = []
    for i in range(11):
        for h in hands_in_deal_order:
            seq.append(cards(h)[i])
    return seq


def test_deal_one_at_a_time_clockwise_from_dealers_left(monkeypatch):
    # dealer 2: seat 3 receives the first card, then 0, 1, 2, 3, 0, ...
    h3 = "A A A A A A A A K K K"
    h0 = "4 4 4 4 4 4 4 4 5 5 5"
    h1 = "6 6 6 6 6 6 6 6 7 7 7"
    h2 = "8 8 8 8 8 8 8 8 9 9 9"
    rig_shuffle(monkeypatch, interleave([h3, h0, h1, h2]) + ["Q"])
    g = Game(seed=5, dealer=2)
    pos = to_position(g)
    assert pos["hands"][3] == cards("K K K A A A A A A A A")
    assert pos["hands"][0] == cards("4 4 4 4 4 4 4 4 5 5 5")
    assert pos["hands"][1] == cards("6 6 6 6 6 6 6 6 7 7 7")
    assert pos["hands"][2] == cards("8 8 8 8 8 8 8 8 9 9 9")
    assert pos["pile"] == ["Q"]
    assert pos["pile_frozen"] is False
    assert len(pos["stock"]) == 108 - 44 - 1 == 63
    # the player left of the dealer starts, by drawing
    assert g.current == 3 and g.to_move == 3 and g.phase == Phase.DRAW
    assert g.legal_actions() == [0]


@pytest.mark.parametrize("upcards,frozen", [
    (["Joker", "Q"], True),
    (["red 3", "7"], True),
    (["2", "red 3", "Joker", "black 3"], True),
    (["black 3"], False),
    (["K"], False),
])
def test_upcard_wild_or_red3_turns_more_cards_and_freezes(monkeypatch, upcards, frozen):
    hands = ["4 4 4 4 4 4 4 4 5 5 5", "6 6 6 6 6 6 6 6 7 7 7",
             "8 8 8 8 8 8 8 8 9 9 9", "10 10 10 10 10 10 10 10 J J J"]
    rig_shuffle(monkeypatch, interleave(hands) + upcards)
    g = Game(seed=5, dealer=3)
    pos = to_position(g)
    assert pos["pile"] == upcards
    assert pos["pile_frozen"] is frozen
    assert g.pile_frozen_for(0) is True  # unopened partnerships face a frozen pile anyway
    assert pos["red_threes"] == [0, 0, 0, 0]  # red 3 upcards belong to the pile
    assert len(pos["stock"]) == 108 - 44 - len(upcards)
    assert total_cards(g) == deck_counts(2, 4)


def test_red_threes_in_initial_hands_are_exposed_and_replaced_repeatedly(monkeypatch):
    # dealer 0: deal order seats 1, 2, 3, 0.  Seat 1 holds two red 3s, seat 0 one.
    h1 = "r3 r3 4 4 4 4 4 5 5 5 5"
    h2 = "6 6 6 6 6 6 6 6 7 7 7"
    h3 = "8 8 8 8 8 8 8 8 9 9 9"
    h0 = "r3 10 10 10 10 10 10 10 10 J J"
    # upcard K, then the replacements in drawing order: seat 1 draws red 3 (exposed,
    # replaced by Q), then A for its second red 3; seat 0 draws the last red 3, then
    # Joker.
    rig_shuffle(monkeypatch, interleave([h1, h2, h3, h0]) + cards("K r3 Q A Joker"))
    g = Game(seed=5, dealer=0)
    pos = to_position(g)
    assert pos["red_threes"] == [1, 3, 0, 0]
    assert pos["hands"][1] == cards("4 4 4 4 4 5 5 5 5 Q A")
    assert pos["hands"][0] == cards("Joker 10 10 10 10 10 10 10 10 J J")
    assert pos["hands"][2] == cards(h2)
    assert pos["pile"] == ["K"] and pos["pile_frozen"] is False
    assert all(len(h) == 11 for h in pos["hands"])
    assert all("red 3" not in h for h in pos["hands"])
    assert len(pos["stock"]) == 108 - 44 - 1 - 4
    assert g.current == 1


@pytest.mark.parametrize("seed", range(40))
def test_seeded_deals_are_valid(seed):
    g = Game(seed=seed)
    pos = to_position(g)
    assert all(len(h) == 11 for h in pos["hands"])
    assert all("red 3" not in h for h in pos["hands"])
    top = pos["pile"][-1]
    assert top not in ("Joker", "2", "red 3")
    assert all(c in ("Joker", "2", "red 3") for c in pos["pile"][:-1])
    assert pos["pile_frozen"] is (len(pos["pile"]) > 1)
    assert len(pos["stock"]) == 108 - 44 - len(pos["pile"]) - sum(pos["red_threes"])
    assert g.current == (g.dealer + 1) % 4
    assert pos["minimum"] == [50, 50] and pos["opened"] == [False, False]
    # same seed, same deal
    assert to_position(Game(seed=seed)) == pos


def test_random_first_dealer_is_seeded_and_covers_all_seats():
    dealers = {Game(seed=s).dealer for s in range(60)}
    assert dealers == {0, 1, 2, 3}
    assert Game(seed=3).dealer == Game(seed=3).dealer


def test_different_seeds_give_different_deals():
    assert to_position(Game(seed=1, dealer=0))["hands"] != \
        to_position(Game(seed=2, dealer=0))["hands"]


def test_game_constructor_validates_arguments():
    with pytest.raises(ValueError, match="dealer must be a seat"):
        Game(seed=1, dealer=4)
    with pytest.raises(ValueError, match="seed must be an int"):
        Game(seed="x")
    with pytest.raises(ValueError, match="scores must be two ints"):
        Game(seed=1, scores=(1,))

