#!/usr/bin/env python3
"""Statistics of millions of hypotheses on disk: one process streaming vs a local Dask cluster (issue 18).

Data (generated once under ``--data``, deterministic, git-ignored): ``S``
segments with two references each (one references table), and hypotheses
of ``N / S`` systems written as Parquet parts of ``--part-rows`` rows (a
part holds some systems' hypotheses of every segment). A hypothesis is three
phrases of a 100k-phrase pool drawn from a Zipfian 20k-word vocabulary (6-14
words each, ~30 words in all); the first phrase is its reference's first
phrase half of the time, so n-grams match. Nearly every hypothesis is a
distinct string. The 1M / 5M / 20M sets are the first 1 / 5 / 20 parts.

Modes, each in a fresh process (``--one``), timed end to end:

* ``single``: ``compute_stats_dataset(HYPS_DIR, REFS, OUT)`` here, partition
  after partition, batches of ``DEFAULT_BATCH_ROWS`` rows (what ``bleustats
  stats -i HYPS_DIR REFS -o OUT/`` runs), numba with its default threads
  (the machine's cores);
* ``single-1t``: the same on one numba thread (the per-core rate);
* ``local:2``: the same on ``connect("local:2")``: two worker processes, one
  thread each (``bleustats stats --dask local:2 ...``); the cluster's start
  and the workers' warm-up are timed apart and included in the wall time.

Then the dataset's corpus BLEU per system (``metrics.tables.corpus_scores``,
on the same executor) is timed, and the scores of every mode are checked
equal bit for bit. Peak RSS (``VmHWM`` of ``/proc/self/status``) is
reported per process: the driver, and each Dask worker (asked by
``client.run`` at the end). JIT
compilation is cached (numba ``cache=True``); one 10k warm-up run precedes
the timings in each process.

Usage::

    python benchmarks/bench_distributed.py --sizes 1000000 5000000 20000000 --repeats 3 1 1
    python benchmarks/bench_distributed.py --sizes 1000000 --repeats 1 --name distributed_quick

The data (about 2.5 GB of Parquet for 20M) is deleted at the end unless
``--keep-data``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
SEGMENTS = 200_000
POOL = 100_000
VOCAB = 20_000
SEED = 18


def _pool(rng: np.random.Generator) -> pa.Array:
    ranks = np.arange(1, VOCAB + 1)
    p = 1.0 / (ranks + 2.7)
    p /= p.sum()
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, int(rng.integers(2, 9)))) for _ in range(VOCAB)]
    lens = rng.integers(6, 15, POOL)
    ids = rng.choice(VOCAB, int(lens.sum()), p=p)
    out, pos = [], 0
    for n in lens:
        out.append(" ".join(words[i] for i in ids[pos:pos + n]))
        pos += n
    return pa.array(out, pa.string())


def _join(*cols: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(*cols, " ")


def generate(data: Path, n_rows: int, part_rows: int) -> dict:
    """Write refs.parquet and parts/part.K.parquet (K < n_rows / part_rows); returns sizes and timings."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(SEED)
    pool = _pool(rng)
    data.mkdir(parents=True, exist_ok=True)
    first = rng.integers(0, POOL, SEGMENTS)
    refs = pa.table({
        "seg_id": pa.array(np.repeat(np.arange(SEGMENTS), 2)),
        "ref_id": pa.array(["r0", "r1"] * SEGMENTS),
        "weight": pa.array(np.ones(2 * SEGMENTS)),
        "text": _join(pool.take(pa.array(np.repeat(first, 2))),
                      pool.take(pa.array(rng.integers(0, POOL, 2 * SEGMENTS)))),
    })
    pq.write_table(refs, data / "refs.parquet")
    (data / "parts").mkdir(exist_ok=True)
    systems_per_part = part_rows // SEGMENTS
    text_bytes = 0
    for k in range(n_rows // part_rows):
        prng = np.random.default_rng([SEED, k])
        seg = np.tile(np.arange(SEGMENTS), systems_per_part)
        keep = prng.random(len(seg)) < 0.5
        head = np.where(keep, first[seg], prng.integers(0, POOL, len(seg)))
        text = _join(pool.take(pa.array(head)), pool.take(pa.array(prng.integers(0, POOL, len(seg)))),
                     pool.take(pa.array(prng.integers(0, POOL, len(seg)))))
        names = np.repeat([f"sys{k * systems_per_part + j:04d}" for j in range(systems_per_part)], SEGMENTS)
        table = pa.table({"seg_id": pa.array(seg), "system": pa.array(names), "text": text})
        text_bytes += pc.sum(pc.binary_length(text)).as_py()
        pq.write_table(table, data / "parts" / f"part.{k}.parquet", row_group_size=1 << 17)
    disk = sum(p.stat().st_size for p in data.rglob("*.parquet"))
    return {"rows": n_rows, "segments": SEGMENTS, "refs": 2 * SEGMENTS, "text_bytes": text_bytes,
            "disk_bytes": disk, "seconds": time.perf_counter() - t0}


def subset(data: Path, n_rows: int, part_rows: int) -> Path:
    """A folder of links to the first parts: the n_rows set."""
    d = data / f"hyps_{n_rows}"
    if not d.exists():
        d.mkdir()
        for k in range(n_rows // part_rows):
            (d / f"part.{k}.parquet").symlink_to(data / "parts" / f"part.{k}.parquet")
    return d


def _maxrss_mb() -> float:
    """This process's peak resident memory: VmHWM (Linux), else ru_maxrss.

    Not ru_maxrss on Linux: a process started by fork + exec reports at least
    its parent's RSS at the fork there (the generator's ~1 GB, here), while
    VmHWM belongs to the process's own address space.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def one(mode: str, hyps: str, refs: str, out: str, scores_out: str) -> dict:
    """Run one mode in this (fresh) process; returns timings and peak RSS."""
    if mode == "single-1t":
        import numba
        numba.set_num_threads(1)
    from bleustats.engine._partitioned_stats import compute_stats_dataset
    from bleustats.metrics.tables import corpus_scores

    rss_import = _maxrss_mb()
    # warm-up: numba cache load and first calls, on 10k rows of the first part
    warm = pq.read_table(sorted(Path(hyps).iterdir())[0]).slice(0, 10_000)
    compute_stats_dataset(warm, refs, out + ".warm", partition_rows=5_000)
    shutil.rmtree(out + ".warm")
    result = {"mode": mode, "pid": os.getpid(), "rss_after_import_mb": rss_import}
    rss_before = _maxrss_mb()
    if mode == "local:2":
        from bleustats.distributed import connect, worker_pids

        t0 = time.perf_counter()
        with connect("local:2") as ex:
            t_start = time.perf_counter() - t0
            # the workers' own warm-up (numba cache, first calls): two partitions, one per worker as a rule
            compute_stats_dataset(warm, refs, out + ".warm", executor=ex, partition_rows=5_000)
            shutil.rmtree(out + ".warm")
            t_warm = time.perf_counter() - t0 - t_start
            t1 = time.perf_counter()
            ds = compute_stats_dataset(hyps, refs, out, executor=ex)
            t_stats = time.perf_counter() - t1
            t2 = time.perf_counter()
            scores = corpus_scores(ds.with_executor(ex), by="system")
            t_score = time.perf_counter() - t2
            workers = ex.client.run(_maxrss_mb)
            result.update(cluster_start_s=t_start, worker_warmup_s=t_warm, worker_peak_rss_mb=sorted(workers.values()),
                          worker_pids=sorted(worker_pids(ex).values()))
        result["wall_s"] = time.perf_counter() - t0
    else:
        t1 = time.perf_counter()
        ds = compute_stats_dataset(hyps, refs, out)
        t_stats = time.perf_counter() - t1
        t2 = time.perf_counter()
        scores = corpus_scores(ds, by="system")
        t_score = time.perf_counter() - t2
        result["wall_s"] = time.perf_counter() - t1
    scores.to_parquet(scores_out)  # compared exactly by the parent
    result.update(stats_s=t_stats, score_s=t_score, rows=len(ds), parts=len(ds.parts),
                  out_disk_bytes=sum(p.stat().st_size for p in Path(out).iterdir()),
                  driver_peak_rss_mb=_maxrss_mb(), driver_rss_before_run_mb=rss_before)
    return result


def _environment() -> dict:
    import dask
    import distributed
    import numba

    import bleustats

    return {"python": platform.python_version(), "bleustats": bleustats.__version__, "dask": dask.__version__,
            "distributed": distributed.__version__, "numba": numba.__version__, "pyarrow": pa.__version__,
            "numpy": np.__version__, "cpu_count": os.cpu_count(), "machine": platform.machine(),
            "loadavg_start": os.getloadavg(),
            "note": "shared machine: 2 cores, other sessions running; wall times are noisy"}


def render(res: dict) -> str:
    env = res["environment"]
    lines = ["# Statistics beyond one process (issue 18): single process streaming vs `local:2`", "",
             f"Machine: {env['cpu_count']} CPU cores, **shared with other sessions** (load average at start "
             f"{', '.join(f'{x:.2f}' for x in env['loadavg_start'])}; at end "
             f"{', '.join(f'{x:.2f}' for x in res['loadavg_end'])}), so wall times are noisy; medians of the repeats. "
             f"bleustats {env['bleustats']}, dask {env['dask']}, distributed {env['distributed']}, "
             f"numba {env['numba']}, pyarrow {env['pyarrow']}, Python {env['python']}.", "",
             f"Data: {res['data']['segments']:,} segments × 2 references; hypotheses of 100 systems × "
             f"{res['data']['segments']:,} segments in Parquet parts of 1M rows; "
             f"{res['data']['text_bytes'] / 1e9:.2f} GB of hypothesis text for {res['data']['rows']:,} rows "
             f"({res['data']['disk_bytes'] / 1e9:.2f} GB of Parquet on disk, generated in "
             f"{res['data']['seconds']:.0f} s). Command per mode: see the docstring of `bench_distributed.py`.", "",
             "| rows | parts | mode | repeats | wall s (median) | statistics s | score s | rows/s (statistics) | "
             "driver peak RSS MB | worker peak RSS MB | scores equal to `single` |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in res["runs"]:
        lines.append(
            f"| {r['rows']:,} | {r['parts']} | {r['mode']} | {r['repeats']} | {r['wall_s']:.1f} | {r['stats_s']:.1f} | "
            f"{r['score_s']:.2f} | {r['rows'] / r['stats_s']:,.0f} | {r['driver_peak_rss_mb']:.0f} | "
            f"{', '.join(f'{x:.0f}' for x in r.get('worker_peak_rss_mb', [])) or '-'} | "
            f"{r['equal_to_single']} |")
    lines += ["", "`wall` of `local:2` includes starting and stopping the cluster and the workers' warm-up "
              "(`cluster_start_s`, `worker_warmup_s` in the JSON); `statistics` is the computation alone, after the "
              "warm-up, in every mode. A partition is one Parquet part (1M rows), so at 1M `local:2` has one "
              "task and one busy worker; from 5M on both workers share the parts (5 parts: 3 + 2). "
              "Peak RSS is `VmHWM` of each process over its whole life "
              "(imports and warm-up included; `rss_after_import_mb` in the JSON)."]
    lines += [f"\n{note}" for note in res.get("notes", [])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(HERE / "data" / "distributed"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 5_000_000, 20_000_000])
    ap.add_argument("--repeats", type=int, nargs="+", default=[3, 1, 1], help="per size (last one repeats)")
    ap.add_argument("--modes", nargs="+", default=["single", "single-1t", "local:2"])
    ap.add_argument("--part-rows", type=int, default=1_000_000)
    ap.add_argument("--name", default="distributed")
    ap.add_argument("--keep-data", action="store_true")
    ap.add_argument("--render-only", metavar="JSON", help="write the .md of a results JSON again")
    ap.add_argument("--one", nargs=5, metavar=("MODE", "HYPS", "REFS", "OUT", "SCORES"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(*args.one)))
        return 0
    if args.render_only:
        path = Path(args.render_only)
        path.with_suffix(".md").write_text(render(json.loads(path.read_text())))
        return 0
    data = Path(args.data)
    env = _environment()
    gen = generate(data, max(args.sizes), args.part_rows) if not (data / "refs.parquet").exists() else \
        json.loads((data / "generated.json").read_text())
    (data / "generated.json").write_text(json.dumps(gen))
    print(f"data: {gen}", file=sys.stderr)
    runs = []
    for i, size in enumerate(args.sizes):
        hyps = subset(data, size, args.part_rows)
        repeats = args.repeats[min(i, len(args.repeats) - 1)]
        reference_scores = None
        for mode in args.modes:
            trials = []
            for _ in range(repeats):
                out, scores = data / "out_stats", data / "scores.parquet"
                cmd = [sys.executable, __file__, "--one", mode, str(hyps), str(data / "refs.parquet"), str(out),
                       str(scores)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    print(proc.stderr[-3000:], file=sys.stderr)
                    raise SystemExit(f"{mode} at {size} failed")
                trials.append(json.loads(proc.stdout.strip().splitlines()[-1]))
                frame = pd.read_parquet(scores)
                if reference_scores is None:
                    reference_scores = frame
                trials[-1]["equal_to_single"] = bool(frame.equals(reference_scores))
                shutil.rmtree(out)
                print(f"{size:>10,} {mode:<10} wall {trials[-1]['wall_s']:.1f} s  stats {trials[-1]['stats_s']:.1f} s"
                      f"  driver {trials[-1]['driver_peak_rss_mb']:.0f} MB "
                      f"workers {trials[-1].get('worker_peak_rss_mb', '-')}", file=sys.stderr)
            med = {k: statistics.median(t[k] for t in trials) for k in ("wall_s", "stats_s", "score_s")}
            runs.append({**trials[-1], **med, "repeats": repeats, "trials": trials,
                         "driver_peak_rss_mb": max(t["driver_peak_rss_mb"] for t in trials),
                         "equal_to_single": all(t["equal_to_single"] for t in trials)})
    res = {"environment": env, "data": gen, "runs": runs, "loadavg_end": os.getloadavg()}
    out = HERE / "results" / args.name
    out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")
    out.with_suffix(".md").write_text(render(res))
    print(render(res))
    if not args.keep_data:
        shutil.rmtree(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
