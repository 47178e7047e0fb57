"""The ΔBLEU paper's correlation study: unit scores, the protocol against a plain twin, bad input."""

from __future__ import annotations

import functools
import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from bleustats.errors import InputError
from bleustats.meta.resample import bootstrap_indices, unit_partitions
from bleustats.metrics.tables import corpus_score
from bleustats.metrics.sentence import score_variant
from bleustats.engine.stats import compute_stats
from bleustats.meta.report import plot_sweeps, table2, to_markdown
from bleustats.meta.study import (PAPER_UNIT_SIZES, corpus_metric, correlation_study, mean_metric,
                                  sentence_mean_metric, sweep)

SYSTEMS = ("A", "B", "C")
N_SEG = 14
WORDS = "the a cat dog sat on mat rug ran far near house tree big small red".split()


def _corpus(seed: int = 0):
    rng = np.random.default_rng(seed)
    refs, hyps, human = [], [], []
    for g in range(N_SEG):
        src = list(rng.choice(WORDS, size=int(rng.integers(3, 9))))
        for k in range(3):
            r = [w if rng.random() > 0.2 else str(rng.choice(WORDS)) for w in src]
            refs.append((g, str(k), float([1.0, 0.4, -0.5][k]), " ".join(r)))
        for s_i, s in enumerate(SYSTEMS):
            noise = 0.15 + 0.2 * s_i
            h = [w if rng.random() > noise else str(rng.choice(WORDS)) for w in src]
            hyps.append((g, s, " ".join(h)))
            quality = sum(a == b for a, b in zip(h, src)) / len(src)
            for rater in range(2):  # two raters, averaged by the study
                human.append((s, g, float(np.round(5 * quality + rng.normal(0, 0.7), 1)), rater))
    hyps = pd.DataFrame(hyps, columns=["seg_id", "system", "text"])
    refs = pd.DataFrame(refs, columns=["seg_id", "ref_id", "weight", "text"])
    human = pd.DataFrame(human, columns=["system", "seg_id", "score", "rater"])
    return hyps, refs, human


@pytest.fixture(scope="module")
def corpus(numba_one_thread):
    hyps, refs, human = _corpus()
    stats = {view: compute_stats(hyps, refs, tokenize="none", ref_view=view,
                                 weight_threshold=0.0 if view == "threshold" else None)
             for view in ("first", "threshold", "all")}
    return hyps, refs, human, stats


def _metrics(stats):
    out = []
    for view in ("first", "threshold", "all"):
        out += [corpus_metric(stats[view]), sentence_mean_metric(stats[view]),
                corpus_metric(stats[view], metric="delta_bleu")]
    return out


# --------------------------------------------------------------------------- unit scores


@pytest.mark.parametrize("options", [
    {}, {"smooth_method": "floor"}, {"smooth_method": "none"}, {"smooth_method": "add-k", "smooth_value": 2},
    {"use_effective_order": True}, {"ref_length": "shortest"}, {"max_ngram_order": 2},
])
@pytest.mark.parametrize("metric", ["bleu", "delta_bleu"])
def test_unit_bleu_equals_corpus_score(corpus, metric, options):
    stats = corpus[3]["all"]
    m = corpus_metric(stats, metric=metric, **options)
    rng = np.random.default_rng(1)
    opts = {k: v for k, v in options.items() if k != "max_ngram_order"}
    table = stats if "max_ngram_order" not in options else compute_stats(
        corpus[0], corpus[1], tokenize="none", max_ngram_order=options["max_ngram_order"])
    for size in (1, 2, 5, 17, len(stats)):
        rows = rng.choice(len(stats), size=size, replace=False)
        got = m.unit_scores(m.values[rows].sum(axis=0, keepdims=True), size)[0]
        want = corpus_score(table, metric=metric, rows=rows, **opts).score
        if metric == "bleu":
            assert got == want  # integer sums: the same float operations, bit for bit
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_sentence_mean_equals_mean_of_sentence_scores(corpus):
    stats = corpus[3]["all"]
    m = sentence_mean_metric(stats, "bleu+1")
    scores = score_variant(stats, "bleu+1")
    rows = np.arange(0, len(stats), 3)
    assert m.unit_scores(m.values[rows].sum(axis=0, keepdims=True), len(rows))[0] == pytest.approx(
        scores[rows].mean(), rel=1e-13)


# --------------------------------------------------------------------------- the protocol


def _twin_unit_score(stats, kind, opts, row_of, sent, system, segs):
    """The twin's score of ``system`` on the segments ``segs``: mean sentence score or corpus score."""
    rows = [row_of[(system, g)] for g in segs]
    if kind == "mean":
        return float(np.mean(sent[rows]))
    return corpus_score(stats, rows=rows, **opts).score


def _twin(stats_by_metric, human, *, unit_size, n_assignments, seed, n_bootstrap, confidence=0.95):
    """The protocol in plain Python: loops, corpus_score on rows, scipy's coefficients."""
    h = human.dropna(subset=["score"]).groupby(["system", "seg_id"])["score"].mean().to_dict()
    pairs = []
    for a, b in itertools.combinations(sorted({s for s, _ in h}), 2):
        segs = sorted({g for s, g in h if s == a} & {g for s, g in h if s == b})
        if segs:
            pairs.append((a, b, segs))
    part, boot = np.random.SeedSequence(seed).spawn(2)
    seeds = part.spawn(len(pairs))
    assignments = 1 if unit_size == 1 else n_assignments
    units = [unit_partitions(len(segs), unit_size, n_assignments=n_assignments, seed=seeds[p])
             if unit_size > 1 else np.arange(len(segs)).reshape(1, -1, 1) for p, (_, _, segs) in enumerate(pairs)]
    out = {}
    for label, (kind, stats, opts) in stats_by_metric.items():
        row_of = {(s, int(g)): i for i, (s, g) in enumerate(zip(stats.column("system"), stats.column("seg_id")))}
        sent = score_variant(stats, "sacrebleu:exp") if kind == "mean" else None
        score = functools.partial(_twin_unit_score, stats, kind, opts, row_of, sent)
        xs, ys = [], []
        for a_i in range(assignments):
            x, y = [], []
            for p, (a, b, segs) in enumerate(pairs):
                for unit in units[p][a_i]:
                    us = [segs[i] for i in unit]
                    x.append(score(a, us) - score(b, us))
                    y.append(np.mean([h[(a, g)] for g in us]) - np.mean([h[(b, g)] for g in us]))
            xs.append(x)
            ys.append(y)
        rho = np.array([scipy.stats.spearmanr(x, y)[0] for x, y in zip(xs, ys)])
        tau = np.array([scipy.stats.kendalltau(x, y)[0] for x, y in zip(xs, ys)])
        idx = bootstrap_indices(len(xs[0]), n_bootstrap, seed=np.random.default_rng(boot))
        with warnings.catch_warnings():  # a constant resample: nan, left out as the study does
            warnings.simplefilter("ignore")
            brho = [scipy.stats.spearmanr(np.array(xs[b % assignments])[i], np.array(ys[b % assignments])[i])[0]
                    for b, i in enumerate(idx)]
        lo, hi = (1 - confidence) / 2, (1 + confidence) / 2
        out[label] = dict(rho=rho, tau=tau, n=len(xs[0]), boot=np.nanquantile(brho, [lo, hi]))
    return out


@pytest.mark.parametrize("unit_size, n_assignments", [(3, 12), (1, 5), (14, 3)])
def test_protocol_equals_plain_python_twin(corpus, unit_size, n_assignments):
    human, stats = corpus[2], corpus[3]
    metrics = [corpus_metric(stats["all"]), corpus_metric(stats["first"], metric="delta_bleu"),
               sentence_mean_metric(stats["threshold"])]
    res = correlation_study(metrics, human, unit_size=unit_size, n_assignments=n_assignments, seed=11,
                            n_bootstrap=40)
    twin = _twin({"BLEU [all]": ("corpus", stats["all"], {}),
                  "ΔBLEU [single]": ("corpus", stats["first"], {"metric": "delta_bleu"}),
                  "sBLEU [w≥0]": ("mean", stats["threshold"], {})},
                 human, unit_size=unit_size, n_assignments=n_assignments, seed=11, n_bootstrap=40)
    assert res.n_distinct_assignments == (1 if unit_size == 1 else n_assignments)
    for label, t in twin.items():
        np.testing.assert_allclose(res.rho[label], t["rho"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.tau[label], t["tau"], rtol=0, atol=1e-12)
        row = res.summary.set_index("label").loc[label]
        assert row["n_observations"] == t["n"] == 3 * (N_SEG // unit_size)
        assert row["rho"] == pytest.approx(np.nanmean(t["rho"]), abs=1e-12)
        assert [row["rho_bootstrap_low"], row["rho_bootstrap_high"]] == pytest.approx(t["boot"], abs=1e-12)


def test_pairs_and_exclusion_counts(corpus):
    human, stats = corpus[2], corpus[3]
    res = correlation_study([corpus_metric(stats["all"])], human, unit_size=4, n_assignments=5)
    assert res.pairs.values.tolist() == [["A", "B", 14, 3, 2], ["A", "C", 14, 3, 2], ["B", "C", 14, 3, 2]]
    assert res.exclusions == {"human_nan_rows": 0, "human_without_hypothesis": 0, "segments_dropped": 6}
    assert res.n_observations == 9


def test_observation_signs(corpus):
    """x and y are A − B on both sides: the human score as a metric correlates +1, its negative −1."""
    human = corpus[2]
    cell = human.groupby(["system", "seg_id"], as_index=False)["score"].mean()
    same = mean_metric(cell["system"], cell["seg_id"], cell["score"], metric="human")
    flipped = mean_metric(cell["system"], cell["seg_id"], -cell["score"], metric="-human")
    res = correlation_study([same, flipped], human, unit_size=2, n_assignments=30, seed=3)
    assert np.allclose(res.rho["human [all]"], 1.0) and np.allclose(res.tau["human [all]"], 1.0)
    assert np.allclose(res.rho["-human [all]"], -1.0)
    # reversing every pair flips both sides: nothing changes
    one = correlation_study([corpus_metric(corpus[3]["all"])], human, unit_size=2, n_assignments=10,
                            pairs=[("A", "B"), ("A", "C"), ("B", "C")])
    rev = correlation_study([corpus_metric(corpus[3]["all"])], human, unit_size=2, n_assignments=10,
                            pairs=[("B", "A"), ("C", "A"), ("C", "B")])
    np.testing.assert_allclose(one.rho["BLEU [all]"], rev.rho["BLEU [all]"], atol=1e-12)


def test_same_assignments_for_every_metric(corpus):
    human, stats = corpus[2], corpus[3]
    m = corpus_metric(stats["all"])
    twin = corpus_metric(stats["all"], name="BLEU again")
    alone = correlation_study([m], human, unit_size=3, n_assignments=25, seed=5)
    together = correlation_study(_metrics(stats) + [twin], human, unit_size=3, n_assignments=25, seed=5)
    assert np.array_equal(together.rho["BLEU [all]"], together.rho["BLEU again [all]"])
    # the assignments do not depend on which metrics are studied
    assert np.array_equal(alone.rho["BLEU [all]"], together.rho["BLEU [all]"])
    assert np.array_equal(alone.tau["BLEU [all]"], together.tau["BLEU [all]"])
    assert len(np.unique(alone.rho["BLEU [all]"])) > 1  # and they do differ between assignments


def test_seed_reproduces_bit_for_bit(corpus):
    human, stats = corpus[2], corpus[3]
    metrics = _metrics(stats)
    a = correlation_study(metrics, human, unit_size=3, n_assignments=40, seed=7, n_threads=1)
    b = correlation_study(metrics, human, unit_size=3, n_assignments=40, seed=7, n_threads=2)
    c = correlation_study(metrics, human, unit_size=3, n_assignments=40, seed=8)
    assert json.dumps(a.to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)
    for label in a.rho:
        assert np.array_equal(a.rho[label], b.rho[label]) and np.array_equal(a.tau[label], b.tau[label])
    assert not np.array_equal(a.rho["BLEU [all]"], c.rho["BLEU [all]"])
    assert "seed:7" in a.summary.loc[0, "signature"] and "M:3|assign:40" in a.signature
    # the bootstrap stream is separate: its size leaves the assignments alone
    d = correlation_study(metrics, human, unit_size=3, n_assignments=40, seed=7, n_bootstrap=10)
    assert np.array_equal(a.rho["ΔBLEU [all]"], d.rho["ΔBLEU [all]"])


def test_unit_size_one_is_computed_once(corpus):
    human, stats = corpus[2], corpus[3]
    res = correlation_study([corpus_metric(stats["all"])], human, unit_size=1, n_assignments=1000)
    assert res.n_distinct_assignments == 1 and res.rho["BLEU [all]"].shape == (1,)
    assert "(1 distinct)" in res.signature
    row = res.summary.loc[0]
    assert np.isnan(row["rho_percentile_low"]) and np.isfinite(row["rho_bootstrap_low"])
    lo, hi = row["rho_fisher_low"], row["rho_fisher_high"]
    assert lo < row["rho"] < hi and row["n_observations"] == 3 * N_SEG


def test_nan_scores_are_dropped_and_counted(corpus):
    human, stats = corpus[2], corpus[3]
    noisy = pd.concat([human, pd.DataFrame({"system": ["A", "B"], "seg_id": [0, 1], "score": [np.nan, np.nan],
                                            "rater": [9, 9]})], ignore_index=True)
    a = correlation_study([corpus_metric(stats["all"])], human, unit_size=2, n_assignments=10)
    b = correlation_study([corpus_metric(stats["all"])], noisy, unit_size=2, n_assignments=10)
    assert b.exclusions["human_nan_rows"] == 2 and a.exclusions["human_nan_rows"] == 0
    assert np.array_equal(a.rho["BLEU [all]"], b.rho["BLEU [all]"])


def test_unmatched_human_scores(corpus):
    human, stats = corpus[2], corpus[3]
    extra = pd.concat([human, pd.DataFrame({"system": ["ref-A", "A"], "seg_id": [0, 99], "score": [1.0, 2.0],
                                            "rater": [0, 0]})], ignore_index=True)
    with pytest.raises(InputError, match=r"human: 2 rated \(system, seg_id\) cell\(s\) have no hypothesis in "
                                         r"metric 'BLEU \[all\]': \('A', 99\), \('ref-A', 0\)\. Systems with no "
                                         r"hypothesis at all: \['ref-A'\].*unmatched='exclude'"):
        correlation_study([corpus_metric(stats["all"])], extra, unit_size=2)
    res = correlation_study([corpus_metric(stats["all"])], extra, unit_size=2, n_assignments=10,
                            unmatched="exclude")
    assert res.exclusions["human_without_hypothesis"] == 2
    base = correlation_study([corpus_metric(stats["all"])], human, unit_size=2, n_assignments=10)
    assert np.array_equal(res.rho["BLEU [all]"], base.rho["BLEU [all]"])


def test_metric_missing_some_cells(corpus):
    human, stats = corpus[2], corpus[3]
    part = stats["all"].select(stats["all"].column("seg_id") != 3)
    with pytest.raises(InputError, match=r"3 rated .* no hypothesis in metric 'BLEU \[all\]': \('A', 3\)"):
        correlation_study([corpus_metric(part), sentence_mean_metric(stats["all"])], human, unit_size=2)
    res = correlation_study([corpus_metric(part), sentence_mean_metric(stats["all"])], human, unit_size=2,
                            n_assignments=4, unmatched="exclude")
    assert res.exclusions["human_without_hypothesis"] == 3 and res.pairs["n_shared"].tolist() == [13] * 3


@pytest.mark.parametrize("kwargs, match", [
    (dict(unit_size=15), r"unit_size must be at most the number of segments every pair shares; got 15, and "
                         r"3 pair\(s\) share fewer: A–B \(14\)"),
    (dict(pairs=[("A", "Z")]), r"pairs: system 'Z' has no rated segment"),
    (dict(pairs=[("A", "A")]), r"self pair or a repeat"),
    (dict(pairs=[("A", "B"), ("B", "A")]), r"self pair or a repeat"),
    (dict(pairs=["AB"]), r"pairs must be \(system_a, system_b\) tuples; got 'AB'"),
    (dict(unit_size=0), r"unit_size must be an integer >= 1; got 0"),
    (dict(n_assignments=0), r"n_assignments must be an integer >= 1"),
    (dict(seed=-1), r"seed must be an integer >= 0; got -1"),
    (dict(confidence=1.5), r"confidence must be a number in \(0, 1\)"),
    (dict(kendall_variant="wmt"), r"kendall_variant must be 'b' or 'c'; got 'wmt'"),
    (dict(unmatched="drop"), r"unmatched must be 'error' or 'exclude'; got 'drop'"),
    (dict(n_threads=0), r"n_threads must be a positive integer or None; got 0"),
])
def test_bad_options(corpus, kwargs, match):
    with pytest.raises(InputError, match=match):
        correlation_study([corpus_metric(corpus[3]["all"])], corpus[2], **kwargs)


def test_pair_without_shared_segments(corpus):
    human, stats = corpus[2], corpus[3]
    split = human[~((human["system"] == "A") & (human["seg_id"] < 7)) & ~((human["system"] == "B") &
                                                                        (human["seg_id"] >= 7))]
    with pytest.raises(InputError, match=r"pairs: 'A' and 'B' share no rated segment.*drop the pair"):
        correlation_study([corpus_metric(stats["all"])], split, unit_size=2, pairs=[("A", "B")])
    # by default such a pair is simply not a pair
    res = correlation_study([corpus_metric(stats["all"])], split, unit_size=2, n_assignments=3)
    assert res.pairs[["system_a", "system_b"]].values.tolist() == [["A", "C"], ["B", "C"]]
    only_a = human[human["system"] == "A"]
    with pytest.raises(InputError, match="no two systems share a rated segment"):
        correlation_study([corpus_metric(stats["all"])], only_a, unit_size=1)


@pytest.mark.parametrize("human, match", [
    (pd.DataFrame({"system": ["A"], "segment": [0], "value": [1.0]}),
     r"human: seg_id \(missing\); score \(missing\)\. Give one row per rating"),
    (pd.DataFrame({"system": ["A"], "seg_id": ["x"], "score": [1.0]}), r"seg_id \(want integers, got (object|str)\)"),
    (pd.DataFrame({"system": ["A"], "seg_id": [0], "score": ["good"]}), r"score \(want numbers, got (object|str)\)"),
    (pd.DataFrame({"system": ["A"], "seg_id": [0], "score": [np.nan]}), r"no rating with a score \(1 NaN"),
    (pd.DataFrame({"system": ["A", "B"], "seg_id": [0, 0], "score": [np.inf, 1.0]}),
     r"human: score \(1 infinite value\(s\)\)"),
    ([("A", 0, 1.0)], r"human must be a pandas DataFrame or Arrow table"),
])
def test_bad_human_tables(corpus, human, match):
    with pytest.raises(InputError, match=match):
        correlation_study([corpus_metric(corpus[3]["all"])], human, unit_size=1)


def test_bad_metrics(corpus):
    human, stats = corpus[2], corpus[3]
    with pytest.raises(InputError, match=r"labels must be unique; \['BLEU \[all\]'\]"):
        correlation_study([corpus_metric(stats["all"])] * 2, human)
    with pytest.raises(InputError, match="metrics must be a non-empty list of UnitMetric"):
        correlation_study([], human)
    dup = mean_metric(["A", "A"], [0, 0], [1.0, 2.0], metric="d")
    with pytest.raises(InputError, match=r"'d \[all\]' has 1 duplicate \(system, seg_id\) row\(s\), e.g. \('A', 0\)"):
        correlation_study([dup], human, unmatched="exclude")
    with pytest.raises(InputError, match=r"scores: 1 value\(s\) are NaN or infinite \(first at row 1\)"):
        mean_metric(["A", "B"], [0, 0], [1.0, np.nan], metric="x")
    with pytest.raises(InputError, match="seg_id must hold integers"):
        mean_metric(["A"], ["s1"], [1.0], metric="x")
    with pytest.raises(InputError, match=r"max_ngram_order must be an integer from 1 to the table's order 4; got 5"):
        corpus_metric(stats["all"], max_ngram_order=5)
    with pytest.raises(InputError, match="stats must be a bleustats.StatsTable"):
        corpus_metric(pd.DataFrame())
    neg = compute_stats(corpus[0], corpus[1].assign(weight=-0.5), tokenize="none")
    with pytest.raises(InputError, match=r"metric='delta_bleu' needs a reference of positive weight.*14 segment"):
        corpus_metric(neg, metric="delta_bleu")
    with pytest.raises(InputError, match="all tables of one metric need the same settings; ref_view"):
        corpus_metric([stats["all"], stats["first"]])


def test_several_tables_make_one_metric(corpus):
    """One system scored against other references (DSTC7's Human) joins the metric as a second table."""
    hyps, refs, human, stats = corpus
    a = compute_stats(hyps[hyps.system != "C"], refs, tokenize="none")
    c = compute_stats(hyps[hyps.system == "C"], refs, tokenize="none")
    joined = correlation_study([corpus_metric([a, c])], human, unit_size=2, n_assignments=8)
    whole = correlation_study([corpus_metric(stats["all"])], human, unit_size=2, n_assignments=8)
    assert np.array_equal(joined.rho["BLEU [all]"], whole.rho["BLEU [all]"])


# --------------------------------------------------------------------------- outputs and sweeps


def test_table2_markdown_and_json(corpus):
    human, stats = corpus[2], corpus[3]
    res = correlation_study(_metrics(stats), human, unit_size=2, n_assignments=20)
    t = res.table2("tau", interval="bootstrap")
    assert t.index.tolist() == ["BLEU", "sBLEU", "ΔBLEU"] and t.columns.tolist() == ["single", "w≥0", "all"]
    assert all(cell.count("(") == 1 for cell in t.values.ravel())
    md = to_markdown(res)
    assert "| metric | single | w≥0 | all |" in md and "Kendall τ-b" in md and str(res.signature) in md
    payload = json.loads(json.dumps(res.to_dict()))
    assert len(payload["metrics"]) == 9
    assert payload["metrics"][0]["signature"].endswith("|".join(f"{k}:{v}" for k, v in res.signature.fields()))
    assert "nrefs:1|" in payload["metrics"][0]["signature"] and "refs:w>=0" in payload["metrics"][3]["signature"]
    with pytest.raises(InputError, match="correlation must be one of 'rho', 'tau'; got 'r'"):
        table2(res.summary, correlation="r")


def test_sweeps_and_plot(corpus, tmp_path):
    hyps, refs, human, stats = corpus
    by_size = sweep("unit_size", [1, 2, 7], _metrics(stats)[:3], human, n_assignments=5, n_bootstrap=20)
    assert by_size["value"].tolist() == [1] * 3 + [2] * 3 + [7] * 3
    assert by_size.groupby("value")["n_observations"].first().tolist() == [42, 21, 6]

    def at_threshold(theta):
        s = compute_stats(hyps, refs, tokenize="none", ref_view="threshold", weight_threshold=theta)
        return [corpus_metric(s), corpus_metric(s, metric="delta_bleu")]

    by_theta = sweep("threshold", [-1.0, 0.5], at_threshold, human, unit_size=2, n_assignments=5)
    assert by_theta["refs"].tolist() == ["w≥-1"] * 2 + ["w≥0.5"] * 2
    by_order = sweep("max_ngram_order", [1, 2, 3, 4],
                     lambda n: [corpus_metric(stats["all"], max_ngram_order=n, name="BLEU")],
                     human, unit_size=2, n_assignments=5)
    # BLEU-4 of the sweep equals the plain study at the same seed
    plain = correlation_study([corpus_metric(stats["all"])], human, unit_size=2, n_assignments=5)
    assert by_order["rho"].iloc[-1] == plain.summary["rho"].iloc[0]
    with pytest.raises(InputError, match="parameter must be one of 'threshold', 'unit_size', 'max_ngram_order'"):
        sweep("theta", [1], _metrics(stats), human)
    with pytest.raises(InputError, match="sweeping 'threshold' needs a callable"):
        sweep("threshold", [0.5], _metrics(stats), human)
    assert PAPER_UNIT_SIZES == (1, 2, 5, 10, 20, 50, 100)
    out = tmp_path / "figure2.png"
    fig = plot_sweeps({"threshold": by_theta, "unit_size": by_size, "max_ngram_order": by_order}, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and len(fig.axes) == 3


@pytest.mark.parametrize("unit_size", [1, 3])
def test_identical_metrics_share_their_numbers_and_others_keep_theirs(unit_size):
    rng = np.random.default_rng(11)
    sys_, seg = np.repeat(["s0", "s1", "s2", "s3"], 30), np.tile(np.arange(30), 4)
    quality = rng.normal(size=120)
    human = pd.DataFrame({"system": sys_, "seg_id": seg, "score": np.round(quality + rng.normal(size=120), 1)})
    scores = quality + rng.normal(0, 0.5, 120)
    a = mean_metric(sys_, seg, scores, metric="a")
    twin = mean_metric(sys_, seg, scores.copy(), metric="twin")  # the same differences as a: shares its ranks
    other = mean_metric(sys_, seg, quality + rng.normal(0, 2.0, 120), metric="other")
    opts = dict(unit_size=unit_size, n_assignments=20, n_bootstrap=50, seed=2)
    both = correlation_study([a, other, twin], human, **opts)
    for label, alone in (("a [all]", correlation_study([a], human, **opts)),
                         ("other [all]", correlation_study([other], human, **opts))):
        assert both.rho[label].tobytes() == alone.rho[label].tobytes()
        assert both.tau[label].tobytes() == alone.tau[label].tobytes()
        row = both.summary.set_index("label").loc[label].drop("signature")
        assert row.equals(alone.summary.set_index("label").loc[label].drop("signature"))
    assert both.rho["twin [all]"].tobytes() == both.rho["a [all]"].tobytes()
    assert both.rho["twin [all]"] is not both.rho["a [all]"]  # copies: changing one leaves the other
    s = both.summary.set_index("label")
    assert s.loc["twin [all]"].drop(["signature", "metric"]).equals(s.loc["a [all]"].drop(["signature", "metric"]))
