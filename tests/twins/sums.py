"""Plain-Python twin of the exact-sum kernels (bleustats.engine._sum_kernels).

Written to be obviously right: a group's partials are grown one value at a
time by the textbook two-sum step (the loop of Shewchuk's "grow expansion",
the one CPython's ``math.fsum`` runs), and a group's total is ``math.fsum`` of
its partials, which rounds the exact sum once. Non-finite values are summed
plainly on the side, as the kernel does; finite values whose running sum
overflows are out of scope (the tests keep magnitudes below 1e300).
"""

from __future__ import annotations

import math


def grow(partials: list[float], x: float) -> list[float]:
    """The non-overlapping partials of ``partials`` plus ``x`` (zeros dropped)."""
    out = []
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo != 0.0:
            out.append(lo)
        x = hi
    if x != 0.0:
        out.append(x)
    return out


def sum_partials(values: list[float], starts: list[int]) -> tuple[list[list[float]], list[float]]:
    """Per group: its partials and the plain sum of its non-finite values."""
    partials, special = [], []
    for k in range(len(starts) - 1):
        p: list[float] = []
        s = 0.0
        for x in values[starts[k]:starts[k + 1]]:
            if math.isfinite(x):
                p = grow(p, x)
            else:
                s += x
        partials.append(p)
        special.append(s)
    return partials, special


def group_totals(values: list[float], starts: list[int]) -> list[float]:
    """Each group's exact sum rounded once (``math.fsum``), or its non-finite sum."""
    partials, special = sum_partials(values, starts)
    return [s if (s != 0.0 or math.isnan(s)) else math.fsum(p) for p, s in zip(partials, special)]
