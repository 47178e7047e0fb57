r"""Pairwise sentence scores: every hypothesis against every reference, per source, from shared n-gram counts.

A pairwise matrix :math:`U_{ij} = u(h_i, r_j)` holds the sentence-level
score of hypothesis :math:`h_i` with :math:`r_j` as its only reference. Each
text of a source is tokenized and its n-grams are counted once; every pair's
clipped matches then come from one numba kernel
(:mod:`bleustats.tools._mbr_kernels`), and the scores from the same
statistics-to-score functions as everything else in bleustats:

* ``chrf`` / ``chrf++``: :func:`bleustats.metrics.chrf.chrf_from_sums`, all of
  sacreBLEU's ``CHRF`` options; each entry equals
  ``CHRF(...).sentence_score(h, [r]).score``;
* ``bleu``: :func:`bleustats.metrics.formula.bleu_from_sums` with effective
  order, equal to ``BLEU(effective_order=True, ...).sentence_score(h, [r]).score``;
* any sentence-BLEU variant of :data:`bleustats.metrics.sentence.SENTENCE_VARIANTS`
  (``bleu+1``, ``nakov:...``, ``chen-cherry:k``, ...), its own definition on the
  pair's statistics;
* ``ter``: :func:`bleustats.engine.ter_stats.ter_statistics` for each pair
  (tercom's shift search has no shared-count shortcut), equal to
  ``TER(...).sentence_score(h, [r]).score``.

With ``aggregate=True`` (Vamvas & Sennrich, 2024) there is one score per
hypothesis, against the pooled statistics of all references of its source
:math:`R = \{r_1..r_M\}`: the n-gram counts of the references are summed and
every order's statistics are taken against that sum with the hypothesis'
counts multiplied by :math:`M`,

.. math::

    \mathrm{hyp}_n = M |h|_n, \quad \mathrm{ref}_n = \sum_j |r_j|_n, \quad
    \mathrm{match}_n = \sum_g \min\big(M \#g(h), \textstyle\sum_j \#g(r_j)\big),

which is chrF against the averaged reference counts (fastchrf's
``aggregate_chrf``, in float64 here). For BLEU the matches are divided by
:math:`M` (clipping by the averaged counts) and the reference length is the
mean of the :math:`|r_j|`. Work is linear in :math:`M`.

References
----------
J. Vamvas, R. Sennrich. Linear-time minimum Bayes risk decoding with reference
aggregation. ACL 2024.

Examples
--------
>>> pairwise_scores(["a cat", "the cat"], ["the cat", "a dog"], metric="chrf").round(4).tolist()
[[31.25, 6.25], [100.0, 5.6818]]
>>> pairwise_scores(["the cat sat"], ["the cat sat", "a cat"], metric="bleu").round(4).tolist()
[[100.0, 27.5161]]
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._kernel_cache import guarded
from ..engine import _columns as columns
from ..engine.chrf_stats import chrf_options
from ..engine.encode import encode_segment_ids
from ..engine.ter_stats import ter_statistics
from ..errors import InputError
from ..engine._options import SMOOTH_METHODS
from ..metrics.formula import bleu_from_sums, check_scoring_options
from ..metrics.chrf import chrf_from_sums
from ..metrics.sentence import SentenceStats, get_variant
from ..metrics.ter import ter_from_sums
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS
from . import _mbr_kernels
from ._options import PAIRWISE_METRICS

__all__ = ["PAIRWISE_METRICS", "Utility", "pairwise_scores", "pairwise_scores_batched", "utility"]

_k = guarded(_mbr_kernels)

#: Metrics whose pooled statistics ``aggregate=True`` scores.
AGGREGATE_FAMILIES = ("chrf", "bleu")

_TER_OPTIONS = {"normalized": False, "no_punct": False, "asian_support": False, "case_sensitive": False}
_PUNCTUATION = frozenset(string.punctuation)
#: Pairs scored per batch of sources (bounds the statistics held at once; a larger source is one batch).
BATCH_PAIRS = 1 << 18


@dataclass(frozen=True)
class Utility:
    """A checked pairwise metric: what :func:`utility` returns and every function here takes.

    Attributes
    ----------
    name : str
        The metric name as given (``'chrf'``, ``'bleu+1'``, ...).
    family : {'chrf', 'bleu', 'ter'}
    options : dict
        The normalised options of the family.
    variant : str or None
        The sentence-BLEU variant (``None``: sacreBLEU's sentence BLEU).
    variant_options : dict
        Options passed to the variant.
    loss : bool
        True for TER: lower is better.
    """

    name: str
    family: str
    options: dict[str, Any]
    variant: str | None = None
    variant_options: dict[str, Any] = field(default_factory=dict)
    loss: bool = False

    def signature(self) -> str:
        """``name|option:value|...``, what the outputs record.

        Examples
        --------
        >>> utility("chrf++").signature()
        'chrf++|char_order:6|word_order:2|beta:2|lowercase:False|whitespace:False|eps_smoothing:False'
        """
        parts = [self.name] + [f"{k}:{v}" for k, v in self.options.items()]
        parts += [f"{k}:{v}" for k, v in self.variant_options.items()]
        return "|".join(parts)


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InputError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}.")


def utility(metric: str = "chrf", **options: Any) -> Utility:
    """Check a metric name and its options once; the result is what the pairwise functions take.

    Parameters
    ----------
    metric : str
        ``'chrf'``, ``'chrf++'`` (options ``char_order``, ``word_order``,
        ``beta``, ``lowercase``, ``whitespace``, ``eps_smoothing``, sacreBLEU's
        ``CHRF``); ``'bleu'`` (``tokenize``, ``lowercase``, ``max_ngram_order``,
        ``smooth_method``, ``smooth_value``; effective order as sacreBLEU's
        sentence BLEU); any sentence-BLEU variant name (``tokenize``,
        ``lowercase``, ``max_ngram_order`` and the variant's own options);
        ``'ter'`` (``normalized``, ``no_punct``, ``asian_support``,
        ``case_sensitive``).

    Raises
    ------
    bleustats.InputError
        An unknown metric or option, or a bad value, naming it.

    Examples
    --------
    >>> utility("bleu+1").variant
    'bleu+1'
    >>> utility("chrf", lowercase="yes")
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: lowercase must be True or False; got str 'yes'.
    """
    if not isinstance(metric, str):
        raise InputError(f"metric must be a str; got {type(metric).__name__} {metric!r:.40}.")
    opts = dict(options)

    def unknown(allowed: Sequence[str]) -> None:
        bad = sorted(set(opts) - set(allowed))
        if bad:
            raise InputError(f"metric {metric!r}: unknown option(s) {', '.join(bad)}; it takes "
                             f"{', '.join(allowed) or 'none'}.")

    if metric in ("chrf", "chrf++"):
        allowed = ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing")
        unknown(allowed)
        if metric == "chrf++":
            opts.setdefault("word_order", 2)
        for name in ("lowercase", "whitespace", "eps_smoothing"):
            if name in opts:
                _flag(name, opts[name])
        try:
            return Utility(metric, "chrf", chrf_options(**opts))
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if metric == "ter":
        unknown(tuple(_TER_OPTIONS))
        return Utility(metric, "ter", {k: _flag(k, opts.get(k, v)) for k, v in _TER_OPTIONS.items()}, loss=True)
    common = {"tokenize": opts.pop("tokenize", DEFAULT_TOKENIZER), "lowercase": opts.pop("lowercase", False),
              "max_ngram_order": opts.pop("max_ngram_order", 4)}
    if common["tokenize"] not in SACREBLEU_TOKENIZERS:
        raise InputError(f"tokenize must be one of {', '.join(SACREBLEU_TOKENIZERS)}; got {common['tokenize']!r}.")
    _flag("lowercase", common["lowercase"])
    n = common["max_ngram_order"]
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 16:
        raise InputError(f"max_ngram_order must be an integer from 1 to 16 (sacreBLEU's default is 4); got {n!r}.")
    common["max_ngram_order"] = int(n)
    if metric == "bleu":
        unknown(("smooth_method", "smooth_value"))
        smooth = {"smooth_method": opts.get("smooth_method", "exp"), "smooth_value": opts.get("smooth_value")}
        try:
            check_scoring_options(**smooth)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        return Utility(metric, "bleu", {**common, **smooth})
    try:
        variant = get_variant(metric)
    except InputError:
        raise InputError(
            f"metric must be one of {', '.join(PAIRWISE_METRICS)} or a sentence-BLEU variant "
            f"(bleu+1, lin-och, nakov:..., chen-cherry:1..7, sacrebleu:{'/'.join(SMOOTH_METHODS)}, ...); "
            f"got {metric!r}.") from None
    unknown(tuple(variant.options))
    return Utility(variant.name, "bleu", common, variant=variant.name, variant_options=opts)


def _as_utility(metric: str | Utility, options: dict[str, Any]) -> Utility:
    if isinstance(metric, Utility):
        if options:
            raise InputError(f"options {sorted(options)} given with a Utility; put them in utility(...) instead.")
        return metric
    return utility(metric, **options)


# --------------------------------------------------------------------------- texts → integer tokens


def _chrf_words(line: str) -> list[str]:
    """sacreBLEU's chrF++ words: ``str.split()`` tokens, then one ASCII punctuation mark split off."""
    out: list[str] = []
    for tok in line.split():
        if len(tok) >= 2 and tok[-1] in _PUNCTUATION:
            out += [tok[:-1], tok[-1]]
        elif len(tok) >= 2 and tok[0] in _PUNCTUATION:
            out += [tok[0], tok[1:]]
        else:
            out.append(tok)
    return out


def _code_points(lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Code points of every line, flat, with the CSR pointer."""
    lengths = np.fromiter((len(s) for s in lines), np.int64, len(lines))
    tok_off = np.zeros(len(lines) + 1, np.int64)
    np.cumsum(lengths, out=tok_off[1:])
    flat = "".join(lines).encode("utf-32-le", "surrogatepass")
    return np.frombuffer(flat, np.uint32).astype(np.int64), tok_off


def _word_ids(hyps: list[str], refs: list[str] | None, hyp_ptr: np.ndarray, ref_ptr: np.ndarray | None,
              tokenize: str, lowercase: bool) -> tuple[np.ndarray, np.ndarray]:
    """Exact word ids (sacreBLEU's tokenizer, then whitespace split) of the hypotheses, then the references.

    Ids are shared within each source (the encoder's blocks hold whole sources).
    """
    if refs is None:
        refs, ref_ptr = [], np.zeros(len(hyp_ptr), np.int64)
    # columns.strings, not pa.array: pyarrow's pandas shim would import pandas
    ids, tok_off, _, _ = encode_segment_ids(columns.strings(hyps, where="hypotheses"),
                                            columns.strings(refs, where="references"), hyp_ptr, ref_ptr,
                                            tokenize=tokenize, lowercase=lowercase)
    return np.asarray(ids, np.int64), np.asarray(tok_off, np.int64)


def _streams(hyps: list[str], refs: list[str] | None, hyp_ptr: np.ndarray, ref_ptr: np.ndarray | None,
             u: Utility) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(tokens, offsets, max order) of each n-gram stream the metric counts; texts are hypotheses, then references."""
    o = u.options
    if u.family == "chrf":
        lines = hyps + (refs or [])
        if o["lowercase"]:
            lines = [s.lower() for s in lines]
        out = []
        if o["char_order"]:
            chars = lines if o["whitespace"] else ["".join(s.split()) for s in lines]
            out.append((*_code_points(chars), o["char_order"]))
        if o["word_order"]:
            words = [" ".join(_chrf_words(s)) for s in lines]
            n_h = len(hyps)
            out.append((*_word_ids(words[:n_h], None if refs is None else words[n_h:], hyp_ptr, ref_ptr,
                                   "none", False), o["word_order"]))
        return out
    order = o["max_ngram_order"] + (get_variant(u.variant).extra_orders if u.variant else 0)
    return [(*_word_ids(hyps, refs, hyp_ptr, ref_ptr, o["tokenize"], o["lowercase"]), order)]


# --------------------------------------------------------------------------- statistics → scores


def _orders_totals(lengths: np.ndarray, order: int) -> np.ndarray:
    """Number of n-grams of each order 1..order of texts of ``lengths`` tokens, shape (n, order)."""
    return np.maximum(lengths[:, None] - np.arange(order)[None, :], 0)


def _chrf_scores(u: Utility, parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """chrF of stacked rows; ``parts`` = per stream (hyp n-grams, ref n-grams, matches), each (P, order)."""
    cols = []
    for h, r, m in parts:
        for d in range(h.shape[1]):
            cols += [np.where(r[:, d] > 0, h[:, d], 0), r[:, d], m[:, d]]
    rows = np.stack(cols, axis=1)
    o = u.options
    return np.asarray(chrf_from_sums(rows, char_order=o["char_order"], word_order=o["word_order"], beta=o["beta"],
                                     eps_smoothing=o["eps_smoothing"]), np.float64).reshape(len(rows))


def _bleu_scores(u: Utility, match: np.ndarray, total: np.ndarray, hyp_len: np.ndarray,
                 ref_len: np.ndarray) -> np.ndarray:
    n = u.options["max_ngram_order"]
    match = match.astype(np.float64)
    total = total.astype(np.float64)
    hyp_len = hyp_len.astype(np.float64)
    ref_len = ref_len.astype(np.float64)
    if u.variant is None:
        return bleu_from_sums(match, total, hyp_len, ref_len, smooth_method=u.options["smooth_method"],
                              smooth_value=u.options["smooth_value"], use_effective_order=True)["score"]
    variant = get_variant(u.variant)
    extra = match.shape[1] > n
    s = SentenceStats(match[:, :n], total[:, :n], hyp_len, ref_len,
                      match[:, n] if extra else None, total[:, n] if extra else None)
    return np.asarray(variant(s, **u.variant_options), np.float64)


def _pair_indices(hyp_ptr: np.ndarray, ref_ptr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Text index of the hypothesis and the reference of every pair, and the per-source pair pointer."""
    n_h = np.diff(hyp_ptr)
    n_r = np.diff(ref_ptr)
    sizes = n_h * n_r
    pair_ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=pair_ptr[1:])
    src = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(pair_ptr[-1]) - pair_ptr[src]
    nr = np.maximum(n_r[src], 1)
    return hyp_ptr[src] + local // nr, ref_ptr[src] + local % nr, pair_ptr


def pairwise_batch(
    hypotheses: list[str],
    references: list[str] | None,
    hyp_ptr: NDArray[np.int64],
    ref_ptr: NDArray[np.int64] | None,
    u: Utility,
    *,
    aggregate: bool = False,
    exclude_self: bool = False,
) -> NDArray[np.float64]:
    r"""Scores of a batch of sources (the engine of every public function here).

    Parameters
    ----------
    hypotheses : list of str
        Source ``s`` has hypotheses ``hypotheses[hyp_ptr[s]:hyp_ptr[s+1]]``.
    references : list of str or None
        Source ``s`` has references ``references[ref_ptr[s]:ref_ptr[s+1]]``;
        ``None``: each source's hypotheses are its references.
    hyp_ptr, ref_ptr : int64 arrays of length n_sources + 1 (CSR pointers)
    u : Utility
    aggregate : bool
        One score per hypothesis against the pooled reference statistics.
    exclude_self : bool
        With ``aggregate`` and ``references=None``: leave each hypothesis out
        of its own pool (:math:`M - 1` references).

    Returns
    -------
    numpy.ndarray of float64
        ``aggregate=False``: every pair's score, source by source, each
        source's ``N × M`` matrix in row-major order; ``aggregate=True``: one
        score per hypothesis, in order.

    Examples
    --------
    >>> u = utility("bleu", tokenize="none")
    >>> pairwise_batch(["a b", "a c"], None, np.array([0, 2]), None, u).round(2).tolist()
    [100.0, 50.0, 50.0, 100.0]
    """
    hyp_ptr = np.asarray(hyp_ptr, np.int64)
    n_h = len(hypotheses)
    k_ref_ptr = hyp_ptr if references is None else np.asarray(ref_ptr, np.int64) + n_h
    if exclude_self and references is not None:
        raise InputError("exclude_self=True leaves a candidate out of its own pseudo-references, so the "
                         "pseudo-references must be the candidates; drop exclude_self or the separate references.")
    if u.family == "ter":
        if aggregate:
            raise InputError("aggregate=True: reference aggregation is defined for chrF and BLEU statistics; "
                             "TER has no pooled form. Use metric='chrf', 'chrf++' or a BLEU metric, or drop it.")
        lines = hypotheses + (references or [])
        hi, rj, _ = _pair_indices(hyp_ptr, k_ref_ptr)
        stats = ter_statistics([lines[i] for i in hi], [[lines[j]] for j in rj], references_layout="segments",
                               **u.options)
        return np.asarray(ter_from_sums(stats), np.float64).reshape(len(hi))
    streams = _streams(hypotheses, references, hyp_ptr, ref_ptr, u)
    if aggregate:
        return _aggregate_scores(u, streams, hyp_ptr, k_ref_ptr, exclude_self)
    if u.family == "chrf":
        return _fused_chrf(u, streams, hyp_ptr, k_ref_ptr, len(hypotheses) + len(references or []))
    hi, rj, pair_ptr = _pair_indices(hyp_ptr, k_ref_ptr)
    parts = []
    for tokens, tok_off, order in streams:
        m = _k.pairwise_matches(tokens, tok_off, hyp_ptr, k_ref_ptr, order, pair_ptr * order).reshape(-1, order)
        lengths = np.diff(tok_off)
        parts.append((_orders_totals(lengths[hi], order), _orders_totals(lengths[rj], order), m, lengths))
    h_tot, _, m, lengths = parts[0]
    return _bleu_scores(u, m, h_tot, lengths[hi], lengths[rj])


def _fused_chrf(u: Utility, streams: list, hyp_ptr: np.ndarray, ref_ptr: np.ndarray, n_texts: int) -> np.ndarray:
    """Every pair's sentence chrF from the fused kernel (matches and F-score in one pass)."""
    o = u.options
    empty = (np.zeros(0, np.int64), np.zeros(n_texts + 1, np.int64))
    chars = streams[0][:2] if o["char_order"] else empty
    words = streams[-1][:2] if o["word_order"] else empty
    pair_ptr = np.zeros(len(hyp_ptr), np.int64)
    np.cumsum(np.diff(hyp_ptr) * np.diff(ref_ptr), out=pair_ptr[1:])
    return _k.pairwise_chrf(*chars, o["char_order"], *words, o["word_order"], hyp_ptr, ref_ptr,
                            float(o["beta"] ** 2), o["eps_smoothing"], pair_ptr)


def _aggregate_scores(u: Utility, streams: list, hyp_ptr: np.ndarray, ref_ptr: np.ndarray,
                      exclude_self: bool) -> np.ndarray:
    """One score per hypothesis against its source's pooled references (module docstring)."""
    n_h = np.diff(hyp_ptr)
    n_r = np.diff(ref_ptr)
    src_of = np.repeat(np.arange(len(n_h)), n_h)
    m_eff = n_r[src_of] - (1 if exclude_self else 0)
    if (m_eff < 1).any():
        s = int(src_of[np.flatnonzero(m_eff < 1)[0]])
        raise InputError(f"source {s}: no pseudo-reference to pool (it has {int(n_r[s])} reference(s)"
                         f"{' and exclude_self leaves out the candidate itself' if exclude_self else ''}); "
                         "give every source at least one pseudo-reference.")
    n_hyp = int(hyp_ptr[-1])
    parts = []
    for tokens, tok_off, order in streams:
        m = _k.aggregate_matches(tokens, tok_off, hyp_ptr, ref_ptr, order, exclude_self)
        lengths = np.diff(tok_off)
        tot = _orders_totals(lengths, order)
        csum = np.zeros((len(lengths) + 1, order), np.int64)
        np.cumsum(tot, axis=0, out=csum[1:])
        lsum = np.r_[0, np.cumsum(lengths)]
        r = (csum[ref_ptr[1:]] - csum[ref_ptr[:-1]])[src_of]
        rl = (lsum[ref_ptr[1:]] - lsum[ref_ptr[:-1]])[src_of].astype(np.float64)
        h = tot[:n_hyp]
        if exclude_self:
            r = r - h
            rl = rl - lengths[:n_hyp]
        parts.append((h, r, m, lengths[:n_hyp], rl))
    if u.family == "chrf":
        return _chrf_scores(u, [(p[0] * m_eff[:, None], p[1], p[2]) for p in parts])
    h, _, m, hl, rl = parts[0]
    return _bleu_scores(u, m / m_eff[:, None], h, hl, rl / m_eff)


# --------------------------------------------------------------------------- public entry points


def _check_texts(name: str, texts: Any) -> list[str]:
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__iter__"):
        raise InputError(f"{name} must be a list of str; got {type(texts).__name__} {texts!r:.40}.")
    out = list(texts)
    bad = [i for i, t in enumerate(out) if not isinstance(t, str)]
    if bad:
        raise InputError(f"{name}[{bad[0]}] must be a str; got {type(out[bad[0]]).__name__} {out[bad[0]]!r:.40}.")
    return out


def pairwise_scores(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    metric: str | Utility = "chrf",
    **options: Any,
) -> NDArray[np.float64]:
    r"""The ``N × M`` matrix of sentence scores of every hypothesis against every single reference.

    .. math::

        U_{ij} = \mathrm{metric}(h_i, [r_j])

    Parameters
    ----------
    hypotheses : list of str
    references : list of str
        Each one is scored as the only reference of each hypothesis.
    metric : str or Utility
        See :func:`utility`; ``'ter'`` gives TER (lower is better).
    **options
        The metric's options (see :func:`utility`).

    Returns
    -------
    numpy.ndarray of float64, shape (N, M)
        Each entry equals sacreBLEU 2.6's ``sentence_score(h_i, [r_j]).score``
        for chrF / chrF++ / BLEU (effective order) / TER with the same options.

    Examples
    --------
    >>> pairwise_scores(["a b c", "a b"], ["a b c"], metric="ter").tolist()
    [[0.0], [33.33333333333333]]
    """
    u = _as_utility(metric, options)
    hyps = _check_texts("hypotheses", hypotheses)
    refs = _check_texts("references", references)
    n, m = len(hyps), len(refs)
    if n == 0 or m == 0:
        return np.zeros((n, m), np.float64)
    return pairwise_batch(hyps, refs, np.array([0, n]), np.array([0, m]), u).reshape(n, m)


def source_batches(sizes: NDArray[np.int64], limit: int) -> Iterator[tuple[int, int]]:
    """Consecutive source ranges whose sizes sum to at most ``limit`` (a larger source alone).

    Examples
    --------
    >>> list(source_batches(np.array([3, 3, 5, 1]), 6))
    [(0, 2), (2, 4)]
    """
    start, acc = 0, 0
    for s, size in enumerate(sizes):
        if s > start and acc + size > limit:
            yield start, s
            start, acc = s, 0
        acc += int(size)
    if start < len(sizes):
        yield start, len(sizes)


def csr(lists: Sequence[Sequence[str]]) -> tuple[list[str], NDArray[np.int64]]:
    """Lists of texts flattened, with their CSR pointer.

    Examples
    --------
    >>> csr([["a", "b"], [], ["c"]])
    (['a', 'b', 'c'], array([0, 2, 2, 3]))
    """
    flat = [t for group in lists for t in group]
    ptr = np.zeros(len(lists) + 1, np.int64)
    np.cumsum([len(g) for g in lists], out=ptr[1:])
    return flat, ptr


def pairwise_scores_batched(
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]] | None = None,
    *,
    metric: str | Utility = "chrf",
    batch_pairs: int = BATCH_PAIRS,
    **options: Any,
) -> Iterator[NDArray[np.float64]]:
    """:func:`pairwise_scores` for many sources, yielded one matrix per source.

    Sources are scored in batches of about ``batch_pairs`` pairs, so memory
    stays bounded by a batch (or by one source's matrix when it is larger).

    Parameters
    ----------
    hypotheses : list of lists of str
        One list per source.
    references : list of lists of str, optional
        One list per source; default: each source's hypotheses (MBR's
        pseudo-references, each hypothesis included).
    metric, **options
        As :func:`pairwise_scores`.
    batch_pairs : int
        Pairs scored per batch.

    Examples
    --------
    >>> [m.shape for m in pairwise_scores_batched([["a", "b"], ["c"]])]
    [(2, 2), (1, 1)]
    """
    u = _as_utility(metric, options)
    hyps = [_check_texts(f"hypotheses[{s}]", h) for s, h in enumerate(hypotheses)]
    refs = None if references is None else [_check_texts(f"references[{s}]", r) for s, r in enumerate(references)]
    if refs is not None and len(refs) != len(hyps):
        raise InputError(f"references: {len(refs)} lists for {len(hyps)} sources; give one list per source.")
    sizes = np.array([len(h) * (len(h) if refs is None else len(refs[s])) for s, h in enumerate(hyps)], np.int64)
    for a, b in source_batches(sizes, batch_pairs):
        h_flat, h_ptr = csr(hyps[a:b])
        r_flat, r_ptr = (None, None) if refs is None else csr(refs[a:b])
        flat = pairwise_batch(h_flat, r_flat, h_ptr, r_ptr, u) if sizes[a:b].sum() else np.zeros(0)
        pos = 0
        for s in range(a, b):
            n = len(hyps[s])
            m = n if refs is None else len(refs[s])
            yield flat[pos:pos + n * m].reshape(n, m)
            pos += n * m
