"""Exact-sum kernels (bleustats.engine._sum_kernels) and the sums built on them, against tests/twins/sums.py.

The kernels' partials must be an exact, non-overlapping expansion of each
group's sum (checked against the twin's ``fractions.Fraction`` sum), and every
group's total the twin's correctly rounded exact sum bit for bit, on hypothesis-generated groups
(empty groups, one value, cancelling magnitudes, ties that round half to
even, subnormals, NaN and infinities). Merging partial sums of any split of
the rows gives the same bits as summing them whole: the property a
partitioned score relies on. The file also passes with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.engine import _sum_kernels as _k
from bleustats.engine._sums import column_sums, group_sums, merge_partial_sums, partial_sums
from bleustats.errors import InputError
from ..twins import sums as twin
from ..conftest import examples

# magnitudes far apart (cancellation), equal (ties), tiny (subnormal), and exact binary fractions
FINITE = st.one_of(
    st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 1e16, -1e16, 2.0 ** -1074, 2.0 ** 53, 0.5, 1.5, 2.5]),
)
VALUE = st.one_of(FINITE, st.sampled_from([math.nan, math.inf, -math.inf]))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)) or a == b == 0


@st.composite
def groups(draw, values=FINITE):
    sizes = draw(st.lists(st.integers(0, 12), min_size=0, max_size=6))
    vals = [draw(st.lists(values, min_size=n, max_size=n)) for n in sizes]
    return [x for v in vals for x in v], list(np.cumsum([0, *sizes]))


@settings(max_examples=examples(300), deadline=None)
@given(groups(VALUE))
def test_kernel_partials_and_totals_equal_the_twin(case):
    values, starts = case
    flat, ptr, special = _k.sum_partials(np.array(values, np.float64), np.array(starts, np.int64))
    for k in range(len(starts) - 1):
        group = values[starts[k]:starts[k + 1]]
        want_special = twin.special_sum(group)
        assert _same(special[k], want_special), (group, special[k])
        if want_special == 0.0 and not math.isnan(want_special):  # all finite: the partials are the sum
            assert twin.partials_problems(flat[ptr[k]:ptr[k + 1]].tolist(), group) == []
    totals = _k.round_partials(flat, ptr, special)
    assert len(totals) == len(starts) - 1
    for got, want in zip(totals.tolist(), twin.group_totals(values, starts)):
        assert _same(got, want), (got, want)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(FINITE, max_size=40), st.data())
def test_merged_partial_sums_of_any_split_equal_the_whole(values, data):
    x = np.array(values, np.float64)
    n = np.arange(len(values), dtype=np.int64)
    keys = np.array(data.draw(st.lists(st.sampled_from("ab"), min_size=len(values), max_size=len(values))))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=4)))
    bounds = [0, *cuts, len(values)]
    parts = [partial_sums({"w": x[a:b], "n": n[a:b]}, keys=keys[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    merged = merge_partial_sums(data.draw(st.permutations(parts))).totals()
    whole = partial_sums({"w": x, "n": n}, keys=keys)
    assert merged["w"].tolist() == whole.totals()["w"].tolist()
    assert merged["n"].tolist() == whole.totals()["n"].tolist()
    for key, got in zip(whole.keys.tolist(), merged["w"].tolist()):
        assert got == math.fsum(x[keys == key])


def test_a_sum_does_not_depend_on_the_order():
    x = np.array([1e16, 1.0, -1e16, 0.5] * 5 + [0.1] * 10)
    rng = np.random.default_rng(0)
    want = math.fsum(x)
    for _ in range(20):
        assert float(column_sums(rng.permutation(x))) == want
    assert float(x.sum()) != want  # numpy's pairwise sum drops the 1.0's


def test_group_sums_and_two_dimensional_columns():
    x = np.array([[0.1, 1.0], [0.2, 2.0], [0.3, 3.0]])
    assert column_sums(x).tolist() == [math.fsum([0.1, 0.2, 0.3]), 6.0]
    assert group_sums(x, np.array([2, 0, 1]), np.array([0, 1])).tolist() == [[0.3, 3.0], [0.1 + 0.2, 3.0]]
    assert column_sums(np.array([1, 2, 3], np.int64)).dtype == np.int64


def test_bad_inputs_are_named():
    with pytest.raises(InputError, match="x: statistics columns must hold integers or floats; got dtype <U1"):
        column_sums(np.array(["a"]))
    with pytest.raises(InputError, match="one length"):
        partial_sums({"n": [1, 2]}, keys=["a"])
    with pytest.raises(InputError, match="at least one PartialSums"):
        merge_partial_sums([])
    with pytest.raises(InputError, match="same columns"):
        merge_partial_sums([partial_sums({"n": [1]}), partial_sums({"m": [1]})])
