"""chrF statistics kernel (bleustats.engine._chrf_kernels) against its plain-Python twin.

Every input is scored by the public ``chrf_statistics`` (serial path for
small inputs), by the parallel kernel entry point with several blocks, and by
``tests/twins/chrf.py``; the int64 rows must be identical. Inputs come from
hypothesis (empty lines, one character, repeated n-grams, astral characters,
exotic whitespace, NUL, combining marks, punctuation at word edges, 1-5
references) and from hand-picked edge cases (long lines, 1,000 references).

The file also passes with ``NUMBA_DISABLE_JIT=1`` (examples are kept small).
"""

from __future__ import annotations

import string

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.engine.encode import string_buffers
from bleustats.engine import _chrf_kernels as _k
from bleustats.engine.chrf_stats import (
    chrf_column_names,
    chrf_list_rows,
    chrf_metadata,
    chrf_options,
    chrf_segment_rows,
    chrf_statistics,
    chrf_systems_statistics,
)
from bleustats.engine.references import ReferenceSet
from bleustats.metrics.chrf import CHRF
from bleustats.errors import InputError
from ..twins import chrf as twin
from ..conftest import examples

# Repeated letters give repeated n-grams; the rest are the hard cases: punctuation
# that chrF++ splits off, characters whose lowercase is longer (İ) or
# context-dependent (Σ), astral code points (4-byte UTF-8), whitespace that
# str.split() knows and one it does not (U+200B), NUL, a combining mark.
ALPHABET = (
    list("aab bc") + list(".,()'-") + ["é", "ß", "中", "İ", "Σ", "🙂", "\U00010348", "\u0301"]
    + [" ", "\t", "\n", "\x1c", "\x85", "\u00a0", "\u2003", "\u2028", "\u3000", "\u200b", "\x00"]
)
text = st.text(alphabet=st.sampled_from(ALPHABET), max_size=24)
segment = st.tuples(text, st.lists(text, min_size=1, max_size=5))
corpus = st.lists(segment, min_size=1, max_size=5)
options = st.fixed_dictionaries({
    "char_order": st.integers(1, 10),
    "word_order": st.integers(0, 3),
    "beta": st.sampled_from([0, 0.5, 1, 2, 3]),
    "lowercase": st.booleans(),
    "whitespace": st.booleans(),
    "eps_smoothing": st.booleans(),
})

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def twin_rows(segments, opts):
    return np.array([twin.segment_stats(h, refs, **opts) for h, refs in segments], np.int64).reshape(
        len(segments), 3 * (opts["char_order"] + opts["word_order"]))


def kernel_rows(groups, opts, n_blocks=None, order=None):
    """The kernel called directly: ``groups[s]`` = (segment s's hypotheses, its references).

    Hypothesis rows are laid out in ``order`` (a permutation of the rows taken
    segment by segment; default: segment by segment), so a segment's rows need
    not be adjacent. ``n_blocks`` None: the serial entry point; else the
    parallel one with that many blocks of segments. Rows come back in the
    segment-by-segment order.
    """
    low = (lambda t: t.lower()) if opts["lowercase"] else (lambda t: t)
    flat = [(s, low(h)) for s, (hs, _) in enumerate(groups) for h in hs]
    order = np.arange(len(flat)) if order is None else np.asarray(order, np.int64)
    laid = [flat[i] for i in order]  # row k of the kernel's input is flat[order[k]]
    h_data, h_off = string_buffers(pa.array([h for _, h in laid], pa.string()))
    r_data, r_off = string_buffers(pa.array([low(r) for _, rs in groups for r in rs], pa.string()))
    hyp_seg = np.array([s for s, _ in laid], np.int64)
    hyp_rows = np.argsort(hyp_seg, kind="stable")
    hyp_ptr = np.zeros(len(groups) + 1, np.int64)
    np.cumsum(np.bincount(hyp_seg, minlength=len(groups)), out=hyp_ptr[1:])
    ref_ptr = np.zeros(len(groups) + 1, np.int64)
    np.cumsum([len(rs) for _, rs in groups], out=ref_ptr[1:])
    config = np.array([opts["char_order"], opts["word_order"], opts["whitespace"], opts["eps_smoothing"]],
                      np.int64)
    args = (h_data, h_off, hyp_rows, hyp_ptr, r_data, r_off, ref_ptr, config, float(opts["beta"] ** 2))
    if n_blocks is None:
        rows = _k.chrf_rows_serial(*args)
    else:
        bounds = np.unique(np.linspace(0, len(groups), n_blocks + 1).astype(np.int64))
        rows = _k.chrf_rows(*args, bounds)
    back = np.empty_like(rows)
    back[order] = rows
    return back


def parallel_rows(segments, opts, n_blocks=3):
    """The parallel entry point called directly, one hypothesis per segment, segments in several blocks."""
    return kernel_rows([([h], refs) for h, refs in segments], opts, n_blocks)


def engine_rows(segments, opts):
    return chrf_statistics([h for h, _ in segments], [refs for _, refs in segments],
                           references_layout="segments", **opts)


def table_rows(segments, opts):
    """The general path: Arrow hypotheses are never taken by the list lane (chrf_segment_rows)."""
    return chrf_statistics(pa.array([h for h, _ in segments], pa.string()), [refs for _, refs in segments],
                           references_layout="segments", **opts)


def check(segments, opts):
    expected = twin_rows(segments, opts)
    got = engine_rows(segments, opts)  # list inputs of a few segments: the kernel on the texts' UTF-8 bytes
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(table_rows(segments, opts), expected)
    np.testing.assert_array_equal(parallel_rows(segments, opts), expected)


# --------------------------------------------------------------------------- random inputs


@SETTINGS
@given(corpus, options)
def test_kernel_equals_twin(segments, opts):
    check(segments, opts)


@SETTINGS
@given(corpus, st.integers(0, 3))
def test_word_only_and_char_only(segments, word_order):
    # char_order 0 (word n-grams alone) is allowed when word_order > 0
    check(segments, dict(chrf_options(char_order=0 if word_order else 1, word_order=word_order)))


# --------------------------------------------------------------------------- several hypotheses per segment

# a segment: its hypotheses (the systems; none is allowed) and its references (none only for the kernel itself)
group = st.tuples(st.lists(text, max_size=4), st.lists(text, max_size=4))


def twin_group_rows(groups, opts):
    rows = [twin.segment_stats(h, refs, **opts) for hs, refs in groups for h in hs]
    return np.array(rows, np.int64).reshape(len(rows), 3 * (opts["char_order"] + opts["word_order"]))


def table_group_rows(groups, opts, order):
    """chrf_statistics on long-form tables, hypothesis rows laid out in ``order``."""
    flat = [(s, f"sys{k}", h) for s, (hs, _) in enumerate(groups) for k, h in enumerate(hs)]
    laid = [flat[i] for i in order]
    hyps = pa.table({"seg_id": pa.array([s for s, _, _ in laid], pa.int64()), "system": [n for _, n, _ in laid],
                     "text": pa.array([h for _, _, h in laid], pa.string())})
    refs = [(s, f"r{k}", r) for s, (_, rs) in enumerate(groups) for k, r in enumerate(rs)]
    refs = pa.table({"seg_id": pa.array([s for s, _, _ in refs], pa.int64()), "ref_id": [k for _, k, _ in refs],
                     "weight": [1.0] * len(refs), "text": pa.array([r for _, _, r in refs], pa.string())})
    rows = chrf_statistics(hyps, refs, **opts)
    back = np.empty_like(rows)
    back[np.asarray(order, np.int64)] = rows
    return back


def check_groups(groups, opts, order=None):
    expected = twin_group_rows(groups, opts)
    order = list(range(len(expected))) if order is None else order
    for n_blocks in (None, 1, 2, 5):
        np.testing.assert_array_equal(kernel_rows(groups, opts, n_blocks, order), expected)
    if expected.size and all(refs for hs, refs in groups if hs):  # the engine refuses a segment without references
        np.testing.assert_array_equal(table_group_rows(groups, opts, order), expected)


@SETTINGS
@given(st.lists(group, min_size=1, max_size=5), options, st.data())
def test_several_hypotheses_per_segment_equal_twin(groups, opts, data):
    n = sum(len(hs) for hs, _ in groups)
    check_groups(groups, opts, data.draw(st.permutations(range(n))))


GROUP_CASES = {
    # each hypothesis of the segment has a different best reference; the last hypothesis ties
    "best reference switches": [(["ab cd", "xy zw", "ab zw", "", "zw ab"], ["ab cd", "xy zw", "ab zw."])],
    "empty hypotheses and references": [(["", "a", "", " "], ["", "a", ""]), (["", ""], [""])],
    "a segment without references": [(["a", "b c"], []), (["a"], ["a"]), ([], [])],
    "a segment without hypotheses": [([], ["a b"]), (["a b", "a"], ["a b"]), ([], [])],
    "one segment, many systems": [([f"{'ab ' * k}c." for k in range(12)], ["ab ab c.", "c. ab"])],
    "the same hypothesis twice": [(["a b.", "a b."], ["a b", "a b."]), (["a b."], ["a b."])],
}


@pytest.mark.parametrize("name", list(GROUP_CASES))
@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize("eps_smoothing", [False, True])
def test_several_hypotheses_edge_cases(name, word_order, eps_smoothing):
    groups = GROUP_CASES[name]
    opts = dict(chrf_options(word_order=word_order, eps_smoothing=eps_smoothing))
    check_groups(groups, opts)
    n = sum(len(hs) for hs, _ in groups)
    check_groups(groups, opts, list(range(n))[::-1])  # a segment's rows in reverse, segments interleaved


def test_best_reference_switches_between_hypotheses():
    # the case is what its name says: the two hypotheses take their rows from different references
    opts = dict(chrf_options(word_order=2))
    (hyps, refs), = GROUP_CASES["best reference switches"]
    fs = [[twin.f_score(twin.segment_stats(h, [r], **opts), 2, False) for r in refs] for h in hyps[:3]]
    assert [int(np.argmax(f)) for f in fs] == [0, 1, 2]


# --------------------------------------------------------------------------- several systems in one call


@st.composite
def systems_and_streams(draw):
    n = draw(st.integers(0, 4))
    systems = draw(st.lists(st.lists(text, min_size=n, max_size=n), min_size=1, max_size=4))
    streams = draw(st.lists(st.lists(st.none() | text, min_size=n, max_size=n), min_size=1, max_size=3))
    for i in range(n):  # every segment needs a reference
        if all(stream[i] is None for stream in streams):
            streams[0][i] = draw(text)
    return systems, streams


@SETTINGS
@given(systems_and_streams(), options)
def test_systems_together_equal_each_system_alone(inputs, opts):
    systems, streams = inputs
    alone = [chrf_statistics(system, streams, **opts) for system in systems]
    for refs in (streams, ReferenceSet(streams)):
        together = chrf_systems_statistics(systems, refs, **opts)
        assert len(together) == len(systems)
        for a, b in zip(together, alone):
            assert a.dtype == np.int64
            np.testing.assert_array_equal(a, b)
    metric = CHRF(char_order=opts["char_order"], word_order=opts["word_order"], beta=opts["beta"],
                  lowercase=opts["lowercase"], whitespace=opts["whitespace"], eps_smoothing=opts["eps_smoothing"],
                  references=streams)
    rows = metric._systems_statistics(systems)
    if len(systems) < 2:
        assert rows is None  # one system: scored as corpus_score scores it
    else:
        for a, system in zip(rows, systems):
            np.testing.assert_array_equal(a, metric._extract_corpus_statistics(system, None))


def test_systems_together_refuse_what_they_cannot_score():
    with pytest.raises(InputError, match=r"systems: the systems have different numbers of hypotheses \[1, 2\]"):
        chrf_systems_statistics([["a"], ["a", "b"]], [["a", "b"]])
    with pytest.raises(InputError, match=r"systems\[1\]\[0\] must be a str; got int 3"):
        chrf_systems_statistics([["a"], [3]], [["a"]])
    with pytest.raises(InputError, match=r"systems must be a list of systems"):
        chrf_systems_statistics(["a", "b"], [["a", "b"]])
    with pytest.raises(InputError, match=r"no reference: seg_id 1"):
        chrf_systems_statistics([["a", "b"], ["a", "c"]], [["a", None]])
    assert [r.shape for r in chrf_systems_statistics([[], []], [[]], word_order=2)] == [(0, 24), (0, 24)]


# --------------------------------------------------------------------------- edge cases


EDGE_CASES = {
    "empty hypothesis": [("", ["a b", "c"])],
    "empty reference": [("a b", [""])],
    "all references empty": [("a b.", ["", "", ""])],
    "empty everywhere": [("", [""])],
    "one character": [("a", ["a"]), ("a", ["b"])],
    "only whitespace": [(" \t\u3000", ["\u00a0 a", " "])],
    "repeated n-grams": [("a a a a a a", ["a a", "a a a a a a a a a"])],
    "NUL bytes": [("a\x00b \x00", ["\x00\x00 b", "a\x00b"])],
    "astral": [("🙂🙂 𐍈.", ["🙂 𐍈.", "🙂🙂🙂"])],
    "punctuation edges": [("(hi) ... 'a' a. .a", ["(hi ) .. . 'a '. a", ". ."])],
    "tie keeps the first": [("ab", ["ab c", "ab d", "ab"])],
    "the empty reference first": [("ab", ["", "ab"])],
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
@pytest.mark.parametrize("word_order", [0, 2])
@pytest.mark.parametrize("whitespace", [False, True])
@pytest.mark.parametrize("eps_smoothing", [False, True])
def test_edge_cases(name, word_order, whitespace, eps_smoothing):
    opts = dict(chrf_options(word_order=word_order, whitespace=whitespace, eps_smoothing=eps_smoothing))
    check(EDGE_CASES[name], opts)


def test_long_lines_and_repeats():
    rng = np.random.default_rng(7)
    words = ["the", "cat", "sat", "ein", "Haus", "中文", "🙂", "a.", "(b", "x"]
    long_hyp = " ".join(rng.choice(words, 600))
    long_ref = " ".join(rng.choice(words, 700))
    segments = [(long_hyp, [long_ref, long_hyp[::-1]]), ("a" * 2000, ["a" * 1500, "a a " * 300])]
    check(segments, dict(chrf_options(word_order=2)))


def test_thousand_references():
    rng = np.random.default_rng(3)
    refs = ["".join(rng.choice(list("ab c."), 12)) for _ in range(1000)]
    segments = [("ab c. ab", refs), ("", refs[:3])]
    check(segments, dict(chrf_options(word_order=2, char_order=4)))


def test_many_hypotheses_per_segment_and_table_inputs():
    # the long-form tables: two systems per segment; references in table row order within a segment
    hyps = pa.table({"seg_id": pa.array([1, 0, 1], pa.int64()), "system": ["A", "A", "B"],
                     "text": ["a b c", "x y", "a c"]})
    refs = pa.table({"seg_id": pa.array([1, 0, 1], pa.int64()), "ref_id": ["r0", "r0", "r1"],
                     "weight": [1.0, 1.0, 1.0], "text": ["a b", "x", "a c"]})
    got = chrf_statistics(hyps, refs, word_order=2)
    want = twin_rows([("a b c", ["a b", "a c"]), ("x y", ["x"]), ("a c", ["a b", "a c"])],
                     dict(chrf_options(word_order=2)))
    np.testing.assert_array_equal(got, want)


def test_arrow_and_stream_inputs_agree():
    hyps = ["a b", "c d."]
    streams = [["a", "c d ."], ["a b", None]]
    want = twin_rows([("a b", ["a", "a b"]), ("c d.", ["c d ."])], dict(chrf_options(word_order=2)))
    np.testing.assert_array_equal(chrf_statistics(hyps, streams, word_order=2), want)
    # Arrow streams (io.streams_table takes no nulls): read-only buffers, 64-bit offsets
    arrow_hyps = pa.array(hyps, pa.large_string())
    arrow_refs = [pa.array(["a", "c d ."], pa.string()), pa.array(["a b", ""], pa.string())]
    want = twin_rows([("a b", ["a", "a b"]), ("c d.", ["c d .", ""])], dict(chrf_options(word_order=2)))
    np.testing.assert_array_equal(chrf_statistics(arrow_hyps, arrow_refs, word_order=2), want)


def test_list_lane_takes_only_what_it_can_read():
    opts = chrf_options(word_order=2)
    assert chrf_segment_rows(["a"], [[]], opts) is None  # no reference: the general path's error
    assert chrf_segment_rows(["\ud800"], [[("a", 1.0)]], opts) is None  # not UTF-8 encodable
    assert chrf_segment_rows(["a" * 20_000], [[("a", 1.0)]], opts) is None  # more than LIST_MAX_CHARS
    assert chrf_list_rows(pa.array(["a"]), [["a"]], "auto", opts) is None  # not a list
    assert chrf_list_rows(["a", "b"], [["a"]], "auto", opts) is None  # a stream of the wrong length
    big = ["ab c"] * 5_000  # past the lane's size: the tables, the same rows
    np.testing.assert_array_equal(chrf_statistics(big, [big], word_order=2)[:2],
                                  chrf_segment_rows(big[:2], [[(t, 1.0)] for t in big[:2]], opts))


def test_no_hypotheses():
    assert chrf_statistics([], [[]], word_order=2).shape == (0, 24)


# --------------------------------------------------------------------------- text rules


def test_space_rule_is_str_split():
    space = [c for c in range(0x3001) if chr(c).isspace()]
    assert [c for c in range(0x3001) if _k._is_space(c)] == space
    rng = np.random.default_rng(0)
    assert not any(_k._is_space(int(c)) for c in rng.integers(0x3001, 0x110000, 2000))


def test_punctuation_rule_is_string_punctuation():
    assert "".join(chr(c) for c in range(128) if _k._is_punct(c)) == string.punctuation


# --------------------------------------------------------------------------- errors and layout


def test_segment_without_reference_is_an_error():
    with pytest.raises(InputError, match=r"1 segment\(s\) have hypotheses but no reference: seg_id 1"):
        chrf_statistics(["a", "b"], [["a", None]])


@pytest.mark.parametrize("kwargs, pattern", [
    ({"char_order": -1}, r"char_order must be a non-negative integer .* got int -1"),
    ({"char_order": 2.0}, r"char_order must be a non-negative integer .* got float 2.0"),
    ({"word_order": True}, r"word_order must be a non-negative integer .* got bool True"),
    ({"char_order": 0}, r"char_order \+ word_order must be at least 1"),
    ({"beta": -1}, r"beta must be a finite non-negative number .* got int -1"),
    ({"beta": float("nan")}, r"beta must be a finite non-negative number .* got float nan"),
    ({"beta": "2"}, r"beta must be a finite non-negative number .* got str '2'"),
    ({"lowercase": 1}, r"lowercase must be True or False; got int 1"),
    ({"eps_smoothing": None}, r"eps_smoothing must be True or False; got NoneType None"),
])
def test_bad_options(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        chrf_statistics(["a"], [["a"]], **kwargs)


def test_line_too_long_is_an_error(monkeypatch):
    # the kernel indexes lines of either side: a line of either that cannot be indexed is refused
    monkeypatch.setattr(_k, "MAX_IDS", 100)
    with pytest.raises(InputError, match=r"line 1 \(seg_id 1\) has 40 bytes; .* at most 10 bytes"):
        chrf_statistics(["a", "b" * 40], [["a", "b"]], char_order=6, word_order=2)
    with pytest.raises(InputError, match=r"a reference of seg_id 1 has 40 bytes; .* at most 10 bytes"):
        chrf_statistics(["a", "b"], [["a", "b" * 40]], char_order=6, word_order=2)


def test_column_names_and_metadata():
    names = chrf_column_names(6, 2)
    assert len(names) == 24 and names[:3] == ["chrf_hyp_1", "chrf_ref_1", "chrf_match_1"]
    assert names[-3:] == ["chrfw_hyp_2", "chrfw_ref_2", "chrfw_match_2"]
    meta = chrf_metadata(chrf_options(beta=3, eps_smoothing=True))
    assert meta["bleustats.chrf_beta"] == "3" and meta["bleustats.chrf_eps_smoothing"] == "true"

