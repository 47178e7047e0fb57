"""Per-hypothesis sufficient statistics: the contract every score is computed from.

:func:`compute_stats` runs the pipeline tokenize → encode → numba kernel and
returns a :class:`StatsTable`: one row per hypothesis with ``hyp_len``,
reference lengths, and for every order ``n`` the clipped matches ``match_n``,
totals ``total_n`` (int64, sacreBLEU semantics) and the ΔBLEU weighted
``wmatch_n`` / ``wtotal_n`` (float64). The table is Arrow-backed, saves to
Parquet with its metadata, and loads again for scoring without the texts.

A segment's references are indexed once and reused for all its hypotheses
(many systems, or a k-best list). Work runs in chunks of segments so memory
stays bounded, and the segments of a chunk are spread over numba's threads.

Examples
--------
>>> st = compute_stats(["the cat sat on the mat"], [["the cat is on the mat"]])
>>> st.column("match_1").tolist(), st.column("total_1").tolist()
([5], [6])
>>> st.max_ngram_order, st.tokenize, len(st)
(4, '13a', 1)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pyarrow as pa

from .._validate import describe_ids
from .._version import __version__
from ..errors import InputError
from . import _columns as columns_
from . import io, schemas, _small as small
from ._options import DELTA_DEFINITIONS, MAX_ORDER_LIMIT, REF_VIEWS, check_options
from .references import ReferenceSet

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DELTA_DEFINITIONS", "MAX_ORDER_LIMIT", "REF_VIEWS", "StatsTable", "compute_stats", "compute_stats_files",
           "load_stats"]

_META = "bleustats."

#: Metric groups a statistics table can hold (``bleu`` always; ``chrf++`` is chrF with word_order=2).
STAT_METRICS = ("bleu", "chrf", "chrf++", "ter")
#: sacreBLEU 2.6's TER options and defaults.
TER_DEFAULTS = {"normalized": False, "no_punct": False, "asian_support": False, "case_sensitive": False}


@dataclass(frozen=True)
class StatsTable:
    """Per-hypothesis statistics with the settings that produced them.

    Attributes
    ----------
    table : pyarrow.Table
        Columns as declared in ``data_schemas/statistics.json``; schema
        metadata (``bleustats.*`` keys) records the settings.
    timings : dict
        Seconds spent per stage (``tokenize``, ``encode``, ``kernel``, ...)
        when computed here; empty when loaded from a file.
    """

    table: pa.Table
    timings: dict = field(default_factory=dict, compare=False)

    def _meta(self, key: str) -> str:
        meta = self.table.schema.metadata or {}
        return meta.get((_META + key).encode(), b"").decode()

    @property
    def max_ngram_order(self) -> int:
        """Largest n-gram order N of the per-order columns."""
        return int(self._meta("max_ngram_order"))

    @property
    def max_order(self) -> int:
        """Old name of :attr:`max_ngram_order` (kept for bleustats 0.1 code; goes away in 0.3)."""
        return self.max_ngram_order

    @property
    def tokenize(self) -> str:
        return self._meta("tokenize")

    @property
    def lowercase(self) -> bool:
        return self._meta("lowercase") == "true"

    @property
    def ref_view(self) -> str:
        return self._meta("ref_view")

    @property
    def weight_threshold(self) -> float | None:
        v = self._meta("weight_threshold")
        return float(v) if v else None

    @property
    def delta_definition(self) -> str:
        return self._meta("delta_definition")

    @property
    def weights(self) -> str:
        """'uniform' when every reference weight was 1, else 'custom'."""
        return self._meta("weights")

    @property
    def version(self) -> str:
        return self._meta("version")

    @property
    def metrics(self) -> tuple[str, ...]:
        """Metric groups whose statistics the table holds: ``('bleu',)``, ``('bleu', 'chrf', 'ter')``, ..."""
        return tuple(self._meta("metrics").split(",")) if self._meta("metrics") else ("bleu",)

    @property
    def chrf_options(self) -> dict[str, Any] | None:
        """The chrF options the ``chrf_*`` columns were made with (None without them)."""
        if "chrf" not in self.metrics:
            return None
        beta = self._meta("chrf_beta")
        return {"char_order": int(self._meta("chrf_char_order")), "word_order": int(self._meta("chrf_word_order")),
                "beta": float(beta) if "." in beta or "e" in beta else int(beta),
                **{k: self._meta(f"chrf_{k}") == "true" for k in ("lowercase", "whitespace", "eps_smoothing")}}

    @property
    def ter_options(self) -> dict[str, bool] | None:
        """The TER options the ``ter_*`` columns were made with (None without them)."""
        if "ter" not in self.metrics:
            return None
        return {k: self._meta(f"ter_{k}") == "true" for k in TER_DEFAULTS}

    @property
    def n_refs_label(self) -> str:
        """Number of references per segment for the signature ('var' if it varies)."""
        n = np.unique(self.column("n_refs"))
        return str(int(n[0])) if len(n) == 1 else "var"

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> np.ndarray:
        """One column as a numpy array (zero-copy for numeric columns)."""
        col = self.table.column(name)
        if col.num_chunks == 1:
            return columns_.to_numpy(col.chunk(0))
        return columns_.to_numpy(col)

    def to_pandas(self) -> pd.DataFrame:
        return self.table.to_pandas()

    def select(self, rows: np.ndarray | Sequence[int] | Sequence[bool]) -> "StatsTable":
        """The rows given by a boolean mask or an index array, settings kept."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (len(self),):
                raise ValueError(
                    f"rows: a boolean mask must have one entry per row ({len(self)}); got shape {rows.shape}."
                )
            rows = np.flatnonzero(rows)
        return StatsTable(self.table.take(columns_.numeric(rows.astype(np.int64, copy=False))))

    # -- the statistics protocol (bleustats.engine.protocol), answered in memory --

    @property
    def settings(self) -> "StatsTable":
        """The table itself (its metadata holds the settings; a dataset gives an empty table with them)."""
        return self

    @property
    def column_names(self) -> list[str]:
        return list(self.table.column_names)

    @property
    def n_refs_values(self) -> tuple[int, ...]:
        """Distinct ``n_refs`` over all rows, sorted."""
        return tuple(int(n) for n in np.unique(self.column("n_refs")))

    def column_totals(self, columns: Sequence[str], *, by: Any = None, rows: Any = None
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Exact sums of ``columns``: ``(keys, {column: sums per key})``, in memory (``protocol.table_totals``).

        ``by`` is a column name or one label per row (keys: its sorted
        distinct values; without it one key, 0); ``rows`` a boolean mask or
        indices (repeats allowed: a resample) summed instead of all rows.
        """
        from .protocol import table_totals

        return table_totals(self, columns, by=by, rows=rows)

    def map_batches(self, fn: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
                    ) -> list[Any]:
        """``[fn(self, **kwargs)]``: the whole table is one batch (``columns`` is what ``fn`` reads)."""
        return [fn(self, **kwargs)]

    def where(self, predicate: Callable[..., Any], *, columns: Sequence[str] | None = None, **kwargs: Any
              ) -> "StatsTable":
        """The rows where ``predicate(self, **kwargs)`` is true (optionally only ``columns``), settings kept."""
        rows = self.table.filter(pa.array(predicate(self, **kwargs)))
        return StatsTable(rows if columns is None else rows.select(list(columns)))

    def systems(self) -> np.ndarray:
        """The distinct ``system`` names, sorted."""
        return np.unique(self.column("system"))

    def with_executor(self, executor: Any) -> "StatsTable":
        """The table itself: its rows are in memory, so no executor runs any of its work."""
        return self

    def to_table(self, columns: Sequence[str] | None = None) -> "StatsTable":
        """All rows in memory: the table itself (optionally only ``columns``), as a dataset's ``to_table``."""
        return self if columns is None else StatsTable(self.table.select(list(columns)))

    def up_to_order(self, max_ngram_order: int) -> "StatsTable":
        """The table with the per-order columns of orders 1..max_ngram_order only, settings kept.

        Statistics of order N hold those of every lower order, so a score of
        order n <= N needs no recount.

        Examples
        --------
        >>> st = compute_stats(["a b c"], [["a b d"]], tokenize="none")
        >>> st.up_to_order(2).max_ngram_order, [c for c in st.up_to_order(2).table.column_names if "_3" in c]
        (2, [])
        """
        n = self.max_ngram_order
        if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)) or not (
                1 <= max_ngram_order <= n):
            raise InputError(f"max_ngram_order must be an integer from 1 to the table's order {n}; "
                             f"got {max_ngram_order!r}. Compute the statistics with a larger max_ngram_order.")
        if max_ngram_order == n:
            return self
        per_order = {c["name"] for c in schemas.load_schema("statistics")["columns"] if c.get("per_order")}
        drop = {name.format(n=k) for name in per_order for k in range(max_ngram_order + 1, n + 1)}
        meta = dict(self.table.schema.metadata or {})
        meta[(_META + "max_ngram_order").encode()] = str(int(max_ngram_order)).encode()
        keep = [c for c in self.table.column_names if c not in drop]
        return StatsTable(self.table.select(keep).replace_schema_metadata(meta))

    def save(self, path: str | os.PathLike) -> None:
        """Write the table to Parquet, whole or not at all (metadata included).

        The metadata gains ``bleustats.digest``, the SHA-256 of the values and
        settings (:func:`bleustats.engine.io.table_digest`), which
        :func:`load_stats` checks.
        """
        import pyarrow.parquet as pq

        meta = {k: v for k, v in (self.table.schema.metadata or {}).items() if k != io.DIGEST_KEY}
        table = self.table.replace_schema_metadata(meta)
        table = table.replace_schema_metadata({**meta, io.DIGEST_KEY: io.table_digest(table).encode()})
        io.write_atomic(path, lambda tmp: pq.write_table(table, tmp))


def load_stats(path: str | os.PathLike) -> StatsTable:
    """Load a statistics table saved by :meth:`StatsTable.save` and validate it.

    Examples
    --------
    >>> import tempfile, os
    >>> st = compute_stats(["a b c"], [["a b d"]], max_ngram_order=2)
    >>> p = os.path.join(tempfile.mkdtemp(), "stats.parquet")
    >>> st.save(p)
    >>> load_stats(p).column("match_2").tolist()
    [1]
    """
    import pyarrow.parquet as pq

    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder; give the Parquet file written by bleustats stats (-o).")
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as a Parquet statistics table ({exc}).") from None
    meta = table.schema.metadata or {}
    key = (_META + "max_ngram_order").encode()
    if key not in meta:
        raise InputError(
            f"{path}: has no {key.decode()!r} metadata; it was not written by bleustats "
            "(StatsTable.save)."
        )
    max_order = _check_metadata(meta, path)
    # columns, types, ranges, no NaN, and the invariants every computed table satisfies
    # (match_n <= total_n, total_n from hyp_len, wtotal_n = total_n * ref_weight_max, ...)
    groups = metric_groups(StatsTable(table), path)
    # ... and the (system, seg_id) key: a row repeated would count twice (not for k-best lists' entries)
    k_best = meta.get((_META + "k_best").encode()) == b"true"
    aligned = schemas.validate(table, "statistics", max_ngram_order=max_order, param=str(path), groups=groups,
                               check_key=not k_best)
    _check_digest(table, meta, path)
    # the digest holds for the file as saved: a table selected or viewed from it gets its own when saved
    return StatsTable(aligned.replace_schema_metadata({k: v for k, v in meta.items() if k != io.DIGEST_KEY}))


def _check_digest(table: pa.Table, meta: dict, path: Any) -> None:
    """Refuse a table whose values or settings differ from those its ``bleustats.digest`` was made of."""
    want = meta.get(io.DIGEST_KEY)
    if want is None:  # saved by bleustats < 0.2: key and invariants were checked
        return
    if io.table_digest(table).encode() != want:
        raise InputError(f"{path}: its values or settings are not those it was saved with (bleustats.digest does "
                         "not match: a row, a value or a bleustats.* setting was changed, added or removed after "
                         "StatsTable.save). Its scores could be wrong; compute it again (bleustats stats).")


def metric_groups(stats: StatsTable, path: Any) -> dict[str, dict[str, int]]:
    """The optional column groups of a saved table, its chrF / TER settings checked; errors name ``path``."""
    try:
        groups = _groups(stats)
        stats.chrf_options, stats.ter_options  # noqa: B018 (parsed here so a broken value is refused, not raised later)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{path}: broken bleustats metadata of its chrF / TER columns ({exc}); the file was not "
                         "written by StatsTable.save, or was edited. Compute it again.") from None
    return groups


def _groups(stats: StatsTable) -> dict[str, dict[str, int]]:
    """The optional column groups of a table, from its metadata (for the schema)."""
    groups: dict[str, dict[str, int]] = {}
    for metric in stats.metrics:
        if metric == "chrf":
            opts = stats.chrf_options or {}
            groups["chrf"] = {"chrf_char_order": opts["char_order"], "chrf_word_order": opts["word_order"]}
        elif metric == "ter":
            groups["ter"] = {}
        elif metric != "bleu":
            raise InputError(f"statistics metadata names an unknown metric group {metric!r}; known: "
                             f"{', '.join(STAT_METRICS)}. Was the table written by a newer bleustats?")
    return groups


def _metric_options(metrics: Any, chrf: Any, ter: Any) -> tuple[list[str], dict | None, dict | None]:
    """Check ``metrics`` / ``chrf_options`` / ``ter_options``; return the groups and normalised options."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = list(metrics)
    bad = [m for m in metrics if m not in STAT_METRICS]
    if bad:
        raise InputError(f"metrics must name some of {', '.join(map(repr, STAT_METRICS))}; got {bad[0]!r}.")
    want_chrf = "chrf" in metrics or "chrf++" in metrics
    chrf_opts = ter_opts = None
    if chrf is not None and not want_chrf:
        raise InputError("chrf_options is given but metrics has no 'chrf'; add 'chrf' (or 'chrf++') to metrics.")
    if ter is not None and "ter" not in metrics:
        raise InputError("ter_options is given but metrics has no 'ter'; add 'ter' to metrics.")
    if want_chrf:
        from .chrf_stats import CHRF_DEFAULTS, chrf_options  # numba's chrF kernels: loaded only when asked for

        given = dict(chrf or {})
        unknown = set(given) - set(CHRF_DEFAULTS)
        if unknown:
            raise InputError(f"chrf_options: unknown option(s) {sorted(unknown)}; known: {sorted(CHRF_DEFAULTS)}.")
        if "chrf++" in metrics:
            if given.get("word_order", 2) != 2:
                raise InputError(f"metrics has 'chrf++' (word_order=2) but chrf_options sets word_order="
                                 f"{given['word_order']!r}; use 'chrf' with that word_order instead.")
            given["word_order"] = 2
        chrf_opts = chrf_options(**given)
    if "ter" in metrics:
        given = dict(ter or {})
        unknown = set(given) - set(TER_DEFAULTS)
        if unknown:
            raise InputError(f"ter_options: unknown option(s) {sorted(unknown)}; known: {sorted(TER_DEFAULTS)}.")
        ter_opts = {**TER_DEFAULTS, **given}
        for k, v in ter_opts.items():
            if not isinstance(v, (bool, np.bool_)):
                raise InputError(f"ter_options[{k!r}] must be True or False; got {v!r}.")
    groups = ["bleu"] + (["chrf"] if want_chrf else []) + (["ter"] if "ter" in metrics else [])
    return groups, chrf_opts, ter_opts


def _check_metadata(meta: dict, path: Any) -> int:
    """The table's settings, each checked; returns its max_ngram_order (errors list every bad key)."""
    values, problems = {}, []
    for key in schemas.load_schema("statistics")["metadata"]:
        raw = meta.get(key.encode())
        try:
            values[key] = None if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError:
            values[key] = None
            problems.append(f"{key} is not UTF-8 text")
    from ..tokenizers import SACREBLEU_TOKENIZERS

    allowed = {"bleustats.tokenize": SACREBLEU_TOKENIZERS, "bleustats.lowercase": ("true", "false"),
               "bleustats.ref_view": REF_VIEWS, "bleustats.delta_definition": DELTA_DEFINITIONS,
               "bleustats.weights": ("uniform", "custom"), "bleustats.k_best": ("true", "false")}
    for key, choices in allowed.items():
        if values.get(key) is not None and values[key] not in choices:
            problems.append(f"{key} is {values[key]!r}, not one of {', '.join(map(repr, choices))}")
    order = values.get("bleustats.max_ngram_order") or ""
    if not (order.isdigit() and 1 <= int(order) <= MAX_ORDER_LIMIT):
        problems.append(f"bleustats.max_ngram_order is {order!r}, not an integer from 1 to {MAX_ORDER_LIMIT}")
    theta = values.get("bleustats.weight_threshold") or ""
    if values.get("bleustats.ref_view") == "threshold":
        try:
            if not np.isfinite(float(theta)):
                raise ValueError
        except ValueError:
            problems.append(f"bleustats.weight_threshold is {theta!r}, not the finite θ of the threshold view")
    elif theta:
        problems.append(f"bleustats.weight_threshold is {theta!r} but ref_view is not 'threshold'")
    if problems:
        raise InputError(f"{path}: broken bleustats metadata: " + "; ".join(problems)
                         + ". The file was not written by StatsTable.save, or was edited; compute it again.")
    return int(order)


# --------------------------------------------------------------------------- checks


def apply_ref_view(refs: pa.Table, ref_view: str, weight_threshold: float | None) -> pa.Table:
    """The rows of a references table that count in ``ref_view``, in their order.

    ``'all'``: every row; ``'threshold'``: rows with ``weight >= weight_threshold``;
    ``'first'``: each segment's first row. :func:`compute_stats` scores against
    these, and so does every other reader of the references that must agree with it.

    Examples
    --------
    >>> t = pa.table({"seg_id": [0, 0, 1], "weight": [1.0, -0.5, 0.2]})
    >>> apply_ref_view(t, "threshold", 0.0)["seg_id"].to_pylist()
    [0, 1]
    >>> apply_ref_view(t, "first", None)["weight"].to_pylist()
    [1.0, 0.2]
    """
    if ref_view == "threshold":
        keep = columns_.to_numpy(refs.column("weight")) >= weight_threshold
        return refs.take(columns_.numeric(np.flatnonzero(keep)))
    if ref_view == "first":
        seg = columns_.to_numpy(refs.column("seg_id"))
        _, first = np.unique(seg, return_index=True)
        return refs.take(columns_.numeric(np.sort(first)))
    return refs


# --------------------------------------------------------------------------- pipeline


def _references_table(references: Any, ref_weights: Any, hyps: pa.Table, hyps_are_table: bool, layout: str,
                      tokenize: str, lowercase: bool) -> tuple[pa.Table, bool]:
    """The validated references table; a ReferenceSet adds its cached tokenized texts (``tokens``)."""
    n_hyp = None if hyps_are_table else hyps.num_rows
    if not isinstance(references, ReferenceSet):
        return io.as_references_table(references, ref_weights, n_hyp=n_hyp, layout=layout), False
    if ref_weights is not None:
        raise InputError("ref_weights must be None when references is a ReferenceSet; give the weights to "
                         "ReferenceSet(references, ref_weights).")
    if n_hyp is not None and references.n_segments is not None and references.n_segments != n_hyp:
        raise InputError(f"references: the ReferenceSet has {references.n_segments} segments but there are "
                         f"{n_hyp} hypotheses; every reference stream must be as long as the hypotheses.")
    return references.table.append_column("tokens", reference_tokens(references, tokenize, lowercase)), True


def reference_tokens(references: ReferenceSet, tokenize: str, lowercase: bool) -> pa.Array:
    """The references' texts as ``tokenize`` leaves them, computed once per (tokenize, lowercase).

    Examples
    --------
    >>> reference_tokens(ReferenceSet([["Hello, world!"]]), "13a", True).to_pylist()
    ['hello , world !']
    """
    from .encode import tokenized

    return references.cached(("bleu", tokenize, bool(lowercase)),
                             lambda t: tokenized(t.column("text").combine_chunks(), tokenize, lowercase))


def _rows_of(column: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """column[rows] as one array: a zero-copy slice when rows are consecutive."""
    if len(rows) and (np.diff(rows) == 1).all():
        return column.slice(int(rows[0]), len(rows)).combine_chunks()
    return column.take(columns_.numeric(rows)).combine_chunks()


def _missing_references(missing: np.ndarray, ref_view: str, weight_threshold: float | None) -> InputError:
    view = "" if ref_view == "all" else f" in ref_view={ref_view!r}" + (
        f" (weight >= {weight_threshold})" if ref_view == "threshold" else "")
    return InputError(
        f"references: {len(missing)} segment(s) have hypotheses but no reference{view}: "
        f"seg_id {describe_ids(missing)}. Every hypothesis needs at least one reference; "
        "drop those hypotheses or add references."
    )


def _settings(n: int, tokenize: str, lowercase: bool, ref_view: str, weight_threshold: float | None,
              delta_definition: str, uniform: bool) -> dict[str, str]:
    """The schema metadata (``bleustats.*``) that records how a table was computed."""
    return {
        "version": __version__,
        "max_ngram_order": str(n),
        "tokenize": tokenize,
        "lowercase": "true" if lowercase else "false",
        "ref_view": ref_view,
        "weight_threshold": "" if ref_view != "threshold" else repr(float(weight_threshold)),
        "delta_definition": delta_definition,
        "weights": "uniform" if uniform else "custom",
        "metrics": "bleu",
    }


def _statistics_table(seg_id: pa.Array | pa.ChunkedArray, system: pa.Array | pa.ChunkedArray,
                      out: tuple[np.ndarray, ...], settings: dict[str, str], *,
                      extra: dict[str, np.ndarray] | None = None, groups: dict[str, dict[str, int]] | None = None,
                      extra_meta: dict[str, str] | None = None) -> pa.Table:
    """The statistics table of the kernels' output arrays (zero-copy columns) with its settings.

    ``extra`` holds the chrF / TER columns of the schema's optional ``groups``;
    ``extra_meta`` their options (full ``bleustats.*`` keys).
    """
    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    n = int(settings["max_ngram_order"])
    columns = [seg_id, system, lens[0], lens[1], lens[2], ref_avg, n_refs, wmax]
    columns += [counts[i] for i in range(2 * n)] + [wcounts[i] for i in range(2 * n)]
    columns += list((extra or {}).values())
    table = pa.Table.from_arrays(
        [c if isinstance(c, (pa.Array, pa.ChunkedArray)) else columns_.numeric(c) for c in columns],
        schema=schemas.arrow_schema("statistics", max_ngram_order=n, groups=groups or {}),
    )
    return table.replace_schema_metadata({**{_META + k: v for k, v in settings.items()}, **(extra_meta or {})})


def _other_metrics(hyps: pa.Table, refs: pa.Table, k_best: bool, chrf_opts: dict | None, ter_opts: dict | None,
                   timings: dict[str, float]) -> tuple[dict[str, np.ndarray], dict[str, str], dict[str, dict]]:
    """chrF's and TER's columns when asked for: ``(columns, metadata, schema groups)``.

    Their modules (and kernels) are imported only here, so a BLEU-only call loads none of them.
    """
    extra: dict[str, np.ndarray] = {}
    meta: dict[str, str] = {}
    schema_groups: dict[str, dict[str, int]] = {}
    if chrf_opts is not None:
        from .chrf_stats import chrf_column_names, chrf_metadata, chrf_statistics

        t_chrf = time.perf_counter()
        rows = chrf_statistics(hyps, refs.drop_columns([c for c in ("tokens",) if c in refs.column_names]),
                               k_best=k_best, **chrf_opts)
        for name, col in zip(chrf_column_names(chrf_opts["char_order"], chrf_opts["word_order"]), rows.T):
            extra[name] = np.ascontiguousarray(col)
        schema_groups["chrf"] = {"chrf_char_order": chrf_opts["char_order"],
                                 "chrf_word_order": chrf_opts["word_order"]}
        meta.update(chrf_metadata(chrf_opts))
        timings["chrf"] = time.perf_counter() - t_chrf
    if ter_opts is not None:
        from .ter_stats import ter_statistics_table

        t_ter = time.perf_counter()
        rows = ter_statistics_table(hyps, refs, **ter_opts)
        extra["ter_num_edits"] = rows[:, 0].astype(np.int64)
        extra["ter_ref_length"] = np.ascontiguousarray(rows[:, 1])
        schema_groups["ter"] = {}
        meta.update({f"{_META}ter_{k}": "true" if v else "false" for k, v in ter_opts.items()})
        timings["ter"] = time.perf_counter() - t_ter
    return extra, meta, schema_groups


def _statistics_kernel(ids: np.ndarray, hyp_offsets: np.ndarray, hyp_ptr: np.ndarray, ref_offsets: np.ndarray,
                       ref_order: np.ndarray, ref_ptr: np.ndarray, weights: np.ndarray, n: int, definition: str,
                       n_vocab: int, work: np.ndarray) -> tuple[np.ndarray, ...]:
    """The statistics kernel over encoded segments; serial when too small to share out.

    Segment ``s`` has the hypothesis rows ``hyp_ptr[s]:hyp_ptr[s+1]`` and the
    reference rows ``ref_order[ref_ptr[s]:ref_ptr[s+1]]`` (row ``r``'s ids:
    ``ids[ref_offsets[r]:ref_offsets[r + 1]]``); ``work`` is its number of tokens.
    """
    from .._kernel_cache import guarded
    from . import _stats_kernels as module
    from ._threads import kernel_threads
    from .encode import PARALLEL_MIN_TOKENS, block_bounds

    _stats_kernels = guarded(module)

    code = _stats_kernels.DEF_PAPER if definition == "paper" else _stats_kernels.DEF_GALLEY2019
    args = (ids, hyp_offsets, np.arange(len(hyp_offsets) - 1, dtype=np.int64), hyp_ptr, ids, ref_offsets, ref_order,
            ref_ptr, weights, n, code, n_vocab)
    # the size first: asking numba for its thread count starts its thread pool, for nothing when serial
    n_threads = 1 if work.sum() < PARALLEL_MIN_TOKENS else kernel_threads()
    if n_threads == 1:
        return _stats_kernels.compute_stats_serial(*args)
    return _stats_kernels.compute_stats(*args, block_bounds(work + 1, 8 * n_threads))


def _kernel_statistics(hyp_text: pa.ChunkedArray, ref_text: pa.ChunkedArray, weights: np.ndarray,
                       hyp_seg: np.ndarray, ref_seg: np.ndarray, n_seg: int, n: int, delta_definition: str,
                       tokenize: str, lowercase: bool, chunk_segments: int, timings: dict[str, float],
                       out: tuple[np.ndarray, ...], *, refs_tokenized: bool = False) -> None:
    """The numba pipeline (encode, statistics kernel) over chunks of segments, into the arrays ``out``."""
    from .encode import encode_segment_ids

    lens, ref_avg, n_refs, wmax, counts, wcounts = out
    hyp_sort = np.argsort(hyp_seg, kind="stable")
    ref_sort = np.argsort(ref_seg, kind="stable")
    hyp_ptr_all = np.searchsorted(hyp_seg[hyp_sort], np.arange(n_seg + 1))
    ref_ptr_all = np.searchsorted(ref_seg[ref_sort], np.arange(n_seg + 1))
    for c0 in range(0, n_seg, chunk_segments):
        c1 = min(n_seg, c0 + chunk_segments)
        h_rows = hyp_sort[hyp_ptr_all[c0]:hyp_ptr_all[c1]]
        r_rows = ref_sort[ref_ptr_all[c0]:ref_ptr_all[c1]]
        if len(h_rows) == 0:
            continue
        hyp_ptr = (hyp_ptr_all[c0:c1 + 1] - hyp_ptr_all[c0]).astype(np.int64)
        ref_ptr = (ref_ptr_all[c0:c1 + 1] - ref_ptr_all[c0]).astype(np.int64)
        ids, tok_off, n_h, n_vocab = encode_segment_ids(
            _rows_of(hyp_text, h_rows), _rows_of(ref_text, r_rows), hyp_ptr, ref_ptr, tokenize=tokenize,
            lowercase=lowercase, timings=timings, refs_tokenized=refs_tokenized)
        t2 = time.perf_counter()
        ref_off = tok_off[n_h:]
        res = _statistics_kernel(ids, tok_off[: n_h + 1], hyp_ptr, ref_off, np.arange(len(r_rows), dtype=np.int64),
                                 ref_ptr, np.ascontiguousarray(weights[r_rows]), n, delta_definition, n_vocab,
                                 np.diff(tok_off[hyp_ptr]) + np.diff(ref_off[ref_ptr]))
        c_lens, c_avg, c_nrefs, c_wmax, c_counts, c_wcounts = res
        lens[:, h_rows] = c_lens
        ref_avg[h_rows] = c_avg
        n_refs[h_rows] = c_nrefs
        wmax[h_rows] = c_wmax
        counts[:, h_rows] = c_counts
        wcounts[:, h_rows] = c_wcounts
        del ids, tok_off, res  # before the next chunk
        timings["kernel"] += time.perf_counter() - t2


def compute_stats(
    hypotheses: Sequence[str] | pd.DataFrame | pa.Table,
    references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table,
    *,
    ref_weights: Sequence[Sequence[float]] | None = None,
    tokenize: str = "13a",
    lowercase: bool = False,
    max_ngram_order: int = 4,
    ref_view: str = "all",
    weight_threshold: float | None = None,
    delta_definition: str = "paper",
    references_layout: str = "auto",
    system: str | None = None,
    k_best: bool = False,
    chunk_segments: int = 100_000,
    metrics: Sequence[str] = ("bleu",),
    chrf_options: dict[str, Any] | None = None,
    ter_options: dict[str, bool] | None = None,
) -> StatsTable:
    r"""Per-hypothesis BLEU and ΔBLEU sufficient statistics (and chrF and TER's, with ``metrics=``).

    For hypothesis :math:`h` with references :math:`r_1..r_K` of weights
    :math:`w_j \in [-1, 1]` and :math:`\#g(x)` the count of n-gram :math:`g`
    in :math:`x`:

    .. math::

        \mathrm{match}_n = \sum_{g \in h,\ |g| = n} \min\big(\#g(h), \max_j \#g(r_j)\big),
        \qquad \mathrm{total}_n = \max(0, |h| - n + 1)

        \mathrm{wmatch}_n = \sum_{g} \max_{j:\ g \in r_j} w_j \min\big(\#g(h), \#g(r_j)\big),
        \qquad \mathrm{wtotal}_n = \sum_{g} \#g(h) \max_j w_j

    (Galley et al., 2015; an n-gram in no reference adds 0). With
    ``delta_definition='galley2019'`` the numerator is the first author's 2019
    implementation, :math:`\min(\#g(h), \max_j \#g(r_j)) \cdot \max_{j: g \in
    r_j} w_j`. ``ref_len_closest`` is the reference length closest to
    :math:`|h|`, ties to the shorter (sacreBLEU).

    Parameters
    ----------
    hypotheses : list of str, pandas.DataFrame or pyarrow.Table
        One hypothesis per segment, or the long-form ``hypotheses`` table
        (``seg_id``, ``system``, ``text``) with any number of hypotheses per
        segment.
    references : list of lists, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style reference streams, one list of references per segment
        (see ``references_layout``), or the long-form ``references`` table
        (``seg_id``, ``ref_id``, ``weight``, ``text``), or a
        :class:`~bleustats.engine.references.ReferenceSet` (validated once; its
        tokenized texts are cached for the next call with the same tokenizer).
    ref_weights : list of lists of float, optional
        Weights in [-1, 1], same shape as list ``references``; default all 1.
    tokenize : {'13a', 'none', 'intl', 'char', 'zh', 'ja-mecab', 'ko-mecab', 'spm', 'flores101', ...}
        sacreBLEU tokenizer (the last ones need their optional packages; see
        :mod:`bleustats.tokenizers`).
    lowercase : bool
        Lowercase before tokenizing.
    max_ngram_order : int
        Largest order N (1 to :data:`MAX_ORDER_LIMIT`).
    ref_view : {'all', 'threshold', 'first'}
        Which references count: all, those with ``weight >= weight_threshold``,
        or only each segment's first (original) reference.
    weight_threshold : float, optional
        θ of the ``'threshold'`` view.
    delta_definition : {'paper', 'galley2019'}
        Definition of ``wmatch_n``.
    references_layout : {'auto', 'streams', 'segments'}
        How list ``references`` are laid out (see :func:`bleustats.engine.io.as_references_table`).
    system : str, optional
        System name for list ``hypotheses``.
    k_best : bool
        The hypotheses are entries of k-best lists: several rows may share
        (system, seg_id). Otherwise such rows are an error, since a system's
        score would count them twice.
    chunk_segments : int
        Segments per chunk; bounds memory on large inputs.
    metrics : sequence of {'bleu', 'chrf', 'chrf++', 'ter'}
        Statistics groups of the table. BLEU's columns are always there;
        ``'chrf'`` adds the ``chrf_*`` / ``chrfw_*`` columns
        (:func:`~bleustats.engine.chrf_stats.chrf_statistics`; ``'chrf++'`` is
        chrF with ``word_order=2``), ``'ter'`` adds ``ter_num_edits`` and
        ``ter_ref_length`` (:func:`~bleustats.engine.ter_stats.ter_statistics`),
        both against the references of ``ref_view`` (weights ignored).
    chrf_options : dict, optional
        sacreBLEU's ``CHRF`` options (``char_order``, ``word_order``, ``beta``,
        ``lowercase``, ``whitespace``, ``eps_smoothing``); recorded in the metadata.
    ter_options : dict, optional
        sacreBLEU's ``TER`` options (``normalized``, ``no_punct``,
        ``asian_support``, ``case_sensitive``); recorded in the metadata.

    Returns
    -------
    StatsTable
        One row per hypothesis, in input order.

    Raises
    ------
    ValueError
        Bad options or inputs; the message names the parameter, the row or
        segment, and the fix. A hypothesis whose segment has no reference (in
        the chosen view) is an error.

    Examples
    --------
    >>> st = compute_stats(["a a"], [["a", "a a"]], ref_weights=[[1.0, -0.5]],
    ...                    references_layout="segments", tokenize="none", max_ngram_order=1)
    >>> st.column("match_1").tolist(), st.column("wmatch_1").tolist(), st.column("wtotal_1").tolist()
    ([2], [1.0], [2.0])
    """
    check_options(tokenize, max_ngram_order, ref_view, weight_threshold, delta_definition)
    groups, chrf_opts, ter_opts = _metric_options(metrics, chrf_options, ter_options)
    if not isinstance(chunk_segments, (int, np.integer)) or chunk_segments < 1:
        raise ValueError(f"chunk_segments must be a positive integer; got {chunk_segments!r}.")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    hyps = io.as_hypotheses_table(hypotheses, system=system, k_best=k_best)
    refs, pretokenized = _references_table(references, ref_weights, hyps, io.is_table(hypotheses),
                                           references_layout, tokenize, lowercase)
    uniform = bool((columns_.to_numpy(refs.column("weight")) == 1.0).all())
    refs = apply_ref_view(refs, ref_view, weight_threshold)
    timings["read"] = time.perf_counter() - t0

    # Segment index: the distinct seg_ids that have references in this view.
    ref_seg_ids = columns_.to_numpy(refs.column("seg_id"))
    seg_keys, ref_seg = np.unique(ref_seg_ids, return_inverse=True)
    hyp_seg_ids = columns_.to_numpy(hyps.column("seg_id"))
    hyp_seg = np.searchsorted(seg_keys, hyp_seg_ids)
    found = (hyp_seg < len(seg_keys)) & (seg_keys[np.minimum(hyp_seg, max(len(seg_keys) - 1, 0))] == hyp_seg_ids
                                         if len(seg_keys) else np.zeros(len(hyp_seg_ids), bool))
    if not found.all():
        raise _missing_references(np.unique(hyp_seg_ids[~found]), ref_view, weight_threshold)

    n_hyp = hyps.num_rows
    n = max_ngram_order
    # the kernels' output layout, for all rows; each chunk's rows are scattered into it
    lens = np.zeros((3, n_hyp), np.int64)
    ref_avg = np.zeros(n_hyp, np.float64)
    n_refs = np.zeros(n_hyp, np.int64)
    wmax = np.zeros(n_hyp, np.float64)
    counts = np.zeros((2 * n, n_hyp), np.int64)
    wcounts = np.zeros((2 * n, n_hyp), np.float64)

    hyp_text = hyps.column("text")
    ref_text = refs.column("tokens" if pretokenized else "text")
    weights = columns_.to_numpy(refs.column("weight"))
    timings.update(tokenize=0.0, encode=0.0, kernel=0.0)
    n_chars = sum(c.nbytes for c in hyp_text.chunks) + sum(c.nbytes for c in ref_text.chunks)
    # the plain path tokenizes both sides itself: references a ReferenceSet tokenized already take the kernels
    if not pretokenized and small.prefer_plain(n_chars):
        t = time.perf_counter()
        ref_segments: list[list[tuple[str, float]]] = [[] for _ in seg_keys]
        for text, w, s in zip(ref_text.to_pylist(), weights.tolist(), ref_seg.tolist()):
            ref_segments[s].append((text, w))
        rows = small.segment_statistics(hyp_text.to_pylist(), hyp_seg.tolist(), ref_segments, tokenize=tokenize,
                                        lowercase=lowercase, max_ngram_order=n, delta_definition=delta_definition)
        if rows:
            hl, closest, shortest, avg, nr, w_max, match, total, wmatch, wtotal = zip(*rows)
            lens[:] = (hl, closest, shortest)
            ref_avg[:], n_refs[:], wmax[:] = avg, nr, w_max
            counts[:] = np.array(match + total, np.int64).reshape(2, n_hyp, n).transpose(0, 2, 1).reshape(2 * n, n_hyp)
            wcounts[:] = np.array(wmatch + wtotal, np.float64).reshape(2, n_hyp, n).transpose(0, 2, 1).reshape(
                2 * n, n_hyp)
        timings["plain"] = time.perf_counter() - t
    else:
        _kernel_statistics(hyp_text, ref_text, weights, hyp_seg, ref_seg, len(seg_keys), n, delta_definition,
                           tokenize, lowercase, chunk_segments, timings, (lens, ref_avg, n_refs, wmax, counts, wcounts),
                           refs_tokenized=pretokenized)

    extra, groups_meta, schema_groups = _other_metrics(hyps, refs, k_best, chrf_opts, ter_opts, timings)
    t = time.perf_counter()
    settings = _settings(n, tokenize, lowercase, ref_view, weight_threshold, delta_definition, uniform)
    settings["metrics"] = ",".join(groups)
    if k_best:  # entries share (system, seg_id): the key is not checked when the saved table is loaded
        settings["k_best"] = "true"
    table = _statistics_table(hyps.column("seg_id"), hyps.column("system"),
                              (lens, ref_avg, n_refs, wmax, counts, wcounts), settings,
                              extra=extra, groups=schema_groups, extra_meta=groups_meta)
    timings["assemble"] = time.perf_counter() - t
    return StatsTable(table, timings)


def reference_files(
    reference_paths: str | os.PathLike | Sequence[str | os.PathLike],
    ref_weight_paths: str | os.PathLike | Sequence[str | os.PathLike] | None,
) -> tuple[list[str | os.PathLike], list[np.ndarray] | None]:
    """Reference files (one stream each) and their ΔBLEU weights, checked and read.

    Weights are small (one number per line), so they are read whole and each
    file's count is checked against its reference file's lines.

    Examples
    --------
    >>> reference_files("ref.txt", None)
    (['ref.txt'], None)
    >>> reference_files([], None)
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: reference_paths: give at least one reference file.
    """
    if isinstance(reference_paths, (str, os.PathLike)):
        reference_paths = [reference_paths]
    if isinstance(ref_weight_paths, (str, os.PathLike)):
        ref_weight_paths = [ref_weight_paths]
    reference_paths = list(reference_paths)
    if not reference_paths:
        raise InputError("reference_paths: give at least one reference file.")
    if ref_weight_paths is None:
        return reference_paths, None
    ref_weight_paths = list(ref_weight_paths)
    if len(ref_weight_paths) != len(reference_paths):
        raise InputError(f"ref_weight_paths: need one weight file per reference file ({len(reference_paths)}); "
                         f"got {len(ref_weight_paths)}.")
    n_lines = [len(io.read_lines(p)) for p in reference_paths]
    return reference_paths, [io.read_weights(w, n=n, ref_path=r)
                             for w, n, r in zip(ref_weight_paths, n_lines, reference_paths)]


def compute_stats_files(
    hypotheses_path: str | os.PathLike,
    reference_paths: Sequence[str | os.PathLike],
    *,
    ref_weight_paths: Sequence[str | os.PathLike] | None = None,
    chunk_lines: int = 100_000,
    **options: Any,
) -> StatsTable:
    """Statistics of plain-text files (one segment per line), streamed in chunks of lines.

    The files are read together ``chunk_lines`` lines at a time (segments of
    line-aligned files never span two chunks), so memory stays bounded however
    large they are. ``ref_weight_paths`` gives one file of weights per
    reference file, one number per line. ``options`` are those of
    :func:`compute_stats` (``tokenize``, ``lowercase``, ``max_ngram_order``,
    ``ref_view``, ``weight_threshold``, ``delta_definition``). ``seg_id`` is
    the 0-based line index.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for name, text in [("h", "a b c d\\nx y\\n"), ("r", "a b c d\\nx z\\n")]:
    ...     _ = open(os.path.join(d, name), "w", encoding="utf-8").write(text)
    >>> st = compute_stats_files(os.path.join(d, "h"), [os.path.join(d, "r")], chunk_lines=1)
    >>> st.column("seg_id").tolist(), st.column("match_1").tolist()
    ([0, 1], [4, 1])
    """
    reference_paths, weights = reference_files(reference_paths, ref_weight_paths)
    if not isinstance(chunk_lines, (int, np.integer)) or chunk_lines < 1:
        raise ValueError(f"chunk_lines must be a positive integer; got {chunk_lines!r}.")
    paths = [hypotheses_path, *reference_paths]
    names = [str(p) for p in reference_paths]
    if set(options) <= _FILE_OPTIONS and not small.prefer_plain(_text_size(paths)):
        return _files_statistics(paths, weights, chunk_lines, **options)
    parts: list[StatsTable] = []
    read = 0.0
    chunks = io.iter_line_chunks(paths, chunk_lines)
    while True:
        t = time.perf_counter()
        item = next(chunks, None)
        read += time.perf_counter() - t
        if item is None:
            break
        first, (hyp, *refs) = item
        w = None if weights is None else [x[first:first + len(hyp)] for x in weights]
        parts.append(compute_stats(
            io.lines_table(hyp, first=first),
            io.streams_table(refs, w, n_hyp=len(hyp), names=names, first=first),
            **options,
        ))
        del hyp, refs, item  # the next chunk's texts replace these, not join them
    if not parts:
        return compute_stats([], [[] for _ in reference_paths], **options)
    timings: dict[str, float] = {"read_files": read}
    for part in parts:
        for k, v in part.timings.items():
            timings[k] = timings.get(k, 0.0) + v
    meta = dict(parts[-1].table.schema.metadata)
    if any(p.weights == "custom" for p in parts):
        meta[(_META + "weights").encode()] = b"custom"
    table = pa.concat_tables([p.table for p in parts]).replace_schema_metadata(meta)
    return StatsTable(table, timings)


#: The options of compute_stats that the files route (:func:`_files_statistics`) takes.
_FILE_OPTIONS = {"tokenize", "lowercase", "max_ngram_order", "ref_view", "weight_threshold", "delta_definition"}


def _text_size(paths: Sequence[str | os.PathLike]) -> int:
    """About how many bytes of text the files hold (a gzip file: four times its size)."""
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(p) * (4 if str(p).endswith(".gz") else 1)
        except OSError:
            return 0  # let the reader name the missing file
    return total


def _files_statistics(paths: Sequence[str | os.PathLike], weights: list[np.ndarray] | None, chunk_lines: int, *,
                      tokenize: str = "13a", lowercase: bool = False, max_ngram_order: int = 4, ref_view: str = "all",
                      weight_threshold: float | None = None, delta_definition: str = "paper") -> StatsTable:
    """:func:`compute_stats_files` for large files: read into one buffer per chunk, encoded in place.

    Each chunk's lines of every file land in one buffer
    (:func:`bleustats.engine._lines.iter_line_buffers`); the encoder reads it
    where it lies, the references stay in file order (the statistics kernel
    reads segment ``s``'s rows ``k * n + s``), and nothing is copied, split
    into Arrow strings or reordered on the way. The same statistics as the
    route through :func:`compute_stats` (``tests/engine/test_lines.py``).
    """
    from ._columns import numeric, repeated
    from .encode import encode_line_blocks, segment_blocks, tokenize_buffer
    from ._lines import iter_line_buffers

    check_options(tokenize, max_ngram_order, ref_view, weight_threshold, delta_definition)
    n_streams = len(paths) - 1
    uniform = weights is None or all(bool((w == 1.0).all()) for w in weights)
    settings = _settings(max_ngram_order, tokenize, lowercase, ref_view, weight_threshold, delta_definition, uniform)
    timings = dict.fromkeys(("read_files", "tokenize", "encode", "kernel", "assemble"), 0.0)
    tables = []
    chunks = iter_line_buffers(paths, chunk_lines)
    while True:
        t0 = time.perf_counter()
        item = next(chunks, None)
        t1 = time.perf_counter()
        timings["read_files"] += t1 - t0
        if item is None:
            break
        first, n, data, offsets = item
        words = data.view(np.uint64)
        if tokenize != "none" or lowercase:  # 'none' is the encoder's own split
            data, offsets = tokenize_buffer(data, offsets, tokenize, lowercase=lowercase, padded=True)
            words = data.view(np.uint64)
        t2 = time.perf_counter()
        timings["tokenize"] += t2 - t1
        # blocks of segments: line s of every file (hypotheses, then each reference stream)
        bounds = segment_blocks(np.diff(offsets).reshape(n_streams + 1, n).sum(axis=0))
        ranges = np.empty((len(bounds) - 1, 2 * (n_streams + 1)), np.int64)
        for k in range(n_streams + 1):
            ranges[:, 2 * k] = k * n + bounds[:-1]
            ranges[:, 2 * k + 1] = k * n + bounds[1:]
        tok_off, ids, n_vocab = encode_line_blocks(data, offsets, ranges, words=words)
        t3 = time.perf_counter()
        timings["encode"] += t3 - t2
        # segment s's references: rows k * n + s of the reference lines, those of the view
        w = np.concatenate([x[first:first + n] for x in weights]) if weights is not None else np.ones(n_streams * n)
        rows = np.arange(n_streams)[None, :] * n + np.arange(n)[:, None]
        if ref_view == "first":
            rows = rows[:, :1]
        keep = w[rows] >= weight_threshold if ref_view == "threshold" else np.ones(rows.shape, bool)
        per_segment = keep.sum(axis=1)
        if not per_segment.all():
            raise _missing_references(first + np.flatnonzero(per_segment == 0), ref_view, weight_threshold)
        ref_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(per_segment, out=ref_ptr[1:])
        res = _statistics_kernel(ids, tok_off[: n + 1], np.arange(n + 1, dtype=np.int64), tok_off[n:],
                                 np.ascontiguousarray(rows[keep], dtype=np.int64), ref_ptr, w, max_ngram_order,
                                 delta_definition, n_vocab, np.diff(tok_off).reshape(n_streams + 1, n).sum(axis=0))
        t4 = time.perf_counter()
        timings["kernel"] += t4 - t3
        tables.append(_statistics_table(numeric(np.arange(first, first + n, dtype=np.int64)), repeated("hyp", n),
                                        res, settings))
        del data, offsets, words, ids, tok_off, res, item  # the next chunk reuses the buffer
        timings["assemble"] += time.perf_counter() - t4
    if not tables:
        return compute_stats([], [[] for _ in range(n_streams)], tokenize=tokenize, lowercase=lowercase,
                             max_ngram_order=max_ngram_order, ref_view=ref_view, weight_threshold=weight_threshold,
                             delta_definition=delta_definition)
    return StatsTable(pa.concat_tables(tables) if len(tables) > 1 else tables[0], timings)
