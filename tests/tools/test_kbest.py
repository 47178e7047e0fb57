"""k-best lists (bleustats.kbest, bleustats.cli_kbest): reading, writing, oracles, CLI.

Expected values come from scoring each entry on its own with compute_stats +
score_variant (the k-best path must equal that), from plain-Python loops
over the same rows, and from Moses' SCORES_TXT layout (mert/ScoreArray.cpp).
"""

from __future__ import annotations

import argparse
import io as pyio
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bleustats.cli import kbest as cli_kbest
from bleustats.engine import io
from bleustats.tools import kbest, nbest_io
from bleustats.metrics.sentence import SENTENCE_VARIANTS, score_variant
from bleustats.engine.stats import compute_stats

pytestmark = pytest.mark.usefixtures("numba_one_thread")

REFS = ["the cat sat on the mat", "hello there world again today", "a b c d e f g"]
ENTRIES = {
    0: ["the cat sat on the mat", "a cat sat on a mat", "the cat", "", "cat the mat on sat the"],
    1: ["hello world again today", "hello there world again today"],
    2: ["a b c d e f g", "a b c x e f g", "g f e d c b a"],
}
METRICS = ["bleu+1", "lin-och", "nakov:bp-smoothed,pc-grounded", "sacrebleu:exp", "chen-cherry:7",
           "chen-cherry:3"]
ALL = sorted(SENTENCE_VARIANTS)


def write_nbest(path, entries=ENTRIES):
    lines = []
    for sid, hyps in entries.items():
        for k, h in enumerate(hyps):
            lines.append(f"{sid} ||| {h} ||| F0= {-k} {k / 2} F1= 0.5 ||| {-(k - 1) ** 2 + 0.25 * sid}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def files(tmp_path):
    nb = write_nbest(tmp_path / "nbest.txt")
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    return nb, ref, tmp_path


def flat():
    seg = [s for s, hs in ENTRIES.items() for _ in hs]
    text = [h for hs in ENTRIES.values() for h in hs]
    return np.array(seg), text


def test_read_nbest_chunks_are_source_aligned(files):
    nb, _, _ = files
    whole = pa.concat_tables(list(nbest_io.read_nbest(nb)))
    for chunk_bytes in (1, 7, 64, 150):
        chunks = list(nbest_io.read_nbest(nb, chunk_bytes=chunk_bytes))
        ids = [set(c.column("seg_id").to_pylist()) for c in chunks]
        for a, b in zip(ids, ids[1:]):
            assert not a & b  # no source split across chunks
        assert pa.concat_tables(chunks).equals(whole)
    seg, text = flat()
    assert whole.column("seg_id").to_pylist() == seg.tolist()
    assert whole.column("text").to_pylist() == text
    assert whole.column("entry").to_pylist() == [0, 1, 2, 3, 4, 0, 1, 0, 1, 2]
    assert whole.column("features").to_pylist()[1] == "F0= -1 0.5 F1= 0.5"
    assert whole.column("model_score").to_pylist()[:3] == [-1.0, 0.0, -1.0]


def _reader_threads():
    import threading

    return [t for t in threading.enumerate() if t.name == "bleustats-nbest-reader"]


def test_score_nbest_errors_reach_the_caller_and_stop_the_reader(files):
    # the n-best file is parsed on a reader thread; its errors (here a bad line in a late
    # chunk) and the main thread's (a source with no reference) surface with their message,
    # and the reader ends either way
    nb, ref, tmp = files
    bad = tmp / "late_bad.txt"
    bad.write_text(nb.read_text(encoding="utf-8") + "3 ||| x y\n", encoding="utf-8")
    with pytest.raises(io.InputError, match=r"late_bad.txt: line 11: expected 'id \|\|\| hypothesis"):
        kbest.score_nbest(bad, [ref], tokenize="none", variants=["bleu+1"], chunk_bytes=40)
    no_ref = tmp / "no_ref.txt"
    no_ref.write_text(nb.read_text(encoding="utf-8") + "7 ||| x y ||| F= 0 ||| 0\n", encoding="utf-8")
    with pytest.raises(io.InputError,
                       match=r"no_ref.txt: 1 source\(s\) have entries but no reference in .*ref.txt \(id 7;"):
        kbest.score_nbest(no_ref, [ref], tokenize="none", variants=["bleu+1"], chunk_bytes=40)
    for t in _reader_threads():
        t.join(timeout=600)  # a cap against a hung reader, not a speed budget (a loaded machine is slow)
    assert not _reader_threads()


def test_read_nbest_extra_fields_and_no_final_newline(tmp_path):
    p = tmp_path / "nb.txt"
    p.write_text("0 ||| a b ||| F= 1 ||| 2.5 ||| 0-0 1-1\n1 ||| c ||| F= 1 ||| 1", encoding="utf-8")
    t = pa.concat_tables(list(nbest_io.read_nbest(p)))
    assert t.column("text").to_pylist() == ["a b", "c"] and t.column("model_score").to_pylist() == [2.5, 1.0]


def test_read_nbest_errors(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("0 ||| a ||| F= 1 ||| 1\n0 ||| b ||| F= 1\n", encoding="utf-8")
    with pytest.raises(io.InputError, match=r"bad.txt: line 2: expected 'id \|\|\| hypothesis"):
        list(nbest_io.read_nbest(p))
    p.write_text("0 ||| a ||| F= 1 ||| 1\nx ||| b ||| F= 1 ||| 1\n", encoding="utf-8")
    with pytest.raises(io.InputError, match=r"line 2: expected .*got 'x \|\|\| b"):
        list(nbest_io.read_nbest(p))
    p.write_text("1 ||| a ||| F= 1 ||| 1\n0 ||| b ||| F= 1 ||| 1\n", encoding="utf-8")
    with pytest.raises(io.InputError, match=r"entry 2: source id 0 after 1; .*sort -s -n -k1,1"):
        list(nbest_io.read_nbest(p, chunk_bytes=5))
    with pytest.raises(io.InputError, match="no such file"):
        list(nbest_io.read_nbest(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="chunk_bytes must be a positive integer; got 0"):
        list(nbest_io.read_nbest(p, chunk_bytes=0))


def test_kbest_scoring_equals_each_entry_alone(files):
    # registry property: every registered variant, k-best path (chunked) == each entry scored alone
    nb, ref, tmp = files
    out = tmp / "out.parquet"
    res = kbest.score_nbest(nb, [ref], tokenize="none", variants=ALL, output=out, chunk_bytes=40)
    table = pq.read_table(out)
    seg, text = flat()
    for i, (s, h) in enumerate(zip(seg, text)):
        alone = compute_stats([h], [[REFS[s]]], tokenize="none", max_ngram_order=5)
        for name in ALL:
            assert table.column(name)[i].as_py() == pytest.approx(
                score_variant(alone, name, max_ngram_order=4)[0], abs=1e-12), (name, h)
        assert table.column("match_2")[i].as_py() == alone.column("match_2")[0]
    assert res.n_entries == 10 and res.n_sources == 3
    meta = table.schema.metadata
    assert json.loads(meta[b"bleustats.kbest.variants"]) == ALL


def test_oracles_and_one_best_match_python_loops(files):
    nb, ref, _ = files
    res = kbest.score_nbest(nb, [ref], tokenize="none", variants=["bleu+1", "sacrebleu:exp"], chunk_bytes=30)
    seg, text = flat()
    stats = compute_stats(pd.DataFrame({"seg_id": seg, "text": text}),
                          pd.DataFrame({"seg_id": range(3), "text": REFS}), tokenize="none", k_best=True)
    model = np.array([-(k - 1) ** 2 + 0.25 * s for s, hs in ENTRIES.items() for k in range(len(hs))])
    for name in ("bleu+1", "sacrebleu:exp"):
        scores = score_variant(stats, name)
        picks = []
        for s in sorted(set(seg)):
            rows = [i for i in range(len(seg)) if seg[i] == s]
            picks.append(max(rows, key=lambda i: (scores[i], -i)))
        assert kbest.oracle_rows(seg, scores).tolist() == picks
        want = kbest.selection_bleu(stats, picks)
        assert res.oracles[name].score == pytest.approx(want.score, abs=1e-12)
        assert res.oracles[name].ratio == pytest.approx(want.sys_len / want.ref_len)
    best = [max((i for i in range(len(seg)) if seg[i] == s), key=lambda i: (model[i], -i)) for s in range(3)]
    assert kbest.one_best_rows(seg, model).tolist() == best
    assert res.one_best.score == pytest.approx(kbest.selection_bleu(stats, best).score, abs=1e-12)
    # unsorted ids take the sorting path and give the same picks
    perm = np.array([9, 3, 0, 5, 1, 2, 8, 4, 6, 7])
    got = kbest.oracle_rows(seg[perm], model[perm])
    assert sorted(perm[got].tolist()) == best


def test_scores_txt_layout(files):
    nb, ref, tmp = files
    path = tmp / "scores.dat"
    kbest.score_nbest(nb, [ref], tokenize="none", variants=["bleu+1"], scores_txt=path)
    lines = path.read_text().split("\n")
    # Moses: "SCORES_TXT_BEGIN_0 <index> <entries> <2N+1> BLEU", then one line per entry with a trailing space
    assert lines[0] == "SCORES_TXT_BEGIN_0 0 5 9 BLEU"
    assert lines[1] == "6 6 5 5 4 4 3 3 6 "  # exact copy: m_n t_n pairs, reference length last
    assert lines[6] == "SCORES_TXT_END_0"
    assert lines[7] == "SCORES_TXT_BEGIN_0 1 2 9 BLEU"
    assert lines[4] == "0 0 0 0 0 0 0 0 6 "  # empty hypothesis
    assert lines[-1] == "" and lines[-2] == "SCORES_TXT_END_0"


def test_table_inputs_parquet_tsv_and_frame(files):
    nb, ref, tmp = files
    seg, text = flat()
    frame = pd.DataFrame({"seg_id": seg, "system": "x", "text": text,
                          "model_score": np.arange(len(seg), dtype=float)})
    frame.to_parquet(tmp / "h.parquet")
    frame.to_csv(tmp / "h.tsv", sep="\t", index=False)
    refs = pd.DataFrame({"seg_id": [0, 1, 2], "ref_id": "A", "weight": 1.0, "text": REFS})
    base = kbest.score_nbest(nb, [ref], tokenize="none", variants=["lin-och"])
    for source in (frame, tmp / "h.parquet", tmp / "h.tsv"):
        r = kbest.score_nbest(source, refs, tokenize="none", variants=["lin-och"], chunk_bytes=600)
        assert r.oracles["lin-och"].score == pytest.approx(base.oracles["lin-och"].score)
        assert r.n_entries == 10


def test_delta_bleu_metric(files):
    nb, _, tmp = files
    refs = pd.DataFrame({"seg_id": [0, 0, 1, 2], "ref_id": ["A", "B", "A", "A"], "weight": [1.0, -0.5, 0.8, 1.0],
                         "text": [REFS[0], "a cat sat on a mat", REFS[1], REFS[2]]})
    r = kbest.score_nbest(nb, refs, tokenize="none", variants=["bleu+1"], metric="delta_bleu",
                          output=tmp / "d.parquet")
    assert r.oracles["bleu+1"].name == "ΔBLEU"
    assert np.isfinite(pq.read_table(tmp / "d.parquet").column("bleu+1").to_numpy()).all()


def test_output_written_whole_or_not(files):
    nb, ref, tmp = files
    out = tmp / "out.parquet"
    out.write_bytes(b"old")
    bad = tmp / "bad.txt"
    bad.write_text("0 ||| a ||| F= 1 ||| 1\n1 ||| b\n", encoding="utf-8")
    with pytest.raises(io.InputError):
        kbest.score_nbest(bad, [ref], output=out, chunk_bytes=5)
    assert out.read_bytes() == b"old"
    assert not [p for p in tmp.iterdir() if p.name.startswith(".out.parquet")]


# --------------------------------------------------------------------------- CLI


def cli(argv):
    parser = argparse.ArgumentParser(prog="bleustats")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_kbest.add_parser(sub)
    out, err = pyio.StringIO(), pyio.StringIO()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0), "", ""
    code = cli_kbest.run(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_kbest_end_to_end(files):
    nb, ref, tmp = files
    out = tmp / "o.parquet"
    code, stdout, stderr = cli(["kbest", str(nb), str(ref), "--tokenize", "none", "--variant", "bleu+1",
                                "--variant", "nakov:bp-smoothed,pc-grounded", "-o", str(out), "--progress",
                                "--scores-txt", str(tmp / "s.dat")])
    assert code == 0, stderr
    assert "10 entries, 3 sources" in stdout and "oracle nakov:bp-smoothed,pc-grounded" in stdout
    assert "kbest [" in stderr and "100.0%" in stderr
    assert set(pq.read_table(out).column_names) >= {"bleu+1", "nakov:bp-smoothed,pc-grounded", "entry"}
    assert (tmp / "s.dat").read_text().startswith("SCORES_TXT_BEGIN_0 0 5 9 BLEU")
    code, stdout, _ = cli(["kbest", str(nb), str(ref), "-tok", "none", "-lc", "--json",
                           "-m", "nakov:scaled", "--ilr", "0.9"])
    assert code == 0 and json.loads(stdout)["n_entries"] == 10


def test_cli_kbest_errors(files):
    nb, ref, _ = files
    code, _, err = cli(["kbest", str(nb), str(ref), "--variant", "bleu+3"])
    assert code == 1 and "variant must be one of" in err
    code, _, err = cli(["kbest", str(nb), str(ref), "--ilr", "0.9"])
    assert code == 2 and "--ilr: only used by nakov:...scaled" in err
    code, _, err = cli(["kbest", str(nb), str(ref), "--max-ngram-order", "0"])
    assert code == 2  # refused by the parser (its one line: tests/cli)
    assert cli(["kbest", str(nb)])[0] == 2  # REF missing: usage
