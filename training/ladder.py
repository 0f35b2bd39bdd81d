"""``python -m training.ladder``: the difficulty ladder's evidence; the code is
:mod:`training.evaluation.ladder`."""

from training.evaluation.ladder import *  # noqa: F403 - the public names, re-exported
from training.evaluation.ladder import main

if __name__ == "__main__":
    raise SystemExit(main())
