r"""Paired significance tests of two systems from cached statistics (sacreBLEU's --paired-bs / --paired-ar).

Everything here resamples the statistics table, never the texts. A bootstrap
resample of a corpus of :math:`n` segments is a count vector
:math:`k \in \mathbb{N}^n` (how often each segment was drawn); its corpus
statistics are :math:`k^\top S` for the segment statistics matrix :math:`S`,
so :math:`B` resamples are one matrix product :math:`K S` followed by the
vectorized BLEU formula on the :math:`B` rows of sums.
:func:`paired_bootstrap` and :func:`paired_approximate_randomization` compare
two systems scored on the same segments and reproduce sacreBLEU 2.x's
numbers exactly (same seed, same draws, same p-value and confidence-interval
formulas). Comparing two *metrics* against human scores is
:mod:`bleustats.meta.compare`.

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

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics.bleu import (bleu_scores, check_delta_defined, check_scoring_options, corpus_score, score_signature,
                            statistics_matrix)
from ..metrics.results import Signature
from .resample import generator_and_label

__all__ = [
    "PairedTestResult",
    "estimate_ci",
    "paired_approximate_randomization",
    "paired_bootstrap",
]

# entries of a (samples x segments) block held at once; rows come in multiples of 32 so
# that drawing a chunk at a time consumes the generator exactly as one big draw does
_CHUNK = 1 << 22


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of a paired test between a baseline and a system on the same segments.

    Attributes
    ----------
    test : {'paired-bs', 'paired-ar'}
    metric : {'bleu', 'delta_bleu'}
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
    sacreBLEU's bootstrap does (see :func:`bleustats.metrics.bleu.bleu_scores`).
    """
    correct = sums[:, 2:2 + n_order]
    if metric == "delta_bleu":
        correct = np.maximum(correct, 0.0)
    return bleu_scores(correct, sums[:, 2 + n_order:], sums[:, 0], sums[:, 1], smooth_method=smooth_method,
                       smooth_value=smooth_value, use_effective_order=use_effective_order, float32=float32)


def _chunk_rows(n_cols: int) -> int:
    return max(32, (_CHUNK // max(1, n_cols)) // 32 * 32)


def _bootstrap_sums(rng: np.random.Generator, n_samples: int, mats: Sequence[NDArray[np.float64]]
                    ) -> list[NDArray[np.float64]]:
    """sacreBLEU's ``rng.choice(n, size=(n_samples, n))`` draws as count vectors times each matrix.

    The drawn indices become per-resample counts (a ``bincount`` per resample,
    whose counters fit in cache), and one matrix product with the matrices
    side by side sums every resample: exact, since counts and statistics are
    integers and the sums stay below 2**53. The next chunk is drawn on a
    helper thread while this one is summed (NumPy releases the GIL in both);
    draws stay in order, so the numbers are those of one big draw.
    """
    n = mats[0].shape[0]
    widths = [m.shape[1] for m in mats]
    both = np.hstack(mats) if len(mats) > 1 else mats[0]
    step = _chunk_rows(n)
    sizes = [min(step, n_samples - start) for start in range(0, n_samples, step)]
    out: list[NDArray[np.float64]] = []

    def draw(c: int) -> NDArray[np.int64]:
        return rng.choice(n, size=(c, n), replace=True)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(draw, sizes[0]) if sizes else None
        for i, c in enumerate(sizes):
            idx = pending.result()
            if i + 1 < len(sizes):
                pending = pool.submit(draw, sizes[i + 1])
            counts = np.empty((c, n))
            for r in range(c):  # row by row: each row's n counters stay in cache
                counts[r] = np.bincount(idx[r], minlength=n)
            out.append(counts @ both)
    sums = np.concatenate(out) if out else np.zeros((0, both.shape[1]))
    return np.split(sums, np.cumsum(widths)[:-1], axis=1)


def estimate_ci(scores: ArrayLike) -> tuple[float, float]:
    r"""sacreBLEU's bootstrap summary: the mean and half the width of the 95% interval.

    With the :math:`B` scores sorted and :math:`l = \lfloor B/40 \rfloor`,

    .. math::

        \mathrm{ci} = \tfrac12\big(s_{(B - l - 1)} - s_{(l)}\big)

    (0-based order statistics), reported as :math:`\bar s \pm \mathrm{ci}`.

    Parameters
    ----------
    scores : array_like, shape (B,)
        Bootstrap scores, finite.

    Returns
    -------
    tuple of float
        The mean and the half-width.

    References
    ----------
    .. [1] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT;
       sacreBLEU 2.x ``significance.estimate_ci``.

    Examples
    --------
    >>> estimate_ci(list(range(80)))   # l = 2: (77 - 2) / 2
    (39.5, 37.5)
    """
    s = np.sort(np.asarray(scores, dtype=np.float64))
    if s.ndim != 1 or s.size == 0:
        raise InputError(f"scores must be a non-empty 1-D array; got shape {s.shape}. Pass one score per "
                         "bootstrap resample.")
    if not np.isfinite(s).all():  # np.sort puts NaN last: the interval would silently shift
        raise InputError(f"scores must be finite; got {int((~np.isfinite(s)).sum())} NaN or infinite value(s). "
                         "Drop the resamples whose score is undefined first.")
    lower = s.size // 40
    upper = s.size - lower - 1
    return float(s.mean()), float(0.5 * (s[upper] - s[lower]))


def _p_value(sample_stats: NDArray[np.float64], real: float) -> float:
    # sacreBLEU (after multeval): strictly greater, plus one in numerator and denominator
    return (int(np.sum(sample_stats > real)) + 1) / (len(sample_stats) + 1)


def _signature(stats: StatsTable, metric: str, smooth_method: str, smooth_value: float | None,
               use_effective_order: bool, ref_length: str, *extra: tuple[str, Any]) -> Signature:
    return score_signature(stats, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                           use_effective_order=use_effective_order, ref_length=ref_length).with_extra(*extra)


# --------------------------------------------------------------------------- paired system tests


def paired_bootstrap(
    stats: StatsTable,
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
    stats : StatsTable
        Holds both systems' rows.
    baseline_rows, system_rows : str or array_like
        A system name (its rows, ordered by ``seg_id``), a boolean mask or an
        index array; the two selections are paired by position and must have
        the same ``seg_id`` at every position.
    metric : {'bleu', 'delta_bleu'}
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
    >>> round(res.baseline_score, 2), round(res.system_score, 2), str(res.signature).split("|")[-3:-1]
    (100.0, 72.31, ['bs:50', 'seed:1'])
    """
    n_samples = check_count("n_samples", n_samples, minimum=1)
    b_rows, s_rows = _paired_rows(stats, baseline_rows, system_rows)
    _scoring_settings(stats, (b_rows, s_rows), metric, smooth_method, smooth_value, ref_length)
    f32 = (metric == "bleu") if float32 is None else bool(float32)
    rng, label = generator_and_label(seed)
    kw = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order, ref_length=ref_length)
    bl_score = corpus_score(stats, rows=b_rows, **kw).score
    sys_score = corpus_score(stats, rows=s_rows, **kw).score
    mat = _stats_matrix(stats, metric, ref_length)
    sums_b, sums_s = _bootstrap_sums(rng, n_samples, (mat[b_rows], mat[s_rows]))
    sc = dict(n_order=stats.max_ngram_order, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order, float32=f32)
    scores_b, scores_s = _scores(sums_b, **sc), _scores(sums_s, **sc)
    bl_mean, bl_ci = estimate_ci(scores_b)
    sys_mean, sys_ci = estimate_ci(scores_s)
    diffs = np.abs(scores_s - scores_b)
    p = _p_value(diffs - diffs.mean(), abs(bl_score - sys_score))
    return PairedTestResult(
        test="paired-bs", metric=metric, baseline_score=bl_score, system_score=sys_score, p_value=p,
        baseline_mean=bl_mean, baseline_ci=bl_ci, system_mean=sys_mean, system_ci=sys_ci,
        n_segments=len(b_rows), n_samples=n_samples, n_confidence=n_samples, seed=label,
        signature=_signature(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length,
                             ("bs", n_samples), ("seed", _seed_label(label))),
    )


def paired_approximate_randomization(
    stats: StatsTable,
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
    b_rows, s_rows = _paired_rows(stats, baseline_rows, system_rows)
    _scoring_settings(stats, (b_rows, s_rows), metric, smooth_method, smooth_value, ref_length)
    f32 = (metric == "bleu") if float32 is None else bool(float32)
    rng, label = generator_and_label(seed)
    kw = dict(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order, ref_length=ref_length)
    bl_score = corpus_score(stats, rows=b_rows, **kw).score
    sys_score = corpus_score(stats, rows=s_rows, **kw).score
    mat = _stats_matrix(stats, metric, ref_length)
    bl, sy = mat[b_rows], mat[s_rows]
    n = len(b_rows)
    sc = dict(n_order=stats.max_ngram_order, metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
              use_effective_order=use_effective_order)
    diff = abs(bl_score - sys_score)
    swing, sy_sum, both_sum = bl - sy, sy.sum(axis=0), bl.sum(axis=0) + sy.sum(axis=0)
    count = 0
    step = _chunk_rows(n)
    for start in range(0, n_samples, step):
        c = min(step, n_samples - start)
        pos = rng.integers(2, size=(c, n), dtype=bool).astype(np.float64)
        # a trial's sums: pos @ bl + (1 - pos) @ sy = pos @ (bl - sy) + sum(sy), and the other
        # system gets the rest of bl + sy; exact integer arithmetic in float64, as sacreBLEU's int64
        sums_a = pos @ swing + sy_sum
        scores_a = _scores(sums_a, float32=False, **sc)
        scores_b = _scores(both_sum - sums_a, float32=False, **sc)
        count += int(np.sum(np.abs(scores_a - scores_b) > diff))
    p = (count + 1) / (n_samples + 1)
    bl_mean = bl_ci = sys_mean = sys_ci = None
    extra = [("ar", n_samples), ("seed", _seed_label(label))]
    n_conf = int(n_confidence) if n_confidence > 0 else 0
    if n_conf:
        (sums_s,) = _bootstrap_sums(rng, n_conf, (sy,))
        sys_mean, sys_ci = estimate_ci(_scores(sums_s, float32=f32, **sc))
        # a fresh stream from the same seed (a Generator, which has no seed to restart, continues)
        fresh = rng if isinstance(seed, np.random.Generator) else np.random.default_rng(
            seed if isinstance(seed, np.random.SeedSequence) else label)
        (sums_b,) = _bootstrap_sums(fresh, n_conf, (bl,))
        bl_mean, bl_ci = estimate_ci(_scores(sums_b, float32=f32, **sc))
        extra.append(("bs", n_conf))
    return PairedTestResult(
        test="paired-ar", metric=metric, baseline_score=bl_score, system_score=sys_score, p_value=p,
        baseline_mean=bl_mean, baseline_ci=bl_ci, system_mean=sys_mean, system_ci=sys_ci,
        n_segments=n, n_samples=n_samples, n_confidence=n_conf, seed=label,
        signature=_signature(stats, metric, smooth_method, smooth_value, use_effective_order, ref_length, *extra),
    )


