"""Packaging steps that ``pyproject.toml`` cannot declare.

- Every package under ``src/`` is found (``find_packages``), so a new
  sub-package cannot be left out of the wheel; ``data_schemas/`` at the top of
  the repository ships as ``bleustats.data_schemas``.
- A wheel carries the numba kernels compiled on the machine that builds it:
  ``build_py`` runs ``python -m bleustats._warm`` on the built package with a
  scratch numba cache and copies the compiled kernels into
  ``bleustats/_kernel_cache/`` (see :mod:`bleustats._numba_cache`). The first
  run after ``pip install .`` then loads them instead of compiling. Editable
  installs skip this (their first run compiles into the user cache), and so
  does a build with ``BLEUSTATS_BUILD_KERNELS=0``. If the step fails the wheel
  is still built, with the kernels that did compile, and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class build_py_with_kernels(build_py):
    def run(self) -> None:
        super().run()
        build_lib = str(Path(self.build_lib).resolve())
        target = Path(build_lib) / "bleustats" / "_kernel_cache"
        shutil.rmtree(target, ignore_errors=True)  # never ship kernels left in build/ by an earlier build
        if getattr(self, "editable_mode", False) or os.environ.get("BLEUSTATS_BUILD_KERNELS", "1") == "0":
            return
        with tempfile.TemporaryDirectory(prefix="bleustats-build-kernels-") as scratch:
            env = dict(os.environ, NUMBA_CACHE_DIR=scratch, PYTHONDONTWRITEBYTECODE="1",
                       PYTHONPATH=os.pathsep.join(filter(None, [build_lib, os.environ.get("PYTHONPATH")])))
            env.pop("NUMBA_DISABLE_JIT", None)
            start = time.perf_counter()
            print("bleustats: compiling the kernels for this machine (python -m bleustats._warm)", flush=True)
            done = subprocess.run([sys.executable, "-m", "bleustats._warm"], env=env, cwd=scratch)
            if done.returncode != 0:  # what did compile is still shipped; the rest compiles on first use
                print(f"bleustats: WARNING: a command line of the kernels' build failed (exit {done.returncode}); "
                      "the kernels it did not reach will compile on first use", flush=True)
            folders = [p for p in Path(scratch).glob("kernels-*") if p.is_dir()]
            for folder in folders:
                (target / folder.name).mkdir(parents=True, exist_ok=True)
                for f in folder.iterdir():
                    if f.suffix in (".nbi", ".nbc"):
                        shutil.copy2(f, target / folder.name / f.name)
            print(f"bleustats: kernels compiled in {time.perf_counter() - start:.0f} s "
                  f"({sum(1 for _ in target.rglob('*.nbc'))} files)", flush=True)


setup(
    packages=find_packages("src") + ["bleustats.data_schemas"],
    cmdclass={"build_py": build_py_with_kernels},
)
