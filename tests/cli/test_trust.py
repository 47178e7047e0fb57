"""Inputs that would give a plausible wrong number (exit 0) are refused.

Each test is one such input, run through the command line in process
(``bleustats.cli.main``): the refusal exits 1 (2 for options that cannot go
together) with one line on stderr that names the input and the fix, and
writes no output file. Where an option does what it says
(``--from-stats --max-ngram-order``), the expected numbers come from the same
library on the same texts, computed directly at that order.
"""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bleustats.cli import main
from bleustats.engine import io
from bleustats.engine.stats import compute_stats

pytestmark = pytest.mark.usefixtures("numba_one_thread")

HYPS = ["the cat sat on the mat", "a dog barked loudly", "it rains today in paris"]
REFS = ["the cat sat on a mat", "the dog barked loudly", "it is raining in paris today"]


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def one_line(rc, err, *parts, code=1):
    assert rc == code, err
    assert err.count("\n") == 1 and err.startswith("bleustats") and "Traceback" not in err, err
    for part in parts:
        assert part in err, (part, err)


def refused(rc: int, err: str, *parts: str, code: int = 1) -> None:
    assert rc == code, err
    assert err.count("\n") == 1 and err.startswith("bleustats"), err
    for part in parts:
        assert part in err, (part, err)


def tsv(path, frame: pd.DataFrame):
    frame.to_csv(path, sep="\t", index=False)
    return path


@pytest.fixture
def refs_tsv(tmp_path):
    return tsv(tmp_path / "refs.tsv", pd.DataFrame({"seg_id": [0, 1, 2], "text": REFS}))


def test_a_repeated_system_and_segment_is_refused_not_counted_twice(capsys, tmp_path, refs_tsv):
    rows = pd.DataFrame({"seg_id": [0, 1, 2, 0], "system": ["A"] * 4, "text": HYPS + [HYPS[0]]})
    hyps = tsv(tmp_path / "hyps.tsv", rows)
    rc, out, err = run(capsys, "score", refs_tsv, "-i", hyps)
    refused(rc, err, "hyps.tsv", "2 rows repeat a (system, seg_id) pair: ('A', 0) at rows 0, 3",
            "drop the repeated rows")
    assert out == ""


def test_several_systems_without_a_system_column_are_refused_not_pooled(capsys, tmp_path, refs_tsv):
    rows = pd.DataFrame({"seg_id": [0, 1, 2, 0, 1, 2], "text": HYPS + ["x", "y", "z"]})
    hyps = tsv(tmp_path / "hyps.tsv", rows)
    rc, out, err = run(capsys, "score", refs_tsv, "-i", hyps)
    refused(rc, err, "no 'system' column and 6 rows repeat a seg_id", "Add a 'system' column")


def test_unknown_columns_are_refused_and_ref_is_read_as_ref_id(capsys, tmp_path):
    hyps = tsv(tmp_path / "hyps.tsv", pd.DataFrame({"seg_id": [0, 1, 2], "text": HYPS}))
    misnamed = tsv(tmp_path / "misnamed.tsv", pd.DataFrame({"reference": ["B", "A", "A", "A"],
                                                           "seg_id": [0, 0, 1, 2], "text": ["x y"] + REFS}))
    rc, _, err = run(capsys, "score", misnamed, "-i", hyps)
    refused(rc, err, "misnamed.tsv", "unknown column 'reference': a references table has seg_id, ref_id (or ref), "
            "weight, text; rename or drop it")
    # `ref` (the shared WMT21 files' name) is a documented alias: its values are the reference ids
    alias = tsv(tmp_path / "alias.tsv", pd.DataFrame({"ref": ["B", "A", "A", "A"], "seg_id": [0, 0, 1, 2],
                                                      "text": ["x y"] + REFS}))
    assert io.read_table(alias, "references").column("ref_id").to_pylist() == ["B", "A", "A", "A"]
    rc, out, err = run(capsys, "score", alias, "-i", hyps, "--ref-view", "first", "--json")
    assert rc == 0, err
    want = compute_stats(HYPS, [["x y", REFS[0]], [REFS[1]], [REFS[2]]], references_layout="segments",
                         ref_view="first")
    [record] = json.loads(out)
    assert [record[f"match_{n}"] for n in range(1, 5)] == [int(want.column(f"match_{n}").sum()) for n in range(1, 5)]


def _nbest(path, ids):
    lines = [f"{i} ||| {HYPS[i % 3]} ||| F0= -1 ||| -{k}.0\n" for i in ids for k in range(2)]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_an_nbest_list_that_skips_sources_is_refused_unless_allowed(capsys, tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(r + "\n" for r in REFS + REFS[:1]), encoding="utf-8")  # 4 sources: 0..3
    skipping = _nbest(tmp_path / "skip.txt", [0, 2])  # no entry for sources 1 and 3
    out_path = tmp_path / "out.parquet"
    rc, out, err = run(capsys, "kbest", skipping, ref, "-tok", "none", "-o", out_path)
    refused(rc, err, "2 source(s) of the references have no entry (id 1, 3)", "--allow-missing-sources")
    assert not out_path.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["ref.txt", "skip.txt"]
    rc, out, err = run(capsys, "kbest", skipping, ref, "-tok", "none", "--allow-missing-sources", "--json")
    assert rc == 0, err
    res = json.loads(out)
    assert (res["n_sources"], res["missing_sources"]) == (2, 2)


def test_an_nbest_table_of_several_systems_is_refused_not_pooled(capsys, tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(r + "\n" for r in REFS), encoding="utf-8")
    table = tsv(tmp_path / "nbest.tsv", pd.DataFrame({"seg_id": [0, 0, 1, 1, 2, 2], "system": ["A", "B"] * 3,
                                                      "text": HYPS * 2}))
    rc, _, err = run(capsys, "kbest", table, ref, "-tok", "none")
    refused(rc, err, "nbest.tsv: the system column names 2 systems ('A', 'B')")


def _broken(tmp_path, column, row, value):
    st = compute_stats(HYPS, [REFS], tokenize="none")
    path = tmp_path / "stats.parquet"
    st.save(path)
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[row] = value
    pq.write_table(table.set_column(table.column_names.index(column), column,
                                    pa.array(values, table.schema.field(column).type)), path)
    return path


@pytest.mark.parametrize("column, value, invariant", [
    ("match_1", 9, "match_within_total"),       # the BLEU 111.3
    ("total_2", 9, "totals_from_length"),
    ("hyp_len", 4, "totals_from_length"),      # hyp_len != total_1
    ("wtotal_1", 0.5, "weighted_totals"),
    ("wmatch_1", 5.5, "weighted_matches"),
])
def test_a_statistics_file_with_broken_invariants_is_refused(capsys, tmp_path, column, value, invariant):
    path = _broken(tmp_path, column, 0, value)
    rc, out, err = run(capsys, "score", "--from-stats", path)
    refused(rc, err, "stats.parquet does not match the 'statistics' schema", f"invariant {invariant} broken")
    assert out == ""


def test_a_statistics_file_with_broken_metadata_is_refused(capsys, tmp_path):
    st = compute_stats(HYPS, [REFS], tokenize="none")
    table = st.table.replace_schema_metadata({**st.table.schema.metadata, b"bleustats.tokenize": b"moses",
                                              b"bleustats.max_ngram_order": b"four"})
    path = tmp_path / "stats.parquet"
    pq.write_table(table, path)
    rc, _, err = run(capsys, "score", "--from-stats", path)
    refused(rc, err, "broken bleustats metadata", "bleustats.tokenize is 'moses'",
            "bleustats.max_ngram_order is 'four'")


def test_from_stats_computes_a_lower_order_and_refuses_options_it_cannot_apply(capsys, tmp_path):
    path = tmp_path / "stats.parquet"
    compute_stats(HYPS, [REFS], tokenize="none").save(path)
    rc, out, err = run(capsys, "score", "--from-stats", path, "--max-ngram-order", "2", "--json")
    assert rc == 0, err
    [low] = json.loads(out)
    direct = compute_stats(HYPS, [REFS], tokenize="none", max_ngram_order=2)
    assert [low["match_1"], low["match_2"]] == [int(direct.column(f"match_{n}").sum()) for n in (1, 2)]
    assert "order:2" in low["signature"] and "precision_3" not in low
    for argv, part in [(["-tok", "13a"], "-tok/--tokenize: " + str(path) + " was computed with tokenize='none'"),
                       (["-lc"], "-lc/--lowercase"),
                       (["--ref-view", "first"], "--ref-view"),
                       (["--delta-definition", "galley2019"], "--delta-definition"),
                       (["--max-ngram-order", "5"], "holds orders 1..4; order 5 needs the statistics computed "
                                                    "again")]:
        rc, out, err = run(capsys, "score", "--from-stats", path, *argv)
        refused(rc, err, part)
    # the same options as the table's are fine
    rc, _, err = run(capsys, "score", "--from-stats", path, "-tok", "none", "--ref-view", "all")
    assert rc == 0, err
    (tmp_path / "w.txt").write_text("1\n1\n1\n", encoding="utf-8")
    rc, _, err = run(capsys, "score", "--from-stats", path, "--ref-weights", tmp_path / "w.txt")
    refused(rc, err, "--ref-weights: the weights are already in the saved statistics", code=2)


def test_empty_hypotheses_and_references_are_refused_as_sacrebleu_does(capsys, tmp_path):
    # sacreBLEU 2.6: "sacreBLEU: Test set None contains no sentence", exit 1 (run by hand on two empty files)
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_bytes(b"")
    ref.write_bytes(b"")
    rc, out, err = run(capsys, "score", ref, "-i", hyp)
    refused(rc, err, "hyp.txt: no segments to score", "sacreBLEU refuses an empty test set")
    assert out == ""
    rc, _, err = run(capsys, "stats", ref, "-i", hyp, "-o", tmp_path / "s.parquet")
    refused(rc, err, "no segments to score")
    assert not (tmp_path / "s.parquet").exists()
    (tmp_path / "hyps.tsv").write_text("seg_id\ttext\n", encoding="utf-8")
    (tmp_path / "refs.tsv").write_text("seg_id\ttext\n", encoding="utf-8")
    hyps, refs = tmp_path / "hyps.tsv", tmp_path / "refs.tsv"
    rc, _, err = run(capsys, "score", refs, "-i", hyps)
    refused(rc, err, "no segments to score")


def test_an_nbest_entry_without_a_model_score_is_refused_not_never_the_1_best(capsys, tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(r + "\n" for r in REFS), encoding="utf-8")
    nb = tmp_path / "nb.txt"
    nb.write_text("0 ||| a ||| F0= 1 ||| 1\n0 ||| b ||| F0= 1 ||| nan\n1 ||| c ||| F0= 1 ||| 2\n"
                  "2 ||| d ||| F0= 1 ||| 0\n", encoding="utf-8")
    rc, _, err = run(capsys, "kbest", nb, ref, "-tok", "none")
    refused(rc, err, "nb.txt: line 2: the total model score is 'nan'")
    table = tmp_path / "nb.parquet"
    pd.DataFrame({"seg_id": [0, 0, 1, 2], "text": ["a", "b", "c", "d"],
                  "model_score": [1.0, None, 2.0, 0.0]}).to_parquet(table)
    rc, _, err = run(capsys, "kbest", table, ref, "-tok", "none")
    refused(rc, err, "nb.parquet: 1 entry has no model_score (missing or NaN), first of source id 0")


class _ClosedPipe:
    """A stdout whose reader went away (`bleustats ... | head -1`)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_output_pipe_stops_quietly(capsys, tmp_path, monkeypatch):
    # was "bleustats: error: Broken pipe" and status 1
    (tmp_path / "h.txt").write_text("the cat sat\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("the cat sat down\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    assert main(["score", str(tmp_path / "r.txt"), "-i", str(tmp_path / "h.txt")]) == 141
    assert capsys.readouterr().err == ""


def test_plain_text_hypotheses_against_a_table_numbered_from_1_say_why(capsys, tmp_path):
    (tmp_path / "h.txt").write_text("the cat sat\na dog ran\n", encoding="utf-8")
    (tmp_path / "r.tsv").write_text("seg_id\tref_id\tweight\ttext\n1\t0\t1\tthe cat sat\n2\t0\t1\ta dog ran\n",
                                    encoding="utf-8")
    assert main(["score", str(tmp_path / "r.tsv"), "-i", str(tmp_path / "h.txt")]) == 1
    err = capsys.readouterr().err
    assert "no reference: seg_id 0" in err and "plain-text file are numbered from 0" in err
    assert len(err.strip().splitlines()) == 1
