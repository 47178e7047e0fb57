r"""Scores of a partitioned statistics table: per-part partial sums, merged exactly, one formula.

A corpus score is a function of column sums, and sums split over partitions:

.. math::

    \sum_{i=1}^{n} s_i \;=\; \sum_{p} \sum_{i \in p} s_i

so each part of a :class:`~bleustats.engine.dataset.StatsDataset` is reduced
where it lies (streamed here in batches of bounded size, or on a Dask
worker) to the sums of the columns a score needs
(:func:`~bleustats.engine.sums.partial_sums`; per group for ``by=``), only
those sums travel, and :func:`~bleustats.engine.sums.merge_partial_sums`
merges them. Integer columns are exact int64 sums; float columns (ΔBLEU's
weighted counts, average reference lengths, TER's reference lengths) are
kept as exact partials and rounded once, so every score here equals, bit for
bit, the score of the whole table loaded in memory
(:func:`bleustats.metrics.tables.corpus_score` sums the same way). Sentence
scores are row by row, so each part's are those of its rows.

Every function also takes an in-memory :class:`~bleustats.engine.stats.StatsTable`
(and then is :mod:`bleustats.metrics.tables`' function), so callers need not
care which one they hold.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> from bleustats.engine.partitioned_stats import compute_stats_dataset
>>> from bleustats.metrics import tables
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
...                      "text": ["a b c d", "e f g", "a b x d", "e f g"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "e f g h"]})
>>> ds = compute_stats_dataset(hyps, refs, os.path.join(tempfile.mkdtemp(), "st"), partition_rows=1)
>>> len(ds.parts), corpus_score(ds).score == tables.corpus_score(ds.to_table()).score
(4, True)
>>> corpus_scores(ds, by="system")["score"].round(2).tolist()
[86.69, 46.91]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._validate import check_choice
from ..engine.options import DEFAULT_BATCH_ROWS
from ..engine.stats import StatsTable
from ..engine.sums import PartialSums, merge_partial_sums, partial_sums
from ..errors import InputError
from . import formula, results, sentence, tables
from .base import Metric

if TYPE_CHECKING:
    import pandas as pd

    from ..engine.dataset import StatsDataset

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


# --------------------------------------------------------------------------- per-part tasks (run on workers)


def _stats_part(path: str, columns: Sequence[str] | None, **kwargs: Any) -> Any:
    """:func:`bleustats.engine.dataset.iter_stats_part`, imported on first use.

    Scoring an in-memory table (every ``bleustats score`` of text files) never
    reads a dataset; loading Parquet and Arrow's compute functions for it would
    add ~30 ms to every such process.
    """
    from ..engine.dataset import iter_stats_part as iterate

    return iterate(path, columns, **kwargs)


def sums_task(path: str, *, columns: Sequence[str], by: str | None = None,
              batch_rows: int = DEFAULT_BATCH_ROWS) -> PartialSums:
    """The partial sums of ``columns`` over one part file (per value of column ``by``), streamed."""
    read = list(columns) + ([by] if by is not None and by not in columns else [])
    parts = []
    for t in _stats_part(path, read, batch_rows=batch_rows):
        keys = None if by is None else t.column(by)
        parts.append(partial_sums({c: t.column(c) for c in columns}, keys=keys))
    return merge_partial_sums(parts) if len(parts) > 1 else parts[0]


def _bad_weight_task(path: str, *, batch_rows: int = DEFAULT_BATCH_ROWS) -> np.ndarray:
    """seg_ids of one part's rows whose references all have weight <= 0 (ΔBLEU undefined)."""
    bad = [t.column("seg_id")[t.column("ref_weight_max") <= 0]
           for t in _stats_part(path, ["seg_id", "ref_weight_max"], batch_rows=batch_rows)]
    return np.unique(np.concatenate(bad)) if bad else np.zeros(0, np.int64)


def _rows_task(path: str, *, batch_fn: Any, columns: Sequence[str] | None, kwargs: dict[str, Any],
               batch_rows: int = DEFAULT_BATCH_ROWS, max_ngram_order: int | None = None) -> Any:
    """``batch_fn(batch, **kwargs)`` for every batch of one part; arrays concatenated (dicts of arrays per key)."""
    out = [batch_fn(t, **kwargs)
           for t in _stats_part(path, columns, batch_rows=batch_rows, max_ngram_order=max_ngram_order)]
    if isinstance(out[0], dict):
        return {k: np.concatenate([o[k] for o in out]) for k in out[0]}
    return np.concatenate(out)


def _systems_task(path: str, *, batch_rows: int = DEFAULT_BATCH_ROWS) -> list[str]:
    import pyarrow.compute as pc

    seen: set[str] = set()
    for t in _stats_part(path, ["system"], batch_rows=batch_rows):
        seen.update(pc.unique(t.table.column("system")).to_pylist())
    return sorted(seen)


# --------------------------------------------------------------------------- helpers


def column_totals(stats: StatsDataset, columns: Sequence[str], *, by: str | None = None) -> tuple[np.ndarray, dict]:
    """Exact sums of ``columns`` over a dataset (per distinct value of ``by``): ``(keys, {column: sums})``.

    Each part is reduced by its executor; only the partial sums travel.
    """
    merged = merge_partial_sums(list(stats.run(sums_task, columns=list(columns), by=by)))
    return merged.keys, merged.totals()


def _check_delta(stats: StatsDataset) -> None:
    bad = [b for b in stats.run(_bad_weight_task) if len(b)]
    if bad:  # the same error as the in-memory check, naming every segment
        seg = np.unique(np.concatenate(bad))
        table = pa.table({"seg_id": pa.array(seg, pa.int64()), "ref_weight_max": pa.array(np.zeros(len(seg)))})
        tables.check_delta_defined(StatsTable(table))


def _bleu_totals(stats: StatsDataset, metric: str, ref_length: str, *,
                 by: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """BLEU / ΔBLEU counts summed per value of ``by`` (one group, key 0, without it).

    Returns ``(keys, correct, total, hyp_len, ref_len)``: ``correct`` and
    ``total`` are groups × n-gram orders, the lengths one per group.
    """
    nums, dens = formula.count_columns(metric, stats.max_ngram_order)
    len_col = f"ref_len_{ref_length}"
    keys, sums = column_totals(stats, [*nums, *dens, "hyp_len", len_col], by=by)
    correct = np.column_stack([sums[c] for c in nums]) if len(keys) else np.zeros((0, len(nums)))
    total = np.column_stack([sums[c] for c in dens]) if len(keys) else np.zeros((0, len(dens)))
    return keys, correct, total, sums["hyp_len"], sums[len_col]


def table_metric_of(stats: StatsDataset, metric: str) -> Metric:
    """The chrF / TER object of a dataset's columns (as :func:`bleustats.metrics.tables.table_metric`'s)."""
    obj, _ = tables.table_metric(stats.settings, metric)
    obj.num_refs = stats.n_refs_values[0] if len(stats.n_refs_values) == 1 else -1
    return obj


def systems(stats: StatsTable | StatsDataset) -> np.ndarray:
    """The distinct ``system`` names, sorted."""
    if isinstance(stats, StatsTable):
        return np.unique(stats.column("system"))
    names = sorted({s for part in stats.run(_systems_task) for s in part})
    return np.array(names, dtype=object)


def n_systems(stats: StatsTable | StatsDataset) -> int:
    """Number of distinct ``system`` names."""
    return len(systems(stats))


# --------------------------------------------------------------------------- scores


def corpus_score(
    stats: StatsTable | StatsDataset,
    *,
    metric: str = "bleu",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
) -> Any:
    """Corpus BLEU / ΔBLEU (chrF, TER) of all rows: :func:`bleustats.metrics.tables.corpus_score`, partitioned.

    The same result, bit for bit, as the in-memory table's (see the module
    docstring); a dataset's parts are summed by its executor.
    """
    opts = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                use_effective_order=use_effective_order, ref_length=ref_length)
    if isinstance(stats, StatsTable):
        return tables.corpus_score(stats, **opts)
    if check_choice("metric", metric, tables.TABLE_METRICS) in tables.OTHER_METRICS:
        obj = table_metric_of(stats, metric)
        cols = tables.table_metric_columns(stats, metric)
        _, sums = column_totals(stats, cols)
        return obj._compute_score_from_stats(_other_matrix(sums, cols, metric)[0])
    formula.check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                               ref_length=ref_length)
    if metric == "delta_bleu":
        _check_delta(stats)
    _, correct, total, hyp_len, ref_len = _bleu_totals(stats, metric, ref_length)
    return tables.corpus_score_from_sums(stats, correct[0], total[0], hyp_len[0], ref_len[0], **opts)


def _other_matrix(sums: dict, cols: Sequence[str], metric: str) -> np.ndarray:
    # the dtype of table_metric's matrix: float64 for TER, int64 for chrF
    return np.column_stack([sums[c] for c in cols]).astype(np.float64 if metric == "ter" else np.int64)


def corpus_scores(
    stats: StatsTable | StatsDataset,
    *,
    by: str = "system",
    metric: str = "bleu",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
    allow_partial: bool = False,
) -> pd.DataFrame:
    """Corpus scores per value of the column ``by``: :func:`bleustats.metrics.tables.corpus_scores`, partitioned.

    Each part sums its rows per group; groups spanning parts are merged
    exactly. Same frame (rows sorted by label, signature in ``attrs``) as
    the in-memory table's; with ``by='system'`` the same coverage check
    (``allow_partial``, :func:`bleustats.metrics.results.check_coverage`).
    """
    opts = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                use_effective_order=use_effective_order, ref_length=ref_length)
    if isinstance(stats, StatsTable):
        return tables.corpus_scores(stats, by=by, allow_partial=allow_partial, **opts)
    cov = results.check_coverage(stats, allow_partial=allow_partial) if by == "system" else None
    frame = _dataset_scores(stats, by, opts)
    if cov is not None and not cov.complete:
        results.record_coverage(frame, cov, by)
    return frame


def _dataset_scores(stats: StatsDataset, by: Any, opts: dict[str, Any]) -> pd.DataFrame:
    metric, smooth_method, smooth_value, ref_length = (opts[k] for k in ("metric", "smooth_method", "smooth_value",
                                                                          "ref_length"))
    if not isinstance(by, str):
        raise InputError(f"by: a partitioned table is grouped by one of its columns ({', '.join(stats.column_names)}); "
                         f"got {type(by).__name__}. Add the labels as a column when computing the statistics.")
    if check_choice("metric", metric, tables.TABLE_METRICS) not in tables.OTHER_METRICS:
        formula.check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                                   ref_length=ref_length)
    if metric == "delta_bleu":
        _check_delta(stats)
    if by not in stats.column_names:
        raise InputError(f"by must be a column of the statistics table ({', '.join(stats.column_names)}) "
                         f"or one label per row; got {by!r}.")
    if metric in tables.OTHER_METRICS:
        cols = tables.table_metric_columns(stats, metric)
        keys, sums = column_totals(stats, cols, by=by)
        return tables.other_group_scores(table_metric_of(stats, metric), cols, by, keys,
                                       _other_matrix(sums, cols, metric))
    keys, correct, total, hyp_len, ref_len = _bleu_totals(stats, metric, ref_length, by=by)
    return tables.group_scores_from_sums(stats, by, keys, correct, total, hyp_len, ref_len, **opts)


def _sentence_batch(table: StatsTable, **kwargs: Any) -> np.ndarray:
    return tables.sentence_scores(table, **kwargs)


def sentence_scores(
    stats: StatsTable | StatsDataset,
    *,
    metric: str = "bleu",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = True,
    ref_length: str = "closest",
) -> np.ndarray:
    """Sentence scores of every row, in row order: :func:`bleustats.metrics.tables.sentence_scores`, partitioned."""
    opts = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                use_effective_order=use_effective_order, ref_length=ref_length)
    if isinstance(stats, StatsTable):
        return tables.sentence_scores(stats, **opts)
    if check_choice("metric", metric, tables.TABLE_METRICS) not in tables.OTHER_METRICS:
        formula.check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                                   ref_length=ref_length)
    if metric == "delta_bleu":
        _check_delta(stats)
    parts = list(stats.run(_rows_task, batch_fn=_sentence_batch, columns=None, kwargs=opts,
                           max_ngram_order=stats.order_view))
    return np.concatenate(parts) if parts else np.zeros(0)


def _variants_batch(table: StatsTable, **kwargs: Any) -> dict[str, np.ndarray]:
    return sentence.score_variants(table, **kwargs)


def score_variants(
    stats: StatsTable | StatsDataset,
    names: Sequence[str],
    *,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, np.ndarray]:
    """Sentence-level variants of every row: :func:`bleustats.metrics.sentence.score_variants`, partitioned.

    A variant that needs the whole table (a ``background`` vector) takes it
    in ``options``, computed beforehand (e.g. from :func:`column_totals`).
    """
    kw = dict(names=list(names), metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order,
              options=dict(options or {}))
    if isinstance(stats, StatsTable):
        return sentence.score_variants(stats, **kw)
    for n in kw["names"]:
        sentence.get_variant(n)  # unknown names fail before any part runs
    if metric == "delta_bleu":
        _check_delta(stats)
    parts = list(stats.run(_rows_task, batch_fn=_variants_batch, columns=None, kwargs=kw,
                           max_ngram_order=stats.order_view))
    return {n: np.concatenate([p[n] for p in parts]) for n in kw["names"]}
