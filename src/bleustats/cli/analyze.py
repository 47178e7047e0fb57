"""``bleustats analyze``: BLEU's blind spots on one system output (Callison-Burch et al. 2006).

For every sentence the command counts the chunk permutations that score at
least as high as the sentence itself, and checks random permutations against
the original (:mod:`bleustats.tools.blind_spots`). It takes the same inputs as
``bleustats score``: plain-text reference files (one per reference stream) as
positional arguments or ``-r/--references``, ``-i`` hypotheses (one file;
default: standard input), ``-tok`` (every tokenizer) and ``-lc``. Results go
to stdout (text, or ``--json``), errors to stderr as one line; exit code 0 ok,
1 error, 2 usage.

Examples
--------
>>> from bleustats.cli.main import Parser
>>> parser = Parser(prog="bleustats")
>>> _ = add_parser(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["analyze", "ref.txt", "-i", "hyp.txt", "--permutations", "5", "--json"])
>>> args.refs, args.input, args.permutations, args.seed, args.json
(['ref.txt'], ['hyp.txt'], 5, 0, True)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..engine._options import MAX_ORDER_LIMIT
from ..errors import InputError, UsageError
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, non_negative_int, positive_int
from ._progress import close_all, reporter, step

if TYPE_CHECKING:
    from ..tools import blind_spots

__all__ = ["EXAMPLES", "add_parser", "run"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats analyze ref0.txt -i hyp.txt --permutations 20 --plot perms.png",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``analyze`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "analyze", summary=COMMANDS["analyze"], examples=EXAMPLES,
                  description=("Cut every hypothesis at the bigrams that match no reference; report log10 of the\n"
                               "number of chunk permutations that score at least as high, per sentence and in\n"
                               "summary, and check random permutations against the originals."))
    cmd.add("refs", "references", "input")
    cmd.add("tokenize", "lowercase", "max_ngram_order")
    cmd.own("--permutations", type=non_negative_int, default=20, metavar="K", group="randomness",
            help="random chunk permutations checked per sentence; 0 skips the check (default: %(default)s)")
    cmd.add("seed")
    cmd.own("--bin-width", type=positive_int, default=10, metavar="W", group="outputs",
            help="sentence-length bin of the summary table (default: %(default)s)")
    cmd.own("--plot", metavar="PNG", role="output", group="outputs",
            help="also write the length vs log10-permutations scatter (needs matplotlib)")
    cmd.add("replace", "json", "quiet", "progress")
    cmd.parser.set_defaults(func=run)
    return cmd


def _read_inputs(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    from ..engine import io
    from .sacrebleu_cli import no_references

    args.refs = [*(args.refs or []), *(args.references or [])]
    if isinstance(args.input, list):
        if len(args.input) > 1:
            raise UsageError(f"-i: {len(args.input)} hypotheses files; analyze reads one system's output.")
        args.input = args.input[0]
    if not args.refs:
        raise no_references("analyze")
    for path in [args.input, *args.refs]:
        if path is not None and Path(path).suffix.lower() in io.TABLE_SUFFIXES:
            raise InputError(f"{path}: analyze reads plain-text files (one segment per line); "
                                "long-form tables are not supported here. Export one system's lines.")
    if args.input:
        hyps = io.read_lines(args.input).to_pylist()
    else:
        text = sys.stdin.read()
        hyps = text[:-1].split("\n") if text.endswith("\n") else (text.split("\n") if text else [])
    streams = []
    for path in args.refs:
        lines = io.read_lines(path).to_pylist()
        if len(lines) != len(hyps):
            raise InputError(f"{path}: has {len(lines)} lines but the hypotheses have {len(hyps)}; "
                                "every reference file must have one line per hypothesis.")
        streams.append(lines)
    return hyps, streams


def _finite(obj: Any) -> Any:
    """NaN (an undefined statistic, e.g. of no sentences) as JSON null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def _fmt(x: float) -> str:
    return "nan" if isinstance(x, float) and math.isnan(x) else f"{x:.2f}"


def _print_text(report: blind_spots.CorpusReport, args: argparse.Namespace, out: TextIO) -> None:
    s = report.summary()
    print(f"sentences: {s['sentences']}   tokens: {s['tokens']}", file=out)
    print("log10 #permutations with the same or higher BLEU (chunks!): "
          f"mean {_fmt(s['mean_log10_permutations'])}  median {_fmt(s['median_log10_permutations'])}  "
          f"max {_fmt(s['max_log10_permutations'])}", file=out)
    print(f"mean chunks {_fmt(s['mean_n_chunks'])}; share with >= 10^6: {_fmt(s['share_at_least_1e6'])}, "
          f">= 10^20: {_fmt(s['share_at_least_1e20'])}; Pearson r(length, log10) {_fmt(s['corr_length'])}",
          file=out)
    if len(report):
        print(report.by_length(bin_width=args.bin_width).to_string(index=False, float_format="%.2f"), file=out)
    chk = report.check
    if chk is not None:
        c = chk.summary()
        print(f"permutation check: {c['permutations_scored']} permutations of "
              f"{c['sentences_with_a_permutation']} sentences (up to {c['permutations_per_sentence']} each, "
              f"seed {c['seed']}): {c['lowered']} lowered a match count, {c['raised']} raised one "
              f"(in {c['sentences_raised']} sentences), {c['score_raised']} raised sentence BLEU", file=out)
    print(f"signature: {report.signature}", file=out)


def run(args: argparse.Namespace, *, out: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats analyze`` with parsed arguments; return the exit code (0 ok, 1 error, 2 usage)."""
    return guarded("analyze", _run, args, stderr, out=out)


def _run(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    from ..tools import blind_spots

    out = out if out is not None else sys.stdout
    if args.max_ngram_order < 2:
        raise UsageError(f"--max-ngram-order {args.max_ngram_order}: analyze cuts hypotheses at bigrams that match "
                         f"no reference, so it needs order 2 or more (2 to {MAX_ORDER_LIMIT}).")
    hyps, streams = _read_inputs(args)
    with reporter(args, "bleustats analyze"):
        step("counting the chunk permutations")
        report = blind_spots.corpus_report(
            hyps, streams, references_layout="streams", permutations=args.permutations, seed=args.seed,
            tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
        if args.plot:
            step("drawing")
            report.plot(args.plot, title=f"{args.input or 'stdin'}: {len(report)} sentences")
    close_all()
    if args.plot and not args.quiet:
        print(f"wrote {args.plot}", file=sys.stderr)
    if args.json:
        payload = report.to_dict()
        if len(report):
            payload["by_length"] = report.by_length(bin_width=args.bin_width).to_dict(orient="records")
        print(json.dumps(_finite(payload), ensure_ascii=False, indent=1, allow_nan=False), file=out)
    else:
        _print_text(report, args, out)
    return 0
