"""Tools built on statistics and scores: k-best lists, tuning, system comparison, blind spots, outliers, trees.

- :mod:`~bleustats.tools.kbest`: k-best (n-best) lists streamed, every entry
  scored under sentence-level variants, oracles and 1-best selections.
- :mod:`~bleustats.tools.nbest_io`: the source-aligned n-best reader and
  Moses' SCORES_TXT writer.
- :mod:`~bleustats.tools.nbest_features`: Moses dense features, FEATURES_TXT
  and weight files.
- :mod:`~bleustats.tools._kbest_partitioned`: k-best lists and their oracles
  on partitioned data.
- :mod:`~bleustats.tools.tune`: offline tuning on k-best lists (PRO, batch
  k-best MIRA) driven by any sentence-level variant.
- :mod:`~bleustats.tools.pairwise` / :mod:`~bleustats.tools.mbr`: every
  candidate against every candidate (chrF, BLEU variants, TER) from shared
  n-gram counts (numba kernels in :mod:`~bleustats.tools._mbr_kernels`),
  minimum Bayes risk selection and reference aggregation;
  :mod:`~bleustats.tools._mbr_partitioned` runs the selection per partition of
  a Parquet candidates table (here or on a Dask cluster).
- :mod:`~bleustats.tools.system_compare`: ``bleustats compare``'s analyses
  (compare-mt's, and chrF / TER / ΔBLEU per bucket, labels, intervals and
  p-values) from one statistics table and the texts' token ids
  (:mod:`~bleustats.tools._compare_tokens`, :mod:`~bleustats.tools._compare_text`),
  resampled in one pass (:mod:`~bleustats.tools._compare_resample`);
  :mod:`~bleustats.tools.compare_report` writes them as a self-contained HTML page.
- :mod:`~bleustats.tools.blind_spots`: Callison-Burch, Osborne & Koehn's
  (2006) permutations and reference draws that keep BLEU unchanged.
- :mod:`~bleustats.tools.outliers`: R² of a metric against human scores and
  the leave-one-system-out R².
- :mod:`~bleustats.tools.trees`: subset-tree kernels and DiscoTK-light
  (numba kernels in :mod:`~bleustats.tools._tree_kernels`).
- :mod:`~bleustats.tools._options`: the named choices of the tools' options
  (what a command's ``--help`` lists without loading the tools).
"""


from __future__ import annotations

from .._lazy import lazy_exports

#: entry point -> the module that defines it (imported on first use: ``import bleustats.tools`` stays light).
#: ``tune`` (module and function) is called through its module: ``bleustats.tools.tune.tune``.
_EXPORTS = {
    "score_nbest": "kbest",
    "read_nbest": "nbest_io",
    "kbest_oracles": "_kbest_partitioned",
    "score_nbest_dataset": "_kbest_partitioned",
    "mbr_nbest": "mbr",
    "mbr_select": "mbr",
    "mbr_dataset": "_mbr_partitioned",
    "pairwise_scores": "pairwise",
    "read_tuning_list": "tune",
    "compare": "system_compare",
    "write_report": "compare_report",
    "check_permutations": "blind_spots",
    "reference_draws": "blind_spots",
    "leave_one_out_r2": "outliers",
    "r_squared": "outliers",
    "discotk_light": "trees",
    "tree_kernel": "trees",
    "tree_kernels": "trees",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
