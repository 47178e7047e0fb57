"""numba's cache locator and cache class for bleustats' kernels.

:class:`KernelCacheLocator` is named in ``NUMBA_CACHE_LOCATOR_CLASSES`` while
the kernels are decorated; :class:`KernelCache` replaces numba's
``FunctionCache`` of each kernel once its module has decorated them
(:meth:`bleustats._numba_cache.UserCache.restore`). Imported when a bleustats
kernel module decorates its kernels, so it may import numba at the top.
"""

from __future__ import annotations

from pathlib import Path

from numba.core import caching
from numba.core.runtime import rtsys

from ._numba_cache import kernel_cache_folder

__all__ = ["KernelCache", "KernelCacheLocator", "lean_loading_supported"]

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


class KernelCache(caching.FunctionCache):
    """numba's ``FunctionCache`` that loads a compiled kernel without first refreshing numba's whole compiler target.

    ``FunctionCache.load_overload`` calls ``target_context.refresh()`` before
    reading the cache: it imports and installs every implementation and typing
    registry numba has (the ``numba.np`` / ``numba.cpython`` / typed-container
    modules; about 0.2-0.3 s of CPU, a fifth of a WMT-sized ``bleustats score``
    process, ``benchmarks/results/wmt23.md``). Rebuilding a cached nopython
    kernel needs none of them: it unpickles the kernel's types and
    environments (each importing the module it names), links the saved object
    code and wraps its entry point; only numba's runtime (NRT, which the
    kernels allocate with) must be started. So this loader starts the runtime
    and reads the cache. Anything that compiles afterwards (a cache miss,
    another signature, a kernel of another package) goes through numba's
    compiler, which refreshes the target itself before typing anything.
    """

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


def lean_loading_supported() -> bool:
    """Whether this numba's ``FunctionCache`` has the internals :class:`KernelCache` relies on.

    Examples
    --------
    >>> isinstance(lean_loading_supported(), bool)
    True
    """
    return (caching.FunctionCache.load_overload is caching.Cache.load_overload
            and callable(getattr(caching.Cache, "_load_overload", None))
            and callable(getattr(caching.Cache, "_guard_against_spurious_io_errors", None))
            and callable(getattr(rtsys, "initialize", None)))
