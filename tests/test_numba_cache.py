"""numba's cache of the kernels goes to a per-user folder, never into the installed package.

Each test runs a fresh Python on a copy of the package (as pip would install it)
with its own cache folders, compiles one small kernel, and looks where the
files went. Cache files written beside the kernel sources (numba's default,
``__pycache__/*.nbi``) would outlive an uninstall, and the leftover folder
would shadow a later ``pip install -e .``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import bleustats

PACKAGE = Path(bleustats.__file__).resolve().parent

#: compiles (or loads) one small kernel and reports where numba's setting ended up
PROBE = (
    "import numba; from bleustats.engine import _encode_kernels as k; "
    "assert k.table_bits(100) == 8; "
    "from bleustats._numba_cache import cache_dir; "
    "print(repr(numba.config.CACHE_DIR), sum(k.table_bits.stats.cache_hits.values()), cache_dir())"
)


def _installed_copy(root: Path) -> Path:
    """The package as a wheel installs it: sources, data_schemas inside, no __pycache__."""
    site = root / "site"
    # without the compiled kernels a wheel ships: what is checked is where numba writes
    shutil.copytree(PACKAGE, site / "bleustats", ignore=shutil.ignore_patterns("__pycache__", "_kernel_cache"))
    schemas = site / "bleustats" / "data_schemas"
    if not (schemas / "statistics.json").exists():
        shutil.rmtree(schemas, ignore_errors=True)
        shutil.copytree(Path(str(resources.files("bleustats.data_schemas"))), schemas,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return site


def _probe(site: Path, **env_over: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    for k, v in env_over.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=site.parent, capture_output=True,
                         text=True, check=True).stdout.split()
    return out


def _numba_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled code without the JIT")
def test_kernels_are_cached_per_user_and_never_in_the_package(tmp_path):
    site = _installed_copy(tmp_path)
    xdg = tmp_path / "xdg"
    try:
        first = _probe(site, XDG_CACHE_HOME=str(xdg), HOME=str(tmp_path / "home"))
    finally:  # checked first: the point of the test
        assert _numba_files(site) == [], "numba wrote into the installed package"
    assert first[0] == "''", "numba's CACHE_DIR setting was not restored for other packages"
    cache = Path(first[2])
    if sys.platform.startswith("linux"):
        assert cache == xdg / "bleustats" / "numba"
    assert _numba_files(cache), f"no cache files in {cache}"
    assert not (site / "bleustats" / "engine" / "__pycache__").exists()
    # a second process loads the kernel from that cache instead of compiling it again
    second = _probe(site, XDG_CACHE_HOME=str(xdg), HOME=str(tmp_path / "home"))
    assert int(second[1]) >= 1
    assert _numba_files(site) == []


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled code without the JIT")
def test_numba_cache_dir_set_by_the_user_is_respected(tmp_path):
    site = _installed_copy(tmp_path)
    mine = tmp_path / "mine"
    out = _probe(site, NUMBA_CACHE_DIR=str(mine), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert out[0] == repr(str(mine)) and Path(out[2]) == mine
    assert _numba_files(mine) and _numba_files(site) == []
    assert not (tmp_path / "xdg").exists()


def test_an_unwritable_user_cache_falls_back_to_the_temporary_folder(tmp_path, monkeypatch):
    from bleustats import _numba_cache

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(_numba_cache.sys, "platform", "linux")
    monkeypatch.setattr(_numba_cache.tempfile, "tempdir", str(tmp_path / "tmp"))
    got = Path(_numba_cache.cache_dir())
    assert got.parent.parent == tmp_path / "tmp" and got.name == "numba"


def test_importing_the_kernels_leaves_numbas_setting_as_it_was():
    import numba

    from bleustats.engine import _chrf_kernels, _encode_kernels, _stats_kernels  # noqa: F401
    from bleustats.tools import _tree_kernels  # noqa: F401

    assert numba.config.CACHE_DIR == os.environ.get("NUMBA_CACHE_DIR", "")


def test_every_kernel_module_caches_per_user():
    """Each module with cached kernels points numba at the user cache before its first and restores after its last.

    The behavioural test above compiles one kernel of one module; this one
    keeps every other kernel module (and any new one) on the same footing: a
    module without the calls wrote its cache beside the installed sources,
    and the next ``pip install -e .`` saw bleustats as an empty namespace.
    """
    offenders = []
    for path in sorted(PACKAGE.rglob("*_kernels.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        kernels = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("@njit") and "cache=True" in ln]
        if not kernels:
            continue
        start = [i for i, ln in enumerate(lines) if ln.startswith("_USER_CACHE = use_user_cache()")]
        end = [i for i, ln in enumerate(lines) if ln.startswith("_USER_CACHE.restore()")]
        if not (start and end and start[0] < kernels[0] and end[-1] > kernels[-1]):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders, f"kernel modules that cache inside the package: {offenders}"
