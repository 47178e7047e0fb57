"""sacreBLEU's BLEU preprocessing over an Arrow string array's UTF-8 bytes.

:func:`tokenize_buffer` turns every line of a UTF-8 buffer into exactly the
text :func:`bleustats.tokenize.tokenize_lines` (and sacreBLEU 2.6's
``BLEU._preprocess_segment``) produces for it, without creating a Python
string per line or per token; :func:`tokenize_array` does the same for a
``pyarrow`` string array.  The work is done by numba kernels
(:mod:`bleustats.engine._tokenize_kernels`), in parallel over blocks of lines
for large inputs.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ..encode import string_buffers
from . import _tokenize_kernels as _k
from ._tokenize_tables import code_point_tables

__all__ = ["BYTE_TOKENIZERS", "tokenize_array", "tokenize_buffer"]

#: Tokenizer names :func:`tokenize_buffer` accepts, as sacreBLEU spells them.
BYTE_TOKENIZERS: tuple[str, ...] = tuple(_k.TOKENIZER_CODES)

# Inputs smaller than this (in bytes) run on one thread: starting the thread
# pool costs more than it saves.
_PARALLEL_MIN_BYTES = 1 << 16
# Bytes of input per parallel block (a block's scratch and output stay in cache).
_BLOCK_BYTES = 1 << 16


def _check_tokenizer(tokenizer: object) -> int:
    if not isinstance(tokenizer, str) or tokenizer not in _k.TOKENIZER_CODES:
        allowed = ", ".join(map(repr, BYTE_TOKENIZERS))
        raise ValueError(f"tokenizer must be one of {allowed}; got {tokenizer!r}.")
    return _k.TOKENIZER_CODES[tokenizer]


def _check_buffers(data: object, offsets: object) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(data, np.ndarray) or data.ndim != 1 or data.dtype != np.uint8:
        raise TypeError(
            "data must be a 1-D numpy uint8 array (UTF-8 bytes, e.g. from "
            f"bleustats.encode.string_buffers); got {_describe(data)}."
        )
    if not isinstance(offsets, np.ndarray) or offsets.ndim != 1 or offsets.dtype.kind not in "iu":
        raise TypeError(
            f"offsets must be a 1-D numpy integer array (line i is data[offsets[i]:offsets[i + 1]]); "
            f"got {_describe(offsets)}."
        )
    if len(offsets) == 0:
        raise ValueError("offsets must hold at least one value (n_lines + 1 offsets); got an empty array.")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets[0] < 0 or offsets[-1] > len(data) or (len(offsets) > 1 and (np.diff(offsets) < 0).any()):
        raise ValueError(
            f"offsets must be non-decreasing and within 0..len(data) = {len(data)}; got values from "
            f"{offsets.min()} to {offsets.max()}{' (decreasing somewhere)' if (np.diff(offsets) < 0).any() else ''}."
        )
    return np.ascontiguousarray(data), offsets


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"array of dtype {value.dtype} and shape {value.shape}"
    return f"{type(value).__name__} {value!r:.60}"


def _block_bounds(offsets: np.ndarray, n_threads: int) -> np.ndarray:
    """Line numbers that cut the input into blocks of about ``_BLOCK_BYTES`` bytes."""
    n_lines = len(offsets) - 1
    total = int(offsets[-1] - offsets[0])
    n_blocks = min(n_lines, max(4 * n_threads, total // _BLOCK_BYTES + 1))
    targets = offsets[0] + total * np.arange(1, n_blocks, dtype=np.int64) // n_blocks
    cuts = np.searchsorted(offsets[:-1], targets, side="left")
    return np.unique(np.r_[0, cuts, n_lines]).astype(np.int64)


def tokenize_buffer(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.integer],
    tokenizer: str,
    *,
    lowercase: bool = False,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Lowercase (optionally) and tokenize every line of a UTF-8 buffer as sacreBLEU does.

    Line ``i`` is ``data[offsets[i]:offsets[i + 1]]``.  Output line ``i``,
    ``out_data[out_offsets[i]:out_offsets[i + 1]]``, is the UTF-8 encoding of

    .. math::

        \\mathrm{tok}\\big((\\ell_i.\\mathrm{lower}() \\text{ if lowercase else } \\ell_i)
        .\\mathrm{rstrip}()\\big)

    where :math:`\\ell_i` is the decoded line and tok is sacreBLEU 2.6's
    tokenizer of that name: byte for byte the string
    :func:`bleustats.tokenize.tokenize_lines` returns for it (for ``zh``,
    which :data:`bleustats.tokenize.TOKENIZERS` does not list yet,
    ``bleustats.tokenize._tokenize_zh_lines``).

    Parameters
    ----------
    data : numpy.ndarray of uint8
        Valid UTF-8 (as in any Arrow string array; read-only buffers are fine).
        Lines may contain any character, newlines and NUL included.
    offsets : numpy.ndarray of int32 or int64
        ``n_lines + 1`` non-decreasing offsets into ``data``; the first need not be 0.
    tokenizer : {'13a', 'intl', 'char', 'none', 'zh'}
        sacreBLEU's tokenizer name.
    lowercase : bool, default False
        Lowercase with :meth:`str.lower` semantics (final sigma, 'İ' -> 'i̇').

    Returns
    -------
    out_data : numpy.ndarray of uint8
        The preprocessed lines, concatenated.
    out_offsets : numpy.ndarray of int64
        ``n_lines + 1`` offsets into ``out_data``, starting at 0.

    Raises
    ------
    ValueError
        If ``tokenizer`` is unknown or ``offsets`` are not valid offsets into ``data``.
    TypeError
        If ``data`` or ``offsets`` are not 1-D numpy arrays of the right kind.

    See Also
    --------
    tokenize_array : The same for a ``pyarrow`` string array.
    bleustats.tokenize.tokenize_lines : The plain-Python implementation.

    Notes
    -----
    Bytes that are not UTF-8 cannot occur in an Arrow string array; given
    them, the kernels stay within their arrays but the output is unspecified.

    Examples
    --------
    >>> import numpy as np
    >>> raw = "Hello, World!It costs $3.50 (in 2021).".encode()
    >>> data, offsets = np.frombuffer(raw, np.uint8), np.array([0, 13, 38])
    >>> out, out_offsets = tokenize_buffer(data, offsets, "13a", lowercase=True)
    >>> [out[a:b].tobytes().decode() for a, b in zip(out_offsets[:-1], out_offsets[1:])]
    ['hello , world !', 'it costs $ 3.50 ( in 2021 ) .']
    >>> tokenize_buffer(data, offsets, "ja-mecab")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer must be one of 'none', '13a', 'intl', 'char', 'zh'; got 'ja-mecab'.
    """
    tok = _check_tokenizer(tokenizer)
    data, offsets = _check_buffers(data, offsets)
    lowercase = bool(lowercase)
    tables = code_point_tables()
    n_lines = len(offsets) - 1
    out_offsets = np.zeros(n_lines + 1, np.int64)
    n_threads = numba.get_num_threads()
    if n_threads == 1 or offsets[-1] - offsets[0] < _PARALLEL_MIN_BYTES:
        out, out_len = _k._tokenize_serial(data, offsets, tok, lowercase, tables)
        np.cumsum(out_len, out=out_offsets[1:])
        return out, out_offsets
    bounds = _block_bounds(offsets, n_threads)
    tmp, out_len = _k._tokenize_blocks(data, offsets, bounds, tok, lowercase, tables)
    np.cumsum(out_len, out=out_offsets[1:])
    return _k._gather_blocks(tmp, offsets, bounds, out_offsets), out_offsets


def tokenize_array(texts: pa.Array | pa.ChunkedArray, tokenizer: str, *, lowercase: bool = False) -> pa.Array:
    """:func:`tokenize_buffer` for a ``pyarrow`` string or large_string array.

    Parameters
    ----------
    texts : pyarrow.Array or pyarrow.ChunkedArray
        One segment per element; no nulls.
    tokenizer : {'13a', 'intl', 'char', 'none', 'zh'}
        sacreBLEU's tokenizer name.
    lowercase : bool, default False
        Lowercase first, as :meth:`str.lower` does.

    Returns
    -------
    pyarrow.Array
        A ``string`` array (``large_string`` when the output exceeds 2 GiB) of
        the preprocessed segments, tokens separated by single spaces.

    Raises
    ------
    TypeError
        If ``texts`` is not a string array.
    ValueError
        If ``texts`` has nulls, or ``tokenizer`` is unknown.

    Examples
    --------
    >>> import pyarrow as pa
    >>> tokenize_array(pa.array(["«Oui», 2015.", "In 2015. Yes"]), "intl").to_pylist()
    ['« Oui » , 2015.', 'In 2015 . Yes']
    """
    tok_name = tokenizer
    _check_tokenizer(tok_name)
    if not isinstance(texts, (pa.Array, pa.ChunkedArray)) or not (
        pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)
    ):
        raise TypeError(f"texts must be a pyarrow string array; got {_describe(texts) if not isinstance(texts, (pa.Array, pa.ChunkedArray)) else texts.type}.")
    if texts.null_count:
        raise ValueError(f"texts must have no nulls; got {texts.null_count} null(s). Fill them with '' first.")
    data, offsets = string_buffers(texts)
    out, out_offsets = tokenize_buffer(data, offsets, tok_name, lowercase=lowercase)
    n = len(out_offsets) - 1
    if out_offsets[-1] < 2**31:
        return pa.StringArray.from_buffers(n, pa.py_buffer(out_offsets.astype(np.int32)), pa.py_buffer(out))
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(out_offsets), pa.py_buffer(out))
