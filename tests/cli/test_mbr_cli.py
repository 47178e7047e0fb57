"""``bleustats mbr`` in-process: outputs equal bleustats.tools.mbr's, options reach the metric, one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from bleustats.cli.main import main
from bleustats.tools.mbr import mbr_select

pytestmark = pytest.mark.usefixtures("numba_one_thread")

NBEST = {0: ["the cat sat on the mat", "a cat sat on a mat", "the cat", ""], 1: ["hello world", "hello there world"]}


@pytest.fixture()
def nbest(tmp_path):
    lines = [f"{s} ||| {h} ||| F0= {-k} ||| {-k}" for s, hs in NBEST.items() for k, h in enumerate(hs)]
    path = tmp_path / "nbest.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("argv, metric, options", [
    ([], "chrf", {}),
    (["-m", "chrf++", "--chrf-beta", "1"], "chrf++", {"beta": 1}),
    (["-m", "bleu", "-tok", "none", "--exclude-self"], "bleu", {"tokenize": "none"}),
    (["-m", "bleu+1", "--aggregate"], "bleu+1", {}),
    (["-m", "ter", "--ter-normalized"], "ter", {"normalized": True}),
    # a value equal to chrF's default still counts as given: chrF++ with word order 0 is what was asked for
    (["-m", "chrf++", "-cw", "0"], "chrf++", {"word_order": 0}),
])
def test_outputs_equal_the_library(nbest, tmp_path, capsys, argv, metric, options):
    out, best = tmp_path / "o.parquet", tmp_path / "best.txt"
    assert main(["mbr", str(nbest), "-o", str(out), "--best", str(best), "--json", *argv]) == 0
    summary = json.loads(capsys.readouterr().out)
    want = mbr_select(list(NBEST.values()), metric=metric, exclude_self="--exclude-self" in argv,
                      aggregate="--aggregate" in argv, **options)
    assert summary["n_candidates"] == 6 and summary["n_sources"] == 2
    assert summary["metric"] == want.metric
    np.testing.assert_array_equal(pq.read_table(out).column("expected_utility").to_numpy(), want.expected_utility)
    assert best.read_text(encoding="utf-8").splitlines() == want.best_texts


def test_text_summary_and_matrices(nbest, tmp_path, capsys):
    assert main(["mbr", str(nbest), "--matrices", str(tmp_path / "m")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("6 candidates, 2 sources; metric chrf|")
    assert np.load(tmp_path / "m" / "1.npy").shape == (2, 2)


@pytest.mark.parametrize("argv, code, message", [
    (["-m", "bleurt"], 1, "metric must be one of"),
    (["-m", "chrf", "-tok", "intl"], 2, "option(s) for bleu (tokenize) given with -m chrf"),
    (["-m", "ter", "--aggregate"], 1, "TER has no pooled form"),
    (["-m", "sacrebleu:exp", "--smooth-method", "floor"], 2, "--smooth-method: only for -m bleu"),
])
def test_errors_are_one_line(nbest, capsys, argv, code, message):
    assert main(["mbr", str(nbest), *argv]) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bleustats mbr: error: ") and message in err[0]


def test_bad_nbest_line_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("0 ||| a ||| F0= 1 ||| 1\n1 ||| b\n", encoding="utf-8")
    assert main(["mbr", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bleustats mbr: error:" in err[0]
    assert main(["mbr", str(tmp_path / "missing.txt")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_a_folder_of_parquet_parts_runs_per_partition(tmp_path, capsys):
    import pandas as pd

    t = pd.DataFrame({"seg_id": [s for s, hs in NBEST.items() for _ in hs], "text": sum(NBEST.values(), []),
                      "rank": [3, 2, 1, 0, 0, 1]})
    t.to_parquet(tmp_path / "all.parquet", index=False)
    (tmp_path / "parts").mkdir()
    t.iloc[:4].to_parquet(tmp_path / "parts" / "part.0.parquet", index=False)
    t.iloc[4:].to_parquet(tmp_path / "parts" / "part.1.parquet", index=False)
    outs = {}
    for name in ("all.parquet", "parts"):
        assert main(["mbr", str(tmp_path / name), "-m", "chrf++", "-o", str(tmp_path / f"{name}.o.parquet"),
                     "--best", str(tmp_path / f"{name}.best"), "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        outs[name] = summary, pq.read_table(tmp_path / f"{name}.o.parquet"), (tmp_path / f"{name}.best").read_text()
    (s1, o1, b1), (s2, o2, b2) = outs.values()
    s1.pop("timings"), s2.pop("timings")
    assert s1 == s2 and o1.equals(o2, check_metadata=True) and b1 == b2
    assert o1.column("entry").to_pylist() == [3, 2, 1, 0, 0, 1]


def test_dask_needs_a_parquet_table(nbest, capsys):
    assert main(["mbr", str(nbest), "--dask", "local:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--dask: the candidates must be a Parquet table" in err[0]


@pytest.mark.parametrize("metric", ["chrf", "chrf++", "bleu", "ter"])
def test_a_moses_list_loads_no_pandas(nbest, tmp_path, metric):
    """pandas is ~0.4 s of start-up that MBR over a Moses list does not use (pyarrow's shim imports it on any
    pa.array / to_numpy; engine._columns builds and reads the columns without it)."""
    import os
    import subprocess
    import sys

    code = ("import sys; from bleustats.cli.main import main; "
            f"rc = main(['mbr', {str(nbest)!r}, '-m', {metric!r}, '-o', {str(tmp_path / 'o.parquet')!r}, "
            f"'--best', {str(tmp_path / 'b.txt')!r}, '--json']); print(rc, 'pandas' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1] == "0 False", out.stdout + out.stderr
    want = mbr_select(list(NBEST.values()), metric=metric)
    np.testing.assert_array_equal(pq.read_table(tmp_path / "o.parquet").column("expected_utility").to_numpy(),
                                  want.expected_utility)
