r"""Partitioned statistics tables: a folder of Parquet parts, read with bounded memory, written whole or not at all.

A statistics table too large for one process's memory, or computed by many
workers, is stored as a *dataset*: a folder of Parquet files
``part-00000.parquet``, ``part-00001.parquet``, ... that each hold some rows of
one statistics table, with the schema and ``bleustats.*`` metadata that
:meth:`~bleustats.engine.stats.StatsTable.save` writes (every part the same),
plus a manifest ``_bleustats_manifest.json`` that lists the parts, their row
counts, the distinct reference counts and each part's SHA-256, with an id of
the dataset (new for every dataset written) and a digest of the manifest's own
fields. The rows of the dataset are the parts' rows in manifest order.

- :func:`open_stats` opens a statistics file (a :class:`StatsTable`, loaded)
  or a dataset folder (a :class:`StatsDataset`, only its footers read). A
  dataset whose manifest names a part that is missing, whose parts disagree
  with the manifest (row counts, schemas, checksums: a part copied in from
  another dataset, or edited), whose manifest was edited (its digest), or
  that holds a Parquet file the manifest does not list is refused, with every
  problem named: a partial or altered dataset never scores.
- :class:`StatsDataset` streams its rows (:meth:`StatsDataset.iter_tables`:
  one batch of at most ``batch_rows`` rows in memory at a time) and knows the
  table's settings without reading rows. Scores of a dataset merge per-part
  partial sums (it answers the statistics protocol, :mod:`bleustats.engine.protocol`); ``executor`` decides
  where the per-part work runs: here, one part after another
  (:class:`LocalExecutor`, the default), or on a Dask cluster
  (:class:`bleustats.distributed.DaskExecutor`).
- :class:`DatasetWriter` writes parts into a hidden temporary folder beside
  the destination, which replaces it in one rename when every part is there
  (:meth:`DatasetWriter.commit`); any error or interruption removes the
  temporary folder, so a dataset is whole or absent. :func:`write_part` writes
  one part (itself atomically: a worker that dies mid-write leaves no part).

Examples
--------
>>> import os, tempfile
>>> from bleustats.engine.stats import compute_stats
>>> st = compute_stats(["a b c", "a b", "c d"], [["a b c", "a c", "c d"]], tokenize="none")
>>> out = os.path.join(tempfile.mkdtemp(), "stats")
>>> with DatasetWriter(out) as w:
...     parts = [write_part(w.folder, i, [st.select(rows).table]) for i, rows in enumerate([[0, 1], [2]])]
...     ds = w.commit(parts)
>>> len(ds), ds.parts, ds.tokenize
(3, ('part-00000.parquet', 'part-00001.parquet'), 'none')
>>> [len(t) for t in open_stats(out).iter_tables()]
[2, 1]
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._interrupts import deferred
from .._version import __version__
from ..errors import InputError
from . import io, schemas
from ._options import DEFAULT_BATCH_ROWS
from .stats import StatsTable, load_stats, metric_groups
from ._sums import PartialSums, merge_partial_sums, partial_sums

__all__ = ["DatasetWriter", "LocalExecutor", "StatsDataset", "is_dataset", "open_dataset", "open_stats",
           "save_as_file", "write_part"]

#: File that marks a folder as a complete statistics dataset and lists its parts.
MANIFEST = "_bleustats_manifest.json"
_FORMAT = "bleustats-statistics-dataset/2"
#: Manifests written before datasets carried an id and checksums: checked by names, rows and schemas only.
_FORMAT_V1 = "bleustats-statistics-dataset/1"
_META = b"bleustats."


def part_name(index: int) -> str:
    """File name of part ``index`` (``part-00003.parquet``)."""
    return f"part-{int(index):05d}.parquet"


def is_dataset(path: str | os.PathLike) -> bool:
    """True when ``path`` is a folder (a dataset, complete or not); a file is a single table."""
    return Path(path).is_dir()


class LocalExecutor:
    """Runs the per-part tasks of a partitioned computation one after another, in this process.

    Memory then holds one part's batch at a time (streaming). An executor is
    anything with this ``map``; :class:`bleustats.distributed.DaskExecutor`
    runs the same tasks on a cluster.
    """

    name = "local"

    def map(self, fn: Callable[..., Any], items: Iterable[Any], **shared: Any) -> Iterator[Any]:
        """``fn(item, **shared)`` for every item, in order (lazily)."""
        for item in items:
            yield fn(item, **shared)


# --------------------------------------------------------------------------- reading


def _setting(name: str) -> property:
    return property(lambda self: getattr(self.settings, name), doc=f"As :attr:`StatsTable.{name}` (from the metadata).")


@dataclass(frozen=True)
class StatsDataset:
    """A statistics table stored as a folder of Parquet parts (see the module docstring).

    Attributes
    ----------
    path : pathlib.Path
    parts : tuple of str
        Part file names, in row order.
    part_rows : tuple of int
        Rows of each part.
    schema : pyarrow.Schema
        The parts' schema, with the ``bleustats.*`` metadata.
    n_refs_values : tuple of int
        Distinct ``n_refs`` over all rows (for the signatures' ``nrefs``).
    dataset_id : str or None
        The manifest's id (32 hex digits, new for every dataset written);
        None for a dataset written before manifests carried one.
    executor : object, optional
        Where per-part work runs (default: :class:`LocalExecutor`).
    """

    path: Path
    parts: tuple[str, ...]
    part_rows: tuple[int, ...]
    schema: pa.Schema
    n_refs_values: tuple[int, ...]
    dataset_id: str | None = None
    executor: Any = field(default=None, compare=False, repr=False)

    # -- the table's settings (from the metadata; no rows read) --

    @property
    def settings(self) -> StatsTable:
        """An empty :class:`StatsTable` with the dataset's schema and metadata (at the viewed order)."""
        return StatsTable(self.schema.empty_table())

    @property
    def order_view(self) -> int | None:
        """The order of :meth:`up_to_order`'s view when it is lower than the parts' (else None)."""
        stored = int(pq.read_schema(self.path / self.parts[0]).metadata[_META + b"max_ngram_order"])
        return self.max_ngram_order if self.max_ngram_order < stored else None

    def up_to_order(self, max_ngram_order: int) -> "StatsDataset":
        """The dataset seen with the columns of orders 1..max_ngram_order only (as :meth:`StatsTable.up_to_order`).

        No file changes: the rows read from then on (:meth:`iter_tables`, and
        the row-wise tasks given ``max_ngram_order=dataset.order_view``) drop
        the higher orders' columns.

        Examples
        --------
        >>> import os, tempfile
        >>> from bleustats.engine.stats import compute_stats
        >>> out = os.path.join(tempfile.mkdtemp(), "st")
        >>> with DatasetWriter(out) as w:
        ...     ds = w.commit([write_part(w.folder, 0, [compute_stats(["a b"], [["a b"]]).table])])
        >>> v = ds.up_to_order(2)
        >>> v.max_ngram_order, "match_3" in v.column_names, "match_3" in next(v.iter_tables()).table.column_names
        (2, False, False)
        """
        view = self.settings.up_to_order(max_ngram_order)
        return replace(self, schema=view.table.schema)

    max_ngram_order = _setting("max_ngram_order")
    tokenize = _setting("tokenize")
    lowercase = _setting("lowercase")
    ref_view = _setting("ref_view")
    weight_threshold = _setting("weight_threshold")
    delta_definition = _setting("delta_definition")
    weights = _setting("weights")
    version = _setting("version")
    metrics = _setting("metrics")
    chrf_options = _setting("chrf_options")
    ter_options = _setting("ter_options")

    @property
    def n_refs_label(self) -> str:
        """Number of references per segment for the signature ('var' if it varies)."""
        return str(self.n_refs_values[0]) if len(self.n_refs_values) == 1 else "var"

    @property
    def column_names(self) -> list[str]:
        return list(self.schema.names)

    def __len__(self) -> int:
        return int(sum(self.part_rows))

    def with_executor(self, executor: Any) -> "StatsDataset":
        """The same dataset with per-part work run by ``executor``."""
        return replace(self, executor=executor)

    def run(self, fn: Callable[..., Any], **shared: Any) -> Iterator[Any]:
        """``fn(part_path, **shared)`` for every part, by the dataset's executor, results in part order."""
        executor = self.executor or LocalExecutor()
        return executor.map(fn, [str(self.path / p) for p in self.parts], **shared)

    # -- rows --

    def read_part(self, index: int, columns: Sequence[str] | None = None) -> StatsTable:
        """Part ``index`` whole (optionally only ``columns``), settings kept."""
        return read_stats_part(self.path / self.parts[index], columns, max_ngram_order=self.order_view)

    def iter_tables(self, columns: Sequence[str] | None = None, *,
                    batch_rows: int = DEFAULT_BATCH_ROWS) -> Iterator[StatsTable]:
        """The rows in order, at most ``batch_rows`` at a time (optionally only ``columns``)."""
        order = self.order_view
        for p in self.parts:
            yield from iter_stats_part(self.path / p, columns, batch_rows=batch_rows, max_ngram_order=order)

    # -- the statistics protocol (bleustats.engine.protocol), answered part by part on the executor --

    def column_totals(self, columns: Sequence[str], *, by: Any = None, rows: Any = None
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Exact sums of ``columns`` (per distinct value of the column ``by``): ``(keys, {column: sums})``.

        Each part is reduced where it runs (:func:`sums_task`); only the
        partial sums travel, merged exactly, so the totals equal the in-memory
        table's bit for bit. ``rows`` (positions over all parts, repeats
        allowed) sums the selected rows, gathered by :meth:`select`.
        """
        if by is not None and not isinstance(by, str):
            raise InputError(f"by: a partitioned table is grouped by one of its columns "
                             f"({', '.join(self.column_names)}); got {type(by).__name__}. Add the labels as a "
                             "column when computing the statistics.")
        if by is not None and by not in self.column_names:
            raise InputError(f"by must be a column of the statistics table ({', '.join(self.column_names)}) "
                             f"or one label per row; got {by!r}.")
        if rows is not None:
            return self.select(rows).column_totals(columns, by=by)
        merged = merge_partial_sums(list(self.run(sums_task, columns=list(columns), by=by)))
        return merged.keys, merged.totals()

    def map_batches(self, fn: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
                    ) -> list[Any]:
        """``[fn(batch, **kwargs), ...]`` for every batch of every part, in row order (run by the executor).

        ``fn`` is a module-level function (it runs where the parts are).
        """
        return [r for part in self.run(_batches_task, batch_fn=fn, columns=columns, kwargs=kwargs,
                                       max_ngram_order=self.order_view) for r in part]

    def select(self, rows: Any) -> StatsTable:
        """The rows at positions ``rows`` (a mask, or indices over all parts; repeats kept) as one table.

        Examples
        --------
        >>> import os, tempfile
        >>> from bleustats.engine.stats import compute_stats
        >>> st = compute_stats(["a", "b", "c"], [["a", "b", "d"]])
        >>> with DatasetWriter(os.path.join(tempfile.mkdtemp(), "st")) as w:
        ...     ds = w.commit([write_part(w.folder, i, [st.select(r).table]) for i, r in enumerate([[0, 1], [2]])])
        >>> ds.select([2, 0, 2]).table.equals(st.select([2, 0, 2]).table)
        True
        """
        from .protocol import row_index

        index = row_index(len(self), rows) % max(len(self), 1)
        starts = np.cumsum((0,) + self.part_rows)
        part = np.searchsorted(starts, index, side="right") - 1
        taken, where = [], []
        for p in np.unique(part):
            at = np.flatnonzero(part == p)
            taken.append(self.read_part(int(p)).select(index[at] - starts[p]).table)
            where.append(at)
        if not taken:
            return StatsTable(self.schema.empty_table())
        table = pa.concat_tables(taken)
        if len(taken) > 1:
            table = table.take(pa.array(np.argsort(np.concatenate(where), kind="stable")))
        return StatsTable(table.replace_schema_metadata(self.schema.metadata))

    def where(self, predicate: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
              ) -> StatsTable:
        """The rows where ``predicate(batch, **kwargs)`` is true, in row order, as one in-memory table.

        Each part filters its own batches; memory holds the selected rows and one batch.
        """
        parts = list(self.run(_select_task, predicate=predicate, kwargs=kwargs, columns=columns,
                              max_ngram_order=self.order_view))
        return StatsTable(pa.concat_tables(parts).replace_schema_metadata(self.schema.metadata))

    def systems(self) -> np.ndarray:
        """The distinct ``system`` names over all parts, sorted."""
        return np.array(sorted({s for part in self.run(_systems_task) for s in part}), dtype=object)

    def to_table(self, columns: Sequence[str] | None = None) -> StatsTable:
        """All rows in memory as one :class:`StatsTable` (for datasets that fit)."""
        tables = [t.table for t in self.iter_tables(columns)]
        schema = self.schema if columns is None else pa.schema([self.schema.field(c) for c in columns],
                                                             metadata=self.schema.metadata)
        return StatsTable(pa.concat_tables(tables) if tables else schema.empty_table())


def _with_meta(table: pa.Table, meta: dict | None, max_ngram_order: int | None = None) -> StatsTable:
    st = StatsTable(table.replace_schema_metadata(meta))
    return st if max_ngram_order is None else st.up_to_order(max_ngram_order)


# --------------------------------------------------------------------------- per-part tasks (run on workers)


def sums_task(path: str, *, columns: Sequence[str], by: str | None = None,
              batch_rows: int = DEFAULT_BATCH_ROWS) -> PartialSums:
    """The partial sums of ``columns`` over one part file (per value of column ``by``), streamed."""
    read = list(columns) + ([by] if by is not None and by not in columns else [])
    parts = []
    for t in iter_stats_part(path, read, batch_rows=batch_rows):
        keys = None if by is None else t.column(by)
        parts.append(partial_sums({c: t.column(c) for c in columns}, keys=keys))
    return merge_partial_sums(parts) if len(parts) > 1 else parts[0]


def _batches_task(path: str, *, batch_fn: Callable[..., Any], columns: Sequence[str] | None, kwargs: dict[str, Any],
                  batch_rows: int = DEFAULT_BATCH_ROWS, max_ngram_order: int | None = None) -> list[Any]:
    """``batch_fn(batch, **kwargs)`` for every batch of one part."""
    return [batch_fn(t, **kwargs)
            for t in iter_stats_part(path, columns, batch_rows=batch_rows, max_ngram_order=max_ngram_order)]


def _systems_task(path: str, *, batch_rows: int = DEFAULT_BATCH_ROWS) -> list[str]:
    seen: set[str] = set()
    for t in iter_stats_part(path, ["system"], batch_rows=batch_rows):
        seen.update(pc.unique(t.table.column("system")).to_pylist())
    return sorted(seen)


def read_stats_part(path: str | os.PathLike, columns: Sequence[str] | None = None, *,
                    max_ngram_order: int | None = None) -> StatsTable:
    """One part file of a dataset, whole (optionally only ``columns``; only orders up to ``max_ngram_order``)."""
    try:
        table = pq.read_table(path, columns=list(columns) if columns is not None else None)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as a Parquet statistics part ({exc}).") from None
    return _with_meta(table, table.schema.metadata, max_ngram_order)


def iter_stats_part(path: str | os.PathLike, columns: Sequence[str] | None = None, *,
                    batch_rows: int = DEFAULT_BATCH_ROWS, max_ngram_order: int | None = None) -> Iterator[StatsTable]:
    """The rows of one part file, at most ``batch_rows`` at a time (only orders up to ``max_ngram_order``)."""
    try:
        pf = pq.ParquetFile(path)
        meta = pf.schema_arrow.metadata
        batches = pf.iter_batches(batch_size=batch_rows, columns=list(columns) if columns is not None else None)
        empty = True
        for batch in batches:
            empty = False
            yield _with_meta(pa.Table.from_batches([batch]), meta, max_ngram_order)
        if empty:
            schema = pf.schema_arrow if columns is None else pa.schema([pf.schema_arrow.field(c) for c in columns])
            yield _with_meta(schema.empty_table(), meta, max_ngram_order)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as a Parquet statistics part ({exc}).") from None


def open_stats(path: str | os.PathLike) -> StatsTable | StatsDataset:
    """A saved statistics table: a Parquet file (loaded, :func:`load_stats`) or a dataset folder (opened).

    Raises
    ------
    InputError
        No such path; a folder that is not a complete dataset (no manifest,
        missing or extra parts, parts that disagree with the manifest or
        with each other), with every problem listed.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or folder; give a statistics table (.parquet) or a dataset "
                         "folder written by bleustats stats.")
    if not path.is_dir():
        return load_stats(path)
    return open_dataset(path)


def _manifest_problems(manifest: dict) -> list[str]:
    """The manifest's own fields: an id, rows that add up, and its digest over every other field."""
    problems = []
    if not (isinstance(manifest.get("id"), str) and len(manifest["id"]) == 32
            and all(c in "0123456789abcdef" for c in manifest["id"])):
        problems.append(f"the manifest's id is {manifest.get('id')!r}, not the 32 hex digits bleustats writes")
    if manifest.get("rows") != sum(int(p["rows"]) for p in manifest["parts"]):
        problems.append(f"the manifest's rows ({manifest.get('rows')!r}) are not the sum of its parts' rows")
    if manifest.get("digest") != _manifest_digest(manifest):
        problems.append("the manifest's digest does not match its fields (a field was edited after the write)")
    return problems


def _manifest_digest(manifest: dict) -> str:
    """SHA-256 of a manifest's fields but ``digest``, as canonical JSON."""
    import hashlib

    fields = {k: v for k, v in manifest.items() if k != "digest"}
    return "sha256:" + hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _check_parts(path: Path, verify: bool = True) -> tuple[list[tuple[str, int, list[int]]], pa.Schema]:
    """The manifest's parts and their schema; raises naming every way the folder is not a whole dataset."""
    mpath = path / MANIFEST
    if not mpath.is_file():
        raise InputError(f"{path}: has no {MANIFEST}, so it is not a complete statistics dataset (bleustats "
                         "writes the manifest last, when every part is there). Recompute it with bleustats stats.")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
        parts = [(str(p["name"]), int(p["rows"]), [int(x) for x in p["n_refs"]]) for p in manifest["parts"]]
        fmt = manifest["format"]
        checksums = [str(p["sha256"]) for p in manifest["parts"]] if fmt == _FORMAT else None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise InputError(f"{mpath}: not a bleustats dataset manifest ({exc!r}).") from None
    if fmt not in (_FORMAT, _FORMAT_V1):
        raise InputError(f"{mpath}: format {fmt!r} is not {_FORMAT!r}; was it written by a newer bleustats?")
    if not parts:
        raise InputError(f"{mpath}: lists no part; the dataset is empty or broken. Recompute it.")
    expected = [part_name(i) for i in range(len(parts))]
    if [name for name, _, _ in parts] != expected:  # a part listed twice or out of place would count its rows twice
        odd = [name for (name, _, _), want in zip(parts, expected) if name != want]
        raise InputError(f"{mpath}: the parts must be listed once each, in order, as {expected[0]} ... "
                         f"{expected[-1]}; found {', '.join(map(repr, odd[:5]))}" + (" ..." if len(odd) > 5 else "")
                         + " in their place. Its scores would be wrong; recompute the dataset (bleustats stats).")
    problems = _manifest_problems(manifest) if fmt == _FORMAT else []
    missing = [name for name, _, _ in parts if not (path / name).is_file()]
    if missing:
        problems.append(f"{len(missing)} part(s) listed in the manifest are missing: {', '.join(missing[:5])}"
                        + (" ..." if len(missing) > 5 else ""))
    listed = {name for name, _, _ in parts}
    extra = sorted(p.name for p in path.glob("*.parquet") if p.name not in listed)
    if extra:
        problems.append(f"{len(extra)} Parquet file(s) are not in the manifest: {', '.join(extra[:5])}"
                        + (" ..." if len(extra) > 5 else ""))
    schema = None
    for i, (name, rows, _) in enumerate(parts):
        if name in missing:
            continue
        try:
            pf = pq.ParquetFile(path / name)
        except (OSError, pa.ArrowException) as exc:
            problems.append(f"{name} cannot be read as Parquet ({exc})")
            continue
        if pf.metadata.num_rows != rows:
            problems.append(f"{name} has {pf.metadata.num_rows} rows, the manifest says {rows}")
        if checksums is not None and verify and io.file_sha256(path / name) != checksums[i]:
            problems.append(f"{name} is not the part this dataset was written with (its SHA-256 differs from the "
                            "manifest's: a part copied in from another dataset, or edited)")
        if schema is None:
            schema = pf.schema_arrow
        elif not pf.schema_arrow.equals(schema, check_metadata=True):
            problems.append(f"{name} has another schema or other settings than {parts[0][0]}")
    if problems or schema is None:
        raise InputError(f"{path}: not a whole statistics dataset: " + "; ".join(problems)
                         + ". Its scores would be wrong; recompute the dataset (bleustats stats).")
    return parts, schema


def open_dataset(path: str | os.PathLike, *, verify: bool = True) -> StatsDataset:
    """Open a dataset folder and check it is whole and unchanged (see :func:`open_stats`).

    The manifest's digest, id and row total are checked, and (``verify``,
    the default) the SHA-256 of every part file against the manifest's: this
    reads every byte of the dataset once (see ``benchmarks/results/trust.md``
    for its cost). ``verify=False`` is for a dataset this process has just
    written and checked.
    """
    path = Path(path)
    parts, schema = _check_parts(path, verify)
    meta = schema.metadata or {}
    key = _META + b"max_ngram_order"
    if key not in meta:
        raise InputError(f"{path}: its parts have no {key.decode()!r} metadata; they were not written by bleustats.")
    settings = StatsTable(schema.empty_table())
    schemas.validate(schema.empty_table(), "statistics", max_ngram_order=int(meta[key]), param=str(path),
                     groups=metric_groups(settings, path))
    n_refs = sorted({x for _, _, v in parts for x in v})
    dataset_id = json.loads((path / MANIFEST).read_text(encoding="utf-8")).get("id")
    return StatsDataset(path=path, parts=tuple(n for n, _, _ in parts), part_rows=tuple(r for _, r, _ in parts),
                        schema=schema, n_refs_values=tuple(n_refs), dataset_id=dataset_id)


# --------------------------------------------------------------------------- writing


def write_part(folder: str | os.PathLike, index: int, tables: Iterable[pa.Table]) -> dict[str, Any]:
    """Write the statistics tables ``tables`` (one schema) as part ``index`` of ``folder``, one row group each.

    The part is written under a unique temporary name and renamed, so a
    writer that dies leaves no part, and a task run twice (a retried task)
    leaves one. Returns the part's manifest entry: ``name``, ``rows``,
    ``n_refs`` (distinct values).
    """
    folder = Path(folder)
    name = part_name(index)
    tmp = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    writer = None
    rows = 0
    n_refs: set[int] = set()
    try:
        for table in tables:
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            elif not table.schema.equals(writer.schema, check_metadata=True):
                raise InputError(f"part {index}: its batches have different schemas or settings; compute them "
                                 "with the same options.")
            writer.write_table(table)
            rows += table.num_rows
            if table.num_rows and "n_refs" in table.column_names:
                n_refs.update(int(x) for x in pc.unique(table.column("n_refs")).to_pylist())
        if writer is None:
            raise InputError(f"part {index}: no table to write (give at least an empty table).")
        writer.close()
        writer = None
        checksum = io.file_sha256(tmp)
        os.replace(tmp, folder / name)
    except BaseException:
        if writer is not None:
            writer.close()
        tmp.unlink(missing_ok=True)
        raise
    return {"name": name, "rows": rows, "n_refs": sorted(n_refs), "sha256": checksum}


class DatasetWriter:
    """A dataset being written: parts go to a temporary folder that :meth:`commit` renames into place.

    Use it as a context manager: leaving the block with an exception (or
    without :meth:`commit`) removes the temporary folder and every part in it,
    and ``path`` is left as it was.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        # a link to a dataset: the dataset it names is replaced, the link stays; a device, FIFO or file: refused
        self.path = io.output_target(path, folder_output=not Path(path).is_dir())
        replaceable = not self.path.exists() or (self.path.is_dir() and (
            (self.path / MANIFEST).is_file() or not any(self.path.iterdir())))
        if not replaceable:
            raise InputError(f"output: {self.path} exists and is not a bleustats statistics dataset; "
                                 "choose a new path (an existing dataset is replaced).")
        try:
            self.folder = io.make_temp_dir(self.path)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write {self.path}: {exc.strerror}; nothing was written",
                          str(self.path)) from None
        self.committed = False

    def __enter__(self) -> "DatasetWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.committed:
            self.abort()

    def abort(self) -> None:
        """Remove the temporary folder and everything in it.

        A cancelled task that was already running on a cluster worker may
        still be writing its part while the folder is removed (the removal
        then finds a new file and leaves the folder); removal is retried for
        up to 30 s until the folder is gone. A writer that starts later fails
        on the missing folder (:func:`write_part` never creates it).
        """
        deadline = time.monotonic() + 30.0
        while True:
            with deferred():  # the command line's interrupt waits (bleustats._interrupts)
                shutil.rmtree(self.folder, ignore_errors=True)
            if not self.folder.exists() or time.monotonic() > deadline:
                return
            time.sleep(0.05)

    def commit(self, parts: Sequence[dict[str, Any]], *, statistics: bool = True) -> StatsDataset | None:
        """Check the parts, write the manifest and move the dataset into place (replacing an old one).

        ``parts`` are :func:`write_part`'s entries, in row order (part ``i``
        at position ``i``). Every part must be there with the same schema and
        settings, else nothing is moved and the error names what is wrong.
        Returns the opened dataset; with ``statistics=False`` (parts of other
        per-row tables, such as k-best scores) only the parts are checked and
        None is returned.
        """
        parts = sorted(parts, key=lambda p: p["name"])
        names = [p["name"] for p in parts]
        if names != [part_name(i) for i in range(len(parts))] or not parts:
            raise InputError(f"{self.path}: the parts written are {names[:5]}...; expected part 0 to "
                             f"{len(parts) - 1} once each. Nothing was written.")
        for leftover in self.folder.glob(".*.tmp"):  # a retried task's abandoned temporary file
            leftover.unlink(missing_ok=True)
        manifest = {"format": _FORMAT, "version": __version__, "id": uuid.uuid4().hex,
                    "rows": int(sum(p["rows"] for p in parts)),
                    "parts": [{"name": p["name"], "rows": int(p["rows"]), "n_refs": list(p["n_refs"]),
                               "sha256": p.get("sha256") or io.file_sha256(self.folder / p["name"])}
                              for p in parts]}
        manifest["digest"] = _manifest_digest(manifest)
        (self.folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        # every part there, one schema (a statistics table's): else this raises and nothing moves
        open_dataset(self.folder) if statistics else _check_parts(self.folder)
        io.move_into_place(self.folder, self.path)  # the old dataset aside, the new one in: both or neither
        self.committed = True
        return open_dataset(self.path, verify=False) if statistics else None  # checked above, before the move


def retitle(table: pa.Table, meta: dict[bytes, bytes]) -> pa.Table:
    """``table`` with its ``bleustats.*`` metadata keys set from ``meta`` (others kept)."""
    merged = dict(table.schema.metadata or {})
    merged.update(meta)
    return table.replace_schema_metadata(merged)


# --------------------------------------------------------------------------- selecting rows


def system_mask(table: StatsTable, *, systems: Sequence[str]) -> Any:
    """Rows whose ``system`` is one of ``systems``."""
    return pc.is_in(table.table.column("system"), value_set=pa.array(list(systems), pa.string())).to_numpy(
        zero_copy_only=False)


def cell_mask(table: StatsTable, *, systems: Sequence[str], seg_ids: Sequence[int]) -> Any:
    """Rows whose ``(system, seg_id)`` is one of the cells ``zip(systems, seg_ids)``."""
    names = np.unique(np.asarray(systems, dtype=object).astype(str))
    segs = np.unique(np.asarray(seg_ids, dtype=np.int64))
    want = np.unique(np.searchsorted(names, np.asarray(systems, dtype=object).astype(str)) * len(segs)
                     + np.searchsorted(segs, np.asarray(seg_ids, dtype=np.int64)))
    code = pc.index_in(table.table.column("system"), value_set=pa.array(names.tolist(), pa.string()))
    code = code.to_numpy(zero_copy_only=False)
    seg = table.column("seg_id")
    pos = np.searchsorted(segs, seg)
    ok = ~np.isnan(code.astype(np.float64)) & (pos < len(segs))
    ok[ok] = segs[pos[ok]] == seg[ok]
    out = np.zeros(len(seg), bool)
    out[ok] = np.isin(code[ok].astype(np.int64) * len(segs) + pos[ok], want)
    return out


def nonpositive_weight_mask(table: StatsTable) -> Any:
    """Rows whose references all have weight <= 0 (their ΔBLEU is undefined)."""
    return table.column("ref_weight_max") <= 0


def _select_task(path: str, *, predicate: Callable[..., Any], kwargs: dict[str, Any], columns: Sequence[str] | None,
                 batch_rows: int = DEFAULT_BATCH_ROWS, max_ngram_order: int | None = None) -> pa.Table:
    read = None if columns is None else list(dict.fromkeys([*columns, "system", "seg_id", "ref_weight_max"]))
    kept = []
    for t in iter_stats_part(path, read, batch_rows=batch_rows, max_ngram_order=max_ngram_order):
        rows = t.table.filter(pa.array(predicate(t, **kwargs)))
        kept.append(rows if columns is None else rows.select(list(columns)))
    return pa.concat_tables(kept)


def select_rows(stats: StatsTable | StatsDataset, predicate: Callable[..., Any], *,
                columns: Sequence[str] | None = None, **kwargs: Any) -> StatsTable:
    """The rows where ``predicate(batch, **kwargs)`` is true, in row order, as one in-memory table.

    ``predicate`` is a module-level function (it runs where the parts are:
    :func:`system_mask`, :func:`cell_mask`, :func:`nonpositive_weight_mask`);
    ``columns`` keeps only some columns (default all). Memory holds the
    selected rows and one batch.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a", "b", "c"], [["a", "b", "d"]], system="S")
    >>> len(select_rows(st, cell_mask, systems=["S", "S"], seg_ids=[0, 2]))
    2
    """
    return stats.where(predicate, columns=columns, **kwargs)


def save_as_file(stats: StatsDataset, path: str | os.PathLike, *, batch_rows: int = DEFAULT_BATCH_ROWS) -> None:
    """Write a dataset's rows as one Parquet statistics file (as :meth:`StatsTable.save`), streamed, whole or not.

    Examples
    --------
    >>> import os, tempfile
    >>> from bleustats.engine._partitioned_stats import compute_stats_dataset
    >>> import pandas as pd
    >>> d = tempfile.mkdtemp()
    >>> ds = compute_stats_dataset(pd.DataFrame({"seg_id": [0, 1], "text": ["a", "b"]}),
    ...                            pd.DataFrame({"seg_id": [0, 1], "text": ["a", "c"]}), os.path.join(d, "ds"),
    ...                            partition_rows=1)
    >>> save_as_file(ds, os.path.join(d, "st.parquet"))
    >>> load_stats(os.path.join(d, "st.parquet")).table.equals(ds.to_table().table)
    True
    """
    # two passes: the digest (bleustats.digest, as StatsTable.save writes) goes in the schema, written first
    meta = {k: v for k, v in (stats.schema.metadata or {}).items() if k != io.DIGEST_KEY}
    digest = io.TableDigest(stats.schema.with_metadata(meta))
    for t in stats.iter_tables(batch_rows=batch_rows):
        digest.update(t.table)
    schema = stats.schema.with_metadata({**meta, io.DIGEST_KEY: digest.hexdigest().encode()})

    def write(tmp: str) -> None:
        with pq.ParquetWriter(tmp, schema) as writer:
            for t in stats.iter_tables(batch_rows=batch_rows):
                writer.write_table(t.table.replace_schema_metadata(schema.metadata))

    io.write_atomic(path, write)
