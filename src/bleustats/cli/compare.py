"""``bleustats compare``: compare systems as compare-mt does, with chrF / TER / ΔBLEU, intervals and p-values.

::

    bleustats compare REF [REF ...] -i SYS1 SYS2 [SYS ...] [-o DIR] [--json]

References and hypotheses are read as ``score`` reads them (plain-text files,
one segment per line, or one long-form table each), or ``--from-stats`` reads
a saved statistics table; :func:`bleustats.tools.system_compare.compare` does
the work. The result is printed as compare-mt's tables (values, intervals,
p-values against the baseline) or, with ``--json``, as the records of
``data_schemas/compare.json``; ``-o DIR`` also writes the HTML report
(``DIR/index.html``, :mod:`bleustats.tools.compare_report`).

The command's own options are declared in :func:`add_compare_options`; the
inputs, tokenization and chrF / TER options are ``score``'s and ``stats``'
(:func:`bleustats.cli.score.add_input_options`,
:func:`bleustats.cli.sacrebleu_cli.add_chrf_ter_options`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .main import COMMANDS
from ..errors import InputError, UsageError
from .sacrebleu_cli import add_chrf_ter_options
from .score import add_input_options, statistics_options

if TYPE_CHECKING:
    from ..tools.system_compare import Comparison

__all__ = ["add_compare_options", "add_parser", "run"]

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


def add_compare_options(p: argparse.ArgumentParser) -> None:
    """The options of ``compare`` that no other command has, in one place."""
    g = p.add_argument_group("comparison")
    g.add_argument("-m", "--metrics", dest="compare_metrics", choices=_METRICS, nargs="+", default=None,
                   help="metrics of the corpus and of every bucket (default: bleu chrf, and delta_bleu with "
                        "--ref-weights; ter on request: its shift search is the slowest part)")
    g.add_argument("--names", nargs="+", metavar="NAME",
                   help="system names, one per -i file (default: the file names without their extension)")
    g.add_argument("--baseline", metavar="NAME", help="the system every other is tested against (default: the first)")
    g.add_argument("--labels", metavar="FILE", help="one label per segment (a domain, a document): buckets of "
                                                    "*_by_label")
    g.add_argument("--freq-corpus", metavar="FILE",
                   help="count word frequencies in this text (compare-mt's freq_corpus_file) instead of the "
                        "references")
    g.add_argument("--bleu-definition", choices=_DEFINITIONS, default="compare-mt",
                   help="compare-mt's corpus and sentence BLEU, or sacreBLEU's (default: %(default)s)")
    g.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="paired bootstrap resamples for intervals and p-values; 0: none (default: %(default)s)")
    g.add_argument("--seed", type=int, default=12345, help="seed of the resamples (default: %(default)s)")
    g.add_argument("--length-buckets", type=_numbers, default=None, metavar="A:B:...",
                   help="reference-length bucket boundaries (default: compare-mt's 10:20:30:40:50:60)")
    g.add_argument("--length-difference-buckets", type=_numbers, default=None, metavar="A:B:...",
                   help="len(output) - len(reference) bucket boundaries (default: compare-mt's)")
    g.add_argument("--sentence-bleu-buckets", type=_numbers, default=None, metavar="A:B:...",
                   help="sentence-BLEU bucket boundaries (default: 10.0:20.0:...:90.0)")
    g.add_argument("--frequency-buckets", type=_numbers, default=None, metavar="A:B:...",
                   help="word-frequency bucket boundaries (default: 1:2:3:4:5:10:100:1000)")
    g.add_argument("--ngram-orders", type=int, nargs=2, default=(1, 4), metavar=("MIN", "MAX"),
                   help="n-gram orders of the n-gram analysis (default: 1 4)")
    g.add_argument("--ngram-alpha", type=float, default=1.0, help="compare-mt's smoothing alpha (default: 1.0)")
    g.add_argument("--ngram-compare", choices=_NGRAM_TYPES, nargs="+", default=["match"],
                   help="compare-mt's compare_type(s) of the n-gram analysis (default: match)")
    g.add_argument("--ngram-report-length", type=int, default=50, metavar="N",
                   help="n-grams reported each way (default: %(default)s)")
    g.add_argument("--examples", type=int, default=10, metavar="N",
                   help="sentence examples reported each way (default: %(default)s)")
    g.add_argument("--from-stats", metavar="PARQUET",
                   help="compare the systems of a saved statistics table (no texts: no word, n-gram or example "
                        "analysis)")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print the records (data_schemas/compare.json) as JSON")
    out.add_argument("-o", "--output", metavar="DIR", help="also write the HTML report as DIR/index.html")
    out.add_argument("--overwrite", action="store_true", help="replace an existing -o folder")
    out.add_argument("--title", default="bleustats compare", help="the report's title")


def add_parser(subparsers: Any) -> None:
    """Add the ``compare`` subcommand."""
    p = subparsers.add_parser("compare", help=COMMANDS["compare"], allow_abbrev=False,
                              description="Compare systems on the same segments: compare-mt's analyses (BLEU, "
                                          "length ratio, word F-measure by frequency, BLEU by length, sentence "
                                          "buckets, n-gram differences, sentence examples) and chrF / TER / ΔBLEU "
                                          "per bucket, each system against a baseline with paired bootstrap "
                                          "intervals and p-values.")
    add_input_options(p)
    add_chrf_ter_options(p.add_argument_group("chrF / TER options (with -m chrf / ter)"))
    add_compare_options(p)
    p.set_defaults(func=run)


def _read_lines(path: str) -> list[str]:
    from ..engine import io

    return io.read_lines(path).to_pylist()


def _system_names(args: argparse.Namespace, files: list[str]) -> list[str]:
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

    files, refs = list(args.input or []), list(args.refs or [])
    if not refs:
        raise UsageError("no references: give the reference files (or one references table) before -i.")
    if not files:
        raise UsageError("-i: give the systems' outputs (two or more files, or one hypotheses table).")
    tables = [f for f in files if Path(f).suffix.lower() in io.TABLE_SUFFIXES]
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
    if len(refs) == 1 and Path(refs[0]).suffix.lower() in io.TABLE_SUFFIXES:
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


def _check_output(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output folder that cannot be written."""
    if not args.output:
        return
    from ..engine import io

    target = Path(args.output.rstrip("/") or args.output)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"-o {args.output}: the parent folder {parent} does not exist; create it first.")
    target = io.output_target(target, folder_output=True)
    if target.exists() and not args.overwrite:
        raise InputError(f"-o {args.output}: exists; pass --overwrite to replace it or choose another folder.")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``bleustats compare``; errors propagate to :func:`bleustats.cli.main.main`."""
    from ..tools.system_compare import compare

    out = out if out is not None else sys.stdout
    _check_output(args)
    metrics = args.compare_metrics
    if args.from_stats:
        given = [flag for flag, value in (("-tok", args.tokenize), ("-lc", args.lowercase),
                                          ("--max-ngram-order", args.max_ngram_order), ("--ref-view", args.ref_view),
                                          ("--weight-threshold", args.weight_threshold),
                                          ("--delta-definition", args.delta_definition)) if value is not None]
        if given:
            raise UsageError(f"{given[0]}: --from-stats compares a saved table, whose statistics options are fixed; "
                             f"drop {given[0]}.")
    # the chrF / TER flags belong to the metrics that are computed (chrF is one by default)
    args.stat_metrics = [m for m in (metrics or ("chrf",)) if m in ("chrf", "ter")]
    options = statistics_options(args)  # score's defaults and checks (tokenizer, views, chrF / TER flags)
    options.pop("metrics", None)
    kwargs: dict[str, Any] = {}
    for name in ("length_buckets", "length_difference_buckets", "sentence_bleu_buckets", "frequency_buckets"):
        if getattr(args, name) is not None:
            kwargs[name] = getattr(args, name)
    common = dict(baseline=args.baseline, metrics=metrics, bleu_definition=args.bleu_definition,
                  n_samples=args.bootstrap, seed=args.seed, ngram_orders=tuple(args.ngram_orders),
                  ngram_alpha=args.ngram_alpha, ngram_compare=args.ngram_compare,
                  ngram_report_length=args.ngram_report_length, n_examples=args.examples, **kwargs)
    labels = _read_lines(args.labels) if args.labels else None
    if args.from_stats:
        if args.refs or args.input or args.freq_corpus or args.ref_weights:
            raise UsageError("--from-stats: compares a saved table; drop REF, -i, --ref-weights and --freq-corpus.")
        from ..engine.stats import load_stats

        result = compare(load_stats(args.from_stats), labels=labels, **common)
    else:
        hyps, refs, weights = _inputs(args)
        freq = _read_lines(args.freq_corpus) if args.freq_corpus else None
        result = compare(hyps, refs, ref_weights=weights, labels=labels, freq_corpus=freq, **options, **common)
    if args.output:
        from ..tools.compare_report import write_report

        write_report(result, args.output.rstrip("/") or args.output, title=args.title, overwrite=args.overwrite)
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
