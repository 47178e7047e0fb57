"""k-best benchmark: statistics + five sentence-level variants of a Moses n-best list, end to end.

Data: ``python benchmarks/generate.py --sizes --nbest 2000x500`` writes
``benchmarks/data/nbest.2000x500.txt`` (1,000,000 entries, ~25 tokens) and 4
reference files. Every tool runs in a fresh subprocess (peak RSS is that
process's), reads the n-best file itself and scores every entry:

  bleustats         bleustats.tools.kbest.score_nbest, tokenize none, variants bleu+1, lin-och,
                    nakov:bp-smoothed,pc-grounded, sacrebleu:exp, chen-cherry:3; JIT warm-up
                    on a toy list timed separately; stages parse / encode / kernel / scoring
  sacrebleu         sacrebleu.sentence_bleu-equivalent BLEU(tokenize='none',
                    effective_order=True).sentence_score per entry (one variant)
  sacrebleu-cached  the same with each source's reference statistics extracted once
                    (BLEU._extract_reference_info) and reused for its entries
  fast-bleu         fast_bleu.BLEU(refs of the source).get_score(entries of the source)
                    (NLTK method-1 sentence BLEU; whitespace tokens)
  bleuscore         bleuscore.compute per entry (always 13a-tokenizes: timing only)
  nltk              nltk.translate.bleu_score.sentence_bleu(refs, hyp,
                    smoothing_function=SmoothingFunction().method1) on str.split() tokens

Peers run on the 100,000-entry prefix (first 200 sources) by default; bleustats
runs on the prefix and on the full million. ``--entries N`` instead runs bleustats and
every peer on the first N entries only (no full-file run). Each (tool, entries) job runs
``--repeats`` times (default 3), the tools alternating (the order rotates every repeat);
the median wall time is reported, every run is kept in the JSON.

Agreement gate: the scores of the first ``--check-rows`` entries of every peer run are
compared with bleustats' variant of the same definition (sacreBLEU: ``sacrebleu:exp``;
fast-bleu and NLTK: ``chen-cherry:1``, Chen & Cherry method 1 with NLTK's max(1, t)
denominators). A difference above 1e-9 (0-100 scale) fails the run (exit status 1, after
the results are written). NLTK: ``tests/metrics/test_sentence.py::nltk_known_wrong`` lists the
entries where bleustats deliberately differs from NLTK (methods 2, 4, 6 and 7 only); the
comparison skips exactly those entries, which for method 1 is none, so every checked entry
is compared (the count is reported).

Results: benchmarks/results/kbest.json / .md (``--out`` sets the basename).

Usage::

    python benchmarks/bench_kbest.py                    # bleustats 1M + 100k, peers on 100k
    python benchmarks/bench_kbest.py --peer-entries 1000000   # peers on the full file (slow)
    python benchmarks/bench_kbest.py --entries 10000 --repeats 1 --out benchmarks/results/kbest_quick
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import bench_core  # the --cap-s rule and file signatures, shared with the corpus driver

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
RESULTS = os.path.join(HERE, "results")
TAG = "@@KBEST@@ "
VARIANTS = ["bleu+1", "lin-och", "nakov:bp-smoothed,pc-grounded", "sacrebleu:exp", "chen-cherry:3"]
CHECK_ROWS = 2000
TOL = 1e-9
NLTK_METHOD = 1
# which bleustats variant each peer's scores are checked against
SAME_DEFINITION = {"sacrebleu": "sacrebleu:exp", "sacrebleu-cached": "sacrebleu:exp",
                   "fast-bleu": "chen-cherry:1", "nltk": "chen-cherry:1"}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read_refs(paths):
    streams = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            streams.append(fh.read().split("\n")[:-1])
    return [list(x) for x in zip(*streams)]


def _parse_nbest(path):
    """Plain-Python parse (peers): list of (source id, hypothesis)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            f = line.split(" ||| ")
            out.append((int(f[0]), f[1].strip()))
    return out


# --------------------------------------------------------------------------- workers


def w_bleustats(nbest, refs):
    t0 = time.perf_counter()
    from bleustats.tools import kbest
    import numba

    t_import = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as d:  # JIT warm-up (cached compile) on a toy list
        toy = os.path.join(d, "toy.txt")
        with open(toy, "w") as fh:
            fh.write("0 ||| a b c d ||| F= 1 ||| 1\n0 ||| a b x d ||| F= 1 ||| 0\n")
        ref = os.path.join(d, "ref.txt")
        with open(ref, "w") as fh:
            fh.write("a b c d\n")
        t = time.perf_counter()
        kbest.score_nbest(toy, [ref], tokenize="none", variants=VARIANTS)
        warm = time.perf_counter() - t
    t = time.perf_counter()
    # a prefix of the list (--entries, the peers' prefix, the check rows) covers its first sources only, by design
    res = kbest.score_nbest(nbest, refs, tokenize="none", variants=VARIANTS, max_ngram_order=4,
                            allow_missing_sources=True)
    wall = time.perf_counter() - t
    # scores of the first rows for the agreement check (second pass on a prefix only)
    with tempfile.TemporaryDirectory() as d:
        head = os.path.join(d, "head.txt")
        with open(nbest, encoding="utf-8") as fh, open(head, "w", encoding="utf-8") as out:
            for _ in range(CHECK_ROWS):
                out.write(fh.readline())
        kbest.score_nbest(head, refs, tokenize="none", variants=["sacrebleu:exp", "chen-cherry:1"],
                          output=os.path.join(d, "o.parquet"), keep_stats=False, allow_missing_sources=True)
        import pyarrow.parquet as pq

        t_ = pq.read_table(os.path.join(d, "o.parquet"))
        check = {"sacrebleu:exp": t_.column("sacrebleu:exp").to_pylist(),
                 "chen-cherry:1": t_.column("chen-cherry:1").to_pylist()}
    tm = res.timings
    # parse runs on a reader thread, overlapped with the rest: its own time is shown, and the
    # main thread's wait for it is what it adds to the wall time
    main = ("read_refs", "parse_wait", "prepare", "tokenize", "encode", "kernel", "scoring")
    stages = {"parse": tm["parse"], "parse_wait": tm["parse_wait"] + tm["read_refs"] + tm["prepare"],
              "tokenize": tm["tokenize"], "encode": tm["encode"], "kernel": tm["kernel"], "scoring": tm["scoring"],
              "other": max(0.0, wall - sum(tm[k] for k in main))}
    return {"wall": wall, "import": t_import, "warmup": warm, "entries": res.n_entries, "stages": stages,
            "variants": len(VARIANTS), "threads": numba.get_num_threads(), "check": check,
            "oracle_bleu+1": res.oracles["bleu+1"].score, "one_best": res.one_best.score}


def w_sacrebleu(nbest, refs, cached=False):
    from sacrebleu.metrics import BLEU

    t = time.perf_counter()
    entries = _parse_nbest(nbest)
    ref_seg = _read_refs(refs)
    parse = time.perf_counter() - t
    metric = BLEU(tokenize="none", effective_order=True)
    scores = []
    t = time.perf_counter()
    if not cached:
        for sid, hyp in entries:
            scores.append(metric.sentence_score(hyp, ref_seg[sid]).score)
    else:
        info_sid, info = None, None
        for sid, hyp in entries:
            if sid != info_sid:
                info_sid, info = sid, metric._extract_reference_info(ref_seg[sid])
            stats = metric._compute_segment_statistics(metric._preprocess_segment(hyp), info)
            scores.append(metric._compute_score_from_stats(stats).score)
    score = time.perf_counter() - t
    return {"wall": parse + score, "entries": len(entries), "stages": {"parse": parse, "scoring": score},
            "variants": 1, "check": {"sacrebleu:exp": scores[:CHECK_ROWS]}}


def w_fastbleu(nbest, refs):
    from fast_bleu import BLEU

    t = time.perf_counter()
    entries = _parse_nbest(nbest)
    ref_seg = _read_refs(refs)
    parse = time.perf_counter() - t
    t = time.perf_counter()
    scores = []
    i = 0
    while i < len(entries):
        sid = entries[i][0]
        j = i
        while j < len(entries) and entries[j][0] == sid:
            j += 1
        bleu = BLEU([r.split() for r in ref_seg[sid]], {"bleu4": (0.25, 0.25, 0.25, 0.25)})
        scores.extend(100 * s for s in bleu.get_score([h.split() for _, h in entries[i:j]])["bleu4"])
        i = j
    score = time.perf_counter() - t
    return {"wall": parse + score, "entries": len(entries), "stages": {"parse": parse, "scoring": score},
            "variants": 1, "check": {"chen-cherry:1": scores[:CHECK_ROWS]}}


def w_bleuscore(nbest, refs):
    import bleuscore

    t = time.perf_counter()
    entries = _parse_nbest(nbest)
    ref_seg = _read_refs(refs)
    parse = time.perf_counter() - t
    t = time.perf_counter()
    for sid, hyp in entries:
        bleuscore.compute([ref_seg[sid]], [hyp], max_order=4, smooth=True, ref_len_method="sacrebleu")
    score = time.perf_counter() - t
    return {"wall": parse + score, "entries": len(entries), "stages": {"parse": parse, "scoring": score},
            "variants": 1, "note": "bleuscore always tokenizes 13a and smooths add-one: timing only"}


def nltk_known_wrong(method, hyp_len, match, total):
    """Entries where bleustats deliberately differs from NLTK (mirrors tests/metrics/test_sentence.py)."""
    if method == 2 and hyp_len < 4 and match[0] > 0:
        return True  # NLTK adds one to max(1, t_n) for hypotheses shorter than N
    if method == 6 and match[0] > 0 and (total[2] == 0 or match[2] == 0):
        return True  # NLTK asserts a non-zero trigram precision
    if method in (4, 7) and hyp_len == 1 and match[0] > 0:
        return True  # ln(1) = 0 leaves p_n = 0, which NLTK drops from the geometric mean
    return False


def w_nltk(nbest, refs):
    import warnings

    import nltk
    from nltk.translate.bleu_score import SmoothingFunction, modified_precision, sentence_bleu

    t = time.perf_counter()
    entries = _parse_nbest(nbest)
    ref_seg = _read_refs(refs)
    parse = time.perf_counter() - t
    smooth = getattr(SmoothingFunction(), f"method{NLTK_METHOD}")
    t = time.perf_counter()
    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NLTK warns on zero n-gram matches
        ref_sid, ref_tok = None, None
        for sid, hyp in entries:
            if sid != ref_sid:  # tokenising a source's references once, as fast-bleu's pool does
                ref_sid, ref_tok = sid, [r.split() for r in ref_seg[sid]]
            scores.append(100 * sentence_bleu(ref_tok, hyp.split(), smoothing_function=smooth))
    score = time.perf_counter() - t
    # entries of the check prefix where the definitions differ (tests/metrics/test_sentence.py); the
    # rule names methods 2, 4, 6 and 7 only, so for method 1 nothing is left out
    skip = set()
    if NLTK_METHOD in (2, 4, 6, 7):
        for i, (sid, hyp) in enumerate(entries[:CHECK_ROWS]):
            h = hyp.split()
            rt = [r.split() for r in ref_seg[sid]]
            m = [modified_precision(rt, h, n).numerator if len(h) >= n else 0 for n in range(1, 5)]
            tt = [max(0, len(h) - n + 1) for n in range(1, 5)]
            if nltk_known_wrong(NLTK_METHOD, len(h), m, tt):
                skip.add(i)
    check = [None if i in skip else x for i, x in enumerate(scores[:CHECK_ROWS])]
    return {"wall": parse + score, "entries": len(entries), "stages": {"parse": parse, "scoring": score},
            "variants": 1, "check": {"chen-cherry:1": check}, "check_excluded": len(skip),
            "version": nltk.__version__}


WORKERS = {"bleustats": w_bleustats, "sacrebleu": w_sacrebleu,
           "sacrebleu-cached": lambda n, r: w_sacrebleu(n, r, cached=True),
           "fast-bleu": w_fastbleu, "bleuscore": w_bleuscore, "nltk": w_nltk}


def worker_main(tool, nbest, refs):
    global CHECK_ROWS
    CHECK_ROWS = int(os.environ.get("BENCH_KBEST_CHECK_ROWS", CHECK_ROWS))
    out = WORKERS[tool](nbest, refs)
    out["peak_rss_mb"] = _rss_mb()
    print(TAG + json.dumps(out), flush=True)


# --------------------------------------------------------------------------- driver


def run_tool(tool, nbest, refs, timeout, check_rows=CHECK_ROWS):
    t = time.perf_counter()
    env = dict(os.environ, BENCH_KBEST_CHECK_ROWS=str(check_rows))
    try:
        p = subprocess.run([sys.executable, __file__, "--worker", tool, nbest, *refs], capture_output=True,
                           text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout}s"}
    wall = time.perf_counter() - t
    for line in p.stdout.splitlines():
        if line.startswith(TAG):
            res = json.loads(line[len(TAG):])
            res["process_wall"] = wall
            return res
    return {"error": (p.stderr or p.stdout)[-2000:]}


def prefix_file(nbest, n, folder):
    path = os.path.join(folder, f"nbest.prefix{n}.txt")
    with open(nbest, encoding="utf-8") as fh, open(path, "w", encoding="utf-8") as out:
        for k, line in enumerate(fh):
            if k >= n:
                break
            out.write(line)
    return path


def _capped(runs, a) -> dict:
    """Peers not to repeat (``--cap-s``): every run longer than cap_s and >= cap_ratio x bleustats'.

    Repeats decide close calls; a peer this far from bleustats is not one, so it keeps the
    runs it has (marked in the output) and the others go on.
    """
    if a.cap_s is None:
        return {}
    ours = [r["wall"] for r in runs if r["tool"] == "bleustats" and "wall" in r]
    out = {}
    for tool in {r["tool"] for r in runs} - {"bleustats"}:
        walls = [r["wall"] for r in runs if r["tool"] == tool and "wall" in r]
        if bench_core.cap_applies(walls, ours, a.cap_s, a.cap_ratio):
            out[tool] = (f"each took > --cap-s {a.cap_s:g} s and >= {a.cap_ratio:g}x "
                         "bleustats' slowest run, so it was not repeated")
    return out


def max_diff(a, b):
    """Largest |a - b| over the entries both have (None: excluded from the comparison)."""
    d = [abs(x - y) for x, y in zip(a, b) if x is not None and y is not None]
    return max(d, default=float("nan")), len(d)


def summarize(runs):
    """One row per (tool, entries): medians over the repeats, every run kept apart."""
    import statistics

    rows = {}
    for r in runs:
        rows.setdefault((r["tool"], r["n"]), []).append(r)
    out = []
    for (tool, n), rs in rows.items():
        ok = [r for r in rs if "wall" in r]
        if not ok:
            out.append({"tool": tool, "n": n, "error": rs[0].get("error", "?"), "n_ok": 0})
            continue
        med = lambda xs: statistics.median(xs)  # noqa: E731
        row = {"tool": tool, "n": n, "n_ok": len(ok), "repeats": len(rs),
               "wall": med([r["wall"] for r in ok]), "process_wall": med([r["process_wall"] for r in ok]),
               "stages": {k: med([r["stages"].get(k, 0.0) for r in ok]) for k in ok[0]["stages"]},
               "peak_rss_mb": max(r["peak_rss_mb"] for r in ok),
               "load_before": max(r["load_before"] for r in ok), "load_after": max(r["load_after"] for r in ok)}
        for k in ("warmup", "import"):
            if k in ok[0]:
                row[k] = med([r[k] for r in ok])
        for k in ok[0]:
            if k.startswith(("max_abs_diff_", "checked_")):
                row[k] = max(r.get(k, float("nan")) for r in ok)
        for k in ("agrees", "check_excluded", "note", "version", "threads"):
            if k in ok[0]:
                row[k] = all(r.get(k) for r in ok) if k == "agrees" else ok[0][k]
        if len(ok) < len(rs):
            row["errors"] = [r.get("error") for r in rs if "wall" not in r]
        out.append(row)
    ours = {r["n"]: r for r in out if r["tool"] == "bleustats" and r.get("n_ok")}
    for r in out:
        if r["tool"] != "bleustats" and r.get("n_ok") and r["n"] in ours:
            r["ratio_vs_bleustats"] = r["wall"] / ours[r["n"]]["wall"]
    return out


def render_md(info, runs, n_prefix):
    """The Markdown table of a run (also: python bench_kbest.py --render results/kbest.json)."""
    md = [f"# k-best scoring: statistics + {len(VARIANTS)} sentence-level variants, end to end from the n-best file",
          "", f"Started {info['started']} on {info['cpu']} ({info['cpu_count']} logical CPUs), "
          f"{info['platform']}; Python {info['python']}, " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()),
          "", f"Data: {info['data']} (2,000 sources × 500 entries, 4 references, tokenize none). "
          f"Peers on the first {n_prefix:,} entries (measured, not extrapolated); bleustats on "
          f"{'the same prefix' if info.get('entries_option') else 'both'}. Median of "
          f"{info.get('repeats', 1)} run(s) per tool, tools alternating. "
          "Each tool in a fresh subprocess; wall = reading the file to the last score (bleustats: JIT "
          "warm-up excluded, shown separately); peers compute one sentence score per entry, bleustats "
          f"the statistics and {len(VARIANTS)} variants ({', '.join(VARIANTS)}). load = 1-min load average "
          "before/after (other work on the shared machine inflates wall times). bleustats parses on a "
          "reader thread while the previous chunk is scored: `parse` is that thread's time, `wait` the "
          "main thread's wait for it (plus reading references and input checks); the main-thread stages "
          "wait + encode + kernel + scoring + other add up to the wall time.", "",
          "| tool | entries | wall s | entries/s | parse | wait | encode | kernel | scoring | other | warm-up | "
          "peak RSS MB | peer / bleustats | max abs diff | load |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in runs:
        if "wall" not in r:
            md.append(f"| {r['tool']} | {r['n']:,} | error: {str(r.get('error'))[:80]} |")
            continue
        s = r["stages"]
        ratio = f"{r['ratio_vs_bleustats']:.1f}×" if "ratio_vs_bleustats" in r else "—"
        parts = []
        for k, v in r.items():
            if not k.startswith("max_abs_diff_"):
                continue
            name = k[len("max_abs_diff_"):]
            checked = f" ({r['checked_' + name]:,} entries)" if "checked_" + name in r else ""
            parts.append(f"{name}: {v:.1e}" + checked + ("" if r.get("agrees", True) else " **DISAGREES**"))
        diffs = ", ".join(parts)
        md.append(
            f"| {r['tool']} | {r['n']:,} | {r['wall']:.2f} | {r['n'] / r['wall']:,.0f} | {s.get('parse', 0):.2f} | "
            f"{s.get('parse_wait', 0):.2f} | {s.get('tokenize', 0) + s.get('encode', 0):.2f} | "
            f"{s.get('kernel', 0):.2f} | {s.get('scoring', 0):.2f} | "
            f"{s.get('other', 0):.2f} | {r.get('warmup', 0):.2f} | {r['peak_rss_mb']:.0f} | "
            f"{ratio} | {diffs} | {r['load_before']:.1f}/{r['load_after']:.1f} |")
    md += [""] + [f"- {r['tool']}: {r['n_ok']} run(s) ({r['capped']})" for r in runs if r.get("capped")]
    md += [f"- {r['tool']}: {r['resumed']} of its runs from an earlier invocation (--resume)"
           for r in runs if r.get("resumed")]
    md += ["", f"max abs diff: scores of the first {info.get('check_rows', CHECK_ROWS):,} entries vs bleustats' "
           "same-definition variant (sacrebleu:exp for sacreBLEU, chen-cherry:1 for fast-bleu and NLTK "
           f"method 1); a difference above {TOL:g} fails the run. NLTK: the entries where "
           "tests/metrics/test_sentence.py::nltk_known_wrong says bleustats deliberately differs are left out of "
           "the comparison; for method 1 that rule excludes none (excluded: "
           + ", ".join(f"{r['check_excluded']}" for r in runs if r.get("tool") == "nltk" and "check_excluded" in r)
           + "). bleuscore always tokenizes 13a and has no sentence smoothing matching these: timing only."]
    return md


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--nbest", default=os.path.join(DATA, "nbest.2000x500.txt"))
    ap.add_argument("--peer-entries", type=int, default=100_000)
    ap.add_argument("--entries", type=int, default=None,
                    help="run bleustats and every peer on the first N entries only (no full-file run)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per tool; the median is reported")
    ap.add_argument("--check-rows", type=int, default=CHECK_ROWS,
                    help="entries whose scores are compared with bleustats' (agreement gate)")
    ap.add_argument("--peers", nargs="*", default=["sacrebleu", "sacrebleu-cached", "fast-bleu", "bleuscore", "nltk"])
    ap.add_argument("--skip-full", action="store_true", help="do not run bleustats on the full file")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--out", default=os.path.join(RESULTS, "kbest"))
    ap.add_argument("--resume", action="store_true",
                    help="reuse the runs in <out>.partial.json (same n-best file): an interrupted run goes on")
    ap.add_argument("--cap-s", type=float, default=None,
                    help="a peer whose runs all take longer than this, and >= --cap-ratio x bleustats', "
                         "is not repeated (marked in the output)")
    ap.add_argument("--cap-ratio", type=float, default=5.0)
    ap.add_argument("--render", metavar="JSON", help="only re-render the Markdown of a results JSON")
    a = ap.parse_args(argv)
    if a.render:
        with open(a.render) as fh:
            data = json.load(fh)
        md = render_md(data["info"], data.get("summary", data["runs"]), data["info"]["entries_prefix"])
        with open(a.render[:-len(".json")] + ".md", "w") as fh:
            fh.write("\n".join(md) + "\n")
        print("\n".join(md))
        return 0
    if a.worker:
        worker_main(a.worker[0], a.worker[1], a.worker[2:])
        return 0
    refs = [a.nbest.replace(".txt", f".ref{k}.txt") for k in range(4)]
    if not all(os.path.exists(p) for p in [a.nbest] + refs):
        raise SystemExit(f"{a.nbest} (+ 4 reference files) not found; run "
                         "python benchmarks/generate.py --sizes --nbest 2000x500")
    with open(a.nbest, "rb") as fh:
        n_full = sum(1 for _ in fh)
    if a.repeats < 1:
        ap.error("--repeats must be >= 1")
    started = _dt.datetime.now().isoformat(timespec="seconds")
    runs = []
    peer_entries = a.entries if a.entries is not None else a.peer_entries
    with tempfile.TemporaryDirectory() as tmp:
        prefix = prefix_file(a.nbest, peer_entries, tmp) if peer_entries < n_full else a.nbest
        n_prefix = min(peer_entries, n_full)
        jobs = [("bleustats", prefix, n_prefix)] + [(p, prefix, n_prefix) for p in a.peers]
        if a.entries is None and not a.skip_full and n_prefix < n_full:
            jobs.append(("bleustats", a.nbest, n_full))
        partial = a.out + ".partial.json"  # every run lands here at once; --resume reads it back
        done = {}
        if a.resume and os.path.exists(partial):
            with open(partial) as fh:
                old = json.load(fh)
            if old.get("data") == bench_core._sig([a.nbest]):
                done = {(r["tool"], r["n"], r["repeat"]): r for r in old["runs"] if "wall" in r}
            print(f"--resume: {len(done)} run(s) in {partial}", file=sys.stderr, flush=True)
        capped = {}
        for rep in range(a.repeats):
            live = [j for j in jobs if j[0] not in capped]
            k = rep % len(live)
            for tool, path, n in live[k:] + live[:k]:
                if (tool, n, rep) in done:
                    res = dict(done[(tool, n, rep)], resumed=True)
                else:
                    load = os.getloadavg()[0]
                    print(f"[rep {rep}] running {tool} on {n:,} entries ...", file=sys.stderr, flush=True)
                    res = run_tool(tool, path, refs, a.timeout, a.check_rows)
                    res.update(tool=tool, n=n, repeat=rep, load_before=load, load_after=os.getloadavg()[0],
                               started_invocation=started)
                runs.append(res)
                print(f"  {tool}: {res.get('wall', res.get('error'))}{' (resumed)' if res.get('resumed') else ''}",
                      file=sys.stderr, flush=True)
                with open(partial + ".tmp", "w") as fh:
                    json.dump({"data": bench_core._sig([a.nbest]), "runs": runs}, fh)
                os.replace(partial + ".tmp", partial)
            capped.update(_capped(runs, a))
    # agreement: every peer run against the bleustats run of the same repeat and prefix
    failures = []
    for r in runs:
        if r["tool"] == "bleustats" or "check" not in r:
            continue
        ours = next((o for o in runs if o["tool"] == "bleustats" and o["n"] == r["n"] and o["repeat"] == r["repeat"]
                     and "check" in o), None)
        if ours is None:
            failures.append(f"{r['tool']} (repeat {r['repeat']}): no bleustats run to compare with")
            continue
        r["agrees"] = True
        for k, v in r["check"].items():
            d, m = max_diff(v, ours["check"][k])
            r[f"max_abs_diff_{k}"], r[f"checked_{k}"] = d, m
            if not (d <= TOL) or m == 0:
                r["agrees"] = False
                failures.append(f"{r['tool']} vs bleustats {k} on {m} entries: max |diff| {d:.3g} > {TOL:g}")
    for r in runs:  # a failed run is a failed check too
        if "wall" not in r:
            failures.append(f"{r['tool']} (repeat {r['repeat']}) failed: {str(r.get('error', '?'))[-300:]}")
    for r in runs:
        r.pop("check", None)
    summary = summarize(runs)
    for row in summary:
        if row["tool"] in capped:
            row["capped"] = capped[row["tool"]]
        row["resumed"] = sum(1 for r in runs if r["tool"] == row["tool"] and r["n"] == row["n"] and r.get("resumed"))
    import numpy, numba, pyarrow, sacrebleu  # noqa: E401

    info = {"started": started, "python": platform.python_version(), "platform": platform.platform(),
            "cpu": platform.processor() or platform.machine(), "cpu_count": os.cpu_count(),
            "versions": {"numpy": numpy.__version__, "numba": numba.__version__, "pyarrow": pyarrow.__version__,
                         "sacrebleu": sacrebleu.__version__},
            "data": os.path.basename(a.nbest), "entries_full": n_full, "entries_prefix": n_prefix,
            "entries_option": a.entries, "repeats": a.repeats, "cap_s": a.cap_s, "cap_ratio": a.cap_ratio,
            "check_rows": a.check_rows, "tolerance": TOL,
            "numba_threads": numba.get_num_threads(), "same_definition": SAME_DEFINITION,
            "agreement_failures": failures, "variants": VARIANTS}
    try:
        with open("/proc/cpuinfo") as fh:
            info["cpu"] = next(x.split(":", 1)[1].strip() for x in fh if x.startswith("model name"))
    except (OSError, StopIteration):
        pass
    for mod in ("fast_bleu", "bleuscore", "nltk"):
        try:
            import importlib.metadata as md

            info["versions"][mod] = md.version(mod.replace("_", "-"))
        except Exception:  # noqa: BLE001
            pass
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump({"info": info, "summary": summary, "runs": runs}, fh, indent=1)
    md = render_md(info, summary, n_prefix)
    if failures:
        md += ["", "**Agreement check FAILED:**", *[f"- {f}" for f in failures]]
    with open(a.out + ".md", "w") as fh:
        fh.write("\n".join(md) + "\n")
    os.remove(a.out + ".partial.json")  # the run is complete: a later --resume starts afresh
    print("\n".join(md))
    if failures:
        print("agreement check failed:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
