"""Encoding: the numba kernels equal their plain-Python twin (str.split(), first-occurrence ids)."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.engine import _encode_kernels
from bleustats.engine.encode import string_buffers, token_lists
from bleustats.engine._columns import readonly
from bleustats.engine.encode import _padded_words
from ..conftest import examples

WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000 and chr(c).isspace()]


def encode_lines(data, offsets, block_ranges):
    """The parallel kernel, given its inputs as the engine passes them (read-only, int64 offsets)."""
    return _encode_kernels.encode_lines(*readonly(data, _padded_words(data), offsets.astype(np.int64),
                                                  np.asarray(block_ranges, np.int64)))


def kernel_ids(arr, hyp_bounds, ref_bounds):
    """The engine's kernel: tokens counted per line, then ids per block (block k: two line ranges)."""
    data, offsets = string_buffers(arr)
    hb, rb = np.asarray(hyp_bounds, np.int64), np.asarray(ref_bounds, np.int64)
    ranges = np.stack([hb[:-1], hb[1:], rb[:-1], rb[1:]], axis=1)
    tok_off, ids, n_vocab = encode_lines(data, offsets, ranges)
    assert n_vocab == max([len(set(ids[tok_off[lo]:tok_off[hi]].tolist()) | set(ids[tok_off[a]:tok_off[b]].tolist()))
                           for lo, hi, a, b in ranges.tolist()] or [0])
    return ids, tok_off


def numba_encode(lines, cuts=()):
    """Ids per block (cuts = line indices where blocks start); every line in a block's first range."""
    bounds = np.r_[0, np.asarray(cuts, np.int64), len(lines)]
    ids, tok_off = kernel_ids(pa.array(lines, pa.string()), bounds, np.full(len(bounds), len(lines)))
    return token_lists(ids, tok_off).to_pylist(), (int(ids.max()) + 1 if len(ids) else 0)


def python_encode(lines):
    """The obvious twin: str.split(), ids by first occurrence."""
    vocab: dict[str, int] = {}
    return [[vocab.setdefault(t, len(vocab)) for t in line.split()] for line in lines], len(vocab)


def test_numba_whitespace_set_is_pythons():
    # every str.split() whitespace character separates tokens, alone, doubled and at the ends
    for ws in WHITESPACE:
        lines = [f"a{ws}b", f"{ws}a{ws}{ws}b{ws}", ws, f"x{ws}"]
        assert numba_encode(lines) == python_encode(lines), repr(ws)
    # and nothing else does: neighbours of the multi-byte ones in UTF-8
    near = ["\u0084", "\u0086", "\u009f", "\u00a1", "\u167f", "\u1681", "\u1fff", "\u200b", "\u2027",
            "\u202a", "\u202e", "\u2030", "\u205e", "\u2060", "\u2fff", "\u3001", "\x1b", "\x7f"]
    for c in near:
        assert numba_encode([f"a{c}b"]) == python_encode([f"a{c}b"]), repr(c)


text = st.text(alphabet=st.sampled_from(["a", "b", "é", "日", "\U0001f600", "\x00"] + WHITESPACE), max_size=30)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(text, max_size=12))
def test_numba_encoder_equals_python(lines):
    assert numba_encode(lines) == python_encode(lines)


def test_vocabulary_growth_keeps_ids_exact():
    # many distinct tokens force the table to grow several times; ids stay first-occurrence order
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in rng.permutation(20_000)]
    lines = [" ".join(words[i:i + 37]) for i in range(0, len(words), 37)] * 2
    assert numba_encode(lines) == python_encode(lines)


def test_tokens_that_share_a_hash_slot_prefix_stay_distinct():
    # same length, same bytes but one: compared byte for byte
    lines = ["ab ba aa bb", "abc acb bac bca cab cba", "a" * 300 + " " + "a" * 299 + "b"]
    assert numba_encode(lines) == python_encode(lines)


def test_short_and_long_token_keys_are_exact():
    # tokens of 1-15 bytes are their own key, longer ones are hashed and compared: every length
    # around the 8- and 15/16-byte edges, NUL bytes (a key must hold the length), shared prefixes,
    # and tokens that end at the last byte of the buffer (the 8-byte loads read the padding)
    words = []
    for n in range(1, 26):
        words += ["x" * n, "x" * (n - 1) + "y", "\x00" * n, "x" * (n - 1) + "\x00", "é" * n]
    lines = [" ".join(words), " ".join(reversed(words)), "x\x00", "x", "xxxxxxxy"]
    assert numba_encode(lines) == python_encode(lines)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.lists(st.text(alphabet=st.sampled_from("ab\x00é\u00a0\u00a9\u2000\u2010\u3000\u3001"),
                                  min_size=1, max_size=20), max_size=8), max_size=6))
def test_tokens_of_every_length_equal_python(token_lines):
    # the alphabet includes whitespace with multi-byte UTF-8 (U+00A0, U+2000, U+3000) and
    # non-whitespace sharing their lead bytes (U+00A9, U+2010, U+3001)
    lines = [" ".join(t) for t in token_lines]
    assert numba_encode(lines) == python_encode(lines)


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(text, min_size=1, max_size=12), st.data())
def test_each_block_is_its_own_first_occurrence_id_space(lines, data):
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(lines)), max_size=3))))
    got, _ = numba_encode(lines, cuts)
    edges = [0, *cuts, len(lines)]
    want = []
    for lo, hi in zip(edges, edges[1:]):
        want += python_encode(lines[lo:hi])[0]
    assert got == want


def test_hypothesis_and_reference_ranges_share_the_block_vocabulary():
    # block 0: hypothesis line 0 with reference line 2; block 1: hypothesis line 1 with line 3
    ids, tok_off = kernel_ids(pa.array(["a b", "c", "b c d", "a"]), [0, 1, 2], [2, 3, 4])
    assert token_lists(ids, tok_off).to_pylist() == [[0, 1], [0], [1, 2, 3], [1]]


def test_sliced_string_arrays_are_read_at_their_offset():
    ids, tok_off = kernel_ids(pa.array(["x y", "a b c", "b"]).slice(1), [0, 2], [2, 2])
    assert token_lists(ids, tok_off).to_pylist() == [[0, 1, 2], [1]]


def test_token_counts_per_line():
    lines = ["", " ", "a", " a  b ", "a\u3000b\u00a0c", "\u3001\u3000", "x" * 1000]
    data, offsets = string_buffers(pa.array(lines))
    tok_off, _, _ = encode_lines(data, offsets, [[0, len(lines)]])
    assert np.diff(tok_off).tolist() == [len(x.split()) for x in lines]


ascii_heavy = st.text(alphabet=st.sampled_from([chr(c) for c in range(32, 127)] * 4
                                               + ["\t", "\n", "\x0b", "\x1c", "\x1f", "\x00", "\x7f", "\u00a0",
                                                  "\u3000", "\u2009", "é", "\u0085", "日"]), max_size=90)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(ascii_heavy, min_size=1, max_size=10))
def test_word_at_a_time_counts_equal_python(lines):
    # mostly printable ASCII: the counter takes eight bytes at a time, at every alignment, and falls
    # back to bytes for control characters, newlines and UTF-8 whitespace inside or across the words
    data, offsets = string_buffers(pa.array(lines))
    tok_off, ids, _ = encode_lines(data, offsets, [[0, len(lines)]])
    assert np.diff(tok_off).tolist() == [len(x.split()) for x in lines]
    assert token_lists(ids, tok_off).to_pylist() == python_encode(lines)[0]



def test_one_long_line_equals_python():
    # one line of 60,000 tokens, 20,000 words, some over 15 bytes (hashed keys)
    rng = np.random.default_rng(13)
    words = [f"w{i}" if i % 7 else f"long-token-number-{i}" for i in range(20_000)]
    line = " ".join(words[i] for i in rng.integers(0, len(words), 60_000))
    assert numba_encode([line, line[:1000]]) == python_encode([line, line[:1000]])
