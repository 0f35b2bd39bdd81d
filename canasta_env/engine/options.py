"""Rules options: one frozen, validated dataclass; presets per variant.

Every number the rules use lives here with its default and its source, so a variant is
a preset of options and the engine never branches on the variant name.

Sources: ``docs/RULES.md`` §2 (pagat.com Classic Canasta; Hoyle / Bicycle where noted),
§3 (Hand and Foot: pagat.com Hand and Foot, Bicycle) and §4 (where the sources disagree,
and the field that chooses). Every Hand and Foot rule is a field below whose default keeps the
Classic behaviour; :func:`hand_and_foot` is the preset that switches them on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from . import limits as L

VARIANTS = ("classic", "hand_and_foot")


class OptionsError(ValueError):
    """A rules option has a bad value; the message names the option and why."""


def _int(x: Any) -> int:
    """``x`` if it is an int (bools, floats and strings refused: TypeError)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"not an int: {x!r}")
    return x


#: (lowest, highest) value of every int option (units: cards, points, deals); the
#: bounds keep every reachable score inside ``limits.SCORE_LIMIT`` and every table inside
#: the native core's arrays (:mod:`.limits`). ``foot_size`` also refuses 1 and 2, and
#: ``max_meld_size`` takes 0 (no maximum) or 4..20.
OPTION_BOUNDS: dict[str, tuple[int, int]] = {
    "decks": (1, L.MAX_DECKS),
    "jokers": (0, L.MAX_JOKERS),
    "hand_size": (1, L.MAX_PACK),
    "target_score": (1, L.TARGET_SCORE_MAX),
    "max_wilds_per_meld": (0, 20),
    "canasta_size": (3, 20),
    "natural_canasta_bonus": (0, L.POINTS_MAX),
    "mixed_canasta_bonus": (0, L.POINTS_MAX),
    "red_three_bonus": (0, L.POINTS_MAX),
    "red_three_all_bonus": (0, L.POINTS_MAX),
    "going_out_bonus": (0, L.POINTS_MAX),
    "concealed_going_out_bonus": (0, L.POINTS_MAX),
    "canastas_to_go_out": (0, L.REQUIREMENT_MAX),
    "foot_size": (0, 30),
    "rounds": (0, 100),
    "draw_count": (1, 5),
    "max_meld_size": (0, 20),
    "wild_book_bonus": (0, L.POINTS_MAX),
    "clean_books_to_go_out": (0, L.REQUIREMENT_MAX),
    "dirty_books_to_go_out": (0, L.REQUIREMENT_MAX),
    "pile_take_limit": (0, L.MAX_PACK),
    "red_three_hand_penalty": (0, L.POINTS_MAX),
    "black_three_meld_max": (3, 20),
}


@dataclass(frozen=True)
class RulesOptions:
    """All rules of a Classic Canasta or Hand and Foot game. Units: cards and points.

    Attributes (Classic default; source), then the Hand and Foot fields (Classic default
    that switches the rule off; Hand and Foot value in :func:`hand_and_foot`):
        variant: preset name ("classic" or "hand_and_foot").
        decks: 52-card decks in the pack (2; pagat).
        jokers: jokers in the pack (4; pagat).
        hand_size: cards dealt to each player (11; ``docs/RULES.md`` §2.2).
        target_score: a game ends after the hand in which a partnership reaches this
            cumulative score (5,000; §2.16).
        opening_minimums: ((lowest cumulative score, minimum points), ...) ascending;
            ((-inf, 15), (0, 50), (1500, 90), (3000, 120)) as in §2.8.
        max_wilds_per_meld: wild cards allowed in one meld (3; pagat).
        canasta_size: cards in a canasta (7; pagat).
        natural_canasta_bonus / mixed_canasta_bonus: 500 / 300 (§2.4).
        red_three_bonus: per red three (100; §2.5); red_three_all_bonus: all four (800).
        going_out_bonus: 100; concealed_going_out_bonus: 200 in total (§2.11, §2.13).
        canastas_to_go_out: canastas a partnership needs before going out (1; pagat).
        black_three_freezes: discarding a black 3 freezes the pile (False: pagat;
            Bicycle says True).
        red_three_last_card_may_meld: a player whose last stock card is a red 3 may still
            meld before the hand ends (False: pagat).
        one_card_pile_restriction: a player holding one card may not take a one-card
            pile (True: Hoyle).
        ask_partner_required: a player must ask partner (and hear yes) before going
            out (False: pagat makes asking optional).

        foot_size: cards of each player's foot, dealt after the hand (0: no foot; H&F
            11, Bicycle). A player plays the hand first; melding the hand out picks up
            the foot at once, discarding the last hand card picks it up at the start of
            the player's next turn; only a player in the foot may go out. The hand may
            be melded out only once the opening minimum is met (the foot is unseen, so
            its cards cannot be counted on to finish an opening).
        rounds: deals in a game (0: play to ``target_score``; H&F 4). With rounds > 0
            the game ends after that many deals, highest total wins, tie possible.
        round_minimums: opening minimum by round, 1st, 2nd, ... (empty: use the score
            table ``opening_minimums``; H&F (60, 90, 120, 150), §3.2).
        draw_count: cards drawn from the stock per turn (1; H&F 2).
        max_meld_size: a meld reaching this many cards is a closed book: nothing more
            joins it and a new meld of that rank may be started (0: no maximum; H&F 7).
        wilds_at_most_half_naturals: a meld's wild cards may be at most half its
            naturals, besides ``max_wilds_per_meld`` (False; H&F True, pagat).
        wild_melds: melds of wild cards only are allowed, one open per partnership
            (False; H&F True, §3.2's round-4 examples).
        wild_book_bonus: bonus for a book of ``max_meld_size`` wild cards (1,500;
            pagat). A wild book counts as a clean book for going out.
        clean_books_to_go_out / dirty_books_to_go_out: books a partnership needs
            before going out, besides ``canastas_to_go_out`` (0 / 0; H&F 2 / 2).
        pile_pair_only: the pile may be taken only with a natural pair matching the
            top card (False; H&F True).
        pile_wild_pair: a wild card on top may be taken with a pair of the same wild
            card, melded into the wild meld (False; H&F True).
        pile_take_limit: cards taken with the pile, the top card included (0: all;
            H&F 7).
        red_three_negative_unmelded: exposed red 3s count negative for a partnership
            that made no meld (True: pagat Classic; H&F False: +100 each).
        red_three_hand_penalty: points subtracted for each red 3 left in a hand or foot
            at the end (0: Classic red 3s are never held; H&F 100).
        black_three_meld_max: most black 3s in a going-out meld (4).
        black_three_melds: black 3s may be melded when going out (True: pagat; False:
            never melded, §3.5's option).

    Raises:
        OptionsError: an option of the wrong type or out of its range, naming the option
            and the bound; among them a pack too small for the worst-case deal
            (docs/RULES.md §2.2 Deal, §3.1 Pack hand and foot, §7): the options are
            accepted only if ``4 * (hand_size + foot_size) + 1 + draw_count <= 46 *
            decks``, so that every seed deals and the first player can draw (see
            :attr:`deal_worst_case`).
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
    foot_size: int = 0
    rounds: int = 0
    round_minimums: tuple[int, ...] = ()
    draw_count: int = 1
    max_meld_size: int = 0
    wilds_at_most_half_naturals: bool = False
    wild_melds: bool = False
    wild_book_bonus: int = 1500
    clean_books_to_go_out: int = 0
    dirty_books_to_go_out: int = 0
    pile_pair_only: bool = False
    pile_wild_pair: bool = False
    pile_take_limit: int = 0
    red_three_negative_unmelded: bool = True
    red_three_hand_penalty: int = 0
    black_three_meld_max: int = 4
    black_three_melds: bool = True

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise OptionsError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        ints = {f.name for f in fields(self) if f.type in ("int", int)}
        for name in ints:
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise OptionsError(f"option {name} must be an int, got {v!r}")
        for name in ("black_three_freezes", "red_three_last_card_may_meld",
                     "one_card_pile_restriction", "ask_partner_required",
                     "wilds_at_most_half_naturals", "wild_melds", "pile_pair_only",
                     "pile_wild_pair", "red_three_negative_unmelded", "black_three_melds"):
            if not isinstance(getattr(self, name), bool):
                raise OptionsError(f"option {name} must be a bool, got {getattr(self, name)!r}")
        for name, (lo, hi) in OPTION_BOUNDS.items():
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise OptionsError(f"{name} must be in {lo:,}..{hi:,}, got {v:,}"[:200])
        if not 0 <= self.foot_size <= 30 or self.foot_size in (1, 2):
            raise OptionsError(f"foot_size must be 0 (no foot) or in 3..30, got {self.foot_size}")
        self._check_deal_fits()
        try:
            if not isinstance(self.round_minimums, (list, tuple)):  # a dict, set or str too
                raise TypeError("not a list or tuple")
            rm = tuple(_int(m) for m in self.round_minimums)
        except (TypeError, ValueError, OverflowError):
            raise OptionsError(f"round_minimums must be a sequence of ints, got "
                               f"{self.round_minimums!r}"[:300]) from None
        if len(rm) > L.MINIMUMS_CAPACITY or any(not 0 <= m <= L.POINTS_MAX for m in rm):
            raise OptionsError(f"round_minimums must hold at most {L.MINIMUMS_CAPACITY} "
                               f"entries, each in 0..{L.POINTS_MAX:,}, got {rm!r}"[:300])
        object.__setattr__(self, "round_minimums", rm)
        if self.max_meld_size and not 4 <= self.max_meld_size <= 20:
            raise OptionsError(f"max_meld_size must be 0 (no maximum) or in 4..20, "
                               f"got {self.max_meld_size}")
        if self.max_meld_size and self.canasta_size > self.max_meld_size:
            raise OptionsError(f"canasta_size {self.canasta_size} exceeds max_meld_size "
                               f"{self.max_meld_size}")
        if self.pile_wild_pair and not self.wild_melds:
            raise OptionsError("pile_wild_pair needs wild_melds")
        if self.max_meld_size and self.black_three_melds and \
                self.black_three_meld_max >= self.max_meld_size:
            raise OptionsError(
                f"black_three_meld_max {self.black_three_meld_max} must be below max_meld_size "
                f"{self.max_meld_size}: a going-out meld of black 3s never closes into a book "
                f"(docs/RULES.md §2.6, §3.4)")
        mins = self.opening_minimums
        try:
            if not isinstance(mins, (list, tuple)) or \
                    any(not isinstance(pair, (list, tuple)) for pair in mins):
                raise TypeError("not a list or tuple of pairs")
            mins = tuple((_int(lo), _int(m)) for lo, m in mins)
        except (TypeError, ValueError, OverflowError):
            raise OptionsError(
                f"opening_minimums must be ((lowest score, minimum), ...) of ints, got "
                f"{mins!r}"[:300]) from None
        if not mins or any(b[0] <= a[0] for a, b in zip(mins, mins[1:])):
            raise OptionsError(f"opening_minimums must be non-empty and ascending, got {mins!r}"[:300])
        if len(mins) > L.MINIMUMS_CAPACITY or any(
                not 0 <= m <= L.POINTS_MAX or abs(lo) > L.SCORE_LIMIT for lo, m in mins):
            raise OptionsError(f"opening_minimums must hold at most {L.MINIMUMS_CAPACITY} "
                               f"entries, each minimum in 0..{L.POINTS_MAX:,} and each lowest "
                               f"score within +-{L.SCORE_LIMIT:,}, got {mins!r}"[:300])
        object.__setattr__(self, "opening_minimums", mins)

    @property
    def deal_worst_case(self) -> int:
        """Cards (a count) the deal and the first draw can take from the pack at most, for
        any shuffle (docs/RULES.md §2.2 Deal, §3.1 Pack hand and foot, §7 boundaries):

            4 * (hand_size + foot_size)        hands and feet dealt to the 4 players
          + jokers + 4 * decks                 every wild card turned onto the pile, ...
          + 2 * decks                          ... every red 3 turned onto the pile or
                                               dealt into a hand and replaced from the
                                               stock (each red 3 is one or the other)
          + 1                                  the natural upcard that stops the turning
          + draw_count                         the first player's draw from the stock

        The wild cards and red 3s of the pack are ``jokers + 6 * decks`` of its
        ``52 * decks + jokers`` cards, so the options deal and play every seed exactly
        when ``4 * (hand_size + foot_size) + 1 + draw_count <= 46 * decks`` (the natural
        cards other than red 3s: 46 a deck; jokers do not help). The bound is tight: a
        shuffle that deals only naturals and puts every wild card and red 3 right under a
        natural upcard leaves ``46 * decks - 4 * (hand_size + foot_size) - 1`` cards in
        the stock. Red 3s in a foot are replaced only when the foot is picked up, and
        only while the stock lasts, so they need no card here.
        """
        wild = self.jokers + 4 * self.decks
        red3 = 2 * self.decks
        return 4 * (self.hand_size + self.foot_size) + wild + red3 + 1 + self.draw_count

    def _check_deal_fits(self) -> None:
        """Raises :class:`OptionsError` unless :attr:`deal_worst_case` fits the pack."""
        pack = 52 * self.decks + self.jokers
        need = self.deal_worst_case
        if need <= pack:
            return
        players = self.hand_size + self.foot_size
        largest = (46 * self.decks - 1 - self.draw_count) // 4 - self.foot_size
        foot = f" + foot_size {self.foot_size}" if self.foot_size else ""
        fix = (f"at most hand_size {largest} fits" if largest >= 1 else
               "no hand_size fits; use more decks or a smaller foot_size / draw_count")
        raise OptionsError(
            f"hand_size {self.hand_size}{foot} does not fit a pack of {pack} cards for "
            f"4 players: the worst-case deal needs {need} cards (4 x {players} dealt, "
            f"{self.jokers + 4 * self.decks} wild cards and {2 * self.decks} red 3s "
            f"turned up or replaced, 1 natural upcard, {self.draw_count} to draw); "
            f"4 * (hand_size + foot_size) + 1 + draw_count must be <= 46 * decks "
            f"= {46 * self.decks}; {fix}")

    def opening_minimum(self, score: int) -> int:
        """Opening minimum (points) for a partnership whose cumulative score before the
        hand is ``score`` (§2.8 table: <0: 15, 0-1,495: 50, 1,500-2,995: 90,
        3,000+: 120)."""
        need = self.opening_minimums[0][1]
        for lo, m in self.opening_minimums:
            if score >= lo:
                need = m
        return need

    def minimum_for(self, score: int, round_index: int) -> int:
        """Opening minimum (points) of a partnership with cumulative ``score`` in deal
        ``round_index`` (0-based): the round's entry of ``round_minimums`` (the last one
        past its end) when that is set (Hand and Foot, §3.2), else the score table."""
        rm = self.round_minimums
        if rm:
            return rm[min(round_index, len(rm) - 1)]
        return self.opening_minimum(score)

    @property
    def exact_melds(self) -> bool:
        """True when the meld rules go beyond Classic's (closed books, the half-naturals
        wild limit, wild melds, books to go out, a foot): turn feasibility then uses the
        exact search of :mod:`.exact` instead of Classic's greedy formulas."""
        return bool(self.max_meld_size or self.wilds_at_most_half_naturals or self.wild_melds
                    or self.clean_books_to_go_out or self.dirty_books_to_go_out
                    or self.foot_size)

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
        d["round_minimums"] = list(self.round_minimums)
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
        if isinstance(d.get("round_minimums"), list):
            d["round_minimums"] = tuple(d["round_minimums"])
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


#: ``docs/RULES.md`` §3, rule by rule (pagat Hand and Foot, Bicycle)
HAND_AND_FOOT = {
    "variant": "hand_and_foot",
    "decks": 5, "jokers": 10,                       # 5 decks + 10 jokers (270 cards)
    "hand_size": 11, "foot_size": 11,               # hand + foot, play the hand first
    "rounds": 4,                                    # 4 deals, highest total wins
    "round_minimums": (60, 90, 120, 150),           # opening minimum by round
    "draw_count": 2,                                # draw 2 from the stock
    "max_meld_size": 7, "canasta_size": 7,          # 3-7 cards; 7 = closed book
    "wilds_at_most_half_naturals": True,            # >= 2 naturals, wilds <= naturals / 2
    "wild_melds": True, "wild_book_bonus": 1500,    # wild-card melds, 7-wild book 1,500
    "natural_canasta_bonus": 500, "mixed_canasta_bonus": 300,  # clean / dirty books
    "red_three_negative_unmelded": False,           # red 3s +100 each ...
    "red_three_all_bonus": 1000,                    # ... also all ten (no 800 rule)
    "red_three_hand_penalty": 100,                  # ... -100 each left in hand / foot
    "pile_pair_only": True, "pile_wild_pair": True,  # pile: matching pair only
    "pile_take_limit": 7,                           # take the top 7 cards
    "one_card_pile_restriction": False,
    "canastas_to_go_out": 0,                        # going out: 2 clean + 2 dirty books,
    "clean_books_to_go_out": 2, "dirty_books_to_go_out": 2,
    "ask_partner_required": True,                   # in the foot, must ask partner
    "going_out_bonus": 100, "concealed_going_out_bonus": 100,  # no concealed bonus
}


def hand_and_foot(**changes: Any) -> RulesOptions:
    """The Hand and Foot preset (``docs/RULES.md`` §3; see :class:`RulesOptions`)."""
    d = dict(HAND_AND_FOOT)
    d.update(changes)
    return RulesOptions.from_dict(d)


PRESETS = {"classic": classic, "hand_and_foot": hand_and_foot}


def preset(variant: str, **changes: Any) -> RulesOptions:
    """Options for a named variant with some options changed.

    Raises:
        OptionsError: unknown variant or option, or a bad value.
    """
    try:
        fn = PRESETS[variant]
    except (KeyError, TypeError):
        raise OptionsError(f"unknown variant {variant!r}; choose one of {sorted(PRESETS)}") from None
    return fn(**changes)
