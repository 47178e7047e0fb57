#!/usr/bin/env python3
"""Time against the length of ONE line: every stage must grow near-linearly (issue 13).

A corpus of one segment whose hypothesis and reference are each one line of
``S`` bytes, for ``S`` = 1 KiB, 2 KiB, ... ``--max-bytes`` (default 16 MiB),
doubling. The text has the shape of natural text at length: tokens drawn
from a Zipfian vocabulary of 50,000 words (so frequent words are followed by
thousands of distinct words, the case that made a list of children per trie
node quadratic), with attached punctuation every ~12 tokens so that ``13a``
has work to do. Hypothesis and reference are independent draws (seeded).

A second series (``--max-refs``, default 65,536; 0 skips it) keeps the lines
short (one hypothesis and ``K`` references of about 150 bytes each, the
same text generator) and doubles the number of references ``K`` from 1: the
cost must also grow near-linearly in ``K``. It reads the references as a
long-form table in memory (``compute_stats`` on Arrow tables), so the
stages are ``tokenize``, ``encode`` and ``kernel``.

For each size and tokenizer (``--tokenize``, default ``none`` and ``13a``) it
times, in this process, ``bleustats.compute_stats_files`` from the two files to
the statistics (stages: ``read_files``, ``tokenize``, ``encode``, ``kernel``
from the table's timings) and, with ``--peer``, ``sacrebleu.corpus_bleu`` on
the same line (its own tokenization and counting; the score is checked equal
to bleustats' within 1e-9). The JIT warm-up is a separate call on a tiny
corpus before the first timing. Each point is the median of ``--repeats``
runs (sacreBLEU: one run from 4 MiB on). A size whose run takes longer
than ``--cap-s`` seconds ends that tokenizer's series (the base commit's
quadratic kernel would otherwise run for hours).

The growth factor of a size is its time over the previous size's time: 2.0
is linear, 2.0-2.2 is n log n over this range, 4.0 is quadratic. Below about
64 KiB fixed costs dominate and the factor says little.

Usage::

    python benchmarks/bench_long_lines.py                       # 1 KiB .. 16 MiB, none and 13a
    python benchmarks/bench_long_lines.py --max-bytes 4194304 --peer --name long_lines_quick
    PYTHONPATH=/path/to/other/checkout/src python benchmarks/bench_long_lines.py --name long_lines_base

Writes ``benchmarks/results/<name>.json`` (every run, versions, CPU count,
numba threads) and ``<name>.md`` (the table), and prints the table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
STAGES = ("read_files", "tokenize", "encode", "kernel")


_VOCAB = np.array([f"w{i}" for i in range(50_000)], dtype=object)


def make_line(n_bytes: int, seed: int) -> str:
    """About ``n_bytes`` of Zipfian English-like text on one line (no newline)."""
    rng = np.random.default_rng(seed)
    n_tok = max(1, n_bytes // 6)
    ranks = rng.zipf(1.1, size=n_tok) % 50_000
    words = _VOCAB[ranks]
    punct = rng.random(n_tok) < 1 / 12
    marks = rng.choice(np.array([",", ".", ";", ")", "'s"], dtype=object), size=n_tok)
    words = np.where(punct, words + marks, words)
    line = " ".join(words.tolist())
    return line[:n_bytes].rstrip()


def time_bleustats(hyp: Path, ref: Path, tokenize: str) -> tuple[float, dict, object]:
    from bleustats.engine.stats import compute_stats_files

    t = time.perf_counter()
    st = compute_stats_files(hyp, [ref], tokenize=tokenize)
    wall = time.perf_counter() - t
    return wall, {k: float(st.timings.get(k, 0.0)) for k in STAGES}, st


def time_sacrebleu(hyp_line: str, ref_line: str, tokenize: str) -> tuple[float, object]:
    import sacrebleu

    t = time.perf_counter()
    res = sacrebleu.corpus_bleu([hyp_line], [[ref_line]], tokenize=tokenize)
    return time.perf_counter() - t, res


def refs_series(args: argparse.Namespace) -> list[dict]:
    """One short hypothesis against K = 1, 2, 4, ... references (long-form tables in memory)."""
    import pyarrow as pa

    from bleustats.engine.stats import compute_stats

    out = []
    pool = [make_line(150, 1000 + k) for k in range(args.max_refs)]  # K distinct references
    for tok in args.tokenize:
        prev, k = None, 1
        while k <= args.max_refs:
            refs = pa.table({"seg_id": np.zeros(k, np.int64), "text": pool[:k]})
            hyps = pa.table({"seg_id": np.zeros(1, np.int64), "text": [make_line(150, 1)]})
            walls, stages = [], []
            for _ in range(args.repeats):
                t = time.perf_counter()
                st = compute_stats(hyps, refs, tokenize=tok)
                walls.append(time.perf_counter() - t)
                stages.append({s: float(st.timings.get(s, 0.0)) for s in STAGES})
            wall = statistics.median(walls)
            row = {"tokenize": tok, "refs": k, "seconds": wall, "runs": walls,
                   "stages": {s: statistics.median(x[s] for x in stages) for s in STAGES},
                   "growth": None if prev is None else wall / prev}
            out.append(row)
            print(f"{tok:>5} K={k:>6}  {wall:8.4f} s" + ("" if prev is None else f"  x{row['growth']:.2f}"),
                  flush=True)
            prev = wall
            k *= 2
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--min-bytes", type=int, default=1 << 10)
    ap.add_argument("--max-bytes", type=int, default=1 << 24)
    ap.add_argument("--tokenize", nargs="+", default=["none", "13a"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cap-s", type=float, default=120.0, help="stop a series after a run this long")
    ap.add_argument("--peer", action="store_true", help="also time sacrebleu.corpus_bleu on the same line")
    ap.add_argument("--max-refs", type=int, default=1 << 16, help="references series up to K (0: skip)")
    ap.add_argument("--name", default="long_lines", help="results/<name>.json and .md")
    args = ap.parse_args(argv)

    import bleustats
    from bleustats.metrics.tables import corpus_score

    import numba

    bleustats.corpus_bleu(["a b c"], [["a b d"]], tokenize="none")  # JIT warm-up (cache load or compile)
    sizes = []
    s = args.min_bytes
    while s <= args.max_bytes:
        sizes.append(s)
        s *= 2
    runs: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for tok in args.tokenize:
            prev = None
            for size in sizes:
                hyp_line, ref_line = make_line(size, 1), make_line(size, 2)
                hyp, ref = Path(tmp) / "hyp.txt", Path(tmp) / "ref.txt"
                hyp.write_text(hyp_line + "\n", encoding="utf-8")
                ref.write_text(ref_line + "\n", encoding="utf-8")
                reps = args.repeats
                walls, stages, st = [], [], None
                for _ in range(reps):
                    wall, stage, st = time_bleustats(hyp, ref, tok)
                    walls.append(wall)
                    stages.append(stage)
                    if wall > args.cap_s:
                        break
                wall = statistics.median(walls)
                stage = {k: statistics.median(x[k] for x in stages) for k in STAGES}
                row = {"tokenize": tok, "bytes": size, "tokens": int(st.column("hyp_len")[0]),
                       "seconds": wall, "runs": walls, "stages": stage,
                       "growth": None if prev is None else wall / prev}
                if args.peer:
                    peer_walls = []
                    for _ in range(reps if size < (1 << 22) else 1):  # sacreBLEU: one run from 4 MiB on
                        pw, res = time_sacrebleu(hyp_line, ref_line, tok)
                        peer_walls.append(pw)
                    ours = corpus_score(st).score
                    if abs(ours - res.score) > 1e-9:
                        raise SystemExit(f"score differs from sacreBLEU at {size} bytes, {tok}: "
                                         f"{ours!r} vs {res.score!r}")
                    row["sacrebleu_seconds"] = statistics.median(peer_walls)
                runs.append(row)
                prev = wall
                g = "" if row["growth"] is None else f"  x{row['growth']:.2f}"
                print(f"{tok:>5} {size:>9} B {row['tokens']:>8} tok  {wall:8.3f} s{g}  "
                      + "  ".join(f"{k} {v:.3f}" for k, v in stage.items())
                      + (f"  sacrebleu {row['sacrebleu_seconds']:.3f} s" if args.peer else ""), flush=True)
                if wall > args.cap_s:
                    print(f"{tok}: {wall:.1f} s > --cap-s {args.cap_s:g}: larger sizes skipped", flush=True)
                    break

    ref_runs = refs_series(args) if args.max_refs else []

    meta = {
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "bleustats": getattr(bleustats, "__version__", "?"),
        "bleustats_path": str(Path(bleustats.__file__).parent),
        "numpy": np.__version__, "numba": numba.__version__, "sacrebleu": version("sacrebleu"),
        "python": platform.python_version(), "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(), "machine": platform.machine(),
        "load_avg": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "argv": sys.argv[1:],
    }
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    payload = {"meta": meta, "runs": runs, "refs_runs": ref_runs}
    (out / f"{args.name}.json").write_text(json.dumps(payload, indent=1) + "\n")
    lines = [f"# One long line: seconds against line length ({meta['date']})", "",
             f"bleustats {meta['bleustats']} ({meta['bleustats_path']}), numba {meta['numba']} on "
             f"{meta['numba_threads']} threads, {meta['cpu_count']} CPUs, load {meta['load_avg']}; "
             "median of the runs; growth = time / time at half the size (2 = linear, 4 = quadratic).", "",
             "| tokenize | bytes | tokens | seconds | growth | read | tokenize | encode | kernel |"
             + (" sacreBLEU s |" if args.peer else ""),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if args.peer else "")]
    for r in runs:
        g = "" if r["growth"] is None else f"{r['growth']:.2f}"
        st = r["stages"]
        lines.append(f"| {r['tokenize']} | {r['bytes']:,} | {r['tokens']:,} | {r['seconds']:.3f} | {g} | "
                     f"{st['read_files']:.3f} | {st['tokenize']:.3f} | {st['encode']:.3f} | {st['kernel']:.3f} |"
                     + (f" {r['sacrebleu_seconds']:.3f} |" if args.peer else ""))
    lines += ["", "Growth per doubling from 1 MiB to the largest size (geometric mean; 2.00 = linear):", ""]
    for tok in args.tokenize:
        big = [r for r in runs if r["tokenize"] == tok and r["bytes"] >= (1 << 20)]
        if len(big) >= 2:
            g = (big[-1]["seconds"] / big[0]["seconds"]) ** (1 / (len(big) - 1))
            lines.append(f"- {tok}: {g:.2f} ({big[0]['bytes']:,} B: {big[0]['seconds']:.3f} s → "
                         f"{big[-1]['bytes']:,} B: {big[-1]['seconds']:.3f} s)")
    if ref_runs:
        lines += ["", "Many references: one hypothesis of about 150 bytes against K references of about 150 "
                  "bytes each (growth = time / time at K/2).", "",
                  "| tokenize | K | seconds | growth | tokenize | encode | kernel |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for r in ref_runs:
            g = "" if r["growth"] is None else f"{r['growth']:.2f}"
            st = r["stages"]
            lines.append(f"| {r['tokenize']} | {r['refs']:,} | {r['seconds']:.3f} | {g} | {st['tokenize']:.3f} | "
                         f"{st['encode']:.3f} | {st['kernel']:.3f} |")
        lines += ["", "Growth per doubling from K = 1,024 to the largest K (geometric mean; 2.00 = linear):", ""]
        for tok in args.tokenize:
            big = [r for r in ref_runs if r["tokenize"] == tok and r["refs"] >= 1024]
            if len(big) >= 2:
                g = (big[-1]["seconds"] / big[0]["seconds"]) ** (1 / (len(big) - 1))
                lines.append(f"- {tok}: {g:.2f}")
    (out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
