"""``bleustats correlate``: system- and segment-level correlations of metrics with human scores.

::

    bleustats correlate --human mqm.tsv [--human-column NAME] \\
        [--scores comet.tsv ...] \\
        [--hypotheses H.tsv --references R.tsv [-m bleu -m delta_bleu -m sbleu] [-tok 13a] ...] \\
        [--level system --level segment] [--method pearson --method kendall] [--variant b] \\
        [--grouping flat --grouping item] [--compare delta_bleu:all,bleu:all] [--test williams --test bootstrap]

Metrics come from ``--scores`` tables (``system, seg_id`` and one numeric column
per metric: COMET, chrF, anything) and, with ``--hypotheses`` and
``--references``, from the statistics engine (``bleu``, ``delta_bleu``,
``sbleu`` on the single, ``w ≥ θ`` and all-references views, named like
``bleustats study``'s: ``bleu:all``, ``delta_bleu:single``; the study's input
flags apply: ``--ref-weights-from``, ``--weight-transform``, ``--single-ref``,
``--undefined``). Correlations: :func:`bleustats.meta.metric_correlations.metric_correlations`;
comparisons (``--compare A,B``): Williams' test and the paired bootstrap or
permutation test. Results on stdout as Markdown, or ``--json``; ``-o FILE``
also writes the JSON (whole or not at all).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

import numpy as np
import pandas as pd

from .._version import __version__
from ..engine.io import write_atomic
from ..errors import InputError
from ..meta import report, study
from ..meta.compare import CORRELATION_TESTS
from ..meta.correlation import CORRELATION_METHODS, GROUPINGS, KENDALL_VARIANTS
from ..meta.metric_correlations import LEVELS, metric_correlations
from ..metrics.bleu import SMOOTH_METHODS
from ..tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
from . import _study_inputs as inputs_
from ._study_inputs import UNDEFINED, StudyMetrics, pair_of_names, read_scores_table, weight_transform_arg
from .study import STUDY_METRICS

__all__ = ["add_parser", "run"]

_KEYS = ("system", "seg_id")


def add_parser(subparsers: Any) -> None:
    """Add the ``correlate`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "correlate", help="system- and segment-level correlations of metrics with human scores, and comparisons",
        description="Pearson / Spearman / Kendall correlations of metric scores with human scores, at system "
                    "level and at segment level (flat, by item, by system), and Williams / paired bootstrap / "
                    "permutation comparisons of two metrics (mt-metrics-eval's meta-evaluation).")
    p.add_argument("--human", required=True, metavar="TABLE", help="human scores (system, seg_id, score column)")
    p.add_argument("--human-column", default="score", metavar="NAME", help="score column of --human "
                                                                           "(default: %(default)s)")
    p.add_argument("--scores", action="append", metavar="TABLE",
                   help="external metric scores: system, seg_id and one numeric column per metric; repeatable")
    p.add_argument("--hypotheses", metavar="TABLE", help="hypotheses (seg_id, system, text): BLEU-family metrics")
    p.add_argument("--references", action="append", metavar="TABLE",
                   help="references (seg_id, ref_id or ref, weight, text); repeatable")
    p.add_argument("-m", "--metric", action="append", choices=STUDY_METRICS,
                   help="computed metric, repeatable (default: all of %s)" % ", ".join(STUDY_METRICS))
    p.add_argument("--ref-weights-from", metavar="TABLE", help="human scores of the references (as in study)")
    p.add_argument("--weight-transform", type=weight_transform_arg, metavar="SPEC",
                   help="linear:SCALE, rank or constant-linear:SCALE")
    p.add_argument("--single-ref", metavar="REF_ID", help="reference of the single-reference view")
    p.add_argument("--threshold", type=float, default=0.0, metavar="THETA", help="θ of the 'w ≥ θ' view")
    p.add_argument("--undefined", choices=UNDEFINED, default="error",
                   help="segments where ΔBLEU has no positively weighted reference: error or exclude")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER, help="tokenizer")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=4, metavar="N", help="largest n-gram order")
    p.add_argument("-s", "--smooth-method", choices=SMOOTH_METHODS, default="exp", help="BLEU / ΔBLEU smoothing")
    p.add_argument("--sentence-variant", default="sacrebleu:exp", metavar="NAME", help="variant of sbleu")
    p.add_argument("--metric-column", action="append", metavar="NAME",
                   help="keep only these metrics (names or labels); repeatable")
    p.add_argument("--level", action="append", choices=LEVELS, help="system and/or segment (default: both)")
    p.add_argument("--method", action="append", choices=CORRELATION_METHODS,
                   help="pearson, spearman, kendall; repeatable (default: all)")
    p.add_argument("--variant", action="append", choices=KENDALL_VARIANTS,
                   help="Kendall variants b, c, wmt, acc23; repeatable (default: b)")
    p.add_argument("--grouping", action="append", choices=GROUPINGS,
                   help="segment-level grouping flat, item, system; repeatable (default: flat)")
    p.add_argument("--unmatched", choices=study.UNMATCHED, default="error",
                   help="rated cells some metric does not score: error, or exclude and count")
    p.add_argument("--compare", action="append", type=pair_of_names, metavar="A,B",
                   help="compare two metrics (one-sided p for A > B); repeatable")
    p.add_argument("--test", action="append", choices=("williams",) + CORRELATION_TESTS,
                   help="williams, bootstrap, permutation; repeatable (default: williams, bootstrap)")
    p.add_argument("--samples", type=int, default=1000, metavar="N", help="resamples of the tests (default: 1000)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the tests (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="FILE", help="also write the JSON to FILE")
    p.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    p.set_defaults(func=run)


def _external(paths: list[str], column_filter: set[str] | None) -> list:
    metrics = []
    for path in paths:
        frame = read_scores_table(path, "--scores")
        missing = [c for c in _KEYS if c not in frame.columns]
        if missing:
            raise InputError(f"--scores {path}: missing column(s) {missing!r}; a scores table has system, seg_id "
                             f"and one numeric column per metric (columns: {list(frame.columns)!r}).")
        for col in frame.columns:
            if col in _KEYS or (column_filter is not None and col not in column_filter):
                continue
            values = pd.to_numeric(frame[col], errors="coerce")
            if values.isna().all():
                continue  # a text column (e.g. the hypothesis): not a metric
            if values.isna().any():
                raise InputError(f"--scores {path}: column {col!r} has {int(values.isna().sum())} missing or "
                                 "non-numeric value(s); every row needs a score.")
            metrics.append(study.mean_metric(frame["system"].astype(str).to_numpy(), frame["seg_id"].to_numpy(),
                                             values.to_numpy(np.float64), metric=col, refs="external",
                                             signature=f"{col}@{path}"))
    return metrics


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats correlate``; returns the exit code (0 ok, 1 error, 2 usage)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if bool(args.hypotheses) != bool(args.references):
        print("bleustats correlate: error: --hypotheses and --references go together (BLEU-family metrics need "
              "both)", file=err)
        return 2
    if not args.hypotheses and not args.scores:
        print("bleustats correlate: error: give metrics: --scores TABLE, or --hypotheses with --references", file=err)
        return 2
    keep = set(args.metric_column) if args.metric_column else None
    try:
        metrics, keys = [], {}
        if args.hypotheses:
            names = list(dict.fromkeys(args.metric or STUDY_METRICS))
            inputs = inputs_.read_study_inputs(args, err, need_delta="delta_bleu" in names)
            options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
            built = StudyMetrics(inputs, names, args, options, err)
            metrics += built.build()
            keys = built.keys
            human = inputs.human
        else:
            raw = read_scores_table(args.human, "--human")
            if args.human_column not in raw.columns or not set(_KEYS) <= set(raw.columns):
                raise InputError(f"--human {args.human}: needs system, seg_id and {args.human_column!r} columns; "
                                 f"got {list(raw.columns)!r}.")
            human = raw[["system", "seg_id", args.human_column]].rename(columns={args.human_column: "score"})
            human = human.assign(system=human["system"].astype(str),
                                 score=pd.to_numeric(human["score"], errors="coerce"))
        metrics += _external(args.scores or [], keep)
        labels = {m.label: m for m in metrics}
        if keep is not None:
            wanted = {keys.get(k, k) for k in keep}
            metrics = [m for m in metrics if m.label in wanted or m.refs == "external"]
        if not metrics:
            raise InputError("no metric to correlate: check --scores columns and --metric-column.")
        result = metric_correlations(metrics, human, levels=args.level or LEVELS,
                                     methods=args.method or CORRELATION_METHODS,
                                     kendall_variants=args.variant or ("b",),
                                     groupings=args.grouping or ("flat",), unmatched=args.unmatched)

        def resolve(name: str) -> str:
            label = keys.get(name, name)
            if label not in labels:
                ext = {m.metric: m.label for m in metrics}
                if name in ext:
                    return ext[name]
                raise InputError(f"--compare: {name!r} is not a metric; metrics are {sorted(keys)} "
                                 f"{sorted(m.label for m in metrics)}.")
            return label

        comparisons = [result.compare(resolve(a), resolve(b), tests=args.test or ("williams", "bootstrap"),
                                      n_samples=args.samples, seed=args.seed) for a, b in args.compare or []]
        comparisons_df = pd.concat(comparisons, ignore_index=True) if comparisons else None
        payload = {"command": "bleustats correlate", "version": __version__,
                   "systems": [str(s) for s in result.systems], "cells": int(len(result.cell_item)),
                   "exclusions": result.cells.exclusions,
                   "correlations": report.records(result.correlations),
                   "comparisons": report.records(comparisons_df) if comparisons_df is not None else []}
        if args.output:
            write_atomic(args.output, lambda p: open(p, "w", encoding="utf-8").write(
                json.dumps(payload, ensure_ascii=False, indent=1) + "\n"))
    except (ValueError, TypeError) as exc:
        print(f"bleustats correlate: error: {exc}", file=err)
        return 1
    except OSError as exc:
        print(f"bleustats correlate: error: {exc.strerror or exc}", file=err)
        return 1
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=1), file=out)
    else:
        print(_markdown(result.correlations, comparisons_df), file=out)
    ex = result.cells.exclusions
    print(f"bleustats correlate: {len(result.systems)} systems, {len(result.cell_item)} rated cells; excluded: "
          f"{ex['human_nan_rows']} NaN rating(s), {ex['human_without_hypothesis']} rated cell(s) some metric does "
          "not score", file=err)
    return 0


def _markdown(correlations: pd.DataFrame, comparisons: pd.DataFrame | None) -> str:
    frame = correlations.copy()
    frame["column"] = [f"{lv} {m}{'-' + v if isinstance(v, str) else ''}{'' if g == 'flat' else ' by ' + g}"
                       for lv, m, v, g in zip(frame["level"], frame["method"], frame["variant"], frame["grouping"])]
    table = frame.pivot(index="label", columns="column", values="value")
    table = table.loc[list(dict.fromkeys(frame["label"])), list(dict.fromkeys(frame["column"]))]
    table.index.name = "metric"
    parts = [report.markdown_table(table.map(lambda v: "undefined*" if not np.isfinite(v) else f"{v:.3f}"))]
    undefined = frame[~np.isfinite(frame["value"].to_numpy(float))]
    if len(undefined):  # say why, as the JSON's n / n_groups / n_skipped do
        parts += ["", "* undefined: every group was skipped (a side constant, e.g. a metric or human score that is "
                  "the same for all, or fewer than 2 pairs): " + "; ".join(
                      f"{r.label}, {r.column}: {r.n_skipped} of {r.n_groups + r.n_skipped} group(s) skipped, "
                      f"{r.n} pair(s)" for r in undefined.itertuples())]
    if comparisons is not None and len(comparisons):
        shown = comparisons.assign(
            variant=comparisons["variant"].map(lambda v: v if isinstance(v, str) else ""),
            p_value=comparisons["p_value"].map(lambda p: f"{p:.4f}"),
            difference=comparisons["difference"].map(lambda d: f"{d:+.3f}"),
            interval=[("" if not np.isfinite(lo) else f"({lo:+.3f}, {hi:+.3f})")
                      for lo, hi in zip(comparisons["low"], comparisons["high"])])
        cols = ["metric_a", "metric_b", "level", "method", "variant", "grouping", "test", "difference", "interval",
                "p_value", "n"]
        parts += ["", "One-sided p-values for H1: A correlates better than B.", "",
                  report.markdown_table(shown[cols], index=False)]
    return "\n".join(parts)
