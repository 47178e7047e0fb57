r"""The study's metrics of any statistics source, read from the rated cells only.

A correlation study (:mod:`bleustats.meta.study`) resamples the rated
(system, segment) cells and never reads the others. Here those cells' rows
are selected through the statistics protocol (:mod:`bleustats.engine.protocol`:
an in-memory table filters itself, a partitioned dataset filters each part
where it lies, streamed or on Dask workers), and the study metrics of
:mod:`bleustats.meta.units` are made from them: the same draws on the same
matrices, so the same study, bit for bit, as on the whole table in memory.
Only the signatures' reference count is the whole source's (``nrefs:var`` if
any segment of it has another count), as a metric of the whole table signs.

Memory: the rated cells' rows, plus one batch of a part.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> from bleustats.engine import compute_stats_dataset
>>> from bleustats.meta import units
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 2] * 2, "system": ["A"] * 3 + ["B"] * 3,
...                      "text": ["a b c d", "e f g h", "i j k l", "a b x d", "e f g h", "i x k l"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1, 2], "text": ["a b c d", "e f g h", "i j k l"]})
>>> ds = compute_stats_dataset(hyps, refs, os.path.join(tempfile.mkdtemp(), "st"), partition_rows=2,
...                            tokenize="none")
>>> human = pd.DataFrame({"system": ["A", "B"], "seg_id": [0, 2], "score": [0.9, 0.4]})
>>> len(rated_rows(ds, human)), corpus_metric(ds, human=human).signature.nrefs
(2, '1')
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine.dataset import cell_mask, nonpositive_weight_mask
from ..engine.protocol import StatsSource
from ..engine.stats import StatsTable
from . import units

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["corpus_metric", "rated_rows", "sentence_mean_metric"]


def rated_rows(stats: StatsSource, human: "pd.DataFrame") -> StatsTable:
    """The rows of the (system, seg_id) cells that ``human`` rates (with a score), in row order, in memory."""
    h = human.loc[human["score"].notna()] if "score" in human.columns else human
    return stats.where(cell_mask, systems=h["system"].astype(str).tolist(),
                       seg_ids=h["seg_id"].to_numpy(np.int64).tolist())


def _whole_source_nrefs(metric: units.UnitMetric, stats: StatsSource) -> units.UnitMetric:
    label = stats.n_refs_label if len(stats) else "var"
    return replace(metric, signature=metric.signature.with_nrefs(label))


def corpus_metric(stats: StatsSource, *, human: "pd.DataFrame", **options: Any) -> units.UnitMetric:
    """:func:`bleustats.meta.units.corpus_metric` of the cells ``human`` rates, of any statistics source.

    ``human`` holds the study's ratings (``system``, ``seg_id``, ``score``);
    a study of the result equals the study of the whole table's metric.
    ``options`` are :func:`~bleustats.meta.units.corpus_metric`'s. With
    ``metric='delta_bleu'`` every row of the source is checked for a
    positively weighted reference first (the error names every such segment,
    rated or not, as on the whole table).
    """
    if options.get("metric") == "delta_bleu":
        bad = stats.where(nonpositive_weight_mask, columns=["seg_id", "system", "ref_weight_max"])
        if len(bad):  # the in-memory function's own checks and error
            units.corpus_metric(bad, **options)
    return _whole_source_nrefs(units.corpus_metric(rated_rows(stats, human), **options), stats)


def sentence_mean_metric(stats: StatsSource, variant: str = "sacrebleu:exp", *, human: "pd.DataFrame",
                         **options: Any) -> units.UnitMetric:
    """:func:`bleustats.meta.units.sentence_mean_metric` of the cells ``human`` rates, of any statistics source."""
    return _whole_source_nrefs(units.sentence_mean_metric(rated_rows(stats, human), variant, **options), stats)
