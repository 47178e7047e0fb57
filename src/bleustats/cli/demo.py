"""``bleustats demo``: BLEU and ΔBLEU per system on the bundled WMT21 en-de sample.

``bleustats demo --write-files DIR`` writes the files the README's command-line
examples read (:func:`bleustats.sample_data.example_files`) instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .main import COMMANDS
from .. import sample_data
from ..errors import InputError

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``demo`` subcommand."""
    from .score import add_score_options

    p = subparsers.add_parser("demo", help=COMMANDS["demo"])
    p.add_argument("--write-files", metavar="DIR", default=None,
                   help="write the README's example files (" + ", ".join(sample_data.EXAMPLE_FILES)
                   + ") into DIR, made from the sample, and score nothing")
    add_score_options(p)
    p.set_defaults(func=run)


def write_files(folder: str) -> list[Path]:
    """Write the README's example files into ``folder``; a file already there with other content is refused.

    Each file is written whole or not at all; rerunning over the same folder is a no-op.
    """
    from ..engine.io import write_atomic

    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise InputError(f"--write-files: expected a folder, got {str(target)!r}, which is a file")
    files = sample_data.example_files()
    for name, content in files.items():
        path = target / name
        if path.exists() and (not path.is_file() or path.read_bytes() != content):
            raise InputError(f"--write-files: {str(path)!r} exists with other content; nothing was written "
                             "(remove it or choose another folder)")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in files.items():
        path = target / name
        write_atomic(path, lambda tmp, content=content: Path(tmp).write_bytes(content))
        written.append(path)
    return written


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats demo``."""
    if args.write_files is not None:
        for path in write_files(args.write_files):
            print(path)
        return 0
    from ..engine import io
    from ..engine.stats import compute_stats
    from .score import print_scores

    paths = sample_data.paths()
    print(f"# bundled sample: WMT21 en-de, {paths['hypotheses'].parent}", file=sys.stderr)
    print(f"# same as: bleustats score -i {paths['hypotheses']} {paths['references']}", file=sys.stderr)
    stats = compute_stats(io.read_table(paths["hypotheses"], "hypotheses"),
                          io.read_table(paths["references"], "references"))
    if args.metric is None:
        args.metric = "both"
    print_scores(args, stats)
    return 0
