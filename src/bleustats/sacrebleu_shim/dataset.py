"""``sacrebleu.dataset`` under the shim: ``DATASETS``, the test sets already in sacreBLEU's local cache.

The cache folder is ``$SACREBLEU`` (default ``~/.sacrebleu``), read once at
import as sacreBLEU does; :mod:`bleustats.engine.testsets` reads it (the
files, the field order, the errors for what is not there).

>>> isinstance(DATASETS, dict)
True
"""

from __future__ import annotations

import os

from ..engine.testsets import CachedTestSet, cache_dir, no_such_test_set, scan_cache

__all__ = ["DATASETS", "SACREBLEU_DIR", "USERHOME", "CachedTestSet", "no_such_test_set"]

USERHOME = os.path.expanduser("~")
#: sacreBLEU's cache folder, as it was when this module was imported
SACREBLEU_DIR = cache_dir()
#: the test sets of the local cache, by name (sacreBLEU's ``DATASETS`` lists every test set it can download)
DATASETS: dict[str, CachedTestSet] = scan_cache(SACREBLEU_DIR)
