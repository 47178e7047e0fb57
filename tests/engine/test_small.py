"""The plain-Python statistics (bleustats.engine._small) against the numba kernels, value for value.

Both paths of ``compute_stats`` run on the same random inputs (hypothesis):
ΔBLEU weights and both definitions, every reference view, every tokenizer
with and without lowercasing on random unicode text, empty lines, many
references, several hypotheses per segment. Every column must be equal
exactly: the integers, and the floats to the bit (the plain path sums each
order's weighted matches in the kernel's order). Also: which path
``prefer_plain`` picks, and that the plain path loads no numba.
"""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats
from bleustats.engine import _small as small
from bleustats.tokenizers import TOKENIZERS

from ..conftest import examples, force_path

SETTINGS = settings(max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

VOCAB = ["a", "b", "c", "é", "中文", "🙂", "x.y", "A", "Ω", "ß"]
WEIGHTS = st.one_of(st.floats(min_value=-1.0, max_value=1.0, allow_nan=False),
                    st.sampled_from([-1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0]))
# text that every tokenizer has work in: punctuation, digits, CJK, symbols, several kinds of space
TEXT = st.text(alphabet=st.sampled_from(list("ab cA.,;-'\"$%&()0123 9ÉéİΣς中文。？🙂\t\u00a0\u3000&amp;")),
               max_size=40)


def both_paths(*args, **kwargs):
    """compute_stats on the plain path and on the kernels; the two pyarrow tables."""
    out = []
    for path in ("plain", "kernel"):
        undo = force_path(path)
        try:
            out.append(bleustats.compute_stats(*args, **kwargs).table)
        finally:
            undo()
    return out


def assert_identical(plain: pa.Table, kernel: pa.Table) -> None:
    assert plain.schema.equals(kernel.schema, check_metadata=True)
    for name in plain.column_names:
        a, b = plain.column(name).to_pylist(), kernel.column(name).to_pylist()
        # floats to the bit: repr tells 0.1 + 0.2 from 0.3 and -0.0 from 0.0
        assert list(map(repr, a)) == list(map(repr, b)), f"{name}: plain {a} kernel {b}"


@st.composite
def weighted_segments(draw, max_segments=6, max_refs=6, lengths=(0, 1, 2, 3, 6, 15)):
    """(hyps, per-segment references, per-segment weights) of whitespace-joined tokens."""
    vocab = draw(st.permutations(VOCAB))[: draw(st.sampled_from([1, 2, 3, len(VOCAB)]))]
    tokens = st.lists(st.sampled_from(vocab), max_size=draw(st.sampled_from(lengths))).map(" ".join)
    n_seg = draw(st.integers(1, max_segments))
    hyps = [draw(tokens) for _ in range(n_seg)]
    refs = [[draw(tokens) for _ in range(draw(st.integers(1, max_refs)))] for _ in range(n_seg)]
    weights = []
    for seg in refs:
        w = [draw(WEIGHTS) for _ in seg]
        if draw(st.booleans()):
            w = [draw(st.sampled_from([1.0, 0.5, 0.25]))] * len(seg)  # uniform weights
        weights.append(w)
    return hyps, refs, weights


@SETTINGS
@given(data=weighted_segments(), max_order=st.integers(1, 9), definition=st.sampled_from(["paper", "galley2019"]))
def test_weighted_statistics_identical(data, max_order, definition):
    hyps, refs, weights = data
    plain, kernel = both_paths(hyps, refs, ref_weights=weights, references_layout="segments", tokenize="none",
                               max_ngram_order=max_order, delta_definition=definition)
    assert_identical(plain, kernel)


@SETTINGS
@given(data=weighted_segments(), theta=st.sampled_from([-0.5, 0.0, 0.3]), first=st.booleans())
def test_reference_views_identical(data, theta, first):
    hyps, refs, weights = data
    view = {"ref_view": "first"} if first else {"ref_view": "threshold", "weight_threshold": theta}
    if not first:  # every segment keeps a reference in the view (else both paths raise the same error)
        for seg_w in weights:
            seg_w[0] = 1.0
    plain, kernel = both_paths(hyps, refs, ref_weights=weights, references_layout="segments", tokenize="none",
                               **view)
    assert_identical(plain, kernel)


@SETTINGS
@given(hyps=st.lists(TEXT, min_size=1, max_size=5), data=st.data(), tokenize=st.sampled_from(TOKENIZERS),
       lowercase=st.booleans())
def test_every_tokenizer_identical(hyps, data, tokenize, lowercase):
    refs = [data.draw(st.lists(TEXT, min_size=len(hyps), max_size=len(hyps))) for _ in range(data.draw(
        st.integers(1, 3)))]
    plain, kernel = both_paths(hyps, refs, tokenize=tokenize, lowercase=lowercase)
    assert_identical(plain, kernel)


@SETTINGS
@given(data=weighted_segments(max_segments=4), systems=st.integers(1, 4), max_order=st.integers(1, 5))
def test_several_hypotheses_per_segment_identical(data, systems, max_order):
    """Long-form tables: each segment's references are counted once for all its hypotheses."""
    hyps, refs, weights = data
    rows = [(s, f"sys{k}", h if k == 0 else " ".join(reversed(h.split()))) for k in range(systems)
            for s, h in enumerate(hyps)]
    hyp_table = pa.table({"seg_id": [r[0] for r in rows], "system": [r[1] for r in rows],
                          "text": [r[2] for r in rows]})
    ref_rows = [(s, w, t) for s, (seg, seg_w) in enumerate(zip(refs, weights)) for t, w in zip(seg, seg_w)]
    ref_table = pa.table({"seg_id": [r[0] for r in ref_rows], "weight": [r[1] for r in ref_rows],
                          "text": [r[2] for r in ref_rows]})
    plain, kernel = both_paths(hyp_table, ref_table, tokenize="none", max_ngram_order=max_order)
    assert_identical(plain, kernel)


@pytest.mark.parametrize("definition", ["paper", "galley2019"])
def test_many_references_and_empty_lines(definition):
    refs = [[("a b " * (k % 7)).strip() for k in range(300)], ["", "", "a"], [""]]
    weights = [[((k * 37) % 200 - 100) / 100 for k in range(300)], [0.5, -1.0, 1.0], [1.0]]
    plain, kernel = both_paths(["a b a b a", "", "a a"], refs, ref_weights=weights, references_layout="segments",
                               tokenize="none", delta_definition=definition)
    assert_identical(plain, kernel)


def test_errors_are_the_pipelines():
    """The plain path hands every input it does not read to the pipeline, which raises as before."""
    with pytest.raises(bleustats.InputError, match="no reference"):
        bleustats.compute_stats(["a"], [[None]])
    with pytest.raises(bleustats.InputError, match=r"references\[0\] has 2 lines"):
        bleustats.corpus_bleu(["a", "b", "c"], [["a", "b"]])
    with pytest.raises(ValueError, match="tokenize must be one of"):
        bleustats.sentence_bleu("a", ["a"], tokenize="13b")


def test_prefer_plain_reads_the_input_only():
    """One threshold on the call's characters: the same answer however often it is asked, kernels loaded or not."""
    limit = small.PLAIN_MAX_CHARS
    for _ in range(3):  # no budget spent by asking
        assert small.prefer_plain(0) and small.prefer_plain(limit)
        assert not small.prefer_plain(limit + 1)


def test_route_is_the_same_in_any_process():
    """A call of a given size takes the same path in a fresh process and after the kernels ran on a large job."""
    per_segment = len("a b c d") + len("a b c e")
    small_n, large_n = small.PLAIN_MAX_CHARS // per_segment // 2, small.PLAIN_MAX_CHARS // per_segment + 1
    code = ("import sys, bleustats\n"
            "def path(n):\n"
            "    st = bleustats.compute_stats(['a b c d'] * n, [['a b c e'] * n])\n"
            "    return 'plain' if 'plain' in st.timings else 'kernels'\n"
            f"first = [path(1), path({small_n})]\n"
            f"large = path({large_n})\n"  # more text than the plain path counts: loads the kernels
            f"print(first, large, [path(1), path({small_n})])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['plain', 'plain'] kernels ['plain', 'plain']", out


def test_plain_path_loads_no_numba_or_pandas():
    code = ("import sys, bleustats; bleustats.sentence_bleu('the cat', ['the cat sat']); "
            "bleustats.corpus_bleu(['a b c'] * 50, [['a b d'] * 50]); bleustats.compute_stats(['a'], [['a']]); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'pandas', 'scipy', 'llvmlite'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
