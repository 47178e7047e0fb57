"""Issue 26: saved statistics that cannot be tampered with, coverage never silent, one n-best cross-check.

Class 2: a saved statistics file is checked on every load for its (system,
seg_id) key, its invariants and its digest; a dataset's manifest carries an
id, each part's SHA-256 and a digest of its own fields. Property tests change
every column, every metadata key and every manifest field: the answer is a
one-line refusal or the untouched score, never another number. Class 3:
systems covering different segments are refused at every scoring entry point
unless partial coverage is asked for, which is then recorded. Class 5: kbest
and tune refuse the same mismatched references.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.engine import schemas
from bleustats.engine.dataset import MANIFEST, open_stats
from bleustats.engine.io import DIGEST_KEY
from bleustats.engine._partitioned_stats import compute_stats_dataset
from bleustats.engine.stats import compute_stats, load_stats
from bleustats.errors import InputError
from bleustats.metrics import tables

from .test_trust import HYPS, REFS, one_line, run
from ..conftest import examples

pytestmark = pytest.mark.usefixtures("numba_one_thread")

FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))


def _hyps(systems=("A",), drop=()):
    rows = [(i, s, t) for s in systems for i, t in enumerate(HYPS) if (s, i) not in drop]
    return pd.DataFrame(rows, columns=["seg_id", "system", "text"])


REFS_DF = pd.DataFrame({"seg_id": [0, 1, 2], "text": REFS})


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("saved")
    stats = compute_stats(_hyps(("A", "B")), REFS_DF, metrics=("bleu", "chrf", "ter"))
    stats.save(d / "s.parquet")
    compute_stats_dataset(_hyps(("A", "B")), REFS_DF, d / "ds", partition_rows=2)
    compute_stats_dataset(_hyps(("A", "B")).assign(text=lambda f: f["text"].str.upper()), REFS_DF, d / "other",
                          partition_rows=2)
    return d


def _score(path) -> str:
    return tables.corpus_scores(open_stats(path), by="system").to_json()


# --------------------------------------------------------------------------- class 2: saved statistics


def test_a_row_appended_twice_is_refused_not_counted_twice(capsys, saved, tmp_path):
    t = pq.read_table(saved / "s.parquet")
    meta = {k: v for k, v in t.schema.metadata.items() if k != DIGEST_KEY}  # as a careless edit would leave it
    pq.write_table(pa.concat_tables([t, t.slice(0, 1)]).replace_schema_metadata(meta), tmp_path / "dup.parquet")
    rc, out, err = run(capsys, "score", "--from-stats", tmp_path / "dup.parquet")
    one_line(rc, err, "dup.parquet", "2 rows repeat a (system, seg_id) pair: ('A', 0) at rows 0, 6",
             "compute it again")
    assert out == ""


def test_a_kbest_table_keeps_its_repeated_segments(tmp_path):
    st_ = compute_stats(pd.DataFrame({"seg_id": [0, 0], "text": ["a b", "a c"]}),
                        pd.DataFrame({"seg_id": [0], "text": ["a b"]}), k_best=True)
    st_.save(tmp_path / "k.parquet")
    assert len(load_stats(tmp_path / "k.parquet")) == 2


def test_a_value_changed_within_the_invariants_is_refused_by_the_digest(saved, tmp_path):
    t = pq.read_table(saved / "s.parquet")
    i = t.column_names.index("system")  # a system renamed: every key and invariant still holds
    renamed = pa.array(["C" if s == "B" else s for s in t.column(i).to_pylist()])
    pq.write_table(t.set_column(i, "system", renamed), tmp_path / "e.parquet")
    with pytest.raises(InputError, match="bleustats.digest does not match"):
        load_stats(tmp_path / "e.parquet")


def test_a_part_copied_in_from_another_dataset_is_refused(saved, tmp_path):
    import shutil

    shutil.copytree(saved / "ds", tmp_path / "ds")
    shutil.copy(saved / "other" / "part-00000.parquet", tmp_path / "ds" / "part-00000.parquet")
    with pytest.raises(InputError, match="part-00000.parquet is not the part this dataset was written with"):
        open_stats(tmp_path / "ds")


def test_a_dataset_names_itself_and_a_file_made_from_it_carries_a_digest(saved, tmp_path):
    from bleustats.engine.dataset import save_as_file

    ds = open_stats(saved / "ds")
    assert len(ds.dataset_id) == 32 and ds.dataset_id != open_stats(saved / "other").dataset_id
    save_as_file(ds, tmp_path / "f.parquet")
    assert DIGEST_KEY in pq.read_schema(tmp_path / "f.parquet").metadata
    assert load_stats(tmp_path / "f.parquet").table.equals(ds.to_table().table)


def _tampered_value(draw, column: pa.ChunkedArray):
    values = column.to_pylist()
    row = draw(st.integers(0, len(values) - 1))
    old = values[row]
    if isinstance(old, str):
        new = draw(st.sampled_from(["A", "B", "C", ""]))
    elif isinstance(old, float):
        new = draw(st.sampled_from([old + 1.0, old - 1.0, old * 2, 0.0, -1.0, 1.0, 0.5]))
    else:
        new = draw(st.sampled_from([old + 1, old - 1, 0, 2 * old + 3]))
    values[row] = new
    return pa.array(values, column.type)


#: Every column and every metadata key of a statistics table with all metric groups (BLEU-4, chrF, TER),
#: listed here so that the parametrized tests below are collected without computing anything; the first
#: test checks the lists against a table saved now.
COLUMNS = schemas.arrow_schema("statistics", 4, {"chrf": {"chrf_char_order": 6, "chrf_word_order": 0},
                                                 "ter": {}}).names
META_KEYS = [f"bleustats.{k}" for k in (
    "chrf_beta", "chrf_char_order", "chrf_eps_smoothing", "chrf_lowercase", "chrf_whitespace", "chrf_word_order",
    "delta_definition", "digest", "lowercase", "max_ngram_order", "metrics", "ref_view", "ter_asian_support",
    "ter_case_sensitive", "ter_no_punct", "ter_normalized", "tokenize", "version", "weight_threshold", "weights")]
META_VALUES = [None, "", "x", "13a", "intl", "none", "true", "false", "0", "2", "7", "custom", "bleu",
               "bleu,chrf,ter", "paper", "threshold", "0.5"]


@pytest.fixture(scope="module")
def saved_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("saved_file") / "s.parquet"
    compute_stats(_hyps(("A", "B")), REFS_DF, metrics=("bleu", "chrf", "ter")).save(path)
    return path, tables.corpus_scores(load_stats(path), by="system").to_json()


def test_the_lists_are_every_column_and_metadata_key(saved_file):
    schema = pq.read_schema(saved_file[0])
    assert COLUMNS == schema.names
    assert sorted(META_KEYS) == sorted(k.decode() for k in schema.metadata if k.startswith(b"bleustats."))


def _refused_or_same(path: Path, want: str) -> None:
    """Loading ``path`` is an InputError (the command line prints it as one line), or the untouched scores."""
    try:
        got = tables.corpus_scores(open_stats(path), by="system").to_json()
    except InputError:
        return
    assert got == want


@pytest.mark.parametrize("name", COLUMNS)
@settings(max_examples=examples(6), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), keep_digest=st.booleans())
def test_property_every_column_edited_is_refused_or_changes_nothing(saved_file, tmp_path_factory, name, data,
                                                                    keep_digest):
    path, want = saved_file
    t = pq.read_table(path)
    t = t.set_column(t.column_names.index(name), name, _tampered_value(data.draw, t.column(name)))
    if not keep_digest:  # as a careless edit would leave it
        t = t.replace_schema_metadata({k: v for k, v in t.schema.metadata.items() if k != DIGEST_KEY})
    out = tmp_path_factory.mktemp("column") / "t.parquet"
    pq.write_table(t, out)
    _refused_or_same(out, want)


@pytest.mark.parametrize("key", META_KEYS)
def test_every_metadata_key_edited_is_refused_or_changes_nothing(saved_file, tmp_path, key):
    path, want = saved_file
    t = pq.read_table(path)
    for i, value in enumerate(META_VALUES):
        meta = dict(t.schema.metadata)
        if value is None:
            meta.pop(key.encode())
        else:
            meta[key.encode()] = value.encode()
        out = tmp_path / f"m{i}.parquet"
        pq.write_table(t.replace_schema_metadata(meta), out)
        _refused_or_same(out, want)


def _manifest_fields(manifest: dict) -> list[tuple]:
    paths = [(k,) for k in manifest if k != "parts"]
    for i, part in enumerate(manifest["parts"]):
        paths += [("parts", i, k) for k in part]
    return paths


MANIFEST_VALUES = [None, 0, 1, 7, "", "x", [1], [2], "sha256:" + "0" * 64, "bleustats-statistics-dataset/1",
                   "part-00001.parquet", "0" * 32]


def test_every_manifest_field_edited_is_refused_or_changes_nothing(saved, tmp_path):
    import shutil

    want = _score(saved / "ds")
    manifest = json.loads((saved / "ds" / MANIFEST).read_text())
    fields = _manifest_fields(manifest)
    assert len(fields) >= 5 + 3 * 4  # format, version, id, rows, digest; each part's name, rows, n_refs, sha256
    for n, where in enumerate(fields):
        for m, value in enumerate(MANIFEST_VALUES):
            folder = tmp_path / f"ds{n}_{m}"
            shutil.copytree(saved / "ds", folder)
            edited = json.loads(json.dumps(manifest))
            holder = edited
            for k in where[:-1]:
                holder = holder[k]
            if value is None:
                del holder[where[-1]]
            else:
                holder[where[-1]] = value
            (folder / MANIFEST).write_text(json.dumps(edited))
            _refused_or_same(folder, want)


# --------------------------------------------------------------------------- class 3: coverage


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    d = tmp_path_factory.mktemp("partial")
    hyps = _hyps(("A", "B"), drop={("B", 2)})
    hyps.to_csv(d / "hyps.tsv", sep="\t", index=False)
    REFS_DF.to_csv(d / "refs.tsv", sep="\t", index=False)
    stats = compute_stats(hyps, REFS_DF)
    stats.save(d / "s.parquet")
    compute_stats_dataset(hyps, REFS_DF, d / "ds", partition_rows=2)
    return d, stats


@pytest.mark.parametrize("source", ["texts", "file", "dataset"])
def test_systems_of_different_coverage_are_refused_on_the_command_line(capsys, partial, source):
    d, _ = partial
    argv = {"texts": [d / "refs.tsv", "-i", d / "hyps.tsv"], "file": ["--from-stats", d / "s.parquet"],
            "dataset": ["--from-stats", d / "ds"]}[source]
    rc, out, err = run(capsys, "score", *argv)
    one_line(rc, err, "the systems cover different segments: B lacks 1 of the 3 segments", "--allow-partial")
    assert out == ""
    rc, out, err = run(capsys, "score", *argv, "--allow-partial")
    assert rc == 0, err
    assert "\nB         50.00       2/3\n" in out and "coverage:partial" in out and "partial coverage" in out
    rc, out, err = run(capsys, "score", *argv, "--allow-partial", "--json")
    records = json.loads(out)
    assert [(r["group"], r["segments"], r["all_segments"]) for r in records] == [("A", 3, 3), ("B", 2, 3)]
    assert all(r["signature"].endswith("coverage:partial") for r in records)


@pytest.mark.parametrize("metric", ["bleu", "delta_bleu", "chrf", "ter"])
@pytest.mark.parametrize("entry", ["table", "dataset"])
def test_every_python_scoring_entry_point_refuses_partial_coverage(partial, entry, metric):
    d, stats = partial
    if metric in ("chrf", "ter"):
        stats = compute_stats(_hyps(("A", "B"), drop={("B", 2)}), REFS_DF, metrics=("bleu", metric))
    score = tables.corpus_scores
    target = open_stats(d / "ds") if entry == "dataset" and metric not in ("chrf", "ter") else stats
    with pytest.raises(InputError, match="B lacks 1 of the 3 segments"):
        score(target, by="system", metric=metric)
    frame = score(target, by="system", metric=metric, allow_partial=True)
    assert frame["segments"].tolist() == [3, 2] and frame.attrs["coverage"]["complete"] is False
    assert frame.attrs["signature"].endswith("coverage:partial")
    # the same numbers as each system scored alone on its own segments
    alone = tables.corpus_scores(stats.select(stats.column("system") == "B"), by="system", metric=metric)
    assert frame["score"].iloc[1] == alone["score"].iloc[0]


@FUZZ
@given(drop=st.sets(st.tuples(st.sampled_from("ABC"), st.integers(0, 2)), max_size=5))
def test_property_partial_coverage_is_refused_or_recorded(drop):
    hyps = _hyps(("A", "B", "C"), drop=drop)
    if hyps.empty:
        return
    stats = compute_stats(hyps, REFS_DF)
    systems = sorted(set(hyps["system"]))
    segs = {s: set(hyps.loc[hyps["system"] == s, "seg_id"]) for s in systems}
    complete = len({frozenset(v) for v in segs.values()}) == 1
    try:
        frame = tables.corpus_scores(stats, by="system")
    except InputError as exc:
        assert not complete and "cover different segments" in str(exc)
        frame = tables.corpus_scores(stats, by="system", allow_partial=True)
        assert frame.attrs["signature"].endswith("coverage:partial")
        union = set().union(*segs.values())
        assert frame["segments"].tolist() == [len(segs[s]) for s in systems] and \
            frame.attrs["coverage"]["segments"] == len(union)
        return
    assert complete and "segments" not in frame.columns


# --------------------------------------------------------------------------- class 5: n-best cross-checks


@pytest.mark.parametrize("argv", [["kbest", "{nb}", "{ref}"], ["tune", "{nb}", "-r", "{ref}"],
                                  ["tune", "{nb}", "-r", "{ref}", "--algorithm", "mira"]])
def test_every_nbest_command_refuses_references_of_another_test_set(capsys, tmp_path, argv):
    (tmp_path / "n.nbest").write_text("0 ||| the cat sat ||| F0= 1 ||| 1\n0 ||| a cat ||| F0= 2 ||| 2\n"
                                      "1 ||| a dog ||| F0= 1 ||| 1\n1 ||| the dog ||| F0= 0 ||| 0\n")
    (tmp_path / "longer.txt").write_text("the cat sat\nthe dog\nextra line\nmore\n")
    (tmp_path / "shorter.txt").write_text("the cat sat\n")
    for ref, words in (("longer.txt", "2 source(s) of the references have no entry (id 2, 3)"),
                       ("shorter.txt", "1 source(s) have entries but no reference")):
        names = {"nb": tmp_path / "n.nbest", "ref": tmp_path / ref}
        rc, out, err = run(capsys, *[a.format(**names) for a in argv])
        one_line(rc, err, "n.nbest", words, "same test set")
    names = {"nb": tmp_path / "n.nbest", "ref": tmp_path / "longer.txt"}
    rc, _, err = run(capsys, *[a.format(**names) for a in argv], "--allow-missing-sources")
    assert rc == 0, err
