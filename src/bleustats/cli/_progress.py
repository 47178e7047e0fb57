"""The one progress reporter of the command line (stderr, a terminal only), and one-line errors.

Every command that can run longer than a couple of seconds reports through
:func:`reporter`: a bar (percent, elapsed, ETA) where it knows how far it is
(``kbest``'s chunks, ``study``'s assignments), else the step it is in with the
time elapsed (``score``'s reading, statistics and scoring), redrawn twice a
second. It draws on stderr only when stderr is a terminal (``--progress``
forces it, ``-q/--quiet`` silences it), so piped or redirected output holds no
progress, and only once the command has run for :data:`DELAY` seconds (a quick
command shows nothing). The line it leaves ends with a newline before
anything else is said.

Examples
--------
>>> import io as _io
>>> out = _io.StringIO()
>>> with Progress(out, label="demo", enabled=True, delay=0.0) as bar:
...     bar(50, 100)
>>> "demo [" in out.getvalue() and "50.0%" in out.getvalue()
True
>>> quiet = _io.StringIO()
>>> with Progress(quiet, label="demo", enabled=False) as bar:
...     bar(50, 100)
>>> quiet.getvalue()
''
"""

from __future__ import annotations

import threading
import time
from typing import Any, TextIO

__all__ = ["DELAY", "Progress", "close_all", "line_open", "note", "one_line", "reporter", "step"]

#: Seconds a command runs before its progress is drawn (unless ``--progress`` forces it).
DELAY = 1.0
#: Seconds between two redraws of a step's elapsed time.
_TICK = 0.5

#: reporters that have drawn a line not yet ended by a newline
_OPEN: set = set()
#: the reporter of the running command (what :func:`step` reports to)
_CURRENT: list = []


def line_open() -> bool:
    """True when a reporter's line is unfinished on stderr (an error message then starts a new line)."""
    return bool(_OPEN)


class Progress:
    """A one-line progress report on a text stream: a bar (``bar(done, total)``) or a step (``bar.step(text)``).

    A context manager: leaving the block ends the line (if one was drawn) and
    stops the redraws. ``enabled=False`` draws nothing; ``delay`` seconds pass
    before the first draw.
    """

    def __init__(self, stream: TextIO, *, label: str, enabled: bool, delay: float = DELAY, width: int = 30) -> None:
        self.stream, self.label, self.enabled, self.width = stream, label, enabled, width
        self.start = time.perf_counter()
        self.delay = delay
        self.text = ""
        self.used = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        _CURRENT.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def callback(self) -> "Progress | None":
        """This reporter where a library function takes ``progress(done, total)``, or None when it draws nothing."""
        return self if self.enabled else None

    def _draw(self, line: str) -> None:
        if time.perf_counter() - self.start < self.delay:
            return
        with self._lock:
            if self._stop.is_set():
                return
            self.stream.write(f"\r{line}\x1b[K" if _is_terminal(self.stream) else f"\r{line}")
            self.stream.flush()
            self.used = True
            _OPEN.add(id(self))

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        frac = min(1.0, done / total) if total else 1.0
        elapsed = time.perf_counter() - self.start
        eta = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        filled = int(round(frac * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        self._draw(f"{self.label} [{bar}] {100 * frac:5.1f}%  {elapsed:6.1f}s  eta {eta:5.1f}s")

    def step(self, text: str) -> None:
        """Say the step the command is in; its elapsed time is redrawn until the next step or the end."""
        if not self.enabled:
            return
        self.text = text
        self._draw(self._step_line())
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="bleustats-progress", daemon=True)
            self._ticker.start()

    def _step_line(self) -> str:
        return f"{self.label}: {self.text}  {time.perf_counter() - self.start:6.1f}s"

    def _tick(self) -> None:
        while not self._stop.wait(_TICK):
            self._draw(self._step_line())

    def close(self) -> None:
        """End the line (if one was drawn) and stop the redraws; idempotent."""
        with self._lock:
            self._stop.set()
            if self in _CURRENT:
                _CURRENT.remove(self)
            if id(self) in _OPEN:
                _OPEN.discard(id(self))
                self.stream.write("\n")
                self.stream.flush()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def reporter(args: Any, label: str, stream: TextIO | None = None) -> Progress:
    """The progress reporter of a command: drawn on a terminal (or with ``--progress``), never with ``-q``."""
    import sys

    stream = stream if stream is not None else sys.stderr
    forced = bool(getattr(args, "progress", False))
    quiet = bool(getattr(args, "quiet", False))
    enabled = not quiet and (forced or _is_terminal(stream))
    return Progress(stream, label=label, enabled=enabled, delay=0.0 if forced else DELAY)


def close_all() -> None:
    """End the running command's progress line(s) before its results are printed."""
    for progress in list(_CURRENT):
        progress.close()


def note(args: Any, text: str, stream: TextIO | None = None) -> None:
    r"""A note of the running command on stderr (timings, files written), after its progress line; none with -q.

    Examples
    --------
    >>> import argparse, io as _io
    >>> out = _io.StringIO()
    >>> note(argparse.Namespace(quiet=False), "wrote x", out); note(argparse.Namespace(quiet=True), "wrote y", out)
    >>> out.getvalue()
    'wrote x\n'
    """
    import sys

    if getattr(args, "quiet", False):
        return
    close_all()
    print(text, file=stream if stream is not None else sys.stderr)


def step(text: str) -> None:
    """Say the step the running command is in, on its reporter (nothing when there is none or it draws nothing)."""
    if _CURRENT:
        _CURRENT[-1].step(text)


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
