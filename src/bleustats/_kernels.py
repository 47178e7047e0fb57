"""Numba kernels: per-hypothesis BLEU / ΔBLEU sufficient statistics.

Private module; only :mod:`bleustats.stats` calls it. Inputs are flat token-id
arrays and offsets exactly as Arrow ``list<int32>`` arrays hold them (read-only
buffers are fine), plus CSR indices that group hypothesis and reference rows by
segment.

Exactness
---------
N-grams are never hashed into a lossy fingerprint. Within one segment, every
distinct reference n-gram of order ``n`` gets a dense local id, assigned from
the *exact* int64 key ``(id of its (n-1)-gram prefix) << 32 | last token``
(for ``n = 1`` the key is the token id). Two n-grams get the same id if and only
if their token sequences are equal, so the open-addressing table below only
ever compares full keys, and a collision of the hash *slot* costs a probe,
never a count. A hypothesis n-gram whose prefix is in no reference is itself in
no reference, so hypothesis n-grams are looked up, never inserted.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_EMPTY = -1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: ``definition`` codes of :func:`_block_stats`.
DEF_PAPER = 0
DEF_GALLEY2019 = 1


@njit(cache=True, nogil=True, inline="always")
def _slot_of(key, shift):
    return np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))


@njit(cache=True, nogil=True, inline="always")
def _insert_key(keys, vals, shift, mask, key, next_id):
    """Return (id of key, next free id); a new key gets ``next_id``."""
    slot = _slot_of(key, shift)
    while True:
        k = keys[slot]
        if k == key:
            return vals[slot], next_id
        if k == _EMPTY:
            keys[slot] = key
            vals[slot] = next_id
            return next_id, next_id + 1
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _lookup_key(keys, vals, shift, mask, key):
    """Return the id of key, or -1 when it is not in the table."""
    slot = _slot_of(key, shift)
    while True:
        k = keys[slot]
        if k == key:
            return vals[slot]
        if k == _EMPTY:
            return -1
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True)
def _table_bits(n_keys):
    bits = 4
    while (1 << bits) < 2 * n_keys:
        bits += 1
    return bits


@njit(cache=True, nogil=True)
def _single_hyp_segment(
    row, hyp_values, hyp_offsets, ref_values, ref_offsets, ref_order, r0, r1,
    ref_weights, max_order, definition, uniform, w_max,
    keys, vals, ref_ids, hyp_ids, maxc, maxw, cnt, touched, hcnt, best, counts, wcounts,
):
    """Statistics of a segment with one hypothesis: index the hypothesis, scan the references.

    With a single hypothesis it is cheaper to give ids to the hypothesis'
    n-grams and look reference n-grams up: a reference position whose
    (n-1)-gram prefix is not in the hypothesis is skipped at every higher
    order, and #g(h) is known while each reference is scanned, so the paper's
    max_j w_j min(#g(h), #g(r_j)) is kept per n-gram without (count, weight)
    pairs. Same results as the reference-indexed path (tests: kernel twin).
    """
    start = hyp_offsets[row]
    hl = hyp_offsets[row + 1] - start
    for n in range(1, max_order + 1):
        total = max(0, hl - n + 1)
        bits = _table_bits(total)
        shift = 64 - bits
        mask = (1 << bits) - 1
        keys[: 1 << bits] = _EMPTY
        n_ids = 0
        for p in range(total):
            tok = np.int64(hyp_values[start + p + n - 1])
            key = tok if n == 1 else (hyp_ids[p] << 32) | tok
            gid, n_new = _insert_key(keys, vals, shift, mask, key, n_ids)
            if n_new != n_ids:
                hcnt[gid] = 0
                maxc[gid] = 0
                maxw[gid] = -np.inf
                best[gid] = -np.inf
                n_ids = n_new
            hyp_ids[p] = gid  # in place: position p now holds its n-gram id
            hcnt[gid] += 1
        base = 0
        for r in range(r0, r1):
            rrow = ref_order[r]
            rstart = ref_offsets[rrow]
            rl = ref_offsets[rrow + 1] - rstart
            w = ref_weights[rrow]
            n_touched = 0
            for p in range(rl - n + 1):
                tok = np.int64(ref_values[rstart + p + n - 1])
                gid = -1
                if n == 1:
                    gid = _lookup_key(keys, vals, shift, mask, tok) if n_ids > 0 else -1
                else:
                    prev = ref_ids[base + p]
                    if prev >= 0:
                        gid = _lookup_key(keys, vals, shift, mask, (prev << 32) | tok)
                ref_ids[base + p] = gid
                if gid >= 0:
                    if cnt[gid] == 0:
                        touched[n_touched] = gid
                        n_touched += 1
                    cnt[gid] += 1
            for t in range(n_touched):
                gid = touched[t]
                c = cnt[gid]
                cnt[gid] = 0
                if c > maxc[gid]:
                    maxc[gid] = c
                if w > maxw[gid]:
                    maxw[gid] = w
                v = w * min(hcnt[gid], c)
                if v > best[gid]:
                    best[gid] = v
            base += rl
        match = 0
        wmatch = 0.0
        for gid in range(n_ids):
            if maxc[gid] == 0:
                continue  # in no reference: adds 0
            m = min(hcnt[gid], maxc[gid])
            match += m
            if uniform:
                wmatch += w_max * m
            elif definition == DEF_PAPER:
                wmatch += best[gid]
            else:
                wmatch += m * maxw[gid]
        counts[n - 1, row] = match
        counts[max_order + n - 1, row] = total
        wcounts[n - 1, row] = wmatch
        wcounts[max_order + n - 1, row] = total * w_max


@njit(cache=True, nogil=True)
def _block_stats(
    s0, s1,
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition,
    lens, ref_avg, n_refs, wmax, counts, wcounts,
):
    """Statistics of segments s0..s1-1; writes only the rows of their hypotheses."""
    # Scratch sized for the largest segment of the block, allocated once.
    max_rtok = 1
    max_htok = 1
    for s in range(s0, s1):
        t = 0
        for r in range(ref_ptr[s], ref_ptr[s + 1]):
            row = ref_order[r]
            t += ref_offsets[row + 1] - ref_offsets[row]
        max_rtok = max(max_rtok, t)
        t = 0
        for h in range(hyp_ptr[s], hyp_ptr[s + 1]):
            row = hyp_order[h]
            t += hyp_offsets[row + 1] - hyp_offsets[row]
        max_htok = max(max_htok, t)
    max_ids = max(max_rtok, max_htok)          # ids index reference or hypothesis n-grams
    cap = 1 << _table_bits(max_ids)
    keys = np.empty(cap, np.int64)
    vals = np.empty(cap, np.int64)
    ref_ids = np.empty(max_rtok, np.int64)   # id of the current-order n-gram at each ref position
    hyp_ids = np.empty(max_htok, np.int64)   # same for all hypotheses of the segment
    maxc = np.zeros(max_ids, np.int64)       # max_j #g(r_j), per local n-gram id
    maxw = np.empty(max_ids, np.float64)     # max w_j over references containing g
    cnt = np.zeros(max_ids, np.int64)        # scratch counter per id
    touched = np.empty(max_ids, np.int64)
    hcnt = np.zeros(max_ids, np.int64)       # single-hypothesis path: #g(h) per id
    wbest = np.empty(max_ids, np.float64)    # single-hypothesis path: max_j w_j min(#g(h), #g(r_j))
    # (count, weight) of each (reference, n-gram) pair, grouped by n-gram id (CSR).
    pair_start = np.zeros(max_rtok + 1, np.int64)
    pair_cnt = np.empty(max_rtok, np.int64)
    pair_w = np.empty(max_rtok, np.float64)
    tmp_id = np.empty(max_rtok, np.int64)
    tmp_cnt = np.empty(max_rtok, np.int64)
    tmp_w = np.empty(max_rtok, np.float64)

    for s in range(s0, s1):
        h0, h1 = hyp_ptr[s], hyp_ptr[s + 1]
        if h0 == h1:
            continue
        r0, r1 = ref_ptr[s], ref_ptr[s + 1]
        nr = r1 - r0
        # --- lengths and weights of the segment's references
        w_max = -np.inf
        rtok = 0
        shortest = -1
        for r in range(r0, r1):
            row = ref_order[r]
            rl = ref_offsets[row + 1] - ref_offsets[row]
            rtok += rl
            if shortest < 0 or rl < shortest:
                shortest = rl
            w_max = max(w_max, ref_weights[row])
        # One non-negative weight w for all references (e.g. unweighted BLEU): then
        # max_j w * min(h, c_j) = w * min(h, max_j c_j) under both definitions, and
        # the per-reference (count, weight) pairs are not needed.
        uniform = nr > 0 and w_max >= 0.0
        for r in range(r0, r1):
            if ref_weights[ref_order[r]] != w_max:
                uniform = False
        for h in range(h0, h1):
            row = hyp_order[h]
            hl = hyp_offsets[row + 1] - hyp_offsets[row]
            closest = -1
            best = -1
            for r in range(r0, r1):
                rrow = ref_order[r]
                rl = ref_offsets[rrow + 1] - ref_offsets[rrow]
                d = abs(hl - rl)
                if best < 0 or d < best or (d == best and rl < closest):
                    best = d
                    closest = rl
            lens[0, row] = hl
            lens[1, row] = closest if nr > 0 else 0
            lens[2, row] = shortest if nr > 0 else 0
            ref_avg[row] = rtok / nr if nr > 0 else 0.0
            n_refs[row] = nr
            wmax[row] = w_max if nr > 0 else 0.0
        if h1 - h0 == 1:
            _single_hyp_segment(
                hyp_order[h0], hyp_values, hyp_offsets, ref_values, ref_offsets, ref_order, r0, r1,
                ref_weights, max_order, definition, uniform, w_max,
                keys, vals, ref_ids, hyp_ids, maxc, maxw, cnt, touched, hcnt, wbest, counts, wcounts,
            )
            continue
        # --- order by order: index the references, then score every hypothesis
        for n in range(1, max_order + 1):
            # number of reference n-grams of this order sizes the table
            n_ref_ngrams = 0
            for r in range(r0, r1):
                row = ref_order[r]
                n_ref_ngrams += max(0, ref_offsets[row + 1] - ref_offsets[row] - n + 1)
            bits = _table_bits(n_ref_ngrams)
            shift = 64 - bits
            mask = (1 << bits) - 1
            keys[: 1 << bits] = _EMPTY
            n_ids = 0
            n_pairs = 0
            base = 0
            for r in range(r0, r1):
                row = ref_order[r]
                start = ref_offsets[row]
                rl = ref_offsets[row + 1] - start
                w = ref_weights[row]
                n_touched = 0
                for p in range(rl - n + 1):
                    tok = np.int64(ref_values[start + p + n - 1])
                    key = tok if n == 1 else (ref_ids[base + p] << 32) | tok
                    gid, n_new = _insert_key(keys, vals, shift, mask, key, n_ids)
                    if n_new != n_ids:  # first time this n-gram is seen in the segment
                        maxc[gid] = 0
                        maxw[gid] = -np.inf
                        pair_start[gid] = 0
                        n_ids = n_new
                    ref_ids[base + p] = gid  # in place: position p now holds its n-gram id
                    if cnt[gid] == 0:
                        touched[n_touched] = gid
                        n_touched += 1
                    cnt[gid] += 1
                for t in range(n_touched):
                    gid = touched[t]
                    c = cnt[gid]
                    cnt[gid] = 0
                    if c > maxc[gid]:
                        maxc[gid] = c
                    if w > maxw[gid]:
                        maxw[gid] = w
                    tmp_id[n_pairs] = gid
                    tmp_cnt[n_pairs] = c
                    tmp_w[n_pairs] = w
                    pair_start[gid] += 1
                    n_pairs += 1
                base += rl
            if definition == DEF_PAPER and not uniform:
                # counting sort of the pairs by n-gram id
                acc = 0
                for g in range(n_ids):
                    c = pair_start[g]
                    pair_start[g] = acc
                    acc += c
                pair_start[n_ids] = acc
                for q in range(n_pairs):
                    g = tmp_id[q]
                    dst = pair_start[g]
                    pair_cnt[dst] = tmp_cnt[q]
                    pair_w[dst] = tmp_w[q]
                    pair_start[g] += 1
                for g in range(n_ids - 1, 0, -1):
                    pair_start[g] = pair_start[g - 1]
                if n_ids > 0:
                    pair_start[0] = 0
            hbase = 0
            for h in range(h0, h1):
                row = hyp_order[h]
                start = hyp_offsets[row]
                hl = hyp_offsets[row + 1] - start
                total = max(0, hl - n + 1)
                n_touched = 0
                for p in range(total):
                    tok = np.int64(hyp_values[start + p + n - 1])
                    if n == 1:
                        gid = _lookup_key(keys, vals, shift, mask, tok) if n_ids > 0 else -1
                    else:
                        prev = hyp_ids[hbase + p]
                        gid = -1 if prev < 0 else _lookup_key(keys, vals, shift, mask, (prev << 32) | tok)
                    hyp_ids[hbase + p] = gid
                    if gid >= 0:
                        if cnt[gid] == 0:
                            touched[n_touched] = gid
                            n_touched += 1
                        cnt[gid] += 1
                match = 0
                wmatch = 0.0
                for t in range(n_touched):
                    gid = touched[t]
                    c = cnt[gid]
                    cnt[gid] = 0
                    match += min(c, maxc[gid])
                    if uniform:
                        wmatch += w_max * min(c, maxc[gid])
                    elif definition == DEF_PAPER:
                        best_w = -np.inf
                        for q in range(pair_start[gid], pair_start[gid + 1]):
                            v = pair_w[q] * min(c, pair_cnt[q])
                            if v > best_w:
                                best_w = v
                        wmatch += best_w
                    else:
                        wmatch += min(c, maxc[gid]) * maxw[gid]
                counts[n - 1, row] = match
                counts[max_order + n - 1, row] = total
                wcounts[n - 1, row] = wmatch
                wcounts[max_order + n - 1, row] = total * wmax[row]
                hbase += hl


@njit(cache=True, nogil=True)
def _alloc_outputs(n_hyp, max_order):
    lens = np.zeros((3, n_hyp), np.int64)
    ref_avg = np.zeros(n_hyp, np.float64)
    n_refs = np.zeros(n_hyp, np.int64)
    wmax = np.zeros(n_hyp, np.float64)
    counts = np.zeros((2 * max_order, n_hyp), np.int64)
    wcounts = np.zeros((2 * max_order, n_hyp), np.float64)
    return lens, ref_avg, n_refs, wmax, counts, wcounts


@njit(cache=True, nogil=True, parallel=True)
def _compute_stats(
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition, block_bounds,
):
    """Per-hypothesis statistics for all segments.

    Segment ``s`` owns hypothesis rows ``hyp_order[hyp_ptr[s]:hyp_ptr[s+1]]`` and
    reference rows ``ref_order[ref_ptr[s]:ref_ptr[s+1]]``. Blocks of segments
    ``block_bounds[b]:block_bounds[b+1]`` run in parallel; each writes only its
    own hypotheses' rows.

    Returns
    -------
    lens : int64[3, n_hyp]   hyp_len, ref_len_closest, ref_len_shortest
    ref_avg, wmax : float64[n_hyp]
    n_refs : int64[n_hyp]
    counts : int64[2N, n_hyp]   match_1..N, total_1..N
    wcounts : float64[2N, n_hyp]   wmatch_1..N, wtotal_1..N
    """
    out = _alloc_outputs(hyp_offsets.shape[0] - 1, max_order)
    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    for b in prange(block_bounds.shape[0] - 1):
        _block_stats(
            block_bounds[b], block_bounds[b + 1],
            hyp_values, hyp_offsets, hyp_order, hyp_ptr,
            ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
            max_order, definition,
            lens, ref_avg, n_refs, wmax, counts, wcounts,
        )
    return out


@njit(cache=True, nogil=True)
def _compute_stats_serial(
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition,
):
    """:func:`_compute_stats` on the calling thread, for inputs too small to share out."""
    out = _alloc_outputs(hyp_offsets.shape[0] - 1, max_order)
    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    _block_stats(
        0, hyp_ptr.shape[0] - 1,
        hyp_values, hyp_offsets, hyp_order, hyp_ptr,
        ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
        max_order, definition,
        lens, ref_avg, n_refs, wmax, counts, wcounts,
    )
    return out


# --------------------------------------------------------------------------- encoding

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


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
def _scan_tokens(data, offsets, j0, starts, lengths, tok_offsets, n_tok):
    """Record the tokens of lines j0.. (str.split() whitespace) until done or out of room.

    Returns (next line, n_tok): a line whose tokens do not fit is not started,
    so after growing the arrays the caller resumes at that line.
    """
    capacity = starts.shape[0]
    for j in range(j0, offsets.shape[0] - 1):
        i = np.int64(offsets[j])
        end = np.int64(offsets[j + 1])
        if n_tok + (end - i + 1) // 2 > capacity:  # this line might not fit
            return j, n_tok
        while i < end:
            b = np.int64(data[i])
            if b == 32:  # the common separator, checked inline
                i += 1
                continue
            if b < 32 or b >= 0x80:
                w = _space_len(data, i, end)
                if w > 0:
                    i += w
                    continue
            t0 = i
            while i < end:
                b = np.int64(data[i])
                if b == 32 or ((b < 32 or b >= 0x80) and _space_len(data, i, end) > 0):
                    break
                i += 1
            starts[n_tok] = t0
            lengths[n_tok] = i - t0
            n_tok += 1
        tok_offsets[j + 1] = n_tok
    return offsets.shape[0] - 1, n_tok


@njit(cache=True, nogil=True)
def _split_tokens(data, offsets):
    """Token boundaries of every line, splitting on exactly str.split()'s whitespace.

    ``data`` / ``offsets`` are the byte buffer and line offsets of an Arrow
    string array. The arrays start at a size estimated from the byte count
    (natural text has well over 2 bytes per token) and double when a line
    might not fit, so one pass usually suffices and memory stays near the
    need (the worst-case bound, bytes / 2, would be several times larger).

    Returns
    -------
    starts : int64[n_tokens]   first byte of each token
    lengths : int32[n_tokens]  its length in bytes
    tok_offsets : int64[n_lines + 1]   tokens of line j are tok_offsets[j]:tok_offsets[j+1]
    """
    n_lines = offsets.shape[0] - 1
    tok_offsets = np.empty(n_lines + 1, np.int64)
    tok_offsets[0] = 0
    capacity = max(64, (offsets[n_lines] - offsets[0]) // 5)
    starts = np.empty(capacity, np.int64)
    lengths = np.empty(capacity, np.int32)
    j, n_tok = _scan_tokens(data, offsets, 0, starts, lengths, tok_offsets, 0)
    while j < n_lines:
        capacity = 2 * capacity + (offsets[j + 1] - offsets[j] + 1) // 2
        grown_starts = np.empty(capacity, np.int64)
        grown_lengths = np.empty(capacity, np.int32)
        grown_starts[:n_tok] = starts[:n_tok]
        grown_lengths[:n_tok] = lengths[:n_tok]
        starts = grown_starts
        lengths = grown_lengths
        j, n_tok = _scan_tokens(data, offsets, j, starts, lengths, tok_offsets, n_tok)
    return starts[:n_tok], lengths[:n_tok], tok_offsets


@njit(cache=True, nogil=True)
def _encode_block(data, starts, lengths, a0, a1, b0, b1, ids):
    """Ids of tokens a0:a1 and b0:b1 (a block's hypotheses and references) in one id space.

    Ids are 0, 1, ... in order of first occurrence (as Arrow's
    ``dictionary_encode`` gives them); identity is decided by comparing bytes,
    the 64-bit FNV-1a hash only picks the slot.
    """
    n = (a1 - a0) + (b1 - b0)
    bits = _table_bits(n)
    mask = (1 << bits) - 1
    shift = 64 - bits
    slots = np.full(1 << bits, -1, np.int64)   # the id held by each slot
    first = np.empty(max(n, 1), np.int64)      # token index of each id's first occurrence
    hashes = np.empty(max(n, 1), np.uint64)
    n_vocab = 0
    for part in range(2):
        lo = a0 if part == 0 else b0
        hi = a1 if part == 0 else b1
        for t in range(lo, hi):
            t0 = starts[t]
            ln = lengths[t]
            h = _FNV_OFFSET
            for q in range(ln):
                h = (h ^ np.uint64(data[t0 + q])) * _FNV_PRIME
            slot = _slot_of(h, shift)  # FNV-1a's low bits are weak: mix, take high bits
            while True:
                v = slots[slot]
                if v < 0:
                    break
                if hashes[v] == h and lengths[first[v]] == ln:
                    f0 = starts[first[v]]
                    same = True
                    for q in range(ln):
                        if data[f0 + q] != data[t0 + q]:
                            same = False
                            break
                    if same:
                        break
                slot = (slot + 1) & mask
            if v < 0:
                v = n_vocab
                n_vocab += 1
                hashes[v] = h
                first[v] = t
                slots[slot] = v
            ids[t] = v


@njit(cache=True, nogil=True, parallel=True)
def _encode_blocks(data, starts, lengths, hyp_bounds, ref_bounds):
    """Token ids with one id space per block of segments; blocks run in parallel.

    Block ``k`` owns hypothesis tokens ``hyp_bounds[k]:hyp_bounds[k+1]`` and
    reference tokens ``ref_bounds[k]:ref_bounds[k+1]``, and writes only their
    ids. Ids mean nothing across blocks; n-gram matching only compares tokens
    of one segment, and a segment never spans two blocks. Small blocks keep
    each hash table in cache.
    """
    ids = np.empty(starts.shape[0], np.int32)
    for k in prange(hyp_bounds.shape[0] - 1):
        _encode_block(data, starts, lengths, hyp_bounds[k], hyp_bounds[k + 1],
                      ref_bounds[k], ref_bounds[k + 1], ids)
    return ids
