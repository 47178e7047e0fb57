"""``bleustats study`` in-process: results folder, Table 2 on stdout, errors and exit codes."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bleustats.cli import main
from bleustats.cli._study_inputs import read_human
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
    assert main(_args(tables, out, "--weight-threshold", "0.3")) == 0
    captured = capsys.readouterr()
    assert "| metric | single | w≥0.3 | all |" in captured.out and "Spearman ρ" in captured.out
    assert "3 pairs; unit sizes 2 (21 observations)" in captured.err and "wrote" in captured.err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["assignments.parquet", "figure2_M2.png", "pairs.csv", "study.json", "table2.csv", "table2.json",
                     "table2.md"]
    summary = pd.read_csv(out / "table2.csv")
    assert summary["unit_size"].unique().tolist() == [2]
    assert summary["label"].tolist() == [f"{m} [{v}]" for m in ("BLEU", "sBLEU", "ΔBLEU")
                                         for v in ("single", "w≥0.3", "all")]
    assert summary["signature"].str.contains("seed:0").all() and summary["signature"].str.contains("M:2").all()
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["exclusions"]["human_nan_rows"] == 0 and "table2.md" in manifest["files"]
    # same seed, same numbers; the folder is replaced only with --replace (refused before any work without it)
    assert main(_args(tables, out)) == 1
    assert "exists; add --replace" in capsys.readouterr().err
    assert main(_args(tables, out, "--weight-threshold", "0.3", "--replace", "--json")) == 0
    again = json.loads(capsys.readouterr().out)
    assert [m["rho"] for m in again["studies"][0]["metrics"]] == summary["rho"].tolist()
    per_assignment = pd.read_parquet(out / "assignments.parquet")
    assert len(per_assignment) == 20 * 9 and set(per_assignment.columns) == {"unit_size", "assignment", "label",
                                                                           "rho", "tau"}
    means = per_assignment.groupby("label", sort=False)["rho"].mean()
    assert means.to_numpy() == pytest.approx(summary.set_index("label").loc[means.index, "rho"].to_numpy())
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
    for m in (1, 2, 7):  # one figure per unit size: its θ and N sweeps, and the unit-size panel
        assert (out / f"figure2_M{m}.png").read_bytes()[:4] == b"\x89PNG"
    by_theta = pd.read_csv(out / "sweep_threshold.csv")
    # one label across θ (θ is the sweep's x axis), so Figure 2(A) draws one line per metric
    assert set(by_theta["refs"]) == {"w≥θ"} and sorted(by_theta["value"].unique()) == [-1.0, 0.5]
    assert sorted(by_theta["unit_size"].unique()) == [1, 2, 7]


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
    # options of a sweep or comparison that was not asked for were accepted and silently unused
    for extra, needed in ((["--thresholds=-1,0.5"], "--sweep threshold"),
                          (["--orders", "1,2"], "--sweep max_ngram_order"),
                          (["--sweep-assignments", "5"], "--sweep"), (["--compare-bootstrap", "30"], "--compare"),
                          (["--compare-resampling", "pairs"], "--compare"),
                          (["--sweep", "unit_size", "--thresholds=0"], "--sweep threshold")):
        capsys.readouterr()
        assert main(_args(tables, tmp_path / "q", *extra)) == 2
        assert f"applies only with {needed}, which was not given" in capsys.readouterr().err
        assert not (tmp_path / "q").exists()
    assert main(_args(tables, tmp_path / "nope" / "deeper")) == 1
    assert "does not exist; create it first. Nothing was computed." in capsys.readouterr().err


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


def _human_with_reference_ratings(tables, path, column="score"):
    """The human table plus ratings of the references (system = ref id), as MQM files have them."""
    human = pd.read_csv(tables / "human.tsv", sep="\t")
    refs = pd.read_csv(tables / "refs.tsv", sep="\t", keep_default_na=False)
    rated = refs.assign(system=refs["ref_id"].astype(str), score=-5.0 * refs["ref_id"].astype(int), rater=0)
    table = pd.concat([human, rated[["system", "seg_id", "score", "rater"]]], ignore_index=True)
    table.rename(columns={"score": column}).to_csv(path, sep="\t", index=False)
    return table


def test_reference_weights_single_ref_and_comparison(tables, tmp_path, capsys):
    _human_with_reference_ratings(tables, tmp_path / "mqm.tsv", column="mqm")
    args = _args(tables, tmp_path / "w", "--human-column", "mqm", "--ref-weights-from", str(tmp_path / "mqm.tsv"),
                 "--weight-transform", "linear:10", "--single-ref", "1", "--unit-sizes", "1,2",
                 "--compare", "delta_bleu:all,bleu:all", "--compare", "bleu:single,bleu:all",
                 "--compare-bootstrap", "30")
    args[args.index("--human") + 1] = str(tmp_path / "mqm.tsv")
    assert main(args) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert "42 rating(s) of references (0, 1, 2) are not system ratings" in captured.err
    assert "| metric | single=1 | w≥0 | all |" in captured.out and "## M = 1" in captured.out
    assert "ΔBLEU [all] − BLEU [all]" in captured.out
    summary = pd.read_csv(tmp_path / "w" / "table2.csv")
    assert summary["unit_size"].unique().tolist() == [1, 2]
    # ref 0 scores 0 (weight 1), ref 1 -5 (0.5), ref 2 -10 (0): the transform and its top are in the signature
    assert summary["signature"].str.contains("wt:linear:10,top:0").all()
    assert summary.loc[summary["refs"] == "single=1", "signature"].str.contains("single:1").all()
    comparisons = pd.read_csv(tmp_path / "w" / "comparisons.csv")
    assert len(comparisons) == 2 * 2 * 2  # unit sizes x pairs of metrics x (rho, tau)
    assert set(comparisons["metric_b"]) == {"BLEU [all]"} and (comparisons["n_bootstrap"] == 30).all()
    assert (comparisons["low"] <= comparisons["difference"]).all() and comparisons["p_value"].between(0, 1).all()
    # the weights really changed ΔBLEU (it differs from BLEU on the same view)
    all_view = summary[(summary["refs"] == "all") & (summary["unit_size"] == 1)].set_index("metric")
    assert all_view.loc["ΔBLEU", "rho"] != all_view.loc["BLEU", "rho"]


def test_reference_weights_transforms_and_errors(tables, tmp_path, capsys):
    _human_with_reference_ratings(tables, tmp_path / "h.tsv")
    base = _args(tables, tmp_path / "v", "--ref-weights-from", str(tmp_path / "h.tsv"), "--bootstrap", "0")
    base[base.index("--human") + 1] = str(tmp_path / "h.tsv")
    for spec in ("rank", "constant-linear:10"):
        assert main(base + ["--weight-transform", spec, "--replace", "--undefined", "exclude"]) == 0
        assert f"wt:{spec}" in pd.read_csv(tmp_path / "v" / "table2.csv")["signature"][0]
    capsys.readouterr()
    base.append("--replace")
    assert main(base) == 1  # no transform
    assert "--ref-weights-from needs --weight-transform" in capsys.readouterr().err
    assert main(base + ["--weight-transform", "linear"]) == 2
    assert "needs a scale" in capsys.readouterr().err
    assert main(base + ["--weight-transform", "linear:10", "--single-ref", "ref-Z"]) == 1
    assert "--single-ref: 'ref-Z' is not a reference id" in capsys.readouterr().err
    partial = pd.read_csv(tmp_path / "h.tsv", sep="\t")
    partial = partial[~((partial["system"] == "2") & (partial["seg_id"] < 3))]
    partial.to_csv(tmp_path / "partial.tsv", sep="\t", index=False)
    args = base + ["--weight-transform", "linear:10"]
    args[args.index("--ref-weights-from") + 1] = str(tmp_path / "partial.tsv")
    assert main(args) == 1
    assert "3 reference(s) have no score (2: seg_id 0, 1, 2)" in capsys.readouterr().err


def test_undefined_delta_bleu_segments(tables, tmp_path, capsys):
    refs = pd.read_csv(tables / "refs.tsv", sep="\t", keep_default_na=False)
    refs.loc[refs["seg_id"] < 2, "weight"] = -0.5  # no positive weight: ΔBLEU undefined there
    refs.to_csv(tmp_path / "refs.tsv", sep="\t", index=False)
    args = _args(tables, tmp_path / "u", "--bootstrap", "0")
    args[args.index("--references") + 1] = str(tmp_path / "refs.tsv")
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "ΔBLEU is undefined in 2 segment(s) (no reference of positive weight; per view: single 2, all 2)" in err
    assert "--undefined exclude" in err
    assert main(args + ["--undefined", "exclude"]) == 0
    captured = capsys.readouterr()
    assert "2 segment(s) where ΔBLEU is undefined" in captured.err and "(12 rating(s))" in captured.err
    assert json.loads((tmp_path / "u" / "study.json").read_text())["exclusions"]["undefined_segments"] == 2
    # without ΔBLEU nothing is undefined
    assert main(args + ["-m", "bleu", "--weight-threshold=-1", "--replace"]) == 0


def test_reference_tables_with_a_ref_column_and_several_files(tables, tmp_path, capsys):
    refs = pd.read_csv(tables / "refs.tsv", sep="\t", keep_default_na=False).rename(columns={"ref_id": "ref"})
    refs[refs["ref"] == 0].to_csv(tmp_path / "r0.tsv", sep="\t", index=False)
    refs[refs["ref"] != 0].to_csv(tmp_path / "r12.tsv", sep="\t", index=False)
    args = _args(tables, tmp_path / "r", "--bootstrap", "0", "--single-ref", "2", "-m", "bleu")
    i = args.index("--references")
    args[i + 1:i + 2] = [str(tmp_path / "r0.tsv"), "--references", str(tmp_path / "r12.tsv")]
    assert main(args) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "column 'ref' read as the reference id (ref_id)" in err
    ours = pd.read_csv(tmp_path / "r" / "table2.csv").set_index("refs")
    # the same numbers as the single table with ref_id, single reference chosen by id
    assert main(_args(tables, tmp_path / "s", "--bootstrap", "0", "--single-ref", "2", "-m", "bleu")) == 0
    theirs = pd.read_csv(tmp_path / "s" / "table2.csv").set_index("refs")
    assert ours["rho"].to_dict() == theirs["rho"].to_dict()


def test_compare_names(tables, tmp_path, capsys):
    # refused before any work (issue 36: it was said after the statistics and the study were computed)
    assert main(_args(tables, tmp_path / "c", "--compare", "bleu:all,chrf:all")) == 2
    err = capsys.readouterr().err
    assert "--compare: 'chrf:all' is not a metric of this command line" in err and "delta_bleu:all" in err
    assert "Nothing was computed" in err and "rated hypotheses" not in err
    assert main(_args(tables, tmp_path / "c", "--compare", "bleu:all")) == 2
    # labels work as names too
    assert main(_args(tables, tmp_path / "c", "--compare", "BLEU [all],ΔBLEU [all]", "--bootstrap", "20")) == 0


def test_the_study_command_ends_without_the_teardown_once_its_folder_is_in_place(tables, tmp_path):
    # its folder is written whole before it returns: the executable then skips the interpreter's teardown
    # (an atexit handler still runs); a refused command ends as Python ends
    import subprocess
    import sys

    from .test_sacrebleu_cli import _EXIT_PROBE

    out = tmp_path / "res"
    done = subprocess.run([sys.executable, "-c", _EXIT_PROBE, *_args(tables, out), "--no-plot"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert "atexit ran" in done.stderr and "teardown ran" not in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["assignments.parquet", "pairs.csv", "study.json", "table2.csv",
                                                     "table2.json", "table2.md"]
    refused = subprocess.run([sys.executable, "-c", _EXIT_PROBE, *_args(tables, out), "--no-plot"],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "exists; add --replace" in refused.stderr
    assert "teardown ran" in refused.stderr
