"""numpy arrays and Python strings → Arrow arrays, without pyarrow's pandas shim.

Any call of ``pyarrow.array`` / ``pyarrow.table`` on Python or numpy values
(``pa.array([1, 2])`` included), and any ``Array.to_numpy()`` (a zero-copy
float column included), first asks pyarrow's pandas shim about pandas, and that
imports pandas: 0.2–0.5 s, paid by every process that touches a table once
(pyarrow 26). The builders here go through ``Array.from_buffers`` and
:func:`to_numpy` reads the buffers with ``numpy.frombuffer``: neither asks
(``tests/engine/test_columns.py`` checks that scoring lists and files loads no
pandas), and no numeric data is copied: each side views the other's memory.

Examples
--------
>>> import numpy as np
>>> numeric(np.arange(3)).to_pylist(), strings(["a", "bé"]).to_pylist(), repeated("x", 2).to_pylist()
([0, 1, 2], ['a', 'bé'], ['x', 'x'])
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pyarrow as pa

from ..errors import InputError

__all__ = ["numeric", "readonly", "repeated", "string_offsets", "strings", "to_numpy"]

_TYPES = {np.dtype(np.int64): pa.int64(), np.dtype(np.int32): pa.int32(), np.dtype(np.float64): pa.float64(),
          np.dtype(np.uint8): pa.uint8(), np.dtype(np.float32): pa.float32(), np.dtype(np.uint64): pa.uint64()}


def numeric(values: np.ndarray) -> pa.Array:
    """A 1-D numeric numpy array as an Arrow array over the same memory (contiguous copy if needed)."""
    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype not in _TYPES:
        raise TypeError(f"numeric needs a 1-D array of {', '.join(map(str, _TYPES))}; got {values.dtype}"
                        f" of shape {values.shape}.")
    return pa.Array.from_buffers(_TYPES[values.dtype], len(values), [None, pa.py_buffer(values)])


def string_offsets(lengths: np.ndarray) -> np.ndarray:
    """Arrow offsets (int32 when they fit, else int64) of strings of these byte lengths."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets.astype(np.int32) if offsets[-1] < 2**31 else offsets


def _from_parts(n: int, offsets: np.ndarray, data: bytes | np.ndarray) -> pa.Array:
    cls = pa.StringArray if offsets.dtype == np.int32 else pa.LargeStringArray
    return cls.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def strings(items: Sequence[str], *, where: str = "texts") -> pa.Array:
    """Python strings as an Arrow ``string`` array (``large_string`` past 2 GiB of UTF-8).

    ``where`` names the input in the error raised for a string that has no
    UTF-8 form (a lone surrogate such as ``'\\ud800'``).
    """
    n = len(items)
    text = "".join(items)
    if text.isascii():  # one encode, and byte lengths are character lengths
        return _from_parts(n, string_offsets(np.fromiter(map(len, items), np.int64, n)), text.encode("ascii"))
    try:
        encoded = [s.encode("utf-8") for s in items]
    except UnicodeEncodeError:
        bad = next(i for i, s in enumerate(items) if not _encodable(s))
        raise InputError(f"{where}[{bad}] is not valid Unicode text (it has a lone surrogate): "
                         f"{items[bad]!r:.60}; decode the input with errors='replace' or fix it.") from None
    return _from_parts(n, string_offsets(np.fromiter(map(len, encoded), np.int64, n)), b"".join(encoded))


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def repeated(value: str, n: int) -> pa.Array:
    """``value`` ``n`` times as an Arrow ``string`` array."""
    raw = value.encode("utf-8")
    return _from_parts(n, string_offsets(np.full(n, len(raw), np.int64)), raw * n)


_NUMPY_OF = {pa.int64(): np.int64, pa.int32(): np.int32, pa.float64(): np.float64, pa.uint8(): np.uint8,
             pa.float32(): np.float32, pa.uint64(): np.uint64, pa.int8(): np.int8, pa.int16(): np.int16,
             pa.uint16(): np.uint16, pa.uint32(): np.uint32}


def _array_to_numpy(arr: pa.Array) -> np.ndarray:
    dtype = _NUMPY_OF.get(arr.type)
    if arr.null_count == 0 and dtype is not None:
        if len(arr) == 0:
            return np.zeros(0, dtype)
        return np.frombuffer(arr.buffers()[1], dtype, count=len(arr), offset=arr.offset * np.dtype(dtype).itemsize)
    if arr.null_count == 0 and pa.types.is_boolean(arr.type):
        if len(arr) == 0:
            return np.zeros(0, bool)
        bits = np.unpackbits(np.frombuffer(arr.buffers()[1], np.uint8), bitorder="little")
        return bits[arr.offset:arr.offset + len(arr)].astype(bool)
    if arr.null_count == 0 and (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        out = np.empty(len(arr), dtype=object)
        out[:] = arr.to_pylist()
        return out
    return arr.to_numpy(zero_copy_only=False)  # nulls, other types: pyarrow's own conversion


def to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow column as numpy, as ``to_numpy(zero_copy_only=False)`` gives it, without importing pandas.

    A numeric array without nulls (one chunk) comes back as a read-only view
    of its buffer; several chunks are concatenated; strings become an object
    array of ``str``.

    Examples
    --------
    >>> to_numpy(pa.chunked_array([numeric(np.arange(2)), numeric(np.arange(1))])).tolist()
    [0, 1, 0]
    """
    if isinstance(values, pa.ChunkedArray):
        parts = [_array_to_numpy(c) for c in values.chunks]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return _array_to_numpy(pa.chunked_array([], values.type).combine_chunks())
        return np.concatenate(parts)
    return _array_to_numpy(values)


def readonly(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Read-only, C-contiguous views of ``arrays`` (a copy only of one that is not contiguous).

    numba compiles a kernel once per type of its arguments, and a read-only
    array is another type than a writable one. Arrow's buffers are read-only
    and numpy's new arrays writable, so a kernel fed from both would compile
    twice; its callers pass every input array through this, and it compiles
    once per dtype.

    Examples
    --------
    >>> a, b = readonly(np.arange(3), np.frombuffer(b"xy", np.uint8))
    >>> a.flags.writeable, b.flags.writeable, a.tolist()
    (False, False, [0, 1, 2])
    """
    views = []
    for array in arrays:
        view = np.ascontiguousarray(array).view()
        view.flags.writeable = False
        views.append(view)
    return tuple(views)
