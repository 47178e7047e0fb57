"""``bleustats kbest``: per-entry statistics and sentence-level scores of a k-best list.

::

    bleustats kbest NBEST REF... --tokenize none --variant bleu+1 \
        --variant nakov:bp-smoothed,pc-grounded -o out.parquet [--scores-txt scores.dat] \
        [--features-txt features.dat]

A k-best list given as a folder of Parquet parts (or any Parquet list with
``--dask ADDRESS``) is scored partition by partition, here or on a Dask
cluster (:mod:`bleustats.tools._kbest_partitioned`); ``-o`` is then a dataset
folder.

Reads a Moses n-best list (or a long-form hypotheses table) in chunks, writes
one Parquet row per entry (statistics and one column per ``--variant``) and/or
Moses' SCORES_TXT, and prints the 1-best and per-variant oracle corpus BLEU
with their length ratio (text or ``--json``) on stdout. A progress bar goes to
stderr when it is a terminal or with ``--progress``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from .main import COMMANDS
from ..engine._options import BLEU_METRICS as METRICS
from ..engine._options import MAX_ORDER_LIMIT, REF_LENGTHS, SENTENCE_VARIANT_NAMES
from ..errors import UsageError
from ..tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
from ._dask import add_dask_option, executor_for
from ._progress import one_line, progress_bar

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``kbest`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "kbest", help=COMMANDS["kbest"],
        description="Per-entry BLEU statistics and sentence-level variants of a Moses n-best list "
                    "(id ||| hypothesis ||| features ||| total) or a long-form hypotheses table, "
                    "streamed; prints 1-best and oracle corpus BLEU.")
    p.add_argument("nbest", metavar="NBEST", help="Moses n-best file (.gz too) or hypotheses table "
                   "(.parquet/.tsv/.jsonl with seg_id, text, optional model_score)")
    p.add_argument("refs", nargs="+", metavar="REF",
                   help="reference files (line i = source i, 0-based) or one long-form references table")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER,
                   help="tokenizer, as sacreBLEU's (default: %(default)s)")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=4, metavar="N",
                   help=f"largest n-gram order of the scores, 1..{MAX_ORDER_LIMIT - 1} (default: %(default)s)")
    p.add_argument("-m", "--variant", action="append", metavar="NAME",
                   help="sentence-level variant, repeatable (default: bleu+1): "
                        + ", ".join(SENTENCE_VARIANT_NAMES) + "; or nakov: with any comma-separated fixes")
    p.add_argument("--ilr", type=float, default=None,
                   help="corpus length ratio c'/r' for nakov:...scaled (default 1)")
    p.add_argument("--metric", "--statistic", choices=METRICS, default="bleu",
                   help="score plain or ΔBLEU-weighted statistics (default: %(default)s)")
    p.add_argument("--ref-length", choices=REF_LENGTHS, default="closest",
                   help="reference length of the brevity penalty (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="PARQUET", help="per-entry statistics and scores (Parquet)")
    p.add_argument("--scores-txt", metavar="FILE", help="per-entry BLEU statistics in Moses' SCORES_TXT layout")
    p.add_argument("--features-txt", metavar="FILE",
                   help="the entries' dense features in Moses' FEATURES_TXT layout (Moses n-best input)")
    p.add_argument("--no-stats", action="store_true", help="leave the statistics columns out of --output")
    p.add_argument("--chunk-mb", type=float, default=32.0, help="MiB of n-best text per chunk (default: %(default)s)")
    p.add_argument("--allow-missing-sources", action="store_true",
                   help="score a list that has no entry for some sources of the references (default: an error "
                        "naming them); the summaries then cover the others, and the count is printed")
    add_dask_option(p)
    p.add_argument("--progress", action="store_true", help="progress bar on stderr even when it is not a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def _partitioned(args: argparse.Namespace, variants: list[str], options: dict, err: TextIO) -> Any:
    """A k-best list given as Parquet parts (-i DIR) or run on Dask: one task per partition."""
    from ..tools._kbest_partitioned import score_nbest_dataset

    for flag, given in (("--scores-txt", args.scores_txt), ("--features-txt", args.features_txt)):
        if given:
            raise UsageError(f"{flag}: written for a Moses n-best list read here; a partitioned list (a folder of "
                             f"Parquet parts, or --dask) writes -o DIR only. Drop {flag} or --dask.")
    if args.output and Path(args.output).suffix.lower() == ".parquet":
        raise UsageError(f"-o {args.output}: a partitioned list writes a dataset folder (one part per partition); "
                         "give a folder path (no .parquet).")
    nbest = Path(args.nbest)
    if not (nbest.is_dir() or nbest.suffix.lower() == ".parquet"):
        raise UsageError(f"--dask: the k-best list must be a Parquet table (a folder of parts or a .parquet file) "
                         f"with seg_id, text and optional model_score; got {args.nbest}.")
    with executor_for(args) as executor:
        return score_nbest_dataset(
            args.nbest, args.refs if len(args.refs) > 1 else args.refs[0], args.output, executor=executor,
            variants=variants, variant_options=options, metric=args.metric, tokenize=args.tokenize,
            lowercase=args.lowercase, max_ngram_order=args.max_ngram_order, ref_length=args.ref_length,
            keep_stats=not args.no_stats, allow_missing_sources=args.allow_missing_sources)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats kbest``; returns the exit code (0 ok, 1 error, 2 usage)."""
    from ..metrics.sentence import get_variant
    from ..tools.kbest import score_nbest

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if not 1 <= args.max_ngram_order < MAX_ORDER_LIMIT:
        print(f"bleustats kbest: error: argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT - 1}; "
              f"got {args.max_ngram_order}", file=err)
        return 2
    if not args.chunk_mb > 0:
        print(f"bleustats kbest: error: argument --chunk-mb: must be > 0; got {args.chunk_mb}", file=err)
        return 2
    if args.no_stats and not args.output:
        print("bleustats kbest: error: --no-stats: leaves the statistics out of -o/--output; add -o or drop "
              "--no-stats", file=err)
        return 2
    variants = args.variant or ["bleu+1"]
    bar = progress_bar(err, forced=args.progress, label="kbest")
    try:
        for name in variants:
            get_variant(name)
        options = {}
        if args.ilr is not None:
            scaled = [v for v in variants if v.startswith("nakov:") and "scaled" in v.split(":", 1)[1].split(",")]
            if not scaled:
                raise UsageError("--ilr: only used by nakov:...scaled variants; add one (e.g. "
                                 "--variant nakov:scaled) or drop --ilr.")
            options = {v: {"ilr": args.ilr} for v in scaled}
        if args.dask or Path(args.nbest).is_dir():
            result = _partitioned(args, variants, options, err)
        else:
            result = score_nbest(
                args.nbest, args.refs if len(args.refs) > 1 else args.refs[0], variants=variants,
                variant_options=options, metric=args.metric, tokenize=args.tokenize, lowercase=args.lowercase,
                max_ngram_order=args.max_ngram_order, ref_length=args.ref_length, output=args.output,
                scores_txt=args.scores_txt, features_txt=args.features_txt, keep_stats=not args.no_stats,
                chunk_bytes=max(1, int(args.chunk_mb * 2**20)),
                progress=bar, allow_missing_sources=args.allow_missing_sources)
    except (ValueError, TypeError) as exc:  # InputError and SchemaError are ValueErrors
        if bar is not None:
            bar.close()
        print(f"bleustats kbest: error: {one_line(exc)}", file=err)
        return 2 if isinstance(exc, UsageError) else 1
    except OSError as exc:
        if bar is not None:
            bar.close()
        print(f"bleustats kbest: error: {one_line(exc.strerror or exc)}", file=err)
        return 1
    finally:  # also on an interrupt: the bar's line ends before the message
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=1), file=out)
        return 0
    print(f"{result.n_entries} entries, {result.n_sources} sources"
          + (f" ({result.missing_sources} sources of the references have no entry and are not scored)"
             if result.missing_sources else ""), file=out)
    rows = [("1-best (model)", result.one_best)] + [(f"oracle {k}", v) for k, v in result.oracles.items()]
    w = max(len(r[0]) for r in rows)
    for label, r in rows:
        print(f"{label:<{w}}  BLEU = {r.score:6.2f}  ratio = {r.ratio:.3f}", file=out)
    print("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), file=err)
    if args.output:
        print(f"wrote {args.output}", file=err)
    if args.scores_txt:
        print(f"wrote {args.scores_txt}", file=err)
    if args.features_txt:
        print(f"wrote {args.features_txt}", file=err)
    return 0
