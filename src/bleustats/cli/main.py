"""The ``bleustats`` command: one parser, one module per subcommand, one error policy.

Subcommands: ``score``, ``stats``, ``kbest``, ``tune``, ``analyze``, ``study``, ``correlate``, ``demo``
(``bleustats <command> -h``). Results go to stdout, errors to stderr as one
line; exit code 0 ok, 1 error, 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .._version import __version__
from ..engine.stats import MAX_ORDER_LIMIT
from . import analyze, correlate, demo, kbest, score, stats, study, tune

__all__ = ["main"]

_SUBCOMMANDS = (score, stats, kbest, tune, analyze, study, correlate, demo)


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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 error, 2 usage)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "width", 0) < 0:
            parser.error(f"argument -w/--width: must be >= 0; got {args.width}")
        if not 1 <= getattr(args, "max_ngram_order", 1) <= MAX_ORDER_LIMIT:
            parser.error(f"argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT}; "
                         f"got {args.max_ngram_order}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:  # InputError and SchemaError are ValueErrors
        print(f"bleustats: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the output folder is missing or the disk is full
        print(f"bleustats: error: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
