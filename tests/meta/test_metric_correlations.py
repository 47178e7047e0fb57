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
    from bleustats.metrics.tables import corpus_score

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


def test_tie_calibration_and_tau23_rows():
    from bleustats.meta.tie_calibration import tie_calibrated_kendall

    metrics, human, _ = _table(2)
    metrics = [mean_metric(m.system, m.seg_id, np.round(m.values[:, 0], 1), metric=m.metric) for m in metrics]
    plain = metric_correlations(metrics, human, methods=("kendall",), kendall_variants=("acc23", "tau23"),
                                groupings=("flat", "item", "system"))
    cal = metric_correlations(metrics, human, methods=("kendall",), kendall_variants=("acc23", "tau23"),
                              groupings=("flat", "item", "system"), tie_calibration=True)
    key = ["label", "level", "variant", "grouping"]
    p = plain.correlations.set_index(key)
    c = cal.correlations.set_index(key)
    assert not p["tie_calibrated"].any() and p["threshold"].isna().all()
    assert c["tie_calibrated"].all() and (c["threshold"] >= 0).all()
    for (label, level, variant, grouping), row in c.iterrows():
        # calibration can only raise the value; tau23 = 2 acc23 - 1
        assert row["value"] >= p.loc[(label, level, variant, grouping), "value"] - 1e-12
        acc = c.loc[(label, level, "acc23", grouping), "value"]
        assert c.loc[(label, level, "tau23", grouping), "value"] == pytest.approx(2 * acc - 1)
        if level == "segment":
            groups = {"flat": None, "item": cal.cell_item, "system": cal.cell_system}[grouping]
            direct = tie_calibrated_kendall(cal.segment_scores[label], cal.segment_scores["human"], groups=groups,
                                            variant=variant)
        else:
            direct = tie_calibrated_kendall(cal.system_scores[label], cal.system_scores["human"], variant=variant)
        assert (row["value"], row["threshold"]) == (direct.value, direct.threshold)


def test_pa_and_spa_of_mean_metrics():
    from bleustats.meta.pairwise_accuracy import pairwise_accuracy, pairwise_p_values, permutation_masks, spa

    metrics, human, quality = _table(3, n_sys=6, n_seg=30)
    res = metric_correlations(metrics, human, methods=("pa", "spa", "pearson"), n_permutations=500, seed=9)
    corr = res.correlations
    assert set(corr.loc[corr["level"] == "segment", "method"]) == {"pearson"}  # PA / SPA: system level only
    masks = permutation_masks(30, 500, seed=9)
    grid_h = res.segment_scores["human"].reshape(6, 30)
    for m in metrics:
        rows = corr[(corr["label"] == m.label) & (corr["level"] == "system")].set_index("method")
        pa = pairwise_accuracy(res.system_scores["human"], res.system_scores[m.label])
        assert rows.loc["pa", "value"] == pa.value and rows.loc["pa", "pairs"] == 15
        expected = spa(pairwise_p_values(grid_h, masks), pairwise_p_values(m.values[:, 0].reshape(6, 30), masks))
        assert rows.loc["spa", "value"] == pytest.approx(expected, abs=1e-15)
        assert rows.loc["spa", "n"] == 30 and rows.loc["spa", "permutations"] == 500


def test_spa_of_corpus_bleu_swaps_segments_and_rescores_the_corpus(numba_one_thread):
    """Each permutation's p-value term, recomputed by sacreBLEU on the swapped hypotheses."""
    import sacrebleu

    from bleustats.engine.stats import compute_stats
    from bleustats.meta.pairwise_accuracy import permutation_masks

    hyps, refs, human = _corpus()
    stats = compute_stats(hyps, refs, tokenize="none")
    k = 12
    res = metric_correlations([corpus_metric(stats)], human, methods=("spa",), levels=("system",),
                              n_permutations=k, seed=4)
    segs = np.sort(hyps["seg_id"].unique())
    masks = permutation_masks(len(segs), k, seed=4).astype(bool)
    text = {(s, g): t for s, g, t in zip(hyps["system"], hyps["seg_id"], hyps["text"])}
    ref_streams = [refs[refs["ref_id"] == r].set_index("seg_id").loc[segs, "text"].tolist()
                   for r in sorted(refs["ref_id"].unique())]

    def bleu(lines):
        return sacrebleu.corpus_bleu(lines, ref_streams, tokenize="none").score

    systems = list(res.systems)
    p = res.spa_p_values["BLEU [all]"]
    q = 0
    for a in range(len(systems)):
        for b in range(a + 1, len(systems)):
            ha = [text[(systems[a], g)] for g in segs]
            hb = [text[(systems[b], g)] for g in segs]
            test = bleu(ha) - bleu(hb)
            hits = 0
            for s in masks:
                a2 = [y if sw else x for x, y, sw in zip(ha, hb, s)]
                b2 = [x if sw else y for x, y, sw in zip(ha, hb, s)]
                hits += bleu(a2) - bleu(b2) >= test - 1e-9
            assert p[q] == hits / k
            q += 1


def test_ter_enters_negated(numba_one_thread):
    from bleustats.engine.stats import compute_stats

    hyps, refs, human = _corpus()
    stats = compute_stats(hyps, refs, tokenize="none", metrics=("bleu", "ter"))
    ter = corpus_metric(stats, metric="ter")
    assert not ter.higher_is_better
    res = metric_correlations([ter], human, methods=("pearson", "pa"), levels=("system",))
    raw = [ter.unit_scores(ter.values[ter.system == s].sum(axis=0), 1) for s in res.systems]
    assert res.system_scores[ter.label] == pytest.approx(-np.asarray(raw), rel=1e-12)
