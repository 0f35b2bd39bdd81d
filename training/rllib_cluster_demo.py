"""The old path of :mod:`training.rllib.cluster_demo` and ``python -m
training.rllib_cluster_demo``. It moved (see CHANGELOG.md); this module keeps the old
imports working."""

from canasta_env.cli import require_extra

require_extra("python -m training.rllib_cluster_demo", "training", "distributed")  # before Ray

from training.common.moved import forward  # noqa: E402
from training.rllib.cluster_demo import *  # noqa: F403 - the public names, re-exported
from training.rllib.cluster_demo import main  # noqa: E402

__getattr__ = forward(__name__, "training.rllib.cluster_demo")

if __name__ == "__main__":
    raise SystemExit(main())
