"""The repository's own files: no merge left half-done, the lint rules hold.

A conflict marker committed by mistake in a README or a module is text
that still imports or renders, so nothing else catches it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKERS = ("<<<<<<< ", ">>>>>>> ", "|||||||  ")
SUFFIXES = {".py", ".md", ".toml", ".json", ".txt", ".cfg", ".yml", ".yaml", ".sh", ""}


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (the files to check are git's tracked files)")
    names = [n for n in out.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    return [ROOT / n for n in names if Path(n).suffix in SUFFIXES and (ROOT / n).is_file()]


def test_no_conflict_markers() -> None:
    found = []
    for path in _tracked_text_files():
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{i}" for i, line in enumerate(lines, 1)
                  if line.startswith(MARKERS) or line == "======="]
    assert not found, f"conflict markers left by a merge: {found}"


def test_ruff_finds_nothing() -> None:
    """The lint rules in pyproject.toml ([tool.ruff]) hold for the whole tree (ruff is a test extra)."""
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("no pyproject.toml beside the tests (an installed copy of the tests)")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
