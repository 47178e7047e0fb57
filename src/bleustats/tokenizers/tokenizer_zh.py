"""sacreBLEU's ``zh`` tokenizer: every "Chinese" character a token of its own, then 13a's rules.

Examples
--------
>>> TokenizerZh()("我爱北京。It costs $3.50 (2021).")
'我 爱 北 京 。 It costs $ 3.50 ( 2021 ) .'
"""

from __future__ import annotations

from ._marks import SEPARATE_TEMPLATE, separate_pass
from .tokenizer_base import BaseTokenizer

__all__ = ["CHINESE_RANGES", "TokenizerZh", "tokenize_zh"]

# --------------------------------------------------------------------------
# zh
#
# sacreBLEU's zh tokenizer, on a line L (lowercased and rstripped):
#   1. strip L on both sides;
#   2. put a space on both sides of every "Chinese" character (the ranges below);
#   3. 13a's four substitutions a.-d. (see above), WITHOUT 13a's padding;
#   4. ' '.join(L.split()).
#
# Step 2 only adds whitespace beside characters that are "other" for the
# period/comma rule, so 2. and 3. are one pass over the stripped line, with
# the rule's unpadded ends: no character before a run counts like a digit
# before it, no character after it like a digit after it (as for intl).
#
# sacreBLEU writes its ranges as pairs of one-character strings compared with
# <=; two of them are written with five hex digits ('\u20000', '\u2f800', ...),
# which Python reads as a four-digit escape followed by a digit, so those two
# pairs compare as two-character strings.  A character c is then inside
# ('\u2000' + '0', '\u2a6d' + '6') iff U+2001 <= c <= U+2A6D (c == U+2000 is
# a proper prefix of the lower bound, hence smaller), and likewise inside
# U+2F81..U+2FA1.  tests/engine/test_tokenize_kernels.py checks every code
# point against sacreBLEU's own test.

#: Inclusive code-point ranges that sacreBLEU 2.6's zh tokenizer spaces out.
CHINESE_RANGES: tuple[tuple[int, int], ...] = (
    (0x3400, 0x4DB5),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FA5),  # CJK Unified Ideographs
    (0x9FA6, 0x9FBB),
    (0xF900, 0xFA2D),  # CJK Compatibility Ideographs
    (0xFA30, 0xFA6A),
    (0xFA70, 0xFAD9),
    (0x2001, 0x2A6D),  # meant: Extension B, U+20000..U+2A6D6 (see above)
    (0x2F81, 0x2FA1),  # meant: Compatibility Supplement, U+2F800..U+2FA1D
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
    (0x2E80, 0x2EFF),  # CJK Radicals Supplement
    (0x3000, 0x303F),  # CJK Symbols and Punctuation
    (0x31C0, 0x31EF),  # CJK Strokes
    (0x2F00, 0x2FDF),  # Kangxi Radicals
    (0x2FF0, 0x2FFF),  # Ideographic Description Characters
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo Extended
    (0xFE10, 0xFE1F),  # Vertical Forms
    (0xFE30, 0xFE4F),  # CJK Compatibility Forms
    (0x2600, 0x26FF),  # Miscellaneous Symbols
    (0x2700, 0x27BF),  # Dingbats
    (0x3200, 0x32FF),  # Enclosed CJK Letters and Months
    (0x3300, 0x33FF),  # CJK Compatibility
)

_CHINESE_CLASS = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in CHINESE_RANGES)
#: compiled on first use (:func:`~bleustats.tokenizers._marks.separate_pass`): importing the ranges costs no ``regex``
_ZH_PATTERN = (
    r"(?|([!-&(-+/:-@\[-`{-~" + _CHINESE_CLASS + r"])()()"  # a. and step 2
    r"|(?<=[0-9])(-)()()"  # d: a dash after a digit
    r"|([.,])(?<=[^0-9][.,])(?|()([.,])(?![^0-9])|([.,])()|()())"  # b/c: A-matched
    r"|([.,])(?<![^0-9][.,])(?=[^0-9])()()"  # b/c: after a digit or the start, B-matched
    r")"
)


def tokenize_zh(lines: list[str]) -> list[str]:
    """Tokenize lines as sacreBLEU's zh tokenizer does."""
    separate = separate_pass(_ZH_PATTERN)
    return [" ".join(separate.sub(SEPARATE_TEMPLATE, line.strip()).split()) for line in lines]


class TokenizerZh(BaseTokenizer):
    """Chinese characters as tokens, as ``sacrebleu.tokenizers.tokenizer_zh.TokenizerZh``."""

    def signature(self) -> str:
        return "zh"

    def __call__(self, line: str) -> str:
        return tokenize_zh([line])[0]
