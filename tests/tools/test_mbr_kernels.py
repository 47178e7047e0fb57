"""All-pairs n-gram kernels (bleustats.tools._mbr_kernels) against their plain-Python twin (tests/twins/mbr.py).

Token sequences come from hypothesis over a small alphabet (repeated n-grams),
with empty texts, one-token texts, one candidate, and separate reference sets
of another size; sources are batched so several run in one parallel call.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.tools import _mbr_kernels as _k
from ..twins import mbr as twin
from ..conftest import examples

SETTINGS = settings(max_examples=examples(80), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
texts = st.lists(st.lists(st.integers(0, 4) | st.integers(0, 2**31 - 1), max_size=12), min_size=1, max_size=6)
source = st.tuples(texts, st.none() | st.lists(st.lists(st.integers(0, 4), max_size=12), min_size=0, max_size=5))


def layout(sources):
    """Flat tokens: all hypotheses, then all separate references; kernel ptrs."""
    hyps = [h for hs, _ in sources for h in hs]
    self_refs = all(r is None for _, r in sources)
    refs = [] if self_refs else [r for hs, rs in sources for r in (hs if rs is None else rs)]
    seqs = hyps + refs
    tok_off = np.r_[0, np.cumsum([len(t) for t in seqs])].astype(np.int64)
    tokens = np.array([x for t in seqs for x in t], np.int64)
    hyp_ptr = np.r_[0, np.cumsum([len(hs) for hs, _ in sources])].astype(np.int64)
    if self_refs:
        ref_ptr = hyp_ptr
    else:
        n_refs = [len(hs if rs is None else rs) for hs, rs in sources]
        ref_ptr = len(hyps) + np.r_[0, np.cumsum(n_refs)].astype(np.int64)
    pairs = [(hs, hs if rs is None else rs) for hs, rs in sources]
    return tokens, tok_off, hyp_ptr, ref_ptr, pairs


@SETTINGS
@given(st.lists(source, min_size=1, max_size=4), st.integers(1, 5))
def test_pairwise_matches_equal_twin(sources, order):
    tokens, tok_off, hyp_ptr, ref_ptr, pairs = layout(sources)
    sizes = np.diff(hyp_ptr) * np.diff(ref_ptr)
    out_ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64) * order
    got = _k.pairwise_matches(tokens, tok_off, hyp_ptr, ref_ptr, order, out_ptr)
    assert got.tolist() == twin.pairwise_matches(pairs, order)


@SETTINGS
@given(st.lists(source, min_size=1, max_size=4), st.integers(1, 5), st.booleans())
def test_aggregate_matches_equal_twin(sources, order, exclude_self):
    tokens, tok_off, hyp_ptr, ref_ptr, pairs = layout(sources)
    self_refs = ref_ptr is hyp_ptr
    exclude_self = exclude_self and self_refs
    got = _k.aggregate_matches(tokens, tok_off, hyp_ptr, ref_ptr, order, exclude_self)
    want = [row for hs, rs in pairs for row in twin.aggregate_matches(hs, rs, order, exclude_self)]
    assert got.tolist() == want


def test_edge_cases():
    # all texts empty; one candidate; identical candidates; a long repeated line
    for sources in ([([[], []], None)], [([[7]], None)], [([[1, 2, 1, 2]] * 3, None)],
                    [([[3] * 200, [3] * 150], [[3] * 10, []])]):
        tokens, tok_off, hyp_ptr, ref_ptr, pairs = layout(sources)
        sizes = np.diff(hyp_ptr) * np.diff(ref_ptr)
        out_ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64) * 4
        got = _k.pairwise_matches(tokens, tok_off, hyp_ptr, ref_ptr, 4, out_ptr)
        assert got.tolist() == twin.pairwise_matches(pairs, 4)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_twin_select_first_on_ties(n):
    matrix = [[1.0] * n for _ in range(n)]
    assert twin.select(matrix)[1] == 0
    assert twin.select(matrix, loss=True)[1] == 0


@SETTINGS
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=3), st.booleans(), st.integers(0, 4),
       st.integers(0, 3), st.sampled_from([0, 0.5, 1, 2, 3]), st.booleans())
def test_pairwise_chrf_equals_twin(sources, self_refs, char_order, word_order, beta, eps_smoothing):
    if char_order + word_order == 0:
        char_order = 1
    # each source: candidate char sequences; words are the same lists read as word ids (any ints work)
    chars = [(hs, None if self_refs else rs[:len(rs)]) for hs, rs in sources]
    tokens, tok_off, hyp_ptr, ref_ptr, pairs = layout(chars)
    out_ptr = np.r_[0, np.cumsum(np.diff(hyp_ptr) * np.diff(ref_ptr))].astype(np.int64)
    seqs = [list(tokens[a:b]) for a, b in zip(tok_off[:-1], tok_off[1:])]
    wseqs = [[x % 3 for x in reversed(t)] for t in seqs]  # a second stream over the same texts
    w_off = np.r_[0, np.cumsum([len(w) for w in wseqs])].astype(np.int64)
    w_flat = np.array([x for w in wseqs for x in w], np.int64)
    got = _k.pairwise_chrf(tokens, tok_off, char_order, w_flat, w_off, word_order, hyp_ptr, ref_ptr,
                           float(beta ** 2), eps_smoothing, out_ptr)
    want = []
    for s in range(len(hyp_ptr) - 1):
        for i in range(hyp_ptr[s], hyp_ptr[s + 1]):
            for j in range(ref_ptr[s], ref_ptr[s + 1]):
                want.append(twin.pair_chrf(seqs[i], seqs[j], wseqs[i], wseqs[j], char_order, word_order, beta,
                                           eps_smoothing))
    assert got.tolist() == want
