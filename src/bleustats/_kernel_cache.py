"""bleustats' compiled kernels in numba's cache: the notice when they compile, and a broken cache set aside.

Every kernel is decorated ``njit(cache=True, ...)`` and nothing more, so numba's documented
cache decides where the compiled code lives: the folder named by
``NUMBA_CACHE_DIR`` when it is set, else ``__pycache__`` beside the kernel's
source file when that folder can be written, else numba's user-wide cache
folder. A wheel built from this repository carries the kernels compiled on the
machine that built it in those ``__pycache__`` folders (``setup.py`` runs
:mod:`bleustats._warm`), where numba's lookup finds them after installing; a
CPU, Python or numba other than the build's compiles on first use.

numba stamps a kernel's cache with its own source file only. A kernel module
that compiles in constants or kernels of another bleustats file says so in its
``COMPILED_IN`` table (file → the first 16 hex digits of its SHA-256;
``tests/test_kernel_cache.py`` checks every entry), so a change to that file
changes the kernel module too and its cache is compiled again.

The rest of this module is what a command sees of the cache:

- :func:`announce_compiles`: one line on stderr when a bleustats kernel starts
  compiling (numba's event API), with a counter on a terminal;
  ``BLEUSTATS_QUIET_COMPILE=1`` keeps it quiet.
- :func:`guarded`: the kernel modules as their callers use them. A call whose
  cache files cannot be read (cut short, unreadable, foreign) does not fail:
  the files are moved aside into an ``unreadable-<time>`` folder beside them,
  with one line on stderr naming it, and the kernel compiles again (numba
  documents removing cache files as the way to clear its cache).
- :func:`user_cache_dir`: the per-user folder for bleustats' own cached data
  (the tokenizer's code-point tables), not numba's.

Examples
--------
>>> from bleustats.engine import _encode_kernels
>>> kernels = guarded(_encode_kernels)
>>> int(kernels.table_bits(100)), guarded(_encode_kernels) is kernels
(8, True)
"""

from __future__ import annotations

import getpass
import io
import os
import pickletools
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["announce_compiles", "guarded", "user_cache_dir"]


def _platform_cache_root() -> Path:
    """The user's cache folder of this platform (no third-party dependency)."""
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    if sys.platform == "darwin":
        return home / "Library" / "Caches"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg) if os.path.isabs(xdg) else home / ".cache"  # XDG: a relative value is ignored


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def user_cache_dir() -> str:
    """bleustats' folder for cached data: the platform's user cache folder plus ``bleustats``.

    ``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux and other POSIX systems,
    ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows; when that
    cannot be written, ``bleustats-<user>`` in the temporary folder.

    Examples
    --------
    >>> Path(user_cache_dir()).name.startswith("bleustats")
    True
    """
    try:
        folder = _platform_cache_root() / "bleustats"
    except RuntimeError:  # no home folder can be determined
        folder = None
    if folder is not None and _writable(folder):
        return str(folder)
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - getuser raises several types when no name is known
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return str(Path(tempfile.gettempdir()) / f"bleustats-{user}")


# --------------------------------------------------------------------------- the compile notice


class _CompileNotice:
    """Receives numba's compile events: one line on stderr when the first bleustats kernel compiles."""

    def __init__(self) -> None:
        self.said = False
        self.compiled = 0
        self.tty = False
        self.start = 0.0
        self.depth = 0  # a kernel's compile compiles its callees inside it

    @staticmethod
    def _ours(event: Any) -> bool:
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        return module.startswith("bleustats.")

    def on_start(self, event: Any) -> None:
        if not self._ours(event):
            return
        self.depth += 1
        if self.said:
            return
        self.said = True
        if os.environ.get("BLEUSTATS_QUIET_COMPILE", "") == "1":  # scripts and test suites that want stderr clean
            return
        self.tty = sys.stderr.isatty()
        self.start = time.perf_counter()
        print("bleustats: compiling kernels once for this machine (about 10-90 s); later runs load them from "
              "numba's cache", file=sys.stderr, flush=True)

    def on_end(self, event: Any) -> None:
        if not self._ours(event):
            return
        self.depth = max(0, self.depth - 1)
        if not self.start:  # quiet, or nothing said
            return
        self.compiled += 1
        if self.tty:  # a counter while compiling, erased once the outermost kernel is compiled
            line = f"bleustats: {self.compiled} kernels compiled, {time.perf_counter() - self.start:.0f} s"
            print("\r\x1b[K" if self.depth == 0 else f"\r{line}", end="", file=sys.stderr, flush=True)


_NOTICE: _CompileNotice | None = None
_NOTICE_LOCK = threading.Lock()


def announce_compiles() -> None:
    """Say on stderr, once per process, when a bleustats kernel starts compiling (numba's event API).

    ``BLEUSTATS_QUIET_COMPILE=1`` in the environment keeps it quiet.
    """
    global _NOTICE
    with _NOTICE_LOCK:
        if _NOTICE is not None:
            return
        from numba.core import event

        notice = _CompileNotice()

        class _Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                notice.on_start(ev)

            def on_end(self, ev: Any) -> None:
                notice.on_end(ev)

        event.register("numba:compile", _Listener())
        _NOTICE = notice


# --------------------------------------------------------------------------- a broken cache set aside


def _from_cache_code(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while numba's cache code (``numba.core.caching``) was running.

    Where numba's cache code lives is the one thing of numba's this relies on
    besides its documented locators; a numba that moved it would make a broken
    cache raise as it did before this recovery (``tests/test_kernel_cache.py``
    would say so), never change a number.
    """
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") == "numba.core.caching":
            return True
        tb = tb.tb_next
    return False


def _cache_folders(kernel: Any) -> list[Path]:
    """The folders numba's locators would use for ``kernel``'s source file (those that exist).

    Asked only after a cache error. numba's ``from_function`` makes a
    locator's folder when it can (its own check that the folder is writable),
    so the user-wide one may be created empty here.
    """
    from numba.core import caching

    py_func = kernel.py_func
    source = py_func.__code__.co_filename
    folders = []
    for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        locator_class = getattr(caching, name, None)
        if locator_class is None:
            continue
        try:
            locator = locator_class.from_function(py_func, source)
        except Exception:  # noqa: BLE001 - a locator that does not apply here
            locator = None
        if locator is not None:
            folder = Path(locator.get_cache_path())
            if folder.is_dir() and folder not in folders:
                folders.append(folder)
    return folders


def _readable(path: Path) -> bool:
    """Whether ``path`` holds one or more whole pickles (numba writes its index and data files as pickles)."""
    try:
        stream = io.BytesIO(path.read_bytes())
        size = len(stream.getbuffer())
        if size == 0:
            return False
        while stream.tell() < size:
            for _ in pickletools.genops(stream):
                pass
        return True
    except Exception:  # noqa: BLE001 - unreadable, cut short, or not a pickle at all
        return False


_RECOVERY_LOCK = threading.Lock()


def _set_aside(kernel: Any, exc: BaseException) -> bool:
    """Move the unreadable cache files of ``kernel``'s folders aside; True when something was moved.

    Files that are not whole pickles go first; when every file reads as
    pickles but numba still failed on them (foreign content), all of the
    folder's cache files go. One line on stderr per folder.
    """
    moved_any = False
    with _RECOVERY_LOCK:
        for folder in _cache_folders(kernel):
            files = sorted(p for p in folder.iterdir() if p.suffix in (".nbi", ".nbc") and p.is_file())
            if not files:
                continue
            broken = [p for p in files if not _readable(p)]
            if not broken and isinstance(exc, OSError):
                continue  # an I/O error (e.g. a full disk while saving), not the files' content
            bad = broken or files
            target = folder / time.strftime("unreadable-%Y%m%dT%H%M%S")
            try:
                target.mkdir(exist_ok=True)
                for path in bad:
                    os.replace(path, target / path.name)
            except OSError as error:
                print(f"bleustats: numba's cache in {folder} could not be read ({type(exc).__name__}) and could "
                      f"not be moved aside ({error.strerror or error}); remove that folder's .nbi/.nbc files",
                      file=sys.stderr, flush=True)
                continue
            moved_any = True
            print(f"bleustats: numba's cache in {folder} could not be read ({type(exc).__name__}: "
                  f"{str(exc).splitlines()[0][:120] if str(exc) else 'no message'}); moved {len(bad)} file(s) to "
                  f"{target}; the kernels compile again", file=sys.stderr, flush=True)
    return moved_any


#: how many times one call sets files aside and tries again (a kernel's callees have cache files of their own)
_MAX_RECOVERIES = 4


class _GuardedKernel:
    """A numba kernel whose call survives unreadable cache files (see :func:`guarded`)."""

    __slots__ = ("kernel",)

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(_MAX_RECOVERIES):
            try:
                return self.kernel(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - re-raised below unless numba's cache code raised it
                if not _from_cache_code(exc):
                    raise
                # nothing moved on a first failure: another thread may have set the files aside just before
                if not _set_aside(self.kernel, exc) and attempt:
                    raise
        return self.kernel(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:  # py_func, overloads, stats, signatures: the dispatcher's own
        return getattr(self.kernel, name)


class _GuardedModule:
    """A kernel module as its callers see it: its numba kernels guarded, everything else as it is.

    Attributes are looked up in the module at each access (so that what a
    test patches there is what callers get); each kernel's guard is made once.
    """

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._guards: dict[int, _GuardedKernel] = {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if not (hasattr(value, "py_func") and hasattr(value, "overloads")):  # not a numba dispatcher
            return value
        guard = self._guards.get(id(value))
        if guard is None or guard.kernel is not value:
            guard = self._guards[id(value)] = _GuardedKernel(value)
        return guard

    def __repr__(self) -> str:
        return f"<kernels of {self._module.__name__}>"


_GUARDED: dict[str, _GuardedModule] = {}


def guarded(module: ModuleType) -> Any:
    """The kernel module ``module`` as callers use it (one object per module, made once).

    Each numba kernel of the module is reached through a callable that runs
    the kernel and, when numba's cache code raises (a cache file cut short, unreadable
    or foreign), moves the folder's unreadable files aside (one line on
    stderr naming the folder) and calls it again, so that it compiles. Any
    other exception passes through. Other attributes are the module's own.
    Also starts the compile notice (:func:`announce_compiles`).
    """
    found = _GUARDED.get(module.__name__)
    if found is None:
        announce_compiles()
        found = _GUARDED.setdefault(module.__name__, _GuardedModule(module))
    return found
