"""Metric objects with cached references: all systems' statistics in one engine call equal each system alone.

``bleustats score REF -i SYS1 SYS2 ...`` scores its systems with
``_systems_statistics`` (one ``compute_stats`` / one chrF kernel call for all
of them); each system's matrix must be the one ``_extract_corpus_statistics``
gives for that system alone, row for row and dtype for dtype, on the plain
path (a few short lines) and on the kernels' path (more text than
``engine._small`` counts in Python), for every tokenizer and case option.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.engine import _small as small
from bleustats.metrics.bleu import BLEU
from bleustats.metrics.chrf import CHRF
from ..conftest import examples

WORDS = ["a", "b", "Cat", "the", "中文", "日本語", ".", ",", "(x)", "İ", "🙂", "e-mail", "3.5"]
line = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
TOKENIZERS = ["13a", "none", "intl", "char", "zh"]

SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def metrics(refs, tokenize, lowercase):
    return [BLEU(tokenize=tokenize, lowercase=lowercase, references=refs),
            CHRF(word_order=2, lowercase=lowercase, references=refs)]


def check(systems, refs, tokenize, lowercase):
    for metric in metrics(refs, tokenize, lowercase):
        with pytest.MonkeyPatch.context() as mp:  # BLEU batches only past the plain path's size: force it
            mp.setattr(small, "PLAIN_MAX_CHARS", -1)
            together = metric._systems_statistics(systems)
        assert together is not None and len(together) == len(systems)
        for rows, system in zip(together, systems):
            alone = np.asarray(metric._extract_corpus_statistics(system, None))
            assert rows.dtype == alone.dtype
            np.testing.assert_array_equal(rows, alone)
            assert metric._aggregate_and_compute(rows).score == metric.corpus_score(system).score


@st.composite
def inputs(draw):
    n = draw(st.integers(1, 5))
    systems = draw(st.lists(st.lists(line, min_size=n, max_size=n), min_size=2, max_size=4))
    refs = draw(st.lists(st.lists(line, min_size=n, max_size=n), min_size=1, max_size=2))
    return systems, refs


@SETTINGS
@given(inputs(), st.sampled_from(TOKENIZERS), st.booleans())
def test_few_segments_together_equal_each_system_alone(data, tokenize, lowercase):
    check(*data, tokenize, lowercase)


@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_many_segments_together_equal_each_system_alone(tokenize, monkeypatch):
    # the kernels on both routes, each system alone and all together
    monkeypatch.setattr(small, "PLAIN_MAX_CHARS", -1)
    rng = np.random.default_rng(5)
    n = 400

    def lines():
        return [" ".join(rng.choice(WORDS, rng.integers(0, 30))) for _ in range(n)]

    systems = [lines() for _ in range(3)]
    check(systems, [lines(), lines()], tokenize, lowercase=False)
    assert "bleustats.engine._stats_kernels" in sys.modules


def test_no_batched_route_where_each_system_is_scored_alone():
    refs = [["a b", "c"]]
    for metric in metrics(refs, "13a", False):
        assert metric._systems_statistics([["a b", "c"]]) is None  # one system
        uncached = type(metric)()
        assert uncached._systems_statistics([["a b", "c"], ["a", "b"]]) is None  # no cached references
    bleu = BLEU(references=refs)
    assert bleu._systems_statistics([["a b", "c"], ["a", "b"]]) is None  # a job the plain path counts: per system
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(small, "PLAIN_MAX_CHARS", -1)
        assert bleu._systems_statistics([["a b", "c"], ["a"]]) is None  # lengths differ: refused per system
        assert bleu._systems_statistics([["a b", "c"], ["a", 3]]) is None  # not a str: refused per system
        assert len(bleu._systems_statistics([["a b", "c"], ["a", "b"]])) == 2
