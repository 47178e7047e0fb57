"""Significance tests: sacreBLEU 2.6's PairedTest is the oracle for the paired system tests;
Williams' test is checked by hand; the metric-difference tests by their null calibration."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

import bleustats
from bleustats import significance
from bleustats.meta import compare, paired
import bleustats.metrics.base
from bleustats.meta.correlation import pearson, segment_correlation
from bleustats.errors import InputError
from bleustats.significance import (
    correlation_difference_test,
    paired_approximate_randomization,
    paired_bootstrap,
    williams_test,
)

from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.significance import PairedTest  # noqa: E402

N_SEG = 200
N_SAMPLES = 300  # sacreBLEU scores resamples in a Python loop: keep it small


def _corpus(n: int = N_SEG, seed: int = 0):
    """Deterministic references and two systems of similar quality (so p is not tiny)."""
    r = random.Random(seed)
    vocab = [f"w{i}" for i in range(60)]
    refs = [" ".join(r.choice(vocab) for _ in range(r.randint(3, 25))) for _ in range(n)]

    def perturb(s: str, rate: float) -> str:
        out = []
        for w in s.split():
            x = r.random()
            if x < rate / 2:
                continue
            out.append(r.choice(vocab) if x < rate else w)
        return " ".join(out) or vocab[0]

    return refs, [perturb(s, 0.30) for s in refs], [perturb(s, 0.31) for s in refs]


@pytest.fixture(scope="module")
def corpus():
    refs, base, sys_ = _corpus()
    hyps = pd.DataFrame({"seg_id": list(range(N_SEG)) * 2, "system": ["base"] * N_SEG + ["sys"] * N_SEG,
                         "text": base + sys_})
    stats = bleustats.compute_stats(hyps, pd.DataFrame({"seg_id": range(N_SEG), "text": refs}))
    return refs, base, sys_, stats


def _sacrebleu(refs, base, sys_, test_type, smooth_method="exp", effective_order=False, n_conf=-1):
    bleu = BLEU(references=[refs], smooth_method=smooth_method, effective_order=effective_order)
    signatures, scores = PairedTest([("base", base), ("sys", sys_)], {"BLEU": bleu}, None, test_type=test_type,
                                    n_samples=N_SAMPLES, n_ar_confidence=n_conf)()
    return (*scores["BLEU"], signatures["BLEU"])


def _same_line(ours, sacre):
    # field for field and in sacreBLEU's order; only the version differs (bleustats made the number)
    fields, theirs = str(ours).split("|"), sacre.format().split("|")
    assert fields[-1] == f"version:bleustats-{bleustats.__version__}" and theirs[-1].startswith("version:")
    assert fields[:-1] == theirs[:-1]


def _close(a, b, tol=1e-9):
    assert a == pytest.approx(b, abs=tol, rel=0)


# Expected numbers come from sacrebleu 2.6.0's significance.PairedTest run in the same test on
# the same texts (SACREBLEU_SEED from the environment, 12345 by default).
@pytest.mark.parametrize("smooth_method,effective_order", [("exp", False), ("floor", False),
                                                           ("add-k", False), ("none", True)])
@pytest.mark.parametrize("seed", [12345, 7])
def test_paired_bootstrap_equals_sacrebleu(corpus, monkeypatch, smooth_method, effective_order, seed):
    refs, base, sys_, stats = corpus
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    bl, sy, sig = _sacrebleu(refs, base, sys_, "bs", smooth_method, effective_order)
    res = paired_bootstrap(stats, "base", "sys", n_samples=N_SAMPLES, seed=seed, smooth_method=smooth_method,
                           use_effective_order=effective_order)
    _close(res.baseline_score, bl.score)
    _close(res.system_score, sy.score)
    assert res.p_value == sy.p_value  # same count of the same draws: exactly equal
    _close(res.baseline_mean, bl.mean)
    _close(res.baseline_ci, bl.ci)
    _close(res.system_mean, sy.mean)
    _close(res.system_ci, sy.ci)
    _same_line(res.signature, sig)  # nrefs|bs|seed|case|...: sacreBLEU's --paired-bs line


@pytest.mark.parametrize("smooth_method", ["exp", "floor"])
def test_paired_ar_equals_sacrebleu(corpus, monkeypatch, smooth_method):
    refs, base, sys_, stats = corpus
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    bl, sy, sig = _sacrebleu(refs, base, sys_, "ar", smooth_method, n_conf=200)
    res = paired_approximate_randomization(stats, "base", "sys", n_samples=N_SAMPLES, n_confidence=200,
                                           smooth_method=smooth_method)
    assert 0.01 < sy.p_value < 0.99  # a p-value that can actually disagree
    assert res.p_value == sy.p_value
    _close(res.system_score, sy.score)
    _close(res.baseline_mean, bl.mean)
    _close(res.baseline_ci, bl.ci)
    _close(res.system_mean, sy.mean)
    _close(res.system_ci, sy.ci)
    _same_line(res.signature, sig)  # nrefs|bs|ar|seed|case|...: sacreBLEU's --paired-ar line


def test_chunked_draws_consume_the_generator_like_one_draw(corpus, monkeypatch):
    # rows are drawn in chunks (multiples of 32 rows); the stream must match a single draw
    _, _, _, stats = corpus
    want_bs = paired_bootstrap(stats, "base", "sys", n_samples=N_SAMPLES)
    want_ar = paired_approximate_randomization(stats, "base", "sys", n_samples=N_SAMPLES, n_confidence=100)
    monkeypatch.setattr(bleustats.metrics.base, "_CHUNK", 1)  # 32-row chunks
    assert paired_bootstrap(stats, "base", "sys", n_samples=N_SAMPLES) == want_bs
    assert paired_approximate_randomization(stats, "base", "sys", n_samples=N_SAMPLES, n_confidence=100) == want_ar


def test_float64_scoring_is_corpus_score_of_each_resample(corpus):
    _, _, _, stats = corpus
    rows = np.flatnonzero(stats.column("system") == "sys")
    rng = np.random.default_rng(3)
    idx = rng.choice(len(rows), size=(1, len(rows)))
    mat = paired._stats_matrix(stats, "bleu", "closest")[rows]
    counts = np.bincount(idx[0], minlength=len(rows)).astype(float)
    got = paired._scores((counts @ mat)[None], 4, "bleu", "exp", None, False, float32=False)[0]
    assert got == pytest.approx(bleustats.corpus_score(stats, rows=rows[idx[0]]).score, abs=1e-12)
    f32 = paired._scores((counts @ mat)[None], 4, "bleu", "exp", None, False, float32=True)[0]
    assert f32 == pytest.approx(got, abs=1e-4)  # float32 precisions: sacreBLEU's rounding only


def test_delta_bleu_with_unit_weights_equals_bleu(corpus):
    _, _, _, stats = corpus
    a = paired_bootstrap(stats, "base", "sys", n_samples=200, float32=False)
    b = paired_bootstrap(stats, "base", "sys", n_samples=200, metric="delta_bleu")
    assert (a.p_value, a.system_mean) == pytest.approx((b.p_value, b.system_mean), abs=1e-9)
    assert "metric:delta_bleu" in b.signature


def test_same_system_follows_sacrebleu_strict_comparison(corpus):
    # sacreBLEU counts |a - b| > delta strictly: with delta = 0 and identical pseudo-systems no trial
    # counts, so p = 1 / (B + 1) (a quirk we reproduce, not fix)
    _, _, _, stats = corpus
    res = paired_approximate_randomization(stats, "base", "base", n_samples=200)
    assert res.p_value == 1 / 201 and res.difference == 0.0
    assert res.to_dict()["test"] == "paired-ar"


def test_paired_errors(corpus):
    _, _, _, stats = corpus
    with pytest.raises(InputError, match=r"baseline_rows: no row has system 'nope'; systems in the table"):
        paired_bootstrap(stats, "nope", "sys")
    with pytest.raises(InputError, match=r"same number of segments.*got 200 and 10"):
        paired_bootstrap(stats, "base", np.arange(10))
    with pytest.raises(InputError, match=r"aligned by segment: position 0 has seg_id 0 vs 1"):
        paired_bootstrap(stats, "base", np.r_[201:400, 200])
    with pytest.raises(InputError, match=r"seed must be a non-negative int.*got -1"):
        paired_bootstrap(stats, "base", "sys", seed=-1)
    with pytest.raises(InputError, match=r"n_samples must be an integer >= 1; got 0"):
        paired_approximate_randomization(stats, "base", "sys", n_samples=0)
    with pytest.raises(InputError,
                       match=r"metric must be one of 'bleu', 'delta_bleu', 'chrf', 'chrf\+\+', 'ter'; got 'meteor'"):
        paired_bootstrap(stats, "base", "sys", metric="meteor")
    with pytest.raises(ValueError, match=r"no chrF statistics"):
        paired_bootstrap(stats, "base", "sys", metric="chrf")


# --------------------------------------------------------------------------- williams


def test_williams_test_by_hand():
    # Graham & Baldwin (2014), eq. 1, with r12 = .8, r13 = .6, r23 = .5, n = 30:
    # K = 1 - .64 - .36 - .25 + 2(.8)(.6)(.5) = 0.23;  rbar = 0.7
    # num = 0.2 * sqrt(29 * 1.5) = 1.3190906;  den = sqrt(2 * 29/27 * 0.23 + 0.49 * 0.5**3) = 0.7452007
    # t = 1.7701146 on 27 df
    res = williams_test(0.8, 0.6, 0.5, 30)
    assert res.statistic == pytest.approx(1.7701146, rel=1e-6)
    assert res.df == 27
    from scipy.stats import t

    assert res.p_value == pytest.approx(t.sf(1.7701146, 27), rel=1e-6)
    assert 0.04 < res.p_value < 0.05
    # swapping the metrics flips the sign: one-sided p for the other direction
    assert williams_test(0.6, 0.8, 0.5, 30).p_value == pytest.approx(1 - res.p_value)
    assert williams_test(0.7, 0.7, 0.9, 10).p_value == pytest.approx(0.5)


def test_williams_errors():
    with pytest.raises(InputError, match=r"r23 must be a correlation in \[-1, 1\]; got 1.5"):
        williams_test(0.5, 0.5, 1.5, 10)
    with pytest.raises(InputError, match=r"n must be an int > 3"):
        williams_test(0.5, 0.4, 0.3, 3)
    with pytest.raises(InputError, match=r"cannot be correlations among three variables"):
        williams_test(0.9, -0.9, 0.9, 10)


# --------------------------------------------------------------------------- metric difference


def _segment_data(seed=0, n_sys=6, n_items=40):
    rng = np.random.default_rng(seed)
    system = np.repeat(np.arange(n_sys), n_items)
    item = np.tile(np.arange(n_items), n_sys)
    human = rng.normal(size=n_sys * n_items)
    good = human + rng.normal(scale=0.3, size=human.size)
    bad = human + rng.normal(scale=3.0, size=human.size)
    return good, bad, human, system, item


@pytest.mark.parametrize("test", ["bootstrap", "permutation"])
def test_identical_metrics_are_never_significant(test):
    good, _, human, system, item = _segment_data()
    res = correlation_difference_test(good, good, human, level="segment", system=system, item=item,
                                      test=test, n_samples=200, grouping="item", method="kendall")
    assert res.difference == 0.0 and res.p_value == 1.0


@pytest.mark.parametrize("grouping", ["flat", "item", "system"])
@pytest.mark.parametrize("test", ["bootstrap", "permutation"])
def test_clearly_better_metric_is_significant(test, grouping):
    good, bad, human, system, item = _segment_data()
    res = correlation_difference_test(good, bad, human, level="segment", system=system, item=item,
                                      grouping=grouping, test=test, n_samples=200, method="pearson")
    assert res.difference > 0.3 and res.p_value < 0.01
    want = segment_correlation(good, human, system=system, item=item, grouping=grouping)
    assert res.r_a == pytest.approx(want.value, abs=1e-12)
    rev = correlation_difference_test(bad, good, human, level="segment", system=system, item=item,
                                      grouping=grouping, test=test, n_samples=200)
    assert rev.p_value > 0.9
    if test == "bootstrap":
        assert res.ci_low > 0 and res.ci_high > res.ci_low


def test_permutation_null_is_calibrated():
    # two equally noisy metrics: p-values spread over (0, 1), roughly uniform
    ps = []
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        human = rng.normal(size=40)
        a, b = human + rng.normal(size=40), human + rng.normal(size=40)
        ps.append(correlation_difference_test(a, b, human, test="permutation", n_samples=200, seed=seed).p_value)
    ps = np.array(ps)
    assert 0.2 < ps.mean() < 0.8 and (ps < 0.05).sum() <= 2


def test_system_level_and_wmt_variant():
    rng = np.random.default_rng(4)
    human = rng.normal(size=15)
    a, b = human + rng.normal(scale=0.2, size=15), rng.normal(size=15)
    res = correlation_difference_test(a, b, human, n_samples=300, seed=1)
    assert res.r_a == pytest.approx(pearson(a, human)) and res.level == "system" and res.n_units == 15
    assert res.p_value < 0.05
    good, bad, human_s, system, item = _segment_data(n_sys=4, n_items=10)
    res = correlation_difference_test(good, bad, human_s, level="segment", system=system, item=item,
                                      grouping="item", method="kendall", variant="wmt", threshold=0.5,
                                      test="permutation", n_samples=100)
    want = segment_correlation(good, human_s, system=system, item=item, grouping="item", method="kendall",
                               variant="wmt", threshold=0.5)
    assert res.r_a == pytest.approx(want.value) and res.variant == "wmt"
    assert set(res.to_dict()) >= {"p_value", "seed", "n_valid"}


def test_correlation_difference_errors():
    good, bad, human, system, item = _segment_data(n_sys=3, n_items=4)
    with pytest.raises(InputError, match=r"test must be 'bootstrap' or 'permutation'; got 'perm'"):
        correlation_difference_test(good, bad, human, test="perm")
    with pytest.raises(InputError, match=r"level='segment' needs system= and item= labels"):
        correlation_difference_test(good, bad, human, level="segment")
    with pytest.raises(InputError, match=r"every \(system, item\) pair exactly once; 1 pair\(s\) are missing"):
        correlation_difference_test(good[1:], bad[1:], human[1:], level="segment", system=system[1:],
                                    item=item[1:])
    with pytest.raises(InputError, match=r"human contains 1 NaN"):
        correlation_difference_test(good[:3], bad[:3], [1.0, math.nan, 2.0])
    with pytest.raises(InputError, match=r"threshold applies to variant 'wmt' and 'acc23' only"):
        correlation_difference_test(good[:5], bad[:5], human[:5], method="kendall", threshold=1.0)


def test_permutation_test_rejects_acc23_tolerance_and_is_chunk_invariant(monkeypatch):
    rng = np.random.default_rng(3)
    human = rng.normal(size=40)
    a, b = human + rng.normal(size=40), human + 2 * rng.normal(size=40)
    with pytest.raises(InputError, match=r"threshold: the permutation test swaps z-scored .*got threshold=0\.5"):
        significance.correlation_difference_test(a, b, human, method="kendall", variant="acc23", threshold=0.5,
                                                 test="permutation", n_samples=10)
    whole = significance.correlation_difference_test(a, b, human, test="permutation", n_samples=300, seed=5)
    monkeypatch.setattr(compare, "_CHUNK", 7 * 40)  # 7 resamples per chunk before rounding
    chunked = significance.correlation_difference_test(a, b, human, test="permutation", n_samples=300, seed=5)
    assert chunked.p_value == whole.p_value
