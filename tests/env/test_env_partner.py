"""Asking partner (docs/RULES.md §2.12: in the environment the partner's answer is a real
decision of the partner's agent): after ASK_PARTNER the partner is the agent on turn with
only yes / no, and the answer binds the asker."""

from __future__ import annotations

import random

import numpy as np
import pytest

import canasta_env
from canasta_env import AGENTS
from canasta_env.engine import actions as A
from canasta_env.engine import to_position
from canasta_env.engine.cards import FIVE, KING
from tests.helpers.engine import build, meld

pytestmark = pytest.mark.both_backends  # the module runs on the native and the Python backend


def _mask(raw, agent) -> set[int]:
    return set(np.flatnonzero(raw.observe(agent)["action_mask"]).tolist())


def _ask_position(**options):
    """Seat 0 has drawn and holds K K K 5; partnership A has a canasta of Qs."""
    g = build(hands=("K K K 5", "4 4 9 9 9 6", "8 10 J", "5 6 7"),
              melds=({"Q": meld(7)}, {"8": meld(3)}), opened=(True, True), pile="7 J",
              current=0, phase="MELD", turn={"drew_stock": True}, options=options or None)
    raw = canasta_env.raw_env()
    raw.reset(options={"position": to_position(g)})
    return raw


def _ask(raw):
    assert raw.agent_selection == "player_0"
    assert A.ASK_PARTNER in _mask(raw, "player_0")
    raw.step(A.ASK_PARTNER)
    assert raw.agent_selection == "player_2"
    assert raw.infos["player_2"]["phase"] == "ANSWER"
    for other in ("player_0", "player_1", "player_3"):
        assert _mask(raw, other) == set()


def test_partner_answers_yes_and_the_asker_must_go_out():
    raw = _ask_position()
    meld_k, discard_5 = A.start_meld(KING, 0), A.discard(FIVE)
    assert {meld_k, discard_5} <= _mask(raw, "player_0")  # going out is optional so far
    _ask(raw)
    assert _mask(raw, "player_2") == {A.ANSWER_YES, A.ANSWER_NO}
    raw.step(A.ANSWER_YES)
    assert raw.agent_selection == "player_0"
    mask = _mask(raw, "player_0")
    assert meld_k in mask and discard_5 not in mask  # must go out: no ordinary discard
    assert A.ASK_PARTNER not in mask
    raw.step(meld_k)
    assert _mask(raw, "player_0") == {discard_5}
    raw.step(discard_5)
    assert all(raw.terminations.values())
    assert raw.game.went_out == 0
    sheets = raw.infos["player_0"]["score_sheets"]
    assert sheets[0]["going_out"] == 100 and sheets[1]["going_out"] == 0


def test_partner_answers_no_and_the_asker_may_not_go_out():
    raw = _ask_position()
    _ask(raw)
    raw.step(A.ANSWER_NO)
    assert raw.agent_selection == "player_0"
    mask = _mask(raw, "player_0")
    # melding the three kings would leave one card: going out is now forbidden
    assert A.start_meld(KING, 0) not in mask and A.ASK_PARTNER not in mask
    assert mask == {A.discard(FIVE), A.discard(KING)}
    raw.step(A.discard(FIVE))
    assert raw.agent_selection == "player_1" and not any(raw.terminations.values())


def test_the_partner_may_always_answer_no():
    # with asking required, melding the kings first would leave one card that only a
    # yes could play, and a "no" would strand it: that meld is not offered before
    # asking, and the partner's answer is a free choice (docs/RULES.md §2.12)
    raw = _ask_position(ask_partner_required=True)
    mask = _mask(raw, "player_0")
    assert A.start_meld(KING, 0) not in mask and A.ASK_PARTNER in mask
    assert mask == {A.ASK_PARTNER, A.discard(FIVE), A.discard(KING)}
    _ask(raw)
    assert _mask(raw, "player_2") == {A.ANSWER_YES, A.ANSWER_NO}


def test_asking_in_random_play_hands_the_turn_to_the_partner():
    """Random hands whose players ask whenever the mask allows it."""
    raw = canasta_env.raw_env()
    asks = answers = 0
    for seed in range(60):
        raw.reset(seed=seed)
        rng = random.Random(seed)
        while not all(raw.terminations.values()):
            agent = raw.agent_selection
            mask = _mask(raw, agent)
            if A.ASK_PARTNER in mask:
                seat = AGENTS.index(agent)
                raw.step(A.ASK_PARTNER)
                asks += 1
                partner = AGENTS[(seat + 2) % 4]
                assert raw.agent_selection == partner
                answer_mask = _mask(raw, partner)
                assert answer_mask == {A.ANSWER_YES, A.ANSWER_NO}  # always a free choice
                assert all(not _mask(raw, a) for a in AGENTS if a != partner)
                answer = rng.choice(sorted(answer_mask))
                raw.step(answer)
                answers += 1
                assert raw.agent_selection == agent
                assert A.ASK_PARTNER not in _mask(raw, agent)
                if answer == A.ANSWER_YES:  # the hand ends with this player going out
                    while not all(raw.terminations.values()):
                        assert raw.agent_selection == agent
                        raw.step(rng.choice(sorted(_mask(raw, agent))))
                    assert raw.game.went_out == seat
                continue
            raw.step(rng.choice(sorted(mask)))
    assert asks == answers >= 30
