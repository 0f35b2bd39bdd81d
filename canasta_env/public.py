"""Public information about a position that every seat may see, shared by the observation
(:mod:`canasta_env.observation`), the text render (:mod:`canasta_env.render`) and the
service's seat views.

The discard pile is public: every card in it was seen face up. That stays true after a
player takes the pile to complete an opening (docs/RULES.md §2.10 Taking the pile, §2.8
Opening minimum): in phase ``PICKUP`` the rest of the pile is set aside until the opening
minimum is met, and the identities of the set-aside cards stay public (docs/RULES.md §7
environment contract & boundaries).
"""

from __future__ import annotations

from typing import NamedTuple

from .engine.cards import CLASS_NAMES
from .engine.game import Game

__all__ = ["PublicPile", "public_pile"]


class PublicPile(NamedTuple):
    """The public cards of the discard pile, as card classes (:mod:`.engine.cards`).

    Attributes:
        pile: the discard pile, bottom to top (the top card last).
        set_aside: the cards of a pile taken for an opening that is not yet complete
            (phase ``PICKUP``), bottom to top; empty in every other phase. They go into
            the taker's hand (red 3s onto the table) once the opening minimum is met.
    """

    pile: list[int]
    set_aside: list[int]

    def names(self) -> dict[str, list[str]]:
        """``{"pile": [...], "set_aside": [...]}`` with card names
        (:data:`~canasta_env.engine.cards.CLASS_NAMES`, as in the JSON position format)."""
        return {"pile": [CLASS_NAMES[c] for c in self.pile],
                "set_aside": [CLASS_NAMES[c] for c in self.set_aside]}


def public_pile(game: Game) -> PublicPile:
    """The discard pile's public cards in ``game``: the pile and the set-aside cards
    (copies; see :class:`PublicPile`). The same for every seat."""
    return PublicPile(list(game.pile), list(game.pending))
