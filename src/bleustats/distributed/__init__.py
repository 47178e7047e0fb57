r"""bleustats on a Dask cluster: statistics, scores, k-best lists, paired tests and studies beyond one machine.

Optional (``pip install 'bleustats[dask]'``); nothing else in bleustats
imports Dask. The work is the partitioned computations of the core floors
(:mod:`bleustats.engine.partitioned_stats`, :mod:`bleustats.metrics.partitioned`,
:mod:`bleustats.meta.partitioned`, :mod:`bleustats.tools.kbest_partitioned`),
which run their per-part tasks on an *executor*; this package supplies one
that runs them on a cluster:

>>> from bleustats.distributed import connect                         # doctest: +SKIP
>>> from bleustats.engine.partitioned_stats import compute_stats_dataset
>>> from bleustats.metrics.partitioned import corpus_score
>>> with connect("local:2") as ex:                                     # or connect("tcp://scheduler:8786")
...     ds = compute_stats_dataset("hyps/", "refs.parquet", "stats/", executor=ex)
...     print(corpus_score(ds.with_executor(ex)))

- :mod:`bleustats.distributed.cluster`: :func:`connect` (a scheduler address
  or ``local:N``), :class:`DaskExecutor`.
- :mod:`bleustats.distributed.frames`: :func:`compute_stats_frame`, the
  statistics of a Dask DataFrame of hypotheses.

Results equal the single-process ones bit for bit (integer sums are exact;
float sums are exact partials rounded once, :mod:`bleustats.engine.sums`).
"""

from __future__ import annotations

from .cluster import CONNECT_TIMEOUT, DaskExecutor, connect, parse_address, worker_pids
from .frames import compute_stats_frame, is_dask_frame

__all__ = ["CONNECT_TIMEOUT", "DaskExecutor", "compute_stats_frame", "connect", "is_dask_frame", "parse_address",
           "worker_pids"]
