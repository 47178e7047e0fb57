"""Every command-line error path: exit 1 with ONE line on stderr naming the input and the fix (usage: 2).

Two parts. A list of the known error paths of every subcommand,
each with the exit code and the words its one line must hold (the input it
names and the fix it offers). And hypothesis-generated broken input files fed
to ``score``, ``stats -o``, ``kbest -o`` and ``study -o``: whatever the bytes,
the command exits 0, 1 or 2, never with a traceback; a failed command prints
exactly one line that names one of its inputs or options and writes neither
its output nor a temporary file (outputs are all-or-nothing).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.cli import main
from ..conftest import examples

pytestmark = pytest.mark.usefixtures("numba_one_thread")

HYP = "the cat sat on the mat\na dog barked\n"
REF = "the cat sat on a mat\nthe dog barked\n"


def run(capsys, argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def d(tmp_path):
    (tmp_path / "hyp.txt").write_text(HYP, encoding="utf-8")
    (tmp_path / "ref.txt").write_text(REF, encoding="utf-8")
    (tmp_path / "short.txt").write_text("one line\n", encoding="utf-8")
    (tmp_path / "w.txt").write_text("1\nx\n", encoding="utf-8")
    (tmp_path / "hyps.tsv").write_text("seg_id\tsystem\ttext\n0\tA\ta b\n0\tA\ta b\n", encoding="utf-8")
    (tmp_path / "refs.tsv").write_text("seg_id\ttext\n0\ta b\n", encoding="utf-8")
    (tmp_path / "nbest.txt").write_text("0 ||| a b ||| F0= 1 ||| 1\n2 ||| c ||| F0= 1 ||| 1\n", encoding="utf-8")
    (tmp_path / "human.tsv").write_text("system\tseg_id\tmqm\nA\t0\t1\n", encoding="utf-8")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not parquet")
    return tmp_path


#: (argv, exit code, words the one line must hold: the input it names, the fix it offers)
ERROR_PATHS = [
    (["score", "{d}/ref.txt", "-i", "{d}/missing.txt"], 1, ["missing.txt", "check the path"]),
    (["score", "{d}/short.txt", "-i", "{d}/hyp.txt"], 1, ["short.txt has 1", "one line per hypothesis line"]),
    (["score", "-i", "{d}/hyp.txt"], 1, ["no references", "give reference files"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--ref-weights", "{d}/w.txt"], 1, ["w.txt", "line 2 is 'x'"]),
    (["score", "{d}/refs.tsv", "-i", "{d}/hyps.tsv"], 1, ["hyps.tsv", "drop the repeated rows"]),
    (["score", "{d}/ref.txt", "{d}/refs.tsv", "-i", "{d}/hyp.txt"], 1, ["refs.tsv is a table", "not a mix"]),
    (["score", "{d}/refs.tsv", "-i", "{d}/hyp.txt"], 1, ["no reference: seg_id 1", "add references"]),
    (["score", "--from-stats", "{d}/bad.parquet"], 1, ["bad.parquet", "cannot be read"]),
    (["score", "--from-stats", "{d}/bad.parquet", "{d}/ref.txt"], 2, ["--from-stats", "drop REF and -i"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--weight-threshold", "0.5"], 2, ["--weight-threshold",
                                                                                     "add --ref-view threshold"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--max-ngram-order", "4", "-sv", "2"], 2,
     ["-sv/--smooth-value", "Drop -sv"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "-b", "--json"], 2, ["-b/--score-only", "choose one"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--by", "nope"], 1, ["by must be a column", "nope"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--max-ngram-order", "0"], 2, ["--max-ngram-order"]),
    (["score", "{d}/ref.txt", "-i", "{d}/hyp.txt", "--nope"], 2, ["unrecognized arguments: --nope"]),
    (["stats", "{d}/ref.txt", "-i", "{d}/hyp.txt", "-o", "{d}/no/such/dir/s.parquet"], 1,
     ["s.parquet", "does not exist; create it first", "Nothing was computed"]),
    (["score", "-i", "{d}/hyp.txt", "{d}/ref.txt"], 1, ["no references", "before -i"]),  # issue 36: not a system
    (["kbest", "{d}/nbest.txt", "{d}/ref.txt"], 1,
     ["nbest.txt: 1 source(s) have entries but no reference in", "(id 2;"]),
    (["kbest", "{d}/nbest.txt", "{d}/ref.txt", "--no-stats"], 2, ["--no-stats", "add -o"]),
    (["kbest", "{d}/nbest.txt", "{d}/ref.txt", "--ilr", "0.9"], 2, ["--ilr", "nakov:scaled"]),
    (["kbest", "{d}/hyp.txt", "{d}/ref.txt"], 1, ["hyp.txt: line 1", "Moses n-best"]),
    (["kbest", "{d}/nbest.txt", "{d}/ref.txt", "-m", "bleu+2"], 1, ["bleu+2"]),
    (["analyze", "{d}/ref.txt", "-i", "{d}/short.txt"], 1, ["ref.txt: has 2 lines", "one line per hypothesis"]),
    (["study", "--hypotheses", "{d}/hyps.tsv", "--references", "{d}/refs.tsv", "--human", "{d}/human.tsv", "-o",
      "{d}/s"], 1, ["hyps.tsv"]),
    (["study", "--hypotheses", "{d}/hyp.txt", "--references", "{d}/refs.tsv", "--human", "{d}/human.tsv", "-o",
      "{d}/s"], 1, ["hyp.txt: unknown table format '.txt'", "expected one of"]),
    (["study", "--hypotheses", "{d}/refs.tsv", "--references", "{d}/refs.tsv", "--human", "{d}/human.tsv", "-o",
      "{d}/s"], 1, ["human.tsv", "--human-column mqm"]),
]


@pytest.mark.parametrize("argv, code, words", ERROR_PATHS, ids=[" ".join(a[:1] + a[-2:]) for a, _, _ in ERROR_PATHS])
def test_each_error_path_is_one_line_with_the_input_and_the_fix(capsys, d, argv, code, words):
    rc, out, err = run(capsys, [a.format(d=d) for a in argv])
    assert rc == code, err
    lines = err.splitlines()
    assert len(lines) == 1, err  # argparse's usage errors too
    assert lines[-1].startswith("bleustats"), err
    for w in words:
        assert w in lines[-1], (w, err)
    assert out == ""
    assert not [p.name for p in d.rglob(".*") if p.name.endswith((".tmp", ".old"))]
    assert not (d / "s").exists()


# --------------------------------------------------------------------------- generated broken inputs

FUZZ = settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
CELL = st.sampled_from(["0", "1", "-1", "x", "", "0.5", "nan", "a b", "é", "1\r", "2"])


@st.composite
def tsv(draw, columns):
    header = list(draw(st.one_of(st.just(columns), st.lists(st.sampled_from(columns + ["extra", "ref", "x"]),
                                                             min_size=1, max_size=4))))
    rows = draw(st.lists(st.lists(CELL, min_size=len(header) - 1, max_size=len(header) + 1), max_size=4))
    return ("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows)).encode("utf-8")


LINES = st.one_of(st.binary(max_size=40),
                  st.lists(st.sampled_from(["a b", "the cat", "", "é", "\xa0", "0 ||| a ||| F0= 1 ||| 1",
                                            "1 ||| b ||| x ||| 2", "1 ||| c"]), max_size=4)
                  .map(lambda ls: "".join(x + "\n" for x in ls).encode("utf-8")))


def _check(rc: int, err: str, names: list[str], outputs: list[Path]) -> None:
    assert rc in (0, 1, 2), err
    assert "Traceback" not in err
    if rc:
        # Informational notices (a column alias taken, ratings of references set aside) may precede the one
        # error line.
        notices = (" read as the ", "are not system ratings: left out of the study")
        lines = [line for line in err.splitlines() if line.strip() and not any(n in line for n in notices)]
        assert lines and lines[-1].startswith("bleustats"), err
        assert rc == 2 or len(lines) == 1 or (len(lines) == 2 and "computing statistics" in lines[0]), err
        assert any(n in lines[-1] for n in names) or " -" in lines[-1] or "no segments" in lines[-1], err
        for o in outputs:
            assert not o.exists(), f"{o} written by a failed command"
        folder = outputs[0].parent
        assert not [p for p in folder.iterdir() if p.name.startswith(".")], "a temporary file was left"


@FUZZ
@given(hyp=LINES, ref=LINES, table=st.booleans(), hyps=tsv(["seg_id", "system", "text"]),
       refs=tsv(["seg_id", "ref_id", "weight", "text"]))
def test_stats_on_generated_inputs(capsys, hyp, ref, table, hyps, refs):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        names = ["h.tsv", "r.tsv"] if table else ["h.txt", "r.txt"]
        (d / names[0]).write_bytes(hyps if table else hyp)
        (d / names[1]).write_bytes(refs if table else ref)
        out = d / "out" / "s.parquet"
        out.parent.mkdir()
        rc, _, err = run(capsys, ["stats", d / names[1], "-i", d / names[0], "-o", out])
        _check(rc, err, names, [out])
        if rc == 0:
            rc, _, err = run(capsys, ["score", "--from-stats", out, "--max-ngram-order", "2"])
            assert rc == 0, err


@FUZZ
@given(nbest=LINES, ref=LINES)
def test_kbest_on_generated_inputs(capsys, nbest, ref):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "n.txt").write_bytes(nbest)
        (d / "r.txt").write_bytes(ref)
        out = d / "out" / "k.parquet"
        out.parent.mkdir()
        rc, _, err = run(capsys, ["kbest", d / "n.txt", d / "r.txt", "-o", out, "--scores-txt", out.with_suffix(".txt"),
                                  "--allow-missing-sources"])
        _check(rc, err, ["n.txt", "r.txt", "nbest"], [out, out.with_suffix(".txt")])


@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(hyps=tsv(["seg_id", "system", "text"]), refs=tsv(["seg_id", "ref_id", "weight", "text"]),
       human=tsv(["system", "seg_id", "score"]))
def test_study_on_generated_inputs(capsys, hyps, refs, human):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name, data in (("h.tsv", hyps), ("r.tsv", refs), ("s.tsv", human)):
            (d / name).write_bytes(data)
        out = d / "out" / "res"
        out.parent.mkdir()
        rc, _, err = run(capsys, ["study", "--hypotheses", d / "h.tsv", "--references", d / "r.tsv", "--human",
                                  d / "s.tsv", "-o", out, "--unit-size", "1", "--assignments", "2", "--bootstrap", "0"])
        _check(rc, err, ["h.tsv", "r.tsv", "s.tsv", "human", "unit_size", "references", "pairs"], [out])


# --------------------------------------------------------------------------- every writer × every kind of output path
#
# Issue 26: whatever the output path names, a writer replaces a regular file atomically, writes a link's target
# (the link stays), writes a FIFO through (never replaced), refuses a folder, a missing parent folder and an input
# (or a link to one) with one line, and leaves no temporary file. A folder output (a dataset) refuses a FIFO.
# Issue 36: an existing output (a file, a folder, a link's existing target) is replaced only with --replace.

NBEST = "0 ||| the cat sat ||| F0= 1 ||| 1\n0 ||| a cat ||| F0= 2 ||| 2\n1 ||| a dog barked ||| F0= 1 ||| 1\n"

#: (name, argv with {o} the output path; inputs under {i}); True: the output is a folder (a dataset)
WRITERS = {
    "stats -o": (["stats", "{i}/ref.txt", "-i", "{i}/hyp.txt", "-o", "{o}"], False),
    "stats -o DIR/": (["stats", "{i}/ref.txt", "-i", "{i}/hyp.txt", "-o", "{o}/"], True),
    "score --save-stats": (["score", "{i}/ref.txt", "-i", "{i}/hyp.txt", "--save-stats", "{o}"], False),
    "score --segment-scores": (["score", "{i}/ref.txt", "-i", "{i}/hyp.txt", "--segment-scores", "{o}.tsv"], False),
    "kbest -o": (["kbest", "{i}/nbest.txt", "{i}/ref.txt", "-o", "{o}"], False),
    "kbest --scores-txt": (["kbest", "{i}/nbest.txt", "{i}/ref.txt", "--scores-txt", "{o}"], False),
    "kbest --features-txt": (["kbest", "{i}/nbest.txt", "{i}/ref.txt", "--features-txt", "{o}"], False),
    "tune -o": (["tune", "{i}/nbest.txt", "-r", "{i}/ref.txt", "-o", "{o}"], False),
    "tune --best": (["tune", "{i}/nbest.txt", "-r", "{i}/ref.txt", "--best", "{o}"], False),
    "correlate -o": (["correlate", "--human", "{i}/human.tsv", "--scores", "{i}/scores.tsv", "--level", "system",
                      "-o", "{o}"], False),
}
PATH_KINDS = ["new", "regular", "regular --replace", "symlink", "symlink --replace", "dangling", "fifo", "folder",
              "folder --replace", "missing_parent", "input", "link_to_input"]


def _nonblocking_read(fd: int) -> bytes:
    import os

    got = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return got
        if not chunk:
            return got
        got += chunk


@pytest.mark.parametrize("kind", PATH_KINDS)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_writer_on_every_kind_of_output_path(capsys, tmp_path, writer, kind):
    import os
    import stat

    i, o = tmp_path / "in", tmp_path / "out"
    i.mkdir()
    o.mkdir()
    (i / "hyp.txt").write_text(HYP, encoding="utf-8")
    (i / "ref.txt").write_text(REF, encoding="utf-8")
    (i / "nbest.txt").write_text(NBEST, encoding="utf-8")
    (i / "human.tsv").write_text("system\tseg_id\tscore\nA\t0\t1\nB\t0\t2\nC\t0\t4\n", encoding="utf-8")
    (i / "scores.tsv").write_text("system\tseg_id\tm\nA\t0\t0.1\nB\t0\t0.5\nC\t0\t0.7\n", encoding="utf-8")
    inputs = {p: p.read_bytes() for p in i.iterdir()}
    argv, folder_output = WRITERS[writer]
    first_input = i / next(a for a in argv if a.startswith("{i}/")).split("/", 1)[1]
    suffix = ".tsv" if any(a == "{o}.tsv" for a in argv) else ""  # --segment-scores: the extension picks the format
    argv = [a.replace("{o}.tsv", "{o}") for a in argv]
    kind, _, replace = kind.partition(" ")
    if replace:
        argv = [*argv, replace]
    target = o / f"result{suffix}"
    path = target
    reader = None
    if kind == "regular":
        target.write_bytes(b"old")
    elif kind in ("symlink", "dangling"):
        (o / "real").mkdir()
        target = o / "real" / f"result{suffix}"
        if kind == "symlink":
            target.write_bytes(b"old")
        path = o / f"link{suffix}"
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(target)
        reader = os.open(target, os.O_RDONLY | os.O_NONBLOCK)  # a reader there: the writer cannot block
    elif kind == "folder":
        target.mkdir()
        (target / "keep.txt").write_text("mine")
    elif kind == "missing_parent":
        path = target = o / "no" / "such" / f"result{suffix}"
    elif kind == "input":
        path = target = first_input
    elif kind == "link_to_input":
        path = o / f"link{suffix}"
        path.symlink_to(first_input)
        target = first_input
    try:
        rc, _, err = run(capsys, [a.format(i=i, o=path) for a in argv])
        got = _nonblocking_read(reader) if reader is not None else None
    finally:
        if reader is not None:
            os.close(reader)
    assert "Traceback" not in err and rc in (0, 1, 2), err
    if rc:
        assert err.strip().count("\n") == 0 and err.startswith("bleustats"), err
    assert {p: p.read_bytes() for p in inputs} == inputs, "an input was changed"
    leftovers = [p for p in tmp_path.rglob(".*")]
    assert not leftovers, f"temporary files left: {leftovers}"
    if kind == "input" and suffix:  # a .txt input is no --segment-scores path
        assert rc == 2 and "extension picks the format" in err, err
    elif kind in ("input", "link_to_input"):
        assert rc == 2 and "an input" in err, err
    elif kind == "missing_parent":
        assert rc == 1 and "no" not in [p.name for p in o.iterdir()], err
    elif kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(target).st_mode), "the FIFO was replaced"
        if folder_output:
            assert rc == 1 and "is a FIFO" in err, err
        else:
            assert rc == 0 and got, err
    elif kind == "folder":
        assert target.is_dir() and (target / "keep.txt").read_text() == "mine"
        if not folder_output:
            assert rc == 1 and "is a folder" in err, err
        elif not replace:  # refused before any work
            assert rc == 1 and "exists; add --replace" in err, err
        else:  # a folder that is not a dataset is never replaced
            assert rc == 1 and "not a bleustats statistics dataset" in err, err
    elif folder_output and kind in ("regular", "symlink"):  # a rename would replace the file: refused
        assert rc == 1 and "is a regular file" in err and target.read_bytes() == b"old", err
    elif kind in ("regular", "symlink") and not replace:  # the one rule: an existing output needs --replace
        assert rc == 1 and "exists; add --replace" in err and target.read_bytes() == b"old", err
    else:  # new, regular, symlink, dangling: written, a link stays a link to the written target
        assert rc == 0, err
        if kind in ("symlink", "dangling"):
            assert path.is_symlink() and os.readlink(path) == str(target)
        if folder_output:
            assert target.is_dir() and (target / "_bleustats_manifest.json").is_file()
        else:
            assert target.is_file() and target.read_bytes() not in (b"", b"old")
