"""chrF's formula (``chrf_from_sums``) on one row and on a block of rows: the same numbers, bit for bit.

One row (a sentence, or a corpus's column sums) runs the per-order loop on
numpy scalars, a block on arrays; both are the same IEEE operations, so each
row of a block must equal the row scored alone, for every option (float32
too: sacreBLEU's bootstrap arithmetic), zeros anywhere included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.errors import InputError
from bleustats.metrics.chrf import CHRF, chrf_from_sums
from ..conftest import examples


@st.composite
def blocks(draw):
    char_order, word_order = draw(st.integers(0, 6)), draw(st.integers(0, 2))
    char_order = char_order or (0 if word_order else 1)
    cols = 3 * (char_order + word_order)
    rows = draw(st.integers(1, 5))
    values = draw(st.lists(st.integers(0, 6) | st.just(0), min_size=rows * cols, max_size=rows * cols))
    return np.array(values, np.int64).reshape(rows, cols), char_order, word_order


@settings(max_examples=examples(300), deadline=None)
@given(blocks(), st.sampled_from([0, 0.5, 1, 2, 3]), st.booleans(), st.booleans())
def test_one_row_equals_its_block_row(block, beta, eps_smoothing, float32):
    stats, char_order, word_order = block
    opts = dict(char_order=char_order, word_order=word_order, beta=beta, eps_smoothing=eps_smoothing,
                float32=float32)
    together = np.asarray(chrf_from_sums(stats, **opts))
    for i, row in enumerate(stats):
        alone = chrf_from_sums(row, **opts)
        assert type(alone) is float
        assert np.float64(alone).tobytes() == np.float64(together[i]).tobytes() or (
            np.isnan(alone) and np.isnan(together[i]))


@pytest.mark.parametrize("hyps, kind", [(["a b", 5], "int 5"), ([b"a b"], "bytes"), ([["a", "b"]], "list")])
def test_the_few_segments_lane_refuses_what_the_general_path_refuses(hyps, kind):
    # sacreBLEU's private method, which MBR and reranking code calls directly: a hypothesis that is not a str is
    # one line naming it, on the few-segments lane as on the table path
    with pytest.raises(InputError, match=f"hypotheses\\[{len(hyps) - 1}\\] must be a str; got {kind}"):
        CHRF()._extract_corpus_statistics(hyps, [["a b"] * len(hyps)])
