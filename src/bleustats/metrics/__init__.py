"""Statistics → scores: BLEU and ΔBLEU, sentence-level variants, result objects.

Shaped like ``sacrebleu.metrics`` so that sacreBLEU code works by changing
only the package name. Everything here is numpy over a statistics table
(:class:`bleustats.engine.stats.StatsTable`); no n-gram is counted again.

- :mod:`~bleustats.metrics.bleu`: the BLEU / ΔBLEU formula from summed
  statistics, corpus and grouped scores, and sacreBLEU's ``corpus_bleu`` /
  ``sentence_bleu``.
- :mod:`~bleustats.metrics.chrf`: chrF / chrF++ from summed statistics,
  ``corpus_chrf`` / ``sentence_chrf``.
- :mod:`~bleustats.metrics.sentence`: the registry of sentence-level variants
  (BLEU+1, Nakov et al.'s fixes, pseudo-document BLEU, Chen & Cherry, ...).
- :mod:`~bleustats.metrics.results`: :class:`BLEUScore` and :class:`Signature`.
"""

from .results import BLEUScore, Signature

__all__ = ["BLEUScore", "Signature"]
