#!/usr/bin/env python3
"""Where the time of one ``bleustats score`` process goes, phase by phase (WMT23 en-de, sacreBLEU's flags).

The command is ``bleustats score REF -i SYS... -m METRICS -f json`` on en-de of a local copy of
wmt-conference/wmt23-news-systems (12 systems x 557 paragraphs, refA). Each repeat runs it in
a fresh interpreter with timers around its phases, exclusive of one another (a phase inside
another counts once, in the inner one):

* ``import numpy`` / ``import numba`` / ``import pyarrow``: the three libraries, imported first;
* ``import bleustats``: the command's modules and its kernel modules (decorating the kernels, and
  the numba modules they pull in);
* ``numba runtime start (NRT)``: numba compiles its runtime's helpers once per process;
* ``kernel loads``: reading the compiled kernels from the cache (unpickling, importing the modules
  their environments name, linking the object code);
* ``read + decode files``; ``kernel: ...``: the tokenizer, encoder, statistics and chrF kernels;
  ``formula``: the scores from summed statistics; ``output``: printing the JSON;
* ``other Python``: the rest of the command (arguments, Arrow tables, checks, per-system calls);
* ``interpreter start-up and exit``: the whole process (wall clock, and CPU from the OS) minus the
  in-process phases: Python's start (``site``, the editable install's finder), shutdown.

Usage::

    python benchmarks/phases_score.py --data /path/to/wmt23-news-systems [--metrics bleu] [--repeats 5]

Prints a Markdown table of medians (CPU and wall seconds). The kernels must be compiled already
(run the command once). With two metrics (``--metrics bleu chrf``) the command computes them side
by side on two threads (``sacrebleu_cli._batched_statistics``): their phases overlap, so the rows add
up to more than the whole process and "other Python", the remainder, is understated.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import time

PHASES = ["interpreter start-up and exit", "import numpy", "import numba", "import pyarrow", "import bleustats",
          "numba runtime start (NRT)", "kernel loads", "read + decode files", "kernel: tokenise", "kernel: encode",
          "kernel: statistics", "kernel: chrF", "formula", "output", "other Python"]


def command_args(data: str, metrics: list[str], pair: str = "en-de") -> list[str]:
    """``score``'s arguments for ``pair`` (refA, every system in name order; BLEU's tokenizer as
    ``bench_wmt23.py`` gives it, named only where it is not the default 13a)."""
    txt = os.path.join(data, "txt")
    ref = glob.glob(os.path.join(txt, "references", f"generaltest2023.{pair}.ref.refA.*"))
    hyps = sorted(glob.glob(os.path.join(txt, "system-outputs", f"generaltest2023.{pair}.hyp.*")))
    if len(ref) != 1 or not hyps:
        raise SystemExit(f"--data {data}: expected one refA file and system outputs for {pair}; "
                         f"found {len(ref)} and {len(hyps)}")
    from bench_wmt23 import tokenizer  # here, not at the top: the timed child process never imports it

    tok = tokenizer(pair)
    return ["score", *ref, "-i", *hyps, "-m", *metrics, "-f", "json",
            *(["--tokenize", tok] if tok != "13a" and "bleu" in metrics else [])]


def pairs(data: str) -> list[str]:
    """The language pairs of the data (those with a refA file), in name order."""
    refs = glob.glob(os.path.join(data, "txt", "references", "generaltest2023.*.ref.refA.*"))
    return sorted(os.path.basename(r).split(".")[1] for r in refs)


def child(args: list[str]) -> dict:
    """Run the command in this process with the timers; returns {phase: [cpu, wall]} and the in-process total."""
    clock_w, clock_c = time.perf_counter, time.process_time
    start = (clock_c(), clock_w())
    acc: dict[str, list[float]] = {}
    stack: list[list[float]] = []

    def add(label: str, cpu: float, wall: float) -> None:
        a = acc.setdefault(label, [0.0, 0.0])
        a[0] += cpu
        a[1] += wall

    def timed(label: str, f, *a, **k):
        stack.append([0.0, 0.0])
        c0, w0 = clock_c(), clock_w()
        try:
            return f(*a, **k)
        finally:
            dc, dw = clock_c() - c0, clock_w() - w0
            inner = stack.pop()
            add(label, dc - inner[0], dw - inner[1])
            if stack:
                stack[-1][0] += dc
                stack[-1][1] += dw

    def wrap(obj, name: str, label: str) -> None:
        f = getattr(obj, name)
        setattr(obj, name, lambda *a, **k: timed(label, f, *a, **k))

    timed("import numpy", __import__, "numpy")
    timed("import numba", __import__, "numba")
    timed("import pyarrow", __import__, "pyarrow")

    def import_bleustats():
        from bleustats.cli import main, sacrebleu_cli  # noqa: F401
        from bleustats.engine import _encode_kernels, _stats_kernels, _tokenize_kernels, encode, stats  # noqa: F401
        from bleustats.metrics import bleu  # noqa: F401
        if "chrf" in args:
            from bleustats.engine import _chrf_kernels, chrf_stats  # noqa: F401
            from bleustats.metrics import chrf  # noqa: F401

    timed("import bleustats", import_bleustats)
    from numba.core import caching
    from numba.core.runtime import nrt

    from bleustats.cli.main import main as command_main
    from bleustats.cli import sacrebleu_cli
    from bleustats.engine import _encode_kernels, _stats_kernels, _tokenize_kernels
    from bleustats.metrics.bleu import BLEU

    wrap(type(nrt.rtsys), "initialize", "numba runtime start (NRT)")
    wrap(caching.Cache, "_load_overload", "kernel loads")
    wrap(sacrebleu_cli, "_read", "read + decode files")
    for name in ("tokenize_serial", "tokenize_blocks"):
        wrap(_tokenize_kernels, name, "kernel: tokenise")
    for name in ("encode_lines_serial", "encode_lines"):
        wrap(_encode_kernels, name, "kernel: encode")
    for name in ("compute_stats_serial", "compute_stats"):
        wrap(_stats_kernels, name, "kernel: statistics")
    wrap(BLEU, "_compute_score_from_stats", "formula")
    if "chrf" in args:
        from bleustats.engine import _chrf_kernels
        from bleustats.metrics.chrf import CHRF

        for name in ("chrf_rows_serial", "chrf_rows"):
            wrap(_chrf_kernels, name, "kernel: chrF")
        wrap(CHRF, "_compute_score_from_stats", "formula")
    wrap(sacrebleu_cli, "_print_table", "output")
    sys.argv = ["bleustats", *args]
    with open(os.devnull, "w") as null:
        real, sys.stdout = sys.stdout, null
        try:
            status = timed("other Python", command_main)
        finally:
            sys.stdout = real
    if status:
        raise SystemExit(f"bleustats score exited with {status}")
    return {"phases": acc, "in_process": [clock_c() - start[0], clock_w() - start[1]]}


def run_child(args: list[str]) -> dict:
    """:func:`child` in a fresh interpreter, with its whole-process wall and CPU seconds."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(args)], check=True,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = json.loads(out.stdout)
    res["process"] = [r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, wall]
    return res


def medians(runs: list[dict]) -> tuple[dict, list[float]]:
    """{phase: [cpu, wall]} medians over ``runs`` and the whole process' [cpu, wall] median."""
    rows = {}
    for phase in PHASES:
        values = []
        for r in runs:
            if phase == "interpreter start-up and exit":
                values.append([p - i for p, i in zip(r["process"], r["in_process"])])
            else:
                values.append(r["phases"].get(phase, [0.0, 0.0]))
        rows[phase] = [statistics.median(v[k] for v in values) for k in (0, 1)]
    whole = [statistics.median(r["process"][k] for r in runs) for k in (0, 1)]
    return rows, whole


#: The per-pair table's columns: phases shown on their own (CPU seconds); the rest is summed into "fixed".
PER_PAIR = ["read + decode files", "kernel: tokenise", "kernel: encode", "kernel: statistics", "kernel: chrF",
            "other Python"]


def per_pair(data: str, metrics: list[str], repeats: int) -> None:
    """One row per language pair: where the CPU of that pair's command goes (medians of ``repeats``)."""
    load_before = os.getloadavg()
    print("| pair | systems | lines | whole CPU s | whole wall s | start-up, imports, loads CPU s | "
          + " | ".join(f"{p} CPU s" for p in PER_PAIR) + " |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(PER_PAIR))
    total = [0.0, 0.0]
    for pair in pairs(data):
        args = command_args(data, metrics, pair)
        n_sys = len(args) - args.index("-i") - 1 - len(metrics) - 3 - (2 if "--tokenize" in args else 0)
        with open(args[1], encoding="utf-8") as fh:
            n_lines = sum(1 for _ in fh)
        rows, whole = medians([run_child(args) for _ in range(repeats)])
        fixed = whole[0] - sum(rows[p][0] for p in PER_PAIR) - rows["formula"][0] - rows["output"][0]
        total = [total[0] + whole[0], total[1] + whole[1]]
        print(f"| {pair} | {n_sys} | {n_lines} | {whole[0]:.3f} | {whole[1]:.3f} | {fixed:.3f} | "
              + " | ".join(f"{rows[p][0]:.3f}" for p in PER_PAIR) + " |")
    print(f"\n-m {' '.join(metrics)}; median of {repeats}; summed whole process: {total[0]:.2f} s CPU, "
          f"{total[1]:.2f} s wall; load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", help="a local copy of wmt-conference/wmt23-news-systems")
    ap.add_argument("--metrics", nargs="+", default=["bleu"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--pair", default="en-de", help="the language pair's command (default en-de)")
    ap.add_argument("--per-pair", action="store_true",
                    help="one row per language pair instead of the phases of one command")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.child:
        print(json.dumps(child(json.loads(opts.child))))
        return
    if not opts.data:
        ap.error("--data is required")
    if opts.per_pair:
        per_pair(opts.data, opts.metrics, opts.repeats)
        return
    args = command_args(opts.data, opts.metrics, opts.pair)
    load_before = os.getloadavg()
    rows, whole = medians([run_child(args) for _ in range(opts.repeats)])
    print(f"`bleustats score` {opts.pair}, -m {' '.join(opts.metrics)}; median of {opts.repeats}; load average "
          f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after\n")
    print("| phase | CPU s | wall s |\n|---|---:|---:|")
    for phase, (cpu, wall) in rows.items():
        if cpu or wall:
            print(f"| {phase} | {cpu:.3f} | {wall:.3f} |")
    print(f"| **whole process** | **{whole[0]:.3f}** | **{whole[1]:.3f}** |")


if __name__ == "__main__":
    main()
