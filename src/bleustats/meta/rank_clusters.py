r"""Rank clusters of metrics: PERM-BOTH significance between every two metrics, then WMT's ranking rule.

For one result column (a level, method, variant and grouping), the metrics are
sorted by decreasing value (label as the second key) and
:math:`P_{ij}` (:math:`i < j`) is the p-value of the PERM-BOTH test that
metric :math:`i` agrees with the humans better than metric :math:`j`
(:func:`bleustats.meta.compare.correlation_difference_test` with
``test='permutation'``; :func:`pa_permutation_test` for pairwise accuracy).
:func:`assign_ranks` then walks down the list: metric :math:`j` opens a new
cluster (rank + 1) when some metric of the current cluster is significantly
better than it (:math:`P_{ij} \le p`, default 0.05), else it joins the
current cluster. This is mt-metrics-eval's ``ComputeSigMatrix`` +
``AssignRanks`` (WMT metrics tasks' "significance clusters").

Segment-level tests use the items every system scores (as
:meth:`~bleustats.meta.metric_correlations.MetricCorrelations.compare`).
Tie-calibrated rows use mt-metrics-eval's test for them, the pair-swapping
permutation test at each metric's own ε
(:func:`bleustats.meta.tie_calibration.pair_permutation_test`,
``PairwisePermutationSigDiff``), on all cells. SPA rows are not ranked (rank
``None``): their PERM-BOTH test re-runs the whole SPA at every draw, and
corpus metrics have no per-segment scores to swap.

References
----------
.. [1] Deutsch, D., Dror, R., Roth, D. (2021). A statistical analysis of
   summarization evaluation metrics using resampling methods. TACL.
.. [2] Freitag, M. et al. (2021, 2022, 2023). Results of the WMT Metrics
   Shared Tasks; google-research/mt-metrics-eval ``data.ComputeSigMatrix``,
   ``data.AssignRanks``, ``data.CompareMetricsWithGlobalAccuracy``.

Examples
--------
>>> sig = np.array([[0, 0.2, 0.01], [0, 0, 0.04], [0, 0, 0]])
>>> assign_ranks(sig)          # metric 2 is beaten by metric 0 (and 1) of cluster 1
[1, 1, 2]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count
from ..errors import InputError
from .compare import correlation_difference_test
from .correlation import as_scores
from .resample import SeedLike, as_generator
from .tie_calibration import pair_permutation_test

if TYPE_CHECKING:
    import pandas as pd

    from .metric_correlations import MetricCorrelations

__all__ = ["RANK_P_VALUE", "assign_ranks", "pa_permutation_test", "rank_clusters"]

#: p-value threshold of WMT's clusters.
RANK_P_VALUE = 0.05


def assign_ranks(sig_matrix: ArrayLike, p_value: float = RANK_P_VALUE) -> list[int]:
    r"""Cluster ranks of metrics sorted by decreasing value, from their significance matrix.

    .. math::

        r_0 = 1, \qquad
        r_j = r_{j-1} + \big[\exists\, i \in [s, j) : P_{ij} \le p\big]

    where :math:`s` is the first metric of the current cluster (reset to
    :math:`j` when :math:`j` opens a new one).

    Parameters
    ----------
    sig_matrix : array_like, shape (n, n)
        ``sig_matrix[i, j]`` (``i < j``): p-value that metric ``i`` is better
        than metric ``j``; other entries are ignored.
    p_value : float

    Returns
    -------
    list of int

    Examples
    --------
    >>> assign_ranks([[0, 0.01, 0.01], [0, 0, 0.5], [0, 0, 0]])
    [1, 2, 2]
    """
    sig = np.asarray(sig_matrix, dtype=np.float64)
    if sig.ndim != 2 or sig.shape[0] != sig.shape[1]:
        raise InputError(f"sig_matrix must be square; got shape {sig.shape}.")
    ranks, rank, start = [], 1, 0
    for j in range(sig.shape[0]):
        if (sig[start:j, j] <= p_value).any():
            rank, start = rank + 1, j
        ranks.append(rank)
    return ranks


def _zscore(v: NDArray[np.float64]) -> NDArray[np.float64]:
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else v - v.mean()


def pa_permutation_test(metric_a: ArrayLike, metric_b: ArrayLike, human: ArrayLike, *,
                        groups: ArrayLike | None = None, n_samples: int = 1000, seed: SeedLike = 12345) -> float:
    r"""PERM-BOTH p-value that metric A's pairwise accuracy beats metric B's.

    Both metrics' system scores are z-scored (over all entries), each entry's
    two scores swapped with probability 1/2, and

    .. math::

        p = \frac{1}{K} \sum_k \big[\mathrm{PA}(a^{\pi_k}) - \mathrm{PA}(b^{\pi_k})
            \ge \mathrm{PA}(a) - \mathrm{PA}(b)\big]

    with PA pooled over ``groups`` (language pairs: system pairs within a
    group only; WMT's global accuracy), as mt-metrics-eval's
    ``CompareMetricsWithGlobalAccuracy``.

    Examples
    --------
    >>> h = np.arange(10.0)
    >>> pa_permutation_test(h, h[::-1], h, n_samples=200) < 0.05     # every pair right against every pair wrong
    True
    """
    a, b, h = as_scores(metric_a, "metric_a"), as_scores(metric_b, "metric_b"), as_scores(human, "human")
    if a.ndim != 1 or a.shape != b.shape or a.shape != h.shape:
        raise InputError(f"metric_a, metric_b and human must be 1-D, one score per system; got shapes {a.shape}, "
                         f"{b.shape} and {h.shape}.")
    n_samples = check_count("n_samples", n_samples, minimum=1)
    g = np.zeros(len(a), dtype=np.intp) if groups is None else np.unique(np.asarray(groups),
                                                                           return_inverse=True)[1].reshape(-1)
    i, j = np.triu_indices(len(a), 1)
    keep = g[i] == g[j]
    i, j = i[keep], j[keep]
    if not len(i):
        return float("nan")
    hs = np.sign(h[i] - h[j])

    def acc(m: NDArray[np.float64]) -> NDArray[np.float64]:
        return (np.sign(m[..., i] - m[..., j]) == hs).mean(axis=-1)

    za, zb = _zscore(a), _zscore(b)
    delta = acc(za) - acc(zb)
    swap = as_generator(seed).integers(2, size=(n_samples, len(a)), dtype=bool)
    d = acc(np.where(swap, zb, za)) - acc(np.where(swap, za, zb))
    return float(np.mean(d >= delta - 1e-12))


def rank_clusters(result: "MetricCorrelations", *, n_samples: int = 1000, seed: SeedLike = 12345,
                  p_value: float = RANK_P_VALUE) -> tuple["pd.DataFrame", dict[tuple, NDArray[np.float64]]]:
    """Rank clusters of every result column of :func:`~bleustats.meta.metric_correlations.metric_correlations`.

    Returns
    -------
    (ranks, matrices)
        ``ranks``: ``level``, ``method``, ``variant``, ``grouping``,
        ``label``, ``value``, ``rank`` (``None`` where not ranked), in
        decreasing value per column. ``matrices``: per column key ``(level,
        method, variant, grouping)``, the significance matrix (rows and
        columns in the order of ``ranks``).

    Examples
    --------
    >>> import pandas as pd
    >>> from bleustats.meta.metric_correlations import metric_correlations
    >>> from bleustats.meta.units import mean_metric
    >>> rng = np.random.default_rng(0)
    >>> q = rng.normal(size=(4, 30))
    >>> sys_, seg = np.repeat(list("ABCD"), 30), np.tile(np.arange(30), 4)
    >>> human = pd.DataFrame({"system": sys_, "seg_id": seg, "score": q.ravel()})
    >>> good = mean_metric(sys_, seg, (q + rng.normal(0, 0.3, q.shape)).ravel(), metric="good")
    >>> bad = mean_metric(sys_, seg, rng.normal(size=120), metric="bad")
    >>> res = metric_correlations([good, bad], human, methods=("pearson",), levels=("segment",))
    >>> ranks, _ = rank_clusters(res, n_samples=200)
    >>> ranks[["label", "rank"]].values.tolist()
    [['good [all]', 1], ['bad [all]', 2]]
    """
    import pandas as pd

    corr = result.correlations
    complete = result._complete_items()
    rows, matrices = [], {}
    keys = ["level", "method", "variant", "grouping"]
    for key, col in corr.groupby(keys, sort=False, dropna=False):
        col = col.assign(_nan=col["value"].isna()).sort_values(["_nan", "value", "label"],
                                                               ascending=[True, False, True])
        level, method, variant, grouping = key
        variant = variant if isinstance(variant, str) else None
        ranked = method != "spa"
        calibrated = bool(col["tie_calibrated"].any())
        eps = dict(zip(col["label"], col["threshold"]))
        labels = col["label"].tolist()
        n = len(labels)
        sig = np.full((n, n), np.nan)
        if ranked:
            for a in range(n):
                for b in range(a + 1, n):
                    if calibrated:
                        sig[a, b] = _calibrated_p_value(result, labels[a], labels[b], eps, level, grouping,
                                                        n_samples, seed)
                    else:
                        sig[a, b] = _p_value(result, labels[a], labels[b], level, method, variant, grouping,
                                             complete, n_samples, seed)
            ranks: Sequence[Any] = assign_ranks(np.nan_to_num(sig, nan=1.0), p_value)
        else:
            ranks = [None] * n
        matrices[(level, method, variant, grouping)] = sig
        for label, value, rank in zip(labels, col["value"], ranks):
            rows.append({"level": level, "method": method, "variant": variant, "grouping": grouping,
                         "label": label, "value": value, "rank": rank})
    return pd.DataFrame(rows, columns=keys + ["label", "value", "rank"]), matrices


def _calibrated_p_value(result: "MetricCorrelations", a: str, b: str, eps: dict, level: str, grouping: str,
                        n_samples: int, seed: SeedLike) -> float:
    if level == "system":
        x, y, h, groups = result.system_scores[a], result.system_scores[b], result.system_scores["human"], None
    else:
        x, y, h = (result.segment_scores[k] for k in (a, b, "human"))
        groups = None if grouping == "flat" else (result.cell_item if grouping == "item" else result.cell_system)
    return pair_permutation_test(x, y, h, threshold_a=eps[a], threshold_b=eps[b], groups=groups,
                                 n_samples=n_samples, seed=seed)


def _p_value(result: "MetricCorrelations", a: str, b: str, level: str, method: str, variant: str | None,
             grouping: str, complete: NDArray[np.bool_], n_samples: int, seed: SeedLike) -> float:
    if method == "pa":
        return pa_permutation_test(result.system_scores[a], result.system_scores[b], result.system_scores["human"],
                                   n_samples=n_samples, seed=seed)
    kw: dict[str, Any] = dict(method=method, variant="acc23" if variant == "tau23" else (variant or "b"),
                              test="permutation", n_samples=n_samples, seed=seed, level=level)
    if level == "system":
        x, y, h = (result.system_scores[k] for k in (a, b, "human"))
    else:
        x, y, h = (result.segment_scores[k][complete] for k in (a, b, "human"))
        kw.update(system=result.cell_system[complete], item=result.cell_item[complete], grouping=grouping)
    return correlation_difference_test(x, y, h, **kw).p_value
