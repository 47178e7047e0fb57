"""sacreBLEU's BLEU functions: ``corpus_bleu``, ``sentence_bleu``, ``raw_corpus_bleu`` (and ``corpus_bleu_files``).

Same arguments, defaults and results as sacreBLEU 2.6's (``sacrebleu.compat``),
with bleustats' options (ΔBLEU weights, reference views, max n-gram order,
reference length). A few segments given as lists are counted in plain Python
(:mod:`bleustats.engine._small`, :mod:`bleustats.metrics._plain`); anything
larger becomes a statistics table (:func:`bleustats.compute_stats`) scored by
:func:`bleustats.metrics.tables.corpus_score`. Both end in the one formula
and sign the same line.

Examples
--------
>>> round(corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).score, 4)
37.9918
>>> print(corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).signature)
nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..engine import _small as small
from ..engine._options import SMOOTH_DEFAULTS, check_options
from ..errors import InputError
from .formula import METRICS, check_scoring_options
from ._plain import plain_corpus_score
from .results import BLEUScore
from .tables import corpus_score

__all__ = ["corpus_bleu", "corpus_bleu_files", "raw_corpus_bleu", "sentence_bleu"]


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
    if not small.prefer_plain(sum(map(len, hypotheses))):
        return None  # the hypotheses alone are past the plain path's size: no reference lists built
    segments = small.plain_references(references, ref_weights, n_hyp=len(hypotheses), layout=layout)
    if segments is None:
        return None
    uniform = all(w == 1.0 for seg in segments for _, w in seg)
    segments = small.view_references(segments, options["ref_view"], options["weight_threshold"])
    n_chars = sum(map(len, hypotheses)) + sum(len(text) for seg in segments for text, _ in seg)
    if not all(segments) or not small.prefer_plain(n_chars):
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
    A small input (see :func:`bleustats.engine._small.prefer_plain`) is counted
    in plain Python (:mod:`bleustats.engine._small`): the same statistics as
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
    from ..engine.references import shared_reference_set
    from ..engine.stats import compute_stats

    if ref_weights is None and isinstance(hypotheses, (list, tuple)):
        # the same references on every call (one call per system): validated and tokenized once
        references = shared_reference_set(references, len(hypotheses), references_layout) or references
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
