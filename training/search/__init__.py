"""Decision-time search on the native core and its distillation into a network
(``python -m training.search``; the search itself is :mod:`canasta_env.search`).

- :mod:`training.search.distill`: search-improved play (``play``: the win rate of the
  searching side, the records of its decisions) and distillation of the records into a
  checkpoint (``distill``), and the command.
"""

from canasta_env.cli import require_extra

require_extra("python -m training.search", "training", modules=("tqdm",))  # before the imports that need it

from canasta_env.search import CRITERIA, SearchSettings, improve  # noqa: E402
from training.common.moved import forward  # noqa: E402

from .distill import RECORD_KEYS, distill, distill_targets, main, play, play_chunk  # noqa: E402

__all__ = ["CRITERIA", "RECORD_KEYS", "SearchSettings", "distill", "distill_targets", "improve",
           "main", "play", "play_chunk"]

# the other names the single module training/search.py had stay reachable
__getattr__ = forward(__name__, "training.search.distill")
