"""Score objects: the numbers, the statistics behind them, and a signature.

:class:`BLEUScore` has sacreBLEU's attributes (``score`` on 0–100, ``counts``,
``totals``, ``precisions``, ``bp``, ``sys_len``, ``ref_len``, ``ratio``,
``format()``), so code written for ``sacrebleu.BLEUScore`` keeps working.

Examples
--------
>>> sig = Signature(nrefs="1", tokenize="13a", lowercase=False, smooth="exp",
...                 effective_order=False, max_order=4)
>>> str(sig)
'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|order:4|refs:all|w:uniform|metric:bleu|version:bleustats-...'
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ._version import __version__

__all__ = ["BLEUScore", "Signature"]


@dataclass(frozen=True)
class Signature:
    """How a number was made (sacreBLEU's fields plus bleustats' own).

    ``str(signature)`` gives the sacreBLEU-style ``key:value|...`` line.
    """

    nrefs: str
    tokenize: str
    lowercase: bool
    smooth: str
    effective_order: bool
    max_order: int
    ref_view: str = "all"
    weight_threshold: float | None = None
    weights: str = "uniform"
    metric: str = "bleu"
    delta_definition: str | None = None
    ref_length: str = "closest"
    version: str = __version__

    def __str__(self) -> str:
        parts = [
            f"nrefs:{self.nrefs}",
            f"case:{'lc' if self.lowercase else 'mixed'}",
            f"eff:{'yes' if self.effective_order else 'no'}",
            f"tok:{self.tokenize}",
            f"smooth:{self.smooth}",
            f"order:{self.max_order}",
        ]
        refs = self.ref_view
        if self.ref_view == "threshold":
            refs = f"w>={self.weight_threshold:g}"
        parts.append(f"refs:{refs}")
        if self.ref_length != "closest":
            parts.append(f"reflen:{self.ref_length}")
        parts.append(f"w:{self.weights}")
        parts.append(f"metric:{self.metric}")
        if self.metric == "delta_bleu":
            parts.append(f"delta:{self.delta_definition}")
        parts.append(f"version:bleustats-{self.version}")
        return "|".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BLEUScore:
    """A corpus or sentence BLEU / ΔBLEU score.

    Attributes
    ----------
    score : float
        On the 0–100 scale.
    counts, totals : list
        Per-order numerators and denominators as sacreBLEU reports them (for
        ``add-k`` smoothing they include the added ``k`` for n ≥ 2, as in
        sacreBLEU; ΔBLEU numerators are clamped at 0). The unsmoothed sums are
        in ``stats``.
    precisions : list of float
        Per-order precisions on the 0–100 scale, after smoothing.
    bp : float
        Brevity penalty.
    sys_len, ref_len : int or float
        Summed hypothesis and reference lengths.
    signature : Signature
    stats : dict
        Summed statistics behind the score (``match``, ``total`` or the
        weighted ``wmatch``, ``wtotal`` lists, ``hyp_len``, ``ref_len``).
    """

    score: float
    counts: list
    totals: list
    precisions: list
    bp: float
    sys_len: int | float
    ref_len: int | float
    signature: Signature | None = None
    stats: dict = field(default_factory=dict)
    name: str = "BLEU"

    @property
    def ratio(self) -> float:
        """sys_len / ref_len (0 when ref_len is 0)."""
        return self.sys_len / self.ref_len if self.ref_len else 0

    @property
    def prec_str(self) -> str:
        return "/".join(f"{p:.1f}" for p in self.precisions)

    def format(self, width: int = 2, score_only: bool = False, signature: str = "",
               is_json: bool = False) -> str:
        """sacreBLEU's text line (or JSON with ``is_json=True``)."""
        if is_json:
            return json.dumps(self.to_dict(width), ensure_ascii=False)
        if score_only:
            return f"{self.score:.{width}f}"
        sys_len = f"{self.sys_len:d}" if isinstance(self.sys_len, int) else f"{self.sys_len:g}"
        ref_len = f"{self.ref_len:d}" if isinstance(self.ref_len, int) else f"{self.ref_len:g}"
        sig = f"{signature} = " if signature else ""
        return (f"{sig}{self.name} = {self.score:.{width}f} {self.prec_str} (BP = {self.bp:.3f} "
                f"ratio = {self.ratio:.3f} hyp_len = {sys_len} ref_len = {ref_len})")

    def __str__(self) -> str:
        return self.format()

    def to_dict(self, width: int | None = None) -> dict[str, Any]:
        """Plain-Python dict of every number and the signature (for JSON)."""
        score = round(self.score, width) if width is not None else self.score
        return {
            "name": self.name,
            "score": score,
            "counts": [float(c) if isinstance(c, float) else int(c) for c in self.counts],
            "totals": [float(t) if isinstance(t, float) else int(t) for t in self.totals],
            "precisions": list(map(float, self.precisions)),
            "bp": float(self.bp),
            "sys_len": self.sys_len,
            "ref_len": self.ref_len,
            "ratio": float(self.ratio),
            "signature": str(self.signature) if self.signature is not None else None,
            "stats": self.stats,
        }
