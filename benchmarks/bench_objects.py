#!/usr/bin/env python3
"""Metric objects with references given once (cached), several systems: sacreBLEU 2.6 vs bleustats.

Data: WMT21 news zh-en (``../shared/data/wmt21_news/zh-en``), the first 5 systems (name order),
every one of the 1,948 segments, against ref-A and ref-B. Each run builds the metric object
with ``references=`` (sacreBLEU caches n-grams; bleustats validates and tokenizes once into a
ReferenceSet) and scores the 5 systems with ``corpus_score(hyps, None)``; median of 3 runs,
same process, scores checked equal to 1e-9. Usage: ``python benchmarks/bench_objects.py``.
"""
import csv
import json
import os
import statistics
import time

import sacrebleu.metrics as sm

import bleustats.metrics as bm

SHARED = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "wmt21_news", "zh-en"
)


def tsv(p):
    """The rows of the tab-separated file ``p``, its header line skipped."""
    with open(p, encoding="utf-8", newline="") as fh:
        r = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(r)
        return list(r)


def load():
    """Reference streams (ref-A, ref-B) and the first 5 systems' outputs, in segment order."""
    refs = {}
    for f in ("references.tsv", "references_unverified.tsv"):
        for r in tsv(f"{SHARED}/{f}"):
            refs.setdefault(r[0], {})[int(r[1])] = r[2]
    systems = {}
    for r in tsv(f"{SHARED}/system_outputs.tsv"):
        systems.setdefault(r[0], {})[int(r[1])] = r[2]
    segs = sorted(refs["ref-A"])
    names = sorted(systems)[:5]
    streams = [[refs["ref-A"][s] for s in segs], [refs["ref-B"][s] for s in segs]]
    hyps = {n: [systems[n][s] for s in segs] for n in names}
    return streams, names, hyps


def bench(mk, names, hyps):
    """Median seconds of 3 runs (build the object with ``mk``, score every system) per tool."""
    row = {}
    for tool, M in (("sacrebleu", sm), ("bleustats", bm)):
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            metric = mk(M)
            scores = [metric.corpus_score(hyps[n], None).score for n in names]
            runs.append(time.perf_counter() - t)
        row[tool] = {"median_s": statistics.median(runs), "scores": scores}
    assert all(abs(a - b) < 1e-9 for a, b in zip(row["sacrebleu"]["scores"], row["bleustats"]["scores"]))
    row["speedup"] = row["sacrebleu"]["median_s"] / row["bleustats"]["median_s"]
    return row


def main():
    streams, names, hyps = load()
    bm.CHRF(references=[s[:2] for s in streams]).corpus_score(hyps[names[0]][:2])  # warm-up
    makers = [
        ("BLEU", lambda M: M.BLEU(references=streams)),
        ("chrF++", lambda M: M.CHRF(word_order=2, references=streams)),
    ]
    out = {}
    for label, mk in makers:
        out[label] = bench(mk, names, hyps)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
