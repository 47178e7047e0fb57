"""data_schemas/ is the single source of truth: the shipped copy, the code and the tables agree."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pyarrow as pa
import pytest

from bleustats.engine import schemas
from bleustats.engine.io import as_hypotheses_table, as_references_table
from bleustats.engine.stats import compute_stats

REPO_SCHEMAS = Path(__file__).resolve().parents[2] / "data_schemas"


@pytest.mark.parametrize("name", schemas.TABLES)
def test_shipped_schema_is_the_repository_file(name):
    shipped = resources.files("bleustats.data_schemas").joinpath(f"{name}.json").read_text("utf-8")
    if not REPO_SCHEMAS.is_dir():
        pytest.skip("not running from a source checkout")
    assert json.loads(shipped) == json.loads((REPO_SCHEMAS / f"{name}.json").read_text("utf-8"))


def test_every_schema_file_is_a_declared_table():
    files = sorted(p.stem for p in resources.files("bleustats.data_schemas").iterdir() if p.name.endswith(".json"))
    assert files == sorted(schemas.TABLES)


@pytest.mark.parametrize("name", schemas.TABLES)
def test_every_column_is_typed_and_described(name):
    spec = schemas.load_schema(name)
    assert spec["name"] == name and spec["description"]
    for col in spec["columns"]:
        assert col["type"] in ("int64", "float64", "string"), col
        assert len(col["description"]) > 20, col


@pytest.mark.parametrize("order", [1, 4, 9])
def test_compute_stats_produces_exactly_the_declared_schema(order):
    st = compute_stats(["a b c", "d"], [["a b", "d e"]], max_ngram_order=order)
    want = schemas.arrow_schema("statistics", max_ngram_order=order)
    assert st.table.schema.remove_metadata().equals(want, check_metadata=False)
    # metadata keys are the declared ones (the digest is added by save, k_best only to k-best tables)
    declared = set(schemas.load_schema("statistics")["metadata"]) - {"bleustats.digest", "bleustats.k_best"}
    assert {k.decode() for k in st.table.schema.metadata} == declared
    # and validate() accepts it unchanged
    validated = schemas.validate(st.table, "statistics", max_ngram_order=order)
    assert validated.equals(st.table.replace_schema_metadata(None))


def test_input_tables_have_the_declared_schemas():
    assert as_hypotheses_table(["x"]).schema.equals(schemas.arrow_schema("hypotheses"))
    assert as_references_table([["x"]], n_hyp=1).schema.equals(schemas.arrow_schema("references"))


def test_validate_reports_every_problem_at_once():
    bad = pa.table({"seg_id": pa.array(["1"]), "weight": pa.array([float("nan")]),
                    "ref_id": pa.array([None], pa.string())})
    with pytest.raises(schemas.SchemaError) as err:
        schemas.validate(bad, "references", param="refs.tsv")
    msg = str(err.value)
    assert msg.startswith("refs.tsv does not match the 'references' schema (4 problems)")
    for part in ("seg_id: want int64, got string", "ref_id: 1 null value(s), first at row 0",
                 "weight: 1 NaN value(s), first at row 0", "text: required column is missing",
                 "data_schemas/references.json"):
        assert part in msg


def test_safe_casts_only():
    t = pa.table({"seg_id": pa.array([1], pa.int32()), "text": pa.array(["x"], pa.large_string()),
                  "weight": pa.array([1], pa.int8())})
    out = schemas.validate(t, "references")
    assert out.schema.field("seg_id").type == pa.int64() and out.column("weight").to_pylist() == [1.0]
    lossy = pa.table({"seg_id": pa.array([1.5]), "text": ["x"]})
    with pytest.raises(schemas.SchemaError, match="seg_id: want int64, got double"):
        schemas.validate(lossy, "hypotheses")


def test_string_columns_of_other_string_types_relabel_and_others_are_named():
    # string_view (what Polars or DuckDB may hand over) casts to string from pyarrow 18.0, the declared floor
    view = pa.table({"seg_id": [1, 2], "text": pa.array(["x", "ü"], pa.string_view())})
    out = schemas.validate(view, "hypotheses")
    assert out.schema.field("text").type == pa.string() and out.column("text").to_pylist() == ["x", "ü"]
    numbers = pa.table({"seg_id": [1], "text": [3]})
    with pytest.raises(schemas.SchemaError, match="text: want string, got int64"):
        schemas.validate(numbers, "hypotheses")


# --------------------------------------------------------------------------- nothing is guessed


def test_unknown_columns_are_errors_listing_the_expected_names():
    t = pa.table({"seg_id": [1], "text": ["a"], "txt": ["b"], "lang": ["de"]})
    with pytest.raises(schemas.SchemaError, match=r"unknown columns 'txt', 'lang': a hypotheses table has seg_id, "
                                                   r"system, text \(and optionally model_score, rank\); rename or "
                                                   r"drop them"):
        schemas.validate(t, "hypotheses", param="hyps.tsv")


def test_declared_extra_columns_and_pandas_index_columns_are_accepted_and_not_carried():
    t = pa.table({"seg_id": [1], "text": ["a"], "model_score": [-1.0], "__index_level_0__": [7]})
    assert schemas.validate(t, "hypotheses").column_names == ["seg_id", "system", "text"]


def test_ref_is_a_documented_alias_of_ref_id_and_both_is_an_error():
    # the WMT21 files of the shared data call the column `ref`: read as ref_id, never ignored
    t = pa.table({"ref": ["ref-B", "ref-A"], "seg_id": [1, 1], "text": ["b", "a"]})
    assert schemas.validate(t, "references").column("ref_id").to_pylist() == ["ref-B", "ref-A"]
    both = t.append_column("ref_id", pa.array(["x", "y"]))
    with pytest.raises(schemas.SchemaError, match=r"columns 'ref_id' and 'ref' are both given"):
        schemas.validate(both, "references")
    assert "aliases" in [c for c in schemas.load_schema("references")["columns"] if c["name"] == "ref_id"][0]


def test_a_column_given_twice_is_an_error():
    t = pa.Table.from_arrays([pa.array([1]), pa.array(["a"]), pa.array(["b"])], names=["seg_id", "text", "text"])
    with pytest.raises(schemas.SchemaError, match=r"column 'text' appears 2 times; keep one"):
        schemas.validate(t, "hypotheses")


def test_repeated_system_and_segment_is_an_error_naming_the_rows():
    t = pa.table({"seg_id": [1, 2, 1, 3], "system": ["A", "A", "A", "B"], "text": ["x", "y", "x", "z"]})
    with pytest.raises(schemas.SchemaError, match=r"2 rows repeat a \(system, seg_id\) pair: \('A', 1\) at rows 0, 2"):
        schemas.validate(t, "hypotheses", param="hyps.tsv")
    assert schemas.validate(t, "hypotheses", check_key=False).num_rows == 4  # k-best entries


def test_repeated_segments_without_a_system_column_say_what_to_add():
    t = pa.table({"seg_id": [1, 2, 1, 2], "text": ["x", "y", "u", "v"]})
    with pytest.raises(schemas.SchemaError, match=r"no 'system' column and 4 rows repeat a seg_id: seg_id 1 at rows "
                                                   r"0, 2; seg_id 2 at rows 1, 3\. Several systems' outputs\? Add a "
                                                   r"'system' column"):
        schemas.validate(t, "hypotheses")


def test_repeated_reference_of_a_segment_is_an_error():
    t = pa.table({"seg_id": [1, 1], "ref_id": ["A", "A"], "text": ["x", "x"]})
    with pytest.raises(schemas.SchemaError, match=r"repeat a \(seg_id, ref_id\) pair: \(1, 'A'\) at rows 0, 1"):
        schemas.validate(t, "references")


def test_every_declared_invariant_has_a_check_and_every_check_is_declared():
    declared = {inv["name"] for inv in schemas.load_schema("statistics")["invariants"]}
    assert declared == set(schemas.INVARIANT_CHECKS)


def _stats_table():
    st = compute_stats(["a b c d", "a x c", ""], [["a b c e", "b c d"], ["a x", "a x c d"], ["z"]],
                       ref_weights=[[0.5, -0.5], [1.0, 0.25], [0.7]], references_layout="segments",
                       tokenize="none")
    return st.table


@pytest.mark.parametrize("column, row, value, invariant", [
    ("match_2", 0, 99, "match_within_total"),  # BLEU 111.3 in the issue
    ("match_1", 1, 4, "match_within_total"),
    ("total_3", 0, 5, "totals_from_length"),
    ("total_1", 1, 7, "totals_from_length"),
    ("ref_len_closest", 0, 1, "reference_lengths"),
    ("ref_len_average", 2, 3.0, "reference_lengths"),
    ("wtotal_1", 0, 4.0, "weighted_totals"),
    ("wmatch_1", 0, 3.9, "weighted_matches"),
    ("wmatch_2", 1, -5.0, "weighted_matches"),
])
def test_statistics_invariants_are_checked_on_validation(column, row, value, invariant):
    table = _stats_table()
    assert schemas.validate(table, "statistics", max_ngram_order=4).num_rows == 3
    values = table.column(column).to_pylist()
    values[row] = value
    bad = table.set_column(table.column_names.index(column), column, pa.array(values, table.schema.field(column).type))
    with pytest.raises(schemas.SchemaError, match=rf"invariant {invariant} broken in 1 row\(s\), first at row {row}"):
        schemas.validate(bad, "statistics", max_ngram_order=4, param="stats.parquet")


def test_negative_counts_are_out_of_the_declared_range():
    table = _stats_table()
    bad = table.set_column(table.column_names.index("match_1"), "match_1", pa.array([2, -1, 0]))
    with pytest.raises(schemas.SchemaError, match=r"match_1: 1 value\(s\) outside >= 0, first at row 1: -1"):
        schemas.validate(bad, "statistics", max_ngram_order=4)


def test_uniform_weights_invariant_uses_the_metadata():
    st = compute_stats(["a b"], [["a b"]], tokenize="none")
    table = st.table
    i = table.column_names.index("ref_weight_max")
    half = table.set_column(i, "ref_weight_max", pa.array([0.5]))
    for c in ("wtotal_1", "wtotal_2"):  # keep the other invariants true
        j = half.column_names.index(c)
        half = half.set_column(j, c, pa.array([half.column(c.replace("wtotal", "total"))[0].as_py() * 0.5]))
    for c in ("wmatch_1", "wmatch_2"):
        j = half.column_names.index(c)
        half = half.set_column(j, c, pa.array([half.column(c.replace("wmatch", "match"))[0].as_py() * 0.5]))
    with pytest.raises(schemas.SchemaError, match=r"invariant uniform_weights broken"):
        schemas.validate(half, "statistics", max_ngram_order=4)
    custom = half.replace_schema_metadata({**table.schema.metadata, b"bleustats.weights": b"custom"})
    assert schemas.validate(custom, "statistics", max_ngram_order=4).num_rows == 1


def test_every_broken_invariant_is_listed_at_once():
    table = _stats_table()
    cols = {c: table.column(c).to_pylist() for c in table.column_names}
    cols["match_1"][0] = 10
    cols["total_2"][1] = 0
    bad = pa.Table.from_pydict(cols, schema=table.schema)
    with pytest.raises(schemas.SchemaError) as err:
        schemas.validate(bad, "statistics", max_ngram_order=4)
    assert "invariant match_within_total" in str(err.value) and "invariant totals_from_length" in str(err.value)
