"""Tokenized text → integer token ids in Arrow ``list<int32>`` columns.

The engine encodes with two numba kernels (called by :mod:`bleustats.stats`,
the only caller of numba code) over an Arrow string array's UTF-8 buffer
(:func:`string_buffers`, zero-copy): ``_count_tokens`` counts each line's
tokens, splitting on exactly the characters Python's ``str.split()`` splits
on; ``_encode_blocks`` splits again and gives ids in order of first occurrence
within each block of segments, deciding token identity exactly (a token of up
to 15 bytes is its own key; longer ones are compared byte by byte). :func:`token_lists` wraps the ids as
``list<int32>``, whose ``.values`` and ``.offsets`` the statistics kernel reads
without copying. ``tests/test_encode.py`` checks the kernels against
``str.split()`` with a plain-Python twin.

Arrow's own ``utf8_split_whitespace`` is not used: in pyarrow 26 it keeps some
whitespace characters at the end of a string as a token (``'\u200a'`` →
``['\u200a']``), where ``str.split()`` gives ``[]``.

Examples
--------
>>> import numpy as np, pyarrow as pa
>>> data, offsets = string_buffers(pa.array(["the cat", "a cat"]))
>>> data[offsets[1]:offsets[2]].tobytes()
b'a cat'
>>> token_lists(np.array([0, 1, 2, 1], np.int32), np.array([0, 2, 4])).to_pylist()
[[0, 1], [2, 1]]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["string_buffers", "token_lists"]


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
