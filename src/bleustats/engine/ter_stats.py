r"""TER sufficient statistics: per segment, the fewest edits and the mean reference length.

:func:`ter_statistics` runs tokenize (:class:`~bleustats.tokenizers.TercomTokenizer`)
→ encode to integer token ids → numba kernel (``_ter_kernels``) and returns a
float64 array with one row per hypothesis and sacreBLEU 2.6's two columns:

* column 0, ``num_edits``: the fewest edits (shifts + insertions, deletions,
  substitutions) turning the hypothesis into any one of its references, found
  by tercom's greedy shift search;
* column 1, ``ref_length``: the mean length of the segment's references.

A corpus TER is :math:`100 \cdot \sum \mathrm{num\_edits} / \sum \mathrm{ref\_length}`
(:func:`bleustats.metrics.ter.ter_from_sums`).

Examples
--------
>>> ter_statistics(["d e f g h a b c", "the cat"], [["a b c d e f g h", "the cat"]])
array([[1., 8.],
       [0., 2.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from .._kernel_cache import guarded
from ..errors import InputError
from ..tokenizers.tokenizer_ter import TercomTokenizer
from . import _columns as columns
from . import _ter_kernels as _ter_module, io
from ._threads import kernel_threads
from .encode import encode_segments
from .references import ReferenceSet

if TYPE_CHECKING:
    import pandas as pd

_ter_kernels = guarded(_ter_module)

__all__ = ["TER_COLUMNS", "ter_statistics", "ter_statistics_table"]

#: The columns of :func:`ter_statistics`, as sacreBLEU's TER names its two statistics.
TER_COLUMNS = ("num_edits", "ref_length")

#: Below this many segments or hypothesis tokens the kernel runs on the calling thread:
#: waking the thread pool costs more than the work (and one long segment cannot be split).
_PARALLEL_MIN_SEGMENTS = 256
_PARALLEL_MIN_TOKENS = 2_000


def _hypothesis_list(hypotheses: Any) -> list[str]:
    if isinstance(hypotheses, (str, bytes)):
        raise InputError(
            "hypotheses must be a list of strings (one per segment); got a single "
            f"{type(hypotheses).__name__}. Wrap it in a list: [hypothesis]."
        )
    if isinstance(hypotheses, (pa.Array, pa.ChunkedArray)):
        hypotheses = hypotheses.to_pylist()
    try:
        hyps = list(hypotheses)
    except TypeError:
        raise InputError(
            f"hypotheses must be a list of strings (one per segment); got {type(hypotheses).__name__} "
            f"{hypotheses!r:.60}."
        ) from None
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise InputError(
                f"hypotheses[{i}] must be a str; got {type(h).__name__} {h!r:.60}. Every segment needs "
                "a hypothesis string (use '' for an empty one)."
            )
    return hyps


def _describe(seg_ids: np.ndarray) -> str:
    shown = ", ".join(str(int(s)) for s in seg_ids[:10])
    return shown + (f" and {len(seg_ids) - 10} more" if len(seg_ids) > 10 else "")


def _reference_segments(references: Any, n_hyp: int, layout: str) -> tuple[list[str], np.ndarray]:
    """References in segment order and the pointer ``seg_refs`` (segment s owns ``seg_refs[s]:seg_refs[s+1]``)."""
    if isinstance(references, ReferenceSet):
        if references.n_segments is not None and references.n_segments != n_hyp:
            raise InputError(f"references: the ReferenceSet has {references.n_segments} segments but there are "
                             f"{n_hyp} hypotheses; every reference stream must be as long as the hypotheses.")
        return references.cached(("ter-segments", n_hyp), lambda t: _reference_segments(t, n_hyp, "auto"))
    refs = io.as_references_table(references, n_hyp=n_hyp, layout=layout)
    # engine._columns reads the columns: pyarrow.compute and to_numpy would import pandas (pyarrow's shim)
    if refs.num_rows and not np.all(columns.to_numpy(refs.column("weight")) == 1.0):
        raise InputError(
            "references: TER has no reference weights, but some weights are not 1. Give plain "
            "strings instead of (text, weight) pairs, or set a table's 'weight' column to 1."
        )
    seg = columns.to_numpy(refs.column("seg_id"))
    outside = np.unique(seg[(seg < 0) | (seg >= n_hyp)])
    if len(outside):
        raise InputError(
            f"references: seg_id must be in 0..{n_hyp - 1} (one segment per hypothesis, in order); got "
            f"seg_id {_describe(outside)}."
        )
    order = np.argsort(seg, kind="stable")
    counts = np.bincount(seg, minlength=n_hyp)
    missing = np.flatnonzero(counts == 0)
    if len(missing):
        raise InputError(
            f"references: {len(missing)} segment(s) have a hypothesis but no reference: seg_id "
            f"{_describe(missing)}. TER needs at least one reference per segment; drop those "
            "hypotheses or add references."
        )
    seg_refs = np.zeros(n_hyp + 1, np.int64)
    np.cumsum(counts, out=seg_refs[1:])
    texts = refs.column("text").take(columns.numeric(order)).to_pylist()
    return texts, seg_refs


def _tokenize_all(lines: list[str], tokenizer: TercomTokenizer, plain: bool, lowercase: bool,
                  passes: int = 1) -> pa.Array:
    """Tokenized lines as an Arrow string array, as sacreBLEU's TER prepares each line.

    ``passes=2`` applies the tokenizer twice: sacreBLEU 2.6's TER tokenizes
    references once when it reads them and again when it splits them into
    words (``_cache_references`` then ``_extract_reference_info``), and with
    ``normalized`` the second pass can change the line (``"Jim's\\tcar"``
    becomes ``"jim's car"``, then ``"jim 's car"``; ``"&amp;quot;"`` becomes
    ``"&quot;"``, then ``'"'``).
    """
    if plain:
        # Without normalization or punctuation removal the tokenizer only lowercases (which
        # is idempotent) and collapses whitespace, and the encoder splits exactly as
        # str.split() does.
        return columns.strings([s.lower() for s in lines] if lowercase else lines)
    out = [tokenizer(s.rstrip()) for s in lines]
    for _ in range(passes - 1):
        out = [tokenizer(s) for s in out]  # a tokenized line has no trailing whitespace to strip
    return columns.strings(out)


def ter_statistics(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table,
    *,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
    references_layout: str = "auto",
    return_n_refs: bool = False,
) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Per-segment TER statistics ``[num_edits, ref_length]``, as sacreBLEU 2.6 computes them.

    For hypothesis :math:`h` with references :math:`r_1..r_K` (after the
    tokenizer and whitespace split):

    .. math::

        \mathrm{num\_edits} = \min_k \mathrm{edits}(h, r_k), \qquad
        \mathrm{ref\_length} = \frac{1}{K} \sum_k |r_k|

    where :math:`\mathrm{edits}` counts the phrase shifts of tercom's greedy
    search plus the Levenshtein distance (insertions, deletions,
    substitutions) of the shifted hypothesis (Snover et al., 2006), with
    tercom's limits as sacreBLEU applies them: phrases of at most 10 words
    moved at most 50 positions, a beam of 25 around the diagonal, at most
    1000 candidate shifts per hypothesis/reference pair. An empty reference
    gives :math:`|h|` edits.

    Parameters
    ----------
    hypotheses : list of str
        One hypothesis per segment.
    references : list of lists of str, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style streams (``references[k][i]``, ``None`` = segment i has
        no k-th reference), one list of references per segment, or a long-form
        ``references`` table whose ``seg_id`` is the hypothesis' position
        (see :func:`bleustats.engine.io.as_references_table`), or a
        :class:`~bleustats.engine.references.ReferenceSet` (its tokenized
        references are cached per option set).
    normalized, no_punct, asian_support, case_sensitive : bool
        :class:`~bleustats.tokenizers.TercomTokenizer` options (sacreBLEU's TER options).
    references_layout : {'auto', 'streams', 'segments'}
        How list ``references`` are laid out.
    return_n_refs : bool
        Also return each segment's number of references.

    Returns
    -------
    stats : numpy.ndarray
        float64, shape ``(len(hypotheses), 2)``; columns :data:`TER_COLUMNS`.
        Edit counts are whole numbers.
    n_refs : numpy.ndarray
        int64, shape ``(len(hypotheses),)``; only with ``return_n_refs=True``.

    Raises
    ------
    ValueError
        (``bleustats.InputError``) a hypothesis that is not a string,
        reference streams of the wrong length, a segment without any
        reference, reference weights other than 1.

    Notes
    -----
    Worst case per hypothesis/reference pair of lengths :math:`n, m` (see
    ``bleustats.engine._ter_kernels``): each of at most 1001 search rounds
    scans :math:`O(n \cdot \min(m, 101) \cdot 10)` phrase pairs, and at most
    1010 candidate shifts each cost one beam edit distance,
    :math:`O(n \cdot w + m)` with :math:`w \ge 25` the beam width; memory is
    :math:`O(n \cdot w + m)`. sacreBLEU's own search has the same bounds and
    allocates an :math:`n \times m` matrix per edit distance; typical pairs
    finish in 2-3 rounds.

    Like sacreBLEU 2.6, references go through the tokenizer twice (hypotheses
    once); with ``normalized`` the second pass can split a little more
    (``"Jim's\tcar"`` gives ``jim 's car`` as a reference, ``jim's car`` as a
    hypothesis).

    References
    ----------
    M. Snover, B. Dorr, R. Schwartz, L. Micciulla, J. Makhoul. "A Study of
    Translation Edit Rate with Targeted Human Annotation". AMTA 2006.

    Examples
    --------
    >>> stats = ter_statistics(["A B C", ""], [["a b c", "x"], ["a b d", None]])
    >>> stats
    array([[0., 3.],
           [1., 1.]])
    >>> ter_statistics(["Jim's car."], [["jim 's car ."]], normalized=True).tolist()
    [[0.0, 4.0]]
    """
    for name, value in (("normalized", normalized), ("no_punct", no_punct), ("asian_support", asian_support),
                        ("case_sensitive", case_sensitive), ("return_n_refs", return_n_refs)):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}.")
    hyps = _hypothesis_list(hypotheses)
    n = len(hyps)
    ref_texts, seg_refs = _reference_segments(references, n, references_layout)
    ref_tok = None
    if isinstance(references, ReferenceSet):  # references tokenized once per option set
        key = ("ter-tokens", normalized, no_punct, asian_support, case_sensitive)
        ref_tok = references.cached(key, lambda t: _tokenize_all(ref_texts, _tokenizer(
            normalized, no_punct, asian_support, case_sensitive), not normalized and not no_punct,
            not case_sensitive, passes=2))
    out = _statistics(hyps, ref_texts, seg_refs, normalized, no_punct, asian_support, case_sensitive, ref_tok)
    return (out, np.diff(seg_refs)) if return_n_refs else out


def _tokenizer(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool) -> TercomTokenizer:
    return TercomTokenizer(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                           case_sensitive=case_sensitive)


def _statistics(hyps: list[str], ref_texts: list[str], seg_refs: np.ndarray, normalized: bool,
                no_punct: bool, asian_support: bool, case_sensitive: bool,
                r_tok: pa.Array | None = None) -> np.ndarray:
    n = len(hyps)
    if n == 0:
        return np.zeros((0, 2), np.float64)
    tokenizer = _tokenizer(normalized, no_punct, asian_support, case_sensitive)
    plain = not normalized and not no_punct
    h_tok = _tokenize_all(hyps, tokenizer, plain, not case_sensitive)
    if r_tok is None:
        r_tok = _tokenize_all(ref_texts, tokenizer, plain, not case_sensitive, passes=2)
    hyp_lists, ref_lists = encode_segments(h_tok, r_tok, np.arange(n + 1, dtype=np.int64), seg_refs,
                                           tokenize="none", lowercase=False)  # already Tercom-tokenized
    # hypothesis and reference lists view one flat id array with absolute offsets; int64 offsets and read-only
    # arrays on every route, so that the kernel compiles once
    hyp_ids, hyp_off, ref_ids, ref_off, seg_refs = columns.readonly(
        columns.to_numpy(hyp_lists.values), columns.to_numpy(hyp_lists.offsets).astype(np.int64),
        columns.to_numpy(ref_lists.values), columns.to_numpy(ref_lists.offsets).astype(np.int64),
        np.asarray(seg_refs, np.int64))
    if (n < _PARALLEL_MIN_SEGMENTS or hyp_off[-1] - hyp_off[0] < _PARALLEL_MIN_TOKENS
            or kernel_threads() == 1):  # sizes first: the thread count starts numba's thread pool
        out = _ter_kernels.ter_batch_serial(hyp_ids, hyp_off, ref_ids, ref_off, seg_refs)
    else:
        out = _ter_kernels.ter_batch(hyp_ids, hyp_off, ref_ids, ref_off, seg_refs)
    broken = np.flatnonzero(out[:, 0] < 0)
    if len(broken):  # cannot happen (see _ter_pair); say so rather than return a wrong number
        raise RuntimeError(f"TER: the edit-distance traceback left its beam in segment(s) {_describe(broken)}.")
    return out


def ter_statistics_table(hypotheses: pa.Table, references: pa.Table, *, normalized: bool = False,
                         no_punct: bool = False, asian_support: bool = False, case_sensitive: bool = False
                         ) -> NDArray[np.float64]:
    """TER statistics of a long-form hypotheses table (any number of hypotheses per segment).

    As :func:`ter_statistics`, for validated ``hypotheses`` (``seg_id``,
    ``system``, ``text``) and ``references`` tables: every reference is
    tokenized once however many hypotheses its segment has; each hypothesis
    is scored against its segment's references. Rows in the hypotheses'
    order; reference weights are ignored.

    Examples
    --------
    >>> h = pa.table({"seg_id": [0, 0, 1], "system": ["A", "B", "A"], "text": ["a b c", "c b a", "x"]})
    >>> r = pa.table({"seg_id": [0, 1], "ref_id": ["0", "0"], "weight": [1.0, 1.0], "text": ["a b c", "y"]})
    >>> ter_statistics_table(h, r).tolist()
    [[0.0, 3.0], [2.0, 3.0], [1.0, 1.0]]
    """
    n = hypotheses.num_rows
    if n == 0:
        return np.zeros((0, 2), np.float64)
    ref_seg_ids = columns.to_numpy(references.column("seg_id"))
    seg_keys, ref_seg = np.unique(ref_seg_ids, return_inverse=True)
    hyp_seg_ids = columns.to_numpy(hypotheses.column("seg_id"))
    hyp_seg = np.searchsorted(seg_keys, hyp_seg_ids)
    found = hyp_seg < len(seg_keys)
    found[found] = seg_keys[hyp_seg[found]] == hyp_seg_ids[found]
    if not found.all():
        missing = np.unique(hyp_seg_ids[~found])
        raise InputError(f"references: {len(missing)} segment(s) have hypotheses but no reference: seg_id "
                         f"{_describe(missing)}. TER needs at least one reference per segment.")
    hyp_order = np.argsort(hyp_seg, kind="stable")
    ref_order = np.argsort(ref_seg, kind="stable")
    n_seg = len(seg_keys)
    hyp_ptr = np.searchsorted(hyp_seg[hyp_order], np.arange(n_seg + 1)).astype(np.int64)
    ref_ptr = np.searchsorted(ref_seg[ref_order], np.arange(n_seg + 1)).astype(np.int64)
    tokenizer = _tokenizer(normalized, no_punct, asian_support, case_sensitive)
    plain = not normalized and not no_punct
    h_tok = _tokenize_all(hypotheses.column("text").take(columns.numeric(hyp_order)).to_pylist(), tokenizer, plain,
                          not case_sensitive)
    r_tok = _tokenize_all(references.column("text").take(columns.numeric(ref_order)).to_pylist(), tokenizer, plain,
                          not case_sensitive, passes=2)
    # one id space per segment: a segment's hypotheses and references are encoded together
    hyp_lists, ref_lists = encode_segments(h_tok, r_tok, hyp_ptr, ref_ptr, tokenize="none", lowercase=False)
    hyp_ids = columns.to_numpy(hyp_lists.values)
    hyp_off = columns.to_numpy(hyp_lists.offsets)
    ref_ids = columns.to_numpy(ref_lists.values)
    ref_off = columns.to_numpy(ref_lists.offsets).astype(np.int64)
    # hypothesis j (segment s) gets its own copy of the segment's reference lines (ids only)
    seg_sorted = hyp_seg[hyp_order]
    per_hyp = (ref_ptr[seg_sorted + 1] - ref_ptr[seg_sorted])
    lines = np.repeat(ref_ptr[seg_sorted], per_hyp) + (np.arange(per_hyp.sum()) - np.repeat(
        np.cumsum(per_hyp) - per_hyp, per_hyp))
    lengths = ref_off[lines + 1] - ref_off[lines]
    dup_off = np.zeros(len(lines) + 1, np.int64)
    np.cumsum(lengths, out=dup_off[1:])
    starts = np.repeat(ref_off[lines], lengths) + (np.arange(dup_off[-1]) - np.repeat(dup_off[:-1], lengths))
    dup_ids = ref_ids[starts]
    seg_refs = np.zeros(n + 1, np.int64)
    np.cumsum(per_hyp, out=seg_refs[1:])
    # the kernel reads hypothesis offsets relative to hyp_ids[0]
    h_off = (hyp_off - hyp_off[0]).astype(np.int64)
    # read-only and contiguous, as on the list route (one compiled signature)
    h_ids, h_off, dup_ids, dup_off, seg_refs = columns.readonly(hyp_ids[hyp_off[0]:hyp_off[-1]], h_off, dup_ids,
                                                                dup_off, seg_refs)
    if n < _PARALLEL_MIN_SEGMENTS or h_off[-1] < _PARALLEL_MIN_TOKENS or kernel_threads() == 1:
        out = _ter_kernels.ter_batch_serial(h_ids, h_off, dup_ids, dup_off, seg_refs)
    else:
        out = _ter_kernels.ter_batch(h_ids, h_off, dup_ids, dup_off, seg_refs)
    if (out[:, 0] < 0).any():
        raise RuntimeError("TER: the edit-distance traceback left its beam (cannot happen; please report).")
    result = np.empty_like(out)
    result[hyp_order] = out
    return result
