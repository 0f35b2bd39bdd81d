"""Every Hand and Foot number is a rules option (docs/RULES.md §3, §4): the preset's
values, Classic defaults that switch each rule off, validation, and random play without
dead ends under option combinations (Bicycle / pagat alternatives, rules mixed into
Classic)."""

import random

import pytest

from canasta_env.engine import Game, OptionsError, RulesOptions, actions, classic, preset
from canasta_env.engine.cards import deck_counts
from tests.helpers.hand_and_foot import total_cards

#: Hand and Foot rules (docs/RULES.md §3) -> option values of the preset
ROWS = {
    "decks": dict(decks=5, jokers=10),
    "hand / foot": dict(hand_size=11, foot_size=11),
    "rounds": dict(rounds=4),
    "opening minimum": dict(round_minimums=(60, 90, 120, 150)),
    "draw": dict(draw_count=2),
    "melds": dict(max_meld_size=7, canasta_size=7),
    "wild cards in a meld": dict(wilds_at_most_half_naturals=True),
    "wild-card melds": dict(wild_melds=True, wild_book_bonus=1500),
    "books": dict(natural_canasta_bonus=500, mixed_canasta_bonus=300),
    "red 3s": dict(red_three_bonus=100, red_three_negative_unmelded=False,
                   red_three_hand_penalty=100),
    "black 3s": dict(black_three_melds=True, black_three_meld_max=4),
    "taking the pile": dict(pile_pair_only=True, pile_wild_pair=True, pile_take_limit=7),
    "going out": dict(clean_books_to_go_out=2, dirty_books_to_go_out=2,
                      ask_partner_required=True),
    "going-out bonus": dict(going_out_bonus=100),
}


@pytest.mark.parametrize("row", list(ROWS))
def test_preset_values_per_row(row):
    hf = preset("hand_and_foot")
    for k, v in ROWS[row].items():
        assert getattr(hf, k) == v, (row, k)


def test_classic_defaults_switch_the_hand_and_foot_rules_off():
    c = classic()
    assert (c.foot_size, c.rounds, c.round_minimums, c.draw_count, c.max_meld_size) == \
        (0, 0, (), 1, 0)
    assert not (c.wilds_at_most_half_naturals or c.wild_melds or c.pile_pair_only
                or c.pile_wild_pair or c.exact_melds)
    assert (c.pile_take_limit, c.clean_books_to_go_out, c.dirty_books_to_go_out,
            c.red_three_hand_penalty) == (0, 0, 0, 0)
    assert c.red_three_negative_unmelded and c.black_three_melds
    assert actions.table(c) is actions.CLASSIC and actions.num_actions(c) == 91
    assert RulesOptions.from_dict(preset("hand_and_foot").to_dict()) == preset("hand_and_foot")


@pytest.mark.parametrize("changes,match", [
    (dict(foot_size=2), "foot_size"),
    (dict(hand_size=40, foot_size=30), "does not fit a pack"),
    (dict(rounds=-1), "rounds"),
    (dict(round_minimums=(60, -1)), "round_minimums"),
    # a dict iterates as its keys: {} was taken as no minimums (the service's schema says
    # an array: schemathesis found POST /games accepting it)
    (dict(round_minimums={}), "round_minimums must be a sequence of ints, got {}"),
    (dict(round_minimums={60: 1}), "round_minimums must be a sequence"),
    (dict(draw_count=0), "draw_count"),
    (dict(max_meld_size=3), "max_meld_size"),
    (dict(canasta_size=8), "exceeds max_meld_size"),
    (dict(pile_take_limit=-1), "pile_take_limit"),
    (dict(wild_melds=False), "pile_wild_pair needs wild_melds"),
    (dict(wild_melds="yes"), "must be a bool"),
])
def test_bad_options_raise(changes, match):
    with pytest.raises(OptionsError, match=match):
        preset("hand_and_foot", **changes)


COMBOS = [
    ("hand_and_foot", dict(hand_size=13, foot_size=13)),  # pagat's 13 + 13
    ("hand_and_foot", dict(clean_books_to_go_out=1, dirty_books_to_go_out=1)),  # Bicycle
    ("hand_and_foot", dict(draw_count=1, pile_take_limit=0, pile_wild_pair=False)),
    ("hand_and_foot", dict(wilds_at_most_half_naturals=False)),
    ("hand_and_foot", dict(ask_partner_required=False, black_three_melds=False)),
    ("hand_and_foot", dict(max_meld_size=0)),  # melds without a maximum
    ("hand_and_foot", dict(pile_pair_only=False)),
    ("classic", dict(wilds_at_most_half_naturals=True)),
    ("classic", dict(max_meld_size=7)),
    ("classic", dict(foot_size=11, decks=3)),
]


@pytest.mark.parametrize("variant,changes", COMBOS)
def test_random_play_without_dead_ends_under_option_combinations(variant, changes):
    o = preset(variant, **changes)
    pack = deck_counts(o.decks, o.jokers)
    outs = 0
    for seed in range(12):
        g = Game(o, seed=seed)
        rng = random.Random(seed)
        while not g.hand_over:
            legal = g.legal_actions()
            assert legal, g.to_json()
            if rng.random() < 0.1:
                for a in legal:
                    c = g.clone()
                    c.apply(a)
                    assert c.hand_over or c.legal_actions(), (g.to_json(), a)
                if o.foot_size:
                    assert total_cards(g) == pack
            melds = [a for a in legal if not actions.DISCARD <= a < actions.NUM_ACTIONS]
            g.apply(rng.choice(melds if melds and rng.random() < 0.7 else legal))
        outs += g.went_out is not None
    assert outs > 0
