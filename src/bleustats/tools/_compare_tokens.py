r"""Token-level inputs of :func:`bleustats.tools.system_compare.compare`: token ids, word and n-gram bags.

The statistics table holds what BLEU, chrF and TER need per segment; the word
analyses of compare-mt (word F-measure by frequency, n-gram differences) need
the tokens themselves. This module turns the texts into one flat array of
integer token ids with line offsets (:class:`TokenArrays`, a single
vocabulary for references, every system and a frequency corpus), and counts
words and n-grams per segment and source with one sort of integer keys
(:func:`segment_bags`): no Python loop over tokens.

compare-mt splits a line with ``line.strip().split(' ')``: two spaces make an
empty token, an empty line is one empty token, and a no-break space (or any
other whitespace but ``' '``) stays inside its token. With ``tokenize='none'``
:func:`compare_mt_line` rewrites a line so that ``str.split()`` (the engine's
split) finds exactly those tokens: every whitespace character other than
``' '`` becomes a private-use character (U+F0000 + its code point) and an
empty token becomes U+F0000 (:data:`EMPTY_TOKEN`); :func:`shown` maps a token
back. A text that already holds one of those characters (U+F0000 to U+F3000,
private use; none of the WMT data does) is refused rather than split wrongly.

A segment's reference bag is the largest count of each word or n-gram over
its references (BLEU's clipping bag), so with one reference it is compare-mt's.

Examples
--------
>>> compare_mt_line("a  b\u00a0c") == "a " + EMPTY_TOKEN + " b\U000f00a0c"
True
>>> shown(compare_mt_line("a  b\u00a0c").split()[2]) == "b\u00a0c"
True
>>> tok = encode_lines(["a b a", "b c"], "none", False, canonical=True)
>>> tok.ids.tolist(), tok.offsets.tolist(), tok.vocab
([0, 1, 0, 1, 2], [0, 3, 5], ['a', 'b', 'c'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError

__all__ = ["EMPTY_TOKEN", "Bags", "NgramIndex", "TokenArrays", "compare_mt_line", "encode_lines", "ngram_index",
           "ngram_totals", "segment_bags", "shown", "word_bucket_sums"]

#: compare-mt's empty token ('' from two spaces or an empty line), as one character of plane 15.
EMPTY_TOKEN = "\U000f0000"
_PUA = 0xF0000
#: every whitespace character but ' ' (str.isspace) -> a private-use character of plane 15
_HIDE = {c: _PUA + c for c in range(0x3001) if chr(c).isspace() and c != 0x20}
_SHOW: dict[int, int | None] = {v: k for k, v in _HIDE.items()}
_SHOW[_PUA] = None
#: whitespace other than one space between tokens (re's \s is str.isspace's set)
_ODD_SPACE = re.compile(r"[^\S ]|  ")
#: the characters the rewriting uses as markers: a text holding one could not be split back
_MARKERS = re.compile("[\U000f0000-\U000f3000]")
#: tokenizers whose output is its tokens joined by single spaces (others are joined again here)
_CANONICAL = ("13a", "intl", "zh")


def compare_mt_line(line: str) -> str:
    """``line`` rewritten so that ``str.split()`` gives compare-mt's tokens, ``line.strip().split(' ')``.

    Examples
    --------
    >>> compare_mt_line(" the cat ") == "the cat", compare_mt_line("") == EMPTY_TOKEN
    (True, True)
    """
    stripped = line.strip()
    if not stripped:
        return EMPTY_TOKEN
    marker = _MARKERS.search(stripped)
    if marker is not None:
        raise InputError(f"texts: {stripped[:60]!r} holds U+{ord(marker.group()):05X}, a private-use character that "
                         "compare-mt's whitespace split uses as a marker here (tokenize='none' with compare-mt's "
                         "definition); remove it, or use another tokenizer or bleu_definition='sacrebleu'.")
    if _ODD_SPACE.search(stripped) is None:  # single spaces only (most lines): the tokens are str.split()'s
        return stripped
    return " ".join(t or EMPTY_TOKEN for t in stripped.translate(_HIDE).split(" "))


def shown(text: str) -> str:
    """A token (or tokens joined by spaces) of :func:`compare_mt_line` as compare-mt prints it.

    Examples
    --------
    >>> shown("a " + EMPTY_TOKEN + " b")
    'a  b'
    """
    return text.translate(_SHOW)


@dataclass(frozen=True)
class TokenArrays:
    """Every line's tokens as integer ids: line ``i`` is ``ids[offsets[i]:offsets[i + 1]]``.

    Attributes
    ----------
    ids : numpy.ndarray of int64
        Token ids, lines one after the other.
    offsets : numpy.ndarray of int64, shape (n_lines + 1,)
    vocab : list of str
        The token of each id (as tokenized, lowercased if asked).
    """

    ids: NDArray[np.int64]
    offsets: NDArray[np.int64]
    vocab: list[str]

    @property
    def n_vocab(self) -> int:
        return len(self.vocab)

    def lengths(self, first: int, n: int) -> NDArray[np.int64]:
        """Token counts of lines ``first .. first + n - 1``."""
        return np.diff(self.offsets[first:first + n + 1])

    def text(self, start: int, length: int) -> str:
        """The tokens at flat positions ``start .. start + length - 1``, joined by spaces."""
        return " ".join(self.vocab[i] for i in self.ids[start:start + length].tolist())


def encode_lines(lines: Sequence[str], tokenize: str, lowercase: bool, *, canonical: bool = False) -> TokenArrays:
    """Tokenize ``lines`` as the statistics were (``tokenize``, ``lowercase``) and give every token an id.

    The tokens are those ``str.split()`` finds in the tokenizer's output, as
    the engine's encoder splits it. ``canonical`` says the lines are already
    tokens joined by single spaces (:func:`compare_mt_line`'s output).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..engine.encode import tokenized

    arr = tokenized(pa.array(list(lines), pa.string()), tokenize, lowercase)
    if not (canonical or tokenize in _CANONICAL):
        arr = pa.array([" ".join(t.split()) for t in arr.to_pylist()], pa.string())
    split = pc.split_pattern(arr, " ")
    counts = np.asarray(pc.list_value_length(split).fill_null(0), dtype=np.int64)
    empty = np.asarray(pc.equal(arr, ""), dtype=bool)
    counts[empty] = 0  # '' splits into one empty string
    flat = pc.list_flatten(split)
    if empty.any():
        flat = flat.filter(pc.not_equal(flat, ""))
    encoded = flat.dictionary_encode()
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return TokenArrays(np.asarray(encoded.indices, dtype=np.int64), offsets, encoded.dictionary.to_pylist())


# --------------------------------------------------------------------------- bags


def _line_of_tokens(offsets: NDArray[np.int64], first: int, n: int) -> NDArray[np.int64]:
    """The line (0 .. n-1, relative to ``first``) of every token of lines ``first .. first + n - 1``."""
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets[first:first + n + 1]))


@dataclass(frozen=True)
class Bags:
    """How often each item (a word, an n-gram) occurs in each segment of several sources, from one sort.

    Attributes
    ----------
    keys : numpy.ndarray of int64
        The distinct ``segment * size + item`` found in any source, sorted.
    counts : numpy.ndarray of int64, shape (len(keys), n_sources)
        Occurrences of each key in each source (a source is one line per segment: a reference
        stream or a system).
    size : int
        Items are 0 .. size - 1.
    """

    keys: NDArray[np.int64]
    counts: NDArray[np.int64]
    size: int

    @property
    def items(self) -> NDArray[np.int64]:
        return self.keys % self.size

    @property
    def segments(self) -> NDArray[np.int64]:
        return self.keys // self.size

    def largest(self, sources: slice) -> NDArray[np.int64]:
        """Each key's largest count over ``sources`` (0 without any): a segment's clipping bag over its references."""
        part = self.counts[:, sources]
        return part.max(axis=1) if part.shape[1] else np.zeros(len(self.keys), np.int64)


def segment_bags(items: NDArray[np.int64], tok: TokenArrays, starts: Sequence[int], n: int, size: int) -> Bags:
    """The :class:`Bags` of ``items`` (one per flat token position, -1 for none) over the sources' lines.

    Source ``s`` is lines ``starts[s] .. starts[s] + n - 1`` (line ``i`` is segment ``i``). Every
    occurrence becomes the integer ``(segment * size + item) * n_sources + s``; one sort of them all
    gives each (segment, item, source)'s count as the length of its run.
    """
    n_sources = len(starts)
    parts = []
    for s, first in enumerate(starts):
        lo, hi = tok.offsets[first], tok.offsets[first + n]
        it = items[lo:hi]
        seg = _line_of_tokens(tok.offsets, first, n)
        keep = it >= 0
        parts.append((seg[keep] * size + it[keep]) * n_sources + s)
    flat = np.sort(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
    if len(flat) == 0:
        return Bags(np.zeros(0, np.int64), np.zeros((0, n_sources), np.int64), size)
    run = np.flatnonzero(np.concatenate(([True], flat[1:] != flat[:-1])))
    run_keys = flat[run]
    run_counts = np.diff(np.append(run, len(flat)))
    block = run_keys // n_sources
    new = np.concatenate(([True], block[1:] != block[:-1]))
    counts = np.zeros((int(new.sum()), n_sources), np.int64)
    counts[np.cumsum(new) - 1, run_keys % n_sources] = run_counts
    return Bags(block[new], counts, size)


def word_bucket_sums(bags: Bags, n_refs: int, system: int, n: int, bucket_of_id: NDArray[np.int64],
                     n_buckets: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    r"""Per segment and word bucket: the system's matched words, its words, and the reference words.

    ``bags`` are words (:func:`segment_bags` of the token ids) over the ``n_refs``
    reference streams, then the systems; ``system`` counts from 0. A word
    :math:`w` of segment :math:`s` matches :math:`\min(\#w(h), \#w(r))` times
    (compare-mt's greedy alignment of equal words gives the same count), with
    :math:`\#w(r)` its largest count over the references; its bucket is
    ``bucket_of_id[w]``.

    Returns
    -------
    tuple of numpy.ndarray of int64, shape (n, n_buckets)
    """
    ref = bags.largest(slice(0, n_refs))
    hyp = bags.counts[:, n_refs + system]
    cell = bags.segments * n_buckets + bucket_of_id[bags.items]
    size = n * n_buckets

    def per_cell(values: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.bincount(cell, weights=values, minlength=size).astype(np.int64).reshape(n, n_buckets)

    return per_cell(np.minimum(hyp, ref)), per_cell(hyp), per_cell(ref)


# --------------------------------------------------------------------------- n-grams


@dataclass(frozen=True)
class NgramIndex:
    """Every n-gram (orders 1..N) of the token arrays as one integer.

    Attributes
    ----------
    grams : list of numpy.ndarray of int64
        ``grams[n - 1][p]``: the id, within order n, of the n-gram starting at
        flat position ``p`` (-1 where the line ends before it).
    sizes : list of int
        Distinct n-grams of each order.
    """

    grams: list[NDArray[np.int64]]
    sizes: list[int]

    def texts(self, tok: TokenArrays, order: int, grams: Sequence[int]) -> dict[int, str]:
        """The n-grams ``grams`` of ``order``, each as its tokens joined by spaces."""
        wanted = np.asarray(sorted(set(grams)), dtype=np.int64)
        where = np.flatnonzero(np.isin(self.grams[order - 1], wanted))
        found, first = np.unique(self.grams[order - 1][where], return_index=True)
        return {int(g): tok.text(int(where[i]), order) for g, i in zip(found, first)}


def ngram_index(tok: TokenArrays, max_order: int) -> NgramIndex:
    """Ids of every n-gram of orders 1..``max_order``: order n extends order n-1 by one token."""
    line_end = np.repeat(tok.offsets[1:], np.diff(tok.offsets))
    positions = np.arange(len(tok.ids), dtype=np.int64)
    grams = [tok.ids.copy()]
    sizes = [tok.n_vocab]
    for order in range(2, max_order + 1):
        valid = np.flatnonzero(line_end - positions >= order)
        keys = grams[-1][valid] * tok.n_vocab + tok.ids[valid + order - 1]
        distinct, inverse = np.unique(keys, return_inverse=True)
        out = np.full(len(tok.ids), -1, np.int64)
        out[valid] = inverse
        grams.append(out)
        sizes.append(len(distinct))
    return NgramIndex(grams, sizes)


def ngram_totals(bags: Bags, n_refs: int, system: int) -> dict[str, NDArray[np.int64]]:
    r"""compare-mt's n-gram counts of one system, summed over segments, for every n-gram of the bags' order.

    Per segment, an n-gram occurring :math:`h` times in the hypothesis and
    :math:`r` times in the reference bag (its largest count over the
    references) adds :math:`\min(h, r)` to ``match``, :math:`h - \min(h, r)`
    to ``over`` and :math:`r - \min(h, r)` to ``under`` (compare-mt's
    ``compare_ngrams``).

    Returns
    -------
    dict of str to numpy.ndarray of int64, shape (bags.size,)
        ``match``, ``over`` and ``under``, indexed by n-gram id.
    """
    ref = bags.largest(slice(0, n_refs))
    hyp = bags.counts[:, n_refs + system]
    matched = np.minimum(hyp, ref)
    items = bags.items

    def per_gram(values: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.bincount(items, weights=values, minlength=bags.size).astype(np.int64)

    return {"match": per_gram(matched), "over": per_gram(hyp - matched), "under": per_gram(ref - matched)}
