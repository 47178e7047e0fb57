r"""The ΔBLEU paper's correlation study (Galley et al., 2015, section 5), from cached statistics.

A metric is judged by how well its score *differences* between two systems
follow the human score differences, on random units of :math:`M` segments:

1. For every system pair :math:`(A, B)` (default: all pairs that share rated
   segments) the shared rated segments are cut at random into units of
   :math:`M` segments; the remainder is dropped. One such partition of every
   pair is an *assignment*.
2. Each unit :math:`U` gives one observation

   .. math::

       \big(\, m(A, U) - m(B, U),\ \ \bar h(A, U) - \bar h(B, U) \,\big)

   where :math:`\bar h` is the mean human score over the unit (several raters
   of a segment are averaged first), and :math:`m` is a corpus metric (BLEU,
   ΔBLEU) of the unit's *summed* statistics, or the mean of a
   sentence-level score over the unit (sBLEU).
3. Spearman's ρ and Kendall's τ over all :math:`N` observations of an
   assignment; reported: the mean over the assignments (default 1,000), the
   **same** assignments for every metric, with three intervals:
   (a) Fisher z of the mean on :math:`N` observations (the paper's intervals
   agree with this, e.g. ρ = .484 (.415, .546) at N ≈ 530; applied to τ as
   well, where the standard error :math:`1/\sqrt{N-3}` is conservative, since
   τ's sampling variance is smaller than r's),
   (b) percentiles of the per-assignment values,
   (c) a bootstrap over observations: replicate :math:`b` takes assignment
   :math:`b \bmod A`, draws its :math:`N` observations with replacement and
   recomputes the coefficient (so it covers both the partition and the
   sampling of units); percentiles of the replicates.

An assignment or replicate whose coefficient is undefined (one side constant)
is left out of the mean and the percentiles; the summary counts the
assignments left out (``rho_undefined``, ``tau_undefined``).

All units of all assignments are summed with one sparse matrix product per
pair (:func:`bleustats.meta.resample.unit_sums`; columns shared by several
metrics, such as lengths and totals, are summed once) and scored by the
vectorized :func:`bleustats.metrics.bleu.bleu_scores` formula (the same bits as
:func:`bleustats.metrics.bleu.bleu_from_sums`, with a leaner path for exp smoothing);
nothing is re-tokenized or re-counted. At :math:`M = 1` every assignment gives the same set of
observations (each segment is its own unit), so the study is computed once
and says so (``StudyResult.n_distinct_assignments == 1``; the percentile
interval is then undefined, ``nan``).

Randomness: ``seed`` makes a :class:`numpy.random.SeedSequence` split in two,
``part, boot = SeedSequence(seed).spawn(2)``; pair :math:`p` (in the order of
``result.pairs``) is partitioned by ``unit_partitions(n_shared, M,
n_assignments=A, seed=part.spawn(P)[p])`` and the bootstrap draws are
``bootstrap_indices(N, B, seed=default_rng(boot))``. Changing ``n_bootstrap``
therefore leaves the assignments as they were, and the work can run on
several threads with identical results. Every number carries a signature
with the metric's settings and the study's (unit size, assignments, seed,
pairs, observations, confidence, bootstrap size, τ variant, version).

Exclusions are never silent: human rows with a NaN score are dropped and
counted; rated (system, segment) cells without a hypothesis in every metric
are an error unless ``unmatched='exclude'`` (then counted); segments left
over by the partition are counted per pair.

References
----------
.. [1] Galley, M., Brockett, C., Sordoni, A., Ji, Y., Auli, M., Quirk, C.,
   Mitchell, M., Gao, J., Dolan, B. (2015). ΔBLEU: a discriminative metric for
   generation tasks with intrinsically diverse targets. ACL, section 5,
   Table 2 and Figure 2.
.. [2] Papineni, K., Roukos, S., Ward, T., Zhu, W.-J. (2002). BLEU: a method
   for automatic evaluation of machine translation. ACL.
.. [3] Fisher, R. A. (1921). On the "probable error" of a coefficient of
   correlation deduced from a small sample. Metron 1.

Examples
--------
>>> import pandas as pd
>>> from bleustats.engine.stats import compute_stats
>>> hyps = pd.DataFrame({"seg_id": [0, 0, 1, 1, 2, 2, 3, 3], "system": ["A", "B"] * 4,
...                      "text": ["a b c d", "a b x d", "e f g h", "e f g h",
...                               "i j k l", "i x x l", "m n o p", "m n o q"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1, 2, 3], "text": ["a b c d", "e f g h", "i j k l", "m n o p"]})
>>> stats = compute_stats(hyps, refs, tokenize="none", max_ngram_order=2)
>>> human = pd.DataFrame({"system": ["A", "B"] * 4, "seg_id": [0, 0, 1, 1, 2, 2, 3, 3],
...                       "score": [5.0, 2.0, 4.0, 4.0, 5.0, 1.0, 4.0, 3.0]})
>>> res = correlation_study([corpus_metric(stats)], human, unit_size=1, seed=0)
>>> res.n_observations, res.n_distinct_assignments
(4, 1)
>>> float(res.summary.loc[0, "rho"])
1.0
"""

from __future__ import annotations

import math
import os
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from .._validate import check_count, describe_ids, renamed_keywords
from .._version import __version__
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics.bleu import bleu_scores, check_scoring_options, count_columns, score_signature
from ..metrics.results import Signature
from ..metrics.sentence import score_variant
from .correlation import fisher_z_interval, kendall_tau, spearman
from .report import INTERVALS, records, table2
from .resample import bootstrap_indices, unit_partitions, unit_sums

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HUMAN_COLUMNS",
    "INTERVALS",
    "METRIC_KINDS",
    "PAPER_UNIT_SIZES",
    "REF_VIEW_LABELS",
    "SWEEP_PARAMETERS",
    "UNMATCHED",
    "StudyResult",
    "UnitMetric",
    "corpus_metric",
    "correlation_study",
    "mean_metric",
    "sentence_mean_metric",
    "sweep",
]

#: Columns of the human scores table (one row per rating; extra columns are ignored).
HUMAN_COLUMNS = ("system", "seg_id", "score")
#: How a unit is scored: a corpus score of summed statistics, or the mean of per-segment scores.
METRIC_KINDS = ("corpus", "mean")
#: What to do with rated (system, segment) cells that some metric has no hypothesis for.
UNMATCHED = ("error", "exclude")
#: Parameters :func:`sweep` can vary (the panels of the paper's Figure 2).
SWEEP_PARAMETERS = ("threshold", "unit_size", "max_ngram_order")
#: The unit sizes of the paper's Figure 2 (B).
PAPER_UNIT_SIZES = (1, 2, 5, 10, 20, 50, 100)
#: Column labels of the ΔBLEU paper's Table 2 for each ``ref_view`` of a statistics table.
REF_VIEW_LABELS = {"first": "single", "threshold": "w≥θ", "all": "all"}

# bootstrap replicates are correlated in blocks of at most this many entries (rows × N)
_BOOT_BLOCK = 1 << 21


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
        n = self.max_ngram_order
        correct = sums[..., 2:2 + n]
        if self.clamp:
            correct = np.maximum(correct, 0.0)
        return bleu_scores(correct, sums[..., 2 + n:2 + 2 * n], sums[..., 0], sums[..., 1], **self.options)


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
    r"""BLEU or ΔBLEU of a unit from its summed statistics (as :func:`~bleustats.metrics.bleu.corpus_score`).

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
    metric : {'bleu', 'delta_bleu'}
    max_ngram_order : int, optional
        Order N (default: the table's); lower orders use the first N columns.
    smooth_method, smooth_value, use_effective_order, ref_length
        As in :func:`bleustats.metrics.bleu.corpus_score`.
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
    sig = Signature(nrefs=first.n_refs_label if len(tables) == 1 and len(first) else "var",
                    tokenize=first.tokenize, lowercase=first.lowercase, max_ngram_order=n, ref_view=first.ref_view,
                    weight_threshold=first.weight_threshold, weights=first.weights, metric=metric,
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


def _metric_list(metrics: Any) -> list[UnitMetric]:
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


def _check_options(unit_size, n_assignments, seed, confidence, n_bootstrap, kendall_variant, unmatched):
    for name, value, low in (("unit_size", unit_size, 1), ("n_assignments", n_assignments, 1),
                             ("seed", seed, 0), ("n_bootstrap", n_bootstrap, 0)):
        check_count(name, value, minimum=low)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0 < confidence < 1:
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}.")
    if kendall_variant not in ("b", "c"):
        raise InputError(f"kendall_variant must be 'b' or 'c'; got {kendall_variant!r}.")
    if unmatched not in UNMATCHED:
        raise InputError(f"unmatched must be 'error' or 'exclude'; got {unmatched!r}.")


def _describe_cells(systems: NDArray[Any], segs: NDArray[Any], limit: int = 5) -> str:
    shown = ", ".join(f"({str(s)!r}, {int(g)})" for s, g in zip(systems[:limit], segs[:limit]))
    return shown + (f" and {len(systems) - limit} more" if len(systems) > limit else "")


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class StudyResult:
    """Correlations of every metric with the human scores, and how they were made.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per metric: ``label``, ``metric``, ``refs``, ``n_observations``,
        ``rho`` and ``tau`` (means over assignments) with ``*_fisher_low/high``,
        ``*_percentile_low/high``, ``*_bootstrap_low/high``, ``*_undefined``
        (assignments where the coefficient is undefined: a constant side),
        ``note`` (why ρ / τ are undefined in every assignment, e.g. constant
        human scores; empty otherwise, and a RuntimeWarning says it too),
        and ``signature`` (the metric's settings, then the study's, as a string).
    rho, tau : dict of str to numpy.ndarray
        Per-assignment coefficients of each metric (label → shape (A,)).
    pairs : pandas.DataFrame
        ``system_a``, ``system_b``, ``n_shared``, ``n_units``, ``n_dropped``.
    exclusions : dict
        ``human_nan_rows`` (ratings with a NaN score, dropped),
        ``human_without_hypothesis`` (rated cells some metric lacks, with
        ``unmatched='exclude'``), ``segments_dropped`` (partition remainders,
        summed over pairs, per assignment).
    unit_size, n_assignments, n_distinct_assignments, n_observations, seed : int
    confidence : float
    n_bootstrap : int
    kendall_variant : str
    signature : Signature
        The study's part of every signature.
    timings : dict
        Seconds per stage.
    """

    summary: "pd.DataFrame"
    rho: dict
    tau: dict
    pairs: "pd.DataFrame"
    exclusions: dict
    unit_size: int
    n_assignments: int
    n_distinct_assignments: int
    n_observations: int
    seed: int
    confidence: float
    n_bootstrap: int
    kendall_variant: str
    signature: Signature
    timings: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Every number with its signature, as plain Python (for JSON)."""
        return {
            "signature": str(self.signature),
            "unit_size": self.unit_size,
            "n_assignments": self.n_assignments,
            "n_distinct_assignments": self.n_distinct_assignments,
            "n_observations": self.n_observations,
            "seed": self.seed,
            "confidence": self.confidence,
            "n_bootstrap": self.n_bootstrap,
            "kendall_variant": self.kendall_variant,
            "exclusions": dict(self.exclusions),
            "pairs": records(self.pairs),
            "metrics": records(self.summary),
            "version": __version__,
        }

    @renamed_keywords(statistic="correlation")
    def table2(self, correlation: str = "rho", *, interval: str = "fisher", digits: int = 3) -> "pd.DataFrame":
        """The paper's Table 2: metric × reference view, ``value (low, high)`` strings."""
        return table2(self.summary, correlation=correlation, interval=interval, digits=digits)


# --------------------------------------------------------------------------- the study


def _interval(values: NDArray[np.float64], confidence: float) -> tuple[float, float]:
    v = values[np.isfinite(values)]
    if v.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(v, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def _correlate(x: NDArray[np.float64], y: NDArray[np.float64], variant: str) -> tuple[NDArray, NDArray]:
    return (np.asarray(spearman(x, y), dtype=np.float64),
            np.asarray(kendall_tau(x, y, variant=variant), dtype=np.float64))


def correlation_study(
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | UnitMetric,
    human: "pd.DataFrame | pa.Table",
    *,
    unit_size: int = 100,
    n_assignments: int = 1000,
    seed: int = 0,
    pairs: Sequence[tuple[str, str]] | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 1000,
    kendall_variant: str = "b",
    unmatched: str = "error",
    n_threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> StudyResult:
    r"""Run the ΔBLEU paper's correlation protocol (Galley et al., 2015, section 5).

    For each assignment :math:`a` (a random partition of every pair's shared
    rated segments into units of :math:`M`) and metric :math:`m`:

    .. math::

        x_{a,U} = m(A, U) - m(B, U), \qquad
        y_{a,U} = \bar h(A, U) - \bar h(B, U), \qquad
        \bar\rho_m = \frac{1}{|\mathcal{A}|} \sum_{a} \rho\big(x_{a,\cdot}, y_{a,\cdot}\big)

    and the same for Kendall's τ; the intervals are described in the module
    docstring.

    Parameters
    ----------
    metrics : list of UnitMetric (or a mapping, or one)
        From :func:`corpus_metric`, :func:`sentence_mean_metric`,
        :func:`mean_metric`; labels must be unique.
    human : pandas.DataFrame or pyarrow.Table
        One row per rating: ``system``, ``seg_id`` (int), ``score`` (higher is
        better); extra columns (e.g. a rater id) are ignored. Ratings of a
        (system, segment) cell are averaged; NaN scores are dropped and counted.
    unit_size : int
        Segments per unit, M.
    n_assignments : int
        Number of random assignments (1 is used when ``unit_size == 1``).
    seed : int
        Seed of every random draw (recorded in the signature).
    pairs : list of (str, str), optional
        System pairs; default all pairs (in sorted system order) that share
        rated segments. An explicit pair must share at least M segments.
    confidence : float
        Level of the three intervals.
    n_bootstrap : int
        Bootstrap replicates of interval (c); 0 skips it (``nan``).
    kendall_variant : {'b', 'c'}
        Kendall's τ variant (:func:`bleustats.meta.correlation.kendall_tau`).
    unmatched : {'error', 'exclude'}
        Rated (system, segment) cells that some metric has no row for: an
        error naming them, or left out and counted in ``exclusions``.
    n_threads : int, optional
        Threads for the pairs' unit sums and the metrics' correlations
        (default: the CPU count); the result does not depend on it.
    progress : callable, optional
        Called as ``progress(done, total)`` after each pair and each metric.

    Returns
    -------
    StudyResult

    Raises
    ------
    InputError
        Bad options; human scores for cells without a hypothesis (with
        ``unmatched='error'``); an unknown system or a pair with no shared
        rated segments; a pair sharing fewer than M segments; no pair at all.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = [(s, g) for g in range(6) for s in ("A", "B", "C")]
    >>> metric = mean_metric([s for s, _ in cells], [g for _, g in cells],
    ...                      [float((7 * g + 3 * "ABC".index(s)) % 5) for s, g in cells], metric="toy")
    >>> human = pd.DataFrame({"system": [s for s, _ in cells], "seg_id": [g for _, g in cells],
    ...                       "score": [float((g * "ABC".index(s)) % 3) for s, g in cells]})
    >>> res = correlation_study([metric], human, unit_size=2, n_assignments=50, seed=1)
    >>> res.pairs[["system_a", "system_b", "n_units"]].values.tolist()
    [['A', 'B', 3], ['A', 'C', 3], ['B', 'C', 3]]
    >>> round(float(res.summary.loc[0, "rho"]), 3), res.n_observations
    (0.319, 9)
    """
    import pandas as pd

    _check_options(unit_size, n_assignments, seed, confidence, n_bootstrap, kendall_variant, unmatched)
    if n_threads is None:
        n_threads = os.cpu_count() or 1
    elif isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
        raise InputError(f"n_threads must be a positive integer or None; got {n_threads!r}.")
    metrics = _metric_list(metrics)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
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
                    "ids, drop those ratings, or pass unmatched='exclude' to leave them out (they are "
                    "counted in result.exclusions['human_without_hypothesis'])."
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
    timings["inputs"] = time.perf_counter() - t0

    deterministic = unit_size == 1
    n_distinct = 1 if deterministic else n_assignments
    part_ss, boot_ss = np.random.SeedSequence(seed).spawn(2)
    pair_seeds = part_ss.spawn(len(pair_cells))
    total_steps = len(pair_cells) + len(metrics)
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], total_steps)

    def pair_observations(p: int) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
        """Metric and human differences of every unit of pair p, shape (A, U_p) each."""
        _, _, ca, cb = pair_cells[p]
        n_p = len(ca)
        if deterministic:
            units = np.arange(n_p, dtype=np.int64).reshape(1, n_p, 1)
        else:
            units = unit_partitions(n_p, unit_size, n_assignments=n_assignments, seed=pair_seeds[p])
        blocks, spans, width_sum = [], [], 0
        for m, r in zip(metrics, rows):
            blocks += [m.values[r[ca]], m.values[r[cb]]]
            spans.append((width_sum, m.values.shape[1]))
            width_sum += 2 * m.values.shape[1]
        blocks += [hmean[ca][:, None], hmean[cb][:, None]]
        x_all = np.concatenate(blocks, axis=1)
        # identical columns (lengths and totals shared by several metrics) are summed once
        first_of: dict[bytes, int] = {}
        inverse = np.array([first_of.setdefault(x_all[:, j].tobytes(), len(first_of))
                            for j in range(x_all.shape[1])])
        distinct = np.unique(inverse, return_index=True)[1]
        sums = unit_sums(x_all[:, distinct], units)[..., inverse]
        diffs = [m.unit_scores(sums[..., start:start + width], unit_size)
                 - m.unit_scores(sums[..., start + width:start + 2 * width], unit_size)
                 for m, (start, width) in zip(metrics, spans)]
        return diffs, sums[..., -2] / unit_size - sums[..., -1] / unit_size

    t1 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        per_pair = []
        for out in pool.map(pair_observations, range(len(pair_cells))):
            per_pair.append(out)
            tick()
        y = np.concatenate([d[1] for d in per_pair], axis=1)
        n_obs = y.shape[1]
        xs = [np.concatenate([d[0][k] for d in per_pair], axis=1) for k in range(len(metrics))]
        del per_pair
        pair_rows = [(a, b, len(ca), len(ca) // unit_size, len(ca) % unit_size) for a, b, ca, _ in pair_cells]
        timings["units"] = time.perf_counter() - t1

        sig = Signature.from_fields(
            ("study", "galley2015"), ("M", unit_size),
            ("assign", f"{n_assignments}{'(1 distinct)' if deterministic else ''}"), ("seed", seed),
            ("pairs", len(pair_cells)), ("obs", n_obs), ("ci", f"{confidence:g}"), ("boot", n_bootstrap),
            ("tau", kendall_variant))
        t2 = time.perf_counter()
        boot_idx = boot_assign = None
        if n_bootstrap and n_obs >= 2:
            boot_idx = bootstrap_indices(n_obs, n_bootstrap, seed=np.random.default_rng(boot_ss))
            boot_assign = np.arange(n_bootstrap) % n_distinct

        def metric_record(k: int) -> tuple[dict[str, Any], NDArray[np.float64], NDArray[np.float64]]:
            m, x = metrics[k], xs[k]
            bad = ~np.isfinite(x)
            if bad.any():
                raise InputError(f"metrics: {m.label!r} gives {int(bad.sum())} non-finite unit score "
                                 "difference(s); check its values (NaN or infinite statistics).")
            if n_obs >= 2:
                rho, tau = _correlate(x, y, kendall_variant)
            else:
                rho = tau = np.full(n_distinct, np.nan)
            rec: dict[str, Any] = {"label": m.label, "metric": m.metric, "refs": m.refs, "n_observations": n_obs}
            boot = {"rho": np.full(0, np.nan), "tau": np.full(0, np.nan)}
            if boot_idx is not None:
                per_block = max(1, _BOOT_BLOCK // n_obs)
                parts: dict[str, list] = {"rho": [], "tau": []}
                for b0 in range(0, n_bootstrap, per_block):
                    sel = boot_idx[b0:b0 + per_block]
                    asg = boot_assign[b0:b0 + per_block, None]
                    br, bt = _correlate(x[asg, sel], y[asg, sel], kendall_variant)
                    parts["rho"].append(br)
                    parts["tau"].append(bt)
                boot = {st: np.concatenate(v) for st, v in parts.items()}
            for stat, values in (("rho", rho), ("tau", tau)):
                finite = values[np.isfinite(values)]
                mean = float(finite.mean()) if finite.size else math.nan
                rec[stat] = mean
                if np.isfinite(mean) and n_obs > 3:
                    lo, hi = fisher_z_interval(float(np.clip(mean, -1.0, 1.0)), n_obs, confidence=confidence)
                else:
                    lo, hi = math.nan, math.nan
                rec[f"{stat}_fisher_low"], rec[f"{stat}_fisher_high"] = float(lo), float(hi)
                lo, hi = _interval(values, confidence) if not deterministic else (math.nan, math.nan)
                rec[f"{stat}_percentile_low"], rec[f"{stat}_percentile_high"] = lo, hi
                rec[f"{stat}_bootstrap_low"], rec[f"{stat}_bootstrap_high"] = _interval(boot[stat], confidence)
                rec[f"{stat}_undefined"] = int(values.size - finite.size)
            rec["note"] = _undefined_reason(x, y, rho, tau)
            rec["signature"] = str(m.signature.with_extra(*sig.extra))
            return rec, rho, tau

        records, rho_all, tau_all = [], {}, {}
        for k, (rec, rho, tau) in enumerate(pool.map(metric_record, range(len(metrics)))):
            if rec["note"]:
                warnings.warn(f"{rec['label']}: {rec['note']}", RuntimeWarning, stacklevel=2)
            records.append(rec)
            rho_all[metrics[k].label], tau_all[metrics[k].label] = rho, tau
            tick()
    timings["correlations"] = time.perf_counter() - t2

    pairs_df = pd.DataFrame(pair_rows, columns=["system_a", "system_b", "n_shared", "n_units", "n_dropped"])
    exclusions = {"human_nan_rows": nan_rows, "human_without_hypothesis": int(missing.sum()),
                  "segments_dropped": int(pairs_df["n_dropped"].sum())}
    return StudyResult(
        summary=pd.DataFrame(records), rho=rho_all, tau=tau_all, pairs=pairs_df, exclusions=exclusions,
        unit_size=int(unit_size), n_assignments=int(n_assignments), n_distinct_assignments=n_distinct,
        n_observations=int(n_obs), seed=int(seed), confidence=float(confidence), n_bootstrap=int(n_bootstrap),
        kendall_variant=kendall_variant, signature=sig, timings=timings,
    )


def _undefined_reason(x: NDArray[np.float64], y: NDArray[np.float64], rho: NDArray, tau: NDArray) -> str:
    """Why ρ and τ are undefined in every assignment ('' when some assignment has a value)."""
    if np.isfinite(rho).any() or np.isfinite(tau).any():
        return ""
    if y.shape[-1] < 2:
        return f"ρ and τ are undefined: {y.shape[-1]} observation(s); a correlation needs at least 2"
    if np.ptp(y) == 0:
        same = " (every system pair rated the same)" if float(y.flat[0]) == 0 else ""
        return (f"ρ and τ are undefined: the human score differences are constant, {float(y.flat[0]):g} in all "
                f"{y.shape[-1]} observations{same}, so nothing can correlate with them")
    if np.all(np.ptp(x, axis=-1) == 0):
        return ("ρ and τ are undefined: the metric's differences are constant within every assignment "
                "(e.g. identical system outputs)")
    return "ρ and τ are undefined: every assignment has a constant side (metric or human differences)"


# --------------------------------------------------------------------------- sweeps (Figure 2)


def sweep(
    parameter: str,
    values: Iterable[Any],
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | Callable[[Any], Any],
    human: "pd.DataFrame | pa.Table",
    *,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> "pd.DataFrame":
    r"""One panel of the paper's Figure 2: the study repeated over a parameter's values.

    ``parameter='unit_size'`` passes each value as ``unit_size``;
    ``'threshold'`` and ``'max_ngram_order'`` call ``metrics(value)`` to build the
    metrics of that value (e.g. statistics computed with
    ``weight_threshold=value``, or :func:`corpus_metric` with
    ``max_ngram_order=value``). The seed is the same for every value (common random
    numbers), so differences between values are not partition noise.

    Parameters
    ----------
    parameter : {'threshold', 'unit_size', 'max_ngram_order'}
    values : iterable
    metrics : list of UnitMetric, or callable value → metrics
    human : pandas.DataFrame or pyarrow.Table
    **options
        Passed to :func:`correlation_study`.

    Returns
    -------
    pandas.DataFrame
        The summaries stacked, with columns ``parameter`` and ``value`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = [(s, g) for g in range(8) for s in ("A", "B")]
    >>> m = mean_metric([s for s, _ in cells], [g for _, g in cells], [float(g % 3) for _, g in cells], metric="t")
    >>> human = pd.DataFrame({"system": [s for s, _ in cells], "seg_id": [g for _, g in cells],
    ...                       "score": [float(g % 3 + (s == "A")) for s, g in cells]})
    >>> sweep("unit_size", [1, 2], [m], human, n_assignments=5)[["value", "n_observations"]].values.tolist()
    [[1, 8], [2, 4]]
    """
    import pandas as pd

    if parameter not in SWEEP_PARAMETERS:
        raise InputError(f"parameter must be one of {', '.join(map(repr, SWEEP_PARAMETERS))}; got {parameter!r}.")
    values = list(values)
    if not values:
        raise InputError("values: give at least one value to sweep over.")
    if parameter != "unit_size" and not callable(metrics):
        raise InputError(f"metrics: sweeping {parameter!r} needs a callable value → metrics (each value changes "
                         f"the statistics); got {type(metrics).__name__}.")
    if "unit_size" in options and parameter == "unit_size":
        raise InputError("unit_size: it is the swept parameter; pass the sizes as values.")
    frames = []
    for i, v in enumerate(values):
        ms = metrics(v) if callable(metrics) else metrics
        opts = dict(options, unit_size=v) if parameter == "unit_size" else options
        res = correlation_study(ms, human, **opts)
        f = res.summary.copy()
        f.insert(0, "value", v)
        f.insert(0, "parameter", parameter)
        frames.append(f)
        if progress is not None:
            progress(i + 1, len(values))
    return pd.concat(frames, ignore_index=True)


