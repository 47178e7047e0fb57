"""Score objects: the numbers, the statistics behind them, and BLEU's signature.

:class:`BLEUScore` has sacreBLEU's attributes (``score`` on 0–100, ``counts``,
``totals``, ``precisions``, ``bp``, ``sys_len``, ``ref_len``, ``ratio``,
``format()``), so code written for ``sacrebleu.BLEUScore`` keeps working.

Examples
--------
>>> sig = BLEUSignature(nrefs="1", tokenize="13a", lowercase=False, smooth="exp", effective_order=False,
...                     max_ngram_order=3)
>>> str(sig)
'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|order:3|version:bleustats-...'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine._options import SMOOTH_DEFAULTS
from ..errors import InputError
from .base import Score, Signature

if TYPE_CHECKING:
    import pyarrow as pa

    from ..engine.dataset import StatsDataset
    from ..engine.stats import StatsTable

__all__ = ["MAX_NGRAM_ORDER", "BLEUScore", "BLEUSignature", "Coverage", "Signature", "bleu_signature", "check_coverage",
           "record_coverage", "system_coverage"]


#: sacreBLEU's default largest n-gram order (a signature names the order only when it differs).
MAX_NGRAM_ORDER = 4


@dataclass(frozen=True, repr=False)
class BLEUSignature(Signature):
    """BLEU's and ΔBLEU's signature: sacreBLEU's fields, then bleustats' where they differ from sacreBLEU.

    sacreBLEU's fields are ``case``, ``eff``, ``tok`` and ``smooth``, so a
    score sacreBLEU can compute signs exactly as sacreBLEU signs it (with
    bleustats' version). Then, only where they are not sacreBLEU's defaults:
    ``order`` (the largest n-gram order, default 4), ``refs`` (the reference
    view, default ``all``), ``reflen`` (the brevity penalty's reference length,
    default ``closest``), ``metric`` (``delta_bleu``) with ``delta`` (ΔBLEU's
    definition) and, for ΔBLEU, ``w:custom`` when the weights are not all 1.
    A ``None`` field is left out. Every route (the functions, the ``BLEU``
    object, tables, groups, datasets) builds it with :func:`bleu_signature`.

    Examples
    --------
    >>> sig = BLEUSignature(nrefs="1", tokenize="13a", lowercase=False, smooth="exp", effective_order=False)
    >>> str(sig)
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...'
    >>> from dataclasses import replace
    >>> str(replace(sig, max_ngram_order=2, ref_view="first").with_extra(bs=1000, seed=0))
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|order:2|refs:first|bs:1000|seed:0|version:bleustats-...'
    >>> sig.to_dict()["tok"], "order" in sig.to_dict()
    ('13a', False)
    """

    tokenize: str | None = None
    lowercase: bool | None = None
    smooth: str | None = None
    effective_order: bool | None = None
    max_ngram_order: int | None = MAX_NGRAM_ORDER
    ref_view: str | None = "all"
    weight_threshold: float | None = None
    weights: str | None = "uniform"
    metric: str | None = "bleu"
    delta_definition: str | None = None
    ref_length: str | None = "closest"

    def metric_fields(self) -> list[tuple[str, str, Any]]:
        case = None if self.lowercase is None else ("lc" if self.lowercase else "mixed")
        return [("case", "c", case), ("eff", "e", self.effective_order), ("tok", "tok", self.tokenize),
                ("smooth", "s", self.smooth)]

    def own_fields(self) -> list[tuple[str, str, Any]]:
        out: list[tuple[str, str, Any]] = []
        if self.max_ngram_order not in (None, MAX_NGRAM_ORDER):
            out.append(("order", "ord", self.max_ngram_order))
        if self.ref_view not in (None, "all"):
            view = f"w>={self.weight_threshold:g}" if self.ref_view == "threshold" else self.ref_view
            out.append(("refs", "rv", view))
        if self.ref_length not in (None, "closest"):
            out.append(("reflen", "rl", self.ref_length))
        if self.metric not in (None, "bleu"):
            out.append(("metric", "m", self.metric))
            if self.metric == "delta_bleu":
                out.append(("delta", "d", str(self.delta_definition)))
                if self.weights not in (None, "uniform"):
                    out.append(("w", "w", self.weights))
        return out


@lru_cache(maxsize=64)  # a name's label never changes; this saves an import per score
def _tokenizer_label(tokenize: str) -> str:
    """The ``tok`` field of a tokenizer name: the tokenizer's own signature, as the ``BLEU`` object signs it.

    The name itself, except for MeCab (its version in the signature) and the
    SentencePiece models (``spm`` signs ``flores101``).

    Examples
    --------
    >>> _tokenizer_label("13a"), _tokenizer_label("spm")
    ('13a', 'flores101')
    """
    if tokenize.endswith("-mecab"):
        from ..tokenizers import get_tokenizer

        return get_tokenizer(tokenize).signature()
    from ..tokenizers.tokenizer_spm import SPM_MODELS  # a dict of names: sentencepiece is not imported

    return SPM_MODELS[tokenize]["signature"] if tokenize in SPM_MODELS else tokenize


#: Signatures made so far, by their options (a score copies one instead of building the dataclass again).
_SIGNATURES: dict[Any, BLEUSignature] = {}
_SIGNATURES_MAX = 256


def bleu_signature(nrefs: Any, *, tokenize: str, lowercase: bool, smooth_method: str, smooth_value: float | None,
                   effective_order: bool, max_ngram_order: int, ref_view: str, weight_threshold: float | None,
                   weights: str, metric: str, delta_definition: str, ref_length: str,
                   n_bootstrap: int | None = None, seed: Any = None) -> BLEUSignature:
    """The :class:`BLEUSignature` of a BLEU / ΔBLEU score made with these (checked) options.

    ``smooth_value`` is the value in effect; as sacreBLEU, only a method that
    takes one (``floor``, ``add-k``) prints it (``floor[0.10]``), ``exp`` and
    ``none`` print the method alone. Every call returns a new object (a copy
    of the one first made for these options).

    Examples
    --------
    >>> str(bleu_signature(1, tokenize="none", lowercase=False, smooth_method="floor", smooth_value=0.1,
    ...                    effective_order=True, max_ngram_order=4, ref_view="all", weight_threshold=None,
    ...                    weights="uniform", metric="bleu", delta_definition="paper", ref_length="closest"))
    'nrefs:1|case:mixed|eff:yes|tok:none|smooth:floor[0.10]|version:bleustats-...'
    """
    key: Any = (type(nrefs), nrefs, tokenize, lowercase, smooth_method, smooth_value, effective_order,
                max_ngram_order, ref_view, weight_threshold, weights, metric, delta_definition, ref_length,
                n_bootstrap, type(seed), seed)
    try:
        made = _SIGNATURES.get(key)
    except TypeError:  # an argument that cannot be a key (a seed object, say): made every time
        made, key = None, None
    if made is None:
        made = BLEUSignature(
            nrefs=nrefs, n_bootstrap=n_bootstrap, seed=seed, tokenize=_tokenizer_label(tokenize),
            lowercase=bool(lowercase),
            smooth=smooth_method if smooth_value is None or SMOOTH_DEFAULTS.get(smooth_method) is None
            else f"{smooth_method}[{smooth_value:.2f}]",
            effective_order=bool(effective_order), max_ngram_order=max_ngram_order, ref_view=ref_view,
            weight_threshold=weight_threshold if ref_view == "threshold" else None, weights=weights, metric=metric,
            delta_definition=delta_definition if metric == "delta_bleu" else None, ref_length=ref_length)
        if key is not None and len(_SIGNATURES) < _SIGNATURES_MAX:
            _SIGNATURES[key] = made
    # a copy for each score: sacreBLEU's Signature.update changes a signature in place
    signature = object.__new__(BLEUSignature)
    signature.__dict__.update(made.__dict__)
    return signature


@dataclass(frozen=True, repr=False)
class BLEUScore(Score):
    """A corpus or sentence BLEU / ΔBLEU score.

    ``str()``, ``repr()`` and :meth:`format` print what sacreBLEU's
    ``BLEUScore`` prints (``BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ...)``,
    ``BLEU|<signature> = ...`` with a signature, its JSON with ``is_json``).

    Attributes
    ----------
    score : float
        On the 0–100 scale.
    counts, totals : list
        Per-order numerators and denominators as sacreBLEU reports them (for
        ``add-k`` smoothing they include the added ``k`` for n ≥ 2, as in
        sacreBLEU; ΔBLEU numerators are clamped at 0). The unsmoothed sums are
        in ``stats``.
    precisions : list of float
        Per-order precisions on the 0–100 scale, after smoothing.
    bp : float
        Brevity penalty.
    sys_len, ref_len : int or float
        Summed hypothesis and reference lengths.
    signature : BLEUSignature
    stats : dict
        Summed statistics behind the score (``match``, ``total`` or the
        weighted ``wmatch``, ``wtotal`` lists, ``hyp_len``, ``ref_len``).
    mean, ci : float
        Bootstrap mean and half-width of the 95% interval (``-1`` when not
        estimated; sacreBLEU's ``_mean`` / ``_ci``).
    """

    score: float
    counts: list
    totals: list
    precisions: list
    bp: float
    sys_len: int | float
    ref_len: int | float
    signature: Any = None
    stats: dict = field(default_factory=dict)
    name: str = "BLEU"
    mean: float = -1.0
    ci: float = -1.0

    @property
    def ratio(self) -> float:
        """sys_len / ref_len (0 when ref_len is 0)."""
        return self.sys_len / self.ref_len if self.ref_len else 0

    @property
    def prec_str(self) -> str:
        return "/".join(f"{p:.1f}" for p in self.precisions)

    @property
    def verbose(self) -> str:
        """The text after the score: precisions, BP, ratio and lengths (sacreBLEU's ``_verbose``)."""
        sys_len = f"{self.sys_len:d}" if isinstance(self.sys_len, int) else f"{self.sys_len:g}"
        ref_len = f"{self.ref_len:d}" if isinstance(self.ref_len, int) else f"{self.ref_len:g}"
        return (f"{self.prec_str} (BP = {self.bp:.3f} ratio = {self.ratio:.3f} hyp_len = {sys_len} "
                f"ref_len = {ref_len})")

    def to_dict(self, width: int | None = None) -> dict[str, Any]:
        """Plain-Python dict of every number and the signature (for JSON)."""
        score = round(self.score, width) if width is not None else self.score
        return {
            "name": self.name,
            "score": score,
            "counts": [float(c) if isinstance(c, float) else int(c) for c in self.counts],
            "totals": [float(t) if isinstance(t, float) else int(t) for t in self.totals],
            "precisions": list(map(float, self.precisions)),
            "bp": float(self.bp),
            "sys_len": self.sys_len,
            "ref_len": self.ref_len,
            "ratio": float(self.ratio),
            "signature": str(self.signature) if self.signature is not None else None,
            "stats": self.stats,
        }


# --------------------------------------------------------------------------- coverage
#
# Which segments each system covers: systems scored side by side must cover the same ones.
#
# A corpus score sums a system's segments; two systems scored on different
# segment sets are not comparable (one may lack its hardest segments), and
# sacreBLEU refuses streams of different lengths. :func:`corpus_scores` per
# system (:func:`bleustats.metrics.tables.corpus_scores`, and its partitioned
# twin) therefore refuses systems whose segment sets differ, naming each system
# and how many of the segments it lacks, unless ``allow_partial=True``: then
# each system is scored on the segments it has, and the coverage is recorded in
# the result (a ``segments`` column, ``attrs["coverage"]``, and
# ``coverage:partial`` in the signature).
#
# The segments are the union of every system's ``seg_id`` values; a system
# covers a segment when it has at least one row for it.


@dataclass(frozen=True)
class Coverage:
    """Segments covered per system.

    Attributes
    ----------
    covered : dict of str to int
        Distinct segments each system has rows for.
    n_segments : int
        Distinct segments over all systems (their union).
    """

    covered: dict[str, int]
    n_segments: int

    @property
    def complete(self) -> bool:
        """Every system covers every segment."""
        return all(n == self.n_segments for n in self.covered.values())

    def describe(self, limit: int = 10) -> str:
        """'B lacks 1 of the 3 segments, C lacks 2 ...' for the systems that lack some."""
        short = [(s, self.n_segments - n) for s, n in self.covered.items() if n < self.n_segments]
        words = [f"{s} lacks {k} of the {self.n_segments} segments" for s, k in short[:limit]]
        return ", ".join(words) + (f" and {len(short) - limit} more systems lack some" if len(short) > limit else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"segments": N, "systems": {name: covered}, "complete": bool}``."""
        return {"segments": self.n_segments, "systems": dict(self.covered), "complete": self.complete}


def _system_segments(table: pa.Table) -> dict[str, np.ndarray]:
    """Each system's distinct seg_ids (sorted), from one table: one sort of (system code, seg_id)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..engine import _columns as columns

    if table.num_rows == 0:
        return {}
    system = table.column("system").combine_chunks()
    enc = pc.dictionary_encode(system.dictionary_decode() if pa.types.is_dictionary(system.type) else system)
    codes = columns.to_numpy(enc.indices).astype(np.int64)
    seg = columns.to_numpy(table.column("seg_id")).astype(np.int64)
    order = np.lexsort((seg, codes))
    c, s = codes[order], seg[order]
    keep = np.r_[True, (c[1:] != c[:-1]) | (s[1:] != s[:-1])]
    c, s = c[keep], s[keep]
    starts = np.searchsorted(c, np.arange(len(enc.dictionary) + 1))
    names = enc.dictionary.to_pylist()
    return {str(names[k]): s[starts[k]:starts[k + 1]] for k in range(len(names)) if starts[k + 1] > starts[k]}


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a stable sort merges the sorted runs of concatenated parts in linear time;
    ``numpy.unique`` takes ~30× longer on such input, numpy 2.4)."""
    values = np.sort(values, kind="stable")
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def _batch_segments(batch: Any) -> dict[str, np.ndarray]:
    return _system_segments(batch.table)


def system_coverage(stats: StatsTable | StatsDataset) -> Coverage:
    """The segments each system of ``stats`` covers (a dataset: its batches', merged, run by its executor).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 1, 2, 0, 1], "system": list("AAABB"), "text": ["a"] * 5})
    >>> cov = system_coverage(compute_stats(hyps, pd.DataFrame({"seg_id": [0, 1, 2], "text": ["a"] * 3})))
    >>> cov.n_segments, cov.covered, cov.complete
    (3, {'A': 3, 'B': 2}, False)
    >>> cov.describe()
    'B lacks 1 of the 3 segments'
    """
    batches = stats.map_batches(_batch_segments, columns=["system", "seg_id"])
    if len(batches) == 1:
        segments = batches[0]
    else:
        merged: dict[str, list[np.ndarray]] = {}
        for part in batches:
            for name, segs in part.items():
                merged.setdefault(name, []).append(segs)
        segments = {name: _distinct(np.concatenate(v)) for name, v in merged.items()}
    if not segments:
        return Coverage({}, 0)
    n_segments = len(_distinct(np.concatenate(list(segments.values()))))
    return Coverage({name: len(segments[name]) for name in sorted(segments)}, n_segments)


def check_coverage(stats: StatsTable | StatsDataset, *, allow_partial: bool) -> Coverage:
    """The coverage of ``stats``'s systems; raises when they differ and ``allow_partial`` is false.

    Raises
    ------
    InputError
        Naming each system that lacks segments and how many (the first ten),
        and the option that scores them anyway.
    """
    cov = system_coverage(stats)
    if not cov.complete and not allow_partial:
        raise InputError(
            f"the systems cover different segments: {cov.describe()}. Their scores would not be comparable "
            "(sacreBLEU refuses streams of different lengths); give every system every segment, or score each on "
            "the segments it has with allow_partial=True (command line: --allow-partial), which records the "
            "coverage in the result.")
    return cov


def record_coverage(frame: Any, cov: Coverage, by: str) -> Any:
    """``frame`` (one row per system) with a ``segments`` column, ``attrs['coverage']`` and, when partial,
    ``coverage:partial`` in ``attrs['signature']``."""
    frame["segments"] = [cov.covered.get(k, 0) for k in frame[by].tolist()]
    frame.attrs["coverage"] = cov.to_dict()
    if not cov.complete and "signature" in frame.attrs:
        frame.attrs["signature"] = f"{frame.attrs['signature']}|coverage:partial"
    return frame
