"""Per-hypothesis sufficient statistics: the contract every score is computed from.

:func:`compute_stats` runs the pipeline tokenize → encode → numba kernel and
returns a :class:`StatsTable`: one row per hypothesis with ``hyp_len``,
reference lengths, and for every order ``n`` the clipped matches ``match_n``,
totals ``total_n`` (int64, sacreBLEU semantics) and the ΔBLEU weighted
``wmatch_n`` / ``wtotal_n`` (float64). The table is Arrow-backed, saves to
Parquet with its metadata, and loads again for scoring without the texts.

A segment's references are indexed once and reused for all its hypotheses
(many systems, or a k-best list). Work runs in chunks of segments so memory
stays bounded, and the segments of a chunk are spread over numba's threads.

Examples
--------
>>> st = compute_stats(["the cat sat on the mat"], [["the cat is on the mat"]])
>>> st.column("match_1").tolist(), st.column("total_1").tolist()
([5], [6])
>>> st.max_ngram_order, st.tokenize, len(st)
(4, '13a', 1)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._validate import describe_ids
from .._version import __version__
from ..errors import InputError
from ..tokenizers import TOKENIZERS
from . import _stats_kernels, io, schemas
from .encode import PARALLEL_MIN_TOKENS, block_bounds, encode_segments, list_buffers

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DELTA_DEFINITIONS",
    "MAX_ORDER_LIMIT",
    "REF_VIEWS",
    "StatsTable",
    "compute_stats",
    "compute_stats_files",
    "load_stats",
]

#: Reference views (ΔBLEU paper, Table 2): all references, those with weight ≥ θ, the first only.
REF_VIEWS = ("all", "threshold", "first")
#: ΔBLEU weighted-match definitions: the paper's, or the first author's 2019 implementation.
DELTA_DEFINITIONS = ("paper", "galley2019")
#: Largest supported n-gram order (the kernel has no intrinsic limit; this bounds table width).
MAX_ORDER_LIMIT = 32

_META = "bleustats."


@dataclass(frozen=True)
class StatsTable:
    """Per-hypothesis statistics with the settings that produced them.

    Attributes
    ----------
    table : pyarrow.Table
        Columns as declared in ``data_schemas/statistics.json``; schema
        metadata (``bleustats.*`` keys) records the settings.
    timings : dict
        Seconds spent per stage (``tokenize``, ``encode``, ``kernel``, ...)
        when computed here; empty when loaded from a file.
    """

    table: pa.Table
    timings: dict = field(default_factory=dict, compare=False)

    def _meta(self, key: str) -> str:
        meta = self.table.schema.metadata or {}
        return meta.get((_META + key).encode(), b"").decode()

    @property
    def max_ngram_order(self) -> int:
        """Largest n-gram order N of the per-order columns."""
        return int(self._meta("max_ngram_order"))

    @property
    def max_order(self) -> int:
        """Old name of :attr:`max_ngram_order` (kept for bleustats 0.1 code; goes away in 0.3)."""
        return self.max_ngram_order

    @property
    def tokenize(self) -> str:
        return self._meta("tokenize")

    @property
    def lowercase(self) -> bool:
        return self._meta("lowercase") == "true"

    @property
    def ref_view(self) -> str:
        return self._meta("ref_view")

    @property
    def weight_threshold(self) -> float | None:
        v = self._meta("weight_threshold")
        return float(v) if v else None

    @property
    def delta_definition(self) -> str:
        return self._meta("delta_definition")

    @property
    def weights(self) -> str:
        """'uniform' when every reference weight was 1, else 'custom'."""
        return self._meta("weights")

    @property
    def version(self) -> str:
        return self._meta("version")

    @property
    def n_refs_label(self) -> str:
        """Number of references per segment for the signature ('var' if it varies)."""
        n = np.unique(self.column("n_refs"))
        return str(int(n[0])) if len(n) == 1 else "var"

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (zero-copy for numeric columns)."""
        col = self.table.column(name)
        if col.num_chunks == 1:
            return col.chunk(0).to_numpy(zero_copy_only=False)
        return col.to_numpy()

    def to_pandas(self) -> pd.DataFrame:
        return self.table.to_pandas()

    def select(self, rows: np.ndarray | Sequence[int] | Sequence[bool]) -> "StatsTable":
        """The rows given by a boolean mask or an index array, settings kept."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (len(self),):
                raise ValueError(
                    f"rows: a boolean mask must have one entry per row ({len(self)}); got shape {rows.shape}."
                )
            rows = np.flatnonzero(rows)
        return StatsTable(self.table.take(pa.array(rows.astype(np.int64, copy=False))))

    def save(self, path: str | os.PathLike) -> None:
        """Write the table to Parquet, whole or not at all (metadata included)."""
        io.write_atomic(path, lambda tmp: pq.write_table(self.table, tmp))

    def with_max_ngram_order(self, max_ngram_order: int) -> "StatsTable":
        """The table of orders 1..``max_ngram_order`` only (settings kept, order updated).

        The statistics of order n do not depend on the largest order, so a
        table computed to order N holds every lower order's table.

        Examples
        --------
        >>> st = compute_stats(["a b c"], [["a b d"]], tokenize="none")
        >>> low = st.with_max_ngram_order(2)
        >>> low.max_ngram_order, low.table.column_names[-4:]
        (2, ['wmatch_1', 'wmatch_2', 'wtotal_1', 'wtotal_2'])
        """
        n = max_ngram_order
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= self.max_ngram_order:
            raise InputError(f"max_ngram_order must be an integer from 1 to the table's order "
                             f"{self.max_ngram_order}; got {max_ngram_order!r}. A higher order needs the "
                             "statistics computed again with that order.")
        if n == self.max_ngram_order:
            return self
        names = schemas.arrow_schema("statistics", max_ngram_order=int(n)).names
        meta = dict(self.table.schema.metadata or {})
        meta[(_META + "max_ngram_order").encode()] = str(int(n)).encode()
        return StatsTable(self.table.select(names).replace_schema_metadata(meta))


def load_stats(path: str | os.PathLike) -> StatsTable:
    """Load a statistics table saved by :meth:`StatsTable.save` and validate it.

    Examples
    --------
    >>> import tempfile, os
    >>> st = compute_stats(["a b c"], [["a b d"]], max_ngram_order=2)
    >>> p = os.path.join(tempfile.mkdtemp(), "stats.parquet")
    >>> st.save(p)
    >>> load_stats(p).column("match_2").tolist()
    [1]
    """
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder; give the Parquet file written by bleustats stats (-o).")
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as a Parquet statistics table ({exc}).") from None
    meta = table.schema.metadata or {}
    key = (_META + "max_ngram_order").encode()
    if key not in meta:
        raise InputError(
            f"{path}: has no {key.decode()!r} metadata; it was not written by bleustats "
            "(StatsTable.save)."
        )
    max_order = _check_metadata(meta, path)
    # columns, types, ranges, no NaN, and the invariants every computed table satisfies
    # (match_n <= total_n, total_n from hyp_len, wtotal_n = total_n * ref_weight_max, ...)
    aligned = schemas.validate(table, "statistics", max_ngram_order=max_order, param=str(path))
    return StatsTable(aligned.replace_schema_metadata(meta))


def _check_metadata(meta: dict, path: Any) -> int:
    """The table's settings, each checked; returns its max_ngram_order (errors list every bad key)."""
    values, problems = {}, []
    for key in schemas.load_schema("statistics")["metadata"]:
        raw = meta.get(key.encode())
        try:
            values[key] = None if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError:
            values[key] = None
            problems.append(f"{key} is not UTF-8 text")
    allowed = {"bleustats.tokenize": TOKENIZERS, "bleustats.lowercase": ("true", "false"),
               "bleustats.ref_view": REF_VIEWS, "bleustats.delta_definition": DELTA_DEFINITIONS,
               "bleustats.weights": ("uniform", "custom")}
    for key, choices in allowed.items():
        if values.get(key) is not None and values[key] not in choices:
            problems.append(f"{key} is {values[key]!r}, not one of {', '.join(map(repr, choices))}")
    order = values.get("bleustats.max_ngram_order") or ""
    if not (order.isdigit() and 1 <= int(order) <= MAX_ORDER_LIMIT):
        problems.append(f"bleustats.max_ngram_order is {order!r}, not an integer from 1 to {MAX_ORDER_LIMIT}")
    theta = values.get("bleustats.weight_threshold") or ""
    if values.get("bleustats.ref_view") == "threshold":
        try:
            if not np.isfinite(float(theta)):
                raise ValueError
        except ValueError:
            problems.append(f"bleustats.weight_threshold is {theta!r}, not the finite θ of the threshold view")
    elif theta:
        problems.append(f"bleustats.weight_threshold is {theta!r} but ref_view is not 'threshold'")
    if problems:
        raise InputError(f"{path}: broken bleustats metadata: " + "; ".join(problems)
                         + ". The file was not written by StatsTable.save, or was edited; compute it again.")
    return int(order)


# --------------------------------------------------------------------------- checks


def _check_options(tokenize, max_ngram_order, ref_view, weight_threshold, delta_definition):
    if tokenize not in TOKENIZERS:
        raise ValueError(
            f"tokenize must be one of {', '.join(map(repr, TOKENIZERS))}; got {tokenize!r}."
        )
    if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)) or not (
        1 <= max_ngram_order <= MAX_ORDER_LIMIT
    ):
        raise ValueError(
            f"max_ngram_order must be an integer from 1 to {MAX_ORDER_LIMIT}; got {max_ngram_order!r}."
        )
    if ref_view not in REF_VIEWS:
        raise ValueError(f"ref_view must be one of {', '.join(map(repr, REF_VIEWS))}; got {ref_view!r}.")
    if ref_view != "threshold" and weight_threshold is not None:
        raise ValueError(
            f"weight_threshold is only used with ref_view='threshold'; got weight_threshold="
            f"{weight_threshold!r} with ref_view={ref_view!r}. Pass ref_view='threshold' or drop it."
        )
    if ref_view == "threshold":
        if weight_threshold is None or not np.isfinite(weight_threshold):
            raise ValueError(
                f"weight_threshold must be a finite number when ref_view='threshold'; got {weight_threshold!r}."
            )
    if delta_definition not in DELTA_DEFINITIONS:
        raise ValueError(
            "delta_definition must be one of "
            f"{', '.join(map(repr, DELTA_DEFINITIONS))}; got {delta_definition!r}."
        )


def _apply_view(refs: pa.Table, ref_view: str, weight_threshold: float | None) -> pa.Table:
    if ref_view == "threshold":
        return refs.filter(pc.greater_equal(refs.column("weight"), weight_threshold))
    if ref_view == "first":
        seg = refs.column("seg_id").to_numpy()
        _, first = np.unique(seg, return_index=True)
        return refs.take(pa.array(np.sort(first)))
    return refs


# --------------------------------------------------------------------------- pipeline


def _rows_of(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """column[rows] as one array: a zero-copy slice when rows are consecutive."""
    if len(rows) and (np.diff(rows) == 1).all():
        return column.slice(int(rows[0]), len(rows)).combine_chunks()
    return column.take(pa.array(rows)).combine_chunks()


def compute_stats(
    hypotheses: Sequence[str] | pd.DataFrame | pa.Table,
    references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table,
    *,
    ref_weights: Sequence[Sequence[float]] | None = None,
    tokenize: str = "13a",
    lowercase: bool = False,
    max_ngram_order: int = 4,
    ref_view: str = "all",
    weight_threshold: float | None = None,
    delta_definition: str = "paper",
    references_layout: str = "auto",
    system: str | None = None,
    k_best: bool = False,
    chunk_segments: int = 100_000,
) -> StatsTable:
    r"""Per-hypothesis BLEU and ΔBLEU sufficient statistics.

    For hypothesis :math:`h` with references :math:`r_1..r_K` of weights
    :math:`w_j \in [-1, 1]` and :math:`\#g(x)` the count of n-gram :math:`g`
    in :math:`x`:

    .. math::

        \mathrm{match}_n = \sum_{g \in h,\ |g| = n} \min\big(\#g(h), \max_j \#g(r_j)\big),
        \qquad \mathrm{total}_n = \max(0, |h| - n + 1)

        \mathrm{wmatch}_n = \sum_{g} \max_{j:\ g \in r_j} w_j \min\big(\#g(h), \#g(r_j)\big),
        \qquad \mathrm{wtotal}_n = \sum_{g} \#g(h) \max_j w_j

    (Galley et al., 2015; an n-gram in no reference adds 0). With
    ``delta_definition='galley2019'`` the numerator is the first author's 2019
    implementation, :math:`\min(\#g(h), \max_j \#g(r_j)) \cdot \max_{j: g \in
    r_j} w_j`. ``ref_len_closest`` is the reference length closest to
    :math:`|h|`, ties to the shorter (sacreBLEU).

    Parameters
    ----------
    hypotheses : list of str, pandas.DataFrame or pyarrow.Table
        One hypothesis per segment, or the long-form ``hypotheses`` table
        (``seg_id``, ``system``, ``text``) with any number of hypotheses per
        segment.
    references : list of lists, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style reference streams, one list of references per segment
        (see ``references_layout``), or the long-form ``references`` table
        (``seg_id``, ``ref_id``, ``weight``, ``text``).
    ref_weights : list of lists of float, optional
        Weights in [-1, 1], same shape as list ``references``; default all 1.
    tokenize : {'13a', 'none', 'intl', 'char'}
        sacreBLEU tokenizer.
    lowercase : bool
        Lowercase before tokenizing.
    max_ngram_order : int
        Largest order N (1 to :data:`MAX_ORDER_LIMIT`).
    ref_view : {'all', 'threshold', 'first'}
        Which references count: all, those with ``weight >= weight_threshold``,
        or only each segment's first (original) reference.
    weight_threshold : float, optional
        θ of the ``'threshold'`` view.
    delta_definition : {'paper', 'galley2019'}
        Definition of ``wmatch_n``.
    references_layout : {'auto', 'streams', 'segments'}
        How list ``references`` are laid out (see :func:`bleustats.engine.io.as_references_table`).
    system : str, optional
        System name for list ``hypotheses``.
    k_best : bool
        The hypotheses are entries of k-best lists: several rows may share
        (system, seg_id). Otherwise such rows are an error, since a system's
        score would count them twice.
    chunk_segments : int
        Segments per chunk; bounds memory on large inputs.

    Returns
    -------
    StatsTable
        One row per hypothesis, in input order.

    Raises
    ------
    ValueError
        Bad options or inputs; the message names the parameter, the row or
        segment, and the fix. A hypothesis whose segment has no reference (in
        the chosen view) is an error.

    Examples
    --------
    >>> st = compute_stats(["a a"], [["a", "a a"]], ref_weights=[[1.0, -0.5]],
    ...                    references_layout="segments", tokenize="none", max_ngram_order=1)
    >>> st.column("match_1").tolist(), st.column("wmatch_1").tolist(), st.column("wtotal_1").tolist()
    ([2], [1.0], [2.0])
    """
    _check_options(tokenize, max_ngram_order, ref_view, weight_threshold, delta_definition)
    if not isinstance(chunk_segments, (int, np.integer)) or chunk_segments < 1:
        raise ValueError(f"chunk_segments must be a positive integer; got {chunk_segments!r}.")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    hyps = io.as_hypotheses_table(hypotheses, system=system, k_best=k_best)
    refs = io.as_references_table(references, ref_weights, n_hyp=len(hyps) if not io.is_table(hypotheses) else None,
                                  layout=references_layout)
    uniform = bool(refs.num_rows == 0 or pc.all(pc.equal(refs.column("weight"), 1.0)).as_py())
    refs = _apply_view(refs, ref_view, weight_threshold)
    timings["read"] = time.perf_counter() - t0

    # Segment index: the distinct seg_ids that have references in this view.
    ref_seg_ids = refs.column("seg_id").to_numpy()
    seg_keys, ref_seg = np.unique(ref_seg_ids, return_inverse=True)
    hyp_seg_ids = hyps.column("seg_id").to_numpy()
    hyp_seg = np.searchsorted(seg_keys, hyp_seg_ids)
    found = (hyp_seg < len(seg_keys)) & (seg_keys[np.minimum(hyp_seg, max(len(seg_keys) - 1, 0))] == hyp_seg_ids
                                         if len(seg_keys) else np.zeros(len(hyp_seg_ids), bool))
    if not found.all():
        missing = np.unique(hyp_seg_ids[~found])
        view = "" if ref_view == "all" else f" in ref_view={ref_view!r}" + (
            f" (weight >= {weight_threshold})" if ref_view == "threshold" else "")
        raise InputError(
            f"references: {len(missing)} segment(s) have hypotheses but no reference{view}: "
            f"seg_id {describe_ids(missing)}. Every hypothesis needs at least one reference; "
            "drop those hypotheses or add references."
        )

    n_hyp = hyps.num_rows
    n = max_ngram_order
    # the kernels' output layout, for all rows; each chunk's rows are scattered into it
    lens, ref_avg, n_refs, wmax, counts, wcounts = _stats_kernels.alloc_outputs(n_hyp, n)

    hyp_sort = np.argsort(hyp_seg, kind="stable")
    ref_sort = np.argsort(ref_seg, kind="stable")
    n_seg = len(seg_keys)
    hyp_ptr_all = np.searchsorted(hyp_seg[hyp_sort], np.arange(n_seg + 1))
    ref_ptr_all = np.searchsorted(ref_seg[ref_sort], np.arange(n_seg + 1))
    hyp_text = hyps.column("text")
    ref_text = refs.column("text")
    weights = refs.column("weight").to_numpy()
    definition = _stats_kernels.DEF_PAPER if delta_definition == "paper" else _stats_kernels.DEF_GALLEY2019
    n_threads = numba.get_num_threads()
    timings.update(tokenize=0.0, encode=0.0, kernel=0.0)

    for c0 in range(0, n_seg, chunk_segments):
        c1 = min(n_seg, c0 + chunk_segments)
        h_rows = hyp_sort[hyp_ptr_all[c0]:hyp_ptr_all[c1]]
        r_rows = ref_sort[ref_ptr_all[c0]:ref_ptr_all[c1]]
        if len(h_rows) == 0:
            continue
        hyp_ptr = (hyp_ptr_all[c0:c1 + 1] - hyp_ptr_all[c0]).astype(np.int64)
        ref_ptr = (ref_ptr_all[c0:c1 + 1] - ref_ptr_all[c0]).astype(np.int64)
        hyp_ids, ref_ids = encode_segments(_rows_of(hyp_text, h_rows), _rows_of(ref_text, r_rows), hyp_ptr,
                                           ref_ptr, tokenize=tokenize, lowercase=lowercase, timings=timings)
        t2 = time.perf_counter()
        hv, ho = list_buffers(hyp_ids)
        rv, ro = list_buffers(ref_ids)
        work = np.diff(ho[hyp_ptr].astype(np.int64)) + np.diff(ro[ref_ptr].astype(np.int64)) + 1
        args = (hv, ho, np.arange(len(h_rows), dtype=np.int64), hyp_ptr,
                rv, ro, np.arange(len(r_rows), dtype=np.int64), ref_ptr,
                np.ascontiguousarray(weights[r_rows]), n, definition,
                max(int(hv.max(initial=-1)), int(rv.max(initial=-1))) + 1)
        if n_threads == 1 or work.sum() < PARALLEL_MIN_TOKENS:
            out = _stats_kernels.compute_stats_serial(*args)
        else:
            out = _stats_kernels.compute_stats(*args, block_bounds(work, 8 * n_threads))
        c_lens, c_avg, c_nrefs, c_wmax, c_counts, c_wcounts = out
        lens[:, h_rows] = c_lens
        ref_avg[h_rows] = c_avg
        n_refs[h_rows] = c_nrefs
        wmax[h_rows] = c_wmax
        counts[:, h_rows] = c_counts
        wcounts[:, h_rows] = c_wcounts
        del hyp_ids, ref_ids, hv, ho, rv, ro, args, out  # before the next chunk
        timings["kernel"] += time.perf_counter() - t2

    t = time.perf_counter()
    columns = {
        "seg_id": hyps.column("seg_id"),
        "system": hyps.column("system"),
        "hyp_len": lens[0],
        "ref_len_closest": lens[1],
        "ref_len_shortest": lens[2],
        "ref_len_average": ref_avg,
        "n_refs": n_refs,
        "ref_weight_max": wmax,
    }
    for k, prefix in enumerate(("match", "total")):
        for i in range(n):
            columns[f"{prefix}_{i + 1}"] = counts[k * n + i]
    for k, prefix in enumerate(("wmatch", "wtotal")):
        for i in range(n):
            columns[f"{prefix}_{i + 1}"] = wcounts[k * n + i]
    schema = schemas.arrow_schema("statistics", max_ngram_order=n)
    table = pa.Table.from_arrays(
        [c if isinstance(c, pa.ChunkedArray) else pa.array(c) for c in columns.values()],
        schema=schema,
    )
    meta = {
        "version": __version__,
        "max_ngram_order": str(n),
        "tokenize": tokenize,
        "lowercase": "true" if lowercase else "false",
        "ref_view": ref_view,
        "weight_threshold": "" if ref_view != "threshold" else repr(float(weight_threshold)),
        "delta_definition": delta_definition,
        "weights": "uniform" if uniform else "custom",
    }
    table = table.replace_schema_metadata({_META + k: v for k, v in meta.items()})
    timings["assemble"] = time.perf_counter() - t
    return StatsTable(table, timings)


def compute_stats_files(
    hypotheses_path: str | os.PathLike,
    reference_paths: Sequence[str | os.PathLike],
    *,
    ref_weight_paths: Sequence[str | os.PathLike] | None = None,
    chunk_lines: int = 100_000,
    **options: Any,
) -> StatsTable:
    """Statistics of plain-text files (one segment per line), streamed in chunks of lines.

    The files are read together ``chunk_lines`` lines at a time (segments of
    line-aligned files never span two chunks), so memory stays bounded however
    large they are. ``ref_weight_paths`` gives one file of weights per
    reference file, one number per line. ``options`` are those of
    :func:`compute_stats` (``tokenize``, ``lowercase``, ``max_ngram_order``,
    ``ref_view``, ``weight_threshold``, ``delta_definition``). ``seg_id`` is
    the 0-based line index.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name, text in [("h", "a b c d\\nx y\\n"), ("r", "a b c d\\nx z\\n")]:
    ...     _ = open(os.path.join(d, name), "w", encoding="utf-8").write(text)
    >>> st = compute_stats_files(os.path.join(d, "h"), [os.path.join(d, "r")], chunk_lines=1)
    >>> st.column("seg_id").tolist(), st.column("match_1").tolist()
    ([0, 1], [4, 1])
    """
    if isinstance(reference_paths, (str, os.PathLike)):
        reference_paths = [reference_paths]
    if isinstance(ref_weight_paths, (str, os.PathLike)):
        ref_weight_paths = [ref_weight_paths]
    reference_paths = list(reference_paths)
    if not reference_paths:
        raise InputError("reference_paths: give at least one reference file.")
    if ref_weight_paths is not None and len(ref_weight_paths) != len(reference_paths):
        raise InputError(
            f"ref_weight_paths: need one weight file per reference file ({len(reference_paths)}); "
            f"got {len(ref_weight_paths)}."
        )
    if not isinstance(chunk_lines, (int, np.integer)) or chunk_lines < 1:
        raise ValueError(f"chunk_lines must be a positive integer; got {chunk_lines!r}.")
    paths = [hypotheses_path, *reference_paths]
    names = [str(p) for p in reference_paths]
    weights = None
    if ref_weight_paths is not None:
        # weights are small (one number per line): read whole, checked against each file's length
        n_lines = [len(io.read_lines(p)) for p in reference_paths]
        weights = [io.read_weights(w, n=n, ref_path=r) for w, n, r in zip(ref_weight_paths, n_lines, reference_paths)]
    parts: list[StatsTable] = []
    read = 0.0
    chunks = io.iter_line_chunks(paths, chunk_lines)
    while True:
        t = time.perf_counter()
        item = next(chunks, None)
        read += time.perf_counter() - t
        if item is None:
            break
        first, (hyp, *refs) = item
        w = None if weights is None else [x[first:first + len(hyp)] for x in weights]
        parts.append(compute_stats(
            io.lines_table(hyp, first=first),
            io.streams_table(refs, w, n_hyp=len(hyp), names=names, first=first),
            **options,
        ))
        del hyp, refs, item  # the next chunk's texts replace these, not join them
    if not parts:
        return compute_stats([], [[] for _ in reference_paths], **options)
    timings: dict[str, float] = {"read_files": read}
    for part in parts:
        for k, v in part.timings.items():
            timings[k] = timings.get(k, 0.0) + v
    meta = dict(parts[-1].table.schema.metadata)
    if any(p.weights == "custom" for p in parts):
        meta[(_META + "weights").encode()] = b"custom"
    table = pa.concat_tables([p.table for p in parts]).replace_schema_metadata(meta)
    return StatsTable(table, timings)
