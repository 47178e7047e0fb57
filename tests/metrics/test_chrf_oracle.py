"""chrF / chrF++ against the oracle, sacreBLEU 2.6.0 (pinned in the test extras).

* Statistics: ``chrf_statistics`` rows must equal, integer for integer, what
  sacreBLEU's ``CHRF`` computes per segment (``CHRF._extract_corpus_statistics``,
  the oracle's own statistics, read through its private method because it has
  no public one).
* Scores: corpus scores (``corpus_chrf`` and ``CHRF.corpus_score``) and
  sentence scores (``CHRF.sentence_score``; the first 300 segments of the WMT21
  sets, where sacreBLEU's per-sentence calls would take most of the time)
  within 1e-9 of ours.
* Over word_order 0 / 2 (and 1, 3), char_order, beta 1 / 2 / 3, whitespace,
  lowercase and eps_smoothing, on random corpora with empty lines, unicode and
  1-4 references (with ``None`` gaps), on the WMT21 data in ../shared (skipped
  when absent), and on the published cases of sacreBLEU's ``test/test_chrf.py``
  (their expected numbers, given there to 1e-4, are restated below).
"""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sacrebleu
from sacrebleu.metrics import CHRF

from bleustats.engine.chrf_stats import chrf_statistics
from bleustats.metrics.chrf import CHRFScore, chrf_from_sums, corpus_chrf, sentence_chrf
from ..conftest import data_path, examples

# The test extra pins the oracle; a missing or other sacreBLEU is a failure, not a skip.
assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; expected numbers assume 2.6.0"

TOL = 1e-9


def oracle(hyps, streams, n_sentences, **opts):
    """sacreBLEU's per-segment statistics, corpus score and the first n_sentences sentence scores."""
    metric = CHRF(**opts)
    stats = metric._extract_corpus_statistics(hyps, streams)
    corpus = metric._aggregate_and_compute(stats).score  # what corpus_score returns, without a 2nd pass
    rows = np.array(stats, np.int64)
    sentences = [metric.sentence_score(h, [s[i] for s in streams]).score
                 for i, h in enumerate(hyps[:n_sentences])]
    return rows, corpus, np.array(sentences)


def compare(hyps, streams, n_sentences=None, **opts):
    rows, corpus, sentences = oracle(hyps, streams, n_sentences, **opts)
    ours = chrf_statistics(hyps, streams, references_layout="streams", **opts)
    np.testing.assert_array_equal(ours, rows.reshape(ours.shape))
    score_opts = {k: opts.get(k, d) for k, d in
                  (("char_order", 6), ("word_order", 0), ("beta", 2), ("eps_smoothing", False))}
    # the contract is 1e-9; chrf_from_sums follows sacreBLEU's float64 operation order, so
    # the scores are in fact bit-for-bit equal, and that is checked too
    assert abs(chrf_from_sums(ours.sum(0), **score_opts) - corpus) <= TOL
    assert chrf_from_sums(ours.sum(0), **score_opts) == corpus
    np.testing.assert_array_equal(chrf_from_sums(ours[:n_sentences], **score_opts), sentences)
    return ours


# --------------------------------------------------------------------------- random corpora

WORDS = ["the", "The", "cat", "sat", "on", "mat", "a", "a.", "(it)", "\"so\"", "don't", "x-y", "...",
         "Über", "straße", "ΣΟΦΙΑ", "İstanbul", "中文", "日本語です", "🙂", "naïve", "e\u0301", "\x00",
         "", "  ", "\t", "\u00a0", "\u3000", "\u2009", "\u200b"]


def random_line(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return ""
    return rng.choice([" ", "  ", "\u00a0"]).join(rng.choice(WORDS) for _ in range(rng.randint(1, 14)))


def random_corpus(seed: int, n_seg: int = 12, max_refs: int = 4):
    rng = random.Random(seed)
    n_refs = rng.randint(1, max_refs)
    hyps = [random_line(rng) for _ in range(n_seg)]
    streams = [[random_line(rng) for _ in range(n_seg)] for _ in range(n_refs)]
    for s in streams[1:]:  # gaps: a segment may have fewer references (never none)
        for i in range(n_seg):
            if rng.random() < 0.2:
                s[i] = None
    for i in range(n_seg):  # now and then a reference equal to the hypothesis
        if rng.random() < 0.15:
            streams[0][i] = hyps[i]
    return hyps, streams


GRID = [
    {"word_order": w, "char_order": c, "beta": b, "whitespace": ws, "lowercase": lc, "eps_smoothing": eps}
    for w in (0, 2) for c in (6, 3) for b in (1, 2, 3)
    for ws, lc, eps in ((False, False, False), (True, False, True), (False, True, True), (True, True, False))
]


@pytest.mark.parametrize("opts", GRID, ids=lambda o: "-".join(f"{k}={int(v)}" for k, v in o.items()))
def test_random_corpora_option_grid(opts):
    for seed in range(3):
        compare(*random_corpus(hash(tuple(opts.values())) % 1000 + seed), **opts)


@pytest.mark.parametrize("char_order, word_order", [(1, 0), (2, 1), (4, 3), (10, 2), (8, 0), (0, 2)])
def test_other_orders(char_order, word_order):
    for seed in range(3):
        compare(*random_corpus(100 + seed), char_order=char_order, word_order=word_order)


ALPHABET = list("ab c.,()") + ["é", "İ", "Σ", "🙂", "\U00010348", "\x00", "\u00a0", "\u3000", "\x85", "\n"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=20), min_size=1, max_size=4).flatmap(
        lambda hyps: st.tuples(
            st.just(hyps),
            st.lists(st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=20),
                              min_size=len(hyps), max_size=len(hyps)), min_size=1, max_size=4))),
    st.sampled_from([0, 2]), st.sampled_from([1, 2, 3]), st.booleans(), st.booleans(), st.booleans(),
)
def test_generated_corpora(corpus, word_order, beta, whitespace, lowercase, eps_smoothing):
    hyps, streams = corpus
    compare(hyps, streams, word_order=word_order, beta=beta, whitespace=whitespace,
            lowercase=lowercase, eps_smoothing=eps_smoothing)


def test_empty_hypotheses_and_references():
    hyps = ["", "a b", "", "x"]
    streams = [["", "", "a", ""], ["", None, "", "x"]]
    for eps in (False, True):
        for w in (0, 2):
            compare(hyps, streams, word_order=w, eps_smoothing=eps)


def test_thousand_references():
    rng = random.Random(5)
    hyps = [random_line(rng)]
    streams = [[random_line(rng)] for _ in range(1000)]
    compare(hyps, streams, word_order=2)


def test_long_line():
    rng = random.Random(9)
    hyp = " ".join(rng.choice(WORDS) for _ in range(3000))
    refs = [" ".join(rng.choice(WORDS) for _ in range(2500)), hyp[: len(hyp) // 2]]
    compare([hyp], [[r] for r in refs], word_order=2)


# --------------------------------------------------------------------------- compat functions


def test_corpus_and_sentence_functions_match_sacrebleu():
    hyps, streams = random_corpus(42)
    for kwargs in ({}, {"word_order": 2}, {"beta": 3, "remove_whitespace": False},
                   {"char_order": 4, "eps_smoothing": True}, {"beta": 1, "word_order": 1}):
        want = sacrebleu.corpus_chrf(hyps, streams, **kwargs)
        got = corpus_chrf(hyps, streams, **kwargs)
        assert abs(got.score - want.score) <= TOL
        assert (got.name, got.char_order, got.word_order, got.beta) == (
            want.name, want.char_order, want.word_order, want.beta)
        assert str(got) == str(want) and repr(got) == repr(want)
        for width in (0, 1, 4):
            assert got.format(width=width) == want.format(width=width)
            assert got.format(width=width, score_only=True) == want.format(width=width, score_only=True)
        sig = "nrefs:4|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"
        assert got.format(signature=sig) == want.format(signature=sig)
        assert got.format(signature=sig, is_json=True) == want.format(signature=sig, is_json=True)
        for i, h in enumerate(hyps):
            refs = [s[i] for s in streams]
            assert abs(sentence_chrf(h, refs, **kwargs).score - sacrebleu.sentence_chrf(h, refs, **kwargs).score) <= TOL


def test_score_format_with_confidence_interval():
    want = CHRF().corpus_score(["a b c"], [["a b d"]])
    want._mean, want._ci = 55.123, 1.5
    got = CHRFScore(want.score, 6, 0, 2, mean=55.123, ci=1.5)
    sig = "nrefs:1|bs:1000|version:2.6.0"
    for kwargs in ({}, {"width": 3}, {"signature": sig}, {"signature": sig, "is_json": True}):
        assert got.format(**kwargs) == want.format(**kwargs)


def test_chrf_from_sums_does_not_mutate_and_broadcasts():
    hyps, streams = random_corpus(7)
    rows = chrf_statistics(hyps, streams, word_order=2)
    before = rows.copy()
    stacked = np.stack([rows, rows[::-1]])  # (2, n_seg, 24)
    scores = chrf_from_sums(stacked, word_order=2)
    assert scores.shape == (2, len(hyps))
    np.testing.assert_array_equal(scores[0], scores[1][::-1])
    np.testing.assert_array_equal(rows, before)
    with pytest.raises(ValueError,
                       match=r"stats must be numbers of shape \(\.\.\., 24\) .* got dtype int64 shape \(3, 18\)"):
        chrf_from_sums(rows[:3, :18], word_order=2)


def test_bad_compat_arguments():
    with pytest.raises(ValueError, match=r"remove_whitespace must be True or False .* got str 'no'"):
        corpus_chrf(["a"], [["a"]], remove_whitespace="no")
    with pytest.raises(TypeError, match=r"hypothesis must be one str; got list"):
        sentence_chrf(["a"], ["a"])
    with pytest.raises(TypeError, match=r"references must be a list of reference strings .* Wrap it"):
        sentence_chrf("a", "a")


# --------------------------------------------------------------------------- sacreBLEU's published cases

# Restated from sacreBLEU 2.6.0's test/test_chrf.py (hypotheses, references, expected score;
# its tolerance is 1e-4). corpus_chrf with char_order=6, word_order=0, beta=3.
# a sentence pair of sacreBLEU's test_chrf.py, used twice below (once with a leading space)
RISK_HYP = ("risk assessment must be made of those who are qualified and expertise in the sector - "
            "these are the scientists .")
RISK_REF = ("risk assessment has to be undertaken by those who are qualified and expert in that area - "
            "that is the scientists .")
EPS_SMOOTHING_CASES = [
    (["abcdefg"], ["hijklmnop"], 0.0),
    (["a"], ["b"], 0.0),
    ([""], ["b"], 0.0),
    ([""], ["ref"], 0.0),
    ([""], ["reference"], 0.0),
    (["aa"], ["ab"], 8.3333),
    (["a", "b"], ["a", "c"], 8.3333),
    (["a"], ["a"], 16.6667),
    (["a b c"], ["a b c"], 50.0),
    (["a b c"], ["abc"], 50.0),
    ([" " + RISK_HYP], [RISK_REF], 63.361730),
    ([" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 64.1302698),
    (["Niemand hat die Absicht, eine Mauer zu errichten"], ["Niemand hat die Absicht, eine Mauer zu errichten"], 100.0),
]
EFFECTIVE_ORDER_CASES = [
    (["a"], ["a"], 100.0),
    ([""], ["reference"], 0.0),
    (["a b c"], ["a b c"], 100.0),
    (["a b c"], ["abc"], 100.0),
    ([""], ["c"], 0.0),
    (["a", "b"], ["a", "c"], 50.0),
    (["aa"], ["ab"], 25.0),
]
KEEP_WHITESPACE_CASES = [
    (["Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."],
     ["Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."], 67.3481606),
    ([RISK_HYP], [RISK_REF], 65.2414427),
]
# sentence_chrf with the defaults and eps_smoothing=True: hypothesis, references, expected
SENTENCE_CASES = [
    ("Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
     ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."], 39.14078509),
    ("Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
     ["A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."], 31.22557079),
    ("Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
     ["Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."], 57.15704367),
]


@pytest.mark.parametrize("hyps, refs, expected", EPS_SMOOTHING_CASES)
def test_published_eps_smoothing(hyps, refs, expected):
    got = corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=True)
    assert abs(got.score - expected) < 1e-4
    want = sacrebleu.corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=True)
    assert abs(got.score - want.score) <= TOL


@pytest.mark.parametrize("hyps, refs, expected", EFFECTIVE_ORDER_CASES)
def test_published_effective_order(hyps, refs, expected):
    got = corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=False)
    assert abs(got.score - expected) < 1e-4


@pytest.mark.parametrize("hyps, refs, expected", KEEP_WHITESPACE_CASES)
def test_published_keep_whitespace(hyps, refs, expected):
    got = corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, remove_whitespace=False)
    assert abs(got.score - expected) < 1e-4


@pytest.mark.parametrize("hyp, refs, expected", SENTENCE_CASES)
def test_published_sentence_level(hyp, refs, expected):
    assert abs(sentence_chrf(hyp, refs, eps_smoothing=True).score - expected) < 1e-4


# --------------------------------------------------------------------------- WMT21 (../shared, or its vendored slice)


def _read_tsv(path):
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        return list(reader)


def wmt21(pair: str, system: str, ref_files: list[tuple[str, str]]):
    base = data_path("data", "wmt21_news", pair)  # the whole test set, or the slice in tests/data
    outputs = [r for r in _read_tsv(base / "system_outputs.tsv") if r[0] == system]
    hyps = [r[2] for r in outputs]
    streams = []
    for name, ref in ref_files:
        text = {int(r[1]): r[2] for r in _read_tsv(base / name) if r[0] == ref}
        streams.append([text[int(r[1])] for r in outputs])
    return hyps, streams


@pytest.mark.parametrize("opts", [{"word_order": 2}, {"word_order": 0, "eps_smoothing": True, "whitespace": True}],
                         ids=["chrF++", "chrF-eps-space"])
def test_wmt21_zh_en(opts):
    hyps, streams = wmt21("zh-en", "Online-W", [("references.tsv", "ref-A"),
                                                ("references_unverified.tsv", "ref-B")])
    # Online-W's empty hypotheses: 515 and 1488 of the 1,948 segments; the vendored slice (491-550) holds 515
    assert sum(h == "" for h in hyps) == (2 if len(hyps) == 1948 else 1)
    compare(hyps, streams, n_sentences=300, **opts)


def test_wmt21_en_de_three_references():
    hyps, streams = wmt21("en-de", "Facebook-AI", [("references.tsv", "ref-A"), ("references.tsv", "ref-C"),
                                                   ("references.tsv", "ref-D")])
    assert len(hyps) in (1002, 60)  # the whole test set, or the vendored slice (segments 1-60)
    compare(hyps, streams, n_sentences=300, word_order=2, beta=3, lowercase=True)
