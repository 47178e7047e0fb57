"""sacreBLEU's ``none`` tokenizer: the line as it is (BLEU then splits it on whitespace).

Examples
--------
>>> NoneTokenizer()("  keep as is")
'  keep as is'
"""

from __future__ import annotations

from .tokenizer_base import BaseTokenizer

__all__ = ["NoneTokenizer"]


class NoneTokenizer(BaseTokenizer):
    """No tokenization, as ``sacrebleu.tokenizers.tokenizer_none.NoneTokenizer``."""

    def signature(self) -> str:
        return "none"

    def __call__(self, line: str) -> str:
        return line
