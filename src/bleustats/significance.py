"""Significance tests, at the path sacreBLEU code imports them from (``sacrebleu.significance``).

- paired tests of systems on the same segments (sacreBLEU's ``--paired-bs`` /
  ``--paired-ar``) from statistics, and sacreBLEU's ``PairedTest`` / ``Result``
  over BLEU, CHRF and TER objects: :mod:`bleustats.meta.paired`;
- tests of one metric against another on the same human scores (Williams,
  paired bootstrap and permutation of correlations): :mod:`bleustats.meta.compare`.

The code lives in those modules; this one only gathers their names.

Examples
--------
>>> from bleustats.significance import estimate_ci
>>> estimate_ci(list(range(80)))
(39.5, 37.5)
"""

from typing import Any

from .meta.compare import (CORRELATION_LEVELS, CORRELATION_TESTS, CorrelationDifferenceResult, WilliamsResult,
                           correlation_difference_test, williams_test)
from .meta.paired import (PairedTest, PairedTestResult, Result, estimate_ci, paired_approximate_randomization,
                          paired_bootstrap)

__all__ = [
    "CORRELATION_LEVELS",
    "CORRELATION_TESTS",
    "CorrelationDifferenceResult",
    "PairedTest",
    "PairedTestResult",
    "Result",
    "WilliamsResult",
    "correlation_difference_test",
    "estimate_ci",
    "paired_approximate_randomization",
    "paired_bootstrap",
    "williams_test",
]


def _compute_p_value(stats: Any, real_difference: float) -> float:
    r"""sacreBLEU's p-value of a resampling test: :math:`(\#\{s > d\} + 1) / (B + 1)`.

    ``stats`` holds the statistic of each of the :math:`B` resamples (sacreBLEU
    passes absolute score differences), ``real_difference`` the observed one
    :math:`d`; the strict ``>`` means a system compared with itself gets p = 1
    (Clark et al.'s MultEval, which sacreBLEU follows).

    >>> _compute_p_value([0.5, 1.5, 2.5], 1.0)
    0.75
    """
    import numpy as np

    sample = np.asarray(stats)
    return (int(np.sum(sample > real_difference)) + 1) / (len(sample) + 1)
