"""Paper-sized ΔBLEU correlation study from cached statistics, and the naive way for comparison.

The study of Galley et al. (2015, section 5) at the paper's size: 12 system pairs x 2,114
segments, unit size M = 100 (21 units per pair, 252 observations), 1,000 assignments, nine
metrics (BLEU, sBLEU = mean sacreBLEU-style sentence BLEU, and ΔBLEU, each with the single /
w >= 0 / all reference views), Spearman ρ and Kendall τ-b, with 1,000 bootstrap replicates
over observations for interval (c).

Data (deterministic, synthetic; nothing is read from disk): ``generate.py``'s Zipfian
vocabulary and edit model. 2,114 hidden sources; 4 references per segment (weights: the
first 1.0, the others uniform in [-1, 1]); 6 systems whose per-segment edit rate is
``(0.6 + 0.15 s) x lognormal(0, 0.5)``; human score = -(edit rate) + N(0, 0.5), one decimal.
The 12 pairs are the first 12 of the 15 pairs of the 6 systems.

Timed, in one process:

  statistics   compute_stats once per reference view (numba JIT warm-up timed separately)
  metrics      corpus_metric / sentence_mean_metric for the nine metrics (sentence scores)
  study        correlation_study(...), everything after the statistics (the target: <= 10 s)
  naive        sacreBLEU 2.6.0 recomputing every unit from the texts, as a study without
               cached statistics must: for a sample of units of the study's first assignment
               (the units are rebuilt from the study's documented seed streams), per unit and
               per system of its pair and per view, ``BLEU.corpus_score`` on the unit's
               segments (BLEU) and ``BLEU.sentence_score`` per segment (sBLEU). sacreBLEU has
               no ΔBLEU, so ΔBLEU is charged the BLEU time of the same unit (a lower bound:
               ΔBLEU also weights every match). The per-unit time is extrapolated to
               12 pairs x 21 units x 1,000 assignments; correlations are not included
               (they are the same either way), so the ratio is a lower bound.

With ``--ted`` it times the TED-sized study of issue 16 instead: 13 systems (all 78 pairs) x 529
segments, the same nine metrics, unit sizes M = 1, 10 and 100, 1,000 assignments and 1,000 bootstrap
replicates each (target: the three studies within 30 s on this project's 2-core machine), then the
paired comparison ΔBLEU [all] vs BLEU [all] with 1,000 replicates of each of its three resamplings,
per unit size (``timings['comparisons']``). Medians of ``--repeats`` runs.

With ``--ted-cli`` it times the whole ``bleustats study`` process on the TED-sized tables of issue 28
(the same synthetic data written as TSV: 13 systems x 529 segments, four references whose own human
scores give the ΔBLEU weights through ``--weight-transform linear:12.5``, ``--single-ref ref-0``,
M = 1, 10, 100, ``--compare delta_bleu:all,bleu:all``), wall and CPU seconds of each fresh process
(the target: <= 30 s wall). ``--baseline-src DIR`` times another source tree (e.g. a ``git archive``
of main) in the same run, interleaved, and checks that both write the same result files byte for byte.

Usage::

    python benchmarks/bench_study.py                  # writes benchmarks/results/study.json / .md
    python benchmarks/bench_study.py --naive-units 10 --repeats 1
    python benchmarks/bench_study.py --ted --repeats 3   # writes benchmarks/results/study_ted.json / .md
    python benchmarks/bench_study.py --ted-cli --baseline-src /tmp/main --repeats 3   # prints JSON
"""

from __future__ import annotations

import argparse
import datetime as _dt
import itertools
import json
import os
import platform
import sys
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
RESULTS = os.path.join(HERE, "results")

N_SEG = 2114
N_SYS = 6
N_REF = 4
N_PAIRS = 12
THETA = 0.0
VIEWS = {"single": dict(ref_view="first"), f"w≥{THETA:g}": dict(ref_view="threshold", weight_threshold=THETA),
         "all": dict(ref_view="all")}


def make_data(seed: int = 20150701, *, n_seg: int = N_SEG, n_sys: int = N_SYS, n_pairs: int = N_PAIRS):
    import generate as g

    N_SEG, N_SYS, N_PAIRS = n_seg, n_sys, n_pairs  # noqa: N806 - the paper-sized names, locally resized
    vocab = g.Vocab(20000, seed)
    rng = np.random.default_rng(seed)
    src, lens = g.make_sources(vocab, rng, N_SEG)
    refs = []
    for _ in range(N_REF):
        t, ln = g.apply_edits(vocab, rng, src, lens, g.REF_RATES)
        refs.append(g.render(vocab, rng, t, ln).decode().split("\n")[:-1])
    hyps, human = [], []
    for s in range(N_SYS):
        scale = (0.6 + 0.15 * s) * rng.lognormal(0.0, 0.5, N_SEG)
        t, ln = g._edits_scaled(vocab, rng, src, lens, scale)
        hyps.append(g.render(vocab, rng, t, ln).decode().split("\n")[:-1])
        human.append(np.round(-scale + rng.normal(0.0, 0.5, N_SEG), 1))
    systems = [f"sys{s}" for s in range(N_SYS)]
    weights = rng.uniform(-1, 1, (N_SEG, N_REF))
    weights[:, 0] = 1.0
    hyp_df = pd.DataFrame({"seg_id": np.tile(np.arange(N_SEG), N_SYS), "system": np.repeat(systems, N_SEG),
                           "text": [h for hs in hyps for h in hs]})
    ref_df = pd.DataFrame({"seg_id": np.repeat(np.arange(N_SEG), N_REF),
                           "ref_id": np.tile([str(k) for k in range(N_REF)], N_SEG),
                           "weight": weights.ravel(), "text": [refs[k][i] for i in range(N_SEG) for k in range(N_REF)]})
    human_df = pd.DataFrame({"system": hyp_df["system"], "seg_id": hyp_df["seg_id"], "score": np.concatenate(human)})
    pairs = list(itertools.combinations(systems, 2))[:N_PAIRS]
    return hyp_df, ref_df, human_df, pairs, hyps, refs, weights


def naive_sample(hyps, refs, weights, pairs, n_units, seed, unit_size, n_assignments, study_result):
    """sacreBLEU on a sample of the study's own units; returns seconds per unit and a check."""
    from sacrebleu.metrics import BLEU

    from bleustats.meta.resample import unit_partitions

    bleu = BLEU()
    sent = BLEU(effective_order=True)
    part, _ = np.random.SeedSequence(seed).spawn(2)
    pair_seeds = part.spawn(len(pairs))
    # the study's shared segments of a pair are all N_SEG segments, in seg_id order
    units = [unit_partitions(N_SEG, unit_size, n_assignments=1, seed=pair_seeds[p])[0] for p in range(len(pairs))]
    sample = [(p, u) for u in range(N_SEG // unit_size) for p in range(len(pairs))][:n_units]
    view_refs = {
        "single": lambda segs: [[refs[0][i] for i in segs]],
        f"w≥{THETA:g}": lambda segs: [[refs[k][i] if weights[i, k] >= THETA else None for i in segs]
                                      for k in range(N_REF)],
        "all": lambda segs: [[refs[k][i] for i in segs] for k in range(N_REF)],
    }
    sys_index = {f"sys{s}": s for s in range(N_SYS)}
    scores = []
    t0 = time.perf_counter()
    for p, u in sample:
        segs = units[p][u]
        for system in pairs[p]:
            h = [hyps[sys_index[system]][i] for i in segs]
            for view, make in view_refs.items():
                r = make(segs)
                b = bleu.corpus_score(h, r).score                     # BLEU
                s = float(np.mean([sent.sentence_score(h[j], [x[j] for x in r if x[j] is not None]).score
                                   for j in range(len(h))]))          # sBLEU
                scores.append((system, view, b, s))
    seconds = time.perf_counter() - t0
    per_unit_measured = seconds / len(sample)
    # ΔBLEU: charged the same unit's BLEU time again (sacreBLEU has no ΔBLEU)
    t1 = time.perf_counter()
    for p, u in sample:
        segs = units[p][u]
        for system in pairs[p]:
            h = [hyps[sys_index[system]][i] for i in segs]
            for make in view_refs.values():
                bleu.corpus_score(h, make(segs))
    delta_seconds = time.perf_counter() - t1
    return {"units_timed": len(sample), "seconds_bleu_sbleu": seconds, "seconds_delta_as_bleu": delta_seconds,
            "seconds_per_unit": (seconds + delta_seconds) / len(sample),
            "seconds_per_unit_bleu_sbleu": per_unit_measured, "first_scores": scores[:3]}


def study_metrics(hyp_df, ref_df):
    """Statistics per reference view and the study's metrics over them, with the time of each step."""
    from bleustats.engine.stats import compute_stats
    from bleustats.meta import study

    t = time.perf_counter()
    stats = {v: compute_stats(hyp_df, ref_df, **o) for v, o in VIEWS.items()}
    t_stats = time.perf_counter() - t
    t = time.perf_counter()
    metrics = []
    for view, st in stats.items():
        metrics += [study.corpus_metric(st, refs=view), study.sentence_mean_metric(st, refs=view),
                    study.corpus_metric(st, metric="delta_bleu", refs=view)]
    return stats, metrics, t_stats, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assignments", type=int, default=1000)
    ap.add_argument("--unit-size", type=int, default=100)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--naive-units", type=int, default=24, help="units timed with sacreBLEU")
    ap.add_argument("--name", default=None)
    ap.add_argument("--ted", action="store_true", help="the TED-sized study of issue 16 (M = 1, 10, 100)")
    ap.add_argument("--ted-cli", action="store_true",
                    help="the TED-sized `bleustats study` command line of issue 28, whole process")
    ap.add_argument("--baseline-src", default=None, metavar="DIR",
                    help="with --ted-cli: also time this bleustats source tree (its src/), interleaved")
    args = ap.parse_args(argv)
    if args.ted_cli:
        return ted_cli(args)
    if args.ted:
        return ted(args)
    args.name = args.name or "study"

    import numba
    import sacrebleu
    import scipy

    import bleustats
    from bleustats.engine.stats import compute_stats
    from bleustats.meta import report, study
    from bleustats.metrics.tables import corpus_score

    t = time.perf_counter()
    hyp_df, ref_df, human_df, pairs, hyps, refs, weights = make_data()
    t_data = time.perf_counter() - t
    print(f"data: {len(hyp_df)} hypotheses, {len(ref_df)} references ({t_data:.1f}s)", file=sys.stderr)

    t = time.perf_counter()
    compute_stats(["a b c"], [["a b c"]])  # numba JIT (cached) warm-up
    t_jit = time.perf_counter() - t
    stats, metrics, t_stats, t_metrics = study_metrics(hyp_df, ref_df)
    print(f"statistics {t_stats:.2f}s (JIT warm-up {t_jit:.2f}s), metrics {t_metrics:.2f}s", file=sys.stderr)

    study.correlation_study(metrics[:1], human_df, unit_size=args.unit_size, n_assignments=2, pairs=pairs,
                            n_bootstrap=2)  # imports (scipy.stats) and first calls
    runs, result = [], None
    for r in range(args.repeats):
        t = time.perf_counter()
        result = study.correlation_study(metrics, human_df, unit_size=args.unit_size,
                                         n_assignments=args.assignments, seed=args.seed, pairs=pairs,
                                         n_bootstrap=args.bootstrap)
        runs.append({"seconds": time.perf_counter() - t, **{k: round(v, 3) for k, v in result.timings.items()}})
        print(f"study run {r + 1}: {runs[-1]['seconds']:.2f}s {result.timings}", file=sys.stderr)
    best = min(x["seconds"] for x in runs)

    naive = naive_sample(hyps, refs, weights, pairs, args.naive_units, args.seed, args.unit_size, 1, result)
    total_units = result.n_observations * args.assignments
    naive_total = naive["seconds_per_unit"] * total_units
    # sanity: sacreBLEU's BLEU of the first sampled unit equals bleustats' on the same rows
    part, _ = np.random.SeedSequence(args.seed).spawn(2)
    from bleustats.meta.resample import unit_partitions
    seg0 = unit_partitions(N_SEG, args.unit_size, seed=part.spawn(len(pairs))[0])[0][0]
    st = stats["all"]
    rows = np.flatnonzero((st.column("system") == pairs[0][0]) & np.isin(st.column("seg_id"), seg0))
    check = {"sacrebleu": naive["first_scores"][2][2],
             "bleustats": corpus_score(st, rows=rows).score}
    print(f"naive: {naive['seconds_per_unit']:.3f}s per unit x {total_units} units = {naive_total:.0f}s; "
          f"ratio {naive_total / best:.0f}x; check {check}", file=sys.stderr)

    out = {
        "benchmark": "bench_study",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average_before": os.getloadavg(), "numba_threads": numba.get_num_threads()},
        "versions": {"bleustats": bleustats.__version__, "sacrebleu": sacrebleu.__version__,
                     "numpy": np.__version__, "scipy": scipy.__version__, "numba": numba.__version__},
        "size": {"segments": N_SEG, "systems": N_SYS, "pairs": len(pairs), "references": N_REF,
                 "unit_size": args.unit_size, "assignments": args.assignments, "bootstrap": args.bootstrap,
                 "metrics": [m.label for m in metrics], "observations": result.n_observations},
        "seconds": {"data": t_data, "jit_warmup": t_jit, "statistics": t_stats, "metrics": t_metrics,
                    "study_runs": runs, "study_best": best,
                    "study_plus_metrics_best": best + t_metrics},
        "naive": {**naive, "units_total": total_units, "seconds_extrapolated": naive_total,
                  "ratio_vs_study": naive_total / best,
                  "ratio_vs_statistics_metrics_study": naive_total / (t_stats + t_metrics + best)},
        "check_first_unit_bleu": check,
        "summary": report.records(result.summary),
    }
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"{args.name}.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)
    md = [
        "# Paper-sized correlation study (`benchmarks/bench_study.py`)", "",
        f"{out['date']}, {os.cpu_count()} CPUs (shared; load average before the run "
        f"{', '.join(f'{x:.2f}' for x in out['machine']['load_average_before'])}), "
        f"bleustats {bleustats.__version__}, sacreBLEU {sacrebleu.__version__}, numpy {np.__version__}.", "",
        f"{len(pairs)} system pairs x {N_SEG} segments, M = {args.unit_size} "
        f"({result.n_observations} observations per assignment), {args.assignments} assignments, "
        f"{len(metrics)} metrics (BLEU, sBLEU, ΔBLEU x single / w≥{THETA:g} / all), Spearman ρ and Kendall τ-b, "
        f"{args.bootstrap} bootstrap replicates. Synthetic deterministic data (see the script's docstring).", "",
        "| stage | seconds |", "|---|---|",
        f"| statistics, 3 reference views (once; JIT warm-up {t_jit:.2f} s apart) | {t_stats:.2f} |",
        f"| metric inputs (sentence scores etc.) | {t_metrics:.2f} |",
        *[f"| **study**, run {i + 1} (units {x['units']:.2f} s, correlations {x['correlations']:.2f} s) | "
          f"**{x['seconds']:.2f}** |" for i, x in enumerate(runs)],
        f"| naive: sacreBLEU per unit, {naive['units_timed']} units timed, extrapolated to {total_units:,} "
        f"units | {naive_total:,.0f} |", "",
        f"Ratio naive / study (best run): **{naive_total / best:,.0f}x**; naive / (statistics + metric inputs + "
        f"study): {out['naive']['ratio_vs_statistics_metrics_study']:,.0f}x. The naive time is "
        f"extrapolated from {naive['units_timed']} units ({naive['seconds_per_unit']:.3f} s per unit for "
        "2 systems x 3 views x (BLEU + sBLEU + ΔBLEU charged as BLEU)) and leaves out the correlations, so "
        "it is a lower bound.", "",
        f"Check: BLEU of the first sampled unit, sacreBLEU {check['sacrebleu']:.10f} vs bleustats "
        f"{check['bleustats']:.10f}.", "",
        "| metric | ρ | τ |", "|---|---|---|",
        *[f"| {r['label']} | {r['rho']:.3f} ({r['rho_fisher_low']:.3f}, {r['rho_fisher_high']:.3f}) | "
          f"{r['tau']:.3f} ({r['tau_fisher_low']:.3f}, {r['tau_fisher_high']:.3f}) |"
          for r in out["summary"]],
    ]
    with open(os.path.join(RESULTS, f"{args.name}.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


def ted(args) -> int:
    """78 pairs x 529 segments, nine metrics, M = 1, 10, 100: the study, then the paired comparison."""
    import numba
    import scipy

    import bleustats
    from bleustats.engine.stats import compute_stats
    from bleustats.meta import study

    name = args.name or "study_ted"
    n_seg, n_sys = 529, 13
    t = time.perf_counter()
    hyp_df, ref_df, human_df, pairs, *_ = make_data(n_seg=n_seg, n_sys=n_sys, n_pairs=n_sys * (n_sys - 1) // 2)
    t_data = time.perf_counter() - t
    t = time.perf_counter()
    compute_stats(["a b c"], [["a b c"]])  # numba JIT (cached) warm-up
    tiny = human_df[human_df["seg_id"] < 6]
    tiny_stats = compute_stats(hyp_df[hyp_df["seg_id"] < 6], ref_df[ref_df["seg_id"] < 6])
    for m in (1, 2):
        study.correlation_study([study.corpus_metric(tiny_stats), study.corpus_metric(tiny_stats, metric="delta_bleu")],
                                tiny, unit_size=m, n_assignments=3, n_bootstrap=3,
                                compare=[("ΔBLEU [all]", "BLEU [all]")], n_compare_bootstrap=3)
    t_jit = time.perf_counter() - t
    stats, metrics, t_stats, t_metrics = study_metrics(hyp_df, ref_df)
    print(f"data {t_data:.1f}s, JIT warm-up {t_jit:.1f}s, statistics {t_stats:.2f}s, metrics {t_metrics:.2f}s",
          file=sys.stderr)
    sizes = (1, 10, 100)
    opts = dict(n_assignments=args.assignments, n_bootstrap=args.bootstrap, seed=args.seed)
    runs: list[dict] = []
    for r in range(args.repeats):
        run = {"load_average": os.getloadavg()[0]}
        for m in sizes:
            t = time.perf_counter()
            res = study.correlation_study(metrics, human_df, unit_size=m, **opts)
            run[f"M={m}"] = {"seconds": time.perf_counter() - t, **{k: round(v, 3) for k, v in res.timings.items()},
                             "observations": res.n_observations}
        run["study_total"] = sum(run[f"M={m}"]["seconds"] for m in sizes)
        for m in sizes:
            res = study.correlation_study(metrics, human_df, unit_size=m, compare=[("ΔBLEU [all]", "BLEU [all]")],
                                          n_compare_bootstrap=args.bootstrap, **opts)
            run[f"compare M={m}"] = round(res.timings["comparisons"], 3)
            run[f"compare M={m} rho"] = {k: (v.item() if isinstance(v, np.generic) else v)
                                         for k, v in res.comparisons.iloc[0].items() if k != "signature"}
        runs.append(run)
        print(f"run {r + 1}: " + ", ".join(f"M={m} {run[f'M={m}']['seconds']:.2f}s" for m in sizes)
              + f", total {run['study_total']:.2f}s; compare " + ", ".join(f"M={m} {run[f'compare M={m}']:.2f}s"
                                                                          for m in sizes), file=sys.stderr)
    med = lambda key, sub=None: float(np.median([x[key] if sub is None else x[key][sub] for x in runs]))  # noqa: E731
    out = {
        "benchmark": "bench_study --ted",
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "numba_threads": numba.get_num_threads()},
        "versions": {"bleustats": bleustats.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                     "numba": numba.__version__},
        "size": {"segments": n_seg, "systems": n_sys, "pairs": len(pairs), "references": N_REF,
                 "unit_sizes": list(sizes), "assignments": args.assignments, "bootstrap": args.bootstrap,
                 "metrics": [m.label for m in metrics]},
        "seconds": {"data": t_data, "jit_warmup": t_jit, "statistics": t_stats, "metrics": t_metrics,
                    "runs": runs, "median_study_total": med("study_total"),
                    **{f"median_M={m}": med(f"M={m}", "seconds") for m in sizes},
                    **{f"median_compare_M={m}": med(f"compare M={m}") for m in sizes}},
    }
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, f"{name}.json"), "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)
    loads = ", ".join(f"{x['load_average']:.1f}" for x in runs)
    lines = [
        "# TED-sized correlation study (`benchmarks/bench_study.py --ted`)", "",
        f"{out['date']}, {os.cpu_count()} CPUs shared with other sessions (1-minute load average before each run: "
        f"{loads}), numba on {numba.get_num_threads()} threads, "
        f"bleustats {bleustats.__version__}, numpy {np.__version__}.", "",
        f"{len(pairs)} system pairs x {n_seg} segments, {len(metrics)} metrics (BLEU, sBLEU, ΔBLEU x single / "
        f"w≥{THETA:g} / all), {args.assignments} assignments, {args.bootstrap} bootstrap replicates, Spearman ρ "
        f"and Kendall τ-b. Synthetic deterministic data (`make_data`). Median of {len(runs)} run(s); "
        f"statistics {t_stats:.2f} s and metric inputs {t_metrics:.2f} s once, JIT warm-up {t_jit:.1f} s apart.", "",
        "| unit size | observations | inputs | units | correlations + bootstrap | study | comparison (3 x "
        f"{args.bootstrap} replicates) |", "|---|---|---|---|---|---|---|",
        *[f"| M = {m} | {runs[0][f'M={m}']['observations']:,} | {med(f'M={m}', 'inputs'):.2f} | "
          f"{med(f'M={m}', 'units'):.2f} | {med(f'M={m}', 'correlations'):.2f} | **{med(f'M={m}', 'seconds'):.2f}** | "
          f"{med(f'compare M={m}'):.2f} |" for m in sizes],
        f"| **all three** | | | | | **{med('study_total'):.2f}** | |", "",
    ]
    with open(os.path.join(RESULTS, f"{name}.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def ted_cli_tables(folder: str) -> list[str]:
    """Write the TED-sized tables (13 systems x 529 segments, 4 references rated) and return the command."""
    hyp_df, ref_df, human_df, *_ = make_data(n_seg=529, n_sys=13, n_pairs=78)
    ref_df = ref_df.assign(ref_id="ref-" + ref_df["ref_id"])
    # the references' own human scores, which linear:12.5 maps back to the weights (top = ref-0's 0)
    rated = pd.DataFrame({"ref_id": ref_df["ref_id"], "seg_id": ref_df["seg_id"],
                          "score": 12.5 * (ref_df["weight"] - 1.0)})
    paths = {k: os.path.join(folder, f"{k}.tsv") for k in ("hyps", "refs", "human", "ref_scores")}
    hyp_df.to_csv(paths["hyps"], sep="\t", index=False, quoting=3)
    ref_df[["ref_id", "seg_id", "text"]].to_csv(paths["refs"], sep="\t", index=False, quoting=3)
    human_df.to_csv(paths["human"], sep="\t", index=False, quoting=3)
    rated.to_csv(paths["ref_scores"], sep="\t", index=False, quoting=3)
    return ["study", "--hypotheses", paths["hyps"], "--references", paths["refs"], "--human", paths["human"],
            "--ref-weights-from", paths["ref_scores"], "--weight-transform", "linear:12.5", "--single-ref", "ref-0",
            "--unit-sizes", "1,10,100", "--compare", "delta_bleu:all,bleu:all", "--overwrite"]


def ted_cli(args) -> int:
    """``bleustats study`` on the TED-sized tables in fresh processes: wall and CPU seconds, outputs compared."""
    import filecmp
    import resource
    import subprocess
    import tempfile

    tmp = tempfile.mkdtemp(prefix="bench_study_cli_")
    cmd = ted_cli_tables(tmp)
    trees = {"current": os.path.join(os.path.dirname(HERE), "src")}
    if args.baseline_src:
        trees = {"baseline": os.path.abspath(os.path.join(args.baseline_src, "src")), **trees}
    rows = []
    for tree, src in trees.items():  # one untimed run each: numba's cache, the outputs to compare
        env = {**os.environ, "PYTHONPATH": src}
        subprocess.run([sys.executable, "-m", "bleustats", *cmd, "-o", os.path.join(tmp, f"out_{tree}")],
                       env=env, check=True, capture_output=True)
    for r in range(args.repeats):
        for tree, src in trees.items():
            env = {**os.environ, "PYTHONPATH": src}
            load = os.getloadavg()[0]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "bleustats", *cmd, "-o", os.path.join(tmp, f"out_{tree}_{r}")],
                           env=env, check=True, capture_output=True)
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            rows.append({"tree": tree, "run": r + 1, "load": load, "wall": wall, "cpu": cpu})
            print(f"{tree} run {r + 1}: wall {wall:.1f}s, CPU {cpu:.1f}s (load {load:.1f})", file=sys.stderr)
    same = None
    if "baseline" in trees:
        out_b, out_c = os.path.join(tmp, "out_baseline"), os.path.join(tmp, "out_current")
        # every result file but the figures and study.json (which holds the timings)
        numbers = [f for f in sorted(os.listdir(out_c)) if f.endswith((".csv", ".parquet", ".md", ".json"))
                   and f != "study.json"]
        same = {f: filecmp.cmp(os.path.join(out_b, f), os.path.join(out_c, f), shallow=False) for f in numbers}
        print(f"outputs identical: {same}", file=sys.stderr)
    med = {tree: {k: float(np.median([x[k] for x in rows if x["tree"] == tree])) for k in ("wall", "cpu")}
           for tree in trees}
    print(json.dumps({"command": "bleustats " + " ".join(cmd), "runs": rows, "median": med, "identical": same},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
