"""What every command line of the project shares: errors are one line on stderr and exit
code 2, never a traceback.

====================================  ======================================================
piece                                 use
====================================  ======================================================
:class:`ArgumentParser`               ``argparse`` whose errors (unknown flag, a bad value)
                                      print one line, ``PROG: error: MESSAGE``, and exit 2
                                      (no usage block; ``--help`` shows it)
:func:`fail`                          print a refused input the same way; returns 2
:func:`interrupted`                   print ``PROG: interrupted`` after Ctrl-C; returns 130
:func:`sigterm_as_interrupt`          within it, SIGTERM (``kill``, ``timeout``, a batch
                                      scheduler) stops a command as Ctrl-C does
:func:`held_signals`                  within it, SIGINT and SIGTERM are ignored (a save
                                      that a second Ctrl-C must not cut short)
:func:`ignore_signals_while_exiting`  after a stop: later signals are ignored
:func:`one_line`                      a message of several lines as one line
:func:`require_extra`                 exit 2 with one line naming the missing extra of
                                      ``pyproject.toml`` (before anything imports it)
argument types                        :func:`positive_int`, :func:`nonnegative_int`,
                                      :func:`positive_float` (finite), :func:`port`
                                      (1..65535), :func:`host`, :func:`existing_file`
                                      (a file, not a directory)
====================================  ======================================================

Exit codes of every command: 0 success, 2 refused input (flags, values, files, policies
that cannot play the variant, a port that cannot be bound), 130 interrupted (SIGINT,
Ctrl-C; the conventional 128 + 2; the training commands give it after SIGTERM too). A
few commands document one more code of their own.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import signal
import sys
import threading
from pathlib import Path
from typing import NoReturn

#: exit code of a refused input
EXIT_USAGE = 2
#: exit code after SIGINT (Ctrl-C): 128 + signal 2
EXIT_INTERRUPTED = 130


def one_line(message: object) -> str:
    """``message`` on one line: its lines stripped and joined with ``"; "`` (with a
    space after a line that ends in ``:``)."""
    out = ""
    for line in str(message).splitlines():
        line = line.strip()
        if not line:
            continue
        if out:
            out += " " if out.endswith(":") else "; "
        out += line
    return out


def fail(prog: str, message: object) -> int:
    """Print ``PROG: error: MESSAGE`` (one line) on stderr; returns :data:`EXIT_USAGE`."""
    print(f"{prog}: error: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


#: the modules a command may need, by the extra of ``pyproject.toml`` that installs them
#: (import names; only the ones the commands import, not every requirement of the extra)
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "training": ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "yaml",
                 "pydantic", "tqdm", "rich", "openskill", "onnx"),
    "bots": ("onnxruntime", "fastapi", "uvicorn", "sqlalchemy"),
    "distributed": ("ray",),
    "dev": ("locust",),
}


def _importable(module: str) -> bool:
    """Whether ``import module`` can find ``module`` (a top-level name; nothing is
    imported). A name set to ``None`` in ``sys.modules`` (an import blocked on purpose)
    counts as missing."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_extra(prog: str, *extras: str, modules: tuple[str, ...] | None = None) -> None:
    """Exit with one line naming the extra(s) if a module they install is missing.

    Called by each command at the top of its ``main()`` (or, where the module itself
    imports the extra, before that import), so a missing extra is one line on stderr,
    ``PROG: error: needs the 'training' extra (missing: torch, yaml): pip install -e
    ".[training]"``, and exit code 2 instead of a ``ModuleNotFoundError`` traceback.

    Args:
        prog: the command's name as its errors print it (``"python -m training.main"``).
        extras: names of extras of ``pyproject.toml`` (keys of :data:`EXTRA_MODULES`).
        modules: check only these import names instead of every module of
            :data:`EXTRA_MODULES` for ``extras`` (a command that needs part of an extra).

    Raises:
        SystemExit: code :data:`EXIT_USAGE` (2) when a module is missing.
        KeyError: an extra that :data:`EXTRA_MODULES` does not know (a programming error).
    """
    wanted = modules if modules is not None else tuple(
        m for extra in extras for m in EXTRA_MODULES[extra])
    missing = [m for m in dict.fromkeys(wanted) if not _importable(m)]
    if not missing:
        return
    names = " and ".join(f"'{e}'" for e in extras)
    plural = "extras" if len(extras) > 1 else "extra"
    fail(prog, f"needs the {names} {plural} (missing: {', '.join(missing)}): "
               f'pip install -e ".[{",".join(extras)}]"')
    raise SystemExit(EXIT_USAGE)


def interrupted(prog: str, what: str = "") -> int:
    """Print ``PROG: interrupted`` (``what``: more words) on stderr after Ctrl-C;
    returns :data:`EXIT_INTERRUPTED`."""
    print(f"{prog}: interrupted{': ' + what if what else ''}", file=sys.stderr)
    return EXIT_INTERRUPTED


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Within the ``with`` block, SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, so a
    command stopped by ``kill``, ``timeout`` or a batch scheduler cleans up and reports
    the same way (the training commands save a last checkpoint). The earlier handler is
    restored on leaving. Outside the main thread (where Python cannot set handlers) it
    does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def held_signals():
    """Within the ``with`` block, SIGINT and SIGTERM are ignored (a second Ctrl-C must not
    cut short the save of the first one); the earlier handlers are restored on leaving.
    Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def ignore_signals_while_exiting() -> None:
    """Ignore SIGINT and SIGTERM from now on: for a command that has been stopped, saved
    what it had and is on its way out (a second Ctrl-C would only turn a clean exit into
    a traceback). Outside the main thread it does nothing."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line on stderr,
    ``PROG: error: MESSAGE``, and exit code 2 (argparse prints a usage block first)."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line and exit 2.

        Raises:
            SystemExit: always, with code 2.
        """
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an int: {text!r}") from None


def positive_int(text: str) -> int:
    """An int >= 1 (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: anything else.
    """
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive int, got {text!r}")
    return value


def nonnegative_int(text: str) -> int:
    """An int >= 0 (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: anything else.
    """
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an int >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: anything else (``nan``, ``inf`` included).
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def port(text: str) -> int:
    """A TCP port 1..65535 (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: anything else.
    """
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port must be 1..65535, got {text!r}")
    return value


def host(text: str) -> str:
    """A host name or address to listen on, without spaces or a port (an ``argparse``
    type). Whether it can be bound is found out when the socket is bound.

    Raises:
        argparse.ArgumentTypeError: empty, or with whitespace or ``/``.
    """
    value = text.strip()
    if not value or any(c.isspace() or c == "/" for c in value):
        raise argparse.ArgumentTypeError(f"not a host name or address: {text!r}")
    return value


def existing_file(text: str) -> str:
    """The path of an existing file (an ``argparse`` type).

    Raises:
        argparse.ArgumentTypeError: no such file, or a directory.
    """
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory, not a file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text} does not exist")
    return text


__all__ = ["ArgumentParser", "EXIT_INTERRUPTED", "EXIT_USAGE", "existing_file", "fail", "host",
           "interrupted", "nonnegative_int", "one_line", "port", "positive_float",
           "positive_int"]
