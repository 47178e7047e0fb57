"""``sacrebleu.utils`` under the shim: sacreBLEU 2.6's helper functions, test sets from the local cache.

- file and number helpers with sacreBLEU's behaviour: :func:`smart_open`,
  :func:`my_log`, :func:`sum_of_lists`, :func:`args_to_dict`,
  :func:`sanity_check_lengths`;
- the command line's printers: :func:`print_single_results`,
  :func:`print_results_table` (bleustats' sacreBLEU output, without colour);
- test sets: :func:`get_source_file`, :func:`get_reference_files`,
  :func:`get_files`, :func:`download_test_set`, :func:`get_available_testsets`,
  :func:`get_langpairs_for_testset`, :func:`get_available_testsets_for_langpair`
  read the test sets already in sacreBLEU's cache, ``$SACREBLEU`` (default
  ``~/.sacrebleu``, :data:`SACREBLEU_DIR`). bleustats never downloads: a test
  set that is not there is an error that says so
  (:mod:`bleustats.sacrebleu_shim.dataset`).

Examples
--------
>>> sum_of_lists([[1, 2], [3, 4]]), my_log(0.0), round(my_log(1.0), 1)
([4, 6], -9999999999, 0.0)
"""

from __future__ import annotations

import argparse
import gzip
import logging
import math
import sys
from collections.abc import Sequence
from typing import IO, Any

from ..cli.sacrebleu_cli import print_results_table, print_single_results
from .dataset import DATASETS, SACREBLEU_DIR, USERHOME, no_such_test_set

__all__ = ["SACREBLEU_DIR", "USERHOME", "args_to_dict", "download_test_set", "get_available_testsets",
           "get_available_testsets_for_langpair", "get_files", "get_langpairs_for_testset",
           "get_reference_files", "get_source_file", "my_log", "print_results_table", "print_single_results",
           "sacrelogger", "sanity_check_lengths", "smart_open", "sum_of_lists"]

#: sacreBLEU's logger (its messages go where code that configured 'sacrebleu' logging expects them)
sacrelogger = logging.getLogger("sacrebleu")


def smart_open(file: str, mode: str = "rt", encoding: str = "utf-8") -> IO[Any]:
    """Open ``file`` as text (gzip-decompressed when its name ends in ``.gz``); newlines are kept as ``\\n``.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.gz")
    >>> with smart_open(path, "wt") as f: _ = f.write("a\\r\\nb\\n")
    >>> with smart_open(path) as f: f.read()
    'a\\r\\nb\\n'
    """
    if file.endswith(".gz"):
        return gzip.open(file, mode=mode, encoding=encoding, newline="\n")
    return open(file, mode=mode, encoding=encoding, newline="\n")


def my_log(num: float) -> float:
    r"""The natural log of ``num``, with :math:`\log 0` floored at -9999999999 (sacreBLEU's BLEU uses it).

    >>> my_log(0), round(my_log(math.e), 6)
    (-9999999999, 1.0)
    """
    if num == 0.0:
        return -9999999999
    return math.log(num)


def sum_of_lists(lists: Sequence[Sequence[Any]]) -> Any:
    """Element-wise sum of equally long numeric lists, in the type of the first element (one list: itself).

    >>> sum_of_lists([[1.5, 2], [1, 1]]), sum_of_lists([[7]])
    ([2.5, 3.0], [7])
    """
    if len(lists) == 1:
        return lists[0]
    size = len(lists[0])
    total = [type(lists[0][0])(0.0)] * size
    for values in lists:
        for i in range(size):
            total[i] += values[i]
    return total


def args_to_dict(args: argparse.Namespace, prefix: str, strip_prefix: bool = False) -> dict[str, Any]:
    """The arguments of ``args`` named ``<prefix>_...``, as a dict (``strip_prefix``: without the prefix).

    As sacreBLEU, ``strip_prefix`` removes every occurrence of ``<prefix>_`` in the name.

    >>> args_to_dict(argparse.Namespace(chrf_beta=2, chrf_whitespace=False, width=1), "chrf", strip_prefix=True)
    {'beta': 2, 'whitespace': False}
    """
    prefix += "_"
    return {(k.replace(prefix, "") if strip_prefix else k): v for k, v in vars(args).items() if k.startswith(prefix)}


def sanity_check_lengths(system: Sequence[str], refs: Sequence[Sequence[str]], test_set: str | None = None) -> None:
    """Exit with status 1 (sacreBLEU's command-line check) if a reference stream is not as long as ``system``.

    The reasons go to the ``sacrebleu`` logger, as sacreBLEU logs them.

    >>> sanity_check_lengths(["a", "b"], [["x", "y"]])
    """
    if all(len(stream) == len(system) for stream in refs):
        return
    sacrelogger.error("System and reference streams have different lengths.")
    if test_set:
        sacrelogger.error("This could be an issue with your system output or with sacreBLEU's reference database "
                          "if -t is given.")
        sacrelogger.error("For the latter, check the test set's files under:\n")
        sacrelogger.error(f"  {SACREBLEU_DIR}/{test_set}\n")
    sys.exit(1)


def _dataset(test_set: str) -> Any:
    if test_set not in DATASETS:
        raise no_such_test_set(test_set, SACREBLEU_DIR)
    return DATASETS[test_set]


def get_source_file(test_set: str, langpair: str) -> str:
    """The path of the source side of ``test_set``/``langpair`` in the local sacreBLEU cache."""
    return _dataset(test_set).get_source_file(langpair)


def get_reference_files(test_set: str, langpair: str) -> list[str]:
    """The paths of the references of ``test_set``/``langpair`` in the local sacreBLEU cache."""
    return _dataset(test_set).get_reference_files(langpair)


def get_files(test_set: str, langpair: str) -> list[str]:
    """The paths of every field (source, references, document ids, ...) of ``test_set``/``langpair``."""
    return _dataset(test_set).get_files(langpair)


def download_test_set(test_set: str, langpair: str | None = None) -> list[str]:
    """:func:`get_files` of a test set already in the cache (bleustats does not download)."""
    return _dataset(test_set).get_files(langpair)


def get_langpairs_for_testset(testset: str) -> list[str]:
    """The language pairs of ``testset`` found in the cache (``[]`` for a test set that is not there)."""
    return list(DATASETS[testset].langpairs) if testset in DATASETS else []


def get_available_testsets() -> list[str]:
    """The names of the test sets in the cache, in reverse alphabetical order (as sacreBLEU lists them)."""
    return sorted(DATASETS, reverse=True)


def get_available_testsets_for_langpair(langpair: str) -> list[str]:
    """The cached test sets that have ``langpair`` in either direction."""
    src, trg = langpair.split("-")[:2]
    return [d.name for d in DATASETS.values() if f"{src}-{trg}" in d.langpairs or f"{trg}-{src}" in d.langpairs]

