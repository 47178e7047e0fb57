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

Examples
--------
>>> import os
>>> Path(cache_dir()).name == "numba" or bool(os.environ.get("NUMBA_CACHE_DIR"))
True
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["UserCache", "cache_dir", "use_user_cache"]


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


class UserCache:
    """``numba.config.CACHE_DIR`` pointed at :func:`cache_dir` until :meth:`restore`."""

    def __init__(self) -> None:
        from numba.core import config

        self._config = config
        self._previous = config.CACHE_DIR
        if not config.CACHE_DIR:  # NUMBA_CACHE_DIR set: numba already uses it
            config.CACHE_DIR = cache_dir()

    def restore(self) -> None:
        """Put numba's setting back as it was (other packages keep their own cache folders)."""
        self._config.CACHE_DIR = self._previous


def use_user_cache() -> UserCache:
    """Point numba's cache at :func:`cache_dir` for the kernels decorated until ``.restore()``."""
    return UserCache()
