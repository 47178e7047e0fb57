r"""Spearman's ρ and Kendall's τ of many rows at once, with integer weights (multiplicities).

A bootstrap replicate of :math:`n` observations is a vector of draw counts
:math:`w` (observation :math:`i` drawn :math:`w_i` times). Computing its
coefficients from the counts, rather than from the :math:`n` drawn values,
needs no copy and no sort: each row of observations is sorted once by
:math:`(x, y)` (:func:`rank_rows`), then every replicate of it is one
:math:`O(n \log k_y)` pass (:meth:`RankedRows.correlations`). The values equal
:func:`bleustats.meta.correlation.spearman` and
:func:`~bleustats.meta.correlation.kendall_tau` of the replicate's drawn values
(the tests check this against scipy on the expanded draws).

With weights :math:`w_i`, :math:`W = \sum_i w_i`, average (mid) ranks
:math:`a^x_i, a^y_i` of the weighted sample and the pair counts of the module
:mod:`bleustats.meta._rank_kernels` (:math:`n_0` pairs, :math:`t_x, t_y,
t_{xy}` tied in x, in y, in both, :math:`D` discordant):

.. math::

    \rho = \frac{\sum_i w_i (a^x_i - \bar a)(a^y_i - \bar a)}
                {\sqrt{\sum_i w_i (a^x_i - \bar a)^2 \sum_i w_i (a^y_i - \bar a)^2}},
    \quad \bar a = \frac{W + 1}{2}

.. math::

    C = n_0 - t_x - t_y + t_{xy} - D, \qquad
    \tau_b = \frac{C - D}{\sqrt{(n_0 - t_x)(n_0 - t_y)}}, \qquad
    \tau_c = \frac{2 (C - D)}{W^2 (m - 1) / m}

with :math:`m` the smaller number of distinct x and y values of positive
weight. A row whose x or y side is constant (over its positive weights) has
no defined coefficient: ``nan``.

Examples
--------
>>> x = np.array([[1.0, 2.0, 2.0, 4.0]])
>>> y = np.array([[1.0, 3.0, 2.0, 2.0]])
>>> ranked = rank_rows(x, y)
>>> rho, tau = ranked.correlations()
>>> round(float(tau[0]), 6)                    # as kendall_tau(x, y): 0.4
0.4
>>> w = np.array([[2, 0, 1, 1]])               # observation 0 twice, observation 1 left out
>>> rho, tau = ranked.correlations(weights=w)
>>> round(float(rho[0]), 6), round(float(tau[0]), 6)
(0.942809, 0.894427)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._kernel_cache import guarded
from ..engine._threads import serial
from ..errors import InputError
from . import _rank_kernels as _rank_module
from .correlation import as_scores

__all__ = ["RankedRows", "cut_unit_sums", "dense_ranks", "rank_rows", "sum_units", "tau_from_counts"]

_rank_kernels = guarded(_rank_module)

_KENDALL = ("b", "c")
# below this many entries a kernel runs on one thread: launching a parallel region costs more
_PARALLEL_MIN = 1 << 15


def _parallel(entries: int) -> bool:
    return entries >= _PARALLEL_MIN and not serial()


def dense_ranks(values: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Dense ranks ``0..k-1`` along the last axis of a (rows, n) array, and ``k`` per row.

    Examples
    --------
    >>> r, k = dense_ranks([[0.5, -1.0, 0.5, 3.0]])
    >>> r.tolist(), k.tolist()
    ([[1, 0, 1, 2]], [3])
    """
    v = np.atleast_2d(as_scores(values, "values"))
    if v.ndim != 2:
        raise InputError(f"values must have shape (rows, n); got {v.shape}.")
    rows, n = v.shape
    if n == 0:
        return np.zeros((rows, 0), np.int64), np.zeros(rows, np.int64)
    order = np.argsort(v, axis=1)  # numpy's sort (SIMD where available) is several times numba's
    s = np.take_along_axis(v, order, axis=1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    dense = np.cumsum(new, axis=1, dtype=np.int64) - 1
    ranks = np.empty((rows, n), np.int64)
    np.put_along_axis(ranks, order, dense, axis=1)
    return ranks, dense[:, -1] + 1


@dataclass(frozen=True, eq=False)
class RankedRows:
    """Rows of (x, y) observations sorted once by (x, y), ready for weighted coefficients.

    Attributes
    ----------
    order : numpy.ndarray of int32, shape (rows, n)
        Original positions in (x, y) order.
    rx, ry : numpy.ndarray of int32, shape (rows, n)
        Dense x and y ranks in that order.
    n_y : numpy.ndarray of int64, shape (rows,)
        Distinct y values per row.
    """

    order: NDArray[np.int64]
    rx: NDArray[np.int64]
    ry: NDArray[np.int64]
    n_y: NDArray[np.int64]

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, n)."""
        return self.order.shape

    def stats(self, weights: ArrayLike | None = None, rows: ArrayLike | None = None) -> NDArray[np.float64]:
        """The kernel's raw statistics per replicate, shape (replicates, 9) (see :data:`STAT_COLUMNS`).

        ``weights`` (replicates, n) or (1, n) of int >= 0 (default all 1), in each row's
        original order; ``rows`` (replicates,) picks the row of each replicate (default:
        replicate r uses row r).
        """
        n_rows, n = self.shape
        if weights is None:
            w = np.ones((1, n), np.int64)  # int64 as the resampling counts: the kernels compile once for both
        else:
            w = np.asarray(weights)
            if w.ndim != 2 or w.shape[1] != n or not np.issubdtype(w.dtype, np.integer):
                raise InputError(f"weights must be integers of shape (replicates, {n}) or (1, {n}); got "
                                 f"dtype {w.dtype}, shape {w.shape}.")
            if w.size and w.min() < 0:
                raise InputError("weights are multiplicities and must be >= 0; got a negative weight.")
            if w.dtype != np.int32 and w.dtype != np.int64:  # the kernels' types, each compiled once
                if w.size and w.dtype == np.uint64 and w.max() >= 2**63:
                    raise InputError(f"weights must be below 2**63; got {w.max()}.")
                w = w.astype(np.int64)
            w = np.ascontiguousarray(w)
        if rows is None:
            r = np.arange(n_rows if w.shape[0] == 1 else w.shape[0], dtype=np.int64)
            if w.shape[0] > 1 and w.shape[0] != n_rows:
                raise InputError(f"weights: {w.shape[0]} replicates for {n_rows} rows; pass rows= to say which "
                                 "row each replicate weights.")
        else:
            r = np.ascontiguousarray(rows, dtype=np.int64)
            if r.ndim != 1 or (w.shape[0] > 1 and len(r) != w.shape[0]):
                raise InputError(f"rows must be 1-D with one entry per replicate ({w.shape[0]}); got shape {r.shape}.")
            if r.size and (r.min() < 0 or r.max() >= n_rows):
                raise InputError(f"rows must index the {n_rows} sorted rows; got values from {r.min()} to {r.max()}.")
        if w.shape[0] >= _rank_kernels.LANES and (r == r[0]).all():
            # replicates of one sorted row: several at a time through one pass (the same bits)
            return _rank_kernels.weighted_rank_stats_lanes(self.order, self.rx, self.ry, self.n_y, w, int(r[0]))
        parallel = _parallel(len(r) * n)
        kernel = _rank_kernels.weighted_rank_stats if parallel else _rank_kernels.weighted_rank_stats_serial
        return kernel(self.order, self.rx, self.ry, self.n_y, w, r)

    def correlations(self, weights: ArrayLike | None = None, rows: ArrayLike | None = None, *,
                     kendall_variant: str = "b") -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Spearman's ρ and Kendall's τ (``'b'`` or ``'c'``) per replicate (see :meth:`stats`)."""
        s = self.stats(weights, rows)
        return s[:, 0].copy(), tau_from_counts(s, kendall_variant)


#: Columns of :meth:`RankedRows.stats`.
STAT_COLUMNS = _rank_kernels.STAT_COLUMNS


def tau_from_counts(stats: NDArray[np.float64], variant: str = "b") -> NDArray[np.float64]:
    r"""Kendall's τ-b or τ-c from the pair counts of :meth:`RankedRows.stats` (formulas in the module docstring).

    Examples
    --------
    >>> s = rank_rows([[1.0, 2.0, 3.0]], [[1.0, 3.0, 2.0]]).stats()
    >>> tau_from_counts(s, "b").round(4).tolist(), tau_from_counts(s, "c").round(4).tolist()
    ([0.3333], [0.3333])
    """
    if variant not in _KENDALL:
        raise InputError(f"variant must be 'b' or 'c'; got {variant!r}.")
    w, n0, xt, yt, xyt, dis = (stats[:, i] for i in range(1, 7))
    con = n0 - xt - yt + xyt - dis
    s = con - dis
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "b":
            tau = s / np.sqrt(n0 - xt) / np.sqrt(n0 - yt)
        else:
            m = np.minimum(stats[:, 7], stats[:, 8])
            tau = 2 * s / (w**2 * (m - 1) / m)
    return np.where((xt == n0) | (yt == n0), np.nan, np.clip(tau, -1.0, 1.0))


def rank_rows(x: ArrayLike, y: ArrayLike, *, y_ranks: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
              ) -> RankedRows:
    """Sort every row of (x, y) once by (x, y) for :meth:`RankedRows.correlations`.

    Parameters
    ----------
    x : array_like, shape (rows, n)
        Metric side (finite).
    y : array_like, shape (rows, n) or (1, n)
        Human side (finite); one row is shared by every x row.
    y_ranks : (ranks, counts), optional
        :func:`dense_ranks` of ``y`` when already known (several x against one y).

    Examples
    --------
    >>> rank_rows([[3.0, 1.0, 2.0]], [[0.0, 0.0, 1.0]]).order.tolist()
    [[1, 2, 0]]
    """
    xa = np.ascontiguousarray(np.atleast_2d(as_scores(x, "x")))
    if y_ranks is None:
        ry, n_y = dense_ranks(y)
    else:
        ry, n_y = y_ranks
    if xa.ndim != 2 or ry.ndim != 2 or ry.shape[1] != xa.shape[1] or ry.shape[0] not in (1, xa.shape[0]):
        raise InputError(f"x must have shape (rows, n) and y (rows, n) or (1, n); got {xa.shape} and {ry.shape}.")
    x_order = np.ascontiguousarray(np.argsort(xa, axis=1))
    kernel = _rank_kernels.sort_rows if _parallel(xa.size) else _rank_kernels.sort_rows_serial
    order, rx_s, ry_s = kernel(xa, x_order, np.ascontiguousarray(ry))
    if ry.shape[0] == 1 and xa.shape[0] > 1:
        n_y = np.repeat(n_y, xa.shape[0])
    return RankedRows(order=order, rx=rx_s, ry=ry_s, n_y=np.ascontiguousarray(n_y, dtype=np.int64))


def sum_units(values: ArrayLike, units: ArrayLike, columns: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""Column sums over units, :math:`T_{r,u,c} = \sum_{m} X_{\mathrm{units}[r,u,m],\,\mathrm{columns}[c]}`.

    Index -1 in ``units`` is skipped (ragged units padded with -1). The same sums as
    :func:`bleustats.meta.resample.unit_sums` (in the same order, so the same bits)
    for units of shape (rows, U, M). ``columns`` (default all, in order) lets one
    input column fill several output columns. The kernel is serial and releases
    the GIL: run several calls on threads.

    Examples
    --------
    >>> sum_units([[1.0], [2.0], [4.0]], [[[0, 2], [1, -1]]]).tolist()
    [[[5.0], [2.0]]]
    >>> sum_units([[1.0, 10.0], [2.0, 20.0]], [[[0, 1]]], columns=[1, 0, 1]).tolist()
    [[[30.0, 3.0, 30.0]]]
    """
    v = np.ascontiguousarray(values, dtype=np.float64)
    u = np.ascontiguousarray(units, dtype=np.int64)
    if v.ndim != 2 or u.ndim != 3:
        raise InputError(f"values must have shape (n, k) and units (rows, U, M); got {v.shape} and {u.shape}.")
    if u.size and (u.max() >= v.shape[0] or u.min() < -1):
        raise InputError(f"units must index the {v.shape[0]} rows of values (or be -1); got values from "
                         f"{u.min()} to {u.max()}.")
    cols = np.arange(v.shape[1], dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    if cols.ndim != 1 or (cols.size and (cols.min() < 0 or cols.max() >= v.shape[1])):
        raise InputError(f"columns must be 1-D indices of the {v.shape[1]} columns of values; got {cols!r:.80}.")
    return np.moveaxis(_rank_kernels.sum_units(v, u, cols), 0, -1)  # (rows, U, k), each column contiguous


def cut_unit_sums(values: ArrayLike, items: ArrayLike, starts: ArrayLike, row_of: ArrayLike, base: ArrayLike,
                  n_rows: int, unit_size: int, columns: ArrayLike | None = None, *,
                  rng: np.random.Generator | None = None, out: NDArray[np.float64] | None = None
                  ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    r"""Cut sequences of items into units of M and sum each unit's rows of ``values``, in one pass.

    Sequence :math:`j` is ``items[starts[j]:starts[j + 1]]`` (positions; -1 means
    nothing drawn there). With ``rng``, each sequence is first put in a random
    order (a random assignment of the items to units): ``rng`` gives the three
    64-bit words that seed an SFC64 stream, and every sequence in turn is
    shuffled by Fisher-Yates from the end with Lemire's unbiased bounded draws
    from that stream's 32-bit halves (the algorithm is in the docstring of
    ``bleustats.meta._rank_kernels``; ``tests/twins/ranks.py`` has it in plain
    Python). ``out``, a
    1-D float64 array, holds the sums when it has room for them (then ``sums``
    is a view of it, overwritten by the next call given the same ``out``):
    callers cutting many blocks reuse one buffer. Its drawn
    positions :math:`i_1, i_2, \dots` (in order) form :math:`\lfloor n_j / M \rfloor` units, the remainder dropped; unit
    :math:`u` sums

    .. math::

        T_{u,c} = \sum_{m=1}^{M} X_{\mathrm{base}_j + i_{uM + m},\, c}

    item by item from 0.0 (the bits of :func:`sum_units` on the same units). The
    units of sequence j go to output row ``row_of[j]``, numbered after the units
    that row already has. ``columns`` (default all, in order) lets one input
    column fill several output columns, as in :func:`sum_units`.

    Returns
    -------
    (sums, unit_row, unit_col, n_units)
        ``sums`` of shape (units, k) (each column contiguous), the row and
        column of every unit (sequence order), and the units per row (n_rows,).

    Examples
    --------
    >>> s, r, c, n = cut_unit_sums([[1.0], [2.0], [4.0], [8.0]], [2, -1, 0, 1, 2, 1, 0], [0, 4, 7],
    ...                            [0, 0], [0, 1], n_rows=1, unit_size=2)
    >>> s[:, 0].tolist(), r.tolist(), c.tolist(), n.tolist()
    ([5.0, 12.0], [0, 0], [0, 1], [2])
    >>> cut_unit_sums([[1.0, 10.0], [2.0, 20.0]], [0, 1], [0, 2], [0], [0], 1, 2, columns=[1, 0, 1])[0].tolist()
    [[30.0, 3.0, 30.0]]
    >>> vals, items = [[1.0], [2.0], [4.0], [8.0]], [0, 1, 2, 3]
    >>> drawn = cut_unit_sums(vals, items, [0, 4], [0], [0], 1, 2, rng=np.random.default_rng(3))[0]
    >>> again = cut_unit_sums(vals, items, [0, 4], [0], [0], 1, 2, rng=np.random.default_rng(3))[0]
    >>> bool((drawn == again).all()), sorted(drawn[:, 0].tolist()) in ([3.0, 12.0], [5.0, 10.0], [6.0, 9.0])
    (True, True)
    """
    v = np.ascontiguousarray(values, dtype=np.float64)
    it = np.ascontiguousarray(items, dtype=np.int64)
    st = np.ascontiguousarray(starts, dtype=np.int64)
    ro = np.ascontiguousarray(row_of, dtype=np.int64)
    bs = np.ascontiguousarray(base, dtype=np.int64)
    if v.ndim != 2 or it.ndim != 1 or ro.ndim != 1 or bs.shape != ro.shape or st.shape != (len(ro) + 1,):
        raise InputError(f"values must have shape (n, k), items be 1-D, row_of and base (sequences,) and starts "
                         f"(sequences + 1,); got {v.shape}, {it.shape}, {ro.shape}, {bs.shape}, {st.shape}.")
    lengths = np.diff(st)
    if st[0] != 0 or st[-1] != len(it) or (lengths < 0).any():
        raise InputError(f"starts must rise from 0 to len(items) = {len(it)}; got {st.tolist()!r:.80}.")
    if isinstance(unit_size, bool) or int(unit_size) != unit_size or unit_size < 1:
        raise InputError(f"unit_size must be an integer >= 1; got {unit_size!r}.")
    if ro.size and (ro.min() < 0 or ro.max() >= n_rows):
        raise InputError(f"row_of must index the {n_rows} output rows; got values from {ro.min()} to {ro.max()}.")
    if bs.size and bs.min() < 0:
        raise InputError(f"base must be >= 0; got {bs.min()}.")
    cols = np.arange(v.shape[1], dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    if cols.ndim != 1 or (cols.size and (cols.min() < 0 or cols.max() >= v.shape[1])):
        raise InputError(f"columns must be 1-D indices of the {v.shape[1]} columns of values; got {cols!r:.80}.")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy.random.Generator or None; got {type(rng).__name__}.")
    if out is not None and (not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.ndim != 1
                            or not out.flags.c_contiguous or not out.flags.writeable):
        raise InputError(f"out must be a writeable contiguous 1-D float64 array or None; got {type(out).__name__}"
                         f"{'' if not isinstance(out, np.ndarray) else f' of dtype {out.dtype}, shape {out.shape}'}.")
    if rng is not None and len(lengths) and lengths.max() > 2**32:
        raise InputError("with rng, every sequence must have at most 2**32 items (the shuffle's 32-bit draws); got "
                         f"one of {int(lengths.max())}.")
    seed = rng.integers(2**64, size=3, dtype=np.uint64) if rng is not None else np.zeros(3, np.uint64)
    buf = out if out is not None else np.empty(0)
    sums, unit_row, unit_col, n_units, bad = _rank_kernels.cut_unit_sums(v, it, st, ro, bs, int(n_rows), int(unit_size),
                                                                          cols, seed, rng is not None, buf)
    if bad >= 0:  # checked inside the kernel's counting pass: a separate check would cost another pass
        j = int(np.searchsorted(st, bad, side="right")) - 1
        raise InputError(f"items + base must index the {v.shape[0]} rows of values (or items be -1); item {bad} "
                         f"(sequence {j}) is {it[bad]} with base {bs[j]}.")
    return np.moveaxis(sums, 0, -1)[0], unit_row, unit_col, n_units
