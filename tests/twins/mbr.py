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


def chrf_f(stats, beta, eps_smoothing):
    """sacreBLEU 2.6's chrF F-score of one (hyp, ref, match)-per-order row, written out plainly."""
    eps = 1e-16
    factor = beta ** 2
    n_orders = len(stats) // 3
    score, eff, avg_p, avg_r = 0.0, 0, 0.0, 0.0
    for i in range(n_orders):
        n_hyp, n_ref, n_match = stats[3 * i: 3 * i + 3]
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_p, avg_r, eff = avg_p + prec, avg_r + rec, eff + 1
    if eps_smoothing:
        return 100 * score / n_orders
    if eff:
        avg_p, avg_r = avg_p / eff, avg_r / eff
    else:
        avg_p = avg_r = 0.0
    if avg_p + avg_r:
        score = (1 + factor) * avg_p * avg_r
        score /= (factor * avg_p) + avg_r
        return 100 * score
    return 0.0


def pair_chrf(h_chars, r_chars, h_words, r_words, char_order, word_order, beta, eps_smoothing):
    """Sentence chrF of one pair of token sequences (characters, words) by the twin's counts."""
    stats = []
    for h, r, order in ((h_chars, r_chars, char_order), (h_words, r_words, word_order)):
        m = pair_matches(h, r, order) if order else []
        for n in range(order):
            h_tot, r_tot = max(0, len(h) - n), max(0, len(r) - n)
            stats += [h_tot if r_tot > 0 else 0, r_tot, m[n]]
    return chrf_f(stats, beta, eps_smoothing)
