"""Named choices of the meta-evaluation's options, without loading it (a command's ``--help`` lists them).

Examples
--------
>>> UNDEFINED
('error', 'exclude')
"""

from __future__ import annotations

__all__ = ["COMPARE_RESAMPLING", "SWEEP_PARAMETERS", "UNDEFINED", "UNMATCHED"]

#: What a study does with segments whose ΔBLEU is undefined (no reference of positive weight): stop and
#: name them, or leave them out of every metric.
UNDEFINED = ("error", "exclude")
#: What to do with rated (system, segment) cells that some metric has no hypothesis for.
UNMATCHED = ("error", "exclude")
#: Parameters :func:`bleustats.meta.study.sweep` can vary (the panels of the paper's Figure 2).
SWEEP_PARAMETERS = ("threshold", "unit_size", "max_ngram_order")
#: How a comparison samples system pairs (``correlation_study``'s ``compare_resampling``).
COMPARE_RESAMPLING = ("systems", "pairs")
