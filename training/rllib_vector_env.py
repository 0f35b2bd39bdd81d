"""The old path of :mod:`training.rllib.vector_env`. It moved (see CHANGELOG.md); this
module keeps the old imports working."""

from training.common.moved import forward
from training.rllib.vector_env import *  # noqa: F403 - the public names, re-exported

__getattr__ = forward(__name__, "training.rllib.vector_env")
