"""Whole-process time of everyday commands, source tree against source tree, in the same run.

Each tree is a ``src`` folder (a checkout's, or ``git worktree add /tmp/t COMMIT``'s); every
command runs in a fresh ``python`` with ``PYTHONPATH`` at that tree, the trees alternating
command by command and their order rotating each round, so that the host's drift falls on all
of them alike. One untimed run per tree and command comes first (numba's cache filled, bytecode
compiled). Reported: median wall seconds (the parent's clock from start to exit) and CPU seconds
(the child's user + system time) per tree and command, and each tree's difference from the one
before it. Used for the cost of each start-up change of issue 37 (``results/startup.md``)::

    python benchmarks/bench_startup.py --tree before=/tmp/t0/src --tree after=src \\
        --wmt23 /path/to/wmt23-news-systems --repeats 15 --json benchmarks/results/startup.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: the library as a script uses it: corpus BLEU of each of the bundled sample's 8 systems (527 segments x
#: 3 references), the texts read with the csv module
LIBRARY = """import csv, collections, bleustats, bleustats.sample_data as s
p = s.paths()
read = lambda name: list(csv.DictReader(open(p[name], encoding="utf-8"), delimiter="\\t", quoting=csv.QUOTE_NONE))
hyps = collections.defaultdict(dict)
for row in read("hypotheses"):
    hyps[row["system"]][row["seg_id"]] = row["text"]
refs = collections.defaultdict(dict)
for row in read("references"):
    refs[row["ref_id"]][row["seg_id"]] = row["text"]
segs = sorted(refs["ref-A"], key=int)
streams = [[r.get(k) for k in segs] for r in refs.values()]
print([round(bleustats.corpus_bleu([h[k] for k in segs], streams).score, 2) for h in hyps.values()])
"""


def _wmt23_command(root: Path, pair: str = "en-de", metrics: tuple[str, ...] = ("bleu", "chrf")) -> list[str]:
    """sacreBLEU's command line for one WMT23 pair: the reference, every system, ``-m`` (the cli route's)."""
    src, tgt = pair.split("-")
    ref = root / "txt" / "references" / f"generaltest2023.{pair}.ref.refA.{tgt}"
    systems = sorted((root / "txt" / "system-outputs").glob(f"generaltest2023.{pair}.hyp.*.{tgt}"))
    if not ref.exists() or not systems:
        raise SystemExit(f"--wmt23 {root}: no {pair} reference or system outputs under txt/")
    return ["score", str(ref), "-i", *map(str, systems), "-m", *metrics]


def _once(tree: str, argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env={**env, "PYTHONPATH": tree}, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(argv)[:200]} exited {done.returncode}: {done.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", action="append", required=True, metavar="NAME=SRC", help="a source tree (repeat)")
    ap.add_argument("--wmt23", help="a copy of wmt-conference/wmt23-news-systems (adds its en-de command)")
    ap.add_argument("--repeats", type=int, default=11)
    ap.add_argument("--json", help="write the runs and medians here")
    a = ap.parse_args()
    trees = dict(t.split("=", 1) for t in a.tree)
    commands = {"--help": ["-m", "bleustats", "--help"],
                "demo": ["-m", "bleustats", "demo"],
                "library, 8 systems": ["-c", LIBRARY]}
    if a.wmt23:
        commands["WMT23 en-de, -m bleu chrf"] = ["-m", "bleustats", *_wmt23_command(Path(a.wmt23))]
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k != "BLEUSTATS_QUIET_COMPILE"}
    env["BLEUSTATS_QUIET_COMPILE"] = "1"
    cwd = os.getcwd()
    for tree in trees.values():  # bytecode, as an installed wheel has it
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True, stdout=subprocess.DEVNULL)
        for argv in commands.values():
            _once(tree, argv, env, cwd)
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {c: {t: [] for t in trees} for c in commands}
    names = list(trees)
    for r in range(a.repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for command, argv in commands.items():
            for name in order:
                runs[command][name].append(_once(trees[name], argv, env, cwd))
        print(f"round {r + 1}/{a.repeats} done", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print(f"\n{a.repeats} runs per tree and command, load average {load[0]:.1f} at the end\n")
    print("| command | tree | wall s | CPU s | wall vs previous | CPU vs previous |")
    print("|---|---|---:|---:|---:|---:|")
    medians = {}
    for command in commands:
        previous = None
        for name in names:
            wall = statistics.median(w for w, _ in runs[command][name])
            cpu = statistics.median(c for _, c in runs[command][name])
            medians[(command, name)] = (wall, cpu)
            dw = f"{wall - previous[0]:+.3f}" if previous else ""
            dc = f"{cpu - previous[1]:+.3f}" if previous else ""
            print(f"| {command} | {name} | {wall:.3f} | {cpu:.3f} | {dw} | {dc} |")
            previous = (wall, cpu)
    if a.json:
        Path(a.json).write_text(json.dumps({
            "trees": trees, "commands": {c: " ".join(v) for c, v in commands.items()}, "repeats": a.repeats,
            "cpus": os.cpu_count(), "python": platform.python_version(), "load_average_end": load,
            "runs": runs, "medians": {f"{c} | {t}": m for (c, t), m in medians.items()}}, indent=1))


if __name__ == "__main__":
    main()
