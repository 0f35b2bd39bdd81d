"""Computer opponents for other frontends: a :class:`Bot` that plays from a JSON position.

    from canasta_env.bots import Bot

    bot = Bot("heuristic")                    # or "search", "reference", "random", a .onnx / .zip
    move = bot.choose(position, seat=1)       # {"action": 6, "description": "meld 4: 3 naturals"}
    position, moves = bot.play_turn(position, seat=1)   # the bot's whole turn

Positions are the engine's JSON position format (``canasta_env.engine.to_position``;
layout in the docstring of :func:`canasta_env.engine.position.to_position`). The bot sees
only what ``seat`` may know: it acts on ``canasta_env.observation.encode(game, seat)``
and the legal-action mask, exactly like the policies in training and evaluation.

======================  =================================================================
policy                  meaning
======================  =================================================================
``"reference"``         the shipped reference policy of the position's variant
                        (``checkpoints/reference/``: the ``.onnx`` with onnxruntime, else
                        the ``.zip`` with the training extra; see
                        :func:`canasta_env.bots.loader.reference_path`): Classic's or Hand
                        and Foot's network (the heuristic for a variant without one)
``"heuristic"``         :class:`canasta_env.policies.HeuristicPolicy` (rule-based, fast)
``"search"``            :class:`canasta_env.search.SearchPolicy`: the heuristic improved by
                        decision-time search (about 10 ms a decision in Classic; needs the compiled
                        core)
``"search_reference"``  the same search with the variant's reference network as the
                        base policy (network-guided search, 256 determinisations in
                        Classic: about 40 ms a decision; docs/results/search.md)
``"apprentice"``        the variant's apprentice network, between the heuristic and the
                        reference (:func:`canasta_env.bots.loader.apprentice_file`; Hand
                        and Foot's; onnxruntime); refused for a variant without one
``"random"``            :class:`canasta_env.policies.RandomPolicy` (uniform legal moves)
``"easy"``,             a difficulty level: the policy of the position's variant for it
``"medium"``,           (:data:`canasta_env.bots.levels.LEVELS`; e.g. ``"hard"`` is Classic's
``"hard"``,             reference, Hand and Foot's apprentice); each level beats the one below by
``"expert"``            0.55 per hand (docs/results/ladder.md: shown but for Classic's expert)
a ``.onnx`` path        a policy exported by ``python -m training.export_onnx``
                        (:class:`~canasta_env.bots.onnx_policy.OnnxPolicy`; onnxruntime only)
a ``.zip`` path         a MaskablePPO checkpoint: needs the training extra, and ``training``
                        imported (it registers the loader; see :mod:`canasta_env.bots.loader`)
``"module:attr"``       a policy of your own, ``module:attribute``
                        (:mod:`canasta_env.bots.outside`): a class gets one instance per
                        seat, renewed (and its ``reset(seed)`` hook called) at each new hand
                        the bot sees for that seat (a new deal seed or hand number)
======================  =================================================================

A policy built for one variant (a network: its observation size and number of actions)
never plays another: ``Bot(policy, variant=...)`` refuses it at once, and every move on
a position of another variant is refused before the policy sees it
(:func:`canasta_env.bots.loader.check_policy_variant`).

Errors are ``ValueError`` subclasses with a message saying what is wrong:
:class:`~canasta_env.engine.PositionError` (malformed position),
:class:`NotOnTurnError` (the seat is not to move, or the hand is over),
:class:`~canasta_env.bots.loader.PolicySpecError` (unknown policy, missing file, a
``.zip`` without the training package), its subclass
:class:`~canasta_env.bots.loader.PolicyVariantError` (a policy of another variant) and
the loaders' own errors for a bad file (``training.sb3.checkpoint.CheckpointError``,
``ValueError`` from ``OnnxPolicy``).
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from canasta_env.engine import (
    Game,
    PositionError,
    describe,
    from_position,
    to_position,
)
from canasta_env.observation import encode

from .levels import is_level
from .loader import (
    PER_VARIANT,
    PolicySpecError,
    PolicyVariantError,
    check_policy_variant,
    load_policy,
    rules_options,
)

__all__ = ["Bot", "NotOnTurnError", "PositionError", "PolicySpecError", "PolicyVariantError",
           "move_record", "position_game"]


#: policy-class instances a :class:`Bot` keeps (one per deal seed, hand and seat)
SEAT_INSTANCES = 1024


class NotOnTurnError(ValueError):
    """The seat asked to move is not the seat on turn (or nobody is: the hand is over)."""


def _check_seat(seat: Any) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat <= 3:
        raise ValueError(f"seat must be an int 0..3, got {seat!r}")
    return int(seat)


def position_game(position: Any) -> Game:
    """A new :class:`Game` from a JSON position (or a copy of a Game).

    Raises:
        PositionError: anything malformed, whatever the engine's own error.
    """
    if isinstance(position, Game):
        return position.clone()
    if not isinstance(position, dict):
        raise PositionError(f"a position must be a JSON object (dict), got {type(position).__name__}")
    try:
        return from_position(position)
    except PositionError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as e:
        # a field of the wrong JSON type that from_position does not check itself
        raise PositionError(f"malformed position ({type(e).__name__}: {e})") from None


def move_record(seat: int, action: int, game: Game | None = None) -> dict:
    """``{"seat", "action", "description"}`` for one decision (described with the action
    table of ``game``'s variant; Classic when ``None``)."""
    text = game.table.describe(action) if game is not None else describe(action)
    return {"seat": seat, "action": action, "description": text}


class Bot:
    """A computer player for any seat of a position.

    Args:
        policy: ``"reference"`` (default), ``"heuristic"``, ``"search"``,
            ``"search_reference"``, ``"apprentice"``, ``"random"``, a level (``"easy"``,
            ``"medium"``, ``"hard"``, ``"expert"``) or a policy file path (``.onnx``,
            ``.zip``); or an object with ``act(observation, action_mask) -> int``.
        variant: the variant the bot is for (a name such as ``"hand_and_foot"`` or rules
            options): the policy is checked against it now, and ``"reference"``,
            ``"apprentice"`` or a level loads that variant's policy. ``None`` (default): no
            check now; ``"reference"`` loads Classic's (``"apprentice"``, which Classic
            lacks, then needs ``variant``). Either way each position is checked before the policy
            acts, and ``"reference"`` plays each variant with that variant's reference
            (loaded when first needed; see :meth:`policy_for`).

    Attributes:
        name: the spec (stripped) or the policy object's ``name``.
        policy: the policy loaded at construction (for ``variant``, else Classic's for
            ``"reference"``).

    Raises:
        PolicySpecError: unknown spec, a missing file, a ``.zip`` while ``training`` is
            not imported, or ``"reference"`` while no reference file is usable (the
            message says so).
        PolicyVariantError: the policy was built for another variant than ``variant``.
        ValueError: a file its loader cannot read (``OnnxPolicy``'s error,
            ``training.sb3.checkpoint.CheckpointError``); an unknown variant name
            (``canasta_env.engine.OptionsError``).
    """

    def __init__(self, policy: Any = "reference", variant: Any = None) -> None:
        self._reference = False
        self._by_variant: dict[str, Any] = {}
        # policy class handles by (policy, deal seed, hand number, seat), newest last
        self._seats: OrderedDict[tuple, Any] = OrderedDict()
        self._seats_lock = threading.Lock()
        # the variant's name (None: not given), for the per-variant table and repr
        self._variant = None if variant is None else rules_options(variant).variant
        if isinstance(policy, str):
            self.name = policy.strip()
            self.policy = load_policy(policy, variant=variant)
            if self.name.lower() in PER_VARIANT or is_level(self.name):
                self._reference = True  # the variant's own policy, per variant
                self._by_variant[self._variant or "classic"] = self.policy
        elif callable(getattr(policy, "act", None)):
            self.name = getattr(policy, "name", type(policy).__name__)
            self.policy = policy
            if variant is not None:
                check_policy_variant(policy, variant, self.name)
        else:
            raise PolicySpecError(f"policy must be a spec string or an object with act(), "
                                  f"got {policy!r}")

    def policy_for(self, variant: Any) -> Any:
        """The policy this bot plays a game of ``variant`` with (a variant name, rules
        options or a :class:`Game`): :attr:`policy`, checked against the variant; for
        ``"reference"`` the variant's own reference, for a level (``"easy"`` ..
        ``"expert"``) the variant's policy of that level (loaded once, then kept).

        Raises:
            PolicyVariantError: the policy was built for another variant.
            PolicySpecError: ``"reference"`` while the variant's reference file is not
                usable; a level missing for the variant.
            ValueError: an unknown variant name; a reference file its loader cannot read.
        """
        options = rules_options(variant)
        policy = self.policy
        if self._reference:
            policy = self._by_variant.get(options.variant)
            if policy is None:
                policy = load_policy(self.name, variant=options)
                self._by_variant[options.variant] = policy
        check_policy_variant(policy, options, self.name)
        return policy

    def check_variant(self, variant: Any) -> None:
        """Refuse a game of ``variant`` now, before the first deal, if this bot cannot
        play it (see :meth:`policy_for`, whose errors it raises)."""
        self.policy_for(variant)

    def __repr__(self) -> str:
        if self._variant is None:
            return f"Bot({self.name!r})"
        return f"Bot({self.name!r}, variant={self._variant!r})"

    # ------------------------------------------------------------------ on a Game
    def act(self, game: Game, seat: int | None = None) -> int:
        """Action id the bot picks for the seat on turn in ``game`` (not modified).

        Raises:
            NotOnTurnError: ``seat`` is given and is not :attr:`Game.to_move`, or the
                hand is over.
            PolicyVariantError, PolicySpecError: the bot cannot play ``game``'s variant
                (see :meth:`policy_for`).
        """
        policy = self.policy_for(game.options)
        to_move = game.to_move
        if to_move is None:
            raise NotOnTurnError(f"nobody is on turn: the {'game' if game.game_over else 'hand'} "
                                 f"is over (phase {game.phase.name})")
        if seat is not None and _check_seat(seat) != to_move:
            raise NotOnTurnError(f"seat {seat} is not on turn; seat {to_move} is to move "
                                 f"(phase {game.phase.name})")
        legal = game.legal_actions()
        mask = np.zeros(game.num_actions, dtype=np.int8)  # Classic: NUM_ACTIONS
        mask[legal] = 1
        if hasattr(policy, "for_seat"):  # a policy class: its own instance per seat and hand
            policy = self._seat_policy(policy, game, to_move)
        act_game = getattr(policy, "act_game", None)  # a search: it needs the game
        action = int(act_game(game, to_move) if act_game is not None
                     else policy.act(encode(game, to_move), mask))
        if action not in legal:  # a policy bug, never the caller's fault
            text = game.table.describe(action) if 0 <= action < game.num_actions else "?"
            raise RuntimeError(f"policy {self.name!r} chose illegal action {action} "
                               f"({text!r}); legal: {legal}")
        return action

    def _seat_policy(self, policy: Any, game: Game, seat: int) -> Any:
        """``seat``'s handle of the policy class ``policy`` in the hand of ``game``: a new
        instance (reset with a seed from the deal seed, hand number and seat) for each new
        (deal seed, hand, seat), kept for the :data:`SEAT_INSTANCES` most recent ones, so
        games played side by side (the service) keep their own instances."""
        key = (id(policy), game.seed, game.hand_number, seat)
        with self._seats_lock:
            handle = self._seats.get(key)
            if handle is not None:
                self._seats.move_to_end(key)
                return handle
            handle = policy.for_seat()
            handle.reset(random.Random(f"{game.seed}/{game.hand_number}/{seat}").getrandbits(63))
            self._seats[key] = handle
            while len(self._seats) > SEAT_INSTANCES:
                self._seats.popitem(last=False)
        return handle

    def play_seat_turn(self, game: Game, seat: int) -> list[dict]:
        """Play ``seat``'s decisions in ``game`` (modified in place) until another seat is
        to move or the hand ends; returns the moves (``seat``, ``action``,
        ``description``). After "ask partner" the partner is to move, so the turn
        pauses there.

        Raises:
            NotOnTurnError: ``seat`` is not on turn.
            PolicyVariantError, PolicySpecError: as :meth:`act`.
        """
        seat = _check_seat(seat)
        moves = [move_record(seat, self._apply(game, seat), game)]
        while game.to_move == seat:
            moves.append(move_record(seat, self._apply(game, seat), game))
        return moves

    def _apply(self, game: Game, seat: int) -> int:
        action = self.act(game, seat)
        game.apply(action)
        return action

    # ------------------------------------------------------------------ on positions
    def choose(self, position: dict, seat: int) -> dict:
        """The bot's next decision for ``seat`` in ``position`` (not modified):
        ``{"action": id, "description": text}``.

        Raises:
            ValueError: ``seat`` is not an int 0..3.
            PositionError: ``position`` is malformed.
            NotOnTurnError: ``seat`` is not on turn, or the hand is over.
            PolicyVariantError, PolicySpecError: the bot cannot play the position's
                variant (see :meth:`policy_for`).
        """
        seat = _check_seat(seat)
        game = position_game(position)
        action = self.act(game, seat)
        return {"action": action, "description": game.table.describe(action)}

    def play_turn(self, position: dict, seat: int) -> tuple[dict, list[dict]]:
        """Play ``seat``'s whole turn from ``position`` (not modified): every decision
        until another seat is to move (the next player, or the partner asked "may I go
        out?") or the hand ends. Returns ``(new_position, moves)``, each move
        ``{"seat", "action", "description"}``.

        Raises:
            ValueError, PositionError, NotOnTurnError, PolicyVariantError: as
                :meth:`choose`.
        """
        seat = _check_seat(seat)
        game = position_game(position)
        moves = self.play_seat_turn(game, seat)
        return to_position(game), moves
