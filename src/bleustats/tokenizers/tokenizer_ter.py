"""Tercom's text normalizer, as sacreBLEU 2.6's ``TercomTokenizer`` applies it before TER.

The steps, in the order they run (each optional step only when its flag is on):

1. lowercase (unless ``case_sensitive``);
2. ``normalized``: join lines (a newline followed by ``-`` disappears, other
   newlines become spaces), decode ``&quot; &amp; &lt; &gt;``, pad the line
   with a space on each side, put spaces around ASCII punctuation other than
   ``' , - .``, split off the possessive ``'s``, split ``.`` and ``,`` from a
   non-digit on either side, and split ``-`` after a digit;
3. ``normalized`` and ``asian_support``: put spaces around every CJK
   ideograph, stroke, radical, compatibility character and enclosed letter,
   and around CJK and full-width punctuation;
4. ``no_punct``: delete ``. , ? : ; ! " ( )`` (and with ``asian_support`` the
   CJK and full-width punctuation of step 3);
5. collapse whitespace: ``' '.join(line.split())``.

Tercom's normalizer also has rules that split runs of Hiragana, Katakana and
Katakana phonetic extensions; as sacreBLEU writes them they are anchored at
the start of the line, which step 2 has just made a space, so they never
change a line and are not applied here (the oracle tests compare every option
combination with sacreBLEU on random and real text).

Examples
--------
>>> TercomTokenizer()("A B C D.")
'a b c d.'
>>> TercomTokenizer(normalized=True)("Jim's car (red).")
"jim 's car ( red ) ."
>>> TercomTokenizer(normalized=True, asian_support=True)("美众院公布")
'美 众 院 公 布'
>>> TercomTokenizer(no_punct=True, case_sensitive=True)("Yes; (No)!")
'Yes No'
"""

from __future__ import annotations

import re

__all__ = ["TercomTokenizer"]

#: ASCII punctuation that ``normalized`` surrounds with spaces: every printable
#: ASCII symbol except the apostrophe, comma, hyphen and period (those have their
#: own rules), plus the space itself (which only adds more spaces).
_SPACED_ASCII = " !\"#$%&()*+/:;<=>?@[\\]^_`{|}~"

#: CJK punctuation (ideographic comma and full stop, brackets, half-width forms, katakana middle dot).
_CJK_PUNCT_RANGES = "\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb"
#: Full-width ASCII punctuation: ． ， ？ ： ； ！ ＂ （ ）
_FULL_WIDTH_PUNCT = "\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09"
#: Characters ``asian_support`` splits into tokens of their own: CJK unified ideographs and
#: extension A, strokes, radicals supplement, compatibility block, compatibility ideographs and
#: forms, U+3200..U+3F22 (enclosed letters and months onwards), and the punctuation above.
_CJK_SPLIT_RANGES = (
    "\u4e00-\u9fff\u3400-\u4dbf\u31c0-\u31ef\u2e80-\u2eff\u3300-\u33ff\uf900-\ufaff"
    "\ufe30-\ufe4f\u3200-\u3f22" + _CJK_PUNCT_RANGES + _FULL_WIDTH_PUNCT
)

_PAD_ASCII = str.maketrans({c: f" {c} " for c in _SPACED_ASCII})
_PAD_CJK = re.compile(f"([{_CJK_SPLIT_RANGES}])")
# Period and comma: split from a preceding non-digit, then from a following non-digit
# (so "4.2" and "1,000" stay whole). Both rules consume the neighbour they test, so they
# must run as two left-to-right passes, in this order.
_POINT_AFTER_NON_DIGIT = re.compile(r"([^0-9])([.,])")
_POINT_BEFORE_NON_DIGIT = re.compile(r"([.,])([^0-9])")
_HYPHEN_AFTER_DIGIT = re.compile(r"([0-9])-")

_DROP_PUNCT = str.maketrans("", "", ".,?:;!\"()")
_DROP_CJK_PUNCT = re.compile(f"[{_CJK_PUNCT_RANGES}{_FULL_WIDTH_PUNCT}]")

_XML_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))


def _normalize_western(line: str) -> str:
    line = line.replace("\n-", "").replace("\n", " ")
    for entity, char in _XML_ENTITIES:  # one after the other: "&amp;lt;" becomes "&lt;", not "<"
        line = line.replace(entity, char)
    line = f" {line} ".translate(_PAD_ASCII)
    line = line.replace("'s ", " 's ")
    line = _POINT_AFTER_NON_DIGIT.sub(r"\1 \2 ", line)
    line = _POINT_BEFORE_NON_DIGIT.sub(r" \1 \2", line)
    return _HYPHEN_AFTER_DIGIT.sub(r"\1 - ", line)


class TercomTokenizer:
    """Tercom's normalizer with sacreBLEU 2.6's options; ``tokenizer(line)`` returns the tokenized line.

    Parameters
    ----------
    normalized : bool
        Join lines, decode XML entities and split punctuation from words
        (step 2 of the module description); with ``asian_support`` also split
        CJK characters (step 3).
    no_punct : bool
        Delete ``. , ? : ; ! " ( )``; with ``asian_support`` also CJK and
        full-width punctuation.
    asian_support : bool
        The CJK parts of ``normalized`` and ``no_punct``; alone it changes nothing.
    case_sensitive : bool
        Keep case; by default the line is lowercased first.

    Notes
    -----
    The result is the same string sacreBLEU's ``TercomTokenizer`` returns for
    every input (``tests/metrics/test_ter_oracle.py``). sacreBLEU's TER strips
    trailing whitespace from a line before calling the tokenizer;
    :func:`bleustats.engine.ter_stats.ter_statistics` does the same.

    Examples
    --------
    >>> tok = TercomTokenizer(normalized=True)
    >>> tok("4.2 km, 3-4 &amp; more"), tok.signature()
    ('4.2 km , 3 - 4 & more', 'tercom')
    """

    def __init__(self, normalized: bool = False, no_punct: bool = False,
                 asian_support: bool = False, case_sensitive: bool = False) -> None:
        self._normalized = bool(normalized)
        self._no_punct = bool(no_punct)
        self._asian_support = bool(asian_support)
        self._case_sensitive = bool(case_sensitive)

    def __call__(self, line: str) -> str:
        if not isinstance(line, str):
            raise TypeError(f"TercomTokenizer: line must be a str; got {type(line).__name__} {line!r:.60}.")
        if not line:
            return ""
        if not self._case_sensitive:
            line = line.lower()
        if self._normalized:
            line = _normalize_western(line)
            if self._asian_support:
                line = _PAD_CJK.sub(r" \1 ", line)
        if self._no_punct:
            line = line.translate(_DROP_PUNCT)
            if self._asian_support:
                line = _DROP_CJK_PUNCT.sub("", line)
        return " ".join(line.split())

    def signature(self) -> str:
        """The tokenizer's name in metric signatures: ``'tercom'``."""
        return "tercom"

    def __repr__(self) -> str:
        return (f"TercomTokenizer(normalized={self._normalized}, no_punct={self._no_punct}, "
                f"asian_support={self._asian_support}, case_sensitive={self._case_sensitive})")
