"""What ``pip install .`` gives a user: every sub-package, the compiled kernels, a quiet first run, a light ``--help``.

CI runs the whole suite twice: against the editable checkout, and against the
wheel built and installed non-editable in a fresh virtual environment
(``.ci/run``). Tests that need one or the other say so when they skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import bleustats

PACKAGE = Path(bleustats.__file__).resolve().parent
ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "bleustats"
#: True when the suite runs against an installed wheel rather than the checkout's sources
INSTALLED = PACKAGE != SOURCE.resolve()

HEAVY = ("numpy", "numba", "pandas", "pyarrow", "scipy", "regex", "matplotlib", "dask")


def _subpackages(root: Path) -> set[str]:
    return {p.parent.relative_to(root).as_posix() for p in root.rglob("__init__.py") if "__pycache__" not in p.parts}


def _env(**over: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT", "BLEUSTATS_QUIET_COMPILE")}
    env.update(over)
    return env


@pytest.mark.skipif(not SOURCE.exists(), reason="needs the source checkout (src/bleustats)")
def test_the_wheel_holds_every_subpackage_schema_and_data_file(tmp_path):
    env = _env(BLEUSTATS_BUILD_KERNELS="0", PIP_NO_INPUT="1")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = tmp_path.glob("bleustats-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    expected = {"bleustats/" + p if p != "." else "bleustats" for p in _subpackages(SOURCE)}
    expected.add("bleustats/data_schemas")
    assert expected <= packages, f"left out of the wheel: {sorted(expected - packages)}"
    assert "bleustats/distributed/cluster.py" in names
    for schema in (ROOT / "data_schemas").glob("*.json"):
        assert f"bleustats/data_schemas/{schema.name}" in names
    for data in ("hypotheses.tsv", "references.tsv", "human_scores.tsv", "README.md"):
        assert f"bleustats/sample_data/{data}" in names
    assert "bleustats/py.typed" in names
    assert not [n for n in names if n.endswith((".nbi", ".nbc"))], "BLEUSTATS_BUILD_KERNELS=0 still compiled"
    assert wheel.name.endswith("-py3-none-any.whl"), f"{wheel.name}: a wheel without kernels is pure Python"


@pytest.mark.skipif(not INSTALLED, reason="runs against the installed wheel (.ci/run's second pass)")
def test_the_installed_package_has_every_subpackage_of_the_checkout():
    if not SOURCE.exists():
        pytest.skip("no checkout beside the installed package to compare with")
    missing = _subpackages(SOURCE) - _subpackages(PACKAGE)
    assert not missing, f"sub-packages of src/bleustats missing from the installed package: {sorted(missing)}"


@pytest.mark.skipif(not INSTALLED, reason="runs against the installed wheel (.ci/run's second pass)")
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no compiled code without the JIT")
def test_the_first_run_after_installing_loads_the_shipped_kernels(tmp_path):
    """The wheel carries numba's cache files beside the kernel modules, where numba's own lookup finds them."""
    shipped = sorted(PACKAGE.rglob("__pycache__/*.nbi"))
    assert shipped and list(PACKAGE.rglob("__pycache__/*.nbc")), "the wheel carries no compiled kernels"
    env = _env(XDG_CACHE_HOME=str(tmp_path / "empty-cache"), HOME=str(tmp_path), NUMBA_DEBUG_CACHE="1")
    done = subprocess.run([sys.executable, "-m", "bleustats", "demo"], env=env, cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "compiling kernels" not in done.stderr
    assert "data saved" not in done.stdout + done.stderr, "a kernel was compiled on the first run"
    assert "data loaded" in done.stdout + done.stderr


@pytest.mark.skipif(not INSTALLED, reason="runs against the installed wheel (.ci/run's second pass)")
def test_a_wheel_with_compiled_kernels_is_tagged_for_its_platform():
    """Machine code inside: the wheel says so (not py3-none-any), for this Python and platform."""
    from importlib import metadata

    wheel = metadata.distribution("bleustats").read_text("WHEEL") or ""
    assert "Root-Is-Purelib: false" in wheel, wheel
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    python = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert tags and all(t.startswith(f"{python}-{python}-") and not t.endswith("-any") for t in tags), tags


def _command_helps() -> list[list[str]]:
    from bleustats.cli.main import COMMANDS

    return [["--help"], ["-V"], ["--version"]] + [[name, "--help"] for name in COMMANDS]


@pytest.mark.parametrize("argv", _command_helps(), ids=" ".join)
def test_help_and_version_import_nothing_heavy(argv):
    code = ("import sys; from bleustats.cli.main import main\n"
            f"try: main({argv!r})\nexcept SystemExit: pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_help_lists_every_subcommand_with_its_modules_own_summary():
    import argparse

    from bleustats.cli.main import COMMANDS, _parser

    for name, summary in COMMANDS.items():
        parser = _parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        [choice] = sub._choices_actions
        assert (choice.dest, choice.help) == (name, summary)


def test_a_missing_optional_package_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    import importlib.util

    from bleustats.cli.main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    (tmp_path / "r.txt").write_text("a b c\n", encoding="utf-8")
    rc = main(["analyze", str(tmp_path / "r.txt"), "-i", str(tmp_path / "r.txt"), "--plot", str(tmp_path / "p.png")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 1 and len(err) == 1, err
    assert "--plot" in err[0] and "matplotlib" in err[0] and "bleustats[plot]" in err[0]
    assert not (tmp_path / "p.png").exists()


def test_demo_writes_the_readme_files_once_and_never_over_other_content(tmp_path, capsys):
    from bleustats import sample_data
    from bleustats.cli.main import main

    assert main(["demo", "--write-files", str(tmp_path / "d")]) == 0
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == sorted(sample_data.EXAMPLE_FILES)
    assert main(["demo", "--write-files", str(tmp_path / "d")]) == 0  # the same files again: nothing changes
    (tmp_path / "d" / "hyp.txt").write_text("mine\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["demo", "--write-files", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hyp.txt" in err[0] and "nothing was written" in err[0]
    assert (tmp_path / "d" / "hyp.txt").read_text(encoding="utf-8") == "mine\n"
