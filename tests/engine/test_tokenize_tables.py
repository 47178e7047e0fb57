"""The tokenizer kernels' code-point tables are read from a per-user cache file when one is there.

Building them costs ~0.06 s per process (a tenth of a 10,000-segment job), so
:func:`bleustats.engine._tokenize_tables.code_point_tables` keeps them in a
file named by a hash of everything they depend on. A cache may only save time:
what it returns must equal a fresh build, and a damaged, foreign or unwritable
cache must cost the build and nothing else.
"""

from __future__ import annotations

import os
import sys
import zipfile

import numpy as np
import pytest

from bleustats.engine import _tokenize_tables as T


def _use_cache_root(monkeypatch, root) -> None:
    """bleustats' user cache folder under ``root`` (``$XDG_CACHE_HOME``, as on Linux)."""
    from bleustats import _kernel_cache

    monkeypatch.setattr(_kernel_cache.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    _use_cache_root(monkeypatch, tmp_path)
    T.code_point_tables.cache_clear()
    yield tmp_path / "bleustats"
    T.code_point_tables.cache_clear()


@pytest.fixture(scope="module")
def built() -> T.CodePointTables:
    return T.build_code_point_tables()


def _same(a: T.CodePointTables, b: T.CodePointTables) -> bool:
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def test_first_use_builds_and_saves_then_reads_the_same_tables(cache_folder, built) -> None:
    umask = os.umask(0o022)  # the file's permissions follow the umask, as every file bleustats writes
    try:
        first = T.code_point_tables()
    finally:
        os.umask(umask)
    assert _same(first, built)
    (saved,) = _files(cache_folder)
    assert saved.startswith("tokenizer-tables-") and saved.endswith(".npz")
    assert (cache_folder / saved).stat().st_mode & 0o777 == 0o644  # other users of a shared cache can read it
    T.code_point_tables.cache_clear()
    read = T._read(cache_folder / saved)
    assert read is not None and _same(read, built)
    again = T.code_point_tables()
    assert _same(again, built) and all(not a.flags.writeable for a in again)


def test_the_file_is_named_by_python_unicode_regex_and_source(cache_folder, monkeypatch) -> None:
    name = T._cache_file().name
    monkeypatch.setattr(T.sys, "version", sys.version + " (another build)")
    assert T._cache_file().name != name
    monkeypatch.undo()
    _use_cache_root(monkeypatch, cache_folder.parent)
    monkeypatch.setattr(T.unicodedata, "unidata_version", "0.0.0")
    assert T._cache_file().name != name


def _zip_header_patch(raw: bytes, offset_in_central: int, value: bytes) -> bytes:
    """``raw`` with the first central-directory entry's bytes at ``offset_in_central`` replaced."""
    at = raw.index(b"PK\x01\x02") + offset_in_central
    return raw[:at] + value + raw[at + len(value):]


DAMAGES = ["truncated", "not a zip", "bit flipped", "wrong shape", "pickled", "unknown compression", "encrypted",
           "a bare .npy", "expansions disagree with flags"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_cache_file_is_rebuilt_and_replaced(cache_folder, built, damage) -> None:
    path = T._cache_file()
    T._write(path, built)
    raw = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "not a zip":
        path.write_bytes(b"hello")
    elif damage == "bit flipped":  # inside the stored blocks array: the zip's CRC catches it
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("blocks.npy")
        at = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
        path.write_bytes(raw[:at] + bytes([raw[at] ^ 0x10]) + raw[at + 1 :])
    elif damage == "wrong shape":
        np.savez(path.open("wb"), **{**built._asdict(), "index": built.index[:-1]})
    elif damage == "pickled":
        np.savez(path.open("wb"), **{**built._asdict(), "blocks": np.array([object()])})
    elif damage == "unknown compression":  # zipfile: NotImplementedError
        path.write_bytes(_zip_header_patch(raw, 10, (99).to_bytes(2, "little")))
    elif damage == "encrypted":  # zipfile: RuntimeError (a password is required)
        path.write_bytes(_zip_header_patch(raw, 8, b"\x01\x00"))
    elif damage == "a bare .npy":  # np.load returns an array, not an archive
        np.save(path.open("wb"), built.blocks)
    else:  # a valid archive whose expansion keys are not the code points flagged as expanding
        np.savez(path.open("wb"), **{**built._asdict(), "expand_keys": built.expand_keys + 1})
    assert T._read(path) is None
    assert _same(T.code_point_tables(), built)
    assert _same(T._read(path), built)  # replaced by the rebuilt tables
    assert _files(cache_folder) == [path.name]  # no temporary left


def test_an_unwritable_cache_folder_costs_only_the_build(tmp_path, monkeypatch, built) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    from bleustats import _kernel_cache

    _use_cache_root(monkeypatch, blocker / "cache")
    monkeypatch.setattr(_kernel_cache.tempfile, "tempdir", str(blocker / "tmp"))  # the fallback folder too
    T.code_point_tables.cache_clear()
    try:
        assert _same(T.code_point_tables(), built)
    finally:
        T.code_point_tables.cache_clear()
    assert blocker.read_text() == "not a folder"


def test_concurrent_writers_leave_one_whole_file(cache_folder, built) -> None:
    path = T._cache_file()
    for _ in range(3):  # each write replaces the file whole (temporary + rename)
        T._write(path, built)
    assert _files(cache_folder) == [path.name]
    assert _same(T._read(path), built)
    assert not [p for p in os.listdir(cache_folder) if p.endswith(".tmp")]
