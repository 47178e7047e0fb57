"""Offline tuning (bleustats.tools.tune, bleustats tune): PRO pair sampling, the logistic fit, MIRA, the driver, CLI.

Where the expected values come from:
* pair sampling: tests/twins/tune.py, a plain-Python loop drawing one random number at a time;
* the PRO fit: scipy.optimize.minimize on the same objective written out in the test, with the
  pairs in both directions as separate examples;
* MIRA: arithmetic by hand in the test (written out line by line), and the plain-Python twin
  (fixed gains and pseudo-document gains with its own BLEU formula) on random lists;
* tuning on ../shared/data/moses_nbest (skipped when absent): the corpus BLEU of the 1-best
  under Moses' own start weights (scorer.init.opt).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats import cli
from bleustats.engine import io
from bleustats.errors import InputError
from bleustats.metrics.sentence import SENTENCE_VARIANTS, score_variant
from bleustats.tools import nbest_features
from bleustats.tools import tune as T
from ..conftest import examples, shared_path
from ..twins import tune as twin

pytestmark = pytest.mark.usefixtures("numba_one_thread")

REFS = ["the cat sat on the mat", "there is a dog in the garden", "a b c d e f"]
ENTRIES = {
    0: [("the cat sat on the mat", "lm= -6 -1 w= -6"), ("the cat sat", "lm= -3 -2 w= -3"),
        ("a cat sat on a mat", "lm= -7 0 w= -6"), ("cat", "lm= -1 -3 w= -1")],
    1: [("there is a dog in the garden", "lm= -8 -1 w= -7"), ("a dog", "lm= -2 -1 w= -2"),
        ("there is a dog", "lm= -4 -2 w= -4"), ("the dog is in a garden there", "lm= -9 0 w= -7")],
    2: [("a b c d e f", "lm= -6 -2 w= -6"), ("a b c", "lm= -3 -1 w= -3"), ("f e d c b a", "lm= -5 -1 w= -6")],
}


def write_nbest(path, entries=ENTRIES):
    lines = [f"{sid} ||| {text} ||| {feats} ||| 0" for sid, items in entries.items() for text, feats in items]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def files(tmp_path):
    nb = write_nbest(tmp_path / "nbest.txt")
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(REFS) + "\n", encoding="utf-8")
    return nb, ref, tmp_path


@pytest.fixture()
def small(files):
    nb, ref, _ = files
    return T.read_tuning_list(nb, ref, tokenize="none")


# --------------------------------------------------------------------------- reading


def test_read_tuning_list_layout_offsets_and_stats(small):
    assert small.layout == (("lm", 2), ("w", 1))
    assert small.feature_names == ["lm_0", "lm_1", "w_0"]
    assert small.offsets.tolist() == [0, 4, 8, 11]
    assert small.source_ids.tolist() == [0, 1, 2]
    assert small.features[1].tolist() == [-3.0, -2.0, -3.0]
    assert small.stats.column("hyp_len").tolist() == [6, 3, 6, 1, 7, 2, 4, 7, 6, 3, 6]
    assert small.n_duplicates == 0


def test_several_lists_merge_per_source_and_drop_duplicates(files):
    nb, ref, tmp = files
    second = {0: [("the cat sat", "lm= -3 -2 w= -3"),        # duplicate of an entry of the first list
                  ("the cat sat", "lm= -3 -2.5 w= -3"),      # same text, other features: kept
                  ("the cat sat down", "lm= -4 -2 w= -4")],  # new
              2: [("a b c", "lm= -3 -1 w= -3")]}             # duplicate
    nb2 = write_nbest(tmp / "nbest2.txt", second)
    tl = T.read_tuning_list([nb, nb2], ref, tokenize="none")
    assert tl.n_read == 15 and tl.n_entries == 13 and tl.n_duplicates == 2
    assert tl.offsets.tolist() == [0, 6, 10, 13]
    assert tl.text.to_pylist()[:6] == ["the cat sat on the mat", "the cat sat", "a cat sat on a mat", "cat",
                                       "the cat sat", "the cat sat down"]  # first list first, then the new ones
    assert tl.features[4].tolist() == [-3.0, -2.5, -3.0]
    kept_all = T.read_tuning_list([nb, nb2], ref, tokenize="none", dedupe=False)
    assert kept_all.n_entries == 15


def test_select_keeps_grouping(small):
    sub = small.select(np.array([1, 2, 9]))
    assert sub.offsets.tolist() == [0, 2, 3] and sub.source_ids.tolist() == [0, 2]
    assert sub.text.to_pylist() == ["the cat sat", "a cat sat on a mat", "a b c"]
    assert sub.stats.column("hyp_len").tolist() == [3, 6, 3]
    with pytest.raises(ValueError, match="rows must be increasing entry indices"):
        small.select([2, 1])


def test_bad_inputs_name_the_problem(files):
    nb, ref, tmp = files
    bad = tmp / "bad.txt"
    bad.write_text("0 ||| a b ||| lm= -1 -2 w= -2 ||| 0\n0 ||| a ||| lm= -1 w= -1 ||| 0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.txt: line 2: features 'lm= -1 w= -1' have layout lm= x1 w= x1; "
                                            r"the list's entries have lm= x2 w= x1"):
        T.read_tuning_list(bad, ref, tokenize="none")
    other = tmp / "other.txt"  # consistent within itself, different from the first list
    other.write_text("0 ||| a b ||| w= -2 lm= -1 -2 ||| 0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"other.txt: line 1: .* have layout w= x1 lm= x2; the list's entries "
                                            r"have lm= x2 w= x1"):
        T.read_tuning_list([nb, other], ref, tokenize="none")
    one_ref = tmp / "one_ref.txt"
    one_ref.write_text(REFS[0] + "\n", encoding="utf-8")
    # the cross-check kbest runs too (bleustats.tools.nbest_io.check_sources)
    with pytest.raises(InputError, match=r"nbest.txt: 2 source\(s\) have entries but no reference in "
                                            r".*one_ref.txt \(id 1, 2; ids are 0-based"):
        T.read_tuning_list(nb, one_ref, tokenize="none")
    table = pd.DataFrame({"seg_id": [0], "text": ["a"]})
    with pytest.raises(InputError, match="has no features; tuning needs Moses n-best lines"):
        T.read_tuning_list(table, ref, tokenize="none")


# --------------------------------------------------------------------------- PRO sampling


@st.composite
def lists(draw):
    sizes = draw(st.lists(st.integers(1, 25), min_size=1, max_size=6))
    n = sum(sizes)
    # scores from a small set of values, so equal gaps (ties) are common
    scores = draw(st.lists(st.sampled_from([0.0, 5.0, 10.0, 12.5, 30.0, 55.0, 100.0]), min_size=n, max_size=n))
    return np.array(scores), np.r_[0, np.cumsum(sizes)]


@settings(max_examples=examples(60), deadline=None)
@given(lists(), st.integers(1, 120), st.integers(1, 60), st.sampled_from([0.0, 0.05, 0.3]), st.integers(0, 2**32))
def test_pair_sampling_equals_twin(data, gamma, xi, alpha, seed):
    scores, offsets = data
    got = T.pro_sample_pairs(scores, offsets, gamma=gamma, alpha=alpha, xi=xi, seed=seed)
    want = twin.pro_sample_pairs(scores, offsets, gamma=gamma, alpha=alpha, xi=xi, seed=seed)
    assert got.source.tolist() == want[0]
    assert got.winner.tolist() == want[1]
    assert got.loser.tolist() == want[2]
    assert got.gap.tolist() == want[3]


def test_pair_sampling_blocks_do_not_change_the_draws(monkeypatch):
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 40, size=30)
    offsets = np.r_[0, np.cumsum(sizes)]
    scores = rng.uniform(0, 100, size=offsets[-1]).round(1)
    whole = T.pro_sample_pairs(scores, offsets, gamma=50, xi=7, seed=9)
    monkeypatch.setattr(T, "_PAIRS_PER_BLOCK", 120)  # blocks of 2 sources
    blocked = T.pro_sample_pairs(scores, offsets, gamma=50, xi=7, seed=9)
    for a, b in zip(whole, blocked):
        assert np.array_equal(a, b)
    want = twin.pro_sample_pairs(scores, offsets, gamma=50, alpha=0.05, xi=7, seed=9)
    assert blocked.winner.tolist() == want[1] and blocked.loser.tolist() == want[2]


def test_pair_sampling_properties_and_seed():
    rng = np.random.default_rng(0)
    offsets = np.r_[0, np.cumsum(rng.integers(2, 300, size=40))]
    scores = rng.uniform(0, 100, size=offsets[-1])
    p = T.pro_sample_pairs(scores, offsets, seed=1)
    assert (p.gap >= 0.05).all()
    assert np.allclose(p.gap, (scores[p.winner] - scores[p.loser]) / 100)
    assert (np.bincount(p.source, minlength=40) <= 50).all()
    assert ((p.winner >= offsets[p.source]) & (p.winner < offsets[p.source + 1])).all()
    assert ((p.loser >= offsets[p.source]) & (p.loser < offsets[p.source + 1])).all()
    again = T.pro_sample_pairs(scores, offsets, seed=1)
    other = T.pro_sample_pairs(scores, offsets, seed=2)
    assert np.array_equal(p.winner, again.winner) and not np.array_equal(p.winner, other.winner)
    gen = np.random.default_rng(1)  # a Generator is advanced: the same first draws as seed=1
    assert np.array_equal(T.pro_sample_pairs(scores, offsets, seed=gen).winner, p.winner)


def test_pair_sampling_errors():
    with pytest.raises(ValueError, match=r"offsets must be increasing integers from 0 to the number of entries \(3\)"):
        T.pro_sample_pairs([1.0, 2.0, 3.0], [0, 2])
    with pytest.raises(ValueError, match=r"xi must be an integer >= 1; got 0"):
        T.pro_sample_pairs([1.0, 2.0], [0, 2], xi=0)
    with pytest.raises(ValueError,
                       match=r"seed must be a non-negative int, a numpy SeedSequence or Generator, or None; got -1"):
        T.pro_sample_pairs([1.0, 2.0], [0, 2], seed=-1)


# --------------------------------------------------------------------------- PRO fit


def _objective(x, l2):
    """J(w) of the standard logistic loss on the pairs in both directions, labels 1 and 0, with its gradient."""
    xs = np.concatenate([x, -x])
    y = np.r_[np.ones(len(x)), np.zeros(len(x))]
    sign = 2 * y - 1

    def f(w):
        z = xs @ w
        p = 1.0 / (1.0 + np.exp(-z))
        return np.logaddexp(0.0, -sign * z).sum() + 0.5 * l2 * w @ w, xs.T @ (p - y) + l2 * w

    return f


@pytest.mark.parametrize("case", ["random", "separable", "scaled-columns", "many-pairs"])
def test_fit_pro_equals_scipy(case):
    from scipy.optimize import minimize

    rng = np.random.default_rng(7)
    x = rng.normal(size=(300, 6))
    if case == "many-pairs":  # thousands of nearly separable raw-scale pairs: J is flat in float64 at the end
        x = (rng.normal(size=(8000, 6)) + 0.8) * np.array([3.0, 20.0, 7.0, 8.0, 4.0, 8.0])
    if case == "separable":
        x = x * np.sign(x @ np.array([1.0, -2.0, 0.5, 0.0, 1.0, 3.0]))[:, None]
    if case == "scaled-columns":  # raw Moses features: LM differences in tens, counts in units
        x = x * np.array([40.0, 5.0, 1.0, 0.1, 10.0, 1.0])
    for l2 in (0.1, 1.0, 10.0):
        f = _objective(x, l2)
        want = minimize(f, np.zeros(6), jac=True, method="L-BFGS-B",
                        options={"gtol": 1e-13, "ftol": 1e-16, "maxiter": 100000}).x
        got = T.fit_pro(x, l2=l2)
        assert np.abs(got - want).max() <= 1e-7 * np.abs(want).max(), (l2, got, want)
        # and ours is the more stationary point: its gradient is at most scipy's (or at rounding level)
        assert np.abs(f(got)[1]).max() <= max(np.abs(f(want)[1]).max(), 1e-7)
        assert f(got)[0] <= f(want)[0] + 1e-9


def test_fit_pro_errors():
    with pytest.raises(ValueError, match=r"l2 must be a finite number > 0; got 0"):
        T.fit_pro([[1.0]], l2=0)
    with pytest.raises(ValueError, match=r"differences must be a 2-D array"):
        T.fit_pro([1.0, 2.0])
    with pytest.raises(ValueError, match="did not converge in max_iter=1 steps"):
        T.fit_pro(np.random.default_rng(0).normal(size=(50, 3)) * 100, l2=1e-3, max_iter=1)


# --------------------------------------------------------------------------- MIRA


def test_mira_updates_by_hand(tmp_path):
    # source 0: reference "a b c d"; entries "a b c d" (BLEU+1 = 100) and "a b" (BLEU+1 = e^(1 - 4/2) * 1)
    # source 1: reference "x y z w v u"; entries "x y z w v u" (100) and "x y z" (e^(1 - 6/3) * 1 = e^-1)
    nb = write_nbest(tmp_path / "nb.txt", {0: [("a b c d", "f= 0 1"), ("a b", "f= 1 0")],
                                           1: [("x y z w v u", "f= 0 0"), ("x y z", "f= 0 1")]})
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c d\nx y z w v u\n", encoding="utf-8")
    tl = T.read_tuning_list(nb, ref, tokenize="none")
    g01 = math.exp(-1.0)  # "a b": BP = exp(1 - 4/2), all smoothed precisions (m+1)/(t+1) = 1
    assert score_variant(tl.stats, "bleu+1")[[0, 1, 3]].tolist() == pytest.approx([100.0, 100 * g01, 100 * g01])
    w0 = np.array([0.5, 0.0])
    state = T.MiraState.start(w0, np.ones(10))
    new, info = T.mira_epoch(tl, state, variant="bleu+1", c=1.0, decay=0.9, gain_scale=1.0, order=[0, 1])
    # source 0: model = (0, 0.5); hope = argmax(0 + 1, 0.5 + e^-1) = entry 0; fear = argmax(0 - 1, 0.5 - e^-1) = 1
    # df = (0, 1) - (1, 0) = (-1, 1); loss = (1 - e^-1) - w.df = 0.632121 + 0.5; eta = min(1, loss / 2) = 0.566
    eta0 = (1 - g01 + 0.5) / 2
    w1 = w0 + eta0 * np.array([-1.0, 1.0])  # (-0.066, 0.566)
    # source 1: model = (0, w1[1]) = (0, 0.566); hope = argmax(1, 0.566 + e^-1) = 0; fear = argmax(-1, 0.566 - e^-1) = 1
    # df = (0, 0) - (0, 1) = (0, -1); loss = (1 - e^-1) + 0.566 = 1.198 > C * |df|^2: the step is capped at C = 1
    loss1 = (1 - g01) + w1[1]
    assert loss1 > 1.0
    w2 = w1 + 1.0 * np.array([0.0, -1.0])
    assert new.weights == pytest.approx(w2, abs=1e-12)
    assert new.total == pytest.approx(w1 + w2, abs=1e-12) and new.steps == 2
    assert new.average == pytest.approx((w1 + w2) / 2, abs=1e-12)
    assert info["updates"] == 2 and info["loss"] == pytest.approx((1 - g01 + 0.5) + loss1)
    # background: B <- 0.9 (B + hope's [c, r, m1..m4, t1..t4]) after each source
    v0 = np.array([4, 4, 4, 3, 2, 1, 4, 3, 2, 1.0])
    v1 = np.array([6, 6, 6, 5, 4, 3, 6, 5, 4, 3.0])
    assert new.background == pytest.approx(0.9 * (0.9 * (np.ones(10) + v0) + v1))
    # step cap C = 0.01 (Moses' default): w moves by 0.01 * df
    capped, _ = T.mira_epoch(tl, state, variant="bleu+1", c=0.01, gain_scale=1.0, order=[0])
    assert capped.weights == pytest.approx(w0 + 0.01 * np.array([-1.0, 1.0]))
    # gain_scale='ref-length' multiplies the gains by the reference length (4 for source 0)
    scaled, info = T.mira_epoch(tl, state, variant="bleu+1", c=10.0, order=[0])
    assert scaled.weights == pytest.approx(w0 + (4 * (1 - g01) + 0.5) / 2 * np.array([-1.0, 1.0]))


@settings(max_examples=examples(15), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["bleu+1", "pseudo-doc"]))
def test_mira_epoch_equals_twin(seed, metric):
    rng = np.random.default_rng(seed)
    words = ["a", "b", "c", "d", "e"]
    entries, refs = {}, []
    for s in range(int(rng.integers(1, 5))):
        refs.append(" ".join(rng.choice(words, size=int(rng.integers(1, 8)))))
        items = []
        for _ in range(int(rng.integers(1, 6))):
            text = " ".join(rng.choice(words, size=int(rng.integers(1, 9))))
            feats = " ".join(f"{v:.3f}" for v in rng.normal(size=3))
            items.append((text, f"x= {feats}"))
        entries[s] = items
    nb = pd.DataFrame({"seg_id": [s for s, it in entries.items() for _ in it],
                       "text": [t for it in entries.values() for t, _ in it],
                       "features": [f for it in entries.values() for _, f in it]})
    tl = T.read_tuning_list(nb, pd.DataFrame({"seg_id": range(len(refs)), "text": refs}), tokenize="none",
                            dedupe=False)
    s, vectors = tl.sentence_stats()
    w0 = rng.normal(size=3)
    bg0 = np.ones(10)
    order = rng.permutation(tl.n_sources)
    got, info = T.mira_epoch(tl, T.MiraState.start(w0, bg0), variant=metric, c=0.5, decay=0.9, order=order)
    gains = None
    if metric == "bleu+1":
        gains = (score_variant(tl.stats, "bleu+1") / 100 * s.ref_len).tolist()
    w, total, bg, updates = twin.mira_epoch(tl.features.tolist(), tl.offsets.tolist(), vectors.tolist(), w0,
                                            order=order.tolist(), c=0.5, decay=0.9, background=bg0, n=4,
                                            gains=gains)
    assert got.weights == pytest.approx(w, rel=1e-9, abs=1e-12)
    assert got.total == pytest.approx(total, rel=1e-9, abs=1e-12)
    assert got.background == pytest.approx(bg, rel=1e-12)
    assert info["updates"] == updates


def test_mira_errors(small):
    state = T.MiraState.start(np.zeros(3), np.ones(10))
    with pytest.raises(ValueError, match=r"state.weights must be 3 finite numbers, one per feature; got shape \(2,\)"):
        T.mira_epoch(small, T.MiraState.start(np.zeros(2), np.ones(10)))
    with pytest.raises(ValueError, match=r"state.background must have 10 values"):
        T.mira_epoch(small, T.MiraState.start(np.zeros(3), np.ones(4)))
    with pytest.raises(ValueError, match=r"order must be source indices in \[0, 3\)"):
        T.mira_epoch(small, state, order=[3])
    with pytest.raises(ValueError, match=r"gain_scale must be 'ref-length' or a positive number; got 'words'"):
        T.mira_epoch(small, state, gain_scale="words")


# --------------------------------------------------------------------------- driver


@pytest.mark.parametrize("algorithm", ["pro", "mira"])
def test_every_variant_drives_both_tuners(files, algorithm):
    nb, ref, _ = files
    tl = T.read_tuning_list(nb, ref, tokenize="none", max_ngram_order=5)  # chen-cherry:5/7 read order N+1
    names = sorted(SENTENCE_VARIANTS) + ["nakov:scaled,bp-smoothed,pc-grounded"]
    for name in names:
        opts = {"ilr": 1.1} if "scaled" in name else None
        r = T.tune(tl, algorithm=algorithm, variant=name, variant_options=opts, seed=3, gamma=40, xi=10,
                   alpha=0.0 if name == "chen-cherry:6" else 0.05, iterations=2)
        assert np.isfinite(r.weights).all() and np.isfinite(r.final.score), name
        assert f"tune:{algorithm}|variant:{name}" in r.signature and "|seed:3|" in r.signature
        assert len(r.history) == 2 and r.one_best.shape == (3,)
    delta = T.tune(tl, algorithm=algorithm, metric="delta_bleu", seed=3, gamma=40, iterations=2)
    plain = T.tune(tl, algorithm=algorithm, metric="bleu", seed=3, gamma=40, iterations=2)
    assert delta.final.score == pytest.approx(plain.final.score)  # unit weights: ΔBLEU = BLEU
    assert "metric:delta_bleu" in delta.signature


def test_tune_is_reproducible_and_reports(small):
    a = T.tune(small, algorithm="pro", seed=5, gamma=100, xi=20, iterations=3, interpolate=0.5, init=[0.0, 0.0, 1.0])
    b = T.tune(small, algorithm="pro", seed=5, gamma=100, xi=20, iterations=3, interpolate=0.5, init=[0.0, 0.0, 1.0])
    assert np.array_equal(a.weights, b.weights) and a.history == b.history
    assert np.abs(a.weights).sum() == pytest.approx(1.0)
    assert a.start.score == pytest.approx(small.corpus_bleu(small.one_best([0.0, 0.0, 1.0])).score)
    assert a.final.score == pytest.approx(small.corpus_bleu(small.one_best(a.weights)).score)
    d = a.to_dict()
    assert list(d["weights"]) == ["lm_0", "lm_1", "w_0"]
    assert d["moses"][0].startswith("lm= ") and d["moses"][1].startswith("w= ")
    assert d["seed"] == 5 and d["variant"] == "bleu+1" and d["signature"] == str(a.signature)
    assert d["bleu"] == a.final.score and d["ratio"] == a.final.ratio
    json.dumps(d)  # plain JSON types
    m = T.tune(small, algorithm="mira", seed=5, iterations=4)
    assert m.options["best_epoch"] == int(np.argmax([h["bleu"] for h in m.history])) + 1
    assert m.final.score == max(h["bleu"] for h in m.history)


def test_tune_errors(small):
    with pytest.raises(ValueError, match=r"algorithm must be one of 'pro', 'mira'; got 'mert'"):
        T.tune(small, algorithm="mert")
    with pytest.raises(ValueError, match=r"init must be 3 finite numbers, one per feature; got shape \(2,\)"):
        T.tune(small, init=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"variant must be one of"):
        T.tune(small, variant="bleu+2")
    with pytest.raises(ValueError, match=r"variant_options: 'background' is built by the tuner"):
        T.tune(small, variant="pseudo-doc", variant_options={"background": np.ones(10)})
    with pytest.raises(ValueError, match=r"variant_options: bleu\+1 takes no options; got ilr"):
        T.tune(small, variant_options={"ilr": 2.0})
    with pytest.raises(ValueError, match=r"max_ngram_order must be an integer from 1 to 3 for chen-cherry:5"):
        T.tune(small, variant="chen-cherry:5")
    for bad in ("4", None, 2.5, True, 0):  # refused before any arithmetic on it
        with pytest.raises(ValueError, match=rf"max_ngram_order must be an integer from 1 to 4 .*; got {bad!r}\."):
            T.tune(small, max_ngram_order=bad)
    with pytest.raises(ValueError, match=r"PRO: no pair of entries differs by alpha=1.5"):
        T.tune(small, alpha=1.5)
    with pytest.raises(TypeError, match="data must be a TuningList"):
        T.tune("nbest.txt")


def _scorer_list():
    base = shared_path("data", "moses_nbest")
    tl = T.read_tuning_list(base / "scorer.nbest.gz", base / "scorer.ref.txt.gz", tokenize="none")
    return tl, nbest_features.read_init_weights(base / "scorer.init.opt", tl.layout)


@pytest.mark.parametrize("algorithm,metric", [("pro", "bleu+1"), ("mira", "bleu+1"),
                                              ("pro", "nakov:bp-smoothed,pc-grounded"), ("mira", "pseudo-doc")])
def test_tuning_beats_the_start_weights_on_the_moses_scorer_list(algorithm, metric):
    tl, init = _scorer_list()
    assert (tl.n_entries, tl.n_sources, tl.n_features) == (10000, 100, 15)
    r = T.tune(tl, algorithm=algorithm, variant=metric, init=init, seed=1, iterations=None if algorithm == "pro"
               else 20)
    # start: the 1-best under Moses' init.opt weights; its corpus BLEU is sacreBLEU's on those texts
    import sacrebleu

    refs = io.read_lines(shared_path("data", "moses_nbest", "scorer.ref.txt.gz")).to_pylist()
    start_text = tl.text.take(tl.one_best(init)).to_pylist()
    oracle = sacrebleu.corpus_bleu(start_text, [refs], tokenize="none")
    assert r.start.score == pytest.approx(oracle.score, abs=1e-9)
    assert round(r.start.score, 2) == 8.25 and round(r.start.ratio, 3) == 0.631
    final_text = tl.text.take(r.one_best).to_pylist()
    assert r.final.score == pytest.approx(sacrebleu.corpus_bleu(final_text, [refs], tokenize="none").score, abs=1e-9)
    assert r.final.score > r.start.score + 0.5, (r.start.score, r.final.score)


# --------------------------------------------------------------------------- CLI


def test_cli_tune_end_to_end(files, capsys):
    nb, ref, tmp = files
    init = tmp / "init.opt"
    init.write_text("1 0 0\n0 0 0\n1 1 1\n", encoding="utf-8")
    out_json, best = tmp / "w.json", tmp / "best.txt"
    rc = cli.main(["tune", str(nb), "--refs", str(ref), "-tok", "none", "--algorithm", "pro", "-m",
                   "nakov:bp-smoothed", "--seed", "2", "--init", str(init), "-o", str(out_json), "--best", str(best),
                   "--gamma", "200", "--iterations", "2"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "pro on nakov:bp-smoothed, seed 2" in captured.out and "iteration 2" in captured.out
    doc = json.loads(out_json.read_text())
    assert set(doc["weights"]) == {"lm_0", "lm_1", "w_0"} and doc["variant"] == "nakov:bp-smoothed"
    assert doc["seed"] == 2 and "seed:2" in doc["signature"] and doc["init"] == str(init)
    assert isinstance(doc["bleu"], float) and isinstance(doc["ratio"], float) and len(doc["history"]) == 2
    lines = best.read_text().split("\n")
    assert len(lines) == 4 and lines[-1] == ""  # one line per source id, newline-terminated
    tl = T.read_tuning_list(nb, ref, tokenize="none")
    w = np.array([doc["weights"][n] for n in tl.feature_names])
    assert lines[:3] == tl.text.take(tl.one_best(w)).to_pylist()
    # the weights JSON is a valid --init
    assert cli.main(["tune", str(nb), "--refs", str(ref), "-tok", "none", "--init", str(out_json), "--algorithm",
                     "mira", "--iterations", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "mira"


def test_cli_tune_best_fills_missing_ids(tmp_path, capsys):
    nb = write_nbest(tmp_path / "nb.txt", {0: [("a b", "w= -2")], 2: [("c d", "w= -2"), ("c", "w= -1")]})
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\nz\nc d\n", encoding="utf-8")
    best = tmp_path / "best.txt"
    argv = ["tune", str(nb), "--refs", str(ref), "-tok", "none", "--best", str(best), "--algorithm", "mira",
            "--iterations", "1"]
    # a source of the references without entries is refused, as in kbest (issue 26) ...
    assert cli.main(argv) == 1 and "1 source(s) of the references have no entry (id 1)" in capsys.readouterr().err
    # ... unless allowed; --best then keeps its line, empty
    assert cli.main([*argv, "--allow-missing-sources"]) == 0
    assert best.read_text() == "a b\n\nc d\n"


def test_cli_tune_errors(files, capsys):
    nb, ref, tmp = files
    init = tmp / "init.opt"
    init.write_text("1 0\n", encoding="utf-8")
    assert cli.main(["tune", str(nb), "--refs", str(ref), "--init", str(init)]) == 1
    err = capsys.readouterr().err
    assert "bleustats tune: error: init: " in err and "line 1 has 2 weights; the n-best list has 3 features" in err
    assert cli.main(["tune", str(nb), "--refs", str(ref), "--ilr", "1.1"]) == 1
    assert "--ilr: only used by nakov:...scaled variants" in capsys.readouterr().err
    assert cli.main(["tune", str(nb), "--refs", str(ref), "--iterations", "0"]) == 2
    assert "--iterations: must be >= 1" in capsys.readouterr().err
    assert cli.main(["tune", str(nb)]) == 2  # --refs is required
    capsys.readouterr()
    assert cli.main(["tune", str(nb), "--refs", str(ref), "--algorithm", "mert"]) == 2
