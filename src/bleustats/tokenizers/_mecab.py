"""The MeCab tokenizers' shared shell (private): a wakati tagger with a pinned dictionary."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..errors import MissingExtraError
from .tokenizer_base import BaseTokenizer


class MecabTokenizer(BaseTokenizer):
    """A MeCab ``-Owakati`` tagger over a packaged dictionary of a known size (no user dictionary).

    Subclasses name the Python modules, the dictionary's expected size, the
    signature suffix and the pip extra.
    """

    _modules: tuple[str, str] = ("", "")
    _dictionary_size = 0
    _suffix = ""
    _prefix = ""
    _extra = ""
    _language = ""

    def __init__(self) -> None:
        import importlib

        try:
            mecab, dictionary = (importlib.import_module(m) for m in self._modules)
        except ImportError as exc:
            raise MissingExtraError(
                f"the {self._prefix} tokenizer ({self._language}) needs the packages of the bleustats "
                f"extra '{self._extra}' ({exc.name} is missing): pip install 'bleustats[{self._extra}]'."
            ) from None
        self.tagger: Any = mecab.Tagger(dictionary.MECAB_ARGS + " -Owakati")
        info = self.tagger.dictionary_info()
        if info.size != self._dictionary_size or info.next is not None:
            raise RuntimeError(
                f"{self._prefix}: MeCab loaded a dictionary of {info.size} entries"
                f"{' plus a user dictionary' if info.next is not None else ''}; sacreBLEU's tokenizer is "
                f"defined with the packaged dictionary of {self._dictionary_size} entries and no other. Check "
                "MECABRC and the installed dictionary package.")
        self._parse = lru_cache(maxsize=2**16)(self._parse_line)

    def _parse_line(self, line: str) -> str:
        return self.tagger.parse(line.strip()).strip()

    def __call__(self, line: str) -> str:
        return self._parse(line)

    def signature(self) -> str:
        return f"{self._prefix}-{self.tagger.version()}-{self._suffix}"
