"""A one-line progress bar for long subcommands (stderr; no dependency)."""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["ProgressBar", "progress_bar"]


class ProgressBar:
    """A one-line progress bar on a text stream (no dependency): percent, rate and ETA.

    Examples
    --------
    >>> import io as _io
    >>> out = _io.StringIO()
    >>> bar = ProgressBar(out, width=10)
    >>> bar(50, 100); bar.close()
    >>> "50.0%" in out.getvalue()
    True
    """

    def __init__(self, stream: TextIO, *, width: int = 30, label: str = "progress") -> None:
        self.stream, self.width, self.label = stream, width, label
        self.start = time.perf_counter()
        self.used = False

    def __call__(self, done: int, total: int) -> None:
        frac = min(1.0, done / total) if total else 1.0
        elapsed = time.perf_counter() - self.start
        eta = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {100 * frac:5.1f}%  {elapsed:6.1f}s  eta {eta:5.1f}s")
        self.stream.flush()
        self.used = True

    def close(self) -> None:
        if self.used:
            self.stream.write("\n")
            self.stream.flush()


def progress_bar(stream: TextIO, *, forced: bool, label: str) -> ProgressBar | None:
    """A bar on ``stream`` when it is a terminal or ``forced`` (``--progress``), else None."""
    if forced or (hasattr(stream, "isatty") and stream.isatty()):
        return ProgressBar(stream, label=label)
    return None
