r"""The ΔBLEU paper's correlation study (Galley et al., 2015, section 5), from cached statistics.

A metric is judged by how well its score *differences* between two systems
follow the human score differences, on random units of :math:`M` segments:

1. For every system pair :math:`(A, B)` (default: all pairs that share rated
   segments) the shared rated segments are cut at random into units of
   :math:`M` segments; the remainder is dropped. One such partition of every
   pair is an *assignment*.
2. Each unit :math:`U` gives one observation

   .. math::

       \big(\, m(A, U) - m(B, U),\ \ \bar h(A, U) - \bar h(B, U) \,\big)

   where :math:`\bar h` is the mean human score over the unit (several raters
   of a segment are averaged first), and :math:`m` is a corpus metric (BLEU,
   ΔBLEU) of the unit's *summed* statistics, or the mean of a
   sentence-level score over the unit (sBLEU).
3. Spearman's ρ and Kendall's τ over all :math:`N` observations of an
   assignment; reported: the mean over the assignments (default 1,000), the
   **same** assignments for every metric, with three intervals:
   (a) Fisher z of the mean on :math:`N` observations (the paper's intervals
   agree with this, e.g. ρ = .484 (.415, .546) at N ≈ 530; applied to τ as
   well, where the standard error :math:`1/\sqrt{N-3}` is conservative, since
   τ's sampling variance is smaller than r's),
   (b) percentiles of the per-assignment values,
   (c) a bootstrap over observations: replicate :math:`b` takes assignment
   :math:`b \bmod A`, draws its :math:`N` observations with replacement and
   recomputes the coefficient (so it covers both the partition and the
   sampling of units); percentiles of the replicates.

An assignment or replicate whose coefficient is undefined (one side constant)
is left out of the mean and the percentiles; the summary counts the
assignments left out (``rho_undefined``, ``tau_undefined``).

All units of all assignments are summed with one kernel call per pair
(:meth:`bleustats.meta.units.StudyCells.unit_differences`; columns shared by
several metrics, such as lengths and totals, are summed once) and scored by
the vectorized :func:`bleustats.metrics.formula.bleu_scores` formula (the same
bits as :func:`bleustats.metrics.formula.bleu_from_sums`); nothing is
re-tokenized or re-counted. Each assignment's observations are sorted once
per metric, and its coefficients and every bootstrap replicate of it come from
that order (:mod:`bleustats.meta.rank_stats`: a replicate is a vector of draw
counts, no copy and no new sort). At :math:`M = 1` every assignment gives the
same set of observations (each segment is its own unit), so the study is
computed once and says so (``StudyResult.n_distinct_assignments == 1``; the
percentile interval is then undefined, ``nan``); its 1,000 bootstrap
replicates are 1,000 weight vectors over that one sorted set.

**Paired comparisons** (``compare=[(label_a, label_b), ...]``): the difference
of two metrics' ρ and τ with an interval and a two-sided p-value from
bootstraps that redraw segments, system pairs and observations and rerun the
whole protocol with the same draws for every metric, combined so that each
source of variation counts once (:mod:`bleustats.meta.study_compare`, formulas
there); ``StudyResult.comparisons`` has one row per pair of metrics and
coefficient.

Randomness: ``seed`` makes a :class:`numpy.random.SeedSequence` split in three,
``part, boot, comp = SeedSequence(seed).spawn(3)``; pair :math:`p` (in the order of
``result.pairs``) is partitioned by ``unit_partitions(n_shared, M,
n_assignments=A, seed=part.spawn(P)[p])`` and the bootstrap draws are
``bootstrap_indices(N, B, seed=default_rng(boot))`` (drawn in blocks of
rows, which gives the same numbers); the comparisons draw from
``comp.spawn(3)`` (the segments, pairs and within schemes).
Changing ``n_bootstrap`` therefore leaves the assignments as they were, and
the work can run on several threads with identical results. Every number carries a signature
with the metric's settings and the study's (unit size, assignments, seed,
pairs, observations, confidence, bootstrap size, τ variant, version).

Exclusions are never silent: human rows with a NaN score are dropped and
counted; rated (system, segment) cells without a hypothesis in every metric
are an error unless ``unmatched='exclude'`` (then counted); segments left
over by the partition are counted per pair.

References
----------
.. [1] Galley, M., Brockett, C., Sordoni, A., Ji, Y., Auli, M., Quirk, C.,
   Mitchell, M., Gao, J., Dolan, B. (2015). ΔBLEU: a discriminative metric for
   generation tasks with intrinsically diverse targets. ACL, section 5,
   Table 2 and Figure 2.
.. [2] Papineni, K., Roukos, S., Ward, T., Zhu, W.-J. (2002). BLEU: a method
   for automatic evaluation of machine translation. ACL.
.. [3] Fisher, R. A. (1921). On the "probable error" of a coefficient of
   correlation deduced from a small sample. Metron 1.

Examples
--------
>>> import pandas as pd
>>> from bleustats.engine.stats import compute_stats
>>> hyps = pd.DataFrame({"seg_id": [0, 0, 1, 1, 2, 2, 3, 3], "system": ["A", "B"] * 4,
...                      "text": ["a b c d", "a b x d", "e f g h", "e f g h",
...                               "i j k l", "i x x l", "m n o p", "m n o q"]})
>>> refs = pd.DataFrame({"seg_id": [0, 1, 2, 3], "text": ["a b c d", "e f g h", "i j k l", "m n o p"]})
>>> stats = compute_stats(hyps, refs, tokenize="none", max_ngram_order=2)
>>> human = pd.DataFrame({"system": ["A", "B"] * 4, "seg_id": [0, 0, 1, 1, 2, 2, 3, 3],
...                       "score": [5.0, 2.0, 4.0, 4.0, 5.0, 1.0, 4.0, 3.0]})
>>> res = correlation_study([corpus_metric(stats)], human, unit_size=1, seed=0)
>>> res.n_observations, res.n_distinct_assignments
(4, 1)
>>> float(res.summary.loc[0, "rho"])
1.0
"""


from __future__ import annotations

import contextlib
import math
import os
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from .._validate import check_count, renamed_keywords
from .._version import __version__
from ..engine._threads import serial_kernels
from ..errors import InputError
from ..metrics.results import Signature
from .correlation import fisher_z_interval
from .rank_stats import dense_ranks, rank_rows, tau_from_counts
from .report import INTERVALS, records, table2
from .resample import unit_partitions
from .study_compare import paired_difference, protocol_bootstrap
from ._options import COMPARE_RESAMPLING, SWEEP_PARAMETERS
from .units import (HUMAN_COLUMNS, METRIC_KINDS, REF_VIEW_LABELS, UNMATCHED, StudyCells, UnitMetric, corpus_metric,
                    mean_metric, sentence_mean_metric, study_cells)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COMPARE_RESAMPLING",
    "COMPARISON_COLUMNS",
    "HUMAN_COLUMNS",
    "INTERVALS",
    "METRIC_KINDS",
    "PAPER_UNIT_SIZES",
    "REF_VIEW_LABELS",
    "SWEEP_PARAMETERS",
    "UNMATCHED",
    "StudyResult",
    "UnitMetric",
    "corpus_metric",
    "correlation_study",
    "mean_metric",
    "sentence_mean_metric",
    "sweep",
]

#: The unit sizes of the paper's Figure 2 (B).
PAPER_UNIT_SIZES = (1, 2, 5, 10, 20, 50, 100)
#: Columns of ``StudyResult.comparisons``.
COMPARISON_COLUMNS = ("metric_a", "metric_b", "correlation", "estimate_a", "estimate_b", "difference", "se", "low",
                      "high", "p_value", "var_segments", "var_systems", "var_within", "var_partition", "n_valid",
                      "n_bootstrap", "signature")

# bootstrap replicates are scored in blocks of at most this many entries (rows × N)
_BOOT_BLOCK = 1 << 21
# below this many sorted entries (assignments × N × metrics) every metric's sorted rows are held at once
_HOLD_ALL = 1 << 24
# bootstrap draw counts (replicates × N) kept for all metrics up to this many entries
_KEEP_COUNTS = 1 << 23
# below this many summed cells (cells × assignments) the pairs run on the calling thread
_THREADS_MIN = 1 << 16


def _check_options(unit_size, n_assignments, seed, confidence, n_bootstrap, kendall_variant, unmatched):
    for name, value, low in (("unit_size", unit_size, 1), ("n_assignments", n_assignments, 1),
                             ("seed", seed, 0), ("n_bootstrap", n_bootstrap, 0)):
        check_count(name, value, minimum=low)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)) \
            or not 0 < confidence < 1:
        raise InputError(f"confidence must be a number in (0, 1), e.g. 0.95; got {confidence!r}.")
    if kendall_variant not in ("b", "c"):
        raise InputError(f"kendall_variant must be 'b' or 'c'; got {kendall_variant!r}.")
    if unmatched not in UNMATCHED:
        raise InputError(f"unmatched must be 'error' or 'exclude'; got {unmatched!r}.")


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class StudyResult:
    """Correlations of every metric with the human scores, and how they were made.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per metric: ``label``, ``metric``, ``refs``, ``n_observations``,
        ``rho`` and ``tau`` (means over assignments) with ``*_fisher_low/high``,
        ``*_percentile_low/high``, ``*_bootstrap_low/high``, ``*_undefined``
        (assignments where the coefficient is undefined: a constant side),
        ``note`` (why ρ / τ are undefined in every assignment, e.g. constant
        human scores; empty otherwise, and a RuntimeWarning says it too),
        and ``signature`` (the metric's settings, then the study's, as a string).
    rho, tau : dict of str to numpy.ndarray
        Per-assignment coefficients of each metric (label → shape (A,)).
    pairs : pandas.DataFrame
        ``system_a``, ``system_b``, ``n_shared``, ``n_units``, ``n_dropped``.
    exclusions : dict
        ``human_nan_rows`` (ratings with a NaN score, dropped),
        ``human_without_hypothesis`` (rated cells some metric lacks, with
        ``unmatched='exclude'``), ``segments_dropped`` (partition remainders,
        summed over pairs, per assignment).
    unit_size, n_assignments, n_distinct_assignments, n_observations, seed : int
    confidence : float
    n_bootstrap : int
    kendall_variant : str
    signature : Signature
        The study's part of every signature.
    timings : dict
        Seconds per stage.
    comparisons : pandas.DataFrame or None
        With ``compare=``: one row per compared pair of metrics and coefficient
        (:data:`COMPARISON_COLUMNS`): the two estimates, their difference, its
        standard error, interval and two-sided p-value, and the variance
        components behind them (:mod:`bleustats.meta.study_compare`).
    """

    summary: "pd.DataFrame"
    rho: dict
    tau: dict
    pairs: "pd.DataFrame"
    exclusions: dict
    unit_size: int
    n_assignments: int
    n_distinct_assignments: int
    n_observations: int
    seed: int
    confidence: float
    n_bootstrap: int
    kendall_variant: str
    signature: Signature
    timings: dict = field(default_factory=dict)
    comparisons: "pd.DataFrame | None" = None

    def to_dict(self) -> dict[str, Any]:
        """Every number with its signature, as plain Python (for JSON)."""
        out = {
            "signature": str(self.signature),
            "unit_size": self.unit_size,
            "n_assignments": self.n_assignments,
            "n_distinct_assignments": self.n_distinct_assignments,
            "n_observations": self.n_observations,
            "seed": self.seed,
            "confidence": self.confidence,
            "n_bootstrap": self.n_bootstrap,
            "kendall_variant": self.kendall_variant,
            "exclusions": dict(self.exclusions),
            "pairs": records(self.pairs),
            "metrics": records(self.summary),
            "version": __version__,
        }
        if self.comparisons is not None:
            out["comparisons"] = records(self.comparisons)
        return out

    def assignments(self) -> "pd.DataFrame":
        """Per-assignment coefficients in long form: ``unit_size``, ``assignment``, ``label``, ``rho``, ``tau``.

        Examples
        --------
        >>> import pandas as pd
        >>> m = mean_metric(["A", "B"] * 4, [0, 0, 1, 1, 2, 2, 3, 3], [3.0, 1, 2, 2, 5, 0, 1, 2], metric="s")
        >>> h = pd.DataFrame({"system": ["A", "B"] * 4, "seg_id": [0, 0, 1, 1, 2, 2, 3, 3],
        ...                   "score": [2.0, 1, 1, 1, 3, 0, 0, 1]})
        >>> correlation_study([m], h, unit_size=2, n_assignments=3, n_bootstrap=0).assignments().shape
        (3, 5)
        """
        import pandas as pd

        frames = [pd.DataFrame({"unit_size": self.unit_size, "assignment": np.arange(len(self.rho[k])),
                                "label": k, "rho": self.rho[k], "tau": self.tau[k]}) for k in self.rho]
        return pd.concat(frames, ignore_index=True)

    @renamed_keywords(statistic="correlation")
    def table2(self, correlation: str = "rho", *, interval: str = "fisher", digits: int = 3) -> "pd.DataFrame":
        """The paper's Table 2: metric × reference view, ``value (low, high)`` strings."""
        return table2(self.summary, correlation=correlation, interval=interval, digits=digits)


# --------------------------------------------------------------------------- the study


def _interval(values: NDArray[np.float64], confidence: float) -> tuple[float, float]:
    v = values[np.isfinite(values)]
    if v.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(v, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def _boot_blocks(seed: np.random.SeedSequence, n_obs: int, n_bootstrap: int):
    """(first replicate, draw counts (rows, N)) per block; the draws of one big ``bootstrap_indices`` call."""
    rng = np.random.default_rng(seed)
    per_block = max(1, _BOOT_BLOCK // n_obs)
    for b0 in range(0, n_bootstrap, per_block):
        rows = min(per_block, n_bootstrap - b0)
        idx = rng.integers(0, n_obs, size=(rows, n_obs), dtype=np.int64)
        flat = (np.arange(rows, dtype=np.int64)[:, None] * n_obs + idx).ravel()
        yield b0, np.bincount(flat, minlength=rows * n_obs).reshape(rows, n_obs)


def _compare_pairs(compare: Any, labels: list[str]) -> list[tuple[str, str]]:
    if compare is None:
        return []
    out = []
    for c in compare:
        if not (isinstance(c, (tuple, list)) and len(c) == 2):
            raise InputError(f"compare must be a list of (label_a, label_b) pairs; got {c!r}.")
        a, b = str(c[0]), str(c[1])
        for x in (a, b):
            if x not in labels:
                raise InputError(f"compare: {x!r} is not a metric of the study; labels are {labels!r}.")
        if a == b:
            raise InputError(f"compare: {c!r} compares a metric with itself; name two different metrics.")
        if (a, b) not in out:
            out.append((a, b))
    return out


def correlation_study(
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | UnitMetric,
    human: "pd.DataFrame | pa.Table",
    *,
    unit_size: int = 100,
    n_assignments: int = 1000,
    seed: int = 0,
    pairs: Sequence[tuple[str, str]] | None = None,
    confidence: float = 0.95,
    n_bootstrap: int = 1000,
    kendall_variant: str = "b",
    unmatched: str = "error",
    compare: Sequence[tuple[str, str]] | None = None,
    n_compare_bootstrap: int | None = None,
    compare_resampling: str = "systems",
    n_threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> StudyResult:
    r"""Run the ΔBLEU paper's correlation protocol (Galley et al., 2015, section 5).

    For each assignment :math:`a` (a random partition of every pair's shared
    rated segments into units of :math:`M`) and metric :math:`m`:

    .. math::

        x_{a,U} = m(A, U) - m(B, U), \qquad
        y_{a,U} = \bar h(A, U) - \bar h(B, U), \qquad
        \bar\rho_m = \frac{1}{|\mathcal{A}|} \sum_{a} \rho\big(x_{a,\cdot}, y_{a,\cdot}\big)

    and the same for Kendall's τ; the intervals are described in the module
    docstring.

    Parameters
    ----------
    metrics : list of UnitMetric (or a mapping, or one)
        From :func:`corpus_metric`, :func:`sentence_mean_metric`,
        :func:`mean_metric`; labels must be unique.
    human : pandas.DataFrame or pyarrow.Table
        One row per rating: ``system``, ``seg_id`` (int), ``score`` (higher is
        better); extra columns (e.g. a rater id) are ignored. Ratings of a
        (system, segment) cell are averaged; NaN scores are dropped and counted.
    unit_size : int
        Segments per unit, M.
    n_assignments : int
        Number of random assignments (1 is used when ``unit_size == 1``).
    seed : int
        Seed of every random draw (recorded in the signature).
    pairs : list of (str, str), optional
        System pairs; default all pairs (in sorted system order) that share
        rated segments. An explicit pair must share at least M segments.
    confidence : float
        Level of the intervals.
    n_bootstrap : int
        Bootstrap replicates of interval (c); 0 skips it (``nan``).
    kendall_variant : {'b', 'c'}
        Kendall's τ variant (:func:`bleustats.meta.correlation.kendall_tau`).
    unmatched : {'error', 'exclude'}
        Rated (system, segment) cells that some metric has no row for: an
        error naming them, or left out and counted in ``exclusions``.
    compare : list of (str, str), optional
        Pairs of metric labels to compare (difference of ρ and of τ, interval
        and p-value; see :mod:`bleustats.meta.study_compare`).
    n_compare_bootstrap : int, optional
        Replicates of each resampling scheme of the comparison, at least 2
        (default ``n_bootstrap``, or 1,000 when that is below 2).
    compare_resampling : {'systems', 'pairs'}
        How the comparison samples system pairs: draw systems with replacement
        (every pair of drawn systems; the default, as pairs that share a
        system are not independent) or draw pairs.
    n_threads : int, optional
        Threads for the pairs' unit sums and scores (default: the CPU count).
        Above 1, the comparison's three resampling schemes also run on a
        thread each, beside the study, and every kernel runs serially while
        they do; with 1, the schemes run after the study and the sorts and
        coefficients use numba's threads (``numba.set_num_threads``). The
        result does not depend on either.
    progress : callable, optional
        Called as ``progress(done, total)`` after each pair, each metric and
        each of the comparison's three resamplings.

    Returns
    -------
    StudyResult

    Raises
    ------
    InputError
        Bad options; human scores for cells without a hypothesis (with
        ``unmatched='error'``); an unknown system or a pair with no shared
        rated segments; a pair sharing fewer than M segments; no pair at all;
        an unknown label in ``compare``.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = [(s, g) for g in range(6) for s in ("A", "B", "C")]
    >>> metric = mean_metric([s for s, _ in cells], [g for _, g in cells],
    ...                      [float((7 * g + 3 * "ABC".index(s)) % 5) for s, g in cells], metric="toy")
    >>> human = pd.DataFrame({"system": [s for s, _ in cells], "seg_id": [g for _, g in cells],
    ...                       "score": [float((g * "ABC".index(s)) % 3) for s, g in cells]})
    >>> res = correlation_study([metric], human, unit_size=2, n_assignments=50, seed=1)
    >>> res.pairs[["system_a", "system_b", "n_units"]].values.tolist()
    [['A', 'B', 3], ['A', 'C', 3], ['B', 'C', 3]]
    >>> round(float(res.summary.loc[0, "rho"]), 3), res.n_observations
    (0.319, 9)
    """
    import pandas as pd

    _check_options(unit_size, n_assignments, seed, confidence, n_bootstrap, kendall_variant, unmatched)
    if n_threads is not None and (isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer))
                                  or n_threads < 1):
        raise InputError(f"n_threads must be a positive integer or None; got {n_threads!r}.")
    if n_compare_bootstrap is not None:
        check_count("n_compare_bootstrap", n_compare_bootstrap, minimum=2)
    if compare_resampling not in COMPARE_RESAMPLING:
        raise InputError(f"compare_resampling must be 'systems' or 'pairs'; got {compare_resampling!r}.")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    cells = study_cells(metrics, human, pairs=pairs, unmatched=unmatched, unit_size=unit_size)
    metrics = cells.metrics
    labels = [m.label for m in metrics]
    to_compare = _compare_pairs(compare, labels)
    timings["inputs"] = time.perf_counter() - t0

    workers = n_threads or os.cpu_count() or 1
    part_ss, boot_ss, comp_ss = np.random.SeedSequence(seed).spawn(3)
    # the comparison's three resampling schemes start now, each on a thread of its own, beside the study
    n_cb = n_compare_bootstrap or (n_bootstrap if n_bootstrap >= 2 else 1000)
    schemes = ("segments", compare_resampling, "within")
    runs = _SchemeRuns(cells, sorted({labels.index(x) for pair in to_compare for x in pair}), schemes,
                       comp_ss.spawn(len(schemes)), workers,
                       unit_size=unit_size, n_bootstrap=n_cb, kendall_variant=kendall_variant,
                       n_partitions=2) if to_compare else None
    try:
        deterministic = unit_size == 1
        n_distinct = 1 if deterministic else n_assignments
        pair_seeds = part_ss.spawn(len(cells.pair_names))
        n_pairs = len(cells.pair_names)
        total_steps = n_pairs + len(metrics) + (3 if to_compare else 0)
        done = [0]

        def tick() -> None:
            done[0] += 1
            if progress is not None:
                progress(done[0], total_steps)

        t1 = time.perf_counter()

        def pair_observations(p: int) -> tuple[list[NDArray[np.float64]], NDArray[np.float64]]:
            n_p = len(cells.pair_a[p])
            if deterministic:
                units = np.arange(n_p, dtype=np.int64).reshape(1, n_p, 1)
            else:
                units = unit_partitions(n_p, unit_size, n_assignments=n_assignments, seed=pair_seeds[p])
            return cells.unit_differences(p, units, unit_size)

        x_parts: list[list[NDArray[np.float64]]] = [[] for _ in metrics]
        y_parts, pair_rows = [], []
        small = cells.n_cells * (1 if deterministic else n_assignments) < _THREADS_MIN
        with ThreadPoolExecutor(max_workers=1 if small else workers) as pool:
            results = map(pair_observations, range(n_pairs)) if small else pool.map(pair_observations, range(n_pairs))
            for p, (diffs, hy) in enumerate(results):
                for k, d in enumerate(diffs):
                    x_parts[k].append(d)
                y_parts.append(hy)
                n_p = len(cells.pair_a[p])
                a, b = cells.pair_names[p]
                pair_rows.append((a, b, n_p, n_p // unit_size, n_p % unit_size))
                tick()
        y = np.concatenate(y_parts, axis=1)
        n_obs = y.shape[1]
        xs = [np.concatenate(parts, axis=1) for parts in x_parts]
        del x_parts, y_parts
        timings["units"] = time.perf_counter() - t1

        sig = Signature.from_fields(
            ("study", "galley2015"), ("M", unit_size),
            ("assign", f"{n_assignments}{'(1 distinct)' if deterministic else ''}"), ("seed", seed),
            ("pairs", n_pairs), ("obs", n_obs), ("ci", f"{confidence:g}"), ("boot", n_bootstrap),
            ("tau", kendall_variant))
        t2 = time.perf_counter()
        for k, x in enumerate(xs):
            bad = ~np.isfinite(x)
            if bad.any():
                raise InputError(f"metrics: {metrics[k].label!r} gives {int(bad.sum())} non-finite unit score "
                                 "difference(s); check its values (NaN or infinite statistics).")
        per_assign: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
        boots = [(np.full(n_bootstrap if n_obs >= 2 else 0, np.nan), np.full(n_bootstrap if n_obs >= 2 else 0, np.nan))
                 for _ in metrics]
        if n_obs >= 2:
            y_ranks = dense_ranks(y)
            # metrics whose differences are identical (e.g. BLEU and ΔBLEU of one reference of weight 1, or
            # BLEU and sBLEU at M = 1) have identical coefficients: each distinct one is computed once
            same_as = _first_identical(xs)
            distinct = [k for k, r in enumerate(same_as) if r == k]
            hold_all = n_distinct * n_obs * len(distinct) <= _HOLD_ALL
            per_of: dict[int, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}

            def ranked_of(k: int):
                return rank_rows(xs[k], y, y_ranks=y_ranks)

            def add_boot(k: int, ranked, b0: int, counts: NDArray[np.int64]) -> None:
                stats = ranked.stats(counts, np.arange(b0, b0 + len(counts), dtype=np.int64) % n_distinct)
                boots[k][0][b0:b0 + len(counts)] = stats[:, 0]
                boots[k][1][b0:b0 + len(counts)] = tau_from_counts(stats, kendall_variant)

            def point(ranked) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
                stats = ranked.stats()
                return stats[:, 0].copy(), tau_from_counts(stats, kendall_variant)

            if hold_all:
                ranked_all = {k: ranked_of(k) for k in distinct}
                per_of = {k: point(r) for k, r in ranked_all.items()}
                if n_bootstrap:
                    for b0, counts in _boot_blocks(boot_ss, n_obs, n_bootstrap):
                        for k, r in ranked_all.items():
                            add_boot(k, r, b0, counts)
                del ranked_all
            else:
                # the draws are the same for every metric: kept when small, else drawn again per metric
                kept = list(_boot_blocks(boot_ss, n_obs, n_bootstrap)) \
                    if n_bootstrap and n_bootstrap * n_obs <= _KEEP_COUNTS else None
                for k in distinct:
                    r = ranked_of(k)
                    per_of[k] = point(r)
                    if n_bootstrap:
                        for b0, counts in (kept if kept is not None else _boot_blocks(boot_ss, n_obs, n_bootstrap)):
                            add_boot(k, r, b0, counts)
                    del r
                    tick()
            for k, r in enumerate(same_as):
                per_assign.append(per_of[k] if r == k else (per_of[r][0].copy(), per_of[r][1].copy()))
                if r != k:
                    boots[k] = (boots[r][0].copy(), boots[r][1].copy())
                if hold_all or r != k:
                    tick()
        else:
            per_assign = [(np.full(n_distinct, np.nan), np.full(n_distinct, np.nan)) for _ in metrics]
            for _ in metrics:
                tick()

        records_, rho_all, tau_all = [], {}, {}
        for k, m in enumerate(metrics):
            rec: dict[str, Any] = {"label": m.label, "metric": m.metric, "refs": m.refs, "n_observations": n_obs}
            for stat, values, boot in (("rho", per_assign[k][0], boots[k][0]), ("tau", per_assign[k][1], boots[k][1])):
                finite = values[np.isfinite(values)]
                mean = float(finite.mean()) if finite.size else math.nan
                rec[stat] = mean
                if np.isfinite(mean) and n_obs > 3:
                    lo, hi = fisher_z_interval(float(np.clip(mean, -1.0, 1.0)), n_obs, confidence=confidence)
                else:
                    lo, hi = math.nan, math.nan
                rec[f"{stat}_fisher_low"], rec[f"{stat}_fisher_high"] = float(lo), float(hi)
                lo, hi = _interval(values, confidence) if not deterministic else (math.nan, math.nan)
                rec[f"{stat}_percentile_low"], rec[f"{stat}_percentile_high"] = lo, hi
                rec[f"{stat}_bootstrap_low"], rec[f"{stat}_bootstrap_high"] = _interval(boot, confidence)
                rec[f"{stat}_undefined"] = int(values.size - finite.size)
            rec["note"] = _undefined_reason(xs[k], y, per_assign[k][0], per_assign[k][1])
            if rec["note"]:
                warnings.warn(f"{rec['label']}: {rec['note']}", RuntimeWarning, stacklevel=2)
            rec["signature"] = str(m.signature.with_extra(*sig.extra))
            records_.append(rec)
            rho_all[m.label], tau_all[m.label] = per_assign[k]
        timings["correlations"] = time.perf_counter() - t2
        summary = pd.DataFrame(records_)

        comparisons = None
        if to_compare:
            t3 = time.perf_counter()
            reps = dict(zip(schemes, runs.results(tick)))
            csig = sig.with_extra(("compare", f"segments+{compare_resampling}-within"), ("cboot", n_cb))
            rows = []
            for a, b in to_compare:
                ia, ib = labels.index(a), labels.index(b)
                for stat, col in (("rho", 0), ("tau", 1)):
                    res = paired_difference(summary.loc[ia, stat], summary.loc[ib, stat],
                                            {sc: reps[sc][ia][col] for sc in schemes},
                                            {sc: reps[sc][ib][col] for sc in schemes}, confidence=confidence)
                    rows.append({"metric_a": a, "metric_b": b, "correlation": stat, **res, "n_bootstrap": n_cb,
                                 "signature": str(csig)})
            comparisons = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
            timings["comparisons"] = time.perf_counter() - t3
    finally:
        if runs is not None:
            runs.close()

    pairs_df = pd.DataFrame(pair_rows, columns=["system_a", "system_b", "n_shared", "n_units", "n_dropped"])
    exclusions = {**cells.exclusions, "segments_dropped": int(pairs_df["n_dropped"].sum())}
    return StudyResult(
        summary=summary, rho=rho_all, tau=tau_all, pairs=pairs_df, exclusions=exclusions,
        unit_size=int(unit_size), n_assignments=int(n_assignments), n_distinct_assignments=n_distinct,
        n_observations=int(n_obs), seed=int(seed), confidence=float(confidence), n_bootstrap=int(n_bootstrap),
        kendall_variant=kendall_variant, signature=sig, timings=timings, comparisons=comparisons,
    )


class _SchemeRuns:
    """:func:`protocol_bootstrap` of each resampling scheme, on worker threads while the study goes on.

    Each scheme has its own seeds, so the numbers are those of running them in
    turn. With one worker they run in turn on the caller's thread, in
    :meth:`results`. A worker stops at its next check (between blocks,
    assignments and metrics) once :meth:`close` is called. Call :meth:`close`
    on the thread that made the object.
    """

    def __init__(self, cells: StudyCells, metrics: list[int], schemes: Sequence[str],
                 seeds: Sequence[np.random.SeedSequence], workers: int, **options: Any) -> None:
        self._stop = threading.Event()
        self._calls = [(scheme, ss) for scheme, ss in zip(schemes, seeds)]
        self._args = (cells, metrics, options)
        self._pool = ThreadPoolExecutor(max_workers=len(schemes)) if workers > 1 else None
        self._jobs = [self._pool.submit(self._run, scheme, ss, True) for scheme, ss in self._calls] \
            if self._pool is not None else None
        # while they run, the caller's kernels are serial too: the threads already fill the CPUs
        self._caller_serial = serial_kernels() if self._pool is not None else contextlib.nullcontext()
        self._caller_serial.__enter__()

    def _run(self, scheme: str, ss: np.random.SeedSequence, on_worker: bool) -> dict:
        cells, metrics, options = self._args
        if not on_worker:
            return protocol_bootstrap(cells, metrics, seed=ss, resample=scheme, **options)
        with serial_kernels():  # the threads are the parallelism
            return protocol_bootstrap(cells, metrics, seed=ss, resample=scheme, stop=self._stop, **options)

    def results(self, tick: Callable[[], None]) -> Iterable[dict]:
        """Each scheme's replicates in scheme order (waiting for its thread), ``tick()`` after each."""
        for k, (scheme, ss) in enumerate(self._calls):
            yield self._jobs[k].result() if self._jobs is not None else self._run(scheme, ss, False)
            tick()

    def close(self) -> None:
        """Stop the threads still running (at their next check) and wait for them."""
        self._stop.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._caller_serial.__exit__(None, None, None)


def _first_identical(xs: list[NDArray[np.float64]]) -> list[int]:
    """For each array, the index of the first array equal to it (itself when none before it is)."""
    first: list[int] = []
    for k, x in enumerate(xs):
        first.append(next((r for r in range(k) if first[r] == r and xs[r].shape == x.shape
                           and np.array_equal(xs[r][..., :64], x[..., :64]) and np.array_equal(xs[r], x)), k))
    return first


def _undefined_reason(x: NDArray[np.float64], y: NDArray[np.float64], rho: NDArray, tau: NDArray) -> str:
    """Why ρ and τ are undefined in every assignment ('' when some assignment has a value)."""
    if np.isfinite(rho).any() or np.isfinite(tau).any():
        return ""
    if y.shape[-1] < 2:
        return f"ρ and τ are undefined: {y.shape[-1]} observation(s); a correlation needs at least 2"
    if np.ptp(y) == 0:
        same = " (every system pair rated the same)" if float(y.flat[0]) == 0 else ""
        return (f"ρ and τ are undefined: the human score differences are constant, {float(y.flat[0]):g} in all "
                f"{y.shape[-1]} observations{same}, so nothing can correlate with them")
    if np.all(np.ptp(x, axis=-1) == 0):
        return ("ρ and τ are undefined: the metric's differences are constant within every assignment "
                "(e.g. identical system outputs)")
    return "ρ and τ are undefined: every assignment has a constant side (metric or human differences)"


# --------------------------------------------------------------------------- sweeps (Figure 2)


def sweep(
    parameter: str,
    values: Iterable[Any],
    metrics: Sequence[UnitMetric] | Mapping[str, UnitMetric] | Callable[[Any], Any],
    human: "pd.DataFrame | pa.Table",
    *,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> "pd.DataFrame":
    r"""One panel of the paper's Figure 2: the study repeated over a parameter's values.

    ``parameter='unit_size'`` passes each value as ``unit_size``;
    ``'threshold'`` and ``'max_ngram_order'`` call ``metrics(value)`` to build the
    metrics of that value (e.g. statistics computed with
    ``weight_threshold=value``, or :func:`corpus_metric` with
    ``max_ngram_order=value``). The seed is the same for every value (common random
    numbers), so differences between values are not partition noise.

    Parameters
    ----------
    parameter : {'threshold', 'unit_size', 'max_ngram_order'}
    values : iterable
    metrics : list of UnitMetric, or callable value → metrics
    human : pandas.DataFrame or pyarrow.Table
    **options
        Passed to :func:`correlation_study`.

    Returns
    -------
    pandas.DataFrame
        The summaries stacked, with columns ``parameter`` and ``value`` first.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = [(s, g) for g in range(8) for s in ("A", "B")]
    >>> m = mean_metric([s for s, _ in cells], [g for _, g in cells], [float(g % 3) for _, g in cells], metric="t")
    >>> human = pd.DataFrame({"system": [s for s, _ in cells], "seg_id": [g for _, g in cells],
    ...                       "score": [float(g % 3 + (s == "A")) for s, g in cells]})
    >>> sweep("unit_size", [1, 2], [m], human, n_assignments=5)[["value", "n_observations"]].values.tolist()
    [[1, 8], [2, 4]]
    """
    import pandas as pd

    if parameter not in SWEEP_PARAMETERS:
        raise InputError(f"parameter must be one of {', '.join(map(repr, SWEEP_PARAMETERS))}; got {parameter!r}.")
    values = list(values)
    if not values:
        raise InputError("values: give at least one value to sweep over.")
    if parameter != "unit_size" and not callable(metrics):
        raise InputError(f"metrics: sweeping {parameter!r} needs a callable value → metrics (each value changes "
                         f"the statistics); got {type(metrics).__name__}.")
    if "unit_size" in options and parameter == "unit_size":
        raise InputError("unit_size: it is the swept parameter; pass the sizes as values.")
    frames = []
    for i, v in enumerate(values):
        ms = metrics(v) if callable(metrics) else metrics
        opts = dict(options, unit_size=v) if parameter == "unit_size" else options
        res = correlation_study(ms, human, **opts)
        f = res.summary.copy()
        f.insert(0, "value", v)
        f.insert(0, "parameter", parameter)
        frames.append(f)
        if progress is not None:
            progress(i + 1, len(values))
    return pd.concat(frames, ignore_index=True)


