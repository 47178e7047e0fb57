"""bleustats on a real Dask cluster: a LocalCluster of two worker processes, shared by the module.

Everything computed on the cluster must equal the single-process result bit
for bit: the statistics rows, corpus BLEU / ΔBLEU (whole and per system),
sentence variants, paired tests, study metrics, k-best oracles, and the
command line (``stats --dask`` then ``score --from-stats --json``). A worker
killed mid-run is retried and the result is still exact; a worker that keeps
dying fails the run with a ClusterError and leaves no dataset; bad inputs are
the same InputErrors as here, with nothing written.

The cluster allows one retry per task (``distributed.scheduler.allowed-failures
= 1``) so the failure test needs only two worker deaths.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

# a real LocalCluster per test (worker processes started and killed): the heavy pass of .ci/run
pytestmark = pytest.mark.slow

pytest.importorskip("distributed", reason="bleustats.distributed needs the dask extra (pip install 'bleustats[dask]')")
pytest.importorskip("dask.dataframe", reason="bleustats.distributed needs dask[dataframe] (the dask extra)")

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from bleustats.cli.main import main  # noqa: E402
from bleustats.distributed import DaskExecutor, compute_stats_frame, connect, worker_pids  # noqa: E402
from bleustats.engine.dataset import open_stats  # noqa: E402
from bleustats.engine._partitioned_stats import compute_stats_dataset  # noqa: E402
from bleustats.engine.stats import compute_stats  # noqa: E402
from bleustats.errors import ClusterError, InputError  # noqa: E402
from bleustats.meta import paired, rated_cells, study, units  # noqa: E402
from bleustats.metrics import sentence, tables  # noqa: E402
from bleustats.tools.kbest import score_nbest  # noqa: E402
from bleustats.tools._kbest_partitioned import score_nbest_dataset  # noqa: E402
from ..conftest import make_corpus  # noqa: E402

VARIANTS = ["bleu+1", "lin-och", "nakov:bp-smoothed,pc-grounded", "sacrebleu:exp", "chen-cherry:3"]


@pytest.fixture(scope="module")
def cluster():
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                          env={"NUMBA_NUM_THREADS": "1"})
    client = Client(lc)
    yield lc, DaskExecutor(client)
    client.close()
    lc.close()


@pytest.fixture
def executor(cluster):
    lc, ex = cluster
    ex.client.wait_for_workers(2, timeout=600)  # a killed worker is being restarted by its nanny (slow when loaded)
    return ex


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    data = make_corpus(tmp_path_factory.mktemp("corpus"))
    data["memory"] = compute_stats(data["hyps"], data["refs"])
    return data


@pytest.fixture(scope="module")
def on_cluster(cluster, corpus):
    _, ex = cluster
    ds = compute_stats_dataset(corpus["hyps_dir"], corpus["refs_file"], corpus["hyps_dir"].parent / "st", executor=ex,
                               batch_rows=8)
    return ds.with_executor(ex)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_the_work_runs_on_two_other_processes(executor):
    pids = worker_pids(executor)
    assert len(pids) == 2 and os.getpid() not in pids.values()


def test_statistics_rows_equal_the_single_process_ones(on_cluster, corpus):
    assert on_cluster.to_table().table.equals(corpus["memory"].table, check_metadata=True)
    assert len(on_cluster.parts) == 4


@pytest.mark.parametrize("metric", ["bleu", "delta_bleu"])
def test_scores_on_the_cluster_equal_bit_for_bit(on_cluster, corpus, metric):
    st = corpus["memory"]
    assert tables.corpus_score(on_cluster, metric=metric) == tables.corpus_score(st, metric=metric)
    for ref_length in ("closest", "average"):
        got = tables.corpus_scores(on_cluster, by="system", metric=metric, ref_length=ref_length)
        assert got.equals(tables.corpus_scores(st, by="system", metric=metric, ref_length=ref_length))
    assert np.array_equal(tables.sentence_scores(on_cluster, metric=metric),
                          tables.sentence_scores(st, metric=metric), equal_nan=True)


def test_sentence_variants_on_the_cluster(on_cluster, corpus):
    got = sentence.score_variants(on_cluster, VARIANTS)
    want = sentence.score_variants(corpus["memory"], VARIANTS)
    assert all(np.array_equal(got[v], want[v], equal_nan=True) for v in VARIANTS)


def test_paired_tests_and_study_on_the_cluster(on_cluster, corpus):
    st, human = corpus["memory"], corpus["human"]
    assert paired.paired_bootstrap(on_cluster, "B", "C", n_samples=300) == paired.paired_bootstrap(
        st, "B", "C", n_samples=300)
    assert paired.paired_approximate_randomization(on_cluster, "A", "C", n_samples=300) == \
        paired.paired_approximate_randomization(st, "A", "C", n_samples=300)
    kw = dict(unit_size=5, n_assignments=20, n_bootstrap=50, seed=2)
    got = study.correlation_study([rated_cells.corpus_metric(on_cluster, human=human, metric="delta_bleu"),
                                   rated_cells.sentence_mean_metric(on_cluster, "bleu+1", human=human)], human, **kw)
    want = study.correlation_study([units.corpus_metric(st, metric="delta_bleu"),
                                    units.sentence_mean_metric(st, "bleu+1")], human, **kw)
    assert got.summary.equals(want.summary)


def test_dask_dataframe_input(executor, corpus, tmp_path):
    frame = dd.from_pandas(corpus["hyps"], npartitions=3)
    ds = compute_stats_frame(frame, corpus["refs"], tmp_path / "st", executor=executor)
    assert len(ds.parts) == 3
    assert ds.to_table().table.equals(corpus["memory"].table, check_metadata=True)


def test_kbest_oracles_on_the_cluster(executor, corpus, tmp_path):
    nb = corpus["hyps"].sort_values(["seg_id", "system"], kind="stable").drop(columns="system")
    nb = nb.assign(model_score=np.linspace(-1, 1, len(nb)))
    variants = ["bleu+1", "nakov:bp-smoothed"]
    got = score_nbest_dataset(nb, corpus["refs"], tmp_path / "kb", executor=executor, variants=variants,
                              partition_rows=30)
    want = score_nbest(nb, corpus["refs"], variants=variants)
    assert (got.n_entries, got.n_sources, got.one_best, got.oracles) == (want.n_entries, want.n_sources,
                                                                          want.one_best, want.oracles)
    assert len(list((tmp_path / "kb").glob("part-*.parquet"))) == 4


# --------------------------------------------------------------------------- failures


def _die_once(marker, fn, item, **kw):
    """Kill this worker process the first time partition 1 runs (the marker says it happened)."""
    if item[0] == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return fn(item, **kw)


def _die_always(fn, item, **kw):
    if item[0] == 1:
        os._exit(1)
    return fn(item, **kw)


class _Killing(DaskExecutor):
    """The cluster's executor, its tasks wrapped so that a worker dies running one of them."""

    def __init__(self, client, wrap):
        super().__init__(client)
        self.wrap = wrap

    def map(self, fn, items, **shared):
        return super().map(functools.partial(self.wrap, fn), items, **shared)


def test_a_worker_killed_mid_run_is_retried_and_the_result_is_exact(executor, corpus, tmp_path):
    before = set(worker_pids(executor).values())
    ex = _Killing(executor.client, functools.partial(_die_once, str(tmp_path / "died")))
    ds = compute_stats_dataset(corpus["hyps_dir"], corpus["refs"], tmp_path / "st", executor=ex)
    assert (tmp_path / "died").exists()  # a worker did die
    assert ds.to_table().table.equals(corpus["memory"].table, check_metadata=True)
    assert _leftovers(tmp_path) == []
    executor.client.wait_for_workers(2, timeout=600)
    assert set(worker_pids(executor).values()) != before


def test_a_worker_that_keeps_dying_fails_clearly_and_writes_nothing(executor, corpus, tmp_path):
    ex = _Killing(executor.client, _die_always)
    # usually "lost the worker running _die_always of partition 1 more often than it retries"; a partition that
    # shared the dying worker may be the one named first (seen: partition 0), and when the dying worker also held
    # the shared references the scheduler may cancel the run instead: a ClusterError in every case
    with pytest.raises(ClusterError, match=r"the Dask cluster (lost the worker running _die_always of partition \d+ "
                                           r"more often than it retries|cancelled).*Nothing was written") as info:
        compute_stats_dataset(corpus["hyps_dir"], corpus["refs"], tmp_path / "st", executor=ex)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "st").exists() and _leftovers(tmp_path) == []


def test_bad_input_on_the_cluster_is_the_same_input_error(executor, corpus, tmp_path):
    refs = corpus["refs"].loc[corpus["refs"]["seg_id"] != 3]
    with pytest.raises(InputError, match=r"references: 1 segment\(s\) of .*part\.0\.parquet have hypotheses but "
                                         r"no reference: seg_id 3"):
        compute_stats_dataset(corpus["hyps_dir"], refs, tmp_path / "st", executor=executor)
    dup = tmp_path / "hyps"
    dup.mkdir()
    for p in corpus["hyps_dir"].iterdir():
        (dup / p.name).write_bytes(p.read_bytes())
    (dup / "part.9.parquet").write_bytes((corpus["hyps_dir"] / "part.2.parquet").read_bytes())
    with pytest.raises(InputError, match=r"is in two partitions \(.*part\.2\.parquet and .*part\.9\.parquet\)"):
        compute_stats_dataset(dup, corpus["refs"], tmp_path / "st", executor=executor)
    assert not (tmp_path / "st").exists() and _leftovers(tmp_path) == []


def test_unreachable_scheduler_and_bad_addresses():
    with pytest.raises(InputError, match="local clusters are written local:N"):
        with connect("local"):
            pass
    with pytest.raises(InputError, match="local:N needs N >= 1 workers"):
        with connect("local:0"):
            pass
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ClusterError, match="cannot reach a Dask scheduler"):
            import bleustats.distributed.cluster as cl
            old, cl.CONNECT_TIMEOUT = cl.CONNECT_TIMEOUT, 2
            try:
                with connect("tcp://127.0.0.1:9"):
                    pass
            finally:
                cl.CONNECT_TIMEOUT = old


# --------------------------------------------------------------------------- command line


def _json(capsys, *argv) -> dict:
    assert main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_stats_on_the_cluster_then_score_equals_single_process(cluster, corpus, tmp_path, capsys):
    lc, _ = cluster
    address = lc.scheduler_address  # tcp://127.0.0.1:PORT, as a remote scheduler is given
    assert main(["stats", "--dask", address, str(corpus["refs_file"]), "-i", str(corpus["hyps_dir"]),
                 "-o", str(tmp_path / "st")]) == 0
    assert "4 part(s)" in capsys.readouterr().err
    assert main(["stats", str(corpus["refs_file"]), "-i", str(corpus["hyps_file"]), "-o",
                 str(tmp_path / "one.parquet")]) == 0
    capsys.readouterr()
    for metric in ("bleu", "delta_bleu"):
        single = _json(capsys, "score", "--from-stats", tmp_path / "one.parquet", "--json", "-m", metric)
        assert _json(capsys, "score", "--from-stats", tmp_path / "st", "--json", "-m", metric) == single
        assert _json(capsys, "score", "--from-stats", tmp_path / "st", "--json", "-m", metric,
                     "--dask", address) == single
    assert open_stats(tmp_path / "st").to_table().table.equals(corpus["memory"].table, check_metadata=True)


def test_cli_kbest_on_the_cluster(cluster, corpus, tmp_path, capsys):
    lc, _ = cluster
    nb = corpus["hyps"].sort_values(["seg_id", "system"], kind="stable").drop(columns="system")
    (tmp_path / "nb").mkdir()
    nb.iloc[:60].to_parquet(tmp_path / "nb" / "part.0.parquet", index=False)
    nb.iloc[60:].to_parquet(tmp_path / "nb" / "part.1.parquet", index=False)
    nb.to_parquet(tmp_path / "nb.parquet", index=False)
    want = _json(capsys, "kbest", tmp_path / "nb.parquet", corpus["refs_file"], "--json")
    got = _json(capsys, "kbest", tmp_path / "nb", corpus["refs_file"], "--json", "--dask", lc.scheduler_address,
                "-o", tmp_path / "kb")
    want.pop("timings"), got.pop("timings")
    assert got == want


def test_cli_local_cluster_started_for_the_run(corpus, tmp_path, capsys):
    # the command: bleustats stats --dask local:2 REFS.parquet -i HYPS_DIR -o STATS_DIR
    assert main(["stats", "--dask", "local:2", str(corpus["refs_file"]), "-i", str(corpus["hyps_dir"]),
                 "-o", str(tmp_path / "st")]) == 0
    assert "running on Dask at local:2 (2 worker(s))" in capsys.readouterr().err
    assert open_stats(tmp_path / "st").to_table().table.equals(corpus["memory"].table, check_metadata=True)


def test_cli_study_on_the_cluster_equals_single_process(cluster, tmp_path, capsys):
    from ..meta.test_study import _corpus

    lc, _ = cluster
    hyps, refs, human = _corpus(seed=2)
    for name, frame in (("hyps", hyps), ("refs", refs), ("human", human)):
        frame.to_csv(tmp_path / f"{name}.tsv", sep="\t", index=False)
    args = ["study", "--hypotheses", tmp_path / "hyps.tsv", "--references", tmp_path / "refs.tsv", "--human",
            tmp_path / "human.tsv", "-tok", "none", "--unit-size", "2", "--assignments", "20", "--bootstrap", "50",
            "--weight-threshold", "0.3", "--json", "--sweep", "threshold", "--thresholds=-1,0.5",
            "--sweep-assignments", "5"]
    single = _json(capsys, *args, "-o", tmp_path / "one")
    on_cluster = _json(capsys, *args, "-o", tmp_path / "two", "--dask", lc.scheduler_address)
    assert on_cluster == single
    for name in ("table2.csv", "sweep_threshold.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the cluster's scratch is gone
