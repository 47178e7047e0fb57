r"""BLEU of a few segments without the kernels: plain-Python rows into the one formula.

For a sentence or a small corpus, :mod:`bleustats.engine._small` counts the
n-grams in plain Python; this module sums its rows into a score
(:func:`plain_corpus_score`, through the formula every path uses,
:func:`bleustats.metrics.formula.score_from_sums`) or turns them into the
statistics matrix of the metric objects (:func:`rows_matrix`), so that
neither numba nor an Arrow table is needed. The results equal the kernels'
path field by field (``tests/metrics/test_plain.py``).

Examples
--------
>>> row = (3, 4, 4, 4.0, 1, 1.0, [3, 2], [3, 2], [3.0, 2.0], [3.0, 2.0])
>>> sum_rows([row, row], 6, 7, 1)
([6, 4], [6, 4], 6, 8)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..engine.references import ReferenceSet

from ..engine import _small as small
from ..engine._options import REF_LENGTHS
from .formula import score_from_sums
from .results import BLEUScore, bleu_signature

__all__ = ["plain_corpus_score", "plain_matrix", "plain_segments", "reference_segments", "rows_matrix", "sum_rows",
           "text_bytes"]


def sum_rows(rows: list, num: int, den: int, length: int) -> tuple[list, list, Any, Any]:
    """Column sums of plain rows, ``(numerators, denominators, hyp_len, ref_len)``, as ``corpus_score`` sums.

    ``num`` / ``den`` / ``length`` index a row of
    :func:`bleustats.engine._small.segment_statistics`. Integers add up
    exactly; floats (ΔBLEU's counts, average reference lengths) are summed
    exactly and rounded once (:func:`math.fsum`), as
    :func:`bleustats.engine._sums.column_sums` sums a statistics table, so the
    sums do not depend on the order of the rows.

    Examples
    --------
    >>> sum_rows([(1, 2, 2, 2.0, 1, 1.0, [1], [1], [1.0], [1.0]), (2, 3, 3, 3.5, 2, 1.0, [2], [2], [2.0], [2.0])],
    ...          6, 7, 3)
    ([3], [3], 3, 5.5)
    """
    if len(rows) == 1:  # one row (a sentence): each value + 0, which is what sum and fsum make of one value
        row = rows[0]
        return [v + 0 for v in row[num]], [v + 0 for v in row[den]], row[0] + 0, row[length] + 0
    return ([_total(column) for column in zip(*[row[num] for row in rows])],
            [_total(column) for column in zip(*[row[den] for row in rows])],
            sum([row[0] for row in rows]), _total([row[length] for row in rows]))


def _total(values: Any) -> Any:
    """The sum of one column: exact for ints, :func:`math.fsum` (exact, rounded once) where a float is in it."""
    return math.fsum(values) if float in map(type, values) else sum(values)


def rows_matrix(rows: list, delta: bool, length: int, average: bool) -> np.ndarray:
    """``[hyp_len, ref_len, correct_1..N, total_1..N]`` of plain rows, with the statistics table's dtypes.

    ``length`` indexes the row's reference length (1 closest, 2 shortest, 3
    average: float); ``delta`` takes the weighted (float) counts.

    Examples
    --------
    >>> row = (3, 4, 4, 4.0, 1, 1.0, [3, 2], [3, 2], [3.0, 2.0], [3.0, 2.0])
    >>> rows_matrix([row], False, 1, False).tolist()
    [[3, 4, 3, 2, 3, 2]]
    """
    num, den = (8, 9) if delta else (6, 7)
    if rows:  # one conversion: the common dtype of the columns (float64 once one column is float, else int64)
        return np.array([[row[0], row[length], *row[num], *row[den]] for row in rows],
                        np.float64 if delta or average else np.int64)
    kind = np.float64 if delta else np.int64
    return np.column_stack([np.array([], np.int64), np.array([], np.float64 if average else np.int64),
                            np.array([], kind), np.array([], kind)])


def text_bytes(refs: ReferenceSet) -> int:
    """Bytes of text a reference set holds (its Arrow data: at least its number of characters)."""
    return sum(c.nbytes for c in refs.table.column("text").chunks)


def reference_segments(table: Any, n_segments: int) -> list[list[tuple[str, float]]]:
    """Each segment's ``(text, weight)`` references of a ``references`` table (seg_ids 0..n_segments-1)."""
    seg = table.column("seg_id").to_pylist()
    segments: list[list[tuple[str, float]]] = [[] for _ in range(n_segments)]
    for s, text, w in zip(seg, table.column("text").to_pylist(), table.column("weight").to_pylist()):
        segments[s].append((text, w))
    return segments


def plain_segments(references: Any, cache: ReferenceSet | None, n_hyp: int) -> tuple[list, int] | None:
    """A metric object's references for the plain path: ``(segments, num_refs)``, or ``None`` (take the kernels).

    ``references`` as a call got them (sacreBLEU's streams; empty or ``None``:
    the object's ``cache``). ``segments[i]`` lists hypothesis ``i``'s
    ``(text, weight)`` references; ``num_refs`` is the
    :class:`~bleustats.engine.references.ReferenceSet`'s (-1 when it varies).

    Examples
    --------
    >>> plain_segments([["a", "b"], ["c", None]], None, 2)
    ([[('a', 1.0), ('c', 1.0)], [('b', 1.0)]], -1)
    """
    if references is not None and not isinstance(references, (list, tuple)):
        return None  # a ReferenceSet or a table: the kernels' path reads it
    if references:
        segments = small.plain_references(references, None, n_hyp=n_hyp, layout="streams")
        if segments is None:
            return None
        counts = {len(seg) for seg in segments}
        return segments, (counts.pop() if len(counts) == 1 else -1)
    if cache is None or cache.n_segments != n_hyp or not small.prefer_plain(text_bytes(cache)):
        return None
    return cache.cached(("plain",), lambda t: reference_segments(t, n_hyp)), cache.num_refs


def plain_matrix(hypotheses: list, segments: list | None, *, tokenize: str, lowercase: bool, max_ngram_order: int,
                 ref_view: str, weight_threshold: float | None, delta_definition: str, delta: bool,
                 ref_length: str) -> np.ndarray | None:
    """A metric object's statistics matrix of a few segments counted in plain Python, or ``None``: take the kernels.

    ``segments[i]`` holds hypothesis ``i``'s ``(text, weight)`` references;
    the options are the object's (checked). ``None`` also wherever the
    kernels' path raises (a segment without a reference in the view, ΔBLEU
    without a positive weight), so that its errors stay in one place, and for
    text too large for the plain path (:func:`bleustats.engine._small.prefer_plain`).

    Examples
    --------
    >>> plain_matrix(["a b c"], [[("a b d", 1.0)]], tokenize="none", lowercase=False, max_ngram_order=2,
    ...              ref_view="all", weight_threshold=None, delta_definition="paper", delta=False,
    ...              ref_length="closest").tolist()
    [[3, 3, 2, 1, 3, 2]]
    """
    if segments is None or not hypotheses or not all(type(h) is str for h in hypotheses):
        return None
    if not small.prefer_plain(sum(map(len, hypotheses))):
        return None  # the hypotheses alone are past the plain path's size: no reference view built
    view = small.view_references(segments, ref_view, weight_threshold)
    if not all(view):
        return None
    n_chars = sum(map(len, hypotheses)) + sum(len(text) for seg in view for text, _ in seg)
    if not small.prefer_plain(n_chars):
        return None
    rows = small.segment_statistics(hypotheses, range(len(hypotheses)), view, tokenize=tokenize, lowercase=lowercase,
                                    max_ngram_order=max_ngram_order, delta_definition=delta_definition)
    if delta and any(row[5] <= 0 for row in rows):
        return None
    return rows_matrix(rows, delta, REF_LENGTHS.index(ref_length) + 1, ref_length == "average")


def plain_corpus_score(rows: list, *, metric: str, k: float | None, smooth_method: str, use_effective_order: bool,
                       ref_length: str, options: dict[str, Any], uniform: bool) -> BLEUScore:
    """``corpus_score`` of plain rows (:func:`bleustats.engine._small.segment_statistics`), options checked.

    The same result as ``corpus_score(compute_stats(...))`` field by field:
    the sums of :func:`sum_rows`, the formula and result of
    :func:`~bleustats.metrics.formula.score_from_sums`, the signature from
    ``options`` (``compute_stats``' options) and ``uniform`` (every reference weight 1).
    """
    delta = metric == "delta_bleu"
    num, den = (8, 9) if delta else (6, 7)
    raw_c, t_sum, sys_len, r_len = sum_rows(rows, num, den, REF_LENGTHS.index(ref_length) + 1)
    n_refs = {row[4] for row in rows}
    signature = bleu_signature(
        str(n_refs.pop()) if len(n_refs) == 1 else "var", tokenize=options["tokenize"],
        lowercase=options["lowercase"], smooth_method=smooth_method, smooth_value=k,
        effective_order=use_effective_order, max_ngram_order=options["max_ngram_order"],
        ref_view=options["ref_view"], weight_threshold=options["weight_threshold"],
        weights="uniform" if uniform else "custom", metric=metric, delta_definition=options["delta_definition"],
        ref_length=ref_length)
    return score_from_sums(np.array(raw_c), np.array(t_sum), sys_len, r_len, signature=signature, metric=metric,
                           smooth_method=smooth_method, smooth_value=k, use_effective_order=use_effective_order,
                           ref_length=ref_length)
