r"""Statistics of a few segments in plain Python: no numba, no Arrow, no numpy.

The numba pipeline of :mod:`bleustats.engine.stats` has a price per process
(importing numba, starting its compiler target, loading the cached kernels:
about half a second of CPU) and a smaller one per call (Arrow tables, schema
checks, a thread pool). For one sentence, or for a corpus that is small enough,
counting n-grams with :class:`collections.Counter` costs less than either, so
:func:`bleustats.compute_stats`, ``corpus_bleu`` and ``sentence_bleu`` take this
path for a call of at most :data:`PLAIN_MAX_CHARS` characters of text
(:func:`prefer_plain`: the call's input decides, nothing else). The rows are
the kernel's rows, value for value (``tests/engine/test_small.py`` compares
the two paths on random inputs with ΔBLEU weights, every tokenizer, every
reference view, empty lines and many references):

.. math::

    \mathrm{match}_n = \sum_{g \in h,\ |g| = n} \min\big(\#g(h), \max_j \#g(r_j)\big),
    \qquad \mathrm{total}_n = \max(0, |h| - n + 1)

and the weighted ``wmatch_n`` / ``wtotal_n`` of :func:`bleustats.compute_stats`,
summed over the distinct n-grams of each order in the order of their first
occurrence in the hypothesis (the kernel's order, so that the floating-point
sums are the same bits).

Examples
--------
>>> rows = segment_statistics(["the cat sat"], [0], [[("the cat sat down", 1.0)]], tokenize="none",
...                           lowercase=False, max_ngram_order=2, delta_definition="paper")
>>> hyp_len, closest, shortest, average, n_refs, w_max, match, total, wmatch, wtotal = rows[0]
>>> hyp_len, closest, match, total, wmatch
(3, 4, [3, 2], [3, 2], [3.0, 2.0])
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import chain
from typing import Any, Sequence

from ..tokenizers import tokenize_lines
from ._options import is_real

__all__ = [
    "PLAIN_MAX_CHARS",
    "plain_references",
    "prefer_plain",
    "segment_statistics",
    "view_references",
]

#: The most text (characters of hypotheses and references together; of files, their bytes) one call
#: counts on the plain path; a larger call goes to the numba kernels. Callers may skip the count when
#: a part of the input alone is past it (the hypotheses, say): the path is the same. Both paths give
#: the same rows; the rule only picks the faster. It reads the call's input and nothing else,
#: so a call takes the same path in any process, whatever ran before it. Measured over calls of one
#: sentence to 10,000 segments, in a fresh process (where the kernels' path first loads numba, about
#: 0.5 s) and in one with the kernels loaded (where they are 4-25x faster from ~20,000 characters on),
#: the rule's worst loss against the faster path of each call is least, about 4x, for a threshold
#: between about 20,000 and 35,000 characters; this is the upper end of that band, which keeps a
#: call of 100 segments of the benchmark corpus (34,302 characters) on the plain path
#: (``benchmarks/bench_latency.py --tasks route``, ``benchmarks/results/latency.md``).
PLAIN_MAX_CHARS = 35_000

#: One reference of a segment: (text, weight).
Reference = tuple[str, float]
#: One row of statistics: hyp_len, ref_len_closest, ref_len_shortest, ref_len_average,
#: n_refs, ref_weight_max, [match_n], [total_n], [wmatch_n], [wtotal_n].
Row = tuple[int, int, int, float, int, float, list, list, list, list]


def prefer_plain(n_chars: int) -> bool:
    """True when a call of ``n_chars`` characters of text is counted on the plain path (:data:`PLAIN_MAX_CHARS`).

    Examples
    --------
    >>> prefer_plain(100), prefer_plain(PLAIN_MAX_CHARS), prefer_plain(PLAIN_MAX_CHARS + 1)
    (True, True, False)
    """
    return n_chars <= PLAIN_MAX_CHARS


# --------------------------------------------------------------------------- list inputs


def _is_weight(value: Any) -> bool:
    return is_real(value) and -1.0 <= value <= 1.0


def plain_references(
    references: Any,
    ref_weights: Any,
    *,
    n_hyp: int,
    layout: str,
) -> list[list[Reference]] | None:
    """Each segment's ``(text, weight)`` references, for well-formed list inputs only.

    The same reading as :func:`bleustats.engine.io.as_references_table` for
    Python lists (sacreBLEU streams, or one list per segment with ``str`` or
    ``(str, weight)`` items; ``layout`` as there). Anything else (a table, an
    Arrow array, a wrong type, shape or weight, a missing reference) returns
    ``None``: the general path then reads the input and raises its error, so
    both paths accept and reject the same inputs with the same messages.

    Examples
    --------
    >>> plain_references([["a", "b"], ["c", None]], None, n_hyp=2, layout="auto")
    [[('a', 1.0), ('c', 1.0)], [('b', 1.0)]]
    >>> plain_references([["a", ("b", 0.5)]], None, n_hyp=1, layout="segments")
    [[('a', 1.0), ('b', 0.5)]]
    >>> plain_references("a", None, n_hyp=1, layout="auto") is None
    True
    """
    if not isinstance(references, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in references):
        return None
    if layout == "auto":
        layout = "streams"  # lists are sacreBLEU's streams; a wrong length: the general path's error
    if ref_weights is not None:
        if not isinstance(ref_weights, (list, tuple)) or len(ref_weights) != len(references):
            return None
        for w, r in zip(ref_weights, references):
            if not isinstance(w, (list, tuple)) or len(w) != len(r) or not all(map(_is_weight, w)):
                return None
    segments: list[list[Reference]]
    if layout == "streams":
        if any(len(stream) != n_hyp for stream in references):
            return None
        segments = [[] for _ in range(n_hyp)]
        for k, stream in enumerate(references):
            weights = ref_weights[k] if ref_weights is not None else None
            for i, text in enumerate(stream):
                if text is None:
                    continue
                if not isinstance(text, str):
                    return None
                segments[i].append((text, 1.0 if weights is None else float(weights[i])))
        return segments
    if layout != "segments" or len(references) != n_hyp:
        return None
    segments = []
    for i, refs in enumerate(references):
        seg = []
        for k, item in enumerate(refs):
            if isinstance(item, str):
                weight = 1.0 if ref_weights is None else float(ref_weights[i][k])
            elif (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and ref_weights is None
                  and _is_weight(item[1])):
                item, weight = item[0], float(item[1])
            else:
                return None
            seg.append((item, weight))
        segments.append(seg)
    return segments


def view_references(segments: list[list[Reference]], ref_view: str,
                    weight_threshold: float | None) -> list[list[Reference]]:
    """The references each segment keeps in ``ref_view`` (as the pipeline's view of its table).

    Examples
    --------
    >>> segs = [[("a", 1.0), ("b", -0.5)]]
    >>> view_references(segs, "threshold", 0.0), view_references(segs, "first", None)
    ([[('a', 1.0)]], [[('a', 1.0)]])
    """
    if ref_view == "threshold":
        return [[r for r in seg if r[1] >= weight_threshold] for seg in segments]
    if ref_view == "first":
        return [seg[:1] for seg in segments]
    return segments


# --------------------------------------------------------------------------- statistics


def _ngram_counts(tokens: list[str], max_order: int) -> Counter:
    """#g of every n-gram g of orders 1..max_order: unigrams keyed by the token, longer ones by a tuple.

    A Counter keeps the order of first insertion, so each order's n-grams come
    out in the order of their first occurrence (the kernel's summation order).
    """
    if max_order == 1 or len(tokens) < 2:
        return Counter(tokens)
    shifted = [tokens[i:] for i in range(min(max_order, len(tokens)))]
    return Counter(chain(tokens, *(zip(*shifted[:n]) for n in range(2, len(shifted) + 1))))


def _order(gram: str | tuple) -> int:
    return len(gram) if gram.__class__ is tuple else 1


def _tokenized(texts: list[str], tokenize: str, lowercase: bool) -> list[list[str]]:
    if tokenize == "none" and not lowercase:
        return [t.split() for t in texts]  # sacreBLEU's rstrip() changes nothing split() keeps
    return [t.split() for t in tokenize_lines(texts, tokenize=tokenize, lowercase=lowercase)]


def segment_statistics(
    hyp_texts: Sequence[str],
    hyp_segment: Sequence[int],
    ref_segments: Sequence[Sequence[Reference]],
    *,
    tokenize: str,
    lowercase: bool,
    max_ngram_order: int,
    delta_definition: str,
) -> list[Row]:
    """One row of statistics per hypothesis, as the numba pipeline computes it.

    Hypothesis ``i`` is scored against the references
    ``ref_segments[hyp_segment[i]]`` (``(text, weight)`` pairs, at least one;
    options already checked). Each segment's references are tokenized and
    counted once, however many hypotheses it has.

    Returns
    -------
    list of tuples
        ``(hyp_len, ref_len_closest, ref_len_shortest, ref_len_average, n_refs,
        ref_weight_max, match, total, wmatch, wtotal)``, the last four lists of
        ``max_ngram_order`` numbers (ints, then floats).
    """
    n_max = max_ngram_order
    paper = delta_definition == "paper"
    used = sorted(set(hyp_segment))
    ref_texts = [text for s in used for text, _ in ref_segments[s]]
    tokens = _tokenized([*hyp_texts, *ref_texts], tokenize, lowercase)
    hyp_tokens = tokens[: len(hyp_texts)]
    ref_tokens = iter(tokens[len(hyp_texts):])
    # per segment: [(counts, weight), ...], lengths, shortest, average, w_max, uniform, all weights 1
    segments = {}
    for s in used:
        refs = [(_ngram_counts(t, n_max), w, len(t)) for (_, w), t in zip(ref_segments[s], ref_tokens)]
        w_max = -math.inf
        rtok = 0
        shortest = -1
        for _, w, rl in refs:
            rtok += rl
            if shortest < 0 or rl < shortest:
                shortest = rl
            w_max = max(w_max, w)
        uniform = w_max >= 0.0 and all(w == w_max for _, w, _ in refs)
        segments[s] = (refs, shortest, rtok / len(refs), w_max, uniform)
    rows = []
    for toks, s in zip(hyp_tokens, hyp_segment):
        refs, shortest, average, w_max, uniform = segments[s]
        hl = len(toks)
        closest = best = -1
        for _, _, rl in refs:
            d = abs(hl - rl)
            if best < 0 or d < best or (d == best and rl < closest):
                best, closest = d, rl
        hc = _ngram_counts(toks, n_max)
        match = [0] * n_max
        total = [max(0, hl - n + 1) for n in range(1, n_max + 1)]
        if uniform and w_max == 1.0:
            # every weight is 1 (plain BLEU): wmatch_n = 1.0 * match_n summed exactly
            if len(refs) == 1:
                rc = refs[0][0]
                for g in hc.keys() & rc.keys():
                    h, c = hc[g], rc[g]
                    match[len(g) - 1 if g.__class__ is tuple else 0] += h if h < c else c
            else:
                clip: dict = {}
                for rc, _, _ in refs:
                    for g in hc.keys() & rc.keys():
                        c = rc[g]
                        if c > clip.get(g, 0):
                            clip[g] = c
                for g, c in clip.items():
                    h = hc[g]
                    match[len(g) - 1 if g.__class__ is tuple else 0] += h if h < c else c
            wmatch = [float(m) for m in match]
        else:
            wmatch = [0.0] * n_max
            for g, h in hc.items():  # the kernel's summation order
                max_c = 0
                max_w = best_w = -math.inf
                for rc, w, _ in refs:
                    c = rc.get(g, 0)
                    if c:
                        if c > max_c:
                            max_c = c
                        if w > max_w:
                            max_w = w
                        v = w * (h if h < c else c)
                        if v > best_w:
                            best_w = v
                if max_c == 0:
                    continue  # in no reference: adds 0
                m = h if h < max_c else max_c
                k = _order(g) - 1
                match[k] += m
                if uniform:
                    wmatch[k] += w_max * m
                elif paper:
                    wmatch[k] += best_w
                else:
                    wmatch[k] += m * max_w
        rows.append((hl, closest, shortest, average, len(refs), w_max, match, total, wmatch,
                     [t * w_max for t in total]))
    return rows
