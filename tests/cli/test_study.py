"""``bleustats study`` in-process: results folder, Table 2 on stdout, errors and exit codes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bleustats.cli import main
from bleustats.cli.study import read_human
from bleustats.errors import InputError

from ..meta.test_study import _corpus


@pytest.fixture(scope="module")
def tables(tmp_path_factory, numba_one_thread):
    d = tmp_path_factory.mktemp("study_inputs")
    hyps, refs, human = _corpus(seed=2)
    hyps.to_csv(d / "hyps.tsv", sep="\t", index=False)
    refs.to_csv(d / "refs.tsv", sep="\t", index=False)
    human.to_csv(d / "human.tsv", sep="\t", index=False)
    return d


def _args(d, out, *extra):
    return ["study", "--hypotheses", str(d / "hyps.tsv"), "--references", str(d / "refs.tsv"),
            "--human", str(d / "human.tsv"), "-o", str(out), "-tok", "none", "--unit-size", "2",
            "--assignments", "20", "--bootstrap", "50", *extra]


def test_study_writes_results_folder(tables, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(_args(tables, out, "--threshold", "0.3")) == 0
    captured = capsys.readouterr()
    assert "| metric | single | w≥0.3 | all |" in captured.out and "Spearman ρ" in captured.out
    assert "3 pairs, 21 observations" in captured.err and "wrote" in captured.err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["pairs.csv", "study.json", "table2.csv", "table2.json", "table2.md"]
    summary = pd.read_csv(out / "table2.csv")
    assert summary["label"].tolist() == [f"{m} [{v}]" for m in ("BLEU", "sBLEU", "ΔBLEU")
                                         for v in ("single", "w≥0.3", "all")]
    assert summary["signature"].str.contains("seed:0").all() and summary["signature"].str.contains("M:2").all()
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["exclusions"]["human_nan_rows"] == 0 and "table2.md" in manifest["files"]
    # same seed, same numbers; the folder is replaced only with --overwrite
    assert main(_args(tables, out)) == 1
    assert "exists; pass --overwrite" in capsys.readouterr().err
    assert main(_args(tables, out, "--threshold", "0.3", "--overwrite", "--json")) == 0
    again = json.loads(capsys.readouterr().out)
    assert [m["rho"] for m in again["metrics"]] == summary["rho"].tolist()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folders left


def test_study_sweeps_and_plot(tables, tmp_path, capsys):
    out = tmp_path / "sweeps"
    code = main(_args(tables, out, "-m", "bleu", "-m", "delta_bleu", "--sweep", "unit_size", "--unit-sizes",
                      "1,2,7", "--sweep", "threshold", "--thresholds=-1,0.5", "--sweep", "max_ngram_order",
                      "--sweep-assignments", "5", "--bootstrap", "0"))
    assert code == 0, capsys.readouterr().err
    by_size = pd.read_csv(out / "sweep_unit_size.csv")
    assert by_size["value"].tolist() == [1] * 6 + [2] * 6 + [7] * 6
    assert pd.read_csv(out / "sweep_max_ngram_order.csv")["value"].unique().tolist() == [1, 2, 3, 4]
    assert (out / "figure2.png").read_bytes()[:4] == b"\x89PNG"
    by_theta = pd.read_csv(out / "sweep_threshold.csv")
    # one label across θ (θ is the sweep's x axis), so Figure 2(A) draws one line per metric
    assert set(by_theta["refs"]) == {"w≥θ"} and sorted(by_theta["value"].unique()) == [-1.0, 0.5]


def test_study_input_errors(tables, tmp_path, capsys):
    human = pd.read_csv(tables / "human.tsv", sep="\t")
    extra = pd.concat([human, pd.DataFrame({"system": ["ref-A"], "seg_id": [0], "score": [1.0], "rater": [0]})])
    extra.to_csv(tmp_path / "human_refs.tsv", sep="\t", index=False)
    args = _args(tables, tmp_path / "x")
    args[args.index("--human") + 1] = str(tmp_path / "human_refs.tsv")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Systems with no hypothesis at all: ['ref-A']" in err and "unmatched='exclude'" in err
    assert not (tmp_path / "x").exists()
    assert main(args + ["--unmatched", "exclude"]) == 0
    assert "1 rated cell(s) without hypothesis" in capsys.readouterr().err
    # segments left without references in a view: said on stderr, then an error unless excluded
    refs = pd.read_csv(tables / "refs.tsv", sep="\t", keep_default_na=False)
    refs.loc[(refs["ref_id"] == 0) & (refs["seg_id"] < 4), "weight"] = 0.5
    refs.to_csv(tmp_path / "refs_low.tsv", sep="\t", index=False)
    args = _args(tables, tmp_path / "y", "--threshold", "0.9")
    args[args.index("--references") + 1] = str(tmp_path / "refs_low.tsv")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "'w≥0.9' view: 4 segment(s) have no reference with weight >= 0.9; their 12 hypotheses" in err
    assert "no hypothesis in metric 'BLEU [w≥0.9]'" in err
    assert main(args + ["--unmatched", "exclude"]) == 0
    assert "12 rated cell(s) without hypothesis" in capsys.readouterr().err
    assert main(_args(tables, tmp_path / "z", "--unit-size", "99")) == 1
    assert "unit_size must be at most the number of segments every pair shares" in capsys.readouterr().err
    assert main(_args(tables, tmp_path / "p", "--pair", "A", "Q")) == 1
    assert "system 'Q' has no rated segment" in capsys.readouterr().err
    assert main(_args(tables, tmp_path / "q", "--max-ngram-order", "0")) == 2
    assert main(_args(tables, tmp_path / "q", "--unit-sizes", "1,x")) == 2
    assert main(_args(tables, tmp_path / "q", "--bogus")) == 2
    assert main(_args(tables, tmp_path / "nope" / "deeper")) == 1
    assert "parent folder" in capsys.readouterr().err


def test_read_human(tmp_path):
    (tmp_path / "h.jsonl").write_text('{"system": "A", "seg_id": 1, "score": 2.5, "judge": "j1"}\n')
    assert read_human(tmp_path / "h.jsonl")["score"].tolist() == [2.5]
    (tmp_path / "h.tsv").write_text("system\tseg\tscore\nA\t1\t2\n")
    with pytest.raises(InputError, match=r"missing column\(s\) seg_id"):
        read_human(tmp_path / "h.tsv")
    with pytest.raises(InputError, match="unknown table format '.csv'"):
        read_human(tmp_path / "h.csv")
    with pytest.raises(InputError, match="no such file"):
        read_human(tmp_path / "none.tsv")
    pd.DataFrame({"system": ["A"], "seg_id": [1], "score": [np.nan]}).to_parquet(tmp_path / "h.parquet")
    assert np.isnan(read_human(tmp_path / "h.parquet")["score"][0])
