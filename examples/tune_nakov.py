"""Nakov, Guzmán & Vogel (2012) revisited: does PRO with BLEU+1 tune to short translations, and do the fixes help?

Run from the repository root, with the shared data beside the checkout::

    python examples/tune_nakov.py                       # ../shared/data; tables to docs/tuning_nakov_results.*
    python examples/tune_nakov.py --quick               # smaller synthetic pool, fewer seeds

Three experiments, every number seeded (``numpy.random.default_rng``):

A. The Moses scorer list (100 sources x 100 entries, 1 reference): offline PRO and batch MIRA on
   the fixed list from Moses' ``init.opt``, BLEU+1 against every Nakov variant of the registry,
   five seeds each. The dev BLEU / length ratio is that of the 1-best of the list.
B. The Moses aggregate lists (14 tuning iterations, 5 sources x 200 entries, 3 references):
   iteration k tunes on runs 1..k merged (as Moses accumulates them), from the previous
   iteration's weights (iteration 1: ``init.opt``); the 1-best of the pool of all 14 lists is
   reported after every iteration. Five sentences: a behaviour check, not a measurement.
C. A synthetic list at scale (``benchmarks/tune_data.py``): a pool of candidates per source whose
   features correlate with length; a "decoder" returns each source's 100 best candidates under
   the current weights, lists accumulate across iterations, PRO / MIRA tune on the accumulated
   list, and the 1-best of the whole pool under the new weights is the dev BLEU and length
   ratio of the next iteration. Three worlds: ``hard_drop=1`` (short candidates leave out exactly
   the words they would most likely get wrong: shortening buys precision), ``0.5`` (hard and
   random words alike) and ``0`` (random words: shortening only loses). A direct search on
   corpus BLEU (random-restart hill climbing on the pool, not a bleustats tuner) shows the best
   reachable BLEU and the length it needs in each world.

``nakov:scaled`` scales the reference length by ILR, the inverse length ratio r/c of the 1-best
under the weights the iteration starts from (for A: the start weights).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from bleustats.metrics import bleu as scoring
from bleustats.tools import nbest_features
from bleustats.tools import tune as T

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

BLEU1 = "bleu+1"
NAKOV = ["nakov:pc-unsmoothed", "nakov:pc-grounded", "nakov:bp-smoothed", "nakov:bp-smoothed,pc-grounded",
         "nakov:unclipped", "nakov:scaled", "nakov:unclipped,scaled"]
VARIANTS = [BLEU1] + NAKOV
CORPUS_LIKE = "pseudo-doc"


def options_for(metric: str, ilr: float) -> dict:
    return {"ilr": ilr} if "scaled" in metric else {}


def summary(values: list[float]) -> dict:
    return {"mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "values": values}


# --------------------------------------------------------------------------- A


def experiment_a(data: Path, seeds: list[int]) -> dict:
    base = data / "moses_nbest"
    tl = T.read_tuning_list(base / "scorer.nbest.gz", base / "scorer.ref.txt.gz", tokenize="none")
    init = nbest_features.read_init_weights(base / "scorer.init.opt", tl.layout)
    start = tl.corpus_bleu(tl.one_best(init))
    ilr = 1.0 / start.ratio
    best = direct_search(tl, init, seed=seeds[0], steps=1000)
    out = {"list": "scorer", "entries": tl.n_entries, "sources": tl.n_sources, "start_bleu": start.score,
           "start_ratio": start.ratio, "ilr": ilr, "seeds": seeds,
           "direct_search": {"bleu": best[0], "ratio": best[1]}, "runs": {}}
    for algorithm in ("pro", "mira"):
        for metric in VARIANTS + [CORPUS_LIKE]:
            bleu, ratio = [], []
            for seed in seeds:
                r = T.tune(tl, algorithm=algorithm, variant=metric, variant_options=options_for(metric, ilr),
                           init=init, seed=seed)
                bleu.append(r.final.score)
                ratio.append(r.final.ratio)
            out["runs"][f"{algorithm}/{metric}"] = {"bleu": summary(bleu), "ratio": summary(ratio)}
            print(f"A {algorithm:4s} {metric:32s} BLEU {statistics.fmean(bleu):6.2f} ratio "
                  f"{statistics.fmean(ratio):.3f}", flush=True)
    return out


# --------------------------------------------------------------------------- B


def experiment_b(data: Path, seed: int) -> dict:
    base = data / "moses_nbest" / "aggregate"
    refs = [base / f"aggregate.reference.{i}" for i in range(3)]
    runs = [base / f"run{k}.nbest.gz" for k in range(1, 15)]
    pool = T.read_tuning_list(runs, refs, tokenize="none")
    init = nbest_features.read_init_weights(base / "init.opt", pool.layout)
    start = pool.corpus_bleu(pool.one_best(init))
    out = {"list": "aggregate", "pool_entries": pool.n_entries, "pool_read": pool.n_read, "sources": pool.n_sources,
           "start_bleu": start.score, "start_ratio": start.ratio, "seed": seed, "runs": {}}
    for algorithm in ("pro", "mira"):
        for metric in VARIANTS + [CORPUS_LIKE]:
            w = init.copy()
            track = []
            for k in range(1, 15):
                tl = T.read_tuning_list(runs[:k], refs, tokenize="none")
                ilr = 1.0 / max(tl.corpus_bleu(tl.one_best(w)).ratio, 1e-9)
                r = T.tune(tl, algorithm=algorithm, variant=metric, variant_options=options_for(metric, ilr), init=w,
                           seed=seed * 100 + k, iterations=None if algorithm == "pro" else 20)
                w = r.weights
                res = pool.corpus_bleu(pool.one_best(w))
                track.append({"iteration": k, "list_entries": tl.n_entries, "bleu": res.score, "ratio": res.ratio})
            out["runs"][f"{algorithm}/{metric}"] = track
            print(f"B {algorithm:4s} {metric:32s} " + " ".join(f"{t['bleu']:.1f}/{t['ratio']:.2f}" for t in track),
                  flush=True)
    return out


# --------------------------------------------------------------------------- C


def decode(pool: T.TuningList, seg: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Rows of each source's k best candidates under w (ties: earlier row)."""
    m = pool.model_scores(w)
    order = np.lexsort((np.arange(len(m)), -m, seg))
    s = seg[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    rank = np.arange(len(s)) - np.repeat(starts, np.diff(np.r_[starts, len(s)]))
    return np.sort(order[rank < k])


def direct_search(pool: T.TuningList, init: np.ndarray, *, seed: int, steps: int) -> tuple[float, float]:
    """Random-restart hill climbing on the pool's corpus BLEU (a reference point, not a tuner)."""
    _, vec = pool.sentence_stats()
    seg = pool.seg_id
    from bleustats.tools import kbest

    def bleu(w):
        rows = kbest.one_best_rows(seg, pool.features @ w)
        t = vec[rows].sum(axis=0)
        return float(scoring.bleu_from_sums(t[2:6], t[6:10], t[0], t[1])["score"]), t[0] / t[1]

    rng = np.random.default_rng(seed)
    best = (-1.0, 0.0)
    for restart in range(4):
        w = init / np.abs(init).sum() if restart == 0 else rng.normal(size=len(init))
        cur = bleu(w)
        for _ in range(steps):
            cand = w + rng.normal(0, 0.05, size=len(w)) * (rng.random(len(w)) < 0.4)
            b = bleu(cand)
            if b[0] >= cur[0]:
                w, cur = cand, b
        best = max(best, cur)
    return best


def experiment_c(n_src: int, per_src: int, k_best: int, iterations: int, hard_drop: float, seeds: list[int],
                 mira_epochs: int, search_steps: int) -> dict:
    import tune_data

    t0 = time.perf_counter()
    nb, refs = tune_data.make_pool(n_src, per_src, seed=1, hard_drop=hard_drop)
    pool = T.read_tuning_list(nb, refs, tokenize="none")
    seg = pool.seg_id
    init = np.array([0.1, 0.5, 0.3, 0.3, 0.3, -1.2])  # d, lm, tm x3, w: a start near length ratio 1
    start = pool.corpus_bleu(pool.one_best(init))
    best = direct_search(pool, init, seed=seeds[0], steps=search_steps)
    out = {"pool": f"tune_data.make_pool({n_src}, {per_src}, seed=1, hard_drop={hard_drop})",
           "entries": pool.n_entries, "k_best": k_best, "iterations": iterations, "seeds": seeds,
           "start_bleu": start.score, "start_ratio": start.ratio, "direct_search": {"bleu": best[0], "ratio": best[1]},
           "runs": {}}
    print(f"C hard_drop={hard_drop}: start {start.score:.2f}/{start.ratio:.3f}, direct search "
          f"{best[0]:.2f}/{best[1]:.3f} ({time.perf_counter() - t0:.0f}s)", flush=True)
    for algorithm in ("pro", "mira"):
        for metric in VARIANTS + [CORPUS_LIKE]:
            tracks = []
            for seed in seeds:
                w = init.copy()
                acc = np.zeros(pool.n_entries, bool)
                track = []
                for it in range(1, iterations + 1):
                    acc[decode(pool, seg, w, k_best)] = True
                    tl = pool.select(acc)
                    ilr = 1.0 / max(pool.corpus_bleu(pool.one_best(w)).ratio, 1e-9)
                    r = T.tune(tl, algorithm=algorithm, variant=metric, variant_options=options_for(metric, ilr),
                               init=w, seed=seed * 1000 + it, iterations=None if algorithm == "pro" else mira_epochs)
                    w = r.weights
                    res = pool.corpus_bleu(pool.one_best(w))
                    track.append({"iteration": it, "list_entries": tl.n_entries, "bleu": res.score,
                                  "ratio": res.ratio})
                tracks.append(track)
            last = [t[-1] for t in tracks]
            out["runs"][f"{algorithm}/{metric}"] = {
                "tracks": tracks, "final_bleu": summary([x["bleu"] for x in last]),
                "final_ratio": summary([x["ratio"] for x in last])}
            print(f"C {algorithm:4s} {metric:32s} " + " ".join(f"{x['bleu']:.2f}/{x['ratio']:.3f}" for x in tracks[0])
                  + f"  | final over seeds {statistics.fmean(x['bleu'] for x in last):.2f} / "
                    f"{statistics.fmean(x['ratio'] for x in last):.3f}", flush=True)
    return out


# --------------------------------------------------------------------------- report


def tables(res: dict) -> str:
    lines = []
    a = res.get("A")
    if a:
        lines += [f"### A. Moses scorer list ({a['entries']:,} entries, {a['sources']} sources, 1 reference)", "",
                  (f"Start (Moses init.opt): BLEU {a['start_bleu']:.2f}, length ratio {a['start_ratio']:.3f}; "
                  f"ILR for scaled = {a['ilr']:.3f}. Direct search on corpus BLEU (reference point): BLEU "
                  f"{a['direct_search']['bleu']:.2f} at ratio {a['direct_search']['ratio']:.3f}. Seeds "
                  f"{a['seeds']}: mean (min–max)."), "",
                  "| variant | PRO BLEU | PRO ratio | MIRA BLEU | MIRA ratio |", "|---|---|---|---|---|"]
        for metric in VARIANTS + [CORPUS_LIKE]:
            cells = []
            for alg in ("pro", "mira"):
                run = a["runs"].get(f"{alg}/{metric}")
                if run is None:
                    cells += ["—", "—"]
                    continue
                b, r = run["bleu"], run["ratio"]
                cells += [f"{b['mean']:.2f} ({b['min']:.2f}–{b['max']:.2f})",
                          f"{r['mean']:.3f} ({r['min']:.3f}–{r['max']:.3f})"]
            lines.append(f"| {metric} | " + " | ".join(cells) + " |")
        lines.append("")
    b = res.get("B")
    if b:
        lines += [(f"### B. Moses aggregate lists: 14 iterations accumulated ({b['pool_read']:,} entries read, "
                  f"{b['pool_entries']:,} after removing duplicates, {b['sources']} sources, 3 references)"), "",
                  (f"Start (init.opt) on the pool: BLEU {b['start_bleu']:.2f}, ratio {b['start_ratio']:.3f}. "
                  f"BLEU / ratio of the pool's 1-best after iterations 1, 2, 4, 7, 10, 14 (seed {b['seed']})."), "",
                  "| tuner / variant | it 1 | it 2 | it 4 | it 7 | it 10 | it 14 |", "|---|---|---|---|---|---|---|"]
        for key, track in b["runs"].items():
            pick = [track[i - 1] for i in (1, 2, 4, 7, 10, 14)]
            lines.append(f"| {key} | " + " | ".join(f"{t['bleu']:.1f} / {t['ratio']:.2f}" for t in pick) + " |")
        lines.append("")
    for key in ("C1", "C2", "C3"):
        c = res.get(key)
        if not c:
            continue
        its = c["iterations"]
        show = sorted({1, 2, 3, its // 2, its})
        lines += [f"### C. Synthetic: {c['pool']}, {c['entries']:,} candidates, top-{c['k_best']} per iteration", "",
                  (f"Start: BLEU {c['start_bleu']:.2f}, ratio {c['start_ratio']:.3f}. Direct search on corpus BLEU "
                  f"(reference point): BLEU {c['direct_search']['bleu']:.2f} at ratio "
                  f"{c['direct_search']['ratio']:.3f}. Per iteration: dev BLEU / length ratio of the pool's 1-best, "
                  f"seed {c['seeds'][0]}; last column: iteration {its} over seeds {c['seeds']}, mean (min–max)."), "",
                  "| tuner / variant | " + " | ".join(f"it {i}" for i in show) + " | final BLEU | final ratio |",
                  "|---|" + "---|" * (len(show) + 2)]
        for name, run in c["runs"].items():
            t0 = run["tracks"][0]
            fb, fr = run["final_bleu"], run["final_ratio"]
            lines.append(f"| {name} | " + " | ".join(f"{t0[i - 1]['bleu']:.2f} / {t0[i - 1]['ratio']:.3f}"
                                                      for i in show)
                         + f" | {fb['mean']:.2f} ({fb['min']:.2f}–{fb['max']:.2f}) | {fr['mean']:.3f} "
                           f"({fr['min']:.3f}–{fr['max']:.3f}) |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "tuning_nakov_results")
    ap.add_argument("--quick", action="store_true", help="small synthetic pool, 2 seeds")
    ap.add_argument("--parts", default="A,B,C", help="experiments to run (default: A,B,C)")
    args = ap.parse_args(argv)
    parts = set(args.parts.split(","))
    if parts & {"A", "B"} and not (args.data / "moses_nbest").is_dir():
        ap.error(f"--data: {args.data / 'moses_nbest'} not found; give the shared data folder (or --parts C)")
    t0 = time.perf_counter()
    res: dict = {}
    out_json = args.out.with_suffix(".json")
    if parts != {"A", "B", "C"} and out_json.exists():  # a partial run updates the earlier results
        res = json.loads(out_json.read_text(encoding="utf-8"))
    if "A" in parts:
        res["A"] = experiment_a(args.data, seeds=[1, 2] if args.quick else [1, 2, 3, 4, 5])
    if "B" in parts:
        res["B"] = experiment_b(args.data, seed=1)
    if "C" in parts:
        size = (200, 300) if args.quick else (1000, 400)
        seeds = [1, 2] if args.quick else [1, 2, 3]
        for key, hard in (("C1", 1.0), ("C2", 0.5), ("C3", 0.0)):
            res[key] = experiment_c(*size, k_best=100, iterations=4 if args.quick else 6, hard_drop=hard,
                                    seeds=seeds, mira_epochs=10, search_steps=100 if args.quick else 400)
    seconds = res.get("seconds", {})
    res["seconds"] = seconds if isinstance(seconds, dict) else {"A,B,C": seconds}
    res["seconds"][",".join(sorted(parts))] = time.perf_counter() - t0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    text = tables(res)
    args.out.with_suffix(".md").write_text(
        "<!-- generated by examples/tune_nakov.py; do not edit -->\n\n" + text, encoding="utf-8")
    print(text)
    print(f"total {time.perf_counter() - t0:.0f} s; wrote {args.out.with_suffix('.json')} and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
