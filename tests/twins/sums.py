"""Plain-Python twin of the exact-sum kernels (bleustats.engine._sum_kernels).

Independent of the kernels' algorithm: the exact sum of a group's finite
values is computed with :class:`fractions.Fraction` (every float64 is a
dyadic rational, so the sum is exact), and the group's total is that
rational rounded once to the nearest float64, ties to even
(``float(Fraction)`` is correctly rounded). The kernels' partials are not
reproduced but checked for the properties their rounding relies on: their
exact sum is the group's exact sum, none is zero, and they are
non-overlapping with increasing magnitude (every set bit of one partial lies
below every set bit of the next, Shewchuk's condition). Non-finite values are
not partials: a group holding any has the IEEE sum of its non-finite values
as its total (NaN if it holds a NaN or both infinities, else the infinity).
Finite values whose rounded sum overflows are out of scope (the tests keep
magnitudes below 1e300).
"""

from __future__ import annotations

import math
from fractions import Fraction


def exact_sum(values: list[float]) -> Fraction:
    """The exact sum of the finite ``values`` (non-finite ones left out)."""
    return sum((Fraction(x) for x in values if math.isfinite(x)), Fraction(0))


def special_sum(values: list[float]) -> float:
    """The IEEE sum of the non-finite ``values``: NaN, ±inf, or 0.0 when there are none."""
    special = [x for x in values if not math.isfinite(x)]
    if any(math.isnan(x) for x in special) or (math.inf in special and -math.inf in special):
        return math.nan
    return special[0] if special else 0.0


def _set_bits(x: float) -> tuple[int, int]:
    """Exponents of the lowest and highest set bit of a finite non-zero ``x`` (``|x| = m * 2**e``)."""
    num, den = abs(x).as_integer_ratio()  # den is a power of two
    shift = den.bit_length() - 1
    return (num & -num).bit_length() - 1 - shift, num.bit_length() - 1 - shift


def partials_problems(partials: list[float], values: list[float]) -> list[str]:
    """Why ``partials`` are not a valid exact expansion of the finite ``values`` (empty when they are)."""
    problems = []
    if any(p == 0.0 or not math.isfinite(p) for p in partials):
        problems.append(f"zero or non-finite partial in {partials!r}")
        return problems
    if sum((Fraction(p) for p in partials), Fraction(0)) != exact_sum(values):
        problems.append(f"partials {partials!r} do not sum exactly to the values' sum")
    for a, b in zip(partials, partials[1:]):
        if not _set_bits(a)[1] < _set_bits(b)[0]:
            problems.append(f"partials {a!r} and {b!r} overlap or are not in increasing magnitude")
    return problems


def group_totals(values: list[float], starts: list[int]) -> list[float]:
    """Each group's exact sum rounded once (ties to even), or its non-finite sum."""
    totals = []
    for k in range(len(starts) - 1):
        group = values[starts[k]:starts[k + 1]]
        special = special_sum(group)
        totals.append(special if (special != 0.0 or math.isnan(special)) else float(exact_sum(group)))
    return totals
