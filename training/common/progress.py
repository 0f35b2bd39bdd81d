"""Progress of a long phase on a terminal and in a log.

On a terminal a phase draws a progress bar (tqdm). Written to a file or a pipe (a
scheduler, ``nohup``, CI, ``> log 2>&1``) a bar is nothing a reader can use -- tqdm's
carriage returns, or nothing at all for rich's bar -- so there each phase prints a plain
line instead, at most every :data:`EVERY` seconds and once at its end::

    warm start: heuristic play: 120,000 / 300,000 decisions (40.0%), 9,870 decision/s, 18 s left

:func:`progress_bar` gives the one that fits the stream.
"""

from __future__ import annotations

import os
import sys
import time

#: seconds between two progress lines of one phase in a log (default; the environment
#: variable ``CANASTA_PROGRESS_EVERY`` sets another, e.g. ``5`` for a short log)
EVERY = 30.0
#: the environment variable read by :func:`interval`
ENV_VAR = "CANASTA_PROGRESS_EVERY"


def interval() -> float:
    """Seconds between two progress lines in a log: ``$CANASTA_PROGRESS_EVERY`` when set,
    else :data:`EVERY`.

    Raises:
        ValueError: the variable is set to something other than a positive number of
            seconds.
    """
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return EVERY
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"{ENV_VAR}={raw!r}: expected a positive number of seconds "
                         f"between two progress lines (default {EVERY:g})")
    return value


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (a progress bar can redraw itself there)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def plural(unit: str) -> str:
    """``"decision"`` -> ``"decisions"``, ``"batch"`` -> ``"batches"``."""
    return unit + ("es" if unit.endswith(("s", "sh", "ch", "x")) else "s")


def duration(seconds: float) -> str:
    """``seconds`` as ``"42 s"``, ``"7 min 05 s"`` or ``"1 h 02 min"``."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class LineProgress:
    """The part of tqdm's interface the phases use (``update``, ``n``, ``total``,
    ``set_postfix_str``, ``close``, a context manager), printing a plain line to
    ``file``: the count, the share of ``total``, the rate and the time left since the
    start, and the postfix; at most every ``every`` seconds, and at the end (``close``).
    ``start``: units done before this phase (a resumed run), shown in the count but not
    in the rate."""

    def __init__(self, total: int, desc: str, unit: str, file=None,
                 every: float | None = None, start: int = 0) -> None:
        self.total, self.desc, self.unit, self.start = int(total), desc, unit, int(start)
        self.file = file if file is not None else sys.stderr
        self.every = interval() if every is None else every
        self.n = 0
        self.postfix = ""
        self.t0 = self.last = time.monotonic()
        self.printed_at = -1

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._print(now)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:  # noqa: ARG002
        self.postfix = text

    def line(self, now: float | None = None) -> str:
        """The progress line as it would be printed now."""
        now = time.monotonic() if now is None else now
        elapsed = max(1e-9, now - self.t0)
        rate = self.n / elapsed
        done, whole = self.start + self.n, self.start + self.total
        parts = [f"{self.desc}: {done:,} / {whole:,} {plural(self.unit)}"]
        if whole:
            parts[0] += f" ({100 * done / whole:.1f}%)"
        parts.append(f"{rate:,.0f} {self.unit}/s")
        if self.n < self.total:
            parts.append(f"{duration((self.total - self.n) / rate)} left" if rate > 0
                         else "time left unknown")
        else:
            parts.append(f"done in {duration(elapsed)}")
        if self.postfix:
            parts.append(self.postfix)
        return ", ".join(parts)

    def _print(self, now: float | None = None) -> None:
        print(self.line(now), file=self.file, flush=True)
        self.printed_at = self.n

    def close(self) -> None:
        if self.n != self.printed_at:
            self._print()


def progress_bar(total: int, desc: str, unit: str, enabled: bool = True, file=None):
    """A progress bar for a phase of ``total`` ``unit``\\ s on ``file`` (default stderr):
    tqdm's on a terminal, :class:`LineProgress` elsewhere, a silent tqdm when not
    ``enabled``."""
    from tqdm import tqdm

    file = file if file is not None else sys.stderr
    if not enabled:
        return tqdm(total=total, disable=True)
    if is_terminal(file):
        return tqdm(total=total, desc=desc, unit=unit, file=file, dynamic_ncols=True,
                    leave=False)
    return LineProgress(total, desc, unit, file)


__all__ = ["progress_bar", "LineProgress", "is_terminal", "duration", "plural", "EVERY",
           "ENV_VAR", "interval"]
