"""Subset-tree kernel and DiscoTK representations (bleustats.trees).

The numba kernel is compared with its plain-Python twin (tests/twins/trees.py)
on hypothesis-generated trees, and both with fragment counts done by hand and by
explicit enumeration.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.tools import trees
from bleustats.errors import InputError
from bleustats.tools.trees import Tree, format_tree, parse_tree, tree_kernel, tree_kernels

from ..twins.trees import (
    count_common_fragments,
    reference_normalized_kernel,
    reference_tree_kernel,
)
from ..conftest import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])

LABELS = ["S", "NP", "VP", "A", "B"]
WORDS = ["a", "b", "the", "é", "中文"]


def tree_strategy(max_leaves: int = 12):
    """Random trees over a tiny alphabet, so that productions often repeat."""
    leaf = st.sampled_from(WORDS)
    node = st.recursive(
        st.builds(lambda lab, ws: Tree(lab, tuple(ws)), st.sampled_from(LABELS), st.lists(leaf, max_size=2)),
        lambda kids: st.builds(
            lambda lab, cs: Tree(lab, tuple(cs)),
            st.sampled_from(LABELS),
            st.lists(st.one_of(kids, leaf), min_size=1, max_size=3),
        ),
        max_leaves=max_leaves,
    )
    return node


# ---------------------------------------------------------------- hand-counted


def test_collins_duffy_np_example_has_six_fragments():
    # Collins & Duffy (2002), figure 1: (NP (D the) (N man)) has 6 fragments:
    # [NP D N], [NP (D the) N], [NP D (N man)], [NP (D the) (N man)], [D the], [N man].
    t = "(NP (D the) (N man))"
    assert tree_kernel(t, t, lam=1.0, normalize=False) == 6.0
    assert count_common_fragments(parse_tree(t), parse_tree(t)) == 6


def test_hand_counted_partial_overlap():
    # (NP (D the) (N man)) vs (NP (D a) (N man)): common [NP D N], [NP D (N man)], [N man] -> 3
    assert tree_kernel("(NP (D the) (N man))", "(NP (D a) (N man))", lam=1.0, normalize=False) == 3.0
    # with decay: Δ(NP) = λ(1 + 0)(1 + λ), Δ(N) = λ  ->  λ(1 + λ) + λ
    lam = 0.5
    assert tree_kernel("(NP (D the) (N man))", "(NP (D a) (N man))", lam=lam, normalize=False) == pytest.approx(
        lam * (1 + lam) + lam)


def test_hand_counted_sentence():
    # (S (NP (D the) (N dog)) (VP barks)) with itself, λ = 1:
    # Δ(D) = Δ(N) = Δ(VP) = 1; Δ(NP) = 2·2 = 4; Δ(S) = (1 + 4)(1 + 1) = 10  ->  K = 17
    t = "(S (NP (D the) (N dog)) (VP barks))"
    assert tree_kernel(t, t, lam=1.0, normalize=False) == 17.0
    assert count_common_fragments(parse_tree(t), parse_tree(t)) == 17


def test_different_arity_shares_nothing_at_the_root():
    assert tree_kernel("(S (A x))", "(S (A x) (A x))", lam=1.0, normalize=False) == 2.0  # (A x) twice


def test_normalized_identity_symmetry_and_range():
    a, b = "(S (NP the dog) (VP (V bit) (NP the man)))", "(S (NP the man) (VP (V bit) (NP the dog)))"
    assert tree_kernel(a, a) == pytest.approx(1.0)
    assert tree_kernel(a, b) == pytest.approx(tree_kernel(b, a))
    assert 0.0 < tree_kernel(a, b) < 1.0
    assert tree_kernel("(X y)", "(Z y)") == 0.0


# ---------------------------------------------------------------- twin tests


@SETTINGS
@given(tree_strategy(), tree_strategy(), st.sampled_from([1.0, 0.4, 0.1]))
def test_kernel_equals_twin(a, b, lam):
    got = tree_kernels([a, a], [b, a], lam=lam, normalize=False)
    assert got[0] == pytest.approx(reference_tree_kernel(a, b, lam), rel=1e-12)
    assert got[1] == pytest.approx(reference_tree_kernel(a, a, lam), rel=1e-12)
    assert tree_kernel(a, b, lam=lam) == pytest.approx(reference_normalized_kernel(a, b, lam), rel=1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(tree_strategy(max_leaves=6), tree_strategy(max_leaves=6))
def test_lambda_one_counts_common_fragments(a, b):
    assert tree_kernel(a, b, lam=1.0, normalize=False) == count_common_fragments(a, b)


@settings(max_examples=examples(30), deadline=None)
@given(tree_strategy())
def test_format_parse_round_trip(t):
    assert parse_tree(format_tree(t)) == t


def test_parallel_batch_equals_serial(monkeypatch):
    rng = np.random.default_rng(0)
    forest = []
    for _ in range(60):
        words = rng.choice(WORDS, size=rng.integers(1, 40)).tolist()
        forest.append("(S " + " ".join(f"(X{int(rng.integers(0, 3))} (W {w}))" for w in words) + ")")
    left, right = forest[:30], forest[30:]
    monkeypatch.setattr(trees, "_PARALLEL_MIN_WORK", 0)
    par = tree_kernels(left, right, lam=0.7, normalize=False)
    monkeypatch.setattr(trees, "_PARALLEL_MIN_WORK", 10**12)
    ser = tree_kernels(left, right, lam=0.7, normalize=False)
    assert np.array_equal(par, ser)
    assert np.allclose(ser, [reference_tree_kernel(parse_tree(x), parse_tree(y), 0.7) for x, y in zip(left, right)],
                       rtol=1e-12)


def test_encoding_does_not_depend_on_tree_order():
    a, b = "(S (A x) (B y))", "(B y)"
    e1, e2 = trees.encode_trees([a, b]), trees.encode_trees([b, a])
    assert e1.productions == e2.productions


@pytest.mark.big
def test_deep_tree_needs_no_recursion():
    depth = 5000
    t = "(A " * depth + "x" + ")" * depth
    assert tree_kernel(t, t, lam=0.5, normalize=True) == pytest.approx(1.0)


# ---------------------------------------------------------------- discourse


RST = "(Elaboration:NS (Attribution:SN (EDU he said) (EDU the cat sat)) (EDU on the mat))"


def test_representations_exactly():
    got = {name: format_tree(trees.discourse_tree(RST, name)) for name in trees.DISCOTK_REPRESENTATIONS}
    assert got == {
        "DR-NOLEX": "(Elaboration (NUC (Attribution (SAT EDU) (NUC EDU))) (SAT EDU))",
        "DR-LEX1": "(Elaboration (NUC (Attribution (SAT (EDU he said)) (NUC (EDU the cat sat)))) "
                   "(SAT (EDU on the mat)))",
        "DR-LEX1.1": "(REL (NUC (REL (SAT (EDU he said)) (NUC (EDU the cat sat)))) (SAT (EDU on the mat)))",
        "DR-LEX2": "(Elaboration (NUC (Attribution (SAT (EDU (W he) (W said))) (NUC (EDU (W the) (W cat) (W sat))))) "
                   "(SAT (EDU (W on) (W the) (W mat))))",
        "DR-LEX2.1": "(REL (NUC (REL (SAT (EDU (W he) (W said))) (NUC (EDU (W the) (W cat) (W sat))))) "
                     "(SAT (EDU (W on) (W the) (W mat))))",
    }


def test_discotk_light_is_mean_of_five_and_one_for_identical():
    hyp = ["(Elaboration:NS (Attribution:SN (EDU she said) (EDU the cat sat)) (EDU on a mat))", RST]
    ref = [RST, RST]
    parts = trees.discourse_kernels(hyp, ref)
    assert list(parts) == list(trees.DISCOTK_REPRESENTATIONS)
    light = trees.discotk_light(hyp, ref)
    assert np.allclose(light, np.mean(list(parts.values()), axis=0))
    assert light[1] == pytest.approx(1.0)
    assert 0 < light[0] < 1
    # the relation-free variants ignore a changed relation label; the others do not
    other = [RST.replace("Attribution", "Background"), RST]
    p2 = trees.discourse_kernels(other, ref)
    assert p2["DR-LEX1.1"][0] == pytest.approx(1.0) and p2["DR-LEX2.1"][0] == pytest.approx(1.0)
    assert p2["DR-LEX1"][0] < 1.0 and p2["DR-NOLEX"][0] < 1.0


def test_representations_against_twin():
    hyp = "(Contrast:NN (EDU it rains) (Cause:NS (EDU we stay) (EDU because it rains)))"
    for name in trees.DISCOTK_REPRESENTATIONS:
        a, b = trees.discourse_tree(hyp, name), trees.discourse_tree(RST, name)
        got = trees.discourse_kernels([hyp], [RST], representations=[name], lam=0.4)[name][0]
        assert got == pytest.approx(reference_normalized_kernel(a, b, 0.4), rel=1e-12)


def test_empty_edu_is_allowed():
    assert trees.discotk_light(["(Joint:NN (EDU) (EDU a))"], ["(Joint:NN (EDU) (EDU a))"]).tolist() == [1.0]


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("text, match", [
    ("(S (A x)", r"tree: 1 unclosed '\(' .*Add the missing '\)'"),
    ("(S (A x)))", r"unbalanced '\)' at character 9"),
    ("S x", r"must start with '\(' followed by its label.*got 'S x'"),
    ("( (A x))", r"every '\(' must be followed by a label"),
    ("(S x) (T y)", r"text after the end of the tree at character 6"),
])
def test_parse_errors(text, match):
    with pytest.raises(InputError, match=match):
        parse_tree(text)


def test_parse_rejects_non_string():
    with pytest.raises(InputError, match=r"tree: expected a bracketed tree string .*got int 3"):
        parse_tree(3)


@pytest.mark.parametrize("text, match", [
    ("(Elaboration (EDU a) (EDU b))", r"'Relation:NUC'.*got 'Elaboration' over 2 child"),
    ("(Elaboration:N (EDU a) (EDU b))", r"got 'Elaboration:N' over 2 child"),
    ("(Elaboration:SS (EDU a) (EDU b))", r"at least one N"),
    ("(Joint:NN (EDU a) word)", r"got the word 'word' under 'Joint:NN'.*Wrap words in \(EDU"),
    ("(Joint:NN (EDU a (X b)) (EDU c))", r"an EDU node holds words only; got a sub-tree '\(X b\)'"),
])
def test_rst_errors(text, match):
    with pytest.raises(InputError, match=match):
        trees.parse_rst(text)


def test_option_errors():
    with pytest.raises(InputError, match=r"lam: the decay must be a number in \(0, 1\]; got 0"):
        tree_kernel("(A x)", "(A x)", lam=0)
    with pytest.raises(InputError, match=r"lam: .*got True"):
        tree_kernel("(A x)", "(A x)", lam=True)
    with pytest.raises(InputError, match=r"right: need one tree per tree of left \(2\); got 1"):
        tree_kernels(["(A x)", "(A y)"], ["(A x)"])
    with pytest.raises(InputError, match=r"representation must be one of 'DR-NOLEX'.*got 'DR-LEX3'"):
        trees.discourse_tree(RST, "DR-LEX3")
    with pytest.raises(InputError, match=r"references: need one reference tree per hypothesis tree \(1\); got 2"):
        trees.discotk_light([RST], [RST, RST])
    with pytest.raises(InputError, match=r"hypotheses\[0\]: relation node labels"):
        trees.discotk_light(["(X (EDU a))"], [RST])


def test_no_overflow_warning_for_moderate_trees():
    t = "(S " + " ".join("(A (B x) (C y))" for _ in range(50)) + ")"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning (overflow, invalid) fails the test
        k = tree_kernel(t, t, lam=1.0, normalize=False)
        assert math.isfinite(k) and k > 0
        assert tree_kernel(t, t, lam=1.0) == 1.0


def _balanced(depth):
    return "(X a)" if depth == 0 else f"(X {_balanced(depth - 1)} {_balanced(depth - 1)})"


@pytest.mark.big
def test_normalized_kernel_of_huge_fragment_counts_is_exact_or_an_error():
    # K(t, t) of a balanced tree of depth 9 is finite but K(a,a)*K(b,b) overflows: still 1.0, not 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tree_kernel(_balanced(9), _balanced(9), lam=1.0) == 1.0
    # at depth 11 K itself overflows float64: a clear error, not a silent 0
    with pytest.raises(InputError, match=r"lam: the kernel of a tree with itself overflows float64 at lam=1\.0"):
        tree_kernel(_balanced(11), _balanced(11), lam=1.0)
    assert tree_kernel(_balanced(11), _balanced(11), lam=0.4) == pytest.approx(1.0)
