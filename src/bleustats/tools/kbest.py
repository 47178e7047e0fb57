r"""k-best (n-best) lists: streaming reader, per-entry statistics and scores, oracle selection.

A k-best list is many hypotheses per source sentence. :func:`score_nbest`
reads it in source-aligned chunks (memory stays bounded on files larger than
RAM; :mod:`bleustats.tools.nbest_io` reads and writes the files), computes
each chunk's statistics with :func:`bleustats.compute_stats` (each source's
references are indexed once for all its entries), scores every entry under
any list of sentence-level variants
(:data:`bleustats.metrics.sentence.SENTENCE_VARIANTS`) in the same pass,
writes the per-entry statistics and scores to Parquet and/or Moses'
``SCORES_TXT`` layout (and, with ``features_txt=``, the entries' dense
features as Moses' FEATURES_TXT, see :mod:`bleustats.tools.nbest_features`),
and keeps only one row per source for the oracle summaries.

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "nbest.txt"), "w") as f:
...     _ = f.write("0 ||| the cat sat on the mat ||| F0= -1 ||| -1.0\n"
...                 "0 ||| a cat sat on a mat ||| F0= -2 ||| -0.5\n"
...                 "1 ||| hello world again today ||| F0= -1 ||| -3.0\n")
>>> with open(os.path.join(d, "ref.txt"), "w") as f:
...     _ = f.write("the cat sat on the mat\nhello there world again today\n")
>>> res = score_nbest(os.path.join(d, "nbest.txt"), [os.path.join(d, "ref.txt")], tokenize="none",
...                   variants=["bleu+1"], output=os.path.join(d, "out.parquet"))
>>> res.n_entries, res.n_sources, round(res.oracles["bleu+1"].score, 2), round(res.one_best.score, 2)
(3, 2, 77.81, 32.51)
>>> import pyarrow.parquet as pq
>>> [round(v, 2) for v in pq.read_table(os.path.join(d, "out.parquet")).column("bleu+1").to_pylist()]
[100.0, 43.47, 55.07]
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .._validate import check_choice, renamed_keywords
from ..engine import io
from ..engine.stats import StatsTable, compute_stats
from ..errors import InputError
from ..metrics import sentence
from ..metrics.formula import METRICS
from ..metrics.tables import OTHER_METRICS, corpus_score, sentence_scores
from ..engine._options import REF_LENGTHS
from ..metrics.results import BLEUScore
from . import nbest_features
from .nbest_io import (DEFAULT_CHUNK_BYTES, check_sources, prefetched, read_references, scores_txt_text,
                       source_chunks)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "KBestResult",
    "check_variants",
    "one_best_rows",
    "oracle_rows",
    "score_nbest",
    "selection_bleu",
]


# --------------------------------------------------------------------------- selection


def _group_first_best(seg_id: np.ndarray, scores: np.ndarray) -> np.ndarray:
    seg_id = np.asarray(seg_id)
    scores = np.asarray(scores, dtype=np.float64)
    if seg_id.shape != scores.shape or seg_id.ndim != 1:
        raise InputError(f"seg_id and scores must be 1-D of the same length; got {seg_id.shape} and {scores.shape}.")
    if len(seg_id) == 0:
        return np.zeros(0, np.int64)
    key = np.where(np.isnan(scores), -np.inf, scores)
    if len(seg_id) == 1 or (seg_id[1:] >= seg_id[:-1]).all():  # grouped (k-best order): O(n), no sort
        starts = np.flatnonzero(np.r_[True, seg_id[1:] != seg_id[:-1]])
        best = np.maximum.reduceat(key, starts)
        hits = np.flatnonzero(key == np.repeat(best, np.diff(np.r_[starts, len(key)])))
        return hits[np.searchsorted(hits, starts)].astype(np.int64)
    order = np.lexsort((np.arange(len(seg_id)), -key, seg_id))
    s = seg_id[order]
    first = np.r_[True, s[1:] != s[:-1]]
    return order[first].astype(np.int64)


def oracle_rows(seg_id: Any, scores: Any) -> np.ndarray:
    """Row of the best-scoring entry of every source (ties: the earliest row), sources in id order.

    Examples
    --------
    >>> oracle_rows([0, 0, 0, 1, 1], [10.0, 30.0, 30.0, 5.0, 1.0]).tolist()
    [1, 3]
    """
    return _group_first_best(seg_id, scores)


def one_best_rows(seg_id: Any, model_score: Any = None) -> np.ndarray:
    """Row of the 1-best entry of every source under the model scores (ties or none: the earliest row).

    Examples
    --------
    >>> one_best_rows([0, 0, 1, 1], [-2.0, -1.0, -1.0, -1.0]).tolist()
    [1, 2]
    >>> one_best_rows([0, 0, 1]).tolist()
    [0, 2]
    """
    seg_id = np.asarray(seg_id)
    scores = np.zeros(len(seg_id)) if model_score is None else np.asarray(model_score, dtype=np.float64)
    return _group_first_best(seg_id, scores)


def selection_bleu(stats: StatsTable, rows: Any, **options: Any) -> BLEUScore:
    """Corpus BLEU of a selection of rows (an oracle, the 1-best, ...).

    ``options`` are those of :func:`bleustats.corpus_score` (``metric``,
    ``smooth_method``, ``ref_length``, ...). The length ratio :math:`c/r` is
    ``result.ratio`` (``result.sys_len / result.ref_len``).

    Examples
    --------
    >>> from bleustats.engine.stats import compute_stats
    >>> import pandas as pd
    >>> hyps = pd.DataFrame({"seg_id": [0, 0], "text": ["a b c d", "a b c x y"]})
    >>> st = compute_stats(hyps, pd.DataFrame({"seg_id": [0], "text": ["a b c d e"]}), tokenize="none",
    ...                    k_best=True)
    >>> r = selection_bleu(st, [0])
    >>> round(r.score, 2), round(r.ratio, 2)
    (77.88, 0.8)
    """
    return corpus_score(stats, rows=np.asarray(rows, dtype=np.int64), **options)


# --------------------------------------------------------------------------- pipeline


@dataclass(frozen=True)
class KBestResult:
    """Summary of :func:`score_nbest` (per-entry numbers are in the output files).

    Attributes
    ----------
    n_entries, n_sources : int
    variants : list of str
        Variants scored (column names of the Parquet output).
    one_best : BLEUScore
        Corpus BLEU of the 1-best under the model scores (the first entry of
        each source when there are none); ``.ratio`` is c/r.
    oracles : dict
        Variant name → corpus BLEU of the per-source best entry under it.
    missing_sources : int
        Sources of the references with no entry in the list (0 unless
        ``allow_missing_sources``; the summaries are over the others).
    timings : dict
        Seconds per stage: ``read_refs``, ``parse`` (on a reader thread,
        overlapped with the other stages), ``parse_wait`` (time spent waiting
        for it), ``prepare`` (input checks), ``tokenize``, ``encode``,
        ``kernel``, ``scoring``, ``select``, ``write``, ``total`` (wall).
    """

    n_entries: int
    n_sources: int
    variants: list[str]
    one_best: BLEUScore
    oracles: dict[str, BLEUScore]
    timings: dict[str, float] = field(default_factory=dict)
    missing_sources: int = 0

    def to_dict(self) -> dict[str, Any]:
        def summary(r: BLEUScore) -> dict[str, Any]:
            return {"score": r.score, "ratio": r.ratio, "sys_len": r.sys_len, "ref_len": r.ref_len,
                    "signature": str(r.signature)}

        return {"n_entries": self.n_entries, "n_sources": self.n_sources, "missing_sources": self.missing_sources,
                "variants": list(self.variants),
                "one_best": summary(self.one_best), "oracles": {k: summary(v) for k, v in self.oracles.items()},
                "timings": dict(self.timings)}


def check_variants(variants: Any) -> list[str]:
    """The variant names as a list: each registered (or 'chrf', 'chrf++', 'ter'), each once."""
    if isinstance(variants, str):
        variants = [variants]
    names = list(variants)
    for name in names:
        if name not in OTHER_METRICS:  # 'chrf' / 'chrf++' / 'ter': scored from their own statistics
            sentence.get_variant(name)  # raises with the allowed names
    if len(set(names)) != len(names):
        raise InputError(f"variants: each variant once; got {names}.")
    return names


@renamed_keywords(metrics="variants", metric_options="variant_options", statistic="metric",
                  max_order="max_ngram_order")
def score_nbest(
    nbest: str | os.PathLike | pd.DataFrame | pa.Table,
    references: Sequence[str | os.PathLike] | str | os.PathLike | pd.DataFrame | pa.Table,
    *,
    variants: Sequence[str] = ("bleu+1",),
    variant_options: Mapping[str, Mapping[str, Any]] | None = None,
    metric: str = "bleu",
    tokenize: str = "13a",
    lowercase: bool = False,
    max_ngram_order: int = 4,
    ref_length: str = "closest",
    output: str | os.PathLike | None = None,
    scores_txt: str | os.PathLike | None = None,
    features_txt: str | os.PathLike | None = None,
    keep_stats: bool = True,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[int, int], None] | None = None,
    allow_missing_sources: bool = False,
) -> KBestResult:
    r"""Statistics and sentence-level scores of every k-best entry, streamed, plus oracle summaries.

    For each source-aligned chunk: :func:`bleustats.compute_stats` on its
    entries and references (each source's references indexed once), then
    every variant of ``variants`` by :func:`bleustats.metrics.sentence.score_variants`
    (no per-entry loop), then the rows are appended to the outputs. Per source
    the oracle under each variant and the model 1-best are kept; their corpus
    BLEU is :math:`\mathrm{BLEU}(\sum_{i \in S} s_i)` over the selected rows.

    Parameters
    ----------
    nbest : path or table
        See :func:`bleustats.tools.nbest_io.read_nbest`.
    references : paths or table
        See :func:`bleustats.tools.nbest_io.read_references`.
    variants : list of str
        Registered variants (:data:`bleustats.metrics.sentence.SENTENCE_VARIANTS`,
        any ``nakov:`` combination), and ``'chrf'``, ``'chrf++'``, ``'ter'``
        (sentence chrF / chrF++ / TER with sacreBLEU's defaults, from statistics
        computed beside BLEU's; the TER oracle is the entry of lowest TER).
    variant_options : dict, optional
        Variant name → options (e.g. ``{"nakov:scaled": {"ilr": 0.97}}``).
    metric : {'bleu', 'delta_bleu'}
        Score plain or ΔBLEU-weighted statistics (weights from a references table).
    tokenize, lowercase
        As in :func:`bleustats.compute_stats`.
    max_ngram_order : int
        Order N of the scores (statistics are computed to N+1 when a variant
        needs it).
    ref_length : {'closest', 'shortest', 'average'}
        Reference length of the brevity penalties and of SCORES_TXT.
    output : path, optional
        Parquet file: ``seg_id``, ``entry``, ``model_score``, the statistics
        columns (when ``keep_stats``) and one float64 column per variant.
    scores_txt : path, optional
        Moses SCORES_TXT file of the BLEU statistics (order N).
    features_txt : path, optional
        Moses FEATURES_TXT file of the entries' dense features (Moses n-best
        input; every entry must have the same feature labels and counts).
    keep_stats : bool
        Include the statistics columns in ``output``.
    chunk_bytes : int
        Bytes parsed per step (bounds memory).
    progress : callable, optional
        Called after every chunk with ``(done, total)`` (bytes, or rows for tables).
    allow_missing_sources : bool
        Sources of the references with no entry in the list (a skipped id,
        or a list cut short) are an error naming them, since the summaries
        would silently cover fewer sources; ``True`` scores the others and
        counts the missing ones in ``result.missing_sources``.

    Returns
    -------
    KBestResult

    Examples
    --------
    >>> import pandas as pd
    >>> nb = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a b c d e", "a b c d x", "u v w x y"],
    ...                    "model_score": [-1.0, -0.5, 0.0]})
    >>> refs = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d e", "u v w x y z"]})
    >>> r = score_nbest(nb, refs, tokenize="none", variants=["bleu+1", "chen-cherry:7"])
    >>> round(r.oracles["bleu+1"].score, 2), round(r.one_best.score, 2), round(r.one_best.ratio, 3)
    (90.48, 75.79, 0.909)
    """
    t_start = time.perf_counter()
    names = check_variants(variants)
    variant_options = dict(variant_options or {})
    check_choice("metric", metric, METRICS)
    check_choice("ref_length", ref_length, REF_LENGTHS)
    order = sentence.required_order([n for n in names if n not in OTHER_METRICS], max_ngram_order)
    # every output is written to a temporary file that replaces it only when all succeeded
    outputs = [(key, path) for key, path in (("parquet", output), ("txt", scores_txt), ("features", features_txt))
               if path is not None]

    def nested(k: int, tmps: dict[str, str]) -> KBestResult:
        if k == len(outputs):
            return _run(nbest, references, names, variant_options, metric, tokenize, lowercase, max_ngram_order,
                        order, ref_length, tmps.get("parquet"), tmps.get("txt"), keep_stats, chunk_bytes, progress,
                        t_start, tmps.get("features"), allow_missing_sources)
        holder: dict[str, KBestResult] = {}
        key, path = outputs[k]

        def write(tmp: str) -> None:
            holder["r"] = nested(k + 1, {**tmps, key: tmp})

        io.write_atomic(path, write)
        return holder["r"]

    return nested(0, {})


def _name(obj: Any, default: str) -> str:
    """The file(s) of an input, for messages (a table is named by its role)."""
    if isinstance(obj, (str, os.PathLike)):
        return str(obj)
    if isinstance(obj, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in obj):
        return ", ".join(map(str, obj))
    return default


def _run(nbest, references, names, variant_options, metric, tokenize, lowercase, max_ngram_order, order,
         ref_length, parquet_path, txt_path, keep_stats, chunk_bytes, progress, t_start,
         features_path, allow_missing_sources) -> KBestResult:
    # parse = time spent parsing (on the reader thread, overlapped with the rest);
    # parse_wait = time the main thread waited for a parsed chunk
    timings = {k: 0.0 for k in ("parse", "parse_wait", "read_refs", "prepare", "tokenize", "encode", "kernel",
                                "assemble", "scoring", "select", "write")}
    t = time.perf_counter()
    refs = read_references(references)
    ref_seg = refs.column("seg_id").to_numpy()
    timings["read_refs"] = time.perf_counter() - t
    writer: pq.ParquetWriter | None = None
    txt = open(txt_path, "w", encoding="utf-8") if txt_path is not None else None
    feat = open(features_path, "w", encoding="utf-8") if features_path is not None else None
    layout = None
    n_entries = n_sources = 0
    selected: list[StatsTable] = []
    picks: dict[str, list[np.ndarray]] = {name: [] for name in ["1-best"] + names}
    offset = 0
    chunks = None
    sources: list[np.ndarray] = []  # the source ids seen, chunk by chunk (increasing)
    try:
        chunks = prefetched(source_chunks(nbest, chunk_bytes), timings, "parse")
        while True:
            t = time.perf_counter()
            try:
                chunk, done, total = next(chunks)
            except StopIteration:
                break
            timings["parse_wait"] += time.perf_counter() - t
            seg = chunk.column("seg_id").to_numpy()
            lo, hi = np.searchsorted(ref_seg, seg[0], "left"), np.searchsorted(ref_seg, seg[-1], "right")
            # sources without a reference (the chunk's); references without entries are checked at the end
            check_sources(seg, ref_seg[lo:hi], nbest=_name(nbest, "nbest"), references=_name(references, "references"),
                          allow_missing_sources=True)
            n = chunk.num_rows
            hyps = pa.table({"seg_id": chunk.column("seg_id"),
                             "system": pa.StringArray.from_buffers(n, pa.py_buffer(np.zeros(n + 1, np.int32)),
                                                                   pa.py_buffer(b"")),
                             "text": chunk.column("text")})
            others = [n for n in names if n in OTHER_METRICS]
            stats = compute_stats(hyps, refs.slice(lo, hi - lo), tokenize=tokenize, lowercase=lowercase,
                                  max_ngram_order=order, k_best=True, chunk_segments=1 << 30,
                                  metrics=("bleu", *others))
            for k in ("read", "tokenize", "encode", "kernel", "assemble"):
                timings["prepare" if k == "read" else k] += stats.timings.get(k, 0.0)
            t = time.perf_counter()
            scores = sentence.score_variants(stats, [n for n in names if n not in OTHER_METRICS], metric=metric,
                                             ref_length=ref_length, max_ngram_order=max_ngram_order,
                                             options=variant_options)
            scores.update({n: sentence_scores(stats, metric=n) for n in others})
            timings["scoring"] += time.perf_counter() - t
            t = time.perf_counter()
            model = chunk.column("model_score")
            model_np = model.to_numpy(zero_copy_only=False) if model.null_count < n else None
            if model_np is not None:
                model_np = np.where(np.isnan(model_np.astype(np.float64)), -np.inf, model_np)
            chunk_picks = {"1-best": one_best_rows(seg, model_np)}
            for name in names:
                chunk_picks[name] = oracle_rows(seg, -scores[name] if name == "ter" else scores[name])
            rows = np.unique(np.concatenate(list(chunk_picks.values())))
            selected.append(stats.select(rows))
            for name, r in chunk_picks.items():
                picks[name].append(np.searchsorted(rows, r) + offset)
            offset += len(rows)
            n_entries += n
            n_sources += len(chunk_picks["1-best"])
            sources.append(seg[chunk_picks["1-best"]])
            timings["select"] += time.perf_counter() - t
            t = time.perf_counter()
            if parquet_path is not None:
                cols: dict[str, Any] = {"seg_id": chunk.column("seg_id"), "entry": chunk.column("entry"),
                                        "model_score": model}
                if keep_stats:
                    for cname in stats.table.column_names:
                        if cname not in ("seg_id", "system"):
                            cols[cname] = stats.table.column(cname)
                for name in names:
                    cols[name] = scores[name]
                out = pa.table(cols)
                if writer is None:
                    meta = dict(stats.table.schema.metadata or {})
                    meta[b"bleustats.kbest.variants"] = json.dumps(names).encode()  # names may hold commas
                    meta[b"bleustats.kbest.metric"] = metric.encode()
                    meta[b"bleustats.kbest.score_order"] = str(max_ngram_order).encode()
                    writer = pq.ParquetWriter(parquet_path, out.schema.with_metadata(meta))
                    out_meta = meta
                writer.write_table(out.replace_schema_metadata(out_meta))
            if txt is not None:
                txt.write(scores_txt_text(stats, max_ngram_order=max_ngram_order, ref_length=ref_length))
            if feat is not None:
                if "features" not in chunk.column_names:
                    raise InputError("features_txt: the input has no features; FEATURES_TXT needs a Moses "
                                     "n-best list ('id ||| hypothesis ||| name= v1 v2 ... ||| total').")
                values, layout = nbest_features.parse_features(
                    chunk.column("features"), layout=layout, what=str(nbest), first_line=n_entries - n + 1)
                feat.write(nbest_features.format_features_txt(seg, values, layout))
            timings["write"] += time.perf_counter() - t
            if progress is not None:
                progress(done, total)
        if parquet_path is not None and writer is None:  # no entries: still write a valid (empty) file
            pq.write_table(pa.table({"seg_id": pa.array([], pa.int64())}), parquet_path)
    finally:
        if chunks is not None:
            chunks.close()  # stops the reader thread if we leave early
        if writer is not None:
            writer.close()
        if txt is not None:
            txt.close()
        if feat is not None:
            feat.close()
    if n_entries == 0:
        raise InputError("nbest: no entries; the k-best list is empty.")
    n_missing = check_sources(np.concatenate(sources), ref_seg, nbest=_name(nbest, "nbest"),
                              references=_name(references, "references"), allow_missing_sources=allow_missing_sources)
    t = time.perf_counter()
    sel = StatsTable(pa.concat_tables([s.table for s in selected]).combine_chunks()).up_to_order(max_ngram_order)
    opts = dict(metric=metric, ref_length=ref_length)
    one_best = selection_bleu(sel, np.concatenate(picks["1-best"]), **opts)
    oracles = {name: selection_bleu(sel, np.concatenate(picks[name]), **opts) for name in names}
    timings["select"] += time.perf_counter() - t
    timings["total"] = time.perf_counter() - t_start
    return KBestResult(n_entries, n_sources, names, one_best, oracles, timings, missing_sources=n_missing)
