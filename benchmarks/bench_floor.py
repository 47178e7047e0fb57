#!/usr/bin/env python3
"""Physical floor: the time to stream the encoded n-gram arrays through memory, vs bleustats.

Data: ``hyp.S.txt`` + ``ref0..ref{R-1}.S.txt`` from ``benchmarks/generate.py`` (default
S = 100,000, R = 4), tokenize ``none``.

In one process:

1. The token-id arrays the statistics kernel reads are built exactly as the engine builds
   them: ``bleustats.stats._encode`` on the hypotheses and the references (references in
   segment order, R per segment), giving ``hyp ids`` (one per token), ``hyp offsets`` (one
   per hypothesis + 1), ``ref ids`` and ``ref offsets`` (int32 each, as the engine builds
   them; the dtypes are recorded).
2. ``floor_1pass``: one ``numpy`` sum over the bytes of each of these four arrays, read as
   uint64 words (``a.view(uint8)[:8k].view(uint64).sum()`` + the < 8 tail bytes; one
   thread): every byte read once. This is the issue's "stream the encoded arrays once
   through memory".
3. ``floor_npass``: the same with the two id arrays summed ``max_order`` (4) times and the
   offsets once: every n-gram order touches every token again, so 4 x the id bytes +
   the offset bytes is the least the kernel reads (it reads more: hash tables, counts).
4. bleustats end to end: ``bleustats.corpus_bleu_files(hyp, refs, tokenize='none')`` after
   a JIT warm-up, with its engine stage timings (``kernel`` = the statistics kernel on the
   encoded arrays, numba-parallel on ``numba.get_num_threads()`` threads).

Each timing is the median of ``--repeats`` (>= 3). The arrays take ~530 bytes per segment
with 4 references: 5 MB at 10k, 53 MB at 100k, 530 MB at 1M.
Whether that fits in the last-level cache is reported (``fits_llc``): where it does, the
floor is a cache-bandwidth floor (lower than DRAM's), and so is what the kernel sees, since
the encoder has just written the arrays. Ratios: kernel / floor and end-to-end / floor
(floor = 1 pass).

Usage::

    python benchmarks/bench_floor.py --size 100000 --refs 4 --repeats 5 --out benchmarks/results/floor
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RESULTS = os.path.join(HERE, "results")


def _lines(path):
    with open(path, encoding="utf-8") as fh:
        out = fh.read().split("\n")
    if out and out[-1] == "":
        out.pop()
    return out


def _sum_bytes(a: np.ndarray) -> int:
    """Sum of a contiguous array's bytes read as little-endian uint64 words (+ the tail bytes)."""
    b = a.view(np.uint8)
    k = len(b) // 8 * 8
    return int(b[:k].view(np.uint64).sum(dtype=np.uint64)) + int(b[k:].sum())


def _llc_bytes():
    try:
        with open("/sys/devices/system/cpu/cpu0/cache/index3/size") as fh:
            txt = fh.read().strip()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(txt[-1], 1)
        return int(txt.rstrip("KMG")) * mult
    except (OSError, ValueError):
        return None


def _median_time(fn, repeats):
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), ts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--refs", type=int, default=4)
    ap.add_argument("--max-order", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--out", default=os.path.join(RESULTS, "floor"))
    a = ap.parse_args(argv)
    if a.repeats < 3:
        ap.error("--repeats must be >= 3")
    hyp_path = os.path.join(a.data, f"hyp.{a.size}.txt")
    ref_paths = [os.path.join(a.data, f"ref{k}.{a.size}.txt") for k in range(a.refs)]
    for p in [hyp_path] + ref_paths:
        if not os.path.exists(p):
            ap.error(f"{p} missing: run benchmarks/generate.py --sizes {a.size} --refs {a.refs}")

    import numba
    import pyarrow as pa

    import bleustats
    from bleustats.engine.encode import encode_segments, list_buffers

    hyps = _lines(hyp_path)
    streams = [_lines(p) for p in ref_paths]
    n = len(hyps)
    refs = [streams[k][i] for i in range(n) for k in range(a.refs)]  # segment order
    hyp_ptr = np.arange(n + 1, dtype=np.int64)
    ref_ptr = np.arange(0, a.refs * n + 1, a.refs, dtype=np.int64)
    h_arr, r_arr = pa.array(hyps, pa.string()), pa.array(refs, pa.string())
    encode_segments(h_arr[:2], r_arr[:2 * a.refs], hyp_ptr[:3], ref_ptr[:3], tokenize="none",
                    lowercase=False)  # JIT warm-up
    t = time.perf_counter()
    hyp_ids, ref_ids = encode_segments(h_arr, r_arr, hyp_ptr, ref_ptr, tokenize="none", lowercase=False)
    t_encode = time.perf_counter() - t
    hv, ho = list_buffers(hyp_ids)
    rv, ro = list_buffers(ref_ids)
    # the list arrays view one flat id buffer with absolute offsets: the bytes the kernel
    # reads are the slices the offsets cover (copies, so each is its own contiguous array)
    hv = np.ascontiguousarray(hv[ho[0]:ho[-1]])
    rv = np.ascontiguousarray(rv[ro[0]:ro[-1]])
    ho, ro = np.ascontiguousarray(ho), np.ascontiguousarray(ro)
    arrays = {"hyp_ids": hv, "hyp_offsets": ho, "ref_ids": rv, "ref_offsets": ro}
    nbytes = {k: int(v.nbytes) for k, v in arrays.items()}
    dtypes = {k: str(v.dtype) for k, v in arrays.items()}
    one = sum(nbytes.values())
    npass = a.max_order * (nbytes["hyp_ids"] + nbytes["ref_ids"]) + nbytes["hyp_offsets"] + nbytes["ref_offsets"]

    def stream_once():
        return sum(_sum_bytes(v) for v in arrays.values())

    def stream_n():
        s = 0
        for _ in range(a.max_order):
            s += _sum_bytes(hv) + _sum_bytes(rv)
        return s + _sum_bytes(ho) + _sum_bytes(ro)

    stream_once()  # first touch (page faults) outside the timing
    f1, f1_runs = _median_time(stream_once, a.repeats)
    fn, fn_runs = _median_time(stream_n, a.repeats)
    del hyp_ids, ref_ids, h_arr, r_arr, refs, streams, hyps

    # bleustats end to end from the files, after a warm-up
    bleustats.corpus_bleu(["a b c"], [["a b c"]], tokenize="none")
    e2e_runs, kern_runs, enc_runs, scores = [], [], [], []
    for _ in range(a.repeats):
        t = time.perf_counter()
        res = bleustats.corpus_bleu_files(hyp_path, ref_paths, tokenize="none")
        e2e_runs.append(time.perf_counter() - t)
        tm = res.stats["timings"]
        kern_runs.append(float(tm["kernel"]))
        enc_runs.append(float(tm["encode"]))
        scores.append(float(res.score))
    e2e, kern = statistics.median(e2e_runs), statistics.median(kern_runs)
    out = {
        "benchmark": "bench_floor",
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "size": a.size, "refs": a.refs, "max_order": a.max_order, "repeats": a.repeats, "tokenize": "none",
        "tokens": {"hyp": int(len(hv)), "ref": int(len(rv))},
        "bytes": nbytes, "dtypes": dtypes, "bytes_1pass": one, "bytes_npass": npass,
        "encode_seconds_once": t_encode,
        "floor_1pass": f1, "floor_1pass_runs": f1_runs, "floor_1pass_gb_s": one / f1 / 1e9,
        "floor_npass": fn, "floor_npass_runs": fn_runs, "floor_npass_gb_s": npass / fn / 1e9,
        "bleustats_e2e": e2e, "bleustats_e2e_runs": e2e_runs,
        "bleustats_kernel": kern, "bleustats_kernel_runs": kern_runs,
        "bleustats_encode": statistics.median(enc_runs), "bleustats_score": scores[0],
        "ratio_kernel_floor": kern / f1, "ratio_e2e_floor": e2e / f1,
        "ratio_kernel_floor_npass": kern / fn,
        "numba_threads": numba.get_num_threads(), "numpy_threads_for_sum": 1,
        "llc_bytes": _llc_bytes(), "fits_llc": (_llc_bytes() or 0) >= one,
        "versions": {"bleustats": bleustats.__version__, "numpy": np.__version__, "numba": numba.__version__,
                     "python": platform.python_version()},
        "what": ("floor_1pass = median time of one numpy sum (bytes read as uint64 words, one thread) over "
                 "each of hyp ids, hyp offsets, ref ids, ref offsets as bleustats._encode builds them; "
                 f"floor_npass = the id arrays summed {a.max_order} times (once per n-gram order) + "
                 "offsets once; bleustats kernel = engine 'kernel' stage of corpus_bleu_files "
                 "(tokenize none), e2e = the whole corpus_bleu_files call (files to score)"),
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump(out, fh, indent=1)
    llc = out["llc_bytes"]
    md = [f"# Physical floor ({a.size:,} segments x {a.refs} refs, tokenize none)", "",
          out["what"] + ".", "",
          f"Arrays once: {one / 1e6:.1f} MB; last-level cache {llc / 2**20:.0f} MiB: "
          + ("they fit, so this is a cache-bandwidth floor." if out["fits_llc"] else "they do not fit (DRAM floor).")
          if llc else "", "",
          "| measure | seconds | bytes | GB/s | bleustats kernel / it | bleustats e2e / it |",
          "|---|---:|---:|---:|---:|---:|",
          f"| floor: arrays once | {f1:.4f} | {one:,} | {one / f1 / 1e9:.1f} | {kern / f1:.1f}× | {e2e / f1:.1f}× |",
          f"| floor: ids x{a.max_order} + offsets | {fn:.4f} | {npass:,} | {npass / fn / 1e9:.1f} | "
          f"{kern / fn:.1f}× | {e2e / fn:.1f}× |",
          f"| bleustats kernel ({numba.get_num_threads()} threads) | {kern:.4f} | | | | |",
          f"| bleustats end to end (corpus_bleu_files) | {e2e:.4f} | | | | |", ""]
    with open(a.out + ".md", "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
