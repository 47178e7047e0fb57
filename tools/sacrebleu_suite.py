"""Run sacreBLEU's own test files against bleustats, with ``sacrebleu`` resolving to ``bleustats``.

Issue 14's check that ``import bleustats as sacrebleu`` works for real sacreBLEU code: the test
files of a sacreBLEU source tree (by default those of the pinned 2.6.0 release, read from a git
repository of sacreBLEU) run twice in a scratch folder, once with the real sacreBLEU and once with
:mod:`bleustats.sacrebleu_shim` installed, so that every ``sacrebleu`` / ``sacrebleu.<module>``
import gives bleustats (``bleustats.metrics``, ``bleustats.significance``,
``bleustats.tokenizers.tokenizer_ter``, ...). Nothing of sacreBLEU is copied into this repository:
the tests are read from the given source at run time.

A test passes "as sacreBLEU" when it passes with the real sacreBLEU; the check succeeds when every
such test passes with bleustats too (the script exits 1 otherwise and lists them).

Usage::

    python tools/sacrebleu_suite.py --git-dir /path/to/sacrebleu/.git           # a clone or mirror
    python tools/sacrebleu_suite.py --source /path/to/sacrebleu-checkout        # a work tree
    python tools/sacrebleu_suite.py --git-dir ... --files test_bleu test_chrf   # a subset

Both runs need sacreBLEU installed (the test extra pins 2.6.0) for the first run and bleustats for
the second; the files default to the six offline ones issue 14 names.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

#: sacreBLEU's offline test files (the others download test sets).
DEFAULT_FILES = ("test_bleu", "test_sentence_bleu", "test_significance", "test_chrf", "test_ter",
                 "test_tokenizer_ter")

#: conftest.py of the bleustats run: the opt-in shim makes every 'sacrebleu[.x]' import give bleustats.
HOOK = '''
import bleustats.sacrebleu_shim

bleustats.sacrebleu_shim.install()
import sacrebleu  # noqa: E402

assert sacrebleu.__name__ == "bleustats.sacrebleu_shim.package", sacrebleu.__name__
'''


def _fetch(args: argparse.Namespace, dest: Path) -> None:
    """Copy sacreBLEU's test folder (and its data files) into ``dest / 'test'``."""
    if args.source:
        src = Path(args.source) / "test"
        if not src.is_dir():
            raise SystemExit(f"--source: {src} is not a folder; give the root of a sacreBLEU checkout.")
        shutil.copytree(src, dest / "test")
        return
    archive = subprocess.run(["git", "--git-dir", args.git_dir, "archive", args.rev, "test"],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"--git-dir: git archive {args.rev} test failed: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def _run(root: Path, files: list[str], with_hook: bool, label: str) -> dict[str, str]:
    """Run each file with pytest from ``root``; return {test id: outcome}."""
    conftest = root / "test" / "conftest.py"
    if with_hook:
        conftest.write_text(HOOK, encoding="utf-8")
    elif conftest.exists():
        conftest.unlink()
    outcome: dict[str, str] = {}
    for f in files:  # one process per file, so an import error is attributed to its file
        report = root / f"{label}.{f}.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(root),
               f"--junitxml={report}", f"test/{f}.py"]
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if not report.exists():
            raise SystemExit(f"{label}: pytest wrote no report for {f}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        for case in ET.parse(report).iter("testcase"):
            kinds = {child.tag for child in case}
            if not case.get("classname"):  # the file could not be collected (e.g. an ImportError)
                first = next((ln for ln in proc.stdout.splitlines() if ln.startswith("E ")), "E collection failure")
                print(f"{label}: {f} not collected: {first[1:].strip()}", file=sys.stderr)
                continue
            outcome[f"{case.get('classname')}::{case.get('name')}"] = (
                "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed")
    return outcome


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--git-dir", help="a git repository of sacreBLEU (clone or mirror)")
    where.add_argument("--source", help="a sacreBLEU work tree (its test/ folder is used)")
    ap.add_argument("--rev", default="v2.6.0", help="revision of --git-dir (default: %(default)s)")
    ap.add_argument("--files", nargs="+", default=list(DEFAULT_FILES), help="test files without .py")
    ap.add_argument("--json", metavar="PATH", help="also write the per-test outcomes as JSON")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sacrebleu-suite-") as tmp:
        root = Path(tmp)
        _fetch(args, root)
        real = _run(root, args.files, with_hook=False, label="sacrebleu")
        ours = _run(root, args.files, with_hook=True, label="bleustats")
    passing = sorted(t for t, o in real.items() if o == "passed")
    missing = [t for t in passing if ours.get(t) != "passed"]
    per_file: dict[str, list[int]] = {}
    for t in passing:
        f = t.split("::")[0]
        per_file.setdefault(f, [0, 0])
        per_file[f][0] += 1
        per_file[f][1] += t not in missing
    for f, (n, ok) in sorted(per_file.items()):
        print(f"{f:40s} {ok:4d} / {n:4d} pass with bleustats")
    print(f"total: {len(passing) - len(missing)} / {len(passing)} of the tests that pass with sacreBLEU "
          f"(sacreBLEU itself: {len(passing)} passed of {len(real)})")
    for t in missing:
        print(f"  not with bleustats: {t} ({ours.get(t, 'not collected')})")
    if args.json:
        Path(args.json).write_text(json.dumps({"sacrebleu": real, "bleustats": ours}, indent=1), encoding="utf-8")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
