"""sacreBLEU's SentencePiece tokenizers (``spm``, ``flores101``, ``flores200``, ``spBLEU-1K``; extra ``spm``).

sacreBLEU downloads each SentencePiece model on first use into
``$SACREBLEU/models/`` (``~/.sacrebleu/models/`` by default). bleustats never
downloads anything: it loads the model file from that same place, or from
``model_path=``, and when the file is missing raises a
:class:`FileNotFoundError` that names the path to put it at and the URL
sacreBLEU would fetch it from (this machine has no internet access; copy the
file from one that has). ``sentencepiece`` itself comes with
``pip install 'bleustats[spm]'``.

Examples
--------
>>> default_model_path("flores200").endswith(os.path.join("models", "flores200sacrebleuspm"))
True
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from ..errors import MissingExtraError
from .tokenizer_base import BaseTokenizer

__all__ = ["SPM_MODELS", "Flores101Tokenizer", "Flores200Tokenizer", "TokenizerSPM", "default_model_path",
           "spBLEU1KTokenizer"]

_FLORES101 = "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"
#: tokenizer name -> where sacreBLEU downloads its model (``url``) and its ``signature``
SPM_MODELS: dict[str, dict[str, str]] = {
    "spm": {"url": _FLORES101, "signature": "flores101"},
    "flores101": {"url": _FLORES101, "signature": "flores101"},
    "flores200": {"url": "https://tinyurl.com/flores200sacrebleuspm", "signature": "flores200"},
    "spBLEU-1K": {"url": "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model", "signature": "spBLEU-1K"},
}


def default_model_path(key: str) -> str:
    """Where sacreBLEU keeps the model of tokenizer ``key``: ``$SACREBLEU/models/<URL's last part>``."""
    root = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(root, "models", os.path.basename(SPM_MODELS[key]["url"]))


class TokenizerSPM(BaseTokenizer):
    """A SentencePiece tokenizer: the line's pieces joined by spaces (``sacrebleu...TokenizerSPM``).

    Parameters
    ----------
    key : {'spm', 'flores101', 'flores200', 'spBLEU-1K'}
    model_path : str, optional
        The model file; default sacreBLEU's cache location (:func:`default_model_path`).
    """

    def __init__(self, key: str = "spm", *, model_path: str | None = None) -> None:
        if key not in SPM_MODELS:
            raise ValueError(f"key must be one of {', '.join(map(repr, SPM_MODELS))}; got {key!r}.")
        self.name = SPM_MODELS[key]["signature"]
        try:
            import sentencepiece
        except ImportError:
            raise MissingExtraError(
                f"the {key} tokenizer needs sentencepiece, of the bleustats extra 'spm': "
                "pip install 'bleustats[spm]'.") from None
        path = model_path or default_model_path(key)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{key}: the SentencePiece model {path} is not there. sacreBLEU downloads it from "
                f"{SPM_MODELS[key]['url']}; bleustats does not download (this machine has no internet access). "
                "Copy the file to that path (the directory is $SACREBLEU/models, default ~/.sacrebleu/models) "
                "or pass model_path=.")
        self.sp: Any = sentencepiece.SentencePieceProcessor()
        self.sp.Load(path)
        self._encode = lru_cache(maxsize=2**16)(self._encode_line)

    def _encode_line(self, line: str) -> str:
        return " ".join(self.sp.EncodeAsPieces(line))

    def __call__(self, line: str) -> str:
        return self._encode(line)

    def signature(self) -> str:
        return self.name


class Flores101Tokenizer(TokenizerSPM):
    """``flores101``: the FLORES-101 model (sacreBLEU's ``spm`` default)."""

    def __init__(self, *, model_path: str | None = None) -> None:
        super().__init__("flores101", model_path=model_path)


class Flores200Tokenizer(TokenizerSPM):
    """``flores200``: the FLORES-200 model."""

    def __init__(self, *, model_path: str | None = None) -> None:
        super().__init__("flores200", model_path=model_path)


class spBLEU1KTokenizer(TokenizerSPM):  # noqa: N801 - sacreBLEU's class name
    """``spBLEU-1K``: the spBLEU-1K model."""

    def __init__(self, *, model_path: str | None = None) -> None:
        super().__init__("spBLEU-1K", model_path=model_path)
