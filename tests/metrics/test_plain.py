"""corpus_bleu / sentence_bleu on plain floats against the numba pipeline and numpy's formula.

For small list inputs both functions count in plain Python
(:mod:`bleustats.engine.small`) and score on plain floats
(``bleustats.metrics.bleu._plain_bleu`` is private: reached through the public
functions here). On random inputs (hypothesis), with every smoothing method,
effective order, reference length, ΔBLEU weights and definition, the result
must equal the pipeline's field by field: the same signature, the same types,
the same numbers to the bit (the plain formula takes numpy's ``log`` / ``exp``
and numpy's sums of floats, so ``corpus_bleu`` and ``corpus_bleu_files`` on
the same text agree exactly).
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats

from ..conftest import force_path

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
        if f.name == "stats":
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
