"""A study whose correlations are undefined says why (note column and RuntimeWarning)."""

from __future__ import annotations

import pandas as pd
import pytest

from bleustats.engine.stats import compute_stats
from bleustats.meta.report import to_markdown
from bleustats.meta.study import corpus_metric, correlation_study

HYPS = pd.DataFrame({"seg_id": [0, 0, 1, 1, 2, 2, 3, 3], "system": ["A", "B"] * 4,
                     "text": ["a b", "a c", "d e", "d e", "f g", "h i", "j k", "j x"]})
REFS = pd.DataFrame({"seg_id": [0, 1, 2, 3], "text": ["a b", "d e", "f g", "j k"]})


@pytest.fixture(scope="module")
def metric():
    return corpus_metric(compute_stats(HYPS, REFS, tokenize="none", max_ngram_order=1))


def test_constant_human_scores_give_a_note_and_a_warning(metric):
    human = HYPS[["system", "seg_id"]].assign(score=2.0)
    with pytest.warns(RuntimeWarning,
                      match=r"BLEU \[all\]: ρ and τ are undefined: the human score differences "
                            r"are constant, 0 in all 4 observations \(every system pair rated the same\)"):
        res = correlation_study([metric], human, unit_size=1)
    assert res.summary["note"].iloc[0].startswith("ρ and τ are undefined")
    assert "Note: metric (BLEU [all]): ρ and τ are undefined" in to_markdown(res)


def test_defined_correlations_have_no_note(metric, recwarn):
    human = HYPS[["system", "seg_id"]].assign(score=[3.0, 1.0, 2.0, 2.0, 4.0, 0.0, 1.0, 0.5])
    res = correlation_study([metric], human, unit_size=1)
    assert res.summary["note"].tolist() == [""]
    assert "Note:" not in to_markdown(res)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning) and "undefined" in str(w.message)]
