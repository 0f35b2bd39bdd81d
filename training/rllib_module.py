"""The old path of :mod:`training.rllib.module`. It moved (see CHANGELOG.md); this module
keeps the old imports working."""

from training.common.moved import forward
from training.rllib.module import *  # noqa: F403 - the public names, re-exported

__getattr__ = forward(__name__, "training.rllib.module")
