r"""Numba kernels: rank statistics of many rows with integer weights, and unit sums.

Private module; :mod:`bleustats.meta.rank_stats` validates inputs and documents the
results, :mod:`bleustats.meta.study` and :mod:`bleustats.meta.study_compare` call it
through there. ``tests/twins/ranks.py`` is the plain-Python twin of every kernel.

A *weight* is a multiplicity: observation :math:`i` with weight :math:`w_i`
counts as :math:`w_i` copies of itself (0 leaves it out). A bootstrap replicate
of :math:`n` observations is then the weight vector of its draw counts, so a
replicate needs no copy and no sort of its own: the rows are sorted once by
(x, y) and every replicate is one pass over the sorted row.

With observations sorted by (x, y), dense ranks :math:`r^x, r^y`, group
weights :math:`W^x_g`, :math:`W^y_k` and :math:`W = \sum_i w_i`:

* average (mid) ranks :math:`a^x_g = \sum_{g' < g} W^x_{g'} + (W^x_g + 1)/2`,
  the same for y; Spearman's ρ is the weighted Pearson r of the average
  ranks around their common mean :math:`(W + 1)/2`;
* pairs :math:`n_0 = W(W-1)/2`; tied in x, in y, in both:
  :math:`\sum_g W_g (W_g - 1)/2` over the x groups, y groups and (x, y) groups;
* discordant pairs :math:`D = \sum_{x_i < x_j,\ y_i > y_j} w_i w_j`, counted
  group by group in x order with a Fenwick tree over the y ranks
  (:math:`O(n \log k_y)` per row).

The output row is ``[rho, W, n0, x_tied, y_tied, xy_tied, discordant,
x_classes, y_classes]`` (classes: groups of positive weight), all float64
(counts are exact below :math:`2^{53}`). Many replicates of one sorted row (a
bootstrap at M = 1) go through :func:`weighted_rank_stats_lanes`, LANES
replicates per pass, with the same bits.

:func:`cut_unit_sums` shuffles with its own stream: SFC64 (Doty-Humphrey's
Small Fast Chaotic generator, the algorithm of :class:`numpy.random.SFC64`),
state ``(a, b, c, w)`` started at ``(seed_0, seed_1, seed_2, 1)`` with its
first 12 outputs discarded, each 64-bit output used as two 32-bit draws (low
half first); a draw in ``0..t`` is Lemire's multiply-shift, unbiased by
rejection (Lemire, 2019, "Fast random integer generation in an interval").
Calling a Generator's bounded draw through NumPy's C interface costs about 14 ns
per item; this costs about 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


#: Columns of a row of :func:`weighted_rank_stats`.
STAT_COLUMNS = ("rho", "weight", "pairs", "x_tied", "y_tied", "xy_tied", "discordant", "x_classes", "y_classes")


@njit(cache=True, nogil=True)
def _sort_row(xr, ox, yr, order, rx_sorted, ry_sorted):
    """One row of :func:`sort_rows` into ``order``, ``rx_sorted``, ``ry_sorted``."""
    n = xr.shape[0]
    j = 0
    k = 0
    while j < n:
        e = j + 1
        while e < n and xr[ox[e]] == xr[ox[j]]:
            e += 1
        if e - j > 1:  # ties in x: order the group by y
            group = ox[j:e].copy()
            sub = np.argsort(yr[group], kind="mergesort")
            for i in range(e - j):
                order[j + i] = group[sub[i]]
        else:
            order[j] = ox[j]
        for i in range(j, e):
            rx_sorted[i] = k
            ry_sorted[i] = yr[order[i]]
        k += 1
        j = e


@njit(cache=True, nogil=True, parallel=True)
def sort_rows(x, x_order, y_ranks):
    """Order of each row by (x, y rank), and the dense x and y ranks in that order (int32).

    ``x_order`` is an argsort of each row of ``x`` (any order among equal x:
    ties are ordered by y here); ``y_ranks`` has as many rows as ``x``, or one
    row shared by all.
    """
    rows, n = x.shape
    shared = y_ranks.shape[0] == 1
    order = np.empty((rows, n), np.int32)
    rx_sorted = np.empty((rows, n), np.int32)
    ry_sorted = np.empty((rows, n), np.int32)
    for r in prange(rows):
        _sort_row(x[r], x_order[r], y_ranks[0] if shared else y_ranks[r], order[r], rx_sorted[r], ry_sorted[r])
    return order, rx_sorted, ry_sorted


@njit(cache=True, nogil=True)
def sort_rows_serial(x, x_order, y_ranks):
    """:func:`sort_rows` on one thread (small inputs: no parallel launch)."""
    rows, n = x.shape
    shared = y_ranks.shape[0] == 1
    order = np.empty((rows, n), np.int32)
    rx_sorted = np.empty((rows, n), np.int32)
    ry_sorted = np.empty((rows, n), np.int32)
    for r in range(rows):
        _sort_row(x[r], x_order[r], y_ranks[0] if shared else y_ranks[r], order[r], rx_sorted[r], ry_sorted[r])
    return order, rx_sorted, ry_sorted


#: One replicate per pass (a compile-time constant of the kernels that pass it).
ONE_LANE = 1
#: Replicates of one sorted row that :func:`weighted_rank_stats_lanes` carries through one pass together.
LANES = 8


@njit(cache=True, nogil=True, parallel=True)
def weighted_rank_stats(order, rx_sorted, ry_sorted, n_y, weights, rows):
    """Statistics of replicate b: sorted row ``rows[b]`` with weights ``weights[b]`` (or ``weights[0]``).

    ``weights`` are per observation in the row's original order, int64 >= 0.
    """
    n_out = rows.shape[0]
    shared = weights.shape[0] == 1
    out = np.empty((n_out, 9), np.float64)
    for b in prange(n_out):
        a = rows[b]
        wb = 0 if shared else b
        _stats_of_lanes(order[a], rx_sorted[a], ry_sorted[a], n_y[a], weights[wb:wb + 1], out[b:b + 1], ONE_LANE)
    return out


@njit(cache=True, nogil=True)
def weighted_rank_stats_serial(order, rx_sorted, ry_sorted, n_y, weights, rows):
    """:func:`weighted_rank_stats` on one thread (small inputs: no parallel launch)."""
    n_out = rows.shape[0]
    shared = weights.shape[0] == 1
    out = np.empty((n_out, 9), np.float64)
    for b in range(n_out):
        a = rows[b]
        wb = 0 if shared else b
        _stats_of_lanes(order[a], rx_sorted[a], ry_sorted[a], n_y[a], weights[wb:wb + 1], out[b:b + 1], ONE_LANE)
    return out


@njit(cache=True, nogil=True, inline="always")
def _stats_of_lanes(order, rx, ry, n_y, weights, out, lanes):
    """The statistics of one sorted row (see the module docstring) under each weight row of ``weights`` (L, n).

    Writes ``out`` (L, 9). One pass in (x, y) order carries the L = ``lanes``
    replicates together ("lanes"): they share the sorted row's branches, tie
    groups and Fenwick paths, so a pass of LANES lanes costs about half of LANES
    passes of one. Each lane's operations are the same, in the same order,
    whatever L is (a zero weight adds exact zeros), so a replicate has the same
    bits alone or among others. Inlined, and its callers pass L as a constant
    (ONE_LANE or LANES): each caller's copy is compiled for its number of lanes
    (the lane loops unrolled; a lone lane's pass costs about half as much).
    """
    n = order.shape[0]
    ws = np.empty((n, lanes), np.int64)  # the lanes' weights in sorted order, lane-minor
    total = np.zeros(lanes, np.int64)
    for lane in range(lanes):
        wr = weights[lane]
        t = 0
        for j in range(n):
            wj = np.int64(wr[order[j]])
            ws[j, lane] = wj
            t += wj
        total[lane] = t
    mean = np.empty(lanes, np.float64)
    for lane in range(lanes):
        mean[lane] = (total[lane] + 1) / 2.0
    wy = np.zeros((n_y, lanes), np.int64)
    sx_y = np.zeros((n_y, lanes), np.float64)
    tree = np.zeros((n_y + 1, lanes), np.int64)
    inserted = np.zeros(lanes, np.int64)
    discordant = np.zeros(lanes, np.int64)
    x_tied = np.zeros(lanes, np.int64)
    xy_tied = np.zeros(lanes, np.int64)
    x_classes = np.zeros(lanes, np.int64)
    sxx = np.zeros(lanes, np.float64)
    below = np.zeros(lanes, np.int64)
    run = np.zeros(lanes, np.int64)
    group = np.zeros(lanes, np.int64)
    group_in = np.zeros(lanes, np.int64)
    ax = np.zeros(lanes, np.float64)
    j = 0
    while j < n:
        if j + 1 == n or rx[j + 1] != rx[j]:  # an x value of its own
            k = ry[j]
            for lane in range(lanes):
                wj = ws[j, lane]
                a = inserted[lane] + (wj + 1) / 2.0 - mean[lane]
                pairs_in = (wj * (wj - 1)) >> 1
                x_tied[lane] += pairs_in
                xy_tied[lane] += pairs_in
                x_classes[lane] += wj > 0
                sxx[lane] += wj * a * a
                wy[k, lane] += wj
                sx_y[k, lane] += wj * a
                below[lane] = 0
            p = k + 1
            while p > 0:
                for lane in range(lanes):
                    below[lane] += tree[p, lane]
                p -= p & (-p)
            p = k + 1
            while p <= n_y:
                for lane in range(lanes):
                    tree[p, lane] += ws[j, lane]
                p += p & (-p)
            for lane in range(lanes):
                wj = ws[j, lane]
                discordant[lane] += wj * (inserted[lane] - below[lane])
                inserted[lane] += wj
            j += 1
            continue
        e = j  # a group of tied x: runs of one y rank inside it, in increasing y
        for lane in range(lanes):
            group[lane] = 0
            group_in[lane] = 0
        while e < n and rx[e] == rx[j]:
            for lane in range(lanes):
                group[lane] += ws[e, lane]
            e += 1
        for lane in range(lanes):
            gw = group[lane]
            a = inserted[lane] + (gw + 1) / 2.0 - mean[lane]
            ax[lane] = a
            x_tied[lane] += (gw * (gw - 1)) >> 1
            x_classes[lane] += gw > 0
            sxx[lane] += gw * a * a
        i = j
        while i < e:
            k = ry[i]
            f = i
            for lane in range(lanes):
                run[lane] = 0
            while f < e and ry[f] == k:
                for lane in range(lanes):
                    run[lane] += ws[f, lane]
                f += 1
            for lane in range(lanes):
                rw = run[lane]
                xy_tied[lane] += (rw * (rw - 1)) >> 1
                wy[k, lane] += rw
                sx_y[k, lane] += rw * ax[lane]
                below[lane] = -group_in[lane]
            p = k + 1
            while p > 0:
                for lane in range(lanes):
                    below[lane] += tree[p, lane]
                p -= p & (-p)
            p = k + 1
            while p <= n_y:
                for lane in range(lanes):
                    tree[p, lane] += run[lane]
                p += p & (-p)
            for lane in range(lanes):
                discordant[lane] += run[lane] * (inserted[lane] - below[lane])
                group_in[lane] += run[lane]
            i = f
        for lane in range(lanes):
            inserted[lane] += group[lane]
        j = e
    for lane in range(lanes):
        m = mean[lane]
        cum = 0
        y_tied = 0
        y_classes = 0
        syy = 0.0
        sxy = 0.0
        for k in range(n_y):
            c = wy[k, lane]
            if c > 0:
                ay = cum + (c + 1) / 2.0 - m
                cum += c
                y_tied += c * (c - 1) // 2
                y_classes += 1
                syy += c * ay * ay
                sxy += sx_y[k, lane] * ay
        if sxx[lane] > 0.0 and syy > 0.0:
            rho = sxy / np.sqrt(sxx[lane] * syy)
            rho = min(1.0, max(-1.0, rho))
        else:
            rho = np.nan
        o = out[lane]
        t = total[lane]
        o[0] = rho
        o[1] = t
        o[2] = t * (t - 1) // 2
        o[3] = x_tied[lane]
        o[4] = y_tied
        o[5] = xy_tied[lane]
        o[6] = discordant[lane]
        o[7] = x_classes[lane]
        o[8] = y_classes


@njit(cache=True, nogil=True)
def weighted_rank_stats_lanes(order, rx_sorted, ry_sorted, n_y, weights, row):
    """:func:`weighted_rank_stats` of every replicate ``weights[b]`` on the one sorted row ``row``, LANES at a time.

    One thread: on this project's shared 2-CPU machine a parallel loop over the blocks of lanes
    measured slower, in CPU and in wall time, than this serial one.
    """
    n_out = weights.shape[0]
    out = np.empty((n_out, 9), np.float64)
    for b0 in range(0, n_out, LANES):  # blocks of LANES replicates, the last one shorter
        b1 = min(b0 + LANES, n_out)
        if b1 - b0 == LANES:
            _stats_of_lanes(order[row], rx_sorted[row], ry_sorted[row], n_y[row], weights[b0:b1], out[b0:b1], LANES)
        else:  # the last block, filled up with lanes of weight 0 (each lane is computed on its own)
            w_full = np.zeros((LANES, weights.shape[1]), weights.dtype)
            w_full[:b1 - b0] = weights[b0:b1]
            o_full = np.empty((LANES, 9), np.float64)
            _stats_of_lanes(order[row], rx_sorted[row], ry_sorted[row], n_y[row], w_full, o_full, LANES)
            out[b0:b1] = o_full[:b1 - b0]
    return out


@njit(cache=True, nogil=True)
def sum_units(values, units, columns):
    """Column sums of ``values`` (n, k) over each unit of ``units`` (rows, U, M); index -1 = no item.

    Output column c is the sum of input column ``columns[c]`` (several output
    columns may read one input column); the output is laid out column by column,
    shape (n_out, rows, U), so that scoring formulas read each column contiguously.
    Serial and ``nogil``: callers run pairs on their own threads.
    """
    rows, n_units, size = units.shape
    k = values.shape[1]
    n_out = columns.shape[0]
    out = np.empty((n_out, rows, n_units), np.float64)
    acc = np.empty(k, np.float64)
    for r in range(rows):
        for u in range(n_units):
            acc[:] = 0.0
            for m in range(size):
                i = units[r, u, m]
                if i >= 0:
                    for c in range(k):
                        acc[c] += values[i, c]
            for c in range(n_out):
                out[c, r, u] = acc[columns[c]]
    return out


_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True, nogil=True, inline="always")
def _sfc64_step(a, b, c, w):
    """One SFC64 step: ``(output, a, b, c, w)`` (all uint64, arithmetic modulo 2**64)."""
    out = a + b + w
    w = w + np.uint64(1)
    a = b ^ (b >> np.uint64(11))
    b = c + (c << np.uint64(3))
    c = ((c << np.uint64(24)) | (c >> np.uint64(40))) + out
    return out, a, b, c, w


@njit(cache=True, nogil=True, inline="always")
def _draw32(a, b, c, w, spare, spare_left):
    """The stream's next 32-bit draw: the high half kept from the last output, else a new output's low half.

    Returns ``(x, a, b, c, w, spare, spare_left)``.
    """
    if spare_left:
        return spare, a, b, c, w, spare, False
    x, a, b, c, w = _sfc64_step(a, b, c, w)
    return x & _LOW32, a, b, c, w, x >> np.uint64(32), True


@njit(cache=True, nogil=True)
def cut_unit_sums(values, items, starts, row_of, base, n_rows, unit_size, columns, seed, shuffle, buf):
    """Cut item sequences into units of ``unit_size`` and sum each unit's ``values`` rows.

    Sequence j is ``items[starts[j]:starts[j + 1]]``: positions, -1 where nothing
    is drawn; it belongs to output row ``row_of[j]`` and its position i means
    ``values[base[j] + i]``. With ``shuffle``, every sequence (in order, each
    whole) is first put in a random order: Fisher-Yates from the end, with the
    draws of the SFC64 stream seeded by the three words of ``seed`` (see the
    module's docstring). The sums are written into the front of
    ``buf`` (1-D) when it is long enough, else into a new array. Its drawn items are cut in order into
    ``floor(drawn / unit_size)`` units (the remainder dropped), numbered after the
    units its row already has. Output column c is the sum of input column
    ``columns[c]`` (as in :func:`sum_units`). Returns ``(sums, unit_row, unit_col, n_units)``:
    ``sums`` of shape (n_out, 1, n_all_units) (laid out as :func:`sum_units`' output,
    each unit summed item by item from 0.0, so the same bits), the row and the
    column of every unit in sequence order, and the units per row; ``bad`` is the first
    item (index into ``items``) outside -1 or the rows of ``values``, -1 when there is
    none (then nothing is summed).
    """
    n_seq = row_of.shape[0]
    n, k = values.shape
    n_out = columns.shape[0]
    n_units = np.zeros(n_rows, np.int64)
    per_seq = np.zeros(n_seq, np.int64)
    total = 0
    for j in range(n_seq):
        drawn = 0
        for t in range(starts[j], starts[j + 1]):
            i = items[t]
            if i >= 0:
                if base[j] + i >= n:
                    return np.zeros((n_out, 1, 0), np.float64), np.zeros(0, np.int64), np.zeros(0, np.int64), n_units, t
                drawn += 1
            elif i != -1:
                return np.zeros((n_out, 1, 0), np.float64), np.zeros(0, np.int64), np.zeros(0, np.int64), n_units, t
        per_seq[j] = drawn // unit_size
        total += per_seq[j]
    if buf.shape[0] >= n_out * total:
        sums = buf[:n_out * total].reshape((n_out, 1, total))
    else:
        sums = np.empty((n_out, 1, total), np.float64)
    unit_row = np.empty(total, np.int64)
    unit_col = np.empty(total, np.int64)
    acc = np.zeros(k, np.float64)  # one unit's sums, written out once (the output is column-major)
    longest = 0
    for j in range(n_seq):
        longest = max(longest, starts[j + 1] - starts[j])
    seq = np.empty(longest, np.int64)
    sa, sb, sc, sw = seed[0], seed[1], seed[2], np.uint64(1)
    if shuffle:
        for _ in range(12):
            x, sa, sb, sc, sw = _sfc64_step(sa, sb, sc, sw)
    spare = np.uint64(0)
    spare_left = False
    at = 0
    for j in range(n_seq):
        r = row_of[j]
        nu = per_seq[j]
        n_j = starts[j + 1] - starts[j]
        for t in range(n_j):
            seq[t] = items[starts[j] + t]
        if shuffle:  # Fisher-Yates from the end (every sequence draws, also one too short to cut)
            for t in range(n_j - 1, 0, -1):
                s_ = np.uint64(t + 1)
                x, sa, sb, sc, sw, spare, spare_left = _draw32(sa, sb, sc, sw, spare, spare_left)
                m = x * s_
                if (m & _LOW32) < s_:  # Lemire: reject the low products that would bias the draw
                    floor = (_TWO32 - s_) % s_
                    while (m & _LOW32) < floor:
                        x, sa, sb, sc, sw, spare, spare_left = _draw32(sa, sb, sc, sw, spare, spare_left)
                        m = x * s_
                o = np.int64(m >> np.uint64(32))
                if o != t:
                    v = seq[o]
                    seq[o] = seq[t]
                    seq[t] = v
        if nu == 0:
            continue
        slot = 0
        for t in range(n_j):
            i = seq[t]
            if i < 0:
                continue
            v = base[j] + i
            for c in range(k):
                acc[c] += values[v, c]
            slot += 1
            if slot == unit_size:  # the unit is complete
                for c in range(n_out):
                    sums[c, 0, at] = acc[columns[c]]
                acc[:] = 0.0
                unit_row[at] = r
                unit_col[at] = n_units[r]
                n_units[r] += 1
                at += 1
                slot = 0
                nu -= 1
                if nu == 0:
                    break
    return sums, unit_row, unit_col, n_units, -1
