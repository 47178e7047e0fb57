"""Fuzzing every reader: a clear refusal or the correct answer, never a traceback.

Each reader gets generated files, valid and broken: arbitrary bytes (bad
UTF-8, NUL, CR, no final newline), gzip (good, truncated, not gzip at all),
TSV / JSONL / Parquet tables with random headers (unknown, repeated, aliased,
missing columns), cells and types, Moses n-best lines, reference weights,
human scores and statistics files with one value or one metadata key broken.
The property: the reader returns what a plain-Python reading of the same
bytes gives, or raises :class:`bleustats.errors.InputError` (``SchemaError``
is one) whose message names the file; any other exception fails the test.
``tests/cli/test_fuzz_cli.py`` runs the command line on such files (no
partial output file, one line on stderr).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.cli._study_inputs import read_human
from bleustats.engine import io
from bleustats.engine.stats import compute_stats, load_stats
from bleustats.errors import InputError
from bleustats.tools.nbest_io import read_nbest, read_references
from ..conftest import examples

pytestmark = pytest.mark.usefixtures("numba_one_thread")

FUZZ = settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
TMP = Path(tempfile.mkdtemp(prefix="bleustats-fuzz-"))
_counter = iter(range(10**9))


def new_file(name: str, data: bytes) -> Path:
    """A fresh file per example (hypothesis runs many examples in one test)."""
    d = TMP / str(next(_counter))
    d.mkdir()
    path = d / name
    path.write_bytes(data)
    return path


def refused_or(fn, path: Path):
    """fn()'s value, or None when it raised an InputError naming ``path``; any other exception fails."""
    try:
        return fn()
    except InputError as exc:
        assert path.name in str(exc), f"the message does not name {path.name}: {exc}"
        return None


# --------------------------------------------------------------------------- strategies

TEXT_ALPHABET = st.sampled_from(list("ab é\t\r\n|") + ["\x00", "中", "\u2028", "\u00a0", "\\"])
texts = st.lists(st.one_of(TEXT_ALPHABET, st.just("|||")), max_size=30).map("".join)
raw_bytes = st.one_of(
    texts.map(lambda t: t.encode("utf-8")),
    st.binary(max_size=60),
    st.lists(texts, max_size=6).map(lambda ls: "\n".join(ls).encode("utf-8")),
    st.lists(texts, max_size=6).map(lambda ls: ("\n".join(ls) + "\n").encode("utf-8")),
)
COLUMNS = ["seg_id", "system", "text", "ref_id", "ref", "weight", "model_score", "extra", "seg_id ", "", "Text"]
CELLS = st.one_of(st.integers(-3, 12).map(str), st.sampled_from(["1.5", "nan", "", "inf", "-0", "1e3", "x", "NaN",
                                                                  "0.25", "-1", "2", "null", '"q"']), texts)


def plain_lines(data: bytes) -> list[str]:
    """sacreBLEU's reading: UTF-8, split on '\\n' only, a final newline ends the last line."""
    text = data.decode("utf-8")
    if not text:
        return []
    return (text[:-1] if text.endswith("\n") else text).split("\n")


# --------------------------------------------------------------------------- text, gz, weights


@FUZZ
@given(data=raw_bytes, gz=st.sampled_from(["plain", "gzip", "truncated", "fake"]))
def test_text_files(data, gz):
    name = "h.txt" if gz == "plain" else "h.txt.gz"
    blob = data
    if gz in ("gzip", "truncated"):
        blob = gzip.compress(data)
        if gz == "truncated":
            blob = blob[: max(1, len(blob) // 2)]
    path = new_file(name, blob)
    got = refused_or(lambda: io.read_lines(path).to_pylist(), path)
    if got is not None:
        assert gz in ("plain", "gzip") or blob == b""  # an empty file is an empty .gz too (Python's gzip)
        assert got == plain_lines(data if gz != "fake" else b"")
    else:
        try:
            plain_lines(data)
            assert gz in ("truncated", "fake"), "valid UTF-8 text was refused"
        except UnicodeDecodeError:
            pass


@FUZZ
@given(data=raw_bytes, chunk=st.integers(1, 4), block=st.integers(1, 9))
def test_line_chunks_of_two_files(data, chunk, block):
    a = new_file("a.txt", data)
    b = new_file("b.txt", data if len(data) % 3 else data + b"\nextra")
    try:
        got = [(first, [x.to_pylist() for x in arrs]) for first, arrs in io.iter_line_chunks([a, b], chunk, block)]
    except InputError as exc:
        assert a.name in str(exc) or b.name in str(exc)
        return
    lines = [line for _, (x, _) in got for line in x]
    assert lines == plain_lines(data)
    assert [line for _, (_, y) in got for line in y] == lines


@FUZZ
@given(lines=st.lists(CELLS, max_size=6), n=st.integers(0, 6))
def test_weight_files(lines, n):
    path = new_file("w.txt", "".join(x.replace("\n", " ") + "\n" for x in lines).encode("utf-8"))
    got = refused_or(lambda: io.read_weights(path, n=n).tolist(), path)
    if got is not None:
        parsed = [float(x.replace("\n", " ")) for x in lines]
        assert len(parsed) == n and got == parsed and all(-1 <= v <= 1 for v in got)


# --------------------------------------------------------------------------- tables


VALID_HEADERS = [["seg_id", "text"], ["seg_id", "system", "text"], ["seg_id", "ref_id", "weight", "text"],
                 ["ref", "seg_id", "text"], ["system", "seg_id", "text", "model_score"]]
TYPED_CELLS = {"seg_id": st.integers(-2, 4).map(str), "weight": st.sampled_from(["1", "0.5", "-1", "-0.25"]),
               "system": st.sampled_from(["A", "B"]), "ref_id": st.sampled_from(["r0", "r1"]),
               "ref": st.sampled_from(["r0", "r1"]), "model_score": st.sampled_from(["-1.5", "0", "2"])}


@st.composite
def tsv_tables(draw):
    """Mostly well-formed headers and cells (so that the correct-answer branch runs), some broken."""
    header = list(draw(st.one_of(st.sampled_from(VALID_HEADERS),
                                 st.lists(st.sampled_from(COLUMNS), min_size=1, max_size=5))))
    rows = []
    for _ in range(draw(st.integers(0, 5))):
        row = [draw(st.one_of(TYPED_CELLS.get(h, texts), CELLS) if draw(st.integers(0, 9)) == 0
                    else TYPED_CELLS.get(h, texts)) for h in header]
        if draw(st.integers(0, 9)) == 0:  # a row with a field too many or too few
            row = row[:-1] if draw(st.booleans()) else row + ["x"]
        rows.append([c.replace("\n", " ").replace("\r", " ").replace("\t", " ") for c in row])
    return header, rows


@FUZZ
@given(table=tsv_tables(), name=st.sampled_from(["hypotheses", "references"]))
def test_tsv_tables(table, name):
    header, rows = table
    text = "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows)
    path = new_file("t.tsv", text.encode("utf-8"))
    got = refused_or(lambda: io.read_table(path, name), path)
    if got is not None:
        assert got.num_rows == len(rows)
        col = header.index("text")
        assert got.column("text").to_pylist() == [r[col] for r in rows]
        sid = header.index("seg_id")
        assert got.column("seg_id").to_pylist() == [int(r[sid]) for r in rows]


@FUZZ
@given(rows=st.lists(st.dictionaries(st.sampled_from(COLUMNS), st.one_of(
    st.integers(-2, 5), st.floats(allow_nan=True), texts, st.none(), st.booleans(),
    st.lists(st.integers(), max_size=2))),
    max_size=5), garbage=st.sampled_from(["", "not json\n", "[1, 2]\n", "{\"seg_id\": \n", "3\n"]),
    name=st.sampled_from(["hypotheses", "references"]))
def test_jsonl_tables(rows, garbage, name):
    text = "".join(json.dumps(r) + "\n" for r in rows) + garbage
    path = new_file("t.jsonl", text.encode("utf-8"))
    got = refused_or(lambda: io.read_table(path, name), path)
    if got is not None:
        assert not garbage and got.num_rows == len(rows)
        assert got.column("text").to_pylist() == [r["text"] for r in rows]
        assert got.column("seg_id").to_pylist() == [r["seg_id"] for r in rows]


ARROW_COLUMNS = st.sampled_from([
    ("seg_id", pa.int64(), st.integers(-3, 9)), ("seg_id", pa.float64(), st.floats(allow_nan=True)),
    ("seg_id", pa.string(), texts), ("text", pa.string(), texts), ("text", pa.large_string(), texts),
    ("text", pa.int32(), st.integers(0, 9)), ("system", pa.string(), st.sampled_from(["A", "B"])),
    ("weight", pa.float64(), st.floats(-2, 2)), ("weight", pa.float64(), st.just(float("nan"))),
    ("ref_id", pa.string(), st.sampled_from(["r0", "r1"])), ("ref", pa.string(), st.sampled_from(["r0", "r1"])),
    ("extra", pa.int64(), st.integers(-2**63, 2**63 - 1)), ("model_score", pa.float64(), st.floats(allow_nan=True)),
])


@FUZZ
@given(cols=st.lists(ARROW_COLUMNS, min_size=1, max_size=5, unique_by=lambda c: c[0]), n=st.integers(0, 4),
       data=st.data(), broken=st.booleans(), name=st.sampled_from(["hypotheses", "references"]))
def test_parquet_tables(cols, n, data, broken, name):
    table = pa.table({c: pa.array([data.draw(s) for _ in range(n)], t) for c, t, s in cols})
    d = TMP / str(next(_counter))
    d.mkdir()
    path = d / "t.parquet"
    pq.write_table(table, path)
    if broken:
        path.write_bytes(path.read_bytes()[: data.draw(st.integers(0, 40))])
    got = refused_or(lambda: io.read_table(path, name), path)
    if got is not None:
        assert not broken and got.num_rows == n
        assert got.column("text").to_pylist() == table.column("text").to_pylist()


# --------------------------------------------------------------------------- n-best lists and references


@st.composite
def nbest_text(draw):
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(texts).replace("\n", " "))  # a malformed line
            continue
        i = draw(st.sampled_from(["0", "1", "2", " 1 ", "-1", "x", "1.0", "3"]))
        hyp = draw(texts).replace("\n", " ").replace("|||", "")
        total = draw(st.sampled_from(["-1.5", "0", "nan", "x", "", "1e9"]))
        extra = draw(st.sampled_from(["", " ||| 0-0 1-1"]))
        lines.append(f"{i} ||| {hyp} ||| F0= -1 ||| {total}{extra}")
    end = draw(st.sampled_from(["\n", ""]))
    return "\n".join(lines) + (end if lines else "")


def _nbest_reference(text: str):
    """Plain-Python reading of a Moses n-best list: (id, hypothesis, total) per line."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        f = line.split("|||")
        out.append((int(f[0].strip()), f[1].strip(), float(f[3].strip())))
    return out


@FUZZ
@given(text=nbest_text(), chunk=st.integers(1, 64))
def test_moses_nbest_lists(text, chunk):
    path = new_file("n.txt", text.encode("utf-8"))
    got = refused_or(lambda: [c for c in read_nbest(path, chunk_bytes=chunk)], path)
    if got is not None:
        assert "nan" not in [line.split("|||")[3].strip() for line in text.split("\n") if line.count("|||") >= 3]
        rows = [(s, t, m) for c in got for s, t, m in zip(c.column("seg_id").to_pylist(), c.column("text").to_pylist(),
                                                         c.column("model_score").to_pylist())]
        want = _nbest_reference(text)
        assert [(s, t) for s, t, _ in rows] == [(s, t) for s, t, _ in want]
        assert all((math.isnan(a) and math.isnan(b)) or a == b for (_, _, a), (_, _, b) in zip(rows, want))
        ids = [s for s, _, _ in rows]
        assert ids == sorted(ids)


@FUZZ
@given(data=raw_bytes, other=raw_bytes)
def test_reference_files_for_kbest(data, other):
    a, b = new_file("r0.txt", data), new_file("r1.txt", other)
    try:
        got = read_references([a, b])
    except InputError as exc:
        assert a.name in str(exc) or b.name in str(exc)
        return
    assert got.num_rows == 2 * len(plain_lines(data)) == 2 * len(plain_lines(other))


# --------------------------------------------------------------------------- human scores


@FUZZ
@given(table=tsv_tables(), column=st.sampled_from(["score", "Text", "extra"]))
def test_human_score_tables(table, column):
    header, rows = table
    header = [{"text": "score", "ref": "system"}.get(h, h) for h in header]
    text = "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows)
    path = new_file("h.tsv", text.encode("utf-8"))
    got = refused_or(lambda: read_human(path, score_column=column), path)
    if got is not None:
        assert {"system", "seg_id", "score"} <= set(got.columns) and len(got) == len(rows)


# --------------------------------------------------------------------------- statistics files


@pytest.fixture(scope="module")
def stats_file():
    st_ = compute_stats(["a b c d", "a x", ""], [["a b c e", "a x y"], ["a x"], ["z"]], references_layout="segments",
                        ref_weights=[[0.5, -0.25], [1.0], [0.75]], tokenize="none", max_ngram_order=3)
    return st_.table


@FUZZ
@given(data=st.data())
def test_statistics_files(stats_file, data):
    table = stats_file
    how = data.draw(st.sampled_from(["cell", "metadata", "drop", "extra", "bytes", "none"]))
    if how == "cell":
        name = data.draw(st.sampled_from(table.column_names[2:]))
        row = data.draw(st.integers(0, table.num_rows - 1))
        values = table.column(name).to_pylist()
        typ = table.schema.field(name).type
        values[row] = (data.draw(st.integers(-3, 12)) if pa.types.is_integer(typ)
                       else data.draw(st.one_of(st.floats(-3, 12), st.just(float("nan")))))
        table = table.set_column(table.column_names.index(name), name, pa.array(values, typ))
    elif how == "metadata":
        key = data.draw(st.sampled_from(sorted(table.schema.metadata)))
        value = data.draw(st.sampled_from([b"", b"x", b"0", b"99", b"\xff", b"true", b"threshold", b"nan"]))
        table = table.replace_schema_metadata({**table.schema.metadata, key: value})
    elif how == "drop":
        table = table.drop_columns([data.draw(st.sampled_from(table.column_names))])
    elif how == "extra":
        table = table.append_column(data.draw(st.sampled_from(["match_4", "entry", "x"])),
                                    pa.array(np.zeros(table.num_rows, np.int64)))
    d = TMP / str(next(_counter))
    d.mkdir()
    path = d / "stats.parquet"
    pq.write_table(table, path)
    if how == "bytes":
        path.write_bytes(path.read_bytes()[: data.draw(st.integers(0, 200))])
    got = refused_or(lambda: load_stats(path), path)
    if got is not None:
        assert how in ("cell", "metadata", "none")
        # what loads satisfies the invariants the kernels guarantee
        for n in range(1, got.max_ngram_order + 1):
            assert (got.column(f"match_{n}") <= got.column(f"total_{n}")).all()
            assert (got.column(f"total_{n}") == np.maximum(0, got.column("hyp_len") - n + 1)).all()


def teardown_module(module):  # noqa: ARG001
    import shutil

    shutil.rmtree(TMP, ignore_errors=True)
    assert not os.path.exists(TMP)


def test_a_human_column_beside_a_score_column_is_the_one_read(tmp_path):
    # found by test_human_score_tables: renaming --human-column mqm to `score` next to a `score` column gave two
    # columns of one name, and pandas' TypeError instead of the scores
    path = tmp_path / "h.tsv"
    path.write_text("system\tseg_id\tscore\tmqm\nA\t1\t0.5\t-3\nA\t2\tx\t-1\n", encoding="utf-8")
    got = read_human(path, score_column="mqm")
    assert list(got.columns) == ["system", "seg_id", "score"] and got["score"].tolist() == [-3.0, -1.0]


@pytest.mark.parametrize("column", ["system", "seg_id"])
def test_a_key_column_as_the_human_column_is_refused(tmp_path, column):
    path = tmp_path / "h.tsv"
    path.write_text("system\tseg_id\tmqm\nA\t1\t-3\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"--human-column {column} names a key column"):
        read_human(path, score_column=column)
