"""The old path of :mod:`training.evaluation.ratings` and ``python -m training.ratings``.
It moved (see CHANGELOG.md); this module keeps the old imports working."""

from training.common.moved import forward
from training.evaluation.ratings import *  # noqa: F403 - the public names, re-exported
from training.evaluation.ratings import main

__getattr__ = forward(__name__, "training.evaluation.ratings")

if __name__ == "__main__":
    raise SystemExit(main())
