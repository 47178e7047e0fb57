r"""k-best lists and their oracles on partitioned data: per-partition work, merged candidates.

:func:`score_nbest_dataset` is :func:`bleustats.tools.kbest.score_nbest` for a
k-best list stored as a partitioned hypotheses table (a folder of Parquet
parts, or one file cut at row groups; columns ``seg_id``, ``text`` and
optionally ``model_score``): each partition is one task (here, one after
another; or on a Dask cluster with :class:`bleustats.distributed.DaskExecutor`)
that computes its entries' statistics against its sources' references, scores
them under every variant, writes its part of the output dataset and returns,
per source, its best entry under each variant and the model's 1-best
(*candidates*), with those entries' statistics. The caller merges the
candidates (a source's entries may span batches: the best score wins, ties go
to the earliest entry, as in the in-memory selection) and scores the
selections. Only candidates travel: one row per source and variant.

:func:`kbest_oracles` does the same selection on a statistics table or
dataset already computed (no texts), e.g. to score other variants.

The results equal :func:`~bleustats.tools.kbest.score_nbest`'s on the same
entries (counts, per-entry scores, the selected entries, their corpus BLEU bit
for bit). Like a Moses n-best list, each source's entries must be together in
increasing id order, and in one partition.

Examples
--------
>>> import os, tempfile
>>> import pandas as pd
>>> nb = pd.DataFrame({"seg_id": [0, 0, 1, 1], "text": ["a b c d e", "a b c d x", "u v w x y", "u v w"],
...                    "model_score": [-1.0, -0.5, 0.0, -2.0]})
>>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d e", "u v w x y z"]})
>>> r = score_nbest_dataset(nb, refs, tokenize="none", partition_rows=2)
>>> round(r.oracles["bleu+1"].score, 2), round(r.one_best.score, 2), r.n_sources
(90.48, 75.79, 2)
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._validate import check_choice
from ..engine import io
from ..engine.dataset import (DEFAULT_BATCH_ROWS, DatasetWriter, LocalExecutor, StatsDataset, retitle,
                              write_part)
from ..engine._partitioned_stats import (DEFAULT_PARTITION_ROWS, HypothesesPartition, ReferenceIndex,
                                         hypotheses_partitions)
from ..engine.stats import StatsTable, compute_stats
from ..errors import InputError
from ..metrics import sentence
from ..metrics.formula import METRICS
from ..metrics.tables import OTHER_METRICS, sentence_scores
from ..engine._options import REF_LENGTHS
from .kbest import KBestResult, check_variants, one_best_rows, oracle_rows, selection_bleu
from .nbest_io import check_sources, read_references

__all__ = ["kbest_oracles", "merge_candidates", "oracle_candidates", "score_nbest_dataset"]

_ONE_BEST = "1-best"
_GID = "__row"
_SHIFT = 1 << 40  # global row id = partition index * _SHIFT + row within the partition


def oracle_candidates(seg: np.ndarray, scores: Mapping[str, np.ndarray], model_score: np.ndarray | None,
                      first_row: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per source of a batch, its best row under each score (and the model's 1-best): ``name → (seg, key, row)``.

    ``key`` is the score compared across batches (NaN as -inf; TER negated,
    lower is better); ``row`` is ``first_row`` + the row's position. Ties go to
    the earliest row, as :func:`~bleustats.tools.kbest.oracle_rows`.
    """
    keys = {_ONE_BEST: np.zeros(len(seg)) if model_score is None else model_score}
    keys.update({n: (-v if n == "ter" else v) for n, v in scores.items()})
    out = {}
    for name, key in keys.items():
        key = np.where(np.isnan(key), -np.inf, np.asarray(key, np.float64))
        rows = one_best_rows(seg, key) if name == _ONE_BEST else oracle_rows(seg, key)
        out[name] = (seg[rows], key[rows], rows.astype(np.int64) + first_row)
    return out


def merge_candidates(candidates: Sequence[Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]]]
                     ) -> dict[str, np.ndarray]:
    """The chosen row of every source under each name: highest key, ties to the lowest row; sources sorted."""
    out = {}
    for name in candidates[0]:
        seg = np.concatenate([c[name][0] for c in candidates])
        key = np.concatenate([c[name][1] for c in candidates])
        row = np.concatenate([c[name][2] for c in candidates])
        order = np.lexsort((row, -key, seg))
        first = np.r_[True, seg[order][1:] != seg[order][:-1]] if len(seg) else np.zeros(0, bool)
        out[name] = row[order][first]
    return out


def _selection(candidates: list, tables: list[pa.Table], names: Sequence[str], max_ngram_order: int,
               metric: str, ref_length: str) -> tuple[int, Any, dict[str, Any]]:
    """(sources, 1-best BLEU, oracle BLEU per name) from the candidates and their statistics rows."""
    picks = merge_candidates(candidates)
    sel = pa.concat_tables(tables)
    gid = sel.column(_GID).to_numpy()
    order = np.argsort(gid, kind="stable")
    stats = StatsTable(sel.drop_columns([_GID]).take(pa.array(order))).up_to_order(max_ngram_order)
    gid = gid[order]
    opts = dict(metric=metric, ref_length=ref_length)
    score = {name: selection_bleu(stats, np.searchsorted(gid, rows), **opts) for name, rows in picks.items()}
    return len(picks[_ONE_BEST]), score.pop(_ONE_BEST), {n: score[n] for n in names}


def _model_scores(batch: pa.Table) -> pa.Array:
    n = batch.num_rows
    if "model_score" not in batch.column_names:
        return pa.nulls(n, pa.float64())
    try:
        return pc.cast(batch.column("model_score"), pa.float64())
    except pa.ArrowInvalid as exc:
        raise InputError(f"nbest: column model_score must hold numbers ({exc}).") from None


def kbest_part_task(item: tuple[int, HypothesesPartition], *, folder: str | None, references: ReferenceIndex,
                    names: list[str], settings: dict[str, Any], batch_rows: int) -> dict[str, Any]:
    """One partition of a k-best list: statistics, scores, its output part and its candidates (runs on a worker)."""
    index, part = item
    t0 = time.perf_counter()
    s = settings
    others = [n for n in names if n in OTHER_METRICS]
    state: dict[str, Any] = {"rows": 0, "last": None, "entry": 0, "first": None}
    candidates, selected = [], []

    def outputs():
        for batch in part.batches(batch_rows, ("seg_id", "text", "model_score")):
            n = batch.num_rows
            hyps = io.as_hypotheses_table(batch.select(["seg_id", "text"]), k_best=True)
            seg = hyps.column("seg_id").to_numpy()
            prev = state["last"]
            full = seg if prev is None else np.r_[prev, seg]
            back = np.flatnonzero(full[1:] < full[:-1])
            if len(back):
                i = int(back[0])
                raise InputError(f"{part.label}: entry {state['rows'] + i + (1 if prev is None else 0) + 1}: source "
                                 f"id {int(full[i + 1])} after {int(full[i])}; each source's entries must be together, "
                                 "in increasing id order (as Moses writes n-best lists).")
            if n == 0:
                continue
            new = np.r_[prev is None or seg[0] != prev, seg[1:] != seg[:-1]]
            pos = np.arange(n)
            head = np.maximum.accumulate(np.where(new, pos, -1))  # first row of each row's source (-1: earlier)
            entry = np.where(head >= 0, pos - head, state["entry"] + pos)
            state["entry"] = int(entry[-1]) + 1
            state["first"] = int(seg[0]) if state["first"] is None else state["first"]
            state["last"] = int(seg[-1])
            hyps = hyps.set_column(1, "system", pa.array([""] * n, pa.string()))
            refs = references.for_segments(seg, where=part.label)
            try:
                stats = compute_stats(hyps, refs, tokenize=s["tokenize"], lowercase=s["lowercase"],
                                      max_ngram_order=s["order"], chunk_segments=1 << 30, metrics=("bleu", *others),
                                      k_best=True)
            except InputError as exc:
                raise InputError(f"{part.label}: {exc}") from None
            table = retitle(stats.table, {b"bleustats.weights": b"uniform" if references.uniform else b"custom"})
            stats = StatsTable(table)
            scores = sentence.score_variants(stats, [x for x in names if x not in OTHER_METRICS], metric=s["metric"],
                                             ref_length=s["ref_length"], max_ngram_order=s["max_ngram_order"],
                                             options=s["variant_options"])
            scores.update({x: sentence_scores(stats, metric=x) for x in others})
            model = _model_scores(batch)
            model_np = model.to_numpy(zero_copy_only=False) if model.null_count < n else None
            first_row = index * _SHIFT + state["rows"]
            cands = oracle_candidates(seg, scores, model_np, first_row)
            rows = np.unique(np.concatenate([c[2] for c in cands.values()])) - first_row
            selected.append(stats.table.take(pa.array(rows)).append_column(_GID, pa.array(rows + first_row)))
            candidates.append(cands)
            state["rows"] += n
            if folder is not None:
                cols: dict[str, Any] = {"seg_id": hyps.column("seg_id"), "entry": pa.array(entry.astype(np.int32)),
                                        "model_score": model}
                if s["keep_stats"]:
                    cols.update({c: stats.table.column(c) for c in stats.table.column_names
                                 if c not in ("seg_id", "system")})
                cols.update({x: scores[x] for x in names})
                meta = dict(stats.table.schema.metadata or {})
                meta[b"bleustats.kbest.variants"] = json.dumps(names).encode()
                meta[b"bleustats.kbest.metric"] = s["metric"].encode()
                meta[b"bleustats.kbest.score_order"] = str(s["max_ngram_order"]).encode()
                yield pa.table(cols).replace_schema_metadata(meta)
        if folder is not None and state["rows"] == 0:
            yield pa.table({"seg_id": pa.array([], pa.int64())})

    entry_ = write_part(folder, index, outputs()) if folder is not None else {"rows": None}
    if folder is None:
        for _ in outputs():
            pass
    return {**entry_, "entries": state["rows"], "first_seg": state["first"], "last_seg": state["last"],
            "candidates": candidates, "selected": selected, "seconds": time.perf_counter() - t0, "pid": os.getpid()}


def score_nbest_dataset(
    nbest: Any,
    references: Any,
    output: str | os.PathLike | None = None,
    *,
    executor: Any = None,
    variants: Sequence[str] = ("bleu+1",),
    variant_options: Mapping[str, Mapping[str, Any]] | None = None,
    metric: str = "bleu",
    tokenize: str = "13a",
    lowercase: bool = False,
    max_ngram_order: int = 4,
    ref_length: str = "closest",
    keep_stats: bool = True,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    partition_rows: int = DEFAULT_PARTITION_ROWS,
    allow_missing_sources: bool = False,
) -> KBestResult:
    r"""Per-entry statistics and scores of a partitioned k-best list, and its 1-best and oracle corpus BLEU.

    Parameters
    ----------
    nbest : path or table
        A folder of Parquet parts, a ``.parquet`` file or a table with
        ``seg_id``, ``text`` and optionally ``model_score``
        (:func:`~bleustats.engine._partitioned_stats.hypotheses_partitions`).
    references : paths or table
        As :func:`~bleustats.tools.nbest_io.read_references`.
    output : path, optional
        Dataset folder of the per-entry rows (part ``i`` from partition ``i``;
        the columns of :func:`~bleustats.tools.kbest.score_nbest`'s output),
        written whole or not at all.
    executor : optional
        :class:`~bleustats.engine.dataset.LocalExecutor` (default) or
        :class:`bleustats.distributed.DaskExecutor`.
    variants, variant_options, metric, tokenize, lowercase, max_ngram_order, ref_length, keep_stats
        As :func:`~bleustats.tools.kbest.score_nbest`.
    allow_missing_sources : bool
        As :func:`~bleustats.tools.kbest.score_nbest`: sources of the
        references with no entry are an error (nothing written) unless True.
    batch_rows, partition_rows
        Entries per step within a partition (bounds memory); entries per
        partition when cutting one file or table.

    Returns
    -------
    KBestResult
        ``timings`` has ``total`` (wall) and ``tasks`` (seconds summed over
        the partitions' tasks).
    """
    t_start = time.perf_counter()
    names = check_variants(variants)
    check_choice("metric", metric, METRICS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    order = sentence.required_order([n for n in names if n not in OTHER_METRICS], max_ngram_order)
    refs = ReferenceIndex(read_references(references))
    parts = hypotheses_partitions(nbest, partition_rows=partition_rows)
    settings = dict(metric=metric, tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_ngram_order,
                    order=order, ref_length=ref_length, keep_stats=keep_stats,
                    variant_options={k: dict(v) for k, v in (variant_options or {}).items()})
    compute_stats(pa.table({"seg_id": pa.array([], pa.int64()), "text": pa.array([], pa.string())}),
                  refs.table.slice(0, 0), tokenize=tokenize, lowercase=lowercase, max_ngram_order=order)
    executor = executor or LocalExecutor()
    kw = dict(references=refs, names=names, settings=settings, batch_rows=batch_rows)
    if output is None:
        results = list(executor.map(kbest_part_task, list(enumerate(parts)), folder=None, **kw))
        missing = _check_results(results, parts, refs, allow_missing_sources=allow_missing_sources)
    else:
        with DatasetWriter(output) as writer:
            results = list(executor.map(kbest_part_task, list(enumerate(parts)), folder=str(writer.folder), **kw))
            missing = _check_results(results, parts, refs, allow_missing_sources=allow_missing_sources)
            writer.commit(results, statistics=False)
    n_entries = sum(r["entries"] for r in results)
    candidates = [c for r in results for c in r["candidates"]]
    tables = [t for r in results for t in r["selected"]]
    n_sources, one_best, oracles = _selection(candidates, tables, names, max_ngram_order, metric, ref_length)
    timings = {"tasks": float(sum(r["seconds"] for r in results)), "total": time.perf_counter() - t_start}
    return KBestResult(n_entries, n_sources, names, one_best, oracles, timings, missing_sources=missing)


def _check_results(results: list[dict[str, Any]], parts: list[HypothesesPartition], refs: ReferenceIndex, *,
                   allow_missing_sources: bool = False) -> int:
    """Sources split across partitions, an empty list or (unless allowed) sources with no entry fail; returns
    the number of sources of the references with no entry."""
    _check_boundaries(results, parts)
    if sum(r["entries"] for r in results) == 0:
        raise InputError("nbest: no entries; the k-best list is empty.")
    seen = np.unique(np.concatenate([c[_ONE_BEST][0] for r in results for c in r["candidates"]]))
    return check_sources(seen, refs.seg, allow_missing_sources=allow_missing_sources)  # as kbest and tune


def _check_boundaries(results: list[dict[str, Any]], parts: list[HypothesesPartition]) -> None:
    last, where = None, None
    for r, p in zip(results, parts):
        if r["first_seg"] is None:
            continue
        if last is not None and r["first_seg"] <= last:
            raise InputError(f"nbest: {p.label} starts with source id {r['first_seg']}, but {where} ends with "
                             f"{last}; each source's entries must be in one partition, in increasing id order "
                             "(write the parts sorted by seg_id, cut between sources).")
        last, where = r["last_seg"], p.label


def kbest_oracles(
    stats: StatsTable | StatsDataset,
    variants: Sequence[str] = ("bleu+1",),
    *,
    variant_options: Mapping[str, Mapping[str, Any]] | None = None,
    metric: str = "bleu",
    max_ngram_order: int | None = None,
    ref_length: str = "closest",
) -> KBestResult:
    """The 1-best and per-variant oracle corpus BLEU of a k-best list's statistics (a table or a dataset).

    Rows of one ``seg_id`` are one source's entries (in any part); the 1-best
    is the entry of highest ``model_score`` when the table has that column,
    else each source's first entry. ``max_ngram_order`` defaults to the
    table's (one less when a variant reads order N+1).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> st = compute_stats(pd.DataFrame({"seg_id": [0, 0], "text": ["a b c d", "a b c x"]}),
    ...                    pd.DataFrame({"seg_id": [0], "text": ["a b c x"]}), tokenize="none", k_best=True)
    >>> r = kbest_oracles(st)
    >>> round(r.one_best.score, 2), round(r.oracles["bleu+1"].score, 2)
    (59.46, 100.0)
    """
    t_start = time.perf_counter()
    names = check_variants(variants)
    check_choice("metric", metric, METRICS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    n = stats.max_ngram_order if max_ngram_order is None else max_ngram_order
    if max_ngram_order is None and sentence.required_order([x for x in names if x not in OTHER_METRICS], n) > n:
        n -= 1  # a variant reads order N+1
    settings = dict(metric=metric, ref_length=ref_length, max_ngram_order=n,
                    variant_options={k: dict(v) for k, v in (variant_options or {}).items()})
    results = stats.map_batches(_oracle_batch, names=names, settings=settings)
    offset = 0
    for r in results:  # batch rows → row positions in the whole table (ties go to the earliest row)
        r["candidates"] = [{k: (seg, key, row + offset) for k, (seg, key, row) in c.items()} for c in r["candidates"]]
        r["selected"] = [t.set_column(t.schema.get_field_index(_GID), _GID,
                                      pa.array(t.column(_GID).to_numpy() + offset)) for t in r["selected"]]
        offset += r["entries"]
    n_entries = sum(r["entries"] for r in results)
    if n_entries == 0:
        raise InputError("stats: no rows; a k-best list needs entries.")
    candidates = [c for r in results for c in r["candidates"]]
    tables = [t for r in results for t in r["selected"]]
    n_sources, one_best, oracles = _selection(candidates, tables, names, n, metric, ref_length)
    return KBestResult(n_entries, n_sources, names, one_best, oracles, {"total": time.perf_counter() - t_start})


def _oracle_batch(stats: StatsTable, *, names: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    """The candidates of one batch of rows (rows numbered from the batch's first; runs where the rows are)."""
    others = [n for n in names if n in OTHER_METRICS]
    scores = sentence.score_variants(stats, [x for x in names if x not in OTHER_METRICS], metric=settings["metric"],
                                     ref_length=settings["ref_length"], max_ngram_order=settings["max_ngram_order"],
                                     options=settings["variant_options"])
    scores.update({x: sentence_scores(stats, metric=x) for x in others})
    model = stats.column("model_score").astype(np.float64) if "model_score" in stats.table.column_names else None
    cands = oracle_candidates(stats.column("seg_id"), scores, model, 0)
    take = np.unique(np.concatenate([c[2] for c in cands.values()]))
    return {"candidates": [cands], "entries": len(stats),
            "selected": [stats.table.take(pa.array(take)).append_column(_GID, pa.array(take))]}
