r"""Statistics of more hypotheses than memory holds: partition by partition, streamed, written as a dataset.

The statistics of a hypothesis depend only on it and its segment's
references, so a hypotheses table can be cut anywhere: each *partition* (a
Parquet file of a folder, some row groups of one file, or a slice of a table)
is read in batches of at most ``batch_rows`` rows, each batch gets the
references of its segments (:meth:`ReferenceIndex.for_segments`: the
references table is validated and sorted once; a batch's segments are found
by binary search, and :func:`~bleustats.engine.stats.compute_stats`
tokenizes and indexes each of them once for all the batch's hypotheses), and
the batch's statistics are appended to the partition's part of the output
dataset (:mod:`bleustats.engine.dataset`). Every row equals the row
:func:`~bleustats.engine.stats.compute_stats` gives for the whole table, and
every part carries the metadata :meth:`~bleustats.engine.stats.StatsTable.save`
writes (``weights`` is decided once, from the whole references table).

:func:`compute_stats_dataset` runs the partitions one after another (memory:
the references, plus one batch) or, with a Dask executor
(:class:`bleustats.distributed.DaskExecutor`), on a cluster: the references
go to every worker once, each task reads its own partition and writes its own
part, and only the parts' manifest entries travel back. The output appears
whole (one rename) or not at all. :func:`compute_stats_files_dataset` does the
same for line-aligned plain-text files (sacreBLEU's layout), one part per
chunk of lines.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> hyps = pd.DataFrame({"seg_id": [0, 0, 1], "system": ["A", "B", "A"], "text": ["a b c", "a b", "c d"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c", "c d e"]})
>>> out = os.path.join(tempfile.mkdtemp(), "stats")
>>> ds = compute_stats_dataset(hyps, refs, out, partition_rows=2, tokenize="none")
>>> ds.part_rows, ds.to_table().column("match_1").tolist()
((2, 1), [3, 2, 2])
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._validate import check_count, describe_ids
from ..errors import InputError
from . import io
from .dataset import DEFAULT_BATCH_ROWS, DatasetWriter, LocalExecutor, StatsDataset, retitle, write_part
from .stats import compute_stats, reference_files

__all__ = [
    "DEFAULT_PARTITION_ROWS",
    "HypothesesPartition",
    "ReferenceIndex",
    "compute_stats_dataset",
    "compute_stats_files_dataset",
    "check_options",
    "check_partition_schemas",
    "check_unique_keys",
    "compute_stats_partition",
    "hypotheses_partitions",
    "key_runs",
    "parquet_parts",
    "stats_part_task",
]

#: Rows per partition when one Parquet file or an in-memory table is cut into partitions.
DEFAULT_PARTITION_ROWS = 1 << 20
_HYP_COLUMNS = ("seg_id", "system", "text")
_EMPTY_HYPOTHESES = pa.table({"seg_id": pa.array([], pa.int64()), "text": pa.array([], pa.string())})


class ReferenceIndex:
    """A long-form references table, validated once and sorted by ``seg_id``, handed out per partition.

    Parameters
    ----------
    references : path, pandas.DataFrame or pyarrow.Table
        A references table (``seg_id``, ``ref_id``, ``weight``, ``text``;
        ``.parquet`` / ``.tsv`` / ``.jsonl``). Rows of one segment keep their
        order (the first is the segment's first reference).

    Attributes
    ----------
    table : pyarrow.Table
        The rows, sorted by ``seg_id`` (stable).
    uniform : bool
        Every weight is 1 (the statistics' ``weights`` metadata).

    Examples
    --------
    >>> import pandas as pd
    >>> idx = ReferenceIndex(pd.DataFrame({"seg_id": [2, 0, 2], "text": ["x", "y", "z"]}))
    >>> idx.for_segments([2]).column("text").to_pylist(), idx.uniform
    (['x', 'z'], True)
    """

    def __init__(self, references: str | os.PathLike | Any) -> None:
        if isinstance(references, (str, os.PathLike)):
            table = io.read_table(references, "references")
        elif io.is_table(references):
            table = io.as_references_table(references)
        else:
            raise InputError("references must be a long-form references table (a .parquet / .tsv / .jsonl path, "
                             f"a pandas DataFrame or an Arrow table); got {type(references).__name__}.")
        seg = table.column("seg_id").to_numpy()
        if len(seg) > 1 and (np.diff(seg) < 0).any():
            order = np.argsort(seg, kind="stable")
            table, seg = table.take(pa.array(order)), seg[order]
        self.table = table.combine_chunks()
        self.seg = np.ascontiguousarray(seg)
        self.uniform = bool(table.num_rows == 0 or pc.all(pc.equal(table.column("weight"), 1.0)).as_py())

    def __len__(self) -> int:
        return self.table.num_rows

    def for_segments(self, seg_ids: Any, *, where: str = "hypotheses") -> pa.Table:
        """The references of the segments in ``seg_ids`` (sorted by ``seg_id``); every one must have some."""
        want = np.unique(np.asarray(seg_ids))
        lo = np.searchsorted(self.seg, want, "left")
        hi = np.searchsorted(self.seg, want, "right")
        missing = want[hi == lo]
        if missing.size:
            raise InputError(
                f"references: {missing.size} segment(s) of {where} have hypotheses but no reference: seg_id "
                f"{describe_ids(missing)}. Every hypothesis needs at least one reference; add them to the "
                "references table or drop those hypotheses.")
        if not want.size:
            return self.table.slice(0, 0)
        if (lo[1:] == hi[:-1]).all():  # one consecutive run: a zero-copy slice
            return self.table.slice(int(lo[0]), int(hi[-1] - lo[0]))
        lengths = hi - lo
        starts = np.cumsum(lengths) - lengths
        rows = np.arange(int(lengths.sum())) - np.repeat(starts - lo, lengths)
        return self.table.take(pa.array(rows))


def _natural_key(name: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def parquet_parts(folder: str | os.PathLike) -> list[Path]:
    """The ``*.parquet`` files of a folder in natural order (``part.2`` before ``part.10``), hidden ones skipped.

    Names starting with ``_`` or ``.`` (metadata, temporary files) are not parts.
    """
    return sorted((p for p in Path(folder).glob("*.parquet") if not p.name.startswith(("_", "."))),
                  key=lambda p: _natural_key(p.name))


@dataclass(frozen=True)
class HypothesesPartition:
    """One partition of a hypotheses table: some row groups of a Parquet file, or an in-memory slice.

    Attributes
    ----------
    label : str
        Names the partition in errors (``'part.3.parquet'``, ``'rows 0-99'``).
    path : str, optional
        Parquet file.
    row_groups : tuple of int, optional
        Row groups of ``path`` (None: all).
    table : pyarrow.Table, optional
        In-memory rows (instead of a file).
    """

    label: str
    path: str | None = None
    row_groups: tuple[int, ...] | None = None
    table: pa.Table | None = None

    def batches(self, batch_rows: int, columns: Sequence[str] = _HYP_COLUMNS) -> Iterator[pa.Table]:
        """The partition's rows, at most ``batch_rows`` at a time (only those of ``columns`` it has)."""
        if self.table is not None:
            keep = [c for c in columns if c in self.table.column_names]
            for i in range(0, self.table.num_rows, batch_rows):
                yield self.table.slice(i, batch_rows).select(keep)
            return
        try:
            pf = pq.ParquetFile(self.path)
            columns = [c for c in columns if c in pf.schema_arrow.names]
            for batch in pf.iter_batches(batch_size=batch_rows, row_groups=self.row_groups, columns=columns):
                yield pa.Table.from_batches([batch])
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{self.label}: cannot be read as a Parquet hypotheses table ({exc}).") from None


def hypotheses_partitions(hypotheses: Any, *, partition_rows: int = DEFAULT_PARTITION_ROWS
                          ) -> list[HypothesesPartition]:
    """The partitions of a hypotheses input, in row order.

    A folder: its ``*.parquet`` files in natural order (``part.2`` before
    ``part.10``; names starting with ``_`` or ``.`` skipped), one partition
    each. A ``.parquet`` file: runs of row groups of about ``partition_rows``
    rows. A pandas / Arrow table: slices of ``partition_rows`` rows.
    """
    partition_rows = check_count("partition_rows", partition_rows, minimum=1)
    if io.is_table(hypotheses):
        table = io.to_arrow(hypotheses)
        n = table.num_rows
        return [HypothesesPartition(label=f"rows {i}-{min(n, i + partition_rows) - 1}",
                                    table=table.slice(i, partition_rows)) for i in range(0, max(n, 1), partition_rows)]
    if not isinstance(hypotheses, (str, os.PathLike)):
        raise InputError("hypotheses must be a folder of Parquet files, a .parquet file or a pandas / Arrow table; "
                         f"got {type(hypotheses).__name__}.")
    path = Path(hypotheses)
    if path.is_dir():
        files = parquet_parts(path)
        if not files:
            raise InputError(f"hypotheses: {path} holds no .parquet file; give a folder of Parquet parts "
                             "(seg_id, system, text).")
        return [HypothesesPartition(label=str(p), path=str(p)) for p in files]
    if path.suffix.lower() != ".parquet" or not path.is_file():
        raise InputError(f"hypotheses: {path} is neither a folder of Parquet parts nor a .parquet file.")
    try:
        meta = pq.ParquetFile(path).metadata
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as Parquet ({exc}).") from None
    out, run, rows = [], [], 0
    for g in range(meta.num_row_groups):
        run.append(g)
        rows += meta.row_group(g).num_rows
        if rows >= partition_rows or g == meta.num_row_groups - 1:
            out.append(HypothesesPartition(label=f"{path} row groups {run[0]}-{run[-1]}", path=str(path),
                                           row_groups=tuple(run)))
            run, rows = [], 0
    return out or [HypothesesPartition(label=str(path), path=str(path))]


def compute_stats_partition(hypotheses: pa.Table, references: ReferenceIndex, *, where: str = "hypotheses",
                            **options: Any) -> pa.Table:
    """The statistics rows of some hypotheses: :func:`compute_stats` against their segments' references.

    ``options`` are :func:`~bleustats.engine.stats.compute_stats`'s. The
    ``weights`` metadata is that of the whole references table.
    """
    hyps = io.as_hypotheses_table(hypotheses)
    refs = references.for_segments(hyps.column("seg_id").to_numpy(), where=where)
    try:
        stats = compute_stats(hyps, refs, **options)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    return retitle(stats.table, {b"bleustats.weights": b"uniform" if references.uniform else b"custom"})


def stats_part_task(item: tuple[int, HypothesesPartition], *, folder: str, references: ReferenceIndex,
                    options: dict[str, Any], batch_rows: int) -> dict[str, Any]:
    """Compute and write part ``i`` of a dataset from partition ``item = (i, partition)`` (runs on a worker).

    Returns the part's manifest entry plus ``seconds`` (time spent) and
    ``pid`` (the process that ran it).
    """
    index, part = item
    t0 = time.perf_counter()
    keys: dict[str, list[np.ndarray]] = {}

    def tables() -> Iterator[pa.Table]:
        empty = True
        for batch in part.batches(batch_rows):
            empty = False
            stats = compute_stats_partition(batch, references, where=part.label, **options)
            _collect_keys(keys, stats)
            yield stats
        if empty:
            yield compute_stats_partition(_EMPTY_HYPOTHESES, references, where=part.label, **options)

    entry = write_part(folder, index, tables())
    return {**entry, "keys": key_runs(keys, where=part.label), "label": part.label,
            "seconds": time.perf_counter() - t0, "pid": os.getpid()}


def _collect_keys(keys: dict[str, list[np.ndarray]], stats: pa.Table) -> None:
    system = stats.column("system")
    seg = stats.column("seg_id").to_numpy()
    names = pc.unique(system).to_pylist()
    if len(names) == 1:
        keys.setdefault(names[0], []).append(seg)
        return
    codes = pc.index_in(system, value_set=pa.array(names, pa.string())).to_numpy(zero_copy_only=False)
    for i, name in enumerate(names):
        keys.setdefault(name, []).append(seg[codes == i])


def key_runs(keys: dict[str, list[np.ndarray]], *, where: str) -> dict[str, np.ndarray]:
    """Each system's ``seg_id`` values of one partition as sorted runs ``[first, last]`` of consecutive ids.

    A (system, seg_id) pair twice in the partition is an error. The runs are
    what travels back from a worker to find pairs repeated across partitions
    (:func:`check_unique_keys`): one run per system for the usual layouts
    (each partition a range of segments of some systems).

    Examples
    --------
    >>> key_runs({"A": [np.array([3, 1, 2]), np.array([7])]}, where="p")["A"].tolist()
    [[1, 3], [7, 7]]
    """
    out = {}
    for name, chunks in keys.items():
        seg = np.sort(np.concatenate(chunks)) if chunks else np.zeros(0, np.int64)
        dup = np.flatnonzero(seg[1:] == seg[:-1])
        if len(dup):
            raise InputError(f"{where}: system {name!r} has {len(dup)} repeated seg_id(s) "
                             f"(seg_id {describe_ids(seg[dup])}); "
                             "each system has one hypothesis per segment. Drop the repeated rows (a k-best list: "
                             "use bleustats kbest).")
        breaks = np.flatnonzero(np.diff(seg) != 1)
        out[name] = np.column_stack([seg[np.r_[0, breaks + 1]], seg[np.r_[breaks, len(seg) - 1]]]) if len(seg) \
            else np.zeros((0, 2), np.int64)
    return out


def check_unique_keys(entries: Sequence[dict[str, Any]]) -> None:
    """Refuse (system, seg_id) pairs found in more than one partition, naming them and the partitions.

    ``entries`` are :func:`stats_part_task`'s results (``keys``: the
    partitions' :func:`key_runs`; ``label``). Memory: the runs.

    Examples
    --------
    >>> e = [{"label": "a", "keys": {"S": np.array([[0, 9]])}}, {"label": "b", "keys": {"S": np.array([[9, 12]])}}]
    >>> check_unique_keys(e)
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: hypotheses: system 'S' seg_id 9 is in two partitions (a and b); ...
    """
    systems = sorted({name for e in entries for name in e["keys"]})
    for name in systems:
        runs, owner = [], []
        for i, e in enumerate(entries):
            r = e["keys"].get(name)
            if r is not None and len(r):
                runs.append(r)
                owner.append(np.full(len(r), i))
        if not runs:
            continue
        r, o = np.concatenate(runs), np.concatenate(owner)
        order = np.lexsort((r[:, 1], r[:, 0]))
        r, o = r[order], o[order]
        reach = np.maximum.accumulate(r[:, 1])
        clash = np.flatnonzero(r[1:, 0] <= reach[:-1])
        if len(clash):
            k = int(clash[0]) + 1
            j = int(np.flatnonzero(r[:k, 1] >= r[k, 0])[0])  # an earlier run that holds r[k, 0]
            a, b = entries[o[j]]["label"], entries[o[k]]["label"]
            raise InputError(f"hypotheses: system {name!r} seg_id {int(r[k, 0])} is in two partitions ({a} and {b}); "
                             "each system has one hypothesis per segment. Remove the repeated rows (or a partition "
                             "given twice) and run again; nothing was written.")


def check_options(references: ReferenceIndex, options: dict[str, Any]) -> None:
    """Bad options fail here, once, before any partition runs."""
    compute_stats(_EMPTY_HYPOTHESES, references.table.slice(0, 0), **options)


def compute_stats_dataset(
    hypotheses: Any,
    references: str | os.PathLike | Any,
    output: str | os.PathLike,
    *,
    executor: Any = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    **options: Any,
) -> StatsDataset:
    r"""Statistics of a partitioned hypotheses table, written as a dataset folder (whole or not at all).

    Parameters
    ----------
    hypotheses : path or table
        A folder of Parquet files, a ``.parquet`` file or a table
        (:func:`hypotheses_partitions`); columns ``seg_id``, ``text`` and
        optionally ``system``.
    references : path, table or ReferenceIndex
        The long-form references table of every segment.
    output : path
        Dataset folder to write (part ``i`` from partition ``i``); an
        existing dataset there is replaced.
    executor : optional
        Runs the partitions: :class:`~bleustats.engine.dataset.LocalExecutor`
        (default; one at a time here) or
        :class:`bleustats.distributed.DaskExecutor`.
    batch_rows : int
        Rows computed per step within a partition (bounds memory).
    partition_rows : int
        Rows per partition when cutting one file or table.
    **options
        :func:`~bleustats.engine.stats.compute_stats`'s (``tokenize``,
        ``max_ngram_order``, ``ref_view``, ``metrics``, ...).

    Returns
    -------
    StatsDataset
        Row ``r`` equals row ``r`` of ``compute_stats(all hypotheses, references, **options)``.

    Raises
    ------
    InputError
        Bad options; a partition whose segments have no reference (naming the
        partition and the segments); unreadable inputs. Nothing is written then.
    """
    batch_rows = check_count("batch_rows", batch_rows, minimum=1)
    refs = references if isinstance(references, ReferenceIndex) else ReferenceIndex(references)
    check_options(refs, options)
    parts = hypotheses_partitions(hypotheses, partition_rows=partition_rows)
    check_partition_schemas(parts)
    executor = executor or LocalExecutor()
    with DatasetWriter(output) as writer:
        entries = list(executor.map(stats_part_task, list(enumerate(parts)), folder=str(writer.folder),
                                    references=refs, options=dict(options), batch_rows=batch_rows))
        check_unique_keys(entries)
        return writer.commit(entries)


def check_partition_schemas(parts: Sequence[HypothesesPartition]) -> None:
    """Parquet partitions must agree on which of ``seg_id``, ``system``, ``text`` they have, and on their types.

    Read from the files' footers. A partition without ``system`` among
    partitions with one would have its rows named after the default system,
    silently; all differences are named at once.
    """
    seen: dict[tuple, list[str]] = {}
    for part in parts:
        if part.path is None:
            continue
        try:
            schema = pq.read_schema(part.path)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{part.label}: cannot be read as a Parquet hypotheses table ({exc}).") from None
        shape = tuple((c, str(schema.field(c).type)) for c in _HYP_COLUMNS if c in schema.names)
        seen.setdefault(shape, []).append(part.label)
    if len(seen) > 1:
        kinds = "; ".join(f"{', '.join(f'{c}: {t}' for c, t in shape) or 'none of seg_id/system/text'} in "
                          f"{len(labels)} partition(s) ({', '.join(labels[:3])}{' ...' if len(labels) > 3 else ''})"
                          for shape, labels in seen.items())
        raise InputError(f"hypotheses: the partitions have different columns or types: {kinds}. Write every "
                         "partition with the same schema (seg_id int64, system string, text string).")


def compute_stats_files_dataset(
    hypotheses_path: str | os.PathLike,
    reference_paths: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    ref_weight_paths: Sequence[str | os.PathLike] | None = None,
    chunk_lines: int = DEFAULT_BATCH_ROWS,
    **options: Any,
) -> StatsDataset:
    """Statistics of line-aligned plain-text files, streamed into a dataset folder (one part per chunk).

    As :func:`~bleustats.engine.stats.compute_stats_files` (``seg_id`` = line
    index, one reference stream per file, weights one per line), but each
    chunk of ``chunk_lines`` lines goes to disk as it is computed, so memory
    holds one chunk whatever the files' size.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name, text in [("h", "a b c d\\nx y\\n"), ("r", "a b c d\\nx z\\n")]:
    ...     _ = open(os.path.join(d, name), "w", encoding="utf-8").write(text)
    >>> ds = compute_stats_files_dataset(os.path.join(d, "h"), [os.path.join(d, "r")], os.path.join(d, "o"),
    ...                                  chunk_lines=1)
    >>> ds.part_rows, ds.to_table().column("match_1").tolist()
    ((1, 1), [4, 1])
    """
    reference_paths, weights = reference_files(reference_paths, ref_weight_paths)
    chunk_lines = check_count("chunk_lines", chunk_lines, minimum=1)
    names = [str(p) for p in reference_paths]
    uniform = weights is None or all(bool((w == 1.0).all()) for w in weights)
    meta = {b"bleustats.weights": b"uniform" if uniform else b"custom"}
    with DatasetWriter(output) as writer:
        entries = []
        for first, (hyp, *refs) in io.iter_line_chunks([hypotheses_path, *reference_paths], chunk_lines):
            w = None if weights is None else [x[first:first + len(hyp)] for x in weights]
            st = compute_stats(io.lines_table(hyp, first=first),
                               io.streams_table(refs, w, n_hyp=len(hyp), names=names, first=first), **options)
            entries.append(write_part(writer.folder, len(entries), [retitle(st.table, meta)]))
            del hyp, refs, st
        if not entries:
            st = compute_stats([], [[] for _ in reference_paths], **options)
            entries.append(write_part(writer.folder, 0, [retitle(st.table, meta)]))
        return writer.commit(entries)
