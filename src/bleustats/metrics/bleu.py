r"""Scores from statistics: corpus BLEU / ΔBLEU of any subset or grouping, sentence scores.

Plain numpy over a :class:`~bleustats.engine.stats.StatsTable`; no n-gram is
recomputed. A corpus score is the score of the column sums; grouped scores sum
per group in one pass; sentence scores apply the same formula row by row.

BLEU (Papineni et al., 2002) from summed statistics, with :math:`c` the
hypothesis length, :math:`r` the reference length and :math:`p_n` the smoothed
precisions:

.. math::

    \mathrm{BLEU} = 100 \cdot \mathrm{BP} \cdot
        \exp\Big(\frac{1}{N'} \sum_{n=1}^{N'} \log p_n\Big),
    \qquad \mathrm{BP} = \begin{cases} 1 & c \ge r \\ e^{1 - r/c} & 0 < c < r \\ 0 & c = 0 \end{cases}

with sacreBLEU's exact semantics: no matches at all gives 0; orders from the
first with :math:`\mathrm{total}_n = 0` on count as precision 0 (log floored at
:math:`-9999999999`); ``use_effective_order`` sets :math:`N'` to the last order
with a non-zero total; smoothing ``none``, ``floor`` (zero precisions become
:math:`k/\mathrm{total}_n`, k = 0.1), ``add-k`` (k = 1 added to matches and
totals for n ≥ 2) and ``exp`` (the i-th zero precision becomes
:math:`1/(2^i\,\mathrm{total}_n)`; the default).

ΔBLEU (Galley et al., 2015) uses the weighted ``wmatch_n`` / ``wtotal_n`` in
place of ``match_n`` / ``total_n``; a negative summed numerator of an order is
clamped to 0 before smoothing (as the first author's implementation does).

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

import os
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_choice, describe_ids
from ..engine import small
from ..engine.options import REF_LENGTHS, SMOOTH_DEFAULTS, SMOOTH_METHODS, check_options
from ..engine.sums import column_sums, group_sums
from ..errors import InputError
from ..tokenizers import SACREBLEU_TOKENIZERS, get_tokenizer, tokenizer_class
from .base import Metric
from .helpers import extract_all_word_ngrams
from .formula import (_PREFIXES, METRICS, _num, bleu_from_sums, bleu_scores, check_scoring_options, count_columns,
                      score_from_sums)
from .plain import plain_corpus_score, plain_matrix, plain_segments, text_bytes
from .results import (MAX_NGRAM_ORDER, BLEUScore, BLEUSignature, bleu_signature, check_coverage,
                      record_coverage)

if TYPE_CHECKING:  # the statistics pipeline is imported where it runs: a sentence needs none of it
    import pandas as pd

    from ..engine.references import ReferenceSet
    from ..engine.stats import StatsTable

__all__ = [
    "BLEU",
    "BLEUScore",
    "BLEUSignature",
    "MAX_NGRAM_ORDER",
    "METRICS",
    "REF_LENGTHS",
    "SMOOTH_DEFAULTS",
    "SMOOTH_METHODS",
    "OTHER_METRICS",
    "TABLE_METRICS",
    "bleu_from_sums",
    "bleu_scores",
    "check_delta_defined",
    "check_scoring_options",
    "corpus_bleu",
    "corpus_bleu_files",
    "corpus_score",
    "corpus_score_from_sums",
    "corpus_scores",
    "count_columns",
    "group_scores_from_sums",
    "other_group_scores",
    "raw_corpus_bleu",
    "score_signature",
    "sentence_bleu",
    "sentence_scores",
    "statistics_matrix",
    "table_metric",
    "table_metric_columns",
]

#: Metrics of the table's other column groups (``compute_stats(..., metrics=(...))``).
OTHER_METRICS = ("chrf", "chrf++", "ter")
#: Every metric :func:`corpus_score`, :func:`corpus_scores` and :func:`sentence_scores` accept.
TABLE_METRICS = METRICS + OTHER_METRICS


def check_delta_defined(stats: StatsTable, rows: np.ndarray | None = None) -> None:
    r"""Raise unless every row (of ``rows``) has a reference of positive weight (ΔBLEU's denominator).

    ΔBLEU divides by :math:`\max_j w_j`; a segment whose references all have
    weight <= 0 has no ΔBLEU, and is named in the error.
    """
    wmax = stats.column("ref_weight_max")
    bad = wmax <= 0 if rows is None else np.zeros(len(wmax), bool)
    if rows is not None:
        bad[rows] = wmax[rows] <= 0
    if bad.any():
        seg = np.unique(stats.column("seg_id")[bad])
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


def _rows(stats: StatsTable, rows: Any) -> np.ndarray | None:
    if rows is None:
        return None
    rows = np.asarray(rows)
    if rows.size == 0 and rows.dtype != bool:
        return np.zeros(0, np.int64)
    if rows.dtype == bool:
        if rows.shape != (len(stats),):
            raise InputError(f"rows: a boolean mask needs {len(stats)} entries (one per row); got shape {rows.shape}.")
        return np.flatnonzero(rows)
    if not np.issubdtype(rows.dtype, np.integer):
        raise InputError(f"rows must be a boolean mask or an integer index array; got dtype {rows.dtype}.")
    if rows.size and (rows.min() < -len(stats) or rows.max() >= len(stats)):
        raise InputError(
            f"rows: indices must be in [-{len(stats)}, {len(stats)}) (negative counts from the end); "
            f"got min {rows.min()}, max {rows.max()}.")
    return rows


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
    stats: StatsTable,
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
    stats : StatsTable
        From :func:`bleustats.compute_stats` or :func:`bleustats.load_stats`.
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
        obj, mat = table_metric(stats, metric)
        rows = _rows(stats, rows)
        return obj._compute_score_from_stats(column_sums(mat if rows is None else mat[rows]))
    check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                          ref_length=ref_length)
    rows = _rows(stats, rows)
    if (len(stats) if rows is None else len(rows)) == 0:
        raise InputError(
            "stats: no segments to score (0 rows" + ("" if rows is None else " selected") + "); a corpus score "
            "of nothing is undefined, and sacreBLEU refuses an empty test set too. Give at least one segment.")
    if metric == "delta_bleu":
        check_delta_defined(stats, rows)
    correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=metric, ref_length=ref_length)
    if rows is not None:
        correct, total, hyp_len, ref_len = correct[rows], total[rows], hyp_len[rows], ref_len[rows]
    return corpus_score_from_sums(stats, column_sums(correct), column_sums(total), column_sums(hyp_len),
                                  column_sums(ref_len), metric=metric, smooth_method=smooth_method,
                                  smooth_value=smooth_value, use_effective_order=use_effective_order,
                                  ref_length=ref_length)


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
    stats: StatsTable,
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
    stats : StatsTable
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
    if isinstance(by, str):
        if by not in stats.table.column_names:
            raise InputError(
                f"by must be a column of the statistics table ({', '.join(stats.table.column_names)}) "
                f"or one label per row; got {by!r}.")
        labels = stats.column(by)
        name = by
    else:
        labels = np.asarray(by)
        name = "group"
        if labels.shape != (len(stats),):
            raise InputError(f"by: need one label per row ({len(stats)}); got shape {labels.shape}.")
    keys, inv = np.unique(labels, return_inverse=True)
    g = len(keys)

    order = np.argsort(inv, kind="stable")
    starts = np.searchsorted(inv[order], np.arange(g))

    def gsum(x: np.ndarray) -> np.ndarray:
        # integer sums exact in int64, float sums exact and rounded once (bleustats.engine.sums)
        return group_sums(x, order, starts)

    if metric in OTHER_METRICS:
        obj, mat = table_metric(stats, metric)
        frame = other_group_scores(obj, table_metric_columns(stats, metric), name, keys, gsum(mat))
    else:
        correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=metric, ref_length=ref_length)
        frame = group_scores_from_sums(stats, name, keys, gsum(correct), gsum(total), gsum(hyp_len), gsum(ref_len),
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
    num, den = _PREFIXES[metric]
    raw_c = c_sum
    if metric == "delta_bleu":
        c_sum = np.maximum(c_sum, 0.0)
    out = bleu_from_sums(c_sum, t_sum, sys_len, ref_len, smooth_method=smooth_method,
                         smooth_value=smooth_value, use_effective_order=use_effective_order)
    frame = {name: keys, "score": out["score"], "bp": out["bp"], "sys_len": sys_len, "ref_len": ref_len}
    for i in range(stats.max_ngram_order):
        frame[f"precision_{i + 1}"] = out["precisions"][:, i]
    for i in range(stats.max_ngram_order):
        frame[f"{num}_{i + 1}"] = raw_c[:, i]
    for i in range(stats.max_ngram_order):
        frame[f"{den}_{i + 1}"] = t_sum[:, i]
    import pandas as pd  # only needed here; keeps `import bleustats` light

    df = pd.DataFrame(frame)
    df.attrs["signature"] = str(score_signature(stats, metric=metric, smooth_method=smooth_method,
                                                smooth_value=smooth_value, use_effective_order=use_effective_order,
                                                ref_length=ref_length))
    return df


def sentence_scores(
    stats: StatsTable,
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
    if check_choice("metric", metric, TABLE_METRICS) in OTHER_METRICS:
        obj, mat = table_metric(stats, metric)
        return np.asarray(obj.scores_from_sums(mat), dtype=np.float64)
    check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                          ref_length=ref_length)
    if metric == "delta_bleu":
        check_delta_defined(stats)
    correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=metric, ref_length=ref_length)
    if metric == "delta_bleu":
        correct = np.maximum(correct, 0.0)
    return bleu_from_sums(correct, total, hyp_len, ref_len, smooth_method=smooth_method,
                          smooth_value=smooth_value, use_effective_order=use_effective_order)["score"]


# --------------------------------------------------------------------------- a few segments, counted in Python


def _plain_corpus_bleu(hypotheses: Any, references: Any, ref_weights: Any, layout: str, options: dict[str, Any],
                       scoring: dict[str, Any]) -> BLEUScore | None:
    """:func:`corpus_bleu` without the pipeline, for small list inputs; ``None``: take the pipeline.

    ``None`` also for every input the pipeline rejects (wrong types or shapes,
    a segment without a reference in the view, ΔBLEU without a positive weight),
    so that errors are raised, with their messages, in one place.
    """
    check_options(options["tokenize"], options["max_ngram_order"], options["ref_view"], options["weight_threshold"],
                  options["delta_definition"])
    if not isinstance(hypotheses, (list, tuple)) or not all(type(h) is str for h in hypotheses) or not hypotheses:
        return None
    segments = small.plain_references(references, ref_weights, n_hyp=len(hypotheses), layout=layout)
    if segments is None:
        return None
    uniform = all(w == 1.0 for seg in segments for _, w in seg)
    segments = small.view_references(segments, options["ref_view"], options["weight_threshold"])
    n_chars = sum(map(len, hypotheses)) + sum(len(text) for seg in segments for text, _ in seg)
    if not all(segments) or not small.prefer_plain(n_chars, kernels_loaded=small.kernels_loaded()):
        return None
    metric = scoring["metric"]
    if metric is None:
        metric = "delta_bleu" if ref_weights is not None or not uniform else "bleu"
    elif metric not in METRICS:
        return None  # chrF / TER, or not a metric: the pipeline's corpus_score answers
    smooth_method, ref_length = scoring["smooth_method"], scoring["ref_length"]
    k = check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=scoring["smooth_value"],
                              ref_length=ref_length)
    rows = small.segment_statistics(hypotheses, range(len(hypotheses)), segments, tokenize=options["tokenize"],
                                    lowercase=options["lowercase"], max_ngram_order=options["max_ngram_order"],
                                    delta_definition=options["delta_definition"])
    delta = metric == "delta_bleu"
    if delta and any(row[5] <= 0 for row in rows):
        return None  # ΔBLEU is not defined there: the pipeline names the segments
    return plain_corpus_score(rows, metric=metric, k=k, smooth_method=smooth_method,
                              use_effective_order=scoring["use_effective_order"], ref_length=ref_length,
                              options=options, uniform=uniform)


def table_metric(stats: StatsTable, metric: str) -> tuple[Metric, np.ndarray]:
    """The chrF / TER object made like a table's columns, and their per-row statistics matrix."""
    if metric == "ter":
        from .ter import ter_table

        return ter_table(stats)
    from .chrf import chrf_table

    return chrf_table(stats, metric)


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


# --------------------------------------------------------------------------- sacreBLEU's functions


def _metric(metric: str | None, ref_weights: Any, stats: Any) -> str:
    """Default metric: ΔBLEU when weights were given (ref_weights or (text, weight) items)."""
    if metric is None:
        return "delta_bleu" if ref_weights is not None or stats.weights == "custom" else "bleu"
    return metric


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = False,
    *,
    max_ngram_order: int = 4,
    ref_weights: Sequence[Sequence[float]] | None = None,
    metric: str | None = None,
    ref_view: str = "all",
    weight_threshold: float | None = None,
    delta_definition: str = "paper",
    ref_length: str = "closest",
    references_layout: str = "auto",
) -> BLEUScore:
    r"""Corpus BLEU (or ΔBLEU) of hypotheses against one or more references.

    .. math::

        \mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\frac{1}{N}\sum_{n=1}^{N} \log p_n\Big),
        \quad p_n = \frac{\sum_s \mathrm{match}_n(s)}{\sum_s \mathrm{total}_n(s)},
        \quad \mathrm{BP} = \min\big(1, e^{1 - r/c}\big)

    ΔBLEU (Galley et al., 2015) replaces the counts with their weighted
    versions (see :func:`bleustats.compute_stats`).

    Parameters
    ----------
    hypotheses : list of str
        One hypothesis per segment.
    references : list of lists of str
        sacreBLEU-style reference streams (``None`` for a missing reference),
        or one list of references per segment (``references_layout``).
    smooth_method, smooth_value, force, lowercase, tokenize, use_effective_order
        As in ``sacrebleu.corpus_bleu`` (``force`` is accepted and ignored: no
        tokenized-input warning is printed).
    max_ngram_order : int
        Largest n-gram order (default 4).
    ref_weights : list of lists of float, optional
        Human weights in [-1, 1], same shape as ``references``.
    metric : {'bleu', 'delta_bleu'}, optional
        Default: ``'delta_bleu'`` when weights are given (``ref_weights``, or
        ``(text, weight)`` items), else ``'bleu'``.
    ref_view, weight_threshold, delta_definition, references_layout
        See :func:`bleustats.compute_stats`.
    ref_length : {'closest', 'shortest', 'average'}
        Reference length of the brevity penalty.

    Returns
    -------
    BLEUScore

    Notes
    -----
    A small input (see :func:`bleustats.engine.small.prefer_plain`) is counted
    in plain Python (:mod:`bleustats.engine.small`): the same statistics as
    the numba pipeline's, scored by the same formula, so the same result to
    the bit (``tests/metrics/test_plain.py``).
    """
    options = dict(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order, ref_view=ref_view,
                   weight_threshold=weight_threshold, delta_definition=delta_definition)
    scoring = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                   use_effective_order=use_effective_order, ref_length=ref_length)
    fast = _plain_corpus_bleu(hypotheses, references, ref_weights, references_layout, options, scoring)
    if fast is not None:
        return fast
    from ..engine.stats import compute_stats

    stats = compute_stats(hypotheses, references, ref_weights=ref_weights, references_layout=references_layout,
                          **options)
    return corpus_score(
        stats, metric=_metric(metric, ref_weights, stats), smooth_method=smooth_method,
        smooth_value=smooth_value, use_effective_order=use_effective_order, ref_length=ref_length,
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = True,
    *,
    max_ngram_order: int = 4,
    ref_weights: Sequence[float] | None = None,
    metric: str | None = None,
    ref_view: str = "all",
    weight_threshold: float | None = None,
    delta_definition: str = "paper",
    ref_length: str = "closest",
) -> BLEUScore:
    """Sentence BLEU (or ΔBLEU) of one hypothesis against its references.

    Same arguments and defaults as ``sacrebleu.sentence_bleu`` (effective
    order on); ``ref_weights`` is one weight per reference.

    Examples
    --------
    >>> round(sentence_bleu("the cat sat on the mat", ["the cat is on the mat"]).score, 4)
    37.9918
    >>> sentence_bleu("a a", ["a", "a a"], ref_weights=[1.0, -0.5], tokenize="none",
    ...               max_ngram_order=1).counts
    [1.0]
    """
    if not isinstance(hypothesis, str):
        raise InputError(f"hypothesis must be a str; got {type(hypothesis).__name__}. "
                            "For many hypotheses use corpus_bleu or sentence_scores.")
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputError(f"references must be a list of str (the hypothesis' references); got "
                            f"{type(references).__name__}.")
    refs = [list(references)]
    weights = None if ref_weights is None else [list(ref_weights)]
    options = dict(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order, ref_view=ref_view,
                   weight_threshold=weight_threshold, delta_definition=delta_definition)
    fast = _plain_corpus_bleu([hypothesis], refs, weights, "segments", options, dict(
        metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
        use_effective_order=use_effective_order, ref_length=ref_length))
    if fast is not None:
        return fast
    from ..engine.stats import compute_stats

    stats = compute_stats([hypothesis], refs, ref_weights=weights, references_layout="segments", **options)
    return corpus_score(
        stats, metric=_metric(metric, ref_weights, stats), smooth_method=smooth_method,
        smooth_value=smooth_value, use_effective_order=use_effective_order, ref_length=ref_length,
    )


def corpus_bleu_files(
    hypotheses_path: str | os.PathLike,
    reference_paths: Sequence[str | os.PathLike],
    *,
    ref_weight_paths: Sequence[str | os.PathLike] | None = None,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenize: str = "13a",
    use_effective_order: bool = False,
    max_ngram_order: int = 4,
    metric: str | None = None,
    ref_view: str = "all",
    weight_threshold: float | None = None,
    delta_definition: str = "paper",
    ref_length: str = "closest",
) -> BLEUScore:
    """Corpus BLEU of plain-text files (one segment per line), as the ``sacrebleu`` command reads them.

    The files are streamed in chunks of lines (:func:`bleustats.compute_stats_files`),
    so memory stays bounded. ``ref_weight_paths`` gives one file of weights per
    reference file (one number per line). The result's ``stats`` carries the
    per-stage timings under ``"timings"``.
    """
    from ..engine.stats import compute_stats_files

    stats = compute_stats_files(
        hypotheses_path, reference_paths, ref_weight_paths=ref_weight_paths, tokenize=tokenize,
        lowercase=lowercase, max_ngram_order=max_ngram_order, ref_view=ref_view,
        weight_threshold=weight_threshold, delta_definition=delta_definition,
    )
    result = corpus_score(
        stats, metric=_metric(metric, ref_weight_paths, stats), smooth_method=smooth_method,
        smooth_value=smooth_value, use_effective_order=use_effective_order, ref_length=ref_length,
    )
    result.stats["timings"] = stats.timings
    return result


def raw_corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                    smooth_value: float | None = SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """sacreBLEU's ``raw_corpus_bleu``: no tokenization, ``floor`` smoothing, effective order.

    Examples
    --------
    >>> round(raw_corpus_bleu(["this is a fest"], [["this is a test"]], 0.01).score / 100, 12)
    0.22360679775
    """
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


# --------------------------------------------------------------------------- sacreBLEU's BLEU object



#: sacreBLEU's ``sacrebleu.metrics.bleu._get_tokenizer``: tokenizer name -> its class
_get_tokenizer = tokenizer_class
# target language -> tokenizer, when none is named (sacreBLEU's _TOKENIZER_MAP)
_LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


class BLEU(Metric):
    r"""sacreBLEU's ``BLEU`` metric object over bleustats' statistics engine.

    Same constructor arguments and defaults as ``sacrebleu.metrics.BLEU``
    (2.6), same results; ``references=`` are validated and tokenized once
    (a :class:`~bleustats.engine.references.ReferenceSet`) and reused by every
    ``corpus_score(hyps, None)``, so scoring many systems tokenizes the
    references once. The statistics of a call come from
    :func:`~bleustats.engine.stats.compute_stats` (numba kernels), as one
    matrix ``[hyp_len, ref_len, correct_1..N, total_1..N]`` per hypothesis.

    Parameters
    ----------
    lowercase, force, tokenize, smooth_method, smooth_value, max_ngram_order, effective_order, trg_lang, references
        As in sacreBLEU. ``force`` only silences sacreBLEU's tokenized-input
        warning, which bleustats does not print. ``tokenize=None`` picks ``zh``,
        ``ja-mecab`` or ``ko-mecab`` for those ``trg_lang`` and ``13a`` otherwise.
    ref_weights : list of lists of float, optional
        ΔBLEU weights of ``references`` (bleustats).
    metric : {'bleu', 'delta_bleu'}
        ``'delta_bleu'`` scores ΔBLEU (Galley et al., 2015) from the weights.
    ref_view, weight_threshold, delta_definition, ref_length
        As in :func:`bleustats.compute_stats` and :func:`bleustats.corpus_score`.

    Examples
    --------
    >>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    >>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
    >>> bleu = BLEU(references=refs)
    >>> print(bleu.corpus_score(hyps))
    BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
    >>> print(bleu.get_signature())
    nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...
    >>> BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score
    83.75922397...
    """

    SMOOTH_DEFAULTS = SMOOTH_DEFAULTS
    TOKENIZERS = SACREBLEU_TOKENIZERS
    TOKENIZER_DEFAULT = "13a"

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value: float | None = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, trg_lang: str = "",
                 references: Sequence[Sequence[str]] | None = None, *,
                 ref_weights: Sequence[Sequence[float]] | None = None, metric: str = "bleu",
                 ref_view: str = "all", weight_threshold: float | None = None, delta_definition: str = "paper",
                 ref_length: str = "closest") -> None:
        super().__init__()
        check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              ref_length=ref_length)
        self._force = force
        self.trg_lang = trg_lang
        self.lowercase = lowercase
        self.smooth_value = smooth_value
        self.smooth_method = smooth_method
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        self.metric = metric
        self.ref_view, self.weight_threshold = ref_view, weight_threshold
        self.delta_definition, self.ref_length = delta_definition, ref_length
        if tokenize is None:
            tokenize = _LANGUAGE_TOKENIZERS.get(trg_lang, self.TOKENIZER_DEFAULT)
        self.tokenize = tokenize
        self.tokenizer = get_tokenizer(tokenize)  # a clear error for a missing extra, here and not later
        self.tokenizer_signature = self.tokenizer.signature()
        # the statistics options, checked now (compute_stats checks them again per call)
        check_options("none", max_ngram_order, ref_view, weight_threshold, delta_definition)
        self._weights = "uniform"  # the last references' weights ('custom' unless all 1), for ΔBLEU's signature
        if references is not None:
            from ..engine.references import ReferenceSet

            given = isinstance(references, ReferenceSet) and ref_weights is None  # e.g. layout='segments'
            self._ref_cache = self._reference_set(references if given else ReferenceSet(references, ref_weights))
            if metric == "delta_bleu":  # the weights are signed for ΔBLEU only
                from ..engine.columns import to_numpy

                uniform = (to_numpy(self._ref_cache.table.column("weight")) == 1.0).all()
                self._weights = "uniform" if uniform else "custom"
        elif ref_weights is not None:
            raise InputError("ref_weights: give them with references= (the weights of those references).")

    def _preprocess_segment(self, sent: str) -> str:
        """``sent`` lowercased (if ``lowercase``) and tokenized, trailing whitespace dropped (sacreBLEU's method).

        >>> BLEU(lowercase=True)._preprocess_segment("Hello, World! ")
        'hello , world !'
        """
        return self.tokenizer((sent.lower() if self.lowercase else sent).rstrip())

    def _extract_reference_info(self, refs: Sequence[str]) -> dict[str, Any]:
        """``{'ref_ngrams': Counter, 'ref_lens': [int]}`` of one segment's preprocessed references.

        The counter holds each n-gram (order 1..``max_ngram_order``, word
        tuples) with its largest count over the references, the clip of
        BLEU's modified precision; ``ref_lens`` the references' word counts.
        """
        grams: Counter | None = None  # None for a segment without references, as in sacreBLEU
        lens = []
        for ref in refs:
            counts, n_words = extract_all_word_ngrams(ref, 1, self.max_ngram_order)
            lens.append(n_words)
            grams = counts if grams is None else grams | counts  # Counter union: the larger count of each
        return {"ref_ngrams": grams, "ref_lens": lens}

    def _prepare(self, refs: ReferenceSet) -> None:
        if text_bytes(refs) <= small.COLD_MAX_CHARS:
            return  # small enough for the plain path; the kernels' path tokenizes (once) if it ever runs
        from ..engine.stats import reference_tokens

        reference_tokens(refs, self.tokenize, self.lowercase)  # tokenized once, kept in refs' cache

    # -- a few segments: counted in plain Python (bleustats.engine.small), the kernels' rows to the bit --

    def _plain_matrix(self, hypotheses: list, segments: list | None) -> np.ndarray | None:
        """:meth:`_statistics` of a few segments without the kernels (:func:`~.plain.plain_matrix`), or ``None``."""
        return plain_matrix(hypotheses, segments, tokenize=self.tokenize, lowercase=self.lowercase,
                            max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                            weight_threshold=self.weight_threshold, delta_definition=self.delta_definition,
                            delta=self.metric == "delta_bleu", ref_length=self.ref_length)

    def _plain_corpus(self, hypotheses: Sequence[str], references: Any) -> np.ndarray | None:
        """The statistics matrix of a few segments on the plain path (and ``num_refs`` set), or ``None``."""
        hyps = list(hypotheses)
        plain = plain_segments(references, self._ref_cache, len(hyps))
        mat = None if plain is None else self._plain_matrix(hyps, plain[0])
        if mat is not None:
            self.num_refs = plain[1]
            self._weights = "uniform" if all(w == 1.0 for seg in plain[0] for _, w in seg) else "custom"
        return mat

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> NDArray[Any]:
        mat = self._plain_corpus(hypotheses, references)
        return super()._extract_corpus_statistics(hypotheses, references) if mat is None else mat

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references (sacreBLEU recommends ``effective_order=True``)."""
        self._check_sentence_score_args(hypothesis, references)
        mat = self._plain_matrix([hypothesis], [[(r, 1.0) for r in references if r is not None]])
        if mat is None:
            return super().sentence_score(hypothesis, references)
        self.num_refs = sum(r is not None for r in references)
        self._weights = "uniform"
        return self._aggregate_and_compute(mat)

    def _corpus_score(self, hypotheses: Sequence[str], references: Any, n_bootstrap: Any) -> BLEUScore:
        mat = self._plain_corpus(hypotheses, references) if type(n_bootstrap) is int and n_bootstrap == 1 else None
        if mat is None:
            return super()._corpus_score(hypotheses, references, n_bootstrap)
        return self._aggregate_and_compute(mat)

    def _statistics(self, hypotheses: Sequence[str], refs: ReferenceSet) -> np.ndarray:
        from ..engine.stats import compute_stats

        stats = compute_stats(list(hypotheses), refs, tokenize=self.tokenize, lowercase=self.lowercase,
                              max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                              weight_threshold=self.weight_threshold, delta_definition=self.delta_definition)
        if self.metric == "delta_bleu":
            check_delta_defined(stats)
        self._weights = stats.weights
        correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=self.metric, ref_length=self.ref_length)
        return np.column_stack([hyp_len, ref_len, correct, total])

    def _split(self, sums: np.ndarray) -> tuple[np.ndarray, ...]:
        n = self.max_ngram_order
        correct = sums[..., 2:2 + n]
        if self.metric == "delta_bleu":
            correct = np.maximum(correct, 0)
        return correct, sums[..., 2 + n:2 + 2 * n], sums[..., 0], sums[..., 1]

    def _compute_score_from_stats(self, stats: ArrayLike) -> BLEUScore:
        """The BLEU of one row of summed statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]``."""
        sums = np.asarray(stats)
        correct, total, sys_len, ref_len = self._split(sums)
        score = self.compute_bleu(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                                  smooth_value=self.smooth_value, effective_order=self.effective_order,
                                  max_ngram_order=self.max_ngram_order)
        return replace(score, name="ΔBLEU" if self.metric == "delta_bleu" else "BLEU",
                       signature=self.get_signature())

    def scores_from_sums(self, sums: ArrayLike, *, float32: bool = False) -> np.ndarray:
        """BLEU of every row of summed statistics (``float32=True``: sacreBLEU's bootstrap rounding)."""
        correct, total, sys_len, ref_len = self._split(np.asarray(sums, dtype=np.float64))
        return bleu_scores(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                           smooth_value=self.smooth_value, use_effective_order=self.effective_order,
                           float32=float32)

    def get_signature(self) -> BLEUSignature:
        """sacreBLEU's BLEU signature (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:...``).

        The same line as :func:`corpus_bleu` and a table's scores sign for the same options
        (:func:`~bleustats.metrics.results.bleu_signature`).
        """
        if getattr(self, "num_refs", None) is None:
            raise ValueError("BLEU: the number of references is unknown; score something (or pass references= "
                             "to the constructor) before get_signature().")
        k = check_scoring_options(smooth_method=self.smooth_method, smooth_value=self.smooth_value)
        return bleu_signature(self.num_refs, tokenize=self.tokenizer_signature, lowercase=self.lowercase,
                              smooth_method=self.smooth_method, smooth_value=k, effective_order=self.effective_order,
                              max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                              weight_threshold=self.weight_threshold, weights=self._weights, metric=self.metric,
                              delta_definition=self.delta_definition, ref_length=self.ref_length,
                              n_bootstrap=self.n_bootstrap, seed=self.seed)

    @staticmethod
    def compute_bleu(correct: Sequence[float], total: Sequence[float], sys_len: float, ref_len: float,
                     smooth_method: str = "none", smooth_value: float | None = None,
                     effective_order: bool = False, max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """BLEU from its sufficient statistics, as sacreBLEU's ``BLEU.compute_bleu`` (:func:`bleu_from_sums`).

        Only the first ``max_ngram_order`` entries of ``correct`` / ``total`` count.
        """
        if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)) or (
                max_ngram_order < 1 or len(correct) < max_ngram_order or len(total) < max_ngram_order):
            raise InputError(f"max_ngram_order must be an int from 1 to len(correct) = len(total); got "
                             f"{max_ngram_order!r} with {len(correct)} and {len(total)} entries.")
        c = np.asarray(correct)[:max_ngram_order]
        t = np.asarray(total)[:max_ngram_order]
        out = bleu_from_sums(c, t, sys_len, ref_len, smooth_method=smooth_method, smooth_value=smooth_value,
                             use_effective_order=effective_order)

        def plain(values: np.ndarray, given: np.ndarray) -> list:
            ints = given.dtype.kind in "iu" and all(float(v).is_integer() for v in values)
            return [_num(v, ints) for v in values]

        # numpy scalars and 0-d arrays (a row of sums sliced with ...) as Python numbers
        sys_n = sys_len.item() if isinstance(sys_len, (np.generic, np.ndarray)) else sys_len
        ref_n = ref_len.item() if isinstance(ref_len, (np.generic, np.ndarray)) else ref_len
        return BLEUScore(score=float(out["score"]), counts=plain(out["counts"], c), totals=plain(out["totals"], t),
                         precisions=[float(p) for p in out["precisions"]], bp=float(out["bp"]),
                         sys_len=int(sys_n) if float(sys_n).is_integer() else sys_n,
                         ref_len=int(ref_n) if float(ref_n).is_integer() else ref_n)

