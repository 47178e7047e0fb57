#!/usr/bin/env python3
"""Tokenizer throughput: bleustats' byte kernels vs its regex path vs sacreBLEU's tokenizers.

Three implementations of sacreBLEU's BLEU preprocessing (``tokenizer(line.rstrip())``,
optionally lowercased first) run on the same lines in the same process:

  kernel     ``bleustats.engine.encode.tokenize_array`` on a ``pyarrow`` string
             array (numba, over the UTF-8 bytes; 1 and 2 numba threads)
  regex      ``bleustats.tokenizers.tokenize_lines`` on a list of str (batched ``regex``
             passes; single-threaded)
  sacrebleu  a fresh sacreBLEU 2.6 tokenizer object called on every line, as
             ``BLEU._preprocess_segment`` does (its per-object ``lru_cache`` starts
             empty every repeat); at most ``--sacrebleu-max-lines`` lines, time scaled
             by bytes (marked ``sampled``)

Throughput is input UTF-8 megabytes (1e6 bytes) per second, median of ``--repeats``; every
kernel and regex result is checked to be identical (and sacreBLEU's on its lines), or
the script exits 1.  Data sets: ``--sizes`` lines of ``benchmarks/data/hyp.S.txt`` (then
``ref0.S.txt`` ...; ``benchmarks/generate.py`` writes them: synthetic detokenised ASCII
English-like text), and ``wmt21``: every distinct text of ``../shared/data/wmt21_news``
(system outputs, references, sources: zh, ja, ru, de, ... so most of it is not ASCII).

First-call costs, each in a fresh subprocess (medians of ``--repeats``): importing the
module, the code-point tables (``code_point_tables``: read from their cache file beside
numba's when warm, built and saved when cold), the first serial and the first parallel
call on a few lines with the on-disk numba cache warm (cache load), and the same with an
empty ``NUMBA_CACHE_DIR`` (JIT compilation).

``--corpus S`` also times corpus BLEU end to end the way ``bench_core.py`` does (its
``--worker bleustats`` subprocess: import, first call, then ``corpus_bleu_files`` on
``hyp.S.txt`` + ``--corpus-refs`` references), tokenize ``none`` and ``13a`` alternating,
and reports the engine's stage timings and the worker's CPU seconds (``--corpus-threads``
sets ``NUMBA_NUM_THREADS``); ``--label`` names the run (e.g. before/after a change).

Usage::

    python benchmarks/bench_tokenize.py --sizes 100000 1000000 --wmt21 --repeats 3
    python benchmarks/bench_tokenize.py --sizes --corpus 100000 --label after --repeats 3
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RESULTS = os.path.join(HERE, "results")
SHARED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "data")
RESULT_TAG = "@@BENCH_RESULT@@ "


def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        out = fh.read().split("\n")
    if out and out[-1] == "":
        out.pop()
    return out


def synthetic_lines(data: str, size: int) -> list[str]:
    """``size`` lines from hyp.S.txt, ref0.S.txt, ... for the smallest S that has enough."""
    sizes = sorted(int(name.split(".")[1]) for name in os.listdir(data)
                   if name.startswith("hyp.") and name.endswith(".txt"))
    for s in sizes:
        lines: list[str] = []
        for name in ["hyp"] + [f"ref{k}" for k in range(16)]:
            path = os.path.join(data, f"{name}.{s}.txt")
            if not os.path.exists(path):
                break
            lines += _read_lines(path)
            if len(lines) >= size:
                return lines[:size]
    raise SystemExit(f"no generated files under {data} with {size} lines; run benchmarks/generate.py")


def wmt21_lines(shared: str) -> list[str]:
    root = os.path.join(shared, "wmt21_news")
    if not os.path.isdir(root):
        raise SystemExit(f"--wmt21 needs {root}")
    lines: list[str] = []
    for pair in sorted(os.listdir(root)):
        for name in ("system_outputs", "references", "references_unverified", "sources"):
            path = os.path.join(root, pair, f"{name}.tsv")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8", newline="") as fh:
                reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
                col = next(reader).index("text")
                lines += [row[col] for row in reader]
    return list(dict.fromkeys(lines))


def _median_time(fn, repeats: int) -> tuple[float, float, object]:
    """Median wall seconds, median process CPU seconds (all threads), last result."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(times), statistics.median(cpu), out


def _sacrebleu_tokenizer(tok: str):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

    return {"13a": Tokenizer13a, "intl": TokenizerV14International, "char": TokenizerChar}[tok]()


def throughput(name: str, lines: list[str], toks: list[str], lowercase: list[bool], threads: list[int],
               repeats: int, sacrebleu_max: int) -> list[dict]:
    import numba
    import pyarrow as pa

    from bleustats.engine.encode import tokenize_array
    from bleustats.tokenizers import tokenize_lines

    arr = pa.array(lines, pa.string())
    n_bytes = arr.buffers()[2].size
    mb = n_bytes / 1e6
    rows = []
    for tok in toks:
        for lc in lowercase:
            row = {"data": name, "lines": len(lines), "mb": round(mb, 3), "tokenizer": tok, "lowercase": lc}
            t_regex, c_regex, want = _median_time(
                lambda tok=tok, lc=lc: tokenize_lines(lines, tokenize=tok, lowercase=lc), repeats)
            row["regex_s"] = t_regex
            row["regex_mb_s"] = mb / t_regex
            row["regex_mb_per_cpu_s"] = mb / c_regex
            for n in threads:
                numba.set_num_threads(n)
                tokenize_array(arr.slice(0, 1000), tok, lowercase=lc)  # JIT warm-up (serial path)
                tokenize_array(arr, tok, lowercase=lc)  # and the parallel one, when used
                t_kernel, c_kernel, got = _median_time(
                    lambda tok=tok, lc=lc: tokenize_array(arr, tok, lowercase=lc), repeats)
                if got.to_pylist() != want:
                    raise SystemExit(f"MISMATCH kernel vs regex on {name} {tok} lowercase={lc}")
                row[f"kernel_{n}t_s"] = t_kernel
                row[f"kernel_{n}t_mb_s"] = mb / t_kernel
                row[f"kernel_{n}t_mb_per_cpu_s"] = mb / c_kernel
            sample = lines[:sacrebleu_max]
            sample_mb = sum(len(s.encode()) for s in sample) / 1e6

            def run_sacrebleu(sample=sample, tok=tok, lc=lc):
                tokenizer = _sacrebleu_tokenizer(tok)
                if lc:
                    return [tokenizer(s.lower().rstrip()) for s in sample]
                return [tokenizer(s.rstrip()) for s in sample]

            t_sb, c_sb, sb_out = _median_time(run_sacrebleu, repeats)
            if sb_out != want[: len(sample)]:
                raise SystemExit(f"MISMATCH sacreBLEU vs regex on {name} {tok} lowercase={lc}")
            row["sacrebleu_lines"] = len(sample)
            row["sacrebleu_sampled"] = len(sample) < len(lines)
            row["sacrebleu_mb_s"] = sample_mb / t_sb
            row["sacrebleu_mb_per_cpu_s"] = sample_mb / c_sb
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- first call

_FIRST_CALL = r"""
import json, os, sys, time
t0 = time.perf_counter()
import numba, numpy as np, pyarrow as pa
t1 = time.perf_counter()
from bleustats.engine import encode as tb
from bleustats.engine._tokenize_tables import code_point_tables
t2 = time.perf_counter()
code_point_tables()
t3 = time.perf_counter()
small = pa.array(["Hello, World!", "It costs $3.50."])
tb.tokenize_array(small, sys.argv[1], lowercase=sys.argv[2] == "1")
t4 = time.perf_counter()
tb._TOKENIZE_PARALLEL_MIN_BYTES = 0
numba.set_num_threads(2)
tb.tokenize_array(small, sys.argv[1], lowercase=sys.argv[2] == "1")
t5 = time.perf_counter()
print("@@BENCH_RESULT@@ " + json.dumps({"import_numba_numpy_pyarrow": t1 - t0, "import_module": t2 - t1,
      "tables": t3 - t2, "first_serial_call": t4 - t3, "first_parallel_call": t5 - t4}))
"""


def first_call(tok: str, lowercase: bool, repeats: int) -> dict:
    out: dict = {"tokenizer": tok, "lowercase": lowercase}
    for mode in ("cache_warm", "cold_compile"):
        runs = []
        for _ in range(repeats):
            env = dict(os.environ)
            tmp = None
            if mode == "cold_compile":
                tmp = tempfile.TemporaryDirectory()
                env["NUMBA_CACHE_DIR"] = tmp.name
            p = subprocess.run([sys.executable, "-c", _FIRST_CALL, tok, "1" if lowercase else "0"],
                               capture_output=True, text=True, env=env, check=False)
            if tmp is not None:
                tmp.cleanup()
            line = [x for x in p.stdout.splitlines() if x.startswith(RESULT_TAG)]
            if not line:
                raise SystemExit(f"first-call worker failed: {p.stderr[-2000:]}")
            runs.append(json.loads(line[0][len(RESULT_TAG):]))
        out[mode] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(json.dumps({mode: out[mode]}), file=sys.stderr, flush=True)
    return out


# --------------------------------------------------------------------------- corpus BLEU


def corpus(size: int, nrefs: int, repeats: int, data: str, threads: int | None = None) -> list[dict]:
    hyp = os.path.join(data, f"hyp.{size}.txt")
    refs = [os.path.join(data, f"ref{k}.{size}.txt") for k in range(nrefs)]
    for path in [hyp, *refs]:
        if not os.path.exists(path):
            raise SystemExit(f"--corpus needs {path}; run benchmarks/generate.py")
    runs: dict[str, list[dict]] = {"none": [], "13a": []}
    for rep in range(repeats):
        order = ["none", "13a"] if rep % 2 == 0 else ["13a", "none"]
        for tok in order:
            cmd = [sys.executable, os.path.join(HERE, "bench_core.py"), "--worker", "bleustats", "--tok", tok,
                   "--size", str(size), "--hyp", hyp, "--ref-files", *refs]
            env = dict(os.environ)
            if threads:
                env["NUMBA_NUM_THREADS"] = str(threads)
            t = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
            wall = time.perf_counter() - t
            line = [x for x in p.stdout.splitlines() if x.startswith(RESULT_TAG)]
            if not line:
                raise SystemExit(f"bench_core worker failed: {p.stderr[-2000:]}")
            res = json.loads(line[0][len(RESULT_TAG):])
            if "error" in res:
                raise SystemExit(f"bench_core worker error: {res['error']}")
            res["wall"] = wall
            runs[tok].append(res)
            print(json.dumps({"tok": tok, "wall": wall, "stages": res["stages"],
                              "timings": res.get("info", {}).get("timings")}), file=sys.stderr, flush=True)
    rows = []
    for tok, rs in runs.items():
        row = {"size": size, "refs": nrefs, "tokenize": tok, "score": rs[0]["score"],
               "numba_threads": threads or "default",
               "wall": statistics.median(r["wall"] for r in rs),
               "cpu_s": statistics.median(r["cpu_s"] for r in rs),
               "compute": statistics.median(r["stages"]["compute"] for r in rs),
               "first_call": statistics.median(r["stages"]["first_call"] for r in rs)}
        stages = [r.get("info", {}).get("timings") or {} for r in rs]
        for key in sorted(set().union(*stages)):
            vals = [s[key] for s in stages if isinstance(s.get(key), (int, float))]
            if vals:
                row[f"engine_{key}"] = statistics.median(vals)
        rows.append(row)
    ratio = {"compute_13a_over_none": rows[1]["compute"] / rows[0]["compute"],
             "wall_13a_over_none": rows[1]["wall"] / rows[0]["wall"],
             "cpu_13a_over_none": rows[1]["cpu_s"] / rows[0]["cpu_s"]}
    return rows + [ratio]


# --------------------------------------------------------------------------- main


def _versions() -> dict:
    import numba
    import numpy
    import pyarrow
    import regex
    import sacrebleu

    import bleustats

    return {"python": platform.python_version(), "numba": numba.__version__, "numpy": numpy.__version__,
            "pyarrow": pyarrow.__version__, "regex": regex.__version__, "sacrebleu": sacrebleu.__version__,
            "bleustats": getattr(bleustats, "__version__", "?"),
            "numba_threading_layer_default_threads": numba.config.NUMBA_NUM_THREADS}


def render_md(meta: dict, rows: list[dict], first: list[dict], corpus_rows: list) -> str:
    out = [f"# Tokenizer throughput ({meta['date']}, {meta['label']})", "",
           (f"Machine: {meta['cpu_count']} CPUs, load average before {meta['loadavg_before']}, "
            f"after {meta['loadavg_after']} (shared machine: other jobs ran). Medians of {meta['repeats']}. "
            "MB = 1e6 bytes of input UTF-8."), ""]
    if rows:
        out += [("Wall-clock MB/s, and in brackets MB per CPU second (process CPU time, all threads: "
                 "less sensitive to other jobs on the machine)."), "",
                ("| data | lines | MB | tok | lc | kernel 1t | kernel 2t | regex (bleustats.tokenizers) | sacreBLEU | "
                 "kernel 1t / regex | kernel 1t / sacreBLEU |"), "|---|---|---|---|---|---|---|---|---|---|---|"]
        nan = float("nan")
        for r in rows:
            def cell(key, r=r, digits=0):
                return f"{r.get(key + '_mb_s', nan):.{digits}f} ({r.get(key + '_mb_per_cpu_s', nan):.{digits}f})"
            sb = cell("sacrebleu", digits=1) + (f", {r['sacrebleu_lines']} lines" if r["sacrebleu_sampled"] else "")
            k1 = r.get("kernel_1t_mb_s", nan)
            out.append(f"| {r['data']} | {r['lines']} | {r['mb']:.1f} | {r['tokenizer']} | {int(r['lowercase'])} | "
                       f"{cell('kernel_1t')} | {cell('kernel_2t')} | {cell('regex', digits=1)} | {sb} | "
                       f"{k1 / r['regex_mb_s']:.1f}x | {k1 / r['sacrebleu_mb_s']:.0f}x |")
        out.append("")
    for f in first:
        modes = ("cache_warm", "cold_compile")
        out.append(f"First call, {f['tokenizer']} lowercase={f['lowercase']} (s): " + "; ".join(
            f"{mode}: " + ", ".join(f"{k} {v:.3f}" for k, v in f[mode].items()) for mode in modes))
        out.append("")
    if corpus_rows:
        out += [("| corpus | refs | tok | numba threads | wall s | CPU s | compute s | engine tokenize s | "
                 "engine encode s | engine kernel s |"),
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in corpus_rows[:-1]:
            out.append(f"| {r['size']} | {r['refs']} | {r['tokenize']} | {r.get('numba_threads', '?')} | "
                       f"{r['wall']:.2f} | {r.get('cpu_s', float('nan')):.2f} | {r['compute']:.2f} | "
                       f"{r.get('engine_tokenize', float('nan')):.2f} | {r.get('engine_encode', float('nan')):.2f} | "
                       f"{r.get('engine_kernel', float('nan')):.2f} |")
        ratio = corpus_rows[-1]
        out += ["", (f"13a / none: compute {ratio['compute_13a_over_none']:.2f}x, "
                     f"wall {ratio['wall_13a_over_none']:.2f}x, "
                     f"CPU {ratio.get('cpu_13a_over_none', float('nan')):.2f}x (CPU: the worker process, all threads, "
                     "import and first call included)"), ""]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000])
    ap.add_argument("--wmt21", action="store_true", help="also every distinct text of ../shared/data/wmt21_news")
    ap.add_argument("--tok", nargs="+", default=["13a", "intl"], choices=["13a", "intl", "char"])
    ap.add_argument("--lowercase", nargs="+", type=int, default=[0], choices=[0, 1])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sacrebleu-max-lines", type=int, default=100_000)
    ap.add_argument("--first-call", action="store_true", help="time import / tables / first calls")
    ap.add_argument("--corpus", type=int, default=None, metavar="S", help="corpus BLEU on hyp.S + refs, none vs 13a")
    ap.add_argument("--corpus-refs", type=int, default=4)
    ap.add_argument("--corpus-threads", type=int, default=None, help="NUMBA_NUM_THREADS for the corpus runs")
    ap.add_argument("--label", default="current")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--shared", default=SHARED)
    ap.add_argument("--out", default=os.path.join(RESULTS, "tokenize"))
    a = ap.parse_args(argv)

    meta = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "label": a.label,
            "cpu_count": os.cpu_count(), "loadavg_before": round(os.getloadavg()[0], 2),
            "repeats": a.repeats, "argv": sys.argv[1:], "versions": _versions()}
    rows: list[dict] = []
    datasets = [(f"synthetic {s}", synthetic_lines(a.data, s)) for s in a.sizes]
    if a.wmt21:
        datasets.append(("wmt21", wmt21_lines(a.shared)))
    for name, lines in datasets:
        rows += throughput(name, lines, a.tok, [bool(x) for x in a.lowercase], a.threads, a.repeats,
                           a.sacrebleu_max_lines)
    first = [first_call(tok, False, a.repeats) for tok in a.tok] if a.first_call else []
    corpus_rows = corpus(a.corpus, a.corpus_refs, a.repeats, a.data, a.corpus_threads) if a.corpus else []
    meta["loadavg_after"] = round(os.getloadavg()[0], 2)
    result = {"meta": meta, "throughput": rows, "first_call": first, "corpus": corpus_rows}
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump(result, fh, indent=1)
    md = render_md(meta, rows, first, corpus_rows)
    with open(a.out + ".md", "w") as fh:
        fh.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
