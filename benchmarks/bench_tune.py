#!/usr/bin/env python3
"""Tuning benchmark: PRO sampling + fit and one batch-MIRA epoch on a 1,000,000-entry k-best list.

Data: ``tune_data.make_pool(2000, 500, seed=0)``: 2,000 sources x 500 entries, one reference
each, six dense features correlated with length and quality (see ``benchmarks/tune_data.py``),
built in memory (an Arrow table of Moses feature strings). Every repeat is a fresh subprocess
that builds the list, reads it (``read_tuning_list``: feature parsing + BLEU statistics; numba
JIT warm-up on a toy list first, timed separately) and then times, each with its own clock:

  pro        ``tune(algorithm='pro', variant='bleu+1', iterations=1)``: scoring every entry,
             pair sampling (Gamma = 5000 draws per source: 10,000,000 pairs; Xi = 50 kept per
             source) and the logistic fit (Newton), ``scoring + sampling + fit``; target <= 30 s
  mira       one ``mira_epoch`` over the 2,000 sources with ``bleu+1`` (gains computed once)
             and with ``pseudo-doc`` (every source scored against the current background);
             target <= 30 s each
  twin       the plain-Python twins of tests/twins/tune.py on the first ``--twin-sources``
             sources (measured, not extrapolated): what the same work costs in Python loops

The median of ``--repeats`` runs is reported; every run is kept in the JSON. The machine is
shared: the 1-minute load average before and after each run is recorded.

Results: ``benchmarks/results/tune.json`` / ``.md``.

Usage::

    python benchmarks/bench_tune.py                  # 3 repeats
    python benchmarks/bench_tune.py --repeats 5 --twin-sources 0
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
RESULTS = os.path.join(HERE, "results")
TAG = "@@TUNE@@ "
N_SRC, PER_SRC = 2000, 500


def _child(twin_sources: int) -> dict:
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.dirname(HERE))  # tests.twins
    import numba
    import numpy as np
    import tune_data

    from bleustats.engine.stats import compute_stats
    from bleustats.tools import tune as T

    out: dict = {"threads": numba.get_num_threads()}
    t = time.perf_counter()
    nb, refs = tune_data.make_pool(N_SRC, PER_SRC, seed=0)
    out["generate"] = time.perf_counter() - t
    t = time.perf_counter()
    compute_stats(["a b c"], [["a b d"]], tokenize="none")
    out["warmup"] = time.perf_counter() - t
    t = time.perf_counter()
    tl = T.read_tuning_list(nb, refs, tokenize="none")
    out["read"] = time.perf_counter() - t
    out["entries"], out["sources"], out["features"] = tl.n_entries, tl.n_sources, tl.n_features
    init = np.array([0.1, 0.5, 0.3, 0.3, 0.3, -1.0])

    r = T.tune(tl, algorithm="pro", variant="bleu+1", init=init, seed=1, iterations=1)
    out["pro"] = {k: r.timings[k] for k in ("scoring", "sampling", "fit", "evaluate", "total")}
    out["pro"]["target"] = r.timings["scoring"] + r.timings["sampling"] + r.timings["fit"]
    out["pro"]["pairs"] = r.history[0]["pairs"]
    out["pro"]["bleu_start"], out["pro"]["bleu_final"] = r.start.score, r.final.score

    out["mira"] = {}
    for metric in ("bleu+1", "pseudo-doc"):
        state = T.MiraState.start(init, np.ones(10))
        order = np.random.default_rng(1).permutation(tl.n_sources)
        t = time.perf_counter()
        _, info = T.mira_epoch(tl, state, variant=metric, order=order)
        out["mira"][metric] = {"epoch": time.perf_counter() - t, "updates": info["updates"]}

    if twin_sources:
        from tests.twins import tune as twin

        from bleustats.metrics import sentence

        sub = tl.select(np.arange(int(tl.offsets[twin_sources])))
        s, vectors = sub.sentence_stats()
        scores = sentence.get_variant("bleu+1")(s)
        t = time.perf_counter()
        T.pro_sample_pairs(scores, sub.offsets, seed=1)
        vec_time = time.perf_counter() - t
        t = time.perf_counter()
        twin.pro_sample_pairs(scores, sub.offsets, gamma=5000, alpha=0.05, xi=50, seed=1)
        out["twin"] = {"sources": twin_sources, "sampling_twin": time.perf_counter() - t, "sampling": vec_time}
        feats, offs, vecs = sub.features.tolist(), sub.offsets.tolist(), vectors.tolist()
        order = list(range(sub.n_sources))
        t = time.perf_counter()
        T.mira_epoch(sub, T.MiraState.start(init, np.ones(10)), variant="pseudo-doc", order=order)
        out["twin"]["mira_pseudo_doc"] = time.perf_counter() - t
        t = time.perf_counter()
        twin.mira_epoch(feats, offs, vecs, init, order=order, c=0.01, decay=0.9, background=np.ones(10), n=4)
        out["twin"]["mira_pseudo_doc_twin"] = time.perf_counter() - t
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _versions() -> dict:
    import numba
    import numpy
    import pyarrow
    import scipy

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    from bleustats._version import __version__

    return {"bleustats": __version__, "numpy": numpy.__version__, "numba": numba.__version__,
            "pyarrow": pyarrow.__version__, "scipy": scipy.__version__}


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--twin-sources", type=int, default=100,
                    help="sources for the plain-Python twins (0: skip)")
    ap.add_argument("--out", default=os.path.join(RESULTS, "tune"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(TAG + json.dumps(_child(args.twin_sources)), flush=True)
        return 0
    info = {"started": _dt.datetime.now().isoformat(timespec="seconds"), "python": platform.python_version(),
            "platform": platform.platform(), "cpu": _cpu(), "cpu_count": os.cpu_count(), "versions": _versions(),
            "data": f"tune_data.make_pool({N_SRC}, {PER_SRC}, seed=0)", "repeats": args.repeats}
    runs = []
    for k in range(args.repeats):
        load0 = os.getloadavg()[0]
        t = time.perf_counter()
        p = subprocess.run([sys.executable, __file__, "--child", "--twin-sources", str(args.twin_sources)],
                           capture_output=True, text=True, check=False)
        if p.returncode:
            sys.stderr.write(p.stderr)
            return 1
        res = json.loads(next(ln for ln in p.stdout.splitlines() if ln.startswith(TAG))[len(TAG):])
        res.update(process_wall=time.perf_counter() - t, load_before=load0, load_after=os.getloadavg()[0])
        runs.append(res)
        print(f"run {k + 1}: pro {res['pro']['target']:.2f}s, mira bleu+1 {res['mira']['bleu+1']['epoch']:.2f}s, "
              f"pseudo-doc {res['mira']['pseudo-doc']['epoch']:.2f}s, read {res['read']:.2f}s", flush=True)

    def med(get):
        return statistics.median(get(r) for r in runs)

    summary = {
        "read": med(lambda r: r["read"]), "warmup": med(lambda r: r["warmup"]),
        "generate": med(lambda r: r["generate"]),
        "pro_scoring": med(lambda r: r["pro"]["scoring"]), "pro_sampling": med(lambda r: r["pro"]["sampling"]),
        "pro_fit": med(lambda r: r["pro"]["fit"]), "pro_target": med(lambda r: r["pro"]["target"]),
        "mira_bleu+1": med(lambda r: r["mira"]["bleu+1"]["epoch"]),
        "mira_pseudo-doc": med(lambda r: r["mira"]["pseudo-doc"]["epoch"]),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
    }
    if args.twin_sources:
        for k in ("sampling", "sampling_twin", "mira_pseudo_doc", "mira_pseudo_doc_twin"):
            summary["twin_" + k] = med(lambda r, k=k: r["twin"][k])
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".json", "w") as f:
        json.dump({"info": info, "summary": summary, "runs": runs}, f, indent=1)
    r0 = runs[0]
    v = info["versions"]
    lines = [
        "# Tuning: PRO sampling + fit and one batch-MIRA epoch on 1,000,000 k-best entries",
        "",
        f"Started {info['started']} on {info['cpu']} ({info['cpu_count']} logical CPUs, numba threads "
        f"{r0['threads']}), {info['platform']}; Python {info['python']}, "
        + ", ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        (f"Data: {info['data']} (benchmarks/tune_data.py): {r0['entries']:,} entries, {r0['sources']:,} sources, "
        f"{r0['features']} dense features, 1 reference, tokenize none. Median of {len(runs)} runs, each a fresh "
        "process. The machine is shared with other work: `load` is the 1-minute load average before/after "
        "each run."),
        "",
        "| stage | median s | runs (s) | target |",
        "|---|---:|---|---|",
    ]

    def row(label, key, get, target=""):
        vals = ", ".join(f"{get(r):.2f}" for r in runs)
        lines.append(f"| {label} | {summary[key]:.2f} | {vals} | {target} |")

    row("read the list (feature parsing + BLEU statistics)", "read", lambda r: r["read"])
    row("  numba JIT warm-up (toy list, before reading)", "warmup", lambda r: r["warmup"])
    row("PRO: score every entry (bleu+1)", "pro_scoring", lambda r: r["pro"]["scoring"])
    row("PRO: sample pairs (10,000,000 draws)", "pro_sampling", lambda r: r["pro"]["sampling"])
    row("PRO: logistic fit (Newton)", "pro_fit", lambda r: r["pro"]["fit"])
    row("**PRO sampling + fit** (the three above)", "pro_target", lambda r: r["pro"]["target"], "<= 30 s")
    row("**MIRA: one epoch, bleu+1**", "mira_bleu+1", lambda r: r["mira"]["bleu+1"]["epoch"], "<= 30 s")
    row("**MIRA: one epoch, pseudo-doc** (per-source rescoring)", "mira_pseudo-doc",
        lambda r: r["mira"]["pseudo-doc"]["epoch"], "<= 30 s")
    lines += [
        "",
        f"Pairs kept by PRO: {r0['pro']['pairs']:,}. Peak RSS {summary['peak_rss_mb']:.0f} MB. "
        "Load before/after: " + "; ".join(f"{r['load_before']:.1f}/{r['load_after']:.1f}" for r in runs) + ".",
    ]
    if args.twin_sources:
        s = summary
        lines += [
            "",
            (f"Plain-Python twins (tests/twins/tune.py) on the first {args.twin_sources} sources "
            f"({args.twin_sources * PER_SRC:,} entries), same work, measured: pair sampling "
            f"{s['twin_sampling_twin']:.2f} s vs {s['twin_sampling']:.3f} s vectorized "
            f"({s['twin_sampling_twin'] / s['twin_sampling']:.0f}x); one pseudo-doc MIRA epoch "
            f"{s['twin_mira_pseudo_doc_twin']:.2f} s vs {s['twin_mira_pseudo_doc']:.3f} s "
            f"({s['twin_mira_pseudo_doc_twin'] / s['twin_mira_pseudo_doc']:.0f}x)."),
        ]
    lines += ["", "Command: `python benchmarks/bench_tune.py" + (f" --repeats {args.repeats}" if args.repeats != 3
                                                                 else "") + "`", ""]
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
