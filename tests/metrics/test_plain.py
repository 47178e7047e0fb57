"""corpus_bleu / sentence_bleu counted in plain Python against the numba pipeline.

For small list inputs both functions count in plain Python
(:mod:`bleustats.engine._small`) and sum the rows exactly
(:func:`bleustats.metrics._plain.sum_rows`) into the one formula
(:mod:`bleustats.metrics.formula`); sacreBLEU's ``BLEU`` object counts a few segments the same way
and builds the kernels' statistics matrix from the rows
(:func:`bleustats.metrics._plain.rows_matrix`). On random inputs (hypothesis), with every smoothing method,
effective order, reference length, ΔBLEU weights and definition, the result
must equal the pipeline's field by field: the same signature, the same types,
the same numbers to the bit (so ``corpus_bleu`` and ``corpus_bleu_files`` on
the same text agree exactly).
"""

from __future__ import annotations

import contextlib
import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats

from ..conftest import examples, force_path

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", ",", ".", "Cat", "é"])
SENTENCES = st.lists(WORDS, max_size=14).map(" ".join)
SMOOTHING = st.sampled_from([("exp", None), ("none", None), ("floor", None), ("floor", 0.3), ("add-k", None),
                             ("add-k", 2), ("add-k", 0.5)])


def both(fn, *args, **kwargs):
    out = []
    for path in ("plain", "kernel"):
        undo = force_path(path)
        try:
            out.append(fn(*args, **kwargs))
        finally:
            undo()
    return out


def close(a, b) -> bool:
    return repr(a) == repr(b)  # to the bit (repr also tells -0.0 from 0.0)


def assert_same_result(plain, kernel) -> None:
    for f in dataclasses.fields(plain):
        a, b = getattr(plain, f.name), getattr(kernel, f.name)
        if f.name == "signature":  # a Signature or a BLEUSignature (no __eq__): its text
            assert str(a) == str(b), (str(a), str(b))
        elif f.name == "stats":
            assert a.keys() == b.keys()
            for key in a:
                assert_same_value(a[key], b[key], f"stats[{key}]")
        else:
            assert_same_value(a, b, f.name)


def assert_same_value(a, b, where) -> None:
    if isinstance(a, list):
        assert len(a) == len(b), where
        for x, y in zip(a, b):
            assert_same_value(x, y, where)
        return
    assert type(a) is type(b), f"{where}: {type(a).__name__} {a!r} vs {type(b).__name__} {b!r}"
    if isinstance(a, float):
        assert close(a, b), f"{where}: plain {a!r} kernel {b!r}"
    else:
        assert a == b, f"{where}: plain {a!r} kernel {b!r}"


@st.composite
def corpora(draw, max_segments=5, max_refs=4):
    n = draw(st.integers(1, max_segments))
    hyps = [draw(SENTENCES) for _ in range(n)]
    refs = [[draw(SENTENCES) for _ in range(n)] for _ in range(draw(st.integers(1, max_refs)))]
    return hyps, refs


@SETTINGS
@given(data=corpora(), smoothing=SMOOTHING, eff=st.booleans(), ref_length=st.sampled_from(
    ["closest", "shortest", "average"]), order=st.integers(1, 6), tok=st.sampled_from(["13a", "none", "char"]))
def test_corpus_bleu(data, smoothing, eff, ref_length, order, tok):
    hyps, refs = data
    sm, sv = smoothing
    plain, kernel = both(bleustats.corpus_bleu, hyps, refs, smooth_method=sm, smooth_value=sv,
                         use_effective_order=eff, ref_length=ref_length, max_ngram_order=order, tokenize=tok)
    assert_same_result(plain, kernel)


@SETTINGS
@given(hyp=SENTENCES, refs=st.lists(SENTENCES, min_size=1, max_size=5), smoothing=SMOOTHING, eff=st.booleans(),
       lowercase=st.booleans())
def test_sentence_bleu(hyp, refs, smoothing, eff, lowercase):
    sm, sv = smoothing
    plain, kernel = both(bleustats.sentence_bleu, hyp, refs, smooth_method=sm, smooth_value=sv,
                         use_effective_order=eff, lowercase=lowercase)
    assert_same_result(plain, kernel)


@SETTINGS
@given(data=st.data(), definition=st.sampled_from(["paper", "galley2019"]),
       ref_length=st.sampled_from(["closest", "average"]), view=st.sampled_from(["all", "threshold", "first"]))
def test_delta_bleu(data, definition, ref_length, view):
    hyps, refs = data.draw(corpora())
    weights = [[data.draw(st.sampled_from([1.0, 0.5, 0.2, -0.4, -1.0, 0.0])) for _ in stream] for stream in refs]
    weights[0] = [1.0] * len(weights[0])  # every segment has a positive reference, kept in every view
    options = dict(ref_weights=weights, delta_definition=definition, ref_length=ref_length, ref_view=view)
    if view == "threshold":
        options["weight_threshold"] = 0.3
    plain, kernel = both(bleustats.corpus_bleu, hyps, refs, **options)
    assert_same_result(plain, kernel)
    plain, kernel = both(bleustats.sentence_bleu, hyps[0], [r[0] for r in refs],
                         ref_weights=[w[0] for w in weights], **{k: v for k, v in options.items()
                                                                  if k != "ref_weights"})
    assert_same_result(plain, kernel)


def test_weighted_items_and_missing_references():
    """(text, weight) items and None in streams are read the same way on both paths."""
    plain, kernel = both(bleustats.corpus_bleu, ["a b c", "d e"], [["a b", ("d", 0.5)], ["c", "d e", ("x", -1.0)]],
                         references_layout="segments")
    assert plain.name == "ΔBLEU"
    assert_same_result(plain, kernel)
    plain, kernel = both(bleustats.corpus_bleu, ["a b c", "d e"], [["a b c", None], [None, "d e"]])
    assert_same_result(plain, kernel)


@pytest.mark.parametrize("fn", ["corpus_bleu", "sentence_bleu"])
def test_delta_bleu_without_positive_weight_raises_on_both_paths(fn):
    for path in ("plain", "kernel"):
        undo = force_path(path)
        try:
            with pytest.raises(bleustats.InputError, match="no reference with a positive weight"):
                if fn == "corpus_bleu":
                    bleustats.corpus_bleu(["a"], [["a"]], ref_weights=[[-0.5]])
                else:
                    bleustats.sentence_bleu("a", ["a"], ref_weights=[0.0])
        finally:
            undo()


# --------------------------------------------------------------------------- sacreBLEU's BLEU object


def _object_both(make, call):
    """``call(make())`` on the plain path and on the kernels; each result with its object's signature.

    On the plain path the kernels' pipeline (``compute_stats``) must not run at all.
    """
    from unittest import mock

    from bleustats.engine import stats

    out = []
    for path in ("plain", "kernel"):
        undo = force_path(path)
        try:
            with mock.patch.object(stats, "compute_stats", side_effect=AssertionError("the kernels ran")) if (
                    path == "plain") else contextlib.nullcontext():
                obj = make()
                result = call(obj)
            out.append((result, str(obj.get_signature())))
        finally:
            undo()
    return out


REFS_WITH_GAPS = st.lists(st.one_of(SENTENCES, st.none()), min_size=1, max_size=4).filter(
    lambda refs: any(r is not None for r in refs))


@SETTINGS
@given(hyp=SENTENCES, refs=REFS_WITH_GAPS, smoothing=SMOOTHING, eff=st.booleans(), lowercase=st.booleans(),
       order=st.integers(1, 5), tok=st.sampled_from(["13a", "none", "intl", "char"]))
def test_bleu_object_sentence_score(hyp, refs, smoothing, eff, lowercase, order, tok):
    sm, sv = smoothing
    (plain, sig_p), (kernel, sig_k) = _object_both(
        lambda: bleustats.BLEU(smooth_method=sm, smooth_value=sv, effective_order=eff, lowercase=lowercase,
                               max_ngram_order=order, tokenize=tok),
        lambda b: b.sentence_score(hyp, refs))
    assert_same_result(plain, kernel)
    assert sig_p == sig_k


@SETTINGS
@given(data=corpora(), smoothing=SMOOTHING, eff=st.booleans(), ref_length=st.sampled_from(
    ["closest", "shortest", "average"]), cached=st.booleans(), gap=st.booleans())
def test_bleu_object_corpus_score(data, smoothing, eff, ref_length, cached, gap):
    hyps, refs = data
    if gap and len(refs) > 1:
        refs[1][0] = None  # a missing reference: nrefs 'var'
    sm, sv = smoothing
    options = dict(smooth_method=sm, smooth_value=sv, effective_order=eff, ref_length=ref_length)
    if cached:  # references given to the constructor, reused by corpus_score(hyps)
        pairs = _object_both(lambda: bleustats.BLEU(references=refs, **options), lambda b: b.corpus_score(hyps))
    else:
        pairs = _object_both(lambda: bleustats.BLEU(**options), lambda b: b.corpus_score(hyps, refs))
    (plain, sig_p), (kernel, sig_k) = pairs
    assert_same_result(plain, kernel)
    assert sig_p == sig_k


@SETTINGS
@given(data=st.data(), definition=st.sampled_from(["paper", "galley2019"]),
       view=st.sampled_from(["all", "threshold", "first"]))
def test_bleu_object_delta_bleu(data, definition, view):
    hyps, refs = data.draw(corpora())
    weights = [[data.draw(st.sampled_from([1.0, 0.5, -0.4, 0.0])) for _ in stream] for stream in refs]
    weights[0] = [1.0] * len(weights[0])
    options = dict(metric="delta_bleu", delta_definition=definition, ref_view=view,
                   weight_threshold=0.3 if view == "threshold" else None)
    (plain, sig_p), (kernel, sig_k) = _object_both(
        lambda: bleustats.BLEU(references=refs, ref_weights=weights, **options), lambda b: b.corpus_score(hyps))
    assert_same_result(plain, kernel)
    assert sig_p == sig_k


def test_bleu_object_bootstrap_and_errors_on_both_paths():
    hyps, refs = ["the cat sat", "a dog", "on the mat ."], [["the cat sat", "the dog", "on a mat ."]]
    (plain, sig_p), (kernel, sig_k) = _object_both(lambda: bleustats.BLEU(),
                                                   lambda b: b.corpus_score(hyps, refs, n_bootstrap=50))
    assert_same_result(plain, kernel)
    assert sig_p == sig_k and "bs:50" in sig_p
    for path in ("plain", "kernel"):
        undo = force_path(path)
        try:
            with pytest.raises(bleustats.InputError, match=r"references\[0\] has 2 lines but there are 3 hypotheses\."):
                bleustats.BLEU().corpus_score(hyps, [refs[0][:2]])
            with pytest.raises(TypeError, match="the argument `hyp` should be a string"):
                bleustats.BLEU().sentence_score(["a"], ["a"])
            with pytest.raises(bleustats.InputError, match="no reference"):
                bleustats.BLEU().sentence_score("a", [None])
        finally:
            undo()


def test_bleu_object_plain_path_loads_no_kernels():
    """A sentence or a few segments through the BLEU object load no numba, Arrow, pandas or scipy.

    References given to the constructor are validated once into an Arrow table (a ReferenceSet):
    then Arrow is loaded, but still no numba.
    """
    import subprocess
    import sys

    loaded = "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'pyarrow', 'pandas', 'scipy'}))\n"
    code = ("import sys, bleustats\nb = bleustats.BLEU(effective_order=True)\n"
            "b.sentence_score('the cat', ['the cat sat'])\nb.corpus_score(['a b c'] * 5, [['a b d'] * 5])\n"
            + loaded + "bleustats.BLEU(references=[['a b d'] * 5]).corpus_score(['a b c'] * 5)\n" + loaded)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "['pyarrow']"], out
