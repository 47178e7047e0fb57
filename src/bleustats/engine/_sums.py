r"""Exact sums of statistics columns, whole, per group, or merged from partial sums.

Every score is a function of column sums, so a score is reproducible only if
its sums are. Integer columns (counts, lengths) sum exactly in int64. A
float64 column (ΔBLEU's ``wmatch_n`` / ``wtotal_n``, ``ref_len_average``,
TER's ``ter_ref_length``) summed left to right, pairwise or per partition is
rounded differently in each order; here it is summed *exactly* and rounded
once, correctly (as :func:`math.fsum`):

.. math::

    S = \mathrm{fl}\Big(\sum_{i} x_i\Big) \quad\text{(the exact sum, rounded once)}

so the result does not depend on the row order, nor on how the rows were
split into partitions: the sums of a table, of its row groups streamed one at
a time, or of its partitions on a cluster are the same bits.

:func:`partial_sums` gives the mergeable state of some rows (integer sums,
and for each float column its Shewchuk partials, which hold the exact sum);
:func:`merge_partial_sums` merges any number of them (in any order), and
:meth:`PartialSums.totals` rounds once at the end.

Examples
--------
>>> x = np.array([1e16, 1.0, -1e16, 0.5])
>>> float(x.sum()), float(column_sums(x))      # numpy loses the 1.0; the exact sum is 1.5
(0.5, 1.5)
>>> a = partial_sums({"w": x[:2], "n": np.array([1, 2])})
>>> b = partial_sums({"w": x[2:], "n": np.array([3, 4])})
>>> t = merge_partial_sums([a, b]).totals()
>>> float(t["w"][0]), int(t["n"][0])
(1.5, 10)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError

__all__ = ["PartialSums", "column_sums", "group_sums", "merge_partial_sums", "partial_sums"]


def _kernels():  # noqa: ANN202 - the module
    """The exact-sum kernels (numba), loaded on the first float sum: integer sums need none."""
    from .._kernel_cache import guarded
    from . import _sum_kernels

    return guarded(_sum_kernels)


def _kind(x: np.ndarray, name: str) -> str:
    if np.issubdtype(x.dtype, np.integer) or x.dtype == bool:
        return "int"
    if np.issubdtype(x.dtype, np.floating):
        return "float"
    raise InputError(f"{name}: statistics columns must hold integers or floats; got dtype {x.dtype}.")


def _exact_groups(values: NDArray[np.float64], bounds: NDArray[np.int64]) -> NDArray[np.float64]:
    flat, ptr, special = _kernels().sum_partials(np.ascontiguousarray(values, dtype=np.float64), bounds)
    return _kernels().round_partials(flat, ptr, special)


def column_sums(x: ArrayLike) -> NDArray[np.int64] | NDArray[np.float64]:
    """Sums along the first axis: int64 for integer columns, float columns exactly (rounded once).

    Examples
    --------
    >>> column_sums(np.array([[1, 2], [3, 4]])).tolist()
    [4, 6]
    >>> float(column_sums(np.full(10, 0.1))) == 1.0        # ten 0.1's left to right give 0.9999999999999999
    True
    """
    x = np.asarray(x)
    if _kind(x, "x") == "int":
        return x.sum(axis=0)
    n = x.shape[0]
    bounds = np.array([0, n], np.int64)
    if x.ndim == 1:
        return _exact_groups(x, bounds)[0]
    flat = x.reshape(n, -1)
    out = np.array([_exact_groups(flat[:, j], bounds)[0] for j in range(flat.shape[1])])
    return out.reshape(x.shape[1:])


def group_sums(x: ArrayLike, order: NDArray[np.int64], starts: NDArray[np.int64]) -> np.ndarray:
    """Sums of the groups of rows ``x[order]`` that begin at ``starts`` (each group non-empty).

    Integer columns sum in int64 (``numpy.add.reduceat``), float columns
    exactly per group (rounded once); the result has one row per group.

    Examples
    --------
    >>> group_sums(np.array([0.1, 5.0, 0.2]), np.array([0, 2, 1]), np.array([0, 2])).tolist()
    [0.30000000000000004, 5.0]
    """
    x = np.asarray(x)
    if len(x) == 0:
        return np.zeros((0,) + x.shape[1:], x.dtype)
    xs = x[order]
    if _kind(x, "x") == "int":
        return np.add.reduceat(xs, starts, axis=0)
    bounds = np.append(np.asarray(starts, np.int64), len(xs))
    if xs.ndim == 1:
        return _exact_groups(xs, bounds)
    flat = xs.reshape(len(xs), -1)
    out = np.stack([_exact_groups(flat[:, j], bounds) for j in range(flat.shape[1])], axis=1)
    return out.reshape((len(starts),) + x.shape[1:])


@dataclass(frozen=True)
class PartialSums:
    """Mergeable exact sums of named columns over groups of rows.

    Attributes
    ----------
    keys : numpy.ndarray
        Sorted distinct group keys (one key, 0, when the rows were not grouped).
    counts : numpy.ndarray of int64
        Rows per group.
    ints : dict
        Column name → int64 sums per group.
    floats : dict
        Column name → ``(flat, ptr, special)``: each group's Shewchuk partials
        (``flat[ptr[k]:ptr[k + 1]]``, whose exact total is the group's exact sum)
        and the plain sum of its non-finite values.
    """

    keys: np.ndarray
    counts: NDArray[np.int64]
    ints: dict = field(default_factory=dict)
    floats: dict = field(default_factory=dict)

    def totals(self) -> dict[str, np.ndarray]:
        """Column name → sums per group (floats rounded once, correctly)."""
        out: dict[str, np.ndarray] = {name: v.copy() for name, v in self.ints.items()}
        for name, (flat, ptr, special) in self.floats.items():
            out[name] = _kernels().round_partials(flat, ptr, special)
        return out


def partial_sums(columns: Mapping[str, ArrayLike], keys: ArrayLike | None = None) -> PartialSums:
    """The mergeable sums of some rows: per distinct key of ``keys`` (sorted), or of all rows.

    Examples
    --------
    >>> p = partial_sums({"n": [1, 2, 3]}, keys=["b", "a", "b"])
    >>> p.keys.tolist(), p.counts.tolist(), p.totals()["n"].tolist()
    (['a', 'b'], [1, 2], [2, 4])
    """
    cols = {name: np.asarray(v) for name, v in columns.items()}
    n = {len(v) for v in cols.values()}
    if keys is not None:
        keys = np.asarray(keys)
        n.add(len(keys))
    if len(n) > 1:
        raise InputError(f"columns and keys must have one length; got lengths {sorted(n)}.")
    rows = n.pop() if n else 0
    if keys is None:
        uniq, order, starts = np.zeros(1, np.int64), np.arange(rows), np.zeros(1, np.int64)
        counts = np.array([rows], np.int64)
    else:
        uniq, inv = np.unique(keys, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(len(uniq)))
        counts = np.diff(np.append(starts, rows)).astype(np.int64)
    out = PartialSums(keys=uniq, counts=counts)
    for name, v in cols.items():
        if _kind(v, name) == "int":
            out.ints[name] = (np.add.reduceat(v[order].astype(np.int64), starts) if rows
                              else np.zeros(len(uniq), np.int64))
        else:
            bounds = np.append(starts, rows).astype(np.int64)
            out.floats[name] = _kernels().sum_partials(np.ascontiguousarray(v[order], dtype=np.float64), bounds)
    return out


def merge_partial_sums(parts: Sequence[PartialSums]) -> PartialSums:
    """Merge partial sums of disjoint rows (any order, any grouping of the rows): the sums of all of them.

    The merged float partials are the partials of all the parts' partials, so
    their exact total is the exact sum of every row.
    """
    parts = list(parts)
    if not parts:
        raise InputError("parts: give at least one PartialSums to merge.")
    names_i, names_f = set(parts[0].ints), set(parts[0].floats)
    for p in parts[1:]:
        if set(p.ints) != names_i or set(p.floats) != names_f:
            raise InputError("parts: every PartialSums must hold the same columns (integer and float alike).")
    keys, inv = np.unique(np.concatenate([p.keys for p in parts]), return_inverse=True)
    cut = np.cumsum([0] + [len(p.keys) for p in parts])
    idx = [inv[cut[i]:cut[i + 1]] for i in range(len(parts))]
    counts = np.zeros(len(keys), np.int64)
    for p, ix in zip(parts, idx):
        np.add.at(counts, ix, p.counts)
    out = PartialSums(keys=keys, counts=counts)
    for name in parts[0].ints:
        total = np.zeros(len(keys), np.int64)
        for p, ix in zip(parts, idx):
            np.add.at(total, ix, p.ints[name])
        out.ints[name] = total
    for name in parts[0].floats:
        values, group = [], []
        special = np.zeros(len(keys))
        for p, ix in zip(parts, idx):
            flat, ptr, sp = p.floats[name]
            values.append(flat)
            group.append(np.repeat(ix, np.diff(ptr)))
            np.add.at(special, ix, sp)
        v, gr = np.concatenate(values), np.concatenate(group)
        order = np.argsort(gr, kind="stable")
        bounds = np.searchsorted(gr[order], np.arange(len(keys) + 1)).astype(np.int64)
        flat, ptr, sp = _kernels().sum_partials(np.ascontiguousarray(v[order]), bounds)
        out.floats[name] = (flat, ptr, sp + special)
    return out
