"""Meld rules (docs/RULES.md §2.3, §2.4, §2.6): at least 2 naturals, at most 3 wild cards,
one meld per rank per partnership, never onto the opponents' melds, no all-wild melds,
black 3s only when going out, canastas natural / mixed."""

from canasta_env.engine import Phase, actions, classic, score_partnership, to_position
from canasta_env.engine.cards import KING, NAME_TO_CLASS, NUM_CLASSES, QUEEN
from tests.helpers.engine import build, cards, legal_names, meld, play

OTHERS = ("4 4 4 5 5 5 6 6 6 7 7", "8 8 8 9 9 9 10 10 10 J J", "Q A A A 4 4 5 6 7 8 8")


def melding(hand0: str, melds0: dict, melds1=None, **kw):
    """Seat 0 (partnership A, opened) in phase MELD after a stock draw."""
    return build(hands=(hand0,) + OTHERS, melds=(melds0, melds1 or {"Q": meld(3)}),
                 pile="9", phase="MELD", turn={"drew_stock": True}, **kw)


def test_start_and_add_melds_with_naturals_and_wilds():
    g = melding("K K Q Q Q Joker 2 2 2 5 9", {"K": meld(3)})
    assert legal_names(g) == [
        "meld Q: 3 naturals", "meld Q: 2 naturals + Joker", "meld Q: 2 naturals + 2",
        "add natural to K meld", "add Joker to K meld", "add 2 to K meld",
        "discard Joker", "discard 2", "discard 5", "discard 9", "discard Q", "discard K"]
    # no meld of 5 or 9 (single cards), no meld of wild cards alone: the table has no
    # such action, and nothing wild-only is ever offered
    assert not any(n.startswith(("meld 5", "meld 9", "meld Joker", "meld 2")) for n in
                   legal_names(g))


def test_a_meld_needs_two_naturals():
    # one K with two wild cards: no way to start a K meld
    g = melding("K Joker 2 5 6 8 9 10 J A 7", {"4": meld(3)})
    assert not any(n.startswith("meld K") for n in legal_names(g))
    assert "add Joker to 4 meld" in legal_names(g)


def test_at_most_three_wilds_per_meld():
    g = melding("K Joker 2 6 7 b3 b3 b3 5 9 8", {"K": meld(4, 2, 1)})
    assert legal_names(g) == [
        "add natural to K meld", "discard Joker", "discard 2", "discard black 3",
        "discard 5", "discard 6", "discard 7", "discard 8", "discard 9", "discard K"]
    g = melding("Joker 2 6 7 5 9 8 A", {"K": meld(4, 1, 1)})
    play(g, "add Joker to K meld")
    assert to_position(g)["melds"][0]["K"] == meld(4, 2, 1)
    assert "add 2 to K meld" not in legal_names(g)
    assert "add Joker to K meld" not in legal_names(g)


def test_one_meld_per_rank_more_cards_join_it():
    g = melding("K K K 5 6 7 9 10 J A 8", {"K": meld(3)})
    names = legal_names(g)
    assert not any(n.startswith("meld K") for n in names)
    play(g, "add natural to K meld", "add natural to K meld", "add natural to K meld")
    assert to_position(g)["melds"][0] == {"K": meld(6)}


def test_never_add_to_the_opponents_melds():
    # partnership B has a Q meld; seat 0 holds one Q: it cannot join B's meld
    g = melding("Q 5 6 7 9 10 J A 8 4 K", {"K": meld(3)})
    assert not any("Q" in n and "discard" not in n for n in legal_names(g))
    # with three Qs, partnership A starts its own Q meld
    g = melding("Q Q Q 5 6 7 9 10 J A 8", {"K": meld(3)})
    play(g, "meld Q: 3 naturals")
    pos = to_position(g)
    assert pos["melds"][0] == {"K": meld(3), "Q": meld(3)}
    assert pos["melds"][1] == {"Q": meld(3)}


def test_partner_adds_to_the_partnerships_melds():
    # seat 2 (partner of seat 0) adds to partnership A's K meld
    g = build(hands=OTHERS[1:2] + ("5 5", "K K 4 6 7 9 10 J A 8 5", "Q Q 6 7"),
              melds=({"K": meld(3)}, {"Q": meld(3)}), pile="9", phase="MELD", current=2,
              turn={"drew_stock": True})
    play(g, "add natural to K meld", "add natural to K meld")
    assert to_position(g)["melds"][0]["K"] == meld(5)


def test_black_threes_only_when_going_out():
    cases = [
        # (hand, partnership A melds, 'meld black 3s' legal?)
        ("b3 b3 b3 Q Q Q 5", {"K": meld(7)}, True),  # Q meld, 3 black 3s, discard 5: out
        ("b3 b3 b3 Q Q Q 5 9", {"K": meld(7)}, False),  # 5 and 9 would be left
        ("b3 b3 b3 Q Q Q 5", {"K": meld(6)}, False),  # no canasta: cannot go out
        ("b3 b3 Q Q Q 5", {"K": meld(7)}, False),  # only two black 3s
        ("b3 b3 b3 b3 5", {"K": meld(7)}, True),  # four black 3s
        ("b3 b3 b3 K 6", {"K": meld(6)}, True),  # the canasta is completed this turn
    ]
    for hand, m, ok in cases:
        g = melding(hand, m)
        assert ("meld black 3s" in legal_names(g)) is ok, hand


def test_black_three_meld_commits_to_going_out_and_scores():
    g = melding("b3 b3 b3 K 6", {"K": meld(6)})
    play(g, "meld black 3s")
    assert g.must_out is True
    # holding K and 6 the player may not discard: the black 3s commit to going out
    assert legal_names(g) == ["add natural to K meld"]
    play(g, "add natural to K meld")
    assert legal_names(g) == ["discard 6"]
    play(g, "discard 6")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0 and g.concealed is False
    a = g.sheets[0].as_dict()
    assert a == {"table": 70 + 15, "canasta_bonus": 500, "red_threes": 0, "going_out": 100,
                 "hand_penalty": -110, "hand_score": 575, "previous": 0, "total": 575}
    assert g.sheets[1].as_dict() == {
        "table": 30, "canasta_bonus": 0, "red_threes": 0, "going_out": 0,
        "hand_penalty": -(55 + 115), "hand_score": 30 - 170,
        "previous": 0, "total": -140}


def _sheet(melds: dict[str, tuple[int, int, int]]):
    nat = [0] * NUM_CLASSES
    jok = [0] * NUM_CLASSES
    two = [0] * NUM_CLASSES
    for name, (n, j, t) in melds.items():
        r = NAME_TO_CLASS[name]
        nat[r], jok[r], two[r] = n, j, t
    return score_partnership(classic(), nat, jok, two, 0, True, 0, [], 0)


def test_canasta_bonuses_natural_and_mixed():
    s = _sheet({"K": (7, 0, 0)})
    assert (s.table, s.canasta_bonus) == (70, 500)
    s = _sheet({"K": (8, 0, 0)})  # melds have no maximum size
    assert (s.table, s.canasta_bonus) == (80, 500)
    s = _sheet({"K": (5, 1, 1)})
    assert (s.table, s.canasta_bonus) == (50 + 50 + 20, 300)
    s = _sheet({"K": (4, 1, 2)})
    assert (s.table, s.canasta_bonus) == (40 + 50 + 40, 300)
    s = _sheet({"K": (6, 0, 0)})  # six naturals: an incomplete meld, no bonus
    assert (s.table, s.canasta_bonus) == (60, 0)
    s = _sheet({"K": (4, 1, 1)})
    assert (s.table, s.canasta_bonus) == (40 + 70, 0)
    # several canastas of different ranks, each bonus once
    s = _sheet({"K": (7, 0, 0), "A": (5, 0, 2), "4": (3, 0, 0)})
    assert (s.table, s.canasta_bonus) == (70 + 100 + 40 + 15, 800)


def test_wild_added_to_a_natural_canasta_makes_it_mixed():
    g = melding("2 9", {"K": meld(7)})
    assert g.canastas(0) == 1
    assert _sheet({"K": (7, 0, 0)}).canasta_bonus == 500
    play(g, "add 2 to K meld")
    assert to_position(g)["melds"][0]["K"] == meld(7, 0, 1)
    play(g, "discard 9")
    assert g.went_out == 0
    # scored as it stands at the end: mixed
    assert (g.sheets[0].table, g.sheets[0].canasta_bonus) == (90, 300)


def test_canasta_completed_counts_for_going_out_in_the_same_turn():
    g = melding("K 9", {"K": meld(6)})
    assert legal_names(g) == ["add natural to K meld", "ask partner: may I go out?",
                              "discard 9", "discard K"]
    play(g, "add natural to K meld")
    assert g.canastas(0) == 1
    assert legal_names(g) == ["discard 9"]
    play(g, "discard 9")
    assert g.went_out == 0 and g.sheets[0].canasta_bonus == 500
    # one K short of a canasta: adding the K would leave a single card that cannot go
    g = melding("K 9", {"K": meld(5)})
    assert legal_names(g) == ["discard 9", "discard K"]


def test_meld_ranks_constants():
    assert actions.start_meld(KING, 0) == actions.parse("meld K: 3 naturals")
    assert actions.add_to_meld(QUEEN, 2) == actions.parse("add 2 to Q meld")
    assert cards("b3 r3") == ["black 3", "red 3"]
