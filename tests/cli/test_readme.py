"""Every ``bleustats`` command line of the README and of the guide in docs/ runs as written.

The pages' ``bash`` blocks and inline code spans are scanned for commands
that start with ``bleustats`` (also after ``&&``, e.g. ``pip install . &&
bleustats demo``); each runs, in page order, in one folder holding the
files the README's "Command line" section names, built from the bundled
sample (``bleustats.sample_data``). Each must exit 0: a command a user
copies from the documentation works on the sample, including the ``study``
line, whose score column is ``mqm`` and whose nine segments without a
positively weighted reference need ``--undefined exclude``. Commands that
read ``../shared`` run where it is beside the checkout. A command's
``> FILE`` redirection writes its standard output to FILE.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import bleustats
from bleustats.cli import main

from ..conftest import SHARED, full_data

README = Path(bleustats.__file__).resolve().parents[2] / "README.md"
DOCS = README.parent / "docs"

pytestmark = pytest.mark.usefixtures("numba_one_thread")


def readme_commands(text: str) -> list[str]:
    """Every ``bleustats ...`` command of the README's bash blocks and inline code, in order.

    A block's shell assignments (``D=../shared/...``) are substituted into its commands.
    """
    found: list[tuple[int, str]] = []
    for block in re.finditer(r"```bash\n(.*?)```", text, re.S):
        body = re.sub(r"\\\n\s*", " ", block.group(1))  # continuation lines
        offset = block.start()
        variables: dict[str, str] = {}
        for line in body.splitlines():
            assignment = re.match(r"\s*([A-Z_]+)=(\S+)", line)
            if assignment:
                variables[assignment.group(1)] = assignment.group(2)
                continue
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("bleustats "):
                    for name, value in variables.items():
                        part = part.replace(f"${name}", value)
                    found.append((offset, part))
                    offset += 1
    prose = re.sub(r"```.*?```", lambda m: " " * len(m.group(0)), text, flags=re.S)
    for span in re.finditer(r"`(bleustats [^`]+)`", prose):
        if len(span.group(1).split()) > 2:  # a command line, not a mention such as `bleustats analyze`
            found.append((span.start(), span.group(1)))
    return [cmd for _, cmd in sorted(found)]


def build_files(d: Path) -> None:
    """The files the README's command lines name: what ``bleustats demo --write-files`` writes."""
    assert main(["demo", "--write-files", str(d)]) == 0


def test_the_readme_names_the_commands_this_test_expects():
    if not README.exists():
        pytest.skip("not running from a source checkout")
    commands = readme_commands(README.read_text(encoding="utf-8"))
    subcommands = {shlex.split(c, comments=True)[1] for c in commands}
    assert subcommands == {"demo", "score", "stats", "kbest", "mbr", "tune", "analyze", "study", "correlate",
                           "compare"}, commands
    assert len(commands) >= 12


def run_commands(commands: list[str], capsys) -> list[str]:
    """Run each command in the current folder; the failures, one line each with the command and its error."""
    failures = []
    for command in commands:
        if "../shared" in command:  # a real-data example: run where ../shared is beside the checkout
            if not SHARED.exists():
                continue
            command = command.replace("../shared", str(SHARED))
        command, _, redirect = command.partition(" > ")
        argv = shlex.split(command, comments=True)
        rc = main(argv[1:])
        out, err = capsys.readouterr()
        if redirect.strip():
            Path(shlex.split(redirect, comments=True)[0]).write_text(out, encoding="utf-8")
        if rc != 0:
            failures.append(f"{command}\n  -> exit {rc}: {err.strip()[-500:]}")
    return failures


def test_every_readme_command_line_runs_as_written(tmp_path, monkeypatch, capsys):
    if not README.exists():
        pytest.skip("not running from a source checkout")
    pytest.importorskip("matplotlib")  # analyze --plot and study's figure (test extras)
    build_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    failures = run_commands(readme_commands(README.read_text(encoding="utf-8")), capsys)
    assert not failures, "\n".join(failures)
    for made in ("stats.parquet", "scores.parquet", "perms.png", "study/table2.md", "weights.json", "best.txt",
                 "report/index.html"):
        assert (tmp_path / made).exists(), made


DOC_PAGES = sorted(p.name for p in DOCS.glob("*.md")
                   if readme_commands(p.read_text(encoding="utf-8"))) if DOCS.is_dir() else []


@pytest.mark.parametrize("page", DOC_PAGES)
def test_every_docs_command_line_runs_as_written(page, tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")  # analyze --plot (test extras)
    build_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    commands = readme_commands((DOCS / page).read_text(encoding="utf-8"))
    if any("../shared" in c for c in commands) and not full_data():
        pytest.skip(f"docs/{page} runs commands on the whole data sets of ../shared: run with --full-data "
                    "(.ci/run's heavy pass does)")
    if all("../shared" in c for c in commands) and not SHARED.exists():
        pytest.skip(f"every command of docs/{page} reads {SHARED}, which is absent")
    failures = run_commands(commands, capsys)
    assert not failures, "\n".join(failures)


def test_the_guide_has_command_lines_to_run():
    """The parametrized test above runs something: the guide's pages with command lines are found."""
    if not README.exists():
        pytest.skip("not running from a source checkout")
    assert {"kbest-tuning.md", "scale-out.md"} <= set(DOC_PAGES), DOC_PAGES
