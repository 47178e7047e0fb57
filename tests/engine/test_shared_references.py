"""The process-level reference cache of corpus_bleu / corpus_chrf / corpus_ter (engine.references.shared_reference_set).

The cache must never change a number: results with it equal results without it
(and sacreBLEU's), a reference edited anywhere (one character, same length, even
in place in the same list) is a different entry, and what it keeps is bounded.
"""

from __future__ import annotations

import random

import pytest

import bleustats.metrics.chrf as chrf_module
import bleustats.metrics.ter as ter_module
from bleustats import corpus_bleu, corpus_chrf, corpus_ter
from bleustats.engine import references as shared
from bleustats.engine import _small as small

WORDS = "the a cat dog sat on mat , . ! über naïve 東京 quickly ran home".split()


def _line(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 25)))


def _corpus(seed: int, n: int = 600) -> tuple[list[list[str]], list[list[str]]]:
    """Systems and two reference streams (the second with missing entries), large enough for the kernels."""
    rng = random.Random(seed)
    ref_a = [_line(rng) for _ in range(n)]
    ref_b = [None if rng.random() < 0.3 else _line(rng) for _ in range(n)]
    systems = [[r if rng.random() < 0.4 else _line(rng) for r in ref_a] for _ in range(3)]
    return systems, [ref_a, ref_b]


@pytest.fixture(autouse=True)
def _fresh_cache():
    shared.clear_shared()
    before = small.PLAIN_MAX_CHARS
    small.PLAIN_MAX_CHARS = -1  # these inputs take the kernels
    yield
    small.PLAIN_MAX_CHARS = before
    shared.clear_shared()


def _uncached(monkeypatch: pytest.MonkeyPatch) -> None:
    def none(*args, **kwargs):
        return None

    monkeypatch.setattr(shared, "shared_reference_set", none)  # corpus_bleu imports it at call time
    monkeypatch.setattr(chrf_module, "shared_reference_set", none)
    monkeypatch.setattr(ter_module, "shared_reference_set", none)


def _scores(systems: list, refs: list) -> list:
    out = []
    for hyp in systems:
        for tok in ("13a", "char"):
            b = corpus_bleu(hyp, refs, tokenize=tok)
            out.append((b.score, b.counts, b.totals, b.sys_len, b.ref_len, str(b.signature)))
        c = corpus_chrf(hyp, refs)
        out.append((c.score, str(c)))
        for options in ({}, {"normalized": True, "case_sensitive": True}):
            t = corpus_ter(hyp, refs, **options)
            out.append((t.score, t.num_edits, t.ref_length))
    return out


def test_cached_results_equal_uncached(monkeypatch):
    systems, refs = _corpus(1)
    cached = _scores(systems, refs)
    assert len(shared._shared) == 1  # one reference set, kept once for every metric and option
    with monkeypatch.context() as m:
        _uncached(m)
        uncached = _scores(systems, refs)
    assert cached == uncached


def test_cached_results_equal_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    systems, refs = _corpus(2, n=200)  # sacreBLEU's TER is the slow side
    for hyp in systems:
        for tok in ("13a", "char"):
            for _ in range(2):  # the second call is served from the cache
                assert corpus_bleu(hyp, refs, tokenize=tok).score == pytest.approx(
                    sacrebleu.corpus_bleu(hyp, refs, tokenize=tok).score, abs=1e-9)
        assert corpus_chrf(hyp, refs).score == pytest.approx(sacrebleu.corpus_chrf(hyp, refs).score, abs=1e-9)
        assert corpus_ter(hyp, refs).score == pytest.approx(sacrebleu.corpus_ter(hyp, refs).score, abs=1e-9)


@pytest.mark.parametrize("stream", [0, 1])
def test_one_character_changed_is_a_miss(stream):
    systems, both = _corpus(3)
    # one stream (None made ''): every character of it counts in chrF
    hyp, refs = systems[0], [[r if r is not None else "" for r in both[stream]]]
    first = shared.shared_reference_set(refs, len(hyp))
    assert shared.shared_reference_set([list(r) for r in refs], len(hyp)) is first  # equal content: a hit
    before = (corpus_bleu(hyp, refs).score, corpus_chrf(hyp, refs).score, corpus_ter(hyp, refs).score)
    i = next(i for i, r in enumerate(refs[0]) if r and "a" in r)
    edited = [list(r) for r in refs]
    edited[0][i] = edited[0][i].replace("a", "b", 1)  # same length, one character different
    assert shared.shared_reference_set(edited, len(hyp)) is not first
    after = (corpus_bleu(hyp, edited).score, corpus_chrf(hyp, edited).score, corpus_ter(hyp, edited).score)
    shared.clear_shared()
    assert after == (corpus_bleu(hyp, edited).score, corpus_chrf(hyp, edited).score, corpus_ter(hyp, edited).score)
    assert after != before


def test_edited_in_place_is_a_miss():
    systems, refs = _corpus(4)
    hyp = systems[0]
    first = shared.shared_reference_set(refs, len(hyp))
    i = next(i for i, r in enumerate(refs[0]) if r and "t" in r)
    refs[0][i] = refs[0][i].replace("t", "s", 1)  # the same list objects, one character edited
    assert shared.shared_reference_set(refs, len(hyp)) is not first
    cached = corpus_bleu(hyp, refs).score
    shared.clear_shared()
    assert cached == corpus_bleu(hyp, refs).score


def test_none_and_empty_and_separators_are_told_apart():
    n = 2
    variants = [[["", "ab"]], [[None, "ab"]], [["a", "b"], ["c", "d"]], [["ab", ""]], [["a\x00", "b"]],
                [["a", "\x00b"]], [["a", "b"]]]
    found = [shared.shared_reference_set(v, n) for v in variants]
    assert all(f is not None for f in found)
    assert len({id(f) for f in found}) == len(variants)


def test_not_kept():
    assert shared.shared_reference_set([["a"]], 2) is None  # wrong stream length: the uncached path's error
    assert shared.shared_reference_set([["a", 3]], 2) is None  # not text
    assert shared.shared_reference_set([["a"], ["b"]], 1, "segments") is None
    assert shared.shared_reference_set("ab", 2) is None
    with pytest.raises(ValueError, match="stream"):
        corpus_bleu(["a", "b"], [["a"]])
    assert not shared._shared


def test_memory_bounded(monkeypatch):
    for k in range(shared.SHARED_MAX_ENTRIES + 5):
        assert shared.shared_reference_set([[f"ref {k}", "x"]], 2) is not None
        assert len(shared._shared) <= shared.SHARED_MAX_ENTRIES
    newest = shared.shared_reference_set([[f"ref {shared.SHARED_MAX_ENTRIES + 4}", "x"]], 2)
    assert newest is shared.shared_reference_set([[f"ref {shared.SHARED_MAX_ENTRIES + 4}", "x"]], 2)
    monkeypatch.setattr(shared, "SHARED_MAX_CHARS", 10)
    assert shared.shared_reference_set([["0123456789", "a"]], 2) is None  # larger than the whole cache
    shared.shared_reference_set([["01234", "a"]], 2)
    shared.shared_reference_set([["56789", "b"]], 2)
    assert sum(c for _, c in shared._shared.values()) <= 10
