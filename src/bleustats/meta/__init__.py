"""Meta-evaluation from statistics: resampling, correlation, significance, studies, combination.

- :mod:`~bleustats.meta.resample`: seeded partitions into units, bootstrap draws, unit sums.
- :mod:`~bleustats.meta.correlation`: batched Pearson, Spearman, Kendall τ variants,
  mt-metrics-eval's groupings, Fisher z intervals.
- :mod:`~bleustats.meta.paired`: paired bootstrap / approximate randomization of two systems.
- :mod:`~bleustats.meta.compare`: one metric against another on the same human scores.
- :mod:`~bleustats.meta.study`: the ΔBLEU paper's correlation protocol;
  :mod:`~bleustats.meta.report` formats its tables and figures.
- :mod:`~bleustats.meta.combine`: DiscoTK-style metric combination.
"""
