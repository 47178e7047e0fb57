r"""Compare systems the way people look at them: compare-mt's analyses, and more, from one statistics table.

:func:`compare` scores any number of systems on the same segments, each
against a baseline, and returns tidy records (:class:`Comparison`): one per
number, ``{"analysis", "bucket", "system", "value", ...}`` with a paired
bootstrap interval and p-value where they apply (``data_schemas/compare.json``
describes every field and analysis). Everything is computed from one
statistics table (:func:`bleustats.compute_stats`, BLEU / chrF / TER columns)
and one pass over the texts' token ids; the buckets are groups of rows, and
the bootstrap is one set of sacreBLEU's draws shared by every bucket, metric
and system (:mod:`bleustats.tools._compare_resample`).

compare-mt's analyses (Neubig et al., 2019), with its definitions (its
defaults for the bucket boundaries, its labels, and with ``tokenize='none'``
its whitespace split):

``bleu``, ``length_ratio``
    compare-mt's corpus BLEU (:func:`compare_mt_bleu`) and
    :math:`\sum |h| / \sum |r|`.
``word_fmeasure_by_frequency`` (and ``word_precision_…``, ``word_recall_…``)
    Words bucketed by their frequency in the references (or ``freq_corpus``);
    a word matches :math:`\min(\#w(h), \#w(r))` times per segment.
``bleu_by_length``
    BLEU of the segments bucketed by reference length.
``count_by_length_difference``, ``count_by_sentence_bleu``
    Segments per bucket of :math:`|h| - |r|` and of sentence BLEU (NLTK's
    ``sentence_bleu`` with Chen & Cherry's method 2, as compare-mt scores it).
``ngram_match`` (``ngram_over``, ``ngram_under``)
    compare-mt's n-gram difference analysis: the n-grams one system matches
    (over-, under-produces) more than the other, scored by
    :math:`(c_b + \alpha) / (c_b + c_s + 2\alpha)` (baseline count :math:`c_b`).
``sentence_examples``
    The segments where the systems' sentence BLEU differs most.

Beyond compare-mt: ``chrf``, ``ter`` and ``delta_bleu`` (ΔBLEU with the
references' weights) for the corpus and every bucket (``chrf_by_length``,
...), user-supplied segment labels as buckets (``*_by_label``), any number of
systems each tested against the baseline, and intervals and p-values for every
bucket from the same resamples.

References
----------
.. [1] Neubig, G., Dou, Z.-Y., Hu, J., Michel, P., Pruthi, D., Wang, X. (2019).
   compare-mt: A tool for holistic comparison of language generation systems.
   NAACL (demonstrations); compare-mt 0.2.10.
.. [2] Koehn, P. (2004). Statistical significance tests for machine translation
   evaluation. EMNLP.

Examples
--------
>>> refs = [["the cat sat on the mat", "a dog ran in the park", "it is raining in paris today"]]
>>> hyps = {"A": ["the cat sat on the mat", "a dog ran to the park", "it rains in paris today"],
...         "B": ["the cat sat on a mat", "a dog is in a park", "it is raining in paris"]}
>>> result = compare(hyps, refs, metrics=("bleu",), n_samples=100)
>>> [(r["system"], round(r["value"], 2)) for r in result.select("bleu")]
[('A', 56.5), ('B', 50.18)]
>>> r = result.select("bleu", system="B")[0]
>>> r["baseline"], r["p_value"] is not None, r["ci_low"] <= r["value"] <= r["ci_high"]
('A', True, True)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from .._validate import check_choice, check_count, check_number
from ..engine import io, schemas
from ..engine.stats import StatsTable, apply_ref_view, compute_stats
from ..errors import InputError
from ..metrics.formula import bleu_scores
from ..metrics.results import Signature, bleu_signature
from ._compare_resample import Block, block_sums, summarize

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["ANALYSES", "BLEU_DEFINITIONS", "COMPARE_METRICS", "FREQUENCY_BUCKETS", "LENGTH_BUCKETS",
           "LENGTH_DIFFERENCE_BUCKETS", "NGRAM_COMPARE_TYPES", "SENTENCE_BLEU_BUCKETS", "Comparison", "bucket_labels",
           "compare", "compare_mt_bleu"]

#: Metrics scored for the corpus and every bucket.
COMPARE_METRICS = ("bleu", "chrf", "ter", "delta_bleu")
#: ``compare-mt``: its corpus and sentence BLEU; ``sacrebleu``: sacreBLEU's (exp smoothing, eff. order per sentence).
BLEU_DEFINITIONS = ("compare-mt", "sacrebleu")
#: compare-mt's ``compare_type`` of the n-gram analysis.
NGRAM_COMPARE_TYPES = ("match", "over", "under")
#: compare-mt's default bucket boundaries (a value v is in the first bucket whose boundary exceeds it).
LENGTH_BUCKETS = (10, 20, 30, 40, 50, 60)
LENGTH_DIFFERENCE_BUCKETS = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)
SENTENCE_BLEU_BUCKETS = tuple(x * 100 / 10.0 for x in range(1, 10))
FREQUENCY_BUCKETS = (1, 2, 3, 4, 5, 10, 100, 1000)
#: Every analysis name a record can carry (``data_schemas/compare.json`` describes each).
ANALYSES = ("bleu", "length_ratio", "chrf", "ter", "delta_bleu",
            "word_fmeasure_by_frequency", "word_precision_by_frequency", "word_recall_by_frequency",
            "bleu_by_length", "chrf_by_length", "ter_by_length", "delta_bleu_by_length",
            "count_by_length_difference", "count_by_sentence_bleu",
            "bleu_by_label", "chrf_by_label", "ter_by_label", "delta_bleu_by_label",
            "ngram_match", "ngram_over", "ngram_under", "sentence_examples")


def bucket_labels(cutoffs: Sequence[float], *, integer: bool = True) -> list[str]:
    """compare-mt's bucket labels (``Bucketer.set_bucket_cutoffs``): ``<a``, ``[a,b)`` or ``a``, ``>=z``.

    With ``integer``, a bucket holding one integer is named by it (``[4,5)`` is ``4``).

    Examples
    --------
    >>> bucket_labels([1, 2, 5])
    ['<1', '1', '[2,5)', '>=5']
    >>> bucket_labels([10.0, 20.0], integer=False)
    ['<10.0', '[10.0,20.0)', '>=20.0']
    """
    labels = []
    for i, x in enumerate(cutoffs):
        if i == 0:
            labels.append(f"<{x}")
        elif integer and x - 1 == cutoffs[i - 1]:
            labels.append(f"{x - 1}")
        else:
            labels.append(f"[{cutoffs[i - 1]},{x})")
    labels.append(f">={cutoffs[-1]}")
    return labels


def _bucket_of(values: NDArray[Any], cutoffs: Sequence[float]) -> NDArray[np.int64]:
    """compare-mt's ``cutoff_into_bucket``: the index of the first boundary above the value."""
    return np.searchsorted(np.asarray(cutoffs, dtype=np.float64), values, side="right").astype(np.int64)


def compare_mt_bleu(correct: NDArray[Any], total: NDArray[Any], sys_len: NDArray[Any], ref_len: NDArray[Any]
                    ) -> NDArray[np.float64]:
    r"""compare-mt's corpus BLEU of rows of summed statistics (``BleuScorer.score_cached_corpus``).

    The BLEU formula (:func:`bleustats.metrics.formula.bleu_scores`, no
    smoothing) with compare-mt's two rules: each segment's n-gram count is at
    least 1 (``total`` holds :math:`\sum_i \max(1, t_{i,n})`), and an order
    with no match counts as precision 1 (:math:`\log p_n = 0`) unless no
    unigram matches (then BLEU is 0):

    .. math::

        \mathrm{BLEU} = 100 \cdot \min(1, e^{1 - r/c}) \cdot
            \exp\Big(\tfrac1N \sum_{n: m_n > 0} \log \frac{m_n}{t_n}\Big)

    Examples
    --------
    >>> m, t = np.array([[5, 3, 0, 0]]), np.array([[6, 5, 4, 3]])   # (5/6 * 3/5 * 1 * 1) ** (1/4)
    >>> compare_mt_bleu(m, t, np.array([6]), np.array([6])).round(4)
    array([84.0896])
    """
    correct, total = np.asarray(correct, np.float64), np.asarray(total, np.float64)
    some = correct[..., :1] > 0
    adjusted = np.where((correct == 0) & some, total, correct)
    scores = bleu_scores(adjusted, total, sys_len, ref_len, smooth_method="none")
    return np.where(some[..., 0], scores, 0.0)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Comparison:
    """The records of :func:`compare`: one per number, in a stable order.

    Attributes
    ----------
    records : tuple of dict
        Tidy records (``data_schemas/compare.json``): ``analysis``, ``bucket``
        (None for a corpus value), ``system``, ``value``, and where they apply
        ``ci_low``, ``ci_high``, ``p_value`` (against ``baseline``), ``count``
        and the analysis' own fields.
    systems : tuple of str
        In input order.
    baseline : str
    signatures : dict of str to str
        The signature of every analysis (the settings of each of its numbers).
    settings : dict
        The options the comparison ran with.
    """

    records: tuple[dict[str, Any], ...]
    systems: tuple[str, ...]
    baseline: str
    signatures: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def analyses(self) -> list[str]:
        """The analyses present, in record order."""
        return list(dict.fromkeys(r["analysis"] for r in self.records))

    def select(self, analysis: str, *, system: str | None = None) -> list[dict[str, Any]]:
        """The records of ``analysis`` (of one system)."""
        return [r for r in self.records if r["analysis"] == analysis and (system is None or r["system"] == system)]

    def to_table(self) -> pa.Table:
        """The records as an Arrow table of the ``compare`` schema (validated)."""
        import pyarrow as pa

        schema = schemas.arrow_schema("compare")
        rows = {f.name: [r.get(f.name) for r in self.records] for f in schema}
        return schemas.validate(pa.Table.from_pydict(rows, schema=schema), "compare", param="records")

    def to_frame(self) -> pd.DataFrame:
        """The records as a pandas DataFrame (one column per schema field)."""
        return self.to_table().to_pandas()

    def to_json(self) -> str:
        """The records as a JSON list: full precision; ``analysis``, ``bucket``, ``system``, ``value`` always
        (``bucket`` null for a corpus value), other fields only where they have a value."""
        always = ("analysis", "bucket", "system", "value")
        return json.dumps([{k: v for k, v in r.items() if v is not None or k in always} for r in self.records],
                          ensure_ascii=False)


# --------------------------------------------------------------------------- inputs


def _check_cutoffs(name: str, cutoffs: Any) -> tuple[float, ...]:
    values = tuple(cutoffs) if not isinstance(cutoffs, (str, bytes)) else ()
    ok = values and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                        and math.isfinite(v) for v in values)
    if not ok or any(b <= a for a, b in zip(values, values[1:])):
        raise InputError(f"{name} must be increasing finite numbers (bucket boundaries); got {cutoffs!r}. "
                         f"Example: {LENGTH_BUCKETS!r}.")
    return tuple(int(v) if float(v).is_integer() and isinstance(v, (int, np.integer)) else float(v) for v in values)


def _hypotheses_table(hypotheses: Any) -> tuple[pa.Table, int | None]:
    """The hypotheses as one long-form table, and the segment count of list input (None for a table)."""
    import pyarrow as pa

    if io.is_table(hypotheses):
        return io.as_hypotheses_table(hypotheses), None
    if not isinstance(hypotheses, Mapping) or not hypotheses:
        raise InputError("hypotheses must be a dict of system name -> list of strings (one per segment), a "
                         f"hypotheses table (seg_id, system, text) or a StatsTable; got {type(hypotheses).__name__}.")
    lengths = {name: len(lines) for name, lines in hypotheses.items()}
    if len(set(lengths.values())) != 1:
        raise InputError(f"hypotheses: every system needs one line per segment; got {lengths}.")
    tables = [io.as_hypotheses_table(list(lines), system=str(name)) for name, lines in hypotheses.items()]
    return pa.concat_tables(tables), next(iter(lengths.values()))


def _system_rows(table: pa.Table) -> tuple[list[str], dict[str, NDArray[np.int64]], NDArray[np.int64]]:
    """Systems in input order, each system's rows ordered by seg_id, and the segments (sorted)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not table.num_rows:
        raise InputError("hypotheses: no segment to compare; give at least one hypothesis per system.")
    system = table.column("system")
    names = pc.unique(system).to_pylist()
    seg = np.asarray(table.column("seg_id"), dtype=np.int64) if table.num_rows else np.zeros(0, np.int64)
    codes = np.asarray(pc.index_in(system, value_set=pa.array(names)), dtype=np.int64)
    rows, segments = {}, None
    for i, name in enumerate(names):
        idx = np.flatnonzero(codes == i)
        idx = idx[np.argsort(seg[idx], kind="stable")]
        rows[name] = idx
        if segments is None:
            segments = seg[idx]
        elif len(idx) != len(segments) or not np.array_equal(seg[idx], segments):
            have = set(seg[idx].tolist())
            want = set(segments.tolist())
            diff = sorted(want ^ have)[:5]
            raise InputError(f"hypotheses: system {name!r} covers other segments than {names[0]!r} (seg_id "
                             f"{', '.join(map(str, diff))} ...); every system must have one hypothesis for each "
                             "segment.")
    if not names or segments is None or len(segments) == 0:
        raise InputError("hypotheses: no segment to compare; give at least one hypothesis per system.")
    return names, rows, segments


# --------------------------------------------------------------------------- per-segment matrices


@dataclass(frozen=True)
class _Layout:
    """The columns of each system's per-segment matrix, by name, and the chrF / TER objects that score them."""

    slices: dict[str, slice]
    width: int
    objects: dict[str, Any]


def _row_matrix(stats: StatsTable, metrics: Sequence[str], definition: str) -> tuple[NDArray[np.float64], _Layout]:
    """Every row's statistics as one matrix: ``segments | hyp_len | ref_len | match | total | ...``.

    With compare-mt's definition each total is at least 1 (``max(1, t_n)``; ΔBLEU's
    weighted totals likewise times the row's largest weight).
    """
    from ..metrics.tables import table_metric

    n_order = stats.max_ngram_order
    col = stats.column

    def orders(prefix: str) -> NDArray[Any]:
        return np.column_stack([col(f"{prefix}_{i}") for i in range(1, n_order + 1)])

    total = orders("total")
    if definition == "compare-mt":
        total = np.maximum(total, 1)
    parts: list[tuple[str, NDArray[Any]]] = [
        ("segments", np.ones((len(stats), 1))), ("hyp_len", col("hyp_len")[:, None]),
        ("ref_len", col("ref_len_closest")[:, None]), ("match", orders("match")), ("total", total)]
    if "delta_bleu" in metrics:
        wtotal = total * col("ref_weight_max")[:, None] if definition == "compare-mt" else orders("wtotal")
        parts += [("wmatch", orders("wmatch")), ("wtotal", wtotal)]
    objects = {}
    for metric in ("chrf", "ter"):
        if metric in metrics:
            objects[metric], mat = table_metric(stats, metric)
            parts.append((metric, np.asarray(mat, np.float64)))
    slices, start = {}, 0
    for name, part in parts:
        slices[name] = slice(start, start + part.shape[1])
        start += part.shape[1]
    return np.hstack([np.asarray(p, np.float64) for _, p in parts]), _Layout(slices, start, objects)


def _scores(metric: str, sums: NDArray[np.float64], layout: _Layout, definition: str) -> NDArray[np.float64]:
    """``metric`` of rows of summed per-segment statistics (any leading shape)."""
    lead = sums.shape[:-1]
    flat = sums.reshape(-1, sums.shape[-1])
    s = layout.slices
    if metric == "segments":
        out = flat[:, s["segments"]][:, 0]
    elif metric == "length_ratio":
        hyp, ref = flat[:, s["hyp_len"]][:, 0], flat[:, s["ref_len"]][:, 0]
        out = np.where(ref > 0, hyp / np.where(ref > 0, ref, 1.0), 0.0)
    elif metric in ("bleu", "delta_bleu"):
        num, den = ("match", "total") if metric == "bleu" else ("wmatch", "wtotal")
        correct = flat[:, s[num]] if metric == "bleu" else np.maximum(flat[:, s[num]], 0.0)
        hyp, ref = flat[:, s["hyp_len"]][:, 0], flat[:, s["ref_len"]][:, 0]
        if definition == "compare-mt":
            out = compare_mt_bleu(correct, flat[:, s[den]], hyp, ref)
        else:
            out = bleu_scores(correct, flat[:, s[den]], hyp, ref)
    else:
        out = np.asarray(layout.objects[metric].scores_from_sums(flat[:, s[metric]]), np.float64)
    return out.reshape(lead)


def sentence_bleu(stats: StatsTable, rows: NDArray[np.int64], definition: str) -> NDArray[np.float64]:
    """Each row's sentence BLEU: compare-mt's (NLTK, Chen & Cherry method 2) or sacreBLEU's."""
    from ..metrics.sentence import SentenceStats, get_variant, score_variant

    if definition == "sacrebleu":
        return score_variant(stats.select(rows), "sacrebleu:exp")
    n_order = stats.max_ngram_order
    match = np.column_stack([stats.column(f"match_{i}")[rows] for i in range(1, n_order + 1)]).astype(np.float64)
    # NLTK's modified precision floors each denominator at 1 before method 2 adds one
    total = np.maximum(np.column_stack([stats.column(f"total_{i}")[rows] for i in range(1, n_order + 1)]), 1)
    s = SentenceStats(match, total.astype(np.float64), stats.column("hyp_len")[rows].astype(np.float64),
                      stats.column("ref_len_closest")[rows].astype(np.float64))
    return np.asarray(get_variant("chen-cherry:2").compute(s), np.float64)


# --------------------------------------------------------------------------- the comparison


def _split_table(table: pa.Table) -> pa.Table:
    """The table with each text rewritten by compare-mt's split (:func:`_compare_tokens.compare_mt_line`)."""
    from ._compare_tokens import compare_mt_line

    split = [compare_mt_line(t) for t in table.column("text").to_pylist()]
    return table.set_column(table.schema.get_field_index("text"), "text", _strings(split))


def _statistics(hyps: pa.Table, refs: pa.Table, groups: list[str], options: dict[str, Any],
                split: tuple[pa.Table, pa.Table] | None) -> StatsTable:
    """The statistics table; with compare-mt's split (``split``: the tables rewritten by it), its BLEU columns
    are counted on compare-mt's tokens.

    chrF and TER never read BLEU's tokens: theirs come from the texts as given.
    """
    stats = compute_stats(hyps, refs, metrics=groups, **options)
    if split is None:
        return stats
    changed = any(s != " ".join(t.split()) for table, other in zip((hyps, refs), split)
                  for s, t in zip(other.column("text").to_pylist(), table.column("text").to_pylist()))
    if not changed:
        return stats
    bleu = compute_stats(split[0], split[1], metrics=("bleu",), **{k: v for k, v in options.items()
                                                                   if not k.endswith("_options")})
    table = stats.table
    for name in bleu.table.column_names:
        if name not in ("seg_id", "system"):
            table = table.set_column(table.schema.get_field_index(name), name, bleu.table.column(name))
    return StatsTable(table.replace_schema_metadata(stats.table.schema.metadata))


def _strings(values: list[str]) -> pa.Array:
    """A list of str as an Arrow string array."""
    import pyarrow as pa

    return pa.array(values, pa.string())


def _reference_streams(refs: pa.Table, segments: NDArray[np.int64]) -> list[list[str | None]]:
    """Each segment's references (in table order) as streams: stream k holds every segment's k-th reference."""
    seg = np.asarray(refs.column("seg_id"), dtype=np.int64)
    text = refs.column("text").to_pylist()
    where = np.searchsorted(segments, seg)
    ok = (where < len(segments)) & (segments[np.minimum(where, len(segments) - 1)] == seg)
    order = np.flatnonzero(ok)
    order = order[np.argsort(where[order], kind="stable")]
    pos = where[order]
    rank = np.arange(len(order)) - np.searchsorted(pos, pos)
    streams: list[list[str | None]] = [[None] * len(segments) for _ in range(int(rank.max()) + 1 if len(rank) else 0)]
    for i, p, r in zip(order.tolist(), pos.tolist(), rank.tolist()):
        streams[r][p] = text[i]
    return streams


def _signatures(stats: StatsTable, metrics: Sequence[str], layout: _Layout, opts: dict[str, Any],
                seed_label: Any) -> dict[str, str]:
    """The signature of every analysis."""
    from dataclasses import replace

    n_boot = opts["n_samples"] or None
    seed = seed_label if n_boot else None
    nrefs = stats.n_refs_label
    tok, case = stats.tokenize, "lc" if stats.lowercase else "mixed"
    definition = opts["bleu_definition"]
    base = {}
    for metric in ("bleu", "delta_bleu"):
        sig = bleu_signature(nrefs, tokenize=tok, lowercase=stats.lowercase,
                             smooth_method="none" if definition == "compare-mt" else "exp", smooth_value=None,
                             effective_order=False, max_ngram_order=stats.max_ngram_order, ref_view=stats.ref_view,
                             weight_threshold=stats.weight_threshold, weights=stats.weights, metric=metric,
                             delta_definition=stats.delta_definition, ref_length="closest", n_bootstrap=n_boot,
                             seed=seed)
        base[metric] = replace(sig, smooth="compare-mt") if definition == "compare-mt" else sig
    for metric, obj in layout.objects.items():
        base[metric] = replace(obj.get_signature(), n_bootstrap=n_boot, seed=seed)
    plain = Signature(nrefs, n_bootstrap=n_boot, seed=seed).with_extra(("tok", tok), ("case", case))

    def cuts(values: Sequence[float]) -> str:
        return ":".join(map(str, values))

    sent = "nltk-method2" if definition == "compare-mt" else "sacrebleu-exp"
    out = {"length_ratio": str(plain.with_extra(("metric", "length-ratio"), ("reflen", "closest")))}
    for metric in metrics:
        out[metric] = str(base[metric])
        out[f"{metric}_by_length"] = str(base[metric].with_extra(("by", "reflen-shortest"),
                                                                  ("buckets", cuts(opts["length_buckets"]))))
        out[f"{metric}_by_label"] = str(base[metric].with_extra(("by", "label")))
    freq = "corpus" if opts["freq_corpus"] is not None else "references"
    for name in ("fmeasure", "precision", "recall"):
        out[f"word_{name}_by_frequency"] = str(plain.with_extra(
            ("metric", f"word-{name}"), ("freq", freq), ("buckets", cuts(opts["frequency_buckets"]))))
    out["count_by_length_difference"] = str(plain.with_extra(
        ("by", "hyp-ref-length"), ("reflen", "closest"), ("buckets", cuts(opts["length_difference_buckets"]))))
    out["count_by_sentence_bleu"] = str(plain.with_extra(
        ("by", f"sentbleu-{sent}"), ("buckets", cuts(opts["sentence_bleu_buckets"]))))
    lo, hi = opts["ngram_orders"]
    for kind in NGRAM_COMPARE_TYPES:
        out[f"ngram_{kind}"] = str(Signature(nrefs).with_extra(
            ("tok", tok), ("case", case), ("compare", kind), ("orders", f"{lo}-{hi}"), ("alpha", opts["ngram_alpha"]),
            ("top", opts["ngram_report_length"])))
    out["sentence_examples"] = str(Signature(nrefs).with_extra(("tok", tok), ("case", case),
                                                               ("sentbleu", sent), ("top", opts["n_examples"])))
    return out


def _none_if_nan(x: float) -> float | None:
    return None if x != x else float(x)


def _bucket_records(analysis: str, labels: Sequence[str | None], names: Sequence[str], values: NDArray[Any],
                    stats: dict[str, NDArray[np.float64]], counts: NDArray[Any], baseline: str, signature: str,
                    *, integral: bool = False) -> list[dict[str, Any]]:
    """One record per system and bucket (``values`` and ``stats``' arrays are (S, G); ``counts`` (G,) or (S, G))."""
    counts = np.broadcast_to(counts, values.shape)
    out = []
    for g, label in enumerate(labels):
        for s, name in enumerate(names):
            value = values[s, g]
            out.append({"analysis": analysis, "bucket": label, "system": name,
                        "value": int(value) if integral else float(value),
                        "ci_low": _none_if_nan(stats["ci_low"][s, g]), "ci_high": _none_if_nan(stats["ci_high"][s, g]),
                        "p_value": _none_if_nan(stats["p_value"][s, g]), "count": int(counts[s, g]),
                        "baseline": baseline, "signature": signature})
    return out


def compare(
    hypotheses: Mapping[str, Sequence[str]] | pd.DataFrame | pa.Table | StatsTable,
    references: Sequence[Sequence[Any]] | pd.DataFrame | pa.Table | None = None,
    *,
    baseline: str | None = None,
    ref_weights: Sequence[Sequence[float]] | None = None,
    labels: Sequence[str] | None = None,
    freq_corpus: Sequence[str] | None = None,
    tokenize: str | None = None,
    lowercase: bool | None = None,
    max_ngram_order: int | None = None,
    metrics: Sequence[str] | None = None,
    bleu_definition: str = "compare-mt",
    n_samples: int = 1000,
    seed: int | None = 12345,
    ref_view: str | None = None,
    weight_threshold: float | None = None,
    delta_definition: str | None = None,
    chrf_options: dict[str, Any] | None = None,
    ter_options: dict[str, bool] | None = None,
    references_layout: str = "auto",
    length_buckets: Sequence[float] = LENGTH_BUCKETS,
    length_difference_buckets: Sequence[float] = LENGTH_DIFFERENCE_BUCKETS,
    sentence_bleu_buckets: Sequence[float] = SENTENCE_BLEU_BUCKETS,
    frequency_buckets: Sequence[float] = FREQUENCY_BUCKETS,
    ngram_orders: tuple[int, int] = (1, 4),
    ngram_alpha: float = 1.0,
    ngram_compare: Sequence[str] = ("match",),
    ngram_report_length: int = 50,
    n_examples: int = 10,
) -> Comparison:
    r"""Compare systems on the same segments: compare-mt's analyses, chrF, TER, ΔBLEU, labels, intervals, p-values.

    Every value is a function of summed per-segment statistics (a corpus, a
    bucket of segments, a bootstrap resample; see the module docstring for
    the analyses). With ``n_samples`` resamples of the segments (sacreBLEU's
    paired-bootstrap draws, ``seed``), every value gets sacreBLEU's 95%
    interval :math:`[s_{(l)}, s_{(B-l-1)}]`, :math:`l = \lfloor B/40 \rfloor`,
    and every system's value the paired bootstrap p-value against the
    baseline's (Koehn, 2004; sacreBLEU's ``--paired-bs`` formula,
    :func:`bleustats.meta.paired.bootstrap_p_value`), from the same resamples,
    except a value equal to the baseline's on the data and in every resample
    (nothing to test): p = 1 there, where the formula (and ``bleustats score
    --paired-bs``, which keeps sacreBLEU's output) gives :math:`1/(B+1)`.

    Parameters
    ----------
    hypotheses : dict, pandas.DataFrame, pyarrow.Table or StatsTable
        ``{system: [one line per segment]}``, a long-form hypotheses table
        (``seg_id``, ``system``, ``text``), or a statistics table (then only
        the analyses of statistics: no word, n-gram or example analysis).
        Every system must cover the same segments.
    references : list of lists, pandas.DataFrame or pyarrow.Table
        sacreBLEU-style reference streams (``references_layout``) or a
        references table (``seg_id``, ``ref_id``, ``weight``, ``text``).
    baseline : str, optional
        The system every other is tested against (default: the first).
    ref_weights : list of lists of float, optional
        ΔBLEU weights of list references (as :func:`bleustats.compute_stats`).
    labels : sequence of str, optional
        One label per segment (segments in ``seg_id`` order): the buckets of ``*_by_label``.
    freq_corpus : sequence of str, optional
        Lines whose word counts bucket the words (compare-mt's
        ``freq_corpus_file``; default: the references).
    tokenize, lowercase, max_ngram_order, ref_view, weight_threshold, delta_definition, chrf_options, ter_options
        As :func:`bleustats.compute_stats` (None: its default; BLEU's order 4 is compare-mt's too).
        ``tokenize='none'`` with compare-mt's definition splits as compare-mt does
        (``line.strip().split(' ')``; :mod:`bleustats.tools._compare_tokens`). Of a statistics table,
        each one given must be the table's (a lower ``max_ngram_order`` takes its first orders):
        saved statistics cannot answer other options.
    metrics : sequence of {'bleu', 'chrf', 'ter', 'delta_bleu'}, optional
        Default: BLEU and chrF, and ΔBLEU when the references carry weights
        (of a statistics table: the metrics it holds). TER is asked for by
        name: its shift search (about 0.35 ms a hypothesis on WMT21 zh-en
        here) costs more than every other analysis together.
    bleu_definition : {'compare-mt', 'sacrebleu'}
        compare-mt's corpus BLEU (:func:`compare_mt_bleu`) and sentence BLEU
        (NLTK method 2), or sacreBLEU's (exp smoothing; sentence BLEU with
        effective order).
    n_samples : int
        Bootstrap resamples (0: no intervals or p-values).
    seed : int or None
        Seed of the resamples (sacreBLEU's default 12345; None: fresh entropy).
    length_buckets, length_difference_buckets, sentence_bleu_buckets, frequency_buckets : sequence of numbers
        Bucket boundaries (compare-mt's defaults).
    ngram_orders : (int, int)
        Smallest and largest order of the n-gram analysis.
    ngram_alpha : float
        compare-mt's smoothing :math:`\alpha` of the n-gram scores.
    ngram_compare : sequence of {'match', 'over', 'under'}
        compare-mt's ``compare_type``\ s to report.
    ngram_report_length, n_examples : int
        N-grams and sentence examples reported on each side.

    Returns
    -------
    Comparison

    Raises
    ------
    InputError
        Bad options, systems that cover different segments, an unknown
        baseline, labels of the wrong length; the message names the parameter.

    Examples
    --------
    >>> hyps = {"A": ["a b c d", "e f g"], "B": ["a b x d", "e f g"]}
    >>> result = compare(hyps, [["a b c d", "e f g"]], metrics=("bleu",), n_samples=0)
    >>> [(r["bucket"], r["system"], r["value"]) for r in result.select("count_by_length_difference")
    ...  if r["bucket"] in ("-1", "0")]
    [('-1', 'A', 0), ('-1', 'B', 0), ('0', 'A', 2), ('0', 'B', 2)]
    >>> r = result.select("word_fmeasure_by_frequency", system="B")[1]   # '1': reference words seen once
    >>> r["bucket"], r["count"], round(r["value"], 4)                  # P = 6/6, R = 6/7 ('x' is in '<1')
    ('1', 7, 0.9231)
    """
    opts = {
        "bleu_definition": check_choice("bleu_definition", bleu_definition, BLEU_DEFINITIONS),
        "n_samples": check_count("n_samples", n_samples, minimum=0),
        "length_buckets": _check_cutoffs("length_buckets", length_buckets),
        "length_difference_buckets": _check_cutoffs("length_difference_buckets", length_difference_buckets),
        "sentence_bleu_buckets": _check_cutoffs("sentence_bleu_buckets", sentence_bleu_buckets),
        "frequency_buckets": _check_cutoffs("frequency_buckets", frequency_buckets),
        "ngram_alpha": check_number("ngram_alpha", ngram_alpha, positive=True),
        "ngram_report_length": check_count("ngram_report_length", ngram_report_length, minimum=0),
        "n_examples": check_count("n_examples", n_examples, minimum=0),
        "freq_corpus": freq_corpus,
    }
    lo, hi = ngram_orders if isinstance(ngram_orders, (tuple, list)) and len(ngram_orders) == 2 else (0, 0)
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (lo, hi)) or not 1 <= lo <= hi:
        raise InputError(f"ngram_orders must be (smallest, largest) orders with 1 <= smallest <= largest; got "
                         f"{ngram_orders!r}. Example: (1, 4).")
    opts["ngram_orders"] = (int(lo), int(hi))
    ngram_compare = [check_choice("ngram_compare", c, NGRAM_COMPARE_TYPES) for c in
                     ([ngram_compare] if isinstance(ngram_compare, str) else ngram_compare)]
    rng_seed = seed
    given = {"tokenize": tokenize, "lowercase": lowercase, "max_ngram_order": max_ngram_order, "ref_view": ref_view,
             "weight_threshold": weight_threshold, "delta_definition": delta_definition}
    if isinstance(hypotheses, StatsTable):
        if references is not None or ref_weights is not None or freq_corpus is not None:
            raise InputError("references / ref_weights / freq_corpus: a statistics table holds what the references "
                             "gave; pass hypotheses=StatsTable alone (its word analyses need the texts).")
        stats = _saved_statistics(hypotheses, {k: v for k, v in given.items() if v is not None}, chrf_options,
                                  ter_options)
        hyps, refs = stats.table, None
        tokenize, lowercase, ref_view, weight_threshold = (stats.tokenize, stats.lowercase, stats.ref_view,
                                                           stats.weight_threshold)
    else:
        tokenize, lowercase, max_ngram_order, ref_view, delta_definition = (
            "13a" if tokenize is None else tokenize, bool(lowercase), 4 if max_ngram_order is None else max_ngram_order,
            "all" if ref_view is None else ref_view, "paper" if delta_definition is None else delta_definition)
        if references is None:
            raise InputError("references: give the references (streams or a references table); only a "
                             "statistics table is compared without them.")
        hyps, n_list = _hypotheses_table(hypotheses)
        refs = io.as_references_table(references, ref_weights, n_hyp=n_list, layout=references_layout)
    names, rows, segments = _system_rows(hyps)
    baseline = names[0] if baseline is None else check_choice("baseline", baseline, names)
    if refs is not None:
        text = hyps.column("text")
        opts["system_texts"] = {name: text.take(rows[name]).to_pylist() for name in names}
    if metrics is None:
        weighted = (stats.weights == "custom") if refs is None else bool(
            (np.asarray(refs.column("weight")) != 1.0).any())
        have = stats.metrics if refs is None else ("bleu", "chrf")
        metrics = [m for m in COMPARE_METRICS if m in have or (m == "delta_bleu" and weighted)]
    metrics = list(dict.fromkeys(check_choice("metrics", m, COMPARE_METRICS)
                                 for m in ([metrics] if isinstance(metrics, str) else metrics)))
    if "bleu" not in metrics:
        metrics.insert(0, "bleu")  # compare-mt's analyses are BLEU's
    compare_mt_split = tokenize == "none" and opts["bleu_definition"] == "compare-mt"
    if refs is not None:
        groups = ["bleu"] + [m for m in ("chrf", "ter") if m in metrics]
        options = {"tokenize": tokenize, "lowercase": lowercase, "max_ngram_order": max_ngram_order,
                   "ref_view": ref_view, "weight_threshold": weight_threshold, "delta_definition": delta_definition}
        if "chrf" in metrics:
            options["chrf_options"] = chrf_options
        if "ter" in metrics:
            options["ter_options"] = ter_options
        if compare_mt_split:
            opts["split"] = (_split_table(hyps), _split_table(refs))
        stats = _statistics(hyps, refs, groups, options, opts.get("split"))
    missing = [m for m in ("chrf", "ter") if m in metrics and m not in stats.metrics]
    if missing:
        raise InputError(f"metrics: the statistics table has no {missing[0]} columns (it holds "
                         f"{', '.join(stats.metrics)}); compute them with bleustats stats -m {missing[0]}.")
    if labels is not None:
        labels = [str(x) for x in labels]
        if len(labels) != len(segments):
            raise InputError(f"labels: need one label per segment ({len(segments)}); got {len(labels)}.")
    if "delta_bleu" in metrics:
        from ..metrics.tables import check_delta_defined

        check_delta_defined(stats)
    return _run(stats, names, rows, segments, baseline, metrics, labels, refs, opts, ngram_compare, rng_seed,
                compare_mt_split, tokenize, lowercase, ref_view, weight_threshold)


def _saved_statistics(stats: StatsTable, given: dict[str, Any], chrf_options: dict[str, Any] | None,
                      ter_options: dict[str, bool] | None) -> StatsTable:
    """The statistics table at the asked order; every other statistics option given must be the table's."""
    for name, value in given.items():
        if name != "max_ngram_order" and value != getattr(stats, name):
            raise InputError(f"{name}={value!r}: the statistics table was computed with {name}="
                             f"{getattr(stats, name)!r}; saved statistics cannot answer another one. Leave {name} "
                             f"out, or compute the statistics again with {name}={value!r}.")
    for name, asked in (("chrf", chrf_options), ("ter", ter_options)):
        if not asked:
            continue
        if name not in stats.metrics:
            raise InputError(f"{name}_options: the statistics table has no {name} columns (it holds "
                             f"{', '.join(stats.metrics)}); compute them with bleustats stats -m {name}.")
        saved = stats.chrf_options if name == "chrf" else stats.ter_options
        for key, value in asked.items():
            if key not in saved or value != saved[key]:
                raise InputError(f"{name}_options: {key}={value!r}, but the statistics table was computed with "
                                 f"{key}={saved.get(key)!r}; leave it out, or compute the statistics again with it.")
    order = given.get("max_ngram_order")
    if order is not None:
        whole = isinstance(order, (int, np.integer)) and not isinstance(order, bool)
        if not whole or not 1 <= order <= stats.max_ngram_order:
            raise InputError(f"max_ngram_order: the statistics table holds orders 1..{stats.max_ngram_order}; got "
                             f"{order!r}. Give an order in that range, or compute the statistics again.")
        stats = stats.up_to_order(int(order))
    return stats


def _per_system(sums: NDArray[np.float64], n_systems: int) -> NDArray[np.float64]:
    """Block sums (..., S * W) as (S, ..., W)."""
    lead = sums.shape[:-1]
    return np.moveaxis(sums.reshape(*lead, n_systems, -1), -2, 0)


def _run(stats: StatsTable, names: list[str], rows: dict[str, NDArray[np.int64]], segments: NDArray[np.int64],
         baseline: str, metrics: list[str], labels: list[str] | None, refs: pa.Table | None, opts: dict[str, Any],
         ngram_compare: list[str], seed: Any, compare_mt_split: bool, tokenize: str, lowercase: bool,
         ref_view: str, weight_threshold: float | None) -> Comparison:
    """The analyses of :func:`compare` on checked inputs."""
    from ..meta.resample import generator_and_label
    from ._compare_text import Texts, example_records, ngram_records, word_block, word_scores

    definition = opts["bleu_definition"]
    mat, layout = _row_matrix(stats, metrics, definition)
    n, n_sys, b = len(segments), len(names), names.index(baseline)
    x = np.hstack([mat[rows[name]] for name in names])
    base_rows = rows[baseline]
    n_len = len(opts["length_buckets"]) + 1
    blocks = [Block("length", x, _bucket_of(stats.column("ref_len_shortest")[base_rows], opts["length_buckets"]),
                    n_len)]
    label_names: list[str] = []
    if labels is not None:
        label_names = list(dict.fromkeys(labels))  # in order of first appearance
        lookup = {name: i for i, name in enumerate(label_names)}
        blocks.append(Block("label", x, np.array([lookup[v] for v in labels], np.int64), len(label_names)))
    sentence = {name: sentence_bleu(stats, rows[name], definition) for name in names}
    ld_cuts, sb_cuts = opts["length_difference_buckets"], opts["sentence_bleu_buckets"]
    n_ld, n_sb = len(ld_cuts) + 1, len(sb_cuts) + 1
    onehots = []
    for name in names:
        r = rows[name]
        onehots.append(np.eye(n_ld)[_bucket_of(stats.column("hyp_len")[r] - stats.column("ref_len_closest")[r],
                                               ld_cuts)])
        onehots.append(np.eye(n_sb)[_bucket_of(sentence[name], sb_cuts)])
    blocks.append(Block("counts", np.hstack(onehots), None, 1))
    texts = ref_words = None
    if refs is not None:
        view = apply_ref_view(refs, ref_view, weight_threshold)
        split = None
        if "split" in opts:
            split_hyps, split_refs = opts["split"]
            text = split_hyps.column("text")
            split = ({name: text.take(rows[name]).to_pylist() for name in names},
                     _reference_streams(apply_ref_view(split_refs, ref_view, weight_threshold), segments))
        texts = Texts.build(opts["system_texts"], _reference_streams(view, segments), tokenize=tokenize,
                            lowercase=lowercase, compare_mt_split=compare_mt_split, freq_corpus=opts["freq_corpus"],
                            split=split)
        word, ref_words = word_block(texts, opts["frequency_buckets"])
        blocks.append(word)
    rng, label = generator_and_label(seed)
    sums = block_sums(blocks, n_samples=opts["n_samples"], seed=rng)
    signatures = _signatures(stats, metrics, layout, opts, label)
    records: list[dict[str, Any]] = []

    def emit(analysis: str, bucket_labels_: Sequence[str | None], values: NDArray[Any], boot: Any, counts: Any,
             defined: Any, integral: bool = False) -> None:
        summary = summarize(values.astype(np.float64), boot, b, defined)
        records.extend(_bucket_records(analysis, bucket_labels_, names, values, summary, counts, baseline,
                                       signatures[analysis], integral=integral))

    full, boot = sums["length"]
    agg_full = _per_system(x.sum(axis=0), n_sys)[:, None, :]
    agg_boot = None if boot is None else _per_system(boot.sum(axis=1), n_sys)[:, :, None, :]
    for metric in [metrics[0], "length_ratio", *metrics[1:]]:
        emit(metric, [None], _scores(metric, agg_full, layout, definition),
             None if agg_boot is None else _scores(metric, agg_boot, layout, definition), n, True)
    if texts is not None:
        n_freq = len(opts["frequency_buckets"]) + 1
        w_full, w_boot = sums["words"]
        values = word_scores(_per_system(w_full[0], n_sys), n_freq)
        resampled = None if w_boot is None else word_scores(_per_system(w_boot[:, 0], n_sys), n_freq)
        hyp_words = _per_system(w_full[0], n_sys)[:, n_freq:2 * n_freq]
        for analysis, v in values.items():
            emit(analysis, bucket_labels(opts["frequency_buckets"]), v,
                 None if resampled is None else resampled[analysis], ref_words, (hyp_words + ref_words) > 0)
    grouped = [("length", bucket_labels(opts["length_buckets"]))]
    if labels is not None:
        grouped.append(("label", label_names))
    for key, names_ in grouped:
        full, boot = sums[key]
        s_full, s_boot = _per_system(full, n_sys), None if boot is None else _per_system(boot, n_sys)
        count = s_full[b, :, layout.slices["segments"]][:, 0]
        for metric in metrics:
            emit(f"{metric}_by_{key}", names_, _scores(metric, s_full, layout, definition),
                 None if s_boot is None else _scores(metric, s_boot, layout, definition), count, count > 0)
        if key == "length":  # compare-mt's order: BLEU by length, then the count analyses
            c_full, c_boot = sums["counts"]
            c_sys = _per_system(c_full[0], n_sys)
            c_res = None if c_boot is None else _per_system(c_boot[:, 0], n_sys)
            for analysis, cut_labels, part in (
                    ("count_by_length_difference", bucket_labels(ld_cuts), slice(0, n_ld)),
                    ("count_by_sentence_bleu", bucket_labels(sb_cuts, integer=False), slice(n_ld, n_ld + n_sb))):
                values = np.rint(c_sys[:, part]).astype(np.int64)
                emit(analysis, cut_labels, values, None if c_res is None else c_res[:, :, part], values,
                     values.sum(axis=0) > 0, integral=True)
    if texts is not None and len(names) > 1:
        if ngram_compare and opts["ngram_report_length"]:
            records += ngram_records(texts, baseline, orders=opts["ngram_orders"], alpha=opts["ngram_alpha"],
                                     compare_types=ngram_compare, report_length=opts["ngram_report_length"],
                                     signature=signatures)
        if opts["n_examples"]:
            records += example_records(texts, sentence, segments, baseline, n_examples=opts["n_examples"],
                                       signature=signatures["sentence_examples"])
    settings = {"n_segments": n, "metrics": list(metrics), "tokenize": stats.tokenize, "lowercase": stats.lowercase,
                "bleu_definition": definition, "n_samples": opts["n_samples"], "seed": label,
                "ref_view": stats.ref_view, "ngram_compare": ngram_compare,
                **{k: opts[k] for k in ("length_buckets", "length_difference_buckets", "sentence_bleu_buckets",
                                        "frequency_buckets", "ngram_orders", "ngram_alpha", "ngram_report_length",
                                        "n_examples")}}
    used = {r["analysis"] for r in records}
    return Comparison(tuple(records), tuple(names), baseline, {k: v for k, v in signatures.items() if k in used},
                      settings)
