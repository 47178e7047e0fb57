#!/usr/bin/env python3
"""Corpus TER: bleustats (numba shift search) vs sacreBLEU 2.6's ``TER().corpus_score``.

Data: WMT21 news zh-en from ``../shared/data/wmt21_news/zh-en`` (real system outputs and two
human references): the outputs of the systems in name order, every one of the 1,948
segments of each, until ``--segments`` hypotheses (default 20,000: ten whole systems and
5 % of an eleventh), each against ref-A and ref-B. Default TER options (lowercased, no
normalization), as ``sacrebleu -m ter`` runs.

Every measurement is a fresh subprocess:

  sacrebleu   ``TER().corpus_score(hyps, [refA, refB])``, wall time; ``--sacrebleu-repeats``
              runs (default 1: about 10-40 ms per hypothesis/reference pair, so 20k x 2 refs
              takes 7-25 minutes on one core).
  bleustats   JIT warm-up on a toy corpus (timed separately, ``warmup``), then ``--repeats``
              runs of ``corpus_ter(hyps, [refA, refB])`` (tokenize, encode, kernel, sum),
              once with NUMBA_NUM_THREADS=1 and once with 2 (``--threads``).

Gate: num_edits and ref_length equal to sacreBLEU's and the score within 1e-9, or the run
fails. Also measured, with both tools (sacreBLEU under ``--long-timeout``): one 2,000-token
segment (consecutive WMT21 zh-en segments of a system output and of ref-A joined into one
line, 2,000 tokens each), and an adversarial 2,000-token pair (random binary tokens: every
token matches many others, so the search meets the most candidate phrases).

Results: ``benchmarks/results/ter.{json,md}``.

Usage::

    python benchmarks/bench_ter.py                         # 20k x 2 refs (sacreBLEU ~10-25 min)
    python benchmarks/bench_ter.py --segments 2000 --sacrebleu-repeats 3 --out /tmp/ter_small
    python benchmarks/bench_ter.py --render-only benchmarks/results/ter.json
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared")
RESULTS = os.path.join(HERE, "results")
TAG = "@@TER@@ "
TOL = 1e-9
LONG_TOKENS = 2000


def read_tsv(path: str) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def load(shared: str, n: int) -> tuple[list[str], list[list[str]]]:
    """``n`` hypotheses (systems in name order, all segments of each) and the two reference streams."""
    root = os.path.join(shared, "data", "wmt21_news", "zh-en")
    refs: dict[str, dict[int, str]] = {}
    for name in ("references.tsv", "references_unverified.tsv"):
        for row in read_tsv(os.path.join(root, name)):
            refs.setdefault(row["ref"], {})[int(row["seg_id"])] = row["text"]
    systems: dict[str, dict[int, str]] = {}
    for row in read_tsv(os.path.join(root, "system_outputs.tsv")):
        systems.setdefault(row["system"], {})[int(row["seg_id"])] = row["text"]
    seg_ids = sorted(refs["ref-A"])
    hyps, ref_a, ref_b = [], [], []
    for name in sorted(systems):
        for s in seg_ids:
            if len(hyps) == n:
                return hyps, [ref_a, ref_b]
            hyps.append(systems[name].get(s, ""))
            ref_a.append(refs["ref-A"][s])
            ref_b.append(refs["ref-B"][s])
    if len(hyps) < n:
        raise SystemExit(f"only {len(hyps)} hypotheses in the WMT21 zh-en data; ask for fewer")
    return hyps, [ref_a, ref_b]


def long_pair(shared: str) -> tuple[str, str]:
    """About LONG_TOKENS tokens of one system's output and of ref-A: consecutive segments joined."""
    hyps, (ref_a, _) = load(shared, 1948)
    h, r = [], []
    for hyp, ref in zip(hyps, ref_a):
        if len(r) >= LONG_TOKENS:
            break
        h += hyp.split()
        r += ref.split()
    return " ".join(h[:LONG_TOKENS]), " ".join(r[:LONG_TOKENS])


def adversarial_pair() -> tuple[str, str]:
    import random

    rng = random.Random(2000)
    return (" ".join(rng.choice("ab") for _ in range(LONG_TOKENS)),
            " ".join(rng.choice("ab") for _ in range(LONG_TOKENS)))


# --------------------------------------------------------------------------- workers (subprocesses)


def worker(tool: str, shared: str, n: int, repeats: int) -> dict:
    hyps, refs = load(shared, n) if n else ([], [])
    if tool == "sacrebleu":
        from sacrebleu.metrics import TER

        runs = []
        for _ in range(repeats):
            t = time.perf_counter()
            score = TER().corpus_score(hyps, refs)
            runs.append(time.perf_counter() - t)
        return {"runs": runs, "result": {"score": score.score, "num_edits": score.num_edits,
                                         "ref_length": score.ref_length}}
    if tool in ("sacrebleu-long", "sacrebleu-adversarial"):
        from sacrebleu.metrics import TER

        hyp, ref = long_pair(shared) if tool == "sacrebleu-long" else adversarial_pair()
        t = time.perf_counter()
        score = TER().sentence_score(hyp, [ref])
        return {"runs": [time.perf_counter() - t], "result": {"score": score.score,
                                                              "num_edits": score.num_edits}}
    import numba

    from bleustats.metrics.ter import corpus_ter, sentence_ter

    t = time.perf_counter()
    corpus_ter(["a b c d", "x y"] * 2000, [["b a c d", "y x z"] * 2000])  # parallel path
    corpus_ter(["a b c d"], [["b a c d"]])  # serial path
    warmup = time.perf_counter() - t
    out: dict = {"warmup": warmup, "threads": numba.get_num_threads()}
    if n:
        runs = []
        for _ in range(repeats):
            t = time.perf_counter()
            score = corpus_ter(hyps, refs)
            runs.append(time.perf_counter() - t)
        out.update(runs=runs, result={"score": score.score, "num_edits": score.num_edits,
                                      "ref_length": score.ref_length})
    if n:
        out["encode"] = compare_encoders(hyps, refs, repeats)
    for name, (hyp, ref) in (("long", long_pair(shared)), ("adversarial", adversarial_pair())):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            score = sentence_ter(hyp, [ref])
            times.append(time.perf_counter() - t)
        out[name] = {"runs": times, "result": {"score": score.score, "num_edits": score.num_edits},
                     "tokens": [len(hyp.split()), len(ref.split())]}
    return out


def compare_encoders(hyps: list[str], refs: list[list[str]], repeats: int) -> dict:
    """Tokens to integer ids, default options: the engine's Arrow/numba encoder vs a Python dict.

    Both start from the raw lines and end with flat ids and offsets for the kernel; the
    lowercasing is the same Python ``str.lower`` in both.
    """
    import numpy as np
    import pyarrow as pa

    from bleustats.engine.encode import encode_segments

    ref_lines = [r for pair in zip(*refs) for r in pair]
    seg_refs = np.arange(0, len(refs) * len(hyps) + 1, len(refs), dtype=np.int64)

    def arrow_encoder():
        h = pa.array([x.lower() for x in hyps], pa.string())
        r = pa.array([x.lower() for x in ref_lines], pa.string())
        return encode_segments(h, r, np.arange(len(hyps) + 1, dtype=np.int64), seg_refs, tokenize="none",
                               lowercase=False)

    def python_dict():
        vocab: dict[str, int] = {}
        get = vocab.setdefault
        out = []
        for lines in (hyps, ref_lines):
            toks = [x.lower().split() for x in lines]
            off = np.zeros(len(toks) + 1, np.int64)
            np.cumsum([len(t) for t in toks], out=off[1:])
            out.append((np.fromiter((get(w, len(vocab)) for t in toks for w in t), np.int64, count=off[-1]), off))
        return out

    result = {}
    for name, fn in (("arrow_encoder", arrow_encoder), ("python_dict", python_dict)):
        fn()
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        result[name] = times
    return result


def run_worker(tool: str, args: argparse.Namespace, threads: int | None = None,
               timeout: float | None = None) -> dict | None:
    env = dict(os.environ)
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, __file__, "--worker", tool, "--shared", args.shared, "--segments",
           str(args.segments), "--repeats", str(args.sacrebleu_repeats if tool == "sacrebleu" else args.repeats)]
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    line = next(x for x in proc.stdout.splitlines() if x.startswith(TAG))
    res = json.loads(line[len(TAG):])
    res["process_wall"] = time.perf_counter() - t
    return res


def check(ours: dict, theirs: dict) -> float:
    if ours["num_edits"] != theirs["num_edits"] or ours.get("ref_length") != theirs.get("ref_length"):
        raise SystemExit(f"bleustats and sacreBLEU disagree: {ours} vs {theirs}")
    diff = abs(ours["score"] - theirs["score"])
    if diff > TOL:
        raise SystemExit(f"scores differ by {diff}: {ours} vs {theirs}")
    return diff


def render(meta: dict, res: dict) -> str:
    sac = res["sacrebleu"]
    lines = [
        "# TER: bleustats vs sacreBLEU",
        "",
        (f"Started {meta['started']} on {meta['cpu']} ({meta['cpu_count']} logical CPUs; the machine "
         f"was shared with other jobs, load average {meta['load_start']} at the start and "
         f"{meta['load_end']} at the end), Python {meta['python']}, sacreBLEU {meta['sacrebleu']}, "
         f"bleustats {meta['bleustats']}, numba {meta['numba']}."),
        "",
        (f"Data: WMT21 news zh-en, {meta['segments']:,} real system outputs x 2 references (ref-A, "
         "ref-B), default TER options. Wall seconds; bleustats times are end to end "
         "(`corpus_ter`: tokenize, encode, kernel, sum) after a JIT warm-up timed separately."),
        "",
        "| tool | threads | runs | median s | speed-up vs sacreBLEU |",
        "|---|---|---|---|---|",
        f"| sacreBLEU `TER().corpus_score` | 1 | {len(sac['runs'])} | {statistics.median(sac['runs']):.1f} | 1 |",
    ]
    for threads, r in res["bleustats"].items():
        med = statistics.median(r["runs"])
        lines.append(f"| bleustats `corpus_ter` | {threads} | {len(r['runs'])} | {med:.3f} | "
                     f"{statistics.median(sac['runs']) / med:.0f}x |")
    first = next(iter(res["bleustats"].values()))
    lines += [
        "",
        (f"JIT warm-up (first process, cache warm): {first['warmup']:.2f} s. Score "
         f"{first['result']['score']:.4f} (num_edits {first['result']['num_edits']}, ref_length "
         f"{first['result']['ref_length']}); identical to sacreBLEU's (|difference| = "
         f"{res['max_abs_diff']:.1e})."),
        "",
        f"## One {LONG_TOKENS:,}-token segment",
        "",
        "| input | tool | seconds | edits |",
        "|---|---|---|---|",
    ]
    for name, label in (("long", "WMT21 zh-en"), ("adversarial", "random binary tokens")):
        tokens = first[name]["tokens"]
        what = f"{label}, {tokens[0]} / {tokens[1]} tokens"
        theirs = res.get(f"sacrebleu_{name}")
        if theirs is None:
            lines.append(f"| {what} | sacreBLEU | > {meta['long_timeout']:.0f} (stopped) | - |")
        else:
            lines.append(f"| {what} | sacreBLEU | {theirs['runs'][0]:.1f} | {theirs['result']['num_edits']} |")
        for threads, r in res["bleustats"].items():
            lines.append(f"| {what} | bleustats ({threads} thr.) | {statistics.median(r[name]['runs']):.3f} | "
                         f"{r[name]['result']['num_edits']} |")
    lines += ["", ("One segment always runs on the calling thread (the thread count only changes the "
                   "process); differences between the two bleustats rows are noise of the shared machine.")]
    enc = first.get("encode")
    if enc:
        lines += ["", "## Token ids: the engine's encoder vs a Python dict", "",
                  ("Lowercase, split and map every token of the corpus to an integer id (default "
                  "options), median of the runs, same process as the 1-thread run:"), "",
                  "| encoder | seconds |", "|---|---|",
                  (f"| Arrow string array + `stats._encode` (numba, exact) | "
                  f"{statistics.median(enc['arrow_encoder']):.3f} |"),
                  f"| `dict.setdefault` over `str.split()` | {statistics.median(enc['python_dict']):.3f} |"]
    lines += ["", *(f"Note: {note}" for note in meta.get("notes", [])), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3, help="bleustats runs per thread count")
    ap.add_argument("--sacrebleu-repeats", type=int, default=1)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--long-timeout", type=float, default=1800.0,
                    help="seconds sacreBLEU may spend on the 2,000-token segment")
    ap.add_argument("--shared", default=SHARED)
    ap.add_argument("--out", default=os.path.join(RESULTS, "ter"))
    ap.add_argument("--render-only", metavar="JSON", help="rewrite the .md of a saved results .json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(TAG + json.dumps(worker(a.worker, a.shared, a.segments, a.repeats)))
        return 0
    if a.render_only:
        with open(a.render_only) as fh:
            saved = json.load(fh)
        md = render(saved["meta"], saved["results"])
        with open(os.path.splitext(a.render_only)[0] + ".md", "w") as fh:
            fh.write(md)
        print(md)
        return 0
    if not os.path.isdir(os.path.join(a.shared, "data", "wmt21_news", "zh-en")):
        ap.error(f"{a.shared}/data/wmt21_news/zh-en not found; pass --shared DIR")
    import numba
    import sacrebleu

    import bleustats

    meta = {"started": _dt.datetime.now().isoformat(timespec="seconds"), "cpu": platform.machine(),
            "cpu_count": os.cpu_count(), "python": platform.python_version(), "sacrebleu": sacrebleu.__version__,
            "bleustats": bleustats.__version__, "numba": numba.__version__, "segments": a.segments,
            "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg()), "long_timeout": a.long_timeout}
    try:
        with open("/proc/cpuinfo") as fh:
            meta["cpu"] = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    res: dict = {"bleustats": {}}
    for threads in a.threads:
        res["bleustats"][str(threads)] = r = run_worker("bleustats", a, threads=threads)
        print(f"bleustats {threads} thread(s): {[round(x, 3) for x in r['runs']]} s", file=sys.stderr)
    res["sacrebleu"] = s = run_worker("sacrebleu", a)
    print(f"sacrebleu: {[round(x, 1) for x in s['runs']]} s", file=sys.stderr)
    res["max_abs_diff"] = max(check(r["result"], s["result"]) for r in res["bleustats"].values())
    for name in ("long", "adversarial"):
        res[f"sacrebleu_{name}"] = one = run_worker(f"sacrebleu-{name}", a, timeout=a.long_timeout)
        if one is not None:
            for r in res["bleustats"].values():
                check(r[name]["result"], one["result"])
        print(f"sacrebleu 2,000-token {name} segment: {one['runs'] if one else 'timed out'}", file=sys.stderr)
    meta["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out + ".json", "w") as fh:
        json.dump({"meta": meta, "results": res}, fh, indent=1)
    md = render(meta, res)
    with open(a.out + ".md", "w") as fh:
        fh.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
