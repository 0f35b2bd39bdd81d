"""Rules options (docs/RULES.md §2 and §4; bad options get a clear error at construction,
docs/RULES.md §7): defaults from the sources, presets, validation."""

import pytest

from canasta_env.engine import Game, OptionsError, RulesOptions, classic, preset


def test_classic_defaults_match_the_spec():
    o = classic()
    assert (o.decks, o.jokers, o.hand_size, o.target_score) == (2, 4, 11, 5000)
    assert o.opening_minimums == ((-(10**9), 15), (0, 50), (1500, 90), (3000, 120))
    assert (o.max_wilds_per_meld, o.canasta_size) == (3, 7)
    assert (o.natural_canasta_bonus, o.mixed_canasta_bonus) == (500, 300)
    assert (o.red_three_bonus, o.red_three_all_bonus) == (100, 800)
    assert (o.going_out_bonus, o.concealed_going_out_bonus) == (100, 200)
    assert o.canastas_to_go_out == 1
    assert o.black_three_freezes is False  # pagat; Bicycle is the option
    assert o.red_three_last_card_may_meld is False  # pagat
    assert o.one_card_pile_restriction is True  # Hoyle
    assert o.ask_partner_required is False  # asking is optional
    assert preset("classic") == o
    assert RulesOptions.from_dict(o.to_dict()) == o


def test_changed_options_and_levels():
    o = preset("classic", black_three_freezes=True, target_score=3000)
    assert o.black_three_freezes is True and o.target_score == 3000
    assert [o.opening_level(s) for s in (-5, 0, 1495, 1500, 2995, 3000)] == [0, 1, 1, 2, 2, 3]


@pytest.mark.parametrize("changes,message", [
    ({"decks": 0}, "decks must be in 1..8, got 0"),
    ({"hand_size": 40}, "hand_size 40 does not fit a pack of 108 cards"),
    ({"target_score": 0}, "target_score must be in 1..100,000,000, got 0"),
    ({"black_three_freezes": 1}, "option black_three_freezes must be a bool, got 1"),
    ({"jokers": "4"}, "option jokers must be an int, got '4'"),
    ({"opening_minimums": ((0, 50), (0, 90))}, "opening_minimums must be non-empty and ascending"),
    ({"canasta_size": 2}, "canasta_size must be in 3..20, got 2"),
    ({"colour": "red"}, "unknown rules option(s) ['colour']"),
])
def test_bad_options_raise_clear_errors(changes, message):
    with pytest.raises(OptionsError) as e:
        classic(**changes)
    assert message in str(e.value)


def test_unknown_variant():
    with pytest.raises(OptionsError, match="unknown variant 'poker'"):
        preset("poker")


def test_game_uses_the_options():
    g = Game(classic(target_score=3000), seed=4)
    assert g.options.target_score == 3000
