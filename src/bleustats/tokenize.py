"""sacreBLEU-compatible BLEU preprocessing (lowercasing and tokenization).

The functions here reproduce, for every input string, the text that
sacreBLEU 2.x's ``BLEU._preprocess_segment`` produces::

    sent = sent.lower() if lowercase else sent
    tokenized = tokenizer(sent.rstrip())

for the tokenizers ``none``, ``13a`` (the default, mteval-v13a), ``intl``
(mteval-v14 "international") and ``char``.  The output strings are not only
equal after ``.split()``: they are equal character for character.

The implementation is batched.  For ``13a`` and ``intl`` each distinct line
is tokenized once, and all of a tokenizer's regular-expression substitutions
run as a single pass over thousands of lines joined by a separator that
provably cannot take part in any match, instead of several passes per line.
The comments in this module's source carry the argument for each step; the
test suite checks it against sacreBLEU on real and adversarial text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import regex

__all__ = [
    "DEFAULT_TOKENIZER",
    "TOKENIZERS",
    "tokenize_lines",
    "tokenizer_signature",
]

#: Names accepted by the ``tokenize`` parameter, as sacreBLEU spells them.
TOKENIZERS: tuple[str, ...] = ("none", "13a", "intl", "char")

#: sacreBLEU's default BLEU tokenizer (mteval-v13a).
DEFAULT_TOKENIZER = "13a"

# Lines per joined chunk.  Chunking bounds the size of the temporary joined
# strings (one astral character only widens its own chunk) and costs nothing
# in correctness, since every chunk is tokenized independently.
_CHUNK_LINES = 8192

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
#    over the original (unescaped, padded) line: _13A_SEPARATE.
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

_13A_SEPARATE = regex.compile(
    r"(?=[!-&(-/:-@\[-`{-~])"  # fast reject: every branch starts with one of these
    r"(?|([!-&(-+/:-@\[-`{-~])()()"  # a: ASCII punctuation except ' , - .
    r"|(?<=[0-9])(-)()()"  # d: a dash after a digit
    r"|([.,])(?<=[^0-9][.,])(?|()([.,])(?=[0-9])|([.,])()|()())"  # b/c: A-matched
    r"|([.,])(?<=[0-9][.,])(?![0-9])()()"  # b/c: after a digit, B-matched
    r")"
)
_SEPARATE_TEMPLATE = r" \1 \2 \3"


def _13a_newlines(line: str) -> str:
    """Apply 13a's language-independent step 1 to one line."""
    return line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")


def _tokenize_13a_chunk(lines: list[str]) -> list[str]:
    """Tokenize lines (already lowercased and rstripped) as sacreBLEU 13a."""
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
    text = _13A_SEPARATE.sub(_SEPARATE_TEMPLATE, " " + text.replace("\n", " \n ") + " ")
    return list(map(" ".join, map(str.split, text.split("\n"))))


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


def _tokenize_intl_chunk(lines: list[str]) -> list[str]:
    """Tokenize lines (already lowercased and rstripped) as sacreBLEU intl."""
    for sep in _INTL_SEPARATORS:
        text = sep.join(lines)
        if text.count(sep) == len(lines) - 1:  # no line contains sep
            break
    else:  # every candidate occurs in some line: go line by line
        return [" ".join(_INTL_SEPARATE.sub(_SEPARATE_TEMPLATE, line).split()) for line in lines]
    text = _INTL_SEPARATE.sub(_SEPARATE_TEMPLATE, text)
    return list(map(" ".join, map(str.split, text.split(sep))))


# --------------------------------------------------------------------------
# char and none


def _tokenize_char_chunk(lines: list[str]) -> list[str]:
    """Tokenize lines (already lowercased and rstripped) as sacreBLEU char."""
    # sacreBLEU: " ".join(char for char in line) -- every character,
    # whitespace included, separated by one space.
    return list(map(" ".join, lines))


def _tokenize_none_chunk(lines: list[str]) -> list[str]:
    """sacreBLEU's none tokenizer returns its (lowercased, rstripped) input."""
    return lines


# --------------------------------------------------------------------------
# zh (not in TOKENIZERS yet: the plain-Python reference of the byte kernel)
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
_ZH_SEPARATE = regex.compile(
    r"(?|([!-&(-+/:-@\[-`{-~" + _CHINESE_CLASS + r"])()()"  # a. and step 2
    r"|(?<=[0-9])(-)()()"  # d: a dash after a digit
    r"|([.,])(?<=[^0-9][.,])(?|()([.,])(?![^0-9])|([.,])()|()())"  # b/c: A-matched
    r"|([.,])(?<![^0-9][.,])(?=[^0-9])()()"  # b/c: after a digit or the start, B-matched
    r")"
)


def _tokenize_zh_chunk(lines: list[str]) -> list[str]:
    """Tokenize lines (already lowercased and rstripped) as sacreBLEU zh."""
    return [" ".join(_ZH_SEPARATE.sub(_SEPARATE_TEMPLATE, line.strip()).split()) for line in lines]


def _tokenize_zh_lines(lines: Sequence[str], *, lowercase: bool = False) -> list[str]:
    """sacreBLEU's BLEU preprocessing with ``tokenize='zh'`` (reference for the byte kernel).

    >>> _tokenize_zh_lines(["我爱北京。It costs $3.50 (2021)."])
    ['我 爱 北 京 。 It costs $ 3.50 ( 2021 ) .']
    """
    items = _as_str_list(lines)
    if lowercase:
        items = list(map(str.lower, items))
    return _tokenize_zh_chunk(list(map(str.rstrip, items)))


_CHUNK_TOKENIZERS: dict[str, Callable[[list[str]], list[str]]] = {
    "none": _tokenize_none_chunk,
    "13a": _tokenize_13a_chunk,
    "intl": _tokenize_intl_chunk,
    "char": _tokenize_char_chunk,
}


# --------------------------------------------------------------------------
# Public API


def _check_tokenize(tokenize: object) -> str:
    """Return ``tokenize`` if it names a supported tokenizer, else raise ValueError."""
    if not isinstance(tokenize, str) or tokenize not in TOKENIZERS:
        allowed = ", ".join(repr(name) for name in TOKENIZERS)
        raise ValueError(
            f"tokenize must be one of {allowed}; got {tokenize!r}. "
            "sacreBLEU's language-specific tokenizers ('zh', 'ja-mecab', "
            "'ko-mecab', 'spm', 'flores101', 'flores200', ...) are not supported."
        )
    return tokenize


def _as_str_list(lines: Sequence[str]) -> list[str]:
    """Return ``lines`` as a list of exact ``str`` objects, or raise TypeError."""
    if isinstance(lines, (str, bytes, bytearray)):
        raise TypeError(
            f"lines must be a sequence of str (one item per segment), "
            f"not a single {type(lines).__name__}; wrap it in a list"
        )
    out = list(lines)
    if set(map(type, out)) <= {str}:
        return out
    for i, item in enumerate(out):
        if not isinstance(item, str):
            raise TypeError(
                f"lines[{i}] must be str, got {type(item).__name__}: {item!r:.80}"
            )
    # Only str subclasses (e.g. numpy.str_) remain: use their plain-str value.
    return [s if type(s) is str else str.__str__(s) for s in out]


def tokenize_lines(
    lines: Sequence[str],
    *,
    tokenize: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
) -> list[str]:
    """Lowercase (optionally) and tokenize segments exactly like sacreBLEU's BLEU.

    For each line the result equals, character for character,
    ``sacrebleu.metrics.BLEU(tokenize=tokenize, lowercase=lowercase)
    ._preprocess_segment(line)``, i.e. ``tokenizer((line.lower() if lowercase
    else line).rstrip())``.  Tokens are separated by single spaces (for
    ``char`` and ``none``, any whitespace the line itself contains is kept as
    sacreBLEU keeps it), so ``result[i].split()`` gives the tokens.

    Parameters
    ----------
    lines : sequence of str
        The segments, one string per segment.  A segment may itself contain
        newlines (13a removes ``'-\\n'`` and turns ``'\\n'`` into a space, as
        sacreBLEU does).
    tokenize : {'13a', 'none', 'intl', 'char'}, default '13a'
        The sacreBLEU tokenizer name.
    lowercase : bool, default False
        Lowercase with :meth:`str.lower` before tokenizing.

    Returns
    -------
    list of str
        One tokenized string per input line, in input order.

    Raises
    ------
    ValueError
        If ``tokenize`` is not one of :data:`TOKENIZERS`.
    TypeError
        If ``lines`` is a single string, or an item is not a ``str`` (the
        message names the item's index).

    See Also
    --------
    tokenizer_signature : The tokenizer's name in sacreBLEU's signature.

    Notes
    -----
    For ``13a`` and ``intl``, identical lines are tokenized once and the regular
    expressions run over thousands of lines joined with a separator that
    cannot take part in any match, rather than once per line; the module
    source explains why this gives the per-line result.

    Examples
    --------
    >>> tokenize_lines(["Hello, world!", "It costs $3.50 (in 2021)."])
    ['Hello , world !', 'It costs $ 3.50 ( in 2021 ) .']
    >>> tokenize_lines(["Hello, World!"], lowercase=True)
    ['hello , world !']
    >>> tokenize_lines(["Année 2021.", "«Oui»"], tokenize="intl")
    ['Année 2021.', '« Oui »']
    >>> tokenize_lines(["ab c"], tokenize="char")
    ['a b   c']
    >>> tokenize_lines(["  keep as is  "], tokenize="none")
    ['  keep as is']
    >>> tokenize_lines(["x"], tokenize="zh")
    Traceback (most recent call last):
    ...
    ValueError: tokenize must be one of 'none', '13a', 'intl', 'char'; got 'zh'. ...
    """
    name = _check_tokenize(tokenize)
    items = _as_str_list(lines)
    if name in ("none", "char"):
        # Cheap per line (C-level maps only): deduplicating would cost more.
        if lowercase:
            items = list(map(str.lower, items))
        return _CHUNK_TOKENIZERS[name](list(map(str.rstrip, items)))

    # 13a / intl: tokenize each distinct line once.
    unique = list(dict.fromkeys(items))
    prepared = list(map(str.lower, unique)) if lowercase else unique
    prepared = list(map(str.rstrip, prepared))
    chunk_tokenizer = _CHUNK_TOKENIZERS[name]
    tokenized: list[str] = []
    for start in range(0, len(prepared), _CHUNK_LINES):
        tokenized.extend(chunk_tokenizer(prepared[start : start + _CHUNK_LINES]))
    if len(unique) == len(items):
        return tokenized
    return list(map(dict(zip(unique, tokenized)).__getitem__, items))


def tokenizer_signature(tokenize: str) -> str:
    """Return the tokenizer's name as it appears in sacreBLEU's BLEU signature.

    Parameters
    ----------
    tokenize : {'13a', 'none', 'intl', 'char'}
        The sacreBLEU tokenizer name.

    Returns
    -------
    str
        The ``tok:`` value of sacreBLEU's signature (for these tokenizers the
        name itself).

    Raises
    ------
    ValueError
        If ``tokenize`` is not one of :data:`TOKENIZERS`.

    Examples
    --------
    >>> tokenizer_signature("13a")
    '13a'
    >>> [tokenizer_signature(name) for name in TOKENIZERS]
    ['none', '13a', 'intl', 'char']
    """
    return _check_tokenize(tokenize)
