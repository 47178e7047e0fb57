"""engine._columns builds and reads Arrow arrays as pyarrow does, without importing pandas.

Every builder is compared with ``pyarrow.array`` and every reader with
``Array.to_numpy(zero_copy_only=False)`` on random values (hypothesis):
integers, floats (NaN, -0.0), booleans, unicode strings, empty arrays,
sliced and chunked arrays. In a fresh process, scoring lists and text files
(both routes) imports no pandas (pyarrow's pandas shim imports it for any
``pa.array`` / ``to_numpy`` call: 0.2-0.5 s per process; Parquet files still
do, through ``pyarrow.dataset``).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleustats.engine import _columns as columns
from bleustats.errors import InputError
from ..conftest import examples

FAST = settings(max_examples=examples(100), deadline=None)


@FAST
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=20), st.sampled_from([np.int64, np.int32, np.float64]))
def test_numeric_equals_pyarrow(values, dtype):
    arr = np.array([v % (2**31) for v in values] if dtype == np.int32 else values, dtype=dtype)
    built = columns.numeric(arr)
    assert built.equals(pa.array(arr))
    assert built.type == pa.array(arr).type


@FAST
@given(st.lists(st.text(), max_size=12), st.text(max_size=5), st.integers(0, 4))
def test_strings_equal_pyarrow(items, value, n):
    # hypothesis' text has no lone surrogates (they have no UTF-8 form: see the next test)
    assert columns.strings(items).equals(pa.array(items, pa.string()))
    assert columns.repeated(value, n).equals(pa.array([value] * n, pa.string()))


def test_lone_surrogate_names_the_item():
    with pytest.raises(InputError, match=r"hypotheses\[1\] is not valid Unicode"):
        columns.strings(["ok", "bad \ud800"], where="hypotheses")


@FAST
@given(st.lists(st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True)), max_size=15), st.data())
def test_to_numpy_equals_pyarrow(values, data):
    floats = np.array([float(v) for v in values], np.float64)
    ints = np.array([int(v) if isinstance(v, int) else 0 for v in values], np.int64)
    for arr in (pa.array(floats), pa.array(ints), pa.array(floats > 0), pa.array([str(v) for v in values])):
        lo = data.draw(st.integers(0, len(arr)))
        for view in (arr, arr.slice(lo), pa.chunked_array([arr, arr.slice(lo)], arr.type),
                     pa.chunked_array([], arr.type)):
            got = columns.to_numpy(view)
            want = view.to_numpy() if isinstance(view, pa.ChunkedArray) else view.to_numpy(zero_copy_only=False)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_to_numpy_with_nulls_falls_back_to_pyarrow():
    arr = pa.array([1.0, None, 3.0])
    np.testing.assert_array_equal(columns.to_numpy(arr), arr.to_numpy(zero_copy_only=False))


def test_scoring_imports_no_pandas(tmp_path):
    """BLEU and chrF from lists and files, on the plain and the numba routes: pandas is never imported."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("the cat sat on the mat\na dog\n" * 50)
    ref.write_text("the cat is on the mat\na dog barks\n" * 50)
    code = (
        "import sys, bleustats\n"
        "from bleustats.engine import _small as small\n"
        f"h, r = {str(hyp)!r}, {str(ref)!r}\n"
        "bleustats.corpus_bleu(['a b c'] * 3, [['a b d'] * 3])\n"
        "st = bleustats.compute_stats(['a b c'] * 3, [['a b d'] * 3])\n"
        "bleustats.corpus_score(st)\n"
        "bleustats.corpus_bleu_files(h, [r])\n"
        "small.PLAIN_MAX_CHARS = -1\n"  # the numba routes too
        "bleustats.corpus_bleu_files(h, [r], tokenize='13a')\n"
        "bleustats.corpus_bleu(['a b c'] * 3, [['a b d'] * 3])\n"
        "bleustats.corpus_chrf(['a b c', 'Éa'] * 3, [['a b d', 'éa'] * 3])\n"  # chrF's statistics too
        "bleustats.CHRF(lowercase=True).corpus_score(['a b c', 'Éa'] * 3, [['a b d', 'éa'] * 3])\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
