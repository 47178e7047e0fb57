"""Resampling primitives: partitions are partitions, draws are reproducible, sums are sums."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.errors import InputError
from bleustats.meta.resample import (aggregation_matrix, as_generator, bootstrap_indices, unit_partitions,
                                unit_sums)
from ..conftest import examples


@settings(max_examples=examples(60), deadline=None)
@given(n=st.integers(1, 60), m=st.integers(1, 60), a=st.integers(1, 5), seed=st.integers(0, 2**32))
def test_partitions_are_partitions(n, m, a, seed):
    if m > n:
        with pytest.raises(InputError, match="unit_size must be at most n_items"):
            unit_partitions(n, m, n_assignments=a, seed=seed)
        return
    u = unit_partitions(n, m, n_assignments=a, seed=seed)
    assert u.shape == (a, n // m, m) and u.dtype == np.int64
    for assignment in u:
        used = assignment.ravel()
        assert len(np.unique(used)) == used.size == (n // m) * m  # each item at most once, remainder dropped
        assert used.min() >= 0 and used.max() < n


def test_partitions_reproducible_and_generator_advances():
    a = unit_partitions(50, 7, n_assignments=4, seed=3)
    b = unit_partitions(50, 7, n_assignments=4, seed=3)
    assert np.array_equal(a, b)
    g = np.random.default_rng(3)
    first = unit_partitions(50, 7, n_assignments=4, seed=g)
    second = unit_partitions(50, 7, n_assignments=4, seed=g)
    assert np.array_equal(first, a) and not np.array_equal(first, second)
    assert not np.array_equal(a, unit_partitions(50, 7, n_assignments=4, seed=4))


def test_partitions_are_uniform_enough():
    # every item lands in a used position with probability U*M/n = 0.9
    u = unit_partitions(10, 3, n_assignments=4000, seed=0)
    freq = np.bincount(u.ravel(), minlength=10) / 4000
    assert np.allclose(freq, 0.9, atol=0.03)
    # the first unit's first item is uniform over the items
    first = np.bincount(u[:, 0, 0], minlength=10) / 4000
    assert np.allclose(first, 0.1, atol=0.03)


def test_unit_size_one_and_full():
    u = unit_partitions(5, 5, n_assignments=2, seed=0)
    assert u.shape == (2, 1, 5) and sorted(u[0, 0]) == [0, 1, 2, 3, 4]
    u1 = unit_partitions(5, 1, seed=0)
    assert u1.shape == (1, 5, 1) and sorted(u1.ravel()) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_items=-1, unit_size=1), "n_items must be an integer >= 0; got -1"),
    (dict(n_items=5, unit_size=0), "unit_size must be an integer >= 1; got 0"),
    (dict(n_items=5, unit_size=2.0), r"unit_size must be an integer >= 1; got 2\.0"),
    (dict(n_items=5, unit_size=2, n_assignments=0), "n_assignments must be an integer >= 1"),
    (dict(n_items=3, unit_size=4), r"unit_size must be at most n_items \(3\).*got 4"),
    (dict(n_items=3, unit_size=1, seed=-2), "seed must be a non-negative int"),
    (dict(n_items=3, unit_size=1, seed="x"), "seed must be a non-negative int.*got 'x'"),
])
def test_partition_errors(kwargs, match):
    with pytest.raises(InputError, match=match):
        unit_partitions(**kwargs)


def test_bootstrap_indices():
    idx = bootstrap_indices(7, 500, seed=1)
    assert idx.shape == (500, 7) and idx.min() == 0 and idx.max() == 6
    assert np.array_equal(idx, bootstrap_indices(7, 500, seed=1))
    assert np.allclose(np.bincount(idx.ravel()) / idx.size, 1 / 7, atol=0.02)
    with pytest.raises(InputError, match="n_items must be an integer >= 1; got 0"):
        bootstrap_indices(0, 3)
    with pytest.raises(InputError, match="n_resamples must be an integer >= 1"):
        bootstrap_indices(3, 0)


def test_as_generator_kinds():
    ss = np.random.SeedSequence(5)
    assert as_generator(ss).integers(1000) == np.random.default_rng(np.random.SeedSequence(5)).integers(1000)
    assert isinstance(as_generator(None), np.random.Generator)
    with pytest.raises(InputError, match="seed must be"):
        as_generator(True)


@settings(max_examples=examples(40), deadline=None)
@given(n=st.integers(1, 30), m=st.integers(1, 30), k=st.integers(1, 4), seed=st.integers(0, 1000))
def test_unit_sums_equal_plain_sums(n, m, k, seed):
    if m > n:
        return
    rng = np.random.default_rng(seed)
    x = rng.integers(-5, 50, size=(n, k))
    units = unit_partitions(n, m, n_assignments=3, seed=seed)
    got = unit_sums(x, units)
    want = np.array([[x[list(u)].sum(axis=0) for u in a] for a in units], dtype=np.float64)
    assert got.shape == (3, n // m, k)
    assert np.array_equal(got, want)  # integer sums are exact
    assert np.array_equal(unit_sums(x[:, 0], units), want[..., 0])


def test_aggregation_matrix_errors():
    with pytest.raises(InputError, match=r"indices must be in \[0, 3\); got min 0, max 3"):
        aggregation_matrix([[0, 3]], 3)
    with pytest.raises(InputError, match="units must be an integer array"):
        aggregation_matrix([0.5, 1.0], 3)
    with pytest.raises(InputError, match=r"values must have shape \(n_items, k\)"):
        unit_sums(np.zeros((2, 2, 2)), [[0, 1]])
