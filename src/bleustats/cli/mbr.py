"""``bleustats mbr``: minimum Bayes risk selection over a k-best list or several systems' outputs.

::

    bleustats mbr NBEST -m chrf --best BEST.txt -o OUT.parquet [--exclude-self] \
        [--pseudo-references FILE] [--aggregate] [--matrices DIR] [--json] [--dask ADDRESS]

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
or with ``--progress``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from ..errors import UsageError
from .main import COMMANDS
from ..engine._options import SENTENCE_VARIANT_NAMES
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from ..tools._options import PAIRWISE_METRICS
from ._dask import add_dask_option, executor_for
from ._progress import one_line, progress_bar

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``mbr`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "mbr", help=COMMANDS["mbr"],
        description="MBR over a Moses n-best list or a long-form hypotheses table: every candidate scored "
                    "against every pseudo-reference of its source (chrF, chrF++, sentence BLEU and its variants, "
                    "TER as a loss), the candidate with the highest expected utility chosen.")
    p.add_argument("nbest", metavar="NBEST", help="Moses n-best file (.gz too), hypotheses table "
                   "(.parquet/.tsv/.jsonl with seg_id, text, optional system and rank) or a folder of Parquet parts")
    p.add_argument("-m", "--metric", default="chrf", metavar="NAME",
                   help="utility: " + ", ".join(PAIRWISE_METRICS) + " or a sentence-BLEU variant ("
                        + ", ".join(SENTENCE_VARIANT_NAMES) + "; default: %(default)s)")
    p.add_argument("--exclude-self", action="store_true",
                   help="leave each candidate out of its own pseudo-references")
    p.add_argument("--pseudo-references", metavar="FILE",
                   help="separate pseudo-references per source, same formats as NBEST (default: the candidates)")
    p.add_argument("--aggregate", action="store_true",
                   help="utility against the pooled n-gram statistics of all pseudo-references (Vamvas & "
                        "Sennrich 2024; chrF, chrF++, BLEU): linear in their number")
    g = p.add_argument_group("chrF options (sacreBLEU's CHRF)")
    g.add_argument("--chrf-char-order", type=int, default=None, metavar="N", help="character order (default 6)")
    g.add_argument("--chrf-word-order", type=int, default=None, metavar="N",
                   help="word order (default 0; 2 for chrf++)")
    g.add_argument("--chrf-beta", type=float, default=None, metavar="B", help="beta (default 2)")
    g.add_argument("--chrf-whitespace", action="store_true", help="keep whitespace in character n-grams")
    g.add_argument("--chrf-eps-smoothing", action="store_true", help="chrF++.py / NLTK epsilon smoothing")
    g = p.add_argument_group("BLEU options")
    g.add_argument("-tok", "--tokenize", choices=SACREBLEU_TOKENIZERS, default=None,
                   help=f"tokenizer, as sacreBLEU's (default: {DEFAULT_TOKENIZER})")
    g.add_argument("--max-ngram-order", type=int, default=None, metavar="N", help="largest n-gram order (default 4)")
    g.add_argument("--smooth-method", choices=("exp", "none", "floor", "add-k"), default=None,
                   help="smoothing of -m bleu (default exp)")
    g = p.add_argument_group("TER options")
    for flag in ("normalized", "no-punct", "asian-support", "case-sensitive"):
        g.add_argument(f"--ter-{flag}", action="store_true", help=f"sacreBLEU TER's {flag.replace('-', '_')}")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase first (chrF, BLEU)")
    p.add_argument("-o", "--output", metavar="PARQUET", help="per-candidate expected utilities (Parquet)")
    p.add_argument("--best", metavar="FILE", help="the chosen candidate of each source, one line per source")
    p.add_argument("--matrices", metavar="DIR", help="each source's pairwise matrix as DIR/<seg_id>.npy")
    p.add_argument("--chunk-mb", type=float, default=32.0, help="MiB of n-best text per chunk (default: %(default)s)")
    add_dask_option(p)
    p.add_argument("--progress", action="store_true", help="progress bar on stderr even when it is not a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The metric's options from the flags given; a flag of another metric family is a usage error."""
    chrf = {"char_order": args.chrf_char_order, "word_order": args.chrf_word_order, "beta": args.chrf_beta,
            "whitespace": args.chrf_whitespace or None, "eps_smoothing": args.chrf_eps_smoothing or None}
    bleu = {"tokenize": args.tokenize, "max_ngram_order": args.max_ngram_order, "smooth_method": args.smooth_method}
    ter = {k.replace("-", "_"): getattr(args, "ter_" + k.replace("-", "_")) or None
           for k in ("normalized", "no-punct", "asian-support", "case-sensitive")}
    family = "chrf" if args.metric in ("chrf", "chrf++") else "ter" if args.metric == "ter" else "bleu"
    groups = {"chrf": chrf, "bleu": bleu, "ter": ter}
    for name, group in groups.items():
        given = [k for k, v in group.items() if v is not None]
        if name != family and given:
            raise UsageError(f"option(s) for {name} ({', '.join(given)}) given with -m {args.metric}; drop them or "
                             f"choose a {name} metric.")
    opts = {k: v for k, v in groups[family].items() if v is not None}
    if family == "bleu" and args.metric != "bleu" and "smooth_method" in opts:
        raise UsageError(f"--smooth-method: only for -m bleu; -m {args.metric} is its own smoothing.")
    if args.lowercase:
        if family == "ter":
            raise UsageError("--lowercase: TER is case-insensitive unless --ter-case-sensitive; drop -lc.")
        opts["lowercase"] = True
    if family == "chrf" and "beta" in opts and float(opts["beta"]).is_integer():
        opts["beta"] = int(opts["beta"])  # sacreBLEU names chrF2, not chrF2.0
    return opts


def _partitioned(args: argparse.Namespace, common: dict[str, Any]) -> Any:
    """A folder of Parquet parts, or a Parquet table with --dask: one task per partition."""
    from ..tools._mbr_partitioned import mbr_dataset

    nbest = Path(args.nbest)
    if not (nbest.is_dir() or nbest.suffix.lower() == ".parquet"):
        raise UsageError(f"--dask: the candidates must be a Parquet table (a folder of parts or a .parquet file) with "
                         f"seg_id, text and optional system / rank; got {args.nbest}.")
    with executor_for(args) as executor:
        return mbr_dataset(args.nbest, executor=executor, **common)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats mbr``; returns the exit code (0 ok, 1 error, 2 usage)."""
    from ..tools.mbr import mbr_nbest

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if not args.chunk_mb > 0:
        print(f"bleustats mbr: error: argument --chunk-mb: must be > 0; got {args.chunk_mb}", file=err)
        return 2
    bar = None
    try:
        opts = _options(args)
        bar = progress_bar(err, forced=args.progress, label="mbr")
        common = dict(pseudo_references=args.pseudo_references, metric=args.metric, exclude_self=args.exclude_self,
                      aggregate=args.aggregate, output=args.output, best=args.best, matrices=args.matrices,
                      progress=bar, **opts)
        if args.dask or Path(args.nbest).is_dir():
            result = _partitioned(args, common)
        else:
            result = mbr_nbest(args.nbest, chunk_bytes=max(1, int(args.chunk_mb * 2**20)), **common)
    except (ValueError, TypeError) as exc:  # InputError and SchemaError are ValueErrors
        if bar is not None:
            bar.close()
        print(f"bleustats mbr: error: {one_line(exc)}", file=err)
        return 2 if isinstance(exc, UsageError) else 1
    except OSError as exc:
        if bar is not None:
            bar.close()
        print(f"bleustats mbr: error: {one_line(exc.strerror or exc)}", file=err)
        return 1
    finally:
        if bar is not None:
            bar.close()
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
    print("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), file=err)
    for path in (args.output, args.best, args.matrices):
        if path:
            print(f"wrote {path}", file=err)
    return 0
