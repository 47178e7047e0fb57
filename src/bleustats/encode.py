"""Tokenized text → integer token ids in Arrow ``list<int32>`` columns.

The engine's encoder is the numba kernel ``_kernels._encode_whitespace``
(called by :mod:`bleustats.stats`, the only caller of numba code): it walks an
Arrow string array's UTF-8 buffer once (:func:`string_buffers`, zero-copy),
splits on exactly the characters Python's ``str.split()`` splits on, and gives
ids in order of first occurrence, deciding token identity by comparing bytes.
:func:`token_lists` wraps its output as ``list<int32>``, whose ``.values`` and
``.offsets`` the statistics kernel reads without copying.

:func:`encode_tokenized` is the same mapping done with Arrow compute
(``utf8_split_whitespace``, which splits on the same characters as
``str.split()`` on every code point, and the exact hash dictionary of
``dictionary_encode``); ``tests/test_encode.py`` checks that the two agree.
Hypotheses and references encoded in one call share one id space, which is
what n-gram matching needs; ids mean nothing across calls.

Examples
--------
>>> enc = encode_tokenized(["the cat", "a cat"], ["the cat sat"])
>>> enc.hyp_ids.to_pylist(), enc.ref_ids.to_pylist()
([[0, 1], [2, 1]], [[0, 1, 3]])
>>> enc.vocab_size
4
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["EncodedTexts", "encode_tokenized", "string_buffers", "token_lists"]


@dataclass(frozen=True)
class EncodedTexts:
    """Token ids of hypotheses and references that share one id space.

    Attributes
    ----------
    hyp_ids, ref_ids : pyarrow.ListArray
        ``list<int32>`` (or ``large_list<int32>`` past 2**31 tokens), one
        entry per input line; ``.values`` and ``.offsets`` are the flat buffers
        the statistics kernel reads without copying.
    vocab_size : int
        Number of distinct tokens.
    """

    hyp_ids: pa.ListArray
    ref_ids: pa.ListArray
    vocab_size: int


def _as_string_array(lines: Sequence[str] | pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    if isinstance(lines, pa.Array):
        return lines
    try:
        return pa.array(lines, type=pa.string())
    except pa.ArrowCapacityError:
        return pa.array(lines, type=pa.large_string())


def encode_tokenized(
    hyp_lines: Sequence[str] | pa.Array,
    ref_lines: Sequence[str] | pa.Array,
) -> EncodedTexts:
    """Encode whitespace-tokenized lines to token ids in one shared id space.

    Parameters
    ----------
    hyp_lines, ref_lines : sequence of str or pyarrow string array
        Tokenized lines (tokens separated by any whitespace, as
        :func:`bleustats.tokenize.tokenize_lines` returns them).

    Returns
    -------
    EncodedTexts
        ``hyp_ids[i]`` lists the ids of ``hyp_lines[i].split()``, likewise for
        references; equal tokens get equal ids, different tokens different ids.
    """
    hyp = _as_string_array(hyp_lines)
    ref = _as_string_array(ref_lines)
    if hyp.type != ref.type:
        hyp, ref = hyp.cast(pa.large_string()), ref.cast(pa.large_string())
    both = pa.concat_arrays([hyp, ref])
    tokens = pc.utf8_split_whitespace(both)
    flat = tokens.flatten()
    offsets = tokens.offsets.to_numpy()
    keep = pc.not_equal(pc.binary_length(flat), 0)
    if not pc.all(keep).as_py():
        # Arrow yields '' before leading / after trailing whitespace and for an
        # empty line; str.split() does not. Drop them and renumber the offsets.
        kept = np.concatenate([[0], np.cumsum(keep.to_numpy(zero_copy_only=False), dtype=np.int64)])
        offsets = kept[offsets - offsets[0]].astype(offsets.dtype)
        flat = flat.filter(keep)
    encoded = pc.dictionary_encode(flat)
    ids = encoded.indices
    if ids.type != pa.int32():
        ids = ids.cast(pa.int32())
    offsets = pa.array(offsets)
    if pa.types.is_large_list(tokens.type):
        lists = pa.LargeListArray.from_arrays(offsets, ids)
    else:
        lists = pa.ListArray.from_arrays(offsets, ids)
    n_hyp = len(hyp)
    return EncodedTexts(
        hyp_ids=lists.slice(0, n_hyp),
        ref_ids=lists.slice(n_hyp),
        vocab_size=len(encoded.dictionary),
    )


def string_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Zero-copy numpy views of a string array's UTF-8 bytes and line offsets.

    The offsets index into the bytes (the array's own slice offset applied).
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        raise TypeError(f"string_buffers needs a string array; got {arr.type}.")
    _, offsets_buf, data_buf = arr.buffers()
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=off_type, count=len(arr) + 1, offset=arr.offset * np.dtype(off_type).itemsize)
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    if len(data) == 0:
        data = np.zeros(1, np.uint8)
    return data, offsets


def token_lists(ids: np.ndarray, offsets: np.ndarray) -> pa.ListArray:
    """Wrap flat int32 token ids and per-line offsets as an Arrow ``list<int32>`` (no copy of ids)."""
    if offsets[-1] < 2**31:
        return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(ids))
    return pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(ids))
