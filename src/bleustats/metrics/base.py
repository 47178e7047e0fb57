r"""What BLEU, CHRF and TER share: sacreBLEU's ``Score``, ``Signature`` and ``Metric`` behaviour.

sacreBLEU 2.x builds every metric the same way: per-segment statistics (one
row per hypothesis), a score of their column sums, an object that caches the
references, and results that print themselves with a ``key:value|...``
signature. This module gives bleustats' metric objects
(:class:`~bleustats.metrics.bleu.BLEU`, :class:`~bleustats.metrics.chrf.CHRF`,
:class:`~bleustats.metrics.ter.TER`) that shape, on top of the engine: the
statistics come from the numba kernels as one matrix, the references are
validated (and tokenized) once in a :class:`~bleustats.engine.references.ReferenceSet`,
and bootstrap resamples are one matrix product (:func:`bootstrap_sums`).

- :class:`Score`: ``format()`` / ``repr`` / ``estimate_ci`` of sacreBLEU's ``Score``
  for the frozen result dataclasses (:class:`~bleustats.metrics.results.BLEUScore`, ...).
- :class:`Signature`: the one signature type (each metric has a subclass), the
  line long (``nrefs:1|case:mixed|...``) and short (``#:1|c:mixed|...``).
- :class:`Metric`: ``corpus_score`` / ``sentence_score`` / ``get_signature`` and
  sacreBLEU's private helpers (``_extract_corpus_statistics``,
  ``_compute_score_from_stats``, ...) that other code calls.

A bootstrap summary is sacreBLEU's: with the :math:`B` resampled scores
sorted and :math:`l = \lfloor B / 40 \rfloor`,

.. math::

    \mathrm{ci} = \tfrac12\big(s_{(B - l - 1)} - s_{(l)}\big)

reported as :math:`\bar s \pm \mathrm{ci}` (:func:`estimate_ci`).

Examples
--------
>>> sig = Signature(1, extra=(("study", "x"),))
>>> sig.update("test", "wmt14")
>>> sig.format()
'nrefs:1|test:wmt14|study:x|version:bleustats-...'
>>> sig.update("seed", 12345)
>>> sig.format(short=True)
'#:1|rs:12345|t:wmt14|study:x|v:bleustats-...'
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._version import __version__
from ..errors import InputError

if TYPE_CHECKING:  # Arrow is loaded where references are validated, not by importing a metric
    from ..engine.references import ReferenceSet

__all__ = [
    "SEED_ENV",
    "Metric",
    "Score",
    "Signature",
    "bootstrap_counts",
    "bootstrap_draws",
    "bootstrap_interval",
    "bootstrap_sums",
    "draw_counts",
    "estimate_ci",
    "sacrebleu_seed",
]

#: The environment variable sacreBLEU reads its resampling seed from ('none' = OS entropy).
SEED_ENV = "SACREBLEU_SEED"

# entries of a (samples x segments) block of draws held at once; rows come in multiples of
# 32 so that drawing a chunk at a time consumes the generator exactly as one big draw does
_CHUNK = 1 << 22


def sacrebleu_seed() -> tuple[int | None, str]:
    """The seed sacreBLEU would use (``$SACREBLEU_SEED``, default 12345) and its signature label.

    Examples
    --------
    >>> sacrebleu_seed() if "SACREBLEU_SEED" not in os.environ else (12345, "12345")
    (12345, '12345')
    """
    raw = os.environ.get(SEED_ENV, "12345")
    if raw.lower() == "none":
        return None, "none"
    try:
        return int(raw), raw.lower()
    except ValueError:
        raise InputError(f"${SEED_ENV} must be an integer or 'none'; got {raw!r}.") from None


# --------------------------------------------------------------------------- resampling


def chunk_rows(n_cols: int) -> int:
    """Rows of a (rows x ``n_cols``) block of draws that keep it near 4M entries (a multiple of 32)."""
    return max(32, (_CHUNK // max(1, n_cols)) // 32 * 32)


def bootstrap_draws(rng: np.random.Generator, n_samples: int, n: int) -> Iterator[NDArray[np.int64]]:
    r"""sacreBLEU's bootstrap draws, ``rng.choice(n, size=(n_samples, n))``, a chunk of resamples at a time.

    The chunks have :func:`chunk_rows` rows (drawn so, they consume the
    generator as one big draw does); the next chunk is drawn on a helper
    thread while the caller uses this one.

    Examples
    --------
    >>> [c.shape for c in bootstrap_draws(np.random.default_rng(0), 3, 4)]
    [(3, 4)]
    """
    step = chunk_rows(n)
    sizes = [min(step, n_samples - start) for start in range(0, n_samples, step)]
    if not sizes:
        return

    def draw(c: int) -> NDArray[np.int64]:
        return rng.choice(n, size=(c, n), replace=True)

    from concurrent.futures import ThreadPoolExecutor  # here: it loads logging and threading (ms per process)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(draw, sizes[0])
        for i in range(len(sizes)):
            idx = pending.result()
            if i + 1 < len(sizes):
                pending = pool.submit(draw, sizes[i + 1])
            yield idx


def draw_counts(draws: NDArray[np.int64], n: int, *, relabel: NDArray[np.int64] | None = None,
                dtype: Any = np.float64) -> NDArray[Any]:
    r"""How often each of the ``n`` rows was drawn in each resample: the count matrix :math:`K` of ``draws``.

    ``relabel`` renames row ``i`` to ``relabel[i]`` first (the columns of
    :math:`K` then follow that order: rows sorted by group make each group's
    columns one slice).

    Examples
    --------
    >>> draws = np.array([[0, 0, 2]])
    >>> draw_counts(draws, 3).tolist(), draw_counts(draws, 3, relabel=np.array([2, 1, 0])).tolist()
    ([[2.0, 0.0, 1.0]], [[1.0, 0.0, 2.0]])
    """
    if relabel is not None:
        draws = relabel[draws]
    counts = np.empty((draws.shape[0], n), dtype=dtype)
    for r in range(draws.shape[0]):  # row by row: each row's n counters stay in cache
        counts[r] = np.bincount(draws[r], minlength=n)
    return counts


def bootstrap_counts(rng: np.random.Generator, n_samples: int, n: int) -> Iterator[NDArray[np.float64]]:
    r"""sacreBLEU's bootstrap draws as count matrices, a chunk of resamples at a time.

    Resample :math:`b` of :func:`bootstrap_draws` becomes the count vector
    :math:`k_b` (how often each of the ``n`` rows was drawn,
    :func:`draw_counts`), so the sums of any per-segment statistics matrix
    :math:`S` over the chunk's resamples are :math:`K S`.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_samples : int
    n : int
        Rows (segments) of each resample.

    Yields
    ------
    numpy.ndarray of float64, shape (c, n)
        The counts of the chunk's ``c`` resamples; the chunks together hold ``n_samples`` rows.

    Examples
    --------
    >>> chunks = list(bootstrap_counts(np.random.default_rng(0), 3, 4))
    >>> [c.shape for c in chunks], chunks[0].sum(axis=1).tolist()
    ([(3, 4)], [4.0, 4.0, 4.0])
    """
    for idx in bootstrap_draws(rng, n_samples, n):
        yield draw_counts(idx, n)


def bootstrap_sums(rng: np.random.Generator, n_samples: int, mats: Sequence[NDArray[np.float64]]
                   ) -> list[NDArray[np.float64]]:
    r"""Column sums of ``n_samples`` bootstrap resamples of each matrix, all resamples shared.

    The draws are sacreBLEU's ``rng.choice(n, size=(n_samples, n))``
    (:func:`bootstrap_counts`); resample :math:`b` becomes a count vector
    :math:`k_b` (how often each row was drawn) and its sums
    :math:`k_b^\top S`, so every resample of every matrix is one product
    :math:`K [S_1 \dots S_m]`. Exact for integer statistics (sums below
    :math:`2^{53}`). The draws stay in order, so the numbers are those of one
    big draw.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_samples : int
    mats : sequence of arrays, shape (n, k_i)
        Per-segment statistics, the same segments in the same order.

    Returns
    -------
    list of numpy.ndarray, shape (n_samples, k_i)

    Examples
    --------
    >>> s = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> bootstrap_sums(np.random.default_rng(0), 3, [s])[0].shape
    (3, 2)
    """
    n = mats[0].shape[0]
    widths = [m.shape[1] for m in mats]
    both = np.hstack(mats) if len(mats) > 1 else mats[0]
    out = [counts @ both for counts in bootstrap_counts(rng, n_samples, n)]
    sums = np.concatenate(out) if out else np.zeros((0, both.shape[1]))
    return np.split(sums, np.cumsum(widths)[:-1], axis=1)


def bootstrap_interval(scores: ArrayLike, *, axis: int = 0) -> tuple[NDArray[Any], NDArray[Any]]:
    r"""The bounds of sacreBLEU's 95% bootstrap interval, along ``axis``.

    With the :math:`B` scores sorted and :math:`l = \lfloor B/40 \rfloor`, the
    interval is :math:`[s_{(l)}, s_{(B - l - 1)}]` (0-based order statistics);
    :func:`estimate_ci` reports half its width. Values keep the scores' dtype.

    Parameters
    ----------
    scores : array_like, shape (B, ...) (``axis=0``)
        Bootstrap scores, sorted or not.
    axis : int
        The resamples' axis.

    Returns
    -------
    tuple of numpy.ndarray
        The lower and upper bounds (the shape of ``scores`` without ``axis``).

    Examples
    --------
    >>> low, high = bootstrap_interval(np.arange(80.0))   # l = 2
    >>> float(low), float(high)
    (2.0, 77.0)
    >>> [b.tolist() for b in bootstrap_interval(np.arange(160.0).reshape(2, 80), axis=1)]
    [[2.0, 82.0], [77.0, 157.0]]
    """
    s = np.sort(np.asarray(scores), axis=axis)
    size = s.shape[axis]
    if size == 0:
        raise InputError(f"scores must hold at least one bootstrap score along axis {axis}; got shape {s.shape}.")
    lower = size // 40
    return np.take(s, lower, axis=axis), np.take(s, size - lower - 1, axis=axis)


def estimate_ci(scores: ArrayLike) -> tuple[float, float]:
    r"""sacreBLEU's bootstrap summary: the mean and half the width of the 95% interval.

    With the :math:`B` scores sorted and :math:`l = \lfloor B/40 \rfloor`,

    .. math::

        \mathrm{ci} = \tfrac12\big(s_{(B - l - 1)} - s_{(l)}\big)

    (0-based order statistics), reported as :math:`\bar s \pm \mathrm{ci}`.
    Arithmetic stays in the scores' dtype (float32 scores give sacreBLEU's
    float32 mean and interval, as its ``significance.estimate_ci`` computes them).

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
    s = np.asarray(scores)
    if s.dtype != np.float32:
        s = s.astype(np.float64)
    s = np.sort(s)
    if s.ndim != 1 or s.size == 0:
        raise InputError(f"scores must be a non-empty 1-D array; got shape {s.shape}. Pass one score per "
                         "bootstrap resample.")
    if not np.isfinite(s).all():  # np.sort puts NaN last: the interval would silently shift
        raise InputError(f"scores must be finite; got {int((~np.isfinite(s)).sum())} NaN or infinite value(s). "
                         "Drop the resamples whose score is undefined first.")
    low, high = bootstrap_interval(s)
    return float(s.mean()), float(0.5 * (high - low))


# --------------------------------------------------------------------------- signatures


#: sacreBLEU's fields that come before a metric's own, in its order, with their short keys
_HEAD = (("nrefs", "#"), ("bs", "bs"), ("ar", "ar"), ("seed", "rs"), ("test", "t"), ("lang", "l"),
         ("origlang", "o"), ("subset", "S"))


@dataclass(frozen=True)
class Signature:
    """How a number was made, as sacreBLEU's ``key:value|...`` line (``sacrebleu.metrics.base.Signature``).

    The one signature type: each metric has a subclass that adds its fields
    (:class:`~bleustats.metrics.results.BLEUSignature`,
    :class:`~bleustats.metrics.chrf.CHRFSignature`,
    :class:`~bleustats.metrics.ter.TERSignature`), and a plain ``Signature``
    signs what is not one metric's score (a study, a test; :meth:`from_fields`).
    The line is sacreBLEU's: ``nrefs``, the resampling fields (``bs``, ``ar``,
    ``seed``, ...), the metric's sacreBLEU fields, then bleustats' own fields
    (only where they differ from sacreBLEU's defaults), then ``extra`` fields,
    and ``version`` last. The version names bleustats (``version:bleustats-0.1.0``),
    since bleustats made the number. ``None`` fields are left out; booleans
    print as ``yes`` / ``no``. :meth:`format` with ``short=True`` writes
    sacreBLEU's abbreviated keys.

    Attributes
    ----------
    nrefs : int or str, optional
        References per segment (``'var'`` when it varies; sacreBLEU's -1 prints ``var``).
    n_bootstrap, seed : optional
        Bootstrap resamples (``bs``) and the seed label, when an interval was estimated.
    header : tuple of (str, value)
        sacreBLEU's other fields before the metric's (``ar``, ``test``, ``lang``, ``origlang``, ``subset``).
    extra : tuple of (str, str)
        Further fields, in order, after the metric's (a study's ``M:100``, ``seed:0``).

    Examples
    --------
    >>> sig = Signature(1, extra=(("study", "galley2015"),))
    >>> str(sig)
    'nrefs:1|study:galley2015|version:bleustats-...'
    >>> sig.update("seed", 12345)
    >>> sig.format(short=True)
    '#:1|rs:12345|study:galley2015|v:bleustats-...'
    """

    nrefs: Any = None
    n_bootstrap: int | None = None
    seed: Any = None
    header: tuple[tuple[str, Any], ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()
    version: str = __version__

    @classmethod
    def from_fields(cls, *pairs: tuple[str, Any], **fields: Any) -> Signature:
        """A signature of only the given ``(key, value)`` fields (and the version).

        Examples
        --------
        >>> str(Signature.from_fields(("study", "galley2015"), M=100))
        'study:galley2015|M:100|version:bleustats-...'
        """
        return cls().with_extra(*pairs, **fields)

    def metric_fields(self) -> list[tuple[str, str, Any]]:
        """The metric's sacreBLEU fields as ``(key, short key, value)`` (none in the base class)."""
        return []

    def own_fields(self) -> list[tuple[str, str, Any]]:
        """bleustats' fields where they differ from sacreBLEU's defaults (none in the base class)."""
        return []

    def _entries(self) -> list[tuple[str, str, Any]]:
        """Every ``(key, short key, value)`` of the line, ``None`` values included, ``version`` last."""
        head = {"nrefs": "var" if self.nrefs == -1 else self.nrefs, "bs": self.n_bootstrap, "seed": self.seed,
                **dict(self.header)}
        entries = [(k, short, head.get(k)) for k, short in _HEAD]
        entries += self.metric_fields() + self.own_fields()
        entries += [(k, k, v) for k, v in self.extra]
        return entries + [("version", "v", f"bleustats-{self.version}")]

    @property
    def info(self) -> dict[str, Any]:
        """sacreBLEU's ``Signature.info``: ``{key: value}`` (``version`` first, ``None`` values included)."""
        entries = self._entries()
        return {"version": entries[-1][2], **{k: v for k, _, v in entries[:-1]}}

    def fields(self) -> list[tuple[str, str]]:
        """The ``(key, value)`` pairs of :meth:`__str__`, in order, values as printed."""
        return [(k, ("yes" if v else "no") if isinstance(v, bool) else str(v))
                for k, _, v in self._entries() if v is not None]

    def format(self, short: bool = False) -> str:
        """The signature line; ``short=True`` uses sacreBLEU's abbreviated keys (``#:1|c:mixed|...``)."""
        shorts = {k: s for k, s, _ in self._entries()}
        return "|".join(f"{shorts[k] if short else k}:{v}" for k, v in self.fields())

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()

    def __contains__(self, text: str) -> bool:
        """``'seed:0' in sig``: a substring test on the signature line."""
        return text in str(self)

    def to_dict(self) -> dict[str, str]:
        """The fields as an ordered ``{key: value}`` dict."""
        return dict(self.fields())

    def with_extra(self, *pairs: tuple[str, Any], **fields: Any) -> Signature:
        """This signature with more ``extra`` fields (pairs first, then keywords, in order)."""
        more = tuple((str(k), str(v)) for k, v in (*pairs, *fields.items()))
        return replace(self, extra=self.extra + more)

    def with_nrefs(self, label: Any) -> Signature:
        """This signature with the reference count ``label`` (its field, or chrF's / TER's ``extra`` one).

        >>> str(Signature(1, extra=(("study", "x"),)).with_nrefs("var")).split("|")[:2]
        ['nrefs:var', 'study:x']
        """
        if self.nrefs is not None:
            return replace(self, nrefs=label)
        return replace(self, extra=tuple((k, label if k == "nrefs" else v) for k, v in self.extra))

    def update(self, key: str, value: Any) -> None:
        """Add a field or change one, in place (sacreBLEU's ``Signature.update``).

        sacreBLEU's fields (``nrefs``, ``bs``, ``ar``, ``seed``, ``test``, ...)
        stand before the metric's, as there; another key replaces the
        ``extra`` field of that name or is appended to them.
        """
        attr = {"nrefs": "nrefs", "bs": "n_bootstrap", "seed": "seed"}.get(key)
        if attr is not None:
            object.__setattr__(self, attr, value)
        elif key in dict(_HEAD):
            object.__setattr__(self, "header", tuple((k, v) for k, v in self.header if k != key) + ((key, value),))
        elif key in dict(self.extra):
            object.__setattr__(self, "extra", tuple((k, value if k == key else v) for k, v in self.extra))
        else:
            object.__setattr__(self, "extra", self.extra + ((key, value),))


# --------------------------------------------------------------------------- scores


class Score:
    """sacreBLEU's ``Score`` behaviour, mixed into bleustats' frozen result dataclasses.

    A subclass has the fields ``name``, ``score``, ``mean`` and ``ci`` (-1 when
    no bootstrap interval was estimated) and may define ``verbose`` (the text
    after the score, as BLEU's precisions). ``_mean``, ``_ci`` and
    ``_verbose`` read them under sacreBLEU's private names.
    """

    name: str
    score: float
    mean: float
    ci: float

    @property
    def verbose(self) -> str:
        return ""

    @property
    def _mean(self) -> float:
        return self.mean

    @property
    def _ci(self) -> float:
        return self.ci

    @property
    def _verbose(self) -> str:
        return self.verbose

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """sacreBLEU's text line (``name|signature = score verbose``), the score alone, or its JSON.

        The JSON (``indent=1``) holds ``name``, ``score`` (rounded to ``width``),
        ``signature``, the bootstrap ``confidence_mean`` / ``confidence_var`` /
        ``confidence`` when estimated, ``verbose_score`` when there is one, and
        every ``key: value`` of the signature. An empty signature adds no keys
        (sacreBLEU raises ValueError there).
        """
        if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 0:
            raise InputError(f"width must be a non-negative int (decimals of the score); got {width!r}.")
        sc = f"{self.score:.{width}f}"
        d: dict[str, Any] = {"name": self.name, "score": float(sc), "signature": signature}
        if self.mean > 0:
            mean, ci = f"{self.mean:.{width}f}", f"{self.ci:.{width}f}"
            confidence = f"μ = {mean} ± {ci}"
            sc += f" ({confidence})"
            if is_json:
                d.update(confidence_mean=float(mean), confidence_var=float(ci), confidence=confidence)
        line = f"{f'{self.name}|{signature}' if signature else self.name} = {sc}"
        if self.verbose:
            line += f" {self.verbose}"
            d["verbose_score"] = self.verbose
        if score_only:
            return sc
        if is_json:
            for part in filter(None, signature.split("|")):
                key, _, value = part.partition(":")
                d[key] = value
            import json

            return json.dumps(d, indent=1, ensure_ascii=False)
        return line

    def estimate_ci(self, scores: Sequence[Any]) -> None:
        """Store the mean and 95% half-width of bootstrap ``scores`` (Score objects or numbers).

        As sacreBLEU's ``Score.estimate_ci``: the exact mean of the scores
        (:func:`statistics.mean`) and :func:`estimate_ci`'s interval. The one
        in-place change a result allows: it fills ``mean`` and ``ci``.
        """
        raw = sorted(getattr(s, "score", s) for s in scores)
        if not raw:
            raise InputError("scores must hold at least one bootstrap score.")
        lower = len(raw) // 40
        # float32 scores (sacreBLEU's chrF / TER resamples) keep float32 arithmetic, as there
        object.__setattr__(self, "ci", float(0.5 * (raw[len(raw) - lower - 1] - raw[lower])))
        import statistics

        object.__setattr__(self, "mean", float(statistics.mean(raw)))

    def __repr__(self) -> str:
        return self.format()

    __str__ = __repr__


# --------------------------------------------------------------------------- metrics


def _type_error(metric: Metric, message: str) -> TypeError:
    return TypeError(f"{type(metric).__name__}: {message}")


class Metric:
    """sacreBLEU's ``Metric`` contract over bleustats' statistics kernels.

    A subclass implements :meth:`_prepare` (what to cache of a
    :class:`~bleustats.engine.references.ReferenceSet`), :meth:`_statistics`
    (hypotheses → an (n, k) statistics matrix, one row per hypothesis),
    :meth:`_compute_score_from_stats` (one row of summed statistics → a
    result) and :meth:`scores_from_sums` (many rows of sums → scores, for
    resampling), and :meth:`get_signature`.

    ``references`` given to the constructor are validated and prepared once
    and reused by every ``corpus_score(hyps, None)`` call; references given to
    a call are used for that call only.
    """

    def __init__(self) -> None:
        self._ref_cache: ReferenceSet | None = None
        self.n_bootstrap: int | None = None
        self.seed: str | None = None

    # -- argument checks (TypeError, as sacreBLEU raises, with what arrived) --

    def _check_sentence_score_args(self, hyp: Any, refs: Any) -> None:
        if not isinstance(hyp, str):
            raise _type_error(self, f"the argument `hyp` should be a string; got {type(hyp).__name__} "
                                    f"{hyp!r:.60}. For many hypotheses use corpus_score.")
        if isinstance(refs, str) or not isinstance(refs, Sequence):
            raise _type_error(self, f"the argument `refs` should be a sequence of strings (this hypothesis' "
                                    f"references); got {type(refs).__name__} {refs!r:.60}. For one reference "
                                    "write [reference].")
        for i, r in enumerate(refs):
            if not isinstance(r, str) and r is not None:
                raise _type_error(self, f"each element of `refs` should be a string; refs[{i}] is "
                                        f"{type(r).__name__} {r!r:.60}.")

    def _check_corpus_score_args(self, hyps: Any, refs: Any) -> None:
        if isinstance(hyps, str) or not isinstance(hyps, Sequence):
            raise _type_error(self, f"`hyps` should be a sequence of strings (one per segment); got "
                                    f"{type(hyps).__name__} {hyps!r:.60}.")
        for i, h in enumerate(hyps):
            if h is None:
                raise _type_error(self, f"undefined line in hypotheses stream: hyps[{i}] is None. Use '' for "
                                        "an empty hypothesis.")
            if not isinstance(h, str):
                raise _type_error(self, f"each element of `hyps` should be a string; hyps[{i}] is "
                                        f"{type(h).__name__} {h!r:.60}.")
        if refs is None:
            return
        if isinstance(refs, str) or not isinstance(refs, Sequence):
            raise _type_error(self, f"`refs` should be a sequence of sequences of strings (reference streams); "
                                    f"got {type(refs).__name__} {refs!r:.60}.")
        for k, stream in enumerate(refs):
            if isinstance(stream, str) or not isinstance(stream, Sequence):
                raise _type_error(self, f"each element of `refs` should be a sequence of strings (one "
                                        f"reference stream); refs[{k}] is {type(stream).__name__} "
                                        f"{stream!r:.60}. For one stream write [refs].")

    # -- references --

    def _references(self, references: Any, n_hyp: int | None = None) -> ReferenceSet:
        """The reference set of a call: the given references (not kept) or the cached ones."""
        from ..engine.references import ReferenceSet

        if isinstance(references, ReferenceSet):
            refs = references
        elif references:
            refs = ReferenceSet(references)
        elif self._ref_cache is not None:
            refs = self._ref_cache
        else:
            raise RuntimeError(f"{type(self).__name__}: no references provided and the cache is empty. Pass "
                               "references to corpus_score, or references= to the constructor.")
        self.num_refs = refs.num_refs
        if n_hyp is not None and refs.n_segments is not None and refs.n_segments != n_hyp:
            from ..engine.io import stream_length_error

            raise stream_length_error(0, refs.n_segments, n_hyp)
        return refs

    def _reference_set(self, references: Any) -> ReferenceSet:
        """Validate and prepare ``references`` once (the constructor's ``references=``)."""
        from ..engine.references import ReferenceSet

        refs = references if isinstance(references, ReferenceSet) else ReferenceSet(references)
        self._prepare(refs)
        self.num_refs = refs.num_refs
        return refs

    def _prepare(self, refs: ReferenceSet) -> None:
        """Compute and cache in ``refs`` what every later call needs (tokenized texts, ...)."""

    # -- sacreBLEU's per-segment reference records (its private API, which libraries call) --

    def _preprocess_segment(self, sent: str) -> str:
        """One segment as the metric reads it (lowercased and tokenized as the options say)."""
        raise NotImplementedError

    def _extract_reference_info(self, refs: Sequence[str]) -> dict[str, Any]:
        """sacreBLEU's record of one segment's preprocessed references (n-gram counts, lengths, words)."""
        raise NotImplementedError

    def _cache_references(self, references: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
        """sacreBLEU's reference cache: one :meth:`_extract_reference_info` record per segment.

        ``references`` are streams (``references[k][i]``, ``None`` = segment i
        has no k-th reference). Sets ``num_refs`` (-1 when segments have
        different numbers of references), as sacreBLEU does. bleustats' own
        scoring keeps a :class:`~bleustats.engine.references.ReferenceSet`
        instead (:meth:`_reference_set`); this list is for code written
        against sacreBLEU's internals.
        """
        records, counts = [], set()
        for segment in zip(*references):
            lines = [r for r in segment if r is not None]
            counts.add(len(lines))
            records.append(self._extract_reference_info([self._preprocess_segment(r) for r in lines]))
        self.num_refs = counts.pop() if len(counts) == 1 else -1
        return records

    # -- statistics and scores (subclasses) --

    def _statistics(self, hypotheses: Sequence[str], refs: ReferenceSet) -> NDArray[Any]:
        raise NotImplementedError

    def _compute_score_from_stats(self, stats: ArrayLike) -> Score:
        raise NotImplementedError

    def scores_from_sums(self, sums: ArrayLike, *, float32: bool = False) -> NDArray[np.float64]:
        """Scores of many rows of summed statistics at once (resamples, groups)."""
        raise NotImplementedError

    def get_signature(self) -> Signature:
        raise NotImplementedError

    # -- sacreBLEU's API --

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> NDArray[Any]:
        """The (n_hypotheses, k) statistics matrix (sacreBLEU: one list per segment)."""
        return self._statistics(list(hypotheses), self._references(references, len(hypotheses)))

    def _systems_statistics(self, systems: Sequence[Sequence[str]]) -> list[NDArray[Any]] | None:
        """Every system's statistics matrix against the cached references, computed together; ``None`` where
        the metric has no such route (then each system is scored on its own, :meth:`corpus_score`)."""
        return None

    def _aggregate_and_compute(self, stats: ArrayLike) -> Score:
        """The score of the column sums of per-segment statistics (one row: the row + 0, what the sum makes of it)."""
        stats = np.asarray(stats)
        return self._compute_score_from_stats(stats[0] + 0 if len(stats) == 1 else stats.sum(axis=0))

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> Score:
        """The metric of one hypothesis against its references (``None`` entries skipped)."""
        self._check_sentence_score_args(hypothesis, references)
        from ..engine.references import ReferenceSet

        stats = self._statistics([hypothesis], ReferenceSet([[r] for r in references]))
        self.num_refs = sum(r is not None for r in references)
        return self._aggregate_and_compute(stats)

    def corpus_score(self, hypotheses: Sequence[str], references: Any = None, n_bootstrap: int = 1) -> Score:
        """The corpus score of ``hypotheses`` against ``references`` (or the cached references).

        With ``n_bootstrap > 1`` the result also carries sacreBLEU's bootstrap
        mean and 95% interval (seed ``$SACREBLEU_SEED``, default 12345), and the
        signature records ``bs`` and ``seed``.
        """
        self._check_corpus_score_args(hypotheses, references)
        return self._corpus_score(hypotheses, references, n_bootstrap)

    def _corpus_score(self, hypotheses: Sequence[str], references: Any, n_bootstrap: Any) -> Score:
        """:meth:`corpus_score` once its arguments are checked (a subclass may take a faster route)."""
        stats = self._extract_corpus_statistics(hypotheses, references)
        result = self._aggregate_and_compute(stats)
        if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)):
            raise InputError(f"n_bootstrap must be an int (1: no bootstrap); got {n_bootstrap!r}.")
        if n_bootstrap > 1:
            seed, label = sacrebleu_seed()
            self.n_bootstrap, self.seed = int(n_bootstrap), label
            (sums,) = bootstrap_sums(np.random.default_rng(seed), int(n_bootstrap),
                                     [np.asarray(stats, dtype=np.float64)])
            scores = self.scores_from_sums(sums, float32=True)
            result.estimate_ci(list(scores) if scores.dtype == np.float32 else scores.tolist())
        return result
