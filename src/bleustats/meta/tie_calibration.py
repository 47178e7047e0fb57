r"""Tie calibration of ``acc23`` / ``tau23``: the metric tie threshold ε that maximises agreement.

Deutsch, Foster and Freitag (2023) let a metric declare a tie when two of its
scores differ by at most ε, and choose ε to maximise the correlation on the
data at hand (mt-metrics-eval's ``KendallWithTiesOpt``). Over groups
:math:`g` (one group for flat and system-level correlations; one per item or
per system when averaged), each with :math:`P_g = \binom{k_g}{2}` pairs of
its :math:`k_g \ge 2` entries,

.. math::

    \mathrm{acc}_{23}(\varepsilon) = \frac{1}{G} \sum_g \frac{A_g(\varepsilon)}{P_g},
    \qquad
    \tau_{23}(\varepsilon) = \frac{1}{G} \sum_g \frac{2 A_g(\varepsilon) - P_g}{P_g}

where :math:`A_g(\varepsilon)` counts the pairs of :math:`g` that agree: the
human and metric differences have the same sign, a metric difference of at
most ε counting as a tie (agreeing only with a human tie). Turning the pair
:math:`(i, j)` into a metric tie changes :math:`A_g` by
:math:`\delta_{ij} = [h_i = h_j] - [\text{pair agrees at } \varepsilon = 0]`,
so with the pairs sorted by :math:`|m_i - m_j|` the whole curve is one
cumulative sum of :math:`\delta_{ij} / P_g`. The candidates are 0 and every
pairwise difference; the chosen ε is the smallest candidate reaching the
maximum (mt-metrics-eval's ``nanargmax`` over the same list).

Cost: the pairs of every group are built at once (:math:`\sum_g P_g` entries,
vectorized per group size) and sorted once, :math:`O(P \log P)`. A flat
segment-level correlation of :math:`n` cells has :math:`n(n-1)/2` pairs, so
:func:`tie_calibrated_kendall` refuses more than :data:`MAX_PAIRS` pairs
(use the item grouping, as WMT does, for large sets).

References
----------
.. [1] Deutsch, D., Foster, G., Freitag, M. (2023). Ties Matter:
   Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie
   Calibration. EMNLP.
.. [2] google-research/mt-metrics-eval, ``stats.KendallWithTiesOpt`` and
   ``tau_optimization.tau_optimization``.

Examples
--------
>>> res = tie_calibrated_kendall([0.1, 0.2, 0.9, 1.0], [1.0, 1.0, 2.0, 2.0])
>>> res.value, res.threshold        # ε = 0.1 ties (0.1, 0.2) and (0.9, 1.0): every pair agrees
(1.0, 0.1)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import choices_text
from ..errors import InputError
from .._validate import check_count
from .correlation import as_scores
from .resample import SeedLike, as_generator

__all__ = ["MAX_PAIRS", "TIE_CALIBRATED_VARIANTS", "TieCalibration", "pair_permutation_test",
           "tie_calibrated_kendall"]

#: Kendall variants that support tie calibration.
TIE_CALIBRATED_VARIANTS = ("acc23", "tau23")
#: Most pairs :func:`tie_calibrated_kendall` builds (about 70 bytes each at the peak: 1 GB at the limit).
MAX_PAIRS = 15_000_000


@dataclass(frozen=True)
class TieCalibration:
    """The calibrated correlation and its threshold.

    Attributes
    ----------
    value : float
        ``acc23`` or ``tau23`` at ``threshold`` (an average over groups);
        ``nan`` when no group has two entries.
    threshold : float
        The chosen ε (metric differences ``<= threshold`` are ties).
    n : int
        Entries in the groups used.
    n_groups : int
        Groups with at least two entries.
    n_skipped : int
        Groups of one entry (no pair).
    n_pairs : int
        Pairs compared.
    variant : str
    """

    value: float
    threshold: float
    n: int
    n_groups: int
    n_skipped: int
    n_pairs: int
    variant: str

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python (for JSON)."""
        return asdict(self)


def _labels(groups: ArrayLike | None, n: int, shape: tuple[int, ...]) -> NDArray[np.intp]:
    if groups is None:
        return np.zeros(n, dtype=np.intp)
    labels = np.asarray(groups)
    if labels.shape != shape:
        raise InputError(f"groups must give one label per entry (shape {shape}); got shape {labels.shape}.")
    return np.unique(labels, return_inverse=True)[1].reshape(-1) if n else np.zeros(0, np.intp)


def _group_pairs(m: NDArray[np.float64], h: NDArray[np.float64], inv: NDArray[np.intp]
                 ) -> tuple[NDArray[np.float64], NDArray[np.int8], NDArray[np.intp], NDArray[np.int64],
                            NDArray[np.int64]]:
    """Every within-group pair: |dm|, δ, group; agreements at ε=0 and pairs per group."""
    order = np.argsort(inv, kind="stable")
    sizes = np.bincount(inv)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    agree0 = np.zeros(len(sizes), dtype=np.int64)
    diffs, deltas, groups = [], [], []
    for size in np.unique(sizes[sizes >= 2]):
        gid = np.flatnonzero(sizes == size)
        idx = order[starts[gid][:, None] + np.arange(size)]  # (groups, size)
        i, j = np.triu_indices(int(size), 1)
        dm = m[idx[:, j]] - m[idx[:, i]]
        dh = h[idx[:, j]] - h[idx[:, i]]
        htie = dh == 0
        agree = np.sign(dm) == np.sign(dh)  # both tied, or the same strict sign
        agree0[gid] = agree.sum(axis=1)
        diffs.append(np.abs(dm).ravel())
        deltas.append((htie.astype(np.int8) - agree.astype(np.int8)).ravel())
        groups.append(np.repeat(gid, len(i)))
    pairs = sizes * (sizes - 1) // 2
    if not diffs:
        return np.zeros(0), np.zeros(0, np.int8), np.zeros(0, np.intp), agree0, pairs
    return np.concatenate(diffs), np.concatenate(deltas), np.concatenate(groups), agree0, pairs


def tie_calibrated_kendall(metric: ArrayLike, human: ArrayLike, *, groups: ArrayLike | None = None,
                           variant: str = "acc23") -> TieCalibration:
    r"""``acc23`` or ``tau23`` at the metric tie threshold ε that maximises it (Deutsch et al., 2023).

    .. math::

        \varepsilon^* = \min \operatorname*{arg\,max}_{\varepsilon \in \{0\} \cup \{|m_i - m_j|\}}
        \frac{1}{G} \sum_g \frac{A_g(\varepsilon)}{P_g}

    (module docstring); equal to mt-metrics-eval's
    ``KendallWithTiesOpt(..., sample_rate=1.0)`` with the groups as its rows.

    Parameters
    ----------
    metric, human : array_like, shape (n,)
        Paired scores; no NaN (drop unrated entries first).
    groups : array_like, shape (n,), optional
        Group label of each entry (the item or system of a segment-level
        correlation averaged by item or by system); default one group.
    variant : {'acc23', 'tau23'}

    Returns
    -------
    TieCalibration

    Raises
    ------
    InputError
        Bad variant, NaN or mismatched inputs, more than :data:`MAX_PAIRS`
        pairs.

    Examples
    --------
    >>> m = [0.50, 0.52, 0.90, 0.10, 0.12, 0.80]
    >>> h = [1.0, 1.0, 3.0, 2.0, 1.0, 3.0]
    >>> res = tie_calibrated_kendall(m, h, groups=[1, 1, 1, 2, 2, 2])
    >>> round(res.value, 6), round(res.threshold, 2), res.n_groups
    (0.833333, 0.02, 2)
    >>> tie_calibrated_kendall(m, h, groups=[1, 1, 1, 2, 2, 2], variant="tau23").threshold == res.threshold
    True
    """
    if variant not in TIE_CALIBRATED_VARIANTS:
        raise InputError(f"variant must be {choices_text(TIE_CALIBRATED_VARIANTS)} for tie calibration; "
                         f"got {variant!r}.")
    m = as_scores(metric, "metric")
    h = as_scores(human, "human")
    if m.ndim != 1 or h.shape != m.shape:
        raise InputError(f"metric and human must be 1-D and of one length; got shapes {m.shape} and {h.shape}.")
    inv = _labels(groups, len(m), m.shape)
    sizes = np.bincount(inv) if len(m) else np.zeros(0, np.int64)
    n_pairs = int((sizes * (sizes - 1) // 2).sum())
    if n_pairs > MAX_PAIRS:
        raise InputError(f"tie calibration: {n_pairs:,} pairs of entries exceed the limit of {MAX_PAIRS:,} "
                         "(the flat grouping of a large set); group by item or by system instead.")
    used = sizes >= 2
    n_groups = int(used.sum())
    base = dict(n=int(sizes[used].sum()), n_groups=n_groups, n_skipped=int((~used).sum()), n_pairs=n_pairs,
                variant=variant)
    if not n_groups:
        return TieCalibration(value=float("nan"), threshold=0.0, **base)
    diff, delta, gid, agree0, pairs = _group_pairs(m, h, inv)
    order = np.argsort(diff, kind="stable")
    diff = diff[order]
    # value after each pair, and the last pair of each run of equal differences
    last = np.ones(len(diff), dtype=bool)
    last[:-1] = diff[1:] != diff[:-1]
    # the curve counted exactly, in units of 1 / L with L the least common multiple of the groups' pair counts
    # (a pair of group g weighs L / P_g): equal values compare equal, so the smallest threshold reaching the
    # maximum is found whatever the order of summation (a float curve can pass a tie by one rounding). int64
    # where L times the number of groups fits, else Python integers (slower: many distinct group sizes).
    p_used = pairs[used]
    lcm = math.lcm(*np.unique(p_used).tolist())
    if lcm * n_groups < 2**62:
        weight = lcm // pairs[gid[order]]
        base_num = int((agree0[used] * (lcm // p_used)).sum())
        steps = delta[order].astype(np.int64) * weight
    else:
        sizes_of_pairs, which = np.unique(pairs[gid[order]], return_inverse=True)
        weight = np.array([lcm // int(p) for p in sizes_of_pairs], dtype=object)[which]
        base_num = sum(int(a) * (lcm // int(p)) for a, p in zip(agree0[used], p_used))
        steps = delta[order].astype(object) * weight
    cand = (base_num + np.cumsum(steps))[last]
    k = int(np.argmax(cand)) if len(cand) else 0
    if len(cand) and cand[k] > base_num:
        best_num, threshold = int(cand[k]), float(diff[last][k])
    else:
        best_num, threshold = base_num, 0.0
    acc = best_num / (lcm * n_groups)  # Python's int division: correctly rounded
    value = acc if variant == "acc23" else 2.0 * acc - 1.0
    return TieCalibration(value=value, threshold=threshold, **base)


def _pair_agreements(m: NDArray[np.float64], h: NDArray[np.float64], inv: NDArray[np.intp], threshold: float
                     ) -> tuple[NDArray[np.bool_], NDArray[np.intp], NDArray[np.int64]]:
    """Per within-group pair: agreement at ``threshold``; the pair's group; pairs per group."""
    order = np.argsort(inv, kind="stable")
    sizes = np.bincount(inv)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    agree, gids = [], []
    for size in np.unique(sizes[sizes >= 2]):
        gid = np.flatnonzero(sizes == size)
        idx = order[starts[gid][:, None] + np.arange(size)]
        i, j = np.triu_indices(int(size), 1)
        dm = m[idx[:, j]] - m[idx[:, i]]
        dh = h[idx[:, j]] - h[idx[:, i]]
        tie = np.abs(dm) <= threshold
        agree.append(np.where(tie, dh == 0, (np.sign(dm) == np.sign(dh)) & (dh != 0)).ravel())
        gids.append(np.repeat(gid, len(i)))
    if not agree:
        return np.zeros(0, bool), np.zeros(0, np.intp), sizes * (sizes - 1) // 2
    return np.concatenate(agree), np.concatenate(gids), sizes * (sizes - 1) // 2


def pair_permutation_test(metric_a: ArrayLike, metric_b: ArrayLike, human: ArrayLike, *, threshold_a: float,
                          threshold_b: float, groups: ArrayLike | None = None, n_samples: int = 1000,
                          seed: SeedLike = 12345) -> float:
    r"""p-value that metric A's ``acc23`` at ``threshold_a`` beats metric B's at ``threshold_b``, pairs swapped.

    mt-metrics-eval's ``PairwisePermutationSigDiff`` (``perm_test='pairs'``),
    its test for tie-calibrated metrics: each metric keeps its own ε, and a
    draw swaps, for every pair of entries independently with probability
    1/2, which metric's verdict on the pair (agree or not) counts for which.
    With :math:`a_k, b_k \in \{0, 1\}` the two verdicts on pair :math:`k` of
    group :math:`g(k)` and :math:`d_k = (a_k - b_k) / (G\,P_{g(k)})`, the
    accuracy difference of a draw is :math:`\sum_k s_k d_k` with random signs
    :math:`s_k = \pm 1`, so

    .. math::

        p = \frac{1}{K} \sum_{r=1}^{K} \Big[\sum_k s_{rk} d_k \ge \sum_k d_k\Big]

    (the same p for ``tau23``, whose difference is twice as large). The
    :math:`s_k d_k` are independent and equal :math:`\pm |d_k|` with equal
    odds, and :math:`|d_k|` has one value per group size, so a draw is one
    binomial count per group size: :math:`O(K)` work however many pairs.

    Parameters
    ----------
    metric_a, metric_b, human : array_like, shape (n,)
    threshold_a, threshold_b : float
        Each metric's tie threshold (:func:`tie_calibrated_kendall`).
    groups : array_like, optional
        As in :func:`tie_calibrated_kendall`.
    n_samples : int
    seed : int, SeedSequence or Generator

    Returns
    -------
    float

    Examples
    --------
    >>> h = np.repeat([0.0, 1.0, 2.0, 3.0], 5)
    >>> good, bad = h + np.linspace(0, 0.1, 20), np.linspace(0, 1, 20)[::-1]
    >>> pair_permutation_test(good, bad, h, threshold_a=0.0, threshold_b=0.0, n_samples=200) < 0.05
    True
    """
    a, b, h = as_scores(metric_a, "metric_a"), as_scores(metric_b, "metric_b"), as_scores(human, "human")
    if a.ndim != 1 or a.shape != b.shape or a.shape != h.shape:
        raise InputError(f"metric_a, metric_b and human must be 1-D and of one length; got shapes {a.shape}, "
                         f"{b.shape} and {h.shape}.")
    n_samples = check_count("n_samples", n_samples, minimum=1)
    inv = _labels(groups, len(a), a.shape)
    agree_a, gid, pairs = _pair_agreements(a, h, inv, float(threshold_a))
    agree_b, _, _ = _pair_agreements(b, h, inv, float(threshold_b))
    n_groups = int((pairs > 0).sum())
    if not n_groups:
        return float("nan")
    diff = agree_a.astype(np.int8) - agree_b.astype(np.int8)
    keep = diff != 0
    # d_k = ±1 / (G P_g): one binomial draw per distinct |d| (the number of +1 signs among its pairs) gives
    # sum_k s_k d_k in distribution, whatever the number of pairs
    size, count = np.unique(pairs[gid[keep]], return_counts=True)
    observed = float((diff[keep] / (pairs[gid[keep]] * float(n_groups))).sum())
    rng = as_generator(seed)
    null = np.zeros(n_samples)
    for p_g, n_k in zip(size.tolist(), count.tolist()):
        # sum of s_k (a_k - b_k) over its n_k pairs: iid ±1 terms, so 2 Binomial(n_k, 1/2) - n_k
        null += (2.0 * rng.binomial(n_k, 0.5, size=n_samples) - n_k) / (p_g * float(n_groups))
    return float(np.mean(null >= observed - 1e-12))
