"""``bleustats study`` on the bundled sample runs from the command line, and a nan says why.

The bundled sample names its human score column ``mqm`` and has 9 segments
whose references all weigh <= 0 (ΔBLEU undefined there): ``--human-column``
and ``--undefined exclude`` make it run from the command line, with no Python
needed. Constant human scores give ρ = τ = nan, and the
output says why instead of a bare ``nan (nan, nan)``.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bleustats import sample_data
from bleustats.cli import main

pytestmark = pytest.mark.usefixtures("numba_one_thread")

SAMPLE = sample_data.paths()
#: the sample's segments whose references all have a weight <= 0 (found by the run below, listed in study.json)
UNDEFINED = [243, 306, 398, 524, 525, 716, 922, 935, 940]


def _study(out, *extra, human=SAMPLE["human_scores"], refs=SAMPLE["references"]):
    return ["study", "--hypotheses", str(SAMPLE["hypotheses"]), "--references", str(refs), "--human", str(human),
            "-o", str(out), "--assignments", "10", "--bootstrap", "0", *extra]


def test_the_bundled_sample_needs_human_column_and_says_so(tmp_path, capsys):
    assert main(_study(tmp_path / "a")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one error line
    assert "human_scores.tsv: missing column(s) score" in err and "--human-column mqm" in err
    assert main(_study(tmp_path / "b", "--human-column", "nope")) == 1
    assert "--human-column nope: no such column; the table has system, seg_id, mqm" in capsys.readouterr().err


def test_undefined_delta_bleu_is_an_error_naming_the_segments_or_excluded_and_counted(tmp_path, capsys):
    assert main(_study(tmp_path / "a", "--human-column", "mqm")) == 1
    err = capsys.readouterr().err
    assert "ΔBLEU is undefined in 9 segment(s)" in err and "seg_id 243, 306, 398" in err
    assert "Pass --undefined exclude" in err and not (tmp_path / "a").exists()
    out = tmp_path / "b"
    assert main(_study(out, "--human-column", "mqm", "--undefined", "exclude")) == 0
    captured = capsys.readouterr()
    assert "--undefined exclude: 9 segment(s) where ΔBLEU is undefined" in captured.err
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["exclusions"]["delta_bleu_undefined_segments"] == UNDEFINED
    # excluded for every metric: the study's observations equal those of a run on the other segments only
    assert "| ΔBLEU |" in captured.out and "nan" not in captured.out


def test_constant_human_scores_say_why_the_correlations_are_nan(tmp_path, capsys):
    human = pd.read_csv(SAMPLE["human_scores"], sep="\t").rename(columns={"mqm": "score"}).assign(score=-1.0)
    human.to_csv(tmp_path / "const.tsv", sep="\t", index=False)
    out = tmp_path / "res"
    assert main(_study(out, "-m", "bleu", "-m", "sbleu", human=tmp_path / "const.tsv")) == 0
    captured = capsys.readouterr()
    assert "nan (nan, nan)" in captured.out  # the numbers stay what they are ...
    why = "the human score differences are constant, 0 in all"
    assert why in captured.out  # ... and the table says why
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and why in warnings[0] and "every metric (BLEU [single]" in warnings[0]
    assert why in (out / "table2.md").read_text()
    assert (pd.read_csv(out / "table2.csv")["note"].str.contains(why)).all()


@pytest.mark.parametrize("bad", ["x", "1.5", ""])
def test_a_human_seg_id_that_is_not_a_whole_number_is_one_line_naming_the_file_and_row(tmp_path, capsys, bad):
    human = pd.read_csv(SAMPLE["human_scores"], sep="\t")
    human["seg_id"] = human["seg_id"].astype(object)
    human.loc[3, "seg_id"] = bad
    path = tmp_path / "human.tsv"
    human.to_csv(path, sep="\t", index=False)
    assert main(_study(tmp_path / "out", "--human-column", "mqm", human=path)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "human.tsv: seg_id must be a whole number on every row" in err and "row 4 has" in err
