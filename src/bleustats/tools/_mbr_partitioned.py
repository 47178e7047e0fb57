r"""MBR over a partitioned candidates table: one task per partition, here or on a Dask cluster.

:func:`mbr_dataset` is :func:`bleustats.tools.mbr.mbr_nbest` for a long-form
candidates table stored as Parquet (a folder of parts, or one file cut at row
groups; ``seg_id``, ``text``, optional ``system`` and ``rank``). Each partition
is one task (one after another here, or on a cluster with
:class:`bleustats.distributed.DaskExecutor`) that reads its rows, runs the MBR
selection of its sources and returns its per-candidate rows and choices; with
``matrices`` it writes its sources' matrices itself (to a folder every worker
sees at the same path). Only those rows travel back, and the caller puts them
together in partition order and writes ``-o`` and ``--best``.

Each source's candidates must lie in one partition (a source is the unit of
MBR); a source found in two partitions is an error naming both. Within that
rule the result equals :func:`~bleustats.tools.mbr.mbr_nbest`'s on the whole
table bit for bit: every source's matrix and expected utilities are computed
from its own candidates alone, whichever batch or process scores them.

Examples
--------
>>> import pandas as pd
>>> from bleustats.tools.mbr import mbr_nbest
>>> t = pd.DataFrame({"seg_id": [0, 0, 0, 1, 1], "text": ["a b c", "a b", "a b c d", "x y", "x"]})
>>> r = mbr_dataset(t, metric="chrf", partition_rows=3)
>>> r.best_texts, r.best_texts == mbr_nbest(t, metric="chrf").best_texts
(['a b c d', 'x y'], True)
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..engine.dataset import DEFAULT_BATCH_ROWS, LocalExecutor
from ..engine._partitioned_stats import DEFAULT_PARTITION_ROWS, HypothesesPartition, hypotheses_partitions
from ..errors import InputError
from .mbr import (MBRResult, check_options, concat_results, finish, matrix_folder, pseudo_reference_lists,
                  select_table)
from .pairwise import BATCH_PAIRS, Utility, utility

__all__ = ["mbr_dataset"]



def _columns(part: HypothesesPartition) -> list[str]:
    if part.table is not None:
        return part.table.column_names
    try:
        return pq.ParquetFile(part.path).schema_arrow.names
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{part.label}: cannot be read as a Parquet hypotheses table ({exc}).") from None


def mbr_part_task(item: tuple[int, HypothesesPartition], *, pool: dict[int, list[str]] | None,
                  settings: dict[str, Any], batch_rows: int) -> dict[str, Any]:
    """MBR over one partition's sources (runs on a worker); its rows in partition order."""
    _, part = item
    t0 = time.perf_counter()
    blocks = list(part.batches(batch_rows, _columns(part)))  # every column: an unknown one is an error, as in-process
    raw = pa.concat_tables(blocks) if blocks else None
    if raw is None or raw.num_rows == 0:
        return {"result": None, "rows": 0, "seconds": time.perf_counter() - t0, "pid": os.getpid()}
    result = select_table(raw, part.label, pool, **settings)
    return {"result": result, "rows": len(result.seg_id), "seconds": time.perf_counter() - t0, "pid": os.getpid()}


def mbr_dataset(
    nbest: Any,
    *,
    executor: Any = None,
    pseudo_references: Any = None,
    metric: str | Utility = "chrf",
    exclude_self: bool = False,
    aggregate: bool = False,
    output: str | os.PathLike | None = None,
    best: str | os.PathLike | None = None,
    matrices: str | os.PathLike | None = None,
    progress: Any = None,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    batch_pairs: int = BATCH_PAIRS,
    **options: Any,
) -> MBRResult:
    """MBR over a partitioned candidates table, one task per partition; writes the outputs asked for.

    Parameters
    ----------
    nbest : path or table
        A folder of Parquet parts, a ``.parquet`` file (cut at row groups of
        about ``partition_rows`` rows) or a pandas / Arrow table (cut every
        ``partition_rows`` rows): ``seg_id``, ``text``, optional ``system``
        and ``rank`` (:func:`~bleustats.engine._partitioned_stats.hypotheses_partitions`).
        Each source's rows in one partition.
    executor : optional
        :class:`~bleustats.engine.dataset.LocalExecutor` (default) or
        :class:`bleustats.distributed.DaskExecutor`.
    pseudo_references, metric, exclude_self, aggregate, output, best, matrices, **options
        As :func:`~bleustats.tools.mbr.mbr_nbest`; the pseudo-references are
        read here and sent with the tasks.
    progress : callable, optional
        ``progress(done, total)`` in partitions, as their results arrive.
    batch_rows
        Rows read at a time within a partition.

    Returns
    -------
    MBRResult
        Equal to :func:`~bleustats.tools.mbr.mbr_nbest`'s on the whole table;
        ``timings`` adds ``tasks`` (seconds summed over the partitions' tasks).
    """
    u = metric if isinstance(metric, Utility) else utility(metric, **options)
    check_options(u, exclude_self, aggregate, pseudo_references is not None)
    t0 = time.perf_counter()
    pool = None if pseudo_references is None else pseudo_reference_lists(pseudo_references)
    parts = hypotheses_partitions(nbest, partition_rows=partition_rows)
    mat_dir = matrix_folder(matrices, aggregate)
    settings = dict(u=u, exclude_self=exclude_self, aggregate=aggregate, batch_pairs=batch_pairs,
                    mat_dir=None if mat_dir is None else str(mat_dir))
    executor = executor or LocalExecutor()
    outcomes = []
    for i, out in enumerate(executor.map(mbr_part_task, list(enumerate(parts)), pool=pool, settings=settings,
                                         batch_rows=batch_rows)):
        outcomes.append(out)
        if progress is not None:
            progress(i + 1, len(parts))
    results = [o["result"] for o in outcomes if o["result"] is not None]
    if not results:
        raise InputError("nbest: no candidates; the table is empty.")
    _check_sources_once([(o["result"], p.label) for o, p in zip(outcomes, parts) if o["result"] is not None])
    merged = concat_results(results, u.signature(), exclude_self, aggregate)
    # the choices in increasing source id, as the in-process run gives them
    by_id = np.argsort(merged.sources, kind="stable")
    merged.sources, merged.chosen = merged.sources[by_id], merged.chosen[by_id]
    merged.best_texts = [merged.best_texts[i] for i in by_id]
    result = finish(merged, pool, [merged.sources], output, best, t0)
    result.timings["tasks"] = float(sum(o["seconds"] for o in outcomes))
    return result


def _check_sources_once(results: list[tuple[MBRResult, str]]) -> None:
    """A source in two partitions is an error naming both (its candidates would be split into two lists)."""
    ids = np.concatenate([r.sources for r, _ in results])
    where = np.repeat(np.arange(len(results)), [len(r.sources) for r, _ in results])
    order = np.argsort(ids, kind="stable")
    dup = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if len(dup):
        k = dup[0]
        a, b = results[where[order[k]]][1], results[where[order[k + 1]]][1]
        raise InputError(f"nbest: source {int(ids[order[k]])} has candidates in {a} and in {b}; each source's "
                         "candidates must be in one partition (write the parts grouped by seg_id).")
