"""Encoding: the numba encoder equals its Arrow twin and Python's str.split(), exactly."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats import _kernels
from bleustats.encode import encode_tokenized, string_buffers, token_lists

WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000 and chr(c).isspace()]


def numba_encode(lines):
    ids, offsets, vocab = _kernels._encode_whitespace(*string_buffers(pa.array(lines, pa.string())))
    return token_lists(ids, offsets).to_pylist(), vocab


def python_encode(lines):
    """The obvious twin: str.split(), ids by first occurrence."""
    vocab: dict[str, int] = {}
    return [[vocab.setdefault(t, len(vocab)) for t in line.split()] for line in lines], len(vocab)


def test_arrow_split_is_str_split_on_every_code_point():
    chars = [chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000]
    inner = pc.utf8_split_whitespace(pa.array([f"a{c}b" for c in chars])).to_pylist()
    assert [c for c, got in zip(chars, inner) if got != f"a{c}b".split()] == []


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


@settings(max_examples=300, deadline=None)
@given(st.lists(text, max_size=12))
def test_numba_encoder_equals_python_and_arrow(lines):
    want = python_encode(lines)
    assert numba_encode(lines) == want
    half = len(lines) // 2
    arrow = encode_tokenized(lines[:half], lines[half:])
    assert (arrow.hyp_ids.to_pylist() + arrow.ref_ids.to_pylist(), arrow.vocab_size) == want


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


def test_sliced_string_arrays_are_read_at_their_offset():
    arr = pa.array(["x y", "a b c", "b"]).slice(1)
    ids, offsets, _ = _kernels._encode_whitespace(*string_buffers(arr))
    assert token_lists(ids, offsets).to_pylist() == [[0, 1, 2], [1]]
