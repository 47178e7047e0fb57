#!/usr/bin/env python3
"""Latency benchmark (issue 15): what a user waits for on small and everyday jobs, bleustats vs its peers.

Tasks, every one on the corpora of ``benchmarks/generate.py`` (``hyp.10000.txt``, ``ref0.10000.txt``):

  import        ``python -c "import X"``: the whole process (interpreter start-up included).
  per call      one sentence BLEU per call in a loop, in one process: ``sentence_bleu(h, [r])`` over the
                first ``--calls`` (2,000) distinct line pairs after one warm-up call (timed apart as
                ``first call``); the time per call, wall and CPU. ``BLEU().sentence_score`` too where the
                library has the object.
  per corpus    corpus BLEU of FEW (5) consecutive segments per call, in one process, over the same
                2,000 line pairs (400 calls): ``corpus_bleu(h, [r])`` and ``BLEU().corpus_score(h, [r])``.
  per chrF/TER  the same two loops for chrF and TER (default options): ``sentence_chrf`` /
                ``CHRF().sentence_score``, ``corpus_chrf`` / ``CHRF().corpus_score`` of FEW segments, and
                TER's four, on the first 200 pairs only (sacreBLEU's TER takes milliseconds per sentence).
                Targets: every per-call route at most 0.7 x sacreBLEU's time (issues 24/25).
  100 sentences a fresh process that imports the library and scores each of the first 100 line pairs
                with sentence BLEU: the whole process.
  100 segments  a fresh process: corpus BLEU of the first 100 segments (1 reference).
  10k segments  a fresh process: corpus BLEU of all 10,000 segments, 1 reference, tokenize 13a and
                none, by the command line (``sacrebleu REF -i HYP``, ``bleustats score REF -i HYP``) and
                by the API (read the files, call corpus BLEU; bleustats: ``corpus_bleu_files``).

  route         the plain-Python path against the numba kernels, per call size: ``corpus_bleu`` of S
                segments (1 to 10,000; ``--route-sizes``), 13a, in a fresh process whose first call it is
                (*cold*: the kernels' path pays for loading numba and the kernels) and in a process that
                scored the 10,000 segments first (*warm*: kernels loaded; the call is made once untimed,
                then timed as the median of at least 3 calls). Each size runs on the plain path and on the
                kernels (forced through ``bleustats.engine._small.PLAIN_MAX_CHARS``), and as the library
                routes it; ``--baseline`` adds the baseline tree's own routing. The summary gives, for each
                threshold that the grid of sizes allows, the worst and the geometric-mean ratio of a rule's
                time to the faster path's over every size, cold and warm.

  numba floor   beside the 10k rows: a fresh process that imports numpy and numba and calls one cached
                ``@njit`` kernel (``x.sum()``) and nothing else: what any tool built on numba kernels pays
                before its first byte of work (timing only).

bleustats runs *warm* (a fresh process whose numba cache is populated: ``NUMBA_CACHE_DIR`` points at a
folder filled by one unmeasured run before the measured ones) and, for the 10k task, also *cold* (a
fresh process and an empty ``NUMBA_CACHE_DIR``: the first run after installing, kernels compiled). The
peers have no cache: their one kind of run is listed in both. For inputs this small bleustats counts
in plain Python and loads no numba (``bleustats.engine._small``), so cold and warm are the same there.

Every whole-process time is the parent's wall clock from start to exit of the child; CPU is the child's
user + system time (``os.wait4``). Each tool runs ``--repeats`` (5) times, the tools alternating (the
order rotates every repeat); medians are reported, every run is kept in the JSON.

bleustats' bytecode (``.pyc``) is compiled before the runs, as installing a wheel does (the peers are
installed packages); without it, ``PYTHONDONTWRITEBYTECODE=1`` makes an editable checkout compile every
module it imports in every process.

Agreement gate: every score (0-100) of every run must equal sacreBLEU's within 1e-9 (sentence tasks:
every sentence's score; the command lines print 12 decimals), else the script exits 1 after writing the
results. sacrebleu-mojo has corpus BLEU only (no sentence task). bleuscore always tokenizes 13a (corpus
tasks with ``tokenize none``: n/a) and its sentence scores use add-one smoothing: timing only there.

Usage::

    python benchmarks/bench_latency.py                       # 5 repeats (a few minutes; cold runs compile)
    python benchmarks/bench_latency.py --repeats 3 --cold-repeats 1 --out benchmarks/results/latency_quick
    python benchmarks/bench_latency.py --tasks per --baseline /tmp/main/src --out /tmp/latency_small
    python benchmarks/bench_latency.py --tasks route --repeats 3 --baseline /tmp/main/src --out /tmp/latency_route
"""

from __future__ import annotations

import argparse
import compileall
import datetime as _dt
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_core  # versions, CPU model (shared with the corpus driver)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RESULTS = os.path.join(HERE, "results")
TOL = 1e-9
PEERS = ["sacrebleu", "sacrebleu-mojo", "bleuscore"]

# --------------------------------------------------------------------------- what each process runs
# argv of every snippet: HYP REF TOK N (N lines of each file); a result is printed as lines of floats.

_READ = ("import sys\nHYP, REF, TOK, N = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])\n"
         "def lines(p):\n    with open(p, encoding='utf-8') as f:\n        return f.read().split('\\n')[:N]\n"
         "H, R = lines(HYP), lines(REF)\n")
_EMIT = "print('\\n'.join(map(repr, OUT)))\n"

SENTENCES = {
    "sacrebleu": ("import sacrebleu\n"
                  "OUT = [sacrebleu.sentence_bleu(h, [r], tokenize=TOK).score for h, r in zip(H, R)]\n"),
    "bleustats": ("import bleustats\n"
                  "OUT = [bleustats.sentence_bleu(h, [r], tokenize=TOK).score for h, r in zip(H, R)]\n"),
    "bleuscore": ("import bleuscore\nOUT = [100 * bleuscore.compute([[r]], [h], max_order=4, smooth=True, "
                  "ref_len_method='sacrebleu')['bleu'] for h, r in zip(H, R)]\n"),
}
CORPUS = {
    "sacrebleu": "import sacrebleu\nOUT = [sacrebleu.corpus_bleu(H, [R], tokenize=TOK).score]\n",
    "bleustats": "import bleustats\nOUT = [bleustats.corpus_bleu(H, [R], tokenize=TOK).score]\n",
    "sacrebleu-mojo": "import sacrebleu_mojo\nOUT = [sacrebleu_mojo.corpus_bleu(H, [R], tokenize=TOK).score]\n",
    "bleuscore": ("import bleuscore\nOUT = [100 * bleuscore.compute([[r] for r in R], H, max_order=4, smooth=False, "
                  "ref_len_method='sacrebleu')['bleu']]\n"),
}
# the 10k API runs: bleustats reads the files itself
FILES_API = dict(CORPUS, bleustats=("import sys, bleustats\n"
                                    "OUT = [bleustats.corpus_bleu_files(sys.argv[1], [sys.argv[2]], "
                                    "tokenize=sys.argv[3]).score]\n"))
PER_CALL = r'''
import time
P = time.process_time
t0, p0 = time.perf_counter(), P()
{imp}
t1, p1 = time.perf_counter(), P()
f({first})
t2, p2 = time.perf_counter(), P()
OUT = [f(h, r) for h, r in zip(H, R)]
t3, p3 = time.perf_counter(), P()
print("TIMES", t1 - t0, p1 - p0, t2 - t1, p2 - p1, (t3 - t2) / len(H), (p3 - p2) / len(H))
OUT = OUT[:200]
'''
PER_CALL_TOOLS = {
    "sacrebleu": ("import sacrebleu\nf = lambda h, r: sacrebleu.sentence_bleu(h, [r], tokenize=TOK).score",
                  "H[0], R[0]"),
    "bleustats": ("import bleustats\nf = lambda h, r: bleustats.sentence_bleu(h, [r], tokenize=TOK).score",
                  "H[0], R[0]"),
    "sacrebleu BLEU()": ("from sacrebleu.metrics import BLEU\nb = BLEU(tokenize=TOK, effective_order=True)\n"
                         "f = lambda h, r: b.sentence_score(h, [r]).score", "H[0], R[0]"),
    "bleustats BLEU()": ("import bleustats\nb = getattr(bleustats, 'BLEU')(tokenize=TOK, effective_order=True)\n"
                         "f = lambda h, r: b.sentence_score(h, [r]).score", "H[0], R[0]"),
    "bleuscore": ("import bleuscore\nf = lambda h, r: 100 * bleuscore.compute([[r]], [h], max_order=4, smooth=True, "
                  "ref_len_method='sacrebleu')['bleu']", "H[0], R[0]"),
}
#: segments per call of the "few segments" corpus task
FEW = 5
# the corpus task per call: H and R become FEW-segment slices of the lines, one corpus score per slice
PER_CORPUS_TOOLS = {
    "sacrebleu": ("import sacrebleu\nf = lambda h, r: sacrebleu.corpus_bleu(h, [r], tokenize=TOK).score", "H[0], R[0]"),
    "bleustats": ("import bleustats\nf = lambda h, r: bleustats.corpus_bleu(h, [r], tokenize=TOK).score", "H[0], R[0]"),
    "sacrebleu BLEU()": ("from sacrebleu.metrics import BLEU\nb = BLEU(tokenize=TOK)\n"
                         "f = lambda h, r: b.corpus_score(h, [r]).score", "H[0], R[0]"),
    "bleustats BLEU()": ("import bleustats\nb = getattr(bleustats, 'BLEU')(tokenize=TOK)\n"
                         "f = lambda h, r: b.corpus_score(h, [r]).score", "H[0], R[0]"),
}
_FEW = f"H = [H[i:i + {FEW}] for i in range(0, len(H), {FEW})]\nR = [R[i:i + {FEW}] for i in range(0, len(R), {FEW})]\n"
#: chrF and TER per call, the same loops (sentence: one pair per call; corpus: FEW segments per call), default
#: options; sacreBLEU's TER takes milliseconds per sentence, so its tasks use the first TER_CALLS pairs only.
TER_CALLS = 200
#: segments per call of the route task (13a, 1 reference; the 10k corpus's first S lines)
ROUTE_SIZES = [1, 5, 20, 100, 300, 1000, 2000, 3000, 5000, 10000]
# argv after the common four: S MODE PATH; PATH 'rule' leaves the library's routing alone
ROUTE = r'''
import statistics
import time
P = time.process_time
S, MODE, PATH = int(sys.argv[5]), sys.argv[6], sys.argv[7]
h, r = H[:S], R[:S]
t0, p0 = time.perf_counter(), P()
import bleustats
t1, p1 = time.perf_counter(), P()


def force():
    if PATH != "rule":
        from bleustats.engine import _small as small
        small.PLAIN_MAX_CHARS = 10**15 if PATH == "plain" else -1


if MODE == "warm":
    bleustats.corpus_bleu(H, [R], tokenize=TOK)  # 10,000 segments: every rule sends them to the kernels
    assert "bleustats.engine._stats_kernels" in sys.modules
    force()
    bleustats.corpus_bleu(h, [r], tokenize=TOK)  # once untimed
    times = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < 0.5 and len(times) < 50):
        a, b = time.perf_counter(), P()
        OUT = [bleustats.corpus_bleu(h, [r], tokenize=TOK).score]
        times.append((time.perf_counter() - a, P() - b))
    wall, cpu = statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)
    print("TIMES", t1 - t0, p1 - p0, 0.0, 0.0, wall, cpu)
else:
    force()
    a, b = time.perf_counter(), P()
    OUT = [bleustats.corpus_bleu(h, [r], tokenize=TOK).score]
    wall, cpu = time.perf_counter() - a, P() - b
    print("TIMES", t1 - t0, p1 - p0, wall, cpu, wall, cpu)
'''
ROUTE_PATHS = ("plain", "kernels", "rule")


def _routes(metric: str, cls: str, var: str, method: str) -> dict[str, tuple[str, str]]:
    """The four rows of one chrF/TER task: each library's ``{method}_{metric}`` function and its metric object."""
    fn = f"{method}_{metric}"
    call = f"f = lambda h, r: {var}.{method}_score(h, [r]).score"
    return {"sacrebleu": (f"import sacrebleu\nf = lambda h, r: sacrebleu.{fn}(h, [r]).score", "H[0], R[0]"),
            "bleustats": (f"import bleustats\nf = lambda h, r: bleustats.{fn}(h, [r]).score", "H[0], R[0]"),
            f"sacrebleu {cls}()": (f"from sacrebleu.metrics import {cls}\n{var} = {cls}()\n{call}", "H[0], R[0]"),
            f"bleustats {cls}()": (f"import bleustats\n{var} = bleustats.{cls}()\n{call}", "H[0], R[0]")}


OTHER_PER_CALL = {
    ("per_chrf", "sentence chrF per call"): _routes("chrf", "CHRF", "c", "sentence"),
    ("per_chrfcorpus", f"corpus chrF of {FEW} segments per call"): _routes("chrf", "CHRF", "c", "corpus"),
    ("per_ter", "sentence TER per call"): _routes("ter", "TER", "t", "sentence"),
    ("per_tercorpus", f"corpus TER of {FEW} segments per call"): _routes("ter", "TER", "t", "corpus"),
}
#: the per-call targets: bleustats' time per call at most this share of sacreBLEU's (same run)
PER_CALL_LIMIT = 0.7
TIMING_ONLY = {"bleuscore": "bleuscore smooths sentence BLEU add-one (a different definition): timing only"}
#: the numba floor: a file (numba caches only functions defined in files), run as ``python FILE``
NUMBA_FLOOR = """import numpy as np
from numba import njit


@njit(cache=True)
def total(x):
    return x.sum()


total(np.arange(10))
"""
FLOOR_TOOLS = {"numba floor": []}


def _python(tool: str, mojo_py: str) -> str:
    return mojo_py if tool == "sacrebleu-mojo" else sys.executable


def _run(cmd: list[str], env: dict[str, str], timeout: float) -> dict:
    """One fresh process: wall (parent's clock), CPU (child's rusage), stdout floats, TIMES line."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return {"error": f"timeout after {timeout} s"}
    wall = time.perf_counter() - t0
    run = {"wall": wall, "rc": p.returncode}
    if p.returncode != 0:
        run["error"] = f"rc={p.returncode}: {err[-1500:]}"
        return run
    scores, times = [], None
    for line in out.splitlines():
        if line.startswith("TIMES "):
            times = [float(x) for x in line.split()[1:]]
        elif line.strip():
            try:
                scores.append(float(line))
            except ValueError:
                pass
    run["scores"] = scores
    if times:
        run.update(import_wall=times[0], import_cpu=times[1], first_call_wall=times[2], first_call_cpu=times[3],
                   per_call_wall=times[4], per_call_cpu=times[5])
    return run


def _run_cpu(cmd: list[str], env: dict[str, str], timeout: float) -> dict:
    """:func:`_run` with the child's CPU seconds (user + system; the children's times of ``os.times``)."""
    before = os.times()
    run = _run(cmd, env, timeout)
    after = os.times()
    run["cpu"] = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return run


# --------------------------------------------------------------------------- tasks


def plan(a) -> list[dict]:
    """Every measured configuration: (task, label, tool, command builder, env kind)."""
    hyp, ref = os.path.join(a.data, "hyp.10000.txt"), os.path.join(a.data, "ref0.10000.txt")
    jobs = []
    for tool, mod in (("sacrebleu", "sacrebleu"), ("bleustats", "bleustats"), ("sacrebleu-mojo", "sacrebleu_mojo"),
                      ("bleuscore", "bleuscore")):
        jobs.append(dict(task="import", label="import (whole process)", tool=tool,
                         cmd=[_python(tool, a.mojo_python), "-c", f"import {mod}"]))
    for tool, (imp, first) in PER_CALL_TOOLS.items():
        code = _READ + PER_CALL.format(imp=imp, first=first) + _EMIT
        jobs.append(dict(task="per_call", label=f"sentence BLEU per call ({a.calls:,} pairs, 13a)", tool=tool,
                         cmd=[sys.executable, "-c", code, hyp, ref, "13a", str(a.calls)]))
    for tool, (imp, first) in PER_CORPUS_TOOLS.items():
        code = _READ + _FEW + PER_CALL.format(imp=imp, first=first) + _EMIT
        jobs.append(dict(task="per_corpus", label=f"corpus BLEU of {FEW} segments per call "
                                                  f"({a.calls // FEW:,} calls, 13a)", tool=tool,
                         cmd=[sys.executable, "-c", code, hyp, ref, "13a", str(a.calls)]))
    for (task, what), tools in OTHER_PER_CALL.items():
        corpus = task.endswith("corpus")
        calls = min(a.calls, TER_CALLS) if task.startswith("per_ter") else a.calls
        for tool, (imp, first) in tools.items():
            code = _READ + (_FEW if corpus else "") + PER_CALL.format(imp=imp, first=first) + _EMIT
            jobs.append(dict(task=task, label=f"{what} ({calls // FEW if corpus else calls:,} "
                                               f"{'calls' if corpus else 'pairs'})", tool=tool,
                             cmd=[sys.executable, "-c", code, hyp, ref, "13a", str(calls)]))
    if a.baseline:  # the same per-call tasks with another bleustats source tree first on sys.path
        for job in [j for j in jobs if j["task"].startswith("per_") and j["tool"].startswith("bleustats")]:
            jobs.append(dict(job, tool=job["tool"] + " (baseline)", env={"PYTHONPATH": a.baseline}))
    hyp_lines = open(hyp, encoding="utf-8").read().split("\n")
    ref_lines = open(ref, encoding="utf-8").read().split("\n")
    for size in a.route_sizes:
        chars = sum(map(len, hyp_lines[:size])) + sum(map(len, ref_lines[:size]))
        for mode in ("cold", "warm"):
            for path in ROUTE_PATHS:
                code = _READ + ROUTE + _EMIT
                cmd = [sys.executable, "-c", code, hyp, ref, "13a", "10000", str(size), mode, path]
                jobs.append(dict(task=f"route_{size}", label=f"corpus BLEU of {size:,} segments per call",
                                 tool=f"{path}, {mode}", cmd=cmd, size=size, chars=chars))
                if a.baseline and path == "rule":
                    jobs.append(dict(jobs[-1], tool=f"rule, {mode} (baseline)", env={"PYTHONPATH": a.baseline}))
    for tool, body in SENTENCES.items():
        jobs.append(dict(task="sentences100", label="100 sentences, sentence BLEU each (whole process, 13a)",
                         tool=tool, cmd=[sys.executable, "-c", _READ + body + _EMIT, hyp, ref, "13a", "100"]))
    for tool, body in CORPUS.items():
        jobs.append(dict(task="corpus100", label="corpus BLEU of 100 segments (whole process, 13a)", tool=tool,
                         cmd=[_python(tool, a.mojo_python), "-c", _READ + body + _EMIT, hyp, ref, "13a", "100"]))
    sacre_cli = shutil.which("sacrebleu") or "sacrebleu"
    ours_cli = shutil.which("bleustats") or "bleustats"
    for tok in a.tok:
        label = f"corpus BLEU of 10,000 segments, 1 ref, {tok} (whole process)"
        task = f"corpus10k_{tok}"
        for tool, body in FILES_API.items():
            if tool == "bleuscore" and tok != "13a":
                continue
            cmd = [_python(tool, a.mojo_python), "-c", _READ + body + _EMIT, hyp, ref, tok, "10000"]
            jobs.append(dict(task=task, label=label, tool=tool, cmd=cmd))
            if tool == "bleustats":
                jobs.append(dict(task=task, label=label, tool="bleustats-cold", cmd=cmd, cold=True))
        jobs.append(dict(task=task, label=label, tool="sacrebleu-cli",
                         cmd=[sacre_cli, ref, "-i", hyp, "-tok", tok, "-b", "-w", "12", "--force"]))
        cli = [ours_cli, "score", ref, "-i", hyp, "-tok", tok, "-b", "-w", "12"]
        jobs.append(dict(task=task, label=label, tool="bleustats-cli", cmd=cli))
        jobs.append(dict(task=task, label=label, tool="bleustats-cli-cold", cmd=cli, cold=True))
        for tool, extra in FLOOR_TOOLS.items():
            jobs.append(dict(task=task, label=label, tool=tool, cmd=[sys.executable, a.floor_file, *extra]))
    return [j for j in jobs if a.tasks is None or j["task"] in a.tasks or j["task"].split("_")[0] in a.tasks]


def summarize(runs: list[dict]) -> dict:
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"n_ok": 0, "error": runs[0].get("error") if runs else "no runs"}
    s = {"n_ok": len(ok), "wall": statistics.median(r["wall"] for r in ok),
         "cpu": statistics.median(r["cpu"] for r in ok)}
    for k in ("import_wall", "import_cpu", "first_call_wall", "first_call_cpu", "per_call_wall", "per_call_cpu"):
        if all(k in r for r in ok):
            s[k] = statistics.median(r[k] for r in ok)
    s["loadavg1_max"] = max(r.get("load", 0.0) for r in ok)
    return s


def check(task_runs: dict[str, list[dict]], task: str) -> tuple[dict[str, str], list[str]]:
    """Agreement of every tool's scores with sacreBLEU's (the first sacreBLEU run that has scores).

    The route tasks compare the paths with each other: every score equal to the plain path's, cold.
    """
    ref_tool = "plain, cold" if task == "route" else "sacrebleu"
    ref = next((r["scores"] for r in task_runs.get(ref_tool, []) if r.get("scores")), None)
    agree, fails = {}, []
    for tool, runs in task_runs.items():
        if task == "import":
            agree[tool] = "—"
            continue
        if tool in TIMING_ONLY and task in ("per_call", "sentences100"):
            agree[tool] = TIMING_ONLY[tool]
            continue
        if tool in FLOOR_TOOLS:
            agree[tool] = "timing only (scores nothing)"
            continue
        if ref is None:
            agree[tool] = "no sacreBLEU scores to compare with"
            fails.append(f"{task}: no sacreBLEU reference scores")
            continue
        worst = 0.0
        for r in runs:
            if "error" in r:
                continue
            got = r.get("scores") or []
            if len(got) != len(ref):
                fails.append(f"{task}: {tool} printed {len(got)} scores, sacreBLEU {len(ref)}")
                worst = float("inf")
                break
            worst = max([worst] + [abs(x - y) for x, y in zip(got, ref)])
        ok = worst <= TOL
        if tool == ref_tool:
            agree[tool] = "reference"
        else:
            agree[tool] = f"yes (|Δ| ≤ {worst:.1e})" if ok else f"NO (|Δ| {worst:.3g})"
        if not ok:
            fails.append(f"{task}: {tool} differs from sacreBLEU by {worst:.3g}")
    return agree, fails


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cold-repeats", type=int, default=None,
                    help="runs of the cold configurations (default --repeats)")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--tok", nargs="+", default=["13a", "none"])
    ap.add_argument("--tasks", nargs="+", default=None,
                    choices=["import", "per", "per_call", "per_corpus", "per_chrf", "per_chrfcorpus", "per_ter",
                             "per_tercorpus", "route", "sentences100", "corpus100", "corpus10k"],
                    help="tasks to run (default all; 'per' is every per-call task, per_* one of them)")
    ap.add_argument("--route-sizes", type=int, nargs="+", default=ROUTE_SIZES,
                    help="segments per call of the route task")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--baseline", metavar="SRC", default=None,
                    help="also run the per-call tasks with this bleustats source tree (its src/ folder, e.g. a "
                         "`git archive` of main) first on PYTHONPATH: tools '... (baseline)', same run")
    ap.add_argument("--mojo-python", default=bench_core.DEFAULT_MOJO_PY)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", default=os.path.join(RESULTS, "latency"))
    ap.add_argument("--render", metavar="JSON", help="recompute the targets and rewrite the .md of a results JSON")
    a = ap.parse_args(argv)
    if a.render:
        with open(a.render) as fh:
            result = json.load(fh)
        result["targets"] = targets(result["tasks"])
        result["route"] = route_thresholds(result["tasks"])
        with open(a.render, "w") as fh:
            json.dump(result, fh, indent=1, default=str)
        with open(a.render[:-len(".json")] + ".md", "w") as fh:
            fh.write(render(result))
        return 0
    a.cold_repeats = a.repeats if a.cold_repeats is None else a.cold_repeats
    for name in ("hyp.10000.txt", "ref0.10000.txt"):
        if not os.path.exists(os.path.join(a.data, name)):
            ap.error(f"{os.path.join(a.data, name)} missing: python benchmarks/generate.py --out {a.data}")
    floor_dir = tempfile.mkdtemp(prefix="bleustats-latency-floor-")
    a.floor_file = os.path.join(floor_dir, "numba_floor.py")
    with open(a.floor_file, "w") as fh:
        fh.write(NUMBA_FLOOR)
    jobs = plan(a)
    # bytecode of bleustats, as installing a wheel writes it: an editable checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every imported module in every process
    # (the peers are installed packages with their .pyc)
    import bleustats

    compileall.compile_dir(os.path.dirname(bleustats.__file__), quiet=1)
    missing = {}
    if not os.path.exists(a.mojo_python):
        missing["sacrebleu-mojo"] = f"no Python >= 3.12 environment at {a.mojo_python} (bench_core.py --setup-mojo)"
    if subprocess.run([sys.executable, "-c", "import bleuscore"], capture_output=True).returncode:
        missing["bleuscore"] = "bleuscore is not installed in this environment"
    probe = subprocess.run([sys.executable, "-c", "import bleustats; bleustats.BLEU"], capture_output=True)
    if probe.returncode:  # an older bleustats
        missing["bleustats BLEU()"] = "bleustats has no BLEU object in this version (issue 14)"
    jobs = [j for j in jobs if j["tool"] not in missing]
    warm_dir = tempfile.mkdtemp(prefix="bleustats-latency-warm-")
    base_env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    meta = {"started": _dt.datetime.now().isoformat(timespec="seconds"), "argv": sys.argv,
            "cpu_model": bench_core._cpu_model(), "nproc": os.cpu_count(),
            "loadavg_at_start": os.getloadavg(), "versions": bench_core._versions(a.mojo_python),
            "repeats": a.repeats, "cold_repeats": a.cold_repeats, "calls": a.calls, "tolerance": TOL,
            "baseline": a.baseline,
            "thread_env": {k: os.environ.get(k) for k in ("NUMBA_NUM_THREADS", "RAYON_NUM_THREADS")},
            "method": __doc__.split("Usage::")[0].strip()}
    print(f"latency benchmark: {len(jobs)} configurations, {a.repeats} repeats; warm numba cache {warm_dir}",
          flush=True)
    # populate the warm cache (unmeasured): one run of each bleustats job that can load kernels
    for j in jobs:
        if j["tool"] in ("bleustats", "bleustats-cli", *FLOOR_TOOLS) and j["task"].startswith("corpus10k"):
            _run_cpu(j["cmd"], dict(base_env, NUMBA_CACHE_DIR=warm_dir), a.timeout)
    route_warm = [j for j in jobs if j["task"].startswith("route_") and ", warm" in j["tool"]]
    for tool in dict.fromkeys(j["tool"] for j in route_warm if j["tool"].startswith(("kernels", "rule"))):
        j = next(j for j in route_warm if j["tool"] == tool)  # each source tree's kernels compiled once
        _run_cpu(j["cmd"], dict(base_env, NUMBA_CACHE_DIR=warm_dir, **j.get("env", {})), a.timeout)
    runs: dict[tuple[str, str], list[dict]] = {}
    tasks = list(dict.fromkeys(j["task"] for j in jobs))
    for task in tasks:
        tjobs = [j for j in jobs if j["task"] == task]
        for rep in range(a.repeats):
            order = tjobs[rep % len(tjobs):] + tjobs[:rep % len(tjobs)]
            for j in order:
                if j.get("cold") and rep >= a.cold_repeats:
                    continue
                cold_dir = tempfile.mkdtemp(prefix="bleustats-latency-cold-") if j.get("cold") else None
                env = dict(base_env, NUMBA_CACHE_DIR=cold_dir or warm_dir, **j.get("env", {}))
                load = os.getloadavg()[0]
                r = _run_cpu(j["cmd"], env, a.timeout)
                r.update(repeat=rep, load=load)
                if cold_dir:
                    shutil.rmtree(cold_dir, ignore_errors=True)
                runs.setdefault((task, j["tool"]), []).append(r)
                msg = r.get("error") or f"wall {r['wall']:.3f} s cpu {r['cpu']:.3f} s" + (
                    f" per call {r['per_call_wall'] * 1e6:.1f} us" if "per_call_wall" in r else "")
                print(f"[{task}] rep {rep} {j['tool']:20s} {msg}", flush=True)
    shutil.rmtree(warm_dir, ignore_errors=True)
    shutil.rmtree(floor_dir, ignore_errors=True)
    out_tasks, fails = [], []
    for task in tasks:
        tjobs = [j for j in jobs if j["task"] == task]
        task_runs = {j["tool"]: runs.get((task, j["tool"]), []) for j in tjobs}
        agree, f = check(task_runs, task.split("_")[0] if task.startswith(("corpus10k", "route")) else task)
        fails += f
        tools = {}
        for tool, rs in task_runs.items():
            s = summarize(rs)
            if s.get("n_ok", 0) == 0:
                fails.append(f"{task}: {tool} failed: {s.get('error', '')[:300]}")
            tools[tool] = {"summary": s, "agree": agree.get(tool), "runs": rs}
        out_tasks.append({"task": task, "label": tjobs[0]["label"], "tools": tools,
                          **({"size": tjobs[0]["size"], "chars": tjobs[0]["chars"]} if "size" in tjobs[0] else {})})
    meta["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
    meta["loadavg_at_end"] = os.getloadavg()
    result = {"meta": meta, "tasks": out_tasks, "failures": fails, "targets": targets(out_tasks), "missing": missing,
              "route": route_thresholds(out_tasks)}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump(result, fh, indent=1, default=str)
    md = render(result)
    with open(a.out + ".md", "w") as fh:
        fh.write(md)
    print(md)
    if fails:
        print("LATENCY BENCHMARK FAILED:\n  " + "\n  ".join(fails), file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------- targets and report


def _med(task: dict, tool: str, key: str = "wall") -> float | None:
    t = task["tools"].get(tool)
    return None if t is None else t["summary"].get(key)


def targets(tasks: list[dict]) -> list[dict]:
    """Issue 15's same-run ratios, each with met / not met."""
    by = {t["task"]: t for t in tasks}
    out = []
    def add(target, task, ours, theirs, limit, strict=False, wall="wall", cpu="cpu"):
        a, b = _med(task, ours, wall), _med(task, theirs, wall)
        if a and b:
            ca, cb = _med(task, ours, cpu), _med(task, theirs, cpu)
            out.append({"target": target, "ratio": a / b, "met": a / b < limit if strict else a / b <= limit,
                        "cpu_ratio": ca / cb if ca and cb else None})

    t = by.get("corpus10k_13a")
    if t:
        add("10k x 1 ref 13a, bleustats CLI (warm) <= 0.5 x sacreBLEU's CLI", t, "bleustats-cli", "sacrebleu-cli", 0.5)
        add("10k x 1 ref 13a, bleustats API (warm) <= 0.5 x sacreBLEU's CLI", t, "bleustats", "sacrebleu-cli", 0.5)
        add("10k x 1 ref 13a, bleustats CLI (cold: empty numba cache) <= 0.5 x sacreBLEU's CLI", t,
            "bleustats-cli-cold", "sacrebleu-cli", 0.5)
        peers = {p: _med(t, p) for p in ("sacrebleu", "sacrebleu-cli", "sacrebleu-mojo", "bleuscore") if _med(t, p)}
        if peers:
            fastest = min(peers, key=peers.get)
            for tool in ("bleustats", "bleustats-cli"):
                add(f"10k x 1 ref 13a, {tool} (warm) ahead of the fastest peer ({fastest})", t, tool, fastest, 1,
                    strict=True)
    # issues 24/25: ahead of sacreBLEU on every per-call route, by a margin (<= 0.7 x its time per call)
    few = f" of {FEW} segments"
    for task, function, obj in (("per_call", "sentence_bleu", "BLEU().sentence_score"),
                                ("per_corpus", "corpus_bleu" + few, "BLEU().corpus_score" + few),
                                ("per_chrf", "sentence_chrf", "CHRF().sentence_score"),
                                ("per_chrfcorpus", "corpus_chrf" + few, "CHRF().corpus_score" + few),
                                ("per_ter", "sentence_ter", "TER().sentence_score"),
                                ("per_tercorpus", "corpus_ter" + few, "TER().corpus_score" + few)):
        t = by.get(task)
        if not t:
            continue
        kind = obj.split("(")[0]
        add(f"{function} per call <= {PER_CALL_LIMIT} x sacreBLEU's", t, "bleustats", "sacrebleu", PER_CALL_LIMIT,
            wall="per_call_wall", cpu="per_call_cpu")
        add(f"{obj} per call <= {PER_CALL_LIMIT} x sacreBLEU's", t, f"bleustats {kind}()", f"sacrebleu {kind}()",
            PER_CALL_LIMIT, wall="per_call_wall", cpu="per_call_cpu")
    return out


def _route_rows(tasks: list[dict], key: str = "per_call_wall") -> list[dict]:
    """One row per route size: the median time of the call on each path and rule, cold and warm."""
    rows = []
    for t in sorted((t for t in tasks if t["task"].startswith("route_")), key=lambda t: t["size"]):
        row = {"size": t["size"], "chars": t["chars"]}
        for tool in t["tools"]:
            row[tool] = _med(t, tool, key)
        rows.append(row)
    return rows


def route_thresholds(tasks: list[dict], key: str = "per_call_wall") -> list[dict]:
    """For every threshold the sizes allow (plain up to the call of S segments): the rule's time against the
    faster path's at every size, cold and warm; the worst ratio (and where) and the geometric mean."""
    rows = _route_rows(tasks, key)
    if not rows:
        return []
    out = []
    for limit in [-1] + [r["chars"] for r in rows]:
        ratios = []
        for r in rows:
            for mode in ("cold", "warm"):
                plain, kernels = r.get(f"plain, {mode}"), r.get(f"kernels, {mode}")
                if plain and kernels:
                    ratios.append(((plain if r["chars"] <= limit else kernels) / min(plain, kernels),
                                   r["size"], mode))
        if not ratios:
            continue
        worst = max(ratios)
        geo = math.exp(sum(math.log(x[0]) for x in ratios) / len(ratios))
        out.append({"plain_max_chars": limit, "plain_up_to_segments": max((r["size"] for r in rows
                                                                           if r["chars"] <= limit), default=0),
                    "worst": worst[0], "worst_at": f"{worst[1]:,} segments, {worst[2]}", "geomean": geo})
    return out


def render_route(result: dict) -> list[str]:
    tasks = result["tasks"]
    if not _route_rows(tasks):
        return []
    L = ["## Route: plain Python or the kernels, by call size (corpus BLEU, 13a, 1 ref)", "",
         "Milliseconds per call, median over runs. *cold*: the first call of a fresh process (the kernels' path "
         "loads numba and the cached kernels); *warm*: the process scored 10,000 segments first (kernels loaded). "
         "`plain` / `kernels`: the path forced; `rule`: as this tree routes the call; `baseline`: as the baseline "
         "tree routes it (same run, where measured). Wall time is what a user waits for; on a shared machine the "
         "CPU time (the process's own) is the steadier of the two.", ""]
    for key, what in (("per_call_wall", "wall"), ("per_call_cpu", "CPU")):
        rows = _route_rows(tasks, key)
        base = any("(baseline)" in k for r in rows for k in r)
        modes = ("cold", "warm")
        head = ["segments", "characters"] + [f"{p} {m}" for m in modes for p in ("plain", "kernels", "rule")]
        if base:
            head += [f"baseline {m}" for m in modes] + [f"rule / baseline {m}" for m in modes]
        L += [f"**{what}, ms per call**", "", "| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for r in rows:
            cells = [f"{r['size']:,}", f"{r['chars']:,}"]
            for m in modes:
                for p in ("plain", "kernels", "rule"):
                    v = r.get(f"{p}, {m}")
                    cells.append("—" if v is None else f"{v * 1e3:.1f}")
            if base:
                for m in modes:
                    v = r.get(f"rule, {m} (baseline)")
                    cells.append("—" if v is None else f"{v * 1e3:.1f}")
                for m in modes:
                    a, b = r.get(f"rule, {m}"), r.get(f"rule, {m} (baseline)")
                    cells.append(f"{a / b:.2f}×" if a and b else "—")
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
    L += ["Each threshold the grid allows (plain up to the call of that size, the kernels above): the rule's time "
          "over the faster path's, at every size cold and warm, in wall and in CPU time.", "",
          "| plain path up to | characters | worst (wall) | where | geometric mean (wall) | worst (CPU) | where "
          "| geometric mean (CPU) |", "|---|---:|---:|---|---:|---:|---|---:|"]
    cpu = {t["plain_max_chars"]: t for t in route_thresholds(tasks, "per_call_cpu")}
    for t in result.get("route") or route_thresholds(tasks):
        c = cpu.get(t["plain_max_chars"], {})
        upto = "never (kernels always)" if t["plain_max_chars"] < 0 else f"{t['plain_up_to_segments']:,} segments"
        chars = "—" if t["plain_max_chars"] < 0 else f"{t['plain_max_chars']:,}"
        nan = float("nan")
        L.append(f"| {upto} | {chars} | {t['worst']:.2f}× | {t['worst_at']} | {t['geomean']:.2f}× | "
                 f"{c.get('worst', nan):.2f}× | {c.get('worst_at', '—')} | {c.get('geomean', nan):.2f}× |")
    L.append("")
    return L


def _f(x, unit="s"):
    if x is None:
        return "—"
    if unit == "us":
        return f"{x * 1e6:.1f}"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def render(result: dict) -> str:
    m = result["meta"]
    v = m["versions"]
    L = ["# Latency: import, one sentence, 100 sentences, 10k segments (cold and warm)", "",
         f"Started {m['started']}, finished {m['finished']} on {m['cpu_model']} ({m['nproc']} logical CPUs), "
         f"load average {', '.join(f'{x:.2f}' for x in m['loadavg_at_start'])} at start and "
         f"{', '.join(f'{x:.2f}' for x in m['loadavg_at_end'])} at the end (a shared machine: other work inflates "
         "wall times; CPU seconds are the child's own). "
         f"bleustats {v.get('bleustats')}, sacreBLEU {v.get('sacrebleu')}, sacrebleu-mojo {v.get('sacrebleu-mojo')} "
         f"(Python {v.get('sacrebleu-mojo_python')}), bleuscore {v.get('bleuscore')}, numba {v.get('numba')}, "
         f"Python {v.get('python')}. Medians of {m['repeats']} runs (cold: {m['cold_repeats']}).", "",
         f"Command: `{' '.join(os.path.relpath(x) if i == 0 else x for i, x in enumerate(m['argv']))}`.", ""]
    if result["failures"]:
        L += ["**FAILURES:**", "", *[f"- {f}" for f in result["failures"]], ""]
    else:
        L += [f"Agreement gate: passed (every score within {TOL:g} of sacreBLEU's, timing-only rows marked).", ""]
    L += [f"- n/a **{tool}**: {why}" for tool, why in result.get("missing", {}).items()]
    L += ["", "## Targets (same-run ratios)", "",
          "Met or not by the wall-clock ratio; the CPU-time ratio beside it is steadier on a busy machine (but "
          "counts every thread of a parallel tool, e.g. bleuscore's rayon pool).", "",
          "| target | wall ratio | met | CPU ratio |", "|---|---:|---|---:|"]
    for t in result["targets"]:
        cpu = f"{t['cpu_ratio']:.2f}×" if t.get("cpu_ratio") else "—"
        L.append(f"| {t['target']} | {t['ratio']:.2f}× | {'yes' if t['met'] else '**no**'} | {cpu} |")
    L.append("")
    L += render_route(result)
    for task in result["tasks"]:
        if task["task"].startswith("route_"):
            continue
        per_call = task["task"].startswith("per_")
        L += [f"## {task['label']}", ""]
        if per_call:
            L += ["| tool | µs per call (wall) | µs per call (CPU) | / sacreBLEU | import s | first call s | runs "
                  "| agreement |",
                  "|---|---:|---:|---:|---:|---:|---:|---|"]
        else:
            L += ["| tool | wall s | CPU s | / sacreBLEU | / bleustats | runs | agreement |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        ref = _med(task, "sacrebleu", "per_call_wall" if per_call else "wall")
        if task["task"].startswith("corpus10k"):
            ref = _med(task, "sacrebleu-cli") or ref
        ours = _med(task, "bleustats", "per_call_wall" if per_call else "wall")
        for tool, t in task["tools"].items():
            s = t["summary"]
            if not s.get("n_ok"):
                L.append(f"| {tool} | error | | | | | {str(s.get('error'))[:150]} |")
                continue
            if per_call:
                w = s.get("per_call_wall")
                L.append(f"| {tool} | {_f(w, 'us')} | {_f(s.get('per_call_cpu'), 'us')} | "
                         f"{w / ref:.2f}× | {_f(s.get('import_wall'))} | {_f(s.get('first_call_wall'))} | "
                         f"{s['n_ok']} | {t['agree']} |")
            else:
                w = s["wall"]
                L.append(f"| {tool} | {_f(w)} | {_f(s['cpu'])} | {w / ref:.2f}× | {w / ours:.2f}× | {s['n_ok']} | "
                         f"{t['agree']} |")
        if task["task"].startswith("corpus10k"):
            L += ["", "Ratios against sacreBLEU's command line (`sacrebleu-cli`); `-cold`: empty numba cache."]
        L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
