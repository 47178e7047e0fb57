"""The ΔBLEU paper's correlation study (Galley et al. 2015, section 5) on WMT21 MQM and DSTC7.

Run from the repository root, with the shared data beside the checkout::

    python examples/study_wmt21_dstc7.py                    # ../shared/data, writes docs/study_results.md
    python examples/study_wmt21_dstc7.py --data DIR --assignments 1000 --seed 0 --out docs/study_results.md

For every data set it prints the paper's Table 2 — BLEU, sBLEU (mean sentence BLEU, sacreBLEU's
``sentence_bleu`` smoothing) and ΔBLEU with a single reference, the references with weight ≥ θ
and all references; Spearman ρ and Kendall τ-b of metric differences against human differences
between two systems on units of M segments, means over random assignments with 95% Fisher-z
intervals (and the percentile and bootstrap intervals in the JSON beside the Markdown) — at
M = 1 and M = 100.

Data (``../shared/data``, see its README):

* **WMT21 news en-de and zh-en.** Systems: the 8 MQM-rated submissions with public outputs;
  human score: the segment's MQM score (one rater, higher is better, [−25, 0]); only the
  MQM-rated segments (527 en-de, 650 zh-en). References: en-de ref-A, ref-C, ref-D (verified),
  zh-en ref-A and ref-B (ref-B is the unverified draft, see the data README); ref-A first, so it
  is the "single" reference. Reference weights come from the MQM scores of the references
  themselves, mapped to [−1, 1] by one of two transforms:

  - ``linear``: :math:`w = \\mathrm{clip}(s / 12.5 + 1, -1, 1)`, so 0 (no error) → 1, −5 (one
    major error) → 0.6, −12.5 → 0, −25 → −1: an absolute scale.
  - ``rank``: :math:`w = 2 F(s) - 1`, with :math:`F` the empirical CDF of all rated reference
    scores of the language pair (ties share the highest rank): error-free references get 1,
    the worst −1 + 2/n: a relative scale, negative for every reference below the median.

  The thresholded view keeps the references with MQM ≥ −5 (at most one major error): θ = 0.6
  for ``linear``, and for ``rank`` the smallest rank weight of such a reference (the same set).
  ΔBLEU needs a positively weighted reference in every segment of a view; segments where a view
  has no reference or ΔBLEU is undefined are excluded from *every* metric of that table (so the
  metrics share their assignments), and the number is printed. With ``rank`` weights and a single
  reference ΔBLEU is undefined on a third (en-de) to a half (zh-en) of the segments, so that cell
  is left empty (—) rather than shrinking the whole table.
* **DSTC7 task 2.** Systems: the 10 with responses (``TeamEC`` has ratings but no responses: its
  ratings are dropped and counted); human score: relevance (1–5), averaged over the 3 judges;
  references: all, uniform weights (there are no reference ratings), so the thresholded view
  equals "all" and ΔBLEU equals BLEU (both shown as a check); lowercase + 13a tokenization; the
  references flagged ``same_as_human_response`` are left out when scoring ``Human``; the 46
  instances without references are left out.

The runtime is a few minutes on two cores: the statistics are computed once per reference view;
every study is sums over them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bleustats.engine.stats import compute_stats
from bleustats.meta.report import plot_sweeps
from bleustats.meta.study import PAPER_UNIT_SIZES, corpus_metric, correlation_study, sentence_mean_metric, sweep

ROOT = Path(__file__).resolve().parents[1]
MAJOR = -5.0  # MQM of one major error: the thresholded view keeps references with at least this score
PAIRS = {"en-de": ["ref-A", "ref-C", "ref-D"], "zh-en": ["ref-A", "ref-B"]}
MARKER = "<!-- commentary: kept when the script rewrites this file -->"


def read_tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", quoting=3, keep_default_na=False, dtype={"text": str})


def linear_weights(score: np.ndarray) -> np.ndarray:
    """MQM in [-25, 0] → [-1, 1] linearly: 0 → 1, -12.5 → 0, -25 → -1."""
    return np.clip(np.asarray(score, float) / 12.5 + 1.0, -1.0, 1.0)


def rank_weights(score: np.ndarray) -> np.ndarray:
    """2 F(s) - 1 with F the empirical CDF of the scores (ties take the highest rank)."""
    s = pd.Series(np.asarray(score, float))
    return (2.0 * s.rank(method="max") / len(s) - 1.0).to_numpy()


def metrics_for(views: dict, *, delta: bool = True) -> list:
    """BLEU, sBLEU, ΔBLEU for every view (label → StatsTable or (table for all, table for ΔBLEU))."""
    out = []
    for name in ("BLEU", "sBLEU", "ΔBLEU"):
        for label, (st, st_delta) in views.items():
            if name == "BLEU":
                out.append(corpus_metric(st, refs=label))
            elif name == "sBLEU":
                out.append(sentence_mean_metric(st, refs=label))
            elif delta and st_delta is not None:
                out.append(corpus_metric(st_delta, metric="delta_bleu", refs=label))
    return out


def positive_segments(refs: pd.DataFrame) -> np.ndarray:
    """Segments with a reference of positive weight (where ΔBLEU is defined)."""
    return np.unique(refs.loc[refs["weight"] > 0, "seg_id"])


def wmt_views(data: Path, pair: str, transform: str, log) -> tuple[dict, pd.DataFrame, str]:
    d = data / "wmt21_news" / pair
    outputs = read_tsv(d / "system_outputs.tsv")
    mqm = read_tsv(d / "mqm_seg_scores.tsv")
    refs = pd.concat([read_tsv(d / "references.tsv"), read_tsv(d / "references_unverified.tsv")])
    refs = refs[refs["ref"].isin(PAIRS[pair])]
    sys_mqm = mqm[(mqm["is_reference"] == 0) & (mqm["text_in"] == "system_outputs")]
    rated = np.unique(sys_mqm["seg_id"])
    ref_mqm = mqm[mqm["is_reference"] == 1].copy()  # every rated reference of the pair (also ref-B for en-de)
    ref_mqm["weight"] = (linear_weights if transform == "linear" else rank_weights)(ref_mqm["score"].to_numpy())
    refs = refs[refs["seg_id"].isin(rated)].merge(
        ref_mqm[["system", "seg_id", "score", "weight"]].rename(columns={"system": "ref"}), on=["ref", "seg_id"],
        how="left")
    if refs["weight"].isna().any():
        raise SystemExit(f"{pair}: {int(refs['weight'].isna().sum())} references of rated segments have no MQM score")
    order = {r: i for i, r in enumerate(PAIRS[pair])}  # ref-A first: the single reference
    refs = refs.sort_values(["seg_id", "ref"], key=lambda c: c.map(order) if c.name == "ref" else c)
    theta = float(refs.loc[refs["score"] >= MAJOR, "weight"].min())
    ref_table = refs.rename(columns={"ref": "ref_id"})[["seg_id", "ref_id", "weight", "text"]]
    hyps = outputs[outputs["seg_id"].isin(rated) & outputs["system"].isin(sys_mqm["system"].unique())]
    hyps = hyps[["seg_id", "system", "text"]]
    human = sys_mqm[["system", "seg_id", "score"]]
    thr_label = f"w≥{theta:.2g}"
    views = {}
    single = ref_table.groupby("seg_id", sort=False).head(1)
    thresholded = ref_table[ref_table["weight"] >= theta]
    for label, r, kw in (("single", single, dict(ref_view="first")),
                         (thr_label, thresholded, dict(ref_view="threshold", weight_threshold=theta)),
                         ("all", ref_table, dict(ref_view="all"))):
        segs = np.unique(r["seg_id"])
        st = compute_stats(hyps[hyps["seg_id"].isin(segs)], ref_table, **kw)
        pos = positive_segments(r)
        # rank weights put half the references below 0: with a single reference ΔBLEU is undefined
        # on a third (en-de) to a half (zh-en) of the segments, so that cell is left empty
        skip = transform == "rank" and label == "single"
        views[label] = (st, None if skip else st.select(np.isin(st.column("seg_id"), pos)))
        log(f"  {pair} {transform:6s} {label:7s}: {len(r)} references; {len(rated) - len(segs)} rated segment(s) "
            f"without a reference, {len(rated) - len(pos)} without a positively weighted one (no ΔBLEU)"
            + ("; ΔBLEU left out of this view" if skip else ""))
    note = (f"{len(rated)} MQM-rated segments, {hyps['system'].nunique()} systems; references "
            f"{', '.join(PAIRS[pair])} ({transform} weights; θ = {theta:.3g} ⇔ MQM ≥ {MAJOR:g})")
    return views, human, note


def dstc7_views(data: Path, log) -> tuple[dict, pd.DataFrame, str]:
    d = data / "dstc7_task2"
    outputs = read_tsv(d / "system_outputs.tsv")
    refs = read_tsv(d / "references.tsv")
    judg = read_tsv(d / "human_judgments.tsv")
    ids = {k: i for i, k in enumerate(sorted(read_tsv(d / "contexts.tsv")["instance_id"]))}
    for frame in (outputs, refs, judg):
        frame["seg_id"] = frame["instance_id"].map(ids).astype(np.int64)
    refs = refs.sort_values(["seg_id", "ref_idx"])
    with_refs = np.unique(refs["seg_id"])
    no_resp = sorted(set(judg["system"]) - set(outputs["system"]))
    dropped = int(judg["system"].isin(no_resp).sum())
    log(f"  dstc7: {dropped} ratings of {no_resp} (no responses) dropped; "
        f"{len(ids) - len(with_refs)} instances without references left out")
    human = judg.loc[~judg["system"].isin(no_resp), ["system", "seg_id", "relevance"]].rename(
        columns={"relevance": "score"})
    human = human[human["seg_id"].isin(with_refs)]
    hyps = outputs.loc[outputs["seg_id"].isin(with_refs), ["seg_id", "system", "text"]]
    table = refs.assign(ref_id=refs["ref_idx"].astype(str), weight=1.0)
    own = table[table["same_as_human_response"] == 0]  # for scoring Human
    opts = dict(tokenize="13a", lowercase=True)
    cols = ["seg_id", "ref_id", "weight", "text"]
    views = {}
    for label, view in (("single", "first"), ("all", "all")):
        others = compute_stats(hyps[hyps["system"] != "Human"], table[cols], ref_view=view, **opts)
        h = hyps[(hyps["system"] == "Human") & hyps["seg_id"].isin(own["seg_id"])]
        human_st = compute_stats(h, own[cols], ref_view=view, **opts)
        views[label] = ([others, human_st], [others, human_st])
    n_h = int(hyps["system"].eq("Human").sum() - len(h))
    log(f"  dstc7: Human has no reference left after removing its own response in {n_h} instance(s)")
    note = (f"{len(with_refs)} instances with references, {hyps['system'].nunique()} systems, relevance averaged over "
            "3 judges; all references, uniform weights (w≥θ = all, ΔBLEU = BLEU); lowercase + 13a; Human scored "
            "without the references equal to its response")
    return views, human, note


def figure2(data: Path, png: Path, args, log) -> str:
    """The paper's Figure 2 on WMT21 en-de (linear weights): ρ against θ, M and N."""
    views, human, _ = wmt_views(data, "en-de", "linear", lambda m: None)
    d = data / "wmt21_news" / "en-de"
    mqm = read_tsv(d / "mqm_seg_scores.tsv")
    rated = np.unique(mqm.loc[mqm["is_reference"] == 0, "seg_id"])
    refs = read_tsv(d / "references.tsv")
    refs = refs[refs["ref"].isin(PAIRS["en-de"]) & refs["seg_id"].isin(rated)]
    ref_mqm = mqm[mqm["is_reference"] == 1]
    refs = refs.merge(ref_mqm[["system", "seg_id", "score"]].rename(columns={"system": "ref"}), on=["ref", "seg_id"])
    table = refs.assign(ref_id=refs["ref"], weight=linear_weights(refs["score"].to_numpy()))
    table = table[["seg_id", "ref_id", "weight", "text"]]
    outputs = read_tsv(d / "system_outputs.tsv")
    hyps = outputs.loc[outputs["seg_id"].isin(rated) & outputs["system"].isin(human["system"].unique()),
                       ["seg_id", "system", "text"]]
    opts = dict(n_assignments=args.figure_assignments, seed=args.seed, n_bootstrap=0, unmatched="exclude")

    def at_theta(theta: float) -> list:
        segs = np.unique(table.loc[table["weight"] >= theta, "seg_id"])
        st = compute_stats(hyps[hyps["seg_id"].isin(segs)], table, ref_view="threshold", weight_threshold=theta)
        pos = positive_segments(table[table["weight"] >= theta])
        return metrics_for({f"w≥{theta:g}": (st, st.select(np.isin(st.column("seg_id"), pos)))})

    all_view = {"all": views["all"]}
    panels = {
        "threshold": sweep("threshold", [-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0], at_theta, human, unit_size=100,
                           **opts),
        "unit_size": sweep("unit_size", PAPER_UNIT_SIZES, metrics_for(all_view), human, **opts),
        "max_ngram_order": sweep("max_ngram_order", [1, 2, 3, 4],
                                 lambda n: [corpus_metric(views["all"][0], max_ngram_order=n, name="BLEU", refs="all"),
                                            sentence_mean_metric(views["all"][0], max_ngram_order=n, refs="all"),
                                            corpus_metric(views["all"][1], metric="delta_bleu", max_ngram_order=n,
                                                          name="ΔBLEU", refs="all")],
                                 human, unit_size=100, **opts),
    }
    for frame in panels.values():  # one line per metric across θ (its refs label changes with θ)
        frame["label"] = frame["metric"]
    plot_sweeps(panels, str(png))
    log(f"  figure 2: wrote {png}")
    return (f"![Figure 2 on WMT21 en-de]({png.name})\n\nFigure 2 recomputed on WMT21 en-de (linear weights; "
            f"{args.figure_assignments} assignments per point, 95% Fisher-z bands): (A) ρ against θ of the "
            "'w ≥ θ' view at M = 100 (segments without a reference of weight ≥ θ are left out at that θ); "
            "(B) against the unit size M with all references; (C) against the largest n-gram order N at "
            "M = 100.\n")


def run_table(name: str, views: dict, human: pd.DataFrame, note: str, unit_sizes, args, log) -> list[dict]:
    metrics = metrics_for(views)
    out = []
    for m in unit_sizes:
        t = time.perf_counter()
        res = correlation_study(metrics, human, unit_size=m, n_assignments=args.assignments, seed=args.seed,
                                n_bootstrap=args.bootstrap if m > 1 else args.bootstrap_m1, unmatched="exclude")
        log(f"  {name}, M = {m}: {len(res.pairs)} pairs, {res.n_observations} observations, "
            f"exclusions {res.exclusions} ({time.perf_counter() - t:.1f}s)")
        out.append({"name": name, "note": note, "result": res})
    return out


def render(tables: list[dict]) -> str:
    lines = []
    for t in tables:
        res = t["result"]
        ex = res.exclusions
        lines += [f"### {t['name']}, M = {res.unit_size}", "",
                  f"{t['note']}. {len(res.pairs)} system pairs, N = {res.n_observations} observations per "
                  f"assignment, {res.n_distinct_assignments} distinct assignment(s)"
                  + (" (at M = 1 every assignment gives the same observations)" if res.unit_size == 1 else
                     f" of {res.n_assignments}") +
                  f"; excluded: {ex['human_without_hypothesis']} rated (system, segment) cell(s) where a metric is "
                  f"undefined, {ex['segments_dropped']} remainder segment(s) per assignment. Cells: mean "
                  "(95% Fisher-z interval).", ""]
        rho, tau = res.table2("rho"), res.table2("tau")
        cols = list(rho.columns)
        heads = [f"ρ {c}" for c in cols] + [f"τ {c}" for c in cols]
        lines.append("| metric | " + " | ".join(heads) + " |")
        lines.append("|---" * (1 + 2 * len(cols)) + "|")
        for metric in rho.index:
            cells = [c or "—" for c in list(rho.loc[metric]) + list(tau.loc[metric])]
            lines.append(f"| {metric} | " + " | ".join(cells) + " |")
        lines += ["", f"Signature: `{res.signature}`", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "study_results.md")
    ap.add_argument("--assignments", type=int, default=1000)
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates at M > 1")
    ap.add_argument("--bootstrap-m1", type=int, default=200, help="bootstrap replicates at M = 1 (N is large)")
    ap.add_argument("--unit-size", type=int, default=100, help="the large unit size (M = 1 is always run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--figure-assignments", type=int, default=200,
                    help="assignments per point of Figure 2 (0: no figure)")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"{args.data} not found: pass --data (the shared evaluation data, see its README)", file=sys.stderr)
        return 1

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    tables = []
    for pair in ("en-de", "zh-en"):
        for transform in ("linear", "rank"):
            views, human, note = wmt_views(args.data, pair, transform, log)
            tables += run_table(f"WMT21 {pair}, {transform} weights", views, human, note, (1, args.unit_size),
                                args, log)
    views, human, note = dstc7_views(args.data, log)
    tables += run_table("DSTC7 task 2", views, human, note, (1, args.unit_size), args, log)
    text = render(tables)
    print(text)
    if args.figure_assignments:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            log("  matplotlib is not installed: no Figure 2 (pip install -e '.[plot]')")
        else:
            text = figure2(args.data, args.out.with_name("study_figure2_en-de.png"), args, log) + "\n" + text
    seconds = time.perf_counter() - t0
    head = ["# The ΔBLEU correlation study on WMT21 MQM and DSTC7", "",
            "Generated by `python examples/study_wmt21_dstc7.py` "
            f"(seed {args.seed}, {args.assignments} assignments, {args.bootstrap} bootstrap replicates at M > 1 and "
            f"{args.bootstrap_m1} at M = 1; {seconds:.0f} s on 2 shared cores). Protocol: Galley et al. (2015), "
            "section 5, as implemented by `bleustats.meta.study.correlation_study`; data and transforms are "
            "described in the script's docstring. ρ / τ: Spearman / Kendall τ-b between metric and human score "
            "differences of two systems on units of M segments, averaged over assignments. Every number's full "
            "signature, the percentile and bootstrap intervals are in `study_results.json`.", ""]
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    tail = old[old.index(MARKER):] if MARKER in old else MARKER + "\n\n## What it shows\n\n(to be written)\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(head) + "\n" + text + "\n" + tail, encoding="utf-8")
    payload = [{"name": t["name"], "note": t["note"], **t["result"].to_dict()} for t in tables]
    args.out.with_suffix(".json").write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n",
                                             encoding="utf-8")
    log(f"wrote {args.out} and {args.out.with_suffix('.json')} ({seconds:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
