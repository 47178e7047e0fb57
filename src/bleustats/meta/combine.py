r"""Metric combination: normalized averages and a pairwise-ranking logistic regression.

The DiscoTK recipe (Joty et al., 2014) for turning many simple metrics into one:

1. **Components** (:func:`component_scores`): per-hypothesis scores computed
   from a :class:`~bleustats.engine.stats.StatsTable` (sentence BLEU of orders 1..N,
   ΔBLEU, every variant of :mod:`bleustats.metrics.sentence`, length ratio, brevity
   penalty, n-gram precisions) plus any per-segment columns the user brings.
2. **Normalization** (:func:`normalize_scores`): each component min-max
   scaled, :math:`(x - \min) / (\max - \min)`, within each group of a grouping
   column (e.g. the language pair).
3. **Uniform combination** (:func:`uniform_combination`): the mean of the
   normalized components per segment; a system's score is the mean of its
   segment scores (:func:`system_scores`).
4. **Learned combination** (:func:`fit_pairwise`): pairwise learning to rank.
   For every two systems on the same segment whose human scores differ (by
   more than ``threshold``), the feature vector is the difference of their
   normalized component scores, better minus worse; an L2-regularized logistic
   regression without intercept learns weights :math:`w` so that
   :math:`\sigma(w^\top (x_a - x_b))` is the probability that :math:`a` is
   better. The segment score is :math:`\sigma(w^\top x)`, the system score the
   mean of the raw :math:`w^\top x`. :func:`cross_validate` fits on folds of
   whole documents (or blocks of consecutive segments), so no segment is ever
   in the training and the test part of the same fold.
5. **Tie-breaking** (:func:`break_ties`): :math:`x_{seg} + \epsilon\, S_{sys}`
   with :math:`S_{sys}` the sum of the system's segment scores and
   :math:`\epsilon` small enough that no untied pair changes order (paper,
   section 3.3).

The logistic regression is Newton's method (iteratively reweighted least
squares) in numpy, with a step-halving line search. The objective is strictly
convex for ``l2 > 0``, the problems are small (a few components, up to a few
hundred thousand pairs), and this keeps the package free of scikit-learn:

.. math::

    \min_w \; \sum_{(a, b)} \log\big(1 + e^{-w^\top (x_a - x_b)}\big)
        + \frac{\lambda_2}{2} \lVert w \rVert^2

References
----------
.. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK: Using
   discourse structure for machine translation evaluation. WMT.
.. [2] Herbrich, R., Graepel, T., Obermayer, K. (2000). Large margin rank
   boundaries for ordinal regression. (Pairwise ranking as classification.)
.. [3] Hopkins, M., May, J. (2011). Tuning as ranking. EMNLP.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"seg_id": [1, 1, 2, 2], "system": ["A", "B", "A", "B"],
...                       "m1": [10.0, 20.0, 30.0, 50.0], "m2": [0.4, 0.2, 0.9, 0.1]})
>>> normalize_scores(frame, ["m1", "m2"])[["m1", "m2"]].round(3).values.tolist()
[[0.0, 0.375], [0.25, 0.125], [0.5, 1.0], [1.0, 0.0]]
>>> uniform_combination(frame, ["m1", "m2"]).round(4).tolist()
[0.1875, 0.1875, 0.75, 0.5]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count, check_number
from ..engine.stats import StatsTable
from ..errors import InputError
from ..metrics import sentence
from ..metrics.formula import add_k_precisions, brevity_penalty
from ..metrics.tables import sentence_scores
from .resample import as_generator

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ENGINE_COMPONENTS",
    "CrossValidation",
    "PairwiseCombination",
    "break_ties",
    "component_scores",
    "cross_validate",
    "fit_pairwise",
    "normalize_scores",
    "ranking_pairs",
    "system_scores",
    "tie_break_epsilon",
    "uniform_combination",
]

#: Engine components by name; ``<n>`` is an n-gram order from 1 to the table's.
#: Any name of :data:`bleustats.metrics.sentence.SENTENCE_VARIANTS` (or a ``nakov:`` combination)
#: is a component too.
ENGINE_COMPONENTS: dict[str, str] = {
    "bleu<n>": "sentence BLEU with max order n (sacreBLEU sentence defaults: exp smoothing, effective order)",
    "delta_bleu": "sentence ΔBLEU at the table's order (weighted statistics, same defaults)",
    "precision_<n>": "match_n / total_n (0 when total_n = 0)",
    "length_ratio": "hyp_len / ref_len_closest (0 for an empty reference)",
    "brevity_penalty": "min(1, exp(1 - ref_len_closest / hyp_len)); 0 for an empty hypothesis",
    "chrf": "sentence chrF from the table's chrF columns (compute_stats(..., metrics=('chrf',)))",
    "chrf++": "sentence chrF++ (the table's chrF columns made with word_order=2)",
    "ter": "sentence TER from the table's TER columns (lower is better)",
}

_ORDERED = re.compile(r"^(bleu|precision_)(\d+)$")


# --------------------------------------------------------------------------- checks


def _check_frame(frame: Any, param: str = "frame") -> "pd.DataFrame":
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{param}: expected a pandas DataFrame with one row per (segment, system); "
                         f"got {type(frame).__name__}. Build one with component_scores().")
    return frame


def _check_columns(frame: "pd.DataFrame", columns: Any, param: str = "columns", *, numeric: bool = True
                   ) -> list[str]:
    if isinstance(columns, str):
        columns = [columns]
    columns = list(columns)
    if not columns:
        raise InputError(f"{param}: give at least one column name; got {columns!r}.")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{param}: {missing!r} not in the frame's columns {list(frame.columns)!r}. "
                         "Pass names of existing columns.")
    if numeric:
        bad = []
        for c in columns:
            v = frame[c].to_numpy()
            if not np.issubdtype(v.dtype, np.number) or v.dtype == bool:
                bad.append(f"{c} (dtype {v.dtype})")
            elif not np.isfinite(v.astype(np.float64)).all():
                bad.append(f"{c} ({int((~np.isfinite(v.astype(np.float64))).sum())} NaN or infinite)")
        if bad:
            raise InputError(f"{param}: every score column must be numeric and finite; problems: "
                             f"{', '.join(bad)}. Drop or fill those rows first.")
    return columns


def _group_codes(frame: "pd.DataFrame", by: str | Sequence[str] | None, param: str = "by") -> NDArray[np.int64]:
    if by is None:
        return np.zeros(len(frame), np.int64)
    cols = _check_columns(frame, by, param, numeric=False)
    import pandas as pd

    return pd.MultiIndex.from_frame(frame[cols]).factorize()[0].astype(np.int64) if len(cols) > 1 else \
        pd.factorize(frame[cols[0]])[0].astype(np.int64)


def _plain(row: Any) -> list:
    """A key row as plain Python values, for messages."""
    return [v.item() if isinstance(v, np.generic) else v for v in row.tolist()]


# --------------------------------------------------------------------------- components


def _component(stats: StatsTable, name: str) -> NDArray[np.float64]:
    order = stats.max_ngram_order
    m = _ORDERED.match(name)
    if m:
        n = int(m.group(2))
        if not 1 <= n <= order:
            raise InputError(f"components: {name!r} needs an n-gram order from 1 to the table's {order}; got {n}. "
                             f"Compute the statistics with max_ngram_order >= {n}.")
        if m.group(1) == "bleu":
            return sentence.score_variant(stats, "sacrebleu:exp", max_ngram_order=n)
        return add_k_precisions(stats.column(f"match_{n}"), stats.column(f"total_{n}"), k=0.0)  # m_n / t_n
    c = np.asarray(stats.column("hyp_len"), np.float64)
    r = np.asarray(stats.column("ref_len_closest"), np.float64)
    if name in ("delta_bleu", "chrf", "chrf++", "ter"):
        return sentence_scores(stats, metric=name)
    if name == "length_ratio":
        return np.divide(c, r, out=np.zeros_like(c), where=r > 0)
    if name == "brevity_penalty":
        return brevity_penalty(c, r)
    try:
        return sentence.score_variant(stats, name)
    except ValueError:
        raise InputError(
            f"components: {name!r} is not a component. Use bleu<n> or precision_<n> (n = 1..{order}), "
            f"delta_bleu, chrf, chrf++, ter, length_ratio, brevity_penalty, or a sentence variant "
            f"({', '.join(sentence.SENTENCE_VARIANTS)})."
        ) from None


def component_scores(
    stats: StatsTable,
    components: Sequence[str],
    *,
    external: "pd.DataFrame | None" = None,
    on: Sequence[str] = ("seg_id", "system"),
) -> "pd.DataFrame":
    r"""Per-hypothesis component scores: engine metrics from ``stats`` plus external columns.

    Engine components (see :data:`ENGINE_COMPONENTS`), for hypothesis length
    :math:`c`, closest reference length :math:`r`, matches :math:`m_n` and
    totals :math:`t_n`:

    .. math::

        \mathrm{bleu}n = \mathrm{BLEU}_{N=n}, \quad
        \mathrm{precision}\_n = m_n / t_n, \quad
        \mathrm{length\_ratio} = c / r, \quad
        \mathrm{brevity\_penalty} = \min(1, e^{1 - r/c})

    Parameters
    ----------
    stats : StatsTable
        One row per hypothesis (``seg_id``, ``system``).
    components : sequence of str
        Engine component names, in output column order.
    external : pandas.DataFrame, optional
        Other per-segment scores (e.g. a neural metric, a discourse score):
        the ``on`` columns and any numeric score columns; exactly one row per
        hypothesis of ``stats``.
    on : sequence of str
        Key columns joining ``external`` to the statistics rows.

    Returns
    -------
    pandas.DataFrame
        ``seg_id``, ``system``, one column per component, then the external
        score columns; rows in the order of ``stats``.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.

    Examples
    --------
    >>> import pandas as pd
    >>> from bleustats.engine.stats import compute_stats
    >>> hyps = pd.DataFrame({"seg_id": [1, 1], "system": ["A", "B"], "text": ["a b c d", "a b x"]})
    >>> refs = pd.DataFrame({"seg_id": [1], "text": ["a b c d"]})
    >>> st = compute_stats(hyps, refs, tokenize="none")
    >>> ext = pd.DataFrame({"seg_id": [1, 1], "system": ["B", "A"], "neural": [0.2, 0.9]})
    >>> component_scores(st, ["bleu2", "length_ratio"], external=ext).round(2)
       seg_id system   bleu2  length_ratio  neural
    0       1      A  100.00          1.00     0.9
    1       1      B   41.37          0.75     0.2
    """
    import pandas as pd

    if not isinstance(stats, StatsTable):
        raise InputError(f"stats: expected a bleustats.StatsTable (from compute_stats or load_stats); "
                         f"got {type(stats).__name__}.")
    if isinstance(components, str):
        components = [components]
    components = list(components)
    dup = sorted({c for c in components if components.count(c) > 1})
    if dup:
        raise InputError(f"components: each name once; {dup!r} repeated. Remove the duplicates.")
    out = pd.DataFrame({"seg_id": stats.column("seg_id"), "system": stats.column("system")})
    for name in components:
        out[name] = _component(stats, name)
    if external is None:
        return out
    ext = _check_frame(external, "external")
    on = list(on)
    _check_columns(ext, on, "on", numeric=False)
    _check_columns(out, on, "on", numeric=False)
    score_cols = [c for c in ext.columns if c not in on]
    clash = [c for c in score_cols if c in out.columns]
    if clash:
        raise InputError(f"external: columns {clash!r} clash with component or key names. Rename them.")
    if score_cols:
        _check_columns(ext, score_cols, "external")
    dup_keys = ext.duplicated(on)
    if dup_keys.any():
        raise InputError(f"external: {int(dup_keys.sum())} row(s) repeat a key {on!r}, e.g. "
                         f"{_plain(ext.loc[dup_keys, on].iloc[0])!r}. Give one row per hypothesis.")
    merged = out.merge(ext, on=on, how="left", indicator=True, validate="many_to_one")
    lost = merged["_merge"] != "both"
    if lost.any():
        raise InputError(f"external: {int(lost.sum())} statistics row(s) have no external scores, e.g. "
                         f"{_plain(merged.loc[lost, on].iloc[0])!r} for {on!r}. Give a score for every "
                         "hypothesis or select those rows out of the statistics first.")
    return merged.drop(columns="_merge")


# --------------------------------------------------------------------------- uniform


def normalize_scores(
    frame: "pd.DataFrame",
    columns: Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
) -> "pd.DataFrame":
    r"""Min-max normalize score columns within each group of ``by``.

    .. math::

        \tilde x_i = \frac{x_i - \min_{j \in g(i)} x_j}{\max_{j \in g(i)} x_j - \min_{j \in g(i)} x_j}

    A column constant within a group carries no ranking information there and
    becomes 0.5.

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str
        Score columns to normalize (higher = better for each).
    by : str or sequence of str, optional
        Grouping column(s), e.g. ``'lp'`` (language pair); default one group.

    Returns
    -------
    pandas.DataFrame
        A copy with ``columns`` replaced by their normalized values.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"lp": ["x", "x", "y", "y"], "m": [1.0, 3.0, 10.0, 10.0]})
    >>> normalize_scores(f, ["m"], by="lp")["m"].tolist()
    [0.0, 1.0, 0.5, 0.5]
    """
    frame = _check_frame(frame)
    columns = _check_columns(frame, columns)
    codes = _group_codes(frame, by)
    out = frame.copy()
    n_groups = int(codes.max()) + 1 if len(codes) else 0
    for c in columns:
        x = frame[c].to_numpy(np.float64)
        lo = np.full(n_groups, np.inf)
        hi = np.full(n_groups, -np.inf)
        np.minimum.at(lo, codes, x)
        np.maximum.at(hi, codes, x)
        span = (hi - lo)[codes]
        out[c] = np.where(span > 0, (x - lo[codes]) / np.where(span > 0, span, 1.0), 0.5)
    return out


def uniform_combination(
    frame: "pd.DataFrame",
    columns: Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
) -> NDArray[np.float64]:
    r"""Uniform combination: the mean of the min-max normalized components per row.

    .. math::

        u_i = \frac{1}{K} \sum_{k=1}^{K} \tilde x_{ik}

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str
        The K component columns.
    by : str or sequence of str, optional
        Normalization groups (see :func:`normalize_scores`).

    Returns
    -------
    numpy.ndarray
        One score in [0, 1] per row.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.

    Examples
    --------
    >>> import pandas as pd
    >>> uniform_combination(pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [5.0, 3.0, 4.0]}), ["a", "b"]).tolist()
    [0.5, 0.25, 0.75]
    """
    columns = _check_columns(_check_frame(frame), columns)
    return normalize_scores(frame, columns, by=by)[columns].to_numpy(np.float64).mean(axis=1)


def system_scores(
    frame: "pd.DataFrame",
    scores: ArrayLike,
    *,
    system: str = "system",
    by: str | Sequence[str] | None = None,
) -> "pd.DataFrame":
    r"""System-level scores: the mean of each system's segment scores.

    .. math::

        S_s = \frac{1}{|I_s|} \sum_{i \in I_s} x_i

    Parameters
    ----------
    frame : pandas.DataFrame
        Holds the ``system`` column (and ``by`` columns).
    scores : array_like, shape (len(frame),)
        Segment scores, aligned with the rows of ``frame``.
    system : str
        The system column.
    by : str or sequence of str, optional
        Further grouping (e.g. language pair): one row per (by, system).

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns, ``system`` and ``score``, sorted by them.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"system": ["A", "B", "A", "B"]})
    >>> system_scores(f, [0.2, 0.4, 0.6, 1.0])
      system  score
    0      A    0.4
    1      B    0.7
    """
    frame = _check_frame(frame)
    keys = ([] if by is None else ([by] if isinstance(by, str) else list(by))) + [system]
    _check_columns(frame, keys, "by/system", numeric=False)
    x = np.asarray(scores, dtype=np.float64)
    if x.shape != (len(frame),):
        raise InputError(f"scores: need one score per row of frame ({len(frame)}); got shape {x.shape}.")
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:  # a mean would skip NaN silently and rank a system on part of its segments
        raise InputError(f"scores: {bad.size} NaN or infinite value(s), e.g. {x[bad[0]]!r} at row {int(bad[0])}; "
                         "every segment must have a score. Drop those rows from frame and scores first.")
    g = frame[keys].copy()
    g["score"] = x
    return g.groupby(keys, sort=True, as_index=False)["score"].mean()


# --------------------------------------------------------------------------- tie-breaking


def _system_totals(scores: NDArray[np.float64], systems: ArrayLike) -> NDArray[np.float64]:
    labels = np.asarray(systems)
    if labels.shape != scores.shape:
        raise InputError(f"systems: need one system label per score ({scores.shape[0]}); got shape {labels.shape}.")
    _, inv = np.unique(labels, return_inverse=True)
    totals = np.bincount(inv, weights=scores)
    return totals[inv]


def _check_scores(scores: ArrayLike, name: str = "scores") -> NDArray[np.float64]:
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 1 or not np.isfinite(x).all():
        raise InputError(f"{name}: expected a 1-D array of finite numbers; got shape {x.shape}"
                         f"{'' if x.ndim != 1 else ' with NaN or infinite values'}. Drop those rows first.")
    return x


def tie_break_epsilon(scores: ArrayLike, offsets: ArrayLike) -> float:
    r"""The ε of :func:`break_ties`: small enough that no untied pair changes order.

    With :math:`g` the smallest positive gap between two distinct scores and
    :math:`R` the range of the offsets :math:`S`,

    .. math::

        \epsilon = \frac{g}{4 R}

    so :math:`|\epsilon (S_i - S_j)| \le g/4 < x_j - x_i` for every untied pair;
    0 when all scores are equal or all offsets are.

    Examples
    --------
    >>> tie_break_epsilon([0.1, 0.3, 0.3], [2.0, 1.0, 0.0])
    0.025
    """
    x = _check_scores(scores)
    s = _check_scores(offsets, "offsets")
    if s.shape != x.shape:
        raise InputError(f"offsets: need one offset per score ({x.shape[0]}); got shape {s.shape}.")
    u = np.unique(x)
    span = float(s.max() - s.min()) if len(s) else 0.0
    if len(u) < 2 or span == 0.0:
        return 0.0
    gap = float(np.diff(u).min())
    eps = gap / (4.0 * span)
    # a subnormal span overflows the quotient: the largest finite ε still satisfies ε·R <= g/4
    return eps if math.isfinite(eps) else float(np.finfo(np.float64).max)


def break_ties(
    scores: ArrayLike,
    systems: ArrayLike,
    *,
    system_totals: ArrayLike | None = None,
) -> NDArray[np.float64]:
    r"""Break segment-level ties by the system-level score (Joty et al., 2014, section 3.3).

    .. math::

        x'_i = x_i + \epsilon \, S_{s(i)}, \qquad S_s = \sum_{j:\ s(j) = s} x_j

    with :math:`\epsilon` from :func:`tie_break_epsilon`: two segments with
    equal scores are ordered by their systems' totals, and no pair with
    different scores changes order. The result is checked, and ε halved until
    floating-point rounding reorders nothing either.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Segment scores.
    systems : array_like, shape (n,)
        System label of each segment score.
    system_totals : array_like, shape (n,), optional
        :math:`S_{s(i)}` per row, if not the sum of ``scores`` per system
        (e.g. a system-level score computed elsewhere).

    Returns
    -------
    numpy.ndarray
        The tie-broken scores.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.

    Examples
    --------
    >>> x = break_ties([0.5, 0.5, 0.2, 0.9], ["A", "B", "B", "A"])
    >>> bool(x[0] > x[1]), bool(x[2] < x[1] < x[3])     # A's total 1.4 beats B's 0.7
    (True, True)
    """
    x = _check_scores(scores)
    s = _system_totals(x, systems) if system_totals is None else _check_scores(system_totals, "system_totals")
    if s.shape != x.shape:
        raise InputError(f"system_totals: need one value per score ({x.shape[0]}); got shape {s.shape}.")
    eps = tie_break_epsilon(x, s)
    if eps == 0.0:
        return x.copy()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    strict = np.diff(xs) > 0
    while eps > 0.0:
        out = x + eps * s
        os_ = out[order]
        # every pair untied in x keeps its order: check neighbours across each gap
        # (minimum of the upper run vs maximum of the lower run)
        starts = np.flatnonzero(np.r_[True, strict])
        run_min = np.minimum.reduceat(os_, starts)
        run_max = np.maximum.reduceat(os_, starts)
        if (run_min[1:] > np.maximum.accumulate(run_max)[:-1]).all():
            return out
        eps /= 2.0
    return x.copy()  # pragma: no cover - ε underflowed: leave ties unbroken rather than reorder


# --------------------------------------------------------------------------- learned


def ranking_pairs(
    frame: "pd.DataFrame",
    human: str,
    *,
    segment: str | Sequence[str] = "seg_id",
    by: str | Sequence[str] | None = None,
    threshold: float = 0.0,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    r"""Pairs of rows on the same segment whose human scores differ by more than ``threshold``.

    .. math::

        P = \{(a, b) : \mathrm{seg}(a) = \mathrm{seg}(b),\ h_a - h_b > t\}

    Parameters
    ----------
    frame : pandas.DataFrame
    human : str
        Human score column (higher = better).
    segment : str or sequence of str
        Column(s) identifying a segment (pairs never cross segments).
    by : str or sequence of str, optional
        Further grouping, e.g. ``'lp'``: segments of different groups never pair.
    threshold : float
        Minimum human difference t (strictly exceeded); 0 keeps all untied pairs.

    Returns
    -------
    (better, worse) : two int64 arrays of row positions

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"seg_id": [1, 1, 1, 2, 2], "h": [0.0, -1.0, 0.0, -5.0, -2.0]})
    >>> [a.tolist() for a in ranking_pairs(f, "h")]
    [[0, 2, 4], [1, 1, 3]]
    """
    frame = _check_frame(frame)
    _check_columns(frame, [human], "human")
    threshold = check_number("threshold", threshold, non_negative=True)
    seg_cols = [segment] if isinstance(segment, str) else list(segment)
    by_cols = [] if by is None else ([by] if isinstance(by, str) else list(by))
    codes = _group_codes(frame, by_cols + seg_cols, "segment")
    h = frame[human].to_numpy(np.float64)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0, True])
    better: list[NDArray[np.int64]] = []
    worse: list[NDArray[np.int64]] = []
    for k in range(len(bounds) - 1):
        rows = order[bounds[k]:bounds[k + 1]]
        if len(rows) < 2:
            continue
        i, j = np.triu_indices(len(rows), 1)
        d = h[rows[i]] - h[rows[j]]
        keep = np.abs(d) > threshold
        a = np.where(d > 0, rows[i], rows[j])[keep]
        b = np.where(d > 0, rows[j], rows[i])[keep]
        better.append(a)
        worse.append(b)
    if not better:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(better).astype(np.int64), np.concatenate(worse).astype(np.int64)


def _sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    e = np.exp(z[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def _fit_logistic(d: NDArray[np.float64], l2: float, *, tol: float = 1e-10, max_iter: int = 100
                  ) -> tuple[NDArray[np.float64], int]:
    """Newton / IRLS for min_w sum log(1 + exp(-d w)) + l2/2 |w|^2 (all labels positive)."""
    k = d.shape[1]
    w = np.zeros(k)

    def loss(v: NDArray[np.float64]) -> float:
        return float(np.logaddexp(0.0, -(d @ v)).sum() + 0.5 * l2 * v @ v)

    current = loss(w)
    for it in range(1, max_iter + 1):
        z = d @ w
        p = _sigmoid(-z)                     # 1 - σ(z): the gradient weight of each pair
        grad = -(d.T @ p) + l2 * w
        hess = (d * (p * (1.0 - p))[:, None]).T @ d + l2 * np.eye(k)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            cand = w - t * step
            value = loss(cand)
            if value <= current + 1e-12 * abs(current) or t < 1e-10:
                break
            t /= 2.0
        w, current = cand, value
        if np.max(np.abs(t * step)) < tol * (1.0 + np.max(np.abs(w))):
            return w, it
    return w, max_iter


@dataclass(frozen=True)
class PairwiseCombination:
    r"""A learned linear combination of (normalized) component scores.

    ``raw_scores`` is :math:`w^\top \tilde x`, ``segment_scores`` its sigmoid
    :math:`\sigma(w^\top \tilde x)`, ``system_scores`` the mean raw score per
    system.

    Attributes
    ----------
    columns : tuple of str
        Component columns, in the order of ``weights``.
    weights : numpy.ndarray
        One weight per component (no intercept: it cancels in differences).
    normalize : bool
        Whether the components are min-max normalized (per ``by`` group of the
        frame being scored) before the weights apply.
    by : tuple of str or None
        Normalization groups.
    l2 : float
        The L2 penalty λ₂ the weights were fitted with.
    n_pairs : int
        Training pairs.
    n_iter : int
        Newton iterations.
    """

    columns: tuple[str, ...]
    weights: NDArray[np.float64]
    normalize: bool
    by: tuple[str, ...] | None
    l2: float
    n_pairs: int
    n_iter: int = field(default=0, compare=False)

    def _features(self, frame: "pd.DataFrame") -> NDArray[np.float64]:
        frame = _check_frame(frame)
        cols = _check_columns(frame, list(self.columns))
        if self.normalize:
            frame = normalize_scores(frame, cols, by=None if self.by is None else list(self.by))
        return frame[cols].to_numpy(np.float64)

    def raw_scores(self, frame: "pd.DataFrame") -> NDArray[np.float64]:
        """:math:`w^\\top \\tilde x` per row (the interpolated raw score)."""
        return self._features(frame) @ self.weights

    def segment_scores(self, frame: "pd.DataFrame") -> NDArray[np.float64]:
        """:math:`\\sigma(w^\\top \\tilde x)` per row, in (0, 1)."""
        return _sigmoid(self.raw_scores(frame))

    def system_scores(self, frame: "pd.DataFrame", *, system: str = "system") -> "pd.DataFrame":
        """Mean raw score per system (and per ``by`` group)."""
        by = None if self.by is None else list(self.by)
        return system_scores(frame, self.raw_scores(frame), system=system, by=by)


def _pair_features(x: NDArray[np.float64], better: NDArray[np.int64], worse: NDArray[np.int64]
                   ) -> NDArray[np.float64]:
    return x[better] - x[worse]


def fit_pairwise(
    frame: "pd.DataFrame",
    columns: Sequence[str],
    human: str,
    *,
    segment: str | Sequence[str] = "seg_id",
    by: str | Sequence[str] | None = None,
    threshold: float = 0.0,
    l2: float = 1.0,
    normalize: bool = True,
) -> PairwiseCombination:
    r"""Learn combination weights by pairwise ranking (logistic regression on score differences).

    For every pair of systems :math:`a, b` on the same segment with
    :math:`h_a - h_b > t` (:func:`ranking_pairs`):

    .. math::

        \min_w \sum_{(a, b)} \log\big(1 + e^{-w^\top (\tilde x_a - \tilde x_b)}\big)
            + \frac{\lambda_2}{2} \lVert w \rVert^2

    solved by Newton's method (IRLS) in numpy. Pairs enter in one orientation
    (better minus worse); with no intercept this equals using both.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (segment, system), with the components and ``human``.
    columns : sequence of str
        Component columns.
    human : str
        Human score column (higher = better).
    segment, by, threshold
        As in :func:`ranking_pairs`; ``by`` also groups the normalization.
    l2 : float
        λ₂ > 0 (makes the problem strictly convex; 1.0 ≈ scikit-learn's ``C=1``).
    normalize : bool
        Min-max normalize the components per ``by`` group first.

    Returns
    -------
    PairwiseCombination

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.
    .. [2] Herbrich, R., Graepel, T., Obermayer, K. (2000). Large margin rank
       boundaries for ordinal regression.

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"seg_id": [1, 1, 2, 2, 3, 3], "good": [1.0, 0.0, 0.7, 0.2, 0.9, 0.1],
    ...                   "noise": [0.3, 0.6, 0.1, 0.9, 0.5, 0.4], "h": [0.0, -3.0, -1.0, -4.0, 0.0, -2.0]})
    >>> model = fit_pairwise(f, ["good", "noise"], "h", l2=0.1)
    >>> model.n_pairs, bool(model.weights[0] > 0 > model.weights[1])
    (3, True)
    """
    frame = _check_frame(frame)
    columns = _check_columns(frame, columns)
    l2 = check_number("l2", l2, positive=True)
    better, worse = ranking_pairs(frame, human, segment=segment, by=by, threshold=threshold)
    if len(better) == 0:
        raise InputError(f"frame: no pair of rows on the same segment has human scores ({human!r}) differing by "
                         f"more than threshold={threshold!r}; nothing to learn from. Lower the threshold or "
                         "check the segment columns.")
    x = (normalize_scores(frame, columns, by=by) if normalize else frame)[columns].to_numpy(np.float64)
    w, n_iter = _fit_logistic(_pair_features(x, better, worse), l2)
    by_t = None if by is None else ((by,) if isinstance(by, str) else tuple(by))
    return PairwiseCombination(tuple(columns), w, bool(normalize), by_t, l2, int(len(better)), n_iter)


@dataclass(frozen=True)
class CrossValidation:
    """Out-of-fold scores of a learned combination.

    Attributes
    ----------
    fold : numpy.ndarray of int64
        Test fold of every row.
    raw : numpy.ndarray
        Out-of-fold raw score :math:`w_f^\\top \\tilde x` of every row (the
        model of the fold the row is held out in).
    segment_scores : numpy.ndarray
        ``sigmoid(raw)``.
    weights : numpy.ndarray, shape (folds, K)
        Weights learned in each fold.
    columns : tuple of str
    n_pairs : tuple of int
        Training pairs per fold.
    """

    fold: NDArray[np.int64]
    raw: NDArray[np.float64]
    segment_scores: NDArray[np.float64]
    weights: NDArray[np.float64]
    columns: tuple[str, ...]
    n_pairs: tuple[int, ...]


def cross_validate(
    frame: "pd.DataFrame",
    columns: Sequence[str],
    human: str,
    *,
    folds: int = 5,
    document: str | None = None,
    block_size: int = 10,
    segment: str = "seg_id",
    by: str | Sequence[str] | None = None,
    threshold: float = 0.0,
    l2: float = 1.0,
    seed: int = 0,
) -> CrossValidation:
    r"""Cross-validated learned combination: train on some documents, score the others.

    Units are whole documents (``document`` column) or, without document ids,
    blocks of ``block_size`` consecutive segment ids (``seg_id // block_size``,
    per ``by`` group). Units are shuffled with ``seed`` and dealt round-robin
    into ``folds`` folds; every row of a segment is in its unit's fold, so no
    segment is in the training and the test part of a fold. Components are
    min-max normalized once on the whole frame (label-free), then each fold
    fits :func:`fit_pairwise` on the other folds' pairs:

    .. math::

        \hat x_i = w_{f(i)}^\top \tilde x_i, \qquad
        w_f = \arg\min_w \sum_{(a,b) \in P,\ f(a) \ne f} \ell(w^\top(\tilde x_a - \tilde x_b))
            + \tfrac{\lambda_2}{2}\lVert w\rVert^2

    Parameters
    ----------
    frame : pandas.DataFrame
    columns : sequence of str
    human : str
    folds : int
        Number of folds (≥ 2, at most the number of units).
    document : str, optional
        Document id column; a document is never split.
    block_size : int
        Segments per block when there are no document ids.
    segment : str
        Segment id column (integers when ``document`` is not given).
    by, threshold, l2
        As in :func:`fit_pairwise`.
    seed : int
        Seed of the unit shuffle.

    Returns
    -------
    CrossValidation

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK. WMT.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> f = pd.DataFrame({"seg_id": np.repeat(np.arange(40), 3), "system": np.tile(["A", "B", "C"], 40)})
    >>> f["h"] = rng.normal(size=len(f))
    >>> f["m"] = f["h"] + rng.normal(scale=0.5, size=len(f))
    >>> cv = cross_validate(f, ["m"], "h", folds=4, block_size=5)
    >>> sorted(set(cv.fold.tolist())), cv.weights.shape, bool((cv.weights > 0).all())
    ([0, 1, 2, 3], (4, 1), True)
    """
    frame = _check_frame(frame)
    columns = _check_columns(frame, columns)
    folds = check_count("folds", folds, minimum=2)
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise InputError(f"block_size must be a positive integer; got {block_size!r}.")
    by_cols = [] if by is None else ([by] if isinstance(by, str) else list(by))
    if document is not None:
        _check_columns(frame, [document], "document", numeric=False)
        unit_cols = by_cols + [document]
        unit_frame = frame[unit_cols]
    else:
        _check_columns(frame, [segment], "segment", numeric=False)
        seg = frame[segment].to_numpy()
        if not np.issubdtype(seg.dtype, np.integer):
            raise InputError(f"segment: blocks of consecutive segments need integer ids in {segment!r}; got dtype "
                             f"{seg.dtype}. Pass document= with document ids instead.")
        unit_frame = frame[by_cols].copy() if by_cols else frame[[]].copy()
        unit_frame["_block"] = seg // block_size
    import pandas as pd

    units = pd.MultiIndex.from_frame(unit_frame).factorize()[0] if unit_frame.shape[1] > 1 else \
        pd.factorize(unit_frame.iloc[:, 0])[0]
    n_units = int(units.max()) + 1 if len(units) else 0
    if folds > n_units:
        raise InputError(f"folds: {folds} folds need at least {folds} documents or segment blocks; there are "
                         f"{n_units}. Use fewer folds or a smaller block_size.")
    perm = as_generator(seed).permutation(n_units)
    unit_fold = np.empty(n_units, np.int64)
    unit_fold[perm] = np.arange(n_units) % folds
    fold = unit_fold[units]
    normed = normalize_scores(frame, columns, by=by)
    x = normed[columns].to_numpy(np.float64)
    better, worse = ranking_pairs(frame, human, segment=segment, by=by, threshold=threshold)
    l2 = check_number("l2", l2, positive=True)
    raw = np.empty(len(frame))
    weights = np.zeros((folds, len(columns)))
    n_pairs = []
    for f in range(folds):
        train = (fold[better] != f) & (fold[worse] != f)
        if not train.any():
            raise InputError(f"frame: fold {f} leaves no training pair (human scores tied within segments?). "
                             "Use fewer folds or check the human column.")
        w, _ = _fit_logistic(_pair_features(x, better[train], worse[train]), l2)
        weights[f] = w
        test = fold == f
        raw[test] = x[test] @ w
        n_pairs.append(int(train.sum()))
    return CrossValidation(fold, raw, _sigmoid(raw), weights, tuple(columns), tuple(n_pairs))
