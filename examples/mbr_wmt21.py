"""MBR system combination over the WMT21 systems, judged by MQM (docs/mbr.md).

Per segment, the candidates are the outputs of the systems that MQM rated
(en-de: 8, zh-en: 8); MBR (bleustats.tools.mbr) picks the consensus output
under a utility (chrF, chrF++, sentence BLEU; with and without the candidate
itself among the pseudo-references; zh-en also with all 23 submissions as
pseudo-references). The chosen output's MQM score is the MQM score of the
system it came from on that segment, so the combination is judged on exactly
the rated segments (527 en-de, 650 zh-en) with the raters' own numbers; a
chosen text that several systems produced scores the mean of their ratings.

Compared with each single system, the mean over systems (a random pick) and
the per-segment oracle; a paired bootstrap (2,000 resamples of segments, seed
0) gives the 95% interval of MBR minus the best single system.

Usage::

    python examples/mbr_wmt21.py [--data ../shared/data] [--out docs/mbr_wmt21_results.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys

import numpy as np
import pandas as pd

from bleustats.tools.mbr import mbr_nbest


def read_tsv(path: str) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", quoting=csv.QUOTE_NONE, keep_default_na=False, dtype={"text": str})


def load(data: str, pair: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    base = os.path.join(data, "wmt21_news", pair)
    outs = read_tsv(os.path.join(base, "system_outputs.tsv"))
    mqm = read_tsv(os.path.join(base, "mqm_seg_scores.tsv"))
    mqm = mqm[(mqm.is_reference == 0) & (mqm.text_in == "system_outputs")]
    # MQM names NVIDIA-NeMo "Nemo"; mqm_name keeps MQM's, system the outputs'
    rated = sorted(set(mqm.system))
    segs = sorted(set(mqm.seg_id))
    cands = outs[outs.system.isin(rated) & outs.seg_id.isin(segs)].sort_values(["seg_id", "system"], kind="stable")
    pool = outs[outs.seg_id.isin(segs)].sort_values(["seg_id", "system"], kind="stable")
    return cands.reset_index(drop=True), pool.reset_index(drop=True), mqm


def bootstrap(diff: np.ndarray, n: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(n, len(diff)))
    means = diff[idx].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def evaluate(cands: pd.DataFrame, mqm: pd.DataFrame, pseudo: pd.DataFrame | None, metric: str,
             exclude_self: bool, aggregate: bool) -> dict:
    table = cands[["seg_id", "system", "text"]]
    r = mbr_nbest(table, pseudo_references=None if pseudo is None else pseudo[["seg_id", "system", "text"]],
                  metric=metric, exclude_self=exclude_self, aggregate=aggregate)
    chosen = cands.iloc[r.chosen][["seg_id", "system", "text"]]
    score = mqm.set_index(["system", "seg_id"])["score"]
    # a chosen text that several systems produced gets the mean of their MQM scores (the raters
    # scored each system's copy separately); taking the first system's would favour its name
    rated = cands.assign(mqm=score.loc[list(zip(cands.system, cands.seg_id))].to_numpy())
    by_text = rated.groupby(["seg_id", "text"])["mqm"].mean()
    mbr_scores = by_text.loc[list(zip(chosen.seg_id, chosen.text))].to_numpy()
    shared = int((rated.groupby(["seg_id", "text"]).size().loc[list(zip(chosen.seg_id, chosen.text))] > 1).sum())
    per_system = mqm.groupby("system")["score"].mean().sort_values(ascending=False)
    best_system = per_system.index[0]
    best_scores = score.loc[[(best_system, s) for s in chosen.seg_id]].to_numpy()
    lo, hi = bootstrap(mbr_scores - best_scores)
    picks = chosen.system.value_counts()
    return {"metric": metric, "exclude_self": exclude_self, "aggregate": aggregate,
            "pseudo_references": "candidates" if pseudo is None else f"all {pseudo.system.nunique()} systems",
            "mbr_mqm": float(mbr_scores.mean()), "best_system": best_system,
            "best_system_mqm": float(per_system.iloc[0]), "diff_vs_best": float((mbr_scores - best_scores).mean()),
            "diff_ci95": [lo, hi], "picks": {k: int(v) for k, v in picks.items()},
            "chosen_text_shared": shared}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(here, "..", "docs", "mbr_wmt21_results.json"))
    args = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(args.data, "wmt21_news")):
        for cand in ("/work/shared/data",):
            if os.path.isdir(os.path.join(cand, "wmt21_news")):
                args.data = cand
    if not os.path.isdir(os.path.join(args.data, "wmt21_news")):
        sys.exit(f"{args.data}/wmt21_news not found; give --data")
    report = {}
    for pair in ("en-de", "zh-en"):
        cands, pool, mqm = load(args.data, pair)
        per_system = mqm.groupby("system")["score"].mean().sort_values(ascending=False)
        best_per_seg = mqm.groupby("seg_id")["score"].max()
        out = {"segments": int(cands.seg_id.nunique()), "systems": {k: float(v) for k, v in per_system.items()},
               "mean_of_systems": float(per_system.mean()), "oracle": float(best_per_seg.mean()), "runs": []}
        settings = [(m, ex, agg, None) for m in ("chrf", "chrf++", "bleu") for ex in (False, True)
                    for agg in (False,)]
        settings += [("chrf", False, True, None), ("bleu", False, True, None)]
        if pool.system.nunique() > cands.system.nunique():
            settings += [("chrf", False, False, pool), ("bleu", False, False, pool)]
        for metric, ex, agg, pseudo in settings:
            res = evaluate(cands, mqm, pseudo, metric, ex, agg)
            out["runs"].append(res)
            print(pair, metric, "excl" if ex else "incl", "agg" if agg else "", res["pseudo_references"],
                  f"MBR {res['mbr_mqm']:.3f} best {res['best_system']} {res['best_system_mqm']:.3f} "
                  f"diff {res['diff_vs_best']:+.3f} [{res['diff_ci95'][0]:+.3f}, {res['diff_ci95'][1]:+.3f}]",
                  flush=True)
        report[pair] = out
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
