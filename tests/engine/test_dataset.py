"""Partitioned statistics on one machine (no Dask): datasets, streamed statistics and their scores.

A dataset computed partition by partition, in batches, must hold exactly the
rows :func:`compute_stats` gives for the whole table, and every score read
from it (corpus BLEU / ΔBLEU, per system, sentence variants, paired tests,
study metrics) must equal the in-memory one bit for bit. Bad inputs (parts
missing or unlisted, parts of other settings, references missing for a
partition's segments, rows repeated across partitions, partitions of other
schemas) are clear InputErrors, and a failed run leaves nothing on disk.
"""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from bleustats.engine.dataset import MANIFEST, DatasetWriter, open_stats, save_as_file, write_part
from bleustats.engine._partitioned_stats import compute_stats_dataset, compute_stats_files_dataset
from bleustats.engine.stats import compute_stats, compute_stats_files, load_stats
from bleustats.errors import InputError
from bleustats.meta import paired, rated_cells, study, units
from bleustats.metrics import sentence, tables
from ..conftest import make_corpus

VARIANTS = [v for v in sentence.SENTENCE_VARIANTS if v not in ("pseudo-doc", "chiang-gain")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    data = make_corpus(tmp_path_factory.mktemp("corpus"))
    data["memory"] = compute_stats(data["hyps"], data["refs"])
    data["dataset"] = compute_stats_dataset(data["hyps_dir"], data["refs_file"], data["hyps_dir"].parent / "st",
                                            batch_rows=7)
    return data


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_rows_equal_the_in_memory_table(corpus):
    ds, st = corpus["dataset"], corpus["memory"]
    assert len(ds.parts) == 4 and len(ds) == len(st)
    assert ds.to_table().table.equals(st.table, check_metadata=True)
    # streamed: every row group holds at most batch_rows rows
    sizes = [pq.ParquetFile(ds.path / p).metadata.row_group(g).num_rows
             for p in ds.parts for g in range(pq.ParquetFile(ds.path / p).metadata.num_row_groups)]
    assert max(sizes) <= 7


@pytest.mark.parametrize("metric", ["bleu", "delta_bleu"])
def test_corpus_and_group_scores_equal_bit_for_bit(corpus, metric):
    ds, st = corpus["dataset"], corpus["memory"]
    assert tables.corpus_score(ds, metric=metric) == tables.corpus_score(st, metric=metric)
    got, want = tables.corpus_scores(ds, by="system", metric=metric), tables.corpus_scores(st, by="system",
                                                                                               metric=metric)
    assert got.equals(want) and got.attrs == want.attrs
    a = tables.sentence_scores(ds, metric=metric)
    assert np.array_equal(a, tables.sentence_scores(st, metric=metric), equal_nan=True)


def test_sentence_variants_equal(corpus, tmp_path):
    # order 5 statistics: chen-cherry:5 reads order N + 1
    ds = compute_stats_dataset(corpus["hyps_dir"], corpus["refs"], tmp_path / "st", max_ngram_order=5, batch_rows=9)
    st = compute_stats(corpus["hyps"], corpus["refs"], max_ngram_order=5)
    got = sentence.score_variants(ds, VARIANTS, max_ngram_order=4)
    want = sentence.score_variants(st, VARIANTS, max_ngram_order=4)
    for name in VARIANTS:
        assert np.array_equal(got[name], want[name], equal_nan=True), name


def test_lower_order_view_equals_the_table_cut(corpus):
    ds, st = corpus["dataset"].up_to_order(2), corpus["memory"].up_to_order(2)
    assert tables.corpus_scores(ds, by="system").equals(tables.corpus_scores(st, by="system"))
    assert np.array_equal(tables.sentence_scores(ds), tables.sentence_scores(st), equal_nan=True)
    assert ds.to_table().table.equals(st.table, check_metadata=True)


def test_paired_tests_and_study_metrics_equal(corpus):
    ds, st = corpus["dataset"], corpus["memory"]
    for test in ("paired_bootstrap", "paired_approximate_randomization"):
        got = getattr(paired, test)(ds, "A", "B", n_samples=200, seed=3)
        assert got == getattr(paired, test)(st, "A", "B", n_samples=200, seed=3), test
    human = corpus["human"]
    on_ds = [rated_cells.corpus_metric(ds, human=human, metric=m) for m in ("bleu", "delta_bleu")]
    on_ds.append(rated_cells.sentence_mean_metric(ds, "bleu+1", human=human))
    in_mem = [units.corpus_metric(st, metric=m) for m in ("bleu", "delta_bleu")]
    in_mem.append(units.sentence_mean_metric(st, "bleu+1"))
    kw = dict(unit_size=5, n_assignments=20, n_bootstrap=50, seed=1)
    got = study.correlation_study(on_ds, human, **kw).summary
    want = study.correlation_study(in_mem, human, **kw).summary
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_plain_text_files_stream_into_a_dataset(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("a b c d\nx y\n\nthe cat\n", encoding="utf-8")
    ref.write_text("a b c d\nx z\nq\nthe cat sat\n", encoding="utf-8")
    ds = compute_stats_files_dataset(hyp, [ref], tmp_path / "st", chunk_lines=3)
    assert ds.part_rows == (3, 1)
    assert ds.to_table().table.equals(compute_stats_files(hyp, [ref]).table, check_metadata=True)


def test_single_file_copy_of_a_dataset(corpus, tmp_path):
    save_as_file(corpus["dataset"], tmp_path / "st.parquet", batch_rows=5)
    assert load_stats(tmp_path / "st.parquet").table.equals(corpus["memory"].table, check_metadata=True)


# --------------------------------------------------------------------------- bad datasets


@pytest.fixture
def copy(corpus, tmp_path):
    dst = tmp_path / "copy"
    shutil.copytree(corpus["dataset"].path, dst)
    return dst


def test_missing_part_is_refused(copy):
    (copy / "part-00002.parquet").unlink()
    with pytest.raises(InputError, match=r"1 part\(s\) listed in the manifest are missing: part-00002.parquet"):
        open_stats(copy)


def test_unlisted_part_and_missing_manifest_are_refused(copy):
    shutil.copy(copy / "part-00000.parquet", copy / "part-00009.parquet")
    with pytest.raises(InputError, match=r"1 Parquet file\(s\) are not in the manifest: part-00009.parquet"):
        open_stats(copy)
    (copy / MANIFEST).unlink()
    with pytest.raises(InputError, match="has no _bleustats_manifest.json, so it is not a complete"):
        open_stats(copy)


@pytest.mark.parametrize("edit", ["repeat", "outside", "swap"])
def test_a_manifest_listing_a_part_twice_or_out_of_place_is_refused(copy, edit, tmp_path):
    # each of these was scored: a part listed twice counted its rows twice
    manifest = json.loads((copy / MANIFEST).read_text())
    if edit == "repeat":
        manifest["parts"].append(dict(manifest["parts"][0]))
    elif edit == "outside":
        (tmp_path / "elsewhere").mkdir()
        shutil.copy(copy / "part-00000.parquet", tmp_path / "elsewhere" / "p.parquet")
        manifest["parts"].append(dict(manifest["parts"][0], name="../elsewhere/p.parquet"))
    else:
        manifest["parts"][0], manifest["parts"][1] = manifest["parts"][1], manifest["parts"][0]
    manifest["rows"] = sum(p["rows"] for p in manifest["parts"])
    (copy / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=r"the parts must be listed once each, in order, as part-00000.parquet"):
        open_stats(copy)


def test_parts_of_other_settings_are_refused(copy, corpus):
    other = compute_stats(corpus["hyps"].iloc[:3], corpus["refs"], tokenize="none")
    pq.write_table(other.table, copy / "part-00001.parquet")
    manifest = json.loads((copy / MANIFEST).read_text())
    manifest["parts"][1]["rows"] = 3
    (copy / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="part-00001.parquet has another schema or other settings than part-00000"):
        open_stats(copy)


def test_row_count_disagreeing_with_the_manifest_is_refused(copy, corpus):
    pq.write_table(pq.read_table(copy / "part-00003.parquet").slice(0, 2), copy / "part-00003.parquet")
    with pytest.raises(InputError, match="part-00003.parquet has 2 rows, the manifest says 30"):
        open_stats(copy)


# --------------------------------------------------------------------------- bad inputs: nothing written


def test_references_missing_for_a_partition(corpus, tmp_path):
    refs = corpus["refs"].loc[~corpus["refs"]["seg_id"].isin([37, 38])]
    with pytest.raises(InputError, match=r"references: 2 segment\(s\) of .*part\.1\.parquet have hypotheses but "
                                         r"no reference: seg_id 37, 38\. Every hypothesis needs"):
        compute_stats_dataset(corpus["hyps_dir"], refs, tmp_path / "st")
    assert not (tmp_path / "st").exists() and _leftovers(tmp_path) == []


def test_rows_repeated_across_partitions(corpus, tmp_path):
    hyps = tmp_path / "hyps"
    shutil.copytree(corpus["hyps_dir"], hyps)
    pd.read_parquet(hyps / "part.0.parquet").iloc[5:7].to_parquet(hyps / "part.4.parquet", index=False)
    with pytest.raises(InputError, match=r"system 'A' seg_id 5 is in two partitions \(.*part\.0\.parquet and "
                                         r".*part\.4\.parquet\)"):
        compute_stats_dataset(hyps, corpus["refs"], tmp_path / "st")
    assert not (tmp_path / "st").exists() and _leftovers(tmp_path) == []


def test_rows_repeated_within_a_partition_across_batches(corpus, tmp_path):
    hyps = corpus["hyps"]
    with pytest.raises(InputError, match=r"rows 0-59: system 'A' has 1 repeated seg_id\(s\) \(seg_id 0\)"):
        compute_stats_dataset(pd.concat([hyps.iloc[:59], hyps.iloc[:1]]), corpus["refs"], tmp_path / "st",
                              batch_rows=10, partition_rows=60)


def test_partitions_of_other_schemas(corpus, tmp_path):
    hyps = tmp_path / "hyps"
    shutil.copytree(corpus["hyps_dir"], hyps)
    pd.read_parquet(hyps / "part.3.parquet").drop(columns="system").to_parquet(hyps / "part.3.parquet", index=False)
    with pytest.raises(InputError, match=r"partitions have different columns or types: .* in 3 partition\(s\).*"
                                         r"seg_id: int64, text: \w+ in 1 partition\(s\)"):
        compute_stats_dataset(hyps, corpus["refs"], tmp_path / "st")


def test_a_failed_run_keeps_the_old_dataset(corpus, tmp_path):
    out = tmp_path / "st"
    shutil.copytree(corpus["dataset"].path, out)
    with pytest.raises(InputError):
        compute_stats_dataset(corpus["hyps_dir"], corpus["refs"].iloc[:10], out)
    assert open_stats(out).to_table().table.equals(corpus["memory"].table)
    assert _leftovers(tmp_path) == []


def test_writer_refuses_a_folder_that_is_not_a_dataset(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="exists and is not a bleustats statistics dataset"):
        DatasetWriter(tmp_path / "mine")


def test_commit_needs_every_part(corpus, tmp_path):
    st = corpus["memory"]
    with DatasetWriter(tmp_path / "st") as w:
        entries = [write_part(w.folder, 0, [st.table]), write_part(w.folder, 2, [st.table])]
        with pytest.raises(InputError, match="expected part 0 to 1 once each. Nothing was written"):
            w.commit(entries)
    assert not (tmp_path / "st").exists() and _leftovers(tmp_path) == []


def test_sums_do_not_depend_on_the_partitioning(corpus, tmp_path):
    # ΔBLEU's weighted counts and the average reference length are floats: the same bits for 1, 7 and 120
    # partitions as for the table in memory
    want = [tables.corpus_score(corpus["memory"], metric="delta_bleu", ref_length=r) for r in ("closest", "average")]
    for rows in (1, 7, 120):
        ds = compute_stats_dataset(corpus["hyps"], corpus["refs"], tmp_path / f"st{rows}", partition_rows=rows)
        assert len(ds.parts) == math.ceil(120 / rows)
        got = [tables.corpus_score(ds, metric="delta_bleu", ref_length=r) for r in ("closest", "average")]
        assert got == want
