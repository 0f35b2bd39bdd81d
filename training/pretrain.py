"""The old path of :mod:`training.sb3.pretrain`. It moved (see CHANGELOG.md); this module
keeps the old imports working."""

from training.common.moved import forward
from training.sb3.pretrain import *  # noqa: F403 - the public names, re-exported

__getattr__ = forward(__name__, "training.sb3.pretrain")
