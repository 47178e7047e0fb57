"""Numba kernels of the encoder: UTF-8 lines → exact integer token ids.

Private module; only :mod:`bleustats.engine.encode` calls its entry points
:func:`count_tokens` and :func:`encode_blocks` (and the statistics kernels share
:data:`GOLDEN` and :func:`table_bits`). Tokens are split on exactly the
characters ``str.split()`` splits on and keyed by their bytes: up to 15 bytes
the two-word key *is* the token; longer tokens hash and are compared byte by
byte, so equal ids mean equal tokens.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from .._numba_cache import use_user_cache

# numba caches the kernels below per user, never inside the installed package (bleustats._numba_cache)
_USER_CACHE = use_user_cache()

#: Fibonacci-hashing multiplier (2**64 / golden ratio), shared with the statistics kernels.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def table_bits(n_keys):
    """log2 of an open-addressing table size with load factor <= 1/2 (at least 16 slots)."""
    bits = 4
    while (1 << bits) < 2 * n_keys:
        bits += 1
    return bits


# Byte classes for splitting: 0 = part of a token, 1 = ASCII whitespace of
# str.split() (9-13, 28-32), 2 = first byte of a possible multi-byte
# whitespace character (U+0085/U+00A0: C2; U+1680: E1; U+2000-U+205F: E2;
# U+3000: E3), decided by _space_len.
_BYTE_CLASS = np.zeros(256, np.uint8)
_BYTE_CLASS[9:14] = 1
_BYTE_CLASS[28:33] = 1
_BYTE_CLASS[0xC2] = 2
_BYTE_CLASS[0xE1:0xE4] = 2

_MIX = np.uint64(0xFF51AFD7ED558CCD)
_ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True)
def _space_len(data, i, end):
    """Byte length of the str.split() whitespace character starting at data[i], else 0.

    The set is Python's: ASCII 9-13, 28-31 and 32, and U+0085, U+00A0, U+1680,
    U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 in UTF-8.
    """
    b = np.int64(data[i])  # signed arithmetic throughout (uint8 vs int mixes are slow)
    if b <= 32:
        return 1 if (b == 32 or (9 <= b <= 13) or b >= 28) else 0
    if b < 0xC2 or b > 0xE3:  # ASCII printable, continuation bytes, other lead bytes
        return 0
    if b == 0xC2:
        if i + 1 < end:
            b1 = np.int64(data[i + 1])
            if b1 == 0x85 or b1 == 0xA0:
                return 2
        return 0
    if b < 0xE1 or i + 2 >= end:
        return 0
    b1 = np.int64(data[i + 1])
    b2 = np.int64(data[i + 2])
    if b == 0xE1:
        return 3 if (b1 == 0x9A and b2 == 0x80) else 0
    if b == 0xE2:
        if b1 == 0x80 and (b2 <= 0x8A or b2 == 0xA8 or b2 == 0xA9 or b2 == 0xAF):
            return 3
        if b1 == 0x81 and b2 == 0x9F:
            return 3
        return 0
    return 3 if (b1 == 0x80 and b2 == 0x80) else 0  # b == 0xE3: U+3000


@njit(cache=True, nogil=True, parallel=True)
def count_tokens(data, offsets):
    """Number of str.split() tokens of every line (lines in parallel).

    ``data`` / ``offsets`` are the UTF-8 bytes and line offsets of an Arrow
    string array. A token starts at a non-space byte after a space or the line
    start; counting that flag needs no branch per byte for ASCII text (token
    lengths are unpredictable, so a branch per token boundary costs more than
    the scan itself).
    """
    n_lines = offsets.shape[0] - 1
    counts = np.empty(n_lines, np.int64)
    for j in prange(n_lines):
        i = np.int64(offsets[j])
        end = np.int64(offsets[j + 1])
        prev_space = np.int64(1)
        n = np.int64(0)
        while i < end:
            c = _BYTE_CLASS[data[i]]
            space = np.int64(c == 1)
            width = np.int64(1)
            if c == 2:
                w = _space_len(data, i, end)
                if w > 0:
                    space = 1
                    width = w
            n += (1 - space) & prev_space
            prev_space = space
            i += width
        counts[j] = n
    return counts


@njit(cache=True, nogil=True, inline="always")
def _word_at(words, byte):
    """The 8 bytes data[byte:byte+8] as one little-endian uint64 (``words`` = data padded, as uint64).

    Two aligned loads and shifts, no branch: for an aligned ``byte`` the
    second term is shifted out in two steps (a shift by 64 is undefined).
    """
    w = byte >> 3
    sh = np.uint64((byte & 7) * 8)
    return (words[w] >> sh) | ((words[w + 1] << np.uint64(1)) << (np.uint64(63) - sh))


@njit(cache=True, nogil=True, inline="always")
def _long_token_hash(words, t0, ln):
    """A 56-bit hash of a token longer than 15 bytes, tagged 0xFF in the top byte (see _encode_range)."""
    h = np.uint64(ln) * GOLDEN
    q = np.int64(0)
    while q + 8 <= ln:
        h = (h ^ _word_at(words, t0 + q)) * _MIX
        h ^= h >> np.uint64(29)
        q += 8
    if q < ln:
        tail = _word_at(words, t0 + q) & (_ALL_BITS >> np.uint64(64 - 8 * (ln - q)))
        h = (h ^ tail) * _MIX
        h ^= h >> np.uint64(29)
    return (h >> np.uint64(8)) | (np.uint64(0xFF) << np.uint64(56))


@njit(cache=True, nogil=True)
def _encode_range(data, words, offsets, tok_offsets, l0, l1, ids,
                  keys1, keys2, key_ids, first, first_len, tok_start, tok_end, n_vocab, shift, mask):
    """Ids of the tokens of lines l0:l1 into ``ids`` (one block's id space); returns n_vocab.

    A token is keyed by two words: its bytes 0-7 and 8-14 with its length in
    the top byte. Up to 15 bytes (all but a few tokens of natural text) the
    key *is* the token, built without a branch on its length; a longer token's
    second word is a hash tagged 0xFF (no length reaches it), and a key match
    is confirmed byte by byte. ``keys2 == 0`` marks an empty slot.
    """
    for j in range(l0, l1):
        i = np.int64(offsets[j])
        end = np.int64(offsets[j + 1])
        # split: branch-free boundary flags (see count_tokens)
        prev_space = np.int64(1)
        n_start = np.int64(0)
        n_end = np.int64(0)
        while i < end:
            c = _BYTE_CLASS[data[i]]
            space = np.int64(c == 1)
            width = np.int64(1)
            if c == 2:
                w = _space_len(data, i, end)
                if w > 0:
                    space = 1
                    width = w
            tok_start[n_start] = i
            n_start += (1 - space) & prev_space
            tok_end[n_end] = i
            n_end += space & (1 - prev_space)
            prev_space = space
            i += width
        if prev_space == 0:
            tok_end[n_end] = end
        out = tok_offsets[j]
        for t in range(n_start):
            t0 = tok_start[t]
            ln = tok_end[t] - t0
            if ln <= 15:
                n1 = min(ln, 8)
                n2 = max(ln - 8, 0)
                k1 = _word_at(words, t0) & (_ALL_BITS >> np.uint64(64 - 8 * n1))
                k2 = _word_at(words, t0 + 8) & ((_ALL_BITS >> np.uint64(1)) >> np.uint64(63 - 8 * n2))
                k2 |= np.uint64(ln) << np.uint64(56)
            else:
                k1 = _word_at(words, t0)
                k2 = _long_token_hash(words, t0, ln)
            a = np.int64(k1)
            b = np.int64(k2)
            slot = np.int64(((k1 + k2 * _MIX) * GOLDEN) >> np.uint64(shift))
            while True:
                kb = keys2[slot]
                if kb == b and keys1[slot] == a:
                    v = key_ids[slot]
                    if ln <= 15:
                        break
                    same = first_len[v] == ln  # a hashed key: compare the bytes
                    if same:
                        f0 = first[v]
                        for q in range(ln):
                            if data[f0 + q] != data[t0 + q]:
                                same = False
                                break
                    if same:
                        break
                elif kb == 0:
                    v = n_vocab
                    n_vocab += 1
                    keys1[slot] = a
                    keys2[slot] = b
                    key_ids[slot] = v
                    first[v] = t0
                    first_len[v] = ln
                    break
                slot = (slot + 1) & mask
            ids[out + t] = v
    return n_vocab


@njit(cache=True, nogil=True)
def _encode_block(data, words, offsets, tok_offsets, a0, a1, b0, b1, ids):
    """Ids of the tokens of lines a0:a1 and b0:b1 (a block's hypotheses and references), one id space.

    Ids are 0, 1, ... in order of first occurrence (as Arrow's
    ``dictionary_encode`` gives them). Identity is exact: a token of up to 15
    bytes *is* its key; a longer token's key holds a hash, and equal keys are
    confirmed byte by byte.
    """
    n_tok = (tok_offsets[a1] - tok_offsets[a0]) + (tok_offsets[b1] - tok_offsets[b0])
    longest = 1
    for part in range(2):
        lo = a0 if part == 0 else b0
        hi = a1 if part == 0 else b1
        for j in range(lo, hi):
            longest = max(longest, tok_offsets[j + 1] - tok_offsets[j] + 1)
    bits = table_bits(n_tok)
    keys1 = np.empty(1 << bits, np.int64)
    keys2 = np.zeros(1 << bits, np.int64)
    key_ids = np.empty(1 << bits, np.int32)
    first = np.empty(max(n_tok, 1), np.int64)      # first byte of each id's first occurrence
    first_len = np.empty(max(n_tok, 1), np.int64)
    tok_start = np.empty(longest, np.int64)        # one line's token boundaries
    tok_end = np.empty(longest, np.int64)
    shift = 64 - bits
    mask = (1 << bits) - 1
    n_vocab = _encode_range(data, words, offsets, tok_offsets, a0, a1, ids,
                            keys1, keys2, key_ids, first, first_len, tok_start, tok_end, 0, shift, mask)
    _encode_range(data, words, offsets, tok_offsets, b0, b1, ids,
                  keys1, keys2, key_ids, first, first_len, tok_start, tok_end, n_vocab, shift, mask)


@njit(cache=True, nogil=True, parallel=True)
def encode_blocks(data, words, offsets, tok_offsets, hyp_bounds, ref_bounds):
    """Token ids with one id space per block of segments; blocks run in parallel.

    Block ``k`` owns hypothesis lines ``hyp_bounds[k]:hyp_bounds[k+1]`` and
    reference lines ``ref_bounds[k]:ref_bounds[k+1]`` and writes only their
    ids (at ``tok_offsets`` of :func:`count_tokens`). Ids mean nothing across
    blocks; n-gram matching only compares tokens of one segment, and a segment
    never spans two blocks. Small blocks keep each hash table in cache.
    ``words`` is ``data`` copied into zero-padded uint64 words (at least three
    past the last byte), read by :func:`_word_at`.
    """
    ids = np.empty(tok_offsets[offsets.shape[0] - 1], np.int32)
    for k in prange(hyp_bounds.shape[0] - 1):
        _encode_block(data, words, offsets, tok_offsets, hyp_bounds[k], hyp_bounds[k + 1],
                      ref_bounds[k], ref_bounds[k + 1], ids)
    return ids


_USER_CACHE.restore()  # other packages' kernels keep numba's own cache setting
