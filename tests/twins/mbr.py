"""Plain-Python twin of the all-pairs n-gram kernels (bleustats.tools._mbr_kernels) and of MBR selection.

Written to be obviously right, not fast: n-grams are tuples counted with
``collections.Counter``; clipped matches are ``sum((h & r).values())`` per
order; pooled references are the Counter sum of the references.
"""

from __future__ import annotations

from collections import Counter


def ngram_counts(tokens, max_order):
    """One Counter of n-gram tuples per order 1..max_order."""
    return [Counter(tuple(tokens[p:p + n]) for p in range(len(tokens) - n + 1)) for n in range(1, max_order + 1)]


def pair_matches(hyp, ref, max_order):
    """Clipped matches per order of one hypothesis against one reference (token lists)."""
    h, r = ngram_counts(hyp, max_order), ngram_counts(ref, max_order)
    return [sum((h[n] & r[n]).values()) for n in range(max_order)]


def pairwise_matches(sources, max_order):
    """``sources``: list of (hypotheses, references) token-list pairs; flat matches, source by source, row-major."""
    out = []
    for hyps, refs in sources:
        for h in hyps:
            for r in refs:
                out += pair_matches(h, r, max_order)
    return out


def aggregate_matches(hyps, refs, max_order, exclude_self=False):
    """Per hypothesis and order: sum_g min(M * #g(h), sum_j #g(r_j)).

    With exclude_self the hypothesis' own text leaves the pool (and M is one less).
    """
    out = []
    for i, h in enumerate(hyps):
        pool_refs = [r for j, r in enumerate(refs) if not (exclude_self and j == i)]
        m = len(pool_refs)
        pooled = [Counter() for _ in range(max_order)]
        for r in pool_refs:
            for n, c in enumerate(ngram_counts(r, max_order)):
                pooled[n].update(c)
        hc = ngram_counts(h, max_order)
        out.append([sum(min(m * c, pooled[n][g]) for g, c in hc[n].items()) for n in range(max_order)])
    return out


def select(matrix, *, loss=False, exclude_self=False):
    """(expected utility per row, chosen row): the mean over columns (the diagonal left out with
    exclude_self); the largest expected utility wins (smallest for a loss), the first on ties."""
    n = len(matrix)
    expected = []
    for i, row in enumerate(matrix):
        vals = [v for j, v in enumerate(row) if not (exclude_self and j == i)]
        expected.append(sum(vals) / len(vals) if vals else float("nan"))
    best = 0
    for i in range(1, n):
        better = expected[i] < expected[best] if loss else expected[i] > expected[best]
        if better:
            best = i
    return expected, best
