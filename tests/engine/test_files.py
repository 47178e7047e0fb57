"""Plain-text files streamed in chunks of lines give the statistics of the whole files."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import bleustats
from bleustats.engine import io
from bleustats.engine.stats import compute_stats, compute_stats_files

HYPS = ["the cat sat on the mat", "", "a b c d e f", "x  y\tz", "é ü ß", "one two three four five"]
REFS = [["the cat is on the mat", "a", "a b c d e", "x y", "é ü", "one two three four"],
        ["a cat sat on a mat", "b", "b c d e f", "x y z", "ü ß", "two three four five"]]


def write(path, lines, final_newline=True, gz=False):
    data = ("\n".join(lines) + ("\n" if final_newline else "")).encode("utf-8")
    if gz:
        path = path.with_suffix(path.suffix + ".gz")
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("chunk_lines", [1, 2, 4, 6, 100])
@pytest.mark.parametrize("final_newline", [True, False])
def test_chunked_files_equal_whole_lists(tmp_path, chunk_lines, final_newline):
    hyp = write(tmp_path / "h.txt", HYPS, final_newline)
    refs = [write(tmp_path / f"r{k}.txt", r, final_newline, gz=k == 1) for k, r in enumerate(REFS)]
    got = compute_stats_files(hyp, refs, chunk_lines=chunk_lines)
    want = compute_stats(HYPS, REFS)
    assert got.table.equals(want.table)
    assert got.timings["read_files"] >= 0


def test_weights_are_sliced_per_chunk(tmp_path):
    weights = [[1.0, 0.5, -0.2, 0.3, 0.9, 0.1], [0.4, -1.0, 0.8, 0.2, 0.7, 1.0]]
    hyp = write(tmp_path / "h.txt", HYPS)
    refs = [write(tmp_path / f"r{k}.txt", r) for k, r in enumerate(REFS)]
    wfiles = [write(tmp_path / f"w{k}.txt", map(repr, w)) for k, w in enumerate(weights)]
    got = compute_stats_files(hyp, refs, ref_weight_paths=wfiles, chunk_lines=4)
    want = compute_stats(HYPS, REFS, ref_weights=weights)
    assert got.table.equals(want.table) and got.weights == "custom"
    r = bleustats.corpus_bleu_files(hyp, refs, ref_weight_paths=wfiles)
    assert r.name == "ΔBLEU" and r.score == bleustats.corpus_bleu(HYPS, REFS, ref_weights=weights).score


def test_line_counts_that_differ_are_named(tmp_path):
    hyp = write(tmp_path / "h.txt", HYPS)
    short = write(tmp_path / "r.txt", REFS[0][:4])
    with pytest.raises(io.InputError, match=r"the files do not have the same number of lines: \S*h\.txt has 6, "
                                            r"\S*r\.txt has 4; every reference file needs one line"):
        compute_stats_files(hyp, [short], chunk_lines=4)


def test_bad_utf8_in_a_later_chunk_names_the_file_line(tmp_path):
    hyp = write(tmp_path / "h.txt", HYPS)
    ref = tmp_path / "r.txt"
    ref.write_bytes(b"a\nb\nc\nd\n\xff e\nf\n")
    with pytest.raises(io.InputError, match=r"r\.txt: not valid UTF-8 at line 5, byte 0"):
        compute_stats_files(hyp, [ref], chunk_lines=2)


def test_empty_files_give_an_empty_table(tmp_path):
    hyp = tmp_path / "h.txt"
    hyp.write_bytes(b"")
    ref = tmp_path / "r.txt"
    ref.write_bytes(b"")
    st = compute_stats_files(hyp, [ref])
    assert len(st) == 0 and st.max_order == 4
    # scoring no segment is refused (BLEU 0.00 would be a plausible wrong number), as sacreBLEU refuses an
    # empty test set
    with pytest.raises(bleustats.InputError, match="no segments to score"):
        bleustats.corpus_score(st)


def test_iter_line_chunks_reads_blocks_smaller_than_a_line(tmp_path):
    long = [" ".join(["w"] * 500), "short", " ".join(["v"] * 300)]
    p = write(tmp_path / "a.txt", long)
    chunks = list(io.iter_line_chunks([p], chunk_lines=2, block_bytes=7))
    assert [first for first, _ in chunks] == [0, 2]
    assert [line for _, (arr,) in chunks for line in arr.to_pylist()] == long
    assert np.all([len(arr) for _, (arr,) in chunks] == np.array([2, 1]))
