#!/usr/bin/env python3
"""Cost of the integrity checks (issue 26) on a 1M-row saved statistics table and a 10-part dataset.

The table: statistics of 10,000 computed segments (3 systems' worth of varied sentences, 13a, BLEU-4),
tiled to 1,000,000 rows with new seg_ids (every key unique, every invariant kept), saved by
``StatsTable.save`` (so it carries its digest) and as a dataset of 10 parts. Measured, in one process,
median of 3 runs each:

* the Parquet read alone (``pyarrow.parquet.read_table``): the floor, no check;
* ``load_stats`` as a whole, and its parts: column / range / invariant validation (checked before this
  issue), the (system, seg_id) key check, the digest (new);
* ``open_stats`` of the dataset with the part checksums verified (default) and without (``verify=False``);
  a full score of the dataset (``corpus_scores`` by system) for scale;
* the coverage check of systems scored side by side (the rows relabelled as 3 systems), in memory and on a
  dataset, beside the ``corpus_scores`` call that runs it.

Usage: ``python benchmarks/bench_trust.py [ROWS]``; writes ``benchmarks/results/trust.md``.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bleustats.engine import schemas
from bleustats.engine.dataset import DatasetWriter, open_dataset, write_part
from bleustats.engine.io import table_digest
from bleustats.engine.stats import StatsTable, compute_stats, load_stats
from bleustats.metrics import results, tables

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "trust.md")


def median_time(fn, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def table(rows: int) -> StatsTable:
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(500)]
    n = 10_000
    hyps = [" ".join(rng.choice(words, rng.integers(5, 30))) for _ in range(n)]
    refs = [" ".join(rng.choice(words, rng.integers(5, 30))) for _ in range(n)]
    base = compute_stats(hyps, [refs]).table
    reps = -(-rows // n)
    tiled = pa.concat_tables([base] * reps).slice(0, rows).combine_chunks()
    seg = pa.array(np.arange(rows, dtype=np.int64))
    return StatsTable(tiled.set_column(0, "seg_id", seg).replace_schema_metadata(base.schema.metadata))


def main() -> None:
    st = table(ROWS)
    d = tempfile.mkdtemp(prefix="bench-trust-")
    path = os.path.join(d, "s.parquet")
    st.save(path)
    raw = pq.read_table(path)
    meta = raw.schema.metadata
    order = int(meta[b"bleustats.max_ngram_order"])
    with DatasetWriter(os.path.join(d, "ds")) as w:
        step = -(-ROWS // 10)
        parts = [write_part(w.folder, i, [st.table.slice(i * step, step)]) for i in range(10)]
        w.commit(parts)
    ds_path = os.path.join(d, "ds")
    size = os.path.getsize(path)
    r = {
        "read": median_time(lambda: pq.read_table(path)),
        "load": median_time(lambda: load_stats(path)),
        "validate": median_time(lambda: schemas.validate(raw, "statistics", max_ngram_order=order, check_key=False)),
        "key": median_time(lambda: schemas._key_problem(raw, "statistics", set(raw.column_names))),
        "digest": median_time(lambda: table_digest(raw)),
        "open_verify": median_time(lambda: open_dataset(ds_path)),
        "open_noverify": median_time(lambda: open_dataset(ds_path, verify=False)),
        "score_ds": median_time(lambda: tables.corpus_scores(open_dataset(ds_path), by="system")),
    }
    # the coverage check of systems scored side by side: the same rows as 3 systems of ROWS / 3 segments
    n3 = ROWS - ROWS % 3  # every system on every segment
    three = StatsTable(st.table.slice(0, n3).set_column(0, "seg_id", pa.array(np.arange(n3, dtype=np.int64) // 3))
                       .set_column(1, "system", pa.array(np.array(["A", "B", "C"], dtype=object)[np.arange(n3) % 3]
                                                         .tolist(), pa.string())))
    with DatasetWriter(os.path.join(d, "ds3")) as w:
        step = -(-n3 // 10)
        w.commit([write_part(w.folder, i, [three.table.slice(i * step, step)]) for i in range(10)])
    ds3 = open_dataset(os.path.join(d, "ds3"))
    r["cov_table"] = median_time(lambda: results.system_coverage(three))
    r["scores_table"] = median_time(lambda: tables.corpus_scores(three, by="system"))
    r["cov_ds"] = median_time(lambda: results.system_coverage(ds3))
    r["scores_ds3"] = median_time(lambda: tables.corpus_scores(ds3, by="system"))
    lines = [
        "# Integrity checks of saved statistics (issue 26)",
        "",
        f"`python benchmarks/bench_trust.py` — {ROWS:,} rows × {raw.num_columns} columns (BLEU-4), Parquet file "
        f"{size / 1e6:.1f} MB; dataset of 10 parts. Median of 3 runs, one process, "
        f"{os.cpu_count()} CPUs (shared machine); seconds.",
        "",
        "| step | seconds | vs the Parquet read |",
        "|---|---:|---:|",
        f"| Parquet read alone (`pq.read_table`, no check) | {r['read']:.3f} | 1.00× |",
        f"| `load_stats` whole (read + every check) | {r['load']:.3f} | {r['load'] / r['read']:.2f}× |",
        f"| — columns, ranges, invariants (checked before issue 26) | {r['validate']:.3f} | "
        f"{r['validate'] / r['read']:.2f}× |",
        f"| — (system, seg_id) key (new) | {r['key']:.3f} | {r['key'] / r['read']:.2f}× |",
        f"| — digest, SHA-256 of values and settings (new) | {r['digest']:.3f} | {r['digest'] / r['read']:.2f}× |",
        f"| `open_stats` of the dataset, part checksums verified (default) | {r['open_verify']:.3f} | "
        f"{r['open_verify'] / r['read']:.2f}× |",
        f"| `open_stats` of the dataset, `verify=False` | {r['open_noverify']:.3f} | "
        f"{r['open_noverify'] / r['read']:.2f}× |",
        f"| a full score of the dataset (`corpus_scores` by system, opening included) | {r['score_ds']:.3f} | "
        f"{r['score_ds'] / r['read']:.2f}× |",
        f"| coverage check (new), in-memory table of 3 systems | {r['cov_table']:.3f} | "
        f"{r['cov_table'] / r['read']:.2f}× |",
        f"| — `corpus_scores` by system of that table, the check included | {r['scores_table']:.3f} | "
        f"{r['scores_table'] / r['read']:.2f}× |",
        f"| coverage check (new), dataset of 3 systems | {r['cov_ds']:.3f} | {r['cov_ds'] / r['read']:.2f}× |",
        f"| — `corpus_scores` by system of that dataset, the check included | {r['scores_ds3']:.3f} | "
        f"{r['scores_ds3'] / r['read']:.2f}× |",
        "",
        "The new checks (key + digest) cost "
        f"{r['key'] + r['digest']:.3f} s per load of the 1M-row file; the dataset's checksums "
        f"{r['open_verify'] - r['open_noverify']:.3f} s per open (every byte of the parts read once).",
    ]
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
