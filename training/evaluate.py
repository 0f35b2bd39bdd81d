"""The old path of :mod:`training.evaluation` and ``python -m training.evaluate``. It moved
(see CHANGELOG.md); this module keeps the old imports working."""

from training.common.moved import forward
from training.evaluation import *  # noqa: F403 - the public names, re-exported
from training.evaluation.duplicate import *  # noqa: F403 - the public names, re-exported
from training.evaluation.episodes import *  # noqa: F403 - the public names, re-exported
from training.evaluation.report import *  # noqa: F403 - the public names, re-exported
from training.evaluation.report import main
from training.evaluation.stats import *  # noqa: F403 - the public names, re-exported

__getattr__ = forward(__name__, "training.evaluation",
                      "training.evaluation.report",
                      "training.evaluation.duplicate",
                      "training.evaluation.episodes",
                      "training.evaluation.stats")

if __name__ == "__main__":
    raise SystemExit(main())
