"""One backend interface (issue 33 item 4): the env plays both backends through
:class:`canasta_env.backend.GameBackend`, and an illegal action is refused with the same
sentence (the engine's :func:`~canasta_env.engine.legality.refusal`) on both."""

from __future__ import annotations

import inspect
import random

import numpy as np
import pytest

import canasta_env
from canasta_env.backend import GameBackend, PythonGame
from canasta_env.engine import Game, IllegalActionError, to_position
from canasta_env.engine.options import preset
from canasta_env.native import available

GAMES = [PythonGame]
if available:
    from canasta_env.native import NativeGame, VectorGames

    GAMES.append(NativeGame)

MEMBERS = [n for n in dir(GameBackend) if not n.startswith("_")] + ["options", "log", "history"]


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.__name__)
def test_both_backends_satisfy_the_interface(cls):
    g = cls.from_position(to_position(Game(preset("hand_and_foot"), seed=3)))
    assert isinstance(g, GameBackend)
    for name in MEMBERS:
        assert hasattr(g, name), name
    for name, _fn in inspect.getmembers(GameBackend, inspect.isfunction):
        if not name.startswith("_"):
            assert callable(getattr(g, name)), name
    assert g.action_mask().dtype == np.int8 and g.action_mask().shape == (g.num_actions,)
    assert g.encode(0).dtype == np.float32 and g.encode(0).shape == (g.obs_size,)


@pytest.mark.parametrize("variant", ["classic", "hand_and_foot"])
def test_an_illegal_action_is_refused_in_the_same_words_on_both_backends(variant):
    rng = random.Random(1)
    base = Game(preset(variant), seed=7)
    checked = 0
    for _ in range(300):
        if base.hand_over:
            break
        pos = to_position(base)
        games = [cls.from_position(pos) for cls in GAMES]
        illegal = [a for a in range(base.num_actions) if a not in base.legal_actions()]
        a = rng.choice(illegal)
        messages = []
        for g in games:
            with pytest.raises(IllegalActionError) as e:
                g.apply(a)
            messages.append(str(e.value))
        assert len(set(messages)) == 1, messages
        assert f"illegal action {a} (" in messages[0] and ": " in messages[0]
        checked += 1
        base.apply(rng.choice(base.legal_actions()))
    assert checked > 20


@pytest.mark.skipif(not available, reason="the compiled core is not built")
def test_the_batch_refuses_with_the_same_words_and_changes_nothing():
    vg = VectorGames(2, preset("classic"), seed=0)
    before = vg.observations.copy()
    mask = vg.masks[1]
    a = int(np.flatnonzero(mask == 0)[0])
    g = Game.__new__(Game)
    pos = vg.position(1)
    with pytest.raises(IllegalActionError) as e:
        vg.step(np.array([int(np.flatnonzero(vg.masks[0])[0]), a]))
    from canasta_env.engine import from_position
    from canasta_env.engine.legality import refusal

    g = from_position(pos)
    assert str(e.value) == f"game 1: {refusal(g, a)}; no game was changed"
    np.testing.assert_array_equal(vg.observations, before)


@pytest.mark.parametrize("backend", ["native", "python"] if available else ["python"])
def test_env_game_is_a_snapshot_on_native_and_live_on_python(backend):
    e = canasta_env.raw_env(backend=backend)
    e.reset(seed=2)
    kept = e.game
    first = to_position(kept)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    if backend == "python":
        assert kept is e.game and to_position(kept) != first
    else:
        assert to_position(kept) == first  # the snapshot it was read at
        assert to_position(e.game) == e.position() != first
