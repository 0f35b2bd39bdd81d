"""The old import paths of modules that moved into the role subpackages (see CHANGELOG.md).

Each old module (``training.train``, ``training.evaluate``, ...) is a few lines: it
imports the public names of its new modules and forwards any other attribute to them
(:func:`forward`), so ``from training.train import train`` and checkpoints pickled with
an old class path (``training.features.CardClassFeatures``) keep working.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def forward(old: str, *new: str) -> Callable[[str], object]:
    """A module ``__getattr__`` for the old module ``old``: an attribute it lacks is looked
    up in the modules ``new``, in order.

    Raises:
        AttributeError: none of them has it (the message names the old module).
    """
    def __getattr__(name: str) -> object:
        for module in new:
            m = importlib.import_module(module)
            if hasattr(m, name):
                return getattr(m, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to "
                             f"{', '.join(new)})")

    return __getattr__
