"""sacreBLEU's ``TokenizerRegexp`` (signature ``re``): mteval's language-dependent rules alone.

The rules of 13a without 13a's preparation (no ``<skipped>`` / newline
handling, no entity decoding, no padding), applied one after the other to
the line as given:

1. space around ASCII punctuation other than ``' , - .`` (and around ``/``);
2. split ``.`` / ``,`` from a non-digit before it;
3. split ``.`` / ``,`` from a non-digit after it;
4. split ``-`` after a digit;

then whitespace is collapsed (``' '.join(line.split())``). Without the pad,
a ``.`` or ``,`` at the very start or end of a line stays attached where 13a
would split it.

Examples
--------
>>> TokenizerRegexp()("Hello, world (1-2).")
'Hello , world ( 1 - 2 ) .'
>>> TokenizerRegexp()(".5 and 3,000")
'.5 and 3,000'
"""

from __future__ import annotations

import re
from functools import lru_cache

from .tokenizer_base import BaseTokenizer

__all__ = ["TokenizerRegexp"]

# 1: ASCII punctuation except apostrophe, comma, hyphen and period: !"#$%& ()*+ / :;<=>?@ [\]^_` {|}~
_PUNCT = re.compile(r"([!-&(-+/:-@\[-`{-~])")
_PERIOD_AFTER_NON_DIGIT = re.compile(r"([^0-9])([.,])")
_PERIOD_BEFORE_NON_DIGIT = re.compile(r"([.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


class TokenizerRegexp(BaseTokenizer):
    """The four mteval substitutions in order, as ``sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp``."""

    def signature(self) -> str:
        return "re"

    @staticmethod
    @lru_cache(maxsize=2**16)
    def _apply(line: str) -> str:
        line = _PUNCT.sub(r" \1 ", line)
        line = _PERIOD_AFTER_NON_DIGIT.sub(r"\1 \2 ", line)
        line = _PERIOD_BEFORE_NON_DIGIT.sub(r" \1 \2", line)
        line = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", line)
        return " ".join(line.split())

    def __call__(self, line: str) -> str:
        return self._apply(line)
