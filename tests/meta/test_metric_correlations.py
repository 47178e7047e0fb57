"""System- and segment-level correlations of a metric table, against scipy; comparisons."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from bleustats.errors import InputError
from bleustats.meta.compare import williams_test
from bleustats.meta.metric_correlations import metric_correlations
from bleustats.meta.study import corpus_metric
from bleustats.meta.units import mean_metric

from .test_study import _corpus


def _table(seed: int = 0, n_sys: int = 5, n_seg: int = 12):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n_sys, n_seg))
    system = np.repeat([f"s{i}" for i in range(n_sys)], n_seg)
    seg = np.tile(np.arange(n_seg), n_sys)
    human = pd.DataFrame({"system": system, "seg_id": seg, "score": (quality + rng.normal(size=quality.shape)).ravel()})
    a = mean_metric(system, seg, (quality + rng.normal(0, 0.5, quality.shape)).ravel(), metric="a")
    b = mean_metric(system, seg, (quality + rng.normal(0, 2.0, quality.shape)).ravel(), metric="b")
    return [a, b], human, quality


def test_correlations_equal_scipy():
    metrics, human, _ = _table()
    res = metric_correlations(metrics, human, kendall_variants=("b", "c"), groupings=("flat", "item", "system"))
    h_seg = human["score"].to_numpy()
    h_sys = human.groupby("system")["score"].mean().to_numpy()
    for m in metrics:
        x_seg = m.values[:, 0]
        x_sys = pd.Series(x_seg).groupby(m.system).mean().to_numpy()
        got = res.correlations[res.correlations["label"] == m.label].set_index(
            ["level", "method", "variant", "grouping"])["value"]
        assert got[("system", "pearson", None, "flat")] == pytest.approx(scipy.stats.pearsonr(x_sys, h_sys)[0])
        assert got[("system", "kendall", "c", "flat")] == pytest.approx(
            scipy.stats.kendalltau(x_sys, h_sys, variant="c")[0])
        assert got[("segment", "spearman", None, "flat")] == pytest.approx(scipy.stats.spearmanr(x_seg, h_seg)[0])
        by_item = np.mean([scipy.stats.kendalltau(x_seg[m.seg_id == g], h_seg[human["seg_id"] == g])[0]
                           for g in range(12)])
        assert got[("segment", "kendall", "b", "item")] == pytest.approx(by_item)


def test_corpus_metrics_use_summed_statistics_at_system_level(numba_one_thread):
    from bleustats.engine.stats import compute_stats
    from bleustats.metrics.bleu import corpus_score

    hyps, refs, human = _corpus()
    stats = compute_stats(hyps, refs, tokenize="none")
    res = metric_correlations([corpus_metric(stats)], human, methods=("pearson",), levels=("system",))
    bleu = [corpus_score(stats, rows=np.flatnonzero(stats.column("system") == s)).score for s in res.systems]
    assert res.system_scores["BLEU [all]"] == pytest.approx(bleu, rel=1e-12)


def test_compare_reuses_williams_and_the_paired_bootstrap():
    metrics, human, _ = _table(1)
    res = metric_correlations(metrics, human, methods=("pearson", "kendall"))
    comp = res.compare("a [all]", "b [all]", tests=("williams", "bootstrap"), n_samples=200)
    w = comp[(comp["test"] == "williams") & (comp["level"] == "segment")].iloc[0]
    x, y, h = res.segment_scores["a [all]"], res.segment_scores["b [all]"], res.segment_scores["human"]
    r12, r13, r23 = (scipy.stats.pearsonr(u, v)[0] for u, v in ((x, h), (y, h), (x, y)))
    assert w["p_value"] == pytest.approx(williams_test(r12, r13, r23, len(h)).p_value)
    assert not ((comp["test"] == "williams") & (comp["method"] == "kendall")).any()  # Pearson / Spearman only
    boot = comp[comp["test"] == "bootstrap"]
    assert len(boot) == 4 and boot["p_value"].between(0, 1).all() and (boot["low"] <= boot["high"]).all()
    # the better metric wins clearly at segment level
    assert (comp.loc[comp["level"] == "segment", "p_value"] < 0.05).all()
    with pytest.raises(InputError, match="is not a metric of the table"):
        res.compare("a [all]", "zzz")


def test_bad_options():
    metrics, human, _ = _table()
    with pytest.raises(InputError, match="levels must be"):
        metric_correlations(metrics, human, levels=("corpus",))
    with pytest.raises(InputError, match="groupings must be"):
        metric_correlations(metrics, human, groupings=())
