"""Regression tests for engine bugs found after the rules suites were written."""

from canasta_env.engine.cards import FIVE, KING, QUEEN
from canasta_env.engine.feasibility import can_go_out


def test_an_existing_canasta_is_not_counted_twice_toward_going_out():
    # The partnership has one canasta (7 Kings) and needs two (canastas_to_go_out=2).
    # Discarding the last card (a 5) adds no canasta, so going out is impossible.
    hand = [0] * 15
    hand[FIVE] = 1
    nat = [0] * 15
    wild = [0] * 15
    nat[KING] = 7
    nat[QUEEN] = 3
    assert can_go_out(hand, nat, wild, 3, 7, 1, 2, 0) is False
    # With four more Queens in hand the Queens become the second canasta: possible.
    hand[QUEEN] = 4
    assert can_go_out(hand, nat, wild, 3, 7, 1, 2, 0) is True
    # With one canasta needed, the existing one suffices.
    hand[QUEEN] = 0
    assert can_go_out(hand, nat, wild, 3, 7, 1, 1, 0) is True


def test_playing_a_card_uses_up_known_cards_whatever_is_hidden():
    """A seat holding 1 known J (taken with the pile) and 1 hidden J discards a J: the
    others cannot tell which one went, so the known count drops to 0 - exactly as when
    the seat held only the known J. (Clamping known to the real hand leaked it.)"""
    import copy
    import random

    from canasta_env.engine import Game, actions, from_position, to_position
    from canasta_env.engine.cards import CLASS_NAMES
    from canasta_env.engine.game import Phase
    from canasta_env.observation import decode, encode

    found = None
    for seed in range(400):
        g = Game(seed=seed)
        rng = random.Random(seed)
        while not g.hand_over and found is None:
            s = g.current
            if g.phase == Phase.MELD and g.to_move == s:
                for c in range(15):
                    if (g.known[s][c] == 1 and g.hands[s][c] == 2
                            and actions.DISCARD_ACTION.get(c) in g.legal_actions()):
                        found = c
                        break
            if found is None:
                g.apply(rng.choice(g.legal_actions()))
        if found is not None:
            break
    assert found is not None
    s, c, name = g.current, found, CLASS_NAMES[found]
    p = to_position(g)
    q = copy.deepcopy(p)  # move the hidden copy to the next seat, swapping a non-c card back
    other = (s + 1) % 4
    swap = next(x for x in q["hands"][other] if x != name and x not in q["known"][other])
    q["hands"][s].remove(name)
    q["hands"][s].append(swap)
    q["hands"][other].remove(swap)
    q["hands"][other].append(name)
    g1, g2 = from_position(p), from_position(q)
    observer = (s + 2) % 4
    assert (encode(g1, observer) == encode(g2, observer)).all()
    g1.apply(actions.discard(c))
    g2.apply(actions.discard(c))
    assert g1.known[s][c] == 0 and g2.known[s][c] == 0
    assert (decode(encode(g1, observer))["known_partner"] == 0).all() or \
        (encode(g1, observer) == encode(g2, observer)).all()
    assert (encode(g1, observer) == encode(g2, observer)).all()


def _position():
    from canasta_env.engine import Game, to_position

    return to_position(Game(seed=11))


def test_malformed_json_types_are_position_errors():
    import json

    import pytest

    from canasta_env.engine import PositionError, from_position

    cases = {
        "stock": [["J"]],
        "decisions": None,
        "log": "abc",
        "history": [None],
        "went_out": 1.5,
        "winner": "nobody",
        "scores": [10**400, 0],
        "concealed": "no",
    }
    for key, value in cases.items():
        pos = json.loads(json.dumps(_position()))
        pos[key] = value
        with pytest.raises(PositionError):
            from_position(pos)


def test_hand_edited_turn_records_that_dead_end_one_move_later_are_refused():
    import pytest

    from canasta_env.engine import PositionError, from_position

    pos = _position()
    pos["turn"]["must_out"] = True  # a fresh turn that "must go out": drawing would dead-end
    with pytest.raises(PositionError, match="phase DRAW needs an empty turn record"):
        from_position(pos)
    pos = _position()
    pos["phase"] = "ANSWER"  # a partner asked to answer although nobody could go out
    with pytest.raises(PositionError, match="no legal action"):
        from_position(pos)


def test_five_black_threes_after_a_yes_meld_four_and_discard_the_fifth():
    # dead ends found by the differential checker (tests/data): a player with 5 black 3s
    # (3+ decks) was told "yes" and then had no legal action; black-3 melds hold at most
    # black_three_meld_max cards, the fifth is the going-out discard (docs/RULES.md §2.6)
    import json
    from pathlib import Path

    from canasta_env.engine import actions as A
    from canasta_env.engine import from_position

    for name in ("python_dead_end_black_threes.json",
                 "python_dead_end_black_threes_hand_and_foot.json"):
        g = from_position(json.loads((Path(__file__).parents[1] / "data" / name).read_text()))
        seat, team = g.current, g.current % 2
        assert g.hands[seat][2] == 5 and g.legal_actions() == [A.MELD_BLACK_THREES]
        g.apply(A.MELD_BLACK_THREES)
        assert g.nat[team][2] == 4 and g.hands[seat][2] == 1
        while not g.hand_over:  # only moves that still lead out are offered
            legal = g.legal_actions()
            assert legal
            g.apply(legal[-1])
        assert g.went_out == seat


def test_black_three_melds_never_close_into_books():
    # a black-3 meld as large as max_meld_size would close into a "book" of black 3s,
    # which no rule has: such options are refused (found by the differential checker)
    import pytest

    from canasta_env.engine import OptionsError, preset

    with pytest.raises(OptionsError, match="black_three_meld_max 4 must be below "
                                           "max_meld_size 4"):
        preset("classic", max_meld_size=4, canasta_size=4, black_three_meld_max=4,
               canastas_to_go_out=0)
    assert preset("classic", max_meld_size=4, canasta_size=4, black_three_meld_max=3,
                  canastas_to_go_out=0).max_meld_size == 4


def _seven_black_threes(asked: int):
    """Hand and Foot: a seat in its foot, 2 clean + 2 dirty books, holding 7 black 3s and
    a 5 after a stock draw (found by an adversarial review: black 3s could be melded
    twice in one turn, 7 of them closing into a "book" that crashed the observation)."""
    from canasta_env.engine import Game, preset, to_position

    p = to_position(Game(preset("hand_and_foot"), seed=1))
    seat, team, stock = p["current"], p["current"] % 2, p["stock"]
    stock.extend(p["hands"][seat] + p["feet"][seat])
    p["hands"][seat], p["feet"][seat], p["in_foot"][seat] = [], [], True
    for s in range(4):
        for zone in ("hands", "feet"):
            if s != seat:
                n3 = p[zone][s].count("black 3")
                p[zone][s] = [c for c in p[zone][s] if c != "black 3"]
                stock.extend(["black 3"] * n3)
                for _ in range(n3):
                    c = next(c for c in stock if c not in ("black 3", "red 3"))
                    stock.remove(c)
                    p[zone][s].append(c)

    def take(name, n):
        for _ in range(n):
            stock.remove(name)
        return [name] * n

    p["hands"][seat] = take("black 3", 7) + take("5", 1)
    p["known"][seat] = []
    p["books"][team] = []
    for r, n, j, t in (("K", 7, 0, 0), ("Q", 7, 0, 0), ("J", 5, 1, 1), ("10", 5, 1, 1)):
        take(r, n), take("Joker", j), take("2", t)
        p["books"][team].append({"rank": r, "naturals": n, "jokers": j, "twos": t})
    p["opened"][team] = True
    p["phase"] = "MELD"
    p["turn"].update(drew_stock=True, asked=asked)
    return p


def test_black_threes_meld_once_per_going_out():
    import pytest

    from canasta_env.engine import PositionError, from_position
    from canasta_env.engine import actions as A

    g = from_position(_seven_black_threes(asked=0))
    # 7 black 3s: one meld holds at most 4, the rest cannot all go: no going out, so no
    # question to partner and no black-3 meld; the turn goes on with a discard
    legal = g.legal_actions()
    assert A.ASK_PARTNER not in legal and A.MELD_BLACK_THREES not in legal
    assert legal == [A.DISCARD_ACTION[2], A.DISCARD_ACTION[5]]  # discard a black 3 or the 5
    # the same hand told "yes" could not finish the turn: no game reaches it
    with pytest.raises(PositionError, match="no legal action"):
        from_position(_seven_black_threes(asked=1))
