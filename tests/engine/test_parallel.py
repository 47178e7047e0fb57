"""The parallel kernels equal the serial ones (small inputs run serially, so force both here).

Below ``encode.PARALLEL_MIN_BYTES`` of text tokenization and encoding run on
the calling thread, below ``encode.PARALLEL_MIN_TOKENS`` the statistics kernel
too (starting numba's thread pool costs more than it saves there). These tests
set both limits to 0 and to "never" and compare the tables of
``compute_stats`` and of ``compute_stats_files`` (the files route) on random
inputs: ΔBLEU weights, every tokenizer, several blocks of segments.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats
from bleustats.engine import encode
from bleustats.engine.stats import compute_stats_files
from bleustats.tokenizers import TOKENIZERS
from ..conftest import examples

SETTINGS = settings(max_examples=examples(30), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TEXT = st.text(alphabet=st.sampled_from(list("ab cd.,é中 \t") + ["\u3000"]), max_size=30)

pytestmark = pytest.mark.usefixtures("kernel_path")  # the numba route, whatever the size


def both(fn, monkeypatch):
    """fn() with every kernel forced parallel, then forced serial."""
    out = []
    for limit in (0, 10**15):
        with monkeypatch.context() as m:
            m.setattr(encode, "PARALLEL_MIN_BYTES", limit)
            m.setattr(encode, "PARALLEL_MIN_TOKENS", limit)
            m.setattr(encode, "_TOKENIZE_PARALLEL_MIN_BYTES", limit)
            m.setattr(encode, "_ENCODE_PARALLEL_MIN_BYTES", 0 if limit == 0 else 128 * 1024)
            m.setattr(encode, "_ENCODE_BLOCK_BYTES", 64 if limit == 0 else 192 * 1024)  # many blocks
            out.append(fn())
    return out


@SETTINGS
@given(data=st.data(), tokenize=st.sampled_from(TOKENIZERS), n=st.integers(1, 40))
def test_parallel_equals_serial(monkeypatch, data, tokenize, n):
    hyps = data.draw(st.lists(TEXT, min_size=n, max_size=n))
    refs = [data.draw(st.lists(TEXT, min_size=n, max_size=n)) for _ in range(data.draw(st.integers(1, 3)))]
    weights = [[data.draw(st.sampled_from([1.0, 0.5, -0.5])) for _ in r] for r in refs]
    weights[0] = [1.0] * n
    par, ser = both(lambda: bleustats.compute_stats(hyps, refs, ref_weights=weights, tokenize=tokenize).table,
                    monkeypatch)
    assert par.equals(ser, check_metadata=True)


@SETTINGS
@given(data=st.data(), tokenize=st.sampled_from(["none", "13a"]), n=st.integers(1, 40))
def test_files_route_parallel_equals_serial(tmp_path_factory, monkeypatch, data, tokenize, n):
    d = tmp_path_factory.mktemp("par")
    paths = []
    for name in ("h", "r0", "r1"):
        lines = data.draw(st.lists(TEXT.filter(lambda s: "\n" not in s), min_size=n, max_size=n))
        (d / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        paths.append(d / name)
    par, ser = both(lambda: compute_stats_files(paths[0], paths[1:], tokenize=tokenize, chunk_lines=7).table,
                    monkeypatch)
    assert par.equals(ser, check_metadata=True)


def test_serial_kernels_gives_every_kernel_its_serial_form(monkeypatch):
    # with the size limits at 0 and two threads every kernel would run in parallel; inside serial_kernels none
    # does (numba's workqueue layer takes parallel launches from one thread at a time), with the same statistics
    import numba
    import numpy as np

    from bleustats.engine import _chrf_kernels, _encode_kernels, _stats_kernels, _threads, _tokenize_kernels, chrf_stats
    from bleustats.engine.references import ReferenceSet
    from bleustats.engine.stats import compute_stats

    hyps = ["the cat sat on the mat .", "a dog , 3.5 ft", "ein Haus"] * 40
    refs = [["the cat is on the mat .", "a dog of 3.5 ft", "das Haus"] * 40]
    want = compute_stats(hyps, refs)
    want_chrf = chrf_stats.chrf_statistics(hyps, ReferenceSet(refs))
    monkeypatch.setattr(encode, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(encode, "PARALLEL_MIN_TOKENS", 0)
    monkeypatch.setattr(encode, "_TOKENIZE_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(encode, "_ENCODE_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(chrf_stats, "_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)  # as on any machine with two CPUs or more

    def parallel(*args, **kwargs):
        raise AssertionError("a parallel kernel ran inside serial_kernels()")

    for module, name in ((_tokenize_kernels, "tokenize_blocks"), (_encode_kernels, "encode_lines"),
                         (_stats_kernels, "compute_stats"), (_chrf_kernels, "chrf_rows")):
        monkeypatch.setattr(module, name, parallel)
    with _threads.serial_kernels():
        assert _threads.kernel_threads() == 1
        got = compute_stats(hyps, refs)
        got_chrf = chrf_stats.chrf_statistics(hyps, ReferenceSet(refs))
    assert got.table.equals(want.table) and np.array_equal(got_chrf, want_chrf)
    with pytest.raises(AssertionError, match="a parallel kernel ran"):
        compute_stats(hyps, refs)  # outside the block the limits above send it to the parallel kernels
