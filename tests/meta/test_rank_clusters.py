"""Rank clusters: AssignRanks' rule against mt-metrics-eval, PERM-BOTH matrices, the PA permutation test.

Expected ranks: google-research/mt-metrics-eval @ 68a481aea1a787392d55af8f76ac8ef40c5f4664,
``data.AssignRanks(sig_matrix, 0.05)`` on each matrix below (run from a local copy with PYTHONPATH).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bleustats.errors import InputError
from bleustats.meta.compare import correlation_difference_test
from bleustats.meta.metric_correlations import metric_correlations
from bleustats.meta.pairwise_accuracy import pairwise_accuracy
from bleustats.meta.rank_clusters import assign_ranks, pa_permutation_test, rank_clusters
from bleustats.meta.units import mean_metric

# (significance matrix, AssignRanks(sig, 0.05))
ASSIGN_RANKS_CASES = (
    [[[[0.0]], [1]], [[[0.0]], [1]], [[[0.0]], [1]], [[[0.0, 0.05], [0.0, 0.0]], [1, 2]],
     [[[0.0, 0.03], [0.0, 0.0]], [1, 2]], [[[0.0, 0.03], [0.0, 0.0]], [1, 2]],
     [[[0.0, 0.2, 0.6, 0.6], [0.0, 0.0, 0.03, 0.2], [0.0, 0.0, 0.0, 0.6], [0.0, 0.0, 0.0, 0.0]], [1, 1, 2, 2]],
     [[[0.0, 0.2, 0.03, 0.03], [0.0, 0.0, 0.6, 0.05], [0.0, 0.0, 0.0, 0.001], [0.0, 0.0, 0.0, 0.0]], [1, 1, 2, 3]],
     [[[0.0, 0.6, 0.03, 0.2], [0.0, 0.0, 0.2, 0.6], [0.0, 0.0, 0.0, 0.001], [0.0, 0.0, 0.0, 0.0]], [1, 1, 2, 3]],
     [[[0.0, 0.03, 0.2, 0.03, 0.05, 0.2, 0.051], [0.0, 0.0, 0.6, 0.03, 0.2, 0.03, 0.05],
       [0.0, 0.0, 0.0, 0.03, 0.001, 0.03, 0.03], [0.0, 0.0, 0.0, 0.0, 0.05, 0.051, 0.6],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.051], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 2, 2, 3, 4, 4, 4]],
     [[[0.0, 0.6, 0.03, 0.001, 0.05, 0.001, 0.051], [0.0, 0.0, 0.05, 0.2, 0.6, 0.2, 0.051],
       [0.0, 0.0, 0.0, 0.001, 0.051, 0.03, 0.001], [0.0, 0.0, 0.0, 0.0, 0.2, 0.05, 0.051],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.05, 0.051], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 1, 2, 3, 3, 4, 4]],
     [[[0.0, 0.6, 0.2, 0.05, 0.03, 0.051, 0.2], [0.0, 0.0, 0.05, 0.051, 0.051, 0.051, 0.03],
       [0.0, 0.0, 0.0, 0.05, 0.001, 0.6, 0.6], [0.0, 0.0, 0.0, 0.0, 0.03, 0.6, 0.03],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.001], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.05],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 1, 2, 3, 4, 4, 5]],
     [[[0.0, 0.05, 0.001, 0.001, 0.001, 0.03, 0.03, 0.051, 0.03, 0.05],
       [0.0, 0.0, 0.001, 0.05, 0.2, 0.051, 0.03, 0.05, 0.03, 0.2],
       [0.0, 0.0, 0.0, 0.051, 0.051, 0.051, 0.03, 0.001, 0.03, 0.2],
       [0.0, 0.0, 0.0, 0.0, 0.2, 0.03, 0.2, 0.05, 0.05, 0.6], [0.0, 0.0, 0.0, 0.0, 0.0, 0.05, 0.2, 0.2, 0.05, 0.05],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.001, 0.05, 0.2],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.6, 0.001],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.001], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.03],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 2, 3, 3, 3, 4, 4, 5, 5, 6]],
     [[[0.0, 0.03, 0.2, 0.6, 0.03, 0.2, 0.05, 0.03, 0.03, 0.6],
       [0.0, 0.0, 0.001, 0.2, 0.05, 0.03, 0.001, 0.03, 0.03, 0.001],
       [0.0, 0.0, 0.0, 0.05, 0.2, 0.001, 0.03, 0.001, 0.001, 0.001],
       [0.0, 0.0, 0.0, 0.0, 0.03, 0.6, 0.2, 0.05, 0.2, 0.051],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.05, 0.6, 0.2, 0.001, 0.05],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.05, 0.05, 0.05],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.05, 0.6], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.051],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 2, 3, 4, 5, 6, 6, 7, 7, 7]],
     [[[0.0, 0.05, 0.6, 0.051, 0.03, 0.03, 0.6, 0.03, 0.03, 0.03],
       [0.0, 0.0, 0.6, 0.2, 0.051, 0.03, 0.2, 0.051, 0.051, 0.6],
       [0.0, 0.0, 0.0, 0.03, 0.051, 0.6, 0.001, 0.6, 0.001, 0.2],
       [0.0, 0.0, 0.0, 0.0, 0.051, 0.03, 0.051, 0.6, 0.2, 0.001],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.051, 0.6, 0.05, 0.2],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.051, 0.2, 0.6, 0.6],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.05, 0.001],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.051], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6],
       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
      [1, 2, 2, 3, 3, 4, 4, 5, 5, 5]]]
)


@pytest.mark.parametrize("case", range(len(ASSIGN_RANKS_CASES)))
def test_assign_ranks_equals_mt_metrics_eval(case):
    sig, expected = ASSIGN_RANKS_CASES[case]
    assert assign_ranks(np.array(sig), 0.05) == expected


def _table(n_sys=5, n_seg=20, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_sys, n_seg)) + np.linspace(0, 1, n_sys)[:, None]
    sys_ = np.repeat([f"s{i}" for i in range(n_sys)], n_seg)
    seg = np.tile(np.arange(n_seg), n_sys)
    human = pd.DataFrame({"system": sys_, "seg_id": seg, "score": q.ravel()})
    metrics = [mean_metric(sys_, seg, (q + rng.normal(0, sd, q.shape)).ravel(), metric=f"m{sd}")
               for sd in (0.2, 0.25, 1.5, 5.0)]
    return metrics, human


def test_rank_clusters_use_perm_both_and_the_rule():
    metrics, human = _table()
    res = metric_correlations(metrics, human, methods=("pearson", "kendall", "pa", "spa"),
                              groupings=("flat", "item"), n_permutations=100)
    ranks, matrices = rank_clusters(res, n_samples=100, seed=3)
    seg = ranks[(ranks["level"] == "segment") & (ranks["method"] == "pearson") & (ranks["grouping"] == "item")]
    labels = seg["label"].tolist()
    assert seg["value"].is_monotonic_decreasing
    sig = matrices[("segment", "pearson", None, "item")]
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            expected = correlation_difference_test(
                res.segment_scores[labels[a]], res.segment_scores[labels[b]], res.segment_scores["human"],
                level="segment", method="pearson", test="permutation", n_samples=100, seed=3,
                system=res.cell_system, item=res.cell_item, grouping="item").p_value
            assert sig[a, b] == expected
    assert seg["rank"].tolist() == assign_ranks(sig)
    assert seg["rank"].iloc[0] == 1 and seg["rank"].iloc[-1] > 1  # noise sd 5 is beaten
    assert ranks.loc[ranks["method"] == "spa", "rank"].isna().all()  # SPA: not ranked
    pa = ranks[ranks["method"] == "pa"]
    assert pa["rank"].notna().all()


def test_tie_calibrated_rows_use_the_pair_test():
    from bleustats.meta.tie_calibration import pair_permutation_test

    metrics, human = _table(n_sys=4, n_seg=15, seed=1)
    res = metric_correlations(metrics, human, methods=("kendall",), kendall_variants=("acc23",),
                              groupings=("item",), levels=("segment",), tie_calibration=True)
    ranks, matrices = rank_clusters(res, n_samples=200, seed=2)
    labels = ranks["label"].tolist()
    eps = res.correlations.set_index("label")["threshold"]
    sig = matrices[("segment", "kendall", "acc23", "item")]
    assert sig[0, 1] == pair_permutation_test(res.segment_scores[labels[0]], res.segment_scores[labels[1]],
                                              res.segment_scores["human"], threshold_a=eps[labels[0]],
                                              threshold_b=eps[labels[1]], groups=res.cell_item, n_samples=200,
                                              seed=2)
    assert ranks["rank"].tolist() == assign_ranks(sig) and ranks["rank"].iloc[-1] > 1


def test_pa_permutation_test_by_explicit_draws():
    rng = np.random.default_rng(1)
    h = rng.normal(size=8)
    a, b = h + rng.normal(0, 0.3, 8), h + rng.normal(0, 2, 8)
    groups = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    p = pa_permutation_test(a, b, h, groups=groups, n_samples=300, seed=5)

    def z(v):
        return (v - v.mean()) / v.std()

    def pooled(m):
        agree = pairs = 0
        for g in (0, 1):
            r = pairwise_accuracy(h[groups == g], m[groups == g])
            agree, pairs = agree + r.agreements, pairs + r.pairs
        return agree / pairs

    swaps = np.random.default_rng(5).integers(2, size=(300, 8), dtype=bool)
    delta = pooled(a) - pooled(b)
    hits = sum(pooled(np.where(s, z(b), z(a))) - pooled(np.where(s, z(a), z(b))) >= delta - 1e-12 for s in swaps)
    assert p == hits / 300


def test_errors():
    with pytest.raises(InputError, match="square"):
        assign_ranks(np.zeros((2, 3)))
    with pytest.raises(InputError, match="one score per system"):
        pa_permutation_test([1.0, 2.0], [1.0], [1.0, 2.0])
    assert np.isnan(pa_permutation_test([1.0], [2.0], [3.0]))
