r"""Scores of statistics tables: corpus BLEU / ΔBLEU (chrF, TER) of any subset or grouping, sentence scores.

One code path for an in-memory :class:`~bleustats.engine.stats.StatsTable`
and a partitioned :class:`~bleustats.engine.dataset.StatsDataset`: scores ask
their statistics only the questions of :mod:`bleustats.engine.protocol`
(exact column totals, optionally by group or over selected rows; row-wise
batches), which a table answers with numpy and a dataset part by part on its
executor (here or on a Dask cluster), merging exact partial sums, so both give
the same numbers bit for bit. No n-gram is recomputed. A corpus score is the
score of the column sums; grouped scores sum per group in one pass; sentence
scores score each row alone; every one of them through the one formula
(:mod:`bleustats.metrics.formula`). A table's
chrF / TER columns are scored by the :class:`~bleustats.metrics.chrf.CHRF` /
:class:`~bleustats.metrics.ter.TER` objects made like them (:func:`table_metric`).

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> st = compute_stats(["the cat sat on the mat", "a dog"], [["the cat is on the mat", "a dog barks"]])
>>> round(corpus_score(st).score, 4)
34.8449
>>> corpus_scores(st, by="seg_id")["score"].round(2).tolist()  # "a dog" has no 3-gram: 0
[37.99, 0.0]
>>> corpus_scores(st, by="seg_id", use_effective_order=True)["score"].round(2).tolist()
[37.99, 60.65]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_choice, describe_ids
from ..engine._options import REF_LENGTHS
from ..engine.protocol import StatsSource, row_index
from ..errors import InputError
from .base import Metric
from .formula import METRICS, bleu_from_sums, check_scoring_options, count_columns, score_from_sums
from .results import BLEUScore, BLEUSignature, bleu_signature, check_coverage, record_coverage

if TYPE_CHECKING:
    import pandas as pd

    from ..engine.stats import StatsTable

__all__ = ["TABLE_METRICS", "corpus_score", "corpus_scores", "n_systems", "sentence_scores"]

#: Metrics of the table's other column groups (``compute_stats(..., metrics=(...))``).
OTHER_METRICS = ("chrf", "chrf++", "ter")
#: Every metric :func:`corpus_score`, :func:`corpus_scores` and :func:`sentence_scores` accept.
TABLE_METRICS = METRICS + OTHER_METRICS


def _bad_weight_segments(batch: StatsTable) -> np.ndarray:
    """seg_ids of a batch's rows whose references all have weight <= 0 (ΔBLEU undefined there)."""
    return batch.column("seg_id")[batch.column("ref_weight_max") <= 0]


def check_delta_defined(stats: StatsSource, rows: np.ndarray | None = None) -> None:
    r"""Raise unless every row (of ``rows``) has a reference of positive weight (ΔBLEU's denominator).

    ΔBLEU divides by :math:`\max_j w_j`; a segment whose references all have
    weight <= 0 has no ΔBLEU, and is named in the error.
    """
    if rows is not None:
        stats = stats.select(np.unique(row_index(len(stats), rows) % max(len(stats), 1)))
    bad = stats.map_batches(_bad_weight_segments, columns=["seg_id", "ref_weight_max"])
    seg = np.unique(np.concatenate(bad)) if bad else np.zeros(0, np.int64)
    if len(seg):
        raise InputError(
            f"delta_bleu: {len(seg)} segment(s) have no reference with a positive weight "
            f"(seg_id {describe_ids(seg)}); ΔBLEU's denominator needs max_j w_j > 0. Give each segment a "
            "positively weighted reference or leave those segments out."
        )


def statistics_matrix(stats: StatsTable, *, metric: str = "bleu", ref_length: str = "closest"
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The per-row inputs of the BLEU formula: ``(correct (n, N), total (n, N), hyp_len, ref_len)``.

    ``metric='delta_bleu'`` gives the weighted ``wmatch`` / ``wtotal`` columns;
    ``ref_length`` picks the reference-length column of the brevity penalty.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c"], [["a b d"]], tokenize="none", max_ngram_order=2)
    >>> correct, total, hyp_len, ref_len = statistics_matrix(st)
    >>> correct.tolist(), total.tolist(), hyp_len.tolist(), ref_len.tolist()
    ([[2, 1]], [[3, 2]], [3], [3])
    """
    check_choice("ref_length", ref_length, REF_LENGTHS)
    nums, dens = count_columns(metric, stats.max_ngram_order)
    correct = np.stack([stats.column(c) for c in nums], axis=-1)
    total = np.stack([stats.column(c) for c in dens], axis=-1)
    return correct, total, stats.column("hyp_len"), stats.column(f"ref_len_{ref_length}")


def score_signature(stats: StatsTable, *, metric: str = "bleu", smooth_method: str = "exp",
                    smooth_value: float | None = None, use_effective_order: bool = False,
                    ref_length: str = "closest") -> BLEUSignature:
    """The :class:`~bleustats.metrics.results.BLEUSignature` of a score computed from ``stats`` with these options.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c"], [["a b d"]], tokenize="none")
    >>> str(score_signature(st, smooth_method="floor"))
    'nrefs:1|case:mixed|eff:no|tok:none|smooth:floor[0.10]|version:...'
    """
    k = check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              ref_length=ref_length)
    return bleu_signature(stats.n_refs_label if len(stats) else "0", tokenize=stats.tokenize,
                          lowercase=stats.lowercase, smooth_method=smooth_method, smooth_value=k,
                          effective_order=use_effective_order, max_ngram_order=stats.max_ngram_order,
                          ref_view=stats.ref_view, weight_threshold=stats.weight_threshold, weights=stats.weights,
                          metric=metric, delta_definition=stats.delta_definition, ref_length=ref_length)


def corpus_score(
    stats: StatsSource,
    *,
    metric: str = "bleu",
    rows: np.ndarray | Sequence[int] | Sequence[bool] | None = None,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
) -> BLEUScore:
    r"""Corpus BLEU or ΔBLEU of all rows, or of a subset, from summed statistics.

    Parameters
    ----------
    stats : StatsTable or StatsDataset
        From :func:`bleustats.compute_stats` or :func:`bleustats.load_stats`; or a partitioned
        dataset (:func:`bleustats.engine.dataset.open_stats`), scored part by part (the same numbers).
    metric : {'bleu', 'delta_bleu'}
        ΔBLEU sums ``wmatch_n`` / ``wtotal_n`` and clamps each order's summed
        numerator at 0.
    rows : boolean mask or index array, optional
        Subset of rows (an index array may repeat rows, as a bootstrap does).
    smooth_method, smooth_value, use_effective_order
        As in :func:`bleu_from_sums` (sacreBLEU semantics).
    ref_length : {'closest', 'shortest', 'average'}
        Reference length used by the brevity penalty.

    Returns
    -------
    BLEUScore
        Or, for ``metric='chrf'`` / ``'chrf++'`` / ``'ter'`` (the table's chrF /
        TER columns; the BLEU options do not apply), a ``CHRFScore`` / ``TERScore``.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["the cat sat on the mat", "a dog"], [["the cat sat on the mat", "the dog"]])
    >>> round(corpus_score(st, rows=[True, False]).score, 10)
    100.0
    """
    if check_choice("metric", metric, TABLE_METRICS) in OTHER_METRICS:
        obj = table_metric_of(stats, metric)  # first: a table without these columns says so
        cols = table_metric_columns(stats, metric)
        _, sums = stats.column_totals(cols, rows=rows)
        return obj._compute_score_from_stats(_other_matrix(sums, cols, metric)[0])
    check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                          ref_length=ref_length)
    rows = None if rows is None else row_index(len(stats), rows)
    if (len(stats) if rows is None else len(rows)) == 0:
        raise InputError(
            "stats: no segments to score (0 rows" + ("" if rows is None else " selected") + "); a corpus score "
            "of nothing is undefined, and sacreBLEU refuses an empty test set too. Give at least one segment.")
    if metric == "delta_bleu":
        check_delta_defined(stats, rows)
    _, correct, total, hyp_len, ref_len = _bleu_totals(stats, metric, ref_length, rows=rows)
    return corpus_score_from_sums(stats, correct[0], total[0], hyp_len[0], ref_len[0], metric=metric,
                                  smooth_method=smooth_method, smooth_value=smooth_value,
                                  use_effective_order=use_effective_order, ref_length=ref_length)


def n_systems(stats: StatsSource) -> int:
    """Number of distinct ``system`` names of any statistics source (a partitioned one asks each part).

    >>> from bleustats.engine.stats import compute_stats
    >>> n_systems(compute_stats(["a", "b"], [["a", "b"]], system="S"))
    1
    """
    return len(stats.systems())


def _bleu_totals(stats: StatsSource, metric: str, ref_length: str, *, by: Any = None, rows: Any = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """BLEU / ΔBLEU counts summed per value of ``by`` (one group, key 0, without it).

    Returns ``(keys, correct, total, hyp_len, ref_len)``: ``correct`` and
    ``total`` are groups × n-gram orders, the lengths one per group.
    """
    nums, dens = count_columns(metric, stats.max_ngram_order)
    len_col = f"ref_len_{ref_length}"
    keys, sums = stats.column_totals([*nums, *dens, "hyp_len", len_col], by=by, rows=rows)
    correct = np.column_stack([sums[c] for c in nums]) if len(keys) else np.zeros((0, len(nums)))
    total = np.column_stack([sums[c] for c in dens]) if len(keys) else np.zeros((0, len(dens)))
    return keys, correct, total, sums["hyp_len"], sums[len_col]


def _other_matrix(sums: dict, cols: Sequence[str], metric: str) -> np.ndarray:
    # the dtype of table_metric's matrix: float64 for TER, int64 for chrF
    return np.column_stack([sums[c] for c in cols]).astype(np.float64 if metric == "ter" else np.int64)


def corpus_score_from_sums(stats: Any, correct: ArrayLike, total: ArrayLike, sys_len: Any, ref_len: Any, *,
                           metric: str = "bleu", smooth_method: str = "exp", smooth_value: float | None = None,
                           use_effective_order: bool = False, ref_length: str = "closest") -> BLEUScore:
    """The :class:`BLEUScore` of summed statistics, labelled with the settings of ``stats``.

    What :func:`corpus_score` returns once it has summed its rows; a
    partitioned table (:class:`bleustats.engine.dataset.StatsDataset`) merges
    its partitions' sums and ends here too. ``stats`` only gives the settings
    and the reference count of the signature. ``correct`` / ``total`` are the
    per-order sums of ``metric``'s numerators and denominators
    (:func:`~bleustats.metrics.formula.score_from_sums`).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c"], [["a b d"]], tokenize="none", max_ngram_order=2)
    >>> corpus_score_from_sums(st, [2, 1], [3, 2], 3, 3).score == corpus_score(st).score
    True
    """
    signature = score_signature(stats, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                                use_effective_order=use_effective_order, ref_length=ref_length)
    return score_from_sums(correct, total, sys_len, ref_len, signature=signature, metric=metric,
                           smooth_method=smooth_method, smooth_value=smooth_value,
                           use_effective_order=use_effective_order, ref_length=ref_length)


def corpus_scores(
    stats: StatsSource,
    *,
    by: str | np.ndarray | Sequence[Any] = "system",
    metric: str = "bleu",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
    allow_partial: bool = False,
) -> pd.DataFrame:
    """Corpus BLEU or ΔBLEU per group, all groups in one vectorized pass.

    Parameters
    ----------
    stats : StatsTable or StatsDataset
        Any source of statistics (:mod:`bleustats.engine.protocol`); a dataset groups by a column.
    by : str or array_like
        A column of ``stats`` (default ``'system'``) or one label per row
        (e.g. document ids).
    metric, smooth_method, smooth_value, use_effective_order, ref_length
        As in :func:`corpus_score` (``'chrf'``, ``'chrf++'``, ``'ter'`` included).
    allow_partial : bool
        With ``by='system'``, systems that cover different segments are
        refused (:func:`bleustats.metrics.results.check_coverage`: the error names each
        system and how many segments it lacks); ``True`` scores each on the
        segments it has and records the coverage (a ``segments`` column,
        ``attrs['coverage']``, ``coverage:partial`` in the signature).

    Returns
    -------
    pandas.DataFrame
        One row per group (sorted by label): ``score``, ``bp``, ``sys_len``,
        ``ref_len``, ``precision_1..N``, the summed numerators and totals
        (chrF / TER: ``score`` and the summed statistics columns).

    Raises
    ------
    InputError
        Systems covering different segments, unless ``allow_partial``.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 0], "system": ["A", "B"], "text": ["a b c d e", "a x c d e"]})
    >>> refs = pd.DataFrame({"seg_id": [0], "text": ["a b c d e"]})
    >>> corpus_scores(compute_stats(hyps, refs), by="system")["score"].round(2).tolist()
    [100.0, 42.73]
    """
    if check_choice("metric", metric, TABLE_METRICS) not in OTHER_METRICS:
        check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              ref_length=ref_length)
    if metric == "delta_bleu":
        check_delta_defined(stats)
    coverage = None
    if isinstance(by, str) and by == "system":
        coverage = check_coverage(stats, allow_partial=allow_partial)
    name = by if isinstance(by, str) else "group"
    if metric in OTHER_METRICS:
        obj = table_metric_of(stats, metric)  # first: a table without these columns says so
        cols = table_metric_columns(stats, metric)
        keys, sums = stats.column_totals(cols, by=by)
        frame = other_group_scores(obj, cols, name, keys, _other_matrix(sums, cols, metric))
    else:
        keys, correct, total, hyp_len, ref_len = _bleu_totals(stats, metric, ref_length, by=by)
        frame = group_scores_from_sums(stats, name, keys, correct, total, hyp_len, ref_len,
                                       metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                                       use_effective_order=use_effective_order, ref_length=ref_length)
    if coverage is not None and not coverage.complete:
        record_coverage(frame, coverage, name)
    return frame


def group_scores_from_sums(stats: Any, name: str, keys: np.ndarray, correct: np.ndarray, total: np.ndarray,
                           sys_len: np.ndarray, ref_len: np.ndarray, *, metric: str = "bleu",
                           smooth_method: str = "exp", smooth_value: float | None = None,
                           use_effective_order: bool = False, ref_length: str = "closest") -> pd.DataFrame:
    """The frame of :func:`corpus_scores` from per-group sums (one row per key, in the order given).

    ``correct`` / ``total`` have shape (groups, N); ``stats`` gives the
    settings and the signature (as in :func:`corpus_score_from_sums`).
    """
    c_sum, t_sum = correct, total
    raw_c = c_sum
    if metric == "delta_bleu":
        c_sum = np.maximum(c_sum, 0.0)
    out = bleu_from_sums(c_sum, t_sum, sys_len, ref_len, smooth_method=smooth_method,
                         smooth_value=smooth_value, use_effective_order=use_effective_order)
    frame = {name: keys, "score": out["score"], "bp": out["bp"], "sys_len": sys_len, "ref_len": ref_len}
    n = stats.max_ngram_order
    for i in range(n):
        frame[f"precision_{i + 1}"] = out["precisions"][:, i]
    nums, dens = count_columns(metric, n)
    frame.update({c: raw_c[:, i] for i, c in enumerate(nums)})
    frame.update({c: t_sum[:, i] for i, c in enumerate(dens)})
    import pandas as pd  # only needed here; keeps `import bleustats` light

    df = pd.DataFrame(frame)
    df.attrs["signature"] = str(score_signature(stats, metric=metric, smooth_method=smooth_method,
                                                smooth_value=smooth_value, use_effective_order=use_effective_order,
                                                ref_length=ref_length))
    return df


def sentence_scores(
    stats: StatsSource,
    *,
    metric: str = "bleu",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = True,
    ref_length: str = "closest",
) -> np.ndarray:
    """Sentence-level BLEU or ΔBLEU of every row (0–100), vectorized.

    Same formula as :func:`corpus_score` applied to each row alone; the
    defaults are those of ``sacrebleu.sentence_bleu`` (``exp`` smoothing,
    effective order). ΔBLEU clamps each row's numerators at 0. ``'chrf'`` /
    ``'chrf++'`` / ``'ter'`` give sentence chrF / TER from the table's columns.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["the cat sat", "a dog"], [["the cat sat", "the dog"]])
    >>> sentence_scores(st).round(2).tolist()  # "a dog": p1 = 1/2, p2 = 1/(2*1) by exp smoothing
    [100.0, 50.0]
    """
    if check_choice("metric", metric, TABLE_METRICS) not in OTHER_METRICS:
        check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              ref_length=ref_length)
    if metric == "delta_bleu":
        check_delta_defined(stats)
    parts = stats.map_batches(_sentence_batch, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              use_effective_order=use_effective_order, ref_length=ref_length)
    return np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.zeros(0)


def _sentence_batch(batch: StatsTable, *, metric: str, smooth_method: str, smooth_value: float | None,
                    use_effective_order: bool, ref_length: str) -> np.ndarray:
    """The sentence scores of one batch of rows (options already checked)."""
    if metric in OTHER_METRICS:
        obj, mat = table_metric(batch, metric)
        return np.asarray(obj.scores_from_sums(mat), dtype=np.float64)
    correct, total, hyp_len, ref_len = statistics_matrix(batch, metric=metric, ref_length=ref_length)
    if metric == "delta_bleu":
        correct = np.maximum(correct, 0.0)
    return bleu_from_sums(correct, total, hyp_len, ref_len, smooth_method=smooth_method,
                          smooth_value=smooth_value, use_effective_order=use_effective_order)["score"]


def table_metric(stats: StatsTable, metric: str) -> tuple[Metric, np.ndarray]:
    """The chrF / TER object made like a table's columns, and their per-row statistics matrix."""
    if metric == "ter":
        from .ter import ter_table

        return ter_table(stats)
    from .chrf import chrf_table

    return chrf_table(stats, metric)


def table_metric_of(stats: StatsSource, metric: str) -> Metric:
    """The chrF / TER object made like the columns of ``stats`` (in memory or partitioned), without its rows."""
    obj, _ = table_metric(stats.settings, metric)
    values = stats.n_refs_values
    obj.num_refs = values[0] if len(values) == 1 else -1
    return obj


def table_metric_columns(stats: Any, metric: str) -> list[str]:
    """The statistics columns of chrF / TER (those :func:`table_metric`'s matrix holds, in order)."""
    if metric == "ter":
        return ["ter_num_edits", "ter_ref_length"]
    from ..engine.chrf_stats import chrf_column_names

    opts = stats.chrf_options or {}
    return chrf_column_names(opts.get("char_order", 0), opts.get("word_order", 0))


def other_group_scores(obj: Metric, columns: Sequence[str], name: str, keys: np.ndarray, sums: np.ndarray
                       ) -> pd.DataFrame:
    """The frame of :func:`corpus_scores` for chrF / TER: ``obj`` (:func:`table_metric`) of per-group sums."""
    import pandas as pd

    frame: dict[str, Any] = {name: keys, "score": obj.scores_from_sums(sums)}
    for i, c in enumerate(columns):
        frame[c] = sums[:, i]
    df = pd.DataFrame(frame)
    df.attrs["signature"] = str(obj.get_signature())
    return df
