r"""System-level pairwise accuracy (PA) and soft pairwise accuracy (SPA) of a metric.

**Pairwise accuracy** (Kocmi et al., 2021; mt-metrics-eval's ``Agreement``):
the share of system pairs the metric orders as the humans do,

.. math::

    \mathrm{PA} = \frac{1}{\binom{S}{2}} \sum_{a < b}
        \big[\operatorname{sign}(m_a - m_b) = \operatorname{sign}(h_a - h_b)\big],

a tie agreeing only with a tie. Pooled over language pairs it is WMT's *global
accuracy*: :math:`\sum \text{agreements} / \sum \text{pairs}`.

**Soft pairwise accuracy** (Thompson et al., 2024; mt-metrics-eval's
``PairwiseConfidenceError``): one minus the mean, over system pairs, of the
distance between the p-values of a paired permutation test of ":math:`a` is
better than :math:`b`" on the human side and on the metric side,

.. math::

    \mathrm{SPA} = 1 - \frac{1}{\binom{S}{2}} \sum_{a < b} \big| p^h_{ab} - p^m_{ab} \big|,
    \qquad
    p_{ab} = \frac{1}{K} \sum_{k=1}^{K}
        \big[\Delta\big(A'_k, B'_k\big) \ge \Delta(A, B)\big]

where the :math:`k`-th permutation swaps a random half of the segments
between the two systems (segment :math:`i` swapped when :math:`s_{ki} = 1`),
giving the pseudo-systems :math:`A'_k, B'_k`, and :math:`\Delta` is the
difference of their scores. The same masks :math:`s` serve the human scores
and every metric, as in mt-metrics-eval (which reuses its seed).

What :math:`\Delta` is depends on the metric, and this is where bleustats
differs from mt-metrics-eval, which always sums segment scores:

* a **mean** metric (external scores, sentence BLEU, the human scores):
  :math:`\Delta = \sum_i (x'_{Ai} - x'_{Bi})`, i.e.
  :math:`\sum_i (1 - 2 s_{ki}) (x_{Ai} - x_{Bi})`, mt-metrics-eval's statistic;
* a **corpus** metric (BLEU, ΔBLEU, chrF, TER from statistics): the swapped
  systems' statistics are summed and scored, so the metric stays a corpus
  metric under permutation,
  :math:`\Sigma_{A'} = \Sigma_A - s_k^\top (X_A - X_B)`,
  :math:`\Sigma_{B'} = \Sigma_B + s_k^\top (X_A - X_B)` and
  :math:`\Delta = m(\Sigma_{A'}) - m(\Sigma_{B'})`; all permutations and all
  pairs are one matrix product of the 0/1 masks with the stacked statistics
  differences.

The permutation test needs every system scored on the same segments: SPA
uses the segments every system has (``n`` reports how many); comparisons
whose statistic is equal up to rounding count as ``>=`` (a relative tolerance
of :math:`10^{-9}`).

References
----------
.. [1] Kocmi, T., Federmann, C., Grundkiewicz, R., Junczys-Dowmunt, M.,
   Matsushita, H., Menezes, A. (2021). To Ship or Not to Ship: An Extensive
   Evaluation of Automatic Metrics for Machine Translation. WMT.
.. [2] Thompson, B., Mathur, N., Deutsch, D., Khayrallah, H. (2024).
   Improving Statistical Significance in Human Evaluation of Automatic
   Metrics via Soft Pairwise Accuracy. WMT.
.. [3] google-research/mt-metrics-eval, ``stats.Agreement``,
   ``stats.PairwiseConfidenceError``, ``pce.compute_pairwise_p_values``.

Examples
--------
>>> pairwise_accuracy([3.0, 2.0, 1.0], [0.9, 0.5, 0.7])
PairwiseAccuracy(value=0.6666666666666666, agreements=2, pairs=3)
>>> masks = permutation_masks(4, 200, seed=1)
>>> human = np.array([[1.0, 2, 3, 4], [0, 0, 1, 1], [0, 0, 0, 0]])
>>> p = pairwise_p_values(human, masks)
>>> round(float(spa(p, p)), 3)
1.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count
from ..errors import InputError
from .correlation import as_scores
from .resample import SeedLike, as_generator

__all__ = [
    "PairwiseAccuracy",
    "corpus_pairwise_p_values",
    "pairwise_accuracy",
    "pairwise_p_values",
    "permutation_masks",
    "spa",
]

_RTOL = 1e-9
# (permutations x pairs x statistics) floats a corpus batch holds at once
_CHUNK = 1 << 24


@dataclass(frozen=True)
class PairwiseAccuracy:
    """Pairwise accuracy and its counts (pool counts over language pairs for global accuracy)."""

    value: float
    agreements: int
    pairs: int


def pairwise_accuracy(human: ArrayLike, metric: ArrayLike) -> PairwiseAccuracy:
    r"""Share of system pairs ordered alike by ``metric`` and ``human`` (mt-metrics-eval's ``Agreement``).

    .. math::

        \mathrm{PA} = \frac{\#\{a < b : \operatorname{sign}(m_a - m_b) = \operatorname{sign}(h_a - h_b)\}}
                           {\binom{S}{2}}

    Parameters
    ----------
    human, metric : array_like, shape (S,)
        One score per system, aligned; higher is better on both sides.

    Returns
    -------
    PairwiseAccuracy
        ``value`` is ``nan`` for fewer than two systems.

    Examples
    --------
    >>> pairwise_accuracy([1.0, 2.0, 2.0], [0.1, 0.3, 0.3]).value   # the tie agrees with a tie
    1.0
    """
    h = as_scores(human, "human")
    m = as_scores(metric, "metric")
    if h.ndim != 1 or m.shape != h.shape:
        raise InputError(f"human and metric must be 1-D with one score per system; got shapes {h.shape} and "
                         f"{m.shape}.")
    i, j = np.triu_indices(len(h), 1)
    agree = int((np.sign(h[i] - h[j]) == np.sign(m[i] - m[j])).sum())
    return PairwiseAccuracy(value=agree / len(i) if len(i) else float("nan"), agreements=agree, pairs=len(i))


def permutation_masks(n_segments: int, n_permutations: int, *, seed: SeedLike = None) -> NDArray[np.float64]:
    """Random 0/1 swap masks, shape ``(n_permutations, n_segments)``: 1 swaps the segment between two systems.

    Examples
    --------
    >>> m = permutation_masks(5, 3, seed=0)
    >>> m.shape, set(np.unique(m).tolist()) <= {0.0, 1.0}
    ((3, 5), True)
    """
    check_count("n_permutations", n_permutations, minimum=1)
    check_count("n_segments", n_segments, minimum=0)
    rng = as_generator(seed)
    return rng.integers(0, 2, size=(n_permutations, n_segments)).astype(np.float64)


def _p_values(null: NDArray[np.float64], test: NDArray[np.float64], scale: NDArray[np.float64]
              ) -> NDArray[np.float64]:
    """Share of permutations with null >= test, equality up to rounding (null: (K, pairs))."""
    return (null >= test - _RTOL * scale).mean(axis=0)


def _pairs(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    return np.triu_indices(n, 1)


def pairwise_p_values(scores: ArrayLike, masks: NDArray[np.float64]) -> NDArray[np.float64]:
    r"""Permutation p-values of "system a better than b" from summed segment scores, for every pair a < b.

    .. math::

        p_{ab} = \frac{1}{K} \sum_k \Big[\sum_i (1 - 2 s_{ki})(x_{ai} - x_{bi}) \ge \sum_i (x_{ai} - x_{bi})\Big]

    (mt-metrics-eval's ``pce.compute_pairwise_p_values``, with the masks given).

    Parameters
    ----------
    scores : array_like, shape (S, n)
        Segment scores of each system on the same segments (higher is better).
    masks : numpy.ndarray, shape (K, n)
        :func:`permutation_masks`.

    Returns
    -------
    numpy.ndarray, shape (S * (S - 1) / 2,)
        p-values in the order of ``numpy.triu_indices(S, 1)``.

    Examples
    --------
    >>> pairwise_p_values([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]], permutation_masks(3, 1000, seed=0)).item() < 0.2
    True
    """
    x = as_scores(scores, "scores")
    if x.ndim != 2 or masks.ndim != 2 or masks.shape[1] != x.shape[1]:
        raise InputError(f"scores must be (systems, segments) and masks (permutations, segments) with the same "
                         f"segments; got shapes {x.shape} and {masks.shape}.")
    i, j = _pairs(x.shape[0])
    d = (x[i] - x[j]).T  # (n, pairs)
    test = d.sum(axis=0)
    null = test[None, :] - 2.0 * (masks @ d)
    return _p_values(null, test, np.abs(d).sum(axis=0))


def corpus_pairwise_p_values(stats: NDArray[np.float64], masks: NDArray[np.float64],
                             score: Callable[[NDArray[np.float64]], NDArray[np.float64]], *,
                             sign: float = 1.0) -> NDArray[np.float64]:
    r"""Permutation p-values of "system a better than b" for a corpus metric, statistics swapped per segment.

    .. math::

        p_{ab} = \frac{1}{K} \sum_k \Big[
            \sigma\big(m(\Sigma_a - s_k^\top D) - m(\Sigma_b + s_k^\top D)\big)
            \ge \sigma\big(m(\Sigma_a) - m(\Sigma_b)\big) \Big],
        \qquad D = X_a - X_b

    with :math:`X_a` the statistics rows of system :math:`a` on the shared
    segments, :math:`\Sigma_a` their column sums, :math:`m` the corpus score
    of summed statistics and :math:`\sigma` = ``sign`` (-1 when lower is
    better, as for TER).

    Parameters
    ----------
    stats : numpy.ndarray, shape (S, n, k)
        Statistics of every system on the same ``n`` segments.
    masks : numpy.ndarray, shape (K, n)
        :func:`permutation_masks`.
    score : callable
        Corpus score of summed statistics, ``(..., k) -> (...)``
        (:meth:`bleustats.meta.units.UnitMetric.unit_scores`).
    sign : {1.0, -1.0}

    Returns
    -------
    numpy.ndarray, shape (S * (S - 1) / 2,)

    Examples
    --------
    >>> x = np.array([[[2.0, 4.0]] * 3, [[1.0, 4.0]] * 3])       # correct / total per segment
    >>> p = corpus_pairwise_p_values(x, permutation_masks(3, 500, seed=0), lambda s: s[..., 0] / s[..., 1])
    >>> bool(p[0] < 0.25)
    True
    """
    if stats.ndim != 3 or masks.ndim != 2 or masks.shape[1] != stats.shape[1]:
        raise InputError(f"stats must be (systems, segments, statistics) and masks (permutations, segments) with "
                         f"the same segments; got shapes {stats.shape} and {masks.shape}.")
    i, j = _pairs(stats.shape[0])
    totals = stats.sum(axis=1)  # (S, k)
    observed = sign * (score(totals[i]) - score(totals[j]))  # (pairs,)
    k_stats = stats.shape[2]
    out = np.empty(len(i))
    step = max(1, _CHUNK // max(1, masks.shape[0] * k_stats))
    for lo in range(0, len(i), step):
        pi, pj = i[lo:lo + step], j[lo:lo + step]
        d = stats[pi] - stats[pj]  # (p, n, k)
        moved = (masks @ d.transpose(1, 0, 2).reshape(stats.shape[1], -1)).reshape(masks.shape[0], len(pi), k_stats)
        null = sign * (score(totals[pi][None] - moved) - score(totals[pj][None] + moved))
        scale = np.abs(observed[lo:lo + step]) + 1.0
        out[lo:lo + step] = _p_values(null, observed[lo:lo + step], scale)
    return out


def spa(human_p: ArrayLike, metric_p: ArrayLike) -> float:
    r"""Soft pairwise accuracy from the two sides' pairwise p-values: :math:`1 - \overline{|p^h - p^m|}`.

    Examples
    --------
    >>> spa([0.01, 0.5, 0.9], [0.02, 0.4, 0.9])
    0.9633333333333334
    """
    h = np.asarray(human_p, dtype=np.float64)
    m = np.asarray(metric_p, dtype=np.float64)
    if h.shape != m.shape or h.ndim != 1:
        raise InputError(f"human_p and metric_p must be 1-D p-values of the same pairs; got shapes {h.shape} and "
                         f"{m.shape}.")
    return float(1.0 - np.abs(h - m).mean()) if h.size else float("nan")
