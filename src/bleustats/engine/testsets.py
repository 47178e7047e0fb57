"""The test sets already in sacreBLEU's local cache (``bleustats score -t/-l``, the shim's ``DATASETS``).

sacreBLEU keeps each test set it has downloaded as plain-text files, one per
field, under ``$SACREBLEU/<name>/`` (default ``~/.sacrebleu``), named
``<name>.<langpair>.<field>`` (``/`` in the name becomes ``_``, ``:`` in the
field ``-``): ``wmt14.de-en.src``, ``wmt14.de-en.ref``, ``wmt21.de-en.ref-A``,
``wmt14.de-en.docid``. :func:`scan_cache` finds every test set there and
gives one :class:`CachedTestSet` each, with sacreBLEU's methods
(``get_source_file``, ``get_reference_files``, ``get_files``, ``fieldnames``,
``source``, ``references``, ``langpairs``), reading the same files sacreBLEU
reads; ``bleustats score -t/-l`` and the shim's ``sacrebleu.dataset.DATASETS``
use it. bleustats never downloads: a test set or language pair that is not
in the cache is an :class:`~bleustats.errors.InputError` saying where it was
looked for and how to get it there.

Field order: ``src``, then the references (``ref``, or ``ref:A``,
``ref:B``... sorted), then the other fields sorted.

Examples
--------
>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> os.makedirs(os.path.join(root, "wmt99"))
>>> for f in ("src", "ref-B", "ref-A", "docid"):
...     open(os.path.join(root, "wmt99", f"wmt99.de-en.{f}"), "w").close()
>>> sets = scan_cache(root)
>>> sets["wmt99"].fieldnames("de-en")
['src', 'ref:A', 'ref:B', 'docid']
>>> [os.path.basename(p) for p in sets["wmt99"].get_reference_files("de-en")]
['wmt99.de-en.ref-A', 'wmt99.de-en.ref-B']
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..errors import InputError

__all__ = ["CachedTestSet", "cache_dir", "no_such_test_set", "scan_cache"]


def cache_dir() -> str:
    """sacreBLEU's cache folder now: ``$SACREBLEU``, else ``~/.sacrebleu``."""
    return os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))

#: folders of the cache that hold no test set (downloads and tokenizer models)
_NOT_TEST_SETS = {"raw", "models"}


def _field_key(field: str) -> tuple[int, str]:
    return (0 if field == "src" else 1 if field == "ref" or field.startswith("ref:") else 2, field)


class CachedTestSet:
    """One test set of the local sacreBLEU cache, with the methods of sacreBLEU's ``Dataset``.

    Parameters
    ----------
    name : str
        The test set's name (``'wmt14'``, ``'wmt21/dev'``).
    langpairs : dict of str to list of str
        Language pair -> its fields (``['src', 'ref', 'docid']``), in sacreBLEU's order.
    root : str
        The cache folder.
    """

    def __init__(self, name: str, langpairs: dict[str, list[str]], root: str) -> None:
        self.name = name
        self.langpairs = langpairs
        self.data: list[str] = []  # sacreBLEU's download URLs: not known to bleustats
        self.description = self.citation = self.md5 = None
        self._outdir = os.path.join(root, name)

    def __repr__(self) -> str:
        return f"CachedTestSet({self.name!r}, langpairs={sorted(self.langpairs)})"

    def _langpair(self, langpair: str | None) -> str:
        if langpair not in self.langpairs:
            raise InputError(f"test set {self.name!r}: language pair {langpair!r} is not in the local sacreBLEU "
                             f"cache ({self._outdir}); it has {', '.join(sorted(self.langpairs)) or 'none'}.")
        return langpair

    def _get_txt_file_path(self, langpair: str, fieldname: str) -> str:
        return os.path.join(self._outdir, f"{self.name.replace('/', '_')}.{langpair}.{fieldname.replace(':', '-')}")

    def fieldnames(self, langpair: str) -> list[str]:
        """The fields of ``langpair``: ``src``, the references, then document ids and the like."""
        return list(self.langpairs[self._langpair(langpair)])

    def get_files(self, langpair: str | None) -> list[str]:
        """The path of every field of ``langpair``, in :meth:`fieldnames` order."""
        return [self._get_txt_file_path(langpair, f) for f in self.fieldnames(langpair)]

    def get_source_file(self, langpair: str) -> str:
        """The path of the source side."""
        fields = self.fieldnames(langpair)
        if "src" not in fields:
            raise InputError(f"test set {self.name!r} {langpair}: the cache has no source file "
                             f"({self._get_txt_file_path(langpair, 'src')}).")
        return self._get_txt_file_path(langpair, "src")

    def get_reference_files(self, langpair: str) -> list[str]:
        """The paths of the references (fields ``ref`` / ``ref:*``)."""
        return [self._get_txt_file_path(langpair, f) for f in self.fieldnames(langpair) if f.startswith("ref")]

    def source(self, langpair: str) -> Iterator[str]:
        """The source lines, stripped."""
        with open(self.get_source_file(langpair), encoding="utf-8", newline="\n") as fin:
            for line in fin:
                yield line.strip()

    def references(self, langpair: str) -> Iterator[tuple[str, ...]]:
        """The references of each segment, one tuple of lines (with their newlines) per segment."""
        files = [open(p, encoding="utf-8", newline="\n") for p in self.get_reference_files(langpair)]
        try:
            yield from zip(*files)
        finally:
            for f in files:
                f.close()


def scan_cache(root: str | None = None) -> dict[str, CachedTestSet]:
    """Every test set found under ``root`` (a sacreBLEU cache folder), by name; ``{}`` if there is none."""
    root = cache_dir() if root is None else root
    found: dict[str, dict[str, list[str]]] = {}
    if not os.path.isdir(root):
        return {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (folder == root and d in _NOT_TEST_SETS) and d != "raw")
        name = os.path.relpath(folder, root).replace(os.sep, "/")
        stem = name.replace("/", "_") + "."
        for file in files:
            if name == "." or not file.startswith(stem) or file.count(".") < 2:
                continue
            langpair, field = file[len(stem):].rsplit(".", 1)
            if "." in langpair or "-" not in langpair:
                continue
            field = "ref:" + field[4:] if field.startswith("ref-") else field
            found.setdefault(name, {}).setdefault(langpair, []).append(field)
    return {name: CachedTestSet(name, {lp: sorted(fields, key=_field_key) for lp, fields in sorted(pairs.items())},
                                root)
            for name, pairs in sorted(found.items())}


def no_such_test_set(test_set: str, root: str | None = None) -> InputError:
    """The error for a test set that is not in the local cache ``root`` (bleustats reads, never downloads)."""
    root = cache_dir() if root is None else root
    return InputError(f"test set {test_set!r} is not in the local sacreBLEU cache ({root}, from $SACREBLEU "
                      "or ~/.sacrebleu); bleustats does not download. Fetch it once with sacreBLEU where the "
                      f"network is reachable (sacrebleu -t {test_set} -l LANGPAIR --echo src > /dev/null) and "
                      "copy the folder there, or pass the reference files themselves.")

