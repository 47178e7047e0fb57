"""``bleustats analyze``: BLEU's blind spots on one system output (Callison-Burch et al. 2006).

For every sentence the command counts the chunk permutations that score at
least as high as the sentence itself, and checks random permutations against
the original (:mod:`bleustats.tools.blind_spots`). It takes the same inputs as
``bleustats score``: plain-text reference files (one per reference stream) as
positional arguments, ``-i`` hypotheses (default: standard input), ``-tok`` and
``-lc``. Results go to stdout (text, or ``--json``), errors to stderr; exit code
0 ok, 1 error. Usage errors exit with 2, from argparse.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="bleustats")
>>> add_parser(parser.add_subparsers(dest="command"))
>>> args = parser.parse_args(["analyze", "ref.txt", "-i", "hyp.txt", "--permutations", "5", "--json"])
>>> args.refs, args.input, args.permutations, args.seed, args.json
(['ref.txt'], 'hyp.txt', 5, 0, True)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .main import COMMANDS
from ..engine._options import MAX_ORDER_LIMIT
from ..errors import InputError
from ..tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
from ._progress import one_line

if TYPE_CHECKING:
    from ..tools import blind_spots

__all__ = ["add_parser", "run"]


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0; got {value}")
    return value


def _order(text: str) -> int:
    value = _non_negative_int(text)
    if not 2 <= value <= MAX_ORDER_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 2 to {MAX_ORDER_LIMIT}; got {value}")
    return value


def add_parser(subparsers: Any) -> None:
    """Add the ``analyze`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "analyze",
        help=COMMANDS["analyze"],
        description="Cut every hypothesis at the bigrams that match no reference; report log10 of the "
                    "number of chunk permutations that score at least as high, per sentence and in "
                    "summary, and check random permutations against the originals.",
    )
    p.add_argument("refs", nargs="*", metavar="REF",
                   help="reference files, one segment per line (one file per reference stream)")
    p.add_argument("-i", "--input", metavar="HYP",
                   help="hypotheses, one segment per line (default: standard input)")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER,
                   help="tokenizer, as sacreBLEU's (default: %(default)s)")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=_order, default=4, metavar="N",
                   help=f"largest n-gram order, 2..{MAX_ORDER_LIMIT} (default: %(default)s)")
    p.add_argument("--permutations", type=_non_negative_int, default=20, metavar="K",
                   help="random chunk permutations checked per sentence; 0 skips the check "
                        "(default: %(default)s)")
    p.add_argument("--seed", type=_non_negative_int, default=0,
                   help="seed of the random permutations (default: %(default)s)")
    p.add_argument("--bin-width", type=_non_negative_int, default=10, metavar="W",
                   help="sentence-length bin of the summary table (default: %(default)s)")
    p.add_argument("--plot", metavar="PNG",
                   help="also write the length vs log10-permutations scatter (needs matplotlib)")
    p.add_argument("--json", action="store_true",
                   help="print JSON (summary, length table and per-sentence rows) instead of text")
    p.set_defaults(func=run)


def _read_inputs(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    from ..engine import io

    if not args.refs:
        raise InputError("no references: give reference files as positional arguments.")
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


def run(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run ``bleustats analyze`` with parsed arguments; return the exit code (0 ok, 1 error)."""
    from ..tools import blind_spots

    out = out if out is not None else sys.stdout
    try:
        if args.bin_width < 1:
            raise ValueError(f"--bin-width: must be >= 1; got {args.bin_width}.")
        hyps, streams = _read_inputs(args)
        report = blind_spots.corpus_report(
            hyps, streams, references_layout="streams", permutations=args.permutations, seed=args.seed,
            tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
        if args.plot:
            report.plot(args.plot, title=f"{args.input or 'stdin'}: {len(report)} sentences")
            print(f"wrote {args.plot}", file=sys.stderr)
        if args.json:
            payload = report.to_dict()
            if len(report):
                payload["by_length"] = report.by_length(bin_width=args.bin_width).to_dict(orient="records")
            print(json.dumps(_finite(payload), ensure_ascii=False, indent=1, allow_nan=False), file=out)
        else:
            _print_text(report, args, out)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"bleustats: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"bleustats: error: {one_line(exc.strerror or exc)}", file=sys.stderr)
        return 1
    return 0
