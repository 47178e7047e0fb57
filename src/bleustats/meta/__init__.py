"""Meta-evaluation from statistics: resampling, correlation, significance, studies, combination.

- :mod:`~bleustats.meta.resample`: seeded partitions into units, bootstrap draws, unit sums.
- :mod:`~bleustats.meta.correlation`: batched Pearson, Spearman, Kendall τ variants,
  mt-metrics-eval's groupings, Fisher z intervals.
- :mod:`~bleustats.meta.rank_stats`: Spearman and Kendall of many rows with integer weights
  (bootstrap replicates as draw counts over rows sorted once; numba kernels in ``_rank_kernels``).
- :mod:`~bleustats.meta.paired`: paired bootstrap / approximate randomization of two systems of
  any statistics source (a table, or a partitioned dataset read only for their rows), and
  sacreBLEU's ``PairedTest`` / ``Result``: many systems against a baseline, any metric object.
- :mod:`~bleustats.meta.compare`: one metric against another on the same human scores (Williams,
  resampling of correlations).
- :mod:`~bleustats.meta.metric_correlations`: system- and segment-level correlations of a table of
  metrics, with Williams and resampling comparisons.
- :mod:`~bleustats.meta.units`: the study's metrics of units and the cells they share (unit BLEU
  by :func:`bleustats.metrics.formula.exp_bleu_scores_of_rows`);
  :mod:`~bleustats.meta.rated_cells`: those metrics of the rated cells of any statistics source;
  :mod:`~bleustats.meta.study`: the ΔBLEU paper's correlation protocol;
  :mod:`~bleustats.meta.study_compare`: the paired comparison of two of its metrics;
  :mod:`~bleustats.meta.ref_weights`: reference weights from human scores of the references;
  :mod:`~bleustats.meta.report` formats its tables and figures.
- :mod:`~bleustats.meta.combine`: DiscoTK-style metric combination.
- :mod:`~bleustats.meta.pairwise_accuracy`: system-level pairwise accuracy and soft pairwise accuracy
  (Thompson et al. 2024), corpus metrics rescored from swapped statistics under every permutation.
- :mod:`~bleustats.meta.tie_calibration`: acc23 / tau23 with the metric tie threshold chosen to
  maximise agreement (Deutsch et al. 2023), and the paired permutation test between such rows.
- :mod:`~bleustats.meta.rank_clusters`: PERM-BOTH significance matrices and WMT's rank clusters.
- :mod:`~bleustats.meta._options`: the named choices of the study's options (what a command's
  ``--help`` lists without loading the meta-evaluation).
"""


from __future__ import annotations

from .._lazy import lazy_exports

#: entry point -> the module that defines it (imported on first use: ``import bleustats.meta`` stays light).
#: Functions named like their module (``metric_correlations``, ``pairwise_accuracy``, ``rank_clusters``)
#: are called through it: ``bleustats.meta.rank_clusters.rank_clusters``.
_EXPORTS = {
    "PairedTest": "paired",
    "PairedTestResult": "paired",
    "paired_approximate_randomization": "paired",
    "paired_bootstrap": "paired",
    "correlation_difference_test": "compare",
    "williams_test": "compare",
    "fisher_z_interval": "correlation",
    "kendall_tau": "correlation",
    "pearson": "correlation",
    "segment_correlation": "correlation",
    "spearman": "correlation",
    "system_correlation": "correlation",
    "StudyResult": "study",
    "correlation_study": "study",
    "corpus_metric": "study",
    "mean_metric": "study",
    "sentence_mean_metric": "study",
    "sweep": "study",
    "tie_calibrated_kendall": "tie_calibration",
    "reference_weights": "ref_weights",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
