"""``bleustats score``: corpus BLEU / ΔBLEU / chrF / TER with sacreBLEU's arguments, from texts, tables or statistics.

Reference files are positional arguments (or ``-r/--references``) and ``-i``
gives the hypotheses, as for the ``sacrebleu`` command: several files after
``-i`` are several systems, never references. A path ending in ``.tsv``,
``.jsonl`` or ``.parquet`` is read as a long-form table (one hypotheses table
can hold many systems), except a references file split by ``-nr N``, which is
text as in sacreBLEU. ``--from-stats`` rescores a table saved by ``bleustats
stats`` without the texts.

Every spelling sacreBLEU 2.6's parser accepts means what it means there: its
short and long flags and the abbreviations argparse resolves for it
(``--tok``, ``--lower``, ``--metric chrf``, ``--chrf-word 2``, ``--smooth-m
floor``); the bleustats options beside them never make one ambiguous. A line
without bleustats' own options prints what ``sacrebleu`` prints
(:mod:`bleustats.cli.sacrebleu_cli`); bleustats' own options (``-m
delta_bleu``, ``--ref-weights``, ``--json``, ``--by``, ``--max-ngram-order``,
...) print bleustats' own output: text lines, or score records with ``--json``
(``data_schemas/score_records.json``). Tables and ``--from-stats`` without
sacreBLEU's flags print bleustats' own output too. ``--segment-scores FILE``
writes every system's per-segment scores in either mode. The pipeline helpers
here (:func:`compute_from_args`, :func:`print_scores`, :func:`statistics_options`)
serve ``stats`` and ``demo`` too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..engine._options import TABLE_SUFFIXES
from ..errors import InputError, UsageError
from ..tokenizers import DEFAULT_TOKENIZER
from . import sacrebleu_cli
from ._errors import guarded
from .main import COMMANDS
from ._options import CHRF_TER_OPTIONS, Command, metric_names, non_negative_int
from ._progress import reporter, step
from .sacrebleu_cli import check_not_empty, no_references

if TYPE_CHECKING:
    import pyarrow as pa

    from ..engine.dataset import StatsDataset
    from ..engine.stats import StatsTable

__all__ = ["EXAMPLES", "SCORE_METRICS", "add_parser", "add_score_options", "check_not_empty", "column_metrics",
           "compute_from_args", "own_options_given", "print_scores", "run", "sacrebleu_output", "statistics_options"]

#: ``-m`` of ``score``: sacreBLEU's metrics, and ΔBLEU (bleustats' own output).
SCORE_METRICS = ("bleu", "chrf", "ter", "delta_bleu")

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats score ref0.txt ref1.txt -i hyp.txt                   # like `sacrebleu ref0.txt ref1.txt -i hyp.txt`",
    "bleustats score ref0.txt ref1.txt -i hyp.txt -tok none -lc -s floor --json",
    "bleustats score ref0.txt ref1.txt -i hyp.txt sys2.txt -m bleu chrf ter -f text    # sacreBLEU's output, byte "
    "for byte",
    "bleustats score ref0.txt -i hyp.txt sys2.txt -m bleu chrf ter --paired-bs     # sacreBLEU's paired tests",
    "bleustats score ref0.txt ref1.txt -i hyp.txt --ref-weights w0.txt w1.txt   # BLEU and ΔBLEU",
    "bleustats score refs.tsv -i hyps.tsv --ref-view threshold --weight-threshold 0.5   # per system",
    "bleustats score refs.tsv -i hyps.tsv -m bleu chrf ter --by system --segment-scores segments.tsv   # and "
    "per segment",
    "bleustats score ref0.txt -i hyp.txt -m chrf --chrf-word-order 2",
    "bleustats score ref0.txt -i hyp.txt -m ter --ter-normalized --ter-case-sensitive",
    "bleustats score ref0.txt -i hyp.txt -tok none",
    "bleustats score ref0.txt -i hyp.txt -tok intl",
    "bleustats score ref0.txt -i hyp.txt -tok char",
    "bleustats score ref0.txt -i hyp.txt -tok zh",
    "bleustats score ref0.txt -i hyp.txt -lc",
)

#: bleustats' own options of ``score``, which ask for bleustats' own output: (argument, flag, default).
OWN_OPTIONS = (
    ("max_ngram_order", "--max-ngram-order", None), ("ref_weights", "--ref-weights", None),
    ("ref_view", "--ref-view", None), ("weight_threshold", "--weight-threshold", None),
    ("delta_definition", "--delta-definition", None), ("ref_length", "--ref-length", "closest"),
    ("by", "--by", None), ("json", "--json", False), ("use_effective_order", "--use-effective-order", False),
    ("save_stats", "--save-stats", None), ("dask", "--dask", None), ("allow_partial", "--allow-partial", False),
    ("undefined", "--undefined", "error"),
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``score`` subcommand."""
    cmd = Command(subparsers, "score", summary=COMMANDS["score"], examples=EXAMPLES,
                  description=("Corpus BLEU, ΔBLEU, chrF and TER with sacreBLEU's command line and output: a\n"
                               "sacreBLEU command line prints what sacreBLEU prints, and every spelling\n"
                               "sacreBLEU's parser accepts means what it means there. bleustats' own options (-m\n"
                               "delta_bleu, --ref-weights, --json, --by, ...) print bleustats' own output; so do\n"
                               "tables and --from-stats without sacreBLEU's flags."))
    add_score_options(cmd, sacrebleu=True)
    p = cmd.parser
    # sacreBLEU's parser resolves --m, --w, --de and --se (abbreviations) to --metrics, --width, --detail and
    # --sentence-level; beside --max-ngram-order, --weight-threshold, --delta-definition and --segment-scores they
    # would be ambiguous, so they are spelled out (hidden)
    p.add_argument("--m", dest="metrics", nargs="+", type=metric_names(SCORE_METRICS), help=argparse.SUPPRESS)
    p.add_argument("--w", dest="width", type=non_negative_int, help=argparse.SUPPRESS)
    p.add_argument("--de", dest="detail", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--se", dest="sentence_level", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=run)
    return cmd


def add_score_options(cmd: Command, *, sacrebleu: bool) -> None:
    """The options of ``score`` (``sacrebleu=True``) and of ``demo`` (its scoring and output options only)."""
    if sacrebleu:
        cmd.add("refs", "references")
        cmd.add("input", nargs="*")
        cmd.own("--from-stats", metavar="PARQUET", role="input", group="inputs",
                help="score a saved statistics table (a .parquet file or a dataset folder) instead of texts (no REF, "
                     "no -i); with sacreBLEU's flags, per system as sacreBLEU scores the texts (save chrF and TER "
                     "with bleustats stats -m bleu chrf ter)")
        # None: not given (a --from-stats table's own settings apply; -l picks sacreBLEU's tokenizer)
        cmd.add("tokenize", default=None)
        cmd.add("lowercase", default=None)
    cmd.add("metrics", choices=SCORE_METRICS if sacrebleu else ("bleu", "delta_bleu"), action="store", default=None,
            shown="bleu, and delta_bleu with reference weights; a repeated -m replaces the earlier one, as in "
                  "sacreBLEU")
    if sacrebleu:
        cmd.add("max_ngram_order", default=None)
    cmd.add("smooth_method", "smooth_value", "ref_length")
    cmd.own("--use-effective-order", action="store_true", group="metrics",
            help="average BLEU's precisions only up to the last order with n-grams")
    if sacrebleu:
        cmd.add(*CHRF_TER_OPTIONS)
        cmd.add("ref_weights", "ref_view")
        cmd.add("weight_threshold", default=None)
        cmd.add("delta_definition")
        cmd.add("undefined")
    cmd.add("json")
    cmd.own("-w", "--width", type=non_negative_int, default=None, group="outputs",
            help="decimals of the printed score (default: 1 in sacreBLEU's output, 2 in bleustats' own)")
    cmd.own("-b", "--score-only", action="store_true", group="outputs", help="print only the score")
    cmd.own("--by", default=None, metavar="COLUMN", group="outputs",
            help="score per group of this statistics column (default: per system when there are several)")
    cmd.own("--allow-partial", action="store_true", group="outputs",
            help="score systems that cover different segments, each on the segments it has (refused otherwise); "
                 "the coverage is printed, and 'coverage:partial' added to the signature")
    if sacrebleu:
        cmd.add("segment_scores")
        cmd.own("--save-stats", metavar="PARQUET", role="output", group="outputs",
                help="also save the statistics table (bleustats' own output)")
        cmd.add("replace", "quiet", "progress")
        sacrebleu_cli.add_sacrebleu_options(cmd)
        cmd.add("dask")


#: statistics options: (argument name, flag, default)
_STATS_OPTIONS = (("tokenize", "-tok/--tokenize", DEFAULT_TOKENIZER), ("lowercase", "-lc/--lowercase", False),
                  ("ref_view", "--ref-view", "all"), ("weight_threshold", "--weight-threshold", None),
                  ("delta_definition", "--delta-definition", "paper"))
#: the metrics whose statistics have their own columns (BLEU's and ΔBLEU's are always there)
_COLUMN_METRICS = ("chrf", "ter")


def column_metrics(args: argparse.Namespace) -> tuple[str, ...]:
    """The statistics groups the asked metrics need: ``('bleu',)`` and chrf / ter when asked for."""
    return tuple(dict.fromkeys(["bleu", *(m for m in (args.metrics or ()) if m in _COLUMN_METRICS)]))


def statistics_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of compute_stats from the arguments, defaults filled in; flags checked together."""
    options = {name: default if getattr(args, name) is None else getattr(args, name)
               for name, _, default in _STATS_OPTIONS}
    options["max_ngram_order"] = 4 if args.max_ngram_order is None else args.max_ngram_order
    metrics = column_metrics(args)
    if len(metrics) > 1:
        options["metrics"] = metrics
        if "chrf" in metrics:
            options["chrf_options"] = sacrebleu_cli.chrf_options(args)
        if "ter" in metrics:
            options["ter_options"] = sacrebleu_cli.ter_options(args)
    given = _chrf_ter_flags(args, metrics)
    if given:
        metric = "chrf" if "chrf" in given[0] else "ter"
        raise UsageError(f"{given[0]}: a {'chrF' if metric == 'chrf' else 'TER'} option; add -m {metric} to compute "
                         f"that metric, or drop {given[0]}.")
    if options["weight_threshold"] is not None and options["ref_view"] != "threshold":
        raise UsageError("--weight-threshold: only used with --ref-view threshold; add --ref-view threshold "
                         "or drop --weight-threshold.")
    if options["ref_view"] == "threshold" and options["weight_threshold"] is None:
        options["weight_threshold"] = 0.0  # the shown default of --weight-threshold
    return options


def _chrf_ter_flags(args: argparse.Namespace, metrics: Any) -> list[str]:
    """chrF / TER flags given without their metric in ``-m``."""
    from ..engine._options import CHRF_DEFAULTS

    out = []
    for key, flag in (("char_order", "-cc/--chrf-char-order"), ("word_order", "-cw/--chrf-word-order"),
                      ("beta", "--chrf-beta"), ("lowercase", "--chrf-lowercase"), ("whitespace", "--chrf-whitespace"),
                      ("eps_smoothing", "--chrf-eps-smoothing")):
        if "chrf" not in metrics and sacrebleu_cli.chrf_options(args)[key] != CHRF_DEFAULTS[key]:
            out.append(flag)
    for key, on in sacrebleu_cli.ter_options(args).items():
        if "ter" not in metrics and on:
            out.append(f"--ter-{key.replace('_', '-')}")
    return out


def _check_score_options(args: argparse.Namespace) -> None:
    if args.smooth_value is not None and args.smooth_method not in ("floor", "add-k"):
        raise UsageError(f"-sv/--smooth-value: only used by -s floor and -s add-k; got -s {args.smooth_method}. "
                         "Drop -sv or choose one of those.")
    if args.score_only and args.json:
        raise UsageError("-b/--score-only and --json: choose one (--json already holds the score).")


def _from_stats(args: argparse.Namespace) -> StatsTable | StatsDataset:
    """The saved table or dataset, at the asked order; every statistics option given must agree with it."""
    if args.refs or args.systems:
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
    sacrebleu_cli.check_saved_options(args, stats, column_metrics(args), args.from_stats)
    return stats


def _inputs(args: argparse.Namespace) -> None:
    """REF and -r/--references as one list; ``args.systems`` the -i files; ``args.input`` the first (or None)."""
    args.refs = [*(args.refs or []), *(args.references or [])]
    systems = args.input
    if systems is not None and not systems:
        raise UsageError("-i/--input: give at least one hypotheses file, or leave -i out to read standard input.")
    args.systems = list(systems or [])
    args.input = args.systems[0] if args.systems else None


def own_options_given(args: argparse.Namespace) -> list[str]:
    """The flags of bleustats' own options on the command line (they ask for bleustats' own output)."""
    given = [flag for key, flag, default in OWN_OPTIONS if getattr(args, key, default) != default]
    if "delta_bleu" in (args.metrics or ()):
        given.append("-m delta_bleu")
    return given


def sacrebleu_output(args: argparse.Namespace) -> bool:
    """Whether ``score`` prints sacreBLEU's output (else bleustats' own); see the module docstring."""
    own, only = own_options_given(args), sacrebleu_cli.output_flags_given(args)
    if own and only:
        raise UsageError(f"{', '.join(own)}: not an option of sacreBLEU's output mode (asked for by {only[0]}); drop "
                         f"it, or drop {', '.join(only)} to use bleustats' own output (which has it).")
    if own:
        return False
    if only or args.metrics or sacrebleu_cli.chrf_ter_given(args) or sacrebleu_cli.format_from_environment():
        return True
    return sacrebleu_cli.is_sacrebleu_command_line(args)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats score``; returns the exit code (errors are said on ``stderr`` as one line)."""
    return guarded("score", _run, args, stderr)


def _run(args: argparse.Namespace) -> int:
    _inputs(args)
    with reporter(args, "bleustats score"):
        if sacrebleu_output(args):
            args.input = args.systems or None  # sacreBLEU's -i: every system's file
            return sacrebleu_cli.run(args, saved=_from_stats, segments=_write_text_segments)
        if len(args.systems) > 1:
            raise InputError(f"-i: {len(args.systems)} system files; several systems are scored in sacreBLEU's "
                             "output (drop bleustats' own options such as --json, --by, --ref-weights), or give one "
                             "hypotheses table.")
        _check_score_options(args)
        if args.width is None:
            args.width = 2  # bleustats' own output
        if args.from_stats:
            stats = _from_stats(args)
            from ._dask import executor_for  # loaded where a command runs partitioned work
            with executor_for(args) as executor:  # a dataset is scored part by part (--dask: on the cluster)
                stats = _defined(args, stats.with_executor(executor))
                _write_segments(args, stats)
                print_scores(args, stats)
            return 0
        if getattr(args, "dask", None):
            raise UsageError("--dask: compute the statistics on the cluster with bleustats stats --dask ... -o DIR, "
                             "then score them with bleustats score --from-stats DIR --dask ...")
        stats = compute_from_args(args)
        if args.save_stats:
            step("saving the statistics")
            stats.save(args.save_stats)
        stats = _defined(args, stats)
        _write_segments(args, stats)
        print_scores(args, stats)
    return 0


def has_positive_weight(batch: Any) -> Any:
    """Rows of ``batch`` with a reference of positive weight: where ΔBLEU is defined (a module-level predicate, run
    where a dataset's parts are)."""
    return batch.column("ref_weight_max") > 0


def _defined(args: argparse.Namespace, stats: Any) -> Any:
    """With ``--undefined exclude``: the rows where ΔBLEU is defined, for every metric (the count said on stderr)."""
    if getattr(args, "undefined", "error") != "exclude":
        return stats
    kept = stats.where(has_positive_weight)
    dropped = len(stats) - len(kept)
    if not args.quiet:
        from ._progress import close_all

        close_all()
        print(f"bleustats score: --undefined exclude: {dropped} segment row(s) where ΔBLEU is undefined (no "
              "reference of positive weight) left out, for every metric", file=sys.stderr)
    check_not_empty(kept, getattr(args, "from_stats", None) or args.input or "standard input")
    return kept


def _write_segments(args: argparse.Namespace, stats: Any) -> None:
    """``--segment-scores`` of bleustats' own output: every metric printed, per row of ``stats``."""
    if not getattr(args, "segment_scores", None):
        return
    from ._records import segment_scores, write_segment_scores

    step("segment scores")
    options = _scoring_options(args)
    metrics = _metrics(args, stats)
    table = segment_scores(stats, metrics, options=options)
    write_segment_scores(args.segment_scores, table)


def _write_text_segments(args: argparse.Namespace, names: list[str], systems: list[list[str]],
                         refs: list[list[str | None]], tokenize: str) -> None:
    """``--segment-scores`` of sacreBLEU's output: each system's texts scored segment by segment, every -m metric."""
    import pyarrow as pa

    from ..engine.stats import compute_stats
    from ._records import segment_scores, write_segment_scores

    step("segment scores")
    wanted = list(args.metrics or ["bleu"])
    metrics = tuple(dict.fromkeys(["bleu", *(m for m in wanted if m in _COLUMN_METRICS)]))
    tables = []
    for name, lines in zip(names, systems):
        stats = compute_stats(list(lines), refs, tokenize=tokenize, lowercase=bool(args.lowercase), system=name,
                              references_layout="streams", metrics=metrics,
                              chrf_options=sacrebleu_cli.chrf_options(args) if "chrf" in metrics else None,
                              ter_options=sacrebleu_cli.ter_options(args) if "ter" in metrics else None)
        tables.append(segment_scores(stats, wanted, options={"smooth_method": args.smooth_method,
                                                             "smooth_value": args.smooth_value}))
    write_segment_scores(args.segment_scores, pa.concat_tables(tables))


def _is_table_path(path: str | None) -> bool:
    return path is not None and Path(path).suffix.lower() in TABLE_SUFFIXES


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
    """The statistics table of the inputs named by ``score`` / ``stats`` arguments (``args.input``: one path)."""
    from ..engine.stats import compute_stats, compute_stats_files
    from ..engine import io

    options = statistics_options(args)
    if not args.refs:
        raise no_references(args.command)
    step("reading the inputs and computing the statistics")
    plain = args.input and not _is_table_path(args.input) and not any(_is_table_path(r) for r in args.refs)
    if args.ref_weights and plain and len(args.ref_weights) != len(args.refs):
        raise InputError(f"--ref-weights: need one weight file per reference file ({len(args.refs)}); "
                         f"got {len(args.ref_weights)}.")
    if plain:  # line-aligned text files: streamed in chunks, memory stays bounded
        sacrebleu_cli.check_file_not_empty(args.input)
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
    check_not_empty(hyps, args.input or "standard input")
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


def _metrics(args: argparse.Namespace, stats: StatsTable | StatsDataset) -> list[str]:
    if args.metrics:
        return list(dict.fromkeys(args.metrics))
    if stats.weights == "custom":
        return ["bleu", "delta_bleu"]
    return ["bleu"]


def _scoring_options(args: argparse.Namespace) -> dict[str, Any]:
    return dict(smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                use_effective_order=args.use_effective_order, ref_length=args.ref_length)


#: column headers of the per-group text table
_HEADERS = {"bleu": "BLEU", "delta_bleu": "ΔBLEU", "chrf": "chrF", "ter": "TER"}


def print_scores(args: argparse.Namespace, stats: StatsTable | StatsDataset, out: Any = None) -> None:
    """Print corpus scores of ``stats`` (per group with several systems or ``--by``) as text or score records.

    ``stats`` may be a partitioned dataset (the scorers of :mod:`bleustats.metrics.tables` take either).
    ``--json`` prints a list of records (``data_schemas/score_records.json``), every number at full precision.
    """
    from ..metrics.tables import corpus_score, corpus_scores, n_systems
    from ._progress import close_all
    from ._records import signature

    step("scoring")
    out = out if out is not None else sys.stdout
    options = _scoring_options(args)
    by = args.by
    if by is None and n_systems(stats) > 1:
        by = "system"
    metrics = _metrics(args, stats)
    allow_partial = bool(getattr(args, "allow_partial", False))
    if args.json:
        from ._records import records

        try:
            payload = records(stats, metrics, by=by, options=options, allow_partial=allow_partial)
        except InputError as exc:
            _name_source(args, exc)
        import json

        close_all()
        print(json.dumps(payload, ensure_ascii=False, indent=1), file=out)
        return
    width = 2 if args.width is None else args.width
    if by is None:
        results = [corpus_score(stats, metric=m, **(options if m in ("bleu", "delta_bleu") else {})) for m in metrics]
        close_all()
        for m, r in zip(metrics, results):
            print(r.format(width, score_only=args.score_only), file=out)
            if not args.score_only:
                print(f"  signature: {signature(stats, m, r)}", file=out)
        return
    try:
        frames = {m: corpus_scores(stats, by=by, metric=m, allow_partial=allow_partial,
                                   **(options if m in ("bleu", "delta_bleu") else {})) for m in metrics}
    except InputError as exc:
        _name_source(args, exc)
    coverage = frames[metrics[0]].attrs.get("coverage")  # only when the systems' segments differ
    close_all()
    keys = frames[metrics[0]][by].tolist()
    label_w = max(len(by), *(len(str(k)) for k in keys))
    seg_w = len(f"{coverage['segments']}/{coverage['segments']}") if coverage is not None else 0
    print(f"{by:<{label_w}}  " + "  ".join(f"{_HEADERS[m]:>7}" for m in metrics)
          + (f"  {'segments':>{max(seg_w, 8)}}" if coverage is not None else ""), file=out)
    for i, key in enumerate(keys):
        cells = "  ".join(f"{frames[m]['score'].iloc[i]:>7.{width}f}" for m in metrics)
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
            print(f"{_HEADERS[m]} signature: {frames[m].attrs['signature']}", file=out)


def _name_source(args: argparse.Namespace, exc: InputError) -> None:
    """Re-raise ``exc``, naming the input the systems came from when they cover different segments."""
    source = getattr(args, "from_stats", None) or getattr(args, "input", None)
    if "cover different segments" in str(exc) and source:
        raise InputError(f"{source if isinstance(source, str) else ', '.join(source)}: {exc}") from None
    raise exc
