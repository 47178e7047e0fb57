"""All of encoding: texts → sacreBLEU tokens → exact integer ids.

:func:`encode_segment_ids` is the entry point of the statistics pipeline for
texts in Arrow arrays (:func:`encode_segments` wraps its ids as Arrow
``list<int32>``): it tokenizes a chunk's hypotheses and references
(:func:`tokenized`: numba kernels over the UTF-8 bytes,
:mod:`bleustats.engine._tokenize_kernels`, identical to sacreBLEU's regexes
byte for byte, with no Python string per line), then encodes both with one
numba kernel (:func:`encode_line_blocks`, the kernel
:func:`bleustats.engine._encode_kernels.encode_lines`) over an Arrow string
array's UTF-8 buffer (:func:`string_buffers`, zero-copy) or any UTF-8 buffer
with line offsets (the file reader fills one directly): it counts each line's
tokens, splitting on exactly the characters Python's ``str.split()`` splits on,
then splits again and gives ids in order of first occurrence within each block
of segments, deciding token identity exactly (a token of up to 15 bytes is its
own key; longer ones are compared byte by byte). ``tests/engine/test_encode.py``
checks the kernel against ``str.split()`` with a plain-Python twin.

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

import time

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from .._kernel_cache import guarded
from ..tokenizers import tokenize_lines
from . import _encode_kernels as _encode_module, _tokenize_kernels as _tokenize_module, _columns as columns
from ._threads import kernel_threads
from ._tokenize_tables import code_point_tables

__all__ = ["encode_segments", "string_buffers", "token_lists", "tokenized"]

_encode_kernels = guarded(_encode_module)
_tokenize_kernels = guarded(_tokenize_module)

#: Below this many tokens the statistics kernel runs on the calling thread: starting the
#: thread pool (and its threads' spinning after each parallel region) costs more than
#: the work saves (10k segments x 1 reference: 0.66 s on one thread, 0.72 s on two).
PARALLEL_MIN_TOKENS = 1_000_000
#: Below this much text (bytes) tokenization and encoding run on the calling thread.
PARALLEL_MIN_BYTES = 8 << 20
#: Bytes of text per encoding block (about 32k tokens): each block has its own small,
#: cache-resident vocabulary.
_ENCODE_BLOCK_BYTES = 192 * 1024
#: Below this much text the encoder makes one block (sharing out costs more than it saves).
_ENCODE_PARALLEL_MIN_BYTES = 128 * 1024


def string_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Zero-copy, read-only numpy views of a string array's UTF-8 bytes and line offsets.

    The offsets index into the bytes (the array's own slice offset applied).
    An array without bytes gives one zero byte (read-only too: the kernels
    compile for one type whatever the array holds).
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        raise TypeError(f"string_buffers needs a string array; got {arr.type}.")
    _, offsets_buf, data_buf = arr.buffers()
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=off_type, count=len(arr) + 1,
                            offset=arr.offset * np.dtype(off_type).itemsize)
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    if len(data) == 0:
        data = np.zeros(1, np.uint8)
    return columns.readonly(data, offsets)


def token_lists(ids: np.ndarray, offsets: np.ndarray) -> pa.ListArray:
    """Wrap flat int32 token ids and per-line offsets as an Arrow ``list<int32>`` (no copy of ids)."""
    if offsets[-1] < 2**31:
        return pa.ListArray.from_arrays(columns.numeric(offsets.astype(np.int32)), columns.numeric(ids))
    return pa.LargeListArray.from_arrays(columns.numeric(offsets.astype(np.int64)), columns.numeric(ids))


# --------------------------------------------------------------------------- tokenization over bytes

#: Tokenizer names :func:`tokenize_buffer` accepts, as sacreBLEU spells them.
BYTE_TOKENIZERS: tuple[str, ...] = tuple(_tokenize_kernels.TOKENIZER_CODES)

# Inputs smaller than this (in bytes) run on one thread: starting the thread
# pool costs more than it saves.
_TOKENIZE_PARALLEL_MIN_BYTES = PARALLEL_MIN_BYTES
# Bytes of input per parallel block (a block's scratch and output stay in cache).
_TOKENIZE_BLOCK_BYTES = 1 << 16


def _check_tokenizer(tokenizer: object) -> int:
    if not isinstance(tokenizer, str) or tokenizer not in _tokenize_kernels.TOKENIZER_CODES:
        allowed = ", ".join(map(repr, BYTE_TOKENIZERS))
        raise ValueError(f"tokenizer must be one of {allowed}; got {tokenizer!r}.")
    return _tokenize_kernels.TOKENIZER_CODES[tokenizer]


def _check_buffers(data: object, offsets: object) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(data, np.ndarray) or data.ndim != 1 or data.dtype != np.uint8:
        raise TypeError(
            "data must be a 1-D numpy uint8 array (UTF-8 bytes, e.g. from "
            f"bleustats.engine.encode.string_buffers); got {_describe(data)}."
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
    return columns.readonly(data, offsets)


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"array of dtype {value.dtype} and shape {value.shape}"
    return f"{type(value).__name__} {value!r:.60}"


def _byte_block_bounds(offsets: np.ndarray, n_threads: int) -> np.ndarray:
    """Line numbers that cut the input into blocks of about ``_TOKENIZE_BLOCK_BYTES`` bytes."""
    n_lines = len(offsets) - 1
    total = int(offsets[-1] - offsets[0])
    n_blocks = min(n_lines, max(4 * n_threads, total // _TOKENIZE_BLOCK_BYTES + 1))
    targets = offsets[0] + total * np.arange(1, n_blocks, dtype=np.int64) // n_blocks
    cuts = np.searchsorted(offsets[:-1], targets, side="left")
    return np.unique(np.r_[0, cuts, n_lines]).astype(np.int64)


def tokenize_buffer(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.integer],
    tokenizer: str,
    *,
    lowercase: bool = False,
    padded: bool = False,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Lowercase (optionally) and tokenize every line of a UTF-8 buffer as sacreBLEU does.

    Line ``i`` is ``data[offsets[i]:offsets[i + 1]]``.  Output line ``i``,
    ``out_data[out_offsets[i]:out_offsets[i + 1]]``, is the UTF-8 encoding of

    .. math::

        \\mathrm{tok}\\big((\\ell_i.\\mathrm{lower}() \\text{ if lowercase else } \\ell_i)
        .\\mathrm{rstrip}()\\big)

    where :math:`\\ell_i` is the decoded line and tok is sacreBLEU 2.6's
    tokenizer of that name: byte for byte the string
    :func:`bleustats.tokenizers.tokenize_lines` returns for it.

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
    padded : bool, default False
        Return ``out_data`` as a :func:`padded_buffer` (the lines, then zeroed
        padding), so that the encoder can read it as uint64 words
        (``words=out_data.view(np.uint64)``) without copying it once more.

    Returns
    -------
    out_data : numpy.ndarray of uint8
        The preprocessed lines, concatenated (then the padding, if ``padded``).
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
    bleustats.tokenizers.tokenize_lines : The plain-Python implementation.

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
    # the size first: asking numba for its thread count starts its thread pool (~30 ms), for nothing when serial
    n_threads = 1 if offsets[-1] - offsets[0] < _TOKENIZE_PARALLEL_MIN_BYTES else kernel_threads()
    if n_threads == 1:
        out, out_len = _tokenize_kernels.tokenize_serial(data, offsets, tok, lowercase, tables)
        np.cumsum(out_len, out=out_offsets[1:])
        if padded:
            buf = padded_buffer(len(out))
            buf[: len(out)] = out
            out = buf
        return out, out_offsets
    bounds = _byte_block_bounds(offsets, n_threads)
    tmp, out_len = _tokenize_kernels.tokenize_blocks(data, offsets, bounds, tok, lowercase, tables)
    np.cumsum(out_len, out=out_offsets[1:])
    n_out = int(out_offsets[-1])
    out = padded_buffer(n_out) if padded else np.empty(n_out, np.uint8)
    _tokenize_kernels.gather_blocks(tmp, offsets, bounds, out_offsets, out)
    return out, out_offsets


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
        got = texts.type if isinstance(texts, (pa.Array, pa.ChunkedArray)) else _describe(texts)
        raise TypeError(f"texts must be a pyarrow string array; got {got}.")
    if texts.null_count:
        raise ValueError(f"texts must have no nulls; got {texts.null_count} null(s). Fill them with '' first.")
    data, offsets = string_buffers(texts)
    out, out_offsets = tokenize_buffer(data, offsets, tok_name, lowercase=lowercase)
    n = len(out_offsets) - 1
    if out_offsets[-1] < 2**31:
        return pa.StringArray.from_buffers(n, pa.py_buffer(out_offsets.astype(np.int32)), pa.py_buffer(out))
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(out_offsets), pa.py_buffer(out))


# --------------------------------------------------------------------------- encoding


def list_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Zero-copy numpy views of a ``list<int32>`` array's flat values and offsets."""
    values = columns.to_numpy(arr.values)
    offsets = columns.to_numpy(arr.offsets)
    return values, offsets


def tokenized(texts: pa.Array, tokenize: str, lowercase: bool) -> pa.Array:
    """``texts`` as sacreBLEU's tokenizer ``tokenize`` leaves them (tokens joined by spaces).

    Tokenizers with a byte kernel (:data:`BYTE_TOKENIZERS`) run on the Arrow
    bytes with no Python string per line; any other goes through
    :func:`bleustats.tokenizers.tokenize_lines`. Both give the same bytes
    (``tests/engine/test_tokenize_kernels.py``).
    """
    if tokenize == "none" and not lowercase:
        # sacreBLEU's 'none' returns the (rstripped) line and BLEU splits it on
        # whitespace; the encoder's split is exactly str.split(), so no copy here.
        return texts
    if tokenize in _tokenize_kernels.TOKENIZER_CODES:
        return tokenize_array(texts, tokenize, lowercase=lowercase)
    return columns.strings(tokenize_lines(texts.to_pylist(), tokenize=tokenize, lowercase=lowercase))


def _padded_words(data: np.ndarray) -> np.ndarray:
    """``data`` copied into zero-padded little-endian uint64 words, for the encoder's 8-byte loads."""
    buf = padded_buffer(len(data))
    buf[: len(data)] = data
    return buf.view("<u8").astype(np.uint64, copy=False)  # a no-op on little-endian machines


def padded_buffer(n_bytes: int) -> np.ndarray:
    """A uint8 array of ``n_bytes`` plus zeroed padding, 8-byte aligned: what the encoder reads as uint64 words.

    A caller that fills ``buf[:n_bytes]`` itself (the file reader) hands
    ``words=buf.view(np.uint64)`` to :func:`encode_line_blocks`, and the text
    is not copied again.
    """
    buf = np.empty((n_bytes // 8 + 3) * 8, np.uint8)
    buf[n_bytes:] = 0
    return buf


def block_bounds(work: np.ndarray, n_blocks: int) -> np.ndarray:
    """Split segments into contiguous blocks of about equal work; returns the block edges.

    Examples
    --------
    >>> block_bounds(np.array([5, 1, 1, 1, 5]), 2).tolist()   # 6 and 7 units of work
    [0, 2, 5]
    """
    n_seg = len(work)
    n_blocks = max(1, min(n_blocks, n_seg))
    cum = np.cumsum(work, dtype=np.float64)
    targets = cum[-1] * np.arange(1, n_blocks) / n_blocks if n_seg else np.zeros(0)
    cuts = np.searchsorted(cum, targets, side="right")
    return np.unique(np.r_[0, cuts, n_seg]).astype(np.int64)


def segment_blocks(seg_bytes: np.ndarray) -> np.ndarray:
    """Edges of blocks of consecutive segments with about ``_ENCODE_BLOCK_BYTES`` of text each.

    One block when the text is too small to share out; else at least two per
    numba thread when the text is large enough for the parallel encoder
    (:data:`PARALLEL_MIN_BYTES`). Below that numba is not asked for its
    thread count, which would start its thread pool (~30 ms of a command's
    start-up) for a serial kernel.
    """
    total = int(seg_bytes.sum())
    n_blocks = 1
    if total >= _ENCODE_PARALLEL_MIN_BYTES:
        per_thread = 2 * kernel_threads() if total >= PARALLEL_MIN_BYTES else 1
        n_blocks = max(per_thread, total // _ENCODE_BLOCK_BYTES + 1)
    return block_bounds(seg_bytes + 1, n_blocks)


def encode_line_blocks(data: np.ndarray, offsets: np.ndarray, block_ranges: np.ndarray, *,
                       words: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Token offsets, ids and id bound of every line; row ``k`` of ``block_ranges`` lists block ``k``'s line ranges.

    The kernel :func:`bleustats.engine._encode_kernels.encode_lines`: tokens
    split as ``str.split()`` splits, ids by first occurrence within each block
    (all ids below the returned bound). ``words`` is ``data`` as padded uint64
    words when the caller has them (:func:`padded_buffer`); else ``data`` is
    copied once to make them.

    Examples
    --------
    >>> data, offsets = string_buffers(pa.array(["a b a", "b c"]))
    >>> tok_offsets, ids, n_vocab = encode_line_blocks(data, offsets, np.array([[0, 2]]))
    >>> tok_offsets.tolist(), ids.tolist(), n_vocab
    ([0, 3, 5], [0, 1, 0, 1, 2], 3)
    """
    if words is None:
        words = _padded_words(data)
    data, words, offsets, block_ranges = columns.readonly(data, words, np.asarray(offsets, np.int64),
                                                          np.asarray(block_ranges, np.int64))
    small = len(offsets) < 2 or offsets[-1] - offsets[0] < PARALLEL_MIN_BYTES or kernel_threads() == 1
    kernel = _encode_kernels.encode_lines_serial if small else _encode_kernels.encode_lines
    tok_offsets, ids, n_vocab = kernel(data, words, offsets, block_ranges)
    return tok_offsets, ids, int(n_vocab)


def encode_segment_ids(hyp_texts: pa.Array, ref_texts: pa.Array, hyp_ptr: np.ndarray, ref_ptr: np.ndarray, *,
                       tokenize: str, lowercase: bool, timings: dict[str, float] | None = None,
                       refs_tokenized: bool = False) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`encode_segments` as numpy: ``(ids, tok_offsets, n_hyp_lines, n_vocab)``.

    Hypothesis line ``i`` has ids ``ids[tok_offsets[i]:tok_offsets[i + 1]]``,
    reference line ``j`` those of line ``n_hyp_lines + j``; every id is below
    ``n_vocab``.
    """
    t0 = time.perf_counter()
    h_tok = tokenized(hyp_texts, tokenize, lowercase)
    r_tok = ref_texts if refs_tokenized else tokenized(ref_texts, tokenize, lowercase)
    t1 = time.perf_counter()
    if h_tok.type != r_tok.type:
        h_tok, r_tok = h_tok.cast(pa.large_string()), r_tok.cast(pa.large_string())
    data, offsets = string_buffers(pa.concat_arrays([h_tok, r_tok]))
    n_h = len(h_tok)
    hyp_ptr = np.asarray(hyp_ptr, np.int64)
    ref_ptr = np.asarray(ref_ptr, np.int64) + n_h
    bounds = segment_blocks(np.diff(offsets[hyp_ptr]) + np.diff(offsets[ref_ptr]))
    ranges = np.stack([hyp_ptr[bounds[:-1]], hyp_ptr[bounds[1:]], ref_ptr[bounds[:-1]], ref_ptr[bounds[1:]]], axis=1)
    tok_off, ids, n_vocab = encode_line_blocks(data, offsets, ranges)
    if timings is not None:
        timings["tokenize"] = timings.get("tokenize", 0.0) + (t1 - t0)
        timings["encode"] = timings.get("encode", 0.0) + (time.perf_counter() - t1)
    return ids, tok_off, n_h, n_vocab


def encode_segments(hyp_texts: pa.Array, ref_texts: pa.Array, hyp_ptr: np.ndarray, ref_ptr: np.ndarray, *,
                    tokenize: str, lowercase: bool, timings: dict[str, float] | None = None,
                    refs_tokenized: bool = False) -> tuple[pa.ListArray, pa.ListArray]:
    """Token ids of a chunk's hypotheses and references (both grouped by segment).

    ``hyp_ptr`` / ``ref_ptr`` are CSR offsets: segment ``s`` owns hypotheses
    ``hyp_ptr[s]:hyp_ptr[s+1]`` and references ``ref_ptr[s]:ref_ptr[s+1]``.
    Exact: tokens are split on ``str.split()``'s whitespace and compared by
    their bytes. Each block of about ``_ENCODE_BLOCK_BYTES`` of text has its own
    id space; a segment's hypotheses and references are always in the same block.
    Seconds spent are added to ``timings['tokenize']`` / ``timings['encode']``
    when a dict is given. ``refs_tokenized=True`` says ``ref_texts`` were
    tokenized already (a :class:`~bleustats.engine.references.ReferenceSet`'s cache).

    Examples
    --------
    >>> h, r = encode_segments(pa.array(["a b a"]), pa.array(["b c"]), np.array([0, 1]), np.array([0, 1]),
    ...                        tokenize="none", lowercase=False)
    >>> h.to_pylist(), r.to_pylist()
    ([[0, 1, 0]], [[1, 2]])
    """
    ids, tok_off, n_h, _ = encode_segment_ids(hyp_texts, ref_texts, hyp_ptr, ref_ptr, tokenize=tokenize,
                                              lowercase=lowercase, timings=timings,
                                              refs_tokenized=refs_tokenized)
    # both lists view the same flat ids; offsets are absolute into it
    return token_lists(ids, tok_off[: n_h + 1]), token_lists(ids, tok_off[n_h:])
