"""The one error path of the command line: every error a command meets becomes one line and an exit status.

``bleustats <command>: error: <what, the value, the fix>`` on stderr, then exit
status 2 for a usage error (:class:`~bleustats.errors.UsageError`: options that
cannot go together, an output that is an input; argparse's own usage errors
are one line too, :class:`bleustats.cli.main.Parser`) and 1 for every other
error (bad input, a missing optional package, the machine's ``OSError``).
:func:`bleustats.cli.main.main` sends every command's errors here; a
subcommand's ``run`` called by itself (as the tests of the tools do) gets the
same through :func:`guarded`.

Examples
--------
>>> import io
>>> from bleustats.errors import UsageError
>>> err = io.StringIO()
>>> report("score", UsageError("-b and --json: choose one."), err), err.getvalue()
(2, 'bleustats score: error: -b and --json: choose one.\\n')
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, TextIO

from ..errors import MissingExtraError, UsageError
from ._progress import line_open, one_line

__all__ = ["ERRORS", "guarded", "report", "signal_received"]

#: The exceptions that are errors of the input, the options or the machine (anything else is a bug: a traceback).
#: InputError and SchemaError are ValueErrors; a missing optional package is an ImportError.
ERRORS = (ValueError, TypeError, OSError, MissingExtraError)


#: The signal state of each command running (:func:`bleustats.cli.main.main` pushes and pops it).
RUNNING: list = []


def signal_received() -> bool:
    """Whether SIGINT / SIGTERM arrived during the running command (an error it raised then is the interrupt's)."""
    return bool(RUNNING) and RUNNING[-1].signum is not None


def report(command: str | None, exc: BaseException, stream: TextIO | None = None) -> int:
    """Print ``exc`` as one line for ``command`` on ``stream`` (stderr); returns the exit status (2 usage, else 1)."""
    stream = stream if stream is not None else sys.stderr
    if isinstance(exc, OSError) and not isinstance(exc, MissingExtraError):
        text = one_line(exc.strerror or exc)
    else:
        text = one_line(exc)
    prefix = f"bleustats {command}" if command else "bleustats"
    try:
        print(("\n" if line_open() else "") + f"{prefix}: error: {text}", file=stream)
    except (OSError, ValueError):  # stderr closed
        pass
    return 2 if isinstance(exc, UsageError) else 1


def guarded(command: str, work: Callable[..., int], args: argparse.Namespace, err: TextIO | None,
            **kwargs: Any) -> int:
    """``work(args, **kwargs)``, its errors reported on ``err`` (stderr) by :func:`report` (an interrupt is left
    to the caller)."""
    try:
        return work(args, **kwargs)
    except BrokenPipeError:  # the reader of the output went away: the caller stops quietly (cli.main)
        raise
    except ERRORS as exc:
        if signal_received():  # an interrupt inside a C extension can surface as another error
            raise
        return report(command, exc, err)
