"""Plain-Python twin of the BLEU formula kernels (``bleustats.metrics._formula_kernels``).

No numpy, no numba: one row at a time, sacreBLEU's ``compute_bleu`` with exp
smoothing as its definition reads — the precision of order n is
``100 * correct / total``, or, where nothing matched, ``100 / (2**z * total)``
with z the number of such orders so far; the score is the brevity penalty
times the exponential of the mean log precision, and 0 when no order matched,
a total is 0 or a count is negative. ΔBLEU's numerators are clamped at 0
first; a precision that underflows to 0 makes the score 0. Logs and
exponentials are Python's ``math`` functions, so the twin agrees with the
kernels to rounding, not bit for bit.
"""

from __future__ import annotations

import math


def exp_bleu_twin(hyp_len, ref_len, correct, total, clamp=False):
    """BLEU (0-100) of one row of summed statistics."""
    if clamp:
        correct = [max(c, 0.0) for c in correct]
    if not any(c != 0 for c in correct) or any(t <= 0 for t in total) or any(c < 0 for c in correct):
        return 0.0
    logs, zeros = [], 0
    for c, t in zip(correct, total):
        if c == 0:
            zeros += 1
            p = 100.0 / (2 ** zeros * t)
        else:
            p = 100.0 * c / t
        logs.append(math.log(p) if p > 0 else -math.inf)  # a precision that underflows to 0 scores 0
    if hyp_len >= ref_len:
        bp = 1.0
    elif hyp_len > 0:
        bp = math.exp(1.0 - ref_len / hyp_len)
    else:
        bp = 0.0
    return bp * math.exp(sum(logs) / len(logs))
