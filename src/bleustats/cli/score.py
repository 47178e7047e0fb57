"""``bleustats score``: corpus BLEU / ΔBLEU with sacreBLEU's arguments, from texts, tables or saved statistics.

Reference files are positional arguments and ``-i`` gives the hypotheses, as
for the ``sacrebleu`` command; a path ending in ``.tsv``, ``.jsonl`` or
``.parquet`` is read as a long-form table, so one hypotheses table can hold
many systems (scored per system). ``--from-stats`` rescores a table saved by
``bleustats stats`` without the texts. A sacreBLEU command line (text files or
standard input, sacreBLEU's flags only) prints sacreBLEU's output
(:mod:`bleustats.cli.sacrebleu_cli`); tables, ``--from-stats`` and bleustats'
own options print bleustats' format. The pipeline helpers here
(:func:`add_input_options`, :func:`compute_from_args`, :func:`print_scores`)
serve ``stats`` and ``demo`` too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any


from .main import COMMANDS
from ..engine._options import DELTA_DEFINITIONS, MAX_ORDER_LIMIT, REF_LENGTHS, REF_VIEWS, SMOOTH_METHODS
from ..errors import InputError, UsageError
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from . import sacrebleu_cli
from .sacrebleu_cli import check_not_empty
from ._dask import add_dask_option, executor_for

if TYPE_CHECKING:
    import pyarrow as pa

    from ..engine.dataset import StatsDataset
    from ..engine.stats import StatsTable

__all__ = ["add_input_options", "add_parser", "add_score_options", "check_not_empty", "compute_from_args",
           "print_scores", "run", "statistics_options"]

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
    # defaults are None here and filled in by statistics_options, so that `score --from-stats` can
    # tell an option the user gave (which must agree with the saved table) from one left alone
    p.add_argument("-tok", "--tokenize", choices=SACREBLEU_TOKENIZERS, default=None, action=_Given,
                   help=f"tokenizer, as sacreBLEU's (default: {DEFAULT_TOKENIZER}; ja-mecab, ko-mecab, spm, "
                        "flores* need their extras)")
    p.add_argument("-lc", "--lowercase", action="store_true", default=None, help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=None, metavar="N",
                   help=f"largest n-gram order, 1..{MAX_ORDER_LIMIT} (default: 4; with --from-stats the "
                        "table's, or any lower order)")
    p.add_argument("--ref-weights", nargs="+", metavar="FILE",
                   help="ΔBLEU weights in [-1, 1]: one file per reference file, one weight per line")
    p.add_argument("--ref-view", choices=REF_VIEWS, default=None,
                   help="references used: all, weight >= --weight-threshold, or the first (default: all)")
    p.add_argument("--weight-threshold", type=float, default=None, metavar="THETA",
                   help="θ of --ref-view threshold")
    p.add_argument("--delta-definition", choices=DELTA_DEFINITIONS, default=None,
                   help="ΔBLEU weighted matches: the paper's or the 2019 implementation's (default: paper)")


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
    p.add_argument("--allow-partial", action="store_true",
                   help="score systems that cover different segments, each on the segments it has (refused "
                        "otherwise); the coverage is printed, and 'coverage:partial' added to the signature")
    p.add_argument("--json", action="store_true",
                   help="bleustats' own output as JSON (all statistics; sacreBLEU's output is JSON already)")
    p.add_argument("-w", "--width", type=int, default=2, action=_Given,
                   help="decimals of the score (default: 1, as sacreBLEU; 2 in bleustats' own output)")
    p.add_argument("-b", "--score-only", action="store_true", help="print only the score")


def add_parser(subparsers: Any) -> None:
    """Add the ``score`` subcommand."""
    p = subparsers.add_parser("score", help=COMMANDS["score"],
                              description="Corpus BLEU / chrF / TER with sacreBLEU's command line and output: "
                                          "a sacreBLEU command line prints what sacreBLEU prints "
                                          "(bleustats.cli.sacrebleu_cli). Tables and --from-stats print it per "
                                          "system with -m, -f, -ci, -sl or --paired-*, bleustats' own output "
                                          "without them; bleustats' own options (ΔBLEU weights, --json, --by, "
                                          "...) print bleustats' own output.", allow_abbrev=False)
    add_input_options(p)
    add_score_options(p)
    sacrebleu_cli.add_sacrebleu_options(p)
    p.set_defaults(width_given=None, tokenize_given=None)
    p.add_argument("--from-stats", metavar="PARQUET",
                   help="score a saved statistics table (a .parquet file or a dataset folder) instead of texts "
                        "(no REF/-i); with -m, -f, -ci, -sl or --paired-*, per system as sacreBLEU scores the "
                        "texts (save chrF / TER with bleustats stats -m bleu chrf ter)")
    p.add_argument("--save-stats", metavar="PARQUET", help="also save the statistics table")
    add_dask_option(p)
    p.set_defaults(func=run)


def _inputs(args: argparse.Namespace) -> None:
    """``-i`` takes one or more files: with no REF before it (and no -t test set), the files after the first are
    references."""
    if isinstance(args.input, list):
        if not args.refs and len(args.input) > 1 and not getattr(args, "test_set", None):
            args.refs, args.input = args.input[1:], [args.input[0]]
        args.systems = args.input
        args.input = args.input[0]


#: statistics options: (argument name, flag, default)
_STATS_OPTIONS = (("tokenize", "-tok/--tokenize", DEFAULT_TOKENIZER), ("lowercase", "-lc/--lowercase", False),
                  ("ref_view", "--ref-view", "all"), ("weight_threshold", "--weight-threshold", None),
                  ("delta_definition", "--delta-definition", "paper"))


def statistics_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of compute_stats from the arguments, defaults filled in; flags checked together."""
    options = {name: default if getattr(args, name) is None else getattr(args, name)
               for name, _, default in _STATS_OPTIONS}
    options["max_ngram_order"] = 4 if args.max_ngram_order is None else args.max_ngram_order
    metrics = getattr(args, "stat_metrics", None)  # bleustats stats -m: chrF / TER statistics too
    if metrics:
        options["metrics"] = tuple(dict.fromkeys(["bleu", *metrics]))
        if "chrf" in metrics:
            options["chrf_options"] = sacrebleu_cli.chrf_options(args)
        if "ter" in metrics:
            options["ter_options"] = sacrebleu_cli.ter_options(args)
    given = [flag for flag, on in _chrf_ter_flags(args, metrics or ())]
    if given:
        raise UsageError(f"{given[0]}: a {'chrF' if 'chrf' in given[0] else 'TER'} option; add -m "
                         f"{'chrf' if 'chrf' in given[0] else 'ter'} to save that metric's statistics, or drop "
                         f"{given[0]}.")
    if options["weight_threshold"] is not None and options["ref_view"] != "threshold":
        raise UsageError("--weight-threshold: only used with --ref-view threshold; add --ref-view threshold "
                         "or drop --weight-threshold.")
    if options["ref_view"] == "threshold" and options["weight_threshold"] is None:
        raise UsageError("--ref-view threshold: needs --weight-threshold THETA (keep references with "
                         "weight >= THETA).")
    return options


def _chrf_ter_flags(args: argparse.Namespace, metrics: Any) -> list[tuple[str, bool]]:
    """``stats``' chrF / TER flags given without their metric in ``-m`` (empty for ``score``, which has no such
    combination to check here)."""
    from ..engine._options import CHRF_DEFAULTS

    if getattr(args, "stat_metrics", "absent") == "absent":
        return []
    out = []
    for key, flag in (("char_order", "-cc/--chrf-char-order"), ("word_order", "-cw/--chrf-word-order"),
                      ("beta", "--chrf-beta"), ("lowercase", "--chrf-lowercase"), ("whitespace", "--chrf-whitespace"),
                      ("eps_smoothing", "--chrf-eps-smoothing")):
        if "chrf" not in metrics and sacrebleu_cli.chrf_options(args)[key] != CHRF_DEFAULTS[key]:
            out.append((flag, True))
    for key, on in sacrebleu_cli.ter_options(args).items():
        if "ter" not in metrics and on:
            out.append((f"--ter-{key.replace('_', '-')}", True))
    return out


def _check_score_options(args: argparse.Namespace) -> None:
    if args.smooth_value is not None and args.smooth_method not in ("floor", "add-k"):
        raise UsageError(f"-sv/--smooth-value: only used by -s floor and -s add-k; got -s {args.smooth_method}. "
                         "Drop -sv or choose one of those.")
    if args.score_only and args.json:
        raise UsageError("-b/--score-only and --json: choose one (--json already holds the score).")


def _from_stats(args: argparse.Namespace) -> StatsTable | StatsDataset:
    """The saved table or dataset, at the asked order; every statistics option given must agree with it."""
    if args.refs or args.input:
        raise UsageError("--from-stats: scores a saved table; drop REF and -i.")
    if args.ref_weights:
        raise UsageError("--ref-weights: the weights are already in the saved statistics; drop --ref-weights.")
    if args.save_stats:
        raise UsageError(f"--save-stats: the statistics are already saved in {args.from_stats}; drop --save-stats.")
    if getattr(args, "dask", None) and not Path(args.from_stats).is_dir():
        raise UsageError("--dask: scores a partitioned statistics dataset (a folder written by bleustats "
                         "stats -o DIR); this one is a single file, scored here. Drop --dask.")
    from ..engine.dataset import open_stats  # here: Parquet is only read with --from-stats

    stats = open_stats(args.from_stats)  # a file is loaded; a dataset folder is opened (footers only)
    check_not_empty(stats, args.from_stats)
    saved = {"tokenize": stats.tokenize, "lowercase": stats.lowercase, "ref_view": stats.ref_view,
             "weight_threshold": stats.weight_threshold, "delta_definition": stats.delta_definition}
    for name, flag, _ in _STATS_OPTIONS:
        given = getattr(args, name)
        if given is not None and given != saved[name]:
            raise InputError(
                f"{flag}: {args.from_stats} was computed with {name}={saved[name]!r}; {given!r} cannot apply to "
                f"saved statistics. Drop {flag.split('/')[0]}, or compute the statistics again (bleustats stats "
                f"{flag.split('/')[0]} ...).")
    if args.max_ngram_order is not None:
        if args.max_ngram_order > stats.max_ngram_order:
            raise InputError(
                f"--max-ngram-order: {args.from_stats} holds orders 1..{stats.max_ngram_order}; order "
                f"{args.max_ngram_order} needs the statistics computed again (bleustats stats --max-ngram-order "
                f"{args.max_ngram_order} ...).")
        stats = stats.up_to_order(args.max_ngram_order)
    return stats


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats score``; errors propagate to :func:`bleustats.cli.main`."""
    _inputs(args)
    if sacrebleu_cli.wants_sacrebleu(args) or sacrebleu_cli.is_sacrebleu_command_line(args):
        args.input = getattr(args, "systems", None)
        return sacrebleu_cli.run(args, saved=_from_stats)
    if len(getattr(args, "systems", None) or ()) > 1:
        raise InputError(f"-i: {len(args.systems)} system files; several systems are scored in sacreBLEU's "
                         "output (drop bleustats' own options such as --json, --by, --ref-weights), or give one "
                         "hypotheses table.")
    _check_score_options(args)
    if args.from_stats:
        stats = _from_stats(args)
        with executor_for(args) as executor:  # a dataset is scored part by part (--dask: on the cluster)
            print_scores(args, stats.with_executor(executor))
        return 0
    if getattr(args, "dask", None):
        raise UsageError("--dask: compute the statistics on the cluster with bleustats stats --dask ... -o DIR, "
                         "then score them with bleustats score --from-stats DIR --dask ...")
    stats = compute_from_args(args)
    if args.save_stats:
        stats.save(args.save_stats)
    print_scores(args, stats)
    return 0


def _is_table_path(path: str | None) -> bool:
    from ..engine import io

    return path is not None and Path(path).suffix.lower() in io.TABLE_SUFFIXES


def _read_stdin_lines() -> pa.Array:
    import pyarrow as pa

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
    from ..engine.stats import compute_stats, compute_stats_files
    from ..engine import io

    _inputs(args)
    options = statistics_options(args)
    if not args.refs:
        raise InputError("no references: give reference files (or one references table) as "
                            "positional arguments.")
    plain = args.input and not _is_table_path(args.input) and not any(_is_table_path(r) for r in args.refs)
    if args.ref_weights and plain and len(args.ref_weights) != len(args.refs):
        raise InputError(f"--ref-weights: need one weight file per reference file ({len(args.refs)}); "
                            f"got {len(args.ref_weights)}.")
    if plain:  # line-aligned text files: streamed in chunks, memory stays bounded
        stats = compute_stats_files(args.input, args.refs, ref_weight_paths=args.ref_weights, **options)
        check_not_empty(stats, args.input)
        return stats
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
    try:
        stats = compute_stats(hyps, refs, **options)
    except InputError as exc:  # name the file the problem is in, not only the table's role
        files = {"hypotheses": args.input if _is_table_path(args.input) else None,
                 "references": args.refs[0] if len(args.refs) == 1 and _is_table_path(args.refs[0]) else None}
        role, _, rest = str(exc).partition(":")
        if (role == "references" and files["references"] and not files["hypotheses"]
                and "have hypotheses but no reference" in rest):
            rest += (" The hypotheses of a plain-text file are numbered from 0 (line 1 is seg_id 0); give the "
                     "references table the same numbering, or the hypotheses as a table with seg_id.")
        if files.get(role):
            raise type(exc)(f"{role} {files[role]}:{rest}") from None
        raise
    check_not_empty(stats, args.input or "standard input")
    return stats


def _metrics(args: argparse.Namespace, stats: StatsTable) -> list[str]:
    if args.metric == "both" or (args.metric is None and stats.weights == "custom"):
        return ["bleu", "delta_bleu"]
    return [args.metric or "bleu"]


def print_scores(args: argparse.Namespace, stats: StatsTable | StatsDataset, out: Any = None) -> None:
    """Print corpus scores of ``stats`` (per group with several systems or ``--by``) as text or JSON.

    ``stats`` may be a partitioned dataset (the scorers of :mod:`bleustats.metrics.tables` take either).
    """
    from ..metrics.tables import corpus_score, corpus_scores, n_systems

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
            payload = [{**r.to_dict(args.width), "signature": str(r.signature)} for r in results]
            print(json.dumps(payload[0] if len(payload) == 1 else payload, ensure_ascii=False, indent=1), file=out)
            return
        for r in results:
            print(r.format(args.width, score_only=args.score_only), file=out)
            if not args.score_only:
                print(f"  signature: {str(r.signature)}", file=out)
        return
    allow_partial = bool(getattr(args, "allow_partial", False))
    try:
        frames = {m: corpus_scores(stats, by=by, metric=m, allow_partial=allow_partial, **options) for m in metrics}
    except InputError as exc:
        source = getattr(args, "from_stats", None) or getattr(args, "input", None)
        if "cover different segments" in str(exc) and source:  # name the input the systems came from
            raise InputError(f"{source if isinstance(source, str) else ', '.join(source)}: {exc}") from None
        raise
    coverage = frames[metrics[0]].attrs.get("coverage")  # only when the systems' segments differ
    if args.json:
        payload = {m: {"signature": str(f.attrs["signature"]),
                       "scores": json.loads(f.to_json(orient="records"))}
                   for m, f in frames.items()}
        if coverage is not None:
            for m in payload:
                payload[m]["coverage"] = coverage
        print(json.dumps(payload, ensure_ascii=False, indent=1), file=out)
        return
    keys = frames[metrics[0]][by].tolist()
    names = {"bleu": "BLEU", "delta_bleu": "ΔBLEU"}
    label_w = max(len(by), *(len(str(k)) for k in keys))
    seg_w = len(f"{coverage['segments']}/{coverage['segments']}") if coverage is not None else 0
    print(f"{by:<{label_w}}  " + "  ".join(f"{names[m]:>7}" for m in metrics)
          + (f"  {'segments':>{max(seg_w, 8)}}" if coverage is not None else ""), file=out)
    for i, key in enumerate(keys):
        cells = "  ".join(f"{frames[m]['score'].iloc[i]:>7.{args.width}f}" for m in metrics)
        if coverage is not None:
            have = f"{frames[metrics[0]]['segments'].iloc[i]}/{coverage['segments']}"
            cells += f"  {have:>{max(seg_w, 8)}}"
        print(f"{str(key):<{label_w}}  {cells}", file=out)
    if coverage is not None:
        print(f"partial coverage (--allow-partial): each system is scored on the segments it has, of the "
              f"{coverage['segments']} segments of all systems; these scores are not comparable as sacreBLEU's are",
              file=out)
    if not args.score_only:
        for m in metrics:
            print(f"{names[m]} signature: {frames[m].attrs['signature']}", file=out)
