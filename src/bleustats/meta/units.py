r"""The metrics of a correlation study and the cells they are compared on.

A :class:`UnitMetric` scores a *unit* of segments of one system from one row of
inputs per (system, segment): a corpus score of the unit's summed statistics
(:func:`corpus_metric`: BLEU, ΔBLEU), or the mean of a per-segment score
(:func:`sentence_mean_metric`: sBLEU; :func:`mean_metric`: any external score).

:func:`study_cells` joins the metrics with the human scores once: which rated
(system, segment) cells every metric has a row for, the mean human score of
each cell (raters averaged), and the system pairs with the cells they share.
:meth:`StudyCells.unit_differences` then gives the metric and human
differences of any units of a pair, summing the statistics of each unit with
one kernel call (:func:`bleustats.meta.rank_stats.sum_units`; columns shared by
several metrics, such as lengths, are summed once). Both the study
(:mod:`bleustats.meta.study`) and its paired comparison
(:mod:`bleustats.meta.study_compare`) work from these cells.

Examples
--------
>>> import pandas as pd
>>> m = mean_metric(["A", "A", "B", "B"], [0, 1, 0, 1], [1.0, 2.0, 0.5, 3.0], metric="toy")
>>> human = pd.DataFrame({"system": ["A", "A", "B", "B"], "seg_id": [0, 1, 0, 1], "score": [1.0, 0, 0, 1]})
>>> cells = study_cells([m], human)
>>> cells.pair_names, cells.n_cells
([('A', 'B')], 4)
>>> x, y = cells.unit_differences(0, np.array([[[0, 1]]]), 2)
>>> x[0].tolist(), y.tolist()                     # (1 + 2)/2 - (0.5 + 3)/2, (1 + 0)/2 - (0 + 1)/2
([[-0.25]], [[0.0]])
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from .._validate import describe_ids, renamed_keywords
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics.tables import OTHER_METRICS, score_signature, table_metric
from ..metrics.formula import (bleu_scores, check_scoring_options, count_columns, exp_bleu_scores_of_columns,
                               exp_bleu_scores_of_rows)
from ..metrics.results import BLEUSignature, Signature
from ..metrics.sentence import score_variant
from .rank_stats import sum_units
from ._options import UNMATCHED

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HUMAN_COLUMNS",
    "METRIC_KINDS",
    "REF_VIEW_LABELS",
    "UNMATCHED",
    "StudyCells",
    "UnitMetric",
    "corpus_metric",
    "mean_metric",
    "metric_list",
    "sentence_mean_metric",
    "study_cells",
]

#: Columns of the human scores table (one row per rating; extra columns are ignored).
HUMAN_COLUMNS = ("system", "seg_id", "score")
#: How a unit is scored: a corpus score of summed statistics, or the mean of per-segment scores.
METRIC_KINDS = ("corpus", "mean")
#: Column labels of the ΔBLEU paper's Table 2 for each ``ref_view`` of a statistics table.
REF_VIEW_LABELS = {"first": "single", "threshold": "w≥θ", "all": "all"}


# --------------------------------------------------------------------------- metrics


@dataclass(frozen=True, eq=False)
class UnitMetric:
    r"""A metric of a unit of segments, with one row of inputs per (system, segment).

    Build it with :func:`corpus_metric`, :func:`sentence_mean_metric` or
    :func:`mean_metric`.

    Attributes
    ----------
    metric : str
        Row label of Table 2 (``'BLEU'``, ``'ΔBLEU'``, ``'sBLEU'``, ...).
    refs : str
        Column label of Table 2 (``'single'``, ``'w≥0.5'``, ``'all'``, ...).
    kind : {'corpus', 'mean'}
        ``'corpus'``: ``values`` holds ``[hyp_len, ref_len, correct_1..N,
        total_1..N]`` and a unit's score is BLEU of the column sums (numerators
        clamped at 0 when ``clamp``); ``'mean'``: ``values`` holds one score per
        row and a unit's score is their mean.
    system, seg_id : numpy.ndarray
        Row keys (str, int64); one row per (system, seg_id).
    values : numpy.ndarray of float64, shape (n_rows, k)
    max_ngram_order : int
        N for ``'corpus'`` (0 for ``'mean'``).
    clamp : bool
        Clamp summed numerators at 0 (ΔBLEU).
    options : dict
        ``smooth_method``, ``smooth_value``, ``use_effective_order`` of the
        corpus score.
    signature : Signature
        How the values were made.
    """

    metric: str
    refs: str
    kind: str
    system: NDArray[np.object_]
    seg_id: NDArray[np.int64]
    values: NDArray[np.float64]
    max_ngram_order: int = 0
    clamp: bool = False
    options: dict = field(default_factory=dict)
    signature: Signature = field(default_factory=Signature.from_fields)
    #: scores of summed ``values`` for chrF / TER units (None: BLEU of the sums)
    scorer: Any = None
    #: False for metrics where lower is better (TER): meta-evaluation negates their scores
    higher_is_better: bool = True

    @property
    def label(self) -> str:
        """``'metric [refs]'``: the metric's name in results."""
        return f"{self.metric} [{self.refs}]"

    def unit_scores(self, sums: NDArray[np.float64], unit_size: int) -> NDArray[np.float64]:
        r"""Scores of units from their summed ``values`` (shape (..., k) → (...)).

        .. math::

            m(U) = \mathrm{BLEU}\Big(\sum_{i \in U} v_i\Big) \ \text{(corpus)}, \qquad
            m(U) = \frac{1}{M} \sum_{i \in U} v_i \ \text{(mean)}

        Examples
        --------
        >>> m = mean_metric(["A", "A"], [0, 1], [10.0, 20.0], metric="s")
        >>> m.unit_scores(np.array([[30.0]]), 2).tolist()
        [15.0]
        """
        if self.kind == "mean":
            return sums[..., 0] / unit_size
        if self.scorer is not None:
            return self.scorer(sums)
        n = self.max_ngram_order
        if self.options.get("smooth_method") == "exp" and not self.options.get("use_effective_order"):
            scores = exp_bleu_scores_of_columns(sums, n, clamp=self.clamp)
            if scores is not None:
                return scores
        correct = sums[..., 2:2 + n]
        if self.clamp:
            correct = np.maximum(correct, 0.0)
        return bleu_scores(correct, sums[..., 2 + n:2 + 2 * n], sums[..., 0], sums[..., 1], **self.options)


def _scores_of_rows(metric: UnitMetric, cols: NDArray[np.float64], idx: NDArray[np.int64],
                    unit_size: int, memo: dict | None = None) -> NDArray[np.float64]:
    """``metric.unit_scores`` of units whose summed values are rows ``idx`` of ``cols`` (k, units).

    ``memo`` (one dict per ``cols``): unit BLEU of the same rows with the same clamping is
    computed once (e.g. ΔBLEU of one reference of weight 1 is BLEU), its brevity penalties
    shared (:func:`~bleustats.metrics.formula.exp_bleu_scores_of_rows`).
    """
    if metric.kind == "mean":
        return cols[idx[0]] / unit_size
    if metric.scorer is None and metric.options.get("smooth_method") == "exp" \
            and not metric.options.get("use_effective_order") and len(idx) == 2 + 2 * metric.max_ngram_order:
        rows = np.ascontiguousarray(idx, dtype=np.int64)
        key = ("bleu", bool(metric.clamp), rows.tobytes())
        scores = None if memo is None else memo.get(key)
        if scores is None:
            scores = exp_bleu_scores_of_rows(cols, rows, clamp=metric.clamp, memo=memo)
            if memo is not None and scores is not None:
                memo[key] = scores
        if scores is not None:
            return scores
    return metric.unit_scores(np.moveaxis(cols[idx], 0, -1), unit_size)


def _as_tables(stats: StatsTable | Sequence[StatsTable]) -> list[StatsTable]:
    tables = [stats] if isinstance(stats, StatsTable) else list(stats)
    if not tables or not all(isinstance(t, StatsTable) for t in tables):
        kinds = "" if isinstance(stats, StatsTable) else f" of {[type(t).__name__ for t in tables][:3]!r}"
        raise InputError(
            "stats must be a bleustats.StatsTable or a non-empty list of them (from compute_stats); got "
            f"{type(stats).__name__}{kinds}."
        )
    first = tables[0]
    for t in tables[1:]:
        for attr in ("max_ngram_order", "tokenize", "lowercase", "ref_view", "weight_threshold", "delta_definition"):
            if getattr(t, attr) != getattr(first, attr):
                raise InputError(
                    f"stats: all tables of one metric need the same settings; {attr} is "
                    f"{getattr(first, attr)!r} in the first and {getattr(t, attr)!r} in another. "
                    "Compute them with the same options."
                )
    return tables


def _refs_label(stats: StatsTable, refs: str | None) -> str:
    if refs is not None:
        return refs
    if stats.ref_view == "threshold":
        return f"w≥{stats.weight_threshold:g}"
    return REF_VIEW_LABELS.get(stats.ref_view, stats.ref_view)


def _keys(tables: list[StatsTable]) -> tuple[NDArray[np.object_], NDArray[np.int64]]:
    system = np.concatenate([np.asarray(t.column("system"), dtype=object) for t in tables])
    seg = np.concatenate([np.asarray(t.column("seg_id"), dtype=np.int64) for t in tables])
    return system, seg


def _order_arg(max_ngram_order: Any, table_order: int) -> int:
    n = table_order if max_ngram_order is None else max_ngram_order
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= table_order:
        raise InputError(
            f"max_ngram_order must be an integer from 1 to the table's order {table_order}; got "
            f"{max_ngram_order!r}. "
            "Compute the statistics with a larger max_ngram_order for higher orders."
        )
    return int(n)


@renamed_keywords(max_order="max_ngram_order")
def corpus_metric(
    stats: StatsTable | Sequence[StatsTable],
    *,
    metric: str = "bleu",
    max_ngram_order: int | None = None,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
    name: str | None = None,
    refs: str | None = None,
) -> UnitMetric:
    r"""BLEU or ΔBLEU of a unit from its summed statistics (as :func:`~bleustats.metrics.tables.corpus_score`).

    .. math::

        m(U) = \mathrm{BLEU}\Big(\sum_{i \in U} c_i,\ \sum_{i \in U} t_i,\
               \sum_{i \in U} |h_i|,\ \sum_{i \in U} r_i\Big)

    with :math:`c, t` the per-order matches and totals (``wmatch`` /
    ``wtotal`` for ΔBLEU, whose summed numerators are clamped at 0).

    Parameters
    ----------
    stats : StatsTable or list of StatsTable
        One row per (system, segment); several tables (same settings) are
        concatenated, e.g. one system scored against other references.
    metric : {'bleu', 'delta_bleu', 'chrf', 'chrf++', 'ter'}
        chrF / TER need their columns (``compute_stats(..., metrics=...)``); a
        unit's score is then their formula on the summed columns (TER: lower is better).
    max_ngram_order : int, optional
        Order N (default: the table's); lower orders use the first N columns.
    smooth_method, smooth_value, use_effective_order, ref_length
        As in :func:`bleustats.metrics.tables.corpus_score`.
    name : str, optional
        Row label (default ``'BLEU'`` / ``'ΔBLEU'``, with ``'-N'`` when N is
        not the table's).
    refs : str, optional
        Column label (default from the table's ``ref_view``:
        :data:`REF_VIEW_LABELS`).

    Returns
    -------
    UnitMetric

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> m = corpus_metric(compute_stats(["a b c"], [["a b d"]], tokenize="none"), max_ngram_order=2)
    >>> m.label, m.values.tolist()
    ('BLEU-2 [all]', [[3.0, 3.0, 2.0, 1.0, 3.0, 2.0]])
    """
    tables = _as_tables(stats)
    if metric in OTHER_METRICS:  # chrF / TER of the unit: their formula on the summed columns
        obj, _ = table_metric(tables[0], metric)
        values = np.concatenate([np.asarray(table_metric(t, metric)[1], np.float64) for t in tables])
        fields = [(k, ("yes" if v else "no") if isinstance(v, bool) else v)
                  for k, v in obj.get_signature().info.items() if v is not None and k != "version"]
        system, seg = _keys(tables)
        return UnitMetric(metric=name or obj._aggregate_and_compute(values[:1]).name, refs=_refs_label(tables[0], refs),
                          kind="corpus", system=system, seg_id=seg, values=values, scorer=obj.scores_from_sums,
                          higher_is_better=metric != "ter",
                          signature=Signature.from_fields(("metric", metric), *fields))
    check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                          ref_length=ref_length)
    first = tables[0]
    n = _order_arg(max_ngram_order, first.max_ngram_order)
    if metric == "delta_bleu":
        for t in tables:
            bad = t.column("ref_weight_max") <= 0
            if bad.any():
                seg = np.unique(t.column("seg_id")[bad])
                raise InputError(
                    f"stats: metric='delta_bleu' needs a reference of positive weight in every segment; "
                    f"{len(seg)} segment(s) have none (seg_id {describe_ids(seg)}). Leave those "
                    "segments out of every metric's statistics (StatsTable.select) so the metrics share segments."
                )
    nums, dens = count_columns(metric, n)
    cols = ["hyp_len", f"ref_len_{ref_length}", *nums, *dens]
    values = np.concatenate(
        [np.stack([np.asarray(t.column(c), dtype=np.float64) for c in cols], axis=1) for t in tables]
    ) if sum(len(t) for t in tables) else np.zeros((0, len(cols)))
    sig = replace(
        score_signature(first, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                        use_effective_order=use_effective_order, ref_length=ref_length),
        nrefs=first.n_refs_label if len(tables) == 1 and len(first) else "var", max_ngram_order=n,
        weights="custom" if any(t.weights == "custom" for t in tables) else "uniform")
    label = name or ("ΔBLEU" if metric == "delta_bleu" else "BLEU") + ("" if n == first.max_ngram_order else f"-{n}")
    system, seg = _keys(tables)
    return UnitMetric(metric=label, refs=_refs_label(first, refs), kind="corpus", system=system, seg_id=seg,
                      values=values, max_ngram_order=n, clamp=metric == "delta_bleu",
                      options=dict(smooth_method=smooth_method, smooth_value=smooth_value,
                                   use_effective_order=use_effective_order),
                      signature=sig)


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def sentence_mean_metric(
    stats: StatsTable | Sequence[StatsTable],
    variant: str = "sacrebleu:exp",
    *,
    metric: str = "bleu",
    max_ngram_order: int | None = None,
    ref_length: str = "closest",
    name: str = "sBLEU",
    refs: str | None = None,
    **options: Any,
) -> UnitMetric:
    r"""Mean over the unit of a sentence-level variant (:func:`bleustats.metrics.sentence.score_variant`).

    .. math::

        m(U) = \frac{1}{M} \sum_{i \in U} \mathrm{sBLEU}(h_i)

    ``variant`` is a registry name of :mod:`bleustats.metrics.sentence` (default
    ``'sacrebleu:exp'``: ``sacrebleu.sentence_bleu``'s exp smoothing and
    effective order); ``metric='delta_bleu'`` scores ΔBLEU statistics.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> m = sentence_mean_metric(compute_stats(["a b c"], [["a b c"]], tokenize="none"), "bleu+1")
    >>> m.label, m.values.round(1).tolist()
    ('sBLEU [all]', [[100.0]])
    """
    tables = _as_tables(stats)
    n = _order_arg(max_ngram_order, tables[0].max_ngram_order)
    scores = np.concatenate([score_variant(t, variant, metric=metric, ref_length=ref_length,
                                           max_ngram_order=n, **options) for t in tables])
    system, seg = _keys(tables)
    first = tables[0]
    sig = BLEUSignature(nrefs=first.n_refs_label if len(tables) == 1 and len(first) else "var",
                         tokenize=first.tokenize, lowercase=first.lowercase, max_ngram_order=n,
                         ref_view=first.ref_view, weight_threshold=first.weight_threshold, weights=first.weights,
                         metric=metric,
                         delta_definition=first.delta_definition if metric == "delta_bleu" else None,
                         ref_length=ref_length, extra=(("sentence", variant),))
    return mean_metric(system, seg, scores, metric=name, refs=_refs_label(first, refs), signature=sig)


def mean_metric(
    system: Sequence[str] | NDArray[Any],
    seg_id: Sequence[int] | NDArray[Any],
    scores: Sequence[float] | NDArray[Any],
    *,
    metric: str,
    refs: str = "all",
    signature: Signature | str | None = None,
) -> UnitMetric:
    r"""Mean over the unit of any per-(system, segment) score (an external metric, say).

    .. math::

        m(U) = \frac{1}{M} \sum_{i \in U} s_i

    ``signature`` says how the scores were made: a :class:`Signature`, or a
    string recorded as its ``mean:`` field (default: the metric's label).

    Examples
    --------
    >>> mean_metric(["A", "B"], [1, 1], [0.5, 0.25], metric="chrF").values.ravel().tolist()
    [0.5, 0.25]
    """
    system = np.asarray(system, dtype=object)
    seg = np.asarray(seg_id)
    values = np.asarray(scores, dtype=np.float64)
    if not (system.ndim == seg.ndim == values.ndim == 1 and len(system) == len(seg) == len(values)):
        raise InputError(f"system, seg_id and scores must be 1-D and of one length; got shapes {system.shape}, "
                         f"{seg.shape} and {values.shape}.")
    if len(seg) and not np.issubdtype(seg.dtype, np.integer):
        raise InputError(f"seg_id must hold integers; got dtype {seg.dtype}. Map segment keys to integers first.")
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(f"scores: {int(bad.sum())} value(s) are NaN or infinite (first at row "
                         f"{int(np.flatnonzero(bad)[0])}); a metric must score every row. Drop those rows.")
    if not isinstance(metric, str) or not metric:
        raise InputError(f"metric must be a non-empty label; got {metric!r}.")
    return UnitMetric(metric=metric, refs=refs, kind="mean", system=system, seg_id=seg.astype(np.int64),
                      values=values[:, None],
                      signature=signature if isinstance(signature, Signature)
                      else Signature.from_fields(mean=signature or metric))


# --------------------------------------------------------------------------- inputs


def _human_frame(human: Any) -> "pd.DataFrame":
    import pandas as pd

    if isinstance(human, pa.Table):
        human = human.to_pandas()
    if not isinstance(human, pd.DataFrame):
        raise InputError(f"human must be a pandas DataFrame or Arrow table with columns {', '.join(HUMAN_COLUMNS)}; "
                         f"got {type(human).__name__}.")
    problems = [f"{c} (missing)" for c in HUMAN_COLUMNS if c not in human.columns]
    if "seg_id" in human.columns and len(human) and not pd.api.types.is_integer_dtype(human["seg_id"]):
        problems.append(f"seg_id (want integers, got {human['seg_id'].dtype})")
    if "score" in human.columns and not pd.api.types.is_numeric_dtype(human["score"]):
        problems.append(f"score (want numbers, got {human['score'].dtype})")
    if "system" in human.columns and human["system"].isna().any():
        problems.append(f"system ({int(human['system'].isna().sum())} missing value(s))")
    if "score" in human.columns and pd.api.types.is_numeric_dtype(human["score"]) \
            and np.isinf(human["score"].to_numpy(dtype=np.float64)).any():
        # NaN means "not rated" and is dropped and counted; an infinity is a broken score
        problems.append(f"score ({int(np.isinf(human['score'].to_numpy(dtype=np.float64)).sum())} infinite value(s))")
    if problems:
        raise InputError("human: " + "; ".join(problems) + ". Give one row per rating with columns "
                         f"{', '.join(HUMAN_COLUMNS)} (several raters of a cell are averaged).")
    return human


def metric_list(metrics: Any) -> list[UnitMetric]:
    """``metrics`` (a list, a mapping or one UnitMetric) as a list with unique labels; errors otherwise."""
    if isinstance(metrics, UnitMetric):
        metrics = [metrics]
    if isinstance(metrics, Mapping):
        metrics = list(metrics.values())
    metrics = list(metrics)
    if not metrics or not all(isinstance(m, UnitMetric) for m in metrics):
        raise InputError("metrics must be a non-empty list of UnitMetric (corpus_metric, sentence_mean_metric, "
                         f"mean_metric); got {[type(m).__name__ for m in metrics][:5]!r}.")
    labels = [m.label for m in metrics]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"metrics: labels must be unique; {dup!r} occur more than once. Pass name= or refs= "
                         "to corpus_metric / sentence_mean_metric to tell them apart.")
    return metrics


def _describe_cells(systems: NDArray[Any], segs: NDArray[Any], limit: int = 5) -> str:
    shown = ", ".join(f"({str(s)!r}, {int(g)})" for s, g in zip(systems[:limit], segs[:limit]))
    return shown + (f" and {len(systems) - limit} more" if len(systems) > limit else "")


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True, eq=False)
class StudyCells:
    """Rated (system, segment) cells that every metric scores, and the system pairs over them.

    Attributes
    ----------
    metrics : list of UnitMetric
    systems : numpy.ndarray of str
        Every system name of the inputs, sorted; cells refer to them by index.
    segments : numpy.ndarray of int64
        Every seg_id of the inputs, sorted; cells refer to them by index.
    cell_system, cell_segment : numpy.ndarray of int64, shape (n_cells,)
        The cells, sorted by (system, segment).
    human : numpy.ndarray of float64, shape (n_cells,)
        Mean human score of each cell (its raters averaged).
    rows : list of numpy.ndarray of int64
        For each metric, the row of its ``values`` that holds each cell.
    pair_names : list of (str, str)
    pair_a, pair_b : list of numpy.ndarray of int64
        For each pair, the cells of system A and of system B on the segments
        they share, aligned (same segment at the same position).
    exclusions : dict
        ``human_nan_rows`` and ``human_without_hypothesis`` (see
        :func:`study_cells`).
    """

    metrics: list
    systems: NDArray[Any]
    segments: NDArray[np.int64]
    cell_system: NDArray[np.int64]
    cell_segment: NDArray[np.int64]
    human: NDArray[np.float64]
    rows: list
    pair_names: list
    pair_a: list
    pair_b: list
    exclusions: dict
    _columns: dict = field(default_factory=dict, repr=False)

    @property
    def n_cells(self) -> int:
        """Number of rated cells every metric scores."""
        return int(len(self.human))

    def shared_segments(self, p: int) -> NDArray[np.int64]:
        """Segment indices (into ``segments``) of the cells pair ``p`` shares, in cell order."""
        return self.cell_segment[self.pair_a[p]]

    def _pair_columns(self, p: int, which: tuple[int, ...]):
        """Distinct value columns of pair p for the metrics ``which`` (cached)."""
        key = (p, which)
        if key not in self._columns:
            ca, cb = self.pair_a[p], self.pair_b[p]
            blocks, spans, width_sum = [], [], 0
            for k in which:
                m, r = self.metrics[k], self.rows[k]
                blocks += [m.values[r[ca]], m.values[r[cb]]]
                spans.append((width_sum, m.values.shape[1]))
                width_sum += 2 * m.values.shape[1]
            blocks += [self.human[ca][:, None], self.human[cb][:, None]]
            x_all = np.concatenate(blocks, axis=1)
            # identical columns (lengths and totals shared by several metrics) are summed once
            first_of: dict[bytes, int] = {}
            inverse = np.array([first_of.setdefault(x_all[:, j].tobytes(), len(first_of))
                                for j in range(x_all.shape[1])])
            distinct = np.unique(inverse, return_index=True)[1]
            self._columns[key] = (np.ascontiguousarray(x_all[:, distinct]), inverse, spans)
        return self._columns[key]

    def stacked_values(self, metrics: Sequence[int]) -> tuple[NDArray[np.float64], NDArray[np.int64], list]:
        """Value columns of every pair, stacked: rows ``offsets[p]:offsets[p + 1]`` are pair ``p``'s cells.

        Columns as in :meth:`unit_differences` (for each metric A's then B's
        values, then A's and B's human score); returns ``(values, offsets,
        spans)`` with ``spans[i] = (first column, width)`` of metric ``i``. Units
        of several pairs can then be summed with one kernel call.
        """
        which = tuple(int(k) for k in metrics)
        key = ("stacked", which)
        if key not in self._columns:
            blocks = []
            for p in range(len(self.pair_names)):
                ca, cb = self.pair_a[p], self.pair_b[p]
                cols = []
                for k in which:
                    cols += [self.metrics[k].values[self.rows[k][ca]], self.metrics[k].values[self.rows[k][cb]]]
                cols += [self.human[ca][:, None], self.human[cb][:, None]]
                blocks.append(np.concatenate(cols, axis=1))
            spans, start = [], 0
            for k in which:
                w = self.metrics[k].values.shape[1]
                spans.append((start, w))
                start += 2 * w
            offsets = np.concatenate([[0], np.cumsum([len(b) for b in blocks])]).astype(np.int64)
            self._columns[key] = (np.ascontiguousarray(np.concatenate(blocks)), offsets, spans)
        return self._columns[key]

    def differences_from_sums(self, sums: NDArray[np.float64], metrics: Sequence[int], spans: list,
                              unit_size: int, columns: NDArray[np.int64] | None = None
                              ) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
        """Metric and human differences of units from their summed :meth:`stacked_values` columns.

        ``sums`` has shape (..., k); with ``columns``, its columns are distinct ones
        and column ``c`` of :meth:`stacked_values` is ``sums[..., columns[c]]``.
        """
        shape = sums.shape[:-1]
        # the kernels' (k, units) layout: a view of the unit sums as cut_unit_sums returns them
        cols = np.ascontiguousarray(np.moveaxis(sums, -1, 0)).reshape(sums.shape[-1], -1)
        idx = np.arange(cols.shape[0], dtype=np.int64) if columns is None else np.asarray(columns, np.int64)
        diffs, hy = self._differences_of_rows(cols, idx, metrics, spans, unit_size)
        return [d.reshape(shape) for d in diffs], hy.reshape(shape)

    def _differences_of_rows(self, cols: NDArray[np.float64], idx: NDArray[np.int64], metrics: Sequence[int],
                             spans: list, unit_size: int) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
        """Differences of units whose column c is row ``idx[c]`` of ``cols`` (k, units)."""
        memo: dict = {}  # scores and brevity penalties that several metrics share
        with np.errstate(all="ignore"):  # padded (empty) units may divide by zero: callers mask them
            diffs = [_scores_of_rows(self.metrics[int(k)], cols, idx[s:s + w], unit_size, memo)
                     - _scores_of_rows(self.metrics[int(k)], cols, idx[s + w:s + 2 * w], unit_size, memo)
                     for k, (s, w) in zip(metrics, spans)]
            return diffs, cols[idx[-2]] / unit_size - cols[idx[-1]] / unit_size

    def unit_differences(self, p: int, units: NDArray[np.int64], unit_size: int,
                         metrics: Sequence[int] | None = None
                         ) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
        r"""Metric and human differences of units of pair ``p``.

        .. math::

            x_U = m(A, U) - m(B, U), \qquad y_U = \bar h(A, U) - \bar h(B, U)

        Parameters
        ----------
        p : int
            Pair index.
        units : numpy.ndarray of int64, shape (rows, U, M)
            Positions among the pair's shared cells (0 .. n_shared-1); -1 marks
            no item (such a unit's values are meaningless: mask them).
        unit_size : int
            M (the divisor of mean metrics and of the human mean).
        metrics : sequence of int, optional
            Which metrics (indices into ``metrics``; default all).

        Returns
        -------
        (list of arrays of shape (rows, U), array of shape (rows, U))
        """
        which = tuple(range(len(self.metrics))) if metrics is None else tuple(int(k) for k in metrics)
        values, inverse, spans = self._pair_columns(p, which)
        sums = sum_units(values, units)  # the distinct columns: (rows, U, k), laid out (k, rows, U)
        shape = sums.shape[:-1]
        cols = np.ascontiguousarray(np.moveaxis(sums, -1, 0)).reshape(sums.shape[-1], -1)
        diffs, hy = self._differences_of_rows(cols, inverse.astype(np.int64), which, spans, unit_size)
        return [d.reshape(shape) for d in diffs], hy.reshape(shape)


def study_cells(
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | UnitMetric,
    human: "pd.DataFrame | pa.Table",
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    unmatched: str = "error",
    unit_size: int = 1,
) -> StudyCells:
    """Join the metrics with the human scores: the cells and system pairs of a study.

    Human rows with a NaN score are dropped and counted (``human_nan_rows``);
    ratings of one (system, segment) cell are averaged. A rated cell without a
    row in some metric is an error naming it, or with ``unmatched='exclude'``
    left out of every metric and counted (``human_without_hypothesis``).
    Pairs: all pairs of rated systems (sorted) sharing a rated segment, or the
    given ``pairs``; every pair must share at least ``unit_size`` segments.

    Raises
    ------
    InputError
        Bad tables, unmatched cells (with ``unmatched='error'``), unknown or
        disjoint pairs, pairs sharing fewer than ``unit_size`` segments.
    """
    if unmatched not in UNMATCHED:
        raise InputError(f"unmatched must be 'error' or 'exclude'; got {unmatched!r}.")
    metrics = metric_list(metrics)
    h = _human_frame(human)
    nan_rows = int(h["score"].isna().sum())
    h = h.loc[h["score"].notna(), list(HUMAN_COLUMNS)]
    if len(h) == 0:
        raise InputError(f"human: no rating with a score ({nan_rows} NaN row(s)); give human scores.")

    # one code per system and per segment over every input
    systems = np.unique(np.concatenate([h["system"].to_numpy(dtype=object).astype(str)]
                                       + [m.system.astype(str) for m in metrics]))
    segments = np.unique(np.concatenate([h["seg_id"].to_numpy(np.int64)] + [m.seg_id for m in metrics]))
    n_seg = len(segments)

    def key_of(system: NDArray[Any], seg: NDArray[Any]) -> NDArray[np.int64]:
        return np.searchsorted(systems, system.astype(str)).astype(np.int64) * n_seg + np.searchsorted(segments, seg)

    grouped = h.assign(_key=key_of(h["system"].to_numpy(dtype=object), h["seg_id"].to_numpy(np.int64))) \
        .groupby("_key", sort=True)["score"].mean()
    hkeys = grouped.index.to_numpy(np.int64)
    hmean = grouped.to_numpy(np.float64)

    # which row of each metric holds each rated cell
    rows = []
    missing = np.zeros(len(hkeys), dtype=bool)
    for m in metrics:
        mkeys = key_of(m.system, m.seg_id)
        order = np.argsort(mkeys, kind="stable")
        sk = mkeys[order]
        dup = np.flatnonzero(sk[1:] == sk[:-1])
        if dup.size:
            d = order[dup]
            raise InputError(
                f"metrics: {m.label!r} has {dup.size} duplicate (system, seg_id) row(s), e.g. "
                f"{_describe_cells(m.system[d], m.seg_id[d])}; a study needs one hypothesis per system and "
                "segment. Keep one (e.g. the 1-best of a k-best list)."
            )
        pos = np.searchsorted(sk, hkeys)
        found = pos < len(sk)
        found[found] = sk[pos[found]] == hkeys[found]
        rows.append(np.where(found, order[np.minimum(pos, max(len(sk) - 1, 0))] if len(sk) else 0, -1))
        if not found.all():
            lost = hkeys[~found & ~missing]
            if unmatched == "error" and lost.size:
                sys_l, seg_l = systems[lost // n_seg], segments[lost % n_seg]
                absent = sorted({str(x) for x in systems[hkeys[~found] // n_seg]} - set(m.system.astype(str)))
                extra = f" Systems with no hypothesis at all: {absent!r}." if absent else ""
                raise InputError(
                    f"human: {int((~found).sum())} rated (system, seg_id) cell(s) have no hypothesis in metric "
                    f"{m.label!r}: {_describe_cells(sys_l, seg_l)}.{extra} Check the system names and segment "
                    "ids, drop those ratings, or pass unmatched='exclude' (command line: --unmatched exclude) to "
                    "leave them out (they are counted in result.exclusions['human_without_hypothesis'])."
                )
            missing |= ~found
    keep = ~missing
    hkeys, hmean = hkeys[keep], hmean[keep]
    rows = [r[keep] for r in rows]
    cell_sys = hkeys // n_seg
    cell_seg = hkeys % n_seg

    # the system pairs and their shared segments (cells sorted by (system, segment))
    sys_start = np.searchsorted(cell_sys, np.arange(len(systems) + 1))
    rated = [i for i in range(len(systems)) if sys_start[i + 1] > sys_start[i]]

    def shared(i: int, j: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        a = np.arange(sys_start[i], sys_start[i + 1])
        b = np.arange(sys_start[j], sys_start[j + 1])
        _, ia, ib = np.intersect1d(cell_seg[a], cell_seg[b], assume_unique=True, return_indices=True)
        return a[ia], b[ib]

    pair_cells: list[tuple[str, str, NDArray[np.int64], NDArray[np.int64]]] = []
    if pairs is None:
        for x in range(len(rated)):
            for z in range(x + 1, len(rated)):
                ca, cb = shared(rated[x], rated[z])
                if len(ca):
                    pair_cells.append((str(systems[rated[x]]), str(systems[rated[z]]), ca, cb))
        if not pair_cells:
            raise InputError("human: no two systems share a rated segment, so there is no system pair to "
                             f"compare (rated systems: {[str(systems[i]) for i in rated]!r}).")
    else:
        seen = set()
        for p in pairs:
            if not (isinstance(p, (tuple, list)) and len(p) == 2):
                raise InputError(f"pairs must be (system_a, system_b) tuples; got {p!r}.")
            a, b = str(p[0]), str(p[1])
            if a == b or (a, b) in seen or (b, a) in seen:
                raise InputError(f"pairs: {p!r} is a self pair or a repeat; list each pair of distinct systems once.")
            seen.add((a, b))
            idx = []
            for s in (a, b):
                i = int(np.searchsorted(systems, s))
                if i >= len(systems) or systems[i] != s or i not in rated:
                    raise InputError(f"pairs: system {s!r} has no rated segment with a hypothesis; rated systems "
                                     f"are {[str(systems[k]) for k in rated]!r}.")
                idx.append(i)
            ca, cb = shared(*idx)
            if not len(ca):
                raise InputError(f"pairs: {a!r} and {b!r} share no rated segment, so the pair gives no "
                                 "observation; drop the pair.")
            pair_cells.append((a, b, ca, cb))
    small = [(a, b, len(ca)) for a, b, ca, _ in pair_cells if len(ca) < unit_size]
    if small:
        shown = ", ".join(f"{a}–{b} ({n})" for a, b, n in small[:8]) + (" ..." if len(small) > 8 else "")
        raise InputError(
            f"unit_size must be at most the number of segments every pair shares; got {unit_size!r}, and "
            f"{len(small)} pair(s) share fewer: {shown}. Use a smaller unit size, or pass pairs= without them."
        )
    return StudyCells(
        metrics=metrics, systems=systems, segments=segments, cell_system=cell_sys, cell_segment=cell_seg,
        human=hmean, rows=rows, pair_names=[(a, b) for a, b, _, _ in pair_cells],
        pair_a=[ca for _, _, ca, _ in pair_cells], pair_b=[cb for _, _, _, cb in pair_cells],
        exclusions={"human_nan_rows": nan_rows, "human_without_hypothesis": int(missing.sum())},
    )
