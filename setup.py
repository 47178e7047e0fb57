"""Packaging steps that ``pyproject.toml`` cannot declare.

- Every package under ``src/`` is found (``find_packages``), so a new
  sub-package cannot be left out of the wheel; ``src/bleustats/data_schemas``
  links to ``data_schemas/`` at the top of the repository, whose files ship as
  ``bleustats.data_schemas``.
- A wheel carries the numba kernels compiled on the machine that builds it:
  ``build_py`` runs ``python -m bleustats._warm`` on the built package, and
  numba's cache (``@njit(cache=True)``) writes the compiled kernels into the
  ``__pycache__`` folder beside each kernel module, where numba's own lookup
  finds them once the wheel is installed (see :mod:`bleustats._kernel_cache`).
  Such a wheel holds machine code for this platform and Python, so it is tagged
  for them (``cp311-cp311-linux_x86_64``, not ``py3-none-any``). The first run
  after ``pip install .`` then loads the kernels instead of compiling. Editable
  installs skip this (their first run compiles), and so does a build with
  ``BLEUSTATS_BUILD_KERNELS=0``, which makes a pure-Python wheel. If the step
  fails the wheel is still built, with the kernels that did compile, and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py

#: numba's cache settings that would send the compiled kernels anywhere but beside their sources
_CACHE_SETTINGS = ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "NUMBA_DISABLE_JIT")


def _build_kernels() -> bool:
    return os.environ.get("BLEUSTATS_BUILD_KERNELS", "1") != "0"


class build_py_with_kernels(build_py):
    def run(self) -> None:
        super().run()
        package = Path(self.build_lib).resolve() / "bleustats"
        for stale in package.rglob("__pycache__"):  # never ship what an earlier build left in build/
            shutil.rmtree(stale, ignore_errors=True)
        if getattr(self, "editable_mode", False) or not _build_kernels():
            return
        env = {k: v for k, v in os.environ.items() if k not in _CACHE_SETTINGS}
        env.update(PYTHONDONTWRITEBYTECODE="1", BLEUSTATS_QUIET_COMPILE="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(package.parent), os.environ.get("PYTHONPATH")])))
        start = time.perf_counter()
        print("bleustats: compiling the kernels for this machine (python -m bleustats._warm)", flush=True)
        with tempfile.TemporaryDirectory(prefix="bleustats-build-kernels-") as scratch:
            done = subprocess.run([sys.executable, "-m", "bleustats._warm"], env=env, cwd=scratch)
        if done.returncode != 0:  # what did compile is still shipped; the rest compiles on first use
            print(f"bleustats: WARNING: a command line of the kernels' build failed (exit {done.returncode}); "
                  "the kernels it did not reach will compile on first use", flush=True)
        for folder in package.rglob("__pycache__"):  # numba's cache files only: no bytecode is shipped
            for f in folder.iterdir():
                if f.suffix not in (".nbi", ".nbc"):
                    f.unlink()
        shipped = sum(1 for _ in package.rglob("*.nbc"))
        print(f"bleustats: kernels compiled in {time.perf_counter() - start:.0f} s ({shipped} files)", flush=True)


class KernelsDistribution(Distribution):
    """A distribution whose wheel is tagged for this platform when it ships compiled kernels."""

    def has_ext_modules(self) -> bool:
        return _build_kernels()


setup(
    packages=find_packages("src"),
    cmdclass={"build_py": build_py_with_kernels},
    distclass=KernelsDistribution,
)
