"""The period/comma rule shared by the 13a and intl tokenizers (private).

The argument below is why one left-to-right regex pass per tokenizer gives
exactly what sacreBLEU's several substitutions give; both tokenizer modules
build their pattern on it and substitute with :data:`SEPARATE_TEMPLATE`;
:func:`separate_pass` compiles such a pattern once, on first use.
"""

import functools

# --------------------------------------------------------------------------
# The period/comma rule, shared by 13a and intl
#
# Both tokenizers run, one after the other, two substitutions of this shape
# (D is a class of "digits", P a class of "marks", disjoint from D):
#
#   A.  ([^D])(P)  ->  '\1 \2 '    (re.sub: non-overlapping, pairs consumed)
#   B.  (P)([^D])  ->  ' \1 \2'
#
# 13a: D = [0-9], P = [.,].   intl: D = \p{N}, P = \p{P}.
#
# Only where whitespace ends up matters (the result is ' '.join(s.split())),
# so describe the outcome per mark.  Take a maximal run of marks P1..Pk, with
# L0 the character before P1 (or none at the start of the string) and R the
# character after Pk (or none at the end).
#
# * A matches Pi iff its left neighbour exists, is not in D, and was not
#   itself consumed as the mark of the previous A match.  Along a run the
#   A-matches therefore alternate: P1, P3, P5, ... when L0 exists and is not a
#   digit; P2, P4, ... when L0 is a digit or absent.  An A-matched mark gets a
#   space on both sides.
# * A mark not matched by A has, after A, on its left a digit, a space (its
#   left neighbour was A-matched) or nothing, so B cannot find it consumed;
#   B matches it iff the character after it (after A) exists and is not a
#   digit.  Inside a run that character is a space or a mark, so B matches
#   every unmatched mark except possibly Pk, which B matches iff R exists and
#   is not a digit.  A B-matched mark gets a space on both sides; B's
#   consumed right neighbour is never a mark, so consumption changes nothing.
#
# Hence: every mark is spaced on both sides, except Pk when R is a digit or
# absent and Pk is not A-matched, i.e. when (L0 exists, is not a digit and k
# is even) or (L0 is a digit or absent and k is odd).  Such a Pk is left
# untouched: glued to R, and, when k = 1 and L0 is a digit, to L0 too.
# The rule only ever asks whether a neighbour is a digit, a mark, or
# "anything else"; other characters (letters, whitespace, other punctuation)
# are interchangeable, so spaces inserted around them by the tokenizers'
# other substitutions do not change it.
#
# We apply the rule in ONE left-to-right regex pass that mimics A's own
# consumption, so that no lookbehind has to count a run (a parity lookbehind
# such as (?<=[^D](?:PP)*P) is quadratic on long runs in the regex module).
# The pass uses a branch-reset group (?|...) with three groups and the
# template ' \1 \2 \3', so each branch picks where the spaces go:
#
#   (c)()()                      -> ' c  '     separate c (the other classes)
#   P (?<=[^D]P) ()(P)(?=D/end)  -> ' P1  P2'  A-match, then the run's last
#                                              mark, unmatched, glued to R
#   P (?<=[^D]P) (P)()           -> ' P1 P2 '  A-match, then an unmatched
#                                              mark that B separates
#   P (?<=[^D]P) ()()            -> ' P1  '    A-match, no mark after it
#   P (?<=D/start P) (?=[^D])()() -> ' P1  '   unmatched by A, matched by B
#
# (an unmatched mark with a digit / the end after it matches no branch and
# stays as it is).  A mark reached by the scan with a non-digit before it is
# A-matched: its left neighbour is either a non-mark, or a mark the scan just
# consumed as the unmatched second mark of a pair or as an unmatched single,
# never an A-matched one (an A-matched mark always swallows the mark after
# it).  The lookarounds see only the neighbouring characters.  The other
# substitutions of each tokenizer are single-character classes that never
# touch D or P, so they are further branches of the same pass.

#: Replacement of every branch-reset pattern built on this rule: ``' \1 \2 \3'``.
SEPARATE_TEMPLATE = r" \1 \2 \3"


@functools.cache
def separate_pass(pattern: str):
    """``pattern`` compiled with ``regex``, once: imported on first use, as the kernels' route never needs it
    (~20 ms to import)."""
    import regex

    return regex.compile(pattern)
