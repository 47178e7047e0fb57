"""The engine: texts → exact token ids → per-hypothesis sufficient statistics, and the tables around them.

- :mod:`~bleustats.engine.schemas`: every table's Arrow schema, read from
  ``data_schemas/``, and validation that reports every problem at once.
- :mod:`~bleustats.engine.io`: inputs in every form (lists, DataFrames, Arrow
  tables, text / TSV / JSONL / Parquet files) → validated long-form tables;
  whole-or-nothing writes.
- :mod:`~bleustats.engine.encode`: tokenization and exact integer encoding
  (numba kernels in ``_encode_kernels``).
- :mod:`~bleustats.engine.stats`: :class:`~bleustats.engine.stats.StatsTable`
  and :func:`~bleustats.engine.stats.compute_stats` (numba kernels in
  ``_stats_kernels``).
- :mod:`~bleustats.engine.chrf_stats`: chrF / chrF++ statistics (numba kernels
  in ``_chrf_kernels``).
"""
