"""Steps that an interrupt must not split: making or removing a temporary file.

:func:`bleustats.engine.io.write_atomic` makes its temporary file inside
:func:`deferred`; the command line's SIGINT / SIGTERM handler
(:mod:`bleustats.cli.main`) raises its exception only when :func:`deferring`
is false, and otherwise delivers the signal again a moment later. So a
temporary file is never made without the code that removes it knowing its
name. (Python runs signal handlers in the main thread only.)

Examples
--------
>>> with deferred():
...     deferring()
True
>>> deferring()
False
"""

from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["deferred", "deferring"]

_depth = 0


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A block that the command line's interrupt waits for."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1


def deferring() -> bool:
    """True inside :func:`deferred`."""
    return _depth > 0
