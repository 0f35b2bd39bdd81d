"""The options struct of the native core has one source (issue 33 item 5).

Its int and bool fields are the list ``CN_OPTION_INTS`` in ``core/state.h``; the binding
fills them by name from :class:`RulesOptions` through the table that list makes, and
refuses to import when the names differ from RulesOptions' fields. Here: the names agree,
and every field of random valid options reaches the C struct with its value.
"""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from canasta_env.engine.options import OPTION_BOUNDS, OptionsError, RulesOptions, preset
from canasta_env.native import available

pytestmark = pytest.mark.skipif(not available, reason="the compiled core is not built")


def test_the_c_fields_are_exactly_the_rules_options_fields():
    from canasta_env.native._core import _option_fields

    names = [n for n, _ in _option_fields()]
    assert len(names) == len(set(names))
    assert set(names) == {f.name for f in fields(RulesOptions)} - {
        "variant", "opening_minimums", "round_minimums"}


def test_every_option_value_reaches_the_core():
    from canasta_env.native._core import _native_options

    from canasta_env.native import NativeGame

    rng = random.Random(5)
    tried = 0
    for _ in range(400):
        base = preset(rng.choice(["classic", "hand_and_foot"])).to_dict()
        name = rng.choice(sorted(OPTION_BOUNDS))
        lo, hi = OPTION_BOUNDS[name]
        base[name] = rng.randint(lo, min(hi, lo + 40))
        for flag in ("black_three_freezes", "ask_partner_required", "pile_pair_only"):
            base[flag] = rng.random() < 0.5
        try:
            opts = RulesOptions.from_dict(base)
        except OptionsError:
            continue
        got = _native_options(NativeGame(opts, seed=1))
        want = {k: int(v) if isinstance(v, bool) else v for k, v in opts.to_dict().items()
                if k != "variant"}
        want["opening_minimums"] = [tuple(x) for x in want["opening_minimums"]]
        assert got == want, name
        tried += 1
    assert tried > 100
