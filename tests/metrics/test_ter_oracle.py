"""TER oracle tests: bleustats equals sacreBLEU 2.6.0 (pinned in pyproject's test extra).

Per-segment statistics ``[num_edits, ref_length]`` must be identical, corpus
and sentence scores within 1e-9 (they come out bit-identical), for every
combination of ``normalized`` × ``no_punct`` × ``asian_support`` ×
``case_sensitive``: on randomized corpora (hypothesis: empty lines, unicode,
CJK, punctuation, XML entities, newlines, 1-4 references with gaps), on
sacreBLEU's own published cases, and on WMT21 data from ../shared (skipped
when absent). Every expected number comes from running sacreBLEU on the same
input, except the published cases, whose numbers are quoted from sacreBLEU's
test files (``test/test_ter.py``, ``test/test_tokenizer_ter.py``).

``pytest -m exhaustive`` adds a run over whole WMT21 test sets (several minutes:
sacreBLEU is the slow side).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import translation_edit_rate
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as SacreTercomTokenizer

from bleustats.engine.ter_stats import ter_statistics
from bleustats.metrics.ter import corpus_ter, sentence_ter, ter_from_sums
from bleustats.tokenizers import TercomTokenizer

from ..conftest import examples, shared_path, wmt_corpus
from ..twins import ter as twin

assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; expected numbers assume 2.6.0"

FLAGS = ("normalized", "no_punct", "asian_support", "case_sensitive")
#: All 16 option combinations of sacreBLEU's TER.
OPTIONS = [dict(zip(FLAGS, values)) for values in itertools.product((False, True), repeat=4)]


def option_id(opts):
    return "+".join(k for k, v in opts.items() if v) or "default"


def sacre_stats(hyps, streams, opts):
    """sacreBLEU's per-segment [num_edits, avg ref_length]."""
    rows = TER(**opts)._extract_corpus_statistics(hyps, streams)
    return np.array(rows, dtype=np.float64).reshape(-1, 2)


def check_corpus(hyps, streams, opts, sentence_rows=None):
    """Statistics, corpus score (numbers and text) and sentence scores against sacreBLEU."""
    ours = ter_statistics(hyps, streams, **opts)
    theirs = sacre_stats(hyps, streams, opts)
    np.testing.assert_array_equal(ours, theirs, err_msg=option_id(opts))
    got = corpus_ter(hyps, streams, **opts)
    want = TER(**opts).corpus_score(hyps, streams)
    assert got.score == pytest.approx(want.score, abs=1e-9)
    assert (got.num_edits, got.ref_length) == (want.num_edits, want.ref_length)
    assert str(got) == str(want) and got.format(width=4) == want.format(width=4)
    rows = range(len(hyps)) if sentence_rows is None else sentence_rows
    for i in rows:
        refs = [stream[i] for stream in streams]
        got_s = sentence_ter(hyps[i], refs, **opts)
        want_s = TER(**opts).sentence_score(hyps[i], refs)
        assert got_s.score == pytest.approx(want_s.score, abs=1e-9), (i, hyps[i], refs)
        assert (got_s.num_edits, got_s.ref_length) == (want_s.num_edits, want_s.ref_length)


# --------------------------------------------------------------------------- tokenizer

#: Characters that every rule of the normalizer reacts to, plus ordinary text.
TOKEN_CHARS = (
    "abcXYZ09 .,-'\"()?:;!&/<>#$%*+=@[]^_`{|}~\\\t\n"
    "ÉİßΣςŞ"  # case mappings that change length or depend on context
    "美众院公布りの拳銃を持カタカナ"  # CJK ideographs, hiragana, katakana
    "、。〈〉「」・．，？：；！＂（）｡ｰ"  # CJK and full-width punctuation
    "ㇰ⺀㌀豈︰㈀㐀"  # strokes, radicals, compatibility, enclosed, extension A
    "\u00a0\u2028\u3000\u200b"  # unusual whitespace (and a zero-width non-space)
)
text = st.lists(st.one_of(st.sampled_from(list(TOKEN_CHARS)),
                          st.sampled_from(["&quot;", "&amp;", "&lt;", "&gt;", "'s", "'s ", "\n-", "4.2",
                                           "1,000", "3-4", "a.b", "Jim's", " 's"])),
                max_size=25).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(text)
def test_tokenizer_equals_sacrebleu_every_option(line):
    for opts in OPTIONS:
        assert TercomTokenizer(**opts)(line) == SacreTercomTokenizer(**opts)(line), option_id(opts)


def test_tokenizer_every_ascii_and_cjk_boundary_character():
    """Each ASCII character and each edge of every CJK range, alone and between letters."""
    edges = [0x2e80, 0x2eff, 0x3001, 0x3002, 0x3008, 0x3011, 0x3014, 0x301f, 0x3040, 0x309f, 0x30a0,
             0x30fb, 0x30ff, 0x31c0, 0x31ef, 0x31f0, 0x31ff, 0x3200, 0x32ff, 0x3300, 0x33ff, 0x3400,
             0x3f22, 0x3f23, 0x4dbf, 0x4e00, 0x9fff, 0xf900, 0xfaff, 0xfe30, 0xfe4f, 0xff01, 0xff02,
             0xff08, 0xff09, 0xff0c, 0xff0e, 0xff1a, 0xff1b, 0xff1f, 0xff61, 0xff65]
    chars = [chr(c) for c in range(128)] + [chr(c + d) for c in edges for d in (-1, 0, 1)]
    for c, opts in itertools.product(chars, OPTIONS):
        for line in (c, f"a{c}b", f"1{c}2", f"{c}{c}"):
            assert TercomTokenizer(**opts)(line) == SacreTercomTokenizer(**opts)(line), (line, opts)


# sacreBLEU test/test_tokenizer_ter.py: (input, expected output) for each option set.
PUBLISHED_TOKENIZER_CASES = [
    ({}, "a b c d", "a b c d"),
    ({}, "", ""),
    ({}, "a b c d.", "a b c d."),
    ({}, "A B C D.", "a b c d."),
    ({"no_punct": True}, "a b c d.", "a b c d"),
    ({"no_punct": True}, "A ; B ) C : D.", "a b c d"),
    ({"normalized": True}, "a b (c) d.", "a b ( c ) d ."),
    ({"normalized": True}, "Jim's car.", "jim 's car ."),
    ({"normalized": True}, "4.2", "4.2"),
    ({"normalized": True, "asian_support": True}, "美众院公布对特", "美 众 院 公 布 对 特"),
    # the first two characters are hiragana and stay together
    ({"normalized": True, "asian_support": True}, "りの拳銃を持", "りの 拳 銃 を 持"),
]


@pytest.mark.parametrize("opts,line,expected", PUBLISHED_TOKENIZER_CASES)
def test_tokenizer_published_cases(opts, line, expected):
    assert TercomTokenizer(**opts)(line) == expected


def test_tokenizer_signature_and_type_error():
    assert TercomTokenizer().signature() == SacreTercomTokenizer().signature() == "tercom"
    with pytest.raises(TypeError, match=r"line must be a str; got NoneType"):
        TercomTokenizer()(None)


# --------------------------------------------------------------------------- the twin is the spec


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6).flatmap(lambda v: st.tuples(st.lists(st.integers(0, v - 1), max_size=24),
                                                     st.lists(st.integers(0, v - 1), max_size=24))))
def test_twin_equals_sacrebleu_translation_edit_rate(pair):
    """The plain-Python twin the kernels are tested against counts what sacreBLEU counts."""
    hyp, ref = pair
    assert twin.ter_edits(hyp, ref) == translation_edit_rate([str(t) for t in hyp], [str(t) for t in ref])[0]


# --------------------------------------------------------------------------- randomized corpora

WORDS = ["the", "The", "cat", "CAT", "sat", "on", "mat", "a", "1", "2,5", "3.", "-", "x-1", "(", ")", ".",
         ",", "'s", "Jim's", "&quot;", "&amp;", "Straße", "ΣΑΣ", "日本", "語", "美众院", "りの", "。", "，",
         "（", "é", "ﬁ", "İ", "$5", "!", "?", "4.2", "e.g."]
SEPARATORS = [" ", " ", " ", " ", "", "  ", "\t", "\n", "\n-", "\u3000"]


@st.composite
def line(draw, max_words=14):
    words = draw(st.lists(st.sampled_from(WORDS), max_size=max_words))
    out = ""
    for w in words:
        out += w + draw(st.sampled_from(SEPARATORS))
    return out


@st.composite
def corpus(draw, max_segments=6):
    """Hypotheses and 1-4 reference streams; some hypotheses are references reshuffled; gaps are None."""
    n = draw(st.integers(1, max_segments))
    n_refs = draw(st.integers(1, 4))
    streams = [[draw(line()) for _ in range(n)] for _ in range(n_refs)]
    for i in range(n):  # a missing reference for some segments (never all of a segment's)
        for k in range(1, n_refs):
            if draw(st.integers(0, 4)) == 0:
                streams[k][i] = None
    hyps = []
    for i in range(n):
        if draw(st.booleans()):
            words = streams[0][i].split()
            hyps.append(" ".join(draw(st.permutations(words))) if len(words) < 9 else " ".join(words[::-1]))
        else:
            hyps.append(draw(line()))
    return hyps, streams


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(corpus(), st.sampled_from(OPTIONS))
def test_random_corpora_equal_sacrebleu(data, opts):
    hyps, streams = data
    check_corpus(hyps, streams, opts)


def test_every_option_combination_on_one_corpus():
    """All 16 combinations, each on the same mixed corpus (so every run checks every combination)."""
    hyps = ["The cat sat on the mat .", "", "美众院公布对特 ，りの拳銃を持。", "Jim's car (red) costs $4.2 , e.g.",
            "x-1 &amp; &quot;Straße&quot;\n-ok", "ΣΑΣ 日本語 mat cat the sat on"]
    streams = [["the cat sat on the mat.", "a", "美众院 公布 对特，りの 拳銃を持。",
                "Jim 's car ( red ) costs $ 4.2, e.g.", "x - 1 & \"straße\" ok", "the cat sat on the mat ΣΑΣ"],
               ["on the mat the cat sat", None, "", "JIM'S CAR", None, "日本語"]]
    for opts in OPTIONS:
        check_corpus(hyps, streams, opts)


# --------------------------------------------------------------------------- published cases

# sacreBLEU test/test_ter.py: corpus TER (as a fraction) of one-reference corpora, re-expressed
# with our own tokens where only the shape matters; sacreBLEU checks these within 1e-3.
PUBLISHED_SCORES = [
    (["w1 w2 w3 w4"], ["w1 w2 w3 w4"], 0),  # perfect match
    (["p q r"], ["x y z"], 1),  # no overlap
    ([""], ["a"], 1),  # empty hypothesis
    (["a"], [""], 1),  # empty reference: edits with no reference words count as 100
    ([""], [""], 0),  # both empty: defined as 0
    (["d e f g h a b c"], ["a b c d e f g h"], 1 / 8),  # one shift fixes the hypothesis
]

# The realistic case of sacreBLEU test/test_ter.py (WMT 2019 dev data, German), quoted as data.
WMT19_HYPS = [
    ('wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
     'damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .'),
    ('wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des '
     'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "'),
    ('klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie '
     'Werte für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " ein .'),
    'Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .',
    'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
]
WMT19_REFS = [
    ('wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , '
     'damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .'),
    ('wenn Sie alle Aufgaben im aktuellen Dokument aktualisieren möchten , wählen Sie im Menü des '
     'Aufgabenbedienfelds die Option " Alle Aufgaben aktualisieren . "'),
    ('klicken Sie auf der Registerkarte " Optionen " auf die Schaltfläche " Benutzerdefiniert " und geben Sie '
     'für " Fehlerkorrektur-Level " und " Y / X-Verhältnis " niedrigere Werte ein .'),
    'Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .',
    'wählen Sie im Dialogfeld " Neu aus Vorlage " eine Vorlage aus und klicken Sie auf " Neu . "',
]


@pytest.mark.parametrize("hyps,refs,fraction", PUBLISHED_SCORES + [(WMT19_HYPS, WMT19_REFS, 0.136)])
def test_published_scores(hyps, refs, fraction):
    got = corpus_ter(hyps, [refs])
    assert got.score == pytest.approx(100 * fraction, abs=1e-3)
    check_corpus(hyps, [refs], {})


def test_published_single_shift_statistics():
    """One shift and no other edit: 1 edit over 8 reference words."""
    assert ter_statistics(["d e f g h a b c"], [["a b c d e f g h"]]).tolist() == [[1.0, 8.0]]
    assert ter_from_sums([1, 8]) == 12.5


def test_signature_matches_sacrebleu_apart_from_version():
    for opts in OPTIONS:
        ours = corpus_ter(["a b", "c"], [["a b", "d"], [None, "c"]], **opts).signature
        metric = TER(**opts)
        metric.corpus_score(["a b", "c"], [["a b", "d"], [None, "c"]])
        theirs = metric.get_signature()
        for short in (False, True):
            assert ours.format(short=short).rsplit("|", 1)[0] == theirs.format(short=short).rsplit("|", 1)[0]
    assert corpus_ter(["a"], [["a"], ["b"]]).signature.nrefs == "2"


# --------------------------------------------------------------------------- real data


def check_wmt(pair, system_names, opts, segments=None):
    """TER statistics and scores of ``system_names`` on WMT21 ``pair``, segment ids in ``segments`` (all if None)."""
    seg_ids, streams, systems = wmt_corpus(pair)
    keep = [i for i, s in enumerate(seg_ids) if segments is None or segments[0] <= s <= segments[1]]
    seg_ids = [seg_ids[i] for i in keep]
    streams = [[stream[i] for i in keep] for stream in streams]
    for name in system_names:
        hyps = [systems[name].get(s, "") for s in seg_ids]
        ours = ter_statistics(hyps, streams, **opts)
        theirs = sacre_stats(hyps, streams, opts)
        np.testing.assert_array_equal(ours, theirs, err_msg=f"{pair} {name} {option_id(opts)}")
        metric = TER(**opts)
        want = metric._compute_score_from_stats(list(theirs.sum(axis=0)))
        assert ter_from_sums(ours.sum(axis=0)) == pytest.approx(want.score, abs=1e-9)
        sentence = ter_from_sums(ours)
        want_rows = [metric._compute_score_from_stats(list(row)).score for row in theirs]
        np.testing.assert_allclose(sentence, want_rows, rtol=0, atol=1e-9)


@pytest.mark.parametrize("pair,system,opts,segments", [
    # zh-en: one system against ref-A and ref-B; segments 505-525 include Online-W's empty
    # hypothesis 515. en-de: four references (A, B, C, D). Both ranges are in the vendored
    # slice (tests/data), so this runs without ../shared.
    ("zh-en", "Online-W", {}, (505, 525)),
    ("en-de", "Facebook-AI", {"normalized": True, "no_punct": True}, (1, 30)),
])
def test_wmt21_subset(pair, system, opts, segments):
    check_wmt(pair, [system], opts, segments)


@pytest.mark.exhaustive
@pytest.mark.parametrize("pair,systems,opts", [
    ("zh-en", ["Online-W", "ZengHuiMT"], {}),  # the systems with empty hypotheses
    ("zh-en", ["Facebook-AI"], {"normalized": True, "case_sensitive": True}),
    ("en-de", ["Online-W"], {}),
    ("en-de", ["UEdin"], {"normalized": True, "no_punct": True, "asian_support": True}),
])
def test_wmt21_whole_test_sets(request, pair, systems, opts):
    if "exhaustive" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a whole-test-set run takes minutes; select it with -m exhaustive")
    shared_path("data", "wmt21_news", pair)  # the whole test set, not the vendored slice
    check_wmt(pair, systems, opts)
