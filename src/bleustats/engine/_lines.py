"""Line-aligned text files read together, a chunk of lines at a time, into one buffer the encoder reads in place.

:func:`iter_line_buffers` is the reader of the statistics pipeline for plain
text files (``bleustats.compute_stats_files``, ``bleustats score REF -i HYP``).
Each file is read with ``readinto`` into its own reused buffer, its line ends
found eight bytes at a time
(:func:`bleustats.engine._encode_kernels.newline_ends`), and every chunk's
lines of all files are copied once into one padded buffer: the encoder reads
it in place as uint64 words, and no Arrow array, Python string or per-file
copy is made on the way (the route through :func:`bleustats.engine.io.iter_line_chunks`
split, validated, reordered and concatenated every byte several times).

Line ``j`` of file ``k`` in a chunk of ``n`` lines is
``data[offsets[k * n + j]:offsets[k * n + j + 1]]`` *with* its ``'\\n'``:
sacreBLEU tokenizes ``line.rstrip()`` and BLEU splits on whitespace, so the
line ends change no token; lines are split on ``'\\n'`` only, as sacreBLEU
reads files.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> for name, text in [("h", "a b\\nc\\n"), ("r", "a\\nc d")]:
...     _ = open(os.path.join(d, name), "w", encoding="utf-8").write(text)
>>> for first, n, data, offsets in iter_line_buffers([os.path.join(d, "h"), os.path.join(d, "r")]):
...     print(first, n, [data[a:b].tobytes() for a, b in zip(offsets[:-1], offsets[1:])])
0 2 [b'a b\\n', b'c\\n', b'a\\n', b'c d']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import pyarrow as pa

from ..errors import InputError
from . import io
from .encode import padded_buffer

__all__ = ["iter_line_buffers"]


class _LineFile:
    """One file's bytes, read block by block into a reused buffer, handed out a number of lines at a time."""

    def __init__(self, path: Path, block_bytes: int) -> None:
        self.fh = io.open_input(path)  # every read error (a truncated .gz too) is one InputError naming the file
        self.path = path
        self.block = block_bytes
        self.buf = padded_buffer(2 * block_bytes)
        self.capacity = 2 * block_bytes
        self.lo = self.hi = 0                  # the unread bytes are buf[lo:hi]
        self.ends = np.zeros(0, np.int64)      # ends of their complete lines (absolute positions)
        self.eof = False

    def _read(self) -> None:
        from .._kernel_cache import guarded
        from . import _encode_kernels as module

        _encode_kernels = guarded(module)
        if self.hi + self.block > self.capacity:  # move the unread bytes to the front, or grow
            keep = self.hi - self.lo
            if keep + self.block > self.capacity:
                self.capacity = max(2 * self.capacity, keep + self.block)
                buf = padded_buffer(self.capacity)
            else:
                buf = self.buf
            buf[:keep] = self.buf[self.lo:self.hi]  # numpy copies overlapping ranges correctly
            self.buf = buf
            self.ends = self.ends - self.lo
            self.lo, self.hi = 0, keep
        got = self.fh.readinto(memoryview(self.buf)[self.hi:self.hi + self.block])
        if not got:
            self.eof = True
            return
        new = _encode_kernels.newline_ends(self.buf, self.buf.view(np.uint64), self.hi, self.hi + got)
        self.ends = np.concatenate([self.ends, new]) if len(self.ends) else new
        self.hi += got

    def take(self, n_lines: int) -> tuple[np.ndarray, np.ndarray]:
        """The next ``n_lines`` lines (fewer at the end of the file): their bytes, and each line's end in them."""
        while len(self.ends) < n_lines and not self.eof:
            self._read()
        if len(self.ends) >= n_lines:
            ends, self.ends = self.ends[:n_lines], self.ends[n_lines:]
        else:  # end of file: the rest, with or without a final newline
            ends, self.ends = self.ends, np.zeros(0, np.int64)
            if self.hi > (ends[-1] if len(ends) else self.lo):
                ends = np.append(ends, self.hi)
        cut = int(ends[-1]) if len(ends) else self.lo
        region = self.buf[self.lo:cut]
        rel = ends - self.lo
        self.lo = cut
        return region, rel

    def close(self) -> None:
        self.fh.close()


def _check_utf8(region: np.ndarray, path: Path, first_line: int) -> None:
    """Raise InputError naming the line and byte when ``region`` is not valid UTF-8 (Arrow's validator)."""
    whole = pa.LargeStringArray.from_buffers(1, pa.py_buffer(np.array([0, len(region)], np.int64)),
                                             pa.py_buffer(region))
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        io.decode_utf8(region.tobytes(), str(path), first_line)  # raises, naming the line and byte
        raise


def iter_line_buffers(paths: Sequence[str | os.PathLike], chunk_lines: int = 100_000,
                      block_bytes: int = 1 << 24) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """Read line-aligned text files together, ``chunk_lines`` lines at a time, into one buffer.

    Yields ``(first, n, data, offsets)``: ``first`` is the index of the
    chunk's first line, ``n`` its number of lines in every file, ``data`` the
    lines of each file in turn (a padded buffer:
    ``data.view(numpy.uint64)`` is what the encoder reads), ``offsets`` the
    ``len(paths) * n + 1`` line offsets into it (see the module docstring).
    ``data`` is reused for the next chunk: use it before asking for the next.
    ``.gz`` files are decompressed on the fly; memory stays bounded by the chunk.

    Raises
    ------
    InputError
        If a file is missing or unreadable, is not UTF-8 (naming the line and
        byte), or the files do not have the same number of lines (naming each count).
    """
    files: list[_LineFile] = []
    try:
        for p in paths:
            files.append(_LineFile(Path(p), block_bytes))
        data = padded_buffer(0)
        first = 0
        while True:
            parts = [f.take(chunk_lines) for f in files]
            counts = [len(rel) for _, rel in parts]
            if len(set(counts)) > 1:
                raise InputError(
                    "the files do not have the same number of lines: "
                    + ", ".join(f"{f.path} has {'at least ' if c == chunk_lines else ''}{first + c}"
                                for f, c in zip(files, counts))
                    + "; every reference file needs one line per hypothesis line."
                )
            n = counts[0] if counts else 0
            if n == 0:
                return
            total = sum(len(region) for region, _ in parts)
            if len(data) < total + 24:
                data = padded_buffer(total + total // 4)
            offsets = np.empty(len(files) * n + 1, np.int64)
            offsets[0] = 0
            pos = 0
            for k, (f, (region, rel)) in enumerate(zip(files, parts)):
                _check_utf8(region, f.path, first + 1)
                data[pos:pos + len(region)] = region
                offsets[k * n + 1:(k + 1) * n + 1] = rel + pos
                pos += len(region)
            data[pos:pos + 24] = 0  # the words past the last line are read; keep them defined
            yield first, n, data, offsets
            first += n
            if n < chunk_lines:
                return
    finally:
        for f in files:
            f.close()
