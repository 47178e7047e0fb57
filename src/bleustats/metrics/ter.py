r"""TER scores from summed statistics; ``corpus_ter`` / ``sentence_ter`` as in sacreBLEU 2.6.

TER (Snover et al., 2006) is the number of edits that turn the hypotheses
into the references, per reference word:

.. math::

    \mathrm{TER} = 100 \cdot \frac{\sum_s \mathrm{num\_edits}_s}{\sum_s \mathrm{ref\_length}_s}

with the per-segment statistics of
:func:`bleustats.engine.ter_stats.ter_statistics`; when the reference
lengths sum to 0 the score is 100 if there are edits and 0 otherwise
(sacreBLEU's rule). Lower is better. A sentence score is the same formula on
one row.

Examples
--------
>>> score = corpus_ter(["d e f g h a b c", "the cat sat"], [["a b c d e f g h", "the cat sat"]])
>>> score.score, score.num_edits, score.ref_length
(9.090909090909092, 1, 11.0)
>>> print(score)
TER = 9.09
>>> ter_from_sums([[1.0, 8.0], [0.0, 3.0]])
array([12.5,  0. ])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..engine.references import ReferenceSet, shared_reference_set
from ..engine.ter_stats import ter_statistics
from ..errors import InputError
from ..tokenizers.tokenizer_ter import TercomTokenizer
from .base import Metric, Score, Signature

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["TER", "TERScore", "TERSignature", "corpus_ter", "sentence_ter", "ter_from_sums", "ter_table"]


def ter_from_sums(stats: ArrayLike, *, float32: bool = False) -> NDArray[np.float64] | np.float64:
    r"""TER on the 0-100 scale from statistics ``[num_edits, ref_length]`` along the last axis.

    .. math::

        \mathrm{TER} = \begin{cases}
            100 \cdot e / r & r > 0 \\
            100 & r = 0,\ e > 0 \\
            0 & r = 0,\ e = 0
        \end{cases}

    Parameters
    ----------
    stats : array_like, shape (..., 2)
        Edits :math:`e` and reference length :math:`r`: one segment's row,
        column sums of a corpus, or any stack of them (bootstrap samples,
        systems, groups).
    float32 : bool
        Compute in float32 as sacreBLEU's bootstrap does (float32 statistics).

    Returns
    -------
    numpy.ndarray or numpy.float64
        Shape ``stats.shape[:-1]``; the same floating-point operations as
        sacreBLEU, so equal sums give bit-identical scores.

    Examples
    --------
    >>> ter_from_sums([3, 8])
    np.float64(37.5)
    >>> ter_from_sums([[2, 0], [0, 0]])
    array([100.,   0.])
    """
    arr = np.asarray(stats, dtype=np.float32 if float32 else np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise InputError(
            f"stats must have 2 columns (num_edits, ref_length) along its last axis; got shape "
            f"{arr.shape}. Pass ter_statistics(...) or its column sums."
        )
    edits = arr[..., 0]
    ref_len = arr[..., 1]
    positive = ref_len > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(positive, edits / np.where(positive, ref_len, arr.dtype.type(1)),
                         np.where(edits > 0, arr.dtype.type(1), arr.dtype.type(0)))
    scores = 100 * ratio
    return scores[()] if scores.ndim == 0 else scores


@dataclass(frozen=True, repr=False)
class TERSignature(Signature):
    """TER's signature in sacreBLEU's format: ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:...``.

    Built from the options (``nrefs`` and the four TER flags), so a score
    computed without a :class:`TER` object carries one too.

    Examples
    --------
    >>> str(TERSignature("1", case_sensitive=True))
    'nrefs:1|case:mixed|tok:tercom|norm:no|punct:yes|asian:no|version:bleustats-...'
    """

    case_sensitive: bool = False
    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    tokenizer: str = "tercom"

    def metric_fields(self) -> list[tuple[str, str, Any]]:
        return [("case", "c", "mixed" if self.case_sensitive else "lc"), ("tok", "t", self.tokenizer),
                ("norm", "nr", bool(self.normalized)), ("punct", "pn", not self.no_punct),
                ("asian", "as", bool(self.asian_support))]


@dataclass(frozen=True, repr=False)
class TERScore(Score):
    """A corpus or sentence TER, with sacreBLEU's ``TERScore`` attributes and text.

    Attributes
    ----------
    score : float
        TER on the 0-100 scale (lower is better).
    num_edits : int
        Summed fewest edits.
    ref_length : float
        Summed mean reference lengths.
    signature : TERSignature or None
    stats : dict
        ``n_segments``, and the summed ``num_edits`` as a float.
    name : str
        ``'TER'``.
    """

    score: float
    num_edits: int
    ref_length: float
    signature: TERSignature | None = None
    stats: dict = field(default_factory=dict)
    name: str = "TER"
    mean: float = -1.0
    ci: float = -1.0

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the numbers and the signature (for JSON)."""
        return {"name": self.name, "score": float(self.score), "num_edits": int(self.num_edits),
                "ref_length": float(self.ref_length),
                "signature": str(self.signature) if self.signature is not None else None,
                "stats": dict(self.stats)}


def _score_of(stats: np.ndarray, n_refs: np.ndarray, options: dict[str, bool]) -> TERScore:
    # Summed left to right, as sacreBLEU adds segment statistics (cumsum is sequential, so
    # ref_length is bit-identical with fractional mean lengths).
    edits = float(stats[:, 0].sum()) if len(stats) else 0.0
    ref_len = float(np.cumsum(stats[:, 1])[-1]) if len(stats) else 0.0
    distinct = np.unique(n_refs)
    nrefs = str(int(distinct[0])) if len(distinct) == 1 else ("var" if len(distinct) else "0")
    return TERScore(
        score=float(ter_from_sums([edits, ref_len])),
        num_edits=int(edits),
        ref_length=ref_len,
        signature=TERSignature(nrefs=nrefs, **options),
        stats={"num_edits": edits, "ref_length": ref_len, "n_segments": len(stats)},
    )


def corpus_ter(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]] | pd.DataFrame | pa.Table,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    *,
    references_layout: str = "auto",
) -> TERScore:
    r"""Corpus TER of hypotheses against one or more references (``sacrebleu.corpus_ter``).

    .. math::

        \mathrm{TER} = 100 \cdot \frac{\sum_s \min_k \mathrm{edits}(h_s, r_{s,k})}
                                      {\sum_s \frac{1}{K_s} \sum_k |r_{s,k}|}

    Parameters
    ----------
    hypotheses : list of str
        One hypothesis per segment.
    references : list of lists of str
        sacreBLEU-style streams (``None`` = no reference for that segment),
        one list of references per segment, or a long-form table (see
        ``references_layout`` and :func:`bleustats.engine.io.as_references_table`).
    normalized, no_punct, asian_support, case_sensitive : bool
        sacreBLEU's TER options (:class:`~bleustats.tokenizers.TercomTokenizer`).
    references_layout : {'auto', 'streams', 'segments'}
        How list ``references`` are laid out.

    Returns
    -------
    TERScore
        ``score``, ``num_edits`` and ``ref_length`` equal to sacreBLEU's.

    References
    ----------
    M. Snover, B. Dorr, R. Schwartz, L. Micciulla, J. Makhoul. "A Study of
    Translation Edit Rate with Targeted Human Annotation". AMTA 2006.

    Examples
    --------
    >>> corpus_ter(["The cat sat .", ""], [["the cat sat.", "a"]]).format(signature="nrefs:1")
    'TER|nrefs:1 = 75.00'
    >>> corpus_ter(["The cat sat ."], [["the cat sat."]], normalized=True).score
    0.0
    """
    options = {"normalized": normalized, "no_punct": no_punct, "asian_support": asian_support,
               "case_sensitive": case_sensitive}
    if isinstance(hypotheses, (list, tuple)):  # one call per system: the references tokenized once
        references = shared_reference_set(references, len(hypotheses), references_layout) or references
    stats, n_refs = ter_statistics(hypotheses, references, references_layout=references_layout,
                                   return_n_refs=True, **options)
    return _score_of(stats, n_refs, options)


def sentence_ter(
    hypothesis: str,
    references: Sequence[str],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """TER of one hypothesis against its references (``sacrebleu.sentence_ter``).

    The formula of :func:`corpus_ter` on one segment: the fewest edits over
    the references, divided by their mean length. ``None`` references are
    skipped.

    Examples
    --------
    >>> sentence_ter("a b", ["a c", "b"]).score  # 1 edit, mean reference length 1.5
    66.66666666666666
    >>> sentence_ter("Hello , world !", ["hello world"], no_punct=True).num_edits
    0
    """
    if not isinstance(hypothesis, str):
        raise InputError(
            f"hypothesis must be a str; got {type(hypothesis).__name__} {hypothesis!r:.60}. For many "
            "hypotheses use corpus_ter or ter_statistics."
        )
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        raise InputError(
            f"references must be a list of str (the hypothesis' references); got "
            f"{type(references).__name__} {references!r:.60}. For one reference write [reference]."
        )
    return corpus_ter([hypothesis], [[ref] for ref in references], normalized, no_punct, asian_support,
                      case_sensitive, references_layout="streams")


# --------------------------------------------------------------------------- sacreBLEU's TER object


class TER(Metric):
    r"""sacreBLEU's ``TER`` metric object over the numba shift search.

    Same constructor arguments, defaults and results as ``sacrebleu.metrics.TER``
    (2.6). Per-segment statistics are :func:`~bleustats.engine.ter_stats.ter_statistics`
    rows ``[num_edits, ref_length]``; the score is :func:`ter_from_sums` of their
    sums. ``references=`` are validated and tokenized (twice, as sacreBLEU does)
    once, and reused by every ``corpus_score(hyps, None)``.

    Examples
    --------
    >>> ter = TER(references=[["a b c d e f g h", "the cat sat"]])
    >>> print(ter.corpus_score(["d e f g h a b c", "the cat sat"]))
    TER = 9.09
    >>> print(ter.get_signature())
    nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:bleustats-...
    """

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, references: Sequence[Sequence[str]] | None = None) -> None:
        super().__init__()
        self._options = {"normalized": normalized, "no_punct": no_punct, "asian_support": asian_support,
                         "case_sensitive": case_sensitive}
        for name, value in self._options.items():
            if not isinstance(value, (bool, np.bool_)):
                raise InputError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}.")
        self.normalized, self.no_punct = normalized, no_punct
        self.asian_support, self.case_sensitive = asian_support, case_sensitive
        self.tokenizer = TercomTokenizer(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                                         case_sensitive=case_sensitive)
        self.tokenizer_signature = self.tokenizer.signature()
        if references is not None:
            self._ref_cache = self._reference_set(references)

    def _preprocess_segment(self, sent: str) -> str:
        """``sent`` through tercom's normalizer with this object's options (sacreBLEU's ``TER`` method).

        >>> TER(normalized=True)._preprocess_segment("Jim's car (red).  ")
        "jim 's car ( red ) ."
        """
        return self.tokenizer(sent.rstrip())

    def _extract_reference_info(self, refs: Sequence[str]) -> dict[str, Any]:
        """``{'ref_words': [per reference: its words after the tokenizer]}`` (sacreBLEU's record)."""
        return {"ref_words": [self._preprocess_segment(ref).split() for ref in refs]}

    def _prepare(self, refs: ReferenceSet) -> None:
        if refs.n_segments:  # tokenizes the references once, into refs' cache
            ter_statistics([""] * refs.n_segments, refs, **self._options)

    def _statistics(self, hypotheses: Sequence[str], refs: ReferenceSet) -> NDArray[np.float64]:
        return ter_statistics(list(hypotheses), refs, **self._options)

    def _aggregate_and_compute(self, stats: ArrayLike) -> TERScore:
        arr = np.asarray(stats, dtype=np.float64).reshape(-1, 2)
        # left to right, as sacreBLEU adds segment rows (fractional mean lengths stay bit-identical)
        sums = np.array([arr[:, 0].sum(), np.cumsum(arr[:, 1])[-1] if len(arr) else 0.0])
        return self._compute_score_from_stats(sums)

    def _compute_score_from_stats(self, stats: ArrayLike) -> TERScore:
        """The TER of one row of summed statistics ``[num_edits, ref_length]``."""
        edits, ref_len = (float(x) for x in np.asarray(stats, dtype=np.float64))
        return TERScore(score=float(ter_from_sums([edits, ref_len])), num_edits=int(edits), ref_length=ref_len,
                        signature=self.get_signature() if getattr(self, "num_refs", None) is not None else None,
                        stats={"num_edits": edits, "ref_length": ref_len})

    def scores_from_sums(self, sums: ArrayLike, *, float32: bool = False) -> NDArray[Any]:
        """TER of every row of summed statistics (``float32=True``: sacreBLEU's bootstrap arithmetic)."""
        return np.asarray(ter_from_sums(sums, float32=float32))

    def get_signature(self) -> TERSignature:
        """sacreBLEU's TER signature (``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:...``)."""
        if getattr(self, "num_refs", None) is None:
            raise ValueError("TER: the number of references is unknown; score something (or pass references= "
                             "to the constructor) before get_signature().")
        return TERSignature(self.num_refs, n_bootstrap=self.n_bootstrap, seed=self.seed, **self._options)


def ter_table(stats: Any) -> tuple[TER, NDArray[np.float64]]:
    """A :class:`TER` set up as the TER columns of a statistics table were made, and their (n, 2) matrix.

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> st = compute_stats(["d e f g h a b c"], [["a b c d e f g h"]], metrics=("ter",))
    >>> metric, rows = ter_table(st)
    >>> print(metric._aggregate_and_compute(rows), rows.tolist())
    TER = 12.50 [[1.0, 8.0]]
    """
    opts = stats.ter_options
    if opts is None:
        raise ValueError(f"metric='ter': the statistics table has no TER statistics (it holds "
                         f"{', '.join(stats.metrics)}); compute it with compute_stats(..., metrics=('bleu', 'ter')).")
    obj = TER(**opts)
    n_refs = np.unique(stats.column("n_refs"))
    obj.num_refs = int(n_refs[0]) if len(n_refs) == 1 else -1
    return obj, np.column_stack([stats.column("ter_num_edits").astype(np.float64), stats.column("ter_ref_length")])
