"""The kernels in numba's cache: where numba's documented mechanisms put them, the notice, a broken cache set aside.

Subprocess tests run a fresh Python on a copy of the package (as pip would
install it), compile or load one small kernel there and look at the files.
"""

from __future__ import annotations

import ast
import hashlib
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bleustats
from bleustats import _kernel_cache

PACKAGE = Path(bleustats.__file__).resolve().parent
JIT = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled code without the JIT")

#: loads (or compiles) one small kernel through the callers' path and prints its cache hits
PROBE = ("from bleustats._kernel_cache import guarded; from bleustats.engine import _encode_kernels; "
         "k = guarded(_encode_kernels); assert k.table_bits(100) == 8; "
         "print(sum(k.table_bits.stats.cache_hits.values()))")


def _installed_copy(root: Path) -> Path:
    """The package as a wheel installs it: sources and data files, no compiled kernels, no bytecode."""
    site = root / "site"
    shutil.copytree(PACKAGE, site / "bleustats", ignore=shutil.ignore_patterns("__pycache__"))
    return site


def _env(site: Path, root: Path, **over: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "NUMBA_DISABLE_JIT",
                        "BLEUSTATS_QUIET_COMPILE")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(root / "xdg"),
               HOME=str(root / "home"))
    env.update(over)
    return env


def _run(site: Path, root: Path, **over: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE], env=_env(site, root, **over), cwd=root,
                          capture_output=True, text=True)


def _numba_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


@JIT
def test_kernels_are_cached_beside_their_sources_and_loaded_from_there(tmp_path):
    """numba's default: ``__pycache__`` beside the kernel module when it can be written; nothing elsewhere."""
    site = _installed_copy(tmp_path)
    first = _run(site, tmp_path)
    assert first.returncode == 0, first.stderr
    cached = site / "bleustats" / "engine" / "__pycache__"
    assert _numba_files(cached), "no cache files beside the kernel module"
    assert not _numba_files(tmp_path / "xdg") and not _numba_files(tmp_path / "home")
    second = _run(site, tmp_path)
    assert second.returncode == 0 and int(second.stdout) >= 1, (second.stdout, second.stderr)
    assert "compiling" not in second.stderr


@JIT
def test_numba_cache_dir_set_by_the_user_is_respected(tmp_path):
    site = _installed_copy(tmp_path)
    mine = tmp_path / "mine"
    done = _run(site, tmp_path, NUMBA_CACHE_DIR=str(mine))
    assert done.returncode == 0, done.stderr
    assert _numba_files(mine) and _numba_files(site) == []


def _sets_numba_setting(node: ast.AST) -> bool:
    """An assignment to numba's config (``config.X = ...``) or to a ``NUMBA_*`` environment variable."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "config":
                return True
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) and str(
                    target.slice.value).startswith("NUMBA_"):
                return True
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("setdefault", "putenv", "update"):
        return any(isinstance(a, ast.Constant) and str(a.value).startswith("NUMBA_") for a in node.args)
    return False


def test_no_module_changes_numbas_settings_and_every_kernel_is_plainly_cached():
    """Kernels use ``@njit(cache=True, ...)`` and nothing else of numba's cache: no module sets numba's config."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if _sets_numba_setting(node):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: sets a numba setting")
            if isinstance(node, ast.FunctionDef):
                for dec in node.decorator_list:
                    if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "njit":
                        kw = {k.arg: k.value for k in dec.keywords}
                        if not (isinstance(kw.get("cache"), ast.Constant) and kw["cache"].value is True):
                            offenders.append(f"{path.relative_to(PACKAGE)}:{node.name}: njit without cache=True")
    assert not offenders, offenders


def _kernel_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("_*kernels.py") if "__pycache__" not in p.parts)


def _bleustats_imports(path: Path) -> set[str]:
    """The bleustats source files (relative to the package) that the module imports names from."""
    module = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = module.split(".")[:-node.level]
            target = [*base, *(node.module.split(".") if node.module else [])]
            found.add("/".join(target) + ".py")
    return found


@pytest.mark.parametrize("path", _kernel_modules(), ids=lambda p: p.name)
def test_every_source_a_kernel_compiles_in_is_stamped_in_the_kernel_module(path):
    """numba stamps a kernel's cache with its own file only: the files it imports from must be in COMPILED_IN.

    Each entry holds the first 16 hex digits of that file's SHA-256, so a
    change to a dependency fails here until the kernel module's line is
    updated, which changes the kernel module and makes numba compile again.
    """
    imports = _bleustats_imports(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "COMPILED_IN" for t in node.targets):
            declared = ast.literal_eval(node.value)
    assert set(declared) == imports, f"{path.name}: COMPILED_IN must list exactly {sorted(imports)}"
    for name, digest in declared.items():
        actual = hashlib.sha256((PACKAGE / name).read_bytes()).hexdigest()[:16]
        assert digest == actual, (f"{path.name}: {name} changed; set COMPILED_IN[{name!r}] = {actual!r} so that "
                                  "numba compiles this module's kernels again")


def test_every_caller_of_a_kernel_module_goes_through_guarded():
    """A kernel module is imported only by kernel modules (their callees) and by callers that wrap it."""
    offenders = []
    kernel_names = {p.stem for p in _kernel_modules()}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.stem in kernel_names or "__pycache__" in path.parts or path.name == "_kernel_cache.py":
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level:
                for alias in node.names:
                    if alias.name in kernel_names:
                        local = alias.asname or alias.name
                        if f"guarded({local})" not in text:
                            offenders.append(f"{path.relative_to(PACKAGE)}: {alias.name} used without guarded()")
                    elif node.module and node.module.split(".")[-1] in kernel_names:
                        offenders.append(f"{path.relative_to(PACKAGE)}: imports {alias.name} from {node.module}")
    assert not offenders, offenders


def test_guarded_wraps_kernels_only_and_passes_other_errors_through():
    from bleustats.engine import _encode_kernels

    kernels = _kernel_cache.guarded(_encode_kernels)
    assert kernels is _kernel_cache.guarded(_encode_kernels)
    assert kernels.GOLDEN is _encode_kernels.GOLDEN  # a constant: the module's own object
    if os.environ.get("NUMBA_DISABLE_JIT") != "1":
        assert kernels.table_bits.py_func is _encode_kernels.table_bits.py_func
        with pytest.raises(Exception) as info:  # a typing error is the caller's, not the cache's: passed on
            kernels.table_bits("not a number")
        assert info.type.__name__ == "TypingError"


def _compile_then_damage(tmp_path: Path, damage) -> tuple[Path, Path, subprocess.CompletedProcess]:
    site = _installed_copy(tmp_path)
    first = _run(site, tmp_path)
    assert first.returncode == 0, first.stderr
    folder = site / "bleustats" / "engine" / "__pycache__"
    for path in _numba_files(folder):
        damage(path)
    return site, folder, _run(site, tmp_path)


def _cut_short(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _foreign(path: Path) -> None:
    """Whole pickles that numba cannot use: this numba's version first (as its index starts), then other data."""
    import numba

    path.write_bytes(pickle.dumps(numba.__version__) + pickle.dumps(pickle.dumps({"not": "numba's"})))


@JIT
@pytest.mark.parametrize("damage", [_cut_short, _foreign], ids=["cut-short", "foreign"])
def test_a_broken_cache_is_set_aside_with_one_line_and_the_kernel_compiles(tmp_path, damage):
    site, folder, broken = _compile_then_damage(tmp_path, damage)
    assert broken.returncode == 0, broken.stderr
    lines = [line for line in broken.stderr.splitlines() if "could not be read" in line]
    assert len(lines) == 1 and str(folder) in lines[0] and "moved" in lines[0], broken.stderr
    [aside] = [p for p in folder.iterdir() if p.is_dir() and p.name.startswith("unreadable-")]
    assert str(aside) in lines[0] and _numba_files(aside)
    fresh = [p for p in folder.iterdir() if p.suffix in (".nbi", ".nbc")]
    assert fresh, "the kernel was not compiled into the cache again"
    again = _run(site, tmp_path)
    assert again.returncode == 0 and int(again.stdout) >= 1 and "could not be read" not in again.stderr


@JIT
def test_a_kernel_that_compiles_says_so_once_on_stderr(tmp_path):
    site = _installed_copy(tmp_path)
    first = _run(site, tmp_path)
    assert first.returncode == 0, first.stderr
    lines = [line for line in first.stderr.splitlines() if "compiling kernels once" in line]
    assert len(lines) == 1, first.stderr
    second = _run(site, tmp_path)
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr
    quiet = _run(_installed_copy(tmp_path / "other"), tmp_path / "other", BLEUSTATS_QUIET_COMPILE="1")
    assert quiet.returncode == 0 and "compiling" not in quiet.stderr


def test_an_unwritable_user_cache_falls_back_to_the_temporary_folder(tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(_kernel_cache.sys, "platform", "linux")
    monkeypatch.setattr(_kernel_cache.tempfile, "tempdir", str(tmp_path / "tmp"))
    got = Path(_kernel_cache.user_cache_dir())
    assert got.parent == tmp_path / "tmp" and got.name.startswith("bleustats-")


def test_the_tokenizer_tables_are_cached_in_the_user_cache_folder(tmp_path, monkeypatch):
    from bleustats.engine import _tokenize_tables

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(_kernel_cache.sys, "platform", "linux")
    assert _tokenize_tables._cache_file().parent == tmp_path / "bleustats"
