r"""Content digests of saved statistics: a table's values and settings, a file's bytes.

A saved statistics table (:meth:`bleustats.engine.stats.StatsTable.save`)
carries ``bleustats.digest``, the SHA-256 of its values and ``bleustats.*``
settings (:func:`table_digest`), in its metadata; a dataset's manifest holds
the SHA-256 of each part file's bytes (:func:`file_sha256`) and a digest of
its own fields. Loading checks them, so a value, a setting, a row, a part or a
manifest field changed after the write is refused instead of scored.

:class:`TableDigest` is independent of how the rows are cut into chunks or
batches (a table digested in memory and the same table read back from
Parquet, in other row groups, give the same digest), so a table streamed batch
by batch is digested as it goes. Per column it hashes the column's name and
type, and its values: the bytes of a numeric column, the lengths and the
UTF-8 bytes of a string column (validity bitmaps are not hashed: statistics
columns have no nulls, which validation checks first).

Examples
--------
>>> import pyarrow as pa
>>> t = pa.table({"seg_id": [0, 1, 2], "system": ["A", "A", "B"]}).replace_schema_metadata({"bleustats.x": "1"})
>>> table_digest(t) == table_digest(pa.concat_tables([t.slice(0, 1), t.slice(1)]))
True
>>> table_digest(t) == table_digest(t.replace_schema_metadata({"bleustats.x": "2"}))
False
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

import numpy as np
import pyarrow as pa

from . import columns

__all__ = ["DIGEST_KEY", "TableDigest", "file_sha256", "table_digest"]

#: Metadata key of a saved table's digest (``sha256:<hex>``), itself left out of the digest.
DIGEST_KEY = b"bleustats.digest"
_PREFIX = "sha256:"


class TableDigest:
    """SHA-256 of a table's rows and ``bleustats.*`` metadata, fed one batch (or table) at a time.

    Parameters
    ----------
    schema : pyarrow.Schema
        The table's schema; its field names and types, and its ``bleustats.*``
        metadata except :data:`DIGEST_KEY`, are part of the digest.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.rows = 0
        self._parts = [[hashlib.sha256(), hashlib.sha256()] for _ in schema]

    def update(self, batch: pa.Table | pa.RecordBatch) -> None:
        """Add the rows of ``batch`` (the schema's columns, in order)."""
        self.rows += batch.num_rows
        for (values, lengths), col in zip(self._parts, batch.columns):
            for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
                if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
                    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
                    offsets = np.frombuffer(chunk.buffers()[1], width)[chunk.offset:chunk.offset + len(chunk) + 1]
                    lengths.update(np.diff(offsets).astype(np.int64).tobytes())
                    data = chunk.buffers()[2]
                    if data is not None and len(offsets):
                        values.update(memoryview(data)[int(offsets[0]):int(offsets[-1])])
                elif pa.types.is_integer(chunk.type) or pa.types.is_floating(chunk.type):
                    width = chunk.type.bit_width // 8  # the value bytes, viewed in place (no copy)
                    data = chunk.buffers()[1]
                    if data is not None:
                        values.update(memoryview(data)[chunk.offset * width:(chunk.offset + len(chunk)) * width])
                else:
                    values.update(np.ascontiguousarray(columns.to_numpy(chunk)).tobytes())

    def hexdigest(self) -> str:
        """``sha256:<hex>`` over the rows so far, the schema's fields and its ``bleustats.*`` settings."""
        whole = hashlib.sha256(f"rows={self.rows}\n".encode())
        meta = self.schema.metadata or {}
        for key in sorted(meta):
            if key.startswith(b"bleustats.") and key != DIGEST_KEY:
                whole.update(key + b"=" + meta[key] + b"\n")
        for field, (values, lengths) in zip(self.schema, self._parts):
            whole.update(f"{field.name}:{field.type}:".encode() + values.digest() + lengths.digest())
        return _PREFIX + whole.hexdigest()


def table_digest(table: pa.Table) -> str:
    """The :class:`TableDigest` of a whole table (``sha256:<hex>``)."""
    digest = TableDigest(table.schema)
    digest.update(table)
    return digest.hexdigest()


def file_sha256(path: str | os.PathLike[Any]) -> str:
    """SHA-256 of a file's bytes as ``sha256:<hex>`` (read in 1 MiB blocks).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "x")
    >>> _ = open(p, "wb").write(b"abc")
    >>> file_sha256(p)
    'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    with open(path, "rb") as fh:
        return _PREFIX + hashlib.file_digest(fh, "sha256").hexdigest()
