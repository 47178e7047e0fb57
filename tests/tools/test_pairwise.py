"""Pairwise sentence scores (bleustats.tools.pairwise) against sacreBLEU 2.6's sentence_score, pair by pair.

Every expected number is sacreBLEU's ``Metric(...).sentence_score(h, [r]).score``
computed in the test (chrF / chrF++ with its options, BLEU with
``effective_order=True``, TER), or, for sentence-BLEU variants sacreBLEU lacks,
bleustats' own per-segment pipeline (``compute_stats`` + ``score_variant``) on
the same pair. Inputs: hypothesis-generated candidate lists over an alphabet
with repeated n-grams, punctuation, unicode and exotic whitespace, plus empty
strings, identical candidates and a single candidate.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402

from bleustats.engine.stats import compute_stats  # noqa: E402
from bleustats.errors import InputError  # noqa: E402
from bleustats.metrics.sentence import score_variant  # noqa: E402
from bleustats.tools.pairwise import pairwise_batch, pairwise_scores, pairwise_scores_batched, utility  # noqa: E402
from ..conftest import examples  # noqa: E402

pytestmark = pytest.mark.usefixtures("numba_one_thread")

ALPHABET = list("aab bc  ") + list(".,'-") + ["é", "ß", "中", "İ", "Σ", "🙂", "\u00a0", "\u3000", "\t"]
word = st.text(alphabet=st.sampled_from(ALPHABET), max_size=20)
candidates = st.lists(word, min_size=1, max_size=6)
SETTINGS = settings(max_examples=examples(25), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
EDGE = [
    ["", "", "a"],
    ["the cat sat on the mat .", "the cat sat on the mat .", "a cat", ""],
    ["only one"],
    ["Füße über 🙂 straße!", "FÜSSE über straße", "中文 测试 。", "ΣΑΣ σας"],
    ["a a a a a a a a", "a", "(a) a, a."],
]


def oracle(metric, hyps, refs):
    return np.array([[metric.sentence_score(h, [r]).score for r in refs] for h in hyps])


def check(got, want):
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


CHRF_OPTIONS = [dict(), dict(word_order=2), dict(char_order=4, word_order=1, beta=1, lowercase=True),
                dict(whitespace=True, eps_smoothing=True), dict(word_order=2, beta=3, eps_smoothing=True),
                dict(char_order=0, word_order=2)]


@pytest.mark.parametrize("opts", CHRF_OPTIONS)
@pytest.mark.parametrize("cands", EDGE)
def test_chrf_edge(opts, cands):
    check(pairwise_scores(cands, cands, metric="chrf", **opts), oracle(CHRF(**opts), cands, cands))


@SETTINGS
@given(candidates, candidates, st.sampled_from(CHRF_OPTIONS))
def test_chrf_random(hyps, refs, opts):
    check(pairwise_scores(hyps, refs, metric="chrf", **opts), oracle(CHRF(**opts), hyps, refs))


BLEU_OPTIONS = [dict(), dict(tokenize="none"), dict(tokenize="intl", lowercase=True), dict(tokenize="char"),
                dict(smooth_method="floor", smooth_value=0.2), dict(smooth_method="add-k"),
                dict(smooth_method="none"), dict(max_ngram_order=2, tokenize="zh")]


def sacre_bleu(opts):
    o = dict(opts)
    return BLEU(effective_order=True, **o)


@pytest.mark.parametrize("opts", BLEU_OPTIONS)
@pytest.mark.parametrize("cands", EDGE)
def test_bleu_edge(opts, cands):
    check(pairwise_scores(cands, cands, metric="bleu", **opts), oracle(sacre_bleu(opts), cands, cands))


@SETTINGS
@given(candidates, candidates, st.sampled_from(BLEU_OPTIONS))
def test_bleu_random(hyps, refs, opts):
    check(pairwise_scores(hyps, refs, metric="bleu", **opts), oracle(sacre_bleu(opts), hyps, refs))


TER_OPTIONS = [dict(), dict(normalized=True, case_sensitive=True), dict(no_punct=True, asian_support=True)]


@pytest.mark.parametrize("opts", TER_OPTIONS)
@pytest.mark.parametrize("cands", EDGE)
def test_ter_edge(opts, cands):
    check(pairwise_scores(cands, cands, metric="ter", **opts), oracle(TER(**opts), cands, cands))


@SETTINGS
@given(candidates, candidates)
def test_ter_random(hyps, refs):
    check(pairwise_scores(hyps, refs, metric="ter"), oracle(TER(), hyps, refs))


@pytest.mark.parametrize("name", ["bleu+1", "lin-och", "nakov:bp-smoothed,pc-grounded", "chen-cherry:5",
                                  "chen-cherry:7", "sacrebleu:floor"])
@pytest.mark.parametrize("cands", EDGE[:3] + [EDGE[4]])
def test_variants_equal_registry_pipeline(name, cands):
    got = pairwise_scores(cands, cands, metric=name, tokenize="13a")
    order = 5 if name.startswith("chen-cherry:") and name[-1] in "57" else 4
    want = np.array([[score_variant(compute_stats([h], [[r]], tokenize="13a", max_ngram_order=order), name,
                                    max_ngram_order=4)[0] for r in cands] for h in cands])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_batched_equals_single_and_separate_references():
    hyps = [["a b c", "a b", ""], ["x"], ["p q r s", "p q"]]
    refs = [["a b c d", "z"], ["x", "x y"], ["q r"]]
    for metric in ("chrf++", "bleu", "ter"):
        got = list(pairwise_scores_batched(hyps, refs, metric=metric, batch_pairs=3))
        want = [pairwise_scores(h, r, metric=metric) for h, r in zip(hyps, refs)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        self_got = list(pairwise_scores_batched(hyps, metric=metric, batch_pairs=1))
        for g, h in zip(self_got, hyps):
            np.testing.assert_array_equal(g, pairwise_scores(h, h, metric=metric))


def aggregate_chrf_oracle(hyps, refs, opts):
    """chrF against summed reference counts, from sacreBLEU's own n-gram helpers (fastchrf's definition)."""
    from collections import Counter

    from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams
    metric = CHRF(**opts)
    m = len(refs)

    def grams(s):
        s = metric._preprocess_segment(s)
        out = extract_all_char_ngrams(s, metric.char_order, metric.whitespace)
        if metric.word_order:
            words = metric._remove_punctuation(s)
            out += [extract_word_ngrams(words, n) for n in range(1, metric.word_order + 1)]
        return out

    pooled = None
    for r in refs:
        g = grams(r)
        pooled = g if pooled is None else [a + b for a, b in zip(pooled, g)]
    scores = []
    for h in hyps:
        stats = []
        for hc, rc in zip(grams(h), pooled):
            hc = Counter({k: v * m for k, v in hc.items()})
            n_ref = sum(rc.values())
            if n_ref == 0:
                stats += [0, 0, 0]
            else:
                stats += [sum(hc.values()), n_ref, sum((hc & rc).values())]
        scores.append(metric._compute_f_score(stats))
    return np.array(scores)


@pytest.mark.parametrize("opts", CHRF_OPTIONS)
@pytest.mark.parametrize("cands", EDGE)
def test_aggregate_chrf(opts, cands):
    u = utility("chrf", **opts)
    got = pairwise_batch(cands, None, np.array([0, len(cands)]), None, u, aggregate=True)
    np.testing.assert_allclose(got, aggregate_chrf_oracle(cands, cands, opts), rtol=0, atol=1e-9)


def test_aggregate_bleu_with_one_reference_is_sentence_bleu():
    # one pseudo-reference: pooled statistics are that reference's own
    hyps = ["the cat sat", "a cat", ""]
    u = utility("bleu")
    got = pairwise_batch(hyps, ["the cat sat on it"], np.array([0, 3]), np.array([0, 1]), u, aggregate=True)
    check(got, oracle(sacre_bleu({}), hyps, ["the cat sat on it"])[:, 0])


def test_aggregate_bleu_averages_counts():
    # refs "a b" and "a c": pooled a:2, b:1, c:1, ab:1, ac:1 over M=2 -> hyp "a b": m1 = (min(2,2)+min(2,1))/2 = 1.5,
    # m2 = min(2,1)/2 = 0.5; totals 2, 1; mean ref length 2
    u = utility("bleu", tokenize="none")
    got = pairwise_batch(["a b"], ["a b", "a c"], np.array([0, 1]), np.array([0, 2]), u, aggregate=True)
    want = 100 * np.exp((np.log(1.5 / 2) + np.log(0.5 / 1)) / 2)
    assert got[0] == pytest.approx(want, abs=1e-12)


def test_errors():
    with pytest.raises(InputError, match="metric must be one of"):
        utility("bleurt")
    with pytest.raises(InputError, match="unknown option"):
        utility("chrf", tokenize="13a")
    with pytest.raises(InputError, match="tokenize must be one of"):
        utility("bleu", tokenize="14a")
    with pytest.raises(InputError, match=r"hypotheses\[1\] must be a str"):
        pairwise_scores(["a", None], ["b"])
    with pytest.raises(InputError, match="TER has no pooled form"):
        pairwise_batch(["a"], None, np.array([0, 1]), None, utility("ter"), aggregate=True)


@pytest.mark.parametrize("opts", CHRF_OPTIONS[:3])
def test_aggregate_chrf_exclude_self_pools_the_others(opts):
    cands = EDGE[1] + ["a cat sat"]
    u = utility("chrf", **opts)
    got = pairwise_batch(cands, None, np.array([0, len(cands)]), None, u, aggregate=True, exclude_self=True)
    want = [aggregate_chrf_oracle([h], cands[:i] + cands[i + 1:], opts)[0] for i, h in enumerate(cands)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_aggregate_bleu_exclude_self():
    cands = ["the cat sat", "a cat sat on", "the dog"]
    u = utility("bleu", tokenize="none")
    got = pairwise_batch(cands, None, np.array([0, 3]), None, u, aggregate=True, exclude_self=True)
    for i, h in enumerate(cands):
        others = cands[:i] + cands[i + 1:]
        want = pairwise_batch([h], others, np.array([0, 1]), np.array([0, 2]), u, aggregate=True)
        assert got[i] == want[0]
