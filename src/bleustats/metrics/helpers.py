"""Word and character n-gram counters, at the path sacreBLEU code imports them from.

``sacrebleu.metrics.helpers`` is where sacreBLEU 2.6 keeps the plain-Python
n-gram extraction its metric objects use; libraries built on sacreBLEU (MBR
decoders, expected-BLEU/chrF rerankers) import these functions to count
n-grams the way sacreBLEU does. bleustats' own scores never call them (the
statistics come from the numba kernels); they are here so that such code
runs unchanged, and they return exactly what sacreBLEU's functions return
(tests/metrics/test_sacrebleu_names.py compares them).

Examples
--------
>>> extract_word_ngrams(["a", "b", "a", "b"], 2)
Counter({'a b': 2, 'b a': 1})
>>> extract_char_ngrams("ab ab", 2)
Counter({'ab': 2, 'ba': 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

__all__ = ["extract_all_char_ngrams", "extract_all_word_ngrams", "extract_char_ngrams", "extract_word_ngrams"]


def extract_all_word_ngrams(line: str, min_order: int, max_order: int) -> tuple[Counter, int]:
    """Counts of every word n-gram of ``line`` with ``min_order <= n <= max_order``, and its length.

    Words are the whitespace-separated pieces of ``line`` (already tokenized);
    an n-gram is a tuple of ``n`` consecutive words.

    Parameters
    ----------
    line : str
        A tokenized segment.
    min_order, max_order : int
        The smallest and largest n-gram order counted.

    Returns
    -------
    (collections.Counter, int)
        n-gram tuple -> count, and the number of words.

    Examples
    --------
    >>> extract_all_word_ngrams("the cat the cat", 1, 2)
    (Counter({('the',): 2, ('cat',): 2, ('the', 'cat'): 2, ('cat', 'the'): 1}), 4)
    """
    words = line.split()
    counts: Counter = Counter()
    for n in range(min_order, max_order + 1):
        counts.update(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
    return counts, len(words)


def extract_word_ngrams(tokens: Sequence[str], n: int) -> Counter:
    """Counts of the word n-grams of order ``n`` of a token list, each n-gram its words joined by a space.

    Examples
    --------
    >>> extract_word_ngrams(["to", "be", "or", "not", "to", "be"], 2)["to be"]
    2
    """
    return Counter(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def extract_char_ngrams(line: str, n: int, include_whitespace: bool = False) -> Counter:
    """Counts of the character n-grams of order ``n`` of ``line``.

    Without ``include_whitespace`` every whitespace character is removed first
    (chrF's default), so n-grams run across word boundaries.

    Examples
    --------
    >>> extract_char_ngrams("a b", 2), extract_char_ngrams("a b", 2, include_whitespace=True)
    (Counter({'ab': 1}), Counter({'a ': 1, ' b': 1}))
    """
    if not include_whitespace:
        line = "".join(line.split())
    return Counter(line[i:i + n] for i in range(len(line) - n + 1))


def extract_all_char_ngrams(line: str, max_order: int, include_whitespace: bool = False) -> list[Counter]:
    """:func:`extract_char_ngrams` of every order from 1 to ``max_order``, in that order.

    Examples
    --------
    >>> [sum(c.values()) for c in extract_all_char_ngrams("a cat", 3)]
    [4, 3, 2]
    """
    if not include_whitespace:
        line = "".join(line.split())
    return [extract_char_ngrams(line, n, include_whitespace=True) for n in range(1, max_order + 1)]
