"""bleustats: BLEU-family metrics as a vectorized sufficient-statistics engine.

Texts are tokenized (sacreBLEU-identical), encoded to integer ids in Arrow
columns, and a numba kernel emits per-hypothesis sufficient statistics once;
corpus BLEU, ΔBLEU and sentence scores of any subset or grouping are then sums
and small formulas over that table.

>>> import bleustats
>>> round(bleustats.corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).score, 4)
37.9918
"""

from ._version import __version__
from .compat import corpus_bleu, corpus_bleu_files, sentence_bleu
from .results import BLEUScore, Signature
from .scoring import bleu_from_sums, corpus_score, corpus_scores, sentence_scores
from .stats import StatsTable, compute_stats, compute_stats_files, load_stats

__all__ = [
    "__version__",
    "BLEUScore",
    "Signature",
    "StatsTable",
    "bleu_from_sums",
    "compute_stats",
    "compute_stats_files",
    "corpus_bleu",
    "corpus_bleu_files",
    "corpus_score",
    "corpus_scores",
    "load_stats",
    "sentence_bleu",
    "sentence_scores",
]
