"""Drop-in replacements for ``sacrebleu.corpus_bleu`` and ``sacrebleu.sentence_bleu``.

Same positional and keyword arguments with the same defaults, the same result
attributes, and identical numbers (counts, totals, lengths; scores within
1e-9), so ``import bleustats as sacrebleu`` works for BLEU code. Extra
keyword-only options reach ΔBLEU: ``ref_weights`` (same shape as
``references``), ``ref_view``, ``weight_threshold``, ``delta_definition``,
``max_ngram_order`` and ``ref_length``.

Examples
--------
>>> import bleustats as sacrebleu
>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
>>> bleu = sacrebleu.corpus_bleu(hyps, refs)
>>> round(bleu.score, 2), bleu.counts, bleu.sys_len, bleu.ref_len
(48.53, [14, 7, 5, 3], 17, 18)
>>> print(bleu)
BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from . import io, scoring
from .results import BLEUScore
from .stats import compute_stats, compute_stats_files

__all__ = ["corpus_bleu", "corpus_bleu_files", "sentence_bleu"]


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
    """
    stats = compute_stats(
        hypotheses, references, ref_weights=ref_weights, tokenize=tokenize, lowercase=lowercase,
        max_ngram_order=max_ngram_order, ref_view=ref_view, weight_threshold=weight_threshold,
        delta_definition=delta_definition, references_layout=references_layout,
    )
    return scoring.corpus_score(
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
        raise io.InputError(f"hypothesis must be a str; got {type(hypothesis).__name__}. "
                            "For many hypotheses use corpus_bleu or sentence_scores.")
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise io.InputError(f"references must be a list of str (the hypothesis' references); got "
                            f"{type(references).__name__}.")
    refs = [list(references)]
    weights = None if ref_weights is None else [list(ref_weights)]
    stats = compute_stats(
        [hypothesis], refs, ref_weights=weights, tokenize=tokenize, lowercase=lowercase,
        max_ngram_order=max_ngram_order, ref_view=ref_view, weight_threshold=weight_threshold,
        delta_definition=delta_definition, references_layout="segments",
    )
    return scoring.corpus_score(
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
    stats = compute_stats_files(
        hypotheses_path, reference_paths, ref_weight_paths=ref_weight_paths, tokenize=tokenize,
        lowercase=lowercase, max_ngram_order=max_ngram_order, ref_view=ref_view,
        weight_threshold=weight_threshold, delta_definition=delta_definition,
    )
    result = scoring.corpus_score(
        stats, metric=_metric(metric, ref_weight_paths, stats), smooth_method=smooth_method,
        smooth_value=smooth_value, use_effective_order=use_effective_order, ref_length=ref_length,
    )
    result.stats["timings"] = stats.timings
    return result
