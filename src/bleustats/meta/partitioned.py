r"""Paired tests and study metrics from a partitioned statistics table: read only the rows they resample.

A paired bootstrap or approximate randomization resamples the segments of
two systems; a correlation study resamples the rated (system, segment)
cells. Neither needs the rest of the table. Here each part of a
:class:`~bleustats.engine.dataset.StatsDataset` is filtered where it lies
(:func:`~bleustats.engine.dataset.select_rows`: streamed here, or on the
Dask workers), only the rows of those systems or cells travel, and the
in-memory functions of :mod:`bleustats.meta.paired` and
:mod:`bleustats.meta.units` run on them: the same draws on the same
matrices, so the same numbers, bit for bit, as on the whole table in memory.
Only the signatures' reference count is the whole table's (``nrefs:var`` if
any segment of the table has another count), as there.

Memory: the selected rows (two systems' segments; the rated cells), plus one
batch of a part.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> from bleustats.engine._partitioned_stats import compute_stats_dataset
>>> from bleustats.meta import paired
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 2] * 3, "system": ["A"] * 3 + ["B"] * 3 + ["C"] * 3,
...                      "text": ["a b c d", "e f g h", "i j k l", "a b x d", "e f g h", "i x k l",
...                               "a", "b", "c"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1, 2], "text": ["a b c d", "e f g h", "i j k l"]})
>>> ds = compute_stats_dataset(hyps, refs, os.path.join(tempfile.mkdtemp(), "st"), partition_rows=2,
...                            tokenize="none")
>>> res = paired_bootstrap(ds, "A", "B", n_samples=100)
>>> res == paired.paired_bootstrap(ds.to_table(), "A", "B", n_samples=100)
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..engine.dataset import StatsDataset, cell_mask, nonpositive_weight_mask, select_rows, system_mask
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics.partitioned import systems
from ..metrics.results import Signature
from . import paired, units

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "corpus_metric",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "rated_rows",
    "sentence_mean_metric",
    "system_rows",
]


def _relabel(sig: Signature, label: str) -> Signature:
    """``sig`` with the reference count ``label`` (in its field, or among the extra fields of chrF / TER)."""
    if sig.nrefs is not None:
        return replace(sig, nrefs=label)
    return replace(sig, extra=tuple((k, label if k == "nrefs" else v) for k, v in sig.extra))


def system_rows(stats: StatsDataset, names: Sequence[str]) -> StatsTable:
    """The rows of the systems ``names`` (in row order), in memory; every system must have some."""
    table = select_rows(stats, system_mask, systems=list(names))
    found = set(np.unique(table.column("system")).tolist()) if len(table) else set()
    for which, name in zip(("baseline_rows", "system_rows"), names):
        if name not in found:
            known = systems(stats)
            shown = ", ".join(map(repr, known[:10])) + (" ..." if len(known) > 10 else "")
            raise InputError(f"{which}: no row has system {name!r}; systems in the table: {shown}.")
    return table


def _paired(test: Any, stats: StatsTable | StatsDataset, baseline: Any, system: Any, kw: dict[str, Any]) -> Any:
    if isinstance(stats, StatsTable):
        return test(stats, baseline, system, **kw)
    if not (isinstance(baseline, str) and isinstance(system, str)):
        raise InputError("baseline_rows and system_rows: on a partitioned table give system names (row indices "
                         f"and masks need the table in memory); got {type(baseline).__name__} and "
                         f"{type(system).__name__}.")
    res = test(system_rows(stats, [baseline, system]), baseline, system, **kw)
    return replace(res, signature=_relabel(res.signature, stats.n_refs_label))


def paired_bootstrap(stats: StatsTable | StatsDataset, baseline_rows: Any, system_rows: Any, **options: Any
                     ) -> paired.PairedTestResult:
    """:func:`bleustats.meta.paired.paired_bootstrap` of two systems of a table or a partitioned table.

    ``options`` are that function's (``metric``, ``n_samples``, ``seed``,
    ...). On a dataset, ``baseline_rows`` and ``system_rows`` are system
    names; only their rows are read into memory.
    """
    return _paired(paired.paired_bootstrap, stats, baseline_rows, system_rows, options)


def paired_approximate_randomization(stats: StatsTable | StatsDataset, baseline_rows: Any, system_rows: Any,
                                     **options: Any) -> paired.PairedTestResult:
    """:func:`bleustats.meta.paired.paired_approximate_randomization`, of a table or a partitioned table."""
    return _paired(paired.paired_approximate_randomization, stats, baseline_rows, system_rows, options)


def rated_rows(stats: StatsDataset, human: "pd.DataFrame") -> StatsTable:
    """The rows of the (system, seg_id) cells that ``human`` rates (with a score), in row order, in memory."""
    h = human.loc[human["score"].notna()] if "score" in human.columns else human
    return select_rows(stats, cell_mask, systems=h["system"].astype(str).tolist(),
                       seg_ids=h["seg_id"].to_numpy(np.int64).tolist())


def _check_weights(stats: StatsDataset, options: dict[str, Any]) -> None:
    if options.get("metric") == "delta_bleu":
        bad = select_rows(stats, nonpositive_weight_mask, columns=["seg_id", "system", "ref_weight_max"])
        if len(bad):  # the in-memory function's own checks and error, naming every such segment of the table
            units.corpus_metric(StatsTable(bad.table.replace_schema_metadata(stats.schema.metadata)), **options)


def _whole_table_nrefs(metric: units.UnitMetric, stats: StatsDataset) -> units.UnitMetric:
    label = stats.n_refs_label if len(stats) else "var"
    return replace(metric, signature=_relabel(metric.signature, label))


def corpus_metric(stats: StatsTable | StatsDataset, *, human: "pd.DataFrame | None" = None, **options: Any
                  ) -> units.UnitMetric:
    """:func:`bleustats.meta.units.corpus_metric` of a table, or of a partitioned table's rated cells.

    On a dataset, ``human`` (the study's ratings: ``system``, ``seg_id``,
    ``score``) names the cells to read; a study then runs as on the whole
    table, with the same result (the study only ever reads rated cells).
    ``options`` are :func:`~bleustats.meta.units.corpus_metric`'s.
    """
    if isinstance(stats, StatsTable):
        return units.corpus_metric(stats, **options)
    if human is None:
        raise InputError("human: a partitioned table's study metric reads the rated cells only; pass the "
                         "human scores (system, seg_id, score) as human=.")
    _check_weights(stats, options)
    return _whole_table_nrefs(units.corpus_metric(rated_rows(stats, human), **options), stats)


def sentence_mean_metric(stats: StatsTable | StatsDataset, variant: str = "sacrebleu:exp", *,
                         human: "pd.DataFrame | None" = None, **options: Any) -> units.UnitMetric:
    """:func:`bleustats.meta.units.sentence_mean_metric` of a table, or of a partitioned table's rated cells."""
    if isinstance(stats, StatsTable):
        return units.sentence_mean_metric(stats, variant, **options)
    if human is None:
        raise InputError("human: a partitioned table's study metric reads the rated cells only; pass the "
                         "human scores (system, seg_id, score) as human=.")
    return _whole_table_nrefs(units.sentence_mean_metric(rated_rows(stats, human), variant, **options), stats)
