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
- :meth:`StatsSource.to_table`: every row in memory (what row positions address);
- :meth:`StatsSource.systems`, the settings (``max_ngram_order``,
  ``tokenize``, ..., ``settings``, ``column_names``, ``n_refs_values``).

:class:`~bleustats.engine.stats.StatsTable` answers them in memory (numpy over
its columns; :func:`table_totals`), :class:`~bleustats.engine.dataset.StatsDataset`
part by part on its executor (here or on a Dask cluster), merging per-part
partial sums exactly (:func:`~bleustats.engine._sums.merge_partial_sums`).
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

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import InputError
from ._sums import column_sums, group_sums

__all__ = ["StatsSource"]


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
    def settings(self) -> StatsSource: ...

    @property
    def max_ngram_order(self) -> int: ...

    @property
    def n_refs_values(self) -> tuple[int, ...]: ...

    @property
    def n_refs_label(self) -> str:
        """References per segment as signatures write it (``'var'`` if it varies)."""
        ...

    def __len__(self) -> int: ...

    def column_totals(self, columns: Sequence[str], *, by: Any = None, rows: Any = None
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(keys, {column: sums})``: exact sums per sorted distinct ``by`` (one key, 0, without ``by``)."""
        ...

    def map_batches(self, fn: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
                    ) -> list[Any]:
        """``[fn(batch, **kwargs), ...]`` over the rows in order (``batch``: a StatsTable with ``columns``)."""
        ...

    def select(self, rows: Any) -> StatsSource: ...

    def where(self, predicate: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
              ) -> StatsSource: ...

    def systems(self) -> np.ndarray: ...

    def to_table(self, columns: Sequence[str] | None = None) -> Any:
        """Every row in memory, one ``StatsTable`` (a table is itself)."""
        ...

    def with_executor(self, executor: Any) -> StatsSource:
        """The same statistics with per-part work run by ``executor`` (a table, all in memory, is itself)."""
        ...


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


def _by_labels(stats: Any, by: Any) -> np.ndarray:
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


def _groups(stats: Any, by: Any, index: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(labels, return_inverse=True)`` of the (selected) labels.

    A string column is dictionary-encoded by Arrow and only its distinct
    values sorted: the same keys as ``numpy.unique`` of the strings, without
    sorting every row's Python string (most of a grouped score's time).
    """
    if isinstance(by, str) and by in stats.table.column_names:
        import pyarrow as pa
        import pyarrow.compute as pc

        col = stats.table.column(by)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            enc = pc.dictionary_encode(col.combine_chunks())
            values = np.array(enc.dictionary.to_pylist(), dtype=object)
            if enc.null_count == 0 and len(values):
                rank = np.empty(len(values), np.int64)
                perm = np.argsort(values)
                rank[perm] = np.arange(len(values))
                codes = rank[enc.indices.to_numpy()]
                codes = codes if index is None else codes[index]
                used, inv = np.unique(codes, return_inverse=True)
                return values[perm][used], inv
    labels = _by_labels(stats, by)
    return np.unique(labels if index is None else labels[index], return_inverse=True)


def table_totals(stats: Any, columns: Sequence[str], *, by: Any = None, rows: Any = None
                 ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:meth:`StatsTable.column_totals`: the sums of an in-memory table's columns (numpy, column by column).

    Integer columns are summed in int64, float columns exactly
    (:mod:`bleustats.engine._sums`); ``by`` is a column name or one
    label per row; ``rows`` selects (and may repeat) rows first.
    """
    index = None if rows is None else row_index(len(stats), rows)
    if by is None:
        keys, group = np.zeros(1, np.int64), None
    else:
        keys, inv = _groups(stats, by, index)
        order = np.argsort(inv, kind="stable")
        group = (order, np.searchsorted(inv[order], np.arange(len(keys))))
    out: dict[str, np.ndarray] = {}
    for c in columns:
        # one column at a time: a contiguous gather and reduceat per column is several times faster
        # than the same sums over a stacked (rows, columns) matrix
        x = stats.column(c)
        if np.issubdtype(x.dtype, np.integer) or x.dtype == bool:
            x = x.astype(np.int64, copy=False)
        if index is not None:
            x = x[index]
        out[c] = np.atleast_1d(column_sums(x)) if group is None else group_sums(x, *group)
    return keys, out
