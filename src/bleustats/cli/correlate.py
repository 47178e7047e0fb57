"""``bleustats correlate``: system- and segment-level correlations of metrics with human scores.

::

    bleustats correlate --human mqm.tsv [--human-column NAME] \\
        [--scores comet.tsv ...] \\
        [--hypotheses H.tsv --references R.tsv [-m bleu delta_bleu sbleu chrf chrf++ ter] ...] \\
        [--level system --level segment] [--method pearson --method kendall --method pa --method spa] \\
        [--kendall-variant b --kendall-variant acc23] [--tie-calibration] [--permutations N] [--rank] \\
        [--grouping flat --grouping item] [--compare delta_bleu:all,bleu:all] [--test williams --test bootstrap]

Metrics come from ``--scores`` tables (``system, seg_id`` and one numeric column
per metric: COMET, chrF, anything, or the per-segment scores of ``bleustats
score --segment-scores``) and, with ``--hypotheses`` and
``--references``, from the statistics engine (``bleu``, ``delta_bleu``,
``sbleu``, ``chrf``, ``chrf++``, ``ter`` on the single, ``w ≥ θ`` and
all-references views, named like ``bleustats study``'s: ``bleu:all``,
``chrf:single``; the study's input flags apply: ``--ref-weights-from``,
``--weight-transform``, ``--single-ref``, ``--undefined``). Correlations:
:func:`bleustats.meta.metric_correlations.metric_correlations`, with pairwise
accuracy (``pa``) and soft pairwise accuracy (``spa``, corpus metrics rescored
under every permutation) at system level, and tie calibration of ``acc23`` /
``tau23`` (the chosen ε reported). ``--rank`` adds the rank clusters of
:mod:`bleustats.meta.rank_clusters`. An ``lp`` column in the human table (and
then in every input table) evaluates each language pair on its own and adds
global accuracy pooled over the pairs. Comparisons (``--compare A,B``):
Williams' test and the paired bootstrap or permutation test. Results on stdout
as Markdown, or ``--json``; ``-o FILE`` also writes the JSON (whole or not at
all). A ``--compare`` name of the form METRIC:VIEW that is no metric of the
command line is refused before any work. See ``docs/meta-evaluation.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .._version import __version__
from ..errors import InputError, UsageError
from ..meta._options import CORRELATION_METHODS, CORRELATION_TESTS, GROUPINGS, LEVELS, METHODS, UNMATCHED, VARIANTS
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, positive_int
from ._progress import close_all, reporter, step
from .study import STUDY_METRICS, add_study_inputs, check_compare, pair_of_names

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CORRELATE_METRICS", "EXAMPLES", "add_parser", "run"]

_KEYS = ("system", "seg_id")
#: Metrics ``-m`` computes from the texts: the study's and chrF, chrF++, TER (corpus scores of summed statistics).
CORRELATE_METRICS = STUDY_METRICS + ("chrf", "chrf++", "ter")
# JSON keys a record carries only where they apply
_OPTIONAL = {"tie_calibrated": lambda r: r.get("tie_calibrated") is True,
             "threshold": lambda r: r.get("tie_calibrated") is True,
             "permutations": lambda r: r.get("method") == "spa",
             "agreements": lambda r: r.get("method") == "pa", "pairs": lambda r: r.get("method") == "pa"}

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats correlate --human mqm.tsv --human-column mqm --hypotheses hyps.tsv --references refs.tsv "
    "--undefined exclude --level segment --compare delta_bleu:all,bleu:all",
    "bleustats correlate --human mqm.tsv --human-column mqm --scores segments.tsv --level segment",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``correlate`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "correlate", summary=COMMANDS["correlate"], examples=EXAMPLES,
                  description=("Pearson / Spearman / Kendall correlations of metric scores with human scores, at\n"
                               "system level and at segment level (flat, by item, by system); pairwise accuracy\n"
                               "and soft pairwise accuracy at system level; acc23 / tau23 with tie calibration;\n"
                               "rank clusters; several language pairs (an lp column) with global accuracy; and\n"
                               "Williams / paired bootstrap / permutation comparisons of two metrics (mt-\n"
                               "metrics-eval's meta-evaluation)."))
    cmd.own("--scores", action="append", metavar="TABLE", role="input", group="inputs",
            help="external metric scores: system, seg_id and one numeric column per metric (e.g. bleustats score "
                 "--segment-scores); repeatable")
    add_study_inputs(cmd, metrics=CORRELATE_METRICS, default_metrics=STUDY_METRICS, hypotheses_required=False)
    g = "correlations"
    cmd.own("--metric-column", action="append", metavar="NAME", group=g,
            help="keep only these metrics (names or labels); repeatable")
    cmd.own("--level", action="append", choices=LEVELS, group=g, help="system and/or segment (default: both)")
    cmd.own("--method", action="append", choices=METHODS, group=g,
            help="pearson, spearman, kendall, and at system level pa (pairwise accuracy) and spa (soft pairwise "
                 "accuracy); repeatable (default: pearson, spearman, kendall)")
    cmd.own("--kendall-variant", action="append", choices=VARIANTS, group=g,
            help="Kendall variants b, c, wmt, acc23, tau23; repeatable (default: b)")
    cmd.renamed("--variant", "kendall_variant", does="append", choices=VARIANTS)
    cmd.own("--tie-calibration", action="store_true", group=g,
            help="acc23 / tau23 at the metric tie threshold that maximises them (reported as threshold)")
    cmd.own("--permutations", type=positive_int, default=1000, metavar="N", group=g,
            help="permutations of SPA's paired tests (default: %(default)s)")
    cmd.own("--rank", action="store_true", group=g,
            help="rank clusters of the metrics per result column: PERM-BOTH (--samples, --seed) and "
                 "mt-metrics-eval's rule at p = 0.05")
    cmd.own("--grouping", action="append", choices=GROUPINGS, group=g,
            help="segment-level grouping flat, item, system; repeatable (default: flat)")
    cmd.own("--unmatched", choices=UNMATCHED, default="error", group=g,
            help="rated cells some metric does not score: error, or exclude and count")
    cmd.own("--compare", action="append", type=pair_of_names, metavar="A,B", group=g,
            help="compare two metrics (one-sided p for A > B); repeatable")
    cmd.own("--test", action="append", choices=("williams",) + CORRELATION_TESTS, group=g,
            help="williams, bootstrap, permutation; repeatable (default: williams, bootstrap)")
    cmd.own("--samples", type=positive_int, default=1000, metavar="N", group=g,
            help="resamples of the tests (default: 1000)")
    cmd.add("seed", default=12345)
    cmd.add("output", what="also write the JSON to FILE")
    cmd.add("replace", "json", "quiet", "progress")
    cmd.parser.set_defaults(func=run)
    return cmd


def _external(paths: list[str], column_filter: set[str] | None) -> list:
    import numpy as np
    import pandas as pd
    from ._study_inputs import read_scores_table
    from ..meta import study

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
    return guarded("correlate", _run, args, stderr, stdout=stdout, stderr=stderr)


def _run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from ..engine.io import write_atomic

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if bool(args.hypotheses) != bool(args.references):
        raise UsageError("--hypotheses and --references go together (BLEU-family metrics need both)")
    if not args.hypotheses and not args.scores:
        raise UsageError("give metrics: --scores TABLE, or --hypotheses with --references")
    if args.hypotheses:
        check_compare(args, list(dict.fromkeys(args.metrics or STUDY_METRICS)))
    else:  # external scores only: the options of the metrics computed here have nothing to apply to
        from ._options import given

        unused = [args.command_spec.flags[d] for d in ("tokenize", "lowercase", "max_ngram_order", "ref_view",
                                                      "weight_threshold", "delta_definition", "metrics")
                  if d in args.command_spec.flags and given(args, d)]
        if unused:
            raise UsageError(f"{unused[0]}: an option of the metrics computed from --hypotheses / --references; with "
                             "--scores alone nothing is computed. Drop it, or add --hypotheses and --references.")
    with reporter(args, "bleustats correlate", err):
        step("reading the tables")
        lps = _language_pairs(args)
        if lps is None:
            one = _evaluate(args, err)
            payload = {"command": "bleustats correlate", "version": __version__, **one["payload"]}
            text = _markdown(one["result"].correlations, one["comparisons"], one["ranks"])
            notes = [_note(one["result"])]
        else:
            payload, text, notes = _evaluate_lps(args, err, lps)
        if args.output:
            write_atomic(args.output, lambda p: open(p, "w", encoding="utf-8").write(
                json.dumps(payload, ensure_ascii=False, indent=1) + "\n"))
    close_all()
    print(json.dumps(payload, ensure_ascii=False, indent=1) if args.json else text, file=out)
    for note in notes if not args.quiet else ():
        print(note, file=err)
    return 0


def _note(result: Any, lp: str | None = None) -> str:
    ex = result.cells.exclusions
    return (f"bleustats correlate: {lp + ': ' if lp else ''}{len(result.systems)} systems, {len(result.cell_item)} "
            f"rated cells; excluded: {ex['human_nan_rows']} NaN rating(s), {ex['human_without_hypothesis']} rated "
            "cell(s) some metric does not score")


def _evaluate(args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    """Metrics, correlations, comparisons and ranks of one language pair's tables."""
    from ._study_inputs import StudyMetrics, read_scores_table
    from . import _study_inputs as inputs_
    from ..meta.metric_correlations import metric_correlations
    import pandas as pd
    from ..meta.rank_clusters import rank_clusters
    from ..meta import report

    keep = set(args.metric_column) if args.metric_column else None
    metrics, keys = [], {}
    if args.hypotheses:
        names = list(dict.fromkeys(args.metrics or STUDY_METRICS))
        inputs = inputs_.read_study_inputs(args, err, need_delta="delta_bleu" in names)
        options = dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order)
        # one statistics table per view for every metric; chrF++'s word columns need a table of their own
        # when chrF is asked for too (a table holds one chrF setting)
        apart = ["chrf++"] if "chrf" in names and "chrf++" in names else []
        groups = [[n for n in names if n not in apart], apart]
        views = _views(keep, names)
        for group in (g for g in groups if g):
            extra = tuple(n for n in group if n not in STUDY_METRICS)
            built = StudyMetrics(inputs, group, args, {**options, "metrics": ("bleu",) + extra} if extra else options,
                                 err, views=views)
            metrics += built.build()
            keys.update(built.keys)
        human = inputs.human
    else:
        inputs_.check_human_column(args.human_column, f"--human {args.human}")
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
                                 kendall_variants=args.kendall_variant or ("b",),
                                 groupings=args.grouping or ("flat",), unmatched=args.unmatched,
                                 tie_calibration=args.tie_calibration, n_permutations=args.permutations,
                                 seed=args.seed)

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
    ranks = rank_clusters(result, n_samples=args.samples, seed=args.seed)[0] if args.rank else None
    payload = {"systems": [str(s) for s in result.systems], "cells": int(len(result.cell_item)),
               "exclusions": result.cells.exclusions,
               "correlations": _records(result.correlations),
               "comparisons": report.records(comparisons_df) if comparisons_df is not None else []}
    if ranks is not None:
        payload["ranks"] = _rank_records(ranks)
    return {"result": result, "comparisons": comparisons_df, "ranks": ranks, "payload": payload}


def _views(keep: set[str] | None, names: list[str]) -> tuple[str, ...]:
    """Reference views to compute: those ``--metric-column name:view`` keeps, else all."""
    from ._study_inputs import VIEW_NAMES

    if keep is None:
        return VIEW_NAMES
    named = {k.split(":", 1)[1] for k in keep if ":" in k and k.split(":", 1)[0] in names}
    other = [k for k in keep if k.endswith("]")]  # a label such as 'BLEU [all]': keep every view
    if other or not named:
        return VIEW_NAMES
    return tuple(v for v in VIEW_NAMES if v in named)


# --------------------------------------------------------------------------- language pairs

_LP_INPUTS = ("human", "hypotheses", "references", "scores", "ref_weights_from")


def _language_pairs(args: argparse.Namespace) -> list[str] | None:
    """The ``lp`` values of the human table, or None when it has no ``lp`` column."""
    from ._study_inputs import read_scores_table

    raw = read_scores_table(args.human, "--human")
    if "lp" not in raw.columns:
        return None
    lps = sorted(set(raw["lp"].astype(str)))
    if not lps:
        raise InputError(f"--human {args.human}: the lp column is empty.")
    return lps


def _split_by_lp(args: argparse.Namespace, lps: list[str], folder: Path) -> dict[str, argparse.Namespace]:
    """Per language pair, ``args`` with every input table cut to that pair's rows (written under ``folder``)."""
    from ._study_inputs import read_scores_table

    per_lp = {lp: argparse.Namespace(**vars(args)) for lp in lps}
    for name in _LP_INPUTS:
        value = getattr(args, name, None)
        if not value:
            continue
        paths = value if isinstance(value, list) else [value]
        cut: dict[str, list[str]] = {lp: [] for lp in lps}
        for k, path in enumerate(paths):
            frame = read_scores_table(path, f"--{name.replace('_', '-')}")
            if "lp" not in frame.columns:
                raise InputError(f"--{name.replace('_', '-')} {path}: the human scores have an lp column, so "
                                 f"every input table needs one too (seg_id repeats across language pairs); "
                                 f"columns: {list(frame.columns)!r}.")
            lp_col = frame["lp"].astype(str)
            for lp in lps:
                target = folder / f"{name}.{k}.{lp.replace('/', '_')}.parquet"
                frame.loc[lp_col == lp].drop(columns="lp").reset_index(drop=True).to_parquet(target)
                cut[lp].append(str(target))
        for lp in lps:
            setattr(per_lp[lp], name, cut[lp] if isinstance(value, list) else cut[lp][0])
    return per_lp


def _evaluate_lps(args: argparse.Namespace, err: TextIO, lps: list[str]) -> tuple[dict, str, list[str]]:
    """Every language pair on its own, then global pairwise accuracy pooled over them."""
    import pandas as pd
    from ..meta import report

    import tempfile

    with tempfile.TemporaryDirectory(prefix="bleustats-correlate-") as tmp:
        per_lp = _split_by_lp(args, lps, Path(tmp))
        done = {lp: _evaluate(per_lp[lp], err) for lp in lps}
    frames, rank_frames, comparisons = [], [], []
    for lp, one in done.items():
        frames.append(one["result"].correlations.assign(lp=lp))
        if one["ranks"] is not None:
            rank_frames.append(one["ranks"].assign(lp=lp))
        if one["comparisons"] is not None:
            comparisons.append(one["comparisons"].assign(lp=lp))
    corr = pd.concat(frames, ignore_index=True)
    glob, glob_ranks = _global_accuracy(done, args)
    if glob is not None:
        corr = pd.concat([corr, glob], ignore_index=True)
    if glob_ranks is not None:
        rank_frames.append(glob_ranks)
    ranks = pd.concat(rank_frames, ignore_index=True) if rank_frames else None
    comp = pd.concat(comparisons, ignore_index=True) if comparisons else None
    payload = {"command": "bleustats correlate", "version": __version__, "lps": lps,
               "systems": {lp: one["payload"]["systems"] for lp, one in done.items()},
               "cells": {lp: one["payload"]["cells"] for lp, one in done.items()},
               "exclusions": {lp: one["payload"]["exclusions"] for lp, one in done.items()},
               "correlations": _records(corr),
               "comparisons": report.records(comp) if comp is not None else []}
    if ranks is not None:
        payload["ranks"] = _rank_records(ranks)
    parts = []
    for lp in lps + (["global"] if glob is not None else []):
        part_ranks = None if ranks is None else ranks[ranks["lp"] == lp]
        part_comp = None if comp is None else comp[comp["lp"] == lp]
        parts += [f"## {lp}", "", _markdown(corr[corr["lp"] == lp], part_comp, part_ranks), ""]
    if glob is not None:
        parts.append("global: pairwise accuracy pooled over the language pairs (agreements / system pairs).")
    return payload, "\n".join(parts).rstrip(), [_note(one["result"], lp) for lp, one in done.items()]


def _global_accuracy(done: dict[str, dict], args: argparse.Namespace
                     ) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Global accuracy rows (lp 'global') of the metrics every pair has, and their rank clusters."""
    import numpy as np
    import pandas as pd

    pa = [one["result"].correlations.query("method == 'pa'").assign(lp=lp) for lp, one in done.items()]
    pa = [f for f in pa if len(f)]
    if len(pa) != len(done):
        return None, None
    both = pd.concat(pa, ignore_index=True)
    shared = [lab for lab in dict.fromkeys(both["label"]) if (both["label"] == lab).sum() == len(done)]
    rows = []
    for lab in shared:
        sub = both[both["label"] == lab]
        agree, pairs = int(sub["agreements"].sum()), int(sub["pairs"].sum())
        rows.append({"label": lab, "level": "system", "method": "pa", "variant": None, "grouping": "flat",
                     "value": agree / pairs if pairs else np.nan, "n": int(sub["n"].sum()), "n_groups": len(done),
                     "n_skipped": 0, "tie_calibrated": False, "threshold": np.nan, "permutations": np.nan,
                     "agreements": agree, "pairs": pairs, "lp": "global"})
    glob = pd.DataFrame(rows)
    if not args.rank or not rows:
        return glob, None
    from ..meta.rank_clusters import assign_ranks, pa_permutation_test

    def stacked(label: str) -> np.ndarray:
        return np.concatenate([one["result"].system_scores[label] for one in done.values()])

    groups = np.concatenate([np.full(len(one["result"].systems), k) for k, one in enumerate(done.values())])
    order = glob.assign(_nan=glob["value"].isna()).sort_values(["_nan", "value", "label"],
                                                                ascending=[True, False, True])
    labels = order["label"].tolist()
    sig = np.ones((len(labels), len(labels)))
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            sig[a, b] = pa_permutation_test(stacked(labels[a]), stacked(labels[b]), stacked("human"), groups=groups,
                                            n_samples=args.samples, seed=args.seed)
    ranks = pd.DataFrame({"level": "system", "method": "pa", "variant": None, "grouping": "flat", "label": labels,
                          "value": order["value"].tolist(), "rank": assign_ranks(sig), "lp": "global"})
    return glob, ranks


def _rank_records(ranks: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON records of rank clusters: ranks as ints, None where not ranked."""
    from ..meta import report

    return [{**r, "rank": None if r["rank"] is None else int(r["rank"])} for r in report.records(ranks)]


def _records(correlations: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON records of the correlations; optional keys only where they apply."""
    from ..meta import report

    return [{k: v for k, v in r.items() if k not in _OPTIONAL or _OPTIONAL[k](r)}
            for r in report.records(correlations)]


def _cell(value: float, threshold: float) -> str:
    import numpy as np

    text = "undefined*" if not np.isfinite(value) else f"{value:.3f}"
    return text + (f" (ε={threshold:.4g})" if np.isfinite(threshold) else "")


def _columns(frame: pd.DataFrame) -> list[str]:
    return [f"{lv} {m}{'-' + v if isinstance(v, str) else ''}{'' if g == 'flat' else ' by ' + g}"
            for lv, m, v, g in zip(frame["level"], frame["method"], frame["variant"], frame["grouping"])]


def _markdown(correlations: pd.DataFrame, comparisons: pd.DataFrame | None, ranks: pd.DataFrame | None = None
              ) -> str:
    import numpy as np
    from ..meta import report

    frame = correlations.copy()
    frame["column"] = _columns(frame)
    frame["shown"] = [_cell(v, t) for v, t in zip(frame["value"], frame["threshold"])]
    table = frame.pivot(index="label", columns="column", values="shown")
    table = table.loc[list(dict.fromkeys(frame["label"])), list(dict.fromkeys(frame["column"]))]
    table.index.name = "metric"
    parts = [report.markdown_table(table)]
    if frame["tie_calibrated"].any():
        parts += ["", "ε: the metric tie threshold chosen by tie calibration (differences <= ε are ties)."]
    undefined = frame[~np.isfinite(frame["value"].to_numpy(float))]
    if len(undefined):  # say why, as the JSON's n / n_groups / n_skipped do
        parts += ["", "* undefined: every group was skipped (a side constant, e.g. a metric or human score that is "
                  "the same for all, or fewer than 2 pairs): " + "; ".join(
                      f"{r.label}, {r.column}: {r.n_skipped} of {r.n_groups + r.n_skipped} group(s) skipped, "
                      f"{r.n} pair(s)" for r in undefined.itertuples())]
    if ranks is not None and len(ranks):
        rk = ranks.assign(column=_columns(ranks),
                          shown=[("–" if r is None or not np.isfinite(r) else str(int(r))) for r in ranks["rank"]])
        rtable = rk.pivot(index="label", columns="column", values="shown")
        rtable = rtable.loc[list(dict.fromkeys(frame["label"])), list(dict.fromkeys(frame["column"]))]
        rtable.index.name = "metric"
        parts += ["", "Rank clusters (PERM-BOTH, p <= 0.05; – : not ranked):", "", report.markdown_table(rtable)]
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
