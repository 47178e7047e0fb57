r"""chrF and chrF++ from summed statistics, and sacreBLEU's ``corpus_chrf`` / ``sentence_chrf``.

A chrF score is a function of a statistics row (one segment: sentence chrF)
or of the column sums of many rows (a corpus). :func:`chrf_from_sums` applies
it to any stack of rows at once, with sacreBLEU 2.6's float64 operations in
sacreBLEU's order, so scores are bit-for-bit sacreBLEU's. The statistics come
from :func:`bleustats.engine.chrf_stats.chrf_statistics`.

Examples
--------
>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]

The numbers are sacreBLEU 2.6.0's for the same call:

>>> print(corpus_chrf(hyps, refs))
chrF2 = 59.73
>>> print(corpus_chrf(hyps, refs, word_order=2))
chrF2++ = 59.15
>>> round(sentence_chrf(hyps[1], [refs[0][1], refs[1][1]]).score, 6)
35.346353
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..engine.chrf_stats import (CHRF_DEFAULTS, LIST_MAX_CHARS, chrf_column_names, chrf_list_rows, chrf_options,
                                 chrf_segment_rows, chrf_statistics, chrf_systems_statistics)
from ..engine.references import ReferenceSet, shared_reference_set
from .base import Metric, Score, Signature
from .helpers import extract_all_char_ngrams, extract_word_ngrams
from ._plain import plain_segments

__all__ = ["CHRF", "CHRFScore", "CHRFSignature", "chrf_from_sums", "chrf_table", "corpus_chrf", "sentence_chrf"]

#: Stands in for an undefined precision, recall or per-order F (sacreBLEU's choice).
EPS = 1e-16


def _pick(cond: Any, a: Any, b: Any) -> Any:
    """``np.where`` for one row: the formula's steps on numpy scalars choose without making an array."""
    return a if cond else b


def chrf_from_sums(
    stats: ArrayLike,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    eps_smoothing: bool = False,
    float32: bool = False,
) -> float | NDArray[np.float64]:
    r"""chrF of summed statistics rows, sacreBLEU 2.6's formula in its float64 operation order.

    For order :math:`i` with hypothesis, reference and matched n-gram counts
    :math:`h_i, r_i, m_i`: :math:`P_i = m_i / h_i`, :math:`R_i = m_i / r_i`
    (:math:`\varepsilon = 10^{-16}` when the count is 0). Without
    ``eps_smoothing`` precision and recall are averaged over the orders
    :math:`E` where :math:`h_i > 0` and :math:`r_i > 0`:

    .. math::

        \bar P = \frac{1}{|E|}\sum_{i \in E} P_i, \quad
        \bar R = \frac{1}{|E|}\sum_{i \in E} R_i, \quad
        \mathrm{chrF}_\beta = 100\,\frac{(1 + \beta^2)\,\bar P \bar R}{\beta^2 \bar P + \bar R}

    (0 when :math:`\bar P + \bar R = 0`). With ``eps_smoothing`` (chrF++.py,
    Moses, NLTK) it is the mean over all :math:`N` orders of the per-order
    F-scores, :math:`100 \cdot \frac{1}{N}\sum_i F_{\beta,i}`, where an
    undefined :math:`F_{\beta,i}` is :math:`\varepsilon`.

    Parameters
    ----------
    stats : array_like, shape (..., 3 * (char_order + word_order))
        Statistics rows (one segment, or sums over segments), in
        :func:`bleustats.engine.chrf_stats.chrf_column_names` order. Not modified.
    char_order, word_order, beta, eps_smoothing
        The options the statistics were made with.
    float32 : bool
        Compute in float32, as sacreBLEU's bootstrap does (it scores float32
        statistics, so every operation rounds to float32); returns float32.

    Returns
    -------
    float or numpy.ndarray of float64
        A float for one row, else an array of shape ``stats.shape[:-1]``; on 0–100.

    References
    ----------
    M. Popović. chrF: character n-gram F-score for automatic MT evaluation. WMT 2015.

    Examples
    --------
    >>> chrf_from_sums([2, 2, 2, 1, 1, 1], char_order=2)
    100.0
    >>> chrf_from_sums([[2, 1, 1], [0, 0, 0]], char_order=1).round(4).tolist()
    [83.3333, 0.0]
    """
    opts = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                        eps_smoothing=eps_smoothing)
    n_orders = opts["char_order"] + opts["word_order"]
    arr = np.asarray(stats)
    if arr.ndim == 0 or arr.shape[-1] != 3 * n_orders or arr.dtype.kind not in "iuf":
        raise ValueError(
            f"stats must be numbers of shape (..., {3 * n_orders}) (3 per order for char_order="
            f"{opts['char_order']} + word_order={opts['word_order']}); got dtype {arr.dtype} shape "
            f"{arr.shape}. Pass the rows of chrf_statistics made with the same orders."
        )
    factor = float(opts["beta"] ** 2)
    dtype = np.float32 if float32 else np.float64
    if float32:
        arr = arr.astype(np.float32)
    # written once for any number of rows; one row (the sentence and corpus scores) runs on numpy scalars, the
    # same IEEE operations without an array per step (np.where becomes a plain choice)
    one = arr.ndim == 1
    eps, nil = dtype(EPS), dtype(0.0)  # numpy scalars, so that one row divides as arrays do (inf, nan)
    if one:
        where: Any = _pick
        columns = list(arr)
        score = avg_prec = avg_rec = dtype(0)
        effective: Any = dtype(0) if float32 else 0
    else:
        where = np.where
        columns = list(np.moveaxis(arr, -1, 0))
        shape = arr.shape[:-1]
        score, avg_prec, avg_rec = np.zeros(shape, dtype), np.zeros(shape, dtype), np.zeros(shape, dtype)
        effective = np.zeros(shape, dtype if float32 else np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = columns[3 * i], columns[3 * i + 1], columns[3 * i + 2]
            prec = where(n_hyp > 0, n_match / n_hyp, eps)
            rec = where(n_ref > 0, n_match / n_ref, eps)
            denom = factor * prec + rec
            score = score + where(denom > 0, (1.0 + factor) * prec * rec / denom, eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = where(both, avg_prec + prec, avg_prec)
            avg_rec = where(both, avg_rec + rec, avg_rec)
            effective = effective + both
        if opts["eps_smoothing"]:
            out = 100.0 * score / n_orders
        else:
            avg_prec = where(effective > 0, avg_prec / effective, nil)
            avg_rec = where(effective > 0, avg_rec / effective, nil)
            f = (1.0 + factor) * avg_prec * avg_rec
            f = f / ((factor * avg_prec) + avg_rec)
            out = where(avg_prec + avg_rec != 0.0, 100.0 * f, nil)
    return float(out) if one else out


@dataclass(frozen=True, repr=False)
class CHRFScore(Score):
    """A corpus or sentence chrF / chrF++ score, shaped like sacreBLEU's ``CHRFScore``.

    ``str()`` and :meth:`format` print what sacreBLEU prints (``chrF2++ = 71.91``).

    Attributes
    ----------
    score : float
        On the 0–100 scale.
    char_order, word_order : int
    beta : int or float
    eps_smoothing : bool
    stats : tuple of int
        The summed statistics behind the score (``3 * (char_order + word_order)``).
    mean, ci : float
        Bootstrap mean and half-width of the 95% interval; -1 when not estimated.
    """

    score: float
    char_order: int
    word_order: int
    beta: float
    eps_smoothing: bool = False
    stats: tuple = ()
    mean: float = -1.0
    ci: float = -1.0

    @property
    def name(self) -> str:
        """``chrF{beta}`` with one ``+`` per word order (``chrF2++`` for chrF++)."""
        return f"chrF{self.beta}" + "+" * self.word_order

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the numbers and options (for JSON)."""
        return {
            "name": self.name,
            "score": float(self.score),
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": self.beta,
            "eps_smoothing": self.eps_smoothing,
            "stats": [int(x) for x in self.stats],
        }


def _score_of(stats: NDArray[np.int64], opts: dict[str, Any]) -> CHRFScore:
    sums = stats.sum(axis=0)
    score = chrf_from_sums(sums, char_order=opts["char_order"], word_order=opts["word_order"],
                           beta=opts["beta"], eps_smoothing=opts["eps_smoothing"])
    return CHRFScore(score, opts["char_order"], opts["word_order"], opts["beta"],
                     opts["eps_smoothing"], tuple(int(x) for x in sums))


def _whitespace(remove_whitespace: Any) -> bool:
    """CHRF's ``whitespace`` option from the compat functions' ``remove_whitespace``."""
    if isinstance(remove_whitespace, (bool, np.bool_)):
        return not remove_whitespace
    raise ValueError(
        "remove_whitespace must be True or False (True drops whitespace before character "
        f"n-grams, sacreBLEU's default); got {type(remove_whitespace).__name__} {remove_whitespace!r:.40}."
    )


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    char_order: int = CHRF_DEFAULTS["char_order"],
    word_order: int = CHRF_DEFAULTS["word_order"],
    beta: float = CHRF_DEFAULTS["beta"],
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
    *,
    references_layout: str = "auto",
) -> CHRFScore:
    r"""Corpus chrF (chrF++ with ``word_order=2``): sacreBLEU 2.6's ``corpus_chrf``.

    The score of the summed per-segment statistics (:func:`chrf_from_sums`),
    each segment's statistics taken against its best reference.

    Parameters
    ----------
    hypotheses : list of str
        One hypothesis per segment.
    references : list of lists of str
        sacreBLEU-style reference streams (``None`` for a missing reference),
        or anything :func:`bleustats.engine.chrf_stats.chrf_statistics` takes.
    char_order, word_order, beta, remove_whitespace, eps_smoothing
        As in ``sacrebleu.corpus_chrf`` (``remove_whitespace=False`` keeps
        whitespace in character n-grams).
    references_layout : {'auto', 'streams', 'segments'}
        List ``references`` are sacreBLEU's streams (``'auto'``, ``'streams'``)
        or, with ``'segments'``, one list of references per hypothesis
        (:func:`bleustats.engine.io.as_references_table`).

    Returns
    -------
    CHRFScore

    Examples
    --------
    >>> corpus_chrf(["a b c"], [["abc"]], beta=3, eps_smoothing=True).score
    50.0
    """
    opts = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                        whitespace=_whitespace(remove_whitespace), eps_smoothing=eps_smoothing)
    stats = chrf_list_rows(hypotheses, references, references_layout, opts)  # a few segments: no tables
    if stats is None:
        if isinstance(hypotheses, (list, tuple)):  # one call per system: the references validated once
            references = shared_reference_set(references, len(hypotheses), references_layout) or references
        stats = chrf_statistics(hypotheses, references, references_layout=references_layout, **opts)
    return _score_of(stats, opts)


def sentence_chrf(
    hypothesis: str,
    references: Sequence[str],
    char_order: int = CHRF_DEFAULTS["char_order"],
    word_order: int = CHRF_DEFAULTS["word_order"],
    beta: float = CHRF_DEFAULTS["beta"],
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    r"""chrF of one hypothesis against its references: sacreBLEU 2.6's ``sentence_chrf``.

    Parameters
    ----------
    hypothesis : str
    references : list of str
        This hypothesis' references (``None`` entries are skipped).
    char_order, word_order, beta, remove_whitespace, eps_smoothing
        As in :func:`corpus_chrf`.

    Returns
    -------
    CHRFScore

    Raises
    ------
    TypeError
        ``hypothesis`` is not a str, or ``references`` is a single str
        (sacreBLEU's exception type).

    Examples
    --------
    >>> print(sentence_chrf("a b c", ["a b c"], beta=3))
    chrF3 = 100.00
    """
    if not isinstance(hypothesis, str):  # TypeError, as sacreBLEU raises
        raise TypeError(
            f"hypothesis must be one str; got {type(hypothesis).__name__} {hypothesis!r:.60}. "
            "For many sentences use corpus_chrf, or chrf_statistics and chrf_from_sums on its rows."
        )
    if isinstance(references, (str, bytes)):
        raise TypeError(
            f"references must be a list of reference strings for this hypothesis; got a single "
            f"{type(references).__name__}. Wrap it in a list: [reference]."
        )
    opts = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                        whitespace=_whitespace(remove_whitespace), eps_smoothing=eps_smoothing)
    stats = chrf_statistics([hypothesis], [[r] for r in references], references_layout="streams", **opts)
    return _score_of(stats, opts)


# --------------------------------------------------------------------------- sacreBLEU's CHRF object


@dataclass(frozen=True, repr=False)
class CHRFSignature(Signature):
    """chrF's signature, sacreBLEU's fields: ``case``, ``eff`` (no eps smoothing), ``nc``, ``nw``, ``space``.

    ``beta`` is not a field (as in sacreBLEU): it is in the score's name (``chrF2``).

    Examples
    --------
    >>> str(CHRFSignature(1, lowercase=False, eps_smoothing=False, char_order=6, word_order=2, whitespace=False))
    'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:bleustats-...'
    """

    lowercase: bool = False
    eps_smoothing: bool = False
    char_order: int = 6
    word_order: int = 0
    whitespace: bool = False

    @classmethod
    def of(cls, metric: CHRF) -> CHRFSignature:
        """The signature of a :class:`CHRF` object's scores (after it has seen references)."""
        if getattr(metric, "num_refs", None) is None:
            raise ValueError("CHRF: the number of references is unknown; score something (or pass references= "
                             "to the constructor) before get_signature().")
        return cls(metric.num_refs, n_bootstrap=metric.n_bootstrap, seed=metric.seed, lowercase=metric.lowercase,
                   eps_smoothing=metric.eps_smoothing, char_order=metric.char_order, word_order=metric.word_order,
                   whitespace=metric.whitespace)

    def metric_fields(self) -> list[tuple[str, str, Any]]:
        return [("case", "c", "lc" if self.lowercase else "mixed"), ("eff", "e", "no" if self.eps_smoothing else "yes"),
                ("nc", "nc", self.char_order), ("nw", "nw", self.word_order),
                ("space", "s", "yes" if self.whitespace else "no")]


class CHRF(Metric):
    r"""sacreBLEU's ``CHRF`` metric object (chrF, and chrF++ with ``word_order=2``) over the chrF kernels.

    Same constructor arguments, defaults and results as ``sacrebleu.metrics.CHRF``
    (2.6). Per-segment statistics are
    :func:`~bleustats.engine.chrf_stats.chrf_statistics` rows (hypothesis,
    reference and matched n-grams per order against the best reference); a
    score is :func:`chrf_from_sums` of their column sums. ``references=`` are
    validated once and reused by every ``corpus_score(hyps, None)``.

    Examples
    --------
    >>> chrf = CHRF(word_order=2)
    >>> print(chrf.corpus_score(["The dog bit the man."], [["The dog had bit the man."]]))
    chrF2++ = 70.39
    >>> print(chrf.get_signature())
    nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:bleustats-...
    """

    CHAR_ORDER = CHRF_DEFAULTS["char_order"]
    WORD_ORDER = CHRF_DEFAULTS["word_order"]
    BETA = CHRF_DEFAULTS["beta"]

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER, beta: int = BETA,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False,
                 references: Sequence[Sequence[str]] | None = None) -> None:
        super().__init__()
        self._options = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                                     lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)
        self.beta, self.char_order, self.word_order = beta, char_order, word_order
        self.order = char_order + word_order
        self.lowercase, self.whitespace, self.eps_smoothing = lowercase, whitespace, eps_smoothing
        if references is not None:
            self._ref_cache = self._reference_set(references)

    def _statistics(self, hypotheses: Sequence[str], refs: ReferenceSet) -> NDArray[np.int64]:
        return chrf_statistics(list(hypotheses), refs, **self._options)

    def _systems_statistics(self, systems: Sequence[Sequence[str]]) -> list[NDArray[Any]] | None:
        """Every system's rows in one kernel call: each segment's references are indexed once for all systems
        (:func:`~bleustats.engine.chrf_stats.chrf_systems_statistics`; the same rows as one call per system)."""
        if self._ref_cache is None or len(systems) < 2:
            return None
        systems = [list(system) for system in systems]
        refs = self._references(None, len(systems[0]))
        return chrf_systems_statistics(systems, refs, **self._options)

    # -- a few segments: the kernel's rows without Arrow tables (chrf_segment_rows) --

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> NDArray[Any]:
        hyps = list(hypotheses)
        small = all(type(h) is str for h in hyps) and sum(map(len, hyps)) <= LIST_MAX_CHARS  # else: checked there
        plain = plain_segments(references, self._ref_cache, len(hyps)) if small else None
        rows = None if plain is None else chrf_segment_rows(hyps, plain[0], self._options)
        if rows is None:
            return super()._extract_corpus_statistics(hypotheses, references)
        self.num_refs = plain[1]
        return rows

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> CHRFScore:
        """chrF of one hypothesis against its references (``None`` entries skipped)."""
        self._check_sentence_score_args(hypothesis, references)
        rows = chrf_segment_rows([hypothesis], [[(r, 1.0) for r in references if r is not None]], self._options)
        if rows is None:
            return super().sentence_score(hypothesis, references)
        self.num_refs = sum(r is not None for r in references)
        return self._aggregate_and_compute(rows)

    # -- sacreBLEU's per-segment methods (its private API, which MBR and reranking code calls) --

    #: the characters :meth:`_remove_punctuation` splits off a word's end or start (ASCII punctuation)
    _PUNCTS = frozenset(string.punctuation)

    def _preprocess_segment(self, sent: str) -> str:
        """``sent`` lowercased when ``lowercase`` is on, else unchanged (chrF does not tokenize)."""
        return sent.lower() if self.lowercase else sent

    def _remove_punctuation(self, sent: str) -> list[str]:
        """chrF++'s words: whitespace-split, one punctuation character split off each word's end (else start).

        A word of one character stays whole; ``'(hi)'`` gives ``'(hi'`` and ``')'``
        (sacreBLEU 2.6, after Popović's chrF++.py).

        >>> CHRF(word_order=2)._remove_punctuation("Hello, (world) !")
        ['Hello', ',', '(world', ')', '!']
        """
        words: list[str] = []
        for w in sent.split():
            if len(w) > 1 and w[-1] in self._PUNCTS:
                words += [w[:-1], w[-1]]
            elif len(w) > 1 and w[0] in self._PUNCTS:
                words += [w[0], w[1:]]
            else:
                words.append(w)
        return words

    @staticmethod
    def _get_match_statistics(hyp_ngrams: Mapping[Any, float], ref_ngrams: Mapping[Any, float]) -> list:
        """``[hyp count, ref count, matched count]`` of one order's n-gram counts.

        The matched count is the clipped overlap (the sum over n-grams of the smaller of the two counts);
        the hypothesis count is 0 when the reference has no n-gram of the order.

        >>> from collections import Counter
        >>> CHRF._get_match_statistics(Counter("aab"), Counter("abb")), CHRF._get_match_statistics(Counter("a"), {})
        ([3, 3, 2], [0, 0, 0])
        """
        hyp_count = match = 0
        for gram, count in hyp_ngrams.items():
            hyp_count += count
            if gram in ref_ngrams:
                match += min(count, ref_ngrams[gram])
        return [hyp_count if ref_ngrams else 0, sum(ref_ngrams.values()), match]

    def _compute_f_score(self, statistics: Sequence[float]) -> float:
        """chrF in [0, 100] of one flat ``[hyp, ref, match] * order`` statistics list (:func:`chrf_from_sums`).

        >>> CHRF(char_order=1, word_order=0)._compute_f_score([4, 4, 2])
        50.0
        """
        return float(chrf_from_sums(np.asarray(statistics, dtype=np.float64), char_order=self.char_order,
                                    word_order=self.word_order, beta=self.beta, eps_smoothing=self.eps_smoothing))

    def _extract_reference_info(self, refs: Sequence[str]) -> dict[str, Any]:
        """``{'ref_ngrams': [per reference: its character then word n-gram Counters, by order]}``."""
        records = []
        for ref in refs:
            grams = extract_all_char_ngrams(ref, self.char_order, self.whitespace)
            if self.word_order > 0:
                words = self._remove_punctuation(ref)
                grams += [extract_word_ngrams(words, n) for n in range(1, self.word_order + 1)]
            records.append(grams)
        return {"ref_ngrams": records}

    def _compute_score_from_stats(self, stats: ArrayLike) -> CHRFScore:
        """The chrF of one row of summed statistics (3 per order)."""
        sums = np.asarray(stats)
        score = chrf_from_sums(sums, char_order=self.char_order, word_order=self.word_order, beta=self.beta,
                               eps_smoothing=self.eps_smoothing)
        return CHRFScore(score, self.char_order, self.word_order, self.beta, self.eps_smoothing, tuple(sums.tolist()))

    def scores_from_sums(self, sums: ArrayLike, *, float32: bool = False) -> NDArray[Any]:
        """chrF of every row of summed statistics (``float32=True``: sacreBLEU's bootstrap arithmetic)."""
        return np.asarray(chrf_from_sums(sums, char_order=self.char_order, word_order=self.word_order,
                                         beta=self.beta, eps_smoothing=self.eps_smoothing, float32=float32))

    def get_signature(self) -> CHRFSignature:
        """sacreBLEU's chrF signature (``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:...``)."""
        return CHRFSignature.of(self)


def chrf_table(stats: Any, metric: str = "chrf") -> tuple[CHRF, NDArray[np.int64]]:
    """A :class:`CHRF` set up as the chrF columns of a statistics table were made, and their matrix.

    ``metric='chrf++'`` also checks that the table's chrF has ``word_order=2``.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a cat"], [["the cat"]], metrics=("chrf",), chrf_options={"char_order": 2})
    >>> metric, rows = chrf_table(st)
    >>> print(metric._aggregate_and_compute(rows), rows.tolist())
    chrF2 = 48.54 [[4, 6, 3, 3, 5, 2]]
    """
    opts = stats.chrf_options
    if opts is None:
        raise ValueError(f"metric={metric!r}: the statistics table has no chrF statistics (it holds "
                         f"{', '.join(stats.metrics)}); compute it with compute_stats(..., metrics=('bleu', "
                         f"'{metric}')).")
    if metric == "chrf++" and opts["word_order"] != 2:
        raise ValueError(f"metric='chrf++': the table's chrF statistics have word_order={opts['word_order']} "
                         "(chrF++ is word_order=2); score them with metric='chrf'.")
    obj = CHRF(**opts)
    n_refs = np.unique(stats.column("n_refs"))
    obj.num_refs = int(n_refs[0]) if len(n_refs) == 1 else -1
    names = chrf_column_names(opts["char_order"], opts["word_order"])
    return obj, np.column_stack([stats.column(c) for c in names]) if len(stats) else np.zeros((0, len(names)),
                                                                                                np.int64)
