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
>>> bad = pa.table({"seg_id": ["x"], "weight": [3.0], "lang": ["de"]})
>>> schemas.validate(bad, "references", param="references")
Traceback (most recent call last):
...
bleustats.errors.SchemaError: references does not match the 'references' schema (4 problems):
  - unknown column 'lang': a references table has seg_id, ref_id (or ref), weight, text; rename or drop it
  - seg_id: want int64, got string
  - weight: 1 value(s) outside [-1.0, 1.0], first at row 0: 3.0
  - text: required column is missing
Each column is described in data_schemas/references.json (bleustats.engine.schemas.load_schema).

Beyond the columns, a schema may declare ``aliases`` of a column (read as
that column), ``extra_columns`` (accepted, used by one command, not carried
in the aligned table), a ``key`` (column values that may not repeat) and,
for statistics, ``invariants`` (relations between columns that every table
computed by bleustats satisfies); :func:`validate` checks them all.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

import numpy as np
import pyarrow as pa

from ..errors import SchemaError
from . import _columns as columns

__all__ = [
    "INVARIANT_CHECKS",
    "TABLES",
    "expected_columns",
    "load_schema",
    "arrow_schema",
    "validate",
]

#: Names of the declared tables (one JSON file each in ``data_schemas/``).
TABLES = ("hypotheses", "references", "statistics", "mbr", "score_records", "segment_scores",
          "compare")

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


#: pandas' own index columns (a DataFrame with a non-default index written to Parquet): not data
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")


def expected_columns(name: str, max_ngram_order: int | None = None) -> str:
    """The columns of table ``name``, for messages: ``seg_id, ref_id (or ref), weight, text``.

    Examples
    --------
    >>> expected_columns("references")
    'seg_id, ref_id (or ref), weight, text'
    >>> expected_columns("statistics", 2).split(", ")[-4:]
    ['match_1..2', 'total_1..2', 'wmatch_1..2', 'wtotal_1..2']
    """
    parts = []
    for col in load_schema(name)["columns"]:
        label = col["name"]
        if col.get("per_order"):
            label = label.format(n=1) + (f"..{max_ngram_order}" if max_ngram_order else "..N")
        if col.get("aliases"):
            label += " (or " + ", ".join(col["aliases"]) + ")"
        parts.append(label)
    extra = [c["name"] for c in load_schema(name).get("extra_columns", [])]
    return ", ".join(parts) + (f" (and optionally {', '.join(extra)})" if extra else "")


def _column_problems(table: pa.Table, name: str, max_ngram_order: int | None,
                     groups: dict[str, dict[str, int]] | None = None) -> tuple[list[str], pa.Table]:
    """Repeated, ambiguous and unknown column names; aliases renamed to their column."""
    problems = []
    names = table.column_names
    repeated = sorted({c for c in names if names.count(c) > 1})
    for c in repeated:
        problems.append(f"column {c!r} appears {names.count(c)} times; keep one")
    declared = _columns(name, max_ngram_order, groups)
    known = {c["name"] for c in declared} | {c["name"] for c in load_schema(name).get("extra_columns", [])}
    renames = {}
    for col in declared:
        for alias in col.get("aliases", ()):
            if alias in names:
                if col["name"] in names:
                    problems.append(f"columns {col['name']!r} and {alias!r} are both given ({alias!r} is read as "
                                    f"{col['name']!r}); keep one")
                else:
                    renames[alias] = col["name"]
    unknown = [c for c in dict.fromkeys(names)
               if c not in known and c not in renames and not _PANDAS_INDEX.fullmatch(c)]
    if unknown:
        problems.append(f"unknown column{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: a {name} "
                        f"table has {expected_columns(name, max_ngram_order)}; rename or drop "
                        f"{'them' if len(unknown) > 1 else 'it'}")
    if renames and not repeated:
        table = table.rename_columns([renames.get(c, c) for c in names])
    return problems, table


def _key_problem(table: pa.Table, name: str, had: set[str]) -> str | None:
    """The declared key's repeated values (first few, with rows), or None."""
    key = load_schema(name).get("key")
    if not key or table.num_rows < 2:
        return None
    import pyarrow.compute as pc  # here: ~20 ms of import a scoring job without tables never needs

    cols = key["columns"]
    codes = []
    for c in cols:
        col = table.column(c)
        if pa.types.is_string(col.type):
            enc = pc.dictionary_encode(col).combine_chunks()
            codes.append(columns.to_numpy(enc.indices).astype(np.int64))
        else:
            codes.append(columns.to_numpy(col))
    order = np.lexsort(codes[::-1])
    sorted_codes = [c[order] for c in codes]
    same = np.ones(len(order) - 1, bool)
    for c in sorted_codes:
        same &= c[1:] == c[:-1]
    if not same.any():
        return None
    dup_at = np.flatnonzero(same)
    # runs of equal keys in sorted order: each run is one repeated value and its rows
    starts = dup_at[np.r_[True, dup_at[1:] != dup_at[:-1] + 1]]
    n_rows = len(np.unique(np.r_[dup_at, dup_at + 1]))
    missing = [c for c in cols if c not in had]
    present = [c for c in cols if c in had]
    shown = []
    for i in starts[:3]:
        j = i
        while j < len(same) and same[j]:
            j += 1
        rows = sorted(order[i:j + 1].tolist())
        value = tuple(table.column(c)[rows[0]].as_py() for c in present)
        label = f"{present[0]} {value[0]!r}" if len(value) == 1 else repr(value)
        shown.append(f"{label} at rows {', '.join(map(str, rows[:4]))}{', ...' if len(rows) > 4 else ''}")
    more = f" and {len(starts) - 3} more" if len(starts) > 3 else ""
    if missing:  # a defaulted key column: say what to add
        return (f"no {', '.join(map(repr, missing))} column and {n_rows} rows repeat a "
                f"{', '.join(present)}: {'; '.join(shown)}{more}. Several systems' outputs? "
                f"Add a {missing[0]!r} column naming each row's {missing[0]}"
                + (" (a k-best list: use bleustats kbest, or k_best=True)" if name == "hypotheses" else ""))
    return (f"{n_rows} rows repeat a ({', '.join(cols)}) pair: {'; '.join(shown)}{more}. "
            + ("Each system has one hypothesis per segment; drop the repeated rows (a k-best list: use "
               "bleustats kbest, or k_best=True)" if name == "hypotheses"
               else "Each system has one row per segment, so the table was edited or put together wrongly and "
                    "its scores would count those rows twice; compute it again (bleustats stats)"
               if name == "statistics"
               else "Each reference of a segment once; drop the repeated rows"))


def _close_or_below(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a <= b up to 1e-9 relative (float sums of weights)."""
    return a <= b + 1e-9 * np.maximum(1.0, np.abs(b))


def _check_match_within_total(cols: dict, n: int) -> np.ndarray:
    bad = np.zeros(len(cols["hyp_len"]), bool)
    for i in range(1, n + 1):
        bad |= (cols[f"match_{i}"] < 0) | (cols[f"match_{i}"] > cols[f"total_{i}"])
    return bad


def _check_totals_from_length(cols: dict, n: int) -> np.ndarray:
    bad = np.zeros(len(cols["hyp_len"]), bool)
    for i in range(1, n + 1):
        bad |= cols[f"total_{i}"] != np.maximum(0, cols["hyp_len"] - i + 1)
    return bad


def _check_reference_lengths(cols: dict, n: int) -> np.ndarray:
    short, closest, avg = cols["ref_len_shortest"], cols["ref_len_closest"], cols["ref_len_average"]
    one = cols["n_refs"] == 1
    return (short > closest) | (short > avg) | (one & ((closest != short) | (avg != short)))


def _check_weighted_totals(cols: dict, n: int) -> np.ndarray:
    bad = np.zeros(len(cols["hyp_len"]), bool)
    for i in range(1, n + 1):
        want = cols[f"total_{i}"] * cols["ref_weight_max"]
        bad |= np.abs(cols[f"wtotal_{i}"] - want) > 1e-9 * np.maximum(1.0, np.abs(want))
    return bad


def _check_weighted_matches(cols: dict, n: int) -> np.ndarray:
    bad = np.zeros(len(cols["hyp_len"]), bool)
    top = np.maximum(cols["ref_weight_max"], 0.0)
    for i in range(1, n + 1):
        m, w = cols[f"match_{i}"].astype(np.float64), cols[f"wmatch_{i}"]
        bad |= ~_close_or_below(w, top * m) | ~_close_or_below(-m, w)
    return bad


def _check_uniform_weights(cols: dict, n: int) -> np.ndarray:
    if cols.get("__weights__") != "uniform":
        return np.zeros(len(cols["hyp_len"]), bool)
    bad = cols["ref_weight_max"] != 1.0
    for i in range(1, n + 1):
        bad |= cols[f"wmatch_{i}"] != cols[f"match_{i}"]
    return bad


#: Each invariant declared in ``data_schemas/statistics.json`` and the check that finds its broken rows.
INVARIANT_CHECKS = {
    "match_within_total": _check_match_within_total,
    "totals_from_length": _check_totals_from_length,
    "reference_lengths": _check_reference_lengths,
    "weighted_totals": _check_weighted_totals,
    "weighted_matches": _check_weighted_matches,
    "uniform_weights": _check_uniform_weights,
}


def _invariant_problems(table: pa.Table, name: str, max_ngram_order: int | None) -> list[str]:
    declared = load_schema(name).get("invariants", [])
    if not declared or table.num_rows == 0:
        return []
    cols = {c: columns.to_numpy(table.column(c)) for c in table.column_names
            if not pa.types.is_string(table.schema.field(c).type)}  # numbers only: strings would be copied
    meta = table.schema.metadata or {}
    cols["__weights__"] = meta.get(b"bleustats.weights", b"").decode()
    problems = []
    for inv in declared:
        bad = INVARIANT_CHECKS[inv["name"]](cols, max_ngram_order or 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            problems.append(f"invariant {inv['name']} broken in {int(bad.sum())} row(s), first at row {i}: "
                            f"{inv['description']}")
    return problems


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


def _filled(value: Any, n: int, want: pa.DataType) -> pa.Array:
    """A column of ``n`` copies of a declared default (built without pyarrow's pandas shim)."""
    if pa.types.is_string(want):
        return columns.repeated(str(value), n)
    return columns.numeric(np.full(n, value, dtype=want.to_pandas_dtype()))


def _position_in_group(keys: np.ndarray) -> pa.Array:
    """'0', '1', ... numbering each row within the rows sharing its key, in table order."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.r_[0, np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1]
    pos_sorted = np.arange(len(keys)) - np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    pos = np.empty(len(keys), np.int64)
    pos[order] = pos_sorted
    import pyarrow.compute as pc

    return pc.cast(columns.numeric(pos), pa.string())


def validate(
    table: pa.Table,
    name: str,
    *,
    max_ngram_order: int | None = None,
    param: str | None = None,
    groups: dict[str, dict[str, int]] | None = None,
    check_key: bool = True,
) -> pa.Table:
    """Check ``table`` against the declared schema and return it aligned.

    Alignment reads a declared alias as its column, keeps only the declared
    columns, in declared order, applies safe casts (``int32`` → ``int64``,
    ``large_string`` → ``string``, integers → ``float64``), and fills optional
    columns that are absent with their declared default. Checks: no unknown
    column (a column is declared, an alias, a declared extra column or a
    pandas index column), no column twice, required columns present, types
    castable without loss, no nulls in non-nullable columns, values inside
    declared ``min`` / ``max``, no NaN in float columns, no repeated ``key``
    (unless ``check_key=False``), and the declared ``invariants``.

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
    check_key : bool
        Check the declared key (``False`` for the entries of k-best lists,
        which share (system, seg_id)).

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
    problems, table = _column_problems(table, name, max_ngram_order, groups)
    out: dict[str, pa.ChunkedArray] = {}
    n = table.num_rows
    if problems and any("appears" in p for p in problems):  # columns cannot be told apart
        _raise(problems, param, name)
    for col in _columns(name, max_ngram_order, groups):
        cname, want = col["name"], _TYPES[col["type"]]
        if cname not in table.column_names:
            if col.get("required", True):
                problems.append(f"{cname}: required column is missing")
            elif col.get("default") == "row":
                out[cname] = None  # position within the segment; needs seg_id, filled below
            else:
                out[cname] = pa.chunked_array([_filled(col["default"], n, want)])
            continue
        column = table.column(cname)
        cast = _safe_cast(column, want)
        if cast is None:
            problems.append(f"{cname}: want {col['type']}, got {column.type}")
            continue
        if not col.get("nullable", True) and cast.null_count:
            import pyarrow.compute as pc

            first = int(np.flatnonzero(columns.to_numpy(pc.is_null(cast)))[0])
            problems.append(f"{cname}: {cast.null_count} null value(s), first at row {first}")
            continue
        if pa.types.is_floating(want):
            if cast.null_count:  # nulls stay out of the count (pyarrow's is_nan gives null for them)
                import pyarrow.compute as pc

                nan = columns.to_numpy(pc.is_nan(cast))
            else:  # numpy's isnan: no pyarrow.compute import (~50 ms) for a column without nulls
                nan = np.isnan(columns.to_numpy(cast))
            if nan.any():
                problems.append(
                    f"{cname}: {int(nan.sum())} NaN value(s), first at row {int(np.flatnonzero(nan)[0])}"
                )
                continue
        lo, hi = col.get("min"), col.get("max")
        if (lo is not None or hi is not None) and n:
            values = columns.to_numpy(cast)
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
        _raise(problems, param, name)
    had = set(table.column_names)
    for cname, value in out.items():
        if value is None:
            out[cname] = pa.chunked_array([_position_in_group(columns.to_numpy(out["seg_id"]))])
    schema = arrow_schema(name, max_ngram_order, groups)
    arrays = [out[f.name] for f in schema]
    # chunked columns stay chunked: combining would copy every text (e.g. K reference files)
    aligned = pa.Table.from_arrays(arrays, schema=schema)
    key = _key_problem(aligned, name, had) if check_key else None
    problems = ([key] if key else []) + _invariant_problems(
        aligned.replace_schema_metadata(table.schema.metadata), name, max_ngram_order)
    if problems:
        _raise(problems, param, name)
    return aligned


def _raise(problems: list[str], param: str | None, name: str) -> None:
    who = param or "table"
    raise SchemaError(
        f"{who} does not match the {name!r} schema ({len(problems)} problem"
        f"{'s' if len(problems) > 1 else ''}):\n" + "\n".join(f"  - {p}" for p in problems)
        + "\nEach column is described in data_schemas/" + name + ".json (bleustats.engine.schemas.load_schema)."
    )
