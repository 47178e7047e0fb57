#!/usr/bin/env python3
"""``bleustats compare`` against compare-mt 0.2.10: whole processes, same data, same run.

Data (WMT21 zh-en, ``<shared>/data/wmt21_news/zh-en``, real system outputs):

* **20,000 segments x 2 systems**: the 23 systems sorted by name are paired (1st with 2nd, 3rd
  with 4th, ...); each pair's 1,948 outputs become 1,948 segments of system 1 and system 2 with
  their ref-A, pair after pair, until 20,000 segments (``--segments``). Written as three text files.
* **10 systems**: the first ten systems (sorted) on the 1,948 segments of the test set, with ref-A.

Command lines (each a fresh process: start-up, reading, tokenizing, every analysis, printing):

  compare-mt   ``compare-mt ref sys1 sys2 --compare_scores score_type=bleu,bootstrap=1000
               score_type=length``: its default report (word F-measure by frequency, BLEU by length,
               length-difference and sentence-BLEU counts, n-gram differences, sentence examples) with
               the corpus BLEU's paired bootstrap of 1,000 samples. (Its bucket intervals,
               ``output_bucket_details=True``, resample every bucket again, 1,000 times each; they are
               left out, which only makes compare-mt faster. Its length-ratio bootstrap fails in 0.2.10.)
  bleustats    ``bleustats compare ref -i sys1 sys2 -tok none --bootstrap 1000`` (compare-mt's
               analyses with compare-mt's split, every value with an interval and a p-value), with
               ``-m bleu`` (compare-mt's metric set), the default metrics (BLEU and chrF), and
               ``-m bleu chrf ter``.

The tools alternate within each repeat; the median of ``--repeats`` runs is reported. bleustats'
first process (numba's cache load, or compile when the cache is cold) runs before the timed ones
and is reported apart. Each timed bleustats run prints ``--json``; its corpus BLEU is checked
against the BLEU compare-mt printed. The machine's load average is recorded at the start and
the end (the machine is shared).

Usage::

    python benchmarks/bench_compare.py --shared /work/shared --repeats 3
    python benchmarks/bench_compare.py --render-only benchmarks/results/compare.json
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parents[1] / "shared"

#: compare-mt's default report, its corpus BLEU with 1,000 paired bootstrap samples (the length ratio's
#: bootstrap fails in compare-mt 0.2.10: LengthScorer has no cached statistics and the source is None)
def compare_mt_options(bootstrap: int) -> list[str]:
    return ["--compare_scores", f"score_type=bleu,bootstrap={bootstrap}", "score_type=length"]
BLEUSTATS_VARIANTS = {"bleustats -m bleu": ["-m", "bleu"], "bleustats (default: bleu chrf)": [],
                      "bleustats -m bleu chrf ter": ["-m", "bleu", "chrf", "ter"]}


def _read_tsv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        return list(reader)


def wmt21(shared: Path) -> tuple[list[str], dict[str, list[str]]]:
    base = shared / "data" / "wmt21_news" / "zh-en"
    ref = {int(r[1]): r[2] for r in _read_tsv(base / "references.tsv") if r[0] == "ref-A"}
    outs: dict[str, dict[int, str]] = {}
    for system, seg, text in _read_tsv(base / "system_outputs.tsv"):
        outs.setdefault(system, {})[int(seg)] = text
    seg_ids = sorted(ref)
    return [ref[s] for s in seg_ids], {name: [outs[name][s] for s in seg_ids] for name in sorted(outs)}


def _write(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def make_data(shared: Path, folder: Path, n_segments: int) -> dict[str, str]:
    ref, systems = wmt21(shared)
    names = list(systems)
    r, a, b = [], [], []
    for k in range(0, len(names) - 1, 2):
        r += ref
        a += systems[names[k]]
        b += systems[names[k + 1]]
    if len(r) < n_segments:
        raise SystemExit(f"--segments {n_segments}: the pairs give {len(r)} segments")
    _write(folder / "ref.txt", r[:n_segments])
    _write(folder / "sys1.txt", a[:n_segments])
    _write(folder / "sys2.txt", b[:n_segments])
    _write(folder / "ten_ref.txt", ref)
    for name in names[:10]:
        _write(folder / f"ten_{name}.txt", systems[name])
    pairs = [f"{names[k]}/{names[k + 1]}" for k in range(0, len(names) - 1, 2)]
    return {"pairs": ", ".join(pairs), "ten": ", ".join(names[:10]), "test_set_segments": len(ref)}


def _time(cmd: list[str], cwd: Path) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return elapsed, proc.stdout


def _compare_mt_bleu(out: str) -> list[float]:
    m = re.search(r"BLEU:\n\tsys1\tsys2(?:\tWin\?)?\nBLEU\t([\d.]+)\t([\d.]+)", out)
    return [float(m.group(1)), float(m.group(2))] if m else []


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(args: argparse.Namespace) -> dict:
    bleustats_exe = shutil.which("bleustats") or sys.exit("bleustats is not on PATH (pip install -e .)")
    compare_mt_exe = shutil.which("compare-mt") or sys.exit("compare-mt is not on PATH (pip install '.[test]')")
    folder = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    try:
        data = make_data(args.shared, folder, args.segments)
        load_start = os.getloadavg()
        base = [bleustats_exe, "compare", "ref.txt", "-i", "sys1.txt", "sys2.txt", "-tok", "none", "--names",
                "sys1", "sys2", "--bootstrap", str(args.bootstrap), "--json"]
        first, _ = _time(base + ["-m", "bleu"], folder)
        runs: dict[str, list[float]] = {"compare-mt": []}
        runs.update({k: [] for k in BLEUSTATS_VARIANTS})
        bleu: dict[str, list[float]] = {}
        for rep in range(args.repeats):
            order = ["compare-mt", *BLEUSTATS_VARIANTS]
            order = order[rep % len(order):] + order[:rep % len(order)]
            for tool in order:
                if tool == "compare-mt":
                    t, out = _time([compare_mt_exe, "ref.txt", "sys1.txt", "sys2.txt", "--seed", "1",
                                    *compare_mt_options(args.bootstrap)], folder)
                    bleu["compare-mt"] = _compare_mt_bleu(out)
                else:
                    t, out = _time(base + BLEUSTATS_VARIANTS[tool], folder)
                    bleu[tool] = [r["value"] for r in json.loads(out) if r["analysis"] == "bleu"]
                runs[tool].append(t)
                print(f"repeat {rep + 1}: {tool}: {t:.2f} s", file=sys.stderr)
        ten_files = [f"ten_{name}.txt" for name in data["ten"].split(", ")]
        ten_cmd = [bleustats_exe, "compare", "ten_ref.txt", "-i", *ten_files, "--bootstrap", str(args.bootstrap),
                   "--json"]
        ten: dict[str, list[float]] = {"default metrics": [], "-m bleu chrf ter": []}
        for _ in range(args.repeats):
            ten["default metrics"].append(_time(ten_cmd, folder)[0])
            ten["-m bleu chrf ter"].append(_time(ten_cmd + ["-m", "bleu", "chrf", "ter"], folder)[0])
        report = folder / "report"
        html_t, _ = _time(ten_cmd + ["-o", str(report)], folder)
        load_end = os.getloadavg()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "cpu": _cpu_model(), "cpu_count": os.cpu_count(),
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS", "default"), "python": platform.python_version(),
        "versions": {p: version(p) for p in ("bleustats", "compare-mt", "numpy", "numba", "nltk", "sacrebleu")},
        "loadavg_start": load_start, "loadavg_end": load_end, "segments": args.segments,
        "bootstrap": args.bootstrap, "repeats": args.repeats, "data": data, "first_process": first,
        "runs": runs, "bleu": bleu, "ten_systems": ten, "ten_systems_with_report": html_t,
        "compare_mt_options": compare_mt_options(args.bootstrap),
    }


def render(res: dict) -> str:
    med = {k: statistics.median(v) for k, v in res["runs"].items()}
    cmt = med["compare-mt"]
    lines = [
        "# `bleustats compare` against compare-mt (`bench_compare.py`)", "",
        f"Finished {res['date']} on {res['cpu']} ({res['cpu_count']} logical CPUs, shared with other sessions; load "
        f"average {', '.join(f'{x:.2f}' for x in res['loadavg_start'])} at the start and "
        f"{', '.join(f'{x:.2f}' for x in res['loadavg_end'])} at the end), Python {res['python']}, "
        + ", ".join(f"{k} {v}" for k, v in res["versions"].items()) + f", numba threads: {res['numba_threads']}.",
        "", "Raw runs: [`compare.json`](compare.json). Command: `python benchmarks/bench_compare.py --shared "
        f"../shared --repeats {res['repeats']}`.", "",
        f"## {res['segments']:,} segments x 2 systems, {res['bootstrap']:,} bootstrap samples", "",
        f"WMT21 zh-en real outputs: the systems sorted by name and paired ({res['data']['pairs']}), each pair's "
        f"{res['data']['test_set_segments']:,} segments with ref-A, pair after pair, the first "
        f"{res['segments']:,} segments. Whole processes (start-up, reading, every analysis, printing), the tools "
        f"alternating in each of {res['repeats']} repeats; median seconds.", "",
        "| command | runs (s) | median s | compare-mt / this |", "|---|---|---:|---:|",
    ]
    for tool, times in res["runs"].items():
        ratio = cmt / med[tool]
        lines.append(f"| {tool} | {', '.join(f'{t:.2f}' for t in times)} | {med[tool]:.2f} | "
                     f"{'1' if tool == 'compare-mt' else f'{ratio:.1f}x'} |")
    lines += [
        "", f"bleustats' first process (the `-m bleu` command, numba's cache read cold), before the timed runs: "
        f"{res['first_process']:.2f} s. The machine is shared: other sessions' jobs kept its load at 2-5 on 2 "
        "CPUs during the run, so a run's time varies by a quarter or more; the tools alternate so that each "
        "sees the same conditions.", "",
        "compare-mt ran `compare-mt ref.txt sys1.txt sys2.txt --seed 1 " + " ".join(
            f"'{o}'" if "=" in o else o for o in res["compare_mt_options"]) + f"`: its default report, with a "
        f"paired bootstrap of {res['bootstrap']:,} samples for the corpus BLEU (its bucket intervals, "
        "`output_bucket_details=True`, which resample every bucket as many times again, are left out: that only "
        "makes compare-mt faster; its length-ratio bootstrap fails in 0.2.10). bleustats ran `bleustats compare "
        f"ref.txt -i sys1.txt sys2.txt -tok none --bootstrap {res['bootstrap']} --json` (compare-mt's split and "
        "analyses; an interval and a p-value for every value, every bucket included), with the metrics shown.", "",
        "Corpus BLEU printed: " + "; ".join(f"{k}: {', '.join(f'{x:.4f}' for x in v)}"
                                             for k, v in res["bleu"].items()) + ".", "",
        f"## 10 systems on the WMT21 zh-en test set ({res['data']['test_set_segments']:,} segments)", "",
        f"Systems: {res['data']['ten']}; ref-A; `bleustats compare ten_ref.txt -i <10 files> --bootstrap "
        f"{res['bootstrap']} --json` (13a), each system against the first.", "",
        "| metrics | runs (s) | median s |", "|---|---|---:|",
    ]
    for k, v in res["ten_systems"].items():
        lines.append(f"| {k} | {', '.join(f'{t:.2f}' for t in v)} | {statistics.median(v):.2f} |")
    lines += ["", f"With the HTML report (`-o report`, default metrics): {res['ten_systems_with_report']:.2f} s.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    p.add_argument("--segments", type=int, default=20_000)
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", type=Path, default=HERE / "results" / "compare")
    p.add_argument("--render-only", type=Path, default=None)
    args = p.parse_args(argv)
    if args.render_only:
        res = json.loads(args.render_only.read_text(encoding="utf-8"))
    else:
        res = run(args)
        args.out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(render(res), encoding="utf-8")
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
