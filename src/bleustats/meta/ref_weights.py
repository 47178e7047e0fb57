r"""ΔBLEU reference weights from human scores of the references themselves.

ΔBLEU (Galley et al., 2015) weighs each reference by a rating of its quality in
:math:`[-1, 1]`. When the references were rated like systems (WMT's MQM rates
the human translations ``ref-A``, ``ref-B``, ... with the systems), a transform
maps those scores to weights:

* ``linear:SCALE``: :math:`w = \mathrm{clip}\big(1 + (s - s_{top})/\mathrm{SCALE}, -1, 1\big)`
  with :math:`s_{top}` the highest score among the rated references: the best
  rated reference gets 1, one SCALE below it 0, two SCALEs below −1 (MQM with
  ``linear:12.5``: no error → 1, one major error (−5) → 0.6, −25 → −1);
* ``rank``: :math:`w = 2F(s) - 1`, :math:`F` the empirical distribution function
  of all rated reference scores (ties share the highest rank): the best get 1,
  the median 0, the worst :math:`-1 + 2/n`;
* ``constant-linear:SCALE``: the single reference of each segment (``single_ref``,
  or the segment's first) keeps the constant weight 1, as the original reference
  of the ΔBLEU paper's data, and the others get ``linear:SCALE``.

The scores come from a table with ``ref_id, seg_id, score`` rows, or from a
human scores table (``system, seg_id, score``) whose ``system`` names match the
reference ids. Every reference needs a score (except the constant one): a
missing score is an error naming the references, never a silent default.

References
----------
.. [1] Galley, M. et al. (2015). ΔBLEU: a discriminative metric for generation
   tasks with intrinsically diverse targets. ACL (weights in [−1, +1] from human
   ratings of the references).
.. [2] Freitag, M. et al. (2021). Experts, errors, and context: a large-scale
   study of human evaluation for machine translation. TACL (MQM, rated human
   references).

Examples
--------
>>> import pandas as pd
>>> refs = pd.DataFrame({"seg_id": [1, 1, 2, 2], "ref_id": ["A", "B", "A", "B"], "text": ["a", "b", "c", "d"]})
>>> scores = pd.DataFrame({"system": ["A", "B", "A", "B", "sys1"], "seg_id": [1, 1, 2, 2, 1],
...                        "score": [0.0, -5.0, -12.5, -25.0, -1.0]})
>>> out, info = reference_weights(refs, scores, "linear:12.5")
>>> out["weight"].tolist(), info["label"]
([1.0, 0.6, 0.0, -1.0], 'linear:12.5,top:0')
>>> reference_weights(refs, scores, "rank")[0]["weight"].tolist()
[1.0, 0.5, 0.0, -0.5]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import choices_text, describe_ids
from ..errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["WEIGHT_TRANSFORMS", "WeightTransform", "parse_weight_transform", "reference_weights"]

#: Names of the transforms (``linear`` and ``constant-linear`` take ``:SCALE``).
WEIGHT_TRANSFORMS = ("linear", "rank", "constant-linear")


@dataclass(frozen=True)
class WeightTransform:
    """A map from human scores of references to ΔBLEU weights in [−1, 1] (module docstring).

    Attributes
    ----------
    name : {'linear', 'rank', 'constant-linear'}
    scale : float or None
        SCALE of the linear transforms (None for ``rank``).
    """

    name: str
    scale: float | None = None

    def __str__(self) -> str:
        return self.name if self.scale is None else f"{self.name}:{self.scale:g}"

    def weights(self, scores: Any) -> tuple[np.ndarray, dict[str, float]]:
        """Weights of ``scores`` (all rated references together) and the parameters used.

        Examples
        --------
        >>> w, params = parse_weight_transform("linear:10").weights([0.0, -5.0, -30.0])
        >>> w.tolist(), params
        ([1.0, 0.5, -1.0], {'top': 0.0})
        """
        s = np.asarray(scores, dtype=np.float64)
        if s.size == 0:
            return s.copy(), {}
        if self.name == "rank":
            order = np.sort(s)
            cdf = np.searchsorted(order, s, side="right") / s.size  # ties share the highest rank
            return 2.0 * cdf - 1.0, {}
        top = float(s.max())
        return np.clip(1.0 + (s - top) / self.scale, -1.0, 1.0), {"top": top}


def parse_weight_transform(spec: str | WeightTransform) -> WeightTransform:
    """``'linear:12.5'``, ``'rank'`` or ``'constant-linear:12.5'`` as a :class:`WeightTransform`.

    Examples
    --------
    >>> parse_weight_transform("constant-linear:12.5")
    WeightTransform(name='constant-linear', scale=12.5)
    >>> parse_weight_transform("linear")
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: weight transform 'linear' needs a scale: 'linear:SCALE' with SCALE > 0,
    e.g. 'linear:12.5'.
    """
    if isinstance(spec, WeightTransform):
        return spec
    if not isinstance(spec, str) or not spec:
        raise InputError(f"weight transform must be a string such as 'linear:12.5' or 'rank'; got {spec!r}.")
    name, _, arg = spec.partition(":")
    if name not in WEIGHT_TRANSFORMS:
        raise InputError(f"weight transform must be {choices_text(WEIGHT_TRANSFORMS)} (linear ones with "
                         f"':SCALE'); got {spec!r}.")
    if name == "rank":
        if arg:
            raise InputError(f"weight transform 'rank' takes no parameter; got {spec!r}. Use 'rank'.")
        return WeightTransform("rank")
    try:
        scale = float(arg)
    except ValueError:
        scale = math.nan
    if not arg or not math.isfinite(scale) or scale <= 0:
        raise InputError(f"weight transform {name!r} needs a scale: '{name}:SCALE' with SCALE > 0, e.g. "
                         f"'{name}:12.5'.")
    return WeightTransform(name, scale)


def _score_rows(scores: "pd.DataFrame", ref_ids: set, score_column: str) -> "pd.DataFrame":
    """(ref_id, seg_id, score) rows of a weights table or of a human table's reference rows."""
    if "ref_id" in scores.columns:
        key = "ref_id"
    elif "system" in scores.columns:
        key = "system"
    else:
        raise InputError("reference scores need a 'ref_id' column (rows ref_id, seg_id, score) or a 'system' "
                         f"column whose names match the reference ids; got columns {list(scores.columns)!r}.")
    if score_column in ("ref_id", "system", "seg_id"):
        raise InputError(f"reference scores: the score column {score_column!r} is a key column (ref_id or system, "
                         "seg_id); name the column that holds the references' scores (score_column; on the command "
                         "line --human-column).")
    missing = [c for c in ("seg_id", score_column) if c not in scores.columns]
    if missing:
        raise InputError(f"reference scores: missing column(s) {missing!r} (columns: {list(scores.columns)!r}).")
    rows = scores.loc[scores[key].astype(str).isin(ref_ids), [key, "seg_id", score_column]]
    rows = rows.rename(columns={key: "ref_id", score_column: "score"})
    import pandas as pd

    rows = rows.assign(ref_id=rows["ref_id"].astype(str), score=pd.to_numeric(rows["score"], errors="coerce"))
    return rows.dropna(subset=["score"]).groupby(["ref_id", "seg_id"], as_index=False)["score"].mean()


def reference_weights(
    references: "pd.DataFrame",
    scores: "pd.DataFrame",
    transform: str | WeightTransform,
    *,
    single_ref: str | None = None,
    score_column: str = "score",
) -> tuple["pd.DataFrame", dict[str, Any]]:
    """The references with their ``weight`` column from human scores of the references.

    Parameters
    ----------
    references : pandas.DataFrame
        ``seg_id``, ``ref_id``, ``text`` (a ``weight`` column is replaced).
    scores : pandas.DataFrame
        ``ref_id, seg_id, score`` rows, or a human table whose ``system`` names
        match reference ids (other rows are ignored); several ratings of one
        reference are averaged, NaN scores dropped.
    transform : str or WeightTransform
        ``'linear:SCALE'``, ``'rank'`` or ``'constant-linear:SCALE'``.
    single_ref : str, optional
        The constant reference of ``constant-linear`` (default: each segment's
        first reference).
    score_column : str
        Name of the score column in ``scores``.

    Returns
    -------
    (pandas.DataFrame, dict)
        The references (same rows and order) with ``weight``, and ``info``:
        ``label`` (transform and parameters, for signatures), ``rated``
        (references with a score), ``constant`` (references given weight 1).

    Raises
    ------
    InputError
        A bad transform, or references without a score (they are named).
    """
    t = parse_weight_transform(transform)
    refs = references.copy()
    refs["ref_id"] = refs["ref_id"].astype(str)
    rows = _score_rows(scores, set(refs["ref_id"]), score_column)
    joined = refs.drop(columns=["weight"], errors="ignore").merge(rows, on=["ref_id", "seg_id"], how="left")
    constant = np.zeros(len(joined), dtype=bool)
    if t.name == "constant-linear":
        if single_ref is None:
            constant = ~joined.duplicated("seg_id").to_numpy()
        else:
            constant = (joined["ref_id"] == str(single_ref)).to_numpy()
    unscored = joined["score"].isna().to_numpy() & ~constant
    if unscored.any():
        lost = joined.loc[unscored]
        by_ref = lost.groupby("ref_id")["seg_id"].apply(lambda s: describe_ids(s.to_numpy()))
        shown = "; ".join(f"{r}: seg_id {ids}" for r, ids in by_ref.items())
        raise InputError(f"reference scores: {int(unscored.sum())} reference(s) have no score ({shown}). Every "
                         "reference needs one to be weighted: add the scores, or leave those references out.")
    rated = ~constant
    w, params = t.weights(joined.loc[rated, "score"].to_numpy())
    weight = np.ones(len(joined))
    weight[rated] = w
    out = refs.assign(weight=weight)
    label = str(t) + "".join(f",{k}:{v:g}" for k, v in params.items())
    if t.name == "constant-linear":
        label += f",const:{single_ref if single_ref is not None else 'first'}"
    return out, {"label": label, "rated": int(rated.sum()), "constant": int(constant.sum()),
                 "transform": str(t), **params}
