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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..errors import InputError
from . import columns, io

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ReferenceSet"]


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
