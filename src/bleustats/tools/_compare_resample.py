r"""Grouped sums of per-segment statistics, for all data and for every bootstrap resample at once.

:func:`bleustats.tools.system_compare.compare` reduces every analysis to sums
of per-segment statistics over groups of segments (buckets): the corpus is one
group, a length bucket another. A *block* is one per-segment matrix
:math:`M` (n × k: every system's columns side by side) with a group id per
segment (or one group). For the data the sums are :math:`\sum_{i \in g} M_i`;
for the :math:`B` resamples of :func:`bleustats.metrics.base.bootstrap_draws`
(sacreBLEU's paired-bootstrap draws, shared by every block, bucket and system,
so that differences between systems are paired) they are
:math:`K_{:, g} M_{g, :}`: the segments are ordered by group once, the draws
are counted in that order (:func:`bleustats.metrics.base.draw_counts`), and
each group's columns of the count matrix :math:`K` multiply its rows only. A
partition into groups costs one product of the size of the corpus's, whatever
the number of buckets.

Examples
--------
>>> m = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 1.0]])
>>> block = Block("demo", m, np.array([0, 1, 0]), 2)
>>> block_sums([block], n_samples=0, seed=0)["demo"][0].tolist()
[[4.0, 1.0], [2.0, 1.0]]
>>> full, boot = block_sums([block], n_samples=5, seed=0)["demo"]
>>> boot.shape, bool((boot.sum(axis=1)[:, 0] >= 3).all())   # every resample holds 3 segments
((5, 2, 2), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..meta.paired import bootstrap_p_value
from ..meta.resample import generator_and_label
from ..metrics.base import bootstrap_draws, bootstrap_interval, draw_counts

__all__ = ["Block", "block_sums", "summarize"]


@dataclass(frozen=True)
class Block:
    """One per-segment statistics matrix and the group of each segment.

    Attributes
    ----------
    name : str
    matrix : numpy.ndarray, shape (n, k)
    groups : numpy.ndarray of int, shape (n,), or None
        Group ids 0..n_groups-1 (None: one group, the whole corpus).
    n_groups : int
    """

    name: str
    matrix: NDArray[np.float64]
    groups: NDArray[np.int64] | None
    n_groups: int = 1


def _exact_dtype(matrix: NDArray[np.float64]) -> Any:
    """float32 where every resampled sum is an integer below 2**24 (exact in float32), else float64."""
    if not len(matrix):
        return np.float64
    whole = bool(np.array_equal(matrix, np.rint(matrix)))
    bound = matrix.shape[0] * float(np.abs(matrix).max(initial=0.0))  # counts of a resample add up to n
    return np.float32 if whole and bound < 2 ** 24 else np.float64


def block_sums(blocks: list[Block], *, n_samples: int, seed: Any
               ) -> dict[str, tuple[NDArray[np.float64], NDArray[np.float64] | None]]:
    """Each block's sums per group: ``{name: (data (G, k), resamples (B, G, k) or None)}``.

    The resamples are drawn once (``numpy.random.default_rng(seed)``,
    :func:`bleustats.metrics.base.bootstrap_draws`) and shared by every block.
    A block whose resampled sums are integers below :math:`2^{24}` is summed
    in float32, exactly, twice as fast; the others in float64.
    """
    plans = {}
    out: dict[str, tuple[NDArray[np.float64], NDArray[np.float64] | None]] = {}
    for block in blocks:
        n = block.matrix.shape[0]
        if block.groups is None:
            order, bounds = np.arange(n), np.array([0, n])
        else:
            order = np.argsort(block.groups, kind="stable")
            bounds = np.searchsorted(block.groups[order], np.arange(block.n_groups + 1))
        ordered = np.ascontiguousarray(block.matrix[order], dtype=np.float64)
        full = np.stack([ordered[a:b].sum(axis=0) for a, b in zip(bounds[:-1], bounds[1:])])
        dtype = _exact_dtype(ordered)
        rank = None
        if block.groups is not None:  # a segment's column in the group-sorted counts
            rank = np.empty(n, np.int64)
            rank[order] = np.arange(n)
        plans[block.name] = (rank, bounds, ordered.astype(dtype), dtype)
        out[block.name] = (full, None)
    if n_samples <= 0 or not blocks:
        return out
    n = blocks[0].matrix.shape[0]
    boot = {b.name: np.zeros((n_samples, b.n_groups, b.matrix.shape[1])) for b in blocks}
    rng, _ = generator_and_label(seed)
    start = 0
    for draws in bootstrap_draws(rng, n_samples, n):
        c = draws.shape[0]
        counts: dict[Any, NDArray[Any]] = {}  # by (grouping, dtype): each count matrix made once per chunk
        for block in blocks:
            rank, bounds, ordered, dtype = plans[block.name]
            key = (id(block.groups), dtype)
            if key not in counts:
                counts[key] = draw_counts(draws, n, relabel=rank, dtype=dtype)
            k = counts[key]
            for g, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
                if b > a:
                    boot[block.name][start:start + c, g] = k[:, a:b] @ ordered[a:b]
        start += c
    return {name: (full, boot[name]) for name, (full, _) in out.items()}


def summarize(values: NDArray[np.float64], resampled: NDArray[np.float64] | None, baseline: int,
              defined: NDArray[np.bool_]) -> dict[str, NDArray[np.float64]]:
    r"""Intervals and paired p-values of per-system, per-group values from their resamples.

    Parameters
    ----------
    values : numpy.ndarray, shape (S, G)
        Each system's value of each group on all segments.
    resampled : numpy.ndarray, shape (S, B, G), or None
        The same on every resample (None: no bootstrap).
    baseline : int
        The system the others are tested against.
    defined : numpy.ndarray of bool, shape (G,) or (S, G)
        Where an interval and a test apply (a group with segments).

    Returns
    -------
    dict
        ``ci_low``, ``ci_high`` (S, G) (sacreBLEU's 95% interval,
        :func:`bleustats.metrics.base.bootstrap_interval`) and ``p_value``
        (S, G; :func:`bleustats.meta.paired.bootstrap_p_value` against the
        baseline, NaN for the baseline itself; 1 where a system's value equals
        the baseline's on the data and in every resample), NaN where not ``defined``.
    """
    shape = values.shape
    nan = np.full(shape, np.nan)
    if resampled is None:
        return {"ci_low": nan, "ci_high": nan.copy(), "p_value": nan.copy()}
    low, high = bootstrap_interval(resampled, axis=1)
    p = np.full(shape, np.nan)
    for s in range(shape[0]):
        if s != baseline:
            p[s] = bootstrap_p_value(resampled[baseline], resampled[s], np.abs(values[s] - values[baseline]))
            # equal in every resample (a word bucket no reference word is in, say): no difference to test;
            # sacreBLEU's strict comparison would report 1 / (B + 1)
            same = (resampled[s] == resampled[baseline]).all(axis=0) & (values[s] == values[baseline])
            p[s] = np.where(same, 1.0, p[s])
    mask = np.broadcast_to(defined, shape)
    return {"ci_low": np.where(mask, low, np.nan), "ci_high": np.where(mask, high, np.nan),
            "p_value": np.where(mask, p, np.nan)}
