"""What the subcommands write on stderr: a one-line progress bar (no dependency), one-line errors."""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["ProgressBar", "line_open", "one_line", "progress_bar"]

#: bars that have drawn a line not yet ended by a newline
_OPEN: set = set()


def line_open() -> bool:
    """True when a bar's line is unfinished on stderr (an error message then starts a new line)."""
    return bool(_OPEN)


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
        _OPEN.add(id(self))

    def close(self) -> None:
        if id(self) in _OPEN:
            _OPEN.discard(id(self))
            self.stream.write("\n")
            self.stream.flush()


def progress_bar(stream: TextIO, *, forced: bool, label: str) -> ProgressBar | None:
    """A bar on ``stream`` when it is a terminal or ``forced`` (``--progress``), else None."""
    if forced or (hasattr(stream, "isatty") and stream.isatty()):
        return ProgressBar(stream, label=label)
    return None


def one_line(message: object) -> str:
    r"""A (multi-line) error message as one line: a schema error's list of problems joined by '; '.

    Examples
    --------
    >>> one_line("t.tsv does not match (2 problems):\n  - a: missing\n  - b: want int64\nSee x.json.")
    't.tsv does not match (2 problems): a: missing; b: want int64. See x.json.'
    """
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    out = ""
    for line in lines:
        if line.startswith("- "):
            out += (" " if out.endswith(":") else "; ") + line[2:]
        else:
            out += ("" if not out else (". " if not out.endswith((".", ":")) else " ")) + line
    return out
