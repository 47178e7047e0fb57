r"""Statistics of a Dask DataFrame of hypotheses, written as a partitioned statistics dataset.

Each partition of the DataFrame (``seg_id``, ``text``, optionally
``system``) is computed where Dask computes it and goes, on the same worker,
straight into :func:`~bleustats.engine.partitioned_stats.stats_part_task`:
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
from ..engine.partitioned_stats import (HypothesesPartition, ReferenceIndex, check_options, check_unique_keys,
                                         stats_part_task)
from ..errors import InputError
from .cluster import DaskExecutor

__all__ = ["compute_stats_frame", "is_dask_frame"]


def is_dask_frame(obj: Any) -> bool:
    """True for a Dask DataFrame."""
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

    ``references`` is a references table or path (or a
    :class:`~bleustats.engine.partitioned_stats.ReferenceIndex`); ``options``
    are :func:`~bleustats.engine.stats.compute_stats`'s. Row ``r`` of the
    result equals row ``r`` of the statistics of the whole frame in memory.
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
