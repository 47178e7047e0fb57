"""Numba kernels: per-hypothesis chrF / chrF++ sufficient statistics.

Private module; only :mod:`bleustats.engine.chrf_stats` calls it. Inputs are
the UTF-8 bytes and line offsets of Arrow string arrays (read-only buffers are
fine) and two CSR pointers that give each segment's hypothesis rows and
reference rows.

In each segment the lines of the side with fewer of them are indexed, one at
a time, and the other side's lines are walked against each: a segment's
reference is indexed once for all of its hypotheses (the systems of a
WMT-style test set), a lone hypothesis once for all of its references. The
clipped match count ``min(#hyp, #ref)`` is the same either way.

For every hypothesis row the kernel writes one row of ``3 * (C + W)`` int64:
for each character order ``1..C`` then each word order ``1..W`` the triple
(hypothesis n-gram count, reference n-gram count, clipped matches), taken from
the reference with the highest sentence F-score (the first one on ties), which
is how sacreBLEU 2.6's ``CHRF`` chooses among several references.

Text model (sacreBLEU's)
------------------------
* Characters are code points. Unless ``whitespace`` is set, every character
  that Python's ``str.split()`` splits on is removed before character n-grams
  are taken; with ``whitespace`` set the line is used as it is.
* Words are the ``str.split()`` tokens, each then split once around ASCII
  punctuation: a token of two or more characters that ends in punctuation
  loses its last character to a token of its own; otherwise one that starts
  with punctuation loses its first.
* The hypothesis count of an order is reported as 0 when the reference has no
  n-gram of that order.

Exactness
---------
N-grams are never hashed into a lossy fingerprint. Within one indexed line's table,
every distinct code-point sequence gets a dense id from the exact key
``(id of the sequence without its last code point, last code point)`` (the
empty sequence has id 0), so two sequences share an id if and only if they are
equal; a word is identified by the id of its code-point sequence, and a word
n-gram of order ``n >= 2`` by the exact key ``(id of its first n-1 words,
WORD_TAG + id of its last word)``. ``WORD_TAG`` lies above every code point, so
word keys never meet character keys. The open-addressing table only ever
compares full keys: a clash of hash *slots* costs a probe, never a count. Only
the indexed line's n-grams are inserted; a walked n-gram whose prefix is not
in the table cannot be in the indexed line, so the walk stops there. Work and
memory are linear in the lengths of the lines: a block's scratch is sized for
its longest indexed line of ``L`` code points, which can
make at most ``L * (min(C, L) + 1 + W) + 2`` ids; each possible id costs 2 to 4
table slots of 12 bytes plus 24 bytes of counters and work list (about 0.5 KB
per code point for chrF++; a 1M-character line measured 1.8 s and ~0.6 GB),
and a segment's walked lines are kept decoded (8 bytes per byte of their text).

Scores
------
:func:`f_score` is sacreBLEU's sentence F-score, operation for operation in
float64, so the reference chosen here is the one sacreBLEU chooses.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._encode_kernels import table_bits

#: The other sources these kernels compile in (constants and called kernels), each with the first 16 hex
#: digits of its SHA-256: numba stamps a kernel's cache with this file alone, so a change there must change
#: this file too (tests/test_kernel_cache.py checks the digests; bleustats._kernel_cache).
COMPILED_IN = {"engine/_encode_kernels.py": "73393011735b2658"}


#: Added to a word id in a word n-gram key; above every code point (U+10FFFF).
WORD_TAG = 1 << 21
#: Per-row table capacity limit: ids, keys and slots are int32.
MAX_IDS = 1 << 29

#: Indices into the ``config`` array of :func:`chrf_rows`.
CFG_CHAR_ORDER = 0
CFG_WORD_ORDER = 1
CFG_WHITESPACE = 2
CFG_EPS_SMOOTHING = 3

_EMPTY = -1
_EPS = 1e-16


# --------------------------------------------------------------------------- text


@njit(cache=True, nogil=True)
def _is_space(cp):
    """True for the code points Python's ``str.split()`` splits on."""
    if cp <= 32:
        return cp == 32 or (9 <= cp <= 13) or cp >= 28
    if cp < 0x85:
        return False
    if cp == 0x85 or cp == 0xA0 or cp == 0x1680:
        return True
    if cp < 0x2000:
        return False
    return (cp <= 0x200A or cp == 0x2028 or cp == 0x2029 or cp == 0x202F
            or cp == 0x205F or cp == 0x3000)


@njit(cache=True, nogil=True)
def _is_punct(cp):
    """True for ASCII punctuation (Python's ``string.punctuation``)."""
    return (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126)


@njit(cache=True, nogil=True)
def _decode_line(data, start, end, cps):
    """UTF-8 bytes ``data[start:end]`` → code points in ``cps``; returns their number.

    Arrow validates UTF-8; a sequence cut short by the end of a line still
    never reads past ``end``.
    """
    n = 0
    i = np.int64(start)
    end = np.int64(end)
    while i < end:
        b = np.int64(data[i])
        if b < 0x80:
            cps[n] = b
            n += 1
            i += 1
            continue
        if b < 0xE0:
            cp = b & 0x1F
            width = 2
        elif b < 0xF0:
            cp = b & 0x0F
            width = 3
        else:
            cp = b & 0x07
            width = 4
        for k in range(1, width):
            if i + k < end:
                cp = (cp << 6) | (np.int64(data[i + k]) & 0x3F)
        cps[n] = cp
        n += 1
        i = min(i + width, end)
    return n


@njit(cache=True, nogil=True)
def _strip_spaces(cps, n, out):
    """Copy the non-whitespace code points of ``cps[:n]`` to ``out``; return their number."""
    m = 0
    for i in range(n):
        cp = cps[i]
        if not _is_space(np.int64(cp)):
            out[m] = cp
            m += 1
    return m


@njit(cache=True, nogil=True)
def _split_words(cps, n, starts, ends):
    """sacreBLEU's chrF++ words of ``cps[:n]`` as spans; returns their number."""
    nw = 0
    i = 0
    while i < n:
        while i < n and _is_space(np.int64(cps[i])):
            i += 1
        if i >= n:
            break
        s = i
        while i < n and not _is_space(np.int64(cps[i])):
            i += 1
        e = i
        if e - s >= 2 and _is_punct(np.int64(cps[e - 1])):
            starts[nw] = s
            ends[nw] = e - 1
            starts[nw + 1] = e - 1
            ends[nw + 1] = e
            nw += 2
        elif e - s >= 2 and _is_punct(np.int64(cps[s])):
            starts[nw] = s
            ends[nw] = s + 1
            starts[nw + 1] = s + 1
            ends[nw + 1] = e
            nw += 2
        else:
            starts[nw] = s
            ends[nw] = e
            nw += 1
    return nw


# --------------------------------------------------------------------------- the table


@njit(cache=True, nogil=True, inline="always")
def _slot_of(a, b, bits):
    """Hash slot of the key (a, b); a, b < 2**31, so no product overflows int64."""
    x = np.int64(a) * 0x2545F491 + np.int64(b) * 0x3C6EF35F
    x = x ^ (x >> 29)
    x = (x & 0xFFFFFFFF) * 0x27D4EB2F
    return (x >> 18) & ((np.int64(1) << bits) - 1)


@njit(cache=True, nogil=True)
def _insert_key(key_a, key_b, vals, bits, a, b, next_id):
    """Return (id of key (a, b), next free id); a new key gets ``next_id``."""
    mask = (np.int64(1) << bits) - 1
    slot = _slot_of(a, b, bits)
    while True:
        ka = key_a[slot]
        if ka == _EMPTY:
            key_a[slot] = a
            key_b[slot] = b
            vals[slot] = next_id
            return next_id, next_id + 1
        if ka == a and key_b[slot] == b:
            return np.int64(vals[slot]), next_id
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True)
def _lookup_key(key_a, key_b, vals, bits, a, b):
    """Return the id of key (a, b), or -1 when it is not in the table."""
    mask = (np.int64(1) << bits) - 1
    slot = _slot_of(a, b, bits)
    while True:
        ka = key_a[slot]
        if ka == _EMPTY:
            return np.int64(-1)
        if ka == a and key_b[slot] == b:
            return np.int64(vals[slot])
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True)
def _id_capacity(n_cps, char_order, word_order):
    """Upper bound on the ids one line of ``n_cps`` code points can create (plus the root)."""
    return n_cps * (min(char_order, n_cps) + 1 + word_order) + 2


# --------------------------------------------------------------------------- scores


@njit(cache=True, nogil=True)
def f_score(stats, n_orders, factor, eps_smoothing):
    """sacreBLEU 2.6's sentence chrF of one statistics row, in the same float64 operation order.

    ``factor`` is beta squared as a float. With ``eps_smoothing`` every order
    adds its F-score (1e-16 standing in for an undefined precision, recall or
    F); without it precision and recall are averaged over the orders where
    both the hypothesis and the reference have n-grams.
    """
    score = 0.0
    effective_order = 0
    avg_prec = 0.0
    avg_rec = 0.0
    for i in range(n_orders):
        n_hyp = stats[3 * i]
        n_ref = stats[3 * i + 1]
        n_match = stats[3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else _EPS
        rec = n_match / n_ref if n_ref > 0 else _EPS
        denom = factor * prec + rec
        score += ((1.0 + factor) * prec * rec / denom) if denom > 0 else _EPS
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1
    if eps_smoothing:
        return 100.0 * score / n_orders
    if effective_order == 0:
        avg_prec = 0.0
        avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if avg_prec + avg_rec != 0.0:
        score = (1.0 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100.0 * score
    return 0.0


# --------------------------------------------------------------------------- statistics


@njit(cache=True, nogil=True)
def _index_line(chars, cl, raw, n_raw, char_order, word_order,
                key_a, key_b, vals, bits, icnt_c, icnt_w, starts, ends, wids):
    """Insert one line's character and word n-grams into the table; count them in icnt_c / icnt_w.

    Returns the number of words. A new id's two counters start at 0; the
    walk's counters are left alone (they are 0 between walks).
    """
    next_id = np.int64(1)
    for p in range(cl):
        prev = np.int64(0)
        for d in range(min(char_order, cl - p)):
            node, nxt = _insert_key(key_a, key_b, vals, bits, prev, np.int64(chars[p + d]), next_id)
            if nxt != next_id:
                icnt_c[node] = 0
                icnt_w[node] = 0
                next_id = nxt
            icnt_c[node] += 1
            prev = node
    if word_order == 0:
        return 0
    nw = _split_words(raw, n_raw, starts, ends)
    for k in range(nw):
        prev = np.int64(0)
        for q in range(starts[k], ends[k]):
            node, nxt = _insert_key(key_a, key_b, vals, bits, prev, np.int64(raw[q]), next_id)
            if nxt != next_id:
                icnt_c[node] = 0
                icnt_w[node] = 0
                next_id = nxt
            prev = node
        wids[k] = prev
    for p in range(nw):
        node = np.int64(wids[p])
        icnt_w[node] += 1
        for d in range(1, min(word_order, nw - p)):
            node, nxt = _insert_key(key_a, key_b, vals, bits, node, WORD_TAG + np.int64(wids[p + d]), next_id)
            if nxt != next_id:
                icnt_c[node] = 0
                icnt_w[node] = 0
                next_id = nxt
            icnt_w[node] += 1
    return nw


@njit(cache=True, nogil=True)
def _walk_line(chars, cl, raw, n_raw, char_order, word_order,
               key_a, key_b, vals, bits, icnt_c, icnt_w, wcnt_c, wcnt_w,
               starts, ends, wids, touched, touched_order, match):
    """Clipped matches of one line against the indexed line, per order, into ``match``.

    Only the walked line's n-grams that the indexed line has are counted (in
    wcnt_c / wcnt_w, which must be all 0 and are left all 0); a walk stops at
    the first prefix the table lacks. Clipping, ``min`` of the two counts, is
    the same whichever line is indexed. Returns the walked line's number of
    words.
    """
    match[:] = 0
    n_t = 0
    for p in range(cl):
        prev = np.int64(0)
        for d in range(min(char_order, cl - p)):
            node = _lookup_key(key_a, key_b, vals, bits, prev, np.int64(chars[p + d]))
            if node < 0:
                break
            if wcnt_c[node] == 0:
                touched[n_t] = node
                touched_order[n_t] = d
                n_t += 1
            wcnt_c[node] += 1
            prev = node
    for t in range(n_t):
        node = touched[t]
        match[touched_order[t]] += min(icnt_c[node], wcnt_c[node])
        wcnt_c[node] = 0
    if word_order == 0:
        return 0
    nw = _split_words(raw, n_raw, starts, ends)
    for k in range(nw):
        prev = np.int64(0)
        for q in range(starts[k], ends[k]):
            prev = _lookup_key(key_a, key_b, vals, bits, prev, np.int64(raw[q]))
            if prev < 0:
                break
        wids[k] = prev
    n_t = 0
    for p in range(nw):
        node = np.int64(wids[p])
        d = 0
        while node >= 0:
            if wcnt_w[node] == 0:
                touched[n_t] = node
                touched_order[n_t] = d
                n_t += 1
            wcnt_w[node] += 1
            d += 1
            if d >= word_order or p + d >= nw or wids[p + d] < 0:
                break
            node = _lookup_key(key_a, key_b, vals, bits, node, WORD_TAG + np.int64(wids[p + d]))
    for t in range(n_t):
        node = touched[t]
        match[char_order + touched_order[t]] += min(icnt_w[node], wcnt_w[node])
        wcnt_w[node] = 0
    return nw


@njit(cache=True, nogil=True)
def _fill_counts(stats, match, hl, rl, hw, rw, char_order, word_order):
    """One reference's statistics row from the lengths and the clipped matches."""
    for n in range(char_order + word_order):
        if n < char_order:
            h_tot = max(0, hl - n)
            r_tot = max(0, rl - n)
        else:
            h_tot = max(0, hw - (n - char_order))
            r_tot = max(0, rw - (n - char_order))
        stats[3 * n] = h_tot if r_tot > 0 else 0
        stats[3 * n + 1] = r_tot
        stats[3 * n + 2] = match[n]


@njit(cache=True, nogil=True)
def _count_code_points(data, start, end):
    n = 0
    for i in range(start, end):
        n += (np.int64(data[i]) & 0xC0) != 0x80
    return n


@njit(cache=True, nogil=True)
def _decode_text(data, start, end, whitespace, raw, chars):
    """Decode one line into ``raw`` and its character n-gram text into ``chars``; return (n_raw, n_chars)."""
    n_raw = _decode_line(data, start, end, raw)
    if whitespace:
        chars[:n_raw] = raw[:n_raw]
        return n_raw, n_raw
    return n_raw, _strip_spaces(raw, n_raw, chars)


@njit(cache=True, nogil=True)
def _chrf_block(s0, s1, hyp_data, hyp_offsets, hyp_rows, hyp_ptr, ref_data, ref_offsets, ref_ptr,
                config, factor, out):
    """Statistics rows of the hypotheses of segments s0..s1-1 into ``out``; touches no other row.

    In each segment the side with fewer lines is indexed, one line at a
    time, and the other side's lines (decoded once per segment) are walked
    against it: with several hypotheses (systems) per segment each reference
    is indexed once for all of them, a lone hypothesis with several
    references is indexed once for all of them. Either way every hypothesis
    meets its references in their order, and keeps the row of the first
    with the best F-score.
    """
    char_order = config[CFG_CHAR_ORDER]
    word_order = config[CFG_WORD_ORDER]
    whitespace = config[CFG_WHITESPACE] != 0
    eps_smoothing = config[CFG_EPS_SMOOTHING] != 0
    n_orders = char_order + word_order
    # scratch sized for the block's largest lines, allocated once
    max_bytes = 1  # any line
    max_walked_bytes = 1  # one segment's walked lines together
    max_lines = 1
    max_ids = 2  # any indexed line
    for s in range(s0, s1):
        n_h = hyp_ptr[s + 1] - hyp_ptr[s]
        n_r = ref_ptr[s + 1] - ref_ptr[s]
        if n_h == 0 or n_r == 0:
            continue
        index_refs = n_h >= n_r
        max_lines = max(max_lines, max(n_h, n_r))
        hyp_bytes = np.int64(0)
        for i in range(hyp_ptr[s], hyp_ptr[s + 1]):
            h = hyp_rows[i]
            a = np.int64(hyp_offsets[h])
            b = np.int64(hyp_offsets[h + 1])
            max_bytes = max(max_bytes, b - a)
            hyp_bytes += b - a
            if not index_refs:
                max_ids = max(max_ids, _id_capacity(_count_code_points(hyp_data, a, b), char_order, word_order))
        ref_bytes = np.int64(0)
        for r in range(ref_ptr[s], ref_ptr[s + 1]):
            a = np.int64(ref_offsets[r])
            b = np.int64(ref_offsets[r + 1])
            max_bytes = max(max_bytes, b - a)
            ref_bytes += b - a
            if index_refs:
                max_ids = max(max_ids, _id_capacity(_count_code_points(ref_data, a, b), char_order, word_order))
        max_walked_bytes = max(max_walked_bytes, hyp_bytes if index_refs else ref_bytes)
    raw = np.empty(max_bytes, np.int32)
    chars = np.empty(max_bytes, np.int32)
    starts = np.empty(max_bytes + 1, np.int64)
    ends = np.empty(max_bytes + 1, np.int64)
    wids = np.empty(max_bytes + 1, np.int64)
    slots = np.int64(1) << table_bits(max_ids)
    key_a = np.empty(slots, np.int32)
    key_b = np.empty(slots, np.int32)
    vals = np.empty(slots, np.int32)
    icnt_c = np.empty(max_ids, np.int32)
    icnt_w = np.empty(max_ids, np.int32)
    wcnt_c = np.zeros(max_ids, np.int32)  # every walk leaves them 0
    wcnt_w = np.zeros(max_ids, np.int32)
    touched = np.empty(max_ids, np.int32)
    touched_order = np.empty(max_ids, np.int32)
    match = np.zeros(n_orders, np.int64)
    cur = np.zeros(3 * n_orders, np.int64)
    # the segment's walked lines, decoded: line j is w_raw[at[j]:at[j] + w_n_raw[j]], its characters
    # w_chars[at[j]:at[j] + w_n_chars[j]]
    w_raw = np.empty(max_walked_bytes, np.int32)
    w_chars = np.empty(max_walked_bytes, np.int32)
    at = np.empty(max_lines, np.int64)
    w_n_raw = np.empty(max_lines, np.int64)
    w_n_chars = np.empty(max_lines, np.int64)
    best = np.empty(max_lines, np.float64)

    for s in range(s0, s1):
        i0 = hyp_ptr[s]
        r0 = ref_ptr[s]
        n_h = hyp_ptr[s + 1] - i0
        n_r = ref_ptr[s + 1] - r0
        if n_h == 0 or n_r == 0:
            continue  # no reference: the rows stay 0
        index_refs = n_h >= n_r
        n_walk = n_h if index_refs else n_r
        pos = np.int64(0)
        for j in range(n_walk):
            if index_refs:
                h = hyp_rows[i0 + j]
                a = np.int64(hyp_offsets[h])
                b = np.int64(hyp_offsets[h + 1])
                nr, nc = _decode_text(hyp_data, a, b, whitespace, w_raw[pos:], w_chars[pos:])
            else:
                a = np.int64(ref_offsets[r0 + j])
                b = np.int64(ref_offsets[r0 + j + 1])
                nr, nc = _decode_text(ref_data, a, b, whitespace, w_raw[pos:], w_chars[pos:])
            at[j] = pos
            w_n_raw[j] = nr
            w_n_chars[j] = nc
            pos += b - a
        for j in range(n_h):
            best[j] = -1.0
        for k in range(n_r if index_refs else n_h):  # the indexed lines, references in their order
            if index_refs:
                i_raw, i_chars = _decode_text(ref_data, np.int64(ref_offsets[r0 + k]),
                                              np.int64(ref_offsets[r0 + k + 1]), whitespace, raw, chars)
            else:
                h = hyp_rows[i0 + k]
                i_raw, i_chars = _decode_text(hyp_data, np.int64(hyp_offsets[h]), np.int64(hyp_offsets[h + 1]),
                                              whitespace, raw, chars)
            bits = table_bits(_id_capacity(i_raw, char_order, word_order))
            key_a[:np.int64(1) << bits] = _EMPTY
            i_words = _index_line(chars, i_chars, raw, i_raw, char_order, word_order,
                                  key_a, key_b, vals, bits, icnt_c, icnt_w, starts, ends, wids)
            for j in range(n_walk):  # the walked lines, references in their order
                p = at[j]
                w_words = _walk_line(w_chars[p:p + w_n_chars[j]], w_n_chars[j], w_raw[p:p + w_n_raw[j]],
                                     w_n_raw[j], char_order, word_order, key_a, key_b, vals, bits,
                                     icnt_c, icnt_w, wcnt_c, wcnt_w, starts, ends, wids,
                                     touched, touched_order, match)
                if index_refs:
                    hyp = j
                    _fill_counts(cur, match, w_n_chars[j], i_chars, w_words, i_words, char_order, word_order)
                else:
                    hyp = k
                    _fill_counts(cur, match, i_chars, w_n_chars[j], i_words, w_words, char_order, word_order)
                f = f_score(cur, n_orders, factor, eps_smoothing)
                if f > best[hyp]:
                    best[hyp] = f
                    out[hyp_rows[i0 + hyp], :] = cur


@njit(cache=True, nogil=True, parallel=True)
def chrf_rows(hyp_data, hyp_offsets, hyp_rows, hyp_ptr, ref_data, ref_offsets, ref_ptr,
              config, factor, block_bounds):
    """Statistics of every hypothesis row; blocks of segments run in parallel.

    Segment ``s``'s hypotheses are rows ``hyp_rows[hyp_ptr[s]:hyp_ptr[s+1]]``
    of the hypothesis strings, its references rows
    ``ref_ptr[s]:ref_ptr[s+1]`` of the reference strings (in the order that
    decides ties). ``config`` holds (char_order, word_order, whitespace,
    eps_smoothing) as int64; ``factor`` is beta squared. Block ``b`` is
    segments ``block_bounds[b]:block_bounds[b+1]`` and writes only their
    hypotheses' rows. A hypothesis of a segment without references keeps a
    row of zeros. Which side of a segment is indexed follows from the
    numbers of lines alone, so a row never depends on the blocks.

    Returns
    -------
    int64[n_hyp, 3 * (char_order + word_order)]
    """
    n_hyp = hyp_offsets.shape[0] - 1
    out = np.zeros((n_hyp, 3 * (config[CFG_CHAR_ORDER] + config[CFG_WORD_ORDER])), np.int64)
    for k in prange(block_bounds.shape[0] - 1):
        _chrf_block(block_bounds[k], block_bounds[k + 1], hyp_data, hyp_offsets, hyp_rows, hyp_ptr,
                    ref_data, ref_offsets, ref_ptr, config, factor, out)
    return out


@njit(cache=True, nogil=True)
def chrf_rows_serial(hyp_data, hyp_offsets, hyp_rows, hyp_ptr, ref_data, ref_offsets, ref_ptr,
                     config, factor):
    """:func:`chrf_rows` on the calling thread, for inputs too small to share out."""
    n_hyp = hyp_offsets.shape[0] - 1
    out = np.zeros((n_hyp, 3 * (config[CFG_CHAR_ORDER] + config[CFG_WORD_ORDER])), np.int64)
    _chrf_block(np.int64(0), hyp_ptr.shape[0] - 1, hyp_data, hyp_offsets, hyp_rows, hyp_ptr,
                ref_data, ref_offsets, ref_ptr, config, factor, out)
    return out
