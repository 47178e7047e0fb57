"""The formula's numba kernels: bit for bit the scores of bleu_scores' exp path, and close to their plain-Python twin.

Random rows (hypothesis) of summed statistics: whole counts, ΔBLEU's weighted
sums (fractions, negative numerators, clamped or not), zeros in any column
(no match, empty hypotheses, totals of 0), huge counts, and no rows at all.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.metrics.formula import bleu_scores, exp_bleu_scores_of_columns, exp_bleu_scores_of_rows

from ..twins.formula import exp_bleu_twin
from ..conftest import examples

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Summed counts: whole numbers, ΔBLEU's weighted sums (fractions, negative numerators), and huge sums (a corpus of
# 1e15 tokens and beyond: 100 c / t stays finite up to c ~ 1e306).
counts = st.one_of(st.integers(-2, 40).map(float),
                   st.floats(-3.0, 40.0, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3)),
                   st.sampled_from([0.0, -0.0, 1e15, 2.0 ** 53 + 2, 1e300, -1e300]),
                   st.floats(0.0, 1e300, allow_nan=False, allow_infinity=False))
lengths = st.one_of(st.integers(0, 40).map(float), st.floats(0.0, 40.0).map(lambda x: round(x, 3)),
                    st.sampled_from([0.0, 1e15, 1e300]))


@st.composite
def unit_columns(draw):
    """(units, 2 + 2N) sums: lengths (>= 0), N correct and N total columns; zeros, negatives and fractions included."""
    n = draw(st.integers(1, 5))
    n_units = draw(st.integers(0, 12))
    rows = [[draw(lengths), draw(lengths), *(draw(counts) for _ in range(2 * n))] for _ in range(n_units)]
    return n, np.array(rows, dtype=np.float64).reshape(n_units, 2 + 2 * n)


def _overflows(correct, total):
    """Whether some exp-smoothed precision of an order with a positive total is infinite."""
    doubling = np.exp2(np.cumsum(correct == 0, axis=-1))
    with np.errstate(all="ignore"):
        p = np.where(correct == 0, 100.0 / (doubling * total), 100.0 * correct / total)
    return bool(((total > 0) & (p == np.inf)).any())


@SETTINGS
@given(data=unit_columns(), clamp=st.booleans())
def test_kernels_equal_bleu_scores_bit_for_bit_and_the_twin(data, clamp):
    n, sums = data
    cols = np.ascontiguousarray(sums.T)  # the study's layout: one contiguous row per column
    got = exp_bleu_scores_of_columns(np.moveaxis(cols, 0, -1), n, clamp=clamp)
    correct = np.maximum(sums[:, 2:2 + n], 0.0) if clamp else sums[:, 2:2 + n]
    total = sums[:, 2 + n:]
    # an infinite precision of an order with a total > 0: the rows are left to bleu_scores (which gives inf, NaN
    # or 0 there, as sacreBLEU's arithmetic does), and only then
    assert (got is None) == _overflows(correct, total)
    if got is None:
        return
    want = bleu_scores(correct, total, sums[:, 0], sums[:, 1])
    assert got.shape == (len(sums),)
    assert got.tobytes() == want.tobytes()  # the same bits
    for row, g in zip(sums.tolist(), got.tolist()):
        c, t = row[2:2 + n], row[2 + n:]
        if max(map(abs, c + t)) > 1e250:
            continue  # 100 c / t beyond float64 in the twin's own order of operations
        assert g == pytest.approx(exp_bleu_twin(row[0], row[1], c, t, clamp), rel=1e-12, abs=1e-300)


def test_kernels_keep_the_leading_shape_and_leave_bad_input_to_the_general_path():
    rng = np.random.default_rng(3)
    sums = np.abs(rng.normal(5.0, 3.0, size=(3, 7, 10))).round()
    got = exp_bleu_scores_of_columns(sums, 4)
    assert got.shape == (3, 7)
    assert got.tobytes() == bleu_scores(sums[..., 2:6], sums[..., 6:], sums[..., 0], sums[..., 1]).tobytes()
    assert exp_bleu_scores_of_columns(sums, 3) is None  # not 2 + 2N columns
    bad = sums.copy()
    bad[1, 2, 4] = math.nan
    assert exp_bleu_scores_of_columns(bad, 4) is None  # the general path names the non-finite input
    with pytest.raises(ValueError, match="finite"):
        bleu_scores(bad[..., 2:6], bad[..., 6:], bad[..., 0], bad[..., 1])
    assert exp_bleu_scores_of_columns(np.zeros((0, 10)), 4, clamp=True).shape == (0,)


def test_rows_shared_by_several_metrics_give_each_metric_its_own_columns():
    rng = np.random.default_rng(4)
    sums = np.abs(rng.normal(5.0, 3.0, size=(50, 10))).round()
    cols = np.ascontiguousarray(np.concatenate([sums.T, sums.T[2:6] + 1.0]))  # 14 rows: a second metric's counts
    idx = np.array([0, 1, 10, 11, 12, 13, 6, 7, 8, 9])  # lengths and totals shared, its own correct counts
    want = bleu_scores(sums[:, 2:6] + 1.0, sums[:, 6:], sums[:, 0], sums[:, 1])
    memo: dict = {}
    assert exp_bleu_scores_of_rows(cols, idx, memo=memo).tobytes() == want.tobytes()
    # the brevity penalties of rows 0 and 1 are kept for the next metric of the same lengths
    assert ("bp", 0, 1) in memo
    plain = exp_bleu_scores_of_rows(cols, np.arange(10), memo=memo)
    assert plain.tobytes() == bleu_scores(sums[:, 2:6], sums[:, 6:], sums[:, 0], sums[:, 1]).tobytes()
