"""The dependency floors: written once in pyproject.toml, pinned for CI by tools/floor_pins.py, said in the docs."""

from __future__ import annotations

import doctest
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "floor_pins.py"

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="needs the source checkout (tools/floor_pins.py)")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def _pins() -> dict[str, str]:
    done = _run()
    assert done.returncode == 0, done.stderr
    return dict(line.split("==") for line in done.stdout.split())


def _module():
    spec = importlib.util.spec_from_file_location("floor_pins", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_s_examples_hold():
    failed, attempted = doctest.testmod(_module())
    assert attempted >= 6 and failed == 0


def test_every_runtime_dependency_is_pinned_at_its_floor():
    module = _module()
    with open(ROOT / "pyproject.toml", "rb") as fh:
        project = module.tomllib.load(fh)["project"]
    pins = _pins()
    assert list(pins) == [re.match(r"[\w.-]+", d).group() for d in project["dependencies"]]
    assert all(re.fullmatch(r"[0-9]+(\.[0-9]+)+", v) for v in pins.values()), pins
    assert _run("--python").stdout == project["requires-python"].removeprefix(">=") + "\n"


def test_a_dependency_without_a_floor_is_refused_in_one_line(tmp_path):
    bad = tmp_path / "pyproject.toml"
    bad.write_text('[project]\nrequires-python = ">=3.10"\ndependencies = ["numpy>=2.0.0", "scipy<2"]\n')
    done = _run("--pyproject", str(bad))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"{bad}: dependency 'scipy<2' has no '>=' floor: write the lowest release it needs, "
                           "e.g. 'scipy>=1.2.3'\n")


def test_the_docs_state_the_floors_that_ci_tests():
    pins = _pins()
    table = dict(re.findall(r"^\| (\w+) \| ([0-9.]+) \|", (ROOT / "docs" / "installation.md").read_text(), re.M))
    assert table == pins
    readme = (ROOT / "README.md").read_text()
    missing = [f"{name} {v}" for name, v in pins.items() if not re.search(rf"\b{name} {re.escape(v)}\b", readme, re.I)]
    assert not missing, f"README.md does not state these floors: {missing}"
    python = _run("--python").stdout.strip()
    for page in ("README.md", "docs/installation.md"):
        assert f"Python {python} or later" in (ROOT / page).read_text(), page
