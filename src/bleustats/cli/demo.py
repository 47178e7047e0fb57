"""``bleustats demo``: BLEU and ΔBLEU per system on the bundled WMT21 en-de sample."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import sample_data
from ..engine import io
from ..engine.stats import compute_stats
from .score import add_score_options, print_scores

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``demo`` subcommand."""
    p = subparsers.add_parser("demo", help="score the bundled WMT21 en-de sample (BLEU and ΔBLEU per system)")
    add_score_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats demo``."""
    paths = sample_data.paths()
    print(f"# bundled sample: WMT21 en-de, {paths['hypotheses'].parent}", file=sys.stderr)
    print(f"# same as: bleustats score -i {paths['hypotheses']} {paths['references']}", file=sys.stderr)
    stats = compute_stats(io.read_table(paths["hypotheses"], "hypotheses"),
                          io.read_table(paths["references"], "references"))
    if args.metric is None:
        args.metric = "both"
    print_scores(args, stats)
    return 0
