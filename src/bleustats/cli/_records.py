"""What ``score`` and ``demo`` give as data: score records (``--json``) and the per-segment scores table.

One record shape, declared in ``data_schemas/score_records.json``: one record per
metric and group (the corpus, a system, a value of ``--by``), every field
present (null where it does not apply), every number at full precision.
:func:`records` makes them from the scores of a statistics table.
``--segment-scores FILE`` writes ``data_schemas/segment_scores.json``: every
system's score of every segment under every metric, as TSV, JSON lines or
Parquet by the file's extension (:func:`segment_scores`, :func:`write_segment_scores`).

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> from bleustats.metrics.tables import corpus_score
>>> st = compute_stats(["a b c d", "x y"], [["a b c e", "x y"]], max_ngram_order=2)
>>> [r["score"] for r in records(st, ["bleu"], by=None, options={})] == [corpus_score(st).score]
True
>>> segment_scores(st, ["bleu"], options={}).column_names
['system', 'seg_id', 'bleu']
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import InputError
from ._options import SEGMENT_FORMATS

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["records", "segment_scores", "signature", "write_segment_scores"]
#: Display names of the BLEU family (chrF's and TER's come from their scores).
_NAMES = {"bleu": "BLEU", "delta_bleu": "ΔBLEU"}


def _blank(order: int) -> dict[str, Any]:
    from ..engine import schemas

    return dict.fromkeys(schemas.arrow_schema("score_records", max_ngram_order=order).names)


def _number(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def signature(stats: Any, metric: str, result: Any) -> str:
    """The signature of ``metric``'s score ``result`` of ``stats`` (chrF's and TER's from the table's settings)."""
    if metric in _NAMES:
        return str(result.signature)
    from ..metrics.tables import table_metric_of

    return str(table_metric_of(stats, metric).get_signature())


def records(stats: Any, metrics: Sequence[str], *, by: str | None, options: dict[str, Any],
            allow_partial: bool = False) -> list[dict[str, Any]]:
    """The score records of ``stats``: per metric, the corpus score (``by=None``) or one per group of ``by``.

    ``options`` are the BLEU scoring options (``smooth_method``, ``smooth_value``,
    ``use_effective_order``, ``ref_length``); chrF and TER take theirs from the table.
    """
    from ..metrics.tables import corpus_scores
    from ..metrics.tables import corpus_score as score

    order = stats.max_ngram_order
    out: list[dict[str, Any]] = []
    for metric in metrics:
        bleu = metric in _NAMES
        if by is None:
            result = score(stats, metric=metric, **(options if bleu else {}))
            out.append(_from_result(metric, result, signature(stats, metric, result), order))
            continue
        frame = corpus_scores(stats, by=by, metric=metric, allow_partial=allow_partial, **(options if bleu else {}))
        name = _NAMES[metric] if bleu else score(stats, metric=metric, rows=[0]).name
        out += _from_frame(metric, name, frame, by, order)
    return out


def _from_result(metric: str, result: Any, signature: str, order: int) -> dict[str, Any]:
    rec = _blank(order)
    rec.update(metric=metric, name=result.name, score=float(result.score), signature=signature)
    if metric in _NAMES:
        d = result.to_dict()
        match, total = ("match", "total") if metric == "bleu" else ("wmatch", "wtotal")
        rec.update(bp=float(d["bp"]), sys_len=int(d["sys_len"]), ref_len=float(d["ref_len"]))
        for n in range(order):
            rec[f"precision_{n + 1}"] = float(d["precisions"][n])
            rec[f"{match}_{n + 1}"] = d["counts"][n]
            rec[f"{total}_{n + 1}"] = d["totals"][n]
    return rec


def _from_frame(metric: str, name: str, frame: Any, by: str, order: int) -> list[dict[str, Any]]:
    base = _blank(order)
    keep = [c for c in frame.columns if c in base and c not in ("by", "group")]
    coverage = frame.attrs.get("coverage")
    out = []
    for row in frame.to_dict(orient="records"):
        rec = dict(base)
        rec.update(metric=metric, name=name, by=by, group=str(row[by]), signature=frame.attrs["signature"])
        if coverage is not None:
            rec["all_segments"] = int(coverage["segments"])
        rec.update({c: _number(row[c]) for c in keep})
        rec["score"] = float(rec["score"])
        for c in ("bp", "ref_len"):
            if rec[c] is not None:
                rec[c] = float(rec[c])
        out.append(rec)
    return out


def segment_scores(stats: Any, metrics: Sequence[str], *, options: dict[str, Any]) -> pa.Table:
    """Every row's score under every metric: ``system``, ``seg_id`` and one column per metric.

    Each row is scored alone (:func:`bleustats.metrics.tables.sentence_scores`,
    as sacreBLEU's ``-sl``: BLEU and ΔBLEU with effective order and ``options``'
    smoothing; chrF and TER with the table's options).
    """
    import pyarrow as pa

    from ..engine import schemas
    from ..metrics.tables import score_signature, sentence_scores, table_metric_of

    table = stats.to_table() if hasattr(stats, "to_table") else stats
    bleu_options = {k: v for k, v in options.items() if k in ("smooth_method", "smooth_value", "ref_length")}
    columns: dict[str, Any] = {"system": table.table.column("system").cast(pa.string()),
                               "seg_id": table.table.column("seg_id")}
    signatures = {}
    for metric in dict.fromkeys(metrics):
        bleu = metric in _NAMES
        columns[metric] = pa.array(sentence_scores(table, metric=metric, use_effective_order=True,
                                                   **(bleu_options if bleu else {})), pa.float64())
        signatures[f"bleustats.signature.{metric}".encode()] = str(
            score_signature(table, metric=metric, use_effective_order=True, **bleu_options) if bleu
            else table_metric_of(table, metric).get_signature()).encode()
    schema = schemas.arrow_schema("segment_scores")
    fields = pa.schema([schema.field(name) for name in columns], metadata=signatures)
    return pa.table(list(columns.values()), schema=fields)


def write_segment_scores(path: str | os.PathLike, table: pa.Table) -> None:
    """Write the segment scores table whole or not at all, as the extension of ``path`` says (Parquet keeps each
    metric's signature in its metadata, ``bleustats.signature.<metric>``)."""
    from ..engine import io, schemas

    schemas.validate(table, "segment_scores", param="--segment-scores")  # the declared columns, one row each
    suffix = Path(path).suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        io.write_atomic(path, lambda tmp: pq.write_table(table, tmp))
    elif suffix == ".jsonl":
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in table.to_pylist())
        io.write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    elif suffix == ".tsv":
        for name in ("system",):
            bad = [s for s in table.column(name).to_pylist() if "\t" in s or "\n" in s]
            if bad:
                raise InputError(f"--segment-scores {path}: system name {bad[0]!r} holds a tab or a newline, "
                                 "which a TSV cannot; write .jsonl or .parquet.")
        header = "\t".join(table.column_names) + "\n"
        rows = zip(*(table.column(c).to_pylist() for c in table.column_names))
        text = header + "".join("\t".join(map(_cell, row)) + "\n" for row in rows)
        io.write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    else:
        raise InputError(f"--segment-scores {path}: the extension picks the format: {', '.join(SEGMENT_FORMATS)}.")


def _cell(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)
