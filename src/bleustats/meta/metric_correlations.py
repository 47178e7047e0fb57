r"""System- and segment-level correlations of a table of metrics with human scores, and metric comparisons.

The plain meta-evaluation of WMT's metrics task (and mt-metrics-eval), for any
metric of a study (:class:`~bleustats.meta.units.UnitMetric`: BLEU and ΔBLEU
from statistics, sentence BLEU, any external score column):

* **system level**: one score per system, the metric of all the system's rated
  segments (a corpus metric of the summed statistics; the mean of a sentence or
  external score) against the mean human score of those segments;
* **segment level**: one score per rated (system, segment) cell, correlated
  flat, by item (segment) or by system (mt-metrics-eval's ``average_by``:
  :func:`bleustats.meta.correlation.segment_correlation`).

The cells are those every metric scores and a human rated
(:func:`bleustats.meta.units.study_cells`), so all metrics are correlated on the
same cells. Methods: Pearson, Spearman, Kendall (variants ``b``, ``c``,
``wmt``, ``acc23``).

Comparisons of two metrics (:meth:`MetricCorrelations.compare`) reuse
:mod:`bleustats.meta.compare`: Williams' test for dependent correlations
(Pearson and Spearman, flat grouping; :math:`r_{23}` is the two metrics'
correlation by the same method), and the paired bootstrap or PERM-BOTH
permutation test of :func:`~bleustats.meta.compare.correlation_difference_test`
(at segment level on the items every system scores).

Examples
--------
>>> import pandas as pd
>>> from bleustats.meta.units import mean_metric
>>> sys_ = ["A"] * 4 + ["B"] * 4 + ["C"] * 4
>>> seg = [0, 1, 2, 3] * 3
>>> human = pd.DataFrame({"system": sys_, "seg_id": seg,
...                       "score": [3.0, 2, 4, 1, 2, 2, 3, 0, 1, 0, 2, 1]})
>>> m = mean_metric(sys_, seg, [0.9, 0.5, 0.8, 0.1, 0.6, 0.4, 0.7, 0.2, 0.2, 0.1, 0.5, 0.3], metric="toy")
>>> res = metric_correlations([m], human, methods=("pearson",))
>>> res.correlations[["level", "value", "n"]].round(3).values.tolist()
[['system', 0.982, 3], ['segment', 0.917, 12]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from .._validate import choices_text
from ..errors import InputError
from .compare import CORRELATION_TESTS, correlation_difference_test, williams_test
from .correlation import CORRELATION_METHODS, GROUPINGS, KENDALL_VARIANTS, correlate, segment_correlation, \
    system_correlation
from .units import StudyCells, UnitMetric, study_cells

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["LEVELS", "MetricCorrelations", "metric_correlations"]

#: Levels of :func:`metric_correlations`.
LEVELS = ("system", "segment")


def _check(name: str, values: Sequence[str], allowed: Sequence[str]) -> tuple[str, ...]:
    values = tuple(values)
    bad = [v for v in values if v not in allowed]
    if not values or bad:
        raise InputError(f"{name} must be a non-empty list of {choices_text(allowed)}; got {list(values)!r}.")
    return tuple(dict.fromkeys(values))


@dataclass(frozen=True, eq=False)
class MetricCorrelations:
    """Correlations of every metric with the human scores, and the scores behind them.

    Attributes
    ----------
    correlations : pandas.DataFrame
        One row per metric × level × method × variant × grouping: ``label``,
        ``level``, ``method``, ``variant``, ``grouping``, ``value``, ``n``
        (metric/human pairs used), ``n_groups``, ``n_skipped``.
    system_scores : dict of str to numpy.ndarray
        Per metric (label), one score per system of ``systems``; ``"human"`` too.
    segment_scores : dict of str to numpy.ndarray
        Per metric, one score per rated cell; ``"human"`` too.
    systems : numpy.ndarray of str
    cell_system, cell_item : numpy.ndarray
        System name and seg_id of each cell.
    cells : StudyCells
    """

    correlations: "pd.DataFrame"
    system_scores: dict
    segment_scores: dict
    systems: NDArray[Any]
    cell_system: NDArray[Any]
    cell_item: NDArray[Any]
    cells: StudyCells

    def compare(self, label_a: str, label_b: str, *, tests: Sequence[str] = ("williams", "bootstrap"),
                n_samples: int = 1000, seed: int = 12345, confidence: float = 0.95) -> "pd.DataFrame":
        """Williams and resampling tests of ``label_a`` against ``label_b`` for every row of ``correlations``.

        Williams' test applies to Pearson and Spearman with flat grouping (else
        it is skipped); the resampling tests (``'bootstrap'``, ``'permutation'``)
        to every row. At segment level they use the items every system scores
        (``n`` says how many pairs that leaves). p-values are one-sided for
        :math:`H_1: r_A > r_B`.

        Returns
        -------
        pandas.DataFrame
            ``metric_a``, ``metric_b``, ``level``, ``method``, ``variant``,
            ``grouping``, ``test``, ``r_a``, ``r_b``, ``difference``,
            ``p_value``, ``low``, ``high`` (bootstrap interval), ``n``.
        """
        import pandas as pd

        for x in (label_a, label_b):
            if x not in self.system_scores:
                raise InputError(f"{x!r} is not a metric of the table; labels are "
                                 f"{[k for k in self.system_scores if k != 'human']!r}.")
        tests = _check("tests", tests, ("williams",) + CORRELATION_TESTS)
        rows = []
        complete = self._complete_items()
        for _, row in self.correlations[self.correlations["label"] == label_a].iterrows():
            level, method, variant, grouping = row["level"], row["method"], row["variant"], row["grouping"]
            kw = dict(method=method, variant=variant if method == "kendall" else "b")
            if level == "system":
                a, b, h = (self.system_scores[k] for k in (label_a, label_b, "human"))
                extra: dict[str, Any] = {}
            else:
                a, b, h = (self.segment_scores[k][complete] for k in (label_a, label_b, "human"))
                extra = dict(system=self.cell_system[complete], item=self.cell_item[complete], grouping=grouping)
            for test in tests:
                base = {"metric_a": label_a, "metric_b": label_b, "level": level, "method": method,
                        "variant": row["variant"], "grouping": grouping, "test": test}
                if test == "williams":
                    if method == "kendall" or grouping != "flat" or len(h) <= 3:
                        continue
                    r12, r13, r23 = (float(correlate(u[None], v[None], method=method)[0])
                                     for u, v in ((a, h), (b, h), (a, b)))
                    if not all(math.isfinite(r) for r in (r12, r13, r23)):
                        continue
                    w = williams_test(r12, r13, r23, len(h))
                    rows.append({**base, "r_a": r12, "r_b": r13, "difference": r12 - r13, "p_value": w.p_value,
                                 "low": math.nan, "high": math.nan, "n": len(h)})
                    continue
                res = correlation_difference_test(a, b, h, level=level, test=test, n_samples=n_samples, seed=seed,
                                                  confidence=confidence, **kw, **extra)
                rows.append({**base, "r_a": res.r_a, "r_b": res.r_b, "difference": res.difference,
                             "p_value": res.p_value, "low": math.nan if res.ci_low is None else res.ci_low,
                             "high": math.nan if res.ci_high is None else res.ci_high, "n": res.n})
        return pd.DataFrame(rows, columns=["metric_a", "metric_b", "level", "method", "variant", "grouping", "test",
                                           "r_a", "r_b", "difference", "p_value", "low", "high", "n"])

    def _complete_items(self) -> NDArray[np.bool_]:
        """Cells of the items (segments) that every system scores."""
        n_sys = len(np.unique(self.cell_system))
        items, counts = np.unique(self.cell_item, return_counts=True)
        return np.isin(self.cell_item, items[counts == n_sys])


def metric_correlations(
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | UnitMetric,
    human: "pd.DataFrame | pa.Table",
    *,
    levels: Sequence[str] = LEVELS,
    methods: Sequence[str] = CORRELATION_METHODS,
    kendall_variants: Sequence[str] = ("b",),
    groupings: Sequence[str] = ("flat",),
    unmatched: str = "error",
) -> MetricCorrelations:
    r"""Correlate every metric with the human scores at system and segment level.

    .. math::

        r_{sys} = \mathrm{corr}\big((m(S_a))_a, (\bar h_a)_a\big), \qquad
        r_{seg} = \mathrm{corr}\big((m(a, i))_{a,i}, (h_{a,i})_{a,i}\big)

    with :math:`S_a` the rated segments of system :math:`a` (its corpus score,
    or the mean of a per-segment score) and :math:`h_{a,i}` the mean rating of
    a cell; by-item and by-system groupings average per group
    (:func:`bleustats.meta.correlation.segment_correlation`).

    Parameters
    ----------
    metrics : list of UnitMetric
        :func:`bleustats.meta.units.corpus_metric`, ``sentence_mean_metric``,
        ``mean_metric`` (external scores).
    human : pandas.DataFrame or pyarrow.Table
        ``system``, ``seg_id``, ``score``; one row per rating, raters averaged.
    levels : sequence of {'system', 'segment'}
    methods : sequence of {'pearson', 'spearman', 'kendall'}
    kendall_variants : sequence of {'b', 'c', 'wmt', 'acc23'}
    groupings : sequence of {'flat', 'item', 'system'}
        Segment level only.
    unmatched : {'error', 'exclude'}
        Rated cells some metric has no row for (:func:`bleustats.meta.units.study_cells`).

    Returns
    -------
    MetricCorrelations
    """
    import pandas as pd

    levels = _check("levels", levels, LEVELS)
    methods = _check("methods", methods, CORRELATION_METHODS)
    variants = _check("kendall_variants", kendall_variants, KENDALL_VARIANTS)
    groupings = _check("groupings", groupings, GROUPINGS)
    cells = study_cells(metrics, human, unmatched=unmatched)
    systems = cells.systems[np.unique(cells.cell_system)]
    sys_index = np.searchsorted(np.unique(cells.cell_system), cells.cell_system)
    counts = np.bincount(sys_index)
    system_scores: dict[str, NDArray[np.float64]] = {"human": np.bincount(sys_index, cells.human) / counts}
    segment_scores: dict[str, NDArray[np.float64]] = {"human": cells.human.copy()}
    for m, rows in zip(cells.metrics, cells.rows):
        v = m.values[rows]
        segment_scores[m.label] = m.unit_scores(v[:, None, :], 1)[:, 0]
        sums = np.stack([np.bincount(sys_index, v[:, j], minlength=len(systems)) for j in range(v.shape[1])], axis=1)
        system_scores[m.label] = m.unit_scores(sums, counts) if m.kind == "corpus" else sums[:, 0] / counts
        for name, arr in (("system", system_scores[m.label]), ("segment", segment_scores[m.label])):
            if not np.isfinite(arr).all():
                raise InputError(f"metrics: {m.label!r} gives {int((~np.isfinite(arr)).sum())} non-finite "
                                 f"{name}-level score(s); check its values.")
    cell_system = cells.systems[cells.cell_system]
    cell_item = cells.segments[cells.cell_segment]
    rows_out = []
    for m in cells.metrics:
        for level in levels:
            for method in methods:
                for variant in (variants if method == "kendall" else (None,)):
                    for grouping in (groupings if level == "segment" else ("flat",)):
                        kw = dict(method=method, variant=variant or "b")
                        if level == "system":
                            res = system_correlation(system_scores[m.label], system_scores["human"], **kw)
                        else:
                            res = segment_correlation(segment_scores[m.label], segment_scores["human"],
                                                      system=cell_system, item=cell_item, grouping=grouping, **kw)
                        rows_out.append({"label": m.label, "level": level, "method": method, "variant": variant,
                                         "grouping": grouping, "value": res.value, "n": res.n,
                                         "n_groups": res.n_groups, "n_skipped": res.n_skipped})
    return MetricCorrelations(correlations=pd.DataFrame(rows_out), system_scores=system_scores,
                              segment_scores=segment_scores, systems=systems, cell_system=cell_system,
                              cell_item=cell_item, cells=cells)
