"""The unit BLEU kernels: bit for bit the scores of bleu_scores' exp path, and close to their plain-Python twin."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.meta.units import _bleu_exp_of_columns, _bleu_exp_of_rows
from bleustats.metrics.formula import bleu_scores

from ..twins.units import unit_bleu_twin

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Summed counts: whole numbers, or ΔBLEU's weighted sums (fractions, negative numerators). Rounded to 1e-3, so a
# precision 100 c / t stays far from overflow, as it does on statistics (a numerator never exceeds its total).
counts = st.one_of(st.integers(-2, 40).map(float),
                   st.floats(-3.0, 40.0, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3)))


@st.composite
def unit_columns(draw):
    """(units, 2 + 2N) sums: lengths (>= 0), N correct and N total columns; zeros, negatives and fractions included."""
    n = draw(st.integers(1, 4))
    n_units = draw(st.integers(0, 12))
    lengths = st.one_of(st.integers(0, 40).map(float), st.floats(0.0, 40.0).map(lambda x: round(x, 3)))
    rows = [[draw(lengths), draw(lengths), *(draw(counts) for _ in range(2 * n))] for _ in range(n_units)]
    return n, np.array(rows, dtype=np.float64).reshape(n_units, 2 + 2 * n)


@SETTINGS
@given(data=unit_columns(), clamp=st.booleans())
def test_unit_bleu_equals_bleu_scores_and_twin(data, clamp):
    n, sums = data
    cols = np.ascontiguousarray(sums.T)  # the study's layout: one contiguous row per column
    got = _bleu_exp_of_columns(np.moveaxis(cols, 0, -1), n, clamp)
    correct = sums[:, 2:2 + n]
    want = bleu_scores(np.maximum(correct, 0.0) if clamp else correct, sums[:, 2 + n:], sums[:, 0], sums[:, 1])
    assert got.shape == (len(sums),)
    assert got.tobytes() == want.tobytes()  # the same bits
    for row, g in zip(sums.tolist(), got.tolist()):
        assert g == pytest.approx(unit_bleu_twin(row[0], row[1], row[2:2 + n], row[2 + n:], clamp), rel=1e-12,
                                  abs=1e-300)


def test_unit_bleu_keeps_the_leading_shape_and_leaves_bad_input_to_the_general_path():
    rng = np.random.default_rng(3)
    sums = np.abs(rng.normal(5.0, 3.0, size=(3, 7, 10))).round()
    got = _bleu_exp_of_columns(sums, 4, False)
    assert got.shape == (3, 7)
    assert got.tobytes() == bleu_scores(sums[..., 2:6], sums[..., 6:], sums[..., 0], sums[..., 1]).tobytes()
    assert _bleu_exp_of_columns(sums, 3, False) is None  # not 2 + 2N columns
    bad = sums.copy()
    bad[1, 2, 4] = math.nan
    assert _bleu_exp_of_columns(bad, 4, False) is None  # the general path names the non-finite input
    with pytest.raises(ValueError, match="finite"):
        bleu_scores(bad[..., 2:6], bad[..., 6:], bad[..., 0], bad[..., 1])
    assert _bleu_exp_of_columns(np.zeros((0, 10)), 4, True).shape == (0,)


def test_rows_shared_by_several_metrics_give_each_metric_its_own_columns():
    rng = np.random.default_rng(4)
    sums = np.abs(rng.normal(5.0, 3.0, size=(50, 10))).round()
    cols = np.ascontiguousarray(np.concatenate([sums.T, sums.T[2:6] + 1.0]))  # 14 rows: a second metric's counts
    idx = np.array([0, 1, 10, 11, 12, 13, 6, 7, 8, 9])  # lengths and totals shared, its own correct counts
    want = bleu_scores(sums[:, 2:6] + 1.0, sums[:, 6:], sums[:, 0], sums[:, 1])
    assert _bleu_exp_of_rows(cols, idx, False).tobytes() == want.tobytes()
