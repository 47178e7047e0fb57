"""The repository's own files: no merge left half-done, the lint rules hold.

A conflict marker committed by mistake in a README or a module is text
that still imports or renders, so nothing else catches it.
"""

from __future__ import annotations

import re
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


#: A path into the repository named in text: a top-level folder of the checkout, then a path.
_PATH = re.compile(r"(?<![\w./-])((?:tests|src|docs|benchmarks|data_schemas|examples|tools|\.ci)/[\w./-]*[\w/])"
                   r"(?![\w*<{\\]|\.[*<{\\])")  # not a pattern (``test_*.py``, ``x.{md,json}``, ``x\.json``)
#: A relative Markdown link target (not a URL, not an anchor).
_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:)([^)#\s]+)")
#: Named paths that are local, git-ignored folders, not files of the checkout.
_NOT_FILES = ("benchmarks/data", "benchmarks/.venv")
#: In code, a path under benchmarks/results/ is where a script writes its report (an output).
_OUTPUTS = "benchmarks/results/"
_OUTPUT_FLAG = re.compile(r"(?:--out|--name|--render-only|-o)[ =]$")


def _named_paths(text: str, markdown: bool) -> set[str]:
    found = {m.group(1) for m in _PATH.finditer(text)
             if not _OUTPUT_FLAG.search(text[max(0, m.start() - 16):m.start()])}
    found = {p for p in found if not p.startswith(_NOT_FILES) and (markdown or not p.startswith(_OUTPUTS))}
    if markdown:
        found |= {m.group(1) for m in _LINK.finditer(text)}
    return found


def test_every_path_named_in_docs_code_and_tests_exists() -> None:
    """Every repository path that README, docs/, benchmarks/, src/, tests/, examples/, tools/ and .ci/ name exists.

    A path is looked up from the checkout's root, from the naming file's folder
    (relative Markdown links) and from ``src/bleustats`` (module paths such as
    ``engine/_small.py``), so a renamed or deleted test file, page or module
    cannot leave a reference to nothing behind.
    """
    missing = []
    for path in _tracked_text_files():
        rel = path.relative_to(ROOT)
        ci_script = rel.parts[0] == ".ci"  # .ci/run and .ci/floors: the test files CI runs by name
        if not ci_script and (rel.suffix not in {".py", ".md", ".toml"} or rel.parts[0] not in {
                "README.md", "docs", "benchmarks", "src", "tests", "examples", "tools", "pyproject.toml"}):
            continue
        text = path.read_text(encoding="utf-8")
        for name in sorted(_named_paths(text, markdown=rel.suffix == ".md")):
            name = name.rstrip(".")
            if not any(base.joinpath(name).exists() for base in (ROOT, path.parent, ROOT / "src" / "bleustats")):
                missing.append(f"{rel}: {name}")
    assert not missing, "paths named but not in the repository:\n" + "\n".join(missing)
