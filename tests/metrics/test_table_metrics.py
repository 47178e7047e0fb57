"""chrF and TER in the statistics table: columns, schema, saved tables, every scoring path vs sacreBLEU 2.6.

Expected numbers come from sacrebleu 2.6.0 (``CHRF`` / ``TER`` objects and ``significance.PairedTest``)
on the same texts in the same test.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
import sacrebleu.metrics as sm
from sacrebleu.significance import PairedTest

import bleustats
from bleustats.errors import InputError, SchemaError


def _data(seed=0, n=30):
    r = random.Random(seed)
    words = "the cat sat on a mat dog ran , . ! café 日本".split()
    line = lambda: " ".join(r.choice(words) for _ in range(r.randint(0, 12)))  # noqa: E731
    refs = [[line() for _ in range(n)] for _ in range(2)]
    systems = {name: [line() for _ in range(n)] for name in ("A", "B")}
    hyps = pd.DataFrame({"seg_id": list(range(n)) * 2, "system": ["A"] * n + ["B"] * n,
                         "text": systems["A"] + systems["B"]})
    ref_table = pd.DataFrame({"seg_id": list(range(n)) * 2, "ref_id": ["0"] * n + ["1"] * n,
                              "text": refs[0] + refs[1]})
    return systems, refs, hyps, ref_table


CHRF_OPTS = {"word_order": 2, "beta": 3}
TER_OPTS = {"normalized": True}


@pytest.fixture(scope="module")
def table():
    systems, refs, hyps, ref_table = _data()
    st = bleustats.compute_stats(hyps, ref_table, metrics=("bleu", "chrf", "ter"), chrf_options=CHRF_OPTS,
                                 ter_options=TER_OPTS)
    return systems, refs, st


def test_columns_and_statistics_equal_sacrebleu(table):
    systems, refs, st = table
    assert st.metrics == ("bleu", "chrf", "ter")
    assert st.chrf_options["word_order"] == 2 and st.ter_options["normalized"] is True
    for name, hyps in systems.items():
        rows = st.column("system") == name
        chrf = np.column_stack([st.column(c) for c in st.table.column_names if c.startswith(("chrf_", "chrfw_"))])
        want = np.array(sm.CHRF(**CHRF_OPTS)._extract_corpus_statistics(hyps, refs))
        np.testing.assert_array_equal(chrf[rows], want)
        ter = np.column_stack([st.column("ter_num_edits"), st.column("ter_ref_length")])[rows]
        np.testing.assert_array_equal(ter, np.array(sm.TER(**TER_OPTS)._extract_corpus_statistics(hyps, refs)))


def test_every_path_scores_like_sacrebleu(table):
    systems, refs, st = table
    frames = {m: bleustats.corpus_scores(st, by="system", metric=m) for m in ("bleu", "chrf", "chrf++", "ter")}
    for name, hyps in systems.items():
        mask = st.column("system") == name
        want = {"bleu": sm.BLEU().corpus_score(hyps, refs), "chrf": sm.CHRF(**CHRF_OPTS).corpus_score(hyps, refs),
                "ter": sm.TER(**TER_OPTS).corpus_score(hyps, refs)}
        want["chrf++"] = want["chrf"]
        for m, w in want.items():
            got = bleustats.corpus_score(st, metric=m, rows=mask)
            assert got.score == pytest.approx(w.score, abs=1e-9, rel=0) and str(got) == str(w)
            assert frames[m].set_index("system").loc[name, "score"] == pytest.approx(w.score, abs=1e-9, rel=0)
        sent = bleustats.sentence_scores(st, metric="ter")[mask]
        want_sent = [sm.TER(**TER_OPTS).sentence_score(h, [a, b]).score for h, a, b in zip(hyps, *refs)]
        np.testing.assert_allclose(sent, want_sent, atol=1e-9, rtol=0)


def test_saved_table_round_trip_and_schema_errors(table, tmp_path):
    _, _, st = table
    path = tmp_path / "st.parquet"
    st.save(path)
    back = bleustats.load_stats(path)
    assert back.table.equals(st.table) and back.chrf_options == st.chrf_options
    broken = st.table.drop_columns(["ter_ref_length"])
    import pyarrow.parquet as pq

    pq.write_table(broken, tmp_path / "bad.parquet")
    with pytest.raises(SchemaError, match="ter_ref_length: required column is missing"):
        bleustats.load_stats(tmp_path / "bad.parquet")


def test_paired_tests_on_the_table_equal_sacrebleu(table, monkeypatch):
    systems, refs, st = table
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    named = [("A", systems["A"]), ("B", systems["B"])]
    for metric, obj in (("chrf", sm.CHRF(**CHRF_OPTS, references=refs)), ("ter", sm.TER(**TER_OPTS, references=refs))):
        _, want = PairedTest(named, {"m": obj}, None, test_type="bs", n_samples=100)()
        key = [k for k in want if k != "System"][0]
        got = bleustats.paired_bootstrap(st, "A", "B", metric=metric, n_samples=100)
        assert got.p_value == want[key][1].p_value
        assert got.system_mean == pytest.approx(want[key][1].mean, abs=1e-9, rel=0)
        _, want = PairedTest(named, {"m": obj}, None, test_type="ar", n_samples=100)()
        got = bleustats.paired_approximate_randomization(st, "A", "B", metric=metric, n_samples=100)
        assert got.p_value == want[key][1].p_value


def test_errors_name_the_missing_group():
    st = bleustats.compute_stats(["a b"], [["a b"]])
    with pytest.raises(ValueError, match=r"no chrF statistics .* metrics=\('bleu', 'chrf'\)"):
        bleustats.corpus_score(st, metric="chrf")
    st = bleustats.compute_stats(["a b"], [["a b"]], metrics=("chrf",))
    with pytest.raises(ValueError, match="word_order=0 .* metric='chrf'"):
        bleustats.corpus_score(st, metric="chrf++")
    with pytest.raises(InputError, match="metrics must name some of"):
        bleustats.compute_stats(["a"], [["a"]], metrics=("meteor",))
    with pytest.raises(InputError, match="ter_options is given but metrics has no 'ter'"):
        bleustats.compute_stats(["a"], [["a"]], ter_options={"normalized": True})


def test_study_combination_and_kbest_take_chrf_and_ter(table):
    from bleustats.meta.combine import component_scores
    from bleustats.meta.study import corpus_metric
    from bleustats.tools.kbest import score_nbest

    systems, refs, st = table
    for metric in ("chrf", "ter"):
        unit = corpus_metric(st, metric=metric)
        rows = np.flatnonzero(st.column("system") == "A")
        got = unit.unit_scores(unit.values[rows].sum(axis=0, keepdims=True), len(rows))[0]
        assert got == pytest.approx(bleustats.corpus_score(st, metric=metric, rows=rows).score, abs=1e-9)
        assert f"metric:{metric}" in str(unit.signature)
    comp = component_scores(st, ["chrf++", "ter"])
    np.testing.assert_allclose(comp["ter"], bleustats.sentence_scores(st, metric="ter"))
    nb = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a b c d e", "a b c d x", "u v w x y"],
                       "model_score": [-1.0, -0.5, 0.0]})
    rf = pd.DataFrame({"seg_id": [0, 1], "text": ["a b c d e", "u v w x y z"]})
    res = score_nbest(nb, rf, tokenize="none", variants=["chrf++", "ter"])
    want = sm.TER().sentence_score("a b c d e", ["a b c d e"]).score
    assert want == 0.0 and set(res.oracles) == {"chrf++", "ter"}
