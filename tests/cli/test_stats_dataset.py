"""``bleustats stats -o DIR/`` (a partitioned dataset, streamed) and ``score --from-stats DIR``, without Dask.

The dataset's scores equal those of the single file, option checks apply to
a dataset as to a file, and options that cannot apply are usage errors
(exit 2) naming the fix.
"""

from __future__ import annotations

import json

import pytest

from bleustats.cli import main
from bleustats.engine.dataset import MANIFEST, open_stats
from ..conftest import make_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, numba_one_thread):
    return make_corpus(tmp_path_factory.mktemp("corpus"))


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_dataset_from_parquet_parts_scores_as_the_single_file(corpus, tmp_path, capsys):
    code, _, err = _run(capsys, "stats", corpus["refs_file"], "-i", corpus["hyps_dir"], "-o", tmp_path / "st",
                        "--batch-rows", "16")
    assert code == 0 and "120 rows" in err and "(4 part(s))" in err
    assert _run(capsys, "stats", corpus["refs_file"], "-i", corpus["hyps_file"], "-o", tmp_path / "one.parquet")[0] == 0
    for extra in ([], ["-m", "bleu", "delta_bleu"], ["--max-ngram-order", "2"], ["--ref-length", "average"]):
        _, one, _ = _run(capsys, "score", "--from-stats", tmp_path / "one.parquet", "--json", *extra)
        code, ds, err = _run(capsys, "score", "--from-stats", tmp_path / "st", "--json", *extra)
        assert code == 0 and json.loads(ds) == json.loads(one), (extra, err)
    # a folder of parts written as one file: the same table
    assert _run(capsys, "stats", corpus["refs_file"], "-i", corpus["hyps_dir"], "-o", tmp_path / "two.parquet")[0] == 0
    assert (tmp_path / "two.parquet").read_bytes()[:4] == b"PAR1"
    _, two, _ = _run(capsys, "score", "--from-stats", tmp_path / "two.parquet", "--json")
    _, one, _ = _run(capsys, "score", "--from-stats", tmp_path / "one.parquet", "--json")
    assert two == one


def test_plain_text_streams_into_a_dataset(tmp_path, capsys):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b c d\nx y\nthe cat\n" * 5, encoding="utf-8")
    ref.write_text("a b c d\nx z\nthe cat sat\n" * 5, encoding="utf-8")
    code, _, err = _run(capsys, "stats", ref, "-i", hyp, "-o", f"{tmp_path / 'st'}/", "--batch-rows", "4")
    assert code == 0 and "(4 part(s))" in err and (tmp_path / "st" / MANIFEST).is_file()
    _, want, _ = _run(capsys, "score", ref, "-i", hyp, "--json")
    _, got, _ = _run(capsys, "score", "--from-stats", tmp_path / "st", "--json")
    assert json.loads(got) == json.loads(want)
    assert len(open_stats(tmp_path / "st")) == 15


@pytest.mark.parametrize("argv, message", [
    (["score", "--from-stats", "{one}", "--dask", "local:1"], "--dask: scores a partitioned statistics dataset"),
    (["score", "{ref}", "-i", "{hyp}", "--dask", "local:1"], "--dask: compute the statistics on the cluster"),
    (["stats", "{ref}", "-i", "{hyp}", "-o", "{out}", "--dask", "local:1"], "--dask: plain-text files are streamed"),
    (["stats", "{refs}", "-i", "{dir}", "-o", "{out}", "--batch-rows", "0"], "--batch-rows: must be >= 1; got 0"),
    (["kbest", "{dir}", "{refs}", "--scores-txt", "{out}"], "--scores-txt: written for a Moses n-best list"),
    (["kbest", "{dir}", "{refs}", "-o", "{out}.parquet"], "a partitioned list writes a dataset folder"),
])
def test_options_that_cannot_apply_are_usage_errors(corpus, tmp_path, capsys, argv, message):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b\n", encoding="utf-8")
    ref.write_text("a b\n", encoding="utf-8")
    assert _run(capsys, "stats", ref, "-i", hyp, "-o", tmp_path / "one.parquet")[0] == 0
    names = dict(one=tmp_path / "one.parquet", hyp=hyp, ref=ref, out=tmp_path / "out", dir=corpus["hyps_dir"],
                 refs=corpus["refs_file"])
    code, out, err = _run(capsys, *[a.format(**names) for a in argv])
    assert code == 2 and message in err and out == "", err
    assert not (tmp_path / "out").exists()


def test_a_broken_dataset_is_refused_by_score(corpus, tmp_path, capsys):
    assert _run(capsys, "stats", corpus["refs_file"], "-i", corpus["hyps_dir"], "-o", tmp_path / "st")[0] == 0
    (tmp_path / "st" / "part-00001.parquet").unlink()
    code, out, err = _run(capsys, "score", "--from-stats", tmp_path / "st")
    assert code == 1 and out == "" and "1 part(s) listed in the manifest are missing: part-00001.parquet" in err


def test_kbest_from_parquet_parts_equals_the_single_table(corpus, tmp_path, capsys):
    nb = corpus["hyps"].sort_values(["seg_id", "system"], kind="stable").drop(columns="system")
    (tmp_path / "nb").mkdir()
    nb.iloc[:45].to_parquet(tmp_path / "nb" / "part.0.parquet", index=False)
    nb.iloc[45:].to_parquet(tmp_path / "nb" / "part.1.parquet", index=False)
    nb.to_parquet(tmp_path / "nb.parquet", index=False)
    _, want, _ = _run(capsys, "kbest", tmp_path / "nb.parquet", corpus["refs_file"], "--json", "-m", "bleu+1")
    code, got, err = _run(capsys, "kbest", tmp_path / "nb", corpus["refs_file"], "--json", "-m", "bleu+1")
    assert code == 0, err
    want, got = json.loads(want), json.loads(got)
    want.pop("timings"), got.pop("timings")
    assert got == want
