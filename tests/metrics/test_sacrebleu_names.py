"""sacreBLEU 2.6's helper modules and the private metric methods libraries call, against sacreBLEU itself.

Code built on sacreBLEU (MBR decoders such as mbrs, rerankers, HuggingFace ``evaluate``) imports
``sacrebleu.metrics.helpers``, ``sacrebleu.metrics.lib_ter``, ``sacrebleu.metrics.bleu._get_tokenizer``
and ``sacrebleu.significance._compute_p_value``, and calls metric-object internals
(``_preprocess_segment``, ``_cache_references``, chrF's ``_remove_punctuation`` /
``_get_match_statistics`` / ``_compute_f_score``). Every expected value here is what
``sacrebleu==2.6.0`` (pinned by the test extra) returns in the same test for the same input.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import sacrebleu.metrics.bleu as sb_bleu
import sacrebleu.metrics.helpers as sb_helpers
import sacrebleu.metrics.lib_ter as sb_lib_ter
import sacrebleu.significance as sb_significance
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SB_BLEU
from sacrebleu.metrics import CHRF as SB_CHRF
from sacrebleu.metrics import TER as SB_TER

import bleustats.metrics.bleu as bs_bleu
import bleustats.metrics.helpers as bs_helpers
import bleustats.metrics.lib_ter as bs_lib_ter
import bleustats.significance as bs_significance
from bleustats.errors import InputError
from bleustats.metrics import BLEU, CHRF, TER
from ..conftest import examples

TEXT = st.text(alphabet=st.sampled_from(list("ab c.,!()'\"-Ü日\t")), max_size=30)
WORDS = ["the", "cat", "Sat", "on", "mat", "(ok)", "end.", "it's", "x-y", "3.5", "日本", "Ünï", "!", "—", "&amp;"]


def lines(seed: int, n: int = 25) -> list[str]:
    r = random.Random(seed)
    return ["" if r.random() < 0.1 else " ".join(r.choice(WORDS) for _ in range(r.randint(1, 12))) + r.choice(
        ["", " .", "!", "  "]) for _ in range(n)]


@settings(max_examples=examples(200), deadline=None)
@given(TEXT, st.integers(1, 3), st.integers(1, 5), st.booleans())
def test_helpers_count_as_sacrebleu(line: str, lo: int, hi: int, whitespace: bool) -> None:
    assert bs_helpers.extract_all_word_ngrams(line, lo, hi) == sb_helpers.extract_all_word_ngrams(line, lo, hi)
    tokens = line.split()
    assert bs_helpers.extract_word_ngrams(tokens, hi) == sb_helpers.extract_word_ngrams(tokens, hi)
    assert bs_helpers.extract_char_ngrams(line, hi, whitespace) == sb_helpers.extract_char_ngrams(line, hi, whitespace)
    assert (bs_helpers.extract_all_char_ngrams(line, hi, whitespace)
            == sb_helpers.extract_all_char_ngrams(line, hi, whitespace))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.sampled_from("a b c d e f".split()), max_size=14),
       st.lists(st.sampled_from("a b c d e f".split()), max_size=14))
def test_translation_edit_rate_is_sacrebleus(hyp: list[str], ref: list[str]) -> None:
    assert bs_lib_ter.translation_edit_rate(hyp, ref) == sb_lib_ter.translation_edit_rate(hyp, ref)


@settings(max_examples=examples(150), deadline=None)
@given(st.text(alphabet=" sid", max_size=20))
def test_trace_to_alignment_is_sacrebleus(trace: str) -> None:
    assert bs_lib_ter.trace_to_alignment(trace) == sb_lib_ter.trace_to_alignment(trace)


def test_lib_ter_refuses_what_it_cannot_score_exactly() -> None:
    with pytest.raises(InputError, match=r"words_hyp\[1\]: expected a non-empty word without whitespace"):
        bs_lib_ter.translation_edit_rate(["a", "b c"], ["a"])
    with pytest.raises(InputError, match="words_ref: expected a list of words"):
        bs_lib_ter.translation_edit_rate(["a"], "a b")
    with pytest.raises(InputError, match=r"trace\[1\]"):
        bs_lib_ter.trace_to_alignment(" x")


@pytest.mark.parametrize("name", ["none", "13a", "intl", "char", "zh"])
def test_get_tokenizer_gives_sacrebleus_classes(name: str) -> None:
    ours, theirs = bs_bleu._get_tokenizer(name), sb_bleu._get_tokenizer(name)
    assert ours.__name__ == theirs.__name__
    for line in lines(1) + ["Hello, World! 3.5 日本語 ($1,000)"]:
        assert ours()(line) == theirs()(line)
    with pytest.raises(KeyError):
        bs_bleu._get_tokenizer("nope")


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "none"])
@pytest.mark.parametrize("lowercase", [False, True])
def test_bleu_segment_methods_are_sacrebleus(tokenize: str, lowercase: bool) -> None:
    ours, theirs = BLEU(tokenize=tokenize, lowercase=lowercase), SB_BLEU(tokenize=tokenize, lowercase=lowercase)
    for line in lines(2):
        assert ours._preprocess_segment(line) == theirs._preprocess_segment(line)
    refs = [lines(3), lines(4)]
    refs[1][::5] = [None] * len(refs[1][::5])
    assert ours._cache_references(refs) == theirs._cache_references(refs)
    assert ours.num_refs == theirs.num_refs == -1
    assert ours._extract_reference_info([]) == theirs._extract_reference_info([])


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"lowercase": True, "whitespace": True},
                                     {"char_order": 3, "word_order": 1, "eps_smoothing": True, "beta": 1}])
def test_chrf_segment_methods_are_sacrebleus(options: dict) -> None:
    ours, theirs = CHRF(**options), SB_CHRF(**options)
    for line in lines(5) + ["(hi) a, b!", "x"]:
        assert ours._preprocess_segment(line) == theirs._preprocess_segment(line)
        assert ours._remove_punctuation(line) == theirs._remove_punctuation(line)
    refs = [lines(6), lines(7)]
    refs[0][3] = None
    cache = ours._cache_references(refs)
    assert cache == theirs._cache_references(refs) and ours.num_refs == theirs.num_refs
    # statistics of each hypothesis against each reference, then the f-score, as mbrs computes them
    for hyp, record in zip(lines(8), cache):
        grams = bs_helpers.extract_all_char_ngrams(ours._preprocess_segment(hyp), ours.char_order, ours.whitespace)
        if ours.word_order:
            words = ours._remove_punctuation(hyp)
            grams += [bs_helpers.extract_word_ngrams(words, n) for n in range(1, ours.word_order + 1)]
        for ref_grams in record["ref_ngrams"]:
            stats = [x for h, r in zip(grams, ref_grams) for x in CHRF._get_match_statistics(h, r)]
            assert stats == [x for h, r in zip(grams, ref_grams) for x in SB_CHRF._get_match_statistics(h, r)]
            assert ours._compute_f_score(stats) == pytest.approx(theirs._compute_f_score(stats), abs=1e-9, rel=0)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.floats(0, 50), min_size=9, max_size=9), st.booleans())
def test_chrf_f_score_of_float_statistics_is_sacrebleus(values: list[float], eps: bool) -> None:
    # MBR code passes expected (float) counts; match counts never exceed hypothesis or reference counts
    stats = [min(v, values[i - 2], values[i - 1]) if i % 3 == 2 else v for i, v in enumerate(values)]
    ours, theirs = CHRF(char_order=2, word_order=1, eps_smoothing=eps), SB_CHRF(char_order=2, word_order=1,
                                                                                 eps_smoothing=eps)
    assert ours._compute_f_score(stats) == pytest.approx(theirs._compute_f_score(stats), abs=1e-9, rel=0)


@pytest.mark.parametrize("options", [{}, {"normalized": True}, {"case_sensitive": True, "no_punct": True},
                                     {"normalized": True, "asian_support": True}])
def test_ter_segment_methods_are_sacrebleus(options: dict) -> None:
    ours, theirs = TER(**options), SB_TER(**options)
    for line in lines(9) + ["Jim's car (red).  ", "美众院公布"]:
        assert ours._preprocess_segment(line) == theirs._preprocess_segment(line)
    refs = [lines(10)]
    assert ours._cache_references(refs) == theirs._cache_references(refs) and ours.num_refs == theirs.num_refs == 1


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(-5, 5), max_size=30), st.floats(-5, 5))
def test_compute_p_value_is_sacrebleus(sample: list[float], real: float) -> None:
    arr = np.array(sample)
    assert bs_significance._compute_p_value(arr, real) == sb_significance._compute_p_value(arr, real)


def test_counters_are_plain_counters() -> None:
    # callers mutate and add them (mbrs weights reference n-grams in place): Counter, as sacreBLEU's
    record = BLEU()._cache_references([["a b a"]])[0]
    assert type(record["ref_ngrams"]) is Counter and record["ref_lens"] == [3]
