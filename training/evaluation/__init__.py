"""Evaluation on duplicate deals: every deal played twice with the seatings swapped.

- :mod:`training.evaluation.episodes`: one episode, many deals side by side, the records.
- :mod:`training.evaluation.duplicate`: a match of two policies (workers, Ctrl-C) and
  :func:`evaluate_policies`, its figures.
- :mod:`training.evaluation.stats`: the figures of the records (Wilson and normal intervals).
- :mod:`training.evaluation.report`: the table and ``python -m training.evaluate``.
- :mod:`training.evaluation.ratings`: a round robin rated with openskill
  (``python -m training.ratings``).
"""

from .duplicate import (
    MAX_WORKERS,
    EvaluationInterrupted,
    evaluate_policies,
    measure_eval_hands_per_s,
    play_match,
)
from .episodes import (
    DEFAULT_BATCH,
    GAME_MAX_DECISIONS,
    EpisodeRecord,
    HandRecord,
    check_batch,
    deal_seed,
    make_env,
    play_deals,
    play_episode,
)
from .report import format_table
from .stats import Z95, mean_ci, opening_levels, summarize, wilson

__all__ = ["HandRecord", "EpisodeRecord", "EvaluationInterrupted", "deal_seed", "make_env",
           "play_episode", "play_deals", "play_match", "opening_levels", "summarize",
           "evaluate_policies", "format_table", "wilson", "mean_ci", "DEFAULT_BATCH",
           "check_batch", "measure_eval_hands_per_s", "GAME_MAX_DECISIONS", "MAX_WORKERS",
           "Z95"]
