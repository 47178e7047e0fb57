r"""Token-level inputs of :func:`bleustats.tools.system_compare.compare`: token ids, word and n-gram bags.

The statistics table holds what BLEU, chrF and TER need per segment; the word
analyses of compare-mt (word F-measure by frequency, n-gram differences) need
the tokens themselves. This module turns the texts into one flat array of
integer token ids with line offsets (:class:`TokenArrays`, a single
vocabulary for references, every system and a frequency corpus), and counts
bags of words and n-grams per segment with sorts and searches over integer
keys: no Python loop over tokens.

compare-mt splits a line with ``line.strip().split(' ')``: two spaces make an
empty token, an empty line is one empty token, and a no-break space (or any
other whitespace but ``' '``) stays inside its token. With ``tokenize='none'``
:func:`compare_mt_line` rewrites a line so that ``str.split()`` (the engine's
split) finds exactly those tokens: every whitespace character other than
``' '`` becomes a private-use character (U+F0000 + its code point) and an
empty token becomes U+F0000 (:data:`EMPTY_TOKEN`); :func:`shown` maps a token
back. Texts that already hold characters of plane 15 could collide with these;
none of the WMT data does.

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

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["EMPTY_TOKEN", "NgramIndex", "TokenArrays", "bag_of", "compare_mt_line", "encode_lines", "ngram_index",
           "ngram_totals", "reference_bag", "shown", "word_bucket_sums"]

#: compare-mt's empty token ('' from two spaces or an empty line), as one character of plane 15.
EMPTY_TOKEN = "\U000f0000"
_PUA = 0xF0000
#: every whitespace character but ' ' (str.isspace) -> a private-use character of plane 15
_HIDE = {c: _PUA + c for c in range(0x3001) if chr(c).isspace() and c != 0x20}
_SHOW: dict[int, int | None] = {v: k for k, v in _HIDE.items()}
_SHOW[_PUA] = None
#: tokenizers whose output is its tokens joined by single spaces (others are joined again here)
_CANONICAL = ("13a", "intl", "zh")


def compare_mt_line(line: str) -> str:
    """``line`` rewritten so that ``str.split()`` gives compare-mt's tokens, ``line.strip().split(' ')``.

    Examples
    --------
    >>> compare_mt_line(" the cat ") == "the cat", compare_mt_line("") == EMPTY_TOKEN
    (True, True)
    """
    return " ".join(t.translate(_HIDE) if t else EMPTY_TOKEN for t in line.strip().split(" "))


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


# --------------------------------------------------------------------------- bags of words


def _line_of_tokens(offsets: NDArray[np.int64], first: int, n: int) -> NDArray[np.int64]:
    """The line (0 .. n-1, relative to ``first``) of every token of lines ``first .. first + n - 1``."""
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets[first:first + n + 1]))


def bag_of(keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Distinct ``keys`` (sorted) and how often each occurs."""
    return np.unique(keys, return_counts=True)


def _max_merge(bags: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]]
               ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The bags merged, each key with its largest count."""
    if len(bags) == 1:
        return bags[0]
    keys = np.concatenate([k for k, _ in bags])
    counts = np.concatenate([c for _, c in bags])
    if len(keys) == 0:
        return keys, counts
    order = np.lexsort((counts, keys))  # by key, the largest count last
    keys, counts = keys[order], counts[order]
    last = np.flatnonzero(np.append(keys[1:] != keys[:-1], True))
    return keys[last], counts[last]


def reference_bag(tok: TokenArrays, stream_starts: Sequence[int], n: int
                  ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each segment's reference words, ``seg * n_vocab + id``, with their largest count over the references."""
    bags = []
    for first in stream_starts:
        seg = _line_of_tokens(tok.offsets, first, n)
        ids = tok.ids[tok.offsets[first]:tok.offsets[first + n]]
        bags.append(bag_of(seg * tok.n_vocab + ids))
    return _max_merge(bags)


def _lookup(keys: NDArray[np.int64], bag: tuple[NDArray[np.int64], NDArray[np.int64]]) -> NDArray[np.int64]:
    """The count of each key in ``bag`` (0 where it is absent)."""
    bag_keys, bag_counts = bag
    if len(bag_keys) == 0:
        return np.zeros(len(keys), np.int64)
    at = np.minimum(np.searchsorted(bag_keys, keys), len(bag_keys) - 1)
    return np.where(bag_keys[at] == keys, bag_counts[at], 0)


def word_bucket_sums(tok: TokenArrays, hyp_first: int, ref_bag: tuple[NDArray[np.int64], NDArray[np.int64]], n: int,
                     bucket_of_id: NDArray[np.int64], n_buckets: int
                     ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    r"""Per segment and word bucket: the system's matched words and its words.

    A word :math:`w` of segment :math:`s` matches :math:`\min(\#w(h), \#w(r))`
    times (compare-mt's greedy alignment of equal words gives the same count);
    its bucket is ``bucket_of_id[w]``.

    Returns
    -------
    tuple of numpy.ndarray of int64, shape (n, n_buckets)
        Matches and hypothesis words.
    """
    seg = _line_of_tokens(tok.offsets, hyp_first, n)
    ids = tok.ids[tok.offsets[hyp_first]:tok.offsets[hyp_first + n]]
    keys, counts = bag_of(seg * tok.n_vocab + ids)
    matched = np.minimum(counts, _lookup(keys, ref_bag))
    cell = (keys // tok.n_vocab) * n_buckets + bucket_of_id[keys % tok.n_vocab]
    size = n * n_buckets
    match = np.bincount(cell, weights=matched, minlength=size).astype(np.int64).reshape(n, n_buckets)
    total = np.bincount(cell, weights=counts, minlength=size).astype(np.int64).reshape(n, n_buckets)
    return match, total


def reference_bucket_sums(tok: TokenArrays, ref_bag: tuple[NDArray[np.int64], NDArray[np.int64]], n: int,
                          bucket_of_id: NDArray[np.int64], n_buckets: int) -> NDArray[np.int64]:
    """Per segment and word bucket: the reference words (the bag's counts)."""
    keys, counts = ref_bag
    cell = (keys // tok.n_vocab) * n_buckets + bucket_of_id[keys % tok.n_vocab]
    return np.bincount(cell, weights=counts, minlength=n * n_buckets).astype(np.int64).reshape(n, n_buckets)


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
    first : list of numpy.ndarray of int64
        A flat position where each n-gram of each order occurs.
    """

    grams: list[NDArray[np.int64]]
    sizes: list[int]
    first: list[NDArray[np.int64]]

    def text(self, tok: TokenArrays, order: int, gram: int) -> str:
        """The n-gram ``gram`` of ``order``, tokens joined by spaces."""
        return tok.text(int(self.first[order - 1][gram]), order)


def ngram_index(tok: TokenArrays, max_order: int) -> NgramIndex:
    """Ids of every n-gram of orders 1..``max_order``: order n extends order n-1 by one token."""
    line_end = np.repeat(tok.offsets[1:], np.diff(tok.offsets))
    positions = np.arange(len(tok.ids), dtype=np.int64)
    grams = [tok.ids.copy()]
    sizes = [tok.n_vocab]
    firsts = [np.unique(tok.ids, return_index=True)[1].astype(np.int64)]  # ids are 0..n_vocab-1, all used
    for order in range(2, max_order + 1):
        valid = np.flatnonzero(line_end - positions >= order)
        keys = grams[-1][valid] * tok.n_vocab + tok.ids[valid + order - 1]
        distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        out = np.full(len(tok.ids), -1, np.int64)
        out[valid] = inverse
        grams.append(out)
        sizes.append(len(distinct))
        firsts.append(valid[first])
    return NgramIndex(grams, sizes, firsts)


def _gram_bag(index: NgramIndex, tok: TokenArrays, order: int, first_line: int, n: int
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Bag of ``seg * size + gram`` of order ``order`` over lines ``first_line .. first_line + n - 1``."""
    lo, hi = tok.offsets[first_line], tok.offsets[first_line + n]
    grams = index.grams[order - 1][lo:hi]
    seg = _line_of_tokens(tok.offsets, first_line, n)
    keep = grams >= 0
    return bag_of(seg[keep] * index.sizes[order - 1] + grams[keep])


def ngram_totals(index: NgramIndex, tok: TokenArrays, order: int, hyp_first: int,
                 ref_bag: tuple[NDArray[np.int64], NDArray[np.int64]], n: int
                 ) -> dict[str, NDArray[np.int64]]:
    r"""compare-mt's n-gram counts of one system, summed over segments, for every n-gram of ``order``.

    Per segment, an n-gram occurring :math:`h` times in the hypothesis and
    :math:`r` times in the reference bag adds :math:`\min(h, r)` to
    ``match``, :math:`h - \min(h, r)` to ``over`` and :math:`r - \min(h, r)`
    to ``under`` (compare-mt's ``compare_ngrams``).

    Returns
    -------
    dict of str to numpy.ndarray of int64, shape (sizes[order - 1],)
        ``match``, ``over`` and ``under``, indexed by n-gram id.
    """
    size = index.sizes[order - 1]
    keys, counts = _gram_bag(index, tok, order, hyp_first, n)
    matched = np.minimum(counts, _lookup(keys, ref_bag))
    gram = keys % size
    match = np.bincount(gram, weights=matched, minlength=size)
    over = np.bincount(gram, weights=counts - matched, minlength=size)
    ref_keys, ref_counts = ref_bag
    ref_matched = _lookup(ref_keys, (keys, matched))
    under = np.bincount(ref_keys % size, weights=ref_counts - ref_matched, minlength=size)
    return {"match": match.astype(np.int64), "over": over.astype(np.int64), "under": under.astype(np.int64)}


def ngram_reference_bag(index: NgramIndex, tok: TokenArrays, order: int, stream_starts: Sequence[int], n: int
                        ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Each segment's reference n-grams of ``order`` with their largest count over the references."""
    return _max_merge([_gram_bag(index, tok, order, first, n) for first in stream_starts])
