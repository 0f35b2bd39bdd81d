"""Going out (docs/RULES.md §2.11), asking partner (§2.12) and concealed going out (§2.13,
including the score sheet's rule: 200 in all, not 100 + 200)."""

from canasta_env.engine import Phase, to_position
from tests.helpers.engine import build, legal_names, meld, play

S1 = "5 5 5 6 6 6 7 7 7 8 8"  # 65 points
S2 = "8 8 9 9 9 10 10 10 J J J"  # 110 points
S3 = "10 J 5 6 7 9 9 9 A A A"  # 125 points


def melding(hand0: str, melds0=None, options=None, **kw):
    melds0 = {"K": meld(7)} if melds0 is None else melds0
    return build(hands=(hand0, S1, S2, S3), melds=(melds0, {}), pile="J", phase="MELD",
                 turn=kw.pop("turn", {"drew_stock": True}), options=options, **kw)


def test_go_out_by_discarding_the_last_card():
    g = melding("Q Q Q 5")
    assert legal_names(g) == ["meld Q: 3 naturals", "ask partner: may I go out?",
                              "discard 5", "discard Q"]
    play(g, "meld Q: 3 naturals", "discard 5")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0 and g.concealed is False
    assert g.to_move is None and g.legal_actions() == []
    assert g.sheets[0].as_dict() == {
        "table": 70 + 30, "canasta_bonus": 500, "red_threes": 0, "going_out": 100,
        "hand_penalty": -110, "hand_score": 590, "previous": 0, "total": 590}
    assert g.sheets[1].as_dict() == {
        "table": 0, "canasta_bonus": 0, "red_threes": 0, "going_out": 0,
        "hand_penalty": -(65 + 125), "hand_score": -190, "previous": 0, "total": -190}
    assert to_position(g)["pile"][-1] == "5"


def test_go_out_by_melding_every_card_without_discard():
    g = melding("Q Q Q")
    play(g, "meld Q: 3 naturals")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0
    assert g.sheets[0].going_out == 100


def test_going_out_requires_a_canasta():
    # K meld of 6: melding the Qs would leave the 5 alone; discarding it would empty
    # the hand, which a partnership without a canasta may never do
    g = melding("Q Q Q 5", {"K": meld(6)})
    assert legal_names(g) == ["discard 5", "discard Q"]
    g = melding("Q Q Q", {"K": meld(6)})
    assert legal_names(g) == ["discard Q"]


def test_player_who_cannot_go_out_keeps_two_cards_before_discarding():
    g = melding("Q Q Q 5 9", {"K": meld(6)})
    play(g, "meld Q: 3 naturals")
    assert legal_names(g) == ["discard 5", "discard 9"]
    play(g, "discard 9")
    assert to_position(g)["hands"][0] == ["5"] and g.current == 1
    # with two cards a player may discard one (one remains)
    g = melding("5 9", {"K": meld(6)})
    assert legal_names(g) == ["discard 5", "discard 9"]


def test_ask_partner_moves_the_decision_to_the_partner():
    g = melding("Q Q Q 5")
    play(g, "ask partner: may I go out?")
    assert g.phase == Phase.ANSWER and g.to_move == 2 and g.current == 0
    assert legal_names(g) == ["answer yes", "answer no"]
    assert "ask partner" not in " ".join(legal_names(g))


def test_partner_says_yes_the_player_must_go_out():
    g = melding("Q Q Q 5")
    play(g, "ask partner: may I go out?", "answer yes")
    assert g.phase == Phase.MELD and g.to_move == 0
    assert legal_names(g) == ["meld Q: 3 naturals"]  # no discard that keeps cards
    play(g, "meld Q: 3 naturals")
    assert legal_names(g) == ["discard 5"]
    play(g, "discard 5")
    assert g.went_out == 0


def test_partner_says_no_the_player_may_not_go_out_this_turn():
    g = melding("Q Q Q 5")
    play(g, "ask partner: may I go out?", "answer no")
    assert legal_names(g) == ["discard 5", "discard Q"]
    play(g, "discard 5")
    assert g.hand_over is False and g.current == 1


def test_asking_after_melding_down_to_one_card_is_not_offered():
    # the Classic example (a K canasta, hand Q Q Q + one card): once the Qs are
    # melded a "no" would leave the one-card hand nothing legal, so asking is no longer
    # offered -- the partner's answer is never forced (docs/RULES.md §2.12)
    g = melding("Q Q Q 5")
    play(g, "meld Q: 3 naturals")
    assert legal_names(g) == ["discard 5"]
    g = melding("Q Q Q 9")
    play(g, "ask partner: may I go out?")
    assert legal_names(g) == ["answer yes", "answer no"]


def test_ask_partner_required_option():
    g = melding("Q Q Q 5", options={"ask_partner_required": True})
    # melding the Qs first would need a yes that could then no longer be asked for (a no
    # would strand the one-card hand): the player asks first
    assert legal_names(g) == ["ask partner: may I go out?", "discard 5", "discard Q"]
    play(g, "ask partner: may I go out?")
    assert legal_names(g) == ["answer yes", "answer no"]
    play(g, "answer yes", "meld Q: 3 naturals", "discard 5")
    assert g.went_out == 0
    g = melding("Q Q Q 5", options={"ask_partner_required": True})
    play(g, "ask partner: may I go out?", "answer no")
    assert legal_names(g) == ["discard 5", "discard Q"]
    g = melding("Q Q Q", options={"ask_partner_required": True})
    assert legal_names(g) == ["ask partner: may I go out?", "discard Q"]


def test_ask_partner_required_black_threes_wait_for_the_yes():
    # engine bug found by this test: melding black 3s before asking used to leave the
    # player with no legal action (black 3s commit to going out, which needed a yes
    # that could no longer be asked for)
    g = melding("b3 b3 b3 5", options={"ask_partner_required": True})
    assert legal_names(g) == ["ask partner: may I go out?", "discard black 3", "discard 5"]
    play(g, "ask partner: may I go out?", "answer yes")
    assert legal_names(g) == ["meld black 3s"]
    play(g, "meld black 3s", "discard 5")
    assert g.went_out == 0
    assert (g.sheets[0].table, g.sheets[0].going_out) == (85, 100)


def test_concealed_going_out_from_stock_needs_no_minimum_and_scores_200():
    # partnership A unopened (minimum 50); seven 4s are only 35 points
    g = build(hands=("4 4 4 4 4 4 4", S1, S2, S3), pile="J", stock_top="9")
    play(g, "draw from stock")
    assert g.minimum[0] == 50
    assert legal_names(g) == ["meld 4: 3 naturals", "ask partner: may I go out?",
                              "discard 4", "discard 9"]
    play(g, "meld 4: 3 naturals")
    # committed: only the moves that still lead out (asking no more: a no would strand
    # the unopened partnership below its minimum)
    assert legal_names(g) == ["add natural to 4 meld"]
    play(g, *["add natural to 4 meld"] * 4)
    assert legal_names(g) == ["discard 9"]
    play(g, "discard 9")
    assert g.went_out == 0 and g.concealed is True
    assert g.sheets[0].as_dict() == {
        "table": 35, "canasta_bonus": 500, "red_threes": 0, "going_out": 200,
        "hand_penalty": -110, "hand_score": 625, "previous": 0, "total": 625}


def test_concealed_after_taking_the_pile_still_needs_the_minimum():
    # taking the 4 with a pair would allow melding all seven 4s and discarding the 9,
    # but 35 < 50 and the pile was taken: not offered
    g = build(hands=("4 4 4 4 4 4 9", S1, S2, S3), pile="8 4")
    assert legal_names(g) == ["draw from stock"]
    # with enough points (A A + top A = 60) a pile opening can go out concealed
    g = build(hands=("A A A A A A 9", S1, S2, "Q Q 5 6 7 9 9 9 K K K"), pile="A")
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.MELD and g.opened == [True, False]
    play(g, *["add natural to A meld"] * 4)
    assert to_position(g)["melds"][0] == {"A": meld(7)}
    assert legal_names(g) == ["discard 9"]
    play(g, "discard 9")
    assert g.went_out == 0 and g.concealed is True
    assert (g.sheets[0].table, g.sheets[0].canasta_bonus, g.sheets[0].going_out) == \
        (140, 500, 200)


def test_concealed_with_partner_melds_on_the_table():
    # the partner has melded; this player lays nothing earlier and goes out with a new
    # canasta without touching the partner's melds: concealed, 200
    g = melding("Q Q Q Q Q Q Q 9", {"K": meld(3)}, seat_melded=[False, False, True, False])
    play(g, "meld Q: 3 naturals", *["add natural to Q meld"] * 4, "discard 9")
    assert g.concealed is True and g.sheets[0].going_out == 200
    assert (g.sheets[0].table, g.sheets[0].canasta_bonus) == (100, 500)


def test_not_concealed_when_adding_to_partners_meld():
    g = melding("Q Q Q Q Q Q Q K", {"K": meld(3)}, seat_melded=[False, False, True, False])
    play(g, "meld Q: 3 naturals", *["add natural to Q meld"] * 4, "add natural to K meld")
    assert g.went_out == 0 and g.concealed is False and g.sheets[0].going_out == 100


def test_not_concealed_when_the_canasta_was_the_partners():
    # completing the partner's K canasta is not a canasta made from the concealed play
    g = melding("K Q Q Q 9", {"K": meld(6)}, seat_melded=[False, False, True, False])
    play(g, "add natural to K meld", "meld Q: 3 naturals", "discard 9")
    assert g.concealed is False and g.sheets[0].going_out == 100


def test_not_concealed_when_the_player_melded_earlier():
    g = melding("Q Q Q Q Q Q Q 9", {"K": meld(3)}, seat_melded=[True, False, True, False])
    play(g, "meld Q: 3 naturals", *["add natural to Q meld"] * 4, "discard 9")
    assert g.concealed is False and g.sheets[0].going_out == 100


def test_going_out_by_taking_a_one_card_pile_with_the_last_pair():
    # engine bug found by random play: the take melded the last two cards but the hand
    # did not end, leaving the player with no legal action
    g = build(hands=("A A", S1, S2, "Q Q 5 6 7 9 9 9 K K K"), melds=({"4": meld(7)}, {}),
              pile="A")
    assert legal_names(g) == ["draw from stock", "take pile with a natural pair"]
    play(g, "take pile with a natural pair")
    assert g.phase == Phase.HAND_OVER and g.went_out == 0 and g.concealed is False
    assert to_position(g)["melds"][0] == {"4": meld(7), "A": meld(3)}
    assert (g.sheets[0].table, g.sheets[0].canasta_bonus, g.sheets[0].going_out) == \
        (60 + 35, 500, 100)
    # with the one-card restriction lifted: a single K taken onto the K meld, then the
    # last card is melded too
    g = build(hands=("K", S1, S2, S3), melds=({"4": meld(7), "K": meld(3)}, {}), pile="K",
              options={"one_card_pile_restriction": False})
    play(g, "take pile onto our meld")
    assert legal_names(g) == ["add natural to K meld", "discard K"]
    play(g, "add natural to K meld")
    assert g.went_out == 0 and g.hand_over and to_position(g)["melds"][0]["K"] == meld(5)
