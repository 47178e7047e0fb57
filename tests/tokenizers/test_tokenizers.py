"""bleustats.tokenize must reproduce sacreBLEU 2.6's BLEU preprocessing exactly.

1. Oracle on every text line of ../shared/data, for every tokenizer x lowercase.
2. Hypothesis property tests on adversarial text (odd whitespace, newlines
   inside a line, '<skipped>', HTML entities, digits beside '.' ',' '-',
   capital sigma, ...), per line and as batches (the joined fast paths).
3. Argument checking and error messages.

The oracle is ``BLEU(tokenize=..., lowercase=...)._preprocess_segment``; our
output must equal it character for character (hence also after ``.split()``).
"""

from __future__ import annotations

import csv
import multiprocessing as mp
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sacrebleu
from sacrebleu.metrics import BLEU

import bleustats.tokenizers as tokmod
from bleustats.tokenizers import tokenizer_intl
from bleustats.tokenizers import (
    DEFAULT_TOKENIZER,
    TOKENIZERS,
    tokenize_lines,
    tokenizer_signature,
)

from ..conftest import SHARED, VENDORED, examples, full_data

assert sacrebleu.__version__ == "2.6.0", sacrebleu.__version__

DATA = SHARED / "data"

SETTINGS = [(tok, lc) for tok in TOKENIZERS for lc in (False, True)]
SETTING_IDS = [f"{tok}-{'lc' if lc else 'cased'}" for tok, lc in SETTINGS]


@lru_cache(maxsize=None)
def _sacrebleu(tokenize: str, lowercase: bool) -> BLEU:
    return BLEU(tokenize=tokenize, lowercase=lowercase)


def oracle(lines: list[str], tokenize: str, lowercase: bool) -> list[str]:
    """sacreBLEU's own preprocessing, one line at a time."""
    preprocess = _sacrebleu(tokenize, lowercase)._preprocess_segment
    return [preprocess(line) for line in lines]


def _oracle_job(job: tuple[list[str], str, bool]) -> list[str]:
    return oracle(*job)


def oracle_parallel(lines: list[str], tokenize: str, lowercase: bool) -> list[str]:
    """`oracle` on many lines, spread over the CPUs (sacreBLEU is the slow side)."""
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                  else os.cpu_count() or 1, 8)
    # fork is only safe (and cheap) in a single-threaded process.
    forkable = "fork" in mp.get_all_start_methods() and threading.active_count() == 1
    if workers < 2 or len(lines) < 10_000 or not forkable:
        return oracle(lines, tokenize, lowercase)
    size = -(-len(lines) // (4 * workers))
    jobs = [(lines[i : i + size], tokenize, lowercase) for i in range(0, len(lines), size)]
    with mp.get_context("fork").Pool(workers) as pool:
        return [out for part in pool.map(_oracle_job, jobs) for out in part]


def assert_same(lines: list[str], got: list[str], expected: list[str]) -> None:
    assert len(got) == len(expected) == len(lines)
    for line, ours, theirs in zip(lines, got, expected):
        assert ours.split() == theirs.split(), repr(line)
        assert ours == theirs, repr(line)


@contextmanager
def chunk_lines(n: int) -> Iterator[None]:
    """Temporarily make the joined chunks tiny, so chunk borders get exercised."""
    saved = tokmod._CHUNK_LINES
    tokmod._CHUNK_LINES = n
    try:
        yield
    finally:
        tokmod._CHUNK_LINES = saved


# --------------------------------------------------------------------------
# 1. Real data


def _read_column(path: Path, column: str) -> list[str]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        index = header.index(column)
        return [row[index] for row in reader]


@lru_cache(maxsize=None)
def real_lines() -> tuple[str, ...]:
    """Every distinct text of the real data, in first-seen order: ../shared/data with ``--full-data``, else the
    vendored slice (tests/data/shared/data)."""
    data = DATA if full_data() else VENDORED / "data"
    if not data.is_dir():
        pytest.skip(f"{data} not found: " + ("--full-data reads ../shared beside the checkout" if full_data()
                                              else "the vendored slice of the real data is missing"))
    files: list[tuple[Path, str]] = []
    pairs = sorted(p for p in (data / "wmt21_news").iterdir() if p.is_dir())
    assert pairs, f"no language pairs under {data / 'wmt21_news'}"
    for pair in pairs:
        for name in ("system_outputs", "references", "references_unverified", "sources"):
            files.append((pair / f"{name}.tsv", "text"))
    dstc7 = data / "dstc7_task2"
    files += [
        (dstc7 / "references.tsv", "text"),
        (dstc7 / "system_outputs.tsv", "text"),
        (dstc7 / "contexts.tsv", "context"),
    ]
    lines: list[str] = []
    for path, column in files:
        if path.is_file() or full_data():  # the slice vendors some files of some pairs; the whole set has all
            lines += _read_column(path, column)
    assert len(lines) > (50_000 if full_data() else 1_000)
    # Duplicates cannot disagree with themselves; the oracle is the slow side.
    return tuple(dict.fromkeys(lines))


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
def test_real_data_matches_sacrebleu(tokenize: str, lowercase: bool) -> None:
    lines = list(real_lines())
    assert_same(lines, tokenize_lines(lines, tokenize=tokenize, lowercase=lowercase),
                oracle_parallel(lines, tokenize, lowercase))


def test_real_data_duplicates_and_order() -> None:
    # The full multiset (with its duplicates) in a shuffled order, as one batch.
    lines = list(real_lines())[:20_000]
    batch = lines[::-1] + lines[::3]
    expected = dict(zip(lines, tokenize_lines(lines)))
    assert tokenize_lines(batch) == [expected[line] for line in batch]


# --------------------------------------------------------------------------
# 2. Adversarial text

FRAGMENTS = [
    # 13a's string replacements, and pieces that only form them after one
    "<skipped>", "<skip", "ped>", "&quot;", "&amp;", "&lt;", "&gt;", "&amp;quot;",
    "&", ";", "quot", "-\n", "-", "\n",
    # whitespace str.split() knows about, including inside a line
    " ", "  ", "\t", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f",
    "\x85", "\xa0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f",
    "\u205f", "\u3000", "\u200b", "\u180e",
    # digits and numbers beside periods, commas, dashes
    "0", "1", "9", "2015", "3.50", "1,000", "5-", "-5", ".", ",", "..", ".,", ",.",
    "...", "٣", "½", "²", "Ⅻ", "〇", "१",
    # the intl tokenizer's candidate separators (forces its per-line fallback)
    *tokenizer_intl._INTL_SEPARATORS,
    # punctuation and symbols, ASCII and not
    "'", '"', "(", ")", "[", "]", "{", "}", "$", "%", "+", "=", "<", ">", "@", "/",
    "\\", "_", "`", "^", "~", "|", "!", "?", ":", "«", "»", "„", "“", "—", "–",
    "、", "。", "，", "€", "©", "°", "™", "😀",
    # case mapping oddities for lowercase=True
    "Σ", "ΑΣ", "ΣΑ", "Σ.", "İ", "ẞ", "ǅ", "Ω", "K", "\u0345", "\u0301", "'s",
    # letters
    "a", "Z", "é", "ß", "中文", "ä", "x",
]

text_piece = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.characters(codec="utf-8"),
)
adversarial_text = st.lists(text_piece, max_size=14).map("".join)
adversarial_lines = st.lists(adversarial_text, min_size=1, max_size=10)


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
@settings(max_examples=examples(60), deadline=None)
@given(lines=adversarial_lines)
def test_adversarial_batch_matches_sacrebleu(
    tokenize: str, lowercase: bool, lines: list[str]
) -> None:
    assert_same(lines, tokenize_lines(lines, tokenize=tokenize, lowercase=lowercase),
                oracle(lines, tokenize, lowercase))


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(adversarial_text, min_size=2, max_size=25), chunk=st.integers(1, 4))
def test_batch_equals_one_line_at_a_time(
    tokenize: str, lowercase: bool, lines: list[str], chunk: int
) -> None:
    single = [tokenize_lines([line], tokenize=tokenize, lowercase=lowercase)[0]
              for line in lines]
    assert tokenize_lines(lines, tokenize=tokenize, lowercase=lowercase) == single
    with chunk_lines(chunk):
        assert tokenize_lines(lines, tokenize=tokenize, lowercase=lowercase) == single
    # duplicated lines keep their positions
    doubled = lines + lines[::-1]
    assert tokenize_lines(doubled, tokenize=tokenize, lowercase=lowercase) == (
        single + single[::-1]
    )


# Runs of periods/commas next to digits and letters: the 13a/intl rule that
# our single-pass regex reimplements is all about these.
dense_punct = st.lists(
    st.sampled_from([".", ",", ".", ",", "0", "7", "٣", "a", " ", "-", "(", "$", "\n", "«"]),
    max_size=16,
).map("".join)


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
@settings(max_examples=examples(250), deadline=None)
@given(lines=st.lists(dense_punct, min_size=1, max_size=6))
def test_dense_punctuation_matches_sacrebleu(tokenize: str, lines: list[str]) -> None:
    assert_same(lines, tokenize_lines(lines, tokenize=tokenize),
                oracle(lines, tokenize, False))


EXAMPLES = [
    "",
    " ",
    "   \t ",
    "\n",
    "\u3000",
    "Hello, world!",
    "It costs $3.50 (in 2021).",
    "In 2015.",
    "2015.",
    ".5 and 5. and 5.5 and 5,5 and a.5 and a,b",
    "x.,5 x..5 5..5 5,.,5 ...5 5... ,,,,",
    "1-2 a-b 3 - 4 -5 5-",
    "<skipped> <skip<skipped>ped> <skip-\nped>",
    "&amp;lt; &quot;quoted&quot; &amp;amp; &lt;b&gt; &",
    "hyphen-\nated line\nbreak\r\nend",
    "trailing spaces   ",
    "trailing odd whitespace\u3000\x85\x1c",
    "inner\x1cfile\x1dgroup\x1erecord\x1funit\u2028line\u2029para",
    "ΟΔΥΣΣΕΥΣ ΣΑ Σ. ΑΣ'Σ",
    "İSTANBUL ẞ ǅ",
    "Ceci est «une» phrase… n'est-ce pas? 1 234,5 €",
    "这是一个句子，用中文写的。2021年",
    "emoji 😀! ok",
    "a\xb9\xbe\u2188\u2187\u0f33\ua830\U000102e1\U0001d7ce.",
]


@pytest.mark.parametrize(("tokenize", "lowercase"), SETTINGS, ids=SETTING_IDS)
def test_examples_match_sacrebleu(tokenize: str, lowercase: bool) -> None:
    assert_same(EXAMPLES, tokenize_lines(EXAMPLES, tokenize=tokenize, lowercase=lowercase),
                oracle(EXAMPLES, tokenize, lowercase))
    for line in EXAMPLES:  # and one at a time
        assert tokenize_lines([line], tokenize=tokenize, lowercase=lowercase) == oracle(
            [line], tokenize, lowercase
        )


@pytest.mark.parametrize("tokenize", ["13a", "intl"])
def test_long_runs_of_marks_equal_sacrebleu(tokenize: str) -> None:
    # Whether the last mark of a run sticks to the following digit depends on the parity of the run, decided
    # once per run, not by rescanning the run for every mark (speed is measured in benchmarks/, never in a test).
    n = 100_000
    lines = [
        "." * n + "5", "a" + ".," * (n // 2) + "5", "5" + "." * (n + 1) + "5",
        "«" * n + "5", "x" + "«" * (n + 1) + "5", "(" * n, "5-" * n,
    ]
    assert tokenize_lines(lines, tokenize=tokenize) == oracle(lines, tokenize, False)


def test_intl_per_line_fallback() -> None:
    # Every candidate separator occurs in some line: intl must go line by line.
    lines = ["In 2015.", "".join(tokenizer_intl._INTL_SEPARATORS), "«x», 2015.", "a.b"]
    assert_same(lines, tokenize_lines(lines, tokenize="intl"), oracle(lines, "intl", False))


def test_known_values() -> None:
    assert tokenize_lines(["In 2015.", "In 2015. Yes"], tokenize="intl") == [
        "In 2015.", "In 2015 . Yes"
    ]
    assert tokenize_lines(["In 2015."]) == ["In 2015 ."]
    assert tokenize_lines(["x.,5"]) == ["x . ,5"]
    assert tokenize_lines(["a\nb", "a-\nb"]) == ["a b", "ab"]
    assert tokenize_lines(["ab  "], tokenize="char") == ["a b"]
    assert tokenize_lines(["A B  "], tokenize="none", lowercase=True) == ["a b"]


def test_empty_and_container_types() -> None:
    assert tokenize_lines([]) == []
    assert tokenize_lines(()) == []
    assert tokenize_lines(("A.", "A.")) == ["A .", "A ."]
    assert tokenize_lines(iter(["A."])) == ["A ."]  # any iterable works

    class Text(str):
        pass

    import numpy as np
    assert tokenize_lines(np.array(["A.", "b,c"])) == ["A .", "b , c"]
    out = tokenize_lines([Text("A."), "A."])
    assert out == ["A .", "A ."] and all(type(s) is str for s in out)
    assert all(type(s) is str for s in tokenize_lines([Text("A ")], tokenize="none"))


# --------------------------------------------------------------------------
# 3. Arguments and error messages

ALLOWED = "'none', 'zh', '13a', 'intl', 'char', 'ja-mecab', 'ko-mecab', 'spm', 'flores101', 'flores200', 'spBLEU-1K'"


@pytest.mark.parametrize("bad", ["ja_mecab", "flores", "13A", "Intl", "ZH", "", " 13a", None, 13])
def test_unknown_tokenizer_message(bad: object) -> None:
    expected = re.escape(f"tokenize must be one of {ALLOWED}; got {bad!r}.")
    with pytest.raises(ValueError, match=expected):
        tokenize_lines(["x"], tokenize=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=expected):
        tokenizer_signature(bad)  # type: ignore[arg-type]


def test_unknown_tokenizer_checked_before_lines() -> None:
    with pytest.raises(ValueError, match=r"^tokenize must be one of"):
        tokenize_lines([], tokenize="ko_mecab")


@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_non_str_item_names_index(tokenize: str) -> None:
    with pytest.raises(TypeError, match=r"lines\[2\] must be str, got int"):
        tokenize_lines(["a", "b", 5, None], tokenize=tokenize)
    with pytest.raises(TypeError, match=r"lines\[0\] must be str, got bytes"):
        tokenize_lines([b"a"], tokenize=tokenize)
    with pytest.raises(TypeError, match=r"lines\[1\] must be str, got list"):
        tokenize_lines(["a", ["unhashable"]], tokenize=tokenize)


@pytest.mark.parametrize("single", ["a sentence", b"a sentence"])
def test_single_string_rejected(single: object) -> None:
    with pytest.raises(TypeError, match=r"lines must be a sequence of str .*wrap it in a list"):
        tokenize_lines(single)  # type: ignore[arg-type]


def test_keyword_only() -> None:
    with pytest.raises(TypeError):
        tokenize_lines(["x"], "13a")  # type: ignore[misc]


def test_constants_and_signature() -> None:
    assert TOKENIZERS == ("none", "13a", "intl", "char", "zh")
    assert DEFAULT_TOKENIZER == "13a" == BLEU.TOKENIZER_DEFAULT
    assert set(TOKENIZERS) <= set(BLEU.TOKENIZERS)
    for tok in TOKENIZERS:
        bleu = BLEU(tokenize=tok)
        assert tokenizer_signature(tok) == bleu.tokenizer.signature()
        bleu.corpus_score(["a b"], [["a b"]])  # the signature needs a scored corpus
        assert f"|tok:{tokenizer_signature(tok)}|" in str(bleu.get_signature())
    assert set(tokmod.__all__) == {
        "DEFAULT_TOKENIZER", "TOKENIZERS", "OPTIONAL_TOKENIZERS", "SACREBLEU_TOKENIZERS", "tokenize_lines",
        "tokenizer_signature", "get_tokenizer", "tokenizer_class",
        "BaseTokenizer", "NoneTokenizer", "Tokenizer13a", "TokenizerChar", "TokenizerV14International",
        "TokenizerZh", "TercomTokenizer",
    }


@given(st.text(alphabet=st.sampled_from(list("ab1,.-&;<>'\"«»$ \n\t\u00a0é🙂")), max_size=40))
@settings(max_examples=examples(200), deadline=None)
def test_tokenizer_objects_equal_sacrebleus(line: str) -> None:
    # the sacreBLEU-shaped classes: same signature, same output on any line (no rstrip: that is
    # BLEU's preprocessing, not the tokenizer's)
    for tok in TOKENIZERS:
        ours, theirs = tokmod.get_tokenizer(tok), BLEU(tokenize=tok).tokenizer
        assert ours.signature() == theirs.signature()
        assert ours(line) == theirs(line), (tok, line)
