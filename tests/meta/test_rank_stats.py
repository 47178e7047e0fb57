"""Weighted rank statistics: the kernels against their plain-Python twins, and against scipy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.errors import InputError
from bleustats.meta import _rank_kernels
from bleustats.meta.correlation import kendall_tau, spearman
from bleustats.meta.rank_stats import cut_unit_sums, dense_ranks, rank_rows, sum_units, tau_from_counts

from ..twins.ranks import (Sfc64Draws, cut_unit_sums_twin, rank_stats_twin, shuffle_twin, sort_rows_twin,
                           sum_units_twin)
from ..conftest import examples

SETTINGS = settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
# the shuffle's SFC64 arithmetic is modulo 2**64: run as Python (NUMBA_DISABLE_JIT=1), NumPy's scalars warn
MODULAR = pytest.mark.filterwarnings("ignore:overflow encountered in scalar:RuntimeWarning")

# few distinct values (ties everywhere), or continuous values, of one row length
values = st.one_of(st.integers(-2, 2).map(float), st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False))


@st.composite
def weighted_rows(draw, max_n=14):
    n = draw(st.integers(0, max_n))
    x = draw(st.lists(values, min_size=n, max_size=n))
    y = draw(st.lists(st.integers(-2, 2).map(float) | values, min_size=n, max_size=n))
    w = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return x, y, w


@SETTINGS
@given(data=weighted_rows())
def test_sort_rows_equals_twin(data):
    x, y, _ = data
    ry, _ = dense_ranks([y]) if x else (np.zeros((1, 0), np.int64), None)
    xa = np.array([x], dtype=np.float64).reshape(1, len(x))
    order, rx_s, ry_s = _rank_kernels.sort_rows(xa, np.argsort(xa, axis=1), ry)
    t_order, t_rx, t_ry = sort_rows_twin(x, ry[0].tolist())
    assert rx_s[0].tolist() == t_rx and ry_s[0].tolist() == t_ry
    assert sorted(order[0].tolist()) == list(range(len(x)))  # a permutation ...
    assert [x[i] for i in order[0]] == [x[i] for i in t_order]  # ... in (x, y) order (equal cells in any order)


@SETTINGS
@given(data=weighted_rows())
def test_weighted_stats_equal_twin(data):
    x, y, w = data
    ranked = rank_rows(np.array([x]).reshape(1, len(x)), np.array([y]).reshape(1, len(y)))
    got = ranked.stats(np.array([w], dtype=np.int64).reshape(1, len(w)))[0]
    want = rank_stats_twin(x, y, w)
    assert got[1:].tolist() == want[1:]  # the counts exactly
    if math.isnan(want[0]):
        assert math.isnan(got[0])
    else:
        assert got[0] == pytest.approx(want[0], abs=1e-12)


@SETTINGS
@given(data=weighted_rows(), extra=st.lists(st.lists(st.integers(0, 3), min_size=14, max_size=14), min_size=0,
                                            max_size=2 * _rank_kernels.LANES + 3))
def test_lanes_equal_twin_and_the_one_replicate_kernel(data, extra):
    # several replicates of one sorted row (full blocks of lanes and a shorter rest): the twin's counts and rho,
    # and the bits of the same replicates passed one lane at a time
    x, y, w = data
    n = len(x)
    weights = np.array([w] + [e[:n] for e in extra], dtype=np.int64).reshape(1 + len(extra), n)
    ranked = rank_rows(np.array([x]).reshape(1, n), np.array([y]).reshape(1, n))
    one_by_one = _rank_kernels.weighted_rank_stats_serial(ranked.order, ranked.rx, ranked.ry, ranked.n_y, weights,
                                                          np.zeros(len(weights), np.int64))
    got = _rank_kernels.weighted_rank_stats_lanes(ranked.order, ranked.rx, ranked.ry, ranked.n_y, weights, 0)
    assert got.view(np.int64).tolist() == one_by_one.view(np.int64).tolist()
    got = ranked.stats(weights, np.zeros(len(weights), np.int64))  # the dispatch of RankedRows.stats
    for b, wb in enumerate(weights.tolist()):
        want = rank_stats_twin(x, y, wb)
        assert got[b, 1:].tolist() == want[1:]
        if math.isnan(want[0]):
            assert math.isnan(got[b, 0])
        else:
            assert got[b, 0] == pytest.approx(want[0], abs=1e-12)


@SETTINGS
@given(data=weighted_rows(max_n=10), k=st.integers(1, 4), size=st.integers(1, 4), rows=st.integers(0, 3))
def test_sum_units_equals_twin(data, k, size, rows):
    x, _, _ = data
    n = len(x)
    vals = np.array([[v * (c + 1) for c in range(k)] for v in x], dtype=np.float64).reshape(n, k)
    rng = np.random.default_rng(n * 31 + k)
    units = rng.integers(-1, max(n, 1), size=(rows, 3, size)) if n else np.full((rows, 3, size), -1)
    cols = rng.integers(0, k, size=5)
    got = sum_units(vals, units, cols)
    assert got.tolist() == sum_units_twin(vals.tolist(), units.tolist(), cols.tolist(), k)


@st.composite
def unit_sequences(draw):
    """Values (n, k), sequences (row, base, positions with -1 for nothing drawn) that index them, rows, M."""
    n = draw(st.integers(0, 8))
    k = draw(st.integers(1, 3))
    vals = draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=n, max_size=n))
    n_rows = draw(st.integers(1, 3))
    seqs = []
    for _ in range(draw(st.integers(0, 5))):
        base = draw(st.integers(0, max(n - 1, 0)))
        room = n - base
        positions = draw(st.lists(st.integers(-1, room - 1) if room > 0 else st.just(-1), max_size=9))
        seqs.append((draw(st.integers(0, n_rows - 1)), base, positions))
    columns = draw(st.none() | st.lists(st.integers(0, k - 1), max_size=5))
    return vals, k, seqs, n_rows, draw(st.integers(1, 4)), columns


@SETTINGS
@given(data=unit_sequences())
def test_cut_unit_sums_equals_twin(data):
    vals, k, seqs, n_rows, size, columns = data
    items = [i for _, _, pos in seqs for i in pos]
    starts = np.concatenate([[0], np.cumsum([len(pos) for _, _, pos in seqs])])
    got = cut_unit_sums(np.array(vals, dtype=np.float64).reshape(len(vals), k), np.array(items, dtype=np.int64),
                        starts, [r for r, _, _ in seqs], [b for _, b, _ in seqs], n_rows, size,
                        columns=None if columns is None else np.array(columns, dtype=np.int64))
    want = cut_unit_sums_twin(vals, seqs, n_rows, size, columns)
    assert got[0].shape == (len(want[1]), k if columns is None else len(columns))
    assert got[0].tolist() == want[0]  # the same additions in the same order: equal, not close
    assert [a.tolist() for a in got[1:]] == list(want[1:])


def _twin_shuffled(seqs, rng):
    """The twin's orders for ``(row, base, positions)`` sequences: one SFC64 stream seeded from ``rng``."""
    draws = Sfc64Draws(rng.integers(2**64, size=3, dtype=np.uint64))
    return [(r, b, shuffle_twin(pos, draws)) for r, b, pos in seqs], draws


@MODULAR
@SETTINGS
@given(data=unit_sequences(), seed=st.integers(0, 2**32 - 1))
def test_cut_unit_sums_with_rng_shuffles_as_the_twin(data, seed):
    # with rng every sequence, whole and in turn, is shuffled from one stream (-1 entries included, sequences too
    # short to cut included): the twin shuffles in Python, then cuts
    vals, k, seqs, n_rows, size, columns = data
    items = [i for _, _, pos in seqs for i in pos]
    starts = np.concatenate([[0], np.cumsum([len(pos) for _, _, pos in seqs])])
    kernel_rng, twin_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    got = cut_unit_sums(np.array(vals, dtype=np.float64).reshape(len(vals), k), np.array(items, dtype=np.int64),
                        starts, [r for r, _, _ in seqs], [b for _, b, _ in seqs], n_rows, size,
                        columns=None if columns is None else np.array(columns, dtype=np.int64), rng=kernel_rng)
    want = cut_unit_sums_twin(vals, _twin_shuffled(seqs, twin_rng)[0], n_rows, size, columns)
    assert got[0].tolist() == want[0]
    assert [a.tolist() for a in got[1:]] == list(want[1:])
    assert kernel_rng.integers(0, 2**62) == twin_rng.integers(0, 2**62)  # the same draws consumed from rng


def _numpy_sfc64(words):
    """NumPy's SFC64 at the twin's starting state: ``(a, b, c) = words``, ``w = 1``, 12 outputs dropped."""
    bits = np.random.SFC64()
    state = bits.state
    state["state"]["state"] = np.array([*words, 1], dtype=np.uint64)
    bits.state = state
    bits.random_raw(12)
    return bits


@MODULAR
def test_shuffle_twin_is_sfc64_and_uniform():
    # the twin's stream is NumPy's SFC64 from the same state, and its bounded draws are uniform
    words = np.random.default_rng(1).integers(2**64, size=3, dtype=np.uint64)
    draws = Sfc64Draws(words)
    assert _numpy_sfc64(words).random_raw(6).tolist() == [draws.next64() for _ in range(6)]
    counts = np.bincount([draws.below(5) for _ in range(20_000)], minlength=5)
    assert scipy.stats.chisquare(counts).pvalue > 1e-6
    # NumPy's Generator draws a uint32 below s the same way (32-bit halves low first, Lemire with rejection):
    # the twin's draws equal its draws one by one, up to s = 2**32 and around 2**31 where half are redrawn
    for s in (2, 3, 7, 1000, 2**31 - 1, 2**31 + 1, 3 * 2**30 + 5, 2**32 - 1, 2**32):
        words = np.random.default_rng(s).integers(2**64, size=3, dtype=np.uint64)
        twin, numpy_gen = Sfc64Draws(words), np.random.Generator(_numpy_sfc64(words))
        assert [twin.below(s) for _ in range(300)] == numpy_gen.integers(0, s, size=300, dtype=np.uint32).tolist()
    many = Sfc64Draws(np.random.default_rng(8).integers(2**64, size=3, dtype=np.uint64))
    for _ in range(200):
        many.below(2**31 + 1)
    assert many.rejections > 50  # about half of the draws below 2**31 + 1 are redrawn
    # a sequence the kernel shuffles by every item's order: each item at each place equally often
    places = np.zeros((4, 4))
    rng = np.random.default_rng(2)
    for _ in range(4000):
        sums = cut_unit_sums(np.eye(4), [0, 1, 2, 3], [0, 4], [0], [0], 1, 1, rng=rng)[0]
        places[np.arange(4), sums.argmax(axis=1)] += 1
    assert scipy.stats.chisquare(places.ravel()).pvalue > 1e-6


@MODULAR
def test_cut_unit_sums_with_rng_on_long_sequences_and_bad_rng():
    # long rows and several sequences per row, against the twin
    rng = np.random.default_rng(11)
    pos = np.where(rng.random((40, 700)) < 0.1, -1, rng.integers(0, 700, (40, 700)))
    vals = rng.normal(size=(700, 3))
    starts = np.arange(0, 40 * 700 + 1, 700)
    got = cut_unit_sums(vals, pos.ravel(), starts, np.arange(40) % 3, np.zeros(40, np.int64), 3, 7,
                        rng=np.random.default_rng(4))
    seqs = [(j % 3, 0, pos[j].tolist()) for j in range(40)]
    want = cut_unit_sums_twin(vals.tolist(), _twin_shuffled(seqs, np.random.default_rng(4))[0], 3, 7)
    assert got[0].tolist() == want[0] and [a.tolist() for a in got[1:]] == list(want[1:])
    # a stream whose bounded draws reject a low product (found with the twin; seed 69, 20,000 items): the
    # kernel redraws there as the twin does
    shuffled, draws = _twin_shuffled([(0, 0, list(range(20_000)))], np.random.default_rng(69))
    assert draws.rejections > 0
    # and NumPy's own bounded draws from the same SFC64 state, one per step, give the kernel's order too
    words = np.random.default_rng(69).integers(2**64, size=3, dtype=np.uint64)
    numpy_gen, by_numpy = np.random.Generator(_numpy_sfc64(words)), list(range(20_000))
    for t in range(len(by_numpy) - 1, 0, -1):
        o = int(numpy_gen.integers(0, t + 1, dtype=np.uint32))
        by_numpy[o], by_numpy[t] = by_numpy[t], by_numpy[o]
    assert by_numpy == shuffled[0][2]
    order = cut_unit_sums(np.arange(20_000.0)[:, None], np.arange(20_000), [0, 20_000], [0], [0], 1, 1,
                          rng=np.random.default_rng(69))[0][:, 0]
    assert order.tolist() == [float(i) for i in shuffled[0][2]]
    with pytest.raises(InputError, match="rng must be a numpy.random.Generator or None; got int"):
        cut_unit_sums(vals, [1, 2], [0, 2], [0], [0], 1, 1, rng=3)
    # out: the sums written into its front when it has room (a view of it), else into a new array
    args = (vals, pos.ravel(), starts, np.arange(40) % 3, np.zeros(40, np.int64), 3, 7)
    plain = cut_unit_sums(*args)[0]
    buf = np.full(got[0].size + 5, np.nan)
    into = cut_unit_sums(*args, out=buf)
    assert np.shares_memory(into[0], buf) and np.array_equal(into[0], plain)
    assert np.isnan(buf[got[0].size:]).all()
    small = np.zeros(got[0].size - 1)
    fresh = cut_unit_sums(*args, out=small)
    assert not np.shares_memory(fresh[0], small) and np.array_equal(fresh[0], plain) and not small.any()
    with pytest.raises(InputError, match="out must be a writeable contiguous 1-D float64 array or None; got "
                                         "ndarray of dtype float32, shape .3,."):
        cut_unit_sums(*args, out=np.zeros(3, np.float32))


def test_cut_unit_sums_equals_sum_units_and_refuses_bad_input():
    rng = np.random.default_rng(5)
    vals = rng.normal(size=(30, 4))
    seq = rng.permuted(np.where(rng.random((6, 10)) < 0.2, -1, rng.integers(0, 10, (6, 10))), axis=1)
    bases = np.array([0, 10, 20, 0, 10, 20])
    sums, rows, cols, n = cut_unit_sums(vals, seq.ravel(), np.arange(0, 70, 10), [0, 0, 1, 1, 2, 2], bases, 3, 3)
    units = np.full((len(rows), 3), -1)  # the same units by hand, for sum_units
    k = 0
    for pos, b in zip(seq, bases):
        drawn = pos[pos >= 0] + b
        for u in range(len(drawn) // 3):
            units[k] = drawn[3 * u:3 * u + 3]
            k += 1
    assert k == len(rows) and n.sum() == k
    assert np.array_equal(sums, sum_units(vals, units[None])[0])
    with pytest.raises(InputError, match="must index the 30 rows.*item 0 .sequence 0. is 29 with base 1"):
        cut_unit_sums(vals, [29, 0], [0, 2], [0], [1], 1, 1)
    with pytest.raises(InputError, match="item 1 .sequence 0. is -2"):
        cut_unit_sums(vals, [3, -2], [0, 2], [0], [0], 1, 1)
    with pytest.raises(InputError, match="starts must rise"):
        cut_unit_sums(vals, [1, 2], [0, 1], [0], [0], 1, 1)
    with pytest.raises(InputError, match="row_of must index"):
        cut_unit_sums(vals, [1, 2], [0, 2], [3], [0], 1, 1)
    with pytest.raises(InputError, match="unit_size"):
        cut_unit_sums(vals, [1, 2], [0, 2], [0], [0], 1, 0)
    with pytest.raises(InputError, match="columns must be 1-D indices of the 4 columns"):
        cut_unit_sums(vals, [1, 2], [0, 2], [0], [0], 1, 1, columns=[0, 4])


def test_weights_equal_scipy_on_the_expanded_draws():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 6, size=(3, 40)).astype(float)
    y = np.round(rng.normal(size=(1, 40)), 1)
    ranked = rank_rows(x, y)
    w = rng.integers(0, 3, size=(9, 40))
    rows = np.arange(9) % 3
    for variant in ("b", "c"):
        rho, tau = ranked.correlations(w, rows, kendall_variant=variant)
        for b in range(9):
            xe, ye = np.repeat(x[rows[b]], w[b]), np.repeat(y[0], w[b])
            assert rho[b] == pytest.approx(scipy.stats.spearmanr(xe, ye)[0], abs=1e-12)
            assert tau[b] == pytest.approx(scipy.stats.kendalltau(xe, ye, variant=variant)[0], abs=1e-12)
            assert tau[b] == pytest.approx(kendall_tau(xe, ye, variant=variant), abs=1e-12)
            assert rho[b] == pytest.approx(spearman(xe, ye), abs=1e-12)


def test_unweighted_rows_equal_the_batched_coefficients():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 200))
    x[:, ::7] = 0.0  # some ties
    y = np.round(rng.normal(size=(5, 200)), 1)
    rho, tau = rank_rows(x, y).correlations()
    assert rho == pytest.approx(spearman(x, y), abs=1e-12)
    assert tau == pytest.approx(kendall_tau(x, y), abs=1e-12)


def test_constant_side_and_empty_weights_are_undefined():
    ranked = rank_rows([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], [[1.0, 2.0, 2.0]])
    rho, tau = ranked.correlations()
    assert math.isnan(rho[1]) and math.isnan(tau[1]) and not math.isnan(rho[0])
    rho, tau = ranked.correlations(np.array([[0, 0, 0], [0, 5, 0]]), rows=[0, 0])
    assert np.isnan(rho).all() and np.isnan(tau).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warnings either
        tau_from_counts(ranked.stats(np.zeros((1, 3), np.int64)), "c")


def test_bad_inputs():
    ranked = rank_rows([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(InputError, match="weights must be integers"):
        ranked.stats(np.array([[0.5, 1.0]]))
    with pytest.raises(InputError, match="multiplicities"):
        ranked.stats(np.array([[-1, 1]]))
    with pytest.raises(InputError, match="rows must index"):
        ranked.stats(np.array([[1, 1]]), rows=[1])
    with pytest.raises(InputError, match="x must have shape"):
        rank_rows([[1.0, 2.0, 3.0]], [[1.0, 2.0]])
    with pytest.raises(InputError, match="contains 1 NaN"):
        rank_rows([[1.0, np.nan]], [[1.0, 2.0]])
    with pytest.raises(InputError, match="units must index"):
        sum_units([[1.0]], [[[0, 1]]])
    with pytest.raises(InputError, match="variant must be"):
        tau_from_counts(ranked.stats(), "wmt")


def test_draws_in_blocks_equal_one_draw():
    # the study draws its bootstrap indices block by block from one generator: the same numbers
    for n in (5, 4057, 41262):
        whole = np.random.default_rng(3).integers(0, n, size=(10, n), dtype=np.int64)
        g = np.random.default_rng(3)
        parts = np.concatenate([g.integers(0, n, size=(k, n), dtype=np.int64) for k in (3, 3, 4)])
        assert np.array_equal(whole, parts)
