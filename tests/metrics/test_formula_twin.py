"""The one BLEU formula (``formula._bleu``) and its building blocks against plain-Python twins, on random data.

Ints (BLEU counts), fractional sums (ΔBLEU), float32 (sacreBLEU's bootstrap),
zeros anywhere (no match, totals of 0 in any order, empty hypotheses), every
smoothing, effective order on and off, rows as one row, a block, or 0-d
lengths. Precisions are the same IEEE operations in both, so they must be
equal bit for bit; scores go through ``log``/``exp`` (numpy's against
``math``'s), so they agree to 1e-9 on the 0-100 scale. The building blocks
(``brevity_penalty``, ``geometric_mean``, ``add_k_precisions``) are checked
against their definitions, and the brevity penalty times the geometric mean
of the formula's own precisions must give its scores bit for bit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.metrics import formula

from ..twins.engine import reference_compute_bleu
from ..conftest import examples

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


@settings(max_examples=examples(400), deadline=None)
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


# --------------------------------------------------------------------------- the building blocks are the formula


@settings(max_examples=examples(300), deadline=None)
@given(sums=blocks(), smoothing=st.sampled_from(SMOOTHINGS))
def test_building_blocks_are_the_formulas_steps(sums, smoothing):
    """BP and the geometric mean of the formula's own precisions give its scores, bit for bit."""
    correct, total, sys_len, ref_len = sums
    sm, sv = smoothing
    out = formula.bleu_from_sums(correct, total, sys_len, ref_len, smooth_method=sm, smooth_value=sv)
    bp = formula.brevity_penalty(sys_len, ref_len)
    assert bp.tobytes() == out["bp"].tobytes()
    # every row with a match: score = BP * G(precisions in percent); the rows without one score 0
    matched = (np.asarray(correct) != 0).any(axis=-1)
    want = np.where(matched, bp * formula.geometric_mean(out["precisions"]), 0.0)
    assert want.tobytes() == out["score"].tobytes()
    scaled = formula.bleu_from_precisions(out["precisions"] / 100.0, bp)
    np.testing.assert_allclose(np.where(matched, scaled, 0.0), out["score"], rtol=1e-13, atol=0)


lengths = st.one_of(st.integers(-2, 50).map(float), st.floats(0.0, 50.0), st.just(0.0))


@settings(max_examples=examples(300), deadline=None)
@given(c=lengths, r=lengths, clipped=st.booleans())
def test_brevity_penalty_against_its_definition(c, r, clipped):
    got = float(formula.brevity_penalty([c], [r], clipped=clipped)[0])
    if c > 0 and (c < r or not clipped):
        try:
            want = math.exp(1.0 - r / c)
        except OverflowError:  # a tiny positive c and a negative r: the penalty is past the largest double
            want = math.inf
    else:
        want = 1.0 if c >= r else 0.0
    assert got == pytest.approx(want, rel=1e-15, abs=0)


@settings(max_examples=examples(200), deadline=None)
@given(p=st.lists(st.lists(st.one_of(st.floats(0.0, 1e6), st.just(0.0), st.floats(-5.0, 0.0)), min_size=1,
                           max_size=9), min_size=1, max_size=4).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_geometric_mean_against_its_definition(p):
    got = formula.geometric_mean(np.array(p))
    for row, g in zip(p, got.tolist()):
        logs = [math.log(x) if x > 0 else formula.LOG_FLOOR for x in row]
        assert g == pytest.approx(math.exp(sum(logs) / len(row)), rel=1e-12, abs=1e-300)


@settings(max_examples=examples(100), deadline=None)
@given(p=st.lists(st.lists(st.one_of(st.floats(1e-12, 1.0), st.fractions(1, 60).map(float)), min_size=1,
                           max_size=6), min_size=1, max_size=4).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_geometric_mean_in_nltks_arithmetic(p):
    """nltk=True: exp of the exactly rounded sum of the 1/N-weighted logs (NLTK's math.fsum), to the ulp."""
    got = formula.geometric_mean(np.array(p), nltk=True)
    for row, g in zip(p, got.tolist()):
        want = math.exp(math.fsum(math.log(x) * (1.0 / len(row)) for x in row))
        assert g == pytest.approx(want, rel=2.3e-16, abs=0)


def test_nltks_arithmetic_keeps_an_exact_mean_exact():
    """(3/4 * 1/2 * 1/3 * 1/2)^(1/4) = 1/2: NLTK's arithmetic gives 50.0 (compare-mt's bucket >= 50), the ordered
    sum of logs an ulp below."""
    p = np.array([[0.75, 0.5, 1 / 3, 0.5]])
    assert formula.bleu_from_precisions(p, [1.0], nltk=True).tolist() == [50.0]
    assert formula.bleu_from_precisions(p, [1.0]).tolist() == [49.99999999999999]


@settings(max_examples=examples(200), deadline=None)
@given(sums=blocks(), k=st.sampled_from([0.0, 1.0, 0.5]), first=st.integers(1, 3))
def test_add_k_precisions_against_its_definition(sums, k, first):
    correct, total, _, _ = sums
    got = formula.add_k_precisions(correct, total, k=k, first_order=first)
    for row_c, row_t, row_p in zip(np.asarray(correct, float).tolist(), np.asarray(total, float).tolist(),
                                   got.tolist()):
        for n, (m, t, p) in enumerate(zip(row_c, row_t, row_p), 1):
            m, t = (m + k, t + k) if n >= first else (m, t)
            assert p == (m / t if t > 0 else 0.0)
    assert np.asarray(correct).tolist() == sums[0].tolist()  # the inputs are left as they were
