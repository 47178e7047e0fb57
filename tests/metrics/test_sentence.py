"""Sentence-level variants (bleustats.sentence): hand-computed values, oracles, registry properties.

Expected numbers: hand computations written out next to each case (``HAND``);
sacreBLEU 2.6.0 ``sentence_bleu`` / ``BLEU.compute_bleu``; NLTK's
``nltk.translate.bleu_score.sentence_bleu`` with ``SmoothingFunction`` (test-only
oracle). Deliberate differences from NLTK are each tested below with the reason.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from bleustats.metrics import sentence
from bleustats.metrics.sentence import (SENTENCE_VARIANTS, SentenceStats, chiang_gain, get_variant,
                                        pseudo_document_bleu, score_variant, score_variants, stats_vectors,
                                        update_background)
from bleustats.engine.stats import compute_stats

from ..conftest import examples, shared_path

assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; expected numbers assume 2.6.0"

pytestmark = pytest.mark.usefixtures("numba_one_thread")


def row(match, total, c, r, match_next=None, total_next=None):
    """One-row SentenceStats from plain lists."""
    f = lambda x: None if x is None else np.asarray([x], dtype=np.float64)  # noqa: E731
    return SentenceStats(np.asarray([match], float), np.asarray([total], float), f(c), f(r),
                         f(match_next), f(total_next))


# "the cat sat on the mat" vs "the cat is on the mat": m = 5 3 1 0, t = 6 5 4 3, c = r = 6.
CAT = dict(match=[5, 3, 1, 0], total=[6, 5, 4, 3], c=6, r=6, match_next=0, total_next=2)
# "a dog" vs "the dog barks": m = 1 0 0 0, t = 2 1 0 0, c = 2, r = 3 (short, brevity penalty).
DOG = dict(match=[1, 0, 0, 0], total=[2, 1, 0, 0], c=2, r=3, match_next=0, total_next=0)
e = math.exp
BP_DOG = e(1 - 3 / 2)
G_CAT = (6 / 7 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25  # (prod (m+1)/(t+1))^(1/4) for CAT
G_DOG = (2 / 3 * 1 / 2 * 1 * 1) ** 0.25
B = np.array([3.6, 3.6, 3.6, 2.7, 1.8, 0.9, 3.6, 2.7, 1.8, 0.9])  # 0.9 * [4 4 | 4 3 2 1 | 4 3 2 1]

#: name -> list of (case, options, expected 0-100) worked out by hand.
HAND = {
    "bleu+1": [(CAT, {}, 100 * G_CAT), (DOG, {}, 100 * BP_DOG * G_DOG)],
    "lin-och": [(CAT, {}, 100 * (5 / 6 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25),
                (DOG, {}, 100 * BP_DOG * (1 / 2 * 1 / 2 * 1 * 1) ** 0.25),
                (dict(DOG, match=[0, 0, 0, 0]), {}, 0.0)],
    "nakov:pc-unsmoothed": [(CAT, {}, 0.0),
                            (dict(CAT, match=[5, 3, 1, 1]), {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / 3) ** 0.25)],
    "nakov:pc-grounded": [(CAT, {}, 100 * (G_CAT - (1 / 7 * 1 / 6 * 1 / 5 * 1 / 4) ** 0.25)),
                          (dict(DOG, match=[0, 0, 0, 0]), {}, 0.0)],
    "nakov:bp-smoothed": [(CAT, {}, 100 * e(1 - 7 / 6) * G_CAT), (DOG, {}, 100 * e(1 - 4 / 2) * G_DOG)],
    "nakov:bp-smoothed,pc-grounded": [
        (DOG, {}, 100 * e(1 - 4 / 2) * (G_DOG - (1 / 3 * 1 / 2) ** 0.25))],
    "nakov:unclipped": [(dict(CAT, r=4), {}, 100 * e(1 - 4 / 6) * G_CAT), (DOG, {}, 100 * BP_DOG * G_DOG)],
    "nakov:scaled": [(DOG, {"ilr": 0.5}, 100 * G_DOG), (DOG, {}, 100 * BP_DOG * G_DOG),  # 3 * 0.5 < c: BP 1
                     (DOG, {"ilr": 2.0}, 100 * e(1 - 6 / 2) * G_DOG)],
    "nakov:unclipped,scaled": [(DOG, {"ilr": 0.5}, 100 * e(1 - 1.5 / 2) * G_DOG),
                               (CAT, {"ilr": 0.5}, 100 * e(1 - 3 / 6) * G_CAT)],
    # BLEU(B + s) for s = "x y" vs "a b" (m = 0, t = 2 1 0 0, c = r = 2) in B = 0.9 * perfect 4-gram doc
    "pseudo-doc": [(dict(match=[0, 0, 0, 0], total=[2, 1, 0, 0], c=2, r=2), {"background": B},
                    100 * (3.6 / 5.6 * 2.7 / 3.7 * 1 * 1) ** 0.25),
                   (CAT, {}, 0.0)],
    "chiang-gain": [(dict(match=[0, 0, 0, 0], total=[2, 1, 0, 0], c=2, r=2), {"background": B, "o_len": 3.6},
                     3.6 * (100 * (3.6 / 5.6 * 2.7 / 3.7) ** 0.25 - 100))],
    # sacreBLEU: exp smoothing doubles per zero order; effective order drops orders with t = 0
    "sacrebleu:exp": [(CAT, {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / (2 * 3)) ** 0.25),
                      (DOG, {}, 100 * BP_DOG * (1 / 2 * 1 / (2 * 1)) ** 0.5)],
    "sacrebleu:floor": [(CAT, {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 0.1 / 3) ** 0.25)],
    "sacrebleu:add-k": [(CAT, {}, 100 * (5 / 6 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25)],
    "sacrebleu:none": [(CAT, {}, 0.0),
                       (dict(CAT, match=[5, 3, 1, 1]), {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 1 / 3) ** 0.25)],
    # Chen & Cherry (NLTK semantics: denominators max(1, t))
    "chen-cherry:1": [(CAT, {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * 0.1 / 3) ** 0.25),
                      (DOG, {}, 100 * BP_DOG * (1 / 2 * 0.1 / 1 * 0.1 / 1 * 0.1 / 1) ** 0.25)],
    "chen-cherry:2": [(CAT, {}, 100 * (5 / 6 * 4 / 6 * 2 / 5 * 1 / 4) ** 0.25)],
    "chen-cherry:3": [(DOG, {}, 100 * BP_DOG * (1 / 2 * 1 / 2 * 1 / 4 * 1 / 8) ** 0.25)],
    "chen-cherry:4": [(CAT, {}, 100 * (5 / 6 * 3 / 5 * 1 / 4 * math.log(6) / (2 * 5 * 3)) ** 0.25)],
    "chen-cherry:5": [(CAT, {}, None)],  # closed form below (test_chen_cherry_5_recurrence)
    "chen-cherry:6": [(dict(CAT, match=[5, 3, 1, 1]), {},
                       None)],  # closed form below (test_chen_cherry_6_prior)
    "chen-cherry:7": [(CAT, {}, None)],
}


def cc5_hand(p, p_next):
    out, prev = [], p[0] + 1
    for i in range(len(p)):
        prev = (prev + p[i] + (p[i + 1] if i + 1 < len(p) else p_next)) / 3
        out.append(prev)
    return out


def test_every_registered_metric_has_hand_values():
    assert set(HAND) == set(SENTENCE_VARIANTS)


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_computed(name):
    for case, options, expected in HAND[name]:
        s = row(**case)
        got = float(SENTENCE_VARIANTS[name](s, **options)[0])
        if expected is None:
            continue
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (name, case, options)


def test_chen_cherry_5_recurrence():
    p = [5 / 6, 3 / 5, 1 / 4, 0 / 3]
    want = 100 * math.prod(cc5_hand(p, 0 / 2)) ** 0.25
    assert SENTENCE_VARIANTS["chen-cherry:5"](row(**CAT))[0] == pytest.approx(want, rel=1e-12)
    p4 = [5 / 6, 3 / 5, 1 / 4, math.log(6) / (2 * 5 * 3)]  # method 4 first, then 5
    want7 = 100 * math.prod(cc5_hand(p4, 0 / 2)) ** 0.25
    assert SENTENCE_VARIANTS["chen-cherry:7"](row(**CAT))[0] == pytest.approx(want7, rel=1e-12)


def test_chen_cherry_6_prior():
    p1, p2 = 5 / 6, 3 / 5
    p3 = (1 + 5 * p2 ** 2 / p1) / (4 + 5)
    p4 = (1 + 5 * p3 ** 2 / p2) / (3 + 5)
    want = 100 * (p1 * p2 * p3 * p4) ** 0.25
    assert SENTENCE_VARIANTS["chen-cherry:6"](row(**dict(CAT, match=[5, 3, 1, 1])))[0] == pytest.approx(want, rel=1e-12)


# --------------------------------------------------------------------------- registry properties


@st.composite
def stats_rows(draw, n_order=4, with_next=True):
    """Valid statistics: t_n = max(0, c - n + 1), 0 <= m_n <= t_n."""
    k = draw(st.integers(1, 6))
    c = np.array(draw(st.lists(st.integers(0, 12), min_size=k, max_size=k)), float)
    r = np.array(draw(st.lists(st.integers(0, 14), min_size=k, max_size=k)), float)
    orders = n_order + 1
    t = np.maximum(0, c[:, None] - np.arange(orders)[None, :])
    frac = np.array(draw(st.lists(st.floats(0, 1), min_size=k * orders, max_size=k * orders))).reshape(k, orders)
    m = np.floor(frac * t)
    return SentenceStats(m[:, :n_order], t[:, :n_order], c, r, m[:, n_order], t[:, n_order])


NAMES = sorted(SENTENCE_VARIANTS)


@settings(max_examples=examples(40), deadline=None)
@given(s=stats_rows())
def test_registry_range_and_order_invariance(s):
    perm = np.arange(len(s.hyp_len))[::-1]
    permuted = SentenceStats(*(None if a is None else a[perm] for a in s))
    for name in NAMES:
        metric = SENTENCE_VARIANTS[name]
        scores = metric(s)
        assert scores.shape == s.hyp_len.shape and np.isfinite(scores).all(), name
        if metric.lower is not None:
            assert (scores >= metric.lower - 1e-9).all(), name
        if metric.upper is not None:
            assert (scores <= metric.upper + 1e-9).all(), name
        np.testing.assert_array_equal(metric(permuted), scores[perm], err_msg=name)


@settings(max_examples=examples(40), deadline=None)
@given(s=stats_rows(), order=st.integers(0, 4))
def test_registry_monotone_in_matches(s, order):
    m = s.match_next if order == 4 else s.match[:, order]
    t = s.total_next if order == 4 else s.total[:, order]
    can = m < t
    if not can.any():
        return
    more = s.match.copy()
    more_next = s.match_next.copy()
    if order == 4:
        more_next[can] += 1
    else:
        more[can, order] += 1
    bigger = s._replace(match=more, match_next=more_next)
    for name in NAMES:
        metric = SENTENCE_VARIANTS[name]
        if not metric.monotone:
            continue
        before, after = metric(s), metric(bigger)
        assert (after >= before - 1e-9 * np.maximum(1, np.abs(before))).all(), (name, s, order)


def test_method6_is_declared_not_monotone():
    # Raising p_1 lowers the prior p_2^2 / p_1 of order 3 (and through it order 4): one more
    # unigram match lowers the score, so the registry marks method 6 non-monotone.
    t = [8, 7, 6, 5]
    m6 = SENTENCE_VARIANTS["chen-cherry:6"]
    assert not m6.monotone
    assert m6(row([2, 1, 0, 0], t, 8, 8))[0] < m6(row([1, 1, 0, 0], t, 8, 8))[0]


def test_perfect_hypothesis_scores_100():
    st_ = compute_stats(["a b c d e f"], [["a b c d e f"]], tokenize="none", max_ngram_order=5)
    for name in NAMES:
        if name in ("chen-cherry:5", "chen-cherry:7", "chiang-gain", "pseudo-doc") or (
                "bp-smoothed" in name or "pc-grounded" in name):
            # method 5 averages with the (N+1)-gram; pseudo-doc variants need a background; Nakov's
            # smoothed BP (r + 1 > c) and grounded PC (minus the empty hypothesis' term) stay below 100
            continue
        assert score_variant(st_, name, max_ngram_order=4)[0] == pytest.approx(100.0, abs=1e-9), name


REFS = [["the cat sat on the mat today", "there is a cat on the mat"],
        ["a dog barks loudly", "the dog is barking"]]
HYPS = ["the cat is on the mat", "dog barks"]


def test_delta_bleu_with_unit_weights_equals_bleu():
    plain = compute_stats(HYPS, REFS, references_layout="segments", tokenize="none", max_ngram_order=5)
    for name in NAMES:
        a = score_variant(plain, name, max_ngram_order=4)
        b = score_variant(plain, name, max_ngram_order=4, metric="delta_bleu")
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


def test_delta_bleu_uses_weighted_columns():
    weighted = compute_stats(HYPS, [[(t, 0.5) for t in r] for r in REFS], references_layout="segments",
                             tokenize="none")
    s = sentence.sentence_stats(weighted, metric="delta_bleu")
    np.testing.assert_allclose(s.total, np.stack([weighted.column(f"wtotal_{i}") for i in range(1, 5)], -1))
    assert (score_variant(weighted, "bleu+1", metric="delta_bleu") >= 0).all()


def test_sentence_metrics_one_pass_equals_single():
    st_ = compute_stats(HYPS, REFS, references_layout="segments", tokenize="none", max_ngram_order=5)
    out = score_variants(st_, NAMES, max_ngram_order=4, options={"nakov:scaled": {"ilr": 0.8}})
    for name in NAMES:
        opts = {"ilr": 0.8} if name == "nakov:scaled" else {}
        np.testing.assert_array_equal(out[name], score_variant(st_, name, max_ngram_order=4, **opts))


# --------------------------------------------------------------------------- pseudo-documents


def test_background_decay_closed_form_equals_sequential():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 10, size=(7, 10)).astype(float)
    b = rng.random(10)
    seq = b.copy()
    for x in v:
        seq = 0.999 * (seq + x)
    np.testing.assert_allclose(update_background(b, v, decay=0.999), seq, rtol=1e-12)


def test_pseudo_document_and_gain_on_table():
    st_ = compute_stats(HYPS, REFS, references_layout="segments", tokenize="none")
    bg = update_background(None, stats_vectors(st_), decay=0.9)
    doc = pseudo_document_bleu(st_, bg)
    vec = stats_vectors(st_)
    for i in range(len(HYPS)):  # each row equals corpus BLEU (no smoothing) of B + s_i
        tot = bg + vec[i]
        want = scoring_plain(tot)
        assert doc[i] == pytest.approx(want, rel=1e-12)
    gain = chiang_gain(st_, bg, o_len=np.array([2.0, 3.0]))
    np.testing.assert_allclose(gain, np.array([2.0, 3.0]) * (doc - scoring_plain(bg)), rtol=1e-12)


def scoring_plain(v, n=4):
    c, r, m, t = v[0], v[1], v[2:2 + n], v[2 + n:]
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    if min(m) == 0:
        return 0.0
    return 100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / n)


# --------------------------------------------------------------------------- errors


def test_errors_name_parameter_and_fix():
    st_ = compute_stats(HYPS, REFS, references_layout="segments", tokenize="none")
    with pytest.raises(ValueError, match=r"variant must be one of .*bleu\+1.*got 'bleu\+2'"):
        score_variant(st_, "bleu+2")
    with pytest.raises(ValueError, match=r"nakov:bp-smoothd.*fixes must be .*got 'bp-smoothd'"):
        get_variant("nakov:bp-smoothd")
    with pytest.raises(ValueError, match="pc-unsmoothed and pc-grounded"):
        get_variant("nakov:pc-unsmoothed,pc-grounded")
    with pytest.raises(ValueError, match=r"chen-cherry:5 .*needs order N\+1 = 5.*max_ngram_order=5"):
        score_variant(st_, "chen-cherry:5")
    with pytest.raises(ValueError, match=r"max_ngram_order must be an integer from 1 to the table's order 4; got 5"):
        score_variant(st_, "bleu+1", max_ngram_order=5)
    with pytest.raises(ValueError, match=r"ilr must be a finite number > 0; got -1"):
        score_variant(st_, "nakov:scaled", ilr=-1)
    with pytest.raises(ValueError, match=r"bleu\+1: unknown option\(s\) ilr; this variant takes: none"):
        score_variant(st_, "bleu+1", ilr=2)
    with pytest.raises(ValueError, match=r"metric must be one of 'bleu', 'delta_bleu'; got 'delta'"):
        score_variant(st_, "bleu+1", metric="delta")
    with pytest.raises(ValueError, match=r"background must be a vector .* of 10 .*got shape \(3,\)"):
        pseudo_document_bleu(st_, [1, 2, 3])
    with pytest.raises(ValueError, match=r"decay must be a number in \(0, 1\]; got 1.5"):
        update_background(None, np.zeros(10), decay=1.5)
    negative = compute_stats(["a"], [[("a", -1.0)]], references_layout="segments", tokenize="none")
    with pytest.raises(ValueError, match="no reference with a positive weight"):
        score_variant(negative, "bleu+1", metric="delta_bleu")


def test_any_nakov_combination_is_accepted():
    st_ = compute_stats(HYPS, REFS, references_layout="segments", tokenize="none")
    a = score_variant(st_, "nakov:scaled,bp-smoothed,pc-grounded,unclipped", ilr=1.2)
    assert a.shape == (2,) and np.isfinite(a).all()


# --------------------------------------------------------------------------- sacreBLEU oracle

SACRE = [("none", None, False), ("none", None, True), ("floor", None, True), ("floor", 0.3, False),
         ("add-k", None, True), ("add-k", 2, False), ("exp", None, True), ("exp", None, False)]


def check_sacre(hyps, ref_streams, tokenize):
    st_ = compute_stats(hyps, ref_streams, tokenize=tokenize)
    # sacreBLEU's own statistics, extracted once; compute_bleu per row is sentence_bleu's formula
    metric = BLEU(tokenize=tokenize)
    rows = np.array(metric._extract_corpus_statistics(hyps, ref_streams)).reshape(len(hyps), -1)
    for method, value, eff in SACRE:
        ours = score_variant(st_, f"sacrebleu:{method}", smooth_value=value, use_effective_order=eff)
        want = [BLEU.compute_bleu(r[2:6].tolist(), r[6:10].tolist(), int(r[0]), int(r[1]), smooth_method=method,
                                  smooth_value=value, effective_order=eff).score for r in rows]
        np.testing.assert_allclose(ours, want, rtol=0, atol=1e-9, err_msg=f"{method} {value} {eff}")


def test_sacrebleu_sentence_bleu_directly():
    for hyp, refs in [("the cat is on the mat", REFS[0]), ("dog barks", REFS[1]), ("", REFS[1]), ("a", ["a"])]:
        st_ = compute_stats([hyp], [[r] for r in refs])
        for method in ("none", "floor", "add-k", "exp"):
            want = sacrebleu.sentence_bleu(hyp, refs, smooth_method=method).score
            assert score_variant(st_, f"sacrebleu:{method}")[0] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("pair", ["en-de", "zh-en"])
def test_sacrebleu_smoothing_every_wmt21_segment(pair):
    """Every segment of WMT21 ``pair``: of its vendored slice, or with ``--full-data`` of ../shared."""
    from .test_bleu_oracle import wmt_corpus

    seg_ids, streams, systems = wmt_corpus(pair)
    name = sorted(systems)[0]
    hyps = [systems[name].get(s, "") for s in seg_ids]
    check_sacre(hyps, streams, "13a")


# --------------------------------------------------------------------------- NLTK oracle

import nltk.translate.bleu_score as nltk_bleu  # noqa: E402  (the oracle of chen-cherry:*; a test extra)


def nltk_score(refs_tok, hyp_tok, method):
    sf = nltk_bleu.SmoothingFunction()
    return 100 * nltk_bleu.sentence_bleu(refs_tok, hyp_tok, smoothing_function=getattr(sf, f"method{method}"))


def nltk_known_wrong(method, hyp_tok, stats_row):
    """Cases where we deliberately differ (each has its own test below)."""
    m, t = stats_row
    c = len(hyp_tok)
    if method == 2 and c < 4 and m[0] > 0:
        return True  # NLTK adds one to max(1, t_n): counts one n-gram for hypotheses shorter than N
    if method == 6 and m[0] > 0 and (t[2] == 0 or m[2] == 0):
        return True  # NLTK asserts a non-zero trigram precision
    if method in (4, 7) and c == 1 and m[0] > 0:
        return True  # ln(1) = 0 leaves p_n = 0, which NLTK drops from the geometric mean
    return False


def random_corpus(seed, n):
    rng = random.Random(seed)
    vocab = "a b c d e f g h".split()
    hyps, refs = [], []
    for _ in range(n):
        r = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 3))]
        base = rng.choice(r).split()
        h = [w if rng.random() < 0.7 else rng.choice(vocab) for w in base][: rng.randint(0, len(base) + 2)]
        hyps.append(" ".join(h))
        refs.append(r)
    return hyps, refs


def check_nltk(hyps, refs, tokenize="none", lowercase=False):
    st_ = compute_stats(hyps, refs, references_layout="segments", tokenize=tokenize, lowercase=lowercase,
                        max_ngram_order=5)
    from bleustats.tokenizers import tokenize_lines

    hyp_tok = [h.split() for h in tokenize_lines(hyps, tokenize=tokenize, lowercase=lowercase)]
    ref_tok = [[r.split() for r in tokenize_lines(rs, tokenize=tokenize, lowercase=lowercase)] for rs in refs]
    m = np.stack([st_.column(f"match_{i}") for i in range(1, 5)], -1)
    t = np.stack([st_.column(f"total_{i}") for i in range(1, 5)], -1)
    checked = 0
    for method in range(1, 8):
        ours = score_variant(st_, f"chen-cherry:{method}", max_ngram_order=4)
        for i in range(len(hyps)):
            if nltk_known_wrong(method, hyp_tok[i], (m[i], t[i])):
                continue
            with np.errstate(all="ignore"):
                want = nltk_score(ref_tok[i], hyp_tok[i], method)
            assert ours[i] == pytest.approx(want, rel=1e-9, abs=1e-9), (method, hyps[i], refs[i])
            checked += 1
    return checked


def test_nltk_random_corpus():
    hyps, refs = random_corpus(1, 150)
    assert check_nltk(hyps, refs) > 800


@pytest.mark.slow
def test_nltk_real_data_strided():
    from .test_bleu_oracle import wmt_corpus

    shared_path("data", "wmt21_news", "en-de")
    seg_ids, streams, systems = wmt_corpus("en-de")
    name = sorted(systems)[0]
    ids = seg_ids[::5]
    hyps = [systems[name].get(s, "") for s in ids]
    refs = [[s[seg_ids.index(i)] for s in streams if s[seg_ids.index(i)] is not None] for i in ids]
    assert check_nltk(hyps, refs, tokenize="13a") > 500


def test_nltk_difference_method2_short_hypothesis():
    # NLTK floors the n-gram total at 1 before adding one, so a 2-token hypothesis gets
    # p_3 = p_4 = (0+1)/(1+1); Lin & Och's (m+1)/(t+1) is (0+1)/(0+1) = 1 (nothing to match).
    st_ = compute_stats(["a b"], [["a b"]], tokenize="none", max_ngram_order=4)
    assert score_variant(st_, "chen-cherry:2")[0] == pytest.approx(100.0)
    assert nltk_score([["a", "b"]], ["a", "b"], 2) == pytest.approx(100 * (1 * 1 * 0.5 * 0.5) ** 0.25)
    assert score_variant(st_, "chen-cherry:2")[0] == score_variant(st_, "lin-och")[0]


def test_nltk_difference_method6_zero_trigram():
    # NLTK: AssertionError ("requires non-zero precision for bigrams", checks p_3); we apply the formula.
    hyp, ref = "a b c x", "a b y z"
    with pytest.raises(AssertionError):
        nltk_score([ref.split()], hyp.split(), 6)
    st_ = compute_stats([hyp], [[ref]], tokenize="none")
    p1, p2 = 2 / 4, 1 / 3
    p3 = (0 + 5 * p2 ** 2 / p1) / (2 + 5)
    p4 = (0 + 5 * p3 ** 2 / p2) / (1 + 5)
    assert score_variant(st_, "chen-cherry:6")[0] == pytest.approx(100 * (p1 * p2 * p3 * p4) ** 0.25)


def test_nltk_difference_zero_precision_after_smoothing():
    # Method 4 on a one-token hypothesis: ln(1) = 0 leaves p_2..p_4 = 0; NLTK drops zero
    # precisions from the geometric mean (as if they were 1) and returns 1.0; we return 0.
    st_ = compute_stats(["a"], [["a"]], tokenize="none")
    assert nltk_score([["a"]], ["a"], 4) == pytest.approx(100.0)
    assert score_variant(st_, "chen-cherry:4")[0] == 0.0


def test_nltk_difference_method5_order():
    # NLTK's method 5 always appends the 5-gram precision; with N = 2 we use the trigram.
    st_ = compute_stats(["a b c d e"], [["a b c x e"]], tokenize="none", max_ngram_order=3)
    ours = score_variant(st_, "chen-cherry:5", max_ngram_order=2)[0]
    p = [4 / 5, 2 / 4]
    want = 100 * math.prod(cc5_hand(p, 1 / 3)) ** 0.5
    assert ours == pytest.approx(want, rel=1e-12)
    nl = 100 * nltk_bleu.sentence_bleu([["a", "b", "c", "x", "e"]], list("abcde"), weights=(0.5, 0.5),
                                       smoothing_function=nltk_bleu.SmoothingFunction().method5)
    assert nl == pytest.approx(100 * math.prod(cc5_hand(p, 0 / 1)) ** 0.5, rel=1e-9)  # p_5 = 0/1, not p_3
