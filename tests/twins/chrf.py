"""Plain-Python twin of the chrF / chrF++ statistics kernel (bleustats.engine._chrf_kernels).

Written to be obviously right, not fast: n-grams are tuples counted with
``collections.Counter``; every reference is scored and the first one with the
highest sentence F-score is kept. The rules it encodes are sacreBLEU 2.6's:

* character n-grams over code points; whitespace (what ``str.split()`` splits
  on) is dropped first unless ``whitespace`` is true;
* words are ``str.split()`` tokens, a token of 2+ characters then split once:
  trailing ASCII punctuation becomes its own word, else leading punctuation does;
* per order: (hypothesis n-grams, reference n-grams, clipped matches), the
  hypothesis count shown as 0 when the reference has no n-gram of that order.
"""

from __future__ import annotations

import string
from collections import Counter

PUNCTUATION = frozenset(string.punctuation)
EPS = 1e-16


def char_sequence(line: str, whitespace: bool) -> str:
    return line if whitespace else "".join(ch for ch in line if not ch.isspace())


def words(line: str) -> list[str]:
    out: list[str] = []
    for token in line.split():
        if len(token) >= 2 and token[-1] in PUNCTUATION:
            out.extend([token[:-1], token[-1]])
        elif len(token) >= 2 and token[0] in PUNCTUATION:
            out.extend([token[0], token[1:]])
        else:
            out.append(token)
    return out


def ngrams(seq, n: int) -> Counter:
    return Counter(tuple(seq[i:i + n]) for i in range(len(seq) - n + 1))


def order_counters(line: str, char_order: int, word_order: int, whitespace: bool) -> list[Counter]:
    chars = char_sequence(line, whitespace)
    toks = words(line)
    return ([ngrams(chars, n) for n in range(1, char_order + 1)]
            + [ngrams(toks, n) for n in range(1, word_order + 1)])


def pair_stats(hyp: list[Counter], ref: list[Counter]) -> list[int]:
    row: list[int] = []
    for h, r in zip(hyp, ref):
        hyp_total = sum(h.values())
        ref_total = sum(r.values())
        matches = sum(min(c, r[g]) for g, c in h.items())
        row += [hyp_total if ref_total > 0 else 0, ref_total, matches]
    return row


def f_score(row: list[int], beta: float, eps_smoothing: bool) -> float:
    """Sentence chrF of a statistics row (sacreBLEU 2.6's rule, same float64 operations)."""
    factor = beta ** 2
    n_orders = len(row) // 3
    total_f = 0.0
    precisions, recalls = [], []
    for i in range(n_orders):
        hyp, ref, match = row[3 * i:3 * i + 3]
        p = match / hyp if hyp > 0 else EPS
        r = match / ref if ref > 0 else EPS
        d = factor * p + r
        total_f += (1 + factor) * p * r / d if d > 0 else EPS
        if hyp > 0 and ref > 0:
            precisions.append(p)
            recalls.append(r)
    if eps_smoothing:
        return 100 * total_f / n_orders
    if not precisions:
        return 0.0
    p_sum = 0.0
    r_sum = 0.0
    for p, r in zip(precisions, recalls):
        p_sum += p
        r_sum += r
    p_avg = p_sum / len(precisions)
    r_avg = r_sum / len(recalls)
    if p_avg + r_avg == 0:
        return 0.0
    return 100 * ((1 + factor) * p_avg * r_avg / (factor * p_avg + r_avg))


def segment_stats(hyp: str, refs: list[str], *, char_order: int = 6, word_order: int = 0,
                  beta: float = 2, lowercase: bool = False, whitespace: bool = False,
                  eps_smoothing: bool = False) -> list[int]:
    """Statistics row of one hypothesis against its references (the best by sentence F)."""
    if lowercase:
        hyp = hyp.lower()
        refs = [r.lower() for r in refs]
    h = order_counters(hyp, char_order, word_order, whitespace)
    best_row = [0] * (3 * (char_order + word_order))
    best_f = -1.0
    for ref in refs:
        row = pair_stats(h, order_counters(ref, char_order, word_order, whitespace))
        f = f_score(row, beta, eps_smoothing)
        if f > best_f:
            best_f, best_row = f, row
    return best_row


def corpus_stats(hyps: list[str], refs_per_segment: list[list[str]], **options) -> list[list[int]]:
    """One statistics row per hypothesis; ``refs_per_segment[i]`` are segment i's references."""
    return [segment_stats(h, r, **options) for h, r in zip(hyps, refs_per_segment)]
