#!/usr/bin/env python3
"""chrF / chrF++ benchmark: bleustats vs sacreBLEU 2.6 on the same corpus, in the same run.

Data: WMT21 zh-en (``<shared>/data/wmt21_news/zh-en``): the system outputs in file
order (system by system) with each line's ref-A and ref-B, the first ``--segments``
lines (default 20,000: about ten systems' outputs of the 1,948 test segments). Without
the shared data (or with ``--synthetic``) a seeded generator writes Zipfian English-like
text instead (hypothesis and two references as random edits of a hidden source).

Tasks: chrF++ (``word_order=2``) and chrF (``word_order=0``), defaults otherwise.
Tools, alternating inside each repeat (the order rotates), all in this one process:

  sacrebleu       ``sacrebleu.metrics.CHRF(word_order=w).corpus_score(hyps, refs)``
  bleustats       ``bleustats.metrics.chrf.corpus_chrf(hyps, refs, word_order=w)``: from
                  Python lists to the score (Arrow conversion, statistics kernel on all
                  numba threads, sums, formula)
  bleustats-1t    the same on one numba thread

``first_call`` is bleustats' first call on a two-line corpus in this process (numba's
cache load, or compile when the cache is cold), timed apart from the runs. Each run's
score is checked against sacreBLEU's (equal bit for bit is required; the statistics are
compared row by row once). The median of ``--repeats`` runs is reported.

Usage::

    python benchmarks/bench_chrf.py --shared /work/shared --repeats 5
    python benchmarks/bench_chrf.py --synthetic --segments 20000
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parents[1] / "shared"  # ../shared beside the checkout


def _read_tsv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        return list(reader)


def wmt21_corpus(shared: Path, n: int) -> tuple[list[str], list[list[str]], str]:
    base = shared / "data" / "wmt21_news" / "zh-en"
    rows = _read_tsv(base / "system_outputs.tsv")[:n]
    ref_a = {int(r[1]): r[2] for r in _read_tsv(base / "references.tsv") if r[0] == "ref-A"}
    ref_b = {int(r[1]): r[2] for r in _read_tsv(base / "references_unverified.tsv") if r[0] == "ref-B"}
    hyps = [r[2] for r in rows]
    refs = [[ref_a[int(r[1])] for r in rows], [ref_b[int(r[1])] for r in rows]]
    systems = list(dict.fromkeys(r[0] for r in rows))
    return hyps, refs, (f"WMT21 zh-en system outputs, first {len(rows):,} lines ({len(systems)} systems, "
                        f"file order) x refs A and B")


def synthetic_corpus(n: int, seed: int = 1) -> tuple[list[str], list[list[str]], str]:
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(20_000)] + ["the", "of", "and", "a", "to", "in"] * 50)
    ranks = np.arange(1, len(vocab) + 1)
    p = 1.0 / ranks
    p /= p.sum()
    punct = np.array(["", "", "", "", ",", ".", "'s", ")"])

    def edit(tokens):
        out = [t for t in tokens if rng.random() > 0.15]
        for _ in range(rng.poisson(2)):
            out.insert(int(rng.integers(0, len(out) + 1)), str(rng.choice(vocab, p=p)))
        return " ".join(t + str(rng.choice(punct)) for t in out)

    hyps, r0, r1 = [], [], []
    for _ in range(n):
        src = list(rng.choice(vocab, size=int(rng.integers(5, 45)), p=p))
        hyps.append(edit(src))
        r0.append(edit(src))
        r1.append(edit(src))
    return hyps, [r0, r1], f"synthetic Zipfian text, {n:,} segments x 2 references (seed {seed})"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--segments", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    ap.add_argument("--synthetic", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "chrf")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")

    import numba
    from sacrebleu.metrics import CHRF

    from bleustats.engine.chrf_stats import chrf_statistics
    from bleustats.metrics.chrf import corpus_chrf

    use_wmt = not args.synthetic and (args.shared / "data" / "wmt21_news" / "zh-en").exists()
    if use_wmt:
        hyps, refs, data_desc = wmt21_corpus(args.shared, args.segments)
    else:
        hyps, refs, data_desc = synthetic_corpus(args.segments)
    print(f"data: {data_desc}", file=sys.stderr)

    t = time.perf_counter()
    corpus_chrf(["a b", "c"], [["a", "c d"]], word_order=2)
    first_call = time.perf_counter() - t
    n_threads = numba.get_num_threads()

    def run_bleustats(word_order, threads):
        numba.set_num_threads(threads)
        try:
            t0 = time.perf_counter()
            score = corpus_chrf(hyps, refs, word_order=word_order).score
            return time.perf_counter() - t0, score
        finally:
            numba.set_num_threads(n_threads)

    def run_sacrebleu(word_order):
        t0 = time.perf_counter()
        score = CHRF(word_order=word_order).corpus_score(hyps, refs).score
        return time.perf_counter() - t0, score

    tools = {
        "sacrebleu": run_sacrebleu,
        "bleustats": lambda w: run_bleustats(w, n_threads),
        "bleustats-1t": lambda w: run_bleustats(w, 1),
    }
    tasks = []
    for word_order, label in ((2, "chrF++"), (0, "chrF")):
        # exactness, once per task: every statistics row and the score
        oracle_rows = np.array(CHRF(word_order=word_order)._extract_corpus_statistics(hyps, refs), np.int64)
        rows_equal = bool(np.array_equal(chrf_statistics(hyps, refs, word_order=word_order), oracle_rows))
        runs = {name: [] for name in tools}
        scores = {name: [] for name in tools}
        names = list(tools)
        for rep in range(args.repeats):
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                seconds, score = tools[name](word_order)
                runs[name].append(seconds)
                scores[name].append(score)
                print(f"{label} rep {rep} {name}: {seconds:.3f} s score {score!r}", file=sys.stderr)
        ref_score = scores["sacrebleu"][0]
        med = {name: statistics.median(v) for name, v in runs.items()}
        tasks.append({
            "task": label, "word_order": word_order,
            "seconds": runs, "median_s": med, "scores": scores,
            "score_equal_bit_for_bit": all(s == ref_score for v in scores.values() for s in v),
            "statistics_equal": rows_equal,
            "speedup": {name: med["sacrebleu"] / med[name] for name in ("bleustats", "bleustats-1t")},
        })

    meta = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "data": data_desc, "segments": len(hyps), "references": len(refs),
        "repeats": args.repeats, "first_call_s": first_call,
        "cpu": _cpu_model(), "cpu_count": os.cpu_count(), "numba_threads": n_threads,
        "numba_threading_layer": numba.threading_layer(),
        "loadavg_end": os.getloadavg(),
        "versions": {"python": platform.python_version(),
                     **{m: version(m) for m in ("sacrebleu", "numpy", "numba", "pyarrow", "bleustats")}},
        "note": "machine shared with other sessions; medians of the repeats",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "tasks": tasks}, indent=1) + "\n")
    lines = [
        "# chrF / chrF++: bleustats vs sacreBLEU 2.6 on the same corpus",
        "",
        (f"Run {meta['date']} on {meta['cpu']} ({meta['cpu_count']} logical CPUs, shared with other "
        f"sessions; load average at the end {', '.join(f'{x:.2f}' for x in meta['loadavg_end'])}), "
        f"Python {meta['versions']['python']}, numba {meta['versions']['numba']} with "
        f"{n_threads} threads. Data: {data_desc}. Median of {args.repeats} runs per tool, tools "
        "alternating in one process. bleustats: `corpus_chrf` from Python lists to the score; "
        f"its first call in the process (cache load / JIT) took {first_call:.2f} s and is not in "
        "the runs. Statistics rows compared with sacreBLEU's `CHRF._extract_corpus_statistics` "
        "row by row; scores compared bit for bit."),
        "",
        ("| task | sacreBLEU s | bleustats s | bleustats 1 thread s | speed-up | speed-up (1 thread) "
        "| statistics equal | score equal | score |"),
        "|---|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for t in tasks:
        m = t["median_s"]
        lines.append(
            f"| {t['task']} | {m['sacrebleu']:.2f} | {m['bleustats']:.3f} | {m['bleustats-1t']:.3f} | "
            f"{t['speedup']['bleustats']:.1f}x | {t['speedup']['bleustats-1t']:.1f}x | "
            f"{'yes' if t['statistics_equal'] else 'NO'} | {'yes' if t['score_equal_bit_for_bit'] else 'NO'} | "
            f"{t['scores']['sacrebleu'][0]:.4f} |")
    lines += ["", "Command: `python benchmarks/bench_chrf.py " + " ".join(argv or sys.argv[1:]) + "`", ""]
    args.out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))
    ok = all(t["statistics_equal"] and t["score_equal_bit_for_bit"] for t in tasks)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
