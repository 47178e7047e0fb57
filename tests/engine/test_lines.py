"""The files route: iter_line_buffers reads what read_lines reads, and compute_stats_files gives the same table.

``bleustats.engine._lines.iter_line_buffers`` is checked line for line against
``io.read_lines`` (random unicode files with empty lines, ``\\r``, whitespace-only
lines, with and without a final newline, gzip, tiny read blocks that force the
buffer to move and grow); its errors against those of the route it replaces
(``io.iter_line_chunks``). ``compute_stats_files`` on large inputs
(``_files_statistics``) must give the table of the route through
``compute_stats`` exactly, for every tokenizer, lowercasing, ΔBLEU weight files
and every reference view.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bleustats.engine import io, _small as small
from bleustats.engine._lines import iter_line_buffers
from bleustats.engine.stats import compute_stats_files
from bleustats.errors import InputError
from bleustats.tokenizers import TOKENIZERS
from ..conftest import examples

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
LINE = st.text(alphabet=st.sampled_from(list("ab c.,\t\r\u00a0é中🙂") + ["\u2028", "\x0b", "\x00"]), max_size=12)


def write(path: Path, lines: list[str], final_newline: bool = True, gz: bool = False) -> Path:
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    raw = text.encode("utf-8")
    if gz:
        path = path.with_suffix(".gz")
        with gzip.open(path, "wb") as fh:
            fh.write(raw)
    else:
        path.write_bytes(raw)
    return path


def chunks_as_lines(paths, chunk_lines, block_bytes):
    """Every file's lines (without the '\\n') from iter_line_buffers, chunks joined."""
    out = [[] for _ in paths]
    firsts = []
    for first, n, data, offsets in iter_line_buffers(paths, chunk_lines, block_bytes):
        firsts.append(first)
        for k in range(len(paths)):
            for a, b in zip(offsets[k * n:(k + 1) * n], offsets[k * n + 1:(k + 1) * n + 1]):
                line = data[a:b].tobytes().decode("utf-8")
                out[k].append(line[:-1] if line.endswith("\n") else line)
    return out, firsts


@SETTINGS
@given(lines=st.lists(LINE, max_size=15), data=st.data(), chunk=st.integers(1, 6), block=st.sampled_from([1, 7, 64]),
       final=st.booleans(), gz=st.booleans())
def test_lines_equal_read_lines(tmp_path_factory, lines, data, chunk, block, final, gz):
    d = tmp_path_factory.mktemp("lines")
    other = data.draw(st.lists(LINE, min_size=len(lines), max_size=len(lines)))
    paths = [write(d / "h.txt", lines, final, gz), write(d / "r.txt", other, not final)]
    want = [io.read_lines(p).to_pylist() for p in paths]
    if len(want[0]) != len(want[1]):  # [''] without a final newline is an empty file: no line
        with pytest.raises(InputError) as new:
            chunks_as_lines(paths, chunk, block)
        with pytest.raises(InputError) as old:
            list(io.iter_line_chunks(paths, chunk))
        assert str(new.value) == str(old.value)
        return
    got, firsts = chunks_as_lines(paths, chunk, block)
    assert got == want
    assert firsts == list(range(0, len(want[0]), chunk))


def test_unequal_line_counts_name_each_file(tmp_path):
    h, r = write(tmp_path / "h.txt", ["a", "b", "c"]), write(tmp_path / "r.txt", ["a", "b"])
    for chunk in (2, 100):
        with pytest.raises(InputError) as new:
            list(iter_line_buffers([h, r], chunk))
        with pytest.raises(InputError) as old:
            list(io.iter_line_chunks([h, r], chunk))
        assert str(new.value) == str(old.value)


def test_invalid_utf8_names_the_line(tmp_path):
    h = tmp_path / "h.txt"
    h.write_bytes(b"ok\nfine\nbad \xff here\n")
    r = write(tmp_path / "r.txt", ["a", "b", "c"])
    with pytest.raises(InputError, match=r"h.txt: not valid UTF-8 at line 3, byte 4"):
        list(iter_line_buffers([h, r], 2))
    with pytest.raises(InputError, match="no such file"):
        list(iter_line_buffers([tmp_path / "missing.txt"], 2))


def large_route(fn):
    """Run fn with the files route forced (files count as large), then the compute_stats route."""
    out = []
    for limit in (-1, 10**15):
        before = small.PLAIN_MAX_CHARS
        small.PLAIN_MAX_CHARS = limit
        try:
            out.append(fn())
        finally:
            small.PLAIN_MAX_CHARS = before
    return out


@SETTINGS
@given(data=st.data(), tokenize=st.sampled_from(TOKENIZERS), lowercase=st.booleans(), n_refs=st.integers(1, 3),
       chunk=st.integers(1, 5), view=st.sampled_from(["all", "first", "threshold"]))
def test_files_route_equals_compute_stats_route(tmp_path_factory, data, tokenize, lowercase, n_refs, chunk, view):
    d = tmp_path_factory.mktemp("route")
    n = data.draw(st.integers(0, 8))
    hyp = write(d / "h.txt", data.draw(st.lists(LINE, min_size=n, max_size=n)))
    refs = [write(d / f"r{k}.txt", data.draw(st.lists(LINE, min_size=n, max_size=n))) for k in range(n_refs)]
    weights = None
    options = dict(tokenize=tokenize, lowercase=lowercase, ref_view=view,
                   delta_definition=data.draw(st.sampled_from(["paper", "galley2019"])))
    if view == "threshold" or data.draw(st.booleans()):
        w = [[data.draw(st.sampled_from([1.0, 0.5, -0.25, 0.0])) for _ in range(n)] for _ in range(n_refs)]
        w[0] = [1.0] * n  # every segment keeps a reference in the threshold view
        weights = [d / f"w{k}.txt" for k in range(n_refs)]
        for path, values in zip(weights, w):
            path.write_text("".join(f"{v}\n" for v in values))
    if view == "threshold":
        options["weight_threshold"] = 0.5
    fast, slow = large_route(lambda: compute_stats_files(hyp, refs, ref_weight_paths=weights, chunk_lines=chunk,
                                                         **options))
    assert fast.table.equals(slow.table, check_metadata=True)


def test_threshold_view_without_reference_raises_as_before(tmp_path):
    hyp = write(tmp_path / "h.txt", ["a", "b", "c"])
    ref = write(tmp_path / "r.txt", ["a", "b", "c"])
    w = tmp_path / "w.txt"
    w.write_text("1\n0\n1\n")
    errors = []
    for limit in (-1, 10**15):
        before = small.PLAIN_MAX_CHARS
        small.PLAIN_MAX_CHARS = limit
        try:
            with pytest.raises(InputError) as exc:
                compute_stats_files(hyp, [ref], ref_weight_paths=[w], ref_view="threshold", weight_threshold=0.5)
            errors.append(str(exc.value))
        finally:
            small.PLAIN_MAX_CHARS = before
    assert errors[0] == errors[1]
    assert "seg_id 1" in errors[0]
