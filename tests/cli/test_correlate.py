"""``bleustats correlate`` in-process: computed and external metrics, comparisons, JSON, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats

from bleustats.cli import main

from ..meta.test_study import _corpus


@pytest.fixture(scope="module")
def tables(tmp_path_factory, numba_one_thread):
    d = tmp_path_factory.mktemp("correlate_inputs")
    hyps, refs, human = _corpus(seed=3)
    hyps.to_csv(d / "hyps.tsv", sep="\t", index=False)
    refs.to_csv(d / "refs.tsv", sep="\t", index=False)
    human.rename(columns={"score": "mqm"}).to_csv(d / "human.tsv", sep="\t", index=False)
    cells = human.groupby(["system", "seg_id"], as_index=False)["score"].mean()
    rng = np.random.default_rng(0)
    cells["comet"] = cells["score"] + rng.normal(0, 0.5, len(cells))
    cells["text"] = "not a metric"
    cells[["system", "seg_id", "comet", "text"]].to_csv(d / "comet.tsv", sep="\t", index=False)
    return d, cells


def test_external_scores(tables, capsys):
    d, cells = tables
    assert main(["correlate", "--human", str(d / "human.tsv"), "--human-column", "mqm", "--scores",
                 str(d / "comet.tsv"), "--json", "--level", "segment", "--method", "spearman"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["correlations"]
    assert row["label"] == "comet [external]" and row["n"] == len(cells)
    assert row["value"] == pytest.approx(scipy.stats.spearmanr(cells["comet"], cells["score"])[0])


def test_computed_and_external_metrics_with_comparison(tables, tmp_path, capsys):
    d, _ = tables
    code = main(["correlate", "--human", str(d / "human.tsv"), "--human-column", "mqm", "--scores",
                 str(d / "comet.tsv"), "--hypotheses", str(d / "hyps.tsv"), "--references", str(d / "refs.tsv"),
                 "-tok", "none", "-m", "bleu", "-m", "delta_bleu", "--grouping", "flat", "--grouping", "item",
                 "--compare", "comet,bleu:all", "--test", "williams", "--test", "permutation", "--samples", "50",
                 "-o", str(tmp_path / "c.json")])
    assert code == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert "| metric | system pearson |" in captured.out and "BLEU [single]" in captured.out
    assert "| comet [external] | BLEU [all] | segment | pearson |  | flat | williams |" in captured.out
    saved = json.loads((tmp_path / "c.json").read_text())
    labels = {r["label"] for r in saved["correlations"]}
    assert labels == {f"{m} [{v}]" for m in ("BLEU", "ΔBLEU") for v in ("single", "w≥0", "all")} | {"comet [external]"}
    assert {r["test"] for r in saved["comparisons"]} == {"williams", "permutation"}
    assert "3 systems, 42 rated cells" in captured.err


def test_errors(tables, capsys):
    d, _ = tables
    assert main(["correlate", "--human", str(d / "human.tsv")]) == 2
    assert "give metrics" in capsys.readouterr().err
    assert main(["correlate", "--human", str(d / "human.tsv"), "--hypotheses", str(d / "hyps.tsv")]) == 2
    assert main(["correlate", "--human", str(d / "human.tsv"), "--scores", str(d / "comet.tsv")]) == 1
    assert "needs system, seg_id and 'score' columns" in capsys.readouterr().err
    assert main(["correlate", "--human", str(d / "human.tsv"), "--human-column", "mqm", "--scores",
                 str(d / "comet.tsv"), "--compare", "comet,chrf"]) == 1
    assert "'chrf' is not a metric" in capsys.readouterr().err
    for key in ("system", "seg_id"):  # a key column as the scores: one line, no traceback
        assert main(["correlate", "--human", str(d / "human.tsv"), "--human-column", key, "--scores",
                     str(d / "comet.tsv")]) == 1
        err = capsys.readouterr().err
        assert f"--human-column {key} names a key column" in err and err.count("\n") == 1


def test_pa_spa_tie_calibration_and_chrf_ter(tables, capsys):
    import pandas as pd
    import sacrebleu

    d, cells = tables
    code = main(["correlate", "--human", str(d / "human.tsv"), "--human-column", "mqm", "--scores",
                 str(d / "comet.tsv"), "--hypotheses", str(d / "hyps.tsv"), "--references", str(d / "refs.tsv"),
                 "-tok", "none", "-m", "bleu", "-m", "chrf", "-m", "chrf++", "-m", "ter", "--metric-column", "bleu:all",
                 "--metric-column", "chrf:all", "--metric-column", "chrf++:all", "--metric-column", "ter:all",
                 "--method", "pa", "--method", "spa", "--method", "kendall", "--variant", "acc23",
                 "--variant", "b", "--grouping", "item", "--tie-calibration", "--permutations", "200", "--json"])
    assert code == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    recs = out["correlations"]
    assert {r["label"] for r in recs} == {"BLEU [all]", "chrF2 [all]", "chrF2++ [all]", "TER [all]"}
    base = {"label", "level", "method", "variant", "grouping", "value", "n", "n_groups", "n_skipped"}
    for r in recs:
        extra = set(r) - base
        if r["method"] == "spa":
            assert extra == {"permutations"} and r["permutations"] == 200 and r["level"] == "system"
        elif r["method"] == "pa":
            assert extra == {"agreements", "pairs"} and r["pairs"] == 3
        elif r["variant"] == "acc23":
            assert extra == {"tie_calibrated", "threshold"} and r["tie_calibrated"] is True and r["threshold"] >= 0
        else:
            assert extra == set()
    # chrF of a system: sacreBLEU's corpus chrF of its rated segments
    hyps = pd.read_csv(d / "hyps.tsv", sep="\t")
    refs = pd.read_csv(d / "refs.tsv", sep="\t", dtype={"ref_id": str})
    assert set(cells["seg_id"]) == set(hyps["seg_id"])
    from bleustats.engine.stats import compute_stats
    from bleustats.meta.metric_correlations import metric_correlations
    from bleustats.meta.units import corpus_metric

    human = pd.read_csv(d / "human.tsv", sep="\t").rename(columns={"mqm": "score"})
    st = compute_stats(hyps, refs, tokenize="none", metrics=("bleu", "chrf"))
    res = metric_correlations([corpus_metric(st, metric="chrf")], human, methods=("pearson",), levels=("system",))
    segs = sorted(hyps["seg_id"].unique())
    streams = [refs[refs["ref_id"] == r].set_index("seg_id").loc[segs, "text"].tolist()
               for r in sorted(refs["ref_id"].unique())]
    for s, got in zip(res.systems, res.system_scores["chrF2 [all]"]):
        lines = hyps[hyps["system"] == s].set_index("seg_id").loc[segs, "text"].tolist()
        assert got == pytest.approx(sacrebleu.corpus_chrf(lines, streams).score, abs=1e-9)


def test_rank_clusters_in_text_and_json(tables, capsys):
    d, _ = tables
    args = ["correlate", "--human", str(d / "human.tsv"), "--human-column", "mqm", "--scores", str(d / "comet.tsv"),
            "--hypotheses", str(d / "hyps.tsv"), "--references", str(d / "refs.tsv"), "-tok", "none", "-m", "bleu",
            "-m", "sbleu", "--metric-column", "bleu:all", "--metric-column", "sbleu:all", "--method", "pearson",
            "--method", "pa", "--level", "segment", "--level", "system", "--rank", "--samples", "100"]
    assert main(args + ["--json"]) == 0
    ranks = json.loads(capsys.readouterr().out)["ranks"]
    seg = [r for r in ranks if r["level"] == "segment"]
    assert [r["rank"] for r in seg][0] == 1 and len(seg) == 2  # --metric-column keeps bleu:all and sbleu:all
    assert all(isinstance(r["rank"], int) for r in ranks)
    assert main(args) == 0
    assert "Rank clusters (PERM-BOTH, p <= 0.05" in capsys.readouterr().out


def test_language_pairs_and_global_accuracy(tmp_path, capsys, numba_one_thread):
    import pandas as pd

    per_lp = {}
    for lp, seed in (("xx-yy", 3), ("zz-yy", 4)):
        hyps, refs, human = _corpus(seed=seed)
        d = tmp_path / lp
        d.mkdir()
        for name, frame in (("hyps", hyps), ("refs", refs), ("human", human)):
            frame.to_csv(d / f"{name}.tsv", sep="\t", index=False)
        per_lp[lp] = (hyps.assign(lp=lp), refs.assign(lp=lp), human.assign(lp=lp))
    for k, name in enumerate(("hyps", "refs", "human")):
        pd.concat([v[k] for v in per_lp.values()]).to_csv(tmp_path / f"{name}.tsv", sep="\t", index=False)

    def run(d):
        assert main(["correlate", "--human", str(d / "human.tsv"), "--hypotheses", str(d / "hyps.tsv"),
                     "--references", str(d / "refs.tsv"), "-tok", "none", "-m", "bleu", "-m", "sbleu",
                     "--method", "pa", "--method", "pearson", "--level", "system", "--rank", "--samples", "50",
                     "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    both = run(tmp_path)
    assert both["lps"] == ["xx-yy", "zz-yy"]
    for lp in per_lp:
        alone = run(tmp_path / lp)["correlations"]
        mine = [{k: v for k, v in r.items() if k != "lp"} for r in both["correlations"] if r["lp"] == lp]
        assert mine == alone
    glob = [r for r in both["correlations"] if r["lp"] == "global"]
    assert {r["method"] for r in glob} == {"pa"} and len(glob) == 6  # 2 metrics x 3 reference views
    for g in glob:
        parts = [r for r in both["correlations"] if r["label"] == g["label"] and r["method"] == "pa"
                 and r["lp"] != "global"]
        assert g["agreements"] == sum(r["agreements"] for r in parts) and g["pairs"] == sum(r["pairs"] for r in parts)
        assert g["value"] == g["agreements"] / g["pairs"]
    assert {r["lp"] for r in both["ranks"]} == {"xx-yy", "zz-yy", "global"}
    assert all(isinstance(r["rank"], int) for r in both["ranks"])
    # a table without lp beside a human table with one: one clear line
    assert main(["correlate", "--human", str(tmp_path / "human.tsv"), "--hypotheses",
                 str(tmp_path / "xx-yy" / "hyps.tsv"), "--references", str(tmp_path / "refs.tsv"), "-tok",
                 "none"]) == 1
    assert "every input table needs one too" in capsys.readouterr().err
