"""Inputs of ``bleustats study`` / ``bleustats correlate``: tables read, joined and checked once.

Private to the CLI. Every exclusion is counted and said on stderr, never silent:
hypotheses without a rating are not scored; ratings of references (rows of the
human file whose system is a reference id and has no hypotheses) are set apart
(they can weight the references); with ``--undefined exclude`` the segments
where ΔBLEU has no positively weighted reference are dropped for every metric.
"""

from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence, TextIO

import numpy as np
import pandas as pd

from .._interrupts import deferred
from ..engine import io
from ..engine._partitioned_stats import compute_stats_dataset
from ..engine.stats import StatsTable, compute_stats
from ..errors import InputError
from ..meta import ref_weights, study
from ..meta._options import UNDEFINED
from ..meta.ref_weights import parse_weight_transform

__all__ = ["StudyInputs", "StudyMetrics", "UNDEFINED", "VIEW_NAMES", "check_human_column", "pair_of_names",
           "read_human", "read_scores_table", "read_study_inputs", "weight_transform_arg"]

#: What to do with segments where ΔBLEU is undefined (no reference of positive weight).
#: Reference views of a study, in Table 2's column order.
VIEW_NAMES = ("single", "threshold", "all")


def read_scores_table(path: str | Path, what: str) -> pd.DataFrame:
    """A TSV (header, no quoting), JSONL or Parquet table as a DataFrame, ``system`` / ids as strings."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in io.TABLE_SUFFIXES:
        raise InputError(f"{what} {path}: unknown table format {suffix!r}; expected one of "
                         f"{', '.join(io.TABLE_SUFFIXES)}.")
    if not path.is_file():
        raise InputError(f"{what} {path}: no such file; check the path.")
    strings = {c: str for c in ("system", "ref", "ref_id", "text", "item")}
    try:
        if suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif suffix == ".jsonl":
            frame = pd.read_json(path, lines=True, dtype=strings)
        else:
            # no NA parsing (a text may be "NA"); numeric columns are converted by their readers
            frame = pd.read_csv(path, sep="\t", quoting=3, dtype=strings, keep_default_na=False)
    except (ValueError, OSError) as exc:
        raise InputError(f"{what} {path}: cannot be read as {suffix[1:].upper()} ({exc}).") from None
    return frame


def check_human_column(column: str, where: str) -> None:
    """Refuse a key column (``system``, ``seg_id``) of the human scores table ``where`` as its score column."""
    if column in ("system", "seg_id"):
        raise InputError(f"{where}: --human-column {column} names a key column of the table (system, seg_id); "
                         "it takes the column of human scores, e.g. the sample's --human-column mqm.")


def read_human(path: str | os.PathLike, *, score_column: str = "score") -> pd.DataFrame:
    """Read a human scores table (``system``, ``seg_id``, a score column; TSV, JSONL or Parquet).

    The score column (``score_column``, e.g. the bundled sample's ``mqm``) is
    returned as ``score`` (in place of a column of that name, if the table has
    one too); values that are not numbers (``NaN``, empty) become NaN: not rated.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "h.tsv")
    >>> _ = open(p, "w").write("system\\tseg_id\\tmqm\\nA\\t1\\t-5\\nA\\t1\\tNaN\\n")
    >>> read_human(p, score_column="mqm").to_dict("list")
    {'system': ['A', 'A'], 'seg_id': [1, 1], 'score': [-5.0, nan]}
    """
    check_human_column(score_column, str(path))
    frame = read_scores_table(path, "human scores")
    missing = [c for c in ("system", "seg_id", score_column) if c not in frame.columns]
    if missing:
        hint = ""
        if missing == [score_column]:
            others = [str(c) for c in frame.columns if c not in ("system", "seg_id", "doc_id", "domain", "note")]
            hint = (f" --human-column {score_column}: no such column; the table has "
                    f"{', '.join(map(str, frame.columns))}" + (f"; e.g. --human-column {others[0]}" if others else "")
                    + ".")
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}; a human scores table has system, seg_id "
                         f"and a score column (one row per rating).{hint}")
    if score_column != "score":  # the chosen column becomes `score`; a column of that name beside it is not read
        out = frame.drop(columns=["score"], errors="ignore").rename(columns={score_column: "score"})
    else:
        out = frame.copy()
    seg = pd.to_numeric(out["seg_id"], errors="coerce")  # "" too becomes NaN
    bad = seg.isna() | (seg != seg.round())
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{path}: seg_id must be a whole number on every row (the hypotheses' segment ids); "
                         f"row {row + 1} has {out['seg_id'].iloc[row]!r}.")
    out["seg_id"] = seg.astype(np.int64)
    if not pd.api.types.is_numeric_dtype(out["score"]):
        out["score"] = pd.to_numeric(out["score"], errors="coerce")
    return out



def _references(paths: list[str], err: TextIO) -> pd.DataFrame:
    """All reference files, concatenated; a ``ref`` column is the ``ref_id`` when there is none."""
    frames = []
    for path in paths:
        frame = read_scores_table(path, "--references")
        if "ref_id" not in frame.columns and "ref" in frame.columns:
            frame = frame.rename(columns={"ref": "ref_id"})
            print(f"bleustats: {path}: column 'ref' read as the reference id (ref_id)", file=err)
        frames.append(frame)
    refs = pd.concat(frames, ignore_index=True)
    table = io.as_references_table(refs).to_pandas()  # validated: seg_id, ref_id, weight, text
    dup = table.duplicated(["seg_id", "ref_id"])
    if dup.any() and "ref_id" in refs.columns:
        first = table.loc[dup].iloc[0]
        raise InputError(f"--references: {int(dup.sum())} (seg_id, ref_id) pair(s) occur twice, e.g. seg_id "
                         f"{first['seg_id']} ref_id {first['ref_id']!r}; give each reference once.")
    return table


@dataclass
class StudyInputs:
    """Hypotheses, references (weighted), human scores and the bookkeeping of what was left out."""

    hypotheses: pd.DataFrame
    references: pd.DataFrame
    human: pd.DataFrame
    notes: dict[str, Any] = field(default_factory=dict)
    weights_label: str | None = None
    single_ref: str | None = None
    undefined_segments: dict[str, int] = field(default_factory=dict)


def read_study_inputs(args: argparse.Namespace, err: TextIO, *, need_delta: bool) -> StudyInputs:
    """Read and join the tables of ``args`` (see the module docstring)."""
    hyps = io.read_table(args.hypotheses, "hypotheses").to_pandas()
    refs = _references(args.references, err)
    column = args.human_column
    raw = read_human(args.human, score_column=column)  # the score column is now "score"
    human = raw[["system", "seg_id", "score"]].copy()
    human["system"] = human["system"].astype(str)
    notes: dict[str, Any] = {}
    ref_ids = set(refs["ref_id"])
    systems = set(hyps["system"])
    is_ref = human["system"].isin(ref_ids - systems)
    notes["human_reference_rows"] = int(is_ref.sum())
    if is_ref.any():
        ref_names = ", ".join(sorted(set(human.loc[is_ref, "system"])))
        print(f"bleustats: {int(is_ref.sum())} rating(s) of references ({ref_names}) "
              "are not system ratings: left out of the study", file=err)
    human = human.loc[~is_ref]

    # only rated cells are scored: hypotheses without a rating cannot enter the study
    rated = human.dropna(subset=["score"])
    keys = pd.MultiIndex.from_frame(rated[["system", "seg_id"]].astype({"seg_id": np.int64}))
    has = pd.MultiIndex.from_frame(hyps[["system", "seg_id"]]).isin(keys)
    notes["hypotheses_not_rated"] = int((~has).sum())
    hyps = hyps.loc[has]

    # references of segments no rated hypothesis has are never used: not weighted either
    used = refs["seg_id"].isin(set(hyps["seg_id"]))
    notes["references_not_used"] = int((~used).sum())
    refs = refs.loc[used].reset_index(drop=True)

    weights_label = None
    if args.ref_weights_from:
        if not args.weight_transform:
            raise InputError("--ref-weights-from needs --weight-transform (linear:SCALE, rank or "
                             "constant-linear:SCALE) to map the scores to weights in [-1, 1].")
        scores = raw if Path(args.ref_weights_from) == Path(args.human) else \
            read_scores_table(args.ref_weights_from, "--ref-weights-from")
        score_column = column if column in scores.columns else "score"
        refs, info = ref_weights.reference_weights(refs, scores, args.weight_transform,
                                                   single_ref=args.single_ref, score_column=score_column)
        weights_label = info["label"]
        print(f"bleustats: reference weights from {args.ref_weights_from} ({info['rated']} rated reference(s), "
              f"{info['constant']} constant; {weights_label})", file=err)
    elif args.weight_transform:
        raise InputError("--weight-transform maps human scores of references to weights: give them with "
                         "--ref-weights-from FILE.")

    if args.single_ref is not None and args.single_ref not in ref_ids:
        raise InputError(f"--single-ref: {args.single_ref!r} is not a reference id; the ids are "
                         f"{sorted(ref_ids)!r}.")

    inputs = StudyInputs(hypotheses=hyps, references=refs, human=human, notes=notes, weights_label=weights_label,
                         single_ref=args.single_ref)
    if need_delta:
        _undefined(inputs, args, err)
    return inputs


def view_references(inputs: StudyInputs, view: str, theta: float) -> pd.DataFrame:
    """The references a view uses: the chosen single reference, those with weight >= θ, or all."""
    refs = inputs.references
    if view == "single":
        if inputs.single_ref is not None:
            return refs.loc[refs["ref_id"] == inputs.single_ref]
        return refs.loc[~refs.duplicated("seg_id")]
    if view == "threshold":
        return refs.loc[refs["weight"] >= theta]
    return refs


def _undefined(inputs: StudyInputs, args: argparse.Namespace, err: TextIO) -> None:
    """Segments where ΔBLEU has no positively weighted reference, per view: error, or dropped for all."""
    segs = np.unique(inputs.hypotheses["seg_id"])
    union: set[int] = set()
    for view in VIEW_NAMES:
        refs = view_references(inputs, view, args.weight_threshold)
        with_refs = set(refs["seg_id"])
        positive = set(refs.loc[refs["weight"] > 0, "seg_id"])
        bad = {int(s) for s in segs if s in with_refs and s not in positive}
        inputs.undefined_segments[view] = len(bad)
        union |= bad
    inputs.notes["undefined_segments"] = len(union)
    if not union:
        return
    ids = sorted(union)
    inputs.notes["delta_bleu_undefined_segments"] = ids
    shown = ", ".join(map(str, ids[:10])) + (", ..." if len(ids) > 10 else "")
    per_view = ", ".join(f"{v} {n}" for v, n in inputs.undefined_segments.items() if n)
    if args.undefined == "error":
        raise InputError(f"ΔBLEU is undefined in {len(union)} segment(s) (no reference of positive weight; "
                         f"per view: {per_view}): seg_id {shown}. Pass --undefined exclude to leave those segments "
                         "out of every metric (counted), or leave ΔBLEU out (-m bleu -m sbleu).")
    drop = inputs.human["seg_id"].isin(union)
    inputs.notes["undefined_ratings"] = int(drop.sum())
    inputs.human = inputs.human.loc[~drop]
    inputs.hypotheses = inputs.hypotheses.loc[~inputs.hypotheses["seg_id"].isin(union)]
    print(f"bleustats: --undefined exclude: {len(union)} segment(s) where ΔBLEU is undefined (no positively "
          f"weighted reference; per view: {per_view}) left out of every metric ({int(drop.sum())} rating(s)): "
          f"seg_id {shown}", file=err)


def view_stats(inputs: StudyInputs, view: str, theta: float, options: dict, err: TextIO, *,
               executor: Any = None, scratch: str | os.PathLike = ".") -> StatsTable:
    """Statistics of one reference view; hypotheses of segments the view has no reference for are said and dropped.

    With ``executor`` (``--dask``) the rows are computed on the cluster, partition by partition, into a
    temporary dataset beside ``scratch`` that the workers see, then collected: the same rows.
    """
    refs = view_references(inputs, view, theta)
    hyps = inputs.hypotheses
    has = hyps["seg_id"].isin(set(refs["seg_id"]))
    if not has.all():
        n_seg = hyps.loc[~has, "seg_id"].nunique()
        what = (f"'single={inputs.single_ref}' view: {n_seg} segment(s) have no reference {inputs.single_ref!r}"
                if view == "single" else f"'w≥{theta:g}' view: {n_seg} segment(s) have no reference with weight "
                                         f">= {theta:g}")
        print(f"bleustats study: {what}; their {int((~has).sum())} hypotheses are not scored in that view", file=err)
        hyps = hyps.loc[has]
    ref_view = {"single": "all" if inputs.single_ref is not None else "first", "threshold": "threshold",
                "all": "all"}[view]
    extra = {"weight_threshold": theta} if view == "threshold" else {}
    if executor is None:
        return compute_stats(hyps, refs, ref_view=ref_view, **extra, **options)
    return _cluster_stats(hyps, refs, executor, scratch, ref_view=ref_view, **extra, **options)


def _cluster_stats(hyps: pd.DataFrame, refs: pd.DataFrame, executor: Any, scratch: str | os.PathLike,
                   **options: Any) -> StatsTable:
    folder = io.make_temp_dir(scratch)
    try:  # about 16 partitions, so that every worker has some
        ds = compute_stats_dataset(hyps, refs, folder / "stats", executor=executor,
                                   partition_rows=max(1024, -(-len(hyps) // 16)), **options)
        return ds.to_table()
    finally:
        with deferred():
            shutil.rmtree(folder, ignore_errors=True)


def view_label(inputs: StudyInputs, view: str, theta: float) -> str:
    """Table 2's column label of a view; the single view names its reference when it was chosen."""
    if view == "single":
        return f"single={inputs.single_ref}" if inputs.single_ref is not None else "single"
    return f"w≥{theta:g}" if view == "threshold" else "all"


def metric_key(name: str, view: str) -> str:
    """The ``--compare`` name of a study metric: ``bleu:all``, ``delta_bleu:single``, ``sbleu:threshold``."""
    return f"{name}:{view}"


def unit_metric(stats: StatsTable | list, name: str, refs: str, args: argparse.Namespace,
                inputs: StudyInputs, max_ngram_order: int | None = None) -> study.UnitMetric:
    """A study metric of one view, its signature naming the weights' transform and the single reference."""
    if name == "sbleu":
        m = study.sentence_mean_metric(stats, args.sentence_variant, refs=refs, max_ngram_order=max_ngram_order)
    else:
        m = study.corpus_metric(stats, metric=name, refs=refs, smooth_method=args.smooth_method,
                                max_ngram_order=max_ngram_order)
    extra = []
    if inputs.weights_label is not None:
        extra.append(("wt", inputs.weights_label))
    if inputs.single_ref is not None and refs.startswith("single"):
        extra.append(("single", inputs.single_ref))
    if extra:
        m = replace(m, signature=m.signature.with_extra(*extra))
    return m


def pair_of_names(text: str) -> tuple[str, str]:
    """``A,B`` of ``--compare`` as a pair of names (argparse type)."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"expected two metric names A,B (e.g. delta_bleu:all,bleu:all); got {text!r}")
    return parts[0], parts[1]


def weight_transform_arg(text: str) -> str:
    """A ``--weight-transform`` spec, checked (argparse type)."""
    try:
        return str(parse_weight_transform(text))
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class StudyMetrics:
    """The study's metrics per view, with their ``--compare`` keys."""

    def __init__(self, inputs: StudyInputs, names: list[str], args: argparse.Namespace, options: dict,
                 err: TextIO, *, executor: Any = None, views: Sequence[str] = VIEW_NAMES):
        self.inputs, self.names, self.args, self.options, self.err = inputs, names, args, options, err
        self.executor = executor
        self.stats = {v: self.view_stats(v, args.weight_threshold) for v in VIEW_NAMES if v in views}
        self.keys: dict[str, str] = {}

    def view_stats(self, view: str, theta: float) -> StatsTable:
        """:func:`view_stats` with the study's options (on its cluster with ``--dask``)."""
        scratch = getattr(self.args, "output", None) or "."
        return view_stats(self.inputs, view, theta, self.options, self.err, executor=self.executor, scratch=scratch)

    def build(self, stats: dict | None = None, *, max_ngram_order: int | None = None,
              threshold_label: str | None = None) -> list:
        """Metrics of every name and view (of ``stats``, default the study's views)."""
        out = []
        for name in self.names:
            for view, st in (stats or self.stats).items():
                refs = threshold_label if view == "threshold" and threshold_label else \
                    view_label(self.inputs, view, self.args.weight_threshold)
                m = unit_metric(st, name, refs, self.args, self.inputs, max_ngram_order)
                if stats is None:
                    self.keys.setdefault(metric_key(name, view), m.label)
                out.append(m)
        return out

    def resolve(self, name: str) -> str:
        if name in self.keys:
            return self.keys[name]
        if name in self.keys.values():
            return name
        raise InputError(f"--compare: {name!r} is not a metric of the study; the metrics are "
                         f"{', '.join(sorted(self.keys))} (or their labels {sorted(self.keys.values())!r}).")
