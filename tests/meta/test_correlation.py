"""Correlations: scipy.stats is the oracle for Pearson, Spearman and Kendall τ-b/τ-c;
plain-Python O(n^2) twins define 'wmt' and 'acc23'; batched rows equal row-by-row calls."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.meta.correlation import (
    CorrelationResult,
    fisher_z_interval,
    kendall_tau,
    pearson,
    segment_correlation,
    spearman,
    system_correlation,
)
from bleustats.errors import InputError
from ..conftest import examples

# small integer grids give many ties on both sides; floats check the general case
_tied = st.integers(min_value=2, max_value=25).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n),
        st.lists(st.integers(0, 4).map(float), min_size=n, max_size=n),
    )
)
_floats = st.integers(min_value=2, max_value=25).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=n, max_size=n),
    )
)


def _same(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def _scipy(fn, x, y, **kw) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: scipy warns and returns nan
        if fn is scipy.stats.pearsonr and (len(set(x)) == 1 or len(set(y)) == 1):
            return math.nan
        return float(fn(x, y, **kw).statistic)


def naive_wmt(metric, human, threshold=0.0):
    """WMT Kendall-like: pairs with |Δhuman| > threshold; metric ties are discordant."""
    con = dis = 0
    for i, j in itertools.combinations(range(len(metric)), 2):
        dh, dm = human[i] - human[j], metric[i] - metric[j]
        if abs(dh) > threshold:
            if (dh > 0 and dm > 0) or (dh < 0 and dm < 0):
                con += 1
            else:
                dis += 1
    return (con - dis) / (con + dis) if con + dis else math.nan


def naive_acc23(metric, human, epsilon=0.0):
    """Deutsch et al. (2023) pairwise accuracy: agree on order, or both tie (|Δmetric| <= ε)."""
    right = pairs = 0
    for i, j in itertools.combinations(range(len(metric)), 2):
        dh, dm = human[i] - human[j], metric[i] - metric[j]
        m_tie, h_tie = abs(dm) <= epsilon, dh == 0
        right += (m_tie and h_tie) or (not m_tie and not h_tie and (dm > 0) == (dh > 0))
        pairs += 1
    return right / pairs


# --------------------------------------------------------------------------- scipy oracle


@settings(max_examples=examples(150), deadline=None)
@given(_tied)
def test_pearson_spearman_kendall_match_scipy_with_ties(xy):
    x, y = xy
    assert _same(pearson(x, y), _scipy(scipy.stats.pearsonr, x, y))
    assert _same(spearman(x, y), _scipy(scipy.stats.spearmanr, x, y))
    for variant in ("b", "c"):
        assert _same(kendall_tau(x, y, variant=variant), _scipy(scipy.stats.kendalltau, x, y, variant=variant))


@settings(max_examples=examples(100), deadline=None)
@given(_floats)
def test_match_scipy_on_floats(xy):
    x, y = xy
    assert _same(pearson(x, y), _scipy(scipy.stats.pearsonr, x, y))
    assert _same(spearman(x, y), _scipy(scipy.stats.spearmanr, x, y))
    assert _same(kendall_tau(x, y), _scipy(scipy.stats.kendalltau, x, y))


@settings(max_examples=examples(100), deadline=None)
@given(_tied, st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_wmt_and_acc23_equal_naive_twins(xy, threshold):
    x, y = xy
    assert _same(kendall_tau(x, y, variant="wmt", threshold=threshold), naive_wmt(x, y, threshold), 1e-12)
    assert _same(kendall_tau(x, y, variant="acc23", threshold=threshold), naive_acc23(x, y, threshold), 1e-12)


def test_mt_metrics_eval_identity_for_acc23_at_zero():
    # acc23 = (C + T_xy) / n0 (mt-metrics-eval KendallVariants). By hand: pairs (0,1), (0,2)
    # concordant; (1,2) tied in both; (0,3), (1,3), (2,3) discordant -> (2 + 1) / 6
    metric, human = [1, 2, 2, 3], [1, 2, 2, 0]
    assert kendall_tau(metric, human, variant="acc23") == pytest.approx(3 / 6)


# --------------------------------------------------------------------------- batching


@pytest.mark.parametrize("variant,threshold", [("b", 0.0), ("c", 0.0), ("wmt", 0.0), ("wmt", 1.0),
                                               ("acc23", 0.0), ("acc23", 1.0)])
def test_batched_equals_row_by_row(variant, threshold):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 6, size=(3, 4, 17)).astype(float)
    y = rng.integers(0, 6, size=(3, 4, 17)).astype(float)
    x[0, 0] = 2.0  # a constant row: nan for b/c
    got = kendall_tau(x, y, variant=variant, threshold=threshold)
    assert got.shape == (3, 4)
    want = np.array([[kendall_tau(x[i, j], y[i, j], variant=variant, threshold=threshold)
                      for j in range(4)] for i in range(3)])
    np.testing.assert_array_equal(got, want)
    for fn in (pearson, spearman):
        np.testing.assert_allclose(fn(x, y), [[fn(x[i, j], y[i, j]) for j in range(4)] for i in range(3)],
                                   rtol=0, atol=1e-14)


def test_broadcast_one_human_vector_against_many_rows():
    rng = np.random.default_rng(3)
    human = rng.normal(size=30)
    metric = rng.normal(size=(5, 30))
    np.testing.assert_array_equal(kendall_tau(metric, human), [kendall_tau(m, human) for m in metric])
    assert isinstance(kendall_tau(metric[0], human), float)
    assert kendall_tau(np.zeros((0, 30)), human).shape == (0,)


def test_long_input_uses_n_log_n_path_and_matches_scipy():
    rng = np.random.default_rng(11)
    x = rng.integers(0, 1000, 50_000).astype(float)  # many ties
    y = x + rng.normal(scale=300, size=x.size).round()
    assert kendall_tau(x, y) == pytest.approx(scipy.stats.kendalltau(x, y).statistic, abs=1e-12)
    assert kendall_tau(x, y, variant="c") == pytest.approx(
        scipy.stats.kendalltau(x, y, variant="c").statistic, abs=1e-12)


def test_constant_input_gives_nan():
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    assert math.isnan(spearman([1, 2, 3], [4, 4, 4]))
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert math.isnan(kendall_tau([1, 2, 3], [4, 4, 4], variant="wmt"))  # no pair with a human preference
    assert kendall_tau([1, 1, 1], [4, 4, 4], variant="acc23") == 1.0  # ties everywhere agree


# --------------------------------------------------------------------------- errors


def test_errors_name_the_argument_and_the_fix():
    with pytest.raises(InputError, match=r"variant must be 'b', 'c', 'wmt' or 'acc23'; got 'a'"):
        kendall_tau([1, 2], [1, 2], variant="a")
    with pytest.raises(InputError, match=r"y contains 2 NaN value\(s\).*Drop the observations"):
        kendall_tau([1, 2, 3], [1, np.nan, np.nan])
    with pytest.raises(InputError, match=r"x contains 1 NaN"):
        pearson([np.nan, 1, 2], [1, 2, 3])
    with pytest.raises(InputError, match=r"x contains 1 infinite"):
        spearman([np.inf, 1, 2], [1, 2, 3])
    with pytest.raises(InputError, match=r"at least 2 observations"):
        spearman([1.0], [2.0])
    with pytest.raises(InputError, match=r"broadcast"):
        pearson([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match=r"x must be an array of numbers"):
        pearson(["a", "b"], [1, 2])
    with pytest.raises(InputError, match=r"threshold must be a finite number >= 0; got -1"):
        kendall_tau([1, 2], [1, 2], variant="wmt", threshold=-1)
    with pytest.raises(InputError, match=r"threshold applies to variant 'wmt' and 'acc23' only"):
        kendall_tau([1, 2], [1, 2], variant="b", threshold=1.0)
    with pytest.raises(InputError, match=r"method must be 'pearson', 'spearman' or 'kendall'; got 'tau'"):
        system_correlation([1, 2, 3], [1, 2, 3], method="tau")
    with pytest.raises(InputError, match=r"grouping must be 'flat', 'item' or 'system'"):
        segment_correlation([1, 2], [1, 2], system=[0, 0], item=[0, 1], grouping="doc")
    with pytest.raises(InputError, match=r"mismatched: item \(shape \(1,\)\)"):
        segment_correlation([1, 2], [1, 2], system=[0, 0], item=[0])
    with pytest.raises(InputError, match=r"confidence must be a number in \(0, 1\)"):
        fisher_z_interval(0.5, 100, confidence=95)
    with pytest.raises(InputError, match=r"n must be a number of observations > 3"):
        fisher_z_interval(0.5, 3)


# --------------------------------------------------------------------------- fisher z


def test_fisher_z_interval_reproduces_delta_bleu_paper():
    # Galley et al. (2015), ΔBLEU paper: r = .484 over ~530 items, 95% CI (.415, .546)
    low, high = fisher_z_interval(0.484, 530)
    assert low == pytest.approx(0.415, abs=1.5e-3)
    assert high == pytest.approx(0.546, abs=1.5e-3)
    # by hand: atanh(.484) = 0.52823, 1.95996/sqrt(527) = 0.08538
    assert low == pytest.approx(math.tanh(math.atanh(0.484) - 1.959964 / math.sqrt(527)), abs=1e-6)
    lows, highs = fisher_z_interval([0.484, 0.0], [530, 530])
    assert lows[0] == pytest.approx(low) and highs[1] == pytest.approx(-lows[1])


# --------------------------------------------------------------------------- helpers


def _table(rng, n_sys=5, n_items=12):
    system = np.repeat(np.arange(n_sys), n_items)
    item = np.tile(np.arange(n_items), n_sys)
    human = rng.integers(0, 4, size=n_sys * n_items).astype(float)
    metric = human + rng.normal(scale=1.0, size=human.size)
    return metric, human, system, item


@pytest.mark.parametrize("method,variant", [("pearson", "b"), ("spearman", "b"), ("kendall", "b"),
                                            ("kendall", "acc23")])
def test_segment_correlation_item_and_system_averages(method, variant):
    rng = np.random.default_rng(5)
    metric, human, system, item = _table(rng)
    human[item == 0] = 2.0  # item 0: human tie across systems, undefined for most methods
    fn = {"pearson": pearson, "spearman": spearman}.get(method) or (
        lambda a, b: kendall_tau(a, b, variant=variant))
    for grouping, key in (("item", item), ("system", system)):
        vals = [fn(metric[key == g], human[key == g]) for g in np.unique(key)]
        defined = [v for v in vals if not math.isnan(v)]
        res = segment_correlation(metric, human, system=system, item=item, grouping=grouping,
                                  method=method, variant=variant)
        assert isinstance(res, CorrelationResult)
        assert res.value == pytest.approx(np.mean(defined), abs=1e-12)
        assert res.n_groups == len(defined) and res.n_skipped == len(vals) - len(defined)
        assert res.n == sum(int((key == g).sum()) for g, v in zip(np.unique(key), vals) if not math.isnan(v))
    flat = segment_correlation(metric, human, system=system, item=item, method=method, variant=variant)
    assert flat.value == pytest.approx(fn(metric, human), abs=1e-12) and flat.n_groups == 1


def test_item_grouping_skips_single_entries_and_reports_them():
    metric = [0.1, 0.2, 0.3, 0.4, 0.9]
    human = [1.0, 2.0, 2.0, 1.0, 5.0]
    system = ["A", "A", "B", "B", "C"]
    item = [1, 2, 1, 2, 3]  # item 3 has one system only
    res = segment_correlation(metric, human, system=system, item=item, grouping="item")
    assert (res.n_groups, res.n_skipped, res.n) == (2, 1, 4)
    assert res.value == pytest.approx(0.0)  # item 1: +1, item 2: -1
    assert res.to_dict()["n_skipped"] == 1


def test_wmt_item_grouping_pools_pairs_like_mt_metrics_eval():
    # KendallLike averaged with weights = pairs: (ΣC - ΣD) / Σ(C + D)
    rng = np.random.default_rng(2)
    metric, human, system, item = _table(rng, n_sys=4, n_items=6)
    con = dis = 0
    for g in np.unique(item):
        m, h = metric[item == g], human[item == g]
        for i, j in itertools.combinations(range(len(m)), 2):
            if abs(h[i] - h[j]) > 1.0:
                con += (m[i] - m[j]) * (h[i] - h[j]) > 0
                dis += not (m[i] - m[j]) * (h[i] - h[j]) > 0
    res = segment_correlation(metric, human, system=system, item=item, grouping="item",
                              method="kendall", variant="wmt", threshold=1.0)
    assert res.value == pytest.approx((con - dis) / (con + dis), abs=1e-12)


def test_system_correlation():
    res = system_correlation([30.1, 25.2, 27.9, 20.0], [0.8, 0.3, 0.5, 0.1], method="spearman")
    assert res.value == 1.0 and res.n == 4 and res.method == "spearman" and res.variant is None
    const = system_correlation([1, 1, 1], [1, 2, 3])
    assert math.isnan(const.value) and const.n_skipped == 1


def test_batched_kendall_equals_scipy_on_the_resampled_study_shape():
    # the resampled-study shape: 1,000 bootstrap rows x 530 observations, many ties on both sides; every
    # 50th row against SciPy (its time is measured in benchmarks/bench_meta.py, not here)
    from scipy.stats import kendalltau

    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, size=(1000, 530)).astype(float)
    y = rng.normal(size=(1000, 530)).round(1)
    got = kendall_tau(x, y)
    assert got.shape == (1000,)
    for row in range(0, 1000, 50):
        assert got[row] == pytest.approx(kendalltau(x[row], y[row]).statistic, abs=1e-12), row
