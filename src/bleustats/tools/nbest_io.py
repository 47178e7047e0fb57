r"""k-best (n-best) files: a streaming, source-aligned reader and Moses' SCORES_TXT writer.

Inputs
------
* Moses n-best text (``.gz`` too): ``i ||| hypothesis ||| F0= v v F1= v ||| total``
  with 0-based source id ``i``, one entry per line, each source's entries
  together and ids increasing (as Moses writes them). Fields after the total
  (e.g. word alignments) are ignored.
* The long-form hypotheses table (``seg_id``, ``system``, ``text``, optional
  ``model_score``) as ``.parquet`` (streamed by row group), ``.tsv``
  (streamed) or ``.jsonl``, or an in-memory pandas / Arrow table.
* References: plain-text files, one per reference stream, line ``i`` for
  source ``i`` (as Moses' ``extractor`` takes them), or a long-form references
  table (``seg_id``, ``ref_id``, ``weight``, ``text``; weights give ΔBLEU).

Moses ``SCORES_TXT`` (``mert/ScoreArray.cpp`` ``savetxt``, ``mert/BleuScorer.cpp``)
-------------------------------------------------------------------------------
Per source sentence::

    SCORES_TXT_BEGIN_0 <source index> <number of entries> <2N+1> BLEU
    m_1 t_1 m_2 t_2 ... m_N t_N r 
    ...
    SCORES_TXT_END_0

one line per entry with a trailing space (Moses' ``ScoreStats`` writes every
value followed by a space); :math:`r` is the reference length of
``ref_length`` as Moses' ``extractor`` computes it (``mert/Reference.h``):
``closest`` breaks ties towards the shorter reference, as sacreBLEU and
bleustats do, and ``average`` is the per-sentence average reference length
truncated to an integer (``static_cast<int>``), e.g. 12 for lengths 12 and 13.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a", "b", "c"]})
>>> [c.column("entry").to_pylist() for c in read_nbest(t)]
[[0, 1, 0]]
"""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._validate import check_choice, renamed_keywords
from ..engine import _columns as columns, io
from ..engine.stats import StatsTable
from ..errors import InputError
from ..engine._options import REF_LENGTHS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "check_sources",
    "prefetched",
    "read_nbest",
    "read_references",
    "scores_txt_text",
    "source_chunks",
    "check_scores_txt",
    "write_scores_txt",
]

#: Bytes of n-best text parsed per step (about 150,000 entries of 25 tokens).
DEFAULT_CHUNK_BYTES = 32 << 20
_SEP = "|||"


# --------------------------------------------------------------------------- reading


def _lines_array(buf: bytes) -> pa.Array:
    """One string per line of ``buf`` (which ends with a newline), newline kept (trimmed later)."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10) + 1
    offsets = np.concatenate([[0], ends]).astype(np.int64)
    return pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(buf))


def _bad_line(what: str, first_line: int, index: int, line: str) -> InputError:
    return InputError(
        f"{what}: line {first_line + index}: expected 'id ||| hypothesis ||| features ||| total' "
        f"(Moses n-best, 0-based integer id); got {line.rstrip()!r:.120}."
    )


def _parse_block(buf: bytes, first_line: int, what: str) -> pa.Table:
    """Parse complete Moses n-best lines into ``seg_id, text, features, model_score``."""
    lines = _lines_array(buf)
    try:
        lines.validate(full=True)  # UTF-8: Arrow's string kernels do not check it
    except pa.ArrowInvalid:
        io.decode_utf8(buf, what, first_line)  # raises, naming the line and byte
        raise
    try:
        fields = pc.split_pattern(lines, _SEP)
        n_fields = columns.to_numpy(pc.list_value_length(fields))
    except pa.ArrowInvalid as exc:  # not UTF-8
        raise InputError(f"{what}: not valid UTF-8 near line {first_line} ({exc}).") from None
    short = np.flatnonzero(n_fields < 4)
    if len(short):
        i = int(short[0])
        raise _bad_line(what, first_line, i, lines[i].as_py())

    def field_(k: int) -> pa.Array:
        index = columns.numeric(np.array([k], np.int64))[0]  # an Arrow scalar without pyarrow's pandas shim
        return pc.utf8_trim_whitespace(pc.list_element(fields, index))

    raw_id, raw_total = field_(0), field_(3)
    try:
        seg_id = pc.cast(raw_id, pa.int64())
    except pa.ArrowInvalid:
        ok = pc.fill_null(pc.match_substring_regex(raw_id, r"^[+-]?\d+$"), False).to_numpy(zero_copy_only=False)
        i = int(np.flatnonzero(~ok)[0])
        raise _bad_line(what, first_line, i, lines[i].as_py()) from None
    try:
        total = pc.cast(raw_total, pa.float64())
    except pa.ArrowInvalid:
        for i, v in enumerate(raw_total.to_pylist()):
            try:
                float(v)
            except ValueError:
                raise InputError(f"{what}: line {first_line + i}: the fourth field (total model score) "
                                    f"must be a number; got {v!r:.60}.") from None
        raise
    nan = np.flatnonzero(np.isnan(columns.to_numpy(total)))
    if len(nan):  # NaN would silently never be the 1-best
        i = int(nan[0])
        raise InputError(f"{what}: line {first_line + i}: the total model score is {raw_total[i].as_py()!r}; "
                         "every entry needs a number to pick the 1-best.")
    return pa.table({"seg_id": seg_id, "text": field_(1).cast(pa.string()),
                     "features": field_(2).cast(pa.string()), "model_score": total})


def check_sources(sources: np.ndarray, ref_ids: np.ndarray, *, nbest: str = "nbest",
                  references: str = "references", allow_missing_sources: bool = False,
                  flag: str = "--allow-missing-sources") -> int:
    """The cross-checks of every command that pairs n-best entries with references (kbest, tune PRO / MIRA).

    ``sources`` are the source ids that have entries, ``ref_ids`` those with a
    reference. A source with entries and no reference is refused (the list
    and the references are not of the same test set); a source of the
    references with no entry is refused unless ``allow_missing_sources``
    (the scores would silently cover the others). Returns the number of
    sources of the references with no entry.

    Examples
    --------
    >>> check_sources(np.array([0, 1]), np.array([0, 1, 2]), allow_missing_sources=True)
    1
    >>> check_sources(np.array([0, 5]), np.array([0, 1]))
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: nbest: 1 source(s) have entries but no reference in references (id 5; ...
    """
    from .._validate import describe_ids

    sources, ref_ids = np.unique(sources), np.unique(ref_ids)
    lost = np.setdiff1d(sources, ref_ids, assume_unique=True)
    if len(lost):
        raise InputError(
            f"{nbest}: {len(lost)} source(s) have entries but no reference in {references} (id "
            f"{describe_ids(lost)}; ids are 0-based line numbers of reference files). Check that the list and the "
            "references are of the same test set.")
    missing = np.setdiff1d(ref_ids, sources, assume_unique=True)
    if len(missing) and not allow_missing_sources:
        raise InputError(
            f"{nbest}: {len(missing)} source(s) of the references have no entry (id {describe_ids(missing)}); the "
            f"list covers {len(sources)} of {len(sources) + len(missing)} sources, and its scores would silently "
            "cover only those. Check that the list and the references are of the same test set; add the missing "
            f"sources' entries, or pass allow_missing_sources=True ({flag}) to use the others.")
    return int(len(missing))


def _moses_blocks(path: Path, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """(parsed block, bytes read so far, total bytes) for a Moses n-best file."""
    total = path.stat().st_size
    line_no = 1
    carry: list[bytes] = []  # the pieces of an unfinished line, joined once it ends (no quadratic copy)
    with io.open_input(path) as fh:  # a truncated or damaged .gz: one InputError naming the file
        raw = fh.fileobj  # progress in compressed bytes
        while True:
            data = fh.read(chunk_bytes)
            if not data:
                buf = b"".join(carry)
                if buf.strip():
                    buf = buf if buf.endswith(b"\n") else buf + b"\n"
                    yield _parse_block(buf, line_no, str(path)), total, total
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry.append(data)
                continue
            block = b"".join(carry + [data[:cut]]) if carry else data[:cut]
            carry = [data[cut:]]
            table = _parse_block(block, line_no, str(path))
            line_no += table.num_rows
            yield table, raw.tell(), total


def table_blocks(path: Path, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """Blocks of a long-form hypotheses table file (Parquet / TSV streamed)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            pf = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as exc:
            raise InputError(f"{path}: cannot be read as Parquet ({exc}).") from None
        total, done = pf.metadata.num_rows, 0
        rows = max(1, chunk_bytes // 200)
        for batch in pf.iter_batches(batch_size=rows):
            done += batch.num_rows
            yield pa.Table.from_batches([batch]), done, total
    elif suffix == ".tsv":
        import pyarrow.csv as pacsv

        total = path.stat().st_size
        strings = {c: pa.string() for c in ("system", "text")}
        try:
            reader = pacsv.open_csv(
                path, read_options=pacsv.ReadOptions(block_size=chunk_bytes),
                parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
                convert_options=pacsv.ConvertOptions(column_types=strings, null_values=[],
                                                     strings_can_be_null=False))
            done = 0
            for batch in reader:
                done += batch.nbytes
                yield pa.Table.from_batches([batch]), min(done, total), total
        except pa.ArrowException as exc:
            raise InputError(f"{path}: cannot be read as TSV ({exc}).") from None
    else:
        table = _raw_table(path)
        yield table, 1, 1


def _folder_blocks(files: list[Path], chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """Blocks of the Parquet parts of a folder, one after another (progress in rows of all parts)."""
    total = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    done = 0
    for f in files:
        for block, rows, _ in table_blocks(f, chunk_bytes):
            yield block, done + rows, total
        done += pq.ParquetFile(f).metadata.num_rows


def _raw_table(path: Path) -> pa.Table:
    """A non-streamable table file, keeping ``model_score`` (validation drops undeclared columns)."""
    if path.suffix.lower() == ".jsonl":
        return io.read_jsonl(path)
    return io.read_table(path, "hypotheses")


def _normalize(table: pa.Table, what: str, seen_system: str | None = None) -> pa.Table:
    """``seg_id, text, model_score`` from a parsed Moses block or a long-form table block.

    A table's columns are validated (an unknown column is an error, not
    ignored), and a ``system`` column must name one system: entries of
    several systems would be pooled into one k-best list per source.
    """
    score = table.column("model_score") if "model_score" in table.column_names else None
    features = table.column("features") if "features" in table.column_names else None
    hyps = io.as_hypotheses_table(table.drop_columns(["features"]) if features is not None else table,
                                  k_best=True)
    if "system" in table.column_names and hyps.num_rows:
        systems = pc.unique(hyps.column("system"))
        if seen_system is not None and seen_system not in systems.to_pylist():
            systems = pa.concat_arrays([pa.array([seen_system]), systems.combine_chunks()
                                        if isinstance(systems, pa.ChunkedArray) else systems])
        if len(systems) > 1:
            raise InputError(
                f"{what}: the system column names {len(systems)} systems "
                f"({', '.join(map(repr, systems.to_pylist()[:5]))}{', ...' if len(systems) > 5 else ''}); a k-best "
                "list is one system's: its entries would be pooled into one list per source. Give each system's "
                "entries in their own file (or filter the table by system).")
    if score is None:
        score = pa.nulls(table.num_rows, pa.float64())
    else:
        try:
            score = pc.cast(score, pa.float64())
        except pa.ArrowInvalid as exc:
            raise InputError(f"{what}: column model_score must hold numbers ({exc}).") from None
        values = columns.to_numpy(score)
        bad = np.flatnonzero(np.isnan(values))  # nulls too
        if len(bad):  # a missing or NaN score would silently never be the 1-best
            seg = hyps.column("seg_id")[int(bad[0])].as_py()
            raise InputError(f"{what}: {len(bad)} entr{'y has' if len(bad) == 1 else 'ies have'} no model_score "
                             f"(missing or NaN), first of source id {seg}; give every entry a number, or drop the "
                             "column (the first entry of each source is then its 1-best).")
    cols = {"seg_id": hyps.column("seg_id"), "text": hyps.column("text"), "model_score": score}
    if features is not None:
        cols["features"] = features
    return pa.table(cols)


def read_nbest(
    nbest: str | os.PathLike | pd.DataFrame | pa.Table,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[pa.Table]:
    """Stream a k-best list in source-aligned chunks.

    Every chunk holds all entries of the sources it contains (a source is
    never split across chunks), with columns ``seg_id`` (int64), ``entry``
    (0-based rank of the entry within its source, file order), ``text``,
    ``model_score`` (float64, null when the input has none) and, for Moses
    input, ``features``.

    Parameters
    ----------
    nbest : path or table
        Moses n-best text (``.gz`` too), a long-form hypotheses table file
        (``.parquet``, ``.tsv``, ``.jsonl``), or a pandas / Arrow table.
    chunk_bytes : int
        Bytes of text parsed per step (rows per step ≈ chunk_bytes / 200 for
        tables); bounds memory.

    Raises
    ------
    bleustats.InputError
        A malformed line (named by number), or a source whose entries are not
        together in increasing id order.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a", "b", "c"]})
    >>> [c.column("entry").to_pylist() for c in read_nbest(t)]
    [[0, 1, 0]]
    """
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, (int, np.integer)) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive integer; got {chunk_bytes!r}.")
    for table, _, _ in source_chunks(nbest, chunk_bytes):
        yield table


def _blocks(nbest: Any, chunk_bytes: int) -> tuple[Iterator[tuple[pa.Table, int, int]], str]:
    if io.is_table(nbest):
        table = io.to_arrow(nbest)
        n = table.num_rows
        step = max(1, chunk_bytes // 200)
        return ((table.slice(i, step), min(n, i + step), n) for i in range(0, max(n, 1), step)), "nbest"
    if not isinstance(nbest, (str, os.PathLike)):
        raise TypeError(f"nbest must be a path or a pandas / Arrow table; got {type(nbest).__name__}.")
    path = Path(nbest)
    if path.is_dir():  # a partitioned table: its Parquet parts in order, as one table
        from ..engine._partitioned_stats import parquet_parts  # here: it builds tables on import (pandas)

        files = parquet_parts(path)
        if not files:
            raise InputError(f"nbest: {path} holds no .parquet file; give a folder of Parquet parts "
                             "(seg_id, text, optional model_score).")
        return _folder_blocks(files, chunk_bytes), str(path)
    if not path.is_file():
        raise InputError(f"nbest: {path}: no such file; check the path.")
    if path.suffix.lower() in io.TABLE_SUFFIXES:
        return table_blocks(path, chunk_bytes), str(path)
    return _moses_blocks(path, chunk_bytes), str(path)


def source_chunks(nbest: Any, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """``(chunk, done, total)``: parsed blocks re-cut at source boundaries; ids checked grouped and increasing.

    The entries of the last source of a block are held back until the next
    block shows a larger id (or the input ends), so no source is split.
    """
    blocks, what = _blocks(nbest, chunk_bytes)
    pending: pa.Table | None = None  # always the (possibly incomplete) last source seen
    done = total = 0
    rows_before = 0
    seen_system = None  # the one system of a table's entries

    def finish(t: pa.Table) -> pa.Table:
        seg = columns.to_numpy(t.column("seg_id"))
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        entry = np.arange(len(seg)) - np.repeat(starts, np.diff(np.r_[starts, len(seg)]))
        return t.append_column("entry", columns.numeric(entry.astype(np.int32)))

    it = iter(blocks)
    current = next(it, None)
    while current is not None:
        block, done, total = current
        current = next(it, None)  # look ahead: the last block flushes everything
        if seen_system is None and "system" in block.column_names and block.num_rows:
            seen_system = block.column("system")[0].as_py()
        block = _normalize(block, what, seen_system)
        seg = columns.to_numpy(block.column("seg_id"))
        prev = None if pending is None else int(pending.column("seg_id")[-1].as_py())
        full = seg if prev is None else np.r_[prev, seg]
        back = np.flatnonzero(full[1:] < full[:-1])
        if len(back):
            i = int(back[0])  # index into full of the id before the offending one
            raise InputError(
                f"{what}: entry {rows_before + i + (1 if prev is None else 0) + 1}: source id {int(full[i + 1])} "
                f"after {int(full[i])}; each source's entries must be together, in increasing id order (as "
                "Moses writes n-best lists). Sort the list by id keeping the entry order (sort -s -n -k1,1)."
            )
        rows_before += block.num_rows
        table = block if pending is None else pa.concat_tables([pending, block])
        if table.num_rows == 0:
            continue
        seg_all = columns.to_numpy(table.column("seg_id"))
        cut = table.num_rows if current is None else int(np.searchsorted(seg_all, seg_all[-1], side="left"))
        pending = table.slice(cut)
        if cut:
            yield finish(table.slice(0, cut).combine_chunks()), done, total


def prefetched(items: Iterator[Any], timings: dict[str, float], key: str) -> Iterator[Any]:
    """Items of ``items``, produced one ahead on a background thread.

    Parsing (Arrow compute, which releases the GIL) then overlaps the
    statistics and scoring of the previous chunk. At most three items are alive
    at once (one being used, one queued, one being parsed), so memory stays
    bounded. Time spent producing items is added to
    ``timings[key]``; an exception in the producer is raised here, in order.
    """
    box: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    end = object()

    def produce() -> None:
        it = iter(items)
        try:
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    box.put((end, None))
                    return
                finally:
                    timings[key] += time.perf_counter() - t
                box.put((item, None))
        except BaseException as exc:  # handed to the consumer, raised there
            box.put((end, exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:  # left early: close the file on this thread, not at garbage collection
                close()

    worker = threading.Thread(target=produce, name="bleustats-nbest-reader", daemon=True)
    worker.start()
    try:
        while True:
            item, exc = box.get()
            if exc is not None:
                raise exc
            if item is end:
                return
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting on a full queue, then let it end
            try:
                box.get_nowait()
            except queue.Empty:
                pass
            worker.join(timeout=0.01)


def read_references(
    references: Sequence[str | os.PathLike] | str | os.PathLike | pd.DataFrame | pa.Table,
) -> pa.Table:
    """References for a k-best list as the long-form table, sorted by ``seg_id``.

    Plain-text files are reference streams (line ``i`` = source ``i``, 0-based
    like Moses ids; all files the same length, as sacreBLEU requires); one ``.tsv`` / ``.jsonl``
    / ``.parquet`` path or a pandas / Arrow table is a references table.

    Examples
    --------
    >>> import pandas as pd
    >>> read_references(pd.DataFrame({"seg_id": [1, 0], "text": ["b", "a"]})).column("seg_id").to_pylist()
    [0, 1]
    """
    if io.is_table(references):
        table = io.as_references_table(references)
    else:
        paths = [references] if isinstance(references, (str, os.PathLike)) else list(references)
        if not paths:
            raise InputError("references: give at least one reference file or a references table.")
        if len(paths) == 1 and Path(paths[0]).suffix.lower() in io.TABLE_SUFFIXES:
            table = io.read_table(paths[0], "references")
        else:
            tables = [p for p in paths if Path(p).suffix.lower() in io.TABLE_SUFFIXES]
            if tables:
                raise InputError(f"references: {tables[0]} is a table; give one references table or "
                                    "plain-text reference files, not a mix.")
            streams = [io.read_lines(p) for p in paths]
            n = max(len(s) for s in streams)
            table = io.streams_table(streams, None, n_hyp=n, names=[str(p) for p in paths])
    seg = table.column("seg_id").to_numpy()
    if len(seg) > 1 and (np.diff(seg) < 0).any():
        table = table.take(pa.array(np.argsort(seg, kind="stable")))
    return table


# --------------------------------------------------------------------------- writing


def scores_txt_text(stats: StatsTable, *, max_ngram_order: int, ref_length: str) -> str:
    """Moses SCORES_TXT blocks for the sources of one chunk (entries of a source are consecutive)."""
    n = len(stats)
    if n == 0:
        return ""
    cols = []
    for i in range(1, max_ngram_order + 1):
        cols += [stats.table.column(f"match_{i}"), stats.table.column(f"total_{i}")]
    ref = stats.table.column(f"ref_len_{ref_length}")
    if ref_length == "average":  # Moses writes int(average), mert/Reference.h CalcAverage
        ref = pc.cast(pc.floor(ref), pa.int64())
    cols.append(ref)
    lines = pc.binary_join_element_wise(*[pc.cast(c, pa.string()) for c in cols], " ").to_pylist()
    seg = stats.column("seg_id")
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    ends = np.r_[starts[1:], n]
    width = 2 * max_ngram_order + 1
    parts = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        parts.append(f"SCORES_TXT_BEGIN_0 {seg[a]} {b - a} {width} BLEU\n")
        parts.append(" \n".join(lines[a:b]))
        parts.append(" \nSCORES_TXT_END_0\n")
    return "".join(parts)


@renamed_keywords(max_order="max_ngram_order")
def write_scores_txt(stats: StatsTable, path: str | os.PathLike, *, max_ngram_order: int = 4,
                     ref_length: str = "closest") -> None:
    """Write BLEU statistics in Moses' ``extractor`` SCORES_TXT layout (see the module docstring).

    Entries of one source must be consecutive rows of ``stats`` (as k-best
    lists are). Written whole or not at all.

    Examples
    --------
    >>> import tempfile, os
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> st = compute_stats(pd.DataFrame({"seg_id": [0, 0], "text": ["a b", "a c"]}),
    ...                    pd.DataFrame({"seg_id": [0], "text": ["a b"]}), tokenize="none", k_best=True)
    >>> p = os.path.join(tempfile.mkdtemp(), "scores.dat")
    >>> write_scores_txt(st, p)
    >>> print(open(p).read(), end="")
    SCORES_TXT_BEGIN_0 0 2 9 BLEU
    2 2 1 1 0 0 0 0 2 
    1 2 0 1 0 0 0 0 2 
    SCORES_TXT_END_0
    """
    check_scores_txt(stats, max_ngram_order, ref_length)
    text = scores_txt_text(stats, max_ngram_order=max_ngram_order, ref_length=ref_length)
    io.write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def check_scores_txt(stats: StatsTable, max_ngram_order: int, ref_length: str) -> None:
    """Raise unless SCORES_TXT of ``stats`` can be written at this order and reference length."""
    check_choice("ref_length", ref_length, REF_LENGTHS)
    if not 1 <= max_ngram_order <= stats.max_ngram_order:
        raise InputError(f"max_ngram_order must be from 1 to the table's order {stats.max_ngram_order}; "
                         f"got {max_ngram_order!r}.")
