"""All of encoding: texts → sacreBLEU tokens → exact integer ids in Arrow ``list<int32>``.

:func:`encode_segments` is the one entry point of the statistics pipeline: it
tokenizes a chunk's hypotheses and references (:func:`tokenized`), then encodes
both with two numba kernels (:mod:`bleustats.engine._encode_kernels`) over an
Arrow string array's UTF-8 buffer (:func:`string_buffers`, zero-copy):
``count_tokens`` counts each line's tokens, splitting on exactly the characters
Python's ``str.split()`` splits on; ``encode_blocks`` splits again and gives ids
in order of first occurrence within each block of segments, deciding token
identity exactly (a token of up to 15 bytes is its own key; longer ones are
compared byte by byte). :func:`token_lists` wraps the ids as ``list<int32>``,
whose ``.values`` and ``.offsets`` the statistics kernel reads without copying.
``tests/engine/test_encode.py`` checks the kernels against ``str.split()`` with
a plain-Python twin.

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

import numba
import numpy as np
import pyarrow as pa

from ..tokenizers import tokenize_lines
from . import _encode_kernels

__all__ = [
    "PARALLEL_MIN_TOKENS",
    "block_bounds",
    "encode_segments",
    "list_buffers",
    "string_buffers",
    "token_lists",
    "tokenized",
]

#: Below this many tokens a kernel runs on the calling thread: starting the
#: thread pool costs more than the work.
PARALLEL_MIN_TOKENS = 20_000
#: Tokens per encoding block: each block has its own small, cache-resident vocabulary.
_ENCODE_BLOCK_TOKENS = 1 << 15


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


def list_buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Zero-copy numpy views of a ``list<int32>`` array's flat values and offsets."""
    values = arr.values.to_numpy(zero_copy_only=True)
    offsets = arr.offsets.to_numpy(zero_copy_only=True)
    return values, offsets


def tokenized(texts: pa.Array, tokenize: str, lowercase: bool) -> pa.Array:
    """``texts`` as sacreBLEU's tokenizer ``tokenize`` leaves them (tokens joined by spaces)."""
    if tokenize == "none" and not lowercase:
        # sacreBLEU's 'none' returns the (rstripped) line and BLEU splits it on
        # whitespace; the encoder's split is exactly str.split(), so no copy here.
        return texts
    return pa.array(tokenize_lines(texts.to_pylist(), tokenize=tokenize, lowercase=lowercase), pa.string())


def _padded_words(data: np.ndarray) -> np.ndarray:
    """``data`` copied into zero-padded little-endian uint64 words, for the encoder's 8-byte loads."""
    buf = np.zeros((len(data) // 8 + 3) * 8, np.uint8)
    buf[: len(data)] = data
    return buf.view("<u8").astype(np.uint64, copy=False)  # a no-op on little-endian machines


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


def encode_segments(hyp_texts: pa.Array, ref_texts: pa.Array, hyp_ptr: np.ndarray, ref_ptr: np.ndarray, *,
                    tokenize: str, lowercase: bool, timings: dict[str, float] | None = None
                    ) -> tuple[pa.ListArray, pa.ListArray]:
    """Token ids of a chunk's hypotheses and references (both grouped by segment).

    ``hyp_ptr`` / ``ref_ptr`` are CSR offsets: segment ``s`` owns hypotheses
    ``hyp_ptr[s]:hyp_ptr[s+1]`` and references ``ref_ptr[s]:ref_ptr[s+1]``.
    Exact: tokens are split on ``str.split()``'s whitespace and compared by
    their bytes. Each block of about ``_ENCODE_BLOCK_TOKENS`` tokens has its own
    id space; a segment's hypotheses and references are always in the same block.
    Seconds spent are added to ``timings['tokenize']`` / ``timings['encode']``
    when a dict is given.

    Examples
    --------
    >>> h, r = encode_segments(pa.array(["a b a"]), pa.array(["b c"]), np.array([0, 1]), np.array([0, 1]),
    ...                        tokenize="none", lowercase=False)
    >>> h.to_pylist(), r.to_pylist()
    ([[0, 1, 0]], [[1, 2]])
    """
    t0 = time.perf_counter()
    h_tok = tokenized(hyp_texts, tokenize, lowercase)
    r_tok = tokenized(ref_texts, tokenize, lowercase)
    t1 = time.perf_counter()
    if h_tok.type != r_tok.type:
        h_tok, r_tok = h_tok.cast(pa.large_string()), r_tok.cast(pa.large_string())
    data, offsets = string_buffers(pa.concat_arrays([h_tok, r_tok]))
    tok_off = np.zeros(len(offsets), np.int64)
    np.cumsum(_encode_kernels.count_tokens(data, offsets), out=tok_off[1:])
    n_h = len(h_tok)
    seg_tokens = np.diff(tok_off[hyp_ptr]) + np.diff(tok_off[n_h + ref_ptr])
    n_blocks = 1
    if tok_off[-1] >= PARALLEL_MIN_TOKENS:
        n_blocks = max(2 * numba.get_num_threads(), int(seg_tokens.sum()) // _ENCODE_BLOCK_TOKENS + 1)
    bounds = block_bounds(seg_tokens + 1, n_blocks)
    ids = _encode_kernels.encode_blocks(data, _padded_words(data), offsets, tok_off, hyp_ptr[bounds],
                                        n_h + ref_ptr[bounds])
    if timings is not None:
        timings["tokenize"] = timings.get("tokenize", 0.0) + (t1 - t0)
        timings["encode"] = timings.get("encode", 0.0) + (time.perf_counter() - t1)
    # both lists view the same flat ids; offsets are absolute into it
    return token_lists(ids, tok_off[: n_h + 1]), token_lists(ids, tok_off[n_h:])
