"""Every input form gives the same statistics; bad input fails with a clear error.

1. The same corpus given as sacreBLEU-style lists, per-segment lists, pandas and
   Arrow long-form tables, plain-text files (as sacreBLEU reads them), TSV,
   JSONL and Parquet tables gives the identical statistics table.
2. Long-form hypotheses with several systems per segment, rows shuffled:
   statistics rows come back in input order, each equal to scoring it alone.
3. Bad input: each error names the input (and row), what was expected and the fix.
   (Bad scoring options and empty inputs: tests/metrics/test_inputs.py.)

Expected numbers come from running sacreBLEU 2.6.0 (pinned) on the same input.
"""

from __future__ import annotations

import gzip
import json
import random
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

import bleustats
from bleustats.engine import io as bio
from bleustats.metrics import tables as scoring
from bleustats.errors import InputError
from bleustats.errors import SchemaError
from bleustats.engine.stats import compute_stats

assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; expected numbers assume 2.6.0"

pytestmark = pytest.mark.usefixtures("numba_one_thread")

# --------------------------------------------------------------------------- data

#: Five segments; text with quotes, entities, numbers, non-ASCII and repeats.
HYPS = [
    'He said "hello" to the cat.',
    "The cat sat on the mat , the mat .",
    "Prices rose 3.5 % in 2015-2016 &amp; fell.",
    "Grüße aus Köln – «schön»!",
    "a a a a b",
]
#: Two sacreBLEU reference streams; stream 1 has no reference for segment 2.
REFS = [
    [
        'He said "hi" to the cat.',
        "The cat is on the mat.",
        "Prices rose 3.5 % in 2015 and fell.",
        "Grüße aus Köln!",
        "a a b",
    ],
    [
        "He told the cat hello.",
        "A cat sat on a mat.",
        None,
        "Schöne Grüße aus Köln – «schön»!",
        "a b a b",
    ],
]
#: ΔBLEU weights of the same shape (the weight of a None reference is never read).
WEIGHTS = [[1.0, 0.8, 1.0, 0.5, 1.0], [-0.5, 0.3, 0.0, 1.0, 0.25]]
N_SEG = len(HYPS)

#: Full streams (no None) for plain-text files, where a stream is a file.
FILE_REFS = [
    REFS[0],
    ["He told the cat hello.", "A cat sat on a mat.", "", "Schöne Grüße!", "a b a b"],
]
FILE_WEIGHTS = [[1.0, 0.8, 1.0, 0.5, 1.0], [-0.5, 0.3, 0.1, 1.0, 0.25]]


def long_hyps(hyps=HYPS, system="hyp") -> pd.DataFrame:
    return pd.DataFrame({"seg_id": np.arange(len(hyps)), "system": system, "text": hyps})


def long_refs(streams=REFS, weights=WEIGHTS) -> pd.DataFrame:
    """Long form, segment-major, streams in order inside a segment (as io builds it)."""
    rows = [
        (i, f"r{k}", weights[k][i], streams[k][i])
        for i in range(len(streams[0]))
        for k in range(len(streams))
        if streams[k][i] is not None
    ]
    return pd.DataFrame(rows, columns=["seg_id", "ref_id", "weight", "text"])


def per_segment(streams=REFS, weights=WEIGHTS):
    """(references, ref_weights) as one list per segment."""
    refs = [[s[i] for s in streams if s[i] is not None] for i in range(len(streams[0]))]
    wts = [
        [w[i] for s, w in zip(streams, weights) if s[i] is not None] for i in range(len(streams[0]))
    ]
    return refs, wts


def table_dict(st) -> dict:
    return {name: st.column(name).tolist() for name in st.table.column_names}


def assert_same_stats(got, want) -> None:
    assert got.table.column_names == want.table.column_names
    g, w = table_dict(got), table_dict(want)
    for name in w:
        assert g[name] == w[name], name


def sacre_matrix(hyps, streams, tokenize="13a", lowercase=False, order=4) -> np.ndarray:
    """sacreBLEU's per-segment [hyp_len, ref_len, correct_1..N, total_1..N]."""
    metric = BLEU(tokenize=tokenize, lowercase=lowercase, max_ngram_order=order)
    out = metric._extract_corpus_statistics(hyps, streams)
    return np.array(out, dtype=np.int64).reshape(-1, 2 + 2 * order)


def our_matrix(st, order=4) -> np.ndarray:
    cols = (
        ["hyp_len", "ref_len_closest"]
        + [f"match_{n}" for n in range(1, order + 1)]
        + [f"total_{n}" for n in range(1, order + 1)]
    )
    return np.stack([st.column(c) for c in cols], axis=1).reshape(-1, 2 + 2 * order)


@pytest.fixture(scope="module")
def base():
    """The statistics of the sacreBLEU-style list input; every other form must equal it."""
    st = compute_stats(HYPS, REFS, ref_weights=WEIGHTS)
    # the BLEU part is sacreBLEU's (None = no reference in that stream)
    np.testing.assert_array_equal(our_matrix(st), sacre_matrix(HYPS, REFS))
    return st


# --------------------------------------------------------------------------- 1. forms, in memory


def test_streams_match_sacrebleu_per_segment(base):
    assert len(base) == N_SEG
    assert base.column("n_refs").tolist() == [2, 2, 1, 2, 2]
    assert base.column("seg_id").tolist() == list(range(N_SEG))
    assert set(base.column("system")) == {"hyp"}
    ours = bleustats.corpus_bleu(HYPS, REFS)
    theirs = sacrebleu.corpus_bleu(HYPS, REFS)
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.score == pytest.approx(theirs.score, abs=1e-9)


def test_per_segment_lists_with_ref_weights(base):
    refs, wts = per_segment()
    assert_same_stats(
        compute_stats(HYPS, refs, ref_weights=wts, references_layout="segments"), base
    )


def test_per_segment_lists_with_text_weight_pairs(base):
    refs, wts = per_segment()
    pairs = [[(t, w) if w != 1.0 else t for t, w in zip(r, ws)] for r, ws in zip(refs, wts)]
    assert any(isinstance(p, str) for seg in pairs for p in seg)  # plain str items mix with pairs
    assert_same_stats(compute_stats(HYPS, pairs, references_layout="segments"), base)


def test_per_segment_lists_are_read_only_when_named(base):
    refs, wts = per_segment()
    refs.append(["extra reference"])
    # lists are sacreBLEU's streams: the error names the first short stream and the other layout ...
    with pytest.raises(
        InputError,
        match=r"^references\[0\] has 2 lines but there are 5 hypotheses\. sacreBLEU's layout is one list per "
        r"reference stream.*pass references_layout='segments'",
    ):
        compute_stats(HYPS, refs)
    # ... which, asked for, reports the count of per-segment lists
    with pytest.raises(
        InputError, match=r"references has 6 per-segment lists but there are 5 hypotheses"
    ):
        compute_stats(HYPS, refs, references_layout="segments")
    refs, wts = per_segment()  # n_hyp lists of references: never guessed to be per-segment lists
    with pytest.raises(InputError, match=r"references\[0\] has 2 lines but there are 5 hypotheses"):
        compute_stats(HYPS, refs, ref_weights=wts)
    assert_same_stats(compute_stats(HYPS, refs, ref_weights=wts, references_layout="segments"), base)


def test_pandas_long_form(base):
    assert_same_stats(compute_stats(long_hyps(), long_refs()), base)


def test_arrow_long_form_safe_casts_and_column_order(base):
    h, r = long_hyps(), long_refs()
    hyps = pa.table(
        {
            "text": pa.array(h["text"].tolist(), pa.large_string()),
            "seg_id": pa.array(h["seg_id"].tolist(), pa.int32()),
            "system": pa.array(h["system"].tolist(), pa.large_string()),
        }
    )
    refs = pa.table(
        {
            "text": pa.array(r["text"].tolist(), pa.large_string()),
            "weight": pa.array(r["weight"].tolist(), pa.float64()),
            "ref_id": pa.array(r["ref_id"].tolist()).dictionary_encode(),
            "seg_id": pa.array(r["seg_id"].tolist(), pa.int32()),
        }
    )
    assert_same_stats(compute_stats(hyps, refs), base)
    # an unknown column is an error naming it and the expected columns: ignored, a misnamed column
    # would silently fall back to its default
    with pytest.raises(SchemaError, match=r"unknown column 'note': a hypotheses table has seg_id, system, text"):
        compute_stats(hyps.append_column("note", pa.array(["x"] * len(h))), refs)
    with pytest.raises(SchemaError, match=r"unknown column 'extra': a references table has seg_id, ref_id \(or ref\)"):
        compute_stats(hyps, refs.append_column("extra", pa.array(range(len(r)))))


def test_pandas_long_form_other_column_order_and_categoricals(base):
    h, r = long_hyps(), long_refs()
    h = h[["text", "system", "seg_id"]].assign(
        system=lambda d: d["system"].astype("category"), model_score=1.5
    )
    r = r[["text", "weight", "seg_id", "ref_id"]].assign(
        seg_id=lambda d: d["seg_id"].astype("int32")
    )
    # a filtered frame keeps its old index; the index must not leak in as a column
    r = pd.concat([r, r.iloc[:1].assign(seg_id=999)]).iloc[:-1]
    assert_same_stats(compute_stats(h, r), base)


@pytest.mark.parametrize("typ", [pa.string(), pa.large_string()], ids=["string", "large_string"])
def test_arrow_hypotheses_and_reference_streams(typ):
    # an Arrow string array (or chunked array) of hypotheses, a list of Arrow arrays as streams
    want = compute_stats(HYPS, FILE_REFS, ref_weights=FILE_WEIGHTS)
    hyps = pa.array(HYPS, typ)
    streams = [pa.array(s, typ) for s in FILE_REFS]
    assert_same_stats(compute_stats(hyps, streams, ref_weights=FILE_WEIGHTS), want)
    chunked = pa.chunked_array([hyps[:2], hyps[2:]])
    mixed = [pa.chunked_array([streams[0][:3], streams[0][3:]]), streams[1]]
    assert_same_stats(compute_stats(chunked, mixed, ref_weights=FILE_WEIGHTS), want)
    assert_same_stats(compute_stats(HYPS, streams), compute_stats(HYPS, FILE_REFS))
    with pytest.raises(
        InputError, match=r"hypotheses: an Arrow array must hold strings; got int64"
    ):
        compute_stats(pa.array([1, 2]), [["a", "b"]])
    with pytest.raises(
        InputError, match=r"hypotheses: 1 null value\(s\); every segment needs a string"
    ):
        compute_stats(pa.array(["a", None]), [["a", "b"]])
    with pytest.raises(InputError, match=r"references\[1\]: has 4 lines but the hypotheses have 5"):
        compute_stats(hyps, [streams[0], streams[1][:4]])


#: Arrow reference streams are checked as list streams are: ref_weights[k][i], the range,
#: the value and the fix; a wrong shape names the stream; a non-string stream its type.
ARROW_STREAM_WEIGHT_ERRORS = {
    "out_of_range": (
        [[1, 1], [1, 2.0]],
        r"^ref_weights\[1\]\[1\] must be in \[-1, 1\] \(ΔBLEU reference weights\); got 2\.0\. "
        r"Rescale the human scores to \[-1, 1\] first\.$",
    ),
    "nan": (
        [[1, 1], [float("nan"), 1]],
        r"^ref_weights\[1\]\[0\] must be in \[-1, 1\] \(ΔBLEU reference weights\); got nan\.",
    ),
    "all_bool": (
        [[1, 1], [True, False]],
        r"^ref_weights\[1\]\[0\] must be a number in \[-1, 1\]; got bool True\.$",
    ),
    "string": (
        [[1, 1], ["x", 1]],
        r"^ref_weights\[1\]\[0\] must be a number in \[-1, 1\]; got str 'x'\.$",
    ),
    "None": (
        [[1, 1], [None, 1]],
        r"^ref_weights\[1\]\[0\] must be a number in \[-1, 1\]; got NoneType None\.$",
    ),
    "short": (
        [[1, 1], [1]],
        r"^ref_weights\[1\] must hold one weight per reference line \(2\); got shape \(1,\)\.$",
    ),
    "long": (
        [[1, 1, 1], [1, 1]],
        r"^ref_weights\[0\] must hold one weight per reference line \(2\); got shape \(3,\)\.$",
    ),
    "nested": (
        [[1, 1], [[1], [1]]],
        r"^ref_weights\[1\] must hold one weight per reference line \(2\); got shape \(2, 1\)\.$",
    ),
    "one_list_for_two_streams": (
        [[1, 1]],
        r"^ref_weights must have one list per reference stream \(2\); got 1\.$",
    ),
}


@pytest.mark.parametrize("case", [*ARROW_STREAM_WEIGHT_ERRORS, "int_stream"])
def test_arrow_reference_streams_are_checked_as_lists_are(case):
    streams = [pa.array(["a b", "c d"]), pa.array(["x", "y"])]
    if case == "int_stream":
        with pytest.raises(
            InputError,
            match=r"^references\[1\]: an Arrow reference stream must hold strings; got int64\.$",
        ):
            compute_stats(H2, [streams[0], pa.array([1, 2])])
        return
    wts, match = ARROW_STREAM_WEIGHT_ERRORS[case]
    with pytest.raises(InputError, match=match):
        compute_stats(H2, streams, ref_weights=wts)


def test_arrow_reference_streams_accept_array_weights():
    # numpy and Arrow weight arrays in range are accepted, as lists are
    streams = [pa.array(["a b", "c d"]), pa.array(["x", "y"])]
    want = compute_stats(H2, [["a b", "c d"], ["x", "y"]], ref_weights=[[1, 0.5], [-0.5, 1]])
    for wts in ([np.array([1, 0.5]), pa.array([-0.5, 1.0])], np.array([[1, 0.5], [-0.5, 1]])):
        assert_same_stats(compute_stats(H2, streams, ref_weights=wts), want)


@pytest.mark.parametrize(
    "bad", [[True, 1], [True, 0.5], [np.True_, 0.5]], ids=["int", "float", "np"]
)
def test_arrow_reference_stream_bool_weight_mixed_with_numbers(bad):
    streams = [pa.array(["a b", "c d"]), pa.array(["x", "y"])]
    with pytest.raises(
        InputError, match=r"^ref_weights\[1\]\[0\] must be a number in \[-1, 1\]; got bool"
    ):
        compute_stats(H2, streams, ref_weights=[[1, 1], bad])


def test_long_form_reference_weights_default_to_one():
    h = long_hyps()
    r = long_refs(weights=[[1.0] * N_SEG] * 2)
    got = compute_stats(h, r.drop(columns=["weight", "ref_id"]))
    assert_same_stats(got, compute_stats(HYPS, REFS))
    assert got.weights == "uniform"


# --------------------------------------------------------------------------- 1. forms, files


def sacre_read(path) -> list[str]:
    """Lines as sacreBLEU reads a file: newline='\\n', then rstrip()."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as fh:
        return [line.rstrip() for line in fh]


#: How a list of lines becomes the bytes of a text file.
FILE_VARIANTS = {
    "trailing_newline": (".txt", lambda lines: ("\n".join(lines) + "\n").encode()),
    "no_trailing_newline": (".txt", lambda lines: "\n".join(lines).encode()),
    "crlf": (".txt", lambda lines: ("\r\n".join(lines) + "\r\n").encode()),
    "crlf_no_trailing": (".txt", lambda lines: "\r\n".join(lines).encode()),
    "trailing_spaces": (".txt", lambda lines: ("".join(x + " \t\n" for x in lines)).encode()),
    "gzip": (".txt.gz", lambda lines: gzip.compress(("\n".join(lines) + "\n").encode())),
}


def write_lines(path, lines, variant) -> None:
    path.write_bytes(FILE_VARIANTS[variant][1](lines))


#: An empty last line needs a final newline to exist at all.
FILE_CASES = [(v, False) for v in sorted(FILE_VARIANTS)] + [
    (v, True) for v in sorted(FILE_VARIANTS) if "no_trailing" not in v
]


@pytest.mark.parametrize(
    "variant, last_empty",
    FILE_CASES,
    ids=[v + ("-empty_last_line" if e else "") for v, e in FILE_CASES],
)
def test_plain_text_files_read_as_sacrebleu(tmp_path, variant, last_empty):
    suffix = FILE_VARIANTS[variant][0]
    hyps = HYPS + [""] if last_empty else HYPS
    streams = [s + ["last"] for s in FILE_REFS] if last_empty else FILE_REFS
    hp = tmp_path / f"hyp{suffix}"
    rps = [tmp_path / f"ref{k}{suffix}" for k in range(len(streams))]
    write_lines(hp, hyps, variant)
    for p, s in zip(rps, streams):
        write_lines(p, s, variant)

    got_h = bio.read_lines(hp)
    assert got_h.type == pa.string()
    want_h = sacre_read(hp)
    assert len(got_h) == len(want_h) == len(hyps)
    assert [x.rstrip() for x in got_h.to_pylist()] == want_h == hyps

    got_r = [bio.read_lines(p).to_pylist() for p in rps]
    want_r = [sacre_read(p) for p in rps]
    # the tokenized result agrees for every tokenizer (the raw line may keep '\r' / spaces)
    settings = [("13a", False), ("none", False)]
    if variant in ("crlf", "trailing_spaces"):
        settings += [("none", True), ("intl", False), ("char", True)]
    for tok, lc in settings:
        ours = compute_stats(got_h.to_pylist(), got_r, tokenize=tok, lowercase=lc)
        np.testing.assert_array_equal(
            our_matrix(ours), sacre_matrix(want_h, want_r, tok, lc), err_msg=tok
        )

    # file → score: equals corpus_bleu on the same data and sacreBLEU
    from_files = bleustats.corpus_bleu_files(hp, rps)
    from_lists = bleustats.corpus_bleu(want_h, want_r)
    theirs = sacrebleu.corpus_bleu(want_h, want_r)
    for ours in (from_files, from_lists):
        assert ours.counts == theirs.counts and ours.totals == theirs.totals
        assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
        assert ours.score == pytest.approx(theirs.score, abs=1e-9)
    assert from_files.score == from_lists.score


def test_read_lines_edge_cases(tmp_path):
    cases = {
        b"": [],
        b"\n": [""],
        b"\n\n": ["", ""],
        b"a": ["a"],
        b"a\n\nb\n": ["a", "", "b"],
        b"a\rb\nc": ["a\rb", "c"],  # a lone '\r' is not a line break (sacreBLEU: newline='\n')
        "a\u2028b\x0cc\x1cd\x85e\n".encode(): ["a\u2028b\x0cc\x1cd\x85e"],
    }
    for i, (data, want) in enumerate(cases.items()):
        p = tmp_path / f"f{i}.txt"
        p.write_bytes(data)
        got = bio.read_lines(p).to_pylist()
        assert got == want, data
        assert [x.rstrip() for x in got] == sacre_read(p), data


def test_corpus_bleu_files_with_weights_equals_lists(tmp_path):
    hp = tmp_path / "hyp.txt"
    write_lines(hp, HYPS, "trailing_newline")
    rps, wps = [], []
    for k, (s, w) in enumerate(zip(FILE_REFS, FILE_WEIGHTS)):
        rps.append(tmp_path / f"ref{k}.txt")
        wps.append(tmp_path / f"w{k}.txt")
        write_lines(rps[-1], s, "trailing_newline")
        write_lines(wps[-1], [repr(x) for x in w], "no_trailing_newline")
    for metric in ("bleu", "delta_bleu"):
        f = bleustats.corpus_bleu_files(hp, rps, ref_weight_paths=wps, metric=metric)
        lst = bleustats.corpus_bleu(HYPS, FILE_REFS, ref_weights=FILE_WEIGHTS, metric=metric)
        assert f.score == lst.score and f.counts == lst.counts and f.totals == lst.totals
        assert f.stats["hyp_len"] == lst.stats["hyp_len"]
    # weights given → ΔBLEU by default, as corpus_bleu
    assert bleustats.corpus_bleu_files(hp, rps, ref_weight_paths=wps).name == "ΔBLEU"


@pytest.mark.parametrize("as_path", [False, True], ids=["str", "Path"])
def test_corpus_bleu_files_single_reference_path(tmp_path, as_path):
    # one path (str or Path) is one reference file, not an iterable of characters
    hp, rp, wp = tmp_path / "hyp.txt", tmp_path / "ref.txt", tmp_path / "w.txt"
    write_lines(hp, HYPS, "trailing_newline")
    write_lines(rp, FILE_REFS[0], "trailing_newline")
    write_lines(wp, [repr(x) for x in FILE_WEIGHTS[0]], "trailing_newline")
    one = (lambda p: p) if as_path else str
    got = bleustats.corpus_bleu_files(hp, one(rp))
    want = bleustats.corpus_bleu_files(hp, [rp])
    theirs = sacrebleu.corpus_bleu(HYPS, FILE_REFS[:1])
    assert got.score == want.score and got.counts == want.counts == theirs.counts
    assert got.score == pytest.approx(theirs.score, abs=1e-9)
    weighted = bleustats.corpus_bleu_files(hp, one(rp), ref_weight_paths=one(wp))
    lists = bleustats.corpus_bleu(HYPS, FILE_REFS[:1], ref_weights=FILE_WEIGHTS[:1])
    assert weighted.name == "ΔBLEU" and weighted.score == lists.score


def write_tsv(path, df: pd.DataFrame) -> None:
    """TSV as a user writes it: header, TAB separated, no quoting or escaping."""
    lines = ["\t".join(df.columns)] + [
        "\t".join(str(v) for v in row) for row in df.itertuples(index=False)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_jsonl(path, df: pd.DataFrame) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(
            json.dumps(
                {k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items()},
                ensure_ascii=False,
            )
            + "\n"
            for rec in df.to_dict(orient="records")
        )


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "parquet"])
def test_table_files(tmp_path, base, fmt):
    h, r = long_hyps(), long_refs()
    assert any('"' in t for t in h["text"]) and any('"' in t for t in r["text"])
    hp, rp = tmp_path / f"hyps.{fmt}", tmp_path / f"refs.{fmt}"
    if fmt == "tsv":
        write_tsv(hp, h)
        write_tsv(rp, r)
    elif fmt == "jsonl":
        write_jsonl(hp, h)
        write_jsonl(rp, r)
    else:
        pq.write_table(
            pa.Table.from_pandas(h.astype({"seg_id": "int32"}), preserve_index=False), hp
        )
        pq.write_table(pa.Table.from_pandas(r, preserve_index=False), rp)
    hyps, refs = bio.read_table(hp, "hypotheses"), bio.read_table(rp, "references")
    assert hyps.column("text").to_pylist() == HYPS
    assert_same_stats(compute_stats(hyps, refs), base)


def test_tsv_text_that_looks_like_null_number_or_quote_stays_text(tmp_path):
    p = tmp_path / "hyps.tsv"
    p.write_text(
        'seg_id\tsystem\ttext\n0\tA\tNA\n1\tA\tnull\n2\tA\t"open quote\n3\tA\t\n4\tA\t007\n',
        encoding="utf-8",
    )
    t = bio.read_table(p, "hypotheses")
    assert t.column("text").to_pylist() == ["NA", "null", '"open quote', "", "007"]
    assert t.column("system").to_pylist() == ["A"] * 5


def test_tsv_crlf_and_bom(tmp_path):
    p = tmp_path / "hyps.tsv"
    p.write_bytes("\ufeffseg_id\ttext\r\n0\tGrüße\r\n1\tb\r\n".encode("utf-8"))
    assert bio.read_table(p, "hypotheses").to_pydict() == {
        "seg_id": [0, 1],
        "system": ["hyp", "hyp"],
        "text": ["Grüße", "b"],
    }


#: A row with another number of fields than the header (a TAB inside a text, or a
#: missing field) is an error naming the file and the counts; Arrow names the row by
#: its text, so the row's wording is not pinned down here.
TSV_BAD_FIELD_COUNTS = {
    "later_row": ("seg_id\ttext\n0\tok\n1\tfoo\tbar\n2\tbaz\n", 3),
    "last_row": ("seg_id\ttext\n0\tok\n1\tfoo\tbar\n", 3),
    "first_row": ("seg_id\ttext\n1\t2\tfoo bar\n2\tbaz\n", 3),
    "every_row": ("seg_id\ttext\n1\t2\tfoo bar\n2\t3\tbaz\n", 3),
    "short_row": ("seg_id\ttext\n0\tok\n1\n2\tbaz\n", 1),
}


@pytest.mark.parametrize("case", sorted(TSV_BAD_FIELD_COUNTS))
def test_tsv_row_with_another_field_count_is_an_error(tmp_path, case):
    # never a silently shifted or truncated row: e.g. text '2' with 'foo bar' lost
    data, got = TSV_BAD_FIELD_COUNTS[case]
    p = tmp_path / "hyps.tsv"
    p.write_text(data, encoding="utf-8")
    with pytest.raises(InputError) as info:
        bio.read_table(p, "hypotheses")
    msg = str(info.value)
    assert msg.startswith(f"{p}: cannot be read as TSV ("), msg
    assert re.search(rf"Expected 2 (columns|fields)\b.*\b(got|saw) {got}\b", msg), msg
    assert msg.count(str(p)) == 1, msg


# --------------------------------------------------------------------------- 2. several systems


def test_multi_system_long_form_shuffled_rows():
    systems = ["sysA", "sysB", "sysC"]
    rng = random.Random(7)
    rows = []
    for i, text in enumerate(HYPS):
        rows.append((i, "sysA", text))
        rows.append((i, "sysB", " ".join(reversed(text.split()))))
        rows.append((i, "sysC", text.lower()))
    rng.shuffle(rows)
    hyps = pd.DataFrame(rows, columns=["seg_id", "system", "text"])
    st = compute_stats(hyps, long_refs())
    assert len(st) == len(rows)
    assert st.column("seg_id").tolist() == [r[0] for r in rows]
    assert st.column("system").tolist() == [r[1] for r in rows]
    refs, wts = per_segment()
    for j, (seg, _, text) in enumerate(rows):
        alone = compute_stats(
            [text], [refs[seg]], ref_weights=[wts[seg]], references_layout="segments"
        )
        row = table_dict(st.select([j]))
        want = table_dict(alone)
        for name in want:
            if name not in ("seg_id", "system"):
                assert row[name] == want[name], (j, name)
    # per-system corpus BLEU equals scoring that system's hypotheses alone
    by_sys = scoring.corpus_scores(st, by="system")
    assert by_sys["system"].tolist() == systems
    for name, score in zip(by_sys["system"], by_sys["score"]):
        sub = hyps[hyps["system"] == name].sort_values("seg_id")
        assert score == pytest.approx(
            sacrebleu.corpus_bleu(sub["text"].tolist(), REFS).score, abs=1e-9
        )


# --------------------------------------------------------------------------- 3. bad input

H2 = ["a b", "c d"]


def test_mismatched_lengths():
    # one stream shorter than the hypotheses, several streams, per-segment lists: all refused;
    # 'auto' reads lists that are not n_hyp per-segment lists as streams, naming the short one
    with pytest.raises(
        InputError,
        match=r"references\[0\] has 1 line but there are 2 hypotheses\. sacreBLEU's layout is one list per "
        r"reference stream, each as long as the hypotheses: .*\(use None for a missing reference\); sacreBLEU "
        r"itself would score only the segments the shortest list covers\. If references holds one list of "
        r"references per hypothesis .*, pass references_layout='segments'",
    ):
        compute_stats(H2, [["x"]])
    with pytest.raises(
        InputError,
        match=r"references\[2\] has 1 line but there are 2 hypotheses\. .*"
        r"references_layout='segments'",
    ):
        compute_stats(H2, [["x", "y"], ["z", "w"], ["u"]])
    with pytest.raises(
        InputError,
        match=r"references has 3 per-segment lists but there are 2 hypotheses; "
        r"give one list of references per hypothesis segment",
    ):
        compute_stats(H2, [["x", "y"], ["z", "w"], ["u"]], references_layout="segments")
    with pytest.raises(
        InputError, match=r"references has 1 per-segment lists but there are 2 hypotheses"
    ):
        bleustats.corpus_bleu(H2, [["x", "y"]], references_layout="segments")


def test_short_single_stream_error_names_the_stream():
    # a sacreBLEU user's one stream, a line short: named as a stream, not as 'per-segment lists'
    with pytest.raises(
        InputError,
        match=r"^references\[0\] has 1 line but there are 2 hypotheses\. sacreBLEU's layout is one list per "
        r"reference stream",
    ):
        bleustats.corpus_bleu(H2, [["x"]])


def test_ragged_streams_are_not_silently_reinterpreted():
    # a sacreBLEU user's 2 streams for 2 hypotheses, the second one line short
    for score in (bleustats.corpus_bleu, compute_stats):
        with pytest.raises(
            InputError,
            match=r"^references\[1\] has 1 line but there are 2 hypotheses\. .*"
            r"pass references_layout='segments'",
        ):
            score(H2, [["x", "y"], ["z"]])
    # the same lists, declared per segment, are two segments' references
    st = compute_stats(H2, [["x", "y"], ["z"]], references_layout="segments")
    assert st.column("n_refs").tolist() == [2, 1]


def test_mismatched_stream_lengths_streams_layout():
    with pytest.raises(
        InputError, match=r"references\[1\] has 1 lines? but there are 2 hypotheses.*None"
    ):
        compute_stats(H2, [["x", "y"], ["z"]], references_layout="streams")


def test_segment_without_references():
    with pytest.raises(
        InputError,
        match=r"1 segment\(s\) have hypotheses but no reference: seg_id 1\b.*"
        r"drop those hypotheses or add references",
    ):
        compute_stats(H2, [["x", None]])
    with pytest.raises(InputError, match=r"no reference: seg_id 1\b"):
        compute_stats(H2, [["x"], []], references_layout="segments")
    hyps = pd.DataFrame({"seg_id": [0, 5, 7], "text": ["a", "b", "c"]})
    with pytest.raises(InputError, match=r"2 segment\(s\).*seg_id 5, 7\b"):
        compute_stats(hyps, pd.DataFrame({"seg_id": [0], "text": ["a"]}))


def test_threshold_view_removing_all_references_of_a_segment():
    with pytest.raises(
        InputError, match=r"no reference in ref_view='threshold' \(weight >= 0\.5\): seg_id 1\b"
    ):
        compute_stats(
            H2,
            [["x", "y"], ["z", "w"]],
            ref_weights=[[1, 0.2], [1, 0.4]],
            ref_view="threshold",
            weight_threshold=0.5,
        )


@pytest.mark.parametrize(
    "weight, shown",
    [(1.5, r"1\.5"), (-2, r"-2\.0"), (float("inf"), r"inf"), (float("nan"), r"nan")],
    ids=["1.5", "-2", "inf", "nan"],
)
def test_bad_weight_values_in_lists(weight, shown):
    # each form names the user's own index of the bad weight, the range, the value and the fix
    tail = (
        r" must be in \[-1, 1\] \(ΔBLEU reference weights\); got "
        + shown
        + (r"\. Rescale the human scores to \[-1, 1\] first\.$")
    )
    with pytest.raises(InputError, match=r"^ref_weights\[1\]\[0\]" + tail):
        compute_stats(H2, [["x", "y"], ["z", "w"]], ref_weights=[[1, 1], [weight, 1]])
    with pytest.raises(InputError, match=r"^the weight of references\[0\]\[1\]" + tail):
        compute_stats(H2, [["x", ("y", weight)], ["z"]], references_layout="segments")
    with pytest.raises(InputError, match=r"^ref_weights\[0\]\[1\]" + tail):
        compute_stats(
            H2, [["x", "y"], ["z"]], ref_weights=[[1, weight], [1]], references_layout="segments"
        )
    with pytest.raises(InputError, match=r"^ref_weights\[1\]\[0\]" + tail):  # numpy scalars too
        compute_stats(H2, [["x", "y"], ["z", "w"]], ref_weights=np.array([[1, 1], [weight, 1]]))


def test_none_weight_in_ref_weights():
    with pytest.raises(
        InputError,
        match=r"^ref_weights\[1\]\[0\] must be a number in \[-1, 1\]; got NoneType None\.",
    ):
        compute_stats(H2, [["x", "y"], ["z", "w"]], ref_weights=[[1, 1], [None, 1]])
    with pytest.raises(
        InputError,
        match=r"^the weight of references\[1\]\[0\] must be a number in \[-1, 1\]; "
        r"got NoneType None\.",
    ):
        compute_stats(H2, [["x"], [("z", None)]], references_layout="segments")


def test_bad_weight_error_names_the_users_index():
    # not the row of the internal segment-sorted table (here row 1), but ref_weights[k][i]
    with pytest.raises(InputError, match=r"^ref_weights\[1\]\[0\] must be in \[-1, 1\].*got 2\.0"):
        compute_stats(H2, [["x", "y"], ["z", "w"]], ref_weights=[[1, 1], [2.0, 1]])


@pytest.mark.parametrize(
    "weight, shown",
    [
        ("heavy", r"str 'heavy'"),
        ("0.5", r"str '0\.5'"),
        ([0.5], r"list \[0\.5\]"),
        ({"w": 1}, r"dict \{'w': 1\}"),
        (True, r"bool True"),
        (np.bool_(False), r"bool_? (np\.)?False_?"),
        (None, r"NoneType None"),
    ],
    ids=["heavy", "str_number", "list", "dict", "True", "np_bool", "None"],
)
def test_non_numeric_weights(weight, shown):
    want = r" must be a number in \[-1, 1\]; got " + shown + r"\.$"
    with pytest.raises(InputError, match=r"^ref_weights\[0\]\[1\]" + want):
        compute_stats(H2, [["x", "y"]], ref_weights=[[1, weight]])
    with pytest.raises(InputError, match=r"^ref_weights\[1\]\[0\]" + want):
        compute_stats(H2, [["x"], ["y"]], ref_weights=[[1], [weight]], references_layout="segments")
    with pytest.raises(InputError, match=r"^the weight of references\[1\]\[0\]" + want):
        compute_stats(H2, [["x"], [("y", weight)]], references_layout="segments")


def test_bad_weights_in_tables():
    hyps = pd.DataFrame({"seg_id": [0, 1], "text": ["a", "b"]})
    refs = pd.DataFrame({"seg_id": [0, 1], "weight": [1.0, np.nan], "text": ["a", "b"]})
    with pytest.raises(
        SchemaError,
        match=r"references does not match the 'references' schema.*\n"
        r"  - weight: 1 (null|NaN) value\(s\), first at row 1",
    ):
        compute_stats(hyps, refs)
    refs = pa.table({"seg_id": [0, 1], "weight": [1.0, float("nan")], "text": ["a", "b"]})
    with pytest.raises(SchemaError, match=r"weight: 1 NaN value\(s\), first at row 1"):
        compute_stats(hyps, refs)
    refs = pd.DataFrame({"seg_id": [0, 1], "weight": ["1", "high"], "text": ["a", "b"]})
    with pytest.raises(SchemaError, match=r"weight: want float64, got (large_)?string"):
        compute_stats(hyps, refs)
    refs = pd.DataFrame({"seg_id": [0, 1], "weight": [1.0, -1.5], "text": ["a", "b"]})
    with pytest.raises(
        SchemaError, match=r"weight: 1 value\(s\) outside \[-1\.0, 1\.0\], first at row 1: -1\.5\n"
    ):
        compute_stats(hyps, refs)


@pytest.mark.parametrize(
    "refs, weights, layout",
    [
        ([["x", "y"]], [[1.0]], "auto"),
        ([["x", "y"]], [[1.0, 1.0], [1.0, 1.0]], "auto"),
        ([["x", "y"], ["z", "w"]], [[1.0, 1.0]], "auto"),
        ([["x", "y"], ["z"]], [[1.0], [1.0]], "segments"),
    ],
)
def test_weight_shape_mismatch(refs, weights, layout):
    with pytest.raises(
        InputError, match=r"ref_weights must have the same shape as references: .*; got "
    ):
        compute_stats(H2, refs, ref_weights=weights, references_layout=layout)


def test_weights_given_twice_or_with_a_table():
    with pytest.raises(
        InputError, match=r"references\[0\]\[1\] has a weight and ref_weights is given too"
    ):
        compute_stats(
            H2, [["x", ("y", 0.5)], ["z"]], ref_weights=[[1, 1], [1]], references_layout="segments"
        )
    with pytest.raises(
        InputError, match=r"ref_weights must be None when references is a table.*'weight' column"
    ):
        compute_stats(long_hyps(), long_refs(), ref_weights=WEIGHTS)
    with pytest.raises(
        InputError,
        match=r"references\[0\]\[0\] must be a str or a \(text, weight\) pair; "
        r"got a 3-tuple",
    ):
        compute_stats(H2, [[("x", 1.0, 2)], ["z"]], references_layout="segments")


@pytest.mark.parametrize(
    "option, value, match",
    [
        ("tokenize", "ja_mecab",
         r"tokenize must be one of 'none', 'zh', '13a', 'intl', 'char', 'ja-mecab', .*; got 'ja_mecab'"),
        ("tokenize", None, r"tokenize must be one of .*; got None"),
        ("max_ngram_order", 0, r"max_ngram_order must be an integer from 1 to 32; got 0\."),
        ("max_ngram_order", 33, r"max_ngram_order must be an integer from 1 to 32; got 33\."),
        ("max_ngram_order", 2.5, r"max_ngram_order must be an integer from 1 to 32; got 2\.5\."),
        ("max_ngram_order", True, r"max_ngram_order must be an integer from 1 to 32; got True\."),
        ("max_ngram_order", "4", r"max_ngram_order must be an integer from 1 to 32; got '4'\."),
        ("ref_view", "best", r"ref_view must be one of 'all', 'threshold', 'first'; got 'best'"),
        (
            "delta_definition",
            "2015",
            r"delta_definition must be one of 'paper', 'galley2019'; got '2015'",
        ),
        (
            "references_layout",
            "rows",
            r"references_layout must be one of 'auto', 'streams', 'segments'; got 'rows'",
        ),
    ],
)
def test_unknown_options(option, value, match):
    with pytest.raises(ValueError, match=match):
        compute_stats(H2, [["x", "y"]], **{option: value})


def test_max_ngram_order_numpy_integer_accepted():
    st = compute_stats(H2, [["a b", "c"]], max_ngram_order=np.int64(2))
    assert (
        st.max_order == 2
        and "match_2" in st.table.column_names
        and "match_3" not in st.table.column_names
    )


@pytest.mark.parametrize("theta", [None, float("nan")])
def test_threshold_view_needs_a_threshold(theta):
    with pytest.raises(
        ValueError,
        match=r"weight_threshold must be a finite number when "
        r"ref_view='threshold'; got (None|nan)",
    ):
        compute_stats(H2, [["x", "y"]], ref_view="threshold", weight_threshold=theta)


@pytest.mark.parametrize("view", ["all", "first"])
def test_weight_threshold_needs_the_threshold_view(view):
    with pytest.raises(
        ValueError,
        match=r"^weight_threshold is only used with ref_view='threshold'; "
        rf"got weight_threshold=0\.5 with ref_view='{view}'\. "
        r"Pass ref_view='threshold' or drop it\.$",
    ):
        compute_stats(H2, [["x", "y"]], ref_view=view, weight_threshold=0.5)


def test_table_missing_columns_all_reported_at_once():
    hyps = pd.DataFrame({"segment": [0], "hyp": ["a"]})
    refs = pd.DataFrame({"seg_id": [0], "text": ["a"]})
    with pytest.raises(
        SchemaError,
        match=r"^hypotheses does not match the 'hypotheses' schema \(3 problems\):\n"
        r"  - unknown columns 'segment', 'hyp': a hypotheses table has seg_id, system, text \(and optionally "
        r"model_score, rank\); rename or drop them\n"
        r"  - seg_id: required column is missing\n"
        r"  - text: required column is missing\n"
        r"Each column is described in data_schemas/hypotheses\.json "
        r"\(bleustats\.engine\.schemas\.load_schema\)\.$",
    ):
        compute_stats(hyps, refs)
    bad_refs = pa.table({"seg_id": ["0"], "weight": [3.0], "ref_id": [1.5]})
    with pytest.raises(
        SchemaError,
        match=r"references does not match the 'references' schema \(4 problems\):\n"
        r"  - seg_id: want int64, got string\n"
        r"  - ref_id: want string, got double\n"
        r"  - weight: 1 value\(s\) outside \[-1\.0, 1\.0\], first at row 0: 3\.0\n"  # plain repr
        r"  - text: required column is missing\n"
        r"Each column is described in data_schemas/references\.json",
    ):
        compute_stats(pd.DataFrame({"seg_id": [0], "text": ["a"]}), bad_refs)


@pytest.mark.parametrize(
    "column, values, match",
    [
        ("seg_id", ["0", "1"], r"seg_id: want int64, got (large_)?string"),
        ("seg_id", [0.0, 1.0], r"seg_id: want int64, got double"),
        ("text", ["a", None], r"text: 1 null value\(s\), first at row 1"),
        ("text", [1, 2], r"text: want string, got int64"),
        ("system", ["A", None], r"system: 1 null value\(s\), first at row 1"),
    ],
)
def test_wrong_column_type_or_nulls_in_hypotheses(column, values, match):
    data = {"seg_id": [0, 1], "system": ["A", "A"], "text": ["a", "b"]}
    data[column] = values
    refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a", "b"]})
    for table in (pd.DataFrame(data), pa.table(data)):
        with pytest.raises(
            SchemaError, match=r"hypotheses does not match the 'hypotheses' schema.*\n.*" + match
        ):
            compute_stats(table, refs)


def test_unsafe_integer_cast_rejected():
    hyps = pa.table({"seg_id": pa.array([0, 2**63], pa.uint64()), "text": ["a", "b"]})
    with pytest.raises(SchemaError, match=r"seg_id: want int64, got uint64"):
        compute_stats(hyps, pd.DataFrame({"seg_id": [0], "text": ["a"]}))


def test_null_reference_text():
    refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a", None]})
    with pytest.raises(
        SchemaError,
        match=r"references does not match.*\n  - text: 1 null value\(s\), first at row 1",
    ):
        compute_stats(pd.DataFrame({"seg_id": [0, 1], "text": ["a", "b"]}), refs)


def test_non_utf8_text_file_names_the_line(tmp_path):
    p = tmp_path / "hyp.txt"
    p.write_bytes("first\nsecond\nGr\xfc\xdfe\n".encode("latin-1"))
    with pytest.raises(
        InputError,
        match=r"hyp\.txt: not valid UTF-8 at line 3, byte 2 \(invalid start byte\); "
        r"re-encode it as UTF-8 \(e\.g\. iconv -f latin1 -t utf-8\)\.$",
    ):
        bio.read_lines(p)
    with pytest.raises(InputError, match=r"not valid UTF-8 at line 3"):
        bleustats.corpus_bleu_files(p, [p])


#: Tables whose second data row holds Latin-1 'Grüße': (bytes, file line, byte in that line).
BAD_UTF8_TABLES = {
    "tsv": (b"seg_id\ttext\n0\tok\n1\tGr\xfc\xdfe\n", 3, 4),
    "jsonl": (b'{"seg_id": 0, "text": "ok"}\n{"seg_id": 1, "text": "Gr\xfc\xdfe"}\n', 2, 25),
}


@pytest.mark.parametrize("fmt", sorted(BAD_UTF8_TABLES))
def test_non_utf8_table_file_names_the_line(tmp_path, fmt):
    data, line, byte = BAD_UTF8_TABLES[fmt]
    p = tmp_path / f"hyps.{fmt}"
    p.write_bytes(data)
    with pytest.raises(
        InputError,
        match=rf"hyps\.{fmt}: not valid UTF-8 at line {line}, byte {byte} \(invalid start byte\); "
        r"re-encode it as UTF-8",
    ):
        bio.read_table(p, "hypotheses")


@pytest.mark.parametrize("case", ["tsv_utf8", "jsonl_utf8", "missing", "directory"])
def test_table_read_errors_are_not_wrapped_twice(tmp_path, case):
    if case == "missing":
        p, want = tmp_path / "nope.tsv", "no such file; check the path."
    elif case == "directory":
        p, want = tmp_path / "dir.tsv", "is a directory, expected a text file."
        p.mkdir()
    else:
        fmt = case.split("_")[0]
        data, line, byte = BAD_UTF8_TABLES[fmt]
        p, want = tmp_path / f"hyps.{fmt}", f"not valid UTF-8 at line {line}, byte {byte} "
        p.write_bytes(data)
    with pytest.raises(InputError) as info:
        bio.read_table(p, "hypotheses")
    # once, as read_lines says it: not 'PATH: cannot be read as TSV (PATH: ...).'
    assert str(info.value).startswith(f"{p}: {want}")
    assert str(info.value).count(str(p)) == 1
    assert "cannot be read as" not in str(info.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match=r"nope\.txt: no such file; check the path\.$"):
        bio.read_lines(tmp_path / "nope.txt")
    with pytest.raises(InputError, match=r"nope\.txt\.gz: no such file; check the path\.$"):
        bio.read_lines(tmp_path / "nope.txt.gz")
    with pytest.raises(InputError, match=r"is a directory, expected a text file"):
        bio.read_lines(tmp_path)
    with pytest.raises(InputError, match=r"nope\.tsv: no such file; check the path\."):
        bio.read_table(tmp_path / "nope.tsv", "hypotheses")
    with pytest.raises(InputError, match=r"nope\.parquet: no such file; check the path\.$"):
        bio.read_table(tmp_path / "nope.parquet", "hypotheses")
    d = tmp_path / "dir.parquet"
    d.mkdir()
    with pytest.raises(
        InputError, match=r"dir\.parquet: is a directory, expected a Parquet file\.$"
    ):
        bio.read_table(d, "hypotheses")
    t = tmp_path / "dir.tsv"
    t.mkdir()
    with pytest.raises(InputError, match=r"dir\.tsv: is a directory"):
        bio.read_table(t, "hypotheses")
    with pytest.raises(InputError, match=r"nope\.txt: no such file; check the path\.$"):
        bleustats.corpus_bleu_files(tmp_path / "nope.txt", [tmp_path / "nope.txt"])


def test_unknown_table_suffix_and_bad_gzip(tmp_path):
    p = tmp_path / "hyps.csv"
    p.write_text("seg_id,text\n0,a\n")
    with pytest.raises(
        InputError,
        match=r"hyps\.csv: unknown table format '\.csv'; expected one of "
        r"\.tsv, \.jsonl, \.parquet",
    ):
        bio.read_table(p, "hypotheses")
    g = tmp_path / "h.txt.gz"
    g.write_bytes(b"not gzip at all\n")
    with pytest.raises(InputError, match=r"h\.txt\.gz: cannot be read"):
        bio.read_lines(g)


def test_broken_jsonl(tmp_path):
    p = tmp_path / "hyps.jsonl"
    p.write_text('{"seg_id": 0, "text": "a"}\n{"seg_id": 1, "text": \n', encoding="utf-8")
    # the line is named (JSONL is read line by line; a line that is not an object is refused too)
    with pytest.raises(InputError, match=r"hyps\.jsonl: line 2 is not valid JSON \(Expecting value\)"):
        bio.read_table(p, "hypotheses")


def test_hypotheses_as_single_string():
    with pytest.raises(
        InputError,
        match=r"hypotheses must be a list of strings .*got a single str\. "
        r"Wrap it in a list: \[hypothesis\]",
    ):
        compute_stats("the cat sat", [["the cat sat"]])
    with pytest.raises(InputError, match=r"got a single str"):
        bleustats.corpus_bleu("the cat sat", [["the cat sat"]])


def test_hypotheses_with_a_non_string_item():
    with pytest.raises(InputError, match=r"hypotheses\[1\] must be a str; got int 5"):
        compute_stats(["a", 5], [["a", "b"]])
    with pytest.raises(InputError, match=r"hypotheses\[0\] must be a str; got NoneType None"):
        compute_stats([None, "b"], [["a", "b"]])


def test_references_as_list_of_strings():
    # sacreBLEU accepts this silently (and scores against the wrong references); we refuse
    with pytest.raises(
        InputError,
        match=r"references\[0\] must be a list .*got str 'x'\. sacreBLEU-style input "
        r"is a list of streams: \[\[ref_seg1, ref_seg2, \.\.\.\]\]",
    ):
        bleustats.corpus_bleu(H2, ["x", "y"])
    with pytest.raises(
        InputError,
        match=r"references must be a list of reference streams.*got a single str.*\[refs\]",
    ):
        compute_stats(H2, "x")
    with pytest.raises(InputError, match=r"references\[0\]\[1\] must be a str or None; got int 3"):
        compute_stats(H2, [["x", 3]])
