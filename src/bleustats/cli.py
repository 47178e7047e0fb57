"""Command line: ``bleustats score``, ``stats``, ``kbest``, ``tune``, ``analyze`` and ``demo``.

``bleustats score`` takes sacreBLEU's BLEU arguments (reference files as
positional arguments, ``-i`` hypotheses, ``-tok``, ``-lc``, ``-s``, ``-sv``,
``--max-ngram-order`` ...) plus ``--ref-weights`` and ``--json``. A path ending
in ``.tsv``, ``.jsonl`` or ``.parquet`` is read as a long-form table, so one
hypotheses table can hold many systems (scored per system). Results go to
stdout, errors to stderr; exit code 0 ok, 1 error, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

import pyarrow as pa

from . import cli_analyze, cli_kbest, cli_study, cli_tune, io, sample_data, scoring
from ._version import __version__
from .schemas import SchemaError
from .stats import (DELTA_DEFINITIONS, MAX_ORDER_LIMIT, REF_VIEWS, StatsTable, compute_stats,
                    compute_stats_files, load_stats)
from .tokenize import DEFAULT_TOKENIZER, TOKENIZERS

__all__ = ["main"]

_METRIC_CHOICES = ("bleu", "delta_bleu", "both")


def _add_stats_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("refs", nargs="*", metavar="REF",
                   help="reference files, one segment per line (one file per reference stream), or one "
                        "long-form references table (.tsv/.jsonl/.parquet with seg_id, ref_id, weight, text)")
    p.add_argument("-i", "--input", metavar="HYP",
                   help="hypotheses: a text file (one segment per line) or a long-form table "
                        "(seg_id, system, text); default: standard input")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER,
                   help="tokenizer, as sacreBLEU's (default: %(default)s)")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=4, metavar="N",
                   help=f"largest n-gram order, 1..{MAX_ORDER_LIMIT} (default: %(default)s)")
    p.add_argument("--ref-weights", nargs="+", metavar="FILE",
                   help="ΔBLEU weights in [-1, 1]: one file per reference file, one weight per line")
    p.add_argument("--ref-view", choices=REF_VIEWS, default="all",
                   help="references used: all, weight >= --weight-threshold, or the first (default: %(default)s)")
    p.add_argument("--weight-threshold", type=float, default=None, metavar="THETA",
                   help="θ of --ref-view threshold")
    p.add_argument("--delta-definition", choices=DELTA_DEFINITIONS, default="paper",
                   help="ΔBLEU weighted matches: the paper's or the 2019 implementation's (default: %(default)s)")


def _add_score_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-s", "--smooth-method", choices=scoring.SMOOTH_METHODS, default="exp",
                   help="smoothing (default: %(default)s)")
    p.add_argument("-sv", "--smooth-value", type=float, default=None,
                   help="k of floor (default 0.1) and add-k (default 1)")
    p.add_argument("-eff", "--use-effective-order", action="store_true",
                   help="average precisions only up to the last order with n-grams")
    p.add_argument("--ref-length", choices=scoring.REF_LENGTHS, default="closest",
                   help="reference length of the brevity penalty (default: %(default)s)")
    p.add_argument("--metric", choices=_METRIC_CHOICES, default=None,
                   help="bleu, delta_bleu or both (default: both when weights are given, else bleu)")
    p.add_argument("--by", default=None, metavar="COLUMN",
                   help="score per group of this statistics column (default: per system when there "
                        "are several)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("-w", "--width", type=int, default=2, help="decimals of the score (default: %(default)s)")
    p.add_argument("-b", "--score-only", action="store_true", help="print only the score")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bleustats",
        description="BLEU, ΔBLEU and sentence BLEU from cached sufficient statistics.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="corpus BLEU / ΔBLEU of hypotheses against references",
                           description="Corpus BLEU / ΔBLEU, sacreBLEU-compatible arguments.")
    _add_stats_options(score)
    _add_score_options(score)
    score.add_argument("--from-stats", metavar="PARQUET",
                       help="score a saved statistics table instead of texts (no REF/-i)")
    score.add_argument("--save-stats", metavar="PARQUET", help="also save the statistics table")
    stats = sub.add_parser("stats", help="compute the per-hypothesis statistics table and save it",
                           description="Compute per-hypothesis sufficient statistics and save them "
                                       "to Parquet for later rescoring.")
    _add_stats_options(stats)
    stats.add_argument("-o", "--output", required=True, metavar="PARQUET", help="output Parquet file")
    demo = sub.add_parser("demo", help="score the bundled WMT21 en-de sample (BLEU and ΔBLEU per system)")
    _add_score_options(demo)
    cli_analyze.add_parser(sub)
    cli_kbest.add_parser(sub)
    cli_study.add_parser(sub)
    cli_tune.add_parser(sub)
    return parser


def _is_table_path(path: str | None) -> bool:
    return path is not None and Path(path).suffix.lower() in io.TABLE_SUFFIXES


def _read_stdin_lines() -> pa.Array:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise io.InputError(f"standard input: not valid UTF-8 at line {line} ({exc.reason}).") from None
    if text.endswith("\n"):
        text = text[:-1]
    return pa.array(text.split("\n") if text else [], pa.string())


def _compute(args: argparse.Namespace) -> StatsTable:
    if not args.refs:
        raise io.InputError("no references: give reference files (or one references table) as "
                            "positional arguments.")
    options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order,
                   ref_view=args.ref_view, weight_threshold=args.weight_threshold,
                   delta_definition=args.delta_definition)
    plain = args.input and not _is_table_path(args.input) and not any(_is_table_path(r) for r in args.refs)
    if args.ref_weights and plain and len(args.ref_weights) != len(args.refs):
        raise io.InputError(f"--ref-weights: need one weight file per reference file ({len(args.refs)}); "
                            f"got {len(args.ref_weights)}.")
    if plain:  # line-aligned text files: streamed in chunks, memory stays bounded
        return compute_stats_files(args.input, args.refs, ref_weight_paths=args.ref_weights, **options)
    if _is_table_path(args.input):
        hyps = io.read_table(args.input, "hypotheses")
    else:
        lines = io.read_lines(args.input) if args.input else _read_stdin_lines()
        hyps = io.lines_table(lines)
    if len(args.refs) == 1 and _is_table_path(args.refs[0]):
        if args.ref_weights:
            raise io.InputError("--ref-weights: a references table carries its weights in its "
                                "'weight' column; drop --ref-weights.")
        refs = io.read_table(args.refs[0], "references")
    else:
        tables = [r for r in args.refs if _is_table_path(r)]
        if tables:
            raise io.InputError(f"references: {tables[0]} is a table; give either one references "
                                "table or plain-text reference files, not a mix.")
        if _is_table_path(args.input):
            raise io.InputError("references: plain-text reference files pair with plain-text "
                                "hypotheses line by line; with a hypotheses table give a references table.")
        streams = [io.read_lines(p) for p in args.refs]
        weights = None
        if args.ref_weights:
            if len(args.ref_weights) != len(args.refs):
                raise io.InputError(
                    f"--ref-weights: need one weight file per reference file ({len(args.refs)}); "
                    f"got {len(args.ref_weights)}.")
            weights = [io.read_weights(w, n=len(s), ref_path=r)
                       for w, s, r in zip(args.ref_weights, streams, args.refs)]
        refs = io.streams_table(streams, weights, n_hyp=len(hyps), names=args.refs)
    return compute_stats(hyps, refs, **options)


def _metrics(args: argparse.Namespace, stats: StatsTable) -> list[str]:
    if args.metric == "both" or (args.metric is None and stats.weights == "custom"):
        return ["bleu", "delta_bleu"]
    return [args.metric or "bleu"]


def _report(args: argparse.Namespace, stats: StatsTable, out=None) -> None:
    out = out if out is not None else sys.stdout
    options = dict(smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                   use_effective_order=args.use_effective_order, ref_length=args.ref_length)
    by = args.by
    if by is None and len(set(stats.column("system"))) > 1:
        by = "system"
    metrics = _metrics(args, stats)
    if by is None:
        results = [scoring.corpus_score(stats, metric=m, **options) for m in metrics]
        if args.json:
            payload = [r.to_dict(args.width) for r in results]
            print(json.dumps(payload[0] if len(payload) == 1 else payload, ensure_ascii=False, indent=1), file=out)
            return
        for r in results:
            print(r.format(args.width, score_only=args.score_only), file=out)
            if not args.score_only:
                print(f"  signature: {r.signature}", file=out)
        return
    frames = {m: scoring.corpus_scores(stats, by=by, metric=m, **options) for m in metrics}
    if args.json:
        payload = {m: {"signature": f.attrs["signature"], "scores": json.loads(f.to_json(orient="records"))}
                   for m, f in frames.items()}
        print(json.dumps(payload, ensure_ascii=False, indent=1), file=out)
        return
    keys = frames[metrics[0]][by].tolist()
    names = {"bleu": "BLEU", "delta_bleu": "ΔBLEU"}
    label_w = max(len(by), *(len(str(k)) for k in keys))
    print(f"{by:<{label_w}}  " + "  ".join(f"{names[m]:>7}" for m in metrics), file=out)
    for i, key in enumerate(keys):
        cells = "  ".join(f"{frames[m]['score'].iloc[i]:>7.{args.width}f}" for m in metrics)
        print(f"{str(key):<{label_w}}  {cells}", file=out)
    if not args.score_only:
        for m in metrics:
            print(f"{names[m]} signature: {frames[m].attrs['signature']}", file=out)


def _demo(args: argparse.Namespace) -> None:
    paths = sample_data.paths()
    print(f"# bundled sample: WMT21 en-de, {paths['hypotheses'].parent}", file=sys.stderr)
    print(f"# same as: bleustats score -i {paths['hypotheses']} {paths['references']}", file=sys.stderr)
    stats = compute_stats(io.read_table(paths["hypotheses"], "hypotheses"),
                          io.read_table(paths["references"], "references"))
    if args.metric is None:
        args.metric = "both"
    _report(args, stats)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 error, 2 usage)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "width", 0) < 0:
            parser.error(f"argument -w/--width: must be >= 0; got {args.width}")
        if not 1 <= getattr(args, "max_ngram_order", 1) <= MAX_ORDER_LIMIT:
            parser.error(f"argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT}; got {args.max_ngram_order}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        if args.command == "analyze":
            return cli_analyze.run(args)
        if args.command == "kbest":
            return cli_kbest.run(args)
        if args.command == "study":
            return cli_study.run(args)
        if args.command == "tune":
            return cli_tune.run(args)
        if args.command == "demo":
            _demo(args)
        elif args.command == "stats":
            stats = _compute(args)
            stats.save(args.output)
            print(f"wrote {len(stats)} rows × {stats.table.num_columns} columns to {args.output}", file=sys.stderr)
        else:
            if args.from_stats:
                if args.refs or args.input:
                    raise io.InputError("--from-stats: scores a saved table; drop REF and -i.")
                stats = load_stats(args.from_stats)
            else:
                stats = _compute(args)
                if args.save_stats:
                    stats.save(args.save_stats)
            _report(args, stats)
    except (io.InputError, SchemaError, ValueError, TypeError) as exc:
        print(f"bleustats: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the output folder is missing or the disk is full
        print(f"bleustats: error: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
