r"""System-level outliers: R² of a metric against human scores, and what one system does to it.

Callison-Burch, Osborne & Koehn (2006), Figures 2 and 3: one system that
BLEU misjudges (there, a rule-based system) can drag the R² of BLEU against
human judgments from 0.87 to 0.14. :func:`leave_one_out_r2` recomputes R²
with each system left out (one batched Pearson over all of them) and flags
the systems whose removal changes it most.

References
----------
.. [1] C. Callison-Burch, M. Osborne and P. Koehn, "Re-evaluating the Role of
   BLEU in Machine Translation Research", EACL 2006, pp. 249–256.

Examples
--------
>>> round(r_squared([1, 2, 3, 4], [2, 4, 5, 9]), 6)
0.930769
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import check_count
from ..errors import InputError
from ..meta.correlation import pearson

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["OutlierAnalysis", "leave_one_out_r2", "r_squared"]


def _as_vector(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=object)
    if arr.ndim != 1:
        raise InputError(f"{name} must be one number per system (1-D); got shape {arr.shape}.")
    bad = [i for i, v in enumerate(arr) if isinstance(v, (bool, np.bool_)) or
           not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v)]
    if bad:
        raise InputError(f"{name} must hold finite numbers; got {arr[bad[0]]!r} at index {bad[0]}. "
                         "Drop or fill that system first.")
    return arr.astype(np.float64)


def r_squared(metric: Sequence[float], human: Sequence[float]) -> float:
    r"""Squared Pearson correlation of a metric and human scores over systems.

    .. math::

        R^2 = \left(\frac{\sum_i (x_i - \bar x)(y_i - \bar y)}
        {\sqrt{\sum_i (x_i - \bar x)^2 \sum_i (y_i - \bar y)^2}}\right)^2

    (equal to ``scipy.stats.pearsonr(x, y).statistic ** 2``).

    Parameters
    ----------
    metric, human : sequence of float
        One finite number per system, same length, at least 2.

    Returns
    -------
    float
        NaN when either side is constant (correlation undefined).

    Examples
    --------
    >>> round(r_squared([1, 2, 3, 4], [2, 4, 5, 9]), 6)
    0.930769
    >>> r_squared([1, 1, 1], [1, 2, 3])
    nan
    """
    x, y = _as_vector(metric, "metric"), _as_vector(human, "human")
    if len(x) != len(y):
        raise InputError(f"metric and human must have one number per system each; got {len(x)} and {len(y)}.")
    if len(x) < 2:
        raise InputError(f"metric and human need at least 2 systems for a correlation; got {len(x)}.")
    return float(pearson(x, y)) ** 2


@dataclass(frozen=True)
class OutlierAnalysis:
    """R² of a metric against human scores, with every leave-one-system-out R².

    Attributes
    ----------
    systems : tuple of str
    metric, human : numpy.ndarray
        The scores, in ``systems`` order.
    r : float
        Pearson's r over all systems; its sign, which R² hides, says whether the
        metric agrees with the humans at all.
    r_without : numpy.ndarray
        r without each system, in ``systems`` order.
    flagged : tuple of str
        The systems whose removal changes R² most (``flag_top`` of them).
    """

    systems: tuple[str, ...]
    metric: np.ndarray
    human: np.ndarray
    r: float
    r_without: np.ndarray
    flagged: tuple[str, ...]

    @property
    def r2(self) -> float:
        """R² over all systems."""
        return self.r ** 2

    @property
    def r2_without(self) -> np.ndarray:
        """R² without each system, in ``systems`` order."""
        return self.r_without ** 2

    @property
    def change(self) -> np.ndarray:
        """R² without the system minus R² with all systems."""
        return self.r2_without - self.r2

    def to_pandas(self) -> pd.DataFrame:
        """One row per system, largest absolute change first."""
        import pandas as pd

        df = pd.DataFrame({"system": list(self.systems), "metric": self.metric, "human": self.human,
                           "r_without": self.r_without, "r2_without": self.r2_without, "change": self.change,
                           "flagged": [s in self.flagged for s in self.systems]})
        return df.reindex(df["change"].abs().sort_values(ascending=False, kind="stable").index
                          ).reset_index(drop=True)

    def to_dict(self) -> dict[str, Any]:
        return {"r": self.r, "r2": self.r2, "flagged": list(self.flagged),
                "systems": [{"system": s, "metric": float(m), "human": float(h), "r_without": float(r),
                             "r2_without": float(r * r)}
                            for s, m, h, r in zip(self.systems, self.metric, self.human, self.r_without)]}


def leave_one_out_r2(
    metric: Sequence[float] | Mapping[str, float],
    human: Sequence[float] | Mapping[str, float],
    *,
    systems: Sequence[str] | None = None,
    flag_top: int = 1,
) -> OutlierAnalysis:
    r"""R² of a metric against human scores, and R² with each system left out.

    The paper's Figure 2/3 point: one system BLEU misjudges (there, a
    rule-based system) can drag R² from 0.87 to 0.14. Each
    :math:`R^2_{-i}` is :func:`r_squared` of the other systems; the
    ``flag_top`` systems with the largest :math:`|R^2_{-i} - R^2|` are
    flagged.

    Parameters
    ----------
    metric, human : sequence of float or mapping of system to float
        System-level scores; higher human scores are better (the sign does not
        change R²). Mappings (dicts, pandas Series) are aligned by system name
        and must have the same systems.
    systems : sequence of str, optional
        Names for sequence inputs (default ``'0', '1', ...``).
    flag_top : int
        How many systems to flag.

    Returns
    -------
    OutlierAnalysis

    Examples
    --------
    >>> res = leave_one_out_r2({"A": 10, "B": 20, "C": 30, "D": 40, "E": 45},
    ...                        {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.1, "E": 1.0})
    >>> round(res.r2, 3), res.flagged, round(float(res.r2_without[-1]), 3)
    (0.125, ('E',), 0.999)
    """
    def is_map(v: Any) -> bool:
        return isinstance(v, Mapping) or (hasattr(v, "keys") and hasattr(v, "items"))  # dict, Series

    if is_map(metric) or is_map(human):
        if not (is_map(metric) and is_map(human)):
            raise InputError("metric and human must both be mappings of system to score, or both sequences; "
                             f"got {type(metric).__name__} and {type(human).__name__}.")
        if systems is not None:
            raise InputError("systems must be None when metric and human are mappings (the keys name them).")
        m, h = dict(metric.items()), dict(human.items())
        only_m, only_h = sorted(set(m) - set(h), key=str), sorted(set(h) - set(m), key=str)
        if only_m or only_h:
            raise InputError(f"metric and human must score the same systems; only in metric: {only_m}, "
                             f"only in human: {only_h}. Align them first.")
        names = [str(s) for s in m]
        x, y = _as_vector([m[s] for s in m], "metric"), _as_vector([h[s] for s in m], "human")
    else:
        x, y = _as_vector(metric, "metric"), _as_vector(human, "human")
        names = [str(i) for i in range(len(x))] if systems is None else [str(s) for s in systems]
        if len(names) != len(x):
            raise InputError(f"systems must name every system ({len(x)}); got {len(names)} names.")
    if len(x) != len(y):
        raise InputError(f"metric and human must have one number per system each; got {len(x)} and {len(y)}.")
    if len(x) < 3:
        raise InputError(f"leave-one-out R² needs at least 3 systems (2 remain after leaving one out); "
                         f"got {len(x)}.")
    if len(set(names)) != len(names):
        raise InputError(f"systems must be distinct; got duplicates in {names}.")
    flag_top = check_count("flag_top", flag_top, minimum=0)
    r = float(pearson(x, y))
    keep = ~np.eye(len(x), dtype=bool)  # row i: every system but i
    n = len(x)
    loo = np.asarray(pearson(np.broadcast_to(x, (n, n))[keep].reshape(n, n - 1),
                             np.broadcast_to(y, (n, n))[keep].reshape(n, n - 1)))
    change = np.abs(loo ** 2 - r ** 2)
    order = np.argsort(-np.nan_to_num(change, nan=-1.0), kind="stable")
    flagged = tuple(names[i] for i in order[:flag_top] if np.isfinite(change[i]))
    return OutlierAnalysis(tuple(names), x, y, r, loo, flagged)
