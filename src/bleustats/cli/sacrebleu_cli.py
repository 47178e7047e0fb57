"""sacreBLEU's command line inside ``bleustats score``: its flags, its output, bleustats' engine.

``bleustats score REF... -i SYS... -m bleu chrf ter -f json|text`` prints what
``sacrebleu REF... -i SYS... -m bleu chrf ter -f json|text`` prints (sacreBLEU
2.6, with ``--no-color``; signatures name bleustats as the version): one
system's scores as JSON (the default) or aligned text lines, several systems'
as a table, paired tests (``--paired-bs`` / ``--paired-ar``) with their
explanation, sentence scores with ``-sl``, bootstrap intervals with ``-ci``.
This mode is every sacreBLEU command line: texts (files, standard input or
``-t``) with sacreBLEU's flags only, ``bleustats score REF -i HYP`` included,
and any line with ``-m``, ``-f``, ``-ci``, ``-sl``, ``--paired-*``, ``-l``,
``-t``, ``-nr``, ``-e`` or a chrF / TER flag (or ``$SACREBLEU_FORMAT`` set)
and none of bleustats' own options (:func:`bleustats.cli.score.sacrebleu_output`
decides; those that only this mode has, with bleustats' own, are refused by
name). A references file split by ``-nr N`` is text, whatever its name. An
empty test set and a line without references are refused, as sacreBLEU refuses
them. ``--segment-scores FILE`` writes every system's per-segment scores (the
numbers ``-sl`` prints, at full precision) before the scores are printed.
``--from-stats TABLE`` with those flags scores each system of a table
saved by ``bleustats stats -m bleu chrf ter`` as sacreBLEU scores its texts
(:func:`_saved_systems`).

``-t`` / ``-l`` (and ``--echo``) read test sets already in the local sacreBLEU
cache (``$SACREBLEU``, :mod:`bleustats.engine.testsets`); bleustats never
downloads. The other test-set flags (``--list``, ``--origlang``, ``--subset``,
``--download``, ...) are rejected by name.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UsageError
from ..engine._options import CHRF_DEFAULTS, TABLE_SUFFIXES
from ..tokenizers import DEFAULT_TOKENIZER
from ._progress import close_all, step

if TYPE_CHECKING:  # the metric objects load their kernels: imported where a command uses them
    from ..metrics.base import Metric

__all__ = ["FORMATS", "METRIC_NAMES", "add_sacrebleu_options", "check_file_not_empty", "check_not_empty",
           "check_saved_options", "chrf_options", "chrf_ter_given",
           "format_from_environment", "is_sacrebleu_command_line", "no_references", "output_flags_given",
           "print_results_table", "print_single_results", "run", "ter_options"]

#: ``-m`` choices and ``-f`` choices, as sacreBLEU spells them.
METRIC_NAMES = ("bleu", "chrf", "ter")
FORMATS = ("json", "text", "latex")
# sacreBLEU flags bleustats cannot honour here, and why
_REJECTED = {
    "citation": "--citation needs sacreBLEU's test-set database: not available in bleustats.",
    "list": "--list needs sacreBLEU's test-set database: not available in bleustats.",
    "download": "--download fetches a test set: bleustats does not download; pass reference files.",
    "origlang": "--origlang filters a downloaded WMT test set by document: not available in bleustats.",
    "subset": "--subset filters a downloaded WMT test set by document: not available in bleustats.",
    "detail": "--detail splits a downloaded WMT test set by origlang: not available in bleustats.",
}


def add_sacrebleu_options(cmd: Any) -> None:
    """sacreBLEU's flags of ``bleustats score`` that no other command has (the shared ones are in cli._options).

    ``cmd`` is the subcommand's :class:`~bleustats.cli._options.Command`.
    """
    g = "sacreBLEU's options (sacreBLEU's output mode)"
    cmd.own("-f", "--format", choices=FORMATS, default=None, group=g,
            help="sacreBLEU's output format (default json; $SACREBLEU_FORMAT overrides it); latex: several "
                 "systems' table in LaTeX (booktabs), one system as text")
    cmd.own("-sl", "--sentence-level", action="store_true", group=g, help="score each sentence (one metric)")
    cmd.own("--force", action="store_true", group=g, help="accepted (bleustats prints no tokenized-input warning)")
    cmd.own("-nr", "--num-refs", type=int, default=1, group=g,
            help="references per line of one tab-separated references file (read as text, whatever its name)")
    cmd.own("-e", "--encoding", default="utf-8", group=g, help="text encoding of the files (default: utf-8)")
    cmd.own("-ci", "--confidence", action="store_true", group=g, help="bootstrap 95%% interval of one system")
    cmd.own("-cin", "--confidence-n", type=int, default=1000, group=g, help="bootstrap resamples of -ci")
    pair = cmd.group(g).add_mutually_exclusive_group()
    pair.add_argument("-par", "--paired-ar", action="store_true", help="paired approximate randomization")
    pair.add_argument("-pbs", "--paired-bs", action="store_true", help="paired bootstrap resampling")
    cmd.own("-parn", "--paired-ar-n", type=int, default=10000, group=g, help="trials of --paired-ar")
    cmd.own("-pbsn", "--paired-bs-n", type=int, default=1000, group=g, help="resamples of --paired-bs")
    cmd.own("-j", "--paired-jobs", type=int, default=1, group=g, help="accepted (the tests are vectorized)")
    cmd.own("-sh", "--short", action="store_true", group=g, help="short signatures")
    cmd.own("-nc", "--no-color", action="store_true", group=g, help="accepted (bleustats prints no colors)")
    cmd.own("-l", "--language-pair", dest="langpair", default=None, group=g,
            help="SRC-TRG: picks the BLEU tokenizer for TRG (zh, ja, ko), as sacreBLEU does")
    cmd.own("-t", "--test-set", default=None, group=g,
            help="test set(s) of the local sacreBLEU cache ($SACREBLEU), comma-separated; with -l")
    cmd.own("--echo", nargs="+", default=None, group=g,
            help="print these fields (src, ref, docid, ..., all) of the -t test set and exit")
    r = "sacreBLEU's test-set options (rejected: pass files)"
    cmd.own("--citation", "--cite", action="store_true", group=r, help=argparse.SUPPRESS)
    cmd.own("--list", action="store_true", group=r, help=argparse.SUPPRESS)
    cmd.own("--download", default=None, group=r, help=argparse.SUPPRESS)
    cmd.own("-ol", "--origlang", default=None, group=r, help=argparse.SUPPRESS)
    cmd.own("--subset", default=None, group=r, help=argparse.SUPPRESS)
    cmd.own("-d", "--detail", action="store_true", group=r, help=argparse.SUPPRESS)


def chrf_options(args: argparse.Namespace) -> dict[str, Any]:
    """The chrF flags as ``compute_stats``' ``chrf_options``."""
    return {"char_order": args.chrf_char_order, "word_order": args.chrf_word_order, "beta": args.chrf_beta,
            "lowercase": args.chrf_lowercase, "whitespace": args.chrf_whitespace,
            "eps_smoothing": args.chrf_eps_smoothing}


def ter_options(args: argparse.Namespace) -> dict[str, bool]:
    """The TER flags as ``compute_stats``' ``ter_options``."""
    return {"normalized": args.ter_normalized, "no_punct": args.ter_no_punct,
            "asian_support": args.ter_asian_support, "case_sensitive": args.ter_case_sensitive}


def check_saved_options(args: argparse.Namespace, stats: Any, metrics: Any, source: Any) -> None:
    """Refuse a chrF or TER option given on the command line that the saved statistics ``stats`` (a table or
    dataset read from ``source``) were not computed with, for the ``metrics`` scored: those statistics cannot
    answer it, and scoring them anyway would print a number for other options than the ones asked for."""
    from ._options import given

    if "chrf" in metrics and "chrf" in stats.metrics:
        saved = stats.chrf_options
        for key, value in chrf_options(args).items():
            if given(args, f"chrf_{key}") and value != saved[key]:
                raise InputError(f"chrF option {key}={value!r}: {source} was computed with {key}={saved[key]!r}; "
                                 "compute the statistics again with that option (bleustats stats -m chrf ...) or "
                                 "drop it.")
    if "ter" in metrics and "ter" in stats.metrics:
        saved_ter = stats.ter_options
        for key, value in ter_options(args).items():
            if given(args, f"ter_{key}") and bool(value) != bool(saved_ter[key]):
                raise InputError(f"TER option {key}: {source} was computed without it; compute the statistics "
                                 "again with it (bleustats stats -m ter ...) or drop it.")


def chrf_ter_given(args: argparse.Namespace) -> bool:
    """Whether a chrF or TER flag differs from its default."""
    return (args.chrf_char_order != CHRF_DEFAULTS["char_order"] or args.chrf_word_order != CHRF_DEFAULTS["word_order"]
            or args.chrf_beta != CHRF_DEFAULTS["beta"] or args.chrf_whitespace or args.chrf_lowercase
            or args.chrf_eps_smoothing or args.ter_case_sensitive or args.ter_asian_support
            or args.ter_no_punct or args.ter_normalized)


def format_from_environment() -> str | None:
    """``$SACREBLEU_FORMAT`` when it names a format (it overrides ``-f``, as in sacreBLEU)."""
    env = os.environ.get("SACREBLEU_FORMAT", "").lower()
    return env if env in FORMATS else None


def output_flags_given(args: argparse.Namespace) -> list[str]:
    """The flags given that only sacreBLEU's output mode has (its format, tests, test sets, text reading)."""
    flags = [("-f/--format", args.format), ("-sl/--sentence-level", args.sentence_level),
             ("-ci/--confidence", args.confidence), ("--paired-bs", args.paired_bs), ("--paired-ar", args.paired_ar),
             ("-t/--test-set", args.test_set), ("-l/--language-pair", args.langpair), ("--echo", args.echo),
             ("-nr/--num-refs", _split_references(args)), ("-e/--encoding", args.encoding != "utf-8")]
    flags += [(f"--{key}", getattr(args, key)) for key in _REJECTED]
    return [flag for flag, on in flags if on]


def _split_references(args: argparse.Namespace) -> bool:
    """Whether -nr was given (-nr 1 too): the references file is text, as sacreBLEU reads it, whatever its name."""
    from ._options import given

    return args.num_refs != 1 or given(args, "num_refs")


def is_sacrebleu_command_line(args: argparse.Namespace) -> bool:
    """Whether the inputs are texts: reference and hypotheses files (or standard input), no table, no --from-stats.

    A references file split by ``-nr N`` is text, whatever its name (sacreBLEU reads it as lines).
    """
    if getattr(args, "from_stats", None):
        return False
    refs = [] if _split_references(args) else list(args.refs or [])
    paths = [*refs, *(getattr(args, "systems", None) or [])]
    return not any(_is_table(p) or os.path.isdir(p) for p in paths)


def no_references(command: str = "score") -> InputError:
    """The error of a command line without references: sacreBLEU refuses it, with the same advice."""
    test_sets = ", or a test set of the local sacreBLEU cache with -t and -l" if command == "score" else ""
    return InputError(f"no references: give reference files before -i (bleustats {command} REF... -i HYP...) or with "
                      f"-r/--references{test_sets}; files after -i are hypotheses, one system each, never references "
                      "(sacreBLEU refuses this line too: 'make sure to provide them before the -i/--input argument').")


def _read(path: str, encoding: str) -> list[str]:
    """A file's lines as sacreBLEU reads them: split on '\\n' only, trailing whitespace removed."""
    from ..engine.io import open_input

    with open_input(path) as fh:  # one reader path: a truncated or damaged .gz is one InputError naming the file
        data = fh.read()
    lines = _decode(data, encoding, path).split("\n")
    if lines[-1] == "":  # the newline ending the last line starts no other line
        lines.pop()
    return [line.rstrip() for line in lines]


def _decode(data: bytes, encoding: str, where: str) -> str:
    """``data`` decoded with ``-e``; an error names ``where``, the line and the byte."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1)
        name = "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
        raise InputError(f"{where}: not valid {name} at line {line}, byte {col} ({exc.reason}); re-encode it as "
                         f"{name} (e.g. iconv -f latin1 -t {name.lower()}) or name its encoding with -e.") from None
    except LookupError:
        hint = (" (-eff is sacreBLEU's -e ff; the effective order of bleustats' own output is "
                "--use-effective-order)" if encoding == "ff" else "")
        raise InputError(f"-e/--encoding: unknown encoding {encoding!r}{hint}.") from None


def _check(args: argparse.Namespace) -> None:
    """sacreBLEU's checks of its command line (bleustats' own options never reach this mode: cli.score)."""
    for key, why in _REJECTED.items():
        if getattr(args, key):
            raise InputError(why)
    if args.from_stats:
        if args.test_set or args.echo or args.num_refs != 1:
            raise InputError("--from-stats: scores a saved table (its references are in it); drop -t / --echo / "
                             "-nr.")
    if args.sentence_level and len(args.metrics or ["bleu"]) > 1:
        raise InputError("-sl: only one metric can be used in sentence-level mode.")
    if args.from_stats:
        pass
    elif args.test_set:
        _check_test_sets(args)
    elif args.echo:
        raise InputError("--echo needs a test set (-t) and a language pair (-l).")
    elif not args.refs:
        raise no_references()
    if args.num_refs != 1 and (len(args.refs) > 1 or args.test_set):
        raise InputError("--num-refs: give one file of tab-separated references, not several files or -t.")


def _check_test_sets(args: argparse.Namespace) -> None:
    """-t/-l as sacreBLEU checks them, against the test sets of the local cache (bleustats never downloads)."""
    from ..engine.testsets import no_such_test_set, scan_cache

    if args.refs:
        raise InputError("give either a test set (-t) or reference files, not both.")
    if not args.langpair:
        raise InputError("-t needs a language pair (-l), e.g. -l de-en.")
    cached = scan_cache()
    for name in args.test_set.split(","):
        if name not in cached:
            raise no_such_test_set(name)
        if args.langpair not in cached[name].langpairs:
            raise InputError(f"test set {name!r}: no language pair {args.langpair!r} in the local sacreBLEU cache; "
                             f"it has {', '.join(cached[name].langpairs)}.")
    args.test_sets = [cached[name] for name in args.test_set.split(",")]


def _echo(args: argparse.Namespace, out: Any) -> None:
    """sacreBLEU's --echo: the requested fields of each -t test set, tab-separated, one line per segment."""
    close_all()
    for test_set in args.test_sets:
        fields = test_set.fieldnames(args.langpair)
        wanted = fields if args.echo == ["all"] else list(args.echo)
        if "all" in wanted:
            raise InputError("--echo all cannot be combined with other fields.")
        if "ref" not in fields:  # sacreBLEU: 'ref' stands for the first reference when there is no plain 'ref'
            wanted = [min(f for f in fields if f.startswith("ref")) if f == "ref" else f for f in wanted]
        for f in wanted:
            if f not in fields:
                raise InputError(f"--echo: no field {f!r} in test set {test_set.name}/{args.langpair}; it has "
                                 f"{', '.join(fields)}.")
        paths = [test_set.get_files(args.langpair)[fields.index(f)] for f in wanted]
        streams = [_read(p, "utf-8") for p in paths]
        for lines in zip(*streams):
            print("\t".join(lines), file=out)


def _references(args: argparse.Namespace) -> list[list[str]]:
    if args.test_set:  # each test set's references, concatenated test set after test set (sacreBLEU's -t a,b)
        files = [t.get_reference_files(args.langpair) for t in args.test_sets]
        refs = [[] for _ in range(len(files[0]))]
        for ref_files in files:
            for k, path in enumerate(ref_files):
                refs[k].extend(_read(path, args.encoding))
        return refs
    if args.num_refs == 1:
        return [_read(p, args.encoding) for p in args.refs]
    refs: list[list[str]] = [[] for _ in range(args.num_refs)]
    for lineno, line in enumerate(_read(args.refs[0], args.encoding), 1):
        fields = line.split("\t", args.num_refs - 1)
        if len(fields) != args.num_refs:
            raise InputError(f"{args.refs[0]}: line {lineno}: expected {args.num_refs} fields, found {len(fields)}.")
        for k, ref in enumerate(fields):
            refs[k].append(ref)
    return refs


def check_file_not_empty(path: str) -> None:
    """Refuse an empty hypotheses file before reading the references (sacreBLEU says so first, too)."""
    from ..engine.io import open_input

    with open_input(path) as fh:
        empty = fh.read(1) == b""
    if empty:
        check_not_empty([], path)


def check_not_empty(stats: Any, what: str) -> None:
    """Refuse a test set with no segment, as sacreBLEU does ('Test set ... contains no sentence')."""
    if len(stats) == 0:
        raise InputError(f"{what}: no segments to score (the hypotheses are empty); sacreBLEU refuses an "
                         "empty test set too. Check the input files.")


def _is_table(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in TABLE_SUFFIXES


def _table_inputs(args: argparse.Namespace, paired: bool
                  ) -> tuple[list[str], list[list[str]], list[list[str | None]]] | None:
    """Systems and reference streams of a hypotheses table and a references table, or ``None`` (text files).

    A table (``.tsv``, ``.jsonl``, ``.parquet``) is always read as a table: each
    ``system`` of the hypotheses table is one system (in order of first
    appearance, the first the baseline of a paired test), segments are the
    ``seg_id`` values in increasing order, and reference stream k holds each
    segment's k-th reference (``None`` where a segment has fewer).
    """
    paths = [*args.refs, *(args.input or [])]
    if not any(_is_table(p) for p in paths) or (_split_references(args) and not any(map(_is_table, args.input or []))):
        return None  # a references file split by -nr is text, as sacreBLEU reads it
    if args.test_set or len(args.refs) != 1 or len(args.input or []) != 1 or not all(map(_is_table, paths)):
        raise InputError("tables: give one references table (REF) and one hypotheses table (-i HYP), both .tsv, "
                         ".jsonl or .parquet; a table is always read as a table, never as lines of text, and does "
                         "not mix with text files or -t.")
    from ..engine.io import read_table

    hyps = read_table(args.input[0], "hypotheses").to_pydict()
    refs = read_table(args.refs[0], "references").to_pydict()
    if any(w != 1.0 for w in refs["weight"]):
        raise InputError(f"{args.refs[0]}: some reference weights are not 1; sacreBLEU's output mode has no "
                         "reference weights (score weighted references with bleustats' own output: drop -m/-f).")
    segs = sorted(set(hyps["seg_id"]))
    position = {s: i for i, s in enumerate(segs)}
    texts: dict[str, list[str | None]] = {}
    for system, seg, text in zip(hyps["system"], hyps["seg_id"], hyps["text"]):
        row = texts.setdefault(system, [None] * len(segs))
        if row[position[seg]] is not None:
            raise InputError(f"{args.input[0]}: system {system!r} has several hypotheses for seg_id {seg} (a k-best "
                             "table); sacreBLEU's output mode scores one hypothesis per segment.")
        row[position[seg]] = text
    for system, row in texts.items():
        if None in row:
            missing = [segs[i] for i, t in enumerate(row) if t is None]
            raise InputError(f"{args.input[0]}: system {system!r} has no hypothesis for seg_id "
                             f"{', '.join(map(str, missing[:10]))}; every system must cover the same segments.")
    per_segment: list[list[str]] = [[] for _ in segs]
    for seg, text in zip(refs["seg_id"], refs["text"]):
        if seg not in position:
            raise InputError(f"{args.refs[0]}: seg_id {seg} has references but no hypothesis in {args.input[0]}.")
        per_segment[position[seg]].append(text)
    if any(not r for r in per_segment):
        missing = [segs[i] for i, r in enumerate(per_segment) if not r]
        raise InputError(f"{args.refs[0]}: no reference for seg_id {', '.join(map(str, missing[:10]))}.")
    width = max(len(r) for r in per_segment)
    streams = [[r[k] if k < len(r) else None for r in per_segment] for k in range(width)]
    names = list(texts)
    if paired:
        names[0] = f"Baseline: {names[0]}"
    return names, [list(t) for t in texts.values()], streams  # type: ignore[misc]


def _stdin_text(encoding: str) -> str:
    """Standard input as sacreBLEU reads it: decoded with ``-e``, universal newlines ('\\r\\n', '\\r' end lines)."""
    buffer = getattr(sys.stdin, "buffer", None)  # a text-only stdin (an embedding, a test) is read as text
    text = sys.stdin.read() if buffer is None else _decode(buffer.read(), encoding, "standard input")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _systems(args: argparse.Namespace, paired: bool) -> tuple[list[str], list[list[str]]]:
    names: list[str] = []
    systems: list[list[str]] = []
    if not args.input:
        text = _stdin_text(args.encoding)
        rows = [line.rstrip().split("\t") for line in text.split("\n")[:-1 if text.endswith("\n") else None]]
        n = len(rows[0]) if rows else 1
        if any(len(r) != n for r in rows):
            raise InputError("standard input: the number of tab-separated fields differs across lines.")
        systems = [[r[i].rstrip() for r in rows] for i in range(n)]
        names = (["Baseline"] + [f"System {i + 1}" for i in range(n - 1)] if paired
                 else [f"System {i + 1}" for i in range(n)])
        return names, systems
    for path in args.input:
        if path in names:
            if paired and path == names[0]:
                continue  # sacreBLEU skips a system that repeats the baseline
            raise InputError(f"-i: {path!r} is given twice; each system needs its own file name.")
        names.append(path)
        systems.append(_read(path, args.encoding))
    if paired:
        names[0] = f"Baseline: {names[0]}"
    return names, systems


def _check_lengths(args: argparse.Namespace, names: list[str], systems: list[list[str]], refs: list[list[str]]
                   ) -> None:
    """Every system and reference stream equally long (sacreBLEU refuses otherwise), each count named."""
    if all(len(r) == len(s) for s in systems for r in refs):
        return
    if args.test_set:
        ref_names = [f"the references of {args.test_set} ({args.langpair})"] * len(refs)
    elif args.num_refs != 1:
        ref_names = [f"{args.refs[0]} (reference {k + 1})" for k in range(len(refs))]
    else:
        ref_names = list(args.refs)
    sys_names = [n.removeprefix("Baseline: ") if args.input else "standard input" for n in names]
    counts = ", ".join(f"{n} has {len(s)}" for n, s in zip(sys_names, systems))
    counts += ", " + ", ".join(f"{n} has {len(r)}" for n, r in zip(ref_names, refs) if len(r) != len(systems[0]))
    raise InputError(f"the files do not have the same number of lines: {counts}; every reference file needs one "
                     "line per hypothesis line.")


def _metrics(args: argparse.Namespace, refs: list[list[str]] | None) -> dict[str, Metric]:
    """The ``-m`` metric objects; ``refs`` cached in them (several systems), or ``None`` (given per call)."""
    out: dict[str, Metric] = {}
    trg = args.langpair.split("-")[1] if args.langpair and "-" in args.langpair else ""
    for name in args.metrics or ["bleu"]:  # each metric's module (and kernels) loaded only when asked for
        if name == "bleu":
            from ..metrics.bleu import BLEU

            tokenize = args.tokenize  # None: -l's target language picks it, as in sacreBLEU
            out["BLEU"] = BLEU(lowercase=bool(args.lowercase), force=args.force, tokenize=tokenize,
                               smooth_method=args.smooth_method, smooth_value=args.smooth_value,
                               effective_order=args.sentence_level, trg_lang=trg, references=refs)
        elif name == "chrf":
            from ..metrics.chrf import CHRF

            out["CHRF"] = CHRF(char_order=args.chrf_char_order, word_order=args.chrf_word_order, beta=args.chrf_beta,
                               lowercase=args.chrf_lowercase, whitespace=args.chrf_whitespace,
                               eps_smoothing=args.chrf_eps_smoothing, references=refs)
        else:
            from ..metrics.ter import TER

            out["TER"] = TER(normalized=args.ter_normalized, no_punct=args.ter_no_punct,
                             asian_support=args.ter_asian_support, case_sensitive=args.ter_case_sensitive,
                             references=refs)
    return out


def _print_single(results: list[str], fmt: str, out: Any) -> None:
    close_all()
    if fmt == "json":
        print("[\n" + ",\n".join(results) + "\n]" if len(results) > 1 else results[0], file=out)
        return
    if len(results) == 1:
        print(results[0], file=out)
        return
    cuts = []
    for line in results:  # as sacreBLEU: lines without '=' (scores only) print first, as they come
        if "=" in line:
            cuts.append(line.index("=") - 1)
        else:
            print(line, file=out)
    width = max(cuts, default=0)
    for cut, line in zip(cuts, results):
        print(f"{line[:cut]:>{width}}{line[cut:]}", file=out)


def _cell(result: Any, width: int, multiline: bool) -> str:
    if isinstance(result, str):
        return result
    text = f"{result.score:.{width}f}"
    if result.mean is not None:
        text += f" ({result.mean:.{width}f} ± {result.ci:.{width}f})"
    if result.p_value is not None:
        p = f"(p = {result.p_value:.4f})"
        text += ("\n" if multiline else " ") + (p if result.p_value > 0.05 else p + "*")
    return text


_PAIRED_NOTE = """ - Each system is pairwise compared to {baseline}.
{scores}

 - Null hypothesis: the system and the baseline translations are essentially
   generated by the same underlying process. For a given system and the baseline,
   the p-value is roughly the probability of the absolute score difference (delta)
   or higher occurring due to chance, under the assumption that the null hypothesis is correct.

 - Assuming a significance threshold of 0.05, the null hypothesis can be rejected
   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed
   to chance, hence the system is significantly "different" than the baseline.
   Otherwise, the p-values are highlighted in red.

 - NOTE: Significance does not tell whether a system is "better" than the baseline but rather
   emphasizes the "difference" of the systems in terms of the replicability of the delta.
"""


def _print_table(scores: dict[str, list[Any]], sigs: dict[str, str], args: argparse.Namespace, fmt: str,
                 out: Any) -> None:
    close_all()
    width = args.width
    if fmt == "json":
        rows = []
        for i, system in enumerate(scores["System"]):
            row: dict[str, Any] = {"system": system}
            for key in list(scores)[1:]:
                value = scores[key][i]
                row[key] = value if isinstance(value, str) else dict(value.__dict__)
            rows.append(row)
        import json  # here: -b and the text formats need no JSON encoder (its import is ~2 ms of a command)

        print(json.dumps(rows, indent=4), file=out)
        return
    tablefmt = "latex_booktabs" if fmt == "latex" else "fancy_grid"  # sacreBLEU's booktabs for latex
    columns: dict[str, list[str]] = {"System": scores["System"]}
    for key in list(scores)[1:]:
        cells = [_cell(v, width, tablefmt == "fancy_grid") for v in scores[key]]
        bootstrap = any(not isinstance(v, str) and v.mean is not None for v in scores[key])
        columns[key + (" (μ ± 95% CI)" if bootstrap else "")] = cells
    try:
        from tabulate import tabulate
    except ImportError:
        raise InputError("text tables of several systems need the package 'tabulate' (sacreBLEU's); "
                         "pip install tabulate, or use -f json.") from None
    print(tabulate(columns, headers="keys", tablefmt=tablefmt, colalign=("right",), stralign="center",
                   numalign="center", floatfmt=f".{width}f"), file=out)
    print(file=out)
    if args.paired_bs or args.paired_ar:
        kind = "bootstrap resampling" if args.paired_bs else "approximate randomization"
        n = args.paired_bs_n if args.paired_bs else args.paired_ar_n
        msg = f"Paired {kind} test with {n} {'resampling trials' if args.paired_bs else 'trials'}"
        print("-" * len(msg) + "\n" + msg + "\n" + "-" * len(msg), file=out)
        lines = ("   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
                 if args.paired_bs else "   Actual system score is provided for each metric.")
        first = scores["System"][0]  # as sacreBLEU: standard input's 'Baseline' (no file name) is not named here
        print(_PAIRED_NOTE.format(baseline=first if first.startswith("Baseline:") else "", scores=lines), file=out)
    print("-----------------\nMetric signatures\n-----------------", file=out)
    for name, sig in sigs.items():
        print(f" - {name:<10} {sig}", file=out)


def run(args: argparse.Namespace, out: Any = None, saved: Any = None, segments: Any = None) -> int:
    """``bleustats score`` in sacreBLEU's output mode; errors raise (cli.main prints them).

    ``saved(args)`` loads the ``--from-stats`` table (given by ``cli.score``);
    ``segments(args, names, systems, refs, tokenize)`` writes ``--segment-scores``
    of the texts, once they are read and checked and before anything is printed.
    """
    out = out if out is not None else sys.stdout
    _check(args)
    if args.from_stats and saved is None:
        raise UsageError("--from-stats: this entry point reads texts only; use bleustats score --from-stats.")
    fmt = format_from_environment() or args.format or "json"
    if args.echo:
        _echo(args, out)
        return 0
    if args.width is None:
        args.width = 1  # sacreBLEU's default width
    if args.smooth_value is not None and args.smooth_method not in ("floor", "add-k") and "bleu" in (
            args.metrics or ["bleu"]) and not args.quiet:  # sacreBLEU ignores it without a word
        print(f"bleustats score: note: -sv/--smooth-value is not used by -s {args.smooth_method} (only by -s floor "
              "and -s add-k); the score is the same without it.", file=sys.stderr)
    paired = args.paired_bs or args.paired_ar
    if args.from_stats:
        from ..metrics.base import Metric as _Metric

        names, keys, metrics, per_segment, table = _saved_systems(args, paired, saved)  # a key stands for its rows
        _check_systems(args, keys, paired)
        if args.segment_scores:
            from ._records import segment_scores, write_segment_scores

            step("segment scores")
            write_segment_scores(args.segment_scores, segment_scores(table, args.metrics or ["bleu"], options={
                "smooth_method": args.smooth_method, "smooth_value": args.smooth_value}))
        return _score(args, fmt, out, names, keys, metrics, paired, per_segment,
                      lambda metric, system, n: _Metric._corpus_score(metric, system, None, n))
    if _streams_bleu(args, paired):
        _print_streamed_bleu(args, fmt, out)
        return 0
    step("reading the files")
    tables = _table_inputs(args, paired)
    refs = tables[2] if tables else _references(args)
    names, systems = tables[:2] if tables else _systems(args, paired)
    if not systems or not systems[0]:
        check_not_empty(systems[0] if systems else [], args.input[0] if args.input else "standard input")
    _check_lengths(args, names, systems, refs)
    _check_systems(args, systems, paired)
    # one system: references given with the call (the plain route, no cached-references table to build)
    single = len(systems) == 1 and not args.sentence_level
    metrics = _metrics(args, None if single else refs)
    if args.segment_scores and segments is not None:
        tokenize = metrics["BLEU"].tokenize if "BLEU" in metrics else (args.tokenize or DEFAULT_TOKENIZER)
        segments(args, [n.removeprefix("Baseline: ") for n in names], systems, refs, tokenize)
    given = refs if single else None
    per_segment = [sum(r[i] is not None for r in refs) for i in range(len(systems[0]))] if args.sentence_level else []
    batched: dict[int, dict[int, Any]] = {}
    if len(systems) > 1 and not paired and not args.sentence_level:
        from ..metrics.base import Metric as _Metric

        # the metrics with such a route (TER scores each system on its own, below)
        batched = _batched_statistics([m for m in metrics.values()
                                       if type(m)._systems_statistics is not _Metric._systems_statistics], systems)

    def corpus_score(metric: Metric, system: list[str], n: int) -> Any:
        if id(metric) in batched:
            return metric._aggregate_and_compute(batched[id(metric)][id(system)])
        return metric.corpus_score(system, given, n_bootstrap=n)

    return _score(args, fmt, out, names, systems, metrics, paired, per_segment, corpus_score)


def _batched_statistics(metrics: list[Metric], systems: list[Any]) -> dict[int, dict[int, Any]]:
    """Each metric's statistics of all systems at once, by metric and system id, where the metric has that route.

    A metric that scores all systems together (BLEU: one statistics call; chrF: each
    reference indexed once for all) does so here. With several metrics, every one but the
    last runs on a thread of its own with serial kernels (:mod:`bleustats.engine._threads`:
    only this thread launches numba's parallel regions), beside the last on this thread:
    one metric's kernels run while the other's load and prepare, and a serial kernel
    fills the CPU a parallel one leaves (their working memory is then held at once). Each
    metric computes what it computes alone.
    """
    def statistics(metric: Metric, serial: bool) -> Any:
        if not serial:
            return metric._systems_statistics(systems)
        from ..engine._threads import serial_kernels

        with serial_kernels():
            return metric._systems_statistics(systems)

    rows: list[Any] = []
    step(f"statistics of {len(systems)} systems")
    if len(metrics) > 1:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=len(metrics) - 1)
        try:
            jobs = [pool.submit(statistics, metric, True) for metric in metrics[:-1]]
            last = statistics(metrics[-1], False)
            rows = [job.result() for job in jobs] + [last]
        except BaseException:  # an error or Ctrl-C here: said at once, not after the other metric's kernels end
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    elif metrics:
        rows = [statistics(metrics[0], False)]
    return {id(metric): dict(zip(map(id, systems), r)) for metric, r in zip(metrics, rows) if r is not None}


def _check_systems(args: argparse.Namespace, systems: list[Any], paired: bool) -> None:
    if args.sentence_level and (len(systems) > 1 or args.confidence or paired):
        raise InputError("-sl: one system only, and no statistical tests, in sentence-level mode.")
    if paired and len(systems) == 1:
        raise InputError("--paired-bs / --paired-ar need several systems given to -i.")
    if len(systems) > 1 and args.confidence:
        raise InputError("-ci: use paired tests (--paired-bs / --paired-ar) for several systems.")


def _score(args: argparse.Namespace, fmt: str, out: Any, names: list[str], systems: list[Any],
           metrics: dict[str, Metric], paired: bool, per_segment: list[int], corpus_score: Any) -> int:
    """Score the systems as sacreBLEU's main() does and print its output.

    ``systems`` are what each metric's ``_extract_corpus_statistics`` takes
    (hypotheses, or a saved system's key); ``corpus_score(metric, system,
    n_bootstrap)`` scores one; ``per_segment`` holds each segment's number of
    references (for ``-sl``).
    """
    if args.sentence_level:
        metric = next(iter(metrics.values()))
        step("sentence scores")
        stats = metric._extract_corpus_statistics(systems[0], None)
        close_all()
        for row, n_refs in zip(stats, per_segment):
            metric.num_refs = n_refs
            score = metric._compute_score_from_stats(row)
            print(score.format(args.width, args.score_only, metric.get_signature().format(args.short)), file=out)
        return 0
    if len(systems) == 1:
        results = []
        for name in sorted(metrics):
            score = corpus_score(metrics[name], systems[0], args.confidence_n if args.confidence else 1)
            sig = metrics[name].get_signature().format(args.short if fmt != "json" else False)
            results.append(score.format(args.width, args.score_only, sig, fmt == "json"))
        _print_single(results, fmt, out)
        return 0
    if paired:
        from ..meta.paired import PairedTest

        step(f"paired test of {len(systems)} systems")
        test = PairedTest(list(zip(names, systems)), metrics, None, test_type="bs" if args.paired_bs else "ar",
                          n_samples=args.paired_bs_n if args.paired_bs else args.paired_ar_n,
                          n_jobs=args.paired_jobs)
        signatures, table = test()
        sigs = {k: v.format(args.short) for k, v in signatures.items()}
    else:
        sigs, table = {}, defaultdict(list)
        table["System"] = names
        for k, system in enumerate(systems, 1):
            step(f"scoring system {k} of {len(systems)}")
            for name in sorted(metrics):
                score = corpus_score(metrics[name], system, 1)
                sigs[score.name] = metrics[name].get_signature().format(args.short)
                table[score.name].append(score.format(args.width, True))
    _print_table(dict(table), sigs, args, fmt, out)
    return 0


def _saved_systems(args: argparse.Namespace, paired: bool, saved: Any
                   ) -> tuple[list[str], list[str], dict[str, Metric], list[int], Any]:
    """The systems of a table saved by ``bleustats stats`` (``-m bleu chrf ter``), and metric objects over its rows.

    ``saved(args)`` loads the table (``cli.score``'s ``--from-stats`` reader,
    which checks the statistics options given against it). Returns the
    systems' names as printed, their keys, the metric objects, the first
    system's number of references per segment and the table (at BLEU order 4).

    Each ``system`` of the table (in order of first appearance; the first the
    baseline of a paired test) is scored on its rows, ordered by ``seg_id``;
    every system must cover the same segments, one row each. Each metric
    object is made as the saved columns were (tokenizer, case, chrF / TER
    options; a flag that disagrees is refused) with ``-s`` / ``-sv`` for BLEU,
    and reads a system's saved rows where it would compute them from texts:
    its ``_extract_corpus_statistics(system, None)`` returns that system's
    statistics matrix, so corpus scores, ``-ci``, ``-sl`` and the paired tests
    run on the saved numbers exactly as on the texts' (the same rows).
    """
    import numpy as np

    from ..metrics.bleu import BLEU
    from ..metrics.tables import statistics_matrix, table_metric
    stats = saved(args).to_table()  # per-segment rows are needed: the whole table in memory
    if stats.max_ngram_order < 4:
        raise InputError(f"--from-stats: {args.from_stats} holds BLEU's orders 1..{stats.max_ngram_order}; sacreBLEU's "
                         "output is BLEU-4 (compute the statistics with --max-ngram-order 4 or more).")
    if stats.ref_view != "all":
        raise InputError(f"--from-stats: {args.from_stats} was computed with --ref-view {stats.ref_view}; sacreBLEU's "
                         "output scores all references (score it with bleustats' own output: drop -m / -f).")
    stats = stats.up_to_order(4)
    wanted = args.metrics or ["bleu"]
    if args.langpair and args.tokenize is None and "bleu" in wanted:  # -l picks BLEU's tokenizer
        trg = args.langpair.split("-")[1] if "-" in args.langpair else ""
        if BLEU(trg_lang=trg).tokenize != stats.tokenize:
            raise InputError(f"-l {args.langpair}: BLEU into {trg!r} uses the tokenizer "
                             f"{BLEU(trg_lang=trg).tokenize!r}; {args.from_stats} was computed with "
                             f"{stats.tokenize!r}. Compute the statistics again (bleustats stats -tok ...) or drop -l.")
    missing = [m for m in wanted if m not in stats.metrics]
    if missing:
        raise InputError(f"-m {missing[0]}: {args.from_stats} holds no {missing[0]} statistics (it holds "
                         f"{', '.join(stats.metrics)}); compute them with bleustats stats -m "
                         f"{' '.join(dict.fromkeys([*stats.metrics, *wanted]))} ...")
    # chrF / TER options given against the saved ones: checked by the loader (cli.score's _from_stats)
    system_col = stats.column("system")
    seg_col = stats.column("seg_id")
    names = list(dict.fromkeys(system_col.tolist()))
    rows: dict[str, np.ndarray] = {}
    segments = None
    for name in names:
        idx = np.flatnonzero(system_col == name)
        idx = idx[np.argsort(seg_col[idx], kind="stable")]
        segs = seg_col[idx]
        if len(np.unique(segs)) != len(segs):
            raise InputError(f"{args.from_stats}: system {name!r} has several rows for one seg_id (a k-best "
                             "table); sacreBLEU's output scores one hypothesis per segment.")
        if segments is None:
            segments = segs
        elif len(segs) != len(segments) or (segs != segments).any():
            raise InputError(f"{args.from_stats}: system {name!r} covers other segments than {names[0]!r}; every "
                             "system must cover the same segments (bleustats' own output scores them with "
                             "--allow-partial).")
        rows[name] = idx
    n_refs = stats.column("n_refs")
    counts = np.unique(n_refs)
    num_refs = int(counts[0]) if len(counts) == 1 else -1
    metrics: dict[str, Metric] = {}
    for metric in wanted:
        if metric == "bleu":
            obj = BLEU(tokenize=stats.tokenize, lowercase=stats.lowercase, smooth_method=args.smooth_method,
                       smooth_value=args.smooth_value, effective_order=args.sentence_level)
            correct, total, hyp_len, ref_len = statistics_matrix(stats)
            mat = np.column_stack([hyp_len, ref_len, correct, total])
            obj.num_refs = num_refs
            key = "BLEU"
        else:
            obj, mat = table_metric(stats, metric)
            key = metric.upper()
        # the saved rows of a system where the texts' statistics would be computed (an instance attribute)
        obj._extract_corpus_statistics = lambda system, _refs, mat=mat: mat[rows[system]]
        metrics[key] = obj
    display = list(names)
    if paired:
        display[0] = f"Baseline: {display[0]}"
    return display, names, metrics, n_refs[rows[names[0]]].tolist(), stats


def _streams_bleu(args: argparse.Namespace, paired: bool) -> bool:
    """One system's corpus BLEU from UTF-8 text files: the streaming statistics route serves it."""
    plain = args.input and len(args.input) == 1 and not any(map(_is_table, [*args.refs, *args.input]))
    return bool(plain and (args.metrics or ["bleu"]) == ["bleu"] and not args.test_set and args.num_refs == 1
                and not args.segment_scores
                and args.encoding.lower().replace("_", "-") in ("utf-8", "utf8") and not args.confidence
                and not args.sentence_level and not paired)


def _print_streamed_bleu(args: argparse.Namespace, fmt: str, out: Any) -> None:
    """sacreBLEU's one-system BLEU output, the statistics streamed from the files (bounded memory, no Arrow tables).

    The line reader splits on '\\n' only and BLEU's tokens ignore line ends,
    as sacreBLEU reads ``line.rstrip()`` (:mod:`bleustats.engine._lines`); the
    metric object gives the tokenizer (``-l`` picks it as sacreBLEU does) and
    the signature.
    """
    from ..engine.stats import compute_stats_files
    from ..metrics.tables import corpus_score
    metric = _metrics(args, None)["BLEU"]
    check_file_not_empty(args.input[0])
    step("BLEU statistics (streamed from the files)")
    stats = compute_stats_files(args.input[0], args.refs, tokenize=metric.tokenize, lowercase=metric.lowercase,
                                max_ngram_order=metric.max_ngram_order)
    check_not_empty(stats, args.input[0])
    metric.num_refs = len(args.refs)  # the signature's nrefs: the reference streams, as sacreBLEU counts them
    score = corpus_score(stats, smooth_method=metric.smooth_method, smooth_value=metric.smooth_value)
    sig = metric.get_signature().format(args.short if fmt != "json" else False)
    _print_single([score.format(args.width, args.score_only, sig, fmt == "json")], fmt, out)


def print_single_results(results: list[str], args: argparse.Namespace) -> None:
    """sacreBLEU's ``utils.print_single_results``: one system's score lines, as JSON or '='-aligned text.

    ``args.format`` is ``'json'`` (the lines are JSON objects, printed as a
    list when several) or ``'text'``. Printed without colour.

    >>> print_single_results(["BLEU = 1.0", "chrF2 = 10.0"], argparse.Namespace(format="text"))
     BLEU = 1.0
    chrF2 = 10.0
    """
    _print_single(list(results), args.format, sys.stdout)


def print_results_table(results: dict[str, list[Any]], signatures: dict[str, str], args: argparse.Namespace
                        ) -> None:
    """sacreBLEU's ``utils.print_results_table``: several systems' scores as a JSON list or a text table.

    ``results`` maps ``'System'`` to the system names and each metric name to
    a column of formatted strings or :class:`~bleustats.meta.paired.Result`
    objects; ``args`` needs ``format``, ``width``, ``paired_bs``, ``paired_ar``
    (and ``paired_bs_n`` / ``paired_ar_n`` for a paired test). Printed without colour.

    >>> args = argparse.Namespace(format="json", width=1, paired_bs=False, paired_ar=False)
    >>> print_results_table({"System": ["a"], "BLEU": ["31.3"]}, {"BLEU": "nrefs:1"}, args)
    [
        {
            "system": "a",
            "BLEU": "31.3"
        }
    ]
    """
    _print_table(dict(results), dict(signatures), args, args.format, sys.stdout)
