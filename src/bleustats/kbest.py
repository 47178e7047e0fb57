r"""k-best (n-best) lists: streaming reader, per-entry statistics and scores, oracle selection.

A k-best list is many hypotheses per source sentence. :func:`score_nbest`
reads it in source-aligned chunks (memory stays bounded on files larger than
RAM), computes each chunk's statistics with :func:`bleustats.compute_stats`
(each source's references are indexed once for all its entries), scores every
entry under any list of sentence-level variants
(:data:`bleustats.sentence.SENTENCE_METRICS`) in the same pass, writes the
per-entry statistics and scores to Parquet and/or Moses' ``SCORES_TXT``
layout, and keeps only one row per source for the oracle summaries.

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

Moses FEATURES_TXT: ``features_txt=`` writes the entries' dense features as
Moses' ``extractor`` does (see :mod:`bleustats.tools.nbest_features`).

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "nbest.txt"), "w") as f:
...     _ = f.write("0 ||| the cat sat on the mat ||| F0= -1 ||| -1.0\n"
...                 "0 ||| a cat sat on a mat ||| F0= -2 ||| -0.5\n"
...                 "1 ||| hello world again today ||| F0= -1 ||| -3.0\n")
>>> with open(os.path.join(d, "ref.txt"), "w") as f:
...     _ = f.write("the cat sat on the mat\nhello there world again today\n")
>>> res = score_nbest(os.path.join(d, "nbest.txt"), [os.path.join(d, "ref.txt")], tokenize="none",
...                   metrics=["bleu+1"], output=os.path.join(d, "out.parquet"))
>>> res.n_entries, res.n_sources, round(res.oracles["bleu+1"].score, 2), round(res.one_best.score, 2)
(3, 2, 77.81, 32.51)
>>> import pyarrow.parquet as pq
>>> [round(v, 2) for v in pq.read_table(os.path.join(d, "out.parquet")).column("bleu+1").to_pylist()]
[100.0, 43.47, 55.07]
"""

from __future__ import annotations

import gzip
import json
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import io, scoring, sentence
from .results import BLEUScore
from .stats import StatsTable, compute_stats
from .tools import nbest_features

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "KBestResult",
    "oracle_rows",
    "one_best_rows",
    "read_nbest",
    "read_references",
    "score_nbest",
    "selection_bleu",
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


def _bad_line(what: str, first_line: int, index: int, line: str) -> io.InputError:
    return io.InputError(
        f"{what}: line {first_line + index}: expected 'id ||| hypothesis ||| features ||| total' "
        f"(Moses n-best, 0-based integer id); got {line.rstrip()!r:.120}."
    )


def _parse_block(buf: bytes, first_line: int, what: str) -> pa.Table:
    """Parse complete Moses n-best lines into ``seg_id, text, features, model_score``."""
    lines = _lines_array(buf)
    try:
        fields = pc.split_pattern(lines, _SEP)
        n_fields = pc.list_value_length(fields).to_numpy()
    except pa.ArrowInvalid as exc:  # not UTF-8
        raise io.InputError(f"{what}: not valid UTF-8 near line {first_line} ({exc}).") from None
    short = np.flatnonzero(n_fields < 4)
    if len(short):
        i = int(short[0])
        raise _bad_line(what, first_line, i, lines[i].as_py())

    def field_(k: int) -> pa.Array:
        return pc.utf8_trim_whitespace(pc.list_element(fields, k))

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
                raise io.InputError(f"{what}: line {first_line + i}: the fourth field (total model score) "
                                    f"must be a number; got {v!r:.60}.") from None
        raise
    return pa.table({"seg_id": seg_id, "text": field_(1).cast(pa.string()),
                     "features": field_(2).cast(pa.string()), "model_score": total})


def _moses_blocks(path: Path, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """(parsed block, bytes read so far, total bytes) for a Moses n-best file."""
    total = path.stat().st_size
    opener = gzip.open if path.suffix == ".gz" else open
    line_no = 1
    carry = b""
    with opener(path, "rb") as fh:
        raw = fh.fileobj if path.suffix == ".gz" else fh  # progress in compressed bytes
        while True:
            data = fh.read(chunk_bytes)
            buf = carry + data
            if not data:
                if buf.strip():
                    buf = buf if buf.endswith(b"\n") else buf + b"\n"
                    yield _parse_block(buf, line_no, str(path)), total, total
                return
            cut = buf.rfind(b"\n") + 1
            if cut == 0:
                carry = buf
                continue
            block, carry = buf[:cut], buf[cut:]
            table = _parse_block(block, line_no, str(path))
            line_no += table.num_rows
            yield table, raw.tell(), total


def _table_blocks(path: Path, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """Blocks of a long-form hypotheses table file (Parquet / TSV streamed)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            pf = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as exc:
            raise io.InputError(f"{path}: cannot be read as Parquet ({exc}).") from None
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
            raise io.InputError(f"{path}: cannot be read as TSV ({exc}).") from None
    else:
        table = _raw_table(path)
        yield table, 1, 1


def _raw_table(path: Path) -> pa.Table:
    """A non-streamable table file, keeping ``model_score`` (validation drops undeclared columns)."""
    if path.suffix.lower() == ".jsonl":
        import pandas as pd

        try:
            df = pd.read_json(path, lines=True, dtype=False)
        except ValueError as exc:
            raise io.InputError(f"{path}: cannot be read as JSONL ({exc}).") from None
        return pa.Table.from_pandas(df, preserve_index=False)
    return io.read_table(path, "hypotheses")


def _normalize(table: pa.Table, what: str) -> pa.Table:
    """``seg_id, text, model_score`` from a parsed Moses block or a long-form table block."""
    score = table.column("model_score") if "model_score" in table.column_names else None
    features = table.column("features") if "features" in table.column_names else None
    hyps = io.as_hypotheses_table(table.select([c for c in ("seg_id", "system", "text")
                                                if c in table.column_names]))
    if score is None:
        score = pa.nulls(table.num_rows, pa.float64())
    else:
        try:
            score = pc.cast(score, pa.float64())
        except pa.ArrowInvalid as exc:
            raise io.InputError(f"{what}: column model_score must hold numbers ({exc}).") from None
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
    bleustats.io.InputError
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
    for table, _, _ in _source_chunks(nbest, chunk_bytes):
        yield table


def _blocks(nbest: Any, chunk_bytes: int) -> tuple[Iterator[tuple[pa.Table, int, int]], str]:
    if io._is_table(nbest):
        table = io._to_arrow(nbest)
        n = table.num_rows
        step = max(1, chunk_bytes // 200)
        return ((table.slice(i, step), min(n, i + step), n) for i in range(0, max(n, 1), step)), "nbest"
    if not isinstance(nbest, (str, os.PathLike)):
        raise TypeError(f"nbest must be a path or a pandas / Arrow table; got {type(nbest).__name__}.")
    path = Path(nbest)
    if not path.is_file():
        raise io.InputError(f"nbest: {path}: no such file; check the path.")
    if path.suffix.lower() in io.TABLE_SUFFIXES:
        return _table_blocks(path, chunk_bytes), str(path)
    return _moses_blocks(path, chunk_bytes), str(path)


def _source_chunks(nbest: Any, chunk_bytes: int) -> Iterator[tuple[pa.Table, int, int]]:
    """Re-cut parsed blocks at source boundaries; check ids are grouped and increasing.

    The entries of the last source of a block are held back until the next
    block shows a larger id (or the input ends), so no source is split.
    """
    blocks, what = _blocks(nbest, chunk_bytes)
    pending: pa.Table | None = None  # always the (possibly incomplete) last source seen
    done = total = 0
    rows_before = 0

    def finish(t: pa.Table) -> pa.Table:
        seg = t.column("seg_id").to_numpy()
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        entry = np.arange(len(seg)) - np.repeat(starts, np.diff(np.r_[starts, len(seg)]))
        return t.append_column("entry", pa.array(entry.astype(np.int32)))

    it = iter(blocks)
    current = next(it, None)
    while current is not None:
        block, done, total = current
        current = next(it, None)  # look ahead: the last block flushes everything
        block = _normalize(block, what)
        seg = block.column("seg_id").to_numpy()
        prev = None if pending is None else int(pending.column("seg_id")[-1].as_py())
        full = seg if prev is None else np.r_[prev, seg]
        back = np.flatnonzero(full[1:] < full[:-1])
        if len(back):
            i = int(back[0])  # index into full of the id before the offending one
            raise io.InputError(
                f"{what}: entry {rows_before + i + (1 if prev is None else 0) + 1}: source id {int(full[i + 1])} "
                f"after {int(full[i])}; each source's entries must be together, in increasing id order (as "
                "Moses writes n-best lists). Sort the list by id keeping the entry order (sort -s -n -k1,1)."
            )
        rows_before += block.num_rows
        table = block if pending is None else pa.concat_tables([pending, block])
        if table.num_rows == 0:
            continue
        seg_all = table.column("seg_id").to_numpy()
        cut = table.num_rows if current is None else int(np.searchsorted(seg_all, seg_all[-1], side="left"))
        pending = table.slice(cut)
        if cut:
            yield finish(table.slice(0, cut).combine_chunks()), done, total


def _prefetched(items: Iterator[Any], timings: dict[str, float], key: str) -> Iterator[Any]:
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
    if io._is_table(references):
        table = io.as_references_table(references)
    else:
        paths = [references] if isinstance(references, (str, os.PathLike)) else list(references)
        if not paths:
            raise io.InputError("references: give at least one reference file or a references table.")
        if len(paths) == 1 and Path(paths[0]).suffix.lower() in io.TABLE_SUFFIXES:
            table = io.read_table(paths[0], "references")
        else:
            tables = [p for p in paths if Path(p).suffix.lower() in io.TABLE_SUFFIXES]
            if tables:
                raise io.InputError(f"references: {tables[0]} is a table; give one references table or "
                                    "plain-text reference files, not a mix.")
            streams = [io.read_lines(p) for p in paths]
            n = max(len(s) for s in streams)
            table = io.streams_table(streams, None, n_hyp=n, names=[str(p) for p in paths])
    seg = table.column("seg_id").to_numpy()
    if len(seg) > 1 and (np.diff(seg) < 0).any():
        table = table.take(pa.array(np.argsort(seg, kind="stable")))
    return table


# --------------------------------------------------------------------------- selection


def _group_first_best(seg_id: np.ndarray, scores: np.ndarray) -> np.ndarray:
    seg_id = np.asarray(seg_id)
    scores = np.asarray(scores, dtype=np.float64)
    if seg_id.shape != scores.shape or seg_id.ndim != 1:
        raise ValueError(f"seg_id and scores must be 1-D of the same length; got {seg_id.shape} and {scores.shape}.")
    if len(seg_id) == 0:
        return np.zeros(0, np.int64)
    key = np.where(np.isnan(scores), -np.inf, scores)
    if len(seg_id) == 1 or (seg_id[1:] >= seg_id[:-1]).all():  # grouped (k-best order): O(n), no sort
        starts = np.flatnonzero(np.r_[True, seg_id[1:] != seg_id[:-1]])
        best = np.maximum.reduceat(key, starts)
        hits = np.flatnonzero(key == np.repeat(best, np.diff(np.r_[starts, len(key)])))
        return hits[np.searchsorted(hits, starts)].astype(np.int64)
    order = np.lexsort((np.arange(len(seg_id)), -key, seg_id))
    s = seg_id[order]
    first = np.r_[True, s[1:] != s[:-1]]
    return order[first].astype(np.int64)


def oracle_rows(seg_id: Any, scores: Any) -> np.ndarray:
    """Row of the best-scoring entry of every source (ties: the earliest row), sources in id order.

    Examples
    --------
    >>> oracle_rows([0, 0, 0, 1, 1], [10.0, 30.0, 30.0, 5.0, 1.0]).tolist()
    [1, 3]
    """
    return _group_first_best(seg_id, scores)


def one_best_rows(seg_id: Any, model_score: Any = None) -> np.ndarray:
    """Row of the 1-best entry of every source under the model scores (ties or none: the earliest row).

    Examples
    --------
    >>> one_best_rows([0, 0, 1, 1], [-2.0, -1.0, -1.0, -1.0]).tolist()
    [1, 2]
    >>> one_best_rows([0, 0, 1]).tolist()
    [0, 2]
    """
    seg_id = np.asarray(seg_id)
    scores = np.zeros(len(seg_id)) if model_score is None else np.asarray(model_score, dtype=np.float64)
    return _group_first_best(seg_id, scores)


def selection_bleu(stats: StatsTable, rows: Any, **options: Any) -> BLEUScore:
    """Corpus BLEU of a selection of rows (an oracle, the 1-best, ...).

    ``options`` are those of :func:`bleustats.corpus_score` (``metric``,
    ``smooth_method``, ``ref_length``, ...). The length ratio :math:`c/r` is
    ``result.ratio`` (``result.sys_len / result.ref_len``).

    Examples
    --------
    >>> from bleustats.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 0], "text": ["a b c d", "a b c x y"]})
    >>> st = compute_stats(hyps, pd.DataFrame({"seg_id": [0], "text": ["a b c d e"]}), tokenize="none")
    >>> r = selection_bleu(st, [0])
    >>> round(r.score, 2), round(r.ratio, 2)
    (77.88, 0.8)
    """
    return scoring.corpus_score(stats, rows=np.asarray(rows, dtype=np.int64), **options)


# --------------------------------------------------------------------------- writing


def _scores_txt_text(stats: StatsTable, *, max_order: int, ref_length: str) -> str:
    """Moses SCORES_TXT blocks for the sources of one chunk (entries of a source are consecutive)."""
    n = len(stats)
    if n == 0:
        return ""
    cols = []
    for i in range(1, max_order + 1):
        cols += [stats.table.column(f"match_{i}"), stats.table.column(f"total_{i}")]
    ref = stats.table.column(f"ref_len_{ref_length}")
    if ref_length == "average":  # Moses writes int(average), mert/Reference.h CalcAverage
        ref = pc.cast(pc.floor(ref), pa.int64())
    cols.append(ref)
    lines = pc.binary_join_element_wise(*[pc.cast(c, pa.string()) for c in cols], " ").to_pylist()
    seg = stats.column("seg_id")
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    ends = np.r_[starts[1:], n]
    width = 2 * max_order + 1
    parts = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        parts.append(f"SCORES_TXT_BEGIN_0 {seg[a]} {b - a} {width} BLEU\n")
        parts.append(" \n".join(lines[a:b]))
        parts.append(" \nSCORES_TXT_END_0\n")
    return "".join(parts)


def write_scores_txt(stats: StatsTable, path: str | os.PathLike, *, max_order: int = 4,
                     ref_length: str = "closest") -> None:
    """Write BLEU statistics in Moses' ``extractor`` SCORES_TXT layout (see the module docstring).

    Entries of one source must be consecutive rows of ``stats`` (as k-best
    lists are). Written whole or not at all.

    Examples
    --------
    >>> import tempfile, os
    >>> from bleustats.stats import compute_stats
    >>> import pandas as pd
    >>> st = compute_stats(pd.DataFrame({"seg_id": [0, 0], "text": ["a b", "a c"]}),
    ...                    pd.DataFrame({"seg_id": [0], "text": ["a b"]}), tokenize="none")
    >>> p = os.path.join(tempfile.mkdtemp(), "scores.dat")
    >>> write_scores_txt(st, p)
    >>> print(open(p).read(), end="")
    SCORES_TXT_BEGIN_0 0 2 9 BLEU
    2 2 1 1 0 0 0 0 2 
    1 2 0 1 0 0 0 0 2 
    SCORES_TXT_END_0
    """
    _check_scores_txt(stats, max_order, ref_length)
    text = _scores_txt_text(stats, max_order=max_order, ref_length=ref_length)
    io.write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _check_scores_txt(stats: StatsTable, max_order: int, ref_length: str) -> None:
    if ref_length not in scoring.REF_LENGTHS:
        raise ValueError(f"ref_length must be one of {', '.join(map(repr, scoring.REF_LENGTHS))}; got {ref_length!r}.")
    if not 1 <= max_order <= stats.max_order:
        raise ValueError(f"max_order must be from 1 to the table's order {stats.max_order}; got {max_order!r}.")


# --------------------------------------------------------------------------- pipeline


@dataclass(frozen=True)
class KBestResult:
    """Summary of :func:`score_nbest` (per-entry numbers are in the output files).

    Attributes
    ----------
    n_entries, n_sources : int
    metrics : list of str
        Variants scored (column names of the Parquet output).
    one_best : BLEUScore
        Corpus BLEU of the 1-best under the model scores (the first entry of
        each source when there are none); ``.ratio`` is c/r.
    oracles : dict
        Variant name → corpus BLEU of the per-source best entry under it.
    timings : dict
        Seconds per stage: ``read_refs``, ``parse`` (on a reader thread,
        overlapped with the other stages), ``parse_wait`` (time spent waiting
        for it), ``prepare`` (input checks), ``tokenize``, ``encode``,
        ``kernel``, ``scoring``, ``select``, ``write``, ``total`` (wall).
    """

    n_entries: int
    n_sources: int
    metrics: list[str]
    one_best: BLEUScore
    oracles: dict[str, BLEUScore]
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        def summary(r: BLEUScore) -> dict[str, Any]:
            return {"score": r.score, "ratio": r.ratio, "sys_len": r.sys_len, "ref_len": r.ref_len,
                    "signature": str(r.signature)}

        return {"n_entries": self.n_entries, "n_sources": self.n_sources, "metrics": list(self.metrics),
                "one_best": summary(self.one_best), "oracles": {k: summary(v) for k, v in self.oracles.items()},
                "timings": dict(self.timings)}


def _check_metrics(metrics: Any) -> list[str]:
    if isinstance(metrics, str):
        metrics = [metrics]
    names = list(metrics)
    for name in names:
        sentence.get_metric(name)  # raises with the allowed names
    if len(set(names)) != len(names):
        raise ValueError(f"metrics: each variant once; got {names}.")
    return names


def score_nbest(
    nbest: str | os.PathLike | pd.DataFrame | pa.Table,
    references: Sequence[str | os.PathLike] | str | os.PathLike | pd.DataFrame | pa.Table,
    *,
    metrics: Sequence[str] = ("bleu+1",),
    metric_options: Mapping[str, Mapping[str, Any]] | None = None,
    statistic: str = "bleu",
    tokenize: str = "13a",
    lowercase: bool = False,
    max_order: int = 4,
    ref_length: str = "closest",
    output: str | os.PathLike | None = None,
    scores_txt: str | os.PathLike | None = None,
    features_txt: str | os.PathLike | None = None,
    keep_stats: bool = True,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> KBestResult:
    r"""Statistics and sentence-level scores of every k-best entry, streamed, plus oracle summaries.

    For each source-aligned chunk: :func:`bleustats.compute_stats` on its
    entries and references (each source's references indexed once), then
    every variant of ``metrics`` by :func:`bleustats.sentence.sentence_metrics`
    (no per-entry loop), then the rows are appended to the outputs. Per source
    the oracle under each variant and the model 1-best are kept; their corpus
    BLEU is :math:`\mathrm{BLEU}(\sum_{i \in S} s_i)` over the selected rows.

    Parameters
    ----------
    nbest : path or table
        See :func:`read_nbest`.
    references : paths or table
        See :func:`read_references`.
    metrics : list of str
        Registered variants (:data:`bleustats.sentence.SENTENCE_METRICS`, any
        ``nakov:`` combination).
    metric_options : dict, optional
        Variant name → options (e.g. ``{"nakov:scaled": {"ilr": 0.97}}``).
    statistic : {'bleu', 'delta_bleu'}
        Score plain or ΔBLEU-weighted statistics (weights from a references table).
    tokenize, lowercase
        As in :func:`bleustats.compute_stats`.
    max_order : int
        Order N of the scores (statistics are computed to N+1 when a variant
        needs it).
    ref_length : {'closest', 'shortest', 'average'}
        Reference length of the brevity penalties and of SCORES_TXT.
    output : path, optional
        Parquet file: ``seg_id``, ``entry``, ``model_score``, the statistics
        columns (when ``keep_stats``) and one float64 column per variant.
    scores_txt : path, optional
        Moses SCORES_TXT file of the BLEU statistics (order N).
    features_txt : path, optional
        Moses FEATURES_TXT file of the entries' dense features (Moses n-best
        input; every entry must have the same feature labels and counts).
    keep_stats : bool
        Include the statistics columns in ``output``.
    chunk_bytes : int
        Bytes parsed per step (bounds memory).
    progress : callable, optional
        Called after every chunk with ``(done, total)`` (bytes, or rows for tables).

    Returns
    -------
    KBestResult

    Examples
    --------
    >>> import pandas as pd
    >>> nb = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a b c d e", "a b c d x", "u v w x y"],
    ...                    "model_score": [-1.0, -0.5, 0.0]})
    >>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d e", "u v w x y z"]})
    >>> r = score_nbest(nb, refs, tokenize="none", metrics=["bleu+1", "chen-cherry:7"])
    >>> round(r.oracles["bleu+1"].score, 2), round(r.one_best.score, 2), round(r.one_best.ratio, 3)
    (90.48, 75.79, 0.909)
    """
    t_start = time.perf_counter()
    names = _check_metrics(metrics)
    metric_options = dict(metric_options or {})
    sentence._check_choice("statistic", statistic, sentence.STATISTICS)
    sentence._check_choice("ref_length", ref_length, scoring.REF_LENGTHS)
    order = sentence.required_order(names, max_order)
    # every output is written to a temporary file that replaces it only when all succeeded
    outputs = [(key, path) for key, path in (("parquet", output), ("txt", scores_txt), ("features", features_txt))
               if path is not None]

    def nested(k: int, tmps: dict[str, str]) -> KBestResult:
        if k == len(outputs):
            return _run(nbest, references, names, metric_options, statistic, tokenize, lowercase, max_order, order,
                        ref_length, tmps.get("parquet"), tmps.get("txt"), keep_stats, chunk_bytes, progress, t_start,
                        tmps.get("features"))
        holder: dict[str, KBestResult] = {}
        key, path = outputs[k]

        def write(tmp: str) -> None:
            holder["r"] = nested(k + 1, {**tmps, key: tmp})

        io.write_atomic(path, write)
        return holder["r"]

    return nested(0, {})


def _trim_order(stats: StatsTable, max_order: int) -> StatsTable:
    """The table with the per-order columns of orders 1..max_order only."""
    if stats.max_order == max_order:
        return stats
    keep = [c for c in stats.table.column_names
            if not (c.rsplit("_", 1)[-1].isdigit() and int(c.rsplit("_", 1)[-1]) > max_order)]
    meta = dict(stats.table.schema.metadata or {})
    meta[b"bleustats.max_ngram_order"] = str(max_order).encode()
    return StatsTable(stats.table.select(keep).replace_schema_metadata(meta))


def _run(nbest, references, names, metric_options, statistic, tokenize, lowercase, max_order, order,
         ref_length, parquet_path, txt_path, keep_stats, chunk_bytes, progress, t_start,
         features_path=None) -> KBestResult:
    # parse = time spent parsing (on the reader thread, overlapped with the rest);
    # parse_wait = time the main thread waited for a parsed chunk
    timings = {k: 0.0 for k in ("parse", "parse_wait", "read_refs", "prepare", "tokenize", "encode", "kernel",
                                "assemble", "scoring", "select", "write")}
    t = time.perf_counter()
    refs = read_references(references)
    ref_seg = refs.column("seg_id").to_numpy()
    timings["read_refs"] = time.perf_counter() - t
    writer: pq.ParquetWriter | None = None
    txt = open(txt_path, "w", encoding="utf-8") if txt_path is not None else None
    feat = open(features_path, "w", encoding="utf-8") if features_path is not None else None
    layout = None
    n_entries = n_sources = 0
    selected: list[StatsTable] = []
    picks: dict[str, list[np.ndarray]] = {name: [] for name in ["1-best"] + names}
    offset = 0
    chunks = None
    try:
        chunks = _prefetched(_source_chunks(nbest, chunk_bytes), timings, "parse")
        while True:
            t = time.perf_counter()
            try:
                chunk, done, total = next(chunks)
            except StopIteration:
                break
            timings["parse_wait"] += time.perf_counter() - t
            seg = chunk.column("seg_id").to_numpy()
            lo, hi = np.searchsorted(ref_seg, seg[0], "left"), np.searchsorted(ref_seg, seg[-1], "right")
            n = chunk.num_rows
            hyps = pa.table({"seg_id": chunk.column("seg_id"),
                             "system": pa.StringArray.from_buffers(n, pa.py_buffer(np.zeros(n + 1, np.int32)),
                                                                   pa.py_buffer(b"")),
                             "text": chunk.column("text")})
            stats = compute_stats(hyps, refs.slice(lo, hi - lo), tokenize=tokenize, lowercase=lowercase,
                                  max_ngram_order=order, chunk_segments=1 << 30)
            for k in ("read", "tokenize", "encode", "kernel", "assemble"):
                timings["prepare" if k == "read" else k] += stats.timings.get(k, 0.0)
            t = time.perf_counter()
            scores = sentence.sentence_metrics(stats, names, statistic=statistic, ref_length=ref_length,
                                               max_order=max_order, options=metric_options)
            timings["scoring"] += time.perf_counter() - t
            t = time.perf_counter()
            model = chunk.column("model_score")
            model_np = model.to_numpy(zero_copy_only=False) if model.null_count < n else None
            if model_np is not None:
                model_np = np.where(np.isnan(model_np.astype(np.float64)), -np.inf, model_np)
            chunk_picks = {"1-best": one_best_rows(seg, model_np)}
            for name in names:
                chunk_picks[name] = oracle_rows(seg, scores[name])
            rows = np.unique(np.concatenate(list(chunk_picks.values())))
            selected.append(stats.select(rows))
            for name, r in chunk_picks.items():
                picks[name].append(np.searchsorted(rows, r) + offset)
            offset += len(rows)
            n_entries += n
            n_sources += len(chunk_picks["1-best"])
            timings["select"] += time.perf_counter() - t
            t = time.perf_counter()
            if parquet_path is not None:
                cols: dict[str, Any] = {"seg_id": chunk.column("seg_id"), "entry": chunk.column("entry"),
                                        "model_score": model}
                if keep_stats:
                    for cname in stats.table.column_names:
                        if cname not in ("seg_id", "system"):
                            cols[cname] = stats.table.column(cname)
                for name in names:
                    cols[name] = scores[name]
                out = pa.table(cols)
                if writer is None:
                    meta = dict(stats.table.schema.metadata or {})
                    meta[b"bleustats.kbest.metrics"] = json.dumps(names).encode()  # names may hold commas
                    meta[b"bleustats.kbest.statistic"] = statistic.encode()
                    meta[b"bleustats.kbest.score_order"] = str(max_order).encode()
                    writer = pq.ParquetWriter(parquet_path, out.schema.with_metadata(meta))
                    out_meta = meta
                writer.write_table(out.replace_schema_metadata(out_meta))
            if txt is not None:
                txt.write(_scores_txt_text(stats, max_order=max_order, ref_length=ref_length))
            if feat is not None:
                if "features" not in chunk.column_names:
                    raise io.InputError("features_txt: the input has no features; FEATURES_TXT needs a Moses "
                                        "n-best list ('id ||| hypothesis ||| name= v1 v2 ... ||| total').")
                values, layout = nbest_features.parse_features(
                    chunk.column("features"), layout=layout, what=str(nbest), first_line=n_entries - n + 1)
                feat.write(nbest_features.format_features_txt(seg, values, layout))
            timings["write"] += time.perf_counter() - t
            if progress is not None:
                progress(done, total)
        if parquet_path is not None and writer is None:  # no entries: still write a valid (empty) file
            pq.write_table(pa.table({"seg_id": pa.array([], pa.int64())}), parquet_path)
    finally:
        if chunks is not None:
            chunks.close()  # stops the reader thread if we leave early
        if writer is not None:
            writer.close()
        if txt is not None:
            txt.close()
        if feat is not None:
            feat.close()
    if n_entries == 0:
        raise io.InputError("nbest: no entries; the k-best list is empty.")
    t = time.perf_counter()
    sel = _trim_order(StatsTable(pa.concat_tables([s.table for s in selected]).combine_chunks()), max_order)
    opts = dict(metric="delta_bleu" if statistic == "delta_bleu" else "bleu", ref_length=ref_length)
    one_best = selection_bleu(sel, np.concatenate(picks["1-best"]), **opts)
    oracles = {name: selection_bleu(sel, np.concatenate(picks[name]), **opts) for name in names}
    timings["select"] += time.perf_counter() - t
    timings["total"] = time.perf_counter() - t_start
    return KBestResult(n_entries, n_sources, names, one_best, oracles, timings)
