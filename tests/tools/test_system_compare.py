"""bleustats.compare: compare-mt 0.2.10's numbers on real and generated outputs; the resamples; the records.

Expected numbers come from compare-mt 0.2.10 run in-process on the same lines (``compare_mt_oracle``, its
report functions with its defaults), from sacreBLEU 2.6.0 (``sacrebleu.BLEU`` / ``CHRF`` / ``TER``), from
``bleustats.paired_bootstrap`` (the same draws), or from the plain-Python twins at the end of this file.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats
from bleustats.engine import schemas
from bleustats.errors import InputError
from bleustats.tools.system_compare import ANALYSES, bucket_labels, compare

from ..conftest import data_path, examples, read_tsv
from . import compare_mt_oracle as oracle

pytestmark = pytest.mark.usefixtures("numba_one_thread")


def _wmt(pair: str, systems: tuple[str, ...], ref: str = "ref-A") -> tuple[list[str], list[list[str]]]:
    """The reference ``ref`` and the systems' outputs of WMT21 ``pair`` (../shared, or the vendored slice)."""
    root = data_path("data", "wmt21_news", pair)
    refs = {int(r["seg_id"]): r["text"] for r in read_tsv(root / "references.tsv") if r["ref"] == ref}
    outs: dict[str, dict[int, str]] = {s: {} for s in systems}
    for row in read_tsv(root / "system_outputs.tsv"):
        if row["system"] in outs:
            outs[row["system"]][int(row["seg_id"])] = row["text"]
    seg = sorted(refs)
    return [refs[s] for s in seg], [[outs[name][s] for s in seg] for name in systems]


def _values(result, analysis, system):
    return [r["value"] for r in result.select(analysis, system=system)]


def _check_against_compare_mt(ref: list[str], outs: list[list[str]], *, report_length: int = 50) -> None:
    """Every number of compare-mt's default report equals bleustats compare's (tokenize='none')."""
    want = oracle.run(ref, outs)
    names = [f"sys{i + 1}" for i in range(len(outs))]
    got = compare(dict(zip(names, outs)), [ref], tokenize="none", metrics=("bleu",), n_samples=0,
                  ngram_compare=("match", "over", "under"), ngram_report_length=report_length)
    for i, name in enumerate(names):
        assert _values(got, "bleu", name)[0] == pytest.approx(want["bleu"][i], abs=1e-9)
        assert _values(got, "length_ratio", name)[0] == pytest.approx(want["length_ratio"][i], abs=1e-12)
        for analysis in ("word_fmeasure_by_frequency", "word_precision_by_frequency", "word_recall_by_frequency"):
            assert _values(got, analysis, name) == pytest.approx(want[analysis][i], abs=1e-12), analysis
        assert _values(got, "bleu_by_length", name) == pytest.approx(want["bleu_by_length"][i], abs=1e-9)
        assert _values(got, "count_by_length_difference", name) == want["count_by_length_difference"][i]
        assert _values(got, "count_by_sentence_bleu", name) == want["count_by_sentence_bleu"][i]
    assert [r["count"] for r in got.select("word_fmeasure_by_frequency", system="sys1")] == want["word_ref_counts"]
    for analysis in ("bleu_by_length", "count_by_length_difference", "count_by_sentence_bleu"):
        assert [r["bucket"] for r in got.select(analysis, system="sys1")] == want[analysis + "_labels"]
    assert [r["bucket"] for r in got.select("word_fmeasure_by_frequency", system="sys1")] == want["word_labels"]
    if len(outs) < 2:
        return
    for kind in ("match", "over", "under"):
        theirs = want[f"ngram_{kind}"]  # the whole list, highest score first (ties in Python's set order)
        score_of = dict(theirs)
        mine = got.select(f"ngram_{kind}", system="sys2")
        assert all(score_of[r["bucket"]] == pytest.approx(r["value"], abs=1e-15) for r in mine), kind
        k = min(report_length, len(theirs))
        top = [r["value"] for r in mine[:k]]
        assert top == pytest.approx([v for _, v in theirs[:k]], abs=1e-15)
        # both lists are positions of the one sorted list: the top k and the bottom k (which may overlap)
        positions = sorted(set(range(k)) | set(range(len(theirs) - k, len(theirs))))
        assert sorted(r["value"] for r in mine) == pytest.approx(sorted(theirs[i][1] for i in positions), abs=1e-15)
        # the same n-grams wherever the cut does not fall inside a run of equal scores
        for lst, ours in ((theirs[:k], mine[:k]), (theirs[::-1][:k], mine)):  # the lists may share n-grams
            cut = lst[-1][1] if lst else None
            assert {n for n, v in lst if v != cut} <= {r["bucket"] for r in ours}
        for r in mine:  # counts of the kind, as compare-mt's dictionaries hold them
            assert r["count"] >= 0 and r["baseline_count"] >= 0
    examples = got.select("sentence_examples", system="sys2")
    k = min(10, len(want["examples"]))
    assert [r["seg_id"] for r in examples if r["bucket"] == "baseline_better"] == [i for i, _, _ in
                                                                                  want["examples"][:k]]
    assert [r["seg_id"] for r in examples if r["bucket"] == "system_better"] == [i for i, _, _ in
                                                                                want["examples"][::-1][:k]]
    for r in examples:
        s1, s2 = next((s1, s2) for i, s1, s2 in want["examples"] if i == r["seg_id"])
        assert (r["baseline_value"], r["value"]) == pytest.approx((s1, s2), abs=1e-9)


@pytest.mark.parametrize("pair, systems", [
    # zh-en: Online-W has empty hypotheses (515, 1488) and double spaces, Borderline one double space
    ("zh-en", ("Online-W", "Borderline")),
    # en-de: ref-A has no-break spaces (compare-mt keeps them inside tokens), seg 403 has double spaces
    ("en-de", ("Online-W", "VolcTrans-GLAT")),
])
def test_every_number_equals_compare_mt_on_wmt21(pair, systems):
    ref, outs = _wmt(pair, systems)
    _check_against_compare_mt(ref, outs)


_WORDS = st.sampled_from(["the", "a", "cat", "dog", "sat", "on", "mat", "The", "\u00a0", "x\u00a0y", "", " ", "\t"])


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    *[st.lists(st.lists(_WORDS, max_size=9).map(" ".join), min_size=n, max_size=n) for _ in range(3)])))
def test_generated_lines_equal_compare_mt(corpus):
    """Short lines (orders with no n-gram), empty lines, double spaces, no-break spaces, tabs, repeated words."""
    ref, a, b = corpus
    _check_against_compare_mt(ref, [a, b], report_length=5)


def test_three_systems_each_against_the_first():
    ref, outs = _wmt("zh-en", ("Online-W", "Borderline", "DIDI-NLP"))
    ref, outs = ref[:60], [o[:60] for o in outs]
    want = oracle.run(ref, outs)
    got = compare(dict(zip("ABC", outs)), [ref], tokenize="none", metrics=("bleu",), n_samples=0)
    assert [_values(got, "bleu", s)[0] for s in "ABC"] == pytest.approx(want["bleu"], abs=1e-9)
    assert {r["system"] for r in got.select("ngram_match")} == {"B", "C"}
    assert {r["baseline"] for r in got.records} == {"A"}


# --------------------------------------------------------------------------- beyond compare-mt


def _small(n: int = 40):
    ref, outs = _wmt("zh-en", ("Online-W", "Borderline", "DIDI-NLP"))
    return ref[:n], dict(zip(("Online-W", "Borderline", "DIDI-NLP"), (o[:n] for o in outs)))


def test_sacrebleu_definition_equals_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    ref, systems = _small(6)  # sacreBLEU's TER takes a tenth of a second per sentence here
    got = compare(systems, [ref], metrics=("bleu", "chrf", "ter"), bleu_definition="sacrebleu", n_samples=0)
    for name, hyps in systems.items():
        assert _values(got, "bleu", name)[0] == pytest.approx(sacrebleu.BLEU().corpus_score(hyps, [ref]).score,
                                                              abs=1e-9)
        assert _values(got, "chrf", name)[0] == pytest.approx(sacrebleu.CHRF().corpus_score(hyps, [ref]).score,
                                                              abs=1e-9)
        assert _values(got, "ter", name)[0] == pytest.approx(sacrebleu.TER().corpus_score(hyps, [ref]).score,
                                                             abs=1e-9)


@pytest.mark.parametrize("metric, definition", [("chrf", "compare-mt"), ("bleu", "sacrebleu"), ("ter", "sacrebleu")])
def test_corpus_intervals_and_p_values_are_paired_bootstraps_on_the_same_draws(metric, definition):
    ref, systems = _small()
    got = compare(systems, [ref], metrics=("bleu", metric), bleu_definition=definition, n_samples=200, seed=7)
    hyps = pd.DataFrame([{"seg_id": i, "system": s, "text": t} for s, lines in systems.items()
                         for i, t in enumerate(lines)])
    stats = bleustats.compute_stats(hyps, pd.DataFrame({"seg_id": range(len(ref)), "text": ref}),
                                    metrics=("bleu", metric) if metric != "bleu" else ("bleu",))
    for name in ("Borderline", "DIDI-NLP"):
        want = bleustats.paired_bootstrap(stats, "Online-W", name, metric=metric, n_samples=200, seed=7,
                                          float32=False)
        (rec,) = got.select(metric, system=name)
        assert rec["value"] == pytest.approx(want.system_score, abs=1e-9)
        assert rec["p_value"] == want.p_value
        assert (rec["ci_high"] - rec["ci_low"]) / 2 == pytest.approx(want.system_ci, abs=1e-9)


def test_a_bucket_of_every_segment_is_the_corpus():
    ref, systems = _small()
    everything = ["all"] * len(ref)
    got = compare(systems, [ref], metrics=("bleu", "chrf"), length_buckets=(10 ** 6,), labels=everything,
                  n_samples=100, seed=3)
    for metric in ("bleu", "chrf"):
        for name in systems:
            (corpus,) = got.select(metric, system=name)
            by_length = got.select(f"{metric}_by_length", system=name)[0]
            (by_label,) = got.select(f"{metric}_by_label", system=name)
            for rec in (by_length, by_label):
                assert rec["count"] == len(ref)
                for key in ("value", "ci_low", "ci_high", "p_value"):
                    assert rec[key] == corpus[key], (metric, key)


def test_delta_bleu_with_unit_weights_is_bleu():
    ref, systems = _small()
    for definition in ("compare-mt", "sacrebleu"):
        got = compare(systems, [ref], ref_weights=[[1.0] * len(ref)], metrics=("bleu", "delta_bleu"),
                      bleu_definition=definition, n_samples=50)
        for name in systems:
            for by in ("", "_by_length"):
                for key in ("value", "ci_low", "ci_high", "p_value"):
                    bleu = [r[key] for r in got.select("bleu" + by, system=name)]
                    delta = [r[key] for r in got.select("delta_bleu" + by, system=name)]
                    assert [x is None for x in delta] == [x is None for x in bleu]
                    assert [x for x in delta if x is not None] == pytest.approx([x for x in bleu if x is not None],
                                                                                abs=1e-9)


def test_weights_make_delta_bleu_the_default_and_differ():
    ref, systems = _small(20)
    weights = [[1.0 if i % 2 else -0.5 for i in range(len(ref))], [1.0] * len(ref)]
    got = compare(systems, [ref, ref], ref_weights=weights, n_samples=0)
    assert "delta_bleu" in got.analyses and "delta_bleu_by_length" in got.analyses
    assert "w:custom" in got.signatures["delta_bleu"]


def test_counts_add_up_and_intervals_hold_the_value():
    ref, systems = _small()
    got = compare(systems, [ref], metrics=("bleu",), n_samples=200)
    for analysis in ("count_by_length_difference", "count_by_sentence_bleu"):
        for name in systems:
            recs = got.select(analysis, system=name)
            assert sum(r["value"] for r in recs) == len(ref)
            for r in recs:
                if r["ci_low"] is not None:  # none where no system has a segment in the bucket
                    assert r["ci_low"] <= r["value"] <= r["ci_high"]
    assert [r["count"] for r in got.select("bleu_by_length", system="Online-W")] == [
        r["count"] for r in got.select("bleu_by_length", system="DIDI-NLP")]
    for r in got.records:
        if r.get("p_value") is not None:
            assert 0 < r["p_value"] <= 1 and r["system"] != r["baseline"]


def test_same_seed_same_numbers_and_the_seed_is_signed():
    ref, systems = _small(25)
    a = compare(systems, [ref], metrics=("bleu",), n_samples=50, seed=11)
    b = compare(systems, [ref], metrics=("bleu",), n_samples=50, seed=11)
    c = compare(systems, [ref], metrics=("bleu",), n_samples=50, seed=12)
    assert a.records == b.records and a.records != c.records
    assert "bs:50|seed:11" in a.signatures["bleu"] and "smooth:compare-mt" in a.signatures["bleu"]


def test_from_a_statistics_table_the_statistics_analyses_are_the_same():
    ref, systems = _small()
    hyps = pd.DataFrame([{"seg_id": i, "system": s, "text": t} for s, lines in systems.items()
                         for i, t in enumerate(lines)])
    stats = bleustats.compute_stats(hyps, [ref], metrics=("bleu", "chrf"))
    from_texts = compare(hyps, [ref], n_samples=30)
    from_stats = compare(stats, n_samples=30)
    assert "word_fmeasure_by_frequency" not in from_stats.analyses and "ngram_match" not in from_stats.analyses
    for analysis in from_stats.analyses:
        assert from_stats.select(analysis) == from_texts.select(analysis), analysis


def test_labels_are_buckets_in_order_of_appearance():
    ref, systems = _small(30)
    labels = ["news" if i < 10 else "sport" if i % 2 else "politics" for i in range(len(ref))]
    got = compare(systems, [ref], metrics=("bleu",), labels=labels, n_samples=0)
    recs = got.select("bleu_by_label", system="Online-W")
    assert [r["bucket"] for r in recs] == ["news", "politics", "sport"]
    assert [r["count"] for r in recs] == [Counter(labels)[k] for k in ("news", "politics", "sport")]


def test_bucket_boundaries_are_options():
    ref, systems = _small()
    got = compare(systems, [ref], metrics=("bleu",), n_samples=0, length_buckets=(15, 30),
                  sentence_bleu_buckets=(25.0, 50.0), frequency_buckets=(2, 3), length_difference_buckets=(0,))
    assert [r["bucket"] for r in got.select("bleu_by_length", system="Online-W")] == ["<15", "[15,30)", ">=30"]
    assert [r["bucket"] for r in got.select("count_by_sentence_bleu", system="Online-W")] == [
        "<25.0", "[25.0,50.0)", ">=50.0"]
    assert [r["bucket"] for r in got.select("word_fmeasure_by_frequency", system="Online-W")] == ["<2", "2", ">=3"]
    assert bucket_labels([-20, -10, -5, -4]) == ["<-20", "[-20,-10)", "[-10,-5)", "-5", ">=-4"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(baseline="nobody"), "baseline must be one of"),
    (dict(labels=["x", "y"]), "labels: need one label per segment"),
    (dict(length_buckets=(20, 10)), "length_buckets must be increasing"),
    (dict(metrics=("bleu", "meteor")), "metrics must be one of"),
    (dict(ngram_orders=(2, 1)), "ngram_orders must be"),
    (dict(bleu_definition="nltk"), "bleu_definition must be one of"),
    (dict(n_samples=-1), "n_samples"),
])
def test_bad_options_name_the_parameter(kwargs, message):
    with pytest.raises(InputError, match=message):
        compare({"A": ["a b"], "B": ["a c"]}, [["a b"]], **kwargs)


def test_systems_must_cover_the_same_segments():
    hyps = pd.DataFrame({"seg_id": [0, 1, 0], "system": ["A", "A", "B"], "text": ["a", "b", "a"]})
    with pytest.raises(InputError, match="system 'B' covers other segments than 'A'"):
        compare(hyps, pd.DataFrame({"seg_id": [0, 1], "text": ["a", "b"]}))
    with pytest.raises(InputError, match="every system needs one line per segment"):
        compare({"A": ["a"], "B": ["a", "b"]}, [["a"]])
    stats = bleustats.compute_stats(["a b"], [["a b"]])
    with pytest.raises(InputError, match="no ter columns"):
        compare(stats, metrics=("ter",))
    with pytest.raises(InputError, match="references: give the references"):
        compare({"A": ["a"]})


def test_records_follow_their_schema():
    ref, systems = _small(20)
    got = compare(systems, [ref], metrics=("bleu", "chrf", "ter"), labels=["x"] * len(ref), n_samples=20,
                  ngram_compare=("match", "over", "under"))
    spec = schemas.load_schema("compare")
    assert set(spec["analyses"]) == set(ANALYSES)
    assert set(got.analyses) <= set(ANALYSES)
    fields = {c["name"] for c in spec["columns"]}
    assert all(set(r) <= fields for r in got.records)
    table = got.to_table()
    assert table.num_rows == len(got.records) and table.schema.names == [c["name"] for c in spec["columns"]]
    assert json.loads(got.to_json())[0]["analysis"] == "bleu"
    assert set(got.signatures) == set(got.analyses)


# --------------------------------------------------------------------------- plain-Python twins (several references)


def _twin_words(hyp: list[str], refs: list[list[str]], freq: Counter, cuts: list[int]) -> np.ndarray:
    """[match | hyp | ref] per frequency bucket, the reference bag the largest count over the references."""
    out = np.zeros(3 * (len(cuts) + 1))
    nb = len(cuts) + 1

    def bucket(w: str) -> int:
        return sum(freq.get(w, 0) >= c for c in cuts)

    h = Counter(hyp)
    r: Counter = Counter()
    for ref in refs:
        for w, c in Counter(ref).items():
            r[w] = max(r[w], c)
    for w, c in h.items():
        out[bucket(w)] += min(c, r[w])
        out[nb + bucket(w)] += c
    for w, c in r.items():
        out[2 * nb + bucket(w)] += c
    return out


def _twin_ngrams(hyps: list[list[str]], refs: list[list[list[str]]], n: int) -> dict[str, Counter]:
    match, over, under = Counter(), Counter(), Counter()
    for hyp, seg_refs in zip(hyps, refs):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        r: Counter = Counter()
        for ref in seg_refs:
            for g, c in Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)).items():
                r[g] = max(r[g], c)
        for g in set(h) | set(r):
            m = min(h[g], r[g])
            match[g] += m
            over[g] += h[g] - m
            under[g] += r[g] - m
    return {"match": match, "over": over, "under": under}


_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(_TOKENS, min_size=n, max_size=n), st.lists(st.lists(_TOKENS, min_size=n, max_size=n), min_size=1,
                                                          max_size=3))))
def test_word_and_ngram_counts_equal_their_twins(case):
    from bleustats.tools import _compare_text, _compare_tokens

    hyps, streams = case
    n = len(hyps)
    texts = _compare_text.Texts.build({"A": [" ".join(h) for h in hyps], "B": [" ".join(h) for h in hyps]},
                                      [[" ".join(t) for t in s] for s in streams], tokenize="none", lowercase=False,
                                      compare_mt_split=False)
    cuts = [1, 2, 4]
    block, ref_words = _compare_text.word_block(texts, cuts)
    freq = Counter(w for s in streams for t in s for w in t)
    want = [_twin_words(hyps[i], [s[i] for s in streams], freq, cuts) for i in range(n)]
    assert block.matrix[:, :3 * 4].tolist() == np.array(want).tolist()
    tok = texts.tokens
    index = _compare_tokens.ngram_index(tok, 3)
    for order in (1, 2, 3):
        bags = _compare_tokens.segment_bags(index.grams[order - 1], tok, texts.sources, n, index.sizes[order - 1])
        got = _compare_tokens.ngram_totals(bags, len(streams), 0)
        twin = _twin_ngrams(hyps, [[s[i] for s in streams] for i in range(n)], order)
        for kind in ("match", "over", "under"):
            names = index.texts(tok, order, np.flatnonzero(got[kind]).tolist())
            have = {tuple(names[g].split()): int(c) for g, c in enumerate(got[kind]) if c}
            assert have == {g: c for g, c in twin[kind].items() if c}, (order, kind)
