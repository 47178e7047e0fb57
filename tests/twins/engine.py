"""Plain-Python reference twin of the bleustats statistics kernel.

Everything here is written for clarity, not speed: no numpy, no numba, only
``collections.Counter`` and ``math``.  The test-suite checks this twin against
sacreBLEU 2.6 and against the published ΔBLEU fixture, and then uses it as the
oracle for the fast engine (``tests/engine/test_stats_kernels.py``).

Notation used in the comments below
-----------------------------------
* ``h``            the hypothesis token list, ``r_j`` the j-th reference token list
* ``w_j``          the weight of reference ``r_j``
* ``g``            an n-gram (a tuple of ``n`` consecutive tokens)
* ``#g(x)``        the number of times ``g`` occurs in token list ``x``

Segment statistics (``reference_segment_stats``)
------------------------------------------------
* ``total_n   = Σ_g #g(h)                       = max(0, |h| - n + 1)``
* ``match_n   = Σ_g min(#g(h), max_j #g(r_j))``             (clipped counts)
* ``wtotal_n  = Σ_g #g(h) · max_j w_j           = total_n · max_j w_j``
* ``wmatch_n`` (ΔBLEU numerator, Galley et al. 2015), two definitions:

  - ``"paper"``:      ``Σ_g max_{j : #g(r_j) > 0} w_j · min(#g(h), #g(r_j))``
  - ``"galley2019"``: ``Σ_g min(#g(h), max_j #g(r_j)) · max_{j : #g(r_j) > 0} w_j``

  An n-gram found in no reference contributes 0 to both.

Corpus scores
-------------
* ``reference_compute_bleu`` re-implements sacreBLEU's ``BLEU.compute_bleu``
  (brevity penalty, smoothing 'none' / 'floor' / 'add-k' / 'exp', effective
  order, floored log).
* ``reference_corpus_bleu`` sums the integer segment statistics and scores them.
* ``reference_corpus_delta_bleu`` sums the weighted statistics, clamps each
  negative corpus numerator to 0, and scores them with the same formula.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple, Optional, Sequence

__all__ = [
    "DEFINITIONS",
    "SMOOTH_DEFAULTS",
    "BleuResult",
    "ngram_counts",
    "closest_ref_len",
    "floored_log",
    "reference_segment_stats",
    "reference_compute_bleu",
    "reference_corpus_bleu",
    "reference_corpus_delta_bleu",
]

#: The two ΔBLEU numerator definitions understood by the twin.
DEFINITIONS = ("paper", "galley2019")

#: Default smoothing values, as in sacreBLEU (Chen & Cherry 2014 for floor/add-k).
SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}

#: sacreBLEU's ``my_log`` returns this instead of log(0) = -inf.
LOG_FLOOR = -9999999999


class BleuResult(NamedTuple):
    """Result of :func:`reference_compute_bleu` (unpacks as ``score, precisions, bp``)."""

    score: float
    precisions: list
    bp: float


# --------------------------------------------------------------------------
# Small building blocks
# --------------------------------------------------------------------------


def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    """Counter ``g -> #g(tokens)`` over all n-grams ``g`` of order ``n``.

    An n-gram is the tuple ``tokens[i : i + n]`` for every start position
    ``i = 0 .. len(tokens) - n``; there are ``max(0, len(tokens) - n + 1)`` of them.
    """
    counts: Counter = Counter()
    for i in range(len(tokens) - n + 1):  # empty range when len(tokens) < n
        counts[tuple(tokens[i : i + n])] += 1
    return counts


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """Reference length closest to ``hyp_len``; ties go to the shorter one.

    Same result as sacreBLEU's ``BLEU._get_closest_ref_len``: minimise
    ``|hyp_len - ref_len|`` first, then ``ref_len`` itself.
    """
    if not ref_lens:
        raise ValueError("closest_ref_len needs at least one reference length")
    # key = (distance to the hypothesis, length): the smallest key wins, so among
    # equally distant lengths the shorter reference is chosen.
    return min(ref_lens, key=lambda ref_len: (abs(hyp_len - ref_len), ref_len))


def floored_log(x: float) -> float:
    """sacreBLEU's ``my_log``: ``log(x)``, except ``log(0)`` is floored to -9999999999."""
    if x == 0.0:
        return LOG_FLOOR
    return math.log(x)


# --------------------------------------------------------------------------
# Segment level
# --------------------------------------------------------------------------


def reference_segment_stats(
    hyp: list,
    refs: list,
    weights: list,
    max_order: int,
    definition: str = "paper",
) -> dict:
    """Sufficient statistics of one segment (see the module docstring).

    :param hyp: hypothesis tokens.
    :param refs: one token list per reference (already restricted to the
        reference view in use).
    :param weights: one float per reference (may be zero or negative).
    :param max_order: highest n-gram order ``N``; keys are produced for 1..N.
    :param definition: ``"paper"`` or ``"galley2019"`` (ΔBLEU numerator).
    """
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown definition {definition!r}; expected one of {DEFINITIONS}")
    if len(refs) != len(weights):
        raise ValueError(f"{len(refs)} references but {len(weights)} weights")
    if not refs:
        raise ValueError("a segment needs at least one reference")
    if max_order < 1:
        raise ValueError("max_order must be >= 1")

    ref_lens = [len(ref) for ref in refs]
    # The weight used in every denominator: the largest weight of the segment.
    w_max = max(weights)

    stats = {
        # |h|: number of hypothesis tokens.
        "hyp_len": len(hyp),
        # BLEU's effective reference length for this segment (sacreBLEU rule).
        "ref_len_closest": closest_ref_len(len(hyp), ref_lens),
        # min_j |r_j|
        "ref_len_shortest": min(ref_lens),
        # (1/J) Σ_j |r_j|
        "ref_len_average": sum(ref_lens) / len(ref_lens),
        # J: number of references.
        "n_refs": len(refs),
        # max_j w_j
        "ref_weight_max": w_max,
    }

    for n in range(1, max_order + 1):
        hyp_counts = ngram_counts(hyp, n)  # g -> #g(h)
        ref_counts = [ngram_counts(ref, n) for ref in refs]  # j -> (g -> #g(r_j))

        match = 0  # match_n
        wmatch = 0.0  # wmatch_n
        for g, count_h in hyp_counts.items():
            # #g(r_j) for every reference j (Counter gives 0 for a missing g).
            counts_r = [rc[g] for rc in ref_counts]
            # Indices of the references that contain g at least once.
            containing = [j for j, count_r in enumerate(counts_r) if count_r > 0]

            # BLEU clipping: min(#g(h), max_j #g(r_j)).
            clipped = min(count_h, max(counts_r))
            match += clipped

            if not containing:
                # An n-gram found in no reference adds nothing to wmatch_n.
                continue
            if definition == "paper":
                # max over references containing g of w_j · min(#g(h), #g(r_j)).
                wmatch += max(weights[j] * min(count_h, counts_r[j]) for j in containing)
            else:  # "galley2019"
                # (clipped count against the max reference count) · (largest weight
                # among the references containing g).
                wmatch += clipped * max(weights[j] for j in containing)

        # total_n = Σ_g #g(h) = number of n-grams in h = max(0, |h| - n + 1).
        total = sum(hyp_counts.values())
        assert total == max(0, len(hyp) - n + 1)

        stats[f"match_{n}"] = match
        stats[f"total_{n}"] = total
        stats[f"wmatch_{n}"] = float(wmatch)
        # wtotal_n = Σ_g #g(h) · max_j w_j = total_n · max_j w_j.
        stats[f"wtotal_{n}"] = float(total * w_max)

    return stats


# --------------------------------------------------------------------------
# Corpus level
# --------------------------------------------------------------------------


def reference_compute_bleu(
    correct: Sequence[float],
    total: Sequence[float],
    sys_len: float,
    ref_len: float,
    smooth_method: str = "none",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
    max_order: int = 4,
) -> BleuResult:
    """BLEU from sufficient statistics, with sacreBLEU 2.x semantics.

    The inputs are not modified (sacreBLEU's own version mutates them for add-k).

    * ``bp = 1`` if ``sys_len >= ref_len``, else ``exp(1 - ref_len / sys_len)``
      (``0`` when ``sys_len == 0``).
    * If no order has any match, the score is 0 and all precisions are 0.
    * For each order n = 1..N:
        - add-k: for n > 1, ``correct_n += k`` and ``total_n += k``;
        - if ``total_n == 0`` stop (remaining precisions stay 0);
        - with effective order, the number of orders averaged becomes n;
        - ``p_n = 100 · correct_n / total_n`` if ``correct_n > 0``, else
          exp: ``100 / (2^m · total_n)`` where m counts the zero orders so far;
          floor: ``100 · k / total_n``; none / add-k: 0.
    * ``score = bp · exp((1/E) · Σ_{n <= E} floored_log(p_n))`` with E the
      effective order (``max_order`` unless effective order is on).
    """
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}")
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]

    correct = list(correct)  # private copies: add-k changes them
    total = list(total)

    # Brevity penalty.
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    else:
        bp = 1.0

    precisions = [0.0] * max_order

    # No match at any order: score 0 (sacreBLEU issue #141).
    if not any(correct):
        return BleuResult(0.0, precisions, bp)

    exp_divisor = 1.0  # 2^m for 'exp' smoothing, m = zero-match orders seen
    eff_order = max_order  # number of orders in the geometric mean
    for n in range(1, max_order + 1):
        i = n - 1
        if smooth_method == "add-k" and n > 1:
            # add-k (Chen & Cherry method 2): add k to both counts for n > 1.
            correct[i] += smooth_value
            total[i] += smooth_value

        if total[i] == 0:
            # The hypothesis has no n-grams of this order (nor higher): stop.
            break

        if effective_order:
            # Only average over the orders the hypothesis actually has.
            eff_order = n

        if correct[i] == 0:
            if smooth_method == "exp":
                # NIST/mteval smoothing: 1/2, 1/4, 1/8, ... of a count.
                exp_divisor *= 2
                precisions[i] = 100.0 / (exp_divisor * total[i])
            elif smooth_method == "floor":
                # Floor the zero count to a small constant.
                precisions[i] = 100.0 * smooth_value / total[i]
            # 'none' and 'add-k' leave the precision at 0.
        else:
            # Plain modified precision, as a percentage.
            precisions[i] = 100.0 * correct[i] / total[i]

    # Geometric mean of the first eff_order precisions, times the brevity penalty.
    log_sum = sum(floored_log(p) for p in precisions[:eff_order])
    score = bp * math.exp(log_sum / eff_order)
    return BleuResult(score, precisions, bp)


def reference_corpus_bleu(
    segment_stats: Sequence[dict],
    max_order: int,
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
) -> BleuResult:
    """Corpus BLEU: sum ``match_n`` / ``total_n`` / lengths over segments, then score."""
    correct = [sum(s[f"match_{n}"] for s in segment_stats) for n in range(1, max_order + 1)]
    total = [sum(s[f"total_{n}"] for s in segment_stats) for n in range(1, max_order + 1)]
    sys_len = sum(s["hyp_len"] for s in segment_stats)
    ref_len = sum(s["ref_len_closest"] for s in segment_stats)
    return reference_compute_bleu(
        correct, total, sys_len, ref_len, smooth_method, smooth_value, effective_order, max_order
    )


def delta_bleu_corpus_counts(segment_stats: Sequence[dict], max_order: int):
    """Signed corpus numerators Σ wmatch_n and denominators Σ wtotal_n, per order."""
    numerators = [sum(s[f"wmatch_{n}"] for s in segment_stats) for n in range(1, max_order + 1)]
    denominators = [sum(s[f"wtotal_{n}"] for s in segment_stats) for n in range(1, max_order + 1)]
    return numerators, denominators


def reference_corpus_delta_bleu(
    segment_stats: Sequence[dict],
    max_order: int,
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    effective_order: bool = False,
) -> BleuResult:
    """Corpus ΔBLEU.

    Per order: numerator = ``max(0, Σ wmatch_n)`` (a negative corpus numerator is
    clamped to 0 *before* smoothing), denominator = ``Σ wtotal_n``; then the BLEU
    formula of :func:`reference_compute_bleu` with ``sys_len = Σ hyp_len`` and
    ``ref_len = Σ ref_len_closest``.
    """
    numerators, denominators = delta_bleu_corpus_counts(segment_stats, max_order)
    clamped = [max(0.0, x) for x in numerators]
    sys_len = sum(s["hyp_len"] for s in segment_stats)
    ref_len = sum(s["ref_len_closest"] for s in segment_stats)
    return reference_compute_bleu(
        clamped, denominators, sys_len, ref_len, smooth_method, smooth_value, effective_order, max_order
    )
