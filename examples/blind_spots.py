"""BLEU's blind spots, measured on WMT21 news (Callison-Burch, Osborne and Koehn, 2006).

Run from the repository root, with the shared data beside the checkout::

    pip install -e ".[plot]"
    python examples/blind_spots.py                    # ../shared/data, figures into docs/
    python examples/blind_spots.py --data DIR --docs DIR --permutations 20 --seed 0

It prints the numbers quoted in ``docs/blind_spots.md``:

1. the paper's Table 1 recomputed (matches, chunks, 8! permutations);
2. the corpus report (the paper's Figure 1: sentence length against log10 of
   the number of chunk permutations that score at least as high) for a few
   systems of WMT21 en-de (references A, C, D) and zh-en (reference A). The two
   PNGs go into ``docs/``. Every sentence is also checked with random
   permutations: none may lower a match count;
3. reference draws (paper, section 3.2) for one en-de system;
4. system-level R² of corpus BLEU against MQM means, with each system left out.

Data: ``../shared/data/wmt21_news`` (TSV with a header, TAB separated, no
quoting: ``quoting=3``, ``keep_default_na=False``). MQM ``score`` is minus the
error weight, so higher is better; a system's human score is its mean over the
rated segments. BLEU for the R² is computed on the same rated segments.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import bleustats
from bleustats.tokenizers import tokenize_lines
from bleustats.tools import blind_spots
from bleustats.tools.outliers import leave_one_out_r2

ROOT = Path(__file__).resolve().parents[1]

# Table 1 of the paper (hypothesis and its four references).
TABLE1_HYP = "Appeared calm when he was taken to the American plane , which will to Miami , Florida ."
TABLE1_REFS = [
    "Orejuela appeared calm as he was led to the American plane which will take him to Miami , Florida .",
    "Orejuela appeared calm while being escorted to the plane that would take him to Miami , Florida .",
    "Orejuela appeared calm as he was being led to the American plane that was to carry him to Miami "
    "in Florida .",
    "Orejuela seemed quite calm as he was being led to the American plane that would take him to Miami "
    "in Florida .",
]

PAIRS = {
    # language pair: (references used, systems for the corpus report)
    "en-de": (["ref-A", "ref-C", "ref-D"], ["Facebook-AI", "Online-W", "VolcTrans-GLAT"]),
    "zh-en": (["ref-A"], ["Facebook-AI", "Online-W", "SMU"]),
}


def read_tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", quoting=3, keep_default_na=False, dtype={"text": str})


def load(data: Path, pair: str, refs_used: list[str]):
    d = data / "wmt21_news" / pair
    outputs = read_tsv(d / "system_outputs.tsv")
    refs = read_tsv(d / "references.tsv")
    refs = refs[refs["ref"].isin(refs_used)]
    mqm = read_tsv(d / "mqm_seg_scores.tsv")
    by_seg = refs.sort_values(["seg_id", "ref"]).groupby("seg_id")["text"].apply(list)
    return outputs, refs, by_seg, mqm


def section(title: str) -> None:
    print(f"\n## {title}\n")


def table1() -> None:
    section("Table 1 (paper) recomputed")
    seg = blind_spots.segment_bigrams(TABLE1_HYP, TABLE1_REFS, lowercase=True)
    print(f"matches {seg.matches} over totals {seg.totals}; precisions "
          f"{[round(p, 2) for p in seg.precisions]}")
    print(f"k = {seg.hyp_len}, b = {seg.bigram_matches}, chunks = {seg.n_chunks}, "
          f"permutations = {round(10 ** seg.log10_permutations):,}")
    print("chunks: " + " | ".join(" ".join(c) for c in seg.chunks))
    p = blind_spots.permute_chunks(TABLE1_HYP, TABLE1_REFS, lowercase=True, n=1000, seed=0)
    print(f"1000 random permutations (seed 0): {int(p.lowered.sum())} lower a match count, "
          f"{int(p.raised.sum())} raise one; sentence BLEU {p.original_score:.2f} -> min "
          f"{p.scores.min():.2f}, max {p.scores.max():.2f}")
    if p.raised.any():
        r = int(np.flatnonzero(p.raised)[0])
        print(f"  e.g. '{p.texts[r]}' has matches {p.matches[r].tolist()}")
    d = blind_spots.reference_draw(TABLE1_HYP, TABLE1_REFS, lowercase=True, seed=0)
    print(f"reference draw (seed 0): '{d.text}'")
    print(f"  matches {d.matches}, references used {d.references_used}, sentence BLEU "
          f"{d.score:.4f} vs original {d.original_score:.4f}")


def corpus_reports(data: Path, docs: Path, permutations: int, seed: int) -> None:
    for pair, (refs_used, systems) in PAIRS.items():
        outputs, _, by_seg, _ = load(data, pair, refs_used)
        section(f"Corpus report, WMT21 {pair} (references {', '.join(refs_used)})")
        reports = {}
        for system in systems:
            hyp = outputs[outputs["system"] == system].sort_values("seg_id")
            t0 = time.perf_counter()
            rep = blind_spots.corpus_report(hyp["text"].tolist(), [by_seg[s] for s in hyp["seg_id"]],
                                         permutations=permutations, seed=seed)
            reports[system] = rep
            s, c = rep.summary(), rep.check.summary()
            print(f"### {system} ({time.perf_counter() - t0:.1f} s)")
            print(f"sentences {s['sentences']}, tokens {s['tokens']}; log10 permutations: mean "
                  f"{s['mean_log10_permutations']:.2f}, median {s['median_log10_permutations']:.2f}, "
                  f"max {s['max_log10_permutations']:.2f}; mean chunks {s['mean_n_chunks']:.1f}; "
                  f">= 10^6: {100 * s['share_at_least_1e6']:.1f} %, >= 10^20: "
                  f"{100 * s['share_at_least_1e20']:.1f} %; r(length, log10) {s['corr_length']:.3f}; "
                  f"chunks == k - b in {100 * s['share_chunks_eq_k_minus_b']:.1f} % of sentences")
            print(f"permutation check ({permutations}/sentence, seed {seed}): {c['permutations_scored']} "
                  f"scored, {c['lowered']} lowered a match count, {c['raised']} raised one "
                  f"({c['sentences_raised']} sentences), {c['score_raised']} raised sentence BLEU")
            print(rep.by_length(bin_width=10).to_string(index=False, float_format="%.2f"))
            print(f"signature: {rep.signature}")
        path = docs / f"blind_spots_{pair}.png"
        blind_spots.plot_permutation_counts(
            reports, path, title=f"WMT21 {pair}, {len(refs_used)} reference{'s' * (len(refs_used) > 1)}: "
                                 "chunk permutations scoring >= the sentence")
        print(f"\nwrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    # fewer references, more permutations: one en-de system against ref-A alone
    outputs, _, by_seg, _ = load(data, "en-de", ["ref-A"])
    hyp = outputs[outputs["system"] == "Online-W"].sort_values("seg_id")
    s = blind_spots.corpus_report(hyp["text"].tolist(), [by_seg[i] for i in hyp["seg_id"]]).summary()
    print(f"\nen-de Online-W against ref-A alone: mean log10 permutations "
          f"{s['mean_log10_permutations']:.2f}, median {s['median_log10_permutations']:.2f}, "
          f"max {s['max_log10_permutations']:.2f}")


def reference_draws(data: Path, seed: int) -> None:
    refs_used, _ = PAIRS["en-de"]
    outputs, _, by_seg, _ = load(data, "en-de", refs_used)
    system = "Online-W"
    hyp = outputs[outputs["system"] == system].sort_values("seg_id")
    section(f"Reference draws (paper, 3.2): WMT21 en-de {system}, all sentences")
    t0 = time.perf_counter()
    draws = blind_spots.reference_draws(hyp["text"].tolist(), [by_seg[s] for s in hyp["seg_id"]], seed=seed)
    found = [d for d in draws if d.found]
    same = sum(abs(d.score - d.original_score) < 1e-9 for d in found)
    multi = sum(len(d.references_used) > 1 for d in found)
    changed = sum(d.text != " ".join(d.original.tokens) for d in found)
    print(f"{len(found)} of {len(draws)} sentences constructed ({time.perf_counter() - t0:.1f} s); "
          f"same statistics and sentence BLEU in {same} of {len(found)}; {changed} differ from the "
          f"hypothesis; {multi} draw from more than one reference")
    kinds = pd.Series(["overlapping matches (m_n - m_n+1 grows with n)" if "separate matched runs" in d.reason
                       else d.reason[:70] for d in draws if not d.found]).value_counts()
    if len(kinds):
        print("not constructed: " + "; ".join(f"{n} x {r}" for r, n in kinds.items()))
    # the corpus BLEU of the constructed output equals the original's (same summed statistics)
    ok = [i for i, d in enumerate(draws) if d.found]
    refs_seg = [tokenize_lines(by_seg[hyp["seg_id"].iloc[i]]) for i in ok]  # texts are tokenized
    orig = bleustats.corpus_bleu([" ".join(draws[i].original.tokens) for i in ok], refs_seg,
                                 tokenize="none", references_layout="segments")
    new = bleustats.corpus_bleu([draws[i].text for i in ok], refs_seg, tokenize="none",
                                references_layout="segments")
    print(f"corpus BLEU over those sentences: original {orig.score:.4f}, constructed {new.score:.4f}")
    d = next(d for d in found if 12 <= d.original.hyp_len <= 18 and len(d.references_used) > 1)
    print(f"example: hypothesis  '{' '.join(d.original.tokens)}'")
    print(f"         constructed '{d.text}'  (matches {d.matches})")


def outliers(data: Path) -> None:
    section("System-level R² of BLEU against MQM, leave one system out")
    for pair, (refs_used, _) in PAIRS.items():
        outputs, refs, _, mqm = load(data, pair, refs_used)
        human = mqm[mqm["is_reference"] == 0]
        human = human[human["system"].isin(set(outputs["system"]))]
        mqm_mean = human.groupby("system")["score"].mean()
        rated = set(human["seg_id"])
        hyps = outputs[outputs["system"].isin(mqm_mean.index) & outputs["seg_id"].isin(rated)]
        stats = bleustats.compute_stats(hyps[["seg_id", "system", "text"]],
                                        refs[refs["seg_id"].isin(rated)].rename(columns={"ref": "ref_id"})
                                        .assign(weight=1.0)[["seg_id", "ref_id", "weight", "text"]])
        bleu = bleustats.corpus_scores(stats, by="system").set_index("system")["score"]
        res = leave_one_out_r2(bleu.to_dict(), mqm_mean.to_dict(), flag_top=1)
        print(f"### {pair}: {len(bleu)} systems, {len(rated)} MQM-rated segments, references "
              f"{', '.join(refs_used)}")
        print(f"R² (Pearson) over all systems: {res.r2:.3f} (r = {res.r:+.3f}); flagged: "
              f"{', '.join(res.flagged)}")
        print(res.to_pandas().rename(columns={"metric": "BLEU", "human": "MQM mean"})
              .to_string(index=False, float_format="%.3f"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--docs", type=Path, default=ROOT / "docs")
    ap.add_argument("--permutations", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not (args.data / "wmt21_news").is_dir():
        print(f"error: {args.data / 'wmt21_news'} not found; pass --data DIR (the shared data folder)",
              file=sys.stderr)
        return 1
    args.docs.mkdir(parents=True, exist_ok=True)
    print(f"# bleustats {bleustats.__version__}, numpy {np.__version__}, pandas {pd.__version__}")
    table1()
    corpus_reports(args.data, args.docs, args.permutations, args.seed)
    reference_draws(args.data, args.seed)
    outliers(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
