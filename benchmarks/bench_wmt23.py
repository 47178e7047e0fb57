#!/usr/bin/env python3
"""The WMT23 general task's automatic scores on every route: sacreBLEU 2.6 vs bleustats, same run.

Data: a local copy of wmt-conference/wmt23-news-systems (``--data DIR``, the repository's
root: ``txt/`` and ``scores/automatic-scores.tsv``), 14 language pairs, 186 systems. Each
route computes the 744 published numbers (BLEU and chrF2, against ref A and against all
references as the published table took them: refA alone for every pair, see ``ALL_REFERENCES``)
and checks every one against ``scores/automatic-scores.tsv`` (1e-9; the command line's JSON
printed with ``-w 10``).
BLEU uses 13a, ``zh`` into Chinese and ``char`` into Japanese (the published numbers' choice).

Routes, each run in a fresh process per tool:

* ``api``: ``corpus_bleu`` / ``corpus_chrf`` per system (references passed on every call);
* ``objects``: ``BLEU(references=...)`` / ``CHRF(references=...)`` built once per reference
  set, ``corpus_score(hyp, None)`` per system;
* ``cli``: one command per pair and reference set (``sacrebleu REF... -i SYS... -m bleu chrf``
  vs ``bleustats score`` with the same arguments), whole process, summed; the tools alternate
  command by command (sacreBLEU's, then bleustats' same command), so a change of the host's
  speed during the ~5 minutes touches both sums alike;
* ``stats`` (bleustats only): one statistics table per pair and reference set for all systems
  (``compute_stats(..., metrics=("bleu", "chrf"))``), scored with ``corpus_scores`` by system;
  its peer is sacreBLEU's ``api`` route;
* ``ende``: en-de alone, ``-m bleu -f json``, one command (12 systems x 557 paragraphs), whole
  process, median of ``--repeats``, the two tools alternating (sacreBLEU, bleustats, sacreBLEU, ...).

Run it with the interpreter of an environment where bleustats is installed as users get it (``pip
install`` of the wheel, beside sacreBLEU): an editable install puts setuptools' import finder into
every process. The report says which (``bleustats_install``). Before timing, bleustats'
modules are byte-compiled (``compileall``), as ``pip install`` does for an installed package
(sacreBLEU's are): an editable install run with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile
~45 modules from source in every process (~0.1 s). Where the remaining time of one command goes:
``benchmarks/phases_score.py``.

Usage::

    python benchmarks/bench_wmt23.py --data /path/to/wmt23-news-systems \
        [--routes api objects cli stats ende] [--repeats 5] [--json benchmarks/results/wmt23.json]
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))


def tokenizer(pair: str) -> str:
    """BLEU's tokenizer for ``pair``'s target language (the published numbers' choice)."""
    return {"zh": "zh", "ja": "char"}.get(pair.split("-")[1], "13a")


# The published ``-all`` numbers of en-he and he-en equal their ``-refA`` numbers to every digit (en-he ONLINE-Y:
# bleu-all = bleu-refA = 37.1887; refA+refB give 54.5421): the table was computed before refB was in the
# repository. "all" is therefore the references each pair's published row used; a pair not listed uses every
# reference file it has.
ALL_REFERENCES = {"en-he": ("refA",), "he-en": ("refA",)}


def load(data: str) -> dict:
    """Per pair: reference sets {'refA': [stream], 'all': [streams]} and {system: lines} (name order)."""
    txt = os.path.join(data, "txt")
    pairs = {}
    for path in sorted(glob.glob(os.path.join(txt, "references", "generaltest2023.*.ref.refA.*"))):
        pair = os.path.basename(path).split(".")[1]
        refs = sorted(glob.glob(os.path.join(txt, "references", f"generaltest2023.{pair}.ref.ref*")))
        if pair in ALL_REFERENCES:
            refs = [r for r in refs if os.path.basename(r).split(".")[3] in ALL_REFERENCES[pair]]
        read = {p: _lines(p) for p in refs}
        systems = {}
        for hyp in sorted(glob.glob(os.path.join(txt, "system-outputs", f"generaltest2023.{pair}.hyp.*"))):
            name = os.path.basename(hyp).split(".hyp.")[1].rsplit(".", 1)[0]
            systems[name] = (hyp, _lines(hyp))
        pairs[pair] = {"refs": {"refA": [path], "all": refs}, "texts": read, "systems": systems}
    return pairs


def _lines(path: str) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as fh:
        return fh.read().split("\n")[:-1]


def published(data: str) -> dict:
    """{(pair, system, 'bleu-refA' | 'bleu-all' | 'chrf-refA' | 'chrf-all'): score} of the task's table."""
    with open(os.path.join(data, "scores", "automatic-scores.tsv"), encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return {(r["pair"], r["system"], r["metric"]): float(r["score"]) for r in rows}


# ----------------------------------------------------------------------------- workers


def worker(route: str, lib: str, data: str) -> dict:
    """Run one in-process route with ``lib``; returns seconds (import and reading excluded) and scores."""
    pairs = load(data)
    t0 = time.perf_counter()
    if lib == "sacrebleu":
        import sacrebleu as api
        from sacrebleu.metrics import BLEU, CHRF
    else:
        import bleustats as api
        from bleustats.metrics import BLEU, CHRF
    t_import = time.perf_counter() - t0
    scores = {}
    t0 = time.perf_counter()
    for pair, p in pairs.items():
        tok = tokenizer(pair)
        for ref_set, paths in p["refs"].items():
            streams = [p["texts"][path] for path in paths]
            if route == "api":
                for name, (_, hyp) in p["systems"].items():
                    scores[f"{pair}|{name}|bleu-{ref_set}"] = api.corpus_bleu(hyp, streams, tokenize=tok).score
                    scores[f"{pair}|{name}|chrf-{ref_set}"] = api.corpus_chrf(hyp, streams).score
            elif route == "objects":
                bleu, chrf = BLEU(tokenize=tok, references=streams), CHRF(references=streams)
                for name, (_, hyp) in p["systems"].items():
                    scores[f"{pair}|{name}|bleu-{ref_set}"] = bleu.corpus_score(hyp, None).score
                    scores[f"{pair}|{name}|chrf-{ref_set}"] = chrf.corpus_score(hyp, None).score
            elif route == "stats":
                import pandas as pd

                names = list(p["systems"])
                hyps = pd.DataFrame({"seg_id": [i for n in names for i in range(len(p["systems"][n][1]))],
                                     "system": [n for n in names for _ in p["systems"][n][1]],
                                     "text": [t for n in names for t in p["systems"][n][1]]})
                stats = api.compute_stats(hyps, streams, tokenize=tok, metrics=("bleu", "chrf"))
                for metric in ("bleu", "chrf"):
                    table = api.corpus_scores(stats, metric=metric)
                    for name, score in zip(table["system"], table["score"]):
                        scores[f"{pair}|{name}|{metric}-{ref_set}"] = float(score)
            else:
                raise SystemExit(f"unknown route {route!r}")
    return {"seconds": time.perf_counter() - t0, "import_seconds": t_import, "scores": scores}


def run_worker(route: str, lib: str, data: str) -> dict:
    """:func:`worker` in a fresh interpreter (whole-process wall time added)."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--worker", route, lib, "--data", data],
                         check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    result["process_seconds"] = time.perf_counter() - t0
    return result


def command(tool: str) -> list[str]:
    """The command line of ``tool`` (the entry points installed beside this interpreter)."""
    bindir = os.path.dirname(sys.executable)
    return [os.path.join(bindir, "sacrebleu")] if tool == "sacrebleu" else [os.path.join(bindir, "bleustats"), "score"]


def cli_route(tools: tuple[str, ...], data: str) -> dict:
    """One command per pair and reference set, each tool's in turn; per tool, whole-process seconds summed."""
    pairs = load(data)
    row = {tool: {"seconds": 0.0, "scores": {}} for tool in tools}
    for pair, p in pairs.items():
        names = list(p["systems"])
        hyps = [p["systems"][n][0] for n in names]
        for ref_set, paths in p["refs"].items():
            for tool in tools:
                args = [*command(tool), *paths, "-i", *hyps, "-m", "bleu", "chrf", "--tokenize", tokenizer(pair),
                        "-f", "json", "-w", "10"]
                t0 = time.perf_counter()
                out = subprocess.run(args, check=True, capture_output=True, text=True)
                row[tool]["seconds"] += time.perf_counter() - t0
                for name, scored in zip(names, json.loads(out.stdout)):
                    row[tool]["scores"][f"{pair}|{name}|bleu-{ref_set}"] = float(scored["BLEU"])
                    row[tool]["scores"][f"{pair}|{name}|chrf-{ref_set}"] = float(scored["chrF2"])
    return row


def ende_route(data: str, repeats: int) -> dict:
    """en-de, ``-m bleu -f json``, one command per tool, alternating: median whole-process seconds and the output."""
    p = load(data)["en-de"]
    rest = [*p["refs"]["refA"], "-i", *(v[0] for v in p["systems"].values()), "-m", "bleu", "-f", "json"]
    row: dict = {tool: {"runs": [], "outputs": set()} for tool in ("sacrebleu", "bleustats")}
    for _ in range(repeats):
        for tool in row:
            t0 = time.perf_counter()
            out = subprocess.run([*command(tool), *rest], check=True, capture_output=True, text=True)
            row[tool]["runs"].append(time.perf_counter() - t0)
            row[tool]["outputs"].add(out.stdout)
    for res in row.values():
        outputs = res.pop("outputs")
        res["seconds"] = statistics.median(res["runs"])
        res["output"] = outputs.pop() if len(outputs) == 1 else None
    return row


def install_kind(dist: str) -> str:
    """``'editable'``, ``'installed'`` or ``'not installed'`` (run from a source tree): how ``dist`` is installed
    in this interpreter (PEP 610's direct_url.json)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution(dist).read_text("direct_url.json")
    except PackageNotFoundError:
        return "not installed"
    return "editable" if text and json.loads(text).get("dir_info", {}).get("editable") else "installed"


def compile_bleustats() -> None:
    """Byte-compile bleustats' modules once, as installing a package does (see the module docstring)."""
    import compileall

    import bleustats

    compileall.compile_dir(os.path.dirname(bleustats.__file__), quiet=1)


def check(scores: dict, truth: dict, tol: float) -> int:
    """The number of published numbers ``scores`` reproduces within ``tol`` (every one must be there)."""
    ok = 0
    for (pair, system, metric), value in truth.items():
        got = scores.get(f"{pair}|{system}|{metric}")
        if got is not None and abs(got - value) <= tol:
            ok += 1
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="a local copy of wmt-conference/wmt23-news-systems")
    ap.add_argument("--routes", nargs="+", default=["api", "objects", "cli", "stats", "ende"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default=None, help="write the raw results here")
    ap.add_argument("--worker", nargs=2, metavar=("ROUTE", "LIB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.data)))
        return
    truth = published(args.data)
    compile_bleustats()
    import bleustats
    import sacrebleu

    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
              "load_before": os.getloadavg(), "python": platform.python_version(),
              "bleustats": bleustats.__version__, "bleustats_install": install_kind("bleustats"),
              "sacrebleu": sacrebleu.__version__, "published": len(truth), "routes": {}}
    for route in args.routes:
        row = {}
        row["load_before"] = os.getloadavg()
        if route == "ende":
            row.update(ende_route(args.data, args.repeats))
            row["identical_output"] = row["sacrebleu"].pop("output") == row["bleustats"].pop("output")
        elif route == "cli":
            row.update(cli_route(("sacrebleu", "bleustats"), args.data))
            for res in (row["sacrebleu"], row["bleustats"]):
                res["reproduced"] = check(res.pop("scores"), truth, 1e-8)
        else:
            for tool in ("sacrebleu", "bleustats") if route != "stats" else ("bleustats",):
                res = run_worker(route, tool, args.data)
                res["reproduced"] = check(res.pop("scores"), truth, 1e-9)
                row[tool] = res
        row["load_after"] = os.getloadavg()
        peer = row.get("sacrebleu") or report["routes"].get("api", {}).get("sacrebleu")
        if peer:
            row["speedup"] = peer["seconds"] / row["bleustats"]["seconds"]
        report["routes"][route] = row
        print(route, json.dumps(row), flush=True)
    report["load_after"] = os.getloadavg()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
