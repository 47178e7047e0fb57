"""``bleustats kbest``: per-entry statistics and sentence-level scores of a k-best list.

::

    bleustats kbest NBEST REF... --tokenize none -m bleu+1 nakov:bp-smoothed,pc-grounded \
        -o out.parquet [--scores-txt scores.dat] [--features-txt features.dat]

A k-best list given as a folder of Parquet parts (or any Parquet list with
``--dask ADDRESS``) is scored partition by partition, here or on a Dask
cluster (:mod:`bleustats.tools._kbest_partitioned`); ``-o`` is then a dataset
folder.

Reads a Moses n-best list (or a long-form hypotheses table) in chunks, writes
one Parquet row per entry (statistics and one column per sentence-level metric
of ``-m``) and/or Moses' SCORES_TXT, and prints the 1-best and per-metric oracle
corpus BLEU with their length ratio (text or ``--json``) on stdout. A progress
bar goes to stderr when it is a terminal (or with ``--progress``; none with ``-q``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from ..engine._options import BLEU_METRICS, MAX_ORDER_LIMIT, SENTENCE_VARIANT_NAMES
from ..errors import UsageError
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, positive_float
from ._progress import close_all, note, reporter

__all__ = ["EXAMPLES", "add_parser", "run"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats kbest nbest.txt ref0.txt -tok none -m bleu+1 -o scores.parquet",
)
#: How ``-m`` lists the sentence-level metrics of kbest and tune.
VARIANTS_HELP = ", ".join(SENTENCE_VARIANT_NAMES) + ", or nakov: with any comma-separated fixes"


def add_parser(subparsers: Any) -> Command:
    """Add the ``kbest`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "kbest", summary=COMMANDS["kbest"], examples=EXAMPLES,
                  description=("Per-entry BLEU statistics and sentence-level metrics of a Moses n-best list (id\n"
                               "||| hypothesis ||| features ||| total) or a long-form hypotheses table,\n"
                               "streamed; prints 1-best and oracle corpus BLEU."))
    cmd.own("nbest", metavar="NBEST", role="input", group="inputs",
            help="Moses n-best file (.gz too) or hypotheses table (.parquet/.tsv/.jsonl with seg_id, text, optional "
                 "model_score)")
    cmd.add("refs", "references")
    cmd.add("tokenize", "lowercase")
    cmd.add("metrics", names=VARIANTS_HELP, default=None, shown="bleu+1")
    cmd.renamed("--variant", "metrics", does="extend", nargs="+")
    cmd.add("max_ngram_order", "statistic", "ref_length", "ilr")
    cmd.renamed("--metric", "statistic", choices=BLEU_METRICS)
    cmd.add("output", what="per-entry statistics and scores (Parquet; a dataset folder for a partitioned list)",
            kind="either")
    cmd.own("--scores-txt", metavar="FILE", role="output", group="outputs",
            help="per-entry BLEU statistics in Moses' SCORES_TXT layout")
    cmd.own("--features-txt", metavar="FILE", role="output", group="outputs",
            help="the entries' dense features in Moses' FEATURES_TXT layout (Moses n-best input)")
    cmd.own("--no-stats", action="store_true", group="outputs", help="leave the statistics columns out of --output")
    cmd.add("replace", "json", "quiet", "progress")
    cmd.own("--chunk-mb", type=positive_float, default=32.0, group="parallelism",
            help="MiB of n-best text per chunk (default: %(default)s)")
    cmd.own("--allow-missing-sources", action="store_true", group="inputs",
            help="score a list that has no entry for some sources of the references (default: an error naming "
                 "them); the summaries then cover the others, and the count is printed")
    cmd.add("dask")
    cmd.parser.set_defaults(func=run)
    return cmd


def check_orders(variants: list[str], max_ngram_order: int) -> None:
    """Each sentence-level metric exists, and the orders it needs fit (chen-cherry:5 and :7 need one more)."""
    from ..metrics.sentence import get_variant

    for name in variants:
        if max_ngram_order + get_variant(name).extra_orders > MAX_ORDER_LIMIT:
            raise UsageError(f"-m {name}: needs order N+1 beside --max-ngram-order {max_ngram_order}; give "
                             f"--max-ngram-order {MAX_ORDER_LIMIT - 1} or less with it.")


def references(args: argparse.Namespace) -> Any:
    """The references of ``kbest`` / ``tune``: REF and -r/--references as one list (one path, or several)."""
    refs = [*(getattr(args, "refs", None) or []), *(args.references or [])]
    if not refs:
        raise UsageError("no references: give reference files after NBEST or with -r/--references.")
    return refs if len(refs) > 1 else refs[0]


def _partitioned(args: argparse.Namespace, refs: Any, variants: list[str], options: dict, progress: Any) -> Any:
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
    from ._dask import executor_for  # loaded where a command runs partitioned work
    with executor_for(args) as executor:
        return score_nbest_dataset(
            args.nbest, refs, args.output, executor=executor,
            variants=variants, variant_options=options, metric=args.statistic, tokenize=args.tokenize,
            lowercase=args.lowercase, max_ngram_order=args.max_ngram_order, ref_length=args.ref_length,
            keep_stats=not args.no_stats, allow_missing_sources=args.allow_missing_sources)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats kbest``; returns the exit code (0 ok, 1 error, 2 usage)."""
    return guarded("kbest", _run, args, stderr, stdout=stdout, stderr=stderr)


def _run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from ..tools.kbest import score_nbest

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if args.no_stats and not args.output:
        raise UsageError("--no-stats: leaves the statistics out of -o/--output; add -o or drop --no-stats")
    variants = list(dict.fromkeys(args.metrics or ["bleu+1"]))
    refs = references(args)
    check_orders(variants, args.max_ngram_order)
    options = {}
    if args.ilr is not None:
        scaled = [v for v in variants if v.startswith("nakov:") and "scaled" in v.split(":", 1)[1].split(",")]
        if not scaled:
            raise UsageError("--ilr: only used by nakov:...scaled variants; add one (e.g. "
                             "-m nakov:scaled) or drop --ilr.")
        options = {v: {"ilr": args.ilr} for v in scaled}
    with reporter(args, "kbest", err) as bar:
        if args.dask or Path(args.nbest).is_dir():
            result = _partitioned(args, refs, variants, options, bar.callback)
        else:
            result = score_nbest(
                args.nbest, refs, variants=variants, variant_options=options, metric=args.statistic,
                tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order,
                ref_length=args.ref_length, output=args.output, scores_txt=args.scores_txt,
                features_txt=args.features_txt, keep_stats=not args.no_stats,
                chunk_bytes=max(1, int(args.chunk_mb * 2**20)), progress=bar.callback,
                allow_missing_sources=args.allow_missing_sources)
    close_all()
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
    note(args, "time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), err)
    if args.output:
        note(args, f"wrote {args.output}", err)
    if args.scores_txt:
        note(args, f"wrote {args.scores_txt}", err)
    if args.features_txt:
        note(args, f"wrote {args.features_txt}", err)
    return 0
