"""Uniform and learned combinations of bleustats' metrics on WMT21 news (MQM), against each component.

Run from the repository root, with the shared data beside the checkout::

    python examples/combine_wmt21.py                      # ../shared/data
    python examples/combine_wmt21.py --data DIR --folds 5 --block-size 10 --seed 0

It prints the table quoted in ``docs/combination.md``. For each language pair
(en-de with references A, C, D; zh-en with reference A):

* hypotheses: the 8 MQM-rated WMT systems on the MQM-rated segments (527 en-de,
  650 zh-en); human score = the segment's MQM score (higher = better);
* components: sentence BLEU of max order 1-4, BLEU+1, Nakov et al.'s
  ``bp-smoothed,pc-grounded``, Chen & Cherry method 3, the brevity penalty
  (all from one statistics table);
* ``uniform``: mean of the min-max normalized components (per language pair);
* ``learned``: pairwise-ranking logistic regression, cross-validated over
  blocks of ``--block-size`` consecutive segments (the data has no document
  ids; MQM rates whole documents, so blocks are mostly within one document),
  ``--folds`` folds, seed ``--seed``; every score is out of fold;
* segment level: WMT's Kendall-like τ over pairs of systems on the same
  segment whose MQM differs (metric ties count as discordant), before and
  after the paper's tie-breaking; system level: Pearson r of the mean score
  per system with the mean MQM.

Correlations come from ``bleustats.correlation``; the significance of the
learned combination against the best component uses
``bleustats.significance`` when that module is installed (else the column is
left out and the script says so).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import bleustats
from bleustats import combine
from bleustats.correlation import segment_correlation, system_correlation

ROOT = Path(__file__).resolve().parents[1]
REFS = {"en-de": ["ref-A", "ref-C", "ref-D"], "zh-en": ["ref-A"]}
COMPONENTS = ["bleu1", "bleu2", "bleu3", "bleu4", "bleu+1", "nakov:bp-smoothed,pc-grounded",
              "chen-cherry:3", "brevity_penalty"]


def read_tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", quoting=3, keep_default_na=False, dtype={"text": str})


def load(data: Path, lp: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    d = data / "wmt21_news" / lp
    mqm = read_tsv(d / "mqm_seg_scores.tsv")
    mqm = mqm[(mqm["is_reference"] == 0) & (mqm["text_in"] == "system_outputs")][["system", "seg_id", "score"]]
    outputs = read_tsv(d / "system_outputs.tsv").merge(mqm[["system", "seg_id"]], on=["system", "seg_id"])
    refs = read_tsv(d / "references.tsv")
    refs = refs[refs["ref"].isin(REFS[lp]) & refs["seg_id"].isin(outputs["seg_id"])]
    refs = refs.rename(columns={"ref": "ref_id"})[["seg_id", "ref_id", "text"]]
    return outputs[["seg_id", "system", "text"]].reset_index(drop=True), refs, mqm.rename(columns={"score": "mqm"})


def correlations(frame: pd.DataFrame, scores: np.ndarray) -> tuple[float, float, float]:
    """(segment WMT Kendall, same after tie-breaking, system Pearson) of one metric."""
    seg = segment_correlation(scores, frame["mqm"], system=frame["system"], item=frame["seg_id"],
                              grouping="item", method="kendall", variant="wmt").value
    broken = combine.break_ties(scores, frame["system"].to_numpy())
    seg_tb = segment_correlation(broken, frame["mqm"], system=frame["system"], item=frame["seg_id"],
                                 grouping="item", method="kendall", variant="wmt").value
    m = combine.system_scores(frame, scores)
    h = frame.groupby("system", sort=True)["mqm"].mean()
    sys_r = system_correlation(m["score"].to_numpy(), h.loc[m["system"]].to_numpy(), method="pearson").value
    return seg, seg_tb, sys_r


def run(args: argparse.Namespace) -> int:
    have_significance = importlib.util.find_spec("bleustats.significance") is not None
    print(f"bleustats {bleustats.__version__}; folds={args.folds} block_size={args.block_size} seed={args.seed}; "
          f"significance module: {'yes' if have_significance else 'absent (no significance column)'}",
          file=sys.stderr)
    rows = []
    for lp in ("en-de", "zh-en"):
        t0 = time.perf_counter()
        hyps, refs, mqm = load(args.data, lp)
        stats = bleustats.compute_stats(hyps, refs)
        frame = combine.component_scores(stats, COMPONENTS).merge(mqm, on=["system", "seg_id"], validate="one_to_one")
        metrics: dict[str, np.ndarray] = {c: frame[c].to_numpy() for c in COMPONENTS}
        metrics["uniform"] = combine.uniform_combination(frame, COMPONENTS)
        cv = combine.cross_validate(frame, COMPONENTS, "mqm", folds=args.folds, block_size=args.block_size,
                                    seed=args.seed, l2=args.l2)
        metrics["learned (CV)"] = cv.raw
        for name, scores in metrics.items():
            seg, seg_tb, sys_r = correlations(frame, scores)
            rows.append({"lp": lp, "metric": name, "seg_kendall_wmt": seg, "seg_kendall_wmt_tiebroken": seg_tb,
                         "sys_pearson": sys_r})
        w = pd.DataFrame(cv.weights, columns=COMPONENTS)
        print(f"{lp}: {frame['system'].nunique()} systems x {frame['seg_id'].nunique()} segments, "
              f"{len(frame)} rows, {cv.n_pairs[0]}..{max(cv.n_pairs)} training pairs per fold, "
              f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
        print(f"\n{lp} learned weights per fold (normalized components):")
        print(w.round(2).to_string())
    table = pd.DataFrame(rows)
    print("\n| lp | metric | seg Kendall (WMT) | seg Kendall, ties broken | sys Pearson |")
    print("|---|---|---:|---:|---:|")
    for r in table.itertuples():
        print(f"| {r.lp} | {r.metric} | {r.seg_kendall_wmt:.4f} | {r.seg_kendall_wmt_tiebroken:.4f} | "
              f"{r.sys_pearson:.4f} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--block-size", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--l2", type=float, default=1.0)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
