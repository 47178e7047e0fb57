"""``bleustats study``: the ΔBLEU paper's correlation study from long-form tables to a results folder.

::

    bleustats study --hypotheses hyps.tsv --references refs.tsv --human human.tsv -o results/ \\
        [--unit-sizes 1,10,100] [--assignments 1000] [--seed 0] [--weight-threshold 0.5] \\
        [--ref-weights-from mqm.tsv --weight-transform linear:12.5] [--single-ref ref-B] \\
        [--compare delta_bleu:all,bleu:all] [--sweep threshold --sweep max_ngram_order]

Inputs are long-form tables (TSV with a header, JSONL or Parquet):
hypotheses ``seg_id, system, text``; references ``seg_id, ref_id, weight,
text`` (``--references`` repeats for several files; a ``ref`` column is read as
``ref_id``; the single reference is ``--single-ref REF_ID``, else each
segment's first); human scores ``system, seg_id`` and a score column
(``--human-column``, default ``score``; one row per rating, raters averaged;
ratings of references, rows whose system is a reference id, are set apart).
``--ref-weights-from FILE`` weights the references by their own human scores
(``ref_id, seg_id, score`` rows, or the human file's rows of the references)
through ``--weight-transform`` (:mod:`bleustats.meta.ref_weights`).

Statistics are computed once per reference view (single, ``w ≥ θ``, all) and
every metric (BLEU, sBLEU, ΔBLEU) is studied on the same assignments at every
unit size of ``--unit-sizes`` (:func:`bleustats.meta.study.correlation_study`).
Metrics are named ``bleu:single``, ``sbleu:threshold``, ``delta_bleu:all``, ...
for ``--compare A,B`` (difference of ρ and of τ, interval, p-value:
:mod:`bleustats.meta.study_compare`). ``--undefined exclude`` drops, for every
metric, the segments where ΔBLEU has no positively weighted reference.

Every option and name is checked before any work (a ``--compare`` name that
is no metric of the study, an output folder that exists without ``--replace``
or whose parent is missing). The results folder is written whole or not at all: ``table2.md`` /
``table2.csv`` / ``table2.json`` (every number with its signature, one block
per unit size), ``assignments.parquet`` (per-assignment ρ and τ),
``comparisons.csv`` (with ``--compare``), ``pairs.csv``, one
``sweep_<parameter>.csv`` per ``--sweep``, ``figure2_M<M>.png`` per unit size
(needs matplotlib) and ``study.json`` (inputs, options, exclusions, timings,
files). Table 2 is printed on stdout (or the JSON with ``--json``); progress on
stderr (a terminal, or ``--progress``; none with ``-q``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .._version import __version__
from ..engine._options import SENTENCE_VARIANT_NAMES
from ..errors import UsageError
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, metric_names, non_negative_int, positive_int
from ._progress import close_all, note, reporter
from ..meta._options import COMPARE_RESAMPLING, SWEEP_PARAMETERS, UNMATCHED

if TYPE_CHECKING:
    import pandas as pd

    from ..meta import study
    from . import _study_inputs as inputs_


__all__ = ["EXAMPLES", "STUDY_METRICS", "add_parser", "add_study_inputs", "check_compare", "run"]

#: Metrics of ``-m``: corpus BLEU, mean sentence BLEU, corpus ΔBLEU.
STUDY_METRICS = ("bleu", "sbleu", "delta_bleu")
#: Reference views of a study, in Table 2's column order (``_study_inputs.VIEW_NAMES``, named without its imports).
VIEWS = ("single", "threshold", "all")

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats study --hypotheses hyps.tsv --references refs.tsv --human mqm.tsv --human-column mqm "
    "--undefined exclude -o study/ --sweep unit_size --assignments 100 --bootstrap 100",
    "bleustats study --hypotheses hyps.tsv --references refs.tsv --human mqm.tsv --human-column mqm "
    "--undefined exclude -o study2/ --unit-sizes 1,10 --compare delta_bleu:all,bleu:all --assignments 100 "
    "--bootstrap 100 --compare-bootstrap 100",
)


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers; got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"expected at least one integer; got {text!r}")
    return values


def _floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers; got {text!r}") from None


def pair_of_names(text: str) -> tuple[str, str]:
    """``A,B`` of ``--compare`` (argparse type)."""
    from ._study_inputs import pair_of_names as check

    return check(text)


def add_study_inputs(cmd: Command, *, metrics: tuple[str, ...], default_metrics: tuple[str, ...],
                     hypotheses_required: bool) -> None:
    """The inputs, references' weights, tokenization and metrics of ``study`` and ``correlate``."""
    cmd.add("hypotheses", required=hypotheses_required)
    cmd.add("references", required=hypotheses_required)
    cmd.add("human", "human_column")
    cmd.add("ref_weights_from", "weight_transform", "single_ref", "weight_threshold")
    cmd.renamed("--threshold", "weight_threshold", type=float)
    cmd.add("undefined")
    cmd.add("tokenize", "lowercase")
    cmd.add("metrics", choices=metrics, default=None, shown=", ".join(default_metrics))
    cmd.renamed("--metric", "metrics", does="extend", nargs="+", type=metric_names(metrics))
    cmd.add("max_ngram_order", "smooth_method")
    cmd.add("sentence_variant", names=", ".join(SENTENCE_VARIANT_NAMES))


def add_parser(subparsers: Any) -> Command:
    """Add the ``study`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "study", summary=COMMANDS["study"], examples=EXAMPLES,
                  description=("Correlation of BLEU, sBLEU and ΔBLEU score differences with human score\n"
                               "differences on random units of M segments (Galley et al. 2015, section 5), from\n"
                               "cached statistics."))
    add_study_inputs(cmd, metrics=STUDY_METRICS, default_metrics=STUDY_METRICS, hypotheses_required=True)
    g = "the study"
    cmd.own("--unit-size", type=positive_int, default=100, metavar="M", group=g,
            help="segments per unit, when --unit-sizes is not given (default: %(default)s)")
    cmd.own("--unit-sizes", type=_ints, default=None, metavar="LIST", group=g,
            help="unit sizes of the study, one run each, e.g. 1,10,100 (default: --unit-size)")
    cmd.own("--assignments", type=positive_int, default=1000, metavar="A", group=g,
            help="random assignments (default: %(default)s)")
    cmd.own("--bootstrap", type=non_negative_int, default=1000, metavar="B", group=g,
            help="bootstrap replicates over observations; 0 skips (default: %(default)s)")
    cmd.own("--confidence", type=float, default=0.95, group=g, help="interval level (default: %(default)s)")
    cmd.own("--kendall-variant", choices=("b", "c"), default="b", group=g, help="Kendall τ variant (default: b)")
    cmd.own("--unmatched", choices=UNMATCHED, default="error", group=g,
            help="rated cells without a hypothesis (in some view): error, or exclude and count")
    cmd.own("--pair", action="append", nargs=2, metavar=("SYS_A", "SYS_B"), group=g,
            help="system pair, repeatable (default: all pairs sharing rated segments)")
    cmd.own("--compare", action="append", type=pair_of_names, metavar="A,B", group=g,
            help="paired comparison of two metrics (e.g. delta_bleu:all,bleu:all): difference of ρ and τ, interval, "
                 "p-value; repeatable")
    cmd.own("--compare-bootstrap", type=int, default=None, metavar="B", group=g,
            help="replicates of each resampling of --compare (default: --bootstrap, or 1000 with --bootstrap 0)")
    cmd.own("--compare-resampling", choices=COMPARE_RESAMPLING, default=None, group=g,
            help="how --compare samples system pairs: systems (default) or pairs")
    cmd.own("--sweep", action="append", choices=SWEEP_PARAMETERS, group=g,
            help="Figure 2 panel, repeatable: threshold, unit_size, max_ngram_order")
    cmd.own("--thresholds", type=_floats, default=None, metavar="LIST", group=g,
            help="θ values of --sweep threshold, e.g. --thresholds=-1,0,0.5 (default: -1,-0.5,0,0.25,0.5,0.75,1)")
    cmd.own("--orders", type=_ints, default=None, metavar="LIST", group=g,
            help="N values of --sweep max_ngram_order (default: 1..--max-ngram-order)")
    cmd.own("--sweep-assignments", type=positive_int, default=None, metavar="A", group=g,
            help="assignments per sweep point (default: --assignments)")
    cmd.add("output", kind="folder", required=True, what="results folder (written whole or not at all)")
    cmd.add("replace")
    cmd.renamed("--overwrite", "replace", does="store_true", default=False)
    cmd.own("--no-plot", action="store_true", group="outputs", help="do not draw figure2_M<M>.png")
    cmd.add("json", "quiet", "progress", "seed", "dask")
    cmd.parser.set_defaults(func=run)
    return cmd


def check_compare(args: argparse.Namespace, names: list[str]) -> None:
    """Refuse, before any work, a ``--compare`` name of the form METRIC:VIEW that is no metric of the command.

    Labels (``BLEU [all]``, an external score's column) are resolved once the inputs are read.
    """
    known = {f"{name}:{view}" for name in names for view in VIEWS}
    for pair in args.compare or []:
        for name in pair:
            metric, sep, view = name.partition(":")
            if sep and (metric in names or view in VIEWS or metric in STUDY_METRICS) and name not in known:
                raise UsageError(f"--compare: {name!r} is not a metric of this command line; its metrics are "
                                 f"{', '.join(sorted(known))} (or their labels). Nothing was computed.")


def _keep_freed_memory() -> None:
    """glibc: this process' large temporaries stay in one heap between uses instead of going back to the OS.

    A study allocates and frees arrays of some MB thousands of times on several threads;
    with glibc's defaults each thread's arena returns them and every reuse faults its pages in
    again (on the TED-sized study: 525k page faults, 8.6 s of system time, against 163k and
    4.4 s with one arena, a 32 MB mmap threshold and a 1 GB trim threshold). Other C
    libraries, and a glibc that refuses a setting, keep their defaults.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8  # glibc's <malloc.h>
    for option, value in ((m_arena_max, 1), (m_mmap_threshold, 32 << 20), (m_trim_threshold, 1 << 30)):
        mallopt(ctypes.c_int(option), ctypes.c_int(value))


#: θ values of ``--sweep threshold`` without ``--thresholds``.
DEFAULT_THRESHOLDS = (-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0)


def _check_args(args: argparse.Namespace) -> None:
    """Every option checked together, before any work (usage errors)."""
    given_orders = args.orders is not None
    orders = args.orders or list(range(1, args.max_ngram_order + 1))
    if any(not 1 <= n <= args.max_ngram_order for n in orders):
        raise UsageError(f"--orders: each must be from 1 to --max-ngram-order ({args.max_ngram_order}); got {orders}")
    args.orders = orders
    # options of a part of the study that was not asked for would be dropped without a word: refuse them
    sweeps = set(args.sweep or ())
    needs = [("--thresholds", args.thresholds is not None, "threshold" in sweeps, "--sweep threshold"),
             ("--orders", given_orders, "max_ngram_order" in sweeps, "--sweep max_ngram_order"),
             ("--sweep-assignments", args.sweep_assignments is not None, bool(sweeps), "--sweep"),
             ("--compare-bootstrap", args.compare_bootstrap is not None, bool(args.compare), "--compare"),
             ("--compare-resampling", args.compare_resampling is not None, bool(args.compare), "--compare")]
    for flag, given, used, needed in needs:
        if given and not used:
            raise UsageError(f"{flag}: applies only with {needed}, which was not given; add it or drop {flag}")
    if args.thresholds is None:
        args.thresholds = list(DEFAULT_THRESHOLDS)
    if args.compare_resampling is None:
        args.compare_resampling = "systems"
    if args.compare_bootstrap is not None and args.compare_bootstrap < 2:
        raise UsageError(f"--compare-bootstrap: must be >= 2; got {args.compare_bootstrap}")
    check_compare(args, list(dict.fromkeys(args.metrics or STUDY_METRICS)))


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats study``; returns the exit code (0 ok, 1 error, 2 usage)."""
    return guarded("study", _run, args, stderr, stdout=stdout, stderr=stderr)


def _run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from ..metrics.sentence import get_variant
    from . import _study_inputs as inputs_
    from ._outputs import write_folder
    from ..meta import report, study

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    _check_args(args)
    get_variant(args.sentence_variant)
    names = list(dict.fromkeys(args.metrics or STUDY_METRICS))
    sizes = list(dict.fromkeys(args.unit_sizes or [args.unit_size]))
    _keep_freed_memory()
    t0 = time.perf_counter()
    with contextlib.ExitStack() as cluster:  # --dask: the statistics of each reference view are computed there
        from ._dask import executor_for  # loaded where a command runs partitioned work
        executor = cluster.enter_context(executor_for(args)) if args.dask else None
        inputs = inputs_.read_study_inputs(args, err, need_delta="delta_bleu" in names)
        options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
        note(args, f"bleustats study: {len(inputs.hypotheses)} rated hypotheses "
                   f"({inputs.notes['hypotheses_not_rated']} without a rating not scored), {len(inputs.references)} "
                   f"references, {len(inputs.human)} ratings; computing statistics per reference view", err)
        t_stats = time.perf_counter()
        metrics = inputs_.StudyMetrics(inputs, names, args, options, err, executor=executor)
        main_metrics = metrics.build()
        t_stats = time.perf_counter() - t_stats
        compare = [(metrics.resolve(a), metrics.resolve(b)) for a, b in args.compare or []]
        study_opts = dict(n_assignments=args.assignments, seed=args.seed, n_bootstrap=args.bootstrap,
                          confidence=args.confidence, kendall_variant=args.kendall_variant,
                          unmatched=args.unmatched, pairs=[tuple(p) for p in args.pair] if args.pair else None)
        results = []
        for m in sizes:
            with reporter(args, f"study M={m}", err) as bar, warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", RuntimeWarning)  # said once below, one line per reason
                results.append(study.correlation_study(main_metrics, inputs.human, unit_size=m, progress=bar.callback,
                                                       compare=compare or None,
                                                       n_compare_bootstrap=args.compare_bootstrap,
                                                       compare_resampling=args.compare_resampling, **study_opts))
            if caught:  # the warnings say it per metric; here one line per reason, naming the metrics
                for reason in report.undefined_notes(results[-1].summary):
                    print(f"bleustats study: warning (M = {m}): {reason}", file=err)
        sweeps = _sweeps(args, inputs, metrics, sizes, results, study_opts, err)
        files = _result_files(results, sweeps, inputs, args, {"statistics": t_stats,
                                                              "total": time.perf_counter() - t0}, err)
        write_folder(Path(args.output), files, replace=args.replace)
    close_all()
    if args.json:
        print(json.dumps(_payload(results, inputs), ensure_ascii=False, indent=1), file=out)
    else:
        print("\n\n".join(_markdown(r) for r in results), file=out)
    ex = results[0].exclusions
    notes = inputs.notes
    note(args, f"bleustats study: {len(results[0].pairs)} pairs; unit sizes {', '.join(map(str, sizes))} "
               f"({', '.join(str(r.n_observations) for r in results)} observations); excluded: "
               f"{ex['human_nan_rows']} NaN rating(s), {ex['human_without_hypothesis']} rated cell(s) without "
               f"hypothesis, {notes.get('undefined_segments', 0)} segment(s) where ΔBLEU is undefined, "
               f"{notes['human_reference_rows']} rating(s) of references; wrote {args.output} "
               f"({', '.join(sorted(files))})", err)
    return 0


def _sweeps(args: argparse.Namespace, inputs: inputs_.StudyInputs, metrics: inputs_.StudyMetrics, sizes: list[int],
            results: list, study_opts: dict, err: TextIO) -> dict[str, pd.DataFrame]:
    """Figure 2 panels: θ and N swept at every unit size; the unit-size panel from the studies (or the paper's M)."""
    import pandas as pd
    from ..meta import study

    sweeps: dict[str, pd.DataFrame] = {}
    opts = dict(study_opts, n_assignments=args.sweep_assignments or args.assignments)
    cache: dict[float, list] = {}

    def at_theta(theta: float) -> list:
        if theta not in cache:
            st = metrics.view_stats("threshold", theta)
            # one label across θ, so the sweep draws one line per metric (the θ is the x axis)
            cache[theta] = metrics.build({"threshold": st}, threshold_label="w≥θ")
        return cache[theta]

    for param in dict.fromkeys(args.sweep or []):
        frames = []
        if param == "unit_size":
            if len(sizes) > 1:
                frames = [r.summary.assign(parameter="unit_size", value=r.unit_size) for r in results]
            else:
                with reporter(args, "sweep unit_size", err) as bar:
                    frames = [study.sweep("unit_size", study.PAPER_UNIT_SIZES, metrics.build(), inputs.human,
                                          progress=bar.callback, **opts)]
        else:
            for m in sizes:
                with reporter(args, f"sweep {param} M={m}", err) as bar:
                    if param == "max_ngram_order":
                        frame = study.sweep(param, args.orders, lambda n: metrics.build(max_ngram_order=n),
                                            inputs.human, unit_size=m, progress=bar.callback, **opts)
                    else:
                        frame = study.sweep(param, args.thresholds, at_theta, inputs.human, unit_size=m,
                                            progress=bar.callback, **opts)
                frames.append(frame.assign(unit_size=m))
        frame = pd.concat(frames, ignore_index=True)
        lead = [c for c in ("parameter", "value", "unit_size") if c in frame.columns]
        sweeps[param] = frame[lead + [c for c in frame.columns if c not in lead]]
    return sweeps


def _markdown(result: study.StudyResult) -> str:
    from ..meta import report

    text = report.to_markdown(result)
    if result.comparisons is not None and len(result.comparisons):
        text += "\n\n" + report.comparisons_markdown(result.comparisons, confidence=result.confidence)
    return f"## M = {result.unit_size}\n\n" + text


def _payload(results: list, inputs: inputs_.StudyInputs) -> dict[str, Any]:
    return {"command": "bleustats study", "version": __version__, "studies": [r.to_dict() for r in results],
            "inputs": {**inputs.notes, "undefined_segments_per_view": inputs.undefined_segments,
                       "reference_weights": inputs.weights_label, "single_ref": inputs.single_ref}}


def _result_files(results: list, sweeps: dict, inputs: inputs_.StudyInputs, args: argparse.Namespace,
                  seconds: dict, err: TextIO) -> dict[str, Any]:
    import pandas as pd
    from ..meta import report

    def text(content: str):
        return lambda p: p.write_text(content, encoding="utf-8")

    summary = pd.concat([r.summary.assign(unit_size=r.unit_size) for r in results], ignore_index=True)
    summary = summary[["unit_size"] + [c for c in summary.columns if c != "unit_size"]]
    pairs = pd.concat([r.pairs.assign(unit_size=r.unit_size) for r in results], ignore_index=True)
    files: dict[str, Any] = {
        "table2.md": text("# Table 2 (Galley et al. 2015, section 5)\n\n"
                          + "\n\n".join(_markdown(r) for r in results) + "\n"),
        "table2.csv": lambda p: summary.to_csv(p, index=False),
        "table2.json": text(json.dumps(_payload(results, inputs), ensure_ascii=False, indent=1) + "\n"),
        "pairs.csv": lambda p: pairs.to_csv(p, index=False),
        "assignments.parquet": lambda p: pd.concat([r.assignments() for r in results],
                                                   ignore_index=True).to_parquet(p, index=False),
    }
    if any(r.comparisons is not None for r in results):
        comparisons = pd.concat([r.comparisons.assign(unit_size=r.unit_size) for r in results], ignore_index=True)
        comparisons = comparisons[["unit_size"] + [c for c in comparisons.columns if c != "unit_size"]]
        files["comparisons.csv"] = lambda p: comparisons.to_csv(p, index=False)
    for param, frame in sweeps.items():
        files[f"sweep_{param}.csv"] = (lambda f: lambda p: f.to_csv(p, index=False))(frame)
    if not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("bleustats study: matplotlib is not installed: no figures (pip install 'bleustats[plot]')",
                  file=err)
        else:
            by_size = dict(sweeps)
            if len(results) > 1 and "unit_size" not in by_size:  # Figure 2 (B) from the studies themselves
                by_size["unit_size"] = pd.concat([r.summary.assign(parameter="unit_size", value=r.unit_size)
                                                  for r in results], ignore_index=True)
            for r in results:
                panels = report.study_panels(r.summary, by_size, unit_size=r.unit_size)
                files[f"figure2_M{r.unit_size}.png"] = (lambda pn, m: lambda p: report.plot_sweeps(
                    pn, title=f"M = {m}").savefig(p, format="png", dpi=120))(panels, r.unit_size)
    manifest = {
        "command": "bleustats study",
        "version": __version__,
        "inputs": {"hypotheses": str(args.hypotheses), "references": [str(r) for r in args.references],
                   "human": str(args.human), "ref_weights_from": args.ref_weights_from},
        "options": {k: v for k, v in vars(args).items() if k not in ("func", "command", "command_spec", "hypotheses",
                                                                     "references", "human", "output")},
        "signatures": {r.unit_size: str(r.signature) for r in results},
        "exclusions": {**results[0].exclusions, **inputs.notes,
                       "undefined_segments_per_view": inputs.undefined_segments},
        "timings": {"statistics": round(seconds["statistics"], 3),
                    **{f"M={r.unit_size}": {k: round(v, 3) for k, v in r.timings.items()} for r in results},
                    "total": round(seconds["total"], 3)},
        "files": sorted(list(files) + ["study.json"]),
    }
    files["study.json"] = text(json.dumps(manifest, ensure_ascii=False, indent=1, default=str) + "\n")
    return files
