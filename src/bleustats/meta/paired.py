r"""Paired significance tests of systems on the same segments (sacreBLEU's --paired-bs / --paired-ar).

Everything here resamples per-segment statistics, never the texts. A bootstrap
resample of a corpus of :math:`n` segments is a count vector
:math:`k \in \mathbb{N}^n` (how often each segment was drawn); its corpus
statistics are :math:`k^\top S` for the segment statistics matrix :math:`S`,
so :math:`B` resamples are one matrix product :math:`K S` followed by the
vectorized BLEU formula on the :math:`B` rows of sums.
:func:`paired_bootstrap` and :func:`paired_approximate_randomization` compare
two systems scored on the same segments and reproduce sacreBLEU 2.x's
numbers exactly (same seed, same draws, same p-value and confidence-interval
formulas). They take any statistics source (:mod:`bleustats.engine.protocol`):
an in-memory table or a partitioned dataset, whose parts are filtered where
they lie so that only the two systems' rows travel (named systems), the same
draws on the same matrices and so the same numbers, bit for bit.
:class:`PairedTest` / :class:`Result` are sacreBLEU's object API for many
systems against a baseline under ``BLEU`` / ``CHRF`` / ``TER`` objects.
Comparing two *metrics* against human scores is :mod:`bleustats.meta.compare`.

References
----------
.. [1] Koehn, P. (2004). Statistical significance tests for machine
   translation evaluation. EMNLP.
.. [2] Riezler, S., Maxwell, J. T. (2005). On some pitfalls in automatic
   evaluation and significance testing for MT. ACL workshop.
.. [3] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT;
   sacreBLEU 2.x ``sacrebleu/significance.py``.

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> import pandas as pd
>>> refs = ["the cat sat on the mat", "a dog ran in the park", "it is raining in paris today"]
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 2] * 2, "system": ["A"] * 3 + ["B"] * 3,
...                      "text": refs + ["the cat sat on a mat", "a dog ran to the park", "it rains in paris today"]})
>>> stats = compute_stats(hyps, pd.DataFrame({"seg_id": [0, 1, 2], "text": refs}))
>>> res = paired_bootstrap(stats, "A", "B", n_samples=100)
>>> round(res.baseline_score, 2), round(res.system_score, 2), round(res.p_value, 4)
(100.0, 36.06, 0.0099)
>>> f"{res.system_mean:.2f} ± {res.system_ci:.2f}"
'36.95 ± 13.13'

"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_choice, check_count
from ..engine.dataset import system_mask
from ..engine.protocol import StatsSource
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics.tables import (OTHER_METRICS, TABLE_METRICS, check_delta_defined, corpus_score, score_signature,
                              statistics_matrix, table_metric)
from ..metrics.formula import bleu_scores, check_scoring_options
from ..metrics.base import Metric, bootstrap_sums, chunk_rows, estimate_ci, sacrebleu_seed
from ..metrics.base import Signature as MetricSignature
from ..metrics.results import Signature
from .resample import generator_and_label

__all__ = ["PairedTest", "PairedTestResult", "Result", "bootstrap_p_value", "estimate_ci",
           "paired_approximate_randomization", "paired_bootstrap"]

#: Scores of rows of summed statistics; the flag asks for sacreBLEU's float32 bootstrap arithmetic.
Scorer = Callable[[NDArray[np.float64], bool], NDArray[Any]]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of a paired test between a baseline and a system on the same segments.

    Attributes
    ----------
    test : {'paired-bs', 'paired-ar'}
    metric : {'bleu', 'delta_bleu', 'chrf', 'chrf++', 'ter'}
    baseline_score, system_score : float
        Corpus scores of all segments (as :func:`bleustats.corpus_score`).
    p_value : float
        sacreBLEU's two-sided p-value for "the difference is due to chance".
    baseline_mean, baseline_ci, system_mean, system_ci : float or None
        Mean of the bootstrap distribution and half the width of its 95%
        interval (sacreBLEU's ``μ ± 95% CI``); ``None`` when not estimated
        (approximate randomization with ``n_confidence <= 0``).
    n_segments, n_samples : int
    n_confidence : int
        Bootstrap resamples behind the means and intervals (0 if none).
    seed : int, None or str
        The seed (``'generator'`` when a ``numpy.random.Generator`` was given).
    signature : Signature
        Statistics and scoring settings plus ``bs:``/``ar:`` and ``seed:``.
    """

    test: str
    metric: str
    baseline_score: float
    system_score: float
    p_value: float
    baseline_mean: float | None
    baseline_ci: float | None
    system_mean: float | None
    system_ci: float | None
    n_segments: int
    n_samples: int
    n_confidence: int
    seed: int | None | str
    signature: Signature

    @property
    def difference(self) -> float:
        """system_score - baseline_score."""
        return self.system_score - self.baseline_score

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain Python (for JSON)."""
        return asdict(self)


# --------------------------------------------------------------------------- helpers


def _seed_label(label: int | None | str) -> str:
    return str(label).lower()


def _rows_of(stats: StatsTable, rows: Any, name: str) -> NDArray[np.int64]:
    if isinstance(rows, str):
        mask = stats.column("system") == rows
        if not mask.any():
            known = np.unique(stats.column("system"))
            shown = ", ".join(map(repr, known[:10])) + (" ..." if len(known) > 10 else "")
            raise InputError(f"{name}: no row has system {rows!r}; systems in the table: {shown}.")
        idx = np.flatnonzero(mask)
        return idx[np.argsort(stats.column("seg_id")[idx], kind="stable")]
    arr = np.asarray(rows)
    if arr.dtype == bool:
        if arr.shape != (len(stats),):
            raise InputError(f"{name}: a boolean mask needs one entry per row ({len(stats)}); got shape "
                             f"{arr.shape}.")
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise InputError(f"{name} must be a system name, a boolean mask or a 1-D integer index array; got "
                         f"{type(rows).__name__} with dtype {arr.dtype} and shape {arr.shape}.")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= len(stats)):
        raise InputError(f"{name}: row indices must be in [0, {len(stats)}); got min {arr.min()}, "
                         f"max {arr.max()}.")
    return arr


def _two_systems(stats: StatsSource, baseline_rows: Any, system_rows: Any) -> tuple[StatsTable, str]:
    """The rows the test reads, in memory, and the whole source's reference count for the signature.

    Two named systems: only their rows (a partitioned source filters its parts
    where they lie). Masks and row indices address the whole table, which is
    then read (:meth:`~bleustats.engine.protocol.StatsSource.to_table`; an
    in-memory table is itself).
    """
    if not (isinstance(baseline_rows, str) and isinstance(system_rows, str)):
        return stats.to_table(), stats.n_refs_label
    table = stats.where(system_mask, systems=[baseline_rows, system_rows])
    found = set(np.unique(table.column("system")).tolist()) if len(table) else set()
    for which, name in (("baseline_rows", baseline_rows), ("system_rows", system_rows)):
        if name not in found:
            known = stats.systems()
            shown = ", ".join(map(repr, known[:10])) + (" ..." if len(known) > 10 else "")
            raise InputError(f"{which}: no row has system {name!r}; systems in the table: {shown}.")
    return table, stats.n_refs_label


def _paired_rows(stats: StatsTable, baseline_rows: Any, system_rows: Any
                 ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    b = _rows_of(stats, baseline_rows, "baseline_rows")
    s = _rows_of(stats, system_rows, "system_rows")
    if len(b) != len(s) or len(b) == 0:
        raise InputError(f"baseline_rows and system_rows must select the same number of segments (>= 1), "
                         f"aligned by position; got {len(b)} and {len(s)}.")
    seg = stats.column("seg_id")
    bad = np.flatnonzero(seg[b] != seg[s])
    if bad.size:
        i = bad[0]
        raise InputError(f"baseline_rows and system_rows must be aligned by segment: position {i} has "
                         f"seg_id {seg[b][i].item()!r} vs {seg[s][i].item()!r} ({bad.size} mismatches). Order both "
                         "selections by seg_id.")
    return b, s


def _scoring_settings(stats: StatsTable, rows: Sequence[NDArray[np.int64]], metric: str, smooth_method: str,
                      smooth_value: Any, ref_length: str) -> None:
    if check_choice("metric", metric, TABLE_METRICS) in OTHER_METRICS:
        table_metric(stats, metric)  # the table has the columns
        return
    check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                          ref_length=ref_length)
    if metric == "delta_bleu":
        for r in rows:
            check_delta_defined(stats, r)


def _stats_matrix(stats: StatsTable, metric: str, ref_length: str) -> NDArray[np.float64]:
    """(rows, 2 + 2N): hyp_len, ref_len, numerators, denominators (sacreBLEU's layout)."""
    correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=metric, ref_length=ref_length)
    return np.column_stack([hyp_len, ref_len, correct, total]).astype(np.float64)


def _scores(sums: NDArray[np.float64], n_order: int, metric: str, smooth_method: str,
            smooth_value: float | None, use_effective_order: bool, float32: bool) -> NDArray[np.float64]:
    """Corpus scores of rows of summed statistics in sacreBLEU's layout (:func:`_stats_matrix`).

    ``float32=True`` rounds the statistics and every precision step to float32, as
    sacreBLEU's bootstrap does (see :func:`bleustats.metrics.formula.bleu_scores`).
    """
    correct = sums[:, 2:2 + n_order]
    if metric == "delta_bleu":
        correct = np.maximum(correct, 0.0)
    return bleu_scores(correct, sums[:, 2 + n_order:], sums[:, 0], sums[:, 1], smooth_method=smooth_method,
                       smooth_value=smooth_value, use_effective_order=use_effective_order, float32=float32)


def bootstrap_p_value(baseline_scores: ArrayLike, system_scores: ArrayLike, difference: ArrayLike
                      ) -> float | NDArray[np.float64]:
    r"""The paired bootstrap p-value of sacreBLEU's ``--paired-bs`` from both systems' resampled scores.

    With :math:`\delta` the absolute difference of the two systems' scores on
    all segments and :math:`\delta_i = |s_i - b_i|` on resample :math:`i`
    (the same draws for both), the differences are centred to simulate the
    null hypothesis and

    .. math::

        p = \frac{1 + \#\{i : \delta_i - \bar\delta > \delta\}}{1 + B}

    (sacreBLEU after multeval: strictly greater, one added above and below).

    Parameters
    ----------
    baseline_scores, system_scores : array_like, shape (B, ...)
        Resampled scores, resamples along the first axis; several columns
        (groups, metrics) are tested at once.
    difference : float or array_like, shape (...)
        :math:`\delta` of each column.

    Returns
    -------
    float, or numpy.ndarray of shape (...) for 2-D or larger scores

    Examples
    --------
    >>> b, s = np.array([10.0, 11.0, 12.0, 13.0]), np.array([12.0, 12.0, 15.0, 14.0])
    >>> bootstrap_p_value(b, s, 1.5)   # deltas 2, 1, 3, 1 (mean 1.75): none above 1.5 once centred
    0.2
    """
    deltas = np.abs(np.asarray(system_scores) - np.asarray(baseline_scores))
    # a Python number is compared as given (NumPy's rules then keep float32 scores in float32, as sacreBLEU's)
    real = np.asarray(difference) if isinstance(difference, (list, tuple)) else difference
    above = np.sum(deltas - deltas.mean(axis=0) > real, axis=0)
    if deltas.ndim == 1:
        return (int(above) + 1) / (len(deltas) + 1)
    return (above + 1.0) / (deltas.shape[0] + 1)


def _matrix_and_scorer(stats: StatsTable, metric: str, smooth_method: str, smooth_value: float | None,
                       use_effective_order: bool, ref_length: str) -> tuple[NDArray[np.float64], Scorer]:
    """The per-row statistics matrix of ``metric`` and the vectorized score of its sums."""
    if metric in OTHER_METRICS:
        obj, mat = table_metric(stats, metric)
        return np.asarray(mat, dtype=np.float64), lambda sums, f32: obj.scores_from_sums(sums, float32=f32)
    n_order = stats.max_ngram_order

    def scorer(sums: NDArray[np.float64], float32: bool) -> NDArray[np.float64]:
        return _scores(sums, n_order, metric, smooth_method, smooth_value, use_effective_order, float32)

    return _stats_matrix(stats, metric, ref_length), scorer


# --------------------------------------------------------------------------- the tests on matrices


def bootstrap_comparisons(rng: np.random.Generator, n_samples: int,
                          pairs: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
                          scorers: Sequence[Scorer], differences: Sequence[float], *, float32: bool = True
                          ) -> list[tuple[float, tuple[float, float], tuple[float, float]]]:
    r"""Paired bootstrap tests of several metrics on one set of draws (sacreBLEU's ``_paired_bs_test``).

    Every ``(baseline, system)`` matrix pair (per-segment statistics, the same
    segments in the same order) is resampled with the same
    ``rng.choice(n, size=(n_samples, n))`` draws (:func:`bleustats.metrics.base.bootstrap_sums`),
    scored by its scorer, and tested: with :math:`\delta` the real absolute
    difference and :math:`\delta_i = |s_i - b_i|`,
    :math:`p = (1 + \#\{i: \delta_i - ar\delta > \delta\}) / (1 + B)`.

    Returns
    -------
    list of (p, (baseline mean, ci), (system mean, ci))
        One per pair.
    """
    sums = bootstrap_sums(rng, n_samples, [m for pair in pairs for m in pair])
    out = []
    for i, (score, diff) in enumerate(zip(scorers, differences)):
        scores_b, scores_s = score(sums[2 * i], float32), score(sums[2 * i + 1], float32)
        out.append((bootstrap_p_value(scores_b, scores_s, diff), estimate_ci(scores_b), estimate_ci(scores_s)))
    return out


def approximate_randomization_counts(rng: np.random.Generator, n_samples: int,
                                     pairs: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
                                     scorers: Sequence[Scorer], differences: Sequence[float]) -> list[int]:
    r"""Trials whose shuffled difference beats the real one, per metric, on one set of swaps.

    Each trial swaps the two systems' rows on a random half of the segments
    (``rng.integers(2, size=(n_samples, n), dtype=bool)``, drawn in chunks that
    consume the generator as one draw does); the count is
    :math:`\#\{i : |a_i - b_i| > \delta\}` (sacreBLEU's ``_paired_ar_test``;
    :math:`p = (\mathrm{count} + 1) / (B + 1)`). Scores are float64, as there.
    """
    n = pairs[0][0].shape[0]
    widths = [bl.shape[1] for bl, _ in pairs]
    # a trial's sums: pos @ bl + (1 - pos) @ sy = pos @ (bl - sy) + sum(sy), and the other
    # system gets the rest of bl + sy; exact integer arithmetic in float64, as sacreBLEU's int64
    swing = np.hstack([bl - sy for bl, sy in pairs])
    sy_sum = np.concatenate([sy.sum(axis=0) for _, sy in pairs])
    both_sum = np.concatenate([bl.sum(axis=0) + sy.sum(axis=0) for bl, sy in pairs])
    cuts = np.cumsum(widths)[:-1]
    counts = [0] * len(pairs)
    step = chunk_rows(n)
    for start in range(0, n_samples, step):
        c = min(step, n_samples - start)
        pos = rng.integers(2, size=(c, n), dtype=bool).astype(np.float64)
        sums_a = pos @ swing + sy_sum
        for i, (a, b) in enumerate(zip(np.split(sums_a, cuts, axis=1), np.split(both_sum - sums_a, cuts, axis=1))):
            counts[i] += int(np.sum(np.abs(scorers[i](a, False) - scorers[i](b, False)) > differences[i]))
    return counts


def _signature(stats: StatsTable, metric: str, smooth_method: str, smooth_value: float | None,
               use_effective_order: bool, ref_length: str, *extra: tuple[str, Any]) -> Signature:
    if metric in OTHER_METRICS:  # the chrF / TER signature's fields, then the test's
        info = table_metric(stats, metric)[0].get_signature().info
        fields = [(k, ("yes" if v else "no") if isinstance(v, bool) else v) for k, v in info.items()
                  if v is not None and k != "version"]
        sig = Signature.from_fields(("metric", metric), *[(k, v) for k, v in fields if k != "nrefs"])
        extra = (*[(k, v) for k, v in fields if k == "nrefs"], *extra)
    else:
        sig = score_signature(stats, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              use_effective_order=use_effective_order, ref_length=ref_length)
    for key, value in extra:  # as sacreBLEU's paired test: bs / ar / seed stand right after nrefs
        sig.update(key, str(value))
    return sig


# --------------------------------------------------------------------------- paired system tests


def paired_bootstrap(
    stats: StatsSource,
    baseline_rows: str | ArrayLike,
    system_rows: str | ArrayLike,
    *,
    metric: str = "bleu",
    n_samples: int = 1000,
    seed: int | None | np.random.Generator = 12345,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
    float32: bool | None = None,
) -> PairedTestResult:
    r"""Paired bootstrap resampling test (Koehn, 2004), as sacreBLEU's ``--paired-bs``.

    Draws ``n_samples`` resamples of the segment indices with
    ``numpy.random.defaultgenerator_and_label(seed).choice(n, size=(n_samples, n))`` (one
    draw shared by both systems), scores both systems on each, and with
    :math:`\delta = |s - b|` on the full corpus and
    :math:`\delta_i = |s_i - b_i|` on resample :math:`i`,

    .. math::

        p = \frac{1 + \#\{i : \delta_i - \bar\delta > \delta\}}{1 + B}

    (the differences are centred to simulate the null hypothesis). Means and
    intervals are :func:`estimate_ci` of each system's bootstrap scores.

    Parameters
    ----------
    stats : StatsTable or StatsDataset
        Holds both systems' rows (any statistics source,
        :class:`~bleustats.engine.protocol.StatsSource`; of a partitioned
        dataset, give system names: only their rows are read).
    baseline_rows, system_rows : str or array_like
        A system name (its rows, ordered by ``seg_id``), a boolean mask or an
        index array; the two selections are paired by position and must have
        the same ``seg_id`` at every position.
    metric : {'bleu', 'delta_bleu', 'chrf', 'chrf++', 'ter'}
        chrF / TER need their columns in ``stats`` (``compute_stats(..., metrics=...)``).
    n_samples : int
        Bootstrap resamples (sacreBLEU's default 1000).
    seed : int, None or numpy.random.Generator
        sacreBLEU's ``SACREBLEU_SEED`` (default 12345; ``None`` draws fresh
        entropy). sacreBLEU turns seed 0 into "unseeded" for the test itself;
        here 0 is an ordinary seed.
    smooth_method, smooth_value, use_effective_order, ref_length
        As in :func:`bleustats.corpus_score`.
    float32 : bool, optional
        sacreBLEU computes bootstrap scores from float32 statistics, so its
        precisions are rounded to float32 (score differences ~1e-6). ``True``
        reproduces that exactly (the default for ``'bleu'``); ``False`` scores
        every resample in float64 as :func:`bleustats.corpus_score` would
        (the default for ``'delta_bleu'``, which sacreBLEU does not have).
        Exact agreement with sacreBLEU also needs summed counts below
        :math:`2^{24}` (sacreBLEU's float32 sums round above that).

    Returns
    -------
    PairedTestResult
        ``test='paired-bs'``.

    References
    ----------
    .. [1] Koehn, P. (2004). Statistical significance tests for machine
       translation evaluation. EMNLP.
    .. [2] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT;
       sacreBLEU 2.x ``significance._paired_bs_test``.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
    ...                      "text": ["a b c d", "e f g h", "a b c x", "e f g h"]})
    >>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "e f g h"]})
    >>> res = paired_bootstrap(compute_stats(hyps, refs), "A", "B", n_samples=50, seed=1)
    >>> round(res.baseline_score, 2), round(res.system_score, 2), str(res.signature).split("|")[:3]
    (100.0, 72.31, ['nrefs:1', 'bs:50', 'seed:1'])
    """
    n_samples = check_count("n_samples", n_samples, minimum=1)
    stats, nrefs = _two_systems(stats, baseline_rows, system_rows)
    b_rows, s_rows = _paired_rows(stats, baseline_rows, system_rows)
    _scoring_settings(stats, (b_rows, s_rows), metric, smooth_method, smooth_value, ref_length)
    f32 = (metric != "delta_bleu") if float32 is None else bool(float32)
    rng, label = generator_and_label(seed)
    kw = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order, ref_length=ref_length)
    bl_score = corpus_score(stats, rows=b_rows, **kw).score
    sys_score = corpus_score(stats, rows=s_rows, **kw).score
    mat, scorer = _matrix_and_scorer(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length)
    ((p, (bl_mean, bl_ci), (sys_mean, sys_ci)),) = bootstrap_comparisons(
        rng, n_samples, [(mat[b_rows], mat[s_rows])], [scorer], [abs(bl_score - sys_score)], float32=f32)
    return PairedTestResult(
        test="paired-bs", metric=metric, baseline_score=bl_score, system_score=sys_score, p_value=p,
        baseline_mean=bl_mean, baseline_ci=bl_ci, system_mean=sys_mean, system_ci=sys_ci,
        n_segments=len(b_rows), n_samples=n_samples, n_confidence=n_samples, seed=label,
        signature=_signature(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length,
                             ("bs", n_samples), ("seed", _seed_label(label))).with_nrefs(nrefs),
    )


def paired_approximate_randomization(
    stats: StatsSource,
    baseline_rows: str | ArrayLike,
    system_rows: str | ArrayLike,
    *,
    metric: str = "bleu",
    n_samples: int = 10000,
    n_confidence: int = -1,
    seed: int | None | np.random.Generator = 12345,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    ref_length: str = "closest",
    float32: bool | None = None,
) -> PairedTestResult:
    r"""Paired approximate randomization test (Riezler & Maxwell, 2005), as sacreBLEU's ``--paired-ar``.

    Each trial swaps the two systems' outputs on a random half of the
    segments (``rng.integers(2, size=(n_samples, n), dtype=bool)``); with
    :math:`a_i`, :math:`b_i` the scores of the two shuffled pseudo-systems and
    :math:`\delta = |s - b|`,

    .. math::

        p = \frac{1 + \#\{i : |a_i - b_i| > \delta\}}{1 + B}

    The comparison is strict, as in sacreBLEU and multeval, so a system
    tested against itself gets :math:`p = 1/(B + 1)`, not 1.

    Parameters
    ----------
    stats, baseline_rows, system_rows, metric, smooth_method, smooth_value, use_effective_order, ref_length
        As in :func:`paired_bootstrap`.
    n_samples : int
        Trials (sacreBLEU's default 10000).
    n_confidence : int
        Bootstrap resamples for means and 95% intervals (sacreBLEU's
        ``--paired-ar-confidence-n``); ``<= 0`` skips them. As in sacreBLEU,
        the system's resamples are drawn from the test's generator after the
        trials, the baseline's from a fresh generator with the same seed.
    seed : int, None or numpy.random.Generator
        Default 12345 (sacreBLEU's). With a Generator, the baseline's
        resamples are drawn from it after the system's.
    float32 : bool, optional
        For the confidence bootstrap only (the trials are exact integer sums
        in sacreBLEU too); see :func:`paired_bootstrap`.

    Returns
    -------
    PairedTestResult
        ``test='paired-ar'``; means and intervals ``None`` without ``n_confidence``.

    References
    ----------
    .. [1] Riezler, S., Maxwell, J. T. (2005). On some pitfalls in automatic
       evaluation and significance testing for MT. ACL workshop.
    .. [2] Clark, J. et al. (2011). Better hypothesis testing for statistical
       machine translation. ACL (multeval's p-value).
    .. [3] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT;
       sacreBLEU 2.x ``significance._paired_ar_test``.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 1, 0, 1], "system": ["A", "A", "B", "B"],
    ...                      "text": ["a b c d", "e f g h", "a b c x", "e f g h"]})
    >>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "e f g h"]})
    >>> res = paired_approximate_randomization(compute_stats(hyps, refs), "A", "B", n_samples=99)
    >>> res.p_value, res.system_mean is None   # 2 segments: no shuffle beats the real difference
    (0.01, True)
    """
    n_samples = check_count("n_samples", n_samples, minimum=1)
    if isinstance(n_confidence, bool) or not isinstance(n_confidence, (int, np.integer)):
        raise InputError(f"n_confidence must be an int (<= 0 for no intervals); got {n_confidence!r}.")
    stats, nrefs = _two_systems(stats, baseline_rows, system_rows)
    b_rows, s_rows = _paired_rows(stats, baseline_rows, system_rows)
    _scoring_settings(stats, (b_rows, s_rows), metric, smooth_method, smooth_value, ref_length)
    f32 = (metric != "delta_bleu") if float32 is None else bool(float32)
    rng, label = generator_and_label(seed)
    kw = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order, ref_length=ref_length)
    bl_score = corpus_score(stats, rows=b_rows, **kw).score
    sys_score = corpus_score(stats, rows=s_rows, **kw).score
    mat, scorer = _matrix_and_scorer(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length)
    bl, sy = mat[b_rows], mat[s_rows]
    n = len(b_rows)
    (count,) = approximate_randomization_counts(rng, n_samples, [(bl, sy)], [scorer], [abs(bl_score - sys_score)])
    p = (count + 1) / (n_samples + 1)
    bl_mean = bl_ci = sys_mean = sys_ci = None
    extra = [("ar", n_samples), ("seed", _seed_label(label))]
    n_conf = int(n_confidence) if n_confidence > 0 else 0
    if n_conf:
        (sums_s,) = bootstrap_sums(rng, n_conf, (sy,))
        sys_mean, sys_ci = estimate_ci(scorer(sums_s, f32))
        # a fresh stream from the same seed (a Generator, which has no seed to restart, continues)
        fresh = rng if isinstance(seed, np.random.Generator) else np.random.default_rng(
            seed if isinstance(seed, np.random.SeedSequence) else label)
        (sums_b,) = bootstrap_sums(fresh, n_conf, (bl,))
        bl_mean, bl_ci = estimate_ci(scorer(sums_b, f32))
        extra.append(("bs", n_conf))
    return PairedTestResult(
        test="paired-ar", metric=metric, baseline_score=bl_score, system_score=sys_score, p_value=p,
        baseline_mean=bl_mean, baseline_ci=bl_ci, system_mean=sys_mean, system_ci=sys_ci,
        n_segments=n, n_samples=n_samples, n_confidence=n_conf, seed=label,
        signature=_signature(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length,
                             *extra).with_nrefs(nrefs),
    )


# --------------------------------------------------------------------------- sacreBLEU's PairedTest / Result
# sacreBLEU 2.6's object API: PairedTest(named_systems, metrics, references, test_type='ar' | 'bs')()
# with its arguments, semantics and numbers (the seed from $SACREBLEU_SEED, the same draws, p-values, means and
# intervals) for BLEU / CHRF / TER objects. Each system's statistics come from the kernels once; every resample or
# trial of every metric is a row of one matrix product (bootstrap_comparisons, approximate_randomization_counts)
# and all rows are scored by one vectorized formula, so n_jobs is accepted and ignored.


class Result:
    """One system's outcome of a paired test (sacreBLEU's ``significance.Result``).

    Attributes
    ----------
    score : float
        The system's corpus score.
    p_value : float or None
        Against the baseline (None for the baseline itself).
    mean, ci : float or None
        Bootstrap mean and half-width of the 95% interval, when estimated.
    """

    def __init__(self, score: float, p_value: float | None = None, mean: float | None = None,
                 ci: float | None = None) -> None:
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.__dict__.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self.__dict__ == other.__dict__


def _matrix(stats: Any) -> np.ndarray:
    return np.asarray(stats, dtype=np.float64)


class PairedTest:
    """Paired significance tests of systems against the first one (sacreBLEU's ``PairedTest``).

    Parameters
    ----------
    named_systems : list of (name, hypotheses)
        The baseline first, then the systems to compare with it.
    metrics : mapping of name to Metric
        bleustats (or sacreBLEU-shaped) ``BLEU`` / ``CHRF`` / ``TER`` objects.
    references : list of reference streams or None
        None uses each metric's cached references (``references=`` of its constructor).
    test_type : {'ar', 'bs'}
        Approximate randomization or paired bootstrap resampling.
    n_samples : int
        Trials (``ar``) or resamples (``bs``); 0 takes sacreBLEU's default (10,000 / 1,000).
    n_ar_confidence : int
        With ``ar``, bootstrap resamples for means and intervals; -1 none, 0 the default 1,000.
    n_jobs : int
        Accepted for sacreBLEU's signature; every test already runs as a few matrix products.

    Calling the object runs the tests and returns ``(signatures, scores)``:
    ``signatures[metric name]`` (with ``seed``, ``bs`` / ``ar``) and
    ``scores['System']`` (the names) plus ``scores[metric name]``, one
    :class:`Result` per system, the baseline first.

    Examples
    --------
    >>> from bleustats.metrics import BLEU
    >>> refs = [["the cat sat on the mat", "a dog ran in the park", "it rains in paris"]]
    >>> systems = [("base", ["the cat sat on the mat", "a dog ran to the park", "it rains in paris"]),
    ...            ("new", ["the cat sat on a mat", "a dog ran in the park", "it rained in paris"])]
    >>> sigs, scores = PairedTest(systems, {"BLEU": BLEU(references=refs)}, None, test_type="bs", n_samples=100)()
    >>> scores["System"], [round(r.score, 2) for r in scores["BLEU"]]
    (['base', 'new'], [75.05, 67.51])
    >>> str(sigs["BLEU"])
    'nrefs:1|bs:100|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...'
    """

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems: Sequence[tuple[str, Sequence[str]]], metrics: Mapping[str, Metric],
                 references: Sequence[Sequence[str]] | None, test_type: str = "ar", n_samples: int = 0,
                 n_ar_confidence: int = -1, n_jobs: int = 1) -> None:
        if test_type not in self._DEFAULT_SAMPLES:
            raise InputError(f"test_type must be 'ar' (approximate randomization) or 'bs' (paired bootstrap); "
                             f"got {test_type!r}.")
        for name, value in (("n_samples", n_samples), ("n_ar_confidence", n_ar_confidence), ("n_jobs", n_jobs)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(f"{name} must be an int; got {type(value).__name__} {value!r:.40}.")
        named_systems = list(named_systems)
        if len(named_systems) < 2:
            raise InputError(f"named_systems: a paired test needs the baseline and at least one system; got "
                             f"{len(named_systems)}.")
        self.test_type = test_type
        self._seed, self._seed_label = sacrebleu_seed()
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else self._DEFAULT_SAMPLES["bs"]
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_systems = len(named_systems) - 1
        self.metrics: dict[str, Metric] = {}
        self._baseline_info: dict[str, tuple[np.ndarray, Result]] = {}
        self._signatures: dict[str, MetricSignature] = {}
        bl_name, bl_hyps = named_systems[0]
        confidence_n = self.n_samples if test_type == "bs" else self.n_ar_confidence
        for metric in metrics.values():
            bl_stats = _matrix(metric._extract_corpus_statistics(bl_hyps, references))
            bl_score = metric._aggregate_and_compute(bl_stats)
            mean = ci = None
            if confidence_n > 0:  # a fresh generator from the seed, as sacreBLEU's _bootstrap_resample
                (sums,) = bootstrap_sums(np.random.default_rng(self._seed), confidence_n, [bl_stats])
                mean, ci = estimate_ci(metric.scores_from_sums(sums, float32=True))
            self._baseline_info[bl_score.name] = (bl_stats, Result(bl_score.score, mean=mean, ci=ci))
            self.metrics[bl_score.name] = metric
            sig = metric.get_signature()
            sig.update("seed", self._seed_label)
            sig.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                sig.update("bs", self.n_ar_confidence)
            self._signatures[bl_score.name] = sig

    def _test(self, hypotheses: Sequence[str]) -> dict[str, Result]:
        """One system against the baseline, every metric on the same draws."""
        seed = self._seed if self._seed else None  # sacreBLEU: seed 0 means no fixed seed for the tests
        rng = np.random.default_rng(seed)
        names = list(self.metrics)
        sys_stats, sys_scores = [], []
        for name in names:
            stats = _matrix(self.metrics[name]._extract_corpus_statistics(hypotheses, self.references))
            sys_stats.append(stats)
            sys_scores.append(self.metrics[name]._aggregate_and_compute(stats).score)
        pairs = [(self._baseline_info[n][0], s) for n, s in zip(names, sys_stats)]
        scorers = [self.metrics[n].scores_from_sums for n in names]
        scorers = [lambda sums, f32, fn=fn: fn(sums, float32=f32) for fn in scorers]
        diffs = [abs(self._baseline_info[n][1].score - s) for n, s in zip(names, sys_scores)]
        if self.test_type == "bs":
            tests = bootstrap_comparisons(rng, self.n_samples, pairs, scorers, diffs)
            return {n: Result(score, p, *sys_ci) for n, score, (p, _, sys_ci) in zip(names, sys_scores, tests)}
        counts = approximate_randomization_counts(rng, self.n_samples, pairs, scorers, diffs)
        out = {n: Result(score, (c + 1) / (self.n_samples + 1)) for n, score, c in zip(names, sys_scores, counts)}
        if self.n_ar_confidence > 0:  # drawn after the trials, from the same generator
            sums = bootstrap_sums(rng, self.n_ar_confidence, sys_stats)
            for n, s, f in zip(names, sums, scorers):
                out[n].mean, out[n].ci = estimate_ci(f(s, True))
        return out

    def __call__(self) -> tuple[dict[str, MetricSignature], dict[str, list[Any]]]:
        """Run the tests; returns (signatures, scores) as sacreBLEU's ``PairedTest.__call__``."""
        scores: dict[str, list[Any]] = {"System": [name for name, _ in self.named_systems]}
        for name, (_, result) in self._baseline_info.items():
            scores[name] = [result]
        for _, hypotheses in self.named_systems[1:]:
            for name, result in self._test(hypotheses).items():
                scores[name].append(result)
        return self._signatures, scores
