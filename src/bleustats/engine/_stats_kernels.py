"""Numba kernels: per-hypothesis BLEU / ΔBLEU sufficient statistics.

Private module; only :mod:`bleustats.engine.stats` calls it (its entry points
:func:`compute_stats`, :func:`compute_stats_serial`, :func:`alloc_outputs`). Inputs are flat token-id
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

from ._encode_kernels import GOLDEN, table_bits

#: The other sources these kernels compile in (constants and called kernels), each with the first 16 hex
#: digits of its SHA-256: numba stamps a kernel's cache with this file alone, so a change there must change
#: this file too (tests/test_kernel_cache.py checks the digests; bleustats._kernel_cache).
COMPILED_IN = {"engine/_encode_kernels.py": "73393011735b2658"}


_EMPTY = -1

#: ``definition`` codes of :func:`_block_stats`.
DEF_PAPER = 0
DEF_GALLEY2019 = 1


@njit(cache=True, nogil=True, inline="always")
def _slot_of(key, shift):
    return np.int64((np.uint64(key) * GOLDEN) >> np.uint64(shift))


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


#: A segment with one hypothesis of up to this many tokens takes the trie path (fastest for
#: sentences); a longer one takes the reference-indexed path, whose exact-key hash table
#: finds every n-gram in O(1): the trie's lists of children cost O(fan-out) per step, and
#: a frequent word of one long line has thousands of distinct successors (quadratic time).
TRIE_MAX_TOKENS = 256


@njit(cache=True, nogil=True)
def _single_hyp_segment(
    row, hyp_values, hyp_offsets, ref_values, ref_offsets, ref_order, r0, r1,
    ref_weights, max_order, definition, uniform, w_max,
    root, depth, node_tok, child, sibling, hcnt, maxc, maxw, best, cnt, touched, match, wmatch,
    counts, wcounts,
):
    """Statistics of a segment with one hypothesis: a trie of its n-grams, walked from every reference position.

    Node ``v`` of the trie is one distinct hypothesis n-gram of order
    ``depth[v]``; unigrams are found through ``root`` (indexed by token id,
    all -1 between calls), longer n-grams through the child lists of their
    prefix. An n-gram is therefore identified by its exact token sequence with
    no hashing. From each reference position the walk goes down while the
    reference continues a hypothesis n-gram, so positions that match nothing
    cost one lookup. #g(h) is known while each reference is scanned, so the
    paper's max_j w_j min(#g(h), #g(r_j)) is kept per n-gram without (count,
    weight) pairs. Same results as the reference-indexed path (tests: kernel twin).
    Only for hypotheses of up to :data:`TRIE_MAX_TOKENS` tokens: finding a child
    scans the prefix's list of children, O(fan-out) per step.
    """
    start = hyp_offsets[row]
    hl = hyp_offsets[row + 1] - start
    # --- the trie of the hypothesis' n-grams up to max_order, with #g(h)
    n_nodes = 0
    for p in range(hl):
        node = -1
        for d in range(1, min(max_order, hl - p) + 1):
            tok = hyp_values[start + p + d - 1]
            if d == 1:
                nxt = root[tok]
            else:
                nxt = child[node]
                while nxt >= 0 and node_tok[nxt] != tok:
                    nxt = sibling[nxt]
            if nxt < 0:
                nxt = n_nodes
                n_nodes += 1
                depth[nxt] = d
                node_tok[nxt] = tok
                child[nxt] = -1
                hcnt[nxt] = 0
                maxc[nxt] = 0
                maxw[nxt] = -np.inf
                best[nxt] = -np.inf
                if d == 1:
                    root[tok] = nxt
                else:
                    sibling[nxt] = child[node]
                    child[node] = nxt
            node = nxt
            hcnt[node] += 1
    # --- every reference: count the hypothesis n-grams it holds
    if n_nodes > 0:
        for r in range(r0, r1):
            rrow = ref_order[r]
            rstart = ref_offsets[rrow]
            rl = ref_offsets[rrow + 1] - rstart
            w = ref_weights[rrow]
            n_touched = 0
            for p in range(rl):
                node = root[ref_values[rstart + p]]
                d = 1
                while node >= 0:
                    if cnt[node] == 0:
                        touched[n_touched] = node
                        n_touched += 1
                    cnt[node] += 1
                    if d == max_order or p + d >= rl:
                        break
                    tok = ref_values[rstart + p + d]
                    node = child[node]
                    while node >= 0 and node_tok[node] != tok:
                        node = sibling[node]
                    d += 1
            for t in range(n_touched):
                node = touched[t]
                c = cnt[node]
                cnt[node] = 0
                if c > maxc[node]:
                    maxc[node] = c
                if w > maxw[node]:
                    maxw[node] = w
                v = w * min(hcnt[node], c)
                if v > best[node]:
                    best[node] = v
    # --- per order sums; leave root all -1 for the next segment
    match[:] = 0
    wmatch[:] = 0.0
    for node in range(n_nodes):
        if depth[node] == 1:
            root[node_tok[node]] = -1
        if maxc[node] == 0:
            continue  # in no reference: adds 0
        m = min(hcnt[node], maxc[node])
        k = depth[node] - 1
        match[k] += m
        if uniform:
            wmatch[k] += w_max * m
        elif definition == DEF_PAPER:
            wmatch[k] += best[node]
        else:
            wmatch[k] += m * maxw[node]
    for n in range(1, max_order + 1):
        total = max(0, hl - n + 1)
        counts[n - 1, row] = match[n - 1]
        counts[max_order + n - 1, row] = total
        wcounts[n - 1, row] = wmatch[n - 1]
        wcounts[max_order + n - 1, row] = total * w_max


@njit(cache=True, nogil=True)
def _block_stats(
    s0, s1,
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition, vocab_size,
    lens, ref_avg, n_refs, wmax, counts, wcounts,
):
    """Statistics of segments s0..s1-1; writes only the rows of their hypotheses.

    Token ids are below ``vocab_size``.
    """
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
    # several-hypotheses path: ids of the references' n-grams of all orders
    max_ids = max_rtok * max_order
    cap = 1 << table_bits(max_ids)
    keys = np.empty(cap, np.int64)
    vals = np.empty(cap, np.int64)
    gdepth = np.empty(max_ids, np.int64)     # order of each n-gram id
    gtok = np.empty(max_ids, np.int64)       # its last token
    maxc = np.zeros(max_ids, np.int64)       # max_j #g(r_j), per local n-gram id
    maxw = np.empty(max_ids, np.float64)     # max w_j over references containing g
    cnt = np.zeros(max_ids, np.int64)        # scratch counter per id
    touched = np.empty(max_ids, np.int64)
    # single-hypothesis path: the trie of the hypothesis' n-grams (one node per distinct n-gram)
    max_nodes = max_htok * max_order
    root = np.full(max(vocab_size, 1), -1, np.int64)  # node of each unigram, by token id
    depth = np.empty(max_nodes, np.int64)
    node_tok = np.empty(max_nodes, np.int64)
    child = np.empty(max_nodes, np.int64)             # first child, then sibling links
    sibling = np.empty(max_nodes, np.int64)
    hcnt = np.empty(max_nodes, np.int64)              # #g(h)
    nmaxc = np.empty(max_nodes, np.int64)             # max_j #g(r_j)
    nmaxw = np.empty(max_nodes, np.float64)           # max w_j over references containing g
    nbest = np.empty(max_nodes, np.float64)           # max_j w_j min(#g(h), #g(r_j))
    ncnt = np.zeros(max_nodes, np.int64)
    ntouched = np.empty(max_nodes, np.int64)
    order_match = np.empty(max_order, np.int64)
    order_wmatch = np.empty(max_order, np.float64)
    # (count, weight) of each (reference, n-gram) pair, grouped by n-gram id (CSR).
    pair_start = np.zeros(max_ids + 1, np.int64)
    pair_cnt = np.empty(max_ids, np.int64)
    pair_w = np.empty(max_ids, np.float64)
    tmp_id = np.empty(max_ids, np.int64)
    tmp_cnt = np.empty(max_ids, np.int64)
    tmp_w = np.empty(max_ids, np.float64)

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
        if h1 - h0 == 1 and hyp_offsets[hyp_order[h0] + 1] - hyp_offsets[hyp_order[h0]] <= TRIE_MAX_TOKENS:
            _single_hyp_segment(
                hyp_order[h0], hyp_values, hyp_offsets, ref_values, ref_offsets, ref_order, r0, r1,
                ref_weights, max_order, definition, uniform, w_max,
                root, depth, node_tok, child, sibling, hcnt, nmaxc, nmaxw, nbest, ncnt, ntouched,
                order_match, order_wmatch, counts, wcounts,
            )
            continue
        # --- index the references: every n-gram of every order gets an id (unigrams
        # through root, longer ones by the exact key (prefix id << 32 | token)), with
        # max_j #g(r_j), max w_j and the (count, weight) pairs of each reference
        n_keys = 0
        for r in range(r0, r1):
            row = ref_order[r]
            rl = ref_offsets[row + 1] - ref_offsets[row]
            for n in range(2, max_order + 1):
                n_keys += max(0, rl - n + 1)
        bits = table_bits(n_keys)
        shift = 64 - bits
        mask = (1 << bits) - 1
        keys[: 1 << bits] = _EMPTY
        n_ids = 0
        n_pairs = 0
        for r in range(r0, r1):
            row = ref_order[r]
            start = ref_offsets[row]
            rl = ref_offsets[row + 1] - start
            w = ref_weights[row]
            n_touched = 0
            for p in range(rl):
                gid = -1
                for d in range(1, min(max_order, rl - p) + 1):
                    tok = np.int64(ref_values[start + p + d - 1])
                    if d == 1:
                        gid = root[tok]
                        is_new = gid < 0
                        if is_new:
                            gid = n_ids
                            n_ids += 1
                            root[tok] = gid
                    else:
                        gid, n_new = _insert_key(keys, vals, shift, mask, (gid << 32) | tok, n_ids)
                        is_new = n_new != n_ids
                        n_ids = n_new
                    if is_new:  # first time this n-gram is seen in the segment
                        gdepth[gid] = d
                        gtok[gid] = tok
                        maxc[gid] = 0
                        maxw[gid] = -np.inf
                        pair_start[gid] = 0
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
        # --- every hypothesis: walk down from each position while the n-gram is in a reference
        for h in range(h0, h1):
            row = hyp_order[h]
            start = hyp_offsets[row]
            hl = hyp_offsets[row + 1] - start
            n_touched = 0
            for p in range(hl):
                gid = root[hyp_values[start + p]]
                d = 1
                while gid >= 0:
                    if cnt[gid] == 0:
                        touched[n_touched] = gid
                        n_touched += 1
                    cnt[gid] += 1
                    if d == max_order or p + d >= hl:
                        break
                    gid = _lookup_key(keys, vals, shift, mask, (gid << 32) | np.int64(hyp_values[start + p + d]))
                    d += 1
            order_match[:] = 0
            order_wmatch[:] = 0.0
            for t in range(n_touched):
                gid = touched[t]
                c = cnt[gid]
                cnt[gid] = 0
                k = gdepth[gid] - 1
                m = min(c, maxc[gid])
                order_match[k] += m
                if uniform:
                    order_wmatch[k] += w_max * m
                elif definition == DEF_PAPER:
                    best_w = -np.inf
                    for q in range(pair_start[gid], pair_start[gid + 1]):
                        v = pair_w[q] * min(c, pair_cnt[q])
                        if v > best_w:
                            best_w = v
                    order_wmatch[k] += best_w
                else:
                    order_wmatch[k] += m * maxw[gid]
            for n in range(1, max_order + 1):
                total = max(0, hl - n + 1)
                counts[n - 1, row] = order_match[n - 1]
                counts[max_order + n - 1, row] = total
                wcounts[n - 1, row] = order_wmatch[n - 1]
                wcounts[max_order + n - 1, row] = total * wmax[row]
        for g in range(n_ids):  # leave root all -1 for the next segment
            if gdepth[g] == 1:
                root[gtok[g]] = -1


@njit(cache=True, nogil=True)
def alloc_outputs(n_hyp, max_order):
    lens = np.zeros((3, n_hyp), np.int64)
    ref_avg = np.zeros(n_hyp, np.float64)
    n_refs = np.zeros(n_hyp, np.int64)
    wmax = np.zeros(n_hyp, np.float64)
    counts = np.zeros((2 * max_order, n_hyp), np.int64)
    wcounts = np.zeros((2 * max_order, n_hyp), np.float64)
    return lens, ref_avg, n_refs, wmax, counts, wcounts


@njit(cache=True, nogil=True, parallel=True)
def compute_stats(
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition, vocab_size, block_bounds,
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
    out = alloc_outputs(hyp_offsets.shape[0] - 1, max_order)
    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    for b in prange(block_bounds.shape[0] - 1):
        _block_stats(
            block_bounds[b], block_bounds[b + 1],
            hyp_values, hyp_offsets, hyp_order, hyp_ptr,
            ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
            max_order, definition, vocab_size,
            lens, ref_avg, n_refs, wmax, counts, wcounts,
        )
    return out


@njit(cache=True, nogil=True)
def compute_stats_serial(
    hyp_values, hyp_offsets, hyp_order, hyp_ptr,
    ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
    max_order, definition, vocab_size,
):
    """:func:`compute_stats` on the calling thread, for inputs too small to share out."""
    out = alloc_outputs(hyp_offsets.shape[0] - 1, max_order)
    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    _block_stats(
        np.int64(0), hyp_ptr.shape[0] - 1,  # not the literal 0, for which the callee would compile once more
        hyp_values, hyp_offsets, hyp_order, hyp_ptr,
        ref_values, ref_offsets, ref_order, ref_ptr, ref_weights,
        max_order, definition, vocab_size,
        lens, ref_avg, n_refs, wmax, counts, wcounts,
    )
    return out
