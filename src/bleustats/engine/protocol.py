r"""The statistics protocol: the few questions every scorer asks of a table, in memory or partitioned.

A corpus score is a function of column sums, and sums split over any
partition of the rows:

.. math::

    \sum_{i=1}^{n} s_i \;=\; \sum_{p} \sum_{i \in p} s_i

so scoring code needs only to ask its statistics for

- :meth:`StatsSource.column_totals`: exact sums of some columns, of all rows
  or per distinct value of a column (``by``), optionally over a selection or
  resampling of rows (``rows``: a mask, or indices that may repeat);
- :meth:`StatsSource.map_batches`: a row-wise function over the rows in order,
  a batch at a time (sentence scores, checks);
- :meth:`StatsSource.select` / :meth:`StatsSource.where`: some rows (by
  position, or where a predicate holds) as one in-memory table;
- :meth:`StatsSource.systems`, the settings (``max_ngram_order``,
  ``tokenize``, ..., ``settings``, ``column_names``, ``n_refs_values``).

:class:`~bleustats.engine.stats.StatsTable` answers them in memory (numpy over
its columns; :func:`table_totals`), :class:`~bleustats.engine.dataset.StatsDataset`
part by part on its executor (here or on a Dask cluster), merging per-part
partial sums exactly (:func:`~bleustats.engine.sums.merge_partial_sums`).
Integer sums are int64, float sums are exact and rounded once, so both give
the same totals bit for bit and every scorer has one code path.

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> st = compute_stats(["a b", "a c", "b"], [["a b", "a b", "b"]], tokenize="none", system="S")
>>> isinstance(st, StatsSource)
True
>>> keys, sums = st.column_totals(["hyp_len", "match_1"], by="seg_id")
>>> keys.tolist(), sums["hyp_len"].tolist(), sums["match_1"].tolist()
([0, 1, 2], [2, 2, 1], [2, 1, 1])
>>> st.column_totals(["hyp_len"], rows=[0, 0, 2])[1]["hyp_len"].tolist()
[5]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import InputError
from .sums import column_sums, group_sums

if TYPE_CHECKING:
    from .stats import StatsTable

__all__ = ["StatsSource", "row_index", "table_totals"]


@runtime_checkable
class StatsSource(Protocol):
    """What scoring code may ask of statistics: a :class:`StatsTable` or a :class:`StatsDataset`.

    Attributes such as ``max_ngram_order``, ``tokenize``, ``metrics``,
    ``chrf_options``, ``n_refs_label`` are the table's settings (from its
    metadata); ``settings`` is an in-memory table carrying them.
    """

    @property
    def column_names(self) -> list[str]: ...

    @property
    def settings(self) -> StatsTable: ...

    @property
    def max_ngram_order(self) -> int: ...

    @property
    def n_refs_values(self) -> tuple[int, ...]: ...

    def __len__(self) -> int: ...

    def column_totals(self, columns: Sequence[str], *, by: Any = None, rows: Any = None
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(keys, {column: sums})``: exact sums per sorted distinct ``by`` (one key, 0, without ``by``)."""
        ...

    def map_batches(self, fn: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
                    ) -> list[Any]:
        """``[fn(batch, **kwargs), ...]`` over the rows in order (``batch``: a StatsTable with ``columns``)."""
        ...

    def select(self, rows: Any) -> StatsTable: ...

    def where(self, predicate: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
              ) -> StatsTable: ...

    def systems(self) -> np.ndarray: ...


def row_index(n: int, rows: Any) -> np.ndarray:
    """``rows`` (a boolean mask of ``n`` entries, or indices in ``[-n, n)``, repeats allowed) as int64 indices.

    Examples
    --------
    >>> row_index(3, [True, False, True]).tolist(), row_index(3, [2, -1, 2]).tolist()
    ([0, 2], [2, -1, 2])
    """
    rows = np.asarray(rows)
    if rows.size == 0 and rows.dtype != bool:
        return np.zeros(0, np.int64)
    if rows.dtype == bool:
        if rows.shape != (n,):
            raise InputError(f"rows: a boolean mask needs {n} entries (one per row); got shape {rows.shape}.")
        return np.flatnonzero(rows)
    if not np.issubdtype(rows.dtype, np.integer):
        raise InputError(f"rows must be a boolean mask or an integer index array; got dtype {rows.dtype}.")
    if rows.size and (rows.min() < -n or rows.max() >= n):
        raise InputError(
            f"rows: indices must be in [-{n}, {n}) (negative counts from the end); "
            f"got min {rows.min()}, max {rows.max()}.")
    return rows


def _by_labels(stats: StatsTable, by: Any) -> np.ndarray:
    if isinstance(by, str):
        if by not in stats.table.column_names:
            raise InputError(
                f"by must be a column of the statistics table ({', '.join(stats.table.column_names)}) "
                f"or one label per row; got {by!r}.")
        return stats.column(by)
    labels = np.asarray(by)
    if labels.shape != (len(stats),):
        raise InputError(f"by: need one label per row ({len(stats)}); got shape {labels.shape}.")
    return labels


def table_totals(stats: StatsTable, columns: Sequence[str], *, by: Any = None, rows: Any = None
                 ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:meth:`StatsTable.column_totals`: the sums of an in-memory table's columns (numpy, one pass per kind).

    Integer columns are stacked and summed in int64 together, float columns
    exactly (:mod:`bleustats.engine.sums`); ``by`` is a column name or one
    label per row; ``rows`` selects (and may repeat) rows first.
    """
    labels = None if by is None else _by_labels(stats, by)
    index = None if rows is None else row_index(len(stats), rows)
    cols = {c: stats.column(c) for c in columns}
    kinds: dict[bool, list[str]] = {True: [], False: []}
    for c, v in cols.items():
        kinds[bool(np.issubdtype(v.dtype, np.floating))].append(c)
    if labels is None:
        keys = np.zeros(1, np.int64)
        group = None
    else:
        if index is not None:
            labels = labels[index]
        keys, inv = np.unique(labels, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        group = (order, np.searchsorted(inv[order], np.arange(len(keys))))
    out: dict[str, np.ndarray] = {}
    for names in kinds.values():
        if not names:
            continue
        mat = np.stack([cols[c] for c in names], axis=-1)
        if index is not None:
            mat = mat[index]
        if group is None:
            sums = column_sums(mat)[None, :]
        else:
            sums = group_sums(mat, *group)
        out.update({c: sums[:, j] for j, c in enumerate(names)})
    return keys, {c: out[c] for c in columns}
