"""numba's cache locator for bleustats' kernels (named in ``NUMBA_CACHE_LOCATOR_CLASSES`` while they are decorated).

Imported by numba only, when a bleustats kernel module decorates its kernels
(:class:`bleustats._numba_cache.UserCache`), so it may import numba at the top.
"""

from __future__ import annotations

from pathlib import Path

from numba.core import caching

from ._numba_cache import kernel_cache_folder

__all__ = ["KernelCacheLocator"]

_PACKAGE = Path(__file__).resolve().parent


class KernelCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Caches a bleustats kernel in :func:`~bleustats._numba_cache.kernel_cache_folder`, whatever the install path.

    numba still stamps each kernel's index with its file's content hash
    (``_SourceFileBackedLocatorMixin``), and keys each entry by signature,
    CPU and bytecode; files outside the package are left to numba's other
    locators.
    """

    def __init__(self, py_func, py_file) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = kernel_cache_folder()

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(_PACKAGE)
        except (OSError, ValueError):
            inside = False
        return super().from_function(py_func, py_file) if inside else None
