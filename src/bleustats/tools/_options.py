"""Named choices of the tools' options, without loading the tools (a command's ``--help`` lists them).

Examples
--------
>>> ALGORITHMS
('pro', 'mira')
"""

from __future__ import annotations

__all__ = ["ALGORITHMS", "PAIRWISE_METRICS"]

#: Offline tuners of :func:`bleustats.tools.tune.tune`: PRO (Hopkins & May 2011), batch k-best MIRA
#: (Cherry & Foster 2012).
ALGORITHMS = ("pro", "mira")
#: Metric names :func:`bleustats.tools.pairwise.pairwise_scores` takes besides every sentence-BLEU variant name.
PAIRWISE_METRICS = ("chrf", "chrf++", "bleu", "ter")
