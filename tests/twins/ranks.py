"""Plain-Python twins of the rank kernels (``bleustats.meta._rank_kernels``).

No numpy, no numba: weighted observations are expanded into copies and every
pair is compared, so each statistic is its definition.

* ``sort_rows_twin``: the order of a row by (x, y rank), Python's ``sorted``;
  dense ranks by counting distinct values.
* ``rank_stats_twin``: for observations ``(x_i, y_i)`` taken ``w_i`` times each,
  Spearman's ρ (Pearson's r of mid-ranks of the expanded sample) and, over all
  pairs of copies, the numbers of pairs, of pairs tied in x, in y and in both,
  of discordant pairs, and the number of distinct x and y values present.
* ``sum_units_twin``: the unit sums, one item at a time.
* ``cut_unit_sums_twin``: units cut from sequences of drawn items, summed one item at a time.
* ``Sfc64Draws`` and ``shuffle_twin``: the kernel's shuffle, written from its
  definitions: SFC64 in Python integers modulo 2**64, each output two 32-bit
  draws (low half first), Lemire's multiply-shift with rejection for a draw
  below ``s``, Fisher-Yates from the end.
"""

from __future__ import annotations

import math


def dense_ranks_twin(values):
    distinct = sorted(set(values))
    index = {v: i for i, v in enumerate(distinct)}
    return [index[v] for v in values], len(distinct)


def sort_rows_twin(x, y_ranks):
    """(order, x dense ranks in that order, y ranks in that order) of one row."""
    order = sorted(range(len(x)), key=lambda i: (x[i], y_ranks[i]))
    rx, _ = dense_ranks_twin(list(x))
    return order, [rx[i] for i in order], [y_ranks[i] for i in order]


def _mid_ranks(values):
    ordered = sorted(values)
    first, count = {}, {}
    for pos, v in enumerate(ordered):
        first.setdefault(v, pos)
        count[v] = count.get(v, 0) + 1
    return [first[v] + (count[v] + 1) / 2 for v in values]


def rank_stats_twin(x, y, w):
    """[rho, W, pairs, x_tied, y_tied, xy_tied, discordant, x_classes, y_classes] of the expanded sample."""
    xs, ys = [], []
    for xi, yi, wi in zip(x, y, w):
        xs += [xi] * wi
        ys += [yi] * wi
    n = len(xs)
    pairs = x_tied = y_tied = xy_tied = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            pairs += 1
            tx, ty = xs[i] == xs[j], ys[i] == ys[j]
            x_tied += tx
            y_tied += ty
            xy_tied += tx and ty
            discordant += (not tx and not ty) and ((xs[i] < xs[j]) != (ys[i] < ys[j]))
    rho = math.nan
    if n:
        ax, ay = _mid_ranks(xs), _mid_ranks(ys)
        m = (n + 1) / 2
        sxx = sum((a - m) ** 2 for a in ax)
        syy = sum((b - m) ** 2 for b in ay)
        if sxx > 0 and syy > 0:
            rho = sum((a - m) * (b - m) for a, b in zip(ax, ay)) / math.sqrt(sxx * syy)
    return [rho, n, pairs, x_tied, y_tied, xy_tied, discordant, len(set(xs)), len(set(ys))]


def sum_units_twin(values, units, columns, n_columns):
    """out[r][u][c] = sum of values[i][columns[c]] over the items i >= 0 of unit (r, u)."""
    out = []
    for row in units:
        out_row = []
        for unit in row:
            sums = [0.0] * n_columns
            for i in unit:
                if i >= 0:
                    for c in range(len(sums)):
                        sums[c] += values[i][c]
            out_row.append([sums[c] for c in columns])
        out.append(out_row)
    return out


def cut_unit_sums_twin(values, sequences, n_rows, unit_size, columns=None):
    """Units of M consecutive drawn items of each sequence ``(row, base, positions)``, their value sums.

    Returns ``(sums, unit_row, unit_col, n_units)`` as lists: a unit's sums start at 0.0
    and add its items' rows one by one; units are numbered per row in sequence order.
    Output column c of a unit is the sum of input column ``columns[c]`` (default: every column).
    """
    n_cols = len(values[0]) if values else 0
    sums, unit_row, unit_col = [], [], []
    n_units = [0] * n_rows
    for row, base, positions in sequences:
        drawn = [base + i for i in positions if i >= 0]
        for u in range(len(drawn) // unit_size):
            acc = [0.0] * n_cols
            for i in drawn[u * unit_size:(u + 1) * unit_size]:
                for c in range(n_cols):
                    acc[c] += values[i][c]
            sums.append(acc if columns is None else [acc[c] for c in columns])
            unit_row.append(row)
            unit_col.append(n_units[row])
            n_units[row] += 1
    return sums, unit_row, unit_col, n_units


_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1


class Sfc64Draws:
    """32-bit draws, and draws below a bound, from SFC64 seeded with three words (``w = 1``, 12 outputs dropped)."""

    def __init__(self, seed):
        self.a, self.b, self.c = (int(x) for x in seed)
        self.w = 1
        self.spare = None
        self.rejections = 0
        for _ in range(12):
            self.next64()

    def next64(self):
        out = (self.a + self.b + self.w) & _MASK64
        self.w = (self.w + 1) & _MASK64
        self.a = self.b ^ (self.b >> 11)
        self.b = (self.c + (self.c << 3)) & _MASK64
        self.c = ((((self.c << 24) | (self.c >> 40)) & _MASK64) + out) & _MASK64
        return out

    def next32(self):
        if self.spare is not None:
            x, self.spare = self.spare, None
            return x
        x = self.next64()
        self.spare = x >> 32
        return x & _MASK32

    def below(self, s):
        """Uniform on ``0 .. s - 1`` (1 <= s <= 2**32): the high word of ``x * s``; low words < 2**32 mod s redraw."""
        m = self.next32() * s
        floor = (1 << 32) % s
        while m & _MASK32 < floor:
            self.rejections += 1
            m = self.next32() * s
        return m >> 32


def shuffle_twin(seq, draws):
    """Fisher-Yates from the end: position t swaps with a draw below t + 1."""
    seq = list(seq)
    for t in range(len(seq) - 1, 0, -1):
        o = draws.below(t + 1)
        seq[o], seq[t] = seq[t], seq[o]
    return seq
