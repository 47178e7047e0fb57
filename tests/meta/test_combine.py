"""Metric combination (bleustats.combine): normalization, components, pairwise ranking, CV, ties."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.meta import combine
from bleustats.metrics import tables as scoring
from bleustats.metrics import sentence
from bleustats.errors import InputError
from bleustats.engine.stats import compute_stats
from ..conftest import examples

# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def stats():
    hyps = pd.DataFrame({
        "seg_id": [1, 1, 1, 2, 2, 2],
        "system": ["A", "B", "C"] * 2,
        "text": ["the cat sat on the mat", "a cat sat on a mat", "cat mat",
                 "it is raining in paris today", "today it rains in paris", "paris"],
    })
    refs = pd.DataFrame({"seg_id": [1, 2], "text": ["the cat sat on the mat", "it is raining in paris today"]})
    return compute_stats(hyps, refs, tokenize="none")


def synthetic(n_seg=60, systems=("A", "B", "C", "D"), seed=0, lps=("en-de",)):
    rng = np.random.default_rng(seed)
    rows = []
    for lp in lps:
        for s in range(n_seg):
            for name in systems:
                h = rng.normal()
                rows.append({"lp": lp, "seg_id": s, "doc": s // 7, "system": name, "human": round(h, 1),
                             "good": h + rng.normal(scale=0.7), "noise": rng.normal(),
                             "scaled": 100 * (h + rng.normal(scale=1.5))})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- normalization


def test_normalization_is_per_group():
    f = pd.DataFrame({"lp": ["x", "x", "x", "y", "y"], "m": [1.0, 2.0, 5.0, -10.0, 10.0], "k": [7.0] * 5})
    out = combine.normalize_scores(f, ["m", "k"], by="lp")
    assert out["m"].tolist() == [0.0, 0.25, 1.0, 0.0, 1.0]
    assert out["k"].tolist() == [0.5] * 5          # constant: no ranking information
    assert f["m"].tolist() == [1.0, 2.0, 5.0, -10.0, 10.0]  # input untouched
    # without groups, y's range dominates
    assert combine.normalize_scores(f, ["m"])["m"].round(4).tolist() == [0.55, 0.6, 0.75, 0.0, 1.0]
    # a group's normalization ignores the other groups entirely
    f2 = f.copy()
    f2.loc[f2.lp == "y", "m"] = [1e9, -1e9]
    assert combine.normalize_scores(f2, ["m"], by="lp")["m"].tolist()[:3] == [0.0, 0.25, 1.0]


def test_normalization_by_several_columns():
    f = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["u", "u", "u", "u"], "m": [0.0, 2.0, 3.0, 5.0]})
    assert combine.normalize_scores(f, ["m"], by=["a", "b"])["m"].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_uniform_and_system_scores():
    f = synthetic(n_seg=5)
    u = combine.uniform_combination(f, ["good", "scaled"], by="lp")
    n = combine.normalize_scores(f, ["good", "scaled"], by="lp")
    assert np.allclose(u, (n["good"] + n["scaled"]) / 2)
    sysdf = combine.system_scores(f, u, by="lp")
    assert list(sysdf.columns) == ["lp", "system", "score"]
    for _, row in sysdf.iterrows():
        assert row["score"] == pytest.approx(u[(f.system == row["system"]).to_numpy()].mean())


# ---------------------------------------------------------------- components


def test_engine_components_match_the_engine(stats):
    out = combine.component_scores(stats, ["bleu1", "bleu2", "bleu4", "precision_2", "length_ratio",
                                           "brevity_penalty", "bleu+1", "nakov:bp-smoothed,pc-grounded"])
    assert out[["seg_id", "system"]].values.tolist() == [[1, "A"], [1, "B"], [1, "C"], [2, "A"], [2, "B"], [2, "C"]]
    assert np.allclose(out["bleu4"], scoring.sentence_scores(stats))
    assert np.allclose(out["bleu2"], sentence.score_variant(stats, "sacrebleu:exp", max_ngram_order=2))
    assert np.allclose(out["bleu+1"], sentence.score_variant(stats, "bleu+1"))
    m2, t2 = stats.column("match_2"), stats.column("total_2")
    assert np.allclose(out["precision_2"], np.divide(m2, t2, out=np.zeros(len(m2)), where=t2 > 0))
    assert np.allclose(out["length_ratio"], stats.column("hyp_len") / stats.column("ref_len_closest"))
    c, r = stats.column("hyp_len"), stats.column("ref_len_closest")
    assert np.allclose(out["brevity_penalty"], np.where(c >= r, 1.0, np.exp(1 - r / c)))
    # unigram BLEU of "cat mat" vs the 6-token reference: p1 = 1, BP = exp(1 - 6/2)
    assert out["bleu1"][2] == pytest.approx(100 * np.exp(-2.0))


def test_delta_bleu_component_with_weights():
    st_ = compute_stats(["a b c"], [["a b c"], ["a b d"]], ref_weights=[[1.0], [0.5]], tokenize="none")
    out = combine.component_scores(st_, ["delta_bleu"])
    assert np.allclose(out["delta_bleu"], scoring.sentence_scores(st_, metric="delta_bleu"))


def test_external_columns_join_by_key(stats):
    ext = pd.DataFrame({"seg_id": [2, 2, 2, 1, 1, 1], "system": ["C", "B", "A", "C", "B", "A"],
                        "comet": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    out = combine.component_scores(stats, ["bleu4"], external=ext)
    assert out["comet"].tolist() == [0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    assert list(out.columns) == ["seg_id", "system", "bleu4", "comet"]


def test_component_errors(stats):
    with pytest.raises(InputError, match=r"components: 'bleu5' needs an n-gram order from 1 to the table's 4; got 5"):
        combine.component_scores(stats, ["bleu5"])
    with pytest.raises(InputError, match=r"components: 'meteor' is not a component\. Use bleu<n>"):
        combine.component_scores(stats, ["meteor"])
    with pytest.raises(InputError, match=r"components: each name once; \['bleu1'\] repeated"):
        combine.component_scores(stats, ["bleu1", "bleu1"])
    with pytest.raises(InputError, match=r"stats: expected a bleustats.StatsTable .*got DataFrame"):
        combine.component_scores(pd.DataFrame(), ["bleu1"])
    ext = pd.DataFrame({"seg_id": [1], "system": ["A"], "comet": [0.5]})
    with pytest.raises(InputError, match=r"external: 5 statistics row\(s\) have no external scores, e\.g\. \[1, 'B'\]"):
        combine.component_scores(stats, ["bleu1"], external=ext)
    ext = pd.DataFrame({"seg_id": [1, 1], "system": ["A", "A"], "comet": [0.5, 0.6]})
    with pytest.raises(InputError, match=r"external: 1 row\(s\) repeat a key \['seg_id', 'system'\]"):
        combine.component_scores(stats, ["bleu1"], external=ext)
    ext = pd.DataFrame({"seg_id": [1], "system": ["A"], "comet": ["high"]})
    with pytest.raises(InputError, match=r"external: every score column must be numeric and finite; problems: comet"):
        combine.component_scores(stats, ["bleu1"], external=ext)
    ext = pd.DataFrame({"seg_id": [1], "system": ["A"], "bleu1": [1.0]})
    with pytest.raises(InputError, match=r"external: columns \['bleu1'\] clash"):
        combine.component_scores(stats, ["bleu1"], external=ext)


def test_frame_errors():
    f = pd.DataFrame({"m": [1.0, np.nan], "s": ["a", "b"]})
    with pytest.raises(InputError, match=r"columns: \['x'\] not in the frame's columns \['m', 's'\]"):
        combine.normalize_scores(f, ["x"])
    with pytest.raises(InputError, match=r"columns: every score column must be numeric and finite; problems: "
                                         r"m \(1 NaN or infinite\), s \(dtype object\)"):
        combine.uniform_combination(f, ["m", "s"])
    with pytest.raises(InputError, match=r"frame: expected a pandas DataFrame .*got dict"):
        combine.normalize_scores({"m": [1.0]}, ["m"])
    with pytest.raises(InputError, match=r"scores: need one score per row of frame \(2\); got shape \(3,\)"):
        combine.system_scores(pd.DataFrame({"system": ["a", "b"]}), [1, 2, 3])


# ---------------------------------------------------------------- pairs and the learner


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-3, 3)), min_size=0, max_size=25),
       st.sampled_from([0.0, 0.5, 1.0, 2.5]))
def test_ranking_pairs_equal_brute_force(rows, threshold):
    f = pd.DataFrame(rows, columns=["seg_id", "h"]).astype({"h": float})
    better, worse = combine.ranking_pairs(f, "h", threshold=threshold) if len(f) else ([], [])
    got = sorted(zip(np.asarray(better).tolist(), np.asarray(worse).tolist()))
    want = sorted((a, b) for a, b in itertools.permutations(range(len(rows)), 2)
                  if rows[a][0] == rows[b][0] and rows[a][1] - rows[b][1] > threshold)
    assert got == want


def test_pairs_never_cross_groups():
    f = pd.DataFrame({"lp": ["x", "y"], "seg_id": [1, 1], "h": [0.0, 1.0]})
    assert len(combine.ranking_pairs(f, "h", by="lp")[0]) == 0
    assert len(combine.ranking_pairs(f, "h")[0]) == 1


def test_fit_matches_scipy_minimizer():
    from scipy.optimize import minimize

    f = synthetic()
    cols = ["good", "noise", "scaled"]
    model = combine.fit_pairwise(f, cols, "human", by="lp", l2=0.5)
    x = combine.normalize_scores(f, cols, by="lp")[cols].to_numpy()
    b, w = combine.ranking_pairs(f, "human", by="lp")
    d = x[b] - x[w]

    def loss(v):
        return np.logaddexp(0, -(d @ v)).sum() + 0.25 * v @ v

    ref = minimize(loss, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    assert model.n_pairs == len(b)
    assert np.allclose(model.weights, ref, atol=1e-5)
    assert model.weights[0] > abs(model.weights[1])          # the informative component wins
    raw = model.raw_scores(f)
    assert np.allclose(model.segment_scores(f), 1 / (1 + np.exp(-raw)))
    sysdf = model.system_scores(f)
    a_mean = raw[(f.system == "A").to_numpy()].mean()
    assert sysdf.loc[sysdf.system == "A", "score"].item() == pytest.approx(a_mean)


def test_threshold_drops_close_pairs():
    f = synthetic(n_seg=20)
    all_pairs = combine.fit_pairwise(f, ["good"], "human").n_pairs
    far = combine.fit_pairwise(f, ["good"], "human", threshold=1.0).n_pairs
    assert 0 < far < all_pairs


def test_fit_errors():
    f = pd.DataFrame({"seg_id": [1, 1], "h": [0.0, 0.0], "m": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"frame: no pair of rows on the same segment has human scores \('h'\)"):
        combine.fit_pairwise(f, ["m"], "h")
    with pytest.raises(InputError, match=r"l2 must be a finite number > 0; got 0"):
        combine.fit_pairwise(f, ["m"], "h", l2=0)
    with pytest.raises(InputError, match=r"threshold must be a finite number >= 0; got -1"):
        combine.fit_pairwise(f, ["m"], "h", threshold=-1)


# ---------------------------------------------------------------- cross-validation


@pytest.mark.parametrize("kwargs", [{"block_size": 5}, {"document": "doc"}, {"block_size": 3, "by": "lp"}])
def test_cv_never_leaks_a_segment(kwargs):
    f = synthetic(n_seg=40, lps=("en-de", "zh-en"))
    cols = ["good", "noise"]
    cv = combine.cross_validate(f, cols, "human", folds=4, seed=3, **kwargs)
    # every segment (per language pair) sits in exactly one fold
    seg_folds = pd.DataFrame({"lp": f.lp, "seg": f.seg_id, "fold": cv.fold}).groupby(["lp", "seg"])["fold"].nunique()
    if "by" in kwargs:
        assert (seg_folds == 1).all()
    else:  # without `by`, seg ids are shared across language pairs: a segment id is one unit
        assert (pd.DataFrame({"seg": f.seg_id, "fold": cv.fold}).groupby("seg")["fold"].nunique() == 1).all()
    if "document" in kwargs:
        assert (pd.DataFrame({"d": f.doc, "fold": cv.fold}).groupby("d")["fold"].nunique() == 1).all()
    # each fold's model is the model fitted on the other folds only: refit and compare
    x = combine.normalize_scores(f, cols, by=kwargs.get("by"))
    for k in range(4):
        train = x[cv.fold != k]
        test_segs = set(zip(f.lp[cv.fold == k], f.seg_id[cv.fold == k]))
        assert not test_segs & set(zip(f.lp[cv.fold != k], f.seg_id[cv.fold != k]))
        m = combine.fit_pairwise(train, cols, "human", by=kwargs.get("by"), normalize=False)
        assert m.n_pairs == cv.n_pairs[k]
        assert np.allclose(m.weights, cv.weights[k], atol=1e-9)
        assert np.allclose(cv.raw[cv.fold == k], x[cols].to_numpy()[cv.fold == k] @ m.weights)


def test_cv_is_seeded():
    f = synthetic(n_seg=30)
    a = combine.cross_validate(f, ["good"], "human", folds=3, seed=1)
    b = combine.cross_validate(f, ["good"], "human", folds=3, seed=1)
    c = combine.cross_validate(f, ["good"], "human", folds=3, seed=2)
    assert np.array_equal(a.fold, b.fold) and np.array_equal(a.raw, b.raw)
    assert not np.array_equal(a.fold, c.fold)


def test_cv_errors():
    f = synthetic(n_seg=10)
    with pytest.raises(InputError, match=r"folds: 5 folds need at least 5 documents or segment blocks; there are 2"):
        combine.cross_validate(f, ["good"], "human", folds=5, block_size=5)
    with pytest.raises(InputError, match=r"folds must be an integer >= 2; got 1"):
        combine.cross_validate(f, ["good"], "human", folds=1)
    with pytest.raises(InputError, match=r"block_size must be a positive integer; got 0"):
        combine.cross_validate(f, ["good"], "human", block_size=0)
    g = f.assign(seg_id=f.seg_id.astype(str))
    with pytest.raises(InputError, match=r"segment: blocks of consecutive segments need integer ids in 'seg_id'"):
        combine.cross_validate(g, ["good"], "human")


# ---------------------------------------------------------------- tie-breaking


def _untied_pairs_keep_order(x, y):
    i, j = np.triu_indices(len(x), 1)
    untied = x[i] != x[j]
    return bool((np.sign(x[i] - x[j])[untied] == np.sign(y[i] - y[j])[untied]).all())


scores_strategy = st.one_of(
    st.lists(st.integers(0, 4).map(lambda v: v / 4), min_size=1, max_size=40),                # many ties
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=64), min_size=1, max_size=40),        # any floats
    st.lists(st.sampled_from([0.0, 1.0, np.nextafter(1.0, 2.0), 1e-300, 5e-324]), min_size=1, max_size=30),
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_tie_breaking_never_reorders_untied_scores(data):
    x = np.array(data.draw(scores_strategy))
    systems = data.draw(st.lists(st.sampled_from("ABCD"), min_size=len(x), max_size=len(x)))
    y = combine.break_ties(x, systems)
    assert _untied_pairs_keep_order(x, y)
    # with a given offset too (e.g. system-level scores from elsewhere)
    offsets = np.array(data.draw(st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=len(x), max_size=len(x))))
    y2 = combine.break_ties(x, systems, system_totals=offsets)
    assert _untied_pairs_keep_order(x, y2)


def test_ties_are_broken_by_system_totals():
    x = np.array([0.5, 0.5, 0.5, 0.1, 0.9, 0.3])
    systems = ["A", "B", "C", "A", "B", "C"]   # totals: A 0.6, B 1.4, C 0.8
    y = combine.break_ties(x, systems)
    assert y[1] > y[2] > y[0]
    assert _untied_pairs_keep_order(x, y)
    eps = combine.tie_break_epsilon(x, [0.6, 1.4, 0.8, 0.6, 1.4, 0.8])
    assert eps == pytest.approx(0.2 / (4 * 0.8))


def test_tie_breaking_errors():
    with pytest.raises(InputError, match=r"systems: need one system label per score \(2\); got shape \(1,\)"):
        combine.break_ties([0.1, 0.2], ["A"])
    with pytest.raises(InputError, match=r"scores: expected a 1-D array of finite numbers; got shape \(2,\) with NaN"):
        combine.break_ties([0.1, np.nan], ["A", "B"])
    with pytest.raises(InputError, match=r"system_totals: need one value per score \(2\); got shape \(3,\)"):
        combine.break_ties([0.1, 0.2], ["A", "B"], system_totals=[1, 2, 3])


def test_tie_break_epsilon_stays_finite_for_a_subnormal_offset_range():
    # a range of system totals of one subnormal would make ε = g / (4R) overflow to inf, and halving
    # inf never ends: ε is capped at the largest finite float (a case the property test above found)
    assert combine.tie_break_epsilon([0.0, 1.0], [0.0, 5e-324]) == np.finfo(np.float64).max
    out = combine.break_ties([0.0, 1.0, 1.0], ["A", "B", "C"], system_totals=[0.0, 5e-324, 0.0])
    assert np.isfinite(out).all() and out[0] < out[1] and out[0] < out[2]
