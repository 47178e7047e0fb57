"""Inputs in every form a user has them → the long-form Arrow tables; safe writes.

Hypotheses become a ``hypotheses`` table (``seg_id``, ``system``, ``text``) and
references a ``references`` table (``seg_id``, ``ref_id``, ``weight``,
``text``), both validated against ``data_schemas/``. Accepted forms:

* Python lists: ``hypotheses: list[str]``; ``references`` as sacreBLEU-style
  streams (``K`` lists, each as long as the hypotheses, ``None`` = no reference
  for that segment) or as one list of references per segment (any length;
  items ``str`` or ``(str, weight)``); ``ref_weights`` of the same shape.
* pandas DataFrames and Arrow tables in long form.
* Files: plain text (one segment per line, sacreBLEU's convention, ``.gz``
  too), and TSV / JSONL / Parquet tables in long form.

Segments of list inputs are numbered ``seg_id = 0, 1, ...`` in input order.

Examples
--------
>>> refs = as_references_table([["a b", "c"], ["a", None]], n_hyp=2)
>>> refs.to_pydict()
{'seg_id': [0, 0, 1], 'ref_id': ['0', '1', '0'], 'weight': [1.0, 1.0, 1.0], 'text': ['a b', 'a', 'c']}
>>> as_references_table([["x", ("y", 0.5)], []], n_hyp=2, layout="segments").to_pydict()["weight"]
[1.0, 0.5]
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io as _stdio
import os
import secrets
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from .._interrupts import deferred
from ..errors import InputError
from . import _columns as columns, schemas
from ._options import TABLE_SUFFIXES

if TYPE_CHECKING:  # pandas is imported only when a DataFrame is used
    import pandas as pd

__all__ = ["REFERENCE_LAYOUTS", "TABLE_SUFFIXES", "as_hypotheses_table", "as_references_table", "folder_in_place",
           "iter_line_chunks", "lines_table", "move_into_place", "open_input", "read_lines", "read_table",
           "read_weights", "streams_table", "write_atomic", "write_folder"]

#: How list references are laid out: sacreBLEU streams or one list per segment.
REFERENCE_LAYOUTS = ("auto", "streams", "segments")


def stream_length_error(k: int, length: int, n_hyp: int) -> InputError:
    """The one error of every entry point for list references whose stream ``k`` is not ``n_hyp`` long.

    Lists of references are read in sacreBLEU's layout (streams); a list of
    references per hypothesis (``[[r1], [r2]]`` for two hypotheses) is read
    so only when ``references_layout='segments'`` says it, never guessed.

    >>> print(stream_length_error(0, 1, 2))  # doctest: +ELLIPSIS
    references[0] has 1 line but there are 2 hypotheses. sacreBLEU's layout is one list per reference stream...
    """
    return InputError(
        f"references[{k}] has {length} line{'s' if length != 1 else ''} but there are {n_hyp} hypotheses. "
        "sacreBLEU's layout is one list per reference stream, each as long as the hypotheses: "
        "[[ref1_of_seg1, ref1_of_seg2, ...], [ref2_of_seg1, ...]] (use None for a missing reference); "
        "sacreBLEU itself would score only the segments the shortest list covers. If references holds one "
        "list of references per hypothesis ([[refs of hyp 1], [refs of hyp 2], ...]), pass "
        "references_layout='segments' (metric objects: references=bleustats.ReferenceSet(refs, layout='segments'))."
    )


def is_table(obj: Any) -> bool:
    """True for a pyarrow Table or a pandas DataFrame (without importing pandas)."""
    if isinstance(obj, pa.Table):
        return True
    pd = sys.modules.get("pandas")  # an object can only be a DataFrame if pandas is loaded
    return pd is not None and isinstance(obj, pd.DataFrame)


def to_arrow(obj: pd.DataFrame | pa.Table) -> pa.Table:
    """A pandas DataFrame as an Arrow table (index dropped); an Arrow table as is."""
    if isinstance(obj, pa.Table):
        return obj
    return pa.Table.from_pandas(obj, preserve_index=False)


def _check_str_list(values: Sequence[Any], what: str, allow_none: bool = False) -> None:
    for i, v in enumerate(values):
        if isinstance(v, str) or (allow_none and v is None):
            continue
        raise InputError(
            f"{what}[{i}] must be a str{' or None' if allow_none else ''}; got "
            f"{type(v).__name__} {v!r:.60}."
        )


def as_hypotheses_table(
    hypotheses: Sequence[str] | pd.DataFrame | pa.Table,
    *,
    system: str | None = None,
    k_best: bool = False,
) -> pa.Table:
    """Return ``hypotheses`` as a validated long-form hypotheses table.

    Parameters
    ----------
    hypotheses : list of str, pandas.DataFrame or pyarrow.Table
        One string per segment, or a long-form table with columns ``seg_id``,
        ``text`` and optionally ``system``.
    system : str, optional
        System name given to list input (default ``'hyp'``).
    k_best : bool
        The rows are entries of k-best lists, which share (system, seg_id);
        otherwise a repeated (system, seg_id) is an error (it would be
        counted twice in the system's score).

    Examples
    --------
    >>> as_hypotheses_table(["a b", "c"], system="sysA").to_pydict()
    {'seg_id': [0, 1], 'system': ['sysA', 'sysA'], 'text': ['a b', 'c']}
    """
    if is_table(hypotheses):
        return schemas.validate(to_arrow(hypotheses), "hypotheses", param="hypotheses", check_key=not k_best)
    if isinstance(hypotheses, (pa.Array, pa.ChunkedArray)):
        if not (pa.types.is_string(hypotheses.type) or pa.types.is_large_string(hypotheses.type)):
            raise InputError(f"hypotheses: an Arrow array must hold strings; got {hypotheses.type}.")
        if hypotheses.null_count:
            raise InputError(f"hypotheses: {hypotheses.null_count} null value(s); every segment needs a string.")
        lines = hypotheses.combine_chunks() if isinstance(hypotheses, pa.ChunkedArray) else hypotheses
        return lines_table(lines, system=system or "hyp")
    if isinstance(hypotheses, (str, bytes)):
        raise InputError(
            "hypotheses must be a list of strings (one per segment) or a long-form table; "
            f"got a single {type(hypotheses).__name__}. Wrap it in a list: [hypothesis]."
        )
    hypotheses = list(hypotheses)
    _check_str_list(hypotheses, "hypotheses")
    n = len(hypotheses)
    return pa.Table.from_arrays(
        [columns.numeric(np.arange(n, dtype=np.int64)), columns.repeated(system or "hyp", n),
         columns.strings(hypotheses, where="hypotheses")],
        schema=schemas.arrow_schema("hypotheses"),
    )


def _weight(value: Any, where: str) -> float:
    """One reference weight: a real number in [-1, 1] (not NaN, not a bool or a string)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{where} must be a number in [-1, 1]; got {type(value).__name__} {value!r:.40}.")
    value = float(value)
    if not -1.0 <= value <= 1.0:  # also rejects NaN
        raise InputError(
            f"{where} must be in [-1, 1] (ΔBLEU reference weights); got {value!r}. Rescale the human "
            "scores to [-1, 1] first."
        )
    return value


def _weight_array(values: Any, n: int, where: str) -> np.ndarray:
    """A whole stream of weights: n real numbers in [-1, 1]; errors give the index."""
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise InputError(f"{where} must hold one weight per reference line ({n}); got shape {arr.shape}.")
    has_bool = isinstance(values, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in values)
    if arr.dtype.kind not in "iuf" or has_bool:
        bad = next((i for i, v in enumerate(values) if isinstance(v, (bool, np.bool_)) or
                    not isinstance(v, (int, float, np.integer, np.floating))), 0)
        _weight(values[bad], f"{where}[{bad}]")
    arr = arr.astype(np.float64)
    bad = np.flatnonzero(~((arr >= -1.0) & (arr <= 1.0)))
    if len(bad):
        _weight(arr[bad[0]].item(), f"{where}[{bad[0]}]")
    return arr


def _split_item(item: Any, where: str) -> tuple[Any, Any]:
    """A per-segment reference item is 'text' or ('text', weight)."""
    if isinstance(item, tuple):
        if len(item) != 2:
            raise InputError(f"{where} must be a str or a (text, weight) pair; got a {len(item)}-tuple.")
        return item[0], item[1]
    return item, None


def as_references_table(
    references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table,
    ref_weights: Sequence[Sequence[float]] | None = None,
    *,
    n_hyp: int | None = None,
    layout: str = "auto",
) -> pa.Table:
    """Return ``references`` (and ``ref_weights``) as a validated long-form table.

    Parameters
    ----------
    references : list of lists, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style streams (``references[k][i]`` = k-th reference of
        segment i, ``None`` for none), one list per segment
        (``references[i]`` = all references of segment i, each a str or a
        ``(text, weight)`` pair), or a long-form table.
    ref_weights : list of lists of float, optional
        Same shape as ``references``; absent means every weight is 1.
    n_hyp : int, optional
        Number of hypothesis segments, used to tell the list layouts apart and
        to check their lengths.
    layout : {'auto', 'streams', 'segments'}
        ``'auto'`` and ``'streams'`` read lists as sacreBLEU's streams (each
        ``n_hyp`` long, else :func:`stream_length_error`); ``'segments'`` as
        one list of references per hypothesis. The layout is never guessed.

    Returns
    -------
    pyarrow.Table
        Schema ``references``; rows ordered by segment, then by reference.
    """
    if layout not in REFERENCE_LAYOUTS:
        raise InputError(
            f"references_layout must be one of {', '.join(map(repr, REFERENCE_LAYOUTS))}; got {layout!r}."
        )
    if is_table(references):
        table = to_arrow(references)
        if ref_weights is not None:
            raise InputError(
                "ref_weights must be None when references is a table; put the weights in its "
                "'weight' column instead."
            )
        return schemas.validate(table, "references", param="references")
    if isinstance(references, (str, bytes)):
        raise InputError(
            "references must be a list of reference streams (list of lists of str) or a "
            f"long-form table; got a single {type(references).__name__}. For one reference "
            "stream write [refs]."
        )
    references = list(references)
    if references and all(isinstance(r, (pa.Array, pa.ChunkedArray)) for r in references):
        if n_hyp is None:
            raise InputError("references: Arrow reference streams need list or Arrow hypotheses.")
        streams = [r.combine_chunks() if isinstance(r, pa.ChunkedArray) else r for r in references]
        for k, r in enumerate(streams):
            if not (pa.types.is_string(r.type) or pa.types.is_large_string(r.type)):
                raise InputError(f"references[{k}]: an Arrow reference stream must hold strings; got {r.type}.")
        weights = None
        if ref_weights is not None:
            if len(ref_weights) != len(streams):
                raise InputError(f"ref_weights must have one list per reference stream ({len(streams)}); "
                                 f"got {len(ref_weights)}.")
            weights = [_weight_array(w, len(r), f"ref_weights[{k}]")
                       for k, (w, r) in enumerate(zip(ref_weights, streams))]
        return streams_table(streams, weights, n_hyp=n_hyp)
    references = [list(r) if not isinstance(r, (str, bytes)) else r for r in references]
    for k, r in enumerate(references):
        if isinstance(r, (str, bytes)):
            raise InputError(
                f"references[{k}] must be a list (a reference stream or one segment's references); "
                f"got {type(r).__name__} {r!r:.60}. sacreBLEU-style input is a list of streams: "
                "[[ref_seg1, ref_seg2, ...]]."
            )
    if layout == "auto":
        layout = "streams"  # lists are sacreBLEU's streams; per-segment lists only when asked for by name
    if ref_weights is not None:
        ref_weights = [list(w) for w in ref_weights]
        if len(ref_weights) != len(references) or any(
            len(w) != len(r) for w, r in zip(ref_weights, references)
        ):
            shape_r = [len(r) for r in references][:5]
            shape_w = [len(w) for w in ref_weights][:5]
            raise InputError(
                "ref_weights must have the same shape as references: "
                f"{len(references)} lists of lengths {shape_r}{'...' if len(references) > 5 else ''}; "
                f"got {len(ref_weights)} lists of lengths {shape_w}{'...' if len(ref_weights) > 5 else ''}."
            )
    seg, rid, wts, txt = [], [], [], []
    if layout == "streams":
        if n_hyp is not None:
            for k, stream in enumerate(references):
                if len(stream) != n_hyp:
                    raise stream_length_error(k, len(stream), n_hyp)
        for k, stream in enumerate(references):
            _check_str_list(stream, f"references[{k}]", allow_none=True)
            w = ref_weights[k] if ref_weights is not None else None
            for i, text in enumerate(stream):
                if text is None:
                    continue
                seg.append(i)
                rid.append(str(k))
                wts.append(1.0 if w is None else _weight(w[i], f"ref_weights[{k}][{i}]"))
                txt.append(text)
    else:
        if n_hyp is not None and len(references) != n_hyp:
            raise InputError(
                f"references has {len(references)} per-segment lists but there are {n_hyp} "
                "hypotheses; give one list of references per hypothesis segment."
            )
        for i, refs in enumerate(references):
            for k, item in enumerate(refs):
                text, weight = _split_item(item, f"references[{i}][{k}]")
                if not isinstance(text, str):
                    raise InputError(
                        f"references[{i}][{k}] must be a str; got {type(text).__name__} {text!r:.60}."
                    )
                if ref_weights is not None:
                    if isinstance(item, tuple):
                        raise InputError(
                            f"references[{i}][{k}] has a weight and ref_weights is given too; use one."
                        )
                    weight = _weight(ref_weights[i][k], f"ref_weights[{i}][{k}]")
                elif isinstance(item, tuple):
                    weight = _weight(weight, f"the weight of references[{i}][{k}]")
                seg.append(i)
                rid.append(str(k))
                wts.append(1.0 if weight is None else weight)
                txt.append(text)
    order = np.argsort(np.asarray(seg, np.int64), kind="stable")
    table = pa.Table.from_arrays(
        [columns.numeric(np.asarray(seg, np.int64)[order]),
         columns.strings([rid[i] for i in order.tolist()]),
         columns.numeric(np.asarray(wts, dtype=np.float64)[order]),
         columns.strings([txt[i] for i in order.tolist()], where="references")],
        names=["seg_id", "ref_id", "weight", "text"],
    )
    # the key (seg_id, ref_id) is unique by construction here (one row per stream or list position and
    # segment): its check would only cost pyarrow.compute's import (~50 ms of a command's start-up)
    return schemas.validate(table, "references", param="references", check_key=False)


class _Input(_stdio.RawIOBase):
    """A file opened by :func:`open_input`: reads raise :class:`InputError` naming the file (not EOFError...)."""

    def __init__(self, path: Path, fh: Any, gz: bool) -> None:
        self.path, self.fh, self.gz = path, fh, gz
        #: the file's own bytes (the compressed stream of a .gz), e.g. for progress in bytes of the file
        self.fileobj = fh.fileobj if gz else fh

    def _failed(self, exc: BaseException) -> InputError:
        if self.gz and isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
            return InputError(f"{self.path}: cannot be read as gzip ({exc}); the file is truncated or damaged. "
                              "Compress it again (or give the uncompressed file).")
        return InputError(f"{self.path}: cannot be read ({exc}).")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            return self.fh.readinto(buffer)
        except (OSError, EOFError, zlib.error) as exc:
            raise self._failed(exc) from None

    def read(self, size: int = -1) -> bytes:
        try:
            return self.fh.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise self._failed(exc) from None

    def readall(self) -> bytes:
        return self.read(-1)

    def close(self) -> None:
        if not self.closed:
            self.fh.close()
        super().close()


def open_input(path: str | os.PathLike) -> Any:
    """Open an input file for reading bytes; ``.gz`` is decompressed. The one way bleustats opens text inputs.

    Every failure, when opening or on any later read, is an
    :class:`InputError` naming the file: missing, a folder, unreadable, or a
    ``.gz`` that is truncated or damaged (whatever its size, wherever the
    damage is found).

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "h.txt.gz")
    >>> _ = open(p, "wb").write(gzip.compress(b"a b\\nc\\n")[:-9])
    >>> with open_input(p) as fh:
    ...     fh.read()
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: ...h.txt.gz: cannot be read as gzip (Compressed file ended before the ...
    """
    path = Path(path)
    gz = path.suffix == ".gz"
    try:
        fh = gzip.open(path, "rb") if gz else open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; check the path.") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a text file.") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc}).") from None
    return _Input(path, fh, gz)


def _open_bytes(path: Path) -> bytes:
    with open_input(path) as fh:
        return fh.read()


def decode_utf8(data: bytes, where: str, first_line: int = 1) -> str:
    """UTF-8 text of ``data``; an error names the line (``data`` starts at ``first_line``) and byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + first_line
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1)
        raise InputError(
            f"{where}: not valid UTF-8 at line {line}, byte {col} ({exc.reason}); re-encode it as "
            "UTF-8 (e.g. iconv -f latin1 -t utf-8)."
        ) from None


def read_lines(path: str | os.PathLike) -> pa.Array:
    """Read a plain-text file (UTF-8, one segment per line) as an Arrow string array.

    Lines are split on ``'\\n'`` only, as sacreBLEU reads files; a final
    newline does not start another segment. ``.gz`` files are decompressed.

    Raises
    ------
    InputError
        If the file is missing or unreadable, or is not valid UTF-8 (the
        message gives the line and byte).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "h.txt")
    >>> _ = open(p, "w", encoding="utf-8").write("a b\\nc\\n")
    >>> read_lines(p).to_pylist()
    ['a b', 'c']
    """
    path = Path(path)
    return _bytes_to_lines(_open_bytes(path), str(path), 1)


def read_weights(path: str | os.PathLike, *, n: int, ref_path: str | os.PathLike | None = None) -> np.ndarray:
    """Read one reference weight per line (floats in [-1, 1]) from a text file.

    Raises
    ------
    InputError
        Naming the file and line of a value that is not a number, and the
        counts when the file does not have ``n`` lines.
    """
    lines = read_lines(path).to_pylist()
    for_ref = f" (weights of {ref_path})" if ref_path is not None else ""
    if len(lines) != n:
        raise InputError(
            f"{path}{for_ref}: has {len(lines)} weights but the reference file has {n} lines; "
            "give exactly one weight per reference line."
        )
    out = np.empty(n, np.float64)
    for i, text in enumerate(lines):
        try:
            value = float(text)
        except ValueError:
            raise InputError(
                f"{path}{for_ref}: line {i + 1} is {text!r}, not a number; each line must hold one "
                "weight in [-1, 1]."
            ) from None
        out[i] = _weight(value, f"{path}{for_ref}: line {i + 1}")
    return out


def lines_table(lines: pa.Array, *, system: str = "hyp", first: int = 0) -> pa.Table:
    """Hypotheses table of one system from its lines (``seg_id`` = ``first`` + line index)."""
    n = len(lines)
    return pa.Table.from_arrays(
        [columns.numeric(np.arange(first, first + n, dtype=np.int64)), columns.repeated(system, n),
         lines.cast(pa.string())],
        schema=schemas.arrow_schema("hypotheses"),
    )


def streams_table(
    streams: Sequence[pa.Array],
    weights: Sequence[np.ndarray] | None,
    *,
    n_hyp: int,
    names: Sequence[str] | None = None,
    first: int = 0,
) -> pa.Table:
    """References table from K reference streams read as Arrow arrays (files).

    Every stream must have ``n_hyp`` lines; the error names the stream (file).
    Rows are stream-major, so each segment's first row is its first stream's
    reference; texts are not copied.
    """
    names = list(names) if names is not None else [f"references[{k}]" for k in range(len(streams))]
    for k, stream in enumerate(streams):
        if len(stream) != n_hyp:
            raise InputError(
                f"{names[k]}: has {len(stream)} lines but the hypotheses have {n_hyp}; every "
                "reference file must have one line per hypothesis line."
            )
    seg = np.tile(np.arange(first, first + n_hyp, dtype=np.int64), len(streams))
    rid = pa.DictionaryArray.from_arrays(
        columns.numeric(np.repeat(np.arange(len(streams), dtype=np.int32), n_hyp)),
        columns.strings([str(k) for k in range(len(streams))]),
    ).cast(pa.string())
    w = (np.ones(n_hyp * len(streams)) if weights is None
         else np.concatenate([np.asarray(x, np.float64) for x in weights]) if len(streams) else np.ones(0))
    text = pa.chunked_array([s.cast(pa.string()) for s in streams], type=pa.string())
    table = pa.Table.from_arrays([columns.numeric(seg), rid, columns.numeric(w), text],
                                 names=["seg_id", "ref_id", "weight", "text"])
    return schemas.validate(table, "references", param=", ".join(names))


def _bytes_to_lines(data: bytes, where: str, first_line: int) -> pa.Array:
    """Lines of ``data`` (each ending in '\\n', or the file's last line) as an Arrow string array."""
    if not data:
        return columns.strings([])
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    # one large_binary value viewing the bytes (no copy), split on '\n' by Arrow
    whole = pa.Array.from_buffers(pa.large_binary(), 1, [None, pa.py_buffer(np.array([0, end], np.int64)),
                                                         pa.py_buffer(data)])
    import pyarrow.compute as pc  # here: ~20 ms of import that reading text files by other means never needs

    lines = pc.split_pattern(whole, b"\n").flatten()
    try:
        lines = lines.cast(pa.large_string())  # validates UTF-8
    except pa.ArrowInvalid:
        decode_utf8(data, where, first_line)  # raises, naming the line and byte
        raise
    return lines.cast(pa.string()) if end < 2**31 else lines


def iter_line_chunks(paths: Sequence[str | os.PathLike], chunk_lines: int = 100_000,
                     block_bytes: int = 1 << 24):
    """Read several line-aligned text files together, ``chunk_lines`` lines at a time.

    Yields ``(first_line_index, [array per file])`` with the same number of
    lines from every file, so memory stays bounded however large the files
    are. ``.gz`` files are decompressed on the fly.

    Raises
    ------
    InputError
        If a file is missing, not UTF-8 (naming the line), or the files do
        not have the same number of lines (naming each count).
    """
    import numpy as np

    paths = [Path(p) for p in paths]
    handles = []
    try:
        for p in paths:
            handles.append(open_input(p))
        pending = [b""] * len(paths)   # bytes read but not yet handed out
        done = [False] * len(paths)
        first = 0
        while True:
            chunk = []
            for k, fh in enumerate(handles):
                parts = [pending[k]]
                size = len(pending[k])
                newlines = [np.flatnonzero(np.frombuffer(pending[k], np.uint8) == 10)]
                n_newlines = len(newlines[0])
                # blocks are collected and joined once: appending to one bytes object
                # would copy it per block (quadratic in the length of one long line)
                while n_newlines < chunk_lines and not done[k]:
                    block = fh.read(block_bytes)
                    if not block:
                        done[k] = True
                        break
                    more = np.flatnonzero(np.frombuffer(block, np.uint8) == 10) + size
                    parts.append(block)
                    size += len(block)
                    newlines.append(more)
                    n_newlines += len(more)
                buf = parts[0] if len(parts) == 1 else b"".join(parts)
                newlines = np.concatenate(newlines)
                if len(newlines) >= chunk_lines:
                    cut = int(newlines[chunk_lines - 1]) + 1
                    take, pending[k] = buf[:cut], buf[cut:]
                else:  # end of file: the rest, with or without a final newline
                    take, pending[k] = buf, b""
                chunk.append(_bytes_to_lines(take, str(paths[k]), first + 1))
            counts = [len(c) for c in chunk]
            if len(set(counts)) > 1:
                total = [first + c for c in counts]
                raise InputError(
                    "the files do not have the same number of lines: "
                    + ", ".join(f"{p} has {'at least ' if c == chunk_lines else ''}{t}"
                                for p, c, t in zip(paths, counts, total))
                    + "; every reference file needs one line per hypothesis line."
                )
            if counts and counts[0] == 0:
                return
            yield first, chunk
            first += counts[0] if counts else 0
            if counts and counts[0] < chunk_lines:
                return
    finally:
        for fh in handles:
            fh.close()


def _jsonl_table(text: str, where: Any) -> pa.Table:
    """One JSON object per line (blank lines skipped) as an Arrow table; errors name the line."""
    import json

    rows = []
    for i, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: line {i} is not valid JSON ({exc.msg}); a JSONL table has one JSON "
                             "object per line.") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: line {i} is a JSON {type(obj).__name__}, not an object; a JSONL table "
                             'has one object per line, e.g. {"seg_id": 1, "text": "..."}.')
        rows.append(obj)
    try:
        return pa.Table.from_pylist(rows)
    except UnicodeEncodeError as exc:  # a JSON escape of a lone surrogate ("\\ud800"): no UTF-8 text
        raise _surrogate_error(text, where, exc) from None
    except (pa.ArrowException, OverflowError, TypeError, ValueError) as exc:
        raise InputError(f"{where}: the values of a column do not have one type ({exc}); give each column "
                         "one type (e.g. seg_id always an integer, text always a string).") from None


def _surrogate_error(text: str, where: Any, exc: UnicodeEncodeError) -> InputError:
    """The refusal of a JSONL table holding an escaped lone surrogate, naming its line and the escape."""
    import json

    bad = exc.object[exc.start:exc.end]
    line = next((i for i, raw in enumerate(text.split("\n"), 1)
                 if raw.strip() and bad in json.dumps(json.loads(raw), ensure_ascii=False)), None)
    at = f"line {line}" if line is not None else "a line"
    escape = "".join(f"\\u{ord(c):04x}" for c in bad)
    return InputError(f"{where}: {at} holds the JSON escape {escape}, a lone UTF-16 surrogate: it is not a "
                      "Unicode character and has no UTF-8 encoding. The text was encoded wrongly where the file "
                      "was made (UTF-16 halves of a character escaped one by one, or a cut-off pair); fix the "
                      "encoding there.")


def read_jsonl(path: str | os.PathLike) -> pa.Table:
    r"""A JSONL file (one JSON object per line) as an Arrow table, not validated against a schema.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "t.jsonl")
    >>> _ = open(p, "w").write('{"seg_id": 1, "text": "a"}\n\n{"seg_id": 2, "text": "b"}\n')
    >>> read_jsonl(p).to_pydict()
    {'seg_id': [1, 2], 'text': ['a', 'b']}
    """
    path = Path(path)
    return _jsonl_table(decode_utf8(_open_bytes(path), str(path)), path)


def read_table(path: str | os.PathLike, name: str) -> pa.Table:
    """Read a long-form table from TSV, JSONL or Parquet and validate it.

    Parameters
    ----------
    path : path-like
        ``.tsv`` (header row, TAB separated, no quoting), ``.jsonl`` (one JSON
        object per line) or ``.parquet``.
    name : {'hypotheses', 'references'}
        Which schema to validate against.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(
            f"{path}: unknown table format {suffix!r}; expected one of {', '.join(TABLE_SUFFIXES)}."
        )
    if suffix == ".parquet":
        if path.is_dir():
            raise InputError(f"{path}: is a directory, expected a Parquet file.")
        if not path.exists():
            raise InputError(f"{path}: no such file; check the path.")
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        else:
            data = _open_bytes(path)
            text = decode_utf8(data, str(path))  # names the line of a bad byte
            if suffix == ".jsonl":
                table = _jsonl_table(text, path)
            else:
                # Arrow's reader: no quoting, texts stay strings, and a row with another
                # number of fields (a TAB inside a text) is an error naming the row
                import pyarrow.csv as pacsv

                strings = {c: pa.string() for c in ("system", "ref_id", "text")}
                table = pacsv.read_csv(
                    pa.py_buffer(data),
                    parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
                    convert_options=pacsv.ConvertOptions(column_types=strings, null_values=[],
                                                         strings_can_be_null=False),
                )
    except InputError:
        raise
    except (ValueError, pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot be read as {suffix[1:].upper()} ({exc}).") from None
    return schemas.validate(table, name, param=str(path))


def _new_temp(folder: Path, name: str, suffix: str, *, directory: bool) -> Path:
    """Create ``.<name>.<random><suffix>`` in ``folder``, with the permissions the umask gives.

    ``tempfile.mkstemp`` / ``mkdtemp`` create 0600 / 0700 whatever the umask; a
    result renamed into place would keep that. Created here with mode 0666 /
    0777, the operating system applies the umask, as for any other file.
    """
    for _ in range(100):
        tmp = folder / f".{name}.{secrets.token_hex(4)}{suffix}"
        try:
            if directory:
                os.mkdir(tmp, 0o777)
            else:
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def make_temp_dir(target: str | os.PathLike, suffix: str = ".tmp") -> Path:
    """A new hidden folder beside ``target`` (``.<name>.<random><suffix>``), following the umask.

    For results written as a folder: fill it, then rename it into place
    (:func:`write_atomic` is the same for one file).
    """
    target = Path(target)
    folder = target.parent if str(target.parent) else Path(".")
    with deferred():  # the command line's interrupt waits (bleustats._interrupts)
        return _new_temp(folder, target.name, suffix, directory=True)


@contextlib.contextmanager
def folder_in_place(target: str | os.PathLike, *, replace: bool, flag: str, hint: str = "--replace"
                    ) -> Iterator[Path]:
    """A new hidden folder beside ``target``, renamed into place when the block ends without an error.

    The block fills the folder (a library function given its path writes its
    files there). Leaving the block with an exception removes it, and
    ``target`` is left as it was; an existing ``target`` (a folder, or a link
    to one) is replaced only with ``replace=True``, and then only after the new
    folder is complete. A file, device or FIFO at ``target`` is refused
    (:func:`output_target`). Errors name ``flag`` and suggest ``hint``.
    """
    import shutil

    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{flag}: the parent folder {parent} does not exist; create it first.")
    target = output_target(target, folder_output=True)  # a link: its folder; a file, device or FIFO: refused
    if target.exists() and not replace:
        raise InputError(f"{flag} {target}: exists; add {hint} to replace it, or choose another folder.")
    tmp = None
    try:
        with deferred():  # made and named before an interrupt can land
            tmp = make_temp_dir(target)  # follows the umask (mkdtemp made 0700)
        yield tmp
        move_into_place(tmp, target)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise


def move_into_place(folder: str | os.PathLike, target: str | os.PathLike) -> None:
    """Rename the complete ``folder`` to ``target``; an existing ``target`` is moved aside first and removed
    after, so that either the new folder or the old one is at ``target``, never neither (also on an interrupt).

    Every folder output ends here: :func:`folder_in_place` and a partitioned
    dataset's writer (:class:`bleustats.engine.dataset.DatasetWriter`).
    """
    import shutil

    folder, target = Path(folder), Path(target)
    old = None
    with deferred():  # the old folder moves aside and the new one in: both or neither
        if target.exists():
            old = make_temp_dir(target, ".old")
            os.replace(target, old / target.name)
        try:
            os.replace(folder, target)
        except OSError:
            if old is not None:
                os.replace(old / target.name, target)
            raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_folder(target: str | os.PathLike, files: dict[str, Callable[[Path], Any]], *, replace: bool,
                 flag: str = "--output", hint: str = "--replace") -> Path:
    """Write a folder of results whole or not at all: every file into a new folder, then renamed into place.

    ``files`` maps each file name to a function that writes that file at the
    path it is given (:func:`folder_in_place` does the rest). Returns the
    folder's path.

    Examples
    --------
    >>> import os, tempfile
    >>> d = os.path.join(tempfile.mkdtemp(), "report")
    >>> write_folder(d, {"a.txt": lambda p: p.write_text("x")}, replace=False).name, os.listdir(d)
    ('report', ['a.txt'])
    """
    with folder_in_place(target, replace=replace, flag=flag, hint=hint) as tmp:
        for name, write in files.items():
            write(tmp / name)
    return output_target(target, folder_output=True)


def _write_through(path: Path, write: Callable[[str], None]) -> None:
    """Write a non-regular file (a device, a FIFO) in place: the whole content, made first in a temporary file.

    The temporary file is in the system's temporary folder (never beside a
    device, e.g. in ``/dev``); its bytes are copied into ``path`` opened
    without ``O_CREAT`` / ``O_TRUNC``, so the node itself is never replaced.
    A reader of a FIFO gets the whole content or, when the writer fails
    before the copy, nothing.
    """
    import shutil
    import tempfile

    folder = None
    try:
        with deferred():  # made and named before an interrupt can land (bleustats._interrupts)
            folder = Path(tempfile.mkdtemp(prefix=".bleustats-"))
        tmp = folder / path.name
        write(str(tmp))
        with open(tmp, "rb") as src:
            fd = os.open(path, os.O_WRONLY)
            with open(fd, "wb", buffering=0) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    finally:
        if folder is not None:
            with deferred():
                shutil.rmtree(folder, ignore_errors=True)


def output_target(path: str | os.PathLike, *, folder_output: bool = False) -> Path:
    """Where an output named ``path`` is written, by the policy of :func:`write_atomic`.

    ``path`` itself when it does not exist, is a regular file or a folder; the
    file a symbolic link resolves to (through every link); ``path`` itself for
    a device, a FIFO or a socket (written through). ``folder_output=True``
    (a result written as a folder and renamed into place) refuses a path that
    exists and is neither a folder nor a link to one: a rename would replace it.

    Raises
    ------
    InputError
        ``folder_output`` and ``path`` is a device, FIFO, socket or regular file.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> os.symlink(os.path.join(d, "real.txt"), os.path.join(d, "link.txt"))
    >>> output_target(os.path.join(d, "link.txt")).name
    'real.txt'
    """
    import stat

    path = Path(path)
    if os.path.islink(path):
        path = Path(os.path.realpath(path))
    if folder_output:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return path
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write {path}: {exc.strerror}; nothing was written", str(path)) from None
        if not stat.S_ISDIR(mode):
            kind = "a regular file" if stat.S_ISREG(mode) else _kind(mode)
            raise InputError(f"output: {path} is {kind}; this output is a folder, renamed into place, which would "
                             "replace it. Choose a new path.")
    return path


def _kind(mode: int) -> str:
    import stat

    return ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def write_atomic(path: str | os.PathLike, write: Callable[[str], None]) -> None:
    """Write a file whole or not at all, never replacing what ``path`` names by something else.

    ``write(tmp_path)`` writes to a temporary file in the destination's folder,
    which then replaces ``path`` in one rename; on any error, and on an
    interrupt (KeyboardInterrupt, or the command line's SIGTERM), the
    temporary file is removed and ``path`` is left as it was. The file gets
    the permissions the umask gives (not ``mkstemp``'s 0600).

    What ``path`` names decides what is written (the policy of every output;
    :func:`output_target`):

    * a regular file, or nothing: replaced / created atomically as above;
    * a symbolic link: the file it resolves to is written, atomically, with
      the temporary file beside that target, and the link stays a link (as
      ``sort -o`` and ``cp`` write through links); a dangling link creates its
      target;
    * a character or block device, a FIFO or a socket: written through, never
      replaced. The whole content is made first in a temporary file (in the
      system's temporary folder) and then copied into ``path`` opened for
      writing, so a FIFO's reader gets the whole content or nothing (a FIFO
      without a reader waits for one, as any writer into a FIFO does);
    * a folder: refused (``IsADirectoryError``).

    Errors of the machine (``ENOSPC``, ``EACCES``, a missing folder, ...) raise
    one :class:`OSError` whose ``strerror`` reads ``cannot write PATH: REASON;
    nothing was written`` (for a device that failed mid-copy: ``REASON`` only,
    the bytes already taken cannot be taken back).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> write_atomic(p, lambda tmp: open(tmp, "w").write("whole"))
    >>> open(p).read(), sorted(os.listdir(os.path.dirname(p)))
    ('whole', ['out.txt'])
    """
    import stat

    path = output_target(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise OSError(21, f"cannot write {path}: it is a folder; give a file path; nothing was written", str(path))
    if mode is not None and not stat.S_ISREG(mode):
        try:
            _write_through(path, write)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot write {path} ({_kind(mode)}): {exc.strerror or exc}",
                          str(path)) from None
        return
    folder = path.parent if str(path.parent) else Path(".")
    tmp = None
    try:
        with deferred():  # made and named before an interrupt can land (bleustats._interrupts)
            try:
                tmp = _new_temp(folder, path.name, ".tmp", directory=False)
            except OSError as exc:
                raise OSError(exc.errno, f"cannot write {path}: {exc.strerror}; nothing was written",
                              str(path)) from None
        write(str(tmp))
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with deferred():
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
        if isinstance(exc, OSError) and tmp is not None:
            raise OSError(exc.errno, f"cannot write {path}: {exc.strerror or exc}; nothing was written",
                          str(path)) from None
        raise


# --------------------------------------------------------------------------- content digests
#
# A saved statistics table (StatsTable.save) carries bleustats.digest, the SHA-256 of its values and
# bleustats.* settings (table_digest); a dataset's manifest holds the SHA-256 of each part file's bytes
# (file_sha256) and a digest of its own fields. Loading checks them, so a value, a setting, a row, a part or a
# manifest field changed after the write is refused instead of scored. TableDigest does not depend on how the
# rows are cut into chunks or batches (a table digested in memory and the same table read back from Parquet,
# in other row groups, give the same digest): per column it hashes the name, the type and the values (the
# bytes of a numeric column; the lengths and UTF-8 bytes of a string column; validity bitmaps are not hashed,
# statistics columns have no nulls, which validation checks first).

#: Metadata key of a saved table's digest (``sha256:<hex>``), itself left out of the digest.
DIGEST_KEY = b"bleustats.digest"
_PREFIX = "sha256:"


class TableDigest:
    """SHA-256 of a table's rows and ``bleustats.*`` metadata, fed one batch (or table) at a time.

    Parameters
    ----------
    schema : pyarrow.Schema
        The table's schema; its field names and types, and its ``bleustats.*``
        metadata except :data:`DIGEST_KEY`, are part of the digest.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.rows = 0
        self._parts = [[hashlib.sha256(), hashlib.sha256()] for _ in schema]

    def update(self, batch: pa.Table | pa.RecordBatch) -> None:
        """Add the rows of ``batch`` (the schema's columns, in order)."""
        self.rows += batch.num_rows
        for (values, lengths), col in zip(self._parts, batch.columns):
            for chunk in (col.chunks if isinstance(col, pa.ChunkedArray) else [col]):
                if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
                    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
                    offsets = np.frombuffer(chunk.buffers()[1], width)[chunk.offset:chunk.offset + len(chunk) + 1]
                    lengths.update(np.diff(offsets).astype(np.int64).tobytes())
                    data = chunk.buffers()[2]
                    if data is not None and len(offsets):
                        values.update(memoryview(data)[int(offsets[0]):int(offsets[-1])])
                elif pa.types.is_integer(chunk.type) or pa.types.is_floating(chunk.type):
                    width = chunk.type.bit_width // 8  # the value bytes, viewed in place (no copy)
                    data = chunk.buffers()[1]
                    if data is not None:
                        values.update(memoryview(data)[chunk.offset * width:(chunk.offset + len(chunk)) * width])
                else:
                    values.update(np.ascontiguousarray(columns.to_numpy(chunk)).tobytes())

    def hexdigest(self) -> str:
        """``sha256:<hex>`` over the rows so far, the schema's fields and its ``bleustats.*`` settings."""
        whole = hashlib.sha256(f"rows={self.rows}\n".encode())
        meta = self.schema.metadata or {}
        for key in sorted(meta):
            if key.startswith(b"bleustats.") and key != DIGEST_KEY:
                whole.update(key + b"=" + meta[key] + b"\n")
        for field, (values, lengths) in zip(self.schema, self._parts):
            whole.update(f"{field.name}:{field.type}:".encode() + values.digest() + lengths.digest())
        return _PREFIX + whole.hexdigest()


def table_digest(table: pa.Table) -> str:
    """The :class:`TableDigest` of a whole table (``sha256:<hex>``): its values and ``bleustats.*`` settings.

    Examples
    --------
    >>> t = pa.table({"seg_id": [0, 1, 2], "system": ["A", "A", "B"]}).replace_schema_metadata({"bleustats.x": "1"})
    >>> table_digest(t) == table_digest(pa.concat_tables([t.slice(0, 1), t.slice(1)]))  # chunks do not matter
    True
    >>> table_digest(t) == table_digest(t.replace_schema_metadata({"bleustats.x": "2"}))
    False
    """
    digest = TableDigest(table.schema)
    digest.update(table)
    return digest.hexdigest()


def file_sha256(path: str | os.PathLike[Any]) -> str:
    """SHA-256 of a file's bytes as ``sha256:<hex>`` (read in 1 MiB blocks).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "x")
    >>> _ = open(p, "wb").write(b"abc")
    >>> file_sha256(p)
    'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    digest = hashlib.sha256()  # not hashlib.file_digest: that is Python 3.11+, and 3.10 is supported
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return _PREFIX + digest.hexdigest()
