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
``wmt``, ``acc23``, ``tau23``), and at system level pairwise accuracy
(``'pa'``) and soft pairwise accuracy (``'spa'``,
:mod:`bleustats.meta.pairwise_accuracy`: corpus metrics stay corpus metrics
under the permutations). With ``tie_calibration=True`` the ``acc23`` and
``tau23`` rows use the metric tie threshold that maximises them
(:mod:`bleustats.meta.tie_calibration`) and report it. Metrics where lower is
better (TER) enter negated, so every result reads "higher agrees better".

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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from .._validate import choices_text
from ..errors import InputError
from .._validate import check_count
from .compare import CORRELATION_TESTS, correlation_difference_test, williams_test
from .correlation import CORRELATION_METHODS, GROUPINGS, correlate, segment_correlation, \
    system_correlation
from .pairwise_accuracy import corpus_pairwise_p_values, pairwise_accuracy, pairwise_p_values, permutation_masks, \
    spa
from .resample import SeedLike
from .tie_calibration import tie_calibrated_kendall
from .units import StudyCells, UnitMetric, study_cells
from ._options import LEVELS, METHODS, SYSTEM_METHODS, VARIANTS

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["LEVELS", "METHODS", "SYSTEM_METHODS", "VARIANTS", "MetricCorrelations", "metric_correlations"]

#: Columns of :attr:`MetricCorrelations.correlations`.
COLUMNS = ("label", "level", "method", "variant", "grouping", "value", "n", "n_groups", "n_skipped",
           "tie_calibrated", "threshold", "permutations", "agreements", "pairs")


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
        (metric/human pairs used; for SPA the segments every system shares),
        ``n_groups``, ``n_skipped``, ``tie_calibrated`` and ``threshold`` (the
        chosen ε; nan when not calibrated), ``permutations`` (SPA),
        ``agreements`` and ``pairs`` (PA: pool them over language pairs for
        global accuracy).
    system_scores : dict of str to numpy.ndarray
        Per metric (label), one score per system of ``systems``; ``"human"`` too
        (oriented: TER negated).
    segment_scores : dict of str to numpy.ndarray
        Per metric, one score per rated cell; ``"human"`` too (oriented).
    systems : numpy.ndarray of str
    cell_system, cell_item : numpy.ndarray
        System name and seg_id of each cell.
    cells : StudyCells
    spa_p_values : dict of str to numpy.ndarray
        With ``'spa'``: per metric and ``"human"``, the permutation p-values
        of "system a better than b" for the pairs ``numpy.triu_indices(S, 1)``
        of ``systems``.
    """

    correlations: "pd.DataFrame"
    system_scores: dict
    segment_scores: dict
    systems: NDArray[Any]
    cell_system: NDArray[Any]
    cell_item: NDArray[Any]
    cells: StudyCells
    spa_p_values: dict = field(default_factory=dict)

    def compare(self, label_a: str, label_b: str, *, tests: Sequence[str] = ("williams", "bootstrap"),
                n_samples: int = 1000, seed: int = 12345, confidence: float = 0.95) -> "pd.DataFrame":
        """Williams and resampling tests of ``label_a`` against ``label_b`` for every row of ``correlations``.

        Williams' test applies to Pearson and Spearman with flat grouping (else
        it is skipped); the resampling tests (``'bootstrap'``, ``'permutation'``)
        to every row but PA, SPA, ``tau23`` and tie-calibrated rows. At segment
        level they use the items every system scores
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
            if method in SYSTEM_METHODS or variant == "tau23" or row["tie_calibrated"]:
                continue  # no paired test of these here
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
    tie_calibration: bool = False,
    n_permutations: int = 1000,
    seed: SeedLike = 12345,
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
    methods : sequence of {'pearson', 'spearman', 'kendall', 'pa', 'spa'}
        ``'pa'`` and ``'spa'`` are system-level only (no segment-level rows).
    kendall_variants : sequence of {'b', 'c', 'wmt', 'acc23', 'tau23'}
    groupings : sequence of {'flat', 'item', 'system'}
        Segment level only.
    unmatched : {'error', 'exclude'}
        Rated cells some metric has no row for (:func:`bleustats.meta.units.study_cells`).
    tie_calibration : bool
        ``acc23`` / ``tau23`` at the threshold that maximises them
        (:func:`bleustats.meta.tie_calibration.tie_calibrated_kendall`, the
        groups of each grouping), else at ε = 0.
    n_permutations : int
        Permutations of SPA's paired tests (the same masks for the human side
        and every metric).
    seed : int, SeedSequence or Generator
        Seed of SPA's permutations.

    Returns
    -------
    MetricCorrelations
    """
    import pandas as pd

    levels = _check("levels", levels, LEVELS)
    methods = _check("methods", methods, METHODS)
    variants = _check("kendall_variants", kendall_variants, VARIANTS)
    check_count("n_permutations", n_permutations, minimum=1)
    groupings = _check("groupings", groupings, GROUPINGS)
    cells = study_cells(metrics, human, unmatched=unmatched)
    systems = cells.systems[np.unique(cells.cell_system)]
    sys_index = np.searchsorted(np.unique(cells.cell_system), cells.cell_system)
    counts = np.bincount(sys_index)
    system_scores: dict[str, NDArray[np.float64]] = {"human": np.bincount(sys_index, cells.human) / counts}
    segment_scores: dict[str, NDArray[np.float64]] = {"human": cells.human.copy()}
    orient = {m.label: (1.0 if m.higher_is_better else -1.0) for m in cells.metrics}
    for m, rows in zip(cells.metrics, cells.rows):
        v = m.values[rows]
        segment_scores[m.label] = orient[m.label] * m.unit_scores(v[:, None, :], 1)[:, 0]
        sums = np.stack([np.bincount(sys_index, v[:, j], minlength=len(systems)) for j in range(v.shape[1])], axis=1)
        system_scores[m.label] = orient[m.label] * (m.unit_scores(sums, counts) if m.kind == "corpus"
                                                    else sums[:, 0] / counts)
        for name, arr in (("system", system_scores[m.label]), ("segment", segment_scores[m.label])):
            if not np.isfinite(arr).all():
                raise InputError(f"metrics: {m.label!r} gives {int((~np.isfinite(arr)).sum())} non-finite "
                                 f"{name}-level score(s); check its values.")
    cell_system = cells.systems[cells.cell_system]
    cell_item = cells.segments[cells.cell_segment]
    spa_side = _SpaSide(cells, n_permutations, seed) if "system" in levels and "spa" in methods else None
    rows_out = []
    for k, m in enumerate(cells.metrics):
        for level in levels:
            for method in methods:
                if method in SYSTEM_METHODS and level != "system":
                    continue
                for variant in (variants if method == "kendall" else (None,)):
                    for grouping in (groupings if level == "segment" else ("flat",)):
                        row = {"label": m.label, "level": level, "method": method, "variant": variant,
                               "grouping": grouping, "tie_calibrated": False, "threshold": np.nan,
                               "permutations": np.nan, "agreements": np.nan, "pairs": np.nan}
                        if method == "pa":
                            pa = pairwise_accuracy(system_scores["human"], system_scores[m.label])
                            row.update(value=pa.value, n=len(systems), n_groups=1, n_skipped=0,
                                       agreements=pa.agreements, pairs=pa.pairs)
                        elif method == "spa":
                            assert spa_side is not None
                            row.update(value=spa_side.spa(k, orient[m.label], m.label), n=spa_side.n_segments,
                                       n_groups=1, n_skipped=0, permutations=n_permutations)
                        elif tie_calibration and variant in ("acc23", "tau23"):
                            if level == "system":
                                tc = tie_calibrated_kendall(system_scores[m.label], system_scores["human"],
                                                            variant=variant)
                            else:
                                groups = None if grouping == "flat" else (cell_item if grouping == "item"
                                                                          else cell_system)
                                tc = tie_calibrated_kendall(segment_scores[m.label], segment_scores["human"],
                                                            groups=groups, variant=variant)
                            row.update(value=tc.value, n=tc.n, n_groups=tc.n_groups, n_skipped=tc.n_skipped,
                                       tie_calibrated=True, threshold=tc.threshold)
                        else:
                            kw = dict(method=method, variant="acc23" if variant == "tau23" else (variant or "b"))
                            if level == "system":
                                res = system_correlation(system_scores[m.label], system_scores["human"], **kw)
                            else:
                                res = segment_correlation(segment_scores[m.label], segment_scores["human"],
                                                          system=cell_system, item=cell_item, grouping=grouping,
                                                          **kw)
                            value = 2.0 * res.value - 1.0 if variant == "tau23" else res.value
                            row.update(value=value, n=res.n, n_groups=res.n_groups, n_skipped=res.n_skipped)
                        rows_out.append(row)
    return MetricCorrelations(correlations=pd.DataFrame(rows_out, columns=list(COLUMNS)),
                              system_scores=system_scores, segment_scores=segment_scores, systems=systems,
                              cell_system=cell_system, cell_item=cell_item, cells=cells,
                              spa_p_values=spa_side.p_values if spa_side is not None else {})


class _SpaSide:
    """SPA's shared pieces: the segments every system has, the permutation masks, the human p-values."""

    def __init__(self, cells: StudyCells, n_permutations: int, seed: SeedLike):
        n_sys = len(np.unique(cells.cell_system))
        segs, counts = np.unique(cells.cell_segment, return_counts=True)
        shared = np.isin(cells.cell_segment, segs[counts == n_sys])
        # cells are sorted by (system, segment): the shared ones reshape to (systems, segments)
        self.shared = np.flatnonzero(shared)
        self.n_systems, self.n_segments = n_sys, int((counts == n_sys).sum())
        if n_sys >= 2 and self.n_segments == 0:
            raise InputError("spa: no segment is scored for every system; SPA's paired permutation tests need "
                             "the systems on common segments.")
        self.study = cells
        self.masks = permutation_masks(self.n_segments, n_permutations, seed=seed)
        self.p_values = {"human": pairwise_p_values(self._grid(cells.human[self.shared][:, None])[..., 0],
                                                    self.masks)}

    def _grid(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        return values.reshape(self.n_systems, self.n_segments, values.shape[-1])

    def spa(self, k: int, sign: float, label: str) -> float:
        m, rows = self.study.metrics[k], self.study.rows[k]
        v = self._grid(m.values[rows[self.shared]])
        if m.kind == "corpus":
            with np.errstate(all="ignore"):
                p = corpus_pairwise_p_values(v, self.masks, lambda s: m.unit_scores(s, self.n_segments), sign=sign)
        else:
            p = pairwise_p_values(sign * v[..., 0], self.masks)
        self.p_values[label] = p
        return spa(self.p_values["human"], p)
