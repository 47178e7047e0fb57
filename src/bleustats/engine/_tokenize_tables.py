"""Code-point tables for the byte-level tokenizer kernels (private).

The kernels in :mod:`bleustats.engine._tokenize_kernels` need, for every code
point, the few properties that sacreBLEU's BLEU preprocessing asks about:

* the Unicode classes ``\\p{N}``, ``\\p{P}`` and ``\\p{S}`` exactly as the
  ``regex`` module (the one sacreBLEU's ``intl`` tokenizer uses) defines them;
* whether :meth:`str.split` splits on it (:meth:`str.isspace`);
* whether sacreBLEU's ``zh`` tokenizer spaces it out (its "Chinese" ranges);
* its :meth:`str.lower` mapping (one code point, or several, as for 'İ'), and
  the two properties CPython's ``str.lower`` consults for the one
  context-dependent mapping, GREEK CAPITAL LETTER SIGMA (final sigma):
  "case-ignorable" and "cased".

Nothing is hard-coded: every table is derived here from the running
interpreter and the installed ``regex``, so the kernels agree with the Python
reference (:func:`bleustats.tokenizers.tokenize_lines`) and with sacreBLEU for
whatever Unicode version those two use.  Each property comes from one
vectorized call over a string holding every code point (the case properties:
every code point of the planes that have case): about 0.06 s on one core
(:func:`build_code_point_tables`), which would be a tenth of a small job's
whole process.  :func:`code_point_tables` therefore keeps the result in a file
of bleustats' per-user cache folder (:func:`bleustats._kernel_cache.user_cache_dir`)
whose name is a hash of everything the tables depend on:
this module's source, the ``zh`` ranges, the Python version and its Unicode
database, and ``regex``'s version.  Another Python, ``regex`` or bleustats
therefore never reads them; a file that does not read back as valid tables is
built again and replaced (written to a temporary file and renamed, so
concurrent processes never see half a file; the umask gives its permissions);
a folder that cannot be written only costs the build.  Within a process the tables are built or read once.

Layout
------
One int32 *entry* per code point::

    entry = (lower_delta << 8) | flags

``lower_delta`` is ``ord(c.lower()) - ord(c)`` when the lowercase is one code
point, else 0 with :data:`FLAG_LOWER_EXPANDS` set (the expansion is then in
``expand_keys`` / ``expand_offsets`` / ``expand_cps``).  Entries are stored in
two stages, as Unicode property tables usually are: ``index[cp >> 8]`` names a
256-entry block of ``blocks``; identical blocks are stored once (about 80 kB in
all instead of 4.4 MB).
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import unicodedata
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._kernel_cache import user_cache_dir
from ..tokenizers.tokenizer_zh import CHINESE_RANGES

__all__ = [
    "FLAG_CASED",
    "FLAG_CASE_IGNORABLE",
    "FLAG_CHINESE",
    "FLAG_LOWER_EXPANDS",
    "FLAG_NUMBER",
    "FLAG_PUNCT",
    "FLAG_SPACE",
    "FLAG_SYMBOL",
    "CodePointTables",
    "build_code_point_tables",
    "code_point_tables",
    "entry_of",
]

FLAG_NUMBER = 1  # regex \p{N}
FLAG_PUNCT = 2  # regex \p{P}
FLAG_SYMBOL = 4  # regex \p{S}
FLAG_SPACE = 8  # str.isspace(): what str.split() splits on
FLAG_CASED = 16  # cased and not case-ignorable (ends a final-sigma context scan as "cased")
FLAG_CASE_IGNORABLE = 32  # skipped by the final-sigma context scan
FLAG_CHINESE = 64  # spaced out by sacreBLEU's zh tokenizer (bleustats.tokenizers.tokenizer_zh.CHINESE_RANGES)
FLAG_LOWER_EXPANDS = 128  # str.lower() gives more than one code point

N_CODE_POINTS = 0x110000
_BLOCK_BITS = 8
_SIGMA = 0x3A3


class CodePointTables(NamedTuple):
    """The arrays the kernels take (as one tuple argument)."""

    index: np.ndarray  # int32[0x110000 >> 8]: block number of each 256-code-point page
    blocks: np.ndarray  # int32[n_blocks * 256]: entries, (lower_delta << 8) | flags
    expand_keys: np.ndarray  # int32[k]: code points whose lowercase has several code points, sorted
    expand_offsets: np.ndarray  # int64[k + 1]: their lowercase in expand_cps[off[i]:off[i + 1]]
    expand_cps: np.ndarray  # int32[...]


def _all_code_points(columns: list[np.ndarray]) -> str:
    """One string of ``len(columns)`` code points per row, rows in order (surrogates allowed)."""
    grid = np.stack(columns, axis=1).astype("<u4")
    return grid.tobytes().decode("utf-32-le", "surrogatepass")


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), "<u4").astype(np.int64)


def _per_row(text: str, n_rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split ``text``, made of ``n_rows`` pieces each ending in NUL, into its pieces.

    Returns the code points and each piece's start and length (the NUL excluded).
    """
    cps = _code_points(text)
    ends = np.flatnonzero(cps == 0)
    if len(ends) != n_rows:  # pragma: no cover - would mean a character lowercases to NUL
        raise RuntimeError(f"expected {n_rows} NUL-terminated pieces, found {len(ends)}")
    starts = np.r_[0, ends[:-1] + 1]
    return cps, starts, ends - starts


def _class_flags(everything: str, flags: np.ndarray) -> None:
    import regex  # only here: a process that reads the cached tables never imports it (~20 ms)

    for name, flag in (("N", FLAG_NUMBER), ("P", FLAG_PUNCT), ("S", FLAG_SYMBOL)):
        for m in regex.finditer(rf"\p{{{name}}}+", everything):
            flags[m.start() : m.end()] |= flag
    # The stdlib's \s on str patterns is Py_UNICODE_ISSPACE, i.e. str.isspace();
    # tests/engine/test_tokenize_kernels.py checks every code point.
    for m in re.finditer(r"\s+", everything):
        flags[m.start() : m.end()] |= FLAG_SPACE


def _lowercase(cps: np.ndarray, flags: np.ndarray, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fill ``delta[cps]`` (one-code-point lowercases) and return the expansions.

    Each code point is lowercased on its own between NULs, so context (final
    sigma) never applies here: U+03A3 gets its context-free 'σ'.
    """
    inputs = np.where(cps == 0, ord("a"), cps)  # NUL would end its piece early; it lowercases to itself
    low, starts, lengths = _per_row(_all_code_points([inputs, np.zeros_like(inputs)]).lower(), len(cps))
    single = (lengths == 1) & (cps != 0)
    delta[cps[single]] = low[starts[single]] - cps[single]
    multi = np.flatnonzero(lengths != 1)
    flags[cps[multi]] |= FLAG_LOWER_EXPANDS
    offsets = np.zeros(len(multi) + 1, np.int64)
    np.cumsum(lengths[multi], out=offsets[1:])
    expanded = np.concatenate([low[starts[i] : starts[i] + lengths[i]] for i in multi]) if len(multi) else np.zeros(0)
    return cps[multi].astype(np.int32), offsets, expanded.astype(np.int32)


def _sigma_context(cps: np.ndarray, flags: np.ndarray) -> None:
    """Set FLAG_CASE_IGNORABLE / FLAG_CASED of ``cps`` as CPython's final-sigma rule sees them.

    ``str.lower`` maps U+03A3 to final 'ς' iff a cased character precedes it
    and none follows it, skipping case-ignorable characters both ways.  With
    'A' cased and NUL neither cased nor case-ignorable:

    * 'AcΣ' ends in 'ς' iff c is case-ignorable or cased;
    * 'AΣc' has 'ς' iff c is case-ignorable or not cased.

    Both hold iff c is case-ignorable (then whether it is cased never matters:
    the scans skip it); only the first iff c is cased and not case-ignorable.
    """
    inputs = np.where(cps == 0, ord(" "), cps)  # NUL: neither cased nor case-ignorable, like the space
    a = np.full_like(inputs, ord("A"))
    sigma = np.full_like(inputs, _SIGMA)
    nul = np.zeros_like(inputs)
    low, starts, lengths = _per_row(_all_code_points([a, inputs, sigma, nul]).lower(), len(cps))
    after = low[starts + lengths - 1] == 0x3C2  # 'AcΣ': Σ is the piece's last character
    low, starts, _ = _per_row(_all_code_points([a, sigma, inputs, nul]).lower(), len(cps))
    before = low[starts + 1] == 0x3C2  # 'AΣc': Σ is the piece's second character
    flags[cps[after & before]] |= FLAG_CASE_IGNORABLE
    flags[cps[after & ~before]] |= FLAG_CASED


def _check_bounds(cps: np.ndarray, flags: np.ndarray, delta: np.ndarray,
                  expand_keys: np.ndarray, expand_offsets: np.ndarray, expand_cps: np.ndarray) -> None:
    """The kernels' buffer sizes rely on these (for the code points ``cps`` that have a lowercase)."""
    def utf8_len(c: np.ndarray) -> np.ndarray:
        return 1 + (c >= 0x80) + (c >= 0x800) + (c >= 0x10000)

    cps = cps[(cps < 0xD800) | (cps > 0xDFFF)]
    low = cps + delta[cps]
    low_bytes = utf8_len(low)
    low_cps = np.ones_like(cps)
    position = np.searchsorted(cps, expand_keys)
    for i, key in enumerate(expand_keys):
        piece = expand_cps[expand_offsets[i] : expand_offsets[i + 1]].astype(np.int64)
        low_bytes[position[i]] = utf8_len(piece).sum()
        low_cps[position[i]] = len(piece)
        if (flags[piece] & FLAG_SPACE).any():  # pragma: no cover
            raise RuntimeError(f"the lowercase of U+{key:04X} contains whitespace")
    src_bytes = utf8_len(cps)
    problems = []
    if ((low < 0) | (low >= N_CODE_POINTS)).any():  # pragma: no cover
        problems.append("a lowercase outside the code space")
    if (2 * low_bytes > 3 * src_bytes).any():  # pragma: no cover
        problems.append("a lowercase more than 1.5 times as long in UTF-8")
    if (low_cps > src_bytes).any():  # pragma: no cover
        problems.append("a lowercase with more code points than the character has UTF-8 bytes")
    single = (flags[cps] & FLAG_LOWER_EXPANDS) == 0
    space = (flags & FLAG_SPACE) != 0
    if (space[cps[single]] != space[low[single]]).any():  # pragma: no cover
        problems.append("a lowercase that changes whether a character is whitespace")
    if problems:  # pragma: no cover
        raise RuntimeError("bleustats' tokenizer kernels cannot handle this Python's str.lower(): "
                           + "; ".join(problems))


def build_code_point_tables() -> CodePointTables:
    """Derive the tables the tokenizer kernels read from this Python and ``regex`` (no cache).

    Returns
    -------
    CodePointTables
        Read-only arrays; see the module docstring for the layout.
    """
    cps = np.arange(N_CODE_POINTS, dtype=np.int64)
    flags = np.zeros(N_CODE_POINTS, np.int64)
    delta = np.zeros(N_CODE_POINTS, np.int64)
    everything = _all_code_points([cps])
    _class_flags(everything, flags)
    # Case only exists in planes 0, 1 and 14 (tags, variation selectors): the
    # other planes hold CJK ideographs, private use and unassigned code points,
    # which are neither cased nor case-ignorable and lowercase to themselves
    # (a fifth of the work; the tests check every code point against str.lower).
    case_cps = cps[(cps >> 16 <= 1) | (cps >> 16 == 14)]
    expand_keys, expand_offsets, expand_cps = _lowercase(case_cps, flags, delta)
    _sigma_context(case_cps, flags)
    for first, last in CHINESE_RANGES:
        flags[first : last + 1] |= FLAG_CHINESE
    surrogates = slice(0xD800, 0xE000)  # cannot occur in valid UTF-8
    flags[surrogates] = 0
    delta[surrogates] = 0
    _check_bounds(case_cps, flags, delta, expand_keys, expand_offsets, expand_cps)

    entries = (delta << 8) | flags
    if entries.min() < -(2**31) or entries.max() >= 2**31:  # pragma: no cover
        raise RuntimeError("lowercase deltas do not fit the int32 table entries")
    pages = entries.astype(np.int32).reshape(-1, 1 << _BLOCK_BITS)
    numbers: dict[bytes, int] = {}  # first occurrence of each distinct page
    index = np.array([numbers.setdefault(page.tobytes(), len(numbers)) for page in pages], np.int32)
    firsts = np.unique(index, return_index=True)[1]
    tables = CodePointTables(
        index=index,
        blocks=np.ascontiguousarray(pages[firsts].reshape(-1)),
        expand_keys=expand_keys,
        expand_offsets=expand_offsets,
        expand_cps=expand_cps,
    )
    for array in tables:
        array.setflags(write=False)
    return tables


def _cache_file() -> Path:
    """The cache file of this Python, ``regex``, ``zh`` ranges and tables source."""
    key = hashlib.sha256()
    for part in (Path(__file__).read_bytes(), repr(CHINESE_RANGES).encode(), sys.version.encode(),
                 unicodedata.unidata_version.encode(), _regex_version().encode()):
        key.update(part)
        key.update(b"\0")
    return Path(user_cache_dir()) / f"tokenizer-tables-{key.hexdigest()[:32]}.npz"


def _regex_version() -> str:
    """The installed ``regex``'s version, from its metadata (no import), else from the module itself."""
    from importlib import metadata

    try:
        return metadata.version("regex")
    except metadata.PackageNotFoundError:  # a copy without metadata (vendored, frozen): ask the module
        import regex

        return str(getattr(regex, "__version__", ""))


def _valid(tables: CodePointTables) -> bool:
    """Whether arrays read back from a cache file have the shapes and types the kernels assume."""
    index, blocks, keys, offsets, cps = tables
    return (index.dtype == np.int32 and index.shape == (N_CODE_POINTS >> _BLOCK_BITS,)
            and blocks.dtype == np.int32 and blocks.ndim == 1 and len(blocks) > 0
            and len(blocks) % (1 << _BLOCK_BITS) == 0
            and int(index.min()) >= 0 and int(index.max()) < len(blocks) >> _BLOCK_BITS
            and keys.dtype == np.int32 and offsets.dtype == np.int64 and cps.dtype == np.int32
            and keys.ndim == offsets.ndim == cps.ndim == 1 and len(offsets) == len(keys) + 1
            and int(offsets[0]) == 0 and int(offsets[-1]) == len(cps) and bool((np.diff(offsets) > 0).all())
            and _expansions_consistent(index, blocks, keys, cps))


def _expansions_consistent(index: np.ndarray, blocks: np.ndarray, keys: np.ndarray, cps: np.ndarray) -> bool:
    """The kernels binary-search ``keys`` for every code point flagged FLAG_LOWER_EXPANDS: both must agree."""
    if len(keys) and (int(keys.min()) < 0 or int(keys.max()) >= N_CODE_POINTS or (np.diff(keys) <= 0).any()):
        return False
    if len(cps) and (int(cps.min()) < 0 or int(cps.max()) >= N_CODE_POINTS):
        return False
    flagged = (blocks.reshape(-1, 1 << _BLOCK_BITS)[index] & FLAG_LOWER_EXPANDS).reshape(-1) != 0
    return bool(np.array_equal(np.flatnonzero(flagged), keys))


def _read(path: Path) -> CodePointTables | None:
    """The tables saved at ``path``, or None when it is absent or does not read back as valid tables."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            tables = CodePointTables(*(np.ascontiguousarray(npz[name]) for name in CodePointTables._fields))
        if not _valid(tables):
            return None
    except Exception:  # noqa: BLE001 - only a cache: absent, unreadable, damaged (CRC), foreign or not a zip at all
        return None
    for array in tables:
        array.setflags(write=False)
    return tables


def _write(path: Path, tables: CodePointTables) -> None:
    """Save ``tables`` under ``path`` whole or not at all (:func:`bleustats.engine.io.write_atomic`).

    The file gets the permissions the umask gives; a cache that cannot be
    written is skipped.
    """
    from . import io  # here: only a cache miss writes

    def save(tmp: str) -> None:
        with open(tmp, "wb") as out:  # a file object: given a name, np.savez would append '.npz' to it
            np.savez(out, **tables._asdict())

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        io.write_atomic(path, save)
    except OSError:
        pass


@functools.lru_cache(maxsize=1)
def code_point_tables() -> CodePointTables:
    """The tables the tokenizer kernels read: from the cache file, else built and saved (once per process).

    Returns
    -------
    CodePointTables
        Read-only arrays equal to :func:`build_code_point_tables`'s; see the module docstring.
    """
    try:
        path = _cache_file()
    except (OSError, RuntimeError):  # no cache folder can be named
        return build_code_point_tables()
    tables = _read(path)
    if tables is None:
        tables = build_code_point_tables()
        _write(path, tables)
    return tables


def entry_of(tables: CodePointTables, cp: int) -> int:
    """The table entry of one code point (plain Python; for tests and debugging).

    >>> t = code_point_tables()
    >>> entry_of(t, ord("5")) & FLAG_NUMBER, entry_of(t, ord("A")) >> 8
    (1, 32)
    """
    return int(tables.blocks[(int(tables.index[cp >> _BLOCK_BITS]) << _BLOCK_BITS) | (cp & 0xFF)])
