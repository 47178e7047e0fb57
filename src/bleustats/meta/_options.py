"""Named choices of the meta-evaluation's options, without loading it (a command's ``--help`` lists them).

Examples
--------
>>> UNDEFINED
('error', 'exclude')
"""

from __future__ import annotations

__all__ = ["COMPARE_RESAMPLING", "CORRELATION_METHODS", "CORRELATION_TESTS", "GROUPINGS", "KENDALL_VARIANTS", "LEVELS",
           "METHODS", "SWEEP_PARAMETERS", "SYSTEM_METHODS", "UNDEFINED", "UNMATCHED", "VARIANTS"]

#: What a study does with segments whose ΔBLEU is undefined (no reference of positive weight): stop and
#: name them, or leave them out of every metric.
UNDEFINED = ("error", "exclude")
#: What to do with rated (system, segment) cells that some metric has no hypothesis for.
UNMATCHED = ("error", "exclude")
#: Parameters :func:`bleustats.meta.study.sweep` can vary (the panels of the paper's Figure 2).
SWEEP_PARAMETERS = ("threshold", "unit_size", "max_ngram_order")
#: ``variant`` values of the Kendall correlations (:mod:`bleustats.meta.correlation`).
KENDALL_VARIANTS = ("b", "c", "wmt", "acc23")
#: ``method`` values of :func:`~bleustats.meta.correlation.system_correlation` / ``segment_correlation``.
CORRELATION_METHODS = ("pearson", "spearman", "kendall")
#: ``grouping`` values of :func:`~bleustats.meta.correlation.segment_correlation`.
GROUPINGS = ("flat", "item", "system")
#: Tests of :func:`~bleustats.meta.compare.correlation_difference_test`.
CORRELATION_TESTS = ("bootstrap", "permutation")
#: ``levels`` of :func:`~bleustats.meta.metric_correlations.metric_correlations`.
LEVELS = ("system", "segment")
#: System-level-only methods: pairwise accuracy and soft pairwise accuracy.
SYSTEM_METHODS = ("pa", "spa")
#: ``methods`` of :func:`~bleustats.meta.metric_correlations.metric_correlations`.
METHODS = CORRELATION_METHODS + SYSTEM_METHODS
#: ``kendall_variants`` of :func:`~bleustats.meta.metric_correlations.metric_correlations` (``tau23`` = 2 acc23 - 1
#: per group).
VARIANTS = KENDALL_VARIANTS + ("tau23",)
#: How a comparison samples system pairs (``correlation_study``'s ``compare_resampling``).
COMPARE_RESAMPLING = ("systems", "pairs")
