"""``bleustats mbr --dask`` and :func:`bleustats.tools._mbr_partitioned.mbr_dataset` on a real Dask cluster.

A LocalCluster of two worker processes scores the partitions of a candidates
table; the per-candidate table, the chosen texts, the matrices and the summary
must equal the in-process run on the whole table exactly.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

# a real LocalCluster per test (worker processes started and killed): the heavy pass of .ci/run
pytestmark = pytest.mark.slow

pytest.importorskip("distributed", reason="bleustats mbr --dask needs the dask extra (pip install 'bleustats[dask]')")

from distributed import Client, LocalCluster  # noqa: E402

from bleustats.cli.main import main  # noqa: E402
from bleustats.distributed import DaskExecutor, worker_pids  # noqa: E402
from bleustats.errors import InputError  # noqa: E402
from bleustats.tools.mbr import mbr_nbest  # noqa: E402
from bleustats.tools._mbr_partitioned import mbr_dataset  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env={"NUMBA_NUM_THREADS": "1"})
    client = Client(lc)
    yield lc, DaskExecutor(client)
    client.close()
    lc.close()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(11)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "Füße", "中文", "🙂"]
    rows = [(s, f"sys{k}", " ".join(rng.choice(words, rng.integers(0, 9)))) for s in range(12) for k in range(6)]
    t = pd.DataFrame(rows, columns=["seg_id", "system", "text"])
    t["rank"] = np.concatenate([rng.permutation(6) for _ in range(12)])
    folder = tmp_path_factory.mktemp("mbr") / "parts"
    folder.mkdir()
    for i in range(4):  # three sources per part
        t.iloc[18 * i:18 * (i + 1)].to_parquet(folder / f"part.{i}.parquet", index=False)
    return t, folder


@pytest.mark.parametrize("metric, kw", [("chrf", {}), ("bleu", {"exclude_self": True}), ("chrf", {"aggregate": True}),
                                        ("ter", {})])
def test_on_the_cluster_equals_in_process(cluster, table, tmp_path, metric, kw):
    _, ex = cluster
    t, folder = table
    want = mbr_nbest(t, metric=metric, output=tmp_path / "w.parquet", best=tmp_path / "w.txt", **kw)
    got = mbr_dataset(folder, executor=ex, metric=metric, output=tmp_path / "d.parquet", best=tmp_path / "d.txt", **kw)
    for name in ("seg_id", "entry", "expected_utility", "chosen", "sources", "rank"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert got.best_texts == want.best_texts and got.system == want.system
    assert pq.read_table(tmp_path / "d.parquet").equals(pq.read_table(tmp_path / "w.parquet"), check_metadata=True)
    assert (tmp_path / "d.txt").read_bytes() == (tmp_path / "w.txt").read_bytes()


def test_matrices_are_written_by_the_workers(cluster, table, tmp_path):
    _, ex = cluster
    t, folder = table
    mbr_nbest(t, metric="chrf++", matrices=tmp_path / "here")
    mbr_dataset(folder, executor=ex, metric="chrf++", matrices=tmp_path / "there")
    assert len(worker_pids(ex)) == 2
    names = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "there").iterdir()) and len(names) == 12
    for name in names:
        np.testing.assert_array_equal(np.load(tmp_path / "there" / name), np.load(tmp_path / "here" / name))


def test_bad_input_on_the_cluster_is_the_same_input_error(cluster, tmp_path):
    _, ex = cluster
    folder = tmp_path / "bad"
    folder.mkdir()
    pd.DataFrame({"seg_id": [0, 0], "text": ["a", "b"], "rank": [1, 1]}).to_parquet(folder / "part.0.parquet")
    with pytest.raises(InputError, match=r"part\.0\.parquet: source 0 has rank 1 twice"):
        mbr_dataset(folder, executor=ex)


def test_cli_dask_equals_in_process(cluster, table, tmp_path, capsys):
    lc, _ = cluster
    t, folder = table
    t.to_parquet(tmp_path / "all.parquet", index=False)
    runs = {}
    for name, extra in (("here", [str(tmp_path / "all.parquet")]),
                        ("there", [str(folder), "--dask", lc.scheduler_address])):
        assert main(["mbr", *extra, "-m", "chrf", "--json", "-o", str(tmp_path / f"{name}.parquet"),
                     "--best", str(tmp_path / f"{name}.txt")]) == 0
        captured = capsys.readouterr()
        summary = json.loads(captured.out)
        summary.pop("timings")
        runs[name] = summary, captured.err
    assert runs["here"][0] == runs["there"][0]
    assert "running on Dask at" in runs["there"][1] and "(2 worker(s))" in runs["there"][1]
    assert pq.read_table(tmp_path / "there.parquet").equals(pq.read_table(tmp_path / "here.parquet"),
                                                            check_metadata=True)
    assert (tmp_path / "there.txt").read_bytes() == (tmp_path / "here.txt").read_bytes()
