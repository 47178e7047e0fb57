r"""Statistics of a Dask DataFrame of hypotheses, written as a partitioned statistics dataset.

Each partition of the DataFrame (``seg_id``, ``text``, optionally
``system``) is computed where Dask computes it and goes, on the same worker,
straight into :func:`~bleustats.engine._partitioned_stats.stats_part_task`:
its rows get their segments' references (the references index is on every
worker once), their statistics are written as part ``i`` of the output
dataset, and only the part's manifest entry comes back. The dataset is
committed when every part is there, or not at all.

Examples
--------
>>> import dask.dataframe as dd, pandas as pd, os, tempfile
>>> from bleustats.distributed import connect
>>> frame = dd.from_pandas(pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
...                                      "text": ["a b c", "d e", "a b", "d e f"]}), npartitions=2)
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c", "d e f"]})
>>> with connect("local:1") as ex:
...     ds = compute_stats_frame(frame, refs, os.path.join(tempfile.mkdtemp(), "st"), executor=ex)
>>> ds.part_rows, ds.to_table().column("match_1").tolist()
((2, 2), [3, 2, 2, 3])
"""

from __future__ import annotations

import os
from typing import Any

import dask
import pyarrow as pa

from ..engine.dataset import DEFAULT_BATCH_ROWS, DatasetWriter, StatsDataset
from ..engine._partitioned_stats import (HypothesesPartition, ReferenceIndex, check_options, check_unique_keys,
                                         stats_part_task)
from ..errors import InputError
from .cluster import DaskExecutor

__all__ = ["compute_stats_frame", "is_dask_frame"]


def is_dask_frame(obj: Any) -> bool:
    """True for a Dask DataFrame.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> frame = pd.DataFrame({"seg_id": [0], "text": ["a"]})
    >>> is_dask_frame(dd.from_pandas(frame, npartitions=1)), is_dask_frame(frame)
    (True, False)
    """
    return hasattr(obj, "to_delayed") and hasattr(obj, "npartitions")


def _frame_task(index: int, frame: Any, **kw: Any) -> dict[str, Any]:
    part = HypothesesPartition(label=f"partition {index} of the hypotheses DataFrame",
                               table=pa.Table.from_pandas(frame, preserve_index=False))
    return stats_part_task((index, part), **kw)


def compute_stats_frame(
    hypotheses: Any,
    references: Any,
    output: str | os.PathLike,
    *,
    executor: DaskExecutor,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    **options: Any,
) -> StatsDataset:
    """Statistics of a Dask DataFrame of hypotheses (one output part per partition), on ``executor``'s cluster.

    Parameters
    ----------
    hypotheses : dask.dataframe.DataFrame
        Columns ``seg_id``, ``text`` and optionally ``system``; each
        partition is computed (by Dask) and scored on the same worker.
    references : path, table or ReferenceIndex
        The long-form references table of every segment (sent to the
        cluster once).
    output : path
        Dataset folder to write (part ``i`` from partition ``i``), whole or
        not at all; an existing dataset there is replaced.
    executor : DaskExecutor
        From :func:`bleustats.distributed.connect`.
    batch_rows : int
        Rows computed per step within a partition (bounds each worker's memory).
    **options
        :func:`~bleustats.engine.stats.compute_stats`'s.

    Returns
    -------
    StatsDataset
        Row ``r`` equals row ``r`` of the statistics of the whole frame in memory.

    Raises
    ------
    InputError
        Not a Dask DataFrame or not a DaskExecutor; a partition's segments
        without references; a (system, seg_id) in two partitions. Nothing is
        written then.
    ClusterError
        The cluster lost a task's workers more often than it retries.

    Examples
    --------
    See the module docstring.
    """
    if not is_dask_frame(hypotheses):
        raise InputError(f"hypotheses must be a Dask DataFrame; got {type(hypotheses).__name__}.")
    if not isinstance(executor, DaskExecutor):
        raise InputError(f"executor must be a DaskExecutor (bleustats.distributed.connect); got {executor!r}.")
    refs = references if isinstance(references, ReferenceIndex) else ReferenceIndex(references)
    check_options(refs, options)
    client = executor.client
    shared = executor.shared(refs)
    with DatasetWriter(output) as writer:
        tasks = [dask.delayed(_frame_task, pure=False)(i, part, folder=str(writer.folder), references=shared,
                                                       options=dict(options), batch_rows=batch_rows)
                 for i, part in enumerate(hypotheses.to_delayed())]
        entries = list(executor.results(client.compute(tasks), "the statistics"))
        check_unique_keys(entries)
        return writer.commit(entries)
