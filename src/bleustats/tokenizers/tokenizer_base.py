"""The base class of sacreBLEU-shaped tokenizers.

A tokenizer is a callable ``line -> tokenized line`` (tokens joined by single
spaces) with a ``signature()``, as in ``sacrebleu.tokenizers.tokenizer_base``.
Batch tokenization of many lines is :func:`bleustats.tokenizers.tokenize_lines`.
"""

from __future__ import annotations

__all__ = ["BaseTokenizer"]


class BaseTokenizer:
    """A tokenizer: ``tok(line)`` returns the tokenized line; ``tok.signature()`` its name."""

    def signature(self) -> str:
        """The tokenizer's name in a metric signature (``tok:...``)."""
        raise NotImplementedError

    def __call__(self, line: str) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
