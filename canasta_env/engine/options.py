"""Rules options: one frozen, validated dataclass; presets per variant.

Every number the rules use lives here with its default and its source, so a variant is
a preset of options and the engine never branches on the variant name.

Sources: ../shared/SPEC.md section 2 (pagat.com Classic Canasta; Hoyle / Bicycle where
noted; seeds/001 and seeds/002).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

VARIANTS = ("classic",)


class OptionsError(ValueError):
    """A rules option has a bad value; the message names the option and why."""


@dataclass(frozen=True)
class RulesOptions:
    """All rules of a Classic Canasta game. Units: cards and points.

    Attributes (default; source):
        variant: preset name ("classic").
        decks: 52-card decks in the pack (2; pagat).
        jokers: jokers in the pack (4; pagat).
        hand_size: cards dealt to each player (11; seeds/001).
        target_score: a game ends after the hand in which a partnership reaches this
            cumulative score (5,000; seeds/002).
        opening_minimums: ((lowest cumulative score, minimum points), ...) ascending;
            ((-inf, 15), (0, 50), (1500, 90), (3000, 120)) as in seeds/001.
        max_wilds_per_meld: wild cards allowed in one meld (3; pagat).
        canasta_size: cards in a canasta (7; pagat).
        natural_canasta_bonus / mixed_canasta_bonus: 500 / 300 (seeds/002).
        red_three_bonus: per red three (100; seeds/002); red_three_all_bonus: all four (800).
        going_out_bonus: 100; concealed_going_out_bonus: 200 in total (seeds/002).
        canastas_to_go_out: canastas a partnership needs before going out (1; pagat).
        black_three_freezes: discarding a black 3 freezes the pile (False: pagat;
            Bicycle says True).
        red_three_last_card_may_meld: a player whose last stock card is a red 3 may still
            meld before the hand ends (False: pagat).
        one_card_pile_restriction: a player holding one card may not take a one-card
            pile (True: Hoyle).
        ask_partner_required: a player must ask partner (and hear yes) before going
            out (False: pagat makes asking optional).
    """

    variant: str = "classic"
    decks: int = 2
    jokers: int = 4
    hand_size: int = 11
    target_score: int = 5000
    opening_minimums: tuple[tuple[int, int], ...] = (
        (-(10**9), 15),
        (0, 50),
        (1500, 90),
        (3000, 120),
    )
    max_wilds_per_meld: int = 3
    canasta_size: int = 7
    natural_canasta_bonus: int = 500
    mixed_canasta_bonus: int = 300
    red_three_bonus: int = 100
    red_three_all_bonus: int = 800
    going_out_bonus: int = 100
    concealed_going_out_bonus: int = 200
    canastas_to_go_out: int = 1
    black_three_freezes: bool = False
    red_three_last_card_may_meld: bool = False
    one_card_pile_restriction: bool = True
    ask_partner_required: bool = False

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise OptionsError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        ints = {f.name for f in fields(self) if f.type in ("int", int)}
        for name in ints:
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise OptionsError(f"option {name} must be an int, got {v!r}")
        for name in ("black_three_freezes", "red_three_last_card_may_meld",
                     "one_card_pile_restriction", "ask_partner_required"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"option {name} must be a bool, got {getattr(self, name)!r}")
        if not 1 <= self.decks <= 8:
            raise OptionsError(f"decks must be in 1..8, got {self.decks}")
        if not 0 <= self.jokers <= 40:
            raise OptionsError(f"jokers must be in 0..40, got {self.jokers}")
        pack = 52 * self.decks + self.jokers
        if not 1 <= self.hand_size or 4 * self.hand_size + 2 > pack:
            raise OptionsError(
                f"hand_size {self.hand_size} does not fit a pack of {pack} cards for 4 players")
        if self.target_score <= 0:
            raise OptionsError(f"target_score must be positive, got {self.target_score}")
        mins = self.opening_minimums
        try:
            mins = tuple((int(lo), int(m)) for lo, m in mins)
        except (TypeError, ValueError):
            raise OptionsError(
                f"opening_minimums must be ((lowest score, minimum), ...), got {mins!r}") from None
        if not mins or any(b[0] <= a[0] for a, b in zip(mins, mins[1:])):
            raise OptionsError(f"opening_minimums must be non-empty and ascending, got {mins!r}")
        if any(m < 0 for _, m in mins):
            raise OptionsError(f"opening minimums must be >= 0, got {mins!r}")
        object.__setattr__(self, "opening_minimums", mins)
        if not 0 <= self.max_wilds_per_meld <= 20:
            raise OptionsError(f"max_wilds_per_meld must be in 0..20, got {self.max_wilds_per_meld}")
        if not 3 <= self.canasta_size <= 20:
            raise OptionsError(f"canasta_size must be in 3..20, got {self.canasta_size}")
        if self.canastas_to_go_out < 0:
            raise OptionsError("canastas_to_go_out must be >= 0")

    def opening_minimum(self, score: int) -> int:
        """Opening minimum (points) for a partnership whose cumulative score before the
        hand is ``score`` (seeds/001 table: <0: 15, 0-1,495: 50, 1,500-2,995: 90,
        3,000+: 120)."""
        need = self.opening_minimums[0][1]
        for lo, m in self.opening_minimums:
            if score >= lo:
                need = m
        return need

    def opening_level(self, score: int) -> int:
        """Index (0-based) of the opening-minimum band that ``score`` falls in."""
        level = 0
        for i, (lo, _) in enumerate(self.opening_minimums):
            if score >= lo:
                level = i
        return level

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["opening_minimums"] = [list(x) for x in self.opening_minimums]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RulesOptions:
        """Build options from a mapping; unknown keys raise :class:`OptionsError`."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise OptionsError(f"unknown rules option(s) {sorted(unknown)}; known: {sorted(known)}")
        d = dict(d)
        if "opening_minimums" in d and d["opening_minimums"] is not None:
            d["opening_minimums"] = tuple(tuple(x) for x in d["opening_minimums"])
        return cls(**d)

    def with_changes(self, **changes: Any) -> RulesOptions:
        """A copy with some options changed (validated)."""
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise OptionsError(f"unknown rules option(s) {sorted(unknown)}; known: {sorted(known)}")
        return replace(self, **changes)


def classic(**changes: Any) -> RulesOptions:
    """The Classic Canasta preset (pagat rules; see :class:`RulesOptions`)."""
    return RulesOptions().with_changes(**changes) if changes else RulesOptions()


PRESETS = {"classic": classic}


def preset(variant: str, **changes: Any) -> RulesOptions:
    """Options for a named variant with some options changed.

    Raises:
        OptionsError: unknown variant or option, or a bad value.
    """
    try:
        fn = PRESETS[variant]
    except KeyError:
        raise OptionsError(f"unknown variant {variant!r}; choose one of {sorted(PRESETS)}") from None
    return fn(**changes)
