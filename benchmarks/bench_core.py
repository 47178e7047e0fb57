#!/usr/bin/env python3
"""Corpus-BLEU benchmark, end to end from text files: bleustats vs its peers.

Tasks: tokenize {none, 13a} x references {1, 4} x sizes {10k, 100k, 1M} on the corpora
written by ``benchmarks/generate.py`` (``hyp.S.txt``, ``ref0.S.txt`` ...); ``--tok`` also takes
intl, char and zh (sacreBLEU and bleustats only: the other peers have no such tokenizer).

Every measurement runs in a fresh subprocess (this script's ``--worker`` mode), the tools
alternate (the order rotates every repeat), and the median of ``--repeats`` (>= 3) runs is
reported.  Inside the worker the stages are timed separately:

  import      importing the tool's module(s)
  first_call  one call on a 2-segment toy corpus (lazy initialisation: numba JIT compile or
              cache load, regex compilation, dlopen of a native kernel ...)
  read        reading the text files into Python lists of str
  prep        reshaping into the tool's input layout, where its API needs it
  compute     the scoring call on the real data (tokenisation + statistics + score)

``e2e`` is the sum of these in-process stages; ``wall`` is the parent's wall clock for the
whole subprocess (interpreter start-up included).  Peak RSS is ``ru_maxrss`` of the worker
(for the CLI: of its child, via RUSAGE_CHILDREN); CPU time / wall shows how many cores a
tool used.  For the files entry point of bleustats (``corpus_bleu_files`` / the CLI),
reading happens inside the call, so ``read`` is 0 and ``compute`` covers it.

Correctness gate: sacreBLEU 2.6 is the reference.  A peer's timing only counts (is used in
ratios) when its score agrees with sacreBLEU's to 1e-9 on the 0-100 scale; otherwise the
difference is recorded with the reason (e.g. a different definition).

sacreBLEU needs ~2.6 GB per 100k segments with 4 references, so at sizes above
``--sacrebleu-chunk`` (default 100,000) it is run in chunks of that many segments,
summing the segment statistics (``BLEU._extract_corpus_statistics``) and scoring the sum
(``BLEU._compute_score_from_stats``); summing integer statistics is exact.

Peers (see ``PEERS`` for how each is called):
  sacrebleu       sacreBLEU 2.6 Python API (the reference)
  sacrebleu-mojo  native Mojo kernel, Python >= 3.12 only: run with ``--mojo-python``
                  (default benchmarks/.venv-py312/bin/python, made by ``--setup-mojo``);
                  the worker asserts that the native backend ran (``BLEUScore.backend``)
  bleuscore       Rust, rayon-parallel; always 13a-tokenises (so: 13a tasks only)
  bleuscore-1t    the same with RAYON_NUM_THREADS=1
  nltk            nltk.translate.bleu_score.corpus_bleu on whitespace tokens (none) or on
                  sacreBLEU's Tokenizer13a output (13a); sizes <= --nltk-max-size
  bleustats       bleustats.corpus_bleu_files(hyp, refs, tokenize=...) if present,
                  else read + bleustats.corpus_bleu(...)
  bleustats-cli   ``bleustats score REF... -i HYP -tok TOK --json``
fast-bleu is installed but excluded: it computes per-hypothesis sentence BLEU against one
shared reference pool (text-generation evaluation), so corpus BLEU with per-segment
references cannot be expressed with it (see EXCLUDED).

Usage::

    python benchmarks/bench_core.py --quick            # 10k only, < 2 minutes
    python benchmarks/bench_core.py --sizes 10000 100000 --repeats 3
    python benchmarks/bench_core.py --tools bleustats bleustats-cli --merge-from \
        benchmarks/results/core.json                   # reuse peer runs of an earlier run
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "data")
DEFAULT_RESULTS = os.path.join(HERE, "results")
DEFAULT_MOJO_PY = os.path.join(HERE, ".venv-py312", "bin", "python")
RESULT_TAG = "@@BENCH_RESULT@@ "
TOL = 1e-9

ALL_TOOLS = ["sacrebleu", "sacrebleu-mojo", "bleuscore", "bleuscore-1t", "nltk",
             "bleustats", "bleustats-cli"]
BLEUSTATS_TOOLS = ("bleustats", "bleustats-cli")
QUICK_TOOLS = ["sacrebleu", "sacrebleu-mojo", "bleuscore", "bleustats", "bleustats-cli"]

EXCLUDED = {
    "fast-bleu": (
        "fast-bleu 0.0.90 installs (built from its sdist) but is not a corpus-BLEU "
        "implementation: fast_bleu.BLEU(reference_pool).get_score(hypotheses) returns one "
        "NLTK sentence-BLEU (smoothing method1) per hypothesis against a single reference "
        "pool shared by all hypotheses (text-generation evaluation). Per-segment "
        "references and corpus-level aggregation of n-gram statistics cannot be "
        "expressed, so its numbers are not comparable (definition differs). For a "
        "one-segment corpus it equals nltk sentence_bleu(method1)."),
}

TOY_HYP = ["The cat sat on the mat, today.", "A quick brown fox ."]
TOY_REFS = [["The cat sat on a mat, today.", "The quick brown fox ."],
            ["A cat was sitting on the mat today .", "A fast brown fox."],
            ["The cat sat on the mat.", "A quick brown fox!"],
            ["There is a cat on the mat.", "The brown fox is quick."]]


# =========================================================================== worker side

def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        data = f.read()
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _iter_chunks(paths, n):
    """Yield lists of n lines from several files in lockstep (bounded memory)."""
    fhs = [open(p, encoding="utf-8") for p in paths]
    try:
        while True:
            chunk = []
            for fh in fhs:
                lines = []
                for _ in range(n):
                    ln = fh.readline()
                    if not ln:
                        break
                    lines.append(ln[:-1] if ln.endswith("\n") else ln)
                chunk.append(lines)
            if not chunk[0]:
                return
            yield chunk
    finally:
        for fh in fhs:
            fh.close()


def _score_dict(obj, scale=1.0) -> dict:
    d = {"score": float(obj.score) * scale}
    for k in ("counts", "totals", "sys_len", "ref_len"):
        v = getattr(obj, k, None)
        if v is not None:
            d[k] = [int(x) for x in v] if hasattr(v, "__len__") else int(v)
    return d


class Stages:
    def __init__(self):
        self.t = {"import": 0.0, "first_call": 0.0, "read": 0.0, "prep": 0.0, "compute": 0.0}
        self._t0 = None

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self, name):
        self.t[name] += time.perf_counter() - self._t0


def _w_sacrebleu(a, st: Stages) -> dict:
    st.start()
    from sacrebleu.metrics import BLEU
    from sacrebleu.utils import sum_of_lists
    import sacrebleu
    st.stop("import")
    st.start()
    BLEU(tokenize=a.tok, force=True).corpus_score(TOY_HYP, TOY_REFS[:a.nrefs])
    st.stop("first_call")
    bleu = BLEU(tokenize=a.tok, force=True)
    info = {"version": sacrebleu.__version__}
    if a.chunk and a.size > a.chunk:
        info["chunked"] = a.chunk
        acc = None
        it = _iter_chunks([a.hyp] + a.refs, a.chunk)
        while True:
            st.start()
            try:
                chunk = next(it)
            except StopIteration:
                st.stop("read")
                break
            st.stop("read")
            st.start()
            stats = bleu._extract_corpus_statistics(chunk[0], chunk[1:])
            s = sum_of_lists(stats)
            acc = s if acc is None else [x + y for x, y in zip(acc, s)]
            del stats
            st.stop("compute")
        st.start()
        res = bleu._compute_score_from_stats(acc)
        st.stop("compute")
    else:
        st.start()
        hyp = _read_lines(a.hyp)
        refs = [_read_lines(p) for p in a.refs]
        st.stop("read")
        st.start()
        res = bleu.corpus_score(hyp, refs)
        st.stop("compute")
    out = _score_dict(res)
    out["info"] = info
    return out


def _w_mojo(a, st: Stages) -> dict:
    st.start()
    import sacrebleu_mojo
    st.stop("import")
    st.start()
    toy = sacrebleu_mojo.corpus_bleu(TOY_HYP, TOY_REFS[:a.nrefs], tokenize=a.tok)
    st.stop("first_call")
    st.start()
    hyp = _read_lines(a.hyp)
    refs = [_read_lines(p) for p in a.refs]
    st.stop("read")
    st.start()
    res = sacrebleu_mojo.corpus_bleu(hyp, refs, tokenize=a.tok)
    st.stop("compute")
    out = _score_dict(res)
    bi = sacrebleu_mojo.backend_info()
    out["info"] = {"version": sacrebleu_mojo.__version__, "backend": res.backend,
                   "toy_backend": toy.backend, "backend_info": bi,
                   "python": platform.python_version()}
    if res.backend != "native" and not os.environ.get("BENCH_ALLOW_MOJO_FALLBACK"):
        out["error"] = f"sacrebleu-mojo ran its {res.backend} path, not the native kernel"
    return out


def _w_bleuscore(a, st: Stages) -> dict:
    if a.tok != "13a":
        raise SystemExit("bleuscore always tokenizes with 13a")
    st.start()
    import bleuscore
    st.stop("import")
    st.start()
    bleuscore.compute([list(x) for x in zip(*TOY_REFS[:a.nrefs])], TOY_HYP, max_order=4,
                      smooth=False, ref_len_method="sacrebleu")
    st.stop("first_call")
    st.start()
    hyp = _read_lines(a.hyp)
    refs = [_read_lines(p) for p in a.refs]
    st.stop("read")
    st.start()
    per_seg = [list(x) for x in zip(*refs)]  # API wants references grouped per segment
    del refs
    st.stop("prep")
    st.start()
    r = bleuscore.compute(per_seg, hyp, max_order=4, smooth=False, ref_len_method="sacrebleu")
    st.stop("compute")
    return {"score": float(r["bleu"]) * 100.0, "sys_len": int(r["translation_length"]),
            "ref_len": int(r["reference_length"]),
            "info": {"version": bleuscore.__version__,
                     "rayon_threads": os.environ.get("RAYON_NUM_THREADS", "default (all cores)"),
                     "precisions": [float(p) for p in r["precisions"]]}}


def _w_nltk(a, st: Stages) -> dict:
    st.start()
    import nltk
    from nltk.translate.bleu_score import corpus_bleu
    if a.tok == "13a":
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
        tok13a = Tokenizer13a()

        def tok(s):
            return tok13a(s.rstrip()).split()
    else:
        def tok(s):
            return s.split()
    st.stop("import")
    st.start()
    corpus_bleu([[tok(r) for r in rs] for rs in zip(*TOY_REFS[:a.nrefs])],
                [tok(h) for h in TOY_HYP])
    st.stop("first_call")
    st.start()
    hyp = _read_lines(a.hyp)
    refs = [_read_lines(p) for p in a.refs]
    st.stop("read")
    st.start()
    lr = [[tok(r) for r in rs] for rs in zip(*refs)]
    del refs
    hy = [tok(h) for h in hyp]
    st.stop("prep")
    st.start()
    s = corpus_bleu(lr, hy)
    st.stop("compute")
    # NLTK's modified_precision divides by max(1, #hypothesis n-grams): every hypothesis
    # shorter than n tokens adds 1 to NLTK's total_n (sacreBLEU adds 0).
    short = [sum(1 for h in hy if len(h) < n) for n in range(1, 5)]
    return {"score": float(s) * 100.0, "short_hyps": short,
            "info": {"version": nltk.__version__,
                     "tokenizer": "str.split" if a.tok == "none" else "sacrebleu Tokenizer13a",
                     "note": "tokenisation is timed as prep"}}


def _numba_info() -> dict:
    nb = sys.modules.get("numba")
    if nb is None:
        return {}
    d = {"numba": nb.__version__}
    try:
        d["numba_num_threads"] = int(nb.config.NUMBA_NUM_THREADS)
        d["numba_threading_layer"] = nb.threading_layer()
    except Exception as exc:  # no parallel region ran yet
        d["numba_threading_layer"] = f"n/a ({type(exc).__name__})"
    return d


def _timings_of(res):
    t = getattr(res, "timings", None)
    if t is None:
        st = getattr(res, "stats", None)
        if isinstance(st, dict):
            t = st.get("timings")
    if t is None:
        return None
    try:
        return {str(k): float(v) for k, v in dict(t).items()}
    except Exception:
        return repr(t)


def _w_bleustats(a, st: Stages) -> dict:
    st.start()
    import bleustats
    st.stop("import")
    st.start()
    bleustats.corpus_bleu(TOY_HYP, TOY_REFS[:a.nrefs], tokenize=a.tok)
    st.stop("first_call")
    info = {"version": getattr(bleustats, "__version__", "?")}
    files_fn = getattr(bleustats, "corpus_bleu_files", None)
    if files_fn is not None:
        info["entry"] = "corpus_bleu_files"
        st.start()
        res = files_fn(a.hyp, a.refs, tokenize=a.tok)
        st.stop("compute")
    else:
        info["entry"] = "read + corpus_bleu"
        st.start()
        hyp = _read_lines(a.hyp)
        refs = [_read_lines(p) for p in a.refs]
        st.stop("read")
        st.start()
        res = bleustats.corpus_bleu(hyp, refs, tokenize=a.tok)
        st.stop("compute")
    out = _score_dict(res)
    info["timings"] = _timings_of(res)
    info["source_hash"] = _pkg_hash(bleustats)
    info.update(_numba_info())
    out["info"] = info
    return out


def _pkg_hash(mod) -> str:
    """Short hash of a package's .py sources (the engine is edited while we benchmark)."""
    import hashlib
    h = hashlib.sha1()
    d = os.path.dirname(mod.__file__)
    for root, _, files in sorted(os.walk(d)):
        for fn in sorted(files):
            if fn.endswith(".py"):
                with open(os.path.join(root, fn), "rb") as f:
                    h.update(fn.encode() + f.read())
    return h.hexdigest()[:12]


def _cli_has_timings(exe) -> bool:
    try:
        h = subprocess.run([exe, "score", "--help"], capture_output=True, text=True, timeout=120)
        return "--timings" in (h.stdout + h.stderr)
    except Exception:
        return False


def _w_bleustats_cli(a, st: Stages) -> dict:
    import resource
    exe = shutil.which("bleustats")
    if exe is None:
        raise SystemExit("bleustats CLI not on PATH")
    cmd = [exe, "score", *a.refs, "-i", a.hyp, "-tok", a.tok, "--json", "-w", "16"]
    if _cli_has_timings(exe):
        cmd.append("--timings")
    st.start()
    p = subprocess.run(cmd, capture_output=True, text=True)
    st.stop("compute")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise SystemExit(f"CLI failed rc={p.returncode}: {p.stderr[-2000:]}")
    text = p.stdout.strip()
    try:
        js = json.loads(text)
    except json.JSONDecodeError:
        js = json.loads(text.splitlines()[-1])
    if isinstance(js, list):
        js = js[0]
    out = {"score": float(js["score"])}
    for k in ("counts", "totals", "sys_len", "ref_len"):
        if k in js:
            out[k] = js[k]
    out["info"] = {"cmd": " ".join(os.path.basename(c) if i == 0 else c
                                   for i, c in enumerate(cmd)),
                   "timings": js.get("timings"), "stderr_tail": p.stderr[-500:]}
    out["child_rusage"] = {"maxrss_mb": ru.ru_maxrss / 1024.0,
                           "cpu_s": ru.ru_utime + ru.ru_stime}
    return out


WORKERS = {"sacrebleu": _w_sacrebleu, "sacrebleu-mojo": _w_mojo, "bleuscore": _w_bleuscore,
           "bleuscore-1t": _w_bleuscore, "nltk": _w_nltk, "bleustats": _w_bleustats,
           "bleustats-cli": _w_bleustats_cli}


def worker_main(a) -> int:
    import resource
    st = Stages()
    t_all = time.perf_counter()
    try:
        out = WORKERS[a.worker](a, st)
    except SystemExit as exc:
        out = {"error": str(exc)}
    except Exception as exc:  # report, do not crash the benchmark
        import traceback
        out = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
    t_all = time.perf_counter() - t_all
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out["stages"] = st.t
    out["e2e"] = sum(st.t.values())
    out["worker_total"] = t_all
    out["maxrss_mb"] = ru.ru_maxrss / 1024.0
    out["cpu_s"] = ru.ru_utime + ru.ru_stime
    if "child_rusage" in out:  # CLI: the measured process is the child
        out["maxrss_mb"] = out["child_rusage"]["maxrss_mb"]
        out["cpu_s"] = out["cpu_s"] + out["child_rusage"]["cpu_s"]
    try:
        with open("/proc/self/status") as f:
            out["threads_at_end"] = int(next(ln for ln in f if ln.startswith("Threads:")).split()[1])
    except Exception:
        pass
    sys.stdout.write(RESULT_TAG + json.dumps(out) + "\n")
    sys.stdout.flush()
    return 0


# =========================================================================== driver side

def _files(data, size, nrefs):
    hyp = os.path.join(data, f"hyp.{size}.txt")
    refs = [os.path.join(data, f"ref{k}.{size}.txt") for k in range(nrefs)]
    return hyp, refs


def _sig(paths):
    return [[os.path.basename(p), os.path.getsize(p), int(os.stat(p).st_mtime)] for p in paths]


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _versions(mojo_py):
    v = {"python": platform.python_version()}
    for name in ("sacrebleu", "bleuscore", "nltk", "fast-bleu", "numpy", "numba", "bleustats"):  # distributions
        try:
            from importlib.metadata import version
            v[name] = version(name)
        except Exception:
            v[name] = None
    if mojo_py and os.path.exists(mojo_py):
        try:
            p = subprocess.run([mojo_py, "-c",
                                "import platform,json,sacrebleu_mojo as m,numpy;"
                                "print(json.dumps([platform.python_version(),m.__version__,"
                                "numpy.__version__,m.backend_info()]))"],
                               capture_output=True, text=True, timeout=120)
            py, mv, npv, bi = json.loads(p.stdout.strip().splitlines()[-1])
            v["sacrebleu-mojo"] = mv
            v["sacrebleu-mojo_python"] = py
            v["sacrebleu-mojo_numpy"] = npv
            v["sacrebleu-mojo_backend_info"] = bi
        except Exception as exc:
            v["sacrebleu-mojo"] = None
            v["sacrebleu-mojo_error"] = str(exc)
    else:
        v["sacrebleu-mojo"] = None
        v["sacrebleu-mojo_error"] = (f"no Python >= 3.12 environment at {mojo_py}; "
                                     "run with --setup-mojo")
    return v


def _bleustats_hash():
    p = subprocess.run([sys.executable, "-c", "import sys, bleustats; sys.path.insert(0, %r); "
                        "import bench_core; print(bench_core._pkg_hash(bleustats))" % HERE],
                       capture_output=True, text=True)
    return p.stdout.strip() or None


def bleustats_available() -> tuple[bool, str]:
    p = subprocess.run([sys.executable, "-c",
                        "import bleustats; bleustats.corpus_bleu; print('ok')"],
                       capture_output=True, text=True)
    if p.returncode == 0:
        return True, "ok"
    return False, (p.stderr.strip().splitlines() or ["?"])[-1]


def tool_applicable(tool, tok, size, args, avail) -> str | None:
    """None if the tool runs on this task, else the reason it is skipped."""
    if tool in ("bleuscore", "bleuscore-1t") and tok != "13a":
        return ("n/a: bleuscore has no tokenize option; it always applies 13a "
                "(definition differs for tokenize=none)")
    if tool == "sacrebleu-mojo" and tok not in ("none", "13a"):
        return f"n/a: sacrebleu-mojo supports tokenize '13a' and 'none' only (ValueError for {tok!r})"
    if tool == "nltk" and tok not in ("none", "13a"):
        return f"n/a: this driver feeds NLTK str.split or sacreBLEU's 13a tokens only (not {tok!r})"
    if tool == "nltk" and size > args.nltk_max_size:
        return f"skipped: size > --nltk-max-size {args.nltk_max_size} (pure Python, slow)"
    if tool == "bleuscore-1t" and size > args.variant_max_size:
        return (f"skipped: size > --variant-max-size {args.variant_max_size} (the one-thread "
                "variant of bleuscore; bleuscore itself runs)")
    if tool == "sacrebleu-mojo" and not os.path.exists(args.mojo_python):
        return f"unavailable: {args.mojo_python} missing (needs Python >= 3.12; --setup-mojo)"
    if tool in BLEUSTATS_TOOLS and not avail["bleustats"][0]:
        return f"unavailable: bleustats engine not importable yet ({avail['bleustats'][1]})"
    if tool == "bleustats-cli" and not avail["cli"]:
        return "unavailable: `bleustats` CLI not on PATH"
    return None


def run_one(tool, tok, size, nrefs, args) -> dict:
    hyp, refs = _files(args.data, size, nrefs)
    py = args.mojo_python if tool == "sacrebleu-mojo" else sys.executable
    cmd = [py, os.path.abspath(__file__), "--worker", tool, "--tok", tok, "--size", str(size),
           "--hyp", hyp, "--ref-files", *refs, "--chunk", str(args.sacrebleu_chunk)]
    env = dict(os.environ)
    if tool == "bleuscore-1t":
        env["RAYON_NUM_THREADS"] = "1"
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {args.timeout}s", "wall": time.perf_counter() - t0}
    wall = time.perf_counter() - t0
    res = None
    for line in p.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
    if res is None:
        res = {"error": f"worker rc={p.returncode}: {p.stderr[-2000:]}"}
    res["wall"] = wall
    res["rc"] = p.returncode
    res["loadavg1_before"] = load0
    res["loadavg1_after"] = os.getloadavg()[0]
    if p.returncode != 0 and "error" not in res:
        res["error"] = f"worker rc={p.returncode}: {p.stderr[-2000:]}"
    return res


def _compare(res, ref) -> dict:
    """Agreement of one run with the sacreBLEU reference score/statistics."""
    if "score" not in res or ref is None:
        return {}
    d = {"diff": res["score"] - ref["score"]}
    d["agrees"] = abs(d["diff"]) <= TOL
    if not d["agrees"] and "short_hyps" in res and "totals" in ref:
        # NLTK: re-score sacreBLEU's statistics with NLTK's max(1, .) denominators
        from sacrebleu.metrics import BLEU
        tot = [t + k for t, k in zip(ref["totals"], res["short_hyps"])]
        alt = BLEU.compute_bleu(ref["counts"], tot, ref["sys_len"], ref["ref_len"],
                                smooth_method="exp").score
        d["diff_vs_nltk_definition"] = res["score"] - alt
        if abs(res["score"] - alt) <= TOL:
            d["explained"] = ("definition differs: NLTK counts max(1, #n-grams) for the "
                              f"{res['short_hyps']} hypotheses shorter than n=1..4 tokens; "
                              "sacreBLEU's statistics re-scored that way agree within 1e-9")
    mism = [k for k in ("counts", "totals", "sys_len", "ref_len") if k in res and k in ref
            and res[k] != ref[k]]
    if mism:
        d["stats_mismatch"] = mism
    return d


DEFINITION_NOTES = {
    "bleuscore": ("same definition for tokenize=13a with ref_len_method='sacrebleu' "
                  "(closest) and smooth=False (sacreBLEU's 'exp' smoothing only acts on "
                  "zero match counts, none here); score on 0-1 scale x100"),
    "bleuscore-1t": "as bleuscore, RAYON_NUM_THREADS=1",
    "nltk": ("same definition (closest ref length, clipped counts, no smoothing needed) "
             "except that modified_precision divides by max(1, #hypothesis n-grams), so "
             "every hypothesis shorter than n tokens adds 1 to total_n (sacreBLEU: 0); "
             "tokens from str.split (none) / sacreBLEU's Tokenizer13a (13a), tokenisation "
             "timed as prep; score x100"),
    "bleustats": ("bleustats.corpus_bleu_files (reads the files itself, so its read time "
                  "is inside compute); first call = corpus_bleu on the toy corpus, which "
                  "takes the plain-Python path and loads no numba: loading the cached "
                  "kernels (or compiling them) is inside compute"),
    "bleustats-cli": ("`bleustats score REF... -i HYP -tok TOK --json -w 16`; the whole CLI "
                      "process is `compute`, its peak RSS is the CLI process's"),
    "sacrebleu-mojo": "claims bit-exact sacreBLEU BLEU (13a / none)",
}


def summarize(runs):
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"n_ok": 0, "error": runs[0].get("error") if runs else "no runs"}
    med = lambda k: statistics.median(r[k] for r in ok)  # noqa: E731
    s = {"n_ok": len(ok), "wall": med("wall"), "e2e": med("e2e"), "maxrss_mb": max(
        r["maxrss_mb"] for r in ok), "cpu_s": med("cpu_s")}
    for stage in ("import", "first_call", "read", "prep", "compute"):
        s[stage] = statistics.median(r["stages"][stage] for r in ok)
    s["cpu_per_wall"] = s["cpu_s"] / s["wall"] if s["wall"] else None
    s["score"] = ok[0].get("score")
    s["agrees"] = all(r.get("agrees", False) for r in ok) if "agrees" in ok[0] else None
    if s["agrees"] is False and all(r.get("agrees") or r.get("explained") for r in ok):
        s["explained"] = next(r["explained"] for r in ok if r.get("explained"))
    s["loadavg1_max"] = max(max(r.get("loadavg1_before", 0), r.get("loadavg1_after", 0))
                            for r in ok)
    s["max_abs_diff"] = max((abs(r["diff"]) for r in ok if "diff" in r), default=None)
    tm = [r.get("info", {}).get("timings") for r in ok]
    if tm and all(isinstance(t, dict) for t in tm):
        s["engine_timings"] = {k: statistics.median(t[k] for t in tm if k in t) for k in tm[0]}
    return s


def main_driver(args) -> int:
    if args.quick:
        args.sizes = [10_000]
        if args.name == "core":
            args.name = "core_quick"
    if args.tools is None:
        args.tools = QUICK_TOOLS if args.quick else ALL_TOOLS
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    os.makedirs(args.results, exist_ok=True)
    tools = args.tools
    avail = {"bleustats": bleustats_available(), "cli": shutil.which("bleustats") is not None}
    print(f"bleustats engine: {avail['bleustats']}, CLI on PATH: {avail['cli']}", flush=True)

    for size in args.sizes:
        hyp, refs = _files(args.data, size, max(args.refs))
        if not all(os.path.exists(p) for p in [hyp] + refs):
            if args.generate:
                subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--out",
                                args.data, "--sizes", str(size), "--refs", str(max(args.refs)),
                                "--no-verify"], check=True)
            else:
                raise SystemExit(f"missing data for size {size} in {args.data}; run "
                                 f"benchmarks/generate.py or pass --generate")

    merged = {}
    if args.merge_from and os.path.exists(args.merge_from):
        with open(args.merge_from) as f:
            old = json.load(f)
        for t in old.get("tasks", []):
            for tool, tr in t["tools"].items():
                if tool not in tools and tr.get("runs"):
                    merged[(t["size"], t["tok"], t["refs"], tool)] = dict(
                        tr, merged_from=os.path.basename(args.merge_from),
                        merged_invocation=old.get("meta", {}).get("started"))

    out_json = os.path.join(args.results, args.name + ".json")
    previous, invocations = {}, []
    if args.resume and os.path.exists(out_json):
        with open(out_json) as f:
            old = json.load(f)
        invocations = old["meta"].get("invocations") or [old["meta"].get("started")]
        for t in old.get("tasks", []):
            previous[(t["size"], t["tok"], t["refs"], json.dumps(t["files"]))] = t
        print(f"--resume: {len(previous)} configuration(s) in {out_json}", flush=True)

    ref_cache_path = os.path.join(args.results, "sacrebleu_reference_scores.json")
    ref_cache = {}
    if os.path.exists(ref_cache_path):
        with open(ref_cache_path) as f:
            ref_cache = json.load(f)

    meta = {
        "started": _dt.datetime.now().isoformat(timespec="seconds"),
        "argv": sys.argv,
        "cpu_model": _cpu_model(),
        "nproc": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "mem_total_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "platform": platform.platform(),
        "thread_env": {k: os.environ.get(k) for k in (
            "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "RAYON_NUM_THREADS", "MKL_NUM_THREADS",
            "OPENBLAS_NUM_THREADS")},
        "versions": _versions(args.mojo_python),
        "bleustats_source_hash_at_start": _bleustats_hash(),
        "repeats": args.repeats,
        "cap_s": args.cap_s,
        "cap_ratio": args.cap_ratio,
        "tolerance": TOL,
        "sacrebleu_chunk": args.sacrebleu_chunk,
        "bleustats_available": avail,
        "excluded_peers": EXCLUDED,
        "definition_notes": DEFINITION_NOTES,
        "method": __doc__.split("Usage::")[0].strip(),
    }
    meta["invocations"] = invocations + [meta["started"]]
    print(f"CPU: {meta['cpu_model']} x{meta['nproc']}; versions: "
          f"{ {k: v for k, v in meta['versions'].items() if not k.endswith('info')} }", flush=True)

    tasks = []
    for size in args.sizes:
        for nrefs in args.refs:
            for tok in args.tok:
                hyp, refs = _files(args.data, size, nrefs)
                key = f"{size}/{tok}/{nrefs}"
                sig = _sig([hyp] + refs)
                ref = ref_cache.get(key)
                if ref is not None and ref.get("sig") != sig:
                    ref = None
                task = {"size": size, "tok": tok, "refs": nrefs, "files": sig, "tools": {}}
                prev = previous.get((size, tok, nrefs, json.dumps(sig)), {"tools": {}})
                runnable = []
                for tool in tools:
                    why = tool_applicable(tool, tok, size, args, avail)
                    if why:
                        task["tools"][tool] = {"skipped": why}
                    else:
                        runnable.append(tool)
                        task["tools"][tool] = {"runs": []}
                done = {(tool, r["repeat"]): r for tool, tr in prev["tools"].items()
                        for r in tr.get("runs", []) if "error" not in r}  # a failed run runs again
                # make sure sacreBLEU's reference comes first if it is not cached
                if ref is None and "sacrebleu" not in runnable:
                    print(f"[{key}] computing sacreBLEU reference score", flush=True)
                    r = run_one("sacrebleu", tok, size, nrefs, args)
                    if "error" in r:
                        raise SystemExit(f"sacreBLEU reference failed: {r['error']}")
                    ref = {k: r[k] for k in ("score", "counts", "totals", "sys_len", "ref_len")}
                for rep in range(args.repeats):
                    live = [t for t in runnable if "capped" not in task["tools"][t]]
                    k = rep % max(len(live), 1)
                    order = live[k:] + live[:k]
                    if ref is None and "sacrebleu" in order:  # reference first on a cold cache
                        order.remove("sacrebleu")
                        order.insert(0, "sacrebleu")
                    for tool in order:
                        r = done.get((tool, rep))
                        if r is not None:
                            r = dict(r, resumed=True)
                        else:
                            r = run_one(tool, tok, size, nrefs, args)
                            r["repeat"] = rep
                            r["started_invocation"] = meta["started"]
                        if tool == "sacrebleu" and ref is None and "error" not in r:
                            ref = {k2: r[k2] for k2 in ("score", "counts", "totals", "sys_len",
                                                        "ref_len")}
                        r.update(_compare(r, ref))
                        task["tools"][tool]["runs"].append(r)
                        msg = r.get("error") or (
                            f"wall {r['wall']:.3f}s e2e {r['e2e']:.3f}s "
                            f"compute {r['stages']['compute']:.3f}s rss {r['maxrss_mb']:.0f}MB "
                            f"score {r.get('score', float('nan')):.6f} "
                            f"diff {r.get('diff', float('nan')):.2e}")
                        print(f"[{key}] rep {rep} {tool:15s} {msg}{' (resumed)' if r.get('resumed') else ''}",
                              flush=True)
                        # every run is on disk at once, so an interrupted suite resumes here
                        _write(out_json, meta, tasks + [dict(task, partial=True, reference=ref)])
                    _cap(task, rep, args)
                if ref is not None:
                    ref_cache[key] = dict(ref, sig=sig)
                    with open(ref_cache_path, "w") as f:
                        json.dump(ref_cache, f, indent=1)
                task["reference"] = ref
                for tool in list(task["tools"]):
                    tr = task["tools"][tool]
                    if "runs" in tr:
                        tr["summary"] = summarize(tr["runs"])
                for (ms, mt, mr, mtool), tr in merged.items():
                    if (ms, mt, mr) == (size, tok, nrefs) and mtool not in task["tools"]:
                        task["tools"][mtool] = tr
                tasks.append(task)
                _write(out_json, meta, tasks)
    meta["finished"] = _dt.datetime.now().isoformat(timespec="seconds")
    _write(out_json, meta, tasks)
    md = render_md(meta, tasks)
    with open(os.path.join(args.results, args.name + ".md"), "w") as f:
        f.write(md)
    print(md)
    return 0


def cap_applies(walls, ours, cap_s, cap_ratio) -> bool:
    """The ``--cap-s`` rule, shared by the drivers and run.py's estimate: stop repeating a peer
    when every run of it took more than cap_s seconds and >= cap_ratio x bleustats' slowest."""
    return bool(cap_s) and bool(walls) and bool(ours) and min(walls) > cap_s and min(walls) >= cap_ratio * max(ours)


def _cap(task, rep, args):
    """Stop repeating a peer whose run is long and far from bleustats' (``--cap-s``).

    Repeats are there to decide close calls; a peer that took more than ``--cap-s`` seconds
    and at least ``--cap-ratio`` times bleustats' slowest run so far is not a close call,
    so it keeps the runs it has (marked) and the others go on.
    """
    if args.cap_s is None:
        return
    ours = [r["wall"] for r in task["tools"].get("bleustats", {}).get("runs", []) if "error" not in r]
    if not ours:
        return
    for tool, tr in task["tools"].items():
        if tool in BLEUSTATS_TOOLS or "runs" not in tr or "capped" in tr:
            continue
        walls = [r["wall"] for r in tr["runs"] if "error" not in r]
        if cap_applies(walls, ours, args.cap_s, args.cap_ratio):
            tr["capped"] = (f"{len(walls)} run(s): each took > --cap-s {args.cap_s:g} s and >= "
                            f"{args.cap_ratio:g}x bleustats' slowest run; stopped after repeat {rep}")
            print(f"  {tool}: capped ({tr['capped']})", flush=True)


def _write(path, meta, tasks):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "tasks": tasks}, f, indent=1)
    os.replace(tmp, path)


def _fmt(x, nd=3):
    return "—" if x is None else f"{x:.{nd}f}"


def _ok_label(tool, s):
    if tool == "sacrebleu":
        return "ref"
    if s.get("agrees") is True:
        return "yes"
    if s.get("explained"):
        return "def≠ ‡"
    return {False: "**NO**", None: "?"}[s.get("agrees")]


def _ratio(peer, base, key, mark=""):
    if not base.get("n_ok") or not peer.get("n_ok") or not base.get(key):
        return "—"
    if peer.get("agrees") is False and not peer.get("explained"):
        return "mismatch"
    flag = " ‡" if peer.get("explained") else ""
    return f"{peer[key] / base[key]:.2f}×{mark}{flag}"


def render_md(meta, tasks) -> str:
    v = meta["versions"]
    L = ["# Corpus BLEU end to end from files: bleustats vs peers", "",
         f"Started {meta['started']} on {meta['cpu_model']} ({meta['nproc']} logical CPUs, "
         f"{meta['mem_total_gb']} GB), {meta['platform']}.",
         f"Python {v.get('python')}; sacrebleu {v.get('sacrebleu')}, bleuscore "
         f"{v.get('bleuscore')}, nltk {v.get('nltk')}, sacrebleu-mojo {v.get('sacrebleu-mojo')} "
         f"(Python {v.get('sacrebleu-mojo_python')}, native backend), bleustats "
         f"{v.get('bleustats')}, numba {v.get('numba')}.",
         "",
         f"Median of {meta['repeats']} run(s) (per invocation), each in a fresh subprocess, "
         "tools alternating. "
         "Times in seconds. `wall` = whole subprocess incl. interpreter start; `e2e` = "
         "import + first call (2-segment toy corpus) + read + prep + compute inside it; "
         "`CPU` = user+sys seconds (CPU/wall > 1: several cores used); RSS = peak resident "
         "set of the measured process. `ok` = score equals sacreBLEU's within "
         f"{meta['tolerance']:g} (0-100 scale); ‡ = differs only by a documented "
         "definition difference (verified). Ratio = peer time / bleustats time (>1: "
         "bleustats faster), from the same invocation unless marked †. `load` = highest "
         "1-minute load average seen around the runs (other work on the machine inflates "
         "wall times; CPU seconds are less affected).",
         f"sacreBLEU at sizes > {meta['sacrebleu_chunk']:,} runs in chunks of "
         f"{meta['sacrebleu_chunk']:,} segments, summing segment statistics "
         "(`_extract_corpus_statistics` → `_compute_score_from_stats`).", ""]
    # headline: bleustats vs each peer, wall ratio (compute ratio)
    peers = []
    for t in tasks:
        for tool in t["tools"]:
            if tool not in BLEUSTATS_TOOLS and tool not in peers:
                peers.append(tool)
    if any((t["tools"].get("bleustats", {}).get("summary") or {}).get("n_ok") for t in tasks):
        L.append("## Summary: peer wall time / bleustats wall time (compute-stage ratio)")
        L.append("")
        L.append("| task | bleustats wall | " + " | ".join(peers) + " |")
        L.append("|---|---:|" + "---:|" * len(peers))
        for t in tasks:
            base = (t["tools"].get("bleustats", {}).get("summary") or {})
            cells = []
            for p in peers:
                tr = t["tools"].get(p, {})
                ps = tr.get("summary") or {}
                if "skipped" in tr or not ps.get("n_ok"):
                    cells.append("—")
                    continue
                mark = " †" if tr.get("merged_from") else ""
                cells.append(f"{_ratio(ps, base, 'wall', mark)} ({_ratio(ps, base, 'compute')})")
            L.append(f"| {t['size']:,} {t['tok']} {t['refs']}ref | {_fmt(base.get('wall'))} | "
                     + " | ".join(cells) + " |")
        L.append("")
        L.append("CPU seconds (user+sys, median) of each peer / bleustats's — less sensitive to "
                 "other load on the machine than wall time; a multi-threaded tool is charged "
                 "for all its threads:")
        L.append("")
        L.append("| task | bleustats CPU s | " + " | ".join(peers) + " |")
        L.append("|---|---:|" + "---:|" * len(peers))
        for t in tasks:
            base = (t["tools"].get("bleustats", {}).get("summary") or {})
            cells = []
            for p in peers:
                tr = t["tools"].get(p, {})
                ps = tr.get("summary") or {}
                if "skipped" in tr or not ps.get("n_ok"):
                    cells.append("—")
                    continue
                cells.append(_ratio(ps, base, "cpu_s", " †" if tr.get("merged_from") else ""))
            L.append(f"| {t['size']:,} {t['tok']} {t['refs']}ref | {_fmt(base.get('cpu_s'), 2)} | "
                     + " | ".join(cells) + " |")
        L.append("")
    for t in tasks:
        ref = t.get("reference") or {}
        L.append(f"## {t['size']:,} segments, tokenize={t['tok']}, {t['refs']} ref"
                 f"{'s' if t['refs'] > 1 else ''} — sacreBLEU {_fmt(ref.get('score'), 4)}")
        L.append("")
        base = t["tools"].get("bleustats", {}).get("summary") or {}
        L.append("| tool | wall | e2e | import | first call | read | prep | compute | CPU | "
                 "peak RSS MB | load | ok | |Δ| vs sacreBLEU | wall ratio | compute ratio |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|")
        notes = []
        for tool, tr in t["tools"].items():
            if "skipped" in tr:
                L.append(f"| {tool} | {tr['skipped']} |" + " |" * 13)
                continue
            s = tr.get("summary") or {}
            if not s.get("n_ok"):
                L.append(f"| {tool} | error: {str(s.get('error'))[:160]} |" + " |" * 13)
                continue
            mark = " †" if tr.get("merged_from") else ""
            dstr = "—" if s.get("max_abs_diff") is None else f"{s['max_abs_diff']:.1e}"
            rw = rc = "—"
            if tool not in BLEUSTATS_TOOLS:
                rw, rc = _ratio(s, base, "wall", mark), _ratio(s, base, "compute", mark)
            if s.get("explained"):
                notes.append(f"‡ {tool}: {s['explained']}")
            if tr.get("capped"):
                notes.append(f"{tool}: {tr['capped']}")
            resumed = sum(1 for r in tr.get("runs", []) if r.get("resumed"))
            if resumed:
                notes.append(f"{tool}: {resumed} of its runs are from an earlier invocation (--resume)")
            if tr.get("merged_from"):
                notes.append(f"† {tool}: runs merged from {tr['merged_from']} "
                             f"(invocation {tr.get('merged_invocation')})")
            L.append(f"| {tool}{mark} | {_fmt(s['wall'])} | {_fmt(s['e2e'])} | "
                     f"{_fmt(s['import'])} | {_fmt(s['first_call'])} | {_fmt(s['read'])} | "
                     f"{_fmt(s['prep'])} | {_fmt(s['compute'])} | {_fmt(s['cpu_s'], 2)} | "
                     f"{s['maxrss_mb']:.0f} | {_fmt(s.get('loadavg1_max'), 1)} | "
                     f"{_ok_label(tool, s)} | {dstr} | {rw} | {rc} |")
        hashes = [r.get("info", {}).get("source_hash") for r in
                  t["tools"].get("bleustats", {}).get("runs", []) if "error" not in r]
        if len(set(hashes)) > 1:
            notes.append(f"bleustats' source changed during this task ({len(set(hashes))} "
                         "versions across its runs; it was being edited): its numbers mix "
                         "versions, and a first call after a change includes a numba re-compile.")
        bt = (t["tools"].get("bleustats", {}).get("summary") or {}).get("engine_timings")
        if bt:
            notes.append("bleustats engine stages (median): " +
                         ", ".join(f"{k} {v:.3f}s" for k, v in bt.items()))
        chunked = [r.get("info", {}).get("chunked") for r in
                   t["tools"].get("sacrebleu", {}).get("runs", [])]
        if any(chunked):
            notes.append(f"sacreBLEU ran in chunks of {chunked[0]:,} segments.")
        if notes:
            L.append("")
            L.extend(f"- {n}" for n in notes)
        L.append("")
    L.append("## Excluded peers")
    for k, why in meta["excluded_peers"].items():
        L.append(f"- **{k}**: {why}")
    L.append("")
    L.append("## Definitions")
    for k, why in meta["definition_notes"].items():
        L.append(f"- **{k}**: {why}")
    L.append("")
    return "\n".join(L)


def setup_mojo(path):
    """Create a Python >= 3.12 venv with sacrebleu-mojo (it requires Python >= 3.12)."""
    env_dir = os.path.dirname(os.path.dirname(path))
    cands = [shutil.which(f"python3.{m}") for m in (12, 13, 14)]
    cands += [os.path.expanduser(f"~/.pyenv/versions/{d}/bin/python")
              for d in (sorted(os.listdir(os.path.expanduser("~/.pyenv/versions")))
                        if os.path.isdir(os.path.expanduser("~/.pyenv/versions")) else [])
              if d.startswith(("3.12", "3.13"))]
    def runs(c):  # a pyenv shim exists on PATH even when no global 3.12 is selected
        return c and os.path.exists(c) and subprocess.run([c, "--version"], capture_output=True).returncode == 0

    base = next((c for c in cands if runs(c)), None)
    if base is None:
        raise SystemExit("no Python >= 3.12 interpreter found for sacrebleu-mojo")
    subprocess.run([base, "-m", "venv", env_dir], check=True)
    subprocess.run([path, "-m", "pip", "install", "-q", "sacrebleu-mojo==0.2.4"], check=True)
    print(f"sacrebleu-mojo venv ready at {env_dir} (base {base})")


def parse(argv=None):
    ap = argparse.ArgumentParser(description="corpus-BLEU end-to-end benchmark")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--refs", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--tok", nargs="+", default=["none", "13a"], choices=["none", "13a", "intl", "char", "zh"],
                    help="intl / char / zh: sacreBLEU and bleustats only (the other peers have no such tokenizer)")
    ap.add_argument("--tools", nargs="+", default=None, choices=ALL_TOOLS,
                    help=f"default: all ({' '.join(ALL_TOOLS)}); --quick: {' '.join(QUICK_TOOLS)}")
    ap.add_argument("--repeats", type=int, default=None, help="default 3 (--quick: 1)")
    ap.add_argument("--quick", action="store_true",
                    help="10k only, 1 repeat, without the slow nltk and bleuscore-1t (< 2 min)")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--results", default=DEFAULT_RESULTS)
    ap.add_argument("--name", default="core", help="output basename (core.json / core.md)")
    ap.add_argument("--generate", action="store_true", help="generate missing data")
    ap.add_argument("--mojo-python", default=DEFAULT_MOJO_PY)
    ap.add_argument("--setup-mojo", action="store_true",
                    help="create the Python 3.12 venv for sacrebleu-mojo and exit")
    ap.add_argument("--sacrebleu-chunk", type=int, default=100_000)
    ap.add_argument("--nltk-max-size", type=int, default=100_000)
    ap.add_argument("--variant-max-size", type=int, default=100_000,
                    help="largest size for bleuscore-1t (one-thread variant)")
    ap.add_argument("--resume", action="store_true",
                    help="reuse the runs already in <results>/<name>.json (same files, same repeat "
                         "index): an interrupted run goes on where it stopped")
    ap.add_argument("--cap-s", type=float, default=None,
                    help="a peer whose runs all take longer than this many seconds, and at least "
                         "--cap-ratio times bleustats' slowest, is not repeated (marked in the output)")
    ap.add_argument("--cap-ratio", type=float, default=5.0)
    ap.add_argument("--timeout", type=int, default=3600, help="per-run timeout (s)")
    ap.add_argument("--merge-from", default=None,
                    help="copy runs of tools not measured now from an earlier results JSON")
    ap.add_argument("--render-only", metavar="JSON", help="re-write the .md of a results JSON")
    ap.add_argument("--combine", nargs="+", metavar=("OUT", "IN"),
                    help="merge the tasks of several results JSONs into OUT (+ OUT .md)")
    # worker mode
    ap.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    ap.add_argument("--hyp", help=argparse.SUPPRESS)
    ap.add_argument("--ref-files", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--chunk", type=int, default=100_000, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    if args.worker:
        args.refs = args.ref_files
        args.tok = args.tok[0]
        args.nrefs = len(args.ref_files)
        return worker_main(args)
    if args.setup_mojo:
        setup_mojo(args.mojo_python)
        return 0
    if args.combine:
        out, ins = args.combine[0], args.combine[1:]
        metas, tasks = [], []
        for pth in ins:
            with open(pth) as f:
                js = json.load(f)
            metas.append(js["meta"])
            for t in js["tasks"]:
                t["invocation"] = js["meta"].get("started")
                tasks.append(t)
        meta = dict(metas[0])
        meta["combined_from"] = [{"file": os.path.basename(pth), "started": m.get("started"),
                                  "finished": m.get("finished"), "argv": m.get("argv"),
                                  "repeats": m.get("repeats")} for pth, m in zip(ins, metas)]
        meta["repeats"] = "/".join(str(m.get("repeats")) for m in metas)
        tasks.sort(key=lambda t: (t["size"], t["refs"], t["tok"] != "none"))
        _write(out, meta, tasks)
        md = render_md(meta, tasks)
        with open(os.path.splitext(out)[0] + ".md", "w") as f:
            f.write(md)
        print(md)
        return 0
    if args.render_only:
        with open(args.render_only) as f:
            js = json.load(f)
        md = render_md(js["meta"], js["tasks"])
        with open(os.path.splitext(args.render_only)[0] + ".md", "w") as f:
            f.write(md)
        print(md)
        return 0
    if args.repeats is not None and args.repeats < 1:
        raise SystemExit("--repeats must be >= 1")
    return main_driver(args)


if __name__ == "__main__":
    sys.exit(main())
