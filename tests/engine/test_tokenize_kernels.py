"""The byte-level tokenizer kernels against their plain-Python twin and sacreBLEU.

The twin is :func:`bleustats.tokenizers.tokenize_lines` (itself checked against
sacreBLEU 2.6 in ``tests/tokenizers/test_tokenizers.py``); the oracle is
``sacrebleu.metrics.BLEU(tokenize=..., lowercase=...)._preprocess_segment``,
which lowercases, rstrips and calls sacreBLEU's tokenizer object.  The output
of :func:`tokenize_buffer` must equal both byte for byte.

1. The code-point tables, every code point, against the running Python and ``regex``.
2. The helper kernels (UTF-8 codec, lowercase, final sigma, 13a's replaces).
3. Whole lines: hypothesis-generated unicode (all planes, str.split()
   whitespace, punctuation runs beside digits, 13a's escapes), published
   examples, empty lines and input, every line of ../shared/data.
4. Serial and parallel paths, sliced / int32 / read-only inputs, errors.

Everything also passes with ``NUMBA_DISABLE_JIT=1`` (the kernels then run as
plain Python); the exhaustive and real-data tests then use a sample, so that
run stays short.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import cache

import numba
import numpy as np
import pyarrow as pa
import pytest
import regex
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from bleustats.engine import encode as tb
from bleustats.engine import _tokenize_kernels as K
from bleustats.engine._columns import readonly
from bleustats.engine._tokenize_tables import (
    FLAG_CASE_IGNORABLE,
    FLAG_CASED,
    FLAG_CHINESE,
    FLAG_LOWER_EXPANDS,
    FLAG_NUMBER,
    FLAG_PUNCT,
    FLAG_SPACE,
    FLAG_SYMBOL,
    N_CODE_POINTS,
    build_code_point_tables,
    code_point_tables,
    entry_of,
)
from bleustats.engine.encode import BYTE_TOKENIZERS, tokenize_array, tokenize_buffer
from bleustats.tokenizers import tokenize_lines

from ..tokenizers.test_tokenizers import EXAMPLES, FRAGMENTS, real_lines
from ..conftest import examples

assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__

NO_JIT = bool(numba.config.DISABLE_JIT)
SETTINGS = [(tok, lc) for tok in ("13a", "intl", "char", "none", "zh") for lc in (False, True)]
SETTING_IDS = [f"{tok}-{'lc' if lc else 'cased'}" for tok, lc in SETTINGS]
EXAMPLES_PER_TEST = 15 if NO_JIT else examples(60)


@cache
def _bleu(tokenize: str, lowercase: bool) -> BLEU:
    return BLEU(tokenize=tokenize, lowercase=lowercase)


def sacrebleu_lines(lines: list[str], tokenize: str, lowercase: bool) -> list[str]:
    preprocess = _bleu(tokenize, lowercase)._preprocess_segment
    return [preprocess(line) for line in lines]


def twin_lines(lines: list[str], tokenize: str, lowercase: bool) -> list[str]:
    """The plain-Python twin: tokenize_lines, or for zh (not in TOKENIZERS yet) its reference."""
    if tokenize == "zh":
        return tokenize_lines(lines, tokenize="zh", lowercase=lowercase)
    return tokenize_lines(lines, tokenize=tokenize, lowercase=lowercase)


def kernel_lines(lines: list[str], tokenize: str, lowercase: bool) -> list[str]:
    """tokenize_buffer on the lines' UTF-8 bytes, decoded back to str."""
    encoded = [line.encode("utf-8") for line in lines]
    offsets = np.zeros(len(lines) + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = np.frombuffer(b"".join(encoded), np.uint8)
    out, out_offsets = tokenize_buffer(data, offsets, tokenize, lowercase=lowercase)
    assert out.dtype == np.uint8 and out_offsets.dtype == np.int64
    assert out_offsets[0] == 0 and out_offsets[-1] == len(out) and len(out_offsets) == len(lines) + 1
    raw = out.tobytes()
    return [raw[a:b].decode("utf-8") for a, b in zip(out_offsets[:-1].tolist(), out_offsets[1:].tolist())]


def assert_lines_equal(lines: list[str], got: list[str], expected: list[str]) -> None:
    assert len(got) == len(expected) == len(lines)
    for line, ours, theirs in zip(lines, got, expected):
        assert ours == theirs, f"{line!r}: kernel {ours!r} != {theirs!r}"


def _sample(cps: np.ndarray, every: int) -> np.ndarray:
    """All of ``cps`` with the JIT on; every ``every``-th (plus ASCII) as plain Python."""
    return cps if not NO_JIT else np.unique(np.r_[cps[cps < 128], cps[::every]])


ALL_CPS = np.r_[np.arange(0xD800), np.arange(0xE000, N_CODE_POINTS)]  # no surrogates


# --------------------------------------------------------------------------- 1. tables


@pytest.mark.slow  # every code point: the heavy pass
def test_tables_match_python_and_regex_for_every_code_point() -> None:
    t = build_code_point_tables()  # derived now (code_point_tables() may read them from the cache file)
    entries = t.blocks[(t.index[ALL_CPS >> 8].astype(np.int64) << 8) | (ALL_CPS & 255)].astype(np.int64)
    flags = entries & 0xFF
    chars = [chr(c) for c in ALL_CPS.tolist()]
    for flag, pattern in ((FLAG_NUMBER, r"\p{N}"), (FLAG_PUNCT, r"\p{P}"), (FLAG_SYMBOL, r"\p{S}")):
        match = regex.compile(pattern).match
        want = np.fromiter((match(ch) is not None for ch in chars), bool, len(chars))
        assert np.array_equal((flags & flag) != 0, want), pattern
    want_space = np.fromiter((ch.isspace() for ch in chars), bool, len(chars))
    assert np.array_equal((flags & FLAG_SPACE) != 0, want_space)
    lowered = [ch.lower() for ch in chars]
    expands = np.fromiter((len(low) > 1 for low in lowered), bool, len(chars))
    assert np.array_equal((flags & FLAG_LOWER_EXPANDS) != 0, expands)
    assert "İ".lower() == "i\u0307" and expands[ord("İ")]
    single = np.flatnonzero(~expands)
    got_low = ALL_CPS[single] + (entries[single] >> 8)
    want_low = np.fromiter((ord(lowered[i]) for i in single.tolist()), np.int64, len(single))
    assert np.array_equal(got_low, want_low)
    for k, key in enumerate(t.expand_keys.tolist()):
        piece = t.expand_cps[t.expand_offsets[k] : t.expand_offsets[k + 1]]
        assert "".join(map(chr, piece.tolist())) == chr(key).lower()
    assert sorted(t.expand_keys.tolist()) == ALL_CPS[expands].tolist()
    for array in t:
        assert not array.flags.writeable


def test_chinese_flag_equals_sacrebleu_zh_for_every_code_point() -> None:
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    is_chinese = TokenizerZh._is_chinese_char
    t = code_point_tables()
    entries = t.blocks[(t.index[ALL_CPS >> 8].astype(np.int64) << 8) | (ALL_CPS & 255)]
    flagged = (entries & FLAG_CHINESE) != 0
    bmp = ALL_CPS < 0x10000
    want = np.fromiter((is_chinese(chr(c)) for c in ALL_CPS[bmp].tolist()), bool, int(bmp.sum()))
    assert np.array_equal(flagged[bmp], want)
    # sacreBLEU's bounds are all below U+10000 (see bleustats.tokenizers.tokenizer_zh), so nothing above is Chinese
    assert not flagged[~bmp].any()
    assert not any(is_chinese(chr(c)) for c in ALL_CPS[~bmp][::89].tolist())


def test_table_flags_for_known_characters() -> None:
    # Published Unicode properties (DerivedCoreProperties.txt: Cased, Case_Ignorable;
    # UnicodeData.txt: general categories) of a few characters.
    t = code_point_tables()
    flags = {ch: entry_of(t, ord(ch)) & 0xFF for ch in "Aa'.\u0301\u02b0\u00aa5٣½€«\u3000 \x00中"}
    assert flags["A"] & FLAG_CASED and flags["a"] & FLAG_CASED
    assert flags["'"] & FLAG_CASE_IGNORABLE and flags["."] & FLAG_CASE_IGNORABLE  # MidNumLet
    assert flags["\u0301"] & FLAG_CASE_IGNORABLE  # combining acute (Mn)
    assert flags["\u02b0"] & FLAG_CASE_IGNORABLE  # modifier letter small h (Lm)
    assert flags["\u00aa"] & FLAG_CASED  # feminine ordinal: Other_Lowercase
    for ch in "5٣½":
        assert flags[ch] & FLAG_NUMBER
    assert flags["€"] & FLAG_SYMBOL and flags["«"] & FLAG_PUNCT
    assert flags["\u3000"] & FLAG_SPACE and flags[" "] & FLAG_SPACE
    assert flags["\x00"] == 0 and flags["中"] == FLAG_CHINESE


def test_entry_kernel_agrees_with_python_lookup() -> None:
    t = code_point_tables()
    for cp in ALL_CPS[::997].tolist() + [0, 0x10FFFF, 0x3A3, 0x130]:
        assert K._entry_of(t, np.int64(cp)) == entry_of(t, cp)


# --------------------------------------------------------------------------- 2. helper kernels


def test_utf8_codec_round_trips_every_code_point() -> None:
    cps = _sample(ALL_CPS, 257)
    text = "".join(map(chr, cps.tolist()))
    data = np.frombuffer(text.encode("utf-8"), np.uint8)
    decoded = np.empty(len(data), np.int32)
    n = K._decode_utf8(data, 0, len(data), decoded)
    assert n == len(cps) and np.array_equal(decoded[:n], cps)
    out = np.empty(len(data), np.uint8)
    pos = K._emit_chars(decoded, n, out, 0, False)  # _put_utf8 on each code point
    assert pos == len(data) and out.tobytes() == data.tobytes()


def _lower_via_kernel(text: str) -> str:
    cps = np.array([ord(c) for c in text], np.int32)
    dst = np.empty(2 * len(cps) + 1, np.int32)
    m = K._lower_cps(code_point_tables(), cps, len(cps), dst)
    return "".join(map(chr, dst[:m].tolist()))


sigma_text = st.lists(
    st.sampled_from(["Σ", "Σ", "A", "a", "'", ".", "\u0301", "\u02b0", "\u00aa", " ", "5", "İ", "ǅ", "\u0345",
                     "\U00010400", "ß", "\xad"]) | st.characters(codec="utf-8"),
    max_size=12,
).map("".join)


@settings(max_examples=examples(4) * EXAMPLES_PER_TEST, deadline=None)
@given(text=sigma_text)
def test_lower_kernel_equals_str_lower(text: str) -> None:
    assert _lower_via_kernel(text) == text.lower()


@pytest.mark.slow  # every code point: the heavy pass
def test_lower_kernel_final_sigma_every_code_point() -> None:
    # Every code point as the neighbour of a capital sigma on either side (the
    # cases the cased / case-ignorable flags decide), through tokenize_buffer.
    cps = _sample(ALL_CPS[ALL_CPS > 0], 1009)
    chars = list(map(chr, cps.tolist()))
    lines = [f"A{c}Σ" for c in chars] + [f"AΣ{c}" for c in chars] + [f"AΣ{c}A" for c in chars] + chars
    assert kernel_lines(lines, "none", True) == [line.lower().rstrip() for line in lines]


replace_text = st.lists(st.sampled_from(["<skipped>", "<skip", "ped>", "-\n", "-", "\n", "&quot;", "&amp;", "&lt;",
                                         "&gt;", "&", "amp;", "quot;", "lt;", "x", "é"]), max_size=12).map("".join)


@settings(max_examples=examples(4) * EXAMPLES_PER_TEST, deadline=None)
@given(text=replace_text)
def test_replace_13a_equals_sequential_str_replace(text: str) -> None:
    cps = np.array([ord(c) for c in text], np.int32)
    n = K._replace_13a(cps, len(cps))
    want = text.replace("<skipped>", "").replace("-\n", "")
    want = want.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    assert "".join(map(chr, cps[:n].tolist())) == want  # '\n' stays: whitespace either way


@pytest.mark.parametrize(("pattern", "replacement"), [("ab", "c"), ("aa", ""), ("aba", "x"), ("a", "b")])
@settings(max_examples=EXAMPLES_PER_TEST, deadline=None)
@given(text=st.text(alphabet="abc", max_size=15))
def test_replace_all_equals_str_replace(pattern: str, replacement: str, text: str) -> None:
    cps = np.array([ord(c) for c in text], np.int32)
    pat = np.array([ord(c) for c in pattern], np.int32)
    n = K._replace_all(cps, len(cps), pat, ord(replacement) if replacement else -1)
    assert "".join(map(chr, cps[:n].tolist())) == text.replace(pattern, replacement)


# --------------------------------------------------------------------------- 3. whole lines

text_piece = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.characters(codec="utf-8"),  # every plane, no surrogates
    st.characters(categories=["P", "S", "N", "Zs", "Zl", "Zp", "Cc", "Mn", "Lm", "Lu"]),
    st.characters(min_codepoint=0x1FF0, max_codepoint=0x3400),  # zh's range edges, CJK punctuation
)
unicode_line = st.lists(text_piece, max_size=14).map("".join)
unicode_lines = st.lists(unicode_line, min_size=1, max_size=8)


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
@settings(max_examples=EXAMPLES_PER_TEST, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=unicode_lines)
def test_unicode_lines_match_twin_and_sacrebleu(tokenize: str, lowercase: bool, lines: list[str]) -> None:
    got = kernel_lines(lines, tokenize, lowercase)
    assert_lines_equal(lines, got, twin_lines(lines, tokenize, lowercase))
    assert_lines_equal(lines, got, sacrebleu_lines(lines, tokenize, lowercase))


dense_punct = st.lists(
    st.sampled_from([".", ",", ".", ",", "0", "7", "٣", "½", "a", " ", "-", "(", "$", "\n", "«", "、", "€",
                     "&", "<", "\u3000", "中", "\u2001", "\u2000", "．", "０"]),
    max_size=16,
).map("".join)


@pytest.mark.parametrize("tokenize", ["13a", "intl", "zh"])
@settings(max_examples=examples(4) * EXAMPLES_PER_TEST, deadline=None)
@given(lines=st.lists(dense_punct, min_size=1, max_size=6))
def test_punctuation_runs_beside_digits(tokenize: str, lines: list[str]) -> None:
    got = kernel_lines(lines, tokenize, False)
    assert_lines_equal(lines, got, sacrebleu_lines(lines, tokenize, False))


ascii_piece = st.one_of(
    st.sampled_from(["1", "23", ".", ",", "..", ".,", "-", " ", "  ", "\t", "\x1c", "\x0b", "\r", "A", "Ab", "x", "$",
                     "(", "'", '"', "`", "~", "&", "<", "\n", "<skipped>", "&quot;", "-\n", "\x00", "\x7f", "é"]),
    st.characters(max_codepoint=127),
)
ascii_line = st.lists(ascii_piece, max_size=20).map("".join)
ASCII_SPACE = "".join(c for c in map(chr, range(128)) if c.isspace())


@pytest.mark.parametrize("lowercase", [False, True])
@settings(max_examples=examples(4) * EXAMPLES_PER_TEST, deadline=None)
@given(lines=st.lists(ascii_line | ascii_line.map(lambda line: line + "\n"), min_size=1, max_size=8))
def test_13a_fast_path_equals_sacrebleu_and_the_general_path(lowercase: bool, lines: list[str]) -> None:
    """13a of ASCII lines without '<', '&' or an inner '\\n' is written from the bytes in one pass (_emit_13a_bytes).

    Lines with those, or with any non-ASCII byte, are given up by it (-1) and
    tokenized by the general path; either way the result is sacreBLEU's.
    """
    got = kernel_lines(lines, "13a", lowercase)
    assert_lines_equal(lines, got, sacrebleu_lines(lines, "13a", lowercase))
    for line in lines:
        raw = np.frombuffer(line.encode(), np.uint8)
        out = np.zeros(3 * len(raw) + 1, np.uint8)
        end = K._emit_13a_bytes(raw, 0, len(raw), lowercase, out, 0)
        body = line.rstrip(ASCII_SPACE)  # a file's lines end in their '\n'
        if any(c in body for c in "<&\n") or not body.isascii():
            assert end == -1, line
        else:
            assert end >= 0 and out[:end].tobytes().decode() == twin_lines([line], "13a", lowercase)[0], line


@pytest.mark.skipif(NO_JIT, reason="every short string: tens of thousands of lines, for the compiled kernel")
def test_13a_every_short_string_of_marks_digits_dashes_and_spaces() -> None:
    """All strings of up to 5 characters over the characters the period/comma and dash rules look at.

    Each with and without a file's '\\n' ending; the kernel (its fast path for all of them) against sacreBLEU.
    """
    alphabet = ["1", ".", ",", "-", "a", " ", "\x1c"]
    lines = ["".join(p) for n in range(6) for p in itertools.product(alphabet, repeat=n)]
    lines += [line + "\n" for line in lines[:: 3]]
    for lowercase in (False, True):
        assert_lines_equal(lines, kernel_lines(lines, "13a", lowercase), sacrebleu_lines(lines, "13a", lowercase))


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
def test_published_examples(tokenize: str, lowercase: bool) -> None:
    lines = EXAMPLES + ["\x00", "a\x00b. 5", "\x00\x00 ,\x00", "In 2015. ", "x" * 300 + "." * 301 + "5"]
    got = kernel_lines(lines, tokenize, lowercase)
    assert_lines_equal(lines, got, sacrebleu_lines(lines, tokenize, lowercase))
    assert_lines_equal(lines, got, twin_lines(lines, tokenize, lowercase))


def test_known_values() -> None:
    # Expected strings worked out by hand from sacreBLEU 2.6's tokenizer rules.
    assert kernel_lines(["In 2015.", "In 2015. Yes"], "intl", False) == ["In 2015.", "In 2015 . Yes"]
    assert kernel_lines(["In 2015.", "x.,5", "a\nb", "a-\nb"], "13a", False) == ["In 2015 .", "x . ,5", "a b", "ab"]
    assert kernel_lines(["&amp;lt; &amp;quot;", "<SKIPPED>x"], "13a", True) == ["< & quot ;", "x"]
    assert kernel_lines(["ab  ", " a\u3000b"], "char", False) == ["a b", "  a \u3000 b"]
    assert kernel_lines(["ΟΔΥΣΣΕΥΣ", "İ"], "none", True) == ["οδυσσευς", "i\u0307"]
    # zh: no padding (so ".5" keeps its period, like intl), CJK characters spaced out
    assert kernel_lines(["我爱北京。It costs $3.50.", " .5", "中.5", "\u2000x\u2010y"], "zh", False) == [
        "我 爱 北 京 。 It costs $ 3.50.", ".5", "中 . 5", "x \u2010 y"]


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
def test_empty_lines_and_empty_input(tokenize: str, lowercase: bool) -> None:
    assert kernel_lines([], tokenize, lowercase) == []
    assert kernel_lines(["", " ", "\u3000\x85", ""], tokenize, lowercase) == ["", "", "", ""]
    out, offsets = tokenize_buffer(np.zeros(0, np.uint8), np.zeros(1, np.int32), tokenize, lowercase=lowercase)
    assert len(out) == 0 and offsets.tolist() == [0]


@pytest.mark.data  # the real data's lines: the vendored slice, with --full-data every line of ../shared
@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
def test_every_line_of_shared_data(tokenize: str, lowercase: bool) -> None:
    lines = list(real_lines())
    if NO_JIT:
        lines = lines[:: max(1, len(lines) // 150)]
    got = kernel_lines(lines, tokenize, lowercase)
    assert_lines_equal(lines, got, twin_lines(lines, tokenize, lowercase))
    # and sacreBLEU itself on a spread-out sample (the twin is checked on all of them
    # against sacreBLEU in tests/tokenizers/test_tokenizers.py)
    step = max(1, len(lines) // 3000)
    assert_lines_equal(lines[::step], got[::step], sacrebleu_lines(lines[::step], tokenize, lowercase))


# --------------------------------------------------------------------------- 4. paths and inputs


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
@settings(max_examples=EXAMPLES_PER_TEST // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(unicode_line, min_size=0, max_size=30), n_blocks=st.integers(1, 9))
def test_parallel_blocks_equal_serial(tokenize: str, lowercase: bool, lines: list[str], n_blocks: int) -> None:
    arr = pa.array(lines, pa.string())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, np.int32, count=len(lines) + 1).astype(np.int64)
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    data, offsets = readonly(data, offsets)  # as tokenize_buffer passes them
    tables = code_point_tables()
    tok = K.TOKENIZER_CODES[tokenize]
    serial, serial_len = K.tokenize_serial(data, offsets, tok, lowercase, tables)
    bounds = np.unique(np.r_[0, np.sort(np.random.default_rng(n_blocks).integers(0, len(lines) + 1, n_blocks)),
                             len(lines)]).astype(np.int64)
    tmp, out_len = K.tokenize_blocks(data, offsets, bounds, tok, lowercase, tables)
    out_offsets = np.r_[0, np.cumsum(out_len)].astype(np.int64)
    packed = np.full(out_offsets[-1] + 3, 7, np.uint8)
    K.gather_blocks(tmp, offsets, bounds, out_offsets, packed)
    assert packed[out_offsets[-1]:].tolist() == [7, 7, 7]  # nothing written beyond the lines
    packed = packed[: out_offsets[-1]]
    assert np.array_equal(out_len, serial_len) and packed.tobytes() == serial.tobytes()


def test_wrapper_takes_the_parallel_path(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = list(EXAMPLES) * 7
    monkeypatch.setattr(tb, "_TOKENIZE_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(tb, "_TOKENIZE_BLOCK_BYTES", 16)
    monkeypatch.setattr(tb, "kernel_threads", lambda: 2)
    calls = []
    real = K.tokenize_blocks
    monkeypatch.setattr(K, "tokenize_blocks", lambda *a: calls.append(len(a[2])) or real(*a))
    for tokenize, lowercase in SETTINGS:
        assert kernel_lines(lines, tokenize, lowercase) == twin_lines(lines, tokenize, lowercase)
    assert len(calls) == len(SETTINGS) and min(calls) > 8


@pytest.mark.parametrize("parallel", [False, True])
def test_padded_output_is_the_same_lines_then_zeroed_words(monkeypatch: pytest.MonkeyPatch, parallel: bool) -> None:
    lines = list(EXAMPLES) * 7
    if parallel:
        monkeypatch.setattr(tb, "_TOKENIZE_PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(tb, "_TOKENIZE_BLOCK_BYTES", 16)
        monkeypatch.setattr(tb, "kernel_threads", lambda: 2)
    raw = pa.array(lines, pa.string())
    data, offsets = tb.string_buffers(raw)
    for tokenize in ("13a", "intl"):
        plain, plain_off = tokenize_buffer(data, offsets, tokenize, lowercase=True)
        padded, padded_off = tokenize_buffer(data, offsets, tokenize, lowercase=True, padded=True)
        n = int(plain_off[-1])
        assert np.array_equal(plain_off, padded_off) and len(plain) == n
        assert padded[:n].tobytes() == plain.tobytes() and not padded[n:].any()
        assert len(padded) % 8 == 0 and len(padded) >= n + 16 and padded.view(np.uint64).size == len(padded) // 8


def test_block_bounds_cover_every_line() -> None:
    offsets = np.cumsum(np.r_[0, np.arange(1000) % 50]).astype(np.int64)
    for threads in (1, 2, 8):
        bounds = tb._byte_block_bounds(offsets, threads)
        assert bounds[0] == 0 and bounds[-1] == 1000 and (np.diff(bounds) > 0).all()
    assert tb._byte_block_bounds(np.zeros(1, np.int64), 2).tolist() == [0]


def test_arrow_arrays_sliced_chunked_large_and_read_only() -> None:
    lines = ["Hello, World!", "x", "It costs $3.50 (in 2021).", "ΑΣ 2015.", ""]
    want = tokenize_lines(lines, tokenize="13a", lowercase=True)
    arr = pa.array(["pad"] + lines + ["pad"])
    for texts in (arr.slice(1, len(lines)), pa.chunked_array([lines[:2], lines[2:]]),
                  pa.array(lines, pa.large_string())):
        out = tokenize_array(texts, "13a", lowercase=True)
        assert out.type == pa.string() and out.to_pylist() == want
    data, offsets = tb.string_buffers(arr.slice(1, len(lines)))
    assert offsets.dtype == np.int32 and offsets[0] > 0
    data = data.copy()
    data.setflags(write=False)  # Arrow buffers may come read-only
    out, out_offsets = tokenize_buffer(data, offsets, "13a", lowercase=True)
    assert out_offsets[0] == 0
    assert [out[a:b].tobytes().decode() for a, b in itertools.pairwise(out_offsets)] == want


@settings(max_examples=EXAMPLES_PER_TEST, deadline=None)
@given(raw=st.lists(st.binary(max_size=12), max_size=6), tok=st.sampled_from(BYTE_TOKENIZERS), lc=st.booleans())
def test_bytes_that_are_not_utf8_stay_in_bounds(raw: list[bytes], tok: str, lc: bool) -> None:
    # Not a valid Arrow string array: only memory safety and the size bound are promised.
    offsets = np.r_[0, np.cumsum([len(b) for b in raw])].astype(np.int64)
    data = np.frombuffer(b"".join(raw), np.uint8)
    _out, out_offsets = tokenize_buffer(data, offsets, tok, lowercase=lc)
    assert (np.diff(out_offsets) <= K.OUT_BYTES_PER_BYTE * np.diff(offsets)).all()


def test_unicode_whitespace_is_a_token_boundary() -> None:
    spaces = [chr(c) for c in range(N_CODE_POINTS) if chr(c).isspace()]
    assert len(spaces) == 29  # Python's str.split() set (unicodedata bidi WS/B/S + Zs)
    for tokenize in ("13a", "intl"):
        lines = [f"a{s}b{s}" for s in spaces] + ["".join(spaces) + "x" + "".join(spaces)]
        assert kernel_lines(lines, tokenize, False) == ["a b"] * len(spaces) + ["x"]
    assert unicodedata.unidata_version  # the tables follow this Python's Unicode version


def test_errors_name_the_parameter() -> None:
    data = np.frombuffer(b"ab", np.uint8)
    allowed = "'none', '13a', 'intl', 'char', 'zh'"
    with pytest.raises(ValueError, match=re.escape(f"tokenizer must be one of {allowed}; got 'ja-mecab'.")):
        tokenize_buffer(data, np.array([0, 2]), "ja-mecab")
    with pytest.raises(TypeError, match=r"data must be a 1-D numpy uint8 array .* got array of dtype int64"):
        tokenize_buffer(np.array([1, 2]), np.array([0, 2]), "13a")
    with pytest.raises(TypeError, match=r"data must be .* got bytes b'ab'"):
        tokenize_buffer(b"ab", np.array([0, 2]), "13a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"offsets must be a 1-D numpy integer array .* got array of dtype float64"):
        tokenize_buffer(data, np.array([0.0, 2.0]), "13a")
    with pytest.raises(ValueError, match=r"offsets must hold at least one value"):
        tokenize_buffer(data, np.zeros(0, np.int64), "13a")
    with pytest.raises(ValueError, match=r"offsets must be non-decreasing and within 0..len\(data\) = 2; "
                                         r"got values from 0 to 3"):
        tokenize_buffer(data, np.array([0, 3]), "13a")
    with pytest.raises(ValueError, match=r"\(decreasing somewhere\)"):
        tokenize_buffer(data, np.array([0, 2, 1]), "13a")
    with pytest.raises(TypeError, match=r"texts must be a pyarrow string array; got int64"):
        tokenize_array(pa.array([1]), "13a")
    with pytest.raises(TypeError, match=r"texts must be a pyarrow string array; got list"):
        tokenize_array(["a"], "13a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"texts must have no nulls; got 1 null\(s\)"):
        tokenize_array(pa.array(["a", None]), "13a")
    with pytest.raises(TypeError):
        tokenize_buffer(data, np.array([0, 2]), "13a", True)  # type: ignore[misc]  # keyword-only
