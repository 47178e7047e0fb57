"""In-memory scoring through the statistics protocol: before / after, same run (``bench_protocol.py``).

Scoring asks its statistics for exact column totals (:mod:`bleustats.engine.protocol`);
an in-memory table answers with numpy. This checks that the protocol costs the
hot path nothing: one saved 100k-row statistics table (4 systems × 25k segments)
is scored by two source trees in alternating subprocesses, the same numbers
required of both:

    python benchmarks/bench_protocol.py --before /work/main/src --after src --rows 100000 --repeat 5

Each subprocess loads the table, warms up once, then takes the best of
``--repeat`` timings (wall, and the process's CPU time) of ``corpus_scores(by='system')``, ``corpus_score``,
``corpus_score(rows=<bootstrap resample>)`` and ``sentence_scores``, and
``corpus_scores`` of the same rows as a four-part dataset. ``same_numbers``
requires every result (whole frames, every sentence score) equal across both
trees and every round, and the dataset's frame equal to the table's.

Two more calls time the other consumers of the BLEU formula: ``sentence_variants``,
every registered sentence-level variant in one ``score_variants`` pass (what k-best
scoring runs; at N = 3, so that Chen & Cherry's methods 5 and 7 have their order N+1),
and ``unit_scores``, the study's unit BLEU (``corpus_metric(...).unit_scores``) of
1,000 assignments × 25 units of 100 rows. The unit scores must be equal across the
trees; for the variants, the largest difference between the trees is reported
(``variants_max_diff``, on the 0–100 scale, with ``variants_max_rel_diff`` over scores
above 1e-6) and must stay below 1e-12 · max(1, |score|).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def _child(path: str, repeat: int) -> dict:
    import numpy as np

    from bleustats.engine.dataset import open_dataset
    from bleustats.engine.stats import load_stats
    from bleustats.meta.units import corpus_metric
    from bleustats.metrics import sentence, tables

    st = load_stats(path)
    ds = open_dataset(path + ".parts")
    rows = np.random.default_rng(0).integers(0, len(st), len(st))
    unit = corpus_metric(st)
    # the study's unit sums: 1,000 assignments x 25 units of 100 consecutive rows (counts: exact float sums),
    # each column contiguous (the study's layout)
    csum = np.concatenate([np.zeros((1, unit.values.shape[1])), np.cumsum(unit.values, axis=0)])
    starts = np.random.default_rng(2).integers(0, len(st) - 100, (1000, 25))
    unit_sums = np.moveaxis(np.ascontiguousarray(np.moveaxis(csum[starts + 100] - csum[starts], -1, 0)), 0, -1)
    names = list(sentence.SENTENCE_VARIANTS)
    calls = {
        "corpus_scores_by_system": lambda: tables.corpus_scores(st, by="system"),
        "corpus_score": lambda: tables.corpus_score(st),
        "corpus_score_resample": lambda: tables.corpus_score(st, rows=rows),
        "sentence_scores": lambda: tables.sentence_scores(st),
        "dataset_corpus_scores_by_system": lambda: tables.corpus_scores(ds, by="system"),
        "sentence_variants": lambda: sentence.score_variants(st, names, max_ngram_order=3),
        "unit_scores": lambda: unit.unit_scores(unit_sums, 100),
    }
    import bleustats

    out: dict = {"seconds": {}, "cpu_seconds": {}, "values": {}, "package": os.path.dirname(bleustats.__file__)}
    for name, fn in calls.items():
        fn()
        times = [_timed(fn) for _ in range(repeat)]
        out["seconds"][name] = min(t[0] for t in times)
        out["cpu_seconds"][name] = min(t[1] for t in times)
        r = fn()
        out["values"][name] = (r.to_dict("list") if hasattr(r, "columns") else
                               r.tolist() if isinstance(r, np.ndarray) else
                               {k: v.tolist() for k, v in r.items()} if isinstance(r, dict) else r.score)
    return out


def _timed(fn) -> tuple[float, float]:  # noqa: ANN001
    """Wall and CPU seconds of one call (CPU: the process's own, steadier on a shared machine)."""
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


def _make_table(path: str, n: int) -> None:
    import numpy as np
    import pandas as pd

    from bleustats.engine.stats import compute_stats

    rng = np.random.default_rng(1)
    words = np.array([f"w{i}" for i in range(2000)])
    segs = n // 4

    def text(k: int) -> list[str]:
        return [" ".join(rng.choice(words, 20)) for _ in range(k)]

    refs = pd.DataFrame({"seg_id": np.arange(segs), "text": text(segs)})
    hyps = pd.DataFrame({"seg_id": np.tile(np.arange(segs), 4), "system": np.repeat(list("ABCD"), segs),
                         "text": text(4 * segs)})
    st = compute_stats(hyps, refs)
    st.save(path)
    from bleustats.engine.dataset import DatasetWriter, write_part

    cuts = np.linspace(0, len(st), 5).astype(int)  # four parts, each system's rows split between two
    with DatasetWriter(path + ".parts") as w:
        w.commit([write_part(w.folder, i, [st.select(np.arange(a, b)).table])
                  for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="src folder of the tree measured as 'before'")
    ap.add_argument("--after", required=True, help="src folder of the tree measured as 'after'")
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2, help="alternating before/after subprocess pairs")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child[0], int(args.child[1]))))
        return
    path = os.path.join(tempfile.mkdtemp(), "stats.parquet")
    _make_table(path, args.rows)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for label in ("before", "after"):
            env = {**os.environ, "PYTHONPATH": os.path.abspath(getattr(args, label))}
            res = subprocess.run([sys.executable, __file__, "--before", "-", "--after", "-", "--child", path,
                                  str(args.repeat)], env=env, capture_output=True, text=True, check=True)
            runs[label].append(json.loads(res.stdout.strip().splitlines()[-1]))
    first = runs["before"][0]["values"]
    exact = [k for k in first if k != "sentence_variants"]
    same = all(r["values"][k] == first[k] for rs in runs.values() for r in rs for k in exact)
    same = same and first["dataset_corpus_scores_by_system"] == first["corpus_scores_by_system"]
    worst = worst_abs = worst_rel = 0.0  # the variants: the largest difference between any two runs' scores
    for rs in runs.values():
        for r in rs:
            for name, scores in r["values"]["sentence_variants"].items():
                for x, y in zip(scores, first["sentence_variants"][name]):
                    if x != y:
                        big = max(abs(x), abs(y))
                        worst = max(worst, abs(x - y) / max(1.0, big))
                        worst_abs = max(worst_abs, abs(x - y))
                        worst_rel = max(worst_rel, abs(x - y) / big if big > 1e-6 else 0.0)
    report = {"rows": args.rows, "repeat": args.repeat, "rounds": args.rounds, "same_numbers": same,
              "variants_max_diff": worst_abs, "variants_max_rel_diff": worst_rel}
    for name in runs["before"][0]["seconds"]:
        b = min(r["seconds"][name] for r in runs["before"])
        a = min(r["seconds"][name] for r in runs["after"])
        bc = min(r["cpu_seconds"][name] for r in runs["before"])
        ac = min(r["cpu_seconds"][name] for r in runs["after"])
        report[name] = {"before_s": round(b, 5), "after_s": round(a, 5), "after/before": round(a / b, 3),
                        "before_cpu_s": round(bc, 5), "after_cpu_s": round(ac, 5),
                        "cpu after/before": round(ac / bc, 3)}
    print(json.dumps(report, indent=1))
    if not same or worst > 1e-12:
        sys.exit("before and after gave different numbers")


if __name__ == "__main__":
    main()
