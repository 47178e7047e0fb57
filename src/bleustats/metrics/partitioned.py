"""The scores of a partitioned statistics table, under the names of the in-memory ones.

Every scorer takes any source of statistics (:mod:`bleustats.engine.protocol`):
an in-memory :class:`~bleustats.engine.stats.StatsTable` or a partitioned
:class:`~bleustats.engine.dataset.StatsDataset`, whose parts are reduced
where they lie (streamed here, or on a Dask worker) to exact partial sums,
merged so that every score equals, bit for bit, the score of the whole table
in memory. This module gives those scorers (:mod:`bleustats.metrics.tables`,
:func:`bleustats.metrics.sentence.score_variants`) under the names scale-out
code imports; there is no second code path.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> from bleustats.engine._partitioned_stats import compute_stats_dataset
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
...                      "text": ["a b c d", "e f g", "a b x d", "e f g"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "e f g h"]})
>>> ds = compute_stats_dataset(hyps, refs, os.path.join(tempfile.mkdtemp(), "st"), partition_rows=1)
>>> len(ds.parts), corpus_score(ds).score == corpus_score(ds.to_table()).score
(4, True)
>>> corpus_scores(ds, by="system")["score"].round(2).tolist()
[86.69, 46.91]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..engine.protocol import StatsSource
from .sentence import score_variants
from .tables import corpus_score, corpus_scores, sentence_scores, table_metric_of

__all__ = [
    "column_totals",
    "corpus_score",
    "corpus_scores",
    "n_systems",
    "score_variants",
    "sentence_scores",
    "systems",
    "table_metric_of",
]


def column_totals(stats: StatsSource, columns: Sequence[str], *, by: Any = None) -> tuple[np.ndarray, dict]:
    """``stats.column_totals(columns, by=by)``: exact sums ``(keys, {column: sums})``."""
    return stats.column_totals(columns, by=by)


def systems(stats: StatsSource) -> np.ndarray:
    """``stats.systems()``: the distinct ``system`` names, sorted."""
    return stats.systems()


def n_systems(stats: StatsSource) -> int:
    """Number of distinct ``system`` names."""
    return len(stats.systems())
