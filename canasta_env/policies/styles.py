"""Playing styles of the rule-based heuristic: named parameterisations of
:class:`canasta_env.policies.HeuristicPolicy` that value different things (Classic).

Two tables, the one place where both backends read them:

- :data:`STYLE_PARAMS`: every style parameter of the heuristic (its default -- today's
  heuristic, bit for bit --, its type and its range, and the decision it changes).
  :class:`~canasta_env.policies.HeuristicPolicy` (Python) and
  :class:`canasta_env.native._core.NativeHeuristic` (the C port, core/heuristic.c) both
  check a value against this table with :func:`check_style_param` before using it or
  copying it into C, so the two accept exactly the same values.
- :data:`STYLES`: style name -> (parameters, one line on what it values). The policy spec
  ``style:<name>`` of :func:`canasta_env.bots.load_policy` is :func:`style_policy`.

Styles change Classic play only: the heuristic's Hand and Foot play has none of these
decision points, so ``style:<name>`` is refused for Hand and Foot (a
:class:`~canasta_env.bots.PolicySpecError`), and a :class:`HeuristicPolicy` with style
parameters plays Hand and Foot exactly as the default heuristic does.

It imports nothing else from the package at import time (the native binding reads it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StyleParam:
    """One style parameter: ``kind`` ``"int"`` or ``"float"``, inclusive range
    ``low..high``, the ``default`` (today's heuristic) and what it changes."""

    kind: str
    low: float
    high: float
    default: Any
    doc: str


#: bound of every style parameter (|x|), so the C arithmetic never overflows
LIMIT = 1_000_000

#: name -> :class:`StyleParam`; the defaults are today's heuristic, bit for bit
STYLE_PARAMS: dict[str, StyleParam] = {
    "take_wild_pile": StyleParam(
        "int", 0, 1000, 3,
        "spend a wild card (natural + wild card from the hand) on taking the discard pile "
        "only when the pile holds at least this many cards"),
    "keep_cards": StyleParam(
        "int", 2, 1000, 2,
        "meld (when not going out) only while at least this many cards stay in hand"),
    "wild_slack": StyleParam(
        "int", 0, 1000, 0,
        "put wild cards on a meld when they bring it within this many cards of a canasta "
        "(0: only when they complete the canasta)"),
    "pair_wild_hand": StyleParam(
        "int", 0, 1000, 8,
        "start a meld of a natural pair and a wild card only with at least this many cards "
        "in hand (and two wild cards)"),
    "out_margin": StyleParam(
        "int", -LIMIT, LIMIT, 0,
        "go out (and answer yes to the partner) on the score estimate only when our side's "
        "estimated lead on this hand exceeds this many points"),
    "close_hand": StyleParam(
        "int", 0, 1000, 3,
        "the opponents are close to going out (then go out when possible) when they have "
        "their canastas and one of them holds at most this many cards"),
    "freeze_pile": StyleParam(
        "int", 0, 1000, 0,
        "with at least this many cards in the discard pile and the pile not frozen for the "
        "opponents, a wild card may be discarded to freeze it (0: never)"),
    "danger_weight": StyleParam(
        "float", 0, LIMIT, 300.0,
        "discard cost per unit of probability that the left-hand opponent can take the "
        "pile with the card (times 1 + pile size / 5)"),
    "keep_pair": StyleParam(
        "float", -LIMIT, LIMIT, 40.0,
        "discard cost of breaking a pair in hand"),
    "keep_triple": StyleParam(
        "float", -LIMIT, LIMIT, 80.0,
        "discard cost of a card of which the hand holds three or more"),
    "keep_melded": StyleParam(
        "float", -LIMIT, LIMIT, 30.0,
        "discard cost of a rank our side has melded"),
    "value_weight": StyleParam(
        "float", -LIMIT, LIMIT, 0.5,
        "discard cost per point of the card's value (negative: shed high cards first)"),
    "freeze_cost": StyleParam(
        "float", -LIMIT, LIMIT, 100.0,
        "discard cost of a wild card (plus its value) while freezing is allowed "
        "(freeze_pile); natural cards cheaper than this go first"),
}

#: the default value of every style parameter
DEFAULTS: dict[str, Any] = {k: p.default for k, p in STYLE_PARAMS.items()}


def check_style_param(name: str, value: Any, owner: str = "HeuristicPolicy") -> int | float:
    """``value`` as the parameter ``name`` holds it (an ``int``, or a ``float`` for a
    float parameter: ints are accepted there and converted).

    Raises:
        ValueError: an unknown parameter name (the message lists the known ones), or a
            value of the wrong type, not finite or outside the range; the message names
            ``owner`` and the parameter.
    """
    spec = STYLE_PARAMS.get(name)
    if spec is None:
        raise ValueError(f"{owner}: unknown style parameter {name!r}; known: "
                         f"{', '.join(STYLE_PARAMS)}")
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if not is_int and type(value).__module__ == "numpy" and hasattr(value, "dtype"):
        is_int = value.dtype.kind in "iu"
        value = value.item() if value.dtype.kind in "iuf" else value
    if spec.kind == "int":
        ok = is_int and spec.low <= value <= spec.high
        if ok:
            return int(value)
        raise ValueError(f"{owner}: {name} must be an int in {spec.low:,}..{spec.high:,}, "
                         f"got {value!r}")
    ok = (is_int or (isinstance(value, float) and math.isfinite(value))) and \
        spec.low <= value <= spec.high
    if ok:
        return float(value)
    raise ValueError(f"{owner}: {name} must be a finite number in {spec.low:,}..{spec.high:,}, "
                     f"got {value!r}")


def check_style(style: dict, owner: str = "HeuristicPolicy") -> dict[str, int | float]:
    """Every style parameter: :data:`DEFAULTS` updated with ``style``'s checked values
    (:func:`check_style_param`). Raises ValueError as it does."""
    out = dict(DEFAULTS)
    for name, value in style.items():
        out[name] = check_style_param(name, value, owner)
    return out


@dataclass(frozen=True)
class Style:
    """A named style: the heuristic's parameters that differ from the default (style
    parameters of :data:`STYLE_PARAMS` and ``stop_stock`` / ``start_meld_hand``) and
    what it values, in one line."""

    params: dict
    values: str


#: style name -> :class:`Style`; ``style:<name>`` plays it (Classic)
STYLES: dict[str, Style] = {
    "fast_opener": Style(
        {"start_meld_hand": 0, "pair_wild_hand": 0, "wild_slack": 4, "take_wild_pile": 1},
        "opening and melding early: starts every meld it can, wild cards onto any meld, "
        "takes even a small pile with a wild card"),
    "pile_hoarder": Style(
        {"start_meld_hand": 1000, "take_wild_pile": 1, "keep_pair": 250.0,
         "keep_triple": 300.0, "danger_weight": 150.0},
        "the discard pile: keeps pairs and triples in hand (starts no meld after opening) "
        "to take the pile, takes it at any size"),
    "freezer": Style(
        {"freeze_pile": 5, "freeze_cost": 60.0, "danger_weight": 450.0},
        "blocking: discards a wild card to freeze a pile of 5 or more cards rather than a "
        "natural the opponents may take it with"),
    "canasta_builder": Style(
        {"out_margin": 700, "stop_stock": 2, "close_hand": 1, "start_meld_hand": 0,
         "wild_slack": 2, "keep_pair": 120.0, "keep_melded": 80.0},
        "canasta bonuses: builds melds toward canastas, holds pairs, does not go out "
        "before it leads by 700 points on the hand"),
    "fast_go_out": Style(
        {"stop_stock": 1000, "out_margin": -LIMIT, "close_hand": 15, "start_meld_hand": 0,
         "wild_slack": 6, "pair_wild_hand": 0, "value_weight": -2.0},
        "ending the hand: goes out as soon as the rules allow, melds small, sheds its "
        "highest cards first"),
    "defensive": Style(
        {"danger_weight": 3000.0, "keep_pair": 0.0, "keep_triple": 0.0, "keep_melded": 0.0,
         "value_weight": 0.0, "close_hand": 5},
        "safe discards: never gives the opponents the pile if any safer card exists, even "
        "breaking its own pairs; goes out early against opponents close to going out"),
}


def style_policy(name: str, backend: str = "auto", **options: Any):
    """The :class:`~canasta_env.policies.HeuristicPolicy` of style ``name`` (rules
    ``options`` as HeuristicPolicy takes them: ``max_wilds_per_meld``, ``decks``...).

    Raises:
        KeyError: an unknown style name (the message lists the known ones).
    """
    if name not in STYLES:
        raise KeyError(f"unknown style {name!r}; known: {', '.join(STYLES)}")
    from . import HeuristicPolicy

    policy = HeuristicPolicy(backend=backend, **{**STYLES[name].params, **options})
    policy.name = f"style:{name}"
    return policy


def differ_shares(hands: int, seed: int = 0, names: list[str] | None = None) -> dict:
    """How often each style decides otherwise than the default heuristic on the positions
    it reaches itself: ``hands`` Classic hands per style (the Python engine, deals
    ``seed``, ``seed + 1``, ...), the style's partnership against the heuristic's
    (seats swapped every other hand); at every decision of the style's seats with two
    legal actions or more, both policies are asked and the style's action is played.

    Returns:
        ``{name: {"decisions": int, "differ": int, "share": float}}`` (share = differ /
        decisions, 0 with no decision).

    Raises:
        ValueError: ``hands`` not a positive int; KeyError: an unknown style name.
    """
    import numpy as np

    from ..engine import Game, preset
    from ..observation import encode
    from . import HeuristicPolicy

    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
        raise ValueError(f"hands must be a positive int, got {hands!r}")
    base = HeuristicPolicy()
    out = {}
    for name in names or list(STYLES):
        pol = style_policy(name)
        decisions = differ = 0
        for h in range(hands):
            g = Game(preset("classic"), seed=seed + h)
            mine = h % 2  # the style's seats: 0 and 2, or 1 and 3
            while not g.hand_over:
                legal = g.legal_actions()
                if len(legal) == 1:
                    g.apply(legal[0])
                    continue
                obs = encode(g, g.to_move)
                mask = np.zeros(g.num_actions, dtype=np.int8)
                mask[legal] = 1
                b = base.act(obs, mask)
                if g.to_move % 2 == mine:
                    a = pol.act(obs, mask)
                    decisions += 1
                    differ += a != b
                    b = a
                g.apply(b)
        out[name] = {"decisions": decisions, "differ": int(differ),
                     "share": differ / decisions if decisions else 0.0}
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m canasta_env.policies.styles [--hands N] [--seed S] [--json]``: the
    styles and, per style, the share of its decisions that differ from the heuristic's
    (:func:`differ_shares`). Returns the exit code (0; a bad option: SystemExit 2)."""
    import argparse
    import json

    p = argparse.ArgumentParser(prog="python -m canasta_env.policies.styles",
                                description="The heuristic's playing styles and how often "
                                            "each decides otherwise than the heuristic.")
    p.add_argument("--hands", type=int, default=20, help="Classic hands per style (20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.hands < 1:
        p.error(f"--hands must be a positive int, got {args.hands}")
    shares = differ_shares(args.hands, args.seed)
    if args.json:
        print(json.dumps({"hands": args.hands, "seed": args.seed, "styles": shares}))
    else:
        for name, s in shares.items():
            print(f"{name:<16} {s['share']:.3f} of {s['decisions']} decisions differ  "
                  f"({STYLES[name].values})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
