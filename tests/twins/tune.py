"""Plain-Python twins of bleustats.tools.tune: loops, lists and scalar random draws, no numpy vectorization.

Each twin follows the documented procedure one source / one pair at a time, so a test that finds
the vectorized implementation equal to it checks the bookkeeping (offsets, blocks, selection,
tie-breaking, ordering) rather than repeating it.
"""

from __future__ import annotations

import math

import numpy as np


def pro_sample_pairs(scores, offsets, *, gamma, alpha, xi, seed):
    """PRO pair sampling, one draw at a time: two ``rng.random()`` calls per pair, sources in order."""
    rng = np.random.default_rng(seed)
    scores = [float(s) for s in scores]
    offsets = [int(o) for o in offsets]
    out = ([], [], [], [])
    for s in range(len(offsets) - 1):
        lo, n = offsets[s], offsets[s + 1] - offsets[s]
        kept = []
        for j in range(gamma):
            u1 = rng.random()
            u2 = rng.random()
            i1 = lo + min(int(u1 * n), n - 1)
            i2 = lo + min(int(u2 * n), n - 1)
            d = scores[i1] / 100.0 - scores[i2] / 100.0
            if abs(d) >= alpha:
                win, lose = (i1, i2) if d > 0 else (i2, i1)
                kept.append((abs(d), j, win, lose))
        best = sorted(kept, key=lambda t: (-t[0], t[1]))[:xi]  # largest gaps, earlier draw first on ties
        for gap, _, win, lose in sorted(best, key=lambda t: t[1]):  # back to draw order
            out[0].append(s)
            out[1].append(win)
            out[2].append(lose)
            out[3].append(gap)
    return out


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def plain_bleu(v, n):
    """Unsmoothed BLEU (0-100) of a statistics vector [c, r, m_1..m_n, t_1..t_n]."""
    c, r, m, t = v[0], v[1], v[2:2 + n], v[2 + n:2 + 2 * n]
    if c <= 0:
        return 100.0 if r <= 0 else 0.0
    logp = 0.0
    for mi, ti in zip(m, t):
        if ti <= 0 or mi <= 0:
            return 0.0
        logp += math.log(mi / ti)
    bp = 1.0 if c >= r else math.exp(1.0 - r / c)
    return 100.0 * bp * math.exp(logp / n)


def mira_epoch(features, offsets, vectors, weights, *, order, c, decay, background, n, gains=None):
    """Batch k-best MIRA, one source at a time.

    ``gains`` (one per entry) are used when given; otherwise the gain is pseudo-document BLEU,
    plain_bleu(B + v) / 100 * (r + r_B), recomputed from the current background B.
    Returns (weights, running total of weights, background, updates).
    """
    w = [float(x) for x in weights]
    total = [0.0] * len(w)
    bg = [float(x) for x in background]
    updates = 0
    for s in order:
        lo, hi = offsets[s], offsets[s + 1]
        best_hope = best_fear = None
        g = []
        for e in range(lo, hi):
            if gains is not None:
                g.append(gains[e])
            else:
                v = [a + b for a, b in zip(vectors[e], bg)]
                g.append(plain_bleu(v, n) / 100.0 * (vectors[e][1] + bg[1]))
        for k, e in enumerate(range(lo, hi)):
            m = _dot(w, features[e])
            if best_hope is None or m + g[k] > best_hope[0]:
                best_hope = (m + g[k], k)
            if best_fear is None or m - g[k] > best_fear[0]:
                best_fear = (m - g[k], k)
        h, y = best_hope[1], best_fear[1]
        if h != y and g[h] > g[y]:
            df = [a - b for a, b in zip(features[lo + h], features[lo + y])]
            loss = g[h] - g[y] - _dot(w, df)
            sq = _dot(df, df)
            if loss > 0 and sq > 0:
                eta = min(c, loss / sq)
                w = [a + eta * b for a, b in zip(w, df)]
                updates += 1
            bg = [decay * (a + b) for a, b in zip(bg, vectors[lo + h])]
        total = [a + b for a, b in zip(total, w)]
    return w, total, bg, updates
