"""Checks that the plain-Python twin (tests/twins/engine.py) is itself right.

1. Against sacreBLEU 2.6 (tokenize='none') on random token corpora: segment
   counts / totals / lengths, and the corpus formula for every smoothing method
   with and without effective order.
2. Against the ΔBLEU fixture published by the first author of the ΔBLEU paper
   (raw weighted statistics and scores).
3. Algebraic properties of the weighted statistics (all weights 1 gives BLEU, ...).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from ..conftest import SHARED, VENDORED, examples
from ..twins.engine import (
    DEFINITIONS,
    closest_ref_len,
    delta_bleu_corpus_counts,
    reference_compute_bleu,
    reference_corpus_bleu,
    reference_corpus_delta_bleu,
    reference_segment_stats,
)

assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__

# ../shared's copy, or the one vendored in tests/data where ../shared is absent
GALLEY_FIXTURE = next((p for p in (root / "fixtures" / "deltableu_galley2019.json" for root in (SHARED, VENDORED))
                       if p.is_file()), SHARED / "fixtures" / "deltableu_galley2019.json")

SMOOTH_METHODS = ("none", "floor", "add-k", "exp")

# Small vocabularies make repeated n-grams (and hence clipping) frequent; the
# unicode tokens check that nothing assumes ASCII.  No token contains whitespace.
VOCAB = ["a", "b", "c", "d", "e", "é", "中文", "ß", "🙂", "x.y"]

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------


def token_lists(max_len=12, vocab=VOCAB):
    return st.lists(st.sampled_from(vocab), min_size=0, max_size=max_len)


@st.composite
def corpora(draw, max_segments=5, max_refs=4, max_len=12):
    """(hyps, refs): hyps[i] a token list, refs[i] a non-empty list of token lists."""
    vocab_size = draw(st.integers(min_value=1, max_value=len(VOCAB)))
    vocab = VOCAB[:vocab_size]
    n_seg = draw(st.integers(min_value=1, max_value=max_segments))
    hyps, refs = [], []
    for _ in range(n_seg):
        hyps.append(draw(token_lists(max_len, vocab)))
        n_refs = draw(st.integers(min_value=1, max_value=max_refs))
        refs.append([draw(token_lists(max_len, vocab)) for _ in range(n_refs)])
    return hyps, refs


def to_sacrebleu_streams(refs):
    """Per-segment reference lists -> sacreBLEU reference streams, padded with None."""
    width = max(len(r) for r in refs)
    return [
        [" ".join(seg_refs[k]) if k < len(seg_refs) else None for seg_refs in refs]
        for k in range(width)
    ]


def sacrebleu_segment_stats(hyps, refs, max_order):
    bleu = BLEU(tokenize="none", max_ngram_order=max_order, force=True)
    stats = bleu._extract_corpus_statistics([" ".join(h) for h in hyps], to_sacrebleu_streams(refs))
    return bleu, stats


# --------------------------------------------------------------------------
# 1. Against sacreBLEU
# --------------------------------------------------------------------------


@FAST
@given(data=corpora(), max_order=st.integers(min_value=1, max_value=9))
def test_segment_counts_match_sacrebleu(data, max_order):
    hyps, refs = data
    bleu, sb_stats = sacrebleu_segment_stats(hyps, refs, max_order)
    for hyp, seg_refs, sb in zip(hyps, refs, sb_stats):
        ours = reference_segment_stats(hyp, seg_refs, [1.0] * len(seg_refs), max_order)
        assert ours["hyp_len"] == sb[0]
        assert ours["ref_len_closest"] == sb[1]
        assert [ours[f"match_{n}"] for n in range(1, max_order + 1)] == list(sb[2 : 2 + max_order])
        assert [ours[f"total_{n}"] for n in range(1, max_order + 1)] == list(sb[2 + max_order :])
        assert all(type(ours[f"match_{n}"]) is int for n in range(1, max_order + 1))
        assert all(type(ours[f"total_{n}"]) is int for n in range(1, max_order + 1))
        # The other length statistics, from first principles.
        lens = [len(r) for r in seg_refs]
        assert ours["ref_len_shortest"] == min(lens)
        assert ours["ref_len_average"] == pytest.approx(sum(lens) / len(lens), rel=1e-15)
        assert ours["n_refs"] == len(seg_refs)
        assert ours["ref_weight_max"] == 1.0


@FAST
@given(
    data=corpora(),
    max_order=st.integers(min_value=1, max_value=9),
    smooth_method=st.sampled_from(SMOOTH_METHODS),
    effective_order=st.booleans(),
)
def test_corpus_bleu_matches_sacrebleu(data, max_order, smooth_method, effective_order):
    hyps, refs = data
    bleu = BLEU(
        tokenize="none",
        max_ngram_order=max_order,
        smooth_method=smooth_method,
        effective_order=effective_order,
        force=True,
    )
    expected = bleu.corpus_score([" ".join(h) for h in hyps], to_sacrebleu_streams(refs))
    seg = [reference_segment_stats(h, r, [1.0] * len(r), max_order) for h, r in zip(hyps, refs)]
    ours = reference_corpus_bleu(seg, max_order, smooth_method, None, effective_order)
    assert sum(s["hyp_len"] for s in seg) == expected.sys_len
    assert sum(s["ref_len_closest"] for s in seg) == expected.ref_len
    assert ours.score == pytest.approx(expected.score, rel=1e-9, abs=1e-9)
    assert ours.bp == pytest.approx(expected.bp, rel=1e-12, abs=1e-12)
    assert ours.precisions == pytest.approx(expected.precisions, rel=1e-12, abs=1e-12)


@FAST
@given(data=corpora(max_segments=1), max_order=st.integers(min_value=1, max_value=9))
def test_sentence_bleu_matches_sacrebleu(data, max_order):
    hyps, refs = data
    bleu = BLEU(tokenize="none", max_ngram_order=max_order, effective_order=True, force=True)
    expected = bleu.sentence_score(" ".join(hyps[0]), [" ".join(r) for r in refs[0]])
    seg = reference_segment_stats(hyps[0], refs[0], [1.0] * len(refs[0]), max_order)
    ours = reference_corpus_bleu([seg], max_order, "exp", None, effective_order=True)
    assert ours.score == pytest.approx(expected.score, rel=1e-9, abs=1e-9)


@st.composite
def bleu_sufficient_stats(draw):
    """Random (correct, total, sys_len, ref_len, N) with correct_n <= total_n."""
    max_order = draw(st.integers(min_value=1, max_value=9))
    sys_len = draw(st.integers(min_value=0, max_value=60))
    ref_len = draw(st.integers(min_value=0, max_value=60))
    total = [max(0, sys_len - n + 1) for n in range(1, max_order + 1)]
    # Sometimes leave the totals unrelated to sys_len, as a corpus of short lines does.
    if draw(st.booleans()):
        total = sorted(
            (draw(st.integers(min_value=0, max_value=60)) for _ in range(max_order)), reverse=True
        )
    correct = [draw(st.integers(min_value=0, max_value=t)) for t in total]
    return correct, total, sys_len, ref_len, max_order


@settings(max_examples=examples(200), deadline=None)
@given(
    stats=bleu_sufficient_stats(),
    smooth_method=st.sampled_from(SMOOTH_METHODS),
    smooth_value=st.one_of(st.none(), st.floats(min_value=0.01, max_value=2.0)),
    effective_order=st.booleans(),
)
def test_compute_bleu_matches_sacrebleu(stats, smooth_method, smooth_value, effective_order):
    correct, total, sys_len, ref_len, max_order = stats
    # sacreBLEU mutates its lists for add-k: give it copies.
    expected = BLEU.compute_bleu(
        list(correct), list(total), sys_len, ref_len, smooth_method, smooth_value,
        effective_order, max_order,
    )
    before = (list(correct), list(total))
    ours = reference_compute_bleu(
        correct, total, sys_len, ref_len, smooth_method, smooth_value, effective_order, max_order
    )
    assert (correct, total) == before  # the twin does not mutate its inputs
    score, precisions, bp = ours  # unpacks like a tuple
    assert score == pytest.approx(expected.score, rel=1e-9, abs=1e-9)
    assert bp == pytest.approx(expected.bp, rel=1e-12, abs=1e-12)
    assert precisions == pytest.approx(expected.precisions, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("smooth_method", SMOOTH_METHODS)
@pytest.mark.parametrize("effective_order", [False, True])
def test_compute_bleu_edge_cases(smooth_method, effective_order):
    cases = [
        ([0, 0, 0, 0], [5, 4, 3, 2], 5, 5),  # no match at all: early return
        ([3, 0, 0, 0], [3, 2, 1, 0], 3, 7),  # short hypothesis, zero totals at n=4
        ([1, 0, 0, 0], [1, 0, 0, 0], 1, 1),  # one-token hypothesis
        ([2, 1, 0, 0], [4, 3, 2, 1], 0, 4),  # sys_len 0 => bp 0 (synthetic)
        ([4, 3, 2, 1], [4, 3, 2, 1], 4, 3),  # perfect, longer than reference
    ]
    for correct, total, sys_len, ref_len in cases:
        expected = BLEU.compute_bleu(
            list(correct), list(total), sys_len, ref_len, smooth_method, None, effective_order, 4
        )
        ours = reference_compute_bleu(
            correct, total, sys_len, ref_len, smooth_method, None, effective_order, 4
        )
        assert ours.score == pytest.approx(expected.score, rel=1e-9, abs=1e-9)
        assert ours.precisions == pytest.approx(expected.precisions, rel=1e-12, abs=1e-12)
        assert ours.bp == pytest.approx(expected.bp, rel=1e-12, abs=1e-12)


def test_closest_ref_len_ties_go_to_shorter():
    assert closest_ref_len(5, [6, 4]) == 4
    assert closest_ref_len(5, [4, 6]) == 4
    assert closest_ref_len(5, [7, 3, 5]) == 5
    assert closest_ref_len(0, [2, 1, 3]) == 1
    bleu = BLEU(tokenize="none")
    for hyp_len, lens in [(5, [6, 4]), (5, [4, 6]), (2, [0, 4, 1, 3]), (9, [1, 2])]:
        assert closest_ref_len(hyp_len, lens) == bleu._get_closest_ref_len(hyp_len, lens)


# --------------------------------------------------------------------------
# 2. The published ΔBLEU fixture
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def galley():
    if not GALLEY_FIXTURE.is_file():
        pytest.skip(f"ΔBLEU fixture not found at {GALLEY_FIXTURE} (shared/fixtures missing)")
    return json.loads(GALLEY_FIXTURE.read_text(encoding="utf-8"))


def _tok13a(text):
    return Tokenizer13a()(text).split()


def _fixture_segment_stats(fixture, system, definition, all_weights_one=False, max_order=4):
    hyps = fixture["systems"][system]["hypotheses"]
    out = []
    for hyp, seg in zip(hyps, fixture["segments"]):
        refs = [_tok13a(r["text"]) for r in seg["references"]]
        weights = [1.0 if all_weights_one else float(r["weight"]) for r in seg["references"]]
        out.append(reference_segment_stats(_tok13a(hyp), refs, weights, max_order, definition))
    return out


@pytest.mark.parametrize("system", ["system1", "system2"])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_galley_fixture_raw_weighted_statistics(galley, system, definition):
    expected = galley["systems"][system]["expected"]["delta_bleu"]
    seg = _fixture_segment_stats(galley, system, definition)
    numerators, denominators = delta_bleu_corpus_counts(seg, 4)
    for ours, exp in zip(numerators, expected["signed_numerators"]):
        assert ours == pytest.approx(exp, abs=1e-12)
    for ours, exp in zip(denominators, expected["denominators"]):
        assert ours == pytest.approx(exp, abs=1e-12)
    assert sum(s["hyp_len"] for s in seg) == expected["hyp_len"]
    assert sum(s["ref_len_closest"] for s in seg) == expected["ref_len"]


@pytest.mark.parametrize("system", ["system1", "system2"])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_galley_fixture_delta_bleu_score(galley, system, definition):
    expected = galley["systems"][system]["expected"]["delta_bleu"]
    seg = _fixture_segment_stats(galley, system, definition)
    result = reference_corpus_delta_bleu(seg, 4, smooth_method="exp")
    assert round(result.score, 2) == expected["score_2dp"]
    assert [round(p, 1) for p in result.precisions] == expected["precisions_1dp"]


@pytest.mark.parametrize("system", ["system1", "system2"])
def test_galley_fixture_bleu_all_weights_one(galley, system):
    expected = galley["systems"][system]["expected"]["bleu_all_weights_1"]
    # ΔBLEU with every weight 1 ...
    seg = _fixture_segment_stats(galley, system, "paper", all_weights_one=True)
    delta = reference_corpus_delta_bleu(seg, 4, smooth_method="exp")
    # ... equals plain BLEU ...
    plain = reference_corpus_bleu(seg, 4, smooth_method="exp")
    # ... equals sacreBLEU's own corpus BLEU with the 13a tokenizer.
    hyps = galley["systems"][system]["hypotheses"]
    ref_streams = [
        [seg_["references"][k]["text"] for seg_ in galley["segments"]]
        for k in range(len(galley["segments"][0]["references"]))
    ]
    sb = BLEU(tokenize="13a", smooth_method="exp").corpus_score(hyps, ref_streams)
    for result in (delta, plain):
        assert round(result.score, 2) == expected["score_2dp"]
        assert [round(p, 1) for p in result.precisions] == expected["precisions_1dp"]
        assert result.score == pytest.approx(sb.score, rel=1e-12)
    assert round(sb.score, 2) == expected["score_2dp"]
    assert sb.sys_len == expected["hyp_len"] and sb.ref_len == expected["ref_len"]


def test_galley_fixture_definitions_differ_case(galley):
    case = galley["definitions_differ_case"]
    hyp = case["hypothesis"].split()
    refs = [r["text"].split() for r in case["references"]]
    weights = [float(r["weight"]) for r in case["references"]]
    for definition in DEFINITIONS:
        s = reference_segment_stats(hyp, refs, weights, 1, definition)
        assert s["wmatch_1"] == pytest.approx(case["unigram_numerator"][definition], abs=1e-12)
        assert s["wtotal_1"] == pytest.approx(case["unigram_denominator"], abs=1e-12)


def test_definitions_differ_hand_example():
    """The brief's own check, independent of the fixture file."""
    paper = reference_segment_stats(["a", "a"], [["a"], ["a", "a"]], [1.0, -0.5], 2, "paper")
    g19 = reference_segment_stats(["a", "a"], [["a"], ["a", "a"]], [1.0, -0.5], 2, "galley2019")
    assert paper["wmatch_1"] == 1.0  # max(1·min(2,1), -0.5·min(2,2))
    assert g19["wmatch_1"] == 2.0  # min(2, max(1,2)) · max(1, -0.5)
    assert paper["wtotal_1"] == g19["wtotal_1"] == 2.0  # 2 · max(1, -0.5)
    # Bigram "a a" is only in the second reference (weight -0.5).
    assert paper["wmatch_2"] == -0.5  # -0.5 · min(1, 1)
    assert g19["wmatch_2"] == -0.5  # min(1, 1) · -0.5
    assert paper["wtotal_2"] == 1.0
    assert paper["match_1"] == 2 and paper["match_2"] == 1


def test_ngram_in_no_reference_adds_nothing():
    s = reference_segment_stats(["z", "a"], [["a"]], [0.5], 2, "paper")
    assert s["wmatch_1"] == 0.5 and s["wtotal_1"] == 1.0
    assert s["wmatch_2"] == 0.0 and s["wtotal_2"] == 0.5


# --------------------------------------------------------------------------
# 3. Properties of the weighted statistics
# --------------------------------------------------------------------------


@st.composite
def weighted_segments(draw):
    vocab = VOCAB[: draw(st.integers(min_value=1, max_value=5))]
    hyp = draw(token_lists(15, vocab))
    n_refs = draw(st.integers(min_value=1, max_value=5))
    refs = [draw(token_lists(15, vocab)) for _ in range(n_refs)]
    weights = [draw(st.floats(min_value=-1.0, max_value=1.0)) for _ in range(n_refs)]
    return hyp, refs, weights


@FAST
@given(seg=weighted_segments(), max_order=st.integers(min_value=1, max_value=6))
def test_all_weights_one_gives_bleu_counts(seg, max_order):
    hyp, refs, _ = seg
    for definition in DEFINITIONS:
        s = reference_segment_stats(hyp, refs, [1.0] * len(refs), max_order, definition)
        for n in range(1, max_order + 1):
            assert s[f"wmatch_{n}"] == s[f"match_{n}"]
            assert s[f"wtotal_{n}"] == s[f"total_{n}"]


@FAST
@given(
    seg=weighted_segments(),
    max_order=st.integers(min_value=1, max_value=6),
    c=st.floats(min_value=0.01, max_value=1.0),
)
def test_weighted_statistics_properties(seg, max_order, c):
    hyp, refs, weights = seg
    for definition in DEFINITIONS:
        s = reference_segment_stats(hyp, refs, weights, max_order, definition)
        # Scaling all weights by c > 0 scales every weighted statistic by c.
        scaled = reference_segment_stats(hyp, refs, [c * w for w in weights], max_order, definition)
        # A constant weight c > 0 gives c times the BLEU counts.
        const = reference_segment_stats(hyp, refs, [c] * len(refs), max_order, definition)
        assert s["ref_weight_max"] == max(weights)
        for n in range(1, max_order + 1):
            assert s[f"wtotal_{n}"] == pytest.approx(s[f"total_{n}"] * max(weights), rel=1e-12)
            assert scaled[f"wmatch_{n}"] == pytest.approx(c * s[f"wmatch_{n}"], rel=1e-9, abs=1e-12)
            assert scaled[f"wtotal_{n}"] == pytest.approx(c * s[f"wtotal_{n}"], rel=1e-9, abs=1e-12)
            assert const[f"wmatch_{n}"] == pytest.approx(c * s[f"match_{n}"], rel=1e-12)
            # |wmatch| can never exceed the number of matched n-grams times max |w|.
            assert abs(s[f"wmatch_{n}"]) <= s[f"match_{n}"] * max(abs(w) for w in weights) + 1e-12
    # With non-negative weights the paper's numerator never exceeds the 2019 one.
    nonneg = [abs(w) for w in weights]
    p = reference_segment_stats(hyp, refs, nonneg, max_order, "paper")
    g = reference_segment_stats(hyp, refs, nonneg, max_order, "galley2019")
    for n in range(1, max_order + 1):
        assert p[f"wmatch_{n}"] <= g[f"wmatch_{n}"] + 1e-12
        assert p[f"match_{n}"] == g[f"match_{n}"] and p[f"total_{n}"] == g[f"total_{n}"]


def test_single_reference_definitions_agree():
    """With one reference both definitions reduce to w · match_n."""
    hyp = "a b a b c".split()
    ref = "a b a c c b".split()
    for w in (1.0, 0.3, -0.7, 0.0):
        p = reference_segment_stats(hyp, [ref], [w], 3, "paper")
        g = reference_segment_stats(hyp, [ref], [w], 3, "galley2019")
        for n in (1, 2, 3):
            assert p[f"wmatch_{n}"] == pytest.approx(w * p[f"match_{n}"], abs=1e-15)
            assert g[f"wmatch_{n}"] == pytest.approx(w * g[f"match_{n}"], abs=1e-15)


def test_invalid_arguments():
    with pytest.raises(ValueError):
        reference_segment_stats(["a"], [["a"]], [1.0], 4, "nope")
    with pytest.raises(ValueError):
        reference_segment_stats(["a"], [["a"]], [1.0, 2.0], 4)
    with pytest.raises(ValueError):
        reference_segment_stats(["a"], [], [], 4)
