"""Run real sacreBLEU clients (``evaluate``'s metric modules, mbrs' metric tests) with bleustats in its place.

Issue 25's check that code written by others for sacreBLEU runs on bleustats through the opt-in
shim (:mod:`bleustats.sacrebleu_shim`). Each client runs twice, in fresh processes: once with the
real sacreBLEU and once with the shim installed (every ``import sacrebleu`` then gives bleustats).
A check passes "as sacreBLEU" when it passes with the real sacreBLEU; the run succeeds when every
such check passes with bleustats too (exit 1 otherwise, listing them). The clients' code is read
from the local copies given by path; nothing of it is copied into this repository.

- ``--evaluate PATH``: a checkout of huggingface/evaluate. The ``Examples`` of the
  ``metrics/sacrebleu``, ``metrics/chrf`` and ``metrics/ter`` modules' input descriptions run as
  doctests, each module loaded from its local folder (``evaluate.load("sacrebleu")`` in an
  example loads ``PATH/metrics/sacrebleu``; offline). Needs ``evaluate`` installed.
- ``--mbrs PATH``: a checkout of naist-nlp/mbrs. Its BLEU, chrF and TER metric tests
  (``mbrs/metrics/{bleu,chrf,ter}_test.py``) run with pytest in a scratch copy of the checkout.
  Needs mbrs' dependencies installed (torch, ...). ``--mbrs-python`` runs them with another
  interpreter (mbrs' and evaluate's dependencies pin different ``huggingface-hub`` versions).

Usage::

    python tools/sacrebleu_clients.py --evaluate /path/to/evaluate --mbrs /path/to/mbrs \\
        [--mbrs-python /path/to/venv/bin/python] [--json outcomes.json]

Both runs need sacreBLEU installed (the test extra pins 2.6.0) and bleustats.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

EVALUATE_MODULES = ("sacrebleu", "chrf", "ter")
MBRS_TESTS = ("bleu_test", "chrf_test", "ter_test")

#: runs one evaluate module's examples; argv: evaluate checkout, module name, shim (0/1); prints JSON outcomes
EVALUATE_RUNNER = r'''
import doctest, json, sys
root, name, shim = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if shim:
    import bleustats.sacrebleu_shim
    bleustats.sacrebleu_shim.install()
import evaluate


class LocalEvaluate:  # the examples' `evaluate`, loading metrics from the checkout, never the Hub
    def __getattr__(self, attr):
        return getattr(evaluate, attr)

    @staticmethod
    def load(path, *args, **kwargs):
        return evaluate.load(f"{root}/metrics/{path}", *args, **kwargs)


import sacrebleu
assert (sacrebleu.__name__ == "bleustats.sacrebleu_shim.package") == shim, sacrebleu.__name__
text = json.loads(sys.stdin.read())
outcomes = {}
parser = doctest.DocTestParser()
for title, block in text:
    test = parser.get_doctest(block, {"evaluate": LocalEvaluate()}, f"{name}:{title}", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=lambda s: sys.stderr.write(s))
    outcomes[f"evaluate/{name}::{title}"] = "passed" if result.failed == 0 else "failed"
    outcomes[f"evaluate/{name}::{title}::examples"] = result.attempted
print(json.dumps(outcomes))
'''

#: conftest.py of the bleustats run of mbrs' tests
MBRS_HOOK = '''
import bleustats.sacrebleu_shim

bleustats.sacrebleu_shim.install()
import sacrebleu  # noqa: E402

assert sacrebleu.__name__ == "bleustats.sacrebleu_shim.package", sacrebleu.__name__
'''


def _examples(source: Path) -> list[tuple[str, str]]:
    """The ``Examples`` of a module's ``_KWARGS_DESCRIPTION``, split at its ``Example N:`` titles."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    doc = next((node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(t, "id", "") == "_KWARGS_DESCRIPTION" for t in node.targets)), None)
    if doc is None or "Examples" not in doc:
        raise SystemExit(f"{source}: no _KWARGS_DESCRIPTION with Examples (not an evaluate metric module?)")
    blocks: list[tuple[str, list[str]]] = []
    for line in doc[doc.index("Examples"):].splitlines()[1:]:
        if line.strip().startswith("Example ") and line.strip().endswith(":"):
            blocks.append((line.strip()[:-1], []))
        elif blocks:
            blocks[-1][1].append(line)
        elif line.strip():
            blocks.append(("Example", [line]))
    return [(title, "\n".join(lines)) for title, lines in blocks if ">>>" in "\n".join(lines)]


def run_evaluate(root: Path, with_shim: bool, scratch: Path) -> dict[str, object]:
    outcomes: dict[str, object] = {}
    env = {**os.environ, "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(scratch / ("hf-bleustats" if with_shim else "hf-sacrebleu"))}
    for name in EVALUATE_MODULES:
        source = root / "metrics" / name / f"{name}.py"
        if not source.is_file():
            raise SystemExit(f"--evaluate: {source} is missing; give the root of a huggingface/evaluate checkout.")
        proc = subprocess.run([sys.executable, "-c", EVALUATE_RUNNER, str(root), name, "1" if with_shim else "0"],
                              input=json.dumps(_examples(source)), capture_output=True, text=True, env=env,
                              cwd=scratch)
        if proc.returncode != 0 or not proc.stdout.strip():
            label = "bleustats" if with_shim else "sacrebleu"
            print(f"evaluate/{name} ({label}) did not run:\n{proc.stderr[-3000:]}", file=sys.stderr)
            outcomes[f"evaluate/{name}::module"] = "failed"
            continue
        if proc.stderr.strip():
            print(proc.stderr[-3000:], file=sys.stderr)
        outcomes.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return outcomes


def run_mbrs(root: Path, python: str, with_shim: bool, scratch: Path) -> dict[str, object]:
    label = "bleustats" if with_shim else "sacrebleu"
    tree = scratch / f"mbrs-{label}"
    if not (root / "mbrs" / "metrics").is_dir():
        raise SystemExit(f"--mbrs: {root}/mbrs/metrics is not a folder; give the root of a naist-nlp/mbrs checkout.")
    shutil.copytree(root / "mbrs", tree / "mbrs")
    if with_shim:
        (tree / "conftest.py").write_text(MBRS_HOOK, encoding="utf-8")
    outcomes: dict[str, object] = {}
    for name in MBRS_TESTS:  # one process per file, so an import error is attributed to its file
        report = tree / f"{name}.xml"
        proc = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tree),
                               f"--junitxml={report}", f"mbrs/metrics/{name}.py"], cwd=tree, capture_output=True,
                              text=True)
        if not report.exists():
            raise SystemExit(f"{label}: pytest wrote no report for {name}\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-3000:]}")
        for case in ET.parse(report).iter("testcase"):
            kinds = {child.tag for child in case}
            if not case.get("classname"):
                first = next((ln for ln in proc.stdout.splitlines() if ln.startswith("E ")), "E collection failure")
                print(f"{label}: mbrs {name} not collected: {first[1:].strip()}", file=sys.stderr)
                outcomes[f"mbrs/{name}::collection"] = "failed"
                continue
            outcomes[f"mbrs/{case.get('classname')}::{case.get('name')}"] = (
                "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed")
    return outcomes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evaluate", type=Path, help="a huggingface/evaluate checkout")
    ap.add_argument("--mbrs", type=Path, help="a naist-nlp/mbrs checkout")
    ap.add_argument("--mbrs-python", default=sys.executable, help="interpreter for mbrs' tests (default: this one)")
    ap.add_argument("--json", metavar="PATH", help="also write the per-check outcomes as JSON")
    args = ap.parse_args(argv)
    if not args.evaluate and not args.mbrs:
        ap.error("give --evaluate and/or --mbrs")
    real: dict[str, object] = {}
    ours: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="sacrebleu-clients-") as tmp:
        scratch = Path(tmp)
        if args.evaluate:
            real.update(run_evaluate(args.evaluate.resolve(), False, scratch))
            ours.update(run_evaluate(args.evaluate.resolve(), True, scratch))
        if args.mbrs:
            real.update(run_mbrs(args.mbrs.resolve(), args.mbrs_python, False, scratch))
            ours.update(run_mbrs(args.mbrs.resolve(), args.mbrs_python, True, scratch))
    checks = sorted(t for t, o in real.items() if o in ("passed", "failed", "skipped"))
    passing = [t for t in checks if real[t] == "passed"]
    missing = [t for t in passing if ours.get(t) != "passed"]
    per_client: dict[str, list[int]] = {}
    for t in passing:
        client = t.split("::")[0]
        per_client.setdefault(client, [0, 0, 0])
        per_client[client][0] += 1
        per_client[client][1] += t not in missing
        per_client[client][2] += int(ours.get(f"{t}::examples", 0) or 0)  # type: ignore[call-overload]
    for client, (n, ok, examples) in sorted(per_client.items()):
        extra = f" ({examples} doctest examples)" if examples else ""
        print(f"{client:40s} {ok:4d} / {n:4d} pass with bleustats{extra}")
    print(f"total: {len(passing) - len(missing)} / {len(passing)} of the checks that pass with sacreBLEU "
          f"(sacreBLEU itself: {len(passing)} passed of {len(checks)})")
    for t in missing:
        print(f"  not with bleustats: {t} ({ours.get(t, 'not run')})")
    if args.json:
        Path(args.json).write_text(json.dumps({"sacrebleu": real, "bleustats": ours}, indent=1), encoding="utf-8")
    return 1 if missing or not passing else 0


if __name__ == "__main__":
    sys.exit(main())
