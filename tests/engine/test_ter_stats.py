"""``ter_statistics``: input forms, layouts, bad input, and the threaded path.

Expected numbers follow from TER's definition (shown beside each); the
oracle tests (``tests/metrics/test_ter_oracle.py``) compare with sacreBLEU.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from bleustats.engine import ter_stats
from bleustats.engine.ter_stats import TER_COLUMNS, ter_statistics
from bleustats.errors import InputError


def test_columns_and_dtype():
    out = ter_statistics(["a b c"], [["a b d"]])
    assert TER_COLUMNS == ("num_edits", "ref_length")
    assert out.dtype == np.float64 and out.shape == (1, 2)
    assert out.tolist() == [[1.0, 3.0]]  # one substitution, 3 reference words


def test_streams_with_gaps_and_segment_lists_agree():
    hyps = ["a b", "c d e", ""]
    streams = [["a b", "c e d", "x y"], [None, "c d", "z"]]
    per_segment = [["a b"], ["c e d", "c d"], ["x y", "z"]]
    out = ter_statistics(hyps, streams)
    # seg 0: exact, 1 reference of 2 words; seg 1: best is 1 edit (shift or delete), mean (3 + 2) / 2;
    # seg 2: empty hypothesis, fewest edits = shorter reference (1), mean (2 + 1) / 2
    assert out.tolist() == [[0.0, 2.0], [1.0, 2.5], [1.0, 1.5]]
    np.testing.assert_array_equal(ter_statistics(hyps, per_segment, references_layout="segments"), out)


def test_long_form_table_and_arrow_hypotheses():
    refs = pd.DataFrame({"seg_id": [1, 0, 0], "ref_id": ["a", "a", "b"], "weight": [1.0, 1.0, 1.0],
                         "text": ["y", "p q", "q p r"]})
    out = ter_statistics(pa.array(["q p", "y"]), refs)
    assert out.tolist() == [[1.0, 2.5], [0.0, 1.0]]


def test_return_n_refs():
    stats, n_refs = ter_statistics(["a", "b"], [["a", "b"], ["a", None]], return_n_refs=True)
    assert stats.shape == (2, 2) and n_refs.tolist() == [2, 1]


def test_empty_corpus():
    assert ter_statistics([], [[]]).shape == (0, 2)


def test_lowercase_unless_case_sensitive():
    assert ter_statistics(["The CAT"], [["the cat"]])[0, 0] == 0
    assert ter_statistics(["The CAT"], [["the cat"]], case_sensitive=True)[0, 0] == 2


def test_tokens_compared_exactly():
    """Ids come from the exact encoder: long tokens sharing a prefix, unicode, NUL-free lookalikes."""
    long_a = "x" * 40 + "a"
    long_b = "x" * 40 + "b"
    assert ter_statistics([f"{long_a} é ﬁ"], [[f"{long_b} é fi"]])[0, 0] == 2


def test_threaded_path_equals_serial(monkeypatch):
    rng = np.random.default_rng(3)
    vocab = np.array(["a", "b", "c", "d", "e", "f", "g"])
    hyps = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(600)]
    refs = [[" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(600)] for _ in range(2)]
    serial_before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        serial = ter_statistics(hyps, refs)
    finally:
        numba.set_num_threads(serial_before)
    monkeypatch.setattr(ter_stats, "_PARALLEL_MIN_SEGMENTS", 1)
    monkeypatch.setattr(ter_stats, "_PARALLEL_MIN_TOKENS", 1)
    np.testing.assert_array_equal(ter_statistics(hyps, refs), serial)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("hyps,refs,match", [
    ("a b", [["a b"]], r"hypotheses must be a list of strings .* got a single str"),
    (["a", None], [["a", "b"]], r"hypotheses\[1\] must be a str; got NoneType None"),
    ([1], [["a"]], r"hypotheses\[0\] must be a str; got int 1"),
    (5, [["a"]], r"hypotheses must be a list of strings .* got int 5"),
    (["a", "b"], [["a"]], r"references\[0\] has 1 lines? but there are 2 hypotheses"),
    (["a", "b"], [["a", None]], r"1 segment\(s\) have a hypothesis but no reference: seg_id 1"),
    (["a"], "a", r"references must be a list of reference streams"),
    (["a"], [[3]], r"references\[0\]\[0\] must be a str or None; got int 3"),
])
def test_bad_input_messages(hyps, refs, match):
    with pytest.raises(InputError, match=match):
        ter_statistics(hyps, refs)


def test_bad_option_and_seg_id_messages():
    with pytest.raises(InputError, match=r"TER has no reference weights"):
        ter_statistics(["a"], [[("a", 0.5)]], references_layout="segments")
    with pytest.raises(InputError, match=r"normalized must be True or False; got str 'yes'"):
        ter_statistics(["a"], [["a"]], normalized="yes")
    refs = pd.DataFrame({"seg_id": [0, 7], "ref_id": ["a", "a"], "weight": [1.0, 1.0], "text": ["a", "b"]})
    with pytest.raises(InputError, match=r"seg_id must be in 0\.\.0 .* got seg_id 7"):
        ter_statistics(["a"], refs)
