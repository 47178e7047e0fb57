r"""chrF / chrF++ sufficient statistics: one int64 row per hypothesis.

:func:`chrf_statistics` gives, for every hypothesis, sacreBLEU 2.6's ``CHRF``
segment statistics: for each character order ``1..char_order`` and then each
word order ``1..word_order`` the triple (hypothesis n-grams, reference
n-grams, clipped matches) against the reference with the best sentence
F-score. A corpus chrF is the F-score of the column sums, a sentence chrF the
F-score of one row (:func:`bleustats.metrics.chrf.chrf_from_sums`).

Which reference is "best" depends on ``beta`` and ``eps_smoothing``, so rows
are only valid for scoring with the options they were made with;
:func:`chrf_metadata` names them for a statistics table.

Examples
--------
>>> rows = chrf_statistics(["a cat"], [["the cat"]], char_order=2, word_order=1)
>>> rows.tolist()
[[4, 6, 3, 3, 5, 2, 2, 2, 1]]
>>> chrf_column_names(2, 1)
['chrf_hyp_1', 'chrf_ref_1', 'chrf_match_1', 'chrf_hyp_2', 'chrf_ref_2', 'chrf_match_2',
 'chrfw_hyp_1', 'chrfw_ref_1', 'chrfw_match_1']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from ..errors import InputError
from .._kernel_cache import guarded
from . import _chrf_kernels
from . import _columns as columns
from . import _small as small
from . import io
from ._threads import kernel_threads
from .encode import block_bounds, string_buffers
from ._options import CHRF_DEFAULTS
from .references import ReferenceSet

if TYPE_CHECKING:
    import pandas as pd

_k = guarded(_chrf_kernels)

__all__ = [
    "CHRF_DEFAULTS",
    "chrf_column_names",
    "chrf_metadata",
    "chrf_options",
    "chrf_statistics",
    "chrf_systems_statistics",
]


#: The most text (characters of hypotheses and references) :func:`chrf_segment_rows` scores without
#: Arrow tables; a larger call builds them (:func:`chrf_statistics`), where a call costs about a
#: millisecond more and the work is shared between threads.
LIST_MAX_CHARS = 16_384

#: Below this many bytes of text (hypotheses plus their references) the kernel
#: runs on the calling thread: starting the thread pool costs more than the work.
_PARALLEL_MIN_BYTES = 200_000
#: Largest beta: beta squared (an int for int beta) must convert to float64 exactly.
_MAX_BETA = 2 ** 26


def _check_bool(value: Any, name: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}.")


def chrf_options(
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> dict[str, Any]:
    """Check chrF options once, at the public boundary; return them normalised.

    Parameters
    ----------
    char_order, word_order : int
        Largest character and word n-gram orders (``>= 0``, not both 0).
    beta : int or float
        Weight of recall against precision (``>= 0``, finite). Kept as given
        (an ``int`` stays an ``int``) because sacreBLEU prints it in the
        metric name (``chrF2``).
    lowercase, whitespace, eps_smoothing : bool
        As in sacreBLEU's ``CHRF``.

    Returns
    -------
    dict
        ``char_order``, ``word_order``, ``beta``, ``lowercase``, ``whitespace``, ``eps_smoothing``.

    Raises
    ------
    ValueError
        Naming the option, what it must be, and what arrived.

    Examples
    --------
    >>> chrf_options(word_order=2)["word_order"]
    2
    >>> chrf_options(char_order=0, word_order=0)
    Traceback (most recent call last):
    ...
    ValueError: char_order + word_order must be at least 1 (chrF needs some n-gram order);
    got char_order=0, word_order=0.
    """
    for name, value in (("char_order", char_order), ("word_order", word_order)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < 0:
            raise ValueError(
                f"{name} must be a non-negative integer (sacreBLEU's default is "
                f"{CHRF_DEFAULTS[name]}); got {type(value).__name__} {value!r:.40}."
            )
    if char_order + word_order < 1:
        raise ValueError(
            "char_order + word_order must be at least 1 (chrF needs some n-gram order); "
            f"got char_order={char_order!r}, word_order={word_order!r}."
        )
    if isinstance(beta, (bool, np.bool_)) or not isinstance(beta, Real) or not math.isfinite(beta) or beta < 0:
        raise ValueError(
            "beta must be a finite non-negative number (recall counts beta times as much as "
            f"precision; sacreBLEU's default is 2); got {type(beta).__name__} {beta!r:.40}."
        )
    if beta > _MAX_BETA:
        raise ValueError(f"beta must be at most 2**26 so that beta**2 is exact in float64; got {beta!r}.")
    return {
        "char_order": int(char_order),
        "word_order": int(word_order),
        "beta": beta.item() if isinstance(beta, np.generic) else beta,
        "lowercase": _check_bool(lowercase, "lowercase"),
        "whitespace": _check_bool(whitespace, "whitespace"),
        "eps_smoothing": _check_bool(eps_smoothing, "eps_smoothing"),
    }


def chrf_column_names(char_order: int, word_order: int) -> list[str]:
    """Names of the ``3 * (char_order + word_order)`` statistics columns, in row order.

    Character orders are ``chrf_{hyp,ref,match}_{n}``, word orders
    ``chrfw_{hyp,ref,match}_{n}``.

    Examples
    --------
    >>> chrf_column_names(1, 0)
    ['chrf_hyp_1', 'chrf_ref_1', 'chrf_match_1']
    """
    names = []
    for prefix, orders in (("chrf", char_order), ("chrfw", word_order)):
        for n in range(1, orders + 1):
            names += [f"{prefix}_hyp_{n}", f"{prefix}_ref_{n}", f"{prefix}_match_{n}"]
    return names


def chrf_metadata(options: dict[str, Any]) -> dict[str, str]:
    """Table metadata that records how chrF statistics were made (keys ``bleustats.chrf_*``).

    ``beta`` and ``eps_smoothing`` are part of it because they decide which
    reference each row was taken from.

    Examples
    --------
    >>> chrf_metadata(chrf_options(word_order=2))["bleustats.chrf_word_order"]
    '2'
    """
    return {
        "bleustats.chrf_char_order": str(options["char_order"]),
        "bleustats.chrf_word_order": str(options["word_order"]),
        "bleustats.chrf_beta": repr(options["beta"]),
        "bleustats.chrf_lowercase": "true" if options["lowercase"] else "false",
        "bleustats.chrf_whitespace": "true" if options["whitespace"] else "false",
        "bleustats.chrf_eps_smoothing": "true" if options["eps_smoothing"] else "false",
    }


def _lowered(texts: pa.Array) -> pa.Array:
    # Python's str.lower (full case mapping, final sigma): what sacreBLEU applies
    return columns.strings([t.lower() for t in texts.to_pylist()])  # pa.array(...) would import pandas


def _utf8(texts: list[str], lowercase: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """The kernel's view of ``texts`` as :func:`string_buffers` gives it for a string array: read-only bytes and
    int32 offsets (so that the kernel compiles once for both routes); and the longest text's bytes."""
    encoded = [(t.lower() if lowercase else t).encode("utf-8") for t in texts]
    lengths = [len(b) for b in encoded]
    offsets = np.array([0, *accumulate(lengths)], np.int32)
    data = np.frombuffer(bytearray(b"".join(encoded)), np.uint8) if offsets[-1] else np.zeros(1, np.uint8)
    return *columns.readonly(data, offsets), max(lengths, default=0)


def chrf_segment_rows(hypotheses: list[str], segments: list[list[tuple[str, float]]],
                      opts: dict[str, Any]) -> NDArray[np.int64] | None:
    """:func:`chrf_statistics` of a few hypotheses, hypothesis ``i`` against ``segments[i]``, without Arrow tables.

    ``segments[i]`` lists hypothesis ``i``'s references as ``(text, weight)``
    pairs (:func:`bleustats.engine._small.plain_references`; weights are
    ignored), ``opts`` is :func:`chrf_options`' dict. The texts go to the same
    kernel as UTF-8 bytes and offsets, so the rows are :func:`chrf_statistics`'
    rows. ``None`` (take :func:`chrf_statistics`) for more text than
    :data:`LIST_MAX_CHARS`, a segment without a
    reference, text that is not UTF-8 encodable or a line too long to index:
    the general path reads those and raises its errors.

    Examples
    --------
    >>> chrf_segment_rows(["a cat"], [[("the cat", 1.0)]], chrf_options(char_order=2, word_order=1)).tolist()
    [[4, 6, 3, 3, 5, 2, 2, 2, 1]]
    """
    if not hypotheses or len(segments) != len(hypotheses) or not all(segments):
        return None
    texts = [text for seg in segments for text, _ in seg]
    if sum(map(len, hypotheses)) + sum(map(len, texts)) > LIST_MAX_CHARS:
        return None
    try:
        h_data, h_off, h_longest = _utf8(hypotheses, opts["lowercase"])
        r_data, r_off, r_longest = _utf8(texts, opts["lowercase"])
    except UnicodeEncodeError:
        return None
    longest = max(h_longest, r_longest)  # the kernel may index a line of either side
    if longest * (min(opts["char_order"], longest) + 1 + opts["word_order"]) + 2 > _k.MAX_IDS:
        return None
    ref_ptr = np.array([0, *accumulate(len(seg) for seg in segments)], np.int64)
    config = np.array([opts["char_order"], opts["word_order"], int(opts["whitespace"]),
                       int(opts["eps_smoothing"])], np.int64)
    hyp_rows = np.arange(len(hypotheses), dtype=np.int64)  # hypothesis i is segment i's only one
    return _k.chrf_rows_serial(h_data, h_off, hyp_rows, np.arange(len(hypotheses) + 1, dtype=np.int64),
                               r_data, r_off, ref_ptr, config, float(opts["beta"] ** 2))


def chrf_list_rows(hypotheses: Any, references: Any, layout: str, opts: dict[str, Any]) -> NDArray[np.int64] | None:
    """:func:`chrf_segment_rows` of list inputs as :func:`chrf_statistics` takes them, or ``None``: take the tables.

    ``hypotheses`` a list (or tuple) of str of at most
    :data:`LIST_MAX_CHARS` characters, ``references``
    lists read by :func:`bleustats.engine._small.plain_references` (``layout``
    as ``references_layout``); anything else, or anything malformed, is
    ``None`` (the general path reads it and raises its errors).

    Examples
    --------
    >>> chrf_list_rows(["ab"], [["ab"], ["ab b"]], "auto", chrf_options(char_order=2)).tolist()
    [[2, 2, 2, 1, 1, 1]]
    """
    if (not isinstance(hypotheses, (list, tuple)) or not all(type(h) is str for h in hypotheses)
            or sum(map(len, hypotheses)) > LIST_MAX_CHARS):
        return None
    segments = small.plain_references(references, None, n_hyp=len(hypotheses), layout=layout)
    return None if segments is None else chrf_segment_rows(list(hypotheses), segments, opts)


def chrf_statistics(
    hypotheses: Sequence[str] | pa.Array | pa.ChunkedArray | pa.Table | pd.DataFrame,
    references: Sequence[Sequence[Any]] | pa.Table | pd.DataFrame,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    references_layout: str = "auto",
    k_best: bool = False,
) -> NDArray[np.int64]:
    r"""Per-hypothesis chrF / chrF++ statistics, sacreBLEU 2.6's ``CHRF`` segment statistics.

    For hypothesis :math:`h` and reference :math:`r`, with :math:`\#g(x)` the
    count of n-gram :math:`g` in :math:`x`, order :math:`n` contributes

    .. math::

        \mathrm{hyp}_n = [\,|r|_n > 0\,]\,|h|_n, \qquad
        \mathrm{ref}_n = |r|_n, \qquad
        \mathrm{match}_n = \sum_{g} \min\big(\#g(h), \#g(r)\big)

    where :math:`|x|_n` is the number of order-:math:`n` n-grams of :math:`x`
    (character n-grams over code points without whitespace, then word n-grams
    over sacreBLEU's punctuation-split words). Of several references the row
    comes from the first with the highest sentence chrF (Popović, 2015; 2017).

    Parameters
    ----------
    hypotheses : list of str, pyarrow string array, or long-form table
        One hypothesis per segment, or the ``hypotheses`` table (``seg_id``,
        ``system``, ``text``) with any number of hypotheses per segment.
    references : list of lists, or long-form table
        sacreBLEU-style streams (``None`` for a missing reference), one list
        per segment (``references_layout``), Arrow streams, or the
        ``references`` table; see :func:`bleustats.engine.io.as_references_table`;
        or a :class:`~bleustats.engine.references.ReferenceSet`. A table's rows
        are taken in their order within a segment. Reference
        weights are ignored.
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing
        sacreBLEU's ``CHRF`` options (see :func:`chrf_options`).
    references_layout : {'auto', 'streams', 'segments'}
        How list ``references`` are laid out.
    k_best : bool
        A hypotheses table may repeat a ``(system, seg_id)`` pair (the
        entries of a k-best list), as in :func:`bleustats.compute_stats`.

    Returns
    -------
    numpy.ndarray of int64, shape (n_hypotheses, 3 * (char_order + word_order))
        Rows in input order; columns as :func:`chrf_column_names`.

    Raises
    ------
    ValueError
        A bad option, a malformed input (:class:`bleustats.InputError`), a
        hypothesis whose segment has no reference, or a line too long to index.

    References
    ----------
    M. Popović. chrF: character n-gram F-score for automatic MT evaluation. WMT 2015.
    M. Popović. chrF++: words helping character n-grams. WMT 2017.

    Examples
    --------
    >>> chrf_statistics(["ab"], [["ab"], ["ab b"]], char_order=2).tolist()
    [[2, 2, 2, 1, 1, 1]]
    >>> chrf_statistics(["ab"], [[""], ["b"]], char_order=1).tolist()  # the empty reference scores 0
    [[2, 1, 1]]
    """
    opts = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                        lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)
    n_cols = 3 * (opts["char_order"] + opts["word_order"])
    rows = chrf_list_rows(hypotheses, references, references_layout, opts)
    if rows is not None:
        return rows
    hyps = io.as_hypotheses_table(hypotheses, k_best=k_best)
    n_list = None if io.is_table(hypotheses) else hyps.num_rows
    refs = _references_table(references, n_list, references_layout)
    if hyps.num_rows == 0:
        return np.zeros((0, n_cols), np.int64)
    return _rows(columns.to_numpy(hyps.column("seg_id")), hyps.column("text").combine_chunks(), references, refs,
                 opts)


def _references_table(references: Any, n_list: int | None, layout: str) -> pa.Table:
    """The references table of ``references`` (a ReferenceSet's own), checked against ``n_list`` hypotheses."""
    if isinstance(references, ReferenceSet):
        if n_list is not None and references.n_segments is not None and references.n_segments != n_list:
            raise InputError(f"references: the ReferenceSet has {references.n_segments} segments but there are "
                             f"{n_list} hypotheses; every reference stream must be as long as the hypotheses.")
        return references.table
    return io.as_references_table(references, n_hyp=n_list, layout=layout)


def _rows(hyp_seg_ids: np.ndarray, hyp_text: pa.Array, references: Any, refs: pa.Table,
          opts: dict[str, Any]) -> NDArray[np.int64]:
    """The kernel's rows of hypotheses ``hyp_text`` (of segments ``hyp_seg_ids``) against ``refs``, the
    references table of ``references`` (a ReferenceSet keeps its prepared texts)."""
    ref_seg_ids = columns.to_numpy(refs.column("seg_id"))  # ChunkedArray.to_numpy() would import pandas
    ref_order = np.argsort(ref_seg_ids, kind="stable")
    seg_keys, ref_counts = np.unique(ref_seg_ids, return_counts=True)
    ref_ptr = np.zeros(len(seg_keys) + 1, np.int64)
    np.cumsum(ref_counts, out=ref_ptr[1:])
    hyp_seg = np.searchsorted(seg_keys, hyp_seg_ids).astype(np.int64)
    found = hyp_seg < len(seg_keys)
    found[found] = seg_keys[hyp_seg[found]] == hyp_seg_ids[found]
    if not found.all():
        missing = np.unique(hyp_seg_ids[~found])
        shown = ", ".join(str(int(s)) for s in missing[:10]) + (
            f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise InputError(
            f"references: {len(missing)} segment(s) have hypotheses but no reference: seg_id "
            f"{shown}. chrF needs at least one reference per hypothesis (an empty string is a "
            "reference; None is not); drop those hypotheses or add references."
        )

    def ordered_refs(table: pa.Table) -> pa.Array:
        text = table.column("text")
        if len(ref_order) and (np.diff(ref_order) != 1).any():  # take() imports pyarrow.compute: only if needed
            text = text.take(columns.numeric(ref_order))
        text = text.combine_chunks()
        return _lowered(text) if opts["lowercase"] else text

    if isinstance(references, ReferenceSet):  # prepared once per lowercase setting
        ref_text = references.cached(("chrf", opts["lowercase"]), ordered_refs)
    else:
        ref_text = ordered_refs(refs)
    if opts["lowercase"]:
        hyp_text = _lowered(hyp_text)
    h_data, h_off = string_buffers(hyp_text)
    r_data, r_off = string_buffers(ref_text)

    h_bytes = np.diff(h_off.astype(np.int64))
    r_bytes = np.diff(r_off.astype(np.int64))
    # the kernel indexes lines of either side (per segment the side with fewer lines): ids bound their length
    longest = max(int(h_bytes.max(initial=0)), int(r_bytes.max(initial=0)))
    per_id = min(opts["char_order"], longest) + 1 + opts["word_order"]
    limit = (_k.MAX_IDS - 2) // per_id
    too_long = np.flatnonzero(h_bytes > limit)
    if len(too_long):
        row = int(too_long[0])
        raise InputError(
            f"hypotheses: line {row} (seg_id {int(hyp_seg_ids[row])}) has {int(h_bytes[row])} bytes; "
            f"chrF with char_order={opts['char_order']}, word_order={opts['word_order']} can index "
            f"lines of at most {limit} bytes. Split the line or lower the orders."
        )
    too_long = np.flatnonzero(r_bytes > limit)
    if len(too_long):
        row = int(ref_order[too_long[0]])
        raise InputError(
            f"references: a reference of seg_id {int(ref_seg_ids[row])} has {int(r_bytes[too_long[0]])} bytes; "
            f"chrF with char_order={opts['char_order']}, word_order={opts['word_order']} can index "
            f"lines of at most {limit} bytes. Split the line or lower the orders."
        )
    # each segment's hypotheses together (stable: in row order), so its references are indexed once for all
    hyp_rows = np.argsort(hyp_seg, kind="stable")
    hyp_ptr = np.zeros(len(seg_keys) + 1, np.int64)
    np.cumsum(np.bincount(hyp_seg, minlength=len(seg_keys)), out=hyp_ptr[1:])

    config = np.array([opts["char_order"], opts["word_order"], int(opts["whitespace"]),
                       int(opts["eps_smoothing"])], np.int64)
    factor = float(opts["beta"] ** 2)
    args = (h_data, h_off, hyp_rows, hyp_ptr, r_data, r_off, ref_ptr, config, factor)
    # the size first: asking numba for its thread count starts its thread pool, for nothing when serial
    if len(hyp_seg) < 2 or int(h_bytes.sum() + r_bytes.sum()) < _PARALLEL_MIN_BYTES:
        return _k.chrf_rows_serial(*args)
    n_threads = kernel_threads()
    if n_threads == 1:
        return _k.chrf_rows_serial(*args)
    # a segment's work: indexing its references, then walking each hypothesis against each reference
    seg_ref_bytes = np.add.reduceat(r_bytes, ref_ptr[:-1]) if len(r_bytes) else np.zeros(len(seg_keys), np.int64)
    seg_hyp_bytes = np.bincount(hyp_seg, weights=h_bytes, minlength=len(seg_keys))
    work = seg_ref_bytes + np.diff(ref_ptr) * seg_hyp_bytes + 1
    return _k.chrf_rows(*args, block_bounds(work, 8 * n_threads))


def chrf_systems_statistics(
    systems: Sequence[Sequence[str]],
    references: Sequence[Sequence[Any]] | pa.Table | pd.DataFrame | ReferenceSet,
    *,
    char_order: int = 6,
    word_order: int = 0,
    beta: float = 2,
    lowercase: bool = False,
    whitespace: bool = False,
    eps_smoothing: bool = False,
    references_layout: str = "auto",
) -> list[NDArray[np.int64]]:
    r""":func:`chrf_statistics` of several systems over the same references, in one kernel call.

    System :math:`k`'s matrix equals ``chrf_statistics(systems[k], references,
    ...)`` row for row; computed together, each segment's references are
    decoded and indexed once for all systems instead of once per system.

    Parameters
    ----------
    systems : list of lists of str
        Each system's hypotheses, one per segment; every system as long as
        the others.
    references
        As :func:`chrf_statistics` takes them for list hypotheses (streams,
        per-segment lists, a table, a :class:`~bleustats.engine.references.ReferenceSet`).
    char_order, word_order, beta, lowercase, whitespace, eps_smoothing, references_layout
        As in :func:`chrf_statistics`.

    Returns
    -------
    list of numpy.ndarray of int64
        One ``(n_segments, 3 * (char_order + word_order))`` matrix per system.

    Raises
    ------
    ValueError
        As :func:`chrf_statistics`; also systems of different lengths
        (:class:`bleustats.InputError`).

    Examples
    --------
    >>> a, b = chrf_systems_statistics([["ab", "c"], ["b", "c"]], [["ab", "c"]], char_order=1)
    >>> a.tolist(), b.tolist()
    ([[2, 2, 2], [1, 1, 1]], [[1, 2, 1], [1, 1, 1]])
    """
    opts = chrf_options(char_order=char_order, word_order=word_order, beta=beta,
                        lowercase=lowercase, whitespace=whitespace, eps_smoothing=eps_smoothing)
    if isinstance(systems, (str, bytes)) or not all(isinstance(s, (list, tuple)) for s in systems):
        raise InputError(f"systems must be a list of systems, each a list of str (one per segment); got "
                         f"{type(systems).__name__} {systems!r:.60}.")
    systems = list(systems)
    lengths = sorted({len(s) for s in systems})
    if len(lengths) > 1:
        raise InputError(f"systems: the systems have different numbers of hypotheses {lengths}; every system "
                         "needs one hypothesis per segment.")
    n = lengths[0] if lengths else 0
    for k, system in enumerate(systems):
        if set(map(type, system)) <= {str}:  # the common case, checked at C speed
            continue
        bad = next((i for i, h in enumerate(system) if not isinstance(h, str)), None)
        if bad is not None:
            raise InputError(f"systems[{k}][{bad}] must be a str; got {type(system[bad]).__name__} "
                             f"{system[bad]!r:.60}.")
    refs = _references_table(references, n, references_layout)
    n_cols = 3 * (opts["char_order"] + opts["word_order"])
    if n == 0:
        return [np.zeros((0, n_cols), np.int64) for _ in systems]
    text = columns.strings([h for system in systems for h in system], where="systems")
    rows = _rows(np.tile(np.arange(n, dtype=np.int64), len(systems)), text, references, refs, opts)
    return [rows[k * n:(k + 1) * n] for k in range(len(systems))]
