"""Meta-evaluation from statistics: resampling, correlation, significance, studies, combination.

- :mod:`~bleustats.meta.resample`: seeded partitions into units, bootstrap draws, unit sums.
- :mod:`~bleustats.meta.correlation`: batched Pearson, Spearman, Kendall τ variants,
  mt-metrics-eval's groupings, Fisher z intervals.
- :mod:`~bleustats.meta.rank_stats`: Spearman and Kendall of many rows with integer weights
  (bootstrap replicates as draw counts over rows sorted once; numba kernels in ``_rank_kernels``).
- :mod:`~bleustats.meta.paired`: paired bootstrap / approximate randomization of two systems.
- :mod:`~bleustats.meta.paired_systems`: sacreBLEU's ``PairedTest`` / ``Result``: many systems
  against a baseline, any metric object.
- :mod:`~bleustats.meta.compare`: one metric against another on the same human scores.
- :mod:`~bleustats.meta.metric_correlations`: system- and segment-level correlations of a table of
  metrics, with Williams and resampling comparisons.
- :mod:`~bleustats.meta.units`: the study's metrics of units and the cells they share (unit BLEU
  in numba in ``_unit_kernels``);
  :mod:`~bleustats.meta.study`: the ΔBLEU paper's correlation protocol;
  :mod:`~bleustats.meta.study_compare`: the paired comparison of two of its metrics;
  :mod:`~bleustats.meta.ref_weights`: reference weights from human scores of the references;
  :mod:`~bleustats.meta.report` formats its tables and figures.
- :mod:`~bleustats.meta.combine`: DiscoTK-style metric combination.
- :mod:`~bleustats.meta.partitioned`: paired tests and study metrics of a partitioned statistics
  table, reading only the rows they resample.
- :mod:`~bleustats.meta.pairwise_accuracy`: system-level pairwise accuracy and soft pairwise accuracy
  (Thompson et al. 2024), corpus metrics rescored from swapped statistics under every permutation.
- :mod:`~bleustats.meta.tie_calibration`: acc23 / tau23 with the metric tie threshold chosen to
  maximise agreement (Deutsch et al. 2023), and the paired permutation test between such rows.
- :mod:`~bleustats.meta.rank_clusters`: PERM-BOTH significance matrices and WMT's rank clusters.
- :mod:`~bleustats.meta._options`: the named choices of the study's options (what a command's
  ``--help`` lists without loading the meta-evaluation).
"""
