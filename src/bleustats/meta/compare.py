r"""Is metric A closer to the human scores than metric B? Tests on two correlations.

* :func:`correlation_difference_test` asks whether metric A correlates with
  human scores better than metric B (paired bootstrap over items, or
  mt-metrics-eval's PERM-BOTH permutation test), at system or segment level
  with mt-metrics-eval's groupings;
* :func:`williams_test` is the Williams (1959) test for dependent
  correlations, as recommended by Graham & Baldwin (2014).

References
----------
.. [1] Williams, E. J. (1959). Regression Analysis. Wiley.
.. [2] Graham, Y., Baldwin, T. (2014). Testing for significance of increased
   correlation with human judgment. EMNLP.
.. [3] Deutsch, D., Dror, R., Roth, D. (2021). A statistical analysis of
   summarization evaluation metrics using resampling methods. TACL
   (PERM-BOTH); google-research/mt-metrics-eval ``PermutationSigDiff``.

Examples
--------
>>> res = williams_test(0.9, 0.7, 0.8, 30)
>>> res.df, res.p_value < 0.05
(27, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count, choices_text
from ..errors import InputError
from .correlation import (CORRELATION_METHODS, GROUPINGS, KENDALL_VARIANTS, as_scores, correlate, kendall_tau,
                          wmt_pair_counts)
from .resample import generator_and_label
from ._options import CORRELATION_TESTS

__all__ = [
    "CORRELATION_LEVELS",
    "CORRELATION_TESTS",
    "CorrelationDifferenceResult",
    "WilliamsResult",
    "correlation_difference_test",
    "williams_test",
]

#: ``level`` values of :func:`correlation_difference_test`.
CORRELATION_LEVELS = ("system", "segment")

# entries of a (samples x units) block held at once; rows come in multiples of 32 so
# that drawing a chunk at a time consumes the generator exactly as one big draw does
_CHUNK = 1 << 22


@dataclass(frozen=True)
class CorrelationDifferenceResult:
    """Whether metric A correlates with the human scores better than metric B.

    Attributes
    ----------
    r_a, r_b : float
        The two correlations on the full data.
    difference : float
        ``r_a - r_b``.
    p_value : float
        One-sided, for :math:`H_1: r_a > r_b`.
    ci_low, ci_high : float or None
        Bootstrap percentile interval of the difference (``None`` for the
        permutation test).
    test, level, method, variant, grouping : str
    threshold : float
    n_samples : int
        Resamples or permutations drawn.
    n_valid : int
        Those where both correlations were defined (the p-value and interval
        use these).
    n : int
        Metric/human pairs per metric.
    n_units : int
        Units resampled (items, or systems at system level) or swapped (entries).
    seed : int, None or str
    """

    r_a: float
    r_b: float
    difference: float
    p_value: float
    ci_low: float | None
    ci_high: float | None
    test: str
    level: str
    method: str
    variant: str | None
    grouping: str
    threshold: float
    n_samples: int
    n_valid: int
    n: int
    n_units: int
    seed: int | None | str

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python (for JSON)."""
        return asdict(self)


@dataclass(frozen=True)
class WilliamsResult:
    """Williams' t for two dependent correlations sharing the human variable.

    Attributes
    ----------
    statistic : float
        Signed t (positive when ``r12 > r13``).
    df : int
        ``n - 3``.
    p_value : float
        One-sided, for :math:`H_1: \\rho_{12} > \\rho_{13}`.
    """

    statistic: float
    df: int
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python (for JSON)."""
        return asdict(self)


# --------------------------------------------------------------------------- metric comparisons


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsResult:
    r"""Williams' test: is :math:`\rho_{12} > \rho_{13}` when both share variable 1?

    Variable 1 is the human score, 2 and 3 the two metrics: ``r12`` and
    ``r13`` are the metrics' correlations with the human scores and ``r23``
    the correlation between the metrics (Graham & Baldwin, 2014, eq. 1):

    .. math::

        t = \frac{(r_{12} - r_{13})\sqrt{(n - 1)(1 + r_{23})}}
                 {\sqrt{2 K \frac{n - 1}{n - 3} + \bar r^2 (1 - r_{23})^3}},
        \quad K = 1 - r_{12}^2 - r_{13}^2 - r_{23}^2 + 2 r_{12} r_{13} r_{23},
        \quad \bar r = \tfrac12 (r_{12} + r_{13})

    with :math:`t \sim t_{n-3}` under the null; the p-value is one-sided,
    ``scipy.stats.t.sf(t, n - 3)``. mt-metrics-eval's ``WilliamsTest``
    returns ``sf(|t|)``, the same number whenever ``r12 >= r13``.

    Parameters
    ----------
    r12, r13, r23 : float
        Pearson correlations in [-1, 1] forming a valid correlation matrix.
    n : int
        Observations (systems for system-level correlations), > 3.

    Returns
    -------
    WilliamsResult

    References
    ----------
    .. [1] Williams, E. J. (1959). Regression Analysis. Wiley.
    .. [2] Graham, Y., Baldwin, T. (2014). Testing for significance of
       increased correlation with human judgment. EMNLP.

    Examples
    --------
    >>> res = williams_test(0.8, 0.6, 0.5, 30)
    >>> round(res.statistic, 4), res.df, round(res.p_value, 4)
    (1.7701, 27, 0.044)
    """
    from scipy.stats import t as t_dist

    vals = {"r12": r12, "r13": r13, "r23": r23}
    for name, v in vals.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not (-1.0 <= float(v) <= 1.0):
            raise InputError(f"{name} must be a correlation in [-1, 1]; got {v!r}.")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 3:
        raise InputError(f"n must be an int > 3 (the test has n - 3 degrees of freedom); got {n!r}.")
    r12, r13, r23 = float(r12), float(r13), float(r23)
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if k < -1e-12:
        raise InputError(f"r12, r13, r23 = {r12!r}, {r13!r}, {r23!r} cannot be correlations among three "
                         f"variables (determinant K = {k:.3g} < 0); compute all three on the same observations.")
    k = max(k, 0.0)
    rbar = (r12 + r13) / 2
    num = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    den = math.sqrt(2 * (n - 1) / (n - 3) * k + rbar**2 * (1 - r23) ** 3)
    if den == 0:
        stat = 0.0 if num == 0 else math.copysign(math.inf, num)
    else:
        stat = num / den
    return WilliamsResult(statistic=stat, df=int(n) - 3, p_value=float(t_dist.sf(stat, n - 3)))


def _grid(metric_a: ArrayLike, metric_b: ArrayLike, human: ArrayLike, level: str, system: Any, item: Any
          ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(systems, units) grids; resampling and permutation act on columns / entries."""
    a, b, h = as_scores(metric_a, "metric_a"), as_scores(metric_b, "metric_b"), as_scores(human, "human")
    if a.ndim != 1 or a.shape != b.shape or a.shape != h.shape:
        raise InputError(f"metric_a, metric_b and human must be 1-D and of equal length; got shapes "
                         f"{a.shape}, {b.shape} and {h.shape}.")
    if level == "system":
        if system is not None or item is not None:
            raise InputError("system and item label segment-level entries; at level='system' pass one score "
                             "per system and leave them None.")
        return a[None, :], b[None, :], h[None, :]
    if system is None or item is None:
        raise InputError("level='segment' needs system= and item= labels (one per entry) to resample items.")
    sys_l, item_l = np.asarray(system), np.asarray(item)
    if sys_l.shape != a.shape or item_l.shape != a.shape:
        raise InputError(f"system and item need one label per entry ({a.shape[0]}); got shapes {sys_l.shape} "
                         f"and {item_l.shape}.")
    _, si = np.unique(sys_l, return_inverse=True)
    _, ii = np.unique(item_l, return_inverse=True)
    si, ii = si.reshape(-1), ii.reshape(-1)
    n_sys, n_items = si.max() + 1, ii.max() + 1
    cells = np.bincount(si * n_items + ii, minlength=n_sys * n_items)
    if (cells != 1).any():
        raise InputError(f"level='segment' resamples items across all systems and needs every (system, item) "
                         f"pair exactly once; {int((cells == 0).sum())} pair(s) are missing and "
                         f"{int((cells > 1).sum())} repeated. Keep only items scored for every system.")
    grids = []
    for v in (a, b, h):
        g = np.empty((n_sys, n_items))
        g[si, ii] = v
        grids.append(g)
    return grids[0], grids[1], grids[2]


def _grid_corr(m: NDArray[np.float64], h: NDArray[np.float64], grouping: str, method: str, variant: str,
               threshold: float) -> NDArray[np.float64]:
    """Correlations of a batch of grids m, h of shape (k, systems, units) -> (k,)."""
    k, s, u = m.shape
    if grouping == "flat":
        return correlate(m.reshape(k, s * u), h.reshape(k, s * u), method=method, variant=variant, threshold=threshold)
    if grouping == "item":
        mm, hh, g = m.transpose(0, 2, 1).reshape(k * u, s), h.transpose(0, 2, 1).reshape(k * u, s), u
    else:
        mm, hh, g = m.reshape(k * s, u), h.reshape(k * s, u), s
    if mm.shape[1] < 2:
        return np.full(k, np.nan)
    if method == "kendall" and variant == "wmt":
        num, den = wmt_pair_counts(mm, hh, threshold=threshold)
        num, den = num.reshape(k, g).sum(axis=1), den.reshape(k, g).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, (2 * num - den) / den, np.nan)
    vals = correlate(mm, hh, method=method, variant=variant, threshold=threshold).reshape(k, g)
    ok = ~np.isnan(vals)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok.any(axis=1), np.where(ok, vals, 0.0).sum(axis=1) / ok.sum(axis=1), np.nan)


def correlation_difference_test(
    metric_a: ArrayLike,
    metric_b: ArrayLike,
    human: ArrayLike,
    *,
    level: str = "system",
    method: str = "pearson",
    variant: str = "b",
    threshold: float = 0.0,
    test: str = "bootstrap",
    n_samples: int = 1000,
    seed: int | None | np.random.Generator = 12345,
    system: ArrayLike | None = None,
    item: ArrayLike | None = None,
    grouping: str = "flat",
    confidence: float = 0.95,
) -> CorrelationDifferenceResult:
    r"""Does metric A correlate with the human scores better than metric B?

    With :math:`\Delta = r(a, h) - r(b, h)` on the full data:

    * ``test='bootstrap'``: resample the units (items at segment level, all
      systems of an item together; systems at system level) with
      replacement, the human scores with them, and recompute both
      correlations; :math:`p = \Pr^*(\Delta^* \le 0)` and the percentile
      interval of :math:`\Delta^*`.
    * ``test='permutation'`` (PERM-BOTH, mt-metrics-eval's
      ``PermutationSigDiff``): z-score each metric over all entries, swap the
      two metrics' scores at every entry independently with probability 1/2,
      and :math:`p = \#\{\Delta^\pi \ge \Delta\} / B`.

    .. math::

        p_{boot} = \frac{\#\{i : \Delta^*_i \le 0\}}{B'}, \qquad
        p_{perm} = \frac{\#\{i : \Delta^{\pi}_i \ge \Delta\}}{B'}

    over the :math:`B'` draws where both correlations are defined.

    Parameters
    ----------
    metric_a, metric_b, human : array_like, shape (n,)
        Scores per system (``level='system'``) or per (system, item) entry
        (``level='segment'``; every system must score every item).
    level : {'system', 'segment'}
    method : {'pearson', 'spearman', 'kendall'}
    variant, threshold
        For ``method='kendall'``, as in :func:`bleustats.meta.correlation.kendall_tau`.
    test : {'bootstrap', 'permutation'}
    n_samples : int
    seed : int, None or numpy.random.Generator
    system, item : array_like, optional
        Entry labels, required at segment level.
    grouping : {'flat', 'item', 'system'}
        Segment-level averaging, as in
        :func:`bleustats.meta.correlation.segment_correlation`.
    confidence : float
        Level of the bootstrap interval.

    Returns
    -------
    CorrelationDifferenceResult

    References
    ----------
    .. [1] Deutsch, D., Dror, R., Roth, D. (2021). A statistical analysis of
       summarization evaluation metrics using resampling methods. TACL.
    .. [2] Freitag, M. et al. (2021). Results of the WMT21 Metrics Shared
       Task. WMT (PERM-BOTH for metric clusters).
    .. [3] Koehn, P. (2004). Statistical significance tests for machine
       translation evaluation. EMNLP.

    Examples
    --------
    >>> human = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> good = [1.1, 2.0, 2.9, 4.2, 5.1, 5.8]
    >>> res = correlation_difference_test(good, good, human, test="permutation", n_samples=200)
    >>> res.difference, res.p_value                # identical metrics: never significant
    (0.0, 1.0)
    """
    if level not in CORRELATION_LEVELS:
        raise InputError(f"level must be {choices_text(CORRELATION_LEVELS)}; got {level!r}.")
    if test not in CORRELATION_TESTS:
        raise InputError(f"test must be {choices_text(CORRELATION_TESTS)}; got {test!r}.")
    if method not in CORRELATION_METHODS:
        raise InputError(f"method must be {choices_text(CORRELATION_METHODS)}; got {method!r}.")
    if method == "kendall" and variant not in KENDALL_VARIANTS:
        raise InputError(f"variant must be {choices_text(KENDALL_VARIANTS)}; got {variant!r}.")
    if grouping not in GROUPINGS:
        raise InputError(f"grouping must be {choices_text(GROUPINGS)}; got {grouping!r}.")
    if level == "system" and grouping != "flat":
        raise InputError(f"grouping applies to level='segment'; got grouping={grouping!r} at level='system'.")
    if not (isinstance(confidence, (float, int)) and 0 < confidence < 1):
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}.")
    n_samples = check_count("n_samples", n_samples, minimum=1)
    if method != "kendall":
        variant, threshold = "b", 0.0
    a, b, h = _grid(metric_a, metric_b, human, level, system, item)
    if method == "kendall":
        kendall_tau([0.0, 1.0], [0.0, 1.0], variant=variant, threshold=threshold)  # checks threshold
        if test == "permutation" and variant == "acc23" and threshold > 0:
            raise InputError(
                f"threshold: the permutation test swaps z-scored metric scores, so acc23's tie tolerance "
                f"(in each metric's own units) has no common scale; got threshold={threshold!r}. Use "
                "test='bootstrap', or threshold=0."
            )
    rng, label = generator_and_label(seed)
    corr = lambda m, hh: _grid_corr(m, hh, grouping, method, variant, float(threshold))  # noqa: E731
    r_a = float(corr(a[None], h[None])[0])
    r_b = float(corr(b[None], h[None])[0])
    delta = r_a - r_b
    s, u = a.shape
    step = max(1, _CHUNK // max(1, s * u))
    if test == "permutation":
        # boolean draws use 32 random bits at a time and drop the rest at the end of a call:
        # chunks of a multiple of 32 draws keep the numbers those of one big draw
        g = 32 // math.gcd(s * u, 32)
        step = max(g, step // g * g)
    deltas = []
    if test == "bootstrap":
        for start in range(0, n_samples, step):
            c = min(step, n_samples - start)
            idx = rng.integers(0, u, size=(c, u))
            ga, gb, gh = (g[:, idx].transpose(1, 0, 2) for g in (a, b, h))
            deltas.append(corr(ga, gh) - corr(gb, gh))
    else:
        za, zb = _zscore(a), _zscore(b)
        for start in range(0, n_samples, step):
            c = min(step, n_samples - start)
            swap = rng.integers(2, size=(c, s, u), dtype=bool)
            ma, mb = np.where(swap, zb, za), np.where(swap, za, zb)
            gh = np.broadcast_to(h, (c, s, u))
            deltas.append(corr(ma, gh) - corr(mb, gh))
    d = np.concatenate(deltas)
    d = d[~np.isnan(d)]
    ci_low = ci_high = None
    if test == "bootstrap":
        p = float(np.mean(d <= 0)) if d.size else math.nan
        if d.size:
            ci_low, ci_high = (float(v) for v in np.quantile(d, [(1 - confidence) / 2, (1 + confidence) / 2]))
    else:
        # mt-metrics-eval: count(permuted >= observed) / k; a tiny tolerance keeps exact ties tied
        p = float(np.mean(d >= delta - 1e-12)) if d.size else math.nan
    return CorrelationDifferenceResult(
        r_a=r_a, r_b=r_b, difference=delta, p_value=p, ci_low=ci_low, ci_high=ci_high, test=test,
        level=level, method=method, variant=variant if method == "kendall" else None, grouping=grouping,
        threshold=float(threshold), n_samples=n_samples, n_valid=int(d.size), n=int(a.size),
        n_units=int(u if test == "bootstrap" else a.size), seed=label,
    )


def _zscore(g: NDArray[np.float64]) -> NDArray[np.float64]:
    sd = g.std()
    return (g - g.mean()) / sd if sd > 0 else g - g.mean()
