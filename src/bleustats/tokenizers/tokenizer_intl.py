"""sacreBLEU's ``intl`` tokenizer (mteval-v14 international): :class:`TokenizerV14International`.

Examples
--------
>>> TokenizerV14International()("«Oui», dit-il en 2015.")
'« Oui » , dit - il en 2015.'
"""

from __future__ import annotations

import regex

from ._marks import SEPARATE_TEMPLATE
from .tokenizer_base import BaseTokenizer

__all__ = ["TokenizerV14International", "tokenize_intl"]

# --------------------------------------------------------------------------
# intl (mteval-v14 international)
#
# sacreBLEU's intl tokenizer, on a line L (lowercased, rstripped, NOT padded):
#   a./b. rules A and B above with D = \p{N}, P = \p{P}
#   c. (\p{S}) -> ' \1 '
#   d. ' '.join(L.split())
#
# c. only separates symbols, which are "other" characters for the rule, so
# a.-c. become one pass: _INTL_SEPARATE.  Without padding, "no character
# before the run" counts like a number there and "no character after" like a
# number after: the documented mteval-v14 quirk that "in 2015." keeps its
# final period attached.
#
# Joining: '\n' can NOT be the separator (it is not \p{N}, so "2015." + '\n'
# would get its period split off).  We join with a character SEP of general
# category N (not P, not S, not whitespace) that occurs in no line of the
# chunk.  Seen from a line, SEP is a digit neighbour, which is exactly how
# the start and the end of a lone line behave; runs of marks cannot extend
# across it and it is never separated itself.  Nothing inserts SEP, so
# splitting on it recovers the lines.

_INTL_SEPARATE = regex.compile(
    r"(?|(\p{S})()()"  # c: every symbol
    r"|(\p{P})(?<=\P{N}\p{P})(?|()(\p{P})(?!\P{N})|(\p{P})()|()())"  # a/b: A-matched
    r"|(\p{P})(?<!\P{N}\p{P})(?=\P{N})()()"  # a/b: after a number / start, B-matched
    r")"
)

# Candidate separators, all of general category N, rare in real text.  The
# Latin-1 ones come first: a Latin-1-only chunk stays one byte per character.
_INTL_SEPARATORS = (
    "\xb9",  # SUPERSCRIPT ONE
    "\xbe",  # VULGAR FRACTION THREE QUARTERS
    "\u2188",  # ROMAN NUMERAL ONE HUNDRED THOUSAND
    "\u2187",  # ROMAN NUMERAL FIFTY THOUSAND
    "\u0f33",  # TIBETAN DIGIT HALF ZERO
    "\ua830",  # NORTH INDIC FRACTION ONE QUARTER
    "\U000102e1",  # COPTIC EPACT DIGIT ONE
    "\U0001d7ce",  # MATHEMATICAL BOLD DIGIT ZERO
)
for _sep in _INTL_SEPARATORS:  # the argument above relies on these properties
    if not regex.fullmatch(r"\p{N}", _sep) or _sep.isspace():  # pragma: no cover
        raise AssertionError(f"invalid intl separator {_sep!r}")
del _sep


def tokenize_intl(lines: list[str]) -> list[str]:
    """Tokenize lines as sacreBLEU's intl tokenizer does, one regex pass for all of them."""
    for sep in _INTL_SEPARATORS:
        text = sep.join(lines)
        if text.count(sep) == len(lines) - 1:  # no line contains sep
            break
    else:  # every candidate occurs in some line: go line by line
        return [" ".join(_INTL_SEPARATE.sub(SEPARATE_TEMPLATE, line).split()) for line in lines]
    text = _INTL_SEPARATE.sub(SEPARATE_TEMPLATE, text)
    return list(map(" ".join, map(str.split, text.split(sep))))


class TokenizerV14International(BaseTokenizer):
    """mteval-v14 international, as ``sacrebleu.tokenizers.tokenizer_intl.TokenizerV14International``."""

    def signature(self) -> str:
        return "intl"

    def __call__(self, line: str) -> str:
        return tokenize_intl([line])[0]
