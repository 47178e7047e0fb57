r"""BLEU's blind spots, measured (Callison-Burch, Osborne and Koehn, 2006).

BLEU scores a hypothesis from clipped n-gram match counts and its length only,
so many different hypotheses get exactly the same score. This module measures
that on real system output, with the statistics of :func:`bleustats.compute_stats`
(it counts no n-grams itself; the only extra bookkeeping is which *positions*
of a hypothesis hold a bigram that occurs in a reference).

**Bigram-mismatch segmentation.** For a hypothesis of :math:`k` tokens
:math:`h_1 \dots h_k`, position :math:`i` (:math:`1 \le i < k`) is a
*mismatch* when the bigram :math:`h_i h_{i+1}` occurs in no reference. Cutting
the hypothesis at every mismatch gives the *chunks*. With :math:`b_{pos}` the
number of bigram positions that are not mismatches,

.. math::

    \#\mathrm{chunks} = k - b_{pos} \quad (k \ge 1), \qquad
    b_{pos} \ge b = \mathrm{match}_2 ,

where :math:`b` is BLEU's clipped bigram match count. The two are equal unless
a bigram occurs more often in the hypothesis than in any reference. Every
n-gram that matches a reference lies inside one chunk, since an n-gram
across a cut contains that cut's unmatched bigram. So any reordering of the
chunks keeps every matched n-gram, and it can only add matches at the new
joins. Clipping is monotone in the hypothesis count, so no order's match
count can drop. Unigram counts, totals and the length do not change, so
neither do the brevity penalty or the denominators. All
:math:`\#\mathrm{chunks}!` chunk orders therefore score at least the
original's BLEU. The paper states the bound as :math:`(k - b)!`; both are
reported, as ``log10_permutations`` (:math:`\log_{10} \#\mathrm{chunks}!`)
and ``log10_bound`` (:math:`\log_{10} (k-b)!`), with ``math.lgamma`` because
the values pass :math:`10^{73}`. Chunks that are identical token strings give
the same text when swapped: ``log10_distinct`` divides out their
multiplicities.

The paper's Table 1 (its four references, compared case-insensitively) checks
this: 18 tokens, matches 15 / 10 / 5 / 3, 8 chunks, :math:`8! = 40{,}320`
permutations.

Everything here tokenizes once with :func:`bleustats.tokenizers.tokenize_lines`,
as sacreBLEU does, and then computes the statistics with ``tokenize='none'`` on
the tokens joined by single spaces, which gives the same counts. Texts the
module returns (permutations, reference draws) are therefore *tokenized*
strings, scored with ``tokenize='none'``.

References
----------
.. [1] C. Callison-Burch, M. Osborne and P. Koehn, "Re-evaluating the Role of
   BLEU in Machine Translation Research", EACL 2006, pp. 249–256.

Examples
--------
>>> seg = segment_bigrams("the cat sat on a mat", ["the cat sat on the mat"])
>>> seg.chunks
(('the', 'cat', 'sat', 'on'), ('a',), ('mat',))
>>> seg.matches, seg.n_chunks, round(10 ** seg.log10_permutations)
((5, 3, 2, 1), 3, 6)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from .._validate import check_count
from ..engine import io
from ..engine.stats import MAX_ORDER_LIMIT, compute_stats
from ..meta.resample import generator_and_label
from ..metrics.tables import sentence_scores
from ..metrics.results import BLEUSignature, Signature
from ..tokenizers import DEFAULT_TOKENIZER, SACREBLEU_TOKENIZERS, tokenize_lines

if TYPE_CHECKING:  # pandas and matplotlib are imported only when used
    import os

    import pandas as pd

__all__ = [
    "FILLER",
    "CorpusReport",
    "PermutationCheck",
    "Permutations",
    "ReferenceDraw",
    "Segmentation",
    "check_permutations",
    "corpus_report",
    "log10_factorial",
    "permute_chunks",
    "plot_permutation_counts",
    "reference_draw",
    "reference_draws",
    "segment_bigrams",
    "segment_corpus",
]

_LN10 = math.log(10.0)
#: Placeholder filler token of :func:`reference_draw` when the hypothesis has too few
#: tokens of its own that occur in no reference.
FILLER = "∅"


# --------------------------------------------------------------------------- helpers


def log10_factorial(n: int) -> float:
    r"""Return :math:`\log_{10} n!` (``math.lgamma``), finite for any ``n`` a sentence can have.

    Examples
    --------
    >>> round(log10_factorial(8), 5), round(10 ** log10_factorial(8))
    (4.60552, 40320)
    >>> log10_factorial(0), log10_factorial(1)
    (0.0, 0.0)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer; got {n!r}.")
    return 0.0 if n < 2 else math.lgamma(int(n) + 1) / _LN10


def _rng(seed: Any) -> tuple[np.random.Generator, int | None]:
    """A Generator and the seed to report (None when a Generator was passed in).

    ``seed=None`` draws a fresh seed and reports it, so every result can be redone.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    rng, label = generator_and_label(seed)
    return rng, None if label == "generator" else label


def _check_options(tokenize: Any, max_ngram_order: Any) -> None:
    if tokenize not in SACREBLEU_TOKENIZERS:
        raise ValueError(f"tokenize must be one of {', '.join(map(repr, SACREBLEU_TOKENIZERS))}; got {tokenize!r}.")
    if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)) or not (
        2 <= max_ngram_order <= MAX_ORDER_LIMIT
    ):
        raise ValueError(
            f"max_ngram_order must be an integer from 2 to {MAX_ORDER_LIMIT} (the analysis needs "
            f"bigrams); got {max_ngram_order!r}."
        )


def _segments(hypotheses: Any, references: Any, layout: str) -> tuple[list[str], list[list[str]]]:
    """Validate list inputs; return hypotheses and one list of references per segment."""
    if isinstance(hypotheses, (str, bytes)):
        raise ValueError(
            "hypotheses must be a list of strings (one per segment); got a single "
            f"{type(hypotheses).__name__}. Wrap it in a list, or use segment_bigrams() for one sentence."
        )
    hypotheses = list(hypotheses)
    for i, h in enumerate(hypotheses):
        if not isinstance(h, str):
            raise TypeError(f"hypotheses[{i}] must be a str; got {type(h).__name__} {h!r:.60}.")
    if isinstance(references, (str, bytes)):
        raise ValueError(
            "references must be a list of lists of str; got a single "
            f"{type(references).__name__}. For one segment write [[ref1, ref2, ...]]."
        )
    references = [r for r in references]
    for k, r in enumerate(references):
        if isinstance(r, (str, bytes)):
            raise ValueError(
                f"references[{k}] must be a list of str; got {type(r).__name__} {r!r:.60}. "
                "Write one list of references per segment (references_layout='segments') or "
                "one list per reference stream (references_layout='streams')."
            )
    n = len(hypotheses)
    if layout == "segments":
        if len(references) != n:
            raise ValueError(
                f"references has {len(references)} per-segment lists but there are {n} hypotheses; "
                "give one list of references per hypothesis (or pass references_layout='streams' "
                "for sacreBLEU-style streams)."
            )
        segs = [list(r) for r in references]
    elif layout == "streams":
        segs = [[] for _ in range(n)]
        for k, stream in enumerate(references):
            stream = list(stream)
            if len(stream) != n:
                raise ValueError(
                    f"references[{k}] has {len(stream)} lines but there are {n} hypotheses; every "
                    "reference stream must be as long as the hypotheses (None for a missing reference)."
                )
            for i, text in enumerate(stream):
                if text is not None:
                    segs[i].append(text)
    else:
        raise ValueError(f"references_layout must be 'segments' or 'streams'; got {layout!r}.")
    for i, refs in enumerate(segs):
        if not refs:
            raise ValueError(
                f"references: segment {i} has no reference; every hypothesis needs at least one. "
                "Drop that hypothesis or add a reference."
            )
        for k, text in enumerate(refs):
            if not isinstance(text, str):
                where = f"references[{i}][{k}]" if layout == "segments" else f"a reference of segment {i}"
                raise TypeError(f"{where} must be a str; got {type(text).__name__} {text!r:.60}.")
    return hypotheses, segs


@dataclass
class _Corpus:
    """Tokenized inputs and their statistics (tokenize='none' on the joined tokens)."""

    hyp_tokens: list[list[str]]
    ref_tokens: list[list[list[str]]]
    ref_table: pa.Table
    matches: np.ndarray  # (n, N) int64
    totals: np.ndarray
    ref_len: np.ndarray
    max_order: int
    tokenize: str
    lowercase: bool

    @property
    def nrefs(self) -> str:
        counts = {len(r) for r in self.ref_tokens}
        return str(counts.pop()) if len(counts) == 1 else ("var" if counts else "0")


def _stats(seg_ids: np.ndarray, texts: list[str], ref_table: pa.Table, max_order: int):
    """compute_stats on already tokenized texts; (matches, totals, hyp_len, ref_len, scores)."""
    n = len(texts)
    if n == 0:
        z = np.zeros((0, max_order), np.int64)
        return z, z.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    hyps = pa.table({
        "seg_id": pa.array(np.asarray(seg_ids, np.int64)),
        "system": pa.array(["analysis"] * n, pa.string()),
        "text": pa.array(texts, pa.string()),
    })
    # many candidates (permutations, draws) per segment, as in a k-best list
    st = compute_stats(hyps, ref_table, tokenize="none", lowercase=False, max_ngram_order=max_order, k_best=True)
    matches = np.stack([st.column(f"match_{i}") for i in range(1, max_order + 1)], axis=1)
    totals = np.stack([st.column(f"total_{i}") for i in range(1, max_order + 1)], axis=1)
    return (matches.astype(np.int64), totals.astype(np.int64), st.column("hyp_len").astype(np.int64),
            st.column("ref_len_closest").astype(np.int64), np.asarray(sentence_scores(st), np.float64))


def _prepare(hypotheses: list[str], segs: list[list[str]], tokenize: str, lowercase: bool,
             max_order: int) -> _Corpus:
    flat = [t for refs in segs for t in refs]
    hyp_tok = [s.split() for s in tokenize_lines(hypotheses, tokenize=tokenize, lowercase=lowercase)]
    ref_flat = [s.split() for s in tokenize_lines(flat, tokenize=tokenize, lowercase=lowercase)]
    ref_tok, pos = [], 0
    seg_col, rid_col, txt_col = [], [], []
    for i, refs in enumerate(segs):
        ref_tok.append(ref_flat[pos:pos + len(refs)])
        for k, toks in enumerate(ref_flat[pos:pos + len(refs)]):
            seg_col.append(i)
            rid_col.append(str(k))
            txt_col.append(" ".join(toks))
        pos += len(refs)
    ref_table = pa.table({
        "seg_id": pa.array(np.asarray(seg_col, np.int64)),
        "ref_id": pa.array(rid_col, pa.string()),
        "weight": pa.array(np.ones(len(seg_col))),
        "text": pa.array(txt_col, pa.string()),
    })
    matches, totals, _, ref_len, _ = _stats(np.arange(len(hyp_tok)), [" ".join(t) for t in hyp_tok],
                                            ref_table, max_order)
    return _Corpus(hyp_tok, ref_tok, ref_table, matches, totals, ref_len, max_order, tokenize, lowercase)


def _mismatches(tokens: Sequence[str], refs: Sequence[Sequence[str]]) -> tuple[int, ...]:
    """0-based positions i where the bigram tokens[i], tokens[i+1] occurs in no reference."""
    ref_bigrams = {(r[j], r[j + 1]) for r in refs for j in range(len(r) - 1)}
    return tuple(i for i in range(len(tokens) - 1) if (tokens[i], tokens[i + 1]) not in ref_bigrams)


def _chunks(tokens: Sequence[str], mismatches: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    if not tokens:
        return ()
    cuts = [0, *(i + 1 for i in mismatches), len(tokens)]
    return tuple(tuple(tokens[a:b]) for a, b in zip(cuts[:-1], cuts[1:]))


def _signature(corpus: _Corpus, **extra: Any) -> Signature:
    return BLEUSignature(nrefs=corpus.nrefs, lowercase=corpus.lowercase, tokenize=corpus.tokenize,
                          max_ngram_order=corpus.max_order, ref_view=None, weights=None, metric=None,
                          ref_length=None).with_extra(**extra)


def _seed_label(seed: int | None) -> str:
    return "generator" if seed is None else str(seed)


# --------------------------------------------------------------------------- segmentation


@dataclass(frozen=True)
class Segmentation:
    r"""A hypothesis cut at its bigram mismatches, with its BLEU statistics.

    Attributes
    ----------
    tokens : tuple of str
        The hypothesis as BLEU sees it (tokenized, lowercased if asked).
    mismatches : tuple of int
        0-based positions ``i`` whose bigram ``tokens[i], tokens[i+1]`` occurs in
        no reference; the hypothesis is cut after each.
    chunks : tuple of tuple of str
        The pieces between the cuts, in order.
    matches, totals : tuple of int
        Clipped n-gram matches and n-gram counts per order 1..N, from
        :func:`bleustats.compute_stats`.
    ref_len : int
        The closest reference length (sacreBLEU's brevity-penalty length).
    """

    tokens: tuple[str, ...]
    mismatches: tuple[int, ...]
    chunks: tuple[tuple[str, ...], ...]
    matches: tuple[int, ...]
    totals: tuple[int, ...]
    ref_len: int

    @property
    def hyp_len(self) -> int:
        """k, the number of tokens."""
        return len(self.tokens)

    @property
    def bigram_matches(self) -> int:
        """b, BLEU's clipped bigram match count (``match_2``)."""
        return self.matches[1]

    @property
    def matched_bigram_positions(self) -> int:
        r""":math:`b_{pos}`: bigram positions whose bigram occurs in a reference (:math:`\ge b`)."""
        return max(0, self.hyp_len - 1 - len(self.mismatches))

    @property
    def n_chunks(self) -> int:
        r"""Number of chunks, :math:`k - b_{pos}` (0 for an empty hypothesis)."""
        return len(self.chunks)

    @property
    def precisions(self) -> tuple[float, ...]:
        """matches / totals per order (0.0 where an order has no n-gram)."""
        return tuple(m / t if t else 0.0 for m, t in zip(self.matches, self.totals))

    @property
    def log10_permutations(self) -> float:
        r""":math:`\log_{10} \#\mathrm{chunks}!`: chunk orders that all score at least as high."""
        return log10_factorial(self.n_chunks)

    @property
    def log10_bound(self) -> float:
        r"""The paper's :math:`\log_{10} (k - b)!` with BLEU's clipped :math:`b`."""
        return log10_factorial(max(0, self.hyp_len - self.bigram_matches))

    @property
    def log10_distinct(self) -> float:
        r""":math:`\log_{10}` of the distinct texts among the chunk orders (equal chunks swapped give one text)."""
        dup = sum(log10_factorial(c) for c in Counter(self.chunks).values())
        return self.log10_permutations - dup

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens), "mismatches": list(self.mismatches),
            "chunks": [" ".join(c) for c in self.chunks], "hyp_len": self.hyp_len,
            "matches": list(self.matches), "totals": list(self.totals), "ref_len": self.ref_len,
            "bigram_matches": self.bigram_matches,
            "matched_bigram_positions": self.matched_bigram_positions,
            "n_chunks": self.n_chunks, "log10_permutations": self.log10_permutations,
            "log10_bound": self.log10_bound, "log10_distinct": self.log10_distinct,
        }


def _segmentation(corpus: _Corpus, i: int) -> Segmentation:
    toks = corpus.hyp_tokens[i]
    mism = _mismatches(toks, corpus.ref_tokens[i])
    return Segmentation(tuple(toks), mism, _chunks(toks, mism), tuple(int(x) for x in corpus.matches[i]),
                        tuple(int(x) for x in corpus.totals[i]), int(corpus.ref_len[i]))


def segment_bigrams(
    hypothesis: str,
    references: Sequence[str],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> Segmentation:
    r"""Cut one hypothesis at the bigrams that match no reference.

    Position :math:`i` is a mismatch when :math:`h_i h_{i+1}` occurs in no
    reference; the chunks are the pieces between mismatches, and

    .. math::

        \#\mathrm{chunks} = k - b_{pos}, \qquad
        \#\{\text{chunk orders scoring} \ge \text{BLEU}(h)\} \ge \#\mathrm{chunks}!

    (see the module docstring for why, and for :math:`b_{pos}` versus the
    paper's :math:`b`).

    Parameters
    ----------
    hypothesis : str
        One hypothesis (untokenized, as for sacreBLEU).
    references : sequence of str
        Its references; at least one.
    tokenize : {'13a', 'none', 'intl', 'char', 'zh'}
        sacreBLEU tokenizer.
    lowercase : bool
        Compare case-insensitively.
    max_ngram_order : int
        Largest n-gram order N of ``matches`` (2 to 32).

    Returns
    -------
    Segmentation

    Raises
    ------
    ValueError
        No reference, or a bad option. An empty hypothesis is not an error: it
        has no chunk and ``log10_permutations == 0``.

    References
    ----------
    Callison-Burch, Osborne and Koehn (2006), section 3.1 and Table 1.

    Examples
    --------
    The paper's Table 1:

    >>> refs = ["Orejuela appeared calm as he was led to the American plane which will take him "
    ...         "to Miami , Florida .",
    ...         "Orejuela appeared calm while being escorted to the plane that would take him to "
    ...         "Miami , Florida .",
    ...         "Orejuela appeared calm as he was being led to the American plane that was to "
    ...         "carry him to Miami in Florida .",
    ...         "Orejuela seemed quite calm as he was being led to the American plane that would "
    ...         "take him to Miami in Florida ."]
    >>> hyp = "Appeared calm when he was taken to the American plane , which will to Miami , Florida ."
    >>> seg = segment_bigrams(hyp, refs, lowercase=True)
    >>> seg.matches, seg.totals
    ((15, 10, 5, 3), (18, 17, 16, 15))
    >>> [round(p, 2) for p in seg.precisions]
    [0.83, 0.59, 0.31, 0.2]
    >>> seg.n_chunks, round(10 ** seg.log10_permutations)
    (8, 40320)
    >>> [" ".join(c) for c in seg.chunks]  # doctest: +NORMALIZE_WHITESPACE
    ['appeared calm', 'when', 'he was', 'taken', 'to the american plane', ',', 'which will',
     'to miami , florida .']
    """
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str; got {type(hypothesis).__name__} {hypothesis!r:.60}. "
                        "For many hypotheses use segment_corpus().")
    if isinstance(references, (str, bytes)):
        raise ValueError(f"references must be a list of str; got a single str {references!r:.60}. "
                         "Write [reference].")
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments([hypothesis], [list(references)], "segments")
    return _segmentation(_prepare(hyps, segs, tokenize, lowercase, max_ngram_order), 0)


def segment_corpus(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    references_layout: str = "segments",
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> list[Segmentation]:
    """:func:`segment_bigrams` for every hypothesis of a corpus (one statistics pass).

    Parameters
    ----------
    hypotheses : sequence of str
        One hypothesis per segment.
    references : sequence of sequences of str
        With ``references_layout='segments'`` (default) one list of references
        per segment; with ``'streams'`` sacreBLEU-style streams, each as long as
        ``hypotheses`` (``None`` for a missing reference).
    references_layout : {'segments', 'streams'}
    tokenize, lowercase, max_ngram_order
        As in :func:`segment_bigrams`.

    Returns
    -------
    list of Segmentation
        In input order; empty for no hypotheses.

    Examples
    --------
    >>> segs = segment_corpus(["a b c d", ""], [["a b x c d"], ["a"]])
    >>> [s.n_chunks for s in segs], [s.matches[:2] for s in segs]
    ([2, 0], [(4, 2), (0, 0)])
    """
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments(hypotheses, references, references_layout)
    corpus = _prepare(hyps, segs, tokenize, lowercase, max_ngram_order)
    return [_segmentation(corpus, i) for i in range(len(hyps))]


# --------------------------------------------------------------------------- permutations


@dataclass(frozen=True)
class Permutations:
    """Random chunk orders of one hypothesis, with their recomputed statistics.

    Attributes
    ----------
    original : Segmentation
    orders : tuple of tuple of int
        Each permutation as chunk indices (never the identity).
    texts : tuple of str
        The permuted hypotheses, tokenized (score them with ``tokenize='none'``).
    matches, totals : numpy.ndarray, shape (n, N)
        Recomputed clipped matches and totals of every permutation.
    scores : numpy.ndarray, shape (n,)
        Sentence BLEU (sacreBLEU's ``sentence_bleu`` defaults) of every permutation.
    original_score : float
        Sentence BLEU of the original.
    exhaustive : bool
        True when ``orders`` holds every non-identity chunk order.
    seed : int or None
        The seed used (None when a Generator was passed).
    """

    original: Segmentation
    orders: tuple[tuple[int, ...], ...]
    texts: tuple[str, ...]
    matches: np.ndarray
    totals: np.ndarray
    scores: np.ndarray
    original_score: float
    exhaustive: bool
    seed: int | None

    @property
    def lowered(self) -> np.ndarray:
        """Per permutation: did any order's match count drop? (Never, by construction.)"""
        return (self.matches < np.asarray(self.original.matches)).any(axis=1)

    @property
    def raised(self) -> np.ndarray:
        """Per permutation: did any order's match count rise?"""
        return (self.matches > np.asarray(self.original.matches)).any(axis=1)


def _draw_orders(n_chunks: int, n: int, rng: np.random.Generator) -> tuple[list[tuple[int, ...]], bool]:
    """n random non-identity orders of n_chunks chunks, or all of them when there are at most n."""
    if n_chunks < 2 or n == 0:
        return [], n_chunks < 2
    if n_chunks <= 7 and math.factorial(n_chunks) - 1 <= n:
        return list(itertools.permutations(range(n_chunks)))[1:], True
    identity = tuple(range(n_chunks))
    out = []
    while len(out) < n:
        order = tuple(int(x) for x in rng.permutation(n_chunks))
        if order != identity:
            out.append(order)
    return out, False


def _permuted_text(seg: Segmentation, order: Sequence[int]) -> str:
    return " ".join(" ".join(seg.chunks[j]) for j in order)


def permute_chunks(
    hypothesis: str,
    references: Sequence[str],
    *,
    n: int = 10,
    seed: int | np.random.Generator | None = 0,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> Permutations:
    r"""Random reorderings of one hypothesis's chunks, with recomputed statistics.

    Each permutation keeps every n-gram match of the original, since matches
    lie inside chunks (:func:`segment_bigrams`). For every order :math:`n`,

    .. math:: \mathrm{match}_n(\pi(h)) \ge \mathrm{match}_n(h), \qquad
              \mathrm{total}_n(\pi(h)) = \mathrm{total}_n(h),

    and the new joins can add matches.

    Parameters
    ----------
    hypothesis, references
        As in :func:`segment_bigrams`.
    n : int
        Number of permutations to draw (distinct from the identity; drawn with
        replacement). When the hypothesis has at most ``n`` non-identity chunk
        orders, all of them are returned instead (``exhaustive=True``).
    seed : int, numpy.random.Generator or None
        Randomness; None draws a fresh seed and reports it.
    tokenize, lowercase, max_ngram_order
        As in :func:`segment_bigrams`.

    Returns
    -------
    Permutations

    Examples
    --------
    >>> p = permute_chunks("b c a b", ["a b c"], n=5, seed=1, tokenize="none")
    >>> p.original.chunks, p.exhaustive
    ((('b', 'c'), ('a', 'b')), True)
    >>> p.texts, p.matches.tolist(), bool(p.raised[0]), bool(p.lowered.any())
    (('a b b c',), [[3, 2, 0, 0]], False, False)
    """
    check_count("n", n, minimum=0)
    rng, used_seed = _rng(seed)
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str; got {type(hypothesis).__name__} {hypothesis!r:.60}.")
    if isinstance(references, (str, bytes)):
        raise ValueError(f"references must be a list of str; got a single str {references!r:.60}. "
                         "Write [reference].")
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments([hypothesis], [list(references)], "segments")
    corpus = _prepare(hyps, segs, tokenize, lowercase, max_ngram_order)
    seg = _segmentation(corpus, 0)
    orders, exhaustive = _draw_orders(seg.n_chunks, n, rng)
    texts = [_permuted_text(seg, o) for o in orders]
    matches, totals, _, _, scores = _stats(np.zeros(len(texts), np.int64), texts, corpus.ref_table,
                                           max_ngram_order)
    orig_score = float(_stats(np.zeros(1, np.int64), [" ".join(seg.tokens)], corpus.ref_table,
                              max_ngram_order)[4][0])
    return Permutations(seg, tuple(orders), tuple(texts), matches, totals, scores, orig_score,
                        exhaustive, used_seed)


@dataclass(frozen=True)
class PermutationCheck:
    """Chunk permutations of every sentence of a corpus, checked against the originals.

    Attributes
    ----------
    columns : dict of str to numpy.ndarray
        One entry per sentence: ``segment``, ``n_chunks``, ``drawn`` (permutations
        scored), ``exhaustive``, ``lowered`` (permutations with a lower match
        count of some order; always 0), ``raised`` (with a higher one),
        ``score_raised`` (with a higher sentence BLEU), ``max_gain_n`` (largest
        rise of ``match_n``, n = 1..N).
    examples : tuple of dict
        Up to three permutations that raised a match count: the original and
        permuted (tokenized) texts and both match vectors.
    permutations : int
        Permutations asked per sentence.
    seed : int or None
    signature : Signature
    """

    columns: dict[str, np.ndarray]
    examples: tuple[dict[str, Any], ...]
    permutations: int
    seed: int | None
    signature: Signature

    @property
    def n_sentences(self) -> int:
        return len(self.columns["segment"])

    @property
    def n_drawn(self) -> int:
        return int(self.columns["drawn"].sum())

    @property
    def n_lowered(self) -> int:
        """Permutations that lowered some match count (0 unless the theory is wrong)."""
        return int(self.columns["lowered"].sum())

    @property
    def n_raised(self) -> int:
        return int(self.columns["raised"].sum())

    @property
    def sentences_raised(self) -> int:
        """Sentences with at least one permutation that raised a match count."""
        return int((self.columns["raised"] > 0).sum())

    @property
    def ok(self) -> bool:
        """No permutation of any sentence lowered any match count."""
        return self.n_lowered == 0

    def summary(self) -> dict[str, Any]:
        return {
            "sentences": self.n_sentences, "permutations_per_sentence": self.permutations,
            "permutations_scored": self.n_drawn,
            "sentences_with_a_permutation": int((self.columns["drawn"] > 0).sum()),
            "lowered": self.n_lowered, "raised": self.n_raised,
            "score_raised": int(self.columns["score_raised"].sum()),
            "sentences_raised": self.sentences_raised, "ok": self.ok, "seed": self.seed,
            "signature": str(self.signature),
        }

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)


def _check_corpus(corpus: _Corpus, permutations: int, rng: np.random.Generator,
                  seed: int | None) -> PermutationCheck:
    n_sent, N = len(corpus.hyp_tokens), corpus.max_order
    segs = [_segmentation(corpus, i) for i in range(n_sent)]
    owner, texts, exh, n_drawn = [], [], np.zeros(n_sent, bool), np.zeros(n_sent, np.int64)
    for i, seg in enumerate(segs):
        orders, exh[i] = _draw_orders(seg.n_chunks, permutations, rng)
        n_drawn[i] = len(orders)
        owner += [i] * len(orders)
        texts += [_permuted_text(seg, o) for o in orders]
    owner_arr = np.asarray(owner, np.int64)
    matches, _, _, _, scores = _stats(owner_arr, texts, corpus.ref_table, N)
    _, _, _, _, orig_scores = _stats(np.arange(n_sent), [" ".join(t) for t in corpus.hyp_tokens],
                                     corpus.ref_table, N)
    base = corpus.matches[owner_arr] if len(owner_arr) else np.zeros((0, N), np.int64)
    diff = matches - base
    lowered = (diff < 0).any(axis=1)
    raised = (diff > 0).any(axis=1)
    score_up = scores > orig_scores[owner_arr] + 1e-9 if len(owner_arr) else np.zeros(0, bool)
    cols: dict[str, np.ndarray] = {
        "segment": np.arange(n_sent, dtype=np.int64),
        "n_chunks": np.asarray([s.n_chunks for s in segs], np.int64),
        "drawn": n_drawn, "exhaustive": exh,
        "lowered": np.bincount(owner_arr, weights=lowered, minlength=n_sent).astype(np.int64),
        "raised": np.bincount(owner_arr, weights=raised, minlength=n_sent).astype(np.int64),
        "score_raised": np.bincount(owner_arr, weights=score_up, minlength=n_sent).astype(np.int64),
    }
    for j in range(N):
        gain = np.zeros(n_sent, np.int64)
        if len(owner_arr):
            np.maximum.at(gain, owner_arr, np.maximum(diff[:, j], 0))
        cols[f"max_gain_{j + 1}"] = gain
    examples = [{"segment": int(owner_arr[r]), "original": " ".join(corpus.hyp_tokens[owner_arr[r]]),
                 "permuted": texts[r], "original_matches": corpus.matches[owner_arr[r]].tolist(),
                 "permuted_matches": matches[r].tolist()} for r in np.flatnonzero(raised)[:3]]
    sig = _signature(corpus, perm=permutations, seed=_seed_label(seed))
    return PermutationCheck(cols, tuple(examples), permutations, seed, sig)


def check_permutations(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    permutations: int = 20,
    seed: int | np.random.Generator | None = 0,
    references_layout: str = "segments",
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> PermutationCheck:
    r"""Check, on every sentence, that no chunk permutation lowers a match count.

    For each sentence, ``permutations`` random chunk orders (all of them when
    there are fewer) are scored in one :func:`bleustats.compute_stats` pass
    and compared with the original: the check is
    :math:`\mathrm{match}_n(\pi(h)) \ge \mathrm{match}_n(h)` for every order
    :math:`n`. The result counts the permutations that raise some count, which
    the paper notes can happen.

    Parameters
    ----------
    hypotheses, references, references_layout
        As in :func:`segment_corpus`.
    permutations : int
        Permutations per sentence (0 checks nothing).
    seed : int, numpy.random.Generator or None
        Randomness; None draws a fresh seed and reports it.
    tokenize, lowercase, max_ngram_order
        As in :func:`segment_bigrams`.

    Returns
    -------
    PermutationCheck

    Examples
    --------
    >>> chk = check_permutations(["b c a b", "x y"], [["a b c"], ["y x"]], seed=0, tokenize="none")
    >>> chk.ok, chk.n_drawn, chk.n_raised, chk.columns["max_gain_2"].tolist()
    (True, 2, 1, [0, 1])
    """
    check_count("permutations", permutations, minimum=0)
    rng, used_seed = _rng(seed)
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments(hypotheses, references, references_layout)
    return _check_corpus(_prepare(hyps, segs, tokenize, lowercase, max_ngram_order), permutations,
                         rng, used_seed)


# --------------------------------------------------------------------------- reference draws


@dataclass(frozen=True)
class ReferenceDraw:
    """A hypothesis built from reference n-grams with the same match counts (paper, 3.2).

    Attributes
    ----------
    original : Segmentation
    found : bool
        Whether a construction was found (see ``reason`` when not).
    text : str or None
        The constructed hypothesis, tokenized (score with ``tokenize='none'``).
    runs : tuple of (int, int, int)
        ``(reference index, start, length)`` of every reference span used, in
        the order they appear in ``text``.
    matches, totals : tuple of int
        The constructed hypothesis's recomputed statistics (equal to the
        original's when ``found``).
    score, original_score : float
        Sentence BLEU of both (sacreBLEU's ``sentence_bleu`` defaults).
    tries : int
        Random attempts used.
    reason : str
        Why no construction was found ('' when found).
    seed : int or None
    """

    original: Segmentation
    found: bool
    text: str | None
    runs: tuple[tuple[int, int, int], ...]
    matches: tuple[int, ...]
    totals: tuple[int, ...]
    score: float
    original_score: float
    tries: int
    reason: str
    seed: int | None

    @property
    def references_used(self) -> tuple[int, ...]:
        """Distinct references the spans were drawn from."""
        return tuple(sorted({r for r, _, _ in self.runs}))


def _run_lengths(m: Sequence[int]) -> tuple[list[int] | None, str]:
    r"""Lengths of disjoint matched runs whose n-gram counts are exactly m_1..m_N.

    A run of L tokens holds max(0, L - n + 1) n-grams, so the number of runs of
    length >= n is c_n = m_n - m_{n+1} (n < N); it must not grow with n. The m_N
    N-grams are spread over c_N = min(c_{N-1}, m_N) runs of length >= N.
    """
    N = len(m)
    if N == 1:
        return [1] * m[0], ""
    c = [m[n] - m[n + 1] for n in range(N - 1)]
    if any(x < 0 for x in c) or any(c[n] < c[n + 1] for n in range(N - 2)):
        return None, (f"the match counts {list(m)} are not those of separate matched runs "
                      "(m_n - m_{n+1} must not grow with n): the hypothesis reuses overlapping "
                      "matches, which a draw of disjoint reference spans cannot reproduce")
    c_top = min(c[-1], m[-1])
    if m[-1] > 0 and c_top == 0:
        return None, (f"the match counts {list(m)} have {N}-gram matches but no run long enough "
                      "to hold them")
    lengths = []
    for n in range(1, N - 1):
        lengths += [n] * (c[n - 1] - c[n])
    lengths += [N - 1] * (c[-1] - c_top)
    if c_top:
        q, r = divmod(m[-1], c_top)
        lengths += [N - 1 + q + (1 if j < r else 0) for j in range(c_top)]
    return lengths, ""


def _ngram_counts(tokens: Sequence[str], max_order: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for n in range(1, max_order + 1)
                   for i in range(len(tokens) - n + 1))


def _draw_once(seg: Segmentation, refs: list[list[str]], lengths: list[int], max_order: int,
               rng: np.random.Generator) -> tuple[list[str], list[tuple[int, int, int]]] | None:
    ref_max: Counter = Counter()
    for r in refs:
        for g, c in _ngram_counts(r, max_order).items():
            ref_max[g] = max(ref_max[g], c)
    ref_vocab = {t for r in refs for t in r}
    ref_bigrams = {(r[j], r[j + 1]) for r in refs for j in range(len(r) - 1)}
    used: Counter = Counter()
    runs: list[tuple[int, int, int]] = []
    for L in sorted(lengths, reverse=True):
        cands = [(j, s) for j, r in enumerate(refs) for s in range(len(r) - L + 1)]
        if not cands:
            return None
        placed = False
        for idx in rng.permutation(len(cands)):
            j, s = cands[idx]
            cnt = _ngram_counts(refs[j][s:s + L], max_order)
            if all(used[g] + c <= ref_max[g] for g, c in cnt.items()):
                used.update(cnt)
                runs.append((j, s, L))
                placed = True
                break
        if not placed:
            return None
    runs = [runs[i] for i in rng.permutation(len(runs))]
    n_fill = seg.hyp_len - sum(lengths)
    own = [t for t in seg.tokens if t not in ref_vocab]
    filler = FILLER
    while filler in ref_vocab:
        filler += FILLER
    fillers = (own + [filler] * n_fill)[:n_fill]
    # gaps 0..len(runs): before, between and after the runs; a filler between two
    # runs keeps their join from matching, so fill the inner gaps first
    gaps = [0] * (len(runs) + 1)
    inner = list(range(1, len(runs)))
    for g in [inner[i] for i in rng.permutation(len(inner))][:n_fill]:
        gaps[g] += 1
    for _ in range(n_fill - sum(gaps)):
        gaps[int(rng.integers(len(gaps)))] += 1
    out: list[str] = []
    f = iter(fillers)
    for g, run in itertools.zip_longest(gaps, runs):
        out += [next(f) for _ in range(g)]
        if run is not None:
            j, s, L = run
            if out and out[-1] in ref_vocab and (out[-1], refs[j][s]) in ref_bigrams:
                return None  # two runs meet at a bigram a reference has: would add matches
            out += refs[j][s:s + L]
    return out, runs


def _draw_corpus(corpus: _Corpus, rng: np.random.Generator, seed: int | None,
                 max_tries: int) -> list[ReferenceDraw]:
    N = corpus.max_order
    segs = [_segmentation(corpus, i) for i in range(len(corpus.hyp_tokens))]
    built: list[tuple[list[str] | None, list, int, str]] = []
    for i, seg in enumerate(segs):
        lengths, reason = _run_lengths(seg.matches)
        toks, runs, tries = None, [], 0
        if lengths is not None:
            while tries < max_tries:
                tries += 1
                got = _draw_once(seg, corpus.ref_tokens[i], lengths, N, rng)
                if got is not None:
                    toks, runs = got
                    break
            else:
                reason = (f"no set of reference spans of lengths {sorted(lengths, reverse=True)} "
                          f"fits the references' clipping limits in {max_tries} random tries")
        built.append((toks, runs, tries, reason))
    ok = [i for i, b in enumerate(built) if b[0] is not None]
    matches, totals, _, _, scores = _stats(np.asarray(ok, np.int64), [" ".join(built[i][0]) for i in ok],
                                           corpus.ref_table, N)
    _, _, _, _, orig = _stats(np.arange(len(segs)), [" ".join(s.tokens) for s in segs],
                              corpus.ref_table, N)
    out = []
    row = {i: r for r, i in enumerate(ok)}
    for i, (toks, runs, tries, reason) in enumerate(built):
        seg = segs[i]
        if toks is None:
            out.append(ReferenceDraw(seg, False, None, (), seg.matches, seg.totals, float("nan"),
                                     float(orig[i]), tries, reason, seed))
            continue
        r = row[i]
        m, t = tuple(int(x) for x in matches[r]), tuple(int(x) for x in totals[r])
        found = m == seg.matches and t == seg.totals
        out.append(ReferenceDraw(seg, found, " ".join(toks), tuple(runs), m, t, float(scores[r]),
                                 float(orig[i]), tries,
                                 "" if found else "the construction's recomputed counts differ "
                                 "(please report this)", seed))
    return out


def reference_draw(
    hypothesis: str,
    references: Sequence[str],
    *,
    seed: int | np.random.Generator | None = 0,
    max_tries: int = 50,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> ReferenceDraw:
    r"""Build a different hypothesis with the same n-gram matches of every order.

    The paper's section 3.2 ("drawing different items from the reference
    set"): BLEU does not care *which* reference n-grams a hypothesis matches,
    nor from which reference. The construction draws contiguous reference
    spans ("runs") at random from all references. A run of :math:`L` tokens
    holds :math:`\max(0, L-n+1)` matching n-grams, so with
    :math:`c_n = m_n - m_{n+1}` runs of length :math:`\ge n` the run n-grams
    add up to exactly :math:`m_n`. The :math:`m_N` top-order matches are spread
    over :math:`\min(c_{N-1}, m_N)` runs. Runs are drawn so that no n-gram is
    used more often than the references allow (clipping). They are shuffled
    and separated by :math:`k - m_1` filler tokens that occur in no reference:
    first the hypothesis's own such tokens, then ``'∅'``. So the length, and
    with it every total and the brevity penalty, stays the same. The result
    is rescored with :func:`bleustats.compute_stats`.

    Parameters
    ----------
    hypothesis, references
        As in :func:`segment_bigrams`.
    seed : int, numpy.random.Generator or None
        Randomness; None draws a fresh seed and reports it.
    max_tries : int
        Random attempts before giving up (the result then has ``found=False``
        and a ``reason``).
    tokenize, lowercase, max_ngram_order
        As in :func:`segment_bigrams`.

    Returns
    -------
    ReferenceDraw
        When the match counts cannot come from separate runs (a hypothesis that
        reuses overlapping matches), ``found`` is False and ``reason`` says why.

    Examples
    --------
    >>> d = reference_draw("the cat sat on a mat", ["the cat sat on the mat", "a cat was on the mat"],
    ...                    seed=3)
    >>> d.found, d.matches == d.original.matches, d.score == d.original_score
    (True, True, True)
    >>> d.original.matches, d.text  # runs 'the' | 'sat on the mat' | 'a'; the joins match nothing
    ((6, 3, 2, 1), 'the sat on the mat a')
    """
    check_count("max_tries", max_tries, minimum=1)
    rng, used_seed = _rng(seed)
    if not isinstance(hypothesis, str):
        raise TypeError(f"hypothesis must be a str; got {type(hypothesis).__name__} {hypothesis!r:.60}.")
    if isinstance(references, (str, bytes)):
        raise ValueError(f"references must be a list of str; got a single str {references!r:.60}. "
                         "Write [reference].")
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments([hypothesis], [list(references)], "segments")
    return _draw_corpus(_prepare(hyps, segs, tokenize, lowercase, max_ngram_order), rng, used_seed,
                        max_tries)[0]


def reference_draws(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    seed: int | np.random.Generator | None = 0,
    max_tries: int = 50,
    references_layout: str = "segments",
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> list[ReferenceDraw]:
    """:func:`reference_draw` for every sentence of a corpus (one statistics pass).

    Examples
    --------
    >>> ds = reference_draws(["a b c", "a b a"], [["a b c"], ["a b", "b a"]], tokenize="none")
    >>> [(d.found, d.text) for d in ds]
    [(True, 'a b c'), (False, None)]
    >>> ds[1].reason[:30]
    'the match counts [2, 2, 0, 0] '
    """
    check_count("max_tries", max_tries, minimum=1)
    rng, used_seed = _rng(seed)
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments(hypotheses, references, references_layout)
    return _draw_corpus(_prepare(hyps, segs, tokenize, lowercase, max_ngram_order), rng, used_seed,
                        max_tries)


# --------------------------------------------------------------------------- corpus report


@dataclass(frozen=True)
class CorpusReport:
    """Per-sentence permutation counts of a whole system output, with a summary.

    Attributes
    ----------
    columns : dict of str to numpy.ndarray
        One entry per sentence: ``segment``, ``hyp_len`` (k), ``bigram_matches``
        (b), ``matched_bigram_positions``, ``n_chunks``, ``log10_permutations``,
        ``log10_bound`` and ``log10_distinct``.
    check : PermutationCheck or None
        The permutation check, when ``permutations > 0``.
    seed : int or None
    signature : Signature
    """

    columns: dict[str, np.ndarray]
    check: PermutationCheck | None
    seed: int | None
    signature: Signature

    def __len__(self) -> int:
        return len(self.columns["segment"])

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)

    def summary(self) -> dict[str, Any]:
        """Corpus-wide numbers: sentences, tokens, mean / median / max log10 permutations, ...

        ``corr_length`` is Pearson's r between sentence length and
        ``log10_permutations`` (NaN with fewer than two sentences or no spread).
        """
        lp = self.columns["log10_permutations"]
        k = self.columns["hyp_len"]
        n = len(lp)
        stat = (lambda f: float(f(lp))) if n else (lambda f: float("nan"))
        corr = float("nan")
        if n > 1 and np.ptp(lp) > 0 and np.ptp(k) > 0:
            corr = float(np.corrcoef(k, lp)[0, 1])
        out = {
            "sentences": n, "tokens": int(k.sum()),
            "mean_log10_permutations": stat(np.mean), "median_log10_permutations": stat(np.median),
            "max_log10_permutations": stat(np.max),
            "mean_n_chunks": float(self.columns["n_chunks"].mean()) if n else float("nan"),
            "share_chunks_eq_k_minus_b": float(np.mean(self.columns["n_chunks"] == np.maximum(
                k - self.columns["bigram_matches"], 0))) if n else float("nan"),
            "share_at_least_1e6": float(np.mean(lp >= 6)) if n else float("nan"),
            "share_at_least_1e20": float(np.mean(lp >= 20)) if n else float("nan"),
            "corr_length": corr, "seed": self.seed, "signature": str(self.signature),
        }
        if self.check is not None:
            out["permutation_check"] = self.check.summary()
        return out

    def by_length(self, *, bin_width: int = 10) -> pd.DataFrame:
        """Sentences per length bin with the mean, median and max of ``log10_permutations``.

        Examples
        --------
        >>> rep = corpus_report(["a b c d", "a x b", "a"], [["a b c d"], ["a b"], ["a"]],
        ...                     tokenize="none")
        >>> rep.by_length(bin_width=2)[["length", "sentences", "max_log10_permutations"]]
          length  sentences  max_log10_permutations
        0    0-1          1                0.000000
        1    2-3          1                0.778151
        2    4-5          1                0.000000
        """
        import pandas as pd

        check_count("bin_width", bin_width, minimum=1)
        df = self.to_pandas()
        lo = (df["hyp_len"] // bin_width) * bin_width
        df = df.assign(lo=lo)
        g = df.groupby("lo", sort=True)["log10_permutations"]
        out = pd.DataFrame({"sentences": g.size(), "mean_log10_permutations": g.mean(),
                            "median_log10_permutations": g.median(), "max_log10_permutations": g.max()})
        out.insert(0, "length", [f"{int(a)}-{int(a) + bin_width - 1}" for a in out.index])
        return out.reset_index(drop=True)

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary(),
                "sentences": {k: v.tolist() for k, v in self.columns.items()}}

    def plot(self, path: str | os.PathLike, *, title: str | None = None, label: str = "hypotheses") -> None:
        """Write the paper's Figure 1 (length vs log10 permutations) as PNG; needs matplotlib."""
        plot_permutation_counts({label: self}, path, title=title)


def corpus_report(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    permutations: int = 0,
    seed: int | np.random.Generator | None = 0,
    references_layout: str = "segments",
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    max_ngram_order: int = 4,
) -> CorpusReport:
    r"""Permutation counts of every sentence of a system output (the paper's Figure 1).

    Per sentence: length :math:`k`, bigram matches :math:`b`, chunks, and
    :math:`\log_{10}` of the chunk permutations that score at least as high
    (:func:`segment_bigrams`). With ``permutations > 0`` it also runs
    :func:`check_permutations` on every sentence.

    Parameters
    ----------
    hypotheses, references, references_layout
        As in :func:`segment_corpus`.
    permutations : int
        Random permutations to check per sentence (0: no check).
    seed : int, numpy.random.Generator or None
        Randomness of the check; None draws a fresh seed and reports it.
    tokenize, lowercase, max_ngram_order
        As in :func:`segment_bigrams`.

    Returns
    -------
    CorpusReport
        Empty (0 sentences, NaN summary statistics) for no hypotheses.

    Examples
    --------
    >>> rep = corpus_report(["the cat sat on a mat", "on the mat sat the cat"],
    ...                     [["the cat sat on the mat"], ["the cat sat on the mat"]], permutations=5)
    >>> rep.columns["n_chunks"].tolist(), rep.columns["log10_permutations"].round(3).tolist()
    ([3, 3], [0.778, 0.778])
    >>> s = rep.summary()
    >>> s["sentences"], s["permutation_check"]["lowered"], s["permutation_check"]["ok"]
    (2, 0, True)
    """
    check_count("permutations", permutations, minimum=0)
    rng, used_seed = _rng(seed)
    _check_options(tokenize, max_ngram_order)
    hyps, segs = _segments(hypotheses, references, references_layout)
    corpus = _prepare(hyps, segs, tokenize, lowercase, max_ngram_order)
    sg = [_segmentation(corpus, i) for i in range(len(hyps))]
    cols = {
        "segment": np.arange(len(sg), dtype=np.int64),
        "hyp_len": np.asarray([s.hyp_len for s in sg], np.int64),
        "bigram_matches": np.asarray([s.bigram_matches for s in sg], np.int64),
        "matched_bigram_positions": np.asarray([s.matched_bigram_positions for s in sg], np.int64),
        "n_chunks": np.asarray([s.n_chunks for s in sg], np.int64),
        "log10_permutations": np.asarray([s.log10_permutations for s in sg], np.float64),
        "log10_bound": np.asarray([s.log10_bound for s in sg], np.float64),
        "log10_distinct": np.asarray([s.log10_distinct for s in sg], np.float64),
    }
    check = _check_corpus(corpus, permutations, rng, used_seed) if permutations else None
    sig = _signature(corpus, perm=permutations, seed=_seed_label(used_seed))
    return CorpusReport(cols, check, used_seed, sig)


def plot_permutation_counts(
    reports: CorpusReport | Mapping[str, CorpusReport],
    path: str | os.PathLike,
    *,
    title: str | None = None,
) -> None:
    """Scatter sentence length against log10 permutations (the paper's Figure 1), as PNG.

    Parameters
    ----------
    reports : CorpusReport or mapping of label to CorpusReport
        One colour per report.
    path : str or path
        The PNG to write.
    title : str, optional

    Raises
    ------
    ImportError
        matplotlib is not installed (``pip install 'bleustats[plot]'``).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plot: writing a PNG needs matplotlib, which is not installed; "
                          "install it with pip install 'bleustats[plot]' (or pip install matplotlib).") from None
    if isinstance(reports, CorpusReport):
        reports = {"hypotheses": reports}
    if not reports or not all(isinstance(r, CorpusReport) for r in reports.values()):
        raise ValueError(f"reports must be a CorpusReport or a non-empty mapping of label to "
                         f"CorpusReport; got {type(reports).__name__}.")
    fig = Figure(figsize=(6.4, 4.4), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for label, rep in reports.items():
        ax.scatter(rep.columns["hyp_len"], rep.columns["log10_permutations"], s=6, alpha=0.45,
                   label=f"{label} (n={len(rep)})", linewidths=0)
    ax.set_xlabel("sentence length (tokens)")
    ax.set_ylabel("log10 #permutations with the same or higher BLEU")
    ax.grid(alpha=0.3)
    if len(reports) > 1:
        ax.legend(fontsize=8, markerscale=2)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    io.write_atomic(path, lambda tmp: fig.savefig(tmp, format="png"))  # whole or not at all
