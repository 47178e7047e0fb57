"""bleustats.analysis and `bleustats analyze`: BLEU's blind spots (Callison-Burch et al. 2006)."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bleustats
from bleustats.cli import analyze as cli_analyze
from bleustats.tools import blind_spots
from bleustats.tools.blind_spots import (
    check_permutations,
    corpus_report,
    log10_factorial,
    permute_chunks,
    reference_draw,
    reference_draws,
    segment_bigrams,
    segment_corpus,
)
from bleustats.tools.outliers import leave_one_out_r2, r_squared

from ..conftest import examples, shared_path

pytestmark = pytest.mark.usefixtures("numba_one_thread")

# Callison-Burch, Osborne and Koehn (2006), "Re-evaluating the Role of BLEU in Machine Translation
# Research", Table 1: the hypothesis and its four references, as printed in the paper.
TABLE1_HYP = "Appeared calm when he was taken to the American plane , which will to Miami , Florida ."
TABLE1_REFS = [
    "Orejuela appeared calm as he was led to the American plane which will take him to Miami , Florida .",
    "Orejuela appeared calm while being escorted to the plane that would take him to Miami , Florida .",
    "Orejuela appeared calm as he was being led to the American plane that was to carry him to Miami "
    "in Florida .",
    "Orejuela seemed quite calm as he was being led to the American plane that would take him to Miami "
    "in Florida .",
]

# Small vocabularies make repeated n-grams, clipping and chance matches at the joins common.
_tokens = st.lists(st.sampled_from("a b c d e".split()), min_size=0, max_size=12).map(" ".join)
_refs = st.lists(_tokens, min_size=1, max_size=3)
_FAST = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- Table 1


def test_table1_published_numbers():
    # Paper, Table 1 and section 3.1: matches 15/10/5/3 over 18/17/16/15 n-grams, precisions
    # .83/.59/.31/.2, 8 chunks, 40,320 permutations. "Appeared" only matches "appeared" without
    # case, which is why the paper's counts imply a case-insensitive comparison.
    seg = segment_bigrams(TABLE1_HYP, TABLE1_REFS, lowercase=True)
    assert seg.matches == (15, 10, 5, 3)
    assert seg.totals == (18, 17, 16, 15)
    assert [round(p, 2) for p in seg.precisions] == [0.83, 0.59, 0.31, 0.2]
    assert seg.hyp_len == 18 and seg.bigram_matches == 10
    assert seg.n_chunks == 8 == seg.hyp_len - seg.bigram_matches
    assert round(10 ** seg.log10_permutations) == 40_320 == math.factorial(8)
    assert seg.log10_bound == seg.log10_permutations == seg.log10_distinct
    assert [" ".join(c) for c in seg.chunks] == [
        "appeared calm", "when", "he was", "taken", "to the american plane", ",", "which will",
        "to miami , florida ."]
    # cuts after: calm|when, when|he, was|taken, taken|to, plane|",", ","|which, will|to
    assert seg.mismatches == (1, 2, 4, 5, 9, 10, 12)


def test_table1_counts_equal_sacrebleu():
    # The oracle: sacreBLEU 2.6.0 (pinned in the test extra) counts the same matches and totals.
    import sacrebleu
    ref = sacrebleu.sentence_bleu(TABLE1_HYP, TABLE1_REFS, lowercase=True)
    seg = segment_bigrams(TABLE1_HYP, TABLE1_REFS, lowercase=True)
    assert list(seg.matches) == ref.counts and list(seg.totals) == ref.totals
    p = permute_chunks(TABLE1_HYP, TABLE1_REFS, lowercase=True, n=3, seed=0)
    assert p.original_score == pytest.approx(ref.score, abs=1e-9)


def test_table1_case_sensitive_differs():
    # Without lowercasing, "Appeared" matches nothing: one unigram and one bigram fewer.
    seg = segment_bigrams(TABLE1_HYP, TABLE1_REFS)
    assert seg.matches[:2] == (14, 9) and seg.n_chunks == 9


def test_table1_permutations_and_reference_draw():
    p = permute_chunks(TABLE1_HYP, TABLE1_REFS, lowercase=True, n=200, seed=7)
    assert len(p.texts) == 200 and not p.exhaustive and p.seed == 7
    assert not p.lowered.any()
    assert (p.totals == np.asarray(p.original.totals)).all()
    assert (p.scores >= p.original_score - 1e-9).all()
    d = reference_draw(TABLE1_HYP, TABLE1_REFS, lowercase=True, seed=0)
    assert d.found and d.reason == ""
    assert d.matches == (15, 10, 5, 3) and d.totals == (18, 17, 16, 15)
    assert d.score == d.original_score
    assert d.text != " ".join(d.original.tokens)
    assert sum(L for _, _, L in d.runs) == 15


def test_log10_factorial_big_values():
    assert log10_factorial(8) == pytest.approx(math.log10(40320))
    assert log10_factorial(60) == pytest.approx(math.log10(math.factorial(60)))
    assert log10_factorial(60) > 81  # the paper's Figure 1 reaches 10^73 and beyond
    with pytest.raises(ValueError, match=r"n must be a non-negative integer; got -1"):
        log10_factorial(-1)


# --------------------------------------------------------------------------- definitions


@_FAST
@given(hyp=_tokens, refs=_refs)
def test_segmentation_definitions(hyp, refs):
    seg = segment_bigrams(hyp, refs, tokenize="none")
    assert tuple(t for c in seg.chunks for t in c) == seg.tokens
    assert seg.n_chunks == (seg.hyp_len - seg.matched_bigram_positions if seg.hyp_len else 0)
    assert seg.matched_bigram_positions >= seg.bigram_matches
    assert seg.log10_bound >= seg.log10_permutations - 1e-12 >= seg.log10_distinct - 2e-12
    ref_bigrams = {b for r in refs for b in zip(r.split(), r.split()[1:])}
    for c in seg.chunks:  # every bigram inside a chunk occurs in a reference
        assert all(b in ref_bigrams for b in zip(c, c[1:]))


def test_statistics_equal_compute_stats_on_raw_text():
    # Tokenize once, then tokenize='none' on the joined tokens: same counts as the engine on raw text.
    hyps = ["Hello, world! It's 3.5 o'clock.", "The U.S.A. (and \"others\") agreed.", ""]
    refs = [["hello , world ! it's 3.5 o'clock .", "Hello world."], ["The USA agreed."], ["x"]]
    for lc in (False, True):
        segs = segment_corpus(hyps, refs, lowercase=lc)
        st_ = bleustats.compute_stats(hyps, refs, references_layout="segments", lowercase=lc)
        for n in range(1, 5):
            assert [s.matches[n - 1] for s in segs] == st_.column(f"match_{n}").tolist()
            assert [s.totals[n - 1] for s in segs] == st_.column(f"total_{n}").tolist()
        assert [s.ref_len for s in segs] == st_.column("ref_len_closest").tolist()


def test_streams_layout_equals_segments_layout():
    hyps = ["a b c", "c b a"]
    streams = [["a b c", "a b"], [None, "c b"]]
    a = segment_corpus(hyps, streams, references_layout="streams", tokenize="none")
    b = segment_corpus(hyps, [["a b c"], ["a b", "c b"]], tokenize="none")
    assert a == b


def test_repeated_bigram_clipping_makes_paper_bound_larger():
    # "a b" twice in the hypothesis, once in the reference: b (clipped) = 1, but both positions
    # match, so there are k - b_pos = 2 chunks while the paper's (k - b)! counts 3!.
    seg = segment_bigrams("a b a b", ["a b"], tokenize="none")
    assert seg.bigram_matches == 1 and seg.matched_bigram_positions == 2
    assert seg.chunks == (("a", "b"), ("a", "b"))
    assert seg.log10_permutations == pytest.approx(math.log10(2))
    assert seg.log10_bound == pytest.approx(math.log10(6))
    assert seg.log10_distinct == 0.0  # the two chunks are the same text


# --------------------------------------------------------------------------- permutations


@_FAST
@given(hyp=_tokens, refs=_refs, seed=st.integers(0, 2**32))
def test_permutation_invariance_property(hyp, refs, seed):
    # Paper, 3.1: permuting the chunks keeps every n-gram match; only joins can add matches.
    p = permute_chunks(hyp, refs, n=6, seed=seed, tokenize="none")
    orig = np.asarray(p.original.matches)
    assert (p.matches >= orig).all()
    assert (p.matches[:, 0] == orig[0]).all()  # unigrams: the same multiset of tokens
    assert (p.totals == np.asarray(p.original.totals)).all()
    assert (p.scores >= p.original_score - 1e-9).all()
    for order, text in zip(p.orders, p.texts):
        assert order != tuple(range(p.original.n_chunks))
        assert sorted(order) == list(range(p.original.n_chunks))
        assert sorted(text.split()) == sorted(p.original.tokens)


@_FAST
@given(data=st.lists(st.tuples(_tokens, _refs), min_size=0, max_size=6), seed=st.integers(0, 99))
def test_check_permutations_corpus_property(data, seed):
    hyps = [h for h, _ in data]
    refs = [r for _, r in data]
    chk = check_permutations(hyps, refs, permutations=4, seed=seed, tokenize="none")
    assert chk.ok and chk.n_lowered == 0
    assert chk.n_sentences == len(hyps)
    drawn, n_chunks = chk.columns["drawn"], chk.columns["n_chunks"]
    few = np.array([math.factorial(min(c, 5)) - 1 for c in n_chunks], dtype=np.int64)
    assert (drawn == np.minimum(few, 4)).all()
    assert (chk.columns["exhaustive"] == (few <= 4)).all()


def test_permutations_can_raise_matches():
    # The paper notes some permutations score higher: a join can create a reference bigram.
    p = permute_chunks("x y", ["y x"], tokenize="none", n=5)
    assert p.exhaustive and p.texts == ("y x",)
    assert p.raised.tolist() == [True] and p.matches[0, 1] == 1 and p.original.matches[1] == 0
    chk = check_permutations(["x y", "y x"], [["y x"], ["y x"]], tokenize="none")
    assert chk.n_raised == 1 and chk.sentences_raised == 1 and chk.columns["max_gain_2"].tolist() == [1, 0]
    assert chk.examples[0]["permuted"] == "y x"


def test_exhaustive_when_few_orders():
    p = permute_chunks("c b a", ["a b c"], n=100, seed=0, tokenize="none")
    assert p.exhaustive and len(p.texts) == math.factorial(3) - 1 and len(set(p.texts)) == 5


def test_seed_reproducible_and_reported():
    a = permute_chunks(TABLE1_HYP, TABLE1_REFS, n=20, seed=123, lowercase=True)
    b = permute_chunks(TABLE1_HYP, TABLE1_REFS, n=20, seed=123, lowercase=True)
    c = permute_chunks(TABLE1_HYP, TABLE1_REFS, n=20, seed=124, lowercase=True)
    assert a.orders == b.orders and a.orders != c.orders and a.seed == 123
    g = permute_chunks(TABLE1_HYP, TABLE1_REFS, n=2, seed=np.random.default_rng(1), lowercase=True)
    assert g.seed is None
    fresh = corpus_report(["a b"], [["b a"]], permutations=1, seed=None)
    assert isinstance(fresh.seed, int) and f"seed:{fresh.seed}" in fresh.signature
    with pytest.raises(ValueError, match=r"seed must be a non-negative int.*got -3"):
        permute_chunks("a", ["a"], seed=-3)


# --------------------------------------------------------------------------- reference draws


@_FAST
@given(hyp=_tokens, refs=_refs, seed=st.integers(0, 99))
def test_reference_draw_property(hyp, refs, seed):
    d = reference_draw(hyp, refs, seed=seed, tokenize="none", max_tries=10)
    if d.found:
        assert d.matches == d.original.matches and d.totals == d.original.totals
        assert len(d.text.split()) == d.original.hyp_len
        assert d.score == pytest.approx(d.original_score, abs=1e-9)
    else:
        assert d.reason and d.text is None


def test_reference_draw_mixes_references_and_explains_failures():
    refs = ["the cat sat on the mat", "a dog lay on a rug"]
    d = reference_draw("the cat lay on a rug", refs, seed=0, tokenize="none")
    assert d.found and d.matches == d.original.matches
    ds = reference_draws(["a b c", "a b a"], [["a b c"], ["a b", "b a"]], tokenize="none")
    assert ds[0].found and not ds[1].found
    assert "not those of separate matched runs" in ds[1].reason


# --------------------------------------------------------------------------- corpus report


def test_corpus_report_summary_and_by_length():
    hyps = [TABLE1_HYP, "the cat sat on a mat", ""]
    refs = [TABLE1_REFS, ["the cat sat on the mat"], ["nothing here"]]
    rep = corpus_report(hyps, refs, lowercase=True, permutations=10, seed=5)
    assert rep.columns["n_chunks"].tolist() == [8, 3, 0]
    s = rep.summary()
    assert s["sentences"] == 3 and s["tokens"] == 24
    assert s["max_log10_permutations"] == pytest.approx(math.log10(40320))
    assert s["permutation_check"]["ok"] and s["permutation_check"]["lowered"] == 0
    assert "seed:5" in rep.signature and "nrefs:var" in rep.signature
    table = rep.by_length(bin_width=10)
    assert table["sentences"].tolist() == [2, 1] and table["length"].tolist() == ["0-9", "10-19"]
    json.dumps(rep.to_dict())  # serializable


def test_empty_corpus_gives_empty_report():
    rep = corpus_report([], [], permutations=3)
    s = rep.summary()
    assert len(rep) == 0 and s["sentences"] == 0 and math.isnan(s["mean_log10_permutations"])
    assert rep.check.n_drawn == 0 and rep.check.ok
    assert segment_corpus([], []) == []


def test_plot_without_matplotlib_says_how_to_install(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    rep = corpus_report(["a b"], [["b a"]])
    with pytest.raises(ImportError, match=r"pip install 'bleustats\[plot\]'"):
        rep.plot(tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_plot_writes_png(tmp_path):
    rep = corpus_report([TABLE1_HYP, "a b c"], [TABLE1_REFS, ["c b a"]], lowercase=True)
    path = tmp_path / "fig.png"
    blind_spots.plot_permutation_counts({"sys": rep, "other": rep}, path, title="t")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: segment_bigrams("a b", []), ValueError, r"segment 0 has no reference"),
    (lambda: segment_corpus(["a"], [[]]), ValueError, r"segment 0 has no reference"),
    (lambda: segment_corpus(["a", "b"], [["a"]]), ValueError, r"1 per-segment lists but there are 2"),
    (lambda: segment_corpus(["a"], [["a", "b"]], references_layout="streams"), ValueError,
     r"references\[0\] has 2 lines but there are 1 hypotheses"),
    (lambda: segment_corpus(["a"], [[None]], references_layout="streams"), ValueError,
     r"segment 0 has no reference"),
    (lambda: segment_corpus("a b", [["a"]]), ValueError, r"got a single str. Wrap it in a list"),
    (lambda: segment_corpus([1], [["a"]]), TypeError, r"hypotheses\[0\] must be a str; got int 1"),
    (lambda: segment_corpus(["a"], [[3]]), TypeError, r"references\[0\]\[0\] must be a str; got int"),
    (lambda: segment_corpus(["a"], ["a"]), ValueError, r"references\[0\] must be a list of str"),
    (lambda: segment_corpus(["a"], [["a"]], references_layout="x"), ValueError,
     r"references_layout must be 'segments' or 'streams'; got 'x'"),
    (lambda: segment_bigrams("a", "a"), ValueError, r"got a single str 'a'. Write \[reference\]"),
    (lambda: segment_bigrams(None, ["a"]), TypeError, r"hypothesis must be a str; got NoneType"),
    (lambda: segment_bigrams("a", ["a"], tokenize="14a"), ValueError, r"tokenize must be one of .*got '14a'"),
    (lambda: segment_bigrams("a", ["a"], max_ngram_order=1), ValueError,
     r"max_ngram_order must be an integer from 2 to 32 \(the analysis needs bigrams\); got 1"),
    (lambda: permute_chunks("a", ["a"], n=-1), ValueError, r"n must be an integer >= 0; got -1"),
    (lambda: check_permutations(["a"], [["a"]], permutations=1.5), ValueError,
     r"permutations must be an integer >= 0; got 1.5"),
    (lambda: reference_draw("a", ["a"], max_tries=0), ValueError, r"max_tries must be an integer >= 1"),
])
def test_bad_input_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_empty_hypothesis_is_an_empty_result():
    seg = segment_bigrams("", ["a b"])
    assert seg.chunks == () and seg.n_chunks == 0 and seg.log10_permutations == 0.0
    assert seg.matches == (0, 0, 0, 0) and seg.precisions == (0.0, 0.0, 0.0, 0.0)
    p = permute_chunks("", ["a b"])
    assert p.texts == () and p.matches.shape == (0, 4)
    d = reference_draw("", ["a b"])
    assert d.found and d.text == ""
    # an empty reference is a reference (sacreBLEU's convention), not a missing one
    assert segment_bigrams("a b", [""]).n_chunks == 2


# --------------------------------------------------------------------------- R² and outliers


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scipy warns on near-constant inputs
@settings(max_examples=examples(20), deadline=None)
@given(xy=st.lists(st.tuples(st.floats(-100, 100), st.floats(-100, 100)), min_size=4, max_size=12))
# found by hypothesis: three equal tiny values whose float mean is not exactly them
@example(xy=[(0.0, 0.0), (0.0, 1.2196643849577402e-29), (0.0, 1.2196643849577402e-29), (1.0, 1.2196643849577402e-29)])
def test_r_squared_equals_scipy(xy):
    import scipy.stats as scipy_stats
    x = np.array([a for a, _ in xy])
    y = np.array([b for _, b in xy])
    res = leave_one_out_r2(x, y)

    def scipy_r2(a, b):
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            return float("nan")
        return scipy_stats.pearsonr(a, b).statistic ** 2

    for got, want in [(res.r2, scipy_r2(x, y)), (r_squared(x, y), scipy_r2(x, y))] + [
        (res.r2_without[i], scipy_r2(np.delete(x, i), np.delete(y, i))) for i in range(len(x))
    ]:
        if math.isnan(want):  # a constant side: correlation undefined, as scipy says
            assert math.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-9)
    if not math.isnan(res.r):  # the sign R² hides
        assert res.r == pytest.approx(scipy_stats.pearsonr(x, y).statistic, abs=1e-9)


def test_outlier_is_flagged():
    # The paper's pattern (Figures 2-3: R² 0.14 with the rule-based system, 0.87 without): seven
    # systems on a noisy line and one the metric rates low that humans rate high.
    metric = {f"S{i}": 20.0 + 2 * i for i in range(7)} | {"rule-based": 18.0}
    human = {f"S{i}": 2.0 + 0.2 * i + (0.15 if i % 2 else -0.15) for i in range(7)} | {"rule-based": 3.6}
    res = leave_one_out_r2(metric, human, flag_top=1)
    assert res.flagged == ("rule-based",)
    i = res.systems.index("rule-based")
    assert res.r2 < 0.3 and res.r2_without[i] > 0.85
    table = res.to_pandas()
    assert table["system"].iloc[0] == "rule-based" and table["flagged"].iloc[0]
    assert res.to_dict()["flagged"] == ["rule-based"]


def test_outlier_bad_input():
    with pytest.raises(ValueError, match=r"at least 3 systems .* got 2"):
        leave_one_out_r2([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"one number per system each; got 3 and 4"):
        leave_one_out_r2([1, 2, 3], [1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"human must hold finite numbers; got nan at index 1"):
        leave_one_out_r2([1, 2, 3], [1, float("nan"), 3])
    with pytest.raises(ValueError, match=r"only in metric: \['C'\], only in human: \['D'\]"):
        leave_one_out_r2({"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 2, "D": 3})
    with pytest.raises(ValueError, match=r"systems must name every system \(3\); got 2"):
        leave_one_out_r2([1, 2, 3], [1, 2, 4], systems=["a", "b"])
    assert math.isnan(r_squared([1, 1, 1], [1, 2, 3]))


# --------------------------------------------------------------------------- CLI


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bleustats")
    cli_analyze.add_parser(parser.add_subparsers(dest="command", required=True))
    return parser


@pytest.fixture()
def files(tmp_path):
    hyp = tmp_path / "hyp.txt"
    hyp.write_text(TABLE1_HYP + "\nthe cat sat on a mat\n", encoding="utf-8")
    refs = []
    for k, r in enumerate(TABLE1_REFS[:2]):
        p = tmp_path / f"ref{k}.txt"
        p.write_text(r + "\nthe cat sat on the mat\n", encoding="utf-8")
        refs.append(str(p))
    return str(hyp), refs, tmp_path


def test_cli_text_and_json(files, capsys):
    hyp, refs, _ = files
    args = _parser().parse_args(["analyze", *refs, "-i", hyp, "-lc", "--permutations", "5"])
    assert cli_analyze.run(args) == 0
    out = capsys.readouterr().out
    assert "sentences: 2" in out and "0 lowered a match count" in out and "signature: nrefs:2|case:lc" in out
    args = _parser().parse_args(["analyze", *refs, "-i", hyp, "--json", "--seed", "3"])
    assert cli_analyze.run(args) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["sentences"] == 2 and payload["summary"]["seed"] == 3
    assert payload["summary"]["permutation_check"]["lowered"] == 0
    assert payload["sentences"]["hyp_len"] == [18, 6]


def test_cli_plot(files, capsys):
    hyp, refs, tmp = files
    png = tmp / "out.png"
    args = _parser().parse_args(["analyze", *refs, "-i", hyp, "--plot", str(png), "--permutations", "0"])
    assert cli_analyze.run(args) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert "permutation check" not in capsys.readouterr().out


def test_cli_errors(files, capsys):
    hyp, refs, tmp = files
    assert cli_analyze.run(_parser().parse_args(["analyze", "-i", hyp])) == 1
    assert "no references" in capsys.readouterr().err
    short = tmp / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    assert cli_analyze.run(_parser().parse_args(["analyze", str(short), "-i", hyp])) == 1
    assert "has 1 lines but the hypotheses have 2" in capsys.readouterr().err
    assert cli_analyze.run(_parser().parse_args(["analyze", refs[0], "-i", str(tmp / "missing.txt")])) == 1
    assert "bleustats analyze: error:" in capsys.readouterr().err
    for bad in (["--permutations", "-1"], ["--max-ngram-order", "0"], ["--seed", "x"]):
        with pytest.raises(SystemExit) as exc:
            _parser().parse_args(["analyze", refs[0], "-i", hyp, *bad])
        assert exc.value.code == 2
    # order 1 is in --max-ngram-order's range (1..32, as in every command), but analyze cuts at bigrams
    assert cli_analyze.run(_parser().parse_args(["analyze", refs[0], "-i", hyp, "--max-ngram-order", "1"])) == 2
    assert "needs order 2 or more" in capsys.readouterr().err


def test_cli_empty_input(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    args = _parser().parse_args(["analyze", str(empty), "-i", str(empty), "--json"])
    assert cli_analyze.run(args) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["sentences"] == 0 and payload["summary"]["mean_log10_permutations"] is None


# --------------------------------------------------------------------------- real data


def test_wmt21_permutations_never_lower_matches():
    # Every sentence of one WMT21 en-de system (first 200 segments to stay fast), refs A, C, D.
    import pandas as pd

    root = shared_path("data", "wmt21_news", "en-de")
    sysout = pd.read_csv(root / "system_outputs.tsv", sep="\t", quoting=3, keep_default_na=False)
    refs = pd.read_csv(root / "references.tsv", sep="\t", quoting=3, keep_default_na=False)
    hyp = sysout[sysout.system == "Online-W"].sort_values("seg_id").head(200)
    by_seg = refs.groupby("seg_id")["text"].apply(list)
    chk = check_permutations(hyp.text.tolist(), [by_seg[s] for s in hyp.seg_id], permutations=5, seed=0)
    assert chk.ok and chk.n_sentences == 200 and chk.n_drawn > 500
