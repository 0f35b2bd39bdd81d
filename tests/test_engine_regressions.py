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
