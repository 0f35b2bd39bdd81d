"""The command-line pieces the training commands share (``python -m training.main``,
``training.train``, ``training.rllib``, ...): the run flags every training command takes,
``--torch-threads``, and the one-line refusal of what a run cannot start from.

The parser, the argument types and the exit codes are :mod:`canasta_env.cli`'s: every
refusal is ``PROG: error: MESSAGE`` on one line with exit code 2, and Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse

from canasta_env.cli import existing_file, fail, nonnegative_int, positive_int

#: the largest seed numpy's and stable-baselines3's seeding takes
MAX_SEED = 2**32 - 1


def seed_int(text: str) -> int:
    """A training seed: an int in 0..2**32-1 (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: anything else.
    """
    value = nonnegative_int(text)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an int in 0..{MAX_SEED}, got {text!r}")
    return value


def add_run_flags(parser: argparse.ArgumentParser, *, config_help: str,
                  config_default: str | None = None, run_name_help: str | None = None,
                  config_type=existing_file) -> None:
    """``--config`` (an existing YAML file, checked by ``config_type``; required unless
    ``config_default``),
    ``--total-timesteps N`` (a positive int), ``--run-name NAME`` and ``--seed N`` (an int
    >= 0), the last three overriding the config's ``total_timesteps``, ``run_name`` and
    ``seed``."""
    parser.add_argument("--config", required=config_default is None, default=config_default,
                        type=config_type, help=config_help)
    parser.add_argument("--total-timesteps", type=positive_int, default=None,
                        help="override the config")
    parser.add_argument("--run-name", default=None,
                        help=run_name_help or "override the config's run_name (the run's folders)")
    parser.add_argument("--seed", type=seed_int, default=None,
                        help="override the config's seed (the run's deals, opponents and "
                             "initial weights; the evaluation deals keep eval.seed)")


def add_torch_threads_flag(parser: argparse.ArgumentParser) -> None:
    """``--torch-threads N``, overriding a training config's ``torch_threads`` (the
    ``training.main`` and ``training.train`` commands)."""
    parser.add_argument("--torch-threads", type=positive_int, default=None,
                        help="override the config's torch_threads: 1 when another job "
                             "shares the cores (two 2-thread runs on 2 cores slow each "
                             "other by tens of times)")


def os_error_line(e: OSError) -> str:
    """An ``OSError`` (an unwritable ``checkpoint_dir``, a full disk) as ``WHY: FILE``."""
    return f"{e.strerror or e}: {e.filename or ''}"


def refuse(prog: str, e: Exception) -> int:
    """Print why a run cannot start or go on (a bad config or checkpoint: its message; an
    ``OSError``: :func:`os_error_line`) as ``PROG: error: ...`` on stderr; returns 2."""
    return fail(prog, os_error_line(e) if isinstance(e, OSError) else e)
