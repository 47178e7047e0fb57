"""``bleustats score``: corpus BLEU / ΔBLEU with sacreBLEU's arguments, from texts, tables or saved statistics.

Reference files are positional arguments and ``-i`` gives the hypotheses, as
for the ``sacrebleu`` command; a path ending in ``.tsv``, ``.jsonl`` or
``.parquet`` is read as a long-form table, so one hypotheses table can hold
many systems (scored per system). ``--from-stats`` rescores a table saved by
``bleustats stats`` without the texts. The pipeline helpers here
(:func:`add_input_options`, :func:`compute_from_args`, :func:`print_scores`)
serve ``stats`` and ``demo`` too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..engine import io
from ..engine.dataset import StatsDataset, open_stats
from ..engine.stats import (DELTA_DEFINITIONS, MAX_ORDER_LIMIT, REF_VIEWS, StatsTable, compute_stats,
                            compute_stats_files)
from ..errors import InputError
from ..metrics.bleu import REF_LENGTHS, SMOOTH_METHODS
from ..metrics.partitioned import corpus_score, corpus_scores, n_systems
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from . import sacrebleu_cli
from ._dask import add_dask_option, executor_for

__all__ = ["add_input_options", "add_parser", "add_score_options", "compute_from_args", "print_scores", "run"]

_METRIC_CHOICES = ("bleu", "delta_bleu", "both")


class _Given(argparse.Action):
    """Store the value and note that it was given (sacreBLEU's mode has other defaults for -w and -tok)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


def add_input_options(p: argparse.ArgumentParser) -> None:
    """Inputs and statistics options shared by ``score`` and ``stats``."""
    p.add_argument("refs", nargs="*", metavar="REF",
                   help="reference files, one segment per line (one file per reference stream), or one "
                        "long-form references table (.tsv/.jsonl/.parquet with seg_id, ref_id, weight, text)")
    p.add_argument("-i", "--input", metavar="HYP", nargs="+",
                   help="hypotheses: a text file (one segment per line) or a long-form table "
                        "(seg_id, system, text); default: standard input. Several files are several "
                        "systems (sacreBLEU's output mode); with no REF before -i, '-i HYP REF...' reads "
                        "the files after HYP as references")
    p.add_argument("-tok", "--tokenize", choices=SACREBLEU_TOKENIZERS, default=DEFAULT_TOKENIZER, action=_Given,
                   help="tokenizer, as sacreBLEU's (default: %(default)s; ja-mecab, ko-mecab, spm, flores* "
                        "need their extras)")
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


def add_score_options(p: argparse.ArgumentParser) -> None:
    """Scoring and output options shared by ``score`` and ``demo``."""
    p.add_argument("-s", "--smooth-method", choices=SMOOTH_METHODS, default="exp",
                   help="smoothing (default: %(default)s)")
    p.add_argument("-sv", "--smooth-value", type=float, default=None,
                   help="k of floor (default 0.1) and add-k (default 1)")
    p.add_argument("-eff", "--use-effective-order", action="store_true",
                   help="average precisions only up to the last order with n-grams")
    p.add_argument("--ref-length", choices=REF_LENGTHS, default="closest",
                   help="reference length of the brevity penalty (default: %(default)s)")
    p.add_argument("--metric", choices=_METRIC_CHOICES, default=None,
                   help="bleu, delta_bleu or both (default: both when weights are given, else bleu)")
    p.add_argument("--by", default=None, metavar="COLUMN",
                   help="score per group of this statistics column (default: per system when there "
                        "are several)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("-w", "--width", type=int, default=2, action=_Given,
                   help="decimals of the score (default: %(default)s; 1 in sacreBLEU's output mode)")
    p.add_argument("-b", "--score-only", action="store_true", help="print only the score")


def add_parser(subparsers: Any) -> None:
    """Add the ``score`` subcommand."""
    p = subparsers.add_parser("score", help="corpus BLEU / ΔBLEU (and chrF, TER) of hypotheses against references",
                              description="Corpus BLEU / ΔBLEU with sacreBLEU's arguments; with -m, -f, -ci, "
                                          "-sl or --paired-*, sacreBLEU's whole command line and output "
                                          "(bleustats.cli.sacrebleu_cli).", allow_abbrev=False)
    add_input_options(p)
    add_score_options(p)
    sacrebleu_cli.add_sacrebleu_options(p)
    p.set_defaults(width_given=None, tokenize_given=None)
    p.add_argument("--from-stats", metavar="PARQUET",
                   help="score a saved statistics table (a .parquet file or a dataset folder) instead of texts "
                        "(no REF/-i)")
    p.add_argument("--save-stats", metavar="PARQUET", help="also save the statistics table")
    add_dask_option(p)
    p.set_defaults(func=run)


def _inputs(args: argparse.Namespace) -> None:
    """``-i`` takes one or more files: with no REF before it, the files after the first are references."""
    if isinstance(args.input, list):
        if not args.refs and len(args.input) > 1:
            args.refs, args.input = args.input[1:], [args.input[0]]
        args.systems = args.input
        args.input = args.input[0]


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats score``; errors propagate to :func:`bleustats.cli.main`."""
    _inputs(args)
    if sacrebleu_cli.wants_sacrebleu(args):
        args.input = getattr(args, "systems", None)
        return sacrebleu_cli.run(args)
    if len(getattr(args, "systems", None) or ()) > 1:
        raise InputError(f"-i: {len(args.systems)} system files; several systems are scored in sacreBLEU's "
                         "output mode (add -f text or -f json), or give one hypotheses table.")
    if args.from_stats:
        if args.refs or args.input:
            raise InputError("--from-stats: scores a saved table; drop REF and -i.")
        stats = open_stats(args.from_stats)  # a dataset folder is scored part by part (--dask: on the cluster)
        if isinstance(stats, StatsDataset):
            with executor_for(args) as executor:
                print_scores(args, stats.with_executor(executor))
            return 0
        if getattr(args, "dask", None):
            raise InputError("--dask: scores a partitioned statistics dataset (a folder written by bleustats "
                             "stats -o DIR); this one is a single file, scored here.")
    else:
        if getattr(args, "dask", None):
            raise InputError("--dask: compute the statistics on the cluster with bleustats stats --dask ... -o DIR, "
                             "then score them with bleustats score --from-stats DIR --dask ...")
        stats = compute_from_args(args)
        if args.save_stats:
            stats.save(args.save_stats)
    print_scores(args, stats)
    return 0


def _is_table_path(path: str | None) -> bool:
    return path is not None and Path(path).suffix.lower() in io.TABLE_SUFFIXES


def _read_stdin_lines() -> pa.Array:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"standard input: not valid UTF-8 at line {line} ({exc.reason}).") from None
    if text.endswith("\n"):
        text = text[:-1]
    return pa.array(text.split("\n") if text else [], pa.string())


def compute_from_args(args: argparse.Namespace) -> StatsTable:
    """The statistics table of the inputs named by ``score`` / ``stats`` arguments."""
    _inputs(args)
    if not args.refs:
        raise InputError("no references: give reference files (or one references table) as "
                            "positional arguments.")
    options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order,
                   ref_view=args.ref_view, weight_threshold=args.weight_threshold,
                   delta_definition=args.delta_definition)
    plain = args.input and not _is_table_path(args.input) and not any(_is_table_path(r) for r in args.refs)
    if args.ref_weights and plain and len(args.ref_weights) != len(args.refs):
        raise InputError(f"--ref-weights: need one weight file per reference file ({len(args.refs)}); "
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
            raise InputError("--ref-weights: a references table carries its weights in its "
                                "'weight' column; drop --ref-weights.")
        refs = io.read_table(args.refs[0], "references")
    else:
        tables = [r for r in args.refs if _is_table_path(r)]
        if tables:
            raise InputError(f"references: {tables[0]} is a table; give either one references "
                                "table or plain-text reference files, not a mix.")
        if _is_table_path(args.input):
            raise InputError("references: plain-text reference files pair with plain-text "
                                "hypotheses line by line; with a hypotheses table give a references table.")
        streams = [io.read_lines(p) for p in args.refs]
        weights = None
        if args.ref_weights:
            if len(args.ref_weights) != len(args.refs):
                raise InputError(
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


def print_scores(args: argparse.Namespace, stats: StatsTable | StatsDataset, out: Any = None) -> None:
    """Print corpus scores of ``stats`` (per group with several systems or ``--by``) as text or JSON.

    ``stats`` may be a partitioned dataset (:mod:`bleustats.metrics.partitioned`: the same numbers).
    """
    out = out if out is not None else sys.stdout
    options = dict(smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                   use_effective_order=args.use_effective_order, ref_length=args.ref_length)
    by = args.by
    if by is None and n_systems(stats) > 1:
        by = "system"
    metrics = _metrics(args, stats)
    if by is None:
        results = [corpus_score(stats, metric=m, **options) for m in metrics]
        if args.json:
            payload = [r.to_dict(args.width) for r in results]
            print(json.dumps(payload[0] if len(payload) == 1 else payload, ensure_ascii=False, indent=1), file=out)
            return
        for r in results:
            print(r.format(args.width, score_only=args.score_only), file=out)
            if not args.score_only:
                print(f"  signature: {r.signature}", file=out)
        return
    frames = {m: corpus_scores(stats, by=by, metric=m, **options) for m in metrics}
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
