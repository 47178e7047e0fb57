"""``bleustats stats``: compute the per-hypothesis statistics table once and save it to Parquet."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .score import add_input_options, compute_from_args

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``stats`` subcommand."""
    p = subparsers.add_parser("stats", help="compute the per-hypothesis statistics table and save it",
                              description="Compute per-hypothesis sufficient statistics and save them "
                                          "to Parquet for later rescoring.")
    add_input_options(p)
    p.add_argument("-o", "--output", required=True, metavar="PARQUET", help="output Parquet file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats stats``; errors propagate to :func:`bleustats.cli.main`."""
    stats = compute_from_args(args)
    stats.save(args.output)
    print(f"wrote {len(stats)} rows × {stats.table.num_columns} columns to {args.output}", file=sys.stderr)
    return 0
