#!/usr/bin/env python3
"""Meta-evaluation on WMT21 news MQM (en-de, zh-en): ``bleustats correlate`` and mt-metrics-eval, same run.

Data: ``<shared>/data/wmt21_news/{en-de,zh-en}``: the 8 MQM-rated systems of each pair on their rated
segments (527 and 650), the references of ``references.tsv`` (en-de ref-A, ref-C, ref-D; zh-en ref-A),
the MQM scores (the references' own MQM scores give ΔBLEU's weights, ``linear:12.5``).

Steps, all in this process:

1. write the inputs with an ``lp`` column into ``--work`` (default: a temporary folder);
2. sentence scores computed the way mt-metrics-eval treats BLEU / chrF / TER (one score per segment:
   sentence BLEU with sacreBLEU's defaults, sentence chrF / chrF++, minus sentence TER as column neg-sentTER),
   as an external ``--scores`` table;
3. ``bleustats correlate`` as a child process (whole process timed): corpus BLEU, ΔBLEU, chrF, chrF++, TER from
   the texts and the sentence scores; ``--method pa --method spa --method kendall --variant acc23
   --tie-calibration --grouping item --rank``, 1,000 permutations and PERM-BOTH samples;
4. the same SPA computation on the sentence scores (the part both tools can do): mt-metrics-eval's
   ``stats.PairwiseConfidenceError(gold, metric, num_sys=8, num_permutations=1000)`` per metric and pair,
   against bleustats' ``pairwise_p_values`` + ``spa`` in this process; both timed, both values kept.

5. a WMT-sized synthetic run through the API (``--wmt-sized``, on by default): 15 systems × 1,300 segments
   (``bench_study.make_data``), 10 metrics (corpus BLEU, chrF, TER from statistics, sBLEU, 6 noisy external
   scores), PA, SPA with 1,000 permutations per system pair, tie-calibrated acc23 by item, rank clusters;
   statistics and meta-evaluation timed apart.

mt-metrics-eval runs from a local copy (``--mtme``: the folder holding ``mt_metrics_eval/``, e.g. a checkout of
google-research/mt-metrics-eval; never ``pip install mt-metrics-eval``, an unrelated PyPI package).

Usage::

    python benchmarks/bench_meta.py --shared /work/shared --mtme /path/to/mt-metrics-eval \\
        --json benchmarks/results/meta.json --markdown benchmarks/results/meta.md
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

LPS = ("en-de", "zh-en")
SENTENCE = {"sentBLEU": "bleu", "sent-chrF": "chrf", "sent-chrF++": "chrf++", "neg-sentTER": "ter"}


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", quoting=csv.QUOTE_NONE, dtype={"system": str, "ref": str, "text": str},
                       keep_default_na=False)


def prepare(shared: Path, work: Path) -> dict:
    """Write hyps / refs / human / sentence-score tables with an lp column; return the grids for SPA."""
    from bleustats.engine.stats import compute_stats
    from bleustats.metrics.tables import sentence_scores

    hyps_all, refs_all, human_all, sent_all, grids = [], [], [], [], {}
    for lp in LPS:
        d = shared / "data" / "wmt21_news" / lp
        mqm = _read(d / "mqm_seg_scores.tsv")
        refs = _read(d / "references.tsv").rename(columns={"ref": "ref_id"})
        ref_ids = set(refs["ref_id"])
        systems = sorted(s for s in set(mqm["system"]) if s not in ref_ids and not s.startswith("metricsystem")
                         and not s.startswith("ref-"))
        mqm = mqm[mqm["system"].isin(set(systems) | ref_ids)]
        mqm = mqm.assign(score=pd.to_numeric(mqm["score"]))
        rated = set(mqm.loc[mqm["system"].isin(systems), "seg_id"])
        out = _read(d / "system_outputs.tsv")
        hyps = out[out["system"].isin(systems) & out["seg_id"].isin(rated)][["seg_id", "system", "text"]]
        refs = refs[refs["seg_id"].isin(rated)]
        hyps_all.append(hyps.assign(lp=lp))
        refs_all.append(refs[["ref_id", "seg_id", "text"]].assign(lp=lp))
        human_all.append(mqm[["system", "seg_id", "score"]].assign(lp=lp))
        st = compute_stats(hyps, refs, metrics=("bleu", "chrf"))
        stp = compute_stats(hyps, refs, metrics=("bleu", "chrf++", "ter"))
        sent = pd.DataFrame({"system": st.column("system"), "seg_id": st.column("seg_id")})
        sent["sentBLEU"] = sentence_scores(st)
        sent["sent-chrF"] = sentence_scores(st, metric="chrf")
        sent["sent-chrF++"] = sentence_scores(stp, metric="chrf++")
        sent["neg-sentTER"] = -sentence_scores(stp, metric="ter")
        sent_all.append(sent.assign(lp=lp))
        # (systems, segments) grids for the SPA comparison, systems and segments sorted
        h = mqm[mqm["system"].isin(systems)].pivot(index="system", columns="seg_id", values="score")
        grids[lp] = {"human": h.loc[systems].to_numpy(np.float64)}
        for col in SENTENCE:
            grids[lp][col] = sent.pivot(index="system", columns="seg_id", values=col).loc[systems, h.columns] \
                .to_numpy(np.float64)
    for name, frames in (("hyps", hyps_all), ("refs", refs_all), ("human", human_all), ("sentence", sent_all)):
        pd.concat(frames, ignore_index=True).to_csv(work / f"{name}.tsv", sep="\t", index=False,
                                                    quoting=csv.QUOTE_NONE)
    return grids


def run_correlate(work: Path, permutations: int, samples: int) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "bleustats", "correlate", "--human", str(work / "human.tsv"),
           "--hypotheses", str(work / "hyps.tsv"), "--references", str(work / "refs.tsv"),
           "--scores", str(work / "sentence.tsv"), "--ref-weights-from", str(work / "human.tsv"),
           "--weight-transform", "linear:12.5", "--undefined", "exclude",
           *sum((["-m", m] for m in ("bleu", "delta_bleu", "chrf", "chrf++", "ter")), []),
           *sum((["--metric-column", f"{m}:all"] for m in ("bleu", "delta_bleu", "chrf", "chrf++", "ter")), []),
           *sum((["--metric-column", c] for c in SENTENCE), []),
           "--method", "pa", "--method", "spa", "--method", "kendall", "--variant", "acc23", "--tie-calibration",
           "--grouping", "item", "--rank", "--permutations", str(permutations), "--samples", str(samples),
           "--json", "-o", str(work / "correlate.json")]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"bleustats correlate failed ({proc.returncode}): {proc.stderr}")
    return wall, json.loads((work / "correlate.json").read_text())


def spa_both(grids: dict, mtme: Path, permutations: int) -> dict:
    """SPA of the sentence scores: mt-metrics-eval's PairwiseConfidenceError against bleustats, timed."""
    sys.path.insert(0, str(mtme))
    from mt_metrics_eval import stats as mtme_stats

    from bleustats.meta.pairwise_accuracy import pairwise_p_values, permutation_masks, spa

    out: dict = {"mtme": {}, "bleustats": {}, "time_mtme_s": 0.0, "time_bleustats_s": 0.0}
    for lp, g in grids.items():
        n_sys = g["human"].shape[0]
        gold = [float(x) for x in g["human"].ravel()]
        t0 = time.perf_counter()
        for col in SENTENCE:
            out["mtme"][f"{lp}/{col}"] = float(mtme_stats.PairwiseConfidenceError(
                gold, [float(x) for x in g[col].ravel()], num_sys=n_sys, num_permutations=permutations)[0])
        out["time_mtme_s"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        masks = permutation_masks(g["human"].shape[1], permutations, seed=12345)
        hp = pairwise_p_values(g["human"], masks)
        for col in SENTENCE:
            out["bleustats"][f"{lp}/{col}"] = spa(hp, pairwise_p_values(g[col], masks))
        out["time_bleustats_s"] += time.perf_counter() - t0
    return out


def wmt_sized(permutations: int, samples: int) -> dict:
    """15 systems x 1,300 segments x 10 metrics through the API: statistics, then the meta-evaluation."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_study import make_data

    from bleustats.engine.stats import compute_stats
    from bleustats.meta.metric_correlations import metric_correlations
    from bleustats.meta.rank_clusters import rank_clusters
    from bleustats.meta.units import corpus_metric, mean_metric, sentence_mean_metric

    hyps, refs, human, *_ = make_data(7, n_seg=1300, n_sys=15, n_pairs=1)
    t0 = time.perf_counter()
    st = compute_stats(hyps, refs.drop(columns="weight"), metrics=("bleu", "chrf", "ter"))
    t_stats = time.perf_counter() - t0
    metrics = [corpus_metric(st), corpus_metric(st, metric="chrf"), corpus_metric(st, metric="ter"),
               sentence_mean_metric(st)]
    rng = np.random.default_rng(0)
    h = human["score"].to_numpy()
    for k in range(6):
        metrics.append(mean_metric(human["system"], human["seg_id"], h + rng.normal(0, 0.5 + 0.3 * k, len(h)),
                                   metric=f"ext{k}"))
    t0 = time.perf_counter()
    res = metric_correlations(metrics, human, methods=("pa", "spa", "kendall"), kendall_variants=("acc23",),
                              groupings=("item",), tie_calibration=True, n_permutations=permutations)
    t_corr = time.perf_counter() - t0
    t0 = time.perf_counter()
    ranks, _ = rank_clusters(res, n_samples=samples)
    t_rank = time.perf_counter() - t0
    return {"systems": 15, "segments": 1300, "metrics": len(metrics), "time_statistics_s": t_stats,
            "time_correlations_s": t_corr, "time_ranks_s": t_rank, "rows": len(res.correlations)}


def markdown(res: dict) -> str:
    corr = pd.DataFrame(res["correlate"]["correlations"])
    lines = ["# Meta-evaluation on WMT21 news MQM: bleustats correlate and mt-metrics-eval (one run)", "",
             f"{res['date']}, {res['machine']}; mt-metrics-eval @ {res['mtme_commit']}; "
             f"{res['permutations']} permutations, {res['samples']} PERM-BOTH samples.", "",
             "| step | seconds |", "|---|---|",
             f"| `bleustats correlate` whole process (statistics from the texts, both pairs, PA, SPA, "
             f"tie-calibrated acc23, rank clusters) | {res['time_correlate_s']:.1f} |",
             f"| SPA of the 4 sentence-score metrics × 2 pairs, mt-metrics-eval `PairwiseConfidenceError` | "
             f"{res['spa']['time_mtme_s']:.2f} |",
             f"| the same SPA, bleustats `pairwise_p_values` + `spa` (in process) | "
             f"{res['spa']['time_bleustats_s']:.3f} |", "",
             "SPA of summed sentence scores on all rated segments, the two implementations (1,000 permutations "
             "each, Monte Carlo error about ±0.01):", "",
             "| pair / metric | mt-metrics-eval | bleustats |", "|---|---|---|"]
    for key, v in res["spa"]["mtme"].items():
        lines.append(f"| {key} | {v:.4f} | {res['spa']['bleustats'][key]:.4f} |")
    if res.get("wmt_sized"):
        w = res["wmt_sized"]
        lines += ["", f"WMT-sized synthetic run through the API ({w['systems']} systems × {w['segments']} segments, "
                  f"{w['metrics']} metrics incl. corpus BLEU / chrF / TER; PA, SPA with {res['permutations']} "
                  f"permutations per system pair, tie-calibrated acc23 by item, rank clusters with "
                  f"{res['samples']} samples):", "",
                  "| step | seconds |", "|---|---|",
                  f"| statistics (BLEU + chrF + TER columns, 19,500 hypotheses × 4 references) | "
                  f"{w['time_statistics_s']:.1f} |",
                  f"| metric_correlations (PA, SPA, tie-calibrated acc23 at system and segment level) | "
                  f"{w['time_correlations_s']:.1f} |",
                  f"| rank_clusters | {w['time_ranks_s']:.1f} |"]
    lines += ["", "bleustats correlate (value; tie-calibrated ε; rank cluster). Its cells leave out the segments "
              "where ΔBLEU is undefined (`--undefined exclude`: no reference of positive weight), for every metric; "
              "`[external]` rows are the sentence scores above, summed as mt-metrics-eval does.", ""]
    ranks = pd.DataFrame(res["correlate"].get("ranks", []))
    for lp in list(res["correlate"]["lps"]) + ["global"]:
        sub = corr[corr["lp"] == lp]
        if not len(sub):
            continue
        lines += [f"## {lp}", "", "| metric | column | value | ε | rank |", "|---|---|---|---|---|"]
        for _, r in sub.iterrows():
            col = f"{r['level']} {r['method']}" + (f"-{r['variant']}" if isinstance(r["variant"], str) else "") + \
                ("" if r["grouping"] == "flat" else f" by {r['grouping']}")
            rk = ranks[(ranks["lp"] == lp) & (ranks["label"] == r["label"]) & (ranks["level"] == r["level"])
                       & (ranks["method"] == r["method"]) & (ranks["grouping"] == r["grouping"])
                       & (ranks["variant"].fillna("") == (r["variant"] if isinstance(r["variant"], str) else ""))] \
                if len(ranks) else ranks
            rank = "" if not len(rk) or rk["rank"].isna().all() else str(int(rk["rank"].iloc[0]))
            eps = "" if r.get("tie_calibrated") is not True else f"{r['threshold']:.4g}"
            lines.append(f"| {r['label']} | {col} | {r['value']:.4f} | {eps} | {rank} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("BLEUSTATS_SHARED", "/work/shared"))
    ap.add_argument("--mtme", required=True, help="folder holding mt_metrics_eval/ (a local copy)")
    ap.add_argument("--work", help="folder for the inputs (default: temporary)")
    ap.add_argument("--permutations", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--no-wmt-sized", action="store_true", help="skip the synthetic WMT-sized run")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        grids = prepare(Path(args.shared), work)
        t_corr, corr = run_correlate(work, args.permutations, args.samples)
        spa = spa_both(grids, Path(args.mtme), args.permutations)
    sized = None if args.no_wmt_sized else wmt_sized(args.permutations, args.samples)
    commit = subprocess.run(["git", "-C", args.mtme, "rev-parse", "HEAD"], capture_output=True, text=True)
    res = {"date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared), Python {platform.python_version()}",
           "mtme_commit": commit.stdout.strip() or "unknown (not a git checkout)",
           "permutations": args.permutations, "samples": args.samples, "time_correlate_s": t_corr,
           "spa": spa, "wmt_sized": sized, "correlate": corr}
    if args.json:
        Path(args.json).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")
    text = markdown(res)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
