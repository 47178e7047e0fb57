"""ΔBLEU reference weights from human scores of the references: transforms, joins, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bleustats.errors import InputError
from bleustats.meta.ref_weights import WeightTransform, parse_weight_transform, reference_weights

REFS = pd.DataFrame({"seg_id": [1, 1, 1, 2, 2], "ref_id": ["A", "B", "C", "A", "B"],
                     "weight": [1.0] * 5, "text": list("abcde")})


def _scores(values, key="ref_id"):
    return pd.DataFrame({key: ["A", "B", "C", "A", "B"], "seg_id": [1, 1, 1, 2, 2], "score": values})


def test_linear_maps_the_best_reference_to_one_and_clips():
    out, info = reference_weights(REFS, _scores([0.0, -5.0, -12.5, -25.0, -40.0]), "linear:12.5")
    assert out["weight"].tolist() == [1.0, 0.6, 0.0, -1.0, -1.0]
    assert info["label"] == "linear:12.5,top:0" and info["rated"] == 5
    # top is the best rated reference, not 0: scores on another scale work the same way
    out, info = reference_weights(REFS, _scores([90.0, 80.0, 70.0, 60.0, 50.0]), "linear:20")
    assert out["weight"].tolist() == [1.0, 0.5, 0.0, -0.5, -1.0] and info["top"] == 90.0


def test_rank_is_twice_the_empirical_cdf_minus_one_with_ties_sharing_the_highest_rank():
    out, _ = reference_weights(REFS, _scores([0.0, 0.0, -1.0, -3.0, -1.0]), "rank")
    # sorted: -3, -1, -1, 0, 0 -> F(0) = 5/5, F(-1) = 3/5, F(-3) = 1/5
    assert out["weight"].tolist() == pytest.approx([1.0, 1.0, 0.2, -0.6, 0.2])


def test_constant_linear_keeps_the_single_reference_at_one():
    scores = _scores([-25.0, -5.0, 0.0, -25.0, -10.0])
    out, info = reference_weights(REFS, scores, "constant-linear:10", single_ref="A")
    assert out["weight"].tolist() == [1.0, 0.5, 1.0, 1.0, 0.0]  # A constant; top of B, C = 0
    assert info["constant"] == 2 and info["label"].endswith(",const:A")
    # the single reference needs no score; default: each segment's first reference
    out, info = reference_weights(REFS, scores[scores["ref_id"] != "A"], "constant-linear:10")
    assert out["weight"].tolist() == [1.0, 0.5, 1.0, 1.0, 0.0] and info["label"].endswith(",const:first")


def test_scores_from_a_human_table_with_raters_and_other_systems():
    human = pd.concat([_scores([0.0, -5.0, -10.0, -2.0, -4.0], key="system"),
                       pd.DataFrame({"system": ["A", "sys1"], "seg_id": [1, 1], "score": [-10.0, -3.0]})])
    out, _ = reference_weights(REFS, human, "linear:10")
    # A on segment 1: mean of 0 and -10 = -5 -> top is -2 (A, segment 2)
    assert out["weight"].tolist() == pytest.approx([0.7, 0.7, 0.2, 1.0, 0.8])
    mqm = _scores([0.0, -5.0, -10.0, -2.0, -4.0]).rename(columns={"score": "mqm"})
    assert reference_weights(REFS, mqm, "linear:10", score_column="mqm")[0]["weight"].iloc[0] == 1.0


def test_missing_scores_and_bad_specs_are_errors():
    with pytest.raises(InputError, match=r"2 reference\(s\) have no score \(B: seg_id 1, 2\)"):
        reference_weights(REFS, _scores([0.0, np.nan, -1.0, -1.0, np.nan]), "rank")
    with pytest.raises(InputError, match="need a 'ref_id' column"):
        reference_weights(REFS, pd.DataFrame({"seg_id": [1], "score": [0.0]}), "rank")
    for key in ("ref_id", "system", "seg_id"):  # a key column as the scores: refused, not read as NaN
        with pytest.raises(InputError, match=f"the score column '{key}' is a key column"):
            reference_weights(REFS, _scores([0.0, -1.0, -2.0, -1.0, 0.0]).assign(system="x"), "rank",
                              score_column=key)
    for spec, match in (("linear", "needs a scale"), ("linear:-2", "needs a scale"), ("rank:3", "takes no"),
                        ("log:2", "must be 'linear', 'rank' or 'constant-linear'"), ("", "must be a string")):
        with pytest.raises(InputError, match=match):
            parse_weight_transform(spec)
    assert parse_weight_transform(WeightTransform("rank")) == WeightTransform("rank")
    assert str(parse_weight_transform("linear:12.50")) == "linear:12.5"
