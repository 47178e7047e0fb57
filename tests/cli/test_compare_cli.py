"""``bleustats compare`` as people run it: files, tables, saved statistics, the report folder, the errors.

Inputs are the files ``bleustats demo --write-files`` writes (the bundled WMT21 en-de sample); expected
records come from :func:`bleustats.compare` on the same inputs, and compare-mt 0.2.10's numbers from its own
report functions (``tests/tools/compare_mt_oracle.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bleustats
from bleustats.cli import main

from ..tools import compare_mt_oracle as oracle

pytestmark = pytest.mark.usefixtures("numba_one_thread")


@pytest.fixture
def files(tmp_path, monkeypatch, capsys):
    assert main(["demo", "--write-files", str(tmp_path)]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _json(capsys) -> list[dict]:
    return json.loads(capsys.readouterr().out)


def test_text_files_give_the_librarys_records_and_a_report(files, capsys):
    assert main(["compare", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "sys2.txt", "--json", "-o", "report",
                 "--bootstrap", "100"]) == 0
    records = _json(capsys)
    want = bleustats.compare({"hyp": _lines(files / "hyp.txt"), "sys2": _lines(files / "sys2.txt")},
                             [_lines(files / "ref0.txt"), _lines(files / "ref1.txt")], n_samples=100)
    assert records == json.loads(want.to_json())
    page = (files / "report" / "index.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "sys2" in page
    assert sorted(p.name for p in files.iterdir() if p.name.startswith(".")) == []  # no temporary folder left


def test_tokenize_none_gives_compare_mts_numbers(files, capsys):
    ref, hyp, sys2 = (_lines(files / f) for f in ("ref0.txt", "hyp.txt", "sys2.txt"))
    want = oracle.run(ref, [hyp, sys2])
    assert main(["compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "-tok", "none", "--bootstrap", "0",
                 "--names", "sys1", "sys2", "--json"]) == 0
    records = _json(capsys)
    for i, name in enumerate(("sys1", "sys2")):
        mine = {r["analysis"]: r["value"] for r in records if r["system"] == name and r.get("bucket") is None}
        assert mine["bleu"] == pytest.approx(want["bleu"][i], abs=1e-9)
        assert [r["value"] for r in records if r["system"] == name
                and r["analysis"] == "count_by_sentence_bleu"] == want["count_by_sentence_bleu"][i]


def test_tables_and_saved_statistics(files, capsys):
    assert main(["compare", "refs.tsv", "-i", "hyps.tsv", "--baseline", "Online-W", "--bootstrap", "50",
                 "--json"]) == 0
    from_tables = _json(capsys)
    assert {r["baseline"] for r in from_tables} == {"Online-W"}
    assert len({r["system"] for r in from_tables}) == 8
    assert main(["stats", "refs.tsv", "-i", "hyps.tsv", "-m", "bleu", "chrf", "-o", "stats.parquet"]) == 0
    capsys.readouterr()
    assert main(["compare", "--from-stats", "stats.parquet", "--baseline", "Online-W", "--bootstrap", "50",
                 "--json"]) == 0
    from_stats = _json(capsys)
    kept = {r["analysis"] for r in from_stats}
    assert "word_fmeasure_by_frequency" not in kept and "bleu_by_length" in kept
    assert from_stats == [r for r in from_tables if r["analysis"] in kept]


@pytest.mark.parametrize("argv, message", [
    (["-tok", "none"], "tokenize='none': the statistics table was computed with tokenize='13a'"),
    (["-lc"], "lowercase=True: the statistics table was computed with lowercase=False"),
    (["--max-ngram-order", "5"], "max_ngram_order: the statistics table holds orders 1..4"),
    (["--chrf-beta", "1"], "chrf_options: beta=1, but the statistics table was computed with beta=2"),
    (["-cw", "2"], "chrf_options: word_order=2, but the statistics table was computed with word_order=0"),
    (["-m", "bleu", "ter", "--ter-normalized"], "the statistics table has no ter columns"),
])
def test_saved_statistics_refuse_the_options_they_cannot_answer(files, capsys, argv, message):
    """An option given for a saved table must be the table's (a value equal to the default included): scoring the
    table anyway would print numbers for other options than the ones asked for."""
    assert main(["stats", "ref0.txt", "-i", "hyp.txt", "-m", "bleu", "chrf", "-o", "stats.parquet"]) == 0
    capsys.readouterr()
    assert main(["compare", "--from-stats", "stats.parquet", "--bootstrap", "0", *argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_saved_statistics_take_the_options_they_hold_and_a_lower_order(files, capsys):
    assert main(["stats", "refs.tsv", "-i", "hyps.tsv", "-m", "bleu", "chrf", "-o", "stats.parquet"]) == 0
    capsys.readouterr()
    assert main(["compare", "--from-stats", "stats.parquet", "--bootstrap", "0", "--json"]) == 0
    plain = _json(capsys)
    assert main(["compare", "--from-stats", "stats.parquet", "--bootstrap", "0", "--json", "-tok", "13a", "-cw", "0",
                 "--chrf-beta", "2"]) == 0
    assert _json(capsys) == plain  # the table's own options, given: the same numbers
    assert main(["compare", "--from-stats", "stats.parquet", "--bootstrap", "0", "--json", "--max-ngram-order",
                 "2"]) == 0
    bleu2 = [r for r in _json(capsys) if r["analysis"] == "bleu"]
    assert all("order:2" in r["signature"] for r in bleu2)
    assert [r["value"] for r in bleu2] != [r["value"] for r in plain if r["analysis"] == "bleu"]


def test_labels_freq_corpus_buckets_and_metrics(files, capsys):
    n = len(_lines(files / "ref0.txt"))
    (files / "labels.txt").write_text("".join(f"{'a' if i % 2 else 'b'}\n" for i in range(n)), encoding="utf-8")
    assert main(["compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "--labels", "labels.txt", "--freq-corpus",
                 "ref1.txt", "-m", "bleu", "ter", "--length-buckets", "20:40", "--bootstrap", "0", "--json"]) == 0
    records = _json(capsys)
    assert [r["bucket"] for r in records if r["analysis"] == "ter_by_label" and r["system"] == "hyp"] == ["b", "a"]
    assert [r["bucket"] for r in records if r["analysis"] == "bleu_by_length" and r["system"] == "hyp"] == [
        "<20", "[20,40)", ">=40"]
    assert "freq:corpus" in next(r["signature"] for r in records if r["analysis"] == "word_fmeasure_by_frequency")
    assert "chrf" not in {r["analysis"] for r in records}


def test_text_output_prints_every_analysis(files, capsys):
    assert main(["compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "--bootstrap", "20"]) == 0
    out = capsys.readouterr().out
    for analysis in ("bleu", "length_ratio", "chrf", "word_fmeasure_by_frequency", "bleu_by_length",
                     "count_by_length_difference", "count_by_sentence_bleu", "ngram_match", "sentence_examples"):
        assert f"--- {analysis}\n" in out
    assert out.count("signature: ") >= 9


@pytest.mark.parametrize("argv, rc, message", [
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "-o", "ref0.txt"], 2, "is an input"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "-o", "missing/report"], 1, "does not exist; create it first"),
    (["-i", "hyp.txt", "sys2.txt"], 2, "no references"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "--names", "a"], 2, "--names: one name per -i file"),
    (["ref0.txt", "-i", "hyp.txt", "short.txt"], 1, "-i short.txt: 2 lines"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "--labels", "short.txt"], 1, "labels: need one label per segment"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "--length-buckets", "10:x"], 2, "want numbers separated by ':'"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "--baseline", "nobody"], 1, "baseline must be one of"),
    (["--from-stats", "stats.parquet", "-i", "hyp.txt"], 2, "--from-stats: compares a saved table"),
    (["ref0.txt", "-i", "hyp.txt", "./hyp.txt"], 2, "-i: './hyp.txt' is given twice"),
    (["refs.tsv", "-i", "hyps.tsv", "--names", "a"], 2, "--names: a hypotheses table names its systems"),
    (["ref0.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "-cw", "2"], 2, "add -m chrf"),
])
def test_errors_are_one_line_before_any_work(files, capsys, argv, rc, message):
    (files / "short.txt").write_text("a\nb\n", encoding="utf-8")
    (files / "stats.parquet").write_bytes((files / "ref0.txt").read_bytes())  # never read: the usage error is first
    assert main(["compare", *argv]) == rc
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("bleustats compare: error: "), err


def test_an_existing_report_folder_is_kept_unless_replace(files, capsys):
    (files / "report").mkdir()
    (files / "report" / "mine.txt").write_text("keep", encoding="utf-8")
    assert main(["compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "-o", "report", "--bootstrap", "0"]) == 1
    assert "exists; add --replace" in capsys.readouterr().err
    assert (files / "report" / "mine.txt").read_text(encoding="utf-8") == "keep"
    assert main(["compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "-o", "report", "--bootstrap", "0",
                 "--replace"]) == 0
    assert sorted(p.name for p in (files / "report").iterdir()) == ["index.html"]
