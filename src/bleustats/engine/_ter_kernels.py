r"""Numba kernels for TER: tercom's greedy shift search over integer token ids.

:func:`_ter_pair` gives the number of edits of one hypothesis against one
reference exactly as sacreBLEU 2.6's ``lib_ter.translation_edit_rate`` counts
them; :func:`ter_batch` (threads) and :func:`ter_batch_serial` give each
segment's fewest edits over its references and its average reference length.
``tests/twins/ter.py`` is the plain-Python twin; ``tests/engine/test_ter_kernels.py``
compares the two and ``tests/metrics/test_ter_oracle.py`` compares with sacreBLEU.

The search, as sacreBLEU does it (tercom's rules with sacreBLEU's details):

* **Edit distance** (insert, delete, substitute; cost 1 each) restricted to a
  beam around the pseudo-diagonal ``j = floor(i * |r| / |h|)`` of the
  ``|h| x |r|`` matrix: row ``i`` computes columns
  ``[max(0, d - w), min(|r| + 1, d + w))`` (the last row up to ``|r|``), with
  ``w = BEAM_WIDTH`` unless ``BEAM_WIDTH < ratio / 2``, then
  ``w = ceil(ratio / 2 + BEAM_WIDTH)``. Cells outside the beam are infinite.
  Ties prefer match/substitution, then deletion of a hypothesis word, then
  insertion of a reference word. The traceback gives, for every reference
  position, the hypothesis position it is aligned to (``-1`` before the first
  word) and which words of either side are errors.
* **Shift candidates**: every pair of start positions ``(sh, sr)`` with
  ``|sh - sr| <= MAX_SHIFT_DIST``, in order of ``sh`` then ``sr``, and every
  length ``L = 1, 2, ..`` while ``hyp[sh:sh+L] == ref[sr:sr+L]`` and
  ``L <= MAX_SHIFT_SIZE``. A candidate is skipped unless some hypothesis word
  and some reference word of the phrase are errors and the reference start is
  not aligned inside the phrase itself. Its targets are ``0`` (for the slot
  before ``sr``) and ``align[sr + k] + 1`` for ``k = -1 .. L-1``, each target
  tried once when it repeats its predecessor.
* **Choice**: the shift with the largest gain in edit distance, then the
  longest, then the earliest in the hypothesis, then the earliest target;
  applied while its gain is positive. After ``MAX_SHIFT_CANDIDATES`` evaluated
  candidates (counted over the whole search, checked after each phrase) the
  search stops and the shift found in that last round is *not* applied, as in
  sacreBLEU.
* **Result**: number of shifts + edit distance of the shifted hypothesis; an
  empty reference gives ``|h|``.

sacreBLEU caches edit-distance rows in a trie of hypothesis prefixes. A row
depends only on the prefix and on the two lengths (which fix the beam), and
every hypothesis of one search has the same length, so that cache changes
speed only. Here each round keeps the band of the current hypothesis twice:
forward (cost from the start, with the moves for the traceback) and backward
(cost to the end). A candidate differs from the current hypothesis only
between ``min(sh, target)`` and the end of the moved span, so only those
rows are recomputed from the forward band, and the distance is the cheapest
way through the last of them, :math:`\min_j F(q, j) + B(q, j)` (every path
through the beam crosses row ``q``). Rows are stored in fixed-width windows
whose unused slots stay infinite, so the inner loop has no bounds checks.

Cost, per hypothesis/reference pair (``n = |h|``, ``m = |r|``, beam ``w``):
a full edit distance is ``O(n * w + m)``; a candidate costs
``O((|sh - target| + L) * w)``; memory is ``O(n * w + m)`` (sacreBLEU
allocates a full ``n x m`` matrix for every candidate). A round scans
``O(n * min(m, 2 * MAX_SHIFT_DIST + 1) * MAX_SHIFT_SIZE)`` phrase pairs; a
search evaluates at most ``MAX_SHIFT_CANDIDATES + MAX_SHIFT_SIZE``
candidates, and every round but the last applies a shift after evaluating at
least one, so there are at most ``MAX_SHIFT_CANDIDATES + MAX_SHIFT_SIZE + 1``
rounds. These are sacreBLEU's own bounds, with less work inside each; real
pairs take 2-3 rounds, and a 2,000-token pair takes milliseconds
(``benchmarks/results/ter.md``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange


#: Longest phrase tercom shifts.
MAX_SHIFT_SIZE = 10
#: Largest distance between a phrase's positions in hypothesis and reference.
MAX_SHIFT_DIST = 50
#: Half-width of the edit-distance beam around the pseudo-diagonal.
BEAM_WIDTH = 25
#: Shift candidates evaluated per hypothesis/reference pair before the search stops.
MAX_SHIFT_CANDIDATES = 1000

#: Interleaved stripes of segments that :func:`ter_batch` spreads over threads.
_STRIPES = 1024

_INF = np.int64(10**16)  # sacreBLEU's "infinite" cost (cells outside the beam)
_OP_MATCH = np.uint8(0)
_OP_SUB = np.uint8(1)
_OP_INS = np.uint8(2)  # a reference word inserted (move right in the row)
_OP_DEL = np.uint8(3)  # a hypothesis word deleted (move down a row)
_OP_NONE = np.uint8(4)  # outside the beam


@njit(cache=True, nogil=True)
def _band_layout(n_h, n_r):
    """The beam of the ``(n_h + 1) x (n_r + 1)`` edit-distance matrix and its storage.

    Row ``i >= 1`` computes columns ``lo[i]:hi[i]``; row 0 is complete. A row
    is stored as a window of ``width`` slots starting at column ``off[i]``
    (one before ``lo[i]``; for row 0 one before ``lo[1]``), so that the reads
    of a row's neighbours (columns ``lo[i] - 1 .. hi[i] - 1`` of row ``i - 1``)
    always fall inside the previous row's window, and slots outside the beam,
    never written, stay infinite: the inner loop needs no bounds checks. The
    rows are the same for every hypothesis of one search (all have length
    ``n_h``). ``n_h >= 1``.
    """
    lo = np.empty(n_h + 1, np.int64)
    hi = np.empty(n_h + 1, np.int64)
    off = np.empty(n_h + 1, np.int64)
    lo[0] = 0
    hi[0] = n_r + 1
    ratio = n_r / n_h
    beam = np.int64(BEAM_WIDTH)
    if BEAM_WIDTH < ratio / 2:  # very unequal lengths: widen so consecutive rows overlap
        beam = np.int64(math.ceil(ratio / 2 + BEAM_WIDTH))
    for i in range(1, n_h + 1):
        diag = np.int64(math.floor(i * ratio))
        a = max(np.int64(0), diag - beam)
        b = min(np.int64(n_r + 1), diag + beam)
        if i == n_h:
            b = n_r + 1
        lo[i] = a
        hi[i] = max(a, b)
        off[i] = a - 1
    off[0] = lo[1] - 1
    width = np.int64(2)
    for i in range(1, n_h + 1):  # lo never decreases, so only the right edge can reach past a window
        width = max(width, hi[i] - off[i - 1] + 1, hi[i] - off[i] + 1)
    return lo, hi, off, width


@njit(cache=True, nogil=True)
def _new_band(n_h, n_r, off, width):
    """Cost storage of a band: every slot infinite, and row 0 (insert the first j reference words)."""
    cost = np.full((n_h + 1) * width, _INF, np.int64)
    for k in range(width):
        col = off[0] + k
        if 0 <= col <= n_r:
            cost[k] = col
    return cost


@njit(cache=True, nogil=True)
def _forward_rows(words, ref, first, lo, hi, off, width, cost, ops):
    """Rows ``first..len(words)`` of the edit distance with their moves (earlier rows are in place).

    Each cell takes the cheapest finite of match/substitution, deletion of a
    hypothesis word, insertion of a reference word, the first of them on ties;
    with none finite it stays infinite.
    """
    n_h = words.shape[0]
    for i in range(first, n_h + 1):
        row = i * width - off[i]  # cost[row + j] is cell (i, j)
        prev = (i - 1) * width - off[i - 1]
        w = words[i - 1]
        left = _INF
        for j in range(lo[i], hi[i]):
            up = cost[prev + j]
            if j == 0:
                c = up + 1
                op = _OP_DEL
            else:
                diag = cost[prev + j - 1]
                c = _INF
                op = _OP_NONE
                if ref[j - 1] == w:
                    if c > diag:
                        c = diag
                        op = _OP_MATCH
                elif c > diag + 1:
                    c = diag + 1
                    op = _OP_SUB
                if c > up + 1:
                    c = up + 1
                    op = _OP_DEL
                if c > left + 1:
                    c = left + 1
                    op = _OP_INS
            cost[row + j] = c
            ops[row + j] = op
            left = c


@njit(cache=True, nogil=True)
def _backward_rows(words, ref, lo, hi, off, width, back):
    """Cost from each cell of rows ``1..n`` to the last cell, moving only through the beam."""
    n_h = words.shape[0]
    n_r = ref.shape[0]
    row = n_h * width - off[n_h]
    for j in range(lo[n_h], hi[n_h]):
        back[row + j] = n_r - j
    for i in range(n_h - 1, 0, -1):
        row = i * width - off[i]
        nxt = (i + 1) * width - off[i + 1]
        a1 = lo[i + 1]
        b1 = hi[i + 1]
        w = words[i]
        right = _INF
        for j in range(hi[i] - 1, lo[i] - 1, -1):
            c = right + 1
            if a1 <= j < b1:
                c = min(c, back[nxt + j] + 1)
            if j < n_r and a1 <= j + 1 < b1:
                c = min(c, back[nxt + j + 1] + (ref[j] != w))
            c = min(c, _INF)
            back[row + j] = c
            right = c


@njit(cache=True, nogil=True)
def _shifted_cost(words, ref, first, last, lo, hi, off, width, fwd, scratch, back):
    r"""Edit distance of ``words``, which differs from the hypothesis in ``fwd`` / ``back`` only in ``first:last``.

    Rows ``first+1..last`` are recomputed into ``scratch`` from row ``first``
    of ``fwd``; the distance is the cheapest way through row ``last``:
    :math:`\min_j F_{last}(j) + B_{last}(j)`. Costs only, no moves.
    """
    for i in range(first + 1, last + 1):
        row = i * width - off[i]
        prev = (i - 1) * width - off[i - 1]
        src = fwd if i - 1 == first else scratch
        w = words[i - 1]
        left = _INF
        a = lo[i]
        if a == 0:
            left = src[prev] + 1
            scratch[row] = left
            a = 1
        for j in range(a, hi[i]):
            c = min(src[prev + j - 1] + (ref[j - 1] != w), src[prev + j] + 1, left + 1, _INF)
            scratch[row + j] = c
            left = c
    best = 2 * _INF
    row = last * width - off[last]
    for j in range(lo[last], hi[last]):
        best = min(best, scratch[row + j] + back[row + j])
    return best


@njit(cache=True, nogil=True)
def _trace_alignment(n_h, n_r, lo, hi, off, width, ops, align, hyp_err, ref_err):
    """Walk the moves back from the last cell: alignment and error flags; False if the walk leaves the beam."""
    i = n_h
    j = n_r
    while i > 0 or j > 0:
        if i == 0:
            op = _OP_INS
        elif lo[i] <= j < hi[i]:
            op = ops[i * width - off[i] + j]
        else:
            op = _OP_NONE
        if op == _OP_MATCH or op == _OP_SUB:
            i -= 1
            j -= 1
            align[j] = i
            hyp_err[i] = op == _OP_SUB
            ref_err[j] = op == _OP_SUB
        elif op == _OP_INS:
            j -= 1
            align[j] = i - 1
            ref_err[j] = 1
        elif op == _OP_DEL:
            i -= 1
            hyp_err[i] = 1
        else:
            return False
    return True


@njit(cache=True, nogil=True)
def _apply_shift(words, first, length, target, out):
    """``out`` = ``words`` with ``words[first:first+length]`` moved to ``target`` (tercom's rule).

    A target before the phrase inserts it there; one after the phrase's end
    inserts it before ``words[target]``; one inside ``[first, first+length]``
    moves it ``target - first`` words to the right (clipped at the end).
    Returns the end of the changed span (it starts at ``min(first, target)``).
    """
    n = words.shape[0]
    if target < first:
        a, b, c, d = target, first, first + length, first + length
        end = first + length
    elif target > first + length:
        a, b, c, d = first, first + length, target, target
        end = target
    else:
        mid = min(length + target, n)
        a, b, c, d = first, first + length, mid, mid
        end = mid
    # out = words[:a] + (phrase and the words it jumps over, in their new order) + words[d:]
    k = 0
    for q in range(a):
        out[k] = words[q]
        k += 1
    if target < first:
        for q in range(first, first + length):
            out[k] = words[q]
            k += 1
        for q in range(target, first):
            out[k] = words[q]
            k += 1
    else:
        for q in range(b, c):
            out[k] = words[q]
            k += 1
        for q in range(first, first + length):
            out[k] = words[q]
            k += 1
    for q in range(d, n):
        out[k] = words[q]
        k += 1
    return end


@njit(cache=True, nogil=True)
def _ter_pair(hyp, ref):
    """Edits (shifts + edit distance) of ``hyp`` against ``ref``, both 1-D integer token ids.

    Returns ``len(hyp)`` for an empty reference, ``len(ref)`` for an empty
    hypothesis, and -1 if the traceback left the beam (sacreBLEU raises
    there; it cannot happen: every row overlaps the next).
    """
    n_h = hyp.shape[0]
    n_r = ref.shape[0]
    if n_r == 0:
        return np.int64(n_h)
    if n_h == 0:
        return np.int64(n_r)
    lo, hi, off, width = _band_layout(n_h, n_r)
    fwd = _new_band(n_h, n_r, off, width)
    scratch = fwd.copy()
    back = fwd.copy()
    ops = np.empty((n_h + 1) * width, np.uint8)
    words = hyp.copy()
    shifted = hyp.copy()
    held = hyp.copy()  # the hypothesis whose rows ``fwd`` holds
    fresh = True
    align = np.empty(n_r, np.int64)
    hyp_err = np.zeros(n_h, np.int64)
    ref_err = np.zeros(n_r, np.int64)
    hyp_cum = np.zeros(n_h + 1, np.int64)
    ref_cum = np.zeros(n_r + 1, np.int64)
    n_shifts = 0
    checked = 0
    while True:
        same = 0
        if not fresh:
            while same < n_h and words[same] == held[same]:
                same += 1
        fresh = False
        _forward_rows(words, ref, same + 1, lo, hi, off, width, fwd, ops)
        held[:] = words
        before = fwd[n_h * width - off[n_h] + n_r]
        if not _trace_alignment(n_h, n_r, lo, hi, off, width, ops, align, hyp_err, ref_err):
            return np.int64(-1)
        _backward_rows(words, ref, lo, hi, off, width, back)
        for i in range(n_h):
            hyp_cum[i + 1] = hyp_cum[i] + hyp_err[i]
        for j in range(n_r):
            ref_cum[j + 1] = ref_cum[j] + ref_err[j]
        found = False
        best_gain = np.int64(0)
        best_len = np.int64(0)
        best_first = np.int64(0)
        best_target = np.int64(0)
        full = False
        for sh in range(n_h):
            for sr in range(max(0, sh - MAX_SHIFT_DIST), min(n_r, sh + MAX_SHIFT_DIST + 1)):
                length = 0
                while length < MAX_SHIFT_SIZE and words[sh + length] == ref[sr + length]:
                    length += 1
                    if (hyp_cum[sh + length] != hyp_cum[sh] and ref_cum[sr + length] != ref_cum[sr]
                            and not (sh <= align[sr] < sh + length)):
                        last_target = -1
                        for k in range(-1, length):
                            target = 0 if sr + k < 0 else align[sr + k] + 1
                            if target == last_target:
                                continue
                            last_target = target
                            end = _apply_shift(words, sh, length, target, shifted)
                            gain = before - _shifted_cost(shifted, ref, min(sh, target), end, lo, hi, off,
                                                          width, fwd, scratch, back)
                            checked += 1
                            if (not found or gain > best_gain or (gain == best_gain and (
                                    length > best_len or (length == best_len and (
                                        sh < best_first or (sh == best_first and target < best_target)))))):
                                found = True
                                best_gain = gain
                                best_len = length
                                best_first = sh
                                best_target = target
                        if checked >= MAX_SHIFT_CANDIDATES:
                            full = True
                            break
                    if sh + length == n_h or sr + length == n_r:
                        break
                if full:
                    break
            if full:
                break
        if full or not found or best_gain <= 0:
            return n_shifts + before
        _apply_shift(words, best_first, best_len, best_target, shifted)
        words[:] = shifted
        n_shifts += 1


@njit(cache=True, nogil=True)
def _ter_segment(s, hyp_ids, hyp_off, ref_ids, ref_off, seg_refs, out):
    """Row ``s`` of :func:`ter_batch`."""
    hyp = hyp_ids[hyp_off[s]:hyp_off[s + 1]]
    r0 = seg_refs[s]
    r1 = seg_refs[s + 1]
    if r1 == r0:
        out[s, 0] = np.nan
        out[s, 1] = np.nan
        return
    best = np.int64(-1)
    total_len = np.int64(0)
    for k in range(r0, r1):
        edits = _ter_pair(hyp, ref_ids[ref_off[k]:ref_off[k + 1]])
        if edits < 0:  # the traceback left the beam: mark the row
            best = np.int64(-1)
            break
        if best < 0 or edits < best:
            best = edits
        total_len += ref_off[k + 1] - ref_off[k]
    out[s, 0] = best
    out[s, 1] = total_len / (r1 - r0)


@njit(cache=True, nogil=True, parallel=True)
def ter_batch(hyp_ids, hyp_off, ref_ids, ref_off, seg_refs):
    """TER statistics of many segments, segments spread over numba's threads.

    Segment ``s`` has hypothesis ``hyp_ids[hyp_off[s]:hyp_off[s+1]]`` and
    references ``k = seg_refs[s] .. seg_refs[s+1]-1``, reference ``k`` being
    ``ref_ids[ref_off[k]:ref_off[k+1]]``. Returns a float64 ``(n, 2)`` array:
    the fewest edits over the segment's references and the mean reference
    length; NaN for a segment without references, -1 edits if a traceback
    left the beam. Segment costs vary a lot (the search grows with length and
    with how scrambled a hypothesis is) and neighbouring segments are alike,
    while numba hands each thread one contiguous range of iterations; so
    iteration ``k`` takes the stripe of segments ``k, k + K, k + 2K, ..``
    (``K`` stripes), and every thread gets an even sample of the corpus. Each
    iteration writes only its own rows.
    """
    n = hyp_off.shape[0] - 1
    out = np.empty((n, 2), np.float64)
    n_stripes = min(n, _STRIPES)
    for k in prange(n_stripes):
        for s in range(k, n, n_stripes):
            _ter_segment(s, hyp_ids, hyp_off, ref_ids, ref_off, seg_refs, out)
    return out


@njit(cache=True, nogil=True)
def ter_batch_serial(hyp_ids, hyp_off, ref_ids, ref_off, seg_refs):
    """:func:`ter_batch` on the calling thread (small inputs: starting threads costs more)."""
    n = hyp_off.shape[0] - 1
    out = np.empty((n, 2), np.float64)
    for s in range(n):
        _ter_segment(s, hyp_ids, hyp_off, ref_ids, ref_off, seg_refs, out)
    return out
