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
from .combine import (break_ties, component_scores, cross_validate, fit_pairwise, normalize_scores,
                      uniform_combination)
from .compat import corpus_bleu, corpus_bleu_files, sentence_bleu
from .correlation import (fisher_z_interval, kendall_tau, pearson, segment_correlation, spearman,
                          system_correlation)
from .results import BLEUScore, Signature
from .scoring import bleu_from_sums, corpus_score, corpus_scores, sentence_scores
from .significance import (correlation_difference_test, paired_approximate_randomization, paired_bootstrap,
                           williams_test)
from .stats import StatsTable, compute_stats, compute_stats_files, load_stats
from .study import StudyResult, corpus_metric, correlation_study, mean_metric, sentence_mean_metric, sweep
from .trees import discotk_light, tree_kernel, tree_kernels

__all__ = [
    "__version__",
    "BLEUScore",
    "Signature",
    "StatsTable",
    "StudyResult",
    "bleu_from_sums",
    "break_ties",
    "component_scores",
    "compute_stats",
    "compute_stats_files",
    "corpus_bleu",
    "corpus_bleu_files",
    "corpus_metric",
    "corpus_score",
    "corpus_scores",
    "correlation_difference_test",
    "correlation_study",
    "cross_validate",
    "discotk_light",
    "fisher_z_interval",
    "fit_pairwise",
    "kendall_tau",
    "load_stats",
    "mean_metric",
    "normalize_scores",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "pearson",
    "segment_correlation",
    "sentence_bleu",
    "sentence_mean_metric",
    "sentence_scores",
    "spearman",
    "sweep",
    "system_correlation",
    "tree_kernel",
    "tree_kernels",
    "uniform_combination",
    "williams_test",
]
