r"""Numba kernels: the BLEU formula (exp smoothing) over the summed statistics of many rows at once.

Private module; :func:`bleustats.metrics.formula.exp_bleu_scores_of_rows` calls it (the study's unit
scores, every resample of them). ``tests/twins/formula.py`` is the plain-Python twin of every kernel,
and ``tests/metrics/test_formula_kernels.py`` checks that the scores are
:func:`bleustats.metrics.formula.bleu_scores`' bit for bit.

A row's statistics are the columns ``[hyp_len, ref_len, correct_1..N,
total_1..N]``, rows of a (k, units) array (each column contiguous; several
metrics may share a row, e.g. the hypothesis length). For exp smoothing without effective order, with :math:`z_n` the
number of orders :math:`\le n` with no match,

.. math::

    p_n = \begin{cases} 100 / (2^{z_n} t_n) & c_n = 0 \\ 100\,c_n / t_n & c_n \ne 0 \end{cases},
    \qquad
    \mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\frac{1}{N} \sum_{n=1}^{N} \log p_n\Big),
    \qquad
    \mathrm{BP} = \begin{cases} 1 & h \ge r \\ e^{1 - r/h} & 0 < h < r \\ 0 & h \le 0 \end{cases}

and 0 for a row with no match, a zero total or a negative count (ΔBLEU's
numerators are clamped at 0 first). The kernels do the exactly rounded
operations (+, ×, /, comparisons) of :mod:`bleustats.metrics.formula` in its
order; the logarithms and exponentials between them stay NumPy's own
``np.log`` / ``np.exp`` (called by the formula on contiguous arrays, as its
vectorized path calls them), so the scores have the same bits. Division by
zero follows IEEE arithmetic as NumPy's does (``error_model="numpy"``: 100 /
0 is inf, not an exception); no fast-math.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True, error_model="numpy")
def smooth_precisions(cols, idx, clamp):
    """Per unit u of ``cols`` (k, units): the precisions, the brevity penalty's case and exponent, and validity.

    The unit's statistics are rows ``idx`` of ``cols``: hyp_len, ref_len, then N correct
    and N total rows (``len(idx) = 2 + 2N``). Returns ``(prec (N, units), bp_arg (units,), bp_case (units,) int8, ok
    (units,) bool, finite)``: ``bp_case`` 0 means BP = 1, 1 means BP = exp(bp_arg),
    2 means BP = 0; ``ok`` is False where the score is 0 (no match, a total <= 0, a
    negative count); ``finite`` is False when some input is NaN or infinite, or a
    precision overflows to infinity (the caller then leaves the rows to the general
    path, which names a non-finite input or scores the overflow as sacreBLEU does).
    """
    n = cols.shape[1]
    n_order = (idx.shape[0] - 2) // 2
    prec = np.empty((n_order, n), np.float64)
    bp_arg = np.empty(n, np.float64)
    bp_case = np.empty(n, np.int8)
    ok = np.empty(n, np.bool_)
    # order by order over all units, free of branches the compiler cannot turn into selects (vector code)
    scale = np.ones(n, np.float64)  # 2 ** (the orders so far without a match)
    state = np.zeros(n, np.int8)  # bit 0: some order has a match; bit 1: a total <= 0 or a negative count
    bad = 0
    hs = cols[idx[0]]
    rs = cols[idx[1]]
    for u in range(n):
        h = hs[u]
        r = rs[u]
        bad += not (np.isfinite(h) and np.isfinite(r))
        case = 0 if h >= r else (1 if h > 0 else 2)
        bp_case[u] = case
        arg = 1.0 - r / h
        bp_arg[u] = arg if case == 1 else 0.0
    for i in range(n_order):
        cr = cols[idx[2 + i]]
        tr = cols[idx[2 + n_order + i]]
        pr = prec[i]
        for u in range(n):
            c = cr[u]
            t = tr[u]
            bad += not (np.isfinite(c) and np.isfinite(t))
            if clamp and c < 0.0:  # np.maximum(c, 0.0): NaN and -0.0 pass through
                c = 0.0
            z = c == 0
            f = scale[u] * 2.0 if z else scale[u]
            scale[u] = f
            # c == 0: 100 / (2 ** zeros * t); else 100 c / t
            p = (100.0 if z else 100.0 * c) / (f * t if z else t)
            pr[u] = p
            # 100 c / t beyond float64 (c / t > 1.7e306): the formula's infinite log, left to its general path
            bad += (t > 0.0) & (p == np.inf)
            st = state[u]
            if c != 0:
                st |= 1
            if not (t > 0 and c >= 0):
                st |= 2
            state[u] = st
    for u in range(n):
        ok[u] = state[u] == 1
    return prec, bp_arg, bp_case, ok, bad == 0


@njit(cache=True, nogil=True, error_model="numpy")
def average_logs(logs):
    """Per unit, the logs of its N precisions summed left to right from 0.0, divided by N."""
    n_order, n = logs.shape
    out = np.empty(n, np.float64)
    for u in range(n):
        acc = 0.0
        for i in range(n_order):
            acc = acc + logs[i, u]
        out[u] = acc / n_order
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def scale_scores(geo, bp_exp, bp_case, ok):
    """Per unit: ``BP * geo`` where ``ok``, else 0.0 (BP from its case and ``bp_exp``)."""
    n = geo.shape[0]
    out = np.empty(n, np.float64)
    for u in range(n):
        case = bp_case[u]
        bp = 1.0 if case == 0 else (bp_exp[u] if case == 1 else 0.0)
        out[u] = bp * geo[u] if ok[u] else 0.0
    return out
