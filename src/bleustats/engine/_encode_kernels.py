"""Numba kernels of the encoder: UTF-8 lines → exact integer token ids.

Private module; only :mod:`bleustats.engine.encode` calls its entry point
:func:`encode_lines` (or :func:`encode_lines_serial` for small inputs; the statistics kernels share :data:`GOLDEN` and
:func:`table_bits`): one call counts every line's tokens and gives the ids, so a
process loads one compiled kernel for all of encoding. The file reader
(:mod:`bleustats.engine.io`) finds line ends with :func:`newline_ends`. Tokens are split on exactly the
characters ``str.split()`` splits on and keyed by their bytes: up to 15 bytes
the two-word key *is* the token; longer tokens hash and are compared byte by
byte, so equal ids mean equal tokens.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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
_LOWS = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)
_ADD_95 = np.uint64(0x5F5F5F5F5F5F5F5F)  # + 95 per lane: the high bit is set for bytes >= 33
_ADD_96 = np.uint64(0x6060606060606060)  # + 96 per lane: the high bit is clear for bytes < 32
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


@njit(cache=True, nogil=True)
def _count_bytes(data, i, stop, end, prev_space):
    """Tokens starting in data[i:stop] of the line ending at ``end`` (a token starts at a non-space after a
    space); returns (count, prev_space, where the scan stopped: ``stop``, or past it inside a character)."""
    n = np.int64(0)
    while i < stop:
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
    return n, prev_space, i


@njit(cache=True, nogil=True)
def _count_line(data, words, i, end):
    """Number of str.split() tokens of the line data[i:end].

    Eight bytes at a time while they are printable ASCII (every byte >= 32, the
    space the only whitespace among them): the lanes that are not spaces, and
    the starts among them, come from word arithmetic with no carry between
    lanes; any other byte (a control character, a newline, UTF-8) takes the
    byte loop, which knows every ``str.split()`` whitespace character. Counting
    the start flags needs no branch per byte: token lengths are unpredictable,
    so a branch per token boundary would cost more than the scan itself.
    """
    prev_space = np.int64(1)
    n = np.int64(0)
    while i + 8 <= end:
        w = _word_at(words, i)
        if (w | ~(w + _ADD_96)) & _HIGHS:
            pass  # a byte below 32 or above 127 in the word: the byte loop takes it
        else:
            # _HIGHS lanes of (w + 95) are set exactly for bytes >= 33: the non-spaces
            nonspace = ((w + _ADD_95) & _HIGHS) >> np.uint64(7)
            before = (nonspace << np.uint64(8)) | np.uint64(1 - prev_space)
            starts = nonspace & ~before & _LOWS
            n += np.int64((starts * _LOWS) >> np.uint64(56))
            prev_space = np.int64(1) - np.int64(nonspace >> np.uint64(56))
            i += 8
            continue
        c, prev_space, i = _count_bytes(data, i, i + 8, end, prev_space)
        n += c
    c, prev_space, i = _count_bytes(data, i, end, end, prev_space)
    return n + c


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
        # split: branch-free boundary flags (see _count_line)
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
            if ln <= 8:  # most tokens: one word, and the length alone in the second
                k1 = _word_at(words, t0) & (_ALL_BITS >> np.uint64(64 - 8 * ln))
                k2 = np.uint64(ln) << np.uint64(56)
            elif ln <= 15:
                k1 = _word_at(words, t0)
                k2 = _word_at(words, t0 + 8) & ((_ALL_BITS >> np.uint64(1)) >> np.uint64(63 - 8 * (ln - 8)))
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
def _encode_ranges(data, words, offsets, tok_offsets, ranges, ids):
    """Ids of the tokens of every line range of one block (``ranges`` = lo0, hi0, lo1, hi1, ...), one id space.

    Ids are 0, 1, ... in order of first occurrence over the ranges in turn (as
    Arrow's ``dictionary_encode`` gives them). Identity is exact: a token of up
    to 15 bytes *is* its key; a longer token's key holds a hash, and equal keys
    are confirmed byte by byte. Returns the block's number of distinct tokens.
    """
    n_tok = 0
    longest = 1
    for r in range(0, ranges.shape[0], 2):
        lo = ranges[r]
        hi = ranges[r + 1]
        n_tok += tok_offsets[hi] - tok_offsets[lo]
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
    n_vocab = np.int64(0)  # not the literal 0: the callee would compile once more for it
    for r in range(0, ranges.shape[0], 2):
        n_vocab = _encode_range(data, words, offsets, tok_offsets, ranges[r], ranges[r + 1], ids,
                                keys1, keys2, key_ids, first, first_len, tok_start, tok_end, n_vocab, shift, mask)
    return n_vocab


@njit(cache=True, nogil=True, parallel=True)
def encode_lines(data, words, offsets, block_ranges):
    """Token offsets and ids of every line, with one id space per block of lines; lines and blocks in parallel.

    Line ``j`` is ``data[offsets[j]:offsets[j + 1]]``. Row ``k`` of
    ``block_ranges`` lists the line ranges of block ``k`` as ``lo0, hi0, lo1,
    hi1, ...`` (a block of segments: its hypotheses' lines, then each reference
    stream's lines); the ranges of all blocks cover every line once. Ids mean
    nothing across blocks: n-gram matching only compares tokens of one segment,
    and a segment never spans two blocks. Small blocks keep each hash table in
    cache. ``words`` is ``data`` as zero-padded little-endian uint64 words (at
    least three past the last byte), read by :func:`_word_at`.

    Returns
    -------
    tok_offsets : int64[n_lines + 1]
        Line ``j``'s ids are ``ids[tok_offsets[j]:tok_offsets[j + 1]]``.
    ids : int32[n_tokens]
    n_vocab : int
        The largest number of distinct tokens of a block (every id is below it).
    """
    n_lines = offsets.shape[0] - 1
    counts = np.empty(n_lines, np.int64)
    for j in prange(n_lines):
        counts[j] = _count_line(data, words, np.int64(offsets[j]), np.int64(offsets[j + 1]))
    tok_offsets = np.empty(n_lines + 1, np.int64)
    tok_offsets[0] = 0
    for j in range(n_lines):
        tok_offsets[j + 1] = tok_offsets[j] + counts[j]
    ids = np.empty(tok_offsets[n_lines], np.int32)
    n_blocks = block_ranges.shape[0]
    vocab = np.zeros(max(n_blocks, 1), np.int64)
    for k in prange(n_blocks):
        vocab[k] = _encode_ranges(data, words, offsets, tok_offsets, block_ranges[k], ids)
    return tok_offsets, ids, vocab.max()


@njit(cache=True, nogil=True)
def encode_lines_serial(data, words, offsets, block_ranges):
    """:func:`encode_lines` on the calling thread: for text too small to share out, no thread pool is started."""
    n_lines = offsets.shape[0] - 1
    tok_offsets = np.empty(n_lines + 1, np.int64)
    tok_offsets[0] = 0
    for j in range(n_lines):
        tok_offsets[j + 1] = tok_offsets[j] + _count_line(data, words, np.int64(offsets[j]), np.int64(offsets[j + 1]))
    ids = np.empty(tok_offsets[n_lines], np.int32)
    n_vocab = 0
    for k in range(block_ranges.shape[0]):
        n_vocab = max(n_vocab, _encode_ranges(data, words, offsets, tok_offsets, block_ranges[k], ids))
    return tok_offsets, ids, n_vocab

_NEWLINES = np.uint64(0x0A0A0A0A0A0A0A0A)


@njit(cache=True, nogil=True)
def _newline_pass(data, words, lo, hi, out, write):
    """Count the newlines of data[lo:hi], and write ``i + 1`` for each at ``out[k]`` when ``write``."""
    n = 0
    i = lo
    while i < hi and (i & 7) != 0:
        if data[i] == 10:
            if write:
                out[n] = i + 1
            n += 1
        i += 1
    while i + 8 <= hi:
        x = words[i >> 3] ^ _NEWLINES
        if ((x - _LOWS) & ~x & _HIGHS) != 0:  # some byte of the word may be a newline: look
            for q in range(i, i + 8):
                if data[q] == 10:
                    if write:
                        out[n] = q + 1
                    n += 1
        i += 8
    while i < hi:
        if data[i] == 10:
            if write:
                out[n] = i + 1
            n += 1
        i += 1
    return n


@njit(cache=True, nogil=True)
def newline_ends(data, words, lo, hi):
    """``i + 1`` for every ``data[i] == '\\n'`` with ``lo <= i < hi``, in order (int64).

    Eight bytes at a time: a word holds a newline only if ``w ^ 0x0A..0A`` has
    a zero byte (the has-zero-byte test, exact as a yes / no); the bytes of
    such a word (one in about twenty in text) are then checked one by one. Two
    passes (count, then fill) over a block that stays in cache. ``words`` is
    ``data`` as uint64 words, padded past ``hi``. (Serial: the file reader calls
    it per block of 16 MiB, and a parallel version was slower on a busy machine.)
    """
    out = np.empty(0, np.int64)
    n = _newline_pass(data, words, lo, hi, out, False)
    out = np.empty(n, np.int64)
    _newline_pass(data, words, lo, hi, out, True)
    return out
