"""The command line, in process: ``bleustats.cli.main([...])`` with captured output.

Scores equal sacreBLEU 2.6.0 (pinned) run on the same files with the same
options; every expected number comes from sacreBLEU or from the library API on
the same data. Exit codes: 0 ok, 1 error ('bleustats: error: ...' on stderr),
2 usage.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import types

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

import bleustats
from bleustats.metrics import tables as scoring
from bleustats.cli import main
from bleustats.engine.stats import compute_stats, load_stats

assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; expected numbers assume 2.6.0"

pytestmark = pytest.mark.usefixtures("numba_one_thread")

HYPS = [
    'He said "hello" to the cat.',
    "The cat sat on the mat , the mat .",
    "Prices rose 3.5 % in 2015-2016 &amp; fell.",
    "Grüße aus Köln – «schön»!",
    "a a a a b",
]
REFS = [
    [
        'He said "hi" to the cat.',
        "The cat is on the mat.",
        "Prices rose 3.5 % in 2015 and fell.",
        "Grüße aus Köln!",
        "a a b",
    ],
    [
        "He told the cat Hello.",
        "A cat sat on a mat.",
        "PRICES ROSE",
        "Schöne Grüße aus Köln – «schön»!",
        "a b a b",
    ],
]
WEIGHTS = [[1.0, 0.8, 1.0, 0.5, 1.0], [-0.5, 0.3, 0.1, 1.0, 0.25]]


def write(path, lines) -> str:
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    """hyp.txt, ref0.txt, ref1.txt and one weight file per reference file."""
    return types.SimpleNamespace(
        dir=tmp_path,
        hyp=write(tmp_path / "hyp.txt", HYPS),
        refs=[write(tmp_path / f"ref{k}.txt", r) for k, r in enumerate(REFS)],
        weights=[write(tmp_path / f"w{k}.txt", map(repr, w)) for k, w in enumerate(WEIGHTS)],
    )


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_results_go_to_the_current_stdout(capsys, files):
    # results go to sys.stdout as it is when main() runs, not as it was at import
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["score", files.refs[0], "-i", files.hyp, "-b"])
    assert rc == 0
    assert buf.getvalue() == f"{sacrebleu.corpus_bleu(HYPS, REFS[:1]).score:.1f}\n"  # sacreBLEU's -b
    assert capsys.readouterr() == ("", "")


def run_json(capsys, *argv):
    """The score records of ``--json`` (data_schemas/score_records.json), checked against the schema."""
    import pyarrow as pa

    from bleustats.engine import schemas

    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    records = json.loads(out)
    assert isinstance(records, list) and records, out
    order = sum(1 for k in records[0] if k.startswith("precision_"))
    schemas.validate(pa.Table.from_pylist(records), "score_records", max_ngram_order=order, check_key=False)
    return records


def run_record(capsys, *argv):
    """The one score record of a ``--json`` command line (one metric, one corpus)."""
    [record] = run_json(capsys, *argv)
    return record


def counts(record: dict, name: str) -> list:
    return [record[f"{name}_{n}"] for n in range(1, sum(k.startswith("precision_") for k in record) + 1)]


def assert_matches(ours: dict, theirs) -> None:
    assert counts(ours, "match") == theirs.counts
    assert counts(ours, "total") == theirs.totals
    assert (ours["sys_len"], ours["ref_len"]) == (theirs.sys_len, theirs.ref_len)
    assert ours["bp"] == pytest.approx(theirs.bp, abs=1e-12)
    np.testing.assert_allclose(counts(ours, "precision"), theirs.precisions, rtol=0, atol=1e-9)
    assert ours["score"] == pytest.approx(theirs.score, abs=1e-9)


# --------------------------------------------------------------------------- score vs sacreBLEU

OPTIONS = [
    ([], {}),
    (["-tok", "intl"], {"tokenize": "intl"}),
    (["-tok", "none"], {"tokenize": "none"}),
    (["-tok", "char"], {"tokenize": "char"}),
    (["-lc"], {"lowercase": True}),
    (["-s", "none"], {"smooth_method": "none"}),
    (["-s", "floor"], {"smooth_method": "floor"}),
    (["-s", "floor", "-sv", "0.3"], {"smooth_method": "floor", "smooth_value": 0.3}),
    (["-s", "add-k", "-sv", "2"], {"smooth_method": "add-k", "smooth_value": 2}),
    (["--use-effective-order"], {"effective_order": True}),
    (["--max-ngram-order", "2"], {"max_ngram_order": 2}),
    (
        ["--max-ngram-order", "6", "-s", "floor", "-lc", "-tok", "intl"],
        {"max_ngram_order": 6, "smooth_method": "floor", "lowercase": True, "tokenize": "intl"},
    ),
]


@pytest.mark.parametrize("n_refs", [1, 2])
@pytest.mark.parametrize(
    "argv, kwargs", OPTIONS, ids=[" ".join(a) or "defaults" for a, _ in OPTIONS]
)
def test_score_text_files_match_sacrebleu(capsys, files, n_refs, argv, kwargs):
    ours = run_record(capsys, "score", *files.refs[:n_refs], "-i", files.hyp, *argv)
    theirs = BLEU(**kwargs).corpus_score(HYPS, REFS[:n_refs])
    assert_matches(ours, theirs)
    assert ours["name"] == "BLEU"
    assert f"nrefs:{n_refs}|" in ours["signature"]


def test_score_default_output_is_sacrebleus(capsys, files):
    # a sacreBLEU command line: sacreBLEU's JSON with one decimal and sacreBLEU's exact signature
    metric = BLEU()
    theirs = metric.corpus_score(HYPS, REFS)
    sig = metric.get_signature().format().replace(sacrebleu.__version__, f"bleustats-{bleustats.__version__}")
    rc, out, err = run(capsys, "score", *files.refs, "-i", files.hyp)
    assert rc == 0 and err == ""
    assert out == theirs.format(width=1, signature=sig, is_json=True) + "\n"
    rc, out, _ = run(capsys, "score", *files.refs, "-i", files.hyp, "-b")
    assert out == f"{theirs.score:.1f}\n"
    rc, out, _ = run(capsys, "score", *files.refs, "-i", files.hyp, "-b", "-w", "5")
    assert out == f"{theirs.score:.5f}\n"


def test_score_own_output_and_width(capsys, files):
    # bleustats' own output (asked for by one of its options): its line, width 2, and the signature with
    # bleustats' fields only where they differ from sacreBLEU's defaults
    theirs = sacrebleu.corpus_bleu(HYPS, REFS)
    rc, out, err = run(capsys, "score", *files.refs, "-i", files.hyp, "--max-ngram-order", "4")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == theirs.format(width=2)
    version = f"bleustats-{bleustats.__version__}"
    assert lines[1] == f"  signature: nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:{version}"
    rc, out, _ = run(capsys, "score", *files.refs, "-i", files.hyp, "--max-ngram-order", "4", "-w", "4")
    assert out.splitlines()[0] == theirs.format(width=4)
    rc, out, _ = run(capsys, "score", *files.refs, "-i", files.hyp, "--max-ngram-order", "4", "-b")
    assert out == f"{theirs.score:.2f}\n"
    data = run_record(capsys, "score", *files.refs, "-i", files.hyp, "-w", "3")
    assert data["score"] == theirs.score  # JSON records: full precision whatever -w
    rc, out, _ = run(capsys, "score", *files.refs, "-i", files.hyp, "--max-ngram-order", "2")
    assert "|smooth:exp|order:2|version:" in out.splitlines()[1]


def test_score_from_stdin(capsys, files, monkeypatch):
    data = "".join(f"{x}\r\n" for x in HYPS).encode("utf-8")  # CRLF on stdin too
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))
    ours = run_record(capsys, "score", *files.refs)
    assert_matches(ours, sacrebleu.corpus_bleu(HYPS, REFS))


def test_stdin_not_utf8(capsys, files, monkeypatch):
    data = "ok\n\nGrüße\n".encode("latin-1")
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))
    rc, out, err = run(capsys, "score", *files.refs)
    assert rc == 1 and out == ""
    assert err.startswith("bleustats score: error: standard input: not valid UTF-8 at line 3")


# --------------------------------------------------------------------------- ΔBLEU, tables, --by


def test_ref_weights_print_bleu_and_delta_bleu(capsys, files):
    argv = ["score", *files.refs, "-i", files.hyp, "--ref-weights", *files.weights]
    bleu = bleustats.corpus_bleu(HYPS, REFS, ref_weights=WEIGHTS, metric="bleu")
    delta = bleustats.corpus_bleu(HYPS, REFS, ref_weights=WEIGHTS, metric="delta_bleu")
    assert delta.score != bleu.score
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == bleu.format(2) and lines[0] == sacrebleu.corpus_bleu(HYPS, REFS).format(
        width=2
    )
    assert lines[2] == delta.format(2) and lines[2].startswith("ΔBLEU = ")
    assert "metric:delta_bleu|delta:paper" in lines[3]
    both = run_json(capsys, *argv)
    assert [(d["metric"], d["name"]) for d in both] == [("bleu", "BLEU"), ("delta_bleu", "ΔBLEU")]
    assert both[1]["score"] == pytest.approx(delta.score, abs=1e-9)
    assert counts(both[1], "wmatch") == delta.stats["wmatch"] and both[1]["match_1"] is None
    only = run_record(capsys, *argv, "-m", "delta_bleu", "--delta-definition", "galley2019")
    g2019 = bleustats.corpus_bleu(HYPS, REFS, ref_weights=WEIGHTS, delta_definition="galley2019")
    assert only["name"] == "ΔBLEU" and only["score"] == pytest.approx(g2019.score, abs=1e-12)
    thr = run_record(capsys, *argv, "-m", "bleu", "--ref-view", "threshold", "--weight-threshold", "0.2")
    refs_thr = [[r if w >= 0.2 else None for r, w in zip(rs, ws)] for rs, ws in zip(REFS, WEIGHTS)]
    assert counts(thr, "match") == sacrebleu.corpus_bleu(HYPS, refs_thr).counts
    assert "refs:w>=0.2" in thr["signature"]


def write_tsv(path, df: pd.DataFrame) -> str:
    lines = ["\t".join(df.columns)] + [
        "\t".join(str(v) for v in row) for row in df.itertuples(index=False)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


SYSTEMS = {
    "sysB": HYPS,
    "sysA": [" ".join(reversed(h.split())) for h in HYPS],
    "sysC": [h.lower() for h in HYPS],
}


@pytest.fixture
def tables(tmp_path):
    rows = [(i, name, text) for name, hyps in SYSTEMS.items() for i, text in enumerate(hyps)]
    rows = [rows[j] for j in np.random.default_rng(3).permutation(len(rows))]
    hyps = pd.DataFrame(rows, columns=["seg_id", "system", "text"])
    refs = pd.DataFrame(
        [(i, f"r{k}", WEIGHTS[k][i], REFS[k][i]) for i in range(len(HYPS)) for k in range(2)],
        columns=["seg_id", "ref_id", "weight", "text"],
    )
    return write_tsv(tmp_path / "hyps.tsv", hyps), write_tsv(tmp_path / "refs.tsv", refs)


def test_long_form_tables_score_per_system(capsys, tables):
    hyps, refs = tables
    rc, out, err = run(capsys, "score", refs, "-i", hyps)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", "BLEU", "ΔBLEU"]  # the table's weights are not all 1
    table = [ln.split() for ln in lines[1:4]]
    assert [r[0] for r in table] == sorted(SYSTEMS)
    for name, bleu, delta in table:
        assert float(bleu) == pytest.approx(
            sacrebleu.corpus_bleu(SYSTEMS[name], REFS).score, abs=0.005
        )
        want = bleustats.corpus_bleu(SYSTEMS[name], REFS, ref_weights=WEIGHTS).score
        assert float(delta) == pytest.approx(want, abs=0.005)
    assert lines[4].startswith("BLEU signature: nrefs:2|") and lines[5].startswith(
        "ΔBLEU signature: "
    )
    # BLEU on all references is sacreBLEU's number: its signature is sacreBLEU's; ΔBLEU's names the weights
    version = f"version:bleustats-{bleustats.__version__}"
    assert lines[4] == f"BLEU signature: nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|{version}"
    assert "|smooth:exp|metric:delta_bleu|delta:paper|w:custom|version:" in lines[5]
    data = run_json(capsys, "score", refs, "-i", hyps, "-m", "bleu")
    assert [(r["metric"], r["by"]) for r in data] == [("bleu", "system")] * 3
    for row in data:
        theirs = sacrebleu.corpus_bleu(SYSTEMS[row["group"]], REFS)
        assert row["score"] == pytest.approx(theirs.score, abs=1e-8)
        assert [row[f"match_{n}"] for n in range(1, 5)] == theirs.counts
    rc, out, _ = run(capsys, "score", refs, "-i", hyps, "-b")
    assert len(out.splitlines()) == 4  # header + 3 systems, no signatures


def test_by_seg_id(capsys, files):
    rc, out, err = run(capsys, "score", *files.refs, "-i", files.hyp, "--by", "seg_id", "-w", "4")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["seg_id", "BLEU"]
    rows = [ln.split() for ln in lines[1 : 1 + len(HYPS)]]
    assert [int(r[0]) for r in rows] == list(range(len(HYPS)))
    for i, (_, score) in enumerate(rows):
        theirs = sacrebleu.corpus_bleu([HYPS[i]], [[r[i]] for r in REFS])
        assert score == f"{theirs.score:.4f}"
    data = run_json(capsys, "score", *files.refs, "-i", files.hyp, "--by", "seg_id")
    assert [(r["by"], r["group"]) for r in data] == [("seg_id", str(i)) for i in range(len(HYPS))]


def test_by_unknown_column(capsys, files):
    rc, out, err = run(capsys, "score", files.refs[0], "-i", files.hyp, "--by", "document")
    assert rc == 1 and out == ""
    assert (
        "bleustats score: error: by must be a column of the statistics table" in err
        and "'document'" in err
    )


# --------------------------------------------------------------------------- stats files


def test_stats_then_score_from_stats(capsys, files):
    out_path = files.dir / "out.parquet"
    rc, out, err = run(
        capsys,
        "stats",
        *files.refs,
        "-i",
        files.hyp,
        "--ref-weights",
        *files.weights,
        "-o",
        out_path,
        "--max-ngram-order",
        "3",
    )
    assert rc == 0 and out == "" and f"wrote {len(HYPS)} rows" in err
    saved = load_stats(out_path)
    direct = compute_stats(HYPS, REFS, ref_weights=WEIGHTS, max_ngram_order=3)
    assert saved.table.equals(direct.table)
    assert saved.max_order == 3 and saved.weights == "custom"
    for metric in ("bleu", "delta_bleu"):
        a = run_json(capsys, "score", "--from-stats", out_path, "-s", "floor", "-m", metric)
        b = run_json(capsys, "score", *files.refs, "-i", files.hyp, "--ref-weights", *files.weights,
                     "--max-ngram-order", "3", "-s", "floor", "-m", metric)
        assert a == b
    rc, out_a, _ = run(capsys, "score", "--from-stats", out_path, "-s", "floor")
    rc, out_b, _ = run(
        capsys,
        "score",
        *files.refs,
        "-i",
        files.hyp,
        "--ref-weights",
        *files.weights,
        "--max-ngram-order",
        "3",
        "-s",
        "floor",
    )
    assert out_a == out_b and "ΔBLEU = " in out_a


def test_save_stats(capsys, files):
    path = files.dir / "saved.parquet"
    direct = run_json(capsys, "score", *files.refs, "-i", files.hyp, "--save-stats", path)
    assert load_stats(path).table.equals(compute_stats(HYPS, REFS).table)
    assert run_json(capsys, "score", "--from-stats", path) == direct


def test_from_stats_errors(capsys, files):
    rc, _, err = run(capsys, "score", "--from-stats", files.hyp)
    assert rc == 1 and "cannot be read as a Parquet statistics table" in err
    plain = files.dir / "plain.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(plain)
    rc, _, err = run(capsys, "score", "--from-stats", plain)
    assert rc == 1 and "was not written by bleustats" in err
    rc, _, err = run(capsys, "score", "--from-stats", plain, files.refs[0])
    # a combination of options that cannot go together: a usage error (exit 2)
    assert rc == 2 and "--from-stats: scores a saved table; drop REF and -i" in err


def _failing_write_table(real):
    """pq.write_table that writes half a file, then fails as a full disk does."""

    def write_table(table, where, *args, **kwargs):
        real(table, where, *args, **kwargs)
        with open(where, "r+b") as fh:
            size = fh.seek(0, 2)
            fh.truncate(size // 2)
        raise OSError(28, "No space left on device")

    return write_table


@pytest.mark.parametrize("command", ["stats", "save-stats"])
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_output_written_whole_or_not_at_all(capsys, files, monkeypatch, command, existing):
    target = files.dir / "out" / "stats.parquet"
    target.parent.mkdir()
    if existing:
        target.write_bytes(b"previous content")
    monkeypatch.setattr(pq, "write_table", _failing_write_table(pq.write_table))
    argv = ["stats", "-o", target] if command == "stats" else ["score", "--save-stats", target]
    replace = ["--replace"] if existing else []  # an existing output is replaced only with --replace
    rc = main([str(a) for a in [*argv, *files.refs, "-i", files.hyp, *replace]])
    out, err = capsys.readouterr()
    assert rc == 1 and out == ""
    # one line naming the path as given, the cause, and that nothing was written
    name = argv[0]
    assert err == (
        f"bleustats {name}: error: cannot write {target}: No space left on device; nothing was written\n"
    ), err
    if existing:
        assert target.read_bytes() == b"previous content"
    else:
        assert not target.exists()
    assert sorted(p.name for p in target.parent.iterdir()) == (
        ["stats.parquet"] if existing else []
    )


def _write_error_target(files, monkeypatch, where):
    if where == "missing_folder":
        return files.dir / "no" / "such" / "folder" / "out.parquet"
    monkeypatch.setattr(pq, "write_table", _failing_write_table(pq.write_table))
    return files.dir / "out.parquet"


@pytest.mark.parametrize("where", ["missing_folder", "disk_full"])
def test_output_write_error_exit_code(capsys, files, monkeypatch, where):
    # an OSError while writing is exit 1 with one error line, never a traceback; a missing folder is said
    # before any work
    target = _write_error_target(files, monkeypatch, where)
    rc, out, err = run(capsys, "stats", files.refs[0], "-i", files.hyp, "-o", target)
    assert rc == 1 and out == ""
    if where == "missing_folder":
        assert err == (f"bleustats stats: error: --output {target}: the folder {target.parent} does not exist; "
                       "create it first. Nothing was computed.\n"), err
    else:
        assert err == f"bleustats stats: error: cannot write {target}: No space left on device; nothing was written\n"
    assert "Traceback" not in err
    assert not target.exists()
    if where == "disk_full":
        assert list(target.parent.glob("*.tmp")) == []  # the temporary file is removed


@pytest.mark.parametrize("where", ["missing_folder", "disk_full", "directory"])
def test_output_write_error_names_the_output_path(capsys, files, monkeypatch, where):
    # the -o path as given, never the hidden temporary file or no path at all
    if where == "directory":
        target = files.dir / "a_folder"
        target.mkdir()
    else:
        target = _write_error_target(files, monkeypatch, where)
    rc, _, err = run(capsys, "stats", files.refs[0], "-i", files.hyp, "-o", target)
    if where == "disk_full":
        assert rc == 1 and err.startswith(f"bleustats stats: error: cannot write {target}: "), err
        assert err.endswith("; nothing was written\n"), err
    else:  # said before any work
        assert rc == 1 and err.startswith(f"bleustats stats: error: --output {target}: "), err
        assert err.endswith("Nothing was computed.\n"), err
    assert err.count(str(target)) == 1 and ".tmp" not in err, err
    if where == "directory":
        assert target.is_dir() and list(target.iterdir()) == []
        assert list(files.dir.glob(".a_folder.*")) == []


def test_output_write_error_library(tmp_path):
    # io.write_atomic: an OSError naming the requested path, the file left as it was
    from bleustats.engine import io as bio

    target = tmp_path / "out.txt"
    target.write_text("old")

    def write(tmp):
        with open(tmp, "w") as fh:
            fh.write("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError) as info:
        bio.write_atomic(target, write)
    assert str(info.value.strerror) == (
        f"cannot write {target}: No space left on device; nothing was written"
    )
    assert info.value.errno == 28 and info.value.filename == str(target)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


# --------------------------------------------------------------------------- errors and usage


def test_errors_exit_1(capsys, files):
    d = files.dir
    short = write(d / "short.txt", REFS[0][:3])
    bad = d / "latin1.txt"
    bad.write_bytes("ok\nGrüße\n".encode("latin-1"))
    bad_w = write(d / "bad_w.txt", ["1", "0.5", "x", "1", "1"])
    out_of_range = write(d / "big_w.txt", ["1", "2", "1", "1", "1"])
    cases = [
        ([files.refs[0], "-i", d / "missing.txt"], r"missing\.txt: no such file; check the path\."),
        ([d / "missing.txt", "-i", files.hyp], r"missing\.txt: no such file; check the path\."),
        ([files.refs[0], "-i", d], r"is a directory"),
        (
            [short, "-i", files.hyp],
            (
                r"the files do not have the same number of lines: \S*hyp\.txt has 5, \S*short\.txt "
                r"has 3; every reference file needs one line per hypothesis line\."
            ),
        ),
        ([files.refs[0], "-i", short], r"\S*short\.txt has 3, \S*ref0\.txt has 5;"),
        (
            [files.refs[0], "-i", bad],
            r"latin1\.txt: not valid UTF-8 at line 2, byte 2 \(invalid start byte\); "
            r"re-encode it as UTF-8",
        ),
        ([files.refs[0], bad, "-i", files.hyp], r"latin1\.txt: not valid UTF-8 at line 2"),
        (
            [*files.refs, "-i", files.hyp, "--ref-weights", files.weights[0]],
            r"--ref-weights: need one weight file per reference file \(2\); got 1",
        ),
        (
            [files.refs[0], "-i", files.hyp, "--ref-weights", bad_w],
            r"bad_w\.txt \(weights of .*ref0\.txt\): line 3 is 'x', not a number",
        ),
        (
            [files.refs[0], "-i", files.hyp, "--ref-weights", short],
            r"short\.txt .*: has 3 weights but the reference file has 5 lines",
        ),
        (
            [files.refs[0], "-i", files.hyp, "--ref-weights", out_of_range],
            r"big_w\.txt \(weights of .*ref0\.txt\): line 2 must be in \[-1, 1\] "
            r"\(ΔBLEU reference weights\); got 2\.0\. Rescale the human scores",
        ),
        (["-i", files.hyp], r"no references: give reference files"),
        (
            [files.refs[0], "-i", files.hyp, "-m", "delta_bleu", "--ref-weights", write(d / "neg.txt", ["-1"] * 5)],
            r"delta_bleu: 5 segment\(s\) have no reference with a positive weight",
        ),
    ]
    for argv, match in cases:
        rc, out, err = run(capsys, "score", *argv)
        assert rc == 1, (argv, err)
        assert out == ""
        assert err.startswith("bleustats score: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err
        assert re.search(match, err), (match, err)


def test_out_of_range_weight_names_the_weight_file_and_line(capsys, files):
    # the weight file and its line, not a row of the internal long table
    bad = write(files.dir / "bad_w.txt", ["1", "1.5", "1", "1", "1"])
    rc, out, err = run(
        capsys, "score", *files.refs, "-i", files.hyp, "--ref-weights", files.weights[0], bad
    )
    assert rc == 1 and out == ""
    assert err == (
        f"bleustats score: error: {bad} (weights of {files.refs[1]}): line 2 must be in [-1, 1] "
        "(ΔBLEU reference weights); got 1.5. Rescale the human scores to [-1, 1] first.\n"
    )


def test_table_and_text_mixed(capsys, files, tables):
    hyps, refs = tables
    rc, _, err = run(capsys, "score", *files.refs, "-i", hyps)
    assert rc == 1 and "with a hypotheses table give a references table" in err
    rc, _, err = run(capsys, "score", refs, files.refs[0], "-i", files.hyp)
    assert (
        rc == 1
        and "give either one references table or plain-text reference files, not a mix" in err
    )
    rc, _, err = run(capsys, "score", refs, "-i", hyps, "--ref-weights", files.weights[0])
    assert rc == 1 and "'weight' column; drop --ref-weights" in err


@pytest.mark.parametrize("argv, message", [
    (["--weight-threshold", "0.2"], "--weight-threshold: only used with --ref-view threshold"),
    (["--max-ngram-order", "4", "-s", "exp", "-sv", "0.5"], "-sv/--smooth-value: only used by -s floor and -s add-k"),
    (["-b", "--json"], "-b/--score-only and --json: choose one"),
])
def test_options_that_cannot_go_together_are_usage_errors(capsys, files, argv, message):
    # each of these refused by its flag's name (dropping one silently would give a number for other settings)
    rc, out, err = run(capsys, "score", files.refs[0], "-i", files.hyp, *argv)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("bleustats score: error: " + message)


def test_table_schema_error(capsys, files):
    bad = files.dir / "hyps.tsv"
    bad.write_text("segment\tsys\ttext\nx\tA\ta\n", encoding="utf-8")
    rc, _, err = run(
        capsys,
        "score",
        write_tsv(files.dir / "refs.tsv", pd.DataFrame({"seg_id": [0], "text": ["a"]})),
        "-i",
        bad,
    )
    assert rc == 1 and err.count("\n") == 1  # one line on the command line
    want = ("hyps.tsv does not match the 'hypotheses' schema (2 problems): unknown columns 'segment', 'sys': a "
            "hypotheses table has seg_id, system, text (and optionally model_score, rank); rename or drop them; "
            "seg_id: required column is missing")
    assert want in err
    assert err.endswith(
        ". Each column is described in data_schemas/hypotheses.json "
        "(bleustats.engine.schemas.load_schema).\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "--bogus"],
        ["score", "-tok", "ja_mecab"],
        ["score", "-s", "laplace"],
        ["score", "--max-ngram-order", "four"],
        ["score", "-sv", "x"],
        ["score", "-m", "blue"],
        ["score", "-tok", "14a"],
        ["stats", "ref.txt"],  # -o is required
        ["frobnicate"],
        [],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    # one line (issue 36: argparse printed its 26-line usage first), naming where the options are listed
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bleustats") and "error:" in err and "--help" in err, err


def test_usage_error_names_the_choices(capsys):
    rc, _, err = run(capsys, "score", "-tok", "ja_mecab")
    assert rc == 2 and "invalid choice: 'ja_mecab'" in err and "'13a'" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-w", "-1"], "argument -w/--width: must be >= 0; got -1"),
        (["--max-ngram-order", "0"], "argument --max-ngram-order: must be from 1 to 32; got 0"),
        (["--max-ngram-order", "-3"], "argument --max-ngram-order: must be from 1 to 32; got -3"),
        (["--max-ngram-order", "33"], "argument --max-ngram-order: must be from 1 to 32; got 33"),
    ],
)
def test_out_of_range_numbers_are_usage_errors(capsys, files, argv, message):
    rc, out, err = run(capsys, "score", files.refs[0], "-i", files.hyp, *argv)
    assert rc == 2 and out == ""
    assert err == f"bleustats score: error: {message} (options: bleustats score --help)\n"


def test_max_ngram_order_above_the_limit_is_a_usage_error(capsys, files):
    # 33 is refused by argparse (exit 2), not later by compute_stats (exit 1)
    rc, out, err = run(capsys, "score", files.refs[0], "-i", files.hyp, "--max-ngram-order", "33")
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("bleustats score: error: argument --max-ngram-order: must be from 1 to 32; got 33")
    assert "max_ngram_order must be" not in err
    for order in ("1", "32"):  # the limits themselves are accepted (and signed: not sacreBLEU's 4)
        argv = [files.refs[0], "-i", files.hyp, "--max-ngram-order", order]
        rc, out, err = run(capsys, "score", *argv)
        assert rc == 0 and f"order:{order}|" in out, err


def test_help_and_version(capsys):
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and out.strip() == f"bleustats {bleustats.__version__}"
    rc, out, _ = run(capsys, "score", "--help")
    assert rc == 0 and "--ref-weights" in out


# --------------------------------------------------------------------------- demo


def test_demo(capsys):
    rc, out, err = run(capsys, "demo")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["system", "BLEU", "ΔBLEU"]
    rows = [ln.split() for ln in lines[1:9]]
    assert len(rows) == 8 and len({r[0] for r in rows}) == 8
    for _name, bleu, delta in rows:
        assert 0 < float(bleu) <= 100 and 0 < float(delta) <= 100
    assert lines[9].startswith("BLEU signature: ") and lines[10].startswith("ΔBLEU signature: ")
    assert len(lines) == 11
    assert "# bundled sample" in err and "# same as: bleustats score " in err
    # the same numbers as the library on the bundled tables
    from bleustats.engine import io as bio
    from bleustats import sample_data

    paths = sample_data.paths()
    st = compute_stats(
        bio.read_table(paths["hypotheses"], "hypotheses"),
        bio.read_table(paths["references"], "references"),
    )
    want = scoring.corpus_scores(st, by="system")
    assert [r[0] for r in rows] == want["system"].tolist()
    assert [r[1] for r in rows] == [f"{s:.2f}" for s in want["score"]]
    data = run_json(capsys, "demo")
    assert [r["metric"] for r in data] == ["bleu"] * 8 + ["delta_bleu"] * 8
    assert [r["score"] for r in data[:8]] == want["score"].tolist()  # full precision


def test_analyze_subcommand_is_wired(capsys):
    assert main(["analyze", "--help"]) == 0
    assert "bigrams that match no reference" in capsys.readouterr().out


def test_kbest_subcommand_is_wired(capsys):
    assert main(["kbest", "--help"]) == 0
    assert "--metrics" in capsys.readouterr().out


def test_a_subcommand_loads_only_its_own_module(tmp_path):
    """`bleustats score` on text files imports no study / analysis code, no pandas or scipy (start-up time)."""
    import subprocess
    import sys

    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cat sat on the mat\n")
    ref.write_text("the cat is on the mat\n")
    code = ("import sys\nfrom bleustats.cli.main import main\n"
            f"rc = main(['score', {str(ref)!r}, '-i', {str(hyp)!r}, '-b'])\n"
            "print(rc, sorted(m for m in sys.modules if m.startswith('bleustats.cli.') or m.split('.')[0] in "
            "('pandas', 'scipy', 'matplotlib') or m.startswith('bleustats.meta')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # _progress: main's interrupt message; sacrebleu_cli: score's sacreBLEU flags (its metric objects load on use)
    # _options, _errors: the parser's shared options and the error path (every command's parts; the output
    # writer, _outputs, loads for a command line that names an output; _records, the JSON records and segment
    # scores, and _dask load only where they are used)
    want = ["bleustats.cli._errors", "bleustats.cli._options", "bleustats.cli._progress",
            "bleustats.cli.main", "bleustats.cli.sacrebleu_cli", "bleustats.cli.score"]
    assert out.strip().splitlines()[-1] == f"0 {want}", out


def test_help_lists_every_subcommand(capsys):
    assert main(["-h"]) == 0
    text = capsys.readouterr().out
    for name in ("score", "stats", "kbest", "tune", "analyze", "study", "demo"):
        assert name in text
    assert main(["nosuchcommand"]) == 2
    assert "invalid choice: 'nosuchcommand'" in capsys.readouterr().err


def test_scoring_text_files_loads_no_parquet_or_pandas(tmp_path):
    """``bleustats score REF -i HYP -b`` (sacreBLEU's output) on text runs the kernels and loads only what it uses.

    Parquet, Arrow's compute functions and pandas cost ~0.1 s of imports
    together: a sixth of a 10,000-segment job's whole process
    (``benchmarks/results/latency.md``). (SciPy's linear algebra is numba's own
    import, its BLAS probe, when the first kernel loads.) The printed score must
    be the kernels' (the same as the API's).
    """
    import random

    rng = random.Random(5)
    words = [f"w{i}" for i in range(300)]
    lines = [" ".join(rng.choices(words, k=rng.randint(5, 40))) for _ in range(12_000)]
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref.write_text("\n".join(lines[3:] + lines[:3]) + "\n", encoding="utf-8")
    assert hyp.stat().st_size > 1_000_000  # above bleustats.engine._small.PLAIN_MAX_CHARS: the kernels run
    code = ("import sys; from bleustats.cli.main import main; rc = main(['score', sys.argv[1], '-i', sys.argv[2], "
            "'-b']); heavy = [m for m in ('pyarrow.compute', 'pyarrow.parquet', 'pandas', "
            "'bleustats.engine.dataset') if m in sys.modules]; "
            "kernels = 'bleustats.engine._stats_kernels' in sys.modules; print(rc, heavy, kernels)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    out = subprocess.run([sys.executable, "-c", code, str(ref), str(hyp)], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    want = bleustats.corpus_bleu(lines, [lines[3:] + lines[:3]]).score
    assert out[-1] == "0 [] True", out
    assert float(out[0]) == pytest.approx(round(want, 1), abs=1e-9), out  # sacreBLEU's -b: one decimal
