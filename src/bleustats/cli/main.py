"""The ``bleustats`` command: one parser, one module per subcommand, one error policy.

Subcommands: ``score``, ``stats``, ``kbest``, ``analyze``, ``study``, ``demo``
(``bleustats <command> -h``). Results go to stdout, errors to stderr as one
line; exit code 0 ok, 1 error, 2 usage (argparse's, and
:class:`bleustats.errors.UsageError`: options that cannot go together).

Interrupts: SIGINT (Ctrl-C) and SIGTERM end the command with one line on
stderr (``bleustats: interrupted`` / ``bleustats: terminated``) and exit
status 130 / 143 (128 + the signal), also when the signal lands inside a
numba kernel or while a reader thread runs; output files are written whole or
not at all (:func:`bleustats.engine.io.write_atomic`), so an interrupted
command leaves no partial or temporary file. A second signal while the first
is being handled is ignored, so that clean-up finishes.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any, Sequence

from .._version import __version__
from ..engine.stats import MAX_ORDER_LIMIT
from ..errors import UsageError
from . import _progress, analyze, demo, kbest, score, stats, study
from ._progress import one_line

__all__ = ["main"]

_SIGNAL_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}

_SUBCOMMANDS = (score, stats, kbest, analyze, study, demo)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bleustats",
        description="BLEU, ΔBLEU and sentence BLEU from cached sufficient statistics.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in _SUBCOMMANDS:
        module.add_parser(sub)
    return parser


class _Signalled(BaseException):
    """Raised in the main thread by the SIGTERM handler (SIGINT raises KeyboardInterrupt)."""


def _handle_signals() -> tuple[dict, list[int]]:
    """Install the handlers; returns the previous ones and the list that records the signal received."""
    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        if received:  # already unwinding: let the clean-up finish
            return
        received.append(signum)
        raise KeyboardInterrupt if signum == signal.SIGINT else _Signalled()

    previous = {}
    for sig in _SIGNAL_NAMES:
        try:
            previous[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread (main() called from a thread): leave them
            pass
    return previous, received


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 error, 2 usage, 130 / 143 interrupted)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "width", 0) < 0:
            parser.error(f"argument -w/--width: must be >= 0; got {args.width}")
        if getattr(args, "max_ngram_order", None) is not None and not 1 <= args.max_ngram_order <= MAX_ORDER_LIMIT:
            parser.error(f"argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT}; "
                         f"got {args.max_ngram_order}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    previous, received = _handle_signals()
    try:
        return args.func(args)
    except UsageError as exc:  # options that cannot go together
        print(f"bleustats {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:  # InputError and SchemaError are ValueErrors
        if received:  # a signal raised inside a C extension can surface as another error
            return _interrupted(received[0])
        print(f"bleustats: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the output folder is missing or the disk is full
        if received:
            return _interrupted(received[0])
        print(f"bleustats: error: {one_line(exc.strerror or exc)}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, _Signalled, SystemError):
        # numba's dispatcher turns an exception raised by a signal handler during a call into
        # "SystemError: ... returned a result with an exception set"
        if not received and not isinstance(sys.exc_info()[1], KeyboardInterrupt):
            raise
        return _interrupted(received[0] if received else signal.SIGINT)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _interrupted(signum: int) -> int:
    try:
        print(f"\nbleustats: {_SIGNAL_NAMES.get(signum, 'interrupted')}" if _progress.line_open()
              else f"bleustats: {_SIGNAL_NAMES.get(signum, 'interrupted')}", file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed
        pass
    return 128 + int(signum)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
