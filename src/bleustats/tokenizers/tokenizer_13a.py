"""sacreBLEU's default tokenizer, mteval-v13a: :class:`Tokenizer13a` and its batched form.

:func:`tokenize_13a` tokenizes many lines in one regex pass per chunk of
lines (see the argument in the comments below and in
:mod:`bleustats.tokenizers._marks`); the result equals sacreBLEU's
``Tokenizer13a`` character for character.

Examples
--------
>>> Tokenizer13a()("It costs $3.50 (in 2021).")
'It costs $ 3.50 ( in 2021 ) .'
"""

from __future__ import annotations

from ._marks import SEPARATE_TEMPLATE, separate_pass
from .tokenizer_base import BaseTokenizer

__all__ = ["Tokenizer13a", "tokenize_13a"]

# --------------------------------------------------------------------------
# 13a (mteval-v13a)
#
# sacreBLEU's 13a tokenizer, on a line L (already lowercased and rstripped):
#   1. remove '<skipped>', then remove '-\n', then turn '\n' into ' ';
#   2. unescape &quot; &amp; &lt; &gt; (in that order, each a plain replace);
#   3. pad: ' ' + L + ' ';
#   4. four substitutions, one after the other:
#      a. ASCII punctuation other than ' , - . (plus the space)  -> ' c '
#      b./c. rules A and B above with D = [0-9], P = [.,]
#      d. ([0-9])(-) -> '\1 \2 '
#   5. ' '.join(L.split()).
#
# a. never touches digits, '.', ',' or '-', and turns an "other" character
#    into other characters, so b./c. see the same rule inputs as on the
#    original line; b./c. only add spaces around '.'/',', so every digit-'-'
#    adjacency d. sees was already in the original line (a digit can serve at
#    most one '-', so consumption is irrelevant).  All four become one pass
#    over the original (unescaped, padded) line: _13A_PATTERN.
#
# Joining: each line is padded with a space on both sides before the lines
# of a chunk are joined with '\n'.  Every lookaround looks one character
# beyond the match (at worst at the line's pad), and a match is at most two
# marks of one run, so no match or lookaround sees a '\n' or another line,
# and the scan enters each line exactly as it would enter a lone padded line.
# Splitting the chunk's result on '\n' thus gives each line's own result.
# The plain-string replaces of steps 1-2 contain no '\n', so they are
# chunk-safe as long as no line contains '\n'; chunks with such lines do
# step 1 line by line.

#: the one-pass pattern (compiled on first use, :func:`~bleustats.tokenizers._marks.separate_pass`)
_13A_PATTERN = (
    r"(?=[!-&(-/:-@\[-`{-~])"  # fast reject: every branch starts with one of these
    r"(?|([!-&(-+/:-@\[-`{-~])()()"  # a: ASCII punctuation except ' , - .
    r"|(?<=[0-9])(-)()()"  # d: a dash after a digit
    r"|([.,])(?<=[^0-9][.,])(?|()([.,])(?=[0-9])|([.,])()|()())"  # b/c: A-matched
    r"|([.,])(?<=[0-9][.,])(?![0-9])()()"  # b/c: after a digit, B-matched
    r")"
)


def _13a_newlines(line: str) -> str:
    """Apply 13a's language-independent step 1 to one line."""
    return line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")


def tokenize_13a(lines: list[str]) -> list[str]:
    """Tokenize lines as sacreBLEU's 13a tokenizer does, one regex pass for all of them."""
    text = "\n".join(lines)
    if text.count("\n") != len(lines) - 1:
        # Some line contains '\n' itself: do step 1 line by line (its three
        # replaces must run in order on each line, '-\n' may not join lines).
        text = "\n".join([_13a_newlines(line) for line in lines])
    elif "<skipped>" in text:
        text = text.replace("<skipped>", "")
    if "&" in text:
        text = (
            text.replace("&quot;", '"')
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
        )
    text = separate_pass(_13A_PATTERN).sub(SEPARATE_TEMPLATE, " " + text.replace("\n", " \n ") + " ")
    return list(map(" ".join, map(str.split, text.split("\n"))))


class Tokenizer13a(BaseTokenizer):
    """mteval-v13a, as ``sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a``."""

    def signature(self) -> str:
        return "13a"

    def __call__(self, line: str) -> str:
        return tokenize_13a([line])[0]
