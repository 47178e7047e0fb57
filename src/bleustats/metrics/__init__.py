"""Statistics → scores: BLEU, ΔBLEU, chrF and TER, sentence-level variants, result objects.

Shaped like ``sacrebleu.metrics`` so that sacreBLEU code works by changing
only the package name (``from bleustats.metrics import BLEU, CHRF, TER``).
Everything here is numpy over per-segment statistics (and one numba
expression of the BLEU formula for many rows); no n-gram is counted again.

- :mod:`~bleustats.metrics.base`: what the metric objects share (sacreBLEU's
  ``Score`` / ``Signature`` / ``Metric`` behaviour, bootstrap intervals); the
  one :class:`Signature` type, which each metric subclasses.
- :mod:`~bleustats.metrics.formula`: the BLEU / ΔBLEU formula from summed
  statistics, one vectorized function for every path, and its building blocks
  (brevity penalty, geometric mean, the sentence-level smoothings) that every
  variant, combination feature and study unit scores with;
  ``_formula_kernels`` is its numba expression (exp smoothing, many rows: the
  study's units), the same bits.
- :mod:`~bleustats.metrics.tables`: scores of statistics tables: corpus,
  grouped and sentence BLEU / ΔBLEU (and a table's chrF / TER columns).
- :mod:`~bleustats.metrics.bleu_functions`: sacreBLEU's ``corpus_bleu`` /
  ``sentence_bleu`` / ``raw_corpus_bleu`` (and ``corpus_bleu_files``).
- :mod:`~bleustats.metrics.bleu`: the :class:`BLEU` object (``sacrebleu.metrics.bleu``).
- :mod:`~bleustats.metrics._plain`: BLEU of a few segments counted in plain
  Python (the statistics of :mod:`bleustats.engine._small`), equal to the
  table path to the bit.
- :mod:`~bleustats.metrics.chrf`: chrF / chrF++ from summed statistics, the
  :class:`CHRF` object, ``corpus_chrf`` / ``sentence_chrf``.
- :mod:`~bleustats.metrics.ter`: TER from summed statistics, the :class:`TER`
  object, ``corpus_ter`` / ``sentence_ter``.
- :mod:`~bleustats.metrics.sentence`: the registry of sentence-level variants
  (BLEU+1, Nakov et al.'s fixes, pseudo-document BLEU, Chen & Cherry, ...).
- :mod:`~bleustats.metrics.results`: :class:`BLEUScore`, BLEU's signature and
  which segments each system covers.
- :mod:`~bleustats.metrics.helpers` and :mod:`~bleustats.metrics.lib_ter`: sacreBLEU's n-gram helpers
  and TER library under their sacreBLEU names, for code that calls them.

The metric classes load on first use (``import bleustats.metrics`` stays light).
"""

from __future__ import annotations

import importlib
from typing import Any

from .results import BLEUScore, Signature

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "METRICS", "Signature", "TER", "TERScore"]

_LAZY = {"BLEU": "bleu", "CHRF": "chrf", "CHRFScore": "chrf", "TER": "ter", "TERScore": "ter"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    if name == "METRICS":  # sacreBLEU's registry of metric classes, by upper-case name
        value = {"BLEU": __getattr__("BLEU"), "CHRF": __getattr__("CHRF"), "TER": __getattr__("TER")}
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
