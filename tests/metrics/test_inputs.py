"""Scoring inputs: bad scoring options, rows and argument types fail clearly; empty inputs agree with sacreBLEU.

Empty inputs are results, not crashes, and agree with sacreBLEU where
sacreBLEU accepts them. The shared corpus lives in tests/engine/test_inputs.py.
Expected numbers come from running sacreBLEU 2.6.0 (pinned) on the same input.
"""

from __future__ import annotations

import math

import pandas as pd

import numpy as np
import pytest
import sacrebleu

import bleustats
from bleustats.engine.stats import compute_stats
from bleustats.errors import InputError
from bleustats.metrics import tables as scoring

from ..engine.test_inputs import H2, our_matrix, sacre_matrix

pytestmark = pytest.mark.usefixtures("numba_one_thread")


@pytest.mark.parametrize(
    "option, value, match",
    [
        (
            "smooth_method",
            "laplace",
            r"smooth_method must be one of 'none', 'floor', 'add-k', 'exp'; got 'laplace'",
        ),
        ("metric", "meteor", r"metric must be one of 'bleu', 'delta_bleu', 'chrf', 'chrf\+\+', 'ter'; got 'meteor'"),
        (
            "ref_length",
            "longest",
            r"ref_length must be one of 'closest', 'shortest', 'average'; got 'longest'",
        ),
        ("smooth_value", float("nan"), r"smooth_value must be a finite number or None; got nan"),
    ],
)
def test_unknown_scoring_options(option, value, match):
    with pytest.raises(ValueError, match=match):
        bleustats.corpus_bleu(H2, [["x", "y"]], **{option: value})


def test_sentence_bleu_argument_types():
    with pytest.raises(
        InputError,
        match=r"hypothesis must be a str; got list\. For many hypotheses use corpus_bleu",
    ):
        bleustats.sentence_bleu(["a"], ["a"])
    with pytest.raises(InputError, match=r"references must be a list of str .*; got str"):
        bleustats.sentence_bleu("a", "a")


def test_delta_bleu_segment_without_positive_weight():
    refs, wts = [["a b", "c d"], ["x", "y"]], [[1.0, -0.5], [0.5, 0.0]]
    with pytest.raises(
        ValueError,
        match=r"delta_bleu: 1 segment\(s\) have no reference with a positive weight "
        r"\(seg_id 1\).*Give each segment a positively weighted reference",
    ):
        bleustats.corpus_bleu(H2, refs, ref_weights=wts, metric="delta_bleu")
    st = compute_stats(H2, refs, ref_weights=wts)
    with pytest.raises(ValueError, match=r"seg_id 1\)"):
        scoring.sentence_scores(st, metric="delta_bleu")
    with pytest.raises(ValueError, match=r"seg_id 1\)"):
        scoring.corpus_scores(st, metric="delta_bleu")
    # BLEU of the same statistics is fine, and so is ΔBLEU of the rows that have a positive weight
    assert scoring.corpus_score(st).score >= 0
    assert scoring.corpus_score(st, metric="delta_bleu", rows=[0]).name == "ΔBLEU"


def test_corpus_score_rows_checked():
    st = compute_stats(H2 + ["e f g h"], [["a b", "c", "e f g h"]])
    with pytest.raises(
        ValueError, match=r"rows: a boolean mask needs 3 entries \(one per row\); got shape \(2,\)"
    ):
        scoring.corpus_score(st, rows=[True, False])
    in_range = r"rows: indices must be in \[-3, 3\) \(negative counts from the end\); "
    with pytest.raises(ValueError, match=in_range + r"got min 0, max 3\.$"):
        scoring.corpus_score(st, rows=[0, 3])
    with pytest.raises(ValueError, match=in_range + r"got min -4, max -4\.$"):
        scoring.corpus_score(st, rows=[-4])
    # negative indices count from the end, as in numpy
    last, first = scoring.corpus_score(st, rows=[-1]), scoring.corpus_score(st, rows=[-3])
    assert (last.sys_len, last.score) == (4, pytest.approx(100.0))
    assert first.counts == scoring.corpus_score(st, rows=[0]).counts
    with pytest.raises(
        ValueError,
        match=r"rows must be a boolean mask or an integer index array; got dtype float64",
    ):
        scoring.corpus_score(st, rows=[0.5])
    # a bootstrap index array may repeat rows
    twice = scoring.corpus_score(st, rows=[2, 2])
    assert twice.sys_len == 8 and twice.score == pytest.approx(100.0)


def test_corpus_score_empty_rows_list():
    # rows=[] (numpy makes it float64) selects no rows, as an empty integer array does: a corpus
    # score of no segment is refused (a BLEU of 0.00 would be a plausible wrong number), as sacreBLEU refuses
    # an empty test set
    st = compute_stats(H2, [["a b", "c"]])
    for rows in ([], np.array([], np.int64), np.zeros(0)):
        with pytest.raises(InputError, match=r"^stats: no segments to score \(0 rows selected\)"):
            scoring.corpus_score(st, rows=rows)


# --------------------------------------------------------------------------- 4. empty inputs


@pytest.mark.parametrize("refs", [[], [[]], [[], []]])
def test_no_hypotheses_no_references(refs):
    # sacreBLEU 2.6 refuses: corpus_bleu([], [[]]) raises IndexError, and its command line says
    # "Test set ... contains no sentence" (exit 1); bleustats refuses with an InputError
    with pytest.raises(IndexError):
        sacrebleu.corpus_bleu([], refs)
    with pytest.raises(InputError, match=r"no segments to score \(0 rows\)"):
        bleustats.corpus_bleu([], refs)
    st = compute_stats([], refs)  # the empty table itself is fine (e.g. a chunk, a selection)
    with pytest.raises(InputError, match=r"no segments to score"):
        scoring.corpus_score(st)
    assert len(st) == 0 and st.table.schema.names[:2] == ["seg_id", "system"]
    empty_h = pd.DataFrame(
        {"seg_id": pd.Series([], dtype="int64"), "text": pd.Series([], dtype=object)}
    )
    assert len(compute_stats(empty_h, empty_h)) == 0
    assert scoring.corpus_scores(st).empty
    assert len(scoring.sentence_scores(st)) == 0


@pytest.mark.parametrize("tokenize", ["13a", "none", "intl", "char"])
@pytest.mark.parametrize(
    "hyps, refs",
    [
        (["", ""], [["a b", "c"]]),  # empty hypotheses
        (["a b", "c"], [["", ""]]),  # empty references
        (["", ""], [["", ""]]),  # both
        (["a b", ""], [["a b", ""], ["", "x"]]),  # mixed, two streams
        (["  ", "\t"], [[" ", "a"]]),  # whitespace only
        ([" a  b ", "c\r"], [["a b", " c"]]),  # leading / inner / trailing whitespace
    ],
)
def test_empty_strings_as_sacrebleu(tokenize, hyps, refs):
    st = compute_stats(hyps, refs, tokenize=tokenize)
    np.testing.assert_array_equal(our_matrix(st), sacre_matrix(hyps, refs, tokenize))
    for eff in (False, True):
        ours = bleustats.corpus_bleu(hyps, refs, tokenize=tokenize, use_effective_order=eff)
        theirs = sacrebleu.corpus_bleu(hyps, refs, tokenize=tokenize, use_effective_order=eff)
        assert ours.counts == theirs.counts and ours.totals == theirs.totals
        assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
        assert ours.score == pytest.approx(theirs.score, abs=1e-9)
        assert ours.bp == pytest.approx(theirs.bp, abs=1e-12)


def test_empty_strings_sentence_level():
    for hyp, refs in [("", ["a"]), ("a", [""]), ("", [""])]:
        ours = bleustats.sentence_bleu(hyp, refs)
        theirs = sacrebleu.sentence_bleu(hyp, refs)
        assert ours.score == pytest.approx(theirs.score, abs=1e-9)
        assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert math.isfinite(scoring.sentence_scores(compute_stats(["", "a"], [["", ""]])).sum())
