r"""The analyses of :func:`bleustats.tools.system_compare.compare` that read tokens: words, n-grams, examples.

:class:`Texts` holds the texts of the comparison (every system's hypotheses
and the reference streams, one line per segment) and their token ids
(:mod:`bleustats.tools._compare_tokens`). From them:

- :func:`word_block`: per segment, word bucket and system, the matched words,
  the system's words and the reference's (compare-mt's word accuracy by
  frequency bucket), as one block for the shared bootstrap;
- :func:`ngram_records`: compare-mt's n-gram difference analysis;
- :func:`example_records`: compare-mt's sentence examples.

Examples
--------
>>> texts = Texts.build({"A": ["a b c"], "B": ["a b d"]}, [["a b c"]], tokenize="none", lowercase=False,
...                     compare_mt_split=True)
>>> block, _ = word_block(texts, [1, 2])
>>> block.matrix.tolist()   # per system: matches (3 buckets), words (3), reference words (3)
[[0.0, 3.0, 0.0, 0.0, 3.0, 0.0, 0.0, 3.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from ._compare_resample import Block
from ._compare_tokens import (TokenArrays, compare_mt_line, encode_lines, ngram_index, ngram_totals, segment_bags,
                              shown, word_bucket_sums)

__all__ = ["Texts", "example_records", "ngram_records", "word_block", "word_scores"]


@dataclass(frozen=True)
class Texts:
    """The comparison's texts, one line per segment, and their tokens.

    Attributes
    ----------
    systems : dict of str to list of str
        Each system's hypotheses, in segment order (as given).
    references : list of list of str or None
        Reference streams, in segment order; ``None`` where a segment has fewer references.
    keys : dict of str to list of str
        The texts as compare-mt compares them (after its split with ``tokenize='none'``).
    tokens : TokenArrays
        Lines: the reference streams, then the systems, then the frequency corpus.
    n : int
        Segments.
    freq_lines : int
        Lines of the frequency corpus (0: frequencies from the references).
    """

    systems: dict[str, list[str]]
    references: list[list[str | None]]
    keys: dict[str, list[str]]
    ref_keys: list[list[str]]
    tokens: TokenArrays
    n: int
    freq_lines: int

    @classmethod
    def build(cls, systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str | None]], *,
              tokenize: str, lowercase: bool, compare_mt_split: bool, freq_corpus: Sequence[str] | None = None,
              split: tuple[Mapping[str, Sequence[str]], Sequence[Sequence[str | None]]] | None = None) -> Texts:
        """Tokenize everything once (``compare_mt_split``: compare-mt's whitespace split, :func:`compare_mt_line`).

        ``split`` gives the systems' and references' lines already rewritten by
        :func:`compare_mt_line` (they are not rewritten again).
        """
        def key(line: str | None) -> str:
            if line is None:
                return ""  # a missing reference: no tokens
            return compare_mt_line(line) if compare_mt_split else line

        sys_lines = {name: list(lines) for name, lines in systems.items()}
        n = len(next(iter(sys_lines.values())))
        if split is not None:
            keys = {name: list(lines) for name, lines in split[0].items()}
            ref_keys = [["" if t is None else t for t in stream] for stream in split[1]]
        else:
            keys = {name: [key(t) for t in lines] for name, lines in sys_lines.items()}
            ref_keys = [[key(t) for t in stream] for stream in references]
        freq = [key(t) for t in freq_corpus] if freq_corpus is not None else []
        lines = [t for stream in ref_keys for t in stream] + [t for k in keys.values() for t in k] + freq
        tokens = encode_lines(lines, tokenize, lowercase, canonical=compare_mt_split)
        return cls(sys_lines, [list(s) for s in references], keys, ref_keys, tokens, n, len(freq))

    @property
    def ref_starts(self) -> list[int]:
        return [k * self.n for k in range(len(self.references))]

    @property
    def sources(self) -> list[int]:
        """The first line of every reference stream, then of every system."""
        return [k * self.n for k in range(len(self.references) + len(self.systems))]

    def system_index(self, name: str) -> int:
        return list(self.systems).index(name)


# --------------------------------------------------------------------------- words by frequency


def word_block(texts: Texts, cutoffs: Sequence[float]) -> tuple[Block, NDArray[np.int64]]:
    """The word statistics of every system as one block, and the reference words of each bucket.

    Frequencies are counted in the references (every stream), or in the
    frequency corpus when there is one, as compare-mt's ``freq_corpus_file``;
    a word they do not hold has frequency 0.
    """
    tok, n = texts.tokens, texts.n
    if texts.freq_lines:
        first = len(tok.offsets) - 1 - texts.freq_lines
        ids = tok.ids[tok.offsets[first]:]
    else:
        ids = tok.ids[:tok.offsets[len(texts.references) * n]]
    freq = np.bincount(ids, minlength=tok.n_vocab)
    bucket_of_id = np.searchsorted(np.asarray(cutoffs, np.float64), freq, side="right").astype(np.int64)
    n_buckets = len(cutoffs) + 1
    bags = segment_bags(tok.ids, tok, texts.sources, n, tok.n_vocab)
    parts = []
    for j in range(len(texts.systems)):
        parts += list(word_bucket_sums(bags, len(texts.references), j, n, bucket_of_id, n_buckets))
    ref = parts[2]
    return Block("words", np.hstack(parts).astype(np.float64), None, 1), ref.sum(axis=0)


def word_scores(sums: NDArray[np.float64], n_buckets: int) -> dict[str, NDArray[np.float64]]:
    r"""compare-mt's word precision, recall and F-measure per bucket from summed ``[match | hyp | ref]``.

    .. math::

        P = m / h, \quad R = m / r, \quad F = 2PR / (P + R) \qquad (\text{all 0 when } m = 0)

    ``sums`` has shape (..., 3 * n_buckets); the results (..., n_buckets).
    """
    m, h, r = (sums[..., i * n_buckets:(i + 1) * n_buckets] for i in range(3))
    some = m > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = np.where(some, m / np.where(some, r, 1.0), 0.0)
        prec = np.where(some, m / np.where(some, h, 1.0), 0.0)
        fmeas = np.where(some, 2 * prec * rec / np.where(some, prec + rec, 1.0), 0.0)
    return {"word_fmeasure_by_frequency": fmeas, "word_precision_by_frequency": prec,
            "word_recall_by_frequency": rec}


# --------------------------------------------------------------------------- n-gram differences


def ngram_records(texts: Texts, baseline: str, *, orders: tuple[int, int], alpha: float,
                  compare_types: Sequence[str], report_length: int, signature: Mapping[str, str]
                  ) -> list[dict[str, Any]]:
    r"""compare-mt's n-gram difference analysis of every system against the baseline.

    For each n-gram :math:`g` of orders ``orders[0]..orders[1]`` that either
    system has a count of (``compare_type`` match, over or under) with
    :math:`c_b`, :math:`c_s` its counts in the baseline and the system,

    .. math::

        \mathrm{score}(g) = \frac{c_b + \alpha}{c_b + c_s + 2\alpha}

    (compare-mt's ``extract_salient_features``); the ``report_length`` highest
    (the baseline's n-grams) and lowest (the system's) are reported: the head
    and the tail of one sorted list, as compare-mt's. Within equal scores the
    more frequent n-gram (:math:`c_b + c_s`), then the shorter, then the one
    that occurs first is nearer its end of the list (compare-mt leaves their
    order to Python's set).
    """
    tok, n = texts.tokens, texts.n
    lo, hi = orders
    index = ngram_index(tok, hi)
    per_order = []
    for order in range(lo, hi + 1):
        bags = segment_bags(index.grams[order - 1], tok, texts.sources, n, index.sizes[order - 1])
        per_order.append({name: ngram_totals(bags, len(texts.references), j)
                          for j, name in enumerate(texts.systems)})
    order_of = np.concatenate([np.full(index.sizes[o - 1], o) for o in range(lo, hi + 1)])
    gram_of = np.concatenate([np.arange(index.sizes[o - 1]) for o in range(lo, hi + 1)])
    found: list[tuple[str, str, NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = []
    for kind in compare_types:
        base = np.concatenate([counts[baseline][kind] for counts in per_order])
        for name in texts.systems:
            if name == baseline:
                continue
            other = np.concatenate([counts[name][kind] for counts in per_order])
            cand = np.flatnonzero((base > 0) | (other > 0))
            b, s = base[cand].astype(np.float64), other[cand].astype(np.float64)
            score = (b + alpha) / (b + s + 2 * alpha)
            # one total order, highest score first; ties: the more frequent, shorter, earlier n-gram nearer
            # the end of the list it is reported in (the head for scores above 1/2, the tail below)
            side = np.where(score > 0.5, 1.0, -1.0)
            keys = (-score, -(b + s) * side, order_of[cand] * side, gram_of[cand] * side)
            chosen = _first_k(*keys, report_length)
            chosen += [i for i in _first_k(*(-k for k in keys), report_length) if i not in chosen]
            found.append((kind, name, cand[chosen], score[chosen], b[chosen], s[chosen]))
    picked = np.concatenate([f[2] for f in found]) if found else np.zeros(0, np.int64)
    names = {o: index.texts(tok, o, gram_of[picked][order_of[picked] == o].tolist())  # one search per order
             for o in np.unique(order_of[picked]).tolist()}
    records: list[dict[str, Any]] = []
    for kind, name, grams, scores, b, s in found:
        for g, value, c_b, c_s in zip(grams.tolist(), scores.tolist(), b.tolist(), s.tolist()):
            records.append({"analysis": f"ngram_{kind}", "bucket": shown(names[int(order_of[g])][int(gram_of[g])]),
                            "system": name, "value": value, "count": int(c_s), "baseline_count": int(c_b),
                            "baseline": baseline, "signature": signature[f"ngram_{kind}"]})
    return records


def _first_k(key: NDArray[np.float64], tie1: NDArray[np.float64], tie2: NDArray[Any], tie3: NDArray[Any],
             k: int) -> list[int]:
    """Indices of the ``k`` smallest ``(key, tie1, tie2, tie3)``, in order."""
    if k <= 0 or len(key) == 0:
        return []
    if len(key) > k:  # the k-th smallest key, then everything tied with it or below
        kth = np.partition(key, k - 1)[k - 1]
        cand = np.flatnonzero(key <= kth)
    else:
        cand = np.arange(len(key))
    order = np.lexsort((tie3[cand], tie2[cand], tie1[cand], key[cand]))
    return cand[order[:k]].tolist()


# --------------------------------------------------------------------------- sentence examples


def example_records(texts: Texts, sentence_scores: Mapping[str, NDArray[np.float64]], segments: NDArray[np.int64],
                    baseline: str, *, n_examples: int, signature: str) -> list[dict[str, Any]]:
    r"""compare-mt's sentence examples: the segments where each system and the baseline differ most.

    As compare-mt's ``generate_sentence_examples``: segments whose (baseline,
    system, reference) token sequences repeat an earlier segment's are
    skipped; the rest are sorted by :math:`s - b` (system minus baseline
    sentence BLEU), then :math:`b`, :math:`s` and position; the first
    ``n_examples`` are where the baseline is better (``bucket``
    ``'baseline_better'``, largest difference first), the last ones where the
    system is (``'system_better'``, largest first).
    """
    records: list[dict[str, Any]] = []
    base_scores = sentence_scores[baseline]
    first_ref = texts.references[0]
    for name in texts.systems:
        if name == baseline:
            continue
        seen: set[tuple[str, ...]] = set()
        keep = np.zeros(texts.n, bool)
        for i, key in enumerate(zip(texts.keys[baseline], texts.keys[name], *texts.ref_keys)):
            if key not in seen:
                seen.add(key)
                keep[i] = True
        idx = np.flatnonzero(keep)
        b, s = base_scores[idx], sentence_scores[name][idx]
        order = idx[np.lexsort((idx, s, b, s - b))]
        k = min(n_examples, len(order))
        picks = [("baseline_better", i) for i in order[:k]] + [("system_better", i) for i in order[::-1][:k]]
        for side, i in picks:
            records.append({"analysis": "sentence_examples", "bucket": side, "system": name,
                            "value": float(sentence_scores[name][i]), "baseline_value": float(base_scores[i]),
                            "seg_id": int(segments[i]), "reference": first_ref[i] or "",
                            "hypothesis": texts.systems[name][i], "baseline_hypothesis": texts.systems[baseline][i],
                            "baseline": baseline, "signature": signature})
    return records
