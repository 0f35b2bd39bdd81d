"""Style parameters of the heuristic and the ``style:<name>`` policy spec: validation
(exact messages), the shared ranges, the STYLES table, the loader's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import canasta_env.native
from canasta_env.bots import PolicySpecError, load_policy
from canasta_env.policies import HeuristicPolicy
from canasta_env.policies.styles import (
    DEFAULTS,
    LIMIT,
    STYLE_PARAMS,
    STYLES,
    check_style,
    check_style_param,
    style_policy,
)

NATIVE = canasta_env.native.available
needs_native = pytest.mark.skipif(not NATIVE, reason="the native core is not built")


def test_defaults_are_inside_their_ranges_and_typed():
    for name, p in STYLE_PARAMS.items():
        assert p.kind in ("int", "float"), name
        assert p.low <= p.default <= p.high, name
        assert isinstance(p.default, int if p.kind == "int" else float), name
        assert -LIMIT <= p.low and p.high <= LIMIT, name
    assert check_style({}) == DEFAULTS


def test_every_style_names_known_parameters_within_range_and_a_description():
    assert len(STYLES) >= 6
    assert {"fast_opener", "pile_hoarder", "freezer", "canasta_builder", "fast_go_out",
            "defensive"} <= set(STYLES)
    seen = set()
    for name, s in STYLES.items():
        assert s.values and "\n" not in s.values, name
        style = {k: v for k, v in s.params.items() if k in STYLE_PARAMS}
        assert set(s.params) - set(style) <= {"stop_stock", "start_meld_hand"}, name
        check_style(style)  # in range
        pol = style_policy(name, backend="python")
        assert pol.name == f"style:{name}"
        key = (tuple(sorted(pol.style.items())), pol.stop_stock, pol.start_meld_hand)
        assert key not in seen, f"{name} repeats another style's parameters"
        seen.add(key)
        assert key != (tuple(sorted(DEFAULTS.items())), 8, 12), f"{name} is the heuristic"


@pytest.mark.parametrize("name,value,message", [
    ("keep_cards", 1, "HeuristicPolicy: keep_cards must be an int in 2..1,000, got 1"),
    ("keep_cards", 2.0, "HeuristicPolicy: keep_cards must be an int in 2..1,000, got 2.0"),
    ("freeze_pile", True, "HeuristicPolicy: freeze_pile must be an int in 0..1,000, got True"),
    ("out_margin", 1_000_001,
     "HeuristicPolicy: out_margin must be an int in -1,000,000..1,000,000, got 1000001"),
    ("danger_weight", -1.0,
     "HeuristicPolicy: danger_weight must be a finite number in 0..1,000,000, got -1.0"),
    ("value_weight", math.nan,
     "HeuristicPolicy: value_weight must be a finite number in -1,000,000..1,000,000, got nan"),
    ("keep_pair", math.inf,
     "HeuristicPolicy: keep_pair must be a finite number in -1,000,000..1,000,000, got inf"),
    ("keep_pair", "40",
     "HeuristicPolicy: keep_pair must be a finite number in -1,000,000..1,000,000, got '40'"),
])
def test_bad_style_parameter_values_name_the_parameter(name, value, message):
    for backend in ("python", "auto"):
        with pytest.raises(ValueError) as e:
            HeuristicPolicy(backend=backend, **{name: value})
        assert str(e.value) == message


def test_unknown_style_parameter_lists_the_known_ones():
    with pytest.raises(ValueError) as e:
        HeuristicPolicy(freeze=3)
    assert str(e.value) == ("HeuristicPolicy: unknown style parameter 'freeze'; known: "
                            + ", ".join(STYLE_PARAMS))


def test_values_are_stored_as_their_kind():
    pol = HeuristicPolicy(backend="python", danger_weight=600, take_wild_pile=np.int64(2),
                          keep_pair=np.float32(12.5))
    assert pol.danger_weight == 600.0 and type(pol.danger_weight) is float
    assert pol.take_wild_pile == 2 and type(pol.take_wild_pile) is int
    assert pol.keep_pair == 12.5 and pol.style["keep_pair"] == 12.5
    assert check_style_param("wild_slack", np.int32(3)) == 3
    with pytest.raises(ValueError, match="wild_slack must be an int"):
        check_style_param("wild_slack", np.float64(3.0))


@needs_native
def test_native_checks_every_style_value_before_copying_it():
    from canasta_env.native._core import NativeHeuristic

    h = NativeHeuristic(freeze_pile=4, danger_weight=10)
    assert h.style == {**DEFAULTS, "freeze_pile": 4, "danger_weight": 10.0}
    with pytest.raises(ValueError) as e:
        NativeHeuristic(close_hand=-1)
    assert str(e.value) == "NativeHeuristic: close_hand must be an int in 0..1,000, got -1"
    with pytest.raises(ValueError) as e:
        NativeHeuristic(nope=1)
    assert str(e.value).startswith("NativeHeuristic: unknown style parameter 'nope'; known: ")
    # a bad value after good ones: nothing of the new style is kept by a failed __setstate__
    with pytest.raises(ValueError, match="keep_triple must be a finite number"):
        h.__setstate__({"wild_slack": 5, "keep_triple": math.nan})
    assert h.style["wild_slack"] == 0
    assert HeuristicPolicy(out_margin=-LIMIT, danger_weight=float(LIMIT)).backend == "native"


def test_style_spec_loads_the_style():
    pol = load_policy("style:freezer")
    assert isinstance(pol, HeuristicPolicy) and pol.name == "style:freezer"
    assert pol.freeze_pile == STYLES["freezer"].params["freeze_pile"]
    assert load_policy(" Style:Defensive ", variant="classic").name == "style:defensive"


def test_style_spec_errors():
    with pytest.raises(PolicySpecError) as e:
        load_policy("style:nope")
    assert str(e.value) == ("unknown style 'nope' in policy 'style:nope'; known styles: "
                            + ", ".join(STYLES))
    with pytest.raises(PolicySpecError) as e:
        load_policy("style:", variant="classic")
    assert "unknown style '' in policy 'style:'; known styles: fast_opener" in str(e.value)
    with pytest.raises(PolicySpecError) as e:
        load_policy("style:freezer", variant="hand_and_foot")
    assert str(e.value) == ("policy 'style:freezer': styles play Classic only; Hand and Foot "
                            "has no heuristic styles (use 'heuristic')")
    with pytest.raises(KeyError, match="unknown style 'nope'; known: fast_opener"):
        style_policy("nope")


def test_style_parameters_leave_hand_and_foot_play_unchanged():
    from canasta_env.engine import Game, preset
    from canasta_env.observation import encode

    pols = [HeuristicPolicy(backend="python")] + [style_policy(n, backend="python")
                                                  for n in STYLES]
    g = Game(preset("hand_and_foot"), seed=3)
    n = 0
    while not g.hand_over and n < 150:
        legal = g.legal_actions()
        obs = encode(g, g.to_move)
        mask = np.zeros(g.num_actions, dtype=np.int8)
        mask[legal] = 1
        acts = {p.act(obs, mask) for p in pols}
        assert len(acts) == 1
        g.apply(acts.pop())
        n += 1
    assert n == 150


def test_differ_shares_counts_the_styles_own_decisions():
    from canasta_env.policies.styles import differ_shares, main

    got = differ_shares(2, seed=7, names=["fast_go_out", "freezer"])
    assert set(got) == {"fast_go_out", "freezer"}
    for s in got.values():
        assert s["decisions"] > 40 and s["share"] == s["differ"] / s["decisions"]
    # measured: fast_go_out 12 of 53 decisions, freezer 4 of 109
    assert got["fast_go_out"]["share"] > 0.1 and got["freezer"]["differ"] > 0
    with pytest.raises(ValueError, match="hands must be a positive int, got 0"):
        differ_shares(0)
    with pytest.raises(SystemExit):
        main(["--hands", "0"])


@pytest.mark.parametrize("name, value, low", [
    ("stop_stock", "x", 0), ("stop_stock", True, 0), ("stop_stock", -5, 0),
    ("max_wilds_per_meld", -1, 0), ("canasta_size", 0, 1), ("canastas_to_go_out", -1, 0),
    ("start_meld_hand", 2.0, 0)])
def test_the_rules_options_and_the_plain_knobs_are_checked_too(name, value, low):
    """Not only the style parameters: a stop_stock of 'x' failed mid-hand with a
    TypeError, a canasta_size of 0 was taken."""
    with pytest.raises(ValueError, match=rf"HeuristicPolicy: {name} must be an int >= {low}, "
                                         rf"got {value!r}"):
        HeuristicPolicy(**{name: value}, backend="python")


def test_a_core_older_than_the_python_code_falls_back_with_the_reason(monkeypatch):
    """A compiled core built before a new parameter existed raised a bare TypeError from
    every heuristic; ``auto`` takes the Python code, ``native`` says to rebuild."""
    core = pytest.importorskip("canasta_env.native._core")

    class Old:
        def __init__(self, cap, size, needed, stop_stock, start_meld_hand, pack):
            pass

    monkeypatch.setattr(core, "NativeHeuristic", Old)
    assert HeuristicPolicy().backend == "python"
    with pytest.raises(ValueError, match=r"older than this code .*pip install -e \."):
        HeuristicPolicy(backend="native")
