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
    # metadata keys are the declared ones
    declared = set(schemas.load_schema("statistics")["metadata"])
    assert {k.decode() for k in st.table.schema.metadata} == declared
    # and validate() accepts it unchanged
    assert schemas.validate(st.table, "statistics", max_ngram_order=order).equals(st.table.replace_schema_metadata(None))


def test_input_tables_have_the_declared_schemas():
    assert as_hypotheses_table(["x"]).schema.equals(schemas.arrow_schema("hypotheses"))
    assert as_references_table([["x"]], n_hyp=1).schema.equals(schemas.arrow_schema("references"))


def test_validate_reports_every_problem_at_once():
    bad = pa.table({"seg_id": pa.array(["1"]), "weight": pa.array([float("nan")]), "ref_id": pa.array([None], pa.string())})
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
