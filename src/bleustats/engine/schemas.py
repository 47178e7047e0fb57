"""Arrow schemas of the bleustats tables, read from the shipped ``data_schemas``.

Every table that enters or leaves bleustats (hypotheses, references,
statistics) is declared once, as JSON, in the repository's top-level
``data_schemas/`` folder, which ships inside the package as
``bleustats.data_schemas``. This module turns those declarations into
:class:`pyarrow.Schema` objects and validates tables against them, reporting
*every* problem of a table in one :class:`SchemaError`.

Examples
--------
>>> import pyarrow as pa
>>> from bleustats.engine import schemas
>>> schemas.arrow_schema("references").names
['seg_id', 'ref_id', 'weight', 'text']
>>> t = pa.table({"seg_id": pa.array([1, 2], pa.int32()), "text": ["a b", "c"]})
>>> schemas.validate(t, "hypotheses").schema.names
['seg_id', 'system', 'text']
>>> bad = pa.table({"seg_id": ["x"], "weight": [3.0]})
>>> schemas.validate(bad, "references", param="references")
Traceback (most recent call last):
...
bleustats.errors.SchemaError: references does not match the 'references' schema (3 problems):
  - seg_id: want int64, got string
  - weight: 1 value(s) outside [-1.0, 1.0], first at row 0: 3.0
  - text: required column is missing
Each column is described in data_schemas/references.json (bleustats.engine.schemas.load_schema).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SchemaError

__all__ = [
    "TABLES",
    "load_schema",
    "arrow_schema",
    "validate",
]

#: Names of the declared tables (one JSON file each in ``data_schemas/``).
TABLES = ("hypotheses", "references", "statistics")

_TYPES = {
    "int64": pa.int64(),
    "float64": pa.float64(),
    "string": pa.string(),
}


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """Return the JSON declaration of table ``name`` as shipped with the package.

    Parameters
    ----------
    name : {'hypotheses', 'references', 'statistics'}
        The table.

    Returns
    -------
    dict
        The parsed JSON: ``name``, ``description``, ``columns`` (each with
        ``name``, ``type``, ``required``, ``nullable``, ``description`` and
        optionally ``default``, ``min``, ``max``, ``per_order``) and, for
        statistics, ``metadata``.
    """
    if name not in TABLES:
        raise ValueError(f"name must be one of {', '.join(map(repr, TABLES))}; got {name!r}.")
    text = resources.files("bleustats.data_schemas").joinpath(f"{name}.json").read_text("utf-8")
    return json.loads(text)


def _group_columns(name: str, groups: dict[str, dict[str, int]] | None) -> list[dict[str, Any]]:
    """The columns of the optional groups present (``{'chrf': {'chrf_char_order': 6, ...}, 'ter': {}}``)."""
    declared = load_schema(name).get("groups", {})
    cols: list[dict[str, Any]] = []
    for group, spec in declared.items():
        if not groups or group not in groups:
            continue
        repeats: dict[str, list[dict[str, Any]]] = {}
        for col in spec["columns"]:
            if "repeat" in col:
                repeats.setdefault(col["repeat"], []).append(col)
            else:
                cols.append(col)
        for key, members in repeats.items():  # interleaved per order: hyp_1, ref_1, match_1, hyp_2, ...
            for n in range(1, int(groups[group].get(key, 0)) + 1):
                cols += [{**c, "name": c["name"].format(n=n)} for c in members]
    unknown = set(groups or ()) - set(declared)
    if unknown:
        raise ValueError(f"groups: the {name!r} schema declares {sorted(declared)}; got {sorted(unknown)}.")
    return cols


def _columns(name: str, max_ngram_order: int | None, groups: dict[str, dict[str, int]] | None = None
             ) -> list[dict[str, Any]]:
    cols = []
    per_order = [c for c in load_schema(name)["columns"] if c.get("per_order")]
    for col in load_schema(name)["columns"]:
        if not col.get("per_order"):
            cols.append(col)
    if per_order:
        if max_ngram_order is None:
            raise ValueError(f"the {name!r} schema has per-order columns; pass max_ngram_order.")
        # Orders are grouped by kind (match_1..N, total_1..N, ...), like sacreBLEU's
        # flat statistics vector [.., correct_1..N, total_1..N].
        for col in per_order:
            for n in range(1, max_ngram_order + 1):
                cols.append({**col, "name": col["name"].format(n=n)})
    return cols + _group_columns(name, groups)


def arrow_schema(name: str, max_ngram_order: int | None = None,
                 groups: dict[str, dict[str, int]] | None = None) -> pa.Schema:
    """Return the :class:`pyarrow.Schema` of table ``name``.

    Parameters
    ----------
    name : {'hypotheses', 'references', 'statistics'}
        The table.
    max_ngram_order : int, optional
        Largest n-gram order; required for ``'statistics'``, whose per-order
        columns (``match_{n}``, ...) repeat for ``n = 1..max_ngram_order``.
    groups : dict, optional
        The optional column groups present and their repeat counts, e.g.
        ``{'chrf': {'chrf_char_order': 6, 'chrf_word_order': 2}, 'ter': {}}``.

    Examples
    --------
    >>> arrow_schema("statistics", max_ngram_order=1).names[-4:]
    ['match_1', 'total_1', 'wmatch_1', 'wtotal_1']
    """
    fields = [
        pa.field(c["name"], _TYPES[c["type"]], nullable=c.get("nullable", True),
                 metadata={"description": c["description"]})
        for c in _columns(name, max_ngram_order, groups)
    ]
    return pa.schema(fields)


def _safe_cast(column: pa.ChunkedArray, want: pa.DataType) -> pa.ChunkedArray | None:
    """Cast only where no value can change: ints widen, ints/floats to float64, strings relabel."""
    have = column.type
    if have == want:
        return column
    if pa.types.is_dictionary(have):
        column = column.cast(have.value_type)
        have = column.type
        if have == want:
            return column
    ok = (
        (pa.types.is_integer(want) and pa.types.is_integer(have))
        or (pa.types.is_floating(want) and (pa.types.is_floating(have) or pa.types.is_integer(have)))
        or (pa.types.is_string(want) and (pa.types.is_large_string(have) or pa.types.is_string_view(have)))
        or (pa.types.is_null(have))
    )
    if not ok:
        return None
    try:
        return column.cast(want, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None


def _position_in_group(keys: np.ndarray) -> pa.Array:
    """'0', '1', ... numbering each row within the rows sharing its key, in table order."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.r_[0, np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1]
    pos_sorted = np.arange(len(keys)) - np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    pos = np.empty(len(keys), np.int64)
    pos[order] = pos_sorted
    return pc.cast(pa.array(pos), pa.string())


def validate(
    table: pa.Table,
    name: str,
    *,
    max_ngram_order: int | None = None,
    param: str | None = None,
    groups: dict[str, dict[str, int]] | None = None,
) -> pa.Table:
    """Check ``table`` against the declared schema and return it aligned.

    Alignment keeps only the declared columns, in declared order, applies safe
    casts (``int32`` → ``int64``, ``large_string`` → ``string``, integers →
    ``float64``), and fills optional columns that are absent with their
    declared default. Checks: required columns present, types castable without
    loss, no nulls in non-nullable columns, values inside declared ``min`` /
    ``max``, no NaN in float columns.

    Parameters
    ----------
    table : pyarrow.Table
        The table to check.
    name : {'hypotheses', 'references', 'statistics'}
        Which schema.
    max_ngram_order : int, optional
        For ``'statistics'``: the largest order of the per-order columns.
    param : str, optional
        Name of the user's argument, used in the error message.
    groups : dict, optional
        For ``'statistics'``: the optional column groups present (see :func:`arrow_schema`).

    Returns
    -------
    pyarrow.Table
        The aligned table, exactly of schema ``arrow_schema(name, max_ngram_order)``.

    Raises
    ------
    SchemaError
        Listing every problem found, one per line.
    """
    if not isinstance(table, pa.Table):
        raise TypeError(f"{param or name} must be a pyarrow.Table; got {type(table).__name__}.")
    problems: list[str] = []
    out: dict[str, pa.ChunkedArray] = {}
    n = table.num_rows
    for col in _columns(name, max_ngram_order, groups):
        cname, want = col["name"], _TYPES[col["type"]]
        if cname not in table.column_names:
            if col.get("required", True):
                problems.append(f"{cname}: required column is missing")
            elif col.get("default") == "row":
                out[cname] = None  # position within the segment; needs seg_id, filled below
            else:
                out[cname] = pa.chunked_array([pa.array([col["default"]] * n, want)])
            continue
        column = table.column(cname)
        cast = _safe_cast(column, want)
        if cast is None:
            problems.append(f"{cname}: want {col['type']}, got {column.type}")
            continue
        if not col.get("nullable", True) and cast.null_count:
            first = int(np.flatnonzero(pc.is_null(cast).to_numpy(zero_copy_only=False))[0])
            problems.append(f"{cname}: {cast.null_count} null value(s), first at row {first}")
            continue
        if pa.types.is_floating(want):
            nan = pc.is_nan(cast).to_numpy(zero_copy_only=False)
            if nan.any():
                problems.append(
                    f"{cname}: {int(nan.sum())} NaN value(s), first at row {int(np.flatnonzero(nan)[0])}"
                )
                continue
        lo, hi = col.get("min"), col.get("max")
        if (lo is not None or hi is not None) and n:
            values = cast.to_numpy()
            bad = np.zeros(len(values), bool)
            if lo is not None:
                bad |= values < lo
            if hi is not None:
                bad |= values > hi
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                rng = f"[{lo}, {hi}]" if lo is not None and hi is not None else (
                    f">= {lo}" if lo is not None else f"<= {hi}")
                problems.append(
                    f"{cname}: {int(bad.sum())} value(s) outside {rng}, first at row {i}: {values[i].item()!r}"
                )
                continue
        out[cname] = cast
    if problems:
        who = param or "table"
        raise SchemaError(
            f"{who} does not match the {name!r} schema ({len(problems)} problem"
            f"{'s' if len(problems) > 1 else ''}):\n" + "\n".join(f"  - {p}" for p in problems)
            + "\nEach column is described in data_schemas/" + name + ".json (bleustats.engine.schemas.load_schema)."
        )
    for cname, value in out.items():
        if value is None:
            out[cname] = pa.chunked_array([_position_in_group(out["seg_id"].to_numpy())])
    schema = arrow_schema(name, max_ngram_order, groups)
    arrays = [out[f.name] for f in schema]
    # chunked columns stay chunked: combining would copy every text (e.g. K reference files)
    return pa.Table.from_arrays(arrays, schema=schema)
