r"""Minimum Bayes risk (MBR) selection over candidate lists, from pairwise sentence scores.

For source :math:`s` with candidates :math:`h_1..h_N` and pseudo-references
:math:`r_1..r_M` (by default the candidates themselves, each included), the
expected utility of candidate :math:`i` under utility :math:`u` is

.. math::

    \bar u_i = \frac{1}{|J_i|} \sum_{j \in J_i} u(h_i, r_j), \qquad
    \hat\imath = \operatorname*{arg\,max}_i \bar u_i

with :math:`J_i = \{1..M\}`, or :math:`\{1..N\} \setminus \{i\}` with
``exclude_self``; the first candidate in list order wins ties. :math:`u` is
any metric of :func:`bleustats.tools.pairwise.utility` (chrF, chrF++,
sentence BLEU and its variants; TER as a loss: :math:`u = -\mathrm{TER}`, so
the lowest expected TER wins). With ``aggregate=True`` :math:`\bar u_i` is
:math:`u` against the pooled statistics of all pseudo-references (Vamvas &
Sennrich, 2024; :mod:`bleustats.tools.pairwise`), linear in :math:`M`.

Row sums are taken over each row's values in sorted order, so two candidates
whose utilities are the same multiset (identical candidates) get bit-identical
expected utilities and the tie goes to the first.

:func:`mbr_select` takes Python lists; :func:`mbr_nbest` streams a Moses
n-best list (or reads a long-form hypotheses table, several systems allowed:
MBR system combination) source by source, with memory bounded by one batch of
sources' pairwise matrices, and writes the per-candidate table
(``data_schemas/mbr.json``), the chosen texts and optionally the matrices.

References
----------
S. Kumar, W. Byrne. Minimum Bayes-risk decoding for statistical machine translation. NAACL 2004.
J. Vamvas, R. Sennrich. Linear-time minimum Bayes risk decoding with reference aggregation. ACL 2024.

Examples
--------
>>> r = mbr_select([["the cat sat", "a cat sat", "the dog"]], metric="chrf")
>>> r.best_texts
['the cat sat']
>>> r.expected_utility.round(2).tolist()
[61.46, 52.1, 38.51]
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numpy.typing import NDArray

from .._validate import describe_ids
from ..engine import io
from ..engine import _columns as columns, schemas
from ..engine.schemas import arrow_schema
from ..errors import InputError
from .nbest_io import DEFAULT_CHUNK_BYTES, source_chunks, table_blocks
from .pairwise import BATCH_PAIRS, Utility, csr, pairwise_batch, source_batches, utility

__all__ = ["MBRResult", "expected_utilities", "mbr_nbest", "mbr_select"]


@dataclass
class MBRResult:
    """Per-candidate expected utilities and each source's choice.

    Attributes
    ----------
    seg_id, entry : numpy.ndarray of int64
        Source id and 0-based position within its source of every candidate, in input order.
    expected_utility : numpy.ndarray of float64
        Per candidate (``-TER`` for TER); NaN when no pseudo-reference is left.
    chosen : numpy.ndarray of int64
        Row (into the per-candidate arrays) of each source's choice, sources in increasing id order.
    sources : numpy.ndarray of int64
        The source ids, increasing.
    best_texts : list of str
        The chosen candidate of each source.
    metric : str
        The utility's signature.
    system : list of str or None
        Per candidate, when the input named systems.
    rank : numpy.ndarray of int64 or None
        Per candidate, the input's ``rank`` column, when it had one.
    """

    seg_id: NDArray[np.int64]
    entry: NDArray[np.int64]
    expected_utility: NDArray[np.float64]
    chosen: NDArray[np.int64]
    sources: NDArray[np.int64]
    best_texts: list[str]
    metric: str
    exclude_self: bool = False
    aggregate: bool = False
    system: list[str] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    rank: NDArray[np.int64] | None = None

    def table(self) -> pa.Table:
        """The ``mbr`` table (``data_schemas/mbr.json``), with the options in its metadata."""
        chosen = np.zeros(len(self.seg_id), np.int64)
        chosen[self.chosen] = 1
        cols: dict[str, Any] = {"seg_id": self.seg_id, "entry": self.entry}
        if self.system is not None:
            cols["system"] = self.system
        if self.rank is not None:
            cols["rank"] = self.rank
        cols.update({"expected_utility": self.expected_utility, "chosen": chosen})
        schema = arrow_schema("mbr")
        schema = pa.schema([schema.field(name) for name in cols])
        meta = {"bleustats.mbr.metric": self.metric, "bleustats.mbr.exclude_self": str(self.exclude_self).lower(),
                "bleustats.mbr.aggregate": str(self.aggregate).lower()}
        # columns' builders, not pa.table: pyarrow's pandas shim would import pandas (engine._columns)
        arrays = [columns.strings(v, where="system") if name == "system" else columns.numeric(np.asarray(v))
                  for name, v in cols.items()]
        return pa.Table.from_arrays(arrays, schema=schema).replace_schema_metadata(meta)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``bleustats mbr --json``)."""
        chosen_u = self.expected_utility[self.chosen]
        finite = chosen_u[~np.isnan(chosen_u)]
        return {"n_candidates": int(len(self.seg_id)), "n_sources": int(len(self.sources)), "metric": self.metric,
                "exclude_self": self.exclude_self, "aggregate": self.aggregate,
                "mean_chosen_expected_utility": float(finite.mean()) if len(finite) else None,
                "chosen_first_entry": int((self.entry[self.chosen] == 0).sum()),
                "timings": {k: round(v, 4) for k, v in self.timings.items()}}


def expected_utilities(matrix: NDArray[np.float64], *, loss: bool = False,
                       exclude_self: bool = False) -> NDArray[np.float64]:
    r"""Expected utility of each row of one source's pairwise matrix.

    .. math:: \bar u_i = \frac{1}{|J_i|}\sum_{j \in J_i} \pm U_{ij}

    Parameters
    ----------
    matrix : numpy.ndarray, shape (N, M)
    loss : bool
        The matrix holds losses (TER): utilities are their negatives.
    exclude_self : bool
        Leave out the diagonal (the matrix must be square).

    Examples
    --------
    >>> expected_utilities(np.array([[100.0, 20.0], [20.0, 100.0]]), exclude_self=True).tolist()
    [20.0, 20.0]
    """
    u = -matrix if loss else np.array(matrix, np.float64, copy=True)
    n, m = u.shape
    if exclude_self:
        if n != m:
            raise InputError(f"exclude_self: needs a square matrix (the candidates as pseudo-references); got {n}×{m}.")
        u[np.arange(n), np.arange(n)] = 0.0
        m -= 1
    if m <= 0:
        return np.full(n, np.nan)
    # sorted rows: equal multisets of utilities give bit-identical sums (ties stay ties)
    return np.sort(u, axis=1).sum(axis=1) / m


def _argbest(values: NDArray[np.float64]) -> int:
    """First index of the largest value; NaN (no pseudo-reference) counts as lowest; 0 when all are NaN."""
    if np.isnan(values).all():
        return 0
    return int(np.nanargmax(values))


def _select_batch(hyps: list[str], h_ptr: np.ndarray, refs: list[str] | None, r_ptr: np.ndarray | None, u: Utility,
                  exclude_self: bool, aggregate: bool,
                  on_matrix: Callable[[int, NDArray[np.float64]], None] | None) -> tuple[np.ndarray, np.ndarray]:
    """(expected utility per hypothesis, chosen hypothesis index per source) for one batch of sources."""
    n_src = len(h_ptr) - 1
    expected = np.empty(int(h_ptr[-1]), np.float64)
    chosen = np.empty(n_src, np.int64)
    if aggregate:
        expected[:] = pairwise_batch(hyps, refs, h_ptr, r_ptr, u, aggregate=True, exclude_self=exclude_self)
        for s in range(n_src):
            chosen[s] = h_ptr[s] + _argbest(expected[h_ptr[s]:h_ptr[s + 1]])
        return expected, chosen
    flat = pairwise_batch(hyps, refs, h_ptr, r_ptr, u)
    pos = 0
    for s in range(n_src):
        n = int(h_ptr[s + 1] - h_ptr[s])
        m = n if refs is None else int(r_ptr[s + 1] - r_ptr[s])
        mat = flat[pos:pos + n * m].reshape(n, m)
        pos += n * m
        if on_matrix is not None:
            on_matrix(s, mat)
        e = expected_utilities(mat, loss=u.loss, exclude_self=exclude_self)
        expected[h_ptr[s]:h_ptr[s + 1]] = e
        chosen[s] = h_ptr[s] + _argbest(e)
    return expected, chosen


def check_options(u: Utility, exclude_self: bool, aggregate: bool, has_refs: bool) -> None:
    """Options that cannot go together: ``exclude_self`` with separate pseudo-references, TER aggregated.

    Examples
    --------
    >>> check_options(utility("chrf"), True, False, has_refs=False)
    >>> check_options(utility("ter"), False, True, has_refs=False)
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: aggregate: reference aggregation is defined for chrF and BLEU statistics; ...
    """
    if exclude_self and has_refs:
        raise InputError("exclude_self: leaves each candidate out of its own pseudo-references, so the "
                         "pseudo-references must be the candidates; drop exclude_self (--exclude-self) or the "
                         "separate pseudo-references.")
    if aggregate and u.family == "ter":
        raise InputError("aggregate: reference aggregation is defined for chrF and BLEU statistics; TER has no "
                         "pooled form. Use chrf, chrf++ or a BLEU metric, or drop aggregate (--aggregate).")


def mbr_select(
    candidates: Sequence[Sequence[str]],
    pseudo_references: Sequence[Sequence[str]] | None = None,
    *,
    metric: str | Utility = "chrf",
    exclude_self: bool = False,
    aggregate: bool = False,
    batch_pairs: int = BATCH_PAIRS,
    **options: Any,
) -> MBRResult:
    """MBR selection for lists of candidates, one list per source (sources numbered 0, 1, ...).

    Parameters
    ----------
    candidates : list of lists of str
    pseudo_references : list of lists of str, optional
        One list per source (e.g. samples while the candidates are a beam);
        default: the candidates themselves.
    metric : str or Utility
        See :func:`bleustats.tools.pairwise.utility`; ``options`` are its options.
    exclude_self : bool
        Leave each candidate out of its own pseudo-references.
    aggregate : bool
        Utility against the pooled pseudo-reference statistics (chrF, BLEU).
    batch_pairs : int
        Pairs scored at once (memory bound).

    Returns
    -------
    MBRResult

    Examples
    --------
    >>> mbr_select([["a b c", "a b c d", "a b x"]], metric="ter").best_texts
    ['a b c']
    """
    u = metric if isinstance(metric, Utility) else utility(metric, **options)
    check_options(u, exclude_self, aggregate, pseudo_references is not None)
    cands = [list(c) for c in candidates]
    refs = None if pseudo_references is None else [list(r) for r in pseudo_references]
    if refs is not None and len(refs) != len(cands):
        raise InputError(f"pseudo_references: {len(refs)} lists for {len(cands)} sources; give one per source.")
    for s, c in enumerate(cands):
        if not c:
            raise InputError(f"candidates[{s}] is empty; every source needs at least one candidate.")
        bad = [i for i, t in enumerate(c) if not isinstance(t, str)]
        if bad:
            raise InputError(f"candidates[{s}][{bad[0]}] must be a str; got {type(c[bad[0]]).__name__}.")
    seg = np.repeat(np.arange(len(cands), dtype=np.int64), [len(c) for c in cands])
    return _from_sources(cands, refs, seg, u, exclude_self, aggregate, batch_pairs)


def _from_sources(cands: list[list[str]], refs: list[list[str]] | None, seg: np.ndarray, u: Utility,
                  exclude_self: bool, aggregate: bool, batch_pairs: int,
                  on_matrix: Callable[[int, NDArray[np.float64]], None] | None = None) -> MBRResult:
    t0 = time.perf_counter()
    if aggregate:  # linear work: batch by texts, not pairs
        sizes = np.array([len(c) + (0 if refs is None else len(refs[s])) for s, c in enumerate(cands)], np.int64)
    else:
        sizes = np.array([len(c) * (len(c) if refs is None else len(refs[s])) for s, c in enumerate(cands)],
                         np.int64)
    expected = np.empty(len(seg), np.float64)
    chosen = []
    base = 0
    for a, b in source_batches(sizes, batch_pairs):
        h_flat, h_ptr = csr(cands[a:b])
        r_flat, r_ptr = (None, None) if refs is None else csr(refs[a:b])
        hook = None if on_matrix is None else (lambda s, mat, a=a: on_matrix(a + s, mat))
        e, c = _select_batch(h_flat, h_ptr, r_flat, r_ptr, u, exclude_self, aggregate, hook)
        expected[base:base + len(h_flat)] = e
        chosen.append(c + base)
        base += len(h_flat)
    chosen_rows = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    flat = [t for c in cands for t in c]
    entry = np.concatenate([np.arange(len(c)) for c in cands]).astype(np.int64) if cands else np.zeros(0, np.int64)
    return MBRResult(seg, entry, expected, chosen_rows, np.unique(seg), [flat[i] for i in chosen_rows],
                     u.signature(), exclude_self, aggregate, timings={"score": time.perf_counter() - t0})


# --------------------------------------------------------------------------- files


def _raw_table(source: Any) -> pa.Table:
    """A long-form table input as read (file or in-memory), before validation."""
    if io.is_table(source):
        return io.to_arrow(source)
    p = Path(source)
    if p.is_dir():  # a folder of Parquet parts, read whole
        from ..engine._partitioned_stats import parquet_parts  # here: it builds tables on import (pandas)

        files = parquet_parts(p)
        if not files:
            raise InputError(f"{p}: holds no .parquet file; give a folder of Parquet parts (seg_id, text, ...).")
    elif p.is_file():
        files = [p]
    else:
        raise InputError(f"{p}: no such file; check the path.")
    blocks = [block for f in files for block, _, _ in table_blocks(f, DEFAULT_CHUNK_BYTES)]
    try:
        return pa.concat_tables(blocks) if len(blocks) > 1 else blocks[0]
    except pa.ArrowInvalid as exc:
        raise InputError(f"{p}: its parts have different columns or types ({exc}).") from None


def _rank_column(raw: pa.Table, what: str) -> np.ndarray:
    """The optional ``rank`` column as int64: whole numbers, no nulls (the schema's ``extra_columns``)."""
    col = raw.column("rank").combine_chunks()
    if col.null_count:
        row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{what}: column rank has {col.null_count} empty value(s), first at row {row}; give every "
                         "candidate its rank within its source, or drop the column.")
    t = col.type
    if pa.types.is_integer(t):
        try:
            return col.cast(pa.int64()).to_numpy()
        except pa.ArrowInvalid as exc:
            raise InputError(f"{what}: column rank holds a value beyond int64 ({exc}).") from None
    if pa.types.is_floating(t):
        v = col.to_numpy()
        bad = np.flatnonzero(~np.isfinite(v) | (v != np.round(v)) | (np.abs(v) >= 2.0 ** 53))
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        vals = col.to_pylist()
        bad = [i for i, x in enumerate(vals) if not x.strip().lstrip("+-").isdigit()]
        if not bad:
            return np.array([int(x) for x in vals], np.int64)
        v = vals
    else:
        raise InputError(f"{what}: column rank must hold integers (each candidate's rank within its source); "
                         f"got {t}.")
    if len(bad):
        value = v[int(bad[0])]
        value = float(value) if isinstance(value, np.floating) else value
        raise InputError(f"{what}: column rank must hold integers (each candidate's rank within its source); row "
                         f"{int(bad[0])} has {value!r}.")
    return v.astype(np.int64)


def _check_ranks(seg: np.ndarray, rank: np.ndarray, order: np.ndarray, what: str) -> None:
    """No rank twice within a source (``order`` sorts the rows by source, then rank)."""
    s, r = seg[order], rank[order]
    dup = np.flatnonzero((s[1:] == s[:-1]) & (r[1:] == r[:-1]))
    if len(dup):
        i, j = sorted((int(order[dup[0]]), int(order[dup[0] + 1])))
        raise InputError(f"{what}: source {int(s[dup[0]])} has rank {int(r[dup[0]])} twice (rows {i} and {j}); "
                         "ranks order each source's candidates, so they must differ within a source.")


def _candidates_table(raw: pa.Table, what: str) -> tuple[pa.Table, np.ndarray | None, bool]:
    """(seg_id / system / text, rank or None, whether the input named systems) of a long-form candidates table."""
    rank = _rank_column(raw, what) if "rank" in raw.column_names else None
    # k-best lists share (system, seg_id): the schema's key is not checked
    table = schemas.validate(raw, "hypotheses", param=what, check_key=False)
    return table.select(["seg_id", "system", "text"]), rank, "system" in raw.column_names


def _is_table_input(nbest: Any) -> bool:
    """A long-form table: in memory, a table file, or a folder of Parquet parts (else a Moses n-best list)."""
    return io.is_table(nbest) or (isinstance(nbest, (str, os.PathLike))
                                  and (Path(nbest).suffix.lower() in io.TABLE_SUFFIXES or Path(nbest).is_dir()))


def _grouped(seg: np.ndarray, texts: list[str], rank: np.ndarray | None = None, what: str = "nbest"
             ) -> tuple[np.ndarray, np.ndarray, list[list[str]], np.ndarray]:
    """Grouping by source id, each source's rows in rank order (input order without ranks).

    Returns (order, source ids, lists, entry per input row): grouped row k is input row ``order[k]``.
    """
    if rank is None:
        order = np.argsort(seg, kind="stable")
    else:
        order = np.lexsort((rank, seg))
        _check_ranks(seg, rank, order, what)
    s_sorted = seg[order]
    starts = np.flatnonzero(np.r_[True, s_sorted[1:] != s_sorted[:-1]]) if len(seg) else np.zeros(0, np.int64)
    ends = np.r_[starts[1:], len(seg)]
    lists = [[texts[i] for i in order[a:b]] for a, b in zip(starts, ends)]
    entry = np.empty(len(seg), np.int64)
    entry[order] = np.arange(len(seg)) - np.repeat(starts, ends - starts)
    return order, s_sorted[starts], lists, entry


def pseudo_reference_lists(path: Any) -> dict[int, list[str]]:
    """Source id → its pseudo-references (list order: rank, else input order), from any input ``mbr_nbest`` reads.

    Examples
    --------
    >>> pseudo_reference_lists(pa.table({"seg_id": [4, 4, 1], "text": ["b", "a", "c"], "rank": [1, 0, 0]}))
    {1: ['c'], 4: ['a', 'b']}
    """
    if _is_table_input(path):
        what = "pseudo_references" if io.is_table(path) else str(path)
        t, rank, _ = _candidates_table(_raw_table(path), what)
        seg, texts = columns.to_numpy(t.column("seg_id")), t.column("text").to_pylist()
    else:
        what, rank = str(path), None
        chunks = list(source_chunks(path, DEFAULT_CHUNK_BYTES))
        seg = np.concatenate([columns.to_numpy(c.column("seg_id")) for c, _, _ in chunks]) if chunks else np.zeros(0)
        texts = [t for c, _, _ in chunks for t in c.column("text").to_pylist()]
    _, ids, lists, _ = _grouped(np.asarray(seg, np.int64), texts, rank, what)
    return {int(s): lst for s, lst in zip(ids, lists)}


def _refs_for(ids: np.ndarray, pool: dict[int, list[str]], what: str) -> list[list[str]]:
    missing = [int(s) for s in ids if int(s) not in pool]
    if missing:
        raise InputError(f"{what}: {len(missing)} source(s) have candidates but no pseudo-reference (id "
                         f"{describe_ids(missing)}); the two inputs must use the same source ids.")
    return [pool[int(s)] for s in ids]


def mbr_nbest(
    nbest: Any,
    *,
    pseudo_references: Any = None,
    metric: str | Utility = "chrf",
    exclude_self: bool = False,
    aggregate: bool = False,
    output: str | os.PathLike | None = None,
    best: str | os.PathLike | None = None,
    matrices: str | os.PathLike | None = None,
    progress: Callable[[int, int], None] | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    batch_pairs: int = BATCH_PAIRS,
    **options: Any,
) -> MBRResult:
    """MBR over a Moses n-best list or a long-form hypotheses table; writes the outputs asked for.

    Parameters
    ----------
    nbest : path or table
        Moses n-best text (``.gz`` too; streamed in source-aligned chunks) or
        a hypotheses table, read whole (``.parquet``, ``.tsv``, ``.jsonl``,
        a folder of Parquet parts, pandas /
        Arrow; ``seg_id``, ``text``, optional ``system`` and ``rank``: rows
        of one source are its candidates, in ``rank`` order when the table
        has that column (integers, distinct within a source), else in table
        order; several systems allowed).
    pseudo_references : path or table, optional
        The same formats; every source of ``nbest`` needs at least one, and
        no other source may appear. Default: the candidates.
    metric, exclude_self, aggregate, **options
        As :func:`mbr_select`.
    output : path, optional
        Parquet ``mbr`` table: one row per input candidate, input order.
    best : path, optional
        One line per source (increasing id): the chosen candidate's text.
    matrices : path, optional
        Folder for each source's pairwise matrix, ``<seg_id>.npy`` (float64,
        candidates × pseudo-references; the metric's own scores, TER as TER).
    progress : callable, optional
        ``progress(done, total)`` after each chunk.

    Returns
    -------
    MBRResult

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"seg_id": [1, 2, 1, 2], "system": ["A", "A", "B", "B"],
    ...                   "text": ["a cat sat", "x y", "the cat sat", "x y z"]})
    >>> r = mbr_nbest(t, metric="bleu", tokenize="none")
    >>> r.best_texts, r.entry.tolist()
    (['a cat sat', 'x y'], [0, 0, 1, 1])
    """
    u = metric if isinstance(metric, Utility) else utility(metric, **options)
    check_options(u, exclude_self, aggregate, pseudo_references is not None)
    t0 = time.perf_counter()
    pool = None if pseudo_references is None else pseudo_reference_lists(pseudo_references)
    what = "nbest" if io.is_table(nbest) else str(nbest)
    mat_dir = matrix_folder(matrices, aggregate)
    settings = dict(u=u, exclude_self=exclude_self, aggregate=aggregate, batch_pairs=batch_pairs,
                    mat_dir=None if mat_dir is None else str(mat_dir))
    if _is_table_input(nbest):
        result = select_table(_raw_table(nbest), what, pool, **settings)
        seen = [result.sources]
        if progress is not None:
            progress(1, 1)
    else:
        results: list[MBRResult] = []
        for chunk, done, total in source_chunks(nbest, chunk_bytes):
            seg = columns.to_numpy(chunk.column("seg_id")).astype(np.int64)
            _, ids, lists, _ = _grouped(seg, chunk.column("text").to_pylist())
            results.append(_run_lists(ids, lists, pool, **settings))
            if progress is not None:
                progress(done, total)
        if not results:
            raise InputError(f"{what}: no candidates; the n-best list is empty.")
        result = concat_results(results, u.signature(), exclude_self, aggregate)
        seen = [r.sources for r in results]
    return finish(result, pool, seen, output, best, t0)


def matrix_folder(matrices: Any, aggregate: bool) -> Path | None:
    """The folder for ``--matrices`` (created), None without one; an error with ``aggregate`` (no matrices).

    Examples
    --------
    >>> matrix_folder(None, aggregate=True) is None
    True
    """
    if matrices is None:
        return None
    if aggregate:
        raise InputError("matrices: reference aggregation scores each candidate against the pooled "
                         "pseudo-references, so there is no pairwise matrix to write; drop --matrices or "
                         "--aggregate.")
    mat_dir = Path(matrices)
    mat_dir.mkdir(parents=True, exist_ok=True)
    return mat_dir


def _run_lists(ids: np.ndarray, lists: list[list[str]], pool: dict[int, list[str]] | None, *, u: Utility,
               exclude_self: bool, aggregate: bool, batch_pairs: int, mat_dir: str | None) -> MBRResult:
    """MBR over grouped lists (source ``ids[s]`` has ``lists[s]``); rows in grouped order."""
    refs = None if pool is None else _refs_for(ids, pool, "pseudo_references")
    seg_sorted = np.repeat(ids, [len(c) for c in lists])
    hook = None
    if mat_dir is not None:
        def hook(s: int, mat: NDArray[np.float64]) -> None:
            io.write_atomic(Path(mat_dir) / f"{int(ids[s])}.npy", lambda tmp: _save_npy(tmp, mat))
    return _from_sources(lists, refs, seg_sorted, u, exclude_self, aggregate, batch_pairs, hook)


def select_table(raw: pa.Table, what: str, pool: dict[int, list[str]] | None, **settings: Any) -> MBRResult:
    """MBR over a long-form candidates table (as read, not yet validated); rows in input order.

    ``settings`` are ``u``, ``exclude_self``, ``aggregate``, ``batch_pairs``
    and ``mat_dir`` (a folder for the matrices, or None).

    Examples
    --------
    >>> t = pa.table({"seg_id": [0, 0, 0], "text": ["a b", "a b c", "x"], "rank": [2, 1, 3]})
    >>> r = select_table(t, "t", None, u=utility("chrf"), exclude_self=False, aggregate=False,
    ...                  batch_pairs=BATCH_PAIRS, mat_dir=None)
    >>> r.entry.tolist(), r.best_texts, r.rank.tolist()
    ([1, 0, 2], ['a b c'], [2, 1, 3])
    """
    table, rank, has_system = _candidates_table(raw, what)
    if table.num_rows == 0:
        raise InputError(f"{what}: no candidates; the input is empty.")
    seg = columns.to_numpy(table.column("seg_id")).astype(np.int64)
    order, ids, lists, entry = _grouped(seg, table.column("text").to_pylist(), rank, what)
    r = _run_lists(ids, lists, pool, **settings)
    inv = np.empty(len(order), np.int64)
    inv[order] = np.arange(len(order))
    # rows of r are in grouped order: grouped row k is input row order[k]
    return MBRResult(seg, entry, r.expected_utility[inv], order[r.chosen], ids, r.best_texts, r.metric,
                     r.exclude_self, r.aggregate, table.column("system").to_pylist() if has_system else None,
                     rank=rank)


def concat_results(results: Sequence[MBRResult], metric: str, exclude_self: bool, aggregate: bool) -> MBRResult:
    """Results of consecutive row blocks as one (rows and sources in block order; no source in two blocks).

    Examples
    --------
    >>> a, b = mbr_select([["x y", "x"]]), mbr_select([["p", "p q"]])
    >>> r = concat_results([a, b], a.metric, False, False)
    >>> r.chosen.tolist(), r.best_texts
    ([0, 3], ['x y', 'p q'])
    """
    offsets = np.cumsum([0] + [len(r.seg_id) for r in results[:-1]])
    systems = None if any(r.system is None for r in results) else [x for r in results for x in r.system]
    ranks = None if any(r.rank is None for r in results) else np.concatenate([r.rank for r in results])
    return MBRResult(np.concatenate([r.seg_id for r in results]), np.concatenate([r.entry for r in results]),
                     np.concatenate([r.expected_utility for r in results]),
                     np.concatenate([r.chosen + o for r, o in zip(results, offsets)]),
                     np.concatenate([r.sources for r in results]),
                     [t for r in results for t in r.best_texts], metric, exclude_self, aggregate, systems, rank=ranks)


def finish(result: MBRResult, pool: dict[int, list[str]] | None, seen: Sequence[np.ndarray],
           output: Any, best: Any, t0: float) -> MBRResult:
    """Check that every pseudo-reference source had candidates, write ``-o`` / ``--best``, set the timings.

    ``seen`` are the source ids that had candidates; ``t0`` the run's start (``time.perf_counter()``).

    Examples
    --------
    >>> r = finish(mbr_select([["x y", "x"]]), None, [np.array([0])], None, None, time.perf_counter())
    >>> sorted(r.timings)
    ['score', 'total', 'write']
    """
    if pool is not None:
        extra = sorted(set(pool) - set(np.concatenate(list(seen)).tolist()))
        if extra:
            raise InputError(f"pseudo_references: {len(extra)} source(s) have pseudo-references but no candidate "
                             f"(id {describe_ids(extra)}); the two inputs must use the same source ids.")
    t_write = time.perf_counter()
    if output is not None:
        tbl = result.table()
        io.write_atomic(output, lambda tmp: pq.write_table(tbl, tmp))
    if best is not None:
        bad = [i for i, t in enumerate(result.best_texts) if "\n" in t or "\r" in t]
        if bad:
            raise InputError(f"best: the chosen candidate of source {int(result.sources[bad[0]])} contains a line "
                             "break; the --best file has one line per source. Use -o instead.")
        text = "".join(t + "\n" for t in result.best_texts)
        io.write_atomic(best, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    t_end = time.perf_counter()
    result.timings = {"score": t_write - t0, "write": t_end - t_write, "total": t_end - t0}
    return result


def _save_npy(tmp: str, mat: NDArray[np.float64]) -> None:
    with open(tmp, "wb") as f:
        np.save(f, mat)
