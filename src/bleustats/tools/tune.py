r"""Offline tuning on k-best lists: PRO and batch k-best MIRA, driven by any sentence-level variant.

A tuner looks for feature weights :math:`w` under which the entry a decoder
would pick (the *1-best*, :math:`\hat e_s = \arg\max_e w \cdot f(e)` for every
source :math:`s`) has high corpus BLEU. Offline tuning does it on fixed
k-best lists: the entries' dense features (:mod:`bleustats.tools.nbest_features`)
and their BLEU statistics (:func:`bleustats.compute_stats`) are computed
once; every variant of the sentence-level registry
(:data:`bleustats.metrics.sentence.SENTENCE_VARIANTS`, any ``nakov:`` combination,
plain or ΔBLEU statistics) can drive either tuner.

PRO (Hopkins & May, 2011), :func:`pro_sample_pairs` + :func:`fit_pro`
    Per source, draw :math:`\Gamma` pairs of entries uniformly (with
    replacement), keep those whose sentence scores differ by at least
    :math:`\alpha` (scores on the 0–1 scale), keep the :math:`\Xi` with the
    largest differences, and fit a binary logistic regression (L2, no bias) to
    the feature differences in both directions. The defaults
    :math:`\Gamma = 5000, \alpha = 0.05, \Xi = 50` are Moses' ``mert/pro.cpp``
    and the setting of Nakov et al. (2012).
Batch k-best MIRA (Cherry & Foster, 2012), :func:`mira_epoch`
    Per source (in a shuffled order), the *hope* :math:`\arg\max_e w \cdot f(e)
    + g(e)` and the *fear* :math:`\arg\max_e w \cdot f(e) - g(e)` entries of its
    list, and a passive-aggressive update clipped at :math:`C`. The gain
    :math:`g` is the variant's score on the 0–1 scale times a reference length;
    ``pseudo-doc`` / ``chiang-gain`` score each entry inside a decayed
    pseudo-document of earlier hopes (Chiang et al., 2008).

:func:`tune` runs either one and reports the corpus BLEU and length ratio of
the 1-best before, during and after. :func:`read_tuning_list` reads one or
several n-best files (several iterations' lists, merged per source with
duplicates removed, as Moses' ``extractor`` accumulates them).

References
----------
.. [1] Hopkins, M., May, J. (2011). Tuning as ranking. EMNLP.
.. [2] Cherry, C., Foster, G. (2012). Batch tuning strategies for statistical
   machine translation. NAACL.
.. [3] Chiang, D., Marton, Y., Resnik, P. (2008). Online large-margin training
   of syntactic and structural translation features. EMNLP.
.. [4] Nakov, P., Guzmán, F., Vogel, S. (2012). Optimizing for sentence-level
   BLEU+1 yields short translations. COLING.
.. [5] Crammer, K., Dekel, O., Keshet, J., Shalev-Shwartz, S., Singer, Y.
   (2006). Online passive-aggressive algorithms. JMLR.

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "nbest.txt"), "w") as f:
...     _ = f.write("0 ||| a b c d ||| lm= -6 w= -4 ||| 0\n"
...                 "0 ||| a b ||| lm= -3 w= -2 ||| 0\n"
...                 "1 ||| x y z ||| lm= -4 w= -3 ||| 0\n"
...                 "1 ||| x y z z z ||| lm= -5 w= -5 ||| 0\n")
>>> with open(os.path.join(d, "ref.txt"), "w") as f:
...     _ = f.write("a b c d\nx y z\n")
>>> data = read_tuning_list(os.path.join(d, "nbest.txt"), os.path.join(d, "ref.txt"), tokenize="none")
>>> data.n_sources, data.n_entries, data.feature_names
(2, 4, ['lm_0', 'w_0'])
>>> res = tune(data, algorithm="pro", variant="bleu+1", init=[1.0, 0.0], gamma=50, seed=1)
>>> round(res.start.score, 2), round(res.final.score, 2), res.final.ratio, res.weights.round(3).tolist()
(0.0, 100.0, 1.0, [-0.51, 0.49])
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import ArrayLike, NDArray

from .._validate import check_choice, check_count, check_number
from .._version import __version__
from ..engine.stats import StatsTable, compute_stats
from ..errors import InputError
from ..meta.resample import as_generator
from ..metrics.formula import METRICS
from ..engine._options import REF_LENGTHS
from ..metrics.results import BLEUScore, Signature
from ..metrics.sentence import SentenceStats, get_variant, required_order, sentence_stats
from .kbest import one_best_rows, selection_bleu
from .nbest_io import DEFAULT_CHUNK_BYTES, check_sources, read_nbest, read_references
from .nbest_features import (
    FeatureLayout,
    feature_names,
    moses_weight_lines,
    parse_features,
)
from ._options import ALGORITHMS

__all__ = ["ALGORITHMS", "BACKGROUND_METRICS", "TuneResult", "TuningList", "read_tuning_list", "tune"]

#: Tuners of :func:`tune`.
#: Variants scored inside a pseudo-document; the tuner supplies their ``background``.
BACKGROUND_METRICS = ("pseudo-doc", "chiang-gain")

#: Pairs drawn per block of sources (bounds the memory of :func:`pro_sample_pairs`).
_PAIRS_PER_BLOCK = 1 << 20


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class TuningList:
    """A k-best list ready for tuning: features, statistics and per-source row ranges.

    Rows are entries, grouped by source in increasing source id; within a
    source, entries keep file order (earlier files first).

    Attributes
    ----------
    features : ndarray, shape (n, F), float64
        Dense features, one column per :attr:`feature_names`.
    layout : FeatureLayout
        Moses labels and value counts (``(("d", 7), ("lm", 1), ...)``).
    stats : StatsTable
        BLEU statistics of every entry, same row order.
    offsets : ndarray, shape (S + 1,), int64
        Entries of source ``k`` are rows ``offsets[k]:offsets[k + 1]``.
    source_ids : ndarray, shape (S,), int64
        The n-best id of each source.
    text : pyarrow.Array, optional
        The hypotheses (for writing the 1-best).
    n_read : int
        Entries read before duplicates were removed.
    sources : tuple of str
        The files read (empty for tables).
    """

    features: NDArray[np.float64]
    layout: FeatureLayout
    stats: StatsTable
    offsets: NDArray[np.int64]
    source_ids: NDArray[np.int64]
    text: pa.Array | None = None
    n_read: int = 0
    sources: tuple[str, ...] = ()
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_entries(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_sources(self) -> int:
        return len(self.source_ids)

    @property
    def n_duplicates(self) -> int:
        """Entries dropped as duplicates of an earlier entry of the same source."""
        return max(0, self.n_read - self.n_entries)

    @property
    def feature_names(self) -> list[str]:
        return feature_names(self.layout)

    @property
    def seg_id(self) -> NDArray[np.int64]:
        """Source id of every entry."""
        return np.repeat(self.source_ids, np.diff(self.offsets))

    def model_scores(self, weights: ArrayLike) -> NDArray[np.float64]:
        r"""Model score :math:`w \cdot f(e)` of every entry."""
        return self.features @ _check_weights(weights, self.n_features, "weights")

    @property
    def n_features(self) -> int:
        return int(self.features.shape[1])

    def one_best(self, weights: ArrayLike) -> NDArray[np.int64]:
        """Row of the highest-scoring entry of every source under ``weights`` (ties: the earliest row)."""
        return one_best_rows(self.seg_id, self.model_scores(weights))

    def corpus_bleu(self, rows: ArrayLike, *, metric: str = "bleu", ref_length: str = "closest",
                    max_ngram_order: int = 4) -> BLEUScore:
        """Corpus BLEU (or ΔBLEU) of the selected rows, e.g. the 1-best; ``.ratio`` is :math:`c/r`."""
        stats = self.stats.up_to_order(max_ngram_order)
        return selection_bleu(stats, rows, metric=metric, ref_length=ref_length)

    def select(self, rows: ArrayLike) -> TuningList:
        """The list restricted to some entries (e.g. what a decoder would return), order kept.

        ``rows`` are increasing entry indices or a boolean mask; sources left
        without entries are dropped.

        Examples
        --------
        >>> import pandas as pd
        >>> nb = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a", "b", "c"], "features": ["w= 1", "w= 2", "w= 3"]})
        >>> tl = read_tuning_list(nb, pd.DataFrame({"seg_id": [0, 1], "text": ["a", "c"]}), tokenize="none")
        >>> sub = tl.select([1, 2])
        >>> sub.features.ravel().tolist(), sub.offsets.tolist(), sub.source_ids.tolist()
        ([2.0, 3.0], [0, 1, 2], [0, 1])
        """
        r = np.asarray(rows)
        if r.dtype == bool:
            if r.shape != (self.n_entries,):
                raise InputError(f"rows: a boolean mask needs one value per entry ({self.n_entries}); got shape "
                                 f"{r.shape}.")
            r = np.flatnonzero(r)
        r = r.astype(np.int64, copy=False)
        if r.ndim != 1 or (len(r) and (r[0] < 0 or r[-1] >= self.n_entries or (np.diff(r) <= 0).any())):
            raise InputError(f"rows must be increasing entry indices in [0, {self.n_entries}); got {rows!r:.80}.")
        seg = self.seg_id[r]
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]]) if len(seg) else np.zeros(0, np.int64)
        return TuningList(np.ascontiguousarray(self.features[r]), self.layout, self.stats.select(r),
                          np.r_[starts, len(seg)].astype(np.int64), seg[starts].astype(np.int64),
                          None if self.text is None else self.text.take(pa.array(r)), len(r), self.sources)

    def sentence_stats(self, *, metric: str = "bleu", ref_length: str = "closest",
                       max_ngram_order: int = 4) -> tuple[SentenceStats, NDArray[np.float64]]:
        """The registry's per-entry statistics and flat ``[c, r, m.., t..]`` vectors (computed once, cached)."""
        key = (metric, ref_length, max_ngram_order)
        if key not in self._cache:
            s = sentence_stats(self.stats, metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
            vec = np.concatenate([s.hyp_len[:, None], s.ref_len[:, None], s.match, s.total], axis=-1)
            self._cache[key] = (s, np.ascontiguousarray(vec))
        return self._cache[key]


def _empty_system(n: int) -> pa.Array:
    return pa.StringArray.from_buffers(n, pa.py_buffer(np.zeros(n + 1, np.int32)), pa.py_buffer(b""))


def read_tuning_list(
    nbests: str | os.PathLike | Sequence[str | os.PathLike] | pd.DataFrame | pa.Table,
    references: Sequence[str | os.PathLike] | str | os.PathLike | pd.DataFrame | pa.Table,
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    max_ngram_order: int = 4,
    dedupe: bool = True,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    allow_missing_sources: bool = False,
) -> TuningList:
    """Read one or several Moses n-best lists (with dense features) and their references for tuning.

    Several lists (e.g. the n-best lists of several tuning iterations) are
    merged per source, earlier lists first. With ``dedupe`` an entry is
    dropped when an earlier entry of the same source has the same feature
    values and the same BLEU statistics, Moses' ``extractor`` rule
    (``mert/Data.cpp`` ``removeDuplicates``; Moses keeps the survivors in a
    different order, which changes nothing a tuner sees).

    Parameters
    ----------
    nbests : path, list of paths, or table
        Moses n-best files (``.gz`` too) or one table with ``seg_id``,
        ``text`` and a Moses ``features`` string column.
    references : paths or table
        As :func:`bleustats.tools.nbest_io.read_references`: reference files (line
        ``i`` = source ``i``) or a long-form references table (weights give
        ΔBLEU statistics).
    tokenize, lowercase, max_ngram_order
        As :func:`bleustats.compute_stats` (Moses tunes on whitespace tokens:
        ``tokenize='none'``).
    dedupe : bool
        Drop duplicate entries (see above).
    chunk_bytes : int
        Bytes of n-best text parsed per step.
    allow_missing_sources : bool
        Tune on the sources that have entries when some sources of the
        references have none (refused by default, as in
        :func:`bleustats.tools.kbest.score_nbest`:
        :func:`bleustats.tools.nbest_io.check_sources`).

    Raises
    ------
    bleustats.InputError
        Entries whose feature labels or counts differ (within or between
        files; the line is named), sources without a reference, sources of
        the references without entries (unless ``allow_missing_sources``),
        malformed lines.

    Examples
    --------
    >>> import pandas as pd
    >>> nb = pd.DataFrame({"seg_id": [0, 0, 0], "text": ["a b", "a b", "a c"],
    ...                    "features": ["w= -2", "w= -2", "w= -2"]})
    >>> tl = read_tuning_list(nb, pd.DataFrame({"seg_id": [0], "text": ["a b"]}), tokenize="none")
    >>> tl.n_entries, tl.n_duplicates
    (2, 1)
    """
    if isinstance(nbests, (pd.DataFrame, pa.Table, str, os.PathLike)):
        inputs = [nbests]
    else:
        inputs = list(nbests)
        if not inputs:
            raise InputError("nbest: give at least one n-best list.")
    layout: FeatureLayout | None = None
    segs, texts, feats, names = [], [], [], []
    for item in inputs:
        what = str(item) if isinstance(item, (str, os.PathLike)) else "nbest"
        line = 1
        for chunk in read_nbest(item, chunk_bytes=chunk_bytes):
            if "features" not in chunk.column_names:
                raise InputError(f"{what}: has no features; tuning needs Moses n-best lines "
                                    "'id ||| hypothesis ||| name= v1 v2 ... ||| total' (or a table with a "
                                    "'features' column).")
            values, layout = parse_features(chunk.column("features"), layout=layout, what=what, first_line=line)
            line += chunk.num_rows
            segs.append(chunk.column("seg_id").to_numpy())
            texts.append(chunk.column("text"))
            feats.append(values)
        names.append(what)
    if layout is None:
        raise InputError("nbest: no entries; the k-best lists are empty.")
    seg = np.concatenate(segs)
    features = np.concatenate(feats)
    text = pa.chunked_array([t for c in texts for t in (c.chunks if isinstance(c, pa.ChunkedArray) else [c])],
                            pa.string()).combine_chunks()
    n_read = len(seg)
    order = np.argsort(seg, kind="stable")
    if (order != np.arange(n_read)).any():
        seg, features, text = seg[order], features[order], text.take(pa.array(order))
    refs = read_references(references)
    # the same cross-checks as kbest: sources without a reference, references without entries
    check_sources(seg, refs.column("seg_id").to_numpy(), nbest=", ".join(names),
                  references=_ref_name(references), allow_missing_sources=allow_missing_sources)
    hyps = pa.table({"seg_id": pa.array(seg, pa.int64()), "system": _empty_system(len(seg)), "text": text})
    stats = compute_stats(hyps, refs, tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order,
                          k_best=True)
    if dedupe and len(seg) > 1:
        cols = {"seg": seg}
        for j in range(features.shape[1]):
            cols[f"f{j}"] = features[:, j]
        for name in stats.table.column_names:
            if name not in ("seg_id", "system"):
                cols[name] = stats.column(name)
        dup = pd.DataFrame(cols).duplicated(keep="first").to_numpy()
        if dup.any():
            keep = np.flatnonzero(~dup)
            seg, features, text = seg[keep], features[keep], text.take(pa.array(keep))
            stats = stats.select(keep)
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    offsets = np.r_[starts, len(seg)].astype(np.int64)
    return TuningList(np.ascontiguousarray(features, np.float64), layout, stats, offsets,
                      seg[starts].astype(np.int64), text, n_read, tuple(names))


def _ref_name(references: Any) -> str:
    """The reference file(s), for messages (a table is named by its role)."""
    if isinstance(references, (str, os.PathLike)):
        return str(references)
    if isinstance(references, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in references):
        return ", ".join(map(str, references))
    return "references"


# --------------------------------------------------------------------------- checks


def _check_weights(weights: Any, n: int, name: str) -> NDArray[np.float64]:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,) or not np.isfinite(w).all():
        raise InputError(f"{name} must be {n} finite numbers, one per feature; got shape {w.shape}"
                         + ("" if w.shape != (n,) else " with non-finite values") + ".")
    return w


def _check_offsets(offsets: Any, n: int) -> NDArray[np.int64]:
    off = np.asarray(offsets)
    if off.ndim != 1 or len(off) < 1 or not np.issubdtype(off.dtype, np.integer) or off[0] != 0 \
            or off[-1] != n or (np.diff(off) < 1).any():
        raise InputError(f"offsets must be increasing integers from 0 to the number of entries ({n}), every "
                         f"source with at least one entry; got {off!r:.80}.")
    return off.astype(np.int64)


# --------------------------------------------------------------------------- PRO


class PairSample(NamedTuple):
    """Pairs kept by :func:`pro_sample_pairs`, per source in draw order.

    ``winner`` / ``loser`` are entry rows (the winner scores higher), ``source``
    the source index (0..S-1), ``gap`` the score difference on the 0–1 scale.
    """

    source: NDArray[np.int64]
    winner: NDArray[np.int64]
    loser: NDArray[np.int64]
    gap: NDArray[np.float64]


def pro_sample_pairs(
    scores: ArrayLike,
    offsets: ArrayLike,
    *,
    gamma: int = 5000,
    alpha: float = 0.05,
    xi: int = 50,
    seed: int | np.random.Generator = 0,
) -> PairSample:
    r"""PRO's pair sampling (Hopkins & May, 2011), all sources at once.

    For source :math:`s` with entries :math:`e_0 .. e_{n_s - 1}` and scores
    :math:`g` (on the 0–1 scale, ``scores / 100``): draw :math:`\Gamma` pairs
    :math:`(i, j)` uniformly with replacement, keep those with

    .. math::

        |g(e_i) - g(e_j)| \ge \alpha

    and of those the :math:`\Xi` with the largest difference (ties: the
    earlier draw). Moses' ``mert/pro.cpp`` discards a pair when the difference
    is below :math:`\alpha`, as here.

    Random numbers: ``rng.random()`` gives two uniform draws :math:`u_1, u_2`
    per pair, sources in order, pairs in order; :math:`i = \lfloor u_1 n_s
    \rfloor`, :math:`j = \lfloor u_2 n_s \rfloor` (clipped to :math:`n_s - 1`).
    They are drawn in bulk, blocks of sources at a time, so the same seed gives
    the same pairs as drawing them one by one.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Sentence-level scores of the entries, 0–100 scale.
    offsets : array_like, shape (S + 1,)
        Entries of source ``k`` are ``offsets[k]:offsets[k + 1]``.
    gamma, alpha, xi
        :math:`\Gamma` (candidates per source), :math:`\alpha` (minimum
        difference, 0–1 scale), :math:`\Xi` (pairs kept per source).
    seed : int or numpy.random.Generator
        An int seeds ``numpy.random.default_rng``; a Generator is advanced.

    Returns
    -------
    PairSample

    Examples
    --------
    >>> p = pro_sample_pairs([80.0, 20.0, 50.0, 10.0, 12.0], [0, 3, 5], gamma=10, xi=2, seed=3)
    >>> p.source.tolist(), p.winner.tolist(), p.loser.tolist(), p.gap.round(2).tolist()
    ([0, 0], [0, 0], [1, 1], [0.6, 0.6])
    """
    g = np.asarray(scores, dtype=np.float64)
    if g.ndim != 1 or not np.isfinite(g).all():
        raise InputError(f"scores must be a 1-D array of finite numbers; got shape {g.shape}.")
    off = _check_offsets(offsets, len(g))
    gamma = check_count("gamma", gamma, minimum=1)
    xi = check_count("xi", xi, minimum=1)
    alpha = check_number("alpha", alpha, non_negative=True)
    rng = as_generator(seed)
    g = g / 100.0
    n_src = len(off) - 1
    counts = np.diff(off)
    block = max(1, _PAIRS_PER_BLOCK // gamma)
    out: list[tuple[np.ndarray, ...]] = []
    for b0 in range(0, n_src, block):
        b1 = min(n_src, b0 + block)
        n_s = counts[b0:b1, None, None]
        u = rng.random((b1 - b0, gamma, 2))
        idx = np.minimum((u * n_s).astype(np.int64), n_s - 1) + off[b0:b1, None, None]
        s = g[idx]
        d = s[..., 0] - s[..., 1]
        a = np.abs(d)
        valid = a >= alpha
        key = np.where(valid, a, -1.0)
        if gamma > xi:
            thr = -np.partition(-key, xi - 1, axis=1)[:, xi - 1]  # the xi-th largest per source
            above = key > thr[:, None]
            tie = key == thr[:, None]
            room = xi - above.sum(axis=1)
            keep = above | (tie & (np.cumsum(tie, axis=1) <= room[:, None]))
            keep &= valid
        else:
            keep = valid
        src, j = np.nonzero(keep)
        first = d[src, j] > 0
        i1, i2 = idx[src, j, 0], idx[src, j, 1]
        out.append((src + b0, np.where(first, i1, i2), np.where(first, i2, i1), a[src, j]))
    if not out:
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0, np.float64)
        return PairSample(empty_i, empty_i, empty_i, empty_f)
    return PairSample(*(np.concatenate([o[k] for o in out]) for k in range(4)))


def fit_pro(
    differences: ArrayLike,
    *,
    l2: float = 1.0,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> NDArray[np.float64]:
    r"""Logistic regression of PRO: L2-regularized, no bias, on pair feature differences in both directions.

    Each kept pair gives :math:`x_i = f(\text{winner}) - f(\text{loser})` with
    label 1 and :math:`-x_i` with label 0; the two examples contribute the same
    loss, so the objective is

    .. math::

        J(w) = 2 \sum_i \log\big(1 + e^{-w \cdot x_i}\big) + \frac{\lambda}{2} \lVert w \rVert^2 ,

    minimized by Newton's method with a backtracking line search (the Hessian
    :math:`2 \sum_i \sigma_i (1 - \sigma_i) x_i x_i^\top + \lambda I` is
    :math:`F \times F`; :math:`\lambda > 0` makes :math:`J` strictly convex, so
    the minimum is unique even for separable pairs).

    Parameters
    ----------
    differences : array_like, shape (m, F)
        :math:`x_i`, one row per pair.
    l2 : float
        :math:`\lambda > 0`.
    max_iter : int
        Newton steps at most.
    tol : float
        Stop after a full Newton step below ``tol`` times
        :math:`1 + \lVert w \rVert_\infty` in every coordinate, or once
        :math:`J` can no longer decrease in float64 (decrement below 100
        machine epsilons of :math:`J`; again after a last full step). Newton
        converges quadratically: the last step leaves :math:`w` at machine
        precision.

    Returns
    -------
    ndarray, shape (F,)
        The minimizer :math:`w` (not normalized).

    Raises
    ------
    ValueError
        Non-finite differences, :math:`\lambda \le 0`, or no convergence in
        ``max_iter`` steps.

    Examples
    --------
    >>> fit_pro([[1.0, 0.0], [2.0, 0.5]], l2=1.0).round(4).tolist()
    [0.996, 0.1141]
    """
    x = np.asarray(differences, dtype=np.float64)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise InputError(f"differences must be a 2-D array (pairs x features) of finite numbers; got shape {x.shape}.")
    lam = check_number("l2", l2, positive=True)
    max_iter = check_count("max_iter", max_iter, minimum=1)
    w = np.zeros(x.shape[1])

    def objective(v: np.ndarray) -> float:
        return float(2.0 * np.logaddexp(0.0, -(x @ v)).sum() + 0.5 * lam * v @ v)

    j = objective(w)
    for _ in range(max_iter):
        z = x @ w
        p = 0.5 * (1.0 + np.tanh(-0.5 * z))  # sigma(-z), stable
        grad = -2.0 * (x.T @ p) + lam * w
        hess = 2.0 * (x.T * (p * (1.0 - p))) @ x + lam * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        decrement = 0.5 * float(grad @ step)
        if decrement <= 0.0:
            return w
        if np.abs(step).max() <= tol * (1.0 + np.abs(w).max()) or decrement <= 100 * np.finfo(float).eps * max(1.0, j):
            # this close to the minimum the full Newton step is exact to second order (and J may be
            # flat in float64, so a line search could not tell steps apart): take it and stop
            return w - step
        t = 1.0
        while True:
            cand = w - t * step
            jc = objective(cand)
            if jc <= j - 0.5 * t * decrement:  # Armijo: a quarter of the predicted decrease 2 t decrement
                break
            t *= 0.5
            if t < 1e-10:
                return w  # no representable decrease along the Newton direction: the float64 floor
        w, j = cand, jc
    raise InputError(f"fit_pro: Newton's method did not converge in max_iter={max_iter} steps; raise max_iter "
                     "or l2.")


def background_from_one_best(vectors: NDArray[np.float64], rows: ArrayLike, *,
                             decay: float = 0.9) -> NDArray[np.float64]:
    r"""A pseudo-document background for PRO: the fixed point of Chiang's decayed update over 1-best entries.

    With :math:`B \leftarrow \gamma (B + s)` applied once per source and
    :math:`s` the average statistics vector :math:`\bar v` of the 1-best
    entries, :math:`B` settles at

    .. math::

        B^* = \frac{\gamma}{1 - \gamma}\, \bar v ,

    about nine average sentences for :math:`\gamma = 0.9`. PRO samples all
    sources at once, so it scores every entry against this :math:`B^*` built
    from the 1-best under the current weights.

    Examples
    --------
    >>> background_from_one_best(np.array([[2.0, 2.0], [4.0, 6.0]]), [0, 1], decay=0.5).tolist()
    [3.0, 4.0]
    """
    decay = check_number("decay", decay, positive=True, maximum=1.0 - 1e-12)
    v = np.asarray(vectors, np.float64)[np.asarray(rows, np.int64)]
    return decay / (1.0 - decay) * v.mean(axis=0)


def _per_sentence(scores: NDArray[np.float64], ref_len: NDArray[np.float64], ref_len_background: float
                  ) -> NDArray[np.float64]:
    r"""A pseudo-document score on a sentence's scale: :math:`\mathrm{score} \cdot (r_B + r) / r`.

    :math:`\mathrm{BLEU}(B + s)` moves by about :math:`r / (r_B + r)` of what
    the sentence's own score moves, so PRO's :math:`\alpha` (a sentence-level
    difference) would discard every pair; scaled back, the gain is per
    reference word of the sentence, as MIRA's gain (scaled by :math:`r_B + r`)
    divided by :math:`r`.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ref_len > 0, scores * (ref_len + ref_len_background) / np.where(ref_len > 0, ref_len, 1.0),
                        scores)


def _l1_normalized(w: NDArray[np.float64]) -> NDArray[np.float64]:
    norm = np.abs(w).sum()
    return w / norm if norm > 0 else w


# --------------------------------------------------------------------------- MIRA


class MiraState(NamedTuple):
    """Where batch MIRA stands: current weights, their running sum and count (for averaging), background."""

    weights: NDArray[np.float64]
    total: NDArray[np.float64]
    steps: int
    background: NDArray[np.float64]

    @property
    def average(self) -> NDArray[np.float64]:
        """Average of the weights after every step so far (the current weights before any step)."""
        return self.total / self.steps if self.steps else self.weights.copy()

    @classmethod
    def start(cls, weights: ArrayLike, background: ArrayLike) -> MiraState:
        w = np.array(weights, dtype=np.float64)
        return cls(w, np.zeros_like(w), 0, np.array(background, dtype=np.float64))


class _Gains:
    """Per-entry gains g = score / 100 * L of one variant; background variants per source."""

    def __init__(self, data: TuningList, variant: str, options: Mapping[str, Any], metric: str, ref_length: str,
                 max_ngram_order: int, gain_scale: str | float) -> None:
        self.variant = get_variant(variant)
        self.options = dict(options)
        self.s, self.vectors = data.sentence_stats(metric=metric, ref_length=ref_length,
                                                   max_ngram_order=max_ngram_order)
        self.uses_background = variant in BACKGROUND_METRICS
        self.by_length = gain_scale == "ref-length"
        self.scale = 1.0 if self.by_length else float(gain_scale)
        self.fixed: np.ndarray | None = None
        if not self.uses_background:
            g = self.variant(self.s, **self.options) / 100.0
            self.fixed = g * (self.s.ref_len if self.by_length else self.scale)

    def __call__(self, lo: int, hi: int, background: np.ndarray) -> np.ndarray:
        if self.fixed is not None:
            return self.fixed[lo:hi]
        sub = SentenceStats(*(None if a is None else a[lo:hi] for a in self.s))
        g = self.variant(sub, background=background, **self.options) / 100.0
        return g * ((sub.ref_len + background[1]) if self.by_length else self.scale)


def mira_epoch(
    data: TuningList,
    state: MiraState,
    *,
    variant: str = "bleu+1",
    variant_options: Mapping[str, Any] | None = None,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int = 4,
    c: float = 0.01,
    decay: float = 0.9,
    gain_scale: str | float = "ref-length",
    order: ArrayLike | None = None,
    _gains: _Gains | None = None,
) -> tuple[MiraState, dict[str, float]]:
    r"""One epoch of batch k-best MIRA (Cherry & Foster, 2012) over every source.

    For each source :math:`s` (in ``order``), with gains :math:`g` and the
    current weights :math:`w`:

    .. math::

        h = \arg\max_e\, w \cdot f(e) + g(e), \qquad
        y = \arg\max_e\, w \cdot f(e) - g(e)

    (hope and fear; ties: the earlier entry). When :math:`h \ne y` and
    :math:`g(h) > g(y)`, with :math:`\Delta f = f(h) - f(y)` and the loss
    :math:`\ell = g(h) - g(y) - w \cdot \Delta f`:

    .. math::

        w \leftarrow w + \min\Big(C, \frac{\ell}{\lVert \Delta f \rVert^2}\Big) \Delta f
        \quad \text{if } \ell > 0, \qquad
        B \leftarrow \gamma\, (B + v(h))

    (Chiang et al.'s decayed update, :func:`bleustats.metrics.sentence.update_background`,
    with the hope's statistics; Moses' ``kbmira`` adds the hope the same way,
    only when :math:`h \ne y` and :math:`g(h) > g(y)`, but decays as
    :math:`B \leftarrow \gamma B + v(h)`). After every source the weights are
    added to the running sum that averages them (every step counts; ``kbmira``
    averages over updates only).

    The gain is :math:`g(e) = \mathrm{score}(e) / 100 \cdot L(e)`; with
    ``gain_scale='ref-length'`` :math:`L(e) = r(e) + r_B`, the reference
    length of the entry plus that of the background (0 for variants without
    one), as Moses' ``kbmira`` scales :math:`\mathrm{BLEU}(B + s)` (a number
    gives a constant :math:`L`). ``pseudo-doc`` / ``chiang-gain`` are scored
    against the current :math:`B`; the other variants ignore it.

    Parameters
    ----------
    data : TuningList
    state : MiraState
        From :meth:`MiraState.start` or the previous epoch.
    variant, variant_options, metric, ref_length, max_ngram_order
        The variant and its statistics (as :func:`bleustats.metrics.sentence.score_variant`).
    c : float
        Step cap :math:`C` (Moses: 0.01).
    decay : float
        Background decay :math:`\gamma` in (0, 1] (Chiang et al.: 0.9; Moses'
        ``kbmira``: 0.999).
    gain_scale : 'ref-length' or float
        :math:`L` above.
    order : array_like, optional
        Source indices in visiting order (default: 0..S-1).

    Returns
    -------
    state : MiraState
    summary : dict
        ``updates`` (sources whose weights changed), ``loss`` (sum of
        :math:`\ell > 0`), ``examples``.

    Examples
    --------
    >>> import pandas as pd
    >>> nb = pd.DataFrame({"seg_id": [0, 0], "text": ["a b c d", "a b"],
    ...                    "features": ["w= -4", "w= -2"]})
    >>> tl = read_tuning_list(nb, pd.DataFrame({"seg_id": [0], "text": ["a b c d"]}), tokenize="none")
    >>> st, info = mira_epoch(tl, MiraState.start([1.0], np.ones(10)))
    >>> st.weights.round(4).tolist(), info["updates"]
    ([0.98], 1)
    """
    c = check_number("c", c, positive=True)
    decay = check_number("decay", decay, positive=True, maximum=1.0)
    if not (gain_scale == "ref-length" or (not isinstance(gain_scale, (str, bool))
                                          and isinstance(gain_scale, (int, float)) and gain_scale > 0)):
        raise InputError(f"gain_scale must be 'ref-length' or a positive number; got {gain_scale!r}.")
    n_feat = data.n_features
    w = _check_weights(state.weights, n_feat, "state.weights").copy()
    total = _check_weights(state.total, n_feat, "state.total").copy()
    background = np.array(state.background, dtype=np.float64)
    gains = _gains if _gains is not None else _Gains(data, variant, variant_options or {}, metric, ref_length,
                                                     max_ngram_order, gain_scale)
    if background.shape != (gains.vectors.shape[1],):
        raise InputError(f"state.background must have {gains.vectors.shape[1]} values ([c, r, m_1..m_N, t_1..t_N] "
                         f"for N = {max_ngram_order}); got shape {background.shape}.")
    off = data.offsets
    n_src = data.n_sources
    if order is None:
        visit = np.arange(n_src)
    else:
        visit = np.asarray(order)
        if visit.ndim != 1 or not np.issubdtype(visit.dtype, np.integer) or \
                (len(visit) and (visit.min() < 0 or visit.max() >= n_src)):
            raise InputError(f"order must be source indices in [0, {n_src}); got {visit!r:.80}.")
    feats, vectors = data.features, gains.vectors
    updates, loss_sum = 0, 0.0
    for s in visit.tolist():
        lo, hi = int(off[s]), int(off[s + 1])
        f = feats[lo:hi]
        model = f @ w
        g = gains(lo, hi, background)
        hope = int(np.argmax(model + g))
        fear = int(np.argmax(model - g))
        if hope != fear and g[hope] > g[fear]:
            df = f[hope] - f[fear]
            loss = float(g[hope] - g[fear] - w @ df)
            sq = float(df @ df)
            if loss > 0 and sq > 0:
                w += min(c, loss / sq) * df
                updates += 1
                loss_sum += loss
            background = decay * (background + vectors[lo + hope])
        total += w
    new = MiraState(w, total, state.steps + len(visit), background)
    return new, {"updates": updates, "loss": loss_sum, "examples": len(visit)}


# --------------------------------------------------------------------------- driver


@dataclass(frozen=True)
class TuneResult:
    """The outcome of :func:`tune`.

    Attributes
    ----------
    weights : ndarray, shape (F,)
        Final weights (PRO: L1-normalized; MIRA: the averaged weights of the
        best epoch, unnormalized).
    layout : FeatureLayout
    algorithm, variant : str
    seed : int
    signature : Signature
        The BLEU signature of the statistics, then how the weights were made:
        tuner, variant, its settings, seed.
    start, final : BLEUScore
        Corpus BLEU of the 1-best under the start and final weights
        (``.ratio`` = hypothesis / reference length).
    one_best : ndarray
        Row of the 1-best of every source under the final weights.
    history : list of dict
        Per iteration (PRO) or epoch (MIRA): ``iteration``, ``bleu``,
        ``ratio``, and ``pairs`` (PRO) or ``updates`` / ``loss`` (MIRA).
    options : dict
        Every setting used.
    timings : dict
        Seconds: ``scoring``, ``sampling``, ``fit`` (PRO) or ``epochs``
        (MIRA), ``evaluate``, ``total``.
    """

    weights: NDArray[np.float64]
    layout: FeatureLayout
    algorithm: str
    variant: str
    seed: int
    signature: Signature
    start: BLEUScore
    final: BLEUScore
    one_best: NDArray[np.int64]
    history: list[dict[str, Any]]
    options: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def feature_names(self) -> list[str]:
        return feature_names(self.layout)

    def weights_by_name(self) -> dict[str, float]:
        return dict(zip(self.feature_names, map(float, self.weights)))

    def moses_lines(self) -> list[str]:
        """The weights as Moses ``name= v1 v2 ...`` lines."""
        return moses_weight_lines(self.weights, self.layout)

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON types (what ``bleustats tune -o`` writes)."""
        def summary(r: BLEUScore) -> dict[str, Any]:
            return {"bleu": r.score, "ratio": r.ratio, "sys_len": r.sys_len, "ref_len": r.ref_len,
                    "precisions": list(r.precisions), "bp": r.bp}

        return {"weights": self.weights_by_name(), "moses": self.moses_lines(), "algorithm": self.algorithm,
                "variant": self.variant, "seed": self.seed, "signature": str(self.signature),
                "bleu": self.final.score, "ratio": self.final.ratio, "final": summary(self.final),
                "start": summary(self.start), "bleu_signature": str(self.final.signature),
                "history": [dict(h) for h in self.history], "options": dict(self.options),
                "timings": dict(self.timings), "version": __version__}


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def tune(
    data: TuningList,
    *,
    algorithm: str = "pro",
    variant: str = "bleu+1",
    variant_options: Mapping[str, Any] | None = None,
    metric: str = "bleu",
    ref_length: str = "closest",
    max_ngram_order: int = 4,
    init: ArrayLike | None = None,
    seed: int = 0,
    iterations: int | None = None,
    gamma: int = 5000,
    alpha: float = 0.05,
    xi: int = 50,
    l2: float = 1.0,
    interpolate: float | None = None,
    c: float = 0.01,
    decay: float = 0.9,
    gain_scale: str | float = "ref-length",
    shuffle: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    r"""Tune feature weights on a k-best list with PRO or batch k-best MIRA under a sentence-level variant.

    PRO, per iteration :math:`k = 1..K` (default :math:`K = 1`): score every
    entry under ``variant`` (background variants against
    :func:`background_from_one_best` of the 1-best under :math:`w_{k-1}`),
    sample pairs (:func:`pro_sample_pairs`, one seeded generator for all
    iterations), fit :math:`\tilde w_k` (:func:`fit_pro`), and set

    .. math::

        w_k = \mathrm{n}\Big(\psi\, \mathrm{n}(\tilde w_k) + (1 - \psi)\, \mathrm{n}(w_{k-1})\Big),
        \qquad \mathrm{n}(v) = v / \lVert v \rVert_1

    (the 1-best depends only on the direction of :math:`w`), with
    :math:`\psi` = ``interpolate`` (default: no interpolation, :math:`\psi = 1`;
    Hopkins & May use 0.1 across decoding iterations). The result is :math:`w_K`.

    MIRA: ``iterations`` epochs (default 60, Moses' ``kbmira``) of
    :func:`mira_epoch`, sources shuffled every epoch by the seeded generator,
    starting from ``init`` and a background of ones (as ``kbmira``); after each
    epoch the averaged weights are evaluated and the best epoch's are the
    result (as ``kbmira`` keeps them).

    Evaluation: the 1-best of every source (ties: the earliest entry, so zero
    weights pick each source's first entry, the decoder's 1-best) and its
    corpus BLEU (``metric='delta_bleu'``: ΔBLEU) with reference length
    ``ref_length``.

    Parameters
    ----------
    data : TuningList
        From :func:`read_tuning_list`.
    algorithm : {'pro', 'mira'}
    variant : str
        Any registered sentence-level variant (``nakov:`` combinations too).
    variant_options : dict, optional
        Options of the variant (e.g. ``{"ilr": 0.97}`` for ``nakov:scaled``);
        ``background`` is the tuner's.
    metric : {'bleu', 'delta_bleu'}
    ref_length : {'closest', 'shortest', 'average'}
    max_ngram_order : int
        Order N of the variant and of the corpus BLEU.
    init : array_like, optional
        Start weights, one per feature (default zeros).
    seed : int
        Seeds ``numpy.random.default_rng`` (pair sampling, epoch order).
    iterations : int, optional
        PRO iterations or MIRA epochs.
    gamma, alpha, xi, l2, interpolate
        PRO settings (:func:`pro_sample_pairs`, :func:`fit_pro`, :math:`\psi`).
    c, decay, gain_scale, shuffle
        MIRA settings (:func:`mira_epoch`; ``decay`` is also PRO's background
        decay); ``shuffle=False`` visits sources in order.
    progress : callable, optional
        Called with ``(done, total)`` after every iteration / epoch.

    Returns
    -------
    TuneResult

    Examples
    --------
    >>> import pandas as pd
    >>> nb = pd.DataFrame({"seg_id": [0, 0, 1, 1], "text": ["a b c d", "a b", "x y", "x y z w"],
    ...                    "features": ["w= -4 lm= -1", "w= -2 lm= -3", "w= -2 lm= -1", "w= -4 lm= -3"]})
    >>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d", "x y z w"]})
    >>> tl = read_tuning_list(nb, refs, tokenize="none")
    >>> r = tune(tl, algorithm="mira", init=[1.0, 0.0], iterations=3, seed=0, c=1.0)
    >>> round(r.start.score, 1), round(r.final.score, 1), [h["updates"] for h in r.history]
    (0.0, 100.0, [2, 0, 0])
    """
    t_start = time.perf_counter()
    if not isinstance(data, TuningList):
        raise TypeError(f"data must be a TuningList (from read_tuning_list); got {type(data).__name__}.")
    check_choice("algorithm", algorithm, ALGORITHMS)
    check_choice("metric", metric, METRICS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    variant_obj = get_variant(variant)
    options = dict(variant_options or {})
    if "background" in options:
        raise InputError("variant_options: 'background' is built by the tuner (a decayed pseudo-document); "
                         "leave it out.")
    unknown = set(options) - set(variant_obj.options)
    if unknown:
        raise InputError(f"variant_options: {variant} takes {', '.join(sorted(variant_obj.options)) or 'no options'}; "
                         f"got {', '.join(sorted(unknown))}.")
    extra = required_order([variant], 0)  # the orders the variant reads beyond max_ngram_order
    largest = data.stats.max_ngram_order - extra
    if isinstance(max_ngram_order, (bool, np.bool_)) or not isinstance(max_ngram_order, (int, np.integer)) \
            or not 1 <= max_ngram_order <= largest:
        raise InputError(f"max_ngram_order must be an integer from 1 to {largest} for {variant} with these "
                         f"statistics (order {data.stats.max_ngram_order}); got {max_ngram_order!r}. "
                         "Read the list with a larger max_ngram_order.")
    seed_int = seed
    rng = as_generator(seed)
    if isinstance(seed, np.random.Generator):
        seed_int = -1
    n_feat = data.n_features
    w = np.zeros(n_feat) if init is None else _check_weights(init, n_feat, "init").copy()
    if iterations is None:
        iterations = 1 if algorithm == "pro" else 60
    iterations = check_count("iterations", iterations, minimum=1)
    decay = check_number("decay", decay, positive=True, maximum=1.0)
    if interpolate is not None:
        interpolate = check_number("interpolate", interpolate, positive=True, maximum=1.0)
    eval_opts = {"metric": metric, "ref_length": ref_length, "max_ngram_order": max_ngram_order}
    timings = {"scoring": 0.0, "evaluate": 0.0}

    def evaluate(weights: np.ndarray) -> tuple[np.ndarray, BLEUScore]:
        t = time.perf_counter()
        rows = data.one_best(weights)
        res = data.corpus_bleu(rows, **eval_opts)
        timings["evaluate"] += time.perf_counter() - t
        return rows, res

    _, start = evaluate(w)
    history: list[dict[str, Any]] = []
    if algorithm == "pro":
        gamma = check_count("gamma", gamma, minimum=1)
        xi = check_count("xi", xi, minimum=1)
        alpha = check_number("alpha", alpha, non_negative=True)
        l2 = check_number("l2", l2, positive=True)
        if variant in BACKGROUND_METRICS and decay >= 1.0:
            raise InputError(f"decay must be below 1 for {variant} under PRO (the background is "
                             "decay / (1 - decay) average 1-best sentences); got 1.0.")
        s, vectors = data.sentence_stats(metric=metric, ref_length=ref_length, max_ngram_order=max_ngram_order)
        timings.update(sampling=0.0, fit=0.0)
        fixed_scores = None
        for k in range(1, iterations + 1):
            t = time.perf_counter()
            if variant in BACKGROUND_METRICS:
                bg = background_from_one_best(vectors, data.one_best(w), decay=decay)
                scores = _per_sentence(variant_obj(s, background=bg, **options), s.ref_len, bg[1])
            else:
                if fixed_scores is None:
                    fixed_scores = variant_obj(s, **options)
                scores = fixed_scores
            timings["scoring"] += time.perf_counter() - t
            t = time.perf_counter()
            pairs = pro_sample_pairs(scores, data.offsets, gamma=gamma, alpha=alpha, xi=xi, seed=rng)
            timings["sampling"] += time.perf_counter() - t
            t = time.perf_counter()
            if len(pairs.winner) == 0:
                raise InputError(f"PRO: no pair of entries differs by alpha={alpha} or more under {variant} in any "
                                 "source; lower alpha or use longer k-best lists.")
            diffs = data.features[pairs.winner] - data.features[pairs.loser]
            fitted = _l1_normalized(fit_pro(diffs, l2=l2))
            timings["fit"] += time.perf_counter() - t
            if interpolate is None or not np.any(w):
                w = fitted
            else:
                w = _l1_normalized(interpolate * fitted + (1.0 - interpolate) * _l1_normalized(w))
            _, res = evaluate(w)
            history.append({"iteration": k, "bleu": res.score, "ratio": res.ratio, "pairs": len(pairs.winner)})
            if progress is not None:
                progress(k, iterations)
        final_w = w
        settings = {"gamma": gamma, "alpha": alpha, "xi": xi, "l2": l2,
                    "interpolate": interpolate, "decay": decay if variant in BACKGROUND_METRICS else None}
    else:
        c = check_number("c", c, positive=True)
        t = time.perf_counter()
        gains = _Gains(data, variant, options, metric, ref_length, max_ngram_order, gain_scale)
        timings["scoring"] += time.perf_counter() - t
        state = MiraState.start(w, np.ones(gains.vectors.shape[1]))
        timings["epochs"] = 0.0
        best_w, best_score = w, -math.inf
        for k in range(1, iterations + 1):
            order = rng.permutation(data.n_sources) if shuffle else None
            t = time.perf_counter()
            state, info = mira_epoch(data, state, variant=variant, variant_options=options, metric=metric,
                                     ref_length=ref_length, max_ngram_order=max_ngram_order, c=c, decay=decay,
                                     gain_scale=gain_scale, order=order, _gains=gains)
            timings["epochs"] += time.perf_counter() - t
            avg = state.average
            _, res = evaluate(avg)
            history.append({"iteration": k, "bleu": res.score, "ratio": res.ratio, "updates": info["updates"],
                            "loss": info["loss"]})
            if res.score > best_score:
                best_w, best_score = avg, res.score
            if progress is not None:
                progress(k, iterations)
        final_w = best_w
        settings = {"c": c, "decay": decay, "gain_scale": gain_scale, "shuffle": shuffle,
                    "best_epoch": int(np.argmax([h["bleu"] for h in history])) + 1}
    rows, final = evaluate(final_w)
    opts = {"variant_options": {k: float(v) for k, v in options.items()}, "metric": metric,
            "ref_length": ref_length, "max_ngram_order": max_ngram_order, "iterations": iterations, **settings}
    shown = {k: v for k, v in settings.items() if k != "best_epoch"}
    # the BLEU signature of the statistics, then how the weights were made
    sig = final.signature.with_extra(
        ("tune", algorithm), ("variant", variant), *((k, _fmt(v)) for k, v in options.items()),
        ("iters", iterations), *((k, "none" if v is None else _fmt(v)) for k, v in shown.items()),
        ("seed", seed_int), ("init", "zeros" if init is None else "given"))
    timings["total"] = time.perf_counter() - t_start
    return TuneResult(np.asarray(final_w, np.float64), data.layout, algorithm, variant, int(seed_int), sig, start,
                      final, rows, history, opts, timings)
