r"""bleustats on a Dask cluster: statistics, scores, k-best lists, paired tests and studies beyond one machine.

Optional (``pip install 'bleustats[dask]'``); nothing else in bleustats
imports Dask. The work is the partitioned computations of the core floors
(the statistics of :func:`bleustats.engine.compute_stats_dataset`; every scorer,
paired test and study metric given a :class:`~bleustats.engine.dataset.StatsDataset`,
:mod:`bleustats.engine.protocol`; k-best lists and MBR of :mod:`bleustats.tools`),
which run their per-part tasks on an *executor*; this package supplies one
that runs them on a cluster:

>>> import os, tempfile
>>> import pandas as pd
>>> from bleustats.distributed import connect
>>> from bleustats.engine import compute_stats_dataset
>>> from bleustats.metrics.tables import corpus_scores
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
...                      "text": ["a b c d", "e f g", "a b x d", "e f g"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "e f g h"]})
>>> out = os.path.join(tempfile.mkdtemp(), "stats")
>>> with connect("local:1") as ex:                         # or connect("tcp://scheduler:8786")
...     ds = compute_stats_dataset(hyps, refs, out, executor=ex, partition_rows=2)
...     on_cluster = corpus_scores(ds.with_executor(ex), by="system")
>>> on_cluster["score"].round(2).tolist()
[86.69, 46.91]
>>> on_cluster.equals(corpus_scores(ds))      # the same numbers computed here
True

- :mod:`bleustats.distributed.cluster`: :func:`connect` (a scheduler address
  or ``local:N``), :class:`DaskExecutor`.
- :mod:`bleustats.distributed.frames`: :func:`compute_stats_frame`, the
  statistics of a Dask DataFrame of hypotheses.

Results equal the single-process ones bit for bit (integer sums are exact;
float sums are exact partials rounded once, :mod:`bleustats.engine._sums`).
"""

from __future__ import annotations

from .cluster import CONNECT_TIMEOUT, DaskExecutor, connect, parse_address, worker_pids
from .frames import compute_stats_frame, is_dask_frame

__all__ = ["CONNECT_TIMEOUT", "DaskExecutor", "compute_stats_frame", "connect", "is_dask_frame", "parse_address",
           "worker_pids"]
