"""sacreBLEU's ``ja-mecab`` tokenizer: MeCab with the IPA dictionary (extra ``ja``).

Needs ``pip install 'bleustats[ja]'`` (``mecab-python3`` and ``ipadic``, as
sacreBLEU's ``ja`` extra); without them creating the tokenizer raises
:class:`bleustats.errors.MissingExtraError` naming the extra. The line is
stripped and split into morphemes joined by spaces; the signature is
``ja-mecab-<MeCab version>-IPA``.
"""

from __future__ import annotations

from ._mecab import MecabTokenizer

__all__ = ["TokenizerJaMecab"]


class TokenizerJaMecab(MecabTokenizer):
    """As ``sacrebleu.tokenizers.tokenizer_ja_mecab.TokenizerJaMecab``."""

    _modules = ("MeCab", "ipadic")
    _dictionary_size = 392126
    _suffix = "IPA"
    _prefix = "ja-mecab"
    _extra = "ja"
    _language = "Japanese"
