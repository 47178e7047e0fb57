r"""Is metric A closer to the human scores than metric B *in the study's protocol*? A paired test.

The study (:func:`bleustats.meta.study.correlation_study`) reports, per metric,
:math:`\hat\theta_m`: Spearman's ρ (or Kendall's τ) between metric and human
score differences of system pairs on units of :math:`M` segments, averaged
over random assignments. Two metrics' numbers share every input, so their
intervals overlap even when one metric is reliably better; the question needs
the *paired* difference

.. math::

    \hat d = \hat\theta_A - \hat\theta_B .

**Resampling the protocol.** :func:`protocol_bootstrap` reruns the whole
protocol on redrawn data with the **same draws for every metric**. A replicate
redraws, as ``resample`` says,

* ``'segments'``: :math:`n_s` segments with replacement from the study's
  :math:`n_s` (segment :math:`s` drawn :math:`c_s` times), every pair kept;
* ``'systems'``: the systems with replacement (system :math:`a` drawn
  :math:`m_a` times); pair :math:`(a, b)` then appears :math:`m_a m_b` times
  (every pair of drawn copies), every segment once;
* ``'pairs'``: the :math:`P` system pairs with replacement, every segment once;
* ``'within'``: each pair's own segments with replacement, independently of
  the other pairs (the residual: pair × segment);
* ``'both'``: segments and pairs at once (the "pigeonhole" bootstrap).

Every copy of a pair cuts its segments (with their multiplicities) into
:math:`\lfloor L/M \rfloor` units in a random order of its own, like an
assignment of the study, the remainder dropped; each unit is an observation of
the study, and :math:`\theta^*` is the coefficient of the observations. At
:math:`M = 1` a unit is a cell, so the observations are the study's own,
sorted once, and a replicate is a vector of weights (:math:`m_a m_b\,c_s`,
...): nothing is recomputed. At :math:`M > 1` each replicate's data is cut into
``n_partitions`` independent assignments (column k of the result).

**Combining the schemes.** The observations form a crossed design, system pairs
× segments, and :math:`\hat d` varies with both. No single bootstrap of a
crossed design has the right variance: resampling segments misses the systems,
resampling both counts the residual twice (Owen, 2007; it is conservative,
p-values piled up near 1 under the null). :func:`paired_difference` combines
three one-way schemes so that each variance component counts once (McCullagh,
2000; Owen & Eckles, 2012):

.. math::

    \hat V = V_{\mathrm{segments}} + V_{\mathrm{systems}} - V_{\mathrm{within}},
    \qquad \mathrm{se} = \sqrt{\hat V}

(the larger of the first two when :math:`\hat V \le 0`), where :math:`V_s` is
the data part of the variance of :math:`d^*_b = \theta^*_{A,b} -
\theta^*_{B,b}` over the replicates of scheme :math:`s` (``'pairs'`` may stand
in for ``'systems'``). A replicate at :math:`M > 1` is scored on :math:`K`
random assignments :math:`d^*_{b,1..K}`, while :math:`\hat d` averages over
many, so the assignment noise is measured and removed:

.. math::

    V_{\mathrm{partition}} = \frac{1}{B}\sum_b s^2\big(d^*_{b,1..K}\big), \qquad
    V_s = \operatorname{var}_b\big(\bar d^*_b\big) - \frac{V_{\mathrm{partition}}}{K} .

Then

.. math::

    \hat d \pm z_{1-\alpha/2}\,\mathrm{se}, \qquad
    p = 2\,\big(1 - \Phi(|\hat d| / \mathrm{se})\big).

Two identical metrics give :math:`d^* \equiv 0`, :math:`\mathrm{se} = 0` and
:math:`p = 1`. ``tests/meta/test_study_compare.py`` checks calibration on
small synthetic studies of two metrics whose noise is exchangeable between them
(the null), with a Kolmogorov–Smirnov test of the p-values against uniform at
:math:`M = 1` and :math:`M > 1`: with ``'systems'``, under a null whose metric
noise has a system-level part (each system scored a little too high or low by
each metric) the p-values are uniform; when the noise has no system-level part
they are conservative (the system bootstrap then counts the residual more than
once). With ``'pairs'`` it is the other way round: uniform without a
system-level part, too small with one (pairs sharing a system are not
independent), which is why ``'systems'`` is the default.

References
----------
.. [1] Efron, B., Tibshirani, R. (1993). An Introduction to the Bootstrap.
   Chapman & Hall.
.. [2] McCullagh, P. (2000). Resampling and exchangeable arrays. Bernoulli
   6(2).
.. [3] Owen, A. B. (2007). The pigeonhole bootstrap. Annals of Applied
   Statistics 1(2).
.. [4] Owen, A. B., Eckles, D. (2012). Bootstrapping data arrays of arbitrary
   order. Annals of Applied Statistics 6(3).
.. [5] Deutsch, D., Dror, R., Roth, D. (2021). A statistical analysis of
   summarization evaluation metrics using resampling methods. TACL.

Examples
--------
>>> import pandas as pd
>>> from bleustats.meta.study import correlation_study, mean_metric
>>> rng = np.random.default_rng(0)
>>> sys_, seg = np.repeat(["s0", "s1", "s2", "s3", "s4"], 40), np.tile(np.arange(40), 5)
>>> quality = rng.normal(size=200)
>>> human = pd.DataFrame({"system": sys_, "seg_id": seg, "score": quality + rng.normal(size=200)})
>>> good = mean_metric(sys_, seg, quality + rng.normal(0, 0.3, 200), metric="good")
>>> poor = mean_metric(sys_, seg, quality + rng.normal(0, 3.0, 200), metric="poor")
>>> res = correlation_study([good, poor], human, unit_size=1, n_bootstrap=200,
...                         compare=[("good [all]", "poor [all]")])
>>> row = res.comparisons.iloc[0]
>>> row["correlation"], bool(row["difference"] > 0), bool(row["p_value"] < 0.05)
('rho', True, True)
"""

from __future__ import annotations

import math
import threading
from typing import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count, choices_text
from ..errors import InputError
from .rank_stats import cut_unit_sums, dense_ranks, rank_rows, tau_from_counts
from .resample import SeedLike
from .units import StudyCells

__all__ = ["RESAMPLING", "Stopped", "paired_difference", "protocol_bootstrap"]

#: What a replicate of :func:`protocol_bootstrap` redraws.
RESAMPLING = ("segments", "pairs", "systems", "within", "both")

# entries (replicates x observations) held per block
_BLOCK = 1 << 20
# replicates of weights at M = 1 scored per call: whole lanes of the rank kernel on each thread
_LANES_BATCH = 64
# units scored per call at M > 1 (their temporaries, some MB, stay in cache)
_UNITS_SLICE = 1 << 15


def _rngs(seed: SeedLike) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    if isinstance(seed, np.random.Generator):
        seed = np.random.SeedSequence(int(seed.integers(0, 2**63)))
    elif not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(check_count("seed", seed, minimum=0))
    return tuple(np.random.default_rng(s) for s in seed.spawn(3))  # type: ignore[return-value]


def _row_counts(draws: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    """Per row, how often each of 0..n-1 was drawn."""
    rows = draws.shape[0]
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n + draws).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n)


def protocol_bootstrap(
    cells: StudyCells,
    metrics: Sequence[int],
    *,
    unit_size: int,
    n_bootstrap: int = 1000,
    seed: SeedLike = 0,
    kendall_variant: str = "b",
    resample: str = "both",
    n_partitions: int = 1,
    progress: Callable[[int, int], None] | None = None,
    stop: threading.Event | None = None,
) -> dict[int, tuple[NDArray[np.float64], NDArray[np.float64]]]:
    r"""ρ and τ of every metric in every replicate of the protocol, redrawn as ``resample`` says.

    Parameters
    ----------
    cells : StudyCells
        From :func:`bleustats.meta.units.study_cells`.
    metrics : sequence of int
        Indices of ``cells.metrics`` to resample (all with the same draws).
    unit_size : int
        M.
    n_bootstrap : int
        Replicates B.
    seed : int, SeedSequence or Generator
        The draws: ``seg, pair, order = SeedSequence(seed).spawn(3)``;
        replicates are drawn block by block from one generator each (segments
        or within-pair draws; pairs or systems; the random orders that make the
        assignments), so the same seed and inputs give the same numbers bit
        for bit.
    kendall_variant : {'b', 'c'}
    resample : {'segments', 'systems', 'pairs', 'within', 'both'}
        What a replicate redraws (module docstring).
    n_partitions : int
        Independent assignments of each replicate's data at M > 1 (the
        result's columns); 1 at M = 1.
    progress : callable, optional
        ``progress(done, total)`` after each block of replicates.
    stop : threading.Event, optional
        Checked between blocks, assignments and metrics: once it is set the
        call raises :class:`Stopped` (for callers running it on a thread).

    Returns
    -------
    dict of metric index → (rho, tau), arrays of shape (B, n_partitions)
        ``nan`` where a replicate's coefficient is undefined (a constant side).

    Examples
    --------
    >>> import pandas as pd
    >>> from bleustats.meta.units import mean_metric, study_cells
    >>> cells_ = [(s, g) for g in range(12) for s in "ABC"]
    >>> m = mean_metric([s for s, _ in cells_], [g for _, g in cells_],
    ...                 [float((g * 7 + "ABC".index(s) * 3) % 5) for s, g in cells_], metric="toy")
    >>> human = pd.DataFrame({"system": [s for s, _ in cells_], "seg_id": [g for _, g in cells_],
    ...                       "score": [float((g + "ABC".index(s)) % 4) for s, g in cells_]})
    >>> reps = protocol_bootstrap(study_cells([m], human), [0], unit_size=2, n_bootstrap=50, seed=1)
    >>> reps[0][0].shape
    (50, 1)
    """
    unit_size = check_count("unit_size", unit_size, minimum=1)
    n_bootstrap = check_count("n_bootstrap", n_bootstrap, minimum=1)
    if kendall_variant not in ("b", "c"):
        raise InputError(f"kendall_variant must be 'b' or 'c'; got {kendall_variant!r}.")
    if resample not in RESAMPLING:
        raise InputError(f"resample must be {choices_text(RESAMPLING)}; got {resample!r}.")
    which = [int(k) for k in metrics]
    if not which or any(not 0 <= k < len(cells.metrics) for k in which):
        raise InputError(f"metrics must index cells.metrics (0..{len(cells.metrics) - 1}); got {list(metrics)!r}.")
    halt = _halt(stop)
    seg_rng, pair_rng, order_rng = _rngs(seed)
    n_pairs = len(cells.pair_names)
    sizes = np.array([len(cells.pair_a[p]) for p in range(n_pairs)], dtype=np.int64)
    universe = np.unique(np.concatenate([cells.shared_segments(p) for p in range(n_pairs)]))
    n_s = len(universe)
    item_of = []  # per pair: position of each universe segment among the pair's cells, or -1
    for p in range(n_pairs):
        pos = np.full(n_s, -1, dtype=np.int64)
        pos[np.searchsorted(universe, cells.shared_segments(p))] = np.arange(sizes[p])
        item_of.append(pos)
    n_partitions = check_count("n_partitions", n_partitions, minimum=1) if unit_size > 1 else 1
    out = {k: (np.full((n_bootstrap, n_partitions), np.nan), np.full((n_bootstrap, n_partitions), np.nan))
           for k in which}
    draws_segments = resample in ("segments", "both")
    draws_pairs = resample in ("pairs", "both")
    pair_sys = np.array([[np.searchsorted(cells.systems, a), np.searchsorted(cells.systems, b)]
                         for a, b in cells.pair_names], dtype=np.int64).reshape(-1, 2)
    sys_used = np.unique(pair_sys)

    if unit_size == 1:  # units are cells: the observations once, every replicate a weight vector
        x_parts: list[list[NDArray[np.float64]]] = [[] for _ in which]
        y_parts, seg_of = [], []
        for p in range(n_pairs):
            diffs, hy = cells.unit_differences(p, np.arange(sizes[p], dtype=np.int64).reshape(1, -1, 1), 1, which)
            for i in range(len(which)):
                x_parts[i].append(diffs[i][0])
            y_parts.append(hy[0])
            seg_of.append(np.searchsorted(universe, cells.shared_segments(p)))
        y = np.concatenate(y_parts)[None, :]
        pair_idx, seg_idx = np.repeat(np.arange(n_pairs), sizes), np.concatenate(seg_of)
        y_ranks = dense_ranks(y)
        ranked = [rank_rows(_finite(np.concatenate(x)[None, :], cells.metrics[k].label), y, y_ranks=y_ranks)
                  for k, x in zip(which, x_parts)]
        block = max(1, _BLOCK // max(1, len(pair_idx)))
        pending: list[NDArray[np.int64]] = []  # blocks' weights, scored together (several per pass of the kernel)
    else:
        block = max(1, _BLOCK // max(1, int((sizes // unit_size).sum()) * 2))
    n_blocks = -(-n_bootstrap // block)
    scratch = [np.empty(0), np.empty(0, np.int64)]  # the unit sums' and the items' buffers at M > 1
    for i_block, b0 in enumerate(range(0, n_bootstrap, block)):
        halt()
        blk = min(block, n_bootstrap - b0)
        seg_draw = seg_rng.integers(0, n_s, size=(blk, n_s), dtype=np.int64) if draws_segments else None
        if resample == "systems":  # systems drawn with replacement; a pair counts (copies of A) x (copies of B)
            drawn = np.zeros((blk, len(cells.systems)), dtype=np.int64)
            drawn[:, sys_used] = _row_counts(pair_rng.integers(0, len(sys_used), size=(blk, len(sys_used)),
                                                               dtype=np.int64), len(sys_used))
            copies = drawn[:, pair_sys[:, 0]] * drawn[:, pair_sys[:, 1]]
        elif draws_pairs:
            copies = _row_counts(pair_rng.integers(0, n_pairs, size=(blk, n_pairs), dtype=np.int64), n_pairs)
        else:
            copies = np.ones((blk, n_pairs), dtype=np.int64)
        if unit_size == 1:
            if resample == "within":  # each pair's cells drawn with replacement, independently
                weights = np.concatenate([_row_counts(seg_rng.integers(0, n, size=(blk, n), dtype=np.int64), n)
                                          for n in sizes], axis=1)
            else:
                weights = copies[:, pair_idx]
                if seg_draw is not None:
                    weights = weights * _row_counts(seg_draw, n_s)[:, seg_idx]
            pending.append(weights)
            if sum(len(w) for w in pending) >= _LANES_BATCH or b0 + blk == n_bootstrap:
                _score_weights(ranked, which, pending, b0 + blk, kendall_variant, out)
        else:
            _resampled_units(cells, which, item_of, sizes, seg_draw, copies, resample == "within", unit_size,
                             kendall_variant, out, b0, seg_rng, order_rng, n_partitions, scratch, halt)
        if progress is not None:
            progress(i_block + 1, n_blocks)
    return out


class Stopped(Exception):
    """Raised by :func:`protocol_bootstrap` when its ``stop`` event is set."""


def _halt(stop: threading.Event | None) -> Callable[[], None]:
    def check() -> None:
        if stop is not None and stop.is_set():
            raise Stopped("protocol_bootstrap stopped: its stop event was set")
    return check


def _score_weights(ranked: list, which: list[int], pending: list[NDArray[np.int64]], end: int,
                   kendall_variant: str, out: dict) -> None:
    """Coefficients of the replicates ``end - len(weights) .. end - 1`` from their weights (the pending blocks)."""
    weights = np.concatenate(pending) if len(pending) > 1 else pending[0]
    pending.clear()
    b0 = end - len(weights)
    rows = np.zeros(len(weights), dtype=np.int64)
    for k, rr in zip(which, ranked):
        stats = rr.stats(weights, rows)
        out[k][0][b0:end, 0] = stats[:, 0]
        out[k][1][b0:end, 0] = tau_from_counts(stats, kendall_variant)


def _finite(x: NDArray[np.float64], label: str) -> NDArray[np.float64]:
    bad = ~np.isfinite(x)
    if bad.any():
        raise InputError(f"metrics: {label!r} gives {int(bad.sum())} non-finite unit score "
                         "difference(s); check its values (NaN or infinite statistics).")
    return x


def _resampled_units(cells: StudyCells, which: list[int], item_of: list, sizes: NDArray[np.int64],
                     seg_draw: NDArray[np.int64] | None, copies: NDArray[np.int64], within: bool, unit_size: int,
                     kendall_variant: str, out: dict, b0: int, seg_rng: np.random.Generator,
                     order_rng: np.random.Generator, n_partitions: int, scratch: list,
                     halt: Callable[[], None]) -> None:
    """One block of replicates at M > 1: every copy of every pair is its own random assignment of its items.

    Each replicate's data (drawn segments, pair copies, within-pair draws) is partitioned
    ``n_partitions`` times independently (column k of the outputs). ``scratch`` holds the
    buffers of the unit sums and of the items, kept from block to block (fresh arrays this
    large cost page faults).
    """
    blk = copies.shape[0]
    copy_rows = []  # (pair, the replicates that hold this copy of the pair)
    for p in range(len(cells.pair_names)):
        for c in range(int(copies[:, p].max())):
            copy_rows.append((p, np.flatnonzero(copies[:, p] > c)))
    # every copy's items, one sequence per replicate (positions among the pair's cells, -1 where not drawn):
    # the pair's cells, drawn within the pair, or the drawn segments (all of them, -1 where the pair has none)
    drawn_segments = seg_draw is not None and not within
    width = [seg_draw.shape[1] if drawn_segments else sizes[p] for p, _ in copy_rows]
    lengths = np.repeat(np.array(width, dtype=np.int64), [len(rows) for _, rows in copy_rows])
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    if scratch[1].size < starts[-1]:
        scratch[1] = np.empty(int(starts[-1]), np.int64)
    items = scratch[1][:starts[-1]]
    at = 0
    for (p, rows), n in zip(copy_rows, width):
        pos = items[at:at + len(rows) * n].reshape(len(rows), n)
        if within:
            pos[...] = seg_rng.integers(0, sizes[p], size=pos.shape, dtype=np.int64)
        elif drawn_segments:
            np.take(item_of[p], seg_draw[rows], out=pos)
        else:
            pos[...] = np.arange(sizes[p], dtype=np.int64)
        at += pos.size
    values, offsets, spans = cells.stacked_values(which)
    # identical columns (lengths and totals shared by the metrics) are summed once, then copied
    first_of: dict[bytes, int] = {}
    inverse = np.array([first_of.setdefault(values[:, j].tobytes(), len(first_of)) for j in range(values.shape[1])],
                       dtype=np.int64)
    distinct = np.ascontiguousarray(values[:, np.unique(inverse, return_index=True)[1]])
    row_of = np.concatenate([rows for _, rows in copy_rows]) if copy_rows else np.zeros(0, np.int64)
    base = np.concatenate([np.full(len(rows), offsets[p], np.int64) for p, rows in copy_rows]) if copy_rows \
        else np.zeros(0, np.int64)
    for part in range(n_partitions):
        halt()
        # a random order of its own for every sequence (a random assignment), drawn in sequence order inside the
        # kernel, then the distinct columns summed: (units, k), each column contiguous
        need = distinct.shape[1] * int((lengths // unit_size).sum())  # room for every unit the block can cut
        if scratch[0].size < need:
            scratch[0] = np.empty(need)
        sums, rr, cc, n_units_total = cut_unit_sums(distinct, items, starts, row_of, base, blk, unit_size,
                                                    rng=order_rng, out=scratch[0])
        if not len(rr):
            return
        width = int(n_units_total.max())
        at = rr * width + cc  # each unit's place in the (replicates, units) matrices, flat
        y = np.zeros((blk, width))
        xs = [np.zeros((blk, width)) for _ in which]
        # the unit scores a slice of units at a time: elementwise, so the same numbers, with temporaries
        # that stay in cache (whole-block temporaries were most of the comparison's page faults)
        for u0 in range(0, len(rr), _UNITS_SLICE):
            u1 = min(u0 + _UNITS_SLICE, len(rr))
            diffs, hy = cells.differences_from_sums(sums[u0:u1], which, spans, unit_size, inverse)
            y.ravel()[at[u0:u1]] = hy
            for x, d in zip(xs, diffs):
                x.ravel()[at[u0:u1]] = d
        w = np.zeros((blk, width), dtype=np.int64)
        w.ravel()[at] = 1
        y_ranks = dense_ranks(y)
        for k, x in zip(which, xs):
            halt()
            _finite(x, cells.metrics[k].label)
            stats = rank_rows(x, y, y_ranks=y_ranks).stats(w)
            out[k][0][b0:b0 + blk, part] = stats[:, 0]
            out[k][1][b0:b0 + blk, part] = tau_from_counts(stats, kendall_variant)


def _data_variance(d: NDArray[np.float64]) -> tuple[float, float, int]:
    r"""Variance of the replicates' data part, their partition variance, replicates used.

    ``d`` has shape (B, K): K independent assignments of each replicate's data. With
    :math:`K \ge 2`, :math:`V_{part} = \overline{s^2_b}` (mean within-replicate variance) and
    :math:`V_{data} = \operatorname{var}_b(\bar d_b) - V_{part}/K`; with K = 1, the plain variance.
    """
    d = d.reshape(len(d), -1)
    d = d[np.isfinite(d).all(axis=1)]
    if len(d) < 2:
        return math.nan, math.nan, int(len(d))
    if d.shape[1] == 1:
        return float(d[:, 0].var(ddof=1)), 0.0, int(len(d))
    v_part = float(d.var(axis=1, ddof=1).mean())
    return float(d.mean(axis=1).var(ddof=1)) - v_part / d.shape[1], v_part, int(len(d))


def paired_difference(
    estimate_a: float,
    estimate_b: float,
    replicates_a: Mapping[str, ArrayLike],
    replicates_b: Mapping[str, ArrayLike],
    *,
    confidence: float = 0.95,
) -> dict[str, float | int]:
    r"""Paired difference of two metrics' coefficients: standard error, interval, two-sided p-value.

    ``replicates_a[s]`` / ``replicates_b[s]`` are the two metrics' coefficients
    in the same replicates of :func:`protocol_bootstrap` with ``resample=s``,
    for ``s`` in ``'segments'``, ``'within'`` and one of ``'systems'`` or
    ``'pairs'``: shape (B,) or (B, K) with K assignments per replicate.
    Formulas in the module docstring.

    Returns
    -------
    dict
        ``estimate_a``, ``estimate_b``, ``difference``, ``se``, ``low``,
        ``high``, ``p_value``, ``var_segments``, ``var_systems`` (from the
        ``'systems'`` or ``'pairs'`` replicates), ``var_within`` (the data part
        of each scheme's variance), ``var_partition`` (the largest of the
        schemes' assignment variances, 0 at M = 1), ``n_valid`` (fewest
        replicates with both coefficients defined, over the schemes).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> reps = {s: rng.normal(0.0, 0.02, 500) for s in ("segments", "systems", "within")}
    >>> same = paired_difference(0.4, 0.4, reps, reps)            # identical metrics
    >>> same["difference"], same["se"], same["p_value"]
    (0.0, 0.0, 1.0)
    >>> other = {s: v + rng.normal(0.0, 0.01, 500) for s, v in reps.items()}
    >>> d = paired_difference(0.45, 0.40, other, reps)
    >>> round(d["difference"], 2), d["p_value"] < 0.001, d["low"] > 0
    (0.05, True, True)
    """
    # the normal quantile and tail (scipy.stats' norm.ppf / norm.sf), without importing scipy.stats
    from scipy.special import ndtr, ndtri

    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0 < confidence < 1:
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}.")
    between = [s for s in ("systems", "pairs") if s in replicates_a and s in replicates_b]
    if len(between) != 1:
        raise InputError("replicates_a and replicates_b need the replicates of one of 'systems' or 'pairs' (the "
                         f"system side of the resampling); got {sorted(replicates_a)!r} and {sorted(replicates_b)!r}.")
    var, parts, n_valid = {}, [], []
    for scheme in ("segments", between[0], "within"):
        if scheme not in replicates_a or scheme not in replicates_b:
            raise InputError(f"replicates_a and replicates_b need the {scheme!r} replicates (resample="
                             f"{scheme!r} of protocol_bootstrap); got {sorted(replicates_a)!r}.")
        ra = np.asarray(replicates_a[scheme], dtype=np.float64)
        rb = np.asarray(replicates_b[scheme], dtype=np.float64)
        if ra.shape != rb.shape or ra.ndim not in (1, 2):
            raise InputError(f"replicates of {scheme!r} must be paired arrays (same draws) of shape (B,) or "
                             f"(B, K); got shapes {ra.shape} and {rb.shape}.")
        var["systems" if scheme == between[0] else scheme], v_part, n = _data_variance(ra - rb)
        parts.append(v_part)
        n_valid.append(n)
    diff = float(estimate_a) - float(estimate_b)
    total = var["segments"] + var["systems"] - var["within"]
    # a combination of three noisy variances can come out <= 0: then the larger one-way part
    v = (total if total > 0 else max(var["segments"], var["systems"], 0.0)) if math.isfinite(total) else math.nan
    se = math.sqrt(v) if math.isfinite(v) else math.nan
    if not math.isfinite(se) or not math.isfinite(diff):
        low = high = p = math.nan
    elif se == 0.0:
        low = high = diff
        p = 1.0 if diff == 0.0 else 0.0
    else:
        half = float(ndtri(0.5 + confidence / 2)) * se
        low, high = diff - half, diff + half
        p = float(2.0 * ndtr(-abs(diff) / se))
    return {"estimate_a": float(estimate_a), "estimate_b": float(estimate_b), "difference": diff, "se": se,
            "low": low, "high": high, "p_value": p, "var_segments": var["segments"], "var_systems": var["systems"],
            "var_within": var["within"], "var_partition": max(parts), "n_valid": min(n_valid)}
