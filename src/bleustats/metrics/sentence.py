r"""Sentence-level BLEU variants from one statistics table, and the registry that lists them.

Every variant is the one BLEU formula of :mod:`bleustats.metrics.formula`,
vectorized over the per-hypothesis statistics of a
:class:`~bleustats.engine.stats.StatsTable` (one row per hypothesis:
``hyp_len`` :math:`c`, a reference length :math:`r`, and per order
:math:`n = 1..N` the clipped matches :math:`m_n` and totals :math:`t_n`), with
the variant's own precisions :math:`p_n` and reference length:

.. math::

    \mathrm{score} = 100 \cdot \mathrm{BP}(c, r') \cdot \exp\Big(\frac{1}{N} \sum_{n=1}^{N} \ln p_n\Big)

(:func:`~bleustats.metrics.formula.brevity_penalty`,
:func:`~bleustats.metrics.formula.bleu_from_precisions`; the precisions of
:func:`~bleustats.metrics.formula.add_k_precisions` and
:func:`~bleustats.metrics.formula.chen_cherry_precisions`, or sacreBLEU's
smoothings of :func:`~bleustats.metrics.formula.bleu_from_sums`). No n-gram
is recounted and there is no Python loop over sentences, so scoring a million
k-best entries under several variants costs milliseconds per variant. Scores
are on bleustats' 0–100 scale.

Variants (registry names; :data:`SENTENCE_VARIANTS` holds them all):

``bleu+1``
    BLEU+1 as in PRO / Moses ``smoothedSentenceBleu``: add one to matches and
    totals of every order, unigrams included.
``lin-och``
    Lin & Och (2004) BLEU+1: add one for :math:`n \ge 2` only.
``nakov:<fixes>``
    Nakov, Guzmán & Vogel (2012), section 3: ``pc-unsmoothed``,
    ``pc-grounded``, ``bp-smoothed``, ``unclipped``, ``scaled`` and their
    combinations (comma separated, any order; any combination is accepted by
    :func:`get_variant`, the registry lists those of the paper).
``pseudo-doc``, ``chiang-gain``
    BLEU of the sentence added to a background pseudo-document (Watanabe et
    al., 2007; Chiang et al., 2008; Cherry & Foster, 2012) and Chiang's
    gain :math:`O_{len}\,(\mathrm{BLEU}(B + s) - \mathrm{BLEU}(B))`.
``sacrebleu:<method>``
    sacreBLEU 2.x sentence smoothing (``none``, ``floor``, ``add-k``, ``exp``;
    effective order on by default as in ``sacrebleu.sentence_bleu``).
``chen-cherry:<1..7>``
    Chen & Cherry (2014) smoothing methods 1–7 with the semantics of NLTK's
    ``SmoothingFunction`` (documented differences below).

Every variant also scores ΔBLEU statistics (``metric='delta_bleu'``: the
weighted ``wmatch_n`` / ``wtotal_n`` columns, numerators clamped at 0 per row
as :func:`bleustats.metrics.tables.sentence_scores` does).

Deliberate differences from NLTK 3.x (``chen-cherry:*``), each tested in
``tests/metrics/test_sentence.py``:

* method 2 adds one to the true total :math:`t_n`; NLTK adds one to
  :math:`\max(1, t_n)`, so for a hypothesis shorter than :math:`n` it counts
  one unmatched n-gram (0.5 instead of 1, which Lin & Och's formula gives);
* method 5 takes the :math:`(N+1)`-gram precision; NLTK always takes the
  5-gram precision (the same for N = 4);
* method 6 applies its formula everywhere; NLTK raises an ``AssertionError``
  when the trigram precision is 0;
* a precision that is still 0 after smoothing makes the score 0; NLTK drops
  it from the geometric mean (as if it were 1), e.g. method 4 on a one-token
  hypothesis (:math:`\ln 1 = 0`).

References
----------
.. [1] Papineni, K., Roukos, S., Ward, T., Zhu, W.-J. (2002). BLEU: a method
   for automatic evaluation of machine translation. ACL.
.. [2] Lin, C.-Y., Och, F. J. (2004). ORANGE: a method for evaluating
   automatic evaluation metrics for machine translation. COLING.
.. [3] Hopkins, M., May, J. (2011). Tuning as ranking. EMNLP (PRO; Moses'
   ``mert/BleuScorer.cpp`` ``smoothedSentenceBleu``).
.. [4] Nakov, P., Guzmán, F., Vogel, S. (2012). Optimizing for sentence-level
   BLEU+1 yields short translations. COLING.
.. [5] Watanabe, T., Suzuki, J., Tsukada, H., Isozaki, H. (2007). Online
   large-margin training for statistical machine translation. EMNLP-CoNLL.
.. [6] Chiang, D., Marton, Y., Resnik, P. (2008). Online large-margin training
   of syntactic and structural translation features. EMNLP.
.. [7] Cherry, C., Foster, G. (2012). Batch tuning strategies for statistical
   machine translation. NAACL.
.. [8] Chen, B., Cherry, C. (2014). A systematic comparison of smoothing
   techniques for sentence-level BLEU. WMT.
.. [9] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT
   (sacreBLEU).
.. [10] Galley, M. et al. (2015). ΔBLEU: a discriminative metric for
   generation tasks with intrinsically diverse targets. ACL.

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> st = compute_stats(["the cat sat on the mat", "a dog"],
...                    [["the cat is on the mat", "the dog"]], tokenize="none")
>>> score_variant(st, "bleu+1").round(2).tolist()
[48.89, 75.98]
>>> score_variant(st, "nakov:pc-grounded,bp-smoothed").round(2).tolist()
[25.66, 7.33]
>>> sorted(score_variants(st, ["lin-och", "sacrebleu:exp"]))
['lin-och', 'sacrebleu:exp']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
from numpy.typing import NDArray

from .._validate import check_choice, check_number, renamed_keywords
from ..engine._options import SENTENCE_VARIANT_NAMES
from ..engine.stats import StatsTable
from ..errors import InputError
from ..engine._options import REF_LENGTHS, SMOOTH_METHODS
from .formula import (METRICS, add_k_precisions, bleu_from_precisions, bleu_from_sums, bleu_scores, brevity_penalty,
                      chen_cherry_precisions)
from .tables import check_delta_defined

__all__ = [
    "CHEN_CHERRY_DEFAULTS",
    "NAKOV_FIXES",
    "SENTENCE_VARIANTS",
    "SentenceVariant",
    "SentenceStats",
    "background_vector",
    "chiang_gain",
    "get_variant",
    "pseudo_document_bleu",
    "required_order",
    "score_variant",
    "score_variants",
    "sentence_stats",
    "stats_vectors",
    "update_background",
]

#: Nakov et al. (2012) fixes, combinable with commas (``pc-*`` are mutually exclusive).
NAKOV_FIXES = ("bp-smoothed", "pc-unsmoothed", "pc-grounded", "unclipped", "scaled")
#: Parameters of NLTK's ``SmoothingFunction()`` (Chen & Cherry's experiments).
CHEN_CHERRY_DEFAULTS = {"epsilon": 0.1, "alpha": 5.0, "k": 5.0}


# --------------------------------------------------------------------------- statistics


class SentenceStats(NamedTuple):
    """Per-row statistics as float64 arrays, the input of every variant.

    ``match`` and ``total`` have shape (rows, N); ``hyp_len`` and ``ref_len``
    shape (rows,). ``match_next`` / ``total_next`` hold order N+1 when the
    table has it (``chen-cherry:5`` and ``:7`` need it), else ``None``.
    """

    match: NDArray[np.float64]
    total: NDArray[np.float64]
    hyp_len: NDArray[np.float64]
    ref_len: NDArray[np.float64]
    match_next: NDArray[np.float64] | None = None
    total_next: NDArray[np.float64] | None = None


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def sentence_stats(
    stats: StatsTable,
    *,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int | None = None,
) -> SentenceStats:
    """The statistics columns a variant needs, as float64 arrays.

    Parameters
    ----------
    stats : StatsTable
    metric : {'bleu', 'delta_bleu'}
        Plain counts, or ΔBLEU's weighted ``wmatch_n`` / ``wtotal_n``
        (numerators clamped at 0; every row needs a reference of positive
        weight).
    ref_length : {'closest', 'shortest', 'average'}
        Reference length :math:`r`.
    max_ngram_order : int, optional
        Order N of the score (default: the table's). Order N+1 is attached
        when the table has it.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> s = sentence_stats(compute_stats(["a b c"], [["a b d"]], tokenize="none"), max_ngram_order=2)
    >>> s.match.tolist(), s.total.tolist(), s.match_next.tolist()
    ([[2.0, 1.0]], [[3.0, 2.0]], [0.0])
    """
    if not isinstance(stats, StatsTable):
        raise TypeError(
            f"stats must be a bleustats.StatsTable (from compute_stats or load_stats); got {type(stats).__name__}."
        )
    check_choice("metric", metric, METRICS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    table_order = stats.max_ngram_order
    n = table_order if max_ngram_order is None else max_ngram_order
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= table_order:
        raise InputError(
            f"max_ngram_order must be an integer from 1 to the table's order {table_order}; got "
            f"{max_ngram_order!r}. Compute the statistics with a larger max_ngram_order for higher orders."
        )
    num, den = ("wmatch", "wtotal") if metric == "delta_bleu" else ("match", "total")
    if metric == "delta_bleu":
        check_delta_defined(stats)

    def col(prefix: str, i: int) -> np.ndarray:
        return np.asarray(stats.column(f"{prefix}_{i}"), dtype=np.float64)

    match = np.stack([col(num, i) for i in range(1, n + 1)], axis=-1) if len(stats) else np.zeros((0, n))
    total = np.stack([col(den, i) for i in range(1, n + 1)], axis=-1) if len(stats) else np.zeros((0, n))
    m_next = t_next = None
    if n < table_order:
        m_next, t_next = col(num, n + 1), col(den, n + 1)
    if metric == "delta_bleu":
        match = np.maximum(match, 0.0)
        m_next = None if m_next is None else np.maximum(m_next, 0.0)
    return SentenceStats(match, total, np.asarray(stats.column("hyp_len"), np.float64),
                         np.asarray(stats.column(f"ref_len_{ref_length}"), np.float64), m_next, t_next)


# --------------------------------------------------------------------------- variants
# Each variant is the one formula (bleustats.metrics.formula) with its own precisions and brevity penalty:
# BLEU = 100 * BP(c, r) * G(p_1, ..., p_N) (formula.bleu_from_precisions), or sacreBLEU's smoothings.


def _bleu_plus_one(s: SentenceStats) -> np.ndarray:
    r"""PRO / Moses: :math:`\mathrm{BP}\,(\prod_n (m_n+1)/(t_n+1))^{1/N}`."""
    return bleu_from_precisions(add_k_precisions(s.match, s.total), brevity_penalty(s.hyp_len, s.ref_len))


def _lin_och(s: SentenceStats) -> np.ndarray:
    r"""Lin & Och: unigram unsmoothed, add one for n >= 2."""
    return bleu_from_precisions(add_k_precisions(s.match, s.total, first_order=2),
                                brevity_penalty(s.hyp_len, s.ref_len))


def _nakov(s: SentenceStats, *, fixes: frozenset[str] = frozenset(), ilr: float = 1.0) -> np.ndarray:
    ilr = check_number("ilr", ilr, positive=True)
    r = s.ref_len * (ilr if "scaled" in fixes else 1.0)
    if "bp-smoothed" in fixes:
        r = r + 1.0
    bp = brevity_penalty(s.hyp_len, r, clipped="unclipped" not in fixes)
    if "pc-unsmoothed" in fixes:
        return bleu_from_precisions(add_k_precisions(s.match, s.total, k=0.0), bp)
    score = bleu_from_precisions(add_k_precisions(s.match, s.total), bp)
    if "pc-grounded" in fixes:  # minus the score of a hypothesis of the same lengths without a match
        score = score - bleu_from_precisions(add_k_precisions(np.zeros_like(s.match), s.total), bp)
        score = np.maximum(score, 0.0)  # rounding only: the first term is never below the second
    return score


def _sacrebleu(s: SentenceStats, *, smooth_method: str = "exp", smooth_value: float | None = None,
               use_effective_order: bool = True) -> np.ndarray:
    return bleu_from_sums(s.match, s.total, s.hyp_len, s.ref_len, smooth_method=smooth_method,
                          smooth_value=smooth_value, use_effective_order=use_effective_order)["score"]


def _chen_cherry(s: SentenceStats, *, method: int, epsilon: float = 0.1, alpha: float = 5.0,
                 k: float = 5.0) -> np.ndarray:
    p = chen_cherry_precisions(s.match, s.total, s.hyp_len, method=method, epsilon=epsilon, alpha=alpha, k=k,
                               match_next=s.match_next, total_next=s.total_next)
    score = bleu_from_precisions(p, brevity_penalty(s.hyp_len, s.ref_len), nltk=True)  # NLTK's arithmetic
    return np.where(s.match[:, 0] > 0, score, 0.0)  # NLTK: no unigram match scores 0 whatever the smoothing


# --------------------------------------------------------------------------- pseudo-documents


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def stats_vectors(stats: StatsTable, *, metric: str = "bleu", ref_length: str = "closest",
                  max_ngram_order: int | None = None) -> NDArray[np.float64]:
    """One flat statistics vector per row: ``[c, r, m_1..m_N, t_1..t_N]`` (sacreBLEU's layout).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> stats_vectors(compute_stats(["a b"], [["a b c"]], tokenize="none"), max_ngram_order=2).tolist()
    [[2.0, 3.0, 2.0, 1.0, 2.0, 1.0]]
    """
    s = sentence_stats(stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
    return np.concatenate([s.hyp_len[:, None], s.ref_len[:, None], s.match, s.total], axis=-1)


def _check_background(background: Any, n: int, name: str = "background") -> np.ndarray:
    if background is None:
        return np.zeros(2 + 2 * n)
    b = np.asarray(background, dtype=np.float64)
    if b.shape != (2 + 2 * n,) or not np.isfinite(b).all() or (b < 0).any():
        raise InputError(
            f"{name} must be a vector [c, r, m_1..m_N, t_1..t_N] of {2 + 2 * n} finite non-negative "
            f"numbers for N = {n}; got shape {b.shape}. Build it with background_vector() or update_background()."
        )
    return b


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def background_vector(stats: StatsTable, rows: Any = None, *, metric: str = "bleu",
                      ref_length: str = "closest", max_ngram_order: int | None = None) -> NDArray[np.float64]:
    """Summed statistics of some rows (e.g. last iteration's oracles) as a background vector.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b", "c"], [["a b", "c d"]], tokenize="none")
    >>> background_vector(st, max_ngram_order=1).tolist()
    [3.0, 4.0, 3.0, 3.0]
    """
    v = stats_vectors(stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
    return (v if rows is None else v[np.asarray(rows)]).sum(axis=0)


def update_background(background: Any, vectors: Any, *, decay: float = 0.9) -> NDArray[np.float64]:
    r"""Exponentially decayed pseudo-document: :math:`B \leftarrow \gamma\,(B + s)`.

    With several rows in ``vectors`` the updates apply one after another
    (row order), in closed form: :math:`B_K = \gamma^K B_0 + \sum_{j=1}^{K}
    \gamma^{K-j+1} s_j`.

    Parameters
    ----------
    background : array_like, shape (2 + 2N,) or None
        Current :math:`B` (``None``: zeros).
    vectors : array_like, shape (2 + 2N,) or (K, 2 + 2N)
        Statistics vectors of the sentences added (e.g. the oracle of each
        source), from :func:`stats_vectors`.
    decay : float
        :math:`\gamma` in (0, 1]: 0.9 as in Chiang et al. (2008) and Nakov et
        al. (2012); Cherry & Foster's k-best MIRA use 0.999.

    Examples
    --------
    >>> update_background(None, [[1, 1, 1, 1], [1, 1, 0, 1]], decay=0.5).tolist()
    [0.75, 0.75, 0.25, 0.75]
    """
    decay = check_number("decay", decay, unit=True)
    v = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
    n = (v.shape[-1] - 2) // 2
    b = _check_background(background, n)
    if v.ndim != 2 or v.shape[-1] != b.shape[0]:
        raise InputError(f"vectors must have rows of length {b.shape[0]} like background; got shape {v.shape}.")
    k = v.shape[0]
    powers = decay ** np.arange(k, 0, -1, dtype=np.float64)  # γ^(K-j+1), j = 1..K
    return decay ** k * b + powers @ v


def _with_background(s: SentenceStats, background: Any) -> tuple[np.ndarray, ...]:
    n = s.match.shape[-1]
    b = _check_background(background, n)
    return (s.match + b[2:2 + n], s.total + b[2 + n:], s.hyp_len + b[0], s.ref_len + b[1]), b


def _pseudo_doc(s: SentenceStats, *, background: Any = None) -> np.ndarray:
    (m, t, c, r), _ = _with_background(s, background)
    return bleu_scores(m, t, c, r, smooth_method="none")  # corpus BLEU of B + s, unsmoothed


def _chiang_gain(s: SentenceStats, *, background: Any = None, o_len: Any = 1.0) -> np.ndarray:
    (m, t, c, r), b = _with_background(s, background)
    n = s.match.shape[-1]
    base = bleu_scores(b[None, 2:2 + n], b[None, 2 + n:], b[:1], b[1:2], smooth_method="none")[0]
    o = np.asarray(o_len, dtype=np.float64)
    if not np.isfinite(o).all() or (o.ndim and o.shape != s.hyp_len.shape):
        raise InputError(f"o_len must be a finite number or one per row ({len(s.hyp_len)}); got shape {o.shape}.")
    return o * (bleu_scores(m, t, c, r, smooth_method="none") - base)


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def pseudo_document_bleu(stats: StatsTable, background: Any = None, *, metric: str = "bleu",
                         ref_length: str = "closest", max_ngram_order: int | None = None) -> NDArray[np.float64]:
    r"""Each row scored inside a pseudo-document: :math:`\mathrm{BLEU}(B + s_i)`, all rows at once.

    .. math::

        \mathrm{BLEU}(B + s) = \mathrm{BP}(c_B + c,\ r_B + r)\,
            \Big(\prod_{n=1}^{N} \frac{m_{B,n} + m_n}{t_{B,n} + t_n}\Big)^{1/N}

    unsmoothed (the background supplies the counts); Watanabe et al. (2007),
    Chiang et al. (2008), Cherry & Foster (2012).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c d", "x y"], [["a b c d", "a b"]], tokenize="none")
    >>> B = update_background(None, stats_vectors(st)[:1], decay=0.9)
    >>> pseudo_document_bleu(st, B).round(2).tolist()
    [100.0, 82.76]
    """
    return _pseudo_doc(sentence_stats(stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order),
                       background=background)


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def chiang_gain(stats: StatsTable, background: Any = None, *, o_len: Any = 1.0, metric: str = "bleu",
                ref_length: str = "closest", max_ngram_order: int | None = None) -> NDArray[np.float64]:
    r"""Chiang-style gain of each row: :math:`O_{len}\,(\mathrm{BLEU}(B + s) - \mathrm{BLEU}(B))`.

    BLEU on the 0–100 scale (divide by 100 for Chiang et al.'s scale);
    ``o_len`` is the source length of the pseudo-document, a number or one per
    row (Chiang et al., 2008, section 2).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c d", "x y"], [["a b c d", "a b"]], tokenize="none")
    >>> B = update_background(None, stats_vectors(st)[:1], decay=0.9)
    >>> chiang_gain(st, B, o_len=3.6).round(2).tolist()
    [0.0, -62.06]
    """
    return _chiang_gain(sentence_stats(stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order),
                        background=background, o_len=o_len)


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class SentenceVariant:
    """One registered sentence-level variant.

    Attributes
    ----------
    name : str
        Registry name (what ``bleustats kbest -m`` takes).
    compute : callable
        ``compute(SentenceStats, **options) -> ndarray`` (0–100 scale).
    formula : str
        The formula in LaTeX.
    reference : str
        Where it is defined.
    options : dict
        Default options (overridable per call).
    lower, upper : float or None
        Bounds of the score (``None``: unbounded on that side).
    monotone : bool
        Never decreases when a match is added (the property tests check it).
    extra_orders : int
        Orders beyond N the statistics must have (``chen-cherry:5`` / ``:7``: 1).
    """

    name: str
    compute: Callable[..., np.ndarray]
    formula: str
    reference: str
    options: Mapping[str, Any] = field(default_factory=dict)
    lower: float | None = 0.0
    upper: float | None = 100.0
    monotone: bool = True
    extra_orders: int = 0

    def __call__(self, s: SentenceStats, **options: Any) -> np.ndarray:
        unknown = set(options) - set(self.options)
        if unknown:
            allowed = ", ".join(sorted(self.options)) or "none"
            raise InputError(
                f"{self.name}: unknown option(s) {', '.join(sorted(unknown))}; this variant takes: {allowed}."
            )
        return self.compute(s, **{**self.options, **options})


_BP = r"\mathrm{BP} = \min(1, e^{1 - r/c})"
_NAKOV_REF = "Nakov, Guzmán & Vogel (2012), COLING, section 3"


def _nakov_variant(fixes: frozenset[str]) -> SentenceVariant:
    name = "nakov:" + ",".join(f for f in NAKOV_FIXES if f in fixes)
    if "pc-unsmoothed" in fixes:
        pc = r"\big(\prod_n m_n/t_n\big)^{1/N}"
    elif "pc-grounded" in fixes:
        pc = r"\big(\prod_n \tfrac{m_n+1}{t_n+1}\big)^{1/N} - \big(\prod_n \tfrac{1}{t_n+1}\big)^{1/N}"
    else:
        pc = r"\big(\prod_n \tfrac{m_n+1}{t_n+1}\big)^{1/N}"
    r = "r"
    if "scaled" in fixes:
        r = r"r \cdot \mathrm{ILR}"
    if "bp-smoothed" in fixes:
        r = f"({r} + 1)"
    bp = rf"e^{{1 - {r}/c}}" if "unclipped" in fixes else rf"\min(1, e^{{1 - {r}/c}})"

    def compute(s: SentenceStats, *, ilr: float = 1.0) -> np.ndarray:
        return _nakov(s, fixes=fixes, ilr=ilr)

    return SentenceVariant(name, compute, rf"100 \cdot {bp} \cdot {pc}", _NAKOV_REF, {"ilr": 1.0},
                          upper=100.0 * math.e if "unclipped" in fixes else 100.0)


def _parse_nakov(spec: str) -> frozenset[str]:
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    bad = [p for p in parts if p not in NAKOV_FIXES]
    if bad or not parts:
        raise InputError(
            f"variant 'nakov:{spec}': fixes must be a comma-separated list of {', '.join(NAKOV_FIXES)}; "
            f"got {', '.join(map(repr, bad)) or 'nothing'}. Example: 'nakov:bp-smoothed,pc-grounded'."
        )
    if "pc-unsmoothed" in parts and "pc-grounded" in parts:
        raise InputError(f"variant 'nakov:{spec}': pc-unsmoothed and pc-grounded are alternative precision "
                         "components; choose one.")
    return frozenset(parts)


def _cc_variant(method: int) -> SentenceVariant:
    formulas = {
        1: r"p_n = \epsilon / t_n \text{ if } m_n = 0",
        2: r"p_1 = m_1/t_1,\ p_n = (m_n + 1)/(t_n + 1)\ (n \ge 2)",
        3: r"p_n = 1/(2^{k} t_n) \text{ for the k-th order with } m_n = 0",
        4: r"p_n = \ln c / (2^{k} K t_n) \text{ for the k-th order with } m_n = 0",
        5: r"p'_n = (p'_{n-1} + p_n + p_{n+1})/3,\ p'_0 = p_1 + 1",
        6: r"p_n = (m_n + \alpha\, p_{n-1}^2/p_{n-2}) / (t_n + \alpha)\ (n \ge 3)",
        7: r"\text{method 4, then method 5}",
    }
    options = {1: {"epsilon": 0.1}, 4: {"k": 5.0}, 6: {"alpha": 5.0}, 7: {"k": 5.0}}.get(method, {})

    def compute(s: SentenceStats, **opts: Any) -> np.ndarray:
        return _chen_cherry(s, method=method, **opts)

    return SentenceVariant(
        f"chen-cherry:{method}", compute,
        rf"100 \cdot {_BP} \cdot (\prod_n p_n)^{{1/N}},\ {formulas[method]}",
        f"Chen & Cherry (2014), WMT, method {method}; NLTK SmoothingFunction.method{method}",
        options, upper=None if method in (5, 6, 7) else 100.0, monotone=method != 6,
        extra_orders=1 if method in (5, 7) else 0,
    )


def _sacre_variant(method: str) -> SentenceVariant:
    def compute(s: SentenceStats, **opts: Any) -> np.ndarray:
        return _sacrebleu(s, smooth_method=method, **opts)

    return SentenceVariant(
        f"sacrebleu:{method}", compute,
        rf"\text{{sacreBLEU BLEU.compute\_bleu, smooth\_method='{method}'}}",
        "Post (2018); sacrebleu.sentence_bleu 2.x", {"smooth_value": None, "use_effective_order": True},
    )


def _build_registry() -> dict[str, SentenceVariant]:
    reg: list[SentenceVariant] = [
        SentenceVariant("bleu+1", lambda s: _bleu_plus_one(s),
                       rf"100 \cdot {_BP} \cdot \big(\prod_n \tfrac{{m_n+1}}{{t_n+1}}\big)^{{1/N}}",
                       "Hopkins & May (2011) PRO; Moses mert/BleuScorer.cpp smoothedSentenceBleu"),
        SentenceVariant("lin-och", lambda s: _lin_och(s),
                       rf"100 \cdot {_BP} \cdot \big(\tfrac{{m_1}}{{t_1}} \prod_{{n \ge 2}} "
                       r"\tfrac{m_n+1}{t_n+1}\big)^{1/N}",
                       "Lin & Och (2004), COLING"),
    ]
    for combo in (("pc-unsmoothed",), ("pc-grounded",), ("bp-smoothed",), ("bp-smoothed", "pc-grounded"),
                  ("unclipped",), ("scaled",), ("unclipped", "scaled")):
        reg.append(_nakov_variant(frozenset(combo)))
    reg.append(SentenceVariant(
        "pseudo-doc", lambda s, background=None: _pseudo_doc(s, background=background),
        r"\mathrm{BLEU}(B + s)", "Watanabe et al. (2007); Chiang et al. (2008); Cherry & Foster (2012)",
        {"background": None}))
    reg.append(SentenceVariant(
        "chiang-gain", lambda s, background=None, o_len=1.0: _chiang_gain(s, background=background, o_len=o_len),
        r"O_{len}\,(\mathrm{BLEU}(B + s) - \mathrm{BLEU}(B))", "Chiang, Marton & Resnik (2008), EMNLP",
        {"background": None, "o_len": 1.0}, lower=None, upper=None))
    reg += [_sacre_variant(m) for m in SMOOTH_METHODS]
    reg += [_cc_variant(i) for i in range(1, 8)]
    registry = {m.name: m for m in reg}
    if tuple(registry) != SENTENCE_VARIANT_NAMES:  # the names a command's --help lists without this module
        raise RuntimeError("engine._options.SENTENCE_VARIANT_NAMES differs from the registered variants")
    return registry


#: Every registered sentence-level variant, by name (the property tests walk this).
SENTENCE_VARIANTS: dict[str, SentenceVariant] = _build_registry()


def get_variant(name: str) -> SentenceVariant:
    """The registered variant ``name``; any combination of Nakov fixes is accepted.

    Examples
    --------
    >>> get_variant("nakov:pc-grounded,bp-smoothed").name
    'nakov:pc-grounded,bp-smoothed'
    >>> get_variant("bleu+1").reference
    'Hopkins & May (2011) PRO; Moses mert/BleuScorer.cpp smoothedSentenceBleu'
    """
    if not isinstance(name, str):
        raise TypeError(f"variant name must be a str; got {type(name).__name__} {name!r}.")
    if name in SENTENCE_VARIANTS:
        return SENTENCE_VARIANTS[name]
    if name.startswith("nakov:"):
        fixes = _parse_nakov(name[len("nakov:"):])
        variant = _nakov_variant(fixes)
        return SentenceVariant(name, variant.compute, variant.formula, variant.reference, variant.options,
                               variant.lower, variant.upper)
    shown = ", ".join(SENTENCE_VARIANTS)
    raise InputError(f"variant must be one of {shown} (or 'nakov:' with any comma-separated fixes of "
                     f"{', '.join(NAKOV_FIXES)}); got {name!r}.")


@renamed_keywords(max_order="max_ngram_order")
def required_order(names: Iterable[str], max_ngram_order: int = 4) -> int:
    """The statistics order the variants ``names`` need to score at order ``max_ngram_order``.

    Examples
    --------
    >>> required_order(["bleu+1", "chen-cherry:7"], 4)
    5
    """
    return max_ngram_order + max((get_variant(n).extra_orders for n in names), default=0)


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def score_variant(
    stats: StatsTable,
    name: str,
    *,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int | None = None,
    **options: Any,
) -> NDArray[np.float64]:
    r"""Score every row of ``stats`` under the sentence-level variant ``name``.

    Parameters
    ----------
    stats : StatsTable
        From :func:`bleustats.compute_stats` (any number of hypotheses per
        segment: a k-best list is scored in one call).
    name : str
        A key of :data:`SENTENCE_VARIANTS` (or any ``nakov:`` combination).
    metric : {'bleu', 'delta_bleu'}
        Plain or ΔBLEU-weighted statistics.
    ref_length : {'closest', 'shortest', 'average'}
        Reference length :math:`r` of the brevity penalty.
    max_ngram_order : int, optional
        Order N (default: the table's). ``chen-cherry:5`` / ``:7`` also read
        order N+1, so their table needs ``max_ngram_order >= N + 1`` (see
        :func:`required_order`).
    **options
        Variant options (see ``SENTENCE_VARIANTS[name].options``): ``ilr``
        (Nakov ``scaled``), ``background`` / ``o_len`` (pseudo-document),
        ``smooth_value`` / ``use_effective_order`` (sacreBLEU), ``epsilon`` /
        ``k`` / ``alpha`` (Chen & Cherry).

    Returns
    -------
    numpy.ndarray
        One float64 score per row, 0–100 scale.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["the cat sat"], [["the cat sat down"]], tokenize="none")
    >>> score_variant(st, "nakov:unclipped,scaled", ilr=0.5).round(2).tolist()
    [139.56]
    """
    variant = get_variant(name)
    s = sentence_stats(stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
    return variant(s, **options)


@renamed_keywords(statistic="metric", max_order="max_ngram_order")
def score_variants(
    stats: Any,
    names: Sequence[str],
    *,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, NDArray[np.float64]]:
    """Several variants in one pass over the statistics (columns read once).

    ``stats`` is a :class:`~bleustats.engine.stats.StatsTable` or a partitioned
    :class:`~bleustats.engine.dataset.StatsDataset` (scored batch by batch on
    its executor, :mod:`bleustats.engine.protocol`). A variant that needs the
    whole table (a ``background`` vector) takes it in ``options``, computed
    beforehand (e.g. from ``stats.column_totals``). ``options`` maps a variant
    name to its options; the other parameters are
    those of :func:`score_variant`.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["a b c d"], [["a b c d"]], tokenize="none", max_ngram_order=5)
    >>> out = score_variants(st, ["bleu+1", "chen-cherry:5"], max_ngram_order=4)
    >>> {k: v.round(2).tolist() for k, v in out.items()}
    {'bleu+1': [100.0], 'chen-cherry:5': [101.06]}
    """
    names = list(names)
    for n in names:
        get_variant(n)  # unknown names fail before any row is read
    options = dict(options or {})
    unknown = set(options) - set(names)
    if unknown:
        raise InputError(f"options: keys must be names in names ({', '.join(names)}); got {sorted(unknown)}.")
    check_choice("metric", metric, METRICS)
    if metric == "delta_bleu":
        check_delta_defined(stats)  # every bad segment named, over all batches
    parts = stats.map_batches(_variants_batch, names=names, metric=metric, ref_length=ref_length,
                              max_ngram_order=max_ngram_order, options=options)
    if len(parts) == 1:
        return parts[0]
    return {n: np.concatenate([p[n] for p in parts]) for n in names}


def _variants_batch(batch: StatsTable, *, names: list[str], metric: str, ref_length: str,
                    max_ngram_order: int | None, options: dict[str, Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """The variants of one batch of rows (names, options and ΔBLEU's weights already checked)."""
    s = sentence_stats(batch, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
    return {name: get_variant(name)(s, **options.get(name, {})) for name in names}
