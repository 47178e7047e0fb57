"""``bleustats mbr``: minimum Bayes risk selection over a k-best list or several systems' outputs.

::

    bleustats mbr NBEST -m chrf --best BEST.txt -o OUT.parquet [--exclude-self] \
        [--pseudo-references FILE] [--aggregate] [--matrices DIR] [--replace] [--json] [--dask ADDRESS]

NBEST is a Moses n-best list (streamed source by source) or a long-form
hypotheses table (``seg_id``, ``text``, optional ``system`` and ``rank``: every
row of a source is one of its candidates, in ``rank`` order when given, so a
table of several systems' outputs gives MBR system combination). A folder of
Parquet parts (or any Parquet table with ``--dask ADDRESS``) is run one
partition at a time, here or on a Dask cluster
(:mod:`bleustats.tools._mbr_partitioned`); each source's rows in one part. Each candidate's expected utility against the
source's pseudo-references (the candidates themselves by default) goes to
``-o`` (one row per input candidate, input order; ``data_schemas/mbr.json``),
the chosen candidates to ``--best`` (one line per source). A summary goes to
stdout (``--json`` for JSON), a progress bar to stderr when it is a terminal
(or with ``--progress``; none with ``-q``). ``--matrices DIR`` is written as a
whole folder, renamed into place when the run ends.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from ..engine._options import CHRF_DEFAULTS, SENTENCE_VARIANT_NAMES
from ..errors import UsageError
from ..tools._options import PAIRWISE_METRICS
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, positive_float
from ._progress import close_all, note, reporter

__all__ = ["EXAMPLES", "add_parser", "run"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats mbr nbest.txt -m chrf --best best_mbr.txt -o mbr.parquet   # MBR over the 8 systems' outputs",
    "bleustats mbr nbest.txt -m bleu -o mbr_bleu.parquet",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``mbr`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "mbr", summary=COMMANDS["mbr"], examples=EXAMPLES,
                  description=("MBR over a Moses n-best list or a long-form hypotheses table: every candidate\n"
                               "scored against every pseudo-reference of its source (chrF, chrF++, sentence BLEU\n"
                               "and its variants, TER as a loss), the candidate with the highest expected\n"
                               "utility chosen."))
    cmd.own("nbest", metavar="NBEST", role="input", group="inputs",
            help="Moses n-best file (.gz too), hypotheses table (.parquet/.tsv/.jsonl with seg_id, text, optional "
                 "system and rank) or a folder of Parquet parts")
    cmd.own("--pseudo-references", metavar="FILE", role="input", group="inputs",
            help="separate pseudo-references per source, same formats as NBEST (default: the candidates)")
    cmd.add("tokenize", default=None, shown="13a")
    cmd.add("lowercase")
    cmd.add("metrics", default=None, shown="chrf; mbr takes one",
            names=", ".join(PAIRWISE_METRICS) + " or a sentence-BLEU variant (" + ", ".join(SENTENCE_VARIANT_NAMES)
            + ")")
    cmd.renamed("--metric", "metrics", does="extend", nargs="+")
    cmd.own("--exclude-self", action="store_true", group="metrics",
            help="leave each candidate out of its own pseudo-references")
    cmd.own("--aggregate", action="store_true", group="metrics",
            help="utility against the pooled n-gram statistics of all pseudo-references (Vamvas & Sennrich 2024; "
                 "chrF, chrF++, BLEU): linear in their number")
    # valued options default to None here, so that a value given equal to the metric's default still counts as
    # given (a flag of another metric family is refused; -m chrf++ -cw 0 is chrF++ with word order 0)
    cmd.add("max_ngram_order", default=None, shown=4)
    cmd.add("smooth_method", default=None, shown="exp")
    cmd.add("chrf_char_order", default=None, shown=CHRF_DEFAULTS["char_order"])
    cmd.add("chrf_word_order", default=None, shown=f"{CHRF_DEFAULTS['word_order']}; 2 for chrf++")
    cmd.add("chrf_beta", default=None, shown=CHRF_DEFAULTS["beta"])
    cmd.add("chrf_whitespace", "chrf_lowercase", "chrf_eps_smoothing", "ter_case_sensitive", "ter_asian_support",
            "ter_no_punct", "ter_normalized")
    cmd.add("output", what="per-candidate expected utilities (Parquet; data_schemas/mbr.json)")
    cmd.own("--best", metavar="FILE", role="output", group="outputs",
            help="the chosen candidate of each source, one line per source")
    cmd.own("--matrices", metavar="DIR", role="output", kind="folder", group="outputs",
            help="each source's pairwise matrix as DIR/<seg_id>.npy")
    cmd.add("replace", "json", "quiet", "progress")
    cmd.own("--chunk-mb", type=positive_float, default=32.0, group="parallelism",
            help="MiB of n-best text per chunk (default: %(default)s)")
    cmd.add("dask")
    cmd.parser.set_defaults(func=run)
    return cmd


#: The options of each metric family: (dest, option of the metric). A valued option left alone is None, a flag
#: False; anything else was given.
_FAMILIES = {
    "chrf": (("chrf_char_order", "char_order"), ("chrf_word_order", "word_order"), ("chrf_beta", "beta"),
             ("chrf_whitespace", "whitespace"), ("chrf_eps_smoothing", "eps_smoothing"),
             ("chrf_lowercase", "lowercase")),
    "bleu": (("tokenize", "tokenize"), ("max_ngram_order", "max_ngram_order"), ("smooth_method", "smooth_method")),
    "ter": tuple((f"ter_{k}", k) for k in ("normalized", "no_punct", "asian_support", "case_sensitive")),
}


def _metric(args: argparse.Namespace) -> str:
    """The one utility metric of ``-m`` (default chrf)."""
    names = list(dict.fromkeys(args.metrics or ["chrf"]))
    if len(names) != 1:
        raise UsageError(f"-m {' '.join(names)}: mbr chooses by one utility metric; give one.")
    return names[0]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric's options from the flags given; a flag of another metric family is a usage error."""
    metric = _metric(args)
    family = "chrf" if metric in ("chrf", "chrf++") else "ter" if metric == "ter" else "bleu"
    given = {name: {key: value for dest, key in opts
                    if (value := getattr(args, dest)) is not None and value is not False}
             for name, opts in _FAMILIES.items()}
    for name, options in given.items():
        if name != family and options:
            raise UsageError(f"option(s) for {name} ({', '.join(options)}) given with -m {metric}; drop them or "
                             f"choose a {name} metric.")
    opts = dict(given[family])
    if family == "bleu" and metric != "bleu" and "smooth_method" in opts:
        raise UsageError(f"--smooth-method: only for -m bleu; -m {metric} is its own smoothing.")
    if args.lowercase:
        if family == "ter":
            raise UsageError("--lowercase: TER is case-insensitive unless --ter-case-sensitive; drop -lc.")
        if family == "chrf":
            if not args.quiet:
                print("bleustats mbr: warning: -lc with a chrF metric is deprecated: -lc is BLEU's lowercase in every "
                      "command; chrF's is --chrf-lowercase. It still works.", file=sys.stderr)
        opts["lowercase"] = True
    return opts


def _partitioned(args: argparse.Namespace, common: dict[str, Any]) -> Any:
    """A folder of Parquet parts, or a Parquet table with --dask: one task per partition."""
    from ..tools._mbr_partitioned import mbr_dataset

    nbest = Path(args.nbest)
    if not (nbest.is_dir() or nbest.suffix.lower() == ".parquet"):
        raise UsageError(f"--dask: the candidates must be a Parquet table (a folder of parts or a .parquet file) with "
                         f"seg_id, text and optional system / rank; got {args.nbest}.")
    from ._dask import executor_for  # loaded where a command runs partitioned work
    with executor_for(args) as executor:
        return mbr_dataset(args.nbest, executor=executor, **common)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats mbr``; returns the exit code (0 ok, 1 error, 2 usage)."""
    return guarded("mbr", _run, args, stderr, stdout=stdout, stderr=stderr)


def _run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from ..tools.mbr import mbr_nbest
    from ._outputs import folder_in_place

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    opts = _options(args)
    metric = _metric(args)
    if args.matrices and args.aggregate:
        raise UsageError("--matrices: reference aggregation scores each candidate against the pooled "
                         "pseudo-references, so there is no pairwise matrix to write; drop --matrices or --aggregate.")
    with contextlib.ExitStack() as stack:
        matrices = (stack.enter_context(folder_in_place(args.matrices, replace=args.replace, flag="--matrices"))
                    if args.matrices else None)
        bar = stack.enter_context(reporter(args, "mbr", err))
        common = dict(pseudo_references=args.pseudo_references, metric=metric, exclude_self=args.exclude_self,
                      aggregate=args.aggregate, output=args.output, best=args.best, matrices=matrices,
                      progress=bar.callback, **opts)
        if args.dask or Path(args.nbest).is_dir():
            result = _partitioned(args, common)
        else:
            result = mbr_nbest(args.nbest, chunk_bytes=max(1, int(args.chunk_mb * 2**20)), **common)
    close_all()
    summary = result.to_dict()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1), file=out)
    else:
        print(f"{summary['n_candidates']} candidates, {summary['n_sources']} sources; metric {summary['metric']}"
              + ("; self excluded" if args.exclude_self else "") + ("; aggregated" if args.aggregate else ""),
              file=out)
        mean = summary["mean_chosen_expected_utility"]
        shown = "n/a" if mean is None else f"{mean:.4f}"
        print(f"chosen: mean expected utility {shown}; the first candidate chosen in "
              f"{summary['chosen_first_entry']} of {summary['n_sources']} sources", file=out)
    note(args, "time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), err)
    for path in (args.output, args.best, args.matrices):
        if path:
            note(args, f"wrote {path}", err)
    return 0
