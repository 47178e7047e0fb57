"""Numba kernels: all-pairs clipped n-gram matches within each source, for MBR and pairwise scores.

Private module; only :mod:`bleustats.tools.mbr` calls it. A text is a
sequence of integer tokens (code points for chrF's character n-grams, word
ids for chrF++'s words and for BLEU). Source ``s`` has hypotheses
``hyp_ptr[s]:hyp_ptr[s+1]`` and references ``ref_ptr[s]:ref_ptr[s+1]``,
both ranges of the same flat list of texts (``tok_off`` is its CSR pointer);
when the two ranges are equal the references *are* the hypotheses (MBR's
default) and each text is indexed once.

Per source, every n-gram of orders ``1..max_order`` of every text of the
source gets a dense id from the exact key ``(id of its first n-1 tokens,
last token)`` (the empty prefix has id 0), so two n-grams share an id if and
only if they are equal; the open-addressing table compares whole keys, so a
clash of hash slots costs a probe, never a count. Each text's n-grams are
then kept once, as a list of (id, count) pairs, and

* :func:`pairwise_matches` gives, for every (hypothesis, reference) pair of
  the source, :math:`m_n = \\sum_g \\min(\\#g(h), \\#g(r))` for each order:
  the hypothesis' counts are scattered into a dense array once per
  hypothesis, then each reference's list is walked. With the references being
  the hypotheses, :math:`m_n(i, j) = m_n(j, i)`, so only ``j >= i`` is walked
  and mirrored.
* :func:`aggregate_matches` gives, for every hypothesis, the clipped matches
  against the pooled counts of all the source's references (Vamvas &
  Sennrich, 2024), in integers scaled by the number of references ``M``:
  :math:`\\sum_g \\min(M\\,\\#g(h), \\sum_j \\#g(r_j))`.

Work per source is linear in its n-grams for the indexing, plus, for the
pairs, the sum over pairs of the reference's distinct n-grams; memory is one
source's table and output. Sources run in parallel, each writing only its
own slice of the output.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..engine._chrf_kernels import f_score

#: The other sources these kernels compile in (constants and called kernels), each with the first 16 hex
#: digits of its SHA-256: numba stamps a kernel's cache with this file alone, so a change there must change
#: this file too (tests/test_kernel_cache.py checks the digests; bleustats._kernel_cache).
COMPILED_IN = {"engine/_chrf_kernels.py": "d266965a03dd731f"}


_EMPTY = -1


@njit(cache=True, nogil=True, inline="always")
def _slot_of(a, b, mask):
    """Hash slot of the key (a, b); a product may wrap around int64, which only mixes the bits."""
    x = np.int64(a) * 0x2545F491 + np.int64(b) * 0x3C6EF35F
    x = x ^ (x >> 29)
    x = (x & 0xFFFFFFFF) * 0x27D4EB2F
    return (x >> 18) & mask


@njit(cache=True, nogil=True)
def _ngram_capacity(tok_off, t0, t1, max_order):
    """Number of n-grams (orders 1..max_order) of texts t0..t1-1."""
    total = np.int64(0)
    for t in range(t0, t1):
        n = np.int64(tok_off[t + 1]) - np.int64(tok_off[t])
        for d in range(max_order):
            if n > d:
                total += n - d
    return total


@njit(cache=True, nogil=True)
def _index_texts(tokens, tok_off, first, count, max_order, key_a, key_b, vals, mask,
                 order_of, cnt, uniq_ptr, uniq_id, uniq_cnt, u0, next_id):
    """Ids of the n-grams of texts ``first..first+count-1``; each text's (id, count) list appended.

    ``uniq_ptr[k]`` (k counted from ``u0``) is where text k's list starts in
    ``uniq_id`` / ``uniq_cnt``. ``cnt`` is all 0 on entry and on return.
    Returns (next free position in the lists, next free id).
    """
    pos = np.int64(uniq_ptr[u0])
    for k in range(count):
        t = first + k
        a = np.int64(tok_off[t])
        n = np.int64(tok_off[t + 1]) - a
        start = pos
        for p in range(n):
            prev = np.int64(0)
            for d in range(min(max_order, n - p)):
                tok = np.int64(tokens[a + p + d])
                slot = _slot_of(prev, tok, mask)
                while True:
                    ka = key_a[slot]
                    if ka == _EMPTY:
                        key_a[slot] = prev
                        key_b[slot] = tok
                        vals[slot] = next_id
                        order_of[next_id] = d
                        node = next_id
                        next_id += 1
                        break
                    if ka == prev and key_b[slot] == tok:
                        node = vals[slot]
                        break
                    slot = (slot + 1) & mask
                if cnt[node] == 0:
                    uniq_id[pos] = node
                    pos += 1
                cnt[node] += 1
                prev = node
        for q in range(start, pos):
            node = uniq_id[q]
            uniq_cnt[q] = cnt[node]
            cnt[node] = 0
        uniq_ptr[u0 + k + 1] = pos
    return pos, next_id


@njit(cache=True, nogil=True)
def _index_source(tokens, tok_off, h0, h1, r0, r1, max_order):
    """Index one source's texts: hypotheses first, then the references unless they are the hypotheses.

    Returns (order_of, uniq_ptr, uniq_id, uniq_cnt, n_ids, same); text ``k``
    of the source (``k < h1 - h0``: hypothesis ``k``; else reference
    ``k - (h1 - h0)``) has its (id, count) list at
    ``uniq_ptr[k]:uniq_ptr[k + 1]``.
    """
    same = h0 == r0 and h1 == r1
    n_h = h1 - h0
    n_texts = n_h if same else n_h + (r1 - r0)
    cap = _ngram_capacity(tok_off, h0, h1, max_order)
    if not same:
        cap += _ngram_capacity(tok_off, r0, r1, max_order)
    bits = 4
    while (np.int64(1) << bits) < 2 * cap + 2:
        bits += 1
    mask = (np.int64(1) << bits) - 1
    key_a = np.full(np.int64(1) << bits, _EMPTY, np.int64)
    key_b = np.empty(np.int64(1) << bits, np.int64)
    vals = np.empty(np.int64(1) << bits, np.int64)
    order_of = np.empty(cap + 1, np.int64)
    cnt = np.zeros(cap + 1, np.int64)
    uniq_ptr = np.zeros(n_texts + 1, np.int64)
    uniq_id = np.empty(cap, np.int64)
    uniq_cnt = np.empty(cap, np.int64)
    pos, next_id = _index_texts(tokens, tok_off, h0, n_h, max_order, key_a, key_b, vals, mask,
                                order_of, cnt, uniq_ptr, uniq_id, uniq_cnt, 0, np.int64(1))
    if not same:
        pos, next_id = _index_texts(tokens, tok_off, r0, r1 - r0, max_order, key_a, key_b, vals, mask,
                                    order_of, cnt, uniq_ptr, uniq_id, uniq_cnt, n_h, next_id)
    return order_of, uniq_ptr, uniq_id, uniq_cnt, next_id, same


@njit(cache=True, nogil=True)
def _source_pairs(tokens, tok_off, h0, h1, r0, r1, max_order, out, o0):
    """Clipped matches of every (hypothesis, reference) pair of one source into ``out[o0:]``.

    Pair (i, j) of orders d = 0..max_order-1 goes to ``out[o0 + (i * M + j) * max_order + d]``.
    """
    order_of, uniq_ptr, uniq_id, uniq_cnt, n_ids, same = _index_source(tokens, tok_off, h0, h1, r0, r1, max_order)
    n_h = h1 - h0
    n_r = r1 - r0
    ref_base = 0 if same else n_h
    cnt = np.zeros(n_ids, np.int64)
    for i in range(n_h):
        for q in range(uniq_ptr[i], uniq_ptr[i + 1]):
            cnt[uniq_id[q]] = uniq_cnt[q]
        for j in range(i if same else 0, n_r):
            k = ref_base + j
            base = o0 + (i * n_r + j) * max_order
            for q in range(uniq_ptr[k], uniq_ptr[k + 1]):
                c = cnt[uniq_id[q]]
                if c > 0:
                    out[base + order_of[uniq_id[q]]] += min(c, uniq_cnt[q])
            if same and j != i:
                mirror = o0 + (j * n_r + i) * max_order
                for d in range(max_order):
                    out[mirror + d] = out[base + d]
        for q in range(uniq_ptr[i], uniq_ptr[i + 1]):
            cnt[uniq_id[q]] = 0


@njit(cache=True, nogil=True, parallel=True)
def pairwise_matches(tokens, tok_off, hyp_ptr, ref_ptr, max_order, out_ptr):
    """Clipped n-gram matches of every (hypothesis, reference) pair within each source.

    Parameters
    ----------
    tokens : int array
        All texts' tokens, flat (any non-negative integers below 2**32).
    tok_off : int64[n_texts + 1]
        Text ``t`` is ``tokens[tok_off[t]:tok_off[t + 1]]``.
    hyp_ptr, ref_ptr : int64[n_sources + 1]
        Source ``s``'s hypotheses and references as ranges of texts.
    max_order : int
        Largest n-gram order.
    out_ptr : int64[n_sources + 1]
        Source ``s`` writes ``out[out_ptr[s]:out_ptr[s + 1]]``, which must
        hold ``N_s * M_s * max_order`` values.

    Returns
    -------
    int64[out_ptr[-1]]
        Pair (i, j) of source s, order n (1-based): ``out[out_ptr[s] + (i * M_s + j) * max_order + n - 1]``.
    """
    out = np.zeros(out_ptr[-1], np.int64)
    for s in prange(hyp_ptr.shape[0] - 1):
        _source_pairs(tokens, tok_off, hyp_ptr[s], hyp_ptr[s + 1], ref_ptr[s], ref_ptr[s + 1],
                      max_order, out, out_ptr[s])
    return out


@njit(cache=True, nogil=True)
def _stream_matches(order_of, uniq_ptr, uniq_id, uniq_cnt, cnt, k, base, m):
    """Add reference text k's clipped matches against the scattered hypothesis counts to m[base + order]."""
    for q in range(uniq_ptr[k], uniq_ptr[k + 1]):
        c = cnt[uniq_id[q]]
        if c > 0:
            m[base + order_of[uniq_id[q]]] += min(c, uniq_cnt[q])


@njit(cache=True, nogil=True)
def _fill_totals(stats, m, base, order, hl, rl):
    """(hyp, ref, match) rows of one stream: n-gram totals from the lengths; hyp shown as 0 without ref n-grams."""
    for d in range(order):
        h_tot = max(0, hl - d)
        r_tot = max(0, rl - d)
        stats[3 * (base + d)] = h_tot if r_tot > 0 else 0
        stats[3 * (base + d) + 1] = r_tot
        stats[3 * (base + d) + 2] = m[base + d]


@njit(cache=True, nogil=True)
def _source_chrf(c_tokens, c_off, char_order, w_tokens, w_off, word_order, h0, h1, r0, r1, factor,
                 eps_smoothing, out, o0):
    """Sentence chrF of every (hypothesis, reference) pair of one source into ``out[o0 + i * M + j]``."""
    n_h = h1 - h0
    n_r = r1 - r0
    same = h0 == r0 and h1 == r1
    ref_base = 0 if same else n_h
    n_orders = char_order + word_order
    m = np.zeros(n_orders, np.int64)
    stats = np.zeros(3 * n_orders, np.int64)
    c_order_of, c_ptr, c_id, c_cnt, c_ids, _ = _index_source(c_tokens, c_off, h0, h1, r0, r1, max(char_order, 1))
    w_order_of, w_ptr, w_id, w_cnt, w_ids, _ = _index_source(w_tokens, w_off, h0, h1, r0, r1, max(word_order, 1))
    c_cnt_h = np.zeros(c_ids, np.int64)
    w_cnt_h = np.zeros(w_ids, np.int64)
    for i in range(n_h):
        if char_order > 0:
            for q in range(c_ptr[i], c_ptr[i + 1]):
                c_cnt_h[c_id[q]] = c_cnt[q]
        if word_order > 0:
            for q in range(w_ptr[i], w_ptr[i + 1]):
                w_cnt_h[w_id[q]] = w_cnt[q]
        hc = np.int64(c_off[h0 + i + 1]) - np.int64(c_off[h0 + i])
        hw = np.int64(w_off[h0 + i + 1]) - np.int64(w_off[h0 + i])
        for j in range(i if same else 0, n_r):
            k = ref_base + j
            t = r0 + j
            m[:] = 0
            if char_order > 0:
                _stream_matches(c_order_of, c_ptr, c_id, c_cnt, c_cnt_h, k, 0, m)
                _fill_totals(stats, m, 0, char_order, hc, np.int64(c_off[t + 1]) - np.int64(c_off[t]))
            if word_order > 0:
                _stream_matches(w_order_of, w_ptr, w_id, w_cnt, w_cnt_h, k, char_order, m)
                _fill_totals(stats, m, char_order, word_order, hw, np.int64(w_off[t + 1]) - np.int64(w_off[t]))
            out[o0 + i * n_r + j] = f_score(stats, n_orders, factor, eps_smoothing)
            if same and j != i:
                # the mirrored pair has the same matches with hypothesis and reference swapped
                rc = np.int64(c_off[t + 1]) - np.int64(c_off[t])
                rw = np.int64(w_off[t + 1]) - np.int64(w_off[t])
                if char_order > 0:
                    _fill_totals(stats, m, 0, char_order, rc, hc)
                if word_order > 0:
                    _fill_totals(stats, m, char_order, word_order, rw, hw)
                out[o0 + j * n_r + i] = f_score(stats, n_orders, factor, eps_smoothing)
        for q in range(c_ptr[i], c_ptr[i + 1]):
            c_cnt_h[c_id[q]] = 0
        for q in range(w_ptr[i], w_ptr[i + 1]):
            w_cnt_h[w_id[q]] = 0


@njit(cache=True, nogil=True, parallel=True)
def pairwise_chrf(c_tokens, c_off, char_order, w_tokens, w_off, word_order, hyp_ptr, ref_ptr, factor,
                  eps_smoothing, out_ptr):
    """Sentence chrF / chrF++ of every (hypothesis, reference) pair within each source, fused.

    ``c_tokens`` / ``c_off``: code points of each text (whitespace removed
    unless chrF keeps it); ``w_tokens`` / ``w_off``: chrF++ word ids of each
    text (any arrays with one empty text each when ``word_order`` is 0).
    Other arguments as :func:`pairwise_matches`; ``factor`` is beta squared,
    ``out_ptr`` counts pairs (not pair × order).

    Returns
    -------
    float64[out_ptr[-1]]
        Pair (i, j) of source s at ``out[out_ptr[s] + i * M_s + j]``.
    """
    out = np.zeros(out_ptr[-1], np.float64)
    for s in prange(hyp_ptr.shape[0] - 1):
        _source_chrf(c_tokens, c_off, char_order, w_tokens, w_off, word_order, hyp_ptr[s], hyp_ptr[s + 1],
                     ref_ptr[s], ref_ptr[s + 1], factor, eps_smoothing, out, out_ptr[s])
    return out


@njit(cache=True, nogil=True)
def _source_aggregate(tokens, tok_off, h0, h1, r0, r1, max_order, exclude_self, out):
    """Matches of each hypothesis of one source against the summed counts of its references.

    With ``exclude_self`` (references = hypotheses) hypothesis i's own counts
    are taken out of the pool and the scale is M - 1.
    """
    order_of, uniq_ptr, uniq_id, uniq_cnt, n_ids, same = _index_source(tokens, tok_off, h0, h1, r0, r1, max_order)
    n_h = h1 - h0
    n_r = r1 - r0
    ref_base = 0 if same else n_h
    pooled = np.zeros(n_ids, np.int64)
    for j in range(n_r):
        k = ref_base + j
        for q in range(uniq_ptr[k], uniq_ptr[k + 1]):
            pooled[uniq_id[q]] += uniq_cnt[q]
    scale = n_r - 1 if exclude_self else n_r
    for i in range(n_h):
        for q in range(uniq_ptr[i], uniq_ptr[i + 1]):
            p = pooled[uniq_id[q]]
            if exclude_self:
                p -= uniq_cnt[q]
            if p > 0:
                out[h0 + i, order_of[uniq_id[q]]] += min(scale * uniq_cnt[q], p)


@njit(cache=True, nogil=True, parallel=True)
def aggregate_matches(tokens, tok_off, hyp_ptr, ref_ptr, max_order, exclude_self):
    """Per hypothesis, clipped matches against its source's pooled reference counts, scaled by M.

    Arguments as :func:`pairwise_matches`, with hypothesis ranges that cover
    texts ``0..n_hyp-1`` in order (``hyp_ptr[0] == 0``); ``exclude_self``
    (references = hypotheses): each hypothesis pooled without itself, scale M - 1.

    Returns
    -------
    int64[n_hyp, max_order]
        Row ``h``, order n: :math:`\\sum_g \\min(M_s \\#g(h), \\sum_j \\#g(r_j))`.
    """
    n_hyp = hyp_ptr[-1]
    out = np.zeros((n_hyp, max_order), np.int64)
    for s in prange(hyp_ptr.shape[0] - 1):
        _source_aggregate(tokens, tok_off, hyp_ptr[s], hyp_ptr[s + 1], ref_ptr[s], ref_ptr[s + 1],
                          max_order, exclude_self, out)
    return out
