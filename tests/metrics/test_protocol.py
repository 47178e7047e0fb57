"""One scoring path: the same calls on an in-memory table and on a partitioned dataset of it give the same results.

Scorers ask their statistics only the questions of ``bleustats.engine.protocol``; these tests
split one table into uneven parts (one empty) with small batches, so groups, selections and
float sums cross part and batch boundaries, and require equality bit for bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bleustats.engine.dataset import DatasetWriter, cell_mask, select_rows, system_mask, write_part
from bleustats.engine.protocol import StatsSource
from bleustats.engine.stats import compute_stats
from bleustats.errors import InputError
from bleustats.metrics import results, sentence, tables


def _corpus(n_segs: int = 23, systems: str = "ABC", seed: int = 3):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(12)]

    def text() -> str:
        return " ".join(rng.choice(words, rng.integers(1, 9)))

    refs = pd.DataFrame({"seg_id": np.repeat(np.arange(n_segs), 2), "text": [text() for _ in range(2 * n_segs)],
                         "weight": rng.uniform(0.1, 1.0, 2 * n_segs) * rng.choice([-1, 1], 2 * n_segs, p=[.3, .7])})
    refs.loc[refs.groupby("seg_id").head(1).index, "weight"] = rng.uniform(0.2, 1.0, n_segs)  # max_j w_j > 0
    hyps = pd.DataFrame({"seg_id": np.tile(np.arange(n_segs), len(systems)),
                         "system": np.repeat(list(systems), n_segs),
                         "text": [text() for _ in range(n_segs * len(systems))]})
    return hyps, refs


def _dataset(st, folder, cuts=(0, 5, 5, 31, 50)):
    """``st`` written as parts st[cuts[i]:cuts[i+1]] (and the rest): uneven, one empty."""
    bounds = [*cuts, len(st)]
    with DatasetWriter(folder) as w:
        ds = w.commit([write_part(w.folder, i, [st.select(np.arange(a, b)).table])
                       for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))])
    return ds


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    hyps, refs = _corpus()
    st = compute_stats(hyps, refs, metrics=("bleu", "chrf", "ter"))
    ds = _dataset(st, tmp_path_factory.mktemp("proto") / "ds")
    return st, ds


def _small_batches(ds, monkeypatch):
    """Batches of 4 rows inside each part, so every row-wise answer crosses batch boundaries too."""
    from bleustats.engine import dataset

    monkeypatch.setattr(dataset, "DEFAULT_BATCH_ROWS", 4)
    real = dataset.iter_stats_part
    monkeypatch.setattr(dataset, "iter_stats_part",
                        lambda path, columns=None, *, batch_rows=4, max_ngram_order=None:
                        real(path, columns, batch_rows=4, max_ngram_order=max_ngram_order))
    return ds


def test_both_answer_the_protocol(pair):
    st, ds = pair
    assert isinstance(st, StatsSource) and isinstance(ds, StatsSource)
    assert len(ds.parts) == 5 and 0 in ds.part_rows and len(ds) == len(st)


@pytest.mark.parametrize("by", [None, "system", "seg_id"])
def test_column_totals_equal_bit_for_bit(pair, monkeypatch, by):
    st, ds = pair
    _small_batches(ds, monkeypatch)
    cols = ["match_1", "total_4", "wmatch_2", "ref_len_average", "ter_ref_length", "hyp_len"]
    k_mem, s_mem = st.column_totals(cols, by=by)
    k_ds, s_ds = ds.column_totals(cols, by=by)
    assert k_mem.tolist() == k_ds.tolist()
    for c in cols:
        assert s_mem[c].dtype == s_ds[c].dtype and s_mem[c].tolist() == s_ds[c].tolist(), c


@pytest.mark.parametrize("metric", ["bleu", "delta_bleu", "chrf", "ter"])
def test_scores_equal_bit_for_bit(pair, monkeypatch, metric):
    st, ds = pair
    _small_batches(ds, monkeypatch)
    opts = {} if metric in ("chrf", "ter") else {"ref_length": "average", "smooth_method": "floor"}
    a, b = tables.corpus_score(st, metric=metric, **opts), tables.corpus_score(ds, metric=metric, **opts)
    assert a.score == b.score and str(a.signature if hasattr(a, "signature") else a) == str(
        b.signature if hasattr(b, "signature") else b)
    for by in ("system", "seg_id"):
        fa = tables.corpus_scores(st, by=by, metric=metric, **opts)
        fb = tables.corpus_scores(ds, by=by, metric=metric, **opts)
        pd.testing.assert_frame_equal(fa, fb, check_exact=True)
        assert fa.attrs == fb.attrs
    assert tables.sentence_scores(st, metric=metric).tolist() == tables.sentence_scores(ds, metric=metric).tolist()


def test_selections_and_resamples_equal(pair, monkeypatch):
    st, ds = pair
    _small_batches(ds, monkeypatch)
    rows = np.random.default_rng(0).integers(-len(st), len(st), 2 * len(st))  # repeats, negatives, every part
    assert ds.select(rows).table.equals(st.select(rows % len(st)).table)
    for metric in ("bleu", "delta_bleu", "ter"):
        assert tables.corpus_score(st, rows=rows, metric=metric).score == tables.corpus_score(
            ds, rows=rows, metric=metric).score
    mask = np.arange(len(st)) % 3 == 0
    assert tables.corpus_score(st, rows=mask).score == tables.corpus_score(ds, rows=mask).score
    assert select_rows(st, system_mask, systems=["B"]).table.equals(select_rows(ds, system_mask, systems=["B"]).table)
    cells = dict(systems=["A", "C", "C"], seg_ids=[3, 0, 22])
    assert st.where(cell_mask, **cells).table.equals(ds.where(cell_mask, **cells).table)


def test_variants_systems_and_coverage_equal(pair, monkeypatch):
    st, ds = pair
    _small_batches(ds, monkeypatch)
    names = ["bleu+1", "chen-cherry:5", "sacrebleu:exp"]
    a = sentence.score_variants(st, names, metric="delta_bleu", max_ngram_order=3)
    b = sentence.score_variants(ds, names, metric="delta_bleu", max_ngram_order=3)
    assert {k: v.tolist() for k, v in a.items()} == {k: v.tolist() for k, v in b.items()}
    assert st.systems().tolist() == ds.systems().tolist() == ["A", "B", "C"]
    assert tables.n_systems(ds) == 3
    part = st.select(np.flatnonzero(~((st.column("system") == "B") & (st.column("seg_id") < 4))))
    dp = _dataset(part, ds.path.parent / "partial")
    assert results.system_coverage(part) == results.system_coverage(dp)
    fa = tables.corpus_scores(part, allow_partial=True)
    fb = tables.corpus_scores(dp, allow_partial=True)
    pd.testing.assert_frame_equal(fa, fb, check_exact=True)
    assert fa.attrs == fb.attrs and "coverage:partial" in fa.attrs["signature"]


def test_errors_name_every_segment_across_parts(tmp_path, monkeypatch):
    hyps, refs = _corpus(n_segs=12, systems="A")
    refs["weight"] = np.where(refs["seg_id"].isin([1, 9]), 0.0, 1.0)  # in two different parts
    st = compute_stats(hyps, refs)
    ds = _small_batches(_dataset(st, tmp_path / "ds", cuts=(0, 5)), monkeypatch)
    for source in (st, ds):
        with pytest.raises(InputError, match=r"2 segment\(s\).*seg_id 1, 9"):
            tables.corpus_scores(source, metric="delta_bleu")
        with pytest.raises(InputError, match=r"2 segment\(s\).*seg_id 1, 9"):
            sentence.score_variants(source, ["bleu+1"], metric="delta_bleu")
    with pytest.raises(InputError, match="grouped by one of its columns"):
        tables.corpus_scores(ds, by=np.zeros(len(ds)))
    with pytest.raises(InputError, match="indices must be in"):
        tables.corpus_score(ds, rows=[len(ds)])


def test_kbest_oracles_equal(tmp_path, monkeypatch):
    from bleustats.tools._kbest_partitioned import kbest_oracles

    hyps, refs = _corpus(n_segs=15, systems="AB")
    nb = hyps.sort_values(["seg_id", "system"], kind="stable").drop(columns="system").reset_index(drop=True)
    nb = pd.concat([nb, nb.iloc[::3]]).sort_values("seg_id", kind="stable")  # exact duplicates: ties across batches
    st = compute_stats(nb, refs[["seg_id", "text"]], k_best=True, metrics=("bleu", "ter"))
    ds = _small_batches(_dataset(st, tmp_path / "kb", cuts=(0, 7, 7, 20)), monkeypatch)
    names = ["bleu+1", "nakov:bp-smoothed", "ter"]
    a, b = kbest_oracles(st, names), kbest_oracles(ds, names)
    assert (a.n_entries, a.n_sources, a.one_best, a.oracles) == (b.n_entries, b.n_sources, b.one_best, b.oracles)


def test_grouping_by_a_string_column_keys_as_numpy_unique():
    names = ["b", "B", "ä", "", "a b", "Z", "b", "ß", "日本", "Z"]
    hyps = pd.DataFrame({"seg_id": np.arange(len(names)), "system": names,
                         "text": [f"x{i} y" for i in range(len(names))]})
    st = compute_stats(hyps, pd.DataFrame({"seg_id": np.arange(len(names)), "text": ["x1 y"] * len(names)}))
    labels = st.column("system")
    for rows in (None, [9, 0, 0, 3], np.arange(len(names)) % 2 == 0):
        keys, sums = st.column_totals(["hyp_len", "match_1"], by="system", rows=rows)
        sel = labels if rows is None else st.select(rows).column("system")
        want, inv = np.unique(sel, return_inverse=True)
        assert keys.tolist() == want.tolist()
        assert sums["match_1"].tolist() == np.bincount(inv, st.select(
            np.arange(len(st)) if rows is None else rows).column("match_1")).astype(np.int64).tolist()
        assert keys.tolist() == st.column_totals(["hyp_len"], by=labels, rows=rows)[0].tolist()  # labels per row


def test_missing_metric_columns_named_on_both(tmp_path):
    st = compute_stats(["a b"], [["a b"]])
    ds = _dataset(st, tmp_path / "ds", cuts=(0,))
    for source in (st, ds):
        for call in (tables.corpus_score, tables.corpus_scores, tables.sentence_scores):
            with pytest.raises(ValueError, match="has no chrF statistics"):
                call(source, metric="chrf")
