r"""Numba kernels: exact sums of float64 groups (Shewchuk's partials, rounded as ``math.fsum``).

Private module; only :mod:`bleustats.engine._sums` calls it. A float sum
computed in some order is rounded at every step, so two orders (one table, or
the same rows in partitions summed separately) may differ in the last bits.
These kernels keep a sum *exact*: a group's values are accumulated into
*partials*, non-overlapping float64 numbers of increasing magnitude whose
exact (unrounded) total equals the exact total of the values (Shewchuk,
1997). Partials are themselves values, so the partials of two parts summed
again give the partials of their union: partial aggregation in any order and
grouping ends with the same partials' total. :func:`round_partials` rounds
that total once, correctly (half to even), as CPython's ``math.fsum`` does:

.. math::

    \mathrm{fl}\Big(\sum_i x_i\Big) \quad\text{(one rounding of the exact sum)}

Layout: ``values`` float64 rows grouped consecutively, ``starts`` int64 of
length ``g + 1`` (group ``k`` is ``values[starts[k]:starts[k + 1]]``). The
partials of all groups come back flat (CSR: ``flat[ptr[k]:ptr[k + 1]]``).
Non-finite values (NaN, ±inf) are not partials: they are added plainly into
``special[k]``, which then is the group's sum (NaN or ±inf, as a float sum
would give). ``tests/twins/sums.py`` is the plain-Python twin.

References
----------
.. [1] Shewchuk, J. R. (1997). Adaptive precision floating-point arithmetic
   and fast robust geometric predicates. Discrete & Computational Geometry 18.
"""

from __future__ import annotations

import numpy as np
from numba import njit


#: Most partials a group can need: non-overlapping doubles span at most 2098 bits, 53 each (plus slack).
MAX_PARTIALS = 64


@njit(cache=True, nogil=True)
def _grow_partials(partials, n, x):
    """Add finite ``x`` to the non-overlapping ``partials[:n]``; returns the new count."""
    i = 0
    for j in range(n):
        y = partials[j]
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            partials[i] = lo
            i += 1
        x = hi
    if x != 0.0:  # as fsum: a zero is no partial
        partials[i] = x
        i += 1
    return i


@njit(cache=True, nogil=True)
def sum_partials(values, starts):
    """Partials of every group: ``(flat, ptr, special)`` (see the module docstring)."""
    g = starts.shape[0] - 1
    cap = 0
    for k in range(g):
        cap += min(starts[k + 1] - starts[k], MAX_PARTIALS)
    flat = np.empty(cap)
    ptr = np.zeros(g + 1, np.int64)
    special = np.zeros(g)
    buf = np.empty(MAX_PARTIALS + 1)
    pos = 0
    for k in range(g):
        n = 0
        for r in range(starts[k], starts[k + 1]):
            x = values[r]
            if np.isfinite(x):
                n = _grow_partials(buf, n, x)
                if n and not np.isfinite(buf[n - 1]):  # intermediate overflow: the sum is ±inf
                    special[k] += buf[n - 1]
                    n = 0
            else:
                special[k] += x
        for j in range(n):
            flat[pos + j] = buf[j]
        pos += n
        ptr[k + 1] = pos
    return flat[:pos].copy(), ptr, special


@njit(cache=True, nogil=True)
def round_partials(flat, ptr, special):
    """The correctly rounded total of each group's partials (``math.fsum``'s last step)."""
    g = ptr.shape[0] - 1
    out = np.empty(g)
    for k in range(g):
        if special[k] != 0.0 or np.isnan(special[k]):
            out[k] = special[k]
            continue
        n = ptr[k + 1] - ptr[k]
        base = ptr[k]
        hi = 0.0
        if n > 0:
            n -= 1
            hi = flat[base + n]
            lo = 0.0
            while n > 0:
                x = hi
                n -= 1
                y = flat[base + n]
                hi = x + y
                yr = hi - x
                lo = y - yr
                if lo != 0.0:
                    break
            # half-even correction: the rest of the partials decides a tie
            if n > 0 and ((lo < 0.0 and flat[base + n - 1] < 0.0) or (lo > 0.0 and flat[base + n - 1] > 0.0)):
                y = lo * 2.0
                x = hi + y
                yr = x - hi
                if y == yr:
                    hi = x
        out[k] = hi
    return out
