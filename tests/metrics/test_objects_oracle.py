"""sacreBLEU 2.6's metric objects are the oracle for bleustats' BLEU / CHRF / TER objects.

Every expected value comes from ``sacrebleu==2.6.0`` (the test extra pins it) called in the same
test on the same randomized corpora (empty lines, unicode, punctuation, 1-4 references with gaps):
corpus and sentence scores within 1e-9, statistics equal, ``str`` / ``repr`` / ``format`` (text and
JSON) and signatures (long and short) equal apart from the version field, bootstrap intervals
(``n_bootstrap``) within 1e-9.
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

import sacrebleu
import sacrebleu.metrics as sm

import bleustats
import bleustats.metrics as bm
from bleustats.errors import InputError

WORDS = ["the", "cat", "sat", "on", "mat", "Hund", "naïve", "café", "日本", "語", "a", "b", "c", "x-y", "3.5", "2,000",
         "it's", "(ok)", "\"q\"", "end.", "Ünïcode", "—", "&amp;", "ζ"]


def corpus(seed: int, n: int = 40, n_refs: int = 2, gaps: bool = True):
    r = random.Random(seed)

    def line():
        if r.random() < 0.08:
            return ""
        return " ".join(r.choice(WORDS) for _ in range(r.randint(1, 14))) + r.choice(["", ".", " .", "!", " ?"])

    refs = [[line() for _ in range(n)] for _ in range(n_refs)]
    if gaps and n_refs > 1:  # variable references per segment (sacreBLEU's None)
        for i in range(0, n, 7):
            refs[-1][i] = None
    hyps = [line() for _ in range(n)]
    return hyps, refs


def same_text(ours: str, theirs: str) -> None:
    """Equal apart from the version field (bleustats signs its own numbers: 'bleustats-<version>') and
    bleustats' extra 'order' field, written only when max_ngram_order is not sacreBLEU's default 4."""
    ours = re.sub(r'\n "order": "\d+",', "", re.sub(r"\|(order|ord):\d+", "", ours))
    assert ours.replace(f"bleustats-{bleustats.__version__}", "VERSION") == theirs.replace(sacrebleu.__version__,
                                                                                          "VERSION")


def check(ours_metric, theirs_metric, hyps, refs):
    got = ours_metric.corpus_score(hyps, refs)
    want = theirs_metric.corpus_score(hyps, refs)
    assert got.score == pytest.approx(want.score, abs=1e-9, rel=0)
    s_ours, s_theirs = ours_metric.get_signature(), theirs_metric.get_signature()
    for short in (False, True):
        same_text(s_ours.format(short), s_theirs.format(short))
        for width in (0, 1, 2, 4):
            same_text(got.format(width, False, s_ours.format(short)), want.format(width, False, s_theirs.format(short)))
            assert got.format(width, True) == want.format(width, True)
    same_text(got.format(2, False, s_ours.format(), True), want.format(2, False, s_theirs.format(), True))
    assert str(got) == str(want) and repr(got) == repr(want)
    stats_o = ours_metric._extract_corpus_statistics(hyps, refs)
    stats_t = np.array(theirs_metric._extract_corpus_statistics(hyps, refs))
    np.testing.assert_array_equal(np.asarray(stats_o, dtype=float), stats_t.astype(float))
    for h, *rs in list(zip(hyps, *refs))[:8]:
        a, b = ours_metric.sentence_score(h, rs), theirs_metric.sentence_score(h, rs)
        assert a.score == pytest.approx(b.score, abs=1e-9, rel=0)
        assert str(a) == str(b)
    return got, want


BLEU_OPTIONS = [dict(), dict(tokenize="none"), dict(tokenize="intl", lowercase=True), dict(tokenize="char"),
                dict(tokenize="zh"), dict(smooth_method="floor", smooth_value=0.3), dict(smooth_method="add-k"),
                dict(smooth_method="none", effective_order=True), dict(max_ngram_order=2), dict(max_ngram_order=6),
                dict(trg_lang="zh")]


@pytest.mark.parametrize("opts", BLEU_OPTIONS, ids=str)
@pytest.mark.parametrize("seed,n_refs", [(0, 1), (1, 2), (2, 4)])
def test_bleu_object(opts, seed, n_refs):
    hyps, refs = corpus(seed, n_refs=n_refs)
    got, want = check(bm.BLEU(**opts), sm.BLEU(**opts), hyps, refs)
    assert got.counts == want.counts and got.totals == want.totals
    assert (got.sys_len, got.ref_len) == (want.sys_len, want.ref_len)


CHRF_OPTIONS = [dict(), dict(word_order=2), dict(char_order=3, word_order=1, beta=1), dict(beta=3, eps_smoothing=True),
                dict(whitespace=True), dict(lowercase=True, word_order=2), dict(char_order=0, word_order=2)]


@pytest.mark.parametrize("opts", CHRF_OPTIONS, ids=str)
@pytest.mark.parametrize("seed,n_refs", [(3, 1), (4, 3)])
def test_chrf_object(opts, seed, n_refs):
    hyps, refs = corpus(seed, n_refs=n_refs)
    check(bm.CHRF(**opts), sm.CHRF(**opts), hyps, refs)


TER_OPTIONS = [dict(), dict(normalized=True), dict(no_punct=True), dict(asian_support=True, normalized=True),
               dict(case_sensitive=True), dict(normalized=True, no_punct=True, asian_support=True)]


@pytest.mark.parametrize("opts", TER_OPTIONS, ids=str)
@pytest.mark.parametrize("seed,n_refs", [(5, 1), (6, 2)])
def test_ter_object(opts, seed, n_refs):
    hyps, refs = corpus(seed, n=25, n_refs=n_refs)
    check(bm.TER(**opts), sm.TER(**opts), hyps, refs)


@pytest.mark.parametrize("make", [lambda M, r: M.BLEU(references=r), lambda M, r: M.CHRF(word_order=2, references=r),
                                  lambda M, r: M.TER(references=r)], ids=["bleu", "chrf++", "ter"])
def test_cached_references_and_bootstrap(make, monkeypatch):
    hyps, refs = corpus(7, n=30, n_refs=2, gaps=False)
    ours, theirs = make(bm, refs), make(sm, refs)
    for system in (hyps, list(reversed(hyps))):  # the cache serves several systems
        a, b = ours.corpus_score(system, None), theirs.corpus_score(system, None)
        assert a.score == pytest.approx(b.score, abs=1e-9, rel=0)
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    a, b = ours.corpus_score(hyps, None, n_bootstrap=200), theirs.corpus_score(hyps, None, n_bootstrap=200)
    assert a._mean == pytest.approx(b._mean, abs=1e-9, rel=0) and a._ci == pytest.approx(b._ci, abs=1e-9, rel=0)
    same_text(ours.get_signature().format(), theirs.get_signature().format())
    same_text(a.format(2, False, ours.get_signature().format(), True),
              b.format(2, False, theirs.get_signature().format(), True))


def test_compute_bleu_and_bad_input():
    for args in [([9, 7, 5, 3], [10, 8, 6, 4], 11, 11), ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1)]:
        for kw in [dict(), dict(smooth_method="floor", smooth_value=0.0), dict(smooth_method="add-k"),
                   dict(effective_order=True)]:
            a = bm.BLEU.compute_bleu(*args, **kw)
            b = sm.BLEU.compute_bleu(list(args[0]), list(args[1]), *args[2:], **kw)
            assert a.score == b.score and str(a) == str(b)
    with pytest.raises(TypeError, match="BLEU: the argument `hyp` should be a string; got int"):
        bm.BLEU().sentence_score(3, ["a"])
    with pytest.raises(TypeError, match="`refs` should be a sequence of strings .* got str"):
        bm.CHRF().sentence_score("a", "a")
    with pytest.raises(TypeError, match=r"hyps\[1\] is None"):
        bm.TER().corpus_score(["a", None], [["a", "b"]])
    with pytest.raises(RuntimeError, match="no references provided and the cache is empty"):
        bm.BLEU().corpus_score(["a"], None)
    with pytest.raises(ValueError, match="number of references is unknown"):
        bm.CHRF().get_signature()
    with pytest.raises(InputError, match=r"references\[0\] has 1 line but there are 2 hypotheses\. sacreBLEU's"):
        bm.BLEU(references=[["a"]]).corpus_score(["a", "b"], None)
    with pytest.raises(ValueError, match="smooth_method must be one of"):
        bm.BLEU(smooth_method="exp2")
    assert json.loads(bm.TER().corpus_score(["a"], [["a"]]).format(is_json=True))["name"] == "TER"


def test_bleustats_fields_only_when_not_default():
    assert "order" not in str(bm.BLEU(references=[["a"]]).get_signature())
    sig = bm.BLEU(max_ngram_order=6, ref_length="shortest", references=[["a"]]).get_signature()
    assert "|order:6|reflen:shortest|version:" in sig.format()
    assert "|ord:6|rl:shortest|v:" in sig.format(short=True)
    delta = bm.BLEU(metric="delta_bleu", references=[["a b", "a c"]], ref_weights=[[1.0, 0.5]])
    score = delta.corpus_score(["a b", "a b"], None)
    assert score.name == "ΔBLEU" and "metric:delta_bleu|delta:paper" in str(delta.get_signature())
