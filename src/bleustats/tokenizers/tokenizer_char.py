"""sacreBLEU's ``char`` tokenizer: every character, separated by one space.

Examples
--------
>>> TokenizerChar()("ab c")
'a b   c'
"""

from __future__ import annotations

from .tokenizer_base import BaseTokenizer

__all__ = ["TokenizerChar", "tokenize_char"]


def tokenize_char(lines: list[str]) -> list[str]:
    """Tokenize lines as sacreBLEU's char tokenizer does."""
    # sacreBLEU: " ".join(char for char in line) -- every character,
    # whitespace included, separated by one space.
    return list(map(" ".join, lines))


class TokenizerChar(BaseTokenizer):
    """Characters as tokens, as ``sacrebleu.tokenizers.tokenizer_char.TokenizerChar``."""

    def signature(self) -> str:
        return "char"

    def __call__(self, line: str) -> str:
        return " ".join(line)
