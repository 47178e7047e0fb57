"""The TER kernels against their plain-Python twin (``tests/twins/ter.py``), on token ids.

Token sequences come from hypothesis (small vocabularies, so repeated tokens
and equal-cost shift candidates are common) and from hand-made cases at
tercom's limits: phrases longer than MAX_SHIFT_SIZE, moves farther than
MAX_SHIFT_DIST, a search stopped by MAX_SHIFT_CANDIDATES, lengths so unequal
that the beam widens. Edit counts must be equal, reference lengths exactly
equal. Sizes stay small so the file also passes with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.engine import _ter_kernels as K
from bleustats.engine._columns import readonly

from ..twins import ter as twin
from ..conftest import examples

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def ids(seq) -> np.ndarray:
    """Token ids as the batch kernels hand them to the pair kernels: read-only int32."""
    return readonly(np.asarray(seq, dtype=np.int32))[0]


def pack(segments):
    """[(hyp, [ref, ...]), ...] → the batch kernels' flat arrays as the engine passes them (read-only; int32 ids,
    as the encoder gives them, int64 offsets)."""
    hyp_ids, hyp_off, ref_ids, ref_off, seg_refs = [], [0], [], [0], [0]
    for hyp, refs in segments:
        hyp_ids += list(hyp)
        hyp_off.append(len(hyp_ids))
        for ref in refs:
            ref_ids += list(ref)
            ref_off.append(len(ref_ids))
        seg_refs.append(seg_refs[-1] + len(refs))
    return readonly(np.asarray(hyp_ids, np.int32), np.asarray(hyp_off, np.int64), np.asarray(ref_ids, np.int32),
                    np.asarray(ref_off, np.int64), np.asarray(seg_refs, np.int64))


def twin_rows(segments) -> np.ndarray:
    return np.array([twin.ter_segment_stats(list(h), [list(r) for r in refs]) for h, refs in segments],
                    dtype=np.float64).reshape(-1, 2)


# --------------------------------------------------------------------------- strategies


@st.composite
def scrambled(draw, source, vocab):
    """``source`` with some phrases moved and some tokens replaced, inserted or dropped."""
    words = list(source)
    for _ in range(draw(st.integers(0, 4))):
        if not words:
            break
        a = draw(st.integers(0, len(words) - 1))
        phrase = words[a:a + draw(st.integers(1, 12))]
        del words[a:a + len(phrase)]
        b = draw(st.integers(0, len(words)))
        words[b:b] = phrase
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["sub", "ins", "del"]))
        if op == "ins" or not words:
            words.insert(draw(st.integers(0, len(words))), draw(st.integers(0, vocab + 2)))
        elif op == "sub":
            words[draw(st.integers(0, len(words) - 1))] = draw(st.integers(0, vocab + 2))
        else:
            del words[draw(st.integers(0, len(words) - 1))]
    return words


@st.composite
def segment(draw, max_len=24, max_refs=5):
    """(hypothesis, references): random or scrambled from the first reference; vocabularies of 1-8."""
    vocab = draw(st.integers(1, 8))
    token = st.integers(0, vocab - 1)
    refs = [draw(st.lists(token, max_size=max_len)) for _ in range(draw(st.integers(1, max_refs)))]
    if draw(st.booleans()):
        hyp = draw(scrambled(refs[0], vocab))
    else:
        hyp = draw(st.lists(token, max_size=max_len))
    return hyp, refs


# --------------------------------------------------------------------------- one pair


@SETTINGS
@given(segment(max_refs=1))
def test_pair_equals_twin(seg):
    hyp, (ref,) = seg
    assert K._ter_pair(ids(hyp), ids(ref)) == twin.ter_edits(hyp, ref)


CASES = {
    "both empty": ([], []),
    "empty hypothesis": ([], [1, 2, 3]),
    "empty reference": ([1, 2, 3], []),
    "one token, equal": ([7], [7]),
    "one token, different": ([7], [8]),
    "identical": (list(range(15)), list(range(15))),
    "reversed": (list(range(12))[::-1], list(range(12))),
    "one repeated token, longer hypothesis": ([4] * 9, [4] * 5),
    "one repeated token, longer reference": ([4] * 5, [4] * 9),
    "a single shift fixes it": ([3, 4, 5, 6, 7, 0, 1, 2], list(range(8))),
    # alternating tokens: many shifts with the same gain, length and start compete
    "equal-cost candidates": ([1, 2] * 6, [2, 1] * 6),
    # two blocks of 12 swapped: neither fits in one shift
    "phrases longer than MAX_SHIFT_SIZE": (list(range(20, 32)) + list(range(12)),
                                           list(range(12)) + list(range(20, 32))),
    # a block of 14 and one of 10 swapped: moving the 10 fixes it
    "block of 14 and block of 10 swapped": (list(range(30, 44)) + list(range(10)),
                                            list(range(10)) + list(range(30, 44))),
    # the phrase starts 55 positions away from its place in the reference: too far to shift
    "move farther than MAX_SHIFT_DIST": ([99] + list(range(55)), list(range(55)) + [99]),
    "move just within MAX_SHIFT_DIST": ([99] + list(range(50)), list(range(50)) + [99]),
    # |r| / |h| = 75 > 2 * BEAM_WIDTH: the beam widens to ceil(75 / 2 + 25)
    "reference 75 times longer": ([1, 2], [0] * 70 + [1] + [0] * 70 + [2] + [0] * 8),
    "hypothesis far longer": ([5, 1, 6] * 30 + [2], [1, 2]),
    # found by searching random binary strings: the search evaluates 1001 candidates and
    # stops, dropping the best shift of its last round (checked below with the twin)
    "candidate limit": ([int(c) for c in "01001101000000111111"], [int(c) for c in "11010001110101100100"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_edge_cases_equal_twin(name):
    hyp, ref = CASES[name]
    assert K._ter_pair(ids(hyp), ids(ref)) == twin.ter_edits(hyp, ref)


def test_edge_case_values():
    """Values that follow from the definition alone (no twin needed)."""
    expect = {"both empty": 0, "empty hypothesis": 3, "empty reference": 3, "one token, equal": 0,
              "one token, different": 1, "identical": 0, "a single shift fixes it": 1,
              "block of 14 and block of 10 swapped": 1, "one repeated token, longer hypothesis": 4}
    for name, edits in expect.items():
        hyp, ref = CASES[name]
        assert K._ter_pair(ids(hyp), ids(ref)) == edits, name


def test_limits_are_exercised():
    """The hand-made limit cases really reach the limits they are named after."""
    search = twin.shift_search(*CASES["candidate limit"])
    assert search.hit_limit and search.evaluated >= twin.MAX_SHIFT_CANDIDATES
    assert twin.shift_search(*CASES["move farther than MAX_SHIFT_DIST"]).shifts == 0
    assert twin.shift_search(*CASES["move just within MAX_SHIFT_DIST"]).shifts == 1
    lo, hi, _, _ = K._band_layout(2, 150)
    assert hi[1] - lo[1] > 2 * twin.BEAM_WIDTH  # widened beam
    assert twin.shift_search(*CASES["phrases longer than MAX_SHIFT_SIZE"]).shifts >= 2


@settings(max_examples=examples(5), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pairs_that_hit_the_candidate_limit(seed):
    """Random binary strings of length 20-26 often stop at MAX_SHIFT_CANDIDATES."""
    rng = random.Random(seed)
    n = rng.randint(20, 26)
    hyp = [rng.randrange(2) for _ in range(n)]
    ref = [rng.randrange(2) for _ in range(n)]
    assert K._ter_pair(ids(hyp), ids(ref)) == twin.ter_edits(hyp, ref)


# --------------------------------------------------------------------------- internals


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(1, 300), st.integers(1, 300))
def test_band_windows_hold_every_read(n_h, n_r):
    """Every neighbour a row reads lies in the previous row's window; rows match the twin's beam."""
    lo, hi, off, width = K._band_layout(n_h, n_r)
    beam = twin.beam_columns(n_h, n_r)
    assert all((lo[i], hi[i]) == (beam[i].start, beam[i].stop) for i in range(1, n_h + 1))
    assert (np.diff(lo[1:]) >= 0).all()
    for i in range(1, n_h + 1):
        assert 0 <= lo[i] - 1 - off[i - 1] and hi[i] - 1 - off[i - 1] < width  # diagonal, up
        assert 1 <= lo[i] - off[i] and hi[i] - 1 - off[i] < width  # the row's own cells


@SETTINGS
@given(segment(max_refs=1), st.data())
def test_shifted_cost_equals_full_distance(seg, data):
    """Recomputing only the changed rows and joining them with the backward pass gives the full distance."""
    hyp, (ref,) = seg
    if not hyp or not ref:
        return
    n_h, n_r = len(hyp), len(ref)
    lo, hi, off, width = K._band_layout(n_h, n_r)
    fwd = K._new_band(n_h, n_r, off, width)
    back = fwd.copy()
    scratch = fwd.copy()
    ops = np.empty(len(fwd), np.uint8)
    words = ids(hyp)
    K._forward_rows(words, ids(ref), 1, lo, hi, off, width, fwd, ops)
    K._backward_rows(words, ids(ref), lo, hi, off, width, back)
    first = data.draw(st.integers(0, n_h - 1))
    last = data.draw(st.integers(first + 1, n_h))
    changed = words.copy()
    changed[first:last] = data.draw(st.lists(st.integers(0, 9), min_size=last - first, max_size=last - first))
    got = K._shifted_cost(changed, ids(ref), first, last, lo, hi, off, width, fwd, scratch, back)
    assert got == twin.align(list(changed), ref).distance


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=30), st.data())
def test_apply_shift_equals_twin(words, data):
    n = len(words)
    first = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(1, n - first))
    target = data.draw(st.integers(0, n))
    out = np.empty(n, np.int64)
    end = K._apply_shift(ids(words), first, length, target, out)
    expect = twin.shift(words, first, length, target)
    assert out.tolist() == expect
    assert out[end:].tolist() == words[end:]  # nothing changes after the returned end
    assert out[:min(first, target)].tolist() == words[:min(first, target)]


# --------------------------------------------------------------------------- batches


@SETTINGS
@given(st.lists(segment(max_len=14), min_size=1, max_size=12))
def test_batch_equals_twin(segments):
    """Fewest edits over 1-5 references and their mean length, row by row, serial and threaded."""
    expect = twin_rows(segments)
    packed = pack(segments)
    np.testing.assert_array_equal(K.ter_batch_serial(*packed), expect)
    np.testing.assert_array_equal(K.ter_batch(*packed), expect)


def test_batch_more_segments_than_stripes():
    """More segments than _STRIPES: every segment is computed once, in its own row."""
    rng = random.Random(5)
    segments = []
    for _ in range(K._STRIPES + 77):
        refs = [[rng.randrange(4) for _ in range(rng.randint(0, 4))] for _ in range(rng.randint(1, 3))]
        segments.append(([rng.randrange(4) for _ in range(rng.randint(0, 4))], refs))
    packed = pack(segments)
    threaded = K.ter_batch(*packed)
    np.testing.assert_array_equal(threaded, K.ter_batch_serial(*packed))
    np.testing.assert_array_equal(threaded[::97], twin_rows(segments[::97]))


def test_batch_segment_without_references_is_nan():
    out = K.ter_batch_serial(*pack([([1, 2], [[1]]), ([3], [])]))
    assert out[0].tolist() == [1.0, 1.0] and np.isnan(out[1]).all()


def test_batch_accepts_read_only_buffers():
    packed = pack([([1, 2, 3], [[3, 2, 1], [1, 2]]), ([], [[5]])])
    for arr in packed:
        arr.setflags(write=False)
    assert K.ter_batch_serial(*packed).tolist() == [[1.0, 2.5], [1.0, 1.0]]
