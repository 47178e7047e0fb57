"""``bleustats study``: the ΔBLEU paper's correlation study from long-form tables to a results folder.

::

    bleustats study --hypotheses hyps.tsv --references refs.tsv --human human.tsv -o results/ \\
        [--threshold 0.5] [--unit-size 100] [--assignments 1000] [--seed 0] \\
        [--sweep threshold --sweep unit_size --sweep max_ngram_order]

Inputs are long-form tables (TSV with a header, JSONL or Parquet):
hypotheses ``seg_id, system, text``; references ``seg_id, ref_id, weight,
text`` (the first reference of a segment is its "single" reference);
human scores ``system, seg_id, score`` (one row per rating; several raters
are averaged; extra columns are ignored). Statistics are computed once per
reference view (single, ``w ≥ θ``, all) and every metric (BLEU, sBLEU, ΔBLEU)
is studied on the same assignments (:func:`bleustats.meta.study.correlation_study`).

The results folder is written whole or not at all (built beside the target,
then renamed into place): ``table2.md`` / ``table2.csv`` / ``table2.json``
(every number with its signature), ``pairs.csv``, one ``sweep_<parameter>.csv``
per ``--sweep`` and ``figure2.png`` (needs matplotlib), and ``study.json``
(inputs, options, exclusions, files). Table 2 is printed on stdout (or the
JSON with ``--json``); progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from .._interrupts import deferred
from .._validate import describe_ids
from .._version import __version__
from ..engine import io
from ..engine.stats import MAX_ORDER_LIMIT, StatsTable, compute_stats
from ..errors import InputError
from ..meta import report, study
from ..metrics.bleu import SMOOTH_METHODS
from ..metrics.sentence import SENTENCE_VARIANTS, get_variant
from ..tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
from ._progress import ProgressBar, one_line

__all__ = ["STUDY_METRICS", "add_parser", "read_human", "run"]

#: Metrics of ``--metric``: corpus BLEU, mean sentence BLEU, corpus ΔBLEU.
STUDY_METRICS = ("bleu", "sbleu", "delta_bleu")
_VIEWS = ("single", "threshold", "all")


def read_human(path: str | os.PathLike, *, column: str = "score") -> pd.DataFrame:
    """Read a human scores table (``system``, ``seg_id``, ``score``; TSV, JSONL or Parquet).

    ``column`` names the score column when it is not ``score`` (e.g. the
    bundled sample's ``mqm``); it is read as ``score``.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "h.tsv")
    >>> _ = open(p, "w").write("system\\tseg_id\\tscore\\nA\\t1\\t-5\\nA\\t1\\tNaN\\n")
    >>> read_human(p).to_dict("list")
    {'system': ['A', 'A'], 'seg_id': [1, 1], 'score': [-5.0, nan]}
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in io.TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format {suffix!r}; expected one of "
                            f"{', '.join(io.TABLE_SUFFIXES)}.")
    if not path.is_file():
        raise InputError(f"{path}: no such file; check the path.")
    try:
        if suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif suffix == ".jsonl":
            frame = io.read_jsonl(path).to_pandas()
        else:
            frame = pd.read_csv(path, sep="\t", quoting=3, dtype={"system": str}, keep_default_na=False,
                                na_values=["NaN", "nan", "NA", ""])
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: cannot be read as {suffix[1:].upper()} ({exc}).") from None
    if column != "score":
        if column not in frame.columns:
            raise InputError(f"{path}: --human-column {column}: no such column; the table has "
                             f"{', '.join(map(str, frame.columns))}.")
        frame = frame.drop(columns=["score"], errors="ignore").rename(columns={column: "score"})
    missing = [c for c in study.HUMAN_COLUMNS if c not in frame.columns]
    if missing:
        hint = ""
        if missing == ["score"]:
            others = [str(c) for c in frame.columns if c not in ("system", "seg_id")]
            hint = (f" Name the score column with --human-column (its columns: {', '.join(map(str, frame.columns))})"
                    + (f", e.g. --human-column {others[0]}" if others else "") + ".")
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; a human scores table has "
                            f"{', '.join(study.HUMAN_COLUMNS)} (one row per rating).{hint}")
    if frame["score"].dtype == object:
        frame["score"] = pd.to_numeric(frame["score"], errors="coerce")
    return frame


def _ints(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers; got {text!r}") from None


def _floats(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers; got {text!r}") from None


def add_parser(subparsers: Any) -> None:
    """Add the ``study`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "study", help="the ΔBLEU paper's correlation study (Table 2, Figure 2) into a results folder",
        description="Correlation of BLEU, sBLEU and ΔBLEU score differences with human score differences "
                    "on random units of M segments (Galley et al. 2015, section 5), from cached statistics.")
    p.add_argument("--hypotheses", required=True, metavar="TABLE",
                   help="hypotheses table (.tsv/.jsonl/.parquet: seg_id, system, text)")
    p.add_argument("--references", required=True, metavar="TABLE",
                   help="references table (seg_id, ref_id, weight, text); a segment's first row is its "
                        "single reference")
    p.add_argument("--human", required=True, metavar="TABLE",
                   help="human scores (system, seg_id, score; one row per rating, raters averaged)")
    p.add_argument("--human-column", default="score", metavar="NAME",
                   help="the score column of --human (default: %(default)s; the bundled sample's is mqm)")
    p.add_argument("--undefined", choices=("error", "exclude"), default="error",
                   help="segments where ΔBLEU is undefined (no reference of positive weight, in some view): "
                        "error, or exclude them from every metric so all compare on the same segments "
                        "(counted and reported either way; default: %(default)s)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="results folder (written whole or not at all)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing results folder")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER,
                   help="tokenizer, as sacreBLEU's (default: %(default)s)")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=4, metavar="N",
                   help=f"largest n-gram order, 1..{MAX_ORDER_LIMIT} (default: %(default)s)")
    p.add_argument("-m", "--metric", action="append", choices=STUDY_METRICS,
                   help="metric to study, repeatable (default: all of %s)" % ", ".join(STUDY_METRICS))
    p.add_argument("--sentence-variant", default="sacrebleu:exp", metavar="NAME",
                   help="sentence-level variant of sBLEU (default: %(default)s; any of "
                        + ", ".join(SENTENCE_VARIANTS) + ")")
    p.add_argument("-s", "--smooth-method", choices=SMOOTH_METHODS, default="exp",
                   help="smoothing of corpus BLEU / ΔBLEU (default: %(default)s)")
    p.add_argument("--threshold", type=float, default=0.0, metavar="THETA",
                   help="θ of the 'w ≥ θ' reference view (default: %(default)s)")
    p.add_argument("--unit-size", type=int, default=100, metavar="M", help="segments per unit (default: %(default)s)")
    p.add_argument("--assignments", type=int, default=1000, metavar="A",
                   help="random assignments (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random draw (default: %(default)s)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                   help="bootstrap replicates over observations; 0 skips (default: %(default)s)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval level (default: %(default)s)")
    p.add_argument("--kendall-variant", choices=("b", "c"), default="b", help="Kendall τ variant (default: b)")
    p.add_argument("--unmatched", choices=study.UNMATCHED, default="error",
                   help="rated cells without a hypothesis (in some view): error, or exclude and count")
    p.add_argument("--pair", action="append", nargs=2, metavar=("SYS_A", "SYS_B"),
                   help="system pair, repeatable (default: all pairs sharing rated segments)")
    p.add_argument("--sweep", action="append", choices=study.SWEEP_PARAMETERS,
                   help="Figure 2 panel, repeatable: threshold, unit_size, max_ngram_order")
    p.add_argument("--thresholds", type=_floats, default=[-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0], metavar="LIST",
                   help="θ values of --sweep threshold, e.g. --thresholds=-1,0,0.5 "
                        "(default: -1,-0.5,0,0.25,0.5,0.75,1)")
    p.add_argument("--unit-sizes", type=_ints, default=list(study.PAPER_UNIT_SIZES), metavar="LIST",
                   help="M values of --sweep unit_size (default: 1,2,5,10,20,50,100)")
    p.add_argument("--orders", type=_ints, default=None, metavar="LIST",
                   help="N values of --sweep max_ngram_order (default: 1..--max-ngram-order)")
    p.add_argument("--sweep-assignments", type=int, default=None, metavar="A",
                   help="assignments per sweep point (default: --assignments)")
    p.add_argument("--no-plot", action="store_true", help="do not draw figure2.png")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr even when it is not a terminal")
    p.add_argument("--json", action="store_true", help="print the study as JSON instead of Table 2")
    p.set_defaults(func=run)


def _usage(err: TextIO, message: str) -> int:
    print(f"bleustats study: error: {message}", file=err)
    return 2


def _view_stats(hyps, refs, view: str, theta: float, options: dict, err: TextIO) -> StatsTable:
    """Statistics of one reference view.

    In 'w ≥ θ', hypotheses of segments left without a reference are dropped (and said on stderr).
    """
    if view != "threshold":
        return compute_stats(hyps, refs, ref_view="first" if view == "single" else "all", **options)
    weights = refs.column("weight").to_numpy()
    kept = np.unique(refs.column("seg_id").to_numpy()[weights >= theta])
    seg = hyps.column("seg_id").to_numpy()
    has = np.isin(seg, kept)
    if not has.all():
        n_seg = len(np.unique(seg[~has]))
        print(f"bleustats study: 'w≥{theta:g}' view: {n_seg} segment(s) have no reference with weight >= {theta:g}; "
              f"their {int((~has).sum())} hypotheses are not scored in that view", file=err)
        hyps = hyps.filter(has)
    return compute_stats(hyps, refs, ref_view="threshold", weight_threshold=theta, **options)


def _undefined_segments(stats_by_view: dict, names: list[str], args: argparse.Namespace, err: TextIO) -> np.ndarray:
    """Segments where ΔBLEU has no reference of positive weight in some view; an error unless --undefined exclude."""
    if "delta_bleu" not in names:
        return np.zeros(0, np.int64)
    bad = np.unique(np.concatenate([st.column("seg_id")[st.column("ref_weight_max") <= 0]
                                    for st in stats_by_view.values()]))
    if len(bad) and args.undefined == "error":
        raise InputError(
            f"{args.references}: ΔBLEU is undefined in {len(bad)} segment(s) with no reference of positive weight "
            f"(in some reference view): seg_id {describe_ids(bad)}. Pass --undefined exclude to leave them out of "
            "every metric (counted in study.json), drop -m delta_bleu, or fix their weights.")
    if len(bad):
        print(f"bleustats study: --undefined exclude: {len(bad)} segment(s) where ΔBLEU is undefined (seg_id "
              f"{describe_ids(bad)}) are left out of every metric", file=err)
    return bad


def _without(stats_by_view: dict, segments: np.ndarray) -> dict:
    """Every view's statistics without the rows of ``segments``."""
    if not len(segments):
        return stats_by_view
    return {v: st.select(~np.isin(st.column("seg_id"), segments)) for v, st in stats_by_view.items()}


def _metrics_of(stats_by_view: dict, names: list[str], args: argparse.Namespace, max_ngram_order: int | None = None,
                threshold_label: str | None = None):
    out = []
    for name in names:
        for view, st in stats_by_view.items():
            refs = (threshold_label or f"w≥{args.threshold:g}") if view == "threshold" else view
            if name == "sbleu":
                out.append(study.sentence_mean_metric(st, args.sentence_variant, refs=refs,
                                                      max_ngram_order=max_ngram_order))
            else:
                out.append(study.corpus_metric(st, metric=name, refs=refs, smooth_method=args.smooth_method,
                                               max_ngram_order=max_ngram_order))
    return out


def _write_folder(target: Path, files: dict[str, Any], overwrite: bool) -> None:
    """Write every file into a new folder beside ``target``, then rename it into place."""
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"--output: the parent folder {parent} does not exist; create it first.")
    if target.exists() and not overwrite:
        raise InputError(f"--output: {target} exists; pass --overwrite to replace it or choose another folder.")
    tmp = old = None
    try:
        with deferred():  # made and named before an interrupt can land
            tmp = io.make_temp_dir(target)  # follows the umask (mkdtemp made 0700)
        for name, write in files.items():
            write(tmp / name)
        if target.exists():
            with deferred():
                old = io.make_temp_dir(target, ".old")
            os.replace(target, old / target.name)
        os.replace(tmp, target)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not target.exists():
            os.replace(old / target.name, target)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats study``; returns the exit code (0 ok, 1 error, 2 usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if not 1 <= args.max_ngram_order <= MAX_ORDER_LIMIT:
        return _usage(err, f"argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT}; "
                           f"got {args.max_ngram_order}")
    orders = args.orders or list(range(1, args.max_ngram_order + 1))
    if any(not 1 <= n <= args.max_ngram_order for n in orders):
        return _usage(err, f"argument --orders: each must be from 1 to --max-ngram-order ({args.max_ngram_order}); "
                           f"got {orders}")
    names = list(dict.fromkeys(args.metric or STUDY_METRICS))
    show = args.progress or (hasattr(err, "isatty") and err.isatty())
    t0 = time.perf_counter()
    try:
        get_variant(args.sentence_variant)
        hyps = io.read_table(args.hypotheses, "hypotheses")
        refs = io.read_table(args.references, "references")
        human = read_human(args.human, column=args.human_column)
        options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
        print(f"bleustats study: {hyps.num_rows} hypotheses, {refs.num_rows} references, {len(human)} ratings; "
              "computing statistics per reference view", file=err)
        stats = {v: _view_stats(hyps, refs, v, args.threshold, options, err) for v in _VIEWS}
        undefined = _undefined_segments(stats, names, args, err)
        stats = _without(stats, undefined)
        human = human[~human["seg_id"].isin(undefined)] if len(undefined) else human
        study_opts = dict(n_assignments=args.assignments, seed=args.seed, n_bootstrap=args.bootstrap,
                          confidence=args.confidence, kendall_variant=args.kendall_variant,
                          unmatched=args.unmatched, pairs=[tuple(p) for p in args.pair] if args.pair else None)
        bar = ProgressBar(err, label="study") if show else None
        with warnings.catch_warnings(record=True) as caught:  # said once below, as one line each
            warnings.simplefilter("always", RuntimeWarning)
            result = study.correlation_study(_metrics_of(stats, names, args), human, unit_size=args.unit_size,
                                             progress=bar, **study_opts)
        if bar is not None:
            bar.close()
        if caught:  # one line per reason, naming the metrics (the warnings say it per metric)
            for note in report.undefined_notes(result.summary):
                print(f"bleustats study: warning: {note}", file=err)
        sweeps: dict[str, pd.DataFrame] = {}
        sweep_opts = dict(study_opts, n_assignments=args.sweep_assignments or args.assignments)
        for param in dict.fromkeys(args.sweep or []):
            bar = ProgressBar(err, label=f"sweep {param}") if show else None
            if param == "unit_size":
                frame = study.sweep(param, args.unit_sizes, _metrics_of(stats, names, args), human,
                                    progress=bar, **sweep_opts)
            elif param == "max_ngram_order":
                frame = study.sweep(param, orders, lambda n: _metrics_of(stats, names, args, max_ngram_order=n),
                                    human, unit_size=args.unit_size, progress=bar, **sweep_opts)
            else:
                def at(theta: float) -> list:
                    st = _without({"threshold": _view_stats(hyps, refs, "threshold", theta, options, err)},
                                  undefined)["threshold"]
                    at_args = argparse.Namespace(**{**vars(args), "threshold": theta})
                    # one label across θ, so the sweep draws one line per metric (the θ is the x axis)
                    return _metrics_of({"threshold": st}, names, at_args, threshold_label="w≥θ")
                frame = study.sweep(param, args.thresholds, at, human, unit_size=args.unit_size, progress=bar,
                                    **sweep_opts)
            if bar is not None:
                bar.close()
            sweeps[param] = frame
        files = _result_files(result, sweeps, args, time.perf_counter() - t0, err, undefined)
        _write_folder(Path(args.output), files, args.overwrite)
    except (ValueError, TypeError) as exc:
        print(f"\nbleustats study: error: {one_line(exc)}" if show else f"bleustats study: error: {one_line(exc)}",
              file=err)
        return 1
    except OSError as exc:
        print(f"bleustats study: error: {one_line(exc.strerror or exc)}", file=err)
        return 1
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=1), file=out)
    else:
        print(report.to_markdown(result), file=out)
    ex = result.exclusions
    print(f"bleustats study: {len(result.pairs)} pairs, {result.n_observations} observations; excluded: "
          f"{ex['human_nan_rows']} NaN rating(s), {ex['human_without_hypothesis']} rated cell(s) without "
          f"hypothesis, {ex['segments_dropped']} remainder segment(s) per assignment; wrote {args.output} "
          f"({', '.join(sorted(files))})", file=err)
    return 0


def _result_files(result: study.StudyResult, sweeps: dict, args: argparse.Namespace, seconds: float,
                  err: TextIO, undefined: np.ndarray | None = None) -> dict[str, Any]:
    def text(content: str):
        return lambda p: p.write_text(content, encoding="utf-8")

    files: dict[str, Any] = {
        "table2.md": text("# Table 2 (Galley et al. 2015, section 5)\n\n" + report.to_markdown(result) + "\n"),
        "table2.csv": lambda p: result.summary.to_csv(p, index=False),
        "table2.json": text(json.dumps(result.to_dict(), ensure_ascii=False, indent=1) + "\n"),
        "pairs.csv": lambda p: result.pairs.to_csv(p, index=False),
    }
    for param, frame in sweeps.items():
        files[f"sweep_{param}.csv"] = (lambda f: lambda p: f.to_csv(p, index=False))(frame)
    if sweeps and not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("bleustats study: matplotlib is not installed: no figure2.png (pip install 'bleustats[plot]')",
                  file=err)
        else:
            def plot(p: Path) -> None:
                report.plot_sweeps(sweeps).savefig(p, format="png", dpi=120)
            files["figure2.png"] = plot
    manifest = {
        "command": "bleustats study",
        "version": __version__,
        "inputs": {"hypotheses": str(args.hypotheses), "references": str(args.references), "human": str(args.human)},
        "options": {k: v for k, v in vars(args).items() if k not in ("func", "command", "hypotheses", "references",
                                                                     "human", "output")},
        "signature": result.signature,
        "exclusions": {**result.exclusions,
                       "delta_bleu_undefined_segments": [] if undefined is None else undefined.tolist()},
        "timings": {**{k: round(v, 3) for k, v in result.timings.items()}, "total": round(seconds, 3)},
        "files": sorted(list(files) + ["study.json"]),
    }
    files["study.json"] = text(json.dumps(manifest, ensure_ascii=False, indent=1, default=str) + "\n")
    return files
