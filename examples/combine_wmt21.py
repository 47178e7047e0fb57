"""Uniform and learned combinations of bleustats' metrics on WMT21 news (MQM), against each component.

Run from the repository root, with the shared data beside the checkout::

    python examples/combine_wmt21.py                      # ../shared/data
    python examples/combine_wmt21.py --data DIR --folds 5 --block-size 10 --seed 0 \
        --n-samples 1000 --sig-seed 12345

It prints the tables quoted in ``docs/combination.md``. For each language pair
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

Correlations come from ``bleustats.meta.correlation``. Significance
(``bleustats.significance``), per language pair, for learned vs the best
component, uniform vs the best component and learned vs uniform, where "best
component" is the component with the highest correlation in that column of
the table (chosen on the same data):

* segment level, plain and tie-broken WMT τ (``grouping="item"``): the paired
  permutation test (PERM-BOTH, ``test="permutation"``) and the paired
  bootstrap over segments (``test="bootstrap"``, its 95% interval of Δ);
* system level (Pearson over the 8 systems): the Williams test (r12 =
  combination vs MQM, r13 = component vs MQM, r23 = combination vs component,
  n = 8) and the system-level permutation test.

Every test is two-sided: both one-sided tests are run (same seed, so the same
draws) and p = min(1, 2 min(p(A > B), p(B > A))); ``*`` marks p < 0.05.
``--n-samples`` resamples per test (default 1000), seed ``--sig-seed``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import bleustats
from bleustats.meta import combine
from bleustats.meta.correlation import pearson, segment_correlation, system_correlation
from bleustats.significance import correlation_difference_test, williams_test

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


COMBINATIONS = ["uniform", "learned (CV)"]
LEVELS = {"seg": "seg Kendall (WMT)", "seg_tb": "seg Kendall, ties broken", "sys": "sys Pearson"}
ALPHA = 0.05


def seg_tau(frame: pd.DataFrame, scores: np.ndarray) -> float:
    return segment_correlation(scores, frame["mqm"], system=frame["system"], item=frame["seg_id"],
                               grouping="item", method="kendall", variant="wmt").value


def system_means(frame: pd.DataFrame, scores: np.ndarray) -> np.ndarray:
    """Mean score per system, systems sorted by name (as ``human_means``)."""
    m = combine.system_scores(frame, scores)
    return m.set_index("system")["score"].sort_index().to_numpy()


def human_means(frame: pd.DataFrame) -> np.ndarray:
    return frame.groupby("system", sort=True)["mqm"].mean().to_numpy()


def correlations(frame: pd.DataFrame, scores: np.ndarray, broken: np.ndarray) -> dict[str, float]:
    """Segment WMT Kendall, same after tie-breaking, system Pearson of one metric."""
    sys_r = system_correlation(system_means(frame, scores), human_means(frame), method="pearson").value
    return {"seg": seg_tau(frame, scores), "seg_tb": seg_tau(frame, broken), "sys": sys_r}


def two_sided(run_test) -> tuple[float, float, object]:
    """p = min(1, 2 min(p(A>B), p(B>A))) from both one-sided runs (same seed: same draws).

    Returns (p, one-sided p in the observed direction, the A-vs-B result).
    """
    ab, ba = run_test(False), run_test(True)
    one = ab.p_value if ab.difference >= 0 else ba.p_value
    return min(1.0, 2 * min(ab.p_value, ba.p_value)), one, ab


def segment_tests(frame: pd.DataFrame, a: np.ndarray, b: np.ndarray, n_samples: int, seed: int) -> dict:
    common = dict(level="segment", method="kendall", variant="wmt", grouping="item", n_samples=n_samples,
                  seed=seed, system=frame["system"].to_numpy(), item=frame["seg_id"].to_numpy())
    h = frame["mqm"].to_numpy()
    out = {}
    for test in ("permutation", "bootstrap"):
        p, one, ab = two_sided(lambda rev, test=test: correlation_difference_test(
            b if rev else a, a if rev else b, h, test=test, **common))
        out[test] = p
        out[test + "_one"] = one
        if test == "bootstrap":
            out["ci"] = (ab.ci_low, ab.ci_high)
    out.update(r_a=ab.r_a, r_b=ab.r_b, delta=ab.difference)
    return out


def system_tests(frame: pd.DataFrame, a: np.ndarray, b: np.ndarray, n_samples: int, seed: int) -> dict:
    sa, sb, h = system_means(frame, a), system_means(frame, b), human_means(frame)
    r12, r13, r23 = pearson(sa, h), pearson(sb, h), pearson(sa, sb)
    n = len(h)
    hi, lo = (r12, r13) if r12 >= r13 else (r13, r12)
    w = williams_test(hi, lo, r23, n)  # one-sided in the observed direction
    p_perm, one_perm, ab = two_sided(lambda rev: correlation_difference_test(
        sb if rev else sa, sa if rev else sb, h, level="system", method="pearson", test="permutation",
        n_samples=n_samples, seed=seed))
    return {"r_a": r12, "r_b": r13, "r23": r23, "delta": r12 - r13, "n": n,
            "williams": min(1.0, 2 * w.p_value), "williams_one": w.p_value, "williams_t": w.statistic,
            "permutation": p_perm, "permutation_one": one_perm}


def fmt_p(p: float) -> str:
    return f"{p:.3f}{'*' if p < ALPHA else ''}"


def verdict(delta: float, ps: list[float]) -> str:
    sig = [p < ALPHA for p in ps]
    if not any(sig):
        return "no"
    who = "A > B" if delta > 0 else "B > A"
    return who if all(sig) else f"{who} (one test only)"


def run(args: argparse.Namespace) -> int:
    print(f"bleustats {bleustats.__version__}; folds={args.folds} block_size={args.block_size} seed={args.seed}; "
          f"significance: n_samples={args.n_samples} seed={args.sig_seed}", file=sys.stderr)
    rows, sig_rows = [], []
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
        broken = {name: combine.break_ties(scores, frame["system"].to_numpy()) for name, scores in metrics.items()}
        corr = {name: correlations(frame, metrics[name], broken[name]) for name in metrics}
        for name, c in corr.items():
            rows.append({"lp": lp, "metric": name, **c})
        w = pd.DataFrame(cv.weights, columns=COMPONENTS)
        print(f"{lp}: {frame['system'].nunique()} systems x {frame['seg_id'].nunique()} segments, "
              f"{len(frame)} rows, {cv.n_pairs[0]}..{max(cv.n_pairs)} training pairs per fold, "
              f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
        print(f"\n{lp} learned weights per fold (normalized components):")
        print(w.round(2).to_string())

        t0 = time.perf_counter()
        for level in LEVELS:
            best = max(COMPONENTS, key=lambda c: corr[c][level])
            scores = broken if level == "seg_tb" else metrics
            for a_name, b_name in [("learned (CV)", best), ("uniform", best), ("learned (CV)", "uniform")]:
                a, b = scores[a_name], scores[b_name]
                if level == "sys":
                    res = system_tests(frame, a, b, args.n_samples, args.sig_seed)
                else:
                    res = segment_tests(frame, a, b, args.n_samples, args.sig_seed)
                # the tests recompute both correlations: they must be the table's numbers
                for key, name in (("r_a", a_name), ("r_b", b_name)):
                    if not np.isclose(res[key], corr[name][level], rtol=0, atol=1e-12):
                        raise RuntimeError(f"{lp} {level} {name}: test r {res[key]!r} != table r "
                                           f"{corr[name][level]!r}")
                sig_rows.append({"lp": lp, "level": level, "a": a_name, "b": b_name, **res})
        print(f"{lp}: significance tests {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    table = pd.DataFrame(rows)
    print("\n| lp | metric | seg Kendall (WMT) | seg Kendall, ties broken | sys Pearson |")
    print("|---|---|---:|---:|---:|")
    for r in table.itertuples():
        print(f"| {r.lp} | {r.metric} | {r.seg:.4f} | {r.seg_tb:.4f} | {r.sys:.4f} |")

    print(f"\nSegment level (WMT Kendall-like τ, grouping='item'): two-sided p, * = p < {ALPHA}; "
          f"{args.n_samples} permutations / bootstrap resamples of the segments, seed {args.sig_seed}")
    print("\n| lp | τ | A | B | τ(A) | τ(B) | Δ = A − B | 95% bootstrap CI of Δ | p perm | p boot | "
          "significant |")
    print("|---|---|---|---|---:|---:|---:|---|---:|---:|---|")
    for r in sig_rows:
        if r["level"] == "sys":
            continue
        lo, hi = r["ci"]
        print(f"| {r['lp']} | {'ties broken' if r['level'] == 'seg_tb' else 'plain'} | {r['a']} | {r['b']} | "
              f"{r['r_a']:.4f} | {r['r_b']:.4f} | {r['delta']:+.4f} | [{lo:+.4f}, {hi:+.4f}] | "
              f"{fmt_p(r['permutation'])} | {fmt_p(r['bootstrap'])} | "
              f"{verdict(r['delta'], [r['permutation'], r['bootstrap']])} |")

    n_sys = sorted({r["n"] for r in sig_rows if r["level"] == "sys"})
    print(f"\nSystem level (Pearson r over the systems' mean scores, n = {'/'.join(map(str, n_sys))}): "
          f"two-sided p, * = p < {ALPHA}; "
          f"Williams t-test (df = n − 3) and {args.n_samples} permutations, seed {args.sig_seed}")
    print("\n| lp | A | B | r(A) | r(B) | r(A, B) | Δ = A − B | Williams t | p Williams | p perm | "
          "significant |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in sig_rows:
        if r["level"] != "sys":
            continue
        print(f"| {r['lp']} | {r['a']} | {r['b']} | {r['r_a']:.4f} | {r['r_b']:.4f} | {r['r23']:.4f} | "
              f"{r['delta']:+.4f} | {r['williams_t']:.2f} | {fmt_p(r['williams'])} | {fmt_p(r['permutation'])} | "
              f"{verdict(r['delta'], [r['williams'], r['permutation']])} |")

    one_sided = [(r["lp"], r["level"], r["a"], r["b"], t, r[t + "_one"]) for r in sig_rows
                 for t in (("williams", "permutation") if r["level"] == "sys" else ("permutation", "bootstrap"))
                 if r[t] >= ALPHA > r[t + "_one"]]
    print(f"\nOne-sided (the observed direction, WMT's convention) p < {ALPHA} where two-sided is not: "
          + ("; ".join(f"{lp} {lv} {a} vs {b} {t} {p:.3f}" for lp, lv, a, b, t, p in one_sided) or "none"))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--block-size", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--l2", type=float, default=1.0)
    p.add_argument("--n-samples", type=int, default=1000, help="resamples per significance test")
    p.add_argument("--sig-seed", type=int, default=12345, help="seed of every significance test")
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
