"""The old path of :mod:`training.sb3.config`. It moved (see CHANGELOG.md); this module
keeps the old imports working."""

from training.common.cli import *  # noqa: F403 - the public names, re-exported
from training.common.config import *  # noqa: F403 - the public names, re-exported
from training.common.moved import forward
from training.sb3.config import *  # noqa: F403 - the public names, re-exported

__getattr__ = forward(__name__, "training.sb3.config",
                      "training.common.config",
                      "training.common.cli")
