r"""Correlations between metric and human scores, batched along the last axis.

Every coefficient takes two arrays of shape ``(..., n)`` and correlates them
along the last axis, so a whole bootstrap distribution (say 1,000 resampled
rows of 530 observations) is one call with no Python loop over rows. 1-D
inputs give a float, batches an array of shape ``(...)``; the two inputs
broadcast against each other (one human vector against many metric rows).

* :func:`pearson`, :func:`spearman` (Pearson on average ranks);
* :func:`kendall_tau` with the variants of mt-metrics-eval's ``stats.py``:
  ``'b'`` and ``'c'`` (scipy's definitions, ties included), ``'wmt'`` (the
  WMT "Kendall-like" :math:`(C - D)/(C + D)` over pairs with a clear human
  preference, metric ties counting as discordant) and ``'acc23'`` (pairwise
  accuracy with ties, Deutsch et al., 2023);
* :func:`fisher_z_interval`, the Fisher-z confidence interval of a Pearson r;
* :func:`system_correlation` and :func:`segment_correlation`, mt-metrics-eval
  style helpers returning a :class:`CorrelationResult`.

Kendall's statistics come from sorting, not from pairs: with the rows sorted
by (metric, human) and :math:`\mathrm{dis}` the number of strict inversions
of the human ranks (counted by a bottom-up merge over the whole batch at
once, :math:`O(n \log n)` per row),

.. math::

    C - D = n_0 - n_x - n_y + n_{xy} - 2\,\mathrm{dis},
    \qquad n_0 = \binom{n}{2},

with :math:`n_x`, :math:`n_y`, :math:`n_{xy}` the pairs tied in the metric,
in the human scores and in both (scipy's ``kendalltau`` identity). Only
``'wmt'`` with ``threshold > 0`` and ``'acc23'`` with ``threshold > 0``
compare pairs explicitly (:math:`O(n^2)` per row, in chunks).

NaN policy: a NaN (or an infinity) in either input raises
:class:`~bleustats.engine.io.InputError` naming the argument and the count; drop
missing human scores before calling. A constant row has no defined Pearson,
Spearman, τ-b or τ-c: the result is ``nan`` (scipy returns ``nan`` too, with
a warning; these functions stay silent).

References
----------
.. [1] Kendall, M. G. (1945). The treatment of ties in ranking problems.
   Biometrika 33(3).
.. [2] Stuart, A. (1953). The estimation and comparison of strengths of
   association in contingency tables. Biometrika 40 (τ-c).
.. [3] Mathur, N. et al. (2020). Results of the WMT20 Metrics Shared Task.
   WMT (the DARR "Kendall-like" τ).
.. [4] Deutsch, D., Foster, G., Freitag, M. (2023). Ties Matter:
   Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie
   Calibration. EMNLP (``acc23``).
.. [5] Freitag, M. et al. (2021–2023). google-research/mt-metrics-eval,
   ``mt_metrics_eval/stats.py``.

Examples
--------
>>> human = [1.0, 2.0, 3.0, 4.0, 5.0]
>>> metric = [[1.0, 2.0, 3.0, 5.0, 4.0], [5.0, 4.0, 3.0, 2.0, 1.0]]
>>> kendall_tau(metric, human).tolist()           # batched over rows
[0.8, -1.0]
>>> round(spearman(metric[0], human), 3)
0.9
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import choices_text, short_repr
from ..errors import InputError
from ._options import CORRELATION_METHODS, GROUPINGS, KENDALL_VARIANTS

__all__ = ["CORRELATION_METHODS", "GROUPINGS", "KENDALL_VARIANTS", "CorrelationResult", "fisher_z_interval",
           "kendall_tau", "pearson", "segment_correlation", "spearman", "system_correlation"]


# pairwise (O(n^2)) chunks hold at most this many pair entries at once
_PAIR_CHUNK = 1 << 22


# --------------------------------------------------------------------------- input checks


def as_scores(a: ArrayLike, name: str) -> NDArray[np.float64]:
    """``a`` as a float64 array of scores; an error names ``name`` on NaN, infinity or a scalar."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{name} must be an array of numbers; could not convert {short_repr(a)} ({exc}). "
            "Pass a numeric sequence or numpy array."
        ) from None
    if arr.ndim == 0:
        raise InputError(f"{name} must have shape (..., n) with n >= 2; got the scalar {short_repr(a)}. "
                         "Pass one score per observation.")
    n_nan = int(np.isnan(arr).sum())
    if n_nan:
        raise InputError(
            f"{name} contains {n_nan} NaN value(s) (of {arr.size}); correlations need complete pairs. "
            f"Drop the observations with a missing score first, e.g. keep = ~np.isnan(human)."
        )
    n_inf = int(np.isinf(arr).sum())
    if n_inf:
        raise InputError(f"{name} contains {n_inf} infinite value(s) (of {arr.size}); "
                         "pass finite scores.")
    return arr


def _pair(x: ArrayLike, y: ArrayLike, names: tuple[str, str] = ("x", "y")
          ) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[int, ...]]:
    """Validate, broadcast and flatten to (rows, n); also return the batch shape."""
    xa, ya = as_scores(x, names[0]), as_scores(y, names[1])
    try:
        shape = np.broadcast_shapes(xa.shape, ya.shape)
    except ValueError:
        raise InputError(
            f"{names[0]} and {names[1]} must have the same shape (..., n) or broadcast to one; "
            f"got {xa.shape} and {ya.shape}. Correlations run along the last axis."
        ) from None
    n = shape[-1]
    if n < 2:
        raise InputError(f"{names[0]}, {names[1]}: need at least 2 observations along the last axis; "
                         f"got shape {shape}. A correlation of fewer points is undefined.")
    xa = np.ascontiguousarray(np.broadcast_to(xa, shape)).reshape(-1, n)
    ya = np.ascontiguousarray(np.broadcast_to(ya, shape)).reshape(-1, n)
    return xa, ya, shape[:-1]


def _out(values: NDArray[np.float64], batch: tuple[int, ...]) -> float | NDArray[np.float64]:
    if batch == ():
        return float(values[0])
    return values.reshape(batch)


# --------------------------------------------------------------------------- ranks


def _sorted_runs(a: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Row-wise sort order and, in sorted order, where a new value starts."""
    order = np.argsort(a, axis=-1)  # equal values get equal ranks: no need for stability
    s = np.take_along_axis(a, order, axis=-1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    return order, new


def _dense_ranks(a: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Dense ranks 0..k-1 per row, and the number of pairs tied per row."""
    order, new = _sorted_runs(a)
    dense_sorted = np.cumsum(new, axis=-1, dtype=np.int64) - 1
    dense = np.empty_like(dense_sorted)
    np.put_along_axis(dense, order, dense_sorted, axis=-1)
    return dense, _tied_pairs(new)


def _tied_pairs(new: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Per row, sum over runs of t(t-1)/2, given run starts in sorted order."""
    n = new.shape[-1]
    pos = np.arange(n, dtype=np.int64)
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    return (pos - start).sum(axis=-1)  # the j-th element of a run closes j pairs


def _average_ranks(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """scipy.stats.rankdata(method='average') along the last axis of (rows, n)."""
    order, new = _sorted_runs(a)
    n = a.shape[-1]
    pos = np.arange(n, dtype=np.int64)
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    last = np.ones(new.shape, dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, pos, n)[:, ::-1], axis=-1)[:, ::-1]
    avg = (start + end) / 2.0 + 1.0
    ranks = np.empty(a.shape, dtype=np.float64)
    np.put_along_axis(ranks, order, avg, axis=-1)
    return ranks


def _constant(a: NDArray[np.float64]) -> NDArray[np.bool_]:
    return (a == a[:, :1]).all(axis=-1)


# --------------------------------------------------------------------------- pearson / spearman


def _pearson_rows(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    const = _constant(x) | _constant(y)
    xm = x - x.mean(axis=-1, keepdims=True)
    ym = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        # scale by the largest deviation first (as scipy does) against overflow
        xm = xm / np.abs(xm).max(axis=-1, keepdims=True)
        ym = ym / np.abs(ym).max(axis=-1, keepdims=True)
        xm = xm / np.linalg.norm(xm, axis=-1, keepdims=True)
        ym = ym / np.linalg.norm(ym, axis=-1, keepdims=True)
        r = np.einsum("ij,ij->i", xm, ym)
    r = np.clip(r, -1.0, 1.0)
    r[const] = np.nan
    return r


def pearson(x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
    r"""Pearson's r along the last axis.

    .. math::

        r = \frac{\sum_i (x_i - \bar x)(y_i - \bar y)}
                 {\sqrt{\sum_i (x_i - \bar x)^2}\,\sqrt{\sum_i (y_i - \bar y)^2}}

    Parameters
    ----------
    x, y : array_like, shape (..., n)
        Paired observations (e.g. metric and human scores); they broadcast
        against each other, n >= 2.

    Returns
    -------
    float or ndarray of shape (...)
        ``nan`` where a row of ``x`` or ``y`` is constant.

    Raises
    ------
    InputError
        NaN or infinite values, fewer than 2 observations, shapes that do not
        broadcast.

    References
    ----------
    .. [1] Pearson, K. (1895). Notes on regression and inheritance in the case
       of two parents. Proc. Royal Society of London 58.

    Examples
    --------
    >>> round(pearson([1, 2, 3, 4], [1, 3, 2, 4]), 6)
    0.8
    >>> pearson([[1, 2, 3], [3, 3, 3]], [1, 2, 4]).round(4).tolist()  # constant row: nan
    [0.9820, nan]
    """
    xa, ya, batch = _pair(x, y)
    return _out(_pearson_rows(xa, ya), batch)


def spearman(x: ArrayLike, y: ArrayLike) -> float | NDArray[np.float64]:
    r"""Spearman's ρ along the last axis: Pearson's r of the average ranks.

    .. math::

        \rho = r\big(\operatorname{rank}(x), \operatorname{rank}(y)\big)

    with tied values sharing their average rank (``scipy.stats.spearmanr``).

    Parameters
    ----------
    x, y : array_like, shape (..., n)
        Paired observations; they broadcast against each other, n >= 2.

    Returns
    -------
    float or ndarray of shape (...)
        ``nan`` where a row of ``x`` or ``y`` is constant.

    Raises
    ------
    InputError
        NaN or infinite values, fewer than 2 observations, shapes that do not
        broadcast.

    References
    ----------
    .. [1] Spearman, C. (1904). The proof and measurement of association
       between two things. American Journal of Psychology 15(1).

    Examples
    --------
    >>> spearman([1.0, 2.0, 2.0, 10.0], [3.0, 1.0, 2.0, 4.0])
    0.3162277660168379
    >>> spearman([[1, 2, 3], [3, 2, 1]], [10, 20, 30]).tolist()
    [1.0, -1.0]
    """
    xa, ya, batch = _pair(x, y)
    return _out(_pearson_rows(_average_ranks(xa), _average_ranks(ya)), batch)


# --------------------------------------------------------------------------- kendall


def _count_inversions(v: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per row, #{i < j : v_i > v_j} for dense ranks v in [0, n), by a bottom-up merge.

    At width w the row is cut into [left | right] block pairs, both sorted by the
    previous level. Sorting a pair with the side in the low bit of the key puts a
    left element before an equal right one; a right element at merged position p,
    the q-th of its block, then has p - q left elements <= it, so w - (p - q)
    inversions, and the block's total is w^2 + w(w-1)/2 - (sum of right positions).
    """
    rows, n = v.shape
    size = 1 << max(0, (n - 1).bit_length())
    dt = np.int32 if 2 * n + 1 < 2**31 else np.int64
    v = v.astype(dt)
    if size > n:  # pad with n (above every rank): last and larger, they add no inversion
        v = np.concatenate([v, np.full((rows, size - n), n, dtype=dt)], axis=1)
    inv = np.zeros(rows, dtype=np.int64)
    w = 1
    while w < size:
        side = ((np.arange(size) // w) % 2).astype(dt)  # 0 left, 1 right
        keys = ((v << 1) | side).reshape(rows, size // (2 * w), 2 * w)
        keys.sort(axis=-1)
        pos_sum = ((keys & 1) * np.arange(2 * w, dtype=dt)).sum(axis=-1, dtype=np.int64)
        inv += (w * w + w * (w - 1) // 2 - pos_sum).sum(axis=-1)
        v = (keys >> 1).reshape(rows, size)
        w *= 2
    return inv


def _kendall_counts(x: NDArray[np.float64], y: NDArray[np.float64]) -> dict[str, NDArray[np.int64]]:
    """Per row: pairs (tot), tied in x, tied in y, tied in both, discordant, concordant, classes."""
    rows, n = x.shape
    rx, xtie = _dense_ranks(x)
    ry, ytie = _dense_ranks(y)
    key = rx * n + ry
    order = np.argsort(key, axis=-1)  # equal keys have equal ry: order among them is moot
    ks = np.take_along_axis(key, order, axis=-1)
    new = np.ones(ks.shape, dtype=bool)
    new[:, 1:] = ks[:, 1:] != ks[:, :-1]
    ntie = _tied_pairs(new)
    dis = _count_inversions(np.take_along_axis(ry, order, axis=-1))
    tot = np.full(rows, n * (n - 1) // 2, dtype=np.int64)
    con = tot - xtie - ytie + ntie - dis
    return {"tot": tot, "xtie": xtie, "ytie": ytie, "ntie": ntie, "dis": dis, "con": con,
            "xclasses": rx.max(axis=-1) + 1, "yclasses": ry.max(axis=-1) + 1}


def _pairwise_counts(x: NDArray[np.float64], y: NDArray[np.float64], variant: str,
                     threshold: float) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """O(n^2) pair counts with a threshold: (numerator count, denominator count) per row.

    'wmt': (concordant, eligible) over pairs with |dy| > threshold, concordant when
    sign(dx) == sign(dy) != 0. 'acc23': (agreements, all pairs) with |dx| <= threshold a
    metric tie; agreement = concordant or tied in both.
    """
    rows, n = x.shape
    num = np.zeros(rows, dtype=np.int64)
    den = np.zeros(rows, dtype=np.int64)
    step = max(1, _PAIR_CHUNK // max(1, rows * n))
    for i0 in range(0, n - 1, step):
        i1 = min(n - 1, i0 + step)
        for i in range(i0, i1):
            dx = x[:, i + 1:] - x[:, i:i + 1]
            dy = y[:, i + 1:] - y[:, i:i + 1]
            if variant == "wmt":
                eligible = np.abs(dy) > threshold
                num += (eligible & (np.sign(dx) == np.sign(dy)) & (dx != 0)).sum(axis=-1)
                den += eligible.sum(axis=-1)
            else:
                xt = np.abs(dx) <= threshold
                yt = dy == 0
                agree = (~xt & ~yt & (np.sign(dx) == np.sign(dy))) | (xt & yt)
                num += agree.sum(axis=-1)
                den += n - 1 - i
    return num, den


def kendall_tau(x: ArrayLike, y: ArrayLike, *, variant: str = "b",
                threshold: float = 0.0) -> float | NDArray[np.float64]:
    r"""Kendall's τ (b, c), WMT's Kendall-like τ or pairwise accuracy, along the last axis.

    ``x`` is the **metric** and ``y`` the **human** (gold) side; only
    ``'wmt'`` and ``'acc23'`` are asymmetric. Over the :math:`n_0 = \binom{n}{2}`
    pairs, :math:`C` / :math:`D` count pairs ordered the same / the opposite
    way by both, :math:`n_x`, :math:`n_y`, :math:`n_{xy}` pairs tied in the
    metric, the human scores, both; :math:`m` is the smaller number of
    distinct values.

    .. math::

        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_x)(n_0 - n_y)}}, \qquad
        \tau_c = \frac{2 (C - D)}{n^2 (m - 1)/m}, \qquad
        \tau_{wmt} = \frac{C' - D'}{C' + D'}, \qquad
        \mathrm{acc}_{23} = \frac{C + n_{xy}}{n_0}

    ``'wmt'`` (WMT DARR "Kendall-like", WMT17–WMT21 metrics tasks) looks only
    at pairs whose human scores differ by more than ``threshold``
    (:math:`|y_i - y_j| > t`); :math:`C'` counts those the metric orders the
    same way, :math:`D'` the rest, **metric ties included** (as WMT ≥ 2019 and
    mt-metrics-eval's ``KendallLike`` do). mt-metrics-eval keeps pairs with
    :math:`|\Delta y| \ge t` (default 25 for DA), so a pair exactly at the
    threshold, and with ``t = 0`` a human tie, counts there as discordant;
    here it is left out, as the WMT papers describe ("differ by more than").
    ``'acc23'`` is Deutsch et al.'s pairwise accuracy with ties
    (mt-metrics-eval ``KendallVariants(variant='acc23', epsilon=threshold)``):
    metric differences :math:`|x_i - x_j| \le` ``threshold`` count as metric
    ties, and a pair is right when both order it the same way or both tie it.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Metric scores.
    y : array_like, shape (..., n)
        Human scores (broadcasts against ``x``).
    variant : {'b', 'c', 'wmt', 'acc23'}
        ``'b'`` and ``'c'`` are ``scipy.stats.kendalltau``'s.
    threshold : float
        ``'wmt'``: minimum human difference (strictly exceeded) for a pair to
        count. ``'acc23'``: metric tie tolerance ε. Must be 0 for ``'b'``/``'c'``.

    Returns
    -------
    float or ndarray of shape (...)
        ``nan`` for τ-b / τ-c when a row of ``x`` or ``y`` is constant, and for
        ``'wmt'`` when no pair passes the threshold (mt-metrics-eval returns 0
        there). ``acc23`` is always defined.

    Raises
    ------
    InputError
        Unknown variant, negative or non-zero-where-unused threshold, NaN or
        infinite values, fewer than 2 observations, shapes that do not broadcast.

    Notes
    -----
    τ-b / τ-c, and ``'wmt'`` / ``'acc23'`` at ``threshold=0``, are
    :math:`O(n \log n)` per row, computed for all rows together (a batch of
    1,000 rows of 530 takes a fraction of a second). ``'wmt'`` and ``'acc23'``
    with ``threshold > 0`` compare all pairs: :math:`O(n^2)` per row.

    References
    ----------
    .. [1] Kendall, M. G. (1945). The treatment of ties in ranking problems.
       Biometrika 33(3).
    .. [2] Ma, Q., Wei, J., Bojar, O., Graham, Y. (2019). Results of the WMT19
       Metrics Shared Task. WMT.
    .. [3] Deutsch, D., Foster, G., Freitag, M. (2023). Ties Matter:
       Meta-Evaluating Modern Metrics with Pairwise Accuracy and Tie
       Calibration. EMNLP.

    Examples
    --------
    >>> metric = [1.0, 2.0, 2.0, 4.0]
    >>> human = [1.0, 3.0, 2.0, 2.0]
    >>> round(kendall_tau(metric, human), 6)   # C=3, D=1, one tie each side: 2/sqrt(5*5)
    0.4
    >>> round(kendall_tau(metric, human, variant="wmt"), 6)  # 5 pairs, C'=3, D'=2 (one metric tie)
    0.2
    >>> kendall_tau(metric, human, variant="acc23")          # (C + both tied) / 6 = (3 + 0) / 6
    0.5
    """
    if variant not in KENDALL_VARIANTS:
        raise InputError(f"variant must be {choices_text(KENDALL_VARIANTS)}; got {variant!r}.")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
            or not math.isfinite(threshold) or threshold < 0:
        raise InputError(f"threshold must be a finite number >= 0; got {threshold!r}.")
    if variant in ("b", "c") and threshold != 0:
        raise InputError(f"threshold applies to variant 'wmt' and 'acc23' only; got threshold={threshold!r} "
                         f"with variant={variant!r}. Leave threshold at 0.")
    xa, ya, batch = _pair(x, y, ("x", "y"))
    n = xa.shape[-1]
    if variant in ("wmt", "acc23") and threshold > 0:
        num, den = _pairwise_counts(xa, ya, variant, float(threshold))
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = (2 * num - den) / den if variant == "wmt" else num / den
        return _out(np.where(den > 0, tau, np.nan), batch)
    c = _kendall_counts(xa, ya)
    tot, xtie, ytie = c["tot"], c["xtie"], c["ytie"]
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "b":
            s = (c["con"] - c["dis"]).astype(np.float64)
            tau = s / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
        elif variant == "c":
            s = (c["con"] - c["dis"]).astype(np.float64)
            m = np.minimum(c["xclasses"], c["yclasses"])
            tau = 2 * s / (n**2 * (m - 1) / m)
        elif variant == "wmt":
            eligible = tot - ytie
            tau = np.where(eligible > 0, (2 * c["con"] - eligible) / eligible, np.nan)
        else:
            tau = (c["con"] + c["ntie"]) / tot
    if variant in ("b", "c"):
        tau = np.where((xtie == tot) | (ytie == tot), np.nan, np.clip(tau, -1.0, 1.0))
    return _out(np.asarray(tau, dtype=np.float64), batch)


# --------------------------------------------------------------------------- fisher z


def fisher_z_interval(r: ArrayLike, n: ArrayLike, *, confidence: float = 0.95
                      ) -> tuple[float | NDArray[np.float64], float | NDArray[np.float64]]:
    r"""Fisher-z confidence interval of a Pearson correlation.

    .. math::

        z = \operatorname{artanh} r, \qquad
        \tanh\Big(z \pm \frac{\Phi^{-1}\big(\tfrac{1 + \gamma}{2}\big)}{\sqrt{n - 3}}\Big)

    with :math:`\gamma` the confidence level.

    Parameters
    ----------
    r : float or array_like
        Correlation(s) in [-1, 1].
    n : int or array_like
        Number of observations behind each ``r`` (> 3).
    confidence : float
        In (0, 1).

    Returns
    -------
    (low, high)
        Floats for scalar inputs, arrays otherwise.

    References
    ----------
    .. [1] Fisher, R. A. (1921). On the "probable error" of a coefficient of
       correlation deduced from a small sample. Metron 1.

    Examples
    --------
    >>> low, high = fisher_z_interval(0.484, 530)
    >>> round(low, 3), round(high, 3)
    (0.416, 0.547)
    """
    from scipy.special import ndtri  # the normal quantile (scipy.stats' norm.ppf), without importing scipy.stats

    ra = as_scores(r, "r") if np.ndim(r) else as_scores([r], "r")[0]
    na = np.asarray(n, dtype=np.float64)
    if np.any(np.abs(ra) > 1):
        raise InputError(f"r must lie in [-1, 1]; got {short_repr(r)}.")
    if np.any(~np.isfinite(na)) or np.any(na <= 3):
        raise InputError(f"n must be a number of observations > 3 (the standard error is 1/sqrt(n - 3)); "
                         f"got {short_repr(n)}.")
    if not (isinstance(confidence, (float, int, np.floating)) and 0 < confidence < 1):
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}.")
    half = ndtri(0.5 + confidence / 2) / np.sqrt(na - 3)
    with np.errstate(divide="ignore"):
        z = np.arctanh(ra)
    low, high = np.tanh(z - half), np.tanh(z + half)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


# --------------------------------------------------------------------------- mt-metrics-eval style helpers


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation between metric and human scores, and how it was computed.

    Attributes
    ----------
    value : float
        The correlation (an average over groups for ``grouping`` 'item' or
        'system'); ``nan`` when no group gave a defined value.
    n : int
        Observations (metric/human pairs) in the groups that were used.
    n_groups : int
        Groups averaged (1 for system-level and flat segment-level).
    n_skipped : int
        Groups left out: fewer than 2 entries, or a constant metric or human
        side (undefined correlation), or for ``'wmt'`` no pair above threshold.
    method, variant, grouping : str
    threshold : float
    """

    value: float
    n: int
    n_groups: int
    n_skipped: int
    method: str
    variant: str | None
    grouping: str
    threshold: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python (for JSON)."""
        return asdict(self)


def _check_method(method: str, variant: str, threshold: float) -> None:
    if method not in CORRELATION_METHODS:
        raise InputError(f"method must be {choices_text(CORRELATION_METHODS)}; got {method!r}.")
    if method == "kendall":
        if variant not in KENDALL_VARIANTS:
            raise InputError(f"variant must be {choices_text(KENDALL_VARIANTS)}; got {variant!r}.")
    elif variant != "b" or threshold != 0:
        raise InputError(f"variant and threshold apply to method='kendall' only; got method={method!r} "
                         f"with variant={variant!r}, threshold={threshold!r}. Leave them at their defaults.")


def correlate(x: NDArray[np.float64], y: NDArray[np.float64], *, method: str, variant: str = "b",
              threshold: float = 0.0) -> NDArray[np.float64]:
    """Row-wise correlation of ``x`` and ``y`` (rows, n) -> (rows,) by ``method`` (no grouping).

    Examples
    --------
    >>> correlate(np.array([[1.0, 2, 3], [3, 2, 1]]), np.array([[1.0, 2, 4], [1, 2, 3]]), method="spearman").tolist()
    [1.0, -1.0]
    """
    if method == "pearson":
        return np.atleast_1d(pearson(x, y))
    if method == "spearman":
        return np.atleast_1d(spearman(x, y))
    return np.atleast_1d(kendall_tau(x, y, variant=variant, threshold=threshold))


def wmt_pair_counts(x: NDArray[np.float64], y: NDArray[np.float64], *, threshold: float = 0.0
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per row, WMT's Kendall-like counts: (concordant pairs, pairs the human side does not tie)."""
    if threshold > 0:
        return _pairwise_counts(x, y, "wmt", threshold)
    c = _kendall_counts(x, y)
    return c["con"], c["tot"] - c["ytie"]


def system_correlation(metric: ArrayLike, human: ArrayLike, *, method: str = "pearson",
                       variant: str = "b", threshold: float = 0.0) -> CorrelationResult:
    r"""System-level correlation: one metric and one human score per system.

    .. math::

        \rho_{sys} = \mathrm{corr}\big((m_s)_{s}, (h_s)_{s}\big)

    Parameters
    ----------
    metric, human : array_like, shape (n_systems,)
        Scores per system, aligned by position.
    method : {'pearson', 'spearman', 'kendall'}
    variant, threshold
        For ``method='kendall'``, as in :func:`kendall_tau`.

    Returns
    -------
    CorrelationResult
        ``n_groups`` 1, ``n_skipped`` 1 (and ``value`` nan) when a side is constant.

    References
    ----------
    .. [1] Freitag, M. et al. (2021). Results of the WMT21 Metrics Shared Task.
       WMT (system-level Pearson).

    Examples
    --------
    >>> res = system_correlation([30.1, 25.2, 27.9, 20.0], [0.8, 0.3, 0.5, 0.1])
    >>> round(res.value, 4), res.n
    (0.9561, 4)
    >>> system_correlation([30.1, 25.2, 27.9], [3, 1, 2], method="kendall").value
    1.0
    """
    _check_method(method, variant, threshold)
    m = as_scores(metric, "metric")
    h = as_scores(human, "human")
    if m.ndim != 1 or h.shape != m.shape:
        raise InputError(f"metric and human must be 1-D with one score per system each; got shapes "
                         f"{m.shape} and {h.shape}.")
    value = float(correlate(m[None], h[None], method=method, variant=variant, threshold=threshold)[0])
    ok = not math.isnan(value)
    return CorrelationResult(value=value, n=len(m), n_groups=int(ok), n_skipped=int(not ok),
                             method=method, variant=variant if method == "kendall" else None,
                             grouping="flat", threshold=float(threshold))


def segment_correlation(
    metric: ArrayLike,
    human: ArrayLike,
    *,
    system: ArrayLike,
    item: ArrayLike,
    grouping: str = "flat",
    method: str = "pearson",
    variant: str = "b",
    threshold: float = 0.0,
) -> CorrelationResult:
    r"""Segment-level correlation, flat or averaged over items or systems.

    ``grouping`` follows mt-metrics-eval's ``average_by``:

    * ``'flat'`` (``'none'``): one correlation over all (system, item) entries;
    * ``'item'``: for every item (segment), correlate across systems, then
      average;
    * ``'system'`` (``'sys'``): for every system, correlate across items, then
      average.

    .. math::

        \bar\rho = \frac{1}{|G'|} \sum_{g \in G'} \mathrm{corr}(m_g, h_g)

    over the groups :math:`G'` where the correlation is defined; groups with
    fewer than 2 entries or a constant side are skipped and counted in
    ``n_skipped``. For ``variant='wmt'`` the groups are pooled instead,
    :math:`(\sum_g C'_g - \sum_g D'_g) / \sum_g (C'_g + D'_g)`, which is
    mt-metrics-eval's ``KendallLike`` average (each group weighted by its
    number of pairs).

    Parameters
    ----------
    metric, human : array_like, shape (n,)
        One score per (system, item) entry; drop entries without a human
        score first (NaN raises).
    system, item : array_like, shape (n,)
        Labels of each entry.
    grouping : {'flat', 'item', 'system'}
    method : {'pearson', 'spearman', 'kendall'}
    variant, threshold
        For ``method='kendall'``, as in :func:`kendall_tau`.

    Returns
    -------
    CorrelationResult

    References
    ----------
    .. [1] Freitag, M. et al. (2021). Results of the WMT21 Metrics Shared Task.
       WMT.
    .. [2] Deutsch, D., Foster, G., Freitag, M. (2023). Ties Matter. EMNLP
       (item-grouped ``acc23``).

    Examples
    --------
    >>> sys_ = ["A", "A", "A", "B", "B", "B"]
    >>> item = [1, 2, 3, 1, 2, 3]
    >>> human = [1.0, 2.0, 3.0, 1.0, 3.0, 3.0]
    >>> metric = [0.1, 0.5, 0.4, 0.2, 0.6, 0.6]
    >>> res = segment_correlation(metric, human, system=sys_, item=item, grouping="item",
    ...                           method="kendall")
    >>> res.value, res.n_groups, res.n_skipped    # items 1 and 3: human tie, undefined τ-b
    (1.0, 1, 2)
    """
    _check_method(method, variant, threshold)
    if grouping not in GROUPINGS:
        raise InputError(f"grouping must be {choices_text(GROUPINGS)}; got {grouping!r}.")
    m = as_scores(metric, "metric")
    h = as_scores(human, "human")
    sys_labels = np.asarray(system)
    item_labels = np.asarray(item)
    n = m.shape[0] if m.ndim == 1 else -1
    problems = [f"{name} (shape {a.shape})" for name, a in
                (("metric", m), ("human", h), ("system", sys_labels), ("item", item_labels))
                if a.ndim != 1 or a.shape[0] != n]
    if problems:
        raise InputError(f"metric, human, system and item must be 1-D with one entry per (system, item) "
                         f"pair, all of length {m.shape[0] if m.ndim else '?'}; mismatched: "
                         f"{', '.join(problems)}.")
    var = variant if method == "kendall" else None

    def result(value: float, used: int, groups: int, skipped: int) -> CorrelationResult:
        return CorrelationResult(value=float(value), n=int(used), n_groups=int(groups),
                                 n_skipped=int(skipped), method=method, variant=var,
                                 grouping=grouping, threshold=float(threshold))

    if grouping == "flat":
        if n < 2:
            return result(np.nan, 0, 0, 1)
        value = float(correlate(m[None], h[None], method=method, variant=variant, threshold=threshold)[0])
        ok = not math.isnan(value)
        return result(value, n if ok else 0, int(ok), int(not ok))

    labels = item_labels if grouping == "item" else sys_labels
    _, inv = np.unique(labels, return_inverse=True)
    inv = inv.reshape(-1)
    order = np.argsort(inv, kind="stable")
    sizes = np.bincount(inv)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    pooled = method == "kendall" and variant == "wmt"
    values: list[NDArray[np.float64]] = []
    used = skipped = 0
    num_tot = den_tot = 0
    skipped += int((sizes < 2).sum())
    for size in np.unique(sizes[sizes >= 2]):
        groups = np.flatnonzero(sizes == size)
        idx = order[starts[groups][:, None] + np.arange(size)]  # (groups, size)
        gm, gh = m[idx], h[idx]
        if pooled:
            num, den = wmt_pair_counts(gm, gh, threshold=float(threshold))
            ok = den > 0
            num_tot += int(num[ok].sum())
            den_tot += int(den[ok].sum())
        else:
            vals = correlate(gm, gh, method=method, variant=variant, threshold=threshold)
            ok = ~np.isnan(vals)
            values.append(vals[ok])
        used += int(ok.sum()) * int(size)
        skipped += int((~ok).sum())
    n_groups = len(sizes) - skipped
    if pooled:
        value = (2 * num_tot - den_tot) / den_tot if den_tot else np.nan
    else:
        all_vals = np.concatenate(values) if values else np.zeros(0)
        value = float(all_vals.mean()) if all_vals.size else np.nan
    return result(value, used, n_groups, skipped)
