"""sacreBLEU's other tokenizers under their module names: re, ja-mecab, ko-mecab, spm (oracle: sacreBLEU 2.6).

The MeCab tests run when the extras ``ja`` / ``ko`` are installed (skipped otherwise, with the reason);
the SentencePiece tests check the offline behaviour: a clear error naming where the model goes.
"""

from __future__ import annotations

import importlib.util
import random

import pytest

import bleustats
from bleustats.errors import MissingExtraError
from bleustats.tokenizers import SACREBLEU_TOKENIZERS, get_tokenizer, tokenize_lines
from bleustats.tokenizers.tokenizer_re import TokenizerRegexp

LINES = ["Hello, world (1-2).", ".5 and 3,000", "a.b,c", "x--y 4-5 ,start", "", "  padded  ", "«Oui», 2015."]


def test_regexp_tokenizer_equals_sacrebleu():
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp as Sacre

    r = random.Random(0)
    chars = "ab1. ,-()'/:;?!\"$é"
    lines = LINES + ["".join(r.choice(chars) for _ in range(r.randint(0, 30))) for _ in range(500)]
    ours, theirs = TokenizerRegexp(), Sacre()
    assert [ours(s) for s in lines] == [theirs(s) for s in lines]
    assert ours.signature() == theirs.signature() == "re"


def test_every_sacrebleu_tokenizer_name_is_known():
    from sacrebleu.metrics.bleu import _TOKENIZERS

    assert set(SACREBLEU_TOKENIZERS) == set(_TOKENIZERS)


@pytest.mark.parametrize("name,module,lines", [
    ("ja-mecab", "MeCab", ["これはテストです。", "東京に行きました", ""]),
    ("ko-mecab", "mecab_ko", ["안녕하세요 세계", "한국어 형태소 분석기입니다.", ""]),
])
def test_mecab_tokenizers_equal_sacrebleu(name, module, lines):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (bleustats extra '{name[:2]}')")
    from sacrebleu.metrics.bleu import _get_tokenizer

    ours, theirs = get_tokenizer(name), _get_tokenizer(name)()
    assert [ours(s) for s in lines] == [theirs(s) for s in lines]
    assert ours.signature() == theirs.signature()
    hyps = ["東京に行きました" if name == "ja-mecab" else "한국어 분석기"]
    refs = [["東京へ行った" if name == "ja-mecab" else "한국어 형태소 분석기"]]
    assert bleustats.BLEU(tokenize=name).corpus_score(hyps, refs).score == pytest.approx(
        __import__("sacrebleu").metrics.BLEU(tokenize=name).corpus_score(hyps, refs).score, abs=1e-9)
    assert tokenize_lines(lines, tokenize=name) == [theirs(s.rstrip()) for s in lines]


def test_missing_extra_names_it(monkeypatch):
    import sys

    for module in ("MeCab", "mecab_ko"):  # None in sys.modules: importing it fails as if not installed
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError, match=r"pip install 'bleustats\[ja\]'"):
        get_tokenizer("ja-mecab")
    with pytest.raises(RuntimeError, match=r"extra 'ko'"):  # sacreBLEU raises RuntimeError: so do we
        get_tokenizer("ko-mecab")


def test_spm_models_are_never_downloaded(tmp_path, monkeypatch):
    if importlib.util.find_spec("sentencepiece") is None:
        pytest.skip("sentencepiece is not installed (bleustats extra 'spm')")
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    for name, file in [("flores101", "sacrebleu_tokenizer_spm.model"), ("flores200", "flores200sacrebleuspm")]:
        with pytest.raises(FileNotFoundError, match=rf"{file} is not there.*does not download.*no internet"):
            get_tokenizer(name)
    with pytest.raises(FileNotFoundError, match="model_path="):
        bleustats.BLEU(tokenize="spm")
