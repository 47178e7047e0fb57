"""MBR benchmark: ``bleustats mbr`` (whole process) against fastchrf, a sacreBLEU loop and mbrs, same run.

Data (real Moses candidates, /work/shared/data/moses_nbest, written to
``benchmarks/data/`` by this script):

* ``mbr.200x64.txt``: 200 sources × 64 candidates: the 100 sources of
  ``scorer.nbest.gz`` (its first 64 entries each), then the 70 (run, source)
  lists of ``aggregate/run1..14.nbest.gz`` (entries 0-63) and 30 of them again
  with entries 100-163 (different candidates of the same source);
* ``mbr.1000x256.txt``: 1,000 sources × 256 candidates, each the 200 entries
  of one aggregate (run a, source) list plus 56 entries of (run b, same source),
  over the ordered run pairs a != b (910 lists), then 90 more with run b's
  entries 56-111.

Jobs (each in a fresh process; wall time and peak RSS from ``/usr/bin/time``
for the CLI, from the job's own clock and ``getrusage`` for in-process peers):

* ``bleustats-cli``: ``bleustats mbr NBEST -m METRIC --best BEST -o OUT``,
  the whole process (start-up, numba cache load, reading, scoring, writing);
  a warm-up run first (numba's on-disk cache filled), not timed;
* ``bleustats-inprocess``: ``bleustats.tools.mbr.mbr_select(lists)`` in-process,
  after a warm-up call (reading the lists not timed), for a like-for-like
  comparison with the in-process peers;
* ``fastchrf``: ``fastchrf.pairwise_chrf(lists, lists)`` in-process (reading
  the lists not timed), then the row means and argmax;
* ``fastchrf-aggregate``: ``fastchrf.aggregate_chrf(lists, lists)`` beside
  ``bleustats mbr --aggregate``;
* ``sacrebleu``: ``CHRF().sentence_score(h, [r])`` (or ``BLEU(effective_order=True)``
  / chrF++) for every pair of ``--sacre-sources`` evenly spaced sources,
  extrapolated linearly in pairs to all sources (stated in the table);
* ``mbrs``: mbrs' ``DecoderMBR`` with its ``MetricChrF`` (default config) on
  ``--mbrs-sources`` evenly spaced sources, one by one in-process (imports and
  set-up not timed; mbrs starts its own worker processes), extrapolated, when
  ``--mbrs-python`` names a Python with mbrs installed (its own venv: it needs
  torch). Measured on the whole 200x64 list once: 650.5 s.

Agreement gate: bleustats' expected utilities (from ``-o``) against the row
means of fastchrf's matrices; the largest difference is reported.

Usage::

    python benchmarks/bench_mbr.py                      # both sizes, 3 repeats on 200x64
    python benchmarks/bench_mbr.py --sizes 200x64 --repeats 1
    python benchmarks/bench_mbr.py --sizes 200x64 --keep-sizes-from benchmarks/results/mbr.json  # 1000x256 kept
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SHARED = os.path.join(HERE, "..", "..", "..", "shared", "data", "moses_nbest")
RESULTS = os.path.join(HERE, "results")


def _read_moses(path: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            parts = line.split(" ||| ")
            out.setdefault(int(parts[0]), []).append(parts[1])
    return out


def shared_dir() -> str:
    for cand in (os.environ.get("BLEUSTATS_SHARED_NBEST"), SHARED, "/work/shared/data/moses_nbest"):
        if cand and os.path.isdir(cand):
            return cand
    sys.exit("moses_nbest data not found; set BLEUSTATS_SHARED_NBEST")


def build_lists(size: str) -> list[list[str]]:
    base = shared_dir()
    runs = [_read_moses(os.path.join(base, "aggregate", f"run{k}.nbest.gz")) for k in range(1, 15)]
    if size == "200x64":
        scorer = _read_moses(os.path.join(base, "scorer.nbest.gz"))
        lists = [scorer[s][:64] for s in sorted(scorer)]
        lists += [run[s][:64] for run in runs for s in sorted(run)]
        lists += [run[s][100:164] for run in runs for s in sorted(run)][:30]
        return lists
    if size == "1000x256":
        lists = []
        for lo in (0, 56):
            for a in range(14):
                for b in range(14):
                    if a != b:
                        for s in sorted(runs[a]):
                            lists.append(runs[a][s] + runs[b][s][lo:lo + 56])
        return lists[:1000]
    raise SystemExit(f"unknown size {size!r}; use 200x64 or 1000x256")


def write_nbest(size: str) -> str:
    os.makedirs(DATA, exist_ok=True)
    path = os.path.join(DATA, f"mbr.{size}.txt")
    if not os.path.exists(path):
        lists = build_lists(size)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            for s, cands in enumerate(lists):
                for c in cands:
                    f.write(f"{s} ||| {c} ||| F0= 0 ||| 0\n")
        os.replace(path + ".tmp", path)
    return path


def read_lists(path: str) -> list[list[str]]:
    out: dict[int, list[str]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split(" ||| ")
            out.setdefault(int(parts[0]), []).append(parts[1])
    return [out[k] for k in sorted(out)]


# --------------------------------------------------------------------------- jobs


def run_cli(nbest: str, metric: str, extra: list[str], tmp: str) -> dict:
    out, best = os.path.join(tmp, "out.parquet"), os.path.join(tmp, "best.txt")
    exe = os.path.join(os.path.dirname(sys.executable), "bleustats")
    cmd = ["/usr/bin/time", "-f", "%e %M", exe, "mbr", nbest, "-m", metric, "--best", best, "-o", out, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"bleustats mbr failed: {proc.stderr[-2000:]}")
    wall, rss_kb = proc.stderr.strip().splitlines()[-1].split()
    return {"wall_s": float(wall), "peak_rss_mb": int(rss_kb) / 1024, "out": out}


PEER_CODE = r"""
import json, resource, sys, time
sys.path.insert(0, {here!r})
from bench_mbr import read_lists
lists = read_lists({nbest!r})
job = {job!r}
n_src = {n_src}
t0 = time.perf_counter()
if job == "fastchrf":
    import numpy as np, fastchrf
    mats = fastchrf.pairwise_chrf(lists, lists)
    means = [np.asarray(m, dtype=np.float64).mean(axis=1) for m in mats]
    best = [int(np.argmax(m)) for m in means]
    extra = {{"means": [float(x) for m in means for x in m]}}
    pairs = sum(len(c) ** 2 for c in lists)
elif job == "fastchrf-aggregate":
    import numpy as np, fastchrf
    agg = fastchrf.aggregate_chrf(lists, lists)
    best = [int(np.argmax(a)) for a in agg]
    extra = {{"means": [float(x) for a in agg for x in a]}}
    pairs = sum(len(c) ** 2 for c in lists)
elif job == "bleustats-inprocess":
    from bleustats.tools.mbr import mbr_select
    mbr_select([lists[0][:4]])  # numba's cache loaded before the clock starts
    t0 = time.perf_counter()
    r = mbr_select(lists, metric="chrf")
    extra = {{"means": [float(x) for x in r.expected_utility]}}
    pairs = sum(len(c) ** 2 for c in lists)
elif job.startswith("sacrebleu"):
    from sacrebleu.metrics import BLEU, CHRF
    metric = {{"sacrebleu-chrf": CHRF(), "sacrebleu-chrf++": CHRF(word_order=2),
              "sacrebleu-bleu": BLEU(effective_order=True)}}[job]
    sub = lists[::max(1, len(lists) // n_src)][:n_src]
    for c in sub:
        rows = [[metric.sentence_score(h, [r]).score for r in c] for h in c]
    pairs = sum(len(c) ** 2 for c in sub)
    extra = {{}}
elif job == "mbrs":
    from mbrs.metrics import MetricChrF
    from mbrs.decoders import DecoderMBR
    metric = MetricChrF(MetricChrF.Config())
    dec = DecoderMBR(DecoderMBR.Config(), metric)
    sub = lists[::max(1, len(lists) // n_src)][:n_src]
    dec.decode(sub[0][:4], sub[0][:4], nbest=1)
    t0 = time.perf_counter()  # imports (torch) and the decoder's set-up not timed
    for c in sub:
        dec.decode(c, c, nbest=1)
    pairs = sum(len(c) ** 2 for c in sub)
    extra = {{}}
elapsed = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"wall_s": elapsed, "peak_rss_mb": rss, "pairs": pairs, **extra}}))
"""


def run_peer(job: str, nbest: str, n_src: int, python: str = sys.executable) -> dict:
    code = PEER_CODE.format(here=HERE, nbest=nbest, job=job, n_src=n_src)
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"rc {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def versions() -> dict:
    out = {"python": platform.python_version(), "cpus": os.cpu_count(), "machine": platform.machine()}
    from importlib import metadata

    for mod in ("bleustats", "numba", "numpy", "sacrebleu", "fastchrf"):
        try:
            out[mod] = metadata.version(mod)
        except metadata.PackageNotFoundError:
            out[mod] = None
    try:
        import numba

        out["numba_threads"] = numba.get_num_threads()
    except ImportError:
        pass
    return out


def _median(runs: list[dict], key: str) -> float | None:
    vals = sorted(r[key] for r in runs if key in r)
    return vals[len(vals) // 2] if vals else None


def render(report: dict) -> str:
    """The results page (markdown) of one run."""
    v = report["versions"]
    lines = ["# MBR benchmark (`benchmarks/bench_mbr.py`)", "",
             f"Run {report['date']}; {v.get('cpus')} CPU cores (shared with other work), numba threads "
             f"{v.get('numba_threads')}; bleustats {v.get('bleustats')}, numba {v.get('numba')}, numpy "
             f"{v.get('numpy')}, sacrebleu {v.get('sacrebleu')}, fastchrf {v.get('fastchrf')}, "
             f"Python {v.get('python')}. "
             "Wall times are medians over the repeats (one run on 1000x256); 'extrapolated' rows scored a "
             "sample of sources and are scaled linearly in pairs. Ratios are against `bleustats mbr -m chrf` "
             "(whole process) in the same run.", ""]
    for size, res in report["sizes"].items():
        runs = res["runs"]
        ours = _median(runs.get("bleustats-cli chrf", []), "wall_s")
        lines += [f"## {size}: {res['sources']} sources, {res['candidates']} candidates, {res['pairs']:,} pairs", ""]
        if "date" in res:  # kept from an earlier run (--keep-sizes-from)
            lines += [f"Run {res['date']} (an earlier run than the rest of this page; bleustats "
                      f"{res['versions'].get('bleustats')}, fastchrf {res['versions'].get('fastchrf')}); its ratios "
                      "are within that run.", ""]
        lines += ["| job | wall s | peak RSS MB | pairs/s | × bleustats chrF |", "|---|---|---|---|---|"]
        for name, rs in runs.items():
            if any("error" in r for r in rs):
                lines.append(f"| {name} | error: {rs[0]['error']} | | | |")
                continue
            wall = _median(rs, "wall_s_extrapolated") or _median(rs, "wall_s")
            rss = _median(rs, "peak_rss_mb")
            ratio = f"{wall / ours:.1f}" if ours else ""
            lines.append(f"| {name} | {wall:.1f} | {rss:.0f} | {res['pairs'] / wall:,.0f} | {ratio} |")
        for key in ("max_abs_diff_vs_fastchrf", "max_abs_diff_aggregate_vs_fastchrf"):
            if key in res:
                lines.append("")
                lines.append(f"{key.replace('_', ' ')}: {res[key]:.3g}")
        lines.append("")
    return "\n".join(lines)


def _keep_sizes(report: dict, earlier: str | None) -> None:
    """Sizes of an earlier run that this one did not run, each with that run's date and versions."""
    if not earlier:
        return
    with open(earlier, encoding="utf-8") as f:
        old = json.load(f)
    for size, res in old["sizes"].items():
        if size not in report["sizes"]:
            res.setdefault("date", old["date"])
            res.setdefault("versions", old["versions"])
            report["sizes"][size] = res


def _write(report: dict, out: str) -> None:
    with open(out + ".json", "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    with open(out + ".md", "w", encoding="utf-8") as f:
        f.write(render(report))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["200x64", "1000x256"])
    ap.add_argument("--repeats", type=int, default=3, help="repeats on 200x64 (1000x256: once)")
    ap.add_argument("--sacre-sources", type=int, default=4, help="sources the sacreBLEU loop / mbrs score")
    ap.add_argument("--sacre-sources-large", type=int, default=1, help="the same on 1000x256")
    ap.add_argument("--fastchrf-sources-large", type=int, default=40,
                    help="sources fastchrf scores on 1000x256 (extrapolated; 0: all)")
    ap.add_argument("--mbrs-python", default=None, help="a Python with mbrs installed (its own venv)")
    ap.add_argument("--mbrs-sources", type=int, default=8, help="sources mbrs decodes on 200x64 (extrapolated)")
    ap.add_argument("--mbrs-sources-large", type=int, default=1, help="the same on 1000x256")
    ap.add_argument("--out", default=os.path.join(RESULTS, "mbr"))
    ap.add_argument("--render-only", metavar="JSON", help="write the markdown page of an earlier run's JSON")
    ap.add_argument("--keep-sizes-from", metavar="JSON",
                    help="an earlier run's JSON whose other sizes (not run now) stay on the page, with their run date")
    args = ap.parse_args(argv)
    if args.render_only:
        with open(args.render_only, encoding="utf-8") as f:
            report = json.load(f)
        _keep_sizes(report, args.keep_sizes_from)
        _write(report, args.out)
        return 0
    import numpy as np
    import pyarrow.parquet as pq

    report = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "versions": versions(), "sizes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            nbest = write_nbest(size)
            lists = read_lists(nbest)
            n_src, n_pairs = len(lists), sum(len(c) ** 2 for c in lists)
            res: dict = {"sources": n_src, "candidates": sum(map(len, lists)), "pairs": n_pairs, "runs": {}}
            run_cli(nbest, "chrf", [], tmp)  # warm-up: numba's cache
            large = size != "200x64"
            reps = 1 if large else args.repeats
            jobs: list[tuple] = [("bleustats-cli chrf", run_cli, (nbest, "chrf", [], tmp)),
                                 ("bleustats-cli chrf++", run_cli, (nbest, "chrf++", [], tmp)),
                                 ("bleustats-cli bleu", run_cli, (nbest, "bleu", [], tmp)),
                                 ("bleustats-cli chrf --aggregate", run_cli, (nbest, "chrf", ["--aggregate"], tmp))]
            jobs.append(("bleustats mbr_select in-process (chrF)", run_peer, ("bleustats-inprocess", nbest, n_src)))
            fc_src = n_src if not large or not args.fastchrf_sources_large else args.fastchrf_sources_large
            if fc_src == n_src:
                jobs.append(("fastchrf pairwise_chrf", run_peer, ("fastchrf", nbest, n_src)))
            else:
                sub = os.path.join(tmp, "sub.txt")
                with open(sub, "w", encoding="utf-8") as f:
                    for s, c in enumerate(lists[:fc_src]):
                        f.writelines(f"{s} ||| {x} ||| F0= 0 ||| 0\n" for x in c)
                jobs.append((f"fastchrf pairwise_chrf ({fc_src} sources, extrapolated)", run_peer,
                             ("fastchrf", sub, fc_src)))
            jobs.append(("fastchrf aggregate_chrf", run_peer, ("fastchrf-aggregate", nbest, n_src)))
            k = args.sacre_sources_large if large else args.sacre_sources
            for metric in ("chrf", "chrf++", "bleu"):
                jobs.append((f"sacrebleu {metric} loop ({k} sources, extrapolated)", run_peer,
                             (f"sacrebleu-{metric}", nbest, k)))
            if args.mbrs_python:
                k_mbrs = args.mbrs_sources_large if large else args.mbrs_sources
                jobs.append((f"mbrs DecoderMBR chrF ({k_mbrs} sources, extrapolated)", run_peer,
                             ("mbrs", nbest, k_mbrs, args.mbrs_python)))
            for rep in range(reps):
                order = jobs[rep % len(jobs):] + jobs[:rep % len(jobs)]
                for name, fn, job_args in order:
                    r = fn(*job_args)
                    r.pop("out", None)
                    means = r.pop("means", None)
                    if means is not None and name.startswith("fastchrf pairwise") and fc_src == n_src:
                        res["_fastchrf_means"] = means
                    if means is not None and name.startswith("fastchrf aggregate"):
                        res["_fastchrf_agg"] = means
                    if "pairs" in r and r["pairs"] != n_pairs and "error" not in r:
                        r["measured_pairs"] = r["pairs"]
                        r["wall_s_extrapolated"] = r["wall_s"] * n_pairs / r["pairs"]
                    res["runs"].setdefault(name, []).append(r)
                    print(size, name, {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()},
                          flush=True)
            # agreement gate: bleustats' expected utilities against fastchrf's row means
            run_cli(nbest, "chrf", [], tmp)
            ours = pq.read_table(os.path.join(tmp, "out.parquet")).column("expected_utility").to_numpy()
            if "_fastchrf_means" in res:
                res["max_abs_diff_vs_fastchrf"] = float(np.max(np.abs(ours - np.array(res.pop("_fastchrf_means")))))
            run_cli(nbest, "chrf", ["--aggregate"], tmp)
            agg = pq.read_table(os.path.join(tmp, "out.parquet")).column("expected_utility").to_numpy()
            if "_fastchrf_agg" in res:
                diff = np.abs(agg - np.array(res.pop("_fastchrf_agg")))
                res["max_abs_diff_aggregate_vs_fastchrf"] = float(np.max(diff))
            report["sizes"][size] = res
    _keep_sizes(report, args.keep_sizes_from)
    _write(report, args.out)
    print(json.dumps({s: {k: v for k, v in r.items() if k != "runs"} for s, r in report["sizes"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
