#!/usr/bin/env python3
"""Paired significance tests: bleustats from cached statistics vs ``sacrebleu --paired-bs / --paired-ar``.

Data (``python benchmarks/generate.py`` writes it): 10,000 segments; baseline
``hyp.10000.txt``; system ``sys_mix.10000.txt``, written here: the baseline with every
1,000th line replaced by that line of ``ref3.10000.txt``, a slightly better system, so the
p-value (about 0.08) is not at its floor and the p-value check means something;
references ``ref0/ref1/ref2.10000.txt``; tokenize ``none``.

Every run is a fresh subprocess; tools alternate; the median of ``--repeats`` (>= 3) runs
is reported.

  sacrebleu   ``sacrebleu REFS -i BASELINE SYSTEM -tok none --paired-bs`` (1,000 resamples,
              SACREBLEU_SEED default 12345), or ``--paired-ar`` (10,000 trials); wall time of
              the command.
  bleustats   in one process: JIT warm-up on a toy corpus (timed separately), then
              ``compute_stats`` of both systems from the same files (``stats``), then
              ``paired_bootstrap`` / ``paired_approximate_randomization`` with the same
              seed (``test``); ``e2e`` = stats + test (files to p-value), ``cached`` = test
              alone (what a study pays once the statistics exist).

Gate: the p-value must be equal and the scores, means and intervals within 1e-9 of
sacreBLEU's, or the run fails. Results: ``benchmarks/results/significance.{json,md}``.

Usage::

    python benchmarks/bench_significance.py                 # bs and ar, 3 repeats
    python benchmarks/bench_significance.py --tests bs --repeats 3
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RESULTS = os.path.join(HERE, "results")
TAG = "@@SIG@@ "
TOL = 1e-9
SIZE = 10_000
TESTS = {"bs": ("--paired-bs", 1000), "ar": ("--paired-ar", 10000)}


MIX_EVERY = 1000


def files(data: str) -> tuple[str, str, list[str]]:
    base = os.path.join(data, f"hyp.{SIZE}.txt")
    system = os.path.join(data, f"sys_mix.{SIZE}.txt")
    refs = [os.path.join(data, f"ref{k}.{SIZE}.txt") for k in range(3)]
    return base, system, refs


def write_system(data: str) -> None:
    """The system file: the baseline with every MIX_EVERY-th line taken from ref3 (deterministic)."""
    base, system, _ = files(data)
    with open(base, encoding="utf-8") as fh:
        lines = fh.read().split("\n")[:-1]
    with open(os.path.join(data, f"ref3.{SIZE}.txt"), encoding="utf-8") as fh:
        better = fh.read().split("\n")[:-1]
    mixed = [better[i] if i % MIX_EVERY == 0 else line for i, line in enumerate(lines)]
    tmp = system + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(mixed) + "\n")
    os.replace(tmp, system)


def worker(test: str, data: str) -> dict:
    """bleustats in this process: warm-up, statistics from the files, the test."""
    t0 = time.perf_counter()
    import numpy as np
    import pyarrow as pa

    from bleustats import compute_stats, significance
    from bleustats.engine.io import read_lines

    t_import = time.perf_counter() - t0

    def run(base_lines, sys_lines, ref_streams, n):
        t = time.perf_counter()
        k = len(base_lines)
        hyps = pa.table({"seg_id": np.r_[np.arange(k), np.arange(k)].astype(np.int64),
                         "system": ["baseline"] * k + ["system"] * k,
                         "text": list(base_lines) + list(sys_lines)})
        refs = pa.table({"seg_id": np.tile(np.arange(k), len(ref_streams)).astype(np.int64),
                         "ref_id": [f"ref{j}" for j in range(len(ref_streams)) for _ in range(k)],
                         "weight": np.ones(k * len(ref_streams)),
                         "text": [line for stream in ref_streams for line in stream]})
        stats = compute_stats(hyps, refs, tokenize="none")
        t_stats = time.perf_counter() - t
        t = time.perf_counter()
        if test == "bs":
            res = significance.paired_bootstrap(stats, "baseline", "system", n_samples=n)
        else:
            res = significance.paired_approximate_randomization(stats, "baseline", "system", n_samples=n)
        return res, t_stats, time.perf_counter() - t

    t = time.perf_counter()
    run(["a b c d", "e f"], ["a b x d", "e f"], [["a b c d", "e g"]], 10)
    warm = time.perf_counter() - t
    base, system, refs = files(data)
    t = time.perf_counter()
    base_lines, sys_lines = read_lines(base).to_pylist(), read_lines(system).to_pylist()
    ref_streams = [read_lines(r).to_pylist() for r in refs]
    t_read = time.perf_counter() - t
    res, t_stats, t_test = run(base_lines, sys_lines, ref_streams, TESTS[test][1])
    return {"import": t_import, "warmup": warm, "read": t_read, "stats": t_stats, "test": t_test,
            "e2e": t_read + t_stats + t_test, "cached": t_test,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "result": {"baseline": res.baseline_score, "system": res.system_score, "p_value": res.p_value,
                       "baseline_mean": res.baseline_mean, "baseline_ci": res.baseline_ci,
                       "system_mean": res.system_mean, "system_ci": res.system_ci}}


def run_bleustats(test: str, data: str) -> dict:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--worker", test, "--data", data],
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    line = next(x for x in out.stdout.splitlines() if x.startswith(TAG))
    res = json.loads(line[len(TAG):])
    res["wall"] = wall
    return res


def run_sacrebleu(test: str, data: str) -> dict:
    base, system, refs = files(data)
    flag, _ = TESTS[test]
    cmd = ["sacrebleu", *refs, "-i", base, system, "-tok", "none", flag, "--format", "json"]
    env = dict(os.environ, SACREBLEU_SEED="12345")
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    wall = time.perf_counter() - t
    rows = json.loads(out.stdout)
    b, s = rows[0]["BLEU"], rows[1]["BLEU"]
    return {"wall": wall, "e2e": wall,
            "result": {"baseline": b["score"], "system": s["score"], "p_value": s["p_value"],
                       "baseline_mean": b.get("mean"), "baseline_ci": b.get("ci"),
                       "system_mean": s.get("mean"), "system_ci": s.get("ci")}}


def check(ours: dict, theirs: dict) -> float:
    """Largest absolute difference; raises when the two disagree."""
    worst = 0.0
    for key, want in theirs.items():
        got = ours[key]
        if want is None or got is None:
            if (want is None) != (got is None):
                raise SystemExit(f"disagreement on {key}: bleustats {got!r}, sacreBLEU {want!r}")
            continue
        diff = abs(got - want)
        worst = max(worst, diff)
        if (key == "p_value" and got != want) or diff > TOL:
            raise SystemExit(f"disagreement on {key}: bleustats {got!r}, sacreBLEU {want!r}")
    return worst


def render(meta: dict, tasks: dict) -> str:
    md = ["# Paired significance tests: bleustats vs sacreBLEU 2.6 on the same files", "",
          f"Started {meta['started']} on {meta['cpu']} ({meta['cpu_count']} logical CPUs), Python "
          f"{meta['python']}; {SIZE:,} segments, 3 references, tokenize none; baseline hyp.{SIZE}.txt, "
          f"system sys_mix.{SIZE}.txt (the baseline with every {MIX_EVERY:,}th line from ref3). "
          f"Median of {meta['repeats']} runs per tool, each in a fresh process, "
          "tools alternating. bleustats `e2e` reads the files, computes the statistics of both systems "
          "and runs the test; `cached` is the test alone on the statistics table. The p-value equals "
          "sacreBLEU's and scores, means and intervals agree within 1e-9 (checked every run).", "",
          "| test | sacreBLEU CLI s | bleustats e2e s | bleustats cached s | sacreBLEU / e2e | "
          "sacreBLEU / cached | bleustats warm-up s | p-value | max abs diff |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for test, t in tasks.items():
        md.append(f"| {TESTS[test][0]} ({TESTS[test][1]:,}) | {t['sacrebleu']:.2f} | {t['e2e']:.3f} | "
                  f"{t['cached']:.3f} | {t['sacrebleu'] / t['e2e']:.1f}× | {t['sacrebleu'] / t['cached']:.0f}× | "
                  f"{t['warmup']:.2f} | {t['p_value']:.4g} | {t['max_abs_diff']:.1e} |")
    return "\n".join(md) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", nargs="+", default=["bs", "ar"], choices=list(TESTS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--out", default=os.path.join(RESULTS, "significance"))
    ap.add_argument("--worker", choices=list(TESTS), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(TAG + json.dumps(worker(a.worker, a.data)))
        return 0
    if a.repeats < 3:
        ap.error("--repeats must be >= 3 (the median of at least three runs is reported)")
    base, _, refs = files(a.data)
    for path in [base, *refs, os.path.join(a.data, f"ref3.{SIZE}.txt")]:
        if not os.path.exists(path):
            ap.error(f"{path} is missing: run python benchmarks/generate.py --sizes {SIZE} --refs 4")
    write_system(a.data)
    import sacrebleu

    import bleustats

    meta = {"started": _dt.datetime.now().isoformat(timespec="seconds"), "cpu": platform.processor() or
            platform.machine(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "sacrebleu": sacrebleu.__version__, "bleustats": bleustats.__version__, "repeats": a.repeats}
    try:
        with open("/proc/cpuinfo") as fh:
            meta["cpu"] = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    runs: dict = {t: {"sacrebleu": [], "bleustats": []} for t in a.tests}
    tasks: dict = {}
    for test in a.tests:
        for rep in range(a.repeats):
            order = ["sacrebleu", "bleustats"] if rep % 2 == 0 else ["bleustats", "sacrebleu"]
            for tool in order:
                res = run_sacrebleu(test, a.data) if tool == "sacrebleu" else run_bleustats(test, a.data)
                runs[test][tool].append(res)
                print(f"{test} {tool} run {rep + 1}: {res['e2e']:.3f} s", file=sys.stderr)
            diff = check(runs[test]["bleustats"][-1]["result"], runs[test]["sacrebleu"][-1]["result"])
        b = runs[test]["bleustats"]
        tasks[test] = {"sacrebleu": statistics.median(r["wall"] for r in runs[test]["sacrebleu"]),
                       "e2e": statistics.median(r["e2e"] for r in b),
                       "cached": statistics.median(r["cached"] for r in b),
                       "warmup": statistics.median(r["warmup"] for r in b),
                       "p_value": b[-1]["result"]["p_value"], "max_abs_diff": diff}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump({"meta": meta, "tasks": tasks, "runs": runs}, fh, indent=1)
    md = render(meta, tasks)
    with open(a.out + ".md", "w") as fh:
        fh.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
