"""The one BLEU formula (``formula._bleu``) against the plain-Python twin, row by row, on random statistics.

Ints (BLEU counts), fractional sums (ΔBLEU), float32 (sacreBLEU's bootstrap),
zeros anywhere (no match, totals of 0 in any order, empty hypotheses), every
smoothing, effective order on and off, rows as one row, a block, or 0-d
lengths. Precisions are the same IEEE operations in both, so they must be
equal bit for bit; scores go through ``log``/``exp`` (numpy's against
``math``'s), so they agree to 1e-9 on the 0-100 scale.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.metrics import formula

from ..twins.engine import reference_compute_bleu

SMOOTHINGS = [("none", None), ("floor", None), ("floor", 0.5), ("floor", 0.0), ("add-k", None), ("add-k", 3),
              ("add-k", 0.25), ("exp", None)]


def _milli(x: float) -> float:
    # statistics are counts or weighted counts: no value so small that float32 rounds it to 0
    return round(x, 3)


@st.composite
def blocks(draw):
    """(correct, total, sys_len, ref_len) with 0 <= correct <= total, as ints or floats, some zeros."""
    rows, n = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = rows * n
    total = np.array(draw(st.lists(st.integers(0, 40), min_size=cells, max_size=cells)), np.int64).reshape(rows, n)
    frac = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 0.3, 0.5, 1.0]) | st.floats(0, 1).map(_milli),
                                  min_size=cells, max_size=cells))).reshape(rows, n)
    # negative lengths are not counts, but sacreBLEU's compute_bleu defines them (BP = 0): so does the formula
    lengths = st.lists(st.integers(0, 60) | st.integers(-3, -1), min_size=rows, max_size=rows)
    sys_len, ref_len = np.array(draw(lengths), np.int64), np.array(draw(lengths), np.int64)
    kind = draw(st.sampled_from(["int", "float", "weighted"]))
    if kind == "int":
        correct = np.floor(total * frac).astype(np.int64)
    elif kind == "float":
        correct, total = np.floor(total * frac), total.astype(np.float64)
    else:  # ΔBLEU: weighted sums, fractional numerators and denominators, fractional average lengths
        w = draw(st.floats(0.05, 1.0))
        correct, total = total * frac * w, total * w
        ref_len = ref_len * draw(st.sampled_from([1.0, 0.5, 1 / 3]))
    return correct, total, sys_len, ref_len


@settings(max_examples=400, deadline=None)
@given(sums=blocks(), smoothing=st.sampled_from(SMOOTHINGS), eff=st.booleans(), float32=st.booleans())
def test_formula_rows_equal_the_twin(sums, smoothing, eff, float32):
    correct, total, sys_len, ref_len = sums
    sm, sv = smoothing
    k = formula.check_scoring_options(smooth_method=sm, smooth_value=sv)
    dtype = np.float32 if float32 else np.float64
    c, t, s, r = formula._as_sums(correct, total, sys_len, ref_len)
    out = formula._bleu(c, t, s, r, k, sm, eff, dtype)
    n = correct.shape[-1]
    for i in range(len(correct)):
        # the twin on the statistics as the formula rounds them (float32: np.float32 numbers, NumPy 2 rules)
        row_c, row_t = list(c[i].astype(dtype)), list(t[i].astype(dtype))
        want = reference_compute_bleu(row_c, row_t, float(s[i]), float(r[i]), sm, sv, eff, n)
        assert out["score"][i] == pytest.approx(want.score, abs=1e-9)
        if out["any_match"][i]:  # the twin reports precisions 0 for a row without a match
            assert out["precisions"][i].tolist() == [float(p) for p in want.precisions]
        assert out["bp"][i] == pytest.approx(want.bp, rel=1e-12)
        # one row alone (1-d statistics, 0-d lengths) is the block's row, bit for bit
        one = formula._bleu(c[i], t[i], s[i], r[i], k, sm, eff, dtype)
        assert one["score"].tobytes() == out["score"][i].tobytes()
        assert np.array(one["precisions"], np.float64).tobytes() == out["precisions"][i].tobytes()
    # the public entry points are this formula
    scores = formula.bleu_scores(correct, total, sys_len, ref_len, smooth_method=sm, smooth_value=sv,
                                 use_effective_order=eff, float32=float32)
    assert scores.tobytes() == out["score"].tobytes()


def test_formula_raises_no_warning_for_empty_hypotheses_and_zero_totals():
    # c = 0 < r (exp(-inf) = 0), totals of 0 (divisions masked), no orders matched: numbers, no RuntimeWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = formula.bleu_from_sums([[0, 0, 0, 0], [3, 0, 0, 0], [2, 1, 0, 0]], [[0, 0, 0, 0], [3, 2, 1, 0],
                                     [2, 1, 0, 0]], [0, 3, 2], [4, 5, 2], use_effective_order=True)
    assert out["bp"].tolist() == [0.0, pytest.approx(np.exp(1 - 5 / 3)), 1.0]
    assert out["score"][0] == 0.0 and out["score"][2] == pytest.approx(100.0, abs=1e-9)
