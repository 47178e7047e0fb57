"""Tools built on statistics and scores: k-best lists, BLEU's blind spots, system outliers, tree kernels.

- :mod:`~bleustats.tools.kbest` / :mod:`~bleustats.tools.nbest_io`: Moses
  n-best lists streamed, every entry scored under sentence-level variants,
  oracles and 1-best selections, SCORES_TXT.
- :mod:`~bleustats.tools.pairwise` / :mod:`~bleustats.tools.mbr`: every
  candidate against every candidate (chrF, BLEU variants, TER) from shared
  n-gram counts (numba kernels in :mod:`~bleustats.tools._mbr_kernels`),
  minimum Bayes risk selection and reference aggregation.
- :mod:`~bleustats.tools.blind_spots`: Callison-Burch, Osborne & Koehn's
  (2006) permutations and reference draws that keep BLEU unchanged.
- :mod:`~bleustats.tools.outliers`: R² of a metric against human scores and
  the leave-one-system-out R².
- :mod:`~bleustats.tools.trees`: subset-tree kernels and DiscoTK-light
  (numba kernels in :mod:`~bleustats.tools._tree_kernels`).
"""
