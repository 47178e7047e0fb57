"""bleustats: BLEU-family metrics as a vectorized sufficient-statistics engine.

Texts are tokenized (sacreBLEU-identical), encoded to integer ids in Arrow
columns, and a numba kernel emits per-hypothesis sufficient statistics once;
corpus BLEU, ΔBLEU, chrF, TER and sentence scores of any subset or grouping
are then sums and small formulas over that table. sacreBLEU's API is here too
(``BLEU`` / ``CHRF`` / ``TER`` objects, ``corpus_bleu``, ``corpus_chrf``,
``corpus_ter``, ...): ``import bleustats as sacrebleu`` works.

The package reads the way data flows, one floor per sub-package, each
importing only from the floors below it: :mod:`~bleustats.tokenizers` →
:mod:`~bleustats.engine` (encode, kernels, statistics, io, schemas) →
:mod:`~bleustats.metrics` (statistics → scores) → :mod:`~bleustats.meta`
(resampling, correlation, significance, studies, combination) →
:mod:`~bleustats.tools` (k-best, system comparison, blind spots, outliers, trees) →
:mod:`~bleustats.cli`. The names below load their module on first use, so
``import bleustats`` itself imports no numpy, numba, pandas or scipy.

>>> import bleustats
>>> round(bleustats.corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).score, 4)
37.9918
"""

from __future__ import annotations

from . import _legacy
from ._lazy import lazy_exports
from ._version import __version__

_legacy.install()

#: public name -> the module that defines it (imported on first use)
_EXPORTS = {
    "InputError": "errors",
    "SchemaError": "errors",
    "BLEU": "metrics.bleu",
    "CHRF": "metrics.chrf",
    "TER": "metrics.ter",
    "BLEUScore": "metrics.results",
    "CHRFScore": "metrics.chrf",
    "TERScore": "metrics.ter",
    "MissingExtraError": "errors",
    "ReferenceSet": "engine.references",
    "corpus_chrf": "metrics.chrf",
    "sentence_chrf": "metrics.chrf",
    "corpus_ter": "metrics.ter",
    "sentence_ter": "metrics.ter",
    "raw_corpus_bleu": "metrics.bleu_functions",
    "Signature": "metrics.results",
    "StatsTable": "engine.stats",
    "compute_stats": "engine.stats",
    "compute_stats_files": "engine.stats",
    "load_stats": "engine.stats",
    "compute_stats_dataset": "engine._partitioned_stats",
    "open_stats": "engine.dataset",
    "bleu_from_sums": "metrics.formula",
    "corpus_bleu": "metrics.bleu_functions",
    "corpus_bleu_files": "metrics.bleu_functions",
    "corpus_score": "metrics.tables",
    "corpus_scores": "metrics.tables",
    "sentence_bleu": "metrics.bleu_functions",
    "sentence_scores": "metrics.tables",
    "fisher_z_interval": "meta.correlation",
    "kendall_tau": "meta.correlation",
    "pearson": "meta.correlation",
    "segment_correlation": "meta.correlation",
    "spearman": "meta.correlation",
    "system_correlation": "meta.correlation",
    "paired_approximate_randomization": "meta.paired",
    "paired_bootstrap": "meta.paired",
    "correlation_difference_test": "meta.compare",
    "williams_test": "meta.compare",
    "StudyResult": "meta.study",
    "corpus_metric": "meta.study",
    "correlation_study": "meta.study",
    "mean_metric": "meta.study",
    "sentence_mean_metric": "meta.study",
    "sweep": "meta.study",
    "break_ties": "meta.combine",
    "component_scores": "meta.combine",
    "cross_validate": "meta.combine",
    "fit_pairwise": "meta.combine",
    "normalize_scores": "meta.combine",
    "uniform_combination": "meta.combine",
    "compare": "tools.system_compare",
    "discotk_light": "tools.trees",
    "tree_kernel": "tools.trees",
    "tree_kernels": "tools.trees",
}

#: sub-packages and public modules reachable as attributes (``bleustats.metrics.BLEU``)
_SUBMODULES = ("cli", "compat", "engine", "errors", "meta", "metrics", "significance", "tokenizers", "tools")

__all__ = ["__version__", *sorted(_EXPORTS)]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
