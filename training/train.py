"""The old path of :mod:`training.sb3.train` and ``python -m training.train``. It moved
(see CHANGELOG.md); this module keeps the old imports working."""

from canasta_env.cli import require_extra

require_extra("python -m training.train", "training")  # before the config imports yaml
from training.common.moved import forward  # noqa: E402
from training.sb3.callbacks import *  # noqa: F403 - the public names, re-exported
from training.sb3.interrupt import *  # noqa: F403 - the public names, re-exported
from training.sb3.runs import *  # noqa: F403 - the public names, re-exported
from training.sb3.train import *  # noqa: F403 - the public names, re-exported
from training.sb3.train import main

__getattr__ = forward(__name__, "training.sb3.train",
                      "training.sb3.runs",
                      "training.sb3.interrupt",
                      "training.sb3.callbacks")

if __name__ == "__main__":
    import numpy as np

    np.set_printoptions(precision=3)
    raise SystemExit(main())
