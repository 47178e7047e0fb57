"""Where numba keeps bleustats' compiled kernels: a per-user cache folder, never the installed package.

numba's ``cache=True`` writes the compiled code beside the source file (its
``__pycache__``) whenever that folder is writable, and for an installed
bleustats that folder is inside ``site-packages/bleustats``. pip does not know
those files, so ``pip uninstall`` (or the uninstall step of ``pip install -e
.``) leaves ``site-packages/bleustats/`` behind, and Python then imports that
leftover folder as an empty namespace package in place of the editable
checkout (issue 13: ``module 'bleustats' has no attribute 'corpus_bleu'``).

Every ``_*_kernels`` module therefore calls :func:`use_user_cache` before its
first ``njit(cache=True)`` kernel and ``.restore()`` after its last one: numba picks
a kernel's cache folder when the kernel is decorated, from
``numba.config.CACHE_DIR``, so the kernels load from and save to
:func:`cache_dir`, while the setting of other packages' kernels is left as it
was.

:func:`cache_dir` is, in order: ``NUMBA_CACHE_DIR`` when the user set it
(numba's own setting, respected as is); else the platform's user cache folder
plus ``bleustats/numba`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux and
other POSIX systems, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on
Windows); else, when that cannot be written, ``bleustats-<user>/numba`` in the
temporary folder. numba keeps one subfolder per source folder inside it, so
several installs or checkouts never share compiled code.

Inside that folder the kernels live in ``kernels-<digest>/``, where the digest
hashes the source of every kernel module and of the tables they compile in
(:func:`kernel_digest`), not the path they were installed at
(:class:`bleustats._numba_locator.KernelCacheLocator`, numba's ``NUMBA_CACHE_LOCATOR_CLASSES`` hook): a
checkout, its editable install and a wheel of the same code share one compiled
copy, and changing any kernel module recompiles them all (a kernel compiles in
the constants and callees of the modules it imports, which numba's own
per-file stamp would miss).

A wheel built by ``pip install .`` carries the kernels compiled for the
building machine (``bleustats/_kernel_cache/kernels-<digest>/``, made by the
build step in ``setup.py`` running :mod:`bleustats._warm`); the first use on a
machine copies them into the user cache (:func:`kernel_cache_folder`), so the
first run after installing loads instead of compiling. Whatever still compiles
at run time (another CPU, another numba, a kernel the default paths do not
reach) says so on stderr once, when it starts (:func:`announce_compiles`).

Examples
--------
>>> import os
>>> Path(cache_dir()).name == "numba" or bool(os.environ.get("NUMBA_CACHE_DIR"))
True
"""

from __future__ import annotations

import getpass
import hashlib
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["UserCache", "announce_compiles", "cache_dir", "kernel_cache_folder", "kernel_digest", "use_user_cache"]

_PACKAGE = Path(__file__).resolve().parent
#: the compiled kernels that a wheel ships, one ``kernels-<digest>`` folder (see the module docstring)
PACKAGED_CACHE = _PACKAGE / "_kernel_cache"


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


def cache_dir() -> str:
    """The folder numba caches bleustats' kernels in (see the module docstring for the order)."""
    user_set = os.environ.get("NUMBA_CACHE_DIR", "")
    if user_set:
        return user_set
    try:
        folder = _platform_cache_root() / "bleustats" / "numba"
    except RuntimeError:  # no home folder can be determined
        folder = None
    if folder is not None and _writable(folder):
        return str(folder)
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - getuser raises several types when no name is known
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return str(Path(tempfile.gettempdir()) / f"bleustats-{user}" / "numba")


_DIGEST: str | None = None


def kernel_digest() -> str:
    """A hash of the source of every kernel module (``_*kernels.py``) and table module (``_*tables.py``).

    Examples
    --------
    >>> len(kernel_digest())
    16
    """
    global _DIGEST
    if _DIGEST is None:
        sources = sorted(p for pattern in ("_*kernels.py", "_*tables.py")
                         for p in _PACKAGE.rglob(pattern))
        digest = hashlib.sha256()
        for path in sources:
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
        _DIGEST = digest.hexdigest()[:16]
    return _DIGEST


_FOLDER: str | None = None


def _seed(folder: Path) -> None:
    """Copy the kernels a wheel ships into ``folder`` once (each file whole, or not at all)."""
    shipped = PACKAGED_CACHE / folder.name
    marker = folder / ".seeded"
    if not shipped.is_dir() or marker.exists():
        return
    for source in sorted(shipped.iterdir()):
        if source.suffix not in (".nbi", ".nbc"):
            continue
        target = folder / source.name
        if target.exists():  # compiled here already: the machine's own copy wins
            continue
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".seed-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(source.read_bytes())
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    marker.touch()


def kernel_cache_folder() -> str:
    """The folder holding this code's compiled kernels: ``cache_dir()/kernels-<digest>``, seeded from the wheel.

    Examples
    --------
    >>> Path(kernel_cache_folder()).name == "kernels-" + kernel_digest()
    True
    """
    global _FOLDER
    if _FOLDER is None:
        folder = Path(cache_dir()) / f"kernels-{kernel_digest()}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _seed(folder)
        except OSError:  # an unwritable or full cache only costs the compile
            pass
        _FOLDER = str(folder)
    return _FOLDER


#: numba's locators after bleustats' own: the user-provided folder (``CACHE_DIR``, set while decorating)
_LOCATORS = "bleustats._numba_locator.KernelCacheLocator,UserProvidedCacheLocator"


class _CompileNotice:
    """A numba event listener: one line on stderr when the first bleustats kernel compiles in this process."""

    def __init__(self) -> None:
        self.said = False
        self.compiled = 0
        self.tty = False
        self.start = 0.0
        self.depth = 0  # a kernel's compile compiles its callees inside it

    def on_start(self, event) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith("bleustats."):
            return
        self.depth += 1
        if not self.said:
            self.said = True
            if os.environ.get("BLEUSTATS_QUIET_COMPILE", "") == "1":  # scripts and test suites that want stderr clean
                return
            self.tty = sys.stderr.isatty()
            import time

            self.start = time.perf_counter()
            print("bleustats: compiling kernels once for this machine (about 10-60 s; later runs load them from "
                  f"{Path(kernel_cache_folder()).parent})", file=sys.stderr, flush=True)

    def on_end(self, event) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if not module.startswith("bleustats."):
            return
        self.depth = max(0, self.depth - 1)
        if not self.start:  # quiet, or nothing said
            return
        self.compiled += 1
        if self.tty:  # a counter while compiling, erased once the outermost kernel is compiled
            import time

            line = f"bleustats: {self.compiled} kernels compiled, {time.perf_counter() - self.start:.0f} s"
            print("\r\x1b[K" if self.depth == 0 else f"\r{line}", end="", file=sys.stderr, flush=True)


_NOTICE: _CompileNotice | None = None


def announce_compiles() -> None:
    """Say on stderr, once per process, when a bleustats kernel starts compiling (numba's event API).

    ``BLEUSTATS_QUIET_COMPILE=1`` in the environment keeps it quiet.
    """
    global _NOTICE
    if _NOTICE is not None:
        return
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):
            _NOTICE.on_start(ev)

        def on_end(self, ev):
            _NOTICE.on_end(ev)

    _NOTICE = _CompileNotice()
    event.register("numba:compile", _Listener())


class UserCache:
    """numba's cache pointed at :func:`kernel_cache_folder` (and :func:`cache_dir`) until :meth:`restore`."""

    def __init__(self) -> None:
        from numba.core import config

        announce_compiles()
        self._config = config
        self._previous = config.CACHE_DIR
        self._previous_locators = getattr(config, "CACHE_LOCATOR_CLASSES", None)
        if not config.CACHE_DIR:  # NUMBA_CACHE_DIR set: numba already uses it
            config.CACHE_DIR = cache_dir()
        if self._previous_locators is not None and not self._previous_locators:
            config.CACHE_LOCATOR_CLASSES = _LOCATORS

    def restore(self) -> None:
        """Put numba's settings back as they were (other packages keep their own cache folders)."""
        self._config.CACHE_DIR = self._previous
        if self._previous_locators is not None:
            self._config.CACHE_LOCATOR_CLASSES = self._previous_locators


def use_user_cache() -> UserCache:
    """Point numba's cache at :func:`cache_dir` for the kernels decorated until ``.restore()``."""
    return UserCache()
