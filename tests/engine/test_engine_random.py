"""Random-play invariants over thousands of seeded hands, JSON round trips at random
points, and a seeded random game to 5,000 (docs/RULES.md §2; §6 masks; §7 positions)."""

import random

from canasta_env.engine import SHEET_ROWS, Game, Phase, actions, to_position
from canasta_env.engine.cards import (
    BLACK_THREE,
    CARD_POINTS,
    JOKER,
    MELD_RANKS,
    NUM_CLASSES,
    RED_THREE,
    TWO,
    deck_counts,
)
from tests.helpers.engine import random_hand, total_cards

PACK = deck_counts(2, 4)
N_HANDS = 2000


def expected_sheets(g: Game):
    """Score sheets recomputed from the final state, independently of the engine."""
    out = []
    for team in (0, 1):
        nat, jok, two = g.nat[team], g.jok[team], g.two[team]
        table = bonus = 0
        for r in range(NUM_CLASSES):
            if nat[r]:
                w = jok[r] + two[r]
                table += nat[r] * CARD_POINTS[r] + 50 * jok[r] + 20 * two[r]
                if nat[r] + w >= 7:
                    bonus += 300 if w else 500
        n3 = g.red3[team] + g.red3[team + 2]
        r3 = 800 if n3 == 4 else 100 * n3
        if not any(nat):
            r3 = -r3
        out_bonus = 0
        if g.went_out is not None and g.went_out % 2 == team:
            out_bonus = 200 if g.concealed else 100
        pen = -sum(g.hands[s][c] * CARD_POINTS[c] for s in (team, team + 2)
                   for c in range(NUM_CLASSES))
        out.append((table, bonus, r3, out_bonus, pen))
    return out


def check_melds(g: Game) -> None:
    for t in (0, 1):
        for r in range(NUM_CLASSES):
            n, w = g.nat[t][r], g.jok[t][r] + g.two[t][r]
            if n:
                assert n >= 2 and w <= 3 and n + w >= 3
                assert r in MELD_RANKS or (r == BLACK_THREE and w == 0)
            else:
                assert w == 0
        if any(g.nat[t]) and not g.opened[t]:
            # only an opening under way in the current turn
            assert not g.hand_over and t == g.current % 2 and g.laid
            assert g.turn_points < g.minimum[t]


def check_position(g: Game, action: int | None = None) -> None:
    assert total_cards(g) == PACK
    hands = g.hands
    assert not (hands[0][RED_THREE] or hands[1][RED_THREE] or hands[2][RED_THREE]
                or hands[3][RED_THREE])
    assert min(min(h) for h in hands) >= 0
    pile = g.pile
    if JOKER in pile or TWO in pile or RED_THREE in pile:
        assert g.pile_frozen
    if action is None or actions.TAKE_PAIR <= action < actions.ASK_PARTNER:
        check_melds(g)  # the melds changed
    if not g.hand_over:
        legal = g.legal_actions()
        assert legal, "no legal action while the hand runs"
        assert legal == sorted(set(legal))
        assert 0 <= legal[0] and legal[-1] < actions.NUM_ACTIONS
        if g.phase == Phase.DRAW:
            assert sum(hands[g.current]) >= 1
            assert legal[-1] <= actions.DECLINE_PILE
            if any(actions.TAKE_PAIR <= a <= actions.TAKE_ONTO_MELD for a in legal):
                assert pile[-1] in MELD_RANKS
        elif g.phase == Phase.ANSWER:
            assert g.to_move == (g.current + 2) % 4
            assert set(legal) <= {actions.ANSWER_YES, actions.ANSWER_NO}


def check_hand_end(g: Game) -> None:
    check_melds(g)
    assert g.hand_over and g.legal_actions() == [] and g.to_move is None
    sheets = g.sheets
    for team, s in enumerate(sheets):
        d = s.as_dict()
        assert list(d) == list(SHEET_ROWS)
        assert d["hand_score"] == d["table"] + d["canasta_bonus"] + d["red_threes"] + \
            d["going_out"] + d["hand_penalty"]
        assert d["total"] == d["previous"] + d["hand_score"]
        assert g.scores[team] == d["total"]
        assert d["canasta_bonus"] % 100 == 0 and d["hand_penalty"] <= 0
    assert [(s.table, s.canasta_bonus, s.red_threes, s.going_out, s.hand_penalty)
            for s in sheets] == expected_sheets(g)
    if g.went_out is not None:
        assert sum(g.hands[g.went_out]) == 0
        assert g.canastas(g.went_out % 2) >= 1
        assert g.nat[1 - g.went_out % 2][BLACK_THREE] == 0
    else:
        assert g.nat[0][BLACK_THREE] == 0 and g.nat[1][BLACK_THREE] == 0
        # ended by the stock: empty stock (declined, or red 3 as last card)
        assert g.stock == []


def apply_every_legal(g: Game) -> None:
    pos = to_position(g)
    for a in g.legal_actions():
        c = g.clone()
        c.apply(a)
        assert total_cards(c) == PACK
        if not c.hand_over:
            assert c.legal_actions()
    assert to_position(g) == pos  # cloning left the original alone


def test_random_hands_invariants():
    decisions = ended_out = ended_stock = concealed = pickups = asks = 0
    for seed in range(N_HANDS):
        g = Game(seed=seed)
        rng = random.Random(seed)
        check_position(g)
        step = 0
        while not g.hand_over:
            legal = g.legal_actions()
            if step % 16 == 0 and seed % 16 == 0:
                apply_every_legal(g)
            a = rng.choice(legal)
            asks += a == actions.ASK_PARTNER
            g.apply(a)
            pickups += g.phase == Phase.PICKUP
            step += 1
            check_position(g, a)
        decisions += step
        check_hand_end(g)
        if g.went_out is None:
            ended_stock += 1
        else:
            ended_out += 1
            concealed += g.concealed
    # the sweep reaches the interesting parts of the rules
    assert decisions > 100_000
    assert ended_out > 100 and ended_stock > 100
    assert pickups > 0 and asks > 0


def test_same_seed_replays_the_same_hand():
    for seed in range(0, 2000, 20):
        finals = []
        for _ in range(2):
            g = Game(seed=seed)
            random_hand(g, random.Random(seed * 7 + 1))
            finals.append(to_position(g))
        assert finals[0] == finals[1]
    assert to_position(Game(seed=5)) != to_position(Game(seed=6))


def test_json_round_trips_at_random_points():
    rng = random.Random(99)
    checked = 0
    for seed in range(200):
        g = Game(seed=10_000 + seed)
        stops = {rng.randrange(200) for _ in range(3)}
        step = 0
        while not g.hand_over:
            if step in stops:
                text = g.to_json()
                h = Game.from_json(text)
                assert to_position(h) == to_position(g)
                assert h.legal_actions() == g.legal_actions()
                assert h.phase == g.phase and h.to_move == g.to_move
                checked += 1
                # both copies continue identically
                r1, r2 = random.Random(step), random.Random(step)
                a, b = g.clone(), h
                for _ in range(25):
                    if a.hand_over:
                        break
                    a.apply(r1.choice(a.legal_actions()))
                    b.apply(r2.choice(b.legal_actions()))
                assert to_position(a) == to_position(b)
            g.apply(rng.choice(g.legal_actions()))
            step += 1
        # the finished hand round-trips too
        h = Game.from_json(g.to_json(indent=1))
        assert to_position(h) == to_position(g) and h.legal_actions() == []
    assert checked > 350


def play_game(seed: int):
    g = Game(seed=seed)
    rng = random.Random(seed)
    dealers = [g.dealer]
    while True:
        random_hand(g, rng, check=None)
        check_hand_end(g)
        if g.game_over:
            break
        g.next_hand()
        dealers.append(g.dealer)
        assert g.current == (g.dealer + 1) % 4
        assert g.minimum == [g.options.opening_minimum(s) for s in g.scores]
    return g, dealers


def test_seeded_random_game_to_5000_is_deterministic():
    for seed in (1, 2, 3):
        g, dealers = play_game(seed)
        assert g.phase == Phase.GAME_OVER and max(g.scores) >= 5000
        a, b = g.scores
        assert g.winner == (0 if a > b else 1 if b > a else -1)
        assert len(g.history) == g.hand_number + 1
        # the deal passes clockwise
        assert all(d2 == (d1 + 1) % 4 for d1, d2 in zip(dealers, dealers[1:]))
        # totals are the sums of the hand scores
        for team in (0, 1):
            assert sum(h["sheets"][team]["hand_score"] for h in g.history) == g.scores[team]
        g2, _ = play_game(seed)
        assert g2.scores == g.scores and g2.winner == g.winner
        assert to_position(g2) == to_position(g)
