"""``sacrebleu`` under the shim (:func:`bleustats.sacrebleu_shim.install`): sacreBLEU 2.6's top-level names.

The metric objects and functions are bleustats' (:mod:`bleustats.metrics`,
:mod:`bleustats.compat`); the test-set functions read the local sacreBLEU
cache (:mod:`bleustats.sacrebleu_shim.utils`). ``__version__`` is the
sacreBLEU version whose behaviour is reproduced, ``BLEUSTATS_VERSION``
bleustats' own. Other bleustats names (``bleustats.corpus_score``, ...) are
reachable here too, as ``import bleustats as sacrebleu`` gives them.

Examples
--------
>>> from bleustats.sacrebleu_shim import package as sacrebleu
>>> sacrebleu.__version__
'2.6.0'
>>> round(sacrebleu.corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).score, 4)
37.9918
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import compat as _compat
from ..metrics import helpers as _helpers
from . import utils as _utils
from .version import BLEUSTATS_VERSION, __version__

# a package (sub-modules are found by the shim's finder, never on disk)
__path__: list[str] = []

__description__ = ("Hassle-free computation of shareable, comparable, and reproducible BLEU, chrF, and TER scores "
                   "(bleustats' engine)")

corpus_bleu = _compat.corpus_bleu
corpus_chrf = _compat.corpus_chrf
corpus_ter = _compat.corpus_ter
raw_corpus_bleu = _compat.raw_corpus_bleu
sentence_bleu = _compat.sentence_bleu
sentence_chrf = _compat.sentence_chrf
sentence_ter = _compat.sentence_ter
extract_char_ngrams = _helpers.extract_char_ngrams
extract_word_ngrams = _helpers.extract_word_ngrams
SACREBLEU_DIR = _utils.SACREBLEU_DIR
download_test_set = _utils.download_test_set
get_available_testsets = _utils.get_available_testsets
get_langpairs_for_testset = _utils.get_langpairs_for_testset
get_reference_files = _utils.get_reference_files
get_source_file = _utils.get_source_file
smart_open = _utils.smart_open

_LAZY = {"BLEU": "bleustats.metrics.bleu", "CHRF": "bleustats.metrics.chrf", "TER": "bleustats.metrics.ter",
         "DATASETS": "bleustats.sacrebleu_shim.dataset"}
__all__ = ["BLEUSTATS_VERSION", "SACREBLEU_DIR", "__version__", "corpus_bleu", "corpus_chrf", "corpus_ter",
           "download_test_set", "extract_char_ngrams", "extract_word_ngrams", "get_available_testsets",
           "get_langpairs_for_testset", "get_reference_files", "get_source_file", "raw_corpus_bleu", "sentence_bleu",
           "sentence_chrf", "sentence_ter", "smart_open", *_LAZY]
_SUBMODULES = {"metrics": "bleustats.metrics", "tokenizers": "bleustats.tokenizers", "compat": "bleustats.compat",
               "significance": "bleustats.significance", "utils": "bleustats.sacrebleu_shim.utils",
               "dataset": "bleustats.sacrebleu_shim.dataset", "version": "bleustats.sacrebleu_shim.version",
               "sacrebleu": "bleustats.sacrebleu_shim.cli"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(_SUBMODULES[name])
    elif not name.startswith("_"):
        value = getattr(importlib.import_module("bleustats"), name)  # AttributeError names bleustats
    else:
        raise AttributeError(f"module 'sacrebleu' (bleustats' shim) has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})
