"""``sacrebleu.sacrebleu`` under the shim: sacreBLEU's command-line entry points, running ``bleustats score``.

``main()`` reads ``sys.argv`` as sacreBLEU's ``main()`` does and runs it as
``bleustats score ARGS`` (sacreBLEU's flags, its output); ``parse_args()``
returns that command's parsed arguments.

>>> import sys
>>> sys.argv = ["sacrebleu", "ref.txt", "-i", "hyp.txt", "-m", "bleu", "chrf"]
>>> parse_args().metrics
['bleu', 'chrf']
"""

from __future__ import annotations

import argparse
import sys

from ..cli.main import main as run_command_line
from ..cli import score as _score

__all__ = ["main", "parse_args"]


def parse_args() -> argparse.Namespace:
    """``sys.argv[1:]`` parsed as ``bleustats score`` parses them (a superset of sacreBLEU's flags)."""
    parser = argparse.ArgumentParser(prog="sacrebleu")
    _score.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["score", *sys.argv[1:]])


def main() -> None:
    """Run ``bleustats score`` on ``sys.argv[1:]``; exit with its status when that is not 0."""
    status = run_command_line(["score", *sys.argv[1:]])
    if status:
        sys.exit(status)
