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

from .._validate import check_choice
from ..engine._options import BLEU_METRICS, REF_LENGTHS, SMOOTH_DEFAULTS, SMOOTH_METHODS
from ..errors import InputError
from .results import BLEUScore

__all__ = ["LOG_FLOOR", "METRICS", "bleu_from_sums", "bleu_scores", "check_scoring_options", "count_columns",
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
        bp = where(sys_len >= ref_len, 1.0,
                   where(sys_len > 0, np.exp(1.0 - ref_len / where(sys_len > 0, sys_len, 1.0)), 0.0))
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
            log = where(prec > 0, np.log(where(prec > 0, prec, 1.0)), LOG_FLOOR)
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
