"""Bots for frontends: computer players, policies by name, the HTTP service, terminal play.

    from canasta_env.bots import Bot

    bot = Bot("heuristic")                    # or "search", "reference", "random", ".onnx"
    move = bot.choose(position, seat=1)       # {"action": 6, "description": "meld 4: 3 naturals"}
    position, moves = bot.play_turn(position, seat=1)   # the bot's whole turn

==================================  =====================================================
module                              what it holds
==================================  =====================================================
:mod:`canasta_env.bots.bot`         :class:`Bot`: decisions and whole turns from a JSON
                                    position, for any seat
:mod:`canasta_env.bots.loader`      :func:`load_policy`: ``random``, ``heuristic``,
                                    ``reference``, a ``.onnx`` / ``.zip`` path;
                                    :func:`register_loader` for more file kinds;
                                    :func:`check_policy_variant`: a policy against
                                    the variant it is asked to play
:mod:`canasta_env.bots.variants`    which variant a policy plays (observation size,
                                    number of actions); imported by the loader and
                                    the ONNX policy, importing neither
:mod:`canasta_env.bots.onnx_policy` ``OnnxPolicy``: an exported policy run by
                                    onnxruntime
:mod:`canasta_env.bots.service`     the HTTP JSON service (FastAPI):
                                    ``python -m canasta_env.bots.service``
:mod:`canasta_env.bots.play`        play in the terminal:
                                    ``python -m canasta_env.bots.play``
==================================  =====================================================

Needs numpy and the engine; ONNX policies need onnxruntime, the service FastAPI and
uvicorn (the ``bots`` extra). Nothing here imports torch or the ``training`` package:
MaskablePPO checkpoints (``.zip``) load once ``training`` is imported, which registers
their loader (``python -m training.serve`` / ``training.play``, ``canasta-serve`` /
``canasta-play``). Importing this package does not import the service or terminal play.
"""

from .bot import Bot, NotOnTurnError, move_record, position_game
from .loader import (
    REFERENCE_CHECKPOINT,
    REFERENCE_DIR,
    REFERENCE_ONNX,
    PolicySpecError,
    PolicyVariantError,
    check_policy_variant,
    load_policy,
    policy_sizes,
    reference_note,
    reference_path,
    register_loader,
    registered_suffixes,
    variant_hint,
)

__all__ = [
    "Bot",
    "NotOnTurnError",
    "PolicySpecError",
    "PolicyVariantError",
    "REFERENCE_CHECKPOINT",
    "REFERENCE_DIR",
    "REFERENCE_ONNX",
    "check_policy_variant",
    "load_policy",
    "move_record",
    "policy_sizes",
    "position_game",
    "reference_note",
    "reference_path",
    "register_loader",
    "registered_suffixes",
    "variant_hint",
]
