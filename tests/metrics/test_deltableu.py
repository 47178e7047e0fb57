"""ΔBLEU (Galley et al., 2015) through the public API.

Expected numbers come from ../shared/fixtures/deltableu_galley2019.json: the
first author's published toy case (his sacreBLEU 1.4.1 fork, test_deltableu.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import bleustats
from bleustats.engine import _options as options
from bleustats.metrics import tables as scoring
from bleustats.engine.stats import compute_stats

from ..conftest import data_path

# every test twice: on the plain-Python path and on the numba kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("either_path")


@pytest.fixture(scope="module")
def fixture():
    return json.loads(data_path("fixtures", "deltableu_galley2019.json").read_text("utf-8"))


def fixture_refs(fx):
    texts = [[r["text"] for r in seg["references"]] for seg in fx["segments"]]
    weights = [[r["weight"] for r in seg["references"]] for seg in fx["segments"]]
    return texts, weights


@pytest.mark.parametrize("definition", ["paper", "galley2019"])
@pytest.mark.parametrize("system", ["system1", "system2"])
def test_published_toy_case(fixture, system, definition):
    texts, weights = fixture_refs(fixture)
    hyps = fixture["systems"][system]["hypotheses"]
    want = fixture["systems"][system]["expected"]
    st = compute_stats(hyps, texts, ref_weights=weights, references_layout="segments",
                       delta_definition=definition)
    delta = scoring.corpus_score(st, metric="delta_bleu")
    exp = want["delta_bleu"]
    # raw weighted statistics exactly (the fixture says both definitions agree here)
    np.testing.assert_allclose(delta.stats["wmatch"], exp["signed_numerators"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(delta.stats["wtotal"], exp["denominators"], rtol=0, atol=1e-12)
    assert round(delta.score, 2) == exp["score_2dp"]
    assert [round(p, 1) for p in delta.precisions] == exp["precisions_1dp"]
    assert (delta.sys_len, delta.ref_len) == (exp["hyp_len"], exp["ref_len"])
    bleu = scoring.corpus_score(st, metric="bleu")
    assert round(bleu.score, 2) == want["bleu_all_weights_1"]["score_2dp"]
    assert [round(p, 1) for p in bleu.precisions] == want["bleu_all_weights_1"]["precisions_1dp"]


def test_drop_in_with_weights_defaults_to_delta_bleu(fixture):
    texts, weights = fixture_refs(fixture)
    hyps = fixture["systems"]["system2"]["hypotheses"]
    result = bleustats.corpus_bleu(hyps, texts, ref_weights=weights, references_layout="segments")
    assert result.name == "ΔBLEU" and round(result.score, 2) == 7.14
    assert "metric:delta_bleu" in str(result.signature) and "w:custom" in str(result.signature)


def test_definitions_differ_exactly_where_the_fixture_says(fixture):
    case = fixture["definitions_differ_case"]
    refs = [[r["text"] for r in case["references"]]]
    w = [[r["weight"] for r in case["references"]]]
    for definition, want in case["unigram_numerator"].items():
        st = compute_stats([case["hypothesis"]], refs, ref_weights=w, tokenize="none", max_ngram_order=1,
                           references_layout="segments", delta_definition=definition)
        assert st.column("wmatch_1").tolist() == [want]
        assert st.column("wtotal_1").tolist() == [case["unigram_denominator"]]
        assert st.delta_definition == definition


def test_all_weights_one_equals_bleu_exactly():
    hyps = ["the cat sat on the mat .", "a b a b a", "", "x"]
    refs = [["the cat is on the mat .", "a b a", "y", "x y"], ["there is a cat on the mat", "b a b", "", "x"]]
    st = compute_stats(hyps, refs, ref_weights=[[1.0] * 4, [1.0] * 4])
    for n in range(1, 5):
        assert st.column(f"wmatch_{n}").tolist() == st.column(f"match_{n}").astype(float).tolist()
        assert st.column(f"wtotal_{n}").tolist() == st.column(f"total_{n}").astype(float).tolist()
    for sm in options.SMOOTH_METHODS:
        assert scoring.corpus_score(st, metric="delta_bleu", smooth_method=sm).score == \
            scoring.corpus_score(st, metric="bleu", smooth_method=sm).score
    np.testing.assert_array_equal(scoring.sentence_scores(st, metric="delta_bleu"), scoring.sentence_scores(st))


def test_copy_of_highest_weighted_reference_scores_100():
    refs = [[("a nice long sentence about cats", 0.4), ("a good long sentence about dogs here", 0.9),
             ("bad", -1.0)],
            [("short one here today", 1.0), ("short two here today", 0.2)]]
    best = ["a good long sentence about dogs here", "short one here today"]
    st = compute_stats(best, refs, references_layout="segments")
    assert scoring.corpus_score(st, metric="delta_bleu").score == pytest.approx(100.0, abs=1e-12)
    np.testing.assert_allclose(scoring.sentence_scores(st, metric="delta_bleu"), 100.0, atol=1e-12)


def test_negative_corpus_numerator_is_clamped_before_smoothing():
    # unigrams: was (+1), awful (-1), it (+1); bigrams: "was awful" only in the -1 reference
    st = compute_stats(["was awful it"], [[("it was great", 1.0), ("was awful", -1.0)]],
                       references_layout="segments", tokenize="none")
    assert st.column("wmatch_1").tolist() == [1.0]
    assert st.column("wmatch_2").tolist() == [-1.0]
    delta = scoring.corpus_score(st, metric="delta_bleu")
    assert delta.stats["wmatch"][1] == -1.0
    assert delta.counts[1] == 0.0
    # exp smoothing of a zero numerator: 1 / (2 * total)
    assert delta.precisions[1] == pytest.approx(100.0 / (2 * 2))


def test_reference_views():
    refs = [[("a b c", 1.0), ("a b d", 0.5), ("x y z", -0.5)]]
    hyp = ["x y z"]
    all_ = compute_stats(hyp, refs, references_layout="segments", tokenize="none")
    first = compute_stats(hyp, refs, references_layout="segments", tokenize="none", ref_view="first")
    thr = compute_stats(hyp, refs, references_layout="segments", tokenize="none", ref_view="threshold",
                        weight_threshold=0.5)
    assert all_.column("n_refs").tolist() == [3] and all_.column("match_1").tolist() == [3]
    assert first.column("n_refs").tolist() == [1] and first.column("match_1").tolist() == [0]
    assert thr.column("n_refs").tolist() == [2] and thr.column("ref_weight_max").tolist() == [1.0]
    assert "refs:w>=0.5" in str(scoring.corpus_score(thr).signature)
    with pytest.raises(ValueError, match=r"no reference in ref_view='threshold' \(weight >= 2"):
        compute_stats(hyp, refs, references_layout="segments", ref_view="threshold", weight_threshold=2.0)


def test_segment_without_positive_weight_is_named():
    st = compute_stats(["a", "b"], [[("a", 1.0)], [("b", 0.0), ("c", -0.3)]], references_layout="segments")
    assert scoring.corpus_score(st).score == pytest.approx(scoring.corpus_score(st).score)  # BLEU is fine
    with pytest.raises(ValueError, match=r"delta_bleu: 1 segment\(s\) have no reference with a positive weight "
                                         r"\(seg_id 1\)"):
        scoring.corpus_score(st, metric="delta_bleu")
    # a subset without that segment is fine
    subset = scoring.corpus_score(st, metric="delta_bleu", rows=[True, False])
    assert subset.sys_len == 1 and subset.stats["wmatch"][0] == 1.0
