"""``bleustats compare``: compare systems as compare-mt does, with chrF / TER / ΔBLEU, intervals and p-values.

::

    bleustats compare REF [REF ...] -i SYS1 SYS2 [SYS ...] [-o DIR] [--json]

References and hypotheses are read as ``score`` reads them (plain-text files,
one segment per line, or one long-form table each), or ``--from-stats`` reads
a saved statistics table; :func:`bleustats.tools.system_compare.compare` does
the work. The result is printed as compare-mt's tables (values, intervals,
p-values against the baseline) or, with ``--json``, as the records of
``data_schemas/compare.json``; ``-o DIR`` also writes the HTML report
(``DIR/index.html``, :mod:`bleustats.tools.compare_report`), checked with every
other path before any work by the one output writer
(:mod:`bleustats.cli._outputs`: an existing folder only with ``--replace``).

The command is made of the shared option groups (:mod:`bleustats.cli._options`:
inputs and references, tokenization and case, metrics and their chrF / TER
options, reference weights and views, outputs, randomness) and its own
options, declared in :func:`add_compare_options`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..engine._options import TABLE_SUFFIXES
from ..errors import InputError, UsageError
from ._errors import guarded
from .main import COMMANDS
from ._options import CHRF_TER_OPTIONS, Command, given, non_negative_int, positive_int
from ._progress import reporter, step
from .score import statistics_options

if TYPE_CHECKING:
    from ..tools.system_compare import Comparison

__all__ = ["EXAMPLES", "add_compare_options", "add_parser", "print_tables", "run"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats compare ref0.txt -i hyp.txt sys2.txt                    # compare-mt's tables, with intervals",
    "bleustats compare ref0.txt ref1.txt -i hyp.txt sys2.txt -o report/   # compare-mt's analyses, HTML report",
    "bleustats compare refs.tsv -i hyps.tsv --baseline Online-W -m bleu chrf ter --bootstrap 200 --json",
    "bleustats compare ref0.txt -i hyp.txt sys2.txt -tok none --bootstrap 0 --ngram-compare match over under",
)

#: choices of the command's options (the library's names; listed here so that --help imports no tools)
_METRICS = ("bleu", "chrf", "ter", "delta_bleu")
_DEFINITIONS = ("compare-mt", "sacrebleu")
_NGRAM_TYPES = ("match", "over", "under")


def _numbers(text: str) -> tuple[float, ...]:
    """A bucket-boundary list: numbers separated by colons or commas (compare-mt writes ``10:20:30``)."""
    try:
        values = tuple(float(x) if any(c in x for c in ".eE") else int(x)
                       for x in text.replace(",", ":").split(":") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"want numbers separated by ':' (e.g. 10:20:30); got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"want at least one number (e.g. 10:20:30); got {text!r}")
    return values


def add_compare_options(cmd: Command) -> None:
    """The options of ``compare`` that no other command has, in one place."""
    cmd.own("--from-stats", metavar="PARQUET", role="input", group="inputs",
            help="compare the systems of a saved statistics table (no REF, no -i; no word, n-gram or example "
                 "analysis without the texts)")
    cmd.own("--names", nargs="+", metavar="NAME", group="inputs",
            help="system names, one per -i file (default: the file names without their extension)")
    cmd.own("--labels", metavar="FILE", role="input", group="inputs",
            help="one label per segment (a domain, a document): the buckets of the *_by_label analyses")
    cmd.own("--freq-corpus", metavar="FILE", role="input", group="inputs",
            help="count word frequencies in this text (compare-mt's freq_corpus_file) instead of the references")
    g = "comparison"
    cmd.own("--baseline", metavar="NAME", group=g, help="the system every other is tested against (default: the "
                                                         "first)")
    cmd.own("--bleu-definition", choices=_DEFINITIONS, default="compare-mt", group=g,
            help="compare-mt's corpus and sentence BLEU, or sacreBLEU's (default: %(default)s)")
    cmd.own("--bootstrap", type=non_negative_int, default=1000, metavar="N", group=g,
            help="paired bootstrap resamples of every interval and p-value; 0: none (default: %(default)s)")
    for flag, what in (("--length-buckets", "reference-length bucket boundaries (default: compare-mt's "
                                            "10:20:30:40:50:60)"),
                       ("--length-difference-buckets", "len(output) - len(reference) bucket boundaries (default: "
                                                       "compare-mt's)"),
                       ("--sentence-bleu-buckets", "sentence-BLEU bucket boundaries (default: 10.0:20.0:...:90.0)"),
                       ("--frequency-buckets", "word-frequency bucket boundaries (default: 1:2:3:4:5:10:100:1000)")):
        cmd.own(flag, type=_numbers, default=None, metavar="A:B:...", group=g, help=what)
    cmd.own("--ngram-orders", type=positive_int, nargs=2, default=(1, 4), metavar=("MIN", "MAX"), group=g,
            help="n-gram orders of the n-gram analysis (default: 1 4)")
    cmd.own("--ngram-alpha", type=float, default=1.0, metavar="ALPHA", group=g,
            help="compare-mt's smoothing alpha of the n-gram scores (default: %(default)s)")
    cmd.own("--ngram-compare", choices=_NGRAM_TYPES, nargs="+", default=["match"], group=g,
            help="compare-mt's compare_type(s) of the n-gram analysis (default: match)")
    cmd.own("--ngram-report-length", type=non_negative_int, default=50, metavar="N", group=g,
            help="n-grams reported each way (default: %(default)s)")
    cmd.own("--examples", type=non_negative_int, default=10, metavar="N", group=g,
            help="sentence examples reported each way (default: %(default)s)")
    cmd.own("--title", default="bleustats compare", group="outputs", help="the report's title (default: "
                                                                           "%(default)s)")


def add_parser(subparsers: Any) -> Command:
    """Add the ``compare`` subcommand."""
    cmd = Command(subparsers, "compare", summary=COMMANDS["compare"], examples=EXAMPLES,
                  description=("Compare systems on the same segments: compare-mt's analyses (BLEU, length ratio,\n"
                               "word F-measure by frequency, BLEU by length, sentence buckets, n-gram differences,\n"
                               "sentence examples) and chrF / TER / ΔBLEU per bucket, each system against a\n"
                               "baseline with paired bootstrap intervals and p-values (docs/compare.md)."))
    cmd.add("refs", "references", "input")
    cmd.add("tokenize", "lowercase")
    cmd.add("metrics", choices=_METRICS, default=None,
            shown="bleu chrf, and delta_bleu with --ref-weights; ter on request (its shift search is the slowest "
                  "analysis)")
    cmd.add("max_ngram_order", *CHRF_TER_OPTIONS)
    cmd.add("ref_weights", "ref_view")
    cmd.add("weight_threshold", default=None)
    cmd.add("delta_definition")
    cmd.add("json")
    cmd.add("output", kind="folder", what="also write the HTML report as DIR/index.html (a folder, written whole)")
    cmd.add("replace", "quiet", "progress")
    cmd.add("seed", default=12345, shown="12345, sacreBLEU's")
    add_compare_options(cmd)
    cmd.parser.set_defaults(func=run)
    return cmd


def _saved_options(args: argparse.Namespace) -> dict[str, Any]:
    """The statistics and chrF / TER options given on the command line, for a saved table: :func:`compare`
    refuses each one that the table was not computed with (a value equal to the default included)."""
    from .sacrebleu_cli import chrf_options, ter_options

    out: dict[str, Any] = {dest: getattr(args, dest) for dest in ("tokenize", "lowercase", "max_ngram_order",
                                                                   "ref_view", "weight_threshold", "delta_definition")
                           if given(args, dest)}
    chrf = {k: v for k, v in chrf_options(args).items() if given(args, f"chrf_{k}")}
    ter = {k: v for k, v in ter_options(args).items() if given(args, f"ter_{k}")}
    return {**out, **({"chrf_options": chrf} if chrf else {}), **({"ter_options": ter} if ter else {})}


def _read_lines(path: str) -> list[str]:
    from ..engine import io

    return io.read_lines(path).to_pylist()


def _system_names(args: argparse.Namespace, files: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for f in files:
        key = os.path.realpath(f)
        if key in seen:
            raise UsageError(f"-i: {f!r} is given twice (as {seen[key]!r}); each system's file once.")
        seen[key] = f
    if args.names:
        if len(args.names) != len(files):
            raise UsageError(f"--names: one name per -i file ({len(files)}); got {len(args.names)}.")
        if len(set(args.names)) != len(args.names):
            raise UsageError(f"--names: the names must differ; got {args.names}.")
        return list(args.names)
    stems = [Path(f).name.rsplit(".", 1)[0] if "." in Path(f).name[1:] else Path(f).name for f in files]
    return stems if len(set(stems)) == len(stems) else list(files)


def _inputs(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """(hypotheses, references, ref_weights) for :func:`compare` from the files named."""
    from ..engine import io

    files, refs = list(args.input or []), list(args.refs)
    if not refs:
        raise UsageError("no references: give the reference files (or one references table) before -i, or with "
                         "-r/--references.")
    if not files:
        raise UsageError("-i: give the systems' outputs (two or more files, or one hypotheses table).")
    tables = [f for f in files if Path(f).suffix.lower() in TABLE_SUFFIXES]
    if tables and args.names:
        raise UsageError("--names: a hypotheses table names its systems (its 'system' column); drop --names.")
    if tables:
        if len(files) > 1:
            raise UsageError(f"-i: {tables[0]} is a hypotheses table; give one table (holding every system) or "
                             "plain-text files, one per system.")
        hyps = io.read_table(files[0], "hypotheses")
    else:
        names = _system_names(args, files)
        hyps = {name: _read_lines(f) for name, f in zip(names, files)}
        n = len(next(iter(hyps.values())))
        for f, lines in zip(files, hyps.values()):
            if len(lines) != n:
                raise InputError(f"-i {f}: {len(lines)} lines, but {files[0]} has {n}; every system needs one "
                                 "line per segment.")
    if len(refs) == 1 and Path(refs[0]).suffix.lower() in TABLE_SUFFIXES:
        if args.ref_weights:
            raise UsageError("--ref-weights: a references table carries its weights in its 'weight' column; drop "
                             "--ref-weights.")
        return hyps, io.read_table(refs[0], "references"), None
    if tables:
        raise InputError("references: plain-text reference files pair with plain-text hypotheses line by line; "
                         "with a hypotheses table give a references table.")
    streams = [_read_lines(r) for r in refs]
    n = len(next(iter(hyps.values())))
    for r, lines in zip(refs, streams):
        if len(lines) != n:
            raise InputError(f"{r}: {len(lines)} lines, but the systems have {n}; a reference file needs one line "
                             "per segment.")
    weights = None
    if args.ref_weights:
        if len(args.ref_weights) != len(refs):
            raise UsageError(f"--ref-weights: need one weight file per reference file ({len(refs)}); got "
                             f"{len(args.ref_weights)}.")
        weights = [io.read_weights(w, n=n, ref_path=r).tolist() for w, r in zip(args.ref_weights, refs)]
    return hyps, streams, weights


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats compare``; returns the exit code (errors are said on ``stderr`` as one line)."""
    return guarded("compare", _run, args, stderr, out=stdout)


def _run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from ..tools.system_compare import compare

    out = out if out is not None else sys.stdout
    args.refs = [*(args.refs or []), *(args.references or [])]
    if args.from_stats:
        if args.refs or args.input or args.freq_corpus or args.ref_weights or args.names:
            raise UsageError("--from-stats: compares a saved table; drop REF, -i, --names, --ref-weights and "
                             "--freq-corpus.")
    metrics = args.metrics
    if metrics is None:  # chrF is computed by default: its flags apply to it
        args.metrics = ["chrf"]
    options = statistics_options(args)  # score's defaults and checks (tokenizer, views, chrF / TER flags)
    args.metrics = metrics
    options.pop("metrics", None)
    if args.from_stats or "chrf" not in (metrics or ["chrf"]):
        options.pop("chrf_options", None)
    kwargs: dict[str, Any] = {k: getattr(args, k) for k in ("length_buckets", "length_difference_buckets",
                                                             "sentence_bleu_buckets", "frequency_buckets")
                              if getattr(args, k) is not None}
    common = dict(baseline=args.baseline, metrics=metrics, bleu_definition=args.bleu_definition,
                  n_samples=args.bootstrap, seed=args.seed, ngram_orders=tuple(args.ngram_orders),
                  ngram_alpha=args.ngram_alpha, ngram_compare=args.ngram_compare,
                  ngram_report_length=args.ngram_report_length, n_examples=args.examples, **kwargs)
    with reporter(args, "bleustats compare"):
        step("reading the inputs")
        labels = _read_lines(args.labels) if args.labels else None
        if args.from_stats:
            from ..engine.stats import load_stats

            stats = load_stats(args.from_stats)
            step("comparing the systems")
            result = compare(stats, labels=labels, **_saved_options(args), **common)
        else:
            hyps, refs, weights = _inputs(args)
            freq = _read_lines(args.freq_corpus) if args.freq_corpus else None
            step("comparing the systems")
            result = compare(hyps, refs, ref_weights=weights, labels=labels, freq_corpus=freq, **options, **common)
        if args.output:
            from ..tools.compare_report import write_report

            step("writing the report")
            write_report(result, args.output.rstrip("/") or args.output, title=args.title, replace=args.replace)
    if args.json:
        print(result.to_json(), file=out)
    else:
        print_tables(result, out)
    return 0


def _cell(r: dict[str, Any]) -> str:
    v = r["value"]
    text = str(v) if isinstance(v, int) else f"{v:.4f}"
    if r.get("ci_low") is not None:
        text += f" [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
    if r.get("p_value") is not None:
        text += f" p={r['p_value']:.4f}"
    return text


def print_tables(result: Comparison, out: TextIO) -> None:
    """The records as compare-mt prints its report: a table per analysis, then n-grams and examples."""
    systems = list(result.systems)
    for analysis in result.analyses:
        records = result.select(analysis)
        print(f"--- {analysis}", file=out)
        if analysis.startswith("ngram_"):
            for r in records:
                print(f"{r['system']}\t{r['bucket']}\t{r['value']:.4f} ({result.baseline}={r['baseline_count']}, "
                      f"{r['system']}={r['count']})", file=out)
        elif analysis == "sentence_examples":
            for r in records:
                print(f"{r['system']} {r['bucket']} seg {r['seg_id']}: {result.baseline}={r['baseline_value']:.4f}, "
                      f"{r['system']}={r['value']:.4f}\n  Ref:  {r['reference']}\n  {result.baseline}: "
                      f"{r['baseline_hypothesis']}\n  {r['system']}: {r['hypothesis']}", file=out)
        else:
            by = {(r["bucket"], r["system"]): r for r in records}
            print("\t".join(["bucket", *systems]), file=out)
            for bucket in dict.fromkeys(r["bucket"] for r in records):
                print("\t".join(["all" if bucket is None else str(bucket)]
                                + [_cell(by[bucket, s]) for s in systems]), file=out)
        print(f"signature: {result.signatures.get(analysis, '')}\n", file=out)
