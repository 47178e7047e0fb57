"""TER scores from statistics: the formula, the result object, and properties of the statistics.

Text and JSON layouts are compared with sacreBLEU 2.6's ``TERScore``; the
numbers themselves are checked against sacreBLEU in ``test_ter_oracle.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.ter import TERScore as SacreTERScore

from bleustats.engine.ter_stats import ter_statistics
from bleustats.errors import InputError
from bleustats.metrics.ter import TERScore, corpus_ter, sentence_ter, ter_from_sums
from ..conftest import examples

# --------------------------------------------------------------------------- formula


def test_ter_from_sums_cases_and_shapes():
    assert ter_from_sums([3, 8]) == 37.5
    assert ter_from_sums([2, 0]) == 100.0  # edits against empty references
    assert ter_from_sums([0, 0]) == 0.0  # nothing against nothing
    np.testing.assert_array_equal(ter_from_sums([[1, 4], [0, 0], [5, 0]]), [25.0, 0.0, 100.0])
    assert ter_from_sums(np.ones((3, 4, 2))).shape == (3, 4)


@pytest.mark.parametrize("bad", [5.0, [1, 2, 3], np.ones((2, 3))])
def test_ter_from_sums_bad_shape(bad):
    with pytest.raises(InputError, match=r"stats must have 2 columns \(num_edits, ref_length\)"):
        ter_from_sums(bad)


def test_ter_from_sums_bit_identical_to_sacrebleu_formula():
    rng = np.random.default_rng(0)
    rows = np.c_[rng.integers(0, 50, 200), rng.integers(1, 90, 200) / rng.integers(1, 5, 200)]
    expect = [100 * (e / r) for e, r in rows]  # sacreBLEU: 100 * (edits / ref_length)
    assert ter_from_sums(rows).tolist() == expect


# --------------------------------------------------------------------------- result object


@pytest.mark.parametrize("score,edits,ref_len", [(12.3456, 2, 16.2), (0.0, 0, 0.0), (100.0, 3, 0.0)])
def test_score_text_matches_sacrebleu(score, edits, ref_len):
    ours = TERScore(score, edits, ref_len)
    theirs = SacreTERScore(score, edits, ref_len)
    sig = "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"
    assert str(ours) == str(theirs) and repr(ours) == repr(theirs)
    for width in (0, 1, 2, 4):
        assert ours.format(width=width) == theirs.format(width=width)
        assert ours.format(width=width, score_only=True) == theirs.format(width=width, score_only=True)
        assert ours.format(width=width, signature=sig) == theirs.format(width=width, signature=sig)
        assert ours.format(width=width, signature=sig, is_json=True) == theirs.format(
            width=width, signature=sig, is_json=True)
    assert (ours.score, ours.num_edits, ours.ref_length, ours.name) == (
        theirs.score, theirs.num_edits, theirs.ref_length, theirs.name)


def test_json_without_signature_and_to_dict():
    s = corpus_ter(["a b"], [["a c"]])
    assert json.loads(s.format(is_json=True)) == {"name": "TER", "score": 50.0, "signature": ""}
    d = json.loads(json.dumps(s.to_dict()))
    assert d["num_edits"] == 1 and d["ref_length"] == 2.0 and d["signature"].startswith("nrefs:1|case:lc")
    assert d["stats"] == {"num_edits": 1.0, "ref_length": 2.0, "n_segments": 1}


def test_sentence_ter_bad_input():
    with pytest.raises(InputError, match=r"hypothesis must be a str; got list"):
        sentence_ter(["a"], ["a"])
    with pytest.raises(InputError, match=r"references must be a list of str .* got str 'a'"):
        sentence_ter("a", "a")
    with pytest.raises(InputError, match=r"no reference"):
        sentence_ter("a", [None])


# --------------------------------------------------------------------------- properties

WORDS = ["a", "b", "c", "d", "the", "The", "é", "日本", ".", ","]
lines = st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join)


@st.composite
def corpora(draw):
    n = draw(st.integers(1, 8))
    k = draw(st.integers(1, 3))
    return [draw(lines) for _ in range(n)], [[draw(lines) for _ in range(n)] for _ in range(k)]


PROPS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(corpora(), st.randoms())
def test_segment_order_does_not_change_the_score(data, rnd):
    hyps, refs = data
    order = list(range(len(hyps)))
    rnd.shuffle(order)
    a = corpus_ter(hyps, refs)
    b = corpus_ter([hyps[i] for i in order], [[r[i] for i in order] for r in refs])
    assert a.num_edits == b.num_edits and a.ref_length == pytest.approx(b.ref_length, rel=1e-12)
    assert a.score == pytest.approx(b.score, rel=1e-12)


@PROPS
@given(corpora(), corpora())
def test_statistics_are_additive(one, two):
    """Statistics of two corpora scored apart are the rows of the two scored together."""
    (h1, r1), (h2, r2) = one, two
    k = min(len(r1), len(r2))
    joined = ter_statistics(h1 + h2, [a + b for a, b in zip(r1[:k], r2[:k])])
    apart = np.vstack([ter_statistics(h1, r1[:k]), ter_statistics(h2, r2[:k])])
    np.testing.assert_array_equal(joined, apart)


@PROPS
@given(corpora(), st.data())
def test_bounds_and_exact_match(data, draw):
    hyps, refs = data
    stats = ter_statistics(hyps, refs)
    lengths = np.array([[len(r[i].lower().split()) for r in refs] for i in range(len(hyps))])
    hyp_len = np.array([len(h.split()) for h in hyps])
    assert (stats[:, 0] >= 0).all() and (stats[:, 0] == np.round(stats[:, 0])).all()
    # never more edits than deleting the hypothesis and inserting the shortest reference
    assert (stats[:, 0] <= hyp_len + lengths.min(axis=1)).all()
    np.testing.assert_allclose(stats[:, 1], lengths.mean(axis=1), rtol=1e-12)
    # a hypothesis equal to one of its references needs no edit
    k = draw.draw(st.integers(0, len(refs) - 1))
    assert (ter_statistics(refs[k], refs)[:, 0] == 0).all()


@PROPS
@given(corpora())
def test_sentence_scores_are_rows_of_the_statistics(data):
    hyps, refs = data
    rows = ter_from_sums(ter_statistics(hyps, refs))
    for i, h in enumerate(hyps):
        assert sentence_ter(h, [r[i] for r in refs]).score == rows[i]
