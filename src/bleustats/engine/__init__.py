"""The engine: texts → exact token ids → per-hypothesis sufficient statistics, and the tables around them.

Tables and inputs:

- :mod:`~bleustats.engine.schemas`: every table's Arrow schema, read from
  ``data_schemas/``, and validation that reports every problem at once.
- :mod:`~bleustats.engine.io`: inputs in every form (lists, DataFrames, Arrow
  tables, text / TSV / JSONL / Parquet files) → validated long-form tables;
  whole-or-nothing writes.
- :mod:`~bleustats.engine._columns`: numpy arrays and Python strings → Arrow
  arrays without pyarrow's pandas shim.
- :mod:`~bleustats.engine._lines`: line-aligned text files read a chunk of
  lines at a time into one buffer the encoder reads in place.
- :mod:`~bleustats.engine._options`: the statistics options and their one
  check (importable without numpy, Arrow or numba).

Encoding and statistics:

- :mod:`~bleustats.engine.encode`: tokenization and exact integer encoding
  (numba kernels in ``_encode_kernels`` and ``_tokenize_kernels``, code-point
  tables in ``_tokenize_tables``).
- :mod:`~bleustats.engine.stats`: :class:`~bleustats.engine.stats.StatsTable`
  and :func:`~bleustats.engine.stats.compute_stats` (numba kernels in
  ``_stats_kernels``).
- :mod:`~bleustats.engine._small`: the same BLEU rows for a few segments in
  plain Python (no numba, Arrow or numpy).
- :mod:`~bleustats.engine.chrf_stats`: chrF / chrF++ statistics (numba kernels
  in ``_chrf_kernels``).
- :mod:`~bleustats.engine.ter_stats`: TER statistics, the fewest edits per
  segment (numba kernels in ``_ter_kernels``).
- :mod:`~bleustats.engine.references`: references validated and prepared once
  for many systems (:class:`~bleustats.engine.references.ReferenceSet`).
- :mod:`~bleustats.engine._threads`: whether a kernel started on this thread may
  run in parallel (1 thread on threads that are themselves the parallelism).

Sums and partitioned tables:

- :mod:`~bleustats.engine._sums`: exact sums of statistics columns, whole, per
  group or merged from partial sums (numba kernels in ``_sum_kernels``).
- :mod:`~bleustats.engine.protocol`: the questions every scorer asks of its
  statistics (column totals, row batches, selections), answered in memory by a
  ``StatsTable`` and part by part by a ``StatsDataset``.
- :mod:`~bleustats.engine.dataset`: a statistics table stored as a folder of
  Parquet parts, read with bounded memory, written whole or not at all.
- :mod:`~bleustats.engine._partitioned_stats`: statistics computed partition
  by partition (streamed, or on an executor) into a dataset.

Test sets:

- :mod:`~bleustats.engine.testsets`: sacreBLEU's test sets read from its local cache (never downloaded).
"""


from __future__ import annotations

from .._lazy import lazy_exports

#: entry point -> the module that defines it (imported on first use: ``import bleustats.engine`` stays light)
_EXPORTS = {
    "StatsTable": "stats",
    "compute_stats": "stats",
    "compute_stats_files": "stats",
    "load_stats": "stats",
    "StatsDataset": "dataset",
    "open_dataset": "dataset",
    "open_stats": "dataset",
    "compute_stats_dataset": "_partitioned_stats",
    "compute_stats_files_dataset": "_partitioned_stats",
    "StatsSource": "protocol",
    "ReferenceSet": "references",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
