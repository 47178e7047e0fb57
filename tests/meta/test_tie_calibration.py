"""Tie calibration (acc23 / tau23 with the optimal metric tie threshold) against mt-metrics-eval and a brute force.

Expected values: google-research/mt-metrics-eval @ 68a481aea1a787392d55af8f76ac8ef40c5f4664,
``stats.KendallWithTiesOpt(gold, metric, variant=V, num_sys=6, average_by=A, sample_rate=1.0)`` on the
6 x 10 grid below packed system-major (``gold`` None where ``MISSING``), and on the 12 system scores with
``average_by='none'`` for the system level; run from a local copy with PYTHONPATH (the oracle is not a
dependency).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.errors import InputError
from bleustats.meta.correlation import segment_correlation
from bleustats.meta.tie_calibration import pair_permutation_test, tie_calibrated_kendall
from ..conftest import examples

METRIC = np.array([[-0.27, -0.6, -0.14, -0.35, 0.22, -0.61, -0.33, -0.8, 0.16, -0.5],
     [-0.12, -0.02, 0.01, -0.13, -0.68, -0.09, -0.96, 0.08, -0.11, -0.38],
     [0.09, -0.03, -0.35, -0.58, -0.6, -0.11, 0.29, -0.14, -0.01, 0.17],
     [-0.08, -0.04, -0.3, -0.15, -0.32, -0.21, -0.42, -0.51, -0.68, -0.52],
     [-0.86, 0.26, -0.81, -0.16, 0.05, 0.12, -0.34, -0.35, 0.18, 0.13],
     [-0.56, -0.02, 0.01, -0.56, -0.24, -0.81, -0.06, -0.25, -0.28, -0.45]])
HUMAN = np.array([[-1.0, -1.0, -0.0, -1.0, -0.0, -3.0, -0.0, -2.0, -0.0, -0.0],
     [-0.0, -0.0, -1.0, -1.0, -2.0, -0.0, -3.0, -1.0, -0.0, -1.0],
     [-0.0, -0.0, -1.0, -1.0, -2.0, -0.0, -0.0, -1.0, -0.0, -0.0],
     [-0.0, -1.0, -1.0, -1.0, -0.0, -1.0, -0.0, -0.0, -2.0, -1.0],
     [-3.0, -1.0, -2.0, -0.0, -0.0, -0.0, -1.0, -1.0, -0.0, -0.0],
     [-1.0, -0.0, -0.0, -1.0, -1.0, -2.0, -1.0, -1.0, -1.0, -1.0]])
MISSING = np.array([[0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
     [0, 0, 0, 0, 0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 1, 0, 0, 0]], dtype=bool)
SYS_METRIC = [-0.21, -0.54, 0.66, -0.27, 0.25, 0.28, 0.86, 0.95, 0.13, -0.24, -1.35, 1.26]
SYS_HUMAN = [-0.5, -0.5, 0.5, -0.5, -0.0, 0.0, 1.0, 0.5, 0.5, -0.5, -1.5, 1.0]
# (variant, average_by, gold) -> (KendallWithTiesOpt value, its threshold)
EXPECTED = {
    ('acc23', 'none', 'full'): (0.6265536723163841, 0.23),
    ('acc23', 'none', 'missing'): (0.6397306397306397, 0.23),
    ('acc23', 'item', 'full'): (0.6533333333333333, 0.29),
    ('acc23', 'item', 'missing'): (0.6500000000000001, 0.3),
    ('acc23', 'sys', 'full'): (0.6407407407407407, 0.22999999999999998),
    ('acc23', 'sys', 'missing'): (0.6461640211640205, 0.32999999999999996),
    ('23', 'none', 'full'): (0.25310734463276835, 0.23),
    ('23', 'none', 'missing'): (0.27946127946127947, 0.23),
    ('23', 'item', 'full'): (0.30666666666666675, 0.22999999999999998),
    ('23', 'item', 'missing'): (0.29999999999999993, 0.3),
    ('23', 'sys', 'full'): (0.2814814814814814, 0.22999999999999998),
    ('23', 'sys', 'missing'): (0.2923280423280424, 0.32999999999999996),
}
EXPECTED_SYSTEM = {'acc23': (0.8787878787878788, 0.30000000000000004), '23': (0.7575757575757576, 0.30000000000000004)}
_GROUPING = {"none": None, "item": "item", "sys": "system"}
_VARIANT = {"acc23": "acc23", "23": "tau23"}


def _cells(gold: str):
    s, i = METRIC.shape
    system = np.repeat(np.arange(s), i)
    item = np.tile(np.arange(i), s)
    keep = np.ones(s * i, bool) if gold == "full" else ~MISSING.ravel()
    return METRIC.ravel()[keep], HUMAN.ravel()[keep], system[keep], item[keep]


def _at(m, h, system, item, grouping, threshold):
    """acc23 at a fixed threshold, by the pairwise path of segment_correlation."""
    return segment_correlation(m, h, system=system, item=item, grouping=grouping or "flat", method="kendall",
                               variant="acc23", threshold=threshold).value


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_equals_kendall_with_ties_opt(key):
    variant, average_by, gold = key
    value, threshold = EXPECTED[key]
    m, h, system, item = _cells(gold)
    grouping = _GROUPING[average_by]
    groups = None if grouping is None else (item if grouping == "item" else system)
    res = tie_calibrated_kendall(m, h, groups=groups, variant=_VARIANT[variant])
    assert res.value == pytest.approx(value, abs=1e-12)
    # the oracle's threshold reaches the same maximum; where several do (in exact arithmetic), its float
    # accumulation may stop at any of them while bleustats takes the smallest
    assert res.threshold <= threshold + 1e-12
    acc = (value + 1) / 2 if variant == "23" else value
    assert _at(m, h, system, item, grouping, threshold) == pytest.approx(acc, abs=1e-12)
    assert _at(m, h, system, item, grouping, res.threshold) == pytest.approx(acc, abs=1e-12)
    if key != ("acc23", "item", "full"):  # the one degenerate case of this grid (0.23 and 0.29 tie)
        assert res.threshold == pytest.approx(threshold, abs=1e-12)


@pytest.mark.parametrize("variant", ["acc23", "23"])
def test_system_level_equals_oracle(variant):
    value, threshold = EXPECTED_SYSTEM[variant]
    res = tie_calibrated_kendall(SYS_METRIC, SYS_HUMAN, variant=_VARIANT[variant])
    assert (res.value, res.threshold) == (pytest.approx(value, abs=1e-12), pytest.approx(threshold, abs=1e-12))
    assert res.n_pairs == 66 and res.n_groups == 1


def _brute(m, h, groups):
    """Every candidate threshold, each evaluated independently by the O(n^2) pair counts."""
    m, h = np.asarray(m, float), np.asarray(h, float)
    labels = np.zeros(len(m), int) if groups is None else np.asarray(groups)
    cands = {0.0}
    per_group = []
    for g in np.unique(labels):
        idx = np.flatnonzero(labels == g)
        if len(idx) < 2:
            continue
        per_group.append(idx)
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                cands.add(abs(m[idx[a]] - m[idx[b]]))
    best = (-1.0, 0.0)
    for t in sorted(cands):
        accs = []
        for idx in per_group:
            agree = total = 0
            for a in range(len(idx)):
                for b in range(a + 1, len(idx)):
                    dm, dh = m[idx[a]] - m[idx[b]], h[idx[a]] - h[idx[b]]
                    mt = abs(dm) <= t
                    agree += (mt and dh == 0) or (not mt and dh != 0 and (dm > 0) == (dh > 0))
                    total += 1
            accs.append(agree / total)
        v = sum(accs) / len(accs) if accs else float("nan")
        if v > best[0] + 1e-12:
            best = (v, t)
    return best


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-3, 3), st.integers(0, 3)), min_size=0, max_size=18))
def test_matches_brute_force(rows):
    m = [a / 4 for a, _, _ in rows]
    h = [float(b) for _, b, _ in rows]
    g = [c for _, _, c in rows]
    for groups in (None, g):
        res = tie_calibrated_kendall(m, h, groups=groups)
        value, threshold = _brute(m, h, groups)
        if value < 0:
            assert np.isnan(res.value)
            continue
        assert res.value == pytest.approx(value, abs=1e-12)
        assert res.threshold == pytest.approx(threshold, abs=1e-12)
        tau = tie_calibrated_kendall(m, h, groups=groups, variant="tau23")
        assert tau.value == pytest.approx(2 * value - 1, abs=1e-12) and tau.threshold == res.threshold


def test_many_group_sizes_are_counted_exactly():
    # groups of 2..60 entries: the least common multiple of their pair counts times the number of groups passes
    # int64, so the exact curve is counted in Python integers; equal accuracies still compare equal
    rng = np.random.default_rng(3)
    sizes = np.arange(2, 61)
    assert math.lcm(*(int(s) * (int(s) - 1) // 2 for s in sizes)) * len(sizes) >= 2**62
    groups = np.repeat(np.arange(len(sizes)), sizes)
    m = rng.integers(0, 7, len(groups)) / 4
    h = rng.integers(-2, 3, len(groups)).astype(float)
    res = tie_calibrated_kendall(m, h, groups=groups)
    value, threshold = _brute(m, h, groups)
    assert res.value == pytest.approx(value, abs=1e-12) and res.threshold == threshold


def test_errors():
    with pytest.raises(InputError, match="variant"):
        tie_calibrated_kendall([1, 2], [1, 2], variant="b")
    with pytest.raises(InputError, match="NaN"):
        tie_calibrated_kendall([1, np.nan], [1, 2])
    with pytest.raises(InputError, match="groups"):
        tie_calibrated_kendall([1, 2], [1, 2], groups=[1])
    with pytest.raises(InputError, match="pairs of entries exceed"):
        tie_calibrated_kendall(np.zeros(6_000), np.zeros(6_000))


# A second metric on the same grid, and mt-metrics-eval's PairwisePermutationSigDiff(corr_b, corr_a, 'acc23',
# average_by, 1000, epsilon1=eps_b, epsilon2=eps_a) (p for a > b) with np.random.seed(0..9), the mean of the 10 runs;
# eps from KendallWithTiesOpt(..., sample_rate=1.0) (same commit as above).
METRIC_B = np.array([[-0.32, -0.68, -0.15, -0.32, 0.29, -0.6, -0.36, -0.85, 0.2, -0.4],
     [-0.1, -0.09, -0.05, -0.03, -0.67, -0.19, -0.97, 0.01, -0.15, -0.41],
     [0.05, 0.0, -0.35, -0.62, -0.58, -0.06, 0.19, -0.16, -0.07, 0.16],
     [-0.16, -0.04, -0.3, -0.17, -0.38, -0.23, -0.49, -0.59, -0.67, -0.59],
     [-0.79, 0.3, -0.93, -0.14, -0.02, 0.12, -0.34, -0.47, 0.17, 0.11],
     [-0.5, -0.09, 0.05, -0.63, -0.26, -0.86, 0.03, -0.22, -0.13, -0.41]])
PAIRS_ORACLE = {"none": (0.23, 0.31000000000000005, 0.0001),
                "item": (0.29, 0.31, 0.13490000000000002)}


@pytest.mark.parametrize("average_by", ["none", "item"])
def test_pair_permutation_test_against_pairwise_permutation_sig_diff(average_by):
    eps_a, eps_b, p_oracle = PAIRS_ORACLE[average_by]
    m, h, _, item = _cells("full")
    groups = None if average_by == "none" else item
    p = pair_permutation_test(m, METRIC_B.ravel(), h, threshold_a=eps_a, threshold_b=eps_b, groups=groups,
                              n_samples=20000, seed=0)
    # The null distribution is discrete (12 pairs differ by item here): draws that tie the observed difference
    # exactly count as >= here, while mt-metrics-eval's float sums count about half of them. Its p lies between
    # P(null > observed) and P(null >= observed).
    if average_by == "none":
        assert p < 0.002 and p_oracle < 0.002
    else:
        assert p == pytest.approx(0.19, abs=0.015)
        assert 0.072 - 0.015 < p_oracle < p + 0.015


def test_pair_permutation_test_against_exact_enumeration():
    """Every sign pattern of the pairs whose verdicts differ, enumerated: the exact p the test estimates."""
    import itertools

    rng = np.random.default_rng(6)
    h = rng.integers(0, 3, 13).astype(float)
    a, b = h + rng.normal(0, 0.5, 13), h + rng.normal(0, 1.0, 13)
    groups = np.repeat([0, 1, 2], [4, 4, 5])  # two group sizes: 6 and 10 pairs

    def verdicts(m, eps):
        out, weight = [], []
        for g in range(3):
            idx = np.flatnonzero(groups == g)
            n_pairs = len(idx) * (len(idx) - 1) // 2
            for x in range(len(idx)):
                for y in range(x + 1, len(idx)):
                    dm, dh = m[idx[y]] - m[idx[x]], h[idx[y]] - h[idx[x]]
                    out.append(dh == 0 if abs(dm) <= eps else (dh != 0 and (dm > 0) == (dh > 0)))
                    weight.append(1.0 / (3 * n_pairs))
        return np.array(out, float), np.array(weight)

    (va, w), (vb, _) = verdicts(a, 0.2), verdicts(b, 0.1)
    d = ((va - vb) * w)[va != vb]
    assert 4 <= len(d) <= 16
    observed = d.sum()
    exact = np.mean([np.dot(s, d) >= observed - 1e-12 for s in itertools.product((-1, 1), repeat=len(d))])
    p = pair_permutation_test(a, b, h, threshold_a=0.2, threshold_b=0.1, groups=groups, n_samples=40000, seed=7)
    assert p == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 40000) + 1e-9)
