"""References validated once and prepared once per metric: :class:`ReferenceSet`.

sacreBLEU's metric objects take ``references=`` once and reuse them for many
systems. A :class:`ReferenceSet` is that cache on the engine's side: the
references become the long-form ``references`` table (validated once, rows in
segment order), and each metric stores what it derives from them (BLEU's
tokenized texts, TER's twice-tokenized texts, chrF's lowercased texts) under
a key of its options, so scoring a second system repeats none of it.
:func:`~bleustats.engine.stats.compute_stats`,
:func:`~bleustats.engine.chrf_stats.chrf_statistics` and
:func:`~bleustats.engine.ter_stats.ter_statistics` accept one wherever they
accept references.

Examples
--------
>>> refs = ReferenceSet([["the cat", "a dog"], ["a cat", None]])
>>> refs.n_segments, refs.num_refs, refs.table.column("seg_id").to_pylist()
(2, -1, [0, 0, 1])
>>> refs.cached(("upper",), lambda t: [s.upper() for s in t.column("text").to_pylist()])
['THE CAT', 'A CAT', 'A DOG']
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..errors import InputError
from . import _columns as columns, io

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SHARED_MAX_CHARS", "SHARED_MAX_ENTRIES", "ReferenceSet", "clear_shared", "shared_reference_set"]


class ReferenceSet:
    """References as one validated long-form table, plus per-metric caches.

    Parameters
    ----------
    references : list of lists of str, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style streams (``references[k][i]``; ``None`` = segment i has
        no k-th reference; every stream as long as the hypotheses), per-segment
        lists with ``layout='segments'``, or a long-form ``references`` table.
    ref_weights : list of lists of float, optional
        ΔBLEU weights, same shape as list ``references``.
    layout : {'streams', 'segments', 'auto'}
        How list ``references`` are laid out (default: sacreBLEU's streams).

    Attributes
    ----------
    table : pyarrow.Table
        The ``references`` table (``seg_id``, ``ref_id``, ``weight``, ``text``).
    n_segments : int or None
        Segments of list references (None for a table: its seg_ids say).
    num_refs : int
        References per segment, or -1 when it varies (sacreBLEU's ``var``).
    """

    def __init__(self, references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table,
                 ref_weights: Sequence[Sequence[float]] | None = None, *, layout: str = "streams") -> None:
        n_segments: int | None = None
        if not io.is_table(references) and not isinstance(references, (str, bytes)):
            try:
                references = [r if isinstance(r, (pa.Array, pa.ChunkedArray, str, bytes)) else list(r)
                              for r in references]
            except TypeError:
                raise InputError(f"references must be a list of reference streams (list of lists of str) or "
                                 f"a long-form table; got {type(references).__name__} {references!r:.60}.") from None
            if layout == "streams" and references and not any(isinstance(r, (str, bytes)) for r in references):
                lengths = sorted({len(r) for r in references})
                if len(lengths) > 1:
                    raise InputError(f"references: the reference streams have different lengths {lengths}; "
                                     "every stream needs one entry per segment (None for a missing reference).")
                n_segments = lengths[0]
            elif layout == "segments":
                n_segments = len(references)
        self.table = io.as_references_table(references, ref_weights, n_hyp=n_segments, layout=layout)
        seg = columns.to_numpy(self.table.column("seg_id"))
        self.n_segments = n_segments
        width = max(n_segments or 0, int(seg.max()) + 1 if len(seg) else 0)
        counts = np.bincount(seg, minlength=width) if width else np.zeros(0, np.int64)
        distinct = np.unique(counts)
        self.num_refs: int = int(distinct[0]) if len(distinct) == 1 else (-1 if len(distinct) else 0)
        self._cache: dict[tuple, Any] = {}

    def __len__(self) -> int:
        return self.table.num_rows

    def cached(self, key: tuple, make: Callable[[pa.Table], Any]) -> Any:
        """``make(table)``, computed on the first call with this ``key`` and kept."""
        if key not in self._cache:
            self._cache[key] = make(self.table)
        return self._cache[key]

    def __repr__(self) -> str:
        return (f"ReferenceSet({self.table.num_rows} references, "
                f"{self.n_segments if self.n_segments is not None else '?'} segments, num_refs={self.num_refs})")


# --------------------------------------------------------------------------- process-level cache

#: Reference sets :func:`shared_reference_set` keeps (least recently used first out).
SHARED_MAX_ENTRIES = 4
#: Characters of reference text it keeps in all, summed over its entries; a larger
#: reference set is not kept (what each entry derives, e.g. tokenized texts, is of
#: the same order, once per option set used).
SHARED_MAX_CHARS = 16_000_000

_shared: OrderedDict[bytes, tuple[ReferenceSet, int]] = OrderedDict()
_shared_lock = threading.Lock()


def _digest(streams: list[Sequence[Any]], n_hyp: int) -> tuple[bytes, int] | None:
    """(content digest, characters) of list reference streams; None unless every entry is a str or None.

    The digest covers every stream's length and every entry's length (-1 for
    None) and text, so two inputs share a digest only when they are equal,
    entry for entry (up to BLAKE2b collisions).
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(f"streams:{len(streams)}:{n_hyp}".encode())
    chars = 0
    for stream in streams:
        if len(stream) != n_hyp:
            return None
        try:  # all str (the usual case): C loops only
            text = "".join(stream)
            lengths = np.fromiter(map(len, stream), np.int64, count=n_hyp)
        except TypeError:  # None (a missing reference) or something that is not text
            lengths = np.fromiter((-1 if s is None else len(s) if isinstance(s, str) else -2 for s in stream),
                                  np.int64, count=n_hyp)
            if (lengths == -2).any():
                return None  # not text: the uncached path names the entry
            text = "".join([s for s in stream if s is not None])
        h.update(lengths.tobytes())
        chars += len(text)
        h.update(text.encode("utf-8", "surrogatepass"))
    return h.digest(), chars


def shared_reference_set(references: Any, n_hyp: int, layout: str = "auto") -> ReferenceSet | None:
    """The process's :class:`ReferenceSet` of ``references``, made on the first call with their content.

    ``corpus_bleu``, ``corpus_chrf`` and ``corpus_ter`` are called once per
    system with the same references; through this cache the references are
    validated once, and each metric prepares them (tokenizes them) once per
    option set, as the metric objects do with ``references=``. Entries are
    found by a BLAKE2b digest of the streams' content, never by the lists'
    identity, so a reference edited in place (even one character) is a
    different entry. At most :data:`SHARED_MAX_ENTRIES` reference sets of at
    most :data:`SHARED_MAX_CHARS` characters in all are kept, least recently
    used first out.

    Parameters
    ----------
    references : list of lists of str
        sacreBLEU-style reference streams (``None`` for a missing reference).
    n_hyp : int
        Number of hypotheses: every stream must be that long.
    layout : {'auto', 'streams', 'segments'}
        ``references_layout`` of the caller; only streams are kept.

    Returns
    -------
    ReferenceSet or None
        None where the cache does not apply (a table, per-segment lists,
        weights, streams of another length, entries that are not text, or a
        set too large to keep): the caller takes its uncached path, which
        also raises the errors of malformed inputs.

    Examples
    --------
    >>> clear_shared()
    >>> a = shared_reference_set([["the cat", "a dog"]], 2)
    >>> a is shared_reference_set([["the cat", "a dog"]], 2), a is shared_reference_set([["the cat", "a dot"]], 2)
    (True, False)
    >>> shared_reference_set([["the cat"]], 2) is None  # a stream of the wrong length: not kept
    True
    """
    if layout not in ("auto", "streams") or not isinstance(references, (list, tuple)) or not references:
        return None
    if not all(isinstance(r, (list, tuple)) for r in references):
        return None
    found = _digest(list(references), n_hyp)
    if found is None:
        return None
    key, chars = found
    with _shared_lock:
        entry = _shared.get(key)
        if entry is not None:
            _shared.move_to_end(key)
            return entry[0]
    if chars > SHARED_MAX_CHARS:
        return None
    refs = ReferenceSet(list(references), layout="streams")
    with _shared_lock:
        _shared[key] = (refs, chars)
        _shared.move_to_end(key)
        total = sum(c for _, c in _shared.values())
        while len(_shared) > SHARED_MAX_ENTRIES or total > SHARED_MAX_CHARS:
            _, (_, c) = _shared.popitem(last=False)
            total -= c
    return refs


def clear_shared() -> None:
    """Empty the cache of :func:`shared_reference_set`.

    Examples
    --------
    >>> clear_shared(); shared_reference_set([["a"]], 1) is shared_reference_set([["a"]], 1)
    True
    """
    with _shared_lock:
        _shared.clear()
