r"""The BLEU formula: scores from summed statistics, for every path that scores BLEU or ΔBLEU.

A corpus, a group, a sentence, a resample: each is one row of summed
statistics, and this module's one vectorized formula scores any number of
rows at once (:func:`bleu_from_sums`, :func:`bleu_scores`; :func:`score_from_sums`
gives the :class:`~bleustats.metrics.results.BLEUScore` of one row).

BLEU (Papineni et al., 2002) from summed statistics, with :math:`c` the
hypothesis length, :math:`r` the reference length and :math:`p_n` the smoothed
precisions:

.. math::

    \mathrm{BLEU} = 100 \cdot \mathrm{BP} \cdot
        \exp\Big(\frac{1}{N'} \sum_{n=1}^{N'} \log p_n\Big),
    \qquad \mathrm{BP} = \begin{cases} 1 & c \ge r \\ e^{1 - r/c} & 0 < c < r \\ 0 & c \le 0 \end{cases}

with sacreBLEU's exact semantics: no matches at all gives 0; orders from the
first with :math:`\mathrm{total}_n = 0` on count as precision 0 (log floored at
:math:`-9999999999`); ``use_effective_order`` sets :math:`N'` to the last order
with a non-zero total; smoothing ``none``, ``floor`` (zero precisions become
:math:`k/\mathrm{total}_n`, k = 0.1), ``add-k`` (k = 1 added to matches and
totals for n ≥ 2) and ``exp`` (the i-th zero precision becomes
:math:`1/(2^i\,\mathrm{total}_n)`; the default).

ΔBLEU (Galley et al., 2015) uses the weighted ``wmatch_n`` / ``wtotal_n`` in
place of ``match_n`` / ``total_n``; a negative summed numerator of an order is
clamped to 0 before smoothing (as the first author's implementation does).

The formula's steps are public building blocks, so that every other BLEU of
the package is this one: :func:`brevity_penalty` (clipped, or not as Nakov et
al.'s variant), :func:`geometric_mean` (the logs summed in order, log(0)
floored), :func:`bleu_from_precisions` (100 times BP times the geometric
mean of the precisions), and the sentence-level smoothings
:func:`add_k_precisions` (BLEU+1, Lin & Och) and :func:`chen_cherry_precisions`
(Chen & Cherry's methods 1–7). The sentence variants of
:mod:`bleustats.metrics.sentence`, the combination features of
:mod:`bleustats.meta.combine` and the study's units score with them;
:func:`exp_bleu_scores_of_rows` is the formula (exp smoothing) on many rows
through numba kernels (:mod:`bleustats.metrics._formula_kernels`), the same
bits as :func:`bleu_scores`.

Examples
--------
>>> bleu_scores([[5, 3, 1, 0]], [[6, 5, 4, 3]], [6], [6]).round(4).tolist()   # "the cat sat on the mat"
[37.9918]
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_choice, check_number
from ..engine._options import BLEU_METRICS, REF_LENGTHS, SMOOTH_DEFAULTS, SMOOTH_METHODS
from ..errors import InputError
from .results import BLEUScore

__all__ = ["CHEN_CHERRY_METHODS", "LOG_FLOOR", "METRICS", "add_k_precisions", "bleu_from_precisions",
           "bleu_from_sums", "bleu_scores", "brevity_penalty", "chen_cherry_precisions", "check_scoring_options",
           "count_columns", "exp_bleu_scores_of_columns", "exp_bleu_scores_of_rows", "geometric_mean",
           "score_from_sums"]

#: log(0) as sacreBLEU writes it (its ``my_log``): a precision of 0 adds this to the sum of logs.
LOG_FLOOR = -9999999999.0
#: The BLEU family computable from a statistics table's BLEU columns.
METRICS = BLEU_METRICS

# column-name prefixes of each metric's numerators and denominators
_PREFIXES = {"bleu": ("match", "total"), "delta_bleu": ("wmatch", "wtotal")}


def check_scoring_options(*, metric: str = "bleu", smooth_method: str = "exp", smooth_value: Any = None,
                          ref_length: str = "closest") -> float | None:
    """Validate the scoring options; return the smoothing value in effect (its default when None).

    Examples
    --------
    >>> check_scoring_options(smooth_method="floor"), check_scoring_options(smooth_method="exp")
    (0.1, None)
    """
    check_choice("metric", metric, METRICS)
    check_choice("smooth_method", smooth_method, SMOOTH_METHODS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    if smooth_value is None:
        return SMOOTH_DEFAULTS[smooth_method]
    if isinstance(smooth_value, bool) or not isinstance(smooth_value, (int, float, np.number)) or not np.isfinite(
        smooth_value
    ):
        raise InputError(f"smooth_value must be a finite number or None; got {smooth_value!r}.")
    return smooth_value


def _as_sums(correct: ArrayLike, total: ArrayLike, sys_len: ArrayLike, ref_len: ArrayLike
             ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The four inputs of the formula as float64 arrays, checked once (shapes, no NaN or infinity)."""
    names = ("correct", "total", "sys_len", "ref_len")
    arrays, checks = [], []
    for name, x in zip(names, (correct, total, sys_len, ref_len)):
        if type(x) is int:  # a Python int (a sentence's length): a numpy scalar, finite by type
            arrays.append(np.float64(x))
            continue
        a = np.asarray(x)
        if a.dtype.kind in "biu":  # integers (a sentence's counts and lengths) are finite by type
            arrays.append(a.astype(np.float64))
        else:
            arrays.append(np.asarray(x, dtype=np.float64))
            checks.append((name, arrays[-1]))
    c, t = arrays[0], arrays[1]
    if c.shape != t.shape or c.ndim < 1:
        raise ValueError(f"correct and total must have the same shape (..., N); got {c.shape} and {t.shape}. "
                         "Pass one row of N per-order sums for each score.")
    for name, a in checks:
        finite = np.isfinite(a)
        if not _AND(finite, axis=None):
            bad = ~finite
            raise ValueError(f"{name} must hold finite numbers; got {int(bad.sum())} NaN or infinite value(s), "
                             f"e.g. {float(a[bad].flat[0])!r}. Statistics are counts: drop or recompute the rows "
                             "that produced them.")
    return c, t, arrays[2], arrays[3]


_AND = np.logical_and.reduce  # the ufunc's own method: ndarray.all adds a Python layer per call


def _pick(cond: Any, a: Any, b: Any) -> Any:
    """``np.where`` for one row: the formula's steps on numpy scalars choose without making an array."""
    return a if cond else b


# The formula's steps, each written once for both shapes: ``where`` is np.where for arrays, _pick for one row.

def _brevity(c: Any, r: Any, where: Any, clipped: bool = True) -> Any:
    """BP: 1 at c >= r (clipped), exp(1 - r/c) for c > 0 (below r when clipped), else (c >= r) 1 or 0."""
    # exp(1 - r/c) on a guarded length (1 where c <= 0): no division by zero, the same bits where it is used
    e = np.exp(1.0 - r / where(c > 0, c, 1.0))
    if clipped:
        return where(c >= r, 1.0, where(c > 0, e, 0.0))
    return where(c > 0, e, where(c >= r, 1.0, 0.0))


def _log_precision(p: Any, where: Any) -> Any:
    """ln p for a precision p > 0, else sacreBLEU's log(0) (:data:`LOG_FLOOR`)."""
    if where is _pick:
        return np.log(p) if p > 0 else LOG_FLOOR
    positive = p > 0
    if _AND(positive, axis=None):  # the common case (smoothed precisions): one plain call
        return np.log(p)
    # one masked call: the log of each element where p > 0 (the same values), LOG_FLOOR elsewhere
    return np.log(p, out=np.full(p.shape, LOG_FLOOR), where=positive)


def _safe_div(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a / b, and 0 where b <= 0."""
    return np.divide(a, b, out=np.zeros(np.broadcast_shapes(a.shape, b.shape)), where=b > 0)


def _bleu(correct: NDArray[np.float64], total: NDArray[np.float64], sys_len: NDArray[np.float64],
          ref_len: NDArray[np.float64], k: float | None, smooth_method: str, use_effective_order: bool,
          dtype: type = np.float64) -> dict[str, Any]:
    """The formula (the module docstring's) over the last axis; statistics and precisions rounded to ``dtype``.

    Written once for rows of any shape: the orders are taken one at a time,
    left to right as sacreBLEU adds the logs, and each step works on one
    order's column of every row at once. For one row (1-d statistics, 0-d
    lengths) the columns are Python floats (numpy float32 scalars for
    ``dtype=np.float32``), ``np.where`` becomes a plain choice and the
    precisions come back as a list, so a sentence costs microseconds of
    scalar arithmetic instead of thirty array calls: the same IEEE operations
    and the same ``np.log`` / ``np.exp`` (``tests/metrics/test_formula_twin.py``
    checks that a row alone equals its block's row bit for bit). Divisions
    take a total of 1 where the order is not valid (its precision is 0 then
    whatever the quotient), so no branch divides by zero.
    ``dtype=np.float32`` reproduces sacreBLEU's bootstrap, which sums
    ``np.array(stats, dtype='float32')``: ``100. * correct / total`` then
    stays in float32 (NumPy 2's scalar rules); logs, means and the
    brevity penalty are float64 in both.
    """
    n_order = correct.shape[-1]
    if smooth_method == "add-k":  # copies: add-k must not touch the caller's arrays
        c, t = correct.astype(dtype), total.astype(dtype)
        c[..., 1:] += dtype(k)
        t[..., 1:] += dtype(k)
    else:
        c, t = correct.astype(dtype, copy=False), total.astype(dtype, copy=False)
    f64 = dtype is np.float64
    one = correct.ndim == 1 and sys_len.ndim == 0 and ref_len.ndim == 0
    if one:
        where: Any = _pick
        raw = correct.tolist()
        cs, ts = (c.tolist(), t.tolist()) if f64 else (list(c), list(t))
        sys_len, ref_len = float(sys_len), float(ref_len)
    else:
        where = np.where
        raw, cs, ts = np.moveaxis(correct, -1, 0), np.moveaxis(c, -1, 0), np.moveaxis(t, -1, 0)
    hundred, nothing = (100.0, 0.0) if f64 else (dtype(100.0), dtype(0))
    exp, floor = smooth_method == "exp", smooth_method == "floor"
    any_match: Any = False
    valid: Any = True  # sacreBLEU stops at the first order with total 0: it and later ones keep precision 0
    none: Any = False  # no order with a non-zero total
    n_valid: Any = 0
    zeros: Any = 0.0 if one else 0  # one row: a float, so that np.exp2 takes its float64 loop at once
    acc: Any = None
    precisions = []
    # every division and log is guarded (a total of 1 where the order is not valid, a length of 1 where the
    # hypothesis is empty, a precision of 1 where it is 0), so the masked branches warn of nothing; an errstate
    # for the arrays still silences what garbage (negative lengths) could raise, one row does without its cost
    with np.errstate(divide="ignore", invalid="ignore", over="ignore") if not one else nullcontext():
        # sacreBLEU: BP = 0 where sys_len <= 0 < ref_len - sys_len (only a negative length reaches it below 0)
        bp = _brevity(sys_len, ref_len, where)
        for i in range(n_order):
            c_i, t_i = cs[i], ts[i]
            any_match = any_match | (raw[i] != 0)
            valid = valid & (t_i > 0)
            t_div = where(valid, t_i, 1)
            prec = where(valid & (c_i > 0), hundred * c_i / t_div, nothing)
            if exp:  # the i-th zero precision becomes 1 / (2^i total)
                zero = valid & (c_i == 0)
                zeros = zeros + zero
                if not one or zero:
                    doubling = np.exp2(zeros) if f64 else np.exp2(zeros).astype(dtype)
                    prec = where(zero, hundred / (doubling * t_div), prec)
            elif floor:
                prec = where(valid & (c_i == 0), dtype(100.0 * k) / t_div, prec)
            if not f64:
                prec = prec.astype(np.float64)
            precisions.append(prec)
            log = _log_precision(prec, where)
            if use_effective_order:  # N' = the last order with a non-zero total (all N when there is none)
                n_valid = n_valid + valid
                if i == 0:
                    none = valid == 0
                log = where(valid | none, log, 0.0)
            acc = log if acc is None else acc + log
        eff: Any = n_valid + none * n_order if use_effective_order and n_order else n_order or 1  # exact ints
        if acc is None:  # no orders (N = 0): no match, score 0
            acc = 0.0 if one else np.zeros(c.shape[:-1])
        score = bp * np.exp(acc / eff)
    if one:
        return {"score": np.float64(score if any_match else 0.0), "precisions": precisions,
                "bp": np.float64(bp), "c": c, "t": t, "any_match": bool(any_match)}
    prec_out = np.stack(precisions, axis=-1) if precisions else np.zeros(c.shape, np.float64)
    return {"score": np.where(any_match, score, 0.0), "precisions": prec_out, "bp": bp, "c": c, "t": t,
            "any_match": any_match}


def bleu_from_sums(
    correct: ArrayLike,
    total: ArrayLike,
    sys_len: ArrayLike,
    ref_len: ArrayLike,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
) -> dict[str, np.ndarray]:
    r"""Vectorized sacreBLEU ``BLEU.compute_bleu`` over rows of summed statistics.

    .. math::

        \mathrm{BLEU} = 100 \cdot \mathrm{BP} \cdot
            \exp\Big(\frac{1}{N'} \sum_{n=1}^{N'} \log p_n\Big),
        \qquad p_n = \frac{\mathrm{correct}_n}{\mathrm{total}_n}
        \ \text{(smoothed as in the module docstring)}

    Parameters
    ----------
    correct, total : array_like, shape (..., N)
        Per-order numerators and denominators (ints for BLEU, floats for ΔBLEU).
    sys_len, ref_len : array_like, shape (...)
        Hypothesis and reference lengths.
    smooth_method : {'exp', 'none', 'floor', 'add-k'}
    smooth_value : float, optional
        ``k`` of ``floor`` (default 0.1) and ``add-k`` (default 1).
    use_effective_order : bool
        Average only up to the last order with a non-zero total.

    Returns
    -------
    dict
        ``score`` (0–100), ``precisions`` (..., N), ``bp``, and ``counts`` /
        ``totals`` as sacreBLEU reports them (``add-k`` included).

    Raises
    ------
    ValueError
        An unknown smoothing, ``correct`` and ``total`` of different shapes,
        or a NaN or infinite input (never silently scored 0).

    See Also
    --------
    bleu_scores : the scores alone (and sacreBLEU's float32 bootstrap rounding).

    Examples
    --------
    >>> out = bleu_from_sums([[5, 3, 1, 0]], [[6, 5, 4, 3]], [6], [6])
    >>> round(float(out["score"][0]), 6), out["precisions"][0].round(3).tolist()
    (37.991784, [83.333, 60.0, 25.0, 16.667])
    """
    k = check_scoring_options(smooth_method=smooth_method, smooth_value=smooth_value)
    correct, total, sys_len, ref_len = _as_sums(correct, total, sys_len, ref_len)
    out = _bleu(correct, total, sys_len, ref_len, k, smooth_method, use_effective_order)
    if out["any_match"] is True:  # one row with a match: its own arrays (new ones, never the caller's)
        return {"score": np.asarray(out["score"]), "precisions": np.array(out["precisions"], np.float64),
                "bp": np.asarray(out["bp"]),
                "counts": np.array(out["c"]), "totals": np.array(out["t"])}
    any_match = np.asarray(out["any_match"])[..., None]
    precisions = np.asarray(out["precisions"])
    return {"score": np.asarray(out["score"]), "precisions": np.where(any_match, precisions, 0.0),
            "bp": np.asarray(out["bp"]), "counts": np.where(any_match, out["c"], correct),
            "totals": np.where(any_match, out["t"], total)}


def bleu_scores(
    correct: ArrayLike,
    total: ArrayLike,
    sys_len: ArrayLike,
    ref_len: ArrayLike,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    float32: bool = False,
) -> NDArray[np.float64]:
    r"""BLEU of every row of summed statistics: ``bleu_from_sums(...)['score']``, bit for bit.

    The same formula as :func:`bleu_from_sums` (sacreBLEU semantics), returning
    the scores only. This is what resampling uses: one call
    scores every resample, unit or bootstrap row :math:`b`,

    .. math::

        s_b = 100 \cdot \mathrm{BP}(c_b, r_b) \cdot
            \exp\Big(\frac{1}{N'} \sum_{n=1}^{N'} \log p_{b,n}\Big).

    Parameters
    ----------
    correct, total, sys_len, ref_len, smooth_method, smooth_value, use_effective_order
        As in :func:`bleu_from_sums`.
    float32 : bool
        Round the statistics and each precision to float32 before the logs,
        as sacreBLEU's paired bootstrap does (it sums float32 statistics);
        ``False`` (the default) computes in float64 like every other score.
        The sums are exact here and rounded once, so the two agree bit for bit
        while every summed count is below 2**24 (sacreBLEU's own float32
        summation starts to round above that, e.g. past ~16.7M tokens).

    Returns
    -------
    numpy.ndarray of float64, shape (...)
        Scores in [0, 100].

    Examples
    --------
    >>> bleu_scores([[5, 3, 1, 0], [2, 0, 0, 0]], [[6, 5, 4, 3], [2, 1, 0, 0]], [6, 2], [6, 3]).round(4).tolist()
    [37.9918, 0.0]
    >>> exact = bleu_scores([[5, 3, 1, 0]], [[6, 5, 4, 3]], [6], [6])
    >>> sacre = bleu_scores([[5, 3, 1, 0]], [[6, 5, 4, 3]], [6], [6], float32=True)  # sacreBLEU's bootstrap
    >>> f"{exact[0]:.10f}", f"{sacre[0]:.10f}"
    ('37.9917842826', '37.9917842101')
    """
    k = check_scoring_options(smooth_method=smooth_method, smooth_value=smooth_value)
    correct, total, sys_len, ref_len = _as_sums(correct, total, sys_len, ref_len)
    dtype = np.float32 if float32 else np.float64
    return np.asarray(_bleu(correct, total, sys_len, ref_len, k, smooth_method, use_effective_order, dtype)["score"])


def exp_bleu_scores_of_rows(cols: NDArray[np.float64], idx: NDArray[np.int64], *, clamp: bool = False,
                            memo: dict | None = None) -> NDArray[np.float64] | None:
    r""":func:`bleu_scores` (exp smoothing, no effective order) of many rows of statistics, by numba kernels.

    The statistics of row u are ``cols[idx, u]``: ``idx`` names the rows of
    ``cols`` (k, units) holding hyp_len, ref_len, then N correct and N total
    sums (each row contiguous: the study's unit sums). ``clamp`` clamps the
    numerators at 0 first (ΔBLEU). The scores are :func:`bleu_scores`' bit for
    bit (:mod:`bleustats.metrics._formula_kernels` does its exactly rounded
    steps, NumPy its logs and exponentials). ``None`` where an input is NaN
    or infinite (:func:`bleu_scores` then names it) or a precision overflows
    (:math:`c_n / t_n > 1.7 \cdot 10^{306}`, which :func:`bleu_scores` scores as
    sacreBLEU does). ``memo`` (one dict per
    ``cols``) keeps the brevity penalties by their (hyp_len, ref_len) rows, so
    that metrics sharing the lengths (BLEU and ΔBLEU of one reference view)
    compute them once.

    Examples
    --------
    >>> cols = np.array([[6.0], [6.0], [5.0], [3.0], [1.0], [0.0], [6.0], [5.0], [4.0], [3.0]])
    >>> exp_bleu_scores_of_rows(cols, np.arange(10)).round(4).tolist()
    [37.9918]
    """
    from .._kernel_cache import guarded
    from . import _formula_kernels  # numba: loaded where the resampling needs it

    kernels = guarded(_formula_kernels)

    prec, bp_arg, bp_case, ok, finite = kernels.smooth_precisions(cols, idx, clamp)
    if not finite:
        return None
    key = ("bp", int(idx[0]), int(idx[1]))
    with np.errstate(all="ignore"):  # a row scored 0 may have a zero or negative precision: its log is unused
        # in place: the kernels' arrays are this call's own, and a fresh array of this size costs its pages
        geo = kernels.average_logs(np.log(prec, out=prec))
        np.exp(geo, out=geo)
        bp = None if memo is None else memo.get(key)
        if bp is None:
            shorter = np.flatnonzero(bp_case == 1)  # the rows whose brevity penalty is not 1 or 0
            if 2 * len(shorter) < len(bp_case):
                bp = np.zeros(len(bp_case))
                bp[shorter] = np.exp(bp_arg[shorter])  # elementwise: the bits of np.exp(bp_arg) there
            else:
                bp = np.exp(bp_arg, out=bp_arg)
            if memo is not None:
                memo[key] = bp
    return kernels.scale_scores(geo, bp, bp_case, ok)


def exp_bleu_scores_of_columns(sums: NDArray[np.float64], max_ngram_order: int, *,
                               clamp: bool = False) -> NDArray[np.float64] | None:
    """:func:`exp_bleu_scores_of_rows` of sums whose last axis is ``[hyp_len, ref_len, correct_1..N, total_1..N]``.

    Shape (..., 2 + 2N) → (...). ``None`` when the last axis is not such
    columns, holds a NaN or infinity or a precision overflows:
    :func:`bleu_scores` then scores them, or says which input is not finite.

    Examples
    --------
    >>> exp_bleu_scores_of_columns(np.array([[6.0, 6.0, 5, 3, 1, 0, 6, 5, 4, 3]]), 4).round(4).tolist()
    [37.9918]
    """
    n = max_ngram_order
    if n < 1 or sums.shape[-1] != 2 + 2 * n:
        return None
    cols = np.moveaxis(sums, -1, 0)
    shape = cols.shape[1:]
    # each statistic's row contiguous, as the kernel reads it (and compiled once, for C order): a copy unless the
    # sums are column-major already (the study's unit sums)
    cols = np.ascontiguousarray(cols.reshape(cols.shape[0], -1))
    scores = exp_bleu_scores_of_rows(cols, np.arange(2 + 2 * n, dtype=np.int64), clamp=clamp)
    return None if scores is None else scores.reshape(shape)


# --------------------------------------------------------------------------- building blocks


def brevity_penalty(hyp_len: ArrayLike, ref_len: ArrayLike, *, clipped: bool = True) -> NDArray[np.float64]:
    r"""The brevity penalty of every row: the one every BLEU score, variant and feature of bleustats uses.

    .. math::

        \mathrm{BP}(c, r) = \begin{cases} 1 & c \ge r \text{ (clipped)} \\
            e^{1 - r/c} & c > 0 \\ 1 & c \le 0,\ c \ge r \\ 0 & \text{otherwise} \end{cases}

    ``clipped=False`` keeps :math:`e^{1 - r/c}` above 1 for hypotheses longer
    than :math:`r` (Nakov et al., 2012, "unclipped"). A variant's reference
    length (Nakov's :math:`r + 1`, :math:`r \cdot \mathrm{ILR}`) is ``ref_len``.

    Examples
    --------
    >>> brevity_penalty([6, 2, 0, 8], [6, 3, 4, 4]).round(4).tolist()
    [1.0, 0.6065, 0.0, 1.0]
    >>> brevity_penalty([8], [4], clipped=False).round(4).tolist()
    [1.6487]
    """
    c, r = np.asarray(hyp_len, dtype=np.float64), np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.asarray(_brevity(c, r, np.where, clipped))


def geometric_mean(precisions: ArrayLike, *, nltk: bool = False) -> NDArray[np.float64]:
    r"""The geometric mean of the last axis as BLEU takes it: the logs summed in order, a zero adds log(0).

    .. math::

        G(p_1, \dots, p_N) = \exp\Big(\frac{1}{N} \sum_{n=1}^{N} \ell(p_n)\Big),
        \qquad \ell(p) = \begin{cases} \ln p & p > 0 \\ -9999999999 & p \le 0 \end{cases}

    so any precision of 0 makes the mean 0 (sacreBLEU's ``my_log``). The
    orders are added left to right, as :func:`bleu_from_sums` adds them.
    ``nltk=True`` does the arithmetic of NLTK's ``sentence_bleu`` instead (the
    definition of the Chen & Cherry variants): each log weighted by
    :math:`1/N` first, then the weighted logs summed as if exactly rounded
    (``math.fsum``'s result, by error-free transformations), so that a mean
    that is exactly representable (:math:`(1/16)^{1/4} = 1/2`) comes out
    exact where the ordered sum may land an ulp below.

    Examples
    --------
    >>> geometric_mean([[1.0, 4.0], [2.0, 0.0]]).tolist()
    [2.0, 0.0]
    >>> p = [[0.75, 0.5, 1 / 3, 0.5]]
    >>> geometric_mean(p).tolist(), geometric_mean(p, nltk=True).tolist()
    ([0.49999999999999994], [0.5])
    """
    p = np.asarray(precisions, dtype=np.float64)
    n = p.shape[-1]
    if not n:
        return np.ones(p.shape[:-1])
    logs = _log_precision(p, np.where)
    if nltk:
        logs = logs * (1.0 / n)
        acc, err = logs[..., 0].copy(), np.zeros(logs.shape[:-1])
        for i in range(1, n):  # TwoSum: acc + x = new + its exact rounding error, summed apart
            x = logs[..., i]
            new = acc + x
            part = new - acc
            err += (acc - (new - part)) + (x - part)
            acc = new
        acc += err
        return np.exp(acc, out=acc)
    acc = logs[..., 0].copy()
    for i in range(1, n):  # in order, in place (large arrays: each temporary costs its pages)
        acc += logs[..., i]
    acc /= n
    return np.exp(acc, out=acc)


def bleu_from_precisions(precisions: ArrayLike, bp: ArrayLike, *, nltk: bool = False) -> NDArray[np.float64]:
    r"""BLEU (0–100) from precisions on the 0–1 scale and a brevity penalty: the last step of every variant.

    .. math::

        \mathrm{BLEU} = 100 \cdot \mathrm{BP} \cdot G(p_1, \dots, p_N)

    with :func:`geometric_mean` :math:`G` (:func:`bleu_from_sums` takes the
    same mean of the precisions in percent). ``nltk=True``: NLTK's
    arithmetic, :math:`100 \cdot (\mathrm{BP} \cdot G)` with
    ``geometric_mean(nltk=True)`` (compare-mt scales NLTK's score by 100).

    Examples
    --------
    >>> bleu_from_precisions([[5 / 6, 3 / 5, 1 / 4, 1 / 6]], [1.0]).round(4).tolist()
    [37.9918]
    >>> bleu_from_precisions([[0.75, 0.5, 1 / 3, 0.5]], [1.0], nltk=True).tolist()
    [50.0]
    """
    bp = np.asarray(bp, dtype=np.float64)
    if nltk:
        return 100.0 * (bp * geometric_mean(precisions, nltk=True))
    return 100.0 * bp * geometric_mean(precisions)


def add_k_precisions(match: ArrayLike, total: ArrayLike, *, k: float = 1.0,
                     first_order: int = 1) -> NDArray[np.float64]:
    r"""Additively smoothed precisions: k added to the matches and totals of orders from ``first_order`` on.

    .. math::

        p_n = \begin{cases} (m_n + k) / (t_n + k) & n \ge n_0 \\ m_n / t_n & n < n_0 \end{cases}
        \qquad (0 \text{ where the denominator is } 0)

    BLEU+1 (PRO, Moses ``smoothedSentenceBleu``): ``k=1, first_order=1``; Lin
    & Och (2004) and Chen & Cherry's method 2: ``k=1, first_order=2``;
    unsmoothed: ``k=0``.

    Examples
    --------
    >>> add_k_precisions([[1, 0, 0, 0]], [[2, 1, 0, 0]], first_order=2).tolist()
    [[0.5, 0.5, 1.0, 1.0]]
    """
    m, t = np.array(match, dtype=np.float64), np.array(total, dtype=np.float64)  # copies, smoothed in place
    if k:
        m[..., first_order - 1:] += k
        t[..., first_order - 1:] += k
    positive = t > 0
    if _AND(positive, axis=None):
        return np.divide(m, t, out=m)
    np.divide(m, t, out=m, where=positive)
    m[~positive] = 0.0
    return m


#: Chen & Cherry's smoothing methods (NLTK's ``SmoothingFunction().method1`` .. ``method7``).
CHEN_CHERRY_METHODS = (1, 2, 3, 4, 5, 6, 7)


def _kth_zero_scale(zero: NDArray[np.bool_]) -> NDArray[np.float64]:
    """2^k for the k-th order without a match of each row (k = 1, 2, ...), 1 elsewhere (exp smoothing's doubling)."""
    return np.exp2(np.where(zero, np.cumsum(zero, axis=-1), 0))


def chen_cherry_precisions(match: ArrayLike, total: ArrayLike, hyp_len: ArrayLike, *, method: int,
                           epsilon: float = 0.1, alpha: float = 5.0, k: float = 5.0,
                           match_next: ArrayLike | None = None,
                           total_next: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""The precisions of Chen & Cherry's (2014) smoothing ``method`` 1–7, with NLTK's semantics.

    Rows of ``match`` / ``total`` (shape (rows, N)); NLTK floors each total
    at 1 (:math:`\bar t_n = \max(1, t_n)`, :math:`p_n = m_n / \bar t_n`):

    1. :math:`p_n = \epsilon / \bar t_n` where :math:`m_n = 0`;
    2. :func:`add_k_precisions` with ``k=1, first_order=2`` (on the true totals);
    3. :math:`p_n = 1 / (2^{j} \bar t_n)` for the j-th order without a match;
    4. :math:`p_n = \ln c / (2^{j} K \bar t_n)` there, for hypotheses longer than one token;
    5. :math:`p'_n = (p'_{n-1} + p_n + p_{n+1}) / 3`, :math:`p'_0 = p_1 + 1`, with order
       :math:`N+1` from ``match_next`` / ``total_next``;
    6. :math:`p_n = (m_n + \alpha\, p_{n-1}^2 / p_{n-2}) / (t_n + \alpha)` for :math:`n \ge 3`;
    7. method 4, then method 5.

    Examples
    --------
    >>> chen_cherry_precisions([[1, 0, 0, 0]], [[2, 1, 0, 0]], [2], method=3).tolist()
    [[0.5, 0.5, 0.25, 0.125]]
    """
    if isinstance(method, bool) or method not in CHEN_CHERRY_METHODS:
        raise InputError(f"method must be one of {', '.join(map(str, CHEN_CHERRY_METHODS))}; got {method!r}.")
    m, t = np.asarray(match, dtype=np.float64), np.asarray(total, dtype=np.float64)
    c = np.asarray(hyp_len, dtype=np.float64)
    t1 = np.maximum(t, 1.0)  # NLTK's modified_precision floors the denominator at 1
    p = m / t1
    zero = m == 0
    if method == 1:
        p = np.where(zero, check_number("epsilon", epsilon) / t1, p)
    elif method == 2:
        p = add_k_precisions(m, t, k=1.0, first_order=2)
    elif method == 3:
        p = np.where(zero, 1.0 / (_kth_zero_scale(zero) * t1), p)
    elif method in (4, 7):
        k = check_number("k", k, positive=True)
        with np.errstate(divide="ignore"):
            log_c = np.log(np.where(c > 1, c, 1.0))[:, None]
        smoothed = log_c / (_kth_zero_scale(zero) * k * t1)
        p = np.where(zero & (c[:, None] > 1), smoothed, p)
    if method in (5, 7):
        if match_next is None or total_next is None:
            raise InputError(
                f"chen-cherry:{method} averages orders n-1, n, n+1 and needs order N+1 = {m.shape[-1] + 1}; "
                f"the statistics stop at N = {m.shape[-1]}. Compute them with max_ngram_order="
                f"{m.shape[-1] + 1} (the score still uses N = {m.shape[-1]} via max_ngram_order)."
            )
        p_next = np.asarray(match_next, dtype=np.float64) / np.maximum(np.asarray(total_next, dtype=np.float64), 1.0)
        nxt = np.concatenate([p[:, 1:], p_next[:, None]], axis=-1)
        prev = p[:, 0] + 1.0
        out = np.empty_like(p)
        for i in range(p.shape[-1]):  # a recurrence over orders, vectorized over rows
            prev = (prev + p[:, i] + nxt[:, i]) / 3.0
            out[:, i] = prev
        p = out
    elif method == 6:
        alpha = check_number("alpha", alpha)
        p = p.copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(2, p.shape[-1]):
                prior = _safe_div(p[:, i - 1] ** 2, p[:, i - 2])
                p[:, i] = (m[:, i] + alpha * prior) / (t[:, i] + alpha)
    return p


def count_columns(metric: str, max_ngram_order: int) -> tuple[list[str], list[str]]:
    """Names of the numerator and denominator columns of ``metric`` for orders 1..N.

    Examples
    --------
    >>> count_columns("delta_bleu", 2)
    (['wmatch_1', 'wmatch_2'], ['wtotal_1', 'wtotal_2'])
    """
    num, den = _PREFIXES[check_choice("metric", metric, METRICS)]
    orders = range(1, max_ngram_order + 1)
    return [f"{num}_{i}" for i in orders], [f"{den}_{i}" for i in orders]


def score_from_sums(correct: ArrayLike, total: ArrayLike, sys_len: Any, ref_len: Any, *, signature: Any,
                    metric: str = "bleu", smooth_method: str = "exp", smooth_value: float | None = None,
                    use_effective_order: bool = False, ref_length: str = "closest") -> BLEUScore:
    """The :class:`~bleustats.metrics.results.BLEUScore` of one row of summed statistics, signed ``signature``.

    ``correct`` / ``total`` are the per-order sums of ``metric``'s numerators
    and denominators (ΔBLEU's summed numerators are clamped at 0 here); counts
    are ints for BLEU, lengths ints unless ``ref_length='average'``. Every
    corpus score ends here: a table's, a dataset's and a few segments' counted
    in plain Python.

    Examples
    --------
    >>> r = score_from_sums([2, 1], [3, 2], 3, 3, signature=None, smooth_method="none")  # sqrt(2/3 * 1/2)
    >>> r.score, r.counts, r.stats
    (57.73502691896257, [2, 1], {'match': [2, 1], 'total': [3, 2], 'hyp_len': 3, 'ref_len': 3})
    """
    c_sum, t_sum = np.asarray(correct), np.asarray(total)
    raw_c = c_sum
    if metric == "delta_bleu":
        c_sum = np.maximum(c_sum, 0.0)
    k = check_scoring_options(smooth_method=smooth_method, smooth_value=smooth_value)
    c, t, s_len, r_len_sum = _as_sums(c_sum, t_sum, sys_len, ref_len)
    out = _bleu(c, t, s_len, r_len_sum, k, smooth_method, use_effective_order)
    integral = metric == "bleu"
    int_len = ref_length != "average"
    num, den = _PREFIXES[metric]
    as_number = int if integral else float
    r_len = int(ref_len) if int_len else float(ref_len)
    # as bleu_from_sums reports them: without a match, the precisions are 0 and the counts unsmoothed
    if out["any_match"]:
        precisions, counts, totals = [float(p) for p in out["precisions"]], out["c"].tolist(), out["t"].tolist()
    else:
        precisions, counts, totals = [0.0] * c.shape[-1], c.tolist(), t.tolist()
    # element by element as Python numbers (tolist: the same values, without a numpy scalar each)
    return BLEUScore(
        score=float(out["score"]),
        counts=[int(v) if integral and v.is_integer() else v for v in counts],
        totals=[int(v) if integral and v.is_integer() else v for v in totals],
        precisions=precisions,
        bp=float(out["bp"]),
        sys_len=int(sys_len),
        ref_len=r_len,
        signature=signature,
        stats={num: list(map(as_number, raw_c.tolist())), den: list(map(as_number, t_sum.tolist())),
               "hyp_len": int(sys_len), "ref_len": r_len},
        name="ΔBLEU" if metric == "delta_bleu" else "BLEU",
    )
