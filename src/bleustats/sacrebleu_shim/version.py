"""``sacrebleu.version`` under the shim: the sacreBLEU version bleustats reproduces, and bleustats' own.

>>> __version__, version_tuple
('2.6.0', (2, 6, 0))
"""

from __future__ import annotations

from .._version import __version__ as BLEUSTATS_VERSION
from . import SACREBLEU_VERSION

__all__ = ["BLEUSTATS_VERSION", "__commit_id__", "__version__", "__version_tuple__", "commit_id", "version",
           "version_tuple"]

__version__ = version = SACREBLEU_VERSION
__version_tuple__ = version_tuple = tuple(int(x) for x in SACREBLEU_VERSION.split("."))
__commit_id__ = commit_id = None
