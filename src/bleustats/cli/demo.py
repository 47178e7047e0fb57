"""``bleustats demo``: BLEU and ΔBLEU per system on the bundled WMT21 en-de sample.

``bleustats demo --write-files DIR`` writes the files the README's command-line
examples read (:func:`bleustats.sample_data.example_files`) instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import sample_data
from ..errors import InputError
from ._errors import guarded
from .main import COMMANDS
from ._options import Command

__all__ = ["EXAMPLES", "add_parser", "run", "write_files"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats demo",
    "bleustats demo --write-files .                                 # the example files below, from the sample",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``demo`` subcommand."""
    from .score import add_score_options

    cmd = Command(subparsers, "demo", summary=COMMANDS["demo"], examples=EXAMPLES,
                  description=("Score the bundled WMT21 en-de sample (8 systems, 527 MQM-rated segments,\n"
                               "references A and C with weights): BLEU and ΔBLEU per system, as bleustats score\n"
                               "prints them."))
    cmd.own("--write-files", metavar="DIR", default=None, role="output", kind="into", group="outputs",
            help="write the README's example files (" + ", ".join(sample_data.EXAMPLE_FILES)
            + ") into DIR, made from the sample, and score nothing; a file already there with other content is "
              "replaced only with --replace")
    cmd.add("replace")
    add_score_options(cmd, sacrebleu=False)
    cmd.parser.set_defaults(func=run)
    return cmd


def write_files(folder: str, *, replace: bool = False) -> list[Path]:
    """Write the README's example files into ``folder``; a file already there with other content needs ``replace``.

    Each file is written whole or not at all; rerunning over the same folder is a no-op.
    """
    from ..engine.io import write_atomic

    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise InputError(f"--write-files: expected a folder, got {str(target)!r}, which is a file")
    files = sample_data.example_files()
    for name, content in files.items():
        path = target / name
        if path.exists() and (not path.is_file() or (path.read_bytes() != content and not replace)):
            raise InputError(f"--write-files: {str(path)!r} exists with other content; nothing was written "
                             "(add --replace to replace it, or choose another folder)")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in files.items():
        path = target / name
        if not (path.is_file() and path.read_bytes() == content):
            write_atomic(path, lambda tmp, content=content: Path(tmp).write_bytes(content))
        written.append(path)
    return written


def run(args: argparse.Namespace, *, stdout: Any = None, stderr: Any = None) -> int:
    """Run ``bleustats demo``; returns the exit code (errors are said on ``stderr`` as one line)."""
    return guarded("demo", _run, args, stderr)


def _run(args: argparse.Namespace) -> int:
    if args.write_files is not None:
        for path in write_files(args.write_files, replace=args.replace):
            print(path)
        return 0
    from ..engine import io
    from ..engine.stats import compute_stats
    from .score import print_scores

    paths = sample_data.paths()
    print(f"# bundled sample: WMT21 en-de, {paths['hypotheses'].parent}", file=sys.stderr)
    print(f"# same as: bleustats score {paths['references']} -i {paths['hypotheses']}", file=sys.stderr)
    stats = compute_stats(io.read_table(paths["hypotheses"], "hypotheses"),
                          io.read_table(paths["references"], "references"))
    if args.metrics is None:
        args.metrics = ["bleu", "delta_bleu"]
    print_scores(args, stats)
    return 0
