"""sacreBLEU-compatible BLEU preprocessing (lowercasing and tokenization).

The functions here reproduce, for every input string, the text that
sacreBLEU 2.x's ``BLEU._preprocess_segment`` produces::

    sent = sent.lower() if lowercase else sent
    tokenized = tokenizer(sent.rstrip())

for the tokenizers ``none``, ``13a`` (the default, mteval-v13a), ``intl``
(mteval-v14 "international"), ``char`` and ``zh``.  The output strings are not only
equal after ``.split()``: they are equal character for character.

The implementation is batched.  For ``13a`` and ``intl`` each distinct line
is tokenized once, and all of a tokenizer's regular-expression substitutions
run as a single pass over thousands of lines joined by a separator that
provably cannot take part in any match, instead of several passes per line.
The comments in :mod:`~bleustats.tokenizers._marks` and the tokenizer modules
carry the argument for each step; the test suite checks it against sacreBLEU
on real and adversarial text. Each tokenizer is also a sacreBLEU-shaped object
(:class:`Tokenizer13a`, ...; :func:`get_tokenizer` by name).

sacreBLEU's other tokenizers have its module and class names too, loaded on
first use: ``tokenizer_re`` (:class:`~bleustats.tokenizers.tokenizer_re.TokenizerRegexp`),
``tokenizer_ja_mecab`` / ``tokenizer_ko_mecab`` (extras ``ja`` / ``ko``) and
``tokenizer_spm`` (``spm``, ``flores101``, ``flores200``, ``spBLEU-1K``; extra
``spm``, models read from sacreBLEU's cache folder, never downloaded). They run
per line in Python (:data:`OPTIONAL_TOKENIZERS`).

Modules: ``tokenizer_base`` (the shared base class), ``tokenizer_none``,
``tokenizer_13a``, ``tokenizer_intl``, ``tokenizer_char``, ``tokenizer_zh``,
``tokenizer_ter`` (TER's own normalization), ``tokenizer_re``,
``tokenizer_ja_mecab``, ``tokenizer_ko_mecab``, ``tokenizer_spm``; private:
``_marks`` (the period/comma rule of 13a and intl) and ``_mecab`` (the MeCab
tokenizers' shared shell).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tokenizer_base import BaseTokenizer

__all__ = [
    "DEFAULT_TOKENIZER",
    "OPTIONAL_TOKENIZERS",
    "SACREBLEU_TOKENIZERS",
    "TOKENIZERS",
    "BaseTokenizer",
    "NoneTokenizer",
    "TercomTokenizer",
    "Tokenizer13a",
    "TokenizerChar",
    "TokenizerV14International",
    "TokenizerZh",
    "get_tokenizer",
    "tokenize_lines",
    "tokenizer_class",
    "tokenizer_signature",
]

#: Names accepted by the ``tokenize`` parameter, as sacreBLEU spells them.
TOKENIZERS: tuple[str, ...] = ("none", "13a", "intl", "char", "zh")

#: sacreBLEU's tokenizers that need an optional package (or a model file): module.class, run per line.
OPTIONAL_TOKENIZERS: dict[str, str] = {
    "ja-mecab": "tokenizer_ja_mecab.TokenizerJaMecab",
    "ko-mecab": "tokenizer_ko_mecab.TokenizerKoMecab",
    "spm": "tokenizer_spm.TokenizerSPM",
    "flores101": "tokenizer_spm.Flores101Tokenizer",
    "flores200": "tokenizer_spm.Flores200Tokenizer",
    "spBLEU-1K": "tokenizer_spm.spBLEU1KTokenizer",
}

#: Every tokenizer name sacreBLEU 2.6's BLEU accepts, in its order.
SACREBLEU_TOKENIZERS: tuple[str, ...] = ("none", "zh", "13a", "intl", "char", *OPTIONAL_TOKENIZERS)

#: sacreBLEU's default BLEU tokenizer (mteval-v13a).
DEFAULT_TOKENIZER = "13a"

# Lines per joined chunk.  Chunking bounds the size of the temporary joined
# strings (one astral character only widens its own chunk) and costs nothing
# in correctness, since every chunk is tokenized independently.
_CHUNK_LINES = 8192

#: Where each public name of the tokenizer modules lives; imported on first use (``__getattr__``), so that
#: the names above cost no regular-expression compilation (a command's ``--help`` lists them).
_LAZY: dict[str, str] = {
    "BaseTokenizer": "tokenizer_base", "NoneTokenizer": "tokenizer_none",
    "Tokenizer13a": "tokenizer_13a", "tokenize_13a": "tokenizer_13a",
    "TokenizerV14International": "tokenizer_intl", "tokenize_intl": "tokenizer_intl",
    "TokenizerChar": "tokenizer_char", "tokenize_char": "tokenizer_char",
    "TokenizerZh": "tokenizer_zh", "tokenize_zh": "tokenizer_zh",
    "TercomTokenizer": "tokenizer_ter",
}

_CLASS_NAMES = {"none": "NoneTokenizer", "13a": "Tokenizer13a", "intl": "TokenizerV14International",
                "char": "TokenizerChar", "zh": "TokenizerZh"}
_CHUNK_NAMES = {"13a": "tokenize_13a", "intl": "tokenize_intl", "char": "tokenize_char", "zh": "tokenize_zh"}


def _chunk_tokenizer(name: str) -> Callable[[list[str]], list[str]]:
    """The batched tokenizer of ``name`` (one of :data:`TOKENIZERS`)."""
    if name == "none":
        return lambda lines: lines
    attr = _CHUNK_NAMES[name]
    return globals().get(attr) or __getattr__(attr)  # loaded once, then the module's own name


def _check_tokenize(tokenize: object) -> str:
    """Return ``tokenize`` if it names a tokenizer sacreBLEU has, else raise ValueError."""
    if not isinstance(tokenize, str) or tokenize not in SACREBLEU_TOKENIZERS:
        allowed = ", ".join(repr(name) for name in SACREBLEU_TOKENIZERS)
        raise ValueError(f"tokenize must be one of {allowed}; got {tokenize!r}.")
    return tokenize


def _optional(tokenize: str) -> BaseTokenizer:
    module, cls = OPTIONAL_TOKENIZERS[tokenize].split(".")
    return getattr(importlib.import_module(f".{module}", __name__), cls)()


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
    tokenize : {'13a', 'none', 'intl', 'char', 'zh'}, default '13a'
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
        If ``tokenize`` is not one of :data:`SACREBLEU_TOKENIZERS`.
    bleustats.errors.MissingExtraError
        An optional tokenizer whose package is not installed.
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
    cannot take part in any match, rather than once per line; the tokenizer
    modules' comments explain why this gives the per-line result.

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
    >>> tokenize_lines(["我爱北京。"], tokenize="zh")
    ['我 爱 北 京 。']
    >>> tokenize_lines(["x"], tokenize="13b")
    Traceback (most recent call last):
    ...
    ValueError: tokenize must be one of 'none', 'zh', '13a', 'intl', 'char', 'ja-mecab', ...; got '13b'.
    """
    name = _check_tokenize(tokenize)
    items = _as_str_list(lines)
    if name in OPTIONAL_TOKENIZERS:  # a Python object per line (MeCab, SentencePiece)
        tok = _optional(name)
        return [tok((s.lower() if lowercase else s).rstrip()) for s in items]
    if name in ("none", "char"):
        # Cheap per line (C-level maps only): deduplicating would cost more.
        if lowercase:
            items = list(map(str.lower, items))
        return _chunk_tokenizer(name)(list(map(str.rstrip, items)))

    # 13a / intl / zh: tokenize each distinct line once.
    unique = list(dict.fromkeys(items))
    prepared = list(map(str.lower, unique)) if lowercase else unique
    prepared = list(map(str.rstrip, prepared))
    chunk_tokenizer = _chunk_tokenizer(name)
    tokenized: list[str] = []
    for start in range(0, len(prepared), _CHUNK_LINES):
        tokenized.extend(chunk_tokenizer(prepared[start : start + _CHUNK_LINES]))
    if len(unique) == len(items):
        return tokenized
    return list(map(dict(zip(unique, tokenized)).__getitem__, items))


def get_tokenizer(tokenize: str) -> BaseTokenizer:
    """A new tokenizer object for the name ``tokenize`` (sacreBLEU's ``_TOKENIZERS`` entry).

    Examples
    --------
    >>> get_tokenizer("13a")("Hello, world!")
    'Hello , world !'
    """
    name = _check_tokenize(tokenize)
    return _optional(name) if name in OPTIONAL_TOKENIZERS else __getattr__(_CLASS_NAMES[name])()


def tokenizer_class(tokenize: str) -> type[BaseTokenizer]:
    """The class (not an instance) of the tokenizer named ``tokenize`` (sacreBLEU's ``_get_tokenizer``).

    An optional tokenizer's module is imported, its package only when the class is instantiated.
    An unknown name raises ``KeyError``, as sacreBLEU's lookup does.

    Examples
    --------
    >>> tokenizer_class("13a")()("Hello, world!"), tokenizer_class("spm").__name__
    ('Hello , world !', 'TokenizerSPM')
    """
    if tokenize in _CLASS_NAMES:
        return __getattr__(_CLASS_NAMES[tokenize])
    if tokenize not in OPTIONAL_TOKENIZERS:
        raise KeyError(tokenize)
    module, cls = OPTIONAL_TOKENIZERS[tokenize].split(".")
    return getattr(importlib.import_module(f".{module}", __name__), cls)


def tokenizer_signature(tokenize: str) -> str:
    """Return the tokenizer's name as it appears in sacreBLEU's BLEU signature.

    Parameters
    ----------
    tokenize : {'13a', 'none', 'intl', 'char', 'zh'}
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
    ['none', '13a', 'intl', 'char', 'zh']
    """
    return _check_tokenize(tokenize)


def __getattr__(name: str) -> object:
    """The tokenizer classes and functions, loaded on first use: their regexes cost ms at import."""
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
