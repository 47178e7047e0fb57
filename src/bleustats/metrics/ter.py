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

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError
from .._version import __version__
from ..engine.ter_stats import ter_statistics

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["TERScore", "TERSignature", "corpus_ter", "sentence_ter", "ter_from_sums"]


def ter_from_sums(stats: ArrayLike) -> NDArray[np.float64] | np.float64:
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
    arr = np.asarray(stats, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 2:
        raise InputError(
            f"stats must have 2 columns (num_edits, ref_length) along its last axis; got shape "
            f"{arr.shape}. Pass ter_statistics(...) or its column sums."
        )
    edits = arr[..., 0]
    ref_len = arr[..., 1]
    positive = ref_len > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(positive, edits / np.where(positive, ref_len, 1.0), np.where(edits > 0, 1.0, 0.0))
    scores = 100 * ratio
    return scores[()] if scores.ndim == 0 else scores


@dataclass(frozen=True)
class TERSignature:
    """How a TER number was made, printed in sacreBLEU's format.

    ``str(signature)`` gives ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:bleustats-…``
    (sacreBLEU's keys and order; the version names bleustats).
    """

    nrefs: str
    case_sensitive: bool = False
    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    tokenizer: str = "tercom"
    version: str = __version__

    def format(self, short: bool = False) -> str:
        """The ``key:value|...`` line; ``short=True`` uses sacreBLEU's abbreviated keys."""
        yes_no = {True: "yes", False: "no"}
        items = [
            ("nrefs", "#", self.nrefs),
            ("case", "c", "mixed" if self.case_sensitive else "lc"),
            ("tok", "t", self.tokenizer),
            ("norm", "nr", yes_no[self.normalized]),
            ("punct", "pn", yes_no[not self.no_punct]),
            ("asian", "as", yes_no[self.asian_support]),
            ("version", "v", f"bleustats-{self.version}"),
        ]
        return "|".join(f"{short_key if short else key}:{value}" for key, short_key, value in items)

    def __str__(self) -> str:
        return self.format()

    def to_dict(self) -> dict[str, Any]:
        return {"nrefs": self.nrefs, "case_sensitive": self.case_sensitive, "normalized": self.normalized,
                "no_punct": self.no_punct, "asian_support": self.asian_support,
                "tokenizer": self.tokenizer, "version": self.version}


@dataclass(frozen=True, repr=False)
class TERScore:
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

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """sacreBLEU's text line ``TER|<signature> = 12.34`` (or the score alone, or its JSON).

        Examples
        --------
        >>> s = TERScore(12.3456, 2, 16.0)
        >>> s.format(), s.format(width=3, score_only=True), s.format(signature="nrefs:1")
        ('TER = 12.35', '12.346', 'TER|nrefs:1 = 12.35')
        """
        text = f"{self.score:.{width}f}"
        if score_only:
            return text
        if is_json:
            out = {"name": self.name, "score": float(text), "signature": signature}
            for item in filter(None, signature.split("|")):
                key, _, value = item.partition(":")
                out[key] = value
            return json.dumps(out, indent=1, ensure_ascii=False)
        head = f"{self.name}|{signature}" if signature else self.name
        return f"{head} = {text}"

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__

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
