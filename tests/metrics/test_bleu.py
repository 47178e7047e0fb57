"""Scoring from statistics: subsets, groupings, sentence scores, saved tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.engine import _options as options
from bleustats.metrics import formula
from bleustats.metrics import tables as scoring
from bleustats.engine.stats import compute_stats, load_stats

from ..twins.engine import reference_compute_bleu
from ..conftest import examples

WORDS = ["a", "b", "c", "the", "cat", ".", ","]


@pytest.fixture(scope="module")
def multi():
    rng = np.random.default_rng(7)
    rows = []
    refs = []
    for seg in range(30):
        ref = " ".join(rng.choice(WORDS, rng.integers(1, 12)))
        refs.append({"seg_id": seg, "text": ref, "weight": float(rng.uniform(0.1, 1))})
        refs.append({"seg_id": seg, "text": " ".join(rng.choice(WORDS, 5)), "weight": float(rng.uniform(-1, 1))})
        for system in ("A", "B", "C"):
            rows.append({"seg_id": seg, "system": system, "text": " ".join(rng.choice(WORDS, rng.integers(0, 12)))})
    return compute_stats(pd.DataFrame(rows), pd.DataFrame(refs))


@pytest.mark.parametrize("metric", formula.METRICS)
@pytest.mark.parametrize("ref_length", options.REF_LENGTHS)
def test_grouped_scores_equal_each_subset(multi, metric, ref_length):
    frame = scoring.corpus_scores(multi, by="system", metric=metric, ref_length=ref_length)
    systems = multi.column("system")
    for _, row in frame.iterrows():
        one = scoring.corpus_score(multi, rows=systems == row["system"], metric=metric, ref_length=ref_length)
        assert row["score"] == pytest.approx(one.score, abs=1e-12)
        assert row["sys_len"] == one.sys_len and row["ref_len"] == pytest.approx(one.ref_len)
    assert frame.attrs["signature"] == str(one.signature)


def test_subset_by_index_or_mask_and_order_invariance(multi):
    idx = np.array([5, 1, 70, 33])
    mask = np.zeros(len(multi), bool)
    mask[idx] = True
    a = scoring.corpus_score(multi, rows=idx)
    assert a == scoring.corpus_score(multi, rows=mask)
    assert a == scoring.corpus_score(multi, rows=idx[::-1])
    assert a == scoring.corpus_score(multi.select(idx))


def test_repeated_rows_count_twice(multi):
    twice = scoring.corpus_score(multi, rows=[3, 3])
    once = scoring.corpus_score(multi, rows=[3])
    assert twice.sys_len == 2 * once.sys_len and twice.counts == [2 * c for c in once.counts]


def test_sentence_scores_equal_single_row_corpus_scores(multi):
    for sm in options.SMOOTH_METHODS:
        sent = scoring.sentence_scores(multi, smooth_method=sm, use_effective_order=True)
        for i in range(0, len(multi), 9):
            one = scoring.corpus_score(multi, rows=[i], smooth_method=sm, use_effective_order=True)
            assert sent[i] == pytest.approx(one.score, abs=1e-12)


def test_ref_length_choices(multi):
    closest = scoring.corpus_score(multi)
    shortest = scoring.corpus_score(multi, ref_length="shortest")
    average = scoring.corpus_score(multi, ref_length="average")
    assert shortest.ref_len == multi.column("ref_len_shortest").sum()
    assert average.ref_len == pytest.approx(multi.column("ref_len_average").sum())
    assert shortest.ref_len <= closest.ref_len  # row by row, the shortest is never longer than the closest
    assert "reflen:average" in str(average.signature)


def test_saved_table_rescoring_is_identical(multi, tmp_path):
    path = tmp_path / "stats.parquet"
    multi.save(path)
    loaded = load_stats(path)
    assert loaded.table.equals(multi.table) and loaded.max_order == 4 and loaded.weights == "custom"
    for sm in ("exp", "floor"):
        assert scoring.corpus_score(loaded, smooth_method=sm) == scoring.corpus_score(multi, smooth_method=sm)


def test_scoring_does_not_mutate_inputs(multi):
    before = multi.table.to_pydict()
    scoring.corpus_score(multi, smooth_method="add-k")
    scoring.corpus_scores(multi, metric="delta_bleu", smooth_method="add-k")
    scoring.sentence_scores(multi, smooth_method="add-k")
    assert multi.table.to_pydict() == before


counts = st.integers(0, 50)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(counts, counts), min_size=1, max_size=9), st.integers(0, 60), st.integers(0, 60),
       st.sampled_from([("none", None), ("floor", None), ("floor", 0.5), ("add-k", None), ("add-k", 3),
                        ("exp", None)]), st.booleans())
def test_bleu_from_sums_equals_the_plain_python_twin(pairs, sys_len, ref_len, smoothing, eff):
    correct = [min(c, t) for c, t in pairs]
    total = [t for _, t in pairs]
    sm, sv = smoothing
    out = formula.bleu_from_sums([correct], [total], [sys_len], [ref_len], smooth_method=sm, smooth_value=sv,
                                 use_effective_order=eff)
    want = reference_compute_bleu(correct, total, sys_len, ref_len, sm, sv, eff, len(pairs))
    assert out["score"][0] == pytest.approx(want.score, abs=1e-9)
    np.testing.assert_allclose(out["precisions"][0], want.precisions, rtol=0, atol=1e-9)


def test_bad_options_name_the_parameter(multi):
    with pytest.raises(ValueError, match="smooth_method must be one of 'none', 'floor', 'add-k', 'exp'; got 'expo'"):
        scoring.corpus_score(multi, smooth_method="expo")
    with pytest.raises(ValueError,
                       match="metric must be one of 'bleu', 'delta_bleu', 'chrf', 'chrf\\+\\+', 'ter'; got 'meteor'"):
        scoring.corpus_scores(multi, metric="meteor")
    with pytest.raises(ValueError, match="no chrF statistics"):
        scoring.corpus_scores(multi, metric="chrf")
    with pytest.raises(ValueError, match="ref_length must be one of"):
        scoring.sentence_scores(multi, ref_length="longest")
    with pytest.raises(ValueError, match="smooth_value must be a finite number or None; got nan"):
        scoring.corpus_score(multi, smooth_value=float("nan"))
    with pytest.raises(ValueError, match="by must be a column of the statistics table .*got 'doc'"):
        scoring.corpus_scores(multi, by="doc")


SMOOTHINGS = [("none", None), ("floor", None), ("floor", 0.5), ("add-k", None), ("add-k", 3), ("exp", None)]


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), n=st.integers(1, 5), smoothing=st.sampled_from(SMOOTHINGS), eff=st.booleans())
def test_bleu_scores_is_bleu_from_sums_bit_for_bit(data, n, smoothing, eff):
    # the study asserts bit equality with corpus_score through bleu_scores: the same formula, the same bits
    rows = data.draw(st.integers(1, 12))
    ints = st.integers(0, 60)
    total = np.array(data.draw(st.lists(ints, min_size=rows * n, max_size=rows * n)), float).reshape(rows, n)
    frac = np.array(data.draw(st.lists(st.floats(0, 1), min_size=rows * n, max_size=rows * n))).reshape(rows, n)
    correct = np.floor(total * frac)
    if data.draw(st.booleans()):  # ΔBLEU-like fractional sums, and unclamped negative numerators
        correct = correct * 0.37 - data.draw(st.sampled_from([0.0, 0.5]))
    hyp = np.array(data.draw(st.lists(ints, min_size=rows, max_size=rows)), float)
    ref = np.array(data.draw(st.lists(ints, min_size=rows, max_size=rows)), float)
    sm, sv = smoothing
    kw = dict(smooth_method=sm, smooth_value=sv, use_effective_order=eff)
    want = formula.bleu_from_sums(correct, total, hyp, ref, **kw)["score"]
    assert np.array_equal(formula.bleu_scores(correct, total, hyp, ref, **kw), want)
    f32 = formula.bleu_scores(correct, total, hyp, ref, float32=True, **kw)
    np.testing.assert_allclose(f32, want, rtol=1e-5, atol=1e-5)  # float32 precisions: rounding only


@pytest.mark.parametrize("smoothing", SMOOTHINGS)
def test_bleu_scores_float32_is_sacrebleu_on_float32_statistics(smoothing):
    # sacreBLEU's bootstrap scores np.float32 sums: 100. * correct / total stays float32 (NumPy 2)
    sm, sv = smoothing
    rng = np.random.default_rng(5)
    total = rng.integers(0, 3000, size=(40, 4)).astype(float)
    correct = np.floor(total * rng.uniform(0, 1, size=total.shape))
    hyp, ref = total[:, 0], rng.integers(1, 3000, size=40).astype(float)
    got = formula.bleu_scores(correct, total, hyp, ref, smooth_method=sm, smooth_value=sv, float32=True)
    for i in range(len(got)):
        want = reference_compute_bleu(list(correct[i].astype(np.float32)), list(total[i].astype(np.float32)),
                                      hyp[i], ref[i], sm, sv, False, 4)
        assert got[i] == pytest.approx(want.score, abs=1e-9)


def test_formula_scores_blocks_of_any_shape_and_no_rows():
    rng = np.random.default_rng(3)
    total = rng.integers(0, 9, size=(3, 5, 4)).astype(float)
    correct = np.floor(total * rng.uniform(0, 1, size=total.shape))
    hyp, ref = total[..., 0], rng.integers(0, 9, size=(3, 5)).astype(float)
    for eff in (False, True):
        block = formula.bleu_scores(correct, total, hyp, ref, use_effective_order=eff)
        rows = [formula.bleu_scores(correct[i], total[i], hyp[i], ref[i], use_effective_order=eff) for i in range(3)]
        assert block.shape == (3, 5) and np.array_equal(block, np.stack(rows))
        empty = formula.bleu_from_sums(np.zeros((0, 4)), np.zeros((0, 4)), np.zeros(0), np.zeros(0),
                                       use_effective_order=eff)
        assert empty["score"].shape == (0,) and empty["precisions"].shape == (0, 4)


def test_non_finite_statistics_are_an_error_not_a_zero():
    with pytest.raises(ValueError,
                       match=r"correct must hold finite numbers; got 1 NaN or infinite value\(s\), e\.g\. nan"):
        formula.bleu_from_sums([[1.0, np.nan]], [[2, 2]], [2], [2])
    with pytest.raises(ValueError, match=r"ref_len must hold finite numbers"):
        formula.bleu_scores([[1, 1]], [[2, 2]], [2], [np.inf])
    with pytest.raises(ValueError,
                       match=r"correct and total must have the same shape \(\.\.\., N\); got \(1, 2\) and \(1, 3\)"):
        formula.bleu_scores([[1, 1]], [[2, 2, 2]], [2], [2])
